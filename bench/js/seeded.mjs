// Seeded inputs shared by the benchmark scripts.

/** A seeded list of `count` seqs in [first, last] (a linear congruential generator). */
export function seqs(first, last, count) {
  let a = 12345;
  const out = new Float64Array(count);
  for (let i = 0; i < count; i++) {
    a = (Math.imul(a, 1103515245) + 12345) >>> 0;
    out[i] = first + (a % (last - first + 1));
  }
  return out;
}
