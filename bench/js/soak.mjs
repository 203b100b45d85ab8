// Soak: live appends, one event per call, through the JS API, with views() every 1,000 appends,
// sampling the module's wasm memory (wasmMemoryBytes(), which only grows) and the JS heap.
// Prints a progress line per sample batch and, last, one JSON line ("SOAK {...}") with the summary;
// scripts/reliability.sh runs both variants and writes the summary into the report.
//
//   node --expose-gc bench/js/soak.mjs growing [EVENTS [VIEWS_EVERY]]
//       one window that keeps every event
//   node --expose-gc bench/js/soak.mjs bounded [EVENTS [VIEWS_EVERY]]
//       a UI that keeps the newest 5,000-10,000 events: every 5,000 appends it frees the window
//       and loads the newest 5,000 anew (hasMore: true)
//
// EVENTS defaults to 1,000,000 and VIEWS_EVERY to 1,000. views() costs time in proportion to the
// window (every chat card and request is materialized as JS objects), so on a growing window of
// 1,000,000 events views() every 1,000 appends is quadratic: scripts/reliability.sh says which
// VIEWS_EVERY it ran. The events come from the generator of tests/js/kit/session.mjs ("small"
// profile: turns, steps, a header per step, assistant messages, tool results, in-history prompt
// updates, pruned tool results, compactions, head rewrites), a valid log.
//
// What "flat" means. A window keeps its events and one fold state per relevant event, so the
// growing variant's memory must grow, linearly: its bytes per appended event must stay constant
// from warm-up to the end (no superlinear growth, nothing kept per call beyond the events). The
// bounded variant retains a bounded window, so its wasm memory must stop growing after warm-up:
// any growth there is a leak (of appends, views(), load() or free()).
import { sessionEvents } from "../../tests/js/kit/session.mjs";
import { loadPackage } from "./huge.mjs";

const [variant = "growing", countArg, everyArg] = process.argv.slice(2);
if (!["growing", "bounded"].includes(variant)) {
  console.error("usage: node --expose-gc bench/js/soak.mjs growing|bounded [EVENTS [VIEWS_EVERY]]");
  process.exit(2);
}
const total = Number(countArg ?? 1_000_000);
const VIEWS_EVERY = Number(everyArg ?? 1_000);
// A GC'd memory sample every 5% of the run (every 50,000 appends of 1,000,000).
const SAMPLE_EVERY = Math.max(VIEWS_EVERY, Math.round(total / 20 / VIEWS_EVERY) * VIEWS_EVERY);
const KEEP = 5_000; // bounded: events kept when the window is reloaded
const RELOAD_EVERY = 5_000; // bounded: appends between reloads (the window holds 5,000..10,000)

const promptfold = await loadPackage();
const { Conversation } = promptfold;
const gc = typeof global.gc === "function" ? global.gc : () => {};
const mb = (bytes) => Math.round((bytes / 1048576) * 10) / 10;

let conversation = new Conversation();
const recent = []; // bounded: the newest events, to reload from
let appendMs = 0;
let viewsMs = 0;
let viewsCalls = 0;
let reloadMs = 0;
let reloads = 0;
let lastCounts = { chatCards: 0, requests: 0 };
const samples = [];
const started = performance.now();

function sample(appended) {
  gc();
  gc();
  const memory = process.memoryUsage();
  const s = {
    appended,
    retained: conversation.length,
    wasmMB: mb(promptfold.wasmMemoryBytes()),
    heapUsedMB: mb(memory.heapUsed),
    rssMB: mb(memory.rss),
    ...lastCounts,
    appendMicros: Math.round((appendMs * 1000) / Math.max(1, appended) * 100) / 100,
    viewsMsAvg: Math.round((viewsMs / Math.max(1, viewsCalls)) * 100) / 100,
    elapsedS: Math.round((performance.now() - started) / 100) / 10,
  };
  samples.push(s);
  console.log(`soak ${variant}: ${JSON.stringify(s)}`);
}

let appended = 0;
for (const event of sessionEvents({ profile: "small", seed: 7, maxEvents: total })) {
  let t = performance.now();
  conversation.append([event]);
  appendMs += performance.now() - t;
  appended += 1;
  if (variant === "bounded") {
    recent.push(event);
    if (recent.length >= KEEP + RELOAD_EVERY) {
      // A UI dropping old events: free the window, load the newest KEEP events (hasMore: true).
      recent.splice(0, recent.length - KEEP);
      t = performance.now();
      conversation.free();
      conversation = new Conversation();
      conversation.load(recent, { hasMore: true });
      reloadMs += performance.now() - t;
      reloads += 1;
    }
  }
  if (appended % VIEWS_EVERY === 0) {
    t = performance.now();
    const views = conversation.views();
    viewsMs += performance.now() - t;
    // Keep the counts only: the JS heap samples then show what the package itself retains.
    lastCounts = { chatCards: views.chat.length, requests: views.trajectory.requests.length };
    viewsCalls += 1;
  }
  if (appended % SAMPLE_EVERY === 0 || appended === total) sample(appended);
}
if (appended !== total) throw new Error(`the generator gave ${appended} events, not ${total}`);

// Summary. Warm-up: the first 10% of the run (at least the first sample).
const warm = samples[Math.max(0, Math.floor(samples.length / 10) - 1)];
const mid = samples[Math.floor((samples.length - 1) / 2)];
const end = samples[samples.length - 1];
const perEvent = (a, b) => (b.wasmMB - a.wasmMB) * 1048576 / Math.max(1, b.retained - a.retained);
const summary = {
  variant,
  events: total,
  viewsEvery: VIEWS_EVERY,
  viewsCalls,
  ...(variant === "bounded" ? { keep: KEEP, reloadEvery: RELOAD_EVERY, reloads, reloadMsAvg: Math.round((reloadMs / Math.max(1, reloads)) * 100) / 100 } : {}),
  warm: { appended: warm.appended, retained: warm.retained, wasmMB: warm.wasmMB, heapUsedMB: warm.heapUsedMB, rssMB: warm.rssMB },
  end: { appended: end.appended, retained: end.retained, wasmMB: end.wasmMB, heapUsedMB: end.heapUsedMB, rssMB: end.rssMB },
  wasmGrowthAfterWarmMB: Math.round((end.wasmMB - warm.wasmMB) * 10) / 10,
  heapGrowthAfterWarmMB: Math.round((end.heapUsedMB - warm.heapUsedMB) * 10) / 10,
  ...(variant === "growing"
    ? {
        wasmBytesPerEventWarmToMid: Math.round(perEvent(warm, mid)),
        wasmBytesPerEventMidToEnd: Math.round(perEvent(mid, end)),
        wasmBytesPerEventOverall: Math.round((end.wasmMB * 1048576) / end.retained),
      }
    : {}),
  appendMicrosPerEvent: Math.round((appendMs * 1000 / total) * 100) / 100,
  viewsMsAvg: Math.round((viewsMs / Math.max(1, viewsCalls)) * 100) / 100,
  viewsMsLast: undefined,
  totalS: Math.round((performance.now() - started) / 100) / 10,
  // CPU time of the whole run (user + system, all of node's threads): wall time on a shared
  // machine overstates the work.
  cpuS: (({ user, system }) => Math.round((user + system) / 1e5) / 10)(process.cpuUsage()),
  samples: samples.map((s) => [s.appended, s.retained, s.wasmMB, s.heapUsedMB]),
};
const t = performance.now();
conversation.views();
summary.viewsMsLast = Math.round((performance.now() - t) * 10) / 10;
conversation.free();
console.log(`SOAK ${JSON.stringify(summary)}`);
