// Unit tests of the packer (src/wasm/js/pack.js) on its own, without the wasm module: a batch of
// JS events is packed into a WebAssembly.Memory of the test's own, and the numbers and texts are
// read back as src/input/parse/packed.rs reads them (8 numbers an event: tag, seq, time, surface
// operation, start, end, turn, step; a system message adds its text's length and its tokens; a header adds its
// reason, its series flag, and for config and tools -1 when absent, -2 when the previous header's
// JSON, else the length of its JSON text; a message (tags 8 to 11) adds its content's token cost,
// an assistant message then its usage (-1 absent, else the length of its JSON text); an event
// that crosses as JSON is tag 0 and its length).
import assert from "node:assert/strict";
import test from "node:test";
import { jsonLength } from "../../src/wasm/js/json-length.js";
import { comparisons, promptfoldPackBatch } from "../../src/wasm/js/pack.js";
import { random } from "./kit/session.mjs";

const decoder = new TextDecoder();

// Packs `events` with room for `room` numbers and, after them, `textRoom` bytes of text; returns
// the numbers and the text, or the index the packer reported.
function pack(events, room = events.length * 12 + 64, onMemory = () => {}, textRoom = 0) {
  const memory = new WebAssembly.Memory({ initial: Math.ceil((room * 8 + textRoom) / 65536) + 1 });
  onMemory(memory);
  const textAddress = room * 8;
  const parts = promptfoldPackBatch(events, memory, 0, room, textAddress, textRoom);
  if (typeof parts === "number") return parts;
  const [count, moved, promptNumbers, promptStrings, written, ...chunks] = parts;
  assert.ok(written <= textRoom);
  const numbers = moved === null ? new Float64Array(memory.buffer, 0, count) : moved;
  const inRoom = new Uint8Array(memory.buffer, textAddress, written);
  const bytes = new Uint8Array(chunks.reduce((sum, chunk) => sum + chunk.length, written));
  bytes.set(inRoom);
  let at = written;
  for (const chunk of chunks) {
    bytes.set(chunk, at);
    at += chunk.length;
  }
  // The system messages whose texts the packer hands back as strings: [seq, UTF-8 length, text].
  const prompts = promptStrings.map((text, i) => [promptNumbers[2 * i], promptNumbers[2 * i + 1], text]);
  return {
    numbers: Array.from(numbers),
    text: decoder.decode(bytes),
    inWasm: moved === null,
    prompts,
    written,
    bytes: bytes.length,
  };
}

// Reads the packed records back into one plain object per event.
function unpack({ numbers, text }) {
  const events = [];
  let n = 0;
  let t = 0;
  const next = () => numbers[n++];
  const string = () => {
    const length = next();
    const bytes = new TextEncoder().encode(text).subarray(t, t + length);
    t += length;
    return decoder.decode(bytes);
  };
  const json = () => {
    const length = numbers[n];
    if (length < 0) return next() === -1 ? "absent" : "same";
    return string();
  };
  while (n < numbers.length) {
    const tag = next();
    if (tag === 0) {
      events.push({ asJson: string() });
      continue;
    }
    const event = {
      tag,
      seq: next(),
      time: next(),
      op: next(),
      start: next(),
      end: next(),
      turn: next(),
      step: next(),
    };
    if (tag === 1) Object.assign(event, { text: string(), tokens: next() });
    if (tag === 2) Object.assign(event, { reason: next(), series: next(), config: json(), tools: json() });
    if (tag >= 8) event.tokens = next();
    if (tag === 9) event.usage = json();
    events.push(event);
  }
  return events;
}

const system = (seq, texts, op = "append") => ({
  seq,
  time: seq * 10,
  type: "system/message",
  surfaceOp: op,
  data: { turn: 1, step: 2, message: { role: "system", content: texts.map((text) => ({ type: "text", text })) } },
});
const header = (seq, tools, config = { model: "m" }) => ({
  seq,
  time: seq * 10,
  type: "request/header",
  data: { turn: 1, step: 2, reason: "change", header: { config, tools } },
});
const tools = (leaf) => [{ name: "read", parameters: { type: "object", properties: { path: { type: leaf } } } }];

test("each event is packed as its numbers and texts", () => {
  const events = [
    system(1, ["A", "ü"]),
    header(2, tools("string")),
    { seq: 3, time: null, type: "turn/start", data: { turn: 4 } },
    { seq: 4, type: "tool/result", surfaceOp: { op: "replace", startSeq: 1, endSeq: 2 }, data: { turn: "x" } },
  ];
  const [prompt, request, turn, result] = unpack(pack(events));
  // "Aü": 2 units, ceil(2 / 4) + 4.
  assert.deepEqual(prompt, {
    tag: 1,
    seq: 1,
    time: 10,
    op: 1,
    start: 0,
    end: 0,
    turn: 1,
    step: 2,
    text: "Aü",
    tokens: 5,
  });
  assert.deepEqual(request, {
    ...{ tag: 2, seq: 2, time: 20, op: 0, start: 0, end: 0, turn: 1, step: 2, reason: 3, series: 0 },
    ...{ config: JSON.stringify({ model: "m" }), tools: JSON.stringify(tools("string")) },
  });
  // A JSON null is NaN; a value that is not a number, Infinity.
  assert.equal(turn.tag, 3);
  assert.ok(Number.isNaN(turn.time));
  assert.deepEqual([turn.turn, turn.step], [4, Number.POSITIVE_INFINITY]);
  assert.deepEqual(
    [result.tag, result.op, result.start, result.end, result.turn, result.tokens],
    [10, 2, 1, 2, Number.POSITIVE_INFINITY, 0],
  );
});

test("each type and reason has its tag, and another name of the same length the other tag", () => {
  // The tags of src/input/parse/packed.rs, and for each length a name that is none of them.
  const types = [
    ["system/message", 1],
    ["request/header", 2],
    ["turn/start", 3],
    ["turn/end", 4],
    ["step/start", 5],
    ["step/end", 6],
    ["user/message", 8],
    ["assistant/message", 9],
    ["tool/result", 10],
    ["developer/message", 11],
    ["step/enD", 7],
    ["turn/stArt", 7],
    ["tool/resulT", 7],
    ["user/messagE", 7],
    ["system/messagE", 7],
    ["assistant/messagE", 7],
    ["", 7],
    ["session", 7],
  ];
  const events = types.map(([type], i) => ({ seq: i + 1, type, data: {} }));
  assert.deepEqual(
    unpack(pack(events)).map((event) => event.tag),
    types.map(([, tag]) => tag),
  );
  const reasons = [
    ["initial", 1],
    ["resume", 2],
    ["change", 3],
    ["series", 4],
    ["initiaL", 0],
    ["seriEs", 0],
    ["", 0],
  ];
  const headers = reasons.map(([reason], i) => ({ seq: i + 1, type: "request/header", data: { reason } }));
  assert.deepEqual(
    unpack(pack(headers)).map((event) => event.reason),
    reasons.map(([, tag]) => tag),
  );
});

test("a system message's text is handed back as its string when it reads back as that string", () => {
  const events = [
    system(1, ["A", "ü"]),
    system(2, ["\uD83D", "\uDE00"]),
    system(3, ["x\uD800"]),
    system(4, ["", "😀"]),
    system(5, []),
    // Sent as JSON text (a boxed type): nothing handed back for it.
    { ...system(6, ["boxed"]), type: new String("system/message") },
    system(7, ["tail"]),
  ];
  const { prompts } = pack(events);
  assert.deepEqual(prompts, [
    [1, 3, "Aü"],
    [4, 4, "😀"],
    [7, 4, "tail"],
  ]);
});

test("messages are packed with their content's token cost and an answer's usage", () => {
  const usage = { inputTokens: 12, cacheReadTokens: 8 };
  const events = [
    // "hello" is 5 units: ceil(5 / 4) + 4 = 6; an image block 4 + ceil(JSON length / 4).
    { seq: 1, type: "user/message", data: { content: [{ type: "text", text: "hello" }, { type: "image" }] } },
    { seq: 2, type: "assistant/message", data: { message: { content: "abcdefgh", usage } } },
    { seq: 3, type: "assistant/message", data: { message: { content: [] }, usage } },
    {
      seq: 4,
      type: "tool/result",
      data: { message: { content: [{ type: "tool-call", name: "read", arguments: "{}" }] } },
    },
    { seq: 5, type: "developer/message", data: { message: "not an object" } },
  ];
  const packed = unpack(pack(events));
  const image = 4 + Math.ceil(JSON.stringify({ type: "image" }).length / 4);
  assert.deepEqual(
    packed.map((event) => [event.tag, event.tokens, event.usage]),
    [
      [8, 6 + image, undefined],
      [9, 6, JSON.stringify(usage)],
      [9, 0, JSON.stringify(usage)],
      [10, 1 + 1 + 4, undefined],
      [11, 0, undefined],
    ],
  );
});

test("config and tools equal to the previous header's cross as a marker", () => {
  const packed = unpack(pack([header(1, tools("string")), header(2, tools("string")), header(3, tools("number"))]));
  assert.deepEqual(
    packed.map((event) => [event.config, event.tools]),
    [
      [JSON.stringify({ model: "m" }), JSON.stringify(tools("string"))],
      ["same", "same"],
      ["same", JSON.stringify(tools("number"))],
    ],
  );
});

// The first GENERIC_COMPARISONS (4,096) comparisons of the process walk with the generic
// matchers, the rest with those written out per depth: the markers must not depend on which.
test("the generic and the per-depth matchers give the same markers", () => {
  comparisons.made = 0;
  const events = [];
  for (let seq = 1; seq <= 5000; seq++) {
    // Every 7th header changes a leaf at depth 5 of its tools, every 11th the key order.
    const leaf = seq % 7 === 0 ? `t${seq}` : "string";
    const list = tools(leaf);
    if (seq % 11 === 0) list[0] = { parameters: list[0].parameters, name: "read" };
    events.push(header(seq, list));
  }
  const packed = unpack(pack(events));
  for (const [i, event] of packed.entries()) {
    const expected =
      i > 0 && JSON.stringify(events[i].data.header.tools) === JSON.stringify(events[i - 1].data.header.tools)
        ? "same"
        : JSON.stringify(events[i].data.header.tools);
    assert.equal(event.tools, expected, `header ${i + 1}`);
  }
});

// The count that chooses the walk runs over the batches: each header after the first compares its
// config and tools, and the count stops at GENERIC_COMPARISONS.
test("the comparisons are counted over every batch, up to GENERIC_COMPARISONS", () => {
  comparisons.made = 0;
  const batch = (count) => Array.from({ length: count }, (_, i) => header(i + 1, tools(`t${i}`)));
  pack(batch(10));
  assert.equal(comparisons.made, 18);
  pack(batch(3));
  assert.equal(comparisons.made, 22);
  pack(batch(3000));
  assert.equal(comparisons.made, 4096);
  pack(batch(2));
  assert.equal(comparisons.made, 4096);
});

test("an event the packer cannot take apart crosses as the JSON of what the rules read", () => {
  const odd = { ...header(1, tools("string")), toJSON: () => ({ seq: 1, type: "turn/start" }) };
  const boxed = { seq: 2, type: new String("turn/end"), data: { turn: 1, output: "never read" } };
  const [first, second, third] = unpack(pack([odd, boxed, header(3, tools("string"))]));
  assert.deepEqual(first, { asJson: JSON.stringify({ seq: 1, type: "turn/start" }) });
  assert.deepEqual(JSON.parse(second.asJson), { seq: 2, type: "turn/end", data: { turn: 1 } });
  // After an event sent as JSON, the next header sends its values in full.
  assert.equal(third.tools, JSON.stringify(tools("string")));
});

test("a value JSON cannot write, or a getter that throws, gives the event's index", () => {
  assert.equal(pack([system(1, ["A"]), { seq: 2, type: "x", data: { turn: 1n } }]), 1);
  const throwing = {
    seq: 3,
    get type() {
      throw new Error("no");
    },
  };
  assert.equal(pack([system(1, ["A"]), system(2, ["B"]), throwing]), 2);
});

test("numbers past the room, and a memory that grows while packing, stay exact", () => {
  const events = Array.from({ length: 50 }, (_, i) => system(i + 1, [`prompt ${i}`]));
  const expected = unpack(pack(events));
  const short = pack(events, 16);
  assert.equal(short.inWasm, false);
  assert.deepEqual(unpack(short), expected);
  // A getter that grows the memory empties the packer's view of it mid-batch.
  let memory;
  const growing = events.map((event, i) =>
    i === 10
      ? {
          ...event,
          get time() {
            memory.grow(1);
            return event.time;
          },
        }
      : event,
  );
  const grown = pack(growing, undefined, (made) => {
    memory = made;
  });
  assert.equal(grown.inWasm, true);
  assert.deepEqual(unpack(grown), expected);
  const grownText = pack(
    growing,
    undefined,
    (made) => {
      memory = made;
    },
    1 << 12,
  );
  assert.deepEqual(unpack(grownText), expected);
  assert.equal(grownText.written, grownText.bytes);
});

test("texts written into the room in wasm memory, then into chunks, read back the same", () => {
  const texts = ["plain", "é and 😀 and ✓", "x".repeat(300), "\ud800 lone", ""];
  const events = [
    ...texts.map((text, i) => system(i + 1, [text, "second block"])),
    { seq: 10, type: "user/message", data: { content: "ask" } },
    { seq: 11, type: "request/header", data: { header: { config: { model: "m" }, tools: [{ name: "é" }] } } },
    { seq: 12, type: "assistant/message", data: { message: { content: [], usage: { input_tokens: 3 } } } },
    { seq: 13, type: "request/header", data: { header: { config: { model: "n" }, tools: [{ name: "😀" }] } } },
  ];
  const whole = pack(events);
  const expected = unpack(whole);
  assert.equal(whole.written, 0);
  // Every room from none to more than the texts: each split of the texts between the room and
  // the chunks, including in the middle of a text and before a character of 2 to 4 bytes.
  for (let textRoom = 0; textRoom <= whole.bytes + 8; textRoom++) {
    const packed = pack(events, undefined, () => {}, textRoom);
    assert.equal(packed.text, whole.text, `room ${textRoom}`);
    assert.deepEqual(unpack(packed), expected, `room ${textRoom}`);
    assert.deepEqual(packed.prompts, whole.prompts, `room ${textRoom}`);
    // The room is filled up to the last whole character that fits.
    if (textRoom >= whole.bytes) assert.equal(packed.written, whole.bytes);
    else assert.ok(textRoom - packed.written <= 3, `room ${textRoom}: ${packed.written} written`);
  }
  // An event that crosses as JSON after a text that did not fit: the texts it had written are
  // taken back, and the room is written again from where it was.
  const odd = system(2, ["cdefgh"]);
  // A block that is not plain data, after a text the packer has written.
  odd.data.message.content.push(new Date(0));
  const batch = [system(1, ["ab"]), odd, system(3, ["ij"])];
  const oddWhole = pack(batch);
  assert.equal(unpack(oddWhole)[1].asJson.includes("cdefgh"), true);
  for (let textRoom = 0; textRoom <= oddWhole.bytes; textRoom++) {
    assert.equal(pack(batch, undefined, () => {}, textRoom).text, oddWhole.text, `room ${textRoom}`);
  }
});

// jsonLength walks plain data without writing it; whatever the value, it must equal
// JSON.stringify's length (null's for what JSON leaves out, -1 when JSON cannot write it).
test("jsonLength equals JSON.stringify's length on random and odd values", () => {
  const rand = random(0x5eed);
  const pick = (items) => items[Math.floor(rand() * items.length)];
  const characters = [
    "a",
    "é",
    "日",
    '"',
    "\\",
    "\n",
    "\t",
    "\b",
    "\f",
    "\r",
    "\u0000",
    "\u001f",
    "\u007f",
    "\u2028",
    "😀",
    "\ud83d",
    "\ude00",
    " ",
    "/",
    "<",
  ];
  // Short texts, and some longer than the 32 units jsonLength checks one at a time.
  const text = () =>
    Array.from({ length: Math.floor(rand() < 0.2 ? 30 + rand() * 20 : rand() * 12) }, () => pick(characters)).join("");
  const numbers = [
    0,
    -0,
    1,
    -1,
    9,
    10,
    99,
    100,
    12345,
    -98765,
    2 ** 53 - 1,
    -(2 ** 53 - 1),
    2 ** 53,
    1e21,
    1e-7,
    0.1,
    -1.5e300,
    5e-324,
    Number.MAX_VALUE,
    Number.NaN,
    Infinity,
    -Infinity,
    999999999999999,
    1e15,
    1e16,
  ];
  const date = new Date(0);
  const value = (depth) => {
    const kind = Math.floor(rand() * (depth > 4 ? 6 : 10));
    switch (kind) {
      case 0:
        return text();
      case 1:
        return pick(numbers) * (rand() < 0.3 ? rand() : 1);
      case 2:
        return rand() < 0.5;
      case 3:
        return null;
      case 4:
        return pick([undefined, () => 1, Symbol("s"), date, new String("boxed"), { toJSON: () => "t" }]);
      case 5:
        return Math.floor(rand() * 1e6);
      case 6:
      case 7:
        return Array.from({ length: Math.floor(rand() * 5) }, () => value(depth + 1));
      default: {
        const record = rand() < 0.1 ? Object.create(null) : {};
        for (let i = Math.floor(rand() * 5); i > 0; i--)
          record[pick([text(), "type", "10", "2", "text"])] = value(depth + 1);
        return record;
      }
    }
  };
  for (let i = 0; i < 20000; i++) {
    const v = value(0);
    assert.equal(jsonLength(v), (JSON.stringify(v) ?? "null").length, JSON.stringify(v));
  }
  const cyclic = { a: [1] };
  cyclic.a.push(cyclic);
  let deep = [];
  for (let i = 0; i < 200; i++) deep = [deep, { k: "\n" }];
  const sparse = [1, 2, 3];
  delete sparse[1];
  for (const odd of [
    cyclic,
    { big: 1n },
    1n,
    deep,
    sparse,
    [undefined, () => 1],
    { a: undefined },
    Object.assign([1], { x: 2 }),
  ]) {
    let expected;
    try {
      expected = (JSON.stringify(odd) ?? "null").length;
    } catch {
      expected = -1;
    }
    assert.equal(jsonLength(odd), expected);
  }
  // A member on Object.prototype that for...in would meet and JSON does not.
  Object.prototype.inherited = "x";
  try {
    for (const record of [{ a: 1 }, { b: [{ c: "d" }] }])
      assert.equal(jsonLength(record), JSON.stringify(record).length);
  } finally {
    delete Object.prototype.inherited;
  }
});

// A long text (past the 32 units checked one at a time) holding one character JSON may escape,
// alone among plain ones, at its start, middle or end: each kind is found on its own (a text
// of random characters almost always holds several kinds at once).
test("jsonLength finds each escaped character alone in a long text", () => {
  const plain = "plain text, long enough to be checked as a whole ";
  for (const character of ['"', "\\", "\n", "\u0000", "\u001f", "\ud83d", "\ude00", "😀", "é", "\u007f"]) {
    for (const at of [0, 20, plain.length]) {
      const text = plain.slice(0, at) + character + plain.slice(at);
      assert.equal(jsonLength(text), JSON.stringify(text).length, JSON.stringify(text));
      assert.equal(jsonLength({ text }), JSON.stringify({ text }).length);
    }
  }
});
