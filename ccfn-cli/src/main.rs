//! `ccfn`, the operator's command: reads the records the logging contract
//! writes and runs the spec's diagnostic procedure over them.

mod call;
mod diagnose;
mod doctor;
mod error;
mod filter;
mod input;
mod line;
mod listing;
mod logs;
mod package;
mod platform;
mod probe;
mod resources;
mod summary;
mod terminal;
mod when;

use std::process::ExitCode;

use clap::{CommandFactory as _, Parser, Subcommand};
use terminal::write_out;

/// The operator's command for ccfn functions.
#[derive(Parser, Debug)]
#[command(name = "ccfn", version, about, long_about = None)]
#[command(after_help = "\
Exit status: 0 on success, 1 when the answer is no (no matching record, a
question of the decision tree answered no), 2 when the logs cannot answer
or on an error (a bad option, an unreadable file).")]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// Filter and read the records of ccfn functions' logs.
    Logs(logs::LogsArgs),
    /// Run the spec's decision tree over the records: which question fails,
    /// why, and what to do.
    Diagnose(diagnose::DiagnoseArgs),
    /// Test a function's endpoint: DNS, TLS, HEAD, and a signed POST in
    /// debug mode.
    Probe(probe::ProbeArgs),
    /// Play a whole phone call against a running runtime, as the platform
    /// would: interactive, or scripted for CI.
    Call(call::CallArgs),
    /// The platform's calls (step 2): list them, or one with its
    /// recordings and events.
    Calls(listing::CallsArgs),
    /// Follow one call across the number, the flow, the functions and the
    /// task router, and stop at the first broken link.
    Doctor(doctor::DoctorArgs),
    /// The serverless services' functions, environments and logs (step 3).
    Functions(listing::FunctionsArgs),
    /// The flows, their executions and steps (step 4).
    Flows(listing::FlowsArgs),
    /// The task router's tasks, workflows and queues (step 5).
    Tasks(listing::TasksArgs),
    /// The phone numbers and what answers them (step 6).
    Numbers(listing::NumbersArgs),
    /// The account, its usage, applications, API keys and alerts (step 6).
    Account(listing::AccountArgs),
    /// Package the evidence for an escalation: records, invocations,
    /// errors, the diagnosis, the probe, reproduction commands; scrubbed.
    Package(package::PackageArgs),
    /// Print a completion script for a shell.
    #[command(after_help = "\
Examples:
  ccfn completions bash > ~/.local/share/bash-completion/completions/ccfn
  ccfn completions zsh > ~/.zfunc/_ccfn
  ccfn completions fish > ~/.config/fish/completions/ccfn.fish")]
    Completions {
        /// The shell.
        shell: clap_complete::Shell,
    },
}

fn main() -> ExitCode {
    // clap's messages repeat the arguments (a value pasted from a log
    // included): they go through the terminal module too.
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(err) => {
            let text = err.to_string();
            if err.use_stderr() {
                terminal::write_err(&text);
            } else if let Err(problem) = write_out(&text) {
                terminal::say("", &problem.to_string());
            }
            return ExitCode::from(u8::try_from(err.exit_code()).unwrap_or(2));
        }
    };
    // Whatever the command shows, no known secret of its environment or
    // of its command line (a URL's password) is shown.
    package::register_known_secrets();
    let result = match &cli.command {
        Command::Logs(args) => logs::run(args),
        Command::Diagnose(args) => diagnose::run(args),
        Command::Probe(args) => probe::run(args),
        Command::Call(args) => call::run(args),
        Command::Package(args) => package::run(args),
        Command::Calls(args) => listing::run_calls(args),
        Command::Doctor(args) => doctor::run(args),
        Command::Tasks(args) => listing::run_tasks(args),
        Command::Flows(args) => listing::run_flows(args),
        Command::Functions(args) => listing::run_functions(args),
        Command::Numbers(args) => listing::run_numbers(args),
        Command::Account(args) => listing::run_account(args),
        Command::Completions { shell } => {
            let mut script = Vec::new();
            clap_complete::generate(*shell, &mut Cli::command(), "ccfn", &mut script);
            write_out(&String::from_utf8_lossy(&script))
                .map(|()| ExitCode::SUCCESS)
                .map_err(error::Error::of("completions"))
        }
    };
    result.unwrap_or_else(|err| {
        terminal::say("", &err.to_string());
        err.exit_code()
    })
}

#[cfg(test)]
mod tests {
    use ccfn_core::record;

    /// The steps and fields the commands read by name are the catalogue's:
    /// renaming one in ccfn-core fails here, not at an operator's terminal.
    #[test]
    fn the_steps_and_fields_read_are_the_catalogue_s() {
        let read: [(&str, &[&str]); 12] = [
            ("start", &["event"]),
            ("validation", &["required"]),
            ("validation_error", &["error"]),
            ("api_request", &["method", "url"]),
            ("api_response", &["status", "data"]),
            ("api_error", &["error"]),
            ("email_error", &["error"]),
            ("task_error", &["cause"]),
            ("error", &["kind", "error"]),
            ("success", &["result"]),
            ("end", &["outcome", "execution_ms"]),
            ("request_rejected", &["status", "method", "path", "error"]),
        ];
        for (name, fields) in read {
            let step = record::step(name).unwrap_or_else(|| panic!("no step `{name}`"));
            for field in fields {
                assert!(step.admits(field), "`{name}` has no field `{field}`");
            }
        }
        for field in [
            "timestamp",
            "level",
            "function",
            "invocation_id",
            "call_sid",
            "step",
            "message",
        ] {
            assert!(
                record::COMMON_FIELDS.contains(&field),
                "`{field}` is not common"
            );
        }
        // Where `line::Raw` finds the time and the level: first and second.
        assert_eq!(&record::COMMON_FIELDS[..2], ["timestamp", "level"]);
    }
}
