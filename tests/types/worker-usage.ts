// promptfold/worker: the messages and the client are typed; wrong shapes do not compile.
import {
  type CallResult,
  createWorkerConversation,
  PromptfoldError,
  type WorkerReply,
  type WorkerRequest,
  type WorkerWindow,
} from "../../pkg/worker/index.js";

export async function newestCards(file: File, signal: AbortSignal): Promise<string[]> {
  const worker = createWorkerConversation();
  const shown: string[] = [];
  const opened = await worker.open(file, {
    signal,
    onProgress: (progress) => shown.push(`${progress.bytesRead} of ${progress.totalBytes ?? "?"}`),
    onWindow: (window: WorkerWindow) => {
      const withheld: number | undefined = window.withheldFrom;
      shown.push(...window.newestCards.cards.map((card) => card.key), `withheld from ${withheld ?? "none"}`);
    },
  });
  const end = opened.info.counts.cards;
  const slice = await worker.call("cardsSlice", { start: Math.max(0, end - 20), end });
  const state: CallResult<"stateAt"> = await worker.call("stateAt", 1);
  const counts = await worker.call("viewCounts");
  shown.push(String(state?.firstSeq ?? counts.requests));
  // @ts-expect-error: not a call the worker serves
  await worker.call("free");
  // @ts-expect-error: stateAt takes a seq
  await worker.call("stateAt", "1");
  return [...shown, ...slice.cards.map((card) => card.key)];
}

export function request(id: number): WorkerRequest {
  // @ts-expect-error: a call names its method and its arguments
  const bad: WorkerRequest = { id, type: "call", method: "contextAt", args: [] };
  return bad.id === 0 ? { id, type: "info" } : { id, type: "call", method: "contextAt", args: [3] };
}

export function reply(message: WorkerReply): string {
  if (message.type === "ready") return "ready";
  if (message.type === "error") return message.error.code ?? message.error.name;
  return String(message.id);
}

/** A worker's error, rebuilt on the page side, narrowed by the class the worker entry exports. */
export async function infoCode(file: File): Promise<string | undefined> {
  const worker = createWorkerConversation();
  try {
    await worker.open(file);
    return undefined;
  } catch (error) {
    return error instanceof PromptfoldError ? error.code : undefined;
  } finally {
    worker.terminate();
  }
}
