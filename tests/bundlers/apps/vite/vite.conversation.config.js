// The conversation page (conversation.html) alone, with Vite's defaults otherwise: the package's
// worker (promptfold/worker/web.js) needs no `worker.format`. `input` only picks the page to build.
export default {
  build: { rolldownOptions: { input: "conversation.html" } },
};
