// Bytes of 4 GiB given to loadJson, appendJson, prependJson and feed (on demand: it needs about
// 5 GB of RAM for a few seconds):
//
//   node bench/js/past-ceiling.mjs
//
// A Uint8Array of 2^32 bytes (Node 20's longest): a small session log, then spaces (valid JSON
// lines, which no wasm32 memory can hold whole). Each call must throw OUT_OF_MEMORY and leave its
// window as it was; a reader that took the length as a u32 saw 0 bytes and loaded nothing. Prints
// one JSON line per call. The package is pkg/node, or PROMPTFOLD_PKG.
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { sessionEvents } from "../../tests/js/kit/session.mjs";

const dir = process.env.PROMPTFOLD_PKG || join(import.meta.dirname, "..", "..", "pkg", "node");
const { Conversation } = await import(pathToFileURL(join(dir, "promptfold.js")).href);

const header = { type: "session", version: 4, id: "s-past", createdAt: 1_700_000_000_000, cwd: "/w" };
const lines = [JSON.stringify(header)];
for (const event of sessionEvents({ profile: "small", seed: 5, maxEvents: 200 })) lines.push(JSON.stringify(event));
const log = new TextEncoder().encode(`${lines.join("\n")}\n`);

const bytes = new Uint8Array(2 ** 32);
bytes.fill(0x20);
bytes.set(log, 0);

for (const call of ["loadJson", "appendJson", "prependJson", "feed"]) {
  const conversation = new Conversation();
  conversation.loadJson(log.subarray(0, log.indexOf(10) + 1));
  const before = conversation.length;
  const started = performance.now();
  let outcome;
  try {
    conversation[call](bytes);
    outcome = { returned: true, events: conversation.length };
  } catch (error) {
    outcome = { code: error.code ?? null, error: String(error), unchanged: conversation.length === before };
  }
  const ms = Math.round(performance.now() - started);
  console.log(JSON.stringify({ call, length: bytes.length, ms, ...outcome }));
  conversation.free();
}
const after = new Conversation();
after.loadJson(log);
console.log(JSON.stringify({ afterwards: "small log", events: after.length }));
