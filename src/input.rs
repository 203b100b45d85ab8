//! Input: from JSON text, bytes or packed JS objects to validated events. The crate's own JSON
//! reader and `JSON.stringify` writer, the lenient event parser (whole text, streamed pieces and
//! packed batches), the event types, and the sharing of repeated values.

pub(crate) mod binary;
pub(crate) mod event;
pub(crate) mod intern;
pub(crate) mod json;
pub(crate) mod parse;
pub(crate) mod shared;
pub(crate) mod text;
pub(crate) mod tokens;
