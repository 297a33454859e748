//! Integration tests: one binary, one module per feature.

mod snapshot;
mod snapshot_safety;
mod support;
