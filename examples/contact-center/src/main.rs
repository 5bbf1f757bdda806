//! Run with `cargo run -p example-contact-center`: serves the example
//! functions on `http://127.0.0.1:3001` (change it with `CCFN_ADDR`), with
//! embedded defaults and no credentials needed.

use ccfn_core::runtime::{Feature, Runtime};
use example_contact_center::{wait_experience, FEATURE};

#[tokio::main]
async fn main() {
    let served = async {
        Runtime::from_env()?
            .feature(Feature::new(FEATURE).function("studio/wait-experience", wait_experience))
            .serve()
            .await
    };
    if let Err(error) = served.await {
        eprintln!("ccfn: {error}");
        std::process::exit(1);
    }
}
