//! Trace ids from call SIDs: a call SID is `CA` and 32 hexadecimal digits,
//! exactly a 128-bit trace id.

use opentelemetry::trace::TraceId;

/// The trace id of call `call_sid`; `None` when it is not a call SID.
pub(super) fn from_call_sid(call_sid: &str) -> Option<TraceId> {
    let hex = call_sid.strip_prefix("CA")?;
    if hex.len() != 32 {
        return None;
    }
    let mut id = 0_u128;
    for byte in hex.bytes() {
        let digit = match byte {
            b'0'..=b'9' => byte - b'0',
            b'a'..=b'f' => byte - b'a' + 10,
            b'A'..=b'F' => byte - b'A' + 10,
            _ => return None,
        };
        id = (id << 4) | u128::from(digit);
    }
    // All zeros is not a valid trace id.
    (id != 0).then(|| TraceId::from(id))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_call_sid_is_a_trace_id() {
        let id = from_call_sid("CA0123456789abcdef0123456789ABCDEF").unwrap();
        assert_eq!(id.to_string(), "0123456789abcdef0123456789abcdef");
        for not_one in [
            "CA0123",
            "CAzz23456789abcdef0123456789abcdef",
            "CX0123456789abcdef0123456789abcdef",
            "CA00000000000000000000000000000000",
            "CA0123456789abcdef0123456789abcdef0",
        ] {
            assert!(from_call_sid(not_one).is_none(), "{not_one}");
        }
    }
}
