//! `openSession`: a session file read as a stream into a new `Conversation`. The reading is
//! JavaScript (`src/wasm/js/open.js`: sources, zstd, progress, cancellation); each piece goes
//! through `Conversation.feed`.

use wasm_bindgen::prelude::*;

use super::conversation::JsConversation;

#[wasm_bindgen(module = "/src/wasm/js/open.js")]
extern "C" {
    #[wasm_bindgen(js_name = promptfoldOpenSession)]
    fn open_into(conversation: JsValue, source: JsValue, options: JsValue) -> js_sys::Promise;
}

#[wasm_bindgen(typescript_custom_section)]
const OPEN_TYPES: &'static str = r#"
/**
 * What `openSession` reads: a `File` or `Blob`, a web `ReadableStream` of bytes, or any async
 * iterable of bytes (a Node readable stream with no encoding set, e.g. `fs.createReadStream`).
 */
export type SessionSource = Blob | ReadableStream<Uint8Array> | AsyncIterable<Uint8Array>;

/** A zstd decoder with fzstd's streaming interface: pass the fzstd module itself. */
export interface ZstdDecoderModule {
  Decompress: new (ondata: (data: Uint8Array, final?: boolean) => void) => {
    push(chunk: Uint8Array, final?: boolean): void;
  };
}

/** How far `openSession` got; reported after each chunk of the source (each decoded piece of a zstd one) and once at the end. */
export interface OpenProgress {
  /** Bytes read from the source so far (compressed bytes for a zstd source). */
  bytesRead: number;
  /** The source's size, when known: a `Blob`'s size, or `options.totalBytes`. */
  totalBytes?: number;
  /** Bytes of session-log text read so far (after decompression). */
  textBytes: number;
  /** Events loaded so far. */
  events: number;
  /** Seconds since the open began. */
  seconds: number;
  /** `bytesRead` per second so far. */
  bytesPerSecond: number;
  /** `true` on the last report, made once the whole source is loaded. */
  done: boolean;
}

/** Options of `openSession`; all optional. */
export interface OpenSessionOptions {
  /** Cancels the open: the promise rejects with the signal's reason (an `AbortError`). */
  signal?: AbortSignal;
  /** Called with the progress after each chunk of the source (each decoded piece of a zstd one) and once at the end. */
  onProgress?: (progress: OpenProgress) => void;
  /** The most bytes of text given to `feed` at a time, and a `Blob`'s read size (1 MiB). */
  chunkBytes?: number;
  /** The source's size, for `OpenProgress.totalBytes` (a `Blob`'s is known). */
  totalBytes?: number;
  /**
   * Read a `Blob` newest first: its last `chunkBytes` are loaded at once, then older pages are
   * prepended until the file's start (`OpenedSession.newestFirst` says whether it was). A zstd
   * file, a seq-less log and a file of one chunk are read from their start.
   */
  newestFirst?: boolean;
  /**
   * Called with the conversation being loaded and the progress whenever the window grew: after
   * each chunk read from the start, or after each page read newest first. It may read the
   * conversation (`views()`, slices, `stateAt`) but must not change or free it; a prompt whose
   * start is not loaded yet is withheld, as in any window with `hasMore`.
   */
  onWindow?: (conversation: Conversation, progress: OpenProgress) => void;
  /** The decoder for a zstd-compressed source (the fzstd module); without it such a source is `INVALID_ARGUMENT`. */
  zstd?: ZstdDecoderModule;
}

/** A session opened by `openSession`. */
export interface OpenedSession {
  /** The new conversation, holding the whole log. */
  conversation: Conversation;
  /** A last line that is not JSON, left out, as `loadJson` reports it. */
  tornTail?: TornTail;
  /** Bytes read from the source. */
  bytesRead: number;
  /** Bytes of session-log text read (after decompression). */
  textBytes: number;
  /** How the source was compressed. */
  compression: "none" | "zstd";
  /** Whether the source was read newest first (`OpenSessionOptions.newestFirst`). */
  newestFirst: boolean;
}
"#;

/// Opens a session file (JSON lines) as a stream: reads `source` in pieces through `feed` into
/// a new `Conversation`, reporting progress, and resolves once the whole source is loaded.
/// A zstd source (recognised by its magic bytes) is decoded by `options.zstd`. On an error or
/// an abort the promise rejects and the new conversation is freed; no other conversation is
/// touched. A source with neither a session header nor an event is `NOT_A_SESSION_LOG`.
#[wasm_bindgen(js_name = openSession, unchecked_return_type = "Promise<OpenedSession>")]
pub fn open_session(
    #[wasm_bindgen(unchecked_param_type = "SessionSource")] source: JsValue,
    #[wasm_bindgen(unchecked_optional_param_type = "OpenSessionOptions | null")] options: Option<
        JsValue,
    >,
) -> js_sys::Promise {
    open_into(
        JsValue::from(JsConversation::new()),
        source,
        options.unwrap_or(JsValue::UNDEFINED),
    )
}
