// A module Web Worker that serves one conversation (promptfold/worker; docs/worker.md):
// `new Worker(new URL("promptfold/worker/web.js", import.meta.url), { type: "module" })`, or
// `createWorkerConversation()`, which starts it.
import * as promptfold from "../web/index.js";
import { serveConversation } from "./serve.js";

serveConversation(promptfold);
