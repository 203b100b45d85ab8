// How JS objects cross into wasm (src/wasm/js/pack.js): the numbers are written straight into wasm
// memory, with room for a fixed count of numbers an event, and the UTF-8 texts in chunks. Texts
// that fill chunks, wasm memory that grows while a batch is packed, and a batch that gains events
// while packed must all read exactly as the batch's JSON text.
import { test } from "node:test";
import assert from "node:assert/strict";
import { promptfold } from "./promptfold.mjs";
import { outcome } from "./outcome.mjs";

const { Conversation } = promptfold;

function assertReadAsText(events, text, message) {
  const fromObjects = outcome((c) => c.load(events));
  assert.equal(fromObjects, outcome((c) => c.loadJson(text)), message);
  return fromObjects;
}

const system = (seq, blocks, surfaceOp = "append") => ({
  seq,
  time: seq,
  type: "system/message",
  surfaceOp,
  data: { turn: 1, step: seq, message: { role: "system", content: blocks.map((text) => ({ type: "text", text })) } },
});
const header = (seq, tools) => ({ seq, time: seq, type: "request/header", data: { reason: "change", header: { config: { seq }, tools } } });

// A getter that loads a prompt longer than the whole wasm memory into another conversation makes
// that memory grow in the middle of the batch (views of the old memory are then empty).
test("wasm memory that grows while a batch is packed", () => {
  const other = new Conversation();
  let active = false, grown = 0;
  const events = [];
  for (let seq = 1; seq <= 300; seq++) {
    if (seq % 100 === 0) {
      const data = { turn: 1, step: seq };
      events.push({
        seq,
        time: seq,
        type: "step/start",
        get data() {
          if (active) {
            const before = promptfold.wasmMemoryBytes();
            other.load([system(1, ["x".repeat(before)])]);
            if (promptfold.wasmMemoryBytes() > before) grown++;
          }
          return data;
        },
      });
    } else {
      events.push(seq % 3 === 0 ? header(seq, [{ name: "t" + (seq % 7) }]) : system(seq, ["p" + seq], { op: "replace", startSeq: seq - 1, endSeq: seq - 1 }));
    }
  }
  const text = JSON.stringify(events);
  active = true;
  const fromObjects = outcome((c) => c.load(events));
  active = false;
  assert.equal(grown, 3, "the wasm memory grew at each of the three getters");
  assert.equal(fromObjects, outcome((c) => c.loadJson(text)));
  other.free();
});

// Texts of many sizes, around and far past the first chunk (64 KiB) and the largest (4 MiB),
// one or several blocks a message, ASCII or not, with events sent as JSON text in between (a
// rollback of what they had written, across a new chunk too).
test("texts that fill chunks read as their JSON text", () => {
  const sizes = [1, 1000, 21000, 30000, 65536, 70000, 200000, 1 << 21, (1 << 22) + 3, 5];
  const letters = ["a", "é", "漢", "😀"];
  const events = [];
  let seq = 1;
  for (const [i, size] of sizes.entries()) {
    const letter = letters[i % letters.length];
    const text = letter.repeat(Math.ceil(size / letter.length)) + i;
    events.push(system(seq++, [text]));
    events.push(system(seq++, [text.slice(0, 7), "|", text.slice(7)]));
    events.push(header(seq++, [{ name: "t", description: text.slice(0, 40000) }]));
    // Read as JSON text: its prompt, written before its bad block is met, is rolled back.
    events.push(system(seq++, [text, { toJSON: () => ({ type: "text", text: "J" }) }]));
    events.push({ seq: seq++, time: 1, type: "tool/result", data: { turn: 1, step: 1 } });
  }
  const loaded = assertReadAsText(events, JSON.stringify(events));
  assert.ok(loaded.includes("é".repeat(100)) && loaded.includes("😀".repeat(100)));
});

// A getter that adds events to the batch: the packer reads them too, as JSON text would have
// them, past the room wasm memory had for the batch.
test("a batch that gains events while packed", () => {
  const events = [];
  const added = Array.from({ length: 400 }, (_, i) => header(1000 + i, [{ name: "t" + i }]));
  const data = { turn: 1, step: 1 };
  events.push({
    seq: 1,
    time: 1,
    type: "step/start",
    get data() {
      events.push(...added.splice(0));
      return data;
    },
  });
  for (let seq = 2; seq <= 5; seq++) events.push(header(seq, []));
  const loaded = outcome((c) => c.load(events));
  assert.equal(events.length, 405);
  assert.equal(loaded, outcome((c) => c.loadJson(JSON.stringify(events))));
  assert.ok(loaded.includes('"seq":1399'));
});

// Room in wasm memory is reserved for at most 2^18 events (it never shrinks): a batch of more
// goes on in JS past them, and reads as its JSON text. (Compared by views and some states:
// `lines()` of so many events would take long.)
test("a batch past the reserved room", () => {
  const events = [];
  for (let seq = 1; seq <= (1 << 18) + 3000; seq++) {
    // Headers take the most numbers an event can (12), so the room runs out at its 2^18th event.
    if (seq % 1000 === 1) events.push(system(seq, ["prompt " + seq]));
    else events.push(header(seq, [{ name: "t" + (seq % 7000 < 3500 ? 1 : 2) }]));
  }
  const seen = (load) => {
    const conversation = new Conversation();
    try {
      load(conversation);
      const states = [1, 1000, 262143, 262145, 263001, 265000].map((seq) => conversation.stateAt(seq)?.effective?.text);
      return JSON.stringify({ views: conversation.views(), states });
    } finally {
      conversation.free();
    }
  };
  const fromObjects = seen((c) => c.load(events));
  assert.equal(fromObjects, seen((c) => c.loadJson(JSON.stringify(events))));
  assert.ok(fromObjects.includes('"prompt 263001"'));
});
