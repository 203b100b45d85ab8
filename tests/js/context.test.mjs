// contextAt and contextSummaryAt: JS objects in must give the contexts JSON text gives (the
// objects path computes the token costs in JS, src/wasm/js/pack.js; the text path in Rust,
// src/input/tokens.rs), on random sessions with every kind of content block and odd values;
// a breakdown computed by hand; parts that sum to the total.
import { test } from "node:test";
import assert from "node:assert/strict";
import { promptfold } from "./promptfold.mjs";
import { loadCases } from "./cases.mjs";

const { Conversation } = promptfold;

function random(seed) {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

class Instance {
  constructor() {
    this.type = "text";
    this.text = "own members only";
  }
}

// Pieces of long texts: ASCII, UTF-8 sequences of two, three and four bytes, what JSON escapes
// (lone surrogates too), so that the text path's scans (sixteen bytes at a time in wasm) meet
// each at every place in a block.
const PIECES = ["a", "word ", "é", "✓", "😀", '"', "\\", "\n", "\u0001", "\ud83d", "\ude00", "0123456789abcdef"];

function longText(next) {
  let text = "";
  for (let i = Math.floor(next() * 60); i > 0; i--) text += PIECES[Math.floor(next() * PIECES.length)];
  return text;
}

// Blocks of every kind, plain and odd (what JSON writes differently from what JS holds).
const BLOCKS = [
  (next) => ({ type: "text", text: longText(next) }),
  (next) => ({ type: "tool-result", toolCallId: "c9", content: [{ type: "text", text: longText(next) }] }),
  () => ({ type: "text", text: "ünï ✓ 😀 \"q\" \\ \n\t\u0001" }),
  () => ({ type: "reasoning", text: "thinking…" }),
  () => ({ type: "tool-call", id: "c1", name: "read", arguments: "{\"path\":\"a.rs\"}" }),
  () => ({ type: "tool-call", id: "c2", name: "wrïte", arguments: { n: 1.5, big: 1e21, neg: -0, list: [undefined, () => 1] } }),
  () => ({ type: "tool-call", name: 7, arguments: new Date(0) }),
  () => ({ type: "tool-call", name: new String("boxed"), arguments: 3 }),
  () => ({ type: "image", data: "iVBORw0KGgo=", mimeType: "image/png", skipped: undefined }),
  () => ({ type: "tool-result", toolCallId: "c1", content: [{ type: "text", text: "ok" }], isError: false }),
  () => ({ type: new String("text"), text: "boxed type" }),
  () => ({ type: "text", text: new String("boxed text") }),
  () => ({ type: "text", toJSON: () => ({ type: "text", text: "from toJSON" }) }),
  () => new Instance(),
  () => "a bare string",
  () => 12,
  () => null,
  () => undefined,
  () => [1, 2],
];

function content(next) {
  const roll = next();
  if (roll < 0.05) return "plain string content";
  if (roll < 0.08) return { not: "an array" };
  if (roll < 0.1) return undefined;
  return Array.from({ length: Math.floor(next() * 4) }, () => BLOCKS[Math.floor(next() * BLOCKS.length)](next));
}

function session(seed, length) {
  const next = random(seed);
  const events = [];
  const alive = [];
  for (let seq = 1; seq <= length; seq++) {
    const roll = next();
    const event = { seq, time: seq };
    if (roll < 0.1) {
      event.type = "system/message";
      event.data = { turn: 1, step: 1, message: { role: "system", content: [{ type: "text", text: next() < 0.2 ? "" : `prompt ${seq}` }] } };
    } else if (roll < 0.25) {
      event.type = "user/message";
      event.data = { role: "user", content: content(next) };
    } else if (roll < 0.3) {
      event.type = "request/header";
      event.data = { reason: "change", header: { config: {}, tools: next() < 0.5 ? [] : [{ name: "read", n: 1.0 }] } };
    } else if (roll < 0.35) {
      event.type = "step/start";
      event.data = { turn: 1, step: seq };
    } else if (roll < 0.42) {
      event.type = "assistant/message";
      const usage = [undefined, null, { inputTokens: seq, cacheReadTokens: seq * 2 }, { cacheReadTokens: "x" }][Math.floor(next() * 4)];
      event.data = next() < 0.5 ? { turn: 1, message: { role: "assistant", content: content(next), usage } } : { turn: 1, usage, message: { content: [] } };
    } else {
      event.type = ["assistant/message", "tool/result", "developer/message"][Math.floor(next() * 3)];
      const message = next() < 0.05 ? [content(next)] : { role: "x", content: content(next) };
      event.data = { turn: 1, step: 1, message };
    }
    if (event.type.includes("message") || event.type === "tool/result") {
      if (alive.length > 2 && next() < 0.15) {
        const from = Math.floor(next() * alive.length);
        const to = Math.min(alive.length - 1, from + Math.floor(next() * 3));
        event.surfaceOp = { op: "replace", startSeq: alive[from], endSeq: alive[to] };
        alive.splice(from, to - from + 1, seq);
      } else {
        event.surfaceOp = "append";
        alive.push(seq);
      }
    }
    events.push(event);
  }
  return events;
}

// Every context of a conversation, the requests' contexts and the totals, as JSON text.
function contexts(conversation, seqs) {
  const requests = conversation.views().trajectory.requests.map((request) => request.context);
  const at = seqs.map((seq) => [conversation.contextAt(seq), conversation.contextSummaryAt(seq)]);
  return JSON.stringify({ at, requests, totals: conversation.contextTotals() });
}

function withConversation(use) {
  const conversation = new Conversation();
  try {
    return use(conversation);
  } finally {
    conversation.free();
  }
}

test("JS objects give the contexts their JSON text gives", () => {
  const text = (events) => JSON.stringify(events, (_key, value) => (typeof value === "bigint" ? undefined : value));
  for (let seed = 1; seed <= 150; seed++) {
    const events = session(seed, 60);
    const seqs = events.map((event) => event.seq);
    const fromObjects = withConversation((c) => {
      c.load(events);
      return contexts(c, seqs);
    });
    const fromText = withConversation((c) => {
      c.loadJson(text(events));
      return contexts(c, seqs);
    });
    assert.equal(fromObjects, fromText, `seed ${seed}`);
  }
});

test("parts sum to the total, and the total to the nodes and tools, on every case", () => {
  let checked = 0;
  for (const { name, events } of loadCases()) {
    withConversation((c) => {
      c.load(events);
      for (const event of events) {
        const context = c.contextAt(event.seq);
        const { nodes: contextNodes, ...summary } = context;
        const { systemTokens, supersededSystemTokens, toolsTokens, messageTokens, totalTokens } = context;
        assert.equal(systemTokens + supersededSystemTokens + toolsTokens + messageTokens, totalTokens, name);
        const nodes = contextNodes.reduce((sum, node) => sum + node.tokens, 0);
        assert.equal(nodes + toolsTokens, totalTokens, name);
        assert.deepEqual(c.contextSummaryAt(event.seq), summary);
        checked++;
      }
    });
  }
  assert.ok(checked > 10000, `only ${checked} contexts`);
});

test("a block JSON cannot write (a BigInt, a cycle) costs what null costs", () => {
  const cyclic = { type: "other" };
  cyclic.self = cyclic;
  const message = (seq, blocks) => ({ seq, type: "tool/result", surfaceOp: "append", data: { message: { content: blocks } } });
  withConversation((c) => {
    // The second event has a boxed name, so it crosses as JSON text (src/wasm/js/pack.js).
    c.load([
      message(1, [{ type: "other", big: 1n }, cyclic]),
      message(2, [{ type: "tool-call", name: new String("n"), arguments: "" }, { type: "other", big: 1n }]),
      message(3, [null, null]),
    ]);
    const tokens = c.contextAt(3).nodes.map((node) => node.tokens);
    // null: 4 + ceil(4 / 4); the tool call: ceil(1 / 4) + 0 + 4.
    assert.deepEqual(tokens, [5 + 5 + 4, 5 + 5 + 4, 5 + 5 + 4]);
  });
});

test("a breakdown computed by hand", () => {
  withConversation((c) => {
    c.load([
      { seq: 1, type: "system/message", surfaceOp: "append", data: { message: { content: [{ type: "text", text: "Be brief." }] } } },
      { seq: 2, type: "request/header", data: { reason: "initial", header: { config: {}, tools: [{ name: "read" }] } } },
      { seq: 3, type: "user/message", surfaceOp: "append", data: { content: [{ type: "text", text: "日本語 😀" }] } },
      { seq: 4, type: "system/message", surfaceOp: "append", data: { message: { content: [{ type: "text", text: "Be brief. Always." }] } } },
    ]);
    assert.deepEqual(c.contextAt(4), {
      nodes: [
        { seq: 1, type: "system/message", position: 1, tokens: 7 },
        { seq: 3, type: "user/message", position: 3, tokens: 10 },
        { seq: 4, type: "system/message", position: 4, tokens: 9 },
      ],
      systemTokens: 9,
      supersededSystemTokens: 7,
      toolsTokens: 9,
      messageTokens: 10,
      totalTokens: 35,
      incomplete: false,
    });
    assert.deepEqual(c.contextAt(0).nodes, []);
    assert.deepEqual(c.contextAt(Number.NaN).totalTokens, 0);
  });
});
