//! `SystemPromptState` (an opaque handle over a shared Rust state) and the two plain functions.

use std::rc::{Rc, Weak};

use wasm_bindgen::convert::TryFromJsValue;
use wasm_bindgen::prelude::*;

use super::convert::{event_from_js, optional_json};
use super::data::{inspection_to_js, node_to_js, nodes_to_js, state_to_js};
use super::error::{throw, to_js_error};
use crate::fold::request::inspect_request_prompt;
use crate::fold::{inspect_system_prompt, SystemPromptState};
use crate::wasm::plain::{node_from_json, snapshot_from_json, window_start_from_json};

/// A state of the system-prompt fold. Immutable: every earlier state stays valid. Holding it
/// keeps its shared structure alive; `free()` it, or let the garbage collector do so. A handle
/// from `Conversation.stateAt` belongs to the conversation (see there): `clone()` it for one
/// of your own.
#[wasm_bindgen(js_name = SystemPromptState)]
pub struct JsSystemPromptState {
    inner: SystemPromptState,
    /// Set on handles a `Conversation` caches: it keeps a `Weak` to this, which dies when the
    /// handle is freed.
    _alive: Option<Rc<()>>,
}

impl JsSystemPromptState {
    /// Wraps a core state in a JS handle.
    pub(crate) fn new(inner: SystemPromptState) -> JsSystemPromptState {
        JsSystemPromptState {
            inner,
            _alive: None,
        }
    }

    /// Wraps a core state in a JS handle for a cache, with a `Weak` that tells whether the
    /// handle is still alive (not freed).
    pub(crate) fn cached(inner: SystemPromptState) -> (JsSystemPromptState, Weak<()>) {
        let alive = Rc::new(());
        let weak = Rc::downgrade(&alive);
        let handle = JsSystemPromptState {
            inner,
            _alive: Some(alive),
        };
        (handle, weak)
    }
}

#[wasm_bindgen(js_class = SystemPromptState)]
impl JsSystemPromptState {
    /// The first seq the fold knows: the window start, or the first relevant event's seq.
    #[wasm_bindgen(getter, js_name = firstSeq)]
    pub fn first_seq(&self) -> f64 {
        self.inner.first_seq() as f64
    }

    /// Whether a replacement reached events of unknown order, so the prompt is withheld.
    #[wasm_bindgen(getter)]
    pub fn uncertain(&self) -> bool {
        self.inner.is_uncertain()
    }

    /// The surviving system nodes in surface order, with their positions.
    #[wasm_bindgen(getter, unchecked_return_type = "PositionedSystem[]")]
    pub fn nodes(&self) -> JsValue {
        nodes_to_js(&self.inner.nodes().collect::<Vec<_>>())
    }

    /// Surviving replacements as `[replacementSeq, position]` pairs, ascending by seq (the
    /// shape of `toJSON().replacements`; `new Map(state.replacements)` gives a map).
    #[wasm_bindgen(getter, unchecked_return_type = "[Seq, Seq][]")]
    pub fn replacements(&self) -> js_sys::Array {
        self.inner
            .replacements()
            .map(|(seq, position)| {
                js_sys::Array::of2(
                    &JsValue::from_f64(seq as f64),
                    &JsValue::from_f64(position as f64),
                )
            })
            .collect()
    }

    /// The prompt in force, `undefined` when none (or withheld).
    #[wasm_bindgen(getter, unchecked_return_type = "SystemPromptNode | undefined")]
    pub fn effective(&self) -> JsValue {
        node_to_js(self.inner.effective())
    }

    /// The node the last folded event introduced, `undefined` unless it was a system message.
    #[wasm_bindgen(getter, unchecked_return_type = "SystemPromptNode | undefined")]
    pub fn introduced(&self) -> JsValue {
        node_to_js(self.inner.introduced())
    }

    /// A new handle to the same state (shared, not copied), to be freed on its own.
    #[wasm_bindgen(js_name = clone)]
    pub fn clone_handle(&self) -> JsSystemPromptState {
        JsSystemPromptState::new(self.inner.clone())
    }

    /// The state as plain JSON data (FORMAT.md's `SystemPromptState`, `null` for none).
    #[wasm_bindgen(js_name = toJSON, unchecked_return_type = "SystemPromptStateJson")]
    pub fn to_json(&self) -> JsValue {
        state_to_js(&self.inner.to_json(), true)
    }
}

/// Folds one event into `previous` (BEHAVIOUR.md section 2) and returns the new state; an
/// irrelevant event returns `previous` (a new handle to the same state), `undefined` while there
/// is none. Throws a `PromptfoldError` for an invalid event. A drop-in for upstream's
/// `inspectSystemPrompt`: same arguments in the same order.
#[wasm_bindgen(js_name = inspectSystemPrompt, unchecked_return_type = "SystemPromptState | undefined")]
pub fn inspect_system_prompt_js(
    #[wasm_bindgen(unchecked_param_type = "SystemPromptState | null | undefined")]
    previous: JsValue,
    #[wasm_bindgen(unchecked_param_type = "SessionEvent")] event: JsValue,
    #[wasm_bindgen(unchecked_optional_param_type = "InspectOptions | null")] options: Option<
        JsValue,
    >,
) -> Result<JsValue, JsValue> {
    let previous = state_from_js(&previous)?;
    let event = throw(event_from_js(&event))?;
    let options = options.unwrap_or(JsValue::UNDEFINED);
    let window_start = match throw(optional_json(&options, "options"))? {
        Some(options) => throw(window_start_from_json(&options))?,
        None => None,
    };
    let state = inspect_system_prompt(previous.as_ref(), &event, window_start);
    Ok(state.map_or(JsValue::UNDEFINED, |inner| {
        JsValue::from(JsSystemPromptState::new(inner))
    }))
}

/// Reads a `SystemPromptState | undefined` argument without taking the caller's handle: its
/// `clone()` gives a fresh handle, and that one is taken. What `clone()` throws is passed on as
/// it is: for a freed handle, the glue's `FREED` error. From the package, the glue has refused
/// anything but a live state of this module before (scripts/argument-glue.mjs), naming the
/// argument.
fn state_from_js(value: &JsValue) -> Result<Option<SystemPromptState>, JsValue> {
    if value.is_undefined() || value.is_null() {
        return Ok(None);
    }
    let invalid = || {
        to_js_error(&crate::Error::InvalidArgument {
            argument: "previous".to_owned(),
            message: "expected a live SystemPromptState or undefined".to_owned(),
        })
    };
    let method = js_sys::Reflect::get(value, &JsValue::from_str("clone")).map_err(|_| invalid())?;
    let clone = method
        .dyn_into::<js_sys::Function>()
        .map_err(|_| invalid())?;
    let copy = clone.call0(value)?;
    let handle = JsSystemPromptState::try_from_js_value(copy).map_err(|_| invalid())?;
    Ok(Some(handle.inner))
}

/// Inspects a `request/header` event against the previous request's prompt (BEHAVIOUR.md section
/// 3); `system` is the effective prompt in force just before it. Throws a `PromptfoldError` when
/// the event is not a request header or an argument has the wrong shape. A drop-in for
/// upstream's `inspectRequestPrompt`: same arguments in the same order (upstream's
/// `ConversationPromptSnapshot` is `PromptSnapshot` here).
#[wasm_bindgen(js_name = inspectRequestPrompt, unchecked_return_type = "RequestPromptInspection")]
pub fn inspect_request_prompt_js(
    #[wasm_bindgen(unchecked_param_type = "PromptSnapshot | null | undefined")] previous: JsValue,
    #[wasm_bindgen(unchecked_param_type = "SessionEvent")] event: JsValue,
    #[wasm_bindgen(unchecked_param_type = "SystemPromptNode | null | undefined")] system: JsValue,
) -> Result<JsValue, JsValue> {
    let previous = match throw(optional_json(&previous, "previous"))? {
        Some(previous) => Some(throw(snapshot_from_json(&previous))?),
        None => None,
    };
    let system = match throw(optional_json(&system, "system"))? {
        Some(system) => Some(throw(node_from_json(&system))?),
        None => None,
    };
    let event = throw(event_from_js(&event))?;
    let inspection = throw(inspect_request_prompt(
        previous.as_ref(),
        &event,
        system.as_ref(),
    ))?;
    Ok(inspection_to_js(Some(&inspection)))
}
