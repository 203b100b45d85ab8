// Reads a session log the way BEHAVIOUR.md section 10 describes it, for what the demo shows beside the
// library's views: the transcript's events, the header and a torn last line. The library is the
// judge of validity (the demo always loads the same bytes into a Conversation first); this reader
// only turns rows the library accepted into events. Pure module: shared by app.js, open-log.js,
// the examples and the Node tests.

const decoder = () => new TextDecoder('utf-8', { fatal: false });
const NEWLINE = 0x0a;

/** The four magic bytes of a zstd frame (RFC 8878), little-endian 0xFD2FB528. */
export const ZSTD_MAGIC = [0x28, 0xb5, 0x2f, 0xfd];

/** Whether `bytes` start like a zstd frame, or a skippable frame (0x184D2A50 to 0x184D2A5F). */
export function isZstd(bytes) {
  if (!bytes || bytes.length < 4) return false;
  if (ZSTD_MAGIC.every((value, i) => bytes[i] === value)) return true;
  return (bytes[0] & 0xf0) === 0x50 && bytes[1] === 0x2a && bytes[2] === 0x4d && bytes[3] === 0x18;
}

const isObject = (value) => value !== null && typeof value === 'object' && !Array.isArray(value);

/** Whether a row is the session header (only the first row of a file or stream can be). */
export const isHeaderRow = (row) => isObject(row) && row.type === 'session' && !('seq' in row);

/**
 * What a row stands for: `{ event }` for an event (an SDK `session.event` notification stands for
 * its `params.event`), `{ skip: true }` for any other notification.
 */
export function rowEvent(row) {
  if (isObject(row) && !('type' in row) && typeof row.method === 'string') {
    if (row.method === 'session.event') return { event: row.params?.event };
    return { skip: true };
  }
  return { event: row };
}

/**
 * Keeps the numbering of a log across batches: a log whose first event has no `seq` is seq-less,
 * and each of its events gets its index among the log's events as seq and 0 as a missing time.
 */
export class Numbering {
  /** `undefined` until the first event decides; then whether the log is seq-less. */
  seqless = undefined;
  /** Events read so far (the next seq-less event's seq). */
  count = 0;
  /** A copy, so a batch can be read without committing its numbering. */
  clone() {
    const copy = new Numbering();
    copy.seqless = this.seqless;
    copy.count = this.count;
    return copy;
  }
  /** The event as the library reads it. */
  number(event) {
    if (this.seqless === undefined) this.seqless = isObject(event) && !('seq' in event);
    const index = this.count;
    this.count += 1;
    if (!this.seqless || !isObject(event)) return event;
    return { ...event, seq: index, time: event.time ?? 0 };
  }
}

/**
 * Turns parsed rows into events: the header (when `headerAllowed` and the first row is one),
 * envelopes unwrapped, status notifications skipped, seq-less events numbered.
 */
export function rowsToEvents(rows, numbering = new Numbering(), headerAllowed = true) {
  let session;
  const events = [];
  rows.forEach((row, i) => {
    if (i === 0 && headerAllowed && isHeaderRow(row)) {
      session = row;
      return;
    }
    const read = rowEvent(row);
    if (!read.skip) events.push(numbering.number(read.event));
  });
  return { session, events };
}

/**
 * Splits JSON-lines text into rows: a BOM before the first row, `\r\n` ends and blank lines are
 * skipped; a last line with no line end that is not JSON is the torn tail (`{ line, bytes }`).
 */
export function splitJsonLines(text) {
  const lines = text.replace(/^\uFEFF/, '').split('\n');
  const rows = [];
  let tornTail;
  const endsWithNewline = text.endsWith('\n');
  lines.forEach((raw, i) => {
    const line = raw.endsWith('\r') ? raw.slice(0, -1) : raw;
    if (line.trim() === '') return;
    const last = i === lines.length - 1 && !endsWithNewline;
    try {
      rows.push(JSON.parse(line));
    } catch (error) {
      if (!last) throw new SyntaxError(`line ${i + 1}: ${error.message}`);
      tornTail = { line: i + 1, bytes: new TextEncoder().encode(raw).length };
    }
  });
  return { rows, tornTail };
}

/**
 * Reads a whole log (a JSON array or JSON lines; string or UTF-8 bytes) into
 * `{ session, events, tornTail, numbering }` (`numbering` continues it when following).
 */
export function readSessionLog(input) {
  const text = typeof input === 'string' ? input : decoder().decode(input);
  const body = text.replace(/^\uFEFF/, '').trimStart();
  const numbering = new Numbering();
  if (body.startsWith('[')) {
    const rows = JSON.parse(body);
    if (!Array.isArray(rows)) throw new TypeError('expected a JSON array of rows');
    return { ...rowsToEvents(rows, numbering), tornTail: undefined, numbering };
  }
  const { rows, tornTail } = splitJsonLines(text);
  return { ...rowsToEvents(rows, numbering), tornTail, numbering };
}

/**
 * Reads a growing JSON-lines file piece by piece, like `Conversation.feed`: `read(bytes)` returns
 * the rows of the lines the piece completes and what they stand for, without changing the
 * reader; `commit(result)` keeps it (call it once the library accepted the same bytes).
 */
export class FollowReader {
  #rest = new Uint8Array(0);
  #numbering;
  #started;

  /**
   * `numbering`: the numbering of what was loaded before (a fresh one for a new log);
   * `started`: whether rows were read already (so no header can come); `rest`: the bytes of an
   * unfinished last line read before (a torn tail, which `loadJson` keeps for `feed` too).
   */
  constructor({ numbering = new Numbering(), started = false, rest = new Uint8Array(0) } = {}) {
    this.#numbering = numbering;
    this.#started = started;
    this.#rest = rest;
  }

  /** Bytes kept from an incomplete last line. */
  get restBytes() { return this.#rest.length; }

  /** Reads `bytes` on top of the kept rest; throws on a complete line that is not JSON. */
  read(bytes) {
    const all = new Uint8Array(this.#rest.length + bytes.length);
    all.set(this.#rest, 0);
    all.set(bytes, this.#rest.length);
    const end = all.lastIndexOf(NEWLINE) + 1;
    let text = decoder().decode(all.subarray(0, end));
    if (!this.#started) text = text.replace(/^\uFEFF/, '');
    const rows = [];
    for (const raw of text.split('\n')) {
      const line = raw.endsWith('\r') ? raw.slice(0, -1) : raw;
      if (line.trim() !== '') rows.push(JSON.parse(line));
    }
    const numbering = this.#numbering.clone();
    const { session, events } = rowsToEvents(rows, numbering, !this.#started);
    return { session, events, rest: all.slice(end), numbering, started: this.#started || rows.length > 0 };
  }

  /** Keeps the state after a `read` whose bytes the library accepted. */
  commit(result) {
    this.#rest = result.rest;
    this.#numbering = result.numbering;
    this.#started = result.started;
  }
}
