//! `conversation.contextAt(seq)` and `conversation.contextSummaryAt(seq)`: the context of one
//! point, crossing as numbers for JS to build (as `wasm::outgoing` does for the views).

use wasm_bindgen::prelude::*;

use super::conversation::JsConversation;
use super::convert::seq_from_js;
use super::numbers::head;
use super::outgoing::length;
use crate::views::context::{Context, ContextSummary, ContextTotals};

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
        let ContextSummary {
            breakdown,
            incomplete,
        } = match seq_from_js(seq) {
            Some(seq) => self.conversation().context_summary_at(seq),
            None => ContextSummary::default(),
        };
        let [system, superseded, tools, messages, total, _] = head(&breakdown, incomplete);
        // Six arguments, not a slice: a view of wasm memory per call cost more than the rest.
        make_summary(system, superseded, tools, messages, total, incomplete)
    }
}
