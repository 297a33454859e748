//! Fail-open: every error of the hook path becomes a failure class, one stderr line, and at
//! most one short user-visible notice per session per class.

use crate::config::ConfigError;
use crate::git::GitError;
use crate::hook::answer::clip;
use crate::hook::event::EventError;
use crate::pipeline::select::SelectError;
use crate::scorer::ScoreError;
use crate::state::StoreError;

/// One failure of ours, already classified.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Failure {
    pub class: String,
    pub detail: String,
}

impl Failure {
    pub fn new(class: impl Into<String>, detail: impl std::fmt::Display) -> Failure {
        let detail = detail.to_string();
        Failure {
            class: class.into(),
            detail: clip(
                &detail.split_whitespace().collect::<Vec<_>>().join(" "),
                300,
            ),
        }
    }

    pub fn repo_config(e: ConfigError) -> Failure {
        Failure::new("config_invalid", e)
    }

    pub fn user_config(e: ConfigError) -> Failure {
        Failure::new("user_config_invalid", e)
    }

    /// The line written to stderr (always, one line).
    pub fn stderr_line(&self, event: &str) -> String {
        format!("jev-preflight: {event}: {}: {}", self.class, self.detail)
    }

    /// The notice shown to the user, once per session per class.
    pub fn notice(&self) -> String {
        format!(
            "jev-preflight did not check this turn ({}): {}; hint: {}",
            self.class,
            self.detail,
            hint(&self.class)
        )
    }
}

/// The next step for a failure class.
pub fn hint(class: &str) -> &'static str {
    match class {
        "git_missing" => "install git or put it on PATH",
        "git_timeout" => "the repository is slow to snapshot; `jev-preflight doctor` shows timings",
        "config_invalid" => "fix `.jev-preflight.json` (it is read when you send a prompt)",
        "user_config_invalid" => "fix the user config file or the JEV_PREFLIGHT_* variables",
        "missing_key" => {
            "set TYPESAFE_API_KEY (or the plugin's typesafe_api_key option), or use the built-in scorer with JEV_PREFLIGHT_SCORER=local"
        }
        "http_401" | "http_403" => "check your TypeSafe API key",
        "network" | "timeout" => "the scorer was unreachable in time; the next turn tries again",
        "input_invalid" | "input_too_large" => "the host sent an event jev-preflight cannot read",
        c if c.starts_with("store") || c.starts_with("state") => {
            "check that the data dir is yours and writable (`jev-preflight doctor`)"
        }
        _ => "run `jev-preflight doctor`",
    }
}

impl From<StoreError> for Failure {
    fn from(e: StoreError) -> Failure {
        Failure::new(e.class(), e)
    }
}

impl From<GitError> for Failure {
    fn from(e: GitError) -> Failure {
        Failure::new(e.class(), e)
    }
}

impl From<ScoreError> for Failure {
    fn from(e: ScoreError) -> Failure {
        Failure::new(e.class(), e)
    }
}

impl From<EventError> for Failure {
    fn from(e: EventError) -> Failure {
        Failure::new(e.class(), e)
    }
}

impl From<SelectError> for Failure {
    fn from(e: SelectError) -> Failure {
        Failure::new("config_invalid", e)
    }
}
