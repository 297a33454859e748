//! How the built-in scorer's model is fitted, shared by `cargo xtask fit` (which writes the
//! shipped model) and `cargo xtask quality` (which measures it).
//!
//! - **Units, multiple-instance.** A turn is a bag of units ([`crate::data::Unit`]); a benign
//!   turn's units are all benign, a risky turn has at least one risky unit, which one is not
//!   known. The gate is a logistic regression on units: every unit of a benign case is a
//!   negative; each risky case gives one positive, first the unit with the most changed
//!   lines where its label says to look (code; tests for `regression_tests`), then the unit
//!   the gate itself finds riskiest (one more round). A turn's score is its best unit's, so
//!   harmless units cannot pull a risky one down.
//! - **Axes.** A multinomial logistic regression on the positive units, each axis weighted
//!   by its count to the power `-axis_balance` so rare axes are ranked too.
//! - **Out-of-fold.** Calibration (Platt scaling of the gate, the axis model's temperature)
//!   and the default threshold are chosen on scores of repositories the model did not see:
//!   five folds by repository over the train side of every set.
//! - **Deterministic.** L-BFGS in `f64`, sequential, fixed order: the same data give the same
//!   model bytes.

use jev_preflight::pipeline::axes::AXIS_COUNT;
use jev_preflight::scorer::local::detect::Rule;
use jev_preflight::scorer::local::features::DIM;
use jev_preflight::scorer::local::model::{self, Calibration, Parts};

use crate::data::{Data, FOLDS, Item, Source, Unit};
use crate::optimize::{lbfgs, platt, sigmoid, softplus};
use crate::sets::{Kind, SetName, Side};

/// What the fit may be tuned by.
#[derive(Debug, Clone, Copy)]
pub struct Params {
    /// L2 penalty on the gate's weights (not its bias), on weights that sum to one.
    pub l2_gate: f64,
    /// L2 penalty on the axis model's weights.
    pub l2_axes: f64,
    /// Each risky case weighs its primary axis's count to the power `-axis_balance`.
    pub axis_balance: f64,
    /// L-BFGS iterations.
    pub iterations: usize,
    /// Rounds of the multiple-instance fit (1: the first guess of the risky unit only).
    pub rounds: usize,
    /// How steeply axes below the third fall off ([`model::shape`]).
    pub gamma_top: f64,
    pub gamma_rest: f64,
}

impl Default for Params {
    fn default() -> Params {
        Params {
            l2_gate: 3e-5,
            l2_axes: 3e-5,
            axis_balance: 1.25,
            iterations: 300,
            rounds: 2,
            gamma_top: 1e-4,
            gamma_rest: 4.0,
        }
    }
}

/// The benign false-alarm budgets the default thresholds keep to, out-of-fold on the train
/// side: lone benign changes, benign mixed turns, ordinary commits, `regression_tests` on
/// harmless test commits, and the safe variants of introduced-risk fixtures.
///
/// Mixed turns get 10%, not 5%: a benign turn of 2–4 changes fires when any one does, so at 5%
/// every lone change had to stay near 2% and the recall of every set halved, while ordinary
/// commits — whole real commits, the fire rate a user lives with — stayed at 2–3% either way
/// (`cargo xtask fit --budgets 0.04/0.05/0.05/0.03/0.05` prints the other operating point).
#[derive(Debug, Clone, Copy)]
pub struct Budgets {
    pub singles: f64,
    pub mixed: f64,
    pub ordinary: f64,
    pub tests: f64,
    pub safe_variants: f64,
}

impl Default for Budgets {
    fn default() -> Budgets {
        Budgets {
            singles: 0.04,
            mixed: 0.10,
            ordinary: 0.05,
            tests: 0.03,
            safe_variants: 0.05,
        }
    }
}

/// Both stages' weights, in `f64`.
#[derive(Debug, Clone)]
pub struct Weights {
    pub gate: Vec<f64>,
    pub gate_bias: f64,
    /// Axis-major, `AXIS_COUNT * DIM`.
    pub axes: Vec<f64>,
    pub axis_bias: [f64; AXIS_COUNT],
}

/// A unit's raw scores: the gate's log-odds and the axis logits.
pub type Raw = (f64, [f64; AXIS_COUNT]);

impl Weights {
    pub fn logits(&self, u: &Unit) -> Raw {
        let mut gate = self.gate_bias;
        let mut axes = self.axis_bias;
        for (&i, &v) in u.index.iter().zip(&u.value) {
            let (i, v) = (i as usize, f64::from(v));
            gate += self.gate[i] * v;
            for (a, z) in axes.iter_mut().enumerate() {
                *z += self.axes[a * DIM + i] * v;
            }
        }
        (gate, axes)
    }
}

/// The items the model is fitted on: cases of every set's train side (not mixed turns,
/// whose units are those of cases).
pub fn fit_items(data: &Data) -> Vec<usize> {
    (0..data.items.len())
        .filter(|&i| {
            let it = &data.items[i];
            it.side == Side::Train
                && matches!(
                    it.source,
                    Source::Set(
                        SetName::Corpus
                            | SetName::Tampering
                            | SetName::Ordinary
                            | SetName::Introduced
                    )
                )
        })
        .collect()
}

const TESTS_AXIS: usize = AXIS_COUNT - 1;

/// The first guess at a risky item's risky unit: the most changed lines where its label says
/// to look (tests for `regression_tests`, code otherwise), else anywhere.
fn first_guess(data: &Data, item: &Item) -> Option<usize> {
    let want_tests = item.primary == Some(TESTS_AXIS);
    let scored = || item.units.clone().filter(|&u| data.units[u].scored());
    scored()
        .filter(|&u| data.units[u].tests == want_tests)
        .max_by_key(|&u| (data.units[u].changed, std::cmp::Reverse(u)))
        .or_else(|| scored().max_by_key(|&u| (data.units[u].changed, std::cmp::Reverse(u))))
}

/// The unit the gate finds riskiest (first of ties).
fn riskiest(data: &Data, item: &Item, gate: &[f64], bias: f64) -> Option<usize> {
    let mut best: Option<(f64, usize)> = None;
    for u in item.units.clone().filter(|&u| data.units[u].scored()) {
        let unit = &data.units[u];
        let z = bias
            + unit
                .index
                .iter()
                .zip(&unit.value)
                .map(|(&i, &v)| gate[i as usize] * f64::from(v))
                .sum::<f64>();
        if best.is_none_or(|(b, _)| z > b) {
            best = Some((z, u));
        }
    }
    best.map(|(_, u)| u)
}

/// The gate on units: the positives, and every unit of the benign items; each side weighs
/// one half.
fn fit_gate(data: &Data, items: &[usize], positives: &[usize], p: &Params) -> (Vec<f64>, f64) {
    let mut rows: Vec<(usize, bool)> = positives.iter().map(|&u| (u, true)).collect();
    for &i in items {
        let it = &data.items[i];
        if it.kind == Kind::Benign {
            rows.extend(
                it.units
                    .clone()
                    .filter(|&u| data.units[u].scored())
                    .map(|u| (u, false)),
            );
        }
    }
    let pos = rows.iter().filter(|r| r.1).count().max(1) as f64;
    let neg = rows.iter().filter(|r| !r.1).count().max(1) as f64;
    let objective = |x: &[f64], grad: &mut [f64]| -> f64 {
        grad.iter_mut().for_each(|g| *g = 0.0);
        let mut loss = 0.0;
        for &(u, y) in &rows {
            let unit = &data.units[u];
            let w = if y { 0.5 / pos } else { 0.5 / neg };
            let z = x[DIM]
                + unit
                    .index
                    .iter()
                    .zip(&unit.value)
                    .map(|(&j, &v)| x[j as usize] * f64::from(v))
                    .sum::<f64>();
            let yf = f64::from(u8::from(y));
            loss += w * (softplus(z) - yf * z);
            let r = w * (sigmoid(z) - yf);
            for (&j, &v) in unit.index.iter().zip(&unit.value) {
                grad[j as usize] += r * f64::from(v);
            }
            grad[DIM] += r;
        }
        for j in 0..DIM {
            loss += 0.5 * p.l2_gate * x[j] * x[j];
            grad[j] += p.l2_gate * x[j];
        }
        loss
    };
    let x = lbfgs(vec![0.0; DIM + 1], p.iterations, &objective);
    (x[..DIM].to_vec(), x[DIM])
}

/// The axis model on the positive units, targeting each one's primary axis.
fn fit_axes(
    data: &Data,
    positives: &[(usize, usize)],
    p: &Params,
) -> (Vec<f64>, [f64; AXIS_COUNT]) {
    let mut per_axis = [0usize; AXIS_COUNT];
    for &(_, a) in positives {
        per_axis[a] += 1;
    }
    let total: f64 = per_axis
        .iter()
        .filter(|&&n| n > 0)
        .map(|&n| (n as f64).powf(1.0 - p.axis_balance))
        .sum::<f64>()
        .max(f64::MIN_POSITIVE);
    let weight: Vec<f64> = positives
        .iter()
        .map(|&(_, a)| 1.0 / total / (per_axis[a] as f64).powf(p.axis_balance))
        .collect();
    let width = AXIS_COUNT * (DIM + 1);
    let objective = |x: &[f64], grad: &mut [f64]| -> f64 {
        grad.iter_mut().for_each(|g| *g = 0.0);
        let mut loss = 0.0;
        for (r, &(u, target)) in positives.iter().enumerate() {
            let unit = &data.units[u];
            let w = weight[r];
            let mut z: [f64; AXIS_COUNT] = std::array::from_fn(|a| x[AXIS_COUNT * DIM + a]);
            for (&j, &v) in unit.index.iter().zip(&unit.value) {
                for (a, za) in z.iter_mut().enumerate() {
                    *za += x[a * DIM + j as usize] * f64::from(v);
                }
            }
            let prob = model::softmax(&z);
            loss -= w * prob[target].max(1e-300).ln();
            for a in 0..AXIS_COUNT {
                let r = w * (prob[a] - f64::from(u8::from(a == target)));
                for (&j, &v) in unit.index.iter().zip(&unit.value) {
                    grad[a * DIM + j as usize] += r * f64::from(v);
                }
                grad[AXIS_COUNT * DIM + a] += r;
            }
        }
        for j in 0..AXIS_COUNT * DIM {
            loss += 0.5 * p.l2_axes * x[j] * x[j];
            grad[j] += p.l2_axes * x[j];
        }
        loss
    };
    let x = lbfgs(vec![0.0; width], p.iterations, &objective);
    (
        x[..AXIS_COUNT * DIM].to_vec(),
        std::array::from_fn(|a| x[AXIS_COUNT * DIM + a]),
    )
}

/// Fits both stages on `items`.
pub fn fit(data: &Data, items: &[usize], p: &Params) -> Weights {
    let risky: Vec<usize> = items
        .iter()
        .copied()
        .filter(|&i| data.items[i].kind == Kind::Risky)
        .collect();
    let mut chosen: Vec<Option<usize>> = risky
        .iter()
        .map(|&i| first_guess(data, &data.items[i]))
        .collect();
    let mut gate = (Vec::new(), 0.0);
    for round in 0..p.rounds.max(1) {
        let positives: Vec<usize> = chosen.iter().flatten().copied().collect();
        gate = fit_gate(data, items, &positives, p);
        if round + 1 < p.rounds {
            chosen = risky
                .iter()
                .map(|&i| riskiest(data, &data.items[i], &gate.0, gate.1))
                .collect();
        }
    }
    let positives: Vec<(usize, usize)> = risky
        .iter()
        .zip(&chosen)
        .filter_map(|(&i, u)| Some(((*u)?, data.items[i].primary?)))
        .collect();
    let (axes, axis_bias) = fit_axes(data, &positives, p);
    Weights {
        gate: gate.0,
        gate_bias: gate.1,
        axes,
        axis_bias,
    }
}

/// Out-of-fold raw scores of every unit of the train side's items (cases and mixed turns):
/// each from the model fitted on the other folds' repositories.
pub fn out_of_fold(data: &Data, p: &Params) -> Vec<Option<Raw>> {
    let fit_on = fit_items(data);
    let mut raw: Vec<Option<Raw>> = vec![None; data.units.len()];
    for k in 0..FOLDS {
        let train: Vec<usize> = fit_on
            .iter()
            .copied()
            .filter(|&i| data.items[i].fold != k)
            .collect();
        let w = fit(data, &train, p);
        for it in data
            .items
            .iter()
            .filter(|it| it.side == Side::Train && it.fold == k)
        {
            for u in it.units.clone() {
                raw[u] = Some(w.logits(&data.units[u]));
            }
        }
        eprintln!("learn: fold {k} fitted");
    }
    raw
}

/// Each detector rule's strength, in [`Rule::ALL`] order: of the fit items where the rule
/// finds something, the share that are risky with the rule's axis as their primary, against
/// the benign ones (risky items of another axis count neither way), smoothed towards 0.9: a
/// precise rule written for one pattern is presumed right nine times in ten until its
/// findings say otherwise, `(hits + 9) / (hits + false alarms + 10)`.
pub fn rule_strengths(data: &Data, items: &[usize]) -> Vec<f64> {
    Rule::ALL
        .iter()
        .map(|&rule| {
            let (mut hits, mut alarms) = (0usize, 0usize);
            for &i in items {
                let it = &data.items[i];
                let found = it
                    .units
                    .clone()
                    .any(|u| data.units[u].findings.iter().any(|f| f.rule == rule));
                if !found {
                    continue;
                }
                match it.kind {
                    Kind::Risky if it.primary == Some(rule.axis()) => hits += 1,
                    Kind::Risky => {}
                    Kind::Benign => alarms += 1,
                }
            }
            (hits as f64 + PRIOR_HITS) / ((hits + alarms) as f64 + PRIOR_HITS + PRIOR_ALARMS)
        })
        .collect()
}

/// The prior of [`rule_strengths`]: nine right findings and one false alarm.
const PRIOR_HITS: f64 = 9.0;
const PRIOR_ALARMS: f64 = 1.0;

/// An item's axis scores: each axis's highest over its units, with findings.
pub fn item_values(
    data: &Data,
    item: &Item,
    raw: &dyn Fn(usize) -> Option<Raw>,
    c: &Calibration,
    strengths: &[f64],
) -> [f64; AXIS_COUNT] {
    let mut values = [0.0f64; AXIS_COUNT];
    for u in item.units.clone() {
        let unit = &data.units[u];
        if !unit.scored() {
            continue;
        }
        let Some((gate, axes)) = raw(u) else { continue };
        let v = model::with_findings(c.score(gate, &axes).axes, &unit.findings, |r| {
            strength_of(strengths, r)
        });
        for a in 0..AXIS_COUNT {
            values[a] = values[a].max(v[a]);
        }
    }
    values
}

/// A rule's strength in `strengths` ([`Rule::ALL`] order).
pub fn strength_of(strengths: &[f64], rule: Rule) -> f64 {
    Rule::ALL
        .iter()
        .position(|r| *r == rule)
        .and_then(|i| strengths.get(i))
        .copied()
        .unwrap_or(0.0)
}

/// Platt scaling of the gate and the axis model's temperature, from out-of-fold raw scores
/// of the train cases: the gate on each case's best unit, the temperature on the risky
/// cases' best units.
pub fn calibrate(data: &Data, raw: &[Option<Raw>], p: &Params) -> Calibration {
    let mut z = Vec::new();
    let mut y = Vec::new();
    let mut best_units: Vec<(Raw, usize)> = Vec::new();
    for &i in &fit_items(data) {
        let it = &data.items[i];
        let best = it
            .units
            .clone()
            .filter(|&u| data.units[u].scored())
            .filter_map(|u| raw[u])
            .fold(None::<Raw>, |b, r| match b {
                Some(b) if b.0 >= r.0 => Some(b),
                _ => Some(r),
            });
        let Some(best) = best else { continue };
        z.push(best.0);
        y.push(it.risky());
        if let Some(a) = it.primary {
            best_units.push((best, a));
        }
    }
    let gate = platt(&z, &y);
    let loss = |t: f64| -> f64 {
        best_units
            .iter()
            .map(|((_, axes), a)| -model::softmax(&axes.map(|v| v / t))[*a].max(1e-300).ln())
            .sum()
    };
    let mut temperature = 1.0;
    let mut best = f64::INFINITY;
    for step in 0..=60 {
        let t = 0.25 * 1.05f64.powi(step);
        let l = loss(t);
        if l < best {
            best = l;
            temperature = t;
        }
    }
    Calibration {
        platt: gate,
        temperature,
        gamma_top: p.gamma_top,
        gamma_rest: p.gamma_rest,
    }
}

/// How much a set's right selections weigh against its size in [`choose`]: each item weighs
/// `1 / n^power`, so at 1 every set counts as one and at 0 every item does.
pub const SET_WEIGHT_POWER: f64 = 0.75;

/// What an item's values are made of: the model's per-axis scores (the highest over its
/// units) and the detector rules its units found, as (axis, index into [`Rule::ALL`]).
#[derive(Debug, Clone, Default)]
pub struct Parts0 {
    pub model: [f64; AXIS_COUNT],
    pub rules: Vec<(usize, usize)>,
}

/// Every item's model scores and rules, from raw unit scores.
pub fn item_parts(data: &Data, raw: &dyn Fn(usize) -> Option<Raw>, c: &Calibration) -> Vec<Parts0> {
    data.items
        .iter()
        .map(|it| {
            let model = item_values(data, it, raw, c, &[]);
            let mut rules: Vec<(usize, usize)> = it
                .units
                .clone()
                .filter(|&u| data.units[u].scored())
                .flat_map(|u| data.units[u].findings.iter())
                .filter_map(|f| {
                    Rule::ALL
                        .iter()
                        .position(|r| *r == f.rule)
                        .map(|i| (f.rule.axis(), i))
                })
                .collect();
            rules.sort_unstable();
            rules.dedup();
            Parts0 { model, rules }
        })
        .collect()
}

/// An item's values given each rule's strength.
pub fn values_with(p: &Parts0, strengths: &[f64]) -> [f64; AXIS_COUNT] {
    let mut v = p.model;
    for &(a, r) in &p.rules {
        v[a] = v[a].max(strengths[r]);
    }
    v
}

/// What the fit chooses besides the weights: per-axis default thresholds and each rule's
/// strength (a trusted rule's is raised to its axis's threshold, so one finding fires).
#[derive(Debug, Clone)]
pub struct Choice {
    pub thresholds: [f64; AXIS_COUNT],
    pub strengths: Vec<f64>,
    pub trusted: Vec<bool>,
}

/// Chooses per-axis thresholds and the rules trusted to fire alone, greedily on
/// out-of-fold scores of the train side: starting with every axis off and no rule trusted,
/// take the step — lower one axis's threshold, or trust one rule — that gains the most right
/// selections (a risky item's primary axis among those selected; each item weighs
/// `1 / n^power`, `n` its set's size) per benign alarm it adds, as long as every budget
/// holds.
pub fn choose(data: &Data, parts: &[Parts0], measured: &[f64], b: &Budgets, power: f64) -> Choice {
    let train = |keep: &dyn Fn(&Item) -> bool| -> Vec<usize> {
        (0..data.items.len())
            .filter(|&i| data.items[i].side == Side::Train && keep(&data.items[i]))
            .collect()
    };
    let benign = |source: Source| move |it: &Item| it.source == source && !it.risky();
    // (items, share, only regression_tests counts)
    let budgets: [(Vec<usize>, f64, bool); 5] = [
        (
            train(&benign(Source::Set(SetName::Corpus))),
            b.singles,
            false,
        ),
        (train(&benign(Source::Mixed)), b.mixed, false),
        (
            train(&benign(Source::Set(SetName::Ordinary))),
            b.ordinary,
            false,
        ),
        (
            train(&benign(Source::Set(SetName::Tampering))),
            b.tests,
            true,
        ),
        (
            train(&benign(Source::Set(SetName::Introduced))),
            b.safe_variants,
            false,
        ),
    ];
    let mut risky: Vec<(usize, f64)> = Vec::new();
    for source in [
        Source::Set(SetName::Corpus),
        Source::Mixed,
        Source::Set(SetName::Introduced),
        Source::Set(SetName::Tampering),
    ] {
        let members = train(&|it: &Item| it.source == source && it.risky());
        let w = 1.0 / (members.len().max(1) as f64).powf(power);
        risky.extend(members.into_iter().map(|i| (i, w)));
    }
    let strengths_of = |t: &[f64; AXIS_COUNT], trusted: &[bool]| -> Vec<f64> {
        measured
            .iter()
            .enumerate()
            .map(|(r, &s)| {
                if trusted[r] {
                    s.max(t[Rule::ALL[r].axis()])
                } else {
                    s
                }
            })
            .collect()
    };
    let selected = |i: usize, t: &[f64; AXIS_COUNT], s: &[f64]| {
        crate::metrics::selected_at(&values_with(&parts[i], s), t)
    };
    let gain = |t: &[f64; AXIS_COUNT], s: &[f64]| -> f64 {
        risky
            .iter()
            .filter(|&&(i, _)| {
                data.items[i]
                    .primary
                    .is_some_and(|p| selected(i, t, s).contains(&p))
            })
            .map(|&(_, w)| w)
            .sum()
    };
    let alarms = |t: &[f64; AXIS_COUNT], s: &[f64]| -> Option<f64> {
        let mut cost = 0.0;
        for (items, share, tests_only) in &budgets {
            let n = items
                .iter()
                .filter(|&&i| {
                    let sel = selected(i, t, s);
                    if *tests_only {
                        sel.contains(&TESTS_AXIS)
                    } else {
                        !sel.is_empty()
                    }
                })
                .count() as f64;
            let len = items.len().max(1) as f64;
            if n > (share * len).floor() {
                return None;
            }
            cost += n / len;
        }
        Some(cost)
    };
    // Candidate steps per axis: its scores among the risky items, high to low, in steps of
    // about 1% of them.
    let candidates: Vec<Vec<f64>> = (0..AXIS_COUNT)
        .map(|a| {
            let mut v: Vec<f64> = risky
                .iter()
                .map(|&(i, _)| values_with(&parts[i], measured)[a])
                .collect();
            v.sort_by(|x, y| y.total_cmp(x));
            v.dedup();
            let step = (v.len() / 100).max(1);
            v.into_iter().skip(step - 1).step_by(step).collect()
        })
        .collect();
    // Whether item `i` holds a finding of rule `r`.
    let holds = |i: usize, r: usize| parts[i].rules.iter().any(|&(_, q)| q == r);
    let present: Vec<bool> = (0..measured.len())
        .map(|r| (0..parts.len()).any(|i| holds(i, r)))
        .collect();
    let mut at = [0usize; AXIS_COUNT];
    let mut t = [1.0 + 1e-9; AXIS_COUNT];
    let mut trusted = vec![false; measured.len()];
    let s0 = strengths_of(&t, &trusted);
    let (mut g, mut c) = (gain(&t, &s0), alarms(&t, &s0).unwrap_or(0.0));
    // A step: lower axis `a` to its next candidate, or trust rule `r`.
    #[derive(Clone, Copy)]
    enum Step {
        Axis(usize),
        Rule(usize),
    }
    loop {
        let mut best: Option<(f64, Step, f64, f64)> = None;
        let mut consider = |step: Step, trial_t: [f64; AXIS_COUNT], trial_r: &[bool]| {
            let s = strengths_of(&trial_t, trial_r);
            let Some(cost) = alarms(&trial_t, &s) else {
                return;
            };
            let g2 = gain(&trial_t, &s);
            let ratio = (g2 - g) / (cost - c + 1e-3);
            if best.is_none_or(|b| ratio > b.0) {
                best = Some((ratio, step, g2, cost));
            }
        };
        for a in 0..AXIS_COUNT {
            if let Some(&next) = candidates[a].get(at[a]) {
                let mut trial = t;
                trial[a] = next;
                consider(Step::Axis(a), trial, &trusted);
            }
        }
        for r in 0..measured.len() {
            if present[r] && !trusted[r] {
                let mut trial = trusted.clone();
                trial[r] = true;
                consider(Step::Rule(r), t, &trial);
            }
        }
        let Some((ratio, step, g2, cost)) = best else {
            break;
        };
        if ratio <= 0.0 && (cost > c || matches!(step, Step::Rule(_))) {
            break;
        }
        match step {
            Step::Axis(a) => {
                t[a] = candidates[a][at[a]];
                at[a] += 1;
            }
            Step::Rule(r) => trusted[r] = true,
        }
        (g, c) = (g2, cost);
    }
    // A rule that raised no harmless case of any budget keeps the presumption it was written
    // with (the prior of [`rule_strengths`]) and is trusted, so one finding fires: the steps
    // above leave such a rule out only when it found nothing on the train side to gain
    // (written for a pattern the train side does not hold), and a measured false alarm is
    // what withdraws the presumption.
    let prior = PRIOR_HITS / (PRIOR_HITS + PRIOR_ALARMS);
    for r in 0..measured.len() {
        let alarmed = budgets
            .iter()
            .any(|(items, _, _)| items.iter().any(|&i| holds(i, r)));
        if !trusted[r] && !alarmed && measured[r] >= prior - 1e-12 {
            trusted[r] = true;
        }
    }
    let thresholds = t.map(|v| v.min(1.0));
    Choice {
        strengths: strengths_of(&thresholds, &trusted),
        thresholds,
        trusted,
    }
}

/// The shipped model's parts.
pub fn parts(
    w: &Weights,
    c: &Calibration,
    thresholds: &[f64; AXIS_COUNT],
    strengths: &[f64],
) -> Parts {
    Parts {
        dim: DIM,
        gate_bias: w.gate_bias as f32,
        gate_platt: (c.platt.0 as f32, c.platt.1 as f32),
        temperature: c.temperature as f32,
        gamma_top: c.gamma_top as f32,
        gamma_rest: c.gamma_rest as f32,
        axis_bias: w.axis_bias.map(|b| b as f32),
        threshold: thresholds.map(|t| t as f32),
        rule_strength: strengths.iter().map(|&s| s as f32).collect(),
        gate_weights: w.gate.iter().map(|&v| v as f32).collect(),
        axis_weights: w.axes.iter().map(|&v| v as f32).collect(),
    }
}
