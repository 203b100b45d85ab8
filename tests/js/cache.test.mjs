// cacheLedger through the JS API: the ledgers Rust gives for the conformance cases
// (tests/cache/ledgers.json, written by tests/cache.rs) member for member and in member order;
// SPEC 11's example; absent members for unknowns; every cause kind decoded; bad options.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { promptfold } from "./promptfold.mjs";
import { conformanceDir, repoRoot } from "./cases.mjs";

const { Conversation } = promptfold;

// The options and usage of tests/cache.rs's parity ledgers.
const PARITY_OPTIONS = {
  prices: {
    default: { input: 0.5, cacheRead: 0.1, cacheWrite: 0.3, output: 2 },
    models: { "deepseek-chat": { input: 0.27, cacheRead: 0.07, output: 1.1 } },
  },
  cacheTtlMs: 2500,
};

function parityUsage(n) {
  switch (n % 5) {
    case 0:
      return { inputTokens: 40 + n, outputTokens: 7, cacheReadTokens: 3 * n };
    case 1:
      return { inputTokens: 12, outputTokens: 2, cacheReadTokens: 0, cacheWriteTokens: 9 };
    case 2:
      return { inputTokens: null, outputTokens: "3" };
    case 3:
      return { outputTokens: 4, cacheReadTokens: -2 };
    default:
      return { inputTokens: 1, outputTokens: 1, cacheReadTokens: 100000 };
  }
}

function withParityUsage(events) {
  let answers = 0;
  return events.map((event) => {
    const copy = structuredClone(event);
    const message = copy.data?.message;
    if (copy.type === "assistant/message" && message !== null && typeof message === "object" && !Array.isArray(message)) {
      message.usage = parityUsage(answers++);
    }
    return copy;
  });
}

test("the JS API gives the ledgers Rust gives, member for member and in order", () => {
  const expected = JSON.parse(readFileSync(join(repoRoot, "tests", "cache", "ledgers.json"), "utf8"));
  const names = Object.keys(expected);
  assert.ok(names.length > 20);
  for (const name of names) {
    const file = JSON.parse(readFileSync(join(conformanceDir(), name), "utf8"));
    const conversation = new Conversation();
    conversation.load(withParityUsage(file.events));
    const ledger = conversation.cacheLedger(PARITY_OPTIONS);
    assert.deepStrictEqual(ledger, expected[name], name);
    assert.equal(JSON.stringify(ledger), JSON.stringify(expected[name]), `${name}: member order`);
    conversation.free();
  }
});

const text = (n) => "x".repeat(n);
const ev = (seq, type, data, surfaceOp) => ({ seq, time: seq * 1000, type, data, ...(surfaceOp ? { surfaceOp } : {}) });
const step = (seq, n) => ev(seq, "step/start", { turn: 1, step: n });
const system = (seq, tokens, op = "append") =>
  ev(seq, "system/message", { turn: 1, message: { role: "system", content: [{ type: "text", text: text((tokens - 4) * 4) }] } }, op);
const user = (seq, tokens, op = "append") =>
  ev(seq, "user/message", { role: "user", content: [{ type: "text", text: text((tokens - 8) * 4) }] }, op);
const answer = (seq, usage) =>
  ev(seq, "assistant/message", { turn: 1, message: { role: "assistant", content: [{ type: "text", text: text(24) }], usage } }, "append");
const header = (seq, extra = {}) =>
  ev(seq, "request/header", {
    header: { config: { provider: "deepseek", model: "deepseek-chat" }, tools: [{ name: "read", parameters: {} }] },
    reason: "initial",
    ...extra,
  });
const replace = (startSeq, endSeq) => ({ op: "replace", startSeq, endSeq });

// SPEC 11's example.
const EXAMPLE = [
  step(1, 1),
  system(2, 17),
  user(3, 19),
  header(4),
  answer(5, { inputTokens: 60, outputTokens: 9, cacheReadTokens: 0 }),
  step(6, 2),
  system(7, 24),
  answer(8, { inputTokens: 84, outputTokens: 12, cacheReadTokens: 64 }),
  step(9, 3),
  user(10, 20, replace(3, 8)),
  header(11, { reason: "series", startsSeries: true }),
  answer(12, { inputTokens: 52, outputTokens: 5 }),
];

test("SPEC 11's example: its table, unknowns absent", () => {
  const conversation = new Conversation();
  conversation.load(EXAMPLE);
  const { requests, summary } = conversation.cacheLedger();
  assert.deepEqual(
    requests.map((r) => [r.seq, r.readSeq, r.totalTokens, r.keptTokens, r.newTokens, r.brokenTokens]),
    [
      [1, 4, 49, undefined, undefined, undefined],
      [6, 7, 87, 49, 38, 0],
      [9, 11, 50, 30, 20, 57],
    ],
  );
  for (const member of ["keptTokens", "newTokens", "brokenTokens", "shortfallTokens", "savedTokens", "cost"]) {
    assert.ok(!(member in requests[0]), `${member} is absent, not undefined`);
  }
  assert.equal(requests[1].savedTokens, 36);
  assert.equal(requests[1].shortfallTokens, -15);
  assert.equal(requests[1].supersededSystemTokens, 17);
  assert.deepEqual(requests[2].causes, [{ kind: "compaction", seq: 10, startSeq: 3, endSeq: 8 }]);
  assert.deepEqual(requests[2].observed, { inputTokens: 52, outputTokens: 5, uncachedInputTokens: 52 });
  assert.deepEqual(requests[0].route, { provider: "deepseek", model: "deepseek-chat" });
  assert.equal(summary.knownRequests, 2);
  assert.equal(summary.expectedHitRate, 79 / 137);
  assert.deepEqual(summary.breaks, [{ kind: "compaction", requests: 1, brokenTokens: 57 }]);
  assert.deepEqual(summary.trade, { savedTokens: 36, supersededTokens: 17 });
  assert.ok(!("cost" in summary));
  // The ledger belongs to the trajectory's requests, in order.
  assert.deepEqual(
    requests.map((r) => r.seq),
    conversation.views().trajectory.requests.map((r) => r.startSeq),
  );
});

test("entries that read the same route share one frozen route object", () => {
  const conversation = new Conversation();
  conversation.load(EXAMPLE);
  const { requests } = conversation.cacheLedger();
  conversation.free();
  // Requests 2 and 3 read the headers at 4 and 11: the same route.
  assert.deepStrictEqual(requests[1].route, { provider: "deepseek", model: "deepseek-chat" });
  assert.equal(requests[1].route, requests[2].route);
  assert.ok(Object.isFrozen(requests[1].route));
  assert.throws(() => {
    requests[1].route.model = "other";
  }, TypeError);
});

test("route, tools, replacement, series-free and idle causes decode", () => {
  const conversation = new Conversation();
  conversation.load([
    ...EXAMPLE.slice(0, 5),
    step(6, 2),
    ev(7, "request/header", { header: { config: { model: "other" }, tools: [{ name: "web" }] }, reason: "change" }),
    ev(8, "assistant/message", { turn: 1, message: { role: "assistant", content: [] } }, replace(5, 5)),
    answer(9, { inputTokens: 5, cacheReadTokens: 1 }),
  ]);
  const [, second] = conversation.cacheLedger({ cacheTtlMs: 10 }).requests;
  assert.deepEqual(second.causes, [
    { kind: "route", from: { provider: "deepseek", model: "deepseek-chat" }, to: { model: "other" } },
    { kind: "tools", added: ["web"], removed: ["read"], changed: [] },
  ]);
  assert.equal(second.keptTokens, 0);
  const idle = new Conversation();
  const slow = structuredClone(EXAMPLE);
  slow[7].data.message.usage = { inputTokens: 84, cacheReadTokens: 10 };
  idle.load(slow);
  assert.deepEqual(idle.cacheLedger({ cacheTtlMs: 1000 }).requests[1].causes, [{ kind: "idle", gapMs: 2000 }]);
  assert.deepEqual(idle.cacheLedger({ cacheTtlMs: 2000 }).requests[1].causes, []);
  const replaced = new Conversation();
  replaced.load([
    ...EXAMPLE.slice(0, 6),
    ev(7, "assistant/message", { turn: 1, message: { role: "assistant", content: [] } }, replace(5, 5)),
    step(8, 3),
  ]);
  // The replacing message answers step 2, so it lies in step 3's gap.
  assert.deepEqual(replaced.cacheLedger().requests[2].causes, [
    { kind: "replacement", seq: 7, startSeq: 5, endSeq: 5, type: "assistant/message" },
  ]);
});

test("prices: per model, else the default; estimates marked", () => {
  const conversation = new Conversation();
  conversation.load(EXAMPLE);
  const models = { "deepseek-chat": { input: 2, cacheRead: 0.5, output: 8 } };
  const { requests, summary } = conversation.cacheLedger({ prices: { models } });
  assert.deepEqual(requests[0].cost, {
    input: 120 / 1e6,
    cacheRead: 0,
    cacheWrite: 0,
    output: 72 / 1e6,
    total: (120 + 72) / 1e6,
    estimated: false,
    model: "deepseek-chat",
  });
  assert.equal(summary.cost.total, requests.reduce((sum, r) => sum + r.cost.total, 0));
  const other = conversation.cacheLedger({ prices: { models: { other: models["deepseek-chat"] } } });
  assert.ok(other.requests.every((r) => !("cost" in r)), "no price for the model, no default");
});

test("each request's cost follows its own route's prices as the route changes", () => {
  const to = (seq, model) =>
    ev(seq, "request/header", { header: { config: { model }, tools: [{ name: "read", parameters: {} }] }, reason: "change" });
  const models = ["other", "deepseek-chat", "deepseek-chat", undefined, "third", "deepseek-chat"];
  const events = [step(1, 1), system(2, 17), header(3), answer(4, { outputTokens: 1 })];
  models.forEach((model, i) => {
    const seq = 10 * (i + 1);
    events.push(step(seq, i + 2), to(seq + 1, model), answer(seq + 2, { outputTokens: 1 }));
  });
  const conversation = new Conversation();
  conversation.load(events);
  const keyed = { input: 3, cacheRead: 1, output: 7 };
  const prices = { default: { input: 2, cacheRead: 0.5, output: 5 }, models: { "deepseek-chat": keyed, third: keyed } };
  const { requests } = conversation.cacheLedger({ prices });
  const routeModels = requests.map((r) => r.route?.model);
  assert.deepEqual(routeModels, ["deepseek-chat", ...models]);
  requests.forEach((request, i) => {
    const model = routeModels[i];
    const byModel = model !== undefined && model in prices.models;
    assert.equal(request.cost.model, byModel ? model : undefined, `request ${i}`);
    assert.equal("model" in request.cost, byModel, `request ${i}: no model member for the default`);
    assert.equal(request.cost.output, (byModel ? 7 : 5) / 1e6, `request ${i}: its prices`);
  });
});

test("bad options throw INVALID_ARGUMENT and leave the window as it was", () => {
  const conversation = new Conversation();
  conversation.load(EXAMPLE);
  const before = JSON.stringify(conversation.cacheLedger());
  const price = (p) => ({ prices: { default: { input: 1, cacheRead: 0.1, output: 2, ...p } } });
  const bad = [
    price({ input: -1 }),
    price({ cacheRead: Number.NaN }),
    price({ output: Number.POSITIVE_INFINITY }),
    price({ cacheWrite: -0.5 }),
    price({ input: "1" }),
    price({ output: undefined }),
    { prices: { models: { m: { input: 1, cacheRead: 1n, output: 1 } } } },
    { prices: 3 },
    { cacheTtlMs: -1 },
    { cacheTtlMs: "10" },
    5,
  ];
  for (const options of bad) {
    assert.throws(
      () => conversation.cacheLedger(options),
      (error) => error.name === "PromptfoldError" && error.code === "INVALID_ARGUMENT",
      JSON.stringify(options, (_, v) => (typeof v === "bigint" ? `${v}n` : v)),
    );
  }
  assert.equal(JSON.stringify(conversation.cacheLedger(null)), before);
  assert.equal(JSON.stringify(conversation.cacheLedger({})), before);
});

test("a number out of range is named as given: NaN and the infinities, not JSON's null", () => {
  const conversation = new Conversation();
  conversation.load(EXAMPLE);
  const price = (p) => ({ input: 1, cacheRead: 0.1, output: 2, ...p });
  const cases = [
    [{ cacheTtlMs: Number.NaN }, "options.cacheTtlMs", "NaN"],
    [{ cacheTtlMs: Number.POSITIVE_INFINITY }, "options.cacheTtlMs", "Infinity"],
    [{ cacheTtlMs: Number.NEGATIVE_INFINITY }, "options.cacheTtlMs", "-Infinity"],
    [{ prices: { default: price({ input: Number.NaN }) } }, "options.prices.default.input", "NaN"],
    [{ prices: { default: price({ cacheWrite: Number.POSITIVE_INFINITY }) } }, "options.prices.default.cacheWrite", "Infinity"],
    [{ prices: { models: { m: price({ output: Number.NaN }) } } }, 'options.prices.models["m"].output', "NaN"],
  ];
  for (const [options, member, found] of cases) {
    assert.throws(
      () => conversation.cacheLedger(options),
      (error) =>
        error.code === "INVALID_ARGUMENT" &&
        error.message === `invalid argument \`${member}\`: expected a finite number >= 0, found ${found}`,
      `${member} = ${found}`,
    );
  }
});

test("a system message's non-text blocks count their JSON length, from objects and from text", () => {
  const content = [
    { type: "text", text: "Be " },
    { type: "image", url: "x" },
    "bare",
    { type: "text", text: "brief." },
  ];
  const events = [
    { seq: 1, time: 1, type: "system/message", surfaceOp: "append", data: { message: { role: "system", content } } },
    { seq: 2, time: 2, type: "system/message", surfaceOp: "append", data: { message: { role: "system", content: [] } } },
    {
      seq: 3,
      time: 3,
      type: "system/message",
      surfaceOp: "append",
      data: { message: { role: "system", content: [{ type: "text", text: "" }] } },
    },
  ];
  // "Be " 3 + {"type":"image","url":"x"} 26 + "bare" 6 + "brief." 6 = 41 units: ceil(41 / 4) + 4.
  const expected = [15, 15, 15 + 4];
  const objects = new Conversation();
  objects.load(events);
  const text = new Conversation();
  text.loadJson(JSON.stringify(events));
  for (const [i, total] of expected.entries()) {
    assert.equal(objects.contextAt(i + 1).totalTokens, total, `objects at ${i + 1}`);
    assert.equal(text.contextAt(i + 1).totalTokens, total, `text at ${i + 1}`);
  }
});
