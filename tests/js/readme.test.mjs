// The examples of the package README (pkg-template/README.md) run: every ```js block that uses
// the package is type-checked by `tsc --strict` against the built .d.ts, then run in Node against
// the built package, in a folder holding a session file, with the names the README leaves to the
// reader (`events`, `render`, `card`, ...) defined.
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { repoRoot } from "./cases.mjs";
import { packageDir } from "./promptfold.mjs";

const readme = readFileSync(join(repoRoot, "pkg-template", "README.md"), "utf8");
const blocks = [...readme.matchAll(/^```js\n([\s\S]*?)^```$/gm)]
  .map((match) => ({ code: match[1], line: readme.slice(0, match.index).split("\n").length }))
  .filter(({ code }) => /from "promptfold"|\bConversation\b|\bconversation\./.test(code));

const entry = join(packageDir, "promptfold.mjs");
const sample = join(repoRoot, "www", "sample-session.json");

// The names the examples leave to the reader, as globals (a block's own declarations shadow them).
const prelude = `
import { readFileSync } from "node:fs";
import * as promptfold from ${JSON.stringify(entry)};
const events = JSON.parse(readFileSync(${JSON.stringify(sample)}, "utf8"));
const half = Math.floor(events.length / 2);
const conversation = new promptfold.Conversation();
conversation.load(events);
const views = conversation.views();
Object.assign(globalThis, {
  Conversation: promptfold.Conversation,
  events,
  olderEvents: events.slice(0, half),
  newestEvents: events.slice(half, -20),
  liveEvents: events.slice(-20),
  hasMore: false,
  seq: events[half].seq,
  i: 0,
  conversation,
  card: views.chat.find((card) => card.update) ?? views.chat[0],
  header: views.trajectory.headers.find((fact) => fact.change?.previous) ?? views.trajectory.headers[0],
  render() {},
  show() {},
  highlight() {},
  showWithheld() {},
});
`;

// The same names for tsc, and the few Node APIs the examples use (the repository has no
// @types/node).
const globals = `
declare module "node:fs/promises" {
  interface FileHandle {
    stat(): Promise<{ size: number }>;
    read(buffer: Uint8Array, offset: number, length: number, position: number): Promise<{ bytesRead: number }>;
  }
  export function readFile(path: string): Promise<Uint8Array>;
  export function open(path: string): Promise<FileHandle>;
}
declare module "node:fs" {
  export function watch(path: string, listener: () => void): unknown;
}
`;
const globalNames = `
import type { ChatCard, Conversation as ConversationClass, HeaderFact, SessionEvent, Views } from "promptfold";
declare global {
  const Conversation: typeof ConversationClass;
  const events: SessionEvent[];
  const olderEvents: SessionEvent[];
  const newestEvents: SessionEvent[];
  const liveEvents: SessionEvent[];
  const hasMore: boolean;
  const seq: number;
  const i: number;
  const conversation: ConversationClass;
  const card: ChatCard;
  const header: HeaderFact;
  function render(views: Views): void;
  function show(what: unknown): void;
  function highlight(key: string): void;
  function showWithheld(): void;
}
export {};
`;

test("the README has runnable examples", () => {
  assert.ok(blocks.length >= 6, `found ${blocks.length} example blocks`);
});

test("the README's examples type-check (tsc --strict, the built .d.ts)", () => {
  const dir = mkdtempSync(join(repoRoot, "target", "readme-types-"));
  try {
    writeFileSync(join(dir, "node.d.ts"), globals);
    writeFileSync(join(dir, "globals.d.ts"), globalNames);
    const files = blocks.map(({ code }, i) => {
      const name = `example-${i}.ts`;
      writeFileSync(join(dir, name), `${code}\nexport {};\n`);
      return name;
    });
    const config = {
      compilerOptions: {
        strict: true,
        // The examples are JavaScript: a caught error is read without a cast.
        useUnknownInCatchVariables: false,
        noEmit: true,
        target: "es2022",
        module: "esnext",
        moduleResolution: "bundler",
        lib: ["es2022", "esnext.disposable", "dom"],
        types: [],
        paths: { promptfold: [join(repoRoot, "pkg", "bundler", "promptfold.d.ts")] },
      },
      files: ["node.d.ts", "globals.d.ts", ...files],
    };
    writeFileSync(join(dir, "tsconfig.json"), JSON.stringify(config));
    const tsc = spawnSync(join(repoRoot, "node_modules", ".bin", "tsc"), ["-p", dir], { encoding: "utf8" });
    const report = tsc.stdout.replace(/example-(\d+)\.ts/g, (_, i) => `README block at line ${blocks[i].line}`);
    assert.equal(tsc.status, 0, report);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test("the README's examples run against the built package", () => {
  const dir = mkdtempSync(join(tmpdir(), "promptfold-readme-"));
  try {
    const rows = JSON.parse(readFileSync(sample, "utf8"));
    const file = [{ type: "session", version: 4, id: "s-1" }, ...rows].map((row) => JSON.stringify(row)).join("\n");
    writeFileSync(join(dir, "session.jsonl"), `${file}\n`);
    writeFileSync(join(dir, "prelude.mjs"), prelude);
    for (const { code, line } of blocks) {
      const module = join(dir, `example-${line}.mjs`);
      // A block that watches a file keeps running: it has had its second when the timer fires.
      const body = code.replaceAll('from "promptfold"', `from ${JSON.stringify(entry)}`);
      writeFileSync(module, `import "./prelude.mjs";\n${body}\nsetTimeout(() => process.exit(0), 1000).unref();\n`);
      const run = spawnSync(process.execPath, [module], { cwd: dir, encoding: "utf8", timeout: 60_000 });
      assert.equal(run.status, 0, `README block at line ${line}:\n${run.stderr}`);
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test("the README's error table lists every ErrorCode of the .d.ts", () => {
  const declarations = readFileSync(join(packageDir, "promptfold.d.ts"), "utf8");
  const union = /export type ErrorCode =([^;]+);/.exec(declarations)?.[1] ?? "";
  const codes = [...union.matchAll(/"([A-Z_]+)"/g)].map((match) => match[1]);
  assert.ok(codes.length >= 12, "ErrorCode found");
  const rows = [...readme.matchAll(/^\| `([A-Z_]+)` \|/gm)].map((match) => match[1]);
  assert.deepEqual([...rows].sort(), [...codes].sort());
});
