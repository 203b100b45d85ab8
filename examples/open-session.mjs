#!/usr/bin/env node
// Opens a session file as the harness writes it and prints its header and the prompt cards.
//
//   node examples/open-session.mjs [FILE]
//
// FILE: JSON lines with a session header, a JSON array, an SDK notification stream, or any of
// them compressed with zstd (.jsonl.zst; needs the npm package fzstd). Without FILE it opens the
// bundled examples/sessions/session.jsonl. Needs the Node build: bash scripts/build.sh.

import { readFile } from "node:fs/promises";
import { fileURLToPath } from "node:url";

// In a project: import { Conversation } from "promptfold". Here: the repository's Node build.
const { Conversation } = await import("promptfold").catch(() => import("../pkg/node/promptfold.mjs"));

const path = process.argv[2] ?? fileURLToPath(new URL("./sessions/session.jsonl", import.meta.url));
let bytes;
try {
  bytes = new Uint8Array(await readFile(path));
} catch (error) {
  console.error(`${path}: ${error.code ?? error.name}: ${error.message}`);
  process.exit(1);
}
// zstd frames start with the bytes 28 b5 2f fd.
if (bytes[0] === 0x28 && bytes[1] === 0xb5 && bytes[2] === 0x2f && bytes[3] === 0xfd) {
  const { decompress } = await import("fzstd");
  bytes = decompress(bytes);
}

const conversation = new Conversation();
try {
  // Bytes go in as they are: header row, envelopes, CRLF, a BOM, a torn last line are all read.
  const change = conversation.loadJson(bytes);
  const session = conversation.session;
  if (session) {
    const created = Number.isFinite(session.createdAt) ? new Date(session.createdAt).toISOString() : "?";
    console.log(`session ${session.id} · format ${session.version} · cwd ${session.cwd} · created ${created}`);
  } else {
    console.log("no session header (a notification stream or a bare event log)");
  }
  if (change.tornTail) {
    console.log(`torn: line ${change.tornTail.line} (${change.tornTail.bytes} bytes) is incomplete and was left out`);
  }
  console.log(`${conversation.length} events from seq ${conversation.windowStart}`);
  for (const card of conversation.views().chat) {
    const where = card.turn === undefined ? "session" : `turn ${card.turn}${card.step === undefined ? "" : ` · step ${card.step}`}`;
    const title = card.update ? "System prompt updated" : "System prompt";
    console.log(`card ${card.key} ${title} (${where}): ${card.text.split("\n")[0]}`);
  }
  const state = conversation.stateAt(Number.MAX_SAFE_INTEGER); // the state after the last event
  console.log(`prompt in force: ${state?.uncertain ? "withheld" : JSON.stringify(state?.effective?.text ?? null)}`);
} catch (error) {
  console.error(`${path}: ${error.code ?? error.name}: ${error.message}`);
  process.exitCode = 1;
} finally {
  conversation.free();
}
