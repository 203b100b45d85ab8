// Wasm memory after reading a session file whole (`loadJson` of its bytes), in pieces (`feed`,
// 1 MiB at a time) and as a stream (`openSession` of a Node read stream), each in a fresh
// process so that none sees another's memory.
//
//   node bench/js/stream-memory.mjs generate FILE MB [PROFILE]  writes a JSON lines session file
//                                                               (header row, then the shared
//                                                               generator's events) of about MB
//   node bench/js/stream-memory.mjs run FILE HOW                prints one JSON line; HOW is
//                                                               loadJson, feed, open, appendJson
//                                                               (loadJson of the first MiB's
//                                                               lines, then appendJson of the
//                                                               rest, bytes) or prependJson
//                                                               (loadJson of the last MiB's
//                                                               lines, then prependJson of the
//                                                               rest); only the last call timed
//   node bench/js/stream-memory.mjs compare FILE [RUNS] [HOWS]  runs each RUNS times (default 3),
//                                                               taking turns, and prints medians
//                                                               (HOWS: comma-separated, default
//                                                               loadJson,feed,open)
//
// The package is pkg/node (scripts/build.sh builds it), or the folder PROMPTFOLD_PKG names.
import { execFileSync } from "node:child_process";
import { closeSync, createReadStream, openSync, readFileSync, statSync, writeSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { feedFile } from "./feed-file.mjs";
import { sessionEvents } from "../../tests/js/kit/session.mjs";

const [, script, command, file, ...rest] = process.argv;
const MiB = 1024 * 1024;

function generate(path, megabytes, profile = "large") {
  const fd = openSync(path, "w");
  const header = { type: "session", version: 4, id: "s-bench", createdAt: 1_700_000_000_000, cwd: "/w" };
  let chunk = `${JSON.stringify(header)}\n`;
  let events = 0;
  for (const event of sessionEvents({ profile, seed: 31, maxBytes: megabytes * MiB })) {
    chunk += `${JSON.stringify(event)}\n`;
    events += 1;
    if (chunk.length > MiB) {
      writeSync(fd, chunk);
      chunk = "";
    }
  }
  writeSync(fd, chunk);
  closeSync(fd);
  console.log(JSON.stringify({ path, profile, events, bytes: statSync(path).size }));
}

async function run(path, how) {
  const dir = process.env.PROMPTFOLD_PKG || join(import.meta.dirname, "..", "..", "pkg", "node");
  const promptfold = await import(pathToFileURL(join(dir, "promptfold.js")).href);
  let conversation = new promptfold.Conversation();
  const before = promptfold.wasmMemoryBytes();
  const started = performance.now();
  // The time of the call measured, when it is not the whole of `how`.
  let timed;
  if (how === "open") {
    conversation.free();
    ({ conversation } = await promptfold.openSession(createReadStream(path, { highWaterMark: MiB })));
  } else if (how === "loadJson") {
    conversation.loadJson(readFileSync(path));
  } else if (how === "appendJson" || how === "prependJson") {
    timed = splitCall(conversation, readFileSync(path), how);
  } else {
    feedFile(conversation, path);
  }
  const ms = timed ?? performance.now() - started;
  console.log(
    JSON.stringify({
      how,
      events: conversation.length,
      ms: Math.round(ms),
      wasmBefore: before,
      wasmAfter: promptfold.wasmMemoryBytes(),
      rssMB: Math.round(process.memoryUsage().rss / MiB),
    }),
  );
}

/**
 * appendJson: loads the lines of the file's first MiB, then appends the rest; prependJson: loads
 * the lines of its last MiB (older events exist), then prepends the rest. Returns the
 * milliseconds of the second call.
 */
function splitCall(conversation, bytes, how) {
  const lineEnd = (from) => bytes.indexOf(10, Math.max(0, Math.min(from, bytes.length - 1))) + 1;
  if (how === "appendJson") {
    const at = lineEnd(MiB);
    conversation.loadJson(bytes.subarray(0, at));
    const started = performance.now();
    conversation.appendJson(bytes.subarray(at));
    return performance.now() - started;
  }
  const at = lineEnd(bytes.length - MiB);
  conversation.loadJson(bytes.subarray(at), { hasMore: true });
  const started = performance.now();
  conversation.prependJson(bytes.subarray(0, at));
  return performance.now() - started;
}

function compare(path, runs = 3, hows = "loadJson,feed,open") {
  const results = Object.fromEntries(hows.split(",").map((how) => [how, []]));
  for (let i = 0; i < runs; i++) {
    for (const how of Object.keys(results)) {
      const line = execFileSync(process.execPath, [script, "run", path, how], { encoding: "utf8" });
      results[how].push(JSON.parse(line));
    }
  }
  const median = (values) => values.toSorted((a, b) => a - b)[Math.floor(values.length / 2)];
  const summary = {};
  for (const [how, lines] of Object.entries(results)) {
    summary[how] = {
      events: lines[0].events,
      ms: median(lines.map((line) => line.ms)),
      wasmMB: Math.round(median(lines.map((line) => line.wasmAfter)) / MiB),
      rssMB: median(lines.map((line) => line.rssMB)),
    };
  }
  if (summary.feed) {
    for (const how of Object.keys(results)) {
      if (how !== "feed") summary[`${how}/feed`] = Math.round((summary[how].wasmMB / summary.feed.wasmMB) * 100) / 100;
    }
  }
  console.log(JSON.stringify({ bytes: statSync(path).size, runs, ...summary }));
}

if (command === "generate") generate(file, Number(rest[0]), rest[1]);
else if (command === "run") await run(file, rest[0]);
else if (command === "compare") compare(file, Number(rest[0] ?? 3), rest[1]);
else throw new Error("usage: see the header of bench/js/stream-memory.mjs");
