//! Line diffs of two texts as unified hunks (the shape of the npm `diff` package's
//! `structuredPatch` hunks), computed with a bounded Myers diff (`myers`).
//!
//! A text is its lines split at `\n`: `"a\nb"` is `["a", "b"]`, `"a\n"` is `["a", ""]`, and
//! `""` has no lines. Joining the lines with `\n` gives the text back byte for byte, so a `\r`
//! before a line end stays part of its line and there is no "no newline at end of file" marker.

use std::ops::Range;

use super::intern::Interner;
use super::myers;

/// Lines of unchanged context around each change, as `structuredPatch` gives by default.
pub const CONTEXT: usize = 3;

/// One hunk, as the npm `diff` package's `structuredPatch` gives it: a run of changes with up to
/// 3 lines of context around it. A text is its lines split at `"\n"`: a text ending in a line
/// end has an empty last line, and `""` has none, so joining the lines gives it back.
#[derive(Clone, Debug, PartialEq, Eq)]
#[cfg_attr(
    feature = "wasm",
    derive(tsify::Tsify),
    serde(rename_all = "camelCase")
)]
#[non_exhaustive]
pub struct DiffHunk {
    /// First line of the hunk in the old text, 1-based; for a hunk with no old lines, the line
    /// after which it inserts (0 at the start).
    pub old_start: usize,
    /// Lines of the old text the hunk covers.
    pub old_lines: usize,
    /// First line of the hunk in the new text, counted as the old start is.
    pub new_start: usize,
    /// Lines of the new text the hunk covers.
    pub new_lines: usize,
    /// The lines, each starting with `' '` (context), `'-'` (removed) or `'+'` (added).
    pub lines: Vec<String>,
}

/// What changed between two texts, line by line.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
#[cfg_attr(
    feature = "wasm",
    derive(tsify::Tsify),
    serde(rename_all = "camelCase")
)]
#[non_exhaustive]
pub struct TextDiff {
    /// The hunks, in text order; none when the texts are equal.
    pub hunks: Vec<DiffHunk>,
    /// Lines added.
    pub added: usize,
    /// Lines removed.
    pub removed: usize,
    /// Whether the texts were too far apart to diff within the work bound (1,000,000 steps):
    /// then every line between the common first and last lines is shown removed, then added,
    /// without looking for lines in common inside.
    pub replaced_whole: bool,
}

impl TextDiff {
    /// Whether the texts were equal.
    pub fn is_empty(&self) -> bool {
        self.hunks.is_empty()
    }
}

/// The lines of `text` (see the module documentation).
pub fn split_lines(text: &str) -> Vec<&str> {
    // A loop where `collect` made its own copy of `Vec`'s extend (600 bytes of wasm).
    let mut lines = Vec::new();
    if !text.is_empty() {
        for line in text.split('\n') {
            lines.push(line);
        }
    }
    lines
}

/// A run of changed lines: `old` replaced by `new` (either may be empty).
#[derive(Clone, Debug, PartialEq, Eq)]
struct Change {
    old: Range<usize>,
    new: Range<usize>,
}

/// Diffs `old` against `new` line by line.
pub fn diff_lines(old: &str, new: &str) -> TextDiff {
    if old == new {
        return TextDiff::default();
    }
    let old_lines = split_lines(old);
    let new_lines = split_lines(new);
    let mut interner = Interner::new(old_lines.len().saturating_add(new_lines.len()));
    let old_ids: Vec<u32> = old_lines.iter().map(|line| interner.intern(line)).collect();
    let new_ids: Vec<u32> = new_lines.iter().map(|line| interner.intern(line)).collect();
    let (prefix, suffix) = common_ends(&old_ids, &new_ids);
    let old_middle = prefix..old_ids.len().saturating_sub(suffix);
    let new_middle = prefix..new_ids.len().saturating_sub(suffix);
    let edits = edits(
        old_ids.get(old_middle.clone()).unwrap_or_default(),
        new_ids.get(new_middle.clone()).unwrap_or_default(),
        interner.count(),
    );
    let changes = match &edits {
        Some((removed, added)) => changes(removed, added, prefix),
        None => vec![Change {
            old: old_middle,
            new: new_middle,
        }],
    };
    let mut diff = hunks(&old_lines, &new_lines, &changes);
    diff.replaced_whole = edits.is_none();
    diff
}

/// Lengths of the common first lines and of the common last lines (not overlapping).
fn common_ends(old: &[u32], new: &[u32]) -> (usize, usize) {
    let prefix = old
        .iter()
        .zip(new)
        .take_while(|(old, new)| old == new)
        .count();
    let rest_old = old.get(prefix..).unwrap_or_default();
    let rest_new = new.get(prefix..).unwrap_or_default();
    let suffix = rest_old
        .iter()
        .rev()
        .zip(rest_new.iter().rev())
        .take_while(|(old, new)| old == new)
        .count();
    (prefix, suffix)
}

/// Which lines of `old` are removed and which of `new` added (ids below `ids`), `None` past the
/// work bound. Lines that do not occur on the other side are changes whatever the diff finds,
/// so only the others go to the Myers diff (as GNU diff and git do): two unrelated prompts then
/// cost almost nothing.
fn edits(old: &[u32], new: &[u32], ids: usize) -> Option<(Vec<bool>, Vec<bool>)> {
    let mut in_old = vec![false; ids];
    let mut in_new = vec![false; ids];
    for (lines, seen) in [(old, &mut in_old), (new, &mut in_new)] {
        for id in lines {
            if let Some(flag) = seen.get_mut(*id as usize) {
                *flag = true;
            }
        }
    }
    // The lines kept for the diff: their index and id.
    let shared = |lines: &[u32], other: &[bool]| -> (Vec<usize>, Vec<u32>) {
        lines
            .iter()
            .enumerate()
            .filter(|(_, id)| other.get(**id as usize).copied().unwrap_or(false))
            .map(|(at, id)| (at, *id))
            .unzip()
    };
    let (old_at, old_kept) = shared(old, &in_new);
    let (new_at, new_kept) = shared(new, &in_old);
    let (kept_removed, kept_added) = myers::diff(&old_kept, &new_kept)?;
    let spread = |length: usize, at: &[usize], flags: &[bool]| -> Vec<bool> {
        let mut all = vec![true; length];
        for (at, flag) in at.iter().zip(flags) {
            if let Some(slot) = all.get_mut(*at) {
                *slot = *flag;
            }
        }
        all
    };
    Some((
        spread(old.len(), &old_at, &kept_removed),
        spread(new.len(), &new_at, &kept_added),
    ))
}

/// The runs of removed and added lines, as changes of the whole texts (`offset` lines before).
fn changes(removed: &[bool], added: &[bool], offset: usize) -> Vec<Change> {
    let mut changes = Vec::new();
    let (mut x, mut y) = (0usize, 0usize);
    let flagged = |flags: &[bool], at: usize| flags.get(at).copied().unwrap_or(false);
    while x < removed.len() || y < added.len() {
        if flagged(removed, x) || flagged(added, y) {
            let (from_x, from_y) = (x, y);
            while flagged(removed, x) {
                x = x.saturating_add(1);
            }
            while flagged(added, y) {
                y = y.saturating_add(1);
            }
            changes.push(Change {
                old: offset.saturating_add(from_x)..offset.saturating_add(x),
                new: offset.saturating_add(from_y)..offset.saturating_add(y),
            });
        } else {
            // A kept line, on both sides.
            x = x.saturating_add(1);
            y = y.saturating_add(1);
        }
    }
    changes
}

/// Groups `changes` into hunks with [`CONTEXT`] lines around them: changes whose unchanged gap
/// is at most twice the context share a hunk.
fn hunks(old: &[&str], new: &[&str], changes: &[Change]) -> TextDiff {
    let mut diff = TextDiff::default();
    let mut rest = changes;
    while let Some(first) = rest.first() {
        let mut taken = 1usize;
        while let (Some(last), Some(next)) = (rest.get(taken.saturating_sub(1)), rest.get(taken)) {
            if next.old.start.saturating_sub(last.old.end) > CONTEXT.saturating_mul(2) {
                break;
            }
            taken = taken.saturating_add(1);
        }
        let (group, after) = rest.split_at(taken.min(rest.len()));
        rest = after;
        let lead = first.old.start.min(CONTEXT);
        let old_from = first.old.start.saturating_sub(lead);
        let new_from = first.new.start.saturating_sub(lead);
        let mut lines = Vec::new();
        let mut at = old_from;
        let mut old_count = 0usize;
        let mut new_count = 0usize;
        for change in group {
            for line in old.get(at..change.old.start).unwrap_or_default() {
                lines.push(prefixed(' ', line));
            }
            let context = change.old.start.saturating_sub(at);
            old_count = old_count.saturating_add(context);
            new_count = new_count.saturating_add(context);
            for line in old.get(change.old.clone()).unwrap_or_default() {
                lines.push(prefixed('-', line));
            }
            for line in new.get(change.new.clone()).unwrap_or_default() {
                lines.push(prefixed('+', line));
            }
            old_count = old_count.saturating_add(change.old.len());
            new_count = new_count.saturating_add(change.new.len());
            diff.removed = diff.removed.saturating_add(change.old.len());
            diff.added = diff.added.saturating_add(change.new.len());
            at = change.old.end;
        }
        let trail_end = at.saturating_add(CONTEXT).min(old.len());
        for line in old.get(at..trail_end).unwrap_or_default() {
            lines.push(prefixed(' ', line));
        }
        let trail = trail_end.saturating_sub(at);
        old_count = old_count.saturating_add(trail);
        new_count = new_count.saturating_add(trail);
        diff.hunks.push(DiffHunk {
            old_start: start(old_from, old_count),
            old_lines: old_count,
            new_start: start(new_from, new_count),
            new_lines: new_count,
            lines,
        });
    }
    diff
}

/// A unified-diff start line: 1-based, or the line before for an empty range.
fn start(from: usize, lines: usize) -> usize {
    if lines == 0 {
        from
    } else {
        from.saturating_add(1)
    }
}

fn prefixed(mark: char, line: &str) -> String {
    let mut text = String::with_capacity(line.len().saturating_add(1));
    text.push(mark);
    text.push_str(line);
    text
}

/// Applies `hunks` to `old` as a patch tool would (for the tests): `None` when a context or
/// removed line does not match.
#[cfg(test)]
pub fn apply(old: &str, hunks: &[DiffHunk]) -> Option<String> {
    let old_lines = split_lines(old);
    let mut out: Vec<&str> = Vec::new();
    let mut at = 0usize;
    for hunk in hunks {
        let from = if hunk.old_lines == 0 {
            hunk.old_start
        } else {
            hunk.old_start.checked_sub(1)?
        };
        out.extend(old_lines.get(at..from)?);
        at = from;
        for line in &hunk.lines {
            let (mark, text) = line.split_at(1);
            match mark {
                " " | "-" => {
                    if *old_lines.get(at)? != text {
                        return None;
                    }
                    at += 1;
                    if mark == " " {
                        out.push(text);
                    }
                }
                "+" => out.push(text),
                _ => return None,
            }
        }
    }
    out.extend(old_lines.get(at..)?);
    Some(out.join("\n"))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn check(old: &str, new: &str) -> TextDiff {
        let diff = diff_lines(old, new);
        assert_eq!(apply(old, &diff.hunks).as_deref(), Some(new), "{diff:?}");
        diff
    }

    #[test]
    fn equal_texts_have_no_hunks() {
        for text in ["", "a", "a\nb\n", "\r\n"] {
            let diff = check(text, text);
            assert!(diff.is_empty());
            assert_eq!((diff.added, diff.removed), (0, 0));
        }
    }

    #[test]
    fn an_empty_side_is_one_hunk_at_line_zero() {
        let diff = check("", "a\nb");
        assert_eq!(diff.hunks.len(), 1);
        let hunk = &diff.hunks[0];
        assert_eq!(
            (
                hunk.old_start,
                hunk.old_lines,
                hunk.new_start,
                hunk.new_lines
            ),
            (0, 0, 1, 2)
        );
        assert_eq!(hunk.lines, ["+a", "+b"]);
        let cleared = check("a\nb", "");
        assert_eq!(cleared.hunks[0].lines, ["-a", "-b"]);
        assert_eq!((cleared.added, cleared.removed), (0, 2));
        assert_eq!(
            (cleared.hunks[0].new_start, cleared.hunks[0].new_lines),
            (0, 0)
        );
    }

    #[test]
    fn context_is_three_lines_and_near_changes_share_a_hunk() {
        let old: Vec<String> = (0..30).map(|i| format!("line {i}")).collect();
        let mut new = old.clone();
        new[5] = "five".into();
        new[11] = "eleven".into(); // gap of 5 unchanged lines: same hunk
        new[25] = "twenty-five".into(); // gap of 13: a new hunk
        let diff = check(&old.join("\n"), &new.join("\n"));
        assert_eq!(diff.hunks.len(), 2);
        let first = &diff.hunks[0];
        assert_eq!((first.old_start, first.old_lines), (3, 13));
        assert_eq!(first.lines.first().map(String::as_str), Some(" line 2"));
        assert_eq!(first.lines.last().map(String::as_str), Some(" line 14"));
        assert_eq!((diff.added, diff.removed), (3, 3));
    }

    #[test]
    fn crlf_lines_keep_their_carriage_return() {
        let diff = check("a\r\nb\r\nc\r\n", "a\r\nB\r\nc\r\n");
        assert_eq!(diff.hunks[0].lines, [" a\r", "-b\r", "+B\r", " c\r", " "]);
        // A line end added at the end is one added (empty) line.
        let end = check("a", "a\n");
        assert_eq!((end.added, end.removed), (1, 0));
        // Only the line ends changed: every line differs.
        let ends = check("a\nb", "a\r\nb\r");
        assert_eq!((ends.added, ends.removed), (2, 2));
    }

    #[test]
    fn unicode_and_very_long_lines() {
        let long_old = "é".repeat(300_000);
        let long_new = format!("{}ü", "é".repeat(300_000));
        let diff = check(
            &format!("ok\n{long_old}\n🦀"),
            &format!("ok\n{long_new}\n🦀"),
        );
        assert_eq!((diff.added, diff.removed), (1, 1));
        assert!(!diff.replaced_whole);
        check("日本語\nテキスト", "日本語\nテキスト\n中文");
    }

    #[test]
    fn far_apart_inputs_are_replaced_whole() {
        // Few distinct lines in a different order: the diff's worst case.
        let make = |seed: u64| -> String {
            let mut state = seed;
            (0..20_000)
                .map(|_| {
                    state = state
                        .wrapping_mul(6364136223846793005)
                        .wrapping_add(1442695040888963407);
                    format!("line {}", (state >> 33) % 20)
                })
                .collect::<Vec<_>>()
                .join("\n")
        };
        let (old, new) = (
            format!("head\n{}\ntail", make(1)),
            format!("head\n{}\ntail", make(2)),
        );
        let diff = check(&old, &new);
        assert!(diff.replaced_whole);
        assert_eq!(diff.hunks.len(), 1);
        assert_eq!(
            diff.hunks[0].lines.first().map(String::as_str),
            Some(" head")
        );
        assert_eq!((diff.added, diff.removed), (20_000, 20_000));
    }

    #[test]
    fn near_inputs_stay_within_the_bound() {
        let old: Vec<String> = (0..40_000).map(|i| format!("line {}", i % 7)).collect();
        let mut new = old.clone();
        new.insert(20_000, "inserted".into());
        let diff = check(&old.join("\n"), &new.join("\n"));
        assert!(!diff.replaced_whole);
        assert_eq!((diff.added, diff.removed), (1, 0));
    }
}
