// Two builds of the package in one process, call by call: for "no workload slower than before"
// checks on a noisy machine. compare-builds.mjs runs each build in fresh processes, so a change of
// the machine's load between two processes lands on one build only; here every pair of calls (one
// per build, the order alternating, a full GC before each) sees the same load, and the figure is
// the median of the per-pair ratios new / old.
//
//   node bench/js/gen.mjs
//   node --expose-gc bench/js/compare-interleaved.mjs --old ../prev/pkg/node [--new pkg/node]
//        [--pairs 21] [--workloads typical-10k,prune-8k,typical-100k] [--tasks loadJson,load,views]
//
// Tasks: loadJson (the JSON text as a string), load (the parsed objects), views (after a load),
// feedText (loadJson of the same events as JSON lines), appendText / appendBytes (appendJson of
// the last nine tenths of the events as JSON lines, a string / UTF-8 bytes, to a window loaded
// with the first tenth, which is not timed), prependText (prependJson of the first nine tenths
// to a window loaded with the last tenth). Each build makes WARMUP calls of a task before its
// pairs, so V8 has optimized both.

import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join, resolve } from 'node:path';
import { dataPath } from './gen.mjs';
import { median } from './stats.mjs';

const WARMUP = 3;
const require = createRequire(import.meta.url);

function option(name, fallback) {
  const at = process.argv.indexOf(`--${name}`);
  return at >= 0 ? process.argv[at + 1] : fallback;
}

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
  const calls = {
    loadJson: () => new Conversation().loadJson(input.text),
    load: () => new Conversation().load(input.events),
    views: () => loaded.views(),
    feedText: () => new Conversation().loadJson(input.lines),
    appendText: (conversation) => conversation.appendJson(input.rest),
    appendBytes: (conversation) => conversation.appendJson(input.restBytes),
    prependText: (conversation) => conversation.prependJson(input.page),
  };
  return () => {
    globalThis.gc?.();
    const made = setups[name]?.();
    const start = performance.now();
    const result = calls[name](made);
    const took = performance.now() - start;
    if (result instanceof Conversation) result.free();
    made?.free();
    return took;
  };
}

/** JSON lines of `events`. */
const linesOf = (events) => `${events.map((event) => JSON.stringify(event)).join('\n')}\n`;

function main() {
  if (!globalThis.gc) {
    console.error('compare-interleaved: run with node --expose-gc');
    process.exit(2);
  }
  const old = option('old');
  if (!old) {
    console.error('compare-interleaved: --old DIR (a built pkg/node folder) is required');
    process.exit(2);
  }
  const builds = {
    old: require(join(resolve(old), 'promptfold.js')).Conversation,
    new: require(join(resolve(option('new', 'pkg/node')), 'promptfold.js')).Conversation,
  };
  const pairs = Number(option('pairs', '21'));
  const workloads = option('workloads', 'typical-10k,prune-8k,typical-100k').split(',');
  const tasks = option('tasks', 'loadJson,load,views').split(',');
  const rows = [];
  for (const workload of workloads) {
    const text = readFileSync(dataPath(workload), 'utf8');
    const events = JSON.parse(text);
    const tenth = Math.floor(events.length / 10);
    const rest = linesOf(events.slice(tenth));
    const input = {
      text,
      events,
      lines: linesOf(events),
      head: linesOf(events.slice(0, tenth)),
      rest,
      restBytes: new TextEncoder().encode(rest),
      tail: linesOf(events.slice(-tenth)),
      page: linesOf(events.slice(0, -tenth)),
    };
    for (const name of tasks) {
      const run = { old: task(builds.old, name, input), new: task(builds.new, name, input) };
      for (let i = 0; i < WARMUP; i++) {
        run.old();
        run.new();
      }
      const times = { old: [], new: [] };
      const ratios = [];
      for (let pair = 0; pair < pairs; pair++) {
        const order = pair % 2 === 0 ? ['old', 'new'] : ['new', 'old'];
        const took = {};
        for (const build of order) took[build] = run[build]();
        times.old.push(took.old);
        times.new.push(took.new);
        ratios.push(took.new / took.old);
      }
      const row = { workload, task: name, old: median(times.old), new: median(times.new), ratio: median(ratios) };
      rows.push(row);
      console.log(
        `${workload.padEnd(14)} ${name.padEnd(9)} old ${row.old.toFixed(2).padStart(9)} ms  new ${row.new.toFixed(2).padStart(9)} ms  median pair ratio ${row.ratio.toFixed(3)}`,
      );
    }
  }
  console.log(JSON.stringify({ pairs, warmup: WARMUP, rows }));
}

main();
