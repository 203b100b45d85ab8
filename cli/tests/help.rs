//! The help texts against docs/cli.md: the examples are the documented commands, and the exit
//! statuses name what the documented table names.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing)]

mod common;

use common::{repo, run};

fn docs() -> String {
    std::fs::read_to_string(repo().join("docs/cli.md")).unwrap()
}

#[test]
fn every_example_in_the_help_is_a_documented_command() {
    let docs = docs();
    for args in [&["--help"][..], &["show", "--help"], &["report", "--help"]] {
        let help = run(args).stdout;
        let examples: Vec<&str> = help
            .lines()
            .skip_while(|line| *line != "Examples:")
            .skip(1)
            .take_while(|line| !line.is_empty())
            .map(str::trim)
            .collect();
        assert!(examples.len() >= 5, "{args:?}: {help}");
        for example in examples {
            assert!(
                docs.lines().any(|line| line.starts_with(example)),
                "{args:?}: `{example}` is not in docs/cli.md"
            );
        }
    }
}

#[test]
fn the_help_names_every_documented_exit_status_cause() {
    let help = run(&["report", "--help"]).stdout.replace('\n', " ");
    let help = help.split_whitespace().collect::<Vec<_>>().join(" ");
    // Phrases of docs/cli.md's exit status table.
    let docs = docs();
    for phrase in [
        "a torn last line counts as read",
        "a zstd stream was cut short",
        "unknown option or format",
        "a time that does not parse",
        "an unreadable or invalid prices file",
        "no session log was found under the paths",
    ] {
        assert!(
            docs.contains(phrase),
            "docs/cli.md no longer says `{phrase}`"
        );
        assert!(
            help.contains(phrase),
            "the help does not say `{phrase}`: {help}"
        );
    }
}
