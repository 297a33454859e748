//! The mined corpus in `testdata/corpus/`: real fix commits stored reversed (each re-introduces
//! its bug) and real benign commits, with their repository, labels and provenance
//! (`testdata/corpus/README.md` says how they were mined and labeled).
//!
//! `manifest.jsonl` holds one case per line; `cases.jsonl.gz` holds `{"id","diff"}` per line in
//! the same order. Cases are grouped by repository for cross-validation: no repository is ever
//! on both sides of a fold.

#![allow(dead_code)]

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

/// One mined change.
#[derive(Debug, Clone)]
pub struct Case {
    pub id: String,
    pub repo: String,
    pub commit: String,
    pub kind: Kind,
    /// The axis a reviewer would name first (risky cases only).
    pub primary: Option<usize>,
    pub secondary: Vec<usize>,
    pub lang: String,
    pub label_source: String,
    pub rule: String,
    pub diff: String,
}

impl Case {
    /// Whether `axis` is among the case's labels (primary or secondary).
    pub fn labeled(&self, axis: usize) -> bool {
        self.primary == Some(axis) || self.secondary.contains(&axis)
    }
}

/// The corpus shipped in this repository.
pub fn default_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("testdata/corpus")
}

#[derive(serde::Deserialize)]
struct RawCase {
    id: String,
    repo: String,
    commit: String,
    kind: String,
    primary: Option<String>,
    #[serde(default)]
    secondary: Vec<String>,
    lang: String,
    #[serde(default)]
    label_source: String,
    #[serde(default)]
    rule: String,
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

/// Loads the manifest and the diffs; every manifest case must have its diff, in order.
pub fn load(dir: &Path) -> Result<Vec<Case>, String> {
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
        cases.push(Case {
            id: raw.id,
            repo: raw.repo,
            commit: raw.commit,
            kind,
            primary,
            secondary,
            lang: raw.lang,
            label_source: raw.label_source,
            rule: raw.rule,
            diff: diff.diff,
        });
    }
    Ok(cases)
}

/// The repositories a corpus's manifest names (without reading its diffs).
pub fn repos_in(dir: &Path) -> Result<BTreeSet<String>, String> {
    #[derive(serde::Deserialize)]
    struct Repo {
        repo: String,
    }
    let manifest = dir.join("manifest.jsonl");
    let text = std::fs::read_to_string(&manifest)
        .map_err(|e| format!("cannot read `{}`: {e}", manifest.display()))?;
    text.lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| {
            serde_json::from_str::<Repo>(l)
                .map(|r| r.repo.to_ascii_lowercase())
                .map_err(|e| format!("{}: {e}", manifest.display()))
        })
        .collect()
}

/// The fold of a repository among `k`: FNV-1a of its name, so it never depends on order.
pub fn fold_of(repo: &str, k: usize) -> usize {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in repo.to_ascii_lowercase().bytes() {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x0100_0000_01b3);
    }
    (h % k as u64) as usize
}
