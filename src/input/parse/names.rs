//! The codes of the string values the parser matches (see [`KeyCode`]).

use super::{key_code, KeyCode};

pub const SYSTEM_MESSAGE: KeyCode = key_code("system/message");
pub const REQUEST_HEADER: KeyCode = key_code("request/header");
pub const TURN_START: KeyCode = key_code("turn/start");
pub const TURN_END: KeyCode = key_code("turn/end");
pub const STEP_START: KeyCode = key_code("step/start");
pub const STEP_END: KeyCode = key_code("step/end");
pub const USER_MESSAGE: KeyCode = key_code("user/message");
pub const TOOL_RESULT: KeyCode = key_code("tool/result");
/// The code of every name longer than 15 bytes (`assistant/message`, ...).
pub const LONG: KeyCode = key_code("assistant/message");
pub const TEXT: KeyCode = key_code("text");
pub const INITIAL: KeyCode = key_code("initial");
pub const RESUME: KeyCode = key_code("resume");
pub const CHANGE: KeyCode = key_code("change");
pub const SERIES: KeyCode = key_code("series");
pub const SESSION: KeyCode = key_code("session");
pub const SESSION_EVENT: KeyCode = key_code("session.event");
