//! What the model saw: the context at one point of the window, from the surface fold, and its
//! token breakdown.

use std::rc::Rc;

use serde::Serialize;

use crate::fold::surface::{NodeType, SurfaceSums, Survivor};
use crate::input::event::Seq;
use crate::input::json::JsonValue;

/// A surviving surface node of a context.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "wasm", derive(tsify::Tsify))]
#[non_exhaustive]
pub struct ContextNode {
    /// The seq of the event that made the node.
    pub seq: Seq,
    /// The event type.
    #[serde(rename = "type")]
    #[cfg_attr(
        feature = "wasm",
        tsify(
            type = "\"system/message\" | \"user/message\" | \"assistant/message\" | \"tool/result\" | \"developer/message\""
        )
    )]
    pub kind: &'static str,
    /// Its surface position (its own seq, or the position of the node it sits in place of).
    pub position: Seq,
    /// Its estimated tokens.
    pub tokens: u32,
}

/// The estimated tokens of a context, by part. The parts sum to the total. Every context
/// (`contextAt`, `contextSummaryAt`, a request's `context`) has these members itself.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "wasm", derive(tsify::Tsify))]
#[non_exhaustive]
pub struct ContextBreakdown {
    /// The system prompt in force: the last system node in surface order whose cost is above 0.
    pub system_tokens: u32,
    /// Every other surviving system node (the harness counts them among messages).
    pub superseded_system_tokens: u32,
    /// The tools of the latest request header.
    pub tools_tokens: u32,
    /// Every other surviving node.
    pub message_tokens: u32,
    /// The sum of the parts.
    pub total_tokens: u32,
}

/// The context at one point: its nodes in surface order, their breakdown, and whether the
/// window cannot know it.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "wasm", derive(tsify::Tsify))]
#[non_exhaustive]
pub struct Context {
    /// The surviving nodes, in surface order.
    pub nodes: Vec<ContextNode>,
    /// The token breakdown (its members are the context's own in JS and JSON).
    #[serde(flatten)]
    pub breakdown: ContextBreakdown,
    /// Whether a replacement reached an endpoint before the window start that the window does
    /// not know (a prepend resolves it). The nodes before the window start are never known:
    /// a window with more events before it (`hasMore`) misses them too.
    pub incomplete: bool,
}

/// The token breakdown of the context at one point, without its nodes (`contextSummaryAt`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "wasm", derive(tsify::Tsify))]
#[non_exhaustive]
pub struct ContextSummary {
    /// The token breakdown (its members are the summary's own in JS and JSON).
    #[serde(flatten)]
    pub breakdown: ContextBreakdown,
    /// Whether the context is incomplete (as `incomplete` of `contextAt`).
    pub incomplete: bool,
}

/// The context of one trajectory request and what the log shows of its prefix cache.
///
/// The request is the one its step sent: its context is read just before the first
/// `assistant/message` after the step start (the answer) and before the next step start, or,
/// unanswered, just before the next step start (at the window's last event for the last step).
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "wasm", derive(tsify::Tsify))]
#[non_exhaustive]
pub struct RequestContext {
    /// The seq the context is read at (`contextAt(seq)` gives its nodes).
    pub seq: Seq,
    /// The token breakdown of the context (its members are the request context's own in JS
    /// and JSON).
    #[serde(flatten)]
    pub breakdown: ContextBreakdown,
    /// Whether the context is incomplete (as `incomplete` of `contextAt`).
    pub incomplete: bool,
    /// The seq of the answering assistant message, when one is loaded.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "wasm", tsify(optional))]
    pub answer_seq: Option<Seq>,
    /// The answer's `usage` as the log has it (`inputTokens`, `outputTokens`,
    /// `cacheReadTokens`, ...).
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "wasm", tsify(type = "unknown", optional))]
    pub usage: Option<Rc<JsonValue>>,
    /// Whether the request starts a new series: it is the first request of the window, or
    /// between the previous request's context and this one's a header has reason `series` or
    /// `startsSeries`, a replace rewrote part of the context, or the tool set changed. It marks
    /// a boundary, not a cache verdict: the prefix before a replace or an added tool may still
    /// be cached; the cache ledger (`cacheLedger`) says what each request kept and lost.
    pub new_series: bool,
}

/// Totals of the window's requests and prompt changes.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "wasm", derive(tsify::Tsify))]
#[non_exhaustive]
pub struct ContextTotals {
    /// Trajectory requests.
    pub requests: u32,
    /// Requests that start a new series (`newSeries`; the cache ledger says what they kept).
    pub new_series: u32,
    /// System prompts appended while an earlier nonempty one survived (in-history updates).
    pub prompts_appended: u32,
    /// System prompts that replaced a range of the surface (rewritten at the head).
    pub prompts_rewritten: u32,
    /// Superseded-prompt tokens carried, summed over all requests.
    pub superseded_system_tokens: f64,
    /// Total tokens of all requests' contexts.
    pub total_tokens: f64,
    /// `usage.cacheReadTokens` summed over the answers that have it as a number.
    pub cache_read_tokens: f64,
    /// Requests whose answer has a `usage` with a numeric `cacheReadTokens`.
    pub answers_with_cache_reads: u32,
}

/// The event type of a node type.
pub(crate) fn type_name(node: NodeType) -> &'static str {
    match node {
        NodeType::System => "system/message",
        NodeType::User => "user/message",
        NodeType::Assistant => "assistant/message",
        NodeType::Tool => "tool/result",
        NodeType::Developer => "developer/message",
    }
}

impl ContextBreakdown {
    /// The breakdown of a fold state's sums.
    pub(crate) fn of(sums: &SurfaceSums) -> ContextBreakdown {
        let system = sums.sums.latest_system;
        let superseded = sums.sums.system.saturating_sub(system);
        let total = [system, superseded, sums.tools, sums.sums.messages]
            .into_iter()
            .fold(0u32, u32::saturating_add);
        ContextBreakdown {
            system_tokens: system,
            superseded_system_tokens: superseded,
            tools_tokens: sums.tools,
            message_tokens: sums.sums.messages,
            total_tokens: total,
        }
    }
}

impl Context {
    /// The context made of a fold state's nodes and sums.
    pub(crate) fn of(nodes: &[Survivor], sums: &SurfaceSums) -> Context {
        Context {
            nodes: nodes
                .iter()
                .map(|node| ContextNode {
                    seq: node.seq,
                    kind: type_name(node.node),
                    position: node.position,
                    tokens: node.tokens,
                })
                .collect(),
            breakdown: ContextBreakdown::of(sums),
            incomplete: sums.incomplete,
        }
    }
}
