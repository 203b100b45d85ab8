// Two builds of the package side by side, call by call: for "no workload slower than before"
// checks on a noisy machine. compare-builds.mjs runs each build in fresh processes, so a change of
// the machine's load between two processes lands on one build only; here every pair of calls (one
// per build, the order alternating, a full GC before each) sees the same load, and the figure is
// the median of the per-pair ratios new / old.
//
// Each build runs in a child process of its own, the parent asking one at a time for a timed
// call. Whichever build starts and reads its input first was the faster one, in one process
// and in two: `views()` of typical-100k 15-20% faster in runs of a build against itself
// (2026-12-05, d3918e6, on a loaded machine). So the pairs are taken in two halves, each with
// fresh processes, the old build first in one and the new build in the other. `--aa` runs the
// old build against itself to check a setup for such a bias (its ratios should be about 1).
//
//   node bench/js/gen.mjs
//   node --expose-gc bench/js/compare-interleaved.mjs --old ../prev/pkg/node [--new pkg/node]
//        [--pairs 21] [--workloads typical-10k,prune-8k,typical-100k] [--tasks loadJson,load,views]
//        [--aa]
//
// Tasks: loadJson (the JSON text as a string), load (the parsed objects), views (after a load),
// feedText (loadJson of the same events as JSON lines), appendText / appendBytes (appendJson of
// the last nine tenths of the events as JSON lines, a string / UTF-8 bytes, to a window loaded
// with the first tenth, which is not timed), prependText (prependJson of the first nine tenths
// to a window loaded with the last tenth). Each build makes WARMUP calls of a task before its
// pairs, and more until each has spent WARMUP_MS in them, so V8 has optimized both. Only a
// build's own calls are timed, inside its process.

import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join, resolve } from 'node:path';
import { fork } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { dataPath } from './gen.mjs';
import { median } from './stats.mjs';

const WARMUP = 3;
/** Warm-up lasts at least this long per build and task: V8 moves hot code to its optimizing
 * tiers only after it has run a while, and pairs taken before then time the baseline tiers
 * (typical-10k `views()` at d3918e6, Node 20: calls 5 to 15 took 1.42 ms, calls 50 to 100
 * 1.29 ms). */
const WARMUP_MS = 1000;
const require = createRequire(import.meta.url);

function option(name, fallback) {
  const at = process.argv.indexOf(`--${name}`);
  return at >= 0 ? process.argv[at + 1] : fallback;
}

/** A timed call of task `name` on `input` (a function returning its milliseconds). */
function task(Conversation, name, input) {
  const loaded = new Conversation();
  if (name === 'views') loaded.load(input.events);
  // A window for the call, made before the clock starts (`undefined`: the call makes its own).
  const window = (text, options) => () => {
    const conversation = new Conversation();
    conversation.loadJson(text, options);
    return conversation;
  };
  const setups = {
    appendText: window(input.head),
    appendBytes: window(input.head),
    prependText: window(input.tail, { hasMore: true }),
  };
  // Each fresh window is returned (not its change report) so that it is freed after the clock
  // stops: a window left to the garbage collector keeps its wasm memory, and the module's
  // memory then grows with every call.
  const fresh = (fill) => () => {
    const conversation = new Conversation();
    fill(conversation);
    return conversation;
  };
  const calls = {
    loadJson: fresh((conversation) => conversation.loadJson(input.text)),
    load: fresh((conversation) => conversation.load(input.events)),
    views: () => loaded.views(),
    feedText: fresh((conversation) => conversation.loadJson(input.lines)),
    appendText: (conversation) => conversation.appendJson(input.rest),
    appendBytes: (conversation) => conversation.appendJson(input.restBytes),
    prependText: (conversation) => conversation.prependJson(input.page),
  };
  const run = () => {
    globalThis.gc?.();
    const made = setups[name]?.();
    const start = performance.now();
    const result = calls[name](made);
    const took = performance.now() - start;
    if (result instanceof Conversation) result.free();
    made?.free();
    return took;
  };
  return { run, free: () => loaded.free() };
}

/** JSON lines of `events`. */
const linesOf = (events) => `${events.map((event) => JSON.stringify(event)).join('\n')}\n`;

/** The inputs of every task for `workload`. */
function inputOf(workload) {
  const text = readFileSync(dataPath(workload), 'utf8');
  const events = JSON.parse(text);
  const tenth = Math.floor(events.length / 10);
  const rest = linesOf(events.slice(tenth));
  return {
    text,
    events,
    lines: linesOf(events),
    head: linesOf(events.slice(0, tenth)),
    rest,
    restBytes: new TextEncoder().encode(rest),
    tail: linesOf(events.slice(-tenth)),
    page: linesOf(events.slice(0, -tenth)),
  };
}

/** A build's process: one build, answering the parent's requests one at a time. */
function serve(dir) {
  const { Conversation } = require(join(resolve(dir), 'promptfold.js'));
  let input;
  let current;
  process.on('message', (message) => {
    if (message.type === 'workload') {
      input = undefined;
      input = inputOf(message.workload);
      process.send({});
    } else if (message.type === 'task') {
      current?.free();
      current = task(Conversation, message.task, input);
      process.send({});
    } else if (message.type === 'run') {
      process.send({ took: current.run() });
    } else if (message.type === 'done') {
      current?.free();
      process.disconnect();
    }
  });
}

/** A build in a process of its own; `ask` sends a request and resolves with the answer. */
function buildProcess(dir) {
  const child = fork(fileURLToPath(import.meta.url), ['--serve', dir], {
    execArgv: ['--expose-gc'],
  });
  let waiting;
  child.on('message', (answer) => waiting?.resolve(answer));
  child.on('error', (error) => waiting?.reject(error));
  child.on('exit', (code) => waiting?.reject(new Error(`a build's process exited (${code})`)));
  const ask = (message) =>
    new Promise((resolve, reject) => {
      waiting = { resolve, reject };
      child.send(message);
    });
  return { child, ask };
}

async function main() {
  if (!globalThis.gc) {
    console.error('compare-interleaved: run with node --expose-gc');
    process.exit(2);
  }
  const old = option('old');
  if (!old) {
    console.error('compare-interleaved: --old DIR (a built pkg/node folder) is required');
    process.exit(2);
  }
  const aa = process.argv.includes('--aa');
  const dirs = { old, new: aa ? old : option('new', 'pkg/node') };
  const pairs = Number(option('pairs', '21'));
  const workloads = option('workloads', 'typical-10k,prune-8k,typical-100k').split(',');
  const tasks = option('tasks', 'loadJson,load,views').split(',');
  const rows = [];
  for (const workload of workloads) {
    const measured = Object.fromEntries(tasks.map((name) => [name, { old: [], new: [], ratios: [] }]));
    // Two halves, each with fresh processes: in the first the old build starts and prepares
    // first, in the second the new one.
    for (const [half, first] of [
      [0, ['old', 'new']],
      [1, ['new', 'old']],
    ]) {
      const builds = {};
      for (const build of first) builds[build] = buildProcess(dirs[build]);
      const both = async (message) => {
        for (const build of first) await builds[build].ask(message);
      };
      await both({ type: 'workload', workload });
      for (const name of tasks) {
        await both({ type: 'task', task: name });
        const warm = { old: 0, new: 0 };
        for (let i = 0; i < WARMUP || Math.min(warm.old, warm.new) < WARMUP_MS; i++) {
          for (const build of i % 2 === 0 ? ['old', 'new'] : ['new', 'old']) {
            warm[build] += (await builds[build].ask({ type: 'run' })).took;
          }
        }
        const into = measured[name];
        const count = half === 0 ? Math.ceil(pairs / 2) : Math.floor(pairs / 2);
        for (let pair = 0; pair < count; pair++) {
          const order = pair % 2 === 0 ? ['old', 'new'] : ['new', 'old'];
          const took = {};
          for (const build of order) took[build] = (await builds[build].ask({ type: 'run' })).took;
          into.old.push(took.old);
          into.new.push(took.new);
          into.ratios.push(took.new / took.old);
        }
      }
      for (const build of Object.values(builds)) build.child.send({ type: 'done' });
    }
    for (const name of tasks) {
      const { old: oldTimes, new: newTimes, ratios } = measured[name];
      const row = { workload, task: name, old: median(oldTimes), new: median(newTimes), ratio: median(ratios) };
      rows.push(row);
      console.log(
        `${workload.padEnd(14)} ${name.padEnd(9)} old ${row.old.toFixed(2).padStart(9)} ms  new ${row.new.toFixed(2).padStart(9)} ms  median pair ratio ${row.ratio.toFixed(3)}`,
      );
    }
  }
  console.log(JSON.stringify({ pairs, warmup: WARMUP, warmupMs: WARMUP_MS, aa, rows }));
}

const serving = option('serve');
if (serving) serve(serving);
else await main();
