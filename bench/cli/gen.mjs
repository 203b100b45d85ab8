// Generates session logs for the command's benchmark (bench/cli/run.sh) and its DuckDB test, in
// the harness's layout: <out>/<scope>/<session-id>/session.v4.jsonl. Deterministic for a seed.
// Each step holds a user message or a tool result (a few KB of text), a request header, and an
// answer with usage; prompts are updated in history now and then, tool results pruned,
// histories compacted, tool sets changed. Never committed: write to /tmp.
//
//   node bench/cli/gen.mjs OUT --sessions 2000 --bytes 4e9     # a folder, ~bytes in total
//   node bench/cli/gen.mjs OUT --single 2e9                    # one session file of ~2e9 bytes
//   node bench/cli/gen.mjs OUT --sessions 40 --bytes 4e6 --seed 7
//   node bench/cli/gen.mjs OUT --flat 1e6                      # one session that never shrinks:
//                                                              # 1e6 short user messages appended,
//                                                              # a step (header, answer) per 1,000,
//                                                              # no prune, compaction or rewrite
import { closeSync, mkdirSync, openSync, writeSync } from 'node:fs';
import { join } from 'node:path';

const args = process.argv.slice(2);
const out = args[0];
if (!out) {
  console.error('usage: node bench/cli/gen.mjs OUT [--sessions N --bytes B | --single B | --flat N] [--seed S]');
  process.exit(2);
}
const option = (name, fallback) => {
  const at = args.indexOf(name);
  return at >= 0 ? Number(args[at + 1]) : fallback;
};
const single = option('--single', 0);
const flat = option('--flat', 0);
const sessions = single || flat ? 1 : option('--sessions', 2000);
const perSession = single || option('--bytes', 4e9) / sessions;
let state = option('--seed', 1) >>> 0 || 1;

// xorshift32: the same files for the same seed.
const random = () => {
  state ^= state << 13;
  state >>>= 0;
  state ^= state >>> 17;
  state ^= state << 5;
  state >>>= 0;
  return state / 4294967296;
};
const pick = (n) => Math.floor(random() * n);
const WORDS = 'the a file test build fix read edit cache prompt tool step run check pass fail value line'.split(' ');
const prose = (bytes) => {
  const words = [];
  let length = 0;
  while (length < bytes) {
    const word = WORDS[pick(WORDS.length)];
    words.push(word);
    length += word.length + 1;
  }
  return words.join(' ');
};
const tool = (name) => ({
  name,
  description: `${name}: ${prose(120)}`,
  parameters: { type: 'object', properties: { path: { type: 'string' } } },
});
const TOOLS = ['read', 'edit', 'bash', 'grep', 'glob', 'web'].map(tool);
const text = (value) => [{ type: 'text', text: value }];

// A session file being written: its header row, then `event` per event (returns its seq);
// `close` returns the bytes written.
function sessionWriter(path, id, created) {
  const fd = openSync(path, 'w');
  let pending = [];
  let pendingBytes = 0;
  let written = 0;
  const flush = () => {
    const buffer = Buffer.from(pending.join(''));
    writeSync(fd, buffer);
    written += buffer.length;
    pending = [];
    pendingBytes = 0;
  };
  const row = (value) => {
    const line = `${JSON.stringify(value)}\n`;
    pending.push(line);
    pendingBytes += line.length;
    if (pendingBytes > 1 << 20) flush();
  };
  row({ type: 'session', version: 4, id, createdAt: created, cwd: '/w', isSeeded: false, delegationDepth: 0 });
  let seq = 0;
  let time = created;
  const event = (type, data, surfaceOp) => {
    seq += 1;
    time += 1000 + pick(60000);
    const value = { seq, time, type, data };
    if (surfaceOp) value.surfaceOp = surfaceOp;
    row(value);
    return seq;
  };
  const close = () => {
    flush();
    closeSync(fd);
    return written;
  };
  return { event, close, bytes: () => written + pendingBytes, lastSeq: () => seq };
}

function writeSession(path, id, created, target) {
  const { event, close, bytes, lastSeq } = sessionWriter(path, id, created);
  let tools = TOOLS.slice(0, 3);
  let model = 'deepseek-chat';
  let version = 1;
  let surface = []; // seqs of the surface nodes, in order
  let cached = 0;
  for (let turn = 1; bytes() < target; turn += 1) {
    event('turn/start', { turn });
    for (let step = 1; step <= 1 + pick(6) && bytes() < target; step += 1) {
      event('step/start', { turn, step });
      const d = { turn, step };
      if (surface.length === 0) {
        surface.push(event('system/message', { ...d, message: { role: 'system', content: text(`# Assistant\n\n${prose(1500)}`) } }, 'append'));
      } else if (random() < 0.05) {
        version += 1;
        surface.push(event('system/message', { ...d, message: { role: 'system', content: text(`# Assistant\n\n${prose(1500)} v${version}`) } }, 'append'));
      }
      if (random() < 0.02 && surface.length > 6) {
        const start = surface[1];
        const end = surface[surface.length - 2];
        const at = event('user/message', { id: `summary-${lastSeq()}`, role: 'user', content: text(`Summary: ${prose(800)}`) }, { op: 'replace', startSeq: start, endSeq: end });
        surface = [surface[0], at, surface[surface.length - 1]];
      } else if (random() < 0.03 && surface.length > 4) {
        const target = surface[2];
        const at = event('tool/result', { ...d, message: { role: 'user', content: [{ type: 'tool-result', toolCallId: 'c', content: text('[pruned]'), isError: false }] } }, { op: 'replace', startSeq: target, endSeq: target });
        surface[2] = at;
      }
      if (step === 1) {
        surface.push(event('user/message', { ...d, id: `u-${lastSeq()}`, role: 'user', content: text(prose(300 + pick(1500))) }, 'append'));
      } else {
        surface.push(event('tool/result', { ...d, message: { role: 'user', content: [{ type: 'tool-result', toolCallId: `c-${lastSeq()}`, content: text(prose(500 + pick(4000))), isError: false }] } }, 'append'));
      }
      if (random() < 0.02) tools = TOOLS.slice(0, 2 + pick(TOOLS.length - 1));
      if (random() < 0.005) model = model === 'deepseek-chat' ? 'deepseek-reasoner' : 'deepseek-chat';
      event('request/header', { reason: step === 1 ? 'initial' : 'series', header: { config: { provider: 'deepseek', model }, tools } });
      const input = 2000 + surface.length * 400 + pick(500);
      const cacheRead = Math.min(cached, input - 100);
      cached = input;
      // The harness's counts are disjoint: inputTokens is the part not read from the cache.
      const usage = { inputTokens: input - cacheRead, outputTokens: 50 + pick(600), cacheReadTokens: cacheRead };
      surface.push(event('assistant/message', { ...d, message: { role: 'assistant', content: text(prose(200 + pick(800))), usage } }, 'append'));
      event('step/end', { turn, step });
    }
    event('turn/end', { turn });
  }
  return close();
}

// The worst case of a reader that keeps the live context: every node survives. `messages` user
// messages of a few words, a step per 1,000 of them, one turn.
function writeFlatSession(path, id, created, messages) {
  const { event, close } = sessionWriter(path, id, created);
  const tools = TOOLS.slice(0, 3);
  const config = { provider: 'deepseek', model: 'deepseek-chat' };
  event('turn/start', { turn: 1 });
  let step = 0;
  for (let index = 0; index < messages; index += 1) {
    if (index % 1000 === 0) {
      step += 1;
      event('step/start', { turn: 1, step });
      if (step === 1) event('system/message', { turn: 1, step, message: { role: 'system', content: text(`# Assistant\n\n${prose(1500)}`) } }, 'append');
    }
    const d = { turn: 1, step };
    event('user/message', { id: `u-${index}`, role: 'user', content: text(prose(4)) }, 'append');
    if (index % 1000 === 999 || index === messages - 1) {
      event('request/header', { reason: step === 1 ? 'initial' : 'series', header: { config, tools } });
      const usage = { inputTokens: 2000 + index * 4, outputTokens: 50 + pick(600), cacheReadTokens: 0 };
      event('assistant/message', { ...d, message: { role: 'assistant', content: text(prose(40)), usage } }, 'append');
      event('step/end', d);
    }
  }
  event('turn/end', { turn: 1 });
  return close();
}

const T0 = Date.UTC(2026, 9, 1);
let total = 0;
for (let index = 0; index < sessions; index += 1) {
  const scope = `-w-project-${index % 7}`;
  const id = `s-${String(index).padStart(5, '0')}`;
  const dir = join(out, scope, id);
  mkdirSync(dir, { recursive: true });
  // Sizes vary around the mean (0.2x to 1.8x), the total stays near --bytes.
  const path = join(dir, 'session.v4.jsonl');
  const created = T0 + index * 3_600_000;
  if (flat) {
    total += writeFlatSession(path, id, created, flat);
    continue;
  }
  const target = single ? perSession : perSession * (0.2 + 1.6 * random());
  total += writeSession(path, id, created, target);
}
console.log(`gen: ${sessions} sessions, ${total} bytes in ${out}`);
