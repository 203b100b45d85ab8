#!/usr/bin/env bash
# Refreshes tests/conformance/ from the shared case set (default: ../shared/conformance).
# Usage: scripts/sync-conformance.sh [SOURCE_DIR]
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
source_dir=${1:-$root/../shared/conformance}
if [ ! -f "$source_dir/FORMAT.md" ]; then
  echo "sync-conformance: $source_dir does not look like a conformance case set (no FORMAT.md)" >&2
  exit 1
fi
rm -rf "$root/tests/conformance"
mkdir -p "$root/tests/conformance"
cp -R "$source_dir/." "$root/tests/conformance/"
chmod -R u+w "$root/tests/conformance"
count=$(find "$root/tests/conformance" -name '*.json' | wc -l)
echo "sync-conformance: $count cases copied from $source_dir"
