// Serves www/ (python3 -m http.server on a free port) and opens it in Debian's headless Chromium
// through playwright-core, for the end-to-end tests. Records console errors, page errors and
// failed requests in `problems`.

import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import net from 'node:net';
import { fileURLToPath } from 'node:url';
import { chromiumPath, hasChromium, launchChromium } from './chromium.mjs';

export const www = fileURLToPath(new URL('../www/', import.meta.url));

/** A free TCP port on 127.0.0.1. */
export function freePort() {
  return new Promise((resolve, reject) => {
    const probe = net.createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address();
      probe.close(() => resolve(port));
    });
  });
}

/** Starts the server and the browser, opens the page and waits until it is ready. */
export async function startDemo() {
  for (const file of ['pkg/promptfold.js', 'pkg/promptfold_bg.wasm', 'vendor/fzstd.mjs', 'worker/client.js']) {
    if (!existsSync(new URL(file, `file://${www}`))) {
      throw new Error(`www/${file} is missing. Build it first: bash scripts/demo.sh --build-only`);
    }
  }
  if (!hasChromium()) throw new Error(`no Chromium at ${chromiumPath}: apt-get install -y chromium (or set CHROMIUM_PATH)`);
  const port = await freePort();
  const baseUrl = `http://127.0.0.1:${port}/`;
  let log = '';
  const server = spawn('python3', ['-m', 'http.server', String(port), '--bind', '127.0.0.1', '--directory', www], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  server.stdout.on('data', (chunk) => { log += chunk; });
  server.stderr.on('data', (chunk) => { log += chunk; });
  const deadline = Date.now() + 15000;
  for (;;) {
    if (server.exitCode !== null) throw new Error(`the http server exited (${server.exitCode}):\n${log}`);
    try {
      if ((await fetch(baseUrl, { signal: AbortSignal.timeout(1000) })).ok) break;
    } catch { /* not up yet */ }
    if (Date.now() > deadline) throw new Error(`the http server did not answer at ${baseUrl}:\n${log}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  const browser = await launchChromium({ timeout: 30000 });
  const page = await (await browser.newContext({ viewport: { width: 1440, height: 900 } })).newPage();
  page.setDefaultTimeout(10000);
  const problems = [];
  page.on('console', (message) => {
    if (message.type() === 'error') problems.push(`console error: ${message.text()}`);
  });
  page.on('pageerror', (error) => problems.push(`page error: ${error.stack ?? error.message}`));
  page.on('requestfailed', (request) => problems.push(`request failed: ${request.url()} ${request.failure()?.errorText}`));
  await page.goto(baseUrl, { waitUntil: 'load' });
  await page.waitForSelector('body[data-ready]', { timeout: 15000 });
  if ((await page.getAttribute('body', 'data-ready')) !== 'true') {
    throw new Error(`the page did not start: ${await page.getByTestId('error').innerText().catch(() => '(no banner)')}`);
  }
  const close = async () => {
    await browser.close().catch(() => {});
    if (server.exitCode === null) server.kill('SIGTERM');
  };
  return { page, problems, close };
}
