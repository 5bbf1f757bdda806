//! The request body parsers on arbitrary bytes: they never panic, and a
//! form the parser accepts, encoded again by a standard encoder, parses to
//! the same pairs.

#![no_main]

use ccfn_core::fuzz::{parse_form, parse_json};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let _ = parse_json(data);
    if let Ok(pairs) = parse_form(data) {
        let encoded = form_urlencoded::Serializer::new(String::new())
            .extend_pairs(&pairs)
            .finish();
        let again = parse_form(encoded.as_bytes()).expect("a re-encoded form parses");
        assert_eq!(again, pairs, "{encoded}");
    }
});
