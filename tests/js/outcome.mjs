// What a call on a fresh conversation gives, as one string to compare: shared by the tests that
// hold JS objects against their JSON text.
import { promptfold } from "./promptfold.mjs";

const { Conversation } = promptfold;

/** The event lines and views of `conversation`, as JSON text. */
export function observe(conversation) {
  return JSON.stringify({ lines: conversation.lines(), views: conversation.views() });
}

/**
 * What `load(conversation)` leaves on a fresh conversation, as `look` sees it, or the error it
 * throws as its code, message and place (its line left out). The conversation is freed either
 * way.
 */
export function outcome(load, look = observe) {
  const conversation = new Conversation();
  try {
    load(conversation);
    return look(conversation);
  } catch (error) {
    // Without the line of a row of text (`line N: `): events given as objects have none.
    const message = error.message.replace(/^line \d+: /, "");
    return JSON.stringify({ code: error.code, message, index: error.index, seq: error.seq });
  } finally {
    conversation.free();
  }
}
