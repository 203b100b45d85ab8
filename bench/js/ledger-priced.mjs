// What prices add to cacheLedger(): the same window's ledger without options, with a default
// price only, and with a price per model and a TTL, warm (repeated calls on one loaded window).
//
//   node bench/js/ledger-priced.mjs [runs] [workload,...] [PKG ...]   needs PKG/node (default pkg/) and bench/data
//
// Per workload and build, one window is loaded and its views() taken once; then every round
// makes the three calls in turn, in every build in turn (so several builds are measured side by
// side; a call pays for collecting the garbage of the calls before it, as in use). `runs`
// rounds (default 15) after 3 not counted; medians in ms, one JSON line per workload and build.
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { performance } from 'node:perf_hooks';
import { DATA_DIR } from './gen.mjs';
import { WORKLOADS } from './workloads.mjs';

const runs = Number(process.argv[2] ?? 15);
const names = process.argv[3] ? process.argv[3].split(',') : WORKLOADS.map((w) => w.name);
const dirs = process.argv.length > 4 ? process.argv.slice(4) : [join(import.meta.dirname, '..', '..', 'pkg')];
const builds = [];
for (const dir of dirs) {
  const { Conversation } = await import(join(resolve(dir), 'node', 'promptfold.mjs'));
  builds.push({ dir, Conversation });
}
const PRICE = { input: 0.27, cacheRead: 0.07, output: 1.1 };
const CALLS = {
  unpriced: undefined,
  defaultPrice: { prices: { default: PRICE } },
  modelsAndTtl: { prices: { default: PRICE, models: { 'deepseek-chat': PRICE } }, cacheTtlMs: 300_000 },
};

const median = (values) => values.slice().sort((a, b) => a - b)[Math.floor(values.length / 2)];

for (const name of names) {
  const text = readFileSync(join(DATA_DIR, `${name}.json`));
  const windows = builds.map(({ Conversation }) => {
    const conversation = new Conversation();
    conversation.loadJson(text);
    conversation.views();
    return conversation;
  });
  const times = builds.map(() => Object.fromEntries(Object.keys(CALLS).map((call) => [call, []])));
  for (let round = 0; round < runs + 3; round++) {
    windows.forEach((conversation, b) => {
      for (const [call, options] of Object.entries(CALLS)) {
        const start = performance.now();
        conversation.cacheLedger(options);
        const ms = performance.now() - start;
        if (round >= 3) times[b][call].push(ms);
      }
    });
  }
  builds.forEach(({ dir }, b) => {
    const row = { workload: name, ...(builds.length > 1 ? { build: dir } : {}) };
    for (const call of Object.keys(CALLS)) row[`${call}Ms`] = median(times[b][call]);
    console.log(JSON.stringify(row));
  });
  for (const conversation of windows) conversation.free();
}
