//! Structured random operation sequences on one `Conversation`: load, append, prepend (from
//! event vectors, JSON arrays, JSON lines, truncated or wrapped text, session-log bytes in real
//! framing, or events built directly without the parser), `feed` of framed bytes cut anywhere,
//! `state_at`, `request_at`, `views` and `lines`.
//!
//! Real framing (BEHAVIOUR.md section 10): a session header row (supported, old or odd versions), SDK
//! notification envelopes and status rows, seq-less logs, CRLF, a byte order mark, blank lines, a
//! torn last line cut anywhere (inside a UTF-8 character too).
//!
//! Besides the events built here, `Op::Valid` takes a valid log from the test kit
//! (`promptfold::testkit`, the property tests' generator, drawn from the fuzzer's bytes): its
//! newer part is loaded, then its older part prepended, in one of the batch forms.
//!
//! Events are built from arbitrary fields, valid-looking and not: seqs that follow the window or
//! repeat, go back, jump, or are not safe integers; replace endpoints that name a recent event,
//! dangle before the window, are reversed, point at the event itself or later; every field in a
//! wrong JSON shape now and then; elements that are not objects.
//!
//! Invariants checked after every operation:
//! - on `Err`: `lines()`, `views()`, window start, `has_more`, length, `session()` and the kept
//!   unfinished line are exactly as before;
//! - on `Ok`: a fresh `Conversation::load` of the same `events()` gives identical `lines()` and
//!   `views()` (D1), and the chat cards replayed from every change report so far equal
//!   `views().chat`;
//! - `state_at(seq)` equals the state in `lines()` for every loaded seq, and never panics for any
//!   seq; `request_at` never panics;
//! - the kept unfinished line never holds a line end;
//! - feeding bytes in pieces into a fresh conversation, when every piece succeeds, ends exactly as
//!   feeding them whole;
//! - a `LedgerStream` fed the same pieces from a fresh start fails on the same pieces (same
//!   code) and ends with the window's cache ledger.
#![no_main]

#[path = "../shared/window.rs"]
mod window;

use std::collections::BTreeMap;

use arbitrary::Arbitrary;
use libfuzzer_sys::fuzz_target;
use promptfold::{
    parse_events, testkit, CacheOptions, CardKey, ChatCard, Conversation, ConversationChange,
    Error, EventKind, HeaderReason, Prices, RequestHeader, Seq, SessionEvent, SurfaceOp,
    TokenPrices, TurnField,
};
use promptfold::{LedgerStream, LoadOptions};
use serde_json::{json, Map, Value};
use window::{check_fresh_load, snapshot, Snapshot};

const MAX_SAFE: i64 = (1 << 53) - 1;

#[derive(Arbitrary, Debug)]
enum Op {
    Load {
        batch: Batch,
        has_more: bool,
    },
    Append {
        batch: Batch,
    },
    Prepend {
        batch: Batch,
        has_more: bool,
    },
    /// The batch as framed session-log bytes, fed in pieces cut at these offsets.
    Feed {
        batch: Batch,
        framing: Framing,
        cuts: Vec<u16>,
    },
    /// A valid test-kit log: the events after `split` loaded (with more to come when some are
    /// left), then the events before it prepended.
    Valid {
        plan: Vec<u8>,
        split: u16,
        form: Form,
    },
    StateAt(SeqPick),
    RequestAt(SeqPick),
    Views,
    Lines,
    /// The cache ledger with options drawn from these bytes (some invalid).
    CacheLedger {
        ttl: u8,
        price: u8,
    },
}

#[derive(Arbitrary, Debug)]
struct Batch {
    /// Shift of the batch's first seq from its natural place.
    slack: i8,
    events: Vec<Ev>,
    form: Form,
}

/// How the batch reaches the conversation.
#[derive(Arbitrary, Debug)]
enum Form {
    /// JSON text through `parse_events`, then the vector call.
    Parsed,
    /// A JSON array through the `*_json` call.
    JsonArray,
    /// JSON lines through the `*_json` call.
    JsonLines,
    /// The JSON array cut after this many characters.
    Truncated(u16),
    /// Valid JSON that is not an array.
    Wrapped(u8),
    /// JSON lines in a session log's real framing, as bytes through the `*_json_bytes` call.
    Framed(Framing),
    /// `SessionEvent`s built directly, without the parser's checks (Rust API only).
    Direct,
}

/// How a session log frames its rows (BEHAVIOUR.md section 10).
#[derive(Arbitrary, Debug)]
struct Framing {
    header: HeaderPick,
    /// Bit i set: the event at index i (mod 8) is sent in an SDK notification envelope.
    notifications: u8,
    /// A `session.status` notification (no event) after the first event.
    status_row: bool,
    /// Every event without `seq` and `time`, as the harness's snapshot tests write them.
    seqless: bool,
    crlf: bool,
    bom: bool,
    /// A blank line after every third row.
    blank_lines: bool,
    /// A torn last line: this many bytes of one more event's row, no line end after it.
    torn: Option<u8>,
    /// A line end after the last complete row.
    final_line_end: bool,
}

#[derive(Arbitrary, Debug)]
enum HeaderPick {
    None,
    /// `version` 3 to 7.
    Supported(u8),
    /// `version` 0 to 2.
    Old(u8),
    /// `version` that is not an integer, or absent.
    Odd(Junk),
    Absent,
}

#[derive(Arbitrary, Debug)]
struct Ev {
    seq: SeqStep,
    time: Num,
    kind: Kind,
    surface_op: OpShape,
    turn: Num,
    step: Num,
    extra_field: bool,
}

#[derive(Arbitrary, Debug)]
enum SeqStep {
    /// One more than the previous seq in the batch (the first event: the natural start).
    Next,
    /// The previous seq plus 2 to 5.
    Gap(u8),
    /// The previous seq again.
    Same,
    /// The previous seq minus 1 to 4.
    Back(u8),
    /// Any integer (often not a safe integer).
    Abs(i64),
    /// A safe-integer limit or just past it.
    Edge(u8),
    /// A wrong JSON shape.
    Junk(Junk),
    /// No `seq` member.
    Missing,
}

#[derive(Arbitrary, Debug, Clone, Copy)]
enum Junk {
    Str,
    Float,
    Huge,
    Null,
    Bool,
    Array,
    Object,
    NegZero,
}

impl Junk {
    fn value(self) -> Value {
        match self {
            Junk::Str => json!("12"),
            Junk::Float => json!(2.5),
            Junk::Huge => json!(1e300),
            Junk::Null => Value::Null,
            Junk::Bool => json!(true),
            Junk::Array => json!([1]),
            Junk::Object => json!({"seq": 1}),
            Junk::NegZero => json!(-0.0),
        }
    }
}

#[derive(Arbitrary, Debug)]
enum Num {
    Absent,
    Small(u8),
    Null,
    Negative,
    Junk(Junk),
}

impl Num {
    fn value(&self) -> Option<Value> {
        match self {
            Num::Absent => None,
            Num::Small(n) => Some(json!(n % 5)),
            Num::Null => Some(Value::Null),
            Num::Negative => Some(json!(-1)),
            Num::Junk(junk) => Some(junk.value()),
        }
    }
}

#[derive(Arbitrary, Debug)]
enum Kind {
    System {
        text: u8,
        blocks: Blocks,
    },
    User,
    Assistant,
    Tool,
    Header {
        reason: u8,
        tools: u8,
        config: u8,
        starts_series: Option<bool>,
    },
    TurnStart,
    TurnEnd,
    StepStart,
    StepEnd,
    Unknown,
    TypeJunk(Junk),
    DataJunk(Junk),
    /// The element is not an object at all.
    NotObject(Junk),
}

#[derive(Arbitrary, Debug)]
enum Blocks {
    One,
    Split,
    Empty,
    Mixed,
    ContentJunk(Junk),
    MessageJunk(Junk),
}

const TEXTS: &[&str] = &["", "A", "B", "C", "A long prompt\nwith lines", "ünï ✓"];

#[derive(Arbitrary, Debug)]
enum OpShape {
    None,
    Append,
    Replace {
        start: End,
        end: End,
    },
    /// `{op: <not "replace">, startSeq, endSeq}`.
    WrongOp(End, End),
    /// A string other than "append".
    WrongString,
    Junk(Junk),
    ExplicitNull,
}

#[derive(Arbitrary, Debug)]
enum End {
    /// The seq of the n-th most recent event before this one (window and batch).
    Recent(u8),
    /// This event's seq minus 1 to 8 (may name nothing, or a non-surface event).
    Back(u8),
    /// Before the window start (unknown to the fold).
    BeforeWindow(u8),
    /// The event itself.
    SelfSeq,
    /// Later than the event.
    Later(u8),
    /// Any integer.
    Abs(i64),
    Junk(Junk),
    Missing,
}

#[derive(Arbitrary, Debug)]
enum SeqPick {
    Loaded(u16),
    Near(u16, i8),
    Abs(i64),
}

/// One event as JSON, with the integer seq when it has one, and a direct `SessionEvent`.
struct Built {
    value: Value,
    direct: Option<SessionEvent>,
}

struct Context {
    /// Seqs of events before the one being built: the window's, then the batch's so far.
    recent: Vec<Seq>,
    window_start: Option<Seq>,
}

fn endpoint(end: &End, seq: Seq, context: &Context) -> Option<Value> {
    let value = match end {
        End::Recent(n) => {
            let len = context.recent.len();
            if len == 0 {
                json!(seq.saturating_sub(1))
            } else {
                let back = usize::from(*n) % len.min(12);
                json!(context.recent[len - 1 - back])
            }
        }
        End::Back(n) => json!(seq.saturating_sub(1 + i64::from(n % 8))),
        End::BeforeWindow(n) => {
            let start = context.window_start.unwrap_or(seq);
            json!(start.saturating_sub(1 + i64::from(n % 4)))
        }
        End::SelfSeq => json!(seq),
        End::Later(n) => json!(seq.saturating_add(1 + i64::from(n % 4))),
        End::Abs(n) => json!(n),
        End::Junk(junk) => junk.value(),
        End::Missing => return None,
    };
    Some(value)
}

fn as_seq(value: &Option<Value>) -> Option<Seq> {
    value.as_ref().and_then(Value::as_i64)
}

fn build(ev: &Ev, seq_value: Option<Value>, context: &Context) -> Built {
    let seq = as_seq(&seq_value);
    let mut object = Map::new();
    if let Some(value) = &seq_value {
        object.insert("seq".into(), value.clone());
    }
    let time = ev.time.value();
    if let Some(value) = &time {
        object.insert("time".into(), value.clone());
    }
    let mut data = Map::new();
    if let Some(turn) = ev.turn.value() {
        data.insert("turn".into(), turn);
    }
    if let Some(step) = ev.step.value() {
        data.insert("step".into(), step);
    }
    let type_name: Value = match &ev.kind {
        Kind::System { text, blocks } => {
            let text = TEXTS[usize::from(*text) % TEXTS.len()];
            let message = match blocks {
                Blocks::One => {
                    json!({"role": "system", "content": [{"type": "text", "text": text}]})
                }
                Blocks::Split => {
                    let middle = (0..=text.len() / 2)
                        .rev()
                        .find(|&at| text.is_char_boundary(at))
                        .unwrap_or(0);
                    let (a, b) = text.split_at(middle);
                    json!({"role": "system", "content": [{"type": "text", "text": a}, {"type": "text", "text": b}]})
                }
                Blocks::Empty => json!({"role": "system", "content": []}),
                Blocks::Mixed => {
                    json!({"content": [5, {"type": "image", "text": "no"}, {"type": "text", "text": text}, null]})
                }
                Blocks::ContentJunk(junk) => json!({"content": junk.value()}),
                Blocks::MessageJunk(junk) => junk.value(),
            };
            data.insert("message".into(), message);
            json!("system/message")
        }
        Kind::User => json!("user/message"),
        Kind::Assistant => json!("assistant/message"),
        Kind::Tool => json!("tool/result"),
        Kind::Header {
            reason,
            tools,
            config,
            starts_series,
        } => {
            let reason =
                ["initial", "resume", "change", "series", "other"][usize::from(*reason) % 5];
            let tools = match tools % 4 {
                0 => json!([]),
                1 => json!([{"name": "read", "b": 1, "a": 2}]),
                2 => json!([{"name": "read", "a": 2, "b": 1}]),
                _ => json!({"not": "an array"}),
            };
            data.insert("reason".into(), json!(reason));
            data.insert(
                "header".into(),
                json!({"config": {"model": config % 3}, "tools": tools}),
            );
            if let Some(flag) = starts_series {
                data.insert("startsSeries".into(), json!(flag));
            }
            json!("request/header")
        }
        Kind::TurnStart => json!("turn/start"),
        Kind::TurnEnd => json!("turn/end"),
        Kind::StepStart => json!("step/start"),
        Kind::StepEnd => json!("step/end"),
        Kind::Unknown => json!("agent/inbox/spliced"),
        Kind::TypeJunk(junk) => junk.value(),
        Kind::DataJunk(_) | Kind::NotObject(_) => json!("user/message"),
    };
    object.insert("type".into(), type_name);
    match &ev.kind {
        Kind::DataJunk(junk) => {
            object.insert("data".into(), junk.value());
        }
        _ => {
            object.insert("data".into(), Value::Object(data));
        }
    }
    let here = seq.unwrap_or(0);
    let (op_value, direct_op) = match &ev.surface_op {
        OpShape::None => (None, None),
        OpShape::Append => (Some(json!("append")), Some(SurfaceOp::Append)),
        OpShape::Replace { start, end } => {
            let start = endpoint(start, here, context);
            let end = endpoint(end, here, context);
            let mut op = Map::new();
            op.insert("op".into(), json!("replace"));
            if let Some(start) = &start {
                op.insert("startSeq".into(), start.clone());
            }
            if let Some(end) = &end {
                op.insert("endSeq".into(), end.clone());
            }
            let direct = match (as_seq(&start), as_seq(&end)) {
                (Some(start), Some(end)) => Some(SurfaceOp::Replace { start, end }),
                _ => Some(SurfaceOp::Append),
            };
            (Some(Value::Object(op)), direct)
        }
        OpShape::WrongOp(start, end) => {
            let mut op = Map::new();
            op.insert("op".into(), json!("prepend"));
            if let Some(start) = endpoint(start, here, context) {
                op.insert("startSeq".into(), start);
            }
            if let Some(end) = endpoint(end, here, context) {
                op.insert("endSeq".into(), end);
            }
            (Some(Value::Object(op)), None)
        }
        OpShape::WrongString => (Some(json!("replace")), None),
        OpShape::Junk(junk) => (Some(junk.value()), None),
        OpShape::ExplicitNull => (Some(Value::Null), None),
    };
    if let Some(op) = op_value {
        object.insert("surfaceOp".into(), op);
    }
    if ev.extra_field {
        object.insert("sourceEventSeqs".into(), json!([1, 2]));
        object.insert("ignorable".into(), json!(true));
    }
    let value = match &ev.kind {
        Kind::NotObject(junk) => junk.value(),
        _ => Value::Object(object),
    };
    // The same event built directly, as a Rust caller could, without the parser's checks.
    // Values a log cannot hold are refused by `SessionEvent::new`: such an event is left out.
    let direct = seq.and_then(|seq| {
        let text = |blocks_text: &str| blocks_text.into();
        let kind = match &ev.kind {
            Kind::System { text: t, .. } => {
                let prompt = TEXTS[usize::from(*t) % TEXTS.len()];
                EventKind::SystemMessage {
                    text: text(prompt),
                    // One text block, as the JSON form writes it.
                    tokens: u32::try_from(prompt.encode_utf16().count().div_ceil(4) + 4)
                        .unwrap_or(u32::MAX),
                }
            }
            Kind::Header {
                reason,
                tools,
                config,
                starts_series,
            } => {
                let reason = match reason % 5 {
                    0 => HeaderReason::Initial,
                    1 => HeaderReason::Resume,
                    2 => HeaderReason::Change,
                    3 => HeaderReason::Series,
                    _ => HeaderReason::Other,
                };
                let tools = if tools % 2 == 0 {
                    None
                } else {
                    promptfold::JsonValue::parse(r#"[{"name": "x"}]"#).ok()
                };
                EventKind::RequestHeader(std::rc::Rc::new(RequestHeader::new(
                    promptfold::JsonValue::parse(&format!("{{\"model\":{}}}", config % 3)).ok(),
                    tools,
                    reason,
                    *starts_series == Some(true),
                )))
            }
            Kind::TurnStart => EventKind::TurnStart,
            Kind::TurnEnd => EventKind::TurnEnd,
            Kind::StepStart => EventKind::StepStart,
            Kind::StepEnd => EventKind::StepEnd,
            _ => EventKind::Other,
        };
        let turn = match &ev.turn {
            Num::Small(n) => TurnField::Turn(u64::from(n % 5)),
            Num::Null => TurnField::Null,
            // The largest turn a log can hold (SessionEvent::new refuses larger ones).
            Num::Junk(Junk::Huge) => TurnField::Turn(MAX_SAFE.unsigned_abs()),
            _ => TurnField::Absent,
        };
        let step = match &ev.step {
            Num::Small(n) => Some(u64::from(n % 5)),
            Num::Junk(Junk::Huge) => Some(MAX_SAFE.unsigned_abs()),
            _ => None,
        };
        let time = match &ev.time {
            Num::Small(n) => f64::from(*n),
            Num::Negative => -1.0,
            Num::Junk(Junk::Huge) => 1e300,
            _ => 0.0,
        };
        SessionEvent::new(seq, time, kind, direct_op, turn, step).ok()
    });
    Built { value, direct }
}

enum Call {
    Load(bool),
    Append,
    Prepend(bool),
}

/// Builds the batch: its JSON text (as `form` wants) and its directly built events.
fn build_batch(
    batch: &Batch,
    call: &Call,
    conversation: &Conversation,
) -> (Vec<Value>, Vec<SessionEvent>) {
    let window: Vec<Seq> = conversation
        .events()
        .iter()
        .map(|event| event.seq)
        .collect();
    let slack = i64::from(batch.slack);
    // Relative offsets of the natural seqs, to place a prepended page just before the window.
    let span: i64 = batch
        .events
        .iter()
        .map(|ev| match ev.seq {
            SeqStep::Gap(n) => 2 + i64::from(n % 4),
            _ => 1,
        })
        .sum();
    let mut previous: Seq = match call {
        Call::Load(_) => slack,
        Call::Append => window
            .last()
            .copied()
            .unwrap_or(0)
            .saturating_add(slack.min(0)),
        Call::Prepend(_) => conversation
            .window_start()
            .unwrap_or(0)
            .saturating_sub(span)
            .saturating_sub(1)
            .saturating_add(slack.clamp(-4, 4)),
    };
    let mut context = Context {
        recent: match call {
            Call::Append => window.clone(),
            _ => Vec::new(),
        },
        window_start: match call {
            Call::Load(_) => None,
            _ => conversation.window_start(),
        },
    };
    let mut values = Vec::new();
    let mut direct = Vec::new();
    for ev in &batch.events {
        let seq_value = match &ev.seq {
            SeqStep::Next => Some(json!(previous.saturating_add(1))),
            SeqStep::Gap(n) => Some(json!(previous.saturating_add(2 + i64::from(n % 4)))),
            SeqStep::Same => Some(json!(previous)),
            SeqStep::Back(n) => Some(json!(previous.saturating_sub(1 + i64::from(n % 4)))),
            SeqStep::Abs(n) => Some(json!(n)),
            SeqStep::Edge(n) => Some(match n % 6 {
                0 => json!(MAX_SAFE),
                1 => json!(MAX_SAFE + 1),
                2 => json!(-MAX_SAFE),
                3 => json!(-MAX_SAFE - 1),
                4 => json!(i64::MAX),
                _ => json!(u64::MAX),
            }),
            SeqStep::Junk(junk) => Some(junk.value()),
            SeqStep::Missing => None,
        };
        let built = build(ev, seq_value.clone(), &context);
        if let Some(seq) = as_seq(&seq_value) {
            previous = seq;
            context.recent.push(seq);
        }
        values.push(built.value);
        if let Some(event) = built.direct {
            direct.push(event);
        }
    }
    (values, direct)
}

/// The rows of `values` as session-log bytes in `framing`.
fn framed_bytes(values: &[Value], framing: &Framing) -> Vec<u8> {
    let mut rows: Vec<String> = Vec::new();
    let header = |version: Option<Value>| {
        let mut header = Map::new();
        header.insert("type".into(), json!("session"));
        if let Some(version) = version {
            header.insert("version".into(), version);
        }
        header.insert("id".into(), json!("s-1"));
        header.insert("cwd".into(), json!("/w ✓"));
        Value::Object(header).to_string()
    };
    match &framing.header {
        HeaderPick::None => {}
        HeaderPick::Supported(n) => rows.push(header(Some(json!(3 + n % 5)))),
        HeaderPick::Old(n) => rows.push(header(Some(json!(n % 3)))),
        HeaderPick::Odd(junk) => rows.push(header(Some(junk.value()))),
        HeaderPick::Absent => rows.push(header(None)),
    }
    let row = |index: usize, value: &Value| {
        let mut value = value.clone();
        if framing.seqless {
            if let Value::Object(object) = &mut value {
                object.remove("seq");
                object.remove("time");
            }
        }
        if framing.notifications >> (index % 8) & 1 == 1 {
            json!({"jsonrpc": "2.0", "method": "session.event",
                   "params": {"sessionId": "s-1", "event": value}})
            .to_string()
        } else {
            value.to_string()
        }
    };
    for (index, value) in values.iter().enumerate() {
        rows.push(row(index, value));
        if index == 0 && framing.status_row {
            rows.push(
                json!({"jsonrpc": "2.0", "method": "session.status",
                             "params": {"status": "running"}})
                .to_string(),
            );
        }
    }
    let line_end: &[u8] = if framing.crlf { b"\r\n" } else { b"\n" };
    let mut bytes = Vec::new();
    if framing.bom {
        bytes.extend_from_slice("\u{feff}".as_bytes());
    }
    for (index, row) in rows.iter().enumerate() {
        if index > 0 {
            bytes.extend_from_slice(line_end);
            if framing.blank_lines && index % 3 == 0 {
                bytes.extend_from_slice(line_end);
            }
        }
        bytes.extend_from_slice(row.as_bytes());
    }
    if framing.final_line_end && !rows.is_empty() {
        bytes.extend_from_slice(line_end);
    }
    if let Some(n) = framing.torn {
        if !bytes.is_empty() && !bytes.ends_with(b"\n") {
            bytes.extend_from_slice(line_end);
        }
        let last = values.last().map_or_else(
            || "{\"seq\": 1, \"ty✓pe\": ".to_owned(),
            |value| row(values.len(), value),
        );
        let cut = usize::from(n) % (last.len() + 1);
        bytes.extend_from_slice(&last.as_bytes()[..cut]);
    }
    bytes
}

/// Makes `call` with the batch's `values` (or `direct` events) in `form` and checks every
/// invariant against the window before it.
fn call_and_check(
    conversation: &mut Conversation,
    replayed: &mut Replayed,
    call: &Call,
    form: &Form,
    values: Vec<Value>,
    direct: Vec<SessionEvent>,
) {
    let before = snapshot(conversation);
    let before_events = conversation.events().to_vec();
    let result = run_values(conversation, call, form, values, direct);
    let kind = match call {
        Call::Load(_) => "load",
        Call::Append => "append",
        Call::Prepend(_) => "prepend",
    };
    check(
        conversation,
        replayed,
        result,
        &before,
        &before_events,
        kind,
    );
}

/// The two calls of an `Op::Valid`: the newer part of a test-kit log, then the older.
fn valid_steps(plan: &[u8], split: u16) -> [(Call, Vec<Value>, Vec<SessionEvent>); 2] {
    let log = testkit::build(&testkit::Plan::from_bytes(plan, 200));
    let at = usize::from(split) % (log.len() + 1);
    let (older, newer) = log.split_at(at);
    [
        (
            Call::Load(!older.is_empty()),
            newer.to_vec(),
            testkit::parse(newer, false),
        ),
        (
            Call::Prepend(false),
            older.to_vec(),
            testkit::parse(older, false),
        ),
    ]
}

/// Makes `call` with `values` (or the `direct` events) in `form`.
fn run_values(
    conversation: &mut Conversation,
    call: &Call,
    form: &Form,
    values: Vec<Value>,
    direct: Vec<SessionEvent>,
) -> Result<ConversationChange, Error> {
    if let Form::Framed(framing) = form {
        let bytes = framed_bytes(&values, framing);
        return match call {
            Call::Load(has_more) => {
                conversation.load_json(&bytes, LoadOptions::default().with_has_more(*has_more))
            }
            Call::Append => conversation.append_json(&bytes),
            Call::Prepend(has_more) => {
                conversation.prepend_json(&bytes, LoadOptions::default().with_has_more(*has_more))
            }
        };
    }
    let array = Value::Array(values.clone()).to_string();
    let text = match form {
        Form::Parsed | Form::JsonArray | Form::Direct | Form::Framed(_) => array,
        Form::JsonLines => values
            .iter()
            .map(Value::to_string)
            .collect::<Vec<_>>()
            .join("\n"),
        Form::Truncated(n) => array
            .chars()
            .take(usize::from(*n) % (array.chars().count() + 1))
            .collect(),
        Form::Wrapped(n) => match n % 3 {
            0 => json!({ "events": values }).to_string(),
            1 => json!("[]").to_string(),
            _ => "  null ".to_owned(),
        },
    };
    match (form, call) {
        (Form::Parsed, _) => {
            let events = parse_events(&text)?;
            match call {
                Call::Load(has_more) => {
                    conversation.load(events, LoadOptions::default().with_has_more(*has_more))
                }
                Call::Append => conversation.append(events),
                Call::Prepend(has_more) => {
                    conversation.prepend(events, LoadOptions::default().with_has_more(*has_more))
                }
            }
        }
        (Form::Direct, Call::Load(has_more)) => {
            conversation.load(direct, LoadOptions::default().with_has_more(*has_more))
        }
        (Form::Direct, Call::Append) => conversation.append(direct),
        (Form::Direct, Call::Prepend(has_more)) => {
            conversation.prepend(direct, LoadOptions::default().with_has_more(*has_more))
        }
        (_, Call::Load(has_more)) => {
            conversation.load_json(&text, LoadOptions::default().with_has_more(*has_more))
        }
        (_, Call::Append) => conversation.append_json(&text),
        (_, Call::Prepend(has_more)) => {
            conversation.prepend_json(&text, LoadOptions::default().with_has_more(*has_more))
        }
    }
}

/// Chat cards kept up to date from change reports alone, as a UI would.
#[derive(Default)]
struct Replayed(BTreeMap<CardKey, ChatCard>);

impl Replayed {
    fn apply(&mut self, change: &ConversationChange) {
        for key in &change.chat.removed {
            assert!(
                self.0.remove(key).is_some(),
                "removed card {key} was not shown"
            );
        }
        for card in &change.chat.changed {
            assert!(
                self.0.contains_key(&card.key),
                "changed card {} was not shown",
                card.key
            );
            self.0.insert(card.key, card.clone());
        }
        for card in &change.chat.added {
            assert!(
                self.0.insert(card.key, card.clone()).is_none(),
                "added card {} was already shown",
                card.key
            );
        }
    }

    fn cards(&self) -> Vec<ChatCard> {
        let mut cards: Vec<ChatCard> = self.0.values().cloned().collect();
        cards.sort_by_key(ChatCard::order);
        cards
    }
}

fn pick(conversation: &Conversation, pick: &SeqPick) -> Seq {
    let events = conversation.events();
    match pick {
        SeqPick::Loaded(n) if !events.is_empty() => events[usize::from(*n) % events.len()].seq,
        SeqPick::Near(n, delta) if !events.is_empty() => events[usize::from(*n) % events.len()]
            .seq
            .saturating_add(i64::from(*delta)),
        SeqPick::Abs(n) => *n,
        _ => 0,
    }
}

/// Checks the invariants after one call (see the module doc) and replays its change report.
fn check(
    conversation: &Conversation,
    replayed: &mut Replayed,
    result: Result<ConversationChange, Error>,
    before: &Snapshot,
    before_events: &[SessionEvent],
    kind: &str,
) {
    let stats = std::env::var_os("FUZZ_STATS").is_some();
    let after = snapshot(conversation);
    assert!(
        !after.unfinished.contains(&b'\n'),
        "the kept unfinished line holds a line end"
    );
    match result {
        Err(err) => {
            if stats {
                eprintln!("STATS err {kind} {}", err.code());
            }
            let _ = (err.code(), err.index(), err.seq(), err.to_string());
            assert_eq!(&after, before, "a failed call changed the window: {err}");
            assert_eq!(
                conversation.events(),
                before_events,
                "a failed call changed the events"
            );
        }
        Ok(change) => {
            if stats {
                let replaces = conversation
                    .events()
                    .iter()
                    .filter(|event| matches!(event.surface_op(), Some(SurfaceOp::Replace { .. })))
                    .count();
                let uncertain = conversation
                    .state_at(Seq::MAX)
                    .is_some_and(|state| state.is_uncertain());
                eprintln!(
                    "STATS ok {kind} events={} replaces={replaces} cards={} uncertain={uncertain} session={} unfinished={}",
                    conversation.len(),
                    after.views.chat.len(),
                    after.session.is_some(),
                    after.unfinished.len(),
                );
            }
            replayed.apply(&change);
            assert_eq!(
                after.views.chat,
                replayed.cards(),
                "replayed chat cards differ from views()"
            );
            check_fresh_load(conversation, &after);
        }
    }
    for seq in [Seq::MIN, -1, 0, Seq::MAX] {
        let _ = conversation.state_at(seq);
        let _ = conversation.request_at(seq);
    }
}

/// Cache ledger options: TTLs and prices valid and not (negative, NaN, infinite).
fn cache_options(ttl: u8, price: u8) -> CacheOptions {
    let number = |pick: u8| match pick % 8 {
        0 => -1.0,
        1 => f64::NAN,
        2 => f64::INFINITY,
        3 => 0.0,
        pick => f64::from(pick) * 0.25,
    };
    let prices = |pick: u8| {
        TokenPrices::new(number(pick), number(pick / 8 + 3), number(pick / 2 + 4))
            .with_cache_write(pick.is_multiple_of(3).then(|| number(pick / 3)))
    };
    let model = ("deepseek-chat", prices(price.rotate_left(3)));
    let prices = match price % 4 {
        0 => None,
        1 => Some(Prices::default().with_default(Some(prices(price)))),
        2 => Some(Prices::default().with_model(model.0, model.1)),
        _ => Some(
            Prices::default()
                .with_default(Some(prices(price / 4)))
                .with_model(model.0, model.1),
        ),
    };
    CacheOptions::default()
        .with_prices(prices)
        .with_cache_ttl_ms((!ttl.is_multiple_of(4)).then(|| number(ttl / 4) * 1000.0))
}

/// The ledger: `INVALID_ARGUMENT` exactly for bad options, else one entry per trajectory request,
/// equal to a fresh load's (D1).
fn check_cache_ledger(conversation: &Conversation, options: &CacheOptions) {
    let valid = options.check().is_ok();
    match conversation.cache_ledger(options) {
        Err(error) => {
            assert!(!valid, "valid options refused: {error}");
            assert_eq!(error.code(), "INVALID_ARGUMENT");
        }
        Ok(ledger) => {
            assert!(valid, "bad options accepted: {options:?}");
            let requests = conversation.views().trajectory.requests;
            assert_eq!(ledger.requests.len(), requests.len());
            for (entry, request) in ledger.requests.iter().zip(&requests) {
                assert_eq!(entry.seq, request.start_seq);
                assert_eq!(entry.read_seq, request.context.seq);
            }
            let mut fresh = Conversation::new();
            fresh
                .load(
                    conversation.events().to_vec(),
                    LoadOptions::default().with_has_more(conversation.has_more()),
                )
                .expect("a fresh load of the window's own events succeeds");
            assert_eq!(
                fresh.cache_ledger(options).ok(),
                Some(ledger),
                "D1: the ledger differs from a fresh load's"
            );
        }
    }
}

/// Whether nothing was ever given to the conversation that it kept.
fn untouched(conversation: &Conversation) -> bool {
    conversation.is_empty()
        && conversation.window_start().is_none()
        && !conversation.has_more()
        && conversation.session().is_none()
        && conversation.unfinished_line().is_empty()
}

/// Feeds the framed batch in pieces, checking after each; when the conversation started fresh
/// and every piece succeeded, a fresh conversation fed the bytes whole must end the same.
fn feed(
    conversation: &mut Conversation,
    replayed: &mut Replayed,
    batch: &Batch,
    framing: &Framing,
    cuts: &[u16],
    fresh_start: bool,
) {
    let (values, _) = build_batch(batch, &Call::Append, conversation);
    let bytes = framed_bytes(&values, framing);
    let mut offsets: Vec<usize> = cuts
        .iter()
        .take(16)
        .map(|cut| usize::from(*cut) % (bytes.len() + 1))
        .collect();
    offsets.push(bytes.len());
    offsets.sort_unstable();
    let mut all_ok = true;
    let mut from = 0;
    // From a fresh start, the forward-only ledger is fed the same pieces beside it.
    let options = CacheOptions::default().with_cache_ttl_ms(Some(1000.0));
    let mut stream = fresh_start.then(|| {
        (
            LedgerStream::new(&options).expect("valid options"),
            Vec::new(),
        )
    });
    for to in offsets {
        let before = snapshot(conversation);
        let before_events = conversation.events().to_vec();
        let result = conversation.feed(&bytes[from..to]);
        all_ok &= result.is_ok();
        if let Some((stream, entries)) = &mut stream {
            let streamed = stream.feed(&bytes[from..to]);
            assert_eq!(
                streamed.as_ref().err().map(promptfold::Error::code),
                result.as_ref().err().map(promptfold::Error::code),
                "the stream and the window disagree on a piece"
            );
            entries.extend(stream.take_entries());
        }
        check(
            conversation,
            replayed,
            result,
            &before,
            &before_events,
            "feed",
        );
        from = to;
    }
    if let Some((stream, mut entries)) = stream {
        let mut ledger = stream.finish();
        entries.append(&mut ledger.requests);
        ledger.requests = entries;
        assert_eq!(
            Some(ledger),
            conversation.cache_ledger(&options).ok(),
            "the stream's ledger differs from the window's"
        );
    }
    if fresh_start && all_ok {
        let mut whole = Conversation::new();
        whole
            .feed(&bytes)
            .expect("bytes fed in pieces without error feed whole without error");
        assert_eq!(
            snapshot(&whole),
            snapshot(conversation),
            "feeding in pieces differs from feeding whole"
        );
    }
}

fuzz_target!(|ops: Vec<Op>| {
    let mut conversation = Conversation::new();
    let mut replayed = Replayed::default();
    for op in ops.iter().take(64) {
        let (call, batch) = match op {
            Op::Load { batch, has_more } => (Call::Load(*has_more), batch),
            Op::Append { batch } => (Call::Append, batch),
            Op::Prepend { batch, has_more } => (Call::Prepend(*has_more), batch),
            Op::Feed {
                batch,
                framing,
                cuts,
            } => {
                let fresh_start = untouched(&conversation);
                feed(
                    &mut conversation,
                    &mut replayed,
                    batch,
                    framing,
                    cuts,
                    fresh_start,
                );
                continue;
            }
            Op::Valid { plan, split, form } => {
                for (call, values, direct) in valid_steps(plan, *split) {
                    call_and_check(
                        &mut conversation,
                        &mut replayed,
                        &call,
                        form,
                        values,
                        direct,
                    );
                }
                continue;
            }
            Op::StateAt(seq) => {
                let seq = pick(&conversation, seq);
                if let Some(state) = conversation.state_at(seq) {
                    let _ = state.to_json();
                    let _ = state.effective();
                }
                continue;
            }
            Op::RequestAt(seq) => {
                let _ = conversation.request_at(pick(&conversation, seq));
                continue;
            }
            Op::Views => {
                let views = conversation.views();
                assert_eq!(
                    views.chat,
                    replayed.cards(),
                    "replayed chat cards differ from views()"
                );
                continue;
            }
            Op::Lines => {
                let _ = conversation.lines();
                continue;
            }
            Op::CacheLedger { ttl, price } => {
                check_cache_ledger(&conversation, &cache_options(*ttl, *price));
                continue;
            }
        };
        let (values, direct) = build_batch(batch, &call, &conversation);
        call_and_check(
            &mut conversation,
            &mut replayed,
            &call,
            &batch.form,
            values,
            direct,
        );
    }
});
