//! The turn diff: what changed between two private snapshots.
//! (Interface fixed; implementation lands with issue 2.)

use crate::git::{Git, GitError, Repo};
use crate::snapshot::{PrivateStore, Snapshot};

/// How a path changed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Status {
    Added,
    Modified,
    Deleted,
    Renamed,
    Copied,
    TypeChanged,
}

/// One changed path. Paths are the raw bytes git reports (not necessarily UTF-8).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Change {
    pub path: Vec<u8>,
    pub old_path: Option<Vec<u8>>,
    pub status: Status,
    pub binary: bool,
    /// This file's section of the unified diff, from its `diff --git` line; empty when the
    /// change is metadata only (binary, oversized).
    pub patch: Vec<u8>,
    /// `Some(size)` when the file was over the untracked-file cap and was never read.
    pub oversized: Option<u64>,
}

/// Diffs two snapshots of the same prompt, in path order.
pub fn diff(
    git: &Git,
    repo: &Repo,
    store: &PrivateStore,
    base: &Snapshot,
    head: &Snapshot,
) -> Result<Vec<Change>, GitError> {
    let _ = (git, repo, store, base, head);
    unimplemented!("issue 2")
}
