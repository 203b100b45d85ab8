#!/usr/bin/env node
// Follows a session file while the harness writes it: reads only the bytes added since the last
// read and hands them to `Conversation.feed`, which keeps an unfinished last line until its end
// arrives. Prints the header, every new or changed prompt card and the prompt in force.
//
//   node examples/follow.mjs [FILE] [--interval MS] [--for SECONDS]
//
// FILE defaults to the bundled examples/sessions/session.jsonl. It is watched with fs.watch and,
// as a fallback (network drives, some editors), re-checked every --interval ms (default 500).
// --for stops after that many seconds (default: run until Ctrl-C). Needs bash scripts/build.sh.

import { open, stat } from "node:fs/promises";
import { watch } from "node:fs";
import { fileURLToPath } from "node:url";

// In a project: import { Conversation } from "promptfold". Here: the repository's Node build.
const { Conversation } = await import("promptfold").catch(() => import("../pkg/node/promptfold.mjs"));

const args = process.argv.slice(2);
const option = (name, fallback) => {
  const i = args.indexOf(name);
  if (i < 0) return fallback;
  const [, value] = args.splice(i, 2);
  return Number(value);
};
const intervalMs = option("--interval", 500);
const forSeconds = option("--for", Infinity);
const path = args[0] ?? fileURLToPath(new URL("./sessions/session.jsonl", import.meta.url));

const conversation = new Conversation();
let file;
try {
  file = await open(path, "r");
} catch (error) {
  console.error(`${path}: ${error.code ?? error.name}: ${error.message}`);
  process.exit(1);
}
let offset = 0;
let reading = false;
let again = false;
let lastPrompt;
let headerShown = false;
let stopped = false;

function where(card) {
  if (card.turn === undefined) return "session";
  return card.step === undefined ? `turn ${card.turn}` : `turn ${card.turn} · step ${card.step}`;
}

function report(change) {
  const session = conversation.session;
  if (session && !headerShown) {
    headerShown = true;
    console.log(`session ${session.id} · format ${session.version} · cwd ${session.cwd}`);
  }
  for (const card of change.chat.added) console.log(`+ card ${card.key} (${where(card)}): ${card.text.split("\n")[0]}`);
  for (const card of change.chat.changed) console.log(`~ card ${card.key} (${where(card)}): ${card.text.split("\n")[0]}`);
  for (const key of change.chat.removed) console.log(`- card ${key}`);
  const state = conversation.stateAt(Number.MAX_SAFE_INTEGER); // after the last loaded event
  const effective = state?.effective;
  const prompt = state === undefined ? "none" : state.uncertain ? "withheld"
    : effective ? `seq ${effective.seq}, ${JSON.stringify(effective.text.length > 60 ? `${effective.text.slice(0, 60)}…` : effective.text)}` : "none";
  if (prompt !== lastPrompt) {
    lastPrompt = prompt;
    console.log(`prompt in force (${conversation.length} events): ${prompt}`);
  }
}

/** Reads what was added since the last read and feeds it; one read at a time. */
async function readNew() {
  if (stopped) return;
  if (reading) { again = true; return; }
  reading = true;
  try {
    do {
      again = false;
      const { size } = await stat(path);
      if (size < offset) throw new Error(`${path} shrank from ${offset} to ${size} bytes; start again`);
      if (size === offset || stopped) continue;
      const chunk = new Uint8Array(size - offset);
      const { bytesRead } = await file.read(chunk, 0, chunk.length, offset);
      offset += bytesRead;
      if (stopped) return;
      report(conversation.feed(chunk.subarray(0, bytesRead)));
    } while (again);
  } catch (error) {
    console.error(`${error.code ?? error.name}: ${error.message}`);
    stop(1);
  } finally {
    reading = false;
  }
}

const watcher = watch(path, () => void readNew());
const timer = setInterval(() => void readNew(), intervalMs);
const deadline = Number.isFinite(forSeconds) ? setTimeout(() => stop(0), forSeconds * 1000) : undefined;
process.on("SIGINT", () => stop(0));

function stop(code) {
  if (stopped) return;
  stopped = true;
  watcher.close();
  clearInterval(timer);
  clearTimeout(deadline);
  void file.close();
  conversation.free();
  process.exitCode = code;
}

console.log(`following ${path}`);
await readNew();
