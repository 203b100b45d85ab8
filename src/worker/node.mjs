// A Node worker_threads worker that serves one conversation (promptfold/worker; docs/worker.md):
// `createWorkerConversation(new Worker(require.resolve("promptfold/worker/node")))`. A source may be
// a file path here: it is opened with `fs.openAsBlob`, so it too is read newest first.
import { openAsBlob } from "node:fs";
import { parentPort } from "node:worker_threads";
import * as promptfold from "../node/promptfold.mjs";
import { serveConversation } from "./serve.js";

serveConversation(promptfold, { port: parentPort, openPath: openAsBlob });
