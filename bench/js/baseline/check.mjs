// BENCHMARK BASELINE CHECK -- NOT PART OF THE PACKAGE.
// Runs the upstream-style baseline (baseline.mjs) against `expected.pure` of
// every conformance case, so the benchmark compares against a correct baseline.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { inspectSystemPrompt, inspectRequestPrompt, toStateJson } from './baseline.mjs';

const root = process.env.CONFORMANCE_DIR || '/work/shared/conformance';

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
  if (firstDiff) {
    failed++;
    failures.push(`  ${kase.name} (${relative(root, file)}): ${firstDiff}`);
  }
}

console.log(`baseline: ${cases} cases, ${checks} checks, ${failed} failed`);
for (const f of failures) console.log(f);
process.exit(failed ? 1 : 0);
