// The class of promptfold's errors (docs/api.md, "Errors"): every error the package throws, from
// Rust, from the glue's checks, from openSession and from a worker, is an instance of the
// `PromptfoldError` every entry exports, with its members as before; the class of one copy of the
// package recognises the errors of another (the Node and web builds loaded side by side, the
// worker client's own copy), and nothing else.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";
import { Worker } from "node:worker_threads";
import { repoRoot } from "./cases.mjs";
import { packageDir, promptfold } from "./promptfold.mjs";
import { systemEvent } from "./kit/small-log.mjs";

const { PromptfoldError } = promptfold;
const web = await import(join(repoRoot, "pkg", "web", "promptfold.js"));
web.initSync({ module: readFileSync(join(repoRoot, "pkg", "web", "promptfold_bg.wasm")) });
const inline = await import(join(repoRoot, "pkg", "inline", "promptfold.js"));
const workerModule = await import(join(repoRoot, "pkg", "worker", "client.js"));


/** What `call` throws (or its promise rejects with). */
async function caught(call) {
  try {
    await call();
  } catch (error) {
    return error;
  }
  assert.fail("no error");
}

/** Errors of every kind of thrower, from `module` (an entry's exports). */
async function errorsOf(module) {
  const conversation = new module.Conversation();
  const errors = {
    // Rust: a row's error, with its index, seq and line.
    rust: await caught(() => conversation.loadJson('{"seq":1,"time":1,"type":"x"}\n{"seq":1,"time":2,"type":"x"}\n')),
    // The glue's checks: an argument's shape, a seq's type, a freed handle.
    shape: await caught(() => conversation.cacheLedger([1])),
    number: await caught(() => conversation.stateAt("5")),
    // open.js: its own errors, and Rust's passed on.
    open: await caught(() => module.openSession(new Blob([]))),
    openArgument: await caught(() => module.openSession(new Blob([]), { chunkBytes: 0 })),
  };
  conversation.free();
  errors.freed = await caught(() => conversation.views());
  return errors;
}

test("every error the Node build throws is an instance of its PromptfoldError, members as before", async () => {
  assert.equal(typeof PromptfoldError, "function");
  const errors = await errorsOf(promptfold);
  const codes = Object.fromEntries(Object.entries(errors).map(([kind, error]) => [kind, error.code]));
  assert.deepEqual(codes, {
    rust: "NON_INCREASING_SEQ",
    shape: "INVALID_ARGUMENT",
    number: "INVALID_ARGUMENT",
    open: "NOT_A_SESSION_LOG",
    openArgument: "INVALID_ARGUMENT",
    freed: "FREED",
  });
  for (const [kind, error] of Object.entries(errors)) {
    assert.ok(error instanceof PromptfoldError, kind);
    assert.ok(error instanceof Error, kind);
    assert.equal(Object.getPrototypeOf(error), PromptfoldError.prototype, kind);
    assert.equal(error.name, "PromptfoldError", kind);
    assert.match(String(error), /^PromptfoldError: ./, kind);
    assert.match(error.stack, /^PromptfoldError: /, kind);
    assert.ok("index" in error && "seq" in error, `${kind}: index and seq are members, undefined when none`);
  }
  const { rust, shape } = errors;
  assert.deepEqual([rust.index, rust.seq, rust.line], [1, 1, 2]);
  assert.ok(rust.message.startsWith("line 2: event 1 (seq 1): "), rust.message);
  assert.deepEqual([shape.index, shape.seq, "line" in shape], [undefined, undefined, false]);
});

test("each entry exports the class, and a copy's class recognises every copy's errors", async () => {
  const require = createRequire(import.meta.url);
  const commonJs = require(join(packageDir, "promptfold.js"));
  assert.equal(commonJs.PromptfoldError, PromptfoldError, "require and import give one class");
  const classes = {
    node: PromptfoldError,
    web: web.PromptfoldError,
    inline: inline.PromptfoldError,
    worker: workerModule.PromptfoldError,
  };
  for (const [entry, cls] of Object.entries(classes)) assert.equal(typeof cls, "function", entry);
  assert.notEqual(web.PromptfoldError, PromptfoldError, "the web build is a copy of its own");
  const thrown = { node: await errorsOf(promptfold), web: await errorsOf(web), inline: await errorsOf(inline) };
  for (const [from, errors] of Object.entries(thrown)) {
    for (const [kind, error] of Object.entries(errors)) {
      for (const [entry, cls] of Object.entries(classes)) {
        assert.ok(error instanceof cls, `${from} ${kind} error instanceof the ${entry} entry's class`);
      }
    }
  }
  const others = [
    new Error("x"),
    new TypeError("x"),
    Object.assign(new Error("x"), { name: "PromptfoldError", code: "FREED" }),
    { name: "PromptfoldError", code: "FREED", message: "x" },
    null,
    undefined,
    "PromptfoldError",
  ];
  for (const value of others) {
    for (const [entry, cls] of Object.entries(classes)) {
      assert.equal(value instanceof cls, false, `${entry}: ${String(value?.name ?? value)}`);
    }
  }
});

test("a PromptfoldError built by hand (a test's stand-in) is one, and a subclass asks its prototype", () => {
  const error = new PromptfoldError("NON_INCREASING_SEQ", "stand-in", { index: 3, seq: 7, line: 4 });
  assert.ok(error instanceof PromptfoldError && error instanceof web.PromptfoldError);
  assert.deepEqual([error.code, error.index, error.seq, error.line, error.message], ["NON_INCREASING_SEQ", 3, 7, 4, "stand-in"]);
  assert.equal("line" in new PromptfoldError("FREED", "x"), false);
  class Mine extends PromptfoldError {}
  assert.ok(new Mine("FREED", "x") instanceof Mine);
  assert.ok(new Mine("FREED", "x") instanceof PromptfoldError);
  assert.equal(error instanceof Mine, false);
});

test("a worker's errors, rebuilt on this side, are instances of every entry's class", async () => {
  const worker = new workerModule.WorkerConversation(new Worker(join(repoRoot, "pkg", "worker", "node.mjs")));
  try {
    // Rust's error in the worker, and the client's own check.
    const rejected = await caught(() => worker.open(new TextEncoder().encode('{"cut": "off')));
    const invalid = await caught(() => worker.open(new Uint8Array(), []));
    await worker.open(new TextEncoder().encode(`${JSON.stringify(systemEvent)}\n`));
    const fromCall = await caught(() => worker.call("stateAt", "5"));
    for (const [what, error] of Object.entries({ rejected, invalid, fromCall })) {
      assert.ok(error instanceof workerModule.PromptfoldError, what);
      assert.ok(error instanceof PromptfoldError, what);
      assert.ok(error instanceof web.PromptfoldError, what);
    }
    assert.deepEqual([rejected.code, invalid.code, fromCall.code], ["NOT_A_SESSION_LOG", "INVALID_ARGUMENT", "INVALID_ARGUMENT"]);
  } finally {
    worker.terminate();
  }
  const terminated = await caught(() => worker.info());
  assert.equal(terminated.code, "FREED");
  assert.ok(terminated instanceof PromptfoldError);
});
