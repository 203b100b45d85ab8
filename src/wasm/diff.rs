//! Prompt diffs as plain JS objects: `conversation.cardDiff(key)`, `conversation.changeDiff(key)`
//! and `diffPrompts(previous, current)`. A diff crosses as numbers, one text holding every hunk
//! line (joined with `\n`, which no line holds) and a table of titles, names and config values;
//! JS builds the objects (as `wasm::outgoing` does for views), so a diff of thousands of lines
//! costs one string across the boundary, not one per line.

use wasm_bindgen::prelude::*;

use super::conversation::JsConversation;
use super::convert::optional_json;
use super::error::throw;
use super::outgoing::length;
use super::text::whole_string;
use crate::error::Error;
use crate::fold::request::PromptSnapshot;
use crate::input::json::JsonValue;
use crate::views::chat::CardKey;
use crate::views::diff::{diff_prompts, PromptDiff, SectionStatus, TextDiff, ToolStatus};
use crate::wasm::cache;
use crate::wasm::plain::snapshot_from_json;

#[wasm_bindgen(typescript_custom_section)]
const DIFF_TYPES: &'static str = r#"
/** A prompt to compare: a system text alone, or `{ config?, system?, tools? }`. */
export type PromptInput = string | { config?: unknown; system?: string; tools?: unknown[] };
"#;

#[wasm_bindgen(inline_js = r#"
const SECTIONS = ["added", "removed", "changed", "unchanged"];
const TOOLS = ["added", "removed", "changed"];

export function promptfoldDiff(numbers, values, text, lineCount) {
  const lines = lineCount === 0 ? [] : text.split("\n");
  let at = 0, line = 0;
  const next = () => numbers[at++];
  const list = (read) => {
    const items = new Array(next());
    for (let i = 0; i < items.length; i++) items[i] = read();
    return items;
  };
  const hunk = () => {
    const oldStart = next(), oldLines = next(), newStart = next(), newLines = next();
    const count = next();
    const hunkLines = lines.slice(line, line + count);
    line += count;
    return { oldStart, oldLines, newStart, newLines, lines: hunkLines };
  };
  const textDiff = () => {
    const replacedWhole = next() === 1, added = next(), removed = next();
    return { hunks: list(hunk), added, removed, replacedWhole };
  };
  const system = textDiff();
  system.sections = list(() => {
    const title = values[next()], status = SECTIONS[next()];
    return { title, status, firstLine: next(), lineCount: next() };
  });
  const changes = list(() => {
    const name = values[next()], status = TOOLS[next()];
    const { hunks, added, removed, replacedWhole } = textDiff();
    return { name, status, hunks, added, removed, replacedWhole };
  });
  const orderChanged = next() === 1, orderOnly = next() === 1;
  const config = list(() => {
    const change = { name: values[next()] };
    const old = next(), now = next();
    if (old >= 0) change.old = values[old];
    if (now >= 0) change.new = values[now];
    return change;
  });
  return { system, tools: { changes, orderChanged, orderOnly }, config };
}
"#)]
extern "C" {
    #[wasm_bindgen(js_name = promptfoldDiff)]
    fn make_diff(numbers: &[f64], values: &js_sys::Array, text: &str, line_count: u32) -> JsValue;
}

/// A diff being packed: numbers, the hunk lines, and the table of values.
struct Packed {
    numbers: Vec<f64>,
    text: String,
    lines: usize,
    values: js_sys::Array,
}

impl Packed {
    fn number(&mut self, value: usize) {
        self.numbers.push(value as f64);
    }

    fn flag(&mut self, value: bool) {
        self.numbers.push(f64::from(u8::from(value)));
    }

    fn value(&mut self, value: &JsValue) {
        let index = self.values.push(value).saturating_sub(1);
        self.numbers.push(f64::from(index));
    }

    fn optional_json(&mut self, value: Option<&JsonValue>) {
        match value.and_then(cache::value_to_js) {
            Some(value) => self.value(&value),
            None => self.numbers.push(-1.0),
        }
    }

    fn text_diff(&mut self, diff: &TextDiff) {
        self.flag(diff.replaced_whole);
        self.number(diff.added);
        self.number(diff.removed);
        self.number(diff.hunks.len());
        for hunk in &diff.hunks {
            self.number(hunk.old_start);
            self.number(hunk.old_lines);
            self.number(hunk.new_start);
            self.number(hunk.new_lines);
            self.number(hunk.lines.len());
            for line in &hunk.lines {
                if self.lines > 0 {
                    self.text.push('\n');
                }
                self.text.push_str(line);
                self.lines = self.lines.saturating_add(1);
            }
        }
    }
}

/// A diff as the plain JS object of the `PromptDiff` type.
fn diff_to_js(diff: &PromptDiff) -> JsValue {
    let mut out = Packed {
        numbers: Vec::new(),
        text: String::new(),
        lines: 0,
        values: js_sys::Array::new(),
    };
    out.text_diff(&diff.system.diff);
    out.number(diff.system.sections.len());
    for section in &diff.system.sections {
        out.value(&JsValue::from_str(&section.title));
        out.number(match section.status {
            SectionStatus::Added => 0,
            SectionStatus::Removed => 1,
            SectionStatus::Changed => 2,
            SectionStatus::Unchanged => 3,
        });
        out.number(section.first_line);
        out.number(section.line_count);
    }
    out.number(diff.tools.changes.len());
    for tool in &diff.tools.changes {
        out.value(&JsValue::from_str(&tool.name));
        out.number(match tool.status {
            ToolStatus::Added => 0,
            ToolStatus::Removed => 1,
            ToolStatus::Changed => 2,
        });
        out.text_diff(&tool.diff);
    }
    out.flag(diff.tools.order_changed);
    out.flag(diff.tools.order_only);
    out.number(diff.config.len());
    for change in &diff.config {
        out.value(&JsValue::from_str(&change.name));
        out.optional_json(change.old.as_ref());
        out.optional_json(change.new.as_ref());
    }
    make_diff(&out.numbers, &out.values, &out.text, length(out.lines))
}

/// A key `source:seq` (`"system:23"`), `None` when it is not one.
fn parse_key(key: &str) -> Option<CardKey> {
    key.parse().ok()
}

/// A prompt argument: a string is a system text alone.
fn prompt_from_js(value: &JsValue, argument: &str) -> Result<PromptSnapshot, Error> {
    if let Some(text) = value.dyn_ref::<js_sys::JsString>() {
        // Through `encodeInto`: wasm-bindgen's own passing copies one UTF-16 unit at a time.
        let text = whole_string(text)?;
        return Ok(PromptSnapshot::new(
            None,
            &text,
            JsonValue::Array(Vec::new()),
        ));
    }
    let json = optional_json(value, argument)?.ok_or_else(|| Error::InvalidArgument {
        argument: argument.to_owned(),
        message: "expected a string or a prompt object".to_owned(),
    })?;
    snapshot_from_json(&json).map_err(|error| match error {
        Error::InvalidArgument { message, .. } => Error::InvalidArgument {
            argument: argument.to_owned(),
            message,
        },
        other => other,
    })
}

/// What changed from `previous` to `current` (each a system text, or a prompt object
/// `{ config?, system?, tools? }`): the system text's hunks and sections, the tools by name and
/// the config members. Throws a `PromptfoldError` (`INVALID_ARGUMENT`) for other values.
#[wasm_bindgen(js_name = diffPrompts, unchecked_return_type = "PromptDiff")]
pub fn diff_prompts_js(
    #[wasm_bindgen(unchecked_param_type = "PromptInput")] previous: JsValue,
    #[wasm_bindgen(unchecked_param_type = "PromptInput")] current: JsValue,
) -> Result<JsValue, JsValue> {
    let previous = throw(prompt_from_js(&previous, "previous"))?;
    let current = throw(prompt_from_js(&current, "current"))?;
    Ok(diff_to_js(&diff_prompts(&previous, &current)))
}

#[wasm_bindgen(js_class = Conversation)]
impl JsConversation {
    /// What the chat card `key` changed against the prompt the rules compared it with (an
    /// update card: the effective prompt just before it, system text only; a request card with
    /// a change: the change's `previous`); `undefined` for other cards and unknown keys. Made
    /// on demand and kept while the window compares the same prompts. A key that is not a
    /// string throws `INVALID_ARGUMENT` (checked in the glue, scripts/argument-glue.mjs).
    #[wasm_bindgen(js_name = cardDiff, unchecked_return_type = "PromptDiff | undefined")]
    pub fn card_diff(
        &self,
        #[wasm_bindgen(unchecked_param_type = "string")] key: JsValue,
    ) -> JsValue {
        key.as_string()
            .and_then(|key| parse_key(&key))
            .and_then(|key| self.inner.card_diff(key))
            .map_or(JsValue::UNDEFINED, |diff| diff_to_js(&diff))
    }

    /// What the trajectory header fact `key` changed against its change's `previous` prompt;
    /// `undefined` when it has none. Made on demand and kept as `cardDiff` keeps its diffs.
    #[wasm_bindgen(js_name = changeDiff, unchecked_return_type = "PromptDiff | undefined")]
    pub fn change_diff(
        &self,
        #[wasm_bindgen(unchecked_param_type = "string")] key: JsValue,
    ) -> JsValue {
        key.as_string()
            .and_then(|key| parse_key(&key))
            .and_then(|key| self.inner.change_diff(key))
            .map_or(JsValue::UNDEFINED, |diff| diff_to_js(&diff))
    }
}
