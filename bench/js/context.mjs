// The cost of the surface fold (docs/context.md), side by side with a build without it, and the
// contexts against a naive reference fold.
//
//   node --expose-gc bench/js/context.mjs <baseline pkg/node folder> [rounds] [this pkg/node folder]
//
// For typical-100k, prune-32k and prune-8k (bench/data/, made by `node bench/js/gen.mjs`),
// each round runs one fresh node process per build and workload, alternating the builds, and
// measures there, JS objects in (`load`):
// - load: median of 5 `load` calls after 2 not counted, each after full GCs;
// - views: median of 5 `views()` calls after 2 not counted;
// - memory: growth of the JS heap plus the wasm memory across the first `load` of the process,
//   the conversation alive, after full GCs (the wasm memory never shrinks: its growth is the
//   call's peak, an upper bound on what is kept);
// - this build only: `contextSummaryAt` at 100,000 and `contextAt` at 2,000 seeded random seqs
//   (mean per call), and on prune-8k the reference: each request's context folded again from
//   the window start, no sharing (the upstream-style way: a sorted array, binary searches), for
//   200 requests spread evenly, its time scaled to every request, against `load` + `views()`
//   (which give every request's breakdown); the sampled breakdowns are checked equal.
// Prints one table; every figure is the median over the rounds, ratios from the same rounds.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { seqs } from './seeded.mjs';
import { dataPath } from './gen.mjs';
import { median } from './stats.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const ours = resolve(process.argv[4] ?? join(here, '..', '..', 'pkg', 'node'), 'promptfold.js');
const WORKLOADS = ['typical-100k', 'prune-32k', 'prune-8k'];

const collect = () => {
  for (let i = 0; i < 3; i++) global.gc();
};

function timed(call, runs = 5, warmup = 2) {
  const times = [];
  for (let i = 0; i < warmup + runs; i++) {
    collect();
    const t = performance.now();
    call();
    if (i >= warmup) times.push(performance.now() - t);
  }
  return median(times);
}

// UTF-16 lengths and JSON lengths, as the heuristic reads them (docs/context.md).
const ceil4 = (n) => Math.ceil(n / 4);
function blockCost(block) {
  if (block !== null && typeof block === 'object' && !Array.isArray(block)) {
    if ((block.type === 'text' || block.type === 'reasoning') && typeof block.text === 'string') return ceil4(block.text.length) + 4;
    if (block.type === 'tool-call') {
      const name = typeof block.name === 'string' ? block.name.length : 0;
      const args = block.arguments;
      const length = typeof args === 'string' ? args.length : args === undefined ? 0 : JSON.stringify(args).length;
      return ceil4(name) + ceil4(length) + 4;
    }
  }
  return 4 + ceil4((JSON.stringify(block) ?? 'null').length);
}
function contentCost(content) {
  if (typeof content === 'string') return ceil4(content.length) + 4;
  return Array.isArray(content) ? content.reduce((sum, block) => sum + blockCost(block), 0) : 0;
}
function nodeOf(event) {
  const data = event.data ?? {};
  switch (event.type) {
    case 'system/message': {
      const length = (data.message?.content ?? []).reduce((n, b) => n + (b?.type === 'text' && typeof b.text === 'string' ? b.text.length : 0), 0);
      return { system: true, tokens: length === 0 ? 0 : ceil4(length) + 4 };
    }
    case 'user/message':
      return { system: false, tokens: contentCost(data.content) + 4 };
    case 'assistant/message': case 'tool/result': case 'developer/message':
      return { system: false, tokens: contentCost(data.message?.content) + 4 };
    default:
      return null;
  }
}

// The reference: the breakdown at `seq`, folded from the window start with a sorted array (by
// position, then seq; binary searches) and a map of the nodes that sit in place of others.
function referenceBreakdown(events, seq) {
  const nodes = [];
  const moved = new Map();
  let tools = 0;
  const at = (position, seq) => {
    let lo = 0, hi = nodes.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      const n = nodes[mid];
      if (n.position < position || (n.position === position && n.seq < seq)) lo = mid + 1; else hi = mid;
    }
    return lo;
  };
  for (const event of events) {
    if (event.seq > seq) break;
    if (event.type === 'request/header') {
      const list = event.data?.header?.tools;
      tools = Array.isArray(list) && list.length > 0 ? ceil4(JSON.stringify(list).length) + 4 : 0;
    }
    const node = nodeOf(event);
    const op = event.surfaceOp;
    const replace = op !== null && typeof op === 'object' && op.op === 'replace';
    if (!node && !replace) continue;
    let position = event.seq;
    if (replace) {
      const from = moved.get(op.startSeq) ?? op.startSeq, to = moved.get(op.endSeq) ?? op.endSeq;
      const first = at(from, -Infinity), end = at(to, Infinity);
      for (const dropped of nodes.splice(first, Math.max(0, end - first))) moved.delete(dropped.seq);
      position = from;
      moved.set(event.seq, position);
    }
    nodes.splice(at(position, event.seq), 0, { position, seq: event.seq, node });
  }
  let system = 0, systems = 0, messages = 0;
  for (const { node } of nodes) {
    if (!node) continue;
    if (node.system) {
      systems += node.tokens;
      if (node.tokens > 0) system = node.tokens;
    } else messages += node.tokens;
  }
  return { systemTokens: system, supersededSystemTokens: systems - system, toolsTokens: tools, messageTokens: messages, totalTokens: system + (systems - system) + tools + messages };
}

function child(pkgPath, workload, withExtras) {
  const require = createRequire(import.meta.url);
  const pf = require(pkgPath);
  const events = JSON.parse(readFileSync(dataPath(workload), 'utf8'));
  // The code compiled and the input's text collected before the first measured load.
  const warm = new pf.Conversation();
  warm.load(events.slice(0, 200));
  warm.free();
  collect();
  const before = process.memoryUsage().heapUsed + pf.wasmMemoryBytes();
  const kept = new pf.Conversation();
  kept.load(events);
  collect();
  const memory = process.memoryUsage().heapUsed + pf.wasmMemoryBytes() - before;
  const conversation = new pf.Conversation();
  const load = timed(() => conversation.load(events));
  const views = timed(() => conversation.views());
  const result = { load, views, memory };
  if (withExtras) {
    const random = seqs(events[0].seq, events.at(-1).seq, 100_000);
    const perCall = (call) => {
      const t = performance.now();
      for (let i = 0; i < random.length; i++) call(random[i]);
      return ((performance.now() - t) * 1e6) / random.length;
    };
    let sink = 0;
    perCall((seq) => { sink += conversation.contextSummaryAt(seq).totalTokens; });
    result.summaryNs = median([1, 2, 3].map(() => perCall((seq) => { sink += conversation.contextSummaryAt(seq).totalTokens; })));
    const few = random.slice(0, 2_000);
    const t = performance.now();
    for (const seq of few) sink += conversation.contextAt(seq).nodes.length;
    result.contextAtUs = ((performance.now() - t) * 1e3) / few.length;
    if (workload === 'prune-8k') {
      const requests = conversation.views().trajectory.requests;
      const fast = timed(() => {
        const c = new pf.Conversation();
        c.load(events);
        sink += c.views().trajectory.requests.length;
        c.free();
      }, 3, 1);
      // Every request would take hours: 200 spread evenly are folded, and the time scaled.
      const step = Math.max(1, Math.floor(requests.length / 200));
      const sample = requests.filter((_, i) => i % step === 0);
      const t0 = performance.now();
      let same = 0;
      for (const request of sample) {
        const reference = referenceBreakdown(events, request.context.seq);
        const { systemTokens, supersededSystemTokens, toolsTokens, messageTokens, totalTokens } = request.context;
        const breakdown = { systemTokens, supersededSystemTokens, toolsTokens, messageTokens, totalTokens };
        if (JSON.stringify(reference) === JSON.stringify(breakdown)) same++;
      }
      const ms = ((performance.now() - t0) * requests.length) / sample.length;
      result.reference = { ms, promptfoldMs: fast, requests: requests.length, sampled: sample.length, same };
    }
    if (sink === -1) console.log(sink);
  }
  kept.free();
  conversation.free();
  return result;
}

const args = process.argv.slice(2);
if (args[0] === '--child') {
  if (typeof global.gc !== 'function') throw new Error('run with node --expose-gc');
  process.stdout.write(JSON.stringify(child(args[1], args[2], args[3] === 'extras')));
} else {
  const baseline = resolve(args[0] ?? '', 'promptfold.js');
  const rounds = Number(args[1] ?? 3);
  const run = (pkg, workload, extras) => JSON.parse(execFileSync(process.execPath,
    ['--expose-gc', '--max-old-space-size=8192', fileURLToPath(import.meta.url), '--child', pkg, workload, extras ? 'extras' : ''],
    { encoding: 'utf8', maxBuffer: 1 << 24 }));
  const results = {};
  for (const workload of WORKLOADS) {
    results[workload] = { base: [], ours: [] };
    for (let round = 0; round < rounds; round++) {
      results[workload].base.push(run(baseline, workload, false));
      results[workload].ours.push(run(ours, workload, true));
    }
  }
  const med = (list, key) => median(list.map((r) => r[key]));
  const ratio = (w, key) => median(results[w].ours.map((r, i) => r[key] / results[w].base[i][key]));
  console.log(`node ${process.version}; ${rounds} rounds, builds alternating; baseline ${args[0]}`);
  console.log('| workload | load base / this (ms) | ratio | views() base / this (ms) | ratio | memory base / this (MB) | ratio | contextSummaryAt | contextAt |');
  console.log('|---|---|---|---|---|---|---|---|---|');
  for (const w of WORKLOADS) {
    const { base, ours: mine } = results[w];
    const mb = (x) => (x / 2 ** 20).toFixed(1);
    console.log(`| ${w} | ${med(base, 'load').toFixed(1)} / ${med(mine, 'load').toFixed(1)} | ${ratio(w, 'load').toFixed(2)}x `
      + `| ${med(base, 'views').toFixed(2)} / ${med(mine, 'views').toFixed(2)} | ${ratio(w, 'views').toFixed(2)}x `
      + `| ${mb(med(base, 'memory'))} / ${mb(med(mine, 'memory'))} | ${ratio(w, 'memory').toFixed(2)}x `
      + `| ${med(mine, 'summaryNs').toFixed(0)} ns | ${med(mine, 'contextAtUs').toFixed(1)} µs |`);
  }
  const refs = results['prune-8k'].ours.map((r) => r.reference);
  const refMs = median(refs.map((r) => r.ms)), fastMs = median(refs.map((r) => r.promptfoldMs));
  console.log(`\nprune-8k: reference fold of every request's context ${refMs.toFixed(0)} ms vs load + views() ${fastMs.toFixed(1)} ms: `
    + `${median(refs.map((r) => r.ms / r.promptfoldMs)).toFixed(0)}x; ${refs[0].requests} requests `
    + `(${refs[0].sampled} folded, time scaled to all), ${refs[0].same} of ${refs[0].sampled} breakdowns equal`);
}
