//! The canonical payload: exactly the bytes that may leave the machine, and their hash.
//! (Interface fixed; implementation lands with issue 3.)

use crate::diff::Change;
use crate::redact::{RedactionReport, Redactor};

/// Default cap on the canonical payload, in bytes.
pub const DEFAULT_MAX_DIFF_BYTES: usize = 65536;

/// What to do when the payload is over the cap.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Oversize {
    #[default]
    Partial,
    Skip,
}

/// The size policy applied after redaction.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SizePolicy {
    pub max_bytes: usize,
    pub oversize: Oversize,
}

impl Default for SizePolicy {
    fn default() -> Self {
        SizePolicy {
            max_bytes: DEFAULT_MAX_DIFF_BYTES,
            oversize: Oversize::Partial,
        }
    }
}

/// A ready payload.
#[derive(Debug, Clone)]
pub struct Payload {
    /// The canonical JSON, byte for byte what a remote scorer receives as `state`.
    pub json: String,
    /// Lower-case hex SHA-256 of `json`.
    pub hash: String,
    /// Sorted, redacted paths as they appear in `json`.
    pub files: Vec<String>,
    /// The redacted diff text as it appears in `json`.
    pub diff: String,
    /// Files left out by the size policy (redacted paths).
    pub omitted: Vec<String>,
    pub redactions: RedactionReport,
}

/// Why a turn was skipped by the size policy.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SkipReason {
    TooLarge { bytes: usize, max_bytes: usize },
}

/// The result of building a payload.
#[derive(Debug, Clone)]
pub enum Outcome {
    Ready(Payload),
    /// Nothing selected: no scoring, no hash.
    Empty,
    Skipped(SkipReason),
}

/// Redacts the kept changes and assembles the canonical payload under `policy`.
pub fn build(kept: &[Change], redactor: &Redactor, policy: &SizePolicy) -> Outcome {
    let _ = (kept, redactor, policy);
    unimplemented!("issue 3")
}
