// Vitest, no configuration: the default import folds the session as the Node entry does.
import { readFileSync } from "node:fs";
import { expect, test } from "vitest";
import { Conversation } from "promptfold";
import { summarize } from "./src/probe.js";
import events from "./src/session.js";

test("the default import works in Vitest", () => {
  const expected = JSON.parse(readFileSync(new URL("./src/expected.json", import.meta.url), "utf8"));
  expect(summarize(Conversation, events)).toEqual(expected);
});
