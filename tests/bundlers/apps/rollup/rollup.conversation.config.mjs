// The conversation page (conversation.html): Rollup does not follow `new Worker(new URL(...))`, so
// the app's worker script is a second input, emitted next to the page's script, which starts it.
import { nodeResolve } from "@rollup/plugin-node-resolve";

export default {
  input: ["src/conversation-own-main.js", "src/conversation-worker.js"],
  output: { dir: "dist", format: "es" },
  plugins: [nodeResolve({ browser: true, exportConditions: ["promptfold-inline"] })],
};
