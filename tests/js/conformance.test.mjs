// Every conformance case through the JS API in Node, section by section as the native runner
// does: pure (inspectSystemPrompt / inspectRequestPrompt), window (lines), final (views),
// stages (load + prepend), D1 (live appends), and the change reports replayed into a card list.
import { test } from "node:test";
import assert from "node:assert/strict";
import { isDeepStrictEqual } from "node:util";
import { loadCases } from "./cases.mjs";
import { firstDifference } from "./compare.mjs";
import { promptfold } from "./promptfold.mjs";
import { ReplayedChat } from "./replay.mjs";
import { formatViews } from "./compare.mjs";

const { Conversation, inspectSystemPrompt, inspectRequestPrompt } = promptfold;

function pureLines(events) {
  const lines = [];
  let state;
  let previous;
  for (const event of events) {
    let request;
    if (event.type === "request/header") {
      request = inspectRequestPrompt(previous, event, state?.effective);
      previous = request.prompt;
    }
    const next = inspectSystemPrompt(state, event);
    if (next !== state && state) state.free();
    state = next;
    lines.push({ seq: event.seq, system: state ? state.toJSON() : null, ...(request ? { request } : {}) });
  }
  state?.free();
  return lines;
}

function runCase(kase, check) {
  const { events, expected } = kase;
  check("pure", pureLines(events), expected.pure);

  const loaded = new Conversation();
  const replay = new ReplayedChat();
  try {
    replay.apply(loaded.load(events, { hasMore: kase.hasMore ?? false }));
    check("window", loaded.lines(), expected.window);
    check("final", formatViews(loaded, check, "final"), expected.final);
    check("load change report", replay.list(), expected.final.chat);
    // The report's cards are built apart from views(): the same members, in the same order.
    const members = (cards) => cards.map(Object.entries);
    check("load change report, members in order", isDeepStrictEqual(members(replay.list()), members(loaded.views().chat)), true);
    check("windowStart", loaded.windowStart, events[0]?.seq);
  } finally {
    loaded.free();
  }

  const live = new Conversation();
  const liveReplay = new ReplayedChat();
  try {
    for (const event of events) liveReplay.apply(live.append([event]));
    check("D1 live window", live.lines(), expected.window);
    check("D1 live final", formatViews(live, check, "D1 live final"), expected.final);
    check("D1 live change reports", liveReplay.list(), expected.final.chat);
  } finally {
    live.free();
  }

  if (kase.stages) {
    const staged = new Conversation();
    const stagedReplay = new ReplayedChat();
    let end;
    try {
      kase.stages.forEach((stage, i) => {
        const page = events.filter((e) => e.seq >= stage.fromSeq && (end === undefined || e.seq < end));
        stagedReplay.apply(end === undefined ? staged.load(page, { hasMore: stage.hasMore }) : staged.prepend(page, { hasMore: stage.hasMore }));
        end = stage.fromSeq;
        check(`stages[${i}]`, formatViews(staged, check, `stages[${i}]`), expected.stages[i]);
        check(`stages[${i}] change reports`, stagedReplay.list(), expected.stages[i].chat);
        check(`stages[${i}] hasMore`, staged.hasMore, stage.hasMore);
      });
    } finally {
      staged.free();
    }
  }
}

test("conformance cases through the JS API", () => {
  const cases = loadCases();
  assert.ok(cases.length > 0, "no conformance cases found");
  let checks = 0;
  const failures = [];
  for (const kase of cases) {
    const check = (section, actual, expected) => {
      checks++;
      const difference = firstDifference(actual, expected);
      if (difference) failures.push(`${kase.name}: ${section}: ${difference}`);
    };
    try {
      runCase(kase, check);
    } catch (error) {
      checks++;
      failures.push(`${kase.name}: threw ${error?.code ?? ""} ${error?.message ?? error}`);
    }
  }
  for (const failure of failures) console.log(`FAILED ${failure}`);
  console.log(`js conformance: ${cases.length} cases, ${checks} checks, ${failures.length} failed`);
  assert.equal(failures.length, 0, `${failures.length} conformance checks failed`);
});
