// Makes a call on a freed object throw a PromptfoldError (code "FREED") naming its class, instead
// of wasm-bindgen's plain `Error: null pointer passed to rust` (called by scripts/build.sh on each
// glue file that holds the classes: web/promptfold.js, bundler/promptfold_bg.js, node/promptfold.js).
//
// `free()` (and `Symbol.dispose`, the same function) sets the object's `__wbg_ptr` to 0. Every
// method and accessor of a class that passes `this.__wbg_ptr` to wasm gets a first line checking
// it: one comparison in JS, no crossing. `free()` of a freed object returns at once (wasm-bindgen's
// throws "null pointer passed to rust" for it, so `using` after a `free()` threw at the block's
// end). The constructor and the static helpers are left as they are.
//
// A class Rust gives no constructor (its handles come from other calls) gets one that throws a
// TypeError saying where its handles come from, as a built-in that is not a constructor does:
// JS's default constructor made an object with no pointer, which every member then read as a
// state that is not there. wasm-bindgen's own handles (`__wrap`) are made without it.
//
// Usage: node scripts/freed-glue.mjs <glue file>...
import { readFileSync, writeFileSync } from "node:fs";

const files = process.argv.slice(2);
if (files.length === 0) throw new Error("usage: node scripts/freed-glue.mjs <glue file>...");

// promptfoldError is the helper scripts/error-glue.mjs put in the same file.
const helper = `
function promptfoldFreed(name) {
    return promptfoldError("FREED", \`this \${name} was freed (free() or the end of its \\\`using\\\` block); create a new one\`);
}
`;

/** Where the handles of each class without a public constructor come from. */
const MADE_BY = {
  SystemPromptState: "inspectSystemPrompt() and Conversation.stateAt() return them",
};

/**
 * The glue of one class (`text`, from its `class` line to its closing brace) with the checks, and
 * how many members got one. Fails the build when a line using the pointer is in none of the
 * members it knows: the glue changed shape.
 */
function checkMembers(name, text) {
  let checked = 0;
  const lines = text.split("\n");
  const out = [];
  let memberEnd = -1;
  for (let i = 0; i < lines.length; i++) {
    out.push(lines[i]);
    const member = /^ {4}(static )?(?:get |set )?([A-Za-z_$][\w$]*)\(.*\) \{$/.exec(lines[i]);
    if (!member) {
      if (i > memberEnd && lines[i].includes("this.__wbg_ptr")) {
        throw new Error(`freed-glue: ${name}: a use of the pointer outside a known member: ${lines[i].trim()}`);
      }
      continue;
    }
    memberEnd = lines.indexOf("    }", i);
    if (memberEnd < 0) throw new Error(`freed-glue: ${name}.${member[2]} has no end`);
    if (member[2] === "free" && !member[1]) {
      out.push("        if (this.__wbg_ptr === 0) return;");
      continue;
    }
    if (member[1] || ["constructor", "__destroy_into_raw"].includes(member[2])) continue;
    if (!lines.slice(i + 1, memberEnd).some((line) => line.includes("this.__wbg_ptr"))) continue;
    out.push(`        if (this.__wbg_ptr === 0) throw promptfoldFreed(${JSON.stringify(name)});`);
    checked++;
  }
  return { text: out.join("\n"), checked };
}

/** The glue of class `name` (`text`), with a constructor that throws when Rust gives it none. */
function constructible(file, name, text) {
  if (/^ {4}constructor\(/m.test(text)) return text;
  const madeBy = MADE_BY[name];
  if (madeBy === undefined) throw new Error(`freed-glue: ${file}: class ${name} has no constructor and no entry in MADE_BY`);
  const message = `${name} has no public constructor: ${madeBy}`;
  const open = text.indexOf("{\n") + 2;
  return `${text.slice(0, open)}    constructor() {\n        throw new TypeError(${JSON.stringify(message)});\n    }\n${text.slice(open)}`;
}

for (const file of files) {
  const glue = readFileSync(file, "utf8");
  if (glue.includes("function promptfoldFreed(")) throw new Error(`freed-glue: ${file} is already patched`);
  if (!glue.includes("function promptfoldError(")) {
    throw new Error(`freed-glue: ${file} has no promptfoldError: run scripts/error-glue.mjs first`);
  }
  let classes = 0;
  const patched = glue.replace(/^(?:export )?class ([A-Za-z_$][\w$]*) \{\n[\s\S]*?\n\}$/gm, (whole, name) => {
    const { text, checked } = checkMembers(name, constructible(file, name, whole));
    if (checked === 0) throw new Error(`freed-glue: ${file}: class ${name} has no method to check`);
    classes++;
    return text;
  });
  if (classes === 0) throw new Error(`freed-glue: ${file} has no class: the glue changed shape`);
  writeFileSync(file, patched + helper);
}
