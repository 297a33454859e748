//! The learned model: one regularized logistic regression per axis over the hashed
//! [`features`](super::features), each calibrated by Platt scaling (fitted out-of-fold), with
//! per-axis default thresholds chosen out-of-fold for a stated precision target.
//!
//! The weights are fitted on the mined corpus in `testdata/corpus/` by `scripts/fit` (the
//! `fit` bench), which writes `model.bin` and `model.sha256` deterministically; both are
//! embedded here. `model.bin` is little-endian:
//!
//! ```text
//! magic "JEVLOCAL"  version u32 = 1  dim u32  axes u32 = 8  reserved u32
//! bias[8] f32  platt_a[8] f32  platt_b[8] f32  threshold[8] f32
//! weight[axis][dim] f32        (axis-major)
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
const VERSION: u32 = 1;
const HEADER: usize = 8 + 4 * 4 + 4 * 4 * AXIS_COUNT;

/// Everything a model holds, for writing one (the fit) and for tests.
#[derive(Debug, Clone, PartialEq)]
pub struct Parts {
    pub dim: usize,
    pub bias: [f32; AXIS_COUNT],
    pub platt_a: [f32; AXIS_COUNT],
    pub platt_b: [f32; AXIS_COUNT],
    pub threshold: [f32; AXIS_COUNT],
    /// Axis-major: `weights[axis * dim + bucket]`.
    pub weights: Vec<f32>,
}

impl Parts {
    /// The `model.bin` bytes.
    pub fn encode(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(HEADER + self.weights.len() * 4);
        out.extend_from_slice(MAGIC);
        for v in [VERSION, self.dim as u32, AXIS_COUNT as u32, 0] {
            out.extend_from_slice(&v.to_le_bytes());
        }
        for block in [&self.bias, &self.platt_a, &self.platt_b, &self.threshold] {
            for v in block {
                out.extend_from_slice(&v.to_le_bytes());
            }
        }
        for v in &self.weights {
            out.extend_from_slice(&v.to_le_bytes());
        }
        out
    }
}

/// A model read in place from its bytes.
#[derive(Debug, Clone)]
pub struct Model<'a> {
    dim: usize,
    bias: [f32; AXIS_COUNT],
    platt_a: [f32; AXIS_COUNT],
    platt_b: [f32; AXIS_COUNT],
    threshold: [f32; AXIS_COUNT],
    weights: &'a [u8],
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
        if bytes.len() != HEADER + AXIS_COUNT * dim * 4 {
            return Err("the model's length does not match its header");
        }
        let block = |n: usize| -> [f32; AXIS_COUNT] {
            std::array::from_fn(|a| f32_at(bytes, 24 + (n * AXIS_COUNT + a) * 4))
        };
        Ok(Model {
            dim,
            bias: block(0),
            platt_a: block(1),
            platt_b: block(2),
            threshold: block(3),
            weights: &bytes[HEADER..],
        })
    }

    pub fn dim(&self) -> usize {
        self.dim
    }

    /// The weight of `bucket` for `axis`.
    pub fn weight(&self, axis: usize, bucket: u32) -> f32 {
        let i = bucket as usize;
        if i >= self.dim {
            return 0.0;
        }
        f32_at(self.weights, (axis * self.dim + i) * 4)
    }

    /// The raw score (log-odds before calibration) of every axis.
    pub fn logits(&self, f: &Features) -> [f64; AXIS_COUNT] {
        std::array::from_fn(|axis| {
            let dot: f64 = f
                .index
                .iter()
                .zip(&f.value)
                .map(|(&i, &v)| f64::from(self.weight(axis, i)) * f64::from(v))
                .sum();
            f64::from(self.bias[axis]) + dot
        })
    }

    /// The calibrated probability of `axis` for a raw score.
    pub fn probability(&self, axis: usize, logit: f64) -> f64 {
        let z = f64::from(self.platt_a[axis]) * logit + f64::from(self.platt_b[axis]);
        1.0 / (1.0 + (-z).exp())
    }

    /// The per-axis default thresholds.
    pub fn thresholds(&self) -> [f64; AXIS_COUNT] {
        self.threshold.map(f64::from)
    }
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
            bias: [0.5; AXIS_COUNT],
            platt_a: [1.0; AXIS_COUNT],
            platt_b: [0.0; AXIS_COUNT],
            threshold: [0.7; AXIS_COUNT],
            weights: (0..4 * AXIS_COUNT).map(|i| i as f32).collect(),
        };
        let bytes = parts.encode();
        let m = Model::parse(&bytes).unwrap();
        assert_eq!(m.weight(2, 3), 11.0);
        assert_eq!(m.weight(2, 99), 0.0);
        assert_eq!(m.thresholds(), [f64::from(0.7f32); AXIS_COUNT]);
        assert!(Model::parse(&bytes[..bytes.len() - 1]).is_err());
        assert!(Model::parse(b"nonsense").is_err());
    }
}
