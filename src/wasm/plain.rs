//! Reading the plain-data arguments of the upstream-style functions (a previous prompt
//! snapshot, a system node, options) from JSON values, with typed errors.

use std::rc::Rc;

use crate::input::json::{JsonObject, JsonValue};

use crate::error::Error;
use crate::fold::request::PromptSnapshot;
use crate::fold::SystemPromptNode;
use crate::input::event::Seq;
use crate::seq::MAX_SAFE_INTEGER;

fn invalid(argument: &str, message: String) -> Error {
    Error::InvalidArgument {
        argument: argument.to_owned(),
        message,
    }
}

fn object<'a>(value: &'a JsonValue, argument: &str) -> Result<&'a JsonObject, Error> {
    value
        .as_object()
        .ok_or_else(|| invalid(argument, "expected an object".to_owned()))
}

fn safe_integer(value: &JsonValue) -> Option<i64> {
    crate::input::event::safe_integer(value.as_f64()?)
}

/// Reads a `{ config?, system?, tools? }` prompt snapshot (`tools` not an array means `[]`).
/// From JS, the glue refuses a snapshot of another shape before it gets here
/// (scripts/argument-glue.mjs).
pub(crate) fn snapshot_from_json(value: &JsonValue) -> Result<PromptSnapshot, Error> {
    let map = object(value, "previous")?;
    let system = match map.get("system") {
        None | Some(JsonValue::Null) => "",
        Some(JsonValue::String(text)) => &**text,
        Some(_) => return Err(invalid("previous", "`system` must be a string".to_owned())),
    };
    let config = map.get("config").cloned();
    let tools = map.get("tools").cloned().unwrap_or(JsonValue::Null);
    Ok(PromptSnapshot::new(config, system, tools))
}

/// Reads a `{ seq, time?, turn?, step?, text?, update? }` system prompt node.
pub(crate) fn node_from_json(value: &JsonValue) -> Result<SystemPromptNode, Error> {
    let map = object(value, "system")?;
    let count = |name: &str| -> Result<u64, Error> {
        match map.get(name) {
            None | Some(JsonValue::Null) => Ok(0),
            Some(value) => safe_integer(value)
                .and_then(|n| u64::try_from(n).ok())
                .ok_or_else(|| {
                    invalid("system", format!("`{name}` must be a non-negative integer"))
                }),
        }
    };
    let seq: Seq = map
        .get("seq")
        .and_then(safe_integer)
        .ok_or_else(|| invalid("system", "`seq` must be a safe integer".to_owned()))?;
    let time = match map.get("time") {
        None | Some(JsonValue::Null) => 0.0,
        Some(value) => value
            .as_f64()
            .ok_or_else(|| invalid("system", "`time` must be a number".to_owned()))?,
    };
    let text = match map.get("text") {
        None | Some(JsonValue::Null) => Rc::from(""),
        Some(JsonValue::String(text)) => Rc::from(&**text),
        Some(_) => return Err(invalid("system", "`text` must be a string".to_owned())),
    };
    let update = match map.get("update") {
        None | Some(JsonValue::Null) => false,
        Some(JsonValue::Bool(update)) => *update,
        Some(_) => return Err(invalid("system", "`update` must be a boolean".to_owned())),
    };
    Ok(SystemPromptNode {
        seq,
        time,
        turn: count("turn")?,
        step: count("step")?,
        text,
        update,
    })
}

/// Reads `{ windowStart? }`: the window start, rounded down to an integer. A `null` is refused:
/// JSON text writes NaN and the infinities as `null`, which would mean no window start.
pub(crate) fn window_start_from_json(value: &JsonValue) -> Result<Option<Seq>, Error> {
    let map = object(value, "options")?;
    match map.get("windowStart") {
        None => Ok(None),
        Some(value) => {
            let start = value
                .as_f64()
                .filter(|start| start.abs() <= MAX_SAFE_INTEGER as f64)
                .ok_or_else(|| {
                    invalid("options", "`windowStart` must be a safe integer".to_owned())
                })?;
            Ok(Some(start.floor() as Seq))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn json(text: &str) -> JsonValue {
        JsonValue::parse(text).unwrap()
    }

    #[test]
    fn reads_snapshots_nodes_and_options() {
        let snapshot = snapshot_from_json(&json(
            r#"{ "config": { "m": 1 }, "system": "A", "tools": "x" }"#,
        ))
        .unwrap();
        assert_eq!((&*snapshot.system, snapshot.tools_text()), ("A", "[]"));
        let node = node_from_json(&json(
            r#"{ "seq": 3, "time": 4.5, "turn": 1, "step": 2, "text": "B", "update": true }"#,
        ))
        .unwrap();
        assert_eq!(
            (
                node.seq,
                node.time,
                node.turn,
                node.step,
                &*node.text,
                node.update
            ),
            (3, 4.5, 1, 2, "B", true)
        );
        assert_eq!(
            window_start_from_json(&json(r#"{ "windowStart": 7.9 }"#)).unwrap(),
            Some(7)
        );
        assert_eq!(window_start_from_json(&json(r#"{}"#)).unwrap(), None);
        assert!(window_start_from_json(&json(r#"{ "windowStart": null }"#)).is_err());
    }

    #[test]
    fn rejects_wrong_shapes_with_the_argument_named() {
        for (result, argument) in [
            (snapshot_from_json(&json(r#"[]"#)).err(), "previous"),
            (
                snapshot_from_json(&json(r#"{ "system": 1 }"#)).err(),
                "previous",
            ),
            (
                node_from_json(&json(r#"{ "text": "no seq" }"#)).err(),
                "system",
            ),
            (
                node_from_json(&json(r#"{ "seq": 1, "turn": -1 }"#)).err(),
                "system",
            ),
            (
                window_start_from_json(&json(r#"{ "windowStart": "x" }"#)).err(),
                "options",
            ),
        ] {
            match result {
                Some(Error::InvalidArgument {
                    argument: found, ..
                }) => assert_eq!(found, argument),
                other => panic!("expected InvalidArgument for {argument}, got {other:?}"),
            }
        }
    }
}
