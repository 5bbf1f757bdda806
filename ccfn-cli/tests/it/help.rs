//! `--help` of every command, as an operator reads it, and the shell
//! completions.

use crate::common;

use common::ccfn;

#[test]
fn help_of_every_command() {
    for (name, args) in [
        ("ccfn", &["--help"][..]),
        ("logs", &["logs", "--help"][..]),
        ("diagnose", &["diagnose", "--help"][..]),
        ("probe", &["probe", "--help"][..]),
        ("call", &["call", "--help"][..]),
        ("package", &["package", "--help"][..]),
        ("completions", &["completions", "--help"][..]),
        ("doctor", &["doctor", "--help"][..]),
        ("calls-list", &["calls", "list", "--help"][..]),
        ("calls-get", &["calls", "get", "--help"][..]),
        ("tasks", &["tasks", "--help"][..]),
        ("tasks-list", &["tasks", "list", "--help"][..]),
        ("flows", &["flows", "--help"][..]),
        ("flows-executions", &["flows", "executions", "--help"][..]),
        ("functions-logs", &["functions", "logs", "--help"][..]),
        ("numbers-list", &["numbers", "list", "--help"][..]),
        ("account", &["account", "--help"][..]),
    ] {
        let ran = ccfn(args, None);
        assert_eq!(ran.code, 0, "{ran:?}");
        insta::assert_snapshot!(name, ran.stdout);
    }
}

#[test]
fn completions_for_each_shell() {
    for (shell, marker) in [
        ("bash", "_ccfn()"),
        ("zsh", "#compdef ccfn"),
        ("fish", "complete -c ccfn"),
        ("powershell", "Register-ArgumentCompleter"),
        ("elvish", "edit:completion:arg-completer[ccfn]"),
    ] {
        let ran = ccfn(&["completions", shell], None);
        assert_eq!(ran.code, 0, "{ran:?}");
        assert!(ran.stdout.contains(marker), "{shell}");
        assert!(
            ran.stdout.contains("--since"),
            "{shell}: the options of `logs`"
        );
    }
    let unknown = ccfn(&["completions", "tcsh"], None);
    assert_eq!(unknown.code, 2);
}
