// BENCHMARK BASELINE CHECK -- NOT PART OF THE PACKAGE.
// Runs the upstream-style baseline (baseline.mjs) against `expected.pure` of
// every conformance case, so the benchmark compares against a correct baseline.
// The cases hold no contexts: the fair baseline's token meter and request ledger
// (context.mjs) are compared with promptfold's (pkg/node, or PROMPTFOLD_PKG) on
// every seq and every request of every case; promptfold's contexts are checked
// against a reference of their own in tests/context.rs.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { inspectSystemPrompt, inspectRequestPrompt, toStateJson } from './baseline.mjs';
import { ContextLedger } from './context.mjs';

const root = process.env.CONFORMANCE_DIR || '/work/shared/conformance';
const here = dirname(fileURLToPath(import.meta.url));
const promptfold = createRequire(import.meta.url)(
  process.env.PROMPTFOLD_PKG || join(here, '..', '..', '..', 'pkg', 'node', 'promptfold.js'),
);

function findCases(dir) {
  const out = [];
  for (const name of readdirSync(dir).sort()) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) out.push(...findCases(path));
    else if (name.endsWith('.json')) out.push(path);
  }
  return out;
}

// First differing path between two parsed JSON values, or undefined if equal.
function diff(a, b, path) {
  if (a === b) return undefined;
  if (Array.isArray(a) || Array.isArray(b)) {
    if (!Array.isArray(a) || !Array.isArray(b)) return path;
    if (a.length !== b.length) return `${path} (length ${a.length} vs ${b.length})`;
    for (let i = 0; i < a.length; i++) {
      const d = diff(a[i], b[i], `${path}[${i}]`);
      if (d) return d;
    }
    return undefined;
  }
  if (a && b && typeof a === 'object' && typeof b === 'object') {
    const keys = new Set([...Object.keys(a), ...Object.keys(b)]);
    for (const k of [...keys].sort()) {
      if (!(k in a) || !(k in b)) return `${path}.${k} (missing on ${k in a ? 'expected' : 'actual'} side)`;
      const d = diff(a[k], b[k], `${path}.${k}`);
      if (d) return d;
    }
    return undefined;
  }
  return path;
}

// Round-trip through JSON, which drops absent (undefined) optional members.
const asJson = (v) => JSON.parse(JSON.stringify(v));

let cases = 0;
let checks = 0;
let failed = 0;
const failures = [];

for (const file of findCases(root)) {
  const kase = JSON.parse(readFileSync(file, 'utf8'));
  cases++;
  let state;
  let previousPrompt;
  let firstDiff;
  kase.events.forEach((event, i) => {
    const systemBefore = state ? state.effective : undefined;
    state = inspectSystemPrompt(state, event);
    const line = { seq: event.seq, system: state ? toStateJson(state) : null };
    if (event.type === 'request/header') {
      const inspection = inspectRequestPrompt(previousPrompt, event, systemBefore);
      previousPrompt = inspection.prompt;
      line.request = inspection;
    }
    checks++;
    const d = diff(asJson(line), kase.expected.pure[i], `pure[${i}]`);
    if (d && !firstDiff) firstDiff = `${d} (seq ${event.seq})`;
  });
  if (kase.expected.pure.length !== kase.events.length && !firstDiff) {
    firstDiff = `pure (length ${kase.events.length} vs ${kase.expected.pure.length})`;
  }
  if (!firstDiff) firstDiff = checkContexts(kase.events);
  if (firstDiff) {
    failed++;
    failures.push(`  ${kase.name} (${relative(root, file)}): ${firstDiff}`);
  }
}

// The fair baseline's contexts against promptfold's: after every event, the surviving nodes
// and the breakdown (`contextAt`); then every request's context (`views()`). Returns the first
// difference, or undefined.
function checkContexts(events) {
  const conversation = new promptfold.Conversation();
  try {
    conversation.load(events);
    const ledger = new ContextLedger();
    let header;
    for (const event of events) {
      ledger.apply(event);
      if (event.type === 'request/header') header = event.data?.header;
      const { nodes, ...summary } = conversation.contextAt(event.seq);
      const mine = { nodes: ledger.meter.nodes(), ...ledger.meter.breakdown(header) };
      checks++;
      const d = diff(asJson(mine), asJson({ nodes, ...summary }), `contextAt(${event.seq})`);
      if (d) return d;
    }
    const expected = conversation.views().trajectory.requests.map((request) => request.context);
    checks++;
    return diff(asJson(ledger.finish()), asJson(expected), 'requests');
  } finally {
    conversation.free();
  }
}

console.log(`baseline: ${cases} cases, ${checks} checks, ${failed} failed`);
for (const f of failures) console.log(f);
process.exit(failed ? 1 : 0);
