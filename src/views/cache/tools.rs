//! Two requests' tools compared by name (docs/cache.md, "Kept, new, broken"): a tool is known by
//! its name (the crate's one rule, `views::tool_name`), or, without one, by its JSON text; the n-th
//! tool of a name pairs with the n-th of the same name in the other list, and a pair whose JSON
//! texts differ is changed.

use std::borrow::Cow;

use crate::input::event::RequestHeader;
use crate::input::json::stringify::js_stringify;
use crate::input::json::JsonValue;
use crate::views::tool_name::tool_name;

/// How two tool lists differ, each list of names in the order of the list it comes from.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(super) struct ToolChanges {
    pub added: Vec<String>,
    pub removed: Vec<String>,
    pub changed: Vec<String>,
}

impl ToolChanges {
    /// Whether the lists hold the same tools (possibly in another order).
    pub fn is_empty(&self) -> bool {
        self.added.is_empty() && self.removed.is_empty() && self.changed.is_empty()
    }
}

/// A tool's name (its JSON text when it has none) and the tool.
fn named(tool: &JsonValue) -> (Cow<'_, str>, &JsonValue) {
    let name = tool_name(tool).map_or_else(|| Cow::Owned(js_stringify(tool)), Cow::Borrowed);
    (name, tool)
}

fn list(header: Option<&RequestHeader>) -> Vec<(Cow<'_, str>, &JsonValue)> {
    match header.map(|header| &*header.tools) {
        Some(JsonValue::Array(tools)) => tools.iter().map(named).collect(),
        _ => Vec::new(),
    }
}

/// Whether two tools have the same JSON text: equal values do, and the rare unequal pair is
/// compared by text (`1e400` and `null` both print `null`).
fn same_text(a: &JsonValue, b: &JsonValue) -> bool {
    a == b || js_stringify(a) == js_stringify(b)
}

fn tools_text(header: Option<&RequestHeader>) -> &str {
    header.map_or("[]", |header| &header.tools_text)
}

/// How the tools of `after` differ from those of `before` (no header: no tools); `None` when
/// their texts are the same (most requests: nothing allocated or dropped then).
pub(super) fn compare(
    before: Option<&RequestHeader>,
    after: Option<&RequestHeader>,
) -> Option<ToolChanges> {
    // Headers share the text of equal tools (the interner), so a pointer usually answers.
    let shared = match (before, after) {
        (Some(a), Some(b)) => std::rc::Rc::ptr_eq(&a.tools_text, &b.tools_text),
        _ => false,
    };
    if shared || tools_text(before) == tools_text(after) {
        return None;
    }
    let old = list(before);
    let new = list(after);
    // Tool lists are short: a linear search per tool keeps the module small.
    let mut paired = vec![false; old.len()];
    let mut changes = ToolChanges::default();
    for (name, tool) in &new {
        let partner = old
            .iter()
            .zip(paired.iter_mut())
            .find(|((old_name, _), paired)| !**paired && old_name == name);
        match partner {
            Some(((_, old_tool), paired)) => {
                *paired = true;
                if !same_text(old_tool, tool) {
                    changes.changed.push(name.clone().into_owned());
                }
            }
            None => changes.added.push(name.clone().into_owned()),
        }
    }
    // The first tools of a name pair first, so the unpaired ones are the last of their name.
    for ((name, _), paired) in old.iter().zip(&paired) {
        if !paired {
            changes.removed.push(name.clone().into_owned());
        }
    }
    Some(changes)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn header(tools: &str) -> RequestHeader {
        RequestHeader::new(
            None,
            Some(JsonValue::parse(tools).unwrap()),
            crate::input::event::HeaderReason::Change,
            false,
        )
    }

    #[test]
    fn tools_compare_by_name_then_by_json_text() {
        let a = header(r#"[{"name":"read","p":1},{"name":"bash"},{"x":1}]"#);
        let b = header(r#"[{"name":"bash"},{"name":"read","p":2},{"name":"web"},{"x":2}]"#);
        let changes = compare(Some(&a), Some(&b)).unwrap_or_default();
        assert_eq!(changes.changed, ["read"]);
        assert_eq!(changes.added, ["web", r#"{"x":2}"#]);
        assert_eq!(changes.removed, [r#"{"x":1}"#]);
        // The same tools in another order do not differ.
        let c = header(r#"[{"name":"bash"},{"name":"read","p":1},{"x":1}]"#);
        assert!(compare(Some(&a), Some(&c)).unwrap_or_default().is_empty());
        assert_eq!(compare(None, Some(&a)).unwrap_or_default().added.len(), 3);
        assert_eq!(compare(Some(&a), None).unwrap_or_default().removed.len(), 3);
        // Two tools of one name pair in order; the last one is removed.
        let d = header(r#"[{"name":"t","v":1},{"name":"t","v":2}]"#);
        let e = header(r#"[{"name":"t","v":1}]"#);
        let changes = compare(Some(&d), Some(&e)).unwrap_or_default();
        assert_eq!((changes.removed.len(), changes.changed.len()), (1, 0));
    }

    #[test]
    fn every_tool_shape_is_named_by_the_one_rule() {
        // Plain names (issue 29): one added mid-list is that name, not its JSON text.
        let a = header(r#"["read","subagent","subagent_fork"]"#);
        let b = header(r#"["read","snapshot_ping","subagent","subagent_fork"]"#);
        let changes = compare(Some(&a), Some(&b)).unwrap_or_default();
        assert_eq!(changes.added, ["snapshot_ping"]);
        assert!(changes.removed.is_empty() && changes.changed.is_empty());
        // The OpenAI shape: new parameters change the tool, they do not replace it.
        let c = header(r#"[{"type":"function","function":{"name":"run"}},"read"]"#);
        let d = header(r#"[{"type":"function","function":{"name":"run","parameters":{}}},"read"]"#);
        let changes = compare(Some(&c), Some(&d)).unwrap_or_default();
        assert_eq!(changes.changed, ["run"]);
        assert!(changes.added.is_empty() && changes.removed.is_empty());
        // A plain name that becomes an object of the same name is changed.
        let e = header(r#"[{"name":"read","p":1}]"#);
        assert_eq!(
            compare(Some(&a), Some(&e)).unwrap_or_default().changed,
            ["read"]
        );
    }

    #[test]
    fn tools_that_print_the_same_text_are_not_changed() {
        // Unequal values, one text: 1e400 is infinity, which prints `null` as in JavaScript.
        // The lists differ by `x`, so the pair of `read` is compared.
        let a = header(r#"[{"name":"read","p":1e400},"x"]"#);
        let b = header(r#"[{"name":"read","p":null}]"#);
        let changes = compare(Some(&a), Some(&b)).unwrap_or_default();
        assert!(changes.changed.is_empty());
        assert_eq!(changes.removed, ["x"]);
        // Two lists whose texts differ only by another tool: equal values are not changed.
        let c = header(r#"[{"name":"read","p":{"q":[1,2]}},"bash"]"#);
        let d = header(r#"[{"name":"read","p":{"q":[1,2]}}]"#);
        let changes = compare(Some(&c), Some(&d)).unwrap_or_default();
        assert!(changes.changed.is_empty());
        assert_eq!(changes.removed, ["bash"]);
    }
}
