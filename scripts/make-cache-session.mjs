#!/usr/bin/env node
// Writes examples/sessions/cache-breaks.jsonl: a small session log in the harness's shapes (a
// format 4 header row, then one event a line, docs/BEHAVIOUR.md section 10) in which the prefix cache is lost
// once by each kind of break of docs/cache.md, each at its own request, and kept by an
// in-history prompt update and by a tool added without a series header. Its answers carry the
// usage a provider with a prefix cache would report (scripts/cache-usage.mjs: cache reads of the
// kept prefix in 64-token blocks, none after more than five idle minutes), except the last one,
// whose usage has a missing, a null and a string member (unknown, never 0). Used by
// examples/cache-report.mjs, its test (tests/js/examples.test.mjs) and the demo's e2e test
// (e2e/cache.test.mjs). Deterministic.
//
//   node scripts/make-cache-session.mjs            # writes the file
//   node scripts/make-cache-session.mjs --check    # exits 1 when the committed file differs
//
// request (turn.step)  what happens before it                      the ledger should say
// 1.1                  the first prompt, a developer note           unknown (first request)
// 1.2                  an answer and a tool result appended         kept, broken 0
// 1.3                  an in-history prompt update                  kept, saved tokens
// 2.1                  web_search added, reason "change"            kept (a deferred tool update)
// 2.2                  a tool result pruned                         prune
// 2.3                  the first prompt rewritten at the head       system-rewrite (Rules, Review)
// 3.1                  bash swapped for edit                        tools: +edit, -bash
// 3.2                  deepseek-chat to deepseek-reasoner           route (series not listed)
// 3.3                  gh_pr_draft added with a series header       series (or tools: +gh_pr_draft)
// 4.1                  seven idle minutes                           idle 7 min (with a 5 min TTL)
// 4.2                  the developer note replaced                  replacement
// 4.3                  a compaction                                 compaction
// 4.4                  an answer whose usage is damaged             observed unknown

import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { addCacheUsage, CACHE_TTL_MS } from './cache-usage.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
export const cacheSessionPath = join(root, 'examples', 'sessions', 'cache-breaks.jsonl');
const T0 = 1790000000000;

const text = (value) => [{ type: 'text', text: value }];
const tool = (name, description) => ({ name, description, parameters: { type: 'object', properties: { arg: { type: 'string' } } } });
const READ = tool('read', 'Read a file of the workspace.');
const GREP = tool('grep', 'Search the workspace with a regular expression.');
const BASH = tool('bash', 'Run a shell command.');
const WEB = tool('web_search', 'Search the web.');
const EDIT = tool('edit', 'Replace a snippet of a file.');
const GH = tool('gh_pr_draft', 'Open a draft pull request.');
const CHAT = { provider: 'deepseek', model: 'deepseek-chat', temperature: 0.2 };
const REASONER = { provider: 'deepseek', model: 'deepseek-reasoner', temperature: 0.2 };

const PROMPT_1 = `# Role
You are a coding agent in /w, a small Rust crate.

# Rules
- Read before you edit.
- Run cargo test before you say you are done.

# Style
Be brief.`;
const PROMPT_2 = `${PROMPT_1}

# Task
Fix the failing test in tests/parse.rs.`;
const PROMPT_HEAD = `# Role
You are a coding agent in /w, a small Rust crate.

# Rules
- Read before you edit; quote file paths and lines.
- Run cargo test and cargo clippy before you say you are done.

# Review
- Ask for a review of every change to src/parse.rs.

# Style
Be brief.`;

/** The session's events, seq 0 on, as the harness writes them (format 4). */
export function cacheSessionEvents() {
  const events = [];
  let time = T0 + 1000;
  let turn = 0;
  let step = 0;
  const add = (type, data, extra = {}) => {
    const seq = events.length;
    time += 1500;
    events.push({ seq, time, type, data, ...extra });
    return seq;
  };
  const replace = (startSeq, endSeq) => ({ op: 'replace', startSeq, endSeq });
  const system = (body, surfaceOp = 'append') => add('system/message', {
    turn, step, message: { id: `sys-${events.length}`, role: 'system', content: text(body), source: { kind: 'plugin', plugin: '@deepseek-ai/dsh-system-prompt' } },
  }, { surfaceOp });
  const developer = (body, surfaceOp = 'append') => add('developer/message', {
    turn, step, message: { id: `dev-${events.length}`, role: 'developer', content: text(body), source: { kind: 'plugin', plugin: 'context' } },
  }, { surfaceOp });
  const user = (body) => add('user/message', { turn, step, id: `user-${events.length}`, role: 'user', content: text(body), source: { kind: 'user' } }, { surfaceOp: 'append' });
  const header = (reason, config, tools, extra = {}) => add('request/header', { reason, header: { config, tools }, ...extra });
  let callId = null;
  const answer = (body, call) => {
    callId = call ? `call-${events.length}` : null;
    const content = [...text(body), ...(call ? [{ type: 'tool-call', id: callId, name: call.name, arguments: JSON.stringify(call.args) }] : [])];
    const seq = add('assistant/message', {
      turn, step, message: { id: `asst-${events.length}`, role: 'assistant', content, source: { kind: 'model', provider: 'deepseek', model: 'deepseek-chat' } }, stream: [],
    }, { surfaceOp: 'append' });
    if (call) add('tool/call', { turn, step, callId, name: call.name, arguments: JSON.stringify(call.args) });
    return seq;
  };
  const result = (body, surfaceOp = 'append', id = callId) => add('tool/result', {
    turn, step, message: { id: `res-${events.length}`, role: 'user', content: [{ type: 'tool-result', toolCallId: id, content: text(body), isError: false }], source: { kind: 'tool', callId: id } },
  }, { surfaceOp });
  const turnStart = () => { turn += 1; step = 0; add('turn/start', { turn }); };
  const turnEnd = () => add('turn/end', { turn, reason: { kind: 'completed' } });
  const stepStart = () => { step += 1; add('step/start', { turn, step }); };
  const stepEnd = () => add('step/end', { turn, step });

  // Turn 1: the first prompt; an in-history update keeps the cache.
  turnStart();
  stepStart();
  const firstPrompt = system(PROMPT_1);
  const note = developer('Context: the crate has 14 files; tests/parse.rs fails on main.');
  user('tests/parse.rs fails since yesterday. Can you find out why?');
  header('initial', CHAT, [READ, GREP, BASH]);
  answer('Running the failing test first.', { name: 'bash', args: { command: 'cargo test --test parse' } });
  const longResult = result(`running 12 tests\n${'test parse::cases ... ok\n'.repeat(10)}test parse::dates ... FAILED\n\nfailures:\n    parse::dates: expected 2026-03-01, got 2026-02-29\n\ntest result: FAILED. 11 passed; 1 failed`);
  stepEnd();
  stepStart();
  answer('One failure, in dates. Reading the parser.', { name: 'read', args: { path: 'src/parse.rs' } });
  result('fn parse_date(s: &str) -> Date {\n    let (y, m, d) = split(s);\n    Date::new(y, m, d.min(days_in(y, m - 1)))\n}');
  stepEnd();
  stepStart();
  system(PROMPT_2);
  header('change', CHAT, [READ, GREP, BASH]);
  answer('`days_in` is called with the previous month. The task is noted in the prompt now.');
  stepEnd();
  turnEnd();

  // Turn 2: a tool added (kept), a prune, a head rewrite.
  turnStart();
  stepStart();
  user('Is there a known issue about days_in upstream?');
  header('change', CHAT, [READ, GREP, BASH, WEB]);
  answer('Searching.', { name: 'web_search', args: { query: 'days_in month off by one crate issue' } });
  result('1 result: "days_in takes a 1-based month" (issue #212, closed).');
  stepEnd();
  stepStart();
  result('[pruned: 16 lines of cargo test output]', replace(longResult, longResult), events[longResult].data.message.source.callId);
  answer('Issue #212 says `days_in` takes a 1-based month, so `m - 1` is the bug.');
  stepEnd();
  stepStart();
  system(PROMPT_HEAD, replace(firstPrompt, firstPrompt));
  header('change', CHAT, [READ, GREP, BASH, WEB]);
  answer('Understood: I will ask for a review before changing src/parse.rs.');
  stepEnd();
  turnEnd();

  // Turn 3: a tool set change, a route change, a tool added with a series header.
  turnStart();
  stepStart();
  user('Go ahead and fix it; you may edit now, but no shell.');
  header('change', CHAT, [READ, GREP, WEB, EDIT]);
  answer('Editing src/parse.rs.', { name: 'edit', args: { path: 'src/parse.rs', old: 'days_in(y, m - 1)', new: 'days_in(y, m)' } });
  result('Applied 1 edit to src/parse.rs (+1 -1).');
  stepEnd();
  stepStart();
  header('series', REASONER, [READ, GREP, WEB, EDIT]);
  answer('Checking the other callers of days_in with the reasoning model.', { name: 'grep', args: { pattern: 'days_in\\(' } });
  result('src/parse.rs:3\nsrc/calendar.rs:41');
  stepEnd();
  stepStart();
  header('series', REASONER, [READ, GREP, WEB, EDIT, GH]);
  answer('src/calendar.rs:41 passes a 1-based month already. The fix is complete.');
  stepEnd();
  turnEnd();

  // Turn 4: after seven idle minutes; a replacement, a compaction, a damaged usage.
  time += 7 * 60 * 1000;
  turnStart();
  stepStart();
  user('Back. Open a draft PR for it, please.');
  header('resume', REASONER, [READ, GREP, WEB, EDIT, GH]);
  answer('Opening the draft pull request.', { name: 'gh_pr_draft', args: { title: 'parse: days_in takes a 1-based month' } });
  result('Draft pull request #17 opened.');
  stepEnd();
  stepStart();
  developer('Context: the crate has 14 files; a draft PR (#17) is open.', replace(note, note));
  answer('The draft PR is #17.');
  stepEnd();
  stepStart();
  const from = events.find((event) => event.seq > note && event.type === 'user/message').seq;
  const to = events.findLast((event) => event.type === 'assistant/message').seq;
  add('compaction/start', { compactionId: 'compact-1', turn: null });
  add('user/message', {
    id: 'summary-1', role: 'user', content: text('Summary: parse_date called days_in with a 0-based month; fixed in src/parse.rs, draft PR #17 is open.'),
    source: { kind: 'plugin', plugin: 'compact', compactionId: 'compact-1' },
  }, { surfaceOp: replace(from, to), sourceEventSeqs: [from, to] });
  add('compaction/end', { compactionId: 'compact-1', turn: null });
  header('series', REASONER, [READ, GREP, WEB, EDIT, GH], { startsSeries: true });
  answer('Anything else before the review?');
  stepEnd();
  stepStart();
  user('No, thanks.');
  const last = answer('Then I am done here.');
  stepEnd();
  turnEnd();

  addCacheUsage(events, { ttlMs: CACHE_TTL_MS });
  // A provider that reported the usage badly: a missing, a null and a string member.
  events[last].data.message.usage = { inputTokens: '812', outputTokens: 9, cacheReadTokens: null };
  return events;
}

/** The header row the harness writes first. */
export const CACHE_SESSION_HEADER = {
  type: 'session', version: 4, id: 'sess-cache-breaks', createdAt: T0, cwd: '/w', isSeeded: false, delegationDepth: 0,
};

/** The file's text. */
export function cacheSessionText() {
  return [CACHE_SESSION_HEADER, ...cacheSessionEvents()].map((row) => JSON.stringify(row)).join('\n') + '\n';
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const contents = cacheSessionText();
  if (process.argv.includes('--check')) {
    const same = existsSync(cacheSessionPath) && readFileSync(cacheSessionPath, 'utf8') === contents;
    if (!same) console.error(`stale: ${cacheSessionPath}; run: node scripts/make-cache-session.mjs`);
    process.exit(same ? 0 : 1);
  }
  writeFileSync(cacheSessionPath, contents);
  console.log(`make-cache-session: wrote ${cacheSessionPath}`);
}
