//! The mined evaluation and training sets under `testdata/`, read into one shape.
//!
//! Every set is a `manifest.jsonl` (one case per line, sorted by id) and a `cases.jsonl.gz`
//! (`{"id","diff"}` per line in manifest order), written by the corpus tools (`scripts/corpus
//! <tool>`, `scripts/jevtools/corpus/`). Each case knows which side of its set's split it is
//! on: the side the model may be fitted on ([`Side::Train`]) or the side held apart for
//! measuring it ([`Side::HeldApart`]), by the rule each set's README states.

use std::collections::BTreeSet;
use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};

use jev_preflight::pipeline::axes::AXIS_IDS;

/// Whether a case should raise an axis.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    Risky,
    Benign,
}

/// Which side of its set's split a case is on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Side {
    /// The model may be fitted, calibrated and tuned on it.
    Train,
    /// Kept for measuring: no fit, calibration or choice reads it.
    HeldApart,
}

/// The sets, by the directory each lives in.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum SetName {
    /// `testdata/corpus/`: reversed fixes and benign commits; held apart by repository
    /// (`held-apart.txt`).
    Corpus,
    /// `testdata/corpus-fresh/`: mined after every design choice; all held apart.
    Fresh,
    /// `testdata/introduced/`: linter fixtures and commits adding a dangerous pattern, with
    /// safe variants; held apart by rule (`split: eval`).
    Introduced,
    /// `testdata/tampering/`: commits that weaken tests and harmless test commits; held apart
    /// by repository (`split: held-apart`).
    Tampering,
    /// `testdata/ordinary/`: ordinary forward commits; held apart by repository.
    Ordinary,
}

impl SetName {
    pub const ALL: [SetName; 5] = [
        SetName::Corpus,
        SetName::Fresh,
        SetName::Introduced,
        SetName::Tampering,
        SetName::Ordinary,
    ];

    pub fn dir_name(self) -> &'static str {
        match self {
            SetName::Corpus => "corpus",
            SetName::Fresh => "corpus-fresh",
            SetName::Introduced => "introduced",
            SetName::Tampering => "tampering",
            SetName::Ordinary => "ordinary",
        }
    }
}

/// One case of a set.
#[derive(Debug, Clone)]
pub struct Case {
    pub set: SetName,
    pub id: String,
    pub repo: String,
    pub kind: Kind,
    /// The axis a reviewer would name first (risky cases only).
    pub primary: Option<usize>,
    pub secondary: Vec<usize>,
    pub lang: String,
    /// The labeling rule's row (`rule`), or the set's finer category where it has one.
    pub rule: String,
    /// `category` where the set has one (tampering: skip, delete, …; introduced: injection, …).
    pub category: String,
    /// Introduced-risk cases: `add`, `edit` or `commit`.
    pub shape: String,
    pub side: Side,
    pub diff: String,
}

/// `testdata/` of this checkout.
pub fn testdata() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../testdata")
}

#[derive(serde::Deserialize)]
struct RawCase {
    id: String,
    repo: String,
    kind: String,
    primary: Option<String>,
    #[serde(default)]
    secondary: Vec<String>,
    #[serde(default)]
    lang: String,
    #[serde(default)]
    rule: String,
    #[serde(default)]
    category: String,
    #[serde(default)]
    shape: String,
    #[serde(default)]
    split: Option<String>,
}

#[derive(serde::Deserialize)]
struct RawDiff {
    id: String,
    diff: String,
}

fn axis(id: &str) -> Result<usize, String> {
    AXIS_IDS
        .iter()
        .position(|a| *a == id)
        .ok_or_else(|| format!("unknown axis `{id}`"))
}

/// The repositories a `held-apart.txt` names, lower-cased (`#` comments and blanks skipped).
pub fn held_apart_repos(path: &Path) -> Result<BTreeSet<String>, String> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| format!("cannot read `{}`: {e}", path.display()))?;
    Ok(text
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .map(str::to_ascii_lowercase)
        .collect())
}

/// Loads one set from `root` (normally [`testdata`]).
pub fn load(root: &Path, set: SetName) -> Result<Vec<Case>, String> {
    let dir = root.join(set.dir_name());
    let held = match set {
        SetName::Corpus => held_apart_repos(&dir.join("held-apart.txt"))?,
        _ => BTreeSet::new(),
    };
    let manifest = dir.join("manifest.jsonl");
    let text = std::fs::read_to_string(&manifest)
        .map_err(|e| format!("cannot read `{}`: {e}", manifest.display()))?;
    let gz = dir.join("cases.jsonl.gz");
    let file =
        std::fs::File::open(&gz).map_err(|e| format!("cannot read `{}`: {e}", gz.display()))?;
    let mut diffs = BufReader::new(flate2::read::GzDecoder::new(file)).lines();
    let mut cases = Vec::new();
    for (n, line) in text
        .lines()
        .enumerate()
        .filter(|(_, l)| !l.trim().is_empty())
    {
        let raw: RawCase = serde_json::from_str(line)
            .map_err(|e| format!("{}:{}: {e}", manifest.display(), n + 1))?;
        let diff_line = diffs
            .next()
            .ok_or_else(|| format!("`{}` ends before case `{}`", gz.display(), raw.id))?
            .map_err(|e| format!("`{}`: {e}", gz.display()))?;
        let diff: RawDiff =
            serde_json::from_str(&diff_line).map_err(|e| format!("`{}`: {e}", gz.display()))?;
        if diff.id != raw.id {
            return Err(format!(
                "`{}` is out of order: `{}` where `{}` was expected",
                gz.display(),
                diff.id,
                raw.id
            ));
        }
        let kind = match raw.kind.as_str() {
            "risky" => Kind::Risky,
            "benign" => Kind::Benign,
            other => return Err(format!("case `{}`: unknown kind `{other}`", raw.id)),
        };
        let primary = raw.primary.as_deref().map(axis).transpose()?;
        if (kind == Kind::Risky) != primary.is_some() {
            return Err(format!(
                "case `{}`: risky cases have a primary axis, benign ones none",
                raw.id
            ));
        }
        let secondary = raw
            .secondary
            .iter()
            .map(|s| axis(s))
            .collect::<Result<Vec<_>, _>>()?;
        let side = match set {
            SetName::Corpus if held.contains(&raw.repo.to_ascii_lowercase()) => Side::HeldApart,
            SetName::Corpus => Side::Train,
            SetName::Fresh => Side::HeldApart,
            SetName::Introduced | SetName::Tampering | SetName::Ordinary => {
                match raw.split.as_deref() {
                    Some("dev" | "train") => Side::Train,
                    Some("eval" | "held-apart") => Side::HeldApart,
                    other => {
                        return Err(format!("case `{}`: unknown split `{other:?}`", raw.id));
                    }
                }
            }
        };
        cases.push(Case {
            set,
            id: raw.id,
            repo: raw.repo,
            kind,
            primary,
            secondary,
            lang: raw.lang,
            rule: raw.rule,
            category: raw.category,
            shape: raw.shape,
            side,
            diff: diff.diff,
        });
    }
    Ok(cases)
}

/// A stable 64-bit hash (FNV-1a) of a text: folds and draws never depend on load order.
pub fn fnv(text: &str) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in text.bytes() {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x0100_0000_01b3);
    }
    h
}

/// The fold of a repository among `k` (its lower-cased name's hash).
pub fn fold_of(repo: &str, k: usize) -> usize {
    (fnv(&repo.to_ascii_lowercase()) % k as u64) as usize
}
