//! Two requests' tools compared by name (SPEC 11 item 2): a tool is known by its `name` string,
//! or, without one, by its JSON text; the n-th tool of a name pairs with the n-th of the same
//! name in the other list, and a pair whose JSON texts differ is changed.

use std::collections::HashMap;

use crate::input::event::RequestHeader;
use crate::input::json::stringify::js_stringify;
use crate::input::json::JsonValue;

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

/// A tool's name and JSON text.
fn named(tool: &JsonValue) -> (String, String) {
    let text = js_stringify(tool);
    let name = match tool.get("name") {
        Some(JsonValue::String(name)) => String::from(&**name),
        _ => text.clone(),
    };
    (name, text)
}

fn list(header: Option<&RequestHeader>) -> Vec<(String, String)> {
    match header.map(|header| &*header.tools) {
        Some(JsonValue::Array(tools)) => tools.iter().map(named).collect(),
        _ => Vec::new(),
    }
}

fn tools_text(header: Option<&RequestHeader>) -> &str {
    header.map_or("[]", |header| &header.tools_text)
}

/// How the tools of `after` differ from those of `before` (no header: no tools).
pub(super) fn compare(
    before: Option<&RequestHeader>,
    after: Option<&RequestHeader>,
) -> ToolChanges {
    if tools_text(before) == tools_text(after) {
        return ToolChanges::default();
    }
    let old = list(before);
    let new = list(after);
    // The JSON texts of each name in the old list, in order, consumed as the new list pairs them.
    let mut unpaired: HashMap<&str, std::collections::VecDeque<&str>> = HashMap::new();
    for (name, text) in &old {
        unpaired.entry(name).or_default().push_back(text);
    }
    let mut changes = ToolChanges::default();
    for (name, text) in &new {
        match unpaired
            .get_mut(name.as_str())
            .and_then(|texts| texts.pop_front())
        {
            Some(old_text) if old_text != text => changes.changed.push(name.clone()),
            Some(_) => {}
            None => changes.added.push(name.clone()),
        }
    }
    // What the new list left unpaired was removed: the last tools of each name.
    let mut totals: HashMap<&str, usize> = HashMap::new();
    for (name, _) in &old {
        let total = totals.entry(name).or_default();
        *total = total.saturating_add(1);
    }
    let mut seen: HashMap<&str, usize> = HashMap::new();
    for (name, _) in &old {
        let index = seen.entry(name).or_default();
        let this = *index;
        *index = index.saturating_add(1);
        let remaining = unpaired.get(name.as_str()).map_or(0, |texts| texts.len());
        let paired = totals
            .get(name.as_str())
            .map_or(0, |total| total.saturating_sub(remaining));
        if this >= paired {
            changes.removed.push(name.clone());
        }
    }
    changes
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
        let changes = compare(Some(&a), Some(&b));
        assert_eq!(changes.changed, ["read"]);
        assert_eq!(changes.added, ["web", r#"{"x":2}"#]);
        assert_eq!(changes.removed, [r#"{"x":1}"#]);
        // The same tools in another order do not differ.
        let c = header(r#"[{"name":"bash"},{"name":"read","p":1},{"x":1}]"#);
        assert!(compare(Some(&a), Some(&c)).is_empty());
        assert_eq!(compare(None, Some(&a)).added.len(), 3);
        assert_eq!(compare(Some(&a), None).removed.len(), 3);
        // Two tools of one name pair in order; the last one is removed.
        let d = header(r#"[{"name":"t","v":1},{"name":"t","v":2}]"#);
        let e = header(r#"[{"name":"t","v":1}]"#);
        let changes = compare(Some(&d), Some(&e));
        assert_eq!((changes.removed.len(), changes.changed.len()), (1, 0));
    }
}
