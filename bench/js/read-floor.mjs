// How much of a load from JS objects is the bare reading of the header values it must compare.
//
//   node --expose-gc bench/js/read-floor.mjs [RUNS] bench/data/prune-8k.json ...
//
// `Conversation.load` compares each request header's config and tools with the previous
// header's, exactly (JSON semantics, getters run in JSON's order), so it reads every node of
// them. This script times, in one process, rounds of (1) a walk that only reads every node of
// every header's config and tools (each member of each object, each item of each array, the
// length of each string: no comparison, no check) and (2) `load` of the same events, and prints
// the medians of RUNS rounds (default 15) after WARMUP rounds not counted (default 4: the
// packer's per-depth matchers take over after 4,096 comparisons, two loads of prune-heavy 2,000).
// The walk is a lower bound for any exact comparison written in JS; what it leaves of `load` is
// everything else (the other members of every event, and the wasm side). It also prints the bare
// read of every node of every event (allMs) and load / that (loadOverAll). PROMPTFOLD_PKG picks
// the package (default pkg/node/promptfold.js). bench/js/measure.mjs runs the same (readFloor) for
// BENCHMARKS.md, with fewer runs.
//
// Steadiness: on the shared 2-core host the read (3 to 5 ms on prune-heavy 2,000) is short
// enough that a round is either preempted by another process or not, and the median of a few
// rounds moved by 2x between processes of one build. So the read and the load alternate their
// order by round, each after full GCs and a pause for the collector's concurrent sweeping to end
// (READ_FLOOR_SETTLE_MS, default 5: without it, the sweeping after the GCs counted in the read's
// CPU time); besides the wall-clock medians (readMs, loadMs), it prints the median of the
// rounds' own ratios (loadOverRead: the read and the load of one round see the same machine)
// and the same from the process's CPU time (readCpuMs, loadCpuMs, loadOverReadCpu: time the
// process was not running, preempted by others, is not counted; time of V8's helper threads
// is). loadOverReadCpu is the steadiest of these on a loaded machine (see
// bench/notes/30-load-speed.md).
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { median } from './stats.mjs';

const here = dirname(fileURLToPath(import.meta.url));

// Full GCs, then a pause: V8 sweeps after a full GC on helper threads, which would otherwise
// share the 2 cores with the call timed next.
const SETTLE_MS = Number(process.env.READ_FLOOR_SETTLE_MS ?? 5);
const pause = new Int32Array(new SharedArrayBuffer(4));
const collect = () => {
  for (let i = 0; i < 3; i++) global.gc();
  Atomics.wait(pause, 0, 0, SETTLE_MS);
};

// The CPU time of the process so far, in ms (every thread: user and system).
const cpuMs = () => {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1000;
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

// [wall ms, CPU ms, what `body` returned].
function timed(body) {
  collect();
  const cpu = cpuMs();
  const start = performance.now();
  const result = body();
  const wall = performance.now() - start;
  return [wall, cpuMs() - cpu, result];
}

/**
 * Times rounds of the bare read of every header's config and tools in `events` and of `load` of
 * `events` by `pf` (the package), the two in turn first, each after full GCs: `warmup` rounds
 * not counted, then `runs` counted. Returns the headers, the nodes one read reads, the runs, the
 * medians in ms (wall clock: readMs, loadMs; the process's CPU time: readCpuMs, loadCpuMs) and
 * the medians of the rounds' ratios load / read (loadOverRead, loadOverReadCpu). With
 * `everything`, also the bare read of every node of every event (`allNodes`, `allMs`): what a
 * load from objects reads is between the two (it skips members the rules do not read, such as a
 * message's role, and reads the characters of the texts it measures).
 */
export function readFloor(pf, events, runs, warmup, everything = false) {
  const values = [];
  for (const event of events) {
    const header = event?.type === 'request/header' ? event.data?.header : undefined;
    if (header) values.push(header.config, header.tools);
  }
  const readHeaders = () => {
    let total = 0;
    for (const value of values) total += readAll(value);
    return total;
  };
  const load = () => {
    const conversation = new pf.Conversation();
    conversation.load(events);
    return conversation;
  };
  const times = { read: [], load: [], readCpu: [], loadCpu: [], ratio: [], ratioCpu: [], all: [] };
  let nodes = 0;
  let allNodes = 0;
  for (let run = 0; run < warmup + runs; run++) {
    const counted = run >= warmup;
    if (everything) {
      const [allMs, , count] = timed(() => {
        let total = 0;
        for (const event of events) total += readAll(event);
        return total;
      });
      allNodes = count;
      if (counted) times.all.push(allMs);
    }
    let read;
    let loaded;
    if (run % 2 === 0) {
      read = timed(readHeaders);
      loaded = timed(load);
    } else {
      loaded = timed(load);
      read = timed(readHeaders);
    }
    const [readMs, readCpuMs, count] = read;
    const [loadMs, loadCpuMs, conversation] = loaded;
    nodes = count;
    conversation.free();
    if (counted) {
      times.read.push(readMs);
      times.load.push(loadMs);
      times.readCpu.push(readCpuMs);
      times.loadCpu.push(loadCpuMs);
      times.ratio.push(loadMs / readMs);
      // A CPU time of 0 (a clock coarser than the read) gives no ratio.
      if (readCpuMs > 0) times.ratioCpu.push(loadCpuMs / readCpuMs);
    }
  }
  const result = {
    headers: values.length / 2,
    nodes,
    runs,
    warmup,
    readMs: median(times.read),
    loadMs: median(times.load),
    loadOverRead: median(times.ratio),
    readCpuMs: median(times.readCpu),
    loadCpuMs: median(times.loadCpu),
    loadOverReadCpu: median(times.ratioCpu),
  };
  return everything ? { ...result, allNodes, allMs: median(times.all) } : result;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  if (typeof global.gc !== 'function') throw new Error('run with node --expose-gc');
  const require = createRequire(import.meta.url);
  const pf = require(process.env.PROMPTFOLD_PKG || join(here, '..', '..', 'pkg', 'node', 'promptfold.js'));
  const args = process.argv.slice(2);
  const runs = /^\d+$/.test(args[0] ?? '') ? Number(args.shift()) : 15;
  const warmup = Number(process.env.READ_FLOOR_WARMUP ?? 4);
  const fixed = (value, digits) => (value === undefined ? null : Number(value.toFixed(digits)));
  for (const file of args) {
    const events = JSON.parse(readFileSync(file, 'utf8'));
    const floor = readFloor(pf, events, runs, warmup, true);
    const { headers, nodes, readMs, loadMs, allNodes, allMs } = floor;
    console.log(
      JSON.stringify({
        file,
        headers,
        runs,
        readNodes: nodes,
        readMs: fixed(readMs, 2),
        loadMs: fixed(loadMs, 2),
        readShareOfLoad: fixed(readMs / loadMs, 3),
        loadOverRead: fixed(floor.loadOverRead, 2),
        readCpuMs: fixed(floor.readCpuMs, 2),
        loadCpuMs: fixed(floor.loadCpuMs, 2),
        loadOverReadCpu: fixed(floor.loadOverReadCpu, 2),
        allNodes,
        allMs: fixed(allMs, 2),
        loadOverAll: fixed(loadMs / allMs, 2),
      }),
    );
  }
}
