// End-to-end: the demo opens the session files the harness writes (examples/sessions/, made by
// scripts/make-session-files.mjs) in Chromium: a log with a header, an SDK notification stream, a
// seq-less log dropped on the page, a torn file, a zstd-compressed .jsonl.zst, a format 2 log
// (refused), and "Follow" on a file that grows (the File System Access picker is stood in for by
// a handle whose file the test extends). Cards and header are checked against what the Node
// build of the library reads from the same bytes. Needs bash scripts/demo.sh --build-only.

import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { sessionEvents } from '../tests/js/kit/session.mjs';
import { startDemo } from './harness.mjs';

const sessions = fileURLToPath(new URL('../examples/sessions/', import.meta.url));
const { Conversation } = await import('../pkg/node/promptfold.mjs');
const fileBytes = (name) => readFileSync(`${sessions}${name}`);

let demo;
let page;
before(async () => {
  demo = await startDemo();
  page = demo.page;
});
after(async () => demo?.close());

/** What the library reads from `bytes`: header, torn tail, `key=titleKey` of every card. */
function libraryRead(bytes) {
  const conv = new Conversation();
  try {
    const change = conv.loadJson(bytes);
    return { session: conv.session, tornTail: change.tornTail, cards: conv.views().chat.map((c) => `${c.key}=${c.titleKey}`), length: conv.length };
  } finally {
    conv.free();
  }
}

const cardKeys = () => page.getByTestId('chat-card').evaluateAll((els) => els.map((el) => `${el.dataset.key}=${el.dataset.titleKey}`));
const statusMentions = (text) => page.waitForFunction((t) => document.querySelector('#status')?.textContent.includes(t), text);

async function open(name, buffer = fileBytes(name)) {
  await page.getByTestId('open-log').setInputFiles({ name, mimeType: 'application/octet-stream', buffer });
  await statusMentions(`Opened ${name}`);
}

async function expectHeader(session) {
  assert.equal(await page.getByTestId('session-id').innerText(), session.id);
  assert.equal(await page.getByTestId('session-version').innerText(), String(session.version));
  assert.equal(await page.getByTestId('session-cwd').innerText(), session.cwd);
  assert.match(await page.getByTestId('session-created').innerText(), new RegExp(new Date(session.createdAt).toISOString().slice(0, 10)));
}

test('a log with a session header: its header and cards', async () => {
  const expected = libraryRead(fileBytes('session.jsonl'));
  assert.ok(expected.session && expected.cards.length >= 2, 'the fixture has a header and cards');
  await open('session.jsonl');
  await expectHeader(expected.session);
  assert.deepEqual(await cardKeys(), expected.cards);
  assert.equal(await page.getByTestId('torn-tail').count(), 0);
  assert.match(await page.locator('#status').innerText(), new RegExp(`${expected.length} events`));
});

test('an SDK notification stream: the same cards, no header', async () => {
  const expected = libraryRead(fileBytes('notifications.jsonl'));
  assert.deepEqual(expected.cards, libraryRead(fileBytes('session.jsonl')).cards);
  await open('notifications.jsonl');
  assert.equal(await page.getByTestId('session-none').isVisible(), true);
  assert.equal(await page.getByTestId('session-header').count(), 0);
  assert.deepEqual(await cardKeys(), expected.cards);
});

test('a torn file (BOM, CRLF, cut inside a character): loads and says the last line was torn', async () => {
  const expected = libraryRead(fileBytes('torn.jsonl'));
  assert.ok(expected.tornTail, 'the fixture is torn');
  await open('torn.jsonl');
  await expectHeader(expected.session);
  const note = await page.getByTestId('torn-tail').innerText();
  assert.match(note, new RegExp(`line ${expected.tornTail.line}, ${expected.tornTail.bytes} bytes`));
  assert.match(await page.locator('#status').innerText(), /torn/);
  assert.deepEqual(await cardKeys(), expected.cards);
});

test('a zstd-compressed .jsonl.zst: decompressed, then the same header and cards', async () => {
  const expected = libraryRead(fileBytes('session.jsonl'));
  await open('session.jsonl.zst');
  await expectHeader(expected.session);
  assert.deepEqual(await cardKeys(), expected.cards);
  assert.match(await page.getByTestId('session-compressed').innerText(),
    new RegExp(`zstd: ${fileBytes('session.jsonl.zst').length.toLocaleString('en')} bytes to ${fileBytes('session.jsonl').length.toLocaleString('en')} bytes`));
  // A compressed file cannot be followed.
  if (await page.getByTestId('follow-toggle').isVisible()) assert.equal(await page.getByTestId('follow').isDisabled(), true);
});

test('a seq-less log dropped on the page', async () => {
  const bytes = fileBytes('seqless.jsonl');
  const expected = libraryRead(bytes);
  await page.evaluate((data) => {
    const transfer = new DataTransfer();
    transfer.items.add(new File([new Uint8Array(data)], 'seqless.jsonl'));
    for (const type of ['dragenter', 'dragover', 'drop']) {
      document.body.dispatchEvent(new DragEvent(type, { bubbles: true, cancelable: true, dataTransfer: transfer }));
    }
  }, [...bytes]);
  await statusMentions('Opened seqless.jsonl');
  await expectHeader(expected.session);
  assert.deepEqual(await cardKeys(), expected.cards);
});

test('a format 2 log is refused with its code; the open log stays', async () => {
  const before = await cardKeys();
  await page.getByTestId('open-log').setInputFiles({ name: 'format2.jsonl', mimeType: 'application/json', buffer: fileBytes('format2.jsonl') });
  const banner = page.getByTestId('error');
  await banner.waitFor({ state: 'visible' });
  assert.match(await banner.innerText(), /Could not open format2\.jsonl[\s\S]*UNSUPPORTED_FORMAT_VERSION/);
  assert.deepEqual(await cardKeys(), before);
  await banner.getByRole('button', { name: 'Dismiss' }).click();
});

test('Follow: a chosen file that grows is fed its new bytes; markup in the header stays text', async () => {
  assert.equal(await page.getByTestId('follow-toggle').isVisible(), true, 'Chromium has showOpenFilePicker');
  const whole = fileBytes('session.jsonl');
  const header = JSON.parse(whole.subarray(0, whole.indexOf(0x0a)).toString('utf8'));
  const marked = { ...header, cwd: '<img src=x onerror="window.__xss=1">' };
  const text = Buffer.concat([Buffer.from(JSON.stringify(marked)), whole.subarray(whole.indexOf(0x0a))]);
  const expected = libraryRead(text);
  // Cut inside the first prompt's multi-byte characters: the first read has a torn line.
  const cut = text.indexOf(Buffer.from('提示词', 'utf8')) + 1;
  const firstPart = libraryRead(text.subarray(0, cut));
  assert.ok(firstPart.tornTail, 'the first part ends torn');
  await page.evaluate((data) => {
    let bytes = new Uint8Array(data);
    window.__grow = (more) => {
      const next = new Uint8Array(bytes.length + more.length);
      next.set(bytes);
      next.set(new Uint8Array(more), bytes.length);
      bytes = next;
    };
    const handle = { kind: 'file', name: 'live.jsonl', getFile: async () => new File([bytes], 'live.jsonl') };
    window.showOpenFilePicker = async () => [handle];
  }, [...text.subarray(0, cut)]);
  await page.getByTestId('open-log').click();
  await statusMentions('Opened live.jsonl');
  assert.match(await page.getByTestId('torn-tail').innerText(), new RegExp(`line ${firstPart.tornTail.line}`));
  assert.deepEqual(await cardKeys(), firstPart.cards);
  assert.equal(await page.getByTestId('follow').isEnabled(), true);
  await page.getByTestId('follow').check();
  await page.getByTestId('follow-state').waitFor();
  const middle = Math.floor(text.length * 0.6);
  await page.evaluate((data) => window.__grow(data), [...text.subarray(cut, middle)]);
  await page.waitForFunction(() => document.querySelector('#status')?.textContent.startsWith('Followed'));
  await page.evaluate((data) => window.__grow(data), [...text.subarray(middle)]);
  await page.waitForFunction((n) => document.querySelectorAll('[data-testid="chat-card"]').length === n && /Followed/.test(document.querySelector('#status')?.textContent), expected.cards.length);
  await page.waitForFunction(() => !document.querySelector('[data-testid="torn-tail"]'));
  assert.deepEqual(await cardKeys(), expected.cards);
  assert.equal(await page.getByTestId('session-cwd').innerText(), marked.cwd, 'the cwd is shown literally');
  assert.equal(await page.locator('img').count(), 0);
  assert.equal(await page.evaluate(() => window.__xss), undefined);
  assert.match(await page.getByTestId('follow-state').innerText(), new RegExp(`${(text.length - cut).toLocaleString('en')} new bytes`));
  await page.getByTestId('follow').uncheck();
  assert.equal(await page.getByTestId('follow-state').count(), 0);
});

test('a file over the page\'s 48 KiB opens in the worker; a JSON array of that size on the page', async () => {
  const events = [...sessionEvents({ profile: 'small', seed: 5, maxBytes: 120_000 })];
  const lines = Buffer.from(events.map((event) => `${JSON.stringify(event)}\n`).join(''));
  assert.ok(lines.length > 48 << 10, 'the file is over the threshold (www/big-session.js: SMALL_FILE_BYTES)');
  const expected = new Conversation();
  try {
    expected.loadJson(lines);
    const counts = expected.viewCounts();
    await page.getByTestId('open-log').setInputFiles({ name: 'mid.jsonl', mimeType: 'application/octet-stream', buffer: lines });
    await page.waitForFunction(() => document.querySelector('#big-session')?.dataset.state === 'loaded');
    assert.equal(await page.locator('#layout').isVisible(), false);
    assert.equal(await page.getByTestId('big-session').getAttribute('data-cards'), String(counts.cards));
    assert.equal(await page.getByTestId('big-session').getAttribute('data-requests'), String(counts.requests));
  } finally {
    expected.free();
  }
  const array = Buffer.from(JSON.stringify(events));
  await open('mid.json', array);
  assert.equal(await page.locator('#layout').isVisible(), true);
  assert.equal(await page.getByTestId('big-session').isVisible(), false);
  assert.deepEqual(await cardKeys(), libraryRead(array).cards);
});

test('no console errors or page errors', () => {
  assert.deepEqual(demo.problems, []);
});
