//! The report's formats: a table for people, JSON, JSON lines and CSV for machines.

pub mod machine;
pub mod table;

/// `count` followed by the noun that agrees with it: `1 session`, `2 sessions`, `0 sessions`.
pub fn counted(count: u64, one: &str, many: &str) -> String {
    format!("{count} {}", if count == 1 { one } else { many })
}

#[cfg(test)]
mod tests {
    use super::counted;

    #[test]
    fn nouns_agree_with_their_counts() {
        assert_eq!(counted(0, "file", "files"), "0 files");
        assert_eq!(counted(1, "file", "files"), "1 file");
        assert_eq!(counted(2, "problem", "problems"), "2 problems");
    }
}
