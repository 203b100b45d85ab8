// Structural comparison of a JS API result with a FORMAT.md expectation: key order is ignored,
// and on the JS side an absent member, `undefined` and the expectation's `null` all mean "none".

const isNone = (value) => value === undefined || value === null;

/** The first path at which `actual` differs from `expected`, or `undefined` when they agree. */
export function firstDifference(actual, expected, path = "$") {
  if (isNone(expected) || isNone(actual)) {
    return isNone(expected) && isNone(actual) ? undefined : `${path}: ${show(actual)} != expected ${show(expected)}`;
  }
  if (Array.isArray(expected)) {
    if (!Array.isArray(actual)) return `${path}: ${show(actual)} != expected an array`;
    const shared = Math.min(actual.length, expected.length);
    for (let i = 0; i < shared; i++) {
      const found = firstDifference(actual[i], expected[i], `${path}[${i}]`);
      if (found) return found;
    }
    return actual.length === expected.length ? undefined : `${path}: length ${actual.length} != expected ${expected.length}`;
  }
  if (typeof expected === "object") {
    if (typeof actual !== "object" || Array.isArray(actual)) return `${path}: ${show(actual)} != expected an object`;
    for (const key of new Set([...Object.keys(expected), ...Object.keys(actual)])) {
      const found = firstDifference(actual[key], expected[key], `${path}.${key}`);
      if (found) return found;
    }
    return undefined;
  }
  return Object.is(actual, expected) || actual === expected ? undefined : `${path}: ${show(actual)} != expected ${show(expected)}`;
}

function show(value) {
  const text = value === undefined ? "undefined" : JSON.stringify(value);
  return text.length > 120 ? `${text.slice(0, 117)}...` : text;
}

/**
 * The views as FORMAT.md has them: each request's `context` (not in FORMAT.md) is checked with
 * `check(what, actual, expected)` against contextSummaryAt at its seq and left out
 * (tests/js/context.test.mjs checks contexts against JSON text, tests/context.rs against a
 * reference).
 */
export function formatViews(conversation, check, section) {
  const views = conversation.views();
  for (const request of views.trajectory.requests) {
    const { context } = request;
    const { systemTokens, supersededSystemTokens, toolsTokens, messageTokens, totalTokens, incomplete } = context;
    const summary = { systemTokens, supersededSystemTokens, toolsTokens, messageTokens, totalTokens, incomplete };
    check(`${section}: request ${request.startSeq} context`, summary, conversation.contextSummaryAt(context.seq));
    delete request.context;
  }
  return views;
}
