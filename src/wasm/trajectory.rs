//! The trajectory view as JS objects, built in JS from numbers (see `wasm::outgoing`): the same
//! members in the same order as the serializer writes them, optional members left out when
//! absent. Prompt texts, configs and tool lists are shared JS values, as the serializer shares
//! them within one conversion; every header and request gets prompt objects of its own.

use wasm_bindgen::prelude::*;

use crate::fold::SystemPromptNode;
use crate::request::{ChangeKind, PromptChange, PromptSnapshot};
use crate::trajectory::{HeaderFact, Request, Trajectory};

use super::cards::source_slot;
use super::outgoing::Outgoing;

#[wasm_bindgen(inline_js = r#"
const SOURCES = ["request", "system"];
const KINDS = ["initial", "system", "tools", "system-and-tools"];

class Records {
  constructor(numbers, values) {
    this.numbers = numbers;
    this.values = values;
    this.at = 0;
  }
  next() {
    return this.numbers[this.at++];
  }
  value() {
    return this.values[this.numbers[this.at++]];
  }
  // A turn or step: -1 for none.
  optional() {
    const value = this.numbers[this.at++];
    return value < 0 ? undefined : value;
  }
  snapshot() {
    const config = this.next(), system = this.value(), tools = this.value();
    return config < 0 ? { system, tools } : { config: this.values[config], system, tools };
  }
  // A change after its presence flag.
  change() {
    if (this.next() === 0) return undefined;
    const seq = this.next(), time = this.next(), kind = KINDS[this.next()];
    if (this.next() === 0) return { seq, time, kind };
    return { seq, time, kind, previous: this.snapshot() };
  }
  header() {
    const source = SOURCES[this.next()], seq = this.next(), time = this.next();
    const prompt = this.snapshot(), change = this.change();
    const turn = this.optional(), step = this.optional();
    const key = source + ":" + seq;
    if (change === undefined) return { key, source, seq, time, prompt, turn, step };
    return { key, source, seq, time, prompt, change, turn, step };
  }
  request() {
    const request = { startSeq: this.next(), turn: this.optional(), step: this.optional() };
    if (this.next() === 1) request.prompt = this.snapshot();
    const config = this.next();
    if (config >= 0) request.requestConfig = this.values[config];
    const change = this.change();
    if (change !== undefined) request.promptChange = change;
    return request;
  }
  node() {
    const seq = this.next(), time = this.next(), turn = this.next(), step = this.next();
    return { seq, time, turn, step, text: this.value(), update: this.next() === 1 };
  }
  list(count, read) {
    const items = new Array(count);
    for (let i = 0; i < count; i++) items[i] = read.call(this);
    return items;
  }
}

// A Trajectory from `numbers` (from slot `at`): `headers` header facts, `requests` requests,
// then `prompts` system prompt nodes.
export function promptfoldTrajectory(numbers, values, at, headers, requests, prompts) {
  const records = new Records(numbers, values);
  records.at = at;
  return {
    headers: records.list(headers, records.header),
    requests: records.list(requests, records.request),
    systemPrompts: records.list(prompts, records.node),
  };
}
"#)]
extern "C" {
    #[wasm_bindgen(js_name = promptfoldTrajectory)]
    fn make_trajectory(
        numbers: &[f64],
        values: &js_sys::Array,
        at: u32,
        headers: u32,
        requests: u32,
        prompts: u32,
    ) -> JsValue;
}

/// Builds `trajectory` as a JS object from the numbers `out` holds from slot `at` on (the
/// caller's own numbers come before).
pub(crate) fn trajectory_to_js(trajectory: &Trajectory, out: &mut Outgoing) -> JsValue {
    let at = out.numbers.len();
    for header in &trajectory.headers {
        pack_header(header, out);
    }
    for request in &trajectory.requests {
        pack_request(request, out);
    }
    for node in &trajectory.system_prompts {
        pack_node(node, out);
    }
    make_trajectory(
        &out.numbers,
        &out.values,
        super::cards::count(at),
        super::cards::count(trajectory.headers.len()),
        super::cards::count(trajectory.requests.len()),
        super::cards::count(trajectory.system_prompts.len()),
    )
}

fn pack_header(header: &HeaderFact, out: &mut Outgoing) {
    out.extend([
        source_slot(header.source),
        Outgoing::integer(header.seq),
        Outgoing::time(header.time),
    ]);
    pack_snapshot(&header.prompt, out);
    pack_change(header.change.as_ref(), out);
    out.extend([
        Outgoing::optional(header.turn),
        Outgoing::optional(header.step),
    ]);
}

fn pack_request(request: &Request, out: &mut Outgoing) {
    out.extend([
        Outgoing::integer(request.start_seq),
        Outgoing::optional(request.turn),
        Outgoing::optional(request.step),
    ]);
    match &request.prompt {
        Some(prompt) => {
            out.extend([1.0]);
            pack_snapshot(prompt, out);
        }
        None => out.extend([0.0]),
    }
    let config = out.optional_json(request.request_config.as_ref());
    out.extend([config]);
    pack_change(request.prompt_change.as_ref(), out);
}

fn pack_node(node: &SystemPromptNode, out: &mut Outgoing) {
    let text = out.text(&node.text);
    out.extend([
        Outgoing::integer(node.seq),
        Outgoing::time(node.time),
        node.turn as f64,
        node.step as f64,
        text,
        f64::from(u8::from(node.update)),
    ]);
}

fn pack_snapshot(snapshot: &PromptSnapshot, out: &mut Outgoing) {
    let config = out.optional_json(snapshot.config.as_ref());
    let system = out.text(&snapshot.system);
    let tools = out.json(&snapshot.tools);
    out.extend([config, system, tools]);
}

fn pack_change(change: Option<&PromptChange>, out: &mut Outgoing) {
    let Some(change) = change else {
        out.extend([0.0]);
        return;
    };
    let kind = match change.kind {
        ChangeKind::Initial => 0.0,
        ChangeKind::System => 1.0,
        ChangeKind::Tools => 2.0,
        ChangeKind::SystemAndTools => 3.0,
    };
    out.extend([
        1.0,
        Outgoing::integer(change.seq),
        Outgoing::time(change.time),
        kind,
    ]);
    match &change.previous {
        Some(previous) => {
            out.extend([1.0]);
            pack_snapshot(previous, out);
        }
        None => out.extend([0.0]),
    }
}
