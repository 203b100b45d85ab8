// "Sessions of any size" (BENCHMARKS.md): a session file loaded whole by `loadJson` of its bytes,
// or fed in 1 MiB pieces by `feed`, each in a fresh node process, then `views()` once.
//
//   node bench/js/sessions.mjs run FILE loadJson|feed      prints one JSON line
//
// After the load and before `views()`, the first paint of a virtual list is timed: the newest 50
// cards and the newest 50 requests (`viewCounts`, `cardsSlice`, `requestsSlice`).
//   node bench/js/sessions.mjs table RUNS FILE...          runs both ways RUNS times per file,
//                                                          taking turns, and prints a Markdown
//                                                          table of medians
//
// Files: `node bench/js/stream-memory.mjs generate FILE MB small|large`. The package is
// pkg/node (scripts/build.sh), or the folder PROMPTFOLD_PKG names. Wasm memory only grows, so
// "wasm memory" after the load is the load's peak in wasm; peak RSS is the process's maxRSS
// (the bytes of the file read whole by `loadJson` included).
import { execFileSync } from "node:child_process";
import { readFileSync, statSync } from "node:fs";
import { basename, join } from "node:path";
import { pathToFileURL } from "node:url";
import { feedFile } from "./feed-file.mjs";

const [, script, command, ...rest] = process.argv;
const MB = 1e6;

async function run(path, how) {
  const dir = process.env.PROMPTFOLD_PKG || join(import.meta.dirname, "..", "..", "pkg", "node");
  const promptfold = await import(pathToFileURL(join(dir, "promptfold.js")).href);
  const conversation = new promptfold.Conversation();
  const bytes = statSync(path).size;
  let error;
  // CPU time (user and system, all threads) beside wall time: on a busy machine the wall time
  // of a load is mostly waiting for a core.
  const cpu = process.cpuUsage();
  const started = performance.now();
  try {
    if (how === "loadJson") {
      conversation.loadJson(readFileSync(path));
    } else {
      feedFile(conversation, path);
    }
  } catch (caught) {
    error = caught.code ?? String(caught);
  }
  const loadMs = performance.now() - started;
  const { user, system } = process.cpuUsage(cpu);
  const cpuMs = (user + system) / 1000;
  const wasmAfterLoad = promptfold.wasmMemoryBytes();
  const events = conversation.length;
  let viewsMs;
  let cards;
  let sliceMs;
  if (error === undefined) {
    const sliceStarted = performance.now();
    const counts = conversation.viewCounts();
    conversation.cardsSlice({ start: Math.max(0, counts.cards - 50), end: counts.cards });
    conversation.requestsSlice({ start: Math.max(0, counts.requests - 50), end: counts.requests });
    sliceMs = performance.now() - sliceStarted;
    const viewsStarted = performance.now();
    try {
      cards = conversation.views().chat.length;
      viewsMs = performance.now() - viewsStarted;
    } catch (caught) {
      error = `views: ${caught.code ?? String(caught)}`;
    }
  }
  console.log(
    JSON.stringify({
      file: basename(path),
      how,
      bytes,
      events,
      error,
      loadMs: Math.round(loadMs),
      mbPerS: Math.round(bytes / MB / (loadMs / 1000)),
      cpuMs: Math.round(cpuMs),
      mbPerCpuS: Math.round(bytes / MB / (cpuMs / 1000)),
      wasmAfterLoad,
      bytesPerEvent: events > 0 ? Math.round(wasmAfterLoad / events) : undefined,
      sliceMs: sliceMs === undefined ? undefined : Number(sliceMs.toFixed(2)),
      viewsMs: viewsMs === undefined ? undefined : Math.round(viewsMs),
      cards,
      wasmAfterViews: promptfold.wasmMemoryBytes(),
      peakRssMB: Math.round(process.resourceUsage().maxRSS / 1024),
    }),
  );
}

function table(runs, files) {
  const median = (values) => values.toSorted((a, b) => a - b)[Math.floor(values.length / 2)];
  const rows = [];
  for (const file of files) {
    const results = { feed: [], loadJson: [] };
    for (let i = 0; i < runs; i++) {
      for (const how of Object.keys(results)) {
        const line = execFileSync(process.execPath, [script, "run", file, how], { encoding: "utf8" });
        console.error(line.trim());
        results[how].push(JSON.parse(line));
      }
    }
    for (const [how, lines] of Object.entries(results)) {
      const first = lines[0];
      const pick = (key) => median(lines.map((line) => line[key] ?? Number.NaN));
      rows.push(
        `| ${first.file} (${(first.bytes / MB).toFixed(0)} MB) | \`${how}\` | ${first.events.toLocaleString("en-US")} | ` +
          `${first.error ?? ""} | ${(pick("loadMs") / 1000).toFixed(2)} s | ${pick("mbPerS")} | ` +
          `${(pick("cpuMs") / 1000).toFixed(2)} s | ${pick("mbPerCpuS")} | ` +
          `${Math.round(pick("wasmAfterLoad") / MB).toLocaleString("en-US")} MB | ${pick("bytesPerEvent")} | ` +
          `${pick("peakRssMB").toLocaleString("en-US")} MB | ${first.error ? "" : `${pick("sliceMs")} ms`} | ` +
          `${first.error ? "" : `${pick("viewsMs")} ms`} |`,
      );
    }
  }
  console.log(
    "| file | path | events | error | load (wall) | MB/s (wall) | load (CPU) | MB/s (CPU) | wasm memory after | bytes per event | peak RSS | newest 50 cards and requests | first `views()` |",
  );
  console.log("| --- | --- | ---: | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |");
  for (const row of rows) console.log(row);
}

if (command === "run") await run(rest[0], rest[1]);
else if (command === "table") table(Number(rest[0]), rest.slice(1));
else throw new Error("usage: see the header of bench/js/sessions.mjs");
