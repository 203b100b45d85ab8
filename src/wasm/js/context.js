// A context, its summary and the window's context totals, built from the numbers
// src/wasm/context.rs sends (as src/wasm/js/outgoing.js does for the views).
const NODE_TYPES = ["system/message", "user/message", "assistant/message", "tool/result", "developer/message"];

// A Context: the five numbers of its breakdown, the incomplete flag, then four numbers per node.
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
  return {
    nodes,
    systemTokens: numbers[0],
    supersededSystemTokens: numbers[1],
    toolsTokens: numbers[2],
    messageTokens: numbers[3],
    totalTokens: numbers[4],
    incomplete: numbers[5] === 1,
  };
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

// A ContextSummary: the breakdown's numbers and the incomplete flag.
export function promptfoldContextSummary(
  systemTokens,
  supersededSystemTokens,
  toolsTokens,
  messageTokens,
  totalTokens,
  incomplete,
) {
  return { systemTokens, supersededSystemTokens, toolsTokens, messageTokens, totalTokens, incomplete };
}
