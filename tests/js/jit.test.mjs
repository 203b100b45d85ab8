// The optimized code of the JS that takes batches apart and builds results must survive full
// garbage collections between loads. V8 drops a hidden class once no object has it, and with it
// the optimized code built on it ("weak objects"); a class whose every instance died after each
// batch made each later batch run that JS unoptimized again (see keptPacker in
// src/wasm/js/pack.js). Reads V8's own trace of a child process (Node 20's format).
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";

const script = fileURLToPath(new URL("./jit-loads.mjs", import.meta.url));

// The function names in V8's trace lines that match `pattern`, by load (the markers before each).
function traced(output, pattern) {
  const byLoad = [];
  for (const line of output.split("\n")) {
    const marker = /^=== load (\d+)$/.exec(line);
    if (marker) byLoad[Number(marker[1])] = [];
    else if (pattern.test(line) && byLoad.length > 0) {
      const name = /<(?:SharedFunctionInfo|JSFunction) ([^ >]+)/.exec(line);
      byLoad[byLoad.length - 1].push(name ? name[1] : line);
    }
  }
  return byLoad;
}

test("optimized code outlives garbage collections between loads", () => {
  const run = spawnSync(process.execPath, ["--expose-gc", "--trace-opt", "--trace-deopt-verbose", script, "4000", "6"], {
    encoding: "utf8",
    maxBuffer: 256 << 20,
    env: process.env,
  });
  assert.equal(run.status, 0, run.stderr);
  const optimized = traced(run.stdout, /completed (optimizing|compiling)/).flat();
  // The trace must show the packer being optimized, or the check below would pass on nothing.
  // Which of its functions V8 compiles on its own depends on inlining (on a CI machine `members`
  // was inlined into `event` and never listed), so any of the per-event entry points will do.
  const packer = ["members", "event", "promptfoldPackBatch"];
  assert.ok(
    packer.some((name) => optimized.includes(name)),
    `no optimization of the packer in the trace: ${optimized.join(", ")}`,
  );
  const dropped = traced(run.stdout, /marking dependent code.*reason: weak objects/);
  assert.equal(dropped.length, 6);
  // The first two loads warm up; from the third on, nothing may be thrown away for dead objects.
  assert.deepEqual(dropped.slice(2).flat(), []);
});
