// A CacheLedger built from the numbers and strings src/wasm/ledger.rs sends. An absent member
// crosses as NaN and is left out of the object (unknown is never 0).
//
// The entries are read in one loop that keeps its position in a local (closures over a shared
// position cost a context access per number), and the common shapes are built whole as object
// literals; causes other than compactions and prunes, and the summary, are read by helpers.

const CAUSES = ["route", "tools", "system-rewrite", "compaction", "prune", "replacement", "series", "idle"];
const COMPACTION = 3;
const PRUNE = 4;

// An entry's flags, as src/wasm/ledger.rs sets them.
const HAS_ROUTE = 1;
const KNOWN = 2;
const HAS_SHORTFALL = 4;
const HAS_SAVED = 8;
const HAS_COST = 16;
const FULL_OBSERVED = 32;
const SAME_ROUTE = 64;
const HAS_OBSERVED = 128;

// A reader over the numbers from `at` on, for the parts read once or rarely.
function reader(n, strings, at) {
  const r = {
    at,
    next: () => n[r.at++],
    put: (object, key, value) => {
      if (!Number.isNaN(value)) object[key] = value;
    },
    text: () => strings[r.next()],
    optionalText: () => {
      const index = r.next();
      return Number.isNaN(index) ? undefined : strings[index];
    },
    route: () => {
      const value = {};
      const provider = r.optionalText();
      const model = r.optionalText();
      if (provider !== undefined) value.provider = provider;
      if (model !== undefined) value.model = model;
      return value;
    },
    texts: () => {
      const count = r.next();
      const list = new Array(count);
      for (let i = 0; i < count; i++) list[i] = r.text();
      return list;
    },
  };
  return r;
}

// A cause of any kind at `r.at`.
function cause(r) {
  const kind = CAUSES[r.next()];
  switch (kind) {
    case "route":
      return { kind, from: r.route(), to: r.route() };
    case "tools":
      return { kind, added: r.texts(), removed: r.texts(), changed: r.texts() };
    case "system-rewrite":
      return { kind, seq: r.next(), startSeq: r.next(), endSeq: r.next(), sections: r.texts() };
    case "replacement":
      return { kind, seq: r.next(), startSeq: r.next(), endSeq: r.next(), type: r.text() };
    case "series":
      return { kind, seq: r.next() };
    case "idle":
      return { kind, gapMs: r.next() };
    default:
      return { kind, seq: r.next(), startSeq: r.next(), endSeq: r.next() };
  }
}

// The observed members that are not NaN, in the order of the Rust struct.
function partialObserved(n, at) {
  const observed = {};
  const input = n[at];
  const output = n[at + 1];
  const read = n[at + 2];
  const write = n[at + 3];
  const uncached = n[at + 4];
  if (!Number.isNaN(input)) observed.inputTokens = input;
  if (!Number.isNaN(output)) observed.outputTokens = output;
  if (!Number.isNaN(read)) observed.cacheReadTokens = read;
  if (!Number.isNaN(write)) observed.cacheWriteTokens = write;
  if (!Number.isNaN(uncached)) observed.uncachedInputTokens = uncached;
  return observed;
}

function summaryAt(r) {
  const { next, put, text } = r;
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
  return summary;
}

export function promptfoldCacheLedger(n, strings) {
  const count = n[0];
  let at = 1;
  const requests = new Array(count);
  // Entries that read the same header share one frozen route object (routes change rarely:
  // an entry whose route is the last one sent carries no numbers for it).
  let lastRoute;
  for (let i = 0; i < count; i++) {
    // Members in the order of the Rust struct, so that JSON.stringify writes what serde
    // writes. The flags say which optional parts follow.
    const flags = n[at];
    const seq = n[at + 1];
    const readSeq = n[at + 2];
    at += 3;
    let route;
    if (flags & HAS_ROUTE) {
      if (!(flags & SAME_ROUTE)) {
        const provider = n[at];
        const model = n[at + 1];
        at += 2;
        const value = {};
        if (!Number.isNaN(provider)) value.provider = strings[provider];
        if (!Number.isNaN(model)) value.model = strings[model];
        lastRoute = Object.freeze(value);
      }
      route = lastRoute;
    }
    const totalTokens = n[at];
    const supersededSystemTokens = n[at + 1];
    const toolsTokens = n[at + 2];
    at += 3;
    let keptTokens = 0;
    let newTokens = 0;
    let brokenTokens = 0;
    if (flags & KNOWN) {
      keptTokens = n[at];
      newTokens = n[at + 1];
      brokenTokens = n[at + 2];
      at += 3;
    }
    let observed;
    if (flags & FULL_OBSERVED) {
      observed = {
        inputTokens: n[at],
        outputTokens: n[at + 1],
        cacheReadTokens: n[at + 2],
        cacheWriteTokens: n[at + 3],
        uncachedInputTokens: n[at + 4],
      };
      at += 5;
    } else if (flags & HAS_OBSERVED) {
      observed = partialObserved(n, at);
      at += 5;
    } else {
      observed = {};
    }
    let value;
    if (flags & KNOWN) {
      if (flags & HAS_SHORTFALL) {
        const shortfallTokens = n[at++];
        value =
          route === undefined
            ? {
                seq,
                readSeq,
                totalTokens,
                supersededSystemTokens,
                toolsTokens,
                keptTokens,
                newTokens,
                brokenTokens,
                causes: null,
                observed,
                shortfallTokens,
              }
            : {
                seq,
                readSeq,
                route,
                totalTokens,
                supersededSystemTokens,
                toolsTokens,
                keptTokens,
                newTokens,
                brokenTokens,
                causes: null,
                observed,
                shortfallTokens,
              };
      } else {
        value =
          route === undefined
            ? {
                seq,
                readSeq,
                totalTokens,
                supersededSystemTokens,
                toolsTokens,
                keptTokens,
                newTokens,
                brokenTokens,
                causes: null,
                observed,
              }
            : {
                seq,
                readSeq,
                route,
                totalTokens,
                supersededSystemTokens,
                toolsTokens,
                keptTokens,
                newTokens,
                brokenTokens,
                causes: null,
                observed,
              };
      }
    } else {
      value =
        route === undefined
          ? { seq, readSeq, totalTokens, supersededSystemTokens, toolsTokens, causes: null, observed }
          : { seq, readSeq, route, totalTokens, supersededSystemTokens, toolsTokens, causes: null, observed };
      // A shortfall needs known tokens; src/wasm/ledger.rs never sets the flag without them.
      if (flags & HAS_SHORTFALL) value.shortfallTokens = n[at++];
    }
    if (flags & HAS_SAVED) value.savedTokens = n[at++];
    if (flags & HAS_COST) {
      const input = n[at];
      const cacheRead = n[at + 1];
      const cacheWrite = n[at + 2];
      const output = n[at + 3];
      const total = n[at + 4];
      const estimated = n[at + 5] === 1;
      const model = n[at + 6];
      at += 7;
      // One literal each way: a member added to a built object costs a second allocation.
      value.cost = Number.isNaN(model)
        ? { input, cacheRead, cacheWrite, output, total, estimated }
        : { input, cacheRead, cacheWrite, output, total, estimated, model: strings[model] };
    }
    const causeCount = n[at++];
    let causes;
    if (causeCount === 0) {
      causes = [];
    } else {
      causes = new Array(causeCount);
      for (let j = 0; j < causeCount; j++) {
        const kind = n[at];
        if (kind === COMPACTION || kind === PRUNE) {
          causes[j] = { kind: CAUSES[kind], seq: n[at + 1], startSeq: n[at + 2], endSeq: n[at + 3] };
          at += 4;
        } else {
          const r = reader(n, strings, at);
          causes[j] = cause(r);
          at = r.at;
        }
      }
    }
    value.causes = causes;
    requests[i] = value;
  }
  return { requests, summary: summaryAt(reader(n, strings, at)) };
}
