// The package under test: the Node build in pkg/ (scripts/build.sh), ESM face.
import { existsSync } from "node:fs";
import { join } from "node:path";
import { repoRoot } from "./cases.mjs";

const entry = join(repoRoot, "pkg", "node", "promptfold.mjs");
if (!existsSync(entry)) {
  throw new Error(`${entry} is missing: run scripts/build.sh first`);
}
export const promptfold = await import(entry);
