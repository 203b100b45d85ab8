#!/usr/bin/env node
// Every repository path a Markdown file names must exist: a path starting with src/, tests/,
// bench/, examples/, scripts/, docs/, cli/, www/, e2e/, fuzz/ or pkg-template/, in the READMEs,
// the changelog, docs/ and the other .md files. Left out: the measurement records (bench/ and
// BENCHMARKS.md, assembled from it), which name files as they were when measured.
//   node scripts/check-doc-paths.mjs        exit 1, naming file:line and path, if one is missing
// A named path may be a file or a folder; `*` and a placeholder segment in capitals (`NAME`) match
// any name; `examples/load_once` names the Rust example `examples/load_once.rs`.
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const ROOTS = ["src", "tests", "bench", "examples", "scripts", "docs", "cli", "www", "e2e", "fuzz", "pkg-template"];
/** Folders not walked for .md files: dependencies, build output, the measurement records. */
const SKIP = new Set(["node_modules", "target", "pkg", "dist", "bench"]);
/** .md files at the root left out: assembled from bench/ by scripts/bench.sh. */
const SKIP_FILES = new Set(["BENCHMARKS.md"]);
/** Folders the scripts write and git ignores (.gitignore): absent from a fresh checkout. */
const GENERATED = ["bench/data/", "fuzz/corpus/", "fuzz/artifacts/", "www/vendor/", "www/pkg/", "www/worker/"];
/** Paths that name a file of the reader's project, not of this repository: [.md file, path]. */
const NOT_OURS = [["pkg-template/README.md", "src/main.js"]];
// A path: one of the roots, then the characters of a path (not ending in `.` or `-`: the end of a
// sentence, or a path cut at a line end, joined with the next line's start below).
const PATH = new RegExp(String.raw`(?<![\w./-])((?:${ROOTS.join("|")})/[\w.*/-]*[\w*/])(-?)`, "g");

/** The .md files to check, relative to the root. */
function markdownFiles(dir = root) {
  const files = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (SKIP.has(entry.name) || entry.name.startsWith(".")) continue;
    const path = join(dir, entry.name);
    if (entry.isDirectory()) files.push(...markdownFiles(path));
    else if (entry.name.endsWith(".md") && !SKIP_FILES.has(entry.name)) files.push(relative(root, path));
  }
  return files;
}

/** Whether a file or folder matches `segments` (names; `*` and capitals as wildcards) under `dir`. */
function matches(dir, segments) {
  if (segments.length === 0) return true;
  const [first, ...rest] = segments;
  if (first === "") return matches(dir, rest);
  if (existsSync(join(dir, first)) && matches(join(dir, first), rest)) return true;
  if (!/\*|[A-Z]{3,}/.test(first)) return false;
  const pattern = new RegExp(`^${first.replace(/[.+?^${}()|[\]\\]/g, "\\$&").replace(/\*|[A-Z]{3,}/g, ".*")}$`);
  let entries;
  try {
    entries = readdirSync(dir);
  } catch {
    return false;
  }
  return entries.some((name) => pattern.test(name) && matches(join(dir, name), rest));
}

/** Whether the path `named` (relative to the root) exists. */
function exists(named) {
  if (GENERATED.some((folder) => named.startsWith(folder))) return true;
  if (matches(root, named.split("/"))) return true;
  return named.startsWith("examples/") && !named.includes(".") && existsSync(join(root, `${named}.rs`));
}

const missing = [];
let count = 0;
for (const file of markdownFiles()) {
  const lines = readFileSync(join(root, file), "utf8").split("\n");
  lines.forEach((line, index) => {
    for (const match of line.matchAll(PATH)) {
      let named = match[1];
      // `docs/performance-` at a line's end: the path goes on at the next line's start.
      if (match[2] === "-" && match.index + match[0].length === line.length) {
        named += `-${/^\s*([\w.*/-]*[\w*/])/.exec(lines[index + 1] ?? "")?.[1] ?? ""}`;
      }
      if (NOT_OURS.some(([where, path]) => where === file && path === named)) continue;
      count += 1;
      if (!exists(named)) missing.push(`${file}:${index + 1}: ${named}`);
    }
  });
}
for (const line of missing) console.log(line);
console.log(`doc paths: ${count} named in .md files, ${missing.length} missing`);
process.exit(missing.length === 0 ? 0 : 1);
