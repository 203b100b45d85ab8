// Token estimates of message content, as src/input/tokens.rs makes them from the JSON text, made
// here from the objects (src/wasm/js/pack.js sends them with each message).

import { jsonLength } from "./json-length.js";
import { AS_JSON, isOmitted, isPlainArray, isPlainBlock, isPlainMessage, isPlainRecord, isSimple } from "./plain.js";

// A message's content (see src/input/parse/packed.rs: the content JSON text would give).
export function messageContent(message) {
  if (isPlainMessage(message)) return message.content;
  if (isSimple(message) || isPlainArray(message)) return undefined;
  throw AS_JSON;
}

// The token cost of a message's content blocks (src/input/tokens.rs has the rules).
export function contentTokens(content) {
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
  if (isPlainBlock(block)) {
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
