//! Sharing of repeated JSON values. A session's request headers repeat the same tools and config
//! thousands of times; each distinct raw text is parsed (and, for tools, written as JavaScript's
//! `JSON.stringify` text) once, and every header holds the shared value.

use std::collections::HashMap;
use std::rc::Rc;

use crate::input::json::reader::same_bytes;
use crate::input::json::stringify::js_stringify;
use crate::input::json::JsonValue;

/// How many distinct texts of each kind are kept; past that, values are parsed but not shared
/// (a hostile log with unique values cannot grow the table without bound).
const MAX_ENTRIES: usize = 4096;

/// A tools list with its `JSON.stringify` text.
#[derive(Clone, Debug)]
pub(crate) struct SharedTools {
    pub value: Rc<JsonValue>,
    pub text: Rc<str>,
}

impl SharedTools {
    /// A header's tools (`[]` unless `tools` is an array) with their `JSON.stringify` text.
    pub fn new(tools: Option<JsonValue>) -> SharedTools {
        let value = match tools {
            Some(tools @ JsonValue::Array(_)) => tools,
            _ => JsonValue::Array(Vec::new()),
        };
        SharedTools {
            text: Rc::from(js_stringify(&value)),
            value: Rc::new(value),
        }
    }
}

/// Distinct config and tools texts seen so far, with their parsed values.
#[derive(Clone, Debug, Default)]
pub(crate) struct JsonInterner {
    /// Config texts with the index of their value in `config_values`: both maps hold indexes,
    /// one type of map (one copy of its code in the wasm) where two value types made two.
    configs: HashMap<Box<str>, usize>,
    config_values: Vec<Rc<JsonValue>>,
    /// Tools texts with the index of their value in `tools_values`.
    tools: HashMap<Box<str>, usize>,
    tools_values: Vec<SharedTools>,
    /// The last tools text and its value: consecutive headers mostly repeat it, and comparing
    /// the text is much cheaper than hashing it.
    last_tools: Option<(Box<str>, SharedTools)>,
    /// The last config text and its value (consecutive headers mostly repeat it too).
    last_config: Option<(Box<str>, Rc<JsonValue>)>,
}

impl JsonInterner {
    /// The config value of a raw JSON text, shared with earlier equal texts.
    pub fn config(&mut self, raw: &str) -> Rc<JsonValue> {
        if let Some((last, value)) = &self.last_config {
            if same_bytes(last.as_bytes(), raw.as_bytes()) {
                return Rc::clone(value);
            }
        }
        let known = self
            .configs
            .get(raw)
            .and_then(|&at| self.config_values.get(at));
        let value = match known {
            Some(value) => Rc::clone(value),
            None => {
                debug_assert!(
                    !self.configs.contains_key(raw),
                    "a config text whose index has no value"
                );
                let value = Rc::new(parse(raw));
                if self.configs.len() < MAX_ENTRIES {
                    self.configs
                        .insert(Box::from(raw), self.config_values.len());
                    self.config_values.push(Rc::clone(&value));
                }
                value
            }
        };
        self.last_config = Some((Box::from(raw), Rc::clone(&value)));
        value
    }

    /// The tools list of a raw JSON text (`[]` unless it is an array), shared with earlier equal
    /// texts.
    pub fn tools(&mut self, raw: Option<&str>) -> SharedTools {
        let key = raw.unwrap_or("[]");
        if let Some((last, tools)) = &self.last_tools {
            if same_bytes(last.as_bytes(), key.as_bytes()) {
                return tools.clone();
            }
        }
        let known = self
            .tools
            .get(key)
            .and_then(|&at| self.tools_values.get(at));
        let tools = match known {
            Some(tools) => tools.clone(),
            None => {
                debug_assert!(
                    !self.tools.contains_key(key),
                    "a tools text whose index has no value"
                );
                let tools = SharedTools::new(raw.map(parse));
                if self.tools.len() < MAX_ENTRIES {
                    self.tools.insert(Box::from(key), self.tools_values.len());
                    self.tools_values.push(tools.clone());
                }
                tools
            }
        };
        self.last_tools = Some((Box::from(key), tools.clone()));
        tools
    }
}

impl JsonInterner {
    /// Forgets every shared value (a new session is loaded: its headers rarely repeat the old
    /// one's, and the table should not hold a session that is gone).
    pub fn forget(&mut self) {
        self.configs.clear();
        self.config_values.clear();
        self.tools.clear();
        self.tools_values.clear();
        self.last_tools = None;
        self.last_config = None;
    }

    /// The config of the previous header that had one (`None` when none had).
    pub fn previous_config(&self) -> Option<Rc<JsonValue>> {
        self.last_config.as_ref().map(|(_, value)| Rc::clone(value))
    }

    /// The tools of the previous header (`[]` when there was none).
    pub fn previous_tools(&mut self) -> SharedTools {
        match &self.last_tools {
            Some((_, tools)) => tools.clone(),
            None => self.tools(None),
        }
    }
}

/// A raw text the JSON reader already accepted, at the depth it sits in its batch, parses again;
/// `null` covers the impossible rest.
fn parse(raw: &str) -> JsonValue {
    JsonValue::parse(raw).unwrap_or_else(|_| {
        debug_assert!(false, "a text the reader accepted parses again");
        JsonValue::Null
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Configs and tools through the interner (the last text compared first, then the table)
    /// against each text parsed on its own: the same values, shared when the text repeats.
    #[test]
    fn shared_values_are_the_values_of_their_texts() {
        let texts = [
            r#"{"m":1}"#,
            r#"{"m":1}"#,
            r#"{"m":2}"#,
            r#"{"m":1}"#,
            r#"{"m":1 }"#,
            "[]",
            r#"[{"a":1}]"#,
            r#"[{"a":1}]"#,
            r#"{"m":2}"#,
        ];
        let mut interner = JsonInterner::default();
        let mut seen: Vec<(&str, Rc<JsonValue>, SharedTools)> = Vec::new();
        for text in texts {
            let config = interner.config(text);
            let tools = interner.tools(Some(text));
            assert_eq!(*config, parse(text), "{text}");
            assert_eq!(
                *tools.value,
                *SharedTools::new(Some(parse(text))).value,
                "{text}"
            );
            assert!(Rc::ptr_eq(&interner.previous_config().unwrap(), &config));
            if let Some((_, first, first_tools)) = seen.iter().find(|(seen, ..)| *seen == text) {
                assert!(Rc::ptr_eq(first, &config), "{text}");
                assert!(Rc::ptr_eq(&first_tools.value, &tools.value), "{text}");
            }
            seen.push((text, config, tools));
        }
    }
}
