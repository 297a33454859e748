//! Integration tests: one binary, one module per feature.

mod launcher;
mod support;
