//! Random session logs for the property tests.
//!
//! [`valid_log`] builds logs the harness would admit (BEHAVIOUR.md section 1): strictly increasing
//! seqs (contiguous, sometimes with gaps), turn/step structure, appends of the four surface types,
//! request headers, and replace ops whose endpoints name surface nodes alive at that moment, start
//! not after end in surface order. The generator keeps the live surface (node seqs in surface
//! order; a replace puts its node in place of the range) to pick those endpoints.
//!
//! A log is drawn as a [`Plan`] (a list of [`Action`]s, so proptest shrinks actions, not JSON)
//! and built into `serde_json::Value` events; tests turn them into text and parse them with
//! `promptfold::parse_events`, so the parse path is exercised too.
//!
//! [`hostile_text`] gives invalid or hostile input: mutated valid logs (dangling, reversed and
//! too-new endpoints, duplicate or decreasing seqs, wrong shapes for every field, non-objects,
//! huge numbers, floats as seq), broken JSON, random JSON trees and random text.

use proptest::prelude::*;
use proptest::sample::Index;
use serde_json::{json, Map, Value};

use promptfold::{parse_events, SessionEvent};

/// `Number.MAX_SAFE_INTEGER`.
pub const MAX_SAFE: i64 = (1 << 53) - 1;

/// Prompt texts: few and short, so equal texts (and empty ones) recur.
const TEXTS: &[&str] = &[
    "",
    "A",
    "B",
    "C",
    "# Rules\n- read first",
    "Be brief.",
    "ünï ✓",
];

/// How a log begins.
#[derive(Clone, Copy, Debug)]
pub enum Opening {
    /// turn 1, step 1, then a nonempty system prompt.
    SystemInStep,
    /// A system prompt at session level (`data.turn: null`), before any turn.
    SessionSystem,
    /// turn 1, step 1, then an empty system prompt (`content: []`).
    EmptySystem,
    /// turn 1, step 1, a user message and a tool result, then a compaction replacing both: the
    /// first relevant event is a replace.
    ReplaceFirst,
    /// Nothing special.
    Nothing,
}

/// One step of a random log.
#[derive(Clone, Debug)]
pub enum Action {
    /// End the current step (if any) and start the next one.
    NextStep,
    /// End the current turn; with `open`, start the next turn (without a step yet).
    NextTurn { open: bool },
    /// Append a system message.
    System { text: u8, shape: u8 },
    /// Append a user message.
    User { text: u8 },
    /// Append an assistant message.
    Assistant,
    /// Append a tool result.
    ToolResult,
    /// A request header.
    Header {
        reason: u8,
        starts_series: bool,
        tools: u8,
        config: u8,
    },
    /// A compaction: a user message replacing a live range (with `recent`, among the last few
    /// nodes, so that windows cut mid-log do not always reach unloaded nodes).
    Compaction {
        start: Index,
        len: Index,
        recent: bool,
    },
    /// A pruned tool result: a tool result replacing one live tool result.
    Prune { pick: Index },
    /// A head rewrite: a system message replacing a live system node (and maybe a few after).
    HeadRewrite {
        text: u8,
        shape: u8,
        pick: Index,
        len: u8,
    },
    /// A system prompt (and maybe a header) for the next step, or the next turn's first step,
    /// committed before that step's `step/start` (and turn's `turn/start`): its card's anchor
    /// moves when the start arrives.
    Ahead {
        text: u8,
        shape: u8,
        new_turn: bool,
        header: bool,
    },
    /// Skip some seqs.
    Gap { by: u8 },
    /// An event of a type the interpreter does not read.
    Other { kind: u8 },
}

/// Everything a random log is built from.
#[derive(Clone, Debug)]
pub struct Plan {
    pub first_seq: i64,
    pub first_time: i64,
    pub fractional_time: bool,
    pub opening: Opening,
    pub actions: Vec<Action>,
}

fn opening() -> impl Strategy<Value = Opening> {
    prop_oneof![
        5 => Just(Opening::SystemInStep),
        1 => Just(Opening::SessionSystem),
        1 => Just(Opening::EmptySystem),
        1 => Just(Opening::ReplaceFirst),
        1 => Just(Opening::Nothing),
    ]
}

fn action() -> impl Strategy<Value = Action> {
    prop_oneof![
        8 => Just(Action::NextStep),
        4 => any::<bool>().prop_map(|open| Action::NextTurn { open }),
        10 => (any::<u8>(), any::<u8>()).prop_map(|(text, shape)| Action::System { text, shape }),
        8 => any::<u8>().prop_map(|text| Action::User { text }),
        6 => Just(Action::Assistant),
        8 => Just(Action::ToolResult),
        8 => (any::<u8>(), any::<bool>(), any::<u8>(), any::<u8>()).prop_map(
            |(reason, starts_series, tools, config)| Action::Header {
                reason,
                starts_series,
                tools,
                config,
            }
        ),
        6 => (any::<Index>(), any::<Index>(), prop::bool::weighted(0.6))
            .prop_map(|(start, len, recent)| Action::Compaction { start, len, recent }),
        5 => any::<Index>().prop_map(|pick| Action::Prune { pick }),
        7 => (any::<u8>(), any::<u8>(), any::<Index>(), any::<u8>()).prop_map(
            |(text, shape, pick, len)| Action::HeadRewrite {
                text,
                shape,
                pick,
                len
            }
        ),
        3 => (any::<u8>(), any::<u8>(), any::<bool>(), any::<bool>()).prop_map(
            |(text, shape, new_turn, header)| Action::Ahead {
                text,
                shape,
                new_turn,
                header
            }
        ),
        2 => any::<u8>().prop_map(|by| Action::Gap { by }),
        4 => any::<u8>().prop_map(|kind| Action::Other { kind }),
    ]
}

fn first_seq() -> impl Strategy<Value = i64> {
    prop_oneof![
        4 => 0i64..3,
        4 => 1i64..2_000,
        1 => -2_000i64..0,
        1 => (MAX_SAFE - 100_000)..(MAX_SAFE - 20_000),
    ]
}

/// A plan with up to `max_actions` actions after the opening.
pub fn plan(max_actions: usize) -> impl Strategy<Value = Plan> {
    plan_with(opening(), max_actions)
}

/// A plan with the given opening strategy.
pub fn plan_with(
    opening: impl Strategy<Value = Opening>,
    max_actions: usize,
) -> impl Strategy<Value = Plan> {
    (
        first_seq(),
        1_600_000_000_000i64..1_800_000_000_000,
        prop::bool::weighted(0.15),
        opening,
        prop::collection::vec(action(), 0..=max_actions),
    )
        .prop_map(
            |(first_seq, first_time, fractional_time, opening, actions)| Plan {
                first_seq,
                first_time,
                fractional_time,
                opening,
                actions,
            },
        )
}

/// A valid log of at most `max_actions` actions (a few more events: starts, ends).
pub fn valid_log(max_actions: usize) -> impl Strategy<Value = Vec<Value>> {
    plan(max_actions).prop_map(|plan| build(&plan))
}

/// A valid log whose first relevant event is a replace.
pub fn replace_first_log(max_actions: usize) -> impl Strategy<Value = Vec<Value>> {
    plan_with(Just(Opening::ReplaceFirst), max_actions).prop_map(|plan| build(&plan))
}

/// A valid log and a cut index into it (`0..=len`): 0 (the whole log) about a third of the
/// time, since a window cut mid-log is usually uncertain for good.
pub fn log_and_cut(max_actions: usize) -> impl Strategy<Value = (Vec<Value>, usize)> {
    (
        valid_log(max_actions),
        prop::bool::weighted(0.3),
        any::<Index>(),
    )
        .prop_map(|(log, whole, cut)| {
            let at = if whole { 0 } else { cut.index(log.len() + 1) };
            (log, at)
        })
}

/// What a live surface node is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum NodeKind {
    System,
    User,
    Assistant,
    Tool,
}

/// Builds the events of a plan.
pub fn build(plan: &Plan) -> Vec<Value> {
    let mut b = Builder {
        events: Vec::new(),
        seq: plan.first_seq,
        first_time: plan.first_time,
        fractional_time: plan.fractional_time,
        turn: 0,
        step: 0,
        in_turn: false,
        in_step: false,
        surface: Vec::new(),
        headers: 0,
    };
    match plan.opening {
        Opening::SystemInStep => {
            b.ensure_step();
            b.system_append(1, 0);
        }
        Opening::SessionSystem => b.system_append(4, 1),
        Opening::EmptySystem => {
            b.ensure_step();
            b.system_append(0, 0);
        }
        Opening::ReplaceFirst => {
            b.ensure_step();
            b.user(2);
            b.tool_result();
            let (start, end) = (b.surface[0].0, b.surface[1].0);
            b.replace_range("user/message", 0, 1, user_message("checkpoint"), start, end);
        }
        Opening::Nothing => {}
    }
    for action in &plan.actions {
        b.act(action);
    }
    b.events
}

struct Builder {
    events: Vec<Value>,
    seq: i64,
    first_time: i64,
    fractional_time: bool,
    turn: u64,
    step: u64,
    in_turn: bool,
    in_step: bool,
    /// Live surface nodes in surface order.
    surface: Vec<(i64, NodeKind)>,
    headers: usize,
}

impl Builder {
    fn push(&mut self, kind: &str, data: Value, surface_op: Option<Value>) -> i64 {
        let seq = self.seq;
        self.seq += 1;
        let n = self.events.len() as i64;
        let ms = self.first_time + 17 * n + seq.rem_euclid(5);
        let time = if self.fractional_time {
            json!(ms as f64 + 0.25)
        } else {
            json!(ms)
        };
        let mut event = Map::new();
        // Sometimes `data` before `type`: the parser must not depend on key order.
        let data_first = seq.rem_euclid(7) == 3;
        if data_first {
            event.insert("data".into(), data.clone());
        }
        event.insert("seq".into(), json!(seq));
        event.insert("time".into(), time);
        event.insert("type".into(), json!(kind));
        if !data_first {
            event.insert("data".into(), data);
        }
        if let Some(op) = surface_op {
            event.insert("surfaceOp".into(), op);
        }
        self.events.push(Value::Object(event));
        seq
    }

    fn location(&self) -> Map<String, Value> {
        let mut data = Map::new();
        if self.in_turn {
            data.insert("turn".into(), json!(self.turn));
            if self.in_step {
                data.insert("step".into(), json!(self.step));
            }
        } else {
            data.insert("turn".into(), Value::Null);
        }
        data
    }

    fn start_turn(&mut self) {
        self.turn += 1;
        self.step = 0;
        self.in_turn = true;
        self.in_step = false;
        self.push("turn/start", json!({ "turn": self.turn }), None);
    }

    fn end_step(&mut self) {
        if self.in_step {
            self.push(
                "step/end",
                json!({ "turn": self.turn, "step": self.step }),
                None,
            );
            self.in_step = false;
        }
    }

    fn end_turn(&mut self) {
        self.end_step();
        if self.in_turn {
            self.push(
                "turn/end",
                json!({ "turn": self.turn, "reason": { "kind": "completed" } }),
                None,
            );
            self.in_turn = false;
        }
    }

    fn start_step(&mut self) {
        self.end_step();
        if !self.in_turn {
            self.start_turn();
        }
        self.step += 1;
        self.in_step = true;
        self.push(
            "step/start",
            json!({ "turn": self.turn, "step": self.step }),
            None,
        );
    }

    fn ensure_step(&mut self) {
        if !self.in_step {
            self.start_step();
        }
    }

    fn system_data(&self, text: u8, shape: u8) -> Value {
        self.system_data_in(self.location(), text, shape)
    }

    fn system_data_in(&self, mut data: Map<String, Value>, text: u8, shape: u8) -> Value {
        data.insert(
            "message".into(),
            json!({
                "role": "system",
                "content": content(pick_text(text), shape),
                "source": { "kind": "plugin", "plugin": "@deepseek-ai/dsh-system-prompt" }
            }),
        );
        Value::Object(data)
    }

    fn system_append(&mut self, text: u8, shape: u8) {
        let data = self.system_data(text, shape);
        let seq = self.push("system/message", data, Some(json!("append")));
        self.surface.push((seq, NodeKind::System));
    }

    fn user(&mut self, text: u8) {
        let message = user_message(pick_text(text.wrapping_add(1)));
        let seq = self.push("user/message", message, Some(json!("append")));
        self.surface.push((seq, NodeKind::User));
    }

    fn tool_data(&self, text: &str) -> Value {
        let mut data = self.location();
        data.insert(
            "message".into(),
            json!({
                "role": "user",
                "content": [{
                    "type": "tool-result", "toolCallId": "call-1",
                    "content": [{ "type": "text", "text": text }], "isError": false
                }]
            }),
        );
        Value::Object(data)
    }

    fn tool_result(&mut self) {
        self.ensure_step();
        let data = self.tool_data("ok");
        let seq = self.push("tool/result", data, Some(json!("append")));
        self.surface.push((seq, NodeKind::Tool));
    }

    fn assistant(&mut self) {
        self.ensure_step();
        let mut data = self.location();
        data.insert(
            "message".into(),
            json!({ "role": "assistant", "content": [{ "type": "text", "text": "answer" }] }),
        );
        let seq = self.push(
            "assistant/message",
            Value::Object(data),
            Some(json!("append")),
        );
        self.surface.push((seq, NodeKind::Assistant));
    }

    /// Emits `kind` replacing the live surface range `from..=to` (indices into the surface).
    fn replace_range(
        &mut self,
        kind: &str,
        from: usize,
        to: usize,
        data: Value,
        start: i64,
        end: i64,
    ) {
        let op = json!({ "op": "replace", "startSeq": start, "endSeq": end });
        let seq = self.push(kind, data, Some(op));
        let node = match kind {
            "system/message" => NodeKind::System,
            "tool/result" => NodeKind::Tool,
            "assistant/message" => NodeKind::Assistant,
            _ => NodeKind::User,
        };
        self.surface.splice(from..=to, [(seq, node)]);
    }

    fn act(&mut self, action: &Action) {
        match action {
            Action::NextStep => self.start_step(),
            Action::NextTurn { open } => {
                self.end_turn();
                if *open {
                    self.start_turn();
                }
            }
            Action::System { text, shape } => self.system_append(*text, *shape),
            Action::User { text } => self.user(*text),
            Action::Assistant => self.assistant(),
            Action::ToolResult => self.tool_result(),
            Action::Header {
                reason,
                starts_series,
                tools,
                config,
            } => {
                let reason = if self.headers == 0 && reason % 4 != 3 {
                    "initial"
                } else {
                    ["initial", "resume", "change", "series"][usize::from(reason % 4)]
                };
                let mut header = Map::new();
                if let Some(config) = config_of(*config) {
                    header.insert("config".into(), config);
                }
                if let Some(tools) = tools_of(*tools) {
                    header.insert("tools".into(), tools);
                }
                let mut data = json!({ "header": header, "reason": reason });
                if *starts_series {
                    data["startsSeries"] = json!(true);
                }
                self.headers += 1;
                self.push("request/header", data, None);
            }
            Action::Compaction { start, len, recent } => {
                let live = self.surface.len();
                if live == 0 {
                    return self.user(0);
                }
                let (from, to) = if *recent {
                    let from = live - 1 - start.index(live.min(6));
                    (from, from + len.index((live - from).min(3)))
                } else {
                    let from = start.index(live);
                    (from, from + len.index(live - from))
                };
                let (s, e) = (self.surface[from].0, self.surface[to].0);
                self.replace_range("user/message", from, to, user_message("checkpoint"), s, e);
            }
            Action::Prune { pick } => {
                let tools: Vec<usize> = (0..self.surface.len())
                    .filter(|i| self.surface[*i].1 == NodeKind::Tool)
                    .collect();
                if tools.is_empty() {
                    return self.tool_result();
                }
                let at = tools[pick.index(tools.len())];
                let s = self.surface[at].0;
                self.ensure_step();
                let data = self.tool_data("[pruned]");
                self.replace_range("tool/result", at, at, data, s, s);
            }
            Action::HeadRewrite {
                text,
                shape,
                pick,
                len,
            } => {
                let systems: Vec<usize> = (0..self.surface.len())
                    .filter(|i| self.surface[*i].1 == NodeKind::System)
                    .collect();
                let from = match (systems.is_empty(), self.surface.is_empty()) {
                    (false, _) => systems[pick.index(systems.len())],
                    (true, false) => pick.index(self.surface.len()),
                    (true, true) => return self.system_append(*text, *shape),
                };
                let to = (from + usize::from(len % 4 / 3 + len % 2)).min(self.surface.len() - 1);
                let (s, e) = (self.surface[from].0, self.surface[to].0);
                let data = self.system_data(*text, *shape);
                self.replace_range("system/message", from, to, data, s, e);
            }
            Action::Ahead {
                text,
                shape,
                new_turn,
                header,
            } => {
                self.end_step();
                let (turn, step) = if *new_turn || !self.in_turn {
                    self.end_turn();
                    (self.turn + 1, 1)
                } else {
                    (self.turn, self.step + 1)
                };
                let mut at = Map::new();
                at.insert("turn".into(), json!(turn));
                at.insert("step".into(), json!(step));
                let data = self.system_data_in(at, *text, *shape);
                let seq = self.push("system/message", data, Some(json!("append")));
                self.surface.push((seq, NodeKind::System));
                if *header {
                    let reason = if self.headers == 0 {
                        "initial"
                    } else {
                        "change"
                    };
                    self.headers += 1;
                    self.push(
                        "request/header",
                        json!({ "header": { "config": {}, "tools": [] }, "reason": reason }),
                        None,
                    );
                }
                if turn != self.turn {
                    self.start_turn();
                }
                self.start_step();
            }
            Action::Gap { by } => self.seq += 1 + i64::from(by % 5),
            Action::Other { kind } => {
                let mut data = self.location();
                match kind % 5 {
                    0 => {
                        data.insert("callId".into(), json!("call-1"));
                        self.push("tool/call", Value::Object(data), None);
                    }
                    1 => {
                        self.push(
                            "request/context",
                            json!({ "model": "m", "contextWindow": 128000 }),
                            None,
                        );
                    }
                    2 => {
                        // An unknown type at session level, with unknown fields.
                        self.push(
                            "agent/inbox/spliced",
                            json!({ "turn": null, "items": [1, { "x": [] }] }),
                            None,
                        );
                    }
                    3 => {
                        data.insert("compactionId".into(), json!("c-1"));
                        self.push("compaction/start", Value::Object(data), None);
                    }
                    _ => {
                        self.push("session/end-seed", json!({}), None);
                    }
                }
            }
        }
    }
}

fn pick_text(text: u8) -> &'static str {
    TEXTS[usize::from(text) % TEXTS.len()]
}

fn user_message(text: &str) -> Value {
    json!({ "role": "user", "content": [{ "type": "text", "text": text }], "source": { "kind": "user" } })
}

/// A `content` array whose text blocks join to `text`, in one of several shapes.
fn content(text: &str, shape: u8) -> Value {
    let mid = text
        .char_indices()
        .map(|(i, _)| i)
        .nth(text.chars().count() / 2)
        .unwrap_or(text.len());
    let (a, b) = text.split_at(mid);
    match shape % 4 {
        0 if text.is_empty() => json!([]),
        0 => json!([{ "type": "text", "text": text }]),
        1 => json!([{ "type": "text", "text": text }]),
        2 => json!([
            { "type": "text", "text": a },
            { "type": "image", "url": "x.png", "text": "not prompt text" },
            { "type": "text", "text": b }
        ]),
        _ => json!([
            { "text": a, "type": "text" },
            { "type": "reasoning", "text": "ignored" },
            { "type": "text", "text": b, "cache": true },
            { "type": "text", "text": "" }
        ]),
    }
}

fn config_of(config: u8) -> Option<Value> {
    match config % 4 {
        0 => None,
        1 => Some(json!({ "provider": "deepseek", "model": "deepseek-chat" })),
        2 => Some(json!({ "model": "deepseek-chat", "provider": "deepseek" })),
        _ => Some(json!({ "provider": "deepseek", "model": "deepseek-reasoner" })),
    }
}

fn tools_of(tools: u8) -> Option<Value> {
    let read =
        json!({ "name": "read", "description": "Read a file", "parameters": { "type": "object" } });
    let read_reordered =
        json!({ "parameters": { "type": "object" }, "description": "Read a file", "name": "read" });
    let write = json!({ "name": "write", "description": "Write a file", "parameters": { "type": "object", "n": 1.0 } });
    match tools % 8 {
        0 => None,
        1 => Some(json!([])),
        2 | 3 => Some(json!([read, write])),
        4 => Some(json!([read_reordered, write])),
        5 => Some(json!([write, read])),
        6 => Some(json!({ "not": "an array" })),
        _ => Some(json!([read])),
    }
}

/// The events as a JSON array text.
pub fn array_text(events: &[Value]) -> String {
    Value::Array(events.to_vec()).to_string()
}

/// The events as JSON lines.
pub fn lines_text(events: &[Value]) -> String {
    let mut text = String::new();
    for event in events {
        text.push_str(&event.to_string());
        text.push('\n');
    }
    text
}

/// Parses valid events through the text path (an array, or JSON lines).
pub fn parse(events: &[Value], as_lines: bool) -> Vec<SessionEvent> {
    let text = if as_lines && !events.is_empty() {
        lines_text(events)
    } else {
        array_text(events)
    };
    match parse_events(&text) {
        Ok(parsed) => parsed,
        Err(err) => panic!("a generated valid log was rejected: {err}\n{text}"),
    }
}

/// One change to a valid log that makes it invalid, odd or hostile.
#[derive(Clone, Debug)]
pub struct Mutation {
    pub at: Index,
    pub kind: u8,
    pub param: u16,
}

fn mutation() -> impl Strategy<Value = Mutation> {
    (any::<Index>(), any::<u8>(), any::<u16>()).prop_map(|(at, kind, param)| Mutation {
        at,
        kind,
        param,
    })
}

fn choose(values: Vec<Value>, param: u16) -> Value {
    let i = usize::from(param) % values.len();
    values[i].clone()
}

/// A value nested `depth` arrays deep.
fn nested(depth: usize) -> Value {
    let mut value = json!(1);
    for _ in 0..depth {
        value = json!([value, { "seq": 1 }]);
    }
    value
}

/// Applies one mutation. Every kind is hostile in its own way; some still parse.
pub fn mutate(events: &mut Vec<Value>, m: &Mutation) {
    if events.is_empty() {
        events.push(json!({ "seq": 1 }));
    }
    let i = m.at.index(events.len());
    let seq = events[i]["seq"].as_i64().unwrap_or(0);
    let before = if i > 0 {
        events[i - 1]["seq"].as_i64().unwrap_or(0)
    } else {
        seq
    };
    let p = m.param;
    let set = |events: &mut Vec<Value>, key: &str, value: Value| {
        if let Some(object) = events[i].as_object_mut() {
            object.insert(key.to_owned(), value);
        }
    };
    let set_data = |events: &mut Vec<Value>, key: &str, value: Value| {
        if !events[i].is_object() {
            return;
        }
        if !events[i]["data"].is_object() {
            events[i]["data"] = json!({});
        }
        events[i]["data"][key] = value;
    };
    let replace =
        |start: Value, end: Value| json!({ "op": "replace", "startSeq": start, "endSeq": end });
    match m.kind % 32 {
        0 => {
            if let Some(object) = events[i].as_object_mut() {
                object.remove("seq");
            }
        }
        1 => set(events, "seq", json!(before)),
        2 => set(events, "seq", json!(before - 1 - i64::from(p % 3))),
        3 => set(events, "seq", json!(seq as f64 + 0.5)),
        4 => set(events, "seq", json!(seq.to_string())),
        5 => set(events, "seq", json!(1e300)),
        6 => set(events, "seq", json!(9_007_199_254_740_992u64)),
        7 => set(events, "seq", json!(-9_007_199_254_740_992.0f64)),
        8 => set(
            events,
            "seq",
            choose(vec![Value::Null, json!(true), json!([]), json!({})], p),
        ),
        // Dangling endpoints: seqs that name no live surface node.
        9 => {
            let dangling = choose(
                vec![
                    json!(seq - 1),
                    json!(before - 1000),
                    json!(-MAX_SAFE),
                    json!(seq - 1 - i64::from(p % 40)),
                ],
                p / 4,
            );
            let other = json!(seq - 1 - i64::from(p % 7));
            let op = if p % 2 == 0 {
                replace(dangling, other)
            } else {
                replace(other, dangling)
            };
            set(events, "surfaceOp", op);
        }
        // Endpoints at or after the event's own seq.
        10 => {
            let at = json!(seq + i64::from(p % 3));
            let op = if p % 2 == 0 {
                replace(at, json!(seq - 1))
            } else {
                replace(json!(seq - 1), at)
            };
            set(events, "surfaceOp", op);
        }
        // Reversed endpoints.
        11 => {
            let op = match events[i].get("surfaceOp") {
                Some(Value::Object(op)) => replace(
                    op.get("endSeq").cloned().unwrap_or(Value::Null),
                    op.get("startSeq").cloned().unwrap_or(Value::Null),
                ),
                _ => replace(json!(before), json!(before - 1 - i64::from(p % 9))),
            };
            set(events, "surfaceOp", op);
        }
        12 => set(
            events,
            "surfaceOp",
            choose(
                vec![
                    json!(5),
                    json!("replace"),
                    json!("prepend"),
                    json!(""),
                    json!("Append"),
                    json!({ "op": "append" }),
                    json!({ "op": "replace" }),
                    json!({ "op": "replace", "startSeq": before }),
                    json!({ "op": "replace", "startSeq": "1", "endSeq": before }),
                    json!({ "op": "replace", "startSeq": before, "endSeq": 1.5 }),
                    json!({ "op": "Replace", "startSeq": before, "endSeq": before }),
                    json!({ "startSeq": before, "endSeq": before }),
                    json!({ "op": "replace", "startSeq": 1e300, "endSeq": before }),
                    json!({ "op": "replace", "startSeq": -9_007_199_254_740_993.0f64, "endSeq": before }),
                    json!({ "op": "replace", "startSeq": null, "endSeq": [] }),
                    json!([]),
                    json!(true),
                    json!({}),
                    Value::Null,
                ],
                p,
            ),
        ),
        13 => set(
            events,
            "data",
            choose(
                vec![
                    json!(5),
                    json!("x"),
                    json!([]),
                    Value::Null,
                    json!(true),
                    json!({}),
                ],
                p,
            ),
        ),
        14 | 15 => {
            let key = if m.kind % 32 == 14 { "turn" } else { "step" };
            let value = choose(
                vec![
                    json!(-1),
                    json!(1.5),
                    json!("1"),
                    json!(1e300),
                    Value::Null,
                    json!([]),
                    json!(true),
                    json!(9_007_199_254_740_993u64),
                    json!(u64::MAX),
                    json!(0),
                    json!(2.0),
                ],
                p,
            );
            set_data(events, key, value);
        }
        16 => {
            let value = choose(
                vec![
                    json!("x"),
                    json!([]),
                    Value::Null,
                    json!({ "content": 5 }),
                    json!({ "content": {} }),
                    json!({ "content": [5, "x", null, [], { "type": "text", "text": 5 },
                        { "type": 5, "text": "a" }, { "type": "text" }, { "text": "b" }] }),
                    json!({ "role": "system" }),
                ],
                p,
            );
            set_data(events, "message", value);
        }
        17 => {
            let value = choose(
                vec![
                    json!(5),
                    json!([]),
                    Value::Null,
                    json!({ "config": 5, "tools": {} }),
                    json!({ "tools": "x" }),
                    json!({ "config": [1, 2], "tools": [1.0, 1e21, 1.5e-7, { "b": 1, "1": 2, "0": [] }] }),
                    json!({ "config": null, "tools": null }),
                ],
                p,
            );
            set_data(events, "header", value);
        }
        18 => {
            let value = choose(
                vec![
                    json!(5),
                    Value::Null,
                    json!("weird"),
                    json!(["initial"]),
                    json!("INITIAL"),
                ],
                p,
            );
            set_data(events, "reason", value);
            set_data(
                events,
                "startsSeries",
                choose(
                    vec![json!("yes"), json!(1), Value::Null, json!(false)],
                    p / 8,
                ),
            );
        }
        19 => set(
            events,
            "type",
            choose(
                vec![
                    json!(5),
                    Value::Null,
                    json!(""),
                    json!("system/message"),
                    json!("request/header"),
                    json!("turn/start"),
                    json!("step/start"),
                    json!("step/end"),
                    json!("turn/end"),
                    json!("SYSTEM/MESSAGE"),
                    json!(["system/message"]),
                ],
                p,
            ),
        ),
        20 => set(
            events,
            "time",
            choose(
                vec![
                    json!("x"),
                    json!(1e308),
                    json!(-1),
                    json!(1.5),
                    Value::Null,
                    json!(-0.0),
                    json!([]),
                    json!(1e-320),
                    json!(9_007_199_254_740_993u64),
                ],
                p,
            ),
        ),
        21 => {
            events[i] = choose(
                vec![
                    json!(5),
                    json!("x"),
                    Value::Null,
                    json!([]),
                    json!(true),
                    json!(1e300),
                    json!([{ "seq": seq }]),
                ],
                p,
            )
        }
        22 => {
            if let Some(object) = events[i].as_object_mut() {
                object.remove("data");
            }
        }
        23 => set(
            events,
            "extra",
            json!({ "sourceEventSeqs": [1, 2], "ignorable": true, "": null, "seq": "shadow" }),
        ),
        24 => {
            if i + 1 < events.len() {
                events.swap(i, i + 1);
            }
        }
        25 => {
            let copy = events[i].clone();
            events.insert(i, copy);
        }
        26 => {
            events.remove(i);
        }
        27 => {
            let text = "x".repeat(usize::from(p % 4096));
            set_data(
                events,
                "message",
                json!({ "content": [{ "type": "text", "text": text }] }),
            );
        }
        28 => set(events, "extra", nested(usize::from(p % 300))),
        29 => set_data(events, "turn", Value::Null),
        30 => {
            // A replace on a type that is not a surface type (still relevant to the fold).
            set(events, "type", json!("step/end"));
            set(events, "surfaceOp", replace(json!(before), json!(before)));
        }
        _ => {
            // Seqs far apart: huge gaps, negative, near the safe limits.
            let value = choose(
                vec![
                    json!(MAX_SAFE),
                    json!(-MAX_SAFE),
                    json!(seq + 1_000_000_000),
                    json!(0),
                ],
                p,
            );
            set(events, "seq", value);
        }
    }
}

/// Turns text into broken text in one of a few ways (or leaves it).
fn mangle(text: String, how: u8, param: u16) -> String {
    let cut = |text: &str, at: usize| -> String {
        let mut at = at.min(text.len());
        while !text.is_char_boundary(at) {
            at -= 1;
        }
        text[..at].to_owned()
    };
    let at = if text.is_empty() {
        0
    } else {
        usize::from(param) % text.len()
    };
    match how % 16 {
        0 => cut(&text, at),
        1 => {
            let mut text = cut(&text, at);
            text.push_str(
                ["}", "]", ",", ":", "\"", "\\", "{", "nul", "\u{feff}"][usize::from(param % 9)],
            );
            text
        }
        2 => text.replacen("\"seq\":", "\"seq\":1e999,\"x\":", 1),
        3 => text.replacen(
            "\"seq\":",
            "\"seq\":123456789012345678901234567890,\"x\":",
            1,
        ),
        4 => text.replacen("\"seq\":", "\"seq\":-1e999,\"x\":", 1),
        5 => format!("{text} trailing"),
        6 => text.replace('\n', "\r\n"),
        7 => format!("\n\n  {text}"),
        _ => text,
    }
}

/// Invalid or hostile JSON text (some of it still accepted).
pub fn hostile_text() -> impl Strategy<Value = String> {
    let mutated = (
        plan(25),
        prop::collection::vec(mutation(), 0..4),
        any::<bool>(),
        any::<u8>(),
        any::<u16>(),
    )
        .prop_map(|(plan, mutations, as_lines, how, param)| {
            let mut events = build(&plan);
            for m in &mutations {
                mutate(&mut events, m);
            }
            let text = if as_lines {
                lines_text(&events)
            } else {
                array_text(&events)
            };
            mangle(text, how, param)
        });
    let top_level = prop::sample::select(vec![
        "42",
        "\"x\"",
        "null",
        "true",
        "{}",
        "[]",
        "",
        "   \n ",
        "[null]",
        "[[]]",
        "[1e999]",
        "{\"seq\":1}\n42",
        "{\"seq\":1}\n[]",
        "{\"seq\":1} {\"seq\":2}",
        "{\n\"seq\": 1\n}",
        "[{\"seq\":1}] x",
        "\u{feff}[]",
        "[{\"seq\":1,\"seq\":\"2\"}]",
        "[{\"seq\":1,\"surfaceOp\":{\"op\":\"replace\",\"startSeq\":0,\"endSeq\":0,\"op\":\"append\"}}]",
    ])
    .prop_map(str::to_owned);
    prop_oneof![
        6 => mutated,
        2 => json_tree().prop_map(|value| value.to_string()),
        1 => top_level,
        1 => ".{0,200}",
    ]
}

/// Random JSON trees built from the words events use, so they often look like events.
pub fn json_tree() -> impl Strategy<Value = Value> {
    let word = prop::sample::select(vec![
        "seq",
        "time",
        "type",
        "data",
        "surfaceOp",
        "op",
        "startSeq",
        "endSeq",
        "turn",
        "step",
        "message",
        "content",
        "text",
        "header",
        "tools",
        "config",
        "reason",
        "startsSeries",
        "system/message",
        "request/header",
        "user/message",
        "step/start",
        "turn/start",
        "append",
        "replace",
        "initial",
        "change",
        "x",
    ]);
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        (-5i64..50).prop_map(|n| json!(n)),
        any::<i64>().prop_map(|n| json!(n)),
        any::<f64>().prop_map(|x| json!(x)),
        word.clone().prop_map(|w| json!(w)),
    ];
    leaf.prop_recursive(4, 64, 6, move |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..6).prop_map(Value::Array),
            prop::collection::vec((word.clone(), inner), 0..6).prop_map(|entries| Value::Object(
                entries
                    .into_iter()
                    .map(|(k, v)| (k.to_owned(), v))
                    .collect()
            )),
        ]
    })
}
