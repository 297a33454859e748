//! The 8 fixed risk axes, their questions, and the threshold / top-3 selection.
//!
//! The ids and their order are part of the scoring API contract; the wording is ours. Each
//! question is asked about one turn's code change, and each criterion says what the change
//! must show for the answer to be yes or no. The wording is embedded in the binary so that
//! every backend (and the agent reading the answer) sees the same policy.

/// Number of axes; the order of [`AXIS_IDS`] is part of the scoring API contract.
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

/// One selected axis: its index into [`AXIS_IDS`] and its score.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Selected {
    pub axis: usize,
    pub score: f64,
}

/// The axes in contract order, with their wording.
pub fn axes() -> &'static [Axis; AXIS_COUNT] {
    &AXES
}

static AXES: [Axis; AXIS_COUNT] = [
    Axis {
        id: "behavior_regression",
        question: "Could this change alter behavior that existing callers or users rely on, \
                   in a way the change does not show to be intended?",
        yes: "The change alters conditions, defaults, return values, ordering or control flow \
              on a path existing code already uses, and nothing in the change (an updated \
              caller, test or document) shows the new behavior is intended.",
        no: "The change only adds new paths, or every altered behavior is matched by updated \
             callers, tests or documentation that show it is intended.",
    },
    Axis {
        id: "auth_boundary",
        question: "Does this change weaken or bypass a check on who may do what \
                   (authentication, authorization, ownership, permissions, or verification of \
                   credentials, signatures and certificates)?",
        yes: "An identity, ownership or permission check is removed, made always true, moved \
              after the action it guards or widened to more principals; or a verification step \
              (token or signature validation, TLS certificate checks, CSRF protection) is \
              disabled or made optional.",
        no: "No authentication, authorization or verification logic is touched, or it is only \
             tightened, or refactored so that it grants and denies exactly the same requests.",
    },
    Axis {
        id: "input_validation",
        question: "Does this change let untrusted input reach a sensitive operation without \
                   validation, escaping or parameterization?",
        yes: "Input from outside the program (request data, files, arguments, environment, \
              messages) newly reaches a database query, shell command, file path, HTML output, \
              deserializer, allocation size or index, or a validation, escape or bounds check \
              on such input is removed or loosened.",
        no: "Input reaching sensitive operations stays validated, escaped or parameterized, or \
             the change does not touch such a flow.",
    },
    Axis {
        id: "data_integrity",
        question: "Could this change lose, corrupt or inconsistently write stored data?",
        yes: "The change adds or alters a destructive migration, a delete or update without a \
              narrowing condition, removes a transaction, lock or atomic write around related \
              writes, changes the format of data already stored, or leaves partial writes on a \
              failure path.",
        no: "The changed code does not write stored data, or its writes keep their conditions, \
             transactions and formats.",
    },
    Axis {
        id: "error_handling",
        question: "Does this change ignore, swallow or mishandle a failure?",
        yes: "An error is caught and discarded, only logged where the caller needs to know, \
              replaced by a default that hides the failure, no longer returned, or a fallible \
              call is unwrapped or left unchecked where it can fail at run time.",
        no: "Failures in the changed code are returned or handled explicitly, or the change \
             adds no operation that can fail.",
    },
    Axis {
        id: "compatibility",
        question: "Does this change break a contract that other code, clients or deployments \
                   depend on?",
        yes: "A public function signature, exported type, API route, wire or file format, \
              configuration key, command-line flag, environment variable or dependency major \
              version changes or disappears without a compatible path for existing users.",
        no: "Public interfaces and formats are unchanged, or the changes are additive and \
             backward compatible.",
    },
    Axis {
        id: "lifecycle",
        question: "Does this change mishandle the lifetime of a resource or of concurrent work?",
        yes: "A file, connection, lock, transaction, subscription, thread, task or timer is \
              acquired without a release on every path, a cleanup, `finally`, `defer`, unlock \
              or cancellation is removed, something is released too early, or shared state \
              loses the synchronization it had.",
        no: "Acquired resources are released on every path and synchronization is unchanged, \
             or the change manages no resources or concurrent work.",
    },
    Axis {
        id: "regression_tests",
        question: "Does this change alter logic without tests that would catch a regression in \
                   it?",
        yes: "Non-trivial logic changes and no test in the change exercises it, or existing \
              tests are deleted, skipped, or have their assertions weakened.",
        no: "The changed logic comes with tests that exercise it, or the change holds no logic \
             (documentation, formatting, comments, pure renames).",
    },
];

/// The threshold that applies to axis `index`.
pub fn threshold_for(thresholds: &Thresholds, index: usize) -> f64 {
    thresholds
        .per_axis
        .get(index)
        .copied()
        .flatten()
        .unwrap_or(thresholds.default)
}

/// Axes whose score is finite and at or above their threshold, highest first, ties by id,
/// at most [`MAX_SELECTED`].
pub fn select(scores: &[f64; AXIS_COUNT], thresholds: &Thresholds) -> Vec<Selected> {
    let mut kept: Vec<Selected> = scores
        .iter()
        .enumerate()
        // A NaN threshold selects nothing: `>=` against NaN is false.
        .filter(|&(i, &s)| s.is_finite() && s >= threshold_for(thresholds, i))
        .map(|(axis, &score)| Selected { axis, score })
        .collect();
    kept.sort_by(|a, b| {
        b.score
            .total_cmp(&a.score)
            .then_with(|| AXIS_IDS[a.axis].cmp(AXIS_IDS[b.axis]))
    });
    kept.truncate(MAX_SELECTED);
    kept
}

/// The index of axis `id`, if it is one of ours.
pub fn index_of(id: &str) -> Option<usize> {
    AXIS_IDS.iter().position(|&a| a == id)
}

/// Why an axis was raised: a place in the change and a short note.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct Evidence {
    pub axis: usize,
    pub file: String,
    pub line: Option<u32>,
    pub note: String,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_match_the_contract_order() {
        let ids: Vec<&str> = axes().iter().map(|a| a.id).collect();
        assert_eq!(ids, AXIS_IDS);
        for (i, id) in AXIS_IDS.iter().enumerate() {
            assert_eq!(index_of(id), Some(i));
        }
        assert_eq!(index_of("nope"), None);
    }

    #[test]
    fn wording_is_a_question_with_both_criteria() {
        for a in axes() {
            assert!(a.question.ends_with('?'), "{}", a.id);
            assert!(!a.question.contains("  "), "{}: doubled space", a.id);
            assert!(a.yes.len() > 40 && a.no.len() > 40, "{}", a.id);
            assert!(a.yes.ends_with('.') && a.no.ends_with('.'), "{}", a.id);
            assert_ne!(a.yes, a.no);
        }
    }

    fn with(pairs: &[(usize, f64)]) -> [f64; AXIS_COUNT] {
        let mut s = [0.0; AXIS_COUNT];
        for &(i, v) in pairs {
            s[i] = v;
        }
        s
    }

    fn picked(scores: &[f64; AXIS_COUNT], t: &Thresholds) -> Vec<&'static str> {
        select(scores, t).iter().map(|s| AXIS_IDS[s.axis]).collect()
    }

    type Case = (&'static [(usize, f64)], &'static [&'static str]);

    #[test]
    fn selection_table() {
        let d = Thresholds::default();
        let cases: &[Case] = &[
            (&[], &[]),
            // Inclusive at the threshold, exclusive just below.
            (&[(1, 0.85), (2, 0.8499999)], &["auth_boundary"]),
            // Highest first.
            (
                &[(0, 0.9), (3, 0.99)],
                &["data_integrity", "behavior_regression"],
            ),
            // Ties by id, not by contract order: `compatibility` < `lifecycle`.
            (&[(6, 0.9), (5, 0.9)], &["compatibility", "lifecycle"]),
            // At most three.
            (
                &[(0, 0.9), (1, 0.91), (2, 0.92), (3, 0.93), (4, 0.94)],
                &["error_handling", "data_integrity", "input_validation"],
            ),
            // Non-finite scores never select.
            (
                &[(0, f64::NAN), (1, f64::INFINITY), (2, 1.0)],
                &["input_validation"],
            ),
        ];
        for (scores, want) in cases {
            assert_eq!(picked(&with(scores), &d), *want, "{scores:?}");
        }
    }

    #[test]
    fn per_axis_overrides_apply() {
        let mut t = Thresholds::default();
        t.per_axis[7] = Some(0.5);
        t.per_axis[1] = Some(0.99);
        let s = with(&[(7, 0.6), (1, 0.95), (2, 0.86)]);
        assert_eq!(picked(&s, &t), ["input_validation", "regression_tests"]);
        t.per_axis[2] = Some(f64::NAN);
        assert_eq!(picked(&s, &t), ["regression_tests"]);
    }
}
