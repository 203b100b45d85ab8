//! Fold states, their nodes, request inspections and event lines as plain JS objects. Like the
//! cards (`wasm::cards`), they cross as numbers and a table of shared values, and JS builds the
//! objects (see `wasm::outgoing`): the members of FORMAT.md's shapes in its order, an absent
//! optional member left out, and "none" as `undefined` (`null` in `toJSON()`).

use wasm_bindgen::JsValue;

use crate::error::Error;
use crate::fold::request::RequestPromptInspection;
use crate::fold::{PositionedSystem, SystemPromptNode, SystemPromptStateData};
use crate::room::try_room;
use crate::views::EventLine;
use crate::wasm::cache;

use super::outgoing::{length, make_data, Outgoing};
use super::trajectory::{pack_change, pack_node, pack_snapshot};

/// What a packed result holds (the JS side's `promptfoldData` reads it by this number).
#[derive(Clone, Copy)]
enum Shape {
    Nodes = 0,
    Node = 1,
    State = 2,
    StateWithNulls = 3,
    Inspection = 4,
    Lines = 5,
}

/// Packs with `pack` (sharing values within the call) and has JS build the result.
fn build(shape: Shape, count: usize, pack: impl FnOnce(&mut Outgoing)) -> JsValue {
    cache::sharing(|| {
        let mut out = Outgoing::with_capacity(16);
        pack(&mut out);
        make_data(&out.numbers, &out.values, shape as u32, length(count))
    })
}

/// The surviving nodes with their positions: an array of `{ position, node }`.
pub(super) fn nodes_to_js(nodes: &[PositionedSystem]) -> JsValue {
    build(Shape::Nodes, nodes.len(), |out| {
        for node in nodes {
            pack_positioned(node, out);
        }
    })
}

/// A node, `undefined` for none.
pub(super) fn node_to_js(node: Option<&SystemPromptNode>) -> JsValue {
    build(Shape::Node, 0, |out| pack_optional_node(node, out))
}

/// A state as plain data; with `nulls`, "none" is `null` (FORMAT.md's JSON) instead of
/// `undefined`.
pub(super) fn state_to_js(state: &SystemPromptStateData, nulls: bool) -> JsValue {
    let shape = if nulls {
        Shape::StateWithNulls
    } else {
        Shape::State
    };
    build(shape, 0, |out| pack_state(state, out))
}

/// An inspection, `undefined` for none.
pub(super) fn inspection_to_js(inspection: Option<&RequestPromptInspection>) -> JsValue {
    build(Shape::Inspection, 0, |out| match inspection {
        Some(inspection) => {
            out.extend([1.0]);
            pack_inspection(inspection, out);
        }
        None => out.extend([0.0]),
    })
}

/// Event lines: an array of `{ seq, system, request? }`.
/// [`Error::OutOfMemory`] when the memory cannot hold their numbers.
pub(super) fn lines_to_js(lines: &[EventLine]) -> Result<JsValue, Error> {
    cache::sharing(|| {
        let mut out = Outgoing::try_with_capacity(0)?;
        pack_lines(lines, &mut out)?;
        let count = length(lines.len());
        Ok(make_data(
            &out.numbers,
            &out.values,
            Shape::Lines as u32,
            count,
        ))
    })
}

/// Packs `lines`, making room for each line's numbers first ([`Error::OutOfMemory`] when the
/// memory cannot give it).
pub(super) fn pack_lines(lines: &[EventLine], out: &mut Outgoing) -> Result<(), Error> {
    for line in lines {
        try_room(&mut out.numbers, line_slots(line))?;
        pack_line(line, out);
    }
    Ok(())
}

/// At most how many numbers [`pack_line`] writes for `line`: a node takes seven with its
/// position, a replacement two; the seq, the flags, the counts, the state's effective and
/// introduced nodes and a request's inspection fewer than 48.
fn line_slots(line: &EventLine) -> usize {
    let (nodes, replacements) = line.system.as_ref().map_or((0, 0), |state| {
        (state.nodes.len(), state.replacements.len())
    });
    48usize
        .saturating_add(nodes.saturating_mul(7))
        .saturating_add(replacements.saturating_mul(2))
}

fn pack_optional_node(node: Option<&SystemPromptNode>, out: &mut Outgoing) {
    match node {
        Some(node) => {
            out.extend([1.0]);
            pack_node(node, out);
        }
        None => out.extend([0.0]),
    }
}

fn pack_positioned(positioned: &PositionedSystem, out: &mut Outgoing) {
    out.extend([Outgoing::integer(positioned.position)]);
    pack_node(&positioned.node, out);
}

fn pack_state(state: &SystemPromptStateData, out: &mut Outgoing) {
    out.extend([
        Outgoing::integer(state.first_seq),
        f64::from(u8::from(state.uncertain)),
        f64::from(length(state.nodes.len())),
    ]);
    for node in &state.nodes {
        pack_positioned(node, out);
    }
    out.extend([f64::from(length(state.replacements.len()))]);
    for (seq, position) in &state.replacements {
        out.extend([Outgoing::integer(*seq), Outgoing::integer(*position)]);
    }
    pack_optional_node(state.effective.as_ref(), out);
    pack_optional_node(state.introduced.as_ref(), out);
}

fn pack_inspection(inspection: &RequestPromptInspection, out: &mut Outgoing) {
    pack_snapshot(&inspection.prompt, out);
    pack_change(inspection.change.as_ref(), out);
}

pub(super) fn pack_line(line: &EventLine, out: &mut Outgoing) {
    out.extend([Outgoing::integer(line.seq)]);
    match &line.system {
        Some(state) => {
            out.extend([1.0]);
            pack_state(state, out);
        }
        None => out.extend([0.0]),
    }
    match &line.request {
        Some(inspection) => {
            out.extend([1.0]);
            pack_inspection(inspection, out);
        }
        None => out.extend([0.0]),
    }
}
