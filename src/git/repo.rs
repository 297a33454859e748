//! Finds the repository a hook event's `cwd` belongs to.
//!
//! One `git rev-parse` answers every question (bare or not, object format, git dir, common
//! dir, index, objects, top level); its output is line-based, so a path holding a newline is
//! reported as unexpected output rather than misread.

use std::path::{Path, PathBuf};

use super::{Git, GitError};
use crate::subprocess::ProcessError;

/// The object id format of a repository.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum ObjectFormat {
    Sha1,
    Sha256,
}

impl ObjectFormat {
    /// Length of an object id in hex digits.
    pub fn hex_len(self) -> usize {
        match self {
            ObjectFormat::Sha1 => 40,
            ObjectFormat::Sha256 => 64,
        }
    }
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

const QUERIES: &[&str] = &[
    "rev-parse",
    "--path-format=absolute",
    "--is-bare-repository",
    "--is-inside-work-tree",
    "--show-object-format",
    "--git-dir",
    "--git-common-dir",
    "--git-path",
    "index",
    "--git-path",
    "objects",
    // Last: it fails outside a working tree, after the answers above are printed.
    "--show-toplevel",
];

/// Resolves the repository containing `cwd`.
pub fn discover(git: &Git, cwd: &Path) -> Result<Discovery, GitError> {
    if !cwd.is_dir() {
        return Ok(Discovery::NotARepo);
    }
    let stdout = match git.run_args(cwd, QUERIES) {
        Ok(stdout) => stdout,
        Err(GitError::Process(ProcessError::Exit {
            code: 128,
            stdout,
            stderr,
            ..
        })) => {
            let lines: Vec<&[u8]> = stdout.split(|&b| b == b'\n').collect();
            return match lines.first() {
                Some(&b"true") => Ok(Discovery::Bare),
                // Inside a git dir of a non-bare repository: no working tree to snapshot.
                Some(&b"false") if lines.get(1) == Some(&&b"false"[..]) => {
                    Ok(Discovery::NotARepo)
                }
                _ if String::from_utf8_lossy(&stderr).contains("not a git repository") => {
                    Ok(Discovery::NotARepo)
                }
                _ => Err(GitError::Process(ProcessError::Exit {
                    program: git.program().to_path_buf(),
                    code: 128,
                    stdout,
                    stderr,
                })),
            };
        }
        Err(e) => return Err(e),
    };
    parse(&stdout).map(|found| found.map_or(Discovery::Bare, Discovery::Found))
}

fn parse(stdout: &[u8]) -> Result<Option<Repo>, GitError> {
    let bad = |detail: &str| GitError::Parse {
        command: "rev-parse".into(),
        detail: detail.into(),
    };
    let text = std::str::from_utf8(stdout).map_err(|_| bad("paths are not valid UTF-8"))?;
    let lines: Vec<&str> = text.strip_suffix('\n').unwrap_or(text).split('\n').collect();
    let [bare, _inside, format, git_dir, common_dir, index, objects, top] = lines[..] else {
        return Err(bad(&format!("expected 8 lines, got {}", lines.len())));
    };
    if bare == "true" {
        return Ok(None);
    }
    let format = match format {
        "sha1" => ObjectFormat::Sha1,
        "sha256" => ObjectFormat::Sha256,
        other => return Err(bad(&format!("unknown object format `{other}`"))),
    };
    Ok(Some(Repo {
        top: canonical(top)?,
        git_dir: canonical(git_dir)?,
        common_dir: canonical(common_dir)?,
        index: canonical_leaf(index)?,
        objects: canonical(objects)?,
        format,
    }))
}

fn canonical(path: impl AsRef<Path>) -> Result<PathBuf, GitError> {
    let path = path.as_ref();
    std::fs::canonicalize(path).map_err(|source| GitError::Io {
        path: path.to_path_buf(),
        source,
    })
}

/// Canonicalizes a path whose last component may not exist yet (a fresh repo has no index).
fn canonical_leaf(path: &str) -> Result<PathBuf, GitError> {
    let path = Path::new(path);
    match (path.parent(), path.file_name()) {
        (Some(parent), Some(name)) => Ok(canonical(parent)?.join(name)),
        _ => canonical(path),
    }
}
