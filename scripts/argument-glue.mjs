// Makes a call given an argument of the wrong shape throw a PromptfoldError INVALID_ARGUMENT naming
// it, in JS before the call crosses into wasm (called by scripts/build.sh after
// scripts/number-args-glue.mjs, on the same glue files; docs/api.md, "Arguments").
//
// Each parameter the glue documents (`@param {Type} name`) is looked up by its type in RULES:
// either a check put as the function's first lines (after the freed and number checks), or the
// reason it needs none here (Rust or src/wasm/js/open.js checks it, or an earlier script). A type
// without a rule fails the build, so a new parameter cannot go unchecked unnoticed.
//
// Options, ranges and the plain-data arguments are checked against SHAPES, their members as the
// .d.ts declares them: a plain object (not an array, a class instance or a function), no member
// the type does not declare (a typo such as `{ cacheTTLMs }` is refused, not ignored), and each
// member of its type, `undefined` standing for a member left out. Ranges of numbers (a price
// `>= 0`, a slice's integers) are left to Rust, which checks them anyway. One check per call:
// nothing runs per event.
//
// Usage: node scripts/argument-glue.mjs <glue file>...
import { patchParams } from "./glue-params.mjs";

/** The check of an optional options argument: `undefined` and `null` are the defaults. */
const options = (shape) => (name) => `if (${name} != null) promptfoldShape("${name}", ${name}, "${shape}");`;

/** Per parameter type: the check's line (given the parameter's name), or why it has none. */
const RULES = {
  number: "scripts/number-args-glue.mjs",
  "string | Uint8Array": (name) =>
    `if (typeof ${name} !== "string" && !(${name} instanceof Uint8Array)) throw promptfoldInvalid("${name}", \`expected a string or a Uint8Array, found \${promptfoldFound(${name})}\`);`,
  "SessionLogRow[]": "Rust: the batch codes (NOT_AN_ARRAY, NOT_AN_OBJECT, ...)",
  SessionEvent: "Rust: the batch codes of a batch of one",
  SessionSource: "src/wasm/js/open.js: the promise rejects with INVALID_ARGUMENT",
  "OpenSessionOptions | null": "src/wasm/js/open.js: the promise rejects with INVALID_ARGUMENT",
  string: (name) =>
    `if (typeof ${name} !== "string") throw promptfoldInvalid("${name}", \`expected a string, found \${promptfoldFound(${name})}\`);`,
  PromptInput: (name) => `if (typeof ${name} !== "string") promptfoldShape("${name}", ${name}, "PromptInput");`,
  "PromptSnapshot | null | undefined": options("PromptSnapshot"),
  "SystemPromptNode | null | undefined": options("SystemPromptNode"),
  "SystemPromptState | null | undefined": (name) => `promptfoldState("${name}", ${name});`,
  SliceRange: (name) => `promptfoldShape("${name}", ${name}, "SliceRange");`,
  "LoadOptions | null": options("LoadOptions"),
  "CacheOptions | null": options("CacheOptions"),
  "InspectOptions | null": options("InspectOptions"),
};

// The helpers, after scripts/error-glue.mjs's promptfoldError. A member type is a shape's
// name, `Record<Shape>` (any keys, each value of that shape), `number`, `boolean`, `string`,
// `unknown`, `json` (a value JSON writes: not a function, a symbol or a BigInt, which would
// vanish or throw in the JSON step Rust reads it through; deeper values are JSON's to judge) or
// `unknown[]` (an array of such values); a `?` marks a member that may be left out.
const helper = `
const PROMPTFOLD_SHAPES = {
    SliceRange: { start: "number", end: "number" },
    LoadOptions: { hasMore: "boolean?" },
    CacheOptions: { prices: "Prices?", cacheTtlMs: "number?" },
    Prices: { default: "TokenPrices?", models: "Record<TokenPrices>?" },
    TokenPrices: { input: "number", cacheRead: "number", cacheWrite: "number?", output: "number" },
    InspectOptions: { windowStart: "number?" },
    PromptSnapshot: { config: "json?", system: "string", tools: "unknown[]" },
    PromptInput: { config: "json?", system: "string?", tools: "unknown[]?" },
    SystemPromptNode: { seq: "number", time: "number", turn: "number", step: "number", text: "string", update: "boolean" },
};
function promptfoldFound(value) {
    if (value === null || value === undefined) return String(value);
    const type = Array.isArray(value) ? "array" : typeof value;
    return \`\${/^[aeiou]/.test(type) ? "an" : "a"} \${type}\`;
}
function promptfoldInvalid(name, message) {
    return promptfoldError("INVALID_ARGUMENT", \`invalid argument \\\`\${name}\\\`: \${message}\`);
}
function promptfoldRecord(name, value) {
    const prototype = value !== null && typeof value === "object" && !Array.isArray(value) ? Object.getPrototypeOf(value) : undefined;
    // An object literal's prototype (of this realm or another: its own prototype is null), or none.
    if (prototype !== null && (prototype === undefined || Object.getPrototypeOf(prototype) !== null)) {
        const found = prototype === undefined ? promptfoldFound(value) : \`an instance of \${prototype.constructor?.name ?? "a class"}\`;
        throw promptfoldInvalid(name, \`expected a plain object, found \${found}\`);
    }
}
// A SystemPromptState of this module, live, or none; a freed one is FREED naming the argument.
function promptfoldState(name, value) {
    if (value === undefined || value === null) return;
    if (!(value instanceof SystemPromptState)) {
        throw promptfoldInvalid(name, \`expected a SystemPromptState of this module or undefined, found \${promptfoldFound(value)}\`);
    }
    if (value.__wbg_ptr === 0) {
        throw promptfoldError("FREED", \`invalid argument \\\`\${name}\\\`: this SystemPromptState was freed (free() or the end of its \\\`using\\\` block); create a new one\`);
    }
}
function promptfoldShape(name, value, type) {
    promptfoldRecord(name, value);
    const shape = PROMPTFOLD_SHAPES[type];
    for (const key of Object.keys(value)) {
        if (!Object.prototype.hasOwnProperty.call(shape, key)) {
            throw promptfoldInvalid(name, \`unknown member \\\`\${key}\\\` (\${type} has \${Object.keys(shape).join(", ")})\`);
        }
    }
    for (const key of Object.keys(shape)) {
        const member = shape[key];
        const optional = member.endsWith("?");
        promptfoldMember(\`\${name}.\${key}\`, value[key], optional ? member.slice(0, -1) : member, optional);
    }
}
function promptfoldMember(name, value, type, optional) {
    if (value === undefined) {
        if (optional) return;
    } else if (type === "unknown" || typeof value === type) {
        return;
    } else if (type === "json") {
        if (typeof value !== "function" && typeof value !== "symbol" && typeof value !== "bigint") return;
    } else if (type === "unknown[]") {
        if (Array.isArray(value)) {
            for (let i = 0; i < value.length; i++) promptfoldMember(\`\${name}[\${i}]\`, value[i], "json", false);
            return;
        }
    } else if (type.startsWith("Record<")) {
        promptfoldRecord(name, value);
        for (const key of Object.keys(value)) promptfoldShape(\`\${name}["\${key}"]\`, value[key], type.slice(7, -1));
        return;
    } else if (Object.prototype.hasOwnProperty.call(PROMPTFOLD_SHAPES, type)) {
        return promptfoldShape(name, value, type);
    }
    const expected = type === "json" ? "a value JSON can write" : type === "unknown[]" ? "an array" : \`a \${type}\`;
    throw promptfoldInvalid(name, \`expected \${expected}, found \${promptfoldFound(value)}\`);
}
`;

patchParams({
  script: "argument-glue",
  marker: "promptfoldShape",
  helper,
  param: (line, file) => {
    const param = /^\s*\* @param \{(.+)\} \[?([A-Za-z_$][\w$]*)\]?$/.exec(line);
    if (!param) return undefined;
    const rule = RULES[param[1]];
    if (rule === undefined) throw new Error(`argument-glue: ${file}: no rule for \`@param {${param[1]}} ${param[2]}\``);
    return typeof rule === "function" ? () => rule(param[2]) : undefined;
  },
  // After the freed and number checks: a freed object is FREED whatever its arguments.
  keepFirst: /promptfoldFreed\(|promptfoldNotANumber\(/,
  what: "parameter to check",
});
