//! The learned model, in two stages over the hashed [`features`](super::features) of one
//! unit of a turn (see [`units`](super::units)):
//!
//! 1. a gate, a regularized logistic regression that tells a risky unit from a benign one,
//!    fitted as multiple-instance learning (a turn is risky when one of its units is) and
//!    calibrated by Platt scaling on out-of-fold turn scores: `P(risky)`;
//! 2. an axis model, a multinomial logistic regression fitted on the risky units, with a
//!    temperature fitted out-of-fold: `P(axis | risky)`.
//!
//! An axis's score for a unit is `P(risky) · r(axis)`, where `r` is the axis's share
//! relative to the unit's most likely axis, `q_a / q_max`, raised to a small power
//! (`gamma_top`) for the three axes the model ranks first and falling off steeply
//! (`gamma_rest`) below the third: the first axis scores the calibrated `P(risky)`, the next
//! two stay close to it in the order the model ranks them, and the axes it does not point at
//! score visibly lower. A turn's axis score is the highest over its units, and a detector's
//! finding raises its axis to at least the rule's strength, its precision measured on the
//! train side of the sets and stored with the model ([`with_findings`]). Each axis has a
//! default threshold chosen out-of-fold (see `cargo xtask fit`).
//!
//! The weights are fitted on the mined sets in `testdata/` by `cargo xtask fit`, which writes
//! `model.bin` and `model.sha256` deterministically; both are embedded here. `model.bin` is
//! little-endian:
//!
//! ```text
//! magic "JEVLOCAL"  version u32 = 3  dim u32  axes u32 = 8  rules u32
//! gate_bias f32  gate_platt_a f32  gate_platt_b f32  temperature f32  gamma_top f32
//! gamma_rest f32  axis_bias[8] f32  threshold[8] f32  rule_strength[rules] f32
//! gate_weight[dim] f32  axis_weight[axis][dim] f32   (axis-major)
//! ```
//!
//! The file is read in place (no copy, no parse beyond the header), so a hook process pays
//! nothing for it.

use std::sync::LazyLock;

use crate::pipeline::axes::AXIS_COUNT;

use super::detect::{Finding, Rule};
use super::features::Features;

/// The fitted model, as shipped.
static MODEL_BYTES: &[u8] = include_bytes!("model.bin");

/// SHA-256 of `model.bin`, written by the fit next to it (a test checks they agree).
pub const MODEL_SHA256: &str = include_str!("model.sha256");

const MAGIC: &[u8; 8] = b"JEVLOCAL";
const VERSION: u32 = 3;
const HEADER: usize = 8 + 4 * 4 + 4 * 6 + 4 * 2 * AXIS_COUNT;

/// Everything a model holds, for writing one (the fit) and for tests.
#[derive(Debug, Clone, PartialEq)]
pub struct Parts {
    pub dim: usize,
    pub gate_bias: f32,
    pub gate_platt: (f32, f32),
    pub temperature: f32,
    pub gamma_top: f32,
    pub gamma_rest: f32,
    pub axis_bias: [f32; AXIS_COUNT],
    pub threshold: [f32; AXIS_COUNT],
    /// Per detector rule, in [`Rule::ALL`] order: how far one finding raises its axis.
    pub rule_strength: Vec<f32>,
    pub gate_weights: Vec<f32>,
    /// Axis-major: `axis_weights[axis * dim + bucket]`.
    pub axis_weights: Vec<f32>,
}

impl Parts {
    /// The `model.bin` bytes.
    pub fn encode(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(HEADER + (self.dim * (AXIS_COUNT + 1)) * 4);
        out.extend_from_slice(MAGIC);
        for v in [
            VERSION,
            self.dim as u32,
            AXIS_COUNT as u32,
            self.rule_strength.len() as u32,
        ] {
            out.extend_from_slice(&v.to_le_bytes());
        }
        let floats = [
            self.gate_bias,
            self.gate_platt.0,
            self.gate_platt.1,
            self.temperature,
            self.gamma_top,
            self.gamma_rest,
        ]
        .into_iter()
        .chain(self.axis_bias)
        .chain(self.threshold)
        .chain(self.rule_strength.iter().copied())
        .chain(self.gate_weights.iter().copied())
        .chain(self.axis_weights.iter().copied());
        for v in floats {
            out.extend_from_slice(&v.to_le_bytes());
        }
        out
    }
}

/// A model read in place from its bytes.
#[derive(Debug, Clone)]
pub struct Model<'a> {
    dim: usize,
    gate_bias: f32,
    gate_platt: (f32, f32),
    temperature: f32,
    gamma_top: f32,
    gamma_rest: f32,
    axis_bias: [f32; AXIS_COUNT],
    threshold: [f32; AXIS_COUNT],
    rules: &'a [u8],
    gate: &'a [u8],
    axes: &'a [u8],
}

fn f32_at(bytes: &[u8], at: usize) -> f32 {
    let mut b = [0u8; 4];
    b.copy_from_slice(&bytes[at..at + 4]);
    f32::from_le_bytes(b)
}

fn u32_at(bytes: &[u8], at: usize) -> u32 {
    let mut b = [0u8; 4];
    b.copy_from_slice(&bytes[at..at + 4]);
    u32::from_le_bytes(b)
}

/// How a model scores one change: both stages, and the per-axis product.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Scored {
    /// `P(risky)`, calibrated.
    pub risky: f64,
    /// `P(axis | risky)`.
    pub given_risky: [f64; AXIS_COUNT],
    /// Each axis's score: `P(risky) · r(axis)` ([`shape`]).
    pub axes: [f64; AXIS_COUNT],
}

impl<'a> Model<'a> {
    /// Reads a model, checking its header and length.
    pub fn parse(bytes: &'a [u8]) -> Result<Model<'a>, &'static str> {
        if bytes.len() < HEADER || &bytes[..8] != MAGIC {
            return Err("not a local-scorer model");
        }
        if u32_at(bytes, 8) != VERSION {
            return Err("unknown model version");
        }
        let dim = u32_at(bytes, 12) as usize;
        if u32_at(bytes, 16) as usize != AXIS_COUNT {
            return Err("the model has another number of axes");
        }
        let rules = u32_at(bytes, 20) as usize;
        let start = HEADER + rules * 4;
        if bytes.len() != start + (AXIS_COUNT + 1) * dim * 4 {
            return Err("the model's length does not match its header");
        }
        let f = |n: usize| f32_at(bytes, 24 + n * 4);
        let block = |start: usize| -> [f32; AXIS_COUNT] { std::array::from_fn(|a| f(start + a)) };
        Ok(Model {
            dim,
            gate_bias: f(0),
            gate_platt: (f(1), f(2)),
            temperature: f(3),
            gamma_top: f(4),
            gamma_rest: f(5),
            axis_bias: block(6),
            threshold: block(6 + AXIS_COUNT),
            rules: &bytes[HEADER..start],
            gate: &bytes[start..start + dim * 4],
            axes: &bytes[start + dim * 4..],
        })
    }

    /// How far one finding of `rule` raises its axis (0 for a rule the model does not know).
    pub fn rule_strength(&self, rule: Rule) -> f64 {
        let i = Rule::ALL
            .iter()
            .position(|r| *r == rule)
            .unwrap_or(usize::MAX);
        if i >= self.rules.len() / 4 {
            return 0.0;
        }
        f64::from(f32_at(self.rules, i * 4))
    }

    pub fn dim(&self) -> usize {
        self.dim
    }

    /// The gate's weight of `bucket`.
    pub fn gate_weight(&self, bucket: u32) -> f32 {
        let i = bucket as usize;
        if i >= self.dim {
            return 0.0;
        }
        f32_at(self.gate, i * 4)
    }

    /// The axis model's weight of `bucket` for `axis`.
    pub fn axis_weight(&self, axis: usize, bucket: u32) -> f32 {
        let i = bucket as usize;
        if i >= self.dim {
            return 0.0;
        }
        f32_at(self.axes, (axis * self.dim + i) * 4)
    }

    /// Both stages' raw scores: the gate's log-odds, and each axis's logit.
    pub fn logits(&self, f: &Features) -> (f64, [f64; AXIS_COUNT]) {
        self.logits_of(&f.index, &f.value)
    }

    /// [`Model::logits`] of hashed features given as buckets and values.
    pub fn logits_of(&self, index: &[u32], value: &[f32]) -> (f64, [f64; AXIS_COUNT]) {
        let mut gate = f64::from(self.gate_bias);
        let mut axes = self.axis_bias.map(f64::from);
        for (&i, &v) in index.iter().zip(value) {
            let v = f64::from(v);
            gate += f64::from(self.gate_weight(i)) * v;
            for (axis, z) in axes.iter_mut().enumerate() {
                *z += f64::from(self.axis_weight(axis, i)) * v;
            }
        }
        (gate, axes)
    }

    /// How raw scores become probabilities in this model.
    pub fn calibration(&self) -> Calibration {
        Calibration {
            platt: (f64::from(self.gate_platt.0), f64::from(self.gate_platt.1)),
            temperature: f64::from(self.temperature),
            gamma_top: f64::from(self.gamma_top),
            gamma_rest: f64::from(self.gamma_rest),
        }
    }

    /// The calibrated scores of raw scores.
    pub fn score(&self, gate: f64, axes: &[f64; AXIS_COUNT]) -> Scored {
        self.calibration().score(gate, axes)
    }

    /// The per-axis default thresholds.
    pub fn thresholds(&self) -> [f64; AXIS_COUNT] {
        self.threshold.map(f64::from)
    }
}

/// How a unit's raw scores (the gate's log-odds and the axis logits) become its axis scores;
/// the fit uses the same code on its candidate models.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Calibration {
    /// Platt scaling of the gate: `P(risky) = σ(a·z + b)`.
    pub platt: (f64, f64),
    /// The axis model's temperature.
    pub temperature: f64,
    pub gamma_top: f64,
    pub gamma_rest: f64,
}

impl Calibration {
    /// Both stages' probabilities and the per-axis scores.
    pub fn score(&self, gate: f64, axes: &[f64; AXIS_COUNT]) -> Scored {
        let risky = sigmoid(self.platt.0 * gate + self.platt.1);
        let t = self.temperature.max(1e-3);
        let given_risky = softmax(&axes.map(|z| z / t));
        let r = shape(&given_risky, self.gamma_top, self.gamma_rest);
        Scored {
            risky,
            given_risky,
            axes: r.map(|r| r * risky),
        }
    }
}

/// Axes the model ranks first and keeps close to the unit's `P(risky)`.
pub const TOP: usize = 3;

/// Each axis's share relative to the most likely one, `q_a / q_max`, raised to `gamma_top`
/// for the [`TOP`] axes ranked first, and below the third axis falling off with
/// `gamma_rest`: `(q_3 / q_max)^gamma_top · (q_a / q_3)^gamma_rest`. Continuous and
/// increasing in `q_a`, so the order of the axes is the model's.
pub fn shape(q: &[f64; AXIS_COUNT], gamma_top: f64, gamma_rest: f64) -> [f64; AXIS_COUNT] {
    let mut sorted = *q;
    sorted.sort_by(|a, b| b.total_cmp(a));
    let (max, third) = (
        sorted[0].max(f64::MIN_POSITIVE),
        sorted[TOP - 1].max(f64::MIN_POSITIVE),
    );
    q.map(|p| {
        let p = p.max(0.0);
        if p >= third {
            (p / max).powf(gamma_top)
        } else {
            (third / max).powf(gamma_top) * (p / third).powf(gamma_rest)
        }
    })
}

/// Axis scores with the detectors' findings: a finding raises its axis to at least its
/// rule's strength (the share of the rule's findings that were right, measured on the train
/// side), so a rule fires on its own exactly when its measured precision reaches the
/// threshold.
pub fn with_findings(
    mut values: [f64; AXIS_COUNT],
    findings: &[Finding],
    strength: impl Fn(Rule) -> f64,
) -> [f64; AXIS_COUNT] {
    for f in findings {
        let a = f.rule.axis();
        values[a] = values[a].max(strength(f.rule));
    }
    values
}

/// The logistic function, without overflow.
pub fn sigmoid(z: f64) -> f64 {
    if z >= 0.0 {
        1.0 / (1.0 + (-z).exp())
    } else {
        let e = z.exp();
        e / (1.0 + e)
    }
}

/// Softmax, shifted by the maximum so no term overflows.
pub fn softmax(z: &[f64; AXIS_COUNT]) -> [f64; AXIS_COUNT] {
    let max = z.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    let e = z.map(|v| (v - max).exp());
    let sum: f64 = e.iter().sum();
    e.map(|v| v / sum)
}

/// The shipped model. A broken embedded file is a build defect that tests catch; should it
/// happen anyway, the scorer answers with no model (every axis at its prior) rather than panic.
pub static SHIPPED: LazyLock<Option<Model<'static>>> =
    LazyLock::new(|| Model::parse(MODEL_BYTES).ok());

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_shipped_model_matches_its_checksum_and_parses() {
        assert_eq!(
            crate::digest::hex_sha256(MODEL_BYTES),
            MODEL_SHA256.trim(),
            "model.bin changed without model.sha256: re-run scripts/fit"
        );
        let m = SHIPPED.as_ref().expect("the shipped model parses");
        assert_eq!(m.dim(), super::super::features::DIM);
        for t in m.thresholds() {
            assert!((0.0..=1.0).contains(&t), "{t}");
        }
    }

    #[test]
    fn encode_then_parse_round_trips() {
        let parts = Parts {
            dim: 4,
            gate_bias: 0.5,
            gate_platt: (1.0, 0.0),
            temperature: 1.0,
            gamma_top: 1.0,
            gamma_rest: 1.0,
            axis_bias: [0.0; AXIS_COUNT],
            threshold: [0.25; AXIS_COUNT],
            rule_strength: vec![0.5, 0.75],
            gate_weights: vec![1.0, 2.0, 3.0, 4.0],
            axis_weights: (0..4 * AXIS_COUNT).map(|i| i as f32).collect(),
        };
        let bytes = parts.encode();
        let m = Model::parse(&bytes).unwrap();
        assert_eq!(m.gate_weight(1), 2.0);
        assert_eq!(m.axis_weight(2, 3), 11.0);
        assert_eq!(m.axis_weight(2, 99), 0.0);
        assert_eq!(m.thresholds(), [0.25; AXIS_COUNT]);
        assert_eq!(m.rule_strength(Rule::ALL[1]), 0.75);
        assert_eq!(m.rule_strength(Rule::ALL[2]), 0.0);
        let s = m.score(0.0, &[0.0; AXIS_COUNT]);
        assert!((s.risky - 0.5).abs() < 1e-12);
        // Every axis as likely as the others: each scores `P(risky)`.
        assert!(
            s.axes.iter().all(|v| (v - 0.5).abs() < 1e-12),
            "{:?}",
            s.axes
        );
        assert!(Model::parse(&bytes[..bytes.len() - 1]).is_err());
        assert!(Model::parse(b"nonsense").is_err());
    }
}
