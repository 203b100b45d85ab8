//! Every class of bad input in one folder with good files: the good ones are fully reported,
//! each bad one is named once (stderr and the `errors` list), and the exit status is 1.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic,
    clippy::arithmetic_side_effects
)]

mod common;

use common::{example, json, put, run, run_in, zstd};
use serde_json::Value;

/// A session file of two zstd frames whose second frame is cut short.
fn cut_in_second_frame() -> Vec<u8> {
    let text = example("session.jsonl");
    let lines: Vec<&[u8]> = text.split_inclusive(|b| *b == b'\n').collect();
    let half = lines.len() / 2;
    let mut bytes = zstd(&lines[..half].concat());
    let second = zstd(&lines[half..].concat());
    bytes.extend_from_slice(&second[..second.len() / 2]);
    bytes
}

#[test]
fn every_bad_input_class_is_named_once_and_the_good_files_are_reported() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    // Good: a harness folder with an older version and a lock file beside the newest.
    put(
        root,
        "sessions/app/s-1/session.v4.jsonl",
        &example("session.jsonl"),
    );
    put(
        root,
        "sessions/app/s-1/session.v3.jsonl",
        b"not read: an older version\n",
    );
    put(root, "sessions/app/s-1/session.v4.jsonl.lock", b"");
    put(
        root,
        "sessions/app/s-1/session.v4.jsonl.bak",
        b"not read: a backup\n",
    );
    put(
        root,
        "sessions/app/s-2/session.v4.jsonl.zstd",
        &zstd(&example("seqless.jsonl")),
    );
    // Torn last line: reported with the rows before it.
    put(
        root,
        "sessions/app/s-3/session.v4.jsonl",
        &example("torn.jsonl"),
    );
    // Bad.
    put(
        root,
        "sessions/other/notes.jsonl",
        b"{\"a\":1}\n{\"b\":2}\n",
    );
    put(
        root,
        "sessions/other/picture.jsonl",
        &[0x89, b'P', b'N', b'G', 0, 1, 2, 0xff, b'\n'],
    );
    put(root, "sessions/other/empty.jsonl", b"");
    put(
        root,
        "sessions/app/s-4/session.v4.jsonl",
        &example("format2.jsonl"),
    );
    put(
        root,
        "sessions/app/s-5/session.v4.jsonl.zstd",
        &cut_in_second_frame(),
    );
    let mut garbage = zstd(b"{\"type\":\"session\"}\n")[..6].to_vec();
    garbage.extend_from_slice(&[0x55; 40]);
    put(root, "sessions/app/s-6/session.v4.jsonl.zstd", &garbage);
    let mut bad_row = example("session.jsonl");
    bad_row.extend_from_slice(b"{\"seq\":1,\"time\":1,\"type\":\"turn/start\",\"data\":{}}\n");
    bad_row.extend_from_slice(b"{\"seq\":90,\"time\":1,\"type\":\"turn/start\",\"data\":{}}\n");
    put(root, "sessions/app/s-7/session.v4.jsonl", &bad_row);
    std::os::unix::fs::symlink(
        root.join("nowhere.jsonl"),
        root.join("sessions/other/gone.jsonl"),
    )
    .unwrap();
    std::os::unix::fs::symlink(root.join("sessions"), root.join("sessions/app/loop")).unwrap();

    let out = run_in(root, &["report", "sessions", "--format", "json", "--quiet"]);
    assert_eq!(out.code, 1, "{}", out.stderr);
    let report = json(&out);

    let mut rows: Vec<(String, bool, bool)> = report["sessions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|row| {
            (
                row["path"].as_str().unwrap().to_string(),
                row["tornTail"].as_bool().unwrap(),
                row["incomplete"].as_bool().unwrap(),
            )
        })
        .collect();
    rows.sort();
    let expected_rows = vec![
        (
            "sessions/app/s-1/session.v4.jsonl".to_string(),
            false,
            false,
        ),
        (
            "sessions/app/s-2/session.v4.jsonl.zstd".to_string(),
            false,
            false,
        ),
        ("sessions/app/s-3/session.v4.jsonl".to_string(), true, false),
        (
            "sessions/app/s-5/session.v4.jsonl.zstd".to_string(),
            false,
            true,
        ),
    ];
    assert_eq!(rows, expected_rows);

    let mut errors: Vec<(String, String, bool)> = report["errors"]
        .as_array()
        .unwrap()
        .iter()
        .map(|problem| {
            (
                problem["path"].as_str().unwrap().to_string(),
                problem["kind"].as_str().unwrap().to_string(),
                problem["reported"].as_bool().unwrap(),
            )
        })
        .collect();
    errors.sort();
    let expected_errors: Vec<(String, String, bool)> = [
        ("sessions/app/loop", "directory-loop", false),
        ("sessions/app/s-3/session.v4.jsonl", "torn-tail", true),
        (
            "sessions/app/s-4/session.v4.jsonl",
            "unsupported-version",
            false,
        ),
        (
            "sessions/app/s-5/session.v4.jsonl.zstd",
            "corrupt-zstd",
            true,
        ),
        (
            "sessions/app/s-6/session.v4.jsonl.zstd",
            "corrupt-zstd",
            false,
        ),
        ("sessions/app/s-7/session.v4.jsonl", "bad-event", false),
        ("sessions/other/empty.jsonl", "not-a-session-log", false),
        ("sessions/other/gone.jsonl", "unreadable", false),
        ("sessions/other/notes.jsonl", "not-a-session-log", false),
        ("sessions/other/picture.jsonl", "not-a-session-log", false),
    ]
    .iter()
    .map(|(path, kind, reported)| (path.to_string(), kind.to_string(), *reported))
    .collect();
    assert_eq!(errors, expected_errors);

    // Each problem is named once on stderr too (--quiet keeps them).
    for (path, kind, _) in &expected_errors {
        let named = out
            .stderr
            .lines()
            .filter(|line| line.contains(&format!("{path}: {kind}")))
            .count();
        assert_eq!(named, 1, "{path} {kind}:\n{}", out.stderr);
    }
    assert_eq!(
        out.stderr.lines().count(),
        expected_errors.len(),
        "{}",
        out.stderr
    );

    let counts = &report["counts"];
    assert_eq!(counts["sessions"], Value::from(4));
    assert_eq!(counts["problems"], Value::from(10));
    assert_eq!(counts["failed"], Value::from(8));
    // The older version, the lock file and the backup.
    assert_eq!(counts["skippedFiles"], Value::from(3));

    // The good files are reported whole: the same figures as on their own.
    let alone = json(&run(&[
        "report",
        "examples/sessions/session.jsonl",
        "--format",
        "json",
    ]));
    let s1 = report["sessions"]
        .as_array()
        .unwrap()
        .iter()
        .find(|row| row["path"] == "sessions/app/s-1/session.v4.jsonl")
        .unwrap();
    for member in [
        "events",
        "requests",
        "totalTokens",
        "keptTokens",
        "brokenTokens",
        "bytes",
    ] {
        assert_eq!(s1[member], alone["sessions"][0][member], "{member}");
    }
    // The part of the cut stream before the damage: its first frame's rows.
    let s5 = report["sessions"]
        .as_array()
        .unwrap()
        .iter()
        .find(|row| row["path"] == "sessions/app/s-5/session.v4.jsonl.zstd")
        .unwrap();
    let whole = alone["sessions"][0]["events"].as_u64().unwrap();
    let part = s5["events"].as_u64().unwrap();
    assert!(part > 0 && part < whole, "{part} of {whole}");
}

#[test]
fn a_batch_of_good_files_exits_0_and_a_usage_error_exits_2() {
    let dir = tempfile::tempdir().unwrap();
    put(
        dir.path(),
        "a/s/session.v4.jsonl",
        &example("session.jsonl"),
    );
    assert_eq!(run_in(dir.path(), &["report", "a", "--quiet"]).code, 0);
    // A torn tail alone still exits 0: the file was read, the rows before the cut reported.
    put(dir.path(), "b/s/session.v4.jsonl", &example("torn.jsonl"));
    assert_eq!(run_in(dir.path(), &["report", "b", "--quiet"]).code, 0);
    assert_eq!(run_in(dir.path(), &["report"]).code, 2);
    assert_eq!(
        run_in(dir.path(), &["report", "a", "--format", "xml"]).code,
        2
    );
    assert_eq!(
        run_in(dir.path(), &["report", "a", "--since", "yesterday"]).code,
        2
    );
    assert_eq!(
        run_in(dir.path(), &["report", "a", "--prices", "missing.json"]).code,
        2
    );
    put(
        dir.path(),
        "bad-prices.json",
        b"{\"default\":{\"input\":-1,\"cacheRead\":0,\"output\":1}}",
    );
    assert_eq!(
        run_in(dir.path(), &["report", "a", "--prices", "bad-prices.json"]).code,
        2
    );
    assert_eq!(run_in(dir.path(), &["show", "missing.jsonl"]).code, 1);
    // A thread count past the cap is refused before any thread starts (-j 100000 used to
    // spawn threads for minutes, the machine's load average in the hundreds). 1025 first: on a
    // build without the cap it fails there, in seconds.
    assert_eq!(
        run_in(dir.path(), &["report", "a", "-q", "-j", "1025"]).code,
        2
    );
    let jobs = run_in(dir.path(), &["report", "a", "--quiet", "--jobs", "100000"]);
    assert_eq!(jobs.code, 2, "{}", jobs.stderr);
    assert!(jobs.stderr.contains("--jobs"), "{}", jobs.stderr);
    assert_eq!(
        run_in(dir.path(), &["report", "a", "-q", "-j", "2"]).code,
        0
    );
    // No threads at all is no setting either (it quietly meant one per core).
    let none = run_in(dir.path(), &["report", "a", "-q", "--jobs", "0"]);
    assert_eq!(none.code, 2, "{}", none.stderr);
    assert!(none.stderr.contains("1..=1024"), "{}", none.stderr);
    assert_eq!(run_in(dir.path(), &["--help"]).code, 0);
    let help = run_in(dir.path(), &["report", "--help"]);
    assert!(help.stdout.contains("Examples:") && help.stdout.contains("Exit status"));
}

#[test]
fn a_prices_file_with_an_unknown_member_is_a_usage_error_that_names_it() {
    let dir = tempfile::tempdir().unwrap();
    put(
        dir.path(),
        "a/s/session.v4.jsonl",
        &example("cache-breaks.jsonl"),
    );
    // Misspelled members used to be ignored: no cost anywhere, and nothing said why.
    for (prices, member) in [
        (
            r#"{"defaults":{"input":1,"cacheRead":0.1,"output":2}}"#,
            "defaults",
        ),
        (
            r#"{"default":{"input":1,"cacheRead":0.1,"output":2,"cachewrite":1.25}}"#,
            "cachewrite",
        ),
        (
            r#"{"models":{"m":{"input":1,"cacheRead":0.1,"output":2,"cache_read":0}}}"#,
            "cache_read",
        ),
    ] {
        put(dir.path(), "prices.json", prices.as_bytes());
        let report = run_in(dir.path(), &["report", "a", "--prices", "prices.json"]);
        assert_eq!(report.code, 2, "{prices}: {}", report.stderr);
        assert!(report.stdout.is_empty(), "{prices}");
        assert!(
            report.stderr.contains(&format!("`{member}`")),
            "{}",
            report.stderr
        );
        let show = run_in(
            dir.path(),
            &["show", "a/s/session.v4.jsonl", "--prices", "prices.json"],
        );
        assert_eq!(show.code, 2, "{prices}: {}", show.stderr);
    }
    // A price that is not a number is named in JSON's words, not Rust's ("expected f64").
    put(
        dir.path(),
        "prices.json",
        br#"{"default":{"input":"3","cacheRead":0.1,"output":2}}"#,
    );
    let report = run_in(dir.path(), &["report", "a", "--prices", "prices.json"]);
    assert_eq!(report.code, 2);
    assert!(
        report.stderr.contains("expected a number") && !report.stderr.contains("f64"),
        "{}",
        report.stderr
    );
    // A file that is not an object of prices at all.
    put(dir.path(), "prices.json", b"[]");
    assert_eq!(
        run_in(dir.path(), &["report", "a", "--prices", "prices.json"]).code,
        2
    );
    // The members as documented, `cacheWrite` included, still give the money columns.
    put(
        dir.path(),
        "prices.json",
        br#"{"default":{"input":1,"cacheRead":0.1,"cacheWrite":1.25,"output":2},"models":{"m":{"input":1,"cacheRead":0.1,"output":2}}}"#,
    );
    let good = run_in(
        dir.path(),
        &["report", "a", "--prices", "prices.json", "--format", "json"],
    );
    assert_eq!(good.code, 0, "{}", good.stderr);
    assert!(json(&good)["totals"]["cost"].as_f64().unwrap() > 0.0);
}

#[test]
fn control_characters_from_a_log_never_reach_the_terminal() {
    let dir = tempfile::tempdir().unwrap();
    // An id, a cwd and a tool name holding an escape sequence, a bell and a line end (JSON
    // escapes in the file): printed raw, they would recolour or retitle the terminal and break
    // the table's rows.
    let text = String::from_utf8(example("cache-breaks.jsonl")).unwrap();
    let text = text
        .replacen(
            "\"id\":\"sess-cache-breaks\"",
            "\"id\":\"sess\\u001b[31m\\nred\\u0007\"",
            1,
        )
        .replacen("\"cwd\":\"/w\"", "\"cwd\":\"/w\\u001b]0;owned\\u0007\"", 1)
        .replace("gh_pr_draft", "gh\\u001b[2Jpr");
    put(dir.path(), "a/s/session.v4.jsonl", text.as_bytes());
    let clean = |out: &str| !out.chars().any(|c| c.is_control() && c != '\n');

    let show = run_in(dir.path(), &["show", "a/s/session.v4.jsonl"]);
    assert_eq!(show.code, 0, "{}", show.stderr);
    assert!(clean(&show.stdout), "{:?}", show.stdout);
    let first = show.stdout.lines().next().unwrap();
    assert!(first.contains(r"sess\u{1b}[31m\nred\u{7}"), "{first}");
    assert!(first.contains(r"/w\u{1b}]0;owned\u{7}"), "{first}");
    assert!(show.stdout.contains(r"+gh\u{1b}[2Jpr"), "{}", show.stdout);

    let table = run_in(dir.path(), &["report", "a", "--quiet"]);
    assert_eq!(table.code, 0, "{}", table.stderr);
    assert!(clean(&table.stdout), "{:?}", table.stdout);
    // One row for the session: its line starts with the escaped id.
    let rows: Vec<&str> = table
        .stdout
        .lines()
        .filter(|line| line.starts_with("sess"))
        .collect();
    assert_eq!(rows.len(), 1, "{}", table.stdout);
    assert!(rows[0].starts_with(r"sess\u{1b}[31m\nr"), "{}", rows[0]);

    // A file name holding an escape sequence, named on stderr as a problem.
    put(dir.path(), "a/bad\u{1b}[31m.jsonl", b"not json\n");
    let problems = run_in(dir.path(), &["report", "a", "--quiet"]);
    assert_eq!(problems.code, 1, "{}", problems.stderr);
    assert!(clean(&problems.stderr), "{:?}", problems.stderr);
    assert!(
        problems.stderr.contains(r"bad\u{1b}[31m.jsonl"),
        "{}",
        problems.stderr
    );

    // The machine formats keep the text as it is (JSON escapes it; CSV quotes it).
    let json = json(&run_in(
        dir.path(),
        &["report", "a", "--quiet", "--format", "json"],
    ));
    assert_eq!(json["sessions"][0]["sessionId"], "sess\u{1b}[31m\nred\u{7}");
}

/// The reason `report` gave for `path`, from its JSON document.
fn reason_of<'a>(report: &'a Value, path: &str) -> &'a str {
    report["errors"]
        .as_array()
        .unwrap()
        .iter()
        .find(|problem| problem["path"] == path)
        .map_or("", |problem| problem["reason"].as_str().unwrap())
}

#[test]
fn binary_and_compressed_files_say_what_they_are_and_the_batch_goes_on() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    put(
        root,
        "logs/a/s-1/session.v4.jsonl",
        &example("session.jsonl"),
    );
    put(
        root,
        "logs/a/s-2/session.v4.jsonl.zstd",
        &zstd(&example("seqless.jsonl")),
    );
    // Binary files under names the walk reads.
    let gzip = [
        0x1f, 0x8b, 0x08, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x03, 0x2b,
    ];
    put(root, "logs/b/gzip.jsonl", &gzip);
    put(root, "logs/b/jpeg.jsonl", b"\xff\xd8\xff\xe0\0\x10JFIF\0");
    put(root, "logs/b/png.jsonl", b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR");
    put(root, "logs/b/nul.jsonl", b"\0\0\0\0\0\0\0\0");
    let mut state: u32 = 2_463_534_242;
    let random: Vec<u8> = (0..4096)
        .map(|_| {
            state ^= state << 13;
            state ^= state >> 17;
            state ^= state << 5;
            (state >> 24) as u8
        })
        .collect();
    put(root, "logs/b/random.jsonl", &random);
    // JSON lines under a zstd name.
    put(root, "logs/b/plain.jsonl.zst", &example("session.jsonl"));
    // Compressed with formats the command does not read, named on the command line.
    put(root, "other/s.jsonl.gz", &gzip);
    put(root, "other/s.jsonl.bz2", b"BZh91AY&SY\x01\x02\x03");
    put(root, "other/s.jsonl.xz", b"\xfd7zXZ\0\0\x04");

    let out = run_in(
        root,
        &[
            "report",
            "logs",
            "other/s.jsonl.gz",
            "other/s.jsonl.bz2",
            "other/s.jsonl.xz",
            "--format",
            "json",
            "--quiet",
        ],
    );
    assert_eq!(out.code, 1, "{}", out.stderr);
    let report = json(&out);
    // The good sessions are read whole.
    let mut paths: Vec<&str> = report["sessions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|row| row["path"].as_str().unwrap())
        .collect();
    paths.sort_unstable();
    assert_eq!(
        paths,
        [
            "logs/a/s-1/session.v4.jsonl",
            "logs/a/s-2/session.v4.jsonl.zstd"
        ]
    );
    assert_eq!(report["counts"]["failed"], Value::from(9));

    for (path, byte) in [
        ("logs/b/jpeg.jsonl", "0xff"),
        ("logs/b/png.jsonl", "0x89"),
        ("logs/b/nul.jsonl", "0x00"),
        ("logs/b/random.jsonl", "0x"),
    ] {
        let reason = reason_of(&report, path);
        assert!(
            reason.contains(&format!("byte {byte}")) && reason.contains("binary data?"),
            "{path}: {reason}"
        );
    }
    for (path, format, undo) in [
        ("logs/b/gzip.jsonl", "gzip", "gunzip"),
        ("other/s.jsonl.gz", "gzip", "gunzip"),
        ("other/s.jsonl.bz2", "bzip2", "bunzip2"),
        ("other/s.jsonl.xz", "xz", "unxz"),
    ] {
        let reason = reason_of(&report, path);
        assert!(
            reason.starts_with(&format!("{format}-compressed data")) && reason.contains(undo),
            "{path}: {reason}"
        );
    }
    let reason = reason_of(&report, "logs/b/plain.jsonl.zst");
    assert!(reason.contains("not zstd data"), "{reason}");
    // Each is named on stderr too, with its kind.
    for line in out.stderr.lines() {
        assert!(
            line.contains("not-a-session-log") || line.contains("corrupt-zstd"),
            "{line}"
        );
    }
    assert_eq!(out.stderr.lines().count(), 9, "{}", out.stderr);

    // `show` of a gzip file: status 1 and the same words.
    let shown = run_in(root, &["show", "other/s.jsonl.gz"]);
    assert_eq!(shown.code, 1);
    assert!(
        shown.stderr.contains("gzip-compressed data"),
        "{}",
        shown.stderr
    );
}

#[test]
fn counts_agree_with_their_nouns() {
    let dir = tempfile::tempdir().unwrap();
    put(
        dir.path(),
        "a/s-1/session.v4.jsonl",
        &example("session.jsonl"),
    );
    put(dir.path(), "a/s-2/session.jsonl", b"\0\0\0\0\n");
    let table = run_in(dir.path(), &["report", "a"]);
    assert_eq!(table.code, 1, "{}", table.stderr);
    assert!(
        table
            .stdout
            .contains("1 session from 1 file; 0 filtered out; 1 problem."),
        "{}",
        table.stdout
    );
    assert!(
        table.stderr.contains("promptfold: 1 session, ") && table.stderr.contains("; 1 problem\n"),
        "{}",
        table.stderr
    );
}

#[test]
fn a_path_with_no_session_log_is_named_and_a_run_that_found_none_exits_3() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(dir.path().join("empty")).unwrap();
    put(dir.path(), "notes/README.md", b"no session log here\n");
    put(dir.path(), "locks/s/session.v4.jsonl.lock", b"");
    put(
        dir.path(),
        "good/s/session.v4.jsonl",
        &example("session.jsonl"),
    );
    for (path, shown) in [
        ("empty", "empty"),
        ("notes", "notes"),
        ("locks", "locks"),
        ("empty/", "empty/"),
    ] {
        for format in ["table", "json", "jsonl", "csv"] {
            let nothing = run_in(dir.path(), &["report", path, "--format", format, "-q"]);
            assert_eq!(nothing.code, 3, "{path} {format}: {}", nothing.stderr);
            assert_eq!(
                nothing.stderr,
                format!("promptfold: no session logs found under {shown}\n"),
                "{path} {format}"
            );
        }
    }
    // The report of nothing is still well formed.
    let nothing = run_in(dir.path(), &["report", "empty", "--format", "json", "-q"]);
    assert_eq!(json(&nothing)["counts"]["sessions"], 0);
    // Beside a path that has logs, an empty one is named, and the run exits 0.
    let some = run_in(dir.path(), &["report", "good", "empty", "-q"]);
    assert_eq!(some.code, 0, "{}", some.stderr);
    assert_eq!(
        some.stderr,
        "promptfold: no session logs found under empty\n"
    );
    // A path that does not exist is unreadable (status 1), not also "no session logs".
    let missing = run_in(dir.path(), &["report", "missing", "-q"]);
    assert_eq!(missing.code, 1, "{}", missing.stderr);
    assert!(
        !missing.stderr.contains("no session logs found"),
        "{}",
        missing.stderr
    );
    // Every file filtered out by --since was still found and read: status 0, no such line.
    let filtered = run_in(
        dir.path(),
        &["report", "good", "--since", "2100-01-01", "-q"],
    );
    assert_eq!(filtered.code, 0, "{}", filtered.stderr);
    assert_eq!(filtered.stderr, "");
}

#[test]
fn a_torn_last_line_of_nul_or_binary_bytes_is_named_and_the_rows_before_it_shown() {
    let dir = tempfile::tempdir().unwrap();
    let mut nul = example("session.jsonl");
    nul.extend_from_slice(&[0; 16]);
    put(dir.path(), "nul.jsonl", &nul);
    let mut binary = example("session.jsonl");
    binary.extend_from_slice(b"{\"seq\": 9\x01\x02\x1b");
    put(dir.path(), "binary.jsonl", &binary);
    let mut text = example("session.jsonl");
    text.extend_from_slice(b"{\"seq\": 9, \"type\"");
    put(dir.path(), "text.jsonl", &text);

    for (file, words) in [
        ("nul.jsonl", "(16 bytes) is cut short and holds NUL bytes"),
        (
            "binary.jsonl",
            "(12 bytes) is cut short and holds binary data",
        ),
        ("text.jsonl", "(17 bytes) is cut short"),
    ] {
        let out = run_in(dir.path(), &["show", file, "--json"]);
        assert_eq!(out.code, 0, "{file}: {}", out.stderr);
        let shown: Value = serde_json::from_str(&out.stdout).unwrap();
        assert_eq!(shown["problem"]["kind"], "torn-tail", "{file}");
        let reason = shown["problem"]["reason"].as_str().unwrap_or_default();
        assert!(reason.contains(words), "{file}: {reason}");
        assert_eq!(
            reason.contains("holds"),
            file != "text.jsonl",
            "{file}: {reason}"
        );
    }
}
