//! The 8 fixed risk axes, their questions, and the threshold / top-3 selection.
//! (Interface fixed; wording and selection land with issue 4.)

/// Number of axes; the order of [`AXES`] is part of the scoring API contract.
pub const AXIS_COUNT: usize = 8;

/// One yes/no risk question.
#[derive(Debug, Clone, Copy)]
pub struct Axis {
    /// Stable id sent to and read from scorers.
    pub id: &'static str,
    /// The question in plain words, as the agent reads it.
    pub question: &'static str,
    /// When the answer is yes.
    pub yes: &'static str,
    /// When the answer is no.
    pub no: &'static str,
}

/// The ids in contract order.
pub const AXIS_IDS: [&str; AXIS_COUNT] = [
    "behavior_regression",
    "auth_boundary",
    "input_validation",
    "data_integrity",
    "error_handling",
    "compatibility",
    "lifecycle",
    "regression_tests",
];

/// Default threshold at or above which an axis is selected.
pub const DEFAULT_THRESHOLD: f64 = 0.85;

/// Most axes named in one answer.
pub const MAX_SELECTED: usize = 3;

/// Threshold per axis.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Thresholds {
    pub default: f64,
    pub per_axis: [Option<f64>; AXIS_COUNT],
}

impl Default for Thresholds {
    fn default() -> Self {
        Thresholds {
            default: DEFAULT_THRESHOLD,
            per_axis: [None; AXIS_COUNT],
        }
    }
}

/// One selected axis: its index into [`AXES`] and its score.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Selected {
    pub axis: usize,
    pub score: f64,
}

/// The axes in contract order, with their wording.
pub fn axes() -> &'static [Axis; AXIS_COUNT] {
    unimplemented!("issue 4")
}

/// Axes whose score is finite and at or above their threshold, highest first, ties by id,
/// at most [`MAX_SELECTED`].
pub fn select(scores: &[f64; AXIS_COUNT], thresholds: &Thresholds) -> Vec<Selected> {
    let _ = (scores, thresholds);
    unimplemented!("issue 4")
}
