//! `promptfold report PATH...`: every session under the paths, read in parallel (rayon), one row
//! each; what could not be read is named once and the rest is reported whole.

use std::io::Write;
use std::path::PathBuf;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Instant;

use std::cell::RefCell;

use promptfold::{CacheEntry, CacheOptions, LedgerStream};
use rayon::prelude::*;

use crate::aggregate::{report, Counts, Report};
use crate::args::{Format, ReportArgs};
use crate::discover::{discover, Candidate};
use crate::facts::{facts, CauseFacts, Tally};
use crate::output;
use crate::printable::printable;
use crate::problem::{Problem, ProblemKind};
use crate::progress::Progress;
use crate::row::{Header, Origin, SessionRow};
use crate::source::{read_session, Outcome, Reader, Streamed};
use crate::when::Window;
use crate::{Failure, Ran};

/// What one file gave.
enum Read {
    Row(Box<SessionRow>, Vec<CauseFacts>, Option<Problem>),
    Filtered,
    Failed(Problem),
}

fn read_one(
    candidate: &Candidate,
    window: Window,
    options: &CacheOptions,
    progress: &Progress,
) -> Read {
    let failed = |reason: String| {
        Read::Failed(Problem {
            path: candidate.path.display().to_string(),
            kind: ProblemKind::BadEvent,
            reason,
            reported: false,
        })
    };
    let stream = match LedgerStream::new(options) {
        Ok(stream) => stream,
        Err(error) => {
            debug_assert!(false, "the options were checked: {error}");
            return failed(error.to_string());
        }
    };
    // The forward-only ledger: each request's entry is tallied as it comes and dropped.
    let tally = RefCell::new(Tally::default());
    let reader = Streamed {
        stream,
        take: |entry: CacheEntry| tally.borrow_mut().add(&entry),
    };
    let wanted =
        |session: Option<&promptfold::JsonValue>| window.admits(Header::of(session).created_at);
    let on_read = |bytes| progress.read(bytes);
    match read_session(&candidate.path, reader, &on_read, &wanted) {
        Outcome::Loaded(loaded) => {
            let header = Header::of(loaded.reader.session());
            let events = loaded.reader.events();
            let summary = loaded.reader.finish();
            let facts = facts(events, &tally.borrow(), &summary);
            let kind = loaded.problem.as_ref().map(|problem| problem.kind);
            let origin = Origin {
                path: candidate.path.display().to_string(),
                scope: candidate.scope.clone(),
                bytes: loaded.bytes,
                torn_tail: kind == Some(ProblemKind::TornTail),
                incomplete: kind.is_some_and(|kind| kind != ProblemKind::TornTail),
            };
            let row = SessionRow::new(origin, &header, &facts);
            Read::Row(Box::new(row), facts.breaks, loaded.problem)
        }
        Outcome::Filtered => Read::Filtered,
        Outcome::Failed(problem) => Read::Failed(problem),
    }
}

/// Reads every file and builds the report; also gives the paths under which no session log was
/// found.
pub fn build(args: &ReportArgs, options: &CacheOptions) -> (Report, Vec<PathBuf>) {
    let started = Instant::now();
    let mut found = discover(&args.paths);
    let empty = std::mem::take(&mut found.empty);
    let total_bytes = found
        .files
        .iter()
        .map(|file| file.size)
        .fold(0u64, u64::saturating_add);
    let progress = Progress::new(total_bytes, found.files.len(), args.quiet);
    let window = Window {
        since: args.since,
        until: args.until,
    };
    let done = AtomicUsize::new(0);
    let files = found.files.len();
    let reads: Vec<Read> = found
        .files
        .par_iter()
        .map(|candidate| {
            let read = read_one(candidate, window, options, &progress);
            let finished = done.fetch_add(1, Ordering::Relaxed).saturating_add(1);
            progress.file_done(finished, files);
            read
        })
        .collect();
    progress.finish();

    let mut counts = Counts {
        skipped_files: found.skipped as u64,
        ..Counts::default()
    };
    let mut rows = Vec::new();
    let mut causes = Vec::new();
    let mut errors = found.problems;
    for read in reads {
        match read {
            Read::Row(row, breaks, problem) => {
                counts.files = counts.files.saturating_add(1);
                rows.push(*row);
                causes.push(breaks);
                errors.extend(problem);
            }
            Read::Filtered => {
                counts.files = counts.files.saturating_add(1);
                counts.filtered_out = counts.filtered_out.saturating_add(1);
            }
            Read::Failed(problem) => errors.push(problem),
        }
    }
    let report = report(rows, &causes, errors, counts, args.top);
    if !args.quiet {
        let seconds = started.elapsed().as_secs_f64();
        #[allow(clippy::cast_precision_loss)]
        let gigabytes = report.totals.bytes as f64 / 1e9;
        eprintln!(
            "promptfold: {}, {:.2} GB of JSON lines in {:.2} s ({:.2} GB/s); {}",
            output::counted(report.counts.sessions, "session", "sessions"),
            gigabytes,
            seconds,
            if seconds > 0.0 {
                gigabytes / seconds
            } else {
                0.0
            },
            output::counted(report.counts.problems, "problem", "problems")
        );
    }
    (report, empty)
}

/// Runs `report`: builds it, names each problem and each path without a session log on stderr,
/// writes the format asked for.
pub fn run(args: &ReportArgs, options: &CacheOptions) -> Result<Ran, Failure> {
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(args.jobs.map_or(0, usize::from))
        .build()
        .map_err(|error| Failure::Usage(format!("cannot start the threads: {error}")))?;
    let (report, empty) = pool.install(|| build(args, options));
    for problem in &report.errors {
        eprintln!("promptfold: {problem}");
    }
    for path in &empty {
        let shown = printable(&path.display().to_string()).into_owned();
        eprintln!("promptfold: no session logs found under {shown}");
    }
    let stdout = std::io::stdout();
    let mut out = std::io::BufWriter::new(stdout.lock());
    let written = match args.format {
        Format::Table => output::table::table(&report, &mut out),
        Format::Json => output::machine::json(&report, &mut out),
        Format::Jsonl => output::machine::jsonl(&report, &mut out),
        Format::Csv => output::machine::csv(&report, &mut out),
    };
    written
        .and_then(|()| out.flush())
        .map_err(Failure::Output)?;
    if !report
        .errors
        .iter()
        .all(|problem| problem.kind == ProblemKind::TornTail)
    {
        Ok(Ran::SomeUnread)
    } else if empty.len() == args.paths.len() {
        Ok(Ran::NothingFound)
    } else {
        Ok(Ran::Whole)
    }
}
