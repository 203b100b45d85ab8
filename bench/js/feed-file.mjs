// One way the benchmarks read a session file: `feed` in 1 MiB pieces read with readSync (the
// whole file never held at once).
import { closeSync, openSync, readSync } from "node:fs";

const MiB = 1024 * 1024;

/** Feeds the file at `path` to `conversation` in 1 MiB pieces. */
export function feedFile(conversation, path) {
  const fd = openSync(path, "r");
  try {
    const piece = new Uint8Array(MiB);
    for (;;) {
      const read = readSync(fd, piece, 0, MiB, null);
      if (read === 0) break;
      conversation.feed(piece.subarray(0, read));
    }
  } finally {
    closeSync(fd);
  }
}
