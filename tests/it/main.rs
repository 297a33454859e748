//! Integration tests: one binary, one module per feature.

mod axes;
mod bench_support;
mod cli;
mod codex;
mod gemini;
mod hook_concurrency;
mod hook_cost;
mod hook_e2e;
mod hook_faults;
mod init;
mod install;
mod launcher;
mod payload;
mod plugin_manifest;
mod quality;
mod redact;
mod release;
mod sarif;
mod scorer_command;
mod scorer_jev;
mod scorer_openai;
mod select;
mod snapshot;
mod snapshot_safety;
mod support;
