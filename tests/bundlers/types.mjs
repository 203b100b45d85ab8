// Type-checks an import of every subpath of the packed package under every TypeScript
// moduleResolution (node10 reads typesVersions, node16/nodenext the exports' `types`, from ES
// module and CommonJS files, bundler the exports from ES modules), with tsc --strict.
//   node tests/bundlers/types.mjs <promptfold tarball>
import { execFileSync } from "node:child_process";
import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));
const tsc = join(here, "..", "..", "node_modules", ".bin", "tsc");

// A use of the API through each subpath; `web` also has its init functions; `worker` is the
// conversation in a worker (promptfold/worker), whose calls give the methods' results.
const body = "\nexport const cards: ChatCard[] = new Conversation().views().chat;\n";
const uses = {
  promptfold: 'import { Conversation, type ChatCard } from "promptfold";',
  inline: 'import { Conversation, type ChatCard } from "promptfold/inline";',
  node: 'import { Conversation, type ChatCard } from "promptfold/node";',
  bundler: 'import { Conversation, type ChatCard } from "promptfold/bundler";',
  web: 'import init, { Conversation, initSync, type ChatCard } from "promptfold/web";\nexport const start: () => Promise<unknown> = () => init();\nexport const startSync: typeof initSync = initSync;',
};
for (const name of Object.keys(uses)) uses[name] += body;
uses.worker = `import type { ChatCard, SystemPromptStateJson } from "promptfold";
import { createWorkerConversation, type WorkerOpened } from "promptfold/worker";
const worker = createWorkerConversation();
export const opened: Promise<WorkerOpened> = worker.open(new Blob([]), { onProgress: (progress) => progress.bytesRead });
export const cards: Promise<ChatCard[]> = worker.call("views").then((views) => views.chat);
export const state: Promise<SystemPromptStateJson | undefined> = worker.call("stateAt", 1);
`;
// The subpaths a CommonJS file can load (web, bundler and worker are ES modules only, at run time
// too).
const commonjs = ["promptfold", "inline", "node"];

const settings = [
  { moduleResolution: "node10", module: "commonjs", files: Object.keys(uses).map((name) => `${name}.ts`) },
  { moduleResolution: "bundler", module: "esnext", files: Object.keys(uses).map((name) => `${name}.ts`) },
  ...["node16", "nodenext"].map((mode) => ({
    moduleResolution: mode,
    module: mode,
    files: [...Object.keys(uses).map((name) => `${name}.mts`), ...commonjs.map((name) => `${name}.cts`)],
  })),
];

/** Checks every setting in a scratch project under `work`; returns the failures. */
export function checkTypes(tarball, work) {
  const failures = [];
  for (const setting of settings) {
    const dir = join(work, `types-${setting.moduleResolution}`);
    rmSync(dir, { recursive: true, force: true });
    mkdirSync(join(dir, "node_modules", "promptfold"), { recursive: true });
    execFileSync("tar", ["-xzf", tarball, "-C", join(dir, "node_modules", "promptfold"), "--strip-components=1"]);
    for (const file of setting.files) {
      const name = file.replace(/\.[cm]?ts$/, "");
      writeFileSync(join(dir, file), uses[name]);
    }
    writeFileSync(join(dir, "package.json"), JSON.stringify({ name: "types-probe", private: true }));
    const config = {
      compilerOptions: {
        strict: true,
        noEmit: true,
        target: "es2022",
        lib: ["es2022", "esnext.disposable", "dom"],
        module: setting.module,
        moduleResolution: setting.moduleResolution,
        skipLibCheck: false,
        ...(setting.moduleResolution === "node10" ? { ignoreDeprecations: "5.0" } : {}),
      },
      files: setting.files,
    };
    writeFileSync(join(dir, "tsconfig.json"), JSON.stringify(config, null, 2));
    try {
      execFileSync(tsc, ["-p", dir], { encoding: "utf8", stdio: "pipe" });
      console.log(`types: ${setting.moduleResolution} ok (${setting.files.join(", ")})`);
    } catch (error) {
      failures.push(`types under ${setting.moduleResolution}:\n${error.stdout}${error.stderr}`);
    }
  }
  return failures;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const failures = checkTypes(process.argv[2], join(here, ".work"));
  for (const failure of failures) console.log(failure);
  process.exit(failures.length === 0 ? 0 : 1);
}
