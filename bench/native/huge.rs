//! Huge inputs, natively: a 100 MB JSON log, a log of 1 MB prompts, and 1,000,000 events. Each
//! test reads one file written by `node bench/js/huge.mjs generate DIR` (`PROMPTFOLD_HUGE_DIR`,
//! default `target/huge`), loads it with `Conversation::load_json`, takes `views()`, and prints one
//! JSON line of times (ms) and memory (MB, from /proc/self/status: VmHWM is the peak RSS so far).
//! They are `#[ignore]`d: `scripts/reliability.sh` generates the files and runs each test in its
//! own process, in release mode:
//!
//! ```sh
//! cargo test --release --test huge -- --ignored --exact --nocapture huge_log_100mb
//! ```
#![cfg(not(target_arch = "wasm32"))]
// Not library code: the panic lints of Cargo.toml's `[lints]` table do not apply here.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic,
    clippy::unreachable,
    clippy::todo,
    clippy::arithmetic_side_effects
)]

use std::path::PathBuf;
use std::time::Instant;

use promptfold::LoadOptions;
use promptfold::{parse_events, Conversation};
use serde_json::{json, Map, Value};

fn input(name: &str) -> PathBuf {
    let dir = std::env::var_os("PROMPTFOLD_HUGE_DIR").map_or_else(
        || PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("target/huge"),
        PathBuf::from,
    );
    let path = dir.join(format!("{name}.json"));
    assert!(
        path.exists(),
        "{} is missing: run scripts/reliability.sh, or node bench/js/huge.mjs generate {}",
        path.display(),
        dir.display()
    );
    path
}

/// A field of /proc/self/status in MB (`VmHWM`: peak RSS, `VmRSS`: current RSS).
fn status_mb(field: &str) -> f64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    status
        .lines()
        .find_map(|line| line.strip_prefix(field)?.strip_prefix(':'))
        .and_then(|rest| rest.split_whitespace().next()?.parse::<f64>().ok())
        .map_or(f64::NAN, |kb| (kb / 1024.0 * 10.0).round() / 10.0)
}

fn ms(start: Instant) -> f64 {
    (start.elapsed().as_secs_f64() * 10_000.0).round() / 10.0
}

/// CPU time (user + system) of this process in ms, from /proc/self/stat (10 ms resolution): on
/// a shared machine the wall time of a step can be much longer than the work it did.
fn cpu_ms() -> f64 {
    let stat = std::fs::read_to_string("/proc/self/stat").unwrap_or_default();
    let fields: Vec<f64> = stat
        .rsplit_once(')')
        .map(|(_, rest)| {
            rest.split_whitespace()
                .map(|f| f.parse().unwrap_or(0.0))
                .collect()
        })
        .unwrap_or_default();
    // Fields 14 and 15 of the file (utime, stime), in clock ticks of 10 ms.
    (fields.get(11).copied().unwrap_or(0.0) + fields.get(12).copied().unwrap_or(0.0)) * 10.0
}

/// Wall and CPU time of `step`, recorded as `{key}Ms` and `{key}CpuMs`.
fn timed<T>(report: &mut Report, key: &str, step: impl FnOnce() -> T) -> T {
    let (start, cpu) = (Instant::now(), cpu_ms());
    let value = step();
    report.set(&format!("{key}Ms"), json!(ms(start)));
    report.set(&format!("{key}CpuMs"), json!(cpu_ms() - cpu));
    value
}

struct Report(Map<String, Value>);

impl Report {
    fn new(name: &str) -> Report {
        let mut map = Map::new();
        map.insert("input".into(), json!(name));
        map.insert("startRssMB".into(), json!(status_mb("VmRSS")));
        Report(map)
    }
    fn set(&mut self, key: &str, value: Value) {
        self.0.insert(key.into(), value);
    }
    fn memory(&mut self, when: &str) {
        self.set(&format!("peakRssMB_{when}"), json!(status_mb("VmHWM")));
        self.set(&format!("rssMB_{when}"), json!(status_mb("VmRSS")));
    }
    fn print(self) {
        println!("HUGE {}", Value::Object(self.0));
    }
}

/// Reads `name`, loads it, takes the views and the last state; returns the conversation.
fn load_and_view(name: &str, report: &mut Report) -> Conversation {
    let path = input(name);
    let text = timed(report, "read", || {
        std::fs::read_to_string(&path).expect("the input is readable UTF-8")
    });
    report.set("bytes", json!(text.len()));
    report.memory("afterRead");

    let mut conversation = Conversation::new();
    timed(report, "loadJson", || {
        conversation
            .load_json(&text, LoadOptions::default())
            .expect("the log loads")
    });
    report.set("events", json!(conversation.len()));
    report.memory("afterLoad");
    drop(text);

    let views = timed(report, "views", || conversation.views());
    report.set("chatCards", json!(views.chat.len()));
    report.set("requests", json!(views.trajectory.requests.len()));
    report.set("headerFacts", json!(views.trajectory.headers.len()));
    drop(views);
    report.memory("afterViews");

    let with_state = timed(report, "stateAtEveryEvent", || {
        conversation
            .events()
            .iter()
            .filter(|event| conversation.state_at(event.seq).is_some())
            .count()
    });
    report.set("eventsWithState", json!(with_state));
    let last = conversation
        .state_at(i64::MAX)
        .and_then(|state| state.effective())
        .map_or(0, |node| node.text.len());
    report.set("effectivePromptBytes", json!(last));
    conversation
}

/// Load earlier: the newest half first, then the older half prepended (one re-walk).
fn prepend_half(conversation: &Conversation, report: &mut Report) {
    let events = conversation.events();
    let (older, newer) = events.split_at(events.len() / 2);
    let mut window = Conversation::new();
    window
        .load(newer.to_vec(), LoadOptions::default().with_has_more(true))
        .expect("the newer half loads");
    timed(report, "prependHalf", || {
        window
            .prepend(older.to_vec(), LoadOptions::default())
            .expect("the older half prepends")
    });
    assert_eq!(window.views(), conversation.views(), "D1 on the huge input");
}

/// Live appends, one event per call, into a new window.
fn append_one_by_one(conversation: &Conversation, report: &mut Report) {
    let mut live = Conversation::new();
    let start = Instant::now();
    timed(report, "appendOneByOne", || {
        for event in conversation.events() {
            live.append(vec![event.clone()]).expect("a live append");
        }
    });
    let total = start.elapsed().as_secs_f64();
    report.set(
        "appendMicrosPerEvent",
        json!((total * 1e6 / conversation.len().max(1) as f64 * 100.0).round() / 100.0),
    );
    assert_eq!(live.views(), conversation.views(), "D1: live appends");
}

/// One huge input end to end: load and views, `extra` on the loaded window, load earlier, live
/// appends; prints the report.
fn measure(name: &str, extra: impl FnOnce(&Conversation, &mut Report)) {
    let mut report = Report::new(name);
    let conversation = load_and_view(name, &mut report);
    extra(&conversation, &mut report);
    prepend_half(&conversation, &mut report);
    append_one_by_one(&conversation, &mut report);
    report.memory("end");
    report.print();
}

#[test]
#[ignore = "needs the generated huge inputs; run by scripts/reliability.sh"]
fn huge_log_100mb() {
    measure("log-100mb", |_, _| {});
}

#[test]
#[ignore = "needs the generated huge inputs; run by scripts/reliability.sh"]
fn huge_prompt_1mb() {
    measure("prompt-1mb", |conversation, report| {
        assert!(
            report.0["effectivePromptBytes"].as_u64() > Some(1_000_000),
            "the prompt in force is about 1 MB"
        );
        let lines = timed(report, "lines", || conversation.lines());
        report.set("lines", json!(lines.len()));
    });
}

#[test]
#[ignore = "needs the generated huge inputs; run by scripts/reliability.sh"]
fn huge_events_1m() {
    measure("events-1m", |conversation, _| {
        assert_eq!(conversation.len(), 1_000_000);
    });
}

/// The parser alone on the 100 MB log (no window), for the split of load time.
#[test]
#[ignore = "needs the generated huge inputs; run by scripts/reliability.sh"]
fn huge_parse_only_100mb() {
    let mut report = Report::new("log-100mb (parse_events only)");
    let text = std::fs::read_to_string(input("log-100mb")).expect("readable");
    let events = timed(&mut report, "parse", || {
        parse_events(&text).expect("parses")
    });
    report.set("events", json!(events.len()));
    report.memory("afterParse");
    report.print();
}
