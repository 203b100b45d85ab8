//! `JSON.stringify` as JavaScript writes it, for comparing tool lists as text.
//!
//! Two things set it apart from a plain JSON writer: JavaScript orders object keys that are
//! array indices (`"0"`, `"17"`) first, ascending, before the others in insertion order; and it
//! writes numbers with `Number.prototype.toString` (`1` for `1.0`, `1e+21`, `1.5e-7`).

use std::fmt::Write;

use crate::input::json::{JsonObject, JsonValue};

/// Returns the text JavaScript's `JSON.stringify(value)` produces for the same value.
pub fn js_stringify(value: &JsonValue) -> String {
    let mut out = String::new();
    write_value(&mut out, value);
    out
}

fn write_value(out: &mut String, value: &JsonValue) {
    match value {
        JsonValue::Null => out.push_str("null"),
        JsonValue::Bool(true) => out.push_str("true"),
        JsonValue::Bool(false) => out.push_str("false"),
        JsonValue::Number(number) => out.push_str(&js_number_text(*number)),
        JsonValue::String(text) => write_string(out, text),
        JsonValue::Array(items) => {
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                write_value(out, item);
            }
            out.push(']');
        }
        JsonValue::Object(map) => write_object(out, map),
    }
}

fn write_object(out: &mut String, map: &JsonObject) {
    out.push('{');
    for (i, (key, value)) in ordered_members(map).into_iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        write_string(out, key);
        out.push(':');
        write_value(out, value);
    }
    out.push('}');
}

/// An object's members in the order `JSON.stringify` writes them.
fn ordered_members(map: &JsonObject) -> Vec<(&str, &JsonValue)> {
    // Index keys are rare in tool schemas: an insertion into a sorted list is all they need.
    let mut index_keys: Vec<(u32, &str, &JsonValue)> = Vec::new();
    for (key, value) in map.iter() {
        if let Some(index) = array_index(key) {
            let at = index_keys.partition_point(|(other, _, _)| *other < index);
            index_keys.insert(at, (index, key, value));
        }
    }
    // Loops where a collect of a chain with a filter made its own copy of `Vec`'s extend.
    let mut members = Vec::with_capacity(map.len());
    for (_, key, value) in index_keys {
        members.push((key, value));
    }
    for (key, value) in map.iter() {
        if array_index(key).is_none() {
            members.push((key, value));
        }
    }
    members
}

/// Returns the text JavaScript's `JSON.stringify(value, null, 2)` produces for the same value.
pub(crate) fn js_stringify_pretty(value: &JsonValue) -> String {
    let mut out = String::new();
    write_pretty(&mut out, value, 0);
    out
}

fn write_pretty(out: &mut String, value: &JsonValue, depth: usize) {
    let inner = depth.saturating_add(1);
    let line = |out: &mut String, depth: usize| {
        out.push('\n');
        out.extend(std::iter::repeat_n("  ", depth));
    };
    match value {
        JsonValue::Array(items) if !items.is_empty() => {
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                line(out, inner);
                write_pretty(out, item, inner);
            }
            line(out, depth);
            out.push(']');
        }
        JsonValue::Object(map) if !map.is_empty() => {
            out.push('{');
            for (i, (key, value)) in ordered_members(map).into_iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                line(out, inner);
                write_string(out, key);
                out.push_str(": ");
                write_pretty(out, value, inner);
            }
            line(out, depth);
            out.push('}');
        }
        scalar => write_value(out, scalar),
    }
}

/// A key JavaScript treats as an array index: the canonical decimal form of an integer below
/// `2^32 - 1`.
fn array_index(key: &str) -> Option<u32> {
    let bytes = key.as_bytes();
    let canonical = match bytes {
        [] => false,
        [b'0'] => true,
        [first, rest @ ..] => (b'1'..=b'9').contains(first) && rest.iter().all(u8::is_ascii_digit),
    };
    if !canonical || bytes.len() > 10 {
        return None;
    }
    key.parse::<u32>().ok().filter(|index| *index != u32::MAX)
}

fn write_string(out: &mut String, text: &str) {
    out.push('"');
    for ch in text.chars() {
        match ch {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\u{8}' => out.push_str("\\b"),
            '\u{c}' => out.push_str("\\f"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            ch if (ch as u32) < 0x20 => {
                let _ = write!(out, "\\u{:04x}", ch as u32);
            }
            ch => out.push(ch),
        }
    }
    out.push('"');
}

/// Serializes a JavaScript number: integral values within the safe range as integers (so JSON
/// output reads `3`, not `3.0`), everything else as a float.
pub fn serialize_js_number<S: serde::Serializer>(
    value: &f64,
    serializer: S,
) -> Result<S::Ok, S::Error> {
    match crate::seq::safe_integer(*value) {
        Some(integer) => serializer.serialize_i64(integer),
        None => serializer.serialize_f64(*value),
    }
}

/// Returns `Number.prototype.toString()` of `value` (`"null"` for NaN and infinities, as
/// `JSON.stringify` writes them).
pub fn js_number_text(value: f64) -> String {
    if value.is_finite() {
        js_number_to_string(value)
    } else {
        "null".to_owned()
    }
}

/// `Number.prototype.toString()` of `value` (`"Infinity"`, `"NaN"` included): in the npm build
/// (feature `wasm`), JavaScript's own (the module then carries no float formatting code).
#[cfg(feature = "wasm")]
pub(crate) fn js_number_to_string(value: f64) -> String {
    js_sys::Number::from(value)
        .to_string_with_radix(10)
        .map(String::from)
        .unwrap_or_default()
}

/// `Number.prototype.toString()` of `value` (`"Infinity"`, `"NaN"` included), in Rust: what
/// the JS engine writes (tests/wasm_api checks the engine's side).
#[cfg(not(feature = "wasm"))]
pub(crate) fn js_number_to_string(value: f64) -> String {
    if value.is_nan() {
        return "NaN".to_owned();
    }
    if value.is_infinite() {
        return if value < 0.0 { "-Infinity" } else { "Infinity" }.to_owned();
    }
    // `{:e}` writes the shortest digits that round-trip, as ECMAScript requires, with an
    // exponent; rebuild ECMAScript's form from its digits and exponent.
    let shortest = format!("{:e}", value.abs());
    let (mantissa, exponent) = shortest.split_once(['e', 'E']).unwrap_or((&shortest, "0"));
    let exponent: i32 = exponent.trim_start_matches('+').parse().unwrap_or(0);
    let whole_len = mantissa.find('.').unwrap_or(mantissa.len());
    let all_digits: String = mantissa.chars().filter(char::is_ascii_digit).collect();
    let significant = all_digits.trim_start_matches('0');
    let leading_zeros = all_digits.len().saturating_sub(significant.len());
    let digits = significant.trim_end_matches('0');
    if digits.is_empty() {
        return "0".to_owned();
    }
    let point = i32::try_from(whole_len)
        .unwrap_or(i32::MAX)
        .saturating_sub(i32::try_from(leading_zeros).unwrap_or(i32::MAX))
        .saturating_add(exponent);
    let sign = if value < 0.0 { "-" } else { "" };
    format!("{sign}{}", place_point(digits, point))
}

/// Writes the digits `d1 d2 ... dk` with value `0.d1d2...dk * 10^n` the way ECMAScript's
/// Number::toString does.
#[cfg(not(feature = "wasm"))]
fn place_point(digits: &str, n: i32) -> String {
    let k = i32::try_from(digits.len()).unwrap_or(i32::MAX);
    if k <= n && n <= 21 {
        let zeros = "0".repeat(n.abs_diff(k) as usize);
        format!("{digits}{zeros}")
    } else if 0 < n && n <= 21 {
        let (whole, fraction) = digits
            .split_at_checked(n.unsigned_abs() as usize)
            .unwrap_or((digits, ""));
        format!("{whole}.{fraction}")
    } else if -6 < n && n <= 0 {
        let zeros = "0".repeat(n.unsigned_abs() as usize);
        format!("0.{zeros}{digits}")
    } else {
        let exponent = n.saturating_sub(1);
        let sign = if exponent < 0 { '-' } else { '+' };
        let (first, rest) = digits.split_at_checked(1).unwrap_or((digits, ""));
        let fraction = if rest.is_empty() {
            String::new()
        } else {
            format!(".{rest}")
        };
        format!("{first}{fraction}e{sign}{}", exponent.abs())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(text: &str) -> JsonValue {
        JsonValue::parse(text).unwrap()
    }

    #[test]
    fn numbers_are_written_as_javascript_does() {
        let cases = [
            (1.0, "1"),
            (-1.5, "-1.5"),
            (0.1, "0.1"),
            (1e21, "1e+21"),
            (1e20, "100000000000000000000"),
            (123456789012345680000.0, "123456789012345680000"),
            (1.5e-7, "1.5e-7"),
            (0.000001, "0.000001"),
            (1e-7, "1e-7"),
            (-0.0, "0"),
            (5e-324, "5e-324"),
            (1.7976931348623157e308, "1.7976931348623157e+308"),
            (2f64.powi(53), "9007199254740992"),
            (f64::NAN, "null"),
        ];
        for (value, text) in cases {
            assert_eq!(js_number_text(value), text, "{value:e}");
        }
    }

    #[cfg(not(target_arch = "wasm32"))]
    proptest::proptest! {
        #[test]
        fn number_text_round_trips_and_has_javascript_shape(bits in proptest::num::u64::ANY) {
            let value = f64::from_bits(bits);
            proptest::prop_assume!(value.is_finite());
            let text = js_number_text(value);
            let back: f64 = text.parse().unwrap();
            proptest::prop_assert!(back == value, "{} -> {} -> {}", value, text, back);
            proptest::prop_assert!(!text.ends_with(".0") && !text.contains("e0"), "{}", text);
            if value.fract() == 0.0 && value.abs() < 1e21 {
                proptest::prop_assert!(!text.contains('e') && !text.contains('.'), "{}", text);
            }
        }
    }

    #[test]
    fn index_keys_come_first_then_insertion_order() {
        let value = parse(r#"{"b":1,"10":2,"a":3,"2":4,"01":5}"#);
        assert_eq!(js_stringify(&value), r#"{"2":4,"10":2,"b":1,"a":3,"01":5}"#);
    }

    #[test]
    fn key_order_matters_and_integers_and_floats_agree() {
        let a = parse(r#"[{ "name": "read", "parameters": { "type": "object" } }]"#);
        let b = parse(r#"[{ "parameters": { "type": "object" }, "name": "read" }]"#);
        assert_ne!(js_stringify(&a), js_stringify(&b));
        let c = parse("[1.0, 2, 3e0]");
        assert_eq!(js_stringify(&c), "[1,2,3]");
    }

    #[test]
    fn strings_are_escaped_like_json_stringify() {
        let value = JsonValue::String("q\"\\\n\u{1}é\u{2028}".into());
        assert_eq!(js_stringify(&value), "\"q\\\"\\\\\\n\\u0001é\u{2028}\"");
    }
}
