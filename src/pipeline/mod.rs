//! The pure stages between a list of changes and a verdict, shared by the hook's Stop and
//! `jev-preflight eval`, in this order: [`select()`] the paths that may be scored, redact them
//! into the canonical [`payload()`] under the size policy, then [`judge`]: ask the scorer and
//! pick the axes. Both callers go through these functions, so a turn and an `eval` of the same
//! change send the same bytes and select the same axes.
//!
//! Nothing under `pipeline/` does I/O: no git, no disk, no network, no clock. What the stages
//! need from the outside (the changes, the `.gitattributes` facts, the scorer) is handed in.
//! The scorer is the one call that may reach out, and it is a trait object the caller chose.

pub mod axes;
pub mod hunks;
pub mod paths;
pub mod payload;
pub mod priority;
pub mod redact;
pub mod select;
pub mod threshold;

use std::time::Duration;

use crate::git::diff::Change;
use crate::scorer::{ScoreError, Scorer, Scores};
use axes::{Selected, Thresholds};
use payload::{Outcome, Payload, SizePolicy};
use redact::Redactor;
use select::{Attributes, Selection, Selector};

/// Splits `changes` into what may be scored and what is left out, and why.
pub fn select(changes: Vec<Change>, selector: &Selector, attributes: &Attributes) -> Selection {
    select::select(changes, selector, attributes)
}

/// Redacts the kept changes into the canonical payload under `policy`.
pub fn payload(kept: &[Change], policy: &SizePolicy) -> Outcome {
    // Nothing kept (a turn that touched only excluded files): no redactor to build.
    if kept.is_empty() {
        return Outcome::Empty;
    }
    payload::build(kept, &Redactor::new(), policy)
}

/// The paths whose `.gitattributes` selection needs: every new and old path of `changes`.
pub fn attribute_paths(changes: &[Change]) -> Vec<Vec<u8>> {
    changes
        .iter()
        .flat_map(|c| std::iter::once(c.path.clone()).chain(c.old_path.clone()))
        .collect()
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
    let selected = axes::select(&scores.values, thresholds);
    Ok(Verdict {
        scorer: scorer.name(),
        scores,
        selected,
    })
}
