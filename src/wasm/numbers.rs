//! A context's breakdown and a request's context as numbers (read in JS by
//! `src/wasm/js/outgoing.js` and `src/wasm/context.rs`).

use super::outgoing::Outgoing;
use crate::views::context::{ContextBreakdown, RequestContext};

/// The numbers of a request's context: its seq, the six of [`head`], and four more.
pub(super) const REQUEST_CONTEXT_SLOTS: usize = 11;

/// Appends a request's context (read by `requestContext` in `src/wasm/js/outgoing.js`).
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

/// The breakdown and the incomplete flag as six numbers.
pub(super) fn head(breakdown: &ContextBreakdown, incomplete: bool) -> [f64; 6] {
    [
        f64::from(breakdown.system_tokens),
        f64::from(breakdown.superseded_system_tokens),
        f64::from(breakdown.tools_tokens),
        f64::from(breakdown.message_tokens),
        f64::from(breakdown.total_tokens),
        f64::from(u8::from(incomplete)),
    ]
}
