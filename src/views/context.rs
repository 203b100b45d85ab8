//! What the model saw: the context at one point of the window, from the surface fold, and its
//! token breakdown.

use serde::Serialize;

use crate::event::Seq;
use crate::fold::surface::{NodeType, SurfaceSums, Survivor};

/// A surviving surface node of a context.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(target_arch = "wasm32", derive(tsify::Tsify))]
pub struct ContextNode {
    /// The seq of the event that made the node.
    pub seq: Seq,
    /// The event type.
    #[serde(rename = "type")]
    #[cfg_attr(
        target_arch = "wasm32",
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

/// The estimated tokens of a context, by part. The parts sum to the total.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(target_arch = "wasm32", derive(tsify::Tsify))]
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
#[cfg_attr(target_arch = "wasm32", derive(tsify::Tsify))]
pub struct Context {
    /// The surviving nodes, in surface order.
    pub nodes: Vec<ContextNode>,
    /// The token breakdown.
    pub breakdown: ContextBreakdown,
    /// Whether a replacement reached an endpoint before the window start that the window does
    /// not know (a prepend resolves it). The nodes before the window start are never known:
    /// a window with more events before it (`hasMore`) misses them too.
    pub incomplete: bool,
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
