//! Native timing of "load earlier" (run by hand; `harness = false`).
//!
//! ```text
//! cargo bench --bench prepend -- bench/data/typical-100k.json
//! ```
//!
//! Loads the newest 9,000 events of the file, then prepends older pages until the whole log is
//! loaded: 5 x 1,000 events, 7 x 10,000, 8,000, then 1,000-event pages (the pages of
//! `bench/js/measure.mjs pf-prepend`). Prints one JSON line per call: the window size before it,
//! the page size, the time in ms (median of `--runs` runs of the whole sequence, default 5)
//! and the number of cards the change reports; then one line with the number of prepends whose
//! surface fold folded the whole window again (docs/context.md), over every run.
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

use std::time::Instant;

use promptfold::LoadOptions;
use promptfold::{parse_events, Conversation};

fn main() {
    let mut runs = 5;
    let mut paths = Vec::new();
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--runs" => runs = args.next().and_then(|n| n.parse().ok()).unwrap_or(runs),
            flag if flag.starts_with("--") => {}
            path => paths.push(path.to_owned()),
        }
    }
    for path in paths {
        let text = std::fs::read_to_string(&path).expect("readable workload");
        let events = parse_events(&text).expect("valid workload");
        let mut rows: Vec<(usize, usize, Vec<f64>, usize)> = Vec::new();
        let refolds_before = promptfold::testkit::surface_refolds();
        for _ in 0..runs {
            for (row, (window, loaded, ms, cards)) in prepend_all(&events).into_iter().enumerate() {
                match rows.get_mut(row) {
                    Some(known) => known.2.push(ms),
                    None => rows.push((window, loaded, vec![ms], cards)),
                }
            }
        }
        let refolds = promptfold::testkit::surface_refolds() - refolds_before;
        for (window, loaded, mut times, cards) in rows {
            times.sort_by(f64::total_cmp);
            let ms = times.get(times.len() / 2).copied().unwrap_or(f64::NAN);
            println!(
                "{{\"file\":{path:?},\"window\":{window},\"loaded\":{loaded},\"ms\":{ms:.3},\"cards\":{cards}}}"
            );
        }
        println!("{{\"file\":{path:?},\"surfaceRefolds\":{refolds}}}");
    }
}

/// Loads the newest 9,000 events, then prepends the pages: per call, the window size before
/// it, the page size, the time in ms and the number of cards reported.
fn prepend_all(events: &[promptfold::SessionEvent]) -> Vec<(usize, usize, f64, usize)> {
    let mut start = events.len().saturating_sub(9_000);
    let mut conversation = Conversation::new();
    conversation
        .load(
            events[start..].to_vec(),
            LoadOptions::default().with_has_more(start > 0),
        )
        .expect("loads");
    let pages = std::iter::repeat_n(1_000, 5)
        .chain(std::iter::repeat_n(10_000, 7))
        .chain([8_000])
        .chain(std::iter::repeat(1_000));
    let mut rows = Vec::new();
    for page in pages {
        if start == 0 {
            break;
        }
        let from = start.saturating_sub(page);
        let chunk = events[from..start].to_vec();
        let t = Instant::now();
        let change = conversation
            .prepend(chunk, LoadOptions::default().with_has_more(from > 0))
            .expect("prepends");
        let ms = t.elapsed().as_secs_f64() * 1e3;
        let cards = change.chat.added.len() + change.chat.changed.len() + change.chat.removed.len();
        rows.push((events.len() - start, start - from, ms, cards));
        start = from;
    }
    rows
}
