// Bad input through the JS API: each call throws a PromptfoldError with a stable code, the
// offending event's index and seq, and leaves the conversation exactly as it was.
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { join } from "node:path";
import { packageDir, promptfold } from "./promptfold.mjs";

const { Conversation, inspectSystemPrompt, inspectRequestPrompt } = promptfold;
const nodeBuild = join(packageDir, "promptfold.js");

const system = (seq, text, op = "append") => ({
  seq, time: seq, type: "system/message", surfaceOp: op,
  data: { turn: 1, step: 1, message: { role: "system", content: [{ type: "text", text }] } },
});
const header = (seq, reason = "initial") => ({
  seq, time: seq, type: "request/header", data: { reason, header: { config: {}, tools: [] } },
});
const window = [
  { seq: 10, time: 10, type: "turn/start", data: { turn: 1 } },
  { seq: 11, time: 11, type: "step/start", data: { turn: 1, step: 1 } },
  system(12, "A"),
  header(13),
];

function loaded() {
  const conversation = new Conversation();
  conversation.load(window, { hasMore: true });
  return conversation;
}

function snapshot(conversation) {
  return JSON.stringify({
    lines: conversation.lines(),
    views: conversation.views(),
    windowStart: conversation.windowStart,
    hasMore: conversation.hasMore,
    length: conversation.length,
  });
}

function expectRejected(call, { code, index, seq }) {
  const conversation = loaded();
  const before = snapshot(conversation);
  assert.throws(() => call(conversation), (error) => {
    assert.ok(error instanceof Error, "an Error instance");
    assert.equal(error.name, "PromptfoldError");
    assert.equal(error.code, code);
    assert.equal(error.index, index);
    assert.equal(error.seq, seq);
    assert.ok(error.message.length > 0);
    return true;
  });
  assert.equal(snapshot(conversation), before, "the window is unchanged");
  conversation.free();
}

test("malformed JSON text", () => {
  expectRejected((c) => c.appendJson('[{"seq": 20,'), { code: "MALFORMED_JSON" });
  // A line cut short is an error unless it is the last one, with no line end (a torn tail).
  expectRejected((c) => c.loadJson('{"seq": 1}\n{"seq": \n{"seq": 3}\n'), { code: "MALFORMED_JSON" });
  expectRejected((c) => c.loadJson('{"seq": 1}\n{"seq": x}'), { code: "MALFORMED_JSON" });
  const conversation = new Conversation();
  assert.throws(() => conversation.loadJson("[1, 2"), (e) => e.code === "MALFORMED_JSON" && /line 1/.test(e.message));
  assert.throws(() => conversation.loadJson('{"seq":1}\n\n{"seq": x}'), (e) => /line 3/.test(e.message));
  conversation.free();
});

test("binary data says it is not text", () => {
  const gzip = Uint8Array.of(0x1f, 0x8b, 0x08, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x03);
  const png = Uint8Array.of(0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0x00, 0x00, 0x00, 0x0d);
  const afterGoodLines = new TextEncoder().encode('{"seq": 1}\n{"seq": 2}\nab\u0000c\n');
  for (const [bytes, byte, line, column] of [[gzip, "0x1f", 1, 1], [png, "0x89", 1, 1], [afterGoodLines, "0x00", 3, 3]]) {
    const expected = (e) => e.code === "MALFORMED_JSON"
      && e.message.includes(`byte ${byte} is not text`)
      && e.message.includes(`line ${line}, column ${column}`);
    expectRejected((c) => c.loadJson(bytes), { code: "MALFORMED_JSON" });
    const conversation = new Conversation();
    assert.throws(() => conversation.loadJson(bytes), expected, `loadJson of ${byte}`);
    // feed keeps a last line without its line end until more comes.
    if (bytes.at(-1) === 0x0a) assert.throws(() => conversation.feed(bytes), expected, `feed of ${byte}`);
    conversation.free();
  }
  // UTF-16 (what Windows PowerShell 5's `>` writes) is named as such.
  const line = '{"seq": 1}\r\n';
  const utf16 = new Uint8Array(2 + line.length * 2);
  utf16.set([0xff, 0xfe]);
  for (let i = 0; i < line.length; i++) utf16[2 + 2 * i] = line.charCodeAt(i);
  const reader = new Conversation();
  assert.throws(() => reader.loadJson(utf16), (e) => e.code === "MALFORMED_JSON" && /line 1, column 1: the text is UTF-16;/.test(e.message));
  reader.free();
  // Text in another encoding (Latin-1, no control bytes) is not called binary.
  const latin1 = Uint8Array.of(0x7b, 0x22, 0x61, 0x22, 0x3a, 0x22, 0x63, 0x61, 0x66, 0xe9, 0x22, 0x7d, 0x0a);
  const conversation = new Conversation();
  assert.throws(() => conversation.loadJson(latin1), (e) => e.code === "MALFORMED_JSON" && !/not text/.test(e.message));
  conversation.free();
});

/**
 * Bytes whose `length` reads as that of a Uint8Array of `length` bytes (4 GiB or more: what
 * wasm32 cannot hold, and what a u32 wraps), without allocating them: the real buffer holds a
 * valid log, which a reader that believed a wrapped length would read (or part of it).
 */
function claimedLength(length) {
  const text = new TextEncoder().encode('{"seq": 20, "time": 20, "type": "turn/start", "data": {"turn": 2}}\n');
  class Claimed extends Uint8Array {
    get length() {
      return length;
    }
  }
  return new Claimed(text);
}

test("bytes of 4 GiB or more: OUT_OF_MEMORY, not a wrapped length", () => {
  // 2^32 wraps to 0 as a u32 (read as an empty batch), 2^32 + 21 to 21 (part of the log).
  for (const length of [2 ** 32, 2 ** 32 + 21, 2 ** 40]) {
    const bytes = claimedLength(length);
    assert.ok(bytes instanceof Uint8Array);
    const rejected = { code: "OUT_OF_MEMORY", index: undefined, seq: undefined };
    expectRejected((c) => c.loadJson(bytes), rejected);
    expectRejected((c) => c.appendJson(bytes), rejected);
    expectRejected((c) => c.prependJson(bytes), rejected);
    expectRejected((c) => c.feed(bytes), rejected);
  }
  // The same bytes under their own length are a valid batch: only the length is refused.
  const conversation = loaded();
  conversation.appendJson(new Uint8Array(claimedLength(0).buffer));
  assert.equal(conversation.length, window.length + 1);
  conversation.free();
});

test("a non-array", () => {
  expectRejected((c) => c.append({ seq: 20 }), { code: "NOT_AN_ARRAY" });
  expectRejected((c) => c.load("[]"), { code: "NOT_AN_ARRAY" });
  expectRejected((c) => c.prepend(undefined), { code: "NOT_AN_ARRAY" });
  expectRejected((c) => c.loadJson("42"), { code: "NOT_AN_ARRAY" });
});

test("load options: an object or nothing, never a bare flag", () => {
  const older = [{ seq: 1, time: 1, type: "turn/start", data: { turn: 1 } }];
  // The pre-1.0 calls took a boolean where the options go: they throw instead of meaning false.
  expectRejected((c) => c.load(window, true), { code: "INVALID_ARGUMENT" });
  expectRejected((c) => c.load(window, false), { code: "INVALID_ARGUMENT" });
  expectRejected((c) => c.prepend(older, false), { code: "INVALID_ARGUMENT" });
  expectRejected((c) => c.loadJson("[]", true), { code: "INVALID_ARGUMENT" });
  expectRejected((c) => c.prependJson("[]", 0), { code: "INVALID_ARGUMENT" });
  expectRejected((c) => c.load(window, { hasMore: 1 }), { code: "INVALID_ARGUMENT" });
  expectRejected((c) => c.prepend(older, { hasMore: "yes" }), { code: "INVALID_ARGUMENT" });
  assert.throws(() => new Conversation().load(window, "x"), (e) => e.code === "INVALID_ARGUMENT" && /options/.test(e.message));
  // Absent, null, {} and { hasMore: undefined } all mean hasMore: false.
  for (const options of [undefined, null, {}, { hasMore: undefined }, { hasMore: false }]) {
    const conversation = new Conversation();
    conversation.load(window, { hasMore: true });
    conversation.load(window, options);
    assert.equal(conversation.hasMore, false, JSON.stringify(options));
    conversation.free();
  }
  const conversation = new Conversation();
  conversation.loadJson(JSON.stringify(window), { hasMore: true });
  assert.equal(conversation.hasMore, true);
  conversation.prependJson(JSON.stringify(older), {});
  assert.equal(conversation.hasMore, false);
  conversation.load(window.slice(2), { hasMore: true });
  conversation.prepend(window.slice(0, 2), { hasMore: true });
  assert.equal(conversation.hasMore, true);
  conversation.free();
});

test("an element that is not an event object", () => {
  expectRejected((c) => c.append([{ seq: 20, time: 20, type: "x" }, 7]), { code: "NOT_AN_OBJECT", index: 1 });
  expectRejected((c) => c.append([null]), { code: "NOT_AN_OBJECT", index: 0 });
});

// After an element that is not an event object, the later elements that are not objects are not
// packed (values JSON cannot write, and JSON nested too deeply, are still reported first, as
// malformed text is): a sparse array of any length fails at its first hole without packing each
// hole as null.
test("events after an element that is not an event object", () => {
  const event = (seq) => ({ seq, time: seq, type: "x" });
  expectRejected((c) => c.append([event(20), undefined, { ...event(22), time: 1n }]), { code: "UNSUPPORTED_VALUE", index: 2 });
  expectRejected((c) => c.append([event(20), null, 5, 1n]), { code: "UNSUPPORTED_VALUE", index: 3 });
  const throwing = [event(20), undefined, event(22)];
  Object.defineProperty(throwing, 2, { get() { throw new Error("getter"); } });
  expectRejected((c) => c.append(throwing), { code: "UNSUPPORTED_VALUE", index: 2 });
  let deep = 1;
  for (let i = 0; i < 400; i++) deep = [deep];
  const deepHeader = { seq: 22, time: 22, type: "request/header", data: { reason: "initial", header: { config: deep, tools: [] } } };
  expectRejected((c) => c.append([event(20), null, deepHeader]), { code: "MALFORMED_JSON" });
  expectRejected((c) => c.appendJson(JSON.stringify([event(20), null, deepHeader])), { code: "MALFORMED_JSON" });
  // In a fresh process, so that what earlier tests grew does not hide the growth.
  const script = `
    const { Conversation, wasmMemoryBytes } = require(${JSON.stringify(nodeBuild)});
    const sparse = new Array(2_000_000);
    sparse[0] = { seq: 20, time: 20, type: "x" };
    const before = wasmMemoryBytes();
    let code;
    try { new Conversation().append(sparse); } catch (error) { code = error.code + " " + error.index; }
    console.log(JSON.stringify({ code, grown: wasmMemoryBytes() - before }));`;
  const run = spawnSync(process.execPath, ["-e", script], { encoding: "utf8" });
  assert.equal(run.status, 0, run.stderr);
  const { code, grown } = JSON.parse(run.stdout);
  assert.equal(code, "NOT_AN_OBJECT 1");
  // The room reserved for the numbers (2^18 events of 12 numbers) and little more.
  assert.ok(grown < 40 << 20, `the wasm memory grew by ${grown} bytes`);
});

test("an event without seq, or with a seq that is not a safe integer", () => {
  expectRejected((c) => c.append([{ time: 1, type: "user/message", data: {} }]), { code: "MISSING_SEQ", index: 0 });
  expectRejected((c) => c.append([{ seq: 20.5, time: 1, type: "x" }]), { code: "INVALID_SEQ", index: 0 });
  expectRejected((c) => c.append([{ seq: "21", time: 1, type: "x" }]), { code: "INVALID_SEQ", index: 0 });
  expectRejected((c) => c.append([{ seq: 2 ** 60, time: 1, type: "x" }]), { code: "INVALID_SEQ", index: 0 });
});

test("a non-increasing seq", () => {
  expectRejected((c) => c.append([{ seq: 13, time: 1, type: "x" }]), { code: "NON_INCREASING_SEQ", index: 0, seq: 13 });
  expectRejected((c) => c.append([{ seq: 20, type: "x" }, { seq: 20, type: "x" }]), { code: "NON_INCREASING_SEQ", index: 1, seq: 20 });
  expectRejected((c) => c.load([{ seq: 5, type: "x" }, { seq: 4, type: "x" }]), { code: "NON_INCREASING_SEQ", index: 1, seq: 4 });
});

test("a prepended page not older than the window", () => {
  expectRejected((c) => c.prepend([{ seq: 8, type: "x" }, { seq: 10, type: "x" }]), { code: "PREPEND_NOT_OLDER", index: 1, seq: 10 });
  expectRejected((c) => c.prependJson('[{"seq": 30, "type": "x"}]'), { code: "PREPEND_NOT_OLDER", index: 0, seq: 30 });
});

test("a wrong surfaceOp shape", () => {
  const bad = (surfaceOp) => [{ seq: 20, time: 20, type: "user/message", data: {}, surfaceOp }];
  expectRejected((c) => c.append(bad("prepend")), { code: "INVALID_SURFACE_OP", index: 0, seq: 20 });
  expectRejected((c) => c.append(bad({ op: "delete", startSeq: 11, endSeq: 12 })), { code: "INVALID_SURFACE_OP", index: 0, seq: 20 });
  expectRejected((c) => c.append(bad({ op: "replace", startSeq: 11 })), { code: "INVALID_SURFACE_OP", index: 0, seq: 20 });
  expectRejected((c) => c.append(bad({ op: "replace", startSeq: 11, endSeq: 25 })), { code: "INVALID_SURFACE_OP", index: 0, seq: 20 });
  expectRejected((c) => c.append(bad(3)), { code: "INVALID_SURFACE_OP", index: 0, seq: 20 });
});

test("values JSON cannot write: BigInt and cycles", () => {
  const cyclicTools = [];
  cyclicTools.push(cyclicTools);
  const cyclicHeader = { seq: 21, type: "request/header", data: { header: { tools: cyclicTools } } };
  const throwing = { seq: 21, type: "x", get data() { throw new Error("no"); } };
  expectRejected((c) => c.append([{ seq: 20, type: "x" }, { seq: 21n, type: "x" }]), { code: "UNSUPPORTED_VALUE", index: 1 });
  expectRejected((c) => c.append([{ seq: 20, type: "x" }, cyclicHeader]), { code: "UNSUPPORTED_VALUE", index: 1 });
  expectRejected((c) => c.append([{ seq: 20, type: "x" }, throwing]), { code: "UNSUPPORTED_VALUE", index: 1 });
  // Reported before an invalid event earlier in the batch, as malformed text is.
  expectRejected((c) => c.append([{ seq: 20, type: "x" }, { type: "no seq" }, cyclicHeader]), { code: "UNSUPPORTED_VALUE", index: 2 });
  // Members the rules never read are never looked at: a cycle or a BigInt there is no error.
  const cyclic = { seq: 20, type: "tool/result", data: { output: 1n } };
  cyclic.data.self = cyclic;
  const conversation = loaded();
  conversation.append([cyclic]);
  assert.equal(conversation.length, 5);
  // What JSON cannot hold is dropped, as JSON.stringify drops it: a symbol seq is a missing seq.
  expectRejected((c) => c.append([{ seq: Symbol("s"), type: "x" }]), { code: "MISSING_SEQ", index: 0 });
});

test("config and tools nest as deeply from JS objects as in JSON text, and no deeper", () => {
  const nested = (depth) => JSON.parse(`${"[".repeat(depth)}${"]".repeat(depth)}`);
  const header = (depth) => ({ seq: 20, type: "request/header", data: { header: { tools: nested(depth) } } });
  // In a JSON array of events the tools sit inside four containers: 252 more is the most.
  for (const load of [(c, events) => c.append(events), (c, events) => c.appendJson(JSON.stringify(events))]) {
    const conversation = loaded();
    load(conversation, [header(252)]);
    assert.equal(conversation.length, 5);
    conversation.free();
    // Too deep after an invalid event: nesting wins, as malformed text does.
    expectRejected((c) => load(c, [{ seq: 20, type: "x" }, { type: "no seq" }, { ...header(253), seq: 22 }]), { code: "MALFORMED_JSON" });
  }
});

test("unknown types and fields are ignored, not rejected", () => {
  const conversation = loaded();
  const change = conversation.append([
    { seq: 20, time: 20, type: "brand/new", data: { anything: [1, { x: 2 }] }, extra: true },
    { seq: 21, type: "system/message", data: { turn: "one", message: { content: "not an array" } } },
  ]);
  assert.equal(conversation.length, 6);
  assert.equal(change.chat.added.length, 0);
  conversation.free();
});

test("plain functions: bad arguments", () => {
  assert.throws(() => inspectSystemPrompt(undefined, { type: "system/message" }), (e) => e.code === "MISSING_SEQ");
  assert.throws(() => inspectSystemPrompt({ not: "a state" }, system(1, "A")), (e) => e.code === "INVALID_ARGUMENT");
  assert.throws(() => inspectSystemPrompt(undefined, system(1, "A"), { windowStart: "x" }), (e) => e.code === "INVALID_ARGUMENT");
  // NaN and the infinities cross as JSON null, which meant no window start.
  for (const windowStart of [NaN, Infinity, -Infinity, null]) {
    assert.throws(() => inspectSystemPrompt(undefined, system(1, "A"), { windowStart }), (e) => e.code === "INVALID_ARGUMENT", String(windowStart));
  }
  assert.equal(inspectSystemPrompt(undefined, system(1, "A"), { windowStart: undefined }).firstSeq, 1, "undefined: no window start");
  assert.throws(() => inspectRequestPrompt(undefined, system(1, "A"), undefined), (e) => e.code === "NOT_A_REQUEST_HEADER" && e.seq === 1);
  assert.throws(() => inspectRequestPrompt(undefined, header(2), { seq: "x" }), (e) => e.code === "INVALID_ARGUMENT");
  const freed = inspectSystemPrompt(undefined, system(1, "A"));
  freed.free();
  assert.throws(() => inspectSystemPrompt(freed, system(2, "B")), (e) => e.code === "FREED");
});

test("a seq that is neither a number nor undefined is INVALID_ARGUMENT; other numbers are points in seq order", () => {
  const conversation = loaded();
  const before = snapshot(conversation);
  const methods = ["contextAt", "contextSummaryAt", "indexOfSeq", "requestAt", "stateAt"];
  // Each was converted as Number() converts it: "13" was seq 13, null and "" seq 0, true seq 1,
  // [13] seq 13; a BigInt or a Symbol threw a TypeError.
  for (const method of methods) {
    for (const value of ["13", "", null, true, [13], {}, 13n, Symbol("seq")]) {
      assert.throws(() => conversation[method](value), (error) => {
        assert.equal(error.name, "PromptfoldError", `${method}(${String(value)}): ${error.message}`);
        assert.equal(error.code, "INVALID_ARGUMENT", `${method}(${String(value)})`);
        assert.match(error.message, /^invalid argument `seq`: expected a number, found /);
        return true;
      });
    }
    assert.doesNotThrow(() => conversation[method](13));
  }
  assert.throws(() => conversation.indexOfSeq(null), /found null$/);
  assert.throws(() => conversation.stateAt("13"), /found string$/);
  // NaN and undefined are no seq (docs/api.md): undefined, or the empty context.
  for (const none of [NaN, undefined]) {
    assert.equal(conversation.stateAt(none), undefined);
    assert.equal(conversation.requestAt(none), undefined);
    assert.equal(conversation.indexOfSeq(none), undefined);
    assert.deepEqual(conversation.contextAt(none).nodes, []);
    assert.equal(conversation.contextSummaryAt(none).totalTokens, 0);
  }
  // Numbers that are no event's seq answer as the docs say: after every event with seq <= it.
  assert.equal(conversation.stateAt(-1), undefined);
  assert.equal(conversation.stateAt(12.5)?.effective?.seq, 12);
  assert.equal(conversation.stateAt(Infinity)?.effective?.seq, 12);
  assert.deepEqual(conversation.contextAt(-1).nodes, []);
  assert.deepEqual(conversation.contextAt(Infinity), conversation.contextAt(13));
  assert.equal(conversation.indexOfSeq(12.5), undefined);
  assert.equal(conversation.requestAt(-13), undefined);
  assert.equal(snapshot(conversation), before, "the window is unchanged");
  conversation.free();
});

test("the caller's state handle stays valid after being passed as previous", () => {
  const first = inspectSystemPrompt(undefined, system(1, "A"));
  const second = inspectSystemPrompt(first, system(2, "B"));
  assert.equal(first.effective.text, "A");
  assert.equal(second.effective.text, "B");
  assert.equal(second.effective.update, true);
  assert.deepEqual([...second.replacements], []);
  const third = inspectSystemPrompt(second, { seq: 3, time: 3, type: "user/message", surfaceOp: { op: "replace", startSeq: 2, endSeq: 2 } });
  assert.deepEqual([...third.replacements], [[3, 2]]);
  assert.equal(third.effective.text, "A");
  assert.equal(first.effective.text, "A");
  for (const state of [first, second, third]) state.free();
});
