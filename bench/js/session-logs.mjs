// Session-log framing and live tails, for BENCHMARKS.md (run by scripts/bench.sh; not part of the
// package). Writes bench/results/session-logs.md.
//
//   node bench/js/gen.mjs && node bench/js/session-logs.mjs [--quick]
//
// Each measurement runs in a fresh `node --expose-gc` process with only what it needs on its
// JS heap (the text or bytes it reads), ROUNDS times, alternating the kinds within a round; every
// figure is the median over the rounds of each process's median.
//
// - text: loadJson of a workload as JSON lines (string), beside
// - framed: the same events as a session file (a header row, every event in an SDK notification), and
// - feed: the JSON lines as bytes fed in 64 KiB pieces.
// - live tail: the workload's first events loaded from bytes, then its last 1,000 appended one by
//   one with append (JS objects) or feed (one line each): median, largest call, calls over 5 ms,
//   and the first call after the load.

import { spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { dataPath } from './gen.mjs';
import { median } from './stats.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const quick = process.argv.includes('--quick');
const ROUNDS = quick ? 3 : 5;
const RUNS = 3;
const TAIL = 1000;
const PIECE = 65536;
const WORKLOADS = ['typical-10k', 'prune-8k', 'typical-100k'];

async function child(kind, workload) {
  const { promptfold } = await import('../../tests/js/promptfold.mjs');
  const { Conversation } = promptfold;
  const events = JSON.parse(readFileSync(dataPath(workload), 'utf8'));
  if (kind === 'append' || kind === 'feedTail') {
    const head = Buffer.from(events.slice(0, -TAIL).map((event) => JSON.stringify(event)).join('\n') + '\n');
    const tail = events.slice(-TAIL);
    const lines = tail.map((event) => `${JSON.stringify(event)}\n`);
    events.length = 0;
    const conversation = new Conversation();
    conversation.loadJson(head);
    globalThis.gc();
    const times = [];
    for (let i = 0; i < TAIL; i++) {
      const start = performance.now();
      if (kind === 'append') conversation.append([tail[i]]);
      else conversation.feed(lines[i]);
      times.push(performance.now() - start);
    }
    const sorted = [...times].sort((a, b) => a - b);
    console.log(JSON.stringify({ first: times[0], median: median(times), max: sorted.at(-1), over5: times.filter((t) => t > 5).length, times }));
    return;
  }
  let text;
  if (kind === 'framed') {
    text = `${JSON.stringify({ type: 'session', version: 4, id: 'bench', createdAt: 0, cwd: '/w' })}\n` +
      events.map((event) => JSON.stringify({ jsonrpc: '2.0', method: 'session.event', params: { sessionId: 'bench', event } })).join('\n') + '\n';
  } else {
    text = events.map((event) => JSON.stringify(event)).join('\n') + '\n';
  }
  events.length = 0;
  const bytes = kind === 'feed' ? Buffer.from(text) : undefined;
  if (kind === 'feed') text = undefined;
  const times = [];
  for (let i = 0; i < RUNS + 1; i++) {
    globalThis.gc();
    const conversation = new Conversation();
    const start = performance.now();
    if (kind === 'feed') {
      for (let at = 0; at < bytes.length; at += PIECE) {
        conversation.feed(bytes.subarray(at, at + PIECE));
      }
    } else {
      conversation.loadJson(text);
    }
    const took = performance.now() - start;
    if (i > 0) times.push(took);
    conversation.free();
  }
  console.log(JSON.stringify({ median: median(times) }));
}

function measure(kind, workload) {
  const out = spawnSync(process.execPath, ['--expose-gc', '--max-old-space-size=8192', fileURLToPath(import.meta.url), '--child', kind, workload], { encoding: 'utf8', maxBuffer: 1 << 24 });
  if (out.status !== 0) throw new Error(`${kind} ${workload}: ${out.stderr}`);
  return JSON.parse(out.stdout.trim().split('\n').at(-1));
}

function main() {
  const rows = [];
  const ms = (value) => value.toFixed(value < 10 ? 2 : 1);
  for (const workload of WORKLOADS) {
    const runs = { text: [], framed: [], feed: [] };
    for (let round = 0; round < ROUNDS; round++) {
      const kinds = round % 2 ? ['feed', 'framed', 'text'] : ['text', 'framed', 'feed'];
      for (const kind of kinds) runs[kind].push(measure(kind, workload).median);
    }
    const text = median(runs.text), framed = median(runs.framed), feed = median(runs.feed);
    rows.push(`| ${workload} | ${ms(text)} ms | ${ms(framed)} ms (${(framed / text).toFixed(2)}x) | ${ms(feed)} ms (${(feed / text).toFixed(2)}x) |`);
    console.error(rows.at(-1));
  }
  const tails = [];
  for (const kind of ['append', 'feedTail']) {
    const results = [];
    for (let round = 0; round < ROUNDS; round++) results.push(measure(kind, 'typical-100k'));
    const pick = (key) => median(results.map((result) => result[key]));
    const worst = Math.max(...results.map((result) => result.max));
    // A call slow in every round is the code's; one slow in a single round was most likely the
    // process waiting for a core (wall time far above its CPU time on this shared machine).
    const steady = results[0].times.map((_, i) => Math.min(...results.map((result) => result.times[i])));
    const steadyWorst = Math.max(...steady);
    tails.push(`| ${kind === 'append' ? 'append' : 'feed'} | ${(pick('median') * 1000).toFixed(1)} µs | ${ms(pick('first'))} ms | ${ms(pick('max'))} ms (worst ${ms(worst)} ms) | ${ms(steadyWorst)} ms (call ${steady.indexOf(steadyWorst)}) | ${results.map((result) => result.over5).join(', ')} |`);
    console.error(tails.at(-1));
  }
  const report = [
    '## Session-log framing and live tails',
    '',
    `\`node bench/js/session-logs.mjs\`, ${ROUNDS} rounds, a fresh process per measurement; medians. Node ${process.version}.`,
    '',
    '| workload (JSON lines) | loadJson | as a session file (header, notifications) | feed in 64 KiB pieces |',
    '| --- | --- | --- | --- |',
    ...rows,
    '',
    `Live tail: typical-100k without its last ${TAIL} events loaded from bytes, then those ${TAIL} one at a time (per-round figures, then their median). "Largest of each call's fastest round": for each of the ${TAIL} calls its shortest time over the rounds, then the largest of those: a call that is slow in every round is slow because of the code; one slow in a single round waited for a core.`,
    '',
    '| call | median | first call after the load | largest call | largest of each call\'s fastest round | calls over 5 ms, per round |',
    '| --- | --- | --- | --- | --- | --- |',
    ...tails,
    '',
  ].join('\n');
  writeFileSync(join(here, '..', 'results', 'session-logs.md'), report);
  console.log(report);
}

if (process.argv[2] === '--child') await child(process.argv[3], process.argv[4]);
else main();
