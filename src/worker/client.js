// The page side of `promptfold/worker`: a conversation that lives in a worker, reached through
// typed messages (promptfold-worker.d.ts; docs/worker.md). Every call returns a promise of plain
// data; the worker loads and folds, so the page's thread only renders.
// error.js is src/wasm/js/error.js, which scripts/build.sh copies beside this file.
import { PromptfoldError } from "./error.js";
import { serveConversation } from "./serve.js";

export { PromptfoldError, serveConversation };

function abortError(signal) {
  return signal?.reason ?? new DOMException("the open was aborted", "AbortError");
}

/**
 * `options` of `open`, checked here as far as they stay here (a plain object; `signal`,
 * `onProgress` and `onWindow` of their types): the rest crosses to the worker, which checks it.
 */
function openOptions(options) {
  if (options === undefined || options === null) return {};
  const invalid = (message) => new PromptfoldError("INVALID_ARGUMENT", `invalid argument \`options\`: ${message}`);
  const prototype = typeof options === "object" && !Array.isArray(options) ? Object.getPrototypeOf(options) : undefined;
  // An object literal's prototype (of this realm or another: its own prototype is null), or none.
  if (prototype !== null && (prototype === undefined || Object.getPrototypeOf(prototype) !== null)) {
    throw invalid("expected a plain object or undefined");
  }
  const { signal, onProgress, onWindow } = options;
  if (signal !== undefined && typeof signal?.addEventListener !== "function")
    throw invalid("`signal` must be an AbortSignal");
  if (onProgress !== undefined && typeof onProgress !== "function") throw invalid("`onProgress` must be a function");
  if (onWindow !== undefined && typeof onWindow !== "function") throw invalid("`onWindow` must be a function");
  return options;
}

/** The error a worker reported, as the Error it was there (a PromptfoldError of this module). */
function rebuild(data) {
  if (data.name === "AbortError") return new DOMException(data.message, "AbortError");
  if (data.name === "PromptfoldError") return new PromptfoldError(data.code, data.message, data);
  const error = new Error(data.message);
  error.name = data.name;
  for (const key of ["code", "index", "seq", "line"]) error[key] = data[key];
  return error;
}

/** A conversation held by a worker that runs `serveConversation` (worker/web.js, worker/node.mjs). */
export class WorkerConversation {
  #worker;
  #next = 1;
  /** Request id -> { resolve, reject, onProgress?, onWindow? }. */
  #pending = new Map();
  #ready;
  /** Resolves `#ready`: the worker said so, failed, or was terminated. */
  #setReady;
  #failed;

  /** Drives `worker`: a Web Worker, or a Node `worker_threads` Worker. */
  constructor(worker) {
    this.#worker = worker;
    let ready;
    this.#ready = new Promise((resolve) => {
      ready = resolve;
    });
    this.#setReady = ready;
    const onMessage = (message) => {
      if (message?.type === "ready") {
        ready();
        return;
      }
      const pending = this.#pending.get(message?.id);
      if (pending === undefined) return;
      if (message.type === "progress") pending.onProgress?.(message.progress);
      else if (message.type === "window") pending.onWindow?.(message.window);
      else {
        this.#pending.delete(message.id);
        if (message.type === "result") pending.resolve(message.value);
        else pending.reject(rebuild(message.error));
      }
    };
    const onError = (error) => {
      this.#failed =
        error instanceof Error
          ? error
          : new Error(`the worker failed: ${error?.message ?? "its script did not start"}`);
      ready();
      for (const pending of this.#pending.values()) pending.reject(this.#failed);
      this.#pending.clear();
    };
    if (typeof worker.on === "function") {
      worker.on("message", onMessage);
      worker.on("error", onError);
    } else {
      worker.addEventListener("message", (event) => onMessage(event.data));
      worker.addEventListener("error", (event) => {
        event.preventDefault?.();
        onError(event.error ?? event);
      });
    }
  }

  /** Sends `request` once the worker is ready: its id (given at once) and its answer. */
  #request(request, hooks = {}, transfer = []) {
    const id = this.#next++;
    const done = this.#ready.then(() => {
      if (this.#failed) throw this.#failed;
      return new Promise((resolve, reject) => {
        this.#pending.set(id, { resolve, reject, ...hooks });
        try {
          this.#worker.postMessage({ ...request, id }, transfer);
        } catch (error) {
          this.#pending.delete(id);
          reject(error);
        }
      });
    });
    return { id, done };
  }

  #send(request) {
    return this.#request(request).done;
  }

  /**
   * Opens a session file in the worker (openSession there, newest first by default). The session
   * open before stays until the new one is loaded, and stays if this one fails or is aborted.
   */
  async open(source, options) {
    const { signal, onProgress, onWindow, ...rest } = openOptions(options);
    if (signal?.aborted) throw abortError(signal);
    // A web stream moves to the worker; a Blob, bytes or a path are copied (a Blob by reference).
    const transfer = typeof source?.getReader === "function" ? [source] : [];
    const { id, done } = this.#request({ type: "open", source, options: rest }, { onProgress, onWindow }, transfer);
    const cancel = () => this.#send({ type: "cancel", open: id }).catch(() => {});
    signal?.addEventListener("abort", cancel, { once: true });
    try {
      return await done;
    } catch (error) {
      if (signal?.aborted && error?.name === "AbortError") throw abortError(signal);
      throw error;
    } finally {
      signal?.removeEventListener("abort", cancel);
    }
  }

  /** Calls a Conversation method in the worker; a state (`stateAt`) comes back as its JSON form. */
  call(method, ...args) {
    return this.#send({ type: "call", method, args });
  }

  /** The open window's length, start, header and view counts. */
  info() {
    return this.#send({ type: "info" });
  }

  /** Frees the worker's conversation (the worker keeps running). */
  close() {
    return this.#send({ type: "close" });
  }

  /** Stops the worker; pending and later calls reject with a PromptfoldError `FREED`. */
  terminate() {
    const stopped = new PromptfoldError("FREED", "this WorkerConversation was terminated; create a new one");
    for (const pending of this.#pending.values()) pending.reject(stopped);
    this.#pending.clear();
    this.#failed = stopped;
    // Calls still waiting for the worker's start see #failed once it counts as ready.
    this.#setReady();
    this.#worker.terminate();
  }
}

/**
 * A WorkerConversation over `worker`, or over a new module Web Worker running worker/web.js
 * when none is given (in Node, pass `new Worker(<path of promptfold/worker/node.mjs>)`).
 */
export function createWorkerConversation(worker) {
  return new WorkerConversation(worker ?? new Worker(new URL("./web.js", import.meta.url), { type: "module" }));
}
