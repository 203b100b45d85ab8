// Configs and tools come back as `JSON.parse` makes them from their JSON text, whichever call
// hands them out: a JSON `null` stays `null` (not `undefined`), and a `"__proto__"` key is an
// own member (not the object's prototype). States, nodes and lines keep their shapes: every
// member present, "none" `undefined` (and `null` from `toJSON()`).
import { test } from "node:test";
import assert from "node:assert/strict";
import { promptfold } from "./promptfold.mjs";

const { Conversation, inspectRequestPrompt } = promptfold;

const CONFIG_TEXT = '{"model":"m","stop":null,"__proto__":{"polluted":true},"limits":[null,1]}';
const TOOLS_TEXT = '[{"name":"read","parameters":{"type":"object","default":null},"__proto__":{"x":1}}]';

// A prompt, a step, then two headers: the second changes the tools, so its change carries the
// first header's prompt as `previous`.
const LOG = `[
  {"seq":1,"time":10,"type":"system/message","data":{"message":{"content":[{"type":"text","text":"Be brief."}]}},"surfaceOp":"append"},
  {"seq":2,"time":15,"type":"step/start","data":{"turn":1,"step":1}},
  {"seq":3,"time":20,"type":"request/header","data":{"reason":"initial","header":{"config":${CONFIG_TEXT},"tools":${TOOLS_TEXT}}}},
  {"seq":4,"time":30,"type":"request/header","data":{"reason":"change","header":{"config":${CONFIG_TEXT},"tools":[]}}}
]`;

function assertConfig(config, where) {
  assert.deepEqual(Object.keys(config), ["model", "stop", "__proto__", "limits"], where);
  assert.equal(config.stop, null, `${where}: stop`);
  assert.deepEqual(config.limits, [null, 1], `${where}: limits`);
  assert.equal(Object.getPrototypeOf(config), Object.prototype, `${where}: prototype`);
  assert.ok(Object.hasOwn(config, "__proto__"), `${where}: own __proto__`);
  assert.equal(config.polluted, undefined, `${where}: nothing inherited`);
}

function assertTools(tools, where) {
  const [tool] = tools;
  assert.deepEqual(Object.keys(tool), ["name", "parameters", "__proto__"], where);
  assert.equal(tool.parameters.default, null, `${where}: default`);
  assert.equal(Object.getPrototypeOf(tool), Object.prototype, `${where}: prototype`);
  assert.equal(tool.x, undefined, `${where}: nothing inherited`);
}

test("configs and tools come back as JSON.parse makes them, from every call", () => {
  const conversation = new Conversation();
  conversation.loadJson(LOG);
  const { headers, requests } = conversation.views().trajectory;
  assertConfig(headers[0].prompt.config, "views() first header");
  assertTools(headers[0].prompt.tools, "views() first header");
  assertConfig(headers[1].change.previous.config, "views() change.previous");
  assertTools(headers[1].change.previous.tools, "views() change.previous");
  assertConfig(requests[0].requestConfig, "views() requestConfig");

  const second = conversation.requestAt(4);
  assertConfig(second.prompt.config, "requestAt");
  assertTools(second.change.previous.tools, "requestAt change.previous");

  const lines = conversation.lines();
  assertConfig(lines[2].request.prompt.config, "lines()");
  assertTools(lines[2].request.prompt.tools, "lines()");

  const event = JSON.parse(LOG)[2];
  const inspection = inspectRequestPrompt(undefined, event, undefined);
  assertConfig(inspection.prompt.config, "inspectRequestPrompt");
  assertTools(inspection.prompt.tools, "inspectRequestPrompt");
  conversation.free();
});

test("states, nodes and lines have every member, none as undefined (null from toJSON)", () => {
  const conversation = new Conversation();
  conversation.loadJson(LOG);
  const state = conversation.stateAt(4);
  const node = { seq: 1, time: 10, turn: 0, step: 0, text: "Be brief.", update: false };
  assert.deepEqual(state.effective, node);
  assert.deepEqual(state.introduced, node);
  assert.deepEqual(state.nodes, [{ position: 1, node }]);
  const members = ["firstSeq", "uncertain", "nodes", "replacements", "effective", "introduced"];
  assert.deepEqual(Object.keys(state.toJSON()), members);
  assert.equal(conversation.requestAt(1), undefined);

  const [first, , header] = conversation.lines();
  assert.deepEqual(Object.keys(first), ["seq", "system"]);
  assert.deepEqual(Object.keys(first.system), members);
  assert.deepEqual(first.system.effective, node);
  assert.deepEqual(Object.keys(header), ["seq", "system", "request"]);
  assert.deepEqual(Object.keys(header.request), ["prompt", "change"]);
  conversation.free();

  // An empty first prompt: no effective prompt.
  const empty = { seq: 1, time: 1, type: "system/message", data: { message: { content: [{ type: "text", text: "" }] } }, surfaceOp: "append" };
  const alone = new Conversation();
  alone.load([empty]);
  const withheld = alone.stateAt(1);
  assert.equal(withheld.effective, undefined);
  assert.equal(withheld.toJSON().effective, null);
  assert.equal(withheld.introduced.text, "");
  const [line] = alone.lines();
  assert.ok(Object.hasOwn(line.system, "effective") && line.system.effective === undefined);
  alone.free();
});
