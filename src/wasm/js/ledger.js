// A CacheLedger built from the numbers and strings src/wasm/ledger.rs sends. An absent member
// crosses as NaN and is left out of the object (unknown is never 0).

const CAUSES = ["route", "tools", "system-rewrite", "compaction", "prune", "replacement", "series", "idle"];

export function promptfoldCacheLedger(n, strings) {
  let at = 0;
  const next = () => n[at++];
  const put = (object, key, value) => {
    if (!Number.isNaN(value)) object[key] = value;
  };
  const text = () => strings[next()];
  const optionalText = () => {
    const index = next();
    return Number.isNaN(index) ? undefined : strings[index];
  };
  const route = () => {
    const value = {};
    const provider = optionalText();
    const model = optionalText();
    if (provider !== undefined) value.provider = provider;
    if (model !== undefined) value.model = model;
    return value;
  };
  const texts = () => {
    const count = next();
    const list = new Array(count);
    for (let i = 0; i < count; i++) list[i] = text();
    return list;
  };
  const cause = () => {
    const kind = CAUSES[next()];
    switch (kind) {
      case "route":
        return { kind, from: route(), to: route() };
      case "tools":
        return { kind, added: texts(), removed: texts(), changed: texts() };
      case "system-rewrite":
        return { kind, seq: next(), startSeq: next(), endSeq: next(), sections: texts() };
      case "replacement":
        return { kind, seq: next(), startSeq: next(), endSeq: next(), type: text() };
      case "series":
        return { kind, seq: next() };
      case "idle":
        return { kind, gapMs: next() };
      default:
        return { kind, seq: next(), startSeq: next(), endSeq: next() };
    }
  };
  // Members in the order of the Rust struct, so that JSON.stringify writes what serde writes.
  const entry = () => {
    const value = { seq: next(), readSeq: next() };
    const hasRoute = next() === 1;
    const entryRoute = route();
    if (hasRoute) value.route = entryRoute;
    value.totalTokens = next();
    value.supersededSystemTokens = next();
    value.toolsTokens = next();
    put(value, "keptTokens", next());
    put(value, "newTokens", next());
    put(value, "brokenTokens", next());
    const observed = {};
    put(observed, "inputTokens", next());
    put(observed, "outputTokens", next());
    put(observed, "cacheReadTokens", next());
    put(observed, "cacheWriteTokens", next());
    put(observed, "uncachedInputTokens", next());
    const shortfall = next();
    const saved = next();
    let cost;
    if (next() === 1) {
      cost = {
        input: next(),
        cacheRead: next(),
        cacheWrite: next(),
        output: next(),
        total: next(),
        estimated: next() === 1,
      };
      const model = optionalText();
      if (model !== undefined) cost.model = model;
    }
    const count = next();
    const causes = new Array(count);
    for (let i = 0; i < count; i++) causes[i] = cause();
    value.causes = causes;
    value.observed = observed;
    put(value, "shortfallTokens", shortfall);
    put(value, "savedTokens", saved);
    if (cost !== undefined) value.cost = cost;
    return value;
  };
  const count = next();
  const requests = new Array(count);
  for (let i = 0; i < count; i++) requests[i] = entry();
  const summary = {
    requests: next(),
    knownRequests: next(),
    totalTokens: next(),
    keptTokens: next(),
    newTokens: next(),
    brokenTokens: next(),
  };
  const observed = {
    inputTokens: next(),
    outputTokens: next(),
    cacheReadTokens: next(),
    cacheWriteTokens: next(),
    uncachedInputTokens: next(),
  };
  observed.counts = {
    inputTokens: next(),
    outputTokens: next(),
    cacheReadTokens: next(),
    cacheWriteTokens: next(),
    uncachedInputTokens: next(),
  };
  summary.observed = observed;
  put(summary, "expectedHitRate", next());
  put(summary, "observedHitRate", next());
  const breakCount = next();
  const breaks = new Array(breakCount);
  for (let i = 0; i < breakCount; i++) {
    const group = { kind: text(), requests: next(), brokenTokens: next() };
    put(group, "cost", next());
    breaks[i] = group;
  }
  summary.breaks = breaks;
  const trade = { savedTokens: next(), supersededTokens: next() };
  put(trade, "savedCost", next());
  put(trade, "carriedCost", next());
  put(trade, "balance", next());
  summary.trade = trade;
  if (next() === 1) summary.cost = { total: next(), estimated: next() === 1 };
  return { requests, summary };
}
