// The class of every error promptfold throws (docs/api.md, "Errors"). Rust builds its errors
// through `promptfoldErrorOf` (src/wasm/error.rs), the glue and open.js through the class; each
// entry of the package exports the class, and promptfold/worker rebuilds a worker's errors with
// it (its copy of this file).
//
// A package can be loaded twice (its CommonJS and ES module builds, or the page and the worker
// client), each copy with its own class. So `instanceof` asks for a mark every copy puts on its
// prototype, under a key shared by the whole JS agent (`Symbol.for`), rather than for this copy's
// prototype: an error of any copy is an instance of every copy's class.

const MARK = Symbol.for("promptfold.PromptfoldError");

/** What promptfold throws: an `Error` with a stable `code`, and the offending row's place. */
export class PromptfoldError extends Error {
  /**
   * @param {string} code
   * @param {string} message
   * @param {{ index?: number, seq?: number, line?: number }} [place]
   */
  constructor(code, message, place) {
    super(message);
    this.code = code;
    this.index = place?.index;
    this.seq = place?.seq;
    if (place?.line !== undefined) this.line = place.line;
  }

  /** Whether `value` is an error of promptfold, from this copy of the package or another. */
  static [Symbol.hasInstance](value) {
    // A subclass (`this`) is asked as classes are: by its prototype.
    // biome-ignore lint/complexity/noThisInStatic: `this` is the class asked, maybe a subclass
    if (this !== PromptfoldError) return Function.prototype[Symbol.hasInstance].call(this, value);
    return value !== null && typeof value === "object" && value[MARK] === true;
  }
}
Object.defineProperty(PromptfoldError.prototype, "name", {
  value: "PromptfoldError",
  writable: true,
  configurable: true,
});
Object.defineProperty(PromptfoldError.prototype, MARK, { value: true });

/** The error of Rust's `to_js_error` (src/wasm/error.rs): each place `undefined` when none. */
export function promptfoldErrorOf(code, message, index, seq, line) {
  return new PromptfoldError(code, message, { index, seq, line });
}
