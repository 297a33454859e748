//! The labeled evaluation set in `testdata/eval/` and the figures that measure a scorer on it:
//! per-axis precision and recall, the benign false-alarm rate, and top-1 / top-3 hit rates of
//! what the agent would be shown (axes at or above the threshold, best first, at most 3).
//!
//! Any [`Scorer`] can be measured; the integration test and the startup bench use the same
//! loader, so the figures they print are the same. It builds each case's payload
//! and picks the shown axes with the production stages ([`Stages`](jev_preflight::pipeline::Stages),
//! [`axes::select`]), never with a copy of them.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use jev_preflight::git::diff::patch;
use jev_preflight::pipeline::axes::{self, AXIS_COUNT, AXIS_IDS, Thresholds};
use jev_preflight::pipeline::payload::Payload;
use jev_preflight::scorer::{ScoreError, Scorer};

/// Whether a case should raise axes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum CaseKind {
    Risky,
    Benign,
}

/// Which part of the set a case belongs to; `holdout` cases are looked at last.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Split {
    Dev,
    Holdout,
}

#[derive(Debug, serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct RawManifest {
    cases: Vec<RawCase>,
}

#[derive(Debug, serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct RawCase {
    id: String,
    lang: String,
    kind: CaseKind,
    labels: Vec<String>,
    split: Split,
    source: String,
}

/// One labeled diff.
#[derive(Debug, Clone)]
pub struct Case {
    pub id: String,
    pub lang: String,
    pub kind: CaseKind,
    /// Axis indexes the case should raise; empty for benign cases.
    pub labels: Vec<usize>,
    pub split: Split,
    pub source: String,
    pub diff: String,
}

/// Why the set could not be loaded.
#[derive(Debug, thiserror::Error)]
pub enum EvalSetError {
    #[error("cannot read `{}`: {source}", path.display())]
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("invalid manifest `{}`: {source}", path.display())]
    Manifest {
        path: PathBuf,
        source: serde_json::Error,
    },
    #[error("case `{case}`: {problem}")]
    Case { case: String, problem: String },
}

/// The set shipped in this repository.
pub fn default_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../testdata/eval")
}

/// Loads `dir/manifest.json` and each case's `dir/cases/<id>.diff`, checking the labels.
pub fn load(dir: &Path) -> Result<Vec<Case>, EvalSetError> {
    let path = dir.join("manifest.json");
    let text = std::fs::read_to_string(&path).map_err(|source| EvalSetError::Io {
        path: path.clone(),
        source,
    })?;
    let raw: RawManifest =
        serde_json::from_str(&text).map_err(|source| EvalSetError::Manifest { path, source })?;
    let mut cases = Vec::with_capacity(raw.cases.len());
    for c in raw.cases {
        let problem = |problem: String| EvalSetError::Case {
            case: c.id.clone(),
            problem,
        };
        if c.id.is_empty() || !c.id.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-') {
            return Err(problem("ids are ascii letters, digits and `-`".into()));
        }
        if cases.iter().any(|k: &Case| k.id == c.id) {
            return Err(problem("duplicate id".into()));
        }
        let mut labels = Vec::new();
        for label in &c.labels {
            let axis = AXIS_IDS
                .iter()
                .position(|id| id == label)
                .ok_or_else(|| problem(format!("unknown axis `{label}`")))?;
            labels.push(axis);
        }
        if (c.kind == CaseKind::Benign) != labels.is_empty() {
            return Err(problem(
                "risky cases need labels, benign cases have none".into(),
            ));
        }
        let diff_path = dir.join("cases").join(format!("{}.diff", c.id));
        let diff = std::fs::read_to_string(&diff_path).map_err(|source| EvalSetError::Io {
            path: diff_path,
            source,
        })?;
        cases.push(Case {
            id: c.id,
            lang: c.lang,
            kind: c.kind,
            labels,
            split: c.split,
            source: c.source,
            diff,
        });
    }
    Ok(cases)
}

/// The payload the hook would send for a case's diff: the diff read by the same parser as
/// `eval --patch`, then the real selection, redaction and canonical payload stages with the
/// default size policy. `None` when nothing survives selection (the hook would not score).
pub fn payload_from_diff(diff: &str) -> Option<Payload> {
    assert!(patch::parse(diff.as_bytes()).is_ok(), "eval diffs parse");
    crate::payload::of(diff)
}

/// The axes an answer would name at these per-axis thresholds: the real selection (at or
/// above, highest first, ties by id, at most three).
pub fn shown(values: &[f64; AXIS_COUNT], threshold: &[f64; AXIS_COUNT]) -> Vec<usize> {
    let thresholds = Thresholds {
        default: threshold[0],
        per_axis: threshold.map(Some),
    };
    axes::select(values, &thresholds)
        .iter()
        .map(|s| s.axis)
        .collect()
}

/// One case's outcome.
#[derive(Debug, Clone)]
pub struct CaseResult {
    pub id: String,
    pub kind: CaseKind,
    pub labels: Vec<usize>,
    pub values: [f64; AXIS_COUNT],
    pub shown: Vec<usize>,
    pub elapsed: Duration,
}

/// Precision and recall of one axis at the threshold.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct AxisFigures {
    pub true_pos: usize,
    pub false_pos: usize,
    pub false_neg: usize,
    /// Cases labeled with this axis.
    pub support: usize,
}

impl AxisFigures {
    /// `None` when the axis never fired.
    pub fn precision(&self) -> Option<f64> {
        ratio(self.true_pos, self.true_pos + self.false_pos)
    }

    /// `None` when no case is labeled with the axis.
    pub fn recall(&self) -> Option<f64> {
        ratio(self.true_pos, self.support)
    }
}

fn ratio(num: usize, den: usize) -> Option<f64> {
    (den > 0).then(|| num as f64 / den as f64)
}

/// The figures for one scorer over a set of cases.
#[derive(Debug, Clone)]
pub struct Report {
    pub scorer: String,
    pub threshold: [f64; AXIS_COUNT],
    pub results: Vec<CaseResult>,
    /// Per axis: fired means score ≥ threshold (whether or not it made the top 3).
    pub axes: [AxisFigures; AXIS_COUNT],
    pub risky: usize,
    pub benign: usize,
    /// Benign cases with at least one axis shown.
    pub benign_alarms: usize,
    /// Risky cases whose first shown axis is labeled.
    pub top1_hits: usize,
    /// Risky cases with at least one labeled axis shown.
    pub top3_hits: usize,
    /// Labeled axes shown, over all labels of risky cases.
    pub labels_shown: usize,
    pub labels_total: usize,
}

impl Report {
    pub fn benign_false_alarm_rate(&self) -> f64 {
        ratio(self.benign_alarms, self.benign).unwrap_or(0.0)
    }

    pub fn top1_hit_rate(&self) -> f64 {
        ratio(self.top1_hits, self.risky).unwrap_or(0.0)
    }

    pub fn top3_hit_rate(&self) -> f64 {
        ratio(self.top3_hits, self.risky).unwrap_or(0.0)
    }

    /// Share of labeled axes that the answer names (≥ threshold and in the top 3).
    pub fn top3_label_recall(&self) -> f64 {
        ratio(self.labels_shown, self.labels_total).unwrap_or(0.0)
    }

    /// The per-axis table and the summary lines, as printed by the test and the bench.
    pub fn table(&self) -> String {
        let pct = |v: Option<f64>| v.map_or("   -".to_owned(), |v| format!("{:>4.0}", v * 100.0));
        let mut out = String::new();
        let _ = writeln!(
            out,
            "scorer `{}`, thresholds {:?}: {} risky, {} benign cases",
            self.scorer,
            self.threshold.map(|t| (t * 1000.0).round() / 1000.0),
            self.risky,
            self.benign
        );
        let _ = writeln!(
            out,
            "{:<20} {:>5} {:>4} {:>4} {:>4} {:>6} {:>6}",
            "axis", "cases", "tp", "fp", "fn", "prec%", "rec%"
        );
        for (axis, f) in self.axes.iter().enumerate() {
            let _ = writeln!(
                out,
                "{:<20} {:>5} {:>4} {:>4} {:>4} {:>6} {:>6}",
                AXIS_IDS[axis],
                f.support,
                f.true_pos,
                f.false_pos,
                f.false_neg,
                pct(f.precision()),
                pct(f.recall())
            );
        }
        let _ = writeln!(
            out,
            "top-3 recall of labeled axes: {:.1}% ({}/{})",
            self.top3_label_recall() * 100.0,
            self.labels_shown,
            self.labels_total
        );
        let _ = writeln!(
            out,
            "top-1 hit rate: {:.1}% ({}/{}); top-3 hit rate: {:.1}% ({}/{})",
            self.top1_hit_rate() * 100.0,
            self.top1_hits,
            self.risky,
            self.top3_hit_rate() * 100.0,
            self.top3_hits,
            self.risky
        );
        let _ = writeln!(
            out,
            "benign false-alarm rate: {:.1}% ({}/{})",
            self.benign_false_alarm_rate() * 100.0,
            self.benign_alarms,
            self.benign
        );
        out
    }

    /// One line per case the answer gets wrong: a missed label or a benign alarm.
    pub fn misses(&self) -> String {
        let mut out = String::new();
        for r in &self.results {
            let missed: Vec<&str> = r
                .labels
                .iter()
                .filter(|a| !r.shown.contains(a))
                .map(|&a| AXIS_IDS[a])
                .collect();
            let alarm = r.kind == CaseKind::Benign && !r.shown.is_empty();
            if missed.is_empty() && !alarm {
                continue;
            }
            let scores: Vec<String> = (0..AXIS_COUNT)
                .filter(|&a| r.values[a] >= 0.2)
                .map(|a| format!("{}={:.2}", AXIS_IDS[a], r.values[a]))
                .collect();
            let _ = writeln!(
                out,
                "{:<32} missed [{}] shown [{}] scores {}",
                r.id,
                missed.join(","),
                r.shown
                    .iter()
                    .map(|&a| AXIS_IDS[a])
                    .collect::<Vec<_>>()
                    .join(","),
                scores.join(" ")
            );
        }
        out
    }
}

/// Scores every case with `scorer` and computes the figures at the per-axis `threshold`.
pub fn evaluate(
    scorer: &dyn Scorer,
    cases: &[Case],
    threshold: &[f64; AXIS_COUNT],
) -> Result<Report, ScoreError> {
    let mut results = Vec::with_capacity(cases.len());
    for case in cases {
        let start = Instant::now();
        let values = match payload_from_diff(&case.diff) {
            Some(payload) => scorer.score(&payload, Duration::from_secs(30))?.values,
            None => [0.0; AXIS_COUNT],
        };
        let elapsed = start.elapsed();
        results.push(CaseResult {
            id: case.id.clone(),
            kind: case.kind,
            labels: case.labels.clone(),
            shown: shown(&values, threshold),
            values,
            elapsed,
        });
    }
    Ok(summarize(scorer.name(), *threshold, results))
}

pub fn summarize(scorer: &str, threshold: [f64; AXIS_COUNT], results: Vec<CaseResult>) -> Report {
    let mut axes = [AxisFigures::default(); AXIS_COUNT];
    let (mut risky, mut benign, mut benign_alarms) = (0, 0, 0);
    let (mut top1_hits, mut top3_hits, mut labels_shown, mut labels_total) = (0, 0, 0, 0);
    for r in &results {
        for (axis, f) in axes.iter_mut().enumerate() {
            let labeled = r.labels.contains(&axis);
            let fired = r.values[axis].is_finite() && r.values[axis] >= threshold[axis];
            f.support += usize::from(labeled);
            f.true_pos += usize::from(labeled && fired);
            f.false_pos += usize::from(!labeled && fired);
            f.false_neg += usize::from(labeled && !fired);
        }
        match r.kind {
            CaseKind::Benign => {
                benign += 1;
                benign_alarms += usize::from(!r.shown.is_empty());
            }
            CaseKind::Risky => {
                risky += 1;
                top1_hits += usize::from(r.shown.first().is_some_and(|a| r.labels.contains(a)));
                let hits = r.labels.iter().filter(|a| r.shown.contains(a)).count();
                top3_hits += usize::from(hits > 0);
                labels_shown += hits;
                labels_total += r.labels.len();
            }
        }
    }
    Report {
        scorer: scorer.to_owned(),
        threshold,
        results,
        axes,
        risky,
        benign,
        benign_alarms,
        top1_hits,
        top3_hits,
        labels_shown,
        labels_total,
    }
}
