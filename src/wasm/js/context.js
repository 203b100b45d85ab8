// A context, its summary and the window's context totals, built from the numbers
// src/wasm/context.rs sends (as src/wasm/js/outgoing.js does for the views).
const NODE_TYPES = ["system/message", "user/message", "assistant/message", "tool/result", "developer/message"];

// A ContextBreakdown from five numbers at `at`.
function breakdown(numbers, at) {
  return {
    systemTokens: numbers[at],
    supersededSystemTokens: numbers[at + 1],
    toolsTokens: numbers[at + 2],
    messageTokens: numbers[at + 3],
    totalTokens: numbers[at + 4],
  };
}

// A Context: the breakdown, the incomplete flag, then four numbers per node.
export function promptfoldContext(numbers, count) {
  const nodes = new Array(count);
  for (let i = 0, at = 6; i < count; i++, at += 4) {
    nodes[i] = {
      seq: numbers[at],
      type: NODE_TYPES[numbers[at + 1]],
      position: numbers[at + 2],
      tokens: numbers[at + 3],
    };
  }
  return { nodes, breakdown: breakdown(numbers, 0), incomplete: numbers[5] === 1 };
}

// ContextTotals from its eight numbers.
export function promptfoldContextTotals(n) {
  return {
    requests: n[0],
    newSeries: n[1],
    promptsAppended: n[2],
    promptsRewritten: n[3],
    supersededSystemTokens: n[4],
    totalTokens: n[5],
    cacheReadTokens: n[6],
    answersWithCacheReads: n[7],
  };
}

// A ContextSummary: the breakdown and the incomplete flag.
export function promptfoldContextSummary(
  systemTokens,
  supersededSystemTokens,
  toolsTokens,
  messageTokens,
  totalTokens,
  incomplete,
) {
  return {
    breakdown: { systemTokens, supersededSystemTokens, toolsTokens, messageTokens, totalTokens },
    incomplete,
  };
}
