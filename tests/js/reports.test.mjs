// Chat cards and the trajectory are built in JS from numbers (src/wasm/cards.rs and
// src/wasm/trajectory.rs), for change reports and views() alike. Replaying every report of a
// load, prepends and appends into a card list must give the cards views() shows, member for
// member; and every object must have the members of its Rust type in their declared order (the
// order the serializer wrote them in before), `undefined` (never `null`) for a turn or step it
// has not, and optional members (`change`, `config`, ...) left out rather than `undefined`.
import { test } from "node:test";
import assert from "node:assert/strict";
import { isDeepStrictEqual } from "node:util";
import { random } from "./kit/session.mjs";
import { promptfold } from "./promptfold.mjs";

const { Conversation } = promptfold;

// Prompts at session level (no turn), in a turn without a step, and in steps; headers in and
// out of steps; appended updates, prunes and compactions that remove or move cards.
function session(seed, count) {
  const next = random(seed);
  const pick = (items) => items[Math.floor(next() * items.length)];
  const events = [];
  let turn = 0;
  let step = 0;
  for (let seq = 1; seq <= count; seq++) {
    const roll = next();
    const place = turn === 0 ? {} : pick([{}, { turn }, { turn, step }, { turn, step }]);
    // The first turn starts late, so that the first cards belong to no turn.
    if (roll < 0.1 && seq > 15) {
      turn++;
      step = 0;
      events.push({ seq, type: "turn/start", data: { turn } });
    } else if (roll < 0.25 && turn > 0) {
      step++;
      events.push({ seq, type: "step/start", data: { turn, step } });
    } else if (roll < 0.45) {
      const text = pick(["A", "B", "C", "a longer prompt ✓"]);
      const replace = seq > 2 ? { op: "replace", startSeq: Math.max(1, seq - 5), endSeq: seq - 1 } : "append";
      const surfaceOp = pick(["append", undefined, replace]);
      events.push({ seq, type: "system/message", surfaceOp, data: { ...place, message: { role: "system", content: [{ type: "text", text }] } } });
    } else if (roll < 0.65) {
      const reason = pick(["initial", "change", "series", "resume"]);
      const header = pick([{ config: { model: pick(["m1", "m2"]) }, tools: [] }, { tools: [{ name: pick(["read", "edit"]) }] }]);
      events.push({ seq, type: "request/header", data: { ...place, reason, header } });
    } else if (roll < 0.75 && seq > 2) {
      const end = seq - 1 - Math.floor(next() * Math.min(seq - 2, 8));
      events.push({ seq, type: "tool/result", surfaceOp: { op: "replace", startSeq: end, endSeq: end }, data: place });
    } else {
      events.push({ seq, type: pick(["assistant/message", "tool/result", "step/end"]), surfaceOp: "append", data: place });
    }
  }
  return events;
}

// The members of ChatCard, in the order of its declaration (src/views/chat.rs), which is the order
// the serializer gave them before cards were built in JS.
const CARD_MEMBERS = ["key", "source", "seq", "anchorSeq", "text", "update", "titleKey", "turn", "step"];

function checkShape(card) {
  assert.deepEqual(Object.keys(card), CARD_MEMBERS);
  assert.equal(card.key, `${card.source}:${card.seq}`);
  assert.ok(["request", "system"].includes(card.source));
  assert.ok(["message.systemPrompt", "message.systemPromptUpdate"].includes(card.titleKey));
  assert.equal(typeof card.text, "string");
  assert.equal(typeof card.update, "boolean");
  for (const member of ["seq", "anchorSeq"]) assert.ok(Number.isSafeInteger(card[member]), member);
  for (const member of ["turn", "step"]) {
    assert.ok(card[member] === undefined || Number.isSafeInteger(card[member]), `${member}: ${card[member]}`);
  }
}

// Members of an object in order; `optional` ones must be left out when absent.
function checkMembers(object, members, optional = []) {
  const expected = members.filter((member) => !optional.includes(member) || object[member] !== undefined);
  assert.deepEqual(Object.keys(object), expected);
  for (const member of optional) assert.ok(!(member in object) || object[member] !== undefined, member);
}

function checkSnapshot(prompt) {
  checkMembers(prompt, ["config", "system", "tools"], ["config"]);
  assert.equal(typeof prompt.system, "string");
}

function checkChange(change) {
  checkMembers(change, ["seq", "time", "kind", "previous"], ["previous"]);
  assert.ok(["initial", "system", "tools", "system-and-tools"].includes(change.kind));
  if (change.previous) checkSnapshot(change.previous);
}

function checkTrajectory(trajectory) {
  checkMembers(trajectory, ["headers", "requests", "systemPrompts"]);
  for (const header of trajectory.headers) {
    checkMembers(header, ["key", "source", "seq", "time", "prompt", "change", "turn", "step"], ["change"]);
    assert.equal(header.key, `${header.source}:${header.seq}`);
    checkSnapshot(header.prompt);
    if (header.change) checkChange(header.change);
  }
  for (const request of trajectory.requests) {
    checkMembers(request, ["startSeq", "turn", "step", "prompt", "requestConfig", "promptChange", "context"], ["prompt", "requestConfig", "promptChange"]);
    checkMembers(
      request.context,
      ["seq", "systemTokens", "supersededSystemTokens", "toolsTokens", "messageTokens", "totalTokens", "incomplete", "answerSeq", "usage", "newSeries"],
      ["answerSeq", "usage"],
    );
    if (request.prompt) checkSnapshot(request.prompt);
    if (request.promptChange) checkChange(request.promptChange);
  }
  for (const node of trajectory.systemPrompts) {
    checkMembers(node, ["seq", "time", "turn", "step", "text", "update"]);
    assert.equal(typeof node.update, "boolean");
  }
}

class ReplayedChat {
  cards = new Map();
  apply(change) {
    for (const key of change.chat.removed) {
      assert.equal(typeof key, "string");
      this.cards.delete(key);
    }
    for (const card of [...change.chat.added, ...change.chat.changed]) {
      checkShape(card);
      this.cards.set(card.key, card);
    }
  }
  // Members in order: the same list as views().chat, however its cards were made.
  agrees(conversation) {
    const views = conversation.views();
    checkMembers(views, ["chat", "trajectory"]);
    checkTrajectory(views.trajectory);
    const shown = views.chat;
    shown.forEach(checkShape);
    const members = (cards) => cards.map((card) => Object.entries(card)).sort((a, b) => (a[0][1] < b[0][1] ? -1 : 1));
    return isDeepStrictEqual(members([...this.cards.values()]), members(shown));
  }
}

test("change reports replay into the cards views() shows, member for member", () => {
  let sessionLevel = 0;
  let removed = 0;
  const seen = { change: 0, previous: 0, config: 0, requestConfig: 0, promptChange: 0, requestPrompt: 0 };
  for (let seed = 1; seed <= 300; seed++) {
    const events = session(seed, 60);
    const conversation = new Conversation();
    const replay = new ReplayedChat();
    try {
      // The middle third first, then older pages, then the newest events one by one.
      const [first, last] = [20, 40];
      replay.apply(conversation.load(events.slice(first, last), { hasMore: true }));
      assert.ok(replay.agrees(conversation), `seed ${seed}: load`);
      for (const [from, to] of [[10, 20], [0, 10]]) {
        const change = conversation.prepend(events.slice(from, to), { hasMore: from > 0 });
        removed += change.chat.removed.length;
        replay.apply(change);
        assert.ok(replay.agrees(conversation), `seed ${seed}: prepend ${from}..${to}`);
      }
      for (const event of events.slice(last)) {
        const change = conversation.append([event]);
        removed += change.chat.removed.length;
        replay.apply(change);
        assert.ok(replay.agrees(conversation), `seed ${seed}: append ${event.seq}`);
      }
      const { chat, trajectory } = conversation.views();
      sessionLevel += chat.filter((card) => card.turn === undefined).length;
      for (const header of trajectory.headers) {
        seen.change += header.change ? 1 : 0;
        seen.previous += header.change?.previous ? 1 : 0;
        seen.config += "config" in header.prompt ? 1 : 0;
      }
      for (const request of trajectory.requests) {
        seen.requestConfig += "requestConfig" in request ? 1 : 0;
        seen.promptChange += "promptChange" in request ? 1 : 0;
        seen.requestPrompt += "prompt" in request ? 1 : 0;
      }
    } finally {
      conversation.free();
    }
  }
  // The sessions must hold what the comparison is about.
  assert.ok(sessionLevel > 100, `only ${sessionLevel} cards without a turn`);
  assert.ok(removed > 10, `only ${removed} removed cards`);
  for (const [member, count] of Object.entries(seen)) assert.ok(count > 20, `only ${count} with ${member}`);
});

// A report's added cards cross to JS 4,096 at a time (src/wasm/cards.rs): a load and an append
// of more than two chunks, and of text, must list every card views() shows, in its order.
test("reports of more cards than one chunk list them all, in order", () => {
  const events = session(7, 60_000);
  const expectedCards = (conversation) => conversation.views().chat;
  const loaded = new Conversation();
  const appended = new Conversation();
  const fromText = new Conversation();
  try {
    const load = loaded.load(events);
    const chat = expectedCards(loaded);
    assert.ok(chat.length > 2 * 4096 + 1, `only ${chat.length} cards`);
    assert.deepEqual(load.chat.added, chat);
    appended.load(events.slice(0, 10));
    const append = appended.append(events.slice(10));
    const before = new Set(appended.views().chat.map((card) => card.key));
    assert.ok(append.chat.added.length > 2 * 4096, `only ${append.chat.added.length} added`);
    for (const card of append.chat.added) assert.ok(before.has(card.key), `${card.key} is not shown`);
    const text = `${events.map((event) => JSON.stringify(event)).join("\n")}\n`;
    assert.deepEqual(fromText.loadJson(text).chat.added, chat);
  } finally {
    loaded.free();
    appended.free();
    fromText.free();
  }
});
