//! # promptfold
//!
//! Which system prompt was the model reading at this point of a coding agent's session, what
//! changed, and what did each request's context cost?
//!
//! Some model routes treat the latest system message anywhere in the conversation as the whole
//! system prompt, so an agent harness *appends* a changed prompt after the cached history
//! instead of rewriting message 0. A client must then fold the log in surface order, through
//! replacements (compaction, pruning, head rewrites), to know the prompt in force at any event.
//! This crate does that fold with persistent maps (every per-event state kept, O(log n) each)
//! and derives from it what a viewer shows: collapsed prompt cards, request headers with their
//! prompt changes, the context each request sent, and a ledger of its prefix cache.
//!
//! ## Where to start
//!
//! - **A session log.** [`Conversation`] holds a window of one log. Load its text (JSON lines,
//!   as the harness writes them, or a JSON array of events) with [`Conversation::load_json`],
//!   follow a growing file with [`Conversation::feed`] (pieces cut anywhere, a string or bytes:
//!   [`JsonText`]), add live events with [`Conversation::append_json`] and an older page with
//!   [`Conversation::prepend_json`]. Every call returns a [`ConversationChange`].
//! - **The prompt at a point.** [`Conversation::state_at`] gives the [`SystemPromptState`] in
//!   force after an event; [`SystemPromptState::effective`] is the prompt the model read.
//!   [`Conversation::request_at`] inspects a `request/header` ([`RequestPromptInspection`]).
//! - **What a viewer shows.** [`Conversation::views`] ([`Views`]: chat cards, the trajectory of
//!   requests) and [`Conversation::lines`] (one [`EventLine`] per event); for large windows the
//!   slices [`Conversation::cards_slice`], [`Conversation::requests_slice`],
//!   [`Conversation::lines_slice`], with [`Conversation::view_counts`] and
//!   [`Conversation::index_of_seq`]. [`Conversation::card_diff`] and
//!   [`Conversation::change_diff`] tell what changed ([`PromptDiff`]); [`diff_prompts`] compares
//!   any two prompts.
//! - **Contexts.** [`Conversation::context_at`] gives the [`Context`] at a point (its surviving
//!   nodes and token breakdown), [`Conversation::context_summary_at`] the breakdown alone, and
//!   [`Conversation::context_totals`] the window's [`ContextTotals`].
//! - **The cache ledger.** [`Conversation::cache_ledger`] gives a [`CacheLedger`]: per request
//!   a [`CacheEntry`] (tokens kept, new and broken, the [`CacheCause`]s, observed usage, cost
//!   from [`CacheOptions`]) and a [`CacheSummary`]. [`LedgerStream`] gives the same ledger of a
//!   file read forward only, in memory that follows the live context rather than the file.
//! - **Without a window.** [`parse_events`] reads events from text, [`inspect_system_prompt`]
//!   folds one event into a state and [`inspect_request_prompt`] inspects one header.
//! - **Errors** are one type, [`Error`]; a failed call leaves the window as it was.
//!
//! ```
//! use promptfold::{CacheOptions, Conversation, LoadOptions};
//!
//! // A session log: the header row, then one event a line.
//! let log = [
//!     r#"{"type":"session","version":4,"id":"s-1"}"#,
//!     r#"{"seq":1,"time":1,"type":"step/start","data":{"turn":1,"step":1}}"#,
//!     r#"{"seq":2,"time":2,"type":"system/message","surfaceOp":"append","data":{"turn":1,"step":1,"message":{"role":"system","content":[{"type":"text","text":"Be terse."}]}}}"#,
//!     r#"{"seq":3,"time":3,"type":"user/message","surfaceOp":"append","data":{"role":"user","content":[{"type":"text","text":"Hi"}]}}"#,
//!     r#"{"seq":4,"time":4,"type":"step/start","data":{"turn":1,"step":2}}"#,
//!     r#"{"seq":5,"time":5,"type":"system/message","surfaceOp":"append","data":{"turn":1,"step":2,"message":{"role":"system","content":[{"type":"text","text":"Be brief."}]}}}"#,
//! ]
//! .join("\n");
//!
//! let mut conversation = Conversation::new();
//! conversation.load_json(&log, LoadOptions::default())?;
//!
//! // The prompt in force after seq 3, and after the appended update at seq 5.
//! let prompt_at = |seq| {
//!     let state = conversation.state_at(seq)?;
//!     state.effective().map(|node| node.text.to_string())
//! };
//! assert_eq!(prompt_at(3).as_deref(), Some("Be terse."));
//! assert_eq!(prompt_at(5).as_deref(), Some("Be brief."));
//!
//! // The context at seq 3: the system prompt and the user's message.
//! let context = conversation.context_at(3);
//! assert_eq!(context.nodes.len(), 2);
//! assert!(context.breakdown.total_tokens > 0);
//!
//! // The cache ledger: one entry per request (one per step here).
//! let ledger = conversation.cache_ledger(&CacheOptions::default())?;
//! assert_eq!(ledger.requests.len(), 2);
//! assert_eq!(ledger.summary.requests, 2);
//! # Ok::<(), promptfold::Error>(())
//! ```
//!
//! Without a window, one event at a time: each state is persistent, so the earlier one is kept.
//!
//! ```
//! use promptfold::{inspect_system_prompt, parse_events};
//!
//! let events = parse_events(r#"[
//!   {"seq":1,"time":1,"type":"system/message","surfaceOp":"append",
//!    "data":{"turn":1,"step":1,"message":{"role":"system","content":[{"type":"text","text":"A"}]}}},
//!   {"seq":2,"time":2,"type":"system/message","surfaceOp":"append",
//!    "data":{"turn":1,"step":2,"message":{"role":"system","content":[{"type":"text","text":"B"}]}}}
//! ]"#)?;
//! let first = inspect_system_prompt(None, &events[0], None);
//! let second = inspect_system_prompt(first.as_ref(), &events[1], None).expect("relevant");
//! let effective = second.effective().expect("a prompt");
//! assert_eq!((&*effective.text, effective.update), ("B", true));
//! // The earlier state is untouched.
//! assert_eq!(first.and_then(|s| s.effective().map(|n| n.text.clone())).as_deref(), Some("A"));
//! # Ok::<(), promptfold::Error>(())
//! ```
//!
//! ## Threads
//!
//! [`Conversation`], [`SystemPromptState`] and the results that carry prompt texts, config and
//! tools values or diffs ([`SystemPromptNode`], [`PromptSnapshot`], [`ChatCard`], [`EventLine`],
//! [`Views`], [`RequestContext`], the `Rc<PromptDiff>` of [`Conversation::card_diff`], ...) are
//! neither `Send` nor `Sync`: they share those values through `Rc`, so that the states, cards,
//! lines and requests that show one prompt hold one copy of it, and a persistent state shares
//! all but its change with the state before it, without atomic counts on the fold's path. Keep
//! a conversation and its results on the thread that made them; to work elsewhere, move the
//! log's text there and load it there, or send plain values out (numbers, copied `String`s,
//! `serde` output). docs/api.md ("Threads") has the reasons.
//!
//! ```compile_fail
//! fn send<T: Send>() {}
//! send::<promptfold::Conversation>(); // Not Send: it shares its texts through `Rc`.
//! ```
//!
//! ## More
//!
//! The repository's `docs/` folder has the rest: `session-logs.md` (framing, `feed`),
//! `context.md` (contexts), `cache.md` (the ledger and [`LedgerStream`]), `diff.md` (prompt
//! diffs), `api.md` (the API's rules: options, slices, semver) and `BEHAVIOUR.md` (the rules
//! of the fold). The same crate builds the npm package (feature `wasm`).

// The panic lints are denied in Cargo.toml's `[lints]` table; the unit tests may panic.
#![cfg_attr(
    test,
    allow(
        clippy::unwrap_used,
        clippy::expect_used,
        clippy::indexing_slicing,
        clippy::panic,
        clippy::unreachable,
        clippy::todo,
        clippy::arithmetic_side_effects
    )
)]

mod error;
mod fold;
mod front_vec;
#[cfg(feature = "testkit")]
mod heap;
mod input;
mod pair_hash;
mod room;
mod seq;
mod sort;
#[cfg(test)]
mod test_random;
mod views;
mod window;

/// The JavaScript API, as Rust items (feature `wasm`): what the npm package exports.
#[cfg(feature = "wasm")]
pub mod wasm;

/// The session-log generator of the tests, fuzz targets and benches (feature `testkit`).
#[cfg(feature = "testkit")]
pub mod testkit;

#[cfg(doctest)]
#[doc = include_str!("../README.md")]
struct ReadmeExamples;

#[cfg(doctest)]
#[doc = include_str!("../docs/cache.md")]
struct CacheDocExamples;

pub use error::Error;
pub use fold::request::{
    inspect_request_prompt, ChangeKind, PromptChange, PromptSnapshot, RequestPromptInspection,
};
pub use fold::surface::NodeType;
pub use fold::{
    inspect_system_prompt, PositionedSystem, SystemPromptNode, SystemPromptState,
    SystemPromptStateData,
};
pub use input::event::{
    EventKind, HeaderReason, MessageRole, RequestHeader, Seq, SessionEvent, SurfaceMessage,
    SurfaceOp, Time, TurnField,
};
pub use input::json::{JsonObject, JsonValue};
pub use input::parse::framing::{TornTail, OLDEST_FORMAT_VERSION};
pub use input::parse::parse_events;
pub use input::text::JsonText;
pub use views::cache::{
    CacheBreaks, CacheCause, CacheCost, CacheEntry, CacheLedger, CacheObserved, CacheOptions,
    CacheSummary, CacheTrade, ObservedCounts, ObservedSums, Prices, Route, SummaryCost,
    TokenPrices,
};
pub use views::chat::{CardKey, CardSource, ChatCard, TitleKey};
pub use views::context::{
    Context, ContextBreakdown, ContextNode, ContextSummary, ContextTotals, RequestContext,
};
pub use views::diff::{
    diff_prompts, ConfigDiff, DiffHunk, PromptDiff, PromptSection, SectionStatus, SystemDiff,
    TextDiff, ToolDiff, ToolStatus, ToolsDiff,
};
pub use views::location::{Location, Locator};
pub use views::slices::{CardsSlice, LinesSlice, RequestsSlice, SeqIndex, ViewCounts};
pub use views::splice::{ListSplice, ViewSplices};
pub use views::trajectory::{HeaderFact, Trajectory, TrajectoryRequest};
pub use views::{ChatChange, ConversationChange, EventLine, Views};
pub use window::conversation::Conversation;
pub use window::ledger_stream::LedgerStream;
pub use window::options::LoadOptions;
