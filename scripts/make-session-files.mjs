// Writes the session files in examples/sessions/: small logs in the shapes the harness writes
// (BEHAVIOUR.md section 10), used by the examples, their test, the framed JS tests and the demo's
// end-to-end test. Deterministic: run it again and `git diff` shows nothing (the .zst file is
// made by Debian's `zstd`, see below).
//
//   node scripts/make-session-files.mjs            # writes the files
//   node scripts/make-session-files.mjs --check    # exits 1 when a committed file differs
//
// session.jsonl          header (format 4, extra members), two turns: prompts, a tool prune, a
//                        compaction, developer/message appends and a replacement
// notifications.jsonl    the same events as an SDK notification stream, with status rows
// seqless.jsonl          the same log as the harness's snapshot tests write it (no seq, no time)
// torn.jsonl             BOM, \r\n line ends, a last line cut inside a multi-byte character
// format2.jsonl          a header of format 2 (UNSUPPORTED_FORMAT_VERSION)
// session.jsonl.zst      session.jsonl compressed by `zstd -19` (skipped with a warning when the
//                        zstd command is missing: apt-get install zstd)

import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
export const sessionsDir = join(root, 'examples', 'sessions');
const T0 = 1790000000000;

const text = (value) => [{ type: 'text', text: value }];
const TOOLS = [
  { name: 'read', description: 'Read a file', parameters: { type: 'object', properties: { path: { type: 'string' } } } },
  { name: 'edit', description: 'Edit a file', parameters: { type: 'object', properties: { path: { type: 'string' } } } },
];
const CONFIG = { provider: 'deepseek', model: 'deepseek-chat', temperature: 0.2 };

/** The session's events, seq 0 on, as the harness writes them (format 4). */
export function sessionEvents() {
  const events = [];
  const add = (type, data, extra = {}) => {
    const seq = events.length;
    events.push({ seq, time: T0 + 1000 + seq * 37, type, data, ...extra });
    return seq;
  };
  const system = (turn, step, body, surfaceOp = 'append', extra = {}) => add('system/message', {
    turn, step, message: { id: `sys-${events.length}`, role: 'system', content: text(body), source: { kind: 'plugin', plugin: '@deepseek-ai/dsh-system-prompt' } },
  }, { surfaceOp, ...extra });
  const developer = (turn, step, body, surfaceOp = 'append', extra = {}) => add('developer/message', {
    turn, step, message: { id: `dev-${events.length}`, role: 'developer', content: text(body), source: { kind: 'plugin', plugin: 'context' } },
  }, { surfaceOp, ...extra });
  const header = (reason, tools) => add('request/header', { reason, header: { config: CONFIG, tools } });
  const assistant = (turn, step, body, calls = []) => add('assistant/message', {
    turn, step, message: {
      id: `asst-${events.length}`, role: 'assistant',
      content: [...text(body), ...calls.map((id) => ({ type: 'tool-call', id, name: 'read', arguments: '{"path":"README.md"}' }))],
      source: { kind: 'model', provider: 'deepseek', model: 'deepseek-chat' },
    },
    stream: [],
  }, { surfaceOp: 'append' });
  const result = (turn, step, callId, body, surfaceOp = 'append', extra = {}) => add('tool/result', {
    turn, step, message: { id: `res-${events.length}`, role: 'user', content: [{ type: 'tool-result', toolCallId: callId, content: text(body), isError: false }], source: { kind: 'tool', callId } },
  }, { surfaceOp, ...extra });

  // Turn 1: the first prompt, a tool call, then an in-history prompt update with new tools.
  add('turn/start', { turn: 1 });
  add('step/start', { turn: 1, step: 1 });
  const firstPrompt = system(1, 1, '# Assistant\n\nYou work in /w. Answer in the user\'s language (提示词 v1).\n<b>markup stays text</b>');
  add('user/message', { turn: 1, step: 1, id: 'user-1', role: 'user', content: text('Summarise README.md, please.'), source: { kind: 'user' } }, { surfaceOp: 'append' });
  header('initial', TOOLS.slice(0, 1));
  assistant(1, 1, 'Reading it.', ['call-1']);
  add('tool/call', { turn: 1, step: 1, callId: 'call-1', name: 'read', arguments: '{"path":"README.md"}' });
  const longResult = result(1, 1, 'call-1', '# promptfold\n\nA long file the harness later prunes.');
  add('step/end', { turn: 1, step: 1 });
  add('step/start', { turn: 1, step: 2 });
  developer(1, 2, 'Context: the repository has 12 files.');
  system(1, 2, '# Assistant\n\nYou work in /w. Answer in the user\'s language (提示词 v2).\nEdits are allowed now.');
  header('series', TOOLS);
  const lastAnswer = assistant(1, 2, 'README.md describes a Rust crate compiled to WebAssembly.');
  add('step/end', { turn: 1, step: 2 });
  add('turn/end', { turn: 1 });

  // Turn 2: a prune, a compaction that restores the first prompt, a developer replacement.
  add('turn/start', { turn: 2 });
  add('step/start', { turn: 2, step: 1 });
  result(2, 1, 'call-1', '[pruned]', { op: 'replace', startSeq: longResult, endSeq: longResult }, { sourceEventSeqs: [longResult] });
  const compactFrom = firstPrompt + 1;
  const compactTo = lastAnswer; // shadows the second prompt: the first is in force again
  add('compaction/start', { compactionId: 'compact-1', turn: 2 });
  add('user/message', {
    id: 'summary-1', role: 'user', content: text('Summary: README.md was read and summarised.'), source: { kind: 'plugin', plugin: 'compact', compactionId: 'compact-1' },
  }, { surfaceOp: { op: 'replace', startSeq: compactFrom, endSeq: compactTo }, sourceEventSeqs: [compactFrom, compactTo] });
  add('compaction/end', { compactionId: 'compact-1', turn: 2 });
  developer(2, 1, 'Context: the repository has 13 files.', { op: 'replace', startSeq: events.length - 1, endSeq: events.length - 1 });
  header('series', TOOLS);
  assistant(2, 1, 'Done: the summary is above.');
  add('step/end', { turn: 2, step: 1 });
  add('turn/end', { turn: 2 });
  return events;
}

/** The header row the harness writes first (format 4, with members beyond the usual ones). */
export const SESSION_HEADER = {
  type: 'session', version: 4, id: 'sess-demo-7f3a', createdAt: T0, cwd: '/home/dev/promptfold',
  isSeeded: false, delegationDepth: 0, agentPreset: 'coder', origin: { kind: 'cli', argv: ['dsh', 'chat'] },
};

const jsonl = (rows, end = '\n') => rows.map((row) => JSON.stringify(row)).join(end) + end;

/** Every file's name and contents (strings, UTF-8 when written). */
export function sessionFiles() {
  const events = sessionEvents();
  const files = {};
  files['session.jsonl'] = jsonl([SESSION_HEADER, ...events]);
  const notes = [{ jsonrpc: '2.0', method: 'session.status', params: { sessionId: SESSION_HEADER.id, status: 'running' } }];
  events.forEach((event, i) => {
    notes.push({ jsonrpc: '2.0', method: 'session.event', params: { sessionId: SESSION_HEADER.id, event } });
    if (i === 9) notes.push({ jsonrpc: '2.0', method: 'session.status', params: { sessionId: SESSION_HEADER.id, status: 'waiting' } });
  });
  notes.push({ jsonrpc: '2.0', method: 'session.status', params: { sessionId: SESSION_HEADER.id, status: 'idle' } });
  files['notifications.jsonl'] = jsonl(notes);
  files['seqless.jsonl'] = jsonl([{ ...SESSION_HEADER, id: 'sess-snapshot' }, ...events.map(({ seq, time, ...rest }) => rest)]);
  // A writer stopped inside "提示词": the last line ends two bytes into a three-byte character.
  const full = JSON.stringify(events.at(-1));
  const cut = Buffer.from(JSON.stringify({ ...events.at(-1), seq: events.length, data: { note: '提示词' } }), 'utf8');
  const cutAt = cut.indexOf(Buffer.from('提', 'utf8')) + 2;
  files['torn.jsonl'] = Buffer.concat([
    Buffer.from(`\uFEFF${jsonl([{ ...SESSION_HEADER, id: 'sess-torn' }, ...events.slice(0, -1)], '\r\n')}${full}\r\n`, 'utf8'),
    cut.subarray(0, cutAt),
  ]);
  files['format2.jsonl'] = jsonl([{ ...SESSION_HEADER, id: 'sess-old', version: 2 }, ...events.slice(0, 4)]);
  return files;
}

function main() {
  const check = process.argv.includes('--check');
  mkdirSync(sessionsDir, { recursive: true });
  let stale = 0;
  for (const [name, contents] of Object.entries(sessionFiles())) {
    const path = join(sessionsDir, name);
    const bytes = Buffer.isBuffer(contents) ? contents : Buffer.from(contents, 'utf8');
    if (check) {
      if (!existsSync(path) || !readFileSync(path).equals(bytes)) { console.error(`stale: ${path}`); stale += 1; }
    } else {
      writeFileSync(path, bytes);
    }
  }
  const zst = join(sessionsDir, 'session.jsonl.zst');
  if (!check) {
    try {
      execFileSync('zstd', ['-q', '-f', '-19', join(sessionsDir, 'session.jsonl'), '-o', zst]);
    } catch (error) {
      console.warn(`make-session-files: no zstd command (${error.message}); session.jsonl.zst not written (apt-get install zstd)`);
    }
  }
  if (stale) process.exit(1);
  console.log(`make-session-files: ${check ? 'checked' : 'wrote'} ${sessionsDir}`);
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) main();
