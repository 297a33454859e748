//! The axis policy as other stages see it: contract ids, wording, selection.

use jev_preflight::pipeline::axes::{
    AXIS_IDS, DEFAULT_THRESHOLD, MAX_SELECTED, Thresholds, axes, select,
};
use proptest::prelude::*;

#[test]
fn the_policy_is_embedded_in_contract_order() {
    let ids: Vec<_> = axes().iter().map(|a| a.id).collect();
    assert_eq!(
        ids,
        [
            "behavior_regression",
            "auth_boundary",
            "input_validation",
            "data_integrity",
            "error_handling",
            "compatibility",
            "lifecycle",
            "regression_tests",
        ]
    );
    assert_eq!(ids, AXIS_IDS);
    assert_eq!(DEFAULT_THRESHOLD, 0.85);
}

proptest! {
    #[test]
    fn selection_invariants(
        scores in proptest::array::uniform8(prop_oneof![
            4 => 0.0f64..=1.0,
            1 => Just(0.85),
            1 => Just(f64::NAN),
            1 => Just(f64::INFINITY),
        ]),
        default in 0.0f64..=1.0,
    ) {
        let t = Thresholds { default, per_axis: [None; 8] };
        let picked = select(&scores, &t);
        prop_assert!(picked.len() <= MAX_SELECTED);
        for s in &picked {
            prop_assert!(s.score.is_finite() && s.score >= default);
            prop_assert_eq!(s.score.to_bits(), scores[s.axis].to_bits());
        }
        for w in picked.windows(2) {
            prop_assert!(
                w[0].score > w[1].score
                    || (w[0].score == w[1].score && AXIS_IDS[w[0].axis] < AXIS_IDS[w[1].axis])
            );
        }
        // Nothing left out beats what was kept.
        let eligible = scores.iter().filter(|s| s.is_finite() && **s >= default).count();
        prop_assert_eq!(picked.len(), eligible.min(MAX_SELECTED));
        if let Some(last) = picked.last() {
            for (i, s) in scores.iter().enumerate() {
                if s.is_finite() && *s >= default && !picked.iter().any(|p| p.axis == i) {
                    prop_assert!(*s <= last.score);
                }
            }
        }
    }
}
