// Every setup the package promises to work in: the app folder (apps/<app>), how it is built or
// served, and the pages or test command that check it. `fast`: part of the subset scripts/test
// runs by default (scripts/test --bundlers runs all): Vite dev, a worker, esbuild, Next production.
//   build   command run once in the app folder before its pages are visited
//   static  folder (in the app) served by serve.mjs with the strict CSP, pages visited there
//   noCsp   serve the static folder without the CSP (why: in a comment)
//   manifest  members added to the app's package.json for this setup only (the documented line)
//   server  command that serves the app itself (dev servers, next start), on $PORT
//   pages   paths visited, each must show the probe's result
//   test    command that runs the app's tests in Node (test runners)

/** The Content-Security-Policy every static build is served with. */
export const csp = "default-src 'self'; script-src 'self' 'wasm-unsafe-eval'";

const vite = ["node", "node_modules/vite/bin/vite.js"];
const next = ["node", "node_modules/next/dist/bin/next"];

/** The setups, in the order they run. */
export const setups = [
  {
    name: "vite-dev",
    app: "vite",
    fast: true,
    server: [...vite, "--port", "$PORT", "--strictPort", "--host", "127.0.0.1"],
    pages: ["/", "/worker.html", "/conversation.html"],
  },
  { name: "vite-build", app: "vite", build: [...vite, "build"], static: "dist", pages: ["/"] },
  {
    name: "vite-build-worker",
    app: "vite",
    fast: true,
    build: [...vite, "build", "--config", "vite.worker.config.js"],
    static: "dist",
    pages: ["/worker.html"],
  },
  {
    name: "vite-build-conversation",
    app: "vite",
    build: [...vite, "build", "--config", "vite.conversation.config.js"],
    static: "dist",
    pages: ["/conversation.html"],
  },
  { name: "vitest", app: "vite", test: ["node", "node_modules/vitest/vitest.mjs", "run"] },
  {
    name: "webpack",
    app: "webpack",
    build: ["node", "node_modules/webpack-cli/bin/cli.js", "--mode", "production"],
    static: ".",
    pages: ["/"],
  },
  {
    name: "webpack-worker",
    app: "webpack",
    build: ["node", "node_modules/webpack-cli/bin/cli.js", "--mode", "production", "--entry", "./src/worker-main.js", "--output-path", "dist-worker"],
    static: ".",
    pages: ["/worker.html"],
  },
  {
    name: "webpack-conversation",
    app: "webpack",
    build: ["node", "node_modules/webpack-cli/bin/cli.js", "--mode", "production", "--entry", "./src/conversation-main.js", "--output-path", "dist-conversation"],
    static: ".",
    pages: ["/conversation.html"],
  },
  {
    name: "esbuild",
    app: "esbuild",
    fast: true,
    build: ["node_modules/.bin/esbuild", "src/main.js", "--bundle", "--outdir=dist", "--conditions=promptfold-inline"],
    static: ".",
    pages: ["/"],
  },
  {
    name: "esbuild-conversation",
    app: "esbuild",
    // esbuild leaves `new Worker(new URL(...))` alone: the app's worker script is a second entry
    // point, in ES module format so that `import.meta.url` finds it next to the page's script.
    build: [
      "node_modules/.bin/esbuild",
      "src/conversation-own-main.js",
      "src/conversation-worker.js",
      "--bundle",
      "--format=esm",
      "--outdir=dist",
      "--conditions=promptfold-inline",
    ],
    static: ".",
    pages: ["/conversation.html"],
  },
  {
    name: "rollup",
    app: "rollup",
    build: ["node", "node_modules/rollup/dist/bin/rollup", "-c"],
    static: ".",
    pages: ["/"],
  },
  {
    name: "rollup-conversation",
    app: "rollup",
    build: ["node", "node_modules/rollup/dist/bin/rollup", "-c", "rollup.conversation.config.mjs"],
    static: ".",
    pages: ["/conversation.html"],
  },
  {
    name: "parcel",
    app: "parcel",
    build: ["node", "node_modules/parcel/lib/bin.js", "build", "index.html", "--no-cache"],
    static: "dist",
    // Parcel's pages run an inline script (its import map), which `script-src 'self'` blocks.
    noCsp: true,
    pages: ["/"],
  },
  {
    name: "parcel-worker",
    app: "parcel",
    // Parcel reads "exports" (and so the `worker` condition) only when told to.
    manifest: { "@parcel/resolver-default": { packageExports: true } },
    build: ["node", "node_modules/parcel/lib/bin.js", "build", "worker.html", "--no-cache"],
    static: "dist",
    noCsp: true,
    pages: ["/worker.html"],
  },
  {
    name: "parcel-conversation",
    app: "parcel",
    build: ["node", "node_modules/parcel/lib/bin.js", "build", "conversation.html", "--no-cache"],
    static: "dist",
    noCsp: true,
    pages: ["/conversation.html"],
  },
  {
    name: "next-turbopack-build",
    app: "next",
    fast: true,
    build: [...next, "build"],
    server: [...next, "start", "--port", "$PORT", "--hostname", "127.0.0.1"],
    pages: ["/", "/legacy", "/conversation"],
  },
  {
    name: "next-webpack-build",
    app: "next",
    build: [...next, "build", "--webpack"],
    server: [...next, "start", "--port", "$PORT", "--hostname", "127.0.0.1"],
    pages: ["/", "/legacy", "/conversation"],
  },
  {
    name: "next-turbopack-dev",
    app: "next",
    server: [...next, "dev", "--port", "$PORT", "--hostname", "127.0.0.1"],
    pages: ["/", "/legacy", "/conversation"],
  },
  {
    name: "next-webpack-dev",
    app: "next",
    server: [...next, "dev", "--webpack", "--port", "$PORT", "--hostname", "127.0.0.1"],
    pages: ["/", "/legacy", "/conversation"],
  },
  { name: "jest", app: "jest", test: ["node", "node_modules/jest/bin/jest.js", "--ci"] },
];
