#!/usr/bin/env bash
# Runs each cargo-fuzz target (fuzz/fuzz_targets/) for SECONDS (default 60), one after the other,
# starting from the committed seed corpus (fuzz/corpus-seed/<target>/, copied into the working
# corpus fuzz/corpus/<target>/, which is gitignored and grows across runs). Exits non-zero when a
# target crashes (panic, failed invariant, out of memory over -rss_limit_mb, timeout); libFuzzer
# writes the input to fuzz/artifacts/<target>/.
#   scripts/fuzz.sh [SECONDS]           every target
#   FUZZ_TARGETS="operations" scripts/fuzz.sh 600
#   FUZZ_ARGS="-len_control=0" scripts/fuzz.sh 600     extra libFuzzer flags for every target
# Needs the nightly toolchain and cargo-fuzz (installed here when missing, at a pinned version).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root/fuzz"
export PATH="$HOME/.cargo/bin:$PATH"

seconds=${1:-60}
case "$seconds" in
  '' | *[!0-9]*) echo "fuzz: SECONDS must be a whole number, got $seconds" >&2; exit 2 ;;
esac
targets=${FUZZ_TARGETS:-json_text operations}

cargo_fuzz_version=0.13.2
if ! rustup toolchain list | grep -q '^nightly'; then
  rustup toolchain install nightly --profile minimal
fi
if ! cargo fuzz --version 2>/dev/null | grep -q " $cargo_fuzz_version\$"; then
  cargo install cargo-fuzz --version "$cargo_fuzz_version" --locked
fi

# One build for every target: release, with debug assertions and so overflow checks (-a), and
# the address sanitizer (cargo-fuzz's default). `run` below uses the same flags, so no rebuild.
cargo +nightly fuzz build -a

# Each run's output goes to target/fuzz/<target>.log, and a summary (command, duration,
# executions, result) to target/fuzz/summary.md; every run also adds its rows, with date and
# commit, to target/fuzz/history.md, which scripts/reliability.sh copies into
# bench/results/reliability.md.
logs="$root/target/fuzz"
mkdir -p "$logs"
summary="$logs/summary.md"
history="$logs/history.md"
header="| target | command | duration | executions | exec/s | peak RSS | corpus | result |
| --- | --- | --- | --- | --- | --- | --- | --- |"
echo "$header" > "$summary.tmp"
if [ ! -f "$history" ]; then
  {
    echo "| started (UTC) | commit | target | command | duration | executions | exec/s | peak RSS | corpus | result |"
    echo "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |"
  } > "$history"
fi
commit=$(cd "$root" && git rev-parse --short HEAD 2>/dev/null || echo '?')
[ -n "$(cd "$root" && git status --porcelain -- src 2>/dev/null)" ] && commit="$commit + uncommitted src/"

status=0
for target in $targets; do
  corpus="corpus/$target"
  mkdir -p "$corpus" "artifacts/$target"
  cp -n "corpus-seed/$target"/* "$corpus"/ 2>/dev/null || true
  echo "fuzz: $target for ${seconds}s (corpus $(find "$corpus" -type f | wc -l) files)"
  start=$SECONDS
  started=$(date -u +%Y-%m-%dT%H:%MZ)
  extra=()
  [ -f "$target.dict" ] && extra+=("-dict=fuzz/$target.dict")
  # shellcheck disable=SC2206 # FUZZ_ARGS is a list of flags, split on spaces.
  [ -n "${FUZZ_ARGS:-}" ] && extra+=(${FUZZ_ARGS})
  args=(-max_total_time="$seconds" -rss_limit_mb=4096 -timeout=60 -print_final_stats=1 "${extra[@]}")
  log="$logs/$target.log"
  # One fuzzing process (libFuzzer's default; -jobs=1 would fork a worker logging to a file).
  if (cd "$root" && cargo +nightly fuzz run --fuzz-dir fuzz -a "$target" "fuzz/$corpus" -- "${args[@]}") > "$log" 2>&1; then
    result=ok
  else
    result="FAILED (see fuzz/artifacts/$target/)"
    status=1
  fi
  elapsed=$((SECONDS - start))
  tail -n 8 "$log"
  stat() { awk -v k="stat::$1:" '$1 == k { print $2 }' "$log"; }
  echo "fuzz: $target $result after ${elapsed}s, $(stat number_of_executed_units) executions"
  row="| \`$target\` | \`cargo +nightly fuzz run -a $target fuzz/$corpus -- ${args[*]}\` | ${elapsed} s | $(stat number_of_executed_units) | $(stat average_exec_per_sec) | $(stat peak_rss_mb) MB | $(find "$corpus" -type f | wc -l) files | $result |"
  echo "$row" >> "$summary.tmp"
  echo "| $started | $commit $row" >> "$history"
done
mv "$summary.tmp" "$summary"
echo "fuzz: summary in target/fuzz/summary.md"
exit "$status"
