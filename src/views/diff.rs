//! What changed between two prompts: the system text as unified hunks with its sections named,
//! the tools by name, and the config members. Computed on demand (see `Conversation::card_diff`),
//! never while a window loads. The rules are in docs/diff.md and in each submodule.

use crate::request::PromptSnapshot;

mod lines;
mod sections;
mod tools;

pub use lines::{diff_lines, Hunk, TextDiff, CONTEXT, WORK_BOUND};
pub use sections::{split_sections, Section, SectionChange, SectionStatus, TITLE_CHARS};
pub use tools::{ConfigChange, ToolChange, ToolStatus, ToolsDiff};

/// The system text's diff and its sections.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SystemDiff {
    /// The line diff.
    pub diff: TextDiff,
    /// The sections of the new text with their status, removed ones of the old text among them.
    pub sections: Vec<SectionChange>,
}

/// What changed from one prompt to another.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct PromptDiff {
    /// The system text.
    pub system: SystemDiff,
    /// The tools (none differ when only system texts were compared).
    pub tools: ToolsDiff,
    /// The config members that differ (reported only: a config change is never a prompt
    /// change, SPEC section 3).
    pub config: Vec<ConfigChange>,
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
