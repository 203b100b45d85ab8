// Runs every benchmark and writes bench/results/performance.md, bench/results/raw.json and
// bench/results/time-vs-size.svg (run by scripts/bench.sh; not part of the package).
//
//   node bench/js/run.mjs [--quick]
//   node bench/js/run.mjs --report      rewrites the report and the plot from bench/results/raw.json
//
// Each JS measurement runs in a fresh `node --expose-gc` process (bench/js/measure.mjs), so heap
// and wasm memory figures are not polluted by earlier work and the wasm memory (which only
// grows) starts from the module's initial size. The baseline runs with a capped heap and a
// time limit; a run that hits either is reported as such and gets no ratio. Every figure in the
// report comes from this run: nothing is hard-coded.

import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { DATA_DIR, dataPath } from './gen.mjs';
import { median } from './stats.mjs';
import { WORKLOADS } from './workloads.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const root = join(here, '..', '..');
const resultsDir = join(root, 'bench', 'results');
const quick = process.argv.includes('--quick');
const started = Date.now();
const scriptStart = Number(process.env.BENCH_START_MS || started);

// Limits per measurement process. The baseline runs with a capped heap; a run that hits a
// limit is reported as such and gets no ratio.
const BASELINE_HEAP_MB = 4096;
const BASELINE_FIRST_TIMEOUT_MS = 20_000; // the first baseline fold (memory) of a workload
const BASELINE_TIMEOUT_MS = 120_000; // the repeated baseline runs
// The first promptfold load in a fresh process is stopped at three times its repeated-run
// median, within 5 s to 20 s (see main).
const GROW_FACTOR = 7; // wasm memory grown to this times the JSON size before repeated runs
const PF_TIMEOUT_MS = 120_000; // the repeated promptfold runs
// Rounds per workload (see main; odd, so that medianRun has a middle), and the repeated runs
// per round: promptfold's loads of each kind, the baseline's folds when its first fold is fast.
const ROUNDS = 3;
const PF_ROUND_RUNS = quick ? 1 : 2;
const BASELINE_ROUND_RUNS = quick ? 1 : 2;
// Calls not counted before the repeated runs of a process (the baseline's only when its first
// fold is fast): V8 was still optimizing promptfold's JS during the second call of a process
// (node --trace-opt), and the same number of warm-up calls is given to the baseline.
const WARMUP_RUNS = quick ? 1 : 2;
const NATIVE_RUNS = 3;
// Whole load-then-prepend sequences, each in a fresh process; every row is their median.
const PREPEND_RUNS = 3;
// A baseline whose first fold takes this long or longer makes its first fold in the first round
// only, and one repeated fold per round.
const SLOW_MS = 2_000;

function log(message) {
  const s = ((Date.now() - scriptStart) / 1000).toFixed(0).padStart(4);
  console.error(`[${s}s] ${message}`);
}


// Runs `bench/js/measure.mjs TASK WORKLOAD [ARG]` in a fresh process. Returns the parsed result,
// or { failed: 'oom' | 'timeout' | 'error', ... } with how far it got.
// Runs of one first-load task as one: the first that did not finish if any did not, else the
// run with the median `key` (the upper middle one for an even count), with every run's time in
// `runs`.
function medianRun(results, key) {
  const failed = results.find((result) => !ok(result));
  if (failed) return failed;
  const sorted = [...results].sort((a, b) => a[key] - b[key]);
  return { ...sorted[sorted.length >> 1], runs: results.map((result) => result[key]) };
}

// Rounds of one repeated-runs task as one: the first that did not finish if any did not, else
// the last round's result with the times of every round joined under each of `keys` (and each
// round's own under `rounds`).
function mergeRounds(rounds, keys) {
  const failed = rounds.find((result) => !ok(result));
  if (failed) return failed;
  const merged = { ...rounds.at(-1), rounds: rounds.map((result) => Object.fromEntries(keys.map((key) => [key, result[key]]))) };
  for (const key of keys) merged[key] = rounds.flatMap((result) => result[key]);
  return merged;
}

// The prepend sequences as one: the first that did not finish if any did not, else every
// step's median time over the sequences (`runs` keeps each sequence's times).
function medianSequence(sequences) {
  const failed = sequences.find((sequence) => !ok(sequence));
  if (failed) return failed;
  const [first] = sequences;
  return {
    ...first,
    sequences: sequences.length,
    first: { ...first.first, ms: median(sequences.map((sequence) => sequence.first.ms)), runs: sequences.map((sequence) => sequence.first.ms) },
    steps: first.steps.map((step, i) => {
      const runs = sequences.map((sequence) => sequence.steps[i].ms);
      return { ...step, ms: median(runs), runs };
    }),
  };
}

function measure(task, workload, arg, { heapMb, timeoutMs }) {
  const args = ['--expose-gc'];
  if (heapMb) args.push(`--max-old-space-size=${heapMb}`);
  args.push(join(here, 'measure.mjs'), task, workload);
  if (arg !== undefined) args.push(String(arg));
  const t = Date.now();
  const child = spawnSync(process.execPath, args, {
    encoding: 'utf8',
    timeout: timeoutMs,
    killSignal: 'SIGKILL',
    maxBuffer: 64 * 1024 * 1024,
  });
  const wallMs = Date.now() - t;
  const stderr = child.stderr || '';
  // The last "progress DONE TOTAL HEAP MS" line, when the task prints them.
  const progress = stderr
    .split('\n')
    .filter((l) => l.startsWith('progress '))
    .map((l) => l.split(' ').slice(1).map(Number))
    .map(([done, total, heap, ms]) => ({ done, total, heap, ms }))
    .pop();
  const timedOut = (child.error && child.error.code === 'ETIMEDOUT') || (child.signal === 'SIGKILL' && wallMs >= timeoutMs - 100);
  if (timedOut) {
    log(`${task} ${workload}: stopped at the ${(timeoutMs / 1000).toFixed(1)} s limit`);
    return { failed: 'timeout', limitMs: timeoutMs, wallMs, progress };
  }
  if (child.status !== 0) {
    const oom = /heap limit|out of memory|Allocation failed/i.test(stderr);
    log(`${task} ${workload}: ${oom ? 'out of memory' : 'failed'} after ${(wallMs / 1000).toFixed(1)} s`);
    if (!oom) console.error(stderr.split('\n').slice(-15).join('\n'));
    return { failed: oom ? 'oom' : 'error', heapMb, wallMs, progress, stderr: stderr.slice(-1500) };
  }
  const result = JSON.parse(child.stdout.trim().split('\n').pop());
  result.wallMs = wallMs;
  return result;
}

function sh(command, args) {
  try {
    return execFileSync(command, args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
  } catch {
    return undefined;
  }
}

function machine() {
  const cpuinfo = readFileSync('/proc/cpuinfo', 'utf8');
  const model = (cpuinfo.match(/^model name\s*:\s*(.*)$/m) || [])[1] || os.cpus()[0]?.model || 'unknown';
  const osRelease = existsSync('/etc/os-release') ? readFileSync('/etc/os-release', 'utf8') : '';
  const dirty = sh('git', ['-C', root, 'status', '--porcelain', '--', 'src', 'Cargo.toml', 'Cargo.lock']);
  return {
    cpu: model,
    cores: os.cpus().length,
    memoryGiB: os.totalmem() / 2 ** 30,
    os: (osRelease.match(/^PRETTY_NAME="?([^"\n]*)"?$/m) || [])[1] || `${os.type()} ${os.release()}`,
    kernel: os.release(),
    node: process.version,
    rustc: sh('rustc', ['--version']) || 'unknown',
    commit: sh('git', ['-C', root, 'rev-parse', '--short', 'HEAD']) || 'unknown',
    srcDirty: Boolean(dirty),
    date: new Date().toISOString().replace(/\.\d+Z$/, 'Z'),
    loadAverage: os.loadavg(),
  };
}

function wasmSize() {
  const path = join(root, 'pkg', 'web', 'promptfold_bg.wasm');
  const bytes = readFileSync(path);
  const gz = sh('sh', ['-c', `gzip -9 -c '${path}' | wc -c`]);
  return {
    path: relative(root, path),
    raw: bytes.length,
    gzip: gz ? Number(gz) : gzipSync(bytes, { level: 9 }).length,
    builtAt: statSync(path).mtime.toISOString().replace(/\.\d+Z$/, 'Z'),
  };
}

function nativeBench(names) {
  const files = names.map((name) => relative(root, dataPath(name)));
  const t = Date.now();
  const out = execFileSync('cargo', ['bench', '--jobs', '1', '--bench', 'fold', '--', '--runs', String(NATIVE_RUNS), ...files], {
    cwd: root,
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'inherit'],
    maxBuffer: 16 * 1024 * 1024,
  });
  log(`native benchmark: ${((Date.now() - t) / 1000).toFixed(1)} s`);
  const results = {};
  for (const line of out.split('\n')) {
    if (line.startsWith('{')) {
      const r = JSON.parse(line);
      results[r.workload] = r;
    }
  }
  return results;
}

// ---------------------------------------------------------------------------------------------
// Formatting

const fmtMs = (ms) => {
  if (ms === undefined || Number.isNaN(ms)) return 'n/a';
  if (ms >= 1000) return `${(ms / 1000).toFixed(ms >= 10_000 ? 1 : 2)} s`;
  if (ms >= 100) return `${ms.toFixed(0)} ms`;
  if (ms >= 10) return `${ms.toFixed(1)} ms`;
  return `${ms.toFixed(2)} ms`;
};
const fmtBytes = (b) => {
  if (b === undefined || Number.isNaN(b)) return 'n/a';
  const a = Math.abs(b);
  if (a >= 1e9) return `${(b / 1e9).toFixed(2)} GB`;
  if (a >= 1e6) return `${(b / 1e6).toFixed(a >= 1e8 ? 0 : 1)} MB`;
  if (a >= 1e3) return `${(b / 1e3).toFixed(0)} kB`;
  return `${b} B`;
};
const fmtRatio = (r) => (r === undefined || !Number.isFinite(r) ? 'n/a' : r >= 100 ? `${r.toFixed(0)}x` : r >= 10 ? `${r.toFixed(1)}x` : `${r.toFixed(2)}x`);
const fmtInt = (n) => (n === undefined ? 'n/a' : Math.round(n).toLocaleString('en-US'));
const fmtNs = (ns) => (ns === undefined ? 'n/a' : ns >= 1000 ? `${(ns / 1000).toFixed(2)} µs` : `${ns.toFixed(0)} ns`);

function failedText(r) {
  const got = r.progress ? `, at event ${fmtInt(r.progress.done)} of ${fmtInt(r.progress.total)} with ${fmtBytes(r.progress.heap)} of heap` : '';
  if (r.failed === 'oom') return `out of memory at a ${(r.heapMb / 1024).toFixed(0)} GB heap after ${(r.wallMs / 1000).toFixed(0)} s${got}`;
  if (r.failed === 'timeout') return `> ${(r.limitMs / 1000).toFixed(0)} s (stopped${got})`;
  return 'failed (see raw.json)';
}

// ---------------------------------------------------------------------------------------------
// SVG: time against session size, log-log, both implementations.

// Points are { x, y } or, for a run stopped at a limit, { x, atLeast, note }: drawn as an open
// marker at that lower bound with an arrow up.
function svgPlot(series, { title, xLabel, yLabel }) {
  const W = 900;
  const H = 500;
  const m = { l: 80, r: 290, t: 44, b: 60 };
  const nice = [1, 2, 5];
  const below = (v) => {
    const d = 10 ** Math.floor(Math.log10(v));
    return d * [...nice].reverse().find((k) => d * k <= v);
  };
  const above = (v) => {
    const d = 10 ** Math.floor(Math.log10(v));
    const k = nice.find((n) => d * n >= v);
    return k ? d * k : d * 10;
  };
  const all = series.flatMap((s) => s.points);
  const xs = all.map((p) => p.x);
  const ys = all.flatMap((p) => [p.y, p.atLeast]).filter((v) => v !== undefined);
  const x0 = below(Math.min(...xs) * 0.9);
  const x1 = above(Math.max(...xs) * 1.1);
  const y0 = below(Math.min(...ys) * 0.8);
  const y1 = above(Math.max(...ys) * 1.6);
  const lx = (v) => Math.log10(v);
  const px = (x) => m.l + ((lx(x) - lx(x0)) / (lx(x1) - lx(x0))) * (W - m.l - m.r);
  const py = (y) => H - m.b - ((lx(y) - lx(y0)) / (lx(y1) - lx(y0))) * (H - m.t - m.b);
  const esc = (s) => String(s).replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
  const ticks = (from, to) => {
    const out = [];
    for (let d = 10 ** Math.floor(Math.log10(from)); d <= to; d *= 10) {
      for (const k of nice) if (d * k >= from * 0.999 && d * k <= to * 1.001) out.push([d * k, k === 1]);
    }
    return out;
  };
  const out = [];
  out.push(`<svg xmlns="http://www.w3.org/2000/svg" width="${W}" height="${H}" viewBox="0 0 ${W} ${H}" font-family="sans-serif" font-size="12">`);
  out.push(`<rect width="${W}" height="${H}" fill="white"/>`);
  out.push(`<text x="${m.l}" y="24" font-size="15" font-weight="bold">${esc(title)}</text>`);
  for (const [v, major] of ticks(x0, x1)) {
    const x = px(v).toFixed(1);
    out.push(`<line x1="${x}" y1="${m.t}" x2="${x}" y2="${H - m.b}" stroke="${major ? '#ccc' : '#eee'}"/>`);
    out.push(`<text x="${x}" y="${H - m.b + 16}" text-anchor="middle" fill="#333">${fmtInt(v)}</text>`);
  }
  for (const [v, major] of ticks(y0, y1)) {
    const y = py(v);
    out.push(`<line x1="${m.l}" y1="${y.toFixed(1)}" x2="${W - m.r}" y2="${y.toFixed(1)}" stroke="${major ? '#ccc' : '#eee'}"/>`);
    out.push(`<text x="${m.l - 6}" y="${(y + 4).toFixed(1)}" text-anchor="end" fill="#333">${fmtMs(v)}</text>`);
  }
  out.push(`<rect x="${m.l}" y="${m.t}" width="${W - m.l - m.r}" height="${H - m.t - m.b}" fill="none" stroke="#333"/>`);
  out.push(`<text x="${(m.l + W - m.r) / 2}" y="${H - 18}" text-anchor="middle">${esc(xLabel)}</text>`);
  out.push(`<text transform="translate(18 ${(m.t + H - m.b) / 2}) rotate(-90)" text-anchor="middle">${esc(yLabel)}</text>`);
  const marker = (s, x, y, open) => {
    const fill = open ? 'white' : s.color;
    if (s.marker === 'square') return `<rect x="${(x - 4).toFixed(1)}" y="${(y - 4).toFixed(1)}" width="8" height="8" fill="${fill}" stroke="${s.color}" stroke-width="1.5"/>`;
    return `<circle cx="${x.toFixed(1)}" cy="${y.toFixed(1)}" r="4" fill="${fill}" stroke="${s.color}" stroke-width="1.5"/>`;
  };
  const dash = (s) => (s.dash ? ` stroke-dasharray="${s.dash}"` : '');
  series.forEach((s, i) => {
    const okPts = s.points.filter((p) => p.y !== undefined);
    if (okPts.length) {
      const d = okPts.map((p, j) => `${j ? 'L' : 'M'}${px(p.x).toFixed(1)} ${py(p.y).toFixed(1)}`).join(' ');
      out.push(`<path d="${d}" fill="none" stroke="${s.color}" stroke-width="2"${dash(s)}/>`);
    }
    for (const p of okPts) out.push(marker(s, px(p.x), py(p.y), false));
    for (const p of s.points.filter((q) => q.y === undefined && q.atLeast !== undefined)) {
      const x = px(p.x);
      const y = py(p.atLeast);
      out.push(marker(s, x, y, true));
      out.push(`<path d="M${x.toFixed(1)} ${(y - 6).toFixed(1)} L${x.toFixed(1)} ${(y - 22).toFixed(1)} M${(x - 4).toFixed(1)} ${(y - 17).toFixed(1)} L${x.toFixed(1)} ${(y - 22).toFixed(1)} L${(x + 4).toFixed(1)} ${(y - 17).toFixed(1)}" fill="none" stroke="${s.color}" stroke-width="1.5"/>`);
      // The note goes left of the marker near the right edge, so it stays inside the plot.
      const left = x > W - m.r - 180;
      out.push(`<text x="${(left ? x - 8 : x + 8).toFixed(1)}" y="${(y + 4).toFixed(1)}" text-anchor="${left ? 'end' : 'start'}" fill="${s.color}" font-size="11">${esc(p.note)}</text>`);
    }
    const ly = m.t + 10 + i * 22;
    const lx0 = W - m.r + 16;
    out.push(`<line x1="${lx0}" y1="${ly}" x2="${lx0 + 28}" y2="${ly}" stroke="${s.color}" stroke-width="2"${dash(s)}/>`);
    out.push(marker(s, lx0 + 14, ly, false));
    out.push(`<text x="${lx0 + 36}" y="${ly + 4}">${esc(s.name)}</text>`);
  });
  const ny = m.t + 10 + series.length * 22 + 8;
  out.push(`<text x="${W - m.r + 16}" y="${ny}" font-size="11" fill="#555">open marker, arrow up: stopped at a limit</text>`);
  out.push(`<text x="${W - m.r + 16}" y="${ny + 15}" font-size="11" fill="#555">(time or memory), so at least that</text>`);
  out.push('</svg>');
  return `${out.join('\n')}\n`;
}

// ---------------------------------------------------------------------------------------------

function main() {
  mkdirSync(resultsDir, { recursive: true });
  const manifest = JSON.parse(readFileSync(join(DATA_DIR, 'manifest.json'), 'utf8'));
  const info = machine();
  log(`machine: ${info.cpu}, ${info.cores} cores, load average ${info.loadAverage.map((l) => l.toFixed(2)).join(' ')}`);
  const size = wasmSize();

  // Side by side, workload by workload, in ROUNDS rounds that alternate the two programs (each
  // measurement in a fresh process), so that a change in the machine's load during a workload
  // reaches both sides alike: per round, the baseline's first fold and its memory (in every
  // round when it is fast, else in the first only), its repeated folds, promptfold's repeated
  // loads, then promptfold's first loads (objects, then text).
  const results = {};
  for (const w of WORKLOADS) {
    const r = {};
    results[w.name] = r;
    const bytes = manifest.workloads[w.name].bytes;
    // Repeated runs start with the wasm memory grown in one step (to 7 times the JSON size: more
    // than any first load here needed); first loads are stopped at three times the repeated-run
    // median so far (5 s to 20 s).
    const grow = GROW_FACTOR * bytes;
    const cap = (times) => Math.round(Math.min(20_000, Math.max(5_000, 3 * (median(times) || 0))));
    const baselineFirsts = [];
    const baselineTimes = [];
    const fairFirsts = [];
    const fairTimes = [];
    const pfTimes = [];
    const coldObjects = [];
    const coldText = [];
    // Both baselines, the prompt-only one and the fair one (bench/js/baseline/context.mjs).
    const baselines = [
      ['prompt', 'baseline', baselineFirsts, baselineTimes],
      ['fair', 'fair baseline', fairFirsts, fairTimes],
    ];
    const fast = (firsts) => firsts.length > 0 && ok(firsts[0]) && firsts[0].foldMs < SLOW_MS;
    for (let round = 0; round < ROUNDS; round++) {
      for (const [kind, name, firsts, times] of baselines) {
        if (round === 0 || fast(firsts)) {
          log(`${w.name}, round ${round + 1}: ${name}, first fold and its memory`);
          firsts.push(measure('baseline-mem', w.name, kind, { heapMb: BASELINE_HEAP_MB, timeoutMs: BASELINE_FIRST_TIMEOUT_MS }));
        }
        if (firsts.every(ok) && times.every(ok)) {
          const quickFold = fast(firsts);
          const runs = quickFold ? BASELINE_ROUND_RUNS : 1;
          log(`${w.name}, round ${round + 1}: ${name}, ${quickFold ? `${WARMUP_RUNS} folds not counted, then ` : ''}${runs} repeated run${runs > 1 ? 's' : ''}`);
          times.push(measure('baseline-time', w.name, `${runs},${quickFold ? WARMUP_RUNS : 0},${kind}`, { heapMb: BASELINE_HEAP_MB, timeoutMs: BASELINE_TIMEOUT_MS }));
        }
      }
      log(`${w.name}, round ${round + 1}: promptfold, ${PF_ROUND_RUNS} repeated loads of each kind after ${WARMUP_RUNS} not counted (wasm memory grown to ${fmtBytes(grow)} first), then first loads`);
      pfTimes.push(measure('pf-time', w.name, `${grow},${PF_ROUND_RUNS},${WARMUP_RUNS}`, { timeoutMs: PF_TIMEOUT_MS }));
      const timed = (key) => pfTimes.filter(ok).flatMap((t) => t[key]);
      coldObjects.push(measure('pf-cold-objects', w.name, undefined, { timeoutMs: cap(timed('objects')) }));
      coldText.push(measure('pf-cold-text', w.name, undefined, { timeoutMs: cap(timed('text')) }));
    }
    r.baselineMem = medianRun(baselineFirsts, 'foldMs');
    if (baselineTimes.length) r.baselineTime = mergeRounds(baselineTimes, ['objects', 'parse']);
    r.fairMem = medianRun(fairFirsts, 'foldMs');
    if (fairTimes.length) r.fairTime = mergeRounds(fairTimes, ['objects', 'parse']);
    r.pfTime = mergeRounds(pfTimes, ['objects', 'text']);
    r.pfColdObjects = medianRun(coldObjects, 'ms');
    r.pfColdText = medianRun(coldText, 'ms');
    log(`${w.name}: promptfold, views() and stateAt`);
    r.pfWarm = measure('pf-warm', w.name, grow, { timeoutMs: PF_TIMEOUT_MS });
  }
  log(`promptfold: prepending pages into the typical-100k window (${PREPEND_RUNS} sequences)`);
  const prepend = medianSequence(Array.from({ length: PREPEND_RUNS }, () => measure('pf-prepend', 'typical-100k', 1.5 * GROW_FACTOR * manifest.workloads['typical-100k'].bytes, { timeoutMs: PF_TIMEOUT_MS })));
  log('native benchmark (cargo bench --bench fold)');
  const native = nativeBench(WORKLOADS.map((w) => w.name));

  const raw = { machine: info, wasm: size, manifest, results, prepend, native, quick, rounds: ROUNDS, pfRoundRuns: PF_ROUND_RUNS, baselineRoundRuns: BASELINE_ROUND_RUNS, warmupRuns: WARMUP_RUNS, nativeRuns: NATIVE_RUNS, limits: { BASELINE_HEAP_MB, BASELINE_FIRST_TIMEOUT_MS, BASELINE_TIMEOUT_MS, GROW_FACTOR, PF_TIMEOUT_MS, SLOW_MS } };
  raw.elapsedMs = Date.now() - scriptStart;
  writeFileSync(join(resultsDir, 'raw.json'), `${JSON.stringify(raw, null, 1)}\n`);
  writeFileSync(join(resultsDir, 'time-vs-size.svg'), plot(raw));
  writeFileSync(join(resultsDir, 'performance.md'), report(raw));
  log(`wrote ${relative(root, join(resultsDir, 'performance.md'))}, raw.json and time-vs-size.svg`);
}

const ok = (r) => r && !r.failed;
// A row's bare read of the header values beside load (bench/js/read-floor.mjs), when measured.
const readFloorOf = (row) => (ok(row.r.pfWarm) ? row.r.pfWarm.readFloor : undefined);
const readShare = (floor) => `${((floor.readMs / floor.loadMs) * 100).toFixed(0)}%`;

// One baseline's figures from its first fold (`mem`, a fresh process) and its repeated runs
// (`time`): the median fold from objects (a slow first fold is its own warm-up, so it counts
// among the repeated runs), JSON.parse, both together, the first fold, the memory it retained,
// or the run that did not finish.
function baselineFigures(mem, time) {
  const failure = !ok(mem) ? mem : !ok(time) ? time : undefined;
  if (failure) return { failure };
  const runs = [...(mem.foldMs >= SLOW_MS ? [mem.foldMs] : []), ...time.objects];
  const obj = median(runs);
  const parse = median(time.parse);
  return { runs, obj, parse, text: obj + parse, cold: mem.foldMs, mem: mem.retainedBytes };
}

// Medians, ratios and memory per workload, from the raw results.
function derived(raw) {
  const rows = {};
  for (const w of WORKLOADS) {
    const r = raw.results[w.name];
    const m = raw.manifest.workloads[w.name];
    const row = { w, m, r, native: raw.native[w.name] };
    // Baseline: the first fold (fresh process) and the repeated runs together.
    const base = baselineFigures(r.baselineMem, r.baselineTime);
    row.baseRuns = base.runs;
    row.baseObj = base.obj;
    row.baseParse = base.parse;
    row.baseText = base.text;
    row.baseCold = base.cold;
    row.baseFailure = base.failure;
    // The fair baseline, the same way (absent in runs made before it existed).
    const fair = r.fairMem ? baselineFigures(r.fairMem, r.fairTime) : {};
    row.fair = fair;
    row.pfColdObj = ok(r.pfColdObjects) ? r.pfColdObjects.ms : undefined;
    row.pfColdText = ok(r.pfColdText) ? r.pfColdText.ms : undefined;
    if (ok(r.pfTime)) {
      row.pfObj = median(r.pfTime.objects);
      row.pfText = median(r.pfTime.text);
    }
    if (ok(r.pfWarm)) row.views = median(r.pfWarm.views);
    row.pfMemObj = ok(r.pfColdObjects) ? r.pfColdObjects.retainedBytes : undefined;
    const ratio = (a, b) => (a !== undefined && b ? a / b : undefined);
    // A first load stopped at the limit: the ratio is below baseline / limit.
    const bound = (base, failure) => (base !== undefined && failure && failure.failed === 'timeout' ? base / failure.limitMs : undefined);
    row.boundColdObj = bound(row.baseCold, r.pfColdObjects);
    row.boundColdText = bound(row.baseCold !== undefined ? row.baseCold + row.baseParse : undefined, r.pfColdText);
    row.fairRatioObj = ratio(fair.obj, row.pfObj);
    row.fairRatioText = ratio(fair.text, row.pfText);
    row.fairRatioColdObj = ratio(fair.cold, row.pfColdObj);
    row.fairRatioColdText = ratio(fair.cold !== undefined ? fair.cold + fair.parse : undefined, row.pfColdText);
    row.fairBoundColdObj = bound(fair.cold, r.pfColdObjects);
    row.fairBoundColdText = bound(fair.cold !== undefined ? fair.cold + fair.parse : undefined, r.pfColdText);
    row.fairMem = fair.mem;
    row.fairMemRatio = ratio(fair.mem, row.pfMemObj);
    row.ratioObj = ratio(row.baseObj, row.pfObj);
    row.ratioText = ratio(row.baseText, row.pfText);
    row.ratioColdObj = ratio(row.baseCold, row.pfColdObj);
    row.ratioColdText = ratio(row.baseCold !== undefined ? row.baseCold + row.baseParse : undefined, row.pfColdText);
    row.baseMem = ok(r.baselineMem) ? r.baselineMem.retainedBytes : undefined;
    row.pfMemText = ok(r.pfColdText) ? r.pfColdText.retainedBytes : undefined;
    row.memRatio = ratio(row.baseMem, row.pfMemObj);
    row.memRatioText = ratio(row.baseMem, row.pfMemText);
    row.memRatioNative = row.native ? ratio(row.baseMem, row.native.windowBytes) : undefined;
    rows[w.name] = row;
  }
  return rows;
}

function plot(raw) {
  const rows = derived(raw);
  // A run stopped at a limit: at least the time it ran.
  const stopped = (f) => {
    if (!f?.failed) return {};
    const atLeast = f.failed === 'timeout' ? f.limitMs : f.wallMs;
    const heap = f.progress ? `, ${fmtBytes(f.progress.heap)} heap` : '';
    const why = f.failed === 'oom' ? `out of memory (${(f.heapMb / 1024).toFixed(0)} GB heap)` : `stopped at ${fmtMs(f.limitMs)}${heap}`;
    return { atLeast, note: why };
  };
  const point = (name, key, failure) => {
    const row = rows[name];
    const y = row[key];
    return y !== undefined ? { x: row.m.events, y } : { x: row.m.events, ...stopped(failure(row)) };
  };
  const base = (row) => row.baseFailure;
  const cold = (row) => row.r.pfColdObjects;
  const warm = (row) => row.r.pfTime;
  const prune = WORKLOADS.filter((w) => w.kind === 'prune').map((w) => w.name);
  const typical = WORKLOADS.filter((w) => w.kind === 'typical').map((w) => w.name);
  return svgPlot(
    [
      { name: 'baseline, prune-heavy', color: '#c0392b', dash: '6 4', marker: 'square', points: prune.map((n) => point(n, 'baseObj', base)) },
      { name: 'promptfold, prune-heavy', color: '#1f5fa8', dash: '6 4', marker: 'square', points: prune.map((n) => point(n, 'pfObj', warm)) },
      { name: 'promptfold, prune-heavy, first load', color: '#7fa7d6', dash: '2 3', marker: 'square', points: prune.map((n) => point(n, 'pfColdObj', cold)) },
      { name: 'baseline, typical', color: '#c0392b', points: typical.map((n) => point(n, 'baseObj', base)) },
      { name: 'promptfold, typical', color: '#1f5fa8', points: typical.map((n) => point(n, 'pfObj', warm)) },
      { name: 'promptfold, typical, first load', color: '#7fa7d6', dash: '2 3', points: typical.map((n) => point(n, 'pfColdObj', cold)) },
    ],
    {
      title: 'Fold and keep every per-event state (Node 20, JS objects in; median, or first load)',
      xLabel: 'session size (events, log scale)',
      yLabel: 'time (log scale)',
    },
  );
}

function report(raw) {
  const rows = derived(raw);
  const all = Object.values(rows);
  const i = raw.machine;
  const lim = raw.limits;
  const L = [];
  const ratioOrBound = (v, bound) => (v !== undefined ? fmtRatio(v) : bound !== undefined ? `< ${fmtRatio(bound)}` : 'n/a');
  const cell = (value, failure, fmt = fmtMs) => (value !== undefined ? fmt(value) : failure ? failedText(failure) : 'n/a');
  L.push('# Benchmarks');
  L.push('');
  L.push('promptfold (`pkg/node`) against the upstream-style JS baseline (`bench/js/baseline/`), from one run of `bash scripts/bench.sh`; every run in `bench/results/raw.json`. Method: docs/performance-notes.md, "How the benchmark measures".');
  L.push('');
  L.push('## Machine, command, inputs');
  L.push('');
  L.push(`- Machine: ${i.cpu}, ${i.cores} cores, ${i.memoryGiB.toFixed(1)} GiB memory, ${i.os} (Linux ${i.kernel}). Load average at the start: ${i.loadAverage.map((l) => l.toFixed(2)).join(', ')} (a shared machine: other work may have run at the same time).`);
  L.push(`- Node ${i.node}; ${i.rustc}; commit ${i.commit}${i.srcDirty ? ' plus uncommitted changes to src/ or Cargo.*' : ''}; run at ${i.date}.`);
  L.push(`- Command: \`bash scripts/bench.sh${raw.quick ? ' --quick' : ''}\`; the measurements took ${(raw.elapsedMs / 1000).toFixed(0)} s from the start of the script (wall clock).`);
  L.push(`- wasm: \`${raw.wasm.path}\` and \`pkg/node\`, built by \`scripts/build.sh\` (release, wasm-opt -Oz), file time ${raw.wasm.builtAt}.`);
  L.push(`- Runs: ${raw.rounds} rounds per workload alternating the two programs, fresh processes; promptfold ${raw.pfRoundRuns} repeated calls of each kind after ${raw.warmupRuns} not counted; limits: baseline heap ${lim.BASELINE_HEAP_MB} MB, its first fold ${lim.BASELINE_FIRST_TIMEOUT_MS / 1000} s.`);
  L.push('- Inputs: `node bench/js/gen.mjs` (seeded; `bench/data/`).');
  L.push('');
  L.push('| workload | events | relevant | system messages | prunes | compactions | headers | JSON size | sha256 (first 16) |');
  L.push('| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- |');
  for (const { w, m } of all) {
    L.push(`| ${w.label} | ${fmtInt(m.events)} | ${fmtInt(m.relevant)} | ${fmtInt(m.systemMessages)} | ${fmtInt(m.prunes)} | ${fmtInt(m.compactions)} | ${fmtInt(m.headers)} | ${fmtBytes(m.bytes)} | \`${m.sha256}\` |`);
  }
  L.push('');

  L.push('## Fold and keep every per-event state');
  L.push('');
  L.push('Ratio = baseline time / promptfold time (above 1: promptfold is faster). Two baselines: *prompt only* folds the system prompt and inspects the headers (`bench/js/baseline/baseline.mjs`); *fair* also runs what upstream runs to price a context: the token meter\'s fold of the surface and every request\'s breakdown (`bench/js/baseline/context.mjs`), the work `load` now does too. Both are checked by `bench/js/baseline/check.mjs` on the shared cases.');
  L.push('');
  L.push('JS objects in:');
  L.push('');
  L.push('| workload | baseline, prompt only (runs) | fair baseline (runs) | promptfold `load`, median (runs) | ratio, prompt only | ratio, fair | prompt only, first | fair, first | promptfold `load`, first | ratio, prompt only | ratio, fair |');
  L.push('| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |');
  for (const row of all) {
    const runs = (a) => (a ? ` (${a.length})` : '');
    const f = row.fair;
    L.push(`| ${row.w.label} | ${cell(row.baseObj, row.baseFailure)}${runs(row.baseRuns)} | ${cell(f.obj, f.failure)}${runs(f.runs)} | ${cell(row.pfObj, row.r.pfTime.failed && row.r.pfTime)}${runs(row.r.pfTime.objects)} | ${fmtRatio(row.ratioObj)} | **${fmtRatio(row.fairRatioObj)}** | ${cell(row.baseCold, row.baseFailure)} | ${cell(f.cold, f.failure)} | ${cell(row.pfColdObj, row.r.pfColdObjects)} | ${ratioOrBound(row.ratioColdObj, row.boundColdObj)} | **${ratioOrBound(row.fairRatioColdObj, row.fairBoundColdObj)}** |`);
  }
  L.push('');
  L.push('JSON text in (first: to the baseline\'s first fold + `JSON.parse`):');
  L.push('');
  L.push('| workload | baseline `JSON.parse` + fold, prompt only | fair | promptfold `loadJson`, median (runs) | ratio, prompt only | ratio, fair | promptfold `loadJson`, first | ratio, prompt only | ratio, fair |');
  L.push('| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |');
  for (const row of all) {
    const f = row.fair;
    L.push(`| ${row.w.label} | ${cell(row.baseText, row.baseFailure)} | ${cell(f.text, f.failure)} | ${cell(row.pfText, row.r.pfTime.failed && row.r.pfTime)}${row.r.pfTime.text ? ` (${row.r.pfTime.text.length})` : ''} | ${fmtRatio(row.ratioText)} | **${fmtRatio(row.fairRatioText)}** | ${cell(row.pfColdText, row.r.pfColdText)} | ${ratioOrBound(row.ratioColdText, row.boundColdText)} | **${ratioOrBound(row.fairRatioColdText, row.fairBoundColdText)}** |`);
  }
  L.push('');
  const anyFloor = all.map(readFloorOf).find(Boolean);
  const floorRuns = anyFloor?.runs !== undefined ? `${anyFloor.runs} runs after ${anyFloor.warmup} not counted` : 'several runs';
  L.push(`Bare read of every header's config and tools beside \`load\` (\`bench/js/read-floor.mjs\`, medians of ${floorRuns}):`);
  L.push('');
  L.push('| workload | headers | nodes read | bare read | `load` | read / `load` |');
  L.push('| --- | ---: | ---: | ---: | ---: | ---: |');
  for (const row of all) {
    const floor = readFloorOf(row);
    if (!floor) continue;
    L.push(`| ${row.w.label} | ${fmtInt(floor.headers)} | ${fmtInt(floor.nodes)} | ${fmtMs(floor.readMs)} | ${fmtMs(floor.loadMs)} | ${readShare(floor)} |`);
  }
  L.push('');
  // Beside performance.md; scripts/bench.sh rewrites the path for BENCHMARKS.md at the root.
  L.push('![time against session size, log-log](time-vs-size.svg)');
  L.push('');

  L.push('## Memory retained by all per-event states');
  L.push('');
  L.push('Ratio = baseline / promptfold (above 1: promptfold keeps less).');
  L.push('');
  L.push('| workload | baseline | promptfold `load` | ratio | promptfold `loadJson` | ratio | native: window | ratio | native: fold states | per relevant event | baseline\'s input: parsed events in the JS heap | fair baseline | ratio to `load` |');
  L.push('| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |');
  for (const row of all) {
    const n = row.native;
    const bm = row.r.baselineMem;
    L.push(`| ${row.w.label} | ${cell(row.baseMem, bm, fmtBytes)} | ${cell(row.pfMemObj, row.r.pfColdObjects, fmtBytes)} | **${fmtRatio(row.memRatio)}** | ${cell(row.pfMemText, row.r.pfColdText, fmtBytes)} | **${fmtRatio(row.memRatioText)}** | ${n ? fmtBytes(n.windowBytes) : 'n/a'} | ${fmtRatio(row.memRatioNative)} | ${n ? fmtBytes(n.foldBytes) : 'n/a'} | ${n ? fmtBytes(Math.round(n.foldBytes / n.relevant)) : 'n/a'} | ${bm.eventsHeapBytes !== undefined ? fmtBytes(bm.eventsHeapBytes) : 'n/a'} | ${cell(row.fairMem, row.fair.failure, fmtBytes)} | ${fmtRatio(row.fairMemRatio)} |`);
  }
  L.push('');

  const withContext = all.filter((row) => ok(row.r.pfWarm) && row.r.pfWarm.contextSummaryNs !== undefined);
  if (withContext.length) {
    L.push('## What the model saw: `contextSummaryAt` and `contextAt`');
    L.push('');
    L.push('At the seqs of the `stateAt` column below; `contextAt` (the surviving nodes too) at the first 2,000 of them (docs/context.md).');
    L.push('');
    L.push('| workload | requests | `contextSummaryAt` | `contextAt` |');
    L.push('| --- | ---: | ---: | ---: |');
    for (const row of withContext) {
      const pw = row.r.pfWarm;
      L.push(`| ${row.w.label} | ${fmtInt(pw.check.requests)} | ${fmtNs(pw.contextSummaryNs)} | ${pw.contextAtUs.toFixed(1)} µs |`);
    }
    L.push('');
  }

  L.push('## Views and `stateAt`');
  L.push('');
  L.push('| workload | chat cards | headers | requests | `views()` | native `views()` | `stateAt` | `stateAt`, cached | `stateAt` + `free()` | `stateAt(seq).effective` | native `state_at` |');
  L.push('| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |');
  for (const row of all) {
    const pw = row.r.pfWarm;
    const n = row.native;
    if (!ok(pw)) {
      L.push(`| ${row.w.label} | ${failedText(pw)} | | | | ${n ? fmtMs(n.viewsMs) : 'n/a'} | | | | | ${n ? fmtNs(n.stateAtNs) : 'n/a'} |`);
      continue;
    }
    L.push(`| ${row.w.label} | ${fmtInt(pw.check.cards)} | ${fmtInt(pw.check.headers)} | ${fmtInt(pw.check.requests)} | ${fmtMs(row.views)} | ${n ? fmtMs(n.viewsMs) : 'n/a'} | ${fmtNs(pw.stateAtNs)} | ${fmtNs(pw.stateAtCachedNs)} | ${fmtNs(pw.stateAtFreeNs)} | ${fmtNs(pw.stateAtEffectiveNs)} | ${n ? fmtNs(n.stateAtNs) : 'n/a'} |`);
  }
  L.push('');

  L.push('## Load earlier: prepending pages into a window');
  L.push('');
  const p = raw.prepend;
  if (!ok(p)) {
    L.push(`The prepend measurement did not finish: ${failedText(p)}.`);
  } else {
    L.push(`\`typical-100k\`, JS objects in, with the wasm memory grown first, ${p.sequences} sequences each in a fresh process (every figure is their median; the range is in brackets): \`load\` of the newest ${fmtInt(p.first.loaded)} events (${fmtMs(p.first.ms)}), then \`prepend\` of older pages (\`hasMore\` true until the last) until all ${fmtInt(p.length)} events are loaded. Until the page that holds the start of the session comes in, the window's prompt is withheld (compactions chain back to it), so those prepends change no card; the last one reveals every card at once, which the change report then carries. A prepend that cost what it loads would take the same time for the same page size at any window size. The target below compares every call of the 1,000-event pages into windows under 20,000 events (their median) with every call of those into windows over 80,000: a single call of a few milliseconds varies several-fold on a shared machine.`);
    L.push('');
    L.push('| window before | page | `prepend`, median [range] | per event of the page | cards in the change report |');
    L.push('| ---: | ---: | ---: | ---: | ---: |');
    for (const st of p.steps) L.push(`| ${fmtInt(st.window)} | ${fmtInt(st.loaded)} | ${fmtMs(st.ms)} [${fmtMs(Math.min(...st.runs))} to ${fmtMs(Math.max(...st.runs))}] | ${fmtNs((st.ms * 1e6) / st.loaded)} | ${fmtInt(st.cards)} |`);
  }
  L.push('');

  L.push('## Native (Rust, `cargo bench --bench fold`)');
  L.push('');
  L.push(`Release build, x86-64, medians of ${raw.nativeRuns} runs (\`parse_events\` timed once).`);
  L.push('');
  L.push('| workload | parse | fold | ns per relevant event | `load` | events/s | `load_json` | events/s | `views()` |');
  L.push('| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |');
  for (const row of all) {
    const n = row.native;
    if (!n) continue;
    L.push(`| ${row.w.label} | ${fmtMs(n.parseMs)} | ${fmtMs(n.foldMs)} | ${fmtInt(n.foldNsPerRelevant)} | ${fmtMs(n.loadMs)} | ${fmtInt(n.loadEventsPerSecond)} | ${fmtMs(n.loadJsonMs)} | ${fmtInt(n.loadJsonEventsPerSecond)} | ${fmtMs(n.viewsMs)} |`);
  }
  L.push('');

  L.push('## Size');
  L.push('');
  L.push(`Release wasm (\`${raw.wasm.path}\`): ${fmtInt(raw.wasm.raw)} bytes raw, ${fmtInt(raw.wasm.gzip)} bytes gzip -9.`);
  L.push('');

  L.push('## Targets');
  L.push('');
  L.push('| target | measured | met |');
  L.push('| --- | --- | --- |');
  // A check is true, false, or undefined (not measured); any false fails the target.
  const met = (...checks) => {
    if (checks.some((c) => c === false)) return '**no**';
    if (checks.some((c) => c === undefined)) return 'n/a';
    return 'yes';
  };
  const atLeast = (v, k, bound) => (v !== undefined ? v >= k : bound !== undefined && bound < k ? false : undefined);
  const p8 = rows['prune-8k'];
  const t100 = rows['typical-100k'];
  if (p8) {
    const floor8 = readFloorOf(p8);
    const p8Floor = floor8 ? `; from objects, the bare read of the header values alone is ${readShare(floor8)} of a load (see above)` : '';
    L.push(`| prune-heavy 8,000: at least 100x faster | objects ${fmtRatio(p8.ratioObj)} (first load ${ratioOrBound(p8.ratioColdObj, p8.boundColdObj)}); text ${fmtRatio(p8.ratioText)} (first ${ratioOrBound(p8.ratioColdText, p8.boundColdText)})${p8Floor} | ${met(atLeast(p8.ratioObj, 100), atLeast(p8.ratioText, 100))} |`);
    L.push(`| prune-heavy 8,000: at least 50x less retained memory | ${fmtRatio(p8.memRatio)} (\`load\`), ${fmtRatio(p8.memRatioText)} (\`loadJson\`); native exact ${fmtRatio(p8.memRatioNative)} | ${met(atLeast(p8.memRatio, 50), atLeast(p8.memRatioText, 50))} |`);
  }
  if (t100) {
    L.push(`| typical 100,000: at least 3x faster end to end, JS boundary included | objects ${fmtRatio(t100.ratioObj)} (first load ${ratioOrBound(t100.ratioColdObj, t100.boundColdObj)}); text ${fmtRatio(t100.ratioText)} (first ${ratioOrBound(t100.ratioColdText, t100.boundColdText)}) | ${met(atLeast(t100.ratioObj, 3))} |`);
  }
  // Against the fair baseline (issue 30): the lowest ratio of each kind over every workload.
  const lowest = (pick) => {
    const found = all
      .map((r) => [pick(r), r.w.label])
      .filter(([v]) => v !== undefined);
    return found.length ? found.reduce((a, b) => (b[0] < a[0] ? b : a)) : [undefined, 'not measured'];
  };
  const withFair = all.filter((r) => r.fair.obj !== undefined || r.fair.failure);
  if (withFair.length) {
    const [obj, objAt] = lowest((r) => r.fairRatioObj);
    const [text, textAt] = lowest((r) => r.fairRatioText);
    // A fair baseline stopped at its time limit took at least that long: its ratios are at
    // least the limit over promptfold's time.
    const stopped = all.filter((r) => r.fair.failure && r.fair.failure.failed === 'timeout' && r.pfObj && r.pfText);
    const atLeastRatios = stopped.map((r) => [r.fair.failure.limitMs / r.pfObj, r.fair.failure.limitMs / r.pfText, r.w.label]);
    const boundText = atLeastRatios.length
      ? `; the fair baseline stopped at its limit on ${atLeastRatios.map(([o, t, label]) => `${label} (so at least ${fmtRatio(o)} from objects, ${fmtRatio(t)} from text)`).join(', ')}`
      : '';
    const boundsMet = atLeastRatios.every(([o, t]) => o >= 3 && t >= 6);
    const unmeasured = all.some((r) => r.fair.failure && !(r.fair.failure.failed === 'timeout' && r.pfObj && r.pfText));
    L.push(`| fair baseline: every workload at least 3x from JS objects, 6x from text | lowest measured: objects ${fmtRatio(obj)} (${objAt}), text ${fmtRatio(text)} (${textAt})${boundText} | ${met(atLeast(obj, 3), atLeast(text, 6), unmeasured ? undefined : boundsMet)} |`);
    // A first load stopped at its limit gives an upper bound: marked in the label.
    const coldLowest = (ratio, bound) => {
      const [value, label] = lowest((r) => r[ratio] ?? r[bound]);
      const row = all.find((r) => r.w.label === label);
      return [value, row && row[ratio] === undefined ? `${label}; stopped at its limit, so below that` : label];
    };
    const [coldObj, coldObjAt] = coldLowest('fairRatioColdObj', 'fairBoundColdObj');
    const [coldText, coldTextAt] = coldLowest('fairRatioColdText', 'fairBoundColdText');
    L.push(`| fair baseline: first loads at least 1.5x | lowest: objects ${fmtRatio(coldObj)} (${coldObjAt}), text ${fmtRatio(coldText)} (${coldTextAt}) | ${met(atLeast(coldObj, 1.5), atLeast(coldText, 1.5))} |`);
    if (p8) {
      const limit = p8.fair.failure && p8.fair.failure.failed === 'timeout' ? p8.fair.failure.limitMs : undefined;
      const p8Bound = limit !== undefined && p8.pfObj && p8.pfText ? ` (the fair baseline stopped at its ${fmtMs(limit)} limit: at least ${fmtRatio(limit / p8.pfObj)} from objects, ${fmtRatio(limit / p8.pfText)} from text)` : '';
      L.push(`| fair baseline: prune-heavy 8,000 at least 100x from both | objects ${fmtRatio(p8.fairRatioObj)}, text ${fmtRatio(p8.fairRatioText)}${p8Bound} | ${met(atLeast(p8.fairRatioObj, 100), atLeast(p8.fairRatioText, 100))} |`);
    }
  }
  const floors = all.map((r) => [readFloorOf(r), r.w.label]).filter(([f]) => f);
  if (floors.length) {
    const times = floors.map(([f, label]) => [f.loadMs / f.readMs, label]);
    const [worst, worstAt] = times.reduce((a, b) => (b[0] > a[0] ? b : a));
    L.push(`| \`load\` from objects at most 2.5x the bare read of the header values, every workload | ${times.map(([v, label]) => `${label}: ${v.toFixed(1)}x`).join('; ')} (worst ${worstAt}) | ${met(worst <= 2.5)} |`);
  }
  const typicalNative = all.filter((r) => r.w.kind === 'typical' && r.native && r.native.loadJsonMs);
  if (typicalNative.length) {
    const speeds = typicalNative.map((r) => [r.m.bytes / (r.native.loadJsonMs * 1e6), r.w.label]);
    L.push(`| native \`load_json\` at least 1 GB/s on the typical workloads | ${speeds.map(([v, label]) => `${label}: ${v.toFixed(2)} GB/s`).join('; ')} | ${met(Math.min(...speeds.map(([v]) => v)) >= 1)} |`);
  }
  L.push(`| release wasm at most 120 KiB gzip (122,880 bytes) | ${fmtInt(raw.wasm.gzip)} bytes | ${met(raw.wasm.gzip <= 120 * 1024)} |`);
  const stateAts = all.filter((r) => ok(r.r.pfWarm)).map((r) => r.r.pfWarm.stateAtNs);
  if (stateAts.length) {
    L.push(`| \`stateAt\` under 1 µs | ${fmtNs(Math.min(...stateAts))} to ${fmtNs(Math.max(...stateAts))} | ${met(Math.max(...stateAts) < 1000)} |`);
  }
  const summaries = all.filter((r) => ok(r.r.pfWarm) && r.r.pfWarm.contextSummaryNs !== undefined).map((r) => r.r.pfWarm.contextSummaryNs);
  if (summaries.length) {
    L.push(`| \`contextSummaryAt\` under 2 µs | ${fmtNs(Math.min(...summaries))} to ${fmtNs(Math.max(...summaries))} | ${met(Math.max(...summaries) < 2000)} |`);
  }
  const ratios = all.flatMap((r) => [
    [r.ratioObj, `${r.w.label}, objects`],
    [r.ratioText, `${r.w.label}, text`],
    [r.ratioColdObj ?? r.boundColdObj, `${r.w.label}, objects, first load${r.ratioColdObj === undefined ? ' (an upper bound: stopped at the limit)' : ''}`],
    [r.ratioColdText ?? r.boundColdText, `${r.w.label}, text, first load${r.ratioColdText === undefined ? ' (an upper bound: stopped at the limit)' : ''}`],
  ]).filter(([v]) => v !== undefined);
  if (ratios.length) {
    const [low, where] = ratios.reduce((a, b) => (b[0] < a[0] ? b : a));
    const slower = ratios.filter(([v]) => v < 1).length;
    L.push(`| no workload slower than the baseline | lowest ratio ${fmtRatio(low)} (${where}); ${slower} of ${ratios.length} comparisons below 1x | ${met(low >= 1)} |`);
  }
  // 1,000-event pages that change (almost) no card, into the smallest windows (under 20,000
  // events) and the largest (over 80,000): the median of every call in each group, over every
  // sequence. Met when the large windows cost at most 25% more.
  const pages = ok(p) ? p.steps.filter((st) => st.loaded === 1_000 && st.cards < 100) : [];
  const group = (inside) => pages.filter((st) => inside(st.window));
  const smallGroup = group((window) => window < 20_000);
  const largeGroup = group((window) => window > 80_000);
  if (smallGroup.length > 0 && largeGroup.length > 0) {
    const span = (steps) => `${fmtInt(steps[0].window)} to ${fmtInt(steps.at(-1).window)}`;
    const calls = (steps) => steps.flatMap((st) => st.runs);
    const a = { ms: median(calls(smallGroup)), window: median(smallGroup.map((st) => st.window)) };
    const b = { ms: median(calls(largeGroup)), window: median(largeGroup.map((st) => st.window)) };
    const slope = (b.ms - a.ms) / ((b.window - a.window) / 1000);
    L.push(`| prepend grows with the events loaded, not with the window | 1,000-event pages into windows of ${span(smallGroup)} events: ${fmtMs(a.ms)} (median of ${calls(smallGroup).length} calls); into ${span(largeGroup)}: ${fmtMs(b.ms)} (${calls(largeGroup).length} calls); ${fmtRatio(b.ms / a.ms)}, ${slope.toFixed(3)} ms more per 1,000 events of window | ${met(b.ms <= 1.25 * a.ms)} |`);
  }
  L.push('');
  return `${L.join('\n')}\n`;
}

if (process.argv.includes('--report')) {
  const raw = JSON.parse(readFileSync(join(resultsDir, 'raw.json'), 'utf8'));
  writeFileSync(join(resultsDir, 'time-vs-size.svg'), plot(raw));
  writeFileSync(join(resultsDir, 'performance.md'), report(raw));
} else {
  main();
}
