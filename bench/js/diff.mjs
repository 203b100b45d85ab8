// Prompt diffs through the JS API (wasm, node), and load / views() beside another build.
//
//   node --expose-gc bench/js/diff.mjs [--compare path/to/other/pkg/node/promptfold.js]
//
// PROMPTFOLD_PKG picks the package (default pkg/node/promptfold.js). Inputs are generated here
// from fixed seeds: Markdown prompts of prose lines (about 60 bytes each, a heading every 12
// lines). Figures are medians of the repetitions given, each call timed alone:
// - 20 KB, three sections edited: diffPrompts of two 20 KB prompts differing in three sections;
// - 1 MiB unrelated: two 1 MiB prompts from different seeds (no line in common);
// - 1 MiB, few distinct lines: two 1 MiB prompts of 20 distinct lines in random order (the
//   diff's worst case: past the work bound, replaced whole);
// - cardDiff cold / warm: an update card of a conversation whose prompts are the 20 KB pair,
//   first call after load, then the kept diff;
// - load + views(): the update-heavy workload of bench/gen.mjs (10,000 steps), this build and,
//   with --compare, the other build, alternating runs (the diff code must not change them).
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { generate } from './gen.mjs';
import { median } from './stats.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const require = createRequire(import.meta.url);
const pf = require(process.env.PROMPTFOLD_PKG || join(here, '..', '..', 'pkg', 'node', 'promptfold.js'));
const compareAt = process.argv.indexOf('--compare');
const other = compareAt > 0 ? require(process.argv[compareAt + 1]) : undefined;
const collect = () => global.gc?.();

function random(seed) {
  let state = seed >>> 0;
  return () => {
    state = (Math.imul(state, 1664525) + 1013904223) >>> 0;
    return state / 2 ** 32;
  };
}

const WORDS = ('the model reads tool output before it edits a file and runs the tests when ' +
  'asked never guess paths search first keep answers short use the shell for builds').split(' ');

/** A Markdown prompt of about `bytes` bytes. */
function prompt(bytes, seed) {
  const next = random(seed);
  const lines = [];
  let size = 0;
  for (let i = 0; size < bytes; i++) {
    const line = i % 12 === 0
      ? `## Section ${seed}-${i / 12}`
      : Array.from({ length: 8 + Math.floor(next() * 6) }, () => WORDS[Math.floor(next() * WORDS.length)]).join(' ') + ` (${Math.floor(next() * 1e6)})`;
    lines.push(line);
    size += line.length + 1;
  }
  return lines.join('\n');
}

/** `text` with lines changed in three sections (at 20 %, 50 % and 80 % of it). */
function editThree(text) {
  const lines = text.split('\n');
  for (const at of [0.2, 0.5, 0.8]) {
    const i = Math.floor(lines.length * at);
    lines.splice(i, 2, `changed line at ${at}`, 'a line added here', 'and another one');
  }
  return lines.join('\n');
}

function fewDistinct(bytes, seed) {
  const next = random(seed);
  const lines = [];
  for (let size = 0; size < bytes; ) {
    const line = `repeated line number ${Math.floor(next() * 20)}`;
    lines.push(line);
    size += line.length + 1;
  }
  return lines.join('\n');
}

function time(runs, call) {
  const times = [];
  let result;
  for (let i = 0; i < runs; i++) {
    const started = performance.now();
    result = call();
    times.push(performance.now() - started);
  }
  return { ms: median(times), result };
}

const report = {};
const small = [prompt(20_000, 1), undefined];
small[1] = editThree(small[0]);
time(20, () => pf.diffPrompts(small[0], small[1])); // warm-up
const twenty = time(101, () => pf.diffPrompts(small[0], small[1]));
report['20 KB, three sections edited'] = { ms: twenty.ms, added: twenty.result.system.added, removed: twenty.result.system.removed, changedSections: twenty.result.system.sections.filter((s) => s.status !== 'unchanged').length };

const unrelated = [prompt(1 << 20, 2), prompt(1 << 20, 3)];
const big = time(11, () => pf.diffPrompts(unrelated[0], unrelated[1]));
report['1 MiB unrelated'] = { ms: big.ms, added: big.result.system.added, removed: big.result.system.removed, replacedWhole: big.result.system.replacedWhole };

const worst = [fewDistinct(1 << 20, 4), fewDistinct(1 << 20, 5)];
const bounded = time(11, () => pf.diffPrompts(worst[0], worst[1]));
report['1 MiB, few distinct lines'] = { ms: bounded.ms, replacedWhole: bounded.result.system.replacedWhole };

// A conversation with one update card comparing the 20 KB pair.
const system = (seq, step, text) => ({
  seq, time: seq, type: 'system/message', surfaceOp: 'append',
  data: { turn: 1, step, message: { role: 'system', content: [{ type: 'text', text }] } },
});
const cold = [];
const warm = [];
for (let i = 0; i < 51; i++) {
  const conversation = new pf.Conversation();
  conversation.load([system(1, 1, small[0]), system(2, 2, small[1])]);
  let started = performance.now();
  conversation.cardDiff('system:2');
  cold.push(performance.now() - started);
  started = performance.now();
  conversation.cardDiff('system:2');
  warm.push(performance.now() - started);
  conversation.free();
}
report['cardDiff, 20 KB update card'] = { coldMs: median(cold), warmMs: median(warm) };

// load + views() of the update-heavy workload, alternating builds.
const events = generate({ kind: 'update', size: 10_000, seed: 7 });
const builds = other ? [['this', pf], ['other', other]] : [['this', pf]];
const loads = Object.fromEntries(builds.map(([name]) => [name, { load: [], views: [] }]));
for (let round = 0; round < 7; round++) {
  for (const [name, build] of builds) {
    collect();
    const conversation = new build.Conversation();
    let started = performance.now();
    conversation.load(events);
    loads[name].load.push(performance.now() - started);
    started = performance.now();
    conversation.views();
    loads[name].views.push(performance.now() - started);
    conversation.free();
  }
}
for (const [name] of builds) {
  report[`update-heavy 10,000 steps, ${name} build`] = { loadMs: median(loads[name].load), viewsMs: median(loads[name].views) };
}
if (other) {
  report['ratio this / other'] = {
    load: median(loads.this.load) / median(loads.other.load),
    views: median(loads.this.views) / median(loads.other.views),
  };
}
console.log(JSON.stringify({ node: process.version, ...report }, null, 2));
