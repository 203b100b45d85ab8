// Makes a call given something other than a number (or undefined) where the API takes one (`stateAt(seq)`,
// `contextAt(seq)`, ...) throw a PromptfoldError INVALID_ARGUMENT, as Rust's checks of the other
// arguments do (called by scripts/build.sh after scripts/freed-glue.mjs, on the same glue files).
//
// wasm-bindgen passes an `f64` argument to wasm as it is, and the engine converts it as `Number()`
// does: "5" was seq 5, `null` and `[]` seq 0, `true` seq 1 (a wrong answer without an error), and
// a BigInt or a Symbol threw a TypeError. Every parameter the glue documents as
// `@param {number} name` gets a first line checking that it is a number or `undefined`: JS only,
// no crossing. NaN and `undefined` stay "no seq" (docs/api.md, "Seq arguments": `undefined` from
// `stateAt`, `requestAt` and `indexOfSeq`, an empty context), and a negative, fractional or
// infinite seq a point in seq order (`stateAt(Infinity)` is the newest state).
//
// Usage: node scripts/number-args-glue.mjs <glue file>...
import { readFileSync, writeFileSync } from "node:fs";

const files = process.argv.slice(2);
if (files.length === 0) throw new Error("usage: node scripts/number-args-glue.mjs <glue file>...");

// promptfoldError is the helper scripts/error-glue.mjs put in the same file.
const helper = `
function promptfoldNotANumber(name, value) {
    const found = value === null ? "null" : typeof value;
    return promptfoldError("INVALID_ARGUMENT", \`invalid argument \\\`\${name}\\\`: expected a number, found \${found}\`);
}
`;

for (const file of files) {
  const lines = readFileSync(file, "utf8").split("\n");
  if (lines.some((line) => line.startsWith("function promptfoldNotANumber("))) {
    throw new Error(`number-args-glue: ${file} is already patched`);
  }
  if (!lines.some((line) => line.startsWith("function promptfoldError("))) {
    throw new Error(`number-args-glue: ${file} has no promptfoldError: run scripts/error-glue.mjs first`);
  }
  const out = [];
  let numbers = [];
  let checked = 0;
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i];
    out.push(line);
    if (/^\s*\/\*\*/.test(line)) numbers = [];
    const param = /^\s*\* @param \{number\} ([A-Za-z_$][\w$]*)$/.exec(line);
    if (param) numbers.push(param[1]);
    const header = /^(\s*)(?:export )?(?:function )?(?:get |set )?[A-Za-z_$][\w$]*\((.*)\) \{$/.exec(line);
    if (!header || numbers.length === 0) continue;
    const args = header[2].split(",").map((arg) => arg.trim());
    const indent = `${header[1]}    `;
    // After the freed check (scripts/freed-glue.mjs): a freed object is FREED whatever its arguments.
    if (lines[i + 1]?.includes("promptfoldFreed(")) out.push(lines[++i]);
    for (const name of numbers) {
      if (!args.includes(name)) throw new Error(`number-args-glue: ${file}: @param ${name} is not a parameter of ${line.trim()}`);
      out.push(`${indent}if (typeof ${name} !== "number" && ${name} !== undefined) throw promptfoldNotANumber("${name}", ${name});`);
      checked++;
    }
    numbers = [];
  }
  if (checked === 0) throw new Error(`number-args-glue: ${file} documents no number parameter: the glue changed shape`);
  writeFileSync(file, out.join("\n") + helper);
}
