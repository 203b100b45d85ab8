// The same-JSON check of the packer: whether a header's config or tools has the JSON of the previous
// header's, certain without writing either (src/wasm/js/pack.js then sends a marker instead).

import { matchTokens } from "./matchers.js";
import {
  CLOSE,
  isPlainArray,
  isPlainRecord,
  MAX_COMPARE_DEPTH,
  nothingInherited,
  OPEN_ARRAY,
  OPEN_OBJECT,
} from "./plain.js";

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

// The config or tools of the previous header: whether it was sent (in full or as a marker), its
// value, and when that value is plain data, its JSON as a list of tokens: the markers above,
// keys and leaf values, in JSON order. The next header's value is then compared with the tokens,
// walking that value only.
export class Previous {
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
