// openSession (src/wasm/open.rs): a session file read as a stream, piece by piece, through
// `feed` into a new Conversation, which the caller gets only once the whole source is loaded.
// Sources: a Blob (File), a web ReadableStream of bytes, or an async iterable of bytes (a Node
// readable stream); plain or zstd (recognised by its magic bytes, decoded by the decoder the
// caller passes, see docs/session-logs.md). With `newestFirst`, a plain Blob is read from its end:
// the newest page is loaded first and older pages are prepended as they are read
// (docs/session-logs.md, "Newest first").

import { PromptfoldError } from "./error.js";

const DEFAULT_CHUNK_BYTES = 1 << 20;
const MAX_CHUNK_BYTES = 1 << 28;
const LINE_END = 10;
/** The largest older page newest-first reading prepends at once (pages double up to it). */
const MAX_PAGE_BYTES = 1 << 26;

function invalid(argument, message) {
  return new PromptfoldError("INVALID_ARGUMENT", `invalid argument \`${argument}\`: ${message}`);
}

function notASessionLog(bytes) {
  return new PromptfoldError(
    "NOT_A_SESSION_LOG",
    `not a session log: ${bytes} bytes read, with no session header and no complete event ` +
      '(a session log is JSON lines, one event a line, after a `type: "session"` header)',
  );
}

function abortError(signal) {
  return signal.reason ?? new DOMException("openSession was aborted", "AbortError");
}

/** The members of `OpenSessionOptions`: any other is refused (docs/api.md, "Arguments"). */
const OPTION_NAMES = ["signal", "onProgress", "onWindow", "newestFirst", "chunkBytes", "totalBytes", "zstd"];

function readOptions(options) {
  if (options === undefined || options === null) options = {};
  const prototype = typeof options === "object" && !Array.isArray(options) ? Object.getPrototypeOf(options) : undefined;
  // An object literal's prototype (of this realm or another: its own prototype is null), or none.
  if (prototype !== null && (prototype === undefined || Object.getPrototypeOf(prototype) !== null)) {
    throw invalid("options", "expected a plain object or undefined");
  }
  for (const key of Object.keys(options)) {
    if (!OPTION_NAMES.includes(key)) {
      throw invalid("options", `unknown member \`${key}\` (OpenSessionOptions has ${OPTION_NAMES.join(", ")})`);
    }
  }
  const {
    signal,
    onProgress,
    onWindow,
    newestFirst = false,
    chunkBytes = DEFAULT_CHUNK_BYTES,
    totalBytes,
    zstd,
  } = options;
  if (signal !== undefined && (typeof signal !== "object" || typeof signal.addEventListener !== "function")) {
    throw invalid("options", "`signal` must be an AbortSignal");
  }
  if (onProgress !== undefined && typeof onProgress !== "function") {
    throw invalid("options", "`onProgress` must be a function");
  }
  if (onWindow !== undefined && typeof onWindow !== "function") {
    throw invalid("options", "`onWindow` must be a function");
  }
  if (typeof newestFirst !== "boolean") throw invalid("options", "`newestFirst` must be a boolean");
  if (!Number.isInteger(chunkBytes) || chunkBytes < 1 || chunkBytes > MAX_CHUNK_BYTES) {
    throw invalid("options", `\`chunkBytes\` must be an integer from 1 to ${MAX_CHUNK_BYTES}`);
  }
  if (totalBytes !== undefined && !(Number.isFinite(totalBytes) && totalBytes >= 0)) {
    throw invalid("options", "`totalBytes` must be a number >= 0");
  }
  if (zstd !== undefined && typeof zstd?.Decompress !== "function") {
    throw invalid("options", "`zstd` must be a decoder module with a `Decompress` class (fzstd)");
  }
  return { signal, onProgress, onWindow, newestFirst, chunkBytes, totalBytes, zstd };
}

/** The source's chunks (Uint8Array), and a way to stop a read that waits. */
function chunksOf(source, chunkBytes) {
  if (source !== null && typeof source === "object") {
    if (typeof source.getReader === "function") return streamChunks(source);
    if (isBlob(source)) {
      return { chunks: blobChunks(source, chunkBytes), stop() {} };
    }
    if (typeof source[Symbol.asyncIterator] === "function") {
      return {
        chunks: source[Symbol.asyncIterator](),
        stop(reason) {
          if (typeof source.destroy === "function") source.destroy(reason);
        },
      };
    }
  }
  throw invalid("source", "expected a Blob or File, a ReadableStream, or an async iterable of Uint8Array");
}

function isBlob(source) {
  return (
    source !== null &&
    typeof source === "object" &&
    typeof source.slice === "function" &&
    typeof source.arrayBuffer === "function"
  );
}

async function* blobChunks(blob, chunkBytes) {
  for (let at = 0; at < blob.size; at += chunkBytes) {
    yield new Uint8Array(await blob.slice(at, at + chunkBytes).arrayBuffer());
  }
}

function streamChunks(stream) {
  const reader = stream.getReader();
  let done = false;
  async function* chunks() {
    try {
      for (;;) {
        const next = await reader.read();
        if (next.done) break;
        yield next.value;
      }
      done = true;
    } finally {
      if (!done) await reader.cancel().catch(() => {});
      reader.releaseLock();
    }
  }
  return {
    chunks: chunks(),
    stop(reason) {
      reader.cancel(reason).catch(() => {});
    },
  };
}

/** Whether `bytes` start a zstd frame (or a skippable frame, which may come first). */
function isZstd(bytes) {
  const [a, b, c, d] = bytes;
  return (
    (a === 0x28 && b === 0xb5 && c === 0x2f && d === 0xfd) ||
    ((a & 0xf0) === 0x50 && b === 0x2a && c === 0x4d && d === 0x18)
  );
}

/** Counts the line ends in `bytes`. */
function lineEndsIn(bytes) {
  let count = 0;
  for (let end = bytes.indexOf(LINE_END); end !== -1; end = bytes.indexOf(LINE_END, end + 1)) count += 1;
  return count;
}

/**
 * Whether a Blob can be read newest first: larger than one chunk, not zstd, JSON lines (not an
 * array) whose first event has a seq (a seq-less log is numbered from its start, so it is read
 * from there: docs/session-logs.md).
 */
async function readableNewestFirst(blob, chunkBytes) {
  if (blob.size <= chunkBytes) return false;
  const head = new Uint8Array(await blob.slice(0, chunkBytes).arrayBuffer());
  if (isZstd(head)) return false;
  const lines = new TextDecoder().decode(head).split("\n");
  lines.pop(); // cut by the chunk's end, or empty after the last line end
  for (const line of lines) {
    const text = line.replace(/^\uFEFF/, "").trim();
    if (text === "") continue;
    if (!text.startsWith("{")) return false;
    let row;
    try {
      row = JSON.parse(text);
    } catch {
      return false;
    }
    if (row === null || typeof row !== "object") return false;
    if (row.type === "session" && row.seq === undefined) continue;
    const notification = row.type === undefined && row.method !== undefined;
    if (notification && row.method !== "session.event") continue;
    return typeof (notification ? row.params?.event : row)?.seq === "number";
  }
  return false;
}

/**
 * Reads a plain Blob newest first: its last `chunkBytes` (from a line start) are loaded with
 * `loadJson`, then older pages, each as large as what is loaded so far (up to MAX_PAGE_BYTES),
 * are prepended with `prependJson` until the file's start. `report(bytes)` after each page.
 */
async function readBackwards(conversation, blob, settings, report) {
  const { signal, chunkBytes } = settings;
  let end = blob.size;
  let pageBytes = chunkBytes;
  let lineEnds = 0;
  let tornBytes;
  let first = true;
  while (end > 0) {
    if (signal?.aborted) throw abortError(signal);
    const start = Math.max(0, end - pageBytes);
    const bytes = new Uint8Array(await blob.slice(start, end).arrayBuffer());
    if (signal?.aborted) throw abortError(signal);
    let from = 0;
    if (start > 0) {
      const cut = bytes.indexOf(LINE_END);
      if (cut === -1 || cut === bytes.length - 1) {
        // No whole line in the page: read a larger one.
        pageBytes *= 2;
        continue;
      }
      from = cut + 1;
    }
    const page = bytes.subarray(from);
    const hasMore = start + from > 0;
    if (first) {
      tornBytes = conversation.loadJson(page, { hasMore }).tornTail?.bytes;
      first = false;
    } else {
      conversation.prependJson(page, { hasMore });
    }
    lineEnds += lineEndsIn(page);
    end = start + from;
    report(page.length);
    pageBytes = Math.min(MAX_PAGE_BYTES, Math.max(chunkBytes, blob.size - end));
  }
  return tornBytes === undefined ? undefined : { line: lineEnds + 1, bytes: tornBytes };
}

/** Reads the whole source into `conversation`: the `OpenedSession` (types in src/wasm/open.rs). */
async function read(conversation, source, settings) {
  const { signal, onProgress, onWindow, chunkBytes, zstd } = settings;
  if (signal?.aborted) throw abortError(signal);
  const started = performance.now();
  const totalBytes = settings.totalBytes ?? (typeof source?.size === "number" ? source.size : undefined);
  let bytesRead = 0;
  let textBytes = 0;
  let lineEnds = 0;
  /** Bytes of text after the last line end. */
  let tail = 0;

  const feedText = (text) => {
    for (let at = 0; at < text.length; at += chunkBytes) {
      const piece = text.subarray(at, at + chunkBytes);
      conversation.feed(piece);
      textBytes += piece.length;
      let last = -1;
      for (let end = piece.indexOf(LINE_END); end !== -1; end = piece.indexOf(LINE_END, end + 1)) {
        lineEnds += 1;
        last = end;
      }
      tail = last === -1 ? tail + piece.length : piece.length - last - 1;
    }
  };
  let decoded = [];
  let decoder;
  /** The first bytes, until there are enough to tell zstd from text. */
  let head = new Uint8Array(0);
  const take = (bytes, final) => {
    if (decoder === undefined) {
      const joined = new Uint8Array(head.length + bytes.length);
      joined.set(head);
      joined.set(bytes, head.length);
      if (joined.length < 4 && !final) {
        head = joined;
        return;
      }
      head = undefined;
      bytes = joined;
      if (isZstd(bytes)) {
        if (zstd === undefined) {
          throw invalid("options", "the source is zstd-compressed: pass a decoder as `zstd` (e.g. the fzstd module)");
        }
        decoder = new zstd.Decompress((data) => decoded.push(data));
      } else {
        decoder = null;
      }
    }
    if (decoder === null) {
      feedText(bytes);
      return;
    }
    decoder.push(bytes, final);
    const pieces = decoded;
    decoded = [];
    // A compressed chunk holds many times its size in text: report after each decoded piece.
    for (const piece of pieces) {
      feedText(piece);
      if (!final) progress(false);
    }
  };
  /** Set while the file is read again from its start to place a newest-first page's error. */
  let placing;
  const progress = (done) => {
    if (placing !== undefined || (onProgress === undefined && onWindow === undefined)) return;
    const seconds = (performance.now() - started) / 1000;
    const report = { bytesRead, textBytes, events: conversation.length, seconds, done };
    report.bytesPerSecond = seconds > 0 ? bytesRead / seconds : 0;
    if (totalBytes !== undefined) report.totalBytes = totalBytes;
    onProgress?.(report);
    onWindow?.(conversation, report);
  };

  if (settings.newestFirst && isBlob(source) && (await readableNewestFirst(source, chunkBytes))) {
    try {
      const tornTail = await readBackwards(conversation, source, settings, (bytes) => {
        bytesRead += bytes;
        textBytes += bytes;
        progress(false);
      });
      const opened = { conversation, bytesRead, textBytes, compression: "none", newestFirst: true };
      if (tornTail !== undefined) opened.tornTail = tornTail;
      if (conversation.length === 0 && conversation.session === undefined) throw notASessionLog(textBytes);
      progress(true);
      return opened;
    } catch (error) {
      // A page's error counts its rows and lines from the page's start: the file is read
      // again from its start (into the emptied conversation), whose error is loadJson's.
      if (!(error instanceof PromptfoldError) || (error.index === undefined && error.line === undefined)) throw error;
      placing = error;
      conversation.load([]);
    }
  }

  const { chunks, stop } = chunksOf(source, chunkBytes);
  const onAbort = () => stop(abortError(signal));
  signal?.addEventListener("abort", onAbort, { once: true });
  try {
    for await (const chunk of chunks) {
      if (signal?.aborted) throw abortError(signal);
      if (!(chunk instanceof Uint8Array)) {
        throw invalid("source", "chunks must be Uint8Array (a Node stream must have no encoding set)");
      }
      bytesRead += chunk.length;
      take(chunk, false);
      progress(false);
    }
    if (signal?.aborted) throw abortError(signal);
    take(new Uint8Array(0), true);
  } finally {
    signal?.removeEventListener("abort", onAbort);
  }

  const opened = { conversation, bytesRead, textBytes, compression: decoder ? "zstd" : "none", newestFirst: false };
  if (tail > 0) {
    // The last line has no line end: complete it, as loadJson reads it; a line that is not JSON
    // is a torn tail, left out (and kept, as after loadJson, for a following feed).
    try {
      conversation.feed(new Uint8Array([LINE_END]));
    } catch (error) {
      if (error?.code !== "MALFORMED_JSON") throw error;
      opened.tornTail = { line: lineEnds + 1, bytes: tail };
    }
  }
  // Read from the start without the error a page gave (not expected): that error stands.
  if (placing !== undefined) throw placing;
  if (conversation.length === 0 && conversation.session === undefined) throw notASessionLog(textBytes);
  progress(true);
  return opened;
}

async function open(conversation, source, options) {
  try {
    return await read(conversation, source, readOptions(options));
  } catch (error) {
    conversation.free();
    throw error;
  }
}

// A plain `export function`: scripts/build.sh turns it into a CommonJS export for the Node build.
export function promptfoldOpenSession(conversation, source, options) {
  return open(conversation, source, options);
}
