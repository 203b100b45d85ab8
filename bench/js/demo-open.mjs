// What "Open a log" costs the demo's page for files under the worker thresholds (www/
// big-session.js: 4 MiB plain, 512 KiB zstd), on the page's own thread against the worker, in
// Debian's headless Chromium (e2e/harness.mjs; build www/ first: bash scripts/demo.sh
// --build-only).
//
//   node bench/js/demo-open.mjs [RUNS] [SIZES_MB]     (default 5 runs; 0.1,0.5,1,2,4 MB)
//
// Per file (the large and the small profile of tests/js/kit/session.mjs, generated in a
// temporary folder and deleted after), medians of RUNS:
// - page: the file chosen in "Open a log" until the status line says it is open (the page's
//   conversation, its transcript and views drawn), and the longest main-thread task meanwhile
//   (PerformanceObserver 'longtask'; none under 50 ms is reported);
// - worker: the demo's worker (www/demo-worker.js) opening the same File (`open`, newest page
//   first) until the whole file is loaded and the newest 24 cards came back as a slice; the
//   first open in a page also starts the worker and compiles its wasm ("cold"), the later ones
//   do not ("warm").
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startDemo } from '../../e2e/harness.mjs';
import { sessionEvents } from '../../tests/js/kit/session.mjs';
import { median } from './stats.mjs';

const runs = Number(process.argv[2] ?? 5);
const sizes = (process.argv[3] ?? '0.1,0.5,1,2,4').split(',').map(Number);
const dir = mkdtempSync(join(tmpdir(), 'promptfold-demo-open-'));

function generate(path, megabytes, profile) {
  let text = `${JSON.stringify({ type: 'session', version: 4, id: 's-open', createdAt: 1_790_000_000_000, cwd: '/w' })}\n`;
  for (const event of sessionEvents({ profile, seed: 7, maxBytes: megabytes * 1e6 })) text += `${JSON.stringify(event)}\n`;
  writeFileSync(path, text);
}

/** Opens `path` through the page's "Open a log": milliseconds to the status line, longest task. */
async function onPage(page, path, name) {
  await page.evaluate((fileName) => {
    const seen = { longest: 0 };
    window.__open = seen;
    new PerformanceObserver((list) => {
      for (const entry of list.getEntries()) seen.longest = Math.max(seen.longest, entry.duration);
    }).observe({ type: 'longtask' });
    document.querySelector('#open-log').addEventListener('change', () => { seen.chosenAt = performance.now(); }, { capture: true, once: true });
    const status = document.querySelector('#status');
    const observer = new MutationObserver(() => {
      if (status.textContent.includes(`Opened ${fileName}`)) {
        seen.openedAt = performance.now();
        observer.disconnect();
      }
    });
    observer.observe(status, { childList: true, subtree: true, characterData: true });
  }, name);
  await page.getByTestId('open-log').setInputFiles(path);
  await page.waitForFunction(() => window.__open.openedAt !== undefined, null, { timeout: 60_000 });
  // Long tasks are reported after they end: wait a frame and a bit.
  await page.evaluate(() => new Promise((resolve) => requestAnimationFrame(() => setTimeout(resolve, 200))));
  const seen = await page.evaluate(() => window.__open);
  return { ms: seen.openedAt - seen.chosenAt, longest: seen.longest };
}

/** Opens the same bytes in the demo's worker: milliseconds to the loaded file and its newest cards. */
function inWorker(page, text) {
  return page.evaluate(async (body) => {
    const { worker } = await import('./big-session.js');
    const file = new File([body], 'log.jsonl');
    const started = performance.now();
    const client = worker();
    const opened = await client.open(file, { newestFirst: true });
    const cards = opened.info.counts.cards;
    await client.call('cardsSlice', { start: Math.max(0, cards - 24), end: cards });
    return performance.now() - started;
  }, text);
}

const rows = [];
try {
  for (const profile of ['large', 'small']) {
    for (const megabytes of sizes) {
      const name = `${profile}-${megabytes}mb.jsonl`;
      const path = join(dir, name);
      generate(path, megabytes, profile);
      const text = readFileSync(path, 'utf8');
      const page = [];
      const longest = [];
      const cold = [];
      const warm = [];
      for (let run = 0; run < runs; run++) {
        const demo = await startDemo();
        try {
          const opened = await onPage(demo.page, path, name);
          page.push(opened.ms);
          longest.push(opened.longest);
          cold.push(await inWorker(demo.page, text));
          warm.push(await inWorker(demo.page, text));
        } finally {
          await demo.close();
        }
      }
      const row = {
        file: name,
        bytes: Buffer.byteLength(text),
        pageMs: Math.round(median(page)),
        pageLongestTaskMs: Math.round(median(longest)),
        workerColdMs: Math.round(median(cold)),
        workerWarmMs: Math.round(median(warm)),
      };
      rows.push(row);
      console.log(JSON.stringify(row));
    }
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}
console.log(JSON.stringify({ runs, rows }));
