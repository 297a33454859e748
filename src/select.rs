//! Which changed paths may be scored: built-in excludes, `.gitattributes`, user globs.
//! (Interface fixed; implementation lands with issue 3.)

use std::collections::HashSet;
use std::fmt;

use crate::diff::Change;
use crate::git::{Git, GitError, Repo};

/// Compiled exclude rules (built-ins plus the user's globs).
#[derive(Debug, Clone)]
pub struct Selector {
    _private: (),
}

/// A user glob that does not compile.
#[derive(Debug, thiserror::Error)]
#[error("invalid exclude glob `{glob}`: {detail}")]
pub struct SelectError {
    pub glob: String,
    pub detail: String,
}

impl Selector {
    pub fn new(user_excludes: &[String]) -> Result<Selector, SelectError> {
        let _ = user_excludes;
        unimplemented!("issue 3")
    }
}

/// Per-path facts from `.gitattributes` (`linguist-generated`, `linguist-vendored`, `-diff`).
#[derive(Debug, Clone, Default)]
pub struct Attributes {
    pub generated: HashSet<Vec<u8>>,
    pub vendored: HashSet<Vec<u8>>,
    pub no_diff: HashSet<Vec<u8>>,
}

/// Why a path was left out.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ExcludeReason {
    Builtin(&'static str),
    Attribute(&'static str),
    GeneratedHeader,
    User(String),
}

impl fmt::Display for ExcludeReason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ExcludeReason::Builtin(what) => write!(f, "{what}"),
            ExcludeReason::Attribute(attr) => write!(f, "gitattributes `{attr}`"),
            ExcludeReason::GeneratedHeader => f.write_str("generated-file header"),
            ExcludeReason::User(glob) => write!(f, "exclude `{glob}`"),
        }
    }
}

/// A path that was left out and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Excluded {
    pub path: String,
    pub reason: ExcludeReason,
}

/// The outcome of selection.
#[derive(Debug, Clone, Default)]
pub struct Selection {
    pub kept: Vec<Change>,
    pub excluded: Vec<Excluded>,
}

/// Splits changes into those that may be scored and those left out.
pub fn select(changes: Vec<Change>, selector: &Selector, attributes: &Attributes) -> Selection {
    let _ = (changes, selector, attributes);
    unimplemented!("issue 3")
}

/// Reads the attributes that matter for selection for `paths` from the working tree.
pub fn read_attributes(git: &Git, repo: &Repo, paths: &[Vec<u8>]) -> Result<Attributes, GitError> {
    let _ = (git, repo, paths);
    unimplemented!("issue 3")
}
