// The bundled session is generated: www/sample-session.json must equal what www/make-sample.mjs
// writes (the script also checks the page layout the demo relies on, and exits 1 if it breaks).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';

test('www/sample-session.json is what www/make-sample.mjs generates', async () => {
  const { sampleText } = await import('../www/make-sample.mjs');
  const onDisk = readFileSync(new URL('../www/sample-session.json', import.meta.url), 'utf8');
  assert.ok(onDisk === sampleText, 'stale sample: run `node www/make-sample.mjs` and commit the result');
  const events = JSON.parse(onDisk);
  assert.ok(events.length >= 150 && events.length <= 400, `${events.length} events`);
});
