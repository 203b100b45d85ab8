// "Open a log" for the demo: any session file the harness writes (JSON lines with a header, a
// JSON array, an SDK notification stream, a torn last line, zstd-compressed .jsonl.zst/.zstd),
// the session header panel, and "Follow", which re-reads a file chosen through the File System
// Access API and feeds only its new bytes to `Conversation.feed`. app.js owns the page state and
// hands in its hooks through installOpenLog(); every piece of log text is set as text.

import { FollowReader, isZstd, readSessionLog } from './session-log.mjs';

/** How often a followed file is re-read, in milliseconds. */
export const FOLLOW_INTERVAL_MS = 1000;

const PICKER_TYPES = [{
  description: 'Session logs',
  accept: { 'application/json': ['.jsonl', '.json', '.ndjson', '.txt', '.zst', '.zstd'] },
}];

let zstd;
/** The vendored zstd decoder (www/vendor/fzstd.mjs), loaded on the first compressed file. */
function zstdDecoder() {
  zstd ??= import('./vendor/fzstd.mjs').catch((error) => {
    zstd = undefined;
    throw new Error(`the zstd decoder (vendor/fzstd.mjs) could not be loaded (${error?.message ?? error}); `
      + 'scripts/demo.sh copies it from node_modules: run bash scripts/demo.sh');
  });
  return zstd;
}

/**
 * Reads a File into UTF-8 bytes, decompressing a zstd file (recognised by its magic bytes, so
 * the name does not matter): `{ bytes, compressedBytes? }`.
 */
export async function readLogFile(file) {
  const raw = new Uint8Array(await file.arrayBuffer());
  if (!isZstd(raw)) return { bytes: raw };
  const { decompress } = await zstdDecoder();
  try {
    return { bytes: decompress(raw), compressedBytes: raw.length };
  } catch (error) {
    throw new Error(`not a readable zstd file: ${error?.message ?? error}`);
  }
}

/** Whether the browser lets the page re-read a chosen file (File System Access API). */
export const followSupported = () => typeof window.showOpenFilePicker === 'function';

/**
 * Loads a log's bytes into a new conversation and reads its events for the transcript.
 * Throws (after freeing the conversation) when the library or the reader rejects them.
 */
export function loadLog(Conversation, bytes) {
  const conv = new Conversation();
  try {
    const change = conv.loadJson(bytes);
    if (conv.length === 0 && conv.session === undefined) throw notASessionLog(bytes.length);
    const read = readSessionLog(bytes);
    const tornTail = change.tornTail;
    // loadJson keeps a torn line for the next feed; the reader of followed bytes keeps it too.
    const tornBytes = tornTail ? bytes.slice(bytes.length - tornTail.bytes) : new Uint8Array(0);
    return { conv, change, session: conv.session, tornTail, tornBytes, events: read.events, numbering: read.numbering };
  } catch (error) {
    conv.free?.();
    throw error;
  }
}

/** The error openSession gives a file with neither a session header nor an event. */
function notASessionLog(bytes) {
  const error = new Error(`not a session log: ${bytes} bytes read, with no session header and no complete event `
    + '(a session log is JSON lines, one event a line, after a `type: "session"` header)');
  error.name = 'PromptfoldError';
  error.code = 'NOT_A_SESSION_LOG';
  return error;
}

const plural = (n, one, many = `${one}s`) => `${n.toLocaleString('en')} ${n === 1 ? one : many}`;

function formatCreated(value) {
  if (typeof value !== 'number' || !Number.isFinite(value)) return value === undefined ? undefined : String(value);
  try { return `${new Date(value).toISOString().replace('T', ' ').replace(/\.\d+Z$/, ' UTC')}`; } catch { return String(value); }
}

const shown = (value) => (value === undefined || value === null ? '–' : typeof value === 'string' ? value : JSON.stringify(value));

/**
 * Fills `box` with the opened file's header (session id, format version, cwd, created at), the
 * torn last line and the follow state; hides it for the sample.
 */
export function renderSessionInfo(box, source, h) {
  if (!source || source.kind !== 'file') {
    box.replaceChildren();
    box.hidden = true;
    return;
  }
  box.hidden = false;
  const parts = [];
  const session = source.session;
  if (session && typeof session === 'object') {
    const field = (label, value, testid) => [h('dt', {}, label), h('dd', { 'data-testid': testid }, shown(value))];
    parts.push(h('dl', { class: 'session-fields', 'data-testid': 'session-header' },
      field('Session', session.id, 'session-id'),
      field('Format', session.version, 'session-version'),
      field('cwd', session.cwd, 'session-cwd'),
      field('Created', formatCreated(session.createdAt), 'session-created')));
  } else {
    parts.push(h('p', { class: 'muted', 'data-testid': 'session-none' }, 'No session header in this file (a notification stream or a bare event log).'));
  }
  if (source.compressedBytes !== undefined) {
    parts.push(h('p', { class: 'session-note', 'data-testid': 'session-compressed' },
      `Decompressed from zstd: ${plural(source.compressedBytes, 'byte')} to ${plural(source.bytes, 'byte')}.`));
  }
  if (source.tornTail) {
    parts.push(h('p', { class: 'session-note session-torn', role: 'note', 'data-testid': 'torn-tail' },
      `The last line (line ${source.tornTail.line}, ${plural(source.tornTail.bytes, 'byte')}) was cut off mid-write and is not loaded`,
      source.follower ? '; following picks it up once it is complete.' : '.'));
  }
  if (source.follower) {
    parts.push(h('p', { class: 'session-note session-following', 'data-testid': 'follow-state' },
      `Following: ${plural(source.fedBytes ?? 0, 'new byte')} fed so far`,
      source.keptBytes ? `, ${plural(source.keptBytes, 'byte')} of an unfinished line kept.` : '.'));
  }
  box.replaceChildren(...parts);
}

/**
 * Re-reads a file handle every `intervalMs` and hands the bytes past `offset` to `onBytes`
 * (awaited; a throw stops following and goes to `onError`). A file that shrinks stops it too.
 */
export class Follower {
  #timer = null;
  #stopped = false;

  constructor(handle, offset, { onBytes, onError, intervalMs = FOLLOW_INTERVAL_MS }) {
    this.handle = handle;
    this.offset = offset;
    this.onBytes = onBytes;
    this.onError = onError;
    this.intervalMs = intervalMs;
  }

  start() {
    this.#stopped = false;
    this.#schedule();
  }

  stop() {
    this.#stopped = true;
    clearTimeout(this.#timer);
    this.#timer = null;
  }

  get running() { return !this.#stopped && this.#timer !== null; }

  #schedule() {
    if (this.#stopped) return;
    this.#timer = setTimeout(() => this.#tick(), this.intervalMs);
  }

  async #tick() {
    try {
      const file = await this.handle.getFile();
      if (file.size < this.offset) throw new Error(`the file shrank from ${this.offset} to ${file.size} bytes (rewritten?): open it again`);
      if (file.size > this.offset && !this.#stopped) {
        const bytes = new Uint8Array(await file.slice(this.offset, file.size).arrayBuffer());
        await this.onBytes(bytes);
        this.offset += bytes.length;
      }
    } catch (error) {
      this.stop();
      this.onError(error);
      return;
    }
    this.#schedule();
  }
}

/**
 * Wires the picker, drag-and-drop handles and the follow toggle. Hooks from app.js:
 * `open(file, handle)` opens a file, `fed({ change, events, session })` shows a fed piece,
 * `source()` is the current source, `render()` redraws the session panel, `showError(title,
 * error)`, and `h` builds elements (text children only).
 */
export function installOpenLog(hooks) {
  const input = document.querySelector('#open-log');
  const toggleBox = document.querySelector('#follow-toggle');
  const toggle = document.querySelector('#follow');
  if (followSupported()) {
    toggleBox.hidden = false;
    // The picker gives a handle the page can re-read; the plain input stays for everything else,
    // and takes over where the picker is refused (a frame without the permission, say).
    let pickerRefused = false;
    input.addEventListener('click', (event) => {
      if (pickerRefused) return;
      event.preventDefault();
      window.showOpenFilePicker({ types: PICKER_TYPES, multiple: false })
        .then(async ([handle]) => hooks.open(await handle.getFile(), handle))
        .catch((error) => {
          if (error?.name === 'AbortError') return;
          if (error?.name === 'SecurityError' || error?.name === 'NotAllowedError') {
            pickerRefused = true;
            input.click();
            return;
          }
          hooks.showError('Could not open the log', error);
        });
    });
  }
  toggle.addEventListener('change', () => {
    const source = hooks.source();
    if (toggle.checked) startFollowing(source, hooks);
    else stopFollowing(source);
    hooks.render();
  });
}

/** The handle of a dropped file where the browser gives one (Chromium), else undefined. */
export function droppedHandle(dataTransfer) {
  const item = dataTransfer?.items?.[0];
  if (!item || item.kind !== 'file' || typeof item.getAsFileSystemHandle !== 'function') return undefined;
  return item.getAsFileSystemHandle().then((handle) => (handle?.kind === 'file' ? handle : undefined), () => undefined);
}

/** Sets the toggle for a newly opened source: enabled when its file can be followed. */
export function updateFollowToggle(source) {
  const toggle = document.querySelector('#follow');
  const box = document.querySelector('#follow-toggle');
  if (!toggle || !box) return;
  const can = Boolean(source?.handle) && source.compressedBytes === undefined;
  toggle.disabled = !can;
  toggle.checked = Boolean(source?.follower);
  box.title = can ? 'Re-read the file every second and load what was added'
    : source?.compressedBytes !== undefined ? 'A compressed file cannot be followed'
      : 'Open a file with "Open a log…" (or drop it) to follow it';
}

/** Ends a follow that failed: the loaded window stays, the error is shown. */
function followingFailed(source, hooks, error) {
  source.follower = undefined;
  updateFollowToggle(source);
  hooks.showError(`Stopped following ${source.name}`, error);
  hooks.render();
}

/** Starts following the source's file from the end of what is loaded. */
export function startFollowing(source, hooks) {
  if (!source?.handle || source.follower) return;
  if (source.kind === 'big') {
    startFollowingInWorker(source, hooks);
    return;
  }
  // Feeding goes on from the end of what was read: the conversation kept a torn last line.
  const offset = source.bytes;
  const reader = new FollowReader({ numbering: source.numbering.clone(), started: true, rest: source.tornBytes });
  source.fedBytes = 0;
  source.follower = new Follower(source.handle, offset, {
    onBytes: async (bytes) => {
      const read = reader.read(bytes);
      const change = source.conv.feed(bytes);
      reader.commit(read);
      source.fedBytes += bytes.length;
      source.keptBytes = reader.restBytes;
      // Once a line end came after the torn line, it is complete and loaded.
      if (source.tornTail && reader.restBytes < source.tornTail.bytes + source.fedBytes) source.tornTail = undefined;
      hooks.fed({ change, events: read.events });
    },
    onError: (error) => followingFailed(source, hooks, error),
  });
  source.follower.start();
}

/** Follows a large file held by the worker (big-session.js): new bytes go to its `feed`. */
function startFollowingInWorker(source, hooks) {
  source.fedBytes = 0;
  source.follower = new Follower(source.handle, source.bytes, {
    onBytes: async (bytes) => {
      const change = await source.worker.call('feed', bytes);
      source.fedBytes += bytes.length;
      hooks.fedBig({ change });
    },
    onError: (error) => followingFailed(source, hooks, error),
  });
  source.follower.start();
}

/** Stops following (the loaded window stays). */
export function stopFollowing(source) {
  source?.follower?.stop();
  if (source) source.follower = undefined;
}
