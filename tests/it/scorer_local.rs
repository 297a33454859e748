//! The local scorer on the hand-written evaluation set in `testdata/eval/`: prints the per-axis
//! table and holds a floor under the figures (auth bypass first; top-3 recall of labeled axes
//! ≥ 0.30 and benign false alarms ≤ 10% at the shipped thresholds). The model was fitted on the
//! mined corpus, never on this set, so the floor catches a broken or mis-shipped model; the
//! figures that predict real use are the corpus's out-of-fold ones (`scripts/quality`).

use jev_preflight::pipeline::axes::{AXIS_COUNT, AXIS_IDS};
use jev_preflight::scorer::Scorer;
use jev_preflight::scorer::local::LocalScorer;
use std::time::Duration;

use eval_set::{CaseKind, Split};
use testkit::eval_set;

fn axis(id: &str) -> usize {
    AXIS_IDS.iter().position(|a| *a == id).unwrap()
}

#[test]
fn eval_set_is_large_and_varied_enough() {
    let cases = eval_set::load(&eval_set::default_dir()).unwrap();
    let risky = cases.iter().filter(|c| c.kind == CaseKind::Risky).count();
    let benign = cases.iter().filter(|c| c.kind == CaseKind::Benign).count();
    assert!(risky >= 60, "{risky} risky cases");
    assert!(benign >= 30, "{benign} benign cases");
    for lang in ["go", "python", "js", "rust", "java", "ruby"] {
        let n = cases
            .iter()
            .filter(|c| c.lang == lang && c.kind == CaseKind::Risky)
            .count();
        assert!(n >= 8, "{lang}: {n} risky cases");
    }
    for axis in AXIS_IDS {
        let n = cases
            .iter()
            .filter(|c| c.labels.iter().any(|&a| AXIS_IDS[a] == axis))
            .count();
        assert!(n >= 4, "{axis}: {n} labeled cases");
    }
    assert!(cases.iter().any(|c| c.split == Split::Holdout));
    for c in &cases {
        assert!(!c.source.trim().is_empty(), "{}: no source", c.id);
        assert!(
            c.diff.starts_with("diff --git "),
            "{}: not a git diff",
            c.id
        );
    }
}

#[test]
fn auth_bypass_ranks_auth_boundary_with_evidence() {
    let cases = eval_set::load(&eval_set::default_dir()).unwrap();
    let case = cases
        .iter()
        .find(|c| c.id == "go-auth-return-true")
        .unwrap();
    assert!(
        case.diff
            .contains("-\treturn owner == actor\n+\treturn true\n")
    );
    let payload = eval_set::payload_from_diff(&case.diff).unwrap();
    let scorer = LocalScorer::new();
    let scores = scorer.score(&payload, Duration::from_secs(1)).unwrap();
    let auth = axis("auth_boundary");
    // The model ranks `auth_boundary` among the three axes it points at; whether the turn
    // fires depends on the fitted thresholds, measured by `cargo xtask quality`.
    let mut order: Vec<usize> = (0..AXIS_COUNT).collect();
    order.sort_by(|&a, &b| scores.values[b].total_cmp(&scores.values[a]));
    assert!(order[..3].contains(&auth), "{:?}", scores.values);
    let evidence = scores.evidence.iter().find(|e| e.axis == auth).unwrap();
    assert_eq!(
        (evidence.file.as_str(), evidence.line),
        ("internal/repo/permissions.go", Some(8))
    );
}

/// How the third held-out batch's sources start (see `testdata/eval/README.md`).
const BATCH_3: &str = "Third held-out batch";

#[test]
fn local_scorer_holds_its_floor_on_the_eval_set() {
    let cases = eval_set::load(&eval_set::default_dir()).unwrap();
    let scorer = LocalScorer::new();
    let thresholds = scorer.default_thresholds().unwrap();
    for (name, split, batch) in [
        ("dev", Some(Split::Dev), None),
        ("holdout", Some(Split::Holdout), None),
        ("holdout batch 3", Some(Split::Holdout), Some(BATCH_3)),
        ("all", None, None),
    ] {
        let subset: Vec<_> = cases
            .iter()
            .filter(|c| split.is_none_or(|s| c.split == s))
            .filter(|c| batch.is_none_or(|b| c.source.starts_with(b)))
            .cloned()
            .collect();
        let report = eval_set::evaluate(&scorer, &subset, &thresholds).unwrap();
        println!("── {name} ──\n{}{}", report.table(), report.misses());
        if split.is_none() {
            assert!(
                // Measured when the model shipped: 0.427 (64/150), benign 1/54 (in-sample).
                report.top3_label_recall() >= 0.30,
                "top-3 recall {:.3}",
                report.top3_label_recall()
            );
            assert!(
                report.benign_false_alarm_rate() <= 0.10,
                "benign false alarms {:.3}",
                report.benign_false_alarm_rate()
            );
        }
    }
}

// The figures themselves: built from the production payload and axis selection.

#[test]
fn shown_is_threshold_then_order_then_top3() {
    let v = [0.9, 0.95, 0.85, 0.1, 0.9, 0.84, 0.99, 0.0];
    assert_eq!(eval_set::shown(&v, &[0.85; AXIS_COUNT]), vec![6, 1, 0]);
    let v = [f64::NAN, 0.2, 0.85, 0.0, 0.0, 0.0, 0.0, 0.0];
    assert_eq!(eval_set::shown(&v, &[0.85; AXIS_COUNT]), vec![2]);
    // Per-axis thresholds: each axis against its own.
    let v = [0.9, 0.95, 0.85, 0.1, 0.9, 0.84, 0.99, 0.0];
    let t = [0.95, 0.96, 0.8, 0.0, 0.9, 0.5, 1.0, 0.5];
    assert_eq!(eval_set::shown(&v, &t), vec![4, 2, 5]);
}

#[test]
fn payload_is_canonical() {
    let diff = "diff --git a/z.go b/z.go\n--- a/z.go\n+++ b/z.go\n@@ -1 +1 @@\n-a\n+b\ndiff --git a/a.py b/a.py\n";
    let p = eval_set::payload_from_diff(diff).unwrap();
    assert_eq!(p.files, vec!["a.py", "z.go"]);
    assert!(
        p.json
            .starts_with(r#"{"format":"unified_diff","files":["a.py","z.go"],"diff":"diff --git"#)
    );
    assert_eq!(p.hash.len(), 64);
}

#[test]
fn figures() {
    let r = |kind, labels: Vec<usize>, values: [f64; AXIS_COUNT]| eval_set::CaseResult {
        id: "x".into(),
        kind,
        shown: eval_set::shown(&values, &[0.85; AXIS_COUNT]),
        labels,
        values,
        elapsed: Duration::ZERO,
    };
    let mut hot = [0.0; AXIS_COUNT];
    hot[1] = 0.9;
    hot[2] = 0.95;
    let report = eval_set::summarize(
        "t",
        [0.85; AXIS_COUNT],
        vec![
            r(CaseKind::Risky, vec![1], hot),
            r(CaseKind::Risky, vec![3], [0.0; AXIS_COUNT]),
            r(CaseKind::Benign, vec![], hot),
            r(CaseKind::Benign, vec![], [0.0; AXIS_COUNT]),
        ],
    );
    assert_eq!(report.top1_hits, 0);
    assert_eq!(report.top3_hits, 1);
    assert_eq!((report.labels_shown, report.labels_total), (1, 2));
    assert_eq!(report.benign_false_alarm_rate(), 0.5);
    assert_eq!(
        report.axes[1],
        eval_set::AxisFigures {
            true_pos: 1,
            false_pos: 1,
            false_neg: 0,
            support: 1
        }
    );
    assert_eq!(report.axes[3].recall(), Some(0.0));
    assert_eq!(report.axes[3].precision(), None);
}
