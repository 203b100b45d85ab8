// The JSON reader's block scans, as the wasm build runs them (sixteen bytes at a time, with
// SIMD): string ends, escapes and control characters, non-ASCII text, and repeated header values
// that differ in one byte, each at every place in a block. The native tests check the word-sized
// scans; these check the wasm ones against what the text says.
import { test } from "node:test";
import assert from "node:assert/strict";
import { promptfold } from "./promptfold.mjs";

const { Conversation } = promptfold;

// Texts of 40 characters with one special character at each place, after prefixes that move
// them across block boundaries.
function texts() {
  const specials = ['"', "\\", "\n", "\u0001", "é", "😀", "/"];
  const out = [];
  for (const prefix of ["", "x", "xxxxxxx"]) {
    for (const special of specials) {
      for (let at = 0; at < 40; at++) {
        out.push(prefix + "a".repeat(at) + special + "b".repeat(40 - at));
      }
    }
  }
  return out;
}

test("strings end where their text ends, in read and skipped members", () => {
  const all = texts();
  const events = [];
  let seq = 1;
  for (const text of all) {
    // Skipped: a user message with the same text, and an unknown member.
    events.push({
      seq: seq++,
      time: 1,
      type: "user/message",
      extra: text,
      data: { message: { role: "user", content: [{ type: "text", text }] } },
      surfaceOp: "append",
    });
    events.push({
      seq: seq++,
      time: 2,
      type: "system/message",
      data: { message: { role: "system", content: [{ type: "text", text }] } },
      surfaceOp: "append",
    });
  }
  const conversation = new Conversation();
  const change = conversation.loadJson(JSON.stringify(events));
  const read = change.chat.added.filter((card) => card.source === "system").map((card) => card.text);
  assert.deepEqual(read, all);
  conversation.free();
});

test("a header value that differs from the last one in one byte is read as written", () => {
  const base = "t".repeat(70);
  const events = [];
  let seq = 1;
  const expected = [];
  for (let at = 0; at < base.length; at++) {
    const changed = base.slice(0, at) + "u" + base.slice(at + 1);
    for (const name of [base, changed, base]) {
      const tools = [{ name }];
      const config = { model: name };
      expected.push([seq, tools, config]);
      events.push({ seq: seq++, time: 1, type: "request/header", data: { reason: "change", header: { config, tools } } });
    }
  }
  const conversation = new Conversation();
  conversation.loadJson(JSON.stringify(events));
  for (const [seq, tools, config] of expected) {
    const { prompt } = conversation.requestAt(seq);
    assert.deepEqual(prompt.tools, tools, `tools of ${seq}`);
    assert.deepEqual(prompt.config, config, `config of ${seq}`);
  }
  conversation.free();
});
