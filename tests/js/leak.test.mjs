// Memory: many create/load/free cycles and many dropped state handles leave wasm memory bounded;
// handles nobody frees are freed by the garbage collector. Run with `node --expose-gc`.
import { test } from "node:test";
import assert from "node:assert/strict";
import { setTimeout as sleep } from "node:timers/promises";
import { promptfold } from "./promptfold.mjs";

const { Conversation, inspectSystemPrompt } = promptfold;
const memory = () => promptfold.wasmMemoryBytes();

function session(n) {
  const events = [];
  for (let seq = 1; seq <= n; seq++) {
    if (seq % 10 === 1) events.push({ seq, time: seq, type: "system/message", surfaceOp: "append", data: { turn: 1, step: 1, message: { content: [{ type: "text", text: `prompt ${seq}` }] } } });
    else if (seq % 10 === 5) events.push({ seq, time: seq, type: "request/header", data: { reason: "series", header: { config: { m: 1 }, tools: [] } } });
    else if (seq % 10 === 7) events.push({ seq, time: seq, type: "tool/result", data: { turn: 1, step: 1 }, surfaceOp: { op: "replace", startSeq: seq - 1, endSeq: seq - 1 } });
    else events.push({ seq, time: seq, type: "tool/result", data: { turn: 1, step: 1 }, surfaceOp: "append" });
  }
  return events;
}

async function collect() {
  for (let i = 0; i < 4; i++) {
    global.gc();
    await sleep(10);
  }
}

test("wasm memory stays bounded", { skip: typeof global.gc !== "function" && "needs node --expose-gc" }, async () => {
  const events = session(60);
  const text = JSON.stringify(events);
  for (let i = 0; i < 200; i++) new Conversation().free();
  await collect();
  const warm = memory();
  assert.ok(warm > 0, "wasm memory is visible");

  for (let i = 0; i < 10_000; i++) {
    const conversation = new Conversation();
    if (i % 2) conversation.load(events);
    else conversation.loadJson(text);
    conversation.views();
    conversation.free();
  }
  await collect();
  const afterCycles = memory();

  const conversation = new Conversation();
  conversation.load(events);
  for (let i = 0; i < 100_000; i++) conversation.stateAt((i % 60) + 1);
  let state;
  for (let i = 0; i < 20_000; i++) state = inspectSystemPrompt(state, events[i % 60]);
  state = undefined;
  conversation.free();
  await collect();
  const afterHandles = memory();

  console.log(`wasm memory: warm ${warm} B, after 10,000 load/free cycles ${afterCycles} B, after 120,000 dropped handles ${afterHandles} B`);
  assert.ok(afterCycles <= warm + 4 * 1024 * 1024, `cycles grew memory from ${warm} to ${afterCycles}`);
  assert.ok(afterHandles <= warm + 16 * 1024 * 1024, `dropped handles grew memory from ${warm} to ${afterHandles}`);
});

test("dropped state handles are freed by the garbage collector", { skip: typeof global.gc !== "function" && "needs node --expose-gc" }, async () => {
  const events = session(60);
  const conversation = new Conversation();
  conversation.load(events);
  await collect();
  // Churn: if dropped handles were never freed, every pass would keep a little more alive.
  const sizes = [];
  for (let pass = 0; pass < 5; pass++) {
    for (let i = 0; i < 50_000; i++) conversation.stateAt((i % 60) + 1);
    await collect();
    sizes.push(memory());
  }
  conversation.free();
  console.log(`wasm memory over 5 passes of 50,000 dropped handles: ${sizes.join(", ")}`);
  assert.equal(sizes[4], sizes[1], "memory is flat once warm");
});

test("stateAt hands out one handle per state, owned by the conversation", () => {
  const events = session(60);
  const conversation = new Conversation();
  conversation.load(events.slice(10), { hasMore: true });
  const a = conversation.stateAt(30);
  assert.equal(conversation.stateAt(30), a, "the same state gives the same handle");
  assert.equal(conversation.stateAt(30.5), a, "any seq up to the next relevant event too");
  assert.notEqual(conversation.stateAt(45), a);
  const own = a.clone();
  assert.notEqual(own, a);
  const json = JSON.stringify(a.toJSON());

  // Freeing a cached handle is harmless to the conversation: the next call makes a new one.
  a.free();
  const b = conversation.stateAt(30);
  assert.notEqual(b, a);
  assert.equal(JSON.stringify(b.toJSON()), json);
  assert.equal(JSON.stringify(own.toJSON()), json, "a clone lives on its own");

  // An append keeps the handles; a prepend or a load gives new ones, and old ones stay valid.
  conversation.append([{ seq: 61, time: 61, type: "step/end", data: { turn: 1, step: 1 } }]);
  assert.equal(conversation.stateAt(30), b);
  conversation.prepend(events.slice(0, 10));
  const c = conversation.stateAt(30);
  assert.notEqual(c, b);
  assert.equal(b.firstSeq, 11, "the old handle still shows the old window");
  assert.equal(c.firstSeq, 1);
  conversation.load(events);
  assert.notEqual(conversation.stateAt(30), c);
  assert.equal(c.firstSeq, 1);
  own.free();
  conversation.free();
  assert.equal(b.firstSeq, 11, "handles outlive a freed conversation while referenced");
});

test("cached state handles are collected once their conversation is gone", { skip: typeof global.gc !== "function" && "needs node --expose-gc" }, async () => {
  const events = session(60);
  const watch = (free) => {
    const conversation = new Conversation();
    conversation.load(events);
    const handles = [];
    for (let seq = 1; seq <= 60; seq++) {
      const state = conversation.stateAt(seq);
      if (state) handles.push(new WeakRef(state));
    }
    if (free) conversation.free();
    return { handles, conversation: new WeakRef(conversation) };
  };
  for (const free of [true, false]) {
    const { handles, conversation } = watch(free);
    assert.ok(handles.length > 0);
    await collect();
    await collect();
    assert.equal(conversation.deref(), undefined, "the conversation was collected");
    await collect();
    const alive = handles.filter((handle) => handle.deref() !== undefined).length;
    assert.equal(alive, 0, `${alive} handles outlived the conversation (${free ? "freed" : "collected"})`);
  }
});
