// Options objects, ranges and plain-data arguments (docs/api.md, "Arguments"): each must be a
// plain object holding only the members its type declares, each of its type; anything else throws
// a PromptfoldError INVALID_ARGUMENT naming the argument (or the member's path in it), before
// anything is computed, and a call that throws leaves the window as it was.
import { test } from "node:test";
import assert from "node:assert/strict";
import { smallLog, systemEvent } from "./kit/small-log.mjs";
import { promptfold } from "./promptfold.mjs";

const { Conversation, openSession } = promptfold;

const system = systemEvent;
const events = smallLog;

/** Asserts that `call` throws INVALID_ARGUMENT whose message names `argument`. */
export function assertInvalid(call, argument, what) {
  assert.throws(
    call,
    (error) => {
      assert.equal(error.name, "PromptfoldError", `${what}: ${error.message}`);
      assert.equal(error.code, "INVALID_ARGUMENT", `${what}: ${error.message}`);
      assert.ok(error.message.startsWith(`invalid argument \`${argument}`), `${what}: ${error.message}`);
      return true;
    },
    what,
  );
}

class Options {
  constructor() {
    this.hasMore = true;
  }
}

// A value of each kind that is not a plain object.
const notObjects = [
  ["an array", []],
  ["an array with the members", Object.assign([], { start: 0, end: 1, hasMore: true })],
  ["a number", 5],
  ["a string", "x"],
  ["true", true],
  ["a function", Object.assign(() => {}, { start: 0, end: 1 })],
  ["a class instance", new Options()],
  ["a Map", new Map()],
  ["a Uint8Array", new Uint8Array(2)],
];

/** Each options or range argument: its call with a value, a valid value, and wrong members. */
const argumentsByCall = [
  {
    name: "load(events, options)",
    call: (c, value) => c.load(events, value),
    valid: { hasMore: true },
    wrong: [
      [{ hasmore: true }, "options"],
      [{ hasMore: true, extra: undefined }, "options"],
      [{ hasMore: null }, "options.hasMore"],
      [{ hasMore: "yes" }, "options.hasMore"],
    ],
  },
  {
    name: "prepend(events, options)",
    call: (c, value) => c.prepend([], value),
    valid: {},
    wrong: [[{ has_more: false }, "options"]],
  },
  {
    name: "loadJson(text, options)",
    call: (c, value) => c.loadJson(JSON.stringify(events), value),
    valid: { hasMore: undefined },
    wrong: [[{ hasMore: 1 }, "options.hasMore"]],
  },
  {
    name: "prependJson(text, options)",
    call: (c, value) => c.prependJson("[]", value),
    valid: { hasMore: false },
    wrong: [[{ more: true }, "options"]],
  },
  {
    name: "cacheLedger(options)",
    call: (c, value) => c.cacheLedger(value),
    valid: { prices: { default: { input: 1, cacheRead: 0.1, output: 2 }, models: {} }, cacheTtlMs: 1000 },
    wrong: [
      [{ cacheTTLMs: 300000 }, "options"],
      [{ cacheTtlMs: "300000" }, "options.cacheTtlMs"],
      [{ cacheTtlMs: null }, "options.cacheTtlMs"],
      [{ prices: [] }, "options.prices"],
      [{ prices: { default: [1, 2, 3] } }, "options.prices.default"],
      [{ prices: { default: { input: 1, cacheRead: 1, output: 1, cache_write: 1 } } }, "options.prices.default"],
      [{ prices: { default: { input: 1, cacheRead: 1 } } }, "options.prices.default.output"],
      [{ prices: { default: { input: 1, cacheRead: 1, output: 1, cacheWrite: "1" } } }, "options.prices.default.cacheWrite"],
      [{ prices: { models: [] } }, "options.prices.models"],
      [{ prices: { models: { m: null } } }, 'options.prices.models["m"]'],
      [{ prices: { models: { m: [1] } } }, 'options.prices.models["m"]'],
      [{ prices: { defaults: {} } }, "options.prices"],
    ],
  },
  ...["cardsSlice", "requestsSlice", "linesSlice"].map((method) => ({
    name: `${method}(range)`,
    call: (c, value) => c[method](value),
    valid: { start: 0, end: 2 },
    required: true,
    wrong: [
      [{ start: 0, end: 2, count: 2 }, "range"],
      [{ start: 0 }, "range.end"],
      [{ start: "0", end: 2 }, "range.start"],
      [{ from: 0, to: 2 }, "range"],
    ],
  })),
  {
    name: "inspectSystemPrompt(previous, event, options)",
    call: (_, value) => promptfold.inspectSystemPrompt(undefined, system, value),
    valid: { windowStart: 1 },
    wrong: [[{ windowstart: 1 }, "options"]],
  },
];

for (const { name, call, valid, required, wrong } of argumentsByCall) {
  test(`${name}: an array, a non-object or an unknown or wrong member is INVALID_ARGUMENT`, () => {
    const conversation = new Conversation();
    conversation.load(events, { hasMore: true });
    const before = JSON.stringify(conversation.lines());
    const argument = /(\w+)\)$/.exec(name)[1];
    for (const [what, value] of notObjects) assertInvalid(() => call(conversation, value), argument, `${name}: ${what}`);
    for (const [value, path] of wrong) {
      assertInvalid(() => call(conversation, value), path, `${name}: ${JSON.stringify(value)}`);
    }
    assert.equal(JSON.stringify(conversation.lines()), before, `${name}: the window is unchanged`);
    // What the types declare is accepted: the valid value, one without a prototype, and (for
    // options) none at all.
    call(conversation, valid);
    call(conversation, Object.assign(Object.create(null), valid));
    if (required) {
      assertInvalid(() => call(conversation, undefined), argument, `${name}: undefined`);
    } else {
      call(new Conversation(), undefined);
      call(new Conversation(), null);
    }
    conversation.free();
  });
}

test("openSession(source, options): an array, a non-object or an unknown member rejects with INVALID_ARGUMENT", async () => {
  const blob = new Blob([`${events.map((event) => JSON.stringify(event)).join("\n")}\n`]);
  for (const [what, options] of [...notObjects, ["a typo", { newestfirst: true }]]) {
    await assert.rejects(
      openSession(blob, options),
      (error) => error.code === "INVALID_ARGUMENT" && /^invalid argument `options`/.test(error.message),
      what,
    );
  }
  for (const options of [undefined, null, {}, { newestFirst: false, chunkBytes: 64 }]) {
    const { conversation } = await openSession(blob, options);
    assert.equal(conversation.length, events.length);
    conversation.free();
  }
});

const header = events[3];

test("inspectRequestPrompt: a previous that is not a PromptSnapshot is INVALID_ARGUMENT", () => {
  const { inspectRequestPrompt } = promptfold;
  const { prompt } = inspectRequestPrompt(undefined, header, undefined);
  const notSnapshots = [
    ...notObjects,
    ["a range", { start: 0 }],
    ["an empty object", {}],
    ["a snapshot with an unknown member", { ...prompt, start: 0 }],
    ["a snapshot without tools", { system: "A" }],
    ["a snapshot without system", { tools: [] }],
  ];
  for (const [what, previous] of notSnapshots) {
    assertInvalid(() => inspectRequestPrompt(previous, header, undefined), "previous", what);
  }
  // A snapshot the API gave, one with `config` left out, and none.
  assert.deepEqual(inspectRequestPrompt(prompt, header, undefined).prompt, prompt);
  inspectRequestPrompt({ system: "A", tools: [] }, header, undefined);
  inspectRequestPrompt(null, header, undefined);
});

test("diffPrompts and inspectRequestPrompt: a prompt, snapshot or system node with a member of the wrong type is INVALID_ARGUMENT", () => {
  const { diffPrompts, inspectRequestPrompt } = promptfold;
  const wrongPrompts = [
    [{ tools: "x" }, "tools"],
    [{ tools: {} }, "tools"],
    [{ tools: [{ name: "a" }, () => {}] }, "tools[1]"],
    [{ tools: [Symbol("a")] }, "tools[0]"],
    // A hole reads as `undefined`, which JSON writes as null.
    [{ tools: new Array(2).fill({ name: "a" }, 1) }, "tools[0]"],
    [{ system: 5 }, "system"],
    [{ system: null }, "system"],
    [{ system: new String("A") }, "system"],
    [{ config: () => ({ model: "m" }) }, "config"],
    [{ config: Symbol("m") }, "config"],
    [{ config: 1n }, "config"],
    [{ system: "A", sytem: "B" }, ""],
  ];
  for (const [prompt, member] of wrongPrompts) {
    const path = member === "" ? "" : `.${member}`;
    assertInvalid(() => diffPrompts(prompt, "A"), `previous${path}`, `diffPrompts(${String(Object.keys(prompt))})`);
    assertInvalid(() => diffPrompts("A", prompt), `current${path}`, `diffPrompts(_, ${String(Object.keys(prompt))})`);
    const snapshot = { system: "A", tools: [], ...prompt };
    assertInvalid(() => inspectRequestPrompt(snapshot, header, undefined), `previous${path}`, `snapshot ${member}`);
  }
  for (const [what, value] of notObjects.filter(([, value]) => typeof value !== "string")) {
    assertInvalid(() => diffPrompts(value, "A"), "previous", `diffPrompts(${what})`);
  }
  // Every declared member of its type: any JSON value as config (null too), any items as tools.
  const diff = diffPrompts({ config: null, system: "A", tools: [null, "t", { name: "u" }] }, { config: { m: 1 }, tools: [] });
  assert.deepEqual(diff.config, [{ name: "", old: null, new: { m: 1 } }]);
  diffPrompts({}, Object.create(null));

  const node = { seq: 2, time: 2, turn: 1, step: 1, text: "A", update: false };
  const wrongNodes = [
    [{ ...node, seq: "2" }, "system.seq"],
    [{ ...node, time: null }, "system.time"],
    [{ ...node, time: Symbol("t") }, "system.time"],
    [{ ...node, text: 1 }, "system.text"],
    [{ ...node, update: "no" }, "system.update"],
    [{ seq: 2, text: "A" }, "system.time"],
    [{ ...node, key: "system:2" }, "system"],
    [[node], "system"],
  ];
  for (const [system, path] of wrongNodes) {
    assertInvalid(() => inspectRequestPrompt(undefined, header, system), path, JSON.stringify(system));
  }
  const state = promptfold.inspectSystemPrompt(undefined, system);
  assert.equal(inspectRequestPrompt(undefined, header, state.effective).change?.seq, 2);
  state.free();
});

test("inspectSystemPrompt: a windowStart that is not a number is INVALID_ARGUMENT, not absent", () => {
  const { inspectSystemPrompt } = promptfold;
  // A Symbol or a function vanished in the JSON step and meant "no window start".
  for (const windowStart of [Symbol("start"), () => 1, "1", true, 1n, [1], { start: 1 }, null]) {
    assertInvalid(() => inspectSystemPrompt(undefined, system, { windowStart }), "options", String(typeof windowStart));
  }
  // NaN and the infinities cross as JSON null: refused by Rust as before.
  for (const windowStart of [Number.NaN, Number.POSITIVE_INFINITY]) {
    assertInvalid(() => inspectSystemPrompt(undefined, system, { windowStart }), "options", String(windowStart));
  }
  const state = inspectSystemPrompt(undefined, system, { windowStart: 1 });
  assert.equal(state.firstSeq, 1);
  state.free();
  inspectSystemPrompt(undefined, system, { windowStart: undefined }).free();
});

test("the shapes the glue checks are the .d.ts's types, member for member", async () => {
  const { readFileSync } = await import("node:fs");
  const { join } = await import("node:path");
  const { packageDir } = await import("./promptfold.mjs");
  const glue = readFileSync(join(packageDir, "promptfold.js"), "utf8");
  const table = /^const PROMPTFOLD_SHAPES = (\{\n[\s\S]*?\n\});$/m.exec(glue);
  assert.ok(table, "the glue holds PROMPTFOLD_SHAPES");
  const shapes = new Function(`return ${table[1]};`)();
  const dts = readFileSync(join(packageDir, "..", "bundler", "promptfold.d.ts"), "utf8");
  // The .d.ts's member types as the glue writes them.
  const asShape = { Seq: "number", Time: "number", unknown: "json", "Record<string, TokenPrices>": "Record<TokenPrices>" };
  const members = (body) =>
    Object.fromEntries(
      [...body.matchAll(/^\s*(\w+)(\??): ([^;]+);$/gm)].map(([, name, optional, type]) => [name, `${asShape[type] ?? type}${optional}`]),
    );
  for (const [name, shape] of Object.entries(shapes)) {
    let declared;
    if (name === "PromptInput") {
      const alias = /^export type PromptInput = string \| \{ (.*) \};$/m.exec(dts);
      declared = members(alias[1].replaceAll("; ", ";\n").replace(/([^;])$/, "$1;"));
    } else {
      const body = new RegExp(`^export interface ${name} \\{\\n([\\s\\S]*?)\\n\\}$`, "m").exec(dts);
      assert.ok(body, `the .d.ts declares ${name}`);
      declared = members(body[1]);
    }
    assert.deepEqual(shape, declared, name);
  }
});
