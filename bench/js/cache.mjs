// cacheLedger() against views() on every bench workload (issue 26: at most a quarter of views()).
//
//   node bench/js/cache.mjs [--cpu] [runs] [PKG ...]   needs pkg/node (scripts/build.sh) and bench/data (gen.mjs)
//
// Each round loads the workload afresh (loadJson) and times the first views(), a second
// views() (which finds the texts the first one made in JS), the first cacheLedger() and the
// first cacheLedger(with prices and a TTL) after that load, so no ledger reads anything an
// earlier call left behind. `ratio` is the ledger over the first views(), `ratioWarm` over the
// second. `runs` rounds (default 7) after 2 not counted;
// prints medians as JSON lines. With several PKG directories (each holding a node/ build, e.g.
// a copy of pkg/ from another commit), the builds alternate within every round, so their
// ratios are measured side by side; the default is this checkout's pkg/. With --cpu, each call
// is timed by the process's CPU time (process.cpuUsage: user and system, every thread) instead
// of the wall clock: on a machine shared with other work, time spent waiting for a core is then
// not counted.
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { performance } from 'node:perf_hooks';
import { DATA_DIR } from './gen.mjs';
import { WORKLOADS } from './workloads.mjs';

const args = process.argv.slice(2);
const cpu = args[0] === '--cpu';
if (cpu) args.shift();
const runs = Number(args[0] ?? 7);
const dirs = args.length > 1 ? args.slice(1) : [join(import.meta.dirname, '..', '..', 'pkg')];
const builds = [];
for (const dir of dirs) {
  const { Conversation } = await import(join(resolve(dir), 'node', 'promptfold.mjs'));
  builds.push({ dir, Conversation });
}
const OPTIONS = {
  prices: {
    default: { input: 0.27, cacheRead: 0.07, output: 1.1 },
    models: { 'deepseek-chat': { input: 0.27, cacheRead: 0.07, output: 1.1 } },
  },
  cacheTtlMs: 300_000,
};

const median = (values) => values.slice().sort((a, b) => a - b)[Math.floor(values.length / 2)];
const cpuMs = () => {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1000;
};
const clock = cpu ? cpuMs : () => performance.now();
const time = (f) => {
  const start = clock();
  f();
  return clock() - start;
};

for (const workload of WORKLOADS) {
  const text = readFileSync(join(DATA_DIR, `${workload.name}.json`));
  const times = builds.map(() => ({ views: [], warm: [], ledger: [], priced: [] }));
  let requests;
  for (let i = 0; i < runs + 2; i++) {
    builds.forEach(({ Conversation }, b) => {
      const conversation = new Conversation();
      conversation.loadJson(text);
      const v = time(() => conversation.views());
      const w = time(() => conversation.views());
      let ledger;
      const l = time(() => {
        ledger = conversation.cacheLedger();
      });
      const p = time(() => conversation.cacheLedger(OPTIONS));
      requests = ledger.requests.length;
      conversation.free();
      if (i >= 2) {
        times[b].views.push(v);
        times[b].warm.push(w);
        times[b].ledger.push(l);
        times[b].priced.push(p);
      }
    });
  }
  builds.forEach(({ dir }, b) => {
    const row = {
      workload: workload.name,
      ...(builds.length > 1 ? { build: dir } : {}),
      requests,
      viewsMs: median(times[b].views),
      viewsWarmMs: median(times[b].warm),
      cacheLedgerMs: median(times[b].ledger),
      pricedMs: median(times[b].priced),
    };
    row.ratio = row.cacheLedgerMs / row.viewsMs;
    row.ratioWarm = row.cacheLedgerMs / row.viewsWarmMs;
    console.log(JSON.stringify(row));
  });
}
