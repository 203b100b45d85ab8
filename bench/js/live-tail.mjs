// Run: node bench/js/gen.mjs && node --expose-gc bench/js/live-tail.mjs [append|feed]
// Live tail in a process whose JS heap holds only what a UI would: load the first events of
// typical-100k from the file's bytes, then append/feed the last 1,000 one at a time.
import { readFileSync } from "node:fs";
import { promptfold } from "../../tests/js/promptfold.mjs";
const { Conversation } = promptfold;
const mode = process.argv[2] ?? "append";
const bytes = readFileSync(new URL("../data/typical-100k.json", import.meta.url)); // a JSON array, one event a line
// The last 1,000 lines (events) as text; the head as JSON lines bytes.
const tailLines = [];
const text = (a, b) => bytes.subarray(a, b).toString("utf8");
let end = bytes.lastIndexOf(0x7d) + 1; // last '}'
while (tailLines.length < 1000) {
  const start = bytes.lastIndexOf(0x0a, end - 1) + 1;
  tailLines.unshift(text(start, end).replace(/,\s*$/, "").replace(/^\[/, ""));
  end = bytes.lastIndexOf(0x0a, start - 1);
  end = bytes.lastIndexOf(0x7d, end) + 1;
}
const head = Buffer.concat([bytes.subarray(0, end), Buffer.from("]")]);
const tailObjects = tailLines.map((l) => JSON.parse(l));
const tailText = tailLines.map((l) => l + "\n");
for (let round = 0; round < 5; round++) {
  const c = new Conversation();
  c.loadJson(head);
  globalThis.gc?.();
  const times = [];
  for (let i = 0; i < 1000; i++) {
    const t = performance.now();
    if (mode === "append") c.append([tailObjects[i]]);
    else c.feed(tailText[i]);
    times.push(performance.now() - t);
  }
  const sorted = [...times].sort((a, b) => a - b);
  console.log(mode, c.length, "first3", times.slice(0, 3).map((t) => t.toFixed(2)).join(" "), "median", (sorted[500] * 1000).toFixed(1), "us max", sorted.at(-1).toFixed(2), "ms; >5ms:", times.filter((t) => t > 5).length);
  c.free();
}
