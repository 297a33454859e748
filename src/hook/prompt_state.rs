//! The persisted state of one prompt: the frozen config, the baseline, and the loop gates.

use std::path::PathBuf;

use crate::config::Frozen;
use crate::git::Repo;
use crate::git::snapshot::Snapshot;

/// Version of the state file format; another version is a foreign file.
pub const STATE_VERSION: u32 = 1;

/// Where a prompt is in its life.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Phase {
    /// A baseline is waiting for the turn's Stop.
    Baseline,
    /// The one continuation was issued; the next Stop finishes the prompt.
    Continued,
    /// Done: no baseline, no content; kept only so that duplicates stay no-ops.
    Finished,
}

/// `state.json` of one prompt. Parsed strictly: anything unexpected is corrupt.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PromptState {
    pub version: u32,
    pub phase: Phase,
    pub repo_top: PathBuf,
    /// The repository as UserPromptSubmit found it, so that Stop need not ask `rev-parse`
    /// again (absent in states written before it existed).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub repo: Option<Repo>,
    /// The per-repository tree cache the baseline was written with.
    pub tree_cache: PathBuf,
    pub config: Frozen,
    /// SHA-256 of `.jev-preflight.json` as read at UserPromptSubmit (`None`: no file).
    pub config_hash: Option<String>,
    pub baseline: Option<Snapshot>,
    /// Payload hashes already sent to a scorer for this prompt.
    pub scored: Vec<String>,
    pub continuations: u32,
    pub created_unix: u64,
    /// The hunks the continuation asked about, remembered when the prompt ends if the turn
    /// after it left them as they were ([`crate::hook::remember`]).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub asked: Vec<crate::hook::remember::Asked>,
}
