//! The Stop's memory of findings the agent was already asked about: an axis is not raised
//! again for the same lines once the agent looked at them and left them as they were — for
//! the rest of the session, and for `memoryDays` in the repository.
//!
//! Three steps, keyed on the payload's hunks ([`crate::pipeline::hunks`]): when a continuation
//! is issued, the hunks that carry each selected axis are noted in the prompt's state
//! ([`asked`]); when the prompt ends, those the turn after the continuation left in place are
//! remembered ([`confirm`]: a hunk whose file is unchanged, or whose lines as the change left
//! them — its new side, context and added lines — are still there, in order and together);
//! and a later Stop drops a selected axis whose every carrying hunk is remembered for it
//! ([`recall`]). Only fingerprints and line hashes are kept, never content; the repository's
//! memory is [`crate::state::memory`].

use std::path::Path;

use sha2::{Digest, Sha256};

use crate::pipeline::axes::{AXIS_IDS, Selected};
use crate::pipeline::hunks::{self, Hunk};
use crate::pipeline::payload::Payload;
use crate::scorer::Scores;
use crate::state::memory::{self, Finding, Memory};

/// Most hunks one continuation notes (the rest are not remembered).
const MAX_ASKED: usize = 32;
/// Most lines of each side of a hunk whose hashes are noted.
const MAX_LINES: usize = 64;
/// Largest file read to check that a hunk's lines are still there.
const MAX_FILE_BYTES: u64 = 1024 * 1024;

/// A hunk a continuation asked about, as the prompt's state keeps it until the prompt ends.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Asked {
    pub axis: String,
    pub fingerprint: String,
    /// The file, as the payload named it.
    pub path: String,
    /// The session that asked (the decision log's hash prefix).
    pub session: String,
    /// The file's size and modification time when the continuation was issued (`None`:
    /// it was gone).
    pub stat: Option<(u64, u64)>,
    /// Hashes of the hunk's new side, in order (trimmed lines, blank ones left out; at most
    /// [`MAX_LINES`]).
    pub lines: Vec<u64>,
}

/// The hunks that carry each of `selected`, to note in the prompt's state as the continuation
/// is issued.
pub fn asked(
    repo_top: &Path,
    session: &str,
    payload: &Payload,
    scores: &Scores,
    selected: &[Selected],
) -> Vec<Asked> {
    let all = hunks::parse(&payload.diff);
    let mut out = Vec::new();
    for sel in selected {
        let axis = AXIS_IDS[sel.axis];
        for i in hunks::carrying(&all, sel.axis, &scores.evidence) {
            if out.len() == MAX_ASKED {
                return out;
            }
            let hunk = &all[i];
            out.push(Asked {
                axis: axis.to_owned(),
                fingerprint: hunk.fingerprint(axis),
                path: hunk.path.clone(),
                session: session.to_owned(),
                stat: stat(&repo_top.join(&hunk.path)),
                lines: hunk
                    .new_side
                    .iter()
                    .take(MAX_LINES)
                    .map(|l| line_hash(l))
                    .collect(),
            });
        }
    }
    out
}

/// At the end of a prompt that continued: remembers in the repository's memory at `dir` the
/// hunks of `asked` that the turn after the continuation left as they were.
pub fn confirm(dir: &Path, repo_top: &Path, asked: &[Asked], now: u64) {
    let kept: Vec<Finding> = asked
        .iter()
        .filter(|a| still_there(repo_top, a))
        .map(|a| Finding {
            fingerprint: a.fingerprint.clone(),
            axis: a.axis.clone(),
            path: a.path.clone(),
            session: a.session.clone(),
            asked: now,
            suppressed: 0,
            last_suppressed: None,
        })
        .collect();
    if !kept.is_empty() {
        // A hint: when the memory cannot be written, the axis is only asked about again.
        let _ = Memory::at(dir).remember(kept, now);
    }
}

/// Drops from `selected` each axis whose every carrying hunk the memory at `dir` holds for
/// it (asked in `session`, or less than `days` days before `now`), and counts those uses;
/// returns the axes dropped.
pub fn recall(
    dir: &Path,
    session: &str,
    now: u64,
    days: u32,
    payload: &Payload,
    scores: &Scores,
    selected: &mut Vec<Selected>,
) -> Vec<&'static str> {
    if selected.is_empty() {
        return Vec::new();
    }
    let memory = Memory::at(dir);
    // An unreadable memory remembers nothing: every axis is raised as usual.
    let findings = memory.findings().unwrap_or_default();
    if findings.is_empty() {
        return Vec::new();
    }
    let all: Vec<Hunk> = hunks::parse(&payload.diff);
    if all.is_empty() {
        return Vec::new();
    }
    let known = |fingerprint: &str, axis: &str| {
        findings.iter().any(|f| {
            f.fingerprint == fingerprint && f.axis == axis && memory::holds(f, session, now, days)
        })
    };
    let mut dropped = Vec::new();
    let mut used: Vec<(String, String)> = Vec::new();
    selected.retain(|sel| {
        let axis = AXIS_IDS[sel.axis];
        let prints: Vec<String> = hunks::carrying(&all, sel.axis, &scores.evidence)
            .into_iter()
            .map(|i| all[i].fingerprint(axis))
            .collect();
        if prints.iter().all(|fp| known(fp, axis)) {
            dropped.push(axis);
            used.extend(prints.into_iter().map(|fp| (fp, axis.to_owned())));
            return false;
        }
        true
    });
    if !used.is_empty() {
        let _ = memory.note_suppressed(&used, now);
    }
    dropped
}

/// Whether the turn after the continuation left `asked`'s lines as they were: its file is as
/// it was (or still gone), or the hunk's new side is still in it, in order and together.
fn still_there(repo_top: &Path, asked: &Asked) -> bool {
    let path = repo_top.join(&asked.path);
    if stat(&path) == asked.stat {
        return true;
    }
    if asked.lines.is_empty() {
        // A hunk that left no line behind (a file removed) is undone by any file there now.
        return false;
    }
    let Ok(Some(bytes)) = crate::fs::read_file(&path, MAX_FILE_BYTES) else {
        // Gone (or not readable as a file): the lines are not there as they were.
        return false;
    };
    let file: Vec<u64> = String::from_utf8_lossy(&bytes)
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .map(line_hash)
        .collect();
    file.windows(asked.lines.len())
        .any(|window| window == asked.lines.as_slice())
}

fn stat(path: &Path) -> Option<(u64, u64)> {
    let meta = std::fs::symlink_metadata(path).ok()?;
    Some((meta.len(), crate::git::snapshot::mtime_ns(&meta)))
}

/// The first eight bytes of a trimmed line's SHA-256.
fn line_hash(line: &str) -> u64 {
    let digest = Sha256::digest(line.trim().as_bytes());
    u64::from_le_bytes(digest[..8].try_into().expect("a SHA-256 has 8 bytes"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scorer::Evidence;

    fn payload(diff: &str) -> Payload {
        Payload {
            json: String::new(),
            hash: String::new(),
            files: vec!["src/api.rs".into()],
            diff: diff.into(),
            omitted: vec![],
            redactions: Default::default(),
        }
    }

    const RISKY: &str = concat!(
        "diff --git a/src/api.rs b/src/api.rs\n",
        "--- a/src/api.rs\n",
        "+++ b/src/api.rs\n",
        "@@ -1,4 +1,3 @@\n",
        " fn delete() {\n",
        "-    require_admin()?;\n",
        "+    log();\n",
        "     db.delete()\n",
    );

    fn scores(axis: usize) -> Scores {
        let mut values = [0.1; 8];
        values[axis] = 0.97;
        Scores {
            values,
            model: None,
            evidence: vec![Evidence {
                axis,
                file: "src/api.rs".into(),
                line: Some(2),
                note: String::new(),
            }],
            tokens: None,
        }
    }

    #[test]
    fn asked_then_left_alone_is_remembered_and_recalled() {
        let tmp = tempfile::tempdir().unwrap();
        let (top, dir) = (tmp.path().join("repo"), tmp.path().join("memory"));
        std::fs::create_dir_all(top.join("src")).unwrap();
        std::fs::write(
            top.join("src/api.rs"),
            "fn delete() {\n    log();\n    db.delete()\n}\n",
        )
        .unwrap();
        let p = payload(RISKY);
        let selected = vec![Selected {
            axis: 1,
            score: 0.97,
        }];
        let noted = asked(&top, "s1", &p, &scores(1), &selected);
        assert_eq!(noted.len(), 1);
        assert_eq!(noted[0].axis, "auth_boundary");
        // The turn after the continuation edited the file elsewhere; the hunk's lines stay.
        std::fs::write(
            top.join("src/api.rs"),
            "// looked at\nfn delete() {\n    log();\n    db.delete()\n}\n\nfn more() {}\n",
        )
        .unwrap();
        confirm(&dir, &top, &noted, 1000);
        // A later Stop with the same hunk: the axis is dropped; another one stays.
        let mut sel = vec![
            Selected {
                axis: 1,
                score: 0.97,
            },
            Selected {
                axis: 4,
                score: 0.9,
            },
        ];
        let dropped = recall(&dir, "s2", 2000, 7, &p, &scores(1), &mut sel);
        assert_eq!(dropped, ["auth_boundary"]);
        assert_eq!(sel.len(), 1);
        let f = &Memory::at(&dir).findings().unwrap()[0];
        assert_eq!(f.suppressed, 1);
        // Past the days, in another session: raised again.
        let mut sel = vec![Selected {
            axis: 1,
            score: 0.97,
        }];
        let dropped = recall(&dir, "s3", 1000 + 8 * 86_400, 7, &p, &scores(1), &mut sel);
        assert!(dropped.is_empty() && sel.len() == 1);
    }

    #[test]
    fn a_fixed_hunk_is_not_remembered() {
        let tmp = tempfile::tempdir().unwrap();
        let (top, dir) = (tmp.path().join("repo"), tmp.path().join("memory"));
        std::fs::create_dir_all(top.join("src")).unwrap();
        std::fs::write(top.join("src/api.rs"), "fn delete() {\n    log();\n}\n").unwrap();
        let p = payload(RISKY);
        let noted = asked(
            &top,
            "s1",
            &p,
            &scores(1),
            &[Selected {
                axis: 1,
                score: 0.97,
            }],
        );
        // The agent put the check back, or rewrote the function: not as the change left it.
        for fixed in [
            "fn delete() {\n    require_admin()?;\n    log();\n    db.delete()\n}\n",
            "fn delete() {\n    unimplemented!()\n}\n",
        ] {
            std::fs::write(top.join("src/api.rs"), fixed).unwrap();
            confirm(&dir, &top, &noted, 1000);
            assert!(Memory::at(&dir).findings().unwrap().is_empty(), "{fixed}");
        }
        // Gone: not remembered either.
        std::fs::remove_file(top.join("src/api.rs")).unwrap();
        confirm(&dir, &top, &noted, 1000);
        assert!(Memory::at(&dir).findings().unwrap().is_empty());
    }
}
