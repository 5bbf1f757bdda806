//! ccfn's own test support, not published: fakes that only ccfn's own
//! tests use, made, pointed at, inspected and broken as the testkit's
//! (`start().await`, `url()`, `requests()` of [`ccfn_testkit::Request`],
//! `fail_with(`[`ccfn_testkit::FakeResponse`]`)`, `expect` and `verify`,
//! checked again on drop).
//!
//! - [`fake_platform`]: the platform's REST API as `ccfn`'s platform
//!   commands read it, every answer shaped and every request checked by
//!   the platform's published definitions (`platform-api/`), with
//!   [`fake_platform::hostile`] answers.
//! - `fake_collector` (feature `otel`): an OpenTelemetry collector that
//!   decodes what it receives.

#[cfg(feature = "otel")]
pub mod fake_collector;
pub mod fake_platform;
