// Type-level tests of the package's public .d.ts: `tsc -p tests/types` must accept every line
// and reject every line marked @ts-expect-error.
import {
  Conversation,
  openSession,
  diffPrompts,
  inspectRequestPrompt,
  inspectSystemPrompt,
  wasmMemoryBytes,
  type CacheCause,
  type CacheEntry,
  type CacheLedger,
  type CacheOptions,
  type CacheSummary,
  type CardsSlice,
  type ChatCard,
  type LinesSlice,
  type ListSplice,
  type RequestsSlice,
  type SeqIndex,
  type ViewCounts,
  type Context,
  type ContextNode,
  type ContextSummary,
  type ContextTotals,
  type RequestContext,
  type ConversationChange,
  type DiffHunk,
  type PromptDiff,
  type PromptSection,
  type SectionStatus,
  type ToolDiff,
  type ErrorCode,
  type OpenProgress,
  type OpenSessionOptions,
  type OpenedSession,
  type SessionSource,
  type EventLine,
  type HeaderFact,
  PromptfoldError,
  type RequestPromptInspection,
  type SessionEvent,
  type SessionHeader,
  type SessionLogRow,
  type TornTail,
  type SystemPromptNode,
  SystemPromptState,
  type SystemPromptStateData,
  type SystemPromptStateJson,
  type TrajectoryRequest,
  type ConfigDiff,
  type ToolStatus,
  type ToolsDiff,
  type SystemDiff,
  type TextDiff,
  type ContextBreakdown,
  type PromptSnapshot,
  type PromptChange,
  type LoadOptions,
  type Views,
} from "../../pkg/bundler/promptfold.js";

const events: SessionEvent[] = [
  { seq: 1, time: 1, type: "turn/start", data: { turn: 1 } },
  { seq: 2, time: 2, type: "system/message", surfaceOp: "append", data: { turn: 1, step: 1 } },
  { seq: 3, time: 3, type: "tool/result", surfaceOp: { op: "replace", startSeq: 2, endSeq: 2 } },
];

const conversation = new Conversation();
const change: ConversationChange = conversation.load(events);
const added: ChatCard[] = change.chat.added;
const removedKeys: string[] = change.chat.removed;
const trajectoryChanged: boolean = change.trajectoryChanged;
conversation.append([{ seq: 4, time: 4, type: "user/message" }]);
conversation.prepend([]);
conversation.loadJson("[]");
conversation.appendJson(new Uint8Array());
conversation.prependJson("", { hasMore: true });

const views: Views = conversation.views();
const firstCard: ChatCard | undefined = views.chat[0];
const title: "message.systemPrompt" | "message.systemPromptUpdate" | undefined = firstCard?.titleKey;
const turn: number | undefined = firstCard?.turn;
const header: HeaderFact | undefined = views.trajectory.headers[0];
const previousOfChange: PromptSnapshot | undefined = header?.change?.previous;
const firstChange: PromptChange | undefined = views.trajectory.requests[0]?.promptChange;
void [previousOfChange, firstChange];
const kind = header?.change?.kind;
if (kind === "system-and-tools" || kind === "initial" || kind === "system" || kind === "tools" || kind === undefined) {
  // every ChangeKind is one of these
}
const lines: EventLine[] = conversation.lines();
const firstState: SystemPromptStateData | undefined = lines[0]?.system;
const uncertainLine: boolean | undefined = firstState?.uncertain;
// "None" is `undefined` in what lines() gives, and `null` only in toJSON()'s JSON form.
type NoneOf<T> = Exclude<T, object>;
const noStateInLines: NoneOf<EventLine["system"]> = undefined;
// @ts-expect-error lines() never gives null for "no state"
const nullStateInLines: NoneOf<EventLine["system"]> = null;
const noEffectiveInData: NoneOf<SystemPromptStateData["effective"]> = undefined;
// @ts-expect-error the data form never gives null for "no prompt"
const nullEffectiveInData: NoneOf<SystemPromptStateData["effective"]> = null;
const noEffectiveInJson: NoneOf<SystemPromptStateJson["effective"]> = null;
// @ts-expect-error the JSON form writes null, never undefined
const undefinedEffectiveInJson: NoneOf<SystemPromptStateJson["effective"]> = undefined;
void [noStateInLines, nullStateInLines, noEffectiveInData, nullEffectiveInData, noEffectiveInJson,
  undefinedEffectiveInJson];

const state: SystemPromptState | undefined = conversation.stateAt(2);
const effective: SystemPromptNode | undefined = state?.effective;
const text: string | undefined = effective?.text;
const replacements: [number, number][] | undefined = state?.replacements;
const replacementsInJson: [number, number][] | undefined = state?.toJSON().replacements;
const ownHandle: SystemPromptState | undefined = state?.clone();
const firstSeq: number | undefined = ownHandle?.firstSeq;
const introduced: SystemPromptNode | undefined = ownHandle?.introduced;
const positioned: number | undefined = ownHandle?.nodes[0]?.position;
const uncertain: boolean | undefined = ownHandle?.uncertain;
ownHandle?.free();
void [firstSeq, introduced, positioned, uncertain];
const json: SystemPromptStateJson | undefined = state?.toJSON();
const effectiveInJson: SystemPromptNode | null | undefined = json?.effective;
const request: RequestPromptInspection | undefined = conversation.requestAt(3);
const windowStart: number | undefined = conversation.windowStart;
const hasMore: boolean = conversation.hasMore;
const length: number = conversation.length;

let folded: SystemPromptState | undefined;
for (const event of events) folded = inspectSystemPrompt(folded, event, { windowStart: 1 });
folded = inspectSystemPrompt(folded, events[0]!);
const inspection: RequestPromptInspection = inspectRequestPrompt(undefined, events[0]!, folded?.effective);
const previousPrompt: PromptSnapshot = inspection.prompt;
inspectRequestPrompt(previousPrompt, events[0]!, undefined);
const bytes: number = wasmMemoryBytes();

try {
  conversation.append(events);
} catch (error) {
  // The class narrows what was thrown; nothing else has a code.
  // @ts-expect-error: `unknown` has no `code`
  void error.code;
  if (error instanceof PromptfoldError) {
    const code: ErrorCode = error.code;
    const index: number | undefined = error.index;
    const seq: number | undefined = error.seq;
    const line: number | undefined = error.line;
    void [code, index, seq, line];
  }
}
// A stand-in for tests; its code is one of the codes.
const standIn: PromptfoldError = new PromptfoldError("FREED", "stand-in", { index: 1 });
// @ts-expect-error: not an ErrorCode
void new PromptfoldError("NOPE", "x");
// @ts-expect-error: a state comes from a call, not `new`
void new SystemPromptState();
void standIn;
// What the model saw at seq 3: its nodes, their tokens, the breakdown.
const context: Context = conversation.contextAt(3);
const firstNode: ContextNode | undefined = context.nodes[0];
const nodeTokens: number | undefined = firstNode?.tokens;
const superseded: number = context.supersededSystemTokens;
const summary: ContextSummary = conversation.contextSummaryAt(3);
const summaryIncomplete: boolean = summary.incomplete;
const trajectoryRequest: TrajectoryRequest | undefined = conversation.views().trajectory.requests[0];
const requestTurn: number | undefined = trajectoryRequest?.turn;
const requestConfig: unknown = trajectoryRequest?.requestConfig;
const requestContext: RequestContext | undefined = trajectoryRequest?.context;
const answerSeq: number | undefined = requestContext?.answerSeq;
const breakdown: ContextBreakdown = summary;
void [requestTurn, requestConfig, answerSeq, breakdown];
const newSeries: boolean | undefined = requestContext?.newSeries;
const usage: unknown = requestContext?.usage;
const totals: ContextTotals = conversation.contextTotals();
const cacheReads: number = totals.cacheReadTokens;
void [nodeTokens, superseded, summaryIncomplete, newSeries, usage, cacheReads];
// @ts-expect-error a node's type is one of the five surface types
const wrongNodeType: ContextNode["type"] = "tool/call";
void wrongNodeType;
{
  using scoped = new Conversation();
  scoped.load(events, { hasMore: true });
}
// Prompt diffs: a card's, a header's, and of any two prompts.
const cardDiff: PromptDiff | undefined = conversation.cardDiff("system:2");
const changeDiff: PromptDiff | undefined = conversation.changeDiff("request:5");
const ownDiff: PromptDiff = diffPrompts("# A\none", { system: "# A\ntwo", tools: [], config: { model: "m" } });
const hunk: DiffHunk | undefined = ownDiff.system.hunks[0];
const hunkLines: string[] | undefined = hunk?.lines;
const diffStarts: number | undefined = hunk && hunk.oldStart + hunk.oldLines + hunk.newStart + hunk.newLines;
const diffCounts: [number, number, boolean] = [ownDiff.system.added, ownDiff.system.removed, ownDiff.system.replacedWhole];
const section: PromptSection | undefined = ownDiff.system.sections[0];
const sectionStatus: SectionStatus | undefined = section?.status;
const tools: ToolsDiff = ownDiff.tools;
const tool: ToolDiff | undefined = tools.changes[0];
const toolStatus: ToolStatus | undefined = tool?.status;
const toolText: TextDiff | undefined = tool;
const systemDiff: SystemDiff = ownDiff.system;
const configMember: ConfigDiff | undefined = ownDiff.config[0];
const configNew: unknown = configMember?.new;
void [toolText, systemDiff, configNew];
const orderOnly: boolean = ownDiff.tools.orderOnly && ownDiff.tools.orderChanged;
const configOld: unknown = ownDiff.config[0]?.old;
// @ts-expect-error a diff may be absent
const mustCheckDiff: number = conversation.cardDiff("system:2").system.added;
// @ts-expect-error statuses are a closed set
const wrongStatus: SectionStatus = "moved";
// @ts-expect-error a prompt is a string or a prompt object
diffPrompts(3, "");
void [cardDiff, changeDiff, hunkLines, diffStarts, diffCounts, sectionStatus, toolStatus, orderOnly, configOld,
  mustCheckDiff, wrongStatus];

state?.free();
conversation.free();

// Session files: a header row, SDK notifications, seq-less rows, feed and torn tails.
const fullEvent: SessionEvent = { seq: 5, time: 5, type: "user/message", sourceEventSeqs: [1, 2], ignorable: true };
const fullHeader: SessionHeader = { type: "session", version: 4, isSeeded: false, delegationDepth: 0 };
void [fullEvent, fullHeader];
const rows: SessionLogRow[] = [
  { type: "session", version: 4, id: "s-1", createdAt: 1, cwd: "/w", agentPreset: "x" },
  { jsonrpc: "2.0", method: "session.status", params: { sessionId: "s-1" } },
  { method: "session.event", params: { sessionId: "s-1", event: { seq: 1, time: 1, type: "turn/start" } } },
];
conversation.load(rows);
conversation.load([{ type: "user/message" }, { type: "turn/start", data: { turn: 1 } }]);
const sessionHeader: SessionHeader | undefined = conversation.session;
const version: number | undefined = sessionHeader?.version;
const fed: ConversationChange = conversation.feed(new Uint8Array([123, 10]));
conversation.feed('{"seq":2,"time":2,"type":"x"}\n');
const torn: TornTail | undefined = conversation.loadJson("").tornTail;
const tornLine: number | undefined = torn?.line;
// @ts-expect-error feed takes text or bytes
conversation.feed(5);
// @ts-expect-error the session header is read-only
conversation.session = undefined;

// @ts-expect-error events must be an array
conversation.load(events[0]);
// Options objects: every member optional, the options too.
const options: LoadOptions = { hasMore: true };
const noOptions: LoadOptions = {};
conversation.load(events, options);
conversation.load(events, noOptions);
conversation.load(events, {});
conversation.prepend([], { hasMore: false });
conversation.loadJson(new Uint8Array(), { hasMore: true });
conversation.prependJson("[]", {});
const optionalMore: boolean | undefined = options.hasMore;
void optionalMore;
// @ts-expect-error the options are an object: a bare boolean was the pre-1.0 call
conversation.load(events, true);
// @ts-expect-error the options are an object
conversation.prepend(events, false);
// @ts-expect-error the options are an object
conversation.loadJson("[]", false);
// @ts-expect-error the options are an object
conversation.prependJson("[]", true);
// @ts-expect-error hasMore is a boolean
conversation.load(events, { hasMore: 1 });
// @ts-expect-error options have no other members
conversation.load(events, { more: true });
// @ts-expect-error a seq is a number (an event of a seq-less log has none)
conversation.append([{ seq: "1", time: 1, type: "x" }]);
// @ts-expect-error surfaceOp is "append" or a replace object
conversation.append([{ seq: 9, time: 9, type: "x", surfaceOp: "prepend" }]);
// @ts-expect-error the title key is a closed set
const wrongTitle: ChatCard["titleKey"] = "message.other";
// @ts-expect-error a state is not a plain object
inspectSystemPrompt({ firstSeq: 1 }, events[0]!);
// @ts-expect-error codes are a closed set
const wrongCode: ErrorCode = "SOMETHING";
// @ts-expect-error the window start is read-only
conversation.windowStart = 3;
// @ts-expect-error `effective` may be absent
const mustCheck: string = state.effective.text;

// The cache ledger.
const cacheOptions: CacheOptions = {
  prices: { default: { input: 0.27, cacheRead: 0.07, output: 1.1 }, models: { "deepseek-chat": { input: 1, cacheRead: 0.1, cacheWrite: 1.25, output: 4 } } },
  cacheTtlMs: 300_000,
};
const ledger: CacheLedger = conversation.cacheLedger(cacheOptions);
conversation.cacheLedger();
const entry: CacheEntry | undefined = ledger.requests[0];
const kept: number | undefined = entry?.keptTokens;
const causeNames: string[] = (entry?.causes ?? []).map((cause: CacheCause) => {
  switch (cause.kind) {
    case "route":
      return `${cause.from.model ?? ""} -> ${cause.to.model ?? ""}`;
    case "tools":
      return [...cause.added.map((n) => `+${n}`), ...cause.removed.map((n) => `-${n}`)].join(", ");
    case "system-rewrite":
      return cause.sections.join(", ");
    case "compaction":
    case "prune":
      return `#${cause.startSeq}-#${cause.endSeq}`;
    case "replacement":
      return cause.type;
    case "series":
      return String(cause.seq);
    case "idle":
      return `${cause.gapMs} ms`;
  }
});
const cacheSummary: CacheSummary = ledger.summary;
const hitRate: number | undefined = cacheSummary.expectedHitRate;
const readCount: number = cacheSummary.observed.counts.cacheReadTokens;
const balance: number | undefined = cacheSummary.trade.balance;
const uncached: number | undefined = entry?.observed.uncachedInputTokens;
// @ts-expect-error a price is a number
conversation.cacheLedger({ prices: { default: { input: "1", cacheRead: 0, output: 0 } } });
// @ts-expect-error the input, cache-read and output prices are required
conversation.cacheLedger({ prices: { default: { input: 1 } } });
// Every optional member of the ledger reads as `T | undefined`.
const ledgerOptionals: (number | string | undefined)[] = [
  entry?.newTokens, entry?.brokenTokens, entry?.shortfallTokens, entry?.savedTokens, entry?.cost?.total,
  entry?.route?.provider, entry?.route?.model, entry?.observed.inputTokens, entry?.observed.outputTokens,
  entry?.observed.cacheWriteTokens, cacheSummary.observedHitRate, cacheSummary.cost?.total,
  cacheSummary.breaks[0]?.cost, cacheSummary.trade.savedCost, cacheSummary.trade.carriedCost,
];
void ledgerOptionals;
// @ts-expect-error kept tokens may be unknown
const mustCheckKept: number = entry!.keptTokens;
// @ts-expect-error cause kinds are a closed set
const wrongKind: CacheCause["kind"] = "eviction";

// openSession: a Blob, a web stream or an async iterable of bytes; options in one object.
const controller = new AbortController();
const openOptions: OpenSessionOptions = {
  signal: controller.signal,
  chunkBytes: 1 << 20,
  onProgress: (progress: OpenProgress) => {
    const shown: string = `${progress.bytesRead} of ${progress.totalBytes ?? "?"} bytes, ${progress.events} events`;
    const rate: number = progress.bytesPerSecond;
    const finished: boolean = progress.done;
    void [shown, rate, finished];
  },
  zstd: { Decompress: class { constructor(_ondata: (data: Uint8Array, final?: boolean) => void) {} push(_chunk: Uint8Array, _final?: boolean): void {} } },
};
const sources: SessionSource[] = [new Blob(["{}"]), new Blob([]).stream(), (async function* () { yield new Uint8Array(); })()];
const opening: Promise<OpenedSession> = openSession(sources[0]!, openOptions);
void opening.then((opened) => {
  const windowOf: Conversation = opened.conversation;
  const tornAt: number | undefined = opened.tornTail?.line;
  const compression: "none" | "zstd" = opened.compression;
  const notALog: ErrorCode = "NOT_A_SESSION_LOG";
  const freed: ErrorCode = "FREED";
  void [windowOf, tornAt, compression, notALog, freed];
});
void openSession(new Blob([]));
// @ts-expect-error a string is not a source (give a Blob or a stream)
void openSession("{}");
// @ts-expect-error chunkBytes is a number
void openSession(new Blob([]), { chunkBytes: "1 MiB" });
// @ts-expect-error the options are one object, not a signal
void openSession(new Blob([]), controller.signal);

// Slices for virtualized lists, and the splices a change report gives for them.
const counts: ViewCounts = conversation.viewCounts();
const cardRows: CardsSlice = conversation.cardsSlice({ start: 0, end: counts.cards });
const sliceCard: ChatCard | undefined = cardRows.cards[0];
const requestRows: RequestsSlice = conversation.requestsSlice({ start: 0, end: 50 });
const lineRows: LinesSlice = conversation.linesSlice({ start: lineRowsStart(), end: counts.lines });
const cardSplice: ListSplice = change.splices.cards;
const spliceEnd: number = cardSplice.start + cardSplice.added + change.splices.requests.removed + change.splices.lines.total;
const jump: SeqIndex | undefined = conversation.indexOfSeq(2);
const jumpCard: number | undefined = jump?.card;
const jumpRequest: number | undefined = jump?.request;
function lineRowsStart(): number {
  return 0;
}
// @ts-expect-error a range is one object, not two numbers
conversation.cardsSlice(0, 50);
// @ts-expect-error a range needs its end
conversation.linesSlice({ start: 0 });
void [counts, cardRows, sliceCard, requestRows.total, lineRows.lines, spliceEnd, jump?.line, jumpCard, jumpRequest];

void [replacementsInJson];
void [added, removedKeys, trajectoryChanged, title, turn, uncertainLine, text, replacements, effectiveInJson, request,
  windowStart, hasMore, length, bytes, wrongTitle, wrongCode, mustCheck, version, fed, tornLine, kept, causeNames, hitRate, readCount, balance, uncached, mustCheckKept, wrongKind];
