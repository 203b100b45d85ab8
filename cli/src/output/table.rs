//! The report as a table for people, at most 100 columns wide.

use std::borrow::Cow;
use std::io::Write;

use unicode_segmentation::UnicodeSegmentation;
use unicode_width::UnicodeWidthStr;

use crate::aggregate::Report;
use crate::output::counted;
use crate::printable::printable;
use crate::when::date_of;

/// Left or right aligned.
#[derive(Clone, Copy)]
enum Align {
    Left,
    Right,
}

/// A column: title, width, alignment.
type Column = (&'static str, usize, Align);

/// The width of the SESSION column.
const SESSION_WIDTH: usize = 20;

const SESSIONS: [Column; 10] = [
    ("SESSION", SESSION_WIDTH, Align::Left),
    ("CREATED", 10, Align::Left),
    ("REQS", 5, Align::Right),
    ("TOKENS", 7, Align::Right),
    ("EXP%", 6, Align::Right),
    ("OBS%", 6, Align::Right),
    ("BROKEN", 7, Align::Right),
    ("TOP CAUSE", 14, Align::Left),
    ("SAVED", 7, Align::Right),
    ("COST", 8, Align::Right),
];

const CAUSES: [Column; 5] = [
    ("CAUSE", 16, Align::Left),
    ("SESSIONS", 8, Align::Right),
    ("REQUESTS", 8, Align::Right),
    ("BROKEN", 8, Align::Right),
    ("COST", 9, Align::Right),
];

/// The widest line the table writes.
#[cfg(test)]
pub const WIDTH: usize = 100;

/// Fits `text` in `width` terminal columns, its control characters escaped: a wide character
/// (CJK, most emoji) takes two columns and a combining mark none, so the cells line up.
fn fit(text: &str, width: usize, align: Align) -> String {
    let text = printable(text);
    let (text, used) = cut(&text, width);
    let pad = " ".repeat(width.saturating_sub(used));
    match align {
        Align::Left => format!("{text}{pad}"),
        Align::Right => format!("{pad}{text}"),
    }
}

/// `text` in at most `width` columns, with the columns it takes: whole when it fits, else the
/// whole grapheme clusters that fit before a closing `…`, so a cut never splits a family emoji,
/// a flag or a letter from its accents.
fn cut(text: &str, width: usize) -> (Cow<'_, str>, usize) {
    let whole = text.width();
    if whole <= width {
        return (Cow::Borrowed(text), whole);
    }
    let room = width.saturating_sub(1);
    let mut end = 0;
    let mut used: usize = 0;
    for (start, cluster) in text.grapheme_indices(true) {
        let next = used.saturating_add(cluster.width());
        if next > room {
            break;
        }
        end = start.saturating_add(cluster.len());
        used = next;
    }
    let mut kept = text.get(..end).unwrap_or_default();
    // The width of a run of clusters is not always the sum of theirs.
    while kept.width() > room {
        let last = kept
            .grapheme_indices(true)
            .next_back()
            .map_or(0, |(at, _)| at);
        kept = kept.get(..last).unwrap_or_default();
    }
    let used = kept.width().saturating_add(1);
    (Cow::Owned(format!("{kept}…")), used)
}

/// The SESSION cell: the label, with a `*` when the file was cut short, kept however long the
/// label (a long one is cut before the mark, not the mark with it).
fn session_label(label: &str, cut_short: bool) -> String {
    if !cut_short {
        return label.to_string();
    }
    let printed = printable(label);
    let (kept, _) = cut(&printed, SESSION_WIDTH.saturating_sub(1));
    format!("{kept}*")
}

fn line(columns: &[Column], cells: &[String]) -> String {
    let parts: Vec<String> = columns
        .iter()
        .zip(cells)
        .map(|((_, width, align), cell)| fit(cell, *width, *align))
        .collect();
    parts.join(" ").trim_end().to_string()
}

fn titles(columns: &[Column]) -> String {
    let cells: Vec<String> = columns
        .iter()
        .map(|(title, _, _)| title.to_string())
        .collect();
    line(columns, &cells)
}

/// `1234` as `1.2k`, `1234567` as `1.2M`; below 10 000 exact.
pub fn short(value: u64) -> String {
    #[allow(clippy::cast_precision_loss)]
    let float = value as f64;
    if value < 10_000 {
        value.to_string()
    } else if value < 1_000_000 {
        format!("{:.1}k", float / 1e3)
    } else if value < 1_000_000_000 {
        format!("{:.1}M", float / 1e6)
    } else {
        format!("{:.1}G", float / 1e9)
    }
}

fn percent(rate: Option<f64>) -> String {
    rate.map_or_else(|| "-".to_string(), |rate| format!("{:.1}", rate * 100.0))
}

fn money(cost: Option<f64>, estimated: Option<bool>) -> String {
    match cost {
        Some(cost) => {
            let mark = if estimated == Some(true) { "~" } else { "" };
            if cost > 0.0 && cost < 0.005 {
                format!("{mark}<0.01")
            } else {
                format!("{mark}{cost:.2}")
            }
        }
        None => "-".to_string(),
    }
}

fn maybe(value: Option<u64>) -> String {
    value.map_or_else(|| "-".to_string(), short)
}

/// Writes the table: sessions, a total line, the causes ranked, what was read.
pub fn table(report: &Report, out: &mut dyn Write) -> std::io::Result<()> {
    writeln!(out, "{}", titles(&SESSIONS))?;
    for row in &report.sessions {
        let cells = [
            session_label(&row.label(), row.torn_tail || row.incomplete),
            row.created_at
                .and_then(date_of)
                .unwrap_or_else(|| "-".to_string()),
            short(row.requests),
            short(row.total_tokens),
            percent(row.expected_hit_rate),
            percent(row.observed_hit_rate),
            maybe(row.broken_tokens),
            row.top_cause.clone().unwrap_or_else(|| "-".to_string()),
            short(row.saved_tokens),
            money(row.cost, row.cost_estimated),
        ];
        writeln!(out, "{}", line(&SESSIONS, &cells))?;
    }
    let totals = &report.totals;
    let shown = report.sessions.len() as u64;
    let label = if shown < report.counts.sessions {
        format!("TOTAL ({} of {})", shown, report.counts.sessions)
    } else {
        format!("TOTAL ({})", report.counts.sessions)
    };
    let cells = [
        label,
        String::new(),
        short(totals.requests),
        short(totals.total_tokens),
        percent(totals.expected_hit_rate),
        percent(totals.observed_hit_rate),
        maybe(totals.broken_tokens),
        report
            .causes
            .first()
            .map_or_else(|| "-".to_string(), |cause| cause.kind.clone()),
        short(totals.saved_tokens),
        money(totals.cost, totals.cost_estimated),
    ];
    writeln!(out, "{}", line(&SESSIONS, &cells))?;

    writeln!(out)?;
    if report.causes.is_empty() {
        writeln!(out, "No request broke the cache.")?;
    } else {
        writeln!(out, "{}", titles(&CAUSES))?;
        for cause in &report.causes {
            let cells = [
                cause.kind.clone(),
                short(cause.sessions),
                short(cause.requests),
                short(cause.broken_tokens),
                money(cause.cost, None),
            ];
            writeln!(out, "{}", line(&CAUSES, &cells))?;
        }
    }
    writeln!(out)?;
    let counts = &report.counts;
    writeln!(
        out,
        "{} from {}; {} filtered out; {}.",
        counted(counts.sessions, "session", "sessions"),
        counted(counts.files, "file", "files"),
        counts.filtered_out,
        counted(counts.problems, "problem", "problems"),
    )?;
    if counts.skipped_files > 0 {
        writeln!(
            out,
            "{} not read: locks, backups, older versions of a session.",
            counted(counts.skipped_files, "file", "files")
        )?;
    }
    if report
        .sessions
        .iter()
        .any(|row| row.torn_tail || row.incomplete)
    {
        writeln!(
            out,
            "* the file was cut short: the figures cover the rows before the cut."
        )?;
    }
    if totals.cost_estimated == Some(true) {
        writeln!(
            out,
            "~ estimated cost: some requests have no observed usage."
        )?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn columns_fit_100() {
        let sessions: usize = SESSIONS.iter().map(|(_, width, _)| width + 1).sum();
        let causes: usize = CAUSES.iter().map(|(_, width, _)| width + 1).sum();
        assert!(sessions - 1 <= WIDTH, "{sessions}");
        assert!(causes - 1 <= WIDTH, "{causes}");
    }

    #[test]
    fn numbers() {
        assert_eq!(short(9_999), "9999");
        assert_eq!(short(12_345), "12.3k");
        assert_eq!(short(12_345_678), "12.3M");
        assert_eq!(fit("abcdef", 4, Align::Left), "abc…");
        assert_eq!(fit("ab", 4, Align::Right), "  ab");
    }

    #[test]
    fn wide_characters_take_two_columns() {
        // Each of these CJK characters is two columns wide: 6 columns, 2 spaces to 8.
        assert_eq!(fit("日本語", 8, Align::Left), "日本語  ");
        assert_eq!(fit("日本語", 8, Align::Right), "  日本語");
        // An emoji is wide too.
        assert_eq!(fit("🚀x", 5, Align::Left), "🚀x  ");
        // Cut at a character: 4 columns, the next (2 wide) would not fit before the `…`.
        assert_eq!(fit("日本語テキスト", 6, Align::Left), "日本… ");
        assert_eq!(fit("日本語テキスト", 7, Align::Left), "日本語…");
        assert_eq!(fit("🚀🚀🚀", 4, Align::Right), " 🚀…");
    }

    #[test]
    fn combining_marks_take_no_column() {
        // `e` and a combining acute accent: one column.
        let accented = "e\u{301}";
        assert_eq!(
            fit(&format!("caf{accented}"), 6, Align::Left),
            "cafe\u{301}  "
        );
        // Cut after a letter: its mark stays with it, the next letter's goes with that letter.
        assert_eq!(
            fit(
                &format!("{accented}{accented}{accented}{accented}"),
                3,
                Align::Left
            ),
            format!("{accented}{accented}…")
        );
    }

    #[test]
    fn a_cut_never_splits_a_grapheme_cluster() {
        // A family (three emoji joined by zero-width joiners) is one cluster, two columns wide.
        let family = "\u{1f468}\u{200d}\u{1f469}\u{200d}\u{1f467}";
        assert_eq!(
            fit(&format!("{family}{family}"), 3, Align::Left),
            format!("{family}\u{2026}")
        );
        // A flag is a pair of regional indicators: both go, or neither.
        let flag = "\u{1f1eb}\u{1f1f7}";
        assert_eq!(fit(&format!("{flag}{flag}"), 2, Align::Left), "\u{2026} ");
        assert_eq!(
            fit(&format!("{flag}{flag}{flag}"), 5, Align::Left),
            format!("{flag}{flag}\u{2026}")
        );
        // A thumb with its skin tone stays whole.
        let thumb = "\u{1f44d}\u{1f3fd}";
        assert_eq!(
            fit(&format!("{thumb}{thumb}"), 3, Align::Left),
            format!("{thumb}\u{2026}")
        );
        // A letter with two combining marks, cut after it.
        let marked = "a\u{301}\u{323}";
        assert_eq!(
            fit(&format!("{marked}{marked}{marked}"), 2, Align::Left),
            format!("{marked}\u{2026}")
        );
    }

    #[test]
    fn a_long_label_keeps_its_cut_short_mark() {
        let long = "a-rather-long-session-identifier-0001";
        let cell = fit(&session_label(long, true), SESSION_WIDTH, Align::Left);
        assert_eq!(cell, "a-rather-long-sess…*");
        assert_eq!(session_label("s-1", true), "s-1*");
        assert_eq!(session_label(long, false), long);
        // Wide and escaped labels too.
        let wide = fit(
            &session_label("日本語のセッション名前", true),
            20,
            Align::Left,
        );
        assert_eq!(wide, "日本語のセッション…*");
    }

    #[test]
    fn every_session_line_has_the_same_columns() {
        let names = [
            "plain-ascii-id",
            "セッション-日本語の名前が長い",
            "🚀🚀 emoji 🚀🚀🚀🚀🚀🚀🚀🚀",
            "cafe\u{301}-re\u{301}sume\u{301}-with-marks-long",
        ];
        let header = titles(&SESSIONS);
        let created = header.find("CREATED").unwrap_or_default();
        for name in names {
            let cells = [name.to_string(), "2026-11-01".to_string(), "7".to_string()];
            let row = line(&SESSIONS, &cells);
            // The date starts where its title does, in columns.
            let (before, _) = row.split_at(row.find("2026-11-01").unwrap_or_default());
            assert_eq!(before.width(), created, "{row:?}");
        }
    }
}
