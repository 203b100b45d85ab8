// stateAt(seq) from JS, cold and warm, and "load earlier" page by page through the JS API.
//
//   node --expose-gc bench/js/state-at.mjs [--prepend] bench/data/typical-100k.json ...
//
// PROMPTFOLD_PKG picks the package (default pkg/node/promptfold.js), so two builds can be
// compared side by side. Prints one JSON object per file. Every figure is the median of 5
// repetitions, each after full GCs:
// - cold: one stateAt at the seq of every relevant event (a distinct state each), right after
//   a load (so no handle of the window exists yet);
// - warm: the same calls again;
// - random: 100,000 calls at seeded random seqs of the window (as bench/js/measure.mjs), after the
//   warm pass;
// - random + free(): the same, freeing each handle at once (each call then makes a handle).
// With --prepend: loads the newest 9,000 events and prepends 1,000-event pages (JS objects
// in) until everything is loaded, timing each prepend (median over 3 sequences).
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { seqs } from './seeded.mjs';

const here = dirname(fileURLToPath(import.meta.url));
if (typeof global.gc !== 'function') throw new Error('run with node --expose-gc');
const require = createRequire(import.meta.url);
const pf = require(process.env.PROMPTFOLD_PKG || join(here, '..', '..', 'pkg', 'node', 'promptfold.js'));

const collect = () => {
  for (let i = 0; i < 3; i++) global.gc();
};
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

/** Mean ns per call of `call` over `inputs`. */
function perCall(inputs, call) {
  const t = performance.now();
  for (let i = 0; i < inputs.length; i++) call(inputs[i]);
  return ((performance.now() - t) * 1e6) / inputs.length;
}

function stateAt(text, events) {
  const relevant = Float64Array.from(
    events.filter((e) => e.type === 'system/message' || e.surfaceOp?.op === 'replace').map((e) => e.seq),
  );
  const random = seqs(events[0].seq, events.at(-1).seq, 100_000);
  const c = new pf.Conversation();
  const runs = { cold: [], warm: [], random: [], randomFree: [] };
  let sink = 0;
  const use = (s) => {
    if (s !== undefined) sink++;
  };
  for (let run = 0; run < 5; run++) {
    c.loadJson(text);
    collect();
    runs.cold.push(perCall(relevant, (seq) => use(c.stateAt(seq))));
    runs.warm.push(perCall(relevant, (seq) => use(c.stateAt(seq))));
    runs.random.push(perCall(random, (seq) => use(c.stateAt(seq))));
    collect();
    runs.randomFree.push(perCall(random, (seq) => c.stateAt(seq)?.free()));
  }
  c.free();
  const ns = Object.fromEntries(Object.entries(runs).map(([k, v]) => [k, Math.round(median(v))]));
  return { relevantEvents: relevant.length, ns, sink };
}

function prepend(events) {
  const page = 1_000;
  const rows = new Map();
  for (let run = 0; run < 3; run++) {
    const c = new pf.Conversation();
    let end = events.length - 9_000;
    c.load(events.slice(end), { hasMore: true });
    while (end > 0) {
      const from = Math.max(0, end - page);
      const chunk = events.slice(from, end);
      const window = c.length;
      collect();
      const t = performance.now();
      const change = c.prepend(chunk, { hasMore: from > 0 });
      const ms = performance.now() - t;
      const cards = change.chat.added.length + change.chat.changed.length;
      if (!rows.has(window)) rows.set(window, { cards, ms: [] });
      rows.get(window).ms.push(ms);
      end = from;
    }
    c.free();
  }
  return [...rows].map(([window, { cards, ms }]) => [window, +median(ms).toFixed(2), cards]);
}

const args = process.argv.slice(2);
const doPrepend = args.includes('--prepend');
for (const file of args.filter((a) => !a.startsWith('--'))) {
  const text = readFileSync(file, 'utf8');
  const events = JSON.parse(text);
  const out = { file, stateAt: stateAt(text, events) };
  if (doPrepend) out.prepend = prepend(events);
  console.log(JSON.stringify(out));
}
