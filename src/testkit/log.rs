//! Random session logs: the one generator of the Rust tests, the fuzz targets and the native
//! benches.
//!
//! [`valid_log`] builds logs the harness would admit (BEHAVIOUR.md section 1): strictly increasing
//! seqs (contiguous, sometimes with gaps), turn/step structure, appends of the four surface types,
//! request headers, and replace ops whose endpoints name surface nodes alive at that moment, start
//! not after end in surface order. The generator keeps the live surface (node seqs in surface
//! order; a replace puts its node in place of the range) to pick those endpoints.
//!
//! A log is drawn as a [`Plan`] (a list of [`Action`]s, so proptest shrinks actions, not JSON)
//! and built into `serde_json::Value` events by [`build`]; tests turn them into text and parse
//! them with `promptfold::parse_events`, so the parse path is exercised too. Outside proptest,
//! [`Plan::seeded`] draws the same kinds of plans from a seed (benches), and [`Plan::from_bytes`]
//! from a fuzzer's bytes.

use proptest::prelude::*;
use serde_json::{json, Map, Value};

use crate::{parse_events, SessionEvent};

use super::random::{pick, Pick, Source};

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
        start: Pick,
        len: Pick,
        recent: bool,
    },
    /// A pruned tool result: a tool result replacing one live tool result.
    Prune { pick: Pick },
    /// A head rewrite: a system message replacing a live system node (and maybe a few after).
    HeadRewrite {
        text: u8,
        shape: u8,
        pick: Pick,
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
        6 => (pick(), pick(), prop::bool::weighted(0.6))
            .prop_map(|(start, len, recent)| Action::Compaction { start, len, recent }),
        5 => pick().prop_map(|pick| Action::Prune { pick }),
        7 => (any::<u8>(), any::<u8>(), pick(), any::<u8>()).prop_map(
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

impl Plan {
    /// A plan of exactly `actions` actions drawn from `seed`, with the weights of the property
    /// tests' strategy: the same log for the same seed everywhere (benches).
    pub fn seeded(seed: u64, actions: usize) -> Plan {
        let mut source = super::random::Seeded::new(seed);
        let mut plan = Plan::draw(&mut source, 0);
        plan.actions = (0..actions).map(|_| Action::draw(&mut source)).collect();
        plan
    }

    /// A plan read from a fuzzer's bytes: actions until the bytes run out, at most
    /// `max_actions`.
    pub fn from_bytes(bytes: &[u8], max_actions: usize) -> Plan {
        let mut source = super::random::Bytes::new(bytes);
        let mut plan = Plan::draw(&mut source, 0);
        while plan.actions.len() < max_actions && !source.is_empty() {
            plan.actions.push(Action::draw(&mut source));
        }
        plan
    }

    /// The opening fields as [`plan`] draws them, and `actions` actions.
    fn draw(source: &mut impl Source, actions: usize) -> Plan {
        let first_seq = match source.below(10) {
            0..=3 => source.below(3) as i64,
            4..=7 => 1 + source.below(1_999) as i64,
            8 => -2_000 + source.below(2_000) as i64,
            _ => MAX_SAFE - 100_000 + source.below(80_000) as i64,
        };
        let first_time = 1_600_000_000_000 + source.below(200_000_000_000) as i64;
        let fractional_time = source.chance(15, 100);
        let opening = match source.below(9) {
            0..=4 => Opening::SystemInStep,
            5 => Opening::SessionSystem,
            6 => Opening::EmptySystem,
            7 => Opening::ReplaceFirst,
            _ => Opening::Nothing,
        };
        Plan {
            first_seq,
            first_time,
            fractional_time,
            opening,
            actions: (0..actions).map(|_| Action::draw(source)).collect(),
        }
    }
}

impl Action {
    /// An action drawn with the weights of [`action`] (79 in all).
    fn draw(source: &mut impl Source) -> Action {
        match source.below(79) {
            0..=7 => Action::NextStep,
            8..=11 => Action::NextTurn {
                open: source.chance(1, 2),
            },
            12..=21 => Action::System {
                text: source.byte(),
                shape: source.byte(),
            },
            22..=29 => Action::User {
                text: source.byte(),
            },
            30..=35 => Action::Assistant,
            36..=43 => Action::ToolResult,
            44..=51 => Action::Header {
                reason: source.byte(),
                starts_series: source.chance(1, 2),
                tools: source.byte(),
                config: source.byte(),
            },
            52..=57 => Action::Compaction {
                start: source.pick(),
                len: source.pick(),
                recent: source.chance(6, 10),
            },
            58..=62 => Action::Prune {
                pick: source.pick(),
            },
            63..=69 => Action::HeadRewrite {
                text: source.byte(),
                shape: source.byte(),
                pick: source.pick(),
                len: source.byte(),
            },
            70..=72 => Action::Ahead {
                text: source.byte(),
                shape: source.byte(),
                new_turn: source.chance(1, 2),
                header: source.chance(1, 2),
            },
            73..=74 => Action::Gap { by: source.byte() },
            _ => Action::Other {
                kind: source.byte(),
            },
        }
    }
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
    (valid_log(max_actions), prop::bool::weighted(0.3), pick()).prop_map(|(log, whole, cut)| {
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
