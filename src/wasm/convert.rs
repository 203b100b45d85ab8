//! Conversions of JS arguments to the core's types: event batches (packed, see `wasm::batch`),
//! JSON text as bytes, and plain-data arguments (as their `JSON.stringify` text, read by the
//! crate's parser). Results go the other way in `wasm::outgoing`.

use wasm_bindgen::prelude::*;

use crate::error::Error;
use crate::input::event::{Seq, SessionEvent};
use crate::input::intern::JsonInterner;
use crate::input::json::JsonValue;
use crate::input::parse::framing::{Framing, Numbering};
use crate::input::parse::packed::read_packed;
use crate::window::options::LoadOptions;

use super::batch::PackedEvents;

/// A batch of events given as a JS array, packed (see `wasm::batch`).
pub(crate) fn packed_array(value: &JsValue) -> Result<PackedEvents, Error> {
    let Some(array) = value.dyn_ref::<js_sys::Array>() else {
        return Err(Error::NotAnArray {
            found: js_type_name(value),
        });
    };
    super::batch::packed_events(array).map_err(|index| Error::UnsupportedValue {
        index,
        line: None,
        message: "JSON.stringify cannot write it (a BigInt or a cycle?)".to_owned(),
    })
}

/// Reads a batch of events from a JS array.
pub(crate) fn events_from_js(value: &JsValue) -> Result<Vec<SessionEvent>, Error> {
    let framing = Framing {
        numbering: Numbering::Given,
        ..Framing::default()
    };
    read_packed(
        packed_array(value)?.batch(),
        &mut JsonInterner::default(),
        framing,
    )
    .map(|rows| rows.events)
}

/// JSON text given as UTF-8 bytes (`Uint8Array`, e.g. from `fetch(...).arrayBuffer()` or
/// `fs.readFileSync`), copied; checked as UTF-8 where it is read. [`Error::OutOfMemory`] when
/// the copy does not fit.
pub(crate) fn bytes_from_js(value: &JsValue) -> Result<Vec<u8>, Error> {
    match value.dyn_ref::<js_sys::Uint8Array>() {
        Some(bytes) => super::bytes::copied(bytes),
        None => Err(invalid("text", "expected a string or a Uint8Array")),
    }
}

/// Reads one event.
pub(crate) fn event_from_js(value: &JsValue) -> Result<SessionEvent, Error> {
    events_from_js(&js_sys::Array::of1(value))?
        .pop()
        .ok_or_else(|| invalid("event", "no event"))
}

/// Reads an optional plain-data argument as JSON; `undefined` and `null` are `None`.
pub(crate) fn optional_json(value: &JsValue, argument: &str) -> Result<Option<JsonValue>, Error> {
    if value.is_undefined() || value.is_null() {
        return Ok(None);
    }
    let text = stringify(value).ok_or_else(|| invalid(argument, "not representable as JSON"))?;
    JsonValue::parse(&text)
        .map(Some)
        .map_err(|err| invalid(argument, &err.to_string()))
}

/// An [`Error::InvalidArgument`].
pub(crate) fn invalid(argument: &str, message: &str) -> Error {
    Error::InvalidArgument {
        argument: argument.to_owned(),
        message: message.to_owned(),
    }
}

fn stringify(value: &JsValue) -> Option<String> {
    js_sys::JSON::stringify(value).ok()?.as_string()
}

/// Reads `{ hasMore? }` (`LoadOptions`); `undefined` and `null` are the defaults. Anything else
/// (a boolean where the options go, as the calls took before 1.0, or a `hasMore` that is not a
/// boolean) is an error, so that an old call cannot silently mean `hasMore: false`.
pub(crate) fn load_options(value: Option<JsValue>) -> Result<LoadOptions, Error> {
    let Some(value) = value.filter(|value| !value.is_undefined() && !value.is_null()) else {
        return Ok(LoadOptions::default());
    };
    if !value.is_object() {
        return Err(invalid(
            "options",
            "expected an object `{ hasMore }` or undefined",
        ));
    }
    let has_more = js_sys::Reflect::get(&value, &JsValue::from_str("hasMore"))
        .map_err(|_| invalid("options", "`hasMore` cannot be read"))?;
    if has_more.is_undefined() {
        return Ok(LoadOptions::default());
    }
    match has_more.as_bool() {
        Some(has_more) => Ok(LoadOptions::default().with_has_more(has_more)),
        None => Err(invalid("options", "`hasMore` must be a boolean")),
    }
}

/// A seq given by JS as a number: rounded down and clamped; `None` for NaN.
pub(crate) fn seq_from_js(value: f64) -> Option<Seq> {
    if value.is_nan() {
        return None;
    }
    let floor = value.floor();
    let limit = crate::seq::MAX_SAFE_INTEGER as f64;
    Some(floor.clamp(-limit, limit) as Seq)
}

fn js_type_name(value: &JsValue) -> String {
    if value.is_null() {
        return "null".to_owned();
    }
    value.js_typeof().as_string().unwrap_or_default()
}
