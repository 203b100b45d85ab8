#!/usr/bin/env bash
# Installs everything the build, tests and demo need. Idempotent: a second run takes seconds.
#   - rustup target wasm32-unknown-unknown, clippy, rustfmt
#   - Debian chromium + chromium-driver (browser tests, e2e), unless SKIP_BROWSER=1
#   - wasm-pack 0.15.1 and wasm-bindgen-cli at the version in Cargo.lock (cargo install)
#   - npm tooling: binaryen (wasm-opt), typescript; e2e's and tests/bundlers' playwright-core
# BIN_CACHE=<dir>: reuse prebuilt wasm-pack / wasm-bindgen binaries from <dir> (see NOTES in
# README); BIN_CACHE_SAVE=1 fills it after a cargo install.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
export PATH="$HOME/.cargo/bin:$PATH"
log() { printf 'setup: %s\n' "$*"; }

wasm_pack_version=0.15.1
wasm_bindgen_version=$(awk '/^name = "wasm-bindgen"$/ { getline; gsub(/[^0-9.]/, ""); print; exit }' Cargo.lock)
[ -n "$wasm_bindgen_version" ] || { echo "setup: no wasm-bindgen in Cargo.lock" >&2; exit 1; }

# Rust pieces.
if ! rustup target list --installed | grep -qx wasm32-unknown-unknown; then
  log "adding rust target wasm32-unknown-unknown"
  rustup target add wasm32-unknown-unknown
fi
for component in clippy rustfmt; do
  if ! rustup component list --installed | grep -q "^$component"; then
    rustup component add "$component"
  fi
done

# Browser for the wasm-bindgen browser tests and the e2e tests (chromium-driver: for `wasm-pack test
# --chrome` by hand; scripts/test drives Chromium with playwright-core).
# A CJK font, so the demo's Chinese labels render in headless screenshots.
if [ "${SKIP_BROWSER:-0}" != 1 ] && { ! command -v chromium >/dev/null || ! command -v chromedriver >/dev/null ||
  [ ! -d /usr/share/fonts/truetype/wqy ]; }; then
  log "installing chromium, chromium-driver and a CJK font (apt)"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends chromium chromium-driver fonts-wqy-microhei >/dev/null
fi

has_version() { command -v "$1" >/dev/null && "$1" --version 2>/dev/null | grep -q " $2\$"; }

from_cache() {
  local dir=$1 name
  shift
  [ -n "${BIN_CACHE:-}" ] && [ -d "$BIN_CACHE/$dir" ] || return 1
  for name in "$@"; do
    [ -x "$BIN_CACHE/$dir/$name" ] || return 1
  done
  mkdir -p "$HOME/.cargo/bin"
  for name in "$@"; do
    cp "$BIN_CACHE/$dir/$name" "$HOME/.cargo/bin/$name"
  done
}

to_cache() {
  local dir=$1 name
  shift
  [ -n "${BIN_CACHE:-}" ] && [ "${BIN_CACHE_SAVE:-0}" = 1 ] || return 0
  mkdir -p "$BIN_CACHE/$dir"
  for name in "$@"; do
    cp "$HOME/.cargo/bin/$name" "$BIN_CACHE/$dir/$name"
  done
}

if ! has_version wasm-pack "$wasm_pack_version"; then
  if ! { from_cache "wasm-pack-$wasm_pack_version" wasm-pack && has_version wasm-pack "$wasm_pack_version"; }; then
    log "installing wasm-pack $wasm_pack_version (cargo install, ~2 min)"
    cargo install --locked wasm-pack --version "$wasm_pack_version"
    to_cache "wasm-pack-$wasm_pack_version" wasm-pack
  fi
fi

bindgen_bins=(wasm-bindgen wasm-bindgen-test-runner wasm2es6js)
if ! has_version wasm-bindgen "$wasm_bindgen_version"; then
  if ! { from_cache "wasm-bindgen-cli-$wasm_bindgen_version" "${bindgen_bins[@]}" && has_version wasm-bindgen "$wasm_bindgen_version"; }; then
    log "installing wasm-bindgen-cli $wasm_bindgen_version (cargo install, ~3 min)"
    # Its lockfile pins a crate version this registry may not serve: fall back to resolving anew.
    cargo install --locked wasm-bindgen-cli --version "$wasm_bindgen_version" ||
      CARGO_RESOLVER_INCOMPATIBLE_RUST_VERSIONS=fallback cargo install wasm-bindgen-cli --version "$wasm_bindgen_version"
    to_cache "wasm-bindgen-cli-$wasm_bindgen_version" "${bindgen_bins[@]}"
  fi
fi

# Node tooling (lockfiles committed; npm ci is a no-op when node_modules matches).
npm_install() {
  local dir=$1
  # A worktree may link node_modules to another checkout's: npm ci would empty that one.
  if [ -L "$dir/node_modules" ]; then
    log "node_modules in ${dir#"$root"/} is a link: left as it is"
    return 0
  fi
  if [ ! -d "$dir/node_modules" ] || [ "$dir/package-lock.json" -nt "$dir/node_modules/.package-lock.json" ]; then
    log "npm ci in ${dir#"$root"/}"
    (cd "$dir" && npm ci --no-audit --no-fund --loglevel=error)
  fi
}
npm_install "$root"
[ -f "$root/e2e/package-lock.json" ] && npm_install "$root/e2e"
# tests/bundlers: playwright-core here; each app's pinned tools are installed by its run.mjs.
[ -f "$root/tests/bundlers/package-lock.json" ] && npm_install "$root/tests/bundlers"

# The command's DuckDB contract test (cli/tests/duckdb_contract.py): the duckdb Python package in a
# virtual environment under the repository (.venv/, git-ignored; Debian's pip refuses to install
# into the system Python). SKIP_DUCKDB=1 leaves it out.
duckdb_version=2.0.1
if [ "${SKIP_DUCKDB:-0}" != 1 ] && ! "$root/.venv/bin/python" -c "import duckdb, sys; sys.exit(duckdb.__version__ != '$duckdb_version')" 2>/dev/null; then
  log "installing duckdb $duckdb_version for the command's contract test (.venv/, pip)"
  if ! python3 -m venv "$root/.venv" 2>/dev/null; then
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq && apt-get install -y -qq --no-install-recommends python3-venv >/dev/null
    python3 -m venv "$root/.venv"
  fi
  "$root/.venv/bin/python" -m pip install -q --disable-pip-version-check "duckdb==$duckdb_version"
fi

log "ready (wasm-pack $(wasm-pack --version | awk '{print $2}'), wasm-bindgen $(wasm-bindgen --version | awk '{print $2}'), node $(node --version))"
