// Every public call of the package with arguments of the wrong type (docs/api.md, "Arguments"):
// each throws a PromptfoldError with the documented code (INVALID_ARGUMENT, or a batch code for
// the events) or returns the documented value, never a TypeError from the glue, a RuntimeError
// from wasm or a silent answer for another value; in the Node build and in the web build (whose
// glue is patched apart). The table names every method, accessor and function the entries export:
// a new one fails the test until it has a row.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { repoRoot } from "./cases.mjs";
import { header, smallLog, systemEvent } from "./kit/small-log.mjs";
import { promptfold } from "./promptfold.mjs";

const web = await import(join(repoRoot, "pkg", "web", "promptfold.js"));
web.initSync({ module: readFileSync(join(repoRoot, "pkg", "web", "promptfold_bg.wasm")) });

const events = smallLog;
const later = [{ seq: 9, time: 9, type: "turn/start", data: { turn: 2 } }];

/** The wrong values tried at every parameter. */
const WRONG = [
  ["a string for a number", "5"],
  ["null", null],
  ["undefined", undefined],
  ["a negative seq", -1],
  ["a fractional seq", 1.5],
  ["NaN", Number.NaN],
  ["an array for an object", [0, 5]],
  ["a number for a string", 5],
  ["a Uint8Array", new TextEncoder().encode("[]")],
  ["true", true],
  ["an object", { start: 0 }],
  ["a BigInt", 1n],
  ["a Symbol", Symbol("x")],
  ["a function", () => 1],
];

// The "batch" codes of the README's API table: about the rows given.
const BATCH = ["NOT_AN_ARRAY", "NOT_AN_OBJECT", "MISSING_SEQ", "INVALID_SEQ", "NON_INCREASING_SEQ", "INVALID_SURFACE_OP", "UNSUPPORTED_VALUE", "UNSUPPORTED_FORMAT_VERSION", "MALFORMED_JSON"];
const invalid = { code: "INVALID_ARGUMENT" };
const isNumber = (value) => typeof value === "number";

/**
 * Per kind of parameter: the outcome of a wrong value (by its name in WRONG): `{ code }` (thrown,
 * or `{ code: [...] }`: one of those), `{ returns }` (a check of the value returned) or `"valid"`
 * (a value of the parameter's type, whatever it answers). Not listed: INVALID_ARGUMENT.
 */
const KINDS = {
  // A seq (docs/api.md, "Seq arguments"): any number is a point in seq order, NaN and undefined
  // are no seq; `none` is what the call answers for a seq of no event (all of these are).
  seq: (none) => ({
    "a number for a string": "valid",
    undefined: { returns: none },
    "a negative seq": { returns: none },
    "a fractional seq": { returns: none },
    NaN: { returns: none },
  }),
  events: () => Object.fromEntries(WRONG.map(([name, value]) => [name, Array.isArray(value) ? { code: "NOT_AN_OBJECT" } : { code: "NOT_AN_ARRAY" }])),
  // JSON text: a string (here "5": JSON of no events) or UTF-8 bytes.
  text: () => ({ "a string for a number": { code: BATCH, returnsToo: true }, "a Uint8Array": "valid" }),
  options: () => ({ null: "valid", undefined: "valid" }),
  range: () => ({}),
  key: () => ({ "a string for a number": { returns: (value) => value === undefined } }),
  prompt: () => ({ "a string for a number": "valid" }),
  none: () => ({ null: "valid", undefined: "valid" }),
  // An event is read by the batch's rules, as a batch of one.
  event: () => Object.fromEntries(WRONG.map(([name]) => [name, { code: BATCH }])),
};

const noSeq = (value) => value === undefined;
const emptyContext = (value) => value.nodes.length === 0 && value.totalTokens === 0;
const emptySummary = (value) => value.totalTokens === 0;

/** Conversation methods: the kinds of their parameters and valid arguments (on a loaded window). */
const CONVERSATION = {
  load: { params: ["events", "options"], valid: [events, undefined] },
  append: { params: ["events"], valid: [later] },
  prepend: { params: ["events", "options"], valid: [[], undefined] },
  loadJson: { params: ["text", "options"], valid: [JSON.stringify(events), undefined] },
  appendJson: { params: ["text"], valid: [JSON.stringify(later)] },
  prependJson: { params: ["text", "options"], valid: ["[]", undefined] },
  feed: { params: ["text"], valid: [""] },
  cacheLedger: { params: ["options"], valid: [undefined] },
  cardsSlice: { params: ["range"], valid: [{ start: 0, end: 1 }] },
  requestsSlice: { params: ["range"], valid: [{ start: 0, end: 1 }] },
  linesSlice: { params: ["range"], valid: [{ start: 0, end: 1 }] },
  indexOfSeq: { params: ["seq"], valid: [2], none: noSeq },
  stateAt: { params: ["seq"], valid: [2], none: noSeq },
  requestAt: { params: ["seq"], valid: [4], none: noSeq },
  contextAt: { params: ["seq"], valid: [2], none: emptyContext },
  contextSummaryAt: { params: ["seq"], valid: [2], none: emptySummary },
  cardDiff: { params: ["key"], valid: ["system:2"] },
  changeDiff: { params: ["key"], valid: ["request:4"] },
  views: { params: [] },
  lines: { params: [] },
  viewCounts: { params: [] },
  contextTotals: { params: [] },
  session: { getter: true },
  windowStart: { getter: true, returns: isNumber },
  hasMore: { getter: true },
  length: { getter: true, returns: isNumber },
};

const STATE = {
  clone: { params: [] },
  toJSON: { params: [] },
  effective: { getter: true },
  introduced: { getter: true },
  firstSeq: { getter: true, returns: isNumber },
  uncertain: { getter: true },
  nodes: { getter: true },
  replacements: { getter: true },
};

/** Free functions: the kinds of their parameters and valid arguments. */
const FUNCTIONS = (module) => ({
  diffPrompts: { params: ["prompt", "prompt"], valid: ["A", "B"] },
  inspectRequestPrompt: { params: ["none", "event", "none"], valid: [undefined, header, undefined] },
  inspectSystemPrompt: { params: ["none", "event", "options"], valid: [undefined, systemEvent, undefined] },
  openSession: { params: ["source", "options"], valid: [new Blob([JSON.stringify(header)]), undefined], async: true },
  wasmMemoryBytes: { params: [], returns: isNumber },
  // Classes, checked member by member below.
  Conversation: { class: module.Conversation },
  SystemPromptState: { class: module.SystemPromptState },
  // The class of the errors: built by anyone, any arguments (tests/js/error-class.test.mjs).
  PromptfoldError: { class: module.PromptfoldError },
});

/** The public members of a class's prototype: all but the constructor, free and the glue's own. */
function members(cls) {
  return Object.getOwnPropertyNames(cls.prototype).filter((name) => !["constructor", "free"].includes(name) && !name.startsWith("__"));
}

/** The outcome a wrong value must have at a parameter of `kind`. */
function expected(kind, valueName, row) {
  const outcomes = KINDS[kind]?.(row.none) ?? {};
  return outcomes[valueName] ?? invalid;
}

/** Checks one call's outcome: a thrown PromptfoldError with the code, or the value returned. */
function check(call, outcome, what) {
  let value;
  try {
    value = call();
  } catch (error) {
    assert.equal(error?.name, "PromptfoldError", `${what}: threw ${error?.name}: ${error?.message}`);
    if (outcome === "valid") return;
    assert.ok(outcome.code !== undefined, `${what}: threw ${error.code} (${error.message}), expected a value`);
    const codes = [outcome.code].flat();
    assert.ok(codes.includes(error.code), `${what}: threw ${error.code} (${error.message}), expected ${codes.join(" or ")}`);
    return;
  }
  if (outcome === "valid" || outcome.returnsToo) return;
  assert.ok(outcome.returns !== undefined, `${what}: returned ${String(value)}, expected ${[outcome.code].flat().join(" or ")}`);
  assert.ok(outcome.returns(value), `${what}: returned ${typeof value}`);
}

/** A conversation holding `events`. */
function loaded(module) {
  const conversation = new module.Conversation();
  conversation.load(events, { hasMore: true });
  return conversation;
}

for (const [build, module] of [["node", promptfold], ["web", web]]) {
  test(`${build} build: the table names every export and every member of the classes`, () => {
    const functions = FUNCTIONS(module);
    const exported = Object.keys(module).filter((name) => !["default", "initSync"].includes(name) && typeof module[name] === "function");
    assert.deepEqual(exported.sort(), Object.keys(functions).sort(), "the exports");
    assert.deepEqual(members(module.Conversation).sort(), Object.keys(CONVERSATION).sort(), "Conversation's members");
    assert.deepEqual(members(module.SystemPromptState).sort(), Object.keys(STATE).sort(), "SystemPromptState's members");
  });

  test(`${build} build: every Conversation method refuses wrong-typed arguments with a PromptfoldError`, () => {
    for (const [name, row] of Object.entries(CONVERSATION)) {
      const conversation = loaded(module);
      if (row.getter) {
        const value = conversation[name];
        if (row.returns) assert.ok(row.returns(value), `${name}: ${value}`);
      } else {
        // The valid call works, then each wrong value at each parameter.
        check(() => loaded(module)[name](...(row.valid ?? [])), "valid", `${name}(valid)`);
        row.params.forEach((kind, at) => {
          for (const [valueName, value] of WRONG) {
            const args = [...row.valid];
            args[at] = value;
            const fresh = loaded(module);
            const before = fresh.length;
            const outcome = expected(kind, valueName, row);
            check(() => fresh[name](...args), outcome, `${build} ${name}: ${valueName} as argument ${at + 1}`);
            if (outcome.code !== undefined) assert.equal(fresh.length, before, `${name}: the window is unchanged`);
            fresh.free();
          }
        });
      }
      conversation.free();
    }
  });

  test(`${build} build: SystemPromptState's members take no argument and answer their types`, () => {
    const conversation = loaded(module);
    const state = conversation.stateAt(2);
    for (const [name, row] of Object.entries(STATE)) {
      const value = row.getter ? state[name] : state[name]();
      if (row.returns) assert.ok(row.returns(value), `${name}: ${value}`);
      if (name === "clone") value.free();
    }
    conversation.free();
  });

  test(`${build} build: every function refuses wrong-typed arguments with a PromptfoldError`, async () => {
    for (const [name, row] of Object.entries(FUNCTIONS(module))) {
      if (row.class) continue;
      if (row.params.length === 0) {
        assert.ok(row.returns(module[name]()), name);
        continue;
      }
      for (const [at, kind] of row.params.entries()) {
        for (const [valueName, value] of WRONG) {
          const args = [...row.valid];
          args[at] = value;
          const outcome = expected(kind, valueName, row);
          const what = `${build} ${name}: ${valueName} as argument ${at + 1}`;
          if (row.async) {
            // openSession rejects (its errors are the promise's); a source of the wrong type or
            // options of the wrong shape are INVALID_ARGUMENT.
            const settled = await module[name](...args).then(
              (opened) => {
                opened.conversation.free();
                return "resolved";
              },
              (error) => error,
            );
            if (outcome === "valid") continue;
            assert.equal(settled?.name, "PromptfoldError", `${what}: ${settled}`);
            assert.equal(settled.code, "INVALID_ARGUMENT", `${what}: ${settled.message}`);
          } else {
            check(() => module[name](...args), outcome, what);
          }
        }
      }
    }
  });
}
