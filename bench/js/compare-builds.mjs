// Two builds of the package side by side, in one run: each measurement is a fresh
// `node --expose-gc` process, the builds alternate within every round, and the report gives
// medians and the ratio new / old. For "no workload slower than before" checks of a change.
//
//   node bench/js/gen.mjs
//   node bench/js/compare-builds.mjs --old ../prev/pkg/node [--new pkg/node] [--rounds 3]
//                                    [--workloads typical-10k,prune-8k] [--tasks loadJson,load]
//
// Tasks (each on one workload of bench/data/): loadJson (the JSON text as a string), load (the
// parsed objects), views (after a load), framed (loadJson of the log as a session file: a header
// row, every event in an SDK notification; only for builds that read framing), feed (the log as
// JSON lines, fed in 64 KiB pieces; only for builds that have feed), feedText (loadJson of the
// same JSON lines, the whole text, beside it). Every task runs WARMUP calls not counted, then
// RUNS counted; a round's figure is their median.

import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { dataPath } from './gen.mjs';
import { median } from './stats.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const root = join(here, '..', '..');
const WARMUP = 2;
const RUNS = 3;
const TASKS = ['loadJson', 'load', 'views', 'framed', 'feed', 'feedText'];

function option(name, fallback) {
  const at = process.argv.indexOf(`--${name}`);
  return at >= 0 ? process.argv[at + 1] : fallback;
}

// One measurement process: prints { times: [ms...] } or { skipped }.
async function child([build, workload, task]) {
  const promptfold = (await import('node:module')).createRequire(import.meta.url)(join(resolve(build), 'promptfold.js'));
  const { Conversation } = promptfold;
  const text = readFileSync(dataPath(workload), 'utf8');
  const events = JSON.parse(text);
  const lines = events.map((event) => JSON.stringify(event)).join('\n') + '\n';
  const framed =
    JSON.stringify({ type: 'session', version: 4, id: 'bench', createdAt: 0, cwd: '/w' }) + '\n' +
    events.map((event) => JSON.stringify({ jsonrpc: '2.0', method: 'session.event', params: { sessionId: 'bench', event } })).join('\n') + '\n';
  const bytes = Buffer.from(lines);
  const has = (name) => typeof Conversation.prototype[name] === 'function';
  const loaded = new Conversation();
  const runs = {
    loadJson: () => new Conversation().loadJson(text),
    load: () => new Conversation().load(events),
    views: () => loaded.views(),
    framed: () => new Conversation().loadJson(framed),
    feed: () => {
      const conversation = new Conversation();
      for (let at = 0; at < bytes.length; at += 65536) conversation.feed(bytes.subarray(at, at + 65536));
      return conversation;
    },
    feedText: () => new Conversation().loadJson(lines),
  };
  if ((task === 'feed' && !has('feed')) || (task === 'framed' && !('session' in Conversation.prototype))) {
    console.log(JSON.stringify({ skipped: true }));
    return;
  }
  if (task === 'views') loaded.load(events);
  const times = [];
  for (let i = 0; i < WARMUP + RUNS; i++) {
    globalThis.gc?.();
    const start = performance.now();
    const result = runs[task]();
    const took = performance.now() - start;
    if (result instanceof Conversation) result.free();
    if (i >= WARMUP) times.push(took);
  }
  console.log(JSON.stringify({ times }));
}

function measure(build, workload, task) {
  const out = spawnSync(process.execPath, ['--expose-gc', '--max-old-space-size=8192', fileURLToPath(import.meta.url), '--child', build, workload, task], {
    encoding: 'utf8',
    maxBuffer: 1 << 24,
  });
  if (out.status !== 0) throw new Error(`${build} ${workload} ${task}: ${out.stderr}`);
  return JSON.parse(out.stdout.trim().split('\n').at(-1));
}

function main() {
  const builds = { old: option('old'), new: option('new', join(root, 'pkg', 'node')) };
  if (!builds.old || !existsSync(join(builds.old, 'promptfold.js'))) {
    console.error('compare-builds: --old DIR must be a built pkg/node folder');
    process.exit(2);
  }
  const rounds = Number(option('rounds', '3'));
  const workloads = option('workloads', 'typical-10k,prune-8k,typical-100k').split(',');
  const tasks = option('tasks', TASKS.join(',')).split(',');
  const rows = [];
  for (const workload of workloads) {
    for (const task of tasks) {
      const figures = { old: [], new: [] };
      for (let round = 0; round < rounds; round++) {
        const order = round % 2 === 0 ? ['old', 'new'] : ['new', 'old'];
        for (const name of order) {
          const result = measure(builds[name], workload, task);
          if (!result.skipped) figures[name].push(median(result.times));
        }
      }
      const row = { workload, task, old: figures.old.length ? median(figures.old) : undefined, new: median(figures.new) };
      row.ratio = row.old === undefined ? undefined : row.new / row.old;
      rows.push(row);
      const show = (ms) => (ms === undefined ? '-' : ms.toFixed(2));
      console.log(`${workload.padEnd(14)} ${task.padEnd(9)} old ${show(row.old).padStart(9)} ms  new ${show(row.new).padStart(9)} ms  ${row.ratio === undefined ? '' : `new/old ${row.ratio.toFixed(3)}`}`);
    }
  }
  console.log(JSON.stringify({ rounds, warmup: WARMUP, runs: RUNS, rows }));
}

if (process.argv[2] === '--child') await child(process.argv.slice(3));
else main();
