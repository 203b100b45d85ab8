// Start-up of the two browser entries side by side, built by esbuild from the same page
// (shared/main.js): the default (web/index.js: the .wasm fetched and compiled as it streams, top-
// level await) and the inlined one (promptfold-inline: base64 in the JS, compiled synchronously).
// Each page is loaded RUNS times (default 9), alternating, in a fresh browser context (no cache),
// served gzipped, on the local link and on an emulated 4G link; prints the median time from
// navigation to the probe's result (data-ms), and the gzip -9 bytes of JS and wasm. Needs pkg/ built; run after run.mjs staged the esbuild app (or any full run).
//   node tests/bundlers/startup.mjs [RUNS]
import { execFileSync } from "node:child_process";
import { cpSync, mkdirSync, readFileSync, readdirSync, rmSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { gzipSync } from "node:zlib";
import { launch } from "./browser.mjs";
import { serve } from "./serve.mjs";

const here = dirname(fileURLToPath(import.meta.url));
const app = join(here, "apps", "esbuild");
const runs = Number(process.argv[2] ?? 9);
const variants = {
  streamed: ["--format=esm"],
  inlined: ["--format=esm", "--conditions=promptfold-inline"],
};

const root = join(here, ".work", "startup");
rmSync(root, { recursive: true, force: true });
const sizes = {};
for (const [name, flags] of Object.entries(variants)) {
  const out = join(root, name);
  mkdirSync(out, { recursive: true });
  execFileSync(join(app, "node_modules", ".bin", "esbuild"), ["src/main.js", "--bundle", "--minify", `--outdir=${out}`, ...flags], { cwd: app, stdio: "inherit" });
  if (name === "streamed") cpSync(join(app, "node_modules", "promptfold", "web", "promptfold_bg.wasm"), join(out, "promptfold_bg.wasm"));
  cpSync(join(here, "startup.html"), join(out, "index.html"));
  sizes[name] = { js: 0, wasm: 0 };
  for (const file of readdirSync(out)) {
    const gzip = gzipSync(readFileSync(join(out, file)), { level: 9 }).length;
    if (file.endsWith(".js")) sizes[name].js += gzip;
    if (file.endsWith(".wasm")) sizes[name].wasm += gzip;
  }
}

const server = await serve(root, { gzip: true });
// Local, and a 4G-like link (Chrome DevTools' figures: 9 Mbit/s down, 1.5 up, 60 ms latency).
const networks = {
  local: undefined,
  "4g": { offline: false, latency: 60, downloadThroughput: (9 * 1024 * 1024) / 8, uploadThroughput: (1.5 * 1024 * 1024) / 8 },
};
const browser = await launch();
const times = {};
try {
  for (let run = 0; run < runs; run++) {
    for (const [network, conditions] of Object.entries(networks)) {
      for (const name of Object.keys(variants)) {
        const context = await browser.newContext();
        const page = await context.newPage();
        if (conditions) {
          const cdp = await context.newCDPSession(page);
          await cdp.send("Network.enable");
          await cdp.send("Network.emulateNetworkConditions", conditions);
        }
        await page.goto(`${server.url}${name}/`);
        await page.waitForSelector("body[data-status]", { timeout: 60_000 });
        (times[`${name}, ${network}`] ??= []).push(Number(await page.evaluate(() => document.body.dataset.ms)));
        await context.close();
      }
    }
  }
} finally {
  await browser.close();
  await server.close();
}
const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
for (const name of Object.keys(variants)) {
  console.log(`${name}: gzip JS ${sizes[name].js}, wasm ${sizes[name].wasm}, total ${sizes[name].js + sizes[name].wasm}`);
}
for (const [key, values] of Object.entries(times)) {
  console.log(`${key}: median ${median(values).toFixed(0)} ms to the result over ${runs} loads (${values.map((t) => t.toFixed(0)).join(", ")})`);
}
