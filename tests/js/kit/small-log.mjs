// The smallest log the argument and error tests start from: a turn, one appended system prompt
// ("A"), a step and its request header.

/** The log's system prompt, appended at seq 2. */
export const systemEvent = {
  seq: 2,
  time: 2,
  type: "system/message",
  surfaceOp: "append",
  data: { turn: 1, step: 1, message: { role: "system", content: [{ type: "text", text: "A" }] } },
};

/** The log's request header, at seq 4. */
export const header = {
  seq: 4,
  time: 4,
  type: "request/header",
  data: { reason: "initial", header: { config: {}, tools: [] } },
};

/** The whole log, seqs 1 to 4. */
export const smallLog = [
  { seq: 1, time: 1, type: "turn/start", data: { turn: 1 } },
  systemEvent,
  { seq: 3, time: 3, type: "step/start", data: { turn: 1, step: 1 } },
  header,
];
