// Prompt diffs through the JS API: for every chat card and trajectory header of the shared cases
// that has something to compare, applying the diff's hunks to the texts it compares gives the
// new texts, and keys without a comparison give undefined. The texts compared are read from the
// window's own lines and views (the effective prompt before an update card, a change's
// `previous`), so the check does not lean on the diff code. Prepend cases are checked at every
// stage: a prepend that changes a comparison must give the new diff.
import { test } from "node:test";
import assert from "node:assert/strict";
import { loadCases } from "./cases.mjs";
import { promptfold } from "./promptfold.mjs";

const { Conversation, diffPrompts } = promptfold;

/** The lines of a text as the diff counts them: split at "\n", none for "". */
const linesOf = (text) => (text === "" ? [] : text.split("\n"));

/** Applies unified hunks to `old` as a patch tool would; throws when a line does not match. */
export function applyHunks(old, hunks) {
  const source = linesOf(old);
  const out = [];
  let at = 0;
  for (const hunk of hunks) {
    const from = hunk.oldLines === 0 ? hunk.oldStart : hunk.oldStart - 1;
    assert.ok(from >= at, "hunks in order");
    out.push(...source.slice(at, from));
    at = from;
    let oldCount = 0, newCount = 0;
    for (const line of hunk.lines) {
      const mark = line[0], text = line.slice(1);
      if (mark === " " || mark === "-") {
        assert.equal(source[at], text, `line ${at + 1} of the old text`);
        at++;
        oldCount++;
        if (mark === " ") {
          out.push(text);
          newCount++;
        }
      } else {
        assert.equal(mark, "+", `a line starts with " ", "-" or "+": ${JSON.stringify(line)}`);
        out.push(text);
        newCount++;
      }
    }
    assert.equal(oldCount, hunk.oldLines, "oldLines");
    assert.equal(newCount, hunk.newLines, "newLines");
    assert.equal(hunk.newLines === 0 ? hunk.newStart : hunk.newStart - 1, out.length - newCount, "newStart");
  }
  out.push(...source.slice(at));
  return out.join("\n");
}

/** Checks a text diff: the hunks turn `old` into `current`, and the counts agree with them. */
function checkText(diff, old, current, what) {
  assert.equal(applyHunks(old, diff.hunks), current, what);
  const count = (mark) => diff.hunks.flatMap((h) => h.lines).filter((l) => l[0] === mark).length;
  assert.equal(diff.added, count("+"), `${what}: added`);
  assert.equal(diff.removed, count("-"), `${what}: removed`);
  if (old === current) assert.deepEqual(diff.hunks, [], `${what}: equal texts have no hunks`);
}

const pretty = (tool) => JSON.stringify(tool, null, 2);
const toolName = (tool, index) =>
  typeof tool?.name === "string"
    ? tool.name
    : typeof tool?.function?.name === "string"
      ? tool.function.name
      : typeof tool === "string"
        ? tool
        : `#${index}`;

/** Checks a whole-prompt diff against the two prompts. */
function checkPrompts(diff, previous, current, what) {
  checkText(diff.system, previous.system, current.system, `${what}: system`);
  const named = (tools) => {
    const byName = new Map();
    (Array.isArray(tools) ? tools : []).forEach((tool, index) => {
      const name = toolName(tool, index);
      byName.set(name, [...(byName.get(name) ?? []), tool]);
    });
    return byName;
  };
  const [before, after] = [named(previous.tools), named(current.tools)];
  const reported = new Map(diff.tools.changes.map((change) => [change.name, change]));
  for (const name of new Set([...before.keys(), ...after.keys()])) {
    const [olds, news] = [before.get(name) ?? [], after.get(name) ?? []];
    if (olds.length > 1 || news.length > 1) continue; // repeated names: pairing checked natively
    const old = olds.length ? pretty(olds[0]) : "";
    const now = news.length ? pretty(news[0]) : "";
    const change = reported.get(name);
    if (old === now) {
      assert.equal(change, undefined, `${what}: tool ${name} is unchanged`);
      continue;
    }
    assert.ok(change, `${what}: tool ${name} is reported`);
    assert.equal(change.status, olds.length === 0 ? "added" : news.length === 0 ? "removed" : "changed");
    checkText(change, old, now, `${what}: tool ${name}`);
  }
  const members = (config) => (config && typeof config === "object" && !Array.isArray(config) ? config : {});
  const [oldConfig, newConfig] = [members(previous.config), members(current.config)];
  const changed = [...new Set([...Object.keys(oldConfig), ...Object.keys(newConfig)])].filter(
    (name) => JSON.stringify(oldConfig[name]) !== JSON.stringify(newConfig[name]),
  );
  assert.deepEqual(diff.config.map((change) => change.name).sort(), changed.sort(), `${what}: config`);
}

/** Checks every card and header of the conversation; returns how many diffs were checked. */
function checkWindow(conversation, label) {
  const lines = conversation.lines();
  const views = conversation.views();
  let checked = 0;
  for (const card of views.chat) {
    const diff = conversation.cardDiff(card.key);
    const what = `${label} ${card.key}`;
    let previous;
    if (card.source === "system") {
      if (card.update) {
        const before = lines.filter((line) => line.seq < card.seq).at(-1);
        previous = before?.system?.effective?.text;
      }
      if (previous === undefined) {
        assert.equal(diff, undefined, `${what}: nothing to compare`);
        continue;
      }
      assert.ok(diff, `${what}: an update card has a diff`);
      checkText(diff.system, previous, card.text, what);
      assert.deepEqual([diff.tools.changes, diff.config], [[], []], `${what}: system text only`);
    } else {
      const request = lines.find((line) => line.seq === card.seq)?.request;
      previous = request?.change?.previous;
      if (previous === undefined) {
        assert.equal(diff, undefined, `${what}: nothing to compare`);
        continue;
      }
      assert.ok(diff, `${what}: a request card with a previous prompt has a diff`);
      checkPrompts(diff, previous, request.prompt, what);
    }
    assert.deepEqual(conversation.cardDiff(card.key), diff, `${what}: the same diff again`);
    checked++;
  }
  for (const header of views.trajectory.headers) {
    const diff = conversation.changeDiff(header.key);
    const previous = header.change?.previous;
    const what = `${label} header ${header.key}`;
    if (previous === undefined) {
      assert.equal(diff, undefined, `${what}: nothing to compare`);
      continue;
    }
    assert.ok(diff, `${what}: a change with a previous prompt has a diff`);
    checkPrompts(diff, previous, header.prompt, what);
    checked++;
  }
  return checked;
}

const cases = loadCases();

test("cardDiff and changeDiff agree with the texts compared, for every shared case", (t) => {
  let checked = 0;
  for (const kase of cases) {
    const conversation = new Conversation();
    try {
      if (kase.stages) {
        const at = (stage) => kase.events.filter((event) => event.seq >= stage.fromSeq);
        let loaded = at(kase.stages[0]);
        conversation.load(loaded, { hasMore: kase.stages[0].hasMore });
        checked += checkWindow(conversation, `${kase.path} stage 0`);
        kase.stages.slice(1).forEach((stage, index) => {
          const page = at(stage).filter((event) => !loaded.includes(event));
          conversation.prepend(page, { hasMore: stage.hasMore });
          loaded = at(stage);
          checked += checkWindow(conversation, `${kase.path} stage ${index + 1}`);
        });
      } else {
        conversation.load(kase.events, { hasMore: kase.hasMore ?? false });
        checked += checkWindow(conversation, kase.path);
      }
      for (const key of ["system:99999999999", "request:-1", "nonsense", "", "system:01"]) {
        assert.equal(conversation.cardDiff(key), undefined, `${kase.path}: ${key}`);
        assert.equal(conversation.changeDiff(key), undefined, `${kase.path}: ${key}`);
      }
    } finally {
      conversation.free();
    }
  }
  t.diagnostic(`${cases.length} cases, ${checked} diffs checked`);
  assert.ok(checked > 100, `diffs checked: ${checked}`);
});

test("an append that changes a card's comparison gives a new diff", () => {
  const system = (seq, text, op = "append") => ({
    seq, time: seq, type: "system/message", surfaceOp: op,
    data: { turn: 1, step: seq, message: { role: "system", content: [{ type: "text", text }] } },
  });
  const conversation = new Conversation();
  conversation.load([system(1, "# A\none"), system(2, "# A\ntwo")]);
  const first = conversation.cardDiff("system:2");
  checkText(first.system, "# A\none", "# A\ntwo", "first");
  assert.deepEqual(first.system.sections, [{ title: "A", status: "changed", firstLine: 1, lineCount: 2 }]);
  // A later event that does not change the comparison keeps the diff.
  conversation.append([system(3, "# A\nthree")]);
  assert.deepEqual(conversation.cardDiff("system:2"), first);
  checkText(conversation.cardDiff("system:3").system, "# A\ntwo", "# A\nthree", "third");
  // Reloaded with another earlier prompt: the comparison changed, and so does the diff.
  conversation.load([system(1, "# A\nzero"), system(2, "# A\ntwo")]);
  checkText(conversation.cardDiff("system:2").system, "# A\nzero", "# A\ntwo", "reloaded");
  assert.equal(conversation.cardDiff("system:1"), undefined);
  conversation.free();
});

test("a key that is not a string is INVALID_ARGUMENT, not a wasm trap", () => {
  const system = (seq, text) => ({
    seq, time: seq, type: "system/message", surfaceOp: "append",
    data: { turn: 1, step: seq, message: { role: "system", content: [{ type: "text", text }] } },
  });
  const conversation = new Conversation();
  conversation.load([system(1, "# A\none"), system(2, "# A\ntwo")]);
  // JS callers without TypeScript: numbers, objects, undefined, a BigInt. The glue of a `&str`
  // parameter ended in "RuntimeError: memory access out of bounds" or a TypeError; then they were
  // unknown keys (`undefined`, so `cardDiff(card)` failed silently); the glue refuses them.
  for (const key of [2, 2n, undefined, null, {}, ["system:2"], { toString: () => "system:2" }]) {
    for (const method of ["cardDiff", "changeDiff"]) {
      assert.throws(() => conversation[method](key), { code: "INVALID_ARGUMENT", message: /^invalid argument `key`/ }, `${method}(${typeof key})`);
    }
  }
  assert.equal(conversation.cardDiff("2"), undefined, "a string that is not a key is an unknown key");
  checkText(conversation.cardDiff("system:2").system, "# A\none", "# A\ntwo", "after the bad keys");
  conversation.free();
});

test("diffPrompts compares texts or whole prompts", () => {
  const old = "Intro\n\n# Mode\nplan\n\n# Tools guidance\nuse rg\n";
  const now = "Intro\n\n# Mode\nact\n\n# Tools guidance\nuse rg\nuse fd\n";
  const text = diffPrompts(old, now);
  checkText(text.system, old, now, "strings");
  assert.deepEqual(
    text.system.sections.map((section) => [section.title, section.status]),
    [["Intro", "unchanged"], ["Mode", "changed"], ["Tools guidance", "changed"]],
  );
  assert.equal(text.system.replacedWhole, false);
  const previous = { config: { model: "a", effort: "low" }, system: old, tools: [{ name: "read" }, { name: "grep" }] };
  const current = { config: { model: "b", effort: "low" }, system: now, tools: [{ name: "grep" }, { name: "read", x: 1 }] };
  const whole = diffPrompts(previous, current);
  checkPrompts(whole, previous, current, "objects");
  assert.deepEqual(whole.config, [{ name: "model", old: "a", new: "b" }]);
  assert.equal(whole.tools.orderChanged, true);
  assert.equal(whole.tools.orderOnly, false);
  const reordered = diffPrompts({ system: "", tools: [{ name: "a" }, { name: "b" }] }, { system: "", tools: [{ name: "b" }, { name: "a" }] });
  assert.deepEqual(reordered.tools, { changes: [], orderChanged: true, orderOnly: true });
  assert.deepEqual(diffPrompts("", "").system, { hunks: [], added: 0, removed: 0, replacedWhole: false, sections: [] });
  for (const bad of [undefined, null, 3, { system: 4 }]) {
    assert.throws(() => diffPrompts(bad, ""), (error) => error.code === "INVALID_ARGUMENT" && /previous/.test(error.message));
    assert.throws(() => diffPrompts("", bad), (error) => error.code === "INVALID_ARGUMENT" && /current/.test(error.message));
  }
});

const toolChanges = (diff) => diff.tools.changes.map((change) => [change.name, change.status]);
const fn = (name, more = {}) => ({ type: "function", function: { name, ...more } });

/** Issue 29's tool list: 26 plain names (16 tools, "subagent", "subagent_fork", 8 more), with
 * `extra` inserted at index 16 when given. */
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

test("tools of every shape are paired by one tool-name rule", () => {
  // [what, old tools, new tools, [name, status] of each change, orderChanged]
  const cases = [
    ["plain names, one added mid-list", plainNames(), plainNames("snapshot_ping"), [["snapshot_ping", "added"]], false],
    ["plain names, one removed mid-list", plainNames("snapshot_ping"), plainNames(), [["snapshot_ping", "removed"]], false],
    ["OpenAI function.name", [fn("a"), fn("b"), fn("c")], [fn("a"), fn("x"), fn("b"), fn("c", { parameters: {} })], [["x", "added"], ["c", "changed"]], false],
    ["objects with name", [{ name: "a" }, { name: "b" }], [{ name: "x" }, { name: "a" }, { name: "b", v: 1 }], [["x", "added"], ["b", "changed"]], false],
    [
      "a mix",
      ["read", { name: "edit" }, fn("run"), "write"],
      ["grep", { name: "read", d: 1 }, { name: "edit" }, fn("run", { parameters: {} }), "write"],
      [["grep", "added"], ["read", "changed"], ["run", "changed"]],
      false,
    ],
    ["duplicates", ["read", "read", "write"], ["read", "write", "read", "read"], [["read", "added"]], true],
    ["no name at all", [{ x: 1 }, { y: 2 }, null], [{ x: 1 }, { y: 3 }, null, 7], [["#1", "changed"], ["#3", "added"]], false],
    ["a name that looks like an index", [{ x: 1 }], ["#0"], [["#0", "added"], ["#0", "removed"]], false],
  ];
  for (const [what, oldTools, newTools, expected, orderChanged] of cases) {
    const previous = { system: "", tools: oldTools };
    const current = { system: "", tools: newTools };
    const diff = diffPrompts(previous, current);
    assert.deepEqual(toolChanges(diff), expected, what);
    assert.equal(diff.tools.orderChanged, orderChanged, `${what}: orderChanged`);
    // The checker keys reports by name, so it cannot tell the two "#0" apart.
    if (what !== "a name that looks like an index") checkPrompts(diff, previous, current, what);
  }
});

test("a header whose only change is an added tool name: kind tools, one added tool", () => {
  const header = (seq, step, reason, tools) => ({
    seq, time: seq, type: "request/header", data: { turn: 1, step, reason, header: { config: { model: "m" }, tools } },
  });
  const conversation = new Conversation();
  conversation.load(
    [
      { seq: 1, time: 1, type: "turn/start", data: { turn: 1 } },
      { seq: 2, time: 2, type: "step/start", data: { turn: 1, step: 1 } },
      {
        seq: 3, time: 3, type: "system/message", surfaceOp: "append",
        data: { turn: 1, step: 1, message: { role: "system", content: [{ type: "text", text: "Be brief." }] } },
      },
      header(4, 1, "initial", plainNames()),
      { seq: 5, time: 5, type: "step/start", data: { turn: 1, step: 2 } },
      header(6, 2, "change", plainNames("snapshot_ping")),
    ], { hasMore: true });
  const fact = conversation.views().trajectory.headers.find((header) => header.seq === 6);
  assert.equal(fact?.change?.kind, "tools");
  assert.deepEqual(fact.change.previous.tools, plainNames());
  const diff = conversation.changeDiff(fact.key);
  assert.deepEqual(toolChanges(diff), [["snapshot_ping", "added"]]);
  assert.deepEqual(diff.tools.changes[0].hunks.flatMap((hunk) => hunk.lines), ['+"snapshot_ping"']);
  assert.deepEqual([diff.system.hunks, diff.config, diff.tools.orderChanged], [[], [], false]);
  checkPrompts(diff, fact.change.previous, fact.prompt, "header 6");
  conversation.free();
});

test("prompts far apart are replaced whole, quickly", () => {
  let state = 7;
  const random = () => {
    state = (state * 1103515245 + 12345) % 2147483648;
    return state / 2147483648;
  };
  const repetitive = () => Array.from({ length: 40000 }, () => `line ${Math.floor(random() * 20)}`).join("\n");
  const [old, now] = [repetitive(), repetitive()];
  const started = performance.now();
  const diff = diffPrompts(old, now);
  const took = performance.now() - started;
  assert.equal(diff.system.replacedWhole, true);
  checkText(diff.system, old, now, "replaced whole");
  assert.ok(took < 2000, `took ${took} ms`);
});
