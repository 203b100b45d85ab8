// The walk scripts/number-args-glue.mjs and scripts/argument-glue.mjs share: each reads the
// wasm-bindgen glue's doc comments (`@param {Type} name`) and puts a check of the documented
// parameters as the first lines of the function the comment documents, after the checks an
// earlier script put there.
import { readFileSync, writeFileSync } from "node:fs";

// A function, method or accessor of the glue: its indent and its parameter list.
const HEADER = /^(\s*)(?:export )?(?:function )?(?:get |set )?[A-Za-z_$][\w$]*\((.*)\) \{$/;

/**
 * Patches each glue file named in `process.argv` and appends `helper` to it. `script` names the
 * script in its errors; `marker`, a function of `helper`, tells a file already patched. For each
 * line of a doc comment, `param(line, file)` returns the check of the parameter it documents:
 * `(args, header) => line of code` (`args`, the names of the documented function's parameters;
 * `header`, its first line), or `undefined` for none. The lines matching `keepFirst` that follow
 * a header stay ahead of the new checks. `what` names the parameters in the error of a file
 * where none got a check (the glue changed shape).
 */
export function patchParams({ script, marker, helper, param, keepFirst, what }) {
  const files = process.argv.slice(2);
  if (files.length === 0) throw new Error(`usage: node scripts/${script}.mjs <glue file>...`);
  for (const file of files) {
    const lines = readFileSync(file, "utf8").split("\n");
    if (lines.some((line) => line.startsWith(`function ${marker}(`))) {
      throw new Error(`${script}: ${file} is already patched`);
    }
    if (!lines.some((line) => line.startsWith("function promptfoldError("))) {
      throw new Error(`${script}: ${file} has no promptfoldError: run scripts/error-glue.mjs first`);
    }
    const out = [];
    let checks = [];
    let checked = 0;
    for (let i = 0; i < lines.length; i++) {
      const line = lines[i];
      out.push(line);
      if (/^\s*\/\*\*/.test(line)) checks = [];
      const check = param(line, file);
      if (check) checks.push(check);
      const header = HEADER.exec(line);
      if (!header || checks.length === 0) continue;
      const args = header[2].split(",").map((arg) => arg.trim());
      while (keepFirst.test(lines[i + 1] ?? "")) out.push(lines[++i]);
      for (const make of checks) out.push(`${header[1]}    ${make(args, line)}`);
      checked += checks.length;
      checks = [];
    }
    if (checked === 0) throw new Error(`${script}: ${file} documents no ${what}: the glue changed shape`);
    writeFileSync(file, out.join("\n") + helper);
  }
}
