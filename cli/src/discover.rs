//! Which files a report reads: the paths given, walked; the harness's layout understood.
//!
//! The harness keeps `<root>/<scope>/<session-id>/session.v<N>.jsonl` (or `.jsonl.zstd`; the
//! upstream names it `session.jsonl.zstd`) and rewrites a session into a new version file when
//! it migrates it. In a folder that holds such files only the newest version is read (highest
//! `N`, an unversioned name counting as 0; on a tie the name that sorts last, so a
//! `.zstd` beside its plain twin). Lock and backup files are
//! skipped; other `.jsonl`, `.zst` and `.zstd` files are read; anything else is ignored. A file
//! named on the command line is read whatever its name, but a harness file among them still
//! gives way to a newer version of its session. Symbolic links are followed; a link back to an
//! ancestor is reported once as a directory loop.

use std::collections::{BTreeMap, HashSet};
use std::path::{Path, PathBuf};

use crate::problem::{Problem, ProblemKind};
use crate::source::is_stdin;

/// A file to read.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Candidate {
    /// The path as reached from the paths given.
    pub path: PathBuf,
    /// The scope folder of the harness's layout (`<root>/<scope>/<session-id>/`), when the file
    /// has the harness's name.
    pub scope: Option<String>,
    /// Its size on disk (compressed bytes for zstd).
    pub size: u64,
}

/// The files found under the paths given.
#[derive(Debug, Default)]
pub struct Discovery {
    /// The files to read, sorted by path.
    pub files: Vec<Candidate>,
    /// Folders that could not be walked, and loops.
    pub problems: Vec<Problem>,
    /// Lock and backup files, and older version files of a session, left out.
    pub skipped: usize,
    /// The paths given under which no session log was found (and none could not be read): a
    /// folder that is empty or holds no log, most likely not the one meant.
    pub empty: Vec<PathBuf>,
}

/// How a walked file name is treated.
#[derive(Debug, PartialEq, Eq)]
enum Name {
    /// A harness session file of this format version (0: unversioned name).
    Harness(u64),
    /// Another session-log file name.
    Log,
    /// A lock or backup file.
    Skipped,
    /// Anything else.
    Ignored,
}

const LOG_ENDINGS: [&str; 3] = [".jsonl", ".zst", ".zstd"];
const SKIPPED_ENDINGS: [&str; 8] = [
    ".lock", ".lck", ".bak", ".backup", ".tmp", ".swp", ".orig", "~",
];
const SKIPPED_PARTS: [&str; 4] = [".lock.", ".bak.", ".backup.", ".tmp."];

fn classify(name: &str) -> Name {
    let lower = name.to_ascii_lowercase();
    if SKIPPED_ENDINGS.iter().any(|end| lower.ends_with(end))
        || SKIPPED_PARTS.iter().any(|part| lower.contains(part))
    {
        return Name::Skipped;
    }
    if let Some(version) = harness_version(&lower) {
        return Name::Harness(version);
    }
    if LOG_ENDINGS.iter().any(|end| lower.ends_with(end)) {
        Name::Log
    } else {
        Name::Ignored
    }
}

/// `session.v<N>.jsonl[.zst|.zstd]` gives `N`, `session.jsonl[.zst|.zstd]` 0.
fn harness_version(name: &str) -> Option<u64> {
    let stem = name
        .strip_suffix(".zstd")
        .or_else(|| name.strip_suffix(".zst"))
        .unwrap_or(name)
        .strip_suffix(".jsonl")?;
    let rest = stem.strip_prefix("session")?;
    if rest.is_empty() {
        return Some(0);
    }
    let digits = rest.strip_prefix(".v")?;
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    digits.parse().ok()
}

fn scope_of(path: &Path) -> Option<String> {
    let session_dir = path.parent()?;
    let scope_dir = session_dir.parent()?;
    Some(scope_dir.file_name()?.to_string_lossy().into_owned())
}

/// Walks `paths` (folders and files) and returns the files to read.
pub fn discover(paths: &[PathBuf]) -> Discovery {
    let mut found = Discovery::default();
    let mut seen: HashSet<PathBuf> = HashSet::new();
    // Per session folder: the newest harness file so far (version, name, candidate).
    let mut newest: BTreeMap<PathBuf, (u64, String, Candidate)> = BTreeMap::new();
    let mut loops_seen: HashSet<PathBuf> = HashSet::new();

    for root in paths {
        if is_stdin(root) {
            // Standard input is read once, whatever its name.
            if seen.insert(root.clone()) {
                found.files.push(Candidate {
                    path: root.clone(),
                    scope: None,
                    size: 0,
                });
            }
            continue;
        }
        // Session logs and problems under this path, before any is left out as read already.
        let mut found_here = false;
        let walker = walkdir::WalkDir::new(root)
            .follow_links(true)
            .sort_by_file_name();
        for entry in walker {
            let entry = match entry {
                Ok(entry) => entry,
                Err(error) => {
                    let path = error.path().unwrap_or(root).to_path_buf();
                    let problem = match error.loop_ancestor() {
                        Some(ancestor) => {
                            if !loops_seen.insert(path.clone()) {
                                continue;
                            }
                            Problem {
                                path: path.display().to_string(),
                                kind: ProblemKind::DirectoryLoop,
                                reason: format!(
                                    "links back to its ancestor {}",
                                    ancestor.display()
                                ),
                                reported: false,
                            }
                        }
                        None => Problem {
                            path: path.display().to_string(),
                            kind: ProblemKind::Unreadable,
                            reason: error
                                .io_error()
                                .map_or_else(|| error.to_string(), ToString::to_string),
                            reported: false,
                        },
                    };
                    found.problems.push(problem);
                    found_here = true;
                    continue;
                }
            };
            let given = entry.depth() == 0;
            // A path given that is not a folder is read whatever it is: a pipe too
            // (`report <(zstdcat s.jsonl.zst)`). A walk reads regular files only.
            let readable = if given {
                !entry.file_type().is_dir()
            } else {
                entry.file_type().is_file()
            };
            if !readable {
                continue;
            }
            let path = entry.path().to_path_buf();
            let name = entry.file_name().to_string_lossy();
            let kind = if given {
                match classify(&name) {
                    Name::Harness(version) => Name::Harness(version),
                    _ => Name::Log,
                }
            } else {
                classify(&name)
            };
            found_here |= matches!(kind, Name::Harness(_) | Name::Log);
            let meta = match entry.metadata() {
                Ok(meta) => meta,
                Err(error) => {
                    found.problems.push(Problem {
                        path: path.display().to_string(),
                        kind: ProblemKind::Unreadable,
                        reason: error.to_string(),
                        reported: false,
                    });
                    continue;
                }
            };
            let identity = std::fs::canonicalize(&path).unwrap_or_else(|_| path.clone());
            if !seen.insert(identity) {
                continue;
            }
            let candidate = |scope| Candidate {
                path: path.clone(),
                scope,
                size: meta.len(),
            };
            match kind {
                Name::Harness(version) => {
                    let folder = path.parent().map(Path::to_path_buf).unwrap_or_default();
                    let this = (version, name.to_string(), candidate(scope_of(&path)));
                    match newest.get(&folder) {
                        Some(best) if (best.0, &best.1) >= (this.0, &this.1) => {
                            found.skipped = found.skipped.saturating_add(1);
                        }
                        Some(_) => {
                            found.skipped = found.skipped.saturating_add(1);
                            newest.insert(folder, this);
                        }
                        None => {
                            newest.insert(folder, this);
                        }
                    }
                }
                Name::Log => found.files.push(candidate(None)),
                Name::Skipped => found.skipped = found.skipped.saturating_add(1),
                Name::Ignored => {}
            }
        }
        if !found_here {
            found.empty.push(root.clone());
        }
    }
    found
        .files
        .extend(newest.into_values().map(|(_, _, candidate)| candidate));
    found.files.sort_by(|a, b| a.path.cmp(&b.path));
    found
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names() {
        assert_eq!(classify("session.v4.jsonl"), Name::Harness(4));
        assert_eq!(classify("session.v12.jsonl.zstd"), Name::Harness(12));
        assert_eq!(classify("session.jsonl.zstd"), Name::Harness(0));
        assert_eq!(classify("session.v4.jsonl.lock"), Name::Skipped);
        assert_eq!(classify("session.v4.jsonl.bak"), Name::Skipped);
        assert_eq!(classify("session.v4.bak.jsonl"), Name::Skipped);
        assert_eq!(classify("session.v4.jsonl~"), Name::Skipped);
        assert_eq!(classify("other.jsonl"), Name::Log);
        assert_eq!(classify("trace.zst"), Name::Log);
        assert_eq!(classify("session.vx.jsonl"), Name::Log);
        assert_eq!(classify("README.md"), Name::Ignored);
    }
}
