// promptfold/worker in Node (worker_threads, pkg/worker/node.mjs): an open in the worker gives the
// window a load in this thread gives (info, slices, states); its window messages come newest
// first; calls cross as plain data; an open that fails or is cancelled leaves the session open
// before; bad requests are INVALID_ARGUMENT. (The Web Worker side runs in e2e/big-file.test.mjs.)
import { after, test } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Worker } from "node:worker_threads";
import { repoRoot } from "./cases.mjs";
import { sessionLog } from "./kit/session.mjs";
import { promptfold } from "./promptfold.mjs";

const { WorkerConversation } = await import(join(repoRoot, "pkg", "worker", "client.js"));
const nodeWorker = join(repoRoot, "pkg", "worker", "node.mjs");
const KiB = 1024;

function log(bytes, seed) {
  return new TextEncoder().encode(sessionLog(`s-${seed}`, { profile: "large", seed, maxBytes: bytes }));
}

const dir = mkdtempSync(join(tmpdir(), "promptfold-worker-"));
const first = log(300 * KiB, 3);
const second = log(700 * KiB, 5);
const secondPath = join(dir, "second.jsonl");
writeFileSync(secondPath, second);
const worker = new WorkerConversation(new Worker(nodeWorker));
after(() => {
  worker.terminate();
  rmSync(dir, { recursive: true, force: true });
});

/** What a load in this thread shows: info, every card and request, a few states. */
function local(bytes) {
  const conversation = new promptfold.Conversation();
  try {
    conversation.loadJson(bytes);
    const counts = conversation.viewCounts();
    return {
      info: {
        length: conversation.length,
        hasMore: conversation.hasMore,
        windowStart: conversation.windowStart,
        session: conversation.session,
        counts,
      },
      cards: conversation.cardsSlice({ start: 0, end: counts.cards }),
      requests: conversation.requestsSlice({ start: 0, end: counts.requests }),
      state: conversation.stateAt(conversation.length)?.toJSON(),
    };
  } finally {
    conversation.free();
  }
}

async function remote() {
  const info = await worker.info();
  return {
    info,
    cards: await worker.call("cardsSlice", { start: 0, end: info.counts.cards }),
    requests: await worker.call("requestsSlice", { start: 0, end: info.counts.requests }),
    state: await worker.call("stateAt", info.length),
  };
}

test("calls before any open are INVALID_ARGUMENT", async () => {
  await assert.rejects(worker.info(), { code: "INVALID_ARGUMENT" });
  await assert.rejects(worker.call("views"), { code: "INVALID_ARGUMENT" });
});

test("an open of bytes gives what a load here gives", async () => {
  const progress = [];
  const opened = await worker.open(first, { chunkBytes: 16 * KiB, onProgress: (p) => progress.push(p.bytesRead) });
  const want = local(first);
  assert.deepEqual(opened.info, want.info);
  assert.equal(opened.newestFirst, true);
  assert.deepEqual(await remote(), want);
  assert.deepEqual(progress, [...progress].sort((a, b) => a - b));
  assert.equal(progress.at(-1), first.length);
});

test("an open of a path reads newest first: windows reach back, the last is the whole file", async () => {
  const windows = [];
  const opened = await worker.open(secondPath, {
    chunkBytes: 16 * KiB,
    windowEvery: 0,
    windowCards: 5,
    onWindow: (w) => windows.push(w),
  });
  const want = local(second);
  assert.deepEqual(opened.info, want.info);
  assert.deepEqual(await remote(), want);
  assert.ok(windows.length >= 3);
  assert.ok(windows[0].info.length < want.info.length && windows[0].info.hasMore);
  for (let i = 1; i < windows.length; i++) assert.ok(windows[i].info.windowStart <= windows[i - 1].info.windowStart);
  const last = windows.at(-1);
  assert.equal(last.progress.done, true);
  assert.deepEqual(last.info, want.info);
  const total = want.info.counts.cards;
  assert.ok(total > 5);
  assert.deepEqual(last.newestCards, { total, start: total - 5, cards: want.cards.cards.slice(total - 5) });
  const requests = want.info.counts.requests;
  assert.deepEqual(last.newestRequests, {
    total: requests,
    start: requests - 5,
    requests: want.requests.requests.slice(requests - 5),
  });
  // Each window names where its prompt turns withheld: the first line whose state is uncertain
  // in a load of the same events here (found line by line), or nothing.
  const rows = new TextDecoder().decode(second).split("\n").filter((line) => line !== "");
  const events = rows.slice(1).map((line) => [JSON.parse(line).seq, line]);
  let withheld = 0;
  for (const w of windows) {
    const conversation = new promptfold.Conversation();
    try {
      const text = events.filter(([seq]) => seq >= w.info.windowStart).map(([, line]) => line).join("\n");
      conversation.loadJson(w.info.hasMore ? text : `${rows[0]}\n${text}`, { hasMore: w.info.hasMore });
      assert.equal(conversation.length, w.info.length);
      const lines = conversation.linesSlice({ start: 0, end: conversation.length }).lines;
      const from = lines.find((line) => line.system?.uncertain)?.seq;
      assert.equal(w.withheldFrom, from, `window from ${w.info.windowStart}`);
      if (from !== undefined) withheld += 1;
    } finally {
      conversation.free();
    }
  }
  assert.ok(withheld > 0 && last.withheldFrom === undefined, `${withheld} windows withheld`);
});

test("a failed or cancelled open leaves the session open before", async () => {
  const before = await remote();
  await assert.rejects(worker.open(new TextEncoder().encode('{"cut": "off')), { code: "NOT_A_SESSION_LOG" });
  assert.deepEqual(await remote(), before);
  // Aborted once the open is sent: the cancel reaches the worker between two reads of the file.
  // (A path: Node reads an in-memory Blob without yielding to messages, so bytes would load whole.)
  const controller = new AbortController();
  const cancelled = worker.open(secondPath, { chunkBytes: 4 * KiB, signal: controller.signal });
  setTimeout(() => controller.abort(), 0);
  await assert.rejects(cancelled, (error) => error.name === "AbortError");
  assert.deepEqual(await remote(), before);
});

test("feed crosses: new bytes reach the worker's window, its change report comes back", async () => {
  await worker.open(first);
  const { length } = await worker.info();
  const rows = [];
  for (let i = 1; i <= 40; i++) {
    rows.push(JSON.stringify({ seq: 10_000_000 + i, time: 1_800_000_000_000 + i, type: "turn/start", data: { turn: 90_000 + i } }));
  }
  const change = await worker.call("feed", new TextEncoder().encode(`${rows.join("\n")}\n`));
  assert.deepEqual(change.chat.removed, []);
  assert.equal((await worker.info()).length, length + 40);
});

test("unknown calls and messages are INVALID_ARGUMENT", async () => {
  await assert.rejects(worker.call("free"), { code: "INVALID_ARGUMENT" });
  await assert.rejects(worker.call("constructor"), { code: "INVALID_ARGUMENT" });
});

test("open options of the wrong shape are INVALID_ARGUMENT, and the session open before stays", async () => {
  await worker.open(first, { newestFirst: false });
  const before = await worker.info();
  const wrong = [
    [[], "an array"],
    [5, "a number"],
    [{ newestfirst: true }, "a typo"],
    [{ windowCards: "5" }, "windowCards a string"],
    [{ windowCards: 1.5 }, "windowCards a fraction"],
    [{ windowEvery: -1 }, "windowEvery below 0"],
    // Called in this thread when a progress message came: a TypeError there, never a rejection.
    [{ onProgress: 5 }, "onProgress not a function"],
    [{ onWindow: "x" }, "onWindow not a function"],
    [{ signal: {} }, "signal not an AbortSignal"],
  ];
  for (const [options, what] of wrong) {
    await assert.rejects(
      worker.open(second, options),
      (error) => error.code === "INVALID_ARGUMENT" && /^invalid argument `options`/.test(error.message),
      what,
    );
  }
  assert.deepEqual(await worker.info(), before);
  const opened = await worker.open(second, null);
  assert.equal(opened.info.length, local(second).info.length);
});
