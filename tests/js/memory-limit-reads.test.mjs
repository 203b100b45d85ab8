// Read calls near the memory limit: a typed OUT_OF_MEMORY, never an abort. As in
// memory-limit.test.mjs, the web build's module runs with its memory capped at MAX_MIB. A window
// is loaded, and what every read call gives is kept; the memory is then filled with other windows,
// ever closer to its limit, and at each step every read call must give the same again or throw
// OUT_OF_MEMORY (an abort, `RuntimeError: unreachable`, would end every conversation of the
// module). At the end a small read of the window works, the fillers are freed, and every call
// gives what it gave before.
//
// PROMPTFOLD_WEB=dir tests another web build (the folder of promptfold.js and its .wasm).
import { test } from "node:test";
import assert from "node:assert/strict";
import { cappedPromptfold } from "./kit/memory.mjs";
import { sessionLog } from "./kit/session.mjs";

const MiB = 1024 * 1024;
const MAX_MIB = 96;
const { Conversation, wasmMemoryBytes } = await cappedPromptfold(MAX_MIB);

/** JSON lines text of a small-profile session of `count` events after a header. */
function log(count, seed) {
  return sessionLog("s-limit", { profile: "small", seed, maxEvents: count }, 1_700_000_000_000);
}

const ALL = { start: 0, end: Number.MAX_SAFE_INTEGER };
const FEW = { start: 3, end: 6 };

/** The read calls whose results hold a list as long as the window, by name. */
const READS = {
  views: (c) => c.views(),
  lines: (c) => c.lines(),
  cardsSlice: (c) => c.cardsSlice(ALL),
  requestsSlice: (c) => c.requestsSlice(ALL),
  linesSlice: (c) => c.linesSlice(ALL),
  cacheLedger: (c) => c.cacheLedger(),
};

/** The read calls of a few rows, which must work whenever a little memory is left. */
const SMALL_READS = {
  cardsSlice: (c) => c.cardsSlice(FEW),
  requestsSlice: (c) => c.requestsSlice(FEW),
  linesSlice: (c) => c.linesSlice(FEW),
};

function results(conversation, reads) {
  return Object.fromEntries(Object.entries(reads).map(([name, read]) => [name, JSON.stringify(read(conversation))]));
}

test("read calls near the memory limit give their result or OUT_OF_MEMORY, and the window stays usable", () => {
  const window = new Conversation();
  window.loadJson(log(12_000, 3));
  const expected = results(window, READS);
  const expectedSmall = results(window, SMALL_READS);
  const refused = Object.fromEntries(Object.keys(READS).map((name) => [name, 0]));
  const fillers = [];
  let probes = 0;
  // JSON text loads take a 1 MiB piece buffer each: the last fillers are loaded as objects.
  const phases = [
    [4_000, "text"],
    [800, "text"],
    [160, "text"],
    [30, "objects"],
    [4, "objects"],
  ];
  for (const [count, as] of phases) {
    const text = log(count, 11);
    const events = text.trim().split("\n").map((line) => JSON.parse(line));
    let failures = 0;
    while (failures < 3) {
      const filler = new Conversation();
      try {
        if (as === "text") filler.loadJson(text);
        else filler.load(events);
        fillers.push(filler);
      } catch (error) {
        assert.equal(error.code, "OUT_OF_MEMORY", `${count} events: ${error}`);
        filler.free();
        failures += 1;
      }
      // Far from the limit every read works: the reads are tried once the large fillers no
      // longer fit.
      if (count === 4_000 && failures === 0) continue;
      probes += 1;
      for (const [name, read] of Object.entries(READS)) {
        let got;
        try {
          got = JSON.stringify(read(window));
        } catch (error) {
          assert.equal(error.code, "OUT_OF_MEMORY", `${name} near the limit: ${error}`);
          refused[name] += 1;
          continue;
        }
        assert.equal(got, expected[name], `${name} near the limit`);
      }
    }
  }
  assert.ok(wasmMemoryBytes() <= MAX_MIB * MiB);
  assert.ok(probes > 10, `the reads were tried near the limit (${probes} times)`);
  for (const [name, times] of Object.entries(refused)) {
    assert.ok(times > 0, `${name} was meant to run out of memory at least once`);
  }
  // The memory is full to the last small window: a read of a few rows still works.
  assert.deepEqual(results(window, SMALL_READS), expectedSmall);
  for (const filler of fillers) filler.free();
  assert.deepEqual(results(window, READS), expected);
  const after = new Conversation();
  after.loadJson(log(2_000, 7));
  assert.ok(after.length > 0);
  after.free();
  window.free();
});

test("lines() of a window whose every line holds thousands of replacements throws OUT_OF_MEMORY", () => {
  // Each line carries its own copy of the state's replacements, which a prune-heavy log gathers
  // by the thousand: the lines of this window need several times the memory (as those of
  // bench/data/prune-32k need more than 4 GiB), though the window itself fits.
  const options = { profile: "small", seed: 5, maxEvents: 12_000, pruneEvery: 1, compactEvery: 1e9, rewriteEvery: 1e9 };
  const window = new Conversation();
  window.loadJson(sessionLog("s-prunes", options, 1_700_000_000_000));
  const last = window.linesSlice({ start: window.length - 1, end: window.length }).lines[0];
  assert.ok(last.system.replacements.length > 1_000, `${last.system.replacements.length} replacements`);
  const before = JSON.stringify(window.views());
  assert.throws(
    () => window.lines(),
    (error) => error.code === "OUT_OF_MEMORY",
  );
  assert.throws(
    () => window.linesSlice({ start: 0, end: window.length }),
    (error) => error.code === "OUT_OF_MEMORY",
  );
  assert.equal(JSON.stringify(window.views()), before);
  assert.equal(window.linesSlice({ start: 0, end: 20 }).lines.length, 20);
  window.free();
  const after = new Conversation();
  after.loadJson(log(2_000, 7));
  assert.ok(after.length > 0);
  after.free();
});
