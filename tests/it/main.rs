//! Integration tests: one binary, one module per feature.

mod redact;
mod support;
