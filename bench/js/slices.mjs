// What a viewer's first paint costs on a small and a huge window: the first slice of 50 cards
// (and of requests and lines) after the window is read, against views(), each size in a fresh
// process. The window is the shared generator's "small" profile session
// (tests/js/kit/session.mjs), fed as JSON lines text in 1 MiB pieces, as openSession reads a file.
//
//   node --expose-gc bench/js/slices.mjs run EVENTS [--views] [--prepend]
//       one JSON line for a window of EVENTS events (--views: also time views() and its JS heap;
//       --prepend: the first 1,000 events are held back and prepended after the rest is fed,
//       then the first slices after that prepend are timed, as a newest-first reader's are)
//   node bench/js/slices.mjs compare SMALL LARGE [RUNS] [--prepend]
//       RUNS (default 3) fresh processes per size, taking turns; medians and the large / small
//       ratios
//
// The package is pkg/node (scripts/build.sh builds it), or the folder PROMPTFOLD_PKG names.
import { execFileSync } from "node:child_process";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { sessionEvents } from "../../tests/js/kit/session.mjs";

const [, script, command, ...rest] = process.argv;
const MiB = 1024 * 1024;

/** Milliseconds `call` takes, and its result. */
function timed(call) {
  const started = performance.now();
  const result = call();
  return [performance.now() - started, result];
}

/** CPU milliseconds (user + system) `call` takes: on a shared machine, wall time also counts
 * the time other processes ran. */
function cpuTimed(call) {
  const started = process.cpuUsage();
  const result = call();
  const used = process.cpuUsage(started);
  return [(used.user + used.system) / 1000, result];
}

function median(values) {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
}

/** Events held back for `--prepend`: the page prepended after the rest is fed. */
const PAGE = 1000;

async function run(events, withViews, withPrepend) {
  const dir = process.env.PROMPTFOLD_PKG || join(import.meta.dirname, "..", "..", "pkg", "node");
  const promptfold = await import(pathToFileURL(join(dir, "promptfold.js")).href);
  const conversation = new promptfold.Conversation();
  let text = "";
  let page = "";
  const encoder = new TextEncoder();
  const started = performance.now();
  for (const event of sessionEvents({ profile: "small", seed: 31, maxEvents: events })) {
    if (withPrepend && event.seq <= PAGE) {
      page += `${JSON.stringify(event)}\n`;
      continue;
    }
    text += `${JSON.stringify(event)}\n`;
    if (text.length > MiB) {
      conversation.feed(encoder.encode(text));
      text = "";
    }
  }
  conversation.feed(encoder.encode(text));
  const loadMs = performance.now() - started;
  const [prependMs] = withPrepend ? timed(() => conversation.prependJson(page)) : [undefined];
  globalThis.gc?.();
  const counts = conversation.viewCounts();
  const newest = (total) => ({ start: Math.max(0, total - 50), end: total });
  // First calls after the load: what a first paint pays (wall, then CPU time).
  const [firstCards, cards] = timed(() => conversation.cardsSlice(newest(counts.cards)));
  const cpuBefore = process.cpuUsage();
  const [firstRequests] = timed(() => conversation.requestsSlice(newest(counts.requests)));
  const cpuUsed = process.cpuUsage(cpuBefore);
  const firstRequestsCpu = (cpuUsed.user + cpuUsed.system) / 1000;
  const [firstLines] = timed(() => conversation.linesSlice(newest(counts.lines)));
  // The same calls again but on the oldest rows, CPU time: the requests are linked by now.
  const firstCpu = {
    cards: cpuTimed(() => conversation.cardsSlice({ start: 0, end: 50 }))[0],
    requests: cpuTimed(() => conversation.requestsSlice({ start: 0, end: 50 }))[0],
  };
  // Then slices anywhere in the window (a scroll), each size's own positions.
  let seed = 7;
  const at = (total) => {
    seed = (seed * 1103515245 + 12345) % 2147483648;
    const start = Math.floor((seed / 2147483648) * Math.max(1, total - 50));
    return { start, end: start + 50 };
  };
  const repeat = (call) => {
    const times = [];
    for (let i = 0; i < 200; i++) times.push(timed(call)[0]);
    return median(times);
  };
  const result = {
    events: conversation.length,
    counts,
    loadMs,
    prependMs,
    firstCardsMs: firstCards,
    firstRequestsMs: firstRequests,
    firstRequestsCpuMs: firstRequestsCpu,
    firstLinesMs: firstLines,
    cardsMs: repeat(() => conversation.cardsSlice(at(counts.cards))),
    requestsMs: repeat(() => conversation.requestsSlice(at(counts.requests))),
    linesMs: repeat(() => conversation.linesSlice(at(counts.lines))),
    indexOfSeqMs: repeat(() => conversation.indexOfSeq(cards.cards[0]?.seq ?? 0)),
    wasmMemoryMB: promptfold.wasmMemoryBytes() / 1e6,
    secondCardsCpuMs: firstCpu.cards,
    secondRequestsCpuMs: firstCpu.requests,
  };
  // One live event, then the first slices after it: the requests' links are made again.
  const lastSeq = conversation.linesSlice(newest(counts.lines)).lines.at(-1)?.seq ?? 0;
  const [appendMs] = timed(() => conversation.append([{ seq: lastSeq + 1, time: 1, type: "user/message" }]));
  result.appendMs = appendMs;
  result.cardsAfterAppendMs = timed(() => conversation.cardsSlice(newest(counts.cards)))[0];
  result.requestsAfterAppendMs = timed(() => conversation.requestsSlice(newest(counts.requests)))[0];
  if (withViews) {
    globalThis.gc?.();
    const heap = process.memoryUsage().heapUsed;
    const started = process.cpuUsage();
    const [viewsMs, views] = timed(() => conversation.views());
    const used = process.cpuUsage(started);
    result.viewsMs = viewsMs;
    result.viewsCpuMs = (used.user + used.system) / 1000;
    result.viewsHeapMB = (process.memoryUsage().heapUsed - heap) / 1e6;
    result.viewsCards = views.chat.length;
  }
  console.log(JSON.stringify(result));
}

function compare(small, large, runs, withPrepend) {
  const rows = { [small]: [], [large]: [] };
  const flags = withPrepend ? ["--views", "--prepend"] : ["--views"];
  for (let round = 0; round < runs; round++) {
    for (const events of [small, large]) {
      const out = execFileSync(process.execPath, ["--expose-gc", script, "run", String(events), ...flags], {
        encoding: "utf8",
        maxBuffer: 16 * MiB,
      });
      rows[events].push(JSON.parse(out));
      console.error(out.trim());
    }
  }
  const keys = ["loadMs", ...(withPrepend ? ["prependMs"] : []), "firstCardsMs", "firstRequestsMs", "firstRequestsCpuMs", "firstLinesMs", "cardsMs"];
  keys.push("requestsMs", "linesMs", "secondCardsCpuMs", "secondRequestsCpuMs");
  keys.push("indexOfSeqMs", "appendMs", "cardsAfterAppendMs", "requestsAfterAppendMs", "viewsMs", "viewsCpuMs");
  keys.push("viewsHeapMB");
  keys.push("wasmMemoryMB");
  const summary = {};
  for (const key of keys) {
    const [a, b] = [median(rows[small].map((row) => row[key])), median(rows[large].map((row) => row[key]))];
    summary[key] = { [small]: a, [large]: b, ratio: b / a };
  }
  summary.counts = { [small]: rows[small][0].counts, [large]: rows[large][0].counts };
  console.log(JSON.stringify(summary, null, 1));
}

if (command === "run") await run(Number(rest[0]), rest.includes("--views"), rest.includes("--prepend"));
else if (command === "compare") {
  const numbers = rest.filter((arg) => !arg.startsWith("--"));
  compare(Number(numbers[0]), Number(numbers[1]), Number(numbers[2] ?? 3), rest.includes("--prepend"));
} else {
  console.error(`usage: node ${script} run EVENTS [--views] [--prepend] | compare SMALL LARGE [RUNS] [--prepend]`);
  process.exit(2);
}
