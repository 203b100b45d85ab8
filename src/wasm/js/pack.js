// The packer: a batch of JS event objects taken apart into numbers and UTF-8 text, the numbers
// written straight into wasm memory (the layout is documented in src/input/parse/packed.rs; the Rust
// side is src/wasm/batch.rs, which imports promptfoldPackBatch from this module).
//
// The matchers between the BEGIN and END lines below are generated from one template by
// scripts/gen-matchers.mjs (scripts/test checks that this file is its output): edit the template
// there, then run `node scripts/gen-matchers.mjs`.

const MAX_COMPARE_DEPTH = 64;
const encoder = new TextEncoder();
const TYPE_TAGS = new Map([
  ["system/message", 1],
  ["request/header", 2],
  ["turn/start", 3],
  ["turn/end", 4],
  ["step/start", 5],
  ["step/end", 6],
  ["user/message", 8],
  ["assistant/message", 9],
  ["tool/result", 10],
  ["developer/message", 11],
]);
const USER_TAG = 8;
const ASSISTANT_TAG = 9;
const OTHER_TYPE = 7;
const REASONS = new Map([
  ["initial", 1],
  ["resume", 2],
  ["change", 3],
  ["series", 4],
]);
// Slot values for `time`, `turn` and `step` that are not finite numbers.
const JSON_NULL = NaN;
const NOT_A_NUMBER = Infinity;
// Thrown (never past this module) when an event must cross as JSON text.
const AS_JSON = Symbol("as JSON");

// Whether JSON.stringify(a) === JSON.stringify(b) is certain without writing either: the same
// plain data, keys in the same order. "No" is always safe (the value is then sent in full).
function sameJson(a, b, depth) {
  if (a === b && (typeof a !== "object" || a === null)) return true;
  if (typeof a !== "object" || typeof b !== "object" || a === null || b === null) return false;
  if (depth > MAX_COMPARE_DEPTH) return false;
  const arrays = isPlainArray(a);
  if (arrays ? !isPlainArray(b) : !isPlainRecord(a) || !isPlainRecord(b)) return false;
  if (arrays) {
    if (a.length !== b.length) return false;
    for (let i = 0; i < a.length; i++) if (!sameJson(a[i], b[i], depth + 1)) return false;
    return true;
  }
  const keys = Object.keys(a),
    other = Object.keys(b);
  if (keys.length !== other.length) return false;
  for (let i = 0; i < keys.length; i++) {
    const key = keys[i];
    if (key !== other[i] || !sameJson(a[key], b[key], depth + 1)) return false;
  }
  return true;
}

// An object JSON writes as its own members: not an array, a boxed value, a class instance or
// anything with toJSON. toJSON is looked up before the prototype: a lookup at a place that has
// seen few shapes checks the shape, and V8 then knows the prototype without a call (getting a
// prototype otherwise calls into the runtime). isPlainEvent, isPlainHeaderData and isPlainData are
// the same check with lookups of their own (events and their data come in few shapes each).
function isPlainRecord(value) {
  return value !== null && typeof value === "object" && typeof value.toJSON !== "function" && hasPlainPrototype(value);
}

// isPlainRecord for an event.
function isPlainEvent(event) {
  return event !== null && typeof event === "object" && typeof event.toJSON !== "function" && hasPlainPrototype(event);
}

// isPlainRecord for a request header's data.
function isPlainHeaderData(data) {
  return data !== null && typeof data === "object" && typeof data.toJSON !== "function" && hasPlainPrototype(data);
}

// isPlainRecord for the data of any other event (whose shapes are not a header's).
function isPlainData(data) {
  return data !== null && typeof data === "object" && typeof data.toJSON !== "function" && hasPlainPrototype(data);
}

// Whether `value` (an object) has the prototype of an object literal or none, and is not an array
// (JSON writes an array as its items, whatever its prototype).
function hasPlainPrototype(value) {
  if (Array.isArray(value)) return false;
  const prototype = Object.getPrototypeOf(value);
  return prototype === Object.prototype || prototype === null;
}

function isPlainArray(value) {
  return Array.isArray(value) && typeof value.toJSON !== "function" && Object.getPrototypeOf(value) === Array.prototype;
}

// Values JSON.stringify leaves out of an object (and writes as null in an array).
function isOmitted(value) {
  return value === undefined || typeof value === "function" || typeof value === "symbol";
}

// Whether JSON writes `value` as a string, number, boolean or null, or leaves it out.
function isSimple(value) {
  return value === null || (typeof value !== "object" && typeof value !== "bigint");
}

// A `time`, `turn` or `step` slot (see parse::packed).
function numberSlot(value) {
  if (typeof value === "number") return Number.isFinite(value) ? value : JSON_NULL;
  if (value === null) return JSON_NULL;
  if (isSimple(value)) return NOT_A_NUMBER;
  throw AS_JSON;
}

// Markers of the token list of a JSON value (see Previous).
const OPEN_OBJECT = {},
  OPEN_ARRAY = {},
  CLOSE = {};

// Whether for...in over a plain object walks its own members only, as JSON does.
function nothingInherited() {
  for (const _key in Object.prototype) return false;
  return true;
}

// The config or tools of the previous header: whether it was sent (in full or as a marker), its
// value, and when that value is plain data, its JSON as a list of tokens: the markers above,
// keys and leaf values, in JSON order. The next header's value is then compared with the tokens,
// walking that value only.
class Previous {
  constructor() {
    this.present = false;
    this.value = undefined;
    this.flat = false;
    this.tokens = [];
  }

  // Whether JSON.stringify(value) is certainly the previous value's JSON; `specialized`: walk
  // `value` with the matchers written out for each depth (see GENERIC_COMPARISONS).
  same(value, specialized) {
    if (!this.flat || !nothingInherited()) return sameJson(value, this.value, 0);
    return matchTokens(value, this.tokens, 0, specialized) === this.tokens.length;
  }

  // Takes `value` as the previous value: `sent` tells whether it was sent, `same` whether as a
  // marker.
  take(value, sent, same) {
    this.present = sent;
    this.value = value;
    if (same && this.flat) return;
    this.tokens.length = 0;
    this.flat = sent && nothingInherited() && flatten(value, this.tokens, 0);
  }
}

// Appends the tokens of `value` to `tokens`; false when it is not plain data.
function flatten(value, tokens, depth) {
  if (typeof value !== "object" || value === null) {
    tokens.push(value);
    return true;
  }
  if (depth > MAX_COMPARE_DEPTH) return false;
  if (Array.isArray(value)) {
    if (!isPlainArray(value)) return false;
    tokens.push(OPEN_ARRAY);
    for (let i = 0; i < value.length; i++) if (!flatten(value[i], tokens, depth + 1)) return false;
  } else {
    if (!isPlainRecord(value)) return false;
    tokens.push(OPEN_OBJECT);
    for (const key in value) {
      tokens.push(key);
      if (!flatten(value[key], tokens, depth + 1)) return false;
    }
  }
  tokens.push(CLOSE);
  return true;
}

// The index after the tokens of `value` when they are those of `tokens` from `at`, else -1;
// `specialized`: with the matchers written out for each depth, else with the generic ones.
function matchTokens(value, tokens, at, specialized) {
  const token = tokens[at];
  if (token !== OPEN_OBJECT && token !== OPEN_ARRAY) return token === value ? at + 1 : -1;
  if (typeof value !== "object" || value === null) return -1;
  if (token === OPEN_OBJECT)
    return specialized ? matchRecord0(value, tokens, at + 1) : matchRecordDeeper(value, tokens, at + 1, 0);
  return specialized ? matchList0(value, tokens, at + 1) : matchListDeeper(value, tokens, at + 1, 0);
}

// How many config and tools comparisons of a batch walk with the generic matchers
// (matchRecordDeeper and matchListDeeper from depth 0) before those written out for each depth
// take over. Those are faster once optimized, but V8 compiles each apart, and a batch of a few
// thousand headers does not repay that: the first load of a typical session of 10,000 events
// (1,614 headers) in a fresh process took 75 ms with them from the start and 54 ms with this
// limit, and 160 ms against 120 ms of CPU over all threads (Node 20, medians of 7 processes).
// A batch of LARGE_BATCH events or more repays them, and walks with them from the start.
const GENERIC_COMPARISONS = 4096;
const LARGE_BATCH = 32768;

// matchTokens for the members of a record or the items of a list at a depth (0 for the config or
// tools value itself), from after its OPEN_OBJECT or OPEN_ARRAY. The token at each member or item
// tells what it must be: a leaf equal to the token (no value is ever equal to a marker), or an
// object of the kind the marker opens, matched by the function of the next depth. The functions
// below are two functions written out once for each of the first depths (tests/js/objects.test.mjs
// checks that they stay the same but for the depth): a function's lookups keep their own record of
// the shapes they met, so each meets only the objects at its depth (the tools, their parameters,
// ...), which come in few shapes, and V8 then checks a shape where a lookup shared by all depths
// looks toJSON, the prototype and the keys up for every object. Each calls those of the next depth
// by name, not through a table, which V8 can inline; and a leaf costs one comparison.

// BEGIN matchers generated by scripts/gen-matchers.mjs
// The record matcher for depth 0.
function matchRecord0(record, tokens, at) {
  if (typeof record.toJSON === "function" || !hasPlainPrototype(record)) return -1;
  for (const key in record) {
    if (tokens[at++] !== key) return -1;
    const item = record[key];
    const token = tokens[at];
    if (token === item) {
      at++;
    } else if (token === OPEN_OBJECT) {
      if (typeof item !== "object" || item === null || (at = matchRecord1(item, tokens, at + 1)) < 0) return -1;
    } else if (token === OPEN_ARRAY) {
      if (typeof item !== "object" || item === null || (at = matchList1(item, tokens, at + 1)) < 0) return -1;
    } else {
      return -1;
    }
  }
  return tokens[at] === CLOSE ? at + 1 : -1;
}

// The list matcher for depth 0.
function matchList0(list, tokens, at) {
  if (!isPlainArray(list)) return -1;
  for (let i = 0; i < list.length; i++) {
    const item = list[i];
    const token = tokens[at];
    if (token === item) {
      at++;
    } else if (token === OPEN_OBJECT) {
      if (typeof item !== "object" || item === null || (at = matchRecord1(item, tokens, at + 1)) < 0) return -1;
    } else if (token === OPEN_ARRAY) {
      if (typeof item !== "object" || item === null || (at = matchList1(item, tokens, at + 1)) < 0) return -1;
    } else {
      return -1;
    }
  }
  return tokens[at] === CLOSE ? at + 1 : -1;
}

// The record matcher for depth 1.
function matchRecord1(record, tokens, at) {
  if (typeof record.toJSON === "function" || !hasPlainPrototype(record)) return -1;
  for (const key in record) {
    if (tokens[at++] !== key) return -1;
    const item = record[key];
    const token = tokens[at];
    if (token === item) {
      at++;
    } else if (token === OPEN_OBJECT) {
      if (typeof item !== "object" || item === null || (at = matchRecord2(item, tokens, at + 1)) < 0) return -1;
    } else if (token === OPEN_ARRAY) {
      if (typeof item !== "object" || item === null || (at = matchList2(item, tokens, at + 1)) < 0) return -1;
    } else {
      return -1;
    }
  }
  return tokens[at] === CLOSE ? at + 1 : -1;
}

// The list matcher for depth 1.
function matchList1(list, tokens, at) {
  if (!isPlainArray(list)) return -1;
  for (let i = 0; i < list.length; i++) {
    const item = list[i];
    const token = tokens[at];
    if (token === item) {
      at++;
    } else if (token === OPEN_OBJECT) {
      if (typeof item !== "object" || item === null || (at = matchRecord2(item, tokens, at + 1)) < 0) return -1;
    } else if (token === OPEN_ARRAY) {
      if (typeof item !== "object" || item === null || (at = matchList2(item, tokens, at + 1)) < 0) return -1;
    } else {
      return -1;
    }
  }
  return tokens[at] === CLOSE ? at + 1 : -1;
}

// The record matcher for depth 2.
function matchRecord2(record, tokens, at) {
  if (typeof record.toJSON === "function" || !hasPlainPrototype(record)) return -1;
  for (const key in record) {
    if (tokens[at++] !== key) return -1;
    const item = record[key];
    const token = tokens[at];
    if (token === item) {
      at++;
    } else if (token === OPEN_OBJECT) {
      if (typeof item !== "object" || item === null || (at = matchRecord3(item, tokens, at + 1)) < 0) return -1;
    } else if (token === OPEN_ARRAY) {
      if (typeof item !== "object" || item === null || (at = matchList3(item, tokens, at + 1)) < 0) return -1;
    } else {
      return -1;
    }
  }
  return tokens[at] === CLOSE ? at + 1 : -1;
}

// The list matcher for depth 2.
function matchList2(list, tokens, at) {
  if (!isPlainArray(list)) return -1;
  for (let i = 0; i < list.length; i++) {
    const item = list[i];
    const token = tokens[at];
    if (token === item) {
      at++;
    } else if (token === OPEN_OBJECT) {
      if (typeof item !== "object" || item === null || (at = matchRecord3(item, tokens, at + 1)) < 0) return -1;
    } else if (token === OPEN_ARRAY) {
      if (typeof item !== "object" || item === null || (at = matchList3(item, tokens, at + 1)) < 0) return -1;
    } else {
      return -1;
    }
  }
  return tokens[at] === CLOSE ? at + 1 : -1;
}

// The record matcher for depth 3.
function matchRecord3(record, tokens, at) {
  if (typeof record.toJSON === "function" || !hasPlainPrototype(record)) return -1;
  for (const key in record) {
    if (tokens[at++] !== key) return -1;
    const item = record[key];
    const token = tokens[at];
    if (token === item) {
      at++;
    } else if (token === OPEN_OBJECT) {
      if (typeof item !== "object" || item === null || (at = matchRecord4(item, tokens, at + 1)) < 0) return -1;
    } else if (token === OPEN_ARRAY) {
      if (typeof item !== "object" || item === null || (at = matchList4(item, tokens, at + 1)) < 0) return -1;
    } else {
      return -1;
    }
  }
  return tokens[at] === CLOSE ? at + 1 : -1;
}

// The list matcher for depth 3.
function matchList3(list, tokens, at) {
  if (!isPlainArray(list)) return -1;
  for (let i = 0; i < list.length; i++) {
    const item = list[i];
    const token = tokens[at];
    if (token === item) {
      at++;
    } else if (token === OPEN_OBJECT) {
      if (typeof item !== "object" || item === null || (at = matchRecord4(item, tokens, at + 1)) < 0) return -1;
    } else if (token === OPEN_ARRAY) {
      if (typeof item !== "object" || item === null || (at = matchList4(item, tokens, at + 1)) < 0) return -1;
    } else {
      return -1;
    }
  }
  return tokens[at] === CLOSE ? at + 1 : -1;
}

// The record matcher for depth 4.
function matchRecord4(record, tokens, at) {
  if (typeof record.toJSON === "function" || !hasPlainPrototype(record)) return -1;
  for (const key in record) {
    if (tokens[at++] !== key) return -1;
    const item = record[key];
    const token = tokens[at];
    if (token === item) {
      at++;
    } else if (token === OPEN_OBJECT) {
      if (typeof item !== "object" || item === null || (at = matchRecord5(item, tokens, at + 1)) < 0) return -1;
    } else if (token === OPEN_ARRAY) {
      if (typeof item !== "object" || item === null || (at = matchList5(item, tokens, at + 1)) < 0) return -1;
    } else {
      return -1;
    }
  }
  return tokens[at] === CLOSE ? at + 1 : -1;
}

// The list matcher for depth 4.
function matchList4(list, tokens, at) {
  if (!isPlainArray(list)) return -1;
  for (let i = 0; i < list.length; i++) {
    const item = list[i];
    const token = tokens[at];
    if (token === item) {
      at++;
    } else if (token === OPEN_OBJECT) {
      if (typeof item !== "object" || item === null || (at = matchRecord5(item, tokens, at + 1)) < 0) return -1;
    } else if (token === OPEN_ARRAY) {
      if (typeof item !== "object" || item === null || (at = matchList5(item, tokens, at + 1)) < 0) return -1;
    } else {
      return -1;
    }
  }
  return tokens[at] === CLOSE ? at + 1 : -1;
}

// The record matcher for depth 5.
function matchRecord5(record, tokens, at) {
  if (typeof record.toJSON === "function" || !hasPlainPrototype(record)) return -1;
  for (const key in record) {
    if (tokens[at++] !== key) return -1;
    const item = record[key];
    const token = tokens[at];
    if (token === item) {
      at++;
    } else if (token === OPEN_OBJECT) {
      if (typeof item !== "object" || item === null || (at = matchRecordDeeper(item, tokens, at + 1, 6)) < 0) return -1;
    } else if (token === OPEN_ARRAY) {
      if (typeof item !== "object" || item === null || (at = matchListDeeper(item, tokens, at + 1, 6)) < 0) return -1;
    } else {
      return -1;
    }
  }
  return tokens[at] === CLOSE ? at + 1 : -1;
}

// The list matcher for depth 5.
function matchList5(list, tokens, at) {
  if (!isPlainArray(list)) return -1;
  for (let i = 0; i < list.length; i++) {
    const item = list[i];
    const token = tokens[at];
    if (token === item) {
      at++;
    } else if (token === OPEN_OBJECT) {
      if (typeof item !== "object" || item === null || (at = matchRecordDeeper(item, tokens, at + 1, 6)) < 0) return -1;
    } else if (token === OPEN_ARRAY) {
      if (typeof item !== "object" || item === null || (at = matchListDeeper(item, tokens, at + 1, 6)) < 0) return -1;
    } else {
      return -1;
    }
  }
  return tokens[at] === CLOSE ? at + 1 : -1;
}

// The record matcher for the depths after those above, and for every depth in the generic walk
// (see GENERIC_COMPARISONS).
function matchRecordDeeper(record, tokens, at, depth) {
  if (depth > MAX_COMPARE_DEPTH) return -1;
  if (typeof record.toJSON === "function" || !hasPlainPrototype(record)) return -1;
  for (const key in record) {
    if (tokens[at++] !== key) return -1;
    const item = record[key];
    const token = tokens[at];
    if (token === item) {
      at++;
    } else if (token === OPEN_OBJECT) {
      if (typeof item !== "object" || item === null || (at = matchRecordDeeper(item, tokens, at + 1, depth + 1)) < 0)
        return -1;
    } else if (token === OPEN_ARRAY) {
      if (typeof item !== "object" || item === null || (at = matchListDeeper(item, tokens, at + 1, depth + 1)) < 0)
        return -1;
    } else {
      return -1;
    }
  }
  return tokens[at] === CLOSE ? at + 1 : -1;
}

// The list matcher for the depths after those above, and for every depth in the generic walk
// (see GENERIC_COMPARISONS).
function matchListDeeper(list, tokens, at, depth) {
  if (depth > MAX_COMPARE_DEPTH) return -1;
  if (!isPlainArray(list)) return -1;
  for (let i = 0; i < list.length; i++) {
    const item = list[i];
    const token = tokens[at];
    if (token === item) {
      at++;
    } else if (token === OPEN_OBJECT) {
      if (typeof item !== "object" || item === null || (at = matchRecordDeeper(item, tokens, at + 1, depth + 1)) < 0)
        return -1;
    } else if (token === OPEN_ARRAY) {
      if (typeof item !== "object" || item === null || (at = matchListDeeper(item, tokens, at + 1, depth + 1)) < 0)
        return -1;
    } else {
      return -1;
    }
  }
  return tokens[at] === CLOSE ? at + 1 : -1;
}
// END matchers generated by scripts/gen-matchers.mjs

// The largest chunk of UTF-8 bytes allocated at once (see Packer.write).
const MOST_CHUNK = 1 << 22;

class Packer {
  // `room` numbers from `address` in `memory`, the wasm memory, are free for the records: the
  // Rust side reserves the most numbers an event takes (MOST_SLOTS) for every event (up to
  // MOST_RESERVED_EVENTS), and the numbers are written there, neither allocated in JS nor copied.
  // `generic`: how many comparisons walk with the generic matchers (see GENERIC_COMPARISONS).
  constructor(memory, address, room, generic) {
    this.memory = memory;
    this.address = address;
    this.room = room;
    this.numbers = new Float64Array(memory.buffer, address, room);
    this.inWasm = true;
    this.count = 0;
    // The UTF-8 bytes: full chunks, then the chunk being written.
    this.chunks = [];
    this.bytes = new Uint8Array(1 << 16);
    this.length = 0;
    // The config and tools of the previous header in the batch.
    this.config = new Previous();
    this.tools = new Previous();
    this.compared = 0;
    this.generic = generic;
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

  // Appends `text` as UTF-8 (lone surrogates become U+FFFD) and returns its length in bytes.
  // When the chunk has no room for it, it goes into a new chunk: growing one array instead
  // copied every byte written so far at each growth.
  write(text) {
    const room = text.length * 3;
    if (this.length + room > this.bytes.length) {
      this.chunks.push(this.bytes.subarray(0, this.length));
      this.bytes = new Uint8Array(Math.max(room, Math.min(this.bytes.length * 2, MOST_CHUNK)));
      this.length = 0;
    }
    const { written } = encoder.encodeInto(text, this.bytes.subarray(this.length));
    this.length += written;
    return written;
  }

  text(text) {
    this.push(this.write(text));
  }

  // [the count of numbers, null when they are in wasm memory or else the numbers, then the
  // chunks of UTF-8 bytes in order].
  finish() {
    this.chunks.push(this.bytes.subarray(0, this.length));
    return [this.count, this.inWasm ? null : this.numbers.subarray(0, this.count), ...this.chunks];
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
      length = this.length;
    try {
      this.members(event);
    } catch (error) {
      if (error !== AS_JSON) throw error;
      this.count = count;
      this.chunks.length = chunks;
      this.bytes = bytes;
      this.length = length;
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
    if (typeof type === "string") tag = TYPE_TAGS.get(type) ?? OTHER_TYPE;
    else if (!isSimple(type)) throw AS_JSON;
    // Maybe an SDK notification (read as JSON: see slimEvent).
    else if (type === undefined && event.method !== undefined) throw AS_JSON;
    let op = 0,
      start = 0,
      end = 0;
    if (surfaceOp === "append") {
      op = 1;
    } else if (surfaceOp !== null && !isOmitted(surfaceOp)) {
      if (!isPlainRecord(surfaceOp) || surfaceOp.op !== "replace") throw AS_JSON;
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
    if (tag === 1) this.promptText(record ? data.message : undefined);
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
      if (isPlainRecord(message) && !isOmitted(message.usage)) usage = message.usage;
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
  promptText(message) {
    let length = 0,
      units = 0,
      blocks = 0;
    if (isPlainRecord(message)) {
      const content = message.content;
      if (isPlainArray(content)) {
        blocks = content.length;
        for (let i = 0; i < content.length; i++) {
          const block = content[i];
          if (!isSimple(block) && !isPlainRecord(block) && !isPlainArray(block)) throw AS_JSON;
          if (isPlainRecord(block)) {
            const { type, text } = block;
            if (type === "text" && typeof text === "string") {
              length += this.write(text);
              units += text.length;
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
  }

  header(data) {
    let reason = 0,
      startsSeries = false,
      header;
    if (data !== undefined) {
      if (typeof data.reason === "string") reason = REASONS.get(data.reason) ?? 0;
      else if (!isSimple(data.reason)) throw AS_JSON;
      if (!isSimple(data.startsSeries)) throw AS_JSON;
      startsSeries = data.startsSeries === true;
      header = data.header;
    }
    let config, tools;
    if (isPlainRecord(header)) ({ config, tools } = header);
    else if (!isSimple(header)) throw AS_JSON;
    this.push(reason);
    this.push(startsSeries ? 1 : 0);
    this.json(config, this.config);
    this.json(tools, this.tools);
  }
}

// A message's content (see src/input/parse/packed.rs: the content JSON text would give).
function messageContent(message) {
  if (isPlainRecord(message)) return message.content;
  if (isSimple(message) || isPlainArray(message)) return undefined;
  throw AS_JSON;
}

// The token cost of a message's content blocks (src/input/tokens.rs has the rules).
function contentTokens(content) {
  if (typeof content === "string") return Math.ceil(content.length / 4) + 4;
  if (isPlainArray(content)) {
    let tokens = 0;
    for (let i = 0; i < content.length; i++) tokens += blockTokens(content[i]);
    return tokens;
  }
  if (isSimple(content) || isPlainRecord(content)) return 0;
  throw AS_JSON;
}

// The token cost of one block. A block JSON cannot write (a BigInt, a cycle) costs what null
// costs, as slimContent writes it.
function blockTokens(block) {
  if (isPlainRecord(block)) {
    const type = block.type;
    if (!isSimple(type)) throw AS_JSON;
    if (type === "text" || type === "reasoning") {
      const text = block.text;
      if (typeof text === "string") return Math.ceil(text.length / 4) + 4;
      if (!isSimple(text)) throw AS_JSON;
    } else if (type === "tool-call") {
      const name = stringLength(block.name),
        args = argumentsLength(block.arguments);
      if (args >= 0) return Math.ceil(name / 4) + Math.ceil(args / 4) + 4;
      return 5;
    }
  } else if (!isSimple(block) && !isPlainArray(block)) {
    throw AS_JSON;
  }
  const length = jsonLength(block);
  return length >= 0 ? 4 + Math.ceil(length / 4) : 5;
}

// A tool call's name: its length as a string, else 0.
function stringLength(value) {
  if (typeof value === "string") return value.length;
  if (isSimple(value)) return 0;
  throw AS_JSON;
}

// A tool call's arguments: a string's length, else the JSON length of the value (-1: JSON
// cannot write it).
function argumentsLength(value) {
  if (typeof value === "string") return value.length;
  if (isOmitted(value)) return 0;
  if (isSimple(value) || isPlainRecord(value) || isPlainArray(value)) return jsonLength(value);
  throw AS_JSON;
}

// JSON.stringify(value).length (null's for what JSON leaves out), -1 when JSON cannot write it.
// Plain data is walked without writing the text: a tool result's block written out only to be
// measured was a fifth of a prune-heavy load (bench/results/context.md).
export function jsonLength(value) {
  const walked = walkedJsonLength(value, 0);
  if (walked >= 0) return walked;
  try {
    const json = JSON.stringify(value);
    return json === undefined ? 4 : json.length;
  } catch {
    return -1;
  }
}

// How deep walkedJsonLength goes before it leaves a value to JSON.stringify (a cycle gets there).
const WALK_DEPTH = 64;
// walkedJsonLength's answer for a value it leaves to JSON.stringify.
const NOT_WALKED = -1;
// Characters JSON.stringify escapes: quote, backslash, controls, and surrogates when lone.
// biome-ignore lint/suspicious/noControlCharactersInRegex: the controls are what JSON escapes.
const ESCAPED = /["\\\u0000-\u001f\ud800-\udfff]/;
// 10 ** i for the digits of a safe integer.
const POWERS_OF_TEN = Array.from({ length: 16 }, (_, i) => 10 ** (i + 1));

// JSON.stringify(value).length of plain data (strings, finite numbers, booleans, null, plain
// arrays and records of them), or NOT_WALKED for anything else (toJSON, a boxed value, a BigInt,
// a prototype of its own, nesting deeper than WALK_DEPTH), which JSON.stringify must measure.
function walkedJsonLength(value, depth) {
  switch (typeof value) {
    case "string":
      return ESCAPED.test(value) ? escapedLength(value) : value.length + 2;
    case "number":
      return numberLength(value);
    case "boolean":
      return value ? 4 : 5;
    case "object":
      break;
    default:
      return NOT_WALKED;
  }
  if (value === null) return 4;
  if (depth >= WALK_DEPTH) return NOT_WALKED;
  if (isPlainArray(value)) {
    const count = value.length;
    let length = count === 0 ? 2 : count + 1;
    for (let i = 0; i < count; i++) {
      const item = value[i];
      const part = isOmitted(item) ? 4 : walkedJsonLength(item, depth + 1);
      if (part < 0) return NOT_WALKED;
      length += part;
    }
    return length;
  }
  if (!isPlainRecord(value)) return NOT_WALKED;
  let length = 1,
    members = 0;
  for (const key of Object.keys(value)) {
    const member = value[key];
    if (isOmitted(member)) continue;
    const part = walkedJsonLength(member, depth + 1);
    if (part < 0) return NOT_WALKED;
    length += walkedJsonLength(key, depth) + 2 + part;
    members++;
  }
  return members === 0 ? 2 : length;
}

// JSON.stringify(text).length of a text with characters to escape.
function escapedLength(text) {
  let length = 2;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code === 0x22 || code === 0x5c || code === 8 || code === 9 || code === 10 || code === 12 || code === 13) {
      length += 2;
    } else if (code < 0x20) {
      length += 6;
    } else if (code >= 0xd800 && code <= 0xdbff && i + 1 < text.length && isLowSurrogate(text.charCodeAt(i + 1))) {
      length += 2;
      i++;
    } else if (code >= 0xd800 && code <= 0xdfff) {
      length += 6;
    } else {
      length += 1;
    }
  }
  return length;
}

function isLowSurrogate(code) {
  return code >= 0xdc00 && code <= 0xdfff;
}

// JSON.stringify(number).length: digits for a safe integer, else the text String makes.
function numberLength(number) {
  if (!Number.isFinite(number)) return 4;
  if (!Number.isSafeInteger(number)) return String(number).length;
  const sign = number < 0 ? 1 : 0;
  const magnitude = Math.abs(number);
  let digits = 1;
  while (digits <= POWERS_OF_TEN.length && magnitude >= POWERS_OF_TEN[digits - 1]) digits++;
  return sign + digits;
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
let keptPacker;

// The packed batch (see Packer.finish), its numbers written from `address` in `memory` (room for
// `room`), or the index of the first event that cannot be read (a getter that throws) or written
// as JSON (a BigInt, a cycle).
export function promptfoldPackBatch(events, memory, address, room) {
  const packer = new Packer(memory, address, room, events.length >= LARGE_BATCH ? 0 : GENERIC_COMPARISONS);
  if (keptPacker === undefined) {
    keptPacker = new Packer(memory, address, 0, 0);
    keptPacker.bytes = new Uint8Array(0);
  }
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
  }
  return packer.finish();
}
