//! The input layer: what is read from events as they are parsed.

pub(crate) mod tokens;
