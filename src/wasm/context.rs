//! `conversation.contextAt(seq)` and `conversation.contextSummaryAt(seq)`: the context of one
//! point, crossing as numbers for JS to build (as `wasm::outgoing` does for the views).

use wasm_bindgen::prelude::*;

use super::conversation::JsConversation;
use super::convert::seq_from_js;
use super::numbers::head;
use super::outgoing::length;
use crate::views::context::{Context, ContextBreakdown, ContextTotals};

#[wasm_bindgen(module = "/src/wasm/js/context.js")]
extern "C" {
    #[wasm_bindgen(js_name = promptfoldContext)]
    fn make_context(numbers: &[f64], count: u32) -> JsValue;

    #[wasm_bindgen(js_name = promptfoldContextSummary)]
    fn make_summary(
        system: f64,
        superseded: f64,
        tools: f64,
        messages: f64,
        total: f64,
        incomplete: bool,
    ) -> JsValue;

    #[wasm_bindgen(js_name = promptfoldContextTotals)]
    fn make_totals(numbers: &[f64]) -> JsValue;
}

#[wasm_bindgen(typescript_custom_section)]
const CONTEXT_TYPES: &'static str = r#"
/**
 * A surviving surface node of a context.
 */
export interface ContextNode {
    /**
     * The seq of the event that made the node.
     */
    seq: Seq;
    /**
     * The event type.
     */
    type: "system/message" | "user/message" | "assistant/message" | "tool/result" | "developer/message";
    /**
     * Its surface position (its own seq, or the position of the node it sits in place of).
     */
    position: Seq;
    /**
     * Its estimated tokens.
     */
    tokens: number;
}

/**
 * The estimated tokens of a context, by part. The parts sum to the total. Every context
 * (`contextAt`, `contextSummaryAt`, a request's `context`) has these members itself.
 */
export interface ContextBreakdown {
    /**
     * The system prompt in force: the last system node in surface order whose cost is above 0.
     */
    systemTokens: number;
    /**
     * Every other surviving system node (the harness counts them among messages).
     */
    supersededSystemTokens: number;
    /**
     * The tools of the latest request header.
     */
    toolsTokens: number;
    /**
     * Every other surviving node.
     */
    messageTokens: number;
    /**
     * The sum of the parts.
     */
    totalTokens: number;
}

/**
 * The context at one point: its nodes in surface order, their token breakdown, and whether the
 * window cannot know it.
 */
export interface Context extends ContextBreakdown {
    /**
     * The surviving nodes, in surface order.
     */
    nodes: ContextNode[];
    /**
     * Whether a replacement reached an endpoint before the window start that the window does
     * not know (a prepend resolves it). The nodes before the window start are never known:
     * a window with more events before it (`hasMore`) misses them too.
     */
    incomplete: boolean;
}

/**
 * The context of one trajectory request and what the log shows of its prefix cache.
 *
 * The request is the one its step sent: its context is read just before the first
 * `assistant/message` after the step start (the answer) and before the next step start, or,
 * unanswered, just before the next step start (at the window's last event for the last step).
 */
export interface RequestContext extends ContextBreakdown {
    /**
     * The seq the context is read at (`contextAt(seq)` gives its nodes).
     */
    seq: Seq;
    /**
     * Whether the context is incomplete (as `incomplete` of `contextAt`).
     */
    incomplete: boolean;
    /**
     * The seq of the answering assistant message, when one is loaded.
     */
    answerSeq?: Seq;
    /**
     * The answer's `usage` as the log has it (`inputTokens`, `outputTokens`,
     * `cacheReadTokens`, ...).
     */
    usage?: unknown;
    /**
     * Whether the request started a new series, so that the prefix cache was expected lost:
     * the first request of the window, a header with reason `series` or `startsSeries`, a
     * replacement, or a changed tool set since the previous request's context.
     */
    newSeries: boolean;
}

/**
 * Totals of the window's requests and prompt changes.
 */
export interface ContextTotals {
    /**
     * Trajectory requests.
     */
    requests: number;
    /**
     * Requests that started a new series (prefix cache expected lost).
     */
    newSeries: number;
    /**
     * System prompts appended while an earlier nonempty one survived (in-history updates).
     */
    promptsAppended: number;
    /**
     * System prompts that replaced a range of the surface (rewritten at the head).
     */
    promptsRewritten: number;
    /**
     * Superseded-prompt tokens carried, summed over all requests.
     */
    supersededSystemTokens: number;
    /**
     * Total tokens of all requests' contexts.
     */
    totalTokens: number;
    /**
     * `usage.cacheReadTokens` summed over the answers that have it as a number.
     */
    cacheReadTokens: number;
    /**
     * Requests whose answer has a `usage` with a numeric `cacheReadTokens`.
     */
    answersWithCacheReads: number;
}

/** The token breakdown of a context, without its nodes (`conversation.contextSummaryAt`). */
export interface ContextSummary extends ContextBreakdown {
    /**
     * Whether the context is incomplete (as `incomplete` of `contextAt`).
     */
    incomplete: boolean;
}
"#;

fn type_slot(kind: &str) -> f64 {
    match kind {
        "system/message" => 0.0,
        "user/message" => 1.0,
        "assistant/message" => 2.0,
        "tool/result" => 3.0,
        _ => 4.0,
    }
}

fn context_to_js(context: &Context) -> JsValue {
    let mut numbers = Vec::with_capacity(context.nodes.len().saturating_mul(4).saturating_add(6));
    numbers.extend(head(&context.breakdown, context.incomplete));
    for node in &context.nodes {
        numbers.extend([
            node.seq as f64,
            type_slot(node.kind),
            node.position as f64,
            f64::from(node.tokens),
        ]);
    }
    make_context(&numbers, length(context.nodes.len()))
}

#[wasm_bindgen(js_class = Conversation)]
impl JsConversation {
    /// What the model's context held at `seq` (after every loaded event with seq <= `seq`):
    /// the surviving surface nodes in surface order with their estimated tokens, the token
    /// breakdown, and whether a replacement reached before the window start (`incomplete`).
    #[wasm_bindgen(js_name = contextAt, unchecked_return_type = "Context")]
    pub fn context_at(&self, seq: f64) -> JsValue {
        let context = match seq_from_js(seq) {
            Some(seq) => self.conversation().context_at(seq),
            None => Context::default(),
        };
        context_to_js(&context)
    }

    /// Totals over the window's requests: requests, new series, prompt changes appended and
    /// rewritten at the head, superseded-prompt tokens summed over all requests, cache reads.
    #[wasm_bindgen(js_name = contextTotals, unchecked_return_type = "ContextTotals")]
    pub fn context_totals(&self) -> JsValue {
        let totals: ContextTotals = self.conversation().context_totals();
        make_totals(&[
            f64::from(totals.requests),
            f64::from(totals.new_series),
            f64::from(totals.prompts_appended),
            f64::from(totals.prompts_rewritten),
            totals.superseded_system_tokens,
            totals.total_tokens,
            totals.cache_read_tokens,
            f64::from(totals.answers_with_cache_reads),
        ])
    }

    /// The breakdown of the context at `seq` without its nodes (a search and a few numbers).
    #[wasm_bindgen(js_name = contextSummaryAt, unchecked_return_type = "ContextSummary")]
    pub fn context_summary_at(&self, seq: f64) -> JsValue {
        let (breakdown, incomplete) = match seq_from_js(seq) {
            Some(seq) => self.conversation().context_summary_at(seq),
            None => (ContextBreakdown::default(), false),
        };
        let [system, superseded, tools, messages, total, _] = head(&breakdown, incomplete);
        // Six arguments, not a slice: a view of wasm memory per call cost more than the rest.
        make_summary(system, superseded, tools, messages, total, incomplete)
    }
}
