// JS strings into wasm memory as UTF-8, a piece at a time (the Rust side: src/wasm/text.rs).

const encoder = new TextEncoder();

// Writes text[from..] as UTF-8 into `out` (never splitting a character); returns the UTF-16
// units read and the bytes written.
export function promptfoldEncodeInto(text, from, out) {
  const { read, written } = encoder.encodeInto(from === 0 ? text : text.substring(from), out);
  return [read, written];
}
