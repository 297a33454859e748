//! Finds the repository a hook event's `cwd` belongs to.
//! (Interface fixed; implementation lands with issue 2.)

use std::path::{Path, PathBuf};

use super::{Git, GitError};

/// The object id format of a repository.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum ObjectFormat {
    Sha1,
    Sha256,
}

/// A non-bare repository with a working tree, all paths absolute and canonical.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Repo {
    pub top: PathBuf,
    pub git_dir: PathBuf,
    pub common_dir: PathBuf,
    pub index: PathBuf,
    pub objects: PathBuf,
    pub format: ObjectFormat,
}

/// What lives at a `cwd`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Discovery {
    Found(Repo),
    NotARepo,
    Bare,
}

/// Resolves the repository containing `cwd`.
pub fn discover(git: &Git, cwd: &Path) -> Result<Discovery, GitError> {
    let _ = (git, cwd);
    unimplemented!("issue 2")
}
