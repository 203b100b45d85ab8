// The prefix cache, from the library's cache ledger (`conversation.cacheLedger()`, docs/cache.md):
// a lane under each trajectory row (kept against new tokens, the break and its causes in
// words), and the session panel (hit rates, breaks ranked by cause, the in-history trade, and a
// small price form remembered in localStorage). Plain DOM, text nodes only. Kept and new differ
// by pattern and letter as well as colour; every figure is also text, and unknown is written
// "unknown", never 0.
import { el, fmt } from './dom.js';

const STORAGE_KEY = 'promptfold.cachePrices';
/** The cache TTL the page assumes until the reader enters another (minutes). */
export const DEFAULT_TTL_MINUTES = 5;

const percent = (rate) => `${(rate * 100).toFixed(1)}%`;
/** Money with enough digits for fractions of a cent. */
export const money = (amount) => `${amount < 0 ? '-' : ''}$${Math.abs(amount).toFixed(amount !== 0 && Math.abs(amount) < 0.01 ? 6 : 4)}`;

// ---------------------------------------------------------------------------------------------
// Words.

const seqRange = (start, end) => (start === end ? `#${start}` : `#${start}-#${end}`);
/** A route as the ledger gives it: a string, or an object with provider and model. */
const routeText = (route) => {
  if (route === undefined || route === null) return 'none';
  if (typeof route === 'string') return route;
  if (typeof route === 'object' && ('provider' in route || 'model' in route)) return `${route.provider ?? '?'}/${route.model ?? '?'}`;
  return JSON.stringify(route);
};

/** A gap in milliseconds in words: "45 s", "7 min", "14 h 3 min". */
export function durationText(ms) {
  const seconds = Math.round(ms / 1000);
  if (seconds < 60) return `${seconds} s`;
  const minutes = Math.round(ms / 60000);
  if (minutes < 60) return `${minutes} min`;
  const hours = Math.floor(minutes / 60);
  return minutes % 60 ? `${hours} h ${minutes % 60} min` : `${hours} h`;
}

const CAUSE_NAMES = {
  route: 'route change',
  tools: 'tool set change',
  'system-rewrite': 'system prompt rewritten at the head',
  compaction: 'compaction',
  prune: 'tool result pruned',
  replacement: 'other replacement',
  series: 'new series',
  idle: 'idle (cache evicted)',
};
/** The name of a kind of cause, for the panel. */
export const causeName = (kind) => CAUSE_NAMES[kind] ?? kind;

/** One cause in words: "tools: +web_search, -bash", "compaction of #12-#40", "idle 7 min". */
export function causeText(cause) {
  switch (cause.kind) {
    case 'route':
      return `route ${routeText(cause.from)} → ${routeText(cause.to)}`;
    case 'tools': {
      const names = [
        ...(cause.added ?? []).map((name) => `+${name}`),
        ...(cause.removed ?? []).map((name) => `-${name}`),
        ...(cause.changed ?? []).map((name) => `~${name}`),
      ];
      return `tools: ${names.length ? names.join(', ') : 'changed'}`;
    }
    case 'system-rewrite': {
      const sections = cause.sections ?? [];
      return sections.length
        ? `system rewrite: ${sections.length === 1 ? 'section' : 'sections'} ${sections.join(', ')}`
        : `system rewrite of ${seqRange(cause.startSeq, cause.endSeq)}`;
    }
    case 'compaction':
      return `compaction of ${seqRange(cause.startSeq, cause.endSeq)}`;
    case 'prune':
      return `prune of ${seqRange(cause.startSeq, cause.endSeq)}`;
    case 'replacement':
      return `replacement of ${seqRange(cause.startSeq, cause.endSeq)}${cause.type ? ` (${cause.type})` : ''}`;
    case 'series':
      return cause.seq === undefined ? 'new series' : `new series at #${cause.seq}`;
    case 'idle':
      return `idle ${durationText(cause.gapMs)}`;
    default:
      return String(cause.kind);
  }
}

/** Why a request's kept/new/broken are unknown. */
function unknownReason(entry, index) {
  return index === 0 ? 'first request of the window: nothing to compare with' : 'a context is incomplete: load earlier events';
}

/** The whole lane entry as one sentence, for the bar's accessible label and tip. */
export function entryText(entry, index) {
  if (entry.keptTokens === undefined) {
    return `cache unknown (${unknownReason(entry, index)}); ${fmt(entry.totalTokens)} tokens sent (estimated)`;
  }
  const parts = [`kept ${fmt(entry.keptTokens)}`, `new ${fmt(entry.newTokens)}`, `broken ${fmt(entry.brokenTokens)}`];
  const causes = entry.causes.length ? `; ${entry.causes.map(causeText).join('; ')}` : '';
  const read = entry.observed.cacheReadTokens === undefined ? '; cache read unknown' : `; cache read ${fmt(entry.observed.cacheReadTokens)}`;
  const saved = entry.savedTokens ? `; saved ${fmt(entry.savedTokens)} by appending the prompt` : '';
  const cost = entry.cost ? `; ${money(entry.cost.total)}${entry.cost.estimated ? ' estimated' : ''}` : '';
  return `${parts.join(', ')} tokens (estimated)${causes}${read}${saved}${cost}`;
}

// ---------------------------------------------------------------------------------------------
// The lane.

/** The widest request of the ledger, so that the lane's bars compare. */
export function cacheScale(ledger) {
  return (ledger?.requests ?? []).reduce((most, entry) => Math.max(most, entry.totalTokens ?? 0), 0);
}

/**
 * The lane of the `index`-th trajectory request (`entry` of the ledger): a table row under the
 * request's row, one cell `columns` wide.
 */
export function cacheLaneRow(entry, index, scale, columns) {
  const row = el('tr', { class: 'cache-lane-row', 'data-testid': 'cache-lane-row' });
  if (!entry) return row;
  const label = entryText(entry, index);
  const broke = entry.brokenTokens > 0;
  const lane = el('div', {
    class: `cache-lane${broke ? ' is-break' : ''}${entry.keptTokens === undefined ? ' is-unknown' : ''}`,
    role: 'img', tabindex: 0, 'aria-label': label, title: label, 'data-testid': 'cache-lane',
    'data-seq': entry.seq,
  });
  const track = el('span', { class: 'cache-track', 'aria-hidden': 'true' });
  const total = Math.max(1, scale);
  if (entry.keptTokens === undefined) {
    track.append(el('span', { class: 'cache-part cache-unknown', style: `width: ${((100 * entry.totalTokens) / total).toFixed(2)}%` }, '?'));
  } else {
    for (const [key, cls, letter] of [['keptTokens', 'cache-kept', 'K'], ['newTokens', 'cache-new', 'N']]) {
      const tokens = entry[key];
      if (!tokens) continue;
      const width = (100 * tokens) / total;
      track.append(el('span', { class: `cache-part ${cls}`, style: `width: ${width.toFixed(2)}%`, 'data-part': key }, width > 12 ? letter : ''));
    }
  }
  const figures = entry.keptTokens === undefined
    ? el('span', { class: 'cache-figures', 'data-testid': 'cache-figures' }, 'unknown')
    : el('span', { class: 'cache-figures', 'data-testid': 'cache-figures' },
      `K ${fmt(entry.keptTokens)} · N ${fmt(entry.newTokens)}`,
      broke ? el('span', { class: 'cache-broken' }, ` · ✕ ${fmt(entry.brokenTokens)} lost`) : null);
  const words = entry.causes.length
    ? el('span', { class: 'cache-causes', 'data-testid': 'cache-causes' },
      entry.causes.map((cause) => el('span', { class: `cache-cause cause-${cause.kind}`, 'data-kind': cause.kind }, causeText(cause))))
    : null;
  const extra = entry.cost ? el('span', { class: 'cache-cost', 'data-testid': 'cache-cost' }, `${money(entry.cost.total)}${entry.cost.estimated ? ' est.' : ''}`) : null;
  lane.append(el('span', { class: 'cache-row' }, el('span', { class: 'cache-name', 'aria-hidden': 'true' }, 'cache'), track, figures, extra));
  if (words) lane.append(words);
  row.append(el('td', { class: 'cache-cell', colspan: columns }, lane));
  return row;
}

// ---------------------------------------------------------------------------------------------
// Prices, remembered in localStorage.

const PRICE_FIELDS = [
  ['input', 'input'],
  ['cacheRead', 'cache read'],
  ['cacheWrite', 'cache write'],
  ['output', 'output'],
];

/** The saved prices and TTL: `{ prices?: TokenPrices, ttlMinutes }`. */
export function loadSettings() {
  let saved = null;
  try { saved = JSON.parse(localStorage.getItem(STORAGE_KEY) ?? 'null'); } catch { /* private mode or bad text */ }
  const ttl = Number(saved?.ttlMinutes);
  const settings = { ttlMinutes: Number.isFinite(ttl) && ttl >= 0 ? ttl : DEFAULT_TTL_MINUTES };
  const prices = saved?.prices;
  if (prices && ['input', 'cacheRead', 'output'].every((key) => Number.isFinite(prices[key]) && prices[key] >= 0)) {
    settings.prices = { input: prices.input, cacheRead: prices.cacheRead, output: prices.output };
    if (Number.isFinite(prices.cacheWrite) && prices.cacheWrite >= 0) settings.prices.cacheWrite = prices.cacheWrite;
  }
  return settings;
}

function saveSettings(settings) {
  try { localStorage.setItem(STORAGE_KEY, JSON.stringify(settings)); } catch { /* private mode */ }
}

/** The options of `cacheLedger()` for these settings. */
export function ledgerOptions(settings) {
  const options = { cacheTtlMs: settings.ttlMinutes * 60000 };
  if (settings.prices) options.prices = { default: settings.prices };
  return options;
}

// ---------------------------------------------------------------------------------------------
// The session panel.

function stat(name, value, testid) {
  return el('div', { class: 'ctx-stat', 'data-testid': testid }, el('dt', {}, name), el('dd', {}, value));
}

/** The price form: `onChange(settings)` runs with the new settings after each save or clear. */
function priceForm(settings, onChange) {
  const form = el('form', { class: 'cache-prices', 'data-testid': 'cache-prices', 'aria-label': 'Prices per million tokens' });
  const inputs = {};
  const fields = PRICE_FIELDS.map(([key, name]) => {
    const id = `cache-price-${key}`;
    inputs[key] = el('input', {
      id, type: 'number', min: 0, step: 'any', inputmode: 'decimal', 'data-testid': id,
      value: settings.prices?.[key] ?? '', required: key !== 'cacheWrite' ? true : undefined,
      placeholder: key === 'cacheWrite' ? 'not billed' : '',
    });
    return el('label', { class: 'cache-field', for: id }, el('span', {}, name), inputs[key]);
  });
  const ttlId = 'cache-ttl';
  const ttl = el('input', { id: ttlId, type: 'number', min: 0, step: 'any', 'data-testid': ttlId, value: settings.ttlMinutes, required: true });
  const note = el('p', { class: 'cache-form-note muted', 'aria-live': 'polite' });
  form.append(
    el('p', { class: 'cache-form-head' }, 'Prices, $ per million tokens (all models)'),
    el('div', { class: 'cache-fields' }, fields,
      el('label', { class: 'cache-field', for: ttlId }, el('span', {}, 'cache TTL, min'), ttl)),
    el('div', { class: 'cache-form-actions' },
      el('button', { type: 'submit', class: 'button', 'data-testid': 'cache-prices-save' }, 'Save prices'),
      el('button', { type: 'button', class: 'button', 'data-testid': 'cache-prices-clear' }, 'Clear prices')),
    note);
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    const value = (input) => (input.value.trim() === '' ? undefined : Number(input.value));
    const next = { ttlMinutes: value(ttl) ?? DEFAULT_TTL_MINUTES };
    const prices = {};
    for (const [key] of PRICE_FIELDS) prices[key] = value(inputs[key]);
    const bad = Object.entries(prices).find(([, v]) => v !== undefined && !(Number.isFinite(v) && v >= 0));
    if (bad || !(Number.isFinite(next.ttlMinutes) && next.ttlMinutes >= 0)) {
      note.textContent = 'Prices and the TTL must be numbers of 0 or more.';
      return;
    }
    if (prices.cacheWrite === undefined) delete prices.cacheWrite;
    next.prices = prices;
    saveSettings(next);
    onChange(next);
  });
  form.querySelector('[data-testid="cache-prices-clear"]').addEventListener('click', () => {
    const next = { ttlMinutes: DEFAULT_TTL_MINUTES };
    saveSettings(next);
    onChange(next);
  });
  return form;
}

/**
 * Renders into `box` the session panel of `ledger` (undefined: the build has no ledger).
 * `settings` are the prices and TTL in use; `onSettings(settings)` is called when the reader
 * saves new ones.
 */
export function renderCachePanel(box, headline, ledger, settings, onSettings) {
  if (!box) return;
  if (!ledger) {
    if (headline) headline.textContent = 'not available';
    box.replaceChildren(el('p', { class: 'muted' }, 'This build of promptfold has no cache ledger (conversation.cacheLedger).'));
    return;
  }
  const s = ledger.summary;
  if (headline) {
    const lostIn = (s.breaks ?? []).reduce((sum, group) => sum + group.requests, 0);
    headline.textContent = [
      `expected ${s.expectedHitRate === undefined ? 'unknown' : percent(s.expectedHitRate)}`,
      `observed ${s.observedHitRate === undefined ? 'unknown' : percent(s.observedHitRate)}`,
      `${fmt(s.brokenTokens)} tokens lost (${lostIn === 1 ? '1 cause' : `${fmt(lostIn)} causes`})`,
      s.cost === undefined ? null : `${money(s.cost.total)}${s.cost.estimated ? ' est.' : ''}`,
    ].filter(Boolean).join(' · ');
  }
  const counts = s.observed?.counts ?? {};
  const rates = el('dl', { class: 'ctx-stats cache-stats', 'data-testid': 'cache-summary' },
    stat('expected hit rate (kept / sent)', s.expectedHitRate === undefined ? 'unknown'
      : `${percent(s.expectedHitRate)} · ${fmt(s.keptTokens)} of ${fmt(s.keptTokens + s.newTokens)} tokens, ${fmt(s.knownRequests)} of ${fmt(s.requests)} requests known`, 'cache-expected'),
    stat('observed hit rate (cache read / all input)', s.observedHitRate === undefined ? 'unknown'
      : `${percent(s.observedHitRate)} · ${fmt(s.observed.cacheReadTokens)} read, ${fmt(s.observed.inputTokens)} uncached, in ${fmt(counts.cacheReadTokens ?? 0)} answers`, 'cache-observed'),
    stat('tokens lost to breaks', fmt(s.brokenTokens), 'cache-broken-total'),
    s.cost === undefined ? null : stat('cost of the window', `${money(s.cost.total)}${s.cost.estimated ? ' (partly estimated)' : ''}`, 'cache-cost-total'));
  const breaks = s.breaks ?? [];
  const priced = breaks.some((group) => group.cost !== undefined);
  const table = breaks.length
    ? el('table', { class: 'ctx-table cache-breaks', 'data-testid': 'cache-breaks' },
      el('caption', { class: 'ctx-caption' }, 'Breaks by cause, most tokens lost first'),
      el('thead', {}, el('tr', {},
        el('th', { scope: 'col' }, 'cause'), el('th', { scope: 'col', class: 'num' }, 'requests'),
        el('th', { scope: 'col', class: 'num' }, 'tokens lost'), priced ? el('th', { scope: 'col', class: 'num' }, 'cost') : null)),
      el('tbody', {}, breaks.map((group) => el('tr', { 'data-kind': group.kind },
        el('th', { scope: 'row' }, causeName(group.kind)),
        el('td', { class: 'num' }, fmt(group.requests)),
        el('td', { class: 'num' }, fmt(group.brokenTokens)),
        priced ? el('td', { class: 'num' }, group.cost === undefined ? 'unknown' : money(group.cost)) : null))))
    : el('p', { class: 'muted', 'data-testid': 'cache-breaks' }, 'No breaks in the loaded window.');
  const t = s.trade ?? {};
  const trade = el('dl', { class: 'ctx-stats cache-trade', 'data-testid': 'cache-trade' },
    stat('saved by appending prompts (tokens kept)', fmt(t.savedTokens ?? 0), 'trade-saved'),
    stat('superseded prompts carried (tokens)', fmt(t.supersededTokens ?? 0), 'trade-carried'),
    t.savedCost === undefined ? null : stat('saved, at input minus cache-read price', money(t.savedCost), 'trade-saved-cost'),
    t.carriedCost === undefined ? null : stat('carried, at cache-read price', money(t.carriedCost), 'trade-carried-cost'),
    t.balance === undefined ? null : stat('balance (saved minus carried)', money(t.balance), 'trade-balance'));
  box.replaceChildren(...[
    rates,
    table,
    el('h3', { class: 'cache-subhead' }, 'In-history trade'),
    trade,
    t.balance === undefined ? el('p', { class: 'muted cache-hint' }, 'Enter prices to see the money.') : null,
    priceForm(settings, onSettings),
  ].filter(Boolean));
}
