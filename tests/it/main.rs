//! Integration tests: one binary, one module per feature.

mod hook_concurrency;
mod hook_e2e;
mod hook_faults;
mod support;
