//! The `Conversation` class: a loaded window of a session log.

use std::rc::Weak;

use wasm_bindgen::prelude::*;

use super::batch::PackedEvents;
use super::convert::{packed_array, seq_from_js, text_from_bytes};
use super::data::{inspection_to_js, lines_to_js};
use super::error::throw;
use super::state::JsSystemPromptState;
use super::text::read_string_batch;
use crate::conversation::Conversation;
use crate::error::Error;
use crate::event::SessionEvent;
use crate::fold::SystemPromptState;
use crate::intern::JsonInterner;
use crate::parse::packed::read_packed;
use crate::parse::parse_events_with;

/// A window of a session log: load the newest page, append live events, prepend older pages.
/// Every call returns a `ConversationChange`; a call that throws leaves the window unchanged.
#[wasm_bindgen(js_name = Conversation)]
pub struct JsConversation {
    inner: Conversation,
    handles: StateHandles,
}

impl Default for JsConversation {
    fn default() -> Self {
        JsConversation::new()
    }
}

/// The `SystemPromptState` handles `stateAt` gave out, one per kept state (by its index in the
/// window). Making a handle costs most of a `stateAt` call (the JS object and its registration
/// for finalization); states are immutable, so handing out the same handle again is sound.
/// The cache holds each handle's JS object, so the handles live while the conversation does
/// (they are released, and then collected, when it is freed or reloaded).
#[derive(Default)]
struct StateHandles {
    handles: Vec<Option<(JsValue, Weak<()>)>>,
}

impl StateHandles {
    /// The cached handle of the state at `index`, unless there is none or it was freed.
    fn get(&self, index: usize) -> Option<JsValue> {
        match self.handles.get(index) {
            Some(Some((handle, alive))) if alive.strong_count() > 0 => Some(handle.clone()),
            _ => None,
        }
    }

    /// Makes and caches the handle of `state`, the state at `index`.
    fn make(&mut self, index: usize, state: SystemPromptState) -> JsValue {
        let (handle, alive) = JsSystemPromptState::cached(state);
        let handle = JsValue::from(handle);
        if self.handles.len() <= index {
            self.handles.resize_with(index.saturating_add(1), || None);
        }
        if let Some(slot) = self.handles.get_mut(index) {
            *slot = Some((handle.clone(), alive));
        }
        handle
    }

    /// Forgets every handle (after the window's states moved: a load or a prepend).
    fn clear(&mut self) {
        self.handles = Vec::new();
    }
}

/// Grows the wasm memory in one step before a batch is read: `bytes` is what the batch takes in
/// wasm memory. Grown page by page instead, the memory changes size hundreds of times, and the
/// JS engine may run a full garbage collection at each change: measured, a first load of
/// 100,000 events went from about a second to a minute when the page held a large heap. The
/// block goes back to the allocator at once, which keeps it for the read. Half a JSON batch's
/// size covers what a read keeps (most of a log's bytes are payloads the reader skips); twice
/// the size, as before, tripled the memory a first load of 70 MB grew (212 MB against 118 MB)
/// and was slower (1.27 s against 0.93 s).
fn reserve_for(bytes: usize) {
    let mut block: Vec<u8> = Vec::new();
    if block.try_reserve_exact(bytes / 2).is_ok() {
        std::hint::black_box(&mut block);
    }
}

/// A batch as it crosses into wasm.
enum Batch {
    /// JSON text given as a string: read in pieces (see `wasm::text`).
    String(js_sys::JsString),
    /// JSON text given as UTF-8 bytes, copied whole.
    Bytes(String),
    /// JS event objects, packed by `wasm::batch`.
    Packed(PackedEvents),
}

impl Batch {
    /// JSON text (a string or UTF-8 bytes).
    fn json(text: &JsValue) -> Result<Batch, Error> {
        match text.dyn_ref::<js_sys::JsString>() {
            Some(text) => Ok(Batch::String(text.clone())),
            None => text_from_bytes(text).map(Batch::Bytes),
        }
    }

    /// An array of JS event objects.
    fn objects(events: &JsValue) -> Result<Batch, Error> {
        packed_array(events).map(Batch::Packed)
    }

    /// About what reading the batch will take in memory (see [`reserve_for`]).
    fn read_size(&self) -> usize {
        match self {
            Batch::String(text) => text.length() as usize,
            Batch::Bytes(text) => text.len(),
            // Each event is about one record of eight numbers.
            Batch::Packed(packed) => packed
                .numbers
                .len()
                .saturating_mul(32)
                .saturating_add(packed.text.len()),
        }
    }

    /// The batch's events, read with the shared values of `interner`.
    fn read(&self, interner: &mut JsonInterner) -> Result<Vec<SessionEvent>, Error> {
        match self {
            Batch::String(text) => read_string_batch(text, interner),
            Batch::Bytes(text) => parse_events_with(text, interner),
            Batch::Packed(packed) => read_packed(packed.batch(), interner),
        }
    }
}

/// What a call does with its batch.
#[derive(Clone, Copy, PartialEq)]
enum Call {
    Load,
    Append,
    Prepend,
}

impl JsConversation {
    /// The window (for the other modules' methods of this class).
    pub(super) fn conversation(&self) -> &Conversation {
        &self.inner
    }

    /// Reads `batch` and applies it as `call`, returning the change report as a JS value (or
    /// throwing the batch's error). A load or a prepend moves the window's states, so the cached
    /// handles are forgotten when it succeeds.
    fn apply(
        &mut self,
        batch: Result<Batch, Error>,
        call: Call,
        has_more: bool,
    ) -> Result<JsValue, JsValue> {
        let batch = throw(batch)?;
        reserve_for(batch.read_size());
        let events = throw(batch.read(self.inner.batch_interner(call == Call::Load)))?;
        drop(batch);
        let change = throw(match call {
            Call::Load => self.inner.load(events, has_more),
            Call::Append => self.inner.append(events),
            Call::Prepend => self.inner.prepend(events, has_more),
        })?;
        if call != Call::Append {
            self.handles.clear();
        }
        Ok(super::cards::change_to_js(&change))
    }
}

#[wasm_bindgen(js_class = Conversation)]
impl JsConversation {
    /// An empty window.
    #[wasm_bindgen(constructor)]
    pub fn new() -> JsConversation {
        JsConversation {
            inner: Conversation::new(),
            handles: StateHandles::default(),
        }
    }

    /// Replaces the window with `events` (ascending seq); `hasMore`: older events exist.
    #[wasm_bindgen(unchecked_return_type = "ConversationChange")]
    pub fn load(
        &mut self,
        #[wasm_bindgen(unchecked_param_type = "SessionEvent[]")] events: JsValue,
        #[wasm_bindgen(js_name = hasMore)] has_more: bool,
    ) -> Result<JsValue, JsValue> {
        self.apply(Batch::objects(&events), Call::Load, has_more)
    }

    /// Appends live events after the last loaded one.
    #[wasm_bindgen(unchecked_return_type = "ConversationChange")]
    pub fn append(
        &mut self,
        #[wasm_bindgen(unchecked_param_type = "SessionEvent[]")] events: JsValue,
    ) -> Result<JsValue, JsValue> {
        self.apply(Batch::objects(&events), Call::Append, false)
    }

    /// Prepends an older page ("load earlier"); every seq must be below `windowStart`.
    #[wasm_bindgen(unchecked_return_type = "ConversationChange")]
    pub fn prepend(
        &mut self,
        #[wasm_bindgen(unchecked_param_type = "SessionEvent[]")] events: JsValue,
        #[wasm_bindgen(js_name = hasMore)] has_more: bool,
    ) -> Result<JsValue, JsValue> {
        self.apply(Batch::objects(&events), Call::Prepend, has_more)
    }

    /// `load` from JSON text (a JSON array of events, or JSON lines), as a string or UTF-8 bytes.
    #[wasm_bindgen(js_name = loadJson, unchecked_return_type = "ConversationChange")]
    pub fn load_json(
        &mut self,
        #[wasm_bindgen(unchecked_param_type = "string | Uint8Array")] text: JsValue,
        #[wasm_bindgen(js_name = hasMore)] has_more: bool,
    ) -> Result<JsValue, JsValue> {
        self.apply(Batch::json(&text), Call::Load, has_more)
    }

    /// `append` from JSON text (a JSON array of events, or JSON lines), as a string or UTF-8 bytes.
    #[wasm_bindgen(js_name = appendJson, unchecked_return_type = "ConversationChange")]
    pub fn append_json(
        &mut self,
        #[wasm_bindgen(unchecked_param_type = "string | Uint8Array")] text: JsValue,
    ) -> Result<JsValue, JsValue> {
        self.apply(Batch::json(&text), Call::Append, false)
    }

    /// `prepend` from JSON text (a JSON array of events, or JSON lines), as a string or UTF-8
    /// bytes.
    #[wasm_bindgen(js_name = prependJson, unchecked_return_type = "ConversationChange")]
    pub fn prepend_json(
        &mut self,
        #[wasm_bindgen(unchecked_param_type = "string | Uint8Array")] text: JsValue,
        #[wasm_bindgen(js_name = hasMore)] has_more: bool,
    ) -> Result<JsValue, JsValue> {
        self.apply(Batch::json(&text), Call::Prepend, has_more)
    }

    /// The fold state in force at `seq` (after every loaded relevant event with seq <= `seq`),
    /// `undefined` before the first relevant event. The handle belongs to the conversation:
    /// the same state gives the same handle until the next `load` or `prepend` (an `append`
    /// keeps them), and the handles are released when the conversation is freed or collected.
    /// Do not `free()` it unless no one else uses it: freeing is harmless to the conversation
    /// (the next call makes a new handle) but ends that handle for every holder; `clone()` gives
    /// a handle of your own.
    #[wasm_bindgen(js_name = stateAt, unchecked_return_type = "SystemPromptState | undefined")]
    pub fn state_at(&mut self, seq: f64) -> JsValue {
        let Some(index) = seq_from_js(seq).and_then(|seq| self.inner.state_index(seq)) else {
            return JsValue::UNDEFINED;
        };
        if let Some(handle) = self.handles.get(index) {
            return handle;
        }
        match self.inner.state_by_index(index) {
            Some(state) => self.handles.make(index, state),
            None => JsValue::UNDEFINED,
        }
    }

    /// The inspection of the loaded `request/header` at exactly `seq`.
    #[wasm_bindgen(js_name = requestAt, unchecked_return_type = "RequestPromptInspection | undefined")]
    pub fn request_at(&self, seq: f64) -> JsValue {
        let inspection = seq_from_js(seq).and_then(|seq| self.inner.request_at(seq));
        inspection_to_js(inspection)
    }

    /// One line per loaded event: the fold state after it and, for headers, the inspection.
    #[wasm_bindgen(unchecked_return_type = "EventLine[]")]
    pub fn lines(&self) -> JsValue {
        lines_to_js(&self.inner.lines())
    }

    /// The chat cards and trajectory of the window.
    #[wasm_bindgen(unchecked_return_type = "Views")]
    pub fn views(&self) -> Result<JsValue, JsValue> {
        Ok(super::cards::views_to_js(&self.inner.views()))
    }

    /// The first loaded seq, `undefined` for an empty window.
    #[wasm_bindgen(getter, js_name = windowStart)]
    pub fn window_start(&self) -> Option<f64> {
        self.inner.window_start().map(|seq| seq as f64)
    }

    /// Whether older events exist that are not loaded.
    #[wasm_bindgen(getter, js_name = hasMore)]
    pub fn has_more(&self) -> bool {
        self.inner.has_more()
    }

    /// Number of loaded events.
    #[wasm_bindgen(getter)]
    pub fn length(&self) -> usize {
        self.inner.len()
    }
}
