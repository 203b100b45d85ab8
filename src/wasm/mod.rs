//! The JavaScript API (feature `wasm`): a thin layer that converts JS values to the core's types
//! and back, and turns [`crate::Error`] into JS `Error`s with a stable `code`.

mod batch;
mod bytes;
mod cache;
mod cards;
mod context;
mod conversation;
mod convert;
mod data;
mod diff;
mod error;
mod kept_texts;
mod ledger;
mod numbers;
mod open;
mod outgoing;
mod plain;
mod read_room;
mod slices;
mod state;
mod text;
mod trajectory;

pub use conversation::JsConversation;
pub use diff::diff_prompts_js;
pub use open::open_session;
pub use state::{inspect_request_prompt_js, inspect_system_prompt_js, JsSystemPromptState};

/// JavaScript's `String(number)` as the crate writes it, for the wasm-bindgen tests to compare
/// with the engine's (natively, `testkit::js_number_text`). Not part of the API.
#[doc(hidden)]
pub use crate::input::json::stringify::js_number_text;

#[wasm_bindgen::prelude::wasm_bindgen(typescript_custom_section)]
const INPUT_TYPES: &'static str = r#"
/** An event's sequence number: a safe integer, strictly increasing through a log. */
export type Seq = number;

/** An event's time in epoch milliseconds, copied verbatim. */
export type Time = number;

/**
 * `state.toJSON()` and `JSON.parse(JSON.stringify(state))`: FORMAT.md's SystemPromptState. The
 * same members as `SystemPromptStateData` (what `lines()` gives), except that "none" is written
 * `null`, as JSON has no `undefined`.
 */
export type SystemPromptStateJson = Omit<SystemPromptStateData, "effective" | "introduced"> & {
  effective: SystemPromptNode | null;
  introduced: SystemPromptNode | null;
};

/** A surface operation: append at the end, or replace the nodes from `startSeq` to `endSeq`. */
export type SurfaceOp = "append" | { op: "replace"; startSeq: number; endSeq: number };

/** One event of a session log. Unknown types and fields are ignored. */
export interface SessionEvent {
  seq: number;
  time: number;
  type: string;
  data?: unknown;
  surfaceOp?: SurfaceOp | null;
  sourceEventSeqs?: number[];
  ignorable?: boolean;
}

/** An event of a seq-less log (the harness's snapshot logs): numbered by its place in the log. */
export type SeqlessEvent = Omit<SessionEvent, "seq" | "time"> & { seq?: undefined; time?: number };

/** The first row of a session file; kept whole as `conversation.session`. */
export interface SessionHeader {
  type: "session";
  /** The log format version: 3 and later are read; 0 to 2 are `UNSUPPORTED_FORMAT_VERSION`. */
  version?: number;
  id?: string;
  createdAt?: number;
  cwd?: string;
  isSeeded?: boolean;
  delegationDepth?: number;
  [member: string]: unknown;
}

/** An SDK notification: `session.event` stands for its `params.event`; any other is skipped. */
export interface SessionNotification {
  jsonrpc?: string;
  method: string;
  params?: { sessionId?: string; event?: SessionEvent | SeqlessEvent; [member: string]: unknown };
}

/** A row of a session log as `load`, `append` and `prepend` take it (BEHAVIOUR.md section 10). */
export type SessionLogRow = SessionEvent | SeqlessEvent | SessionHeader | SessionNotification;

/** Options of `inspectSystemPrompt`. */
export interface InspectOptions {
  /** The window's first loaded seq (BEHAVIOUR.md section 8, D2): endpoints from it on are known. */
  windowStart?: number;
}

/** Stable codes of the errors promptfold throws. */
export type ErrorCode =
  | "MALFORMED_JSON"
  | "NOT_AN_ARRAY"
  | "NOT_AN_OBJECT"
  | "MISSING_SEQ"
  | "INVALID_SEQ"
  | "NON_INCREASING_SEQ"
  | "PREPEND_NOT_OLDER"
  | "INVALID_SURFACE_OP"
  | "UNSUPPORTED_VALUE"
  | "INVALID_ARGUMENT"
  | "NOT_A_REQUEST_HEADER"
  | "UNSUPPORTED_FORMAT_VERSION"
  | "NOT_A_SESSION_LOG"
  | "OUT_OF_MEMORY"
  | "FREED";

/**
 * What promptfold throws: an `Error` with a stable `code`, and the offending event's place. Every
 * entry exports the class, so `error instanceof PromptfoldError` tells promptfold's errors apart
 * (those of another copy of the package and of `promptfold/worker` too). Build one yourself only
 * to stand for promptfold's in a test.
 */
export declare class PromptfoldError extends Error {
  constructor(code: ErrorCode, message: string, place?: { index?: number; seq?: number; line?: number });
  readonly name: "PromptfoldError";
  readonly code: ErrorCode;
  /** Position of the offending row in the batch passed to the call (header and skipped rows count). */
  readonly index?: number;
  /** Seq of the offending event, when it has a usable one. */
  readonly seq?: number;
  /**
   * 1-based line of the text given where the offending row starts (or where the JSON is
   * malformed), when the batch was text; for `feed` and `openSession`, counted from the start
   * of the file.
   */
  readonly line?: number;
}
"#;

/// Diagnostic, outside the semver promise: the size of this module's WebAssembly memory in
/// bytes. It only grows; a steady value under load means nothing leaks. It may change or go in
/// any release.
#[wasm_bindgen::prelude::wasm_bindgen(js_name = wasmMemoryBytes)]
pub fn wasm_memory_bytes() -> f64 {
    #[cfg(target_arch = "wasm32")]
    let pages = core::arch::wasm32::memory_size(0);
    // A native build of the feature only compiles this layer; there is no module memory.
    #[cfg(not(target_arch = "wasm32"))]
    let pages = 0usize;
    (pages as f64) * 65536.0
}
