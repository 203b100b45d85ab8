// End-to-end: the prefix cache in the demo (www/cache-view.js). What the page shows is read back
// from the page (each row's lane: its accessible label, figures and cause words; the session
// panel: rates, breaks by cause, the trade) and compared with `cacheLedger()` of the Node build
// of the library on the same events with the same options: the sample's newest page, the whole
// sample after "Load earlier", and examples/sessions/cache-breaks.jsonl (a break of each kind)
// opened as a file. Prices entered in the panel's form change the money figures and survive a
// reload. The sample's usage is checked against the ledger too (cache reads of the kept prefix).
// Needs bash scripts/demo.sh --build-only. SCREENSHOTS=dir keeps screenshots of lane and panel.

import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { pageStart } from '../www/paging.mjs';
import { startDemo } from './harness.mjs';

const { Conversation } = await import('../pkg/node/promptfold.mjs');
const sample = JSON.parse(readFileSync(new URL('../www/sample-session.json', import.meta.url), 'utf8'));
const breaksName = 'cache-breaks.jsonl';
const breaksBytes = readFileSync(fileURLToPath(new URL(`../examples/sessions/${breaksName}`, import.meta.url)));
const TTL_MS = 5 * 60000; // the page's default cache TTL
const PRICES = { input: 0.27, cacheRead: 0.07, cacheWrite: 0.5, output: 1.1 };
const KINDS = ['route', 'tools', 'system-rewrite', 'compaction', 'prune', 'replacement', 'series', 'idle'];

let demo;
let page;
before(async () => {
  demo = await startDemo();
  page = demo.page;
});
after(async () => demo?.close());

/** The library's ledger of a window: `input` is an array of events (`hasMore` as given) or bytes. */
function library(input, { hasMore = false, prices } = {}) {
  const conv = new Conversation();
  try {
    if (Array.isArray(input)) conv.load(input, { hasMore });
    else conv.loadJson(input);
    const options = { cacheTtlMs: TTL_MS };
    if (prices) options.prices = { default: prices };
    return { ledger: conv.cacheLedger(options), requests: conv.views().trajectory.requests };
  } finally {
    conv.free();
  }
}

const toNumber = (text) => Number(String(text).replace(/,/g, ''));
/** `shown` (a dollar figure as the page writes it, "-$0.0012") is `amount` to the digits shown. */
function sameMoney(shown, amount, what) {
  const m = String(shown).match(/(-?)\$([0-9]+)\.([0-9]+)/);
  assert.ok(m && m[3].length >= 4, `${what}: ${shown} is dollars with at least 4 decimals`);
  const value = (m[1] ? -1 : 1) * Number(`${m[2]}.${m[3]}`);
  assert.ok(Math.abs(value - amount) <= 0.51 * 10 ** -m[3].length, `${what}: ${shown} is ${amount}`);
}
const minutesOf = (ms) => Math.round(ms / 60000);

/** The words a cause must show (each fragment appears in its text). */
function causeFragments(cause) {
  const route = (value) => (typeof value === 'string' ? value : `${value.provider}/${value.model}`);
  switch (cause.kind) {
    case 'route': return ['route', route(cause.from), route(cause.to)];
    case 'tools': return ['tools', ...cause.added.map((n) => `+${n}`), ...cause.removed.map((n) => `-${n}`), ...cause.changed.map((n) => `~${n}`)];
    case 'system-rewrite': return ['system rewrite', ...cause.sections];
    case 'compaction': return [`compaction of #${cause.startSeq}`, `#${cause.endSeq}`];
    case 'prune': return [`prune of #${cause.startSeq}`];
    case 'replacement': return [`replacement of #${cause.startSeq}`];
    case 'series': return ['new series'];
    case 'idle': {
      const minutes = minutesOf(cause.gapMs);
      return ['idle', minutes < 60 ? `${minutes} min` : `${Math.floor(minutes / 60)} h`];
    }
    default: throw new Error(`unknown cause kind ${cause.kind}`);
  }
}

/** Every row's lane agrees with the ledger: figures, unknowns, cause words, the label. */
async function checkLane({ ledger, requests }) {
  const rows = page.getByTestId('trajectory-row');
  assert.equal(ledger.requests.length, requests.length, 'a ledger entry per trajectory request');
  assert.equal(await rows.count(), requests.length);
  assert.equal(await page.getByTestId('cache-lane').count(), requests.length, 'a lane per request');
  const shown = await rows.evaluateAll((els) => els.map((row) => {
    // The lane is the row under the request's row.
    const under = row.nextElementSibling;
    const lane = under?.dataset.testid === 'cache-lane-row' ? under.querySelector('[data-testid="cache-lane"]') : null;
    return {
      startSeq: Number(row.dataset.startSeq),
      laneSeq: Number(lane?.dataset.seq),
      lanes: under?.querySelectorAll('[data-testid="cache-lane"]').length ?? 0,
      role: lane?.getAttribute('role'),
      focusable: lane?.tabIndex === 0,
      label: lane?.getAttribute('aria-label') ?? '',
      figures: lane?.querySelector('[data-testid="cache-figures"]')?.textContent ?? '',
      text: lane?.textContent ?? '',
      causes: [...(lane?.querySelectorAll('.cache-cause') ?? [])].map((el) => ({ kind: el.dataset.kind, text: el.textContent })),
      parts: [...(lane?.querySelectorAll('[data-part]') ?? [])].map((el) => el.dataset.part),
    };
  }));
  ledger.requests.forEach((entry, i) => {
    const row = shown[i];
    const where = `row ${i} (request at seq ${entry.seq})`;
    assert.equal(entry.seq, requests[i].startSeq, `${where}: the ledger follows the trajectory`);
    assert.equal(row.startSeq, entry.seq, where);
    assert.equal(row.lanes, 1, `${where}: one lane under the row`);
    assert.equal(row.laneSeq, entry.seq, `${where}: the lane is its request's`);
    assert.equal(row.role, 'img', `${where}: announced as one image with its label`);
    assert.ok(row.focusable, `${where}: reachable by keyboard`);
    assert.doesNotMatch(`${row.text} ${row.label}`, /null|undefined|NaN|\[object/, `${where}: no value leaks as text`);
    if (entry.keptTokens === undefined) {
      assert.equal(row.figures, 'unknown', `${where}: unknown is written, never 0`);
      assert.match(row.label, /^cache unknown/, where);
      assert.deepEqual(row.parts, [], `${where}: no kept or new part`);
    } else {
      const figures = row.figures.match(/^K ([0-9,]+) · N ([0-9,]+)(?: · ✕ ([0-9,]+) lost)?$/);
      assert.ok(figures, `${where}: ${row.figures}`);
      assert.deepEqual([toNumber(figures[1]), toNumber(figures[2]), figures[3] === undefined ? 0 : toNumber(figures[3])],
        [entry.keptTokens, entry.newTokens, entry.brokenTokens], `${where}: ${row.figures}`);
      const label = row.label.match(/^kept ([0-9,]+), new ([0-9,]+), broken ([0-9,]+) tokens/);
      assert.ok(label, `${where}: ${row.label}`);
      assert.deepEqual(label.slice(1).map(toNumber), [entry.keptTokens, entry.newTokens, entry.brokenTokens], where);
      assert.deepEqual(row.parts, [['keptTokens', entry.keptTokens], ['newTokens', entry.newTokens]].filter(([, n]) => n > 0).map(([k]) => k), where);
    }
    assert.equal(/cache read unknown/.test(row.label), entry.keptTokens !== undefined && entry.observed.cacheReadTokens === undefined, `${where}: ${row.label}`);
    if (entry.observed.cacheReadTokens !== undefined && entry.keptTokens !== undefined) {
      assert.ok(row.label.includes(`cache read ${entry.observed.cacheReadTokens.toLocaleString('en-GB')}`), `${where}: ${row.label}`);
    }
    assert.deepEqual(row.causes.map((c) => c.kind), entry.causes.map((c) => c.kind), `${where}: the causes in order`);
    entry.causes.forEach((cause, k) => {
      for (const fragment of causeFragments(cause)) {
        assert.ok(row.causes[k].text.includes(fragment), `${where}: "${row.causes[k].text}" names ${fragment}`);
        assert.ok(row.label.includes(row.causes[k].text), `${where}: the label has the cause words`);
      }
    });
  });
}

/** The session panel equals the ledger's summary. */
async function checkPanel({ ledger }, { priced = false } = {}) {
  const s = ledger.summary;
  const details = page.getByTestId('cache-details');
  if (!(await details.evaluate((el) => el.open))) await details.locator('summary').click();
  const headline = await page.getByTestId('cache-headline').innerText();
  assert.match(headline, new RegExp(`${s.brokenTokens.toLocaleString('en-GB')} tokens lost`), headline);
  const panel = page.getByTestId('cache-panel');
  assert.doesNotMatch(`${headline} ${await panel.innerText()}`, /null|undefined|NaN|\[object/, 'no value leaks as text');
  const text = async (id) => (await panel.getByTestId(id).locator('dd').innerText()).trim();
  const expected = await text('cache-expected');
  if (s.expectedHitRate === undefined) assert.equal(expected, 'unknown');
  else {
    const m = expected.match(/^([0-9.]+)% · ([0-9,]+) of ([0-9,]+) tokens, ([0-9,]+) of ([0-9,]+) requests known$/);
    assert.ok(m, expected);
    assert.deepEqual([Number(m[1]), ...m.slice(2).map(toNumber)],
      [Number((s.expectedHitRate * 100).toFixed(1)), s.keptTokens, s.keptTokens + s.newTokens, s.knownRequests, s.requests]);
  }
  const observed = await text('cache-observed');
  if (s.observedHitRate === undefined) assert.equal(observed, 'unknown');
  else {
    const m = observed.match(/^([0-9.]+)% · ([0-9,]+) read, ([0-9,]+) uncached, in ([0-9,]+) answers$/);
    assert.ok(m, observed);
    assert.deepEqual([Number(m[1]), ...m.slice(2).map(toNumber)],
      [Number((s.observedHitRate * 100).toFixed(1)), s.observed.cacheReadTokens, s.observed.inputTokens, s.observed.counts.cacheReadTokens]);
  }
  assert.equal(toNumber(await text('cache-broken-total')), s.brokenTokens);
  const rows = await panel.getByTestId('cache-breaks').locator('tbody tr').evaluateAll((trs) => trs.map((tr) => ({
    kind: tr.dataset.kind, cells: [...tr.querySelectorAll('td')].map((td) => td.textContent),
  })));
  assert.deepEqual(rows.map((row) => row.kind), s.breaks.map((group) => group.kind), 'breaks ranked as the ledger ranks them');
  s.breaks.forEach((group, i) => {
    assert.deepEqual(rows[i].cells.slice(0, 2).map(toNumber), [group.requests, group.brokenTokens], group.kind);
    if (priced) sameMoney(rows[i].cells[2], group.cost, `cost of ${group.kind}`);
    else assert.equal(rows[i].cells.length, 2, 'no cost column without prices');
  });
  assert.equal(toNumber(await text('trade-saved')), s.trade.savedTokens);
  assert.equal(toNumber(await text('trade-carried')), s.trade.supersededTokens);
  if (priced) {
    sameMoney(await text('trade-saved-cost'), s.trade.savedCost, 'saved');
    sameMoney(await text('trade-carried-cost'), s.trade.carriedCost, 'carried');
    sameMoney(await text('trade-balance'), s.trade.balance, 'balance');
    const total = await text('cache-cost-total');
    sameMoney(total, s.cost.total, 'the window\'s cost');
    assert.equal(total.includes('estimated'), s.cost.estimated, total);
  } else {
    for (const id of ['trade-balance', 'cache-cost-total']) assert.equal(await panel.getByTestId(id).count(), 0, `${id} needs prices`);
  }
}

/** Each row's money figure equals the ledger's request cost. */
async function checkRowCosts({ ledger }) {
  const costs = await page.getByTestId('trajectory-row').evaluateAll((els) => els.map((row) => row.nextElementSibling?.querySelector('[data-testid="cache-cost"]')?.textContent ?? null));
  ledger.requests.forEach((entry, i) => {
    if (!entry.cost) {
      assert.equal(costs[i], null, `row ${i}: no cost`);
      return;
    }
    sameMoney(costs[i], entry.cost.total, `row ${i}`);
    assert.equal(costs[i].includes('est.'), entry.cost.estimated, `row ${i}: ${costs[i]}`);
  });
}

async function loadAllPages() {
  while (await page.getByTestId('load-earlier').isEnabled()) {
    const before = await page.getByTestId('window-range').innerText();
    await page.getByTestId('load-earlier').click();
    await page.waitForFunction((text) => document.querySelector('[data-testid="window-range"]')?.textContent !== text, before);
  }
}

async function openBreaks() {
  await page.getByTestId('open-log').setInputFiles({ name: breaksName, mimeType: 'application/octet-stream', buffer: breaksBytes });
  await page.waitForFunction((t) => document.querySelector('#status')?.textContent.includes(t), `Opened ${breaksName}`);
}

async function screenshot(name) {
  if (!process.env.SCREENSHOTS) return;
  await page.screenshot({ path: join(process.env.SCREENSHOTS, `${name}-page.png`) });
  // A tall window, so that the panel and the lanes show whole.
  const viewport = page.viewportSize();
  await page.setViewportSize({ width: viewport.width, height: 2400 });
  await page.locator('.panel.cache').screenshot({ path: join(process.env.SCREENSHOTS, `${name}-panel.png`) });
  await page.locator('.panel.trajectory').screenshot({ path: join(process.env.SCREENSHOTS, `${name}-lane.png`) });
  await page.setViewportSize(viewport);
}

// Tests ----------------------------------------------------------------------------------------

test('the sample: cache reads are the kept prefix in 64-token blocks, none after the idle night', () => {
  const { ledger } = library(sample);
  const answered = ledger.requests.filter((entry) => entry.observed.cacheReadTokens !== undefined && entry.keptTokens !== undefined);
  assert.ok(answered.length >= 20, `${answered.length} answered requests with a known ledger`);
  for (const entry of answered) {
    const idle = entry.causes.some((cause) => cause.kind === 'idle');
    const expected = idle ? 0 : Math.floor(entry.keptTokens / 64) * 64;
    assert.equal(entry.observed.cacheReadTokens, expected, `request ${entry.seq}: kept ${entry.keptTokens}, idle ${idle}`);
    assert.equal(entry.shortfallTokens, entry.keptTokens - entry.observed.cacheReadTokens, `request ${entry.seq}: shortfall`);
  }
  const kinds = new Set(ledger.requests.flatMap((entry) => entry.causes.map((cause) => cause.kind)));
  for (const kind of ['route', 'tools', 'system-rewrite', 'compaction', 'prune', 'idle']) assert.ok(kinds.has(kind), `a ${kind} break in the sample`);
  assert.ok(kinds.has('series') || ledger.requests.some((e) => e.causes.some((c) => c.kind === 'tools' && c.removed.length === 0)),
    'the tool added with a series header breaks the cache');
  assert.ok(ledger.requests.some((entry) => entry.savedTokens > 0 && entry.brokenTokens === 0), 'an in-history update keeps the cache');
  assert.ok(ledger.summary.trade.supersededTokens > 0);
});

test('newest page: each row\'s lane and the session panel equal the library\'s ledger', async () => {
  const start = pageStart(sample, sample.length);
  const expected = library(sample.slice(start), { hasMore: start > 0 });
  await checkLane(expected);
  await checkPanel(expected);
  assert.equal(expected.ledger.requests[0].keptTokens, undefined, 'the first request of the window is unknown');
});

test('the whole sample after "Load earlier": lane and panel', async () => {
  await loadAllPages();
  const expected = library(sample);
  await checkLane(expected);
  await checkPanel(expected);
  await screenshot('sample');
});

test('a session with a break of each kind, opened as a file: lane and panel', async () => {
  await openBreaks();
  const expected = library(breaksBytes);
  const kinds = new Set(expected.ledger.requests.flatMap((entry) => entry.causes.map((cause) => cause.kind)));
  for (const kind of KINDS.filter((k) => k !== 'series')) assert.ok(kinds.has(kind), `the file has a ${kind} break`);
  await checkLane(expected);
  await checkPanel(expected);
  // The damaged usage of the last answer is unknown, never 0.
  const last = expected.ledger.requests.at(-1);
  assert.equal(last.observed.inputTokens, undefined);
  assert.equal(last.observed.cacheReadTokens, undefined);
  assert.match(await page.getByTestId('cache-lane').last().getAttribute('aria-label'), /cache read unknown/);
  // Kept and new differ by pattern and letter, not only by colour.
  const parts = await page.getByTestId('cache-lane').nth(1).locator('[data-part]').evaluateAll((els) => els.map((el) => ({
    key: el.dataset.part, letter: el.textContent, pattern: getComputedStyle(el).backgroundImage,
  })));
  assert.deepEqual(parts.map((p) => p.key), ['keptTokens', 'newTokens']);
  assert.equal(new Set(parts.map((p) => p.pattern)).size, 2, `a pattern per part: ${JSON.stringify(parts)}`);
  assert.ok(parts.every((p) => p.pattern !== 'none'));
  // From a row's context bar, Tab reaches the row's lane.
  const lane = page.getByTestId('cache-lane').nth(4);
  await page.getByTestId('trajectory-row').nth(4).getByTestId('context-bar').focus();
  await page.keyboard.press('Tab');
  assert.equal(await lane.evaluate((el) => el === document.activeElement), true, 'Tab moves from the bar to the lane');
  await screenshot('breaks');
});

test('prices entered in the panel give the money figures and survive a reload', async () => {
  const form = page.getByTestId('cache-prices');
  for (const [key, value] of Object.entries(PRICES)) await form.getByTestId(`cache-price-${key}`).fill(String(value));
  await form.getByTestId('cache-prices-save').click();
  await page.getByTestId('trade-balance').waitFor();
  const priced = library(breaksBytes, { prices: PRICES });
  assert.ok(priced.ledger.summary.cost.total > 0);
  await checkPanel(priced, { priced: true });
  await checkRowCosts(priced);
  // Reload: the prices come back from the page's storage; the sample opens with them.
  await page.reload({ waitUntil: 'load' });
  await page.waitForSelector('body[data-ready="true"]');
  for (const [key, value] of Object.entries(PRICES)) assert.equal(Number(await page.getByTestId(`cache-price-${key}`).inputValue()), value);
  const start = pageStart(sample, sample.length);
  const samplePriced = library(sample.slice(start), { hasMore: start > 0, prices: PRICES });
  await checkPanel(samplePriced, { priced: true });
  await checkRowCosts(samplePriced);
  await screenshot('priced');
  // Cleared, the money goes away again and stays away after a reload.
  await page.getByTestId('cache-prices-clear').click();
  await page.getByTestId('trade-balance').waitFor({ state: 'detached' });
  await page.reload({ waitUntil: 'load' });
  await page.waitForSelector('body[data-ready="true"]');
  await checkPanel(library(sample.slice(start), { hasMore: start > 0 }));
  assert.deepEqual(demo.problems, [], 'no console errors, page errors or failed requests');
});
