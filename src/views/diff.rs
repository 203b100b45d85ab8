//! What changed between two prompts: the system text as unified hunks with its sections named,
//! the tools by name, and the config members. Computed on demand (see `Conversation::card_diff`),
//! never while a window loads. The rules are in docs/diff.md and in each submodule.

use crate::fold::request::PromptSnapshot;

mod intern;
mod lines;
mod myers;
mod pairing;
mod sections;
mod tools;

pub use lines::{diff_lines, DiffHunk, TextDiff};
pub use sections::{PromptSection, SectionStatus};
pub use tools::{ConfigDiff, ToolDiff, ToolStatus, ToolsDiff};

/// The system text's diff and its sections.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
#[cfg_attr(
    feature = "wasm",
    derive(tsify::Tsify),
    serde(rename_all = "camelCase")
)]
#[non_exhaustive]
pub struct SystemDiff {
    /// The line diff (its members are the system diff's own in JS).
    #[cfg_attr(feature = "wasm", serde(flatten))]
    pub diff: TextDiff,
    /// The sections of the new text with their status, removed ones of the old text among them.
    pub sections: Vec<PromptSection>,
}

/// What changed from one prompt to another.
#[derive(Clone, Debug, Default, PartialEq)]
#[cfg_attr(
    feature = "wasm",
    derive(tsify::Tsify),
    serde(rename_all = "camelCase")
)]
#[non_exhaustive]
pub struct PromptDiff {
    /// The system text.
    pub system: SystemDiff,
    /// The tools (none differ when only system texts were compared).
    pub tools: ToolsDiff,
    /// The config members that differ (reported only: a config change is never a prompt
    /// change, BEHAVIOUR.md section 3).
    pub config: Vec<ConfigDiff>,
}

/// Compares two whole prompts.
pub fn diff_prompts(previous: &PromptSnapshot, current: &PromptSnapshot) -> PromptDiff {
    PromptDiff {
        system: diff_system(&previous.system, &current.system),
        tools: if previous.tools_text() == current.tools_text() {
            ToolsDiff::default()
        } else {
            tools::compare_tools(&previous.tools, &current.tools)
        },
        config: tools::compare_config(previous.config.as_ref(), current.config.as_ref()),
    }
}

/// Compares two system texts.
pub fn diff_system(previous: &str, current: &str) -> SystemDiff {
    SystemDiff {
        diff: diff_lines(previous, current),
        sections: sections::compare_sections(
            &lines::split_lines(previous),
            &lines::split_lines(current),
        ),
    }
}

#[cfg(all(test, not(target_arch = "wasm32")))]
mod properties {
    use proptest::prelude::*;

    use super::lines::{apply, split_lines, CONTEXT};
    use super::sections::{split_sections, Section};
    use super::*;

    /// Lines a prompt is made of: headings, fences, blank lines, CRLF ends, unicode.
    fn line() -> impl Strategy<Value = String> {
        prop_oneof![
            3 => "[a-e ]{0,12}",
            1 => "#{1,3} [A-C]{1,2}",
            1 => Just(String::new()),
            1 => Just("```".to_owned()),
            1 => "[a-c]{1,3}\r",
            1 => "[é🦀日 ]{1,4}",
        ]
    }

    fn prompt() -> impl Strategy<Value = Vec<String>> {
        prop::collection::vec(line(), 0..40)
    }

    /// An edit at a relative position: replace, insert or remove up to a few lines.
    fn edits() -> impl Strategy<Value = Vec<(f64, usize, Vec<String>)>> {
        prop::collection::vec(
            (0.0..1.0f64, 0usize..4, prop::collection::vec(line(), 0..4)),
            0..5,
        )
    }

    fn edited(lines: &[String], edits: &[(f64, usize, Vec<String>)]) -> Vec<String> {
        let mut out = lines.to_vec();
        for (at, remove, insert) in edits {
            let start = ((out.len() as f64) * at) as usize;
            let end = (start + remove).min(out.len());
            out.splice(start..end, insert.iter().cloned());
        }
        out
    }

    proptest! {
        #[test]
        fn hunks_turn_the_old_text_into_the_new(old in prompt(), changes in edits()) {
            let new = edited(&old, &changes);
            let (old, new) = (old.join("\n"), new.join("\n"));
            let diff = diff_system(&old, &new);
            prop_assert_eq!(apply(&old, &diff.diff.hunks), Some(new.clone()));
            let marked = |mark: char| diff.diff.hunks.iter().flat_map(|h| &h.lines).filter(|l| l.starts_with(mark)).count();
            prop_assert_eq!(diff.diff.added, marked('+'));
            prop_assert_eq!(diff.diff.removed, marked('-'));
            for hunk in &diff.diff.hunks {
                let lead = hunk.lines.iter().take_while(|l| l.starts_with(' ')).count();
                let trail = hunk.lines.iter().rev().take_while(|l| l.starts_with(' ')).count();
                prop_assert!(lead <= CONTEXT && trail <= CONTEXT);
            }
            for pair in diff.diff.hunks.windows(2) {
                prop_assert!(pair[1].old_start > pair[0].old_start + pair[0].old_lines);
            }
            // Every unchanged section has the same text as the old section it pairs with (the
            // n-th of its title).
            let (old_lines, new_lines) = (split_lines(&old), split_lines(&new));
            let (old_sections, new_sections) = (split_sections(&old_lines), split_sections(&new_lines));
            let text = |lines: &[&str], s: &Section| lines[s.first..s.first + s.count].join("\n");
            for change in &diff.sections {
                if change.status != SectionStatus::Unchanged {
                    continue;
                }
                let at = new_sections.iter().position(|s| s.first + 1 == change.first_line).unwrap();
                let section = &new_sections[at];
                let nth = new_sections[..at].iter().filter(|s| s.title == section.title).count();
                let partner = old_sections.iter().filter(|s| s.title == section.title).nth(nth).unwrap();
                prop_assert_eq!(text(&old_lines, partner), text(&new_lines, section));
            }
            // The sections of the new text are all listed, in order.
            let listed: Vec<usize> = diff.sections.iter().filter(|s| s.status != SectionStatus::Removed).map(|s| s.first_line).collect();
            let expected: Vec<usize> = new_sections.iter().map(|s| s.first + 1).collect();
            prop_assert_eq!(listed, expected);
        }
    }
}
