// The web build: `init()` before use, or `initSync` with the module's bytes.
import init, { Conversation, initSync } from "../../pkg/web/promptfold.js";

export async function start(): Promise<Conversation> {
  await init();
  return new Conversation();
}

export function startSync(bytes: BufferSource): Conversation {
  initSync({ module: bytes });
  return new Conversation();
}
