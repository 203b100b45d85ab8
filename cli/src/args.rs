//! The command line: subcommands, options, help text (clap derive).

use std::path::PathBuf;

use clap::{Args, Parser, Subcommand, ValueEnum};

use crate::when::Instant;

const EXAMPLES: &str = "\
Examples:
  promptfold show ~/.dsh/sessions/-home-me-app/s-42/session.v4.jsonl.zstd
  promptfold show session.jsonl --json --prices prices.json | jq '.cacheLedger.summary'
  promptfold report ~/.dsh/sessions
  promptfold report ~/.dsh/sessions --since 2026-11-01 --top 20 --prices prices.json
  promptfold report shard-07/ --format jsonl --quiet > shard-07.jsonl

Exit status: 0 everything was read (a torn last line counts as read); 1 some files could not
be read, or a zstd stream was cut short (each is named on stderr and the report is complete
for the rest); 2 usage error (unknown option or format, a time that does not parse, an
unreadable or invalid prices file); 3 no session log was found under the paths (report: each
such path is named on stderr). Details: docs/cli.md";

/// The `promptfold` command: the prompt story of one session log, and a cache report across many.
#[derive(Debug, Parser)]
#[command(name = "promptfold", version, about, after_help = EXAMPLES)]
pub struct Cli {
    /// What to do.
    #[command(subcommand)]
    pub command: Command,
}

/// The subcommands.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// One session: its header, prompt timeline and one line per request with its cache ledger.
    #[command(after_help = EXAMPLES)]
    Show(ShowArgs),
    /// Every session file under the paths: one row per session, totals, causes ranked.
    #[command(after_help = EXAMPLES)]
    Report(ReportArgs),
}

/// Options of the cache ledger shared by both subcommands.
#[derive(Debug, Args)]
pub struct LedgerArgs {
    /// Prices per million tokens, as JSON: `{"default": {"input": 3, "cacheRead": 0.3,
    /// "cacheWrite": 3.75, "output": 15}, "models": {"<model id>": {...}}}` (cacheWrite optional;
    /// a price below 0 or a member not named here is a usage error).
    #[arg(long, value_name = "FILE")]
    pub prices: Option<PathBuf>,
    /// The provider's cache lifetime in milliseconds: a request whose cache fell short after a
    /// longer pause also lists the cause `idle`.
    #[arg(long, value_name = "MS")]
    pub cache_ttl_ms: Option<u64>,
}

/// `promptfold show FILE`.
#[derive(Debug, Args)]
pub struct ShowArgs {
    /// A session log: JSON lines, or JSON lines compressed with zstd (.zst, .zstd); `-` reads
    /// standard input.
    pub file: PathBuf,
    /// Print JSON (schema in docs/cli.md) instead of text.
    #[arg(long)]
    pub json: bool,
    /// The ledger's options.
    #[command(flatten)]
    pub ledger: LedgerArgs,
}

/// Output formats of `report`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum Format {
    /// A table for people (fits 100 columns).
    Table,
    /// One JSON document: sessions, totals, causes, errors.
    Json,
    /// JSON lines: one row per session and per error (the contract for DuckDB, Spark, ...).
    Jsonl,
    /// CSV: one row per session, with a header row.
    Csv,
}

/// The most threads `--jobs` may ask for: more only contend for the cores and the disk, and
/// an unbounded count (`-j 100000`) had the machine spawning threads for minutes.
pub const MAX_JOBS: i64 = 1024;

/// `promptfold report PATH...`.
#[derive(Debug, Args)]
pub struct ReportArgs {
    /// Folders (the harness's layout: `<root>/<scope>/<session-id>/session.v<N>.jsonl[.zstd]`)
    /// and session files; `-` reads one session from standard input.
    #[arg(required = true, value_name = "PATH")]
    pub paths: Vec<PathBuf>,
    /// Output format.
    #[arg(long, value_enum, default_value_t = Format::Table)]
    pub format: Format,
    /// Only sessions created at or after this time (the header's createdAt): 2026-11-01,
    /// 2026-11-01T08:00:00Z or epoch milliseconds. A session without a createdAt is left out
    /// when --since or --until is given.
    #[arg(long, value_name = "TIME")]
    pub since: Option<Instant>,
    /// Only sessions created before this time (same forms as --since).
    #[arg(long, value_name = "TIME")]
    pub until: Option<Instant>,
    /// List only the N sessions that lost the most cache (the totals still cover all).
    #[arg(long, value_name = "N")]
    pub top: Option<usize>,
    /// No progress bar and no summary line on stderr (errors are still printed).
    #[arg(long, short)]
    pub quiet: bool,
    /// Threads reading sessions (default: one per core; 1 to 1024).
    #[arg(long, short, value_name = "N", value_parser = clap::value_parser!(u16).range(1..=MAX_JOBS))]
    pub jobs: Option<u16>,
    /// The ledger's options.
    #[command(flatten)]
    pub ledger: LedgerArgs,
}
