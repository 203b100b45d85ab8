// What JSON writes, checked without writing it: the plain-data tests the packer, its same-JSON
// check, its token estimates and its JSON lengths share, the markers of a value's token list, and
// the signal that an event must cross as JSON text. A leaf: it imports nothing, so the modules
// that use it (src/wasm/js/pack.js and those it imports) never import one another in a cycle.

// How deep the same-JSON check and the matchers compare before they answer "not the same".
export const MAX_COMPARE_DEPTH = 64;
// Thrown (never past src/wasm/js/pack.js) when an event must cross as JSON text.
export const AS_JSON = Symbol("as JSON");

// An object JSON writes as its own members: not an array, a boxed value, a class instance or
// anything with toJSON. toJSON is looked up before the prototype: a lookup at a place that has
// seen few shapes checks the shape, and V8 then knows the prototype without a call (getting a
// prototype otherwise calls into the runtime). isPlainEvent, isPlainHeaderData and isPlainData are
// the same check with lookups of their own (events and their data come in few shapes each).
export function isPlainRecord(value) {
  return value !== null && typeof value === "object" && typeof value.toJSON !== "function" && hasPlainPrototype(value);
}

// isPlainRecord for an event.
export function isPlainEvent(event) {
  return event !== null && typeof event === "object" && typeof event.toJSON !== "function" && hasPlainPrototype(event);
}

// isPlainRecord for a request header's data.
export function isPlainHeaderData(data) {
  return data !== null && typeof data === "object" && typeof data.toJSON !== "function" && hasPlainPrototype(data);
}

// isPlainRecord for the data of any other event (whose shapes are not a header's).
export function isPlainData(data) {
  return data !== null && typeof data === "object" && typeof data.toJSON !== "function" && hasPlainPrototype(data);
}

// isPlainRecord for an event's `data.message`. This one and those below keep the lookups of the
// packer's other places apart from isPlainRecord's: a lookup that every place shares meets
// events, messages, blocks and values of every shape, and V8 then looks toJSON up in a table and
// calls out for the prototype; on prune-heavy 2,000 that was 2.4% of a warm load (V8's sampling
// profiler: hasPlainPrototype not inlined under isPlainRecord).
export function isPlainMessage(message) {
  return (
    message !== null &&
    typeof message === "object" &&
    typeof message.toJSON !== "function" &&
    hasPlainPrototype(message)
  );
}

// isPlainRecord for a block of a message's content.
export function isPlainBlock(block) {
  return block !== null && typeof block === "object" && typeof block.toJSON !== "function" && hasPlainPrototype(block);
}

// isPlainRecord for a record inside a block (src/wasm/js/json-length.js walks them).
export function isPlainMember(member) {
  return (
    member !== null && typeof member === "object" && typeof member.toJSON !== "function" && hasPlainPrototype(member)
  );
}

// isPlainRecord for a request header's `header`.
export function isPlainHeader(header) {
  return (
    header !== null && typeof header === "object" && typeof header.toJSON !== "function" && hasPlainPrototype(header)
  );
}

// isPlainRecord for an event's `surfaceOp`.
export function isPlainSurfaceOp(op) {
  return op !== null && typeof op === "object" && typeof op.toJSON !== "function" && hasPlainPrototype(op);
}

// Whether `value` (an object) has the prototype of an object literal or none, and is not an array
// (JSON writes an array as its items, whatever its prototype).
export function hasPlainPrototype(value) {
  if (Array.isArray(value)) return false;
  const prototype = Object.getPrototypeOf(value);
  return prototype === Object.prototype || prototype === null;
}

export function isPlainArray(value) {
  return Array.isArray(value) && typeof value.toJSON !== "function" && Object.getPrototypeOf(value) === Array.prototype;
}

// Values JSON.stringify leaves out of an object (and writes as null in an array).
export function isOmitted(value) {
  return value === undefined || typeof value === "function" || typeof value === "symbol";
}

// Whether JSON writes `value` as a string, number, boolean or null, or leaves it out.
export function isSimple(value) {
  return value === null || (typeof value !== "object" && typeof value !== "bigint");
}

// Whether for...in over a plain object walks its own members only, as JSON does.
export function nothingInherited() {
  for (const _key in Object.prototype) return false;
  return true;
}

// Markers of the token list of a JSON value (see Previous in src/wasm/js/same-json.js).
export const OPEN_OBJECT = {};
export const OPEN_ARRAY = {};
export const CLOSE = {};
