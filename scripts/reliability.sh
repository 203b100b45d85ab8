#!/usr/bin/env bash
# Huge inputs and the soak, natively and through the JS API, with time and peak memory; writes
# bench/results/reliability.md (machine, commands, inputs, figures) and, when scripts/fuzz.sh has
# run, its last summary (target/fuzz/summary.md).
#
#   scripts/reliability.sh            everything (about 40 minutes on 2 cores)
#   scripts/reliability.sh --quick    smaller soak (100,000 events), no 1,000,000-event input
#   scripts/reliability.sh --report   only rewrite the report from the last run's results
#                                     (target/reliability/results.jsonl), e.g. after scripts/fuzz.sh
#
# Steps: 1. generate the inputs (node bench/js/huge.mjs generate target/huge: a 100 MB log with
# large tool results, a log of 1 MB prompts, 1,000,000 small events); 2. natively, each input in
# its own process (bench/native/huge.rs, #[ignore]d tests, release build) under /usr/bin/time; 3. through
# the JS API in node (bench/js/huge.mjs run), from JSON bytes (loadJson) and from JS values (load);
# 4. the soak (bench/js/soak.mjs): 1,000,000 appends of one event, bounded and growing windows.
# Environment: SOAK_EVENTS (default 1000000), SOAK_GROWING_VIEWS_EVERY (default 1000),
# RELIABILITY_NO_BUILD=1 (use pkg/node as it is), RELIABILITY_ONLY="soak-growing js-log-100mb-json"
# (rerun only these labels, keeping the other results of the last run).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
export PATH="$HOME/.cargo/bin:$PATH"

quick=0
report_only=0
for arg in "$@"; do
  case "$arg" in
    --quick) quick=1 ;;
    --report) report_only=1 ;;
    *) echo "reliability: unknown option $arg" >&2; exit 2 ;;
  esac
done
soak_events=${SOAK_EVENTS:-1000000}
growing_every=${SOAK_GROWING_VIEWS_EVERY:-1000}
[ "$quick" = 1 ] && soak_events=${SOAK_EVENTS:-100000}

work="$root/target/reliability"
inputs="$root/target/huge"
mkdir -p "$work" "$inputs"
results="$work/results.jsonl"
log() { printf 'reliability: %s\n' "$*"; }

# A JSON line of the command's wall time and max RSS (GNU time), after the command's own line.
timed() {
  local label=$1 kind=$2
  shift 2
  if [ -n "${RELIABILITY_ONLY:-}" ]; then
    case " $RELIABILITY_ONLY " in
      *" $label "*) grep -v "^{\"label\":\"$label\"," "$results" > "$results.tmp" || true; mv "$results.tmp" "$results" ;;
      *) return 0 ;;
    esac
  fi
  local out="$work/$label.out" status=0
  log "$label: $*"
  /usr/bin/time -f 'TIME {"wallS":%e,"maxRssKB":%M,"userS":%U,"sysS":%S}' -o "$work/$label.time" \
    timeout 3600 "$@" > "$out" 2>&1 || status=$?
  local line
  line=$(grep -E '^(HUGE|SOAK) |^\{"input"' "$out" | tail -n 1 | sed -E 's/^(HUGE|SOAK) //')
  [ -n "$line" ] || line='{}'
  node -e '
    const [label, kind, command, status, line, time] = process.argv.slice(1);
    const t = JSON.parse((time.match(/TIME (\{.*\})/) || [, "{}"])[1]);
    console.log(JSON.stringify({ label, kind, command, status: Number(status), ...JSON.parse(line), process: t }));
  ' "$label" "$kind" "$*" "$status" "$line" "$(cat "$work/$label.time")" >> "$results"
  if [ "$status" != 0 ]; then
    log "$label FAILED (exit $status); output in $out"
    tail -n 20 "$out"
  fi
}

measure() {
if [ -z "${RELIABILITY_ONLY:-}" ]; then
  : > "$results"
fi
touch "$results"
local commit
commit=$(git rev-parse --short HEAD)
if [ -n "$(git status --porcelain -- src)" ]; then commit="$commit plus uncommitted changes in src/"; fi
if [ -z "${RELIABILITY_ONLY:-}" ]; then
  printf 'measured: %s\ncommit: %s\n' "$(date -u +%Y-%m-%dT%H:%M:%SZ)" "$commit" > "$work/run.txt"
else
  echo "rerun of $RELIABILITY_ONLY: $(date -u +%Y-%m-%dT%H:%M:%SZ), commit $commit" >> "$work/run.txt"
fi

# 1. Inputs (regenerated when the generator changed).
if [ ! -f "$inputs/events-1m.json" ] || [ bench/js/huge.mjs -nt "$inputs/events-1m.json" ]; then
  log "generating inputs in target/huge"
  node bench/js/huge.mjs generate "$inputs" | tee "$work/generate.out"
else
  log "inputs in target/huge are up to date"
fi

# 2. Native.
log "building bench/native/huge.rs (release)"
cargo test --release --test huge --no-run --message-format=json > "$work/build.json"
bin=$(node -e '
  const lines = require("fs").readFileSync(process.argv[1], "utf8").split("\n").filter(Boolean).map(JSON.parse);
  const exe = lines.filter((m) => m.reason === "compiler-artifact" && m.target && m.target.name === "huge" && m.executable).pop();
  console.log(exe.executable);
' "$work/build.json")
native=(huge_prompt_1mb huge_log_100mb huge_parse_only_100mb)
[ "$quick" = 0 ] && native+=(huge_events_1m)
for test in "${native[@]}"; do
  PROMPTFOLD_HUGE_DIR="$inputs" timed "native-$test" native "$bin" --ignored --exact --nocapture "$test"
done

# 3. JS API in node: the package as scripts/build.sh builds it, copied so a concurrent build
# cannot swap it mid-run.
if [ "${RELIABILITY_NO_BUILD:-0}" != 1 ] || [ ! -f pkg/node/promptfold.js ]; then
  bash scripts/build.sh
fi
rm -rf "$work/pkg-node"
cp -rp pkg/node "$work/pkg-node"
echo "package: pkg/ built $(date -u -r pkg/web/promptfold_bg.wasm +%Y-%m-%dT%H:%M:%SZ), wasm $(wc -c < pkg/web/promptfold_bg.wasm) bytes" >> "$work/run.txt"
export PROMPTFOLD_PKG="$work/pkg-node"
js_inputs=(prompt-1mb log-100mb)
[ "$quick" = 0 ] && js_inputs+=(events-1m)
for input in "${js_inputs[@]}"; do
  for path in json values; do
    timed "js-$input-$path" js node --max-old-space-size=8192 bench/js/huge.mjs run "$inputs" "$input" "$path"
  done
done

# 4. Soak.
timed "soak-bounded" soak node --expose-gc bench/js/soak.mjs bounded "$soak_events" 1000
timed "soak-growing" soak node --expose-gc --max-old-space-size=8192 bench/js/soak.mjs growing "$soak_events" "$growing_every"
}
if [ "$report_only" = 0 ]; then
  measure
fi

# 5. The report.
node - "$results" "$root/bench/results/reliability.md" "$root/target/fuzz/summary.md" "$work/generate.out" "$work/run.txt" <<'EOF'
const fs = require("fs");
const os = require("os");
const { execSync } = require("child_process");
const [resultsPath, outPath, fuzzPath, generatePath, runPath] = process.argv.slice(2);
const run = fs.existsSync(runPath) ? fs.readFileSync(runPath, "utf8").trim().split("\n") : [];
const rows = fs.readFileSync(resultsPath, "utf8").split("\n").filter(Boolean).map(JSON.parse);
const sh = (cmd) => { try { return execSync(cmd, { encoding: "utf8" }).trim(); } catch { return "?"; } };
const mb = (kb) => (kb ? `${Math.round(kb / 1024)} MB` : "?");
const s = (ms) => (ms === undefined ? "" : ms >= 1000 ? `${(ms / 1000).toFixed(2)} s` : `${ms} ms`);
// Wall time, and CPU time when measured: on a shared machine the wall time overstates the work.
const wc = (r, key) => (r[`${key}Ms`] === undefined ? "" : r[`${key}CpuMs`] === undefined ? s(r[`${key}Ms`]) : `${s(r[`${key}Ms`])} (${s(Math.round(r[`${key}CpuMs`]))})`);
const ok = (r) => (r.status === 0 ? "ok" : `**FAILED (exit ${r.status})**`);
const out = [];
out.push("# Reliability: huge inputs, soak, fuzzing");
out.push("");
out.push(`Written by \`scripts/reliability.sh\` (report written ${new Date().toISOString()}).`);
out.push("");
out.push("## Machine");
out.push("");
out.push(`- CPU: ${sh("lscpu | sed -n 's/^Model name:[[:space:]]*//p'")}, ${os.cpus().length} cores (shared with other work while this ran: timings are upper bounds)`);
out.push(`- memory: ${Math.round(os.totalmem() / 2 ** 30)} GiB; ${sh("uname -sr")}; ${sh("rustc --version")}; node ${process.version}`);
for (const line of run) out.push(`- ${line}`);
out.push("");
out.push("## Inputs");
out.push("");
out.push("Generated by `node bench/js/huge.mjs generate target/huge` (method: docs/performance-notes.md, \"How the benchmark measures\"):");
out.push("");
try {
  out.push("| input | events | bytes | what |");
  out.push("| --- | --- | --- | --- |");
  const what = {
    "log-100mb": "\"large\" profile: tool results of 0.2-100 KB, 14 tools (about 7 KB of JSON) in every header, a 24 KB prompt",
    "prompt-1mb": "1 MiB system prompts (two text blocks each): the initial one, in-history updates, head rewrites and re-appends after compactions",
    "events-1m": "\"small\" profile: 1,000,000 short events, 1 tool per header, a 2 KB prompt",
  };
  for (const line of fs.readFileSync(generatePath, "utf8").split("\n").filter((l) => l.startsWith("{"))) {
    const g = JSON.parse(line);
    out.push(`| ${g.generated} | ${g.events.toLocaleString("en")} | ${g.bytes.toLocaleString("en")} | ${what[g.generated] ?? ""} |`);
  }
} catch {
  out.push("(the inputs were generated by an earlier run)");
}
out.push("");
out.push("## Native (release build, `bench/native/huge.rs`)");
out.push("");
out.push("Times are wall (CPU); method: docs/performance-notes.md, \"How the benchmark measures\".");
out.push("");
out.push("| input | result | read | load_json | views() | state_at every event | prepend half | appends, one per call | peak RSS after load | retained | process max RSS | wall |");
out.push("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |");
for (const r of rows.filter((r) => r.kind === "native" && r.loadJsonMs !== undefined)) {
  out.push(`| ${r.input} (${(r.events ?? 0).toLocaleString("en")} events) | ${ok(r)} | ${wc(r, "read")} | ${wc(r, "loadJson")} | ${wc(r, "views")} | ${wc(r, "stateAtEveryEvent")} | ${wc(r, "prependHalf")} | ${wc(r, "appendOneByOne")}, ${r.appendMicrosPerEvent} µs each | ${r.peakRssMB_afterLoad} MB | ${r.rssMB_afterViews} MB | ${mb(r.process?.maxRssKB)} | ${r.process?.wallS} s (CPU ${(r.process?.userS + r.process?.sysS).toFixed(2)} s) |`);
}
for (const r of rows.filter((r) => r.kind === "native" && r.parseMs !== undefined)) {
  out.push("");
  out.push(`\`parse_events\` alone on ${r.input.replace(/ .*/, "")}: ${wc(r, "parse")}, peak RSS ${r.peakRssMB_afterParse} MB (${ok(r)}).`);
}
for (const r of rows.filter((r) => r.kind === "native" && r.status !== 0)) {
  out.push("");
  out.push(`**${r.label} failed** (exit ${r.status}): \`${r.command}\`; see target/reliability/${r.label}.out.`);
}
out.push("");
out.push("## JS API in node (`bench/js/huge.mjs`, the release package)");
out.push("");
out.push("Times are wall (CPU of the node process); method: docs/performance-notes.md, \"How the benchmark measures\".");
out.push("");
out.push("| input | path | result | JSON.parse | load | views() | chat cards | requests | wasm memory | JS heap used (views alive) | peak RSS | wall |");
out.push("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |");
for (const r of rows.filter((r) => r.kind === "js")) {
  const [, input, path] = r.label.match(/^js-(.*)-(json|values)$/) ?? [];
  out.push(`| ${input} | ${path} | ${ok(r)} | ${wc(r, "jsonParse")} | ${wc(r, "load")} | ${wc(r, "views")} | ${r.chatCards ?? ""} | ${r.requests ?? ""} | ${r.wasmMemoryMB ?? "?"} MB | ${r.jsHeapUsedMB ?? "?"} MB | ${mb(r.process?.maxRssKB)} | ${r.process?.wallS} s (CPU ${(r.process?.userS + r.process?.sysS).toFixed(2)} s) |`);
}
out.push("");
out.push("## Soak (`bench/js/soak.mjs`)");
out.push("");
out.push("Method: docs/performance-notes.md, \"How the benchmark measures\".");
out.push("");
for (const r of rows.filter((r) => r.kind === "soak")) {
  out.push(`### ${r.variant ?? r.label}: \`${r.command}\` (${ok(r)})`);
  out.push("");
  if (r.events === undefined) { out.push("No summary: see target/reliability/" + r.label + ".out."); out.push(""); continue; }
  out.push(`- ${r.events.toLocaleString("en")} appends, views() every ${r.viewsEvery.toLocaleString("en")} (${r.viewsCalls} calls), total ${r.totalS} s wall, ${r.cpuS} s CPU; append ${r.appendMicrosPerEvent} µs per event (JS call, JSON.stringify of the event, fold, change report back to JS); views() ${r.viewsMsAvg} ms on average, ${r.viewsMsLast} ms on the final window${r.reloads ? `; ${r.reloads} reloads of ${r.keep.toLocaleString("en")} events, ${r.reloadMsAvg} ms each` : ""}.`);
  out.push(`- after warm-up (${r.warm.appended.toLocaleString("en")} appends, ${r.warm.retained.toLocaleString("en")} events kept): wasm ${r.warm.wasmMB} MB, JS heap ${r.warm.heapUsedMB} MB, RSS ${r.warm.rssMB} MB`);
  out.push(`- at the end (${r.end.appended.toLocaleString("en")} appends, ${r.end.retained.toLocaleString("en")} events kept): wasm ${r.end.wasmMB} MB, JS heap ${r.end.heapUsedMB} MB, RSS ${r.end.rssMB} MB; wasm growth after warm-up ${r.wasmGrowthAfterWarmMB} MB, JS heap growth ${r.heapGrowthAfterWarmMB} MB; process max RSS ${mb(r.process?.maxRssKB)}`);
  if (r.variant === "growing") {
    out.push(`- wasm bytes per retained event: ${r.wasmBytesPerEventWarmToMid} (warm-up to middle), ${r.wasmBytesPerEventMidToEnd} (middle to end), ${r.wasmBytesPerEventOverall} overall`);
  }
  out.push(`- samples [appended, kept, wasm MB, JS heap MB]: ${r.samples.map((x) => `[${x.join(", ")}]`).join(" ")}`);
  out.push("");
}
out.push("## Commands");
out.push("");
out.push("Each run under `/usr/bin/time` (process wall time and max RSS) and `timeout 3600`; outputs in target/reliability/.");
out.push("");
for (const r of rows) out.push(`- ${r.label}: \`${r.command.replace(/^.*\/target\/release\/deps\/huge-[0-9a-f]+/, "cargo test --release --test huge --").replace(/\/[^ ]*\/target\/huge/, "target/huge")}\``);
out.push("");
const historyPath = require("path").join(require("path").dirname(fuzzPath), "history.md");
if (fs.existsSync(historyPath)) {
  out.push("## Fuzzing (`scripts/fuzz.sh` runs on this machine)");
  out.push("");
  out.push("From target/fuzz/history.md (method: docs/performance-notes.md, \"How the benchmark measures\").");
  out.push("");
  out.push(fs.readFileSync(historyPath, "utf8").trim());
} else if (fs.existsSync(fuzzPath)) {
  out.push("## Fuzzing (last `scripts/fuzz.sh` run)");
  out.push("");
  out.push(`From target/fuzz/summary.md (${fs.statSync(fuzzPath).mtime.toISOString()}); one libFuzzer process per target, one target at a time, address sanitizer and debug assertions (overflow checks) on.`);
  out.push("");
  out.push(fs.readFileSync(fuzzPath, "utf8").trim());
} else {
  out.push("## Fuzzing");
  out.push("");
  out.push("scripts/fuzz.sh has not run on this machine.");
}
out.push("");
fs.mkdirSync(require("path").dirname(outPath), { recursive: true });
fs.writeFileSync(outPath, out.join("\n"));
console.log(`reliability: wrote ${outPath}`);
EOF
failed=$(node -e 'const rows = require("fs").readFileSync(process.argv[1], "utf8").split("\n").filter(Boolean).map(JSON.parse); console.log(rows.filter((r) => r.status !== 0).map((r) => r.label).join(" "))' "$results")
if [ -n "$failed" ]; then
  log "FAILED: $failed"
  exit 1
fi
log "all runs ok"
