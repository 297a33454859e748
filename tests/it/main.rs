//! Integration tests: one binary, one module per feature.

mod axes;
mod init;
mod install;
mod scorer_command;
mod scorer_jev;
mod scorer_openai;
mod support;
