//! The one rule that names a tool of a request header's tool list.
//!
//! Every place that compares or names tools uses it: the prompt diff (`views::diff`), which falls
//! back to the tool's position for a tool without a name, and the cache ledger (docs/cache.md,
//! "Kept, new, broken"), which compares a tool without a name by its JSON text.

use crate::input::json::JsonValue;

/// A tool's name: its `name` member when that is a string, else its `function.name` member
/// when that is a string (the OpenAI shape `{"type":"function","function":{"name":...}}`),
/// else the tool itself when it is a string (a list of plain names), else `None`.
///
/// A `name` that is not a string does not name the tool; the rule then goes on to
/// `function.name`. The empty string is a name like any other.
pub(crate) fn tool_name(tool: &JsonValue) -> Option<&str> {
    fn text(value: Option<&JsonValue>) -> Option<&str> {
        match value {
            Some(JsonValue::String(name)) => Some(name),
            _ => None,
        }
    }
    let function_name = || tool.get("function")?.get("name");
    text(tool.get("name"))
        .or_else(|| text(function_name()))
        .or_else(|| text(Some(tool)))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn name_of(text: &str) -> Option<String> {
        let tool = JsonValue::parse(text).unwrap();
        tool_name(&tool).map(str::to_owned)
    }

    #[test]
    fn name_member() {
        assert_eq!(
            name_of(r#"{"name":"read","input_schema":{}}"#).as_deref(),
            Some("read")
        );
        assert_eq!(name_of(r#"{"name":""}"#).as_deref(), Some(""));
    }

    #[test]
    fn openai_function_name() {
        let tool = r#"{"type":"function","function":{"name":"run","parameters":{}}}"#;
        assert_eq!(name_of(tool).as_deref(), Some("run"));
    }

    #[test]
    fn name_member_comes_before_function_name() {
        let tool = r#"{"function":{"name":"inner"},"name":"outer"}"#;
        assert_eq!(name_of(tool).as_deref(), Some("outer"));
    }

    #[test]
    fn a_string_is_its_own_name() {
        assert_eq!(
            name_of(r#""subagent_fork""#).as_deref(),
            Some("subagent_fork")
        );
        assert_eq!(name_of(r#""""#).as_deref(), Some(""));
    }

    #[test]
    fn names_that_are_not_strings_are_skipped() {
        assert_eq!(
            name_of(r#"{"name":7,"function":{"name":"run"}}"#).as_deref(),
            Some("run")
        );
        assert_eq!(name_of(r#"{"name":null,"function":{"name":["x"]}}"#), None);
        assert_eq!(name_of(r#"{"function":"run"}"#), None);
    }

    #[test]
    fn tools_without_a_name() {
        for text in [r#"{"x":1}"#, "{}", "[]", r#"["read"]"#, "null", "true", "3"] {
            assert_eq!(name_of(text), None, "{text}");
        }
    }
}
