// Exports the class of promptfold's errors, `PromptfoldError` (src/wasm/js/error.js), from each
// glue file, and gives the glue its one maker of them, `promptfoldError(code, message)`, which
// scripts/freed-glue.mjs, number-args-glue.mjs and argument-glue.mjs use (called by
// scripts/build.sh first, on web/promptfold.js, bundler/promptfold_bg.js and node/promptfold.js).
//
// wasm-bindgen imports error.js into the glue for Rust (`promptfoldErrorOf`, src/wasm/error.rs)
// but exports nothing of a snippet: the class is imported beside it, from the same file, and
// exported as the glue's own. The bundler build's entry (bundler/promptfold.js) lists the names
// of its glue (promptfold_bg.js) that it exports: the class is added to that list.
//
// Usage: node scripts/error-glue.mjs <glue file>...
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { basename, dirname, join } from "node:path";

const files = process.argv.slice(2);
if (files.length === 0) throw new Error("usage: node scripts/error-glue.mjs <glue file>...");

const helper = `
function promptfoldError(code, message) {
    return new PromptfoldError(code, message);
}
`;

for (const file of files) {
  const glue = readFileSync(file, "utf8");
  if (glue.includes("function promptfoldError(")) throw new Error(`error-glue: ${file} is already patched`);
  const lines = glue.split("\n");
  // `import { promptfoldErrorOf } from '<snippet>';` (ES module) or
  // `const { promptfoldErrorOf } = require(<snippet>);` (CommonJS).
  const at = lines.findIndex((line) => /\bpromptfoldErrorOf\b/.test(line) && line.includes("src/wasm/js/error.js"));
  if (at < 0) throw new Error(`error-glue: ${file} does not import src/wasm/js/error.js: the glue changed shape`);
  const esm = /^import \{[^}]*\} from (['"][^'"]+['"]);$/.exec(lines[at]);
  const cjs = /^const \{[^}]*\} = (require\(.+\));$/.exec(lines[at]);
  if (esm) {
    lines.splice(at + 1, 0, `import { PromptfoldError } from ${esm[1]};`);
    lines.push("export { PromptfoldError };");
  } else if (cjs) {
    lines.splice(at + 1, 0, `const { PromptfoldError } = ${cjs[1]};`);
    lines.push("exports.PromptfoldError = PromptfoldError;");
  } else {
    throw new Error(`error-glue: ${file}: an import of error.js this script does not know: ${lines[at]}`);
  }
  writeFileSync(file, lines.join("\n") + helper);

  const entry = join(dirname(file), basename(file).replace(/_bg\.js$/, ".js"));
  if (entry === file || !existsSync(entry)) continue;
  const text = readFileSync(entry, "utf8");
  const list = /^export \{\n(\s+)([^}]*?)\n\} from "\.\/[^"]+_bg\.js";$/m.exec(text);
  if (!list) throw new Error(`error-glue: ${entry} has no list of its glue's exports: the glue changed shape`);
  writeFileSync(entry, text.replace(list[0], list[0].replace(list[2], `${list[2]}, PromptfoldError`)));
}
