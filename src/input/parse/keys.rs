//! The keys of the objects the parser reads, each list in the order writers usually give them
//! (see [`Members`](crate::input::json::reader::Members)), with each key's index in its list.

/// An event's members.
pub mod event {
    use crate::input::json::reader::{key, Key};

    pub const ALL: [Key; 7] = [
        key("seq"),
        key("time"),
        key("type"),
        key("data"),
        key("surfaceOp"),
        key("method"),
        key("params"),
    ];
    pub const SEQ: usize = 0;
    pub const TIME: usize = 1;
    pub const TYPE: usize = 2;
    pub const DATA: usize = 3;
    pub const SURFACE_OP: usize = 4;
    pub const METHOD: usize = 5;
    pub const PARAMS: usize = 6;
}

/// An SDK notification's `params`.
pub mod params {
    use crate::input::json::reader::{key, Key};

    pub const ALL: [Key; 2] = [key("sessionId"), key("event")];
    pub const EVENT: usize = 1;
}

/// A replace `surfaceOp`'s members.
pub mod surface_op {
    use crate::input::json::reader::{key, Key};

    pub const ALL: [Key; 3] = [key("op"), key("startSeq"), key("endSeq")];
    pub const OP: usize = 0;
    pub const START_SEQ: usize = 1;
    pub const END_SEQ: usize = 2;
}

/// `data`'s members.
pub mod data {
    use crate::input::json::reader::{key, Key};

    pub const ALL: [Key; 8] = [
        key("turn"),
        key("step"),
        key("message"),
        key("reason"),
        key("header"),
        key("startsSeries"),
        key("content"),
        key("usage"),
    ];
    pub const TURN: usize = 0;
    pub const STEP: usize = 1;
    pub const MESSAGE: usize = 2;
    pub const REASON: usize = 3;
    pub const HEADER: usize = 4;
    pub const STARTS_SERIES: usize = 5;
    /// A `user/message`'s content (its data is the message).
    pub const CONTENT: usize = 6;
    /// A message event's usage, when its message has none.
    pub const USAGE: usize = 7;
}

/// A message's members (`role` is listed only to be skipped without a search).
pub mod message {
    use crate::input::json::reader::{key, Key};

    pub const ALL: [Key; 3] = [key("role"), key("content"), key("usage")];
    pub const ROLE: usize = 0;
    pub const CONTENT: usize = 1;
    pub const USAGE: usize = 2;
}

/// A content block's members.
pub mod block {
    use crate::input::json::reader::{key, Key};

    pub const ALL: [Key; 2] = [key("type"), key("text")];
    pub const TYPE: usize = 0;
    pub const TEXT: usize = 1;
}

/// `data.header`'s members.
pub mod header {
    use crate::input::json::reader::{key, Key};

    pub const ALL: [Key; 2] = [key("config"), key("tools")];
    pub const CONFIG: usize = 0;
    pub const TOOLS: usize = 1;
}
