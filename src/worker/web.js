// A module Web Worker that serves one conversation (promptfold/worker; docs/worker.md):
// `new Worker(new URL("promptfold/worker/web.js", import.meta.url), { type: "module" })`, or
// `createWorkerConversation()`, which starts it. It compiles the wasm beside the web build without
// top-level await, which some bundlers cannot put in a worker (Parcel; Vite's default classic
// worker format), and serves once it is ready: the client sends nothing before `ready`. A module
// that fails to compile is thrown outside the promise, so the page's Worker gets its `error` event.
import init, * as promptfold from "../web/promptfold.js";
import { serveConversation } from "./serve.js";

init({ module_or_path: new URL("../web/promptfold_bg.wasm", import.meta.url) }).then(
  () => serveConversation(promptfold),
  (error) =>
    setTimeout(() => {
      throw error;
    }),
);
