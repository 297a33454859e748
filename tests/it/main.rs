//! Integration tests: one binary, one module per feature.

mod axes;
mod init;
mod install;
mod launcher;
mod plugin_manifest;
mod release;
mod scorer_command;
mod scorer_jev;
mod scorer_openai;
mod support;
