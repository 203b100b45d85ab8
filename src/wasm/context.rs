//! `conversation.contextAt(seq)` and `conversation.contextSummaryAt(seq)`: the context of one
//! point, crossing as numbers for JS to build (as `wasm::outgoing` does for the views).

use wasm_bindgen::prelude::*;

use super::conversation::JsConversation;
use super::convert::seq_from_js;
use super::outgoing::{length, Outgoing};
use crate::views::context::{Context, ContextBreakdown, ContextTotals, RequestContext};

#[wasm_bindgen(inline_js = r#"
const NODE_TYPES = ["system/message", "user/message", "assistant/message", "tool/result", "developer/message"];

// A ContextBreakdown from five numbers at `at`.
function breakdown(numbers, at) {
  return {
    systemTokens: numbers[at], supersededSystemTokens: numbers[at + 1], toolsTokens: numbers[at + 2],
    messageTokens: numbers[at + 3], totalTokens: numbers[at + 4],
  };
}

// A Context: the breakdown, the incomplete flag, then four numbers per node.
export function promptfoldContext(numbers, count) {
  const nodes = new Array(count);
  for (let i = 0, at = 6; i < count; i++, at += 4) {
    nodes[i] = { seq: numbers[at], type: NODE_TYPES[numbers[at + 1]], position: numbers[at + 2], tokens: numbers[at + 3] };
  }
  return { nodes, breakdown: breakdown(numbers, 0), incomplete: numbers[5] === 1 };
}

// ContextTotals from its eight numbers.
export function promptfoldContextTotals(n) {
  return {
    requests: n[0], newSeries: n[1], promptsAppended: n[2], promptsRewritten: n[3],
    supersededSystemTokens: n[4], totalTokens: n[5], cacheReadTokens: n[6], answersWithCacheReads: n[7],
  };
}

// A ContextSummary: the breakdown and the incomplete flag.
export function promptfoldContextSummary(numbers) {
  return { breakdown: breakdown(numbers, 0), incomplete: numbers[5] === 1 };
}
"#)]
extern "C" {
    #[wasm_bindgen(js_name = promptfoldContext)]
    fn make_context(numbers: &[f64], count: u32) -> JsValue;

    #[wasm_bindgen(js_name = promptfoldContextSummary)]
    fn make_summary(numbers: &[f64]) -> JsValue;

    #[wasm_bindgen(js_name = promptfoldContextTotals)]
    fn make_totals(numbers: &[f64]) -> JsValue;
}

/// Appends a request's context (read by `requestContext` in `wasm::outgoing`).
pub(super) fn pack_request_context(context: &RequestContext, out: &mut Outgoing) {
    out.extend([Outgoing::integer(context.seq)]);
    let head = head(&context.breakdown, context.incomplete);
    out.extend(head);
    let usage = out.optional_json(context.usage.as_ref());
    out.extend([
        f64::from(u8::from(context.answer_seq.is_some())),
        context.answer_seq.map_or(0.0, Outgoing::integer),
        usage,
        f64::from(u8::from(context.new_series)),
    ]);
}

#[wasm_bindgen(typescript_custom_section)]
const CONTEXT_TYPES: &'static str = r#"
/** The token breakdown of a context, without its nodes (`conversation.contextSummaryAt`). */
export interface ContextSummary {
  breakdown: ContextBreakdown;
  incomplete: boolean;
}
"#;

/// The breakdown and the incomplete flag as six numbers.
fn head(breakdown: &ContextBreakdown, incomplete: bool) -> [f64; 6] {
    [
        f64::from(breakdown.system_tokens),
        f64::from(breakdown.superseded_system_tokens),
        f64::from(breakdown.tools_tokens),
        f64::from(breakdown.message_tokens),
        f64::from(breakdown.total_tokens),
        f64::from(u8::from(incomplete)),
    ]
}

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
        make_summary(&head(&breakdown, incomplete))
    }
}
