#!/usr/bin/env node
// What each request of a session kept of the provider's prefix cache, why the rest was lost, and
// what it cost: one line per request (kept / new / broken tokens, the causes in words, the cache
// reads its answer reports), then the session's summary, its breaks by cause and the in-history
// trade. See docs/cache.md.
//
//   node examples/cache-report.mjs [--cache-ttl-ms MS] [FILE [prices.json]]
//
// FILE: a session log as the harness writes it (JSON lines with a header, a JSON array, an SDK
// notification stream). prices.json: the ledger's `prices` option, the file the command's
// `--prices` reads: `{ "default": { "input": 0.27, "cacheRead": 0.07, "output": 1.1 },
// "models": { "deepseek-reasoner": { ... } } }` (dollars per million tokens; `cacheWrite` where
// the provider bills it). --cache-ttl-ms: the provider's cache lifetime (the `cacheTtlMs`
// option, the command's flag of the same name): a request that read less than the structure
// kept after a longer pause lists `idle`. Without FILE it opens
// examples/sessions/cache-breaks.jsonl; examples/prices.json holds DeepSeek's prices. Needs the
// Node build: bash scripts/build.sh.
//
// Money: cents from $1 up ($12.35), four decimals below ($0.0042), `< $0.0001` for an amount
// that would print as $0.0000 (`> -$0.0001` below zero), `$0` for none. A figure the ledger does
// not know (no usage in the log, no request whose cache is known) prints as `unknown`, never 0.

import { readFile } from "node:fs/promises";
import { fileURLToPath } from "node:url";

// In a project: import { Conversation } from "promptfold". Here: the repository's Node build.
const { Conversation } = await import("promptfold").catch(() => import("../pkg/node/promptfold.mjs"));

const range = (start, end) => (start === end ? `#${start}` : `#${start}-#${end}`);
const route = (value) => (typeof value === "string" ? value : value ? `${value.provider}/${value.model}` : "none");
const minutes = (ms) => (ms < 3600000 ? `${Math.round(ms / 60000)} min` : `${(ms / 3600000).toFixed(1)} h`);

/** One cause in words. */
function cause(c) {
  switch (c.kind) {
    case "route":
      return `route ${route(c.from)} -> ${route(c.to)}`;
    case "tools":
      return `tools: ${[...c.added.map((n) => `+${n}`), ...c.removed.map((n) => `-${n}`), ...c.changed.map((n) => `~${n}`)].join(", ")}`;
    case "system-rewrite":
      return `system rewrite of ${range(c.startSeq, c.endSeq)} at #${c.seq}: sections ${c.sections.join(", ") || "none named"}`;
    case "compaction":
    case "prune":
      return `${c.kind} of ${range(c.startSeq, c.endSeq)} at #${c.seq}`;
    case "replacement":
      return `replacement of ${range(c.startSeq, c.endSeq)} at #${c.seq}`;
    case "series":
      return "new series";
    case "idle":
      return `idle ${minutes(c.gapMs)}`;
    default:
      return c.kind;
  }
}

const known = (value) => (value === undefined ? "unknown" : String(value));
/** `count` and the word, plural unless `count` is 1. */
const plural = (count, word) => `${count} ${word}${count === 1 ? "" : "s"}`;

/** An amount of dollars as the header says. */
function dollars(amount) {
  if (amount === undefined) return "unknown";
  const size = Math.abs(amount);
  if (size === 0) return "$0";
  if (size < 0.00005) return amount < 0 ? "> -$0.0001" : "< $0.0001";
  // 0.99995 and up would print as 1.0000: cents from there.
  return `${amount < 0 ? "-" : ""}$${size.toFixed(size < 0.99995 ? 4 : 2)}`;
}

const args = process.argv.slice(2);
const options = {};
if (args[0] === "--cache-ttl-ms") {
  if (args.length < 2) {
    console.error("usage: node examples/cache-report.mjs [--cache-ttl-ms MS] [FILE [prices.json]]");
    process.exit(2);
  }
  options.cacheTtlMs = Number(args[1]);
  args.splice(0, 2);
}
const [path = fileURLToPath(new URL("./sessions/cache-breaks.jsonl", import.meta.url)), pricesPath] = args;
if (pricesPath) {
  try {
    options.prices = JSON.parse(await readFile(pricesPath, "utf8"));
  } catch (error) {
    console.error(`${pricesPath}: ${error.code ?? error.name}: ${error.message}`);
    process.exit(1);
  }
}
const conversation = new Conversation();
try {
  conversation.loadJson(new Uint8Array(await readFile(path)));
  const { requests, summary } = conversation.cacheLedger(options);
  const steps = conversation.views().trajectory.requests;
  requests.forEach((r, i) => {
    const where = steps[i]?.turn === undefined ? "" : ` (turn ${steps[i].turn}, step ${steps[i].step ?? "?"})`;
    const cache = r.keptTokens === undefined
      ? "kept unknown, new unknown, broken unknown"
      : `kept ${r.keptTokens}, new ${r.newTokens}, broken ${r.brokenTokens}`;
    const o = r.observed;
    const more = [
      `cache read ${known(o.cacheReadTokens)} of input ${known(o.inputTokens)}`,
      r.shortfallTokens === undefined ? "" : `shortfall ${r.shortfallTokens}`,
      r.savedTokens === undefined ? "" : `saved ${r.savedTokens}`,
      r.cost ? `cost ${dollars(r.cost.total)}${r.cost.estimated ? " (estimated)" : ""}` : "",
    ].filter(Boolean);
    const causes = r.causes.length ? `; ${r.causes.map(cause).join("; ")}` : "";
    console.log(`request ${r.seq}${where} at seq ${r.readSeq}: ${plural(r.totalTokens, "token")}: ${cache}${causes}; ${more.join(", ")}`);
  });
  const rate = (value) => (value === undefined ? "unknown" : `${(value * 100).toFixed(1)}%`);
  // The kept, new and broken sums count the known requests only: with none, they are unknown.
  const sum = (value) => (summary.knownRequests === 0 ? "unknown" : String(value));
  console.log(
    `${plural(summary.requests, "request")} (${summary.knownRequests} known): sent ${plural(summary.totalTokens, "token")}, ` +
      `kept ${sum(summary.keptTokens)}, new ${sum(summary.newTokens)}, broken ${sum(summary.brokenTokens)}; ` +
      `expected hit rate ${rate(summary.expectedHitRate)}, observed hit rate ${rate(summary.observedHitRate)}` +
      (summary.cost === undefined ? "" : `; cost ${dollars(summary.cost.total)}${summary.cost.estimated ? " (partly estimated)" : ""}`),
  );
  for (const group of summary.breaks) {
    console.log(
      `break ${group.kind}: ${plural(group.requests, "request")}, ${plural(group.brokenTokens, "token")} lost` +
        (group.cost === undefined ? "" : `, ${dollars(group.cost)}`),
    );
  }
  const t = summary.trade;
  console.log(
    `trade: saved ${plural(t.savedTokens, "token")} by appending prompts, carried ${plural(t.supersededTokens, "superseded prompt token")}` +
      (t.balance === undefined ? "" : `; saved ${dollars(t.savedCost)}, carried ${dollars(t.carriedCost)}, balance ${dollars(t.balance)}`),
  );
} catch (error) {
  console.error(`${path}: ${error.code ?? error.name}: ${error.message}`);
  process.exitCode = 1;
} finally {
  conversation.free();
}
