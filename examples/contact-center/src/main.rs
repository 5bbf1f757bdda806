//! Run with `cargo run -p example-contact-center`: serves the example
//! functions on `http://127.0.0.1:3001` (change it with `CCFN_ADDR`), with
//! embedded defaults and no credentials needed in local mode; in
//! production mode (`CCFN_MODE=production`) it refuses to start without
//! its real values.
//!
//! Built with the `lambda` feature, the same binary serves them on AWS
//! Lambda when the platform (or an emulator such as `cargo lambda watch`)
//! starts it: that is, when `AWS_LAMBDA_RUNTIME_API` is set.

use ccfn_core::config::{self, Env};
use ccfn_core::runtime::{Runtime, RuntimeConfig};
use example_contact_center::server_context;

#[tokio::main]
async fn main() {
    let served = async {
        // The environment over `.env`, read once; every setting checked.
        let env = Env::load()?;
        config::check(&env)?;
        let config = RuntimeConfig::from_source(&env)?;
        // Local placeholders in local mode; the real values in production.
        let context = server_context(&env, config.mode)?;
        let runtime = example_contact_center::runtime(Runtime::new(context, config));
        #[cfg(feature = "lambda")]
        if config::AWS_LAMBDA_RUNTIME_API.text(&env).is_some() {
            return runtime.serve_lambda().await;
        }
        runtime.serve().await
    };
    if let Err(error) = served.await {
        eprintln!("ccfn: {error}");
        std::process::exit(1);
    }
}
