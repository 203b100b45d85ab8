// The packed npm package, installed into a fresh project as a user would: `require`, `import`,
// the web build through `initSync`, promptfold/worker in a worker_threads worker, and the files
// and types the package.json promises.
import { test } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { mkdtempSync, writeFileSync, existsSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { repoRoot } from "./cases.mjs";

const pkg = join(repoRoot, "pkg");

test("the packed package installs and loads from CommonJS, ESM and the web build", { timeout: 120_000 }, () => {
  assert.ok(existsSync(join(pkg, "package.json")), "pkg/ is missing: run scripts/build.sh first");
  const work = mkdtempSync(join(tmpdir(), "promptfold-smoke-"));
  try {
    const packed = JSON.parse(execFileSync("npm", ["pack", "--json", "--pack-destination", work], { cwd: pkg, encoding: "utf8" }));
    const files = packed[0].files.map((file) => file.path);
    for (const needed of ["package.json", "README.md", "node/promptfold.js", "node/promptfold.mjs", "node/promptfold_wasm.js",
      "node/promptfold.d.ts", "web/promptfold.js", "web/promptfold_bg.wasm", "web/promptfold.d.ts",
      "bundler/promptfold.js", "bundler/promptfold_bg.wasm", "bundler/promptfold.d.ts",
      "worker/client.js", "worker/serve.js", "worker/web.js", "worker/node.mjs", "worker/index.d.ts"]) {
      assert.ok(files.includes(needed), `the tarball holds ${needed}`);
    }
    assert.ok(!files.includes("node/promptfold_bg.wasm"), "the Node build ships its wasm embedded only");
    const tarball = join(work, packed[0].filename);
    writeFileSync(join(work, "package.json"), JSON.stringify({ name: "smoke", private: true, type: "module" }));
    execFileSync("npm", ["install", "--no-audit", "--no-fund", "--offline", tarball], { cwd: work, stdio: "pipe" });

    const log = JSON.stringify([
      { seq: 1, time: 1, type: "system/message", surfaceOp: "append", data: { turn: 1, step: 1, message: { content: [{ type: "text", text: "A" }] } } },
      { seq: 2, time: 2, type: "request/header", data: { reason: "initial", header: { config: {}, tools: [] } } },
    ]);
    const scripts = {
      "cjs.cjs": `const { Conversation } = require("promptfold");
        const c = new Conversation(); c.loadJson(${JSON.stringify(log)});
        console.log(c.stateAt(2).effective.text + c.views().chat.length);`,
      "esm.mjs": `import { Conversation, inspectSystemPrompt } from "promptfold";
        import whole from "promptfold";
        const c = new Conversation(); c.loadJson(${JSON.stringify(log)});
        console.log(c.stateAt(2).effective.text + c.views().chat.length + typeof inspectSystemPrompt + typeof whole.Conversation);`,
      "web.mjs": `import { readFileSync } from "node:fs";
        import { createRequire } from "node:module";
        import { initSync, Conversation } from "promptfold/web";
        const require = createRequire(import.meta.url);
        initSync({ module: readFileSync(require.resolve("promptfold/web/promptfold_bg.wasm")) });
        const c = new Conversation(); c.loadJson(${JSON.stringify(log)});
        console.log(c.stateAt(2).effective.text + c.views().chat.length);`,
      "worker.mjs": `import { createRequire } from "node:module";
        import { Worker } from "node:worker_threads";
        import { WorkerConversation } from "promptfold/worker";
        const require = createRequire(import.meta.url);
        const worker = new WorkerConversation(new Worker(require.resolve("promptfold/worker/node")));
        const rows = ${JSON.stringify(log)};
        const lines = JSON.parse(rows).map((row) => JSON.stringify(row)).join("\\n");
        const opened = await worker.open(new TextEncoder().encode(lines));
        const state = await worker.call("stateAt", 2);
        console.log(state.effective.text + opened.info.counts.cards);
        worker.terminate();`,
    };
    const outputs = {};
    for (const [name, source] of Object.entries(scripts)) {
      writeFileSync(join(work, name), source);
      outputs[name] = execFileSync("node", [name], { cwd: work, encoding: "utf8" }).trim();
    }
    assert.equal(outputs["cjs.cjs"], "A1");
    assert.equal(outputs["esm.mjs"], "A1functionfunction");
    assert.equal(outputs["web.mjs"], "A1");
    assert.equal(outputs["worker.mjs"], "A1");
    const manifest = JSON.parse(readFileSync(join(work, "node_modules", "promptfold", "package.json"), "utf8"));
    assert.equal(manifest.name, "promptfold");
    assert.ok(manifest.exports["."].node.import.types.endsWith(".d.mts"));
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
});
