// The usage a provider with a prefix cache would report on each answer of a session log, for
// the generated sessions (www/make-sample.mjs, scripts/make-cache-session.mjs). Written apart from
// the library, from the rules as the docs state them: the harness meter's token estimates
// (docs/context.md) and docs/cache.md's "Kept, new, broken" for what a request keeps of the previous one's
// prefix. A request is read just before its answer (or before the next step start); the provider
// reads the kept prefix from its cache in whole `block`-token units, and nothing when the request
// comes more than `ttlMs` after the previous answer (it evicted the prefix meanwhile).
// The counts are disjoint, as the harness reports them (docs/cache.md): `inputTokens` is the
// input not read from the cache, so `inputTokens + cacheReadTokens` is the whole prompt.

export const CACHE_TTL_MS = 5 * 60 * 1000;
const SURFACE_TYPES = new Set(['system/message', 'user/message', 'assistant/message', 'tool/result', 'developer/message']);
const CACHE_BLOCK = 64;
const quarter = (n) => Math.ceil(n / 4);

/** The meter's estimate of one content block. */
function blockTokens(block) {
  if (block && typeof block === 'object' && (block.type === 'text' || block.type === 'reasoning') && typeof block.text === 'string') {
    return quarter(block.text.length) + 4;
  }
  if (block && typeof block === 'object' && block.type === 'tool-call') {
    const name = typeof block.name === 'string' ? block.name.length : 0;
    const args = typeof block.arguments === 'string' ? block.arguments.length : JSON.stringify(block.arguments ?? null).length;
    return quarter(name) + quarter(args) + 4;
  }
  return 4 + quarter(JSON.stringify(block).length);
}

/** The meter's estimate of a surface event's message. */
function nodeTokens(event) {
  if (event.type === 'system/message') {
    const content = event.data.message.content;
    const chars = content.reduce((sum, block) => sum + (block?.type === 'text' && typeof block.text === 'string' ? block.text.length : 0), 0);
    return chars === 0 ? 0 : quarter(chars) + 4;
  }
  const content = event.type === 'user/message' ? event.data.content : event.data.message.content;
  if (typeof content === 'string') return quarter(content.length) + 8;
  if (!Array.isArray(content)) return 4;
  return content.reduce((sum, block) => sum + blockTokens(block), 4);
}

const toolsTokensOf = (tools) => (Array.isArray(tools) && tools.length ? quarter(JSON.stringify(tools).length) + 4 : 0);
const toolKey = (tool) => (typeof tool?.name === 'string' ? tool.name : JSON.stringify(tool));

/** Tokens of `previous` that `current` can reuse from the cache (docs/cache.md, "Kept, new, broken"). */
function keptTokens(previous, current, seriesBetween) {
  if (previous.route !== current.route) return 0;
  const before = new Map(previous.tools.map((t) => [toolKey(t), JSON.stringify(t)]));
  const after = new Map(current.tools.map((t) => [toolKey(t), JSON.stringify(t)]));
  const removedOrChanged = [...before].some(([name, json]) => after.get(name) !== json);
  const added = [...after.keys()].some((name) => !before.has(name));
  if (removedOrChanged || (added && seriesBetween)) return 0;
  let kept = toolsTokensOf(previous.tools);
  for (let i = 0; i < Math.min(previous.nodes.length, current.nodes.length) && previous.nodes[i].seq === current.nodes[i].seq; i++) {
    kept += previous.nodes[i].tokens;
  }
  return kept;
}

export function addCacheUsage(log, { ttlMs = Infinity, block = CACHE_BLOCK } = {}) {
  const surface = []; // [{ seq, tokens }] in surface order
  const indexOf = (s) => {
    const index = surface.findIndex((node) => node.seq === s);
    if (index < 0) throw new Error(`cache-usage: the replacement endpoint ${s} is not on the surface`);
    return index;
  };
  let headerNow = { route: '', tools: [] };
  let previous = null; // the previous request at its read point
  let seriesSince = false; // a series header since the previous request's read point
  let request = null; // the step in progress: { read } once read
  let before = null; // the event before the one in hand
  const read = (at) => {
    const current = { route: headerNow.route, tools: headerNow.tools, nodes: [...surface], time: at.time, answerTime: undefined };
    const total = toolsTokensOf(current.tools) + surface.reduce((sum, node) => sum + node.tokens, 0);
    let cacheRead = 0;
    if (previous) {
      const kept = keptTokens(previous, current, seriesSince);
      const idle = previous.answerTime !== undefined && current.time - previous.answerTime > ttlMs;
      cacheRead = idle ? 0 : Math.floor(kept / block) * block;
    }
    previous = current;
    seriesSince = false;
    return { current, total, cacheRead };
  };
  log.forEach((event, i) => {
    if (event.type === 'step/start') {
      if (request && !request.read) read(before);
      request = { read: null };
    }
    if (event.type === 'assistant/message') {
      if (!request || request.read) throw new Error(`cache-usage: the answer at seq ${event.seq} is not the first of a step`);
      request.read = read(before);
      request.read.current.answerTime = event.time;
      // The output: the answer's text and the tool calls that follow it in its step.
      let output = quarter(JSON.stringify(event.data.message.content).length);
      for (const next of log.slice(i + 1)) {
        if (next.type === 'step/end' || next.type === 'step/start') break;
        if (next.type === 'tool/call') output += quarter(String(next.data?.name ?? '').length + String(next.data?.arguments ?? '').length) + 4;
      }
      const { total, cacheRead } = request.read;
      event.data.message.usage = { inputTokens: total - cacheRead, outputTokens: output, cacheReadTokens: cacheRead };
    }
    if (event.type === 'request/header') {
      const { header: { config = {}, tools } = {}, reason, startsSeries } = event.data;
      headerNow = { route: `${config.provider}/${config.model}`, tools: Array.isArray(tools) ? tools : [] };
      if (reason === 'series' || startsSeries === true) seriesSince = true;
    }
    const op = event.surfaceOp;
    const node = SURFACE_TYPES.has(event.type) ? { seq: event.seq, tokens: nodeTokens(event) } : null;
    if (op && typeof op === 'object' && op.op === 'replace') {
      const [from, to] = [indexOf(op.startSeq), indexOf(op.endSeq)].sort((a, b) => a - b);
      surface.splice(from, to - from + 1, ...(node ? [node] : []));
    } else if (node) {
      surface.push(node);
    }
    before = event;
  });
}
