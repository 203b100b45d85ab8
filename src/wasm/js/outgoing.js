// Results built in JS from the numbers and the table of values Rust packed (the Rust side:
// src/wasm/outgoing.rs, cards.rs, trajectory.rs, data.rs).

const SOURCES = ["request", "system"];
// Card keys are `${source}:${seq}`: a constant prefix saves making "request:" anew per key.
const KEY_PREFIXES = ["request:", "system:"];
const TITLES = ["message.systemPrompt", "message.systemPromptUpdate"];
const KINDS = ["initial", "system", "tools", "system-and-tools"];

// Reads records in the order Rust packed them; `values` is the table of shared values.
class Records {
  constructor(numbers, values) {
    this.numbers = numbers;
    this.values = values;
    this.at = 0;
  }
  next() {
    return this.numbers[this.at++];
  }
  value() {
    return this.values[this.numbers[this.at++]];
  }
  // A turn or step: -1 for none.
  optional() {
    const value = this.numbers[this.at++];
    return value < 0 ? undefined : value;
  }
  list(count, read) {
    const items = new Array(count);
    for (let i = 0; i < count; i++) items[i] = read.call(this);
    return items;
  }
  key() {
    return KEY_PREFIXES[this.next()] + this.next();
  }
  splice() {
    const start = this.next(),
      removed = this.next(),
      added = this.next();
    return { start, removed, added, total: this.next() };
  }
  card() {
    const slot = this.next(),
      source = SOURCES[slot],
      seq = this.next(),
      anchorSeq = this.next(),
      text = this.value();
    const update = this.next() === 1,
      titleKey = TITLES[this.next()];
    const turn = this.optional(),
      step = this.optional();
    return { key: KEY_PREFIXES[slot] + seq, source, seq, anchorSeq, text, update, titleKey, turn, step };
  }
  snapshot() {
    const config = this.next(),
      system = this.value(),
      tools = this.value();
    return config < 0 ? { system, tools } : { config: this.values[config], system, tools };
  }
  // A change after its presence flag.
  change() {
    if (this.next() === 0) return undefined;
    const seq = this.next(),
      time = this.next(),
      kind = KINDS[this.next()];
    if (this.next() === 0) return { seq, time, kind };
    return { seq, time, kind, previous: this.snapshot() };
  }
  header() {
    const slot = this.next(),
      source = SOURCES[slot],
      seq = this.next(),
      time = this.next();
    const prompt = this.snapshot(),
      change = this.change();
    const turn = this.optional(),
      step = this.optional();
    const key = KEY_PREFIXES[slot] + seq;
    if (change === undefined) return { key, source, seq, time, prompt, turn, step };
    return { key, source, seq, time, prompt, change, turn, step };
  }
  // A literal for each set of members: members added one at a time make hidden classes that die
  // with the last object that has them, and the optimized code built on them with them (see
  // _keptPacker in src/wasm/js/pack.js).
  request() {
    const startSeq = this.next(),
      turn = this.optional(),
      step = this.optional();
    const prompt = this.next() === 1 ? this.snapshot() : undefined;
    const config = this.next();
    const requestConfig = config < 0 ? undefined : this.values[config];
    const promptChange = this.change();
    const context = this.requestContext();
    if (prompt === undefined) {
      if (requestConfig === undefined) {
        return promptChange === undefined
          ? { startSeq, turn, step, context }
          : { startSeq, turn, step, promptChange, context };
      }
      return promptChange === undefined
        ? { startSeq, turn, step, requestConfig, context }
        : { startSeq, turn, step, requestConfig, promptChange, context };
    }
    if (requestConfig === undefined) {
      return promptChange === undefined
        ? { startSeq, turn, step, prompt, context }
        : { startSeq, turn, step, prompt, promptChange, context };
    }
    return promptChange === undefined
      ? { startSeq, turn, step, prompt, requestConfig, context }
      : { startSeq, turn, step, prompt, requestConfig, promptChange, context };
  }
  // A request's context (see src/wasm/context.rs): `answerSeq` and `usage` left out when absent.
  // One object with the breakdown's numbers as members: a nested breakdown was a second object
  // per request, and views() allocate per request (see docs/context.md).
  requestContext() {
    const seq = this.next(),
      systemTokens = this.next(),
      supersededSystemTokens = this.next(),
      toolsTokens = this.next(),
      messageTokens = this.next(),
      totalTokens = this.next();
    const incomplete = this.next() === 1,
      answered = this.next() === 1,
      answerSeq = this.next();
    const usage = this.next(),
      newSeries = this.next() === 1;
    if (!answered) {
      return {
        seq,
        systemTokens,
        supersededSystemTokens,
        toolsTokens,
        messageTokens,
        totalTokens,
        incomplete,
        newSeries,
      };
    }
    if (usage < 0) {
      return {
        seq,
        systemTokens,
        supersededSystemTokens,
        toolsTokens,
        messageTokens,
        totalTokens,
        incomplete,
        answerSeq,
        newSeries,
      };
    }
    return {
      seq,
      systemTokens,
      supersededSystemTokens,
      toolsTokens,
      messageTokens,
      totalTokens,
      incomplete,
      answerSeq,
      usage: this.values[usage],
      newSeries,
    };
  }
  node() {
    const seq = this.next(),
      time = this.next(),
      turn = this.next(),
      step = this.next();
    return { seq, time, turn, step, text: this.value(), update: this.next() === 1 };
  }
  // A node after its presence flag, `missing` when absent.
  optionalNode(missing) {
    return this.next() === 0 ? missing : this.node();
  }
  positioned() {
    const position = this.next();
    return { position, node: this.node() };
  }
  // A fold state as plain data; "none" is `missing`.
  state(missing) {
    const firstSeq = this.next(),
      uncertain = this.next() === 1;
    const nodes = this.list(this.next(), this.positioned);
    const replacements = new Array(this.next());
    for (let i = 0; i < replacements.length; i++) replacements[i] = [this.next(), this.next()];
    const effective = this.optionalNode(missing),
      introduced = this.optionalNode(missing);
    return { firstSeq, uncertain, nodes, replacements, effective, introduced };
  }
  inspection() {
    const prompt = this.snapshot(),
      change = this.change();
    return change === undefined ? { prompt } : { prompt, change };
  }
  line() {
    const seq = this.next();
    const system = this.next() === 0 ? undefined : this.state(undefined);
    return this.next() === 0 ? { seq, system } : { seq, system, request: this.inspection() };
  }
}

// A Records kept for good from the first call on, for the reason given at _keptPacker in
// src/wasm/js/pack.js. It is never read: it only has to live.
// biome-ignore lint/correctness/noUnusedVariables: kept alive on purpose (see above)
let keptRecords;

// The Records over `numbers` and `values`.
function newRecords(numbers, values) {
  keptRecords ??= new Records(numbers.subarray(0, 0), []);
  return new Records(numbers, values);
}

// `count` packed cards, appended to the array `into` (a large report's added cards cross in
// chunks).
export function promptfoldAppendCards(numbers, values, count, into) {
  const records = newRecords(numbers, values);
  for (let i = 0; i < count; i++) into.push(records.card());
}

// A ConversationChange: its `added` cards (already built), then the packed `changed` cards,
// `removed` keys, and the splices of the cards, requests and lines.
export function promptfoldChange(numbers, values, added, changed, removed, trajectoryChanged) {
  const records = newRecords(numbers, values);
  const chat = {
    added,
    changed: records.list(changed, records.card),
    removed: records.list(removed, records.key),
  };
  const splices = { cards: records.splice(), requests: records.splice(), lines: records.splice() };
  return { chat, trajectoryChanged, splices };
}

// A slice of the cards (`list` 0), requests (1) or lines (2): `count` rows from index `start`.
export function promptfoldSlice(numbers, values, list, count, total, start) {
  const records = newRecords(numbers, values);
  switch (list) {
    case 0:
      return { total, start, cards: records.list(count, records.card) };
    case 1:
      return { total, start, requests: records.list(count, records.request) };
    default:
      return { total, start, lines: records.list(count, records.line) };
  }
}

// Views: `cards` chat cards, then the trajectory's `headers` header facts, `requests` requests
// and `prompts` system prompt nodes.
export function promptfoldViews(numbers, values, cards, headers, requests, prompts) {
  const records = newRecords(numbers, values);
  const chat = records.list(cards, records.card);
  const trajectory = {
    headers: records.list(headers, records.header),
    requests: records.list(requests, records.request),
    systemPrompts: records.list(prompts, records.node),
  };
  return { chat, trajectory };
}

// States, nodes, inspections and event lines (see wasm::data for `shape`).
export function promptfoldData(numbers, values, shape, count) {
  const records = newRecords(numbers, values);
  switch (shape) {
    case 0:
      return records.list(count, records.positioned);
    case 1:
      return records.optionalNode(undefined);
    case 2:
      return records.state(undefined);
    case 3:
      return records.state(null);
    case 4:
      return records.next() === 0 ? undefined : records.inspection();
    default:
      return records.list(count, records.line);
  }
}
