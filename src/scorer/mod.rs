//! Turning a payload into 8 probabilities: the trait, its errors, and backend choice.
//!
//! Every backend returns a probability in \[0, 1\] per axis in contract order, or a typed
//! [`ScoreError`] that the hook turns into a fail-open notice.
//! Which backend runs, where it sends data and with which key come only from
//! [`ScorerSettings`], which the caller fills from user-level sources.
//!
//! A scorer sees the canonical payload and nothing else: no repository, no store, no event.
//! Only the remote backends touch the network, and only at the endpoint the user set.

use std::time::Duration;

use crate::pipeline::axes::{AXIS_COUNT, Selected, Thresholds};
use crate::pipeline::payload::Payload;
use crate::scorer::secret::ApiKey;

pub use crate::pipeline::axes::Evidence;

/// A scorer's answer: one probability per axis in contract order.
#[derive(Debug, Clone, PartialEq)]
pub struct Scores {
    pub values: [f64; AXIS_COUNT],
    /// The model the backend reports having used, when it says.
    pub model: Option<String>,
    pub evidence: Vec<Evidence>,
    /// Tokens the backend reported using, when its replies carry `usage` (remote scorers;
    /// counted against the user's token budget).
    pub tokens: Option<u64>,
}

/// The tokens a reply's `usage` reports: `total_tokens`, else the sum of its input and
/// output counts (`prompt_tokens`/`completion_tokens` or `input_tokens`/`output_tokens`).
/// `None` when it reports none in a form we read.
pub fn usage_tokens(reply: &serde_json::Value) -> Option<u64> {
    let usage = reply.get("usage")?;
    let n = |key: &str| usage.get(key).and_then(serde_json::Value::as_u64);
    n("total_tokens").or_else(|| {
        let input = n("prompt_tokens").or_else(|| n("input_tokens"));
        let output = n("completion_tokens").or_else(|| n("output_tokens"));
        match (input, output) {
            (None, None) => None,
            (a, b) => Some(a.unwrap_or(0).saturating_add(b.unwrap_or(0))),
        }
    })
}

/// A typed scorer failure. Each variant carries what failed, never pre-formatted prose and
/// never a key or a URL (either may hold a credential); the hook maps it to a fail-open class
/// ([`crate::hook::failure::Class`]).
#[derive(Debug, thiserror::Error)]
pub enum ScoreError {
    #[error("no API key is configured")]
    MissingKey { scorer: &'static str },
    #[error("scorer is misconfigured: the {setting} {problem}")]
    Config {
        setting: &'static str,
        problem: &'static str,
    },
    #[error("scorer is misconfigured: the payload is not well-formed JSON")]
    PayloadNotJson,
    #[error("network error: {0}")]
    Network(Transport),
    #[error("the scorer did not answer within {} ms", .budget.as_millis())]
    Timeout { budget: Duration },
    #[error("the scorer answered HTTP {status}")]
    Http { status: u16 },
    #[error("the scorer's answer is larger than {limit} bytes")]
    ResponseTooLarge { limit: usize },
    #[error(
        "the scorer's answer is invalid: not one JSON value \
         ({category} at line {line} column {column})"
    )]
    NotJson {
        category: &'static str,
        line: usize,
        column: usize,
    },
    #[error("the scorer's answer is invalid: {at} {problem}")]
    InvalidResponse {
        /// Where in the reply: a JSON path such as `answers.lifecycle.noul`, or a position.
        at: String,
        problem: &'static str,
    },
    #[error("the scorer command failed: {0}")]
    CommandFailed(crate::process::ProcessError),
}

impl ScoreError {
    /// The same failure reported against the whole `budget` (a retry may have used part).
    pub fn against_budget(self, budget: Duration) -> ScoreError {
        match self {
            ScoreError::Timeout { .. } => ScoreError::Timeout { budget },
            other => other,
        }
    }
}

/// What went wrong on the way to an HTTP scorer, before any status arrived.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Transport {
    #[error("the host name did not resolve")]
    HostNotFound,
    #[error("the connection failed")]
    ConnectionFailed,
    #[error("the proxy from `HTTPS_PROXY` refused or failed")]
    Proxy,
    #[error("tls: {0}")]
    Tls(String),
    #[error("http protocol: {0}")]
    Protocol(String),
    #[error("{0}")]
    Io(String),
}

impl Transport {
    /// The same failure with `secret` masked wherever a message quotes it.
    pub fn scrub(self, secret: &str) -> Transport {
        let mask = |m: String| m.replace(secret, "****");
        match self {
            Transport::Tls(m) => Transport::Tls(mask(m)),
            Transport::Protocol(m) => Transport::Protocol(mask(m)),
            Transport::Io(m) => Transport::Io(mask(m)),
            other => other,
        }
    }
}

/// Anything that can score a payload.
pub trait Scorer {
    /// The backend's name (`jev`, `openai`, `command`, `local`).
    fn name(&self) -> &'static str;
    /// Scores `payload` within `budget`.
    fn score(&self, payload: &Payload, budget: Duration) -> Result<Scores, ScoreError>;
    /// Per-axis thresholds calibrated for this scorer, used where the user set none.
    fn default_thresholds(&self) -> Option<[f64; AXIS_COUNT]> {
        None
    }
}

/// Which backend the user chose.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ScorerKind {
    #[default]
    Auto,
    Jev,
    #[serde(rename = "openai")]
    OpenAi,
    Command,
    Local,
}

/// User-level scorer settings. Built only from the user's environment, the plugin's
/// userConfig and the user config file — never from the repository.
#[derive(Debug, Clone, Default)]
pub struct ScorerSettings {
    pub kind: ScorerKind,
    /// Full URL of the Jev endpoint (default `https://api.typesafe.ai/v1/systemone`).
    pub jev_url: Option<String>,
    /// Jev model (default `jev-latest`).
    pub jev_model: Option<String>,
    pub typesafe_key: Option<ApiKey>,
    pub openai_base_url: Option<String>,
    pub openai_model: Option<String>,
    pub openai_key: Option<ApiKey>,
    /// argv of the command scorer; no shell.
    pub command: Option<Vec<String>>,
}

pub mod command;
pub mod http;
pub mod jev;
pub mod local;
pub mod openai;
pub mod secret;
pub mod threshold;

impl ScorerKind {
    /// The per-axis thresholds calibrated for the backend this kind resolves to, if it has
    /// any (the `local` scorer's), without building it.
    pub fn default_thresholds(self, settings: &ScorerSettings) -> Option<[f64; AXIS_COUNT]> {
        match self.resolve(settings) {
            ScorerKind::Local => local::default_thresholds(),
            _ => None,
        }
    }

    /// The name the backend of this kind reports as (`auto` before it is resolved: `local`).
    pub fn name(self) -> &'static str {
        match self {
            ScorerKind::Jev => "jev",
            ScorerKind::OpenAi => "openai",
            ScorerKind::Command => "command",
            ScorerKind::Local | ScorerKind::Auto => "local",
        }
    }

    /// The kind `auto` stands for under `settings`; other kinds are themselves.
    pub fn resolve(self, settings: &ScorerSettings) -> ScorerKind {
        match self {
            ScorerKind::Auto if settings.typesafe_key.is_some() => ScorerKind::Jev,
            ScorerKind::Auto => ScorerKind::Local,
            other => other,
        }
    }
}

/// Builds the backend the settings choose (`auto`: `jev` when a TypeSafe key is set, else
/// `local`).
pub fn build(settings: &ScorerSettings) -> Result<Box<dyn Scorer + Send + Sync>, ScoreError> {
    Ok(match settings.kind.resolve(settings) {
        ScorerKind::Jev => {
            let key = settings
                .typesafe_key
                .clone()
                .ok_or(ScoreError::MissingKey { scorer: "jev" })?;
            Box::new(jev::JevScorer::new(
                settings.jev_url.as_deref(),
                settings.jev_model.as_deref(),
                key,
            )?)
        }
        ScorerKind::OpenAi => Box::new(openai::OpenAiScorer::new(
            settings.openai_base_url.as_deref(),
            settings.openai_model.as_deref(),
            settings.openai_key.clone(),
        )?),
        ScorerKind::Command => {
            let argv = settings.command.as_deref().unwrap_or_default();
            Box::new(command::CommandScorer::new(
                argv,
                settings.jev_model.as_deref(),
            )?)
        }
        ScorerKind::Local | ScorerKind::Auto => Box::new(local::LocalScorer::new()),
    })
}

/// A scored payload: the scorer's answer and the axes it selects.
#[derive(Debug, Clone)]
pub struct Verdict {
    /// The backend that answered (`jev`, `openai`, `command`, `local`).
    pub scorer: &'static str,
    pub scores: Scores,
    /// The axes at or above their threshold, best first, at most three.
    pub selected: Vec<Selected>,
}

/// Scores `payload` with `scorer` within `budget` and picks the axes `thresholds` select.
pub fn judge(
    payload: &Payload,
    scorer: &dyn Scorer,
    thresholds: &Thresholds,
    budget: Duration,
) -> Result<Verdict, ScoreError> {
    let scores = scorer.score(payload, budget)?;
    let selected = crate::pipeline::axes::select(&scores.values, thresholds);
    Ok(Verdict {
        scorer: scorer.name(),
        scores,
        selected,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::hook::failure::Class;

    #[test]
    fn classes() {
        let cases: &[(ScoreError, &str)] = &[
            (ScoreError::MissingKey { scorer: "jev" }, "missing_key"),
            (
                ScoreError::Config {
                    setting: "x",
                    problem: "y",
                },
                "scorer_config",
            ),
            (ScoreError::PayloadNotJson, "scorer_config"),
            (ScoreError::Network(Transport::HostNotFound), "network"),
            (
                ScoreError::Timeout {
                    budget: Duration::from_secs(1),
                },
                "timeout",
            ),
            (ScoreError::Http { status: 429 }, "http_429"),
            (
                ScoreError::ResponseTooLarge { limit: 1 },
                "response_too_large",
            ),
            (
                ScoreError::InvalidResponse {
                    at: "x".into(),
                    problem: "y",
                },
                "invalid_response",
            ),
            (
                ScoreError::CommandFailed(crate::process::ProcessError::NotFound {
                    program: "x".into(),
                }),
                "command_failed",
            ),
        ];
        for (e, class) in cases {
            assert_eq!(Class::from(e), *class);
        }
    }

    fn settings(kind: ScorerKind) -> ScorerSettings {
        ScorerSettings {
            kind,
            ..Default::default()
        }
    }

    #[test]
    fn usage_is_read_in_the_forms_apis_send() {
        use serde_json::json;
        assert_eq!(
            usage_tokens(&json!({"usage": {"total_tokens": 12}})),
            Some(12)
        );
        assert_eq!(
            usage_tokens(&json!({"usage": {"prompt_tokens": 10, "completion_tokens": 1}})),
            Some(11)
        );
        assert_eq!(
            usage_tokens(&json!({"usage": {"input_tokens": 7, "output_tokens": 2}})),
            Some(9)
        );
        assert_eq!(
            usage_tokens(&json!({"usage": {"input_tokens": 7}})),
            Some(7)
        );
        assert_eq!(usage_tokens(&json!({"usage": {"total_tokens": "x"}})), None);
        assert_eq!(usage_tokens(&json!({"answers": {}})), None);
    }

    #[test]
    fn auto_is_jev_with_a_key_else_local() {
        let mut s = settings(ScorerKind::Auto);
        assert_eq!(build(&s).unwrap().name(), "local");
        s.typesafe_key = ApiKey::new("ts-key");
        assert_eq!(build(&s).unwrap().name(), "jev");
    }

    #[test]
    fn explicit_kinds_need_their_settings() {
        let class =
            |s: &ScorerSettings| build(s).err().map(|e| Class::from(&e).name().into_owned());
        assert_eq!(
            class(&settings(ScorerKind::Jev)).as_deref(),
            Some("missing_key")
        );
        assert_eq!(
            class(&settings(ScorerKind::Command)).as_deref(),
            Some("scorer_config")
        );
        let mut s = settings(ScorerKind::OpenAi);
        assert_eq!(class(&s).as_deref(), Some("missing_key"));
        s.openai_base_url = Some("http://127.0.0.1:1/v1".into());
        assert_eq!(class(&s).as_deref(), Some("scorer_config"));
        s.openai_model = Some("m".into());
        assert_eq!(build(&s).unwrap().name(), "openai");
        let mut s = settings(ScorerKind::Command);
        s.command = Some(vec!["true".into()]);
        assert_eq!(build(&s).unwrap().name(), "command");
        assert_eq!(build(&settings(ScorerKind::Local)).unwrap().name(), "local");
    }

    #[test]
    fn jev_refuses_plain_http_off_loopback() {
        let mut s = settings(ScorerKind::Jev);
        s.typesafe_key = ApiKey::new("ts-key");
        s.jev_url = Some("http://gateway.example/v1".into());
        assert_eq!(Class::from(&build(&s).err().unwrap()), "scorer_config");
        s.jev_url = Some("http://127.0.0.1:8080/v1".into());
        assert_eq!(build(&s).unwrap().name(), "jev");
    }

    #[test]
    fn settings_debug_hides_keys() {
        let mut s = settings(ScorerKind::Jev);
        s.typesafe_key = ApiKey::new("ts-very-secret");
        s.openai_key = ApiKey::new("sk-very-secret");
        let text = format!("{s:?}");
        assert!(!text.contains("very-secret"), "{text}");
        let scorer =
            jev::JevScorer::new(None, None, ApiKey::new("ts-very-secret").unwrap()).unwrap();
        assert!(!format!("{scorer:?}").contains("very-secret"));
    }
}
