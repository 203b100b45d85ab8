//! `promptfold show FILE`: one session's header, prompt timeline and one line per request.

use std::io::Write;

use promptfold::{
    CacheCause, CacheLedger, CardKey, CardSource, Conversation, EventKind, SurfaceOp,
};
use serde::Serialize;

use crate::args::ShowArgs;
use crate::output::counted;
use crate::printable::printable;
use crate::problem::{Problem, ProblemKind};
use crate::row::Header;
use crate::source::{read_session, Outcome};
use crate::when::date_of;
use crate::Failure;

/// The version of `show --json`'s schema.
pub const SHOW_SCHEMA_VERSION: u32 = 1;

/// `show --json`: the library's own outputs for the session, as its Rust API gives them.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct ShowJson<'a> {
    schema_version: u32,
    path: String,
    bytes: u64,
    /// The header row, as written.
    session: Option<&'a promptfold::JsonValue>,
    /// A torn last line or a damaged stream, when there was one.
    problem: Option<&'a Problem>,
    /// `Conversation::views()`.
    views: promptfold::Views,
    /// `Conversation::cache_ledger()` with the options given.
    cache_ledger: &'a CacheLedger,
}

/// The sections a system card changed against the prompt before it (`+` added, `-` removed,
/// `~` changed).
fn card_sections(conversation: &Conversation, key: CardKey) -> Vec<String> {
    let Some(diff) = conversation.card_diff(key) else {
        return Vec::new();
    };
    diff.system
        .sections
        .iter()
        .filter(|section| section.status != promptfold::SectionStatus::Unchanged)
        .map(|section| {
            let status = match section.status {
                promptfold::SectionStatus::Added => "+",
                promptfold::SectionStatus::Removed => "-",
                _ => "~",
            };
            format!("{status}{}", section.title)
        })
        .collect()
}

fn step_label(turn: Option<u64>, step: Option<u64>) -> String {
    match (turn, step) {
        (Some(turn), Some(step)) => format!("{turn}.{step}"),
        (Some(turn), None) => format!("{turn}"),
        _ => "-".to_string(),
    }
}

/// A cause of a break, for people.
fn cause_text(cause: &CacheCause) -> String {
    let range = |seq: &promptfold::Seq, start: &promptfold::Seq, end: &promptfold::Seq| {
        format!("seq {seq}, {start}..{end}")
    };
    let route = |route: &promptfold::Route| {
        format!(
            "{}/{}",
            route.provider.as_deref().unwrap_or("-"),
            route.model.as_deref().unwrap_or("-")
        )
    };
    match cause {
        CacheCause::Route { from, to } => format!("route {} -> {}", route(from), route(to)),
        CacheCause::Tools {
            added,
            removed,
            changed,
        } => {
            let mut names: Vec<String> = added.iter().map(|name| format!("+{name}")).collect();
            names.extend(removed.iter().map(|name| format!("-{name}")));
            names.extend(changed.iter().map(|name| format!("~{name}")));
            format!("tools {}", names.join(" "))
        }
        CacheCause::SystemRewrite {
            seq,
            start_seq,
            end_seq,
            sections,
        } => format!(
            "system-rewrite ({}; sections: {})",
            range(seq, start_seq, end_seq),
            sections.join(", ")
        ),
        CacheCause::Compaction {
            seq,
            start_seq,
            end_seq,
        } => {
            format!("compaction ({})", range(seq, start_seq, end_seq))
        }
        CacheCause::Prune {
            seq,
            start_seq,
            end_seq,
        } => format!("prune ({})", range(seq, start_seq, end_seq)),
        CacheCause::Replacement {
            seq,
            start_seq,
            end_seq,
            kind,
        } => {
            format!("replacement by {kind} ({})", range(seq, start_seq, end_seq))
        }
        CacheCause::Series { seq } => format!("series (seq {seq})"),
        CacheCause::Idle { gap_ms } => format!("idle ({:.0} s)", gap_ms / 1000.0),
        _ => "another cause".to_string(),
    }
}

fn text(
    conversation: &Conversation,
    ledger: &CacheLedger,
    path: &str,
    bytes: u64,
    problem: Option<&Problem>,
    out: &mut dyn Write,
) -> std::io::Result<()> {
    let header = Header::of(conversation.session());
    let cwd = conversation
        .session()
        .and_then(|session| match session.get("cwd") {
            Some(promptfold::JsonValue::String(cwd)) => Some(cwd.to_string()),
            _ => None,
        });
    writeln!(
        out,
        "session {}  format {}  created {}  cwd {}",
        printable(header.id.as_deref().unwrap_or("-")),
        header
            .version
            .map_or_else(|| "-".to_string(), |v| v.to_string()),
        header
            .created_at
            .and_then(date_of)
            .unwrap_or_else(|| "-".to_string()),
        printable(cwd.as_deref().unwrap_or("-")),
    )?;
    writeln!(
        out,
        "file {}: {bytes} bytes, {} events",
        printable(path),
        conversation.len()
    )?;

    let views = conversation.views();
    writeln!(out)?;
    writeln!(out, "Prompt timeline")?;
    let mut first = true;
    // Every system/message event in order: the cards show where a prompt sits in the chat, but
    // a rewrite changes a card in place, so the timeline reads the events themselves.
    let system_events = conversation
        .events()
        .iter()
        .filter(|event| matches!(event.kind, EventKind::SystemMessage { .. }));
    for event in system_events {
        let update = conversation
            .state_at(event.seq)
            .and_then(|state| state.effective())
            .is_some_and(|node| node.seq == event.seq && node.update);
        let (name, sections) = match event.surface_op() {
            Some(SurfaceOp::Replace { start, end }) => {
                // The ledger names the sections a rewrite changed (when it broke a request).
                let sections = ledger
                    .requests
                    .iter()
                    .flat_map(|entry| &entry.causes)
                    .find_map(|cause| match cause {
                        CacheCause::SystemRewrite { seq, sections, .. } if *seq == event.seq => {
                            Some(sections.clone())
                        }
                        _ => None,
                    })
                    .unwrap_or_default();
                (format!("rewrite of {start}..{end}"), sections)
            }
            _ => {
                let name = if update {
                    "in-history update"
                } else if first {
                    "initial prompt"
                } else {
                    "prompt"
                };
                let key = CardKey {
                    source: CardSource::System,
                    seq: event.seq,
                };
                (name.to_string(), card_sections(conversation, key))
            }
        };
        first = false;
        let sections = if sections.is_empty() {
            String::new()
        } else {
            format!("  sections: {}", sections.join(", "))
        };
        let turn = match event.turn() {
            promptfold::TurnField::Turn(turn) => Some(turn),
            _ => None,
        };
        writeln!(
            out,
            "  seq {:<6} step {:<6} {}{}",
            event.seq,
            step_label(turn, event.step()),
            name,
            printable(&sections)
        )?;
    }
    if first {
        writeln!(out, "  (no system prompt)")?;
    }

    writeln!(out)?;
    writeln!(
        out,
        "Requests (tokens: the token meter's estimates; read: the log's cache reads)"
    )?;
    writeln!(
        out,
        "  {:>3} {:>6} {:>5} {:>6} {:>5} {:>6} {:>6} {:>6} {:>6} {:>6} {:>6}  causes",
        "#", "seq", "step", "system", "tools", "msgs", "total", "kept", "new", "broken", "read"
    )?;
    let unknown = |value: Option<u32>| value.map_or_else(|| "-".to_string(), |v| v.to_string());
    for (index, request) in views.trajectory.requests.iter().enumerate() {
        let breakdown = &request.context.breakdown;
        let entry = ledger.requests.get(index);
        debug_assert!(entry.is_some_and(|entry| entry.seq == request.start_seq));
        let causes: Vec<String> = entry.map_or_else(Vec::new, |entry| {
            entry.causes.iter().map(cause_text).collect()
        });
        let mut causes = causes.join("; ");
        if request.context.incomplete {
            causes.insert_str(0, "(incomplete context) ");
        }
        let line = format!(
            "  {:>3} {:>6} {:>5} {:>6} {:>5} {:>6} {:>6} {:>6} {:>6} {:>6} {:>6}  {}",
            index.saturating_add(1),
            request.start_seq,
            step_label(request.turn, request.step),
            breakdown.system_tokens,
            breakdown.tools_tokens,
            breakdown.message_tokens,
            breakdown.total_tokens,
            unknown(entry.and_then(|entry| entry.kept_tokens)),
            unknown(entry.and_then(|entry| entry.new_tokens)),
            unknown(entry.and_then(|entry| entry.broken_tokens)),
            entry
                .and_then(|entry| entry.observed.cache_read_tokens)
                .map_or_else(|| "-".to_string(), |read| read.to_string()),
            causes,
        );
        // Tool, model and section names come from the log.
        writeln!(out, "{}", printable(line.trim_end()))?;
    }
    let summary = &ledger.summary;
    let percent =
        |rate: Option<f64>| rate.map_or_else(|| "-".to_string(), |r| format!("{:.1}%", r * 100.0));
    // Sums over no known request are unknown, as in the rows, not 0.
    let known_sum = |sum: f64| {
        if summary.known_requests == 0 {
            "-".to_string()
        } else {
            sum.to_string()
        }
    };
    writeln!(
        out,
        "  {} ({} known): kept {}, new {}, broken {}; expected hit rate {}, observed {}",
        counted(summary.requests.into(), "request", "requests"),
        summary.known_requests,
        known_sum(summary.kept_tokens),
        known_sum(summary.new_tokens),
        known_sum(summary.broken_tokens),
        percent(summary.expected_hit_rate),
        percent(summary.observed_hit_rate),
    )?;
    if let Some(cost) = &summary.cost {
        let mark = if cost.estimated {
            " (estimated in part)"
        } else {
            ""
        };
        writeln!(out, "  cost {:.4}{mark}", cost.total)?;
    }
    if views.trajectory.requests.is_empty() {
        writeln!(out, "  (no request)")?;
    }
    if let Some(problem) = problem {
        writeln!(out)?;
        match problem.kind {
            ProblemKind::TornTail => writeln!(
                out,
                "Torn tail: {}; the rows before it are shown.",
                problem.reason
            )?,
            _ => writeln!(
                out,
                "Cut short ({}): {}; the rows before it are shown.",
                problem.kind.name(),
                problem.reason
            )?,
        }
    }
    Ok(())
}

/// Runs `show`.
pub fn run(args: &ShowArgs, options: &promptfold::CacheOptions) -> Result<bool, Failure> {
    let loaded = match read_session(&args.file, Conversation::new(), &|_| {}, &|_| true) {
        Outcome::Loaded(loaded) => loaded,
        Outcome::Filtered => {
            debug_assert!(false, "show filters nothing");
            return Ok(false);
        }
        Outcome::Failed(problem) => {
            eprintln!("promptfold: {}", problem.alone());
            return Ok(false);
        }
    };
    let ledger = loaded
        .reader
        .cache_ledger(options)
        .map_err(|error| Failure::Usage(error.to_string()))?;
    let path = args.file.display().to_string();
    let stdout = std::io::stdout();
    let mut out = std::io::BufWriter::new(stdout.lock());
    let written = if args.json {
        let document = ShowJson {
            schema_version: SHOW_SCHEMA_VERSION,
            path,
            bytes: loaded.bytes,
            session: loaded.reader.session(),
            problem: loaded.problem.as_ref(),
            views: loaded.reader.views(),
            cache_ledger: &ledger,
        };
        serde_json::to_writer_pretty(&mut out, &document)
            // `From` keeps a write error's kind: a closed pipe ends the run quietly.
            .map_err(std::io::Error::from)
            .and_then(|()| writeln!(out))
    } else {
        text(
            &loaded.reader,
            &ledger,
            &path,
            loaded.bytes,
            loaded.problem.as_ref(),
            &mut out,
        )
    };
    written
        .and_then(|()| out.flush())
        .map_err(Failure::Output)?;
    if let Some(problem) = &loaded.problem {
        eprintln!("promptfold: {problem}");
    }
    Ok(loaded
        .problem
        .as_ref()
        .is_none_or(|problem| problem.kind == ProblemKind::TornTail))
}
