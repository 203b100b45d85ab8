// The worker page (worker.html). `worker.format` is the one line Vite needs for a worker that
// imports promptfold: Vite bundles workers as classic scripts by default, which cannot wait (top-
// level await) for the wasm. `input` only picks the page to build.
export default {
  worker: { format: "es" },
  build: { rolldownOptions: { input: "worker.html" } },
};
