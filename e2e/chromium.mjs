// Debian's Chromium (never a downloaded browser), launched headless with the flags every test of
// this folder uses: shared by the demo's harness and the wasm-bindgen browser tests.
import { existsSync } from 'node:fs';
import { chromium } from 'playwright-core';

/** Where Chromium is: `CHROMIUM_PATH`, else Debian's `/usr/bin/chromium`. */
export const chromiumPath = process.env.CHROMIUM_PATH || '/usr/bin/chromium';

/** Whether Chromium is installed where `chromiumPath` says. */
export function hasChromium() {
  return existsSync(chromiumPath);
}

/** Launches headless Chromium without sandbox, GPU or background traffic. */
export function launchChromium({ timeout }) {
  return chromium.launch({
    executablePath: chromiumPath,
    headless: true,
    timeout,
    args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage', '--no-first-run',
      '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
}
