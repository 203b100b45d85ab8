// Rollup needs node-resolve to find any package; the second plugin option is the one line
// promptfold needs (the wasm inlined, see the package README).
import { nodeResolve } from "@rollup/plugin-node-resolve";

export default {
  input: "src/main.js",
  output: { dir: "dist", format: "es" },
  plugins: [nodeResolve({ browser: true, exportConditions: ["promptfold-inline"] })],
};
