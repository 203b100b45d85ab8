// Use after free: every method and property of a freed Conversation or SystemPromptState (in the
// Node build and in the web build, whose glue is patched apart) throws a PromptfoldError with
// code FREED naming the class, a second free() or Symbol.dispose does nothing, a freed state
// passed as `previous` is FREED too, and a terminated WorkerConversation rejects with FREED. A
// SystemPromptState cannot be built with `new`: only calls give one.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { Worker } from "node:worker_threads";
import { repoRoot } from "./cases.mjs";
import { promptfold } from "./promptfold.mjs";

const web = await import(join(repoRoot, "pkg", "web", "promptfold.js"));
web.initSync({ module: readFileSync(join(repoRoot, "pkg", "web", "promptfold_bg.wasm")) });

const system = { seq: 2, time: 2, type: "system/message", surfaceOp: "append", data: { turn: 1, step: 1, message: { role: "system", content: [{ type: "text", text: "A" }] } } };
const events = [{ seq: 1, time: 1, type: "turn/start", data: { turn: 1 } }, system];

/** The members of a class's prototype a user may call or read: all but free and the glue's own. */
function members(cls) {
  return Object.getOwnPropertyNames(cls.prototype).filter((name) => name !== "constructor" && name !== "free" && !name.startsWith("__"));
}

/** Uses `name` of `object`: reads it when it is a getter, else calls it with no argument. */
function use(object, name) {
  const descriptor = Object.getOwnPropertyDescriptor(Object.getPrototypeOf(object), name);
  return descriptor.get ? object[name] : object[name]();
}

/** A conversation of `module` holding `events`. */
function loadedConversation(module) {
  const conversation = new module.Conversation();
  conversation.load(events);
  return conversation;
}

function assertFreed(call, className, what, prefix = "") {
  assert.throws(call, (error) => {
    assert.ok(error instanceof Error, `${what}: an Error`);
    assert.equal(error.name, "PromptfoldError", `${what}: ${error.message}`);
    assert.equal(error.code, "FREED", what);
    assert.ok(error.message.startsWith(`${prefix}this ${className} was freed`), `${what}: ${error.message}`);
    assert.equal(error.index, undefined);
    assert.equal(error.seq, undefined);
    return true;
  });
}

for (const [build, module] of [["node", promptfold], ["web", web]]) {
  test(`${build} build: every member of a freed Conversation throws FREED`, () => {
    const conversation = new module.Conversation();
    conversation.load(events);
    conversation.free();
    const names = members(module.Conversation);
    for (const name of ["load", "append", "prepend", "feed", "views", "lines", "stateAt", "cacheLedger", "length", "windowStart"]) {
      assert.ok(names.includes(name), `Conversation has ${name}`);
    }
    for (const name of names) assertFreed(() => use(conversation, name), "Conversation", `Conversation.${name}`);
  });

  test(`${build} build: every member of a freed SystemPromptState throws FREED; passing it is FREED`, () => {
    const conversation = new module.Conversation();
    conversation.load(events);
    const state = conversation.stateAt(2).clone();
    conversation.free();
    assert.equal(state.effective?.seq, 2, "a clone outlives its conversation");
    state.free();
    const names = members(module.SystemPromptState);
    for (const name of ["clone", "toJSON", "nodes", "effective", "uncertain"]) assert.ok(names.includes(name), `SystemPromptState has ${name}`);
    for (const name of names) assertFreed(() => use(state, name), "SystemPromptState", `SystemPromptState.${name}`);
    // Passed as `previous`, a freed state is FREED naming the argument, checked in the glue before
    // the call (main threw what its clone() threw: FREED naming only the class).
    assertFreed(
      () => module.inspectSystemPrompt(state, system),
      "SystemPromptState",
      "inspectSystemPrompt(freed, ...)",
      "invalid argument `previous`: ",
    );
    assert.throws(() => module.inspectSystemPrompt({ clone: 1 }, system), { code: "INVALID_ARGUMENT" });
    // Only a state of this module: an object whose clone() gives a live state is not one (main
    // took the state its clone() gave), nor a state of the other build.
    const live = loadedConversation(module).stateAt(2);
    assert.throws(() => module.inspectSystemPrompt({ clone: () => live.clone() }, system), {
      code: "INVALID_ARGUMENT",
      message: /^invalid argument `previous`: expected a SystemPromptState/,
    });
    const other = loadedConversation(module === web ? promptfold : web).stateAt(2);
    assert.throws(() => module.inspectSystemPrompt(other, system), { code: "INVALID_ARGUMENT" });
    assert.equal(module.inspectSystemPrompt(live, system)?.effective?.seq, 2, "a live state of this module is taken");
  });

  test(`${build} build: new SystemPromptState() throws a TypeError; the handles calls give work`, () => {
    // Plain JS could build one with JS's default constructor: an object with no state behind it.
    assert.throws(() => new module.SystemPromptState(), {
      name: "TypeError",
      message: "SystemPromptState has no public constructor: inspectSystemPrompt() and Conversation.stateAt() return them",
    });
    assert.throws(() => Reflect.construct(module.SystemPromptState, []), TypeError);
    const conversation = loadedConversation(module);
    const state = conversation.stateAt(2);
    assert.ok(state instanceof module.SystemPromptState);
    assert.equal(state.clone().effective?.seq, 2);
    const folded = module.inspectSystemPrompt(undefined, system);
    assert.ok(folded instanceof module.SystemPromptState);
    assert.equal(folded.effective?.seq, 2);
    conversation.free();
  });

  test(`${build} build: a second free() and Symbol.dispose after free() do nothing`, () => {
    const conversation = new module.Conversation();
    conversation.load(events);
    const state = conversation.stateAt(2);
    conversation.free();
    conversation.free();
    conversation[Symbol.dispose]();
    state[Symbol.dispose]();
    state.free();
    const fresh = new module.Conversation();
    fresh[Symbol.dispose]();
    fresh.free();
    assertFreed(() => fresh.views(), "Conversation", "views after dispose");
    // The module works on: a new conversation loads and reads.
    const next = new module.Conversation();
    next.load(events);
    assert.equal(next.stateAt(2)?.effective?.seq, 2);
    next.free();
  });
}

test("a terminated WorkerConversation rejects its calls with FREED", async () => {
  const { WorkerConversation } = await import(join(repoRoot, "pkg", "worker", "client.js"));
  const worker = new WorkerConversation(new Worker(join(repoRoot, "pkg", "worker", "node.mjs")));
  const pending = worker.info();
  worker.terminate();
  const freed = { name: "PromptfoldError", code: "FREED", message: /^this WorkerConversation was terminated/ };
  await assert.rejects(pending, freed);
  await assert.rejects(worker.call("views"), freed);
  await assert.rejects(worker.open(new Uint8Array(0)), freed);
  await assert.rejects(worker.close(), freed);
});
