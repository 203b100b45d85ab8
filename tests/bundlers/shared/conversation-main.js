// The conversation page: the package's own worker, started by createWorkerConversation() as
// docs/worker.md shows (promptfold/worker/web.js, found through `new Worker(new URL(...))`).
import { createWorkerConversation } from "promptfold/worker";
import { summarizeInWorker } from "./conversation.js";
import { show } from "./probe.js";
import events from "./session.js";

summarizeInWorker(createWorkerConversation, events).then(show);
