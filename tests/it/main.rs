//! Integration tests: one binary, one module per feature.

mod axes;
mod scorer_command;
mod scorer_jev;
mod scorer_openai;
mod support;
