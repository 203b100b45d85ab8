// Real framing through the JS API (BEHAVIOUR.md section 10, FORMAT.md "Cases with a raw log"): every
// conformance case with `rawLog` by the three paths (loadJson of the text as a string and as
// bytes; the bytes fed in pieces of every size from 1 to 4,096 bytes and at seeded random cuts;
// the parsed rows with `load`), then seeded property tests (chunks, feed after load, framing
// that changes no line or view) and bad fed chunks (typed error; window and kept rest unchanged).
// The demo's own reader of framed logs (www/session-log.mjs) is held to the cases' `events` too.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { loadCases, repoRoot } from "./cases.mjs";
import { firstDifference, formatViews } from "./compare.mjs";
import { random } from "./kit/session.mjs";
import { availableParallelism } from "node:os";
import { Worker } from "node:worker_threads";
import { shown, using } from "./framed-pieces.mjs";
import { promptfold } from "./promptfold.mjs";
import { FollowReader, readSessionLog } from "../../www/session-log.mjs";

const { Conversation } = promptfold;
const encoder = new TextEncoder();
const MAX_PIECE = Number(process.env.FRAMED_MAX_PIECE ?? 4096);
const RANDOM_CUTS = 64; // seeded random cuttings per case
const framed = loadCases().filter((kase) => typeof kase.rawLog === "string");
const sessions = join(repoRoot, "examples", "sessions");

/** Rows of JSON-lines text as a program would parse them, the torn line left out. */
function parsedRows(text, tornTail) {
  return text.replace(/^\uFEFF/, "").split("\n")
    .map((line, i) => ({ line: line.replace(/\r$/, ""), number: i + 1 }))
    .filter(({ line, number }) => line.trim() !== "" && number !== tornTail?.line)
    .map(({ line }) => JSON.parse(line));
}

/** Feeds `bytes` cut at the sorted positions `cuts` into `conv` (a new conversation by default). */
function fedAt(bytes, cuts, conv = new Conversation()) {
  let from = 0;
  for (const cut of [...cuts, bytes.length]) {
    if (cut > from) conv.feed(bytes.subarray(from, cut));
    from = Math.max(from, cut);
  }
  return conv;
}

/** What a new conversation shows after `calls(conv)`. */
const shownAfter = (calls) => using(new Conversation(), (conv) => {
  calls(conv);
  return shown(conv);
});

/** The first difference of two `shown` strings. */
const difference = (actual, expected) => difference(actual, expected);

function randomCuts(rand, length) {
  const count = Math.floor(rand() * Math.min(length, 40));
  const cuts = Array.from({ length: count }, () => Math.floor(rand() * (length + 1)));
  return cuts.sort((a, b) => a - b);
}

test("framed cases: the shared cases with a raw log are here", () => {
  assert.ok(framed.length >= 44, `found ${framed.length} framed cases`);
});

test("framed cases: loadJson of the text, as a string and as bytes", () => {
  const failures = [];
  for (const kase of framed) {
    for (const [how, input] of [["string", kase.rawLog], ["bytes", encoder.encode(kase.rawLog)]]) {
      const check = (what, actual, expected) => {
        const difference = firstDifference(actual, expected);
        if (difference) failures.push(`${kase.name}: loadJson(${how}): ${what}: ${difference}`);
      };
      try {
        using(new Conversation(), (conv) => {
          const change = conv.loadJson(input, { hasMore: kase.hasMore ?? false });
          check("window", conv.lines(), kase.expected.window);
          check("final", formatViews(conv, check, "final"), kase.expected.final);
          check("session", conv.session, kase.session);
          check("tornTail", change.tornTail, kase.tornTail);
          if (kase.tornTail === null && "tornTail" in change) failures.push(`${kase.name}: loadJson(${how}): tornTail present (${JSON.stringify(change.tornTail)}) though no line is torn`);
        });
      } catch (error) {
        failures.push(`${kase.name}: loadJson(${how}) threw ${error?.code ?? ""} ${error?.message ?? error}`);
      }
    }
  }
  assert.deepEqual(failures, []);
});

test("framed cases: the parsed rows (the torn line left out) with load", () => {
  const failures = [];
  for (const kase of framed) {
    const rows = parsedRows(kase.rawLog, kase.tornTail);
    try {
      using(new Conversation(), (conv) => {
        conv.load(rows, { hasMore: kase.hasMore ?? false });
        const check = (what, actual, expected) => {
          const difference = firstDifference(actual, expected);
          if (difference) failures.push(`${kase.name}: load(rows): ${what}: ${difference}`);
        };
        check("window", conv.lines(), kase.expected.window);
        check("final", formatViews(conv, check, "final"), kase.expected.final);
        check("session", conv.session, kase.session);
      });
    } catch (error) {
      failures.push(`${kase.name}: load(rows) threw ${error?.code ?? ""} ${error?.message ?? error}`);
    }
  }
  assert.deepEqual(failures, []);
});

test(`framed cases: bytes fed in pieces of every size from 1 to ${MAX_PIECE} bytes`, async () => {
  const started = performance.now();
  const cpu = process.cpuUsage();
  // Shares of about equal cost (bytes times sizes), one worker thread each.
  const threads = Math.max(1, Math.min(availableParallelism(), 4));
  const shares = Array.from({ length: threads }, () => ({ names: [], cost: 0 }));
  const cost = (kase) => Buffer.byteLength(kase.rawLog) * Math.min(MAX_PIECE, Buffer.byteLength(kase.rawLog));
  for (const kase of [...framed].sort((a, b) => cost(b) - cost(a))) {
    const share = shares.reduce((least, next) => (next.cost < least.cost ? next : least));
    share.names.push(kase.name);
    share.cost += cost(kase);
  }
  const results = await Promise.all(shares.filter((share) => share.names.length).map((share) => new Promise((resolve, reject) => {
    const worker = new Worker(new URL("./framed-pieces.mjs", import.meta.url), { workerData: { framedPieces: { names: share.names, maxPiece: MAX_PIECE } } });
    worker.once("message", resolve);
    worker.once("error", reject);
    worker.once("exit", (code) => reject(new Error(`a worker exited with ${code} before it answered`)));
  })));
  const total = (key) => results.reduce((sum, result) => sum + result[key], 0);
  const used = process.cpuUsage(cpu);
  console.log(`framed feed sizes: ${framed.length} cases, ${total("runs")} piece sizes (${total("full")} with every line and view), `
    + `${total("feeds")} feed calls, ${((performance.now() - started) / 1000).toFixed(1)} s on ${threads} threads, `
    + `${((used.user + used.system) / 1e6).toFixed(1)} s of CPU`);
  assert.equal(total("runs"), framed.reduce((sum, kase) => sum + Math.min(MAX_PIECE, Buffer.byteLength(kase.rawLog)), 0), "every size of every case ran");
  assert.deepEqual(results.flatMap((result) => result.failures), []);
});

test("framed cases: bytes fed at seeded random cuts", () => {
  const rand = random(17);
  const failures = [];
  for (const kase of framed) {
    const bytes = encoder.encode(kase.rawLog);
    const expected = shownAfter((conv) => conv.loadJson(bytes));
    for (let round = 0; round < RANDOM_CUTS; round++) {
      const cuts = randomCuts(rand, bytes.length);
      try {
        const actual = using(fedAt(bytes, cuts), (conv) => [shown(conv), conv.session]);
        if (actual[0] !== expected) failures.push(`${kase.name}: cuts ${cuts.join(",")}: ${difference(actual[0], expected)}`);
        const session = firstDifference(actual[1], kase.session);
        if (session) failures.push(`${kase.name}: cuts ${cuts.join(",")}: session: ${session}`);
      } catch (error) {
        failures.push(`${kase.name}: cuts ${cuts.join(",")} threw ${error?.code ?? ""} ${error?.message ?? error}`);
      }
    }
  }
  assert.deepEqual(failures, []);
});

// ---------------------------------------------------------------------------------------------
// Properties (seeded): framing, chunking and feeding after a load change nothing.

/** The case's events written in a random real framing: header or not, envelopes, status rows, CRLF, BOM, blanks. */
function randomFraming(rand, events, session) {
  const end = rand() < 0.5 ? "\r\n" : "\n";
  const rows = [];
  if (session && rand() < 0.7) rows.push(JSON.stringify(session));
  for (const event of events) {
    if (rand() < 0.1) rows.push(JSON.stringify({ jsonrpc: "2.0", method: "session.status", params: { status: "running" } }));
    if (rand() < 0.05) rows.push("");
    rows.push(JSON.stringify(rand() < 0.4 ? { jsonrpc: "2.0", method: "session.event", params: { sessionId: "s", event } } : event));
  }
  const ended = rand() < 0.8;
  const text = (rand() < 0.3 ? "\uFEFF" : "") + rows.join(end) + (ended ? end : "");
  return { text, end: ended ? "" : end, hasHeader: Boolean(session) && rows[0] === JSON.stringify(session) };
}

test("property: a framed log fed in any chunks equals loadJson of the whole, and framing changes no line or view", () => {
  const rand = random(1017);
  const failures = [];
  for (const kase of framed) {
    const plain = shownAfter((conv) => conv.load(kase.events));
    for (let round = 0; round < 8; round++) {
      // `end`: the line end a text without one still needs before feed can know its last line is complete.
      const { text, end, hasHeader } = randomFraming(rand, kase.events, kase.session ?? { type: "session", version: 5, id: "p" });
      const bytes = encoder.encode(text);
      try {
        const whole = using(new Conversation(), (conv) => {
          conv.loadJson(text);
          return [shown(conv), hasHeader === (conv.session !== undefined)];
        });
        if (whole[0] !== plain) failures.push(`${kase.name} round ${round}: loadJson of a framing differs from load(events): ${difference(whole[0], plain)}`);
        if (!whole[1]) failures.push(`${kase.name} round ${round}: session present=${!hasHeader}`);
        const fed = using(fedAt(bytes, randomCuts(rand, bytes.length)), (conv) => {
          if (end) conv.feed(end);
          return shown(conv);
        });
        if (fed !== whole[0]) failures.push(`${kase.name} round ${round}: fed differs from loadJson: ${difference(fed, whole[0])}`);
      } catch (error) {
        failures.push(`${kase.name} round ${round} threw ${error?.code ?? ""} ${error?.message ?? error}`);
      }
    }
  }
  assert.deepEqual(failures, []);
});

test("property: feed after load equals append (and appendJson)", () => {
  const rand = random(2017);
  const failures = [];
  for (const kase of framed) {
    const events = kase.events;
    if (events.length < 2) continue;
    for (let round = 0; round < 6; round++) {
      const k = 1 + Math.floor(rand() * (events.length - 1));
      const head = events.slice(0, k);
      const tail = events.slice(k);
      const tailText = tail.map((e) => JSON.stringify(rand() < 0.5 ? { method: "session.event", params: { event: e } } : e)).join("\n") + "\n";
      const tailBytes = encoder.encode(tailText);
      try {
        const appended = shownAfter((conv) => {
          conv.load(head);
          conv.append(tail);
        });
        const appendedJson = shownAfter((conv) => {
          conv.load(head);
          conv.appendJson(tailText);
        });
        const fed = shownAfter((conv) => {
          conv.load(head);
          fedAt(tailBytes, randomCuts(rand, tailBytes.length), conv);
        });
        if (fed !== appended) failures.push(`${kase.name} split ${k}: feed after load != append: ${difference(fed, appended)}`);
        if (appendedJson !== appended) failures.push(`${kase.name} split ${k}: appendJson != append`);
      } catch (error) {
        failures.push(`${kase.name} split ${k} threw ${error?.code ?? ""} ${error?.message ?? error}`);
      }
    }
  }
  assert.deepEqual(failures, []);
});

test("property: loadJson of a file cut anywhere, then feed of the rest, equals loadJson of the whole", () => {
  // What a viewer that follows a file does: load what is there (a torn last line is kept), then
  // feed what the writer adds.
  const rand = random(4017);
  const failures = [];
  for (const kase of framed) {
    const bytes = encoder.encode(kase.rawLog);
    const whole = shownAfter((conv) => conv.loadJson(bytes));
    for (let round = 0; round < 8; round++) {
      const cut = Math.floor(rand() * (bytes.length + 1));
      try {
        const fed = shownAfter((conv) => {
          conv.loadJson(bytes.subarray(0, cut));
          fedAt(bytes.subarray(cut), randomCuts(rand, bytes.length - cut), conv);
        });
        if (fed !== whole) failures.push(`${kase.name} cut ${cut}: ${difference(fed, whole)}`);
      } catch (error) {
        failures.push(`${kase.name} cut ${cut} threw ${error?.code ?? ""} ${error?.message ?? error}`);
      }
    }
  }
  assert.deepEqual(failures, []);
});

// ---------------------------------------------------------------------------------------------
// Bad input.

const sessionFile = (name) => readFileSync(join(sessions, name));

/**
 * Feeds `good` up to a cut inside a line, then a chunk holding `bad` rows: the call throws
 * `code`, and the window and the kept rest stay as they were, so feeding the correct rest
 * afterwards gives loadJson of the whole.
 */
function rejectsFedChunk(text, cutInside, badChunk, code) {
  const bytes = encoder.encode(text);
  const expected = shownAfter((conv) => conv.loadJson(bytes));
  using(new Conversation(), (conv) => {
    conv.feed(bytes.subarray(0, cutInside));
    const before = shown(conv);
    assert.throws(() => conv.feed(encoder.encode(badChunk)), (error) => {
      assert.equal(error.name, "PromptfoldError");
      assert.equal(error.code, code);
      return true;
    });
    assert.equal(shown(conv), before, "the window is unchanged");
    conv.feed(bytes.subarray(cutInside));
    assert.equal(shown(conv), expected, "the kept rest was unchanged: the correct rest completes the log");
  });
}

/** The bytes of `line` after its first `n` bytes, as text. */
const restAfter = (line, n) => Buffer.from(line, "utf8").subarray(n).toString("utf8");
/** The byte offset `n` bytes into line `index` (0-based) of `text`. */
const into = (text, index, n) => encoder.encode(text.split("\n").slice(0, index).join("\n")).length + 1 + n;

test("bad input: a fed chunk with a bad row throws and keeps the window and the kept rest", () => {
  const text = sessionFile("session.jsonl").toString("utf8");
  const line5 = text.split("\n")[5];
  rejectsFedChunk(text, into(text, 5, 10), 'garbage"}\n', "MALFORMED_JSON");
  rejectsFedChunk(text, into(text, 5, 10), `${restAfter(line5, 10)}\n{"seq":1,"time":1,"type":"turn/start","data":{"turn":9}}\n`, "NON_INCREASING_SEQ");
  rejectsFedChunk(text, into(text, 5, 10), `${restAfter(line5, 10)}\n{"time":1,"type":"turn/start","data":{"turn":9}}\n`, "MISSING_SEQ");
  const seqless = sessionFile("seqless.jsonl").toString("utf8");
  const line3 = seqless.split("\n")[3];
  rejectsFedChunk(seqless, into(seqless, 3, 5), `${restAfter(line3, 5)}\n{"seq":40,"type":"turn/start","data":{"turn":9}}\n`, "INVALID_SEQ");
});

test("bad input: a format 2 header, a seq in a seq-less log, a torn line in the middle", () => {
  const expectCode = (call, code) => using(new Conversation(), (conv) => {
    assert.throws(() => call(conv), (error) => error.code === code);
    assert.equal(conv.length, 0);
    assert.equal(conv.session, undefined);
  });
  const old = sessionFile("format2.jsonl");
  expectCode((conv) => conv.loadJson(old), "UNSUPPORTED_FORMAT_VERSION");
  expectCode((conv) => conv.feed(old), "UNSUPPORTED_FORMAT_VERSION");
  expectCode((conv) => conv.load(parsedRows(old.toString("utf8"))), "UNSUPPORTED_FORMAT_VERSION");
  const seqless = sessionFile("seqless.jsonl").toString("utf8").split("\n");
  seqless[4] = JSON.stringify({ ...JSON.parse(seqless[4]), seq: 3 });
  expectCode((conv) => conv.loadJson(seqless.join("\n")), "INVALID_SEQ");
  const torn = sessionFile("torn.jsonl");
  const middle = Buffer.concat([torn, Buffer.from('\r\n{"seq":999,"time":1,"type":"turn/start","data":{"turn":3}}\r\n')]);
  expectCode((conv) => conv.loadJson(middle), "MALFORMED_JSON");
});

// ---------------------------------------------------------------------------------------------
// The committed session files, and the demo's reader.

/** Asserts two `shown` strings are equal, naming the first difference (not the whole text). */
function sameShown(actual, expected, what) {
  if (actual !== expected) assert.fail(`${what}: ${difference(actual, expected)}`);
}

test("session files: each opens by every path to the lines and views of its plain events", () => {
  const events = readSessionLog(sessionFile("session.jsonl")).events;
  assert.ok(events.length > 20);
  const reference = (list) => shownAfter((conv) => conv.load(list));
  const plain = reference(events);
  // The snapshot form has no times: each reads as 0.
  const untimed = reference(events.map((event) => ({ ...event, time: 0 })));
  for (const [name, expected] of [["session.jsonl", plain], ["notifications.jsonl", plain], ["torn.jsonl", plain], ["seqless.jsonl", untimed]]) {
    const bytes = sessionFile(name);
    using(new Conversation(), (conv) => {
      const change = conv.loadJson(bytes);
      sameShown(shown(conv), expected, `${name}: loadJson`);
      const header = parsedRows(bytes.toString("utf8"), change.tornTail)[0];
      assert.deepEqual(conv.session, header.type === "session" ? header : undefined, `${name}: session`);
      assert.equal(change.tornTail !== undefined, name === "torn.jsonl", `${name}: tornTail`);
    });
    using(fedAt(bytes, randomCuts(random(bytes.length), bytes.length)), (conv) => sameShown(shown(conv), expected, `${name}: fed`));
  }
  const torn = sessionFile("torn.jsonl");
  using(new Conversation(), (conv) => {
    const { tornTail } = conv.loadJson(torn);
    const lastLine = torn.subarray(torn.lastIndexOf(0x0a) + 1);
    assert.deepEqual(tornTail, { line: torn.toString("utf8").split("\n").length, bytes: lastLine.length });
  });
});

test("the demo's reader (www/session-log.mjs) reads every framed case's events, header and torn line", () => {
  const rand = random(3017);
  for (const kase of framed) {
    const read = readSessionLog(kase.rawLog);
    assert.deepEqual(read.events, kase.events, `${kase.name}: events`);
    assert.deepEqual(read.session ?? null, kase.session, `${kase.name}: session`);
    assert.deepEqual(read.tornTail ?? null, kase.tornTail, `${kase.name}: tornTail`);
    const bytes = encoder.encode(kase.rawLog);
    const reader = new FollowReader();
    const events = [];
    let from = 0;
    for (const cut of [...randomCuts(rand, bytes.length), bytes.length]) {
      const piece = reader.read(bytes.subarray(from, Math.max(from, cut)));
      reader.commit(piece);
      events.push(...piece.events);
      from = Math.max(from, cut);
    }
    assert.deepEqual(events, kase.events, `${kase.name}: followed events`);
  }
});
