// Two builds of the Node package side by side, for a change that must not make anything slower:
//
//   node bench/js/compare-loads.mjs OLD NEW [ROUNDS] [WORKLOAD ...]
//
// OLD and NEW are pkg/node folders (copy one aside before rebuilding). Each round runs, for each
// workload (bench/data/, from `node bench/js/gen.mjs`; default all), one fresh process per build
// and measurement, in alternating order so that the shared machine's load reaches both alike:
// bench/js/measure.mjs pf-time (repeated load from objects and loadJson from text, after calls not
// counted) and pf-cold-objects / pf-cold-text (the first call of a process). Prints, per
// workload and measure, the median of each build over all rounds and new / old.
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { DATA_DIR } from './gen.mjs';
import { median } from './stats.mjs';
import { WORKLOADS } from './workloads.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const [oldDir, newDir, roundsArg, ...only] = process.argv.slice(2);
if (!oldDir || !newDir) {
  console.error('usage: node bench/js/compare-builds.mjs OLD_PKG_NODE NEW_PKG_NODE [ROUNDS] [WORKLOAD ...]');
  process.exit(2);
}
const rounds = Number(roundsArg ?? 3);
const builds = { old: resolve(oldDir, 'promptfold.js'), new: resolve(newDir, 'promptfold.js') };
const manifest = JSON.parse(readFileSync(join(DATA_DIR, 'manifest.json'), 'utf8'));
const workloads = WORKLOADS.map((w) => w.name).filter((name) => only.length === 0 || only.includes(name));

function measure(build, task, workload, arg) {
  const args = ['--expose-gc', join(here, 'measure.mjs'), task, workload];
  if (arg !== undefined) args.push(arg);
  const child = spawnSync(process.execPath, args, {
    encoding: 'utf8',
    env: { ...process.env, PROMPTFOLD_PKG: builds[build] },
    maxBuffer: 64 * 1024 * 1024,
  });
  if (child.status !== 0) throw new Error(`${task} ${workload} (${build}): ${child.stderr.slice(-800)}`);
  return JSON.parse(child.stdout.trim().split('\n').pop());
}

const rows = [];
for (const workload of workloads) {
  const grow = 7 * manifest.workloads[workload].bytes;
  const times = { old: { objects: [], text: [], firstObjects: [], firstText: [] }, new: null };
  times.new = structuredClone(times.old);
  for (let round = 0; round < rounds; round++) {
    const order = round % 2 === 0 ? ['old', 'new'] : ['new', 'old'];
    for (const build of order) {
      const warm = measure(build, 'pf-time', workload, `${grow},5,2`);
      times[build].objects.push(...warm.objects);
      times[build].text.push(...warm.text);
    }
    for (const build of [...order].reverse()) {
      times[build].firstObjects.push(measure(build, 'pf-cold-objects', workload).ms);
      times[build].firstText.push(measure(build, 'pf-cold-text', workload).ms);
    }
    console.error(`compare-builds: ${workload}, round ${round + 1} of ${rounds}`);
  }
  for (const key of Object.keys(times.old)) {
    const before = median(times.old[key]);
    const after = median(times.new[key]);
    rows.push({ workload, key, before, after, ratio: after / before, n: times.old[key].length });
  }
}

console.log(`| workload | measure | old (median ms) | new (median ms) | new / old | runs each |`);
console.log('| --- | --- | ---: | ---: | ---: | ---: |');
for (const r of rows) {
  console.log(`| ${r.workload} | ${r.key} | ${r.before.toFixed(2)} | ${r.after.toFixed(2)} | ${r.ratio.toFixed(3)} | ${r.n} |`);
}
