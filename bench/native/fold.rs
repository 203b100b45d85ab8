//! Native benchmark over the generated workloads (run by `scripts/bench.sh`; `harness = false`).
//!
//! ```text
//! node bench/js/gen.mjs                                   # writes bench/data/*.json
//! cargo bench --bench fold -- [--runs N] bench/data/typical-10k.json ...
//! cargo bench --bench fold -- --generated 20000           # a test-kit log, no files needed
//! ```
//!
//! `--generated N` benches a log of N actions drawn by the test kit (`promptfold::testkit`,
//! `Plan::seeded(1, N)`), built in memory: the property tests' kind of log, at bench size.
//!
//! For each file, prints one JSON object on a line: medians of N runs (default 5) of the plain
//! fold keeping the state of every relevant event, of `Conversation::load` (parsed events in; a
//! run includes cloning the events, and `cloneMs` is the median of that clone alone) and of
//! `views()`, `cache_ledger()` and `Conversation::load_json` (text in); one timed
//! `parse_events`; the mean time of `state_at`; and the bytes each keeps alive, counted by a global
//! allocator wrapper (exact).
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

use std::alloc::{GlobalAlloc, Layout, System};
use std::hint::black_box;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Instant;

use promptfold::LoadOptions;
use promptfold::{
    inspect_system_prompt, parse_events, testkit, CacheOptions, Conversation, SystemPromptState,
};

/// The system allocator, counting the bytes currently allocated.
struct Counting;

static LIVE: AtomicUsize = AtomicUsize::new(0);

// SAFETY: every call forwards to `System` with the same arguments; the counter is a side effect.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        LIVE.fetch_add(layout.size(), Ordering::Relaxed);
        // SAFETY: forwarded as is.
        unsafe { System.alloc(layout) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        LIVE.fetch_sub(layout.size(), Ordering::Relaxed);
        // SAFETY: forwarded as is.
        unsafe { System.dealloc(ptr, layout) }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        LIVE.fetch_add(new_size, Ordering::Relaxed);
        LIVE.fetch_sub(layout.size(), Ordering::Relaxed);
        // SAFETY: forwarded as is.
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static ALLOCATOR: Counting = Counting;

fn live() -> i64 {
    LIVE.load(Ordering::Relaxed) as i64
}

/// Median in milliseconds of `runs` runs of `body`; each run's result is dropped after timing.
fn median_ms<T>(runs: usize, mut body: impl FnMut() -> T) -> (f64, Vec<f64>) {
    let mut times = Vec::with_capacity(runs);
    for _ in 0..runs {
        let start = Instant::now();
        let result = body();
        times.push(start.elapsed().as_secs_f64() * 1e3);
        drop(black_box(result));
    }
    let mut sorted = times.clone();
    sorted.sort_by(f64::total_cmp);
    let mid = sorted.len() / 2;
    let median = if sorted.len() % 2 == 1 {
        sorted[mid]
    } else {
        (sorted[mid - 1] + sorted[mid]) / 2.0
    };
    (median, times)
}

/// The plain fold, keeping the state after every relevant event (what a window keeps).
fn fold_all(events: &[promptfold::SessionEvent]) -> Vec<SystemPromptState> {
    let mut states: Vec<SystemPromptState> = Vec::new();
    for event in events {
        if event.is_relevant() {
            if let Some(state) = inspect_system_prompt(states.last(), event, None) {
                states.push(state);
            }
        }
    }
    states
}

fn json_list(values: &[f64]) -> String {
    let items: Vec<String> = values.iter().map(|v| format!("{v:.3}")).collect();
    format!("[{}]", items.join(","))
}

fn bench_file(path: &str, runs: usize) -> String {
    let text = std::fs::read_to_string(path).unwrap_or_else(|err| panic!("read {path}: {err}"));
    let name = std::path::Path::new(path)
        .file_stem()
        .and_then(|stem| stem.to_str())
        .unwrap_or(path);
    bench_text(name, &text, runs)
}

/// A test-kit log of `actions` actions, as JSON array text.
fn generated(actions: usize) -> String {
    testkit::array_text(&testkit::build(&testkit::Plan::seeded(1, actions)))
}

fn bench_text(name: &str, text: &str, runs: usize) -> String {
    // One timed parse, and the bytes the parsed events keep.
    let before_parse = live();
    let start = Instant::now();
    let events = parse_events(text).expect("valid workload");
    let parse_ms = start.elapsed().as_secs_f64() * 1e3;
    let events_bytes = live() - before_parse;
    let relevant = events.iter().filter(|event| event.is_relevant()).count();

    let (fold_ms, fold_times) = median_ms(runs, || fold_all(&events));
    let before_fold = live();
    let states = fold_all(&events);
    let fold_bytes = live() - before_fold;
    let replacements = states.last().map_or(0, |state| state.replacement_count());
    drop(states);

    // `load` takes the events by value: each timed load includes this clone, measured alone here.
    let (clone_ms, _) = median_ms(runs, || events.clone());
    let (load_ms, load_times) = median_ms(runs, || {
        let mut conversation = Conversation::new();
        conversation
            .load(events.clone(), LoadOptions::default())
            .expect("valid workload");
        conversation
    });
    let load_json = || {
        let mut conversation = Conversation::new();
        conversation
            .load_json(text, LoadOptions::default())
            .expect("valid workload");
        conversation
    };
    let (load_json_ms, load_json_times) = median_ms(runs, load_json);
    // One more `load_json`, untimed, for everything the loaded window keeps (its parsed events
    // included).
    let before_load = live();
    let conversation = load_json();
    let window_bytes = live() - before_load;

    let (views_ms, _) = median_ms(runs, || conversation.views());
    let ledger_options = CacheOptions::default();
    let (cache_ledger_ms, _) = median_ms(runs, || conversation.cache_ledger(&ledger_options));

    // state_at over seeded pseudo-random seqs of the window.
    let first = events.first().map_or(0, |event| event.seq);
    let last = events.last().map_or(0, |event| event.seq);
    let span = (last - first + 1).max(1) as u64;
    let mut seed: u64 = 12345;
    let probes: Vec<i64> = (0..1_000_000)
        .map(|_| {
            seed = seed
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            first + ((seed >> 33) % span) as i64
        })
        .collect();
    let start = Instant::now();
    let mut hits = 0usize;
    for seq in &probes {
        if black_box(conversation.state_at(*seq)).is_some() {
            hits += 1;
        }
    }
    let state_at_ns = start.elapsed().as_secs_f64() * 1e9 / probes.len() as f64;

    let per_relevant_ns = fold_ms * 1e6 / relevant.max(1) as f64;
    format!(
        concat!(
            "{{\"workload\":\"{}\",\"events\":{},\"relevant\":{},\"runs\":{},",
            "\"parseMs\":{:.3},\"foldMs\":{:.3},\"foldTimes\":{},\"foldNsPerRelevant\":{:.1},",
            "\"loadMs\":{:.3},\"loadTimes\":{},\"cloneMs\":{:.3},\"loadJsonMs\":{:.3},",
            "\"loadJsonTimes\":{},",
            "\"loadEventsPerSecond\":{:.0},\"loadJsonEventsPerSecond\":{:.0},",
            "\"viewsMs\":{:.3},\"cacheLedgerMs\":{:.3},\"stateAtNs\":{:.1},\"stateAtHits\":{},",
            "\"eventsBytes\":{},\"foldBytes\":{},\"windowBytes\":{},\"replacements\":{}}}"
        ),
        name,
        events.len(),
        relevant,
        runs,
        parse_ms,
        fold_ms,
        json_list(&fold_times),
        per_relevant_ns,
        load_ms,
        json_list(&load_times),
        clone_ms,
        load_json_ms,
        json_list(&load_json_times),
        events.len() as f64 / (load_ms / 1e3),
        events.len() as f64 / (load_json_ms / 1e3),
        views_ms,
        cache_ledger_ms,
        state_at_ns,
        hits,
        events_bytes,
        fold_bytes,
        window_bytes,
        replacements,
    )
}

fn main() {
    let mut runs = 5usize;
    let mut files = Vec::new();
    let mut generated_sizes = Vec::new();
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--runs" => {
                runs = args
                    .next()
                    .and_then(|value| value.parse().ok())
                    .expect("--runs N");
            }
            "--generated" => generated_sizes.push(
                args.next()
                    .and_then(|value| value.parse::<usize>().ok())
                    .expect("--generated N"),
            ),
            // `cargo bench` passes `--bench`; other harness flags are ignored too.
            flag if flag.starts_with("--") => {}
            file => files.push(file.to_owned()),
        }
    }
    if files.is_empty() && generated_sizes.is_empty() {
        eprintln!("usage: cargo bench --bench fold -- [--runs N] [--generated N] bench/data/NAME.json ...");
        eprintln!("(generate the files first: node bench/js/gen.mjs)");
        std::process::exit(2);
    }
    for file in files {
        println!("{}", bench_file(&file, runs));
    }
    for actions in generated_sizes {
        println!(
            "{}",
            bench_text(&format!("generated-{actions}"), &generated(actions), runs)
        );
    }
}
