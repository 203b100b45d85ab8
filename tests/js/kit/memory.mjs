// A WebAssembly module's memory given a maximum: the stand-in for wasm32's 4 GiB ceiling that the
// capped-memory tests (memory-limit*.test.mjs) run the web build's module under.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { repoRoot } from "../cases.mjs";

/** Reads an unsigned LEB128 at `at`: [value, next offset]. */
function readLeb(bytes, at) {
  let value = 0;
  let shift = 0;
  for (;;) {
    const byte = bytes[at];
    at += 1;
    value += (byte & 0x7f) * 2 ** shift;
    shift += 7;
    if ((byte & 0x80) === 0) return [value, at];
  }
}

function leb(value) {
  const out = [];
  do {
    let byte = value % 128;
    value = Math.floor(value / 128);
    if (value > 0) byte |= 0x80;
    out.push(byte);
  } while (value > 0);
  return out;
}

/** `wasm` with its one defined memory given a maximum of `pages` 64 KiB pages. */
export function capMemory(wasm, pages) {
  let at = 8;
  while (at < wasm.length) {
    const id = wasm[at];
    const [size, body] = readLeb(wasm, at + 1);
    if (id === 5) {
      const [count, flagsAt] = readLeb(wasm, body);
      assert.equal(count, 1, "one memory");
      assert.equal(wasm[flagsAt] & ~1, 0, "a plain 32-bit memory");
      const [initial] = readLeb(wasm, flagsAt + 1);
      const content = [1, 1, ...leb(initial), ...leb(pages)];
      const section = Uint8Array.from([5, ...leb(content.length), ...content]);
      const out = new Uint8Array(at + section.length + wasm.length - body - size);
      out.set(wasm.subarray(0, at), 0);
      out.set(section, at);
      out.set(wasm.subarray(body + size), at + section.length);
      return out;
    }
    at = body + size;
  }
  throw new Error("no memory section");
}

/** The web build's module (PROMPTFOLD_WEB or pkg/web) with its memory capped at `maxMiB` MiB. */
export async function cappedPromptfold(maxMiB) {
  const webDir = process.env.PROMPTFOLD_WEB || join(repoRoot, "pkg", "web");
  const promptfold = await import(pathToFileURL(join(webDir, "promptfold.js")).href);
  const wasm = readFileSync(join(webDir, "promptfold_bg.wasm"));
  promptfold.initSync({ module: capMemory(wasm, (maxMiB * 1024 * 1024) / 65536) });
  return promptfold;
}
