//! Turning a payload into 8 probabilities: the trait, its errors, and backend choice.
//! (Interface fixed; backends land with issue 4.)

use std::time::Duration;

use crate::axes::AXIS_COUNT;
use crate::payload::Payload;
use crate::secret::ApiKey;

/// Why an axis was raised: a place in the change and a short note.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct Evidence {
    pub axis: usize,
    pub file: String,
    pub line: Option<u32>,
    pub note: String,
}

/// A scorer's answer: one probability per axis in contract order.
#[derive(Debug, Clone, PartialEq)]
pub struct Scores {
    pub values: [f64; AXIS_COUNT],
    /// The model the backend reports having used, when it says.
    pub model: Option<String>,
    pub evidence: Vec<Evidence>,
}

/// A typed scorer failure; [`ScoreError::class`] names its fail-open class.
#[derive(Debug, thiserror::Error)]
pub enum ScoreError {
    #[error("no API key is configured")]
    MissingKey,
    #[error("scorer is misconfigured: {0}")]
    Config(String),
    #[error("network error: {0}")]
    Network(String),
    #[error("the scorer did not answer within {} ms", .0.as_millis())]
    Timeout(Duration),
    #[error("the scorer answered HTTP {status}")]
    Http { status: u16 },
    #[error("the scorer's answer is larger than {0} bytes")]
    ResponseTooLarge(usize),
    #[error("the scorer's answer is invalid: {0}")]
    InvalidResponse(String),
    #[error("the scorer command failed: {0}")]
    CommandFailed(String),
}

impl ScoreError {
    /// The fail-open class (`missing_key`, `network`, `timeout`, `http_<status>`, …).
    pub fn class(&self) -> String {
        match self {
            ScoreError::MissingKey => "missing_key".into(),
            ScoreError::Config(_) => "scorer_config".into(),
            ScoreError::Network(_) => "network".into(),
            ScoreError::Timeout(_) => "timeout".into(),
            ScoreError::Http { status } => format!("http_{status}"),
            ScoreError::ResponseTooLarge(_) => "response_too_large".into(),
            ScoreError::InvalidResponse(_) => "invalid_response".into(),
            ScoreError::CommandFailed(_) => "command_failed".into(),
        }
    }
}

/// Anything that can score a payload.
pub trait Scorer {
    /// The backend's name (`jev`, `openai`, `command`, `local`).
    fn name(&self) -> &'static str;
    /// Scores `payload` within `budget`.
    fn score(&self, payload: &Payload, budget: Duration) -> Result<Scores, ScoreError>;
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
pub mod jev;
pub mod local;
pub mod openai;

/// Builds the backend the settings choose (`auto`: `jev` when a TypeSafe key is set, else
/// `local`).
pub fn build(settings: &ScorerSettings) -> Result<Box<dyn Scorer + Send + Sync>, ScoreError> {
    let _ = settings;
    unimplemented!("issue 4")
}
