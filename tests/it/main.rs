//! Integration tests: one binary, one module per feature.

mod launcher;
mod plugin_manifest;
mod release;
mod support;
