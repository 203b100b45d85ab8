//! The window: a loaded stretch of a session log, walked once in seq order (load, live append,
//! load earlier), with a change report for every call.

pub(crate) mod analysis;
pub(crate) mod conversation;
pub(crate) mod ledger_stream;
pub(crate) mod options;
