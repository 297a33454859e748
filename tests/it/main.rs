//! Integration tests: one binary, one module per feature.

mod init;
mod install;
mod support;
