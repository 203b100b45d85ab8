// The conversation page for bundlers that do not follow `new Worker(new URL(...))` into a package:
// the app's own worker script (conversation-worker.js), built as a second entry point next to
// this one, driven through promptfold/worker (docs/worker.md, "Bundlers").
import { createWorkerConversation } from "promptfold/worker";
import { summarizeInWorker } from "./conversation.js";
import { show } from "./probe.js";
import events from "./session.js";

const worker = new Worker(new URL("./conversation-worker.js", import.meta.url), { type: "module" });
summarizeInWorker(createWorkerConversation, events, worker).then(show);
