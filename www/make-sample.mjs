#!/usr/bin/env node
// Generates www/sample-session.json, the bundled demo session. Deterministic: run
// `node www/make-sample.mjs` to regenerate it, `node www/make-sample.mjs --check` to compare.
// A coding agent fixes a time-zone bug in a small TypeScript billing service over nine turns.
// Along the way the system prompt is:
//   - set (turn 1, plan mode),
//   - updated in history (turn 2, edit mode: an appended system message),
//   - shadowed by a compaction that restores the older plan-mode prompt (after turn 2),
//   - cleared (turn 4, a head rewrite with an empty prompt),
//   - set again (turn 5), rewritten at its place (turn 7) and updated again (turn 8);
// the prefix cache is lost by each kind of break (docs/cache.md): a prune (turns 2, 5, 6, 8), the
// compaction, the head rewrites (turns 4 and 7), a tool set change (turn 7: +web_search, -write),
// a route change (turn 8: deepseek-chat to deepseek-reasoner), a tool added with a series header
// (turn 9), and the night the session sat idle (turn 6); the in-history updates and the tools
// added without a series header (turns 2 and 5) keep it. Every answer carries the usage a
// provider with a prefix cache would report (addUsage below);
// old tool results are pruned (replace ops on `tool/result`), and the newest page, which the demo
// loads first, holds a prune that reaches back before that page, so the prompt there is withheld
// until "Load earlier" brings in the pruned result.
//
// The demo pages the log from the end in whole turns (paging.mjs, shared with app.js).
// The script checks the page layout the demo relies on: only that one replacement reaches across a
// page boundary, so the withheld prompt resolves on the first "Load earlier" and stays resolved.

import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { addCacheUsage, CACHE_TTL_MS } from '../scripts/cache-usage.mjs';
import { PAGE_SIZE, pageStarts } from './paging.mjs';

// ---------------------------------------------------------------------------------------------
// Deterministic clock and ids.

let rng = 0x2f6e2b1;
function rand(lo, hi) {
  rng = (Math.imul(rng, 1103515245) + 12345) >>> 0;
  return lo + (rng % (hi - lo + 1));
}

const events = [];
let seq = 0;
let time = Date.UTC(2025, 10, 18, 14, 3, 12, 0); // 2025-11-18 14:03:12 UTC
let turn = 0;
let step = 0;
let idCounter = 0;
const nextId = (prefix) => `${prefix}-${(++idCounter).toString(36).padStart(4, '0')}`;

// The route: turn 8 moves the session to the reasoning model (a route change loses the cache).
let MODEL = { provider: 'deepseek', model: 'deepseek-chat' };
const configFor = (model) => ({ ...model, maxTokens: 8192, temperature: 0.2, reasoning: { effort: 'medium' } });
let CONFIG = configFor(MODEL);

function push(type, data, surfaceOp, extra = {}) {
  seq += 1;
  time += rand(40, 900);
  const event = { seq, time, type, data };
  if (surfaceOp !== undefined) event.surfaceOp = surfaceOp;
  Object.assign(event, extra);
  events.push(event);
  return event;
}
const think = (lo, hi) => { time += rand(lo, hi); };
const replace = (startSeq, endSeq) => ({ op: 'replace', startSeq, endSeq });

// ---------------------------------------------------------------------------------------------
// Tools (request headers carry them).

const tool = (name, description, properties, required = Object.keys(properties)) => ({
  name,
  description,
  parameters: { type: 'object', properties, required },
});
const READ = tool('read', 'Read a file from the workspace, with line numbers.', {
  path: { type: 'string', description: 'Path relative to the repository root.' },
  offset: { type: 'integer', minimum: 1 },
  limit: { type: 'integer', minimum: 1 },
}, ['path']);
const GREP = tool('grep', 'Search files with a regular expression (ripgrep syntax).', {
  pattern: { type: 'string' },
  path: { type: 'string', default: '.' },
}, ['pattern']);
const LIST = tool('list', 'List a directory.', { path: { type: 'string' } });
const EDIT = tool('edit', 'Replace an exact snippet of a file with new text.', {
  path: { type: 'string' },
  old: { type: 'string' },
  new: { type: 'string' },
});
const WRITE = tool('write', 'Create or overwrite a file.', {
  path: { type: 'string' },
  content: { type: 'string' },
});
const BASH = tool('bash', 'Run a shell command in the repository (no network).', {
  command: { type: 'string' },
  timeoutMs: { type: 'integer', maximum: 600000 },
}, ['command']);
const GH = tool('gh_pr_draft', 'Open a draft pull request with a title and a body.', {
  title: { type: 'string' },
  body: { type: 'string' },
});

const PLAN_TOOLS = [READ, GREP, LIST];
const EDIT_TOOLS = [READ, GREP, LIST, EDIT, WRITE, BASH];
const WEB = tool('web_search', 'Search the web; returns titles, links and snippets.', {
  query: { type: 'string' },
});
// Turn 7 swaps write for web_search (a tool set change with an addition and a removal: the
// cache is lost), turn 9 adds gh_pr_draft with a series header (an addition the route cannot
// defer: lost too); turns 2 and 5 add tools without one (kept).
const DOCS_TOOLS = [READ, GREP, LIST, EDIT, BASH, WEB];
const RELEASE_TOOLS = [...DOCS_TOOLS, GH];

// ---------------------------------------------------------------------------------------------
// System prompts.

const PREAMBLE = `You are Harness, a coding agent working in the repository ~/src/ledgerline
(TypeScript 5.6, Node 20, vitest). The user is a maintainer of the billing service.`;

const PLAN_MODE = `# Mode: plan (read-only)
- Investigate before you answer: read the code, run nothing that writes.
- Tools: read, grep, list. Editing tools are not available in this mode.
- Quote file paths and line numbers for every claim.`;

const EDIT_MODE = `# Mode: edit
- You may change files with edit and write, and run commands with bash.
- Keep diffs small; do not reformat code you did not change.
- Run \`npm test\` before you say you are done, and show the summary line.`;

const RULES = `# Project rules (from AGENTS.md)
- Money is integer cents (the \`Cents\` type); never use floats for amounts.
- Store instants in UTC; group and display by the customer's time zone (\`customer.tz\`).
- Invoice HTML must escape customer-supplied text. The fixture in
  test/fixtures/hostile-customer.json has the name <img src=x onerror="window.__xss=1">
  and must render as plain text everywhere.
- New behaviour needs a test in test/ next to the existing ones.`;

const STYLE = `# Style
- Be brief. Lead with the answer, then the evidence.
- Use the user's words for things; no marketing language.`;

const PROMPT_PLAN = [PREAMBLE, PLAN_MODE, STYLE].join('\n\n');
const PROMPT_EDIT = [PREAMBLE, EDIT_MODE, RULES, STYLE].join('\n\n');
const PROMPT_EDIT_DST = [PREAMBLE, EDIT_MODE, RULES,
  `# Current task
- Due dates are calendar dates in the customer's zone: "net 30" means 30 calendar days,
  never 30 × 24 hours.`, STYLE].join('\n\n');
const PROMPT_EDIT_CHANGELOG = [PREAMBLE, EDIT_MODE, RULES,
  `# Current task
- Write the CHANGELOG entries for the time-zone fixes, in the user's words.`, `# Versioning
- Patch releases for fixes; \`npm version patch --no-git-tag-version\`, never a git tag.`, STYLE].join('\n\n');
const PROMPT_RELEASE = [PREAMBLE, EDIT_MODE, RULES, `# Release checklist
- CHANGELOG.md has an entry under "Unreleased" for every user-visible change.
- The full suite passes (\`npm test\`), and \`npm run typecheck\` is clean.
- Draft pull requests only; never merge.`, STYLE].join('\n\n');

// ---------------------------------------------------------------------------------------------
// Event builders.

function turnStart() {
  turn += 1;
  step = 0;
  think(4000, 20000);
  return push('turn/start', { turn });
}
function turnEnd() {
  return push('turn/end', { turn, reason: { kind: 'completed' } });
}
function stepStart() {
  step += 1;
  return push('step/start', { turn, step });
}
function stepEnd() {
  return push('step/end', { turn, step });
}
function system(text, surfaceOp = 'append') {
  return push('system/message', {
    turn,
    step,
    message: {
      id: nextId('sys'),
      role: 'system',
      content: text === '' ? [] : [{ type: 'text', text }],
      source: { kind: 'plugin', plugin: '@deepseek-ai/dsh-system-prompt' },
    },
  }, surfaceOp);
}
function user(text) {
  think(5000, 40000);
  return push('user/message', {
    id: nextId('msg'),
    role: 'user',
    content: [{ type: 'text', text }],
    source: { kind: 'user' },
  }, 'append');
}
function header(reason, tools, extra = {}) {
  return push('request/header', { header: { config: CONFIG, tools }, reason, ...extra });
}
function context(tokens) {
  return push('request/context', { ...MODEL, contextWindow: 128000, promptTokens: tokens });
}
function assistant(text) {
  think(1500, 9000);
  return push('assistant/message', {
    turn,
    step,
    message: {
      id: nextId('asst'),
      role: 'assistant',
      content: [{ type: 'text', text }],
      source: { kind: 'model', ...MODEL },
    },
    stream: [],
  }, 'append');
}
let lastCall = null;
function call(name, args) {
  lastCall = nextId('call');
  think(200, 1500);
  return push('tool/call', { turn, step, callId: lastCall, name, arguments: JSON.stringify(args) });
}
function result(text, isError = false) {
  think(100, 4000);
  return push('tool/result', {
    turn,
    step,
    message: {
      id: nextId('res'),
      role: 'user',
      content: [{ type: 'tool-result', toolCallId: lastCall, content: [{ type: 'text', text }], isError }],
      source: { kind: 'tool', callId: lastCall },
    },
  }, 'append');
}
function prune(target, note) {
  const callId = target.data.message.source.callId;
  return push('tool/result', {
    turn,
    step,
    message: {
      id: nextId('res'),
      role: 'user',
      content: [{ type: 'tool-result', toolCallId: callId, content: [{ type: 'text', text: note }], isError: false }],
      source: { kind: 'tool', callId, pruned: true },
    },
  }, replace(target.seq, target.seq), { sourceEventSeqs: [target.seq] });
}
/** One tool step: step/start, a short assistant note, the call, its result, step/end. */
function toolStep(note, name, args, output, isError = false) {
  stepStart();
  if (note) assistant(note);
  call(name, args);
  const res = result(output, isError);
  stepEnd();
  return res;
}

const numbered = (text, from = 1) =>
  text.split('\n').map((line, i) => `${String(i + from).padStart(4)}\t${line}`).join('\n');

// ---------------------------------------------------------------------------------------------
// File contents the agent reads.

const PERIOD_TS = `import type { Customer } from '../customers/customer';

/** The statement period (YYYY-MM) an invoice belongs to. */
export function periodOf(issuedAt: Date, customer: Customer): string {
  // Statements are monthly; the period is the invoice's month.
  return issuedAt.toISOString().slice(0, 7);
}

/** First and last instant of a period, for the statement query. */
export function periodBounds(period: string): { from: Date; to: Date } {
  const [year, month] = period.split('-').map(Number);
  return {
    from: new Date(Date.UTC(year, month - 1, 1)),
    to: new Date(Date.UTC(year, month, 1) - 1),
  };
}`;

const STATEMENT_TS = `import { periodOf } from './period';
import type { Invoice } from './invoice';
import type { Customer } from '../customers/customer';
import { sumCents, type Cents } from '../money';

export interface StatementLine { number: string; issuedAt: Date; total: Cents }
export interface Statement { period: string; lines: StatementLine[]; total: Cents }

export function buildStatements(customer: Customer, invoices: Invoice[]): Statement[] {
  const byPeriod = new Map<string, StatementLine[]>();
  for (const invoice of invoices) {
    const period = periodOf(invoice.issuedAt, customer);
    const lines = byPeriod.get(period) ?? [];
    lines.push({ number: invoice.number, issuedAt: invoice.issuedAt, total: invoice.total });
    byPeriod.set(period, lines);
  }
  return [...byPeriod].sort(([a], [b]) => a.localeCompare(b)).map(([period, lines]) => ({
    period,
    lines,
    total: sumCents(lines.map((line) => line.total)),
  }));
}`;

const PERIOD_TEST_TS = `import { describe, expect, it } from 'vitest';
import { periodOf, periodBounds } from '../../src/billing/period';

const utc = { id: 'c_1', name: 'Acme', tz: 'UTC' };

describe('periodOf', () => {
  it('uses the month of the invoice', () => {
    expect(periodOf(new Date('2025-03-14T10:00:00Z'), utc)).toBe('2025-03');
  });
  it('puts midnight UTC into the new month', () => {
    expect(periodOf(new Date('2025-02-01T00:00:00Z'), utc)).toBe('2025-02');
  });
});

describe('periodBounds', () => {
  it('covers the whole month', () => {
    const { from, to } = periodBounds('2025-02');
    expect(from.toISOString()).toBe('2025-02-01T00:00:00.000Z');
    expect(to.toISOString()).toBe('2025-02-28T23:59:59.999Z');
  });
});`;

const TOTALS_TS = `import { sumCents, type Cents } from '../money';
import type { Statement } from './statement';

/** Footer of a statement: subtotal, tax and total, all in integer cents. */
export function footer(statement: Statement, taxRateBp: number): { subtotal: Cents; tax: Cents; total: Cents } {
  const subtotal = statement.total;
  const tax = Math.round((subtotal * taxRateBp) / 10_000) as Cents;
  return { subtotal, tax, total: sumCents([subtotal, tax]) };
}`;

const DUE_TS = `import type { Customer } from '../customers/customer';

const DAY_MS = 24 * 60 * 60 * 1000;

/** When an invoice is due: \`terms\` days after it was issued ("net 30"). */
export function dueDate(issuedAt: Date, terms: number, customer: Customer): Date {
  return new Date(issuedAt.getTime() + terms * DAY_MS);
}

export function isOverdue(issuedAt: Date, terms: number, customer: Customer, now: Date): boolean {
  return now.getTime() > dueDate(issuedAt, terms, customer).getTime();
}`;

const CHANGELOG_MD = `# Changelog

## Unreleased

## 2.14.0 - 2025-11-03
- Statements: show the customer's VAT number in the header.
- Payments: retry webhooks with exponential backoff (max 6 tries).

## 2.13.2 - 2025-10-21
- Fix: credit notes were counted twice in the yearly summary.`;

const vitestOk = (files, tests, ms) => ` RUN  v2.1.4 /home/dev/src/ledgerline

${files.map((f) => ` ✓ ${f}`).join('\n')}

 Test Files  ${files.length} passed (${files.length})
      Tests  ${tests} passed (${tests})
   Start at  ${new Date(time).toISOString().slice(11, 19)}
   Duration  ${ms}ms (transform 212ms, setup 0ms, collect 388ms, tests ${Math.round(ms / 3)}ms)`;

// ---------------------------------------------------------------------------------------------
// The session.

const seqs = {};

// Turn 1: plan mode, find the bug.
turnStart();
stepStart();
seqs.promptPlan = system(PROMPT_PLAN).seq;
const firstUser = user(`Customers in America/New_York say invoices issued on the evening of the 31st land on next month's statement. Can you find out why? Please don't change anything yet.`);
header('initial', PLAN_TOOLS);
context(3120);
assistant('Let me find where statements group invoices by month.');
call('grep', { pattern: 'periodOf', path: 'src' });
result(`src/billing/statement.ts:1:import { periodOf } from './period';
src/billing/statement.ts:12:    const period = periodOf(invoice.issuedAt, customer);
src/billing/period.ts:4:export function periodOf(issuedAt: Date, customer: Customer): string {
src/reports/monthly.ts:27:  const period = periodOf(row.issuedAt, row.customer);`);
stepEnd();
toolStep('Reading the helper.', 'read', { path: 'src/billing/period.ts' }, numbered(PERIOD_TS));
toolStep('And the caller that builds statements.', 'read', { path: 'src/billing/statement.ts' }, numbered(STATEMENT_TS));
toolStep(null, 'read', { path: 'test/billing/period.test.ts' }, numbered(PERIOD_TEST_TS));
toolStep('Checking how customers store their zone.', 'grep', { pattern: 'tz:', path: 'src/customers' },
  `src/customers/customer.ts:6:  tz: string; // IANA zone, e.g. "America/New_York"
src/customers/fixtures.ts:3:  { id: 'c_1', name: 'Acme', tz: 'UTC' },
src/customers/fixtures.ts:4:  { id: 'c_2', name: 'Hudson Bakery', tz: 'America/New_York' },
src/customers/fixtures.ts:5:  { id: 'c_3', name: 'Kiwi Freight', tz: 'Pacific/Auckland' },`);
stepStart();
assistant(`Found it. \`periodOf\` (src/billing/period.ts:4-7) takes the month from \`issuedAt.toISOString()\`, i.e. in UTC, and ignores \`customer.tz\`.

An invoice issued at 20:30 on 31 January in New York is 01:30 on 1 February in UTC, so it is grouped into 2025-02. Zones east of UTC have the mirror problem: Kiwi Freight (Pacific/Auckland) gets its early-morning invoices of the 1st counted in the previous month.

The tests only use a UTC customer (test/billing/period.test.ts:4), so they never caught it. \`src/reports/monthly.ts:27\` has the same dependency.

Fix: compute the year and month in the customer's zone (\`Intl.DateTimeFormat\` with \`timeZone: customer.tz\`), and \`periodBounds\` needs the same treatment for the statement query.`);
stepEnd();
turnEnd();

// Turn 2: edit mode arrives as an in-history update.
turnStart();
stepStart();
seqs.promptEdit = system(PROMPT_EDIT).seq;
user('Makes sense. Switch to edit mode and fix it, with regression tests for New York and Auckland.');
header('change', EDIT_TOOLS);
context(6840);
assistant('Changing `periodOf` to read the year and month in the customer\'s zone.');
call('edit', {
  path: 'src/billing/period.ts',
  old: "  // Statements are monthly; the period is the invoice's month.\n  return issuedAt.toISOString().slice(0, 7);",
  new: "  // The period is the invoice's month in the customer's own zone.\n  const parts = new Intl.DateTimeFormat('en-CA', { timeZone: customer.tz, year: 'numeric', month: '2-digit' })\n    .formatToParts(issuedAt);\n  const part = (type: string) => parts.find((p) => p.type === type)?.value;\n  return `${part('year')}-${part('month')}`;",
});
result('Applied 1 edit to src/billing/period.ts (+5 −2).');
stepEnd();
toolStep('Adding the regression tests.', 'edit', {
  path: 'test/billing/period.test.ts',
  old: "describe('periodBounds', () => {",
  new: "const newYork = { id: 'c_2', name: 'Hudson Bakery', tz: 'America/New_York' };\nconst auckland = { id: 'c_3', name: 'Kiwi Freight', tz: 'Pacific/Auckland' };\n\ndescribe('periodOf in the customer zone', () => {\n  it('keeps an evening invoice of the 31st in January (New York)', () => {\n    expect(periodOf(new Date('2025-02-01T01:30:00Z'), newYork)).toBe('2025-01');\n  });\n  it('puts an early invoice of the 1st into February (Auckland)', () => {\n    expect(periodOf(new Date('2025-01-31T12:15:00Z'), auckland)).toBe('2025-02');\n  });\n});\n\ndescribe('periodBounds', () => {",
}, 'Applied 1 edit to test/billing/period.test.ts (+13 −0).');
const failingRun = toolStep(null, 'bash', { command: 'npx vitest run test/billing' }, ` RUN  v2.1.4 /home/dev/src/ledgerline

 ✓ test/billing/period.test.ts (5 tests) 9ms
 ❯ test/billing/statement.test.ts (4 tests | 1 failed) 14ms
   × buildStatements > groups a month-end invoice by UTC month 6ms
     → expected [ '2025-01', '2025-03' ] to deeply equal [ '2025-02', '2025-03' ]
 ✓ test/billing/totals.test.ts (3 tests) 3ms

⎯⎯⎯⎯⎯⎯⎯ Failed Tests 1 ⎯⎯⎯⎯⎯⎯⎯

 FAIL  test/billing/statement.test.ts > buildStatements > groups a month-end invoice by UTC month
AssertionError: expected [ '2025-01', '2025-03' ] to deeply equal [ '2025-02', '2025-03' ]

- Expected
+ Received

  [
-   "2025-02",
+   "2025-01",
    "2025-03",
  ]

 ❯ test/billing/statement.test.ts:31:52
     29|     const statements = buildStatements(hudson, [late, march]);
     30|     const periods = statements.map((s) => s.period);
     31|     expect(periods).toEqual(['2025-02', '2025-03']);
       |                                                    ^
     32|   });
     33| });

⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯

 Test Files  1 failed | 2 passed (3)
      Tests  1 failed | 11 passed (12)
   Duration  1.21s (transform 240ms, setup 0ms, collect 402ms, tests 26ms)

exit code 1`);
toolStep('That statement test pinned the old UTC grouping for a New York customer; it asserts the bug. Updating it to the customer\'s month.', 'edit', {
  path: 'test/billing/statement.test.ts',
  old: "  it('groups a month-end invoice by UTC month', () => {",
  new: "  it('groups a month-end invoice by the customer\\'s month', () => {",
}, 'Applied 2 edits to test/billing/statement.test.ts (+2 −2).');
toolStep(null, 'bash', { command: 'npx vitest run test/billing' },
  vitestOk(['test/billing/period.test.ts (5 tests) 8ms', 'test/billing/statement.test.ts (4 tests) 11ms', 'test/billing/totals.test.ts (3 tests) 3ms'], 12, 1104));
stepStart();
prune(failingRun, '[pruned: 38 lines of vitest output from an earlier run; exit code 1]');
assistant(`Fixed.

- \`periodOf\` now reads the year and month in \`customer.tz\` (src/billing/period.ts).
- Two regression tests: New York evening of the 31st stays in January, Auckland morning of the 1st goes to February.
- One statement test asserted the old UTC grouping; I changed it to expect the customer's month.

\`npx vitest run test/billing\`: 12 passed. \`periodBounds\` still works in UTC; I left it for now since the statement query filters by period string, not by bounds.`);
stepEnd();
turnEnd();

// The harness compacts the history. The checkpoint replaces everything after the plan-mode
// prompt, including the appended edit-mode prompt, so the plan-mode prompt is in force again.
const compactionId = nextId('compact');
think(2000, 5000);
push('compaction/start', { compactionId, turn: null });
const shadowed = events.filter((e) => e.seq >= firstUser.seq && e.surfaceOp !== undefined).map((e) => e.seq);
push('compaction/summary', {
  compactionId,
  turn: null,
  summary: [{ type: 'text', text: 'The user reported New York invoices of the 31st landing on the next statement. Cause: periodOf used the UTC month. Fixed periodOf to use customer.tz, added New York and Auckland tests, updated a statement test that pinned the bug. test/billing passes (12 tests).' }],
  shadowedSeqs: shadowed,
  shadowedTokenCount: 9412,
});
const lastSurface = events.filter((e) => e.surfaceOp !== undefined).at(-1);
seqs.compaction = push('user/message', {
  id: nextId('msg'),
  role: 'user',
  content: [{ type: 'text', text: 'Summary of the conversation so far: the user reported New York invoices of the 31st landing on the next statement. Cause: periodOf used the UTC month. Fixed periodOf (src/billing/period.ts) to use customer.tz, added New York and Auckland regression tests, updated a statement test that pinned the bug. test/billing passes (12 tests).' }],
  source: { kind: 'plugin', plugin: 'compact', compactionId },
}, replace(firstUser.seq, lastSurface.seq), { sourceEventSeqs: shadowed }).seq;
push('compaction/end', { compactionId, turn: null });

// Turn 3: a new series; the prompt in force is the plan-mode one again.
turnStart();
stepStart();
user('Thanks. Before we ship: do the statement footer totals still add up for a month with a DST switch? Just look, don\'t edit.');
header('series', PLAN_TOOLS, { startsSeries: true });
context(2210);
assistant('Looking at how the footer computes totals.');
call('grep', { pattern: 'footer|taxRateBp', path: 'src/billing' });
result(`src/billing/totals.ts:5:export function footer(statement: Statement, taxRateBp: number): { subtotal: Cents; tax: Cents; total: Cents } {
src/billing/totals.ts:7:  const tax = Math.round((subtotal * taxRateBp) / 10_000) as Cents;
src/billing/render.ts:41:  const { subtotal, tax, total } = footer(statement, customer.taxRateBp);`);
stepEnd();
toolStep(null, 'read', { path: 'src/billing/totals.ts' }, numbered(TOTALS_TS));
stepStart();
assistant(`The totals are unaffected by DST. \`footer\` (src/billing/totals.ts:5-9) only sums integer cents of the lines already grouped into the period; no instant arithmetic happens there. With the \`periodOf\` fix, a DST switch inside a month changes nothing: the month of an invoice in \`customer.tz\` does not depend on the UTC offset of other days.

One thing I cannot check in plan mode: whether \`render.ts\` formats the issue dates in the customer's zone too. Switch me to edit mode if you want me to run the renderer tests.`);
stepEnd();
turnEnd();

// Turn 4: the user clears the system prompt (a head rewrite with an empty prompt).
turnStart();
stepStart();
user('/prompt none: for the eval notes, answer this one with no system prompt. In one sentence, what was the bug?');
seqs.cleared = system('', replace(seqs.promptPlan, seqs.promptPlan)).seq;
header('change', PLAN_TOOLS);
assistant('Invoices were grouped into statement months by their UTC date instead of the customer\'s local date, so late-evening invoices in zones west of UTC (and early-morning ones east of it) landed in the wrong month.');
stepEnd();
turnEnd();

// Turn 5: a prompt again (after a cleared one it is an initial prompt, not an update).
turnStart();
stepStart();
user('/prompt edit: back to normal. Next: invoices due "net 30" are off by an hour when the 30 days cross the DST switch. Fix dueDate.');
seqs.promptDst = system(PROMPT_EDIT_DST).seq;
header('change', EDIT_TOOLS);
context(3900);
assistant('Reading the due-date helper.');
call('read', { path: 'src/billing/due.ts' });
const dueRead = result(numbered(DUE_TS));
stepEnd();
toolStep('It adds 30 × 24 h. Making it a calendar-day addition in the customer\'s zone.', 'edit', {
  path: 'src/billing/due.ts',
  old: '  return new Date(issuedAt.getTime() + terms * DAY_MS);',
  new: '  return addCalendarDays(issuedAt, terms, customer.tz);',
}, 'Applied 1 edit to src/billing/due.ts (+1 −1).');
toolStep(null, 'write', {
  path: 'src/time/calendar.ts',
  content: "import { Temporal } from '@js-temporal/polyfill';\n\n/** The same wall-clock time `days` calendar days later in `tz`. */\nexport function addCalendarDays(at: Date, days: number, tz: string): Date {\n  const zoned = Temporal.Instant.fromEpochMilliseconds(at.getTime()).toZonedDateTimeISO(tz);\n  return new Date(zoned.add({ days }).epochMilliseconds);\n}\n",
}, 'Wrote src/time/calendar.ts (7 lines).');
toolStep(null, 'edit', {
  path: 'src/billing/due.ts',
  old: "import type { Customer } from '../customers/customer';\n\nconst DAY_MS = 24 * 60 * 60 * 1000;",
  new: "import type { Customer } from '../customers/customer';\nimport { addCalendarDays } from '../time/calendar';",
}, 'Applied 1 edit to src/billing/due.ts (+1 −2).');
toolStep('Adding a test across the March switch in New York.', 'write', {
  path: 'test/billing/due.test.ts',
  content: "import { describe, expect, it } from 'vitest';\nimport { dueDate } from '../../src/billing/due';\n\nconst newYork = { id: 'c_2', name: 'Hudson Bakery', tz: 'America/New_York' };\n\ndescribe('dueDate', () => {\n  it('keeps the wall-clock time across the DST switch', () => {\n    const issued = new Date('2025-02-20T17:00:00-05:00');\n    expect(dueDate(issued, 30, newYork).toISOString()).toBe('2025-03-22T16:00:00.000Z');\n  });\n});\n",
}, 'Wrote test/billing/due.test.ts (11 lines).');
const dueFail = toolStep(null, 'bash', { command: 'npx vitest run test/billing/due.test.ts' }, ` RUN  v2.1.4 /home/dev/src/ledgerline

 ❯ test/billing/due.test.ts (1 test | 1 failed) 31ms
   × dueDate > keeps the wall-clock time across the DST switch
     → Cannot find package '@js-temporal/polyfill' imported from /home/dev/src/ledgerline/src/time/calendar.ts

 Test Files  1 failed (1)
      Tests  1 failed (1)

exit code 1`);
toolStep('The polyfill is not a dependency and there is no network. Using Intl instead: compute the local date, add days, and find the instant with the same wall-clock time.', 'write', {
  path: 'src/time/calendar.ts',
  content: "/** The same wall-clock time `days` calendar days later in `tz` (no dependency). */\nexport function addCalendarDays(at: Date, days: number, tz: string): Date {\n  const shifted = new Date(at.getTime() + days * 86_400_000);\n  return new Date(shifted.getTime() + (offsetMs(at, tz) - offsetMs(shifted, tz)));\n}\n\nfunction offsetMs(at: Date, tz: string): number {\n  const local = new Date(at.toLocaleString('en-US', { timeZone: tz }));\n  const utc = new Date(at.toLocaleString('en-US', { timeZone: 'UTC' }));\n  return local.getTime() - utc.getTime();\n}\n",
}, 'Wrote src/time/calendar.ts (11 lines).');
stepStart();
prune(dueRead, '[pruned: src/billing/due.ts, 14 lines, read before the edits]');
prune(dueFail, '[pruned: 9 lines of vitest output from an earlier run; exit code 1]');
call('bash', { command: 'npx vitest run test/billing' });
result(vitestOk(['test/billing/due.test.ts (1 test) 6ms', 'test/billing/period.test.ts (5 tests) 8ms', 'test/billing/statement.test.ts (4 tests) 12ms', 'test/billing/totals.test.ts (3 tests) 3ms'], 13, 1187));
stepEnd();
stepStart();
assistant(`Done. \`dueDate\` now adds calendar days in the customer's zone (\`addCalendarDays\` in src/time/calendar.ts, no new dependency), so net 30 from 20 Feb 17:00 in New York is 22 Mar 17:00 local, not 18:00. New test in test/billing/due.test.ts; test/billing: 13 passed.`);
stepEnd();
turnEnd();

// Turn 6: the next morning, the session is resumed.
time += 14 * 3600 * 1000 + rand(0, 600000);
turnStart();
stepStart();
user('Good morning. CI failed overnight on the Auckland test: "expected 2025-01 to be 2025-02". Can you look? CI runs with TZ=Pacific/Auckland.');
header('resume', EDIT_TOOLS);
context(5120);
assistant('Reproducing with the CI time zone first.');
call('bash', { command: 'TZ=Pacific/Auckland npx vitest run test/billing/period.test.ts' });
const ciRepro = result(` RUN  v2.1.4 /home/dev/src/ledgerline

 ❯ test/billing/period.test.ts (5 tests | 1 failed) 12ms
   × periodOf in the customer zone > puts an early invoice of the 1st into February (Auckland)
     → expected '2025-01' to be '2025-02'

 Test Files  1 failed (1)
      Tests  1 failed | 4 passed (5)

exit code 1`);
stepEnd();
toolStep('Only in that zone, so the test itself depends on the machine zone. Looking at the date it builds.', 'read', { path: 'test/billing/period.test.ts', offset: 17, limit: 10 }, numbered(`const newYork = { id: 'c_2', name: 'Hudson Bakery', tz: 'America/New_York' };
const auckland = { id: 'c_3', name: 'Kiwi Freight', tz: 'Pacific/Auckland' };

describe('periodOf in the customer zone', () => {
  it('keeps an evening invoice of the 31st in January (New York)', () => {
    expect(periodOf(new Date('2025-02-01T01:30:00Z'), newYork)).toBe('2025-01');
  });
  it('puts an early invoice of the 1st into February (Auckland)', () => {
    expect(periodOf(new Date('2025-01-31T12:15:00Z'), auckland)).toBe('2025-02');
  });`, 17));
toolStep('The instant is right (01:15 on 1 Feb in Auckland). The culprit must be the formatter; checking the locale data CI has.', 'bash', { command: 'TZ=Pacific/Auckland node -e "console.log(process.versions.icu, Intl.DateTimeFormat().resolvedOptions())"' }, `74.2
{
  locale: 'en-US',
  calendar: 'gregory',
  numberingSystem: 'latn',
  timeZone: 'Pacific/Auckland',
  year: 'numeric',
  month: 'numeric',
  day: 'numeric'
}`);
toolStep(null, 'read', { path: 'src/billing/period.ts', offset: 1, limit: 12 }, numbered(`import type { Customer } from '../customers/customer';

/** The statement period (YYYY-MM) an invoice belongs to. */
export function periodOf(issuedAt: Date, customer: Customer): string {
  // The period is the invoice's month in the customer's own zone.
  const parts = new Intl.DateTimeFormat('en-CA', { timeZone: customer.tz, year: 'numeric', month: '2-digit' })
    .formatToParts(issuedAt);
  const part = (type: string) => parts.find((p) => p.type === type)?.value;
  return \`\${part('year')}-\${part('month')}\`;
}`));
toolStep('`periodOf` is fine. The failure comes from `periodBounds`, which the statement test uses to pick the invoices: it still cuts months at UTC midnight, and under TZ=Pacific/Auckland the fixture builder creates the invoice from a local date. Fixing `periodBounds` to take the zone.', 'edit', {
  path: 'src/billing/period.ts',
  old: 'export function periodBounds(period: string): { from: Date; to: Date } {',
  new: 'export function periodBounds(period: string, tz: string): { from: Date; to: Date } {',
}, 'Applied 1 edit to src/billing/period.ts (+9 −5).');
toolStep(null, 'grep', { pattern: 'periodBounds\\(', path: '.' }, `src/billing/period.ts:13:export function periodBounds(period: string, tz: string): { from: Date; to: Date } {
src/billing/query.ts:22:  const { from, to } = periodBounds(period);
test/billing/period.test.ts:31:    const { from, to } = periodBounds('2025-02');`);
toolStep(null, 'edit', {
  path: 'src/billing/query.ts',
  old: '  const { from, to } = periodBounds(period);',
  new: '  const { from, to } = periodBounds(period, customer.tz);',
}, 'Applied 1 edit to src/billing/query.ts (+1 −1).');
toolStep(null, 'edit', {
  path: 'test/billing/period.test.ts',
  old: "    const { from, to } = periodBounds('2025-02');",
  new: "    const { from, to } = periodBounds('2025-02', 'UTC');",
}, 'Applied 1 edit to test/billing/period.test.ts (+1 −1).');
stepStart();
prune(ciRepro, '[pruned: 9 lines of vitest output from an earlier run; exit code 1]');
call('bash', { command: 'for tz in UTC America/New_York Pacific/Auckland; do TZ=$tz npx vitest run test/billing --reporter=dot || exit 1; done' });
const lateTarget = result(`·············
 Test Files  4 passed (4)
      Tests  13 passed (13)
·············
 Test Files  4 passed (4)
      Tests  13 passed (13)
·············
 Test Files  4 passed (4)
      Tests  13 passed (13)`);
stepEnd();
stepStart();
assistant('Fixed: `periodBounds` cut months at UTC midnight; it now takes the zone and the statement query passes `customer.tz`. test/billing passes under UTC, America/New_York and Pacific/Auckland (13 tests each).');
stepEnd();
turnEnd();

// Turn 7: changelog and version.
turnStart();
stepStart();
user('Nice. Add a CHANGELOG entry for all of this and bump the patch version.');
// The harness rewrites the task prompt at its place (a head rewrite: the cache is lost).
seqs.rewrite = system(PROMPT_EDIT_CHANGELOG, replace(seqs.promptDst, seqs.promptDst)).seq;
header('change', DOCS_TOOLS);
context(6010);
assistant('Reading the changelog first.');
call('read', { path: 'CHANGELOG.md', limit: 12 });
result(numbered(CHANGELOG_MD));
stepEnd();
toolStep(null, 'edit', {
  path: 'CHANGELOG.md',
  old: '## Unreleased\n',
  new: "## Unreleased\n- Fix: statements group invoices by the month in the customer's time zone, not UTC (late invoices of the 31st moved to the next statement in zones west of UTC).\n- Fix: \"net N\" due dates add calendar days in the customer's zone; they were off by an hour across DST switches.\n",
}, 'Applied 1 edit to CHANGELOG.md (+3 −0).');
toolStep(null, 'bash', { command: 'npm version patch --no-git-tag-version' }, 'v2.14.1');
toolStep(null, 'bash', { command: 'git status --short' }, ` M CHANGELOG.md
 M package-lock.json
 M package.json
 M src/billing/due.ts
 M src/billing/period.ts
 M src/billing/query.ts
 M test/billing/period.test.ts
 M test/billing/statement.test.ts
?? src/time/calendar.ts
?? test/billing/due.test.ts`);
stepStart();
assistant('Added two entries under "Unreleased" in CHANGELOG.md and bumped the version to 2.14.1 (package.json and package-lock.json).');
stepEnd();
turnEnd();

// Turn 8: release work; the prompt is updated in history again. The newest page starts with this
// turn, so the update is a first prompt there until older pages arrive.
turnStart();
stepStart();
seqs.promptRelease = system(PROMPT_RELEASE).seq;
user('Let\'s prepare the release: follow the release checklist, run the full suite and the type check.');
MODEL = { provider: 'deepseek', model: 'deepseek-reasoner' };
CONFIG = configFor(MODEL);
header('series', DOCS_TOOLS);
context(7480);
assistant('Running the full suite first.');
call('bash', { command: 'npm test' });
const fullSuite = result(` RUN  v2.1.4 /home/dev/src/ledgerline

 ✓ test/billing/due.test.ts (1 test) 6ms
 ✓ test/billing/period.test.ts (5 tests) 9ms
 ✓ test/billing/statement.test.ts (4 tests) 12ms
 ✓ test/billing/totals.test.ts (3 tests) 3ms
 ✓ test/billing/render.test.ts (9 tests) 41ms
 ✓ test/customers/customer.test.ts (6 tests) 5ms
 ✓ test/payments/webhook.test.ts (11 tests) 88ms
 ✓ test/payments/retry.test.ts (7 tests) 1204ms
 ✓ test/reports/monthly.test.ts (8 tests) 17ms
 ✓ test/money.test.ts (14 tests) 4ms
 ✓ test/render/escape.test.ts (5 tests) 7ms

 Test Files  11 passed (11)
      Tests  73 passed (73)
   Duration  3.92s (transform 1.01s, setup 0ms, collect 2.87s, tests 1.39s)`);
stepEnd();
toolStep(null, 'bash', { command: 'npm run typecheck' }, `> ledgerline@2.14.1 typecheck
> tsc --noEmit -p tsconfig.json

src/reports/monthly.ts:27:39 - error TS2554: Expected 2 arguments, but got 1.

27   const { from, to } = periodBounds(row.period);
                                         ~~~~~~~~~~

Found 1 error in src/reports/monthly.ts:27

exit code 2`);
// The harness prunes an old tool result: the test run of turn 6, which lies before this page.
stepStart();
seqs.latePrune = prune(lateTarget, '[pruned: 9 lines of test output from turn 6]').seq;
assistant('The monthly report still calls `periodBounds` with one argument.');
call('read', { path: 'src/reports/monthly.ts', offset: 20, limit: 12 });
result(numbered(`export function monthlyReport(rows: ReportRow[]): ReportLine[] {
  const lines: ReportLine[] = [];
  for (const row of rows) {
    // One line per customer and period.
    const period = periodOf(row.issuedAt, row.customer);
    const { from, to } = periodBounds(row.period);
    lines.push({ customer: row.customer.id, period, from, to, total: row.total });
  }
  return lines;
}`, 20));
stepEnd();
toolStep(null, 'edit', {
  path: 'src/reports/monthly.ts',
  old: '    const { from, to } = periodBounds(row.period);',
  new: '    const { from, to } = periodBounds(period, row.customer.tz);',
}, 'Applied 1 edit to src/reports/monthly.ts (+1 −1).');
toolStep(null, 'bash', { command: 'npm run typecheck && npm test -- --reporter=dot' }, `> ledgerline@2.14.1 typecheck
> tsc --noEmit -p tsconfig.json

·························································································
 Test Files  11 passed (11)
      Tests  73 passed (73)`);
toolStep('The rules say customer text must render as text. Our changes touched how statement dates are formatted, so checking the renderer still escapes everything.', 'grep',
  { pattern: 'innerHTML|escapeHtml\\(', path: 'src' }, `src/billing/render.ts:3:import { escapeHtml } from '../render/escape';
src/billing/render.ts:44:    <h1>Statement ${'$'}{escapeHtml(statement.period)} for ${'$'}{escapeHtml(customer.name)}</h1>
src/billing/render.ts:52:      <td>${'$'}{escapeHtml(line.number)}</td>
src/billing/render.ts:53:      <td>${'$'}{escapeHtml(formatDate(line.issuedAt, customer.tz))}</td>
src/render/escape.ts:2:export function escapeHtml(text: string): string {`);
toolStep(null, 'read', { path: 'test/fixtures/hostile-customer.json' }, numbered(`{
  "id": "c_hostile",
  "name": "<img src=x onerror=\\"window.__xss=1\\">",
  "tz": "America/Los_Angeles",
  "taxRateBp": 725,
  "notes": "<script>document.title = 'pwned'</script> & friends"
}`));
toolStep(null, 'read', { path: 'src/billing/render.ts', offset: 40, limit: 20 }, numbered(`export function renderStatement(statement: Statement, customer: Customer): string {
  const { subtotal, tax, total } = footer(statement, customer.taxRateBp);
  return \`<article class="statement">
    <h1>Statement \${escapeHtml(statement.period)} for \${escapeHtml(customer.name)}</h1>
    <table>
      \${statement.lines.map((line) => \`<tr>
      <td>\${escapeHtml(line.number)}</td>
      <td>\${escapeHtml(formatDate(line.issuedAt, customer.tz))}</td>
      <td class="amount">\${formatCents(line.total)}</td>
    </tr>\`).join('')}
    </table>
    <footer>\${formatCents(subtotal)} + \${formatCents(tax)} tax = \${formatCents(total)}</footer>
  </article>\`;
}`, 40));
toolStep(null, 'bash', { command: 'npx vitest run test/render test/billing/render.test.ts' }, vitestOk(['test/render/escape.test.ts (5 tests) 7ms', 'test/billing/render.test.ts (9 tests) 39ms'], 14, 862));
toolStep('Rendering a statement for the hostile fixture to look at the output itself.', 'bash',
  { command: 'node scripts/render-statement.mjs c_hostile 2025-01 | head -n 12' }, `<article class="statement">
    <h1>Statement 2025-01 for &lt;img src=x onerror=&quot;window.__xss=1&quot;&gt;</h1>
    <table>
      <tr>
      <td>INV-2025-0107</td>
      <td>31 Jan 2025, 21:40 PST</td>
      <td class="amount">$1,240.00</td>
    </tr>
    </table>
    <footer>$1,240.00 + $89.90 tax = $1,329.90</footer>
  </article>`);
toolStep(null, 'bash', { command: 'npm run lint' }, `> ledgerline@2.14.1 lint
> eslint . --max-warnings 0

✔ No problems (0 errors, 0 warnings)`);
toolStep(null, 'bash', { command: 'npm run build' }, `> ledgerline@2.14.1 build
> tsc -p tsconfig.build.json

built dist/ in 2.4s (14 files)`);
toolStep('Checking what the package would ship.', 'bash', { command: 'npm pack --dry-run 2>&1 | tail -n 22' }, `npm notice 📦  ledgerline@2.14.1
npm notice Tarball Contents
npm notice 2.9kB CHANGELOG.md
npm notice 1.1kB LICENSE
npm notice 3.4kB README.md
npm notice 1.8kB dist/billing/due.js
npm notice 2.2kB dist/billing/period.js
npm notice 1.0kB dist/billing/query.js
npm notice 3.9kB dist/billing/render.js
npm notice 2.6kB dist/billing/statement.js
npm notice 1.2kB dist/billing/totals.js
npm notice 2.1kB dist/index.js
npm notice 1.4kB dist/reports/monthly.js
npm notice 0.9kB dist/time/calendar.js
npm notice 1.6kB package.json
npm notice Tarball Details
npm notice name: ledgerline
npm notice version: 2.14.1
npm notice filename: ledgerline-2.14.1.tgz
npm notice package size: 9.8 kB
npm notice unpacked size: 27.1 kB
npm notice total files: 14`);
toolStep(null, 'bash', { command: 'git diff --stat' }, ` CHANGELOG.md                   |  3 +++
 package-lock.json              |  4 ++--
 package.json                   |  2 +-
 src/billing/due.ts             |  5 ++---
 src/billing/period.ts          | 20 ++++++++++++++------
 src/billing/query.ts           |  2 +-
 src/reports/monthly.ts         |  2 +-
 test/billing/period.test.ts    | 16 +++++++++++++++-
 test/billing/statement.test.ts |  4 ++--
 9 files changed, 40 insertions(+), 18 deletions(-)`);
stepStart();
prune(fullSuite, '[pruned: 19 lines of vitest output from an earlier run]');
assistant(`Release checklist:
- CHANGELOG.md: two entries under "Unreleased" ✓
- \`npm test\`: 73 passed ✓
- \`npm run typecheck\`: clean after fixing the last \`periodBounds\` caller in src/reports/monthly.ts ✓
- Escaping: the hostile fixture's name renders as \`&lt;img …&gt;\` text in statements; render and escape tests pass ✓
- \`npm run lint\` clean, and the package ships only dist/ plus the docs ✓
- Draft PR: not opened yet. Say the word and I will open one.`);
stepEnd();
turnEnd();

// Turn 9: a new tool for the pull request, with a series header (the route cannot defer it).
turnStart();
stepStart();
user('Open the draft PR, please. Title it "Statements and due dates in the customer\'s time zone".');
header('series', RELEASE_TOOLS);
assistant('Opening the draft pull request.');
call('gh_pr_draft', {
  title: "Statements and due dates in the customer's time zone",
  body: "Fixes month grouping (periodOf, periodBounds) and net-N due dates to use customer.tz.\n\n- New York invoices of the 31st stay on their month's statement\n- Auckland invoices of the 1st move to the right month\n- Due dates add calendar days across DST\n\nTests: 73 passed under UTC, America/New_York and Pacific/Auckland.",
});
result('Draft pull request #482 opened: "Statements and due dates in the customer\'s time zone" (feature/customer-tz -> main).');
stepEnd();
stepStart();
assistant('Draft PR #482 is open. It is not merged; review it when you are ready.');
stepEnd();
turnEnd();

// ---------------------------------------------------------------------------------------------
// Provider usage on the answers, as a provider with a prefix cache would report it. A pass over
// the finished log (it draws nothing from rand(), so times and ids stay as they are), written
// apart from the library: it follows the surface through appends and replacements, estimates
// tokens with the harness's meter (docs/context.md), and applies docs/cache.md's "Kept, new, broken". A
// request sends its route, its tools and its surface at its read point (just before its answer);
// the provider reads from its cache the prefix kept since the previous request, in whole 64-token
// blocks, and nothing after the session sat idle for more than CACHE_TTL_MS (it evicted the
// prefix). `inputTokens` is the input not read from the cache (the harness's counts are
// disjoint). The model is in
// scripts/cache-usage.mjs, shared with scripts/make-cache-session.mjs.

addCacheUsage(events, { ttlMs: CACHE_TTL_MS });

// ---------------------------------------------------------------------------------------------
// The page layout the demo relies on.

const starts = pageStarts(events).map((i) => events[i].seq);
const pageOf = (s) => starts.findIndex((start) => s >= start);
const problems = [];
for (const event of events) {
  if (!event.surfaceOp || event.surfaceOp === 'append') continue;
  const { startSeq, endSeq } = event.surfaceOp;
  const crosses = pageOf(Math.min(startSeq, endSeq)) !== pageOf(event.seq);
  if (event.seq === seqs.latePrune) {
    if (pageOf(event.seq) !== 0 || pageOf(startSeq) !== 1) {
      problems.push(`the late prune (seq ${event.seq}) must be on the newest page and reach the one before it`);
    }
  } else if (crosses) {
    problems.push(`replacement at seq ${event.seq} reaches seq ${Math.min(startSeq, endSeq)} on an older page`);
  }
}
if (!(seqs.promptRelease >= starts[0] && seqs.promptRelease < seqs.latePrune)) {
  problems.push('the release prompt must be on the newest page, before the late prune');
}
if (events.length < 150 || events.length > 400) problems.push(`${events.length} events, want 150-400`);
if (problems.length) {
  const turnStarts = events.flatMap((e, i) => (e.type === 'turn/start' ? [`${i}:${e.seq}`] : []));
  console.error(`${events.length} events; pages start at seq ${starts.join(', ')}; turns start at (index:seq) ${turnStarts.join(' ')}`);
  console.error(JSON.stringify(seqs));
  console.error(problems.join("\n"));
  process.exit(1);
}

export const sampleText = JSON.stringify(events, null, 1) + '\n';

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const out = fileURLToPath(new URL('./sample-session.json', import.meta.url));
  if (process.argv.includes('--check')) {
    const same = existsSync(out) && readFileSync(out, 'utf8') === sampleText;
    console.log(same ? `${out} is up to date` : `${out} differs from what make-sample.mjs generates; run: node www/make-sample.mjs`);
    process.exit(same ? 0 : 1);
  }
  writeFileSync(out, sampleText);
  console.log(`wrote ${out}: ${events.length} events, seq 1-${seq}; pages (>= ${PAGE_SIZE} events, whole turns) start at seq ${starts.join(', ')}`);
  console.log(`prompts: ${JSON.stringify(seqs)}`);
}
