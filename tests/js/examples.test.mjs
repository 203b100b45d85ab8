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
const PRICES = JSON.parse(readFileSync(join(repoRoot, "examples", "prices.json"), "utf8"));
// Prices that put every amount of cache-breaks.jsonl at $1 or more (or $0), and below $0.0001.
const LARGE = { default: { input: 20000, cacheRead: 5000, output: 40000 } };
const TINY = { default: { input: 0.0001, cacheRead: 0.00002, output: 0.0004 } };
// The provider's cache lifetime given with --cache-ttl-ms (five minutes: DeepSeek's and others').
const TTL = 300000;

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

/** A count and its noun as English writes them: "1 request", "0 requests", "2 requests". */
const counted = (count, word) => `${count} ${word}${count === 1 ? "" : "s"}`;
/** An amount as cache-report.mjs prints it: "$12.35", "-$0.0042", "< $0.0001", "$0". */
const MONEY = String.raw`(?:[<>] )?-?\$[0-9.]+`;

/** Checks that `text` says `amount` dollars by the rules of the example's header comment. */
function assertDollars(text, amount, where) {
  assert.equal(typeof amount, "number", `${where}: the ledger has the amount`);
  if (amount === 0) return assert.equal(text, "$0", where);
  if (Math.abs(amount) < 0.00005) return assert.equal(text, amount < 0 ? "> -$0.0001" : "< $0.0001", where);
  const parts = /^(-?)\$(\d+)\.(\d+)$/.exec(text);
  assert.ok(parts, `${where}: ${text} is an amount`);
  assert.equal(parts[1] === "-", amount < 0, `${where}: sign of ${text} for ${amount}`);
  const decimals = parts[3].length;
  assert.equal(decimals, Math.abs(amount) >= 1 ? 2 : 4, `${where}: ${text} for ${amount}`);
  const shown = Number(`${parts[2]}.${parts[3]}`);
  assert.ok(Math.abs(shown - Math.abs(amount)) <= 0.5 * 10 ** -decimals + 1e-12, `${where}: ${text} rounds ${amount}`);
}

/** Runs cache-report.mjs on `file` with `prices` (none: no prices file) and `--cache-ttl-ms
 * ttl` (none: no TTL); its stdout lines. */
function report(file, prices, ttl) {
  const dir = mkdtempSync(join(tmpdir(), "promptfold-cache-report-"));
  try {
    const pricesPath = join(dir, "prices.json");
    if (prices) writeFileSync(pricesPath, JSON.stringify(prices));
    const result = run([cacheReport, ...(ttl === undefined ? [] : ["--cache-ttl-ms", String(ttl)]), file, ...(prices ? [pricesPath] : [])]);
    assert.equal(result.status, 0, result.stderr);
    return result.stdout.trim().split("\n");
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The cache ledger of `bytes` with `prices` and the cache lifetime `ttl` (each optional). */
function ledgerOf(bytes, prices, ttl) {
  const conv = new Conversation();
  try {
    conv.loadJson(bytes);
    return conv.cacheLedger({ prices, cacheTtlMs: ttl });
  } finally {
    conv.free();
  }
}

/** Checks every line of cache-report.mjs's output against the ledger it prints. */
function assertReport(lines, ledger, withPrices) {
  const { requests, summary } = ledger;
  assert.equal(lines.length, requests.length + 1 + summary.breaks.length + 1);
  for (const line of lines) assert.doesNotMatch(line, /(?<![\d.])1 (requests|tokens)\b/, `${line}: a plural after 1`);
  requests.forEach((r, i) => {
    const line = lines[i];
    assert.ok(line.startsWith(`request ${r.seq} `), line);
    assert.ok(line.includes(` at seq ${r.readSeq}: ${counted(r.totalTokens, "token")}: `), line);
    assert.ok(line.includes(r.keptTokens === undefined ? "kept unknown, new unknown, broken unknown" : `kept ${r.keptTokens}, new ${r.newTokens}, broken ${r.brokenTokens}`), line);
    const words = r.causes.flatMap(causeWords);
    for (const word of words) assert.ok(line.includes(word), `${line} names ${word}`);
    assert.equal((line.match(/; /g) ?? []).length, r.causes.length + 1, `${line}: one part per cause`);
    assert.ok(line.includes(`cache read ${r.observed.cacheReadTokens ?? "unknown"} of input ${r.observed.inputTokens ?? "unknown"}`), line);
    assert.equal(line.includes("shortfall "), r.shortfallTokens !== undefined, line);
    if (r.shortfallTokens !== undefined) assert.ok(line.includes(`shortfall ${r.shortfallTokens}`), line);
    if (r.savedTokens !== undefined) assert.ok(line.includes(`saved ${r.savedTokens}`), line);
    const cost = new RegExp(`, cost (${MONEY})( \\(estimated\\))?$`).exec(line);
    assert.equal(cost !== null, r.cost !== undefined, line);
    if (r.cost) {
      assertDollars(cost[1], r.cost.total, line);
      assert.equal(cost[2] !== undefined, r.cost.estimated, line);
    }
  });
  const rate = (value) => (value === undefined ? "unknown" : `${(value * 100).toFixed(1)}%`);
  const sum = (value) => (summary.knownRequests === 0 ? "unknown" : String(value));
  const [total, totalCost, partly] = lines[requests.length].split(new RegExp(`; cost (${MONEY})( \\(partly estimated\\))?$`));
  assert.equal(total,
    `${counted(summary.requests, "request")} (${summary.knownRequests} known): sent ${counted(summary.totalTokens, "token")}, ` +
    `kept ${sum(summary.keptTokens)}, new ${sum(summary.newTokens)}, broken ${sum(summary.brokenTokens)}; ` +
    `expected hit rate ${rate(summary.expectedHitRate)}, observed hit rate ${rate(summary.observedHitRate)}`);
  assert.equal(totalCost !== undefined, summary.cost !== undefined);
  if (summary.cost) {
    assertDollars(totalCost, summary.cost.total, "summary");
    assert.equal(partly !== undefined, summary.cost.estimated);
  }
  summary.breaks.forEach((group, k) => {
    const [words, amount] = lines[requests.length + 1 + k].split(new RegExp(`, (${MONEY})$`));
    assert.equal(words, `break ${group.kind}: ${counted(group.requests, "request")}, ${counted(group.brokenTokens, "token")} lost`);
    assert.equal(amount !== undefined, group.cost !== undefined, words);
    if (group.cost !== undefined) assertDollars(amount, group.cost, words);
  });
  const t = summary.trade;
  const [trade, saved, carried, balance] = lines.at(-1).split(new RegExp(`; saved (${MONEY}), carried (${MONEY}), balance (${MONEY})$`));
  assert.equal(trade, `trade: saved ${counted(t.savedTokens, "token")} by appending prompts, carried ${counted(t.supersededTokens, "superseded prompt token")}`);
  assert.equal(t.balance !== undefined, withPrices, "money only with prices");
  assert.equal(balance !== undefined, withPrices, lines.at(-1));
  if (withPrices) {
    assertDollars(saved, t.savedCost, "trade saved");
    assertDollars(carried, t.carriedCost, "trade carried");
    assertDollars(balance, t.balance, "trade balance");
  }
}

for (const [name, prices, ttl, label] of [
  ["cache-breaks.jsonl", undefined, undefined, ""],
  ["cache-breaks.jsonl", undefined, TTL, " with a TTL"],
  ["cache-breaks.jsonl", PRICES, undefined, " with examples/prices.json"],
  ["cache-breaks.jsonl", PRICES, TTL, " with examples/prices.json and a TTL"],
  ["cache-breaks.jsonl", LARGE, TTL, " with prices that cost dollars"],
  ["cache-breaks.jsonl", TINY, TTL, " with prices below $0.0001"],
  ["session.jsonl", undefined, undefined, ""],
]) {
  test(`cache-report.mjs prints the ledger of ${name}${label}`, () => {
    const path = join(sessions, name);
    const ledger = ledgerOf(readFileSync(path), prices, ttl);
    assert.ok(ledger.requests.length >= 3, "the session has requests");
    const lines = report(path, prices, ttl);
    assertReport(lines, ledger, prices !== undefined);
    const all = lines.join("\n");
    if (prices === LARGE) assert.match(all, /, cost \$\d+\.\d\d\b(?!\d)/, "amounts of dollars in cents");
    if (prices === TINY) assert.match(all, /< \$0\.0001/, "amounts below $0.0001");
    if (prices === PRICES) assert.match(all, /\$0\.\d{4}\b/, "amounts below $1 in four decimals");
    if (name === "cache-breaks.jsonl") {
      const kinds = new Set(ledger.requests.flatMap((r) => r.causes.map((c) => c.kind)));
      for (const kind of ["route", "tools", "system-rewrite", "compaction", "prune", "replacement"]) assert.ok(kinds.has(kind), `a ${kind} break`);
      assert.equal(kinds.has("idle"), ttl !== undefined, "idle needs the TTL of --cache-ttl-ms");
    }
  });
}

test("cache-report.mjs of a session with one request: 1 request, its sums unknown, not 0", () => {
  const whole = readFileSync(join(sessions, "cache-breaks.jsonl"), "utf8");
  const second = ledgerOf(Buffer.from(whole), undefined).requests[1].seq;
  // The header and the events before the second request's step start.
  const rows = whole.split("\n").filter((line) => line !== "" && !(JSON.parse(line).seq >= second));
  const dir = mkdtempSync(join(tmpdir(), "promptfold-cache-report-"));
  try {
    const path = join(dir, "one-request.jsonl");
    writeFileSync(path, rows.join("\n") + "\n");
    for (const prices of [undefined, PRICES]) {
      const ledger = ledgerOf(readFileSync(path), prices);
      assert.equal(ledger.requests.length, 1);
      assert.equal(ledger.summary.knownRequests, 0);
      const lines = report(path, prices);
      assertReport(lines, ledger, prices !== undefined);
      assert.match(lines[1], /^1 request \(0 known\): sent \d+ tokens, kept unknown, new unknown, broken unknown; expected hit rate unknown/);
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test("docs/demo-cache.md shows what cache-report.mjs prints with examples/prices.json", () => {
  const doc = readFileSync(join(repoRoot, "docs", "demo-cache.md"), "utf8");
  const shown = /`node examples\/cache-report\.mjs --cache-ttl-ms 300000 examples\/sessions\/cache-breaks\.jsonl examples\/prices\.json`[\s\S]*?```text\n([\s\S]*?)```/.exec(doc);
  assert.ok(shown, "docs/demo-cache.md has the example's output");
  const result = run([cacheReport, "--cache-ttl-ms", "300000", join(sessions, "cache-breaks.jsonl"), join(repoRoot, "examples", "prices.json")]);
  assert.equal(result.status, 0, result.stderr);
  assert.equal(shown[1], result.stdout);
});

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

test("each example names a file it cannot read on one line of stderr and exits 1", () => {
  const missing = join(tmpdir(), "promptfold-no-such-session.jsonl");
  const cases = [
    [[openSession, missing], missing],
    [[follow, missing, "--for", "1"], missing],
    [[join(repoRoot, "examples", "context-cost.mjs"), missing], missing],
    [[join(repoRoot, "examples", "cache-report.mjs"), missing], missing],
    // The prices file, not the session, is the one named when it is missing.
    [[join(repoRoot, "examples", "cache-report.mjs"), join(sessions, "session.jsonl"), `${missing}.prices`], `${missing}.prices`],
  ];
  for (const [args, named] of cases) {
    const result = run(args);
    assert.equal(result.status, 1, `${args.join(" ")}: ${result.stderr}`);
    assert.equal(result.stderr, `${named}: ENOENT: ENOENT: no such file or directory, open '${named}'\n`, args.join(" "));
  }
});

test("cache-report.mjs with --cache-ttl-ms and no value prints its usage and exits 2", () => {
  const result = run([join(repoRoot, "examples", "cache-report.mjs"), "--cache-ttl-ms"]);
  assert.equal(result.status, 2, result.stderr);
  assert.match(result.stderr, /^usage: node examples\/cache-report\.mjs /);
});
