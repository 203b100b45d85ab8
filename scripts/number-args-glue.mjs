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
import { patchParams } from "./glue-params.mjs";

// promptfoldError is the helper scripts/error-glue.mjs put in the same file.
const helper = `
function promptfoldNotANumber(name, value) {
    const found = value === null ? "null" : typeof value;
    return promptfoldError("INVALID_ARGUMENT", \`invalid argument \\\`\${name}\\\`: expected a number, found \${found}\`);
}
`;

patchParams({
  script: "number-args-glue",
  marker: "promptfoldNotANumber",
  helper,
  param: (line, file) => {
    const name = /^\s*\* @param \{number\} ([A-Za-z_$][\w$]*)$/.exec(line)?.[1];
    if (name === undefined) return undefined;
    return (args, header) => {
      if (!args.includes(name)) throw new Error(`number-args-glue: ${file}: @param ${name} is not a parameter of ${header.trim()}`);
      return `if (typeof ${name} !== "number" && ${name} !== undefined) throw promptfoldNotANumber("${name}", ${name});`;
    };
  },
  // After the freed check (scripts/freed-glue.mjs): a freed object is FREED whatever its arguments.
  keepFirst: /promptfoldFreed\(/,
  what: "number parameter",
});
