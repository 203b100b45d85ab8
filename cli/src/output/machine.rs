//! JSON, JSON lines and CSV (schema version 1, docs/cli.md).

use std::io::Write;

use serde::Serialize;

use crate::aggregate::Report;
use crate::problem::Problem;
use crate::row::{SessionRow, SCHEMA_VERSION};

/// An output error: writing failed, or a row could not be encoded.
pub type Result = std::result::Result<(), std::io::Error>;

/// A JSON error as an I/O error, keeping the kind of a write error (a closed pipe stays
/// `BrokenPipe`, which ends the run quietly).
fn encoding(error: serde_json::Error) -> std::io::Error {
    std::io::Error::from(error)
}

/// A CSV error as an I/O error, keeping the kind of a write error as [`encoding`] does.
fn csv_encoding(error: csv::Error) -> std::io::Error {
    if !error.is_io_error() {
        return std::io::Error::other(error.to_string());
    }
    match error.into_kind() {
        csv::ErrorKind::Io(error) => error,
        kind => {
            debug_assert!(false, "an I/O error of another kind: {kind:?}");
            std::io::Error::other(format!("{kind:?}"))
        }
    }
}

/// The whole report as one JSON document.
pub fn json(report: &Report, out: &mut dyn Write) -> Result {
    serde_json::to_writer_pretty(&mut *out, report).map_err(encoding)?;
    writeln!(out)
}

/// A JSON lines row: the record's kind, then its members.
#[derive(Serialize)]
struct Line<'a, T: Serialize> {
    record: &'static str,
    #[serde(flatten)]
    row: &'a T,
}

/// An error as a JSON lines row.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct ErrorRow<'a> {
    schema_version: u32,
    #[serde(flatten)]
    problem: &'a Problem,
}

/// One row per session (`"record": "session"`), then one per problem (`"record": "error"`).
/// No totals row: rows of several shards add up without counting anything twice.
pub fn jsonl(report: &Report, out: &mut dyn Write) -> Result {
    for row in &report.sessions {
        serde_json::to_writer(
            &mut *out,
            &Line {
                record: "session",
                row,
            },
        )
        .map_err(encoding)?;
        writeln!(out)?;
    }
    for problem in &report.errors {
        let row = ErrorRow {
            schema_version: SCHEMA_VERSION,
            problem,
        };
        serde_json::to_writer(
            &mut *out,
            &Line {
                record: "error",
                row: &row,
            },
        )
        .map_err(encoding)?;
        writeln!(out)?;
    }
    Ok(())
}

/// One row per session with a header row (the session row's members, in order).
pub fn csv(report: &Report, out: &mut dyn Write) -> Result {
    let mut writer = csv::Writer::from_writer(out);
    if report.sessions.is_empty() {
        writer.write_record(header()).map_err(csv_encoding)?;
    }
    for row in &report.sessions {
        writer.serialize(row).map_err(csv_encoding)?;
    }
    writer.flush()
}

/// The CSV header: the session row's member names.
fn header() -> Vec<String> {
    let sample = SessionRow::new(
        crate::row::Origin::default(),
        &crate::row::Header::default(),
        &crate::facts::Facts::default(),
    );
    match serde_json::to_value(sample) {
        Ok(serde_json::Value::Object(members)) => members.keys().cloned().collect(),
        _ => Vec::new(),
    }
}
