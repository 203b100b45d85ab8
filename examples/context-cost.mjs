#!/usr/bin/env node
// What each request of a session sent the model, and what the appended prompts cost: one line
// per request (its context's estimated tokens by part, whether the prefix cache was expected
// lost, the cache reads its answer reports), then the session's totals. See docs/context.md.
//
//   node examples/context-cost.mjs [FILE]
//
// FILE: a session log as the harness writes it (JSON lines with a header, a JSON array, an SDK
// notification stream). Without FILE it opens the bundled examples/sessions/session.jsonl.
// Needs the Node build: bash scripts/build.sh.

import { readFile } from "node:fs/promises";

// In a project: import { Conversation } from "promptfold". Here: the repository's Node build.
const { Conversation } = await import("promptfold").catch(() => import("../pkg/node/promptfold.mjs"));

const path = process.argv[2] ?? new URL("./sessions/session.jsonl", import.meta.url);
const conversation = new Conversation();
try {
  conversation.loadJson(new Uint8Array(await readFile(path)));
  for (const request of conversation.views().trajectory.requests) {
    const c = request.context;
    const where = request.turn === undefined ? "" : ` (turn ${request.turn}, step ${request.step ?? "?"})`;
    const cache = typeof c.usage?.cacheReadTokens === "number" ? `, cache read ${c.usage.cacheReadTokens}` : "";
    console.log(
      `request ${request.startSeq}${where}: ${c.totalTokens} tokens at seq ${c.seq}: ` +
        `prompt ${c.systemTokens}, superseded prompts ${c.supersededSystemTokens}, ` +
        `tools ${c.toolsTokens}, messages ${c.messageTokens}` +
        `${c.newSeries ? ", new series" : ""}${c.incomplete ? ", incomplete" : ""}${cache}`,
    );
  }
  const t = conversation.contextTotals();
  console.log(
    `${t.requests} requests, ${t.newSeries} new series; prompts appended ${t.promptsAppended}, ` +
      `rewritten ${t.promptsRewritten}; superseded prompts carried ${t.supersededSystemTokens} of ` +
      `${t.totalTokens} tokens sent; cache read ${t.cacheReadTokens} tokens in ${t.answersWithCacheReads} answers`,
  );
} catch (error) {
  console.error(`${path}: ${error.code ?? error.name}: ${error.message}`);
  process.exitCode = 1;
} finally {
  conversation.free();
}
