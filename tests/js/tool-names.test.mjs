// Tool names through the cache ledger (issue 29): the `tools` cause names tools by the one rule
// the prompt diff uses (`name`, else `function.name`, else a plain string itself), and knows a
// tool without a name by its JSON text. diff.test.mjs covers the same shapes in diffPrompts and
// changeDiff.
import { test } from "node:test";
import assert from "node:assert/strict";
import { promptfold } from "./promptfold.mjs";

const { Conversation } = promptfold;

const ev = (seq, type, data, surfaceOp) => ({ seq, time: seq * 1000, type, data, ...(surfaceOp ? { surfaceOp } : {}) });
const fn = (name, more = {}) => ({ type: "function", function: { name, ...more } });

/** 26 plain names as in the log, with `extra` inserted at index 16 when given. */
function plainNames(extra) {
  const names = [
    ...Array.from({ length: 16 }, (_, i) => `tool${i}`),
    "subagent",
    "subagent_fork",
    ...Array.from({ length: 8 }, (_, i) => `late${i}`),
  ];
  if (extra !== undefined) names.splice(16, 0, extra);
  return names;
}

/** Two steps, each a request: the first header sends `before`, the second `after`. */
function ledger(before, after) {
  const system = { role: "system", content: [{ type: "text", text: "Be brief." }] };
  const answer = (seq) =>
    ev(seq, "assistant/message", { turn: 1, message: { role: "assistant", content: [{ type: "text", text: "ok" }] } }, "append");
  const header = (seq, tools, reason) => ev(seq, "request/header", { header: { config: { model: "m" }, tools }, reason });
  const conversation = new Conversation();
  conversation.load([
    ev(1, "step/start", { turn: 1, step: 1 }),
    ev(2, "system/message", { turn: 1, message: system }, "append"),
    header(3, before, "initial"),
    answer(4),
    ev(5, "step/start", { turn: 1, step: 2 }),
    header(6, after, "change"),
    answer(7),
  ]);
  const { requests } = conversation.cacheLedger();
  conversation.free();
  assert.equal(requests.length, 2);
  return requests[1];
}

test("a plain name added mid-list is that name, and an OpenAI tool with new parameters is changed", () => {
  const second = ledger([...plainNames(), fn("run")], [...plainNames("snapshot_ping"), fn("run", { parameters: {} })]);
  assert.ok(second.brokenTokens > 0, "a changed tool breaks the cache");
  assert.deepEqual(
    second.causes.filter((cause) => cause.kind === "tools"),
    [{ kind: "tools", added: ["snapshot_ping"], removed: [], changed: ["run"] }],
  );
});

test("names added to a plain list keep the cache", () => {
  const second = ledger(plainNames(), plainNames("snapshot_ping"));
  assert.equal(second.brokenTokens, 0);
  assert.deepEqual(second.causes, []);
});

test("a tool without a name is known by its JSON text; a plain name that becomes an object is changed", () => {
  const second = ledger(["read", { x: 1 }, null], [{ name: "read", description: "Reads." }, { x: 2 }, null]);
  assert.deepEqual(
    second.causes.filter((cause) => cause.kind === "tools"),
    [{ kind: "tools", added: ['{"x":2}'], removed: ['{"x":1}'], changed: ["read"] }],
  );
});
