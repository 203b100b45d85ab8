// Running out of wasm memory is a typed error, not an abort: the web build's module is
// instantiated with its memory capped at MAX_MIB (its memory section given a maximum, as a
// stand-in for wasm32's 4 GiB), and a log too large for it is given to loadJson, feed and
// prepend. Each call must throw OUT_OF_MEMORY, leave its conversation as it was, and leave the
// module working. `node bench/js/memory-ceiling.mjs` runs the same at the real 4 GiB ceiling.
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
function log(count, seed = 7) {
  return sessionLog("s-limit", { profile: "small", seed, maxEvents: count }, 1_700_000_000_000);
}

const encoder = new TextEncoder();
const small = log(2_000);
// Well over what MAX_MIB holds (about 380 bytes per event are kept).
const huge = encoder.encode(log(600_000));

function shown(conversation) {
  return JSON.stringify({ length: conversation.length, views: conversation.views() });
}

function throwsOutOfMemory(call) {
  assert.throws(call, (error) => {
    assert.equal(error.name, "PromptfoldError", String(error));
    assert.equal(error.code, "OUT_OF_MEMORY");
    return true;
  });
}

test("loadJson of a text the memory cannot hold throws OUT_OF_MEMORY and changes nothing", () => {
  const conversation = new Conversation();
  conversation.loadJson(small);
  const before = shown(conversation);
  throwsOutOfMemory(() => conversation.loadJson(huge));
  assert.equal(shown(conversation), before);
  assert.ok(wasmMemoryBytes() <= MAX_MIB * MiB);
  conversation.free();
});

test("feed stops with OUT_OF_MEMORY at the piece that does not fit, keeping what was fed", () => {
  const conversation = new Conversation();
  let failed = false;
  let fed = 0;
  for (let at = 0; at < huge.length && !failed; at += MiB) {
    const before = conversation.length;
    try {
      conversation.feed(huge.subarray(at, at + MiB));
      fed = at + MiB;
    } catch (error) {
      assert.equal(error.code, "OUT_OF_MEMORY", String(error));
      assert.equal(conversation.length, before);
      failed = true;
    }
  }
  assert.ok(failed, "the log was meant not to fit");
  assert.ok(fed > 0 && conversation.length > 0, "some pieces fit");
  // Views near the limit would need memory of their own: the window is checked by its length,
  // then freed, and the module must still load.
  conversation.free();
  const after = new Conversation();
  after.loadJson(small);
  assert.ok(after.length > 0);
  after.free();
});

test("the module works after running out of memory", () => {
  const conversation = new Conversation();
  throwsOutOfMemory(() => conversation.loadJson(huge));
  assert.equal(conversation.length, 0);
  const change = conversation.loadJson(small);
  assert.ok(change.chat.added.length > 0);
  const fresh = new Conversation();
  fresh.loadJson(small);
  assert.equal(shown(fresh), shown(conversation));
  conversation.free();
  fresh.free();
});

test("windows kept until the memory is full: every load of JSON lines ends in OUT_OF_MEMORY, never an abort", () => {
  // Each load reads its text in pieces as feed does; near the limit any of its allocations can
  // be the one that fails (the join of a kept line start with the next piece did abort). Ever
  // smaller logs fill the memory ever closer to its limit.
  const kept = [];
  for (const count of [20_000, 4_000, 800, 160, 30]) {
    const text = log(count, 11);
    let failures = 0;
    for (let round = 0; round < 2_000 && failures < 3; round++) {
      const conversation = new Conversation();
      try {
        conversation.loadJson(text);
        kept.push(conversation);
      } catch (error) {
        assert.equal(error.code, "OUT_OF_MEMORY", `${count} events: ${error}`);
        assert.equal(conversation.length, 0);
        conversation.free();
        failures += 1;
      }
    }
    assert.equal(failures, 3, `the memory was meant to fill up with logs of ${count} events`);
  }
  for (const conversation of kept) conversation.free();
  const after = new Conversation();
  after.loadJson(small);
  assert.ok(after.length > 0);
  after.free();
});
