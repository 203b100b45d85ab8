// A CacheLedger built from the numbers and strings src/wasm/ledger.rs sends. An absent member
// crosses as NaN and is left out of the object (unknown is never 0).

const CAUSES = ["route", "tools", "system-rewrite", "compaction", "prune", "replacement", "series", "idle"];

// An entry's flags, as src/wasm/ledger.rs sets them.
const HAS_ROUTE = 1;
const KNOWN = 2;
const HAS_SHORTFALL = 4;
const HAS_SAVED = 8;
const HAS_COST = 16;
const FULL_OBSERVED = 32;

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
  // The flags (src/wasm/ledger.rs) say which optional parts follow; the common shapes are
  // built as literals.
  const entry = () => {
    const flags = n[at++];
    const seq = n[at++];
    const readSeq = n[at++];
    let value;
    if (flags & HAS_ROUTE) {
      const provider = n[at++];
      const model = n[at++];
      let entryRoute;
      if (Number.isNaN(provider) || Number.isNaN(model)) {
        entryRoute = {};
        if (!Number.isNaN(provider)) entryRoute.provider = strings[provider];
        if (!Number.isNaN(model)) entryRoute.model = strings[model];
      } else {
        entryRoute = { provider: strings[provider], model: strings[model] };
      }
      value = {
        seq,
        readSeq,
        route: entryRoute,
        totalTokens: n[at++],
        supersededSystemTokens: n[at++],
        toolsTokens: n[at++],
      };
    } else {
      value = { seq, readSeq, totalTokens: n[at++], supersededSystemTokens: n[at++], toolsTokens: n[at++] };
    }
    if (flags & KNOWN) {
      value.keptTokens = n[at++];
      value.newTokens = n[at++];
      value.brokenTokens = n[at++];
    }
    let observed;
    if (flags & FULL_OBSERVED) {
      observed = {
        inputTokens: n[at++],
        outputTokens: n[at++],
        cacheReadTokens: n[at++],
        cacheWriteTokens: n[at++],
        uncachedInputTokens: n[at++],
      };
    } else {
      observed = {};
      put(observed, "inputTokens", next());
      put(observed, "outputTokens", next());
      put(observed, "cacheReadTokens", next());
      put(observed, "cacheWriteTokens", next());
      put(observed, "uncachedInputTokens", next());
    }
    const shortfall = flags & HAS_SHORTFALL ? n[at++] : undefined;
    const saved = flags & HAS_SAVED ? n[at++] : undefined;
    let cost;
    if (flags & HAS_COST) {
      cost = {
        input: n[at++],
        cacheRead: n[at++],
        cacheWrite: n[at++],
        output: n[at++],
        total: n[at++],
        estimated: n[at++] === 1,
      };
      const model = optionalText();
      if (model !== undefined) cost.model = model;
    }
    const count = n[at++];
    let causes;
    if (count === 0) {
      causes = [];
    } else {
      causes = new Array(count);
      for (let i = 0; i < count; i++) causes[i] = cause();
    }
    value.causes = causes;
    value.observed = observed;
    if (shortfall !== undefined) value.shortfallTokens = shortfall;
    if (saved !== undefined) value.savedTokens = saved;
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
