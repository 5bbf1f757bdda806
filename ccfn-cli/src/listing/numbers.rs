//! `ccfn numbers`: the phone numbers and what answers them (step 6).

use super::*;

/// `ccfn numbers`.
#[derive(Args, Debug)]
pub(crate) struct NumbersArgs {
    #[command(subcommand)]
    command: NumbersCommand,
}

#[derive(Subcommand, Debug)]
enum NumbersCommand {
    /// List the account's phone numbers and what answers their calls: a
    /// trunk, else an application, else the voice URL.
    List {
        /// At most this many numbers.
        #[arg(long, default_value_t = 100, value_parser = clap::value_parser!(u32).range(1..=10_000))]
        limit: u32,
        #[command(flatten)]
        output: Output,
    },
}

/// Runs `ccfn numbers`.
pub(crate) fn run_numbers(args: &NumbersArgs) -> Result<ExitCode, Error> {
    numbers(args).map_err(Error::of("numbers"))
}

fn numbers(args: &NumbersArgs) -> Result<ExitCode, Problem> {
    let platform = platform()?;
    runtime()?.block_on(async {
        match &args.command {
            NumbersCommand::List { limit, output } => {
                let path = "/2010-04-01/Accounts/{account}/IncomingPhoneNumbers.json";
                let limit = *limit as usize;
                let resource = "incoming phone numbers";
                let mut numbers = platform
                    .list_at(
                        resource,
                        Product::Api,
                        path,
                        "incoming_phone_numbers",
                        limit,
                    )
                    .await?;
                // What answers each, for the JSON too.
                let typed: Vec<IncomingNumber> = typed_all(resource, &numbers)?;
                for (number, read) in numbers.iter_mut().zip(&typed) {
                    number["handler"] = Value::from(read.handler());
                }
                print::<IncomingNumber>(resource, &numbers, output, NUMBER_COLUMNS)
            }
        }
    })
}
