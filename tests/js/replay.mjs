// A card list kept up to date from change reports alone, as a UI patches its list: the replayed
// list must equal `views().chat` (shared by the conformance and framed tests).

/** Cards by key, patched by each `ConversationChange`; `list()` gives them in chat order. */
export class ReplayedChat {
  cards = new Map();
  apply(change) {
    for (const key of change.chat.removed) this.cards.delete(key);
    for (const card of [...change.chat.added, ...change.chat.changed]) this.cards.set(card.key, card);
  }
  list() {
    const order = (card) => [card.anchorSeq, card.source === "request" ? 0 : 1, card.seq];
    return [...this.cards.values()].sort((a, b) => {
      const [x, y] = [order(a), order(b)];
      return x[0] - y[0] || x[1] - y[1] || x[2] - y[2];
    });
  }
}
