//! Fail-open, decided here and only here: every error of the hook path becomes a [`Class`],
//! one stderr line, and at most one short user-visible notice per session per class. The
//! mapping from each boundary's error type to its class lives in this file, so the layers below
//! (git, the store, the scorers) report what failed and never how the hook reacts.

use std::borrow::Cow;
use std::fmt;

use crate::config::ConfigError;
use crate::git::GitError;
use crate::hook::answer::clip;
use crate::hook::event::EventError;
use crate::pipeline::select::SelectError;
use crate::process::ProcessError;
use crate::scorer::ScoreError;
use crate::state::StoreError;

/// A fail-open class. Its [`name`](Class::name) is the wire form: on stderr, in notices, in
/// the decision log `status` reads, and in the session's notice ledger.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Class {
    Panic,
    InputInvalid,
    InputTooLarge,
    StoreIo,
    StoreUnsafe,
    StoreForeign,
    StoreBusy,
    StateCorrupt,
    GitMissing,
    GitTimeout,
    GitOutputTooLarge,
    TooManyFiles,
    GitFailed,
    GitUnexpectedOutput,
    ConfigInvalid,
    UserConfigInvalid,
    MissingKey,
    ScorerConfig,
    Network,
    Timeout,
    Http(u16),
    ResponseTooLarge,
    InvalidResponse,
    CommandFailed,
}

impl Class {
    /// The wire name (`git_timeout`, `http_429`, …).
    pub fn name(self) -> Cow<'static, str> {
        Cow::Borrowed(match self {
            Class::Panic => "panic",
            Class::InputInvalid => "input_invalid",
            Class::InputTooLarge => "input_too_large",
            Class::StoreIo => "store_io",
            Class::StoreUnsafe => "store_unsafe",
            Class::StoreForeign => "store_foreign",
            Class::StoreBusy => "store_busy",
            Class::StateCorrupt => "state_corrupt",
            Class::GitMissing => "git_missing",
            Class::GitTimeout => "git_timeout",
            Class::GitOutputTooLarge => "git_output_too_large",
            Class::TooManyFiles => "too_many_files",
            Class::GitFailed => "git_failed",
            Class::GitUnexpectedOutput => "git_unexpected_output",
            Class::ConfigInvalid => "config_invalid",
            Class::UserConfigInvalid => "user_config_invalid",
            Class::MissingKey => "missing_key",
            Class::ScorerConfig => "scorer_config",
            Class::Network => "network",
            Class::Timeout => "timeout",
            Class::Http(status) => return Cow::Owned(format!("http_{status}")),
            Class::ResponseTooLarge => "response_too_large",
            Class::InvalidResponse => "invalid_response",
            Class::CommandFailed => "command_failed",
        })
    }

    /// The class a wire name stands for (`"http_429"` → `Http(429)`), as `status` reads them
    /// back from the decision log; `None` for a name this version does not know.
    pub fn from_name(name: &str) -> Option<Class> {
        if let Some(status) = name.strip_prefix("http_") {
            return status.parse().ok().map(Class::Http);
        }
        Class::NAMED.into_iter().find(|c| c.name() == name)
    }

    /// Every class but `Http(_)`, whose names are not a fixed list.
    const NAMED: [Class; 22] = [
        Class::Panic,
        Class::InputInvalid,
        Class::InputTooLarge,
        Class::StoreIo,
        Class::StoreUnsafe,
        Class::StoreForeign,
        Class::StoreBusy,
        Class::StateCorrupt,
        Class::GitMissing,
        Class::GitTimeout,
        Class::GitOutputTooLarge,
        Class::GitFailed,
        Class::GitUnexpectedOutput,
        Class::ConfigInvalid,
        Class::UserConfigInvalid,
        Class::MissingKey,
        Class::ScorerConfig,
        Class::Network,
        Class::Timeout,
        Class::ResponseTooLarge,
        Class::InvalidResponse,
        Class::CommandFailed,
    ];

    /// Whether `jev-preflight doctor` runs the check that fails with this class (the same
    /// code as the hook), so that sending the user there can find the cause. Other classes
    /// come from one turn's circumstances (a slow network, a busy store, a scorer's answer)
    /// that doctor cannot reproduce.
    pub fn doctor_diagnoses(self) -> bool {
        matches!(
            self,
            Class::StoreIo
                | Class::StoreUnsafe
                | Class::StoreForeign
                | Class::ConfigInvalid
                | Class::UserConfigInvalid
                | Class::MissingKey
                | Class::ScorerConfig
                | Class::GitMissing
        )
    }

    /// The next step for the user. It sends them to `jev-preflight doctor` only when
    /// [`Class::doctor_diagnoses`] says doctor can find the cause.
    pub fn hint(self) -> &'static str {
        match self {
            Class::GitMissing => "install git or put it on PATH (`jev-preflight doctor` checks it)",
            Class::ConfigInvalid => {
                "fix `.jev-preflight.json` (it is read when you send a prompt; `jev-preflight \
                 doctor` shows where)"
            }
            Class::UserConfigInvalid => {
                "fix the user setting `jev-preflight doctor` names (the user config file, a \
                 JEV_PREFLIGHT_* variable or a plugin option)"
            }
            Class::TooManyFiles => {
                "add generated or dependency folders to `.gitignore`, or to `exclude` in \
                 `.jev-preflight.json`"
            }
            Class::MissingKey => {
                "set TYPESAFE_API_KEY (or the plugin's typesafe_api_key option), or use the \
                 built-in scorer with JEV_PREFLIGHT_SCORER=local"
            }
            Class::ScorerConfig => "check the scorer settings with `jev-preflight doctor`",
            Class::StoreIo | Class::StoreUnsafe | Class::StoreForeign => {
                "check that the data dir is yours and writable (`jev-preflight doctor`)"
            }
            Class::Http(401 | 403) => "check your TypeSafe API key",
            Class::Http(_) => "the scorer refused the request; the next turn tries again",
            Class::Network | Class::Timeout => {
                "the scorer was unreachable in time; the next turn tries again"
            }
            Class::ResponseTooLarge | Class::InvalidResponse => {
                "the scorer's answer was not a valid score; check the endpoint or model you \
                 configured"
            }
            Class::CommandFailed => {
                "run the scorer command by hand with a request on stdin to see why it failed"
            }
            Class::InputInvalid | Class::InputTooLarge => {
                "the host sent an event jev-preflight cannot read"
            }
            Class::GitTimeout => {
                "the repository is slow to snapshot; `jev-preflight status` shows where a Stop's \
                 time went"
            }
            Class::GitOutputTooLarge => {
                "the turn changed more than jev-preflight reads at once; the next turn tries again"
            }
            Class::GitFailed | Class::GitUnexpectedOutput => {
                "git could not read the repository; `git status` there shows why"
            }
            Class::StoreBusy => {
                "another jev-preflight process of this session held the state; the next turn tries \
                 again"
            }
            Class::StateCorrupt => {
                "a state file could not be read and was removed; the next prompt starts afresh"
            }
            Class::Panic => "this is a bug in jev-preflight; please report it with the stderr line",
        }
    }
}

impl fmt::Display for Class {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.name())
    }
}

/// Compares with the wire name, so tests and logs can say `"git_timeout"`.
impl PartialEq<&str> for Class {
    fn eq(&self, other: &&str) -> bool {
        self.name() == *other
    }
}

impl PartialEq<String> for Class {
    fn eq(&self, other: &String) -> bool {
        self.name() == other.as_str()
    }
}

impl From<&StoreError> for Class {
    fn from(e: &StoreError) -> Class {
        match e {
            StoreError::Io { .. } => Class::StoreIo,
            StoreError::Unsafe { .. } => Class::StoreUnsafe,
            StoreError::Foreign { .. } => Class::StoreForeign,
            StoreError::Corrupt { .. } => Class::StateCorrupt,
            StoreError::Busy { .. } => Class::StoreBusy,
        }
    }
}

impl From<&GitError> for Class {
    fn from(e: &GitError) -> Class {
        match e {
            GitError::Process(ProcessError::NotFound { .. }) => Class::GitMissing,
            GitError::Process(ProcessError::Timeout { .. }) => Class::GitTimeout,
            GitError::Process(ProcessError::TooLarge { .. }) => Class::GitOutputTooLarge,
            GitError::Process(_) => Class::GitFailed,
            GitError::Parse { .. } => Class::GitUnexpectedOutput,
            GitError::TooManyFiles { .. } => Class::TooManyFiles,
            GitError::Io { .. } | GitError::UnsafeStore { .. } => Class::StoreIo,
        }
    }
}

impl From<&ScoreError> for Class {
    fn from(e: &ScoreError) -> Class {
        match e {
            ScoreError::MissingKey { .. } => Class::MissingKey,
            ScoreError::Config { .. } | ScoreError::PayloadNotJson => Class::ScorerConfig,
            ScoreError::Network(_) => Class::Network,
            ScoreError::Timeout { .. } => Class::Timeout,
            ScoreError::Http { status } => Class::Http(*status),
            ScoreError::ResponseTooLarge { .. } => Class::ResponseTooLarge,
            ScoreError::NotJson { .. } | ScoreError::InvalidResponse { .. } => {
                Class::InvalidResponse
            }
            ScoreError::CommandFailed { .. } => Class::CommandFailed,
        }
    }
}

impl From<&EventError> for Class {
    fn from(e: &EventError) -> Class {
        match e {
            EventError::TooLarge => Class::InputTooLarge,
            EventError::NotJson(_) => Class::InputInvalid,
        }
    }
}

/// One failure of ours, already classified.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Failure {
    pub class: Class,
    pub detail: String,
}

impl Failure {
    pub fn new(class: Class, detail: impl fmt::Display) -> Failure {
        let detail = detail.to_string();
        Failure {
            class,
            detail: clip(
                &detail.split_whitespace().collect::<Vec<_>>().join(" "),
                300,
            ),
        }
    }

    pub fn repo_config(e: ConfigError) -> Failure {
        Failure::new(Class::ConfigInvalid, e)
    }

    pub fn user_config(e: ConfigError) -> Failure {
        Failure::new(Class::UserConfigInvalid, e)
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
            self.class.hint()
        )
    }
}

impl From<StoreError> for Failure {
    fn from(e: StoreError) -> Failure {
        Failure::new(Class::from(&e), e)
    }
}

impl From<GitError> for Failure {
    fn from(e: GitError) -> Failure {
        Failure::new(Class::from(&e), e)
    }
}

impl From<ScoreError> for Failure {
    fn from(e: ScoreError) -> Failure {
        Failure::new(Class::from(&e), e)
    }
}

impl From<EventError> for Failure {
    fn from(e: EventError) -> Failure {
        Failure::new(Class::from(&e), e)
    }
}

impl From<SelectError> for Failure {
    fn from(e: SelectError) -> Failure {
        Failure::new(Class::ConfigInvalid, e)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wire_names_are_stable() {
        assert_eq!(Class::Http(429).name(), "http_429");
        assert_eq!(Class::GitTimeout, "git_timeout");
        assert_eq!(Class::StoreBusy.to_string(), "store_busy");
        assert_eq!(Class::Http(401).hint(), "check your TypeSafe API key");
    }

    #[test]
    fn names_read_back_and_only_diagnosable_classes_send_to_doctor() {
        for class in Class::NAMED
            .into_iter()
            .chain([Class::Http(429), Class::Http(503)])
        {
            assert_eq!(Class::from_name(&class.name()), Some(class));
            // Never sent to a doctor that cannot find the cause.
            assert!(
                class.doctor_diagnoses() || !class.hint().contains("doctor"),
                "{class}: {}",
                class.hint()
            );
        }
        assert_eq!(Class::from_name("nope"), None);
        assert_eq!(Class::from_name("http_x"), None);
    }
}
