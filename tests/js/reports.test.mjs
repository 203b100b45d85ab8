// Chat cards are built in JS from numbers (src/wasm/cards.rs), for change reports and views()
// alike. Replaying every report of a load, prepends and appends into a card list must give the
// cards views() shows, member for member; and every card must have the members of the ChatCard
// type in its declared order, with `undefined` (never `null`) for a turn or step it has not.
import { test } from "node:test";
import assert from "node:assert/strict";
import { isDeepStrictEqual } from "node:util";
import { promptfold } from "./promptfold.mjs";

const { Conversation } = promptfold;

// mulberry32, seeded, so that a failure can be replayed.
function random(seed) {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

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
      events.push({ seq, type: "request/header", data: { ...place, reason, header: { config: { model: pick(["m1", "m2"]) }, tools: [] } } });
    } else if (roll < 0.75 && seq > 2) {
      const end = seq - 1 - Math.floor(next() * Math.min(seq - 2, 8));
      events.push({ seq, type: "tool/result", surfaceOp: { op: "replace", startSeq: end, endSeq: end }, data: place });
    } else {
      events.push({ seq, type: pick(["assistant/message", "tool/result", "step/end"]), surfaceOp: "append", data: place });
    }
  }
  return events;
}

// The members of ChatCard, in the order of its declaration (src/chat.rs), which is the order
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
    const shown = conversation.views().chat;
    shown.forEach(checkShape);
    const members = (cards) => cards.map((card) => Object.entries(card)).sort((a, b) => (a[0][1] < b[0][1] ? -1 : 1));
    return isDeepStrictEqual(members([...this.cards.values()]), members(shown));
  }
}

test("change reports replay into the cards views() shows, member for member", () => {
  let sessionLevel = 0;
  let removed = 0;
  for (let seed = 1; seed <= 300; seed++) {
    const events = session(seed, 60);
    const conversation = new Conversation();
    const replay = new ReplayedChat();
    try {
      // The middle third first, then older pages, then the newest events one by one.
      const [first, last] = [20, 40];
      replay.apply(conversation.load(events.slice(first, last), true));
      assert.ok(replay.agrees(conversation), `seed ${seed}: load`);
      for (const [from, to] of [[10, 20], [0, 10]]) {
        const change = conversation.prepend(events.slice(from, to), from > 0);
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
      sessionLevel += conversation.views().chat.filter((card) => card.turn === undefined).length;
    } finally {
      conversation.free();
    }
  }
  // The sessions must hold what the comparison is about.
  assert.ok(sessionLevel > 100, `only ${sessionLevel} cards without a turn`);
  assert.ok(removed > 10, `only ${removed} removed cards`);
});
