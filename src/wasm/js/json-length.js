// JSON lengths: JSON.stringify(value).length, walking plain data without writing its text.

import { isOmitted, isPlainArray, isPlainMember, nothingInherited } from "./plain.js";

// JSON.stringify(value).length (null's for what JSON leaves out), -1 when JSON cannot write it.
// Plain data is walked without writing the text: a tool result's block written out only to be
// measured was a fifth of a prune-heavy load (bench/results/context.md).
export function jsonLength(value) {
  // The walk reads a record's members with for...in, which JSON's own members are only when
  // nothing on Object.prototype is enumerable.
  const walked = nothingInherited() ? walkedJsonLength(value, 0) : NOT_WALKED;
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
// A control character or a surrogate, which JSON.stringify may escape; the quote and the
// backslash are looked for with indexOf, which V8 runs as a memchr on a one-byte text. Checking
// the texts of prune-heavy 8,000's 16,001 tool-result blocks (4.9M characters) took 60.5M
// instructions per pass with one anchored regular expression for all four, 44.6M this way
// (callgrind, Node 20).
// biome-ignore lint/suspicious/noControlCharactersInRegex: the controls are what JSON escapes.
const CONTROL = /[\u0000-\u001f\ud800-\udfff]/;
// The longest text stringLength checks one code unit at a time.
const SHORT_TEXT = 32;
// 10 ** i for the digits of a safe integer.
const POWERS_OF_TEN = Array.from({ length: 16 }, (_, i) => 10 ** (i + 1));

// JSON.stringify(value).length of plain data, whose records inherit no enumerable member (strings, finite numbers, booleans, null, plain
// arrays and records of them), or NOT_WALKED for anything else (toJSON, a boxed value, a BigInt,
// a prototype of its own, nesting deeper than WALK_DEPTH), which JSON.stringify must measure.
function walkedJsonLength(value, depth) {
  switch (typeof value) {
    case "string":
      return stringLength(value);
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
  if (!isPlainMember(value)) return NOT_WALKED;
  let length = 1,
    members = 0;
  for (const key in value) {
    const member = value[key];
    if (isOmitted(member)) continue;
    const part = walkedJsonLength(member, depth + 1);
    if (part < 0) return NOT_WALKED;
    length += keyLength(key) + 2 + part;
    members++;
  }
  return members === 0 ? 2 : length;
}

// The keys keyLength measured last, and their JSON lengths, at the same index: a record's keys
// come from few shapes, so a key is almost always one of them, which comparing (keys are
// interned: by reference) finds faster than measuring it again. The blocks of prune-heavy 8,000
// (16,001, six keys each): 118.6M instructions to 103.8M per pass (callgrind, Node 20).
const KEYS = [];
const KEY_LENGTHS = [];
const MOST_KEYS = 16;
let nextKey = 0;

// stringLength(key) of a record's key.
function keyLength(key) {
  for (let i = 0; i < KEYS.length; i++) if (KEYS[i] === key) return KEY_LENGTHS[i];
  const length = stringLength(key);
  KEYS[nextKey] = key;
  KEY_LENGTHS[nextKey] = length;
  nextKey = (nextKey + 1) % MOST_KEYS;
  return length;
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

// JSON.stringify(text).length. A short text is checked one code unit at a time: a call of
// CONTROL.test costs as much as a loop over a few dozen units.
function stringLength(text) {
  if (text.length > SHORT_TEXT) {
    const plain = text.indexOf('"') < 0 && text.indexOf("\\") < 0 && !CONTROL.test(text);
    return plain ? text.length + 2 : escapedLength(text);
  }
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code < 0x20 || code === 0x22 || code === 0x5c || (code >= 0xd800 && code <= 0xdfff)) return escapedLength(text);
  }
  return text.length + 2;
}
