//! `promptfold`: the prompt story of one session log (`show`) and a cache report across a
//! folder of them (`report`). See docs/cli.md.

mod aggregate;
mod args;
mod discover;
mod facts;
mod output;
mod prices;
mod printable;
mod problem;
mod progress;
mod report;
mod row;
mod show;
mod source;
mod when;

use std::process::ExitCode;

use clap::Parser;

use promptfold::CacheOptions;

use crate::args::{Cli, Command, LedgerArgs};

/// Exit status: everything was read.
const OK: u8 = 0;
/// Exit status: some files could not be read; the report is complete for the rest.
const SOME_UNREAD: u8 = 1;
/// Exit status: a usage error (bad option, unreadable prices file).
const USAGE: u8 = 2;
/// Exit status: no session log was found under the paths given, so nothing was read.
const NOTHING_FOUND: u8 = 3;

/// How much of what was asked for a run read.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Ran {
    /// Everything (a torn last line counts as read).
    Whole,
    /// Some files could not be read; the rest was.
    SomeUnread,
    /// There was nothing to read: no session log under the paths given.
    NothingFound,
}

/// Why a run stopped.
#[derive(Debug)]
pub enum Failure {
    /// The command line asks for something impossible.
    Usage(String),
    /// The output could not be written.
    Output(std::io::Error),
}

fn ledger_options(args: &LedgerArgs) -> Result<CacheOptions, Failure> {
    let prices = match &args.prices {
        Some(path) => Some(prices::read(path).map_err(Failure::Usage)?),
        None => None,
    };
    #[allow(clippy::cast_precision_loss)]
    Ok(CacheOptions::default()
        .with_prices(prices)
        .with_cache_ttl_ms(args.cache_ttl_ms.map(|ms| ms as f64)))
}

fn main() -> ExitCode {
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(error) => {
            let _ = error.print();
            return ExitCode::from(if error.use_stderr() { USAGE } else { OK });
        }
    };
    let outcome = match &cli.command {
        Command::Show(args) => ledger_options(&args.ledger)
            .and_then(|options| show::run(args, &options))
            .map(|whole| if whole { Ran::Whole } else { Ran::SomeUnread }),
        Command::Report(args) => {
            ledger_options(&args.ledger).and_then(|options| report::run(args, &options))
        }
    };
    match outcome {
        Ok(Ran::Whole) => ExitCode::from(OK),
        Ok(Ran::SomeUnread) => ExitCode::from(SOME_UNREAD),
        Ok(Ran::NothingFound) => ExitCode::from(NOTHING_FOUND),
        Err(Failure::Usage(message)) => {
            eprintln!("promptfold: {message}");
            ExitCode::from(USAGE)
        }
        // A reader that went away (`| head`) is not an error.
        Err(Failure::Output(error)) if error.kind() == std::io::ErrorKind::BrokenPipe => {
            ExitCode::from(OK)
        }
        Err(Failure::Output(error)) => {
            eprintln!("promptfold: cannot write the output: {error}");
            ExitCode::from(SOME_UNREAD)
        }
    }
}
