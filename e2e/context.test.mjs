// End-to-end: what the model saw, in the demo (www/context-view.js). The figures the page shows
// are read back from the page (accessible labels, tips, tables) and compared with what the Node
// build of the library computes from the same window of the bundled sample: every trajectory
// row's context bar, its tip on hover and on keyboard focus, the context of the point selected in
// the stepper, and the session summary, on the newest page and again with the whole sample
// loaded. Also: the parts of a bar differ by more than colour, and the sample's answers carry
// their usage. Needs bash scripts/demo.sh --build-only.

import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { pageStart } from '../www/paging.mjs';
import { startDemo } from './harness.mjs';

const { Conversation } = await import('../pkg/node/promptfold.mjs');
const sample = JSON.parse(readFileSync(new URL('../www/sample-session.json', import.meta.url), 'utf8'));

const PARTS = [
  ['systemTokens', 'system prompt'],
  ['supersededSystemTokens', 'superseded prompts'],
  ['toolsTokens', 'tools'],
  ['messageTokens', 'messages'],
];

let demo;
let page;
before(async () => {
  demo = await startDemo();
  page = demo.page;
});
after(async () => demo?.close());

/** What the library says about the window the demo shows: from `start` (an index) to the end. */
function library(start) {
  const conv = new Conversation();
  conv.load(sample.slice(start), { hasMore: start > 0 });
  return {
    requests: conv.views().trajectory.requests.map((request) => ({ startSeq: request.startSeq, context: request.context })),
    totals: conv.contextTotals(),
    contextAt: (seq) => conv.contextAt(seq),
    free: () => conv.free(),
  };
}

const toNumber = (text) => Number(text.replace(/,/g, ''));

/** The four parts and the total as a text states them ("system prompt 297, ..., 665 tokens"). */
function figures(text) {
  const out = {};
  for (const [key, name] of PARTS) {
    const match = text.match(new RegExp(`(?:^|[^a-z])${name}:? ([0-9][0-9,]*)`));
    assert.ok(match, `no figure for "${name}" in: ${text}`);
    out[key] = toNumber(match[1]);
  }
  const total = text.match(/([0-9][0-9,]*) tokens/) ?? text.match(/total:? ([0-9][0-9,]*)/);
  assert.ok(total, `no total in: ${text}`);
  out.totalTokens = toNumber(total[1]);
  return out;
}
const breakdown = (context) => Object.fromEntries([...PARTS.map(([key]) => key), 'totalTokens'].map((key) => [key, context[key]]));

const rows = () => page.getByTestId('trajectory-row');
const readoutSeq = async () => Number((await page.locator('#step-readout strong').innerText()).replace('seq ', ''));

/** Every row has one bar; its label, figure and parts agree with the library's request context. */
async function checkRows(expected) {
  assert.ok(expected.requests.length > 0);
  assert.equal(await rows().count(), expected.requests.length, 'one row per request');
  const shown = await rows().evaluateAll((els) => els.map((row) => {
    const bars = row.querySelectorAll('[data-testid="context-bar"]');
    const bar = bars[0];
    return {
      startSeq: Number(row.dataset.startSeq),
      bars: bars.length,
      label: bar?.getAttribute('aria-label') ?? '',
      role: bar?.getAttribute('role'),
      figure: bar?.querySelector('.ctx-figure')?.textContent ?? '',
      parts: [...(bar?.querySelectorAll('[data-part]') ?? [])].map((part) => part.dataset.part),
    };
  }));
  expected.requests.forEach(({ startSeq, context }, i) => {
    const row = shown[i];
    const where = `row ${i} (request at seq ${startSeq})`;
    assert.equal(row.startSeq, startSeq, where);
    assert.equal(row.bars, 1, `${where}: one context bar`);
    assert.equal(row.role, 'img', `${where}: the bar is announced as one image with its label`);
    assert.deepEqual(figures(row.label), breakdown(context), `${where}: ${row.label}`);
    assert.equal(toNumber(row.figure.replace('↺', '').trim()), context.totalTokens, `${where}: the figure beside the bar`);
    assert.equal(/new series/.test(row.label), context.newSeries, `${where}: new series in the label`);
    assert.equal(row.figure.includes('↺'), context.newSeries, `${where}: new series beside the bar`);
    assert.equal(/incomplete/.test(row.label), context.incomplete, `${where}: incomplete in the label`);
    assert.deepEqual(row.parts, PARTS.map(([key]) => key).filter((key) => context[key] > 0), `${where}: a segment per nonzero part`);
  });
}

/** The tip of `bar` is shown, lies in the viewport uncovered, and states the library's figures. */
async function checkTip(bar, context) {
  const tip = bar.locator('.ctx-tip');
  await tip.waitFor({ state: 'visible' });
  assert.deepEqual(figures(await tip.innerText()), breakdown(context));
  const placed = await tip.evaluate((el) => {
    const rect = el.getBoundingClientRect();
    const hit = document.elementFromPoint(rect.left + rect.width / 2, rect.top + rect.height / 2);
    return { inside: rect.top >= 0 && rect.left >= 0 && rect.bottom <= innerHeight && rect.right <= innerWidth, onTop: el.contains(hit) };
  });
  assert.ok(placed.inside, 'the tip lies inside the viewport');
  assert.ok(placed.onTop, 'nothing covers or clips the tip');
}

/** The stepper panel shows contextAt(seq): the table, the node count and the bar's label. */
async function checkContextAt(expected, seq) {
  assert.equal(await readoutSeq(), seq);
  const context = expected.contextAt(seq);
  const box = page.getByTestId('context-at');
  const table = box.getByTestId('context-breakdown');
  const cells = await table.locator('tr').evaluateAll((trs) => trs.map((tr) => [tr.querySelector('th')?.textContent.trim(), tr.querySelector('td')?.textContent.trim()]));
  const byName = Object.fromEntries(cells.map(([name, value]) => [name.replace(/^[A-Z] /, ''), toNumber(value)]));
  const shown = { ...Object.fromEntries(PARTS.map(([key, name]) => [key, byName[name]])), totalTokens: byName['total (estimated)'] };
  assert.deepEqual(shown, breakdown(context), `the table at seq ${seq}: ${JSON.stringify(cells)}`);
  assert.match(await table.locator('caption').innerText(), new RegExp(`seq ${seq}: ${context.nodes.length} messages`));
  assert.deepEqual(figures(await box.getByTestId('context-bar').getAttribute('aria-label')), breakdown(context));
  // The nodes by type: counts and tokens.
  const byType = new Map();
  for (const node of context.nodes) {
    const seen = byType.get(node.type) ?? [0, 0];
    byType.set(node.type, [seen[0] + 1, seen[1] + node.tokens]);
  }
  const listed = (await box.locator('.ctx-types li').allInnerTexts()).map((text) => {
    const match = text.match(/: ([0-9]+) \(([0-9,]+) tokens\)$/);
    assert.ok(match, text);
    return `${match[1]}/${toNumber(match[2])}`;
  });
  assert.deepEqual(listed.sort(), [...byType.values()].map(([count, tokens]) => `${count}/${tokens}`).sort());
  assert.equal(await box.locator('.ctx-note').count(), context.incomplete ? 1 : 0, 'the incomplete note');
}

/** Selects the event at `index` of the window with the history slider. */
async function selectIndex(index) {
  await page.getByTestId('history-step').evaluate((el, value) => {
    el.value = String(value);
    el.dispatchEvent(new Event('input', { bubbles: true }));
  }, index);
}

/** The session summary equals contextTotals(). */
async function checkTotals(expected) {
  const pairs = await page.getByTestId('context-totals').locator('.ctx-stat').evaluateAll((els) =>
    els.map((el) => [el.querySelector('dt').textContent, el.querySelector('dd').textContent]));
  const shown = Object.fromEntries(pairs);
  const t = expected.totals;
  const exact = {
    requests: t.requests,
    'new series': t.newSeries,
    'prompt changes appended': t.promptsAppended,
    'prompt changes rewritten at the head': t.promptsRewritten,
    'superseded-prompt tokens, all requests': t.supersededSystemTokens,
    'context tokens, all requests': t.totalTokens,
  };
  for (const [name, value] of Object.entries(exact)) assert.equal(toNumber(shown[name] ?? ''), value, `${name}: ${shown[name]}`);
  assert.ok(t.answersWithCacheReads > 0 && t.cacheReadTokens > 0, 'the sample reports cache reads');
  const cache = shown['cache reads observed'].match(/^([0-9,]+) tokens\D+([0-9,]+) answers/);
  assert.ok(cache, `cache reads: ${shown['cache reads observed']}`);
  assert.deepEqual([toNumber(cache[1]), toNumber(cache[2])], [t.cacheReadTokens, t.answersWithCacheReads]);
}

// Tests ----------------------------------------------------------------------------------------

// How much each answer reads from the cache is checked against the cache ledger in cache.test.mjs.
test('the sample: answers report their usage, some with cache reads and some without', () => {
  const expected = library(0);
  try {
    const answered = expected.requests.filter(({ context }) => context.usage !== undefined);
    assert.equal(answered.length, sample.filter((event) => event.type === 'assistant/message').length, 'every answer has a usage');
    for (const { startSeq, context } of answered) {
      const { inputTokens, outputTokens, cacheReadTokens } = context.usage;
      for (const value of [inputTokens, outputTokens, cacheReadTokens]) assert.ok(Number.isSafeInteger(value) && value >= 0, `request ${startSeq}`);
    }
    assert.ok(answered.some(({ context }) => context.usage.cacheReadTokens === 0) && answered.some(({ context }) => context.usage.cacheReadTokens > 0));
    assert.ok(answered.some(({ context }) => context.newSeries) && answered.some(({ context }) => !context.newSeries));
  } finally {
    expected.free();
  }
});

test('newest page: every trajectory row has a context bar with the library\'s figures', async () => {
  const expected = library(pageStart(sample, sample.length));
  try {
    await checkRows(expected);
    await checkTotals(expected);
  } finally {
    expected.free();
  }
});

test('hover and keyboard focus show a bar\'s figures as text', async () => {
  const expected = library(pageStart(sample, sample.length));
  try {
    const last = expected.requests.length - 1;
    for (const i of [0, last]) {
      const bar = rows().nth(i).getByTestId('context-bar');
      const tip = bar.locator('.ctx-tip');
      assert.equal(await tip.isVisible(), false, 'the tip is hidden until asked for');
      await bar.hover();
      await checkTip(bar, expected.requests[i].context);
      await page.locator('#trajectory-heading').hover();
      await tip.waitFor({ state: 'hidden' });
    }
    // From the row, Tab reaches its bar.
    const row = rows().nth(last);
    await row.focus();
    await page.keyboard.press('Tab');
    const bar = row.getByTestId('context-bar');
    assert.equal(await bar.evaluate((el) => el === document.activeElement), true, 'the bar takes keyboard focus');
    await checkTip(bar, expected.requests[last].context);
    await page.keyboard.press('Shift+Tab');
    await bar.locator('.ctx-tip').waitFor({ state: 'hidden' });
  } finally {
    expected.free();
  }
});

test('the stepper panel shows the context at the selected point', async () => {
  const start = pageStart(sample, sample.length);
  const expected = library(start);
  const window = sample.slice(start);
  try {
    // The last event (selected on open), the first, one in between, and the arrow key.
    await checkContextAt(expected, window.at(-1).seq);
    await selectIndex(0);
    await checkContextAt(expected, window[0].seq);
    const middle = Math.floor(window.length / 2);
    await selectIndex(middle);
    await checkContextAt(expected, window[middle].seq);
    await page.getByTestId('history-step').focus();
    await page.keyboard.press('ArrowRight');
    await checkContextAt(expected, window[middle + 1].seq);
    // A click on a row selects its request's read point: the panel shows what the row's bar shows.
    const i = 2;
    const { context } = expected.requests[i];
    await rows().nth(i).click();
    await checkContextAt(expected, context.seq);
    assert.deepEqual(breakdown(expected.contextAt(context.seq)), breakdown(context));
    await rows().nth(i).click(); // collapse it again
  } finally {
    expected.free();
  }
});

test('the whole sample: rows, stepper and summary after "Load earlier"; parts differ beyond colour', async () => {
  while (await page.getByTestId('load-earlier').isEnabled()) {
    const before = await page.getByTestId('window-range').innerText();
    await page.getByTestId('load-earlier').click();
    await page.waitForFunction((text) => document.querySelector('[data-testid="window-range"]')?.textContent !== text, before);
  }
  assert.match(await page.getByTestId('window-range').innerText(), /complete/);
  const expected = library(0);
  try {
    await checkRows(expected);
    await checkTotals(expected);
    assert.ok(expected.totals.supersededSystemTokens > 0 && expected.totals.promptsAppended > 0, 'the sample carries superseded prompts');
    // A request carrying a superseded prompt: all four parts are in its bar.
    const index = expected.requests.findIndex(({ context }) => PARTS.every(([key]) => context[key] > 0));
    assert.ok(index >= 0, 'a request with all four parts');
    const { context } = expected.requests[index];
    await rows().nth(index).click();
    await checkContextAt(expected, context.seq);
    const bar = page.getByTestId('context-at').getByTestId('context-bar');
    const parts = await bar.locator('[data-part]').evaluateAll((els) => els.map((el) => ({
      key: el.dataset.part, letter: el.textContent, pattern: getComputedStyle(el).backgroundImage,
    })));
    assert.deepEqual(parts.map((part) => part.key), PARTS.map(([key]) => key));
    assert.equal(new Set(parts.map((part) => part.pattern)).size, 4, `each part has its own pattern: ${parts.map((part) => part.pattern).join(' | ')}`);
    const letters = parts.map((part) => part.letter).filter(Boolean);
    assert.equal(new Set(letters).size, letters.length, 'the letters in the bar differ');
    // The table and the tip name every part with a letter and words.
    const keys = await page.getByTestId('context-breakdown').locator('th .ctx-key').allInnerTexts();
    assert.equal(new Set(keys).size, 4, `a letter per part in the table: ${keys}`);
    await bar.hover();
    const tipRows = await bar.locator('.ctx-tip-row').allInnerTexts();
    for (const [, name] of PARTS) assert.ok(tipRows.some((text) => /^[A-Z] /.test(text) && text.includes(name)), `the tip names ${name} with its letter: ${tipRows}`);
  } finally {
    expected.free();
  }
  assert.deepEqual(demo.problems, [], 'no console errors, page errors or failed requests');
});
