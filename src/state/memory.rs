//! A repository's memory of the findings the agent was already asked about and left as they
//! were: per finding, the fingerprint of the hunk and the axis
//! ([`crate::pipeline::hunks`]), the file's name as the payload gave it, which session asked
//! and when, and how often it kept the axis from being raised again since. Never file content.
//!
//! One small JSON file in the repository's directory of the store
//! (`repos/<h(repo)>/memory.json`), parsed strictly, written atomically under a non-waiting
//! lock (a busy lock skips the write: the memory is a hint), never through a symlink. It is
//! bounded: at most [`MAX_ENTRIES`] findings, none older than [`MAX_AGE`] (older ones are
//! dropped on every write, and the store's sweep removes the whole directory of a repository
//! unused for 30 days).

use std::path::{Path, PathBuf};
use std::time::Duration;

use super::{StoreError, read_file, write_unsynced};
use crate::fs::try_lock;

/// Most findings remembered per repository; the oldest go first.
pub const MAX_ENTRIES: usize = 2000;
/// The longest a finding is remembered (the longest `memoryDays` allows).
pub const MAX_AGE: Duration = Duration::from_secs(30 * 24 * 3600);
const MAX_BYTES: u64 = 2 * 1024 * 1024;
const VERSION: u32 = 1;

/// One remembered finding.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Finding {
    /// The hunk's fingerprint for the axis (32 hex digits).
    pub fingerprint: String,
    pub axis: String,
    /// The file, as the payload named it (redacted).
    pub path: String,
    /// The session that asked (the hash prefix the decision log uses).
    pub session: String,
    /// When the agent was asked, in seconds since the epoch.
    pub asked: u64,
    /// How many times it kept the axis from being raised since, and when it last did.
    #[serde(default)]
    pub suppressed: u64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub last_suppressed: Option<u64>,
}

#[derive(Debug, serde::Serialize, serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct MemoryFile {
    version: u32,
    findings: Vec<Finding>,
}

/// The memory of one repository.
#[derive(Debug, Clone)]
pub struct Memory {
    dir: PathBuf,
}

impl Memory {
    /// The memory kept in the repository directory `dir` of the store (`repos/<h(repo)>`).
    pub fn at(dir: &Path) -> Memory {
        Memory {
            dir: dir.to_owned(),
        }
    }

    fn path(&self) -> PathBuf {
        self.dir.join("memory.json")
    }

    /// Every finding remembered (none when there is no memory yet).
    pub fn findings(&self) -> Result<Vec<Finding>, StoreError> {
        let path = self.path();
        let Some(bytes) = read_file(&path, MAX_BYTES)? else {
            return Ok(Vec::new());
        };
        let file: MemoryFile = serde_json::from_slice(&bytes).map_err(|e| StoreError::Corrupt {
            path: path.clone(),
            detail: e.to_string(),
        })?;
        if file.version != VERSION {
            return Err(StoreError::Corrupt {
                path,
                detail: format!("memory of another version ({})", file.version),
            });
        }
        Ok(file.findings)
    }

    /// Adds `new` findings (one already there is asked again: its time and session renewed)
    /// and drops those older than [`MAX_AGE`] at `now`, then the oldest past [`MAX_ENTRIES`].
    /// `false` when another process held the memory (nothing written).
    pub fn remember(&self, new: Vec<Finding>, now: u64) -> Result<bool, StoreError> {
        self.update(now, |findings| {
            for finding in new {
                match findings
                    .iter_mut()
                    .find(|f| f.fingerprint == finding.fingerprint && f.axis == finding.axis)
                {
                    Some(old) => {
                        old.asked = finding.asked;
                        old.session = finding.session;
                        old.path = finding.path;
                    }
                    None => findings.push(finding),
                }
            }
        })
    }

    /// Counts one suppression at `now` for each `(fingerprint, axis)`.
    pub fn note_suppressed(
        &self,
        which: &[(String, String)],
        now: u64,
    ) -> Result<bool, StoreError> {
        self.update(now, |findings| {
            for f in findings.iter_mut() {
                if which
                    .iter()
                    .any(|(fp, axis)| *fp == f.fingerprint && *axis == f.axis)
                {
                    f.suppressed += 1;
                    f.last_suppressed = Some(now);
                }
            }
        })
    }

    /// Forgets everything; returns how many findings there were.
    pub fn forget(&self) -> Result<usize, StoreError> {
        let Some(_lock) = try_lock(&self.dir.join("memory.lock"))? else {
            return Err(StoreError::Busy { path: self.path() });
        };
        // A corrupt memory is forgotten all the same.
        let count = self.findings().map(|f| f.len()).unwrap_or(0);
        crate::fs::remove_entry(&self.path())?;
        Ok(count)
    }

    fn update(&self, now: u64, change: impl FnOnce(&mut Vec<Finding>)) -> Result<bool, StoreError> {
        super::ensure_dir(&self.dir)?;
        let Some(_lock) = try_lock(&self.dir.join("memory.lock"))? else {
            return Ok(false);
        };
        // A corrupt or foreign file is replaced: the memory only ever suppresses.
        let mut findings = self.findings().unwrap_or_default();
        change(&mut findings);
        findings.retain(|f| now.saturating_sub(f.asked) <= MAX_AGE.as_secs());
        if findings.len() > MAX_ENTRIES {
            findings.sort_by_key(|f| std::cmp::Reverse(f.asked));
            findings.truncate(MAX_ENTRIES);
        }
        let bytes = serde_json::to_vec(&MemoryFile {
            version: VERSION,
            findings,
        })
        .map_err(|e| StoreError::Corrupt {
            path: self.path(),
            detail: e.to_string(),
        })?;
        write_unsynced(&self.path(), &bytes)?;
        Ok(true)
    }
}

/// Whether `finding` still holds for a Stop of `session` at `now`: asked in the same session,
/// or less than `days` days ago.
pub fn holds(finding: &Finding, session: &str, now: u64, days: u32) -> bool {
    finding.session == session || now.saturating_sub(finding.asked) < u64::from(days) * 86_400
}

#[cfg(test)]
mod tests {
    use super::*;

    fn finding(fp: &str, asked: u64) -> Finding {
        Finding {
            fingerprint: fp.into(),
            axis: "auth_boundary".into(),
            path: "src/api.rs".into(),
            session: "s1".into(),
            asked,
            suppressed: 0,
            last_suppressed: None,
        }
    }

    #[test]
    fn remembers_renews_counts_bounds_and_forgets() {
        let tmp = tempfile::tempdir().unwrap();
        let memory = Memory::at(&tmp.path().join("repo"));
        assert!(memory.findings().unwrap().is_empty());
        let day = 86_400;
        assert!(
            memory
                .remember(
                    vec![finding("a", 100 * day), finding("b", 100 * day)],
                    100 * day
                )
                .unwrap()
        );
        // Asked again: renewed, not duplicated.
        let mut again = finding("a", 101 * day);
        again.session = "s2".into();
        memory.remember(vec![again], 101 * day).unwrap();
        let all = memory.findings().unwrap();
        assert_eq!(all.len(), 2);
        assert_eq!((all[0].asked, all[0].session.as_str()), (101 * day, "s2"));
        memory
            .note_suppressed(&[("b".into(), "auth_boundary".into())], 102 * day)
            .unwrap();
        let b = &memory.findings().unwrap()[1];
        assert_eq!((b.suppressed, b.last_suppressed), (1, Some(102 * day)));
        // Past the longest memory, a finding is dropped with the next write.
        memory.remember(vec![], 131 * day).unwrap();
        let left: Vec<String> = memory
            .findings()
            .unwrap()
            .into_iter()
            .map(|f| f.fingerprint)
            .collect();
        assert_eq!(left, ["a"]);
        // Never more than MAX_ENTRIES: the newest are kept.
        let many: Vec<Finding> = (0..MAX_ENTRIES as u64 + 10)
            .map(|i| finding(&format!("n{i}"), 131 * day + i))
            .collect();
        memory.remember(many, 132 * day).unwrap();
        let all = memory.findings().unwrap();
        assert_eq!(all.len(), MAX_ENTRIES);
        assert!(
            all.iter()
                .all(|f| f.fingerprint != "a" && f.fingerprint != "n0")
        );
        assert_eq!(memory.forget().unwrap(), MAX_ENTRIES);
        assert!(memory.findings().unwrap().is_empty());
    }

    #[test]
    fn a_finding_holds_in_its_session_or_for_its_days() {
        let f = finding("a", 1000);
        assert!(holds(&f, "s1", 1000 + 90 * 86_400, 0), "same session");
        assert!(
            !holds(&f, "s2", 1000 + 86_400, 0),
            "days 0: the session only"
        );
        assert!(holds(&f, "s2", 1000 + 86_399, 1));
        assert!(!holds(&f, "s2", 1000 + 86_400, 1));
    }

    #[test]
    fn a_corrupt_memory_is_an_error_to_read_and_replaced_on_write() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path().join("repo");
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(
            dir.join("memory.json"),
            b"{\"version\":1,\"findings\":[],\"x\":1}",
        )
        .unwrap();
        let memory = Memory::at(&dir);
        assert!(memory.findings().is_err());
        memory.remember(vec![finding("a", 5)], 5).unwrap();
        assert_eq!(memory.findings().unwrap().len(), 1);
    }
}
