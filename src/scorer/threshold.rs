//! How thresholds — and the scores compared with them — are shown, and the one description
//! of the default threshold that every document and output uses.
//!
//! One rounding rule for display: [`DECIMALS`] decimal places, trailing zeros dropped
//! ([`shown`] for text, [`rounded`] for JSON numbers). Selection always compares the unrounded
//! values. The default's description is generated from the built-in scorer's embedded model
//! ([`crate::scorer::local::default_thresholds`]), so it stays true when the model is re-fitted;
//! the README, the JSON Schema and the plugin manifest carry the same sentence, and tests
//! compare them with [`default_story`].

use std::collections::BTreeMap;
use std::fmt::Write as _;

use crate::pipeline::axes::{AXIS_COUNT, AXIS_IDS, DEFAULT_THRESHOLD};

/// Decimal places a score or a threshold is shown with, in every output.
pub const DECIMALS: i32 = 3;

/// `v` rounded for display as a JSON number.
pub fn rounded(v: f64) -> f64 {
    let scale = 10f64.powi(DECIMALS);
    if v.is_finite() {
        (v * scale).round() / scale
    } else {
        v
    }
}

/// `v` as text: rounded to [`DECIMALS`] places, trailing zeros dropped (`0.85`, `0.949`, `1`).
pub fn shown(v: f64) -> String {
    if !v.is_finite() {
        return v.to_string();
    }
    let text = format!("{:.*}", DECIMALS as usize, rounded(v));
    let text = text.trim_end_matches('0').trim_end_matches('.');
    match text {
        "-0" => "0".to_owned(),
        other => other.to_owned(),
    }
}

/// How the built-in `local` scorer's defaults read: one value when every axis shares it,
/// else each axis with its own.
fn local_defaults_phrase(defaults: &[f64; AXIS_COUNT]) -> String {
    let first = shown(defaults[0]);
    if defaults.iter().all(|&t| shown(t) == first) {
        return format!("the built-in `local` scorer's calibrated default, {first}");
    }
    let each: Vec<String> = AXIS_IDS
        .iter()
        .zip(defaults)
        .map(|(id, &t)| format!("{id} {}", shown(t)))
        .collect();
    format!(
        "the built-in `local` scorer's calibrated defaults per axis ({})",
        each.join(", ")
    )
}

/// The default threshold in one sentence fragment, from the real values: the built-in
/// scorer's calibrated default(s) and [`DEFAULT_THRESHOLD`] for the other scorers, e.g.
/// "the built-in `local` scorer's calibrated default, 0.949; 0.85 for the other scorers".
pub fn default_story() -> String {
    story_for(crate::scorer::local::default_thresholds())
}

fn story_for(local: Option<[f64; AXIS_COUNT]>) -> String {
    let others = shown(DEFAULT_THRESHOLD);
    match local {
        Some(defaults) => format!(
            "{}; {others} for the other scorers",
            local_defaults_phrase(&defaults)
        ),
        None => format!("{others} for every scorer"),
    }
}

/// Who set the threshold that replaces a scorer's defaults.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SetBy {
    /// `threshold` (or `riskThreshold`) in the repository's `.jev-preflight.json`.
    Repo,
    /// The user's `threshold` setting (plugin option, environment or user config file).
    User,
}

/// The thresholds in force, described the same way in every output format: who chose them
/// and their values. `set` is an explicit threshold, `scorer_defaults` the scorer's own
/// (the `local` scorer's; `None` for the others), `per_axis` the repository's `thresholds`.
pub fn in_force(
    set: Option<(f64, SetBy)>,
    scorer_defaults: Option<[f64; AXIS_COUNT]>,
    per_axis: &BTreeMap<String, f64>,
) -> String {
    let mut text = match (set, scorer_defaults) {
        (Some((t, SetBy::Repo)), _) => {
            format!("{}, set in `.jev-preflight.json`", shown(t))
        }
        (Some((t, SetBy::User)), _) => format!("{}, set in your user settings", shown(t)),
        (None, Some(defaults)) => local_defaults_phrase(&defaults),
        (None, None) => format!(
            "{}, the default for scorers other than `local`",
            shown(DEFAULT_THRESHOLD)
        ),
    };
    if !per_axis.is_empty() {
        let each: Vec<String> = AXIS_IDS
            .iter()
            .filter_map(|id| per_axis.get(*id).map(|t| format!("{id} {}", shown(*t))))
            .collect();
        let _ = write!(text, "; per axis from `thresholds`: {}", each.join(", "));
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_rounding_rule() {
        let cases = [
            (0.948570728302002, "0.949", 0.949),
            (0.85, "0.85", 0.85),
            (0.5, "0.5", 0.5),
            (1.0, "1", 1.0),
            (0.0, "0", 0.0),
            (0.9995, "1", 1.0),
            (0.12345, "0.123", 0.123),
            (-0.0001, "0", -0.0),
        ];
        for (v, text, number) in cases {
            assert_eq!(shown(v), text, "{v}");
            assert_eq!(rounded(v), number, "{v}");
        }
        assert_eq!(shown(f64::NAN), "NaN");
    }

    #[test]
    fn the_default_is_described_from_the_values() {
        assert_eq!(
            story_for(Some([0.948570728302002; AXIS_COUNT])),
            "the built-in `local` scorer's calibrated default, 0.949; 0.85 for the other scorers"
        );
        let mut per_axis = [0.9; AXIS_COUNT];
        per_axis[1] = 0.95;
        let story = story_for(Some(per_axis));
        assert!(
            story.starts_with(
                "the built-in `local` scorer's calibrated defaults per axis (behavior_regression \
                    0.9, auth_boundary 0.95, input_validation 0.9,"
            ),
            "{story}"
        );
        assert!(
            story.ends_with("regression_tests 0.9); 0.85 for the other scorers"),
            "{story}"
        );
        assert_eq!(story_for(None), "0.85 for every scorer");
        // The shipped model's story names its real value.
        let shipped = crate::scorer::local::default_thresholds().unwrap();
        assert!(default_story().contains(&shown(shipped[0])));
    }

    #[test]
    fn thresholds_in_force() {
        let none = BTreeMap::new();
        assert_eq!(
            in_force(None, None, &none),
            "0.85, the default for scorers other than `local`"
        );
        assert_eq!(
            in_force(Some((0.7, SetBy::Repo)), Some([0.9; AXIS_COUNT]), &none),
            "0.7, set in `.jev-preflight.json`"
        );
        let per_axis = BTreeMap::from([("lifecycle".to_owned(), 0.3)]);
        assert_eq!(
            in_force(None, Some([0.9; AXIS_COUNT]), &per_axis),
            "the built-in `local` scorer's calibrated default, 0.9; per axis from `thresholds`: \
                lifecycle 0.3"
        );
        assert_eq!(
            in_force(Some((0.6, SetBy::User)), None, &none),
            "0.6, set in your user settings"
        );
    }
}
