// A conversation keeps the JS strings of its prompt texts from one call to the next
// (src/wasm/kept_texts.rs). Whatever the calls before, every text handed out is the window's own:
// views after loads of other logs, appends that replace prompts, prepends, and more distinct
// texts than the store keeps before it first sweeps, equal the views of a fresh conversation; the
// JSON values, made from kept JSON texts, are each call's own objects.
import { test } from "node:test";
import assert from "node:assert/strict";
import { sessionEvents } from "./kit/session.mjs";
import { promptfold } from "./promptfold.mjs";

const { Conversation } = promptfold;

const prompt = (seq, text, surfaceOp = "append") => ({
  seq,
  time: seq,
  type: "system/message",
  surfaceOp,
  data: { turn: 1, step: 1, message: { role: "system", content: [{ type: "text", text }] } },
});

// `count` prompts from `first`, each with its own text; every `replaceEvery`th replaces the one
// before it (a rewrite at the head of what survives), so their texts are dropped from the window.
function log(first, count, label, replaceEvery = 0) {
  const events = [];
  for (let i = 0; i < count; i++) {
    const seq = first + i;
    const replaces = replaceEvery > 0 && i > 0 && i % replaceEvery === 0;
    const op = replaces ? { op: "replace", startSeq: seq - 1, endSeq: seq - 1 } : "append";
    events.push(prompt(seq, `${label} prompt ${i}: ${"x".repeat(i % 7)}`, op));
  }
  return events;
}

function freshViews(events, hasMore = false) {
  const conversation = new Conversation();
  try {
    conversation.load(events, { hasMore: hasMore });
    return conversation.views();
  } finally {
    conversation.free();
  }
}

const texts = (views) => views.chat.map((card) => card.text);

test("views after other loads, appends and prepends hand out the window's own texts", () => {
  const conversation = new Conversation();
  try {
    const first = log(1, 40, "first");
    conversation.load(first);
    assert.deepEqual(conversation.views(), freshViews(first));

    // Another log in the same conversation: none of the first log's texts may come back.
    const second = log(1, 40, "second", 3);
    conversation.load(second);
    assert.deepEqual(texts(conversation.views()), texts(freshViews(second)));
    assert.deepEqual(conversation.views(), freshViews(second));

    // Appends past the first sweep (hundreds of distinct texts, most replaced away), then a
    // views call after each batch.
    let all = second;
    for (let batch = 0; batch < 12; batch++) {
      const more = log(all.length + 1, 60, `batch ${batch}`, 2);
      conversation.append(more);
      all = all.concat(more);
      assert.deepEqual(texts(conversation.views()), texts(freshViews(all)), `batch ${batch}`);
    }
    assert.deepEqual(conversation.views(), freshViews(all));

    // A prepend re-folds the window: the views equal a fresh load of the whole.
    const older = log(-30, 30, "older");
    const window = log(1, 30, "window", 4);
    conversation.load(window, { hasMore: true });
    conversation.views();
    conversation.prepend(older);
    assert.deepEqual(conversation.views(), freshViews(older.concat(window)));
  } finally {
    conversation.free();
  }
});

test("repeated views are equal, and a change's cards carry the same texts", () => {
  const conversation = new Conversation();
  try {
    const events = log(1, 300, "repeat", 5);
    const change = conversation.load(events);
    const views = conversation.views();
    assert.deepEqual(conversation.views(), views);
    const byKey = new Map(views.chat.map((card) => [card.key, card.text]));
    for (const card of change.chat.added) assert.equal(card.text, byKey.get(card.key), card.key);
  } finally {
    conversation.free();
  }
});

// The JSON values of the views (tools, configs) are made from JSON texts the conversation keeps:
// each call still hands out objects of its own, so a caller's changes never reach another call.
test("each views call makes its own JSON values, equal to a fresh conversation's", () => {
  const events = [...sessionEvents({ profile: "large", seed: 7, maxEvents: 400 })];
  const conversation = new Conversation();
  try {
    conversation.load(events);
    const first = conversation.views();
    const prompts = first.trajectory.requests.filter((request) => request.prompt !== undefined);
    assert.ok(prompts.length > 10, `${prompts.length} requests with a prompt`);
    for (const request of prompts) {
      request.prompt.tools.push({ name: "changed by the caller" });
      if (request.requestConfig !== undefined) request.requestConfig.model = "changed";
    }
    const second = conversation.views();
    assert.deepEqual(second, freshViews(events));
    const tools = new Set(first.trajectory.requests.map((request) => request.prompt?.tools));
    for (const request of second.trajectory.requests) {
      assert.ok(!tools.has(request.prompt?.tools) || request.prompt === undefined, "a tools list of the call before");
    }
  } finally {
    conversation.free();
  }
});
