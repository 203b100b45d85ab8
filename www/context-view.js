// What the model saw: a context bar per trajectory row, the context of the selected point, and
// the session's totals. Plain DOM, text nodes only. Each part of a bar has a pattern and a
// letter as well as a colour, and its figures are in its label (hover or focus shows them).
import { el, fmt } from './dom.js';

const PARTS = [
  { key: 'systemTokens', name: 'system prompt', letter: 'S', cls: 'ctx-system' },
  { key: 'supersededSystemTokens', name: 'superseded prompts', letter: 'P', cls: 'ctx-superseded' },
  { key: 'toolsTokens', name: 'tools', letter: 'T', cls: 'ctx-tools' },
  { key: 'messageTokens', name: 'messages', letter: 'M', cls: 'ctx-messages' },
];

const TYPE_NAMES = {
  'system/message': 'system',
  'user/message': 'user',
  'assistant/message': 'assistant',
  'tool/result': 'tool result',
  'developer/message': 'developer',
};


/** The figures of a breakdown as one line of text. */
export function breakdownText(breakdown) {
  const parts = PARTS.map((part) => `${part.name} ${fmt(breakdown[part.key])}`);
  return `${fmt(breakdown.totalTokens)} tokens (estimated): ${parts.join(', ')}`;
}

/**
 * A bar of the four parts of `breakdown`, `scale` tokens wide (the widest context of the
 * table, so that bars compare). Focusable; its figures show on hover and focus.
 */
export function contextBar(breakdown, scale, { incomplete = false, newSeries = false, letterShare = 0.06 } = {}) {
  const label = `${breakdownText(breakdown)}${incomplete ? '; incomplete' : ''}${newSeries ? '; new series (see the cache lane for what it kept)' : ''}`;
  const bar = el('span', { class: 'ctx-bar', role: 'img', 'aria-label': label, tabindex: 0, 'data-testid': 'context-bar' });
  const track = el('span', { class: 'ctx-track', 'aria-hidden': 'true' });
  const total = Math.max(1, scale);
  for (const part of PARTS) {
    const tokens = breakdown[part.key];
    if (!tokens) continue;
    const width = (100 * tokens) / total;
    track.append(el('span', {
      class: `ctx-part ${part.cls}`,
      style: `width: ${width.toFixed(2)}%`,
      'data-part': part.key,
    }, width > 100 * letterShare ? part.letter : ''));
  }
  const tip = el('span', { class: 'ctx-tip', 'aria-hidden': 'true' },
    PARTS.map((part) => el('span', { class: 'ctx-tip-row' },
      el('span', { class: `ctx-key ${part.cls}` }, part.letter), ` ${part.name}: ${fmt(breakdown[part.key])}`)),
    el('span', { class: 'ctx-tip-row ctx-tip-total' }, `total: ${fmt(breakdown.totalTokens)}`),
    incomplete ? el('span', { class: 'ctx-tip-row' }, 'incomplete: a replacement reaches before the window') : null,
    newSeries ? el('span', { class: 'ctx-tip-row' }, 'new series (see the cache lane for what it kept)') : null);
  bar.append(track, el('span', { class: 'ctx-figure' }, fmt(breakdown.totalTokens), newSeries ? ' ↺' : ''), tip);
  bar.addEventListener('mouseenter', () => placeTip(bar, tip));
  bar.addEventListener('focus', () => placeTip(bar, tip));
  return bar;
}

/**
 * Places the shown tip of `bar` in the viewport (it is `position: fixed`, so the scrolling
 * table and panel do not clip it): below the bar, or above it when only there it fits.
 */
function placeTip(bar, tip) {
  const rect = bar.getBoundingClientRect();
  const { offsetWidth: width, offsetHeight: height } = tip;
  const fitsBelow = rect.bottom + 4 + height <= window.innerHeight;
  const top = fitsBelow || rect.top < height + 8 ? rect.bottom + 4 : rect.top - 4 - height;
  const left = Math.max(4, Math.min(rect.right - width, window.innerWidth - 4 - width));
  tip.style.top = `${Math.round(top)}px`;
  tip.style.left = `${Math.round(left)}px`;
}

/** The cell of a trajectory row: its request's context bar. */
export function contextCell(request, scale) {
  const context = request.context;
  if (!context) return el('td', { class: 'muted' }, '—');
  return el('td', { class: 'ctx-cell' }, contextBar(context, scale, { ...context, letterShare: 0.15 }));
}

/** The widest context of the requests, for contextCell. */
export function contextScale(requests) {
  return requests.reduce((most, request) => Math.max(most, request.context?.totalTokens ?? 0), 0);
}

/** Renders into `box` the context at `seq` of `conversation` (none: clears it). */
export function renderContextAt(box, conversation, seq) {
  if (!box) return;
  if (!conversation || seq === null || seq === undefined) {
    box.replaceChildren(el('p', { class: 'muted' }, 'Nothing selected.'));
    return;
  }
  const context = conversation.contextAt(seq);
  const table = el('table', { class: 'ctx-table', 'data-testid': 'context-breakdown' },
    el('caption', { class: 'ctx-caption' }, `Context at seq ${seq}: ${context.nodes.length} messages`),
    el('tbody', {}, PARTS.map((part) => el('tr', {},
      el('th', { scope: 'row' }, el('span', { class: `ctx-key ${part.cls}`, 'aria-hidden': 'true' }, part.letter), ` ${part.name}`),
      el('td', { class: 'num' }, fmt(context[part.key])))),
    el('tr', { class: 'ctx-total' }, el('th', { scope: 'row' }, 'total (estimated)'), el('td', { class: 'num' }, fmt(context.totalTokens)))));
  const counts = new Map();
  for (const node of context.nodes) {
    const seen = counts.get(node.type) ?? { count: 0, tokens: 0 };
    counts.set(node.type, { count: seen.count + 1, tokens: seen.tokens + node.tokens });
  }
  const byType = el('ul', { class: 'ctx-types' },
    [...counts].map(([type, { count, tokens }]) => el('li', {}, `${TYPE_NAMES[type] ?? type}: ${count} (${fmt(tokens)} tokens)`)));
  box.replaceChildren(
    contextBar(context, context.totalTokens, { incomplete: context.incomplete, letterShare: 0.03 }),
    table,
    byType,
    context.incomplete ? el('p', { class: 'ctx-note' }, 'Incomplete: a replacement reaches events before the loaded window. Load earlier events to resolve it.') : null,
    conversation.hasMore ? el('p', { class: 'muted' }, 'Older events are not loaded: messages before the window are not counted.') : null);
}

/** Renders into `box` the totals of `conversation`'s requests. */
export function renderContextTotals(box, conversation) {
  if (!box) return;
  if (!conversation) {
    box.replaceChildren();
    return;
  }
  const totals = conversation.contextTotals();
  const row = (name, value) => el('div', { class: 'ctx-stat' }, el('dt', {}, name), el('dd', {}, value));
  box.replaceChildren(el('dl', { class: 'ctx-stats', 'data-testid': 'context-totals' },
    row('requests', fmt(totals.requests)),
    row('new series', fmt(totals.newSeries)),
    row('prompt changes appended', fmt(totals.promptsAppended)),
    row('prompt changes rewritten at the head', fmt(totals.promptsRewritten)),
    row('superseded-prompt tokens, all requests', fmt(totals.supersededSystemTokens)),
    row('context tokens, all requests', fmt(totals.totalTokens)),
    row('cache reads observed', totals.answersWithCacheReads ? `${fmt(totals.cacheReadTokens)} tokens, as ${fmt(totals.answersWithCacheReads)} answers report them` : 'none in the log')));
}
