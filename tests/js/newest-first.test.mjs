// openSession's newest-first reading (docs/session-logs.md, "Newest first"): a Blob read from its
// end, the newest page loaded first and older pages prepended, ends with exactly what reading it
// from the start gives (views, lines, header, torn tail), whatever the page size; the first
// window it reports is the file's newest events; logs that cannot be read backwards (zstd, a
// seq-less log, one chunk) are read from the start; an abort frees the new conversation.
import { test } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import * as fzstd from "fzstd";
import { repoRoot } from "./cases.mjs";
import { sessionLog } from "./kit/session.mjs";
import { promptfold } from "./promptfold.mjs";

const { openSession } = promptfold;
const encoder = new TextEncoder();
const sessions = join(repoRoot, "examples", "sessions");
const KiB = 1024;

/** A JSON lines log: header, then `bytes` of generated events (some lines longer than 16 KiB). */
function log(bytes, seed = 7) {
  return encoder.encode(sessionLog("s-newest", { profile: "large", seed, maxBytes: bytes }));
}

function shown(conversation) {
  return {
    length: conversation.length,
    session: conversation.session,
    windowStart: conversation.windowStart,
    hasMore: conversation.hasMore,
    views: conversation.views(),
    lines: conversation.lines(),
  };
}

async function read(bytes, options) {
  const windows = [];
  const opened = await openSession(new Blob([bytes]), {
    zstd: fzstd,
    ...options,
    onWindow: (conversation, progress) =>
      windows.push({ length: conversation.length, windowStart: conversation.windowStart, done: progress.done }),
  });
  try {
    return { shown: shown(opened.conversation), tornTail: opened.tornTail, newestFirst: opened.newestFirst, windows };
  } finally {
    opened.conversation.free();
  }
}

const generated = log(600 * KiB);

for (const [name, bytes] of [
  ["generated 600 KB", generated],
  ["no line end at the end", generated.subarray(0, generated.length - 1)],
  ["a torn last line", encoder.encode(`${new TextDecoder().decode(generated)}{"seq": 999999, "ty`)],
  ["notifications.jsonl", readFileSync(join(sessions, "notifications.jsonl"))],
]) {
  for (const chunkBytes of [4 * KiB, 64 * KiB]) {
    test(`newest first equals from the start: ${name}, ${chunkBytes / KiB} KiB pages`, async () => {
      const forward = await read(bytes, { chunkBytes });
      const backward = await read(bytes, { chunkBytes, newestFirst: true });
      assert.equal(forward.newestFirst, false);
      assert.equal(backward.newestFirst, bytes.length > chunkBytes);
      assert.deepEqual(backward.shown, forward.shown);
      assert.deepEqual(backward.tornTail, forward.tornTail);
      if (!backward.newestFirst) return;
      // The first window holds the newest events only; each later one reaches further back.
      const [first, ...rest] = backward.windows;
      assert.ok(first.length > 0 && first.length < forward.shown.length, "the first window is the newest page");
      assert.ok(first.windowStart > forward.shown.windowStart);
      for (let i = 1; i < rest.length; i++) assert.ok(rest[i].windowStart <= rest[i - 1].windowStart);
      assert.deepEqual(backward.windows.at(-1), { length: forward.shown.length, windowStart: forward.shown.windowStart, done: true });
    });
  }
}

test("logs that cannot be read backwards are read from the start, with the same result", async () => {
  const zstd = new Uint8Array(execFileSync("zstd", ["-q", "-3", "-c"], { input: generated, maxBuffer: 1 << 28 }));
  const seqless = readFileSync(join(sessions, "seqless.jsonl"));
  for (const [name, bytes, chunkBytes] of [
    ["zstd", zstd, 4 * KiB],
    ["seq-less", seqless, 256],
    ["one chunk", generated, generated.length],
  ]) {
    const forward = await read(bytes, { chunkBytes });
    const backward = await read(bytes, { chunkBytes, newestFirst: true });
    assert.equal(backward.newestFirst, false, name);
    assert.deepEqual(backward.shown, forward.shown, name);
  }
});

test("an abort while reading newest first rejects and frees the new conversation", async () => {
  const controller = new AbortController();
  let windows = 0;
  const before = promptfold.wasmMemoryBytes();
  await assert.rejects(
    openSession(new Blob([generated]), {
      chunkBytes: 4 * KiB,
      newestFirst: true,
      signal: controller.signal,
      onWindow: () => {
        windows += 1;
        if (windows === 2) controller.abort();
      },
    }),
    (error) => error.name === "AbortError",
  );
  assert.equal(windows, 2);
  assert.ok(promptfold.wasmMemoryBytes() >= before);
});

test("a file that is no session log read newest first is NOT_A_SESSION_LOG", async () => {
  const bytes = encoder.encode(`${"\n".repeat(10 * KiB)}`);
  await assert.rejects(openSession(new Blob([bytes]), { chunkBytes: KiB, newestFirst: true }), { code: "NOT_A_SESSION_LOG" });
});
