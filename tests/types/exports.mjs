// The package's entries against their declarations: for every `types` + `default` pair of
// pkg/package.json's `exports` (and `main` with `types`), the names the module exports when
// loaded as Node loads it equal the value exports of its declaration file, as TypeScript reads
// it (classes, functions, constants, `default`; types and interfaces are not values). Run by
// scripts/test's type checks after scripts/build.sh; exits 1 naming each difference.
//
//   node tests/types/exports.mjs [pkg folder]
import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..", "..");
const pkg = resolve(process.argv[2] ?? join(root, "pkg"));
const require = createRequire(import.meta.url);
const ts = require(join(root, "node_modules", "typescript"));
const manifest = JSON.parse(readFileSync(join(pkg, "package.json"), "utf8"));

/** Every { types, default } pair under an `exports` condition, by its place in the manifest. */
function pairs(node, where, out) {
  if (node === null || typeof node !== "object") return out;
  if (typeof node.types === "string" && typeof node.default === "string") {
    out.push({ where, types: node.types, module: node.default });
  }
  for (const [key, value] of Object.entries(node)) pairs(value, `${where}[${JSON.stringify(key)}]`, out);
  return out;
}

const entries = pairs(manifest.exports, "exports", []);
entries.push({ where: "main", types: manifest.types, module: manifest.main });

/** Whether Node reads `file` as CommonJS: a .cjs, or a .js whose nearest package.json says so. */
function isCommonJs(file) {
  if (file.endsWith(".cjs")) return true;
  if (!file.endsWith(".js")) return false;
  for (let dir = dirname(file); dir.startsWith(pkg); dir = dirname(dir)) {
    try {
      return JSON.parse(readFileSync(join(dir, "package.json"), "utf8")).type !== "module";
    } catch {
      // no package.json here: look in the folder above
    }
  }
  return true;
}

// web/index.js fetches its .wasm from beside it; Node's fetch takes no file: URL.
const nodeFetch = globalThis.fetch;
globalThis.fetch = async (url, init) => {
  const href = String(url);
  if (!href.startsWith("file:")) return nodeFetch(url, init);
  return new Response(readFileSync(fileURLToPath(href)), { headers: { "content-type": "application/wasm" } });
};

/** The names `file` exports when Node loads it (require for CommonJS, import otherwise). */
async function runtimeNames(file) {
  if (isCommonJs(file)) return Object.keys(require(file));
  const source = readFileSync(file, "utf8");
  if (/^import \* as wasm from "\.\/[^"]+\.wasm";$/m.test(source)) {
    // The bundler build imports its .wasm as a module: Node needs a flag for that.
    const child = spawnSync(
      process.execPath,
      [
        "--experimental-wasm-modules",
        "--no-warnings",
        "--input-type=module",
        "-e",
        `console.log(JSON.stringify(Object.keys(await import(${JSON.stringify(pathToFileURL(file).href)}))))`,
      ],
      { encoding: "utf8" },
    );
    if (child.status !== 0) throw new Error(`${file}: ${child.stderr}`);
    return JSON.parse(child.stdout);
  }
  return Object.keys(await import(pathToFileURL(file).href));
}

/** The value exports of a declaration file, as TypeScript resolves them (export * followed). */
function declaredNames(file) {
  const program = ts.createProgram([file], {
    strict: true,
    noEmit: true,
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    target: ts.ScriptTarget.ES2022,
    lib: ["lib.es2022.d.ts", "lib.esnext.disposable.d.ts", "lib.dom.d.ts"],
  });
  const checker = program.getTypeChecker();
  const source = program.getSourceFile(file);
  const module = source && checker.getSymbolAtLocation(source);
  if (!module) throw new Error(`${file}: TypeScript finds no module there`);
  return checker
    .getExportsOfModule(module)
    .filter((symbol) => {
      const target = symbol.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(symbol) : symbol;
      return (target.flags & ts.SymbolFlags.Value) !== 0;
    })
    .map((symbol) => symbol.getName());
}

let failed = 0;
const seen = new Set();
for (const { where, types, module } of entries) {
  const key = `${types} ${module}`;
  if (seen.has(key)) continue;
  seen.add(key);
  const runtime = new Set(await runtimeNames(join(pkg, module)));
  const declared = new Set(declaredNames(join(pkg, types)));
  const undeclared = [...runtime].filter((name) => !declared.has(name));
  const missing = [...declared].filter((name) => !runtime.has(name));
  const label = `${where}: ${module} against ${types}`;
  if (undeclared.length === 0 && missing.length === 0) {
    console.log(`ok ${label} (${runtime.size} names)`);
    continue;
  }
  failed++;
  if (undeclared.length > 0) console.log(`FAILED ${label}: exported, not declared: ${undeclared.join(", ")}`);
  if (missing.length > 0) console.log(`FAILED ${label}: declared, not exported: ${missing.join(", ")}`);
}
console.log(`exports: ${seen.size} entries of ${relative(process.cwd(), pkg) || "."}, ${failed} differ`);
process.exitCode = failed === 0 ? 0 : 1;
