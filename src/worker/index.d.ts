// Types of promptfold/worker: a Conversation held by a worker and driven by typed messages
// (docs/worker.md).
import type {
  CardsSlice,
  Conversation,
  OpenProgress,
  RequestsSlice,
  SessionHeader,
  SystemPromptStateJson,
  TornTail,
  ViewCounts,
} from "../bundler/promptfold.js";

/** The class of promptfold's errors, the worker's rebuilt on this side included. */
export { PromptfoldError } from "../bundler/promptfold.js";

/** The Conversation methods a worker serves: each returns plain data. */
export type ConversationCall =
  | "views"
  | "lines"
  | "cardsSlice"
  | "requestsSlice"
  | "linesSlice"
  | "viewCounts"
  | "indexOfSeq"
  | "contextAt"
  | "contextSummaryAt"
  | "contextTotals"
  | "cacheLedger"
  | "cardDiff"
  | "changeDiff"
  | "requestAt"
  | "stateAt"
  | "feed"
  | "load"
  | "loadJson"
  | "append"
  | "appendJson"
  | "prepend"
  | "prependJson";

type Method<M extends ConversationCall> = Conversation[M] extends (...args: infer A) => infer R
  ? { args: A; result: R }
  : never;

/** What `call(method)` resolves to: the method's result; a state crosses as its JSON form. */
export type CallResult<M extends ConversationCall> = M extends "stateAt"
  ? SystemPromptStateJson | undefined
  : Method<M>["result"];

/** A window, without its views. */
export interface WorkerWindowInfo {
  length: number;
  hasMore: boolean;
  windowStart: number | undefined;
  session: SessionHeader | undefined;
  counts: ViewCounts;
}

/** The window being loaded, as an open reports it while it reads. */
export interface WorkerWindow {
  progress: OpenProgress;
  info: WorkerWindowInfo;
  /** The newest cards (`windowCards` of them). */
  newestCards: CardsSlice;
  /**
   * The newest requests (`windowCards` of them). While older pages are still to come, a
   * request's prompt may be withheld, and so may the cards decided after it; its row is there.
   */
  newestRequests: RequestsSlice;
  /**
   * While older pages are to come: the seq of the loaded event from which the prompt is withheld
   * (a replacement there reaches before the loaded events; BEHAVIOUR.md, section 2): no card is
   * decided from there on until the pages holding its start are read. Absent when none is.
   */
  withheldFrom?: number;
}

/**
 * What a worker reads: a `File` or `Blob`, bytes, a web `ReadableStream` (transferred), or a file
 * path (a worker given `openPath`, as worker/node.mjs: Node's file-backed Blobs do not cross).
 */
export type WorkerSource = Blob | Uint8Array | ReadableStream<Uint8Array> | string;

/** Options of an open in a worker; all optional. */
export interface WorkerOpenOptions {
  /** Read a plain file newest first (default `true`; see `OpenSessionOptions.newestFirst`). */
  newestFirst?: boolean;
  /** Bytes given to `feed` at a time and the newest page's size (1 MiB). */
  chunkBytes?: number;
  /** The source's size, for the progress of a stream. */
  totalBytes?: number;
  /** Newest cards, and newest requests, sent with each `window` message (50). */
  windowCards?: number;
  /** Least milliseconds between two `window` messages (100); the last one is always sent. */
  windowEvery?: number;
}

/** What an open in a worker resolves to; the conversation stays in the worker. */
export interface WorkerOpened {
  bytesRead: number;
  textBytes: number;
  compression: "none" | "zstd";
  newestFirst: boolean;
  tornTail?: TornTail;
  info: WorkerWindowInfo;
}

/** Messages to the worker. */
export type WorkerRequest =
  | { id: number; type: "open"; source: WorkerSource; options?: WorkerOpenOptions }
  | { id: number; type: "cancel"; open: number }
  | { [M in ConversationCall]: { id: number; type: "call"; method: M; args: Method<M>["args"] } }[ConversationCall]
  | { id: number; type: "info" }
  | { id: number; type: "close" };

/** An error as the worker reports it (a PromptfoldError's members, or a name and a message). */
export interface WorkerErrorData {
  name: string;
  message: string;
  code?: string;
  index?: number;
  seq?: number;
  line?: number;
}

/** Messages from the worker. */
export type WorkerReply =
  | { type: "ready" }
  | { id: number; type: "progress"; progress: OpenProgress }
  | { id: number; type: "window"; window: WorkerWindow }
  | { id: number; type: "result"; value: unknown }
  | { id: number; type: "error"; error: WorkerErrorData };

/** A Web Worker or a Node `worker_threads` Worker. */
export type WorkerLike =
  | { postMessage(message: WorkerRequest): void; addEventListener(type: string, listener: (event: MessageEvent) => void): void; terminate(): void }
  | { postMessage(message: WorkerRequest): void; on(event: string, listener: (value: unknown) => void): unknown; terminate(): unknown };

/** Options of `WorkerConversation.open`. */
export interface WorkerConversationOpenOptions extends WorkerOpenOptions {
  /** Cancels the open; the session open before stays. */
  signal?: AbortSignal;
  /** Called with the progress after each chunk or page. */
  onProgress?: (progress: OpenProgress) => void;
  /** Called with the window being loaded, at most every `windowEvery` ms and once at the end. */
  onWindow?: (window: WorkerWindow) => void;
}

/** A conversation held by a worker. */
export declare class WorkerConversation {
  constructor(worker: WorkerLike);
  /** Opens a session file in the worker; the session open before stays if this one fails. */
  open(source: WorkerSource, options?: WorkerConversationOpenOptions | null): Promise<WorkerOpened>;
  /** Calls a Conversation method in the worker. */
  call<M extends ConversationCall>(method: M, ...args: Method<M>["args"]): Promise<CallResult<M>>;
  /** The open window's length, start, header and view counts. */
  info(): Promise<WorkerWindowInfo>;
  /** Frees the worker's conversation. */
  close(): Promise<void>;
  /** Stops the worker; pending and later calls reject with a `PromptfoldError` (`FREED`). */
  terminate(): void;
}

/** A WorkerConversation over `worker`, or over a new module Web Worker running worker/web.js. */
export declare function createWorkerConversation(worker?: WorkerLike): WorkerConversation;

/** The module a worker serves: the package's exports (from whichever entry). */
export interface PromptfoldModule {
  openSession: typeof import("../bundler/promptfold.js").openSession;
}

/** A Web Worker's scope or a Node MessagePort. */
export type WorkerPort =
  | { postMessage(message: WorkerReply): void; addEventListener(type: "message", listener: (event: MessageEvent) => void): void }
  | { postMessage(message: WorkerReply): void; on(event: "message", listener: (value: unknown) => void): unknown };

/** Options of `serveConversation`. */
export interface ServeOptions {
  /** Where requests come from and replies go (default: the worker's global scope). */
  port?: WorkerPort;
  /** A zstd decoder (the fzstd module) for compressed sources. */
  zstd?: import("../bundler/promptfold.js").ZstdDecoderModule;
  /** How a source given as a file path is read (worker/node.mjs: `fs.openAsBlob`). */
  openPath?: (path: string) => Blob | Promise<Blob> | AsyncIterable<Uint8Array>;
}

/** Serves one conversation over `options.port` (default: the worker's scope). */
export declare function serveConversation(promptfold: PromptfoldModule, options?: ServeOptions): void;
