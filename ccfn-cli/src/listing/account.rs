//! `ccfn account`: the account, its usage, applications, API keys and
//! alerts (step 6).

use super::*;

/// `ccfn account` and the account's other lists.
#[derive(Args, Debug)]
pub(crate) struct AccountArgs {
    #[command(subcommand)]
    command: Option<AccountCommand>,
    #[command(flatten)]
    output: Output,
}

#[derive(Subcommand, Debug)]
enum AccountCommand {
    /// The account's usage records.
    Usage {
        /// At most this many records.
        #[arg(long, default_value_t = 50, value_parser = clap::value_parser!(u32).range(1..=10_000))]
        limit: u32,
        #[command(flatten)]
        output: Output,
    },
    /// The account's applications and their voice URLs.
    Apps {
        #[command(flatten)]
        output: Output,
    },
    /// The account's API keys (names and dates; never a secret).
    Keys {
        #[command(flatten)]
        output: Output,
    },
    /// The account's alerts (the platform's debugger), newest first.
    Alerts {
        /// Only alerts from this date (YYYY-MM-DD).
        #[arg(long, value_parser = date)]
        since: Option<String>,
        /// At most this many alerts.
        #[arg(long, default_value_t = 50, value_parser = clap::value_parser!(u32).range(1..=10_000))]
        limit: u32,
        #[command(flatten)]
        output: Output,
    },
}

/// Runs `ccfn account`.
pub(crate) fn run_account(args: &AccountArgs) -> Result<ExitCode, Error> {
    account(args).map_err(Error::of("account"))
}

fn account(args: &AccountArgs) -> Result<ExitCode, Problem> {
    let platform = platform()?;
    runtime()?.block_on(async {
        let account = "/2010-04-01/Accounts/{account}";
        match &args.command {
            None => {
                let path = format!("{account}.json");
                let found = platform
                    .fetch_at("the account", Product::Api, &path)
                    .await?;
                show::<Account>("the account", &found, &args.output, ACCOUNT_FIELDS)
            }
            Some(AccountCommand::Usage { limit, output }) => {
                let path = format!("{account}/Usage/Records.json");
                let limit = *limit as usize;
                let records = platform
                    .list_at("usage records", Product::Api, &path, "usage_records", limit)
                    .await?;
                print::<UsageRecord>("usage records", &records, output, USAGE_COLUMNS)
            }
            Some(AccountCommand::Apps { output }) => {
                let path = format!("{account}/Applications.json");
                let apps = platform
                    .list_at("applications", Product::Api, &path, "applications", 1000)
                    .await?;
                print::<Application>("applications", &apps, output, APP_COLUMNS)
            }
            Some(AccountCommand::Keys { output }) => {
                let path = format!("{account}/Keys.json");
                let keys = platform
                    .list_at("API keys", Product::Api, &path, "keys", 1000)
                    .await?;
                print::<Key>("API keys", &keys, output, KEY_COLUMNS)
            }
            Some(AccountCommand::Alerts {
                since,
                limit,
                output,
            }) => {
                let mut url = platform.url(Product::Monitor, "/v1/Alerts");
                if let Some(since) = since {
                    // The platform answers no query further back than 30
                    // days: an empty list would say "no alert", wrongly.
                    let today = crate::when::today();
                    if crate::doctor::past_alerts(since, &today) {
                        return Err(Problem::Usage(format!(
                            "--since {since}: the platform's alerts cannot be queried further back than {} days (today is {today}); give a date from the last {} days",
                            crate::doctor::ALERT_DAYS,
                            crate::doctor::ALERT_DAYS
                        )));
                    }
                    url.query_pairs_mut()
                        .append_pair("StartDate", &format!("{since}T00:00:00Z"));
                }
                let alerts = platform
                    .list("alerts", url, "alerts", *limit as usize)
                    .await?;
                print::<Alert>("alerts", &alerts, output, ALERT_COLUMNS)
            }
        }
    })
}
