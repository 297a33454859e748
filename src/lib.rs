//! jev-preflight: score one agent turn's code change on 8 risk axes and, when an axis is at
//! or above its threshold, ask the agent once to look again.
//!
//! The Stop pipeline, one module per stage: [`snapshot`] → [`diff`] → [`select`] →
//! [`redact`] → [`payload`] → [`scorer`] → [`axes`] selection → answer.

pub mod axes;
pub mod cli;
pub mod config;
pub mod demo;
pub mod diff;
pub mod docs;
pub mod doctor;
pub mod envvars;
pub mod eval;
pub mod eval_set;
pub mod git;
pub mod hook;
pub mod init;
pub mod install;
pub mod payload;
pub mod pipeline;
pub mod redact;
pub mod run;
pub mod scorer;
pub mod secret;
pub mod select;
pub mod snapshot;
pub mod status;
pub mod store;
pub mod subprocess;
