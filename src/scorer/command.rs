//! The `command` backend: a program the user configured answers the Jev contract.
//!
//! The argv comes from user-level configuration only and runs without a shell. The program
//! reads the Jev request body (no key) on stdin and writes a Jev reply on stdout; it has the
//! scoring budget as its deadline and [`MAX_REPLY_BYTES`] of stdout. It runs in the system
//! temp directory, not in the repository, so that a tool it starts (an agent CLI) does not
//! load the untrusted repository's own settings, and without the TypeSafe key in its
//! environment.

use std::path::PathBuf;
use std::process::Command;
use std::time::Duration;

use super::http::MAX_REPLY_BYTES;
use super::jev::{self, DEFAULT_MODEL};
use super::{ScoreError, Scorer, Scores};
use crate::pipeline::payload::Payload;
use crate::process::{self, Limits, ProcessError};

/// Environment variables that hold the TypeSafe key; never passed to the command.
const KEY_VARS: [&str; 2] = ["CLAUDE_PLUGIN_OPTION_TYPESAFE_API_KEY", "TYPESAFE_API_KEY"];

/// A user-configured scoring program.
#[derive(Debug, Clone)]
pub struct CommandScorer {
    argv: Vec<String>,
    model: String,
    cwd: PathBuf,
}

impl CommandScorer {
    /// A scorer running `argv` (program first). `model` is passed through in the request
    /// (default [`DEFAULT_MODEL`]); the program may ignore it.
    pub fn new(argv: &[String], model: Option<&str>) -> Result<CommandScorer, ScoreError> {
        match argv.first() {
            Some(program) if !program.trim().is_empty() => {}
            _ => {
                return Err(ScoreError::Config {
                    setting: "`command` scorer",
                    problem: "needs a program to run",
                });
            }
        }
        Ok(CommandScorer {
            argv: argv.to_vec(),
            model: model
                .map(str::trim)
                .filter(|m| !m.is_empty())
                .unwrap_or(DEFAULT_MODEL)
                .to_owned(),
            cwd: std::env::temp_dir(),
        })
    }
}

impl Scorer for CommandScorer {
    fn name(&self) -> &'static str {
        "command"
    }

    fn score(&self, payload: &Payload, budget: Duration) -> Result<Scores, ScoreError> {
        let body = jev::request_body(payload, &self.model)?;
        let mut cmd = Command::new(&self.argv[0]);
        cmd.args(&self.argv[1..]).current_dir(&self.cwd);
        for var in KEY_VARS {
            cmd.env_remove(var);
        }
        let limits = Limits::new(budget, MAX_REPLY_BYTES);
        let out = process::run(cmd, Some(body.into_bytes()), limits).map_err(|e| match e {
            ProcessError::Timeout { .. } => ScoreError::Timeout { budget },
            ProcessError::TooLarge { .. } => ScoreError::ResponseTooLarge {
                limit: MAX_REPLY_BYTES,
            },
            other => ScoreError::CommandFailed(other),
        })?;
        jev::parse_reply(&out.stdout)
    }
}
