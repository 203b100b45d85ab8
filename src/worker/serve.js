// The worker side of `promptfold/worker`: one Conversation held in a worker and driven by typed
// messages (promptfold-worker.d.ts; docs/worker.md). Results cross as structured clones of plain
// data; a viewer asks for the slices it shows instead of whole views.

/** The Conversation methods a `call` message may name: each returns plain data. */
const CALLS = new Set([
  "views",
  "lines",
  "cardsSlice",
  "requestsSlice",
  "linesSlice",
  "viewCounts",
  "indexOfSeq",
  "contextAt",
  "contextSummaryAt",
  "contextTotals",
  "cacheLedger",
  "cardDiff",
  "changeDiff",
  "requestAt",
  "stateAt",
  "feed",
  "load",
  "loadJson",
  "append",
  "appendJson",
  "prepend",
  "prependJson",
]);

/** Newest cards and requests sent with each `window` message, and the least time between two. */
const DEFAULT_WINDOW_CARDS = 50;
const DEFAULT_WINDOW_EVERY_MS = 100;
/** The least time between two `progress` messages; the last one is always sent. */
const PROGRESS_EVERY_MS = 50;

/** An error as plain data: a PromptfoldError's members, or a name and a message. */
function errorData(error) {
  if (error === null || typeof error !== "object") return { name: "Error", message: String(error) };
  const data = { name: String(error.name ?? "Error"), message: String(error.message ?? error) };
  for (const key of ["code", "index", "seq", "line"]) {
    if (error[key] !== undefined && error[key] !== null) data[key] = error[key];
  }
  return data;
}

function invalid(message) {
  const error = new Error(`invalid argument \`message\`: ${message}`);
  error.name = "PromptfoldError";
  error.code = "INVALID_ARGUMENT";
  return error;
}

/** The members of `WorkerOpenOptions`: any other is refused (docs/api.md, "Arguments"). */
const OPEN_OPTIONS = ["newestFirst", "chunkBytes", "totalBytes", "windowCards", "windowEvery"];

/** `options` of an `open` message, checked: a plain object of those members, or none. */
function openOptions(options) {
  if (options === undefined || options === null) return {};
  const fail = (message) => {
    const error = invalid(message);
    error.message = `invalid argument \`options\`: ${message}`;
    return error;
  };
  const prototype = typeof options === "object" && !Array.isArray(options) ? Object.getPrototypeOf(options) : undefined;
  // An object literal's prototype (of this realm or another: its own prototype is null), or none.
  if (prototype !== null && (prototype === undefined || Object.getPrototypeOf(prototype) !== null)) {
    throw fail("expected a plain object or undefined");
  }
  for (const key of Object.keys(options)) {
    if (!OPEN_OPTIONS.includes(key)) throw fail(`unknown member \`${key}\` (it has ${OPEN_OPTIONS.join(", ")})`);
  }
  const { windowCards, windowEvery } = options;
  if (windowCards !== undefined && !(Number.isInteger(windowCards) && windowCards >= 0)) {
    throw fail("`windowCards` must be an integer >= 0");
  }
  if (windowEvery !== undefined && !(typeof windowEvery === "number" && windowEvery >= 0)) {
    throw fail("`windowEvery` must be a number >= 0");
  }
  return options;
}

/** What a viewer needs to know about a window, without its views. */
function windowInfo(conversation) {
  return {
    length: conversation.length,
    hasMore: conversation.hasMore,
    windowStart: conversation.windowStart,
    session: conversation.session,
    counts: conversation.viewCounts(),
  };
}

/**
 * The seq of the relevant event from which the window's prompt is withheld (its state uncertain:
 * a replacement there reaches before the loaded events), undefined when it is not. Uncertain
 * stays uncertain for the rest of a window, so a binary search over seqs finds it (53 steps at
 * most, each a `stateAt`, no view built).
 */
function withheldFrom(conversation) {
  const uncertain = (seq) => conversation.stateAt(seq)?.uncertain === true;
  let [known, withheld] = [conversation.windowStart, Number.MAX_SAFE_INTEGER];
  if (known === undefined || !uncertain(withheld)) return undefined;
  if (uncertain(known)) return known;
  while (withheld - known > 1) {
    const middle = known + Math.floor((withheld - known) / 2);
    if (uncertain(middle)) withheld = middle;
    else known = middle;
  }
  return withheld;
}

/** The newest `rows` cards and requests of the window, with its counts. */
function windowSnapshot(conversation, rows) {
  const info = windowInfo(conversation);
  const { cards, requests } = info.counts;
  const snapshot = {
    info,
    newestCards: conversation.cardsSlice({ start: Math.max(0, cards - rows), end: cards }),
    newestRequests: conversation.requestsSlice({ start: Math.max(0, requests - rows), end: requests }),
  };
  const from = withheldFrom(conversation);
  if (from !== undefined) snapshot.withheldFrom = from;
  return snapshot;
}

/** Subscribes `handler` to the messages of a Web Worker scope or a Node MessagePort. */
function listen(port, handler) {
  if (typeof port.on === "function") port.on("message", handler);
  else port.addEventListener("message", (event) => handler(event.data));
}

/**
 * Serves one conversation over `port` (default: the worker's global scope; in Node, pass
 * `parentPort`). `zstd`: a decoder module (fzstd) for compressed sources; `openPath(path)`: how
 * a source given as a file path is read (a Blob, a stream; worker/node.mjs uses `openAsBlob`).
 * Posts `{ type: "ready" }` once it listens.
 */
export function serveConversation(promptfold, { port = globalThis, zstd, openPath } = {}) {
  let conversation;
  /** Open id -> its AbortController. */
  const opening = new Map();
  const post = (message) => port.postMessage(message);

  async function sourceOf(source) {
    if (source instanceof Uint8Array) return new Blob([source]);
    if (typeof source !== "string") return source;
    if (openPath === undefined)
      throw invalid("a file path is read only by a worker given `openPath` (worker/node.mjs)");
    return openPath(source);
  }

  async function open(id, source, given) {
    const options = openOptions(given);
    const cards = options.windowCards ?? DEFAULT_WINDOW_CARDS;
    const every = options.windowEvery ?? DEFAULT_WINDOW_EVERY_MS;
    const controller = new AbortController();
    opening.set(id, controller);
    let sent = -Infinity;
    let reported = -Infinity;
    try {
      const opened = await promptfold.openSession(await sourceOf(source), {
        signal: controller.signal,
        newestFirst: options.newestFirst ?? true,
        chunkBytes: options.chunkBytes,
        totalBytes: options.totalBytes,
        zstd,
        onProgress: (progress) => {
          const now = performance.now();
          if (!progress.done && now - reported < PROGRESS_EVERY_MS) return;
          reported = now;
          post({ id, type: "progress", progress });
        },
        onWindow: (loading, progress) => {
          const now = performance.now();
          if (!progress.done && now - sent < every) return;
          sent = now;
          post({ id, type: "window", window: { progress, ...windowSnapshot(loading, cards) } });
        },
      });
      conversation?.free();
      conversation = opened.conversation;
      const { bytesRead, textBytes, compression, newestFirst, tornTail } = opened;
      const value = { bytesRead, textBytes, compression, newestFirst, info: windowInfo(conversation) };
      if (tornTail !== undefined) value.tornTail = tornTail;
      return value;
    } finally {
      opening.delete(id);
    }
  }

  function call(method, args) {
    if (!CALLS.has(method)) throw invalid(`\`${method}\` is not a Conversation call a worker serves`);
    if (!Array.isArray(args)) throw invalid("`args` must be an array");
    if (conversation === undefined) throw invalid("no session is open: send `open` first");
    const value = conversation[method](...args);
    if (method !== "stateAt") return value;
    // A state is a handle into the worker's memory: it crosses as its JSON form.
    return value === undefined ? undefined : value.toJSON();
  }

  async function answer(request) {
    switch (request.type) {
      case "open":
        return open(request.id, request.source, request.options);
      case "cancel":
        opening.get(request.open)?.abort();
        return undefined;
      case "call":
        return call(request.method, request.args ?? []);
      case "info":
        if (conversation === undefined) throw invalid("no session is open: send `open` first");
        return windowInfo(conversation);
      case "close":
        for (const controller of opening.values()) controller.abort();
        conversation?.free();
        conversation = undefined;
        return undefined;
      default:
        throw invalid(`unknown message type \`${request.type}\``);
    }
  }

  listen(port, (request) => {
    if (request === null || typeof request !== "object" || !Number.isInteger(request.id)) return;
    answer(request).then(
      (value) => post({ id: request.id, type: "result", value }),
      (error) => post({ id: request.id, type: "error", error: errorData(error) }),
    );
  });
  post({ type: "ready" });
}
