//! Private snapshots of a working tree: a private index and object store outside the repo.
//! (Interface fixed; implementation lands with issue 2.)

use std::path::PathBuf;

use crate::git::{Git, GitError, Repo};

/// Default size above which an untracked file is reported but never read.
pub const DEFAULT_UNTRACKED_CAP: u64 = 1024 * 1024;

/// Knobs for taking a snapshot.
#[derive(Debug, Clone)]
pub struct SnapshotOptions {
    pub untracked_cap: u64,
}

impl Default for SnapshotOptions {
    fn default() -> Self {
        SnapshotOptions {
            untracked_cap: DEFAULT_UNTRACKED_CAP,
        }
    }
}

/// Where the private state for one prompt lives.
///
/// `prompt` holds the private index and content objects and is removed when the prompt ends;
/// `tree_cache` is a per-repository object store that may keep tree objects across prompts.
#[derive(Debug, Clone)]
pub struct PrivateStore {
    pub prompt: PathBuf,
    pub tree_cache: PathBuf,
}

/// A file left out of a snapshot because of its size (reported as metadata only).
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct OversizedFile {
    pub path: Vec<u8>,
    pub size: u64,
}

/// One snapshot: a tree id in the private store plus what was too large to include.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Snapshot {
    pub tree: String,
    pub oversized: Vec<OversizedFile>,
}

/// Snapshots the working tree of `repo` into `store`.
pub fn take(
    git: &Git,
    repo: &Repo,
    store: &PrivateStore,
    options: &SnapshotOptions,
) -> Result<Snapshot, GitError> {
    let _ = (git, repo, store, options);
    unimplemented!("issue 2")
}

/// Removes the prompt's private index and objects.
pub fn purge_prompt(store: &PrivateStore) -> Result<(), GitError> {
    let _ = store;
    unimplemented!("issue 2")
}
