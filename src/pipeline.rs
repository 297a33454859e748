//! The stages between a list of changes and a score, shared by the hook's Stop and
//! `jev-preflight eval`: select paths, then redact into the canonical payload under the size
//! policy, then score and pick the axes. Both callers go through these functions, in this
//! order, so a turn and an `eval` of the same change send the same bytes.

use std::time::Duration;

use crate::axes::{self, AXIS_COUNT, Selected, Thresholds};
use crate::diff::Change;
use crate::git::{Git, GitError, Repo};
use crate::payload::{self, Outcome, Payload, SizePolicy};
use crate::redact::Redactor;
use crate::scorer::{self, ScoreError, Scorer, ScorerSettings, Scores};
use crate::select::{self, Attributes, SelectError, Selection, Selector};

/// Splits `changes` into what may be scored and what is left out. With a repository, its
/// `.gitattributes` (`linguist-generated`, `linguist-vendored`, `-diff`) and build manifests
/// count; without one (a patch file scored outside any repository) only paths and contents do.
pub fn select_changes(
    git: &Git,
    repo: Option<&Repo>,
    changes: Vec<Change>,
    excludes: &[String],
) -> Result<Result<Selection, SelectError>, GitError> {
    let selector = match Selector::new(excludes) {
        Ok(s) => s,
        Err(e) => return Ok(Err(e)),
    };
    let attributes = match repo {
        Some(repo) => {
            let paths: Vec<Vec<u8>> = changes
                .iter()
                .flat_map(|c| std::iter::once(c.path.clone()).chain(c.old_path.clone()))
                .collect();
            select::read_attributes(git, repo, &paths)?
        }
        None => Attributes::default(),
    };
    Ok(Ok(select::select(changes, &selector, &attributes)))
}

/// Redacts the kept changes into the canonical payload under `policy`.
pub fn build_payload(kept: &[Change], policy: &SizePolicy) -> Outcome {
    payload::build(kept, &Redactor::new(), policy)
}

/// Builds the scorer the settings choose and scores `payload` within `budget`.
pub fn score(
    settings: &ScorerSettings,
    payload: &Payload,
    budget: Duration,
) -> Result<(&'static str, Scores), ScoreError> {
    let scorer: Box<dyn Scorer + Send + Sync> = scorer::build(settings)?;
    let scores = scorer.score(payload, budget)?;
    Ok((scorer.name(), scores))
}

/// The axes at or above their threshold, best first, at most three.
pub fn select_axes(scores: &[f64; AXIS_COUNT], thresholds: &Thresholds) -> Vec<Selected> {
    axes::select(scores, thresholds)
}
