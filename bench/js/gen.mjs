// Deterministic, seeded workload generator for the benchmarks (not part of the package).
//
//   node bench/js/gen.mjs [--force]     writes bench/data/<workload>.json (gitignored) and
//                                       bench/data/manifest.json; skips files that are up to date
//
// Every workload is a valid session log (BEHAVIOUR.md section 1): replace endpoints are alive
// surface nodes older than the replacing event, start not after end in surface order. The generator
// keeps the surface (alive nodes in surface order) to pick endpoints. Same seed, same bytes.
// Files are JSON arrays with one event per line, readable by JSON.parse, by
// Conversation.loadJson and by promptfold::parse_events. Event data has the harness's shapes
// (BEHAVIOUR.md section 1, docs/context.md): a user message's data is the message itself (compaction
// summaries too), the other surface types carry `{ turn, step, message }`, and a tool result's
// message is a user message holding one tool-result block, so the token estimates count the text.

import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { WORKLOADS } from './workloads.mjs';

const here = dirname(fileURLToPath(import.meta.url));
export const DATA_DIR = join(here, '..', 'data');

// mulberry32: small, fast, and enough for shaping a log.
function rng(seed) {
  let a = seed >>> 0;
  const next = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const int = (lo, hi) => lo + Math.floor(next() * (hi - lo + 1)); // inclusive
  return { next, int };
}

const WORDS = (
  'the agent reads a file and runs the tests then edits the function to handle the empty case ' +
  'before it commits a patch with a clear message about why the parser rejects trailing commas ' +
  'in configuration and how the cache key is derived from the request so that the prefix stays warm'
).split(' ');

function sentence(r, minChars, maxChars) {
  const target = r.int(minChars, maxChars);
  let out = '';
  while (out.length < target) out += (out ? ' ' : '') + WORDS[r.int(0, WORDS.length - 1)];
  return out.slice(0, target);
}

// A coding agent's system prompt: about 2,400 characters.
function systemPrompt(r, version) {
  const lines = [`You are a careful coding agent (prompt revision ${version}).`];
  for (let i = 0; i < 24; i++) lines.push(`- ${sentence(r, 80, 110)}.`);
  return lines.join('\n');
}

// Eight tool definitions (about 1.5 KB of JSON), as a request header carries them.
function toolList(extra) {
  const names = ['read_file', 'write_file', 'edit_file', 'list_dir', 'grep', 'run_command', 'web_fetch', 'todo'];
  const tools = names.map((name) => ({
    name,
    description: `Use ${name} to act on the workspace; returns a short textual result or an error message.`,
    parameters: {
      type: 'object',
      properties: { path: { type: 'string' }, query: { type: 'string' }, limit: { type: 'integer' } },
      required: ['path'],
    },
  }));
  for (let i = 0; i < extra; i++) {
    tools.push({ name: `mcp_tool_${i}`, description: 'A tool from an MCP server.', parameters: { type: 'object', properties: {} } });
  }
  return tools;
}

const CONFIG = { provider: 'deepseek', model: 'deepseek-chat', maxTokens: 8192, temperature: 0, systemPromptUpdate: 'in-history' };

class Log {
  constructor(seed) {
    this.r = rng(seed);
    this.events = [];
    this.seq = 0;
    this.time = 1_760_000_000_000;
    this.surface = []; // alive surface nodes in surface order: { seq, kind }
    this.turn = 0;
    this.step = 0;
    this.headers = 0;
    this.lastTools = undefined;
  }
  emit(type, data, surfaceOp) {
    this.seq += 1;
    this.time += this.r.int(20, 4000);
    const event = { seq: this.seq, time: this.time, type, data };
    if (surfaceOp !== undefined) event.surfaceOp = surfaceOp;
    this.events.push(event);
    return event;
  }
  append(type, data, kind, callId) {
    const event = this.emit(type, data, 'append');
    this.surface.push({ seq: event.seq, kind, callId });
    return event;
  }
  // Replaces surface[from..to] (inclusive indices) with this event's node.
  replace(type, data, from, to, kind, callId) {
    const startSeq = this.surface[from].seq;
    const endSeq = this.surface[to].seq;
    const event = this.emit(type, data, { op: 'replace', startSeq, endSeq });
    const removed = this.surface.splice(from, to - from + 1, { seq: event.seq, kind, callId });
    return { event, removed };
  }
  text(role, body) {
    return { role, content: [{ type: 'text', text: body }] };
  }
  // A tool result as the harness writes it: a user message holding one tool-result block.
  toolMessage(callId, body) {
    return { role: 'user', content: [{ type: 'tool-result', toolCallId: callId, content: [{ type: 'text', text: body }], isError: false }] };
  }
  system(text) {
    return this.append('system/message', { turn: this.turn, step: this.step, message: this.text('system', text) }, 'system');
  }
  header(tools) {
    const toolsText = JSON.stringify(tools);
    const reason = this.headers === 0 ? 'initial' : toolsText !== this.lastTools ? 'change' : 'series';
    this.headers += 1;
    this.lastTools = toolsText;
    return this.emit('request/header', { reason, header: { config: CONFIG, tools } });
  }
  turnStart() {
    this.turn += 1;
    this.step = 0;
    this.emit('turn/start', { turn: this.turn });
    this.append('user/message', this.text('user', sentence(this.r, 50, 300)), 'user');
  }
  turnEnd() {
    this.emit('turn/end', { turn: this.turn });
  }
  stepStart() {
    this.step += 1;
    this.emit('step/start', { turn: this.turn, step: this.step });
  }
  stepEnd() {
    this.emit('step/end', { turn: this.turn, step: this.step });
  }
  assistant() {
    return this.append('assistant/message', { turn: this.turn, step: this.step, message: this.text('assistant', sentence(this.r, 150, 450)) }, 'assistant');
  }
  toolResult() {
    const callId = `call-${this.seq}`;
    const data = { turn: this.turn, step: this.step, message: this.toolMessage(callId, sentence(this.r, 200, 1000)) };
    return this.append('tool/result', data, 'tool', callId);
  }
  prune(index) {
    const { callId } = this.surface[index];
    const data = { turn: this.turn, step: this.step, message: this.toolMessage(callId, '[output pruned]') };
    return this.replace('tool/result', data, index, index, 'pruned', callId).event;
  }
}

// A typical agent session of exactly `n` events: turns of 2 to 8 steps; about one system prompt
// change per 50 events (appended in history); a tool result pruned about every 10 events (an old,
// unpruned one); a compaction every 200 to 400 events that replaces the surface from after the
// first prompt to about 70% of it with a checkpoint (chained: the next one starts at the last
// checkpoint). When a compaction swallows the latest prompt, the harness re-appends it.
function typical(n, seed) {
  const log = new Log(seed);
  const r = log.r;
  let version = 1;
  let prompt = systemPrompt(r, version);
  let extraTools = 0;
  let nextChange = r.int(35, 65);
  let nextPrune = r.int(4, 10);
  let nextCompaction = r.int(200, 400);
  let nextToolChange = r.int(1500, 2500);
  let first = true;
  while (log.events.length < n) {
    log.turnStart();
    const steps = r.int(2, 8);
    for (let s = 0; s < steps && log.events.length < n; s++) {
      log.stepStart();
      if (first) {
        log.system(prompt);
        first = false;
      } else if (log.seq >= nextChange) {
        version += 1;
        prompt = systemPrompt(r, version);
        log.system(prompt);
        nextChange = log.seq + r.int(35, 65);
      }
      if (log.seq >= nextToolChange) {
        extraTools = (extraTools + 1) % 3;
        nextToolChange = log.seq + r.int(1500, 2500);
      }
      log.header(toolList(extraTools));
      log.assistant();
      if (r.next() < 0.85) log.toolResult();
      if (log.seq >= nextPrune) {
        // The oldest unpruned tool result that is not among the last three surface nodes.
        const index = log.surface.findIndex((node, i) => node.kind === 'tool' && i < log.surface.length - 3);
        if (index >= 0) log.prune(index);
        nextPrune = log.seq + r.int(4, 10);
      }
      log.stepEnd();
      if (log.seq >= nextCompaction && log.surface.length > 4) {
        const to = Math.max(1, Math.floor(log.surface.length * 0.7));
        const lastSystem = log.surface.findLastIndex((node) => node.kind === 'system');
        const summary = log.text('user', `Summary of the conversation so far: ${sentence(r, 600, 1000)}`);
        log.replace('user/message', summary, 1, to, 'checkpoint');
        if (lastSystem >= 1 && lastSystem <= to) log.system(prompt);
        nextCompaction = log.seq + r.int(200, 400);
      }
    }
    if (log.events.length < n) log.turnEnd();
  }
  return log.events.slice(0, n);
}

// Prune-heavy: one prompt, then one step per prune; each step appends a tool result and prunes
// the previous step's one, so every prune leaves a surviving replacement endpoint (the
// replacements map grows to `prunes` entries). A new turn every 20 steps.
function pruneHeavy(prunes, seed) {
  const log = new Log(seed);
  const r = log.r;
  log.turnStart();
  log.stepStart();
  log.system(systemPrompt(r, 1));
  log.header(toolList(0));
  log.assistant();
  log.toolResult();
  log.stepEnd();
  for (let i = 0; i < prunes; i++) {
    if (i > 0 && i % 20 === 0) {
      log.turnEnd();
      log.turnStart();
    }
    log.stepStart();
    log.header(toolList(0));
    log.assistant();
    const previous = log.surface.findLastIndex((node) => node.kind === 'tool');
    log.toolResult();
    log.prune(previous);
    log.stepEnd();
  }
  log.turnEnd();
  return log.events;
}

// Update-heavy: an in-history prompt update at every step, `steps` steps, a new turn every 20.
function updateHeavy(steps, seed) {
  const log = new Log(seed);
  const r = log.r;
  const base = systemPrompt(r, 1);
  for (let i = 0; i < steps; i++) {
    if (i % 20 === 0) {
      if (i > 0) log.turnEnd();
      log.turnStart();
    }
    log.stepStart();
    log.system(`${base}\n- Step ${i + 1}: ${sentence(r, 40, 120)}.`);
    log.header(toolList(0));
    log.assistant();
    log.stepEnd();
  }
  log.turnEnd();
  return log.events;
}

export function generate(workload) {
  switch (workload.kind) {
    case 'typical':
      return typical(workload.size, workload.seed);
    case 'prune':
      return pruneHeavy(workload.size, workload.seed);
    case 'update':
      return updateHeavy(workload.size, workload.seed);
    default:
      throw new Error(`unknown workload kind ${workload.kind}`);
  }
}

export function isRelevant(event) {
  return event.type === 'system/message' || (event.surfaceOp !== null && typeof event.surfaceOp === 'object' && event.surfaceOp.op === 'replace');
}

export function dataPath(name) {
  return join(DATA_DIR, `${name}.json`);
}

function describe(events, text) {
  const count = (pred) => events.reduce((n, e) => n + (pred(e) ? 1 : 0), 0);
  return {
    events: events.length,
    relevant: count(isRelevant),
    systemMessages: count((e) => e.type === 'system/message'),
    replaces: count((e) => e.surfaceOp && e.surfaceOp.op === 'replace'),
    compactions: count((e) => e.type === 'user/message' && e.surfaceOp && e.surfaceOp.op === 'replace'),
    prunes: count((e) => e.type === 'tool/result' && e.surfaceOp && e.surfaceOp.op === 'replace'),
    headers: count((e) => e.type === 'request/header'),
    bytes: Buffer.byteLength(text),
    sha256: createHash('sha256').update(text).digest('hex').slice(0, 16),
  };
}

function main() {
  const force = process.argv.includes('--force');
  mkdirSync(DATA_DIR, { recursive: true });
  const generator = createHash('sha256')
    .update(readFileSync(fileURLToPath(import.meta.url)))
    .update(readFileSync(join(here, 'workloads.mjs')))
    .digest('hex')
    .slice(0, 16);
  const manifestPath = join(DATA_DIR, 'manifest.json');
  const old = existsSync(manifestPath) ? JSON.parse(readFileSync(manifestPath, 'utf8')) : {};
  const manifest = { generator, workloads: {} };
  for (const workload of WORKLOADS) {
    const path = dataPath(workload.name);
    const known = old.generator === generator && old.workloads && old.workloads[workload.name];
    if (!force && known && existsSync(path)) {
      manifest.workloads[workload.name] = known;
      continue;
    }
    const t = performance.now();
    const events = generate(workload);
    const text = `[\n${events.map((e) => JSON.stringify(e)).join(',\n')}\n]\n`;
    writeFileSync(path, text);
    manifest.workloads[workload.name] = { ...workload, ...describe(events, text) };
    const info = manifest.workloads[workload.name];
    console.error(`gen: ${workload.name}: ${info.events} events, ${info.relevant} relevant, ${(info.bytes / 1e6).toFixed(1)} MB (${(performance.now() - t).toFixed(0)} ms)`);
  }
  writeFileSync(manifestPath, `${JSON.stringify(manifest, null, 2)}\n`);
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) main();
