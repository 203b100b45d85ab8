//! The trajectory view packed as numbers for JS to build (see `wasm::outgoing`): the same members
//! in the same order as the serializer writes them, optional members left out when absent.
//! Prompt texts, configs and tool lists are shared JS values, as the serializer shares them
//! within one conversion; every header and request gets prompt objects of its own.

use crate::fold::request::{ChangeKind, PromptChange, PromptSnapshot};
use crate::fold::SystemPromptNode;
use crate::views::trajectory::{HeaderFact, Trajectory, TrajectoryRequest};

use super::outgoing::{source_slot, Outgoing};

/// The numbers of a snapshot.
const SNAPSHOT_SLOTS: usize = 3;

/// The numbers [`pack_change`] appends.
fn change_slots(change: Option<&PromptChange>) -> usize {
    match change {
        None => 1,
        Some(change) if change.previous.is_some() => 5 + SNAPSHOT_SLOTS,
        Some(_) => 5,
    }
}

/// The numbers [`pack_trajectory`] appends, counted first so that they are reserved once: grown
/// by doubling, the list held its old and new buffers at once (24 MB on prune-heavy 32,000),
/// and wasm memory never shrinks.
pub(super) fn trajectory_slots(trajectory: &Trajectory) -> usize {
    let headers = trajectory.headers.iter().map(|header| {
        (3 + SNAPSHOT_SLOTS + 2).saturating_add(change_slots(header.change.as_ref()))
    });
    let requests = trajectory.requests.iter().map(request_slots);
    let nodes = trajectory.system_prompts.len().saturating_mul(NODE_SLOTS);
    headers.chain(requests).fold(nodes, usize::saturating_add)
}

/// The numbers [`pack_request`] appends for `request`.
pub(super) fn request_slots(request: &TrajectoryRequest) -> usize {
    let prompt = if request.prompt.is_some() {
        SNAPSHOT_SLOTS
    } else {
        0
    };
    (4 + 1 + super::numbers::REQUEST_CONTEXT_SLOTS)
        .saturating_add(prompt)
        .saturating_add(change_slots(request.prompt_change.as_ref()))
}

/// The numbers of a system prompt node.
const NODE_SLOTS: usize = 6;

/// Appends `trajectory`: its header facts, requests and system prompt nodes, in that order
/// (read back by the JS in `wasm::outgoing`).
pub(super) fn pack_trajectory(trajectory: &Trajectory, out: &mut Outgoing) {
    for header in &trajectory.headers {
        pack_header(header, out);
    }
    for request in &trajectory.requests {
        pack_request(request, out);
    }
    for node in &trajectory.system_prompts {
        pack_node(node, out);
    }
}

fn pack_header(header: &HeaderFact, out: &mut Outgoing) {
    out.extend([
        source_slot(header.source),
        Outgoing::integer(header.seq),
        Outgoing::time(header.time),
    ]);
    pack_snapshot(&header.prompt, out);
    pack_change(header.change.as_ref(), out);
    out.extend([
        Outgoing::optional(header.turn),
        Outgoing::optional(header.step),
    ]);
}

pub(super) fn pack_request(request: &TrajectoryRequest, out: &mut Outgoing) {
    out.extend([
        Outgoing::integer(request.start_seq),
        Outgoing::optional(request.turn),
        Outgoing::optional(request.step),
    ]);
    match &request.prompt {
        Some(prompt) => {
            out.extend([1.0]);
            pack_snapshot(prompt, out);
        }
        None => out.extend([0.0]),
    }
    let config = out.optional_json(request.request_config.as_ref());
    out.extend([config]);
    pack_change(request.prompt_change.as_ref(), out);
    super::numbers::pack_request_context(&request.context, out);
}

/// Appends a system prompt node: six numbers, its text by table index.
pub(super) fn pack_node(node: &SystemPromptNode, out: &mut Outgoing) {
    let text = out.text(&node.text);
    out.extend([
        Outgoing::integer(node.seq),
        Outgoing::time(node.time),
        node.turn as f64,
        node.step as f64,
        text,
        f64::from(u8::from(node.update)),
    ]);
}

/// Appends a prompt snapshot: its config (`-1` for none), system text and tools by table index.
pub(super) fn pack_snapshot(snapshot: &PromptSnapshot, out: &mut Outgoing) {
    let config = out.optional_json(snapshot.config.as_ref());
    let system = out.text(&snapshot.system);
    let tools = out.json(&snapshot.tools);
    out.extend([config, system, tools]);
}

/// Appends an optional change: a presence flag, then its seq, time, kind and optional previous
/// snapshot.
pub(super) fn pack_change(change: Option<&PromptChange>, out: &mut Outgoing) {
    let Some(change) = change else {
        out.extend([0.0]);
        return;
    };
    let kind = match change.kind {
        ChangeKind::Initial => 0.0,
        ChangeKind::System => 1.0,
        ChangeKind::Tools => 2.0,
        ChangeKind::SystemAndTools => 3.0,
    };
    out.extend([
        1.0,
        Outgoing::integer(change.seq),
        Outgoing::time(change.time),
        kind,
    ]);
    match &change.previous {
        Some(previous) => {
            out.extend([1.0]);
            pack_snapshot(previous, out);
        }
        None => out.extend([0.0]),
    }
}
