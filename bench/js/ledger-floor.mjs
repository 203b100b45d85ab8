// The floor under cacheLedger() in JS (issue 26: the ledger at most a quarter of views()): how
// long building the ledger's result alone takes, as plain objects of the shapes the API returns,
// against the first views() of the same window.
//
//   node --expose-gc bench/js/ledger-floor.mjs [runs] [PKG]   needs PKG/node (default pkg/) and bench/data
//
// Per workload, `runs` rounds (default 9) after 2 not counted, each on a fresh loadJson: the
// first views(), the first cacheLedger() with prices, then `copy`: the result rebuilt from the
// ledger just returned, entry by entry, with one object literal per object of the result
// (entries, causes, observed, cost, summary). `copy` reads JS objects that are already decoded,
// its functions are warm after the first rounds, and it never touches wasm, so it is a lower
// bound of any cacheLedger() that returns these plain objects. Medians, as JSON lines.
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { performance } from 'node:perf_hooks';
import { DATA_DIR } from './gen.mjs';
import { WORKLOADS } from './workloads.mjs';

const runs = Number(process.argv[2] ?? 9);
const dir = resolve(process.argv[3] ?? join(import.meta.dirname, '..', '..', 'pkg'));
const { Conversation } = await import(join(dir, 'node', 'promptfold.mjs'));
const OPTIONS = { prices: { default: { input: 0.27, cacheRead: 0.07, output: 1.1 } }, cacheTtlMs: 300_000 };

const median = (values) => values.slice().sort((a, b) => a - b)[Math.floor(values.length / 2)];
const time = (f) => {
  const start = performance.now();
  const value = f();
  return [performance.now() - start, value];
};

const copyCause = (cause) => ({ ...cause });
const copyObserved = (observed) => ({
  inputTokens: observed.inputTokens,
  outputTokens: observed.outputTokens,
  cacheReadTokens: observed.cacheReadTokens,
  cacheWriteTokens: observed.cacheWriteTokens,
  uncachedInputTokens: observed.uncachedInputTokens,
});
const copyCost = (cost) =>
  cost === undefined
    ? undefined
    : {
        input: cost.input,
        cacheRead: cost.cacheRead,
        cacheWrite: cost.cacheWrite,
        output: cost.output,
        total: cost.total,
        estimated: cost.estimated,
      };
const copyEntry = (entry) => ({
  seq: entry.seq,
  readSeq: entry.readSeq,
  route: entry.route,
  totalTokens: entry.totalTokens,
  supersededSystemTokens: entry.supersededSystemTokens,
  toolsTokens: entry.toolsTokens,
  keptTokens: entry.keptTokens,
  newTokens: entry.newTokens,
  brokenTokens: entry.brokenTokens,
  causes: entry.causes.length === 0 ? [] : entry.causes.map(copyCause),
  observed: copyObserved(entry.observed),
  shortfallTokens: entry.shortfallTokens,
  savedTokens: entry.savedTokens,
  cost: copyCost(entry.cost),
});
const copy = (ledger) => {
  const requests = new Array(ledger.requests.length);
  for (let i = 0; i < requests.length; i++) requests[i] = copyEntry(ledger.requests[i]);
  return { requests, summary: structuredClone(ledger.summary) };
};

for (const workload of WORKLOADS) {
  const text = readFileSync(join(DATA_DIR, `${workload.name}.json`));
  const views = [];
  const ledgers = [];
  const copies = [];
  let requests = 0;
  for (let round = 0; round < runs + 2; round++) {
    globalThis.gc?.();
    const conversation = new Conversation();
    conversation.loadJson(text);
    const [v] = time(() => conversation.views());
    const [l, ledger] = time(() => conversation.cacheLedger(OPTIONS));
    globalThis.gc?.();
    const [c, copied] = time(() => copy(ledger));
    if (copied.requests.length !== ledger.requests.length) throw new Error('copy lost entries');
    requests = ledger.requests.length;
    conversation.free();
    if (round < 2) continue;
    views.push(v);
    ledgers.push(l);
    copies.push(c);
  }
  const [v, l, c] = [median(views), median(ledgers), median(copies)];
  console.log(
    JSON.stringify({
      workload: workload.name,
      requests,
      viewsMs: +v.toFixed(3),
      ledgerMs: +l.toFixed(3),
      copyMs: +c.toFixed(3),
      ledgerOverViews: +(l / v).toFixed(3),
      copyOverViews: +(c / v).toFixed(3),
      copyOverLedger: +(c / l).toFixed(3),
    }),
  );
}
