//! Nothing to use: this crate holds the UI tests of `#[contact_fn]`
//! (`tests/ui.rs`), each compile error the macro can give with the exact
//! message rustc prints.

/// Registers the function `$function` with the runtime and invokes it from
/// the testkit, as a user's code does: a UI case that ends with it shows, in
/// its `.stderr`, that the macro's error is the only one. The function is
/// served at `calls/answer`; the case's `main` is this macro's.
#[macro_export]
macro_rules! registered_and_tested {
    ($function:ident) => {
        /// What the runtime serves.
        fn runtime(runtime: ::ccfn_core::runtime::Runtime) -> ::ccfn_core::runtime::Runtime {
            runtime.feature(
                ::ccfn_core::runtime::Feature::new("calls").function("calls/answer", $function),
            )
        }

        /// The function's test.
        async fn answers() {
            ::ccfn_testkit::invoke(
                $function,
                ::ccfn_testkit::FakeContext::new(),
                ::ccfn_testkit::FakeEvent::voice(),
            )
            .await
            .assert_contract();
        }

        fn main() {
            let _ = (runtime, answers);
        }
    };
}
