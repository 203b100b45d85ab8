//! A batch of JS event objects as JSON text, reduced in JS to the members the rules read.
//!
//! Stringifying whole events costs more than everything else a load does: a typical session's
//! tool results and assistant texts are most of its bytes, and every request header repeats the
//! same tool list. So the batch is first copied, in JS, down to `seq`, `time`, `type`,
//! `surfaceOp` and the `data` members the event's type uses; and a request header whose tools
//! have the same JSON as the previous header's in the batch sends a marker instead of them (the
//! reader then takes the previous tools; [`crate::parse`] accepts the marker only in this mode).
//! Members the rules never read are never looked at: a cycle or a BigInt there is no error.

use wasm_bindgen::prelude::*;

#[wasm_bindgen(inline_js = r#"
const MAX_COMPARE_DEPTH = 64;

// Whether JSON.stringify(a) === JSON.stringify(b) is certain without writing either: the same
// plain data, keys in the same order. "No" is always safe (the tools are then sent in full).
function sameJson(a, b, depth) {
  if (a === b) return typeof a !== "object" || a === null || typeof a.toJSON !== "function";
  if (typeof a !== "object" || typeof b !== "object" || a === null || b === null) return false;
  if (depth > MAX_COMPARE_DEPTH || typeof a.toJSON === "function" || typeof b.toJSON === "function") return false;
  const arrays = Array.isArray(a);
  if (arrays !== Array.isArray(b)) return false;
  if (arrays) {
    if (a.length !== b.length) return false;
    for (let i = 0; i < a.length; i++) if (!sameJson(a[i], b[i], depth + 1)) return false;
    return true;
  }
  const keys = Object.keys(a), other = Object.keys(b);
  if (keys.length !== other.length) return false;
  for (let i = 0; i < keys.length; i++) {
    const key = keys[i];
    if (key !== other[i] || !sameJson(a[key], b[key], depth + 1)) return false;
  }
  return true;
}

function isPlainRecord(value) {
  return value !== null && typeof value === "object" && !Array.isArray(value) && typeof value.toJSON !== "function";
}

// The members of one event the rules read; `previous` holds the last header's tools.
function slimEvent(event, previous) {
  if (!isPlainRecord(event)) {
    previous.has = false;
    return event;
  }
  const type = event.type, data = event.data;
  const slim = { seq: event.seq, time: event.time, type, surfaceOp: event.surfaceOp };
  if (!isPlainRecord(data)) {
    previous.has = false;
    slim.data = data;
    return slim;
  }
  const kept = { turn: data.turn, step: data.step };
  if (type === "system/message" || type === undefined) kept.message = data.message;
  if (type === "request/header" || type === undefined) {
    kept.reason = data.reason;
    kept.startsSeries = data.startsSeries;
    const header = data.header;
    if (type === "request/header" && isPlainRecord(header)) {
      const tools = header.tools;
      kept.header = previous.has && sameJson(tools, previous.tools, 0)
        ? { config: header.config, sameToolsAsPrevious: true }
        : { config: header.config, tools };
      previous.has = true;
      previous.tools = tools;
    } else {
      // The reader may take tools from this one (a header without a type, or one JSON writes
      // through toJSON): the next header sends its tools in full.
      previous.has = false;
      kept.header = header;
    }
  }
  slim.data = kept;
  return slim;
}

// JSON text of the reduced batch, or the index of the first event that cannot be read (a
// getter that throws) or written (a BigInt, a cycle).
export function promptfoldBatchText(events) {
  const previous = { has: false, tools: undefined };
  const slim = new Array(events.length);
  let i = 0;
  try {
    for (; i < events.length; i++) slim[i] = slimEvent(events[i], previous);
  } catch {
    return i;
  }
  try {
    return JSON.stringify(slim);
  } catch {
    for (let i = 0; i < slim.length; i++) {
      try { JSON.stringify(slim[i]); } catch { return i; }
    }
    return 0;
  }
}
"#)]
extern "C" {
    #[wasm_bindgen(js_name = promptfoldBatchText, catch)]
    fn batch_text(events: &js_sys::Array) -> Result<JsValue, JsValue>;
}

/// The reduced batch as JSON text (`Ok`), or the index of the first event that JS cannot read
/// or `JSON.stringify` cannot write (`Err`).
pub(crate) fn reduced_batch_text(events: &js_sys::Array) -> Result<String, usize> {
    let result = batch_text(events).unwrap_or(JsValue::UNDEFINED);
    match result.as_string() {
        Some(text) => Ok(text),
        None => Err(result.as_f64().map_or(0, |index| index as usize)),
    }
}
