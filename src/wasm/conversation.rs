//! The `Conversation` class: a loaded window of a session log.

use std::cell::Cell;
use std::rc::Weak;

use wasm_bindgen::prelude::*;

use super::batch::{PackedEvents, PromptStrings};
use super::bytes::{bytes_in_pieces, check_length, locate_in_bytes, read_bytes_batch};
use super::convert::{invalid, load_options, packed_array, seq_from_js};
use super::data::{inspection_to_js, lines_to_js};
use super::error::throw;
use super::kept_texts::KeptTexts;
use super::read_room;
use super::state::JsSystemPromptState;
use super::text::{locate_in_string, read_string_batch, string_in_pieces, FedText};
use crate::error::Error;
use crate::fold::SystemPromptState;
use crate::input::event::SessionEvent;
use crate::input::intern::JsonInterner;
use crate::input::parse::framing::{Framing, Rows};
use crate::input::parse::packed::read_packed;
use crate::wasm::cache::value_to_js;
use crate::window::conversation::{text_lines, Call, Conversation, Piece, PieceLoad};

/// A window of a session log: load the newest page, append live events, prepend older pages.
/// Every call returns a `ConversationChange`; a call that throws leaves the window unchanged.
#[wasm_bindgen(js_name = Conversation)]
pub struct JsConversation {
    pub(super) inner: Conversation,
    handles: StateHandles,
    /// `session` as JS sees it: the header object given to `load` or `prepend`, or the one
    /// read from text (made once).
    session: JsValue,
    /// Text given to `feed` as strings: a string may end inside a character.
    fed: FedText,
    /// The JS strings of the texts `views` handed out, kept for its next call (a `Cell`:
    /// `views` takes `&self`).
    texts: Cell<KeptTexts>,
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
    if block.try_reserve_exact(bytes).is_ok() {
        std::hint::black_box(&mut block);
    }
}

/// The largest block a JSON batch reserves (see [`Batch::reserve_size`]).
const MAX_RESERVE: usize = 16 << 20;

/// A batch as it crosses into wasm.
enum Batch {
    /// JSON text given as a string: read in pieces (see `wasm::text`).
    String(js_sys::JsString),
    /// JSON text given as UTF-8 bytes: read in pieces (see `wasm::bytes`).
    Bytes(js_sys::Uint8Array),
    /// JS event objects, packed by `wasm::batch`, and the array (whose first element may be the
    /// session header).
    Packed(PackedEvents, js_sys::Array),
}

impl Batch {
    /// JSON text (a string or UTF-8 bytes).
    fn json(text: &JsValue) -> Result<Batch, Error> {
        match text.dyn_ref::<js_sys::JsString>() {
            Some(text) => Ok(Batch::String(text.clone())),
            None => text
                .dyn_ref::<js_sys::Uint8Array>()
                .ok_or_else(|| invalid("text", "expected a string or a Uint8Array"))
                .and_then(|bytes| {
                    check_length(bytes)?;
                    Ok(Batch::Bytes(bytes.clone()))
                }),
        }
    }

    /// An array of JS event objects.
    fn objects(events: &JsValue) -> Result<Batch, Error> {
        let packed = packed_array(events)?;
        Ok(Batch::Packed(packed, events.clone().unchecked_into()))
    }

    /// The JS strings of the system prompt texts of `events` (read from this batch), when the
    /// packer read them (see [`PromptStrings`]).
    fn prompt_strings(&self, events: &[SessionEvent]) -> PromptStrings {
        match self {
            Batch::Packed(packed, _) => packed.prompt_strings(events),
            Batch::String(_) | Batch::Bytes(_) => PromptStrings::default(),
        }
    }

    /// `error`, found in this batch, with the line of the row it names when the batch is text.
    fn locate(&self, error: Error) -> Error {
        match self {
            Batch::String(text) => locate_in_string(error, text),
            Batch::Bytes(bytes) => locate_in_bytes(error, bytes),
            Batch::Packed(..) => error,
        }
    }

    /// Whether the batch is JSON text.
    fn is_text(&self) -> bool {
        !matches!(self, Batch::Packed(..))
    }

    /// About what reading the batch keeps in memory (see [`reserve_for`]): half a JSON batch's
    /// size, at most [`MAX_RESERVE`]. JSON text is read in pieces, and a large log keeps far
    /// less than half its size (a 256 MB large-profile log about 30 MB): a block of half of it
    /// would stay in the memory, which never shrinks, and cost 4.4 times what `feed` takes.
    fn reserve_size(&self) -> usize {
        match self {
            Batch::String(text) => (text.length() as usize / 2).min(MAX_RESERVE),
            Batch::Bytes(text) => (text.length() as usize / 2).min(MAX_RESERVE),
            // Each event is about one record of eight numbers.
            Batch::Packed(packed, _) => {
                packed
                    .numbers
                    .len()
                    .saturating_mul(32)
                    .saturating_add(packed.text.len())
                    / 2
            }
        }
    }

    /// The batch's rows, read under `framing` with the shared values of `interner`.
    fn read(&self, interner: &mut JsonInterner, framing: Framing) -> Result<Rows, Error> {
        match self {
            Batch::String(text) => read_string_batch(text, interner, framing),
            Batch::Bytes(text) => read_bytes_batch(text, interner, framing),
            Batch::Packed(packed, _) => read_packed(packed.batch(), interner, framing),
        }
    }

    /// Loads (`Call::Load`) or appends (`Call::Append`) JSON text to `conversation` in pieces,
    /// as `feed` reads them (see `Conversation::load_pieces` and `append_pieces`); `None` when
    /// the batch needs to be read whole, or is prepended (a page is walked whole: it is read
    /// in pieces by `Batch::read`).
    fn apply_in_pieces(
        &self,
        conversation: &mut Conversation,
        call: Call,
        has_more: bool,
    ) -> Option<PieceLoad> {
        let read = |conversation: &mut Conversation, next: &mut dyn FnMut(&mut [u8]) -> Piece| {
            match call {
                Call::Load => conversation.load_pieces(next, has_more),
                Call::Append => conversation.append_pieces(next),
                Call::Prepend | Call::Feed => None,
            }
        };
        match self {
            Batch::String(text) => string_in_pieces(conversation, text, read),
            Batch::Bytes(bytes) => bytes_in_pieces(conversation, bytes, read),
            Batch::Packed(..) => None,
        }
    }

    /// The header `rows` began with, as JS sees it: the object given, or one made from its JSON.
    fn session(&self, rows: &Rows) -> JsValue {
        match (self, &rows.session) {
            (_, None) => JsValue::UNDEFINED,
            (Batch::Packed(_, array), Some(_)) => array.get(0),
            (_, Some(header)) => value_to_js(header).unwrap_or(JsValue::UNDEFINED),
        }
    }
}

impl JsConversation {
    /// The window (for the other modules' methods of this class).
    pub(super) fn conversation(&self) -> &Conversation {
        &self.inner
    }

    /// How many system prompt nodes and replacements the state in force at `event` has (none
    /// for no state): what each event line up to it copies, about (they mostly grow).
    pub(super) fn state_size_by(&self, event: Option<&SessionEvent>) -> (usize, usize) {
        event
            .and_then(|event| self.inner.state_index(event.seq))
            .and_then(|index| self.inner.state_by_index(index))
            .map_or((0, 0), |state| {
                (state.nodes().len(), state.replacements().len())
            })
    }

    /// The strings kept from the last `views()` or slice, taken for a call that hands out
    /// texts (and given back with [`JsConversation::keep_texts`]).
    pub(super) fn take_texts(&self) -> KeptTexts {
        self.texts.take()
    }

    /// Keeps `texts` for the next call.
    pub(super) fn keep_texts(&self, texts: KeptTexts) {
        self.texts.set(texts);
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
        reserve_for(batch.reserve_size());
        let started = !self.inner.is_empty() || self.inner.session().is_some();
        if let Some(loaded) = batch.apply_in_pieces(&mut self.inner, call, has_more) {
            // An append to a started window keeps its header and states; anything else
            // replaced the window (an append to an empty one starts it).
            if call == Call::Load || !started {
                self.session = self
                    .inner
                    .session()
                    .and_then(value_to_js)
                    .unwrap_or(JsValue::UNDEFINED);
                self.handles.clear();
                self.texts.get_mut().clear();
            }
            return Ok(if loaded.all_cards_added {
                super::cards::load_change_to_js(
                    &loaded.change,
                    self.inner.view_counts().cards,
                    self.inner.cards_in_chat(),
                )
            } else {
                super::cards::change_to_js(&loaded.change)
            });
        }
        let framing = self.inner.framing(call, batch.is_text());
        let rows = batch.read(self.inner.batch_interner(call == Call::Load), framing);
        let rows = throw(rows.map_err(|error| batch.locate(error)))?;
        let session = batch.session(&rows);
        // Values add no line to the text read; a JSON array's are not counted.
        let given = rows.given();
        let lines = match batch {
            Batch::Packed(..) => Some(0),
            _ => text_lines(&rows),
        };
        let mut prompts = batch.prompt_strings(&rows.events);
        // The packed events are dropped before the window takes them; text keeps its handle to
        // place an error.
        let text = match batch {
            Batch::Packed(..) => None,
            text => Some(text),
        };
        let change = self.inner.apply(call, rows, has_more);
        let change = throw(change.map_err(|error| match &text {
            Some(text) => text.locate(error),
            None => error,
        }))?;
        drop(text);
        self.inner.text_read(call, lines, given);
        if call == Call::Load || !session.is_undefined() {
            self.session = session;
        }
        if call != Call::Append {
            self.handles.clear();
        }
        if call == Call::Load {
            self.texts.get_mut().clear();
        }
        let known = std::mem::take(&mut prompts.strings);
        let report = super::cards::change_to_js_from(&change, known);
        drop(prompts);
        Ok(report)
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
            session: JsValue::UNDEFINED,
            fed: FedText::default(),
            texts: Cell::default(),
        }
    }

    /// Replaces the window with `events` (ascending seq); `options.hasMore`: older events
    /// exist (default `false`).
    #[wasm_bindgen(unchecked_return_type = "ConversationChange")]
    pub fn load(
        &mut self,
        #[wasm_bindgen(unchecked_param_type = "SessionLogRow[]")] events: JsValue,
        #[wasm_bindgen(unchecked_optional_param_type = "LoadOptions | null")] options: Option<
            JsValue,
        >,
    ) -> Result<JsValue, JsValue> {
        let options = throw(load_options(options))?;
        self.apply(Batch::objects(&events), Call::Load, options.has_more)
    }

    /// Appends live events after the last loaded one.
    #[wasm_bindgen(unchecked_return_type = "ConversationChange")]
    pub fn append(
        &mut self,
        #[wasm_bindgen(unchecked_param_type = "SessionLogRow[]")] events: JsValue,
    ) -> Result<JsValue, JsValue> {
        self.apply(Batch::objects(&events), Call::Append, false)
    }

    /// Prepends an older page ("load earlier"); every seq must be below `windowStart`;
    /// `options.hasMore`: still older events exist (default `false`).
    #[wasm_bindgen(unchecked_return_type = "ConversationChange")]
    pub fn prepend(
        &mut self,
        #[wasm_bindgen(unchecked_param_type = "SessionLogRow[]")] events: JsValue,
        #[wasm_bindgen(unchecked_optional_param_type = "LoadOptions | null")] options: Option<
            JsValue,
        >,
    ) -> Result<JsValue, JsValue> {
        let options = throw(load_options(options))?;
        self.apply(Batch::objects(&events), Call::Prepend, options.has_more)
    }

    /// `load` from JSON text (a JSON array of events, or JSON lines: a session file as the harness
    /// writes it), as a string or UTF-8 bytes. A torn last line is left out, reported as
    /// `tornTail`, and kept for a following `feed`.
    #[wasm_bindgen(js_name = loadJson, unchecked_return_type = "ConversationChange")]
    pub fn load_json(
        &mut self,
        #[wasm_bindgen(unchecked_param_type = "string | Uint8Array")] text: JsValue,
        #[wasm_bindgen(unchecked_optional_param_type = "LoadOptions | null")] options: Option<
            JsValue,
        >,
    ) -> Result<JsValue, JsValue> {
        let options = throw(load_options(options))?;
        self.apply(Batch::json(&text), Call::Load, options.has_more)
    }

    /// `append` from JSON text (a JSON array of events, or JSON lines), as a string or UTF-8 bytes.
    /// A torn last line is left out, reported as `tornTail`, and kept for a following `feed`.
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
        #[wasm_bindgen(unchecked_optional_param_type = "LoadOptions | null")] options: Option<
            JsValue,
        >,
    ) -> Result<JsValue, JsValue> {
        let options = throw(load_options(options))?;
        self.apply(Batch::json(&text), Call::Prepend, options.has_more)
    }

    /// Reads a growing session file: `chunk` is its next piece (a string, or UTF-8 bytes), cut
    /// anywhere. Appends the events of the lines it completes and keeps the incomplete rest for
    /// the next call; when the window is empty, its first rows may hold the session header. All
    /// or nothing: on an error the window and the kept rest stay as they were.
    #[wasm_bindgen(unchecked_return_type = "ConversationChange")]
    pub fn feed(
        &mut self,
        #[wasm_bindgen(unchecked_param_type = "string | Uint8Array")] chunk: JsValue,
    ) -> Result<JsValue, JsValue> {
        let had_session = self.inner.session().is_some();
        let (bytes, fed) = throw(self.fed.bytes(&chunk))?;
        let change = throw(self.inner.feed(&bytes))?;
        self.fed = fed;
        if !had_session {
            if let Some(header) = self.inner.session() {
                self.session = value_to_js(header).unwrap_or(JsValue::UNDEFINED);
            }
        }
        Ok(super::cards::change_to_js(&change))
    }

    /// The session header the log began with (its first row, as given), `undefined` without
    /// one.
    #[wasm_bindgen(getter, unchecked_return_type = "SessionHeader | undefined")]
    pub fn session(&self) -> JsValue {
        self.session.clone()
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
    /// Throws `OUT_OF_MEMORY` (and changes nothing) when the memory cannot hold the lines.
    #[wasm_bindgen(unchecked_return_type = "EventLine[]")]
    pub fn lines(&self) -> Result<JsValue, JsValue> {
        let state = self.state_size_by(self.inner.events().last());
        throw(read_room::for_lines(self.inner.len(), state))?;
        throw(lines_to_js(&self.inner.lines()))
    }

    /// The chat cards and trajectory of the window. Throws `OUT_OF_MEMORY` (and changes
    /// nothing) when the memory cannot hold them.
    #[wasm_bindgen(unchecked_return_type = "Views")]
    pub fn views(&self) -> Result<JsValue, JsValue> {
        let counts = self.inner.view_counts();
        throw(read_room::for_views(counts.cards, counts.requests))?;
        let mut texts = self.texts.take();
        let views = super::cards::views_to_js(&self.inner.views(), &mut texts);
        self.texts.set(texts);
        throw(views)
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
