// One measurement in a fresh Node process (run by bench/js/run.mjs; not part of the package).
//
//   node --expose-gc bench/js/measure.mjs TASK WORKLOAD [ARG]
//
// Prints one JSON object on stdout (progress lines, if any, on stderr). Tasks:
//   baseline-mem    ARG = "prompt" or "fair": one fold of the upstream-style baseline
//                   (bench/js/baseline/) keeping every state: its time, and the JS heap it retains.
//                   "prompt": the system-prompt fold and header inspections (baseline.mjs);
//                   "fair": those plus the token meter's fold and every request's context
//                   (context.mjs), what upstream runs to price a context
//   baseline-time   ARG = "RUNS,WARMUP,KIND": RUNS timed runs of the baseline fold of KIND (as
//                   above) from JS objects (after WARMUP more, timed apart as warmupMs), and two
//                   of JSON.parse alone
//   pf-cold-objects the first Conversation.load (JS objects) in a fresh process: time, and the JS
//                   heap + wasm memory it leaves (the wasm memory only grows: this is its peak)
//   pf-cold-text    the same for Conversation.loadJson (JSON text as a string)
//   pf-time         ARG = "BYTES,RUNS,WARMUP": grows the wasm memory to about BYTES in one step
//                   first (what an earlier load of a session of this size leaves behind), then
//                   of each of load and loadJson WARMUP calls (the process's first, timed apart)
//                   and RUNS timed calls, each window freed
//   pf-warm         ARG = bytes, grown as for pf-time; one loadJson, then views(), stateAt,
//                   contextSummaryAt and contextAt, then bench/js/read-floor.mjs's bare read of
//                   the header values beside load
//   pf-prepend      ARG = bytes as for pf-warm; loads the newest 9,000 events of WORKLOAD, then
//                   prepends older pages until the whole log is loaded
// PROMPTFOLD_PKG=path/to/promptfold.js measures another build of the Node package.

import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { inspectSystemPrompt, inspectRequestPrompt } from './baseline/baseline.mjs';
import { ContextLedger } from './baseline/context.mjs';
import { dataPath } from './gen.mjs';
import { readFloor } from './read-floor.mjs';
import { seqs } from './seeded.mjs';
import { median } from './stats.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const [task, workload, arg] = process.argv.slice(2);

if (typeof global.gc !== 'function') throw new Error('run with node --expose-gc');

// Runs of bench/js/read-floor.mjs's read and load in pf-warm, after runs not counted (3 after 1
// moved typical 10k's load by 2x between runs of one build; 7 after 2 add at most about 3 s a process).
const READ_FLOOR_RUNS = 7;
const READ_FLOOR_WARMUP = 2;

function collect() {
  for (let i = 0; i < 3; i++) global.gc();
}

// Keeps results reachable outside the measured code until we drop them.
const sink = [];

function loadPromptfold() {
  const require = createRequire(import.meta.url);
  return require(process.env.PROMPTFOLD_PKG || join(here, '..', '..', 'pkg', 'node', 'promptfold.js'));
}

function readText() {
  return readFileSync(dataPath(workload), 'utf8');
}

// The baseline's "fold and keep every per-event state": one state per event (an irrelevant
// event shares the previous one), plus the inspection of every request header against the
// previous one with the effective prompt in force before it (BEHAVIOUR.md section 3), all kept.
// The fair baseline (`fair`) also folds every event into the token meter and keeps each
// request's context (docs/context.md), as upstream's host does to price a context.
function baselineFold(events, fair, progress) {
  const states = new Array(events.length);
  const inspections = [];
  const ledger = fair ? new ContextLedger() : undefined;
  let state;
  let prompt;
  for (let i = 0; i < events.length; i++) {
    const event = events[i];
    if (event.type === 'request/header') {
      const inspection = inspectRequestPrompt(prompt, event, state ? state.effective : undefined);
      prompt = inspection.prompt;
      inspections.push(inspection);
    }
    state = inspectSystemPrompt(state, event);
    states[i] = state;
    if (ledger) ledger.apply(event);
    if (progress && i % 1000 === 0) progress(i);
  }
  return { states, inspections, requests: ledger ? ledger.finish() : undefined };
}

// The baseline kind of a task's ARG: "fair" or "prompt".
function fairKind(kind) {
  if (kind !== 'fair' && kind !== 'prompt') throw new Error(`baseline kind ${kind}: "prompt" or "fair"`);
  return kind === 'fair';
}

// Times up to `maxRuns` runs of `body`, fewer when they would not fit in `budgetMs` (at least
// one run; another only when the time so far plus the longest run so far fits). `done`
// releases what a run made, outside the timed part; with `keepLast`, the last run's result is
// returned instead of released.
function timeRuns(maxRuns, budgetMs, body, done = () => {}, keepLast = false) {
  const times = [];
  let spent = 0;
  let last;
  while (times.length < maxRuns && (times.length === 0 || spent + Math.max(...times) <= budgetMs)) {
    if (last !== undefined) done(last);
    last = undefined;
    collect();
    const t = performance.now();
    sink.push(body());
    const ms = performance.now() - t;
    times.push(ms);
    spent += ms;
    last = sink.pop();
  }
  if (!keepLast && last !== undefined) {
    done(last);
    last = undefined;
  }
  return { times, last };
}

function heapUsed() {
  return process.memoryUsage().heapUsed;
}

// Grows the wasm memory to about `bytes` in one step: `loadJson` copies a byte array into wasm
// memory in one allocation; its first byte is not UTF-8, so the call fails at once (as
// documented: MALFORMED_JSON) and frees it, and the allocator keeps the space for what follows.
function growWasmMemory(pf, bytes) {
  const missing = bytes - pf.wasmMemoryBytes();
  if (missing <= 0) return;
  const blank = new Uint8Array(missing);
  blank[0] = 0xff;
  const c = new pf.Conversation();
  try {
    c.loadJson(blank);
  } catch (err) {
    if (err.code !== 'MALFORMED_JSON') throw err;
  }
  c.free();
}

function pfCold(objects) {
  const pf = loadPromptfold();
  // Keep only the input this path gets: the parsed events, or the text.
  const input = objects ? JSON.parse(readText()) : readText();
  const c = new pf.Conversation();
  collect();
  const heapBefore = heapUsed();
  const wasmBefore = pf.wasmMemoryBytes();
  const t = performance.now();
  if (objects) c.load(input);
  else c.loadJson(input);
  const ms = performance.now() - t;
  collect();
  const heapBytes = heapUsed() - heapBefore;
  const wasmAfter = pf.wasmMemoryBytes();
  sink.push(c, input);
  return {
    ms,
    heapBytes,
    wasmBytes: wasmAfter - wasmBefore,
    // Node counts the wasm memory in neither heapUsed nor arrayBuffers, so they add up.
    retainedBytes: heapBytes + (wasmAfter - wasmBefore),
    wasmBefore,
    wasmAfter,
    length: c.length,
  };
}

const tasks = {
  'baseline-mem'() {
    const text = readText();
    collect();
    const beforeEvents = heapUsed();
    const events = JSON.parse(text);
    collect();
    const eventsHeapBytes = heapUsed() - beforeEvents;
    const before = heapUsed();
    const t = performance.now();
    const progress = (i) => {
      // Lets run.mjs say how far a run got when it hits the memory or time limit.
      if (i % 5000 === 0) process.stderr.write(`progress ${i} ${events.length} ${heapUsed()} ${(performance.now() - t).toFixed(0)}\n`);
    };
    const kept = baselineFold(events, fairKind(arg), progress);
    const foldMs = performance.now() - t;
    collect();
    const retainedBytes = heapUsed() - before;
    sink.push(kept);
    return { kind: arg, foldMs, retainedBytes, eventsHeapBytes, states: kept.states.length, requests: kept.requests?.length };
  },

  'baseline-time'() {
    const [runs, warmup] = String(arg).split(',').slice(0, 2).map(Number);
    const kind = String(arg).split(',')[2];
    const fair = fairKind(kind);
    const text = readText();
    const events = JSON.parse(text);
    const warmupMs = timeRuns(warmup, Infinity, () => baselineFold(events, fair)).times;
    const folds = timeRuns(runs, 25_000, () => baselineFold(events, fair), () => {}, true);
    const last = folds.last.states.at(-1);
    const check = { replacements: last.replacements.size, nodes: last.nodes.length, requests: folds.last.requests?.length };
    folds.last = undefined;
    const parse = timeRuns(2, 5_000, () => JSON.parse(text)).times;
    return { kind, warmupMs, objects: folds.times, parse, check };
  },

  'pf-cold-objects'() {
    return pfCold(true);
  },

  'pf-cold-text'() {
    return pfCold(false);
  },

  'pf-time'() {
    const [bytes, runs, warmup] = String(arg).split(',').map(Number);
    const pf = loadPromptfold();
    const text = readText();
    const events = JSON.parse(text);
    growWasmMemory(pf, bytes);
    const grownTo = pf.wasmMemoryBytes();
    const free = (c) => c.free();
    const load = () => {
      const c = new pf.Conversation();
      c.load(events);
      return c;
    };
    const loadJson = () => {
      const c = new pf.Conversation();
      c.loadJson(text);
      return c;
    };
    const warmupObjectsMs = timeRuns(warmup, Infinity, load, free).times;
    const warmupTextMs = timeRuns(warmup, Infinity, loadJson, free).times;
    const objects = timeRuns(runs, 6_000, load, free).times;
    const fromText = timeRuns(runs, 5_000, loadJson, free).times;
    return { grownTo, wasmAfter: pf.wasmMemoryBytes(), warmupObjectsMs, warmupTextMs, objects, text: fromText };
  },

  'pf-warm'() {
    const pf = loadPromptfold();
    const text = readText();
    const events = JSON.parse(text);
    growWasmMemory(pf, Number(arg));
    const grownTo = pf.wasmMemoryBytes();
    const c = new pf.Conversation();
    c.loadJson(text);
    const views = timeRuns(5, 3_000, () => c.views(), () => {}, true);
    const v = views.last;
    // stateAt at seeded random seqs of the window: the conversation's cached handle per state,
    // left alone, or freed at once with free() (the next call for that state makes a new one).
    const first = events[0].seq;
    const last = events.at(-1).seq;
    const n = 100_000;
    const probe = seqs(first, last, n);
    // Three rounds, each: every handle freed first, so that a pass makes the handle of each
    // state it touches first (as a page that just loaded the window would); the same calls
    // again, every handle now cached; and the calls freeing each handle at once.
    const passes = { first: [], cached: [], free: [] };
    let live = 0;
    const pass = (times, body) => {
      collect();
      const t = performance.now();
      for (let i = 0; i < n; i++) body(probe[i]);
      times.push(((performance.now() - t) * 1e6) / n);
    };
    for (let round = 0; round < 3; round++) {
      for (let i = 0; i < n; i++) c.stateAt(probe[i])?.free();
      pass(passes.first, (seq) => { if (c.stateAt(seq) !== undefined) live++; });
      pass(passes.cached, (seq) => { if (c.stateAt(seq) !== undefined) live++; });
      pass(passes.free, (seq) => c.stateAt(seq)?.free());
    }
    const stateAtNs = median(passes.first);
    const stateAtCachedNs = median(passes.cached);
    const stateAtFreeNs = median(passes.free);
    collect();
    let t;
    const m = 5_000;
    let chars = 0;
    t = performance.now();
    for (let i = 0; i < m; i++) {
      const s = c.stateAt(probe[i]);
      if (s) {
        chars += s.effective?.text.length ?? 0;
        s.free();
      }
    }
    const stateAtEffectiveNs = ((performance.now() - t) * 1e6) / m;
    // What the model saw (docs/context.md): contextSummaryAt at the same seqs (median of three
    // passes), contextAt at the first 2,000, for builds that have them.
    let contextSummaryNs;
    let contextAtUs;
    if (typeof c.contextSummaryAt === 'function') {
      const summaries = [];
      for (let round = 0; round < 3; round++) {
        pass(summaries, (seq) => {
          chars += c.contextSummaryAt(seq).totalTokens > 0 ? 1 : 0;
        });
      }
      contextSummaryNs = median(summaries);
      collect();
      t = performance.now();
      for (let i = 0; i < 2_000; i++) chars += c.contextAt(probe[i]).nodes.length;
      contextAtUs = ((performance.now() - t) * 1e3) / 2_000;
    }
    const final = c.stateAt(last);
    // The bare read of every header's config and tools (bench/js/read-floor.mjs), beside load.
    const floor = readFloor(pf, events, READ_FLOOR_RUNS, READ_FLOOR_WARMUP);
    return {
      grownTo,
      wasmAfter: pf.wasmMemoryBytes(),
      views: views.times,
      stateAtNs,
      stateAtCachedNs,
      stateAtFreeNs,
      stateAtPasses: passes,
      stateAtEffectiveNs,
      contextSummaryNs,
      contextAtUs,
      stateAtCalls: n,
      stateAtEffectiveCalls: m,
      readFloor: floor,
      check: {
        cards: v.chat.length,
        headers: v.trajectory.headers.length,
        requests: v.trajectory.requests.length,
        replacements: final?.replacements.size,
        nodes: final?.nodes.length,
        live,
        chars,
      },
    };
  },

  'pf-prepend'() {
    const pf = loadPromptfold();
    const events = JSON.parse(readText());
    growWasmMemory(pf, Number(arg));
    // "Load earlier" page by page until the whole log is loaded: the newest 9,000 events, then
    // 5 pages of 1,000 events, 7 of 10,000, one of 8,000 and 8 of 1,000, so that 1,000-event
    // pages go into windows of 9,000 to 13,000 events and of 92,000 to 99,000 events (single
    // calls of a few ms vary several-fold on a shared machine: the groups give medians of many).
    // Each row records how many chat cards the call reported, since a page that resolves
    // withheld prompts changes them all.
    const pages = [...Array(5).fill(1_000), ...Array(7).fill(10_000), 8_000, ...Array(8).fill(1_000)];
    const result = { grownTo: pf.wasmMemoryBytes(), steps: [] };
    let start = events.length - 9_000;
    const c = new pf.Conversation();
    collect();
    let t = performance.now();
    c.load(events.slice(start), { hasMore: start > 0 });
    result.first = { loaded: events.length - start, ms: performance.now() - t };
    for (const page of pages) {
      const from = Math.max(0, start - page);
      const chunk = events.slice(from, start);
      collect();
      // CPU time beside wall time: on a busy machine a call of a few ms is often descheduled.
      const cpu = process.cpuUsage();
      t = performance.now();
      const change = c.prepend(chunk, { hasMore: from > 0 });
      const ms = performance.now() - t;
      const { user, system } = process.cpuUsage(cpu);
      const cards = change.chat.added.length + change.chat.changed.length + change.chat.removed.length;
      result.steps.push({ window: events.length - start, loaded: chunk.length, ms, cpuMs: (user + system) / 1000, cards });
      start = from;
    }
    result.length = c.length;
    c.free();
    result.wasmAfter = pf.wasmMemoryBytes();
    return result;
  },
};

const body = tasks[task];
if (!body) throw new Error(`unknown task ${task}`);
const result = body();
process.stdout.write(`${JSON.stringify({ task, workload, ...result })}\n`);
