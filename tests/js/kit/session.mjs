// The session-log generator shared by the JS tests and benchmarks: `random(seed)`, a small
// deterministic PRNG, and `sessionEvents(options)`, which yields the events of a valid log
// (BEHAVIOUR.md section 1: replace endpoints name surface nodes alive at that moment, start not
// after end in surface order) with the mix a coding agent writes: turns and steps, a request
// header per step, assistant messages, tool results (large ones in the "large" profile),
// in-history system prompt updates, pruned tool results, compactions, and head rewrites.

/** mulberry32: a small deterministic PRNG. */
export function random(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const WORDS = ("fn let const return if else for while match struct impl pub use mod self Some None Ok Err " +
  "value index state event window prompt header request tool result error token cache line file path " +
  "read write parse fold append replace load views chat trajectory turn step seq time data").split(" ");

/** A pool of code-like text, sliced for message and tool-result bodies. */
function textPool(rand, bytes) {
  const lines = [];
  let size = 0;
  while (size < bytes) {
    const indent = " ".repeat(4 * Math.floor(rand() * 4));
    const words = [];
    const n = 3 + Math.floor(rand() * 9);
    for (let i = 0; i < n; i++) words.push(WORDS[Math.floor(rand() * WORDS.length)]);
    const line = `${indent}${words.join(" ")};`;
    lines.push(line);
    size += line.length + 1;
  }
  return lines.join("\n");
}

function tools(count, rand) {
  const list = [];
  for (let i = 0; i < count; i++) {
    const properties = {};
    const fields = 2 + Math.floor(rand() * 4);
    for (let f = 0; f < fields; f++) {
      properties[`${WORDS[(i * 7 + f * 3) % WORDS.length]}_${f}`] = {
        type: f % 3 === 0 ? "integer" : "string",
        description: `The ${WORDS[(i + f) % WORDS.length]} to ${WORDS[(i * 3 + f) % WORDS.length]}, as the tool expects it.`,
      };
    }
    list.push({
      type: "function",
      function: {
        name: `tool_${i}_${WORDS[i % WORDS.length]}`,
        description: `Tool ${i}: ${WORDS[(i * 5) % WORDS.length]}s a ${WORDS[(i * 11) % WORDS.length]} and returns the result.`,
        parameters: { type: "object", properties, required: Object.keys(properties).slice(0, 1) },
      },
    });
  }
  return list;
}

const PROFILES = {
  // The 100 MB log: large tool results and a full tool list in every header.
  large: { toolCount: 14, resultSizes: [[0.6, 200, 2_000], [0.3, 2_000, 20_000], [0.1, 20_000, 100_000]], messageBytes: 600, poolBytes: 256 * 1024 },
  // Many small events: the 1,000,000-event log and the soak.
  small: { toolCount: 1, resultSizes: [[1, 20, 120]], messageBytes: 60, poolBytes: 64 * 1024 },
};

/**
 * Yields the events of one session, in seq order, until `maxEvents` events or `maxBytes` bytes of
 * JSON (whichever comes first; each event's JSON text is measured when `maxBytes` is set).
 * Options: profile ("large" | "small"), seed, promptBytes (size of the initial prompt; updates are
 * edits of it), updateEvery / pruneEvery / compactEvery / rewriteEvery (mean steps between them).
 */
export function* sessionEvents({
  profile = "small",
  seed = 1,
  maxEvents = Infinity,
  maxBytes = Infinity,
  promptBytes = 2_000,
  updateEvery = 40,
  pruneEvery = 6,
  compactEvery = 150,
  rewriteEvery = 700,
} = {}) {
  const p = PROFILES[profile];
  const rand = random(seed);
  const pool = textPool(rand, p.poolBytes);
  const slice = (length) => {
    const start = Math.floor(rand() * Math.max(1, pool.length - length));
    return pool.slice(start, start + length);
  };
  const between = (lo, hi) => lo + Math.floor(rand() * (hi - lo));
  const resultSize = () => {
    let x = rand();
    for (const [share, lo, hi] of p.resultSizes) {
      if (x < share) return between(lo, hi);
      x -= share;
    }
    return p.resultSizes[0][1];
  };
  const chance = (every) => rand() * every < 1;
  const config = { provider: "deepseek", model: "deepseek-chat", temperature: 0.2, maxTokens: 8192 };
  const toolList = tools(p.toolCount, rand);

  let seq = 0;
  let time = 1_700_000_000_000;
  let emitted = 0;
  let bytes = 0;
  // The live surface, in surface order: node seqs and kinds.
  const alive = [];
  let prompt = promptBytes > 0 ? textPool(random(seed + 1), promptBytes).slice(0, promptBytes) : "";
  let promptVersion = 0;

  const event = (type, data, surfaceOp) => {
    seq += 1;
    time += between(1, 2_000);
    const e = { seq, time, type, data };
    if (surfaceOp !== undefined) e.surfaceOp = surfaceOp;
    return e;
  };
  const surface = (e, kind) => {
    if (e.surfaceOp === "append") alive.push({ seq: e.seq, kind });
    return e;
  };
  const replace = (e, from, to, kind) => {
    // from..to are indices into `alive`, from <= to.
    alive.splice(from, to - from + 1, { seq: e.seq, kind });
    return e;
  };
  const systemMessage = (turn, step, text, surfaceOp) =>
    event("system/message", {
      turn, step,
      message: {
        id: `system-${seq + 1}`, role: "system",
        content: text.length > 64 * 1024
          ? [{ type: "text", text: text.slice(0, text.length >> 1) }, { type: "text", text: text.slice(text.length >> 1) }]
          : [{ type: "text", text }],
        source: { kind: "plugin", plugin: "@deepseek-ai/dsh-system-prompt" },
      },
    }, surfaceOp);
  const editPrompt = () => {
    promptVersion += 1;
    const line = `\n# Revision ${promptVersion}: ${slice(between(40, 200))}`;
    // Replace a tail of the prompt so its size stays about the same.
    prompt = prompt.length > line.length * 2 ? prompt.slice(0, prompt.length - line.length) + line : prompt + line;
  };

  function* out(e) {
    if (emitted >= maxEvents) return;
    if (maxBytes !== Infinity) {
      bytes += JSON.stringify(e).length + 2;
      if (bytes > maxBytes) {
        maxEvents = emitted;
        return;
      }
    }
    emitted += 1;
    yield e;
  }

  let turn = 0;
  while (emitted < maxEvents) {
    turn += 1;
    yield* out(event("turn/start", { turn }));
    yield* out(surface(event("user/message", {
      turn, message: { id: `user-${seq + 1}`, role: "user", content: [{ type: "text", text: slice(between(20, p.messageBytes)) }] },
    }, "append"), "user"));
    const steps = between(1, 9);
    for (let step = 1; step <= steps && emitted < maxEvents; step++) {
      yield* out(event("step/start", { turn, step }));
      let reason = turn === 1 && step === 1 ? "initial" : "series";
      if (turn === 1 && step === 1) {
        yield* out(surface(systemMessage(turn, step, prompt, "append"), "system"));
      } else if (chance(updateEvery)) {
        editPrompt();
        yield* out(surface(systemMessage(turn, step, prompt, "append"), "system"));
        reason = "change";
      }
      if (turn > 1 && step === 1 && chance(rewriteEvery)) {
        // Head rewrite: the first surviving system node is replaced by a new one.
        const head = alive.findIndex((node) => node.kind === "system");
        if (head >= 0) {
          editPrompt();
          const at = alive[head].seq;
          yield* out(replace(systemMessage(turn, step, prompt, { op: "replace", startSeq: at, endSeq: at }), head, head, "system"));
          reason = "change";
        }
      }
      yield* out(event("request/header", {
        reason,
        ...(rand() < 0.02 ? { startsSeries: true } : {}),
        header: { config, tools: toolList },
      }));
      yield* out(surface(event("assistant/message", {
        turn, step,
        message: {
          id: `assistant-${seq + 1}`, role: "assistant",
          content: [{ type: "text", text: slice(between(20, p.messageBytes)) }],
          source: { kind: "model", provider: "deepseek", model: "deepseek-chat" },
        },
      }, "append"), "assistant"));
      const calls = between(0, 3);
      for (let c = 0; c < calls; c++) {
        yield* out(surface(event("tool/result", {
          turn, step, toolCallId: `call-${seq + 1}`, content: [{ type: "text", text: slice(resultSize()) }],
        }, "append"), "tool"));
      }
      if (chance(pruneEvery)) {
        // Prune an older tool result: a tool/result that replaces it with a stub.
        const candidates = [];
        for (let i = Math.max(0, alive.length - 60); i < alive.length; i++) if (alive[i].kind === "tool") candidates.push(i);
        if (candidates.length > 0) {
          const index = candidates[Math.floor(rand() * candidates.length)];
          const at = alive[index].seq;
          yield* out(replace(event("tool/result", {
            turn, step, pruned: true, content: [{ type: "text", text: "[pruned]" }],
          }, { op: "replace", startSeq: at, endSeq: at }), index, index, "pruned"));
        }
      }
      if (chance(compactEvery) && alive.length > 4) {
        // Compaction: everything after the first system node is replaced by one summary; the
        // harness then re-appends the prompt in force when it had changed.
        const first = alive.findIndex((node) => node.kind === "system");
        const from = first + 1;
        const to = alive.length - 1;
        if (from <= to) {
          const shadowed = alive.slice(from).some((node) => node.kind === "system");
          yield* out(replace(event("user/message", {
            turn, step,
            message: { id: `summary-${seq + 1}`, role: "user", content: [{ type: "text", text: slice(between(200, 4 * p.messageBytes)) }] },
          }, { op: "replace", startSeq: alive[from].seq, endSeq: alive[to].seq }), from, to, "summary"));
          if (shadowed) yield* out(surface(systemMessage(turn, step, prompt, "append"), "system"));
        }
      }
      yield* out(event("step/end", { turn, step }));
    }
    yield* out(event("turn/end", { turn }));
  }
}

/**
 * A session log as the harness writes it, JSON lines text: a `session` header line with `id`
 * (and `createdAt`), then one line per event `sessionEvents(options)` yields.
 */
export function sessionLog(id, options, createdAt = 1_790_000_000_000) {
  const header = { type: "session", version: 4, id, createdAt, cwd: "/w" };
  const lines = [JSON.stringify(header)];
  for (const event of sessionEvents(options)) lines.push(JSON.stringify(event));
  return `${lines.join("\n")}\n`;
}
