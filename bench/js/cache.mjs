// cacheLedger() against views() on every bench workload (issue 26: at most a quarter of views()).
//
//   node bench/js/cache.mjs [runs]     needs pkg/node (scripts/build.sh) and bench/data (gen.mjs)
//
// One loadJson per workload, then `runs` rounds (default 7, after 2 not counted) alternating
// views(), cacheLedger() and cacheLedger(with prices and a TTL); prints medians as JSON lines.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { DATA_DIR } from './gen.mjs';
import { WORKLOADS } from './workloads.mjs';

const { Conversation } = await import(join(import.meta.dirname, '..', '..', 'pkg', 'node', 'promptfold.mjs'));
const runs = Number(process.argv[2] ?? 7);
const OPTIONS = {
  prices: { default: { input: 0.27, cacheRead: 0.07, output: 1.1 }, models: { 'deepseek-chat': { input: 0.27, cacheRead: 0.07, output: 1.1 } } },
  cacheTtlMs: 300_000,
};

const median = (values) => values.slice().sort((a, b) => a - b)[Math.floor(values.length / 2)];
const time = (f) => {
  const start = performance.now();
  f();
  return performance.now() - start;
};

for (const workload of WORKLOADS) {
  const text = readFileSync(join(DATA_DIR, `${workload.name}.json`));
  const conversation = new Conversation();
  conversation.loadJson(text);
  const views = [];
  const ledger = [];
  const priced = [];
  for (let i = 0; i < runs + 2; i++) {
    const v = time(() => conversation.views());
    const l = time(() => conversation.cacheLedger());
    const p = time(() => conversation.cacheLedger(OPTIONS));
    if (i >= 2) {
      views.push(v);
      ledger.push(l);
      priced.push(p);
    }
  }
  const requests = conversation.cacheLedger().requests.length;
  const row = {
    workload: workload.name,
    requests,
    viewsMs: median(views),
    cacheLedgerMs: median(ledger),
    pricedMs: median(priced),
  };
  row.ratio = row.cacheLedgerMs / row.viewsMs;
  console.log(JSON.stringify(row));
  conversation.free();
}
