//! Retained memory per event, natively (run by hand; `harness = false`).
//!
//! ```text
//! node bench/js/stream-memory.mjs generate /tmp/small.jsonl 100 small
//! cargo bench --bench memory -- /tmp/small.jsonl [--piece BYTES] [--events N]
//! ```
//!
//! Feeds the file to a `Conversation` in pieces (1 MiB by default, as the JS benchmark does),
//! stopping after `--events N` events when given, and prints one JSON line: the events, the
//! bytes the window keeps alive (a counting global allocator: exact, but with the pointers of
//! this target, 8 bytes where wasm32 has 4), their share per event, the peak during the feed,
//! and the bytes of each per-event structure (`Conversation::heap_profile`, the testkit's).
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
use std::io::Read;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Instant;

use promptfold::Conversation;

/// The system allocator, counting the bytes currently allocated and their peak.
struct Counting;

static LIVE: AtomicUsize = AtomicUsize::new(0);
static PEAK: AtomicUsize = AtomicUsize::new(0);

fn grew(by: usize) {
    let live = LIVE.fetch_add(by, Ordering::Relaxed) + by;
    PEAK.fetch_max(live, Ordering::Relaxed);
}

// SAFETY: every call forwards to `System` with the same arguments; the counters are a side effect.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        grew(layout.size());
        // SAFETY: forwarded as is.
        unsafe { System.alloc(layout) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        LIVE.fetch_sub(layout.size(), Ordering::Relaxed);
        // SAFETY: forwarded as is.
        unsafe { System.dealloc(ptr, layout) }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        // A realloc may move: both blocks are alive for a moment.
        grew(new_size);
        LIVE.fetch_sub(layout.size(), Ordering::Relaxed);
        // SAFETY: forwarded as is.
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static ALLOCATOR: Counting = Counting;

fn main() {
    let mut piece_bytes = 1 << 20;
    let mut max_events = usize::MAX;
    let mut paths = Vec::new();
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--piece" => piece_bytes = args.next().and_then(|n| n.parse().ok()).unwrap(),
            "--events" => max_events = args.next().and_then(|n| n.parse().ok()).unwrap(),
            flag if flag.starts_with("--") => {}
            path => paths.push(path.to_owned()),
        }
    }
    for path in paths {
        let mut file = std::fs::File::open(&path).unwrap();
        let mut piece = vec![0_u8; piece_bytes];
        let base = LIVE.load(Ordering::Relaxed);
        PEAK.store(base, Ordering::Relaxed);
        let started = Instant::now();
        let mut conversation = Conversation::new();
        let mut bytes = 0_usize;
        loop {
            let read = file.read(&mut piece).unwrap();
            if read == 0 || conversation.len() >= max_events {
                break;
            }
            bytes += read;
            conversation.feed(&piece[..read]).unwrap();
        }
        let ms = started.elapsed().as_secs_f64() * 1e3;
        let events = conversation.len().max(1);
        let live = LIVE.load(Ordering::Relaxed) - base;
        let peak = PEAK.load(Ordering::Relaxed) - base;
        let profile = conversation
            .heap_profile()
            .into_iter()
            .map(|(name, count, bytes)| {
                format!(
                    "\"{name}\":{{\"count\":{count},\"bytes\":{bytes},\"perEvent\":{:.1}}}",
                    bytes as f64 / events as f64
                )
            })
            .collect::<Vec<_>>()
            .join(",");
        println!(
            "{{\"file\":\"{path}\",\"bytes\":{bytes},\"events\":{events},\"ms\":{ms:.0},\
             \"live\":{live},\"livePerEvent\":{:.1},\"peak\":{peak},\"peakPerEvent\":{:.1},\
             \"profile\":{{{profile}}}}}",
            live as f64 / events as f64,
            peak as f64 / events as f64,
        );
    }
}
