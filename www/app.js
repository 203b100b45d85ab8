// promptfold demo: plain ES module, no framework, no build step.
// Every piece of log text reaches the page through text nodes (h() below), never as markup.

import { pageStart } from './paging.mjs';
import { cacheLaneRow, cacheScale, ledgerOptions, loadSettings, renderCachePanel } from './cache-view.js';
import { contextCell, contextScale, renderContextAt, renderContextTotals } from './context-view.js';
import { changeDiffFor, diffFor, diffSummary, diffView as promptDiffView, tabbedViews } from './diff-view.js';
import * as openLog from './open-log.js';
import { BigSession, opensInWorker, worker as bigWorker } from './big-session.js';

// ---------------------------------------------------------------------------------------------
// Small DOM helpers.

const $ = (selector, root = document) => root.querySelector(selector);

/** createElement with attributes; string children become text nodes (never parsed as HTML). */
function h(tag, attrs = {}, ...children) {
  const el = document.createElement(tag);
  for (const [name, value] of Object.entries(attrs)) {
    if (value === undefined || value === null || value === false) continue;
    if (name === 'class') el.className = value;
    else if (name === 'text') el.textContent = value;
    else if (name.startsWith('on') && typeof value === 'function') el.addEventListener(name.slice(2), value);
    else el.setAttribute(name, value === true ? '' : String(value));
  }
  append(el, children);
  return el;
}
function append(el, children) {
  for (const child of children.flat(Infinity)) {
    if (child === undefined || child === null || child === false) continue;
    el.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return el;
}

// ---------------------------------------------------------------------------------------------
// Labels.

const TITLES = {
  en: { 'message.systemPrompt': 'System prompt', 'message.systemPromptUpdate': 'System prompt updated' },
  zh: { 'message.systemPrompt': '系统提示词', 'message.systemPromptUpdate': '系统提示词已更新' },
};
const KIND_LABELS = {
  initial: 'initial',
  system: 'system',
  tools: 'tools',
  'system-and-tools': 'system + tools',
};
const titleFor = (key) => TITLES[app.lang]?.[key] ?? TITLES.en[key] ?? String(key);

const timeFormat = new Intl.DateTimeFormat('en-GB', {
  timeZone: 'UTC', weekday: 'short', day: 'numeric', month: 'short', hour: '2-digit', minute: '2-digit',
});
function formatTime(ms) {
  if (typeof ms !== 'number' || !Number.isFinite(ms)) return '';
  try { return `${timeFormat.format(new Date(ms))} UTC`; } catch { return ''; }
}
const plural = (n, one, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;

// ---------------------------------------------------------------------------------------------
// State.

const app = {
  Conversation: null,
  conv: null,
  source: null, // { kind: 'sample' | 'file', name, all?: events }
  sample: null, // the bundled session's events, once fetched
  events: [], // the loaded window, ascending seq (our own copy, for the transcript)
  bySeq: new Map(),
  views: { chat: [], trajectory: { headers: [], requests: [], systemPrompts: [] } },
  selected: null, // selected seq
  lang: 'en',
  fresh: { added: new Set(), changed: new Set(), rows: new Set(), changedRows: new Set() },
  expandedRows: new Set(),
  openCards: new Set(),
  promptLabels: new Map(),
  withheldCause: undefined,
  rowWithheld: new Map(), // request startSeq -> withheld, per views
  cache: { settings: loadSettings(), ledger: undefined }, // the cache ledger of the window, per views
  big: null, // BigSession: large files (opensInWorker), held by the worker
};

// ---------------------------------------------------------------------------------------------
// Wasm values: plain data, and freeing the class instances we are handed.

/** Turns Maps (as serde-wasm-bindgen may produce for JSON objects) into plain objects. */
function plain(value) {
  if (value instanceof Map) {
    const out = {};
    for (const [k, v] of value) out[String(k)] = plain(v);
    return out;
  }
  if (Array.isArray(value)) return value.map(plain);
  if (value && typeof value === 'object') {
    const out = {};
    for (const [k, v] of Object.entries(value)) out[k] = plain(v);
    return out;
  }
  return value;
}

/**
 * Reads the fold state at `seq` into plain data. The handle belongs to the conversation (the
 * same state gives the same handle), so it is not freed here.
 */
function stateAt(seq) {
  const state = app.conv?.stateAt(seq);
  if (!state) return undefined;
  const effective = state.effective;
  const nodes = state.nodes ?? [];
  const replacements = state.replacements;
  return {
    firstSeq: state.firstSeq,
    uncertain: state.uncertain,
    effective: effective ? plain(effective) : undefined,
    introduced: state.introduced ? plain(state.introduced) : undefined,
    nodeCount: nodes.length ?? 0,
    replacementCount: replacements instanceof Map ? replacements.size : Object.keys(replacements ?? {}).length,
  };
}

// ---------------------------------------------------------------------------------------------
// Banners and status.

function showError(title, error) {
  const box = $('#banners');
  box.replaceChildren();
  const details = [];
  if (error && typeof error === 'object') {
    if (error.code) details.push(h('code', { class: 'code' }, error.code));
    if (error.index !== undefined && error.index !== null) details.push(h('span', {}, `event #${error.index}`));
    if (error.seq !== undefined && error.seq !== null) details.push(h('span', {}, `seq ${error.seq}`));
  }
  const message = error instanceof Error || (error && error.message) ? error.message : String(error ?? '');
  const banner = h('div', { class: 'banner banner-error', role: 'alert', 'data-testid': 'error' },
    h('div', { class: 'banner-icon', 'aria-hidden': 'true' }, '!'),
    h('div', { class: 'banner-body' },
      h('strong', {}, title),
      h('p', {}, message),
      details.length ? h('p', { class: 'banner-details' }, details) : null),
    h('button', { type: 'button', class: 'icon-button', 'aria-label': 'Dismiss', onclick: () => banner.remove() }, '×'));
  box.append(banner);
}
function clearErrors() { $('#banners').replaceChildren(); }
function setStatus(parts) {
  const el = $('#status');
  el.replaceChildren(...(parts ?? []).map((part) => (part instanceof Node ? part : document.createTextNode(part))));
  el.hidden = !parts || parts.length === 0;
}

// ---------------------------------------------------------------------------------------------
// Loading.

function indexEvents(events) {
  app.events = events;
  app.bySeq = new Map(events.map((event) => [event.seq, event]));
  app.withheldCause = undefined;
}

function readViews() {
  app.rowWithheld = new Map();
  app.views = plain(app.conv.views());
  app.views.chat ??= [];
  app.views.trajectory ??= { headers: [], requests: [], systemPrompts: [] };
  app.views.trajectory.requests ??= [];
  readLedger();
}

/** The cache ledger of the window with the reader's prices and TTL (none: the build has none). */
function readLedger() {
  app.cache.ledger = undefined;
  if (typeof app.conv?.cacheLedger !== 'function') return;
  try {
    app.cache.ledger = plain(app.conv.cacheLedger(ledgerOptions(app.cache.settings)));
  } catch (error) {
    showError('Could not compute the cache ledger', error);
  }
}

function renderCache() {
  renderCachePanel($('#cache-panel'), $('#cache-headline'), app.cache.ledger, app.cache.settings, (settings) => {
    app.cache.settings = settings;
    readLedger();
    renderTrajectory();
    renderCache();
    renderSelection({ scroll: false });
  });
}

function replaceConversation(conv) {
  if (app.conv && app.conv !== conv) app.conv.free?.();
  app.conv = conv;
}

/** Shows the page's own window (the sample, a small file) instead of the large-log view. */
function showMain() {
  $('#layout').hidden = false;
  $('.stepper').hidden = false;
  $('#big-session').hidden = true;
}

/** Shows the large-log view (big-session.js) instead of the page's own window. */
function showBig() {
  $('#layout').hidden = true;
  $('.stepper').hidden = true;
  $('#big-session').hidden = false;
}

function openSample(all) {
  app.big?.cancel();
  app.promptLabels = new Map();
  const start = pageStart(all, all.length);
  const conv = new app.Conversation();
  try {
    conv.load(all.slice(start), { hasMore: start > 0 });
  } catch (error) {
    conv.free?.();
    throw error;
  }
  clearErrors();
  openLog.stopFollowing(app.source);
  replaceConversation(conv);
  app.sample = all;
  showMain();
  app.source = { kind: 'sample', name: 'sample-session.json', all, firstWindowStart: all[start]?.seq };
  openLog.updateFollowToggle(app.source);
  indexEvents(all.slice(start));
  app.fresh = { added: new Set(), changed: new Set(), rows: new Set(), changedRows: new Set() };
  app.expandedRows.clear();
  app.openCards.clear();
  readViews();
  app.selected = app.events.at(-1)?.seq ?? null;
  setStatus([]);
  renderAll({ scrollChat: 'end' });
}

function loadEarlier() {
  const source = app.source;
  if (!source || source.kind !== 'sample' || !app.conv?.hasMore) return;
  const windowStart = app.conv.windowStart;
  const end = source.all.findIndex((event) => event.seq === windowStart);
  if (end <= 0) return;
  const start = pageStart(source.all, end);
  const page = source.all.slice(start, end);
  const withheldBefore = app.selected !== null && stateAt(app.selected)?.uncertain === true;
  const rowsBefore = rowFingerprints();
  let change;
  try {
    change = plain(app.conv.prepend(page, { hasMore: start > 0 }));
  } catch (error) {
    showError('Could not load earlier events', error);
    return;
  }
  indexEvents(source.all.slice(start));
  readViews();
  // What changed: cards from the change report, rows by comparing the trajectory.
  const rowsAfter = rowFingerprints();
  const rows = new Set();
  const changedRows = new Set();
  for (const [startSeq, fingerprint] of rowsAfter) {
    if (!rowsBefore.has(startSeq)) rows.add(startSeq);
    else if (rowsBefore.get(startSeq) !== fingerprint) changedRows.add(startSeq);
  }
  app.fresh = {
    added: new Set((change.chat?.added ?? []).map((card) => card.key)),
    changed: new Set((change.chat?.changed ?? []).map((card) => card.key)),
    rows,
    changedRows,
  };
  const removed = change.chat?.removed ?? [];
  const withheldAfter = app.selected !== null && stateAt(app.selected)?.uncertain === true;
  const parts = [
    `Loaded seq ${page[0].seq}–${page.at(-1).seq} (${plural(page.length, 'event')}). `,
    `Chat: ${app.fresh.added.size} added, ${app.fresh.changed.size} changed, ${removed.length} removed`,
    removed.length ? ` (${removed.join(', ')})` : '',
    change.trajectoryChanged ? '; trajectory updated.' : '; trajectory unchanged.',
  ];
  if (withheldBefore && !withheldAfter) parts.push(h('strong', { class: 'resolved' }, ` The prompt at seq ${app.selected} is no longer withheld.`));
  else if (withheldAfter) parts.push(' The prompt at the selected event is still withheld.');
  setStatus(parts);
  renderAll({ scrollChat: 'keep' });
}

function rowFingerprints() {
  const map = new Map();
  for (const request of app.views.trajectory.requests) {
    map.set(request.startSeq, JSON.stringify([request.prompt ?? null, request.promptChange ?? null]));
  }
  return map;
}

const notALogTitle = (name, error) => (error?.code === 'NOT_A_SESSION_LOG' ? `${name} is not a session log` : `Could not open ${name}`);

async function openFile(file, handle) {
  if (!file) return;
  if (!app.Conversation) {
    showError('The demo is not ready', new Error('The WebAssembly module is not loaded.'));
    return;
  }
  if (await opensInWorker(file)) {
    await openBigFile(file, handle);
    return;
  }
  app.big.cancel();
  let read;
  try {
    read = await openLog.readLogFile(file);
  } catch (error) {
    showError(`Could not read ${file.name}`, error);
    return;
  }
  let opened;
  try {
    opened = openLog.loadLog(app.Conversation, read.bytes);
  } catch (error) {
    showError(notALogTitle(file.name, error), error);
    return;
  }
  clearErrors();
  openLog.stopFollowing(app.source);
  showMain();
  replaceConversation(opened.conv);
  app.promptLabels = new Map();
  app.source = {
    kind: 'file', name: file.name, handle, bytes: read.bytes.length, compressedBytes: read.compressedBytes,
    conv: opened.conv, session: opened.session, tornTail: opened.tornTail, tornBytes: opened.tornBytes, numbering: opened.numbering,
  };
  openLog.updateFollowToggle(app.source);
  indexEvents(opened.events);
  app.fresh = { added: new Set(), changed: new Set(), rows: new Set(), changedRows: new Set() };
  app.expandedRows.clear();
  app.openCards.clear();
  readViews();
  app.selected = app.events.at(-1)?.seq ?? null;
  setStatus([`Opened ${file.name}: ${plural(opened.conv.length, 'event')}.`,
    opened.tornTail ? ` Its last line (line ${opened.tornTail.line}) is torn and was left out.` : '']);
  renderAll({ scrollChat: 'end' });
}

/**
 * Opens a large file (opensInWorker) in the worker (big-session.js): its newest page is shown as
 * soon as it is read; an error or Cancel leaves the page as it was.
 */
async function openBigFile(file, handle) {
  const before = app.source;
  let opened;
  try {
    opened = await app.big.open(file, { show: showBig });
  } catch (error) {
    if (app.source !== before) return; // another file was opened meanwhile
    if (before?.kind === 'big') await app.big.refresh(before.name, before.notes).catch(() => {});
    else showMain();
    if (error?.name === 'AbortError') return;
    showError(notALogTitle(file.name, error), error);
    return;
  }
  clearErrors();
  openLog.stopFollowing(app.source);
  const notes = [];
  if (opened.compression === 'zstd') notes.push(`Decompressed from zstd: ${mbText(opened.bytesRead)} to ${mbText(opened.textBytes)}.`);
  if (opened.tornTail) notes.push(`The last line (line ${opened.tornTail.line}) is torn and was left out.`);
  app.source = {
    kind: 'big', name: file.name, handle, bytes: opened.bytesRead, session: opened.info.session, notes,
    compressedBytes: opened.compression === 'zstd' ? opened.bytesRead : undefined, worker: bigWorker(),
  };
  showBig();
  openLog.updateFollowToggle(app.source);
  await app.big.showLoaded(file.name, opened.info, notes);
}
const mbText = (bytes) => `${(bytes / 1e6).toLocaleString('en', { maximumFractionDigits: 1 })} MB`;

/** Shows what a followed large file's new bytes brought (the hook of open-log.js). */
function showFedBig({ change }) {
  const source = app.source;
  if (source?.kind !== 'big') return;
  const added = change?.chat?.added?.length ?? 0;
  app.big.refresh(source.name, [...source.notes, `Following: ${added} new cards in the last piece.`])
    .catch((error) => showError(`Could not show ${source.name}`, error));
}

/** Shows the events a followed file's new bytes brought (the hook of open-log.js). */
function showFed({ change, events }) {
  const atEnd = app.selected === null || app.selected === app.events.at(-1)?.seq;
  if (events.length) indexEvents([...app.events, ...events]);
  readViews();
  const report = plain(change);
  app.fresh = {
    added: new Set((report.chat?.added ?? []).map((card) => card.key)),
    changed: new Set((report.chat?.changed ?? []).map((card) => card.key)),
    rows: new Set(),
    changedRows: new Set(),
  };
  if (atEnd) app.selected = app.events.at(-1)?.seq ?? null;
  if (events.length) setStatus([`Followed ${app.source.name}: ${plural(events.length, 'new event')}, ${app.fresh.added.size} new cards.`]);
  renderAll({ scrollChat: atEnd ? 'end' : 'keep' });
}

// ---------------------------------------------------------------------------------------------
// Prompt labels: every distinct prompt text gets a short name (P1, P2, …) and a colour, so the
// same prompt is recognisable in the chat, the trajectory and the inspector.

const PROMPT_COLOURS = 8;
function promptLabel(text) {
  if (text === undefined || text === null) return null;
  if (text === '') return { name: '∅', colour: 'empty', title: 'empty prompt' };
  let label = app.promptLabels.get(text);
  if (!label) {
    const n = app.promptLabels.size + 1;
    label = { name: `P${n}`, colour: String((n - 1) % PROMPT_COLOURS), title: firstHeading(text) };
    app.promptLabels.set(text, label);
  }
  return label;
}
function promptChip(text, extra = {}) {
  const label = promptLabel(text);
  if (!label) return null;
  return h('span', { class: `chip chip-${label.colour}`, title: label.title, ...extra }, label.name);
}
function firstHeading(text) {
  const lines = String(text).split('\n');
  const heading = lines.find((line) => /^#{1,3}\s/.test(line) && !/Style|Project rules/.test(line));
  return (heading ?? lines.find((line) => line.trim()) ?? '').replace(/^#+\s*/, '').slice(0, 80);
}
/** Names prompts in the order they first appear in the window. */
function labelPrompts() {
  // Labels stay put for the session on screen (a prepend names the newly seen prompts after the
  // known ones), so P2 before "Load earlier" is P2 after it.
  const texts = [];
  for (const card of app.views.chat) texts.push([card.seq, card.text]);
  for (const request of app.views.trajectory.requests) {
    if (request.promptChange?.previous) texts.push([request.startSeq - 0.5, request.promptChange.previous.system]);
    if (request.prompt) texts.push([request.startSeq, request.prompt.system]);
  }
  for (const node of app.views.trajectory.systemPrompts ?? []) texts.push([node.seq, node.text]);
  texts.sort((a, b) => a[0] - b[0]);
  for (const [, text] of texts) if (text) promptLabel(text);
}

// ---------------------------------------------------------------------------------------------
// Rendering: everything.

function renderAll({ scrollChat } = {}) {
  labelPrompts();
  renderWindowInfo();
  // Keep the entry at the top of the chat where it is while older entries arrive above it.
  const scroller = $('#transcript').parentElement;
  const anchor = scrollChat === 'keep' ? topVisibleEntry(scroller) : null;
  renderTranscript();
  if (anchor) {
    const again = $(`#transcript > li[data-seq="${anchor.seq}"]`);
    if (again) scroller.scrollTop += again.getBoundingClientRect().top - anchor.top;
  }
  renderTrajectory();
  renderContextTotals($('#context-totals'), app.conv);
  renderCache();
  renderStepper();
  renderSelection({ scroll: scrollChat !== 'keep' });
  if (scrollChat === 'end') {
    const list = $('#transcript');
    list.parentElement.scrollTop = list.parentElement.scrollHeight;
  }
}

function topVisibleEntry(scroller) {
  const top = scroller.getBoundingClientRect().top + ($('.column-head', scroller)?.offsetHeight ?? 0);
  for (const el of scroller.querySelectorAll('#transcript > li[data-seq]')) {
    const rect = el.getBoundingClientRect();
    if (rect.bottom > top) return { seq: el.dataset.seq, top: rect.top };
  }
  return null;
}

function renderWindowInfo() {
  const info = $('#window-info');
  const conv = app.conv;
  const first = app.events[0]?.seq;
  const last = app.events.at(-1)?.seq;
  const button = $('#load-earlier');
  if (!conv) { info.textContent = ''; button.disabled = true; return; }
  if (app.source.kind === 'sample') {
    const all = app.source.all;
    const total = all.length;
    const loadedShare = total ? conv.length / total : 1;
    info.replaceChildren(
      h('span', { class: 'window-line' },
        h('strong', {}, 'Sample session'),
        ` · ${plural(total, 'event')}, seq ${all[0]?.seq}–${all.at(-1)?.seq} · opened on the newest page, from seq ${app.source.firstWindowStart}`),
      h('span', { class: 'window-meter', title: `${conv.length} of ${total} events loaded`, 'aria-hidden': 'true' },
        h('span', { class: 'window-meter-fill', style: `width: ${(loadedShare * 100).toFixed(1)}%` })),
      h('span', { class: 'window-range', 'data-testid': 'window-range' },
        `Loaded seq ${first}–${last} (${conv.length}/${total})`,
        conv.hasMore ? '' : ' · complete'));
  } else {
    info.replaceChildren(h('strong', {}, app.source.name), ` · ${plural(conv.length, 'event')}`,
      first !== undefined ? `, seq ${first}–${last}` : '', ' · ',
      app.sample ? h('button', { type: 'button', class: 'link-button', onclick: () => openSample(app.sample) }, 'Back to the sample session') : null);
  }
  openLog.renderSessionInfo($('#session-info'), app.source, h);
  button.disabled = !(app.source.kind === 'sample' && conv.hasMore);
  if (app.source.kind === 'sample' && conv.hasMore) {
    const end = app.source.all.findIndex((event) => event.seq === conv.windowStart);
    const start = pageStart(app.source.all, end);
    button.textContent = `Load earlier (seq ${app.source.all[start].seq}–${app.source.all[end - 1].seq})`;
  } else {
    button.textContent = app.source.kind === 'sample' ? 'All loaded' : 'Load earlier';
  }
}

// ---------------------------------------------------------------------------------------------
// Transcript.

function messageText(message) {
  const content = message?.content;
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content.map((block) => {
    if (!block || typeof block !== 'object') return '';
    if (block.type === 'text') return String(block.text ?? '');
    if (block.type === 'tool-result') return messageText(block);
    return '';
  }).join('');
}
const surfaceReplace = (event) =>
  event.surfaceOp && typeof event.surfaceOp === 'object' && event.surfaceOp.op === 'replace' ? event.surfaceOp : null;
const locationText = (turn, step) =>
  turn === null || turn === undefined ? 'session' : step === null || step === undefined ? `turn ${turn}` : `turn ${turn} · step ${step}`;

function renderTranscript() {
  const list = $('#transcript');
  const items = [];
  const prunedBy = new Map();
  const callNames = new Map();
  for (const event of app.events) {
    const op = surfaceReplace(event);
    if (op && event.type === 'tool/result' && op.startSeq === op.endSeq) prunedBy.set(op.startSeq, event.seq);
    if (event.type === 'tool/call' && event.data?.callId) callNames.set(event.data.callId, event.data.name);
  }
  for (const event of app.events) {
    try {
      const node = transcriptEntry(event, prunedBy, callNames);
      if (node) items.push({ seq: event.seq, order: event.type === 'turn/start' ? 0 : 2, node });
    } catch (error) {
      items.push({ seq: event.seq, order: 2, node: h('li', { class: 'entry entry-notice', 'data-seq': event.seq }, `seq ${event.seq}: could not show this event (${error.message})`) });
    }
  }
  for (const card of app.views.chat) items.push({ seq: card.anchorSeq, order: 1, node: chatCard(card) });
  items.sort((x, y) => x.seq - y.seq || x.order - y.order); // stable: cards keep the crate's order
  list.replaceChildren(...items.map((item) => item.node));
  if (items.length === 0) list.append(h('li', { class: 'entry entry-empty' }, 'No messages in the loaded window.'));
}

function transcriptEntry(event, prunedBy, callNames) {
  const data = event.data ?? {};
  const op = surfaceReplace(event);
  const base = { 'data-seq': event.seq, onclick: () => select(event.seq) };
  if (event.type === 'turn/start') {
    return h('li', { class: 'entry entry-turn', ...base },
      h('span', { class: 'turn-label' }, `Turn ${data.turn ?? '?'}`),
      h('span', { class: 'turn-time' }, formatTime(event.time)));
  }
  if (op) return replacementNotice(event, op);
  switch (event.type) {
    case 'user/message': {
      const text = messageText(data);
      return h('li', { class: 'entry entry-user', ...base },
        h('div', { class: 'bubble bubble-user' },
          h('div', { class: 'bubble-head' }, h('span', { class: 'who' }, 'User'), h('span', { class: 'seq' }, `#${event.seq}`)),
          h('div', { class: 'bubble-text' }, text)));
    }
    case 'assistant/message': {
      const text = messageText(data.message);
      if (!text) return null;
      return h('li', { class: 'entry entry-assistant', ...base },
        h('div', { class: 'bubble bubble-assistant' },
          h('div', { class: 'bubble-head' }, h('span', { class: 'who' }, 'Assistant'),
            h('span', { class: 'where' }, locationText(data.turn, data.step)), h('span', { class: 'seq' }, `#${event.seq}`)),
          h('div', { class: 'bubble-text' }, text)));
    }
    case 'tool/call': {
      let args = data.arguments;
      try { if (typeof args === 'string') args = JSON.parse(args); } catch { /* show as is */ }
      const summary = args && typeof args === 'object'
        ? (args.command ?? args.path ?? args.pattern ?? args.title ?? JSON.stringify(args))
        : String(args ?? '');
      return h('li', { class: 'entry entry-call', ...base },
        h('span', { class: 'call-name' }, String(data.name ?? 'tool')),
        h('code', { class: 'call-args', title: typeof data.arguments === 'string' ? data.arguments : '' }, String(summary)),
        h('span', { class: 'seq' }, `#${event.seq}`));
    }
    case 'tool/result': {
      const block = Array.isArray(data.message?.content) ? data.message.content[0] : undefined;
      const text = messageText(data.message);
      const lines = text.split('\n');
      const pruned = prunedBy.get(event.seq);
      const name = callNames.get(block?.toolCallId ?? data.message?.source?.callId);
      return h('li', { class: `entry entry-result${block?.isError ? ' is-error' : ''}`, ...base },
        h('details', { class: 'result' },
          h('summary', {},
            h('span', { class: 'result-label' }, name ? `${name} output` : 'output'),
            h('span', { class: 'result-preview' }, lines.find((line) => line.trim()) ?? '(empty)'),
            h('span', { class: 'result-size' }, plural(lines.length, 'line')),
            pruned !== undefined ? h('span', { class: 'pill pill-muted', title: `replaced by seq ${pruned}` }, `pruned at #${pruned}`) : null,
            h('span', { class: 'seq' }, `#${event.seq}`)),
          h('pre', { class: 'result-text' }, text)));
    }
    default:
      return null;
  }
}

function replacementNotice(event, op) {
  const data = event.data ?? {};
  const range = op.startSeq === op.endSeq ? `#${op.startSeq}` : `#${op.startSeq}–#${op.endSeq}`;
  const outside = app.events.length && Math.min(op.startSeq, op.endSeq) < app.events[0].seq;
  let icon = '⇄';
  let title = `Replacement of ${range}`;
  let body = '';
  if (event.type === 'tool/result') {
    icon = '✂';
    title = `Tool result ${range} pruned`;
    body = messageText(data.message);
  } else if (event.type === 'user/message') {
    icon = '⧉';
    title = `Context compacted: ${range} replaced by a summary`;
    body = messageText(data);
  } else if (event.type === 'system/message') {
    const text = messageText(data.message);
    icon = '⚙';
    title = text === '' ? `System prompt ${range} rewritten as empty: the prompt is cleared` : `System prompt ${range} rewritten`;
    body = text;
  } else if (event.type === 'assistant/message') {
    title = `Assistant message ${range} replaced`;
    body = messageText(data.message);
  }
  return h('li', { class: 'entry entry-notice', 'data-seq': event.seq, onclick: () => select(event.seq) },
    h('span', { class: 'notice-icon', 'aria-hidden': 'true' }, icon),
    h('span', { class: 'notice-title' }, title),
    outside ? h('span', { class: 'pill pill-warn', title: 'This replacement reaches events that are not loaded' }, 'reaches before the window') : null,
    body ? h('span', { class: 'notice-body' }, body) : null,
    h('span', { class: 'seq' }, `#${event.seq}`));
}

function chatCard(card) {
  const kind = card.source === 'request' ? 'request' : card.update ? 'update' : 'system';
  const fresh = app.fresh.added.has(card.key) ? 'added' : app.fresh.changed.has(card.key) ? 'changed' : null;
  const details = h('details', {
    class: `card card-${kind}${fresh ? ` is-${fresh}` : ''}`,
    'data-testid': 'chat-card',
    'data-title-key': card.titleKey,
    'data-key': card.key,
    'data-seq': card.seq,
    'data-anchor-seq': card.anchorSeq,
  });
  if (app.openCards.has(card.key)) details.open = true;
  details.addEventListener('toggle', () => {
    if (details.open) { app.openCards.add(card.key); fillCardBody(details, card); } else app.openCards.delete(card.key);
  });
  const lines = String(card.text).split('\n').length;
  const diff = diffFor(app.conv, 'cardDiff', card.key); // made on demand, kept by the crate
  details.append(
    h('summary', { onclick: () => select(card.seq) },
      h('span', { class: 'card-icon', 'aria-hidden': 'true' }, kind === 'update' ? '↻' : '⚙'),
      h('span', { class: 'card-title', 'data-title-key': card.titleKey }, titleFor(card.titleKey)),
      promptChip(card.text),
      h('span', { class: 'card-meta' },
        card.source === 'request' ? `request header #${card.seq}` : `#${card.seq}`,
        ` · ${locationText(card.turn, card.step)} · ${plural(lines, 'line')}`),
      diff ? h('span', { class: 'card-diff-summary', 'data-testid': 'card-diff-summary' }, diffSummary(diff)) : null,
      fresh ? h('span', { class: `pill pill-${fresh}` }, fresh === 'added' ? 'new' : 'changed') : null,
      h('span', { class: 'card-chevron', 'aria-hidden': 'true' })),
    h('div', { class: 'card-body' }));
  if (details.open) fillCardBody(details, card);
  return h('li', { class: 'entry entry-card', 'data-anchor-seq': card.anchorSeq }, details);
}

function fillCardBody(details, card) {
  const body = $('.card-body', details);
  if (body.childElementCount) return;
  const full = h('pre', { class: 'prompt-text', 'data-testid': 'card-text' }, card.text);
  const diff = diffFor(app.conv, 'cardDiff', card.key);
  if (!diff) {
    body.append(full);
    return;
  }
  // Expanded, a card with something to compare shows its diff first, the full text on request.
  const changes = promptDiffView(diff);
  const toggle = h('button', { type: 'button', class: 'link-button' }, 'Show full text');
  toggle.addEventListener('click', () => {
    const toFull = changes.isConnected;
    (toFull ? changes : full).replaceWith(toFull ? full : changes);
    toggle.textContent = toFull ? 'Show changes' : 'Show full text';
  });
  body.append(h('div', { class: 'card-note' }, 'Changed from the prompt in force before. ', toggle), changes);
}

// ---------------------------------------------------------------------------------------------
// Trajectory.

function renderTrajectory() {
  const body = $('#trajectory-body');
  const requests = app.views.trajectory.requests;
  $('#trajectory-updated').hidden = !(app.fresh.rows.size || app.fresh.changedRows.size);
  if (requests.length === 0) {
    body.replaceChildren(h('tr', {}, h('td', { colspan: 7, class: 'muted empty-row' }, 'No requests (no step/start events) in the loaded window.')));
    return;
  }
  const rows = [];
  const lastSeq = app.events.at(-1)?.seq ?? 0;
  const scale = contextScale(requests);
  const ledger = app.cache.ledger;
  const laneScale = cacheScale(ledger);
  requests.forEach((request, i) => {
    // A request's prompt comes from the last header fact of its step, which may be folded after
    // the step starts: it is withheld when the fold is uncertain by the end of the step.
    const stepEnd = i + 1 < requests.length ? requests[i + 1].startSeq - 1 : lastSeq;
    let withheld = app.rowWithheld.get(request.startSeq);
    if (withheld === undefined) {
      withheld = stateAt(Math.max(request.startSeq, stepEnd))?.uncertain === true;
      app.rowWithheld.set(request.startSeq, withheld);
    }
    const kind = request.promptChange?.kind;
    const expanded = app.expandedRows.has(request.startSeq);
    const fresh = app.fresh.rows.has(request.startSeq) ? 'added' : app.fresh.changedRows.has(request.startSeq) ? 'changed' : null;
    const model = request.requestConfig?.model ?? request.prompt?.config?.model;
    const tools = Array.isArray(request.prompt?.tools) ? request.prompt.tools : null;
    const row = h('tr', {
      class: `traj-row${expanded ? ' is-expanded' : ''}${withheld ? ' is-withheld' : ''}${fresh ? ` is-${fresh}` : ''}`,
      'data-testid': 'trajectory-row',
      'data-start-seq': request.startSeq,
      'data-change-kind': kind ?? '',
      tabindex: 0,
      'aria-expanded': String(expanded),
    },
    h('td', {}, h('span', { class: 'row-chevron', 'aria-hidden': 'true' }), locationText(request.turn, request.step).replace('turn ', 'T').replace(' · step ', ' · S')),
    h('td', { class: 'num' }, `#${request.startSeq}`),
    h('td', { class: 'model' }, model ?? '—'),
    h('td', { class: 'num' }, tools ? String(tools.length) : '—'),
    h('td', {}, withheld ? h('span', { class: 'chip chip-withheld', title: 'A replacement before this request reaches events that are not loaded' }, 'withheld')
      : request.prompt ? promptChip(request.prompt.system) : h('span', { class: 'muted' }, '—')),
    h('td', {}, kind ? h('span', { class: `kind kind-${kind}` }, KIND_LABELS[kind] ?? kind) : null,
      fresh === 'changed' ? h('span', { class: 'pill pill-changed' }, 'changed') : null),
    contextCell(request, scale));
    const toggle = () => {
      if (app.expandedRows.has(request.startSeq)) app.expandedRows.delete(request.startSeq);
      else app.expandedRows.add(request.startSeq);
      renderTrajectory();
      // The request's read point: the stepper then shows the context and prompt the row's bar has.
      const readAt = request.context?.seq;
      select(app.bySeq.has(readAt) ? readAt : request.startSeq, { fromTrajectory: true });
      // The rows were rebuilt: the focus goes back to this request's new row.
      $(`#trajectory-body tr[data-testid="trajectory-row"][data-start-seq="${request.startSeq}"]`)?.focus({ preventScroll: true });
    };
    row.addEventListener('click', toggle);
    row.addEventListener('keydown', (event) => {
      if (event.key === 'Enter' || event.key === ' ') { event.preventDefault(); toggle(); }
    });
    rows.push(row);
    if (ledger) rows.push(cacheLaneRow(ledger.requests[i], i, laneScale, 7));
    if (expanded) rows.push(trajectoryDetail(request, withheld));
  });
  body.replaceChildren(...rows);
}

function trajectoryDetail(request, withheld) {
  const change = request.promptChange;
  const current = request.prompt;
  const previous = change?.previous;
  const cell = h('td', { colspan: 7 });
  const row = h('tr', { class: 'traj-detail', 'data-testid': 'trajectory-detail' }, cell);
  if (withheld) {
    cell.append(h('p', { class: 'withheld-note' },
      'The prompt of this request is withheld: a replacement before it reaches events that are not loaded. Load earlier events to see it.'));
  }
  const head = change
    ? `Prompt change “${KIND_LABELS[change.kind] ?? change.kind}” at seq ${change.seq}${previous ? '' : ' (no previous prompt)'}`
    : 'No prompt change at this request.';
  cell.append(h('p', { class: 'detail-head' }, head));
  const side = (label, prompt, other) => h('div', { class: 'detail-side' },
    h('h4', {}, label, prompt ? promptChip(prompt.system) : null),
    prompt ? [
      h('div', { class: 'detail-label' }, 'System prompt'),
      prompt.system === '' ? h('p', { class: 'muted' }, '(empty: no system prompt)')
        : h('pre', { class: 'prompt-text' }, prompt.system),
      h('div', { class: 'detail-label' }, 'Tools'),
      toolList(prompt.tools, other?.tools, label === 'Current'),
      h('details', { class: 'config-details' }, h('summary', {}, 'Config'),
        h('pre', { class: 'config' }, JSON.stringify(prompt.config ?? null, null, 1))),
    ] : h('p', { class: 'muted' }, '—'));
  const grid = h('div', { class: 'detail-grid' },
    side('Previous', withheld ? null : previous, null),
    side('Current', withheld ? null : current, withheld ? null : previous));
  const diff = withheld ? undefined : changeDiffFor(app.conv, app.views.trajectory.headers, change, current, app.diffPrompts);
  cell.append(diff ? tabbedViews([
    { label: 'Diff', render: () => promptDiffView(diff) },
    { label: 'System prompt', render: () => grid },
    { label: 'Tools', render: () => h('div', { class: 'detail-grid' },
      h('div', { class: 'detail-side' }, h('h4', {}, 'Previous'), toolList(previous.tools, null, false)),
      h('div', { class: 'detail-side' }, h('h4', {}, 'Current'), toolList(current.tools, previous.tools, true))) },
  ]) : grid);
  return row;
}

function toolList(tools, otherTools, marks) {
  const names = (list) => (Array.isArray(list) ? list.map((t) => String(t?.name ?? JSON.stringify(t))) : []);
  const mine = names(tools);
  const theirs = new Set(names(otherTools));
  if (mine.length === 0) return h('p', { class: 'muted' }, 'none');
  const removed = marks && otherTools ? [...theirs].filter((name) => !mine.includes(name)) : [];
  return h('ul', { class: 'tool-list' },
    mine.map((name) => h('li', { class: marks && otherTools && !theirs.has(name) ? 'tool-add' : '' }, name)),
    removed.map((name) => h('li', { class: 'tool-del' }, name)));
}

// ---------------------------------------------------------------------------------------------
// History stepper and the prompt in force.

function selectedIndex() {
  const index = app.events.findIndex((event) => event.seq === app.selected);
  return index < 0 ? Math.max(0, app.events.length - 1) : index;
}

function renderStepper() {
  const range = $('#history');
  range.max = String(Math.max(0, app.events.length - 1));
  range.disabled = app.events.length === 0;
  range.value = String(selectedIndex());
}

function select(seq, { fromTrajectory = false } = {}) {
  if (seq === null || seq === undefined || !app.bySeq.has(seq)) return;
  app.selected = seq;
  $('#history').value = String(selectedIndex());
  renderSelection({ scroll: !fromTrajectory });
}

function stepBy(delta) {
  if (!app.events.length) return;
  const index = Math.min(app.events.length - 1, Math.max(0, selectedIndex() + delta));
  select(app.events[index].seq);
}

function renderSelection({ scroll = true } = {}) {
  const event = app.bySeq.get(app.selected);
  const readout = $('#step-readout');
  renderContextAt($('#context-at'), app.conv, event?.seq);
  if (!event) {
    readout.textContent = '–';
    renderEffective(undefined);
    return;
  }
  const index = selectedIndex();
  readout.replaceChildren(
    h('strong', {}, `seq ${event.seq}`),
    h('span', { class: 'readout-type' }, String(event.type)),
    h('span', { class: 'readout-where' }, locationText(event.data?.turn ?? null, event.data?.step ?? null)),
    h('span', { class: 'readout-pos' }, `${index + 1} / ${app.events.length}`));
  $('#inspector-at').textContent = `at seq ${event.seq} · ${formatTime(event.time)}`;
  renderEffective(event);
  // Highlight the transcript entry at or before the selected seq.
  const list = $('#transcript');
  list.querySelectorAll('.is-current').forEach((el) => el.classList.remove('is-current'));
  let best = null;
  for (const el of list.querySelectorAll(':scope > li[data-seq]')) {
    if (Number(el.dataset.seq) <= event.seq) best = el; else break;
  }
  if (best) {
    best.classList.add('is-current');
    if (scroll) best.scrollIntoView({ block: 'nearest' });
  }
  // And the request whose step holds it.
  let row = null;
  for (const el of document.querySelectorAll('#trajectory-body > .traj-row')) {
    el.classList.remove('is-current');
    if (Number(el.dataset.startSeq) <= event.seq) row = el;
  }
  row?.classList.add('is-current');
  if (row && scroll) row.scrollIntoView({ block: 'nearest' });
}

/** The first loaded event whose fold state is uncertain, and the replacement endpoints before the window. */
function withheldCause() {
  if (app.withheldCause !== undefined) return app.withheldCause;
  app.withheldCause = null;
  const windowStart = app.conv?.windowStart;
  for (const event of app.events) {
    const op = surfaceReplace(event);
    if (!op) continue;
    const state = stateAt(event.seq);
    if (state?.uncertain) {
      const missing = [op.startSeq, op.endSeq].filter((s) => windowStart !== undefined && s < windowStart);
      app.withheldCause = { event, op, missing: [...new Set(missing)], windowStart };
      break;
    }
  }
  return app.withheldCause;
}

function renderEffective(event) {
  const box = $('#effective');
  if (!event) {
    box.dataset.state = 'none';
    box.replaceChildren(h('p', { class: 'muted' }, 'Nothing loaded.'));
    return;
  }
  const state = stateAt(event.seq);
  if (!state) {
    box.dataset.state = 'none';
    box.replaceChildren(
      h('div', { class: 'effective-status status-none' }, 'No prompt event yet'),
      h('p', {}, `No system prompt event is loaded at or before seq ${event.seq}.`),
      app.conv.hasMore ? h('p', { class: 'muted' }, 'Older events are not loaded yet; a prompt set there would be in force here.') : null);
    return;
  }
  if (state.uncertain) {
    box.dataset.state = 'withheld';
    const cause = withheldCause();
    const why = cause && cause.event.seq <= event.seq
      ? [`The replacement at seq ${cause.event.seq} (${cause.event.type}) replaces #${cause.op.startSeq}${cause.op.endSeq !== cause.op.startSeq ? `–#${cause.op.endSeq}` : ''}`,
        cause.missing.length ? `, and seq ${cause.missing.join(' and ')} lies before the loaded window (which starts at seq ${cause.windowStart}). ` : '. ',
        'Whether it removed a system prompt cannot be known until those events are loaded.']
      : ['A replacement before this event reaches events that are not loaded.'];
    box.replaceChildren(
      h('div', { class: 'effective-status status-withheld' }, 'Withheld'),
      h('p', {}, why),
      app.conv.hasMore ? h('p', { class: 'muted' }, 'Use “Load earlier” to bring in older events.') : null,
      cause ? h('button', { type: 'button', class: 'link-button', onclick: () => select(cause.event.seq) }, `Go to seq ${cause.event.seq}`) : null);
    return;
  }
  const effective = state.effective;
  const facts = h('p', { class: 'effective-facts muted' },
    `${plural(state.nodeCount, 'system node')} alive · ${plural(state.replacementCount, 'replacement')} tracked · fold from seq ${state.firstSeq}`);
  if (!effective) {
    box.dataset.state = 'empty';
    box.replaceChildren(h('div', { class: 'effective-status status-none' }, 'No prompt'),
      h('p', {}, 'The only system prompt so far is empty.'), facts);
    return;
  }
  if (effective.text === '') {
    box.dataset.state = 'cleared';
    box.replaceChildren(h('div', { class: 'effective-status status-cleared' }, 'Cleared'),
      h('p', {}, `Since seq ${effective.seq} no system prompt is in force: every prompt was replaced or emptied.`), facts);
    return;
  }
  box.dataset.state = 'prompt';
  const origin = app.bySeq.get(effective.seq);
  const restored = origin && origin.type !== 'system/message';
  const introducedHere = state.introduced && state.introduced.seq === event.seq;
  box.replaceChildren(
    h('div', { class: 'effective-head' },
      h('span', { class: 'effective-status status-prompt' }, 'In force'),
      promptChip(effective.text),
      h('span', { class: 'effective-since' },
        restored ? `restored at seq ${effective.seq} by a replacement` : `set at seq ${effective.seq}`,
        ` · ${locationText(effective.turn, effective.step)}`),
      effective.update ? h('span', { class: 'pill pill-update' }, 'in-history update') : null,
      introducedHere ? h('span', { class: 'pill pill-muted' }, 'introduced here') : null),
    h('pre', { class: 'prompt-text effective-text', 'data-testid': 'effective-text' }, effective.text),
    facts);
}

// ---------------------------------------------------------------------------------------------
// UI wiring.

function setLang(lang) {
  app.lang = lang === 'zh' ? 'zh' : 'en';
  try { localStorage.setItem('promptfold.lang', app.lang); } catch { /* private mode */ }
  for (const button of document.querySelectorAll('[data-lang]')) {
    button.setAttribute('aria-pressed', String(button.dataset.lang === app.lang));
  }
  for (const title of document.querySelectorAll('.card-title[data-title-key]')) {
    title.textContent = titleFor(title.dataset.titleKey);
    title.lang = app.lang === 'zh' ? 'zh' : 'en';
  }
}

function bindUi() {
  $('#history').addEventListener('input', (event) => {
    const index = Number(event.target.value);
    if (app.events[index]) select(app.events[index].seq);
  });
  $('#step-prev').addEventListener('click', () => stepBy(-1));
  $('#step-next').addEventListener('click', () => stepBy(1));
  document.addEventListener('keydown', (event) => {
    const target = event.target;
    if (target instanceof HTMLInputElement || target instanceof HTMLTextAreaElement || target?.isContentEditable) return;
    if (event.altKey || event.ctrlKey || event.metaKey) return;
    if (event.key === 'ArrowLeft' || event.key === 'k') { event.preventDefault(); stepBy(-1); }
    else if (event.key === 'ArrowRight' || event.key === 'j') { event.preventDefault(); stepBy(1); }
    else if (event.key === 'Home') { event.preventDefault(); select(app.events[0]?.seq); }
    else if (event.key === 'End') { event.preventDefault(); select(app.events.at(-1)?.seq); }
  });
  $('#load-earlier').addEventListener('click', () => loadEarlier());
  for (const button of document.querySelectorAll('[data-lang]')) {
    button.addEventListener('click', () => setLang(button.dataset.lang));
  }
  const input = $('#open-log');
  input.addEventListener('change', () => {
    const file = input.files?.[0];
    input.value = '';
    openFile(file).catch((error) => showError('Could not open the log', error));
  });
  // Drag and drop anywhere on the page.
  const zone = $('#dropzone');
  let depth = 0;
  const hasFiles = (event) => Array.from(event.dataTransfer?.types ?? []).includes('Files');
  document.addEventListener('dragenter', (event) => {
    if (!hasFiles(event)) return;
    event.preventDefault();
    depth += 1;
    zone.hidden = false;
  });
  document.addEventListener('dragover', (event) => {
    if (!hasFiles(event)) return;
    event.preventDefault();
    event.dataTransfer.dropEffect = 'copy';
  });
  document.addEventListener('dragleave', () => {
    depth = Math.max(0, depth - 1);
    if (depth === 0) zone.hidden = true;
  });
  document.addEventListener('drop', (event) => {
    if (!hasFiles(event)) return;
    event.preventDefault();
    depth = 0;
    zone.hidden = true;
    const handle = openLog.droppedHandle(event.dataTransfer);
    const file = event.dataTransfer.files?.[0];
    Promise.resolve(handle).then((fileHandle) => openFile(file, fileHandle))
      .catch((error) => showError('Could not open the log', error));
  });
  app.big = new BigSession();
  $('#big-back').addEventListener('click', () => {
    if (app.sample) openSample(app.sample);
  });
  openLog.installOpenLog({
    open: openFile, fed: showFed, fedBig: showFedBig, source: () => app.source, showError, h,
    render: () => openLog.renderSessionInfo($('#session-info'), app.source, h),
  });
  window.addEventListener('unhandledrejection', (event) => showError('Something went wrong', event.reason));
  let saved = 'en';
  try { saved = localStorage.getItem('promptfold.lang') ?? 'en'; } catch { /* private mode */ }
  setLang(saved);
}

async function boot() {
  bindUi();
  let mod;
  try {
    mod = await import('./pkg/promptfold.js');
    await mod.default();
  } catch (error) {
    $('#window-info').textContent = 'The WebAssembly build is not loaded.';
    showError('The WebAssembly build (www/pkg/) could not be loaded',
      new Error(`${error?.message ?? error}. Build and serve the demo with: bash scripts/demo.sh`));
    document.body.dataset.ready = 'error';
    return;
  }
  app.Conversation = mod.Conversation;
  app.diffPrompts = mod.diffPrompts;
  try {
    const response = await fetch('./sample-session.json');
    if (!response.ok) throw new Error(`sample-session.json: HTTP ${response.status}`);
    openSample(await response.json());
  } catch (error) {
    showError('Could not load the sample session', error);
  }
  document.body.dataset.ready = 'true';
}

boot();
