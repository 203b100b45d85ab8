// How the demo pages the bundled session: the newest page first, then older pages on "Load
// earlier". A page holds at least PAGE_SIZE events and starts at a `turn/start` (or at the first
// event), so no turn is cut in half. Shared by app.js and make-sample.mjs.

export const PAGE_SIZE = 80;

/** Index of the first event of the page that ends just before `endIndex`. */
export function pageStart(events, endIndex, size = PAGE_SIZE) {
  let index = Math.max(0, endIndex - size);
  while (index > 0 && events[index]?.type !== 'turn/start') index -= 1;
  return index;
}

/** Start indices of every page, newest first: the windows the demo shows in turn. */
export function pageStarts(events, size = PAGE_SIZE) {
  const starts = [];
  let end = events.length;
  while (end > 0) {
    end = pageStart(events, end, size);
    starts.push(end);
  }
  return starts;
}
