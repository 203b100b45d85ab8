//! Helpers shared by the integration tests: finding conformance cases and comparing JSON values.

#![allow(dead_code)]

use std::path::{Path, PathBuf};

use promptfold::{Conversation, LoadOptions, SessionEvent};
use serde_json::Value;

/// The case folder: `CONFORMANCE_DIR`, else the copy in the repository.
pub fn conformance_dir() -> PathBuf {
    match std::env::var_os("CONFORMANCE_DIR") {
        Some(dir) => PathBuf::from(dir),
        None => Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/conformance"),
    }
}

/// Every `*.json` file below `dir`, sorted by path.
pub fn case_files(dir: &Path) -> Vec<PathBuf> {
    let mut found = Vec::new();
    let mut pending = vec![dir.to_path_buf()];
    while let Some(folder) = pending.pop() {
        let Ok(entries) = std::fs::read_dir(&folder) else {
            continue;
        };
        for entry in entries.flatten() {
            let path = entry.path();
            if path.is_dir() {
                pending.push(path);
            } else if path.extension().is_some_and(|ext| ext == "json") {
                found.push(path);
            }
        }
    }
    found.sort();
    found
}

/// The first path at which `actual` differs from `expected`, comparing parsed JSON: object key
/// order is ignored and numbers compare by value (`3` equals `3.0`).
pub fn first_difference(actual: &Value, expected: &Value) -> Option<String> {
    diff_at(actual, expected, "$")
}

fn diff_at(actual: &Value, expected: &Value, path: &str) -> Option<String> {
    match (actual, expected) {
        (Value::Number(a), Value::Number(b)) => {
            (a.as_f64() != b.as_f64()).then(|| format!("{path}: {a} != expected {b}"))
        }
        (Value::Array(a), Value::Array(b)) => {
            for (i, (x, y)) in a.iter().zip(b).enumerate() {
                if let Some(found) = diff_at(x, y, &format!("{path}[{i}]")) {
                    return Some(found);
                }
            }
            (a.len() != b.len())
                .then(|| format!("{path}: length {} != expected {}", a.len(), b.len()))
        }
        (Value::Object(a), Value::Object(b)) => {
            for (key, y) in b {
                match a.get(key) {
                    Some(x) => {
                        if let Some(found) = diff_at(x, y, &format!("{path}.{key}")) {
                            return Some(found);
                        }
                    }
                    None => return Some(format!("{path}.{key}: missing, expected {}", short(y))),
                }
            }
            a.keys()
                .find(|key| !b.contains_key(*key))
                .map(|key| format!("{path}.{key}: unexpected member"))
        }
        _ => (actual != expected)
            .then(|| format!("{path}: {} != expected {}", short(actual), short(expected))),
    }
}

fn short(value: &Value) -> String {
    let text = value.to_string();
    if text.chars().count() > 120 {
        let cut: String = text.chars().take(117).collect();
        format!("{cut}...")
    } else {
        text
    }
}

/// Loads `events` in the given way: pieces appended after a first load, then older pages
/// prepended down to the start.
pub fn by_pieces(events: &[SessionEvent], cut: usize, live: usize, page: usize) -> Conversation {
    let mut conversation = Conversation::new();
    let end = (cut + live.max(1)).min(events.len());
    conversation
        .load(
            events[cut..end].to_vec(),
            LoadOptions::default().with_has_more(cut > 0),
        )
        .unwrap();
    for chunk in events[end..].chunks(live.max(1)) {
        conversation.append(chunk.to_vec()).unwrap();
    }
    let mut start = cut;
    while start > 0 {
        let from = start.saturating_sub(page.max(1));
        conversation
            .prepend(
                events[from..start].to_vec(),
                LoadOptions::default().with_has_more(from > 0),
            )
            .unwrap();
        start = from;
    }
    conversation
}
