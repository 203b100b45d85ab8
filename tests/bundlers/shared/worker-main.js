// The worker page: worker.js, a module worker, imports the package and posts the probe's result.
import { show } from "./probe.js";

const worker = new Worker(new URL("./worker.js", import.meta.url), { type: "module" });
worker.onmessage = (event) => show(event.data);
worker.onerror = (event) => {
  throw new Error(`the worker failed: ${event.message}`);
};
