// End-to-end test of the demo page (www/) in Debian's headless Chromium, driven by playwright-core.
// Run from e2e/: `npm ci && node --test`. Needs the web build in www/pkg/
// (`bash scripts/demo.sh --build-only`); fails at once, with that hint, when it is missing.
//
// It serves www/ itself (python3 -m http.server on a free port), then checks what a person would:
// the prompt cards and their titles (English and Chinese), expanding one, stepping through history,
// "Load earlier" until the withheld prompt resolves, the trajectory rows, the prompt diffs of an
// update card and of a trajectory change (summary, sections, + and − lines, the views), opening
// bad and good logs (file input and drag-and-drop), that markup in a prompt stays inert text, and
// that the console stays free of errors. It saves e2e/screenshot.png.

import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';
import { pageStarts } from '../www/paging.mjs';
import { freePort } from './harness.mjs';

const www = fileURLToPath(new URL('../www/', import.meta.url));
const screenshotPath = fileURLToPath(new URL('./screenshot.png', import.meta.url));
const chromiumPath = process.env.CHROMIUM_PATH || '/usr/bin/chromium';
const MARKUP = '<img src=x onerror="window.__xss=1">';

const sample = JSON.parse(readFileSync(new URL('sample-session.json', `file://${www}`), 'utf8'));
const pages = pageStarts(sample).map((index) => sample[index].seq); // window starts, newest first
const systemReplace = (e) => e.type === 'system/message' && typeof e.surfaceOp === 'object';
const clearedSeq = sample.find((e) => systemReplace(e) && e.data.message.content.length === 0)?.seq;
const compactionSeq = sample.find((e) => e.type === 'user/message' && typeof e.surfaceOp === 'object')?.seq;
const releaseSeq = sample.find((e) => e.type === 'system/message' && e.data.message.content.some((c) => c.text?.includes('# Release checklist')))?.seq;
const firstWithheldSeq = sample.find((e) => e.seq >= pages[0] && typeof e.surfaceOp === 'object'
  && Math.min(e.surfaceOp.startSeq, e.surfaceOp.endSeq) < pages[0])?.seq;

let server;
let serverLog = '';
let browser;
let page;
let baseUrl;
const problems = []; // console errors and page errors

async function waitForServer(url, ms) {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    if (server.exitCode !== null) throw new Error(`the http server exited (${server.exitCode}):\n${serverLog}`);
    try {
      const response = await fetch(url, { signal: AbortSignal.timeout(1000) });
      if (response.ok) return;
    } catch { /* not up yet */ }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`the http server did not answer at ${url} within ${ms} ms:\n${serverLog}`);
}

before(async () => {
  if (!existsSync(new URL('pkg/promptfold.js', `file://${www}`)) || !existsSync(new URL('pkg/promptfold_bg.wasm', `file://${www}`))) {
    throw new Error('www/pkg/ has no web build (promptfold.js, promptfold_bg.wasm). Build it first: bash scripts/demo.sh --build-only');
  }
  if (!existsSync(chromiumPath)) {
    throw new Error(`no Chromium at ${chromiumPath}: apt-get install -y chromium (or set CHROMIUM_PATH)`);
  }
  const port = await freePort();
  baseUrl = `http://127.0.0.1:${port}/`;
  server = spawn('python3', ['-m', 'http.server', String(port), '--bind', '127.0.0.1', '--directory', www], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  server.stdout.on('data', (chunk) => { serverLog += chunk; });
  server.stderr.on('data', (chunk) => { serverLog += chunk; });
  server.on('error', (error) => { serverLog += `spawn error: ${error.message}\n`; });
  await waitForServer(baseUrl, 15000);

  browser = await chromium.launch({
    executablePath: chromiumPath,
    headless: true,
    timeout: 30000,
    args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage', '--disable-quic', '--no-first-run',
      '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
  const context = await browser.newContext({ viewport: { width: 1440, height: 900 }, deviceScaleFactor: 1 });
  page = await context.newPage();
  page.setDefaultTimeout(10000);
  page.on('console', (message) => {
    if (message.type() === 'error') problems.push(`console error: ${message.text()} (${message.location()?.url ?? ''})`);
  });
  page.on('pageerror', (error) => problems.push(`page error: ${error.stack ?? error.message}`));
  page.on('requestfailed', (request) => problems.push(`request failed: ${request.url()} ${request.failure()?.errorText}`));
  await page.goto(baseUrl, { waitUntil: 'load' });
  await page.waitForSelector('body[data-ready]', { timeout: 15000 });
  const ready = await page.getAttribute('body', 'data-ready');
  if (ready !== 'true') {
    throw new Error(`the page did not start: ${await page.getByTestId('error').innerText().catch(() => '(no banner)')}`);
  }
});

after(async () => {
  await browser?.close().catch(() => {});
  if (server && server.exitCode === null) server.kill('SIGTERM');
});

// Helpers --------------------------------------------------------------------------------------

const cards = () => page.getByTestId('chat-card');
const effective = () => page.getByTestId('effective-prompt');
const effectiveState = () => effective().getAttribute('data-state');
const readoutSeq = async () => Number((await page.locator('#step-readout strong').innerText()).replace('seq ', ''));

/** Moves the history slider with the keyboard until the given seq is selected. */
async function stepTo(seq) {
  const slider = page.getByTestId('history-step');
  await slider.focus();
  for (let i = 0; i < 1000; i += 1) {
    const current = await readoutSeq();
    if (current === seq) return;
    await page.keyboard.press(current < seq ? 'ArrowRight' : 'ArrowLeft');
  }
  throw new Error(`could not step to seq ${seq}`);
}

async function cardKeys() {
  return cards().evaluateAll((els) => els.map((el) => `${el.dataset.key}=${el.dataset.titleKey}`));
}

// Tests ----------------------------------------------------------------------------------------

test('opens on the newest page of the sample, with the prompt withheld', async () => {
  assert.ok(pages.length >= 3, 'the sample has at least three pages');
  assert.ok(firstWithheldSeq, 'the newest page holds a replacement that reaches before it');
  const info = await page.locator('#window-info').innerText();
  assert.match(info, new RegExp(`from seq ${pages[0]}\\b`), 'the page says where the initial window starts');
  assert.match(await page.getByTestId('window-range').innerText(), new RegExp(`Loaded seq ${pages[0]}–${sample.at(-1).seq}`));
  assert.equal(await page.getByTestId('load-earlier').isEnabled(), true);
  // The last event is selected; its prompt is withheld, with the reason.
  assert.equal(await readoutSeq(), sample.at(-1).seq);
  assert.equal(await effectiveState(), 'withheld');
  const why = await effective().innerText();
  assert.match(why, /Withheld/i);
  assert.match(why, new RegExp(`replacement at seq ${firstWithheldSeq}`));
  assert.match(why, new RegExp(`starts at seq ${pages[0]}`));
  // One card in this window: the release prompt, a first prompt here (its predecessor is not loaded).
  assert.deepEqual(await cardKeys(), [`system:${releaseSeq}=message.systemPrompt`]);
});

test('card titles in English and Chinese; a card expands to its prompt, markup stays text', async () => {
  const card = cards().first();
  const title = card.locator('.card-title');
  assert.equal(await title.innerText(), 'System prompt');
  await page.getByTestId('lang-zh').click();
  assert.equal(await title.innerText(), '系统提示词');
  await page.getByTestId('lang-en').click();
  assert.equal(await title.innerText(), 'System prompt');

  assert.equal(await card.evaluate((el) => el.open), false, 'cards start collapsed');
  await card.locator('summary').click();
  assert.equal(await card.evaluate((el) => el.open), true);
  const text = card.getByTestId('card-text');
  await text.waitFor({ state: 'visible' });
  const shown = await text.innerText();
  assert.match(shown, /# Release checklist/);
  assert.ok(shown.includes(MARKUP), 'the markup in the prompt is shown literally');
  assert.equal(await page.locator('img').count(), 0, 'no <img> element was created from log text');
  assert.equal(await page.evaluate(() => window.__xss), undefined, 'no handler from log text ran');
});

test('history stepper: the effective prompt at any event (stateAt)', async () => {
  const slider = page.getByTestId('history-step');
  await slider.focus();
  await page.keyboard.press('Home');
  assert.equal(await readoutSeq(), pages[0]);
  assert.equal(await effectiveState(), 'none', 'no prompt event loaded yet at the window start');
  await stepTo(releaseSeq);
  assert.equal(await effectiveState(), 'prompt');
  assert.match(await page.getByTestId('effective-text').innerText(), /# Release checklist/);
  await stepTo(firstWithheldSeq - 1);
  assert.equal(await effectiveState(), 'prompt');
  await page.keyboard.press('ArrowRight');
  assert.equal(await readoutSeq(), firstWithheldSeq);
  assert.equal(await effectiveState(), 'withheld');
  // The buttons step too.
  await page.getByTestId('history-prev').click();
  assert.equal(await effectiveState(), 'prompt');
  await page.getByTestId('history-next').click();
  assert.equal(await effectiveState(), 'withheld');
});

test('trajectory: one row per request; rows expand to the previous and current prompt', async () => {
  const stepStarts = sample.filter((e) => e.seq >= pages[0] && e.type === 'step/start').length;
  const rows = page.getByTestId('trajectory-row');
  assert.equal(await rows.count(), stepStarts);
  const withheldRows = await page.locator('[data-testid="trajectory-row"].is-withheld').count();
  assert.ok(withheldRows > 0, 'requests after the far-reaching replacement are marked withheld');
  const toolsRow = page.locator('[data-testid="trajectory-row"][data-change-kind="tools"]').first();
  await toolsRow.click();
  const detail = page.getByTestId('trajectory-detail');
  await detail.waitFor({ state: 'visible' });
  // A change with a previous prompt opens on its Diff view; the prompts are one view over.
  if (await detail.getByTestId('change-views').count()) await detail.getByRole('tab', { name: 'System prompt' }).click();
  assert.match(await detail.innerText(), /Previous[\s\S]*Current/);
  await toolsRow.click();
  assert.equal(await detail.count(), 0, 'a second click collapses the row');
});

test('"Load earlier" prepends older pages until the withheld prompt resolves', async () => {
  await page.keyboard.press('End');
  assert.equal(await effectiveState(), 'withheld');
  let loads = 0;
  while ((await effectiveState()) === 'withheld') {
    assert.ok(loads < pages.length, 'the prompt resolves once its missing events are loaded');
    const before = await page.locator('#status').textContent();
    await page.getByTestId('load-earlier').click();
    loads += 1;
    // Each page's status names its own seq range, so a new text means this click's load is done.
    await page.waitForFunction(
      (previous) => {
        const status = document.querySelector('#status')?.textContent ?? '';
        return status !== previous && status.startsWith('Loaded');
      },
      before,
    );
  }
  assert.equal(loads, 1, 'one older page brings in the pruned result');
  assert.equal(await effectiveState(), 'prompt');
  assert.match(await page.locator('#status').innerText(), /no longer withheld/);
  // What changed is highlighted: the release prompt is an update now that its predecessor is loaded.
  const changed = page.locator('[data-testid="chat-card"].is-changed');
  assert.deepEqual(await changed.evaluateAll((els) => els.map((el) => `${el.dataset.key}=${el.dataset.titleKey}`)),
    [`system:${releaseSeq}=message.systemPromptUpdate`]);
  assert.equal(await changed.locator('.card-title').innerText(), 'System prompt updated');
  assert.ok(await page.locator('[data-testid="chat-card"].is-added').count() > 0, 'new cards are highlighted');
  assert.equal(await page.locator('[data-testid="trajectory-row"].is-withheld').count(), 0);
  await stepTo(firstWithheldSeq);
  assert.equal(await effectiveState(), 'prompt', 'no longer withheld after the prune');

  // The rest of the session; it stays resolved.
  while (await page.getByTestId('load-earlier').isEnabled()) {
    await page.getByTestId('load-earlier').click();
    loads += 1;
    assert.ok(loads <= pages.length, 'no more pages than the sample has');
  }
  assert.equal(loads, pages.length - 1, 'one load per older page');
  assert.match(await page.getByTestId('window-range').innerText(), /complete/);
  assert.equal(await effectiveState(), 'prompt');
  const keys = await cardKeys();
  assert.ok(keys.includes('system:3=message.systemPrompt'), keys.join(' '));
  assert.ok(keys.includes('system:36=message.systemPromptUpdate'), keys.join(' '));
  assert.ok(keys.some((k) => k.startsWith('request:')), 'request cards where the rules put them');
  // Titles follow the key.
  for (const card of await cards().all()) {
    const key = await card.getAttribute('data-title-key');
    const title = await card.locator('.card-title').innerText();
    assert.equal(title, key === 'message.systemPromptUpdate' ? 'System prompt updated' : 'System prompt');
  }
  // All four kinds of prompt change appear in the full trajectory.
  const kinds = new Set(await page.getByTestId('trajectory-row').evaluateAll((els) => els.map((el) => el.dataset.changeKind)));
  for (const kind of ['initial', 'system', 'tools', 'system-and-tools']) assert.ok(kinds.has(kind), `a ${kind} change`);
});

test('the stepper shows the compaction restoring the older prompt, and the cleared prompt', async () => {
  await stepTo(compactionSeq);
  assert.equal(await effectiveState(), 'prompt');
  const restored = await effective().innerText();
  assert.match(restored, /# Mode: plan/, 'the compaction restores the plan-mode prompt');
  assert.match(restored, new RegExp(`restored at seq ${compactionSeq}`));
  await stepTo(clearedSeq);
  assert.equal(await effectiveState(), 'cleared');
});

test('an update card sums up its diff, and expands to it with the sections named', async () => {
  // The sample's first in-history update (seq 36) is loaded by now ("Load earlier" above).
  const events = sample.filter((e) => e.seq <= 36 && e.type === 'system/message');
  const [before, after] = events.slice(-2).map((e) => e.data.message.content.map((c) => c.text).join(''));
  const update = page.locator('[data-testid="chat-card"][data-key="system:36"]');
  const summary = await update.getByTestId('card-diff-summary').innerText();
  // The summary names the changed sections and counts lines, from the prompts' own headings.
  const headings = (text) => text.split('\n').filter((l) => /^# /.test(l)).map((l) => l.slice(2));
  const changedHeadings = headings(after).filter((title) => !headings(before).includes(title));
  assert.ok(changedHeadings.length > 0);
  for (const title of changedHeadings) assert.ok(summary.includes(title), `${summary} names ${title}`);
  assert.match(summary, /· \+\d+ −\d+ lines$/);
  assert.equal(await update.evaluate((el) => el.open), false, 'the summary shows on the collapsed card');
  await update.locator('summary').click();
  const diff = update.getByTestId('prompt-diff');
  await diff.waitFor({ state: 'visible' });
  const sections = await update.getByTestId('diff-sections').locator('li').evaluateAll((els) =>
    els.map((li) => [li.dataset.status, li.textContent]));
  assert.ok(sections.some(([status, text]) => status === 'added' && text.includes(changedHeadings[0])));
  assert.ok(sections.some(([status, text]) => status === 'unchanged' && text.includes('Style')));
  // Added and removed lines carry + and − marks (readable without colour); applied to the
  // previous prompt, the shown lines give the new one.
  const lines = await update.getByTestId('diff-system').locator(':scope > span').evaluateAll((els) =>
    els.map((span) => span.textContent.replace(/\n$/, '')));
  const old = before.split('\n');
  const out = [];
  let at = 0;
  for (const line of lines) {
    const hunk = /^@@ −(\d+),(\d+) /.exec(line);
    if (hunk) {
      const from = Number(hunk[2]) === 0 ? Number(hunk[1]) : Number(hunk[1]) - 1;
      out.push(...old.slice(at, from));
      at = from;
    } else if (line[0] === '+') out.push(line.slice(1));
    else if (line[0] === '−') at += 1;
    else { out.push(line.slice(1)); at += 1; }
  }
  out.push(...old.slice(at));
  assert.equal(out.join('\n'), after);
  assert.ok(await update.locator('.diff-add .diff-mark').count() > 0);
  assert.ok(await update.locator('.diff-del .diff-mark').count() > 0);
  assert.equal(await page.locator('img').count(), 0, 'the markup in the prompt stays text in the diff');
  await update.getByRole('button', { name: 'Show full text' }).click();
  assert.equal(await update.getByTestId('card-text').innerText(), after.trimEnd());
  await update.getByRole('button', { name: 'Show changes' }).click();
  await diff.waitFor({ state: 'visible' });
  await update.locator('summary').click();
});

test('a trajectory change opens on its Diff view, with System prompt and Tools views', async () => {
  const row = page.locator('[data-testid="trajectory-row"][data-change-kind="system-and-tools"]').first();
  await row.click();
  const detail = page.getByTestId('trajectory-detail');
  const views = detail.getByTestId('change-views');
  await views.waitFor({ state: 'visible' });
  const labels = await views.getByRole('tab').allInnerTexts();
  assert.deepEqual(labels, ['Diff', 'System prompt', 'Tools']);
  assert.equal(await views.getByRole('tab', { name: 'Diff' }).getAttribute('aria-selected'), 'true');
  const diff = views.getByTestId('prompt-diff');
  assert.match(await diff.getByTestId('diff-summary').innerText(), /changed · \+\d+ −\d+ lines/);
  assert.ok(await diff.getByTestId('diff-tool').count() > 0, 'the tools that changed are listed with their hunks');
  assert.ok(await diff.locator('.diff-add, .diff-del').count() > 0);
  await views.getByRole('tab', { name: 'System prompt' }).click();
  assert.match(await views.innerText(), /Previous[\s\S]*Current/);
  await views.getByRole('tab', { name: 'Tools' }).click();
  assert.ok(await views.locator('.tool-list li').count() > 0);
  await row.click();
  assert.equal(await detail.count(), 0, 'a second click collapses the row');
});

test('a row opened and closed from the keyboard keeps the focus', async () => {
  const row = page.locator('[data-testid="trajectory-row"][data-change-kind="system-and-tools"]').first();
  const seq = await row.getAttribute('data-start-seq');
  const focusedSeq = () => page.evaluate(() => document.activeElement?.getAttribute('data-start-seq'));
  await row.focus();
  await page.keyboard.press('Enter');
  await page.getByTestId('trajectory-detail').waitFor({ state: 'visible' });
  assert.equal(await focusedSeq(), seq, 'the rebuilt row has the focus after opening');
  await page.keyboard.press('Enter');
  assert.equal(await page.getByTestId('trajectory-detail').count(), 0);
  assert.equal(await focusedSeq(), seq, 'the rebuilt row has the focus after closing');
});

test('screenshot', async () => {
  // A readable state: the in-history update open on its changes, the stepper on it, and the
  // request after the compaction expanded in the trajectory.
  const row = page.locator('[data-testid="trajectory-row"][data-change-kind="system-and-tools"]').first();
  await row.click();
  const update = page.locator('[data-testid="chat-card"][data-key="system:36"]');
  await update.locator('summary').click();
  assert.ok(await update.locator('.diff-add').count() > 0, 'the update shows its added lines');
  assert.equal(await effectiveState(), 'prompt');
  await page.getByTestId('lang-zh').click();
  await update.scrollIntoViewIfNeeded();
  await row.evaluate((el) => el.scrollIntoView({ block: 'start' }));
  await page.screenshot({ path: screenshotPath });
  await page.getByTestId('lang-en').click();
  assert.ok(existsSync(screenshotPath));
});

test('a bad file shows a readable error banner, and the window stays as it was', async () => {
  const before = await cardKeys();
  const input = page.getByTestId('open-log');
  await input.setInputFiles({ name: 'broken.json', mimeType: 'application/json', buffer: Buffer.from('[{"seq": 1, "time": 1, "type": ') });
  const banner = page.getByTestId('error');
  await banner.waitFor({ state: 'visible' });
  assert.match(await banner.innerText(), /Could not open broken\.json[\s\S]*MALFORMED_JSON/);
  assert.deepEqual(await cardKeys(), before);

  const backwards = [
    { seq: 5, time: 5, type: 'turn/start', data: { turn: 1 } },
    { seq: 4, time: 6, type: 'turn/end', data: { turn: 1 } },
  ].map((e) => JSON.stringify(e)).join('\n');
  await input.setInputFiles({ name: 'backwards.jsonl', mimeType: 'application/json', buffer: Buffer.from(backwards) });
  await page.waitForFunction(() => document.querySelector('[data-testid="error"]')?.textContent.includes('backwards.jsonl'));
  const text = await banner.innerText();
  assert.match(text, /NON_INCREASING_SEQ/);
  assert.match(text, /event #1/);
  assert.match(text, /seq 4/);

  await input.setInputFiles({ name: 'object.json', mimeType: 'application/json', buffer: Buffer.from('"just a string"') });
  await page.waitForFunction(() => document.querySelector('[data-testid="error"]')?.textContent.includes('object.json'));
  assert.match(await banner.innerText(), /NOT_AN_ARRAY|NOT_AN_OBJECT/);
  assert.deepEqual(await cardKeys(), before, 'the loaded session is untouched');
  await banner.getByRole('button', { name: 'Dismiss' }).click();
  assert.equal(await banner.count(), 0);
});

test('drag and drop a JSON-lines log; its markup prompt renders inertly', async () => {
  const log = [
    { seq: 1, time: 1700000000001, type: 'turn/start', data: { turn: 1 } },
    { seq: 2, time: 1700000000002, type: 'step/start', data: { turn: 1, step: 1 } },
    { seq: 3, time: 1700000000003, type: 'system/message', surfaceOp: 'append',
      data: { turn: 1, step: 1, message: { role: 'system', content: [{ type: 'text', text: `Hello ${MARKUP}<script>window.__xss=2</script>` }] } } },
    { seq: 4, time: 1700000000004, type: 'user/message', surfaceOp: 'append', data: { role: 'user', content: [{ type: 'text', text: '<b>hi</b>' }] } },
    { seq: 5, time: 1700000000005, type: 'request/header', data: { reason: 'initial', header: { config: { model: 'm' }, tools: [] } } },
  ].map((e) => JSON.stringify(e)).join('\n');
  await page.evaluate((text) => {
    const transfer = new DataTransfer();
    transfer.items.add(new File([text], 'dropped.jsonl', { type: 'application/json' }));
    const fire = (type) => document.body.dispatchEvent(new DragEvent(type, { bubbles: true, cancelable: true, dataTransfer: transfer }));
    fire('dragenter');
    fire('dragover');
    fire('drop');
  }, log);
  await page.waitForFunction(() => document.querySelector('#status')?.textContent.includes('dropped.jsonl'));
  assert.equal(await page.locator('#dropzone').isHidden(), true);
  assert.deepEqual(await cardKeys(), ['system:3=message.systemPrompt']);
  const card = cards().first();
  await card.locator('summary').click();
  assert.equal(await card.getByTestId('card-text').innerText(), `Hello ${MARKUP}<script>window.__xss=2</script>`);
  assert.match(await page.locator('.bubble-user').innerText(), /<b>hi<\/b>/);
  assert.equal(await page.locator('img, script:not([src]), b').count(), 0, 'no element was made from log text');
  assert.equal(await page.evaluate(() => window.__xss), undefined);
  assert.equal(await page.getByTestId('trajectory-row').count(), 1);
  assert.equal(await page.getByTestId('load-earlier').isEnabled(), false);
});

test('no console errors or page errors', () => {
  assert.deepEqual(problems, []);
});
