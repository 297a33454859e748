//! The whole learning procedure on the corpus, shared by the `fit` bench (which writes the
//! shipped model) and the `quality` bench (which prints the honest figures): features through
//! the production pipeline, grouped folds, out-of-fold scores, calibration, thresholds, and the
//! nested evaluation.

#![allow(dead_code)]

use std::time::Instant;

use jev_preflight::pipeline::axes::AXIS_COUNT;
use jev_preflight::scorer::local::features::{self, DIM};
use jev_preflight::scorer::local::model::Parts;

use super::corpus::{self, Case};
use super::eval_set;
use super::fit::{self, Figures, Params, Sample};

/// The corpus read into features.
pub struct Data {
    pub cases: Vec<Case>,
    pub samples: Vec<Sample>,
    pub fold: Vec<usize>,
}

impl Data {
    /// Loads the corpus at `dir` and extracts every case's features from the payload the hook
    /// would build (selection, redaction, canonical payload).
    pub fn load(dir: &std::path::Path, params: &Params) -> Result<Data, String> {
        let cases = corpus::load(dir)?;
        let start = Instant::now();
        let samples: Vec<Sample> = cases
            .iter()
            .map(|c| match eval_set::payload_from_diff(&c.diff) {
                Some(p) => Sample::of(&features::extract(&p.diff)),
                None => Sample {
                    empty: true,
                    ..Sample::default()
                },
            })
            .collect();
        eprintln!(
            "learn: {} cases, features in {:.1} s",
            cases.len(),
            start.elapsed().as_secs_f64()
        );
        let fold = cases
            .iter()
            .map(|c| corpus::fold_of(&c.repo, params.folds))
            .collect();
        Ok(Data {
            cases,
            samples,
            fold,
        })
    }

    pub fn all(&self) -> Vec<usize> {
        (0..self.cases.len()).collect()
    }

    /// The repositories, sorted.
    pub fn repos(&self) -> Vec<&str> {
        self.repos_of(&self.all())
    }

    /// The repositories of `members`, sorted.
    pub fn repos_of(&self, members: &[usize]) -> Vec<&str> {
        let mut r: Vec<&str> = members
            .iter()
            .map(|&i| self.cases[i].repo.as_str())
            .collect();
        r.sort_unstable();
        r.dedup();
        r
    }
}

/// What the procedure produced.
pub struct Outcome {
    /// The model to ship (only when asked for): fitted on every case, calibrated and
    /// thresholded out-of-fold.
    pub parts: Option<Parts>,
    /// Honest figures: nested cross-validation at each fold's own thresholds.
    pub nested: Figures,
    /// Out-of-fold figures at the shipped thresholds (thresholds chosen on the same
    /// out-of-fold scores, so slightly optimistic).
    pub oof: Figures,
    pub thresholds: [f64; AXIS_COUNT],
    /// The lowest per-axis out-of-fold precision at the shipped thresholds.
    pub precision_target: f64,
    /// Every case's calibrated out-of-fold scores (what `oof` was measured on).
    pub probs: Vec<[f64; AXIS_COUNT]>,
}

/// Calibrated probabilities of every case, zero for cases the hook would not score.
fn probs_of(data: &Data, raw: &[fit::Raw], c: &fit::Calibration) -> Vec<[f64; AXIS_COUNT]> {
    raw.iter()
        .zip(&data.samples)
        .map(|(r, s)| {
            if s.empty {
                [0.0; AXIS_COUNT]
            } else {
                fit::probabilities(r, c)
            }
        })
        .collect()
}

/// Runs the procedure on `members` of `data` (all cases, or a subset for a learning curve).
/// With `ship`, also fits the final model on every member; with `nested`, also runs the
/// nested cross-validation for honest figures (five times the work; the shipped model does
/// not depend on it).
pub fn run(data: &Data, members: &[usize], params: &Params, ship: bool, nested: bool) -> Outcome {
    let folds: Vec<usize> = (0..params.folds).collect();
    let start = Instant::now();
    let Calibrated {
        oof,
        calibration,
        probs,
        precision,
        thresholds,
    } = calibrated(data, members, params);
    let oof_figures = fit::figures(&data.cases, members, &probs, &|_| thresholds);

    // Nested: for fold k, calibration and thresholds from inner folds of the other folds.
    let mut nested_probs = vec![[0.0; AXIS_COUNT]; data.cases.len()];
    let mut nested_thresholds = vec![[1.0; AXIS_COUNT]; params.folds];
    for &k in folds.iter().filter(|_| nested) {
        let train: Vec<usize> = members
            .iter()
            .copied()
            .filter(|&i| data.fold[i] != k)
            .collect();
        let inner_folds: Vec<usize> = folds.iter().copied().filter(|&f| f != k).collect();
        let inner = fit::oof_raw(
            &data.samples,
            &data.cases,
            &train,
            &data.fold,
            &inner_folds,
            params,
        );
        let inner_calibration = fit::calibrate(&inner, &data.cases, &train, params);
        let inner_probs = probs_of(data, &inner, &inner_calibration);
        nested_thresholds[k] = fit::thresholds_for(&inner_probs, &data.cases, &train, params).1;
        let outer = probs_of(data, &oof, &inner_calibration);
        for &i in members.iter().filter(|&&i| data.fold[i] == k) {
            nested_probs[i] = outer[i];
        }
        eprintln!(
            "learn: nested fold {k} done at {:.1} s",
            start.elapsed().as_secs_f64()
        );
    }
    let nested = if nested {
        fit::figures(&data.cases, members, &nested_probs, &|i| {
            nested_thresholds[data.fold[i]]
        })
    } else {
        fit::Figures::default()
    };

    let parts = ship.then(|| {
        let model = fit_on(data, members, params);
        Parts {
            dim: DIM,
            gate_bias: model.gate_bias as f32,
            gate_platt: (calibration.gate.0 as f32, calibration.gate.1 as f32),
            temperature: calibration.temperature as f32,
            gamma: calibration.gamma as f32,
            axis_bias: model.axis_bias.map(|b| b as f32),
            threshold: thresholds.map(|t| t as f32),
            gate_weights: model.gate.iter().map(|&w| w as f32).collect(),
            axis_weights: model.axes.iter().map(|&w| w as f32).collect(),
        }
    });
    Outcome {
        parts,
        nested,
        oof: oof_figures,
        thresholds,
        precision_target: precision,
        probs,
    }
}

/// The out-of-fold scores of `members`, the calibration fitted on them, the calibrated
/// probabilities and the thresholds chosen on those: what the shipped model is calibrated and
/// thresholded with when `members` is every case.
struct Calibrated {
    oof: Vec<fit::Raw>,
    calibration: fit::Calibration,
    probs: Vec<[f64; AXIS_COUNT]>,
    precision: f64,
    thresholds: [f64; AXIS_COUNT],
}

fn calibrated(data: &Data, members: &[usize], params: &Params) -> Calibrated {
    let folds: Vec<usize> = (0..params.folds).collect();
    let start = Instant::now();
    let oof = fit::oof_raw(
        &data.samples,
        &data.cases,
        members,
        &data.fold,
        &folds,
        params,
    );
    eprintln!(
        "learn: out-of-fold scores in {:.1} s",
        start.elapsed().as_secs_f64()
    );
    let calibration = fit::calibrate(&oof, &data.cases, members, params);
    let probs = probs_of(data, &oof, &calibration);
    let (precision, thresholds) = fit::thresholds_for(&probs, &data.cases, members, params);
    Calibrated {
        oof,
        calibration,
        probs,
        precision,
        thresholds,
    }
}

/// The final fit on every one of `members`.
fn fit_on(data: &Data, members: &[usize], params: &Params) -> fit::Model {
    fit::fit(
        &members
            .iter()
            .map(|&i| &data.samples[i])
            .collect::<Vec<_>>(),
        &members.iter().map(|&i| &data.cases[i]).collect::<Vec<_>>(),
        params,
    )
}

/// Fits on `train` exactly as the shipped model is fitted (out-of-fold calibration and
/// thresholds on `train`'s repositories, then the final fit on all of `train`), and scores
/// `test` with that model, its calibration and its thresholds: figures on repositories that
/// took no part in fitting or in any design choice.
pub fn held_apart(data: &Data, train: &[usize], test: &[usize], params: &Params) -> Figures {
    let Calibrated {
        calibration,
        thresholds,
        ..
    } = calibrated(data, train, params);
    let model = fit_on(data, train, params);
    let mut raw = vec![(0.0, [0.0; AXIS_COUNT]); data.cases.len()];
    for &i in test {
        raw[i] = model.logits(&data.samples[i]);
    }
    let probs = probs_of(data, &raw, &calibration);
    fit::figures(&data.cases, test, &probs, &|_| thresholds)
}
