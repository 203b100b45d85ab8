// Statistics shared by the benchmark scripts.

/** The median of `values` (the mean of the middle two for an even count); undefined if none. */
export function median(values) {
  if (!values || values.length === 0) return undefined;
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}
