// JS objects in (`load`, `append`, `prepend`) must read exactly what JSON text in does: the
// objects path sends only the members the rules read, and a header whose tools repeat the
// previous header's sends a marker instead of them (src/wasm/batch.rs). Random sessions, both
// ways, compared line by line and view by view.
import { test } from "node:test";
import assert from "node:assert/strict";
import { promptfold } from "./promptfold.mjs";

const { Conversation } = promptfold;

// A small seeded generator (mulberry32), so a failure can be replayed.
function random(seed) {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const toolLists = [
  [{ name: "read", parameters: { type: "object", properties: { path: { type: "string" } } } }],
  [{ parameters: { type: "object", properties: { path: { type: "string" } } }, name: "read" }],
  [{ name: "read", parameters: { type: "object", properties: { path: { type: "string" } } } }, { name: "edit" }],
  [],
  { not: "an array" },
  [{ name: "n", limit: 1.0 }],
  [{ name: "n", limit: 1 }],
  [{ name: "u", skipped: undefined }],
  [{ name: "u" }],
];

function session(seed, count) {
  const next = random(seed);
  const pick = (items) => items[Math.floor(next() * items.length)];
  const events = [];
  let seq = 1;
  for (let i = 0; i < count; i++, seq += 1 + Math.floor(next() * 3)) {
    const roll = next();
    const base = { seq, time: 1000 + seq, data: { turn: 1 + Math.floor(i / 20), step: i % 5 } };
    if (roll < 0.35) {
      // Fresh copies: equal tools are never the same object, as after JSON.parse.
      const tools = pick([...toolLists, undefined]);
      const header = next() < 0.1 ? null : { config: { model: pick(["a", "b"]) }, tools: structuredClone(tools) };
      events.push({ ...base, type: pick(["request/header", "request/header", "request/header", undefined]), data: { ...base.data, reason: pick(["initial", "change", "series", 3]), header } });
    } else if (roll < 0.5) {
      const text = pick(["A", "B", "C"]);
      events.push({ ...base, type: "system/message", surfaceOp: "append", data: { ...base.data, message: { role: "system", content: [{ type: "text", text }, { type: "image", data: "x" }] } } });
    } else if (roll < 0.6 && seq > 3) {
      const end = seq - 1 - Math.floor(next() * Math.min(seq - 2, 6));
      events.push({ ...base, type: "tool/result", surfaceOp: { op: "replace", startSeq: end - Math.floor(next() * 2), endSeq: end }, data: { ...base.data, output: "pruned" } });
    } else if (roll < 0.65) {
      events.push({ ...base, type: "request/header", toJSON() { return { seq: this.seq, type: "request/header", data: { header: { tools: [{ name: "from toJSON" }] } } }; } });
    } else {
      events.push({ ...base, type: pick(["tool/result", "assistant/message", "step/start", "step/end", "turn/start"]), data: { ...base.data, output: "x".repeat(Math.floor(next() * 50)) } });
    }
  }
  return events;
}

function observe(conversation) {
  return JSON.stringify({ lines: conversation.lines(), views: conversation.views() });
}

test("JS objects read exactly as their JSON text", () => {
  for (let seed = 1; seed <= 60; seed++) {
    const events = session(seed, 120);
    const fromText = new Conversation();
    fromText.loadJson(JSON.stringify(events), false);
    const fromObjects = new Conversation();
    fromObjects.load(events, false);
    assert.equal(observe(fromObjects), observe(fromText), `seed ${seed}: load`);
    // The same events in pages: prepend, load, append; each batch starts its own tools chain.
    const paged = new Conversation();
    paged.load(events.slice(40, 80), true);
    paged.prepend(events.slice(0, 40), false);
    paged.append(events.slice(80));
    assert.equal(observe(paged), observe(fromText), `seed ${seed}: pages`);
    for (const c of [fromText, fromObjects, paged]) c.free();
  }
});
