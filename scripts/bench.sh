#!/usr/bin/env bash
# Benchmarks promptfold against the upstream-style JavaScript baseline (bench/js/baseline/) and
# writes BENCHMARKS.md. Everything runs here, from generated inputs; nothing is hard-coded.
#   scripts/bench.sh           everything (about 4 to 5 minutes on a 2-core machine)
#   scripts/bench.sh --quick   3 runs instead of 5
#   scripts/bench.sh --build   rebuild pkg/ (scripts/build.sh) first, even if it looks current
#   scripts/bench.sh --assemble  only rebuild BENCHMARKS.md from bench/results/ and bench/notes/
# Steps: build pkg/ when missing or older than src/ or Cargo.*; check the baseline against the
# shared cases; generate the workloads (bench/data/, once per generator version); build the
# native benchmark; run bench/js/run.mjs (writes bench/results/performance.md, raw.json and
# time-vs-size.svg); assemble BENCHMARKS.md from bench/results/performance.md followed by
# bench/results/reliability.md when that file exists, then the hand-kept sections of
# bench/notes/ (never rewritten here).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
export PATH="$HOME/.cargo/bin:$PATH"
start=$(date +%s)
export BENCH_START_MS=$((start * 1000))

build=0
assemble_only=0
run_args=()
for arg in "$@"; do
  case "$arg" in
    --quick) run_args+=(--quick) ;;
    --build) build=1 ;;
    --assemble) assemble_only=1 ;;
    *) echo "bench: unknown option $arg" >&2; exit 2 ;;
  esac
done

if [ "$assemble_only" = 0 ]; then
  wasm=pkg/web/promptfold_bg.wasm
  if [ "$build" = 1 ] || [ ! -f "$wasm" ] || [ ! -f pkg/node/promptfold_wasm.js ] ||
    [ -n "$(find src Cargo.toml Cargo.lock -newer "$wasm" -print -quit)" ]; then
    echo "bench: building pkg/ (scripts/build.sh)"
    bash scripts/build.sh
  fi

  echo "bench: checking the baseline against the shared cases"
  if [ -d "$root/../shared/conformance" ] && [ -z "${CONFORMANCE_DIR:-}" ]; then
    export CONFORMANCE_DIR="$root/../shared/conformance"
  fi
  node bench/js/baseline/check.mjs

  echo "bench: generating workloads (bench/data/)"
  node bench/js/gen.mjs

  echo "bench: building the native benchmark"
  cargo bench --jobs 1 --bench fold --no-run 2>&1 | tail -n 1

  node bench/js/run.mjs "${run_args[@]}"
  node bench/js/session-logs.mjs "${run_args[@]}"
fi

{
  sed 's|](time-vs-size.svg)|](bench/results/time-vs-size.svg)|' bench/results/performance.md
  echo
  cat bench/results/session-logs.md
  echo
  cat bench/results/structures.md
  if [ -f bench/results/reliability.md ]; then
    echo
    cat bench/results/reliability.md
  fi
  # The sections measured by hand or by other scripts (bench/notes/README.md), in name order.
  for notes in bench/notes/[0-9]*.md; do
    [ -f "$notes" ] || continue
    echo
    cat "$notes"
  done
} > BENCHMARKS.md

echo "bench: wrote BENCHMARKS.md ($(($(date +%s) - start)) s in all)"
