//! The local scorer on the labeled evaluation set: prints the per-axis table and holds the
//! acceptance figures (auth bypass first, top-3 recall ≥ 0.7, benign false alarms ≤ 10%).

use jev_preflight::axes::{AXIS_COUNT, AXIS_IDS, DEFAULT_THRESHOLD};
use jev_preflight::eval_set::{self, CaseKind, Split};
use jev_preflight::scorer::Scorer;
use jev_preflight::scorer::local::LocalScorer;
use std::time::Duration;

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
fn auth_bypass_scores_auth_boundary_first() {
    let cases = eval_set::load(&eval_set::default_dir()).unwrap();
    let case = cases
        .iter()
        .find(|c| c.id == "go-auth-return-true")
        .unwrap();
    assert!(
        case.diff
            .contains("-\treturn owner == actor\n+\treturn true\n")
    );
    let payload = eval_set::payload_from_diff(&case.diff);
    let scores = LocalScorer::new()
        .score(&payload, Duration::from_secs(1))
        .unwrap();
    let auth = axis("auth_boundary");
    assert!(
        scores.values[auth] >= DEFAULT_THRESHOLD,
        "{:?}",
        scores.values
    );
    for other in (0..AXIS_COUNT).filter(|&a| a != auth) {
        assert!(
            scores.values[other] < scores.values[auth],
            "{} ≥ auth: {:?}",
            AXIS_IDS[other],
            scores.values
        );
    }
    assert_eq!(eval_set::shown(&scores.values, DEFAULT_THRESHOLD)[0], auth);
    let evidence = scores.evidence.iter().find(|e| e.axis == auth).unwrap();
    assert_eq!(
        (evidence.file.as_str(), evidence.line),
        ("internal/repo/permissions.go", Some(8))
    );
}

#[test]
fn local_scorer_meets_the_acceptance_figures() {
    let cases = eval_set::load(&eval_set::default_dir()).unwrap();
    let scorer = LocalScorer::new();
    for (name, split) in [
        ("dev", Some(Split::Dev)),
        ("holdout", Some(Split::Holdout)),
        ("all", None),
    ] {
        let subset: Vec<_> = cases
            .iter()
            .filter(|c| split.is_none_or(|s| c.split == s))
            .cloned()
            .collect();
        let report = eval_set::evaluate(&scorer, &subset, DEFAULT_THRESHOLD).unwrap();
        println!("── {name} ──\n{}{}", report.table(), report.misses());
        if split.is_none() {
            assert!(
                report.top3_label_recall() >= 0.7,
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
