// openSession (a session file read as a stream) and loadJson of bytes read in pieces: every kind
// of source, plain and zstd, gives what `loadJson` of the same bytes gives; progress is monotonic
// and ends at the total; an abort rejects and leaves nothing loaded; a source with no header and
// no event is NOT_A_SESSION_LOG.
import { test } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { Readable } from "node:stream";
import * as fzstd from "fzstd";
import { repoRoot } from "./cases.mjs";
import { sessionEvents } from "./kit/session.mjs";
import { promptfold } from "./promptfold.mjs";

const { Conversation, openSession } = promptfold;
const encoder = new TextEncoder();
const sessions = join(repoRoot, "examples", "sessions");
const MiB = 1024 * 1024;

/** A session log of about `bytes` bytes: header, then generated events with non-ASCII text. */
function bigLog(bytes) {
  const header = { type: "session", version: 4, id: "s-open", createdAt: 1_790_000_000_000, cwd: "/w" };
  const lines = [JSON.stringify(header)];
  let size = 0;
  for (const event of sessionEvents({ profile: "large", seed: 31, maxBytes: bytes })) {
    if (event.type === "assistant/message" || event.seq % 5 === 0) event.note = "é€😀".repeat(1 + (event.seq % 7));
    const line = JSON.stringify(event);
    lines.push(line);
    size += line.length;
  }
  assert.ok(size > 2 * MiB || bytes < 2 * MiB);
  return `${lines.join("\n")}\n`;
}

/** Everything a viewer reads from a conversation. */
function shownBy(conversation) {
  return {
    length: conversation.length,
    session: conversation.session,
    windowStart: conversation.windowStart,
    views: conversation.views(),
    lines: conversation.lines(),
  };
}

function loaded(bytes) {
  const conversation = new Conversation();
  const change = conversation.loadJson(bytes);
  return { shown: shownBy(conversation), tornTail: change.tornTail };
}

function zstdOf(bytes) {
  return new Uint8Array(execFileSync("zstd", ["-q", "-3", "-c"], { input: bytes, maxBuffer: 1 << 30 }));
}

/** Each kind of source for `bytes`, cut into `piece`-byte chunks where the kind allows. */
const SOURCES = {
  blob: (bytes) => new Blob([bytes]),
  "web stream": (bytes, piece) =>
    new ReadableStream({
      start(controller) {
        for (let at = 0; at < bytes.length; at += piece) controller.enqueue(bytes.slice(at, at + piece));
        controller.close();
      },
    }),
  "node stream": (bytes, piece) => {
    const chunks = [];
    for (let at = 0; at < bytes.length; at += piece) chunks.push(Buffer.from(bytes.subarray(at, at + piece)));
    return Readable.from(chunks);
  },
};

const plainLog = encoder.encode(bigLog(3 * MiB));
const texts = {
  "session.jsonl": readFileSync(join(sessions, "session.jsonl")),
  "torn.jsonl": readFileSync(join(sessions, "torn.jsonl")),
  "generated 3 MB": plainLog,
  "no line end at the end": plainLog.subarray(0, plainLog.length - 1),
};

test("every source, plain and zstd, gives what loadJson of the same bytes gives", async () => {
  for (const [name, bytes] of Object.entries(texts)) {
    const expected = loaded(bytes);
    const compressed = zstdOf(bytes);
    for (const [kind, make] of Object.entries(SOURCES)) {
      for (const [form, input] of [
        ["plain", bytes],
        ["zstd", compressed],
      ]) {
        const label = `${name}, ${kind}, ${form}`;
        const opened = await openSession(make(input, 65_536 + 7), { zstd: fzstd, chunkBytes: 300_001 });
        assert.deepEqual(shownBy(opened.conversation), expected.shown, label);
        assert.deepEqual(opened.tornTail, expected.tornTail, label);
        assert.equal(opened.compression, form === "zstd" ? "zstd" : "none", label);
        assert.equal(opened.bytesRead, input.length, label);
        assert.equal(opened.textBytes, bytes.length, label);
        opened.conversation.free();
      }
    }
  }
});

test("the committed zstd session file opens as its plain text loads", async () => {
  const expected = loaded(texts["session.jsonl"]);
  const opened = await openSession(new Blob([readFileSync(join(sessions, "session.jsonl.zst"))]), { zstd: fzstd });
  assert.deepEqual(shownBy(opened.conversation), expected.shown);
});

test("a zstd source without a decoder is INVALID_ARGUMENT", async () => {
  await assert.rejects(openSession(new Blob([zstdOf(texts["session.jsonl"])])), { code: "INVALID_ARGUMENT" });
});

test("progress is monotonic and ends at the total", async () => {
  for (const [kind, make] of Object.entries(SOURCES)) {
    const reports = [];
    const opened = await openSession(make(plainLog, 100_000), {
      chunkBytes: 250_000,
      onProgress: (progress) => reports.push(progress),
    });
    assert.ok(reports.length > 10, `${kind}: ${reports.length} reports`);
    for (const [i, report] of reports.entries()) {
      const before = reports[i - 1];
      assert.equal(report.done, i === reports.length - 1, kind);
      assert.ok(report.bytesPerSecond >= 0 && Number.isFinite(report.bytesPerSecond), kind);
      if (before === undefined) continue;
      assert.ok(report.bytesRead >= before.bytesRead, kind);
      assert.ok(report.textBytes >= before.textBytes, kind);
      assert.ok(report.events >= before.events, kind);
      assert.ok(report.seconds >= before.seconds, kind);
    }
    const last = reports.at(-1);
    assert.equal(last.bytesRead, plainLog.length, kind);
    assert.equal(last.textBytes, plainLog.length, kind);
    assert.equal(last.events, opened.conversation.length, kind);
    assert.equal(last.totalBytes, kind === "blob" ? plainLog.length : undefined, kind);
    opened.conversation.free();
  }
});

test("an abort mid-way rejects with an AbortError and leaves the caller's conversation as it was", async () => {
  const mine = new Conversation();
  mine.loadJson(texts["session.jsonl"]);
  const before = shownBy(mine);
  for (const [kind, make] of Object.entries(SOURCES)) {
    const controller = new AbortController();
    let reports = 0;
    const opening = openSession(make(plainLog, 100_000), {
      signal: controller.signal,
      chunkBytes: 100_000,
      onProgress: () => {
        reports += 1;
        if (reports === 3) controller.abort();
      },
    });
    await assert.rejects(opening, { name: "AbortError" }, kind);
    assert.equal(reports, 3, `${kind}: no progress after the abort`);
  }
  assert.deepEqual(shownBy(mine), before);
});

test("an abort ends a read that waits for a stream that sends nothing more", async () => {
  const controller = new AbortController();
  const head = encoder.encode(`${readFileSync(join(sessions, "session.jsonl"), "utf8").split("\n")[0]}\n`);
  const stalled = new ReadableStream({
    start(stream) {
      stream.enqueue(head);
    },
  });
  const opening = openSession(stalled, { signal: controller.signal, onProgress: () => controller.abort() });
  await assert.rejects(opening, { name: "AbortError" });
  const reason = new Error("closed by the viewer");
  const already = new AbortController();
  already.abort(reason);
  await assert.rejects(openSession(new Blob([head]), { signal: already.signal }), (error) => error === reason);
});

test("a source with no header and no event is NOT_A_SESSION_LOG", async () => {
  const cut = encoder.encode('{"type":"session","version":4,"id":"s-1","cwd":"/very/long/pa');
  for (const bytes of [cut, encoder.encode(""), encoder.encode("\n\n")]) {
    for (const [kind, make] of Object.entries(SOURCES)) {
      await assert.rejects(
        openSession(make(bytes, 7)),
        (error) =>
          error.name === "PromptfoldError" &&
          error.code === "NOT_A_SESSION_LOG" &&
          /not a session log/.test(error.message) &&
          error.message.includes(`${bytes.length} bytes`),
        kind,
      );
    }
  }
  // A header alone is a session log (a session just started).
  const header = encoder.encode('{"type":"session","version":4,"id":"s-1"}\n');
  const opened = await openSession(new Blob([header]));
  assert.equal(opened.conversation.length, 0);
  assert.equal(opened.conversation.session.id, "s-1");
});

test("a bad row fails the open with the error loadJson gives, its line counted through the file", async () => {
  const lines = new TextDecoder().decode(plainLog).split("\n");
  const bad = lines.length - 20;
  lines[bad] = lines[bad].replace('"seq":', '"seq":"x",');
  const bytes = encoder.encode(lines.join("\n"));
  let expected;
  try {
    new Conversation().loadJson(bytes);
  } catch (error) {
    expected = error;
  }
  assert.equal(expected?.code, "MALFORMED_JSON");
  for (const [kind, make] of Object.entries(SOURCES)) {
    await assert.rejects(openSession(make(bytes, 65_536), { chunkBytes: 200_000 }), (error) => {
      assert.equal(error.code, expected.code, kind);
      assert.equal(error.message, expected.message, kind);
      return true;
    });
  }
});

test("bad options and sources are INVALID_ARGUMENT", async () => {
  const blob = new Blob([texts["session.jsonl"]]);
  for (const options of [true, { chunkBytes: 0 }, { chunkBytes: 1.5 }, { onProgress: 1 }, { signal: {} }, { zstd: {} }]) {
    await assert.rejects(openSession(blob, options), { code: "INVALID_ARGUMENT" }, JSON.stringify(options));
  }
  for (const source of [undefined, "text", 42, texts["session.jsonl"]]) {
    await assert.rejects(openSession(source), { code: "INVALID_ARGUMENT" });
  }
  await assert.rejects(openSession(Readable.from(["a string chunk\n"])), { code: "INVALID_ARGUMENT" });
});

test("loadJson, appendJson and prependJson of bytes read past 1 MiB pieces as of the string", () => {
  const text = bigLog(3 * MiB);
  const bytes = encoder.encode(text);
  const fromString = new Conversation();
  const fromBytes = new Conversation();
  assert.deepEqual(fromBytes.loadJson(bytes), fromString.loadJson(text));
  assert.deepEqual(shownBy(fromBytes), shownBy(fromString));
  // A torn tail and an error past the first pieces: the same report and the same error.
  const torn = text.slice(0, text.length - 40);
  assert.deepEqual(new Conversation().loadJson(encoder.encode(torn)).tornTail, new Conversation().loadJson(torn).tornTail);
  const lines = text.split("\n");
  lines[lines.length - 30] = lines[lines.length - 30].replace("{", "{,");
  const broken = lines.join("\n");
  const errorOf = (input) => {
    try {
      new Conversation().loadJson(input);
    } catch (error) {
      return { code: error.code, message: error.message };
    }
  };
  assert.equal(errorOf(broken).code, "MALFORMED_JSON");
  assert.deepEqual(errorOf(encoder.encode(broken)), errorOf(broken));
  // appendJson and prependJson: the halves of the log, as bytes, give the whole log.
  const whole = text.split("\n");
  const half = Math.floor(whole.length / 2);
  const older = `${whole.slice(0, half).join("\n")}\n`;
  const newer = whole.slice(half).join("\n");
  const brokenNewer = lines.slice(half).join("\n");
  const appended = new Conversation();
  appended.loadJson(encoder.encode(older));
  appended.appendJson(encoder.encode(newer));
  assert.deepEqual(shownBy(appended), shownBy(fromString));
  const prepended = new Conversation();
  prepended.loadJson(encoder.encode(newer), { hasMore: true });
  prepended.prependJson(encoder.encode(older));
  assert.deepEqual(prepended.views(), fromString.views());
  // A bad append leaves the window as it was.
  assert.throws(() => appended.appendJson(encoder.encode(brokenNewer)), { code: "MALFORMED_JSON" });
  assert.deepEqual(shownBy(appended), shownBy(fromString));
});
