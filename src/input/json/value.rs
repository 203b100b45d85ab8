//! A JSON value as JavaScript's `JSON.parse` sees it: numbers are doubles, object members keep
//! their order.

use std::collections::HashMap;

use serde::ser::{SerializeMap, SerializeSeq};
use serde::{Serialize, Serializer};

use crate::error::Error;
use crate::input::json::stringify::serialize_js_number;

use super::reader::{Failed, Reader};

/// A JSON value: what a request header's `config` and `tools` hold.
///
/// Exhaustive on purpose: these are JSON's six kinds of value (RFC 8259), which will not grow,
/// and a caller walking a value matches every kind without a fallback arm.
#[derive(Clone, Debug, PartialEq)]
pub enum JsonValue {
    /// `null`.
    Null,
    /// `true` or `false`.
    Bool(bool),
    /// A number, as the nearest double (`1e400` is infinity, as in JavaScript).
    Number(f64),
    /// A string.
    String(Box<str>),
    /// An array.
    Array(Vec<JsonValue>),
    /// An object.
    Object(JsonObject),
}

/// An object's members in their order, each key once.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct JsonObject {
    members: Vec<(Box<str>, JsonValue)>,
}

impl JsonValue {
    /// Parses JSON text holding exactly one value.
    ///
    /// Returns the value, or [`Error::MalformedJson`] with the line and column of the fault.
    pub fn parse(text: &str) -> Result<JsonValue, Error> {
        let mut reader = Reader::new(text);
        reader
            .value()
            .and_then(|value| reader.finish().map(|()| value))
            .map_err(|Failed| super::malformed(text, reader.error(), 0))
    }

    /// The object's members, when this is an object.
    pub fn as_object(&self) -> Option<&JsonObject> {
        match self {
            JsonValue::Object(object) => Some(object),
            _ => None,
        }
    }

    /// The number, when this is a number.
    pub fn as_f64(&self) -> Option<f64> {
        match self {
            JsonValue::Number(number) => Some(*number),
            _ => None,
        }
    }

    /// The member `key`, when this is an object that has it.
    pub fn get(&self, key: &str) -> Option<&JsonValue> {
        self.as_object()?.get(key)
    }
}

impl JsonObject {
    /// The value of member `key`, if present.
    pub fn get(&self, key: &str) -> Option<&JsonValue> {
        self.members
            .iter()
            .find(|(name, _)| &**name == key)
            .map(|(_, value)| value)
    }

    /// The members in order.
    pub fn iter(&self) -> impl Iterator<Item = (&str, &JsonValue)> {
        self.members.iter().map(|(key, value)| (&**key, value))
    }

    /// How many members the object has.
    pub fn len(&self) -> usize {
        self.members.len()
    }

    /// Whether the object has no members.
    pub fn is_empty(&self) -> bool {
        self.members.is_empty()
    }

    /// Adds a member as read, before duplicates are resolved.
    pub(crate) fn insert_parsed(&mut self, key: Box<str>, value: JsonValue) {
        self.members.push((key, value));
    }

    /// Keeps one member per key: the last value, at the place of the first.
    pub(crate) fn resolve_duplicates(&mut self) {
        let small = self.members.len() <= 8;
        if small && !self.has_small_duplicates() {
            return;
        }
        let mut first_place: HashMap<&str, usize> = HashMap::with_capacity(self.members.len());
        let mut moves: Vec<(usize, usize)> = Vec::new();
        for (index, (key, _)) in self.members.iter().enumerate() {
            match first_place.get(&**key) {
                Some(&first) => moves.push((index, first)),
                None => {
                    first_place.insert(key, index);
                }
            }
        }
        if moves.is_empty() {
            return;
        }
        // Each later value moved to its first place, then the later members left out (`moves`
        // ascends by `from`): loops, where collects through `Option` were two copies of `Vec`'s
        // extend for this one type.
        for &(from, to) in &moves {
            let Some((_, moved)) = self.members.get_mut(from) else {
                continue;
            };
            let value = std::mem::replace(moved, JsonValue::Null);
            if let Some((_, target)) = self.members.get_mut(to) {
                *target = value;
            }
        }
        let members = std::mem::take(&mut self.members);
        let mut kept = Vec::with_capacity(members.len().saturating_sub(moves.len()));
        let mut later = moves.iter().map(|(from, _)| *from).peekable();
        for (index, member) in members.into_iter().enumerate() {
            if later.next_if_eq(&index).is_none() {
                kept.push(member);
            }
        }
        self.members = kept;
    }
}

impl JsonObject {
    fn has_small_duplicates(&self) -> bool {
        self.members.iter().enumerate().any(|(index, (key, _))| {
            self.members
                .iter()
                .skip(index.saturating_add(1))
                .any(|(other, _)| other == key)
        })
    }
}

impl Serialize for JsonValue {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match self {
            JsonValue::Null => serializer.serialize_unit(),
            JsonValue::Bool(value) => serializer.serialize_bool(*value),
            JsonValue::Number(value) => serialize_js_number(value, serializer),
            JsonValue::String(text) => serializer.serialize_str(text),
            JsonValue::Array(items) => {
                let mut seq = serializer.serialize_seq(Some(items.len()))?;
                for item in items {
                    seq.serialize_element(item)?;
                }
                seq.end()
            }
            JsonValue::Object(object) => {
                let mut map = serializer.serialize_map(Some(object.len()))?;
                for (key, value) in object.iter() {
                    map.serialize_entry(key, value)?;
                }
                map.end()
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parse_reports_where_the_text_goes_wrong() {
        match JsonValue::parse("{\n  \"a\": tru\n}") {
            Err(Error::MalformedJson { line, column, .. }) => assert_eq!((line, column), (2, 8)),
            other => panic!("expected MalformedJson, got {other:?}"),
        }
    }

    #[test]
    fn accessors() {
        let value = JsonValue::parse(r#"{"n": 2, "o": {}}"#).unwrap();
        assert_eq!(value.get("n").and_then(JsonValue::as_f64), Some(2.0));
        assert!(value
            .get("o")
            .and_then(JsonValue::as_object)
            .unwrap()
            .is_empty());
        assert_eq!(value.get("missing"), None);
        assert_eq!(JsonValue::Null.get("n"), None);
    }

    #[test]
    fn many_duplicates_resolve_in_linear_time() {
        let members: Vec<String> = (0..20_000).map(|i| format!("\"k{}\":{i}", i % 3)).collect();
        let value = JsonValue::parse(&format!("{{{}}}", members.join(","))).unwrap();
        assert_eq!(
            crate::input::json::stringify::js_stringify(&value),
            r#"{"k0":19998,"k1":19999,"k2":19997}"#
        );
    }
}
