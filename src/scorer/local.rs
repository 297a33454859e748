//! The built-in offline scorer (issue 4).

use std::time::Duration;

use super::{ScoreError, Scorer, Scores};
use crate::payload::Payload;

/// Offline, deterministic scorer: weighted signals read from the redacted diff.
#[derive(Debug, Default)]
pub struct LocalScorer {
    _private: (),
}

impl LocalScorer {
    pub fn new() -> LocalScorer {
        LocalScorer::default()
    }
}

impl Scorer for LocalScorer {
    fn name(&self) -> &'static str {
        "local"
    }

    fn score(&self, payload: &Payload, budget: Duration) -> Result<Scores, ScoreError> {
        let _ = (payload, budget);
        unimplemented!("issue 4")
    }
}
