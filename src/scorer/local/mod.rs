//! The built-in offline scorer: a learned, calibrated model over general features of the
//! redacted diff. Deterministic, no I/O, nothing leaves the machine.
//!
//! # How a score is made
//!
//! 1. [`hunks::parse`] splits the payload's unified diff into files, hunks and lines and names
//!    each file's language and role (source, test, config, dependency manifest, docs); a line
//!    only counts when it really changed (not blank, not a comment, not moved or re-indented).
//! 2. [`features::extract`] reads general facts of the change: what kind of line was removed
//!    or added ([`kinds`]: a condition, a comparison, a `raise`/`throw`/`return err`, a header
//!    or cookie name, a size or bounds constant, a close/unlock/cancel, an `await`, a test
//!    assertion, …) in which role of file, hashed token n-grams of the changed lines and their
//!    context, what each hunk lost and gained, the shape of the change, and the hits of the
//!    hand-written [`signals`] (which remain as features: they name precise places).
//! 3. [`model`] reads them in two stages fitted on a mined corpus of real changes
//!    (`testdata/corpus/`, re-fitted deterministically by `scripts/fit`): a gate, `P(risky)`,
//!    and an axis model, `P(axis | risky)`; an axis scores their product, a calibrated
//!    probability (calibration fitted out-of-fold).
//! 4. [`evidence`] names, for every axis, the changed lines that pushed it up most and says
//!    what changed on them.
//!
//! Each axis has a default threshold chosen out-of-fold for a stated precision target; the
//! user's `threshold`/`thresholds` override them. How well this works on repositories the
//! model never saw is measured by grouped cross-validation (`scripts/quality`).
//!
//! # Start-up
//!
//! A Stop hook is a fresh process. The model is read in place from the binary; the lexer and
//! the line kinds are hand-written; the signals' rules compile lazily, only when a literal of
//! theirs occurs in the changed text. `cargo bench --bench local_startup` measures it.

mod evidence;
pub mod features;
mod hunks;
mod kinds;
mod line_rules;
pub mod model;
mod prefilter;
mod signals;
mod tokens;

use std::time::Duration;

use super::{ScoreError, Scorer, Scores};
use crate::pipeline::axes::AXIS_COUNT;
use crate::pipeline::payload::Payload;

pub use signals::Hit;

/// Evidence items kept per axis, strongest first.
pub const EVIDENCE_PER_AXIS: usize = evidence::PER_AXIS;

/// Offline, deterministic scorer: the learned model over the redacted diff.
#[derive(Debug, Default)]
pub struct LocalScorer {
    _private: (),
}

/// The shipped model's per-axis default thresholds (`None` if the embedded model is broken).
pub fn default_thresholds() -> Option<[f64; AXIS_COUNT]> {
    model::SHIPPED.as_ref().map(model::Model::thresholds)
}

impl LocalScorer {
    pub fn new() -> LocalScorer {
        LocalScorer::default()
    }

    /// Compiles every line rule now instead of when a payload first could match it, and
    /// returns how many rules have no literal to wait for; for benches and tests.
    #[doc(hidden)]
    pub fn compile_all_rules(&self) -> usize {
        signals::compile_all_rules()
    }

    /// Compile time of each regex the scorer may need; for the start-up bench.
    #[doc(hidden)]
    pub fn compile_profile(&self) -> Vec<(String, std::time::Duration)> {
        signals::compile_profile()
    }

    /// Scores a raw unified diff (what [`Scorer::score`] does with `payload.diff`).
    pub fn score_diff(&self, diff: &str) -> Scores {
        let f = features::extract(diff);
        score_features(&f)
    }
}

/// Scores extracted features with the shipped model.
pub fn score_features(f: &features::Features) -> Scores {
    let Some(model) = model::SHIPPED.as_ref() else {
        return Scores {
            values: [0.0; AXIS_COUNT],
            model: None,
            evidence: Vec::new(),
        };
    };
    let (gate, axes) = model.logits(f);
    let scored = model.score(gate, &axes);
    Scores {
        values: scored.axes,
        model: None,
        evidence: evidence::collect(model, f, &scored),
    }
}

impl Scorer for LocalScorer {
    fn name(&self) -> &'static str {
        "local"
    }

    // The budget is not consulted: the work is linear in the payload and takes milliseconds.
    fn score(&self, payload: &Payload, _budget: Duration) -> Result<Scores, ScoreError> {
        Ok(self.score_diff(&payload.diff))
    }

    fn default_thresholds(&self) -> Option<[f64; AXIS_COUNT]> {
        default_thresholds()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const AUTH_BYPASS: &str = "diff --git a/internal/repo/permissions.go b/internal/repo/permissions.go\n\
        --- a/internal/repo/permissions.go\n+++ b/internal/repo/permissions.go\n\
        @@ -5,5 +5,5 @@ func CanEdit(owner, actor string) bool {\n \tif actor == \"\" {\n \t\treturn false\n \t}\n\
        -\treturn owner == actor\n+\treturn true\n }\n";

    #[test]
    fn auth_bypass_is_first_with_evidence() {
        let s = LocalScorer::new().score_diff(AUTH_BYPASS);
        let thresholds = default_thresholds().unwrap();
        assert!(
            s.values[line_rules::AUTH] >= thresholds[line_rules::AUTH],
            "{:?} vs {thresholds:?}",
            s.values
        );
        let best = (0..AXIS_COUNT)
            .max_by(|&a, &b| s.values[a].total_cmp(&s.values[b]))
            .unwrap();
        assert_eq!(best, line_rules::AUTH);
        let ev = s
            .evidence
            .iter()
            .find(|e| e.axis == line_rules::AUTH)
            .unwrap();
        assert_eq!(ev.file, "internal/repo/permissions.go");
        assert_eq!(ev.line, Some(8));
    }

    #[test]
    fn empty_diff_scores_the_base_rate_and_names_nothing() {
        let s = LocalScorer::new().score_diff("");
        let model = model::SHIPPED.as_ref().unwrap();
        let (gate, axes) = model.logits(&Default::default());
        assert_eq!(s.values, model.score(gate, &axes).axes);
        assert!(s.evidence.is_empty());
    }

    proptest::proptest! {
        // Diff text is outside input: any bytes must score without panicking, in [0, 1].
        #[test]
        fn any_text_scores_in_range(body in "(?s).{0,400}", path in "[a-z/._]{1,20}") {
            let diff = format!("diff --git a/{path} b/{path}\n--- a/{path}\n+++ b/{path}\n@@ -1,3 +1,3 @@ fn x\n{body}");
            let s = LocalScorer::new().score_diff(&diff);
            proptest::prop_assert!(s.values.iter().all(|v| (0.0..=1.0).contains(v)));
            let s = LocalScorer::new().score_diff(&body);
            proptest::prop_assert!(s.values.iter().all(|v| (0.0..=1.0).contains(v)));
        }

        #[test]
        fn changed_lines_in_any_language_score_in_range(
            lines in proptest::collection::vec("[-+ ][ -~]{0,60}", 0..30),
            ext in proptest::sample::select(vec!["go", "py", "ts", "rs", "java", "rb", "yml", "md"]),
        ) {
            let diff = format!("diff --git a/x.{ext} b/x.{ext}\n--- a/x.{ext}\n+++ b/x.{ext}\n@@ -1 +1 @@\n{}\n", lines.join("\n"));
            let s = LocalScorer::new().score_diff(&diff);
            proptest::prop_assert!(s.values.iter().all(|v| (0.0..=1.0).contains(v)));
            let name = format!("x.{ext}");
            proptest::prop_assert!(s.evidence.iter().all(|e| e.file == name && e.axis < AXIS_COUNT));
        }
    }

    #[test]
    fn deterministic() {
        let a = LocalScorer::new().score_diff(AUTH_BYPASS);
        let b = LocalScorer::new().score_diff(AUTH_BYPASS);
        assert_eq!(a, b);
    }
}
