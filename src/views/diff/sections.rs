//! A prompt split into named sections, and which sections changed between two prompts.
//!
//! The rule: lines are split at `\n` (see [`super::lines`]). A Markdown ATX heading (up to three spaces,
//! one to six `#`, then a space, a tab or the line end), outside a fenced code block (a line
//! starting, after up to three spaces, with three or more backticks or tildes opens one; the same
//! fence closes it), starts a section titled with the heading's text. Lines before the first
//! heading form a section of their own, titled with their first nonblank line. A text without
//! headings is split into blocks instead: a block starts at the first nonblank line after a blank
//! one (a line of spaces, tabs and `\r` only), keeps the blank lines that follow it, and is titled
//! with its first line. Titles are trimmed and cut to [`TITLE_CHARS`] characters (then ending in
//! `…`).
//!
//! Sections of the two prompts are paired by title, the n-th section of a title with the n-th of
//! the same title: a paired section is `unchanged` when its text is byte for byte the same, else
//! `changed`; an unpaired one is `added` (new prompt) or `removed` (old prompt). So a section
//! whose title changed is removed and added.

use super::pairing::pair_by_name;

/// The longest title kept, in characters.
pub const TITLE_CHARS: usize = 60;

/// A section of one text: its title and its lines.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Section {
    /// The heading's text, or the block's first line.
    pub title: String,
    /// Index of its first line (0-based).
    pub first: usize,
    /// Number of lines.
    pub count: usize,
}

/// How a section differs between the old and the new prompt.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(
    feature = "wasm",
    derive(tsify::Tsify),
    serde(rename_all = "lowercase")
)]
#[non_exhaustive]
pub enum SectionStatus {
    /// Only in the new prompt.
    Added,
    /// Only in the old prompt.
    Removed,
    /// In both, with different text.
    Changed,
    /// In both, byte for byte the same.
    Unchanged,
}

impl SectionStatus {
    /// The status as text: `"added"`, `"removed"`, `"changed"` or `"unchanged"`.
    pub fn name(self) -> &'static str {
        match self {
            SectionStatus::Added => "added",
            SectionStatus::Removed => "removed",
            SectionStatus::Changed => "changed",
            SectionStatus::Unchanged => "unchanged",
        }
    }
}

/// A section of the prompt and how it differs: a Markdown heading starts one; a prompt without
/// headings is split into blocks at blank lines (docs/diff.md). Sections pair by title.
#[derive(Clone, Debug, PartialEq, Eq)]
#[cfg_attr(
    feature = "wasm",
    derive(tsify::Tsify),
    serde(rename_all = "camelCase")
)]
#[non_exhaustive]
pub struct PromptSection {
    /// The section's title.
    pub title: String,
    /// How it differs.
    pub status: SectionStatus,
    /// Its first line, 1-based, in the new prompt (in the old one for a removed section).
    pub first_line: usize,
    /// Its number of lines there.
    pub line_count: usize,
}

/// Splits `lines` into sections by the rule of the module documentation.
pub fn split_sections(lines: &[&str]) -> Vec<Section> {
    let headings = headings(lines);
    let starts: Vec<(usize, String)> = if headings.is_empty() {
        blocks(lines)
    } else {
        let mut starts = Vec::with_capacity(headings.len().saturating_add(1));
        if headings.first().is_some_and(|(first, _)| *first > 0) {
            let title = lines
                .iter()
                .find(|line| !is_blank(line))
                .map_or_else(String::new, |line| title(line));
            starts.push((0, title));
        }
        starts.extend(headings);
        starts
    };
    // A loop where a collect of a zip with a chain made its own copy of `Vec`'s extend.
    let mut sections = Vec::with_capacity(starts.len());
    let mut rest = starts.into_iter().peekable();
    while let Some((first, title)) = rest.next() {
        let end = rest.peek().map_or(lines.len(), |(next, _)| *next);
        sections.push(Section {
            title,
            first,
            count: end.saturating_sub(first),
        });
    }
    sections
}

/// The sections of the new text with their status, and the removed ones of the old text after
/// the new section paired with the nearest paired section before them.
pub fn compare_sections(old: &[&str], new: &[&str]) -> Vec<PromptSection> {
    let old_sections = split_sections(old);
    let new_sections = split_sections(new);
    fn text<'a>(lines: &'a [&'a str], section: &Section) -> &'a [&'a str] {
        lines
            .get(section.first..section.first.saturating_add(section.count))
            .unwrap_or_default()
    }
    fn titles(sections: &[Section]) -> Vec<&str> {
        sections
            .iter()
            .map(|section| section.title.as_str())
            .collect()
    }
    let partners = pair_by_name(&titles(&old_sections), &titles(&new_sections));
    // For each old section, the new section it pairs with.
    let mut paired_with = vec![usize::MAX; old_sections.len()];
    for (at, partner) in partners.iter().enumerate() {
        if let Some(slot) = partner.and_then(|old_at| paired_with.get_mut(old_at)) {
            *slot = at;
        }
    }
    // Removed sections by the new section they go before (the last slot: after them all).
    let mut removed: Vec<Vec<PromptSection>> =
        vec![Vec::new(); new_sections.len().saturating_add(1)];
    let mut place = 0usize;
    for (old_at, section) in old_sections.iter().enumerate() {
        match paired_with.get(old_at) {
            Some(&new_at) if new_at != usize::MAX => place = new_at.saturating_add(1),
            _ => {
                if let Some(slot) = removed.get_mut(place) {
                    slot.push(change(section, SectionStatus::Removed));
                }
            }
        }
    }
    let mut out = Vec::with_capacity(new_sections.len().saturating_add(old_sections.len()));
    let mut removed = removed.into_iter();
    for (section, partner) in new_sections.iter().zip(&partners) {
        out.extend(removed.next().unwrap_or_default());
        let status = match partner.and_then(|old_at| old_sections.get(old_at)) {
            Some(old_section) if text(old, old_section) == text(new, section) => {
                SectionStatus::Unchanged
            }
            Some(_) => SectionStatus::Changed,
            None => SectionStatus::Added,
        };
        out.push(change(section, status));
    }
    out.extend(removed.flatten());
    out
}

fn change(section: &Section, status: SectionStatus) -> PromptSection {
    PromptSection {
        title: section.title.clone(),
        status,
        first_line: section.first.saturating_add(1),
        line_count: section.count,
    }
}

/// The headings of `lines` outside fenced code: (line index, title).
fn headings(lines: &[&str]) -> Vec<(usize, String)> {
    let mut found = Vec::new();
    let mut fence: Option<(u8, usize)> = None;
    for (at, line) in lines.iter().enumerate() {
        let indent = line.bytes().take_while(|byte| *byte == b' ').count();
        let body = line.get(indent..).unwrap_or_default();
        if indent <= 3 {
            if let Some(marker) = fence_marker(body) {
                match fence {
                    None => fence = Some(marker),
                    Some((kind, length)) if marker.0 == kind && marker.1 >= length => fence = None,
                    Some(_) => {}
                }
                continue;
            }
        }
        if fence.is_some() || indent > 3 {
            continue;
        }
        if let Some(text) = heading_text(body) {
            found.push((at, title(text)));
        }
    }
    found
}

/// A fence line's character and length: three or more backticks or tildes.
fn fence_marker(body: &str) -> Option<(u8, usize)> {
    let first = *body.as_bytes().first()?;
    if first != b'`' && first != b'~' {
        return None;
    }
    let length = body.bytes().take_while(|byte| *byte == first).count();
    (length >= 3).then_some((first, length))
}

/// The text of an ATX heading (`## Title ##` gives `Title`), `None` when `body` is not one.
fn heading_text(body: &str) -> Option<&str> {
    let level = body.bytes().take_while(|byte| *byte == b'#').count();
    if !(1..=6).contains(&level) {
        return None;
    }
    let rest = body.get(level..)?;
    if !rest.bytes().next().is_none_or(is_space) {
        return None;
    }
    let text = trim(rest);
    let hashes = text.bytes().rev().take_while(|byte| *byte == b'#').count();
    let closed = text
        .get(..text.len().saturating_sub(hashes))
        .unwrap_or(text);
    if closed.bytes().next_back().is_none_or(is_space) {
        Some(trim(closed))
    } else {
        Some(text)
    }
}

/// Blocks separated by blank lines: (first line, title).
fn blocks(lines: &[&str]) -> Vec<(usize, String)> {
    let mut starts = Vec::new();
    let mut previous_blank = true;
    for (at, line) in lines.iter().enumerate() {
        let blank = is_blank(line);
        if previous_blank && !blank {
            starts.push((at, title(line)));
        }
        previous_blank = blank;
    }
    match starts.first_mut() {
        // Leading blank lines belong to the first block.
        Some(first) => first.0 = 0,
        None if !lines.is_empty() => starts.push((0, String::new())),
        None => {}
    }
    starts
}

/// A space, a tab or a carriage return: what blank lines and title ends are made of.
fn is_space(byte: u8) -> bool {
    matches!(byte, b' ' | b'\t' | b'\r')
}

fn is_blank(line: &str) -> bool {
    line.bytes().all(is_space)
}

/// `text` without spaces, tabs and carriage returns at either end.
fn trim(text: &str) -> &str {
    let start = text.bytes().take_while(|byte| is_space(*byte)).count();
    let rest = text.get(start..).unwrap_or_default();
    let end = rest
        .bytes()
        .rev()
        .take_while(|byte| is_space(*byte))
        .count();
    rest.get(..rest.len().saturating_sub(end)).unwrap_or(rest)
}

/// A line as a title: trimmed and cut to [`TITLE_CHARS`] characters.
fn title(line: &str) -> String {
    let line = trim(line);
    match line.char_indices().nth(TITLE_CHARS) {
        Some((cut, _)) => {
            let mut cut = trim(line.get(..cut).unwrap_or(line)).to_owned();
            cut.push('…');
            cut
        }
        None => line.to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::views::diff::lines::split_lines;

    fn sections(text: &str) -> Vec<(String, usize, usize)> {
        split_sections(&split_lines(text))
            .into_iter()
            .map(|s| (s.title, s.first, s.count))
            .collect()
    }

    fn statuses(old: &str, new: &str) -> Vec<(String, &'static str)> {
        compare_sections(&split_lines(old), &split_lines(new))
            .into_iter()
            .map(|s| (s.title, s.status.name()))
            .collect()
    }

    fn owned(items: &[(&str, usize, usize)]) -> Vec<(String, usize, usize)> {
        items
            .iter()
            .map(|(t, a, b)| ((*t).to_owned(), *a, *b))
            .collect()
    }

    #[test]
    fn headings_start_sections_and_a_preamble_comes_first() {
        let text = "You are a helper.\n\n# Mode\nplan\n## Tools guidance ##\nuse rg\n####### not\n#nospace";
        assert_eq!(
            sections(text),
            owned(&[
                ("You are a helper.", 0, 2),
                ("Mode", 2, 2),
                ("Tools guidance", 4, 4)
            ])
        );
        assert_eq!(sections("# A\n#\n"), owned(&[("A", 0, 1), ("", 1, 2)]));
    }

    #[test]
    fn headings_inside_fences_do_not_count() {
        let text = "# Real\n```sh\n# comment\n```\n~~~\n# also code\n~~~~\n# Next";
        assert_eq!(sections(text), owned(&[("Real", 0, 7), ("Next", 7, 1)]));
        // Indented four spaces: code, not a heading.
        assert_eq!(sections("# A\n    # code"), owned(&[("A", 0, 2)]));
    }

    #[test]
    fn without_headings_blank_lines_separate_blocks() {
        let text = "\n\nFirst block\nmore\n\r\n  \nSecond\n\n";
        assert_eq!(
            sections(text),
            owned(&[("First block", 0, 6), ("Second", 6, 3)])
        );
        assert_eq!(sections(""), owned(&[]));
        assert_eq!(sections("\n\n"), owned(&[("", 0, 3)]));
    }

    #[test]
    fn long_and_unicode_titles_are_cut_on_characters() {
        let long = "ü".repeat(100);
        let title = &sections(&long)[0].0;
        assert_eq!(title.chars().count(), TITLE_CHARS + 1);
        assert!(title.ends_with('…'));
        assert_eq!(sections("# 日本語 \r\ntext")[0].0, "日本語");
    }

    #[test]
    fn sections_pair_by_title() {
        let old = "intro\n# Mode\nplan\n# Old\nx\n# Tools guidance\nrg";
        let new = "intro\n# Mode\nact\n# Tools guidance\nrg\n# New\ny";
        assert_eq!(
            statuses(old, new),
            [
                ("intro".to_owned(), "unchanged"),
                ("Mode".to_owned(), "changed"),
                ("Old".to_owned(), "removed"),
                ("Tools guidance".to_owned(), "unchanged"),
                ("New".to_owned(), "added"),
            ]
        );
        // Emptied and cleared prompts.
        assert_eq!(
            statuses("", "a\n\nb"),
            [("a".to_owned(), "added"), ("b".to_owned(), "added")]
        );
        assert_eq!(statuses("a", ""), [("a".to_owned(), "removed")]);
        assert_eq!(statuses("", ""), []);
    }

    #[test]
    fn repeated_titles_pair_in_order() {
        let old = "# Note\na\n# Note\nb";
        let new = "# Note\na\n# Note\nc\n# Note\nd";
        assert_eq!(
            statuses(old, new),
            [
                ("Note".to_owned(), "unchanged"),
                ("Note".to_owned(), "changed"),
                ("Note".to_owned(), "added"),
            ]
        );
    }

    #[test]
    fn removed_first_sections_come_first() {
        let old = "# Gone\nx\n# Kept\ny";
        let new = "# Kept\ny";
        assert_eq!(
            statuses(old, new),
            [
                ("Gone".to_owned(), "removed"),
                ("Kept".to_owned(), "unchanged")
            ]
        );
        let change = &compare_sections(&split_lines(old), &split_lines(new))[0];
        assert_eq!((change.first_line, change.line_count), (1, 2));
    }
}
