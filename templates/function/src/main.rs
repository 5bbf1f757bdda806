//! `cargo run` serves the functions on http://127.0.0.1:3001 (`CCFN_ADDR`
//! changes it), configured by the environment over `.env`.

use ccfn_core::runtime::Runtime;

#[tokio::main]
async fn main() {
    let served = async { {{crate_name}}::runtime(Runtime::from_env()?).serve().await };
    if let Err(error) = served.await {
        eprintln!("{{project-name}}: {error}");
        std::process::exit(1);
    }
}
