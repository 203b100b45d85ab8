#!/usr/bin/env bash
# Copies the demo's zstd decoder (npm package fzstd, a root devDependency installed by
# scripts/setup.sh) into www/vendor/, which the page loads when a compressed log is opened.
# Why fzstd: docs/demo-zstd.md. Run by scripts/demo.sh; www/vendor/ is not committed.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
source_dir="$root/node_modules/fzstd"
[ -f "$source_dir/esm/index.mjs" ] || { echo "vendor-zstd: $source_dir is missing; run bash scripts/setup.sh (npm ci)" >&2; exit 1; }
mkdir -p "$root/www/vendor"
cp "$source_dir/esm/index.mjs" "$root/www/vendor/fzstd.mjs"
cp "$source_dir/LICENSE" "$root/www/vendor/fzstd.LICENSE"
version=$(node -p "require('$source_dir/package.json').version")
echo "vendor-zstd: www/vendor/fzstd.mjs from fzstd $version"
