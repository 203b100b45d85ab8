// The conversation in a worker, through the package's documented API (promptfold/worker,
// docs/worker.md): opens the probe session as a file, then asks the worker for what `summarize`
// computes on the page (probe.js), so the checker compares it with the Node entry's result.
// `worker`: the Worker to drive, or undefined for the package's own (createWorkerConversation()).

/** Opens `events` (as a JSON-lines Blob) in a worker conversation and returns the probe's result. */
export async function summarizeInWorker(createWorkerConversation, events, worker) {
  // The worker is left running until the page closes: the checker reads the size of every
  // response, and a terminated worker's responses have no body left to read.
  const conversation = createWorkerConversation(worker);
  const file = new Blob(
    events.map((event) => `${JSON.stringify(event)}\n`),
    { type: "application/jsonl" },
  );
  await conversation.open(file);
  const views = await conversation.call("views");
  const state = await conversation.call("stateAt", events[events.length - 1].seq);
  await conversation.close();
  const cards = views.chat.map((card) => ({ key: card.key, text: card.text }));
  return { cards, prompt: state?.effective?.text ?? null };
}
