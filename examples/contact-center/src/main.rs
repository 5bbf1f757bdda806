//! Run with `cargo run -p example-contact-center`: serves the example
//! functions on `http://127.0.0.1:3001` (change it with `CCFN_ADDR`), with
//! embedded defaults and no credentials needed in local mode; in
//! production mode (`CCFN_MODE=production`) it refuses to start without
//! its real values.

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
        let runtime = Runtime::new(context, config);
        example_contact_center::runtime(runtime).serve().await
    };
    if let Err(error) = served.await {
        eprintln!("ccfn: {error}");
        std::process::exit(1);
    }
}
