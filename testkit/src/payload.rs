//! What the hook would send for a mined diff: the diff read by the same parser as
//! `eval --patch`, then the real selection, redaction and canonical payload stages.

use jev_preflight::git::attributes::Attributes;
use jev_preflight::git::diff::patch;
use jev_preflight::pipeline::Stages;
use jev_preflight::pipeline::payload::{Outcome, Payload, SizePolicy};

/// The payload's unified diff, or `None` when nothing survives selection (the hook would not
/// score the change at all) or the diff does not parse.
pub fn diff_of(diff: &str) -> Option<String> {
    of(diff).map(|p| p.diff)
}

/// The whole payload (what a remote scorer receives), as [`diff_of`].
pub fn of(diff: &str) -> Option<Payload> {
    let changes = patch::parse(diff.as_bytes()).ok()?;
    let stages = Stages::new(&[], SizePolicy::default()).expect("no user globs");
    let selection = stages.select(changes, &Attributes::default());
    match stages.payload(&selection.kept) {
        Outcome::Ready(payload) => Some(payload),
        Outcome::Empty | Outcome::Skipped(_) => None,
    }
}
