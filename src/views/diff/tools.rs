//! Tools compared by name, and config compared member by member.
//!
//! A tool's name is the crate's one rule (`views::tool_name`: its `name` string, else its
//! `function.name` string, else the tool itself when it is a string), else `#i` for the tool at
//! index `i` of its list. Tools are paired by name, the n-th tool of a name with the n-th of the
//! same name, and a tool without a name with the one at its index that has none either (never
//! with a tool that is really named `#i`); a paired tool whose `JSON.stringify(tool, null, 2)` text
//! differs is `changed` and gets the line diff of those texts, an unpaired one is `added` or
//! `removed` (its whole text added or removed). So a renamed tool is removed and added.

use std::rc::Rc;

use crate::input::json::stringify::{js_stringify, js_stringify_pretty};
use crate::input::json::{JsonObject, JsonValue};

use crate::views::tool_name::tool_name;

use super::lines::{diff_lines, TextDiff};
use super::pairing::pair_by_name;

/// How a tool differs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(
    feature = "wasm",
    derive(tsify::Tsify),
    serde(rename_all = "lowercase")
)]
#[non_exhaustive]
pub enum ToolStatus {
    /// Only in the new tools.
    Added,
    /// Only in the old tools.
    Removed,
    /// In both, with a different definition.
    Changed,
}

impl ToolStatus {
    /// The status as text: `"added"`, `"removed"` or `"changed"`.
    pub fn name(self) -> &'static str {
        match self {
            ToolStatus::Added => "added",
            ToolStatus::Removed => "removed",
            ToolStatus::Changed => "changed",
        }
    }
}

/// One tool that differs, by name, with the diff of its `JSON.stringify(tool, null, 2)`.
#[derive(Clone, Debug, PartialEq, Eq)]
#[cfg_attr(
    feature = "wasm",
    derive(tsify::Tsify),
    serde(rename_all = "camelCase")
)]
#[non_exhaustive]
pub struct ToolDiff {
    /// The tool's name: its `name` string, else its `function.name` string, else the tool itself
    /// when it is a string, else `#i` for the tool at index `i` of its list.
    pub name: String,
    /// How it differs.
    pub status: ToolStatus,
    /// The line diff of its pretty-printed JSON (`JSON.stringify(tool, null, 2)`); its members
    /// are the tool diff's own in JS.
    #[cfg_attr(feature = "wasm", serde(flatten))]
    pub diff: TextDiff,
}

/// How the tools differ.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
#[cfg_attr(
    feature = "wasm",
    derive(tsify::Tsify),
    serde(rename_all = "camelCase")
)]
#[non_exhaustive]
pub struct ToolsDiff {
    /// Changed and added tools in the new order, then removed tools in the old order.
    pub changes: Vec<ToolDiff>,
    /// Whether tools in both lists come in a different order.
    pub order_changed: bool,
    /// Whether only the order changed: the same tools, each the same, in another order.
    pub order_only: bool,
}

/// A config member that differs.
#[derive(Clone, Debug, PartialEq)]
#[cfg_attr(
    feature = "wasm",
    derive(tsify::Tsify),
    serde(rename_all = "camelCase")
)]
#[non_exhaustive]
pub struct ConfigDiff {
    /// The member's name; `""` when a config is not an object and is compared whole.
    pub name: String,
    /// Its old value, none when it was absent.
    #[cfg_attr(feature = "wasm", tsify(type = "unknown", optional))]
    pub old: Option<JsonValue>,
    /// Its new value, none when it is absent.
    #[cfg_attr(feature = "wasm", tsify(type = "unknown", optional))]
    pub new: Option<JsonValue>,
}

/// Compares two tool lists (values that are not arrays count as `[]`).
pub fn compare_tools(old: &JsonValue, new: &JsonValue) -> ToolsDiff {
    let old_tools = tools(old);
    let new_tools = tools(new);
    if old_tools.len() == new_tools.len() && old_tools.iter().zip(new_tools).all(|(a, b)| a == b) {
        return ToolsDiff::default();
    }
    let (old_names, old_keys) = names(old_tools);
    let (new_names, new_keys) = names(new_tools);
    fn borrowed(keys: &[String]) -> Vec<&str> {
        keys.iter().map(String::as_str).collect()
    }
    let partners = pair_by_name(&borrowed(&old_keys), &borrowed(&new_keys));
    let mut paired = vec![false; old_tools.len()];
    let mut order: Vec<usize> = Vec::new();
    let mut result = ToolsDiff::default();
    for ((tool, name), partner) in new_tools.iter().zip(&new_names).zip(&partners) {
        match partner.and_then(|at| Some((at, old_tools.get(at)?))) {
            Some((at, old_tool)) => {
                if let Some(flag) = paired.get_mut(at) {
                    *flag = true;
                }
                order.push(at);
                if old_tool != tool {
                    let diff =
                        diff_lines(&js_stringify_pretty(old_tool), &js_stringify_pretty(tool));
                    // Values equal as JSON text (say `1` and `1.0`) are not a change.
                    if !diff.is_empty() {
                        result.changes.push(ToolDiff {
                            name: name.clone(),
                            status: ToolStatus::Changed,
                            diff,
                        });
                    }
                }
            }
            None => result.changes.push(ToolDiff {
                name: name.clone(),
                status: ToolStatus::Added,
                diff: diff_lines("", &js_stringify_pretty(tool)),
            }),
        }
    }
    for ((tool, name), paired) in old_tools.iter().zip(&old_names).zip(&paired) {
        if !paired {
            result.changes.push(ToolDiff {
                name: name.clone(),
                status: ToolStatus::Removed,
                diff: diff_lines(&js_stringify_pretty(tool), ""),
            });
        }
    }
    result.order_changed = order.windows(2).any(|pair| pair.first() > pair.get(1));
    result.order_only = result.order_changed && result.changes.is_empty();
    result
}

fn tools(value: &JsonValue) -> &[JsonValue] {
    match value {
        JsonValue::Array(items) => items,
        _ => &[],
    }
}

/// Each tool's name as the diff shows it (see the module documentation), and the key it is
/// paired by: `=` and the name for a named tool, `#i` for one without a name, so the two kinds
/// never pair with each other.
fn names(tools: &[JsonValue]) -> (Vec<String>, Vec<String>) {
    tools
        .iter()
        .enumerate()
        .map(|(at, tool)| match tool_name(tool) {
            Some(name) => (name.to_owned(), format!("={name}")),
            None => (format!("#{at}"), format!("#{at}")),
        })
        .unzip()
}

/// The config members whose JSON text differs: the old members in order, then the new ones.
/// An absent config has no members; a config that is not an object is compared whole.
pub fn compare_config(old: Option<&Rc<JsonValue>>, new: Option<&Rc<JsonValue>>) -> Vec<ConfigDiff> {
    let empty = JsonObject::default();
    fn members<'a>(
        value: Option<&'a Rc<JsonValue>>,
        empty: &'a JsonObject,
    ) -> Option<&'a JsonObject> {
        match value {
            None => Some(empty),
            Some(value) => value.as_object(),
        }
    }
    match (members(old, &empty), members(new, &empty)) {
        (Some(old_members), Some(new_members)) => {
            let text = |value: Option<&JsonValue>| value.map(js_stringify);
            let mut changes = Vec::new();
            let old_names = old_members.iter().map(|(name, _)| name);
            let new_only = new_members
                .iter()
                .map(|(name, _)| name)
                .filter(|name| old_members.get(name).is_none());
            for name in old_names.chain(new_only) {
                let (before, after) = (old_members.get(name), new_members.get(name));
                if text(before) != text(after) {
                    changes.push(ConfigDiff {
                        name: name.to_owned(),
                        old: before.cloned(),
                        new: after.cloned(),
                    });
                }
            }
            changes
        }
        _ => {
            let text = |value: Option<&Rc<JsonValue>>| value.map(|value| js_stringify(value));
            if text(old) == text(new) {
                return Vec::new();
            }
            vec![ConfigDiff {
                name: String::new(),
                old: old.map(|value| (**value).clone()),
                new: new.map(|value| (**value).clone()),
            }]
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::views::diff::lines::apply;

    fn json(text: &str) -> JsonValue {
        JsonValue::parse(text).unwrap()
    }

    fn summary(diff: &ToolsDiff) -> Vec<(String, &'static str)> {
        diff.changes
            .iter()
            .map(|c| (c.name.clone(), c.status.name()))
            .collect()
    }

    #[test]
    fn pretty_json_is_what_json_stringify_writes() {
        let value = json(r#"{"name":"a","b":[],"c":{},"d":[1,{"e":null}],"2":true,"1":1.0}"#);
        assert_eq!(
            js_stringify_pretty(&value),
            "{\n  \"1\": 1,\n  \"2\": true,\n  \"name\": \"a\",\n  \"b\": [],\n  \"c\": {},\n  \"d\": [\n    1,\n    {\n      \"e\": null\n    }\n  ]\n}"
        );
    }

    #[test]
    fn tools_by_name() {
        let old = json(
            r#"[{"name":"read","d":"r"},{"name":"edit","d":"e"},{"function":{"name":"run"}},{"x":1}]"#,
        );
        let new = json(
            r#"[{"name":"read","d":"R"},{"name":"write","d":"e"},{"function":{"name":"run"}},{"x":1}]"#,
        );
        let diff = compare_tools(&old, &new);
        assert_eq!(
            summary(&diff),
            [
                ("read".to_owned(), "changed"),
                ("write".to_owned(), "added"),
                ("edit".to_owned(), "removed"),
            ]
        );
        assert!(!diff.order_changed && !diff.order_only);
        let read = &diff.changes[0];
        let old_text = js_stringify_pretty(&tools(&old)[0]);
        let new_text = js_stringify_pretty(&tools(&new)[0]);
        assert_eq!(
            apply(&old_text, &read.diff.hunks).as_deref(),
            Some(new_text.as_str())
        );
        assert_eq!((read.diff.added, read.diff.removed), (1, 1));
        let added = &diff.changes[1].diff;
        assert_eq!((added.added, added.removed), (4, 0));
    }

    #[test]
    fn reordered_only() {
        let old = json(r#"[{"name":"a"},{"name":"b"},{"name":"c"}]"#);
        let new = json(r#"[{"name":"c"},{"name":"a"},{"name":"b"}]"#);
        let diff = compare_tools(&old, &new);
        assert!(diff.changes.is_empty());
        assert!(diff.order_changed && diff.order_only);
        let same = compare_tools(&old, &old);
        assert_eq!(same, ToolsDiff::default());
        // Reordered and changed.
        let changed = json(r#"[{"name":"c","v":2},{"name":"a"},{"name":"b"}]"#);
        let both = compare_tools(&old, &changed);
        assert!(both.order_changed && !both.order_only);
        assert_eq!(summary(&both), [("c".to_owned(), "changed")]);
    }

    #[test]
    fn renamed_tool_is_removed_and_added_and_non_arrays_are_empty() {
        let diff = compare_tools(
            &json(r#"[{"name":"grep"}]"#),
            &json(r#"[{"name":"search"}]"#),
        );
        assert_eq!(
            summary(&diff),
            [
                ("search".to_owned(), "added"),
                ("grep".to_owned(), "removed")
            ]
        );
        let from_nothing = compare_tools(&json("null"), &json(r#"[{"name":"a"}]"#));
        assert_eq!(summary(&from_nothing), [("a".to_owned(), "added")]);
        assert_eq!(
            compare_tools(&json("{}"), &json("[]")),
            ToolsDiff::default()
        );
    }

    /// The harness's tool list of the issue (26 plain names), with `extra` inserted at `at`.
    fn plain_names(extra: Option<(usize, &str)>) -> JsonValue {
        let mut names: Vec<String> = (0..16).map(|i| format!("tool{i}")).collect();
        names.extend(["subagent", "subagent_fork"].map(str::to_owned));
        names.extend((0..8).map(|i| format!("late{i}")));
        if let Some((at, name)) = extra {
            names.insert(at, name.to_owned());
        }
        JsonValue::Array(
            names
                .into_iter()
                .map(|n| JsonValue::String(n.into()))
                .collect(),
        )
    }

    #[test]
    fn plain_string_added_mid_list_is_one_added_tool() {
        let old = plain_names(None);
        let new = plain_names(Some((16, "snapshot_ping")));
        let diff = compare_tools(&old, &new);
        assert_eq!(summary(&diff), [("snapshot_ping".to_owned(), "added")]);
        assert!(!diff.order_changed && !diff.order_only);
        assert_eq!(
            (diff.changes[0].diff.added, diff.changes[0].diff.removed),
            (1, 0)
        );
        // And taken out again: one removed tool.
        let back = compare_tools(&new, &old);
        assert_eq!(summary(&back), [("snapshot_ping".to_owned(), "removed")]);
        // Plain names that only move are reordered, not changed.
        let moved = json(r#"["b","a","c"]"#);
        let diff = compare_tools(&json(r#"["a","b","c"]"#), &moved);
        assert!(diff.changes.is_empty() && diff.order_only);
    }

    #[test]
    fn openai_function_shape_added_mid_list() {
        let tool = |name: &str| format!(r#"{{"type":"function","function":{{"name":"{name}"}}}}"#);
        let list = |names: &[&str]| {
            let tools: Vec<String> = names.iter().map(|name| tool(name)).collect();
            json(&format!("[{}]", tools.join(",")))
        };
        let diff = compare_tools(&list(&["a", "b", "c"]), &list(&["a", "x", "b", "c"]));
        assert_eq!(summary(&diff), [("x".to_owned(), "added")]);
        assert!(!diff.order_changed);
        let old = list(&["a", "b"]);
        let new = json(
            r#"[{"type":"function","function":{"name":"a","parameters":{}}},{"type":"function","function":{"name":"b"}}]"#,
        );
        assert_eq!(
            summary(&compare_tools(&old, &new)),
            [("a".to_owned(), "changed")]
        );
    }

    #[test]
    fn objects_with_name_added_mid_list() {
        let old = json(r#"[{"name":"a"},{"name":"b"},{"name":"c"}]"#);
        let new = json(r#"[{"name":"a"},{"name":"x"},{"name":"b"},{"name":"c","v":1}]"#);
        let diff = compare_tools(&old, &new);
        assert_eq!(
            summary(&diff),
            [("x".to_owned(), "added"), ("c".to_owned(), "changed")]
        );
        assert!(!diff.order_changed);
    }

    #[test]
    fn mixed_shapes_pair_by_the_one_rule() {
        let old = json(
            r#"["read",{"name":"edit"},{"type":"function","function":{"name":"run"}},"write"]"#,
        );
        let new = json(
            r#"["grep",{"name":"read","d":1},{"name":"edit"},{"type":"function","function":{"name":"run","parameters":{}}},"write"]"#,
        );
        let diff = compare_tools(&old, &new);
        assert_eq!(
            summary(&diff),
            [
                ("grep".to_owned(), "added"),
                ("read".to_owned(), "changed"),
                ("run".to_owned(), "changed"),
            ]
        );
        assert!(!diff.order_changed);
        // A plain name that becomes an object of the same name is changed, its text diffed.
        let read = &diff.changes[1];
        let old_text = js_stringify_pretty(&tools(&old)[0]);
        let new_text = js_stringify_pretty(&tools(&new)[1]);
        assert_eq!(
            apply(&old_text, &read.diff.hunks).as_deref(),
            Some(new_text.as_str())
        );
    }

    #[test]
    fn duplicate_names_pair_in_order() {
        let diff = compare_tools(
            &json(r#"["read","read","write"]"#),
            &json(r#"["read","write","read","read"]"#),
        );
        assert_eq!(summary(&diff), [("read".to_owned(), "added")]);
        // The second old "read" now comes after "write".
        assert!(diff.order_changed && !diff.order_only);
        let diff = compare_tools(
            &json(r#"[{"name":"a","v":1},{"name":"a","v":2},"a"]"#),
            &json(r#"[{"name":"a","v":1},{"name":"a","v":3}]"#),
        );
        assert_eq!(
            summary(&diff),
            [("a".to_owned(), "changed"), ("a".to_owned(), "removed")]
        );
        assert_eq!(diff.changes[0].diff.added, 1);
        assert_eq!(
            diff.changes[1].diff,
            diff_lines(&js_stringify_pretty(&json(r#""a""#)), "")
        );
    }

    #[test]
    fn tools_without_a_name_pair_by_index() {
        let diff = compare_tools(
            &json(r#"[{"x":1},{"y":2},null]"#),
            &json(r#"[{"x":1},{"y":3},null,7]"#),
        );
        assert_eq!(
            summary(&diff),
            [("#1".to_owned(), "changed"), ("#3".to_owned(), "added")]
        );
        // A tool really named "#0" never pairs with the unnamed tool at index 0.
        let diff = compare_tools(&json(r#"[{"x":1}]"#), &json(r##"["#0"]"##));
        assert_eq!(
            summary(&diff),
            [("#0".to_owned(), "added"), ("#0".to_owned(), "removed")]
        );
        assert_eq!(
            (diff.changes[0].diff.removed, diff.changes[1].diff.added),
            (0, 0)
        );
    }

    #[test]
    fn config_members() {
        let old = Rc::new(json(r#"{"model":"a","provider":"p","effort":"low"}"#));
        let new = Rc::new(json(r#"{"provider":"p","model":"b","temperature":1}"#));
        let changes = compare_config(Some(&old), Some(&new));
        let names: Vec<_> = changes.iter().map(|c| c.name.as_str()).collect();
        assert_eq!(names, ["model", "effort", "temperature"]);
        assert_eq!(changes[1].new, None);
        assert_eq!(changes[2].old, None);
        assert_eq!(changes[0].new, Some(json(r#""b""#)));
        assert!(compare_config(Some(&old), Some(&old)).is_empty());
        assert!(compare_config(None, None).is_empty());
        assert_eq!(compare_config(None, Some(&new)).len(), 3);
        let whole = compare_config(Some(&Rc::new(json("1"))), Some(&Rc::new(json("2"))));
        assert_eq!(whole.len(), 1);
        assert_eq!(whole[0].name, "");
    }
}
