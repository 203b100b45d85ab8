// Loads one session several times, with full garbage collections between the loads, as a page
// that loads several sessions in turn may; prints a marker line before each load. Run by
// jit.test.mjs under node --expose-gc --trace-deopt-verbose; PROMPTFOLD_PKG names another build.
import { createRequire } from "node:module";
import { join } from "node:path";
import { repoRoot } from "./cases.mjs";

const require = createRequire(import.meta.url);
const { Conversation } = require(process.env.PROMPTFOLD_PKG || join(repoRoot, "pkg", "node", "promptfold.js"));

const tools = (step) => [
  { name: "read_file", description: `Reads a file of the workspace (revision ${step >> 9}).`, parameters: { type: "object", properties: { path: { type: "string" } }, required: ["path"] } },
  { name: "run", description: "Runs a command and returns what it printed.", parameters: { type: "object", properties: { command: { type: "string" }, timeout: { type: "integer" } }, required: ["command"] } },
];
const text = (role, words) => ({ role, content: [{ type: "text", text: words }] });

// Steps of: start, (a prompt every 40 steps), a request header, an assistant message, a tool
// result, (a prune of the previous tool result), end.
function session(steps) {
  const events = [];
  let seq = 0;
  const add = (type, data, surfaceOp) => events.push(surfaceOp === undefined ? { seq: ++seq, time: seq * 1000, type, data } : { seq: ++seq, time: seq * 1000, type, data, surfaceOp });
  let lastResult = 0;
  for (let step = 1; step <= steps; step++) {
    add("step/start", { turn: 1, step });
    if (step % 40 === 1) add("system/message", { turn: 1, step, message: text("system", `You are a careful agent (revision ${step}).`) }, "append");
    add("request/header", { reason: step === 1 ? "initial" : "series", header: { config: { model: "m", maxTokens: 4096 }, tools: tools(step) } });
    add("assistant/message", { turn: 1, step, message: text("assistant", `step ${step}`) }, "append");
    const result = seq + 1;
    add("tool/result", { turn: 1, step, message: text("tool", `result of step ${step}`) }, "append");
    if (lastResult) add("tool/result", { turn: 1, step, message: text("tool", "[pruned]") }, { op: "replace", startSeq: lastResult, endSeq: lastResult });
    lastResult = result;
    add("step/end", { turn: 1, step });
  }
  return events;
}

const events = session(Number(process.argv[2] || 4000));
const loads = Number(process.argv[3] || 6);
for (let load = 0; load < loads; load++) {
  for (let i = 0; i < 3; i++) global.gc();
  console.log(`=== load ${load}`);
  const conversation = new Conversation();
  conversation.load(events);
  conversation.views();
  conversation.free();
}
