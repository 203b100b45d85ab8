#!/usr/bin/env bash
# The command's benchmark (BENCHMARKS.md, "The promptfold command"): `report` over a generated
# fleet, plain and zstd, against the floors `cat` and `zstd -dc` and a jq pipeline a user would
# script instead; peak RSS of each run; medians of RUNS runs (default 3), interleaved.
#
#   bash bench/cli/run.sh DIR [RUNS]   # DIR/plain (node bench/cli/gen.mjs DIR/plain ...) must
#                                      # exist; DIR/zstd is made from it when missing
# Needs jq, zstd, GNU time (/usr/bin/time). Builds the command with the `fast` profile.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
dir=${1:?usage: bench/cli/run.sh DIR [RUNS]}
runs=${2:-3}
export PATH="$HOME/.cargo/bin:$PATH"

(cd "$root" && cargo build --quiet --profile fast -p promptfold-cli)
promptfold="$root/target/fast/promptfold"

if [ ! -d "$dir/zstd" ]; then
  echo "bench: compressing $dir/plain into $dir/zstd (zstd -3)"
  (cd "$dir/plain" && find . -name '*.jsonl' | while read -r file; do
    mkdir -p "$dir/zstd/$(dirname "$file")"
    zstd -q -3 "$file" -o "$dir/zstd/$file.zstd"
  done)
fi
plain_bytes=$(find "$dir/plain" -name '*.jsonl' -print0 | du -cb --files0-from=- | tail -1 | cut -f1)
zstd_bytes=$(find "$dir/zstd" -name '*.zstd' -print0 | du -cb --files0-from=- | tail -1 | cut -f1)
files=$(find "$dir/plain" -name '*.jsonl' | wc -l)
echo "bench: $files sessions, $plain_bytes bytes plain, $zstd_bytes bytes zstd; $(nproc) cores"

# One timed run: prints "seconds peak-kB".
timed() {
  /usr/bin/time -f '%e %M' -o /tmp/promptfold-bench-time "$@" > /dev/null 2> /dev/null || true
  cat /tmp/promptfold-bench-time
}

jq_sum() {
  find "$1" -name '*.jsonl' -print0 |
    xargs -0 -n 1 -P "$(nproc)" jq -n '[inputs | .data.message.usage.cacheReadTokens? // empty] | add'
}
export -f jq_sum

declare -A results
cases=(cat zstd-dc report-plain report-zstd jq)
for run in $(seq "$runs"); do
  for name in "${cases[@]}"; do
    case "$name" in
      cat) line=$(timed bash -c "find '$dir/plain' -name '*.jsonl' -print0 | xargs -0 cat") ;;
      zstd-dc) line=$(timed bash -c "find '$dir/zstd' -name '*.zstd' -print0 | xargs -0 zstd -dcq") ;;
      report-plain) line=$(timed "$promptfold" report "$dir/plain" --format jsonl --quiet) ;;
      report-zstd) line=$(timed "$promptfold" report "$dir/zstd" --format jsonl --quiet) ;;
      jq) line=$(timed bash -c "jq_sum '$dir/plain'") ;;
    esac
    echo "run $run $name: $line"
    results[$name]+="$line"$'\n'
  done
done

echo
printf '%-14s %10s %10s %12s\n' case "median s" "GB/s" "peak RSS MB"
for name in "${cases[@]}"; do
  median=$(printf '%s' "${results[$name]}" | awk 'NF { print $1 }' | sort -n | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }')
  rss=$(printf '%s' "${results[$name]}" | awk 'NF { print $2 }' | sort -n | tail -1)
  rate=$(awk -v b="$plain_bytes" -v s="$median" 'BEGIN { printf "%.2f", b / s / 1e9 }')
  printf '%-14s %10s %10s %12s\n' "$name" "$median" "$rate" $((rss / 1024))
done
echo "(GB/s: bytes of JSON lines, decompressed, per second; peak RSS: the largest of the runs, of the timed process)"
