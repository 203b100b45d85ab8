// cardsSlice, requestsSlice, linesSlice, viewCounts and indexOfSeq on generated sessions: every
// slice is the same range of views() or lines() (deep equal, as JS builds them), the change
// reports' splices turn the rows before a call into the rows after it, and bad ranges throw
// INVALID_ARGUMENT and change nothing. (tests/slices.rs checks the same natively, over random
// logs in any order of load, append, prepend and feed.)
import { test } from "node:test";
import assert from "node:assert/strict";
import { promptfold } from "./promptfold.mjs";
import { sessionEvents } from "./kit/session.mjs";

const { Conversation } = promptfold;

/** The three lists of a window, as views() and lines() give them. */
function lists(conversation) {
  const views = conversation.views();
  return { cards: views.chat, requests: views.trajectory.requests, lines: conversation.lines() };
}

const SLICES = { cards: "cardsSlice", requests: "requestsSlice", lines: "linesSlice" };

/** Every slice of `ranges` against the same range of `now`. */
function slicesAgree(conversation, now, ranges, what) {
  assert.deepEqual(
    conversation.viewCounts(),
    { cards: now.cards.length, requests: now.requests.length, lines: now.lines.length },
    `${what}: counts`,
  );
  for (const [list, method] of Object.entries(SLICES)) {
    for (const { start, end } of ranges) {
      const slice = conversation[method]({ start, end });
      const rows = now[list];
      const from = Math.min(start, rows.length);
      assert.deepEqual(
        slice,
        { total: rows.length, start: from, [list]: rows.slice(from, Math.min(end, rows.length)) },
        `${what}: ${method}({ start: ${start}, end: ${end} })`,
      );
    }
  }
}

/** The splices of `change` applied to `before` give `after`. */
function splicesApply(change, before, after, what) {
  for (const list of Object.keys(SLICES)) {
    const { start, removed, added, total } = change.splices[list];
    const rows = before[list].slice();
    rows.splice(start, removed, ...after[list].slice(start, start + added));
    assert.equal(total, after[list].length, `${what}: ${list} total`);
    assert.deepEqual(rows, after[list], `${what}: ${list} splice ${JSON.stringify(change.splices[list])}`);
  }
}

const RANGES = [
  { start: 0, end: 0 },
  { start: 0, end: 50 },
  { start: 3, end: 9 },
  { start: 40, end: 1e9 },
  { start: 2 ** 53 - 1, end: 2 ** 53 - 1 },
];

test("slices equal views() and lines() after loads, appends, feeds and prepends", () => {
  const events = [...sessionEvents({ seed: 5, maxEvents: 900, updateEvery: 6, compactEvery: 30 })];
  const conversation = new Conversation();
  let before = lists(conversation);
  const check = (change, what) => {
    const now = lists(conversation);
    splicesApply(change, before, now, what);
    slicesAgree(conversation, now, RANGES, what);
    before = now;
  };
  // The newest third first, then older pages in front and live events behind, some as text.
  const [a, b] = [300, 600];
  check(conversation.load(events.slice(a, b), { hasMore: true }), "load");
  for (let end = a, live = b; end > 0; end -= 70) {
    const start = Math.max(0, end - 70);
    check(conversation.prepend(events.slice(start, end), { hasMore: start > 0 }), `prepend ${start}`);
    const next = Math.min(events.length, live + 45);
    const text = events
      .slice(live, next)
      .map((event) => `${JSON.stringify(event)}\n`)
      .join("");
    if (start % 140 === 0) check(conversation.append(events.slice(live, next)), `append ${live}`);
    else {
      const cut = Math.floor(text.length / 3);
      check(conversation.feed(text.slice(0, cut)), `feed ${live}, first piece`);
      check(conversation.feed(text.slice(cut)), `feed ${live}`);
    }
    live = next;
  }
  const counts = conversation.viewCounts();
  assert.ok(counts.cards > 30 && counts.requests > 30, JSON.stringify(counts));
  const every = [{ start: 0, end: counts.lines }, { start: counts.cards - 7, end: counts.cards + 7 }];
  slicesAgree(conversation, lists(conversation), every, "whole lists");
  check(conversation.load(events.slice(0, 10)), "reload");
  conversation.free();
});

test("indexOfSeq finds each event's line, the last card shown by it and its request", () => {
  const events = [...sessionEvents({ seed: 9, maxEvents: 400, updateEvery: 5 })];
  const conversation = new Conversation();
  conversation.load(events);
  const { cards, requests, lines } = lists(conversation);
  for (const [line, { seq }] of lines.entries()) {
    const card = cards.findLastIndex((shown) => shown.anchorSeq <= seq);
    const request = requests.findLastIndex((started) => started.startSeq <= seq);
    assert.deepEqual(
      conversation.indexOfSeq(seq),
      { line, card: card < 0 ? undefined : card, request: request < 0 ? undefined : request },
      `seq ${seq}`,
    );
  }
  for (const missing of [lines[0].seq - 1, lines.at(-1).seq + 1, lines[0].seq + 0.5, Number.NaN, undefined]) {
    assert.equal(conversation.indexOfSeq(missing), undefined, String(missing));
  }
  conversation.free();
});

test("a bad range throws INVALID_ARGUMENT and changes nothing", () => {
  const conversation = new Conversation();
  conversation.load([...sessionEvents({ seed: 3, maxEvents: 200 })]);
  const before = lists(conversation);
  const bad = [undefined, null, 3, "0-5", {}, { start: 0 }, { end: 5 }, { start: 5, end: 4 }, { start: -1, end: 4 }];
  bad.push({ start: 0.5, end: 4 }, { start: 0, end: Number.NaN }, { start: 0, end: 2 ** 53 }, { start: "0", end: 4 });
  for (const method of Object.values(SLICES)) {
    for (const range of bad) {
      assert.throws(
        () => conversation[method](range),
        (error) => error.name === "PromptfoldError" && error.code === "INVALID_ARGUMENT",
        `${method}(${JSON.stringify(range)})`,
      );
    }
  }
  assert.deepEqual(lists(conversation), before);
  conversation.free();
});
