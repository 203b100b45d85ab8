// The packer: a batch of JS event objects taken apart into numbers and UTF-8 text, the numbers
// written straight into wasm memory (the layout is documented in src/input/parse/packed.rs; the Rust
// side is src/wasm/batch.rs, which imports promptfoldPackBatch from this module).
//
// Its parts: src/wasm/js/plain.js (the plain-data checks all share), same-json.js and
// matchers.js (a header's config or tools sent as a marker when it repeats the previous one's),
// tokens.js (token estimates) and json-length.js (JSON lengths).

import { jsonLength } from "./json-length.js";
import {
  AS_JSON,
  isOmitted,
  isPlainArray,
  isPlainBlock,
  isPlainData,
  isPlainEvent,
  isPlainHeader,
  isPlainHeaderData,
  isPlainMessage,
  isPlainSurfaceOp,
  isSimple,
} from "./plain.js";
import { Previous } from "./same-json.js";
import { contentTokens, messageContent } from "./tokens.js";

const encoder = new TextEncoder();
const USER_TAG = 8;
const ASSISTANT_TAG = 9;
const OTHER_TYPE = 7;

// The tag of an event's type (see parse::packed). The length picks one or two names to compare
// (two strings JSON.parse interned compare by reference): a Map's lookup, 1.4% of a warm load of
// typical 10,000 in V8's sampling profiler, cost 1.1M instructions more a load (callgrind).
function typeTag(type) {
  switch (type.length) {
    case 8:
      return type === "step/end" ? 6 : type === "turn/end" ? 4 : OTHER_TYPE;
    case 10:
      return type === "step/start" ? 5 : type === "turn/start" ? 3 : OTHER_TYPE;
    case 11:
      return type === "tool/result" ? 10 : OTHER_TYPE;
    case 12:
      return type === "user/message" ? USER_TAG : OTHER_TYPE;
    case 14:
      return type === "request/header" ? 2 : type === "system/message" ? 1 : OTHER_TYPE;
    case 17:
      return type === "assistant/message" ? ASSISTANT_TAG : type === "developer/message" ? 11 : OTHER_TYPE;
    default:
      return OTHER_TYPE;
  }
}

// The tag of a header's reason (see parse::packed), as typeTag makes the type's.
function reasonTag(reason) {
  switch (reason.length) {
    case 6:
      return reason === "resume" ? 2 : reason === "change" ? 3 : reason === "series" ? 4 : 0;
    case 7:
      return reason === "initial" ? 1 : 0;
    default:
      return 0;
  }
}

// Slot values for `time`, `turn` and `step` that are not finite numbers.
const JSON_NULL = NaN;
const NOT_A_NUMBER = Infinity;

// A `time`, `turn` or `step` slot (see parse::packed).
function numberSlot(value) {
  if (typeof value === "number") return Number.isFinite(value) ? value : JSON_NULL;
  if (value === null) return JSON_NULL;
  if (isSimple(value)) return NOT_A_NUMBER;
  throw AS_JSON;
}

// How many config and tools comparisons of the process walk with the generic matchers
// (matchRecordDeeper and matchListDeeper from depth 0) before those written out for each depth
// take over. Those are faster once optimized, but V8 compiles each apart, and a batch of a few
// thousand headers does not repay that: the first load of a typical session of 10,000 events
// (1,614 headers) in a fresh process took 75 ms with them from the start and 54 ms with this
// limit, and 160 ms against 120 ms of CPU over all threads (Node 20, medians of 7 processes).
// The count runs over every batch of the process (`comparisons`), so that the loads after the
// first few walk with them: a warm load of that session took 15% fewer instructions with them
// (callgrind, `node --predictable`). A batch of LARGE_BATCH events or more repays them, and
// walks with them from the start.
const GENERIC_COMPARISONS = 4096;
const LARGE_BATCH = 32768;

// The config and tools comparisons made so far by the batches of the process, up to
// GENERIC_COMPARISONS; the tests set it back to 0 to walk with the generic matchers.
export const comparisons = { made: 0 };

// The first and the largest chunk of UTF-8 bytes allocated at once (see Packer.writeChunk).
const FIRST_CHUNK = 1 << 16;
const MOST_CHUNK = 1 << 22;

// Whether `text` has no lone surrogate, so that its UTF-8 decodes back to the same string.
const isWellFormed =
  typeof String.prototype.isWellFormed === "function" ? (text) => text.isWellFormed() : (text) => !/\p{Cs}/u.test(text);

class Packer {
  // `room` numbers from `address` in `memory`, the wasm memory, are free for the records: the
  // Rust side reserves the most numbers an event takes (MOST_SLOTS) for every event (up to
  // MOST_RESERVED_EVENTS), and the numbers are written there, neither allocated in JS nor copied.
  // `generic`: how many comparisons walk with the generic matchers (see GENERIC_COMPARISONS).
  // `textRoom` bytes from `textAddress` are free for the UTF-8 texts, written there while they fit
  // (see `write`).
  constructor(memory, address, room, textAddress, textRoom, generic) {
    this.memory = memory;
    this.address = address;
    this.room = room;
    this.numbers = new Float64Array(memory.buffer, address, room);
    this.inWasm = true;
    this.count = 0;
    this.textAddress = textAddress;
    this.textRoom = textRoom;
    this.text8 = new Uint8Array(memory.buffer, textAddress, textRoom);
    // The bytes written into the room in wasm memory; once a text does not fit there, it and
    // every text after it go into chunks in JS.
    this.inWasmText = true;
    this.wasmLength = 0;
    // The UTF-8 bytes that did not fit: full chunks, then the chunk being written.
    this.chunks = [];
    this.bytes = new Uint8Array(0);
    this.length = 0;
    // The config and tools of the previous header in the batch.
    this.config = new Previous();
    this.tools = new Previous();
    this.compared = 0;
    this.generic = generic;
    // Per system message whose text is known as a JS string: its seq and the text's length in
    // UTF-8 bytes in `promptNumbers`, the string in `prompts` (see src/wasm/batch.rs: the
    // report of the batch hands these out instead of decoding the texts it read).
    this.promptNumbers = [];
    this.prompts = [];
  }

  // Makes room for `slots` more numbers.
  reserve(slots) {
    if (this.count + slots <= this.numbers.length) return;
    // When the wasm memory grows (code that a getter runs may make it grow), views of it are
    // emptied; the numbers stay at their address.
    if (this.inWasm && this.numbers.length === 0) {
      this.numbers = new Float64Array(this.memory.buffer, this.address, this.room);
      if (this.count + slots <= this.numbers.length) return;
    }
    // More events than the room was reserved for (a batch past MOST_RESERVED_EVENTS, or a
    // getter added some): the numbers go on in JS, and cross in a copy.
    const grown = new Float64Array(Math.max(this.numbers.length * 2, this.count + slots));
    grown.set(this.numbers.subarray(0, this.count));
    this.numbers = grown;
    this.inWasm = false;
  }

  push(value) {
    this.reserve(1);
    this.numbers[this.count++] = value;
  }

  // Appends `text` as UTF-8 (lone surrogates become U+FFFD) and returns its length in bytes:
  // into the room in wasm memory while it fits (encodeInto writes whole characters only, so a
  // text that does not fit is split between the room and a chunk at a character's end).
  write(text) {
    if (!this.inWasmText) return this.writeChunk(text);
    // When the wasm memory grows (code that a getter runs may make it grow), views of it are
    // emptied; the room stays at its address.
    if (this.text8.length === 0 && this.textRoom > 0) {
      this.text8 = new Uint8Array(this.memory.buffer, this.textAddress, this.textRoom);
    }
    const { read, written } = encoder.encodeInto(text, this.text8.subarray(this.wasmLength));
    this.wasmLength += written;
    if (read === text.length) return written;
    this.inWasmText = false;
    return written + this.writeChunk(read === 0 ? text : text.substring(read));
  }

  // Appends `text` as UTF-8 to the chunks. When the chunk has no room for it, it goes into a new
  // chunk: growing one array instead copied every byte written so far at each growth.
  writeChunk(text) {
    const room = text.length * 3;
    if (this.length + room > this.bytes.length) {
      if (this.length > 0) this.chunks.push(this.bytes.subarray(0, this.length));
      const next = Math.min(Math.max(this.bytes.length * 2, FIRST_CHUNK), MOST_CHUNK);
      this.bytes = new Uint8Array(Math.max(room, next));
      this.length = 0;
    }
    const { written } = encoder.encodeInto(text, this.bytes.subarray(this.length));
    this.length += written;
    return written;
  }

  text(text) {
    this.push(this.write(text));
  }

  // [the count of numbers, null when they are in wasm memory or else the numbers, the seqs and
  // lengths of the prompt strings, the prompt strings (see `prompts`), the UTF-8 bytes written
  // into the room in wasm memory, then the chunks of the bytes after them in order].
  finish() {
    if (this.length > 0) this.chunks.push(this.bytes.subarray(0, this.length));
    const numbers = this.inWasm ? null : this.numbers.subarray(0, this.count);
    return [this.count, numbers, new Float64Array(this.promptNumbers), this.prompts, this.wasmLength, ...this.chunks];
  }

  // A header's config or tools: absent, the previous header's, or its JSON text. It becomes
  // `previous`.
  json(value, previous) {
    const same = !isOmitted(value) && previous.present && previous.same(value, this.compared++ >= this.generic);
    const text = same || isOmitted(value) ? undefined : JSON.stringify(value);
    if (same) this.push(-2);
    else if (text === undefined) this.push(-1);
    else this.text(text);
    previous.take(value, same || text !== undefined, same);
  }

  event(event) {
    const count = this.count,
      chunks = this.chunks.length,
      bytes = this.bytes,
      length = this.length,
      inWasmText = this.inWasmText,
      wasmLength = this.wasmLength,
      prompts = this.prompts.length,
      promptNumbers = this.promptNumbers.length;
    try {
      this.members(event);
    } catch (error) {
      if (error !== AS_JSON) throw error;
      this.count = count;
      this.prompts.length = prompts;
      this.promptNumbers.length = promptNumbers;
      this.chunks.length = chunks;
      this.bytes = bytes;
      this.length = length;
      this.inWasmText = inWasmText;
      this.wasmLength = wasmLength;
      // The Rust side reads this one as JSON: the next header sends its config and tools.
      this.config.present = this.tools.present = false;
      this.push(0);
      this.text(JSON.stringify(slimEvent(event)) ?? "null");
    }
  }

  members(event) {
    if (!isPlainEvent(event)) throw AS_JSON;
    const { seq, time, type, surfaceOp, data } = event;
    if (typeof seq !== "number" || !Number.isFinite(seq)) throw AS_JSON;
    let tag = OTHER_TYPE;
    if (typeof type === "string") tag = typeTag(type);
    else if (!isSimple(type)) throw AS_JSON;
    // Maybe an SDK notification (read as JSON: see slimEvent).
    else if (type === undefined && event.method !== undefined) throw AS_JSON;
    let op = 0,
      start = 0,
      end = 0;
    if (surfaceOp === "append") {
      op = 1;
    } else if (surfaceOp !== null && !isOmitted(surfaceOp)) {
      if (!isPlainSurfaceOp(surfaceOp) || surfaceOp.op !== "replace") throw AS_JSON;
      start = surfaceOp.startSeq;
      end = surfaceOp.endSeq;
      if (typeof start !== "number" || !Number.isFinite(start) || typeof end !== "number" || !Number.isFinite(end)) {
        throw AS_JSON;
      }
      op = 2;
    }
    const record = tag === 2 ? isPlainHeaderData(data) : isPlainData(data);
    if (!record && !isSimple(data)) throw AS_JSON;
    const timeSlot = numberSlot(time);
    const turn = record ? numberSlot(data.turn) : NOT_A_NUMBER;
    const step = record ? numberSlot(data.step) : NOT_A_NUMBER;
    this.reserve(8);
    const numbers = this.numbers,
      at = this.count;
    numbers[at] = tag;
    numbers[at + 1] = seq;
    numbers[at + 2] = timeSlot;
    numbers[at + 3] = op;
    numbers[at + 4] = start;
    numbers[at + 5] = end;
    numbers[at + 6] = turn;
    numbers[at + 7] = step;
    this.count = at + 8;
    if (tag === 1) this.promptText(record ? data.message : undefined, seq);
    if (tag === 2) this.header(record ? data : undefined);
    if (tag >= USER_TAG) {
      const content = !record ? undefined : tag === USER_TAG ? data.content : messageContent(data.message);
      this.push(contentTokens(content));
      if (tag === ASSISTANT_TAG) this.usage(record ? data : undefined);
    }
  }

  // An assistant message's usage: `data.message.usage`, else `data.usage`.
  usage(data) {
    let usage;
    if (data !== undefined) {
      const message = data.message;
      if (isPlainMessage(message) && !isOmitted(message.usage)) usage = message.usage;
      else if (!isOmitted(data.usage)) usage = data.usage;
    }
    if (usage === undefined) return this.push(-1);
    let json;
    try {
      json = JSON.stringify(usage);
    } catch {
      throw AS_JSON;
    }
    if (json === undefined) this.push(-1);
    else this.text(json);
  }

  // Every `{type: "text", text}` block of `message.content`, joined; then the message's
  // tokens: a text block counts its text, any other block its JSON length (src/input/tokens.rs).
  // The joined text goes to `prompts` when each block's text is well formed (a lone surrogate
  // crosses as U+FFFD, so the text read would not be the string).
  promptText(message, seq) {
    let length = 0,
      units = 0,
      blocks = 0,
      joined = "",
      known = true;
    if (isPlainMessage(message)) {
      const content = message.content;
      if (isPlainArray(content)) {
        blocks = content.length;
        for (let i = 0; i < content.length; i++) {
          const block = content[i];
          if (!isSimple(block) && !isPlainBlock(block) && !isPlainArray(block)) throw AS_JSON;
          if (isPlainBlock(block)) {
            const { type, text } = block;
            if (type === "text" && typeof text === "string") {
              length += this.write(text);
              units += text.length;
              if (known && text.length > 0) {
                known = isWellFormed(text);
                joined = joined.length === 0 ? text : joined + text;
              }
              continue;
            }
            if (!isSimple(type) || !isSimple(text)) throw AS_JSON;
          }
          // What JSON cannot write (a BigInt, a cycle) crosses as null, as slimContent writes it.
          const json = jsonLength(block);
          units += json >= 0 ? json : 4;
        }
      } else if (!isSimple(content)) {
        throw AS_JSON;
      }
    } else if (!isSimple(message)) {
      throw AS_JSON;
    }
    this.push(length);
    this.push(blocks === 0 ? 0 : Math.ceil(units / 4) + 4);
    if (known && length > 0) {
      this.promptNumbers.push(seq, length);
      this.prompts.push(joined);
    }
  }

  header(data) {
    let reason = 0,
      startsSeries = false,
      header;
    if (data !== undefined) {
      if (typeof data.reason === "string") reason = reasonTag(data.reason);
      else if (!isSimple(data.reason)) throw AS_JSON;
      if (!isSimple(data.startsSeries)) throw AS_JSON;
      startsSeries = data.startsSeries === true;
      header = data.header;
    }
    let config, tools;
    if (isPlainHeader(header)) ({ config, tools } = header);
    else if (!isSimple(header)) throw AS_JSON;
    this.push(reason);
    this.push(startsSeries ? 1 : 0);
    this.json(config, this.config);
    this.json(tools, this.tools);
  }
}

// A message's content for JSON.stringify: a block JSON cannot write becomes null.
function slimContent(content) {
  if (!isPlainArray(content)) return content;
  return content.map((block) => (jsonLength(block) >= 0 ? block : null));
}

const MESSAGE_TYPES = new Set(["assistant/message", "tool/result", "developer/message"]);

// The members of one row the rules read, for JSON.stringify: of a session header, all of them;
// of an SDK notification (a row without type), its method and the event it carries.
function slimEvent(event, row = true) {
  if (!isJsonRecord(event)) return event;
  const data = own(event, "data");
  // The type as JSON writes it (a boxed string or a toJSON may stand for a known type).
  const written = own(event, "type");
  const type = isSimple(written) ? written : JSON.parse(JSON.stringify(written) ?? "null");
  if (row && type === "session" && own(event, "seq") === undefined) return event;
  if (row && type === undefined && own(event, "method") !== undefined) {
    const params = own(event, "params");
    const carried = isJsonRecord(params) ? { event: slimEvent(own(params, "event"), false) } : params;
    return { method: own(event, "method"), params: carried };
  }
  let surfaceOp = own(event, "surfaceOp");
  if (isJsonRecord(surfaceOp)) {
    surfaceOp = { op: own(surfaceOp, "op"), startSeq: own(surfaceOp, "startSeq"), endSeq: own(surfaceOp, "endSeq") };
  }
  const slim = { seq: own(event, "seq"), time: own(event, "time"), type, surfaceOp };
  if (!isJsonRecord(data)) {
    slim.data = data;
    return slim;
  }
  const kept = { turn: own(data, "turn"), step: own(data, "step") };
  if (type === "system/message") kept.message = slimMessage(own(data, "message"));
  if (type === "user/message") kept.content = slimContent(own(data, "content"));
  if (MESSAGE_TYPES.has(type)) {
    const message = own(data, "message");
    kept.message = isJsonRecord(message)
      ? { content: slimContent(own(message, "content")), usage: own(message, "usage") }
      : message;
    kept.usage = own(data, "usage");
  }
  if (type === "request/header") {
    kept.reason = own(data, "reason");
    kept.startsSeries = own(data, "startsSeries");
    const header = own(data, "header");
    kept.header = isJsonRecord(header) ? { config: own(header, "config"), tools: own(header, "tools") } : header;
  }
  slim.data = kept;
  return slim;
}

function slimMessage(message) {
  if (!isJsonRecord(message)) return message;
  const content = own(message, "content");
  if (!isPlainArray(content)) return { content };
  return {
    content: Array.from(content, (block) =>
      isJsonRecord(block) ? { type: own(block, "type"), text: own(block, "text") } : block,
    ),
  };
}

// An object JSON writes as its own enumerable members (a plain object or a class instance; not
// an array, a boxed value or anything with toJSON), which can then be copied member by member.
function isJsonRecord(value) {
  return (
    value !== null &&
    typeof value === "object" &&
    !Array.isArray(value) &&
    typeof value.toJSON !== "function" &&
    Object.prototype.toString.call(value) === "[object Object]"
  );
}

// A member as JSON sees it: own and enumerable, or absent.
function own(record, key) {
  return Object.prototype.propertyIsEnumerable.call(record, key) ? record[key] : undefined;
}

// A Packer (with its two Previous) kept for good from the first batch on, so that their hidden
// classes live: V8 drops a hidden class once no object has it, and a full garbage collection
// between two batches then also threw away the optimized code built on it, so that each batch
// ran the packer unoptimized until V8 had compiled it again. (One made when this module loads
// did not keep the code, by node --trace-deopt-verbose.)
let _keptPacker;

// The packed batch (see Packer.finish), its numbers written from `address` in `memory` (room for
// `room`) and its texts from `textAddress` (room for `textRoom` bytes) while they fit, or the
// index of the first event that cannot be read (a getter that throws) or written as JSON (a
// BigInt, a cycle).
export function promptfoldPackBatch(events, memory, address, room, textAddress, textRoom) {
  const generic = events.length >= LARGE_BATCH ? 0 : GENERIC_COMPARISONS;
  const packer = new Packer(memory, address, room, textAddress, textRoom, generic);
  packer.compared = comparisons.made;
  _keptPacker ??= new Packer(memory, address, 0, textAddress, 0, 0);
  let i = 0;
  try {
    // The batch fails at an event that is not an object (NOT_AN_OBJECT, unless a later one
    // holds a value JSON cannot write or nests too deeply), so the elements after it that are
    // not objects are not packed: each hole of a sparse array would be packed as null.
    let failed = false;
    for (; i < events.length; i++) {
      const event = events[i];
      const object = typeof event === "object" && event !== null;
      if (failed && !object && typeof event !== "bigint") continue;
      packer.event(event);
      failed ||= !object;
    }
  } catch {
    return i;
  } finally {
    comparisons.made = Math.min(packer.compared, GENERIC_COMPARISONS);
  }
  return packer.finish();
}
