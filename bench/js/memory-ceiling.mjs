// loadJson at wasm32's ceiling (on demand: it needs about 9 GB of RAM and minutes):
//
//   node bench/js/memory-ceiling.mjs bytes [MiB_BELOW]   a Uint8Array of 4 GiB minus MiB_BELOW
//                                                        (default 1) of JSON lines
//   node bench/js/memory-ceiling.mjs string [MiB_BELOW]  a string of V8's longest length minus
//                                                        MiB_BELOW Mi characters
//
// The text is a small-profile session (tests/js/kit/session.mjs) cut at the last line that fits.
// The call must load it or throw a PromptfoldError (OUT_OF_MEMORY), and the module must then
// still load a small log. Prints one JSON line. The package is pkg/node, or PROMPTFOLD_PKG.
import { constants } from "node:buffer";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { sessionEvents } from "../../tests/js/kit/session.mjs";

const [, , kind = "bytes", below = "1"] = process.argv;
const MiB = 1024 * 1024;
const dir = process.env.PROMPTFOLD_PKG || join(import.meta.dirname, "..", "..", "pkg", "node");
const promptfold = await import(pathToFileURL(join(dir, "promptfold.js")).href);

/** Lines of JSON text of one session, header first, until `limit` units are written. */
function* lines(limit) {
  const header = { type: "session", version: 4, id: "s-ceiling", createdAt: 1_700_000_000_000, cwd: "/w" };
  const first = JSON.stringify(header);
  let size = first.length + 1;
  yield first;
  for (const event of sessionEvents({ profile: "small", seed: 41 })) {
    const line = JSON.stringify(event);
    if (size + line.length + 1 > limit) return;
    size += line.length + 1;
    yield line;
  }
}

function bytesText(length) {
  // A Buffer: Node 20's TextEncoder.encodeInto writes nothing into arrays of 2 GiB or more.
  const text = Buffer.allocUnsafe(length);
  let at = 0;
  for (const line of lines(length)) {
    // An explicit length: Node 20 writes nothing when the room after `at` is 2 GiB or more.
    at += text.write(`${line}\n`, at, Math.min(length - at, 2 ** 30));
  }
  return text.subarray(0, at);
}

function stringText(length) {
  const parts = [];
  let part = "";
  for (const line of lines(length)) {
    part += `${line}\n`;
    if (part.length > 16 * MiB) {
      parts.push(part);
      part = "";
    }
  }
  parts.push(part);
  return parts.join("");
}

const ceiling = kind === "string" ? constants.MAX_STRING_LENGTH : Math.min(constants.MAX_LENGTH, 4 * 1024 * MiB);
const size = ceiling - Number(below) * MiB;
let started = performance.now();
const text = kind === "string" ? stringText(size) : bytesText(size);
const made = performance.now() - started;
const conversation = new promptfold.Conversation();
let outcome;
started = performance.now();
try {
  conversation.loadJson(text);
  outcome = { loaded: conversation.length };
} catch (error) {
  outcome = { name: error.name, code: error.code, message: String(error.message).slice(0, 200) };
}
const ms = performance.now() - started;
const wasmAfter = promptfold.wasmMemoryBytes();
conversation.free();
let works = false;
try {
  const after = new promptfold.Conversation();
  after.loadJson('{"seq":1,"time":1,"type":"user/message","surfaceOp":"append","data":{}}\n');
  works = after.length === 1;
} catch (error) {
  works = String(error);
}
console.log(
  JSON.stringify({
    kind,
    ceiling,
    textLength: text.length,
    belowCeiling: ceiling - text.length,
    makeMs: Math.round(made),
    loadMs: Math.round(ms),
    outcome,
    wasmAfter,
    moduleWorksAfter: works,
    rssMB: Math.round(process.memoryUsage().rss / MiB),
  }),
);
