// The runnable examples: examples/open-session.mjs on each bundled session file (its header,
// cards and torn line printed as the library reads them), and examples/follow.mjs on a file that
// grows while it runs (cut inside a line and inside a multi-byte character), bounded by --for;
// examples/context-cost.mjs against the library's request contexts and totals, and
// examples/cache-report.mjs against its cache ledger (with and without prices).
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawn, spawnSync } from "node:child_process";
import { appendFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { repoRoot } from "./cases.mjs";
import { promptfold } from "./promptfold.mjs";

const { Conversation } = promptfold;
const sessions = join(repoRoot, "examples", "sessions");
const openSession = join(repoRoot, "examples", "open-session.mjs");
const follow = join(repoRoot, "examples", "follow.mjs");

/** What the library reads from a file: header, torn tail, chat cards and the last prompt's seq. */
function libraryRead(bytes) {
  const conv = new Conversation();
  try {
    const change = conv.loadJson(bytes);
    const promptSeq = conv.stateAt(Number.MAX_SAFE_INTEGER)?.effective?.seq;
    return { session: conv.session, tornTail: change.tornTail, cards: conv.views().chat.map((card) => card.key), length: conv.length, promptSeq };
  } finally {
    conv.free();
  }
}

const run = (args) => spawnSync(process.execPath, args, { cwd: repoRoot, encoding: "utf8", timeout: 30000 });

for (const name of ["session.jsonl", "notifications.jsonl", "seqless.jsonl", "torn.jsonl"]) {
  test(`open-session.mjs prints the header and cards of ${name}`, () => {
    const path = join(sessions, name);
    const expected = libraryRead(readFileSync(path));
    const result = run([openSession, path]);
    assert.equal(result.status, 0, result.stderr);
    const out = result.stdout;
    if (expected.session) assert.match(out, new RegExp(`^session ${expected.session.id} · format ${expected.session.version} · cwd ${expected.session.cwd}`, "m"));
    else assert.match(out, /^no session header/m);
    assert.equal(/^torn: /m.test(out), expected.tornTail !== undefined);
    if (expected.tornTail) assert.match(out, new RegExp(`^torn: line ${expected.tornTail.line} \\(${expected.tornTail.bytes} bytes\\)`, "m"));
    assert.match(out, new RegExp(`^${expected.length} events`, "m"));
    const cards = [...out.matchAll(/^card (\S+) /gm)].map((m) => m[1]);
    assert.deepEqual(cards, expected.cards);
    assert.ok(cards.length >= 2, "the session has prompt cards");
  });
}

test("open-session.mjs opens a zstd-compressed log like the plain one", () => {
  const plain = run([openSession, join(sessions, "session.jsonl")]);
  const compressed = run([openSession, join(sessions, "session.jsonl.zst")]);
  assert.equal(compressed.status, 0, compressed.stderr);
  assert.equal(compressed.stdout, plain.stdout);
});

test("open-session.mjs without a path opens the bundled sample; a format 2 log fails with its code", () => {
  const sample = run([openSession]);
  assert.equal(sample.status, 0, sample.stderr);
  assert.equal(sample.stdout, run([openSession, join(sessions, "session.jsonl")]).stdout);
  const old = run([openSession, join(sessions, "format2.jsonl")]);
  assert.equal(old.status, 1);
  assert.match(old.stderr, /UNSUPPORTED_FORMAT_VERSION/);
});

const contextCost = join(repoRoot, "examples", "context-cost.mjs");

for (const name of ["session.jsonl", "notifications.jsonl"]) {
  test(`context-cost.mjs prints each request's context and the totals of ${name}`, () => {
    const conv = new Conversation();
    let requests;
    let totals;
    try {
      conv.loadJson(readFileSync(join(sessions, name)));
      requests = conv.views().trajectory.requests;
      totals = conv.contextTotals();
    } finally {
      conv.free();
    }
    const result = run([contextCost, join(sessions, name)]);
    assert.equal(result.status, 0, result.stderr);
    const lines = result.stdout.trim().split("\n");
    assert.equal(lines.length, requests.length + 1);
    assert.ok(requests.length >= 2, "the session has requests");
    requests.forEach((request, i) => {
      const c = request.context;
      assert.ok(lines[i].startsWith(`request ${request.startSeq} `), lines[i]);
      assert.ok(lines[i].includes(`: ${c.totalTokens} tokens at seq ${c.seq}: prompt ${c.systemTokens}, superseded prompts ${c.supersededSystemTokens}, tools ${c.toolsTokens}, messages ${c.messageTokens}`), lines[i]);
      assert.equal(lines[i].includes("new series"), c.newSeries, lines[i]);
    });
    assert.match(lines.at(-1), new RegExp(`^${totals.requests} requests, ${totals.newSeries} new series; prompts appended ${totals.promptsAppended}, rewritten ${totals.promptsRewritten}; superseded prompts carried ${totals.supersededSystemTokens} of ${totals.totalTokens} tokens sent`));
    assert.ok(totals.supersededSystemTokens > 0, "an appended prompt is carried as superseded");
  });
}

test("docs/context.md shows what context-cost.mjs prints for the bundled session", () => {
  const doc = readFileSync(join(repoRoot, "docs", "context.md"), "utf8");
  const shown = /`node examples\/context-cost\.mjs \[FILE\]`[\s\S]*?```text\n([\s\S]*?)```/.exec(doc);
  assert.ok(shown, "docs/context.md has the example's output");
  const result = run([contextCost]);
  assert.equal(result.status, 0, result.stderr);
  assert.equal(shown[1], result.stdout);
});

const cacheReport = join(repoRoot, "examples", "cache-report.mjs");
const PRICES = { default: { input: 0.27, cacheRead: 0.07, output: 1.1 }, models: { "deepseek-reasoner": { input: 0.55, cacheRead: 0.14, cacheWrite: 0.2, output: 2.19 } }, cacheTtlMs: 300000 };

/** The words cache-report.mjs must print for a cause. */
function causeWords(cause) {
  const route = (value) => (typeof value === "string" ? value : `${value.provider}/${value.model}`);
  const range = (c) => (c.startSeq === c.endSeq ? `#${c.startSeq}` : `#${c.startSeq}-#${c.endSeq}`);
  switch (cause.kind) {
    case "route": return [`route ${route(cause.from)} -> ${route(cause.to)}`];
    case "tools": return [`tools: ${[...cause.added.map((n) => `+${n}`), ...cause.removed.map((n) => `-${n}`), ...cause.changed.map((n) => `~${n}`)].join(", ")}`];
    case "system-rewrite": return [`system rewrite of ${range(cause)} at #${cause.seq}`, ...cause.sections];
    case "compaction": case "prune": return [`${cause.kind} of ${range(cause)} at #${cause.seq}`];
    case "replacement": return [`replacement of ${range(cause)} at #${cause.seq}`];
    case "series": return ["new series"];
    case "idle": return ["idle "];
    default: throw new Error(`unknown cause ${cause.kind}`);
  }
}

for (const [name, withPrices] of [["cache-breaks.jsonl", false], ["cache-breaks.jsonl", true], ["session.jsonl", false]]) {
  test(`cache-report.mjs prints the ledger of ${name}${withPrices ? " with prices" : ""}`, () => {
    const dir = mkdtempSync(join(tmpdir(), "promptfold-cache-report-"));
    const pricesPath = join(dir, "prices.json");
    writeFileSync(pricesPath, JSON.stringify(PRICES));
    const { cacheTtlMs, ...prices } = PRICES;
    const conv = new Conversation();
    let ledger;
    try {
      conv.loadJson(readFileSync(join(sessions, name)));
      ledger = conv.cacheLedger(withPrices ? { prices, cacheTtlMs } : {});
    } finally {
      conv.free();
    }
    const result = run([cacheReport, join(sessions, name), ...(withPrices ? [pricesPath] : [])]);
    rmSync(dir, { recursive: true, force: true });
    assert.equal(result.status, 0, result.stderr);
    const lines = result.stdout.trim().split("\n");
    const { requests, summary } = ledger;
    assert.ok(requests.length >= 3, "the session has requests");
    assert.equal(lines.length, requests.length + 1 + summary.breaks.length + 1);
    requests.forEach((r, i) => {
      const line = lines[i];
      assert.ok(line.startsWith(`request ${r.seq} `), line);
      assert.ok(line.includes(` at seq ${r.readSeq}: ${r.totalTokens} tokens: `), line);
      assert.ok(line.includes(r.keptTokens === undefined ? "kept unknown, new unknown, broken unknown" : `kept ${r.keptTokens}, new ${r.newTokens}, broken ${r.brokenTokens}`), line);
      const words = r.causes.flatMap(causeWords);
      for (const word of words) assert.ok(line.includes(word), `${line} names ${word}`);
      assert.equal((line.match(/; /g) ?? []).length, r.causes.length + 1, `${line}: one part per cause`);
      assert.ok(line.includes(`cache read ${r.observed.cacheReadTokens ?? "unknown"} of input ${r.observed.inputTokens ?? "unknown"}`), line);
      assert.equal(line.includes("shortfall "), r.shortfallTokens !== undefined, line);
      if (r.shortfallTokens !== undefined) assert.ok(line.includes(`shortfall ${r.shortfallTokens}`), line);
      if (r.savedTokens !== undefined) assert.ok(line.includes(`saved ${r.savedTokens}`), line);
      assert.equal(line.includes("cost $"), r.cost !== undefined, line);
      if (r.cost) assert.ok(line.includes(`cost $${r.cost.total.toFixed(6)}${r.cost.estimated ? " (estimated)" : ""}`), line);
    });
    const rate = (value) => (value === undefined ? "unknown" : `${(value * 100).toFixed(1)}%`);
    assert.equal(lines[requests.length],
      `${summary.requests} requests (${summary.knownRequests} known): sent ${summary.totalTokens} tokens, kept ${summary.keptTokens}, ` +
      `new ${summary.newTokens}, broken ${summary.brokenTokens}; expected hit rate ${rate(summary.expectedHitRate)}, ` +
      `observed hit rate ${rate(summary.observedHitRate)}` +
      (summary.cost === undefined ? "" : `; cost $${summary.cost.total.toFixed(6)}${summary.cost.estimated ? " (partly estimated)" : ""}`));
    summary.breaks.forEach((group, k) => {
      assert.equal(lines[requests.length + 1 + k], `break ${group.kind}: ${group.requests} requests, ${group.brokenTokens} tokens lost${group.cost === undefined ? "" : `, $${group.cost.toFixed(6)}`}`);
    });
    const t = summary.trade;
    assert.equal(lines.at(-1), `trade: saved ${t.savedTokens} tokens by appending prompts, carried ${t.supersededTokens} superseded prompt tokens` +
      (t.balance === undefined ? "" : `; saved $${t.savedCost.toFixed(6)}, carried $${t.carriedCost.toFixed(6)}, balance $${t.balance.toFixed(6)}`));
    assert.equal(t.balance !== undefined, withPrices, "money only with prices");
    if (name === "cache-breaks.jsonl") {
      const kinds = new Set(requests.flatMap((r) => r.causes.map((c) => c.kind)));
      for (const kind of ["route", "tools", "system-rewrite", "compaction", "prune", "replacement"]) assert.ok(kinds.has(kind), `a ${kind} break`);
      assert.equal(kinds.has("idle"), withPrices, "idle needs the TTL of prices.json");
    }
  });
}

test("the committed cache session file is what scripts/make-cache-session.mjs writes", () => {
  const result = run([join(repoRoot, "scripts", "make-cache-session.mjs"), "--check"]);
  assert.equal(result.status, 0, result.stderr);
});

test("follow.mjs feeds a growing file and prints new cards and the prompt in force", async () => {
  const dir = mkdtempSync(join(tmpdir(), "promptfold-follow-"));
  const path = join(dir, "growing.jsonl");
  const whole = readFileSync(join(sessions, "session.jsonl"));
  const expected = libraryRead(whole);
  // Cut inside the first prompt's multi-byte characters, then in two more places.
  const first = whole.indexOf(Buffer.from("提示词", "utf8")) + 1;
  const cuts = [first, Math.floor(whole.length * 0.6), whole.length - 7, whole.length];
  writeFileSync(path, whole.subarray(0, cuts[0]));
  const child = spawn(process.execPath, [follow, path, "--interval", "100", "--for", "20"], { cwd: repoRoot });
  let out = "";
  let err = "";
  child.stdout.on("data", (chunk) => { out += chunk; });
  child.stderr.on("data", (chunk) => { err += chunk; });
  const exited = new Promise((resolve) => child.on("exit", resolve));
  const waitFor = async (pattern, ms = 10000) => {
    const until = Date.now() + ms;
    while (!(typeof pattern === "function" ? pattern() : pattern.test(out))) {
      if (Date.now() > until) throw new Error(`timed out waiting for ${pattern}; stdout:\n${out}\nstderr:\n${err}`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  };
  /** The cards the output's card lines add up to. */
  const printedCards = () => {
    const cards = new Set();
    for (const [, sign, key] of out.matchAll(/^([+~-]) card (\S+)/gm)) {
      if (sign === "-") cards.delete(key);
      else cards.add(key);
    }
    return [...cards].sort();
  };
  const lastPrompt = () => [...out.matchAll(/^prompt in force \((\d+) events\): (.*)$/gm)].at(-1);
  try {
    await waitFor(/^following /m);
    await waitFor(/^session /m);
    for (let i = 1; i < cuts.length; i++) {
      await new Promise((resolve) => setTimeout(resolve, 250));
      appendFileSync(path, whole.subarray(cuts[i - 1], cuts[i]));
    }
    await waitFor(() => printedCards().join() === [...expected.cards].sort().join() && lastPrompt()?.[2].startsWith(`seq ${expected.promptSeq},`));
    child.kill("SIGINT");
    assert.equal(await exited, 0, err);
  } finally {
    if (child.exitCode === null) child.kill("SIGKILL");
    rmSync(dir, { recursive: true, force: true });
  }
  assert.equal(err, "");
  assert.match(out, new RegExp(`^session ${expected.session.id} · format ${expected.session.version}`, "m"));
  // The card lines replayed give the library's final cards; the prompt is printed as it changes.
  assert.deepEqual(printedCards(), [...expected.cards].sort());
  const prompts = [...out.matchAll(/^prompt in force \((\d+) events\): seq (\d+)/gm)].map((m) => Number(m[2]));
  assert.ok(new Set(prompts).size >= 2, `the prompt is printed again when it changes: ${prompts}`);
  assert.equal(prompts.at(-1), expected.promptSeq);
});

test("the committed session files are what scripts/make-session-files.mjs writes", () => {
  const result = run([join(repoRoot, "scripts", "make-session-files.mjs"), "--check"]);
  assert.equal(result.status, 0, result.stderr);
});
