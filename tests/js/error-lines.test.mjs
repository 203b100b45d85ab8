// Errors point at what the caller gave (SPEC 10.8): for text, the line where the bad row starts,
// and the index counted from the start of the file for `feed` and `openSession`, from every
// entry point of text.
import { test } from "node:test";
import assert from "node:assert/strict";
import { Readable } from "node:stream";
import { promptfold } from "./promptfold.mjs";

const { Conversation, openSession } = promptfold;
const encoder = new TextEncoder();

/** A log of `events` rows after a header, blank lines here and there, one bad row at `bad`. */
function logWithBadRow(events, bad, badRow = (seq) => `{"seq":${seq - 1}}`) {
  const lines = ['{"type":"session","version":4}', ""];
  let place;
  for (let seq = 1; seq <= events; seq += 1) {
    if (seq % 7 === 0) lines.push("  ");
    if (seq === bad) {
      place = { index: seq, line: lines.length + 1 };
      lines.push(badRow(seq));
    } else {
      lines.push(`{"seq":${seq},"type":"step/start"}`);
    }
  }
  return { text: `${lines.join("\n")}\n`, ...place };
}

function placeOf(call) {
  try {
    call();
  } catch (error) {
    return { name: error.name, code: error.code, index: error.index, line: error.line };
  }
  return undefined;
}

test("the review's example: loadJson names the line of the bad row", () => {
  const text = '{"type":"session","version":4}\n{"seq":1}\n\n\n{"seq":1}\n';
  const conversation = new Conversation();
  assert.throws(
    () => conversation.loadJson(text),
    (error) => {
      assert.equal(error.name, "PromptfoldError");
      assert.equal(error.code, "NON_INCREASING_SEQ");
      assert.equal(error.index, 2);
      assert.equal(error.line, 5);
      assert.match(error.message, /^line 5: event 2 \(seq 1\): /);
      return true;
    },
  );
  // Events given as values have no line.
  assert.throws(
    () => conversation.load([{ seq: 1 }, { seq: 1 }]),
    (error) => error.code === "NON_INCREASING_SEQ" && error.index === 1 && error.line === undefined,
  );
  conversation.free();
});

test("loadJson, appendJson and prependJson of strings and bytes name the line", () => {
  const kinds = [
    ["NON_INCREASING_SEQ", (seq) => `{"seq":${seq - 1}}`],
    ["MISSING_SEQ", () => '{"type":"x"}'],
    ["INVALID_SEQ", () => '{"seq":"x"}'],
    ["NOT_AN_OBJECT", () => "[1]"],
    ["INVALID_SURFACE_OP", (seq) => `{"seq":${seq},"type":"system/message","surfaceOp":7}`],
  ];
  for (const [code, badRow] of kinds) {
    const { text, index, line } = logWithBadRow(40, 30, badRow);
    const expected = { name: "PromptfoldError", code, index, line };
    for (const given of [text, encoder.encode(text)]) {
      for (const call of [
        (c) => c.loadJson(given),
        (c) => c.appendJson(given),
        (c) => c.prependJson(given),
      ]) {
        const conversation = new Conversation();
        assert.deepEqual(placeOf(() => call(conversation)), expected, `${code}: ${call}`);
        conversation.free();
      }
    }
    // An append to a started window: its own text, counted from its start.
    const conversation = new Conversation();
    conversation.loadJson('{"seq":0}\n');
    const appended = text.slice(text.indexOf("\n") + 1);
    assert.deepEqual(placeOf(() => conversation.appendJson(appended)), { ...expected, index: index - 1, line: line - 1 });
    conversation.free();
  }
  // A JSON array over lines: the line where the element starts.
  const array = '[\n{"seq":1},\n\n  {"seq":2}, {"seq":2}\n]';
  const conversation = new Conversation();
  assert.deepEqual(placeOf(() => conversation.loadJson(array)), {
    name: "PromptfoldError",
    code: "NON_INCREASING_SEQ",
    index: 2,
    line: 4,
  });
  conversation.free();
});

test("feed in pieces counts the index and the line from the first byte fed", () => {
  const { text, index, line } = logWithBadRow(60, 50);
  const bytes = encoder.encode(text);
  for (const size of [1, 5, 64, 1000]) {
    for (const asString of [false, true]) {
      const conversation = new Conversation();
      let error;
      for (let at = 0; at < bytes.length && error === undefined; at += size) {
        const piece = asString ? text.slice(at, at + size) : bytes.subarray(at, at + size);
        try {
          conversation.feed(piece);
        } catch (thrown) {
          error = thrown;
        }
      }
      assert.deepEqual(
        { code: error?.code, index: error?.index, line: error?.line },
        { code: "NON_INCREASING_SEQ", index, line },
        `pieces of ${size}${asString ? " (strings)" : ""}`,
      );
      conversation.free();
    }
  }
});

test("feed after a JSON array names the row's index and no line; after JSON lines, the line", () => {
  const event = (seq) => JSON.stringify({ seq, time: seq, type: "user/message" });
  const fed = `${event(3)}\n${event(3)}\n`;
  const cases = [
    // A JSON array over four lines: its line ends are not counted, so a line would be wrong.
    [`[\n  ${event(1)},\n  ${event(2)}\n]\n`, undefined],
    [`[${event(1)},${event(2)}]`, undefined],
    [`${event(1)}\n${event(2)}\n`, 4],
  ];
  for (const [text, line] of cases) {
    for (const given of [text, encoder.encode(text)]) {
      const conversation = new Conversation();
      conversation.loadJson(given);
      const place = placeOf(() => conversation.feed(fed));
      assert.deepEqual(place, { name: "PromptfoldError", code: "NON_INCREASING_SEQ", index: 3, line }, text);
      conversation.free();
    }
  }
  // An array appended after JSON lines: from then on, no line either.
  const conversation = new Conversation();
  conversation.loadJson(`${event(1)}\n${event(2)}\n`);
  conversation.appendJson(`[\n${event(3)}\n]`);
  const place = placeOf(() => conversation.feed(`${event(4)}\n${event(4)}\n`));
  assert.deepEqual(place, { name: "PromptfoldError", code: "NON_INCREASING_SEQ", index: 4, line: undefined });
  // Malformed JSON always names a line: counted from the end of the array's text.
  conversation.feed(`${event(4)}\n`);
  const malformed = placeOf(() => conversation.feed("{bad\n"));
  assert.deepEqual(malformed, { name: "PromptfoldError", code: "MALFORMED_JSON", index: undefined, line: 2 });
  conversation.free();
});

test("openSession gives the index and the line loadJson gives, in any chunks", async () => {
  const { text, index, line } = logWithBadRow(600, 501);
  const bytes = encoder.encode(text);
  const conversation = new Conversation();
  const expected = placeOf(() => conversation.loadJson(bytes));
  conversation.free();
  assert.deepEqual(expected, { name: "PromptfoldError", code: "NON_INCREASING_SEQ", index, line });
  const sources = {
    stream: (chunk) => Readable.from(Array.from({ length: Math.ceil(bytes.length / chunk) }, (_, i) => bytes.subarray(i * chunk, (i + 1) * chunk))),
    blob: () => new Blob([bytes]),
  };
  for (const chunkBytes of [100, 4096]) {
    for (const [name, make] of Object.entries(sources)) {
      for (const newestFirst of [false, true]) {
        await assert.rejects(openSession(make(chunkBytes), { chunkBytes, newestFirst }), (error) => {
          assert.deepEqual(
            { name: error.name, code: error.code, index: error.index, line: error.line },
            expected,
            `${name}, chunks of ${chunkBytes}${newestFirst ? ", newest first" : ""}`,
          );
          return true;
        });
      }
    }
  }
});

test("feed after events given as values counts their rows, as the Rust API does", () => {
  // The same case as tests/errors.rs, feed_after_values_counts_their_rows.
  const row = (seq) => ({ seq, time: seq, type: "user/message" });
  const fed = `${JSON.stringify(row(9))}\n${JSON.stringify(row(9))}\n`;
  const conversation = new Conversation();
  const cases = [
    // Two rows loaded and one appended as values: the bad fed row is the file's fifth.
    [
      () => {
        conversation.load([row(1), row(2)]);
        conversation.append([row(3)]);
      },
      4,
    ],
    // A load of values starts the count again.
    [() => conversation.load([row(1)]), 2],
  ];
  for (const [given, index] of cases) {
    given();
    const place = placeOf(() => conversation.feed(fed));
    assert.deepEqual(place, { name: "PromptfoldError", code: "NON_INCREASING_SEQ", index, line: 2 });
  }
  conversation.free();
});
