//! Integration tests: one binary, one module per feature.

mod quality;
mod support;
