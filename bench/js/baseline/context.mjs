// BENCHMARK BASELINE -- NOT PART OF THE PACKAGE.
//
// The other half of what upstream runs to price a context, beside the system-prompt fold of
// baseline.mjs: the token meter's fold of the surface and the breakdown of every request, as
// docs/context.md states them, written in upstream's style to serve as the fair baseline in the
// benchmark. The meter keeps one positional list of the surviving surface nodes (ordered by
// position, then seq), prices a node once when it is written (the fixed heuristic: 4 UTF-16
// code units per token plus block and role overheads), and splices the list on every replace,
// finding the range by a scan. The host asks for the breakdown at every request's read point and
// keeps it: a walk over the surviving nodes, the tools priced from the latest header's JSON.
// Nothing is optimised beyond that, and nothing is made slow on purpose.
// It is not shipped, not used by the crate, and not a reference for behaviour: docs/context.md
// and tests/context.rs are. check.mjs compares it with promptfold on the shared cases.

const CHARS_PER_TOKEN = 4;
const BLOCK_OVERHEAD = 4;
const ROLE_OVERHEAD = 4;

const SURFACE_TYPES = new Set([
  'system/message',
  'user/message',
  'assistant/message',
  'tool/result',
  'developer/message',
]);

function isReplaceOp(surfaceOp) {
  return surfaceOp !== null && typeof surfaceOp === 'object' && surfaceOp.op === 'replace';
}

function jsonLength(value) {
  const text = JSON.stringify(value);
  return text === undefined ? 0 : text.length;
}

function estimateBlock(block) {
  const type = block !== null && typeof block === 'object' ? block.type : undefined;
  if ((type === 'text' || type === 'reasoning') && typeof block.text === 'string') {
    return Math.ceil(block.text.length / CHARS_PER_TOKEN) + BLOCK_OVERHEAD;
  }
  if (type === 'tool-call') {
    const name = typeof block.name === 'string' ? block.name.length : 0;
    const args =
      block.arguments === undefined
        ? 0
        : typeof block.arguments === 'string'
          ? block.arguments.length
          : jsonLength(block.arguments);
    return (
      Math.ceil(name / CHARS_PER_TOKEN) + Math.ceil(args / CHARS_PER_TOKEN) + BLOCK_OVERHEAD
    );
  }
  return BLOCK_OVERHEAD + Math.ceil(jsonLength(block) / CHARS_PER_TOKEN);
}

function estimateContent(content) {
  if (typeof content === 'string') {
    return Math.ceil(content.length / CHARS_PER_TOKEN) + BLOCK_OVERHEAD;
  }
  if (!Array.isArray(content)) return 0;
  let tokens = 0;
  for (const block of content) tokens += estimateBlock(block);
  return tokens;
}

function estimateSystemMessage(content) {
  if (!Array.isArray(content) || content.length === 0) return 0;
  let characters = 0;
  for (const block of content) {
    characters +=
      block !== null && typeof block === 'object' && block.type === 'text' && typeof block.text === 'string'
        ? block.text.length
        : jsonLength(block);
  }
  return Math.ceil(characters / CHARS_PER_TOKEN) + ROLE_OVERHEAD;
}

/** The heuristic price of a surface event's message (docs/context.md, "Token estimates"). */
export function estimateSurfaceEvent(event) {
  const data = event.data !== null && typeof event.data === 'object' ? event.data : {};
  if (event.type === 'user/message') return estimateContent(data.content) + ROLE_OVERHEAD;
  const message = data.message !== null && typeof data.message === 'object' ? data.message : {};
  if (event.type === 'system/message') return estimateSystemMessage(message.content);
  return estimateContent(message.content) + ROLE_OVERHEAD;
}

/** The tools of a request header: their JSON length, priced; 0 without tools. */
export function estimateToolsTokens(header) {
  const tools = header !== null && typeof header === 'object' ? header.tools : undefined;
  if (!Array.isArray(tools) || tools.length === 0) return 0;
  return Math.ceil(JSON.stringify(tools).length / CHARS_PER_TOKEN) + ROLE_OVERHEAD;
}

/**
 * The token meter: the surviving surface nodes in surface order, and the entries a replace
 * wrote (a replace of another event type leaves an entry with no message: it only marks
 * where later endpoints naming it sit).
 */
export class TokenMeter {
  constructor(windowStart) {
    this.windowStart = windowStart;
    this.entries = [];
    this.incomplete = false;
  }

  // Where a replace endpoint sits: where the entry of that seq was placed, if it moved and
  // survives; else at its own seq. An endpoint before the window start that the window does
  // not know makes the context incomplete from here on.
  endpoint(seq) {
    const entry = this.entries.find((e) => e.seq === seq && e.position !== seq);
    if (entry) return entry.position;
    if (this.windowStart !== undefined && seq < this.windowStart) this.incomplete = true;
    return seq;
  }

  apply(event) {
    if (this.windowStart === undefined) this.windowStart = event.seq;
    const surface = SURFACE_TYPES.has(event.type);
    const replace = isReplaceOp(event.surfaceOp) ? event.surfaceOp : undefined;
    if (!surface && !replace) return;
    const entry = {
      seq: event.seq,
      type: surface ? event.type : undefined,
      position: event.seq,
      tokens: surface ? estimateSurfaceEvent(event) : 0,
    };
    if (replace) {
      const from = this.endpoint(replace.startSeq);
      const to = this.endpoint(replace.endSeq);
      entry.position = from;
      let first = this.entries.findIndex((e) => e.position >= from);
      if (first < 0) first = this.entries.length;
      let count = 0;
      while (first + count < this.entries.length && this.entries[first + count].position <= to) count++;
      if (count > 0) {
        this.entries.splice(first, count, entry);
        return;
      }
    }
    // Nodes at the same position stay in seq order: the new one goes after them.
    let at = this.entries.length;
    while (at > 0 && this.entries[at - 1].position > entry.position) at--;
    this.entries.splice(at, 0, entry);
  }

  /** The surviving nodes, in surface order. */
  nodes() {
    return this.entries
      .filter((e) => e.type !== undefined)
      .map((e) => ({ seq: e.seq, type: e.type, position: e.position, tokens: e.tokens }));
  }

  /** The breakdown of the context now, the tools priced from `header`. */
  breakdown(header) {
    let systemTokens = 0;
    let systemSum = 0;
    let messageTokens = 0;
    for (const e of this.entries) {
      if (e.type === 'system/message') {
        systemSum += e.tokens;
        if (e.tokens > 0) systemTokens = e.tokens;
      } else if (e.type !== undefined) {
        messageTokens += e.tokens;
      }
    }
    const toolsTokens = estimateToolsTokens(header);
    return {
      systemTokens,
      supersededSystemTokens: systemSum - systemTokens,
      toolsTokens,
      messageTokens,
      totalTokens: systemSum + toolsTokens + messageTokens,
      incomplete: this.incomplete,
    };
  }
}

function toolsKey(header) {
  if (header === undefined) return undefined;
  const tools = header !== null && typeof header === 'object' ? header.tools : undefined;
  return Array.isArray(tools) ? JSON.stringify(tools) : '[]';
}

function usageOf(event) {
  const data = event.data !== null && typeof event.data === 'object' ? event.data : {};
  const message = data.message !== null && typeof data.message === 'object' ? data.message : {};
  return message.usage !== undefined ? message.usage : data.usage;
}

/**
 * The host's ledger: folds every event into the meter and records each request's context
 * (docs/context.md, "Requests and the cache") when its read point is passed. `finish()`
 * records the last step's, read at the last event.
 */
export class ContextLedger {
  constructor(windowStart) {
    this.meter = new TokenMeter(windowStart);
    this.requests = [];
    this.header = undefined;
    this.open = undefined;
    this.previousTools = undefined;
    this.seriesBroken = false;
    this.lastSeq = undefined;
  }

  record(seq, answer) {
    const tools = toolsKey(this.header);
    const first = this.requests.length === 0;
    const newSeries = first || this.seriesBroken || tools !== this.previousTools;
    this.requests.push({
      seq,
      answerSeq: answer ? answer.seq : undefined,
      usage: answer ? usageOf(answer) : undefined,
      newSeries,
      ...this.meter.breakdown(this.header),
    });
    this.previousTools = tools;
    this.seriesBroken = false;
    this.open = undefined;
  }

  apply(event) {
    if (this.open !== undefined) {
      if (event.type === 'assistant/message') this.record(event.seq - 1, event);
      else if (event.type === 'step/start') this.record(event.seq - 1, undefined);
    }
    this.meter.apply(event);
    if (event.type === 'request/header') {
      const data = event.data !== null && typeof event.data === 'object' ? event.data : {};
      this.header = data.header === undefined ? null : data.header;
      if (data.reason === 'series' || data.startsSeries === true) this.seriesBroken = true;
    }
    if (event.surfaceOp !== null && typeof event.surfaceOp === 'object' && event.surfaceOp.op === 'replace') {
      this.seriesBroken = true;
    }
    if (event.type === 'step/start') this.open = event;
    this.lastSeq = event.seq;
  }

  finish() {
    if (this.open !== undefined) this.record(Math.max(this.lastSeq, this.open.seq), undefined);
    return this.requests;
  }
}

/** Every request's context of a whole window of events (the fair baseline's second fold). */
export function requestContexts(events, windowStart) {
  const ledger = new ContextLedger(windowStart);
  for (const event of events) ledger.apply(event);
  return ledger.finish();
}
