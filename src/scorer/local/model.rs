//! The learned model, in two stages over the hashed [`features`](super::features):
//!
//! 1. a gate, a regularized logistic regression that tells a risky change from a benign one,
//!    calibrated by Platt scaling fitted out-of-fold: `P(risky)`;
//! 2. an axis model, a multinomial logistic regression fitted on risky changes only, with a
//!    temperature fitted out-of-fold: `P(axis | risky)`.
//!
//! An axis's score is `P(risky) · P(axis | risky)^gamma` with a small `gamma`: for the axes
//! the model ranks first it stays close to the calibrated probability that the change
//! re-introduces a defect, and `P(axis | risky)` orders the axes. (A score of
//! `P(risky) · P(axis | risky)` would spread one change's risk over eight axes, and no
//! threshold could then tell the third-ranked axis of a risky change from the first of a
//! benign one.) Each axis has a default threshold chosen out-of-fold (see `scripts/fit`); the
//! shipped fit gives every axis the same one, the score at which at most 5% of benign
//! changes raise an axis, so that the gate decides whether to look and the axis model where.
//!
//! The weights are fitted on the mined corpus in `testdata/corpus/` by `scripts/fit` (the
//! `fit` bench), which writes `model.bin` and `model.sha256` deterministically; both are
//! embedded here. `model.bin` is little-endian:
//!
//! ```text
//! magic "JEVLOCAL"  version u32 = 2  dim u32  axes u32 = 8  reserved u32
//! gate_bias f32  gate_platt_a f32  gate_platt_b f32  temperature f32  gamma f32
//! axis_bias[8] f32  threshold[8] f32
//! gate_weight[dim] f32  axis_weight[axis][dim] f32   (axis-major)
//! ```
//!
//! The file is read in place (no copy, no parse beyond the header), so a hook process pays
//! nothing for it.

use std::sync::LazyLock;

use crate::pipeline::axes::AXIS_COUNT;

use super::features::Features;

/// The fitted model, as shipped.
static MODEL_BYTES: &[u8] = include_bytes!("model.bin");

/// SHA-256 of `model.bin`, written by the fit next to it (a test checks they agree).
pub const MODEL_SHA256: &str = include_str!("model.sha256");

const MAGIC: &[u8; 8] = b"JEVLOCAL";
const VERSION: u32 = 2;
const HEADER: usize = 8 + 4 * 4 + 4 * 5 + 4 * 2 * AXIS_COUNT;

/// Everything a model holds, for writing one (the fit) and for tests.
#[derive(Debug, Clone, PartialEq)]
pub struct Parts {
    pub dim: usize,
    pub gate_bias: f32,
    pub gate_platt: (f32, f32),
    pub temperature: f32,
    pub gamma: f32,
    pub axis_bias: [f32; AXIS_COUNT],
    pub threshold: [f32; AXIS_COUNT],
    pub gate_weights: Vec<f32>,
    /// Axis-major: `axis_weights[axis * dim + bucket]`.
    pub axis_weights: Vec<f32>,
}

impl Parts {
    /// The `model.bin` bytes.
    pub fn encode(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(HEADER + (self.dim * (AXIS_COUNT + 1)) * 4);
        out.extend_from_slice(MAGIC);
        for v in [VERSION, self.dim as u32, AXIS_COUNT as u32, 0] {
            out.extend_from_slice(&v.to_le_bytes());
        }
        let floats = [
            self.gate_bias,
            self.gate_platt.0,
            self.gate_platt.1,
            self.temperature,
            self.gamma,
        ]
        .into_iter()
        .chain(self.axis_bias)
        .chain(self.threshold)
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
    gamma: f32,
    axis_bias: [f32; AXIS_COUNT],
    threshold: [f32; AXIS_COUNT],
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
    /// Each axis's score: `P(risky) · P(axis | risky)^gamma`, `gamma` small (0.003 in the
    /// shipped model): close to the calibrated `P(risky)` for the axes the model ranks first,
    /// lower for unlikely ones, ordered by `P(axis | risky)`.
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
        if bytes.len() != HEADER + (AXIS_COUNT + 1) * dim * 4 {
            return Err("the model's length does not match its header");
        }
        let f = |n: usize| f32_at(bytes, 24 + n * 4);
        let block = |start: usize| -> [f32; AXIS_COUNT] { std::array::from_fn(|a| f(start + a)) };
        Ok(Model {
            dim,
            gate_bias: f(0),
            gate_platt: (f(1), f(2)),
            temperature: f(3),
            gamma: f(4),
            axis_bias: block(5),
            threshold: block(5 + AXIS_COUNT),
            gate: &bytes[HEADER..HEADER + dim * 4],
            axes: &bytes[HEADER + dim * 4..],
        })
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
        let mut gate = f64::from(self.gate_bias);
        let mut axes = self.axis_bias.map(f64::from);
        for (&i, &v) in f.index.iter().zip(&f.value) {
            let v = f64::from(v);
            gate += f64::from(self.gate_weight(i)) * v;
            for (axis, z) in axes.iter_mut().enumerate() {
                *z += f64::from(self.axis_weight(axis, i)) * v;
            }
        }
        (gate, axes)
    }

    /// The calibrated scores of raw scores.
    pub fn score(&self, gate: f64, axes: &[f64; AXIS_COUNT]) -> Scored {
        let risky = sigmoid(f64::from(self.gate_platt.0) * gate + f64::from(self.gate_platt.1));
        let t = f64::from(self.temperature).max(1e-3);
        let given_risky = softmax(&axes.map(|z| z / t));
        let gamma = f64::from(self.gamma);
        Scored {
            risky,
            given_risky,
            axes: given_risky.map(|p| p.powf(gamma) * risky),
        }
    }

    /// The per-axis default thresholds.
    pub fn thresholds(&self) -> [f64; AXIS_COUNT] {
        self.threshold.map(f64::from)
    }
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
            gamma: 1.0,
            axis_bias: [0.0; AXIS_COUNT],
            threshold: [0.25; AXIS_COUNT],
            gate_weights: vec![1.0, 2.0, 3.0, 4.0],
            axis_weights: (0..4 * AXIS_COUNT).map(|i| i as f32).collect(),
        };
        let bytes = parts.encode();
        let m = Model::parse(&bytes).unwrap();
        assert_eq!(m.gate_weight(1), 2.0);
        assert_eq!(m.axis_weight(2, 3), 11.0);
        assert_eq!(m.axis_weight(2, 99), 0.0);
        assert_eq!(m.thresholds(), [0.25; AXIS_COUNT]);
        let s = m.score(0.0, &[0.0; AXIS_COUNT]);
        assert!((s.risky - 0.5).abs() < 1e-12);
        assert!((s.axes.iter().sum::<f64>() - 0.5).abs() < 1e-12);
        assert!(Model::parse(&bytes[..bytes.len() - 1]).is_err());
        assert!(Model::parse(b"nonsense").is_err());
    }
}
