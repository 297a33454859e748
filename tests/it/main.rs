//! Integration tests: one binary, one module per feature.

mod install;
mod support;
