// The costly path of the framed cases: each case's bytes fed in pieces of every size from 1 to
// `maxPiece` bytes, compared with loadJson of the whole. framed.test.mjs runs it in worker threads
// (one share of the cases each); it also holds the helpers the framed tests share.
import { isMainThread, parentPort, workerData } from "node:worker_threads";
import { loadCases } from "./cases.mjs";
import { firstDifference } from "./compare.mjs";
import { promptfold } from "./promptfold.mjs";
import { ReplayedChat } from "./replay.mjs";

const { Conversation } = promptfold;

/** What a conversation shows: every line and view, as one string. */
export const shown = (conv) => JSON.stringify([conv.lines(), conv.views(), conv.length, conv.windowStart ?? null]);

/**
 * A cheaper account of a fed conversation (lines() and views() cost about 1 ms a call on the
 * larger cases, times 4,096 sizes): its length, window start, header, the state after its last
 * event, and the chat cards replayed from the feed calls' change reports.
 */
export const digest = (conv, replay) => JSON.stringify([conv.length, conv.windowStart ?? null, conv.session ?? null,
  conv.stateAt(Number.MAX_SAFE_INTEGER)?.toJSON() ?? null, replay.list()]);

/** Runs `body(conv)` and frees the conversation whatever happens. */
export function using(conv, body) {
  try { return body(conv); } finally { conv.free(); }
}

/** Feeds `bytes` in pieces of `size` bytes into a new conversation, replaying its reports. */
function fedInPieces(bytes, size, replay) {
  const conv = new Conversation();
  for (let from = 0; from < bytes.length; from += size) replay.apply(conv.feed(bytes.subarray(from, from + size)));
  return conv;
}

/** Sizes whose every line and view is compared too (the others compare the digest). */
const fullCheck = (size, last) => size <= 64 || size % 61 === 0 || (size & (size - 1)) === 0 || size === last;

/** Feeds each case in pieces of every size up to `maxPiece`: counts and up to 20 failures. */
export function checkPieces(cases, maxPiece) {
  const encoder = new TextEncoder();
  const result = { runs: 0, full: 0, feeds: 0, failures: [] };
  for (const kase of cases) {
    const bytes = encoder.encode(kase.rawLog);
    // The reference: the loaded text (framed.test.mjs checks it against the expectations).
    const [expectedShown, expectedDigest] = using(new Conversation(), (conv) => {
      const replay = new ReplayedChat();
      replay.apply(conv.loadJson(bytes));
      return [shown(conv), digest(conv, replay)];
    });
    // Every size at or past the length cuts nothing: one run stands for all of them.
    const last = Math.min(maxPiece, bytes.length);
    for (let size = 1; size <= last && result.failures.length < 20; size++) {
      const replay = new ReplayedChat();
      try {
        const problem = using(fedInPieces(bytes, size, replay), (conv) => {
          const got = digest(conv, replay);
          if (got !== expectedDigest) return `digest: ${firstDifference(JSON.parse(got), JSON.parse(expectedDigest))}`;
          if (!fullCheck(size, last)) return undefined;
          result.full += 1;
          const actual = shown(conv);
          return actual === expectedShown ? undefined : firstDifference(JSON.parse(actual), JSON.parse(expectedShown));
        });
        if (problem) result.failures.push(`${kase.name}: pieces of ${size} bytes: ${problem}`);
      } catch (error) {
        result.failures.push(`${kase.name}: pieces of ${size} bytes threw ${error?.code ?? ""} ${error?.message ?? error}`);
      }
      result.runs += 1;
      result.feeds += Math.ceil(bytes.length / size);
    }
  }
  return result;
}

if (!isMainThread && workerData?.framedPieces) {
  const names = new Set(workerData.framedPieces.names);
  const cases = loadCases().filter((kase) => names.has(kase.name));
  parentPort.postMessage(checkPieces(cases, workerData.framedPieces.maxPiece));
}
