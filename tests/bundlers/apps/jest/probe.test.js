// Jest, no configuration (CommonJS, node environment): `require("promptfold")` folds the session as
// the Node entry does.
const { Conversation } = require("promptfold");
const { summarize } = require("./src/probe.cjs");
const events = require("./src/session.json");
const expected = require("./src/expected.json");

test("require(\"promptfold\") works in Jest", () => {
  expect(summarize(Conversation, events)).toEqual(expected);
});
