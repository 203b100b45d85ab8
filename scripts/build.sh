#!/usr/bin/env bash
# Builds the npm package into pkg/: one release wasm, bound for three targets, each run through
# wasm-opt (npm binaryen; its flags below), plus package.json and README from pkg-template/.
#   pkg/web/      ES module with init() (promptfold.js), and index.js, initialized on import: the
#                 default entry for browsers, workers and bundlers
#   pkg/inline/   the web build with the wasm inlined (esbuild, Rollup: no asset handling needed)
#   pkg/bundler/  ES module importing the .wasm (webpack's asyncWebAssembly); its .d.ts is the API
#   pkg/node/     CommonJS (promptfold.js, wasm embedded) and an ES module face (promptfold.mjs)
#   pkg/worker/   promptfold/worker: the conversation in a worker (src/worker/)
# Options: --no-opt (skip wasm-opt), --dev (debug build, no wasm-opt).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
export PATH="$HOME/.cargo/bin:$PATH"

profile=release
optimize=1
for arg in "$@"; do
  case "$arg" in
    --no-opt) optimize=0 ;;
    --dev) profile=debug; optimize=0 ;;
    *) echo "build: unknown option $arg" >&2; exit 2 ;;
  esac
done

if ! command -v wasm-bindgen >/dev/null || [ ! -x node_modules/.bin/wasm-opt ]; then
  bash scripts/setup.sh
fi

cargo_flags=(--target wasm32-unknown-unknown --lib --features wasm)
[ "$profile" = release ] && cargo_flags+=(--release)
cargo build "${cargo_flags[@]}"
# cargo writes where CARGO_TARGET_DIR says, when it is set.
wasm="${CARGO_TARGET_DIR:-target}/wasm32-unknown-unknown/$profile/promptfold.wasm"

# wasm-opt (measured on the release wasm at ac76e38, gzip -9: 148,503 with -Oz alone): -Os to a
# fixed point (--converge) writes a smaller module after gzip than -Oz (-900 bytes); a function
# with one caller is inlined only when it is tiny (-ocimfs=20: inlining the big ones into the
# export shims cost 10,000 bytes gzipped); the low 1 KiB of memory is unused (Rust's data starts
# at 1 MiB) and fresh memory is zeroed. 138,068 together.
wasm_opt_flags=(-Os --converge --one-caller-inline-max-function-size=20 --low-memory-unused
  --zero-filled-memory --strip-producers)

out="$root/pkg"
rm -rf "$out"
mkdir -p "$out"
bind() {
  local target=$1 dir=$2
  wasm-bindgen --target "$target" --out-dir "$out/$dir" --out-name promptfold "$wasm"
  if [ "$optimize" = 1 ]; then
    node_modules/.bin/wasm-opt "${wasm_opt_flags[@]}" "$out/$dir/promptfold_bg.wasm" -o "$out/$dir/promptfold_bg.wasm"
  fi
}
bind web web
bind bundler bundler
bind nodejs node

# Every entry exports the class of the errors, PromptfoldError (src/wasm/js/error.js), and the
# glue makes its own errors with it (scripts/error-glue.mjs).
node scripts/error-glue.mjs "$out/web/promptfold.js" "$out/bundler/promptfold_bg.js" "$out/node/promptfold.js"
# A call on a freed Conversation or SystemPromptState throws a PromptfoldError "FREED" naming
# its class, and a second free() does nothing (scripts/freed-glue.mjs).
node scripts/freed-glue.mjs "$out/web/promptfold.js" "$out/bundler/promptfold_bg.js" "$out/node/promptfold.js"
# A seq that is not a number (a string, null, NaN...) throws INVALID_ARGUMENT instead of being
# converted as Number() converts it (scripts/number-args-glue.mjs).
node scripts/number-args-glue.mjs "$out/web/promptfold.js" "$out/bundler/promptfold_bg.js" "$out/node/promptfold.js"
# An options object, a range or a plain-data argument of the wrong shape (an array, a member of
# the wrong type, a member its type does not declare) throws INVALID_ARGUMENT naming it
# (scripts/argument-glue.mjs).
node scripts/argument-glue.mjs "$out/web/promptfold.js" "$out/bundler/promptfold_bg.js" "$out/node/promptfold.js"

# The Node build is CommonJS, but wasm-bindgen copies the JS modules (src/wasm/js/*.js, under
# snippets/<crate>/src/wasm/js/) as the ES modules they are written as: turn each
# `export function f` (`class`, `const`) into a CommonJS export, and each
# `import { a, b } from "./m.js";` (on one line or several) into a require of it.
find "$out/node/snippets" -name '*.js' -print | while read -r snippet; do
  names=$(sed -n -E 's/^export (function|class|const) ([A-Za-z_$][A-Za-z0-9_$]*).*/\2/p' "$snippet" | paste -sd, -)
  sed -i -E 's/^export (function|class|const) /\1 /' "$snippet"
  perl -0pi -e 's/^import (\{[^}]*\}) from ("\.\/[^"]+");/const $1 = require($2);/mg' "$snippet"
  if grep -q -E '^(import|export) ' "$snippet"; then
    echo "build: $snippet keeps an import or export this script cannot turn into CommonJS" >&2
    exit 1
  fi
  echo "module.exports = { $names };" >> "$snippet"
done

# Module type of each folder, so Node and bundlers read the .js files right, and its types:
# TypeScript's node10 resolution of "promptfold/web" reads web/package.json, not the exports.
echo '{ "type": "module", "types": "./promptfold.d.ts" }' > "$out/web/package.json"
echo '{ "type": "module", "types": "./promptfold.d.ts" }' > "$out/bundler/package.json"
echo '{ "type": "commonjs", "types": "./promptfold.d.ts" }' > "$out/node/package.json"

# The entries (web/index.js initialized on import, inline/, the Node build with its wasm embedded
# and its ES module face): see scripts/entries.mjs.
node scripts/entries.mjs "$out"

# wasm-bindgen types the raw wasm exports (InitOutput, *_bg.wasm.d.ts) with `any`; the public
# types promise none, and `unknown` says the same without switching type checks off.
for dts in "$out"/*/*.d.ts; do
  sed -i -E '/^[[:space:]]*(\*|\/\*)/!s/\bany\b/unknown/g' "$dts"
done

# promptfold/worker: a conversation in a Web Worker or worker_threads, driven by typed messages
# (src/worker/, docs/worker.md); its scripts import ../web/promptfold.js and ../node/promptfold.mjs.
# `main` there: resolvers that ignore "exports" (Parcel by default) find promptfold/worker too.
mkdir -p "$out/worker"
cp src/worker/serve.js src/worker/client.js src/worker/web.js src/worker/node.mjs src/worker/index.d.ts "$out/worker/"
# client.js rebuilds the worker's errors with the class of the other entries (its own copy).
cp src/wasm/js/error.js "$out/worker/error.js"
echo '{ "type": "module", "main": "./client.js", "types": "./index.d.ts" }' > "$out/worker/package.json"

version=$(awk -F'"' '/^version = / { print $2; exit }' Cargo.toml)
sed "s/\"version\": \"0.0.0-template\"/\"version\": \"$version\"/" pkg-template/package.json > "$out/package.json"
cp pkg-template/README.md "$out/README.md"
cp LICENSE "$out/LICENSE"

raw=$(wc -c < "$out/web/promptfold_bg.wasm")
gz=$(gzip -9 -c "$out/web/promptfold_bg.wasm" | wc -c)
echo "build: pkg/ ready ($profile, wasm $raw bytes raw, $gz bytes gzip -9)"
