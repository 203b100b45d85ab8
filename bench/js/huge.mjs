// Huge inputs: deterministic session logs, and a driver that loads one through the JS API and
// prints time and peak memory as one JSON line. scripts/reliability.sh drives it (and the native
// counterpart, bench/native/huge.rs, reads the same files).
//
//   node bench/js/huge.mjs generate DIR          writes DIR/log-100mb.json, DIR/prompt-1mb.json,
//                                                DIR/events-1m.json (about 100, 2 and 150 MB)
//   node bench/js/huge.mjs run DIR NAME [PATH]   NAME: log-100mb | prompt-1mb | events-1m;
//                                                PATH: json (loadJson of the file's bytes, default)
//                                                or values (JSON.parse, then load(values))
//
// The package is pkg/node (scripts/build.sh builds it), or the folder PROMPTFOLD_PKG names.
// The events come from the shared generator, tests/js/kit/session.mjs.
import { openSync, writeSync, closeSync, mkdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { sessionEvents } from "../../tests/js/kit/session.mjs";

/** The three huge inputs. */
export const INPUTS = {
  "log-100mb": { profile: "large", seed: 100, maxBytes: 100 * 1024 * 1024, promptBytes: 24 * 1024 },
  "prompt-1mb": { profile: "large", seed: 1, maxEvents: 400, promptBytes: 1024 * 1024, updateEvery: 8, compactEvery: 40, rewriteEvery: 30 },
  "events-1m": { profile: "small", seed: 1_000_000, maxEvents: 1_000_000, promptBytes: 2_000 },
};

/** The package's Node build: PROMPTFOLD_PKG (a folder like pkg/node), else pkg/node. */
export async function loadPackage() {
  const dir = process.env.PROMPTFOLD_PKG || join(import.meta.dirname, "..", "..", "pkg", "node");
  return import(pathToFileURL(join(dir, "promptfold.js")).href);
}

function generate(dir) {
  mkdirSync(dir, { recursive: true });
  for (const [name, options] of Object.entries(INPUTS)) {
    const path = join(dir, `${name}.json`);
    const started = performance.now();
    const fd = openSync(path, "w");
    let count = 0;
    let chunk = "[";
    for (const e of sessionEvents(options)) {
      chunk += (count === 0 ? "\n" : ",\n") + JSON.stringify(e);
      count += 1;
      if (chunk.length > 1 << 20) {
        writeSync(fd, chunk);
        chunk = "";
      }
    }
    writeSync(fd, chunk + "\n]\n");
    closeSync(fd);
    const size = statSync(path).size;
    console.log(JSON.stringify({ generated: name, path, events: count, bytes: size, ms: Math.round(performance.now() - started) }));
  }
}

async function run(dir, name, path = "json") {
  const file = join(dir, `${name}.json`);
  const promptfold = await loadPackage();
  const { Conversation } = promptfold;
  const ms = (start) => Math.round((performance.now() - start) * 10) / 10;
  // CPU time (user + system, all of node's threads) next to wall time: on a shared machine the
  // wall time of a step can be much longer than the work it did.
  const cpuMs = (start) => {
    const { user, system } = process.cpuUsage(start);
    return Math.round((user + system) / 100) / 10;
  };
  let cpu;
  const result = { input: name, path, file, bytes: statSync(file).size };
  let t = performance.now();
  const bytes = readFileSync(file);
  result.readMs = ms(t);
  const conversation = new Conversation();
  if (path === "json") {
    [t, cpu] = [performance.now(), process.cpuUsage()];
    conversation.loadJson(bytes);
    [result.loadMs, result.loadCpuMs] = [ms(t), cpuMs(cpu)];
  } else {
    [t, cpu] = [performance.now(), process.cpuUsage()];
    const values = JSON.parse(bytes.toString("utf8"));
    [result.jsonParseMs, result.jsonParseCpuMs] = [ms(t), cpuMs(cpu)];
    [t, cpu] = [performance.now(), process.cpuUsage()];
    conversation.load(values);
    [result.loadMs, result.loadCpuMs] = [ms(t), cpuMs(cpu)];
  }
  result.events = conversation.length;
  [t, cpu] = [performance.now(), process.cpuUsage()];
  const views = conversation.views();
  [result.viewsMs, result.viewsCpuMs] = [ms(t), cpuMs(cpu)];
  result.chatCards = views.chat.length;
  result.requests = views.trajectory.requests.length;
  t = performance.now();
  const last = conversation.stateAt(Number.MAX_SAFE_INTEGER);
  result.stateAtMs = ms(t);
  result.effectivePromptChars = last?.effective?.text.length ?? 0;
  last?.free();
  result.wasmMemoryMB = Math.round(promptfold.wasmMemoryBytes() / 1048576);
  result.jsHeapUsedMB = Math.round(process.memoryUsage().heapUsed / 1048576);
  result.peakRssMB = Math.round(process.resourceUsage().maxRSS / 1024);
  conversation.free();
  console.log(JSON.stringify(result));
}

if (import.meta.url === pathToFileURL(process.argv[1]).href) {
  const [mode, dir, name, path] = process.argv.slice(2);
  if (mode === "generate" && dir) generate(dir);
  else if (mode === "run" && dir && INPUTS[name]) await run(dir, name, path);
  else {
    console.error("usage: node bench/js/huge.mjs generate DIR | run DIR (log-100mb|prompt-1mb|events-1m) [json|values]");
    process.exit(2);
  }
}
