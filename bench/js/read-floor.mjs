// How much of a load from JS objects is the bare reading of the header values it must compare.
//
//   node --expose-gc bench/js/read-floor.mjs [RUNS] bench/data/prune-8k.json ...
//
// `Conversation.load` compares each request header's config and tools with the previous
// header's, exactly (JSON semantics, getters run in JSON's order), so it reads every node of
// them. This script times, in one process and alternating, (1) a walk that only reads every
// node of every header's config and tools (each member of each object, each item of each
// array, the length of each string: no comparison, no check) and (2) `load` of the same
// events, each after full GCs, and prints the medians of RUNS (default 15) after 2 not counted.
// The walk is a lower bound for any exact comparison written in JS; what it leaves of `load` is
// everything else (the other members of every event, and the wasm side). It also prints the bare
// read of every node of every event (allMs) and load / that (loadOverAll). PROMPTFOLD_PKG picks
// the package (default pkg/node/promptfold.js). bench/js/measure.mjs runs the same (readFloor) for
// BENCHMARKS.md, with fewer runs.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { median } from './stats.mjs';

const here = dirname(fileURLToPath(import.meta.url));

const collect = () => {
  for (let i = 0; i < 3; i++) global.gc();
};

// Reads every node of `value` and returns how many it read (which keeps the reads from being
// optimized away); a string's length is read, its characters are not.
function readAll(value) {
  if (typeof value === 'string') return value.length >= 0 ? 1 : 0;
  if (typeof value !== 'object' || value === null) return 1;
  let count = 1;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) count += readAll(value[i]);
  } else {
    for (const key in value) count += readAll(value[key]);
  }
  return count;
}

function timed(body) {
  collect();
  const start = performance.now();
  const result = body();
  return [performance.now() - start, result];
}

/**
 * Times, alternating, the bare read of every header's config and tools in `events` and `load` of
 * `events` by `pf` (the package), each after full GCs: `warmup` runs of each not counted, then
 * `runs` counted. Returns the headers, the nodes one read reads, the runs, and the medians in ms.
 * With `everything`, also the bare read of every node of every event (`allNodes`, `allMs`): what
 * a load from objects reads is between the two (it skips members the rules do not read, such as
 * a message's role, and reads the characters of the texts it measures).
 */
export function readFloor(pf, events, runs, warmup, everything = false) {
  const values = [];
  for (const event of events) {
    const header = event?.type === 'request/header' ? event.data?.header : undefined;
    if (header) values.push(header.config, header.tools);
  }
  const read = [];
  const load = [];
  const all = [];
  let nodes = 0;
  let allNodes = 0;
  for (let run = 0; run < warmup + runs; run++) {
    if (everything) {
      const [allMs, count] = timed(() => {
        let total = 0;
        for (const event of events) total += readAll(event);
        return total;
      });
      allNodes = count;
      if (run >= warmup) all.push(allMs);
    }
    const [readMs, count] = timed(() => {
      let total = 0;
      for (const value of values) total += readAll(value);
      return total;
    });
    nodes = count;
    const [loadMs, conversation] = timed(() => {
      const c = new pf.Conversation();
      c.load(events);
      return c;
    });
    conversation.free();
    if (run >= warmup) {
      read.push(readMs);
      load.push(loadMs);
    }
  }
  const result = { headers: values.length / 2, nodes, runs, warmup, readMs: median(read), loadMs: median(load) };
  return everything ? { ...result, allNodes, allMs: median(all) } : result;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  if (typeof global.gc !== 'function') throw new Error('run with node --expose-gc');
  const require = createRequire(import.meta.url);
  const pf = require(process.env.PROMPTFOLD_PKG || join(here, '..', '..', 'pkg', 'node', 'promptfold.js'));
  const args = process.argv.slice(2);
  const runs = /^\d+$/.test(args[0] ?? '') ? Number(args.shift()) : 15;
  for (const file of args) {
    const events = JSON.parse(readFileSync(file, 'utf8'));
    const { headers, nodes, readMs, loadMs, allNodes, allMs } = readFloor(pf, events, runs, 2, true);
    console.log(
      JSON.stringify({
        file,
        headers,
        runs,
        readNodes: nodes,
        readMs: Number(readMs.toFixed(2)),
        loadMs: Number(loadMs.toFixed(2)),
        readShareOfLoad: Number((readMs / loadMs).toFixed(3)),
        allNodes,
        allMs: Number(allMs.toFixed(2)),
        loadOverAll: Number((loadMs / allMs).toFixed(2)),
      }),
    );
  }
}
