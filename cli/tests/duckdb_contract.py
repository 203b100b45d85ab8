"""The JSON lines contract of `promptfold report`, checked in DuckDB (docs/cli.md).

A generated fleet is split into shards; each shard is reported on its own with
`--format jsonl` (as a fleet's object-storage prefixes would be, one job each), and SQL over
all the shards' rows must give the totals and the causes that one `--format json` run over the
whole fleet printed. Run by scripts/test with the .venv of scripts/setup.sh:

    .venv/bin/python cli/tests/duckdb_contract.py target/debug/promptfold

Ends with "N passed, N failed"; exit status 0 only when all passed.
"""

import json
import math
import os
import shutil
import subprocess
import sys
import tempfile

import duckdb

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
PROMPTFOLD = os.path.abspath(sys.argv[1]) if len(sys.argv) > 1 else os.path.join(ROOT, "target/debug/promptfold")

passed = 0
failed = 0


def check(name, condition, detail=""):
    global passed, failed
    if condition:
        passed += 1
        print(f"ok: {name}")
    else:
        failed += 1
        print(f"FAILED: {name} {detail}")


def same(a, b):
    if a is None or b is None:
        return a is None and b is None
    return math.isclose(float(a), float(b), rel_tol=1e-9, abs_tol=1e-9)


def report(args, fmt):
    out = subprocess.run(
        [PROMPTFOLD, "report", *args, "--format", fmt, "--quiet"],
        capture_output=True, text=True, check=False,
    )
    if out.returncode not in (0, 1):
        raise SystemExit(f"promptfold failed ({out.returncode}): {out.stderr}")
    return out.stdout


def main():
    work = tempfile.mkdtemp(prefix="promptfold-duckdb-")
    try:
        fleet = os.path.join(work, "fleet")
        subprocess.run(
            ["node", os.path.join(ROOT, "bench/cli/gen.mjs"), fleet, "--sessions", "24", "--bytes", "3e6", "--seed", "11"],
            check=True, capture_output=True,
        )
        # A bad file, so error rows travel through the contract too.
        with open(os.path.join(fleet, "-w-project-0", "broken.jsonl"), "w") as bad:
            bad.write("not json\n")
        prices = os.path.join(work, "prices.json")
        with open(prices, "w") as file:
            json.dump({"default": {"input": 0.27, "cacheRead": 0.07, "output": 1.1},
                       "models": {"deepseek-reasoner": {"input": 0.55, "cacheRead": 0.14, "output": 2.19}}}, file)

        whole = json.loads(report([fleet, "--prices", prices], "json"))

        scopes = sorted(os.listdir(fleet))
        shards = [scopes[0::2], scopes[1::2]]
        for index, shard in enumerate(shards):
            rows = report([os.path.join(fleet, scope) for scope in shard] + ["--prices", prices], "jsonl")
            with open(os.path.join(work, f"shard-{index}.jsonl"), "w") as file:
                file.write(rows)

        db = duckdb.connect()
        db.execute(
            f"CREATE TABLE rows AS SELECT * FROM read_json_auto('{work}/shard-*.jsonl', "
            "format='newline_delimited', union_by_name=true)"
        )
        check("every row carries schema version 1",
              db.execute("SELECT count(*) FROM rows WHERE schemaVersion <> 1").fetchone()[0] == 0)
        totals = whole["totals"]
        members = ["bytes", "events", "requests", "knownRequests", "totalTokens", "keptTokens", "newTokens",
                   "brokenTokens", "inputTokens", "outputTokens", "cacheReadTokens", "savedTokens",
                   "supersededTokens", "breaks", "cost"]
        sums = ", ".join(f"sum({member})" for member in members)
        got = db.execute(f"SELECT count(*), {sums} FROM rows WHERE record = 'session'").fetchone()
        check("one session row per session", got[0] == whole["counts"]["sessions"], f"{got[0]} vs {whole['counts']['sessions']}")
        for member, value in zip(members, got[1:]):
            check(f"sum({member}) equals the printed total", same(value, totals.get(member)), f"{value} vs {totals.get(member)}")

        kept, known_total = db.execute(
            "SELECT sum(keptTokens), sum(keptTokens + newTokens) FROM rows WHERE record = 'session'"
        ).fetchone()
        rate = kept / known_total if known_total else None
        check("the expected hit rate from the rows equals the printed one", same(rate, totals.get("expectedHitRate")),
              f"{rate} vs {totals.get('expectedHitRate')}")

        columns = {"route": "brokenRoute", "tools": "brokenTools", "system-rewrite": "brokenSystemRewrite",
                   "compaction": "brokenCompaction", "prune": "brokenPrune", "replacement": "brokenReplacement",
                   "series": "brokenSeries", "idle": "brokenIdle"}
        for cause in whole["causes"]:
            column = columns[cause["kind"]]
            broken, sessions = db.execute(
                f"SELECT sum({column}), count(*) FILTER (WHERE {column} > 0) FROM rows WHERE record = 'session'"
            ).fetchone()
            check(f"cause {cause['kind']}: broken tokens and sessions",
                  broken == cause["brokenTokens"] and sessions == cause["sessions"],
                  f"{broken}/{sessions} vs {cause['brokenTokens']}/{cause['sessions']}")
        ranked = [row[0] for row in db.execute(
            "SELECT kind FROM (" + " UNION ALL ".join(
                f"SELECT '{kind}' AS kind, sum({column}) AS broken FROM rows WHERE record = 'session'"
                for kind, column in columns.items()) +
            ") WHERE broken > 0 ORDER BY broken DESC, kind").fetchall()]
        check("causes ranked the same", ranked == [cause["kind"] for cause in whole["causes"] if cause["brokenTokens"] > 0],
              f"{ranked}")
        errors = db.execute("SELECT count(*) FROM rows WHERE record = 'error'").fetchone()[0]
        check("one error row per problem", errors == whole["counts"]["problems"] == 1, f"{errors}")
    finally:
        shutil.rmtree(work, ignore_errors=True)
    print(f"duckdb contract: {passed} passed, {failed} failed")
    sys.exit(1 if failed else 0)


main()
