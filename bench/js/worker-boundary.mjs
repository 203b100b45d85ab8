// What crossing a worker boundary costs (docs/worker.md): a conversation loaded in a
// worker_threads worker hands a window's views to the main thread three ways, on a small and a
// big window, and this prints, per way, the round trip, the main thread's busy time (event loop
// utilization while waiting: the deserializing and parsing happen there) and the bytes crossing.
//   clone     views() posted as is (structured clone)
//   transfer  JSON.stringify(views()) encoded to bytes, the buffer transferred, parsed on main
//   slices    the newest 50 cards and 50 requests (cardsSlice, requestsSlice) and viewCounts()
//
//   node bench/js/worker-boundary.mjs FILE [RUNS] [WAYS]   medians of RUNS (default 5), one JSON
//                                                          line per way (WAYS: default
//                                                          clone,transfer,slices)
// The package is pkg/node (scripts/build.sh builds it), or the folder PROMPTFOLD_PKG names.
import { openAsBlob } from "node:fs";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { pathToFileURL } from "node:url";
import { serialize } from "node:v8";
import { isMainThread, parentPort, Worker, workerData } from "node:worker_threads";

const PAGE = 50;

function newest(slice, conversation, total) {
  return conversation[slice]({ start: Math.max(0, total - PAGE), end: total });
}

async function serve() {
  const promptfold = await import(pathToFileURL(join(workerData.pkg, "promptfold.js")).href);
  const { conversation } = await promptfold.openSession(await openAsBlob(workerData.file));
  const encoder = new TextEncoder();
  parentPort.on("message", (how) => {
    try {
      answer(how);
    } catch (error) {
      parentPort.postMessage({ how, error: String(error?.message ?? error) });
    }
  });
  function answer(how) {
    const started = performance.now();
    if (how === "clone") {
      parentPort.postMessage({ how, views: conversation.views(), workerMs: performance.now() - started });
    } else if (how === "transfer") {
      const bytes = encoder.encode(JSON.stringify(conversation.views()));
      parentPort.postMessage({ how, bytes, workerMs: performance.now() - started }, [bytes.buffer]);
    } else {
      const counts = conversation.viewCounts();
      const cards = newest("cardsSlice", conversation, counts.cards);
      const requests = newest("requestsSlice", conversation, counts.requests);
      parentPort.postMessage({ how, counts, cards, requests, workerMs: performance.now() - started });
    }
  }
  parentPort.postMessage({ ready: conversation.length });
}

function median(values) {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[sorted.length >> 1];
}

async function main(file, runs, ways) {
  const pkg = process.env.PROMPTFOLD_PKG || join(import.meta.dirname, "..", "..", "pkg", "node");
  const worker = new Worker(new URL(import.meta.url), { workerData: { file, pkg } });
  const events = await new Promise((resolve) => worker.once("message", (message) => resolve(message.ready)));
  const ask = (how) =>
    new Promise((resolve) => {
      const elu = performance.eventLoopUtilization();
      const started = performance.now();
      worker.once("message", (message) => {
        if (message.error !== undefined) {
          resolve({ error: message.error });
          return;
        }
        const received = how === "transfer" ? JSON.parse(new TextDecoder().decode(message.bytes)) : message;
        const ms = performance.now() - started;
        const busy = performance.eventLoopUtilization(elu);
        // Measured after the timing: the structured clone's size (v8.serialize is its format).
        const bytes = how === "transfer" ? message.bytes.length : serialize(received).length;
        resolve({ ms, mainBusyMs: busy.active, workerMs: message.workerMs, bytes });
      });
      worker.postMessage(how);
    });
  for (const how of ways) {
    const samples = [];
    for (let i = 0; i < runs; i++) samples.push(await ask(how));
    if (samples[0].error !== undefined) {
      console.log(JSON.stringify({ file, events, how, error: samples[0].error }));
      continue;
    }
    const pick = (key) => Math.round(median(samples.map((sample) => sample[key])) * 10) / 10;
    console.log(
      JSON.stringify({
        file,
        events,
        how,
        roundTripMs: pick("ms"),
        mainBusyMs: pick("mainBusyMs"),
        workerMs: pick("workerMs"),
        bytes: samples[0].bytes,
      }),
    );
  }
  await worker.terminate();
}

if (isMainThread) {
  const [, , file, runs = "5", ways = "clone,transfer,slices"] = process.argv;
  if (!file) throw new Error("usage: node bench/js/worker-boundary.mjs FILE [RUNS] [WAYS]");
  await main(file, Number(runs), ways.split(","));
} else {
  await serve();
}
