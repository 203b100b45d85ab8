// Opens a page in Debian's headless Chromium (driven by playwright-core, no browser download) and
// reads what the probe rendered, with every page error, console error and failed request, and the
// gzip size of every response (what a server compressing with gzip -9 would send).
import { chromium } from "playwright-core";
import { gzipSync } from "node:zlib";

const executablePath = process.env.CHROMIUM ?? "/usr/bin/chromium";

/** Starts the one browser a run shares. */
export function launch() {
  return chromium.launch({ executablePath, args: ["--no-sandbox"] });
}

/**
 * Loads `url`, waits for the probe to finish (`body[data-status]`) and returns
 * `{ results, problems, responses }`: `results` maps the id of each `pre[id$=result]` on the page
 * to its parsed JSON (see shared/probe.js), `problems` lists every page error, console error,
 * failed request and HTTP error, `responses` each response's URL, resource type and gzip bytes.
 */
export async function visit(browser, url, { timeout = 90_000 } = {}) {
  const page = await browser.newPage();
  const problems = [];
  const responses = [];
  const pending = [];
  let failed;
  const failure = new Promise((resolve) => {
    failed = resolve;
  });
  page.on("pageerror", (error) => {
    problems.push(`page error: ${error.message}`);
    failed();
  });
  // The browser asks every server for /favicon.ico; the apps have none.
  const favicon = (url) => url && new URL(url).pathname === "/favicon.ico";
  page.on("console", (message) => {
    if (message.type() === "error" && !favicon(message.location().url)) {
      problems.push(`console error: ${message.text()}`);
    }
  });
  page.on("requestfailed", (request) => {
    problems.push(`request failed: ${request.url()} (${request.failure()?.errorText})`);
  });
  page.on("response", (response) => {
    if (favicon(response.url())) return;
    if (response.status() >= 400) problems.push(`HTTP ${response.status()}: ${response.url()}`);
    pending.push(
      response
        .body()
        .then((body) => {
          const type = response.request().resourceType();
          responses.push({ url: response.url(), type, gzip: gzipSync(body, { level: 9 }).length });
        })
        .catch(() => {}),
    );
  });
  try {
    await page.goto(url, { timeout });
    await Promise.race([page.waitForSelector("body[data-status]", { timeout }), failure]);
    const texts = await page.evaluate(() =>
      [...document.querySelectorAll("pre[id$=result]")].map((pre) => [pre.id, pre.textContent]),
    );
    const results = {};
    for (const [id, text] of texts) {
      try {
        results[id] = JSON.parse(text);
      } catch {
        problems.push(`#${id} is not JSON: ${text.slice(0, 200)}`);
      }
    }
    await Promise.all(pending);
    return { results, problems, responses };
  } catch (error) {
    problems.push(`no result: ${error.message.split("\n")[0]}`);
    return { results: {}, problems, responses };
  } finally {
    await page.close();
  }
}
