//! The pure stages between a list of changes and a payload, shared by the hook's Stop and
//! `jev-preflight eval`, in this order ([`Stages`]): select the paths that may be scored, then
//! redact them into the canonical payload under the size policy. The scorers take it from there
//! (`scorer::judge`: ask the scorer, pick the axes). Both callers go through
//! [`Stages`], so a turn and an `eval` of the same change send the same bytes and select the
//! same axes.
//!
//! Nothing under `pipeline/` does I/O: no git, no disk, no network, no clock. What the stages
//! need from the outside (the changes, the `.gitattributes` facts) is handed in. `pipeline/`
//! depends on `git/` for the types of a change and nothing above it.

pub mod axes;
pub mod hunks;
pub mod paths;
pub mod payload;
pub mod priority;
pub mod redact;
pub mod select;

use std::collections::HashSet;
use std::sync::{Arc, OnceLock};

use crate::git::attributes::Attributes;
use crate::git::diff::Change;
use crate::git::snapshot::ReadOrder;
use payload::{Outcome, SizePolicy};
use redact::Redactor;
use select::{SelectError, Selection, Selector};

/// The stages, ready to run on a turn's changes: the path selector (built-in rules and the
/// repository's `exclude` globs, compiled) and the redactor (its keyword automaton), built
/// once, and the size policy. The hook's Stop and `eval` both go through [`Stages::select`]
/// then [`Stages::payload`].
#[derive(Debug)]
pub struct Stages {
    selector: Selector,
    redactor: Redactor,
    policy: SizePolicy,
}

impl Stages {
    /// Compiles the selector for `exclude` and builds the redactor; a glob that does not
    /// compile is an error.
    pub fn new(exclude: &[String], policy: SizePolicy) -> Result<Stages, SelectError> {
        Ok(Stages {
            selector: Selector::new(exclude)?,
            redactor: Redactor::new(),
            policy,
        })
    }

    /// Splits `changes` into what may be scored and what is left out, and why.
    pub fn select(&self, changes: Vec<Change>, attributes: &Attributes) -> Selection {
        select::select(changes, &self.selector, attributes)
    }

    /// Redacts the kept changes into the canonical payload under the size policy.
    pub fn payload(&self, kept: &[Change]) -> Outcome {
        payload::build(kept, &self.redactor, &self.policy)
    }
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
