// Proves that the crate's modules import one another without a cycle.
//
//   node scripts/check-modules.mjs          exits 1 on a cycle or an import from a higher layer
//
// A node is a module file of src/ together with the modules declared inside it (src/fold.rs with
// src/fold/record.rs is one node, "fold"): a parent and its private children are one unit. Inside
// a layer folder (src/input/, src/fold/, ...) a node is one level below the folder. An edge a -> b
// is any `crate::b...` path in the code of a (comments and string literals skipped), or a
// `super::` path that leaves a's node. Re-exports at the crate root (`crate::Name` for an item
// lib.rs re-exports) resolve to the module they come from. Exits 1 and names each cycle found.
import { readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const src = join(root, "src");

/** Every .rs file under `dir`. */
function files(dir) {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return files(path);
    return name.endsWith(".rs") ? [path] : [];
  });
}

/** The module path of a file: src/fold/record.rs -> ["fold", "record"]; src/json/mod.rs -> ["json"]. */
function modulePath(file) {
  const parts = relative(src, file).replace(/\.rs$/, "").split("/");
  if (parts.at(-1) === "mod") parts.pop();
  return parts[0] === "lib" ? [] : parts;
}

// Layer folders: modules one level inside them are nodes of their own. A folder is a layer when
// it has no module file of its own that declares its children (src/input/mod.rs only lists them).
const layerFolders = new Set(["input", "fold", "views", "window", "wasm"]);

/** The node a module path belongs to. */
function nodeOf(path) {
  if (path.length === 0) return "crate";
  if (layerFolders.has(path[0]) && path.length > 1) return `${path[0]}::${path[1]}`;
  return path[0];
}

/** The code of `text` without comments and string literals (so paths in docs do not count). */
function code(text) {
  return text
    .replace(/r#*"[\s\S]*?"#*/g, '""')
    .replace(/"(?:[^"\\]|\\.)*"/g, '""')
    .replace(/\/\/.*$/gm, "")
    .replace(/\/\*[\s\S]*?\*\//g, "");
}

// The crate root's re-exports: `pub use a::b::{X, Y}` makes crate::X stand for a::b.
const lib = code(readFileSync(join(src, "lib.rs"), "utf8"));
const reexports = new Map();
for (const [, path, names] of lib.matchAll(/pub(?:\(crate\))? use ([\w:]+)::\{([^}]*)\}/g)) {
  for (const name of names
    .split(",")
    .map((n) => n.trim())
    .filter(Boolean))
    reexports.set(name, path.split("::"));
}
for (const [, path, name] of lib.matchAll(/pub(?:\(crate\))? use ([\w:]+)::(\w+);/g))
  reexports.set(name, path.split("::"));

// Every module that has a file; a path resolves to the longest of them it starts with (the rest
// names an item).
const modules = new Set(files(src).map((file) => modulePath(file).join("::")));
const moduleOf = (path) => {
  for (let length = path.length; length > 0; length--) {
    if (modules.has(path.slice(0, length).join("::"))) return path.slice(0, length);
  }
  return [];
};

const nodes = new Set();
const edges = new Map();
const addEdge = (from, to) => {
  if (from === to || to === "crate") return;
  if (!edges.has(from)) edges.set(from, new Set());
  edges.get(from).add(to);
};
for (const file of files(src)) {
  const path = modulePath(file);
  const from = nodeOf(path);
  nodes.add(from);
  const text = code(readFileSync(file, "utf8"));
  // crate::a::b, and each path of `use crate::{a::X, b}`.
  const paths = [...text.matchAll(/crate::(\w+(?:::\w+)*)/g)].map((m) => m[1].split("::"));
  for (const [, group] of text.matchAll(/crate::\{([^}]*)\}/g)) {
    for (const part of group.split(",")) paths.push(part.trim().split("::"));
  }
  for (const target of paths) {
    const resolved = reexports.has(target[0]) ? reexports.get(target[0]) : target;
    addEdge(from, nodeOf(moduleOf(resolved)));
  }
  // super::x from a file: a sibling module x, or an item of the parent module.
  for (const m of text.matchAll(/super::(\w+)/g)) {
    addEdge(from, nodeOf(moduleOf([...path.slice(0, -1), m[1]])));
  }
}

// Tarjan's strongly connected components: a component of more than one node is a cycle.
let index = 0;
const stack = [];
const info = new Map();
const cycles = [];
function visit(node) {
  info.set(node, { index, low: index, onStack: true });
  index++;
  stack.push(node);
  for (const next of edges.get(node) ?? []) {
    if (!info.has(next)) {
      visit(next);
      info.get(node).low = Math.min(info.get(node).low, info.get(next).low);
    } else if (info.get(next).onStack) {
      info.get(node).low = Math.min(info.get(node).low, info.get(next).index);
    }
  }
  if (info.get(node).low === info.get(node).index) {
    const component = [];
    let member;
    do {
      member = stack.pop();
      info.get(member).onStack = false;
      component.push(member);
    } while (member !== node);
    if (component.length > 1) cycles.push(component.sort());
  }
}
for (const node of [...nodes].sort()) if (!info.has(node)) visit(node);

// The layers, lowest first: a module may import from its own layer and the layers below it.
// Modules outside the layer folders (error, seq, sort, ...) are the base, below every layer;
// the test kit (feature `testkit`) uses the crate as its tests do, above every layer.
const LAYERS = ["input", "fold", "views", "window", "wasm", "testkit"];
const rank = (node) => LAYERS.indexOf(node.split("::")[0]);
const upward = [];
for (const [from, targets] of edges) {
  for (const to of targets) if (rank(to) > rank(from)) upward.push(`${from} -> ${to}`);
}
if (upward.length > 0) console.error(`check-modules: imports from a higher layer: ${upward.sort().join("; ")}`);

if (cycles.length > 0 || upward.length > 0) {
  for (const cycle of cycles) {
    const members = new Set(cycle);
    const inside = cycle.flatMap((a) =>
      [...(edges.get(a) ?? [])].filter((b) => members.has(b)).map((b) => `${a} -> ${b}`),
    );
    console.error(`check-modules: a cycle among ${cycle.join(", ")}: ${inside.join("; ")}`);
  }
  process.exit(1);
}
console.log(
  `check-modules: ${nodes.size} modules, ${[...edges.values()].reduce((n, s) => n + s.size, 0)} imports, no cycle`,
);
