//! The report's formats: a table for people, JSON, JSON lines and CSV for machines.

pub mod machine;
pub mod table;
