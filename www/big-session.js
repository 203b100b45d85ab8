// Session files in the demo's worker (docs/worker.md, "The demo"): every file but the smallest
// (SMALL_FILE_BYTES) and JSON arrays is opened in a Web Worker (promptfold/worker, copied to
// www/worker/ by scripts/demo.sh), newest page first, behind a progress bar with Cancel. Its cards
// and trajectory rows are virtual lists: only the rows in view exist, and they come from the
// worker as slices (cardsSlice, requestsSlice), so the page's thread never holds a whole view.

import { el, fmt } from './dom.js';
import { isZstd } from './session-log.mjs';
import { WorkerConversation } from './worker/client.js';

/**
 * Files up to this size are read whole by the page's own conversation (app.js), with the full
 * transcript and panels: on a small-profile log of 50 KB the page's longest task was 76 ms,
 * of 100 KB 144 ms, of 4 MB 7.1 s; the worker's first open in a page costs about 100 ms (it
 * starts and compiles the wasm), later ones 5 to 16 ms up to 250 KB (bench/js/demo-open.mjs).
 */
export const SMALL_FILE_BYTES = 48 << 10;
/** The same for zstd files, which hold 5 to 40 times their size in text. */
export const SMALL_ZSTD_BYTES = SMALL_FILE_BYTES / 8;
/**
 * JSON arrays up to this size are read on the page too: the worker reads JSON lines only (as
 * `feed` does), and an array is read whole anyway.
 */
export const ARRAY_FILE_BYTES = 4 << 20;

/** Whether `file` is opened in the worker rather than by the page's own conversation. */
export async function opensInWorker(file) {
  if (file.size <= SMALL_ZSTD_BYTES) return false;
  const start = new Uint8Array(await file.slice(0, 64).arrayBuffer());
  if (isZstd(start)) return true;
  if (file.size <= SMALL_FILE_BYTES) return false;
  const first = start.find((byte) => byte !== 0x20 && byte !== 0x0a && byte !== 0x0d && byte !== 0x09 && byte !== 0xef && byte !== 0xbb && byte !== 0xbf);
  return !(first === 0x5b && file.size <= ARRAY_FILE_BYTES);
}
/** Height of one row of the virtual lists, in pixels (style.css: .vrow). */
const ROW_PX = 30;
/** Rows rendered beyond the visible ones, above and below. */
const OVERSCAN = 8;
/** The tallest spacer a list uses; longer lists map scroll positions onto row indices. */
const MAX_SPACER_PX = 4_000_000;
/** Newest cards and requests the worker sends with each window while a file loads (a list's rows in view). */
const WINDOW_CARDS = 24;
/** Least milliseconds between two windows while a file loads. */
const WINDOW_EVERY_MS = 250;

const $ = (selector) => document.querySelector(selector);

let client;
/** The demo's worker (demo-worker.js: the package's worker with the vendored zstd decoder). */
export function worker() {
  client ??= new WorkerConversation(new Worker(new URL('./demo-worker.js', import.meta.url), { type: 'module' }));
  return client;
}

const mb = (bytes) => `${(bytes / 1e6).toLocaleString('en', { maximumFractionDigits: bytes < 1e7 ? 1 : 0 })} MB`;
const count = (n, one) => `${n.toLocaleString('en')} ${one}${n === 1 ? '' : 's'}`;

function firstHeading(text) {
  const lines = String(text ?? '').split('\n');
  const heading = lines.find((line) => /^#{1,3}\s/.test(line)) ?? lines.find((line) => line.trim()) ?? '';
  return heading.replace(/^#+\s*/, '').slice(0, 100);
}

// ---------------------------------------------------------------------------------------------
// The progress bar.

/** Shows the progress of an open: bytes, events, rate and time left, updated once a frame. */
class ProgressBar {
  #latest;
  #frame = 0;

  constructor() {
    this.box = $('#load-progress');
    this.bar = $('#load-progress-bar');
    this.text = $('#load-progress-text');
    this.cancel = $('#load-cancel');
  }

  show(name, onCancel) {
    this.box.hidden = false;
    this.bar.removeAttribute('value');
    this.text.textContent = `Opening ${name}…`;
    this.cancel.onclick = onCancel;
    this.cancel.disabled = false;
  }

  update(progress) {
    this.#latest = progress;
    this.#frame ||= requestAnimationFrame(() => {
      this.#frame = 0;
      this.#draw(this.#latest);
    });
  }

  #draw(p) {
    if (this.box.hidden || !p) return;
    const parts = [p.totalBytes ? `${mb(p.bytesRead)} of ${mb(p.totalBytes)}` : mb(p.bytesRead), count(p.events, 'event')];
    if (p.bytesPerSecond > 0) parts.push(`${mb(p.bytesPerSecond)}/s`);
    if (p.totalBytes && p.bytesPerSecond > 0) {
      parts.push(`${Math.max(0, Math.ceil((p.totalBytes - p.bytesRead) / p.bytesPerSecond))} s left`);
    }
    if (p.totalBytes) this.bar.value = Math.min(1, p.bytesRead / p.totalBytes);
    this.text.textContent = parts.join(' · ');
  }

  hide() {
    cancelAnimationFrame(this.#frame);
    this.#frame = 0;
    this.box.hidden = true;
    this.cancel.onclick = null;
  }
}

// ---------------------------------------------------------------------------------------------
// Virtual lists.

/**
 * A scrolling list of `total` rows of which only those in view exist. `fetch(start, end)`
 * resolves to `{ start, items }` (a slice); `render(item, index)` makes a row's element.
 */
class VirtualList {
  #total = 0;
  #asked = 0;
  #frame = 0;
  #cache = { start: 0, items: [] };
  /** While a file loads, the worker's session is the one before: show the given rows only. */
  #frozen = false;
  /** The list's height in pixels, kept by a ResizeObserver so drawing never forces a layout. */
  #viewHeight = 0;

  constructor(box, { fetch, render, testid }) {
    this.box = box;
    this.fetch = fetch;
    this.render = render;
    this.testid = testid;
    this.spacer = el('div', { class: 'vlist-spacer' });
    this.rows = el('div', { class: 'vlist-rows' });
    box.replaceChildren(this.spacer, this.rows);
    box.addEventListener('scroll', () => this.#schedule());
    new ResizeObserver(([entry]) => {
      this.#viewHeight = entry.contentRect.height;
      this.#draw();
    }).observe(box);
  }

  get total() { return this.#total; }

  /** Shows `items` (the last rows of `total`, starting at `start`) without asking for slices. */
  showNewest(total, start, items) {
    this.#asked += 1; // drops a slice still on its way
    this.#frozen = true;
    this.#setTotal(total);
    this.#cache = { start, items };
    // Scrolled to the end, written without reading the layout back.
    const scrollTop = Math.max(0, this.#spacerPx() - this.#viewHeight);
    this.box.scrollTop = scrollTop;
    this.#draw(scrollTop);
  }

  /** Sets the row count and shows the rows in view, asking for them; `toEnd` scrolls to the last. */
  reset(total, { toEnd = false } = {}) {
    this.#frozen = false;
    this.#setTotal(total);
    this.#cache = { start: 0, items: [] };
    if (toEnd) this.box.scrollTop = Math.max(0, this.#spacerPx() - this.#viewHeight);
    return this.#update();
  }

  #spacerPx() {
    return Math.min(this.#total * ROW_PX, MAX_SPACER_PX);
  }

  #setTotal(total) {
    this.#total = total;
    this.spacer.style.height = `${this.#spacerPx()}px`;
  }

  /** The rows in view: first index, how many, and the pixel top of the first. */
  #range(scrollTop = this.box.scrollTop) {
    const view = Math.max(1, Math.ceil(this.#viewHeight / ROW_PX));
    const full = this.#total * ROW_PX;
    if (full <= MAX_SPACER_PX) {
      const first = Math.floor(scrollTop / ROW_PX);
      return { first, view, top: (index) => index * ROW_PX };
    }
    const room = Math.max(1, MAX_SPACER_PX - this.#viewHeight);
    const share = Math.min(1, scrollTop / room);
    const first = Math.floor(share * Math.max(0, this.#total - view));
    return { first, view, top: (index) => scrollTop + (index - first) * ROW_PX };
  }

  #schedule() {
    this.#frame ||= requestAnimationFrame(() => {
      this.#frame = 0;
      this.#update();
    });
  }

  async #update() {
    const { first, view } = this.#range();
    const start = Math.max(0, first - OVERSCAN);
    const end = Math.min(this.#total, first + view + OVERSCAN);
    const cached = this.#cache;
    this.#draw();
    if (this.#frozen || (start >= cached.start && end <= cached.start + cached.items.length)) return;
    const asked = ++this.#asked;
    let slice;
    try {
      slice = await this.fetch(start, end);
    } catch (error) {
      if (asked === this.#asked) this.box.dataset.error = String(error?.message ?? error);
      return;
    }
    if (asked !== this.#asked) return;
    this.#cache = slice;
    this.#draw();
  }

  #draw(scrollTop) {
    const { first, view, top } = this.#range(scrollTop);
    const { start, items } = this.#cache;
    const nodes = [];
    const from = Math.max(start, first - OVERSCAN);
    const to = Math.min(start + items.length, first + view + OVERSCAN);
    for (let index = from; index < to; index++) {
      const row = this.render(items[index - start], index);
      row.style.top = `${top(index)}px`;
      nodes.push(row);
    }
    this.rows.replaceChildren(...nodes);
    this.box.dataset.total = String(this.#total);
  }
}

function cardRow(card, index) {
  return el('div', {
    class: `vrow vrow-card card-${card.source === 'request' ? 'request' : card.update ? 'update' : 'system'}`,
    'data-testid': 'big-card',
    'data-index': index,
    'data-key': card.key,
    'data-title-key': card.titleKey,
    'data-seq': card.seq,
  },
  el('span', { class: 'vrow-seq' }, `#${card.seq}`),
  el('span', { class: 'vrow-kind' }, card.source === 'request' ? 'request' : card.update ? 'update' : 'system'),
  el('span', { class: 'vrow-text' }, firstHeading(card.text)));
}

/** The estimated tokens of a request's context: the sum of its `...Tokens` parts. */
function contextTokens(context) {
  let sum = 0;
  for (const [name, value] of Object.entries(context ?? {})) if (name.endsWith('Tokens') && typeof value === 'number') sum += value;
  return sum;
}

function requestRow(request, index) {
  const where = request.turn === undefined ? '' : request.step === undefined ? `turn ${request.turn}` : `turn ${request.turn} · step ${request.step}`;
  return el('div', {
    class: 'vrow vrow-request',
    'data-testid': 'big-row',
    'data-index': index,
    'data-start-seq': request.startSeq,
  },
  el('span', { class: 'vrow-seq' }, `#${request.startSeq}`),
  el('span', { class: 'vrow-kind' }, where),
  el('span', { class: 'vrow-text' }, request.promptChange ? `prompt change: ${request.promptChange.kind}` : ''),
  el('span', { class: 'vrow-num' }, `${fmt(contextTokens(request.context))} tokens`));
}

// ---------------------------------------------------------------------------------------------
// The view of a large session.

export class BigSession {
  #controller;
  #progress = new ProgressBar();
  #pending;
  #frame = 0;

  constructor() {
    this.section = $('#big-session');
    this.info = $('#big-info');
    this.cards = new VirtualList($('#big-cards'), {
      fetch: (start, end) => worker().call('cardsSlice', { start, end }).then((s) => ({ start: s.start, items: s.cards })),
      render: cardRow,
    });
    this.rows = new VirtualList($('#big-rows'), {
      fetch: (start, end) => worker().call('requestsSlice', { start, end }).then((s) => ({ start: s.start, items: s.requests })),
      render: requestRow,
    });
  }

  /** Whether an open is running. */
  get opening() { return this.#controller !== undefined; }

  /** Cancels the running open, if any. */
  cancel() { this.#controller?.abort(); }

  /**
   * Opens `file` in the worker. `hooks.show()` is called when its newest page is first ready to
   * be shown (this view is then filled); on an error or a cancel the promise rejects and the
   * caller restores what it showed before.
   */
  async open(file, hooks) {
    this.cancel();
    const controller = new AbortController();
    this.#controller = controller;
    this.#progress.show(file.name, () => controller.abort());
    this.section.dataset.state = 'opening';
    let shown = false;
    try {
      const opened = await worker().open(file, {
        signal: controller.signal,
        newestFirst: true,
        windowCards: WINDOW_CARDS,
        windowEvery: WINDOW_EVERY_MS,
        onProgress: (progress) => this.#progress.update(progress),
        onWindow: (window) => {
          if (controller.signal.aborted || (window.info.length === 0 && window.info.session === undefined)) return;
          if (!shown) {
            shown = true;
            hooks.show();
          }
          this.#showLoading(file.name, window);
        },
      });
      return opened;
    } finally {
      if (this.#controller === controller) {
        this.#controller = undefined;
        this.#progress.hide();
        this.#stopLoading();
      }
    }
  }

  /** Draws the newest window of a loading file once a frame (messages may come faster). */
  #showLoading(name, window) {
    this.#pending = { name, window };
    this.#frame ||= requestAnimationFrame(() => {
      this.#frame = 0;
      const pending = this.#pending;
      this.#pending = undefined;
      if (pending) this.#drawLoading(pending.name, pending.window);
    });
  }

  #stopLoading() {
    cancelAnimationFrame(this.#frame);
    this.#frame = 0;
    this.#pending = undefined;
  }

  #drawLoading(name, { info, newestCards, newestRequests, progress, withheldFrom }) {
    this.section.dataset.state = 'loading';
    // Cards decided from a replacement that reaches before the loaded events wait for the older pages.
    const withheld = withheldFrom === undefined ? '' : ` · cards from #${withheldFrom} on wait for older events`;
    this.section.dataset.withheldFrom = withheldFrom ?? '';
    this.info.textContent = `${name} · newest ${count(info.length, 'event')} loaded, reading older ones… (${mb(progress.bytesRead)} read)${withheld}`;
    this.cards.showNewest(info.counts.cards, newestCards.start, newestCards.cards);
    this.rows.showNewest(info.counts.requests, newestRequests.start, newestRequests.requests);
  }

  /** Shows the worker's loaded session: counts, and both lists scrolled to their newest rows. */
  async showLoaded(name, info, notes = []) {
    this.section.dataset.state = 'loaded';
    this.section.dataset.withheldFrom = '';
    const header = info.session ? ` · session ${info.session.id ?? '–'}` : '';
    this.info.textContent = [`${name} · ${count(info.length, 'event')}, ${count(info.counts.cards, 'card')}, `
      + `${count(info.counts.requests, 'request')}${header}`, ...notes].join(' ');
    this.section.dataset.cards = String(info.counts.cards);
    this.section.dataset.requests = String(info.counts.requests);
    await Promise.all([this.cards.reset(info.counts.cards, { toEnd: true }), this.rows.reset(info.counts.requests, { toEnd: true })]);
  }

  /** Re-reads the worker's session (after a feed, or a cancelled open). */
  async refresh(name, notes) {
    return this.showLoaded(name, await worker().info(), notes);
  }
}
