// JS objects in (`load`, `append`, `prepend`) must read exactly what JSON text in does: the
// objects path sends only the members the rules read, and a header whose tools repeat the
// previous header's sends a marker instead of them (src/wasm/js/pack.js). Random sessions, both
// ways, compared line by line and view by view.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";
import { repoRoot } from "./cases.mjs";
import { packageDir, promptfold } from "./promptfold.mjs";
import { observe, outcome } from "./outcome.mjs";

const { Conversation } = promptfold;
const batchSource = readFileSync(join(repoRoot, "src", "wasm", "js", "pack.js"), "utf8");

// How many config and tools comparisons of a batch walk with the generic matchers before those
// written out for each depth take over (GENERIC_COMPARISONS in src/wasm/js/pack.js).
const genericComparisons = Number(/^const GENERIC_COMPARISONS = (\d+);$/m.exec(batchSource)?.[1]);

// The count of comparisons of the package's packer (`comparisons` in src/wasm/js/pack.js, the
// snippet the package requires): it runs over every batch of the process, so each batch below
// sets it back to 0 to start with the generic matchers.
const snippets = join(packageDir, "snippets");
const { comparisons } = createRequire(join(packageDir, "promptfold.js"))(
  join(snippets, readdirSync(snippets)[0], "src", "wasm", "js", "pack.js"),
);

// `batch` loaded from objects on a fresh conversation, its comparisons counted from 0 (see
// `comparisons`), as `outcome` gives it.
function loadedFromStart(batch) {
  return outcome((c) => {
    comparisons.made = 0;
    c.load(batch);
  });
}

// Headers (seq 1, 2, ...) enough that the comparisons of the headers after them walk with the
// matchers written out for each depth, in a batch whose count starts at 0: each header but the
// first compares its config and tools (numbers that differ) with the previous header's. None when
// `walk` is "generic".
function headersBefore(walk) {
  const count = walk === "generic" ? 0 : genericComparisons / 2 + 1;
  return Array.from({ length: count }, (_, i) => ({
    seq: i + 1, time: i + 1, type: "request/header", data: { reason: "change", header: { config: i, tools: i } },
  }));
}
const walks = ["generic", "written out for each depth"];

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
  // The same values under another key, and the same digits as a string.
  [{ name: "n", size: 1 }],
  [{ name: "n", limit: "1" }],
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

test("JS objects read exactly as their JSON text", () => {
  for (let seed = 1; seed <= 60; seed++) {
    const events = session(seed, 120);
    const fromText = new Conversation();
    fromText.loadJson(JSON.stringify(events));
    const fromObjects = new Conversation();
    fromObjects.load(events);
    assert.equal(observe(fromObjects), observe(fromText), `seed ${seed}: load`);
    // The same events in pages: prepend, load, append; each batch starts its own tools chain.
    const paged = new Conversation();
    paged.load(events.slice(40, 80), { hasMore: true });
    paged.prepend(events.slice(0, 40));
    paged.append(events.slice(80));
    assert.equal(observe(paged), observe(fromText), `seed ${seed}: pages`);
    for (const c of [fromText, fromObjects, paged]) c.free();
  }
});

// Values that make the packer send an event as JSON text, or that JSON writes differently from
// how they look: boxed values, toJSON, non-finite numbers, -0, holes, lone surrogates.
const odd = {
  seq: [() => 1, () => -0, () => new Number(1), () => 1.5, () => NaN, () => "1", () => ({ toJSON: () => 1 })],
  time: [5, -0, NaN, Infinity, "late", null, undefined, new Number(7), { toJSON: () => 9 }, true],
  type: ["system/message", "request/header", "turn/start", "step/end", "x", undefined, null, 3,
    new String("request/header"), { toJSON: () => "system/message" }],
  surfaceOp: [undefined, null, "append", "replace", [], () => 1, { toJSON: () => "append" }, new String("append"),
    Object.assign(Object.create(null), { op: "replace", startSeq: 0, endSeq: 0 }),
    { op: new String("replace"), startSeq: 0, endSeq: 0 }, { op: "replace", startSeq: new Number(0), endSeq: 0 },
    { op: "replace", startSeq: NaN, endSeq: 0 }, { op: "replace", startSeq: -0, endSeq: -0, extra: 1n }],
  number: [1, -1, 1.5, null, NaN, Infinity, "2", true, new Number(2), undefined, -0, 2 ** 53, { toJSON: () => 4 }],
  message: [undefined, "hi", null, { content: "x" }, { content: { toJSON: () => [{ type: "text", text: "E" }] } },
    { content: [{ type: "text", text: "A" }, null, 5, { type: new String("text"), text: "B" },
      { type: "text", text: new String("C") }, { type: "text", text: 7 },
      { toJSON: () => ({ type: "text", text: "D" }) }, ["x"], { type: "text", text: "F", big: 1n }] },
    { content: [{ type: "text", text: "\uD800" }, { type: "text", text: "\uDC00é" }] },
    { role: 1n, content: new Array(2) }],
  reason: ["initial", "resume", "series", new String("change"), 3, null, undefined],
  startsSeries: [true, false, new Boolean(true), "true", 1, undefined],
  json: [undefined, null, 5, { m: 1 }, { m: 1 }, { toJSON: () => ({ m: 2 }) }, () => 1, { x: undefined },
    { t: new Number(0.2) }, { t: new Number(0.7) }, new String("ab"), { 0: "a", 1: "b" }, new Number(5), {},
    new (class Tool { constructor() { this.name = "c"; } })(), { name: "c" },
    [{ name: "t" }], [{ name: "t" }], [{ name: "t", toJSON: () => ({ name: "u" }) }], { toJSON: () => undefined }],
  data: [undefined, null, 5, [], { toJSON: () => ({ turn: 3 }) }],
};

function oddSession(seed, count) {
  const next = random(seed);
  const pick = (items) => items[Math.floor(next() * items.length)];
  const events = [];
  for (let i = 0; i < count; i++) {
    const seq = 10 + 3 * i;
    // Mostly valid events, so that most sessions load; odd values everywhere else.
    const seqValue = next() < 0.995 ? seq : pick(odd.seq)();
    const event = { seq: seqValue === 1 ? seq : seqValue, time: pick(odd.time), type: pick(odd.type) };
    const roll = next();
    if (roll < 0.03) event.surfaceOp = pick(odd.surfaceOp);
    else if (roll < 0.3) event.surfaceOp = { op: "replace", startSeq: seq - 4, endSeq: seq - 1, note: 1n };
    else if (roll < 0.6) event.surfaceOp = "append";
    if (next() < 0.1) {
      event.data = pick(odd.data);
    } else {
      event.data = {
        turn: pick(odd.number), step: pick(odd.number), message: pick(odd.message),
        reason: pick(odd.reason), startsSeries: pick(odd.startsSeries),
        header: next() < 0.1 ? pick([null, 5, [], { toJSON: () => ({ tools: [{ name: "j" }] }) }])
          : { config: structuredCloneish(pick(odd.json)), tools: structuredCloneish(pick(odd.json)) },
      };
    }
    events.push(event);
  }
  if (next() < 0.05) events[Math.floor(next() * events.length)] = pick([undefined, null, 7, "e", [], new Number(5)]);
  // Events JSON writes as their own members, though they are not plain objects.
  if (next() < 0.1) {
    const at = Math.floor(next() * events.length);
    if (events[at] !== null && typeof events[at] === "object" && !Array.isArray(events[at])) {
      events[at] = Object.assign(new (class Event {})(), events[at]);
    }
  }
  return events;
}

// A fresh copy of plain data (so equal values are different objects); anything else as is.
function structuredCloneish(value) {
  if (Array.isArray(value) && !value.some((item) => typeof item?.toJSON === "function")) return value.map(structuredCloneish);
  if (value !== null && typeof value === "object" && Object.getPrototypeOf(value) === Object.prototype && typeof value.toJSON !== "function") {
    return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, structuredCloneish(item)]));
  }
  return value;
}

test("odd values read exactly as their JSON text", () => {
  let loaded = 0;
  for (let seed = 1; seed <= 400; seed++) {
    const events = oddSession(seed, 30);
    // BigInts sit only in members the rules never read: the text leaves them out.
    const text = JSON.stringify(events, (_key, value) => (typeof value === "bigint" ? undefined : value));
    const fromText = outcome((c) => c.loadJson(text));
    const fromObjects = outcome((c) => c.load(events));
    assert.equal(fromObjects, fromText, `seed ${seed}`);
    if (!fromText.startsWith('{"code"')) loaded++;
  }
  // The sessions must mostly load, or the comparison would only be of errors.
  assert.ok(loaded > 200, `only ${loaded} sessions loaded`);
});

// lines() grows with the square of a log whose prompts are long: views and the effective prompts.
function viewsOnly(conversation) {
  const effective = Array.from({ length: conversation.length }, (_, i) => conversation.stateAt(i + 1)?.effective?.seq);
  return JSON.stringify({ views: conversation.views(), effective });
}

// A string crosses into wasm in pieces of 1 MiB (src/wasm/js/text.js); UTF-8 bytes cross whole.
// Several pieces of text full of two-, three- and four-byte characters (so pieces end next to
// every kind), valid and damaged, must read as the same bytes do.
test("a string read in pieces reads as its UTF-8 bytes", () => {
  const next = random(7);
  const words = ["plain", "é", "你好", "😀", "a\"quote", "\\u escape", "line\nbreak"];
  const events = [];
  for (let seq = 1; seq <= 400; seq++) {
    const text = Array.from({ length: 1500 }, () => words[Math.floor(next() * words.length)]).join(" ");
    events.push({ seq, time: seq, type: seq % 3 === 0 ? "system/message" : "tool/result", surfaceOp: "append",
      data: { turn: 1, step: seq, message: { role: "system", content: [{ type: "text", text }] } } });
  }
  const text = JSON.stringify(events);
  assert.ok(new TextEncoder().encode(text).length > 3 * 2 ** 20, "the text spans several pieces");
  const lines = `${events.map((event) => JSON.stringify(event)).join("\n")}\n`;
  const damaged = `${text.slice(0, -3)},${text.slice(-3)}`;
  for (const [name, json] of [["array", text], ["lines", lines], ["damaged", damaged]]) {
    const fromString = outcome((c) => c.loadJson(json), viewsOnly);
    const fromBytes = outcome((c) => c.loadJson(new TextEncoder().encode(json)), viewsOnly);
    assert.equal(fromString, fromBytes, name);
    assert.equal(fromString.startsWith('{"code"'), name === "damaged", `${name}: ${fromString.slice(0, 200)}`);
  }
});

// Boxed values and class instances are not plain data: JSON writes a boxed value as what it
// holds, and a class instance as its own enumerable members only.
test("boxed values and class instances read as JSON writes them", () => {
  const header = (seq, config, tools) => ({ seq, time: seq, type: "request/header", data: { reason: "change", header: { config, tools } } });
  class WithGetter { get seq() { return 9; } }
  class Plain { constructor(seq) { this.seq = seq; this.type = "tool/result"; this.data = { output: 1n }; } }
  const batches = [
    [header(1, { t: new Number(0.2) }, []), header(2, { t: new Number(0.7) }, [])],
    [header(1, {}, [new String("ab")]), header(2, {}, [{ 0: "a", 1: "b" }])],
    [header(1, {}, [new Number(5)]), header(2, {}, [{}])],
    [header(1, {}, []), new WithGetter()],
    [{ seq: 1, type: "user/message", surfaceOp: new String("append") }],
    [new Number(5)],
    [new Plain(1), new Plain(2)],
  ];
  const text = (events) => JSON.stringify(events, (_key, value) => (typeof value === "bigint" ? undefined : value));
  for (const [i, events] of batches.entries()) {
    assert.equal(outcome((c) => c.load(events)), outcome((c) => c.loadJson(text(events))), `batch ${i}`);
  }
});

// A member made enumerable on Object.prototype shows in `for...in` but not in JSON: tools that
// differ only in having it as their own member must not be taken for the same.
const toolsHeader = (seq, tools) => ({ seq, time: seq, type: "request/header", data: { reason: "change", header: { tools } } });
const addZToPrototype = () =>
  Object.defineProperty(Object.prototype, "z", { value: 1, enumerable: true, configurable: true, writable: true });

// Loads `events` as objects (with `z` on Object.prototype first when `pollute`) and as text.
function assertReadAsTextWhilePolluted(events, pollute) {
  const text = JSON.stringify(events);
  delete Object.prototype.z;
  let fromObjects;
  try {
    if (pollute) addZToPrototype();
    fromObjects = outcome((c) => c.load(events));
  } finally {
    delete Object.prototype.z;
  }
  assert.equal(fromObjects, outcome((c) => c.loadJson(text)));
}

test("an enumerable member on Object.prototype does not make different tools the same", () => {
  const events = [toolsHeader(1, [{ name: "a", z: 1 }]), toolsHeader(2, [{ name: "a" }]), toolsHeader(3, [{ name: "a" }]),
    toolsHeader(4, [{ name: "a", z: 1 }])];
  assertReadAsTextWhilePolluted(events, true);
});

// The packer keeps the previous header's tools as a list of tokens when they are plain data, and
// compares the next header's with it (Previous in src/wasm/js/same-json.js). Tools that share a part
// that is not plain data with the previous ones must not be taken for plain data: `[shared]`
// after `[shared]` is the same JSON, but `[{ v: {} }]` after it is not. Near misses of the
// token lists of one another too.
test("tools compared by tokens read as their JSON text, with either walk", () => {
  assert.ok(genericComparisons > 0);
  const shared = { v: new Number(1) };
  const plain = { name: "p", v: [1, { w: 2 }] };
  const lists = [
    () => [shared], () => [{ v: {} }], () => [{ v: 1 }], () => [plain], () => [{ name: "p", v: [1, { w: 2 }] }],
    () => [{ v: {} }, plain], () => [shared, plain], () => [{ v: new Number(1) }], () => [{ name: "p", v: [1, {}] }],
    () => [Object.assign(Object.create(null), { v: {} })], () => [[]], () => [{}],
    // Near misses of one another's tokens: a part closed earlier or later, keys as values.
    () => [{ a: { b: 1, c: "c" } }], () => [{ a: { b: 1 }, c: "c" }], () => [{ a: { b: 1 } }, "c", "c"],
    () => [{ a: [1, "c"] }], () => [{ a: { 1: "c" } }], () => [{ a: {} }, { b: 1 }], () => [{ a: { b: 1 } }, { c: "c" }],
    // A leaf, null or undefined where the previous tools had a record or a list, and the other way.
    () => [{ v: null }], () => [null], () => [undefined], () => [{ v: undefined }], () => [{ v: [] }], () => [{ v: "v" }],
  ];
  const header = (seq, tools) => ({ seq, time: seq, type: "request/header", data: { reason: "change", header: { tools } } });
  for (const walk of walks) {
    // The headers of `seeds` seeds in a row, in a batch after the headers that choose the walk.
    const seeds = walk === "generic" ? 1 : 50;
    const before = headersBefore(walk);
    let changes = 0;
    for (let first = 1; first <= 300; first += seeds) {
      const batch = [...before];
      for (let seed = first; seed < first + seeds; seed++) {
        const next = random(seed);
        for (let i = 0; i < 12; i++) batch.push(header(batch.length + 1, lists[Math.floor(next() * lists.length)]()));
      }
      const fromObjects = loadedFromStart(batch);
      assert.equal(fromObjects, outcome((c) => c.loadJson(JSON.stringify(batch))), `${walk} walk, seeds ${first} to ${first + seeds - 1}`);
      changes += (fromObjects.match(/"tools":\[/g) ?? []).length;
    }
    assert.ok(changes > 1000, `${walk} walk: only ${changes} tool lists shown`);
  }
});

// The same, when Object.prototype gets the member in the middle of a batch (a getter of an event
// adds it), after the previous header's tools were taken apart.
test("an enumerable member added to Object.prototype during a batch does not make different tools the same", () => {
  const polluting = {
    seq: 2,
    time: 2,
    type: "request/header",
    get data() {
      addZToPrototype();
      return { reason: "change", header: { tools: [{ name: "a" }] } };
    },
  };
  assertReadAsTextWhilePolluted([toolsHeader(1, [{ name: "a", z: 1 }]), polluting, toolsHeader(3, [{ name: "a", z: 1 }])], false);
});

// Values JSON writes differently from their own enumerable members, each with the plain data
// whose tokens a walk with for...in would take it for; and values JSON writes as such data.
class WithToJSON { constructor() { this.name = "x"; } toJSON() { return { name: "y" }; } }
class Tool { constructor() { this.name = "x"; } }
class List extends Array {}
const lookAlikes = [
  [() => ({ name: "x", toJSON: () => ({ name: "y" }) }), () => ({ name: "x", toJSON: "not a function" })],
  [() => Object.defineProperty({ name: "x" }, "toJSON", { value: () => ({ name: "y" }) }), () => ({ name: "x" })],
  [() => new WithToJSON(), () => ({ name: "x" })],
  [() => new Tool(), () => ({ name: "x" })],
  [() => Object.assign(Object.create({ extra: 1 }), { name: "x" }), () => ({ name: "x", extra: 1 })],
  [() => new Number(5), () => ({})],
  [() => new String("ab"), () => ({ 0: "a", 1: "b" })],
  [() => new Date(0), () => ({})],
  [() => Object.assign(Object.create(null), { name: "x" }), () => ({ name: "x" })],
  [() => ({ get name() { return "x"; } }), () => ({ name: "x" })],
  [() => Object.assign(["x"], { toJSON: () => ["y"] }), () => ["x"]],
  [() => Object.defineProperty(["x"], "toJSON", { value: () => ["y"] }), () => ["x"]],
  [() => List.from(["x"]), () => ["x"]],
  // An array with the prototype of a record, and a record with the prototype of an array.
  [() => Object.setPrototypeOf(["x"], Object.prototype), () => ({ 0: "x" })],
  [() => Object.setPrototypeOf({ 0: "x", length: 1 }, Array.prototype), () => ["x"]],
];

// `value` at `depth` of a config or tools value: inside objects and arrays, in turn.
function nest(value, depth) {
  return depth === 0 ? value : nest(depth % 2 === 0 ? { w: value, v: depth } : [depth, value], depth - 1);
}

test("a look-alike of plain data at any depth reads as its JSON text, with either walk", () => {
  const request = (seq, value) => ({ seq, time: seq, type: "request/header", data: { reason: "change", header: { config: value, tools: value } } });
  for (const walk of walks) {
    // For the generic walk a batch for each look-alike; else one for each depth, after the
    // headers that choose the walk.
    const together = walk !== "generic";
    for (let depth = 0; depth <= 9; depth++) {
      let batch = headersBefore(walk);
      for (const [i, [odd, plain]] of lookAlikes.entries()) {
        // Many headers with the plain data first, so that the walk has met its shapes often.
        for (let k = 0; k < 150; k++) batch.push(request(batch.length + 1, nest(plain(), depth)));
        batch.push(request(batch.length + 1, nest(odd(), depth)));
        batch.push(request(batch.length + 1, nest(plain(), depth)));
        batch.push(request(batch.length + 1, nest(odd(), depth)));
        if (together && i < lookAlikes.length - 1) continue;
        const fromObjects = loadedFromStart(batch);
        assert.equal(fromObjects, outcome((c) => c.loadJson(JSON.stringify(batch))), `${walk} walk, depth ${depth}, look-alike ${together ? "any" : i}`);
        batch = [];
      }
    }
  }
});

// An array whose prototype is Object.prototype is still an array to JSON, which leaves its named
// members out: an event, its data, a header or a message as one must not be read as a record.
test("an array with the prototype of a record reads as its JSON text", () => {
  const array = (members) => Object.setPrototypeOf(Object.assign(["item"], members), Object.prototype);
  const headerData = { reason: "change", header: { tools: [{ name: "a" }] } };
  const cases = [
    [array({ seq: 1, time: 1, type: "request/header", data: headerData })],
    [{ seq: 1, time: 1, type: "request/header", data: array(headerData) }],
    [{ seq: 1, time: 1, type: "request/header", data: { reason: "change", header: array({ tools: [{ name: "a" }] }) } }],
    [{ seq: 1, time: 1, type: "system/message", surfaceOp: "append", data: { message: array({ content: [{ type: "text", text: "A" }] }) } }],
    [{ seq: 1, time: 1, type: "system/message", surfaceOp: "append", data: { message: { content: [array({ type: "text", text: "A" })] } } }],
    [{ seq: 2, time: 1, type: "tool/result", surfaceOp: array({ op: "replace", startSeq: 1, endSeq: 1 }) }],
  ];
  for (const [i, events] of cases.entries()) {
    const all = [{ seq: 1, time: 1, type: "system/message", surfaceOp: "append", data: { message: { content: [{ type: "text", text: "S" }] } } }, ...events];
    for (const batch of [events, all]) {
      assert.equal(outcome((c) => c.load(batch)), outcome((c) => c.loadJson(JSON.stringify(batch))), `case ${i}`);
    }
  }
});

// Loads `events` as objects and as their JSON text, both with `name` defined on `prototype`
// (not enumerable) as `value`, and compares what the two conversations show without it.
function assertReadAsTextWithPrototypeMember(events, prototype, name, value) {
  const define = () => Object.defineProperty(prototype, name, { value, configurable: true, writable: true });
  const conversations = [];
  try {
    define();
    const text = JSON.stringify(events);
    for (const load of [(c) => c.load(events), (c) => c.loadJson(text)]) {
      const conversation = new Conversation();
      try {
        load(conversation);
        conversations.push(conversation);
      } catch (error) {
        conversation.free();
        conversations.push({ code: error.code, index: error.index });
      }
    }
  } finally {
    delete prototype[name];
  }
  const [fromObjects, fromText] = conversations.map((c) => (c instanceof Conversation ? observe(c) : JSON.stringify(c)));
  for (const c of conversations) if (c instanceof Conversation) c.free();
  assert.equal(fromObjects, fromText);
  return fromText;
}

test("a toJSON on Object.prototype or Array.prototype reads as JSON text", () => {
  const events = [
    { seq: 1, time: 1, type: "system/message", surfaceOp: "append", data: { message: { content: [{ type: "text", text: "A" }] } } },
    toolsHeader(2, [{ name: "a" }]), toolsHeader(3, [{ name: "a" }]), toolsHeader(4, [{ name: "a" }, { name: "c", v: [1] }]),
    toolsHeader(5, [{ name: "a" }, { name: "c", v: [1] }]),
  ];
  const plain = assertReadAsTextWithPrototypeMember(events, Object.prototype, "unused", 1);
  function renamed() { return this.name === "a" ? { ...this, name: "b" } : this; }
  assert.notEqual(assertReadAsTextWithPrototypeMember(events, Object.prototype, "toJSON", renamed), plain);
  function longer() { return this.length === 1 ? [...this, "added"] : this; }
  assert.notEqual(assertReadAsTextWithPrototypeMember(events, Array.prototype, "toJSON", longer), plain);
});

// A getter of an event's data gives Object.prototype a toJSON in the middle of a batch: the
// events and tools after it read as JSON writes them then.
test("a toJSON given to Object.prototype during a batch reads as JSON text", () => {
  function renamed() { return this.name === "a" ? { ...this, name: "b" } : this; }
  const polluting = {
    seq: 3,
    time: 3,
    type: "request/header",
    get data() {
      Object.defineProperty(Object.prototype, "toJSON", { value: renamed, configurable: true, writable: true });
      return { reason: "change", header: { tools: [{ name: "a" }] } };
    },
  };
  const events = [toolsHeader(1, [{ name: "a" }]), toolsHeader(2, [{ name: "a" }]), polluting, toolsHeader(4, [{ name: "a" }])];
  const observed = [];
  for (const load of [(c) => c.load(events), (c) => c.loadJson(JSON.stringify(events))]) {
    const conversation = new Conversation();
    try {
      load(conversation);
    } finally {
      delete Object.prototype.toJSON;
    }
    observed.push(observe(conversation));
    conversation.free();
  }
  assert.equal(observed[0], observed[1]);
  assert.match(observed[1], /"name":"b"/);
});

// The report of a load or an append of objects hands out the packer's own strings for the
// prompt texts it could (src/wasm/batch.rs, PromptStrings): each must be the text JSON reads,
// whether its blocks are well formed, hold lone surrogates, or split a pair between them.
test("the prompt texts of a report of objects are those of its JSON text", () => {
  const texts = ["plain", "é 你好 😀", "", "\uD800", "a\uDC00b", "\uD83D", "\uDE00", "x\uD83D\uDE00y"];
  const next = random(11);
  const pick = (items) => items[Math.floor(next() * items.length)];
  let odd = 0;
  for (let round = 0; round < 40; round++) {
    const events = [];
    for (let seq = 1; seq <= 24; seq++) {
      const content = Array.from({ length: 1 + Math.floor(next() * 3) }, () =>
        next() < 0.85 ? { type: "text", text: pick(texts) } : { type: "image", data: pick(texts) },
      );
      if (content.some((block) => block.type === "text" && !block.text.isWellFormed())) odd++;
      const type = next() < 0.6 ? "system/message" : "tool/result";
      events.push({ seq, time: seq, type, surfaceOp: "append", data: { turn: 1, step: seq, message: { content } } });
    }
    const text = (batch) => JSON.stringify(batch);
    const reports = [];
    for (const [load, append] of [
      [(c, batch) => c.load(batch), (c, batch) => c.append(batch)],
      [(c, batch) => c.loadJson(text(batch)), (c, batch) => c.appendJson(text(batch))],
    ]) {
      const conversation = new Conversation();
      reports.push(JSON.stringify([load(conversation, events.slice(0, 12)), append(conversation, events.slice(12))]));
      conversation.free();
    }
    assert.equal(reports[0], reports[1], `round ${round}`);
  }
  assert.ok(odd > 20, "texts with lone surrogates are loaded");
});
