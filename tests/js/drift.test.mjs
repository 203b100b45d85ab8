// The TypeScript types against what they describe: the members of every object the JS API
// returns against its interface in the built .d.ts (generated from the Rust types, so a Rust
// field renamed without the JS builders, or the reverse, fails here), and the hand-written types
// against their Rust twins (the error codes of src/error.rs, the members the parser reads).
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync, readdirSync, statSync } from "node:fs";
import { join } from "node:path";
import { repoRoot } from "./cases.mjs";
import { packageDir, promptfold } from "./promptfold.mjs";

const { Conversation, diffPrompts, inspectRequestPrompt, inspectSystemPrompt } = promptfold;
const declarations = readFileSync(join(packageDir, "promptfold.d.ts"), "utf8");

/** Declarations without their comments. */
function uncommented(text) {
  return text.replace(/\/\*[\s\S]*?\*\//g, "").replace(/^\s*\/\/.*$/gm, "");
}

/** The text from `open` (an index of "{") to its matching "}", both excluded. */
function body(text, open) {
  let depth = 0;
  for (let i = open; i < text.length; i++) {
    if (text[i] === "{") depth++;
    else if (text[i] === "}" && --depth === 0) return text.slice(open + 1, i);
  }
  throw new Error("unbalanced braces");
}

/** Splits `text` at `separator` where no bracket is open. */
function splitTop(text, separator) {
  const parts = [];
  let depth = 0;
  let start = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if ("{[(<".includes(c)) depth++;
    else if ("}])>".includes(c)) depth--;
    else if (c === separator && depth === 0) {
      parts.push(text.slice(start, i));
      start = i + 1;
    }
  }
  parts.push(text.slice(start));
  return parts.map((part) => part.trim()).filter((part) => part !== "");
}

/** The members of an object type's body: name -> { optional, type }. */
function members(text) {
  const found = new Map();
  for (const line of splitTop(text, ";")) {
    const match = /^(?:readonly\s+)?([A-Za-z_$][\w$]*)(\?)?\s*:\s*([\s\S]+)$/.exec(line);
    if (match) found.set(match[1], { optional: match[2] === "?", type: match[3].trim() });
  }
  return found;
}

/** Every exported interface of the .d.ts: name -> { members, extends }. */
function interfaces(text) {
  const source = uncommented(text);
  const found = new Map();
  for (const match of source.matchAll(/export interface (\w+)(?: extends ([\w\s,]+))?\s*\{/g)) {
    const open = match.index + match[0].length - 1;
    const parents = match[2] ? match[2].split(",").map((name) => name.trim()) : [];
    found.set(match[1], { members: members(body(source, open)), extends: parents });
  }
  return found;
}

/** Every exported type alias: name -> its type text. */
function aliases(text) {
  const source = uncommented(text);
  const found = new Map();
  for (const match of source.matchAll(/export type (\w+)\s*=\s*/g)) {
    let depth = 0;
    let end = match.index + match[0].length;
    for (; end < source.length; end++) {
      const c = source[end];
      if ("{[(<".includes(c)) depth++;
      else if ("}])>".includes(c)) depth--;
      else if (c === ";" && depth === 0) break;
    }
    found.set(match[1], source.slice(match.index + match[0].length, end).trim());
  }
  return found;
}

const types = interfaces(declarations);
const typeAliases = aliases(declarations);

/** An interface's members, its parents' included. */
function allMembers(name) {
  const declared = types.get(name);
  assert.ok(declared, `interface ${name} is declared`);
  const all = new Map();
  for (const parent of declared.extends) for (const [key, member] of allMembers(parent)) all.set(key, member);
  for (const [key, member] of declared.members) all.set(key, member);
  return all;
}

/** The interface names a type text refers to directly (`X`, `X[]`, `X | undefined`, aliases). */
function referenced(typeText, seen = new Set()) {
  const names = [];
  for (const part of splitTop(typeText, "|")) {
    const bare = part.replace(/(\[\])+$/, "").replace(/^\((.*)\)$/, "$1").trim();
    if (types.has(bare)) names.push(bare);
    else if (typeAliases.has(bare) && !seen.has(bare)) {
      seen.add(bare);
      names.push(...referenced(typeAliases.get(bare), seen));
    }
  }
  return names;
}

/**
 * Checks `value` against interface `name` and every interface its members refer to, recording
 * each interface met in `met`.
 */
function check(value, name, path, met) {
  if (value === undefined || value === null || typeof value !== "object") return;
  if (Array.isArray(value)) {
    for (const [i, item] of value.entries()) check(item, name, `${path}[${i}]`, met);
    return;
  }
  const meet = (type) => {
    met.add(type);
    for (const parent of types.get(type).extends) meet(parent);
  };
  meet(name);
  const declared = allMembers(name);
  for (const key of Object.keys(value)) {
    assert.ok(declared.has(key), `${path}.${key}: a member ${name} does not declare`);
  }
  for (const [key, member] of declared) {
    if (!member.optional) assert.ok(key in value, `${path}: ${name}.${key} is required but missing`);
    if (!(key in value)) continue;
    const targets = referenced(member.type);
    // A union of several interfaces (a discriminated union) is checked against the one whose
    // required members the value has.
    const target =
      targets.length === 1
        ? targets[0]
        : targets.find((candidate) =>
            [...allMembers(candidate)].every(([member, { optional }]) => optional || member in (value[key] ?? {})),
          );
    if (target) check(value[key], target, `${path}.${key}`, met);
  }
}

/** Interfaces reachable from `roots` through member types (what the walk must meet). */
function reachable(roots) {
  const seen = new Set();
  const visit = (name) => {
    if (seen.has(name)) return;
    seen.add(name);
    for (const parent of types.get(name).extends) visit(parent);
    for (const member of types.get(name).members.values()) for (const next of referenced(member.type)) visit(next);
  };
  for (const root of roots) visit(root);
  return seen;
}

/** A rich session: the demo's sample (prompts, headers, usage, replaces), with a torn tail. */
function sample() {
  return JSON.parse(readFileSync(join(repoRoot, "www", "sample-session.json"), "utf8"));
}

test("every object the JS API returns has exactly the members its interface declares", () => {
  const events = sample();
  const met = new Set();
  const roots = new Set();
  const expect = (value, name, path) => {
    roots.add(name);
    check(value, name, path, met);
  };
  const conversation = new Conversation();
  const half = Math.floor(events.length / 2);
  expect(conversation.load(events.slice(half), { hasMore: true }), "ConversationChange", "load()");
  expect(conversation.prepend(events.slice(0, half)), "ConversationChange", "prepend()");
  const lines = events.map((event) => JSON.stringify(event)).join("\n");
  expect(conversation.loadJson(`${lines}\n{"seq":`), "ConversationChange", "loadJson(torn)");
  const views = conversation.views();
  expect(views, "Views", "views()");
  expect(conversation.lines(), "EventLine", "lines()");
  const counts = conversation.viewCounts();
  expect(counts, "ViewCounts", "viewCounts()");
  expect(conversation.cardsSlice({ start: 0, end: counts.cards }), "CardsSlice", "cardsSlice()");
  expect(conversation.requestsSlice({ start: 0, end: counts.requests }), "RequestsSlice", "requestsSlice()");
  expect(conversation.linesSlice({ start: 0, end: counts.lines }), "LinesSlice", "linesSlice()");
  for (const event of events) {
    const found = conversation.indexOfSeq(event.seq);
    if (found) expect(found, "SeqIndex", `indexOfSeq(${event.seq})`);
  }
  for (const event of events) {
    expect(conversation.contextAt(event.seq), "Context", `contextAt(${event.seq})`);
    expect(conversation.contextSummaryAt(event.seq), "ContextSummary", `contextSummaryAt(${event.seq})`);
    const inspection = conversation.requestAt(event.seq);
    if (inspection) expect(inspection, "RequestPromptInspection", `requestAt(${event.seq})`);
    const state = conversation.stateAt(event.seq);
    if (state) {
      expect(state.effective, "SystemPromptNode", "stateAt().effective");
      expect(state.nodes, "PositionedSystem", "stateAt().nodes");
      // toJSON() is SystemPromptStateData with null for none: the same members.
      expect(JSON.parse(JSON.stringify(state)), "SystemPromptStateData", "stateAt().toJSON()");
    }
  }
  expect(conversation.contextTotals(), "ContextTotals", "contextTotals()");
  for (const card of views.chat) {
    const diff = conversation.cardDiff(card.key);
    if (diff) expect(diff, "PromptDiff", `cardDiff(${card.key})`);
  }
  for (const fact of views.trajectory.headers) {
    const diff = conversation.changeDiff(fact.key);
    if (diff) expect(diff, "PromptDiff", `changeDiff(${fact.key})`);
  }
  const previous = { system: "# A\none\n# B\ntwo", tools: [{ name: "read" }, { name: "gone" }], config: { model: "m" } };
  const current = { system: "# A\none!\n# B\ntwo", tools: [{ name: "read", x: 1 }], config: { model: "n" } };
  expect(diffPrompts(previous, current), "PromptDiff", "diffPrompts()");
  if (typeof conversation.cacheLedger === "function") {
    const prices = { default: { input: 1, cacheRead: 0.1, cacheWrite: 1.25, output: 4 } };
    expect(conversation.cacheLedger({ prices }), "CacheLedger", "cacheLedger()");
  }
  let state;
  for (const event of events) state = inspectSystemPrompt(state, event);
  const header = events.find((event) => event.type === "request/header");
  expect(inspectRequestPrompt(undefined, header, state?.effective), "RequestPromptInspection", "inspectRequestPrompt()");
  conversation.free();

  const missed = [...reachable(roots)].filter((name) => !met.has(name));
  assert.deepEqual(missed, [], "every interface the calls can return was met at least once");
});

test("tests/types/usage.ts (tsc --strict) uses every optional member and every method", () => {
  const usage = readFileSync(join(repoRoot, "tests", "types", "usage.ts"), "utf8");
  const used = (name) => new RegExp(`\\b${name}\\b`).test(usage);
  const optional = [...types.values()].flatMap((type) =>
    [...type.members].filter(([, member]) => member.optional).map(([name]) => name),
  );
  assert.deepEqual([...new Set(optional.filter((name) => !used(name)))], [], "optional members no usage line reads");
  const source = uncommented(declarations);
  const methods = [...source.matchAll(/export (?:class|function) (\w+)/g)].flatMap((match) => {
    if (!source.slice(match.index).startsWith("export class")) return [match[1]];
    const classBody = body(source, source.indexOf("{", match.index));
    return [...classBody.matchAll(/^\s*(?:readonly\s+)?(\w+)[(:]/gm)].map((member) => member[1]);
  });
  const unused = methods.filter((name) => name !== "constructor" && !used(name));
  assert.deepEqual([...new Set(unused)], [], "calls no usage line makes");
});

/** Every Rust source file under `dir`. */
function rustFiles(dir) {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return rustFiles(path);
    return name.endsWith(".rs") ? [path] : [];
  });
}

/** The string literals of a union type alias (`"A" | "B"`). */
function literals(name) {
  return splitTop(typeAliases.get(name) ?? "", "|").map((part) => JSON.parse(part));
}

/** Codes only the JS glue throws: FREED, a call on a freed object (scripts/freed-glue.mjs). */
const JS_ONLY_CODES = ["FREED"];

test("ErrorCode lists exactly the codes of the Rust Error and the glue's", () => {
  const source = readFileSync(join(repoRoot, "src", "error.rs"), "utf8");
  const codes = [...source.matchAll(/Error::\w+ \{ \.\. \} => "([A-Z_]+)"/g)].map((match) => match[1]);
  const variants = [...source.slice(source.indexOf("pub enum Error")).matchAll(/^ {4}([A-Z]\w+) \{/gm)];
  assert.equal(codes.length, variants.length, "one code per Error variant");
  assert.deepEqual([...literals("ErrorCode")].sort(), [...codes, ...JS_ONLY_CODES].sort());
});

test("the hand-written input types declare every member the parser reads", () => {
  const source = rustFiles(join(repoRoot, "src", "input")).map((path) => readFileSync(path, "utf8")).join("\n");
  const keysOf = (module) => {
    const at = source.indexOf(`pub mod ${module} {`);
    assert.ok(at >= 0, `the parser's key list ${module}`);
    return [...body(source, source.indexOf("{", at)).matchAll(/key\("([^"]+)"\)/g)].map((match) => match[1]);
  };
  const sessionEvent = allMembers("SessionEvent");
  const notification = allMembers("SessionNotification");
  for (const key of keysOf("event")) {
    assert.ok(sessionEvent.has(key) || notification.has(key), `SessionEvent or SessionNotification declares ${key}`);
  }
  const params = members(notification.get("params").type.replace(/^\{|\}$/g, ""));
  for (const key of keysOf("params")) assert.ok(params.has(key), `SessionNotification.params declares ${key}`);
  const replace = splitTop(typeAliases.get("SurfaceOp"), "|").find((part) => part.startsWith("{"));
  assert.deepEqual([...members(replace.slice(1, -1)).keys()].sort(), [...keysOf("surface_op")].sort());
  const plain = readFileSync(join(repoRoot, "src", "wasm", "plain.rs"), "utf8");
  const optionKeys = [...plain.slice(plain.indexOf("fn window_start_from_json")).matchAll(/map\.get\("(\w+)"\)/g)];
  assert.deepEqual(
    optionKeys.map((match) => match[1]),
    [...allMembers("InspectOptions").keys()],
  );
});
