// Publishing, without publishing: `cargo publish --dry-run` of the crate and `npm publish
// --dry-run` of the tarball `npm pack` makes from pkg/ (scripts/build.sh first). Both must pass,
// carry the metadata a registry page shows (description, license, README, keywords; the same
// repository in both when one is named), and ship only what the package is: no tests, benches,
// demo or session data. crates.io must be reachable for the cargo dry run (it resolves the
// dependencies against the index); nothing is uploaded.
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const pkg = join(root, "pkg");

function run(command, args, cwd) {
  const result = spawnSync(command, args, { cwd, encoding: "utf8", maxBuffer: 64 << 20 });
  assert.equal(result.status, 0, `${command} ${args.join(" ")}:\n${result.stderr}`);
  return result;
}

/** The `[package]` table of Cargo.toml: key -> raw value text. */
function cargoPackage() {
  const manifest = readFileSync(join(root, "Cargo.toml"), "utf8");
  const table = /^\[package\]\n([\s\S]*?)(?=^\[)/m.exec(manifest)?.[1] ?? "";
  return new Map([...table.matchAll(/^([\w-]+)\s*=\s*(.+)$/gm)].map((match) => [match[1], match[2].trim()]));
}

/** What must never be published: test, bench, demo and fuzz files, session data. */
const FORBIDDEN = /^(tests|bench|www|e2e|fuzz|scripts|examples|pkg-template|node_modules|target)\/|\.(jsonl|zst)$|sample-session/;

test("cargo publish --dry-run passes and packages the library only", () => {
  const fields = cargoPackage();
  for (const key of ["name", "version", "description", "license", "readme", "keywords", "categories", "documentation"]) {
    assert.ok(fields.has(key), `Cargo.toml [package] has ${key}`);
  }
  assert.equal(fields.get("license"), '"MIT"');
  const listed = run("cargo", ["package", "-p", "promptfold", "--list", "--allow-dirty", "--locked"], root)
    .stdout.split("\n")
    .filter((line) => line !== "");
  for (const file of ["Cargo.toml", "README.md", "LICENSE", "src/lib.rs", "src/wasm/js/pack.js"]) {
    assert.ok(listed.includes(file), `the crate ships ${file}`);
  }
  const unwanted = listed.filter((file) => FORBIDDEN.test(file));
  assert.deepEqual(unwanted, [], "no test, bench or demo file in the crate");
  // Builds the packaged crate on its own (the verify step) against the crates.io index.
  const dry = run("cargo", ["publish", "-p", "promptfold", "--dry-run", "--allow-dirty", "--locked"], root);
  assert.match(dry.stderr, /aborting upload due to dry run/);
  assert.doesNotMatch(dry.stderr, /^(warning|error): manifest has no/m, "metadata warnings");
});

test("npm publish --dry-run of the packed tarball passes with the package's files only", () => {
  assert.ok(existsSync(join(pkg, "package.json")), "pkg/ is built (scripts/build.sh)");
  const manifest = JSON.parse(readFileSync(join(pkg, "package.json"), "utf8"));
  for (const key of ["name", "version", "description", "license", "keywords", "exports", "types", "files", "engines"]) {
    assert.ok(manifest[key] !== undefined, `package.json has ${key}`);
  }
  assert.equal(manifest.license, "MIT");
  const cargoVersion = JSON.parse(cargoPackage().get("version"));
  assert.equal(manifest.version, cargoVersion, "the package's version is the crate's");
  const cargoRepository = cargoPackage().get("repository");
  const npmRepository = typeof manifest.repository === "string" ? manifest.repository : manifest.repository?.url;
  assert.equal(
    npmRepository?.replace(/^git\+|\.git$/g, ""),
    cargoRepository === undefined ? undefined : JSON.parse(cargoRepository),
    "the same repository (or none) in both manifests",
  );

  const out = mkdtempSync(join(tmpdir(), "promptfold-pack-"));
  try {
    const packed = JSON.parse(run("npm", ["pack", "--json", "--pack-destination", out], pkg).stdout);
    const tarball = join(out, packed[0].filename);
    const published = JSON.parse(run("npm", ["publish", "--dry-run", "--json", tarball], out).stdout);
    const files = Object.values(published)[0].files.map((file) => file.path);
    for (const file of ["package.json", "README.md", "LICENSE", "bundler/promptfold.d.ts", "web/promptfold_bg.wasm"]) {
      assert.ok(files.includes(file), `the tarball ships ${file}`);
    }
    for (const entry of Object.values(manifest.exports).flatMap(function targets(value) {
      return typeof value === "string" ? [value] : Object.values(value).flatMap(targets);
    })) {
      assert.ok(files.includes(entry.replace(/^\.\//, "")), `the export ${entry} is in the tarball`);
    }
    const unwanted = files.filter((file) => FORBIDDEN.test(file) || /\.(rs|map)$/.test(file));
    assert.deepEqual(unwanted, [], "no source, test or demo file in the tarball");
    const readme = readFileSync(join(pkg, "README.md"), "utf8");
    assert.equal(readme, readFileSync(join(root, "pkg-template", "README.md"), "utf8"), "the README is the package's");
  } finally {
    rmSync(out, { recursive: true, force: true });
  }
});
