//! Line diffs of two texts as unified hunks (the shape of the npm `diff` package's
//! `structuredPatch` hunks), computed with `imara-diff` within a bound on the work.
//!
//! A text is its lines split at `\n`: `"a\nb"` is `["a", "b"]`, `"a\n"` is `["a", ""]`, and
//! `""` has no lines. Joining the lines with `\n` gives the text back byte for byte, so a `\r`
//! before a line end stays part of its line and there is no "no newline at end of file" marker.

use std::ops::Range;

use imara_diff::{Algorithm, Diff, InternedInput, Token};

/// Lines of unchanged context around each change, as `structuredPatch` gives by default.
pub const CONTEXT: usize = 3;

/// The most work a line diff may take, in units of the estimate [`estimated_work`] makes (about
/// a nanosecond each in wasm, see docs/diff.md). Past it the changed middle is replaced whole.
pub const WORK_BOUND: u64 = 20_000_000;

/// One hunk: a run of changes with up to [`CONTEXT`] lines of context around it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Hunk {
    /// First line of the hunk in the old text, 1-based; for a hunk with no old lines, the line
    /// after which it inserts (0 at the start).
    pub old_start: usize,
    /// Lines of the old text the hunk covers.
    pub old_lines: usize,
    /// First line of the hunk in the new text, counted as `old_start` is.
    pub new_start: usize,
    /// Lines of the new text the hunk covers.
    pub new_lines: usize,
    /// The lines, each starting with `' '` (context), `'-'` (removed) or `'+'` (added).
    pub lines: Vec<String>,
}

/// What changed between two texts, line by line.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct TextDiff {
    /// The hunks, in text order; none when the texts are equal.
    pub hunks: Vec<Hunk>,
    /// Lines added.
    pub added: usize,
    /// Lines removed.
    pub removed: usize,
    /// Whether the diff went past [`WORK_BOUND`]: then every line between the common first and
    /// last lines is shown removed, then added, without looking for lines in common inside.
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
    if text.is_empty() {
        Vec::new()
    } else {
        text.split('\n').collect()
    }
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
    let mut input: InternedInput<&str> = InternedInput::default();
    input.reserve(count(old_lines.len()), count(new_lines.len()));
    input.update_before(old_lines.iter().copied());
    input.update_after(new_lines.iter().copied());
    let tokens = input.interner.num_tokens();
    let within = estimated_work(&input.before, &input.after, tokens) <= WORK_BOUND;
    let changes = if within {
        let mut diff = Diff::default();
        diff.compute_with(Algorithm::Histogram, &input.before, &input.after, tokens);
        diff.postprocess_lines(&input);
        diff.hunks()
            .map(|hunk| Change {
                old: index(hunk.before.start)..index(hunk.before.end),
                new: index(hunk.after.start)..index(hunk.after.end),
            })
            .collect()
    } else {
        whole_middle(&input.before, &input.after)
    };
    let mut diff = hunks(&old_lines, &new_lines, &changes);
    diff.replaced_whole = !within;
    diff
}

/// A line count as `imara-diff` takes it (prompts are far below `u32::MAX` lines).
fn count(lines: usize) -> u32 {
    u32::try_from(lines).unwrap_or(u32::MAX)
}

/// A line index `imara-diff` returned.
fn index(line: u32) -> usize {
    line as usize
}

/// The fallback: everything between the common first and last lines, replaced.
fn whole_middle(old: &[Token], new: &[Token]) -> Vec<Change> {
    let (prefix, suffix) = common_ends(old, new);
    vec![Change {
        old: prefix..old.len().saturating_sub(suffix),
        new: prefix..new.len().saturating_sub(suffix),
    }]
}

/// Lengths of the common first lines and of the common last lines (not overlapping).
fn common_ends(old: &[Token], new: &[Token]) -> (usize, usize) {
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

/// An upper bound on the work of the diff: `(n + m) * d`, where `n` and `m` count the lines
/// between the common ends that occur on both sides (the diff drops the others first) and `d`
/// bounds the edit distance between those: `n + m` less twice the lines of a common
/// subsequence found cheaply (lines unique on both sides, in increasing order on both, each
/// extended over the equal lines around it). The diff's Myers stage costs `O((n + m) * D)`.
pub fn estimated_work(old: &[Token], new: &[Token], tokens: u32) -> u64 {
    let (prefix, suffix) = common_ends(old, new);
    let old = old
        .get(prefix..old.len().saturating_sub(suffix))
        .unwrap_or_default();
    let new = new
        .get(prefix..new.len().saturating_sub(suffix))
        .unwrap_or_default();
    let slots = index(tokens);
    let mut in_old = vec![0u32; slots];
    let mut in_new = vec![0u32; slots];
    for (tokens, counts) in [(old, &mut in_old), (new, &mut in_new)] {
        for token in tokens {
            if let Some(count) = counts.get_mut(index(token.0)) {
                *count = count.saturating_add(1);
            }
        }
    }
    let occurs = |counts: &[u32], token: &Token| counts.get(index(token.0)).is_some_and(|c| *c > 0);
    let shared_old = old.iter().filter(|token| occurs(&in_new, token)).count();
    let shared_new = new.iter().filter(|token| occurs(&in_old, token)).count();
    let shared = as_u64(shared_old.saturating_add(shared_new));
    let matched = as_u64(anchored_matches(old, new, &in_old, &in_new));
    shared.saturating_mul(shared.saturating_sub(matched.saturating_mul(2)))
}

fn as_u64(value: usize) -> u64 {
    u64::try_from(value).unwrap_or(u64::MAX)
}

/// The length of a common subsequence of `old` and `new`: the longest increasing run of lines
/// unique on both sides, each extended over equal neighbours up to the next one.
fn anchored_matches(old: &[Token], new: &[Token], in_old: &[u32], in_new: &[u32]) -> usize {
    let unique = |token: &Token| {
        in_old.get(index(token.0)) == Some(&1) && in_new.get(index(token.0)) == Some(&1)
    };
    let mut position_in_new = vec![usize::MAX; in_new.len()];
    for (at, token) in new.iter().enumerate() {
        if unique(token) {
            if let Some(slot) = position_in_new.get_mut(index(token.0)) {
                *slot = at;
            }
        }
    }
    let pairs: Vec<(usize, usize)> = old
        .iter()
        .enumerate()
        .filter(|(_, token)| unique(token))
        .filter_map(|(at, token)| Some((at, *position_in_new.get(index(token.0))?)))
        .collect();
    let anchors = longest_increasing(&pairs);
    let mut matched = 0usize;
    let mut reached = (0usize, 0usize);
    for (number, &(at_old, at_new)) in anchors.iter().enumerate() {
        let next = anchors
            .get(number.saturating_add(1))
            .copied()
            .unwrap_or((old.len(), new.len()));
        let mut back = 0usize;
        while at_old > reached.0.saturating_add(back)
            && at_new > reached.1.saturating_add(back)
            && old.get(at_old.saturating_sub(back.saturating_add(1)))
                == new.get(at_new.saturating_sub(back.saturating_add(1)))
        {
            back = back.saturating_add(1);
        }
        let mut ahead = 1usize;
        while at_old.saturating_add(ahead) < next.0
            && at_new.saturating_add(ahead) < next.1
            && old.get(at_old.saturating_add(ahead)) == new.get(at_new.saturating_add(ahead))
        {
            ahead = ahead.saturating_add(1);
        }
        matched = matched.saturating_add(back).saturating_add(ahead);
        reached = (at_old.saturating_add(ahead), at_new.saturating_add(ahead));
    }
    matched
}

/// The longest subsequence of `pairs` (ascending by their first member) whose second members
/// increase too (patience sorting, `O(k log k)`).
fn longest_increasing(pairs: &[(usize, usize)]) -> Vec<(usize, usize)> {
    // tails[length - 1]: index into `pairs` of the smallest end of an increasing run that long.
    let mut tails: Vec<usize> = Vec::new();
    let mut before: Vec<Option<usize>> = Vec::with_capacity(pairs.len());
    for (at, (_, value)) in pairs.iter().enumerate() {
        let length = tails.partition_point(|&tail| pairs.get(tail).is_some_and(|t| t.1 < *value));
        before.push(
            length
                .checked_sub(1)
                .and_then(|prior| tails.get(prior).copied()),
        );
        match tails.get_mut(length) {
            Some(tail) => *tail = at,
            None => tails.push(at),
        }
    }
    let mut run = Vec::with_capacity(tails.len());
    let mut cursor = tails.last().copied();
    while let Some(at) = cursor {
        if let Some(pair) = pairs.get(at) {
            run.push(*pair);
        }
        cursor = before.get(at).copied().flatten();
    }
    run.reverse();
    run
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
        diff.hunks.push(Hunk {
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
pub fn apply(old: &str, hunks: &[Hunk]) -> Option<String> {
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

    #[test]
    fn longest_increasing_picks_a_longest_run() {
        let pairs = [(0, 3), (1, 1), (2, 2), (3, 0), (4, 5), (5, 4), (6, 6)];
        let run = longest_increasing(&pairs);
        assert_eq!(run.len(), 4);
        assert!(run.windows(2).all(|w| w[0].0 < w[1].0 && w[0].1 < w[1].1));
    }
}
