//! Fitting and honest evaluation of the local scorer's model on the mined corpus.
//!
//! - One L2-regularized logistic regression per axis over the production features
//!   ([`jev_preflight::scorer::local::features`]), fitted by L-BFGS in `f64`, single-threaded
//!   per axis and in a fixed order, so the same corpus gives the same bytes on the same
//!   platform.
//! - Grouped k-fold cross-validation by repository: no repository is on both sides of a fold.
//! - Platt scaling per axis, fitted on out-of-fold scores, so the probabilities the agent sees
//!   are calibrated on changes the model did not train on.
//! - Per-axis thresholds: the lowest score at which the axis's out-of-fold precision stays at
//!   or above a target.
//! - Nested evaluation: the figures for fold `k` come from a model, a calibration and
//!   thresholds chosen without any repository of fold `k`.

#![allow(dead_code)]

use jev_preflight::pipeline::axes::{AXIS_COUNT, AXIS_IDS, MAX_SELECTED};
use jev_preflight::scorer::local::features::{self, DIM};

use super::corpus::{Case, Kind};

/// A case's features, as the production extractor produced them.
#[derive(Debug, Clone, Default)]
pub struct Sample {
    pub index: Vec<u32>,
    pub value: Vec<f32>,
    /// Nothing survived selection: the hook would not score this change at all.
    pub empty: bool,
}

impl Sample {
    pub fn of(f: &features::Features) -> Sample {
        Sample {
            index: f.index.clone(),
            value: f.value.clone(),
            empty: false,
        }
    }
}

/// What the fit may be tuned by.
#[derive(Debug, Clone, Copy)]
pub struct Params {
    /// L2 penalty on the weights (not the bias).
    pub l2: f64,
    /// Weight of a case whose *secondary* label is the axis, as a positive.
    pub secondary_weight: f64,
    /// Weight of every positive relative to a negative.
    pub positive_weight: f64,
    /// Folds of the cross-validation.
    pub folds: usize,
    /// Benign false-alarm rate the thresholds are chosen to stay under (out-of-fold): the
    /// precision target is the lowest one that keeps to it.
    pub false_alarm_limit: f64,
    /// L-BFGS iterations.
    pub iterations: usize,
}

impl Default for Params {
    fn default() -> Params {
        Params {
            l2: 2e-3,
            secondary_weight: 0.5,
            positive_weight: 2.0,
            folds: 5,
            false_alarm_limit: 0.04,
            iterations: 200,
        }
    }
}

/// One axis's fitted weights.
#[derive(Debug, Clone)]
pub struct AxisModel {
    pub weights: Vec<f64>,
    pub bias: f64,
}

/// All axes.
#[derive(Debug, Clone)]
pub struct Model {
    pub axes: Vec<AxisModel>,
}

impl Model {
    pub fn logits(&self, s: &Sample) -> [f64; AXIS_COUNT] {
        std::array::from_fn(|a| {
            let m = &self.axes[a];
            m.bias
                + s.index
                    .iter()
                    .zip(&s.value)
                    .map(|(&i, &v)| m.weights[i as usize] * f64::from(v))
                    .sum::<f64>()
        })
    }
}

fn sigmoid(z: f64) -> f64 {
    if z >= 0.0 {
        1.0 / (1.0 + (-z).exp())
    } else {
        let e = z.exp();
        e / (1.0 + e)
    }
}

/// `ln(1 + e^z)` without overflow.
fn softplus(z: f64) -> f64 {
    if z > 30.0 { z } else { z.exp().ln_1p() }
}

/// Labels and sample weights of `cases` for `axis`.
fn targets(cases: &[&Case], axis: usize, p: &Params) -> (Vec<f64>, Vec<f64>) {
    let mut y = Vec::with_capacity(cases.len());
    let mut w = Vec::with_capacity(cases.len());
    for c in cases {
        if c.primary == Some(axis) {
            y.push(1.0);
            w.push(p.positive_weight);
        } else if c.secondary.contains(&axis) {
            y.push(1.0);
            w.push(p.positive_weight * p.secondary_weight);
        } else {
            y.push(0.0);
            w.push(1.0);
        }
    }
    (y, w)
}

/// Loss and gradient of the weighted, regularized logistic loss at `x` (`x[DIM]` is the bias).
fn loss_grad(x: &[f64], xs: &[&Sample], y: &[f64], w: &[f64], l2: f64, grad: &mut [f64]) -> f64 {
    grad.iter_mut().for_each(|g| *g = 0.0);
    let total: f64 = w.iter().sum();
    let mut loss = 0.0;
    for (i, s) in xs.iter().enumerate() {
        let z = x[DIM]
            + s.index
                .iter()
                .zip(&s.value)
                .map(|(&j, &v)| x[j as usize] * f64::from(v))
                .sum::<f64>();
        loss += w[i] * (softplus(z) - y[i] * z);
        let r = w[i] * (sigmoid(z) - y[i]) / total;
        for (&j, &v) in s.index.iter().zip(&s.value) {
            grad[j as usize] += r * f64::from(v);
        }
        grad[DIM] += r;
    }
    loss /= total;
    for j in 0..DIM {
        loss += 0.5 * l2 * x[j] * x[j];
        grad[j] += l2 * x[j];
    }
    loss
}

fn dot(a: &[f64], b: &[f64]) -> f64 {
    a.iter().zip(b).map(|(x, y)| x * y).sum()
}

/// Minimizes the loss with L-BFGS (memory 8, backtracking Armijo line search).
fn lbfgs(xs: &[&Sample], y: &[f64], w: &[f64], p: &Params) -> Vec<f64> {
    const M: usize = 8;
    let n = DIM + 1;
    let mut x = vec![0.0; n];
    // Start the bias at the weighted base rate.
    let pos: f64 = y.iter().zip(w).map(|(y, w)| y * w).sum();
    let all: f64 = w.iter().sum();
    let rate = (pos / all).clamp(1e-4, 1.0 - 1e-4);
    x[DIM] = (rate / (1.0 - rate)).ln();
    let mut g = vec![0.0; n];
    let mut f = loss_grad(&x, xs, y, w, p.l2, &mut g);
    let mut s_hist: Vec<Vec<f64>> = Vec::new();
    let mut y_hist: Vec<Vec<f64>> = Vec::new();
    let mut g_new = vec![0.0; n];
    for _ in 0..p.iterations {
        // Two-loop recursion for the direction.
        let mut q = g.clone();
        let mut alphas = Vec::with_capacity(s_hist.len());
        for (s, yv) in s_hist.iter().zip(&y_hist).rev() {
            let rho = 1.0 / dot(yv, s);
            let a = rho * dot(s, &q);
            for (qi, yi) in q.iter_mut().zip(yv) {
                *qi -= a * yi;
            }
            alphas.push((a, rho));
        }
        let gamma = match (s_hist.last(), y_hist.last()) {
            (Some(s), Some(yv)) => dot(s, yv) / dot(yv, yv),
            _ => 1.0 / dot(&g, &g).sqrt().max(1e-12),
        };
        q.iter_mut().for_each(|v| *v *= gamma);
        for ((s, yv), (a, rho)) in s_hist.iter().zip(&y_hist).zip(alphas.into_iter().rev()) {
            let b = rho * dot(yv, &q);
            for (qi, si) in q.iter_mut().zip(s) {
                *qi += (a - b) * si;
            }
        }
        let dir: Vec<f64> = q.iter().map(|v| -v).collect();
        let slope = dot(&g, &dir);
        if slope >= 0.0 {
            break;
        }
        let mut step = 1.0;
        let mut x_new = vec![0.0; n];
        let mut f_new;
        loop {
            for i in 0..n {
                x_new[i] = x[i] + step * dir[i];
            }
            f_new = loss_grad(&x_new, xs, y, w, p.l2, &mut g_new);
            if f_new <= f + 1e-4 * step * slope || step < 1e-10 {
                break;
            }
            step *= 0.5;
        }
        let s: Vec<f64> = x_new.iter().zip(&x).map(|(a, b)| a - b).collect();
        let yv: Vec<f64> = g_new.iter().zip(&g).map(|(a, b)| a - b).collect();
        let converged = (f - f_new).abs() < 1e-10 * f.abs().max(1.0);
        x.copy_from_slice(&x_new);
        g.copy_from_slice(&g_new);
        f = f_new;
        if dot(&s, &yv) > 1e-12 {
            s_hist.push(s);
            y_hist.push(yv);
            if s_hist.len() > M {
                s_hist.remove(0);
                y_hist.remove(0);
            }
        }
        if converged {
            break;
        }
    }
    x
}

/// Fits every axis on `cases` (each axis on its own thread, two at a time; each fit is
/// sequential, so the result does not depend on scheduling).
pub fn fit(samples: &[&Sample], cases: &[&Case], p: &Params) -> Model {
    let axes: Vec<AxisModel> = std::thread::scope(|scope| {
        let mut out: Vec<Option<AxisModel>> = vec![None; AXIS_COUNT];
        for pair in (0..AXIS_COUNT).collect::<Vec<_>>().chunks(2) {
            let handles: Vec<_> = pair
                .iter()
                .map(|&axis| {
                    scope.spawn(move || {
                        let (y, w) = targets(cases, axis, p);
                        let x = lbfgs(samples, &y, &w, p);
                        AxisModel {
                            bias: x[DIM],
                            weights: x[..DIM].to_vec(),
                        }
                    })
                })
                .collect();
            for (&axis, h) in pair.iter().zip(handles) {
                out[axis] = Some(h.join().expect("a fit thread panicked"));
            }
        }
        out.into_iter().map(|m| m.expect("every axis fitted")).collect()
    });
    Model { axes }
}

/// Out-of-fold logits of `members` (indices into `samples`/`cases`), folds given per case.
pub fn oof_logits(
    samples: &[Sample],
    cases: &[Case],
    members: &[usize],
    fold: &[usize],
    folds: &[usize],
    p: &Params,
) -> Vec<[f64; AXIS_COUNT]> {
    let mut out = vec![[0.0; AXIS_COUNT]; samples.len()];
    for &k in folds {
        let train: Vec<usize> = members.iter().copied().filter(|&i| fold[i] != k).collect();
        let test: Vec<usize> = members.iter().copied().filter(|&i| fold[i] == k).collect();
        if test.is_empty() || train.is_empty() {
            continue;
        }
        let model = fit(
            &train.iter().map(|&i| &samples[i]).collect::<Vec<_>>(),
            &train.iter().map(|&i| &cases[i]).collect::<Vec<_>>(),
            p,
        );
        for &i in &test {
            out[i] = model.logits(&samples[i]);
        }
    }
    out
}

/// Platt scaling: `(a, b)` minimizing the log loss of `sigmoid(a·z + b)` (Newton's method
/// with a small ridge, from `a = 1, b = 0`).
pub fn platt(z: &[f64], y: &[bool]) -> (f64, f64) {
    let (mut a, mut b) = (1.0, 0.0);
    for _ in 0..100 {
        let (mut ga, mut gb, mut haa, mut hab, mut hbb) = (0.0, 0.0, 1e-6, 0.0, 1e-6);
        for (&zi, &yi) in z.iter().zip(y) {
            let p = sigmoid(a * zi + b);
            let r = p - f64::from(u8::from(yi));
            ga += r * zi;
            gb += r;
            let h = p * (1.0 - p);
            haa += h * zi * zi;
            hab += h * zi;
            hbb += h;
        }
        let det = haa * hbb - hab * hab;
        if det.abs() < 1e-18 {
            break;
        }
        let da = (hbb * ga - hab * gb) / det;
        let db = (haa * gb - hab * ga) / det;
        a -= da;
        b -= db;
        if da.abs() < 1e-9 && db.abs() < 1e-9 {
            break;
        }
    }
    (a, b)
}

/// Per-axis Platt parameters from out-of-fold logits of `members`.
pub fn calibrate(
    logits: &[[f64; AXIS_COUNT]],
    cases: &[Case],
    members: &[usize],
) -> [(f64, f64); AXIS_COUNT] {
    std::array::from_fn(|axis| {
        let z: Vec<f64> = members.iter().map(|&i| logits[i][axis]).collect();
        let y: Vec<bool> = members.iter().map(|&i| cases[i].labeled(axis)).collect();
        platt(&z, &y)
    })
}

/// Calibrated probabilities.
pub fn probabilities(
    logits: &[f64; AXIS_COUNT],
    platt: &[(f64, f64); AXIS_COUNT],
) -> [f64; AXIS_COUNT] {
    std::array::from_fn(|a| sigmoid(platt[a].0 * logits[a] + platt[a].1))
}

/// Per axis, the lowest threshold at which precision (cases labeled with the axis among
/// those scoring at or above it) stays at or above `target` all the way up; 1 when none.
pub fn thresholds(
    probs: &[[f64; AXIS_COUNT]],
    cases: &[Case],
    members: &[usize],
    target: f64,
) -> [f64; AXIS_COUNT] {
    std::array::from_fn(|axis| {
        let mut scored: Vec<(f64, bool)> = members
            .iter()
            .map(|&i| (probs[i][axis], cases[i].labeled(axis)))
            .collect();
        scored.sort_by(|a, b| b.0.total_cmp(&a.0));
        let (mut tp, mut n) = (0usize, 0usize);
        let mut best = 1.0;
        let mut ok_so_far = true;
        for (k, &(score, labeled)) in scored.iter().enumerate() {
            tp += usize::from(labeled);
            n += 1;
            // Decide only at the last of equal scores.
            if scored.get(k + 1).is_some_and(|next| next.0 == score) {
                continue;
            }
            let precision = tp as f64 / n as f64;
            // Require a few positives before the precision means anything.
            if n >= 5 && precision < target {
                ok_so_far = false;
            }
            if ok_so_far && n >= 5 {
                best = score;
            }
            if !ok_so_far {
                break;
            }
        }
        best
    })
}

/// Recall an axis is helped to before the others (the acceptance floor per axis).
pub const AXIS_FLOOR: f64 = 0.30;

/// Per-axis thresholds chosen greedily on `members`: starting with every axis off, lower the
/// threshold of the axis whose next step gains the most primary-axis hits per benign false
/// alarm it adds (hits on an axis still under [`AXIS_FLOOR`] recall count double), while the
/// benign false-alarm rate stays at or under `false_alarm_limit`. Returns the lowest
/// per-axis precision the chosen thresholds reach, and the thresholds.
pub fn choose_thresholds(
    probs: &[[f64; AXIS_COUNT]],
    cases: &[Case],
    members: &[usize],
    false_alarm_limit: f64,
) -> (f64, [f64; AXIS_COUNT]) {
    // Candidate thresholds per axis: its scores among members, high to low, in steps of
    // about 1% of the members so each step can change the figures.
    let step = (members.len() / 100).max(1);
    let candidates: Vec<Vec<f64>> = (0..AXIS_COUNT)
        .map(|a| {
            let mut v: Vec<f64> = members.iter().map(|&i| probs[i][a]).collect();
            v.sort_by(|x, y| y.total_cmp(x));
            v.dedup();
            v.into_iter().skip(step - 1).step_by(step).collect()
        })
        .collect();
    let mut at = [0usize; AXIS_COUNT];
    let mut t = [1.0f64 + 1e-9; AXIS_COUNT];
    let score = |f: &Figures| -> f64 {
        (0..AXIS_COUNT)
            .map(|a| {
                let (n, hit, _, _) = f.per_axis[a];
                let floor_hits = (AXIS_FLOOR * n as f64).ceil() as usize;
                hit as f64 + hit.min(floor_hits) as f64
            })
            .sum()
    };
    let mut current = figures(cases, members, probs, &|_| t);
    loop {
        let mut best: Option<(f64, usize, Figures)> = None;
        for a in 0..AXIS_COUNT {
            let Some(&next) = candidates[a].get(at[a]) else {
                continue;
            };
            let mut trial = t;
            trial[a] = next;
            let f = figures(cases, members, probs, &|_| trial);
            if f.false_alarms() > false_alarm_limit {
                continue;
            }
            let gain = score(&f) - score(&current);
            let cost = f.benign_alarms as f64 - current.benign_alarms as f64;
            let ratio = gain / (cost + 0.5);
            if best.as_ref().is_none_or(|b| ratio > b.0) {
                best = Some((ratio, a, f));
            }
        }
        let Some((ratio, a, f)) = best else { break };
        if ratio <= 0.0 {
            // Steps that gain nothing now may open later gains (a group of tied scores):
            // take the free ones, stop at the first that costs.
            if f.benign_alarms > current.benign_alarms {
                break;
            }
        }
        t[a] = candidates[a][at[a]];
        at[a] += 1;
        current = f;
    }
    let lowest_precision = (0..AXIS_COUNT)
        .filter_map(|a| current.axis_precision(a))
        .fold(1.0f64, f64::min);
    (lowest_precision, t.map(|v| v.min(1.0)))
}

/// The axes an answer would name: at or above the threshold, best first, ties by id, at most
/// three (the production rule, with per-axis thresholds).
pub fn selected(probs: &[f64; AXIS_COUNT], thresholds: &[f64; AXIS_COUNT]) -> Vec<usize> {
    let mut axes: Vec<usize> = (0..AXIS_COUNT)
        .filter(|&a| probs[a].is_finite() && probs[a] >= thresholds[a])
        .collect();
    axes.sort_by(|&a, &b| {
        probs[b]
            .total_cmp(&probs[a])
            .then(AXIS_IDS[a].cmp(AXIS_IDS[b]))
    });
    axes.truncate(MAX_SELECTED);
    axes
}

/// What one evaluation found.
#[derive(Debug, Clone, Default)]
pub struct Figures {
    pub risky: usize,
    pub benign: usize,
    pub benign_alarms: usize,
    /// Risky cases whose primary axis is among the selected.
    pub primary_hits: usize,
    /// Risky cases with any of their labels among the selected.
    pub any_hits: usize,
    /// Per axis: primary cases, of them selected; selections, of them labeled.
    pub per_axis: [(usize, usize, usize, usize); AXIS_COUNT],
    /// Reliability: per probability decile, (count, labeled) over every case and axis.
    pub reliability: [(usize, usize); 10],
}

impl Figures {
    pub fn primary_recall(&self) -> f64 {
        self.primary_hits as f64 / self.risky.max(1) as f64
    }
    pub fn any_recall(&self) -> f64 {
        self.any_hits as f64 / self.risky.max(1) as f64
    }
    pub fn false_alarms(&self) -> f64 {
        self.benign_alarms as f64 / self.benign.max(1) as f64
    }
    pub fn axis_recall(&self, a: usize) -> Option<f64> {
        let (n, hit, _, _) = self.per_axis[a];
        (n > 0).then(|| hit as f64 / n as f64)
    }
    pub fn axis_precision(&self, a: usize) -> Option<f64> {
        let (_, _, sel, good) = self.per_axis[a];
        (sel > 0).then(|| good as f64 / sel as f64)
    }
}

/// Figures of `members` given each case's probabilities and the thresholds that apply to it.
pub fn figures(
    cases: &[Case],
    members: &[usize],
    probs: &[[f64; AXIS_COUNT]],
    thresholds_of: &dyn Fn(usize) -> [f64; AXIS_COUNT],
) -> Figures {
    let mut f = Figures::default();
    for &i in members {
        let c = &cases[i];
        let sel = selected(&probs[i], &thresholds_of(i));
        for a in 0..AXIS_COUNT {
            let decile = ((probs[i][a] * 10.0) as usize).min(9);
            f.reliability[decile].0 += 1;
            f.reliability[decile].1 += usize::from(c.labeled(a));
        }
        for &a in &sel {
            f.per_axis[a].2 += 1;
            f.per_axis[a].3 += usize::from(c.labeled(a));
        }
        match c.kind {
            Kind::Benign => {
                f.benign += 1;
                f.benign_alarms += usize::from(!sel.is_empty());
            }
            Kind::Risky => {
                f.risky += 1;
                let p = c.primary.expect("risky cases have a primary axis");
                f.per_axis[p].0 += 1;
                if sel.contains(&p) {
                    f.primary_hits += 1;
                    f.per_axis[p].1 += 1;
                }
                f.any_hits += usize::from(sel.iter().any(|&a| c.labeled(a)));
            }
        }
    }
    f
}

/// The table printed by the quality bench and the fit.
pub fn table(title: &str, f: &Figures) -> String {
    use std::fmt::Write as _;
    let pct = |v: Option<f64>| v.map_or("    -".to_owned(), |v| format!("{:>5.1}", v * 100.0));
    let mut out = String::new();
    let _ = writeln!(out, "{title}");
    let _ = writeln!(
        out,
        "{:<20} {:>8} {:>7} {:>9} {:>6}",
        "axis", "primary", "recall%", "selected", "prec%"
    );
    for a in 0..AXIS_COUNT {
        let (n, _, sel, _) = f.per_axis[a];
        let _ = writeln!(
            out,
            "{:<20} {:>8} {:>7} {:>9} {:>6}",
            AXIS_IDS[a],
            n,
            pct(f.axis_recall(a)),
            sel,
            pct(f.axis_precision(a))
        );
    }
    let _ = writeln!(
        out,
        "top-3 primary recall {:.3} ({}/{}); any-label recall {:.3}; benign false alarms {:.3} ({}/{})",
        f.primary_recall(),
        f.primary_hits,
        f.risky,
        f.any_recall(),
        f.false_alarms(),
        f.benign_alarms,
        f.benign
    );
    out
}

/// The reliability table: predicted probability decile vs observed share of labeled axes.
pub fn reliability(f: &Figures) -> String {
    use std::fmt::Write as _;
    let mut out = String::from("| predicted | pairs | observed |\n|---|---:|---:|\n");
    for (d, &(n, yes)) in f.reliability.iter().enumerate() {
        let obs = if n > 0 {
            format!("{:.3}", yes as f64 / n as f64)
        } else {
            "-".into()
        };
        let _ = writeln!(out, "| {:.1}–{:.1} | {n} | {obs} |", d as f64 / 10.0, (d + 1) as f64 / 10.0);
    }
    out
}
