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

use std::collections::HashSet;
use std::sync::{Arc, OnceLock};
use std::time::Duration;

use crate::git::diff::Change;
use crate::git::snapshot::ReadOrder;
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

/// The payload's reading order for a snapshot past its read bounds: paths selection
/// excludes by name (the repository's `exclude` globs and the built-in rules, compiled only
/// once a walk needs them) are never read, bulk-added files neither, and the rest in
/// [`priority`]'s order, so a snapshot and the payload keep the same files.
pub fn read_order(exclude: &[String]) -> Arc<dyn ReadOrder> {
    Arc::new(PayloadOrder {
        globs: exclude.to_vec(),
        selector: OnceLock::new(),
    })
}

struct PayloadOrder {
    globs: Vec<String>,
    selector: OnceLock<Option<Selector>>,
}

impl ReadOrder for PayloadOrder {
    fn excluded(&self, path: &[u8]) -> bool {
        self.selector
            // Globs that do not compile were refused with the config; none apply here.
            .get_or_init(|| Selector::new(&self.globs).ok())
            .as_ref()
            .is_some_and(|s| s.excludes_by_path(path))
    }

    fn bulk<'a>(&self, added: &[&'a [u8]]) -> HashSet<&'a [u8]> {
        priority::bulk(added.iter().copied())
    }

    fn rank(&self, path: &[u8]) -> u8 {
        priority::classify(&String::from_utf8_lossy(path)) as u8
    }
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
