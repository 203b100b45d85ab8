//! The crate's JSON reader against serde_json: the same values from the same text, and the same
//! verdict on text that is not JSON (apart from three documented, deliberate differences).
#![cfg(not(target_arch = "wasm32"))]
// Not library code: the panic lints of Cargo.toml's `[lints]` table do not apply here.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic,
    clippy::unreachable,
    clippy::todo,
    clippy::arithmetic_side_effects
)]

use promptfold::JsonValue;
use proptest::prelude::*;
use serde_json::Value;

/// Random JSON values whose numbers are integers in the safe range or finite doubles.
fn json_value() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        (-(1i64 << 53)..(1i64 << 53)).prop_map(Value::from),
        any::<f64>()
            .prop_filter("finite", |x| x.is_finite())
            .prop_map(Value::from),
        "(\\PC|[\"\\\\\n\t\u{1}\u{7f}é😀])*".prop_map(Value::String),
    ];
    leaf.prop_recursive(4, 48, 6, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..6).prop_map(Value::Array),
            prop::collection::vec(("[a-z0-9]{0,3}", inner), 0..6)
                .prop_map(|members| { Value::Object(members.into_iter().collect()) }),
        ]
    })
}

/// `value` with every integral double written as an integer, as a JavaScript number would be.
fn as_javascript_numbers(value: &Value) -> Value {
    match value {
        Value::Number(number) => match number.as_f64() {
            Some(x) if x.fract() == 0.0 && x.abs() < 9_007_199_254_740_992.0 => {
                Value::from(x as i64)
            }
            Some(x) => Value::from(x),
            None => value.clone(),
        },
        Value::Array(items) => Value::Array(items.iter().map(as_javascript_numbers).collect()),
        Value::Object(map) => Value::Object(
            map.iter()
                .map(|(key, value)| (key.clone(), as_javascript_numbers(value)))
                .collect(),
        ),
        other => other.clone(),
    }
}

/// Where serde_json and `JSON.parse` part ways, the reader follows `JSON.parse`.
fn known_difference(serde_error: &str) -> bool {
    serde_error.contains("number out of range")
        || serde_error.contains("surrogate")
        || serde_error.contains("recursion limit")
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]

    #[test]
    fn reads_what_serde_json_writes(value in json_value(), pretty in any::<bool>()) {
        let text = if pretty {
            serde_json::to_string_pretty(&value).unwrap()
        } else {
            serde_json::to_string(&value).unwrap()
        };
        let parsed = JsonValue::parse(&text).unwrap();
        prop_assert_eq!(
            as_javascript_numbers(&serde_json::to_value(&parsed).unwrap()),
            as_javascript_numbers(&value)
        );
    }

    #[test]
    fn rejects_what_serde_json_rejects(
        value in json_value(),
        edits in prop::collection::vec((any::<prop::sample::Index>(), 0u8..3, prop::sample::select(
            vec!['{', '}', '[', ']', ',', ':', '"', '\\', ' ', '0', '1', '-', '.', 'e', 'E', '+',
                 't', 'n', 'u', 'x', '\u{1}', '\n', 'é'],
        )), 1..4),
    ) {
        let mut chars: Vec<char> = serde_json::to_string(&value).unwrap().chars().collect();
        for (at, action, ch) in edits {
            let at = at.index(chars.len() + 1);
            match action {
                0 => chars.insert(at, ch),
                1 if at < chars.len() => { chars.remove(at); }
                _ if at < chars.len() => chars[at] = ch,
                _ => chars.push(ch),
            }
        }
        let text: String = chars.into_iter().collect();
        let ours = JsonValue::parse(&text);
        match serde_json::from_str::<Value>(&text) {
            Ok(theirs) => {
                let ours = ours.map_err(|err| TestCaseError::fail(format!("{text:?}: {err}")))?;
                prop_assert_eq!(
                    as_javascript_numbers(&serde_json::to_value(&ours).unwrap()),
                    as_javascript_numbers(&theirs)
                );
            }
            Err(err) if known_difference(&err.to_string()) => {}
            Err(err) => prop_assert!(ours.is_err(), "{:?} accepted; serde_json: {}", text, err),
        }
    }
}

#[test]
fn the_documented_differences() {
    // JSON.parse reads 1e400 as Infinity, a lone surrogate as itself (U+FFFD once in UTF-8),
    // and nests deeper than serde_json's limit of 128.
    assert_eq!(
        JsonValue::parse("1e400").unwrap(),
        JsonValue::Number(f64::INFINITY)
    );
    assert_eq!(
        JsonValue::parse(r#""\udc00""#).unwrap(),
        JsonValue::String("\u{FFFD}".into())
    );
    let deep = format!("{}{}", "[".repeat(200), "]".repeat(200));
    assert!(JsonValue::parse(&deep).is_ok());
    assert!(serde_json::from_str::<Value>(&deep).is_err());
}
