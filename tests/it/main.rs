//! Integration tests: one binary, one module per feature.

mod payload;
mod redact;
mod select;
mod support;
