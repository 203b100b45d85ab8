// What every test app computes and shows: the chat cards of a short session and the prompt in force
// at its last event. The checker computes the same with the Node entry and compares.

/** Folds `events` with the package's `Conversation` and returns the cards and the last prompt. */
export function summarize(Conversation, events) {
  const conversation = new Conversation();
  try {
    conversation.load(events);
    const cards = conversation.views().chat.map((card) => ({ key: card.key, text: card.text }));
    const state = conversation.stateAt(events[events.length - 1].seq);
    return { cards, prompt: state?.effective?.text ?? null };
  } finally {
    conversation.free();
  }
}

/** Puts `result` on the page as JSON in `#result` and marks the page done (`data-ms`: when). */
export function show(result) {
  let pre = document.getElementById("result");
  if (!pre) {
    pre = document.createElement("pre");
    pre.id = "result";
    document.body.append(pre);
  }
  pre.textContent = JSON.stringify(result);
  document.body.dataset.ms = String(performance.now());
  document.body.dataset.status = "done";
}
