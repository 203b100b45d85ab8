// Compares zstd decoders for the demo's "Open a log" (docs/demo-zstd.md): decode time of a
// session log of about 40 and 70 MB (median of 7 runs, the decoders taking turns in each run) and
// the gzip -9 size of what the page would load. The candidates are not dependencies of the
// repository; install them beside it first:
//
//   npm install --no-save fzstd@0.1.1 zstddec@0.3.4 @bokuweb/zstd-wasm@0.0.27
//   node bench/js/zstd-decoders.mjs [MB ...]          (default: 40 70; needs the zstd command)
//
// The log: examples/sessions/session.jsonl's header row, then the events of tests/js/huge.mjs's
// "large" profile (seed 7), compressed by `zstd -3` twice: as a file (the frame records the size)
// and from a pipe (it does not, as a writer that streams leaves it). With pkg/node built, it also
// times loadJson of the decoded bytes, for scale.

import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { sessionEvents } from '../../tests/js/kit/session.mjs';

const { decompress: fzstd } = await import('fzstd');
const { ZSTDDecoder } = await import('zstddec');
const bokuweb = await import('@bokuweb/zstd-wasm');
const zstddec = new ZSTDDecoder();
await zstddec.init();
await bokuweb.init();

const header = readFileSync(new URL('../../examples/sessions/session.jsonl', import.meta.url), 'utf8').split('\n')[0];

/** A valid log of about `bytes` bytes: a header row, then tests/js/huge.mjs's "large" profile. */
function makeLog(bytes) {
  const rows = [header];
  for (const event of sessionEvents({ profile: 'large', seed: 7, maxBytes: bytes })) rows.push(JSON.stringify(event));
  return `${rows.join('\n')}\n`;
}

// For scale: loading the decoded log into the library (the Node build, when it is there).
const library = await import('../pkg/node/promptfold.mjs').catch(() => undefined);
function loadMs(bytes) {
  if (!library) return NaN;
  const times = [];
  for (let run = 0; run < 3; run++) {
    const conversation = new library.Conversation();
    try {
      const start = performance.now();
      conversation.loadJson(bytes);
      times.push(performance.now() - start);
    } catch (error) {
      console.log(`loadJson failed (${error.code}): a build without session headers?`);
      return NaN;
    } finally {
      conversation.free();
    }
  }
  return median(times);
}

const median = (values) => [...values].sort((a, b) => a - b)[values.length >> 1];
const decoders = {
  fzstd: (input) => fzstd(input),
  zstddec: (input) => zstddec.decode(input),
  '@bokuweb/zstd-wasm': (input) => bokuweb.decompress(input),
};
const dir = mkdtempSync(join(tmpdir(), 'zstd-bench-'));
try {
  for (const mb of (process.argv.length > 2 ? process.argv.slice(2) : ['40', '70']).map(Number)) {
    const log = join(dir, `log-${mb}.jsonl`);
    writeFileSync(log, makeLog(mb * 1e6));
    const plain = readFileSync(log);
    console.log(`${(plain.length / 1e6).toFixed(1)} MB log: loadJson of the decoded bytes ${loadMs(new Uint8Array(plain)).toFixed(0)} ms (median of 3)`);
    const inputs = {
      'file (size in frame)': execFileSync('zstd', ['-q', '-3', '-c', log], { maxBuffer: 1 << 30 }),
      'pipe (no size)': execFileSync('sh', ['-c', `cat "${log}" | zstd -q -3`], { maxBuffer: 1 << 30 }),
    };
    for (const [kind, compressed] of Object.entries(inputs)) {
      const input = new Uint8Array(compressed);
      const times = Object.fromEntries(Object.keys(decoders).map((name) => [name, []]));
      const outcome = {};
      for (let run = 0; run < 7; run++) {
        for (const [name, decode] of Object.entries(decoders)) {
          const start = performance.now();
          try {
            const out = decode(input);
            times[name].push(performance.now() - start);
            outcome[name] = Buffer.compare(Buffer.from(out.buffer, out.byteOffset, out.length), plain) === 0 ? 'ok' : 'WRONG OUTPUT';
          } catch (error) {
            outcome[name] = `error: ${error.message}`;
          }
        }
      }
      const base = median(times.fzstd);
      for (const name of Object.keys(decoders)) {
        const ms = times[name].length ? median(times[name]) : NaN;
        console.log(`${(plain.length / 1e6).toFixed(1)} MB, ${(input.length / 1e6).toFixed(1)} MB zstd, ${kind}\t${name}\t${ms.toFixed(0)} ms\t${(ms / base).toFixed(2)}x fzstd\t${outcome[name]}`);
      }
    }
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}

// What the page loads for each: the module, and the wasm where it is a separate file.
const pkg = (name) => fileURLToPathSafe(`../node_modules/${name}`);
const files = {
  fzstd: [join(pkg('fzstd'), 'esm/index.mjs')],
  zstddec: [join(pkg('zstddec'), 'dist/zstddec.mjs')],
  '@bokuweb/zstd-wasm': ['zstd.wasm', 'zstd.js', 'index.web.js', 'module.js', 'simple/decompress.js', 'errors/index.js']
    .map((file) => join(pkg('@bokuweb/zstd-wasm'), 'dist/web', file)),
};
for (const [name, paths] of Object.entries(files)) {
  const bytes = Buffer.concat(paths.map((path) => readFileSync(path)));
  const gzip = paths.reduce((sum, path) => sum + gzipSync(readFileSync(path), { level: 9 }).length, 0);
  console.log(`${name}\t${bytes.length} bytes\t${gzip} bytes gzip -9`);
}

// Bad input: a truncated file, flipped bytes, and a plain log that is not zstd at all.
const sample = new Uint8Array(execFileSync('zstd', ['-q', '-3', '-c', fileURLToPathSafe('../examples/sessions/session.jsonl')]));
const flipped = sample.slice();
for (let i = 20; i < 40 && i < flipped.length; i++) flipped[i] ^= 0x5a;
const bad = { truncated: sample.subarray(0, sample.length >> 1), flipped, 'not zstd': new TextEncoder().encode('{"type":"session"}\n') };
for (const [kind, input] of Object.entries(bad)) {
  for (const [name, decode] of Object.entries(decoders)) {
    let result;
    try { result = `returned ${decode(input).length} bytes`; } catch (error) { result = `threw: ${error.message}`; }
    console.log(`bad input, ${kind}\t${name}\t${result}`);
  }
}

function fileURLToPathSafe(relative) {
  return new URL(relative, import.meta.url).pathname;
}
