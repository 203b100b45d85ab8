//! # promptfold
//!
//! Which system prompt was the model reading at this point of a coding agent's session, and how
//! should its changes be shown?
//!
//! Some model routes treat the latest system message anywhere in the conversation as the whole
//! system prompt, so an agent harness *appends* a changed prompt after the cached history
//! instead of rewriting message 0. A client must then fold the log in surface order, through
//! replacements (compaction, pruning, head rewrites), to know the prompt in force at any event.
//! This crate does that fold with persistent maps (every per-event state kept, O(log n) each),
//! and derives what a chat UI and a trajectory viewer show: collapsed prompt cards, request
//! headers with their prompt changes, and per-request prompts.
//!
//! - [`inspect_system_prompt`] folds one event into a state ([`SystemPromptState`]).
//! - [`inspect_request_prompt`] inspects a `request/header` against the previous prompt.
//! - [`Conversation`] holds a loaded window (load, live append, load earlier) and gives
//!   [`Views`], per-event [`EventLine`]s and a [`ConversationChange`] for every call.
//! - [`diff_prompts`] tells what changed between two prompts ([`PromptDiff`]: hunks, named
//!   sections, tools, config); [`Conversation::card_diff`] and [`Conversation::change_diff`] give
//!   it for a card or a trajectory header, on demand.
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
