// Finds the conformance cases: CONFORMANCE_DIR, else the copy in the repository.
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join, dirname } from "node:path";
import { fileURLToPath } from "node:url";

export const repoRoot = join(dirname(fileURLToPath(import.meta.url)), "..", "..");

export function conformanceDir() {
  return process.env.CONFORMANCE_DIR || join(repoRoot, "tests", "conformance");
}

/** Every case below the conformance folder, parsed, sorted by path. */
export function loadCases(dir = conformanceDir()) {
  const files = [];
  const walk = (folder) => {
    for (const name of readdirSync(folder).sort()) {
      const path = join(folder, name);
      if (statSync(path).isDirectory()) walk(path);
      else if (name.endsWith(".json")) files.push(path);
    }
  };
  walk(dir);
  return files.map((path) => ({ path, ...JSON.parse(readFileSync(path, "utf8")) }));
}
