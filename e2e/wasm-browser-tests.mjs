// Runs the crate's wasm-bindgen browser tests (tests/web.rs) in Debian's headless Chromium: the
// test runner generates the test page's files, this script serves them and drives the page with
// playwright-core.
//
// Why not `wasm-pack test --headless --chrome`: on this project's 2-core machines its page often
// stays at "Loading scripts..." until chromedriver gives up ("Timed out receiving message from
// renderer"): 3 of 5 runs under load average 5-10 on 2026-12-05, and a CI run failed on it after
// three attempts. Driving the runner's own server with playwright showed why: the page's requests
// for the JS snippets (`snippets/promptfold-*/src/wasm/js/pack.js`, `text.js`) were never
// answered by the runner's HTTP server (8 runs under load: 5 pages stuck that way, 3 of them
// three times in a row on one server). So the runner only writes the files
// (NO_HEADLESS=1 WASM_BINDGEN_KEEP_TEST_BUILD=1; it is stopped once it serves them) and
// node:http serves them here.
//
//   node e2e/wasm-browser-tests.mjs [cargo test arguments...]   (default: --features wasm --test web)
// Exit status 0 only when the page reports "test result: ok" with at least one test passed.

import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { readFile, rm } from 'node:fs/promises';
import http from 'node:http';
import { homedir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromiumPath, hasChromium, launchChromium } from './chromium.mjs';

const root = fileURLToPath(new URL('..', import.meta.url));
const runner = process.env.WASM_BINDGEN_TEST_RUNNER || `${homedir()}/.cargo/bin/wasm-bindgen-test-runner`;
const cargoArgs = process.argv.length > 2 ? process.argv.slice(2) : ['--features', 'wasm', '--test', 'web'];
const buildWaitMs = Number(process.env.BROWSER_BUILD_WAIT_MS || 900_000);
const startWaitMs = Number(process.env.BROWSER_START_WAIT_MS || 30_000);
const testWaitMs = Number(process.env.BROWSER_TEST_WAIT_MS || 120_000);
const attempts = 3;

// The page contract of wasm-bindgen-test-runner's interactive page: an element #output the
// harness writes its report into, console methods that also call the harness's
// `window.on_console_<method>` hooks, `__wbg_test_invoke`, and run.js as a module.
const indexHtml = `<!DOCTYPE html>
<html><head><meta charset="utf-8"></head>
<body>
<pre id="output">Loading scripts...</pre>
<script>
  const is_bench = false;
  for (const method of ['debug', 'log', 'info', 'warn', 'error']) {
    const original = console[method];
    console[method] = function (...args) {
      const hook = window['on_console_' + method];
      if (hook) hook(args);
      original.apply(this, args);
    };
  }
  window.__wbg_test_invoke = (f) => f();
</script>
<script src="run.js" type="module"></script>
</body></html>
`;

const contentTypes = { '.js': 'text/javascript', '.mjs': 'text/javascript', '.wasm': 'application/wasm', '.html': 'text/html' };

function fail(message) {
  console.error(`wasm browser tests: ${message}`);
  process.exitCode = 1;
}

/**
 * Builds the tests and lets the runner write the page's files; resolves with their folder. The
 * runner is stopped as soon as it starts serving them.
 */
function generatePage() {
  const child = spawn('cargo', ['test', '--target', 'wasm32-unknown-unknown', ...cargoArgs], {
    cwd: root,
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: {
      ...process.env,
      CARGO_TARGET_WASM32_UNKNOWN_UNKNOWN_RUNNER: runner,
      NO_HEADLESS: '1',
      WASM_BINDGEN_KEEP_TEST_BUILD: '1',
      WASM_BINDGEN_TEST_ONLY_WEB: '1',
      WASM_BINDGEN_TEST_ADDRESS: '127.0.0.1:0',
    },
  });
  const stop = () => {
    try {
      process.kill(-child.pid, 'SIGKILL');
    } catch {
      // already gone
    }
  };
  return new Promise((resolve, reject) => {
    let seen = '';
    const timer = setTimeout(() => {
      stop();
      reject(new Error(`the tests were not built and served in ${buildWaitMs} ms`));
    }, buildWaitMs);
    const watch = (chunk) => {
      process.stderr.write(chunk);
      seen += chunk;
      const folder = /Retaining temporary build output folder: (.+)\n/.exec(seen);
      if (folder && /available at http:\/\//.test(seen)) {
        clearTimeout(timer);
        stop();
        resolve(folder[1].trim());
      }
    };
    child.stdout.on('data', watch);
    child.stderr.on('data', watch);
    child.on('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`cargo test exited (${code}) before the test page was written`));
    });
  });
}

/** Serves the page's folder on a free port of 127.0.0.1; resolves with the server. */
function serve(folder) {
  const server = http.createServer(async (request, response) => {
    const url = new URL(request.url ?? '/', 'http://127.0.0.1');
    if (url.pathname === '/') {
      response.writeHead(200, { 'content-type': 'text/html', 'cache-control': 'no-store' });
      response.end(indexHtml);
      return;
    }
    let file = path.join(folder, path.normalize(decodeURIComponent(url.pathname)));
    if (!file.startsWith(folder + path.sep)) {
      response.writeHead(403).end();
      return;
    }
    // The generated modules import some paths without their extension.
    if (!path.extname(file) && !existsSync(file)) file += '.js';
    try {
      const body = await readFile(file);
      const type = contentTypes[path.extname(file)] ?? 'application/octet-stream';
      response.writeHead(200, { 'content-type': type, 'cache-control': 'no-store' });
      response.end(body);
    } catch {
      response.writeHead(404).end();
    }
  });
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve(server));
  });
}

/** Opens the page once; resolves with its report, or null when the page never started. */
async function runPage(browser, url, problems) {
  const page = await browser.newPage();
  const pending = new Map();
  page.on('console', (message) => problems.push(`console ${message.type()}: ${message.text()}`));
  page.on('pageerror', (error) => problems.push(`page error: ${error.stack ?? error.message}`));
  page.on('request', (request) => pending.set(request, Date.now()));
  page.on('requestfinished', (request) => pending.delete(request));
  page.on('requestfailed', (request) => {
    pending.delete(request);
    problems.push(`request failed: ${request.url()} ${request.failure()?.errorText}`);
  });
  const reportPending = () => {
    for (const [request, since] of pending) {
      problems.push(`request still pending after ${Date.now() - since} ms: ${request.method()} ${request.url()}`);
    }
  };
  try {
    await page.goto(url, { waitUntil: 'commit', timeout: startWaitMs });
    const opened = Date.now();
    let printed = 0;
    for (;;) {
      const output = (await page.textContent('#output', { timeout: startWaitMs })) ?? '';
      const started = !output.startsWith('Loading scripts');
      if (started && output.length > printed) {
        process.stdout.write(output.slice(printed));
        printed = output.length;
      }
      if (output.includes('test result: ')) return output;
      const waited = Date.now() - opened;
      if (!started && waited > startWaitMs) {
        reportPending();
        return null;
      }
      if (waited > testWaitMs) {
        reportPending();
        return output;
      }
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  } finally {
    await page.close().catch(() => {});
  }
}

async function main() {
  if (!hasChromium()) return fail(`no Chromium at ${chromiumPath} (apt-get install -y chromium)`);
  if (!existsSync(runner)) return fail(`no wasm-bindgen-test-runner at ${runner} (bash scripts/setup.sh installs it)`);
  const folder = await generatePage();
  const server = await serve(folder);
  let browser;
  try {
    const url = `http://127.0.0.1:${server.address().port}/`;
    browser = await launchChromium({ timeout: 60_000 });
    for (let attempt = 1; attempt <= attempts; attempt++) {
      const problems = [];
      const output = await runPage(browser, url, problems);
      if (output !== null) {
        if (!/test result: ok\. [1-9][0-9]* passed/.test(output)) {
          if (problems.length > 0) console.log(`\nthe page's console:\n${problems.join('\n')}`);
          fail(output.includes('test result: ') ? 'a test failed' : `no result after ${testWaitMs} ms`);
        }
        return;
      }
      console.log(`attempt ${attempt}: the page never ran its scripts in ${startWaitMs} ms; what it reported:`);
      console.log(problems.length > 0 ? problems.join('\n') : '(nothing)');
    }
    fail(`the test page never started in ${attempts} attempts`);
  } finally {
    await browser?.close().catch(() => {});
    server.close();
    await rm(folder, { recursive: true, force: true });
  }
}

main().catch((error) => fail(error.stack ?? String(error)));
