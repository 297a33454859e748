//! Integration tests: one binary, one module per feature.

mod support;
mod snapshot;
mod snapshot_safety;
