// The package under test: the Node build in pkg/ (scripts/build.sh), ESM face.
import { existsSync } from "node:fs";
import { join } from "node:path";
import { repoRoot } from "./cases.mjs";

/** The folder of the Node build. */
export const packageDir = join(repoRoot, "pkg", "node");
const entry = join(packageDir, "promptfold.mjs");
if (!existsSync(entry)) {
  throw new Error(`${entry} is missing: run scripts/build.sh first`);
}
export const promptfold = await import(entry);
