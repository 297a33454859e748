//! The built-in offline scorer: weighted signals read from the redacted diff, combined into
//! one probability per axis. Deterministic, no I/O, nothing leaves the machine.
//!
//! # How a score is made
//!
//! 1. [`hunks::parse`] splits the payload's unified diff into files, hunks and lines (new-file
//!    line numbers for `+` lines; a `-` line carries the new-file line where it was removed)
//!    and names each file's language (Go, Python, JavaScript/TypeScript, Rust, Java, Ruby, …)
//!    and role (source, test, config, dependency manifest, docs).
//! 2. [`signals::collect`] finds signals. A line only counts when it really changed: blank
//!    lines, comments, and lines whose whitespace-free text appears on the other side of the
//!    payload (moved, re-indented, renamed files) are skipped. Docs raise nothing; test files
//!    raise only `regression_tests` signals. Each signal has an axis and a weight `w` in
//!    (0, 1): the judged probability that the axis is a "yes" given that signal alone.
//! 3. Per axis, hits of the same signal are merged: a signal seen on `n` distinct lines with
//!    strongest weight `w` counts as `w_eff = 1 − (1 − w)^(1 + (min(n, 3) − 1) / 2)`, so
//!    repetition strengthens it without letting one noisy signal dominate.
//! 4. Distinct signals combine by noisy-OR over a prior `p₀` ([`PRIOR`]):
//!
//!    `p(axis) = 1 − (1 − p₀) · Π_s (1 − w_eff(s))`
//!
//!    so one strong signal (w ≥ 0.85) can select an axis on its own at the default threshold
//!    0.85, while weak signals (0.3–0.6) need company. A diff with no signal scores `p₀`.
//!
//! # Start-up
//!
//! A Stop hook is a fresh process, so compiling the rules is most of the cost. Nothing is
//! compiled up front: `prefilter` reads from each line rule's syntax the literals every
//! match must contain, one Aho-Corasick scan of the changed text decides which rules can
//! match at all, and only those are compiled (ASCII byte regexes on the lazy DFA, without the
//! regex engine's own prefilter). `cargo bench --bench local_startup` measures it.
//!
//! The weights come from the vulnerability and defect classes each rule names, then were
//! checked against the labeled set in `testdata/eval/` (`benches/support/eval_set.rs`). They are a
//! priority signal, not a calibrated defect probability.

mod hunks;
mod line_rules;
mod prefilter;
mod signals;

use std::collections::BTreeMap;
use std::time::Duration;

use super::{Evidence, ScoreError, Scorer, Scores};
use crate::pipeline::axes::AXIS_COUNT;
use crate::pipeline::payload::Payload;

pub use signals::Hit;

/// Probability of every axis before any signal is seen.
pub const PRIOR: f64 = 0.03;

/// Evidence items kept per axis, strongest first.
pub const EVIDENCE_PER_AXIS: usize = 3;

/// Offline, deterministic scorer: weighted signals read from the redacted diff.
#[derive(Debug, Default)]
pub struct LocalScorer {
    _private: (),
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
        let mut files = hunks::parse(diff);
        let hits = signals::collect(&mut files);
        combine(&hits)
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
}

/// Per signal id: the strongest weight seen and the distinct places (file, place key).
type SignalsSeen<'a> = BTreeMap<&'static str, (f64, Vec<(&'a str, u64)>)>;

/// Combines hits into scores and evidence with the formula in the module docs.
fn combine(hits: &[Hit]) -> Scores {
    // axis → signal id → (strongest weight, distinct lines)
    let mut by_axis: [SignalsSeen<'_>; AXIS_COUNT] = Default::default();
    for h in hits {
        let entry = by_axis[h.axis].entry(h.id).or_insert((0.0, Vec::new()));
        entry.0 = entry.0.max(h.weight);
        let place = (h.file.as_str(), h.place);
        if !entry.1.contains(&place) {
            entry.1.push(place);
        }
    }
    let mut values = [PRIOR; AXIS_COUNT];
    for (axis, signals) in by_axis.iter().enumerate() {
        let mut miss = 1.0 - PRIOR;
        for (w, places) in signals.values() {
            let n = places.len().clamp(1, 3) as f64;
            let exponent = 1.0 + (n - 1.0) / 2.0;
            miss *= (1.0 - w).powf(exponent);
        }
        values[axis] = (1.0 - miss).clamp(0.0, 1.0);
    }
    let mut evidence = Vec::new();
    for axis in 0..AXIS_COUNT {
        let mut axis_hits: Vec<&Hit> = hits.iter().filter(|h| h.axis == axis).collect();
        // Strongest first; ties in diff order, which `sort_by` keeps (stable).
        axis_hits.sort_by(|a, b| b.weight.total_cmp(&a.weight));
        let mut seen: Vec<(&str, u64)> = Vec::new();
        for h in axis_hits {
            if seen.len() == EVIDENCE_PER_AXIS {
                break;
            }
            if seen.contains(&(h.file.as_str(), h.place)) {
                continue;
            }
            seen.push((h.file.as_str(), h.place));
            evidence.push(Evidence {
                axis,
                file: h.file.clone(),
                line: (h.line > 0).then_some(h.line),
                note: h.note.clone(),
            });
        }
    }
    Scores {
        values,
        model: None,
        evidence,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::pipeline::axes::DEFAULT_THRESHOLD;

    const AUTH_BYPASS: &str = "diff --git a/internal/repo/permissions.go b/internal/repo/permissions.go\n\
        --- a/internal/repo/permissions.go\n+++ b/internal/repo/permissions.go\n\
        @@ -5,5 +5,5 @@ func CanEdit(owner, actor string) bool {\n \tif actor == \"\" {\n \t\treturn false\n \t}\n\
        -\treturn owner == actor\n+\treturn true\n }\n";

    #[test]
    fn auth_bypass_is_first_with_evidence() {
        let s = LocalScorer::new().score_diff(AUTH_BYPASS);
        assert!(
            s.values[line_rules::AUTH] >= DEFAULT_THRESHOLD,
            "{:?}",
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
        assert!(ev.note.contains("CanEdit"), "{}", ev.note);
    }

    #[test]
    fn empty_diff_scores_the_prior() {
        let s = LocalScorer::new().score_diff("");
        assert!(s.values.iter().all(|v| (*v - PRIOR).abs() < 1e-12));
        assert!(s.evidence.is_empty());
    }

    #[test]
    fn noisy_or_with_repetition() {
        let hit = |id, w, line: u32| Hit {
            axis: 0,
            id,
            weight: w,
            file: "f".into(),
            line,
            place: line.into(),
            note: String::new(),
        };
        let s = combine(&[hit("a", 0.5, 1)]);
        assert!((s.values[0] - (1.0 - 0.97 * 0.5)).abs() < 1e-12);
        let s = combine(&[hit("a", 0.5, 1), hit("a", 0.5, 2)]);
        assert!((s.values[0] - (1.0 - 0.97 * 0.5f64.powf(1.5))).abs() < 1e-12);
        let s = combine(&[hit("a", 0.5, 1), hit("b", 0.6, 1)]);
        assert!((s.values[0] - (1.0 - 0.97 * 0.5 * 0.4)).abs() < 1e-12);
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
