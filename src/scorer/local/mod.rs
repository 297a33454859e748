//! The built-in offline scorer: a learned, calibrated model over general features of the
//! redacted diff, with hand-written detectors beside it. Deterministic, no I/O, nothing leaves
//! the machine.
//!
//! # How a score is made
//!
//! 1. [`hunks::parse`] splits the payload's unified diff into files, hunks and lines and names
//!    each file's language and role (source, test, config, dependency manifest, docs); a line
//!    only counts when it really changed (not blank, not a comment, not moved or re-indented).
//! 2. [`units::features`] cuts the turn into units (families of related files) and reads each
//!    on its own: [`detect`] finds introduced risk and test tampering (names from the whole
//!    turn, counts from the unit), [`features`] the general facts of the unit — what kind of
//!    line was removed or added ([`kinds`]), in which role of file, hashed token n-grams of the
//!    changed lines and their context, what each hunk lost and gained, the unit's shape.
//! 3. [`model`] scores each unit: a gate, `P(risky)`, and an axis model that orders the axes,
//!    both calibrated out-of-fold; a detector finding raises its axis to its rule's measured
//!    strength when the fit trusts the rule. Each axis of the turn is its highest unit score,
//!    so a harmless unit cannot pull a risky one down ([`score_units`]).
//! 4. [`evidence`] names, for every axis, the findings and the changed lines of the unit that
//!    gave the axis its score.
//!
//! Each axis has its own default threshold, chosen out-of-fold under false-alarm budgets; the
//! user's `threshold`/`thresholds` override them. `cargo xtask fit --check` re-fits the model
//! byte for byte; `cargo xtask quality` measures it on held-apart data (`docs/local-scorer.md`).
//!
//! # Start-up
//!
//! A Stop hook is a fresh process. The model is read in place from the binary; the lexer, the
//! line kinds and the detectors are hand-written; nothing is compiled at run time (no regex).
//! `cargo bench --bench local_startup` measures it.

pub mod detect;
mod evidence;
pub mod features;
pub mod hunks;
mod kinds;
pub mod model;
mod quick;
mod tokens;
pub mod units;

use std::time::Duration;

use super::{ScoreError, Scorer, Scores};
use crate::pipeline::axes::AXIS_COUNT;
use crate::pipeline::payload::Payload;

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

    /// Scores a raw unified diff (what [`Scorer::score`] does with `payload.diff`).
    pub fn score_diff(&self, diff: &str) -> Scores {
        score_units(&units::features(diff, units::Grouping::Family))
    }
}

/// Scores a turn from its units: each axis takes its highest score over the units (a turn is
/// risky when one of its parts is, so harmless units cannot pull a risky one down), a unit's
/// score being the model's with its detectors' findings ([`model::with_findings`]). The
/// evidence for an axis comes from the unit that gave the axis its score: the findings
/// first, then the lines that pushed the model's score up most.
pub fn score_units(units: &[features::Features]) -> Scores {
    let Some(model) = model::SHIPPED.as_ref() else {
        return Scores {
            values: [0.0; AXIS_COUNT],
            model: None,
            evidence: Vec::new(),
            tokens: None,
        };
    };
    let mut values = [0.0f64; AXIS_COUNT];
    let mut from: [Option<(usize, model::Scored)>; AXIS_COUNT] = [None; AXIS_COUNT];
    for (i, unit) in units.iter().enumerate() {
        if unit.lines.is_empty() && unit.findings.is_empty() {
            continue;
        }
        let (gate, axes) = model.logits(unit);
        let scored = model.score(gate, &axes);
        let unit_values =
            model::with_findings(scored.axes, &unit.findings, |r| model.rule_strength(r));
        for a in 0..AXIS_COUNT {
            if unit_values[a] > values[a] || from[a].is_none() {
                values[a] = unit_values[a];
                from[a] = Some((i, scored));
            }
        }
    }
    let mut evidence = Vec::new();
    let mut done: Vec<usize> = Vec::new();
    for source in from.iter().flatten() {
        let (i, scored) = source;
        if done.contains(i) {
            continue;
        }
        done.push(*i);
        let unit = &units[*i];
        let axes: Vec<usize> = (0..AXIS_COUNT)
            .filter(|&a| from[a].is_some_and(|(u, _)| u == *i))
            .collect();
        let found = evidence::findings(unit);
        let learned = evidence::collect(model, unit, scored, &axes);
        for &a in &axes {
            let mut items: Vec<crate::scorer::Evidence> =
                found.iter().filter(|e| e.axis == a).cloned().collect();
            for e in learned.iter().filter(|e| e.axis == a) {
                if items.len() < EVIDENCE_PER_AXIS
                    && !items.iter().any(|x| x.file == e.file && x.line == e.line)
                {
                    items.push(e.clone());
                }
            }
            items.truncate(EVIDENCE_PER_AXIS);
            evidence.extend(items);
        }
    }
    evidence.sort_by_key(|e| e.axis);
    Scores {
        values,
        model: None,
        evidence,
        tokens: None,
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
    use crate::pipeline::axes::AXIS_IDS;

    const AUTH: usize = 1;

    const AUTH_BYPASS: &str = "diff --git a/internal/repo/permissions.go \
        b/internal/repo/permissions.go\n\
        --- a/internal/repo/permissions.go\n+++ b/internal/repo/permissions.go\n\
        @@ -5,5 +5,5 @@ func CanEdit(owner, actor string) bool \
        {\n \tif actor == \"\" {\n \t\treturn false\n \t}\n\
        -\treturn owner == actor\n+\treturn true\n }\n";

    // The model ranks the axes of a bypassed permission check with `auth_boundary` first and
    // points at the line; whether it fires depends on the fitted thresholds (measured by
    // `cargo xtask quality`, not asserted here).
    #[test]
    fn auth_bypass_is_first_with_evidence() {
        let s = LocalScorer::new().score_diff(AUTH_BYPASS);
        let best = (0..AXIS_COUNT)
            .max_by(|&a, &b| s.values[a].total_cmp(&s.values[b]))
            .unwrap();
        assert_eq!(best, AUTH);
        let ev = s.evidence.iter().find(|e| e.axis == AUTH).unwrap();
        assert_eq!(ev.file, "internal/repo/permissions.go");
        assert_eq!(ev.line, Some(8));
    }

    /// A reversed fix that drops a guard and the test that covered it.
    const GUARD_AND_TEST: &str = "diff --git a/lib/parse.js b/lib/parse.js\n--- a/lib/parse.js\n\
        +++ b/lib/parse.js\n\
        @@ -40,7 +40,4 @@ function parseKey(key, obj) \
        {\n   let cur = obj;\n   for (const part of parts) {\n\
        -    if (part === '__proto__' || part === 'constructor') {\n-      return;\n-    }\n     \
        cur = cur[part] = cur[part] || {};\n   }\n\
        diff --git a/test/parse.test.js b/test/parse.test.js\n--- a/test/parse.test.js\n\
        +++ b/test/parse.test.js\n\
        @@ -88,8 +88,4 @@ describe('parseKey', () => {\n   });\n\
        -  it('does not pollute the prototype', () => {\n\
        -    parseKey('__proto__.polluted', {});\n-    expect({}.polluted).toBeUndefined();\n\
        -  });\n });\n";

    #[test]
    fn evidence_points_at_lines_that_say_something_in_the_right_file() {
        let s = LocalScorer::new().score_diff(GUARD_AND_TEST);
        for e in &s.evidence {
            // No lone `}` or `});`: the note quotes a line with words in it.
            let quoted = e.note.rsplit(": `").next().unwrap_or_default();
            assert!(quoted.chars().any(char::is_alphanumeric), "{e:?}");
        }
        let first = |axis: &str| {
            s.evidence
                .iter()
                .find(|e| AXIS_IDS[e.axis] == axis)
                .map(|e| e.file.as_str())
        };
        // The removed test for regression_tests, the code for the axes about code.
        for axis in AXIS_IDS {
            let want = if axis == "regression_tests" {
                "test/parse.test.js"
            } else {
                "lib/parse.js"
            };
            assert_eq!(first(axis), Some(want), "{axis}: {:?}", s.evidence);
        }
    }

    #[test]
    fn empty_diff_selects_nothing_and_names_nothing() {
        let s = LocalScorer::new().score_diff("");
        let thresholds = default_thresholds().unwrap();
        assert!(
            s.values.iter().zip(thresholds).all(|(v, t)| *v < t),
            "{:?} vs {thresholds:?}",
            s.values
        );
        assert!(s.evidence.is_empty());
    }

    proptest::proptest! {
        // Diff text is outside input: any bytes must score without panicking, in [0, 1].
        #[test]
        fn any_text_scores_in_range(body in "(?s).{0,400}", path in "[a-z/._]{1,20}") {
            let diff = format!("diff --git a/{path} b/{path}\n--- a/{path}\n+++ b/{path}\n\
                @@ -1,3 +1,3 @@ fn x\n{body}");
            let s = LocalScorer::new().score_diff(&diff);
            proptest::prop_assert!(s.values.iter().all(|v| (0.0..=1.0).contains(v)));
            let s = LocalScorer::new().score_diff(&body);
            proptest::prop_assert!(s.values.iter().all(|v| (0.0..=1.0).contains(v)));
        }

        #[test]
        fn changed_lines_in_any_language_score_in_range(
            lines in proptest::collection::vec("[-+ ][ -~]{0,60}", 0..30),
            ext in proptest::sample::select(
                vec!["go", "py", "ts", "rs", "java", "rb", "yml", "md"],
            ),
        ) {
            let diff = format!("diff --git a/x.{ext} b/x.{ext}\n--- a/x.{ext}\n+++ b/x.{ext}\n\
                @@ -1 +1 @@\n{}\n", lines.join("\n"));
            let s = LocalScorer::new().score_diff(&diff);
            proptest::prop_assert!(s.values.iter().all(|v| (0.0..=1.0).contains(v)));
            let name = format!("x.{ext}");
            proptest::prop_assert!(
                s.evidence.iter().all(|e| e.file == name && e.axis < AXIS_COUNT)
            );
        }
    }

    /// A test marked skipped, a TLS check switched off: changes the detectors read.
    const SKIP_AND_TLS: &str = "diff --git a/tests/test_fetch.py b/tests/test_fetch.py\n\
        --- a/tests/test_fetch.py\n+++ b/tests/test_fetch.py\n\
        @@ -10,3 +10,4 @@ import pytest\n \n+@pytest.mark.skip(reason=\"flaky\")\n def \
        test_fetch_retries():\n     assert fetch(url) == 200\n\
        diff --git a/app/fetch.py b/app/fetch.py\n--- a/app/fetch.py\n+++ b/app/fetch.py\n\
        @@ -3,3 +3,3 @@ def fetch(url):\n-    r = requests.get(url, timeout=5)\n\
        +    r = requests.get(url, verify=False, timeout=5)\n     return r.status_code\n";

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(64))]

        // A turn is risky when one of its units is: adding a file unrelated to the rest (another
        // folder and name, no line or name in common) never lowers any axis, wherever it sits.
        #[test]
        fn an_unrelated_file_never_lowers_an_axis(
            base in proptest::sample::select(vec![AUTH_BYPASS, GUARD_AND_TEST, SKIP_AND_TLS]),
            lines in proptest::collection::vec(
                ("[+-]", "[a-z]{1,6}", "[a-z]{1,6}", 0u32..1000),
                1..14,
            ),
            ext in proptest::sample::select(
                vec!["py", "go", "js", "rs", "java", "rb", "md", "yml"],
            ),
            test_file in proptest::bool::ANY,
            first in proptest::bool::ANY,
        ) {
            let name = if test_file { "test_zqother" } else { "zqother" };
            let path = format!("zqvendor/{name}.{ext}");
            let body: String = lines
                .iter()
                .map(|(sign, a, b, n)| format!("{sign}zq{a} = zq{b}({n})\n"))
                .collect();
            let extra = format!(
                "diff --git a/{path} b/{path}\n--- a/{path}\n+++ b/{path}\n\
                    @@ -1,20 +1,20 @@ zqmain\n zqctx = 1\n{body}"
            );
            let before = LocalScorer::new().score_diff(base);
            let turn = if first { format!("{extra}{base}") } else { format!("{base}{extra}") };
            let after = LocalScorer::new().score_diff(&turn);
            for (a, id) in AXIS_IDS.iter().enumerate() {
                proptest::prop_assert!(
                    after.values[a] >= before.values[a],
                    "{}: {} -> {}", id, before.values[a], after.values[a]
                );
            }
        }
    }

    #[test]
    fn deterministic() {
        let a = LocalScorer::new().score_diff(AUTH_BYPASS);
        let b = LocalScorer::new().score_diff(AUTH_BYPASS);
        assert_eq!(a, b);
    }
}
