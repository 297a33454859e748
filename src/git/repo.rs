//! Finds the repository a hook event's `cwd` belongs to.
//!
//! One `git rev-parse` answers every question (bare or not, object format, git dir, common
//! dir, index, objects, top level); its output is line-based, so a path holding a newline is
//! reported as unexpected output rather than misread.

use std::path::{Path, PathBuf};

use super::{Git, GitError};
use crate::process::ProcessError;

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
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Repo {
    pub top: PathBuf,
    pub git_dir: PathBuf,
    pub common_dir: PathBuf,
    pub index: PathBuf,
    pub objects: PathBuf,
    pub format: ObjectFormat,
    /// Names of the filter drivers configured for this repository (any config scope). Every
    /// command that reads working-tree files must neutralize them. Never persisted: they are
    /// read afresh by every discovery, since config may change between two events.
    #[serde(skip)]
    pub filters: Vec<Vec<u8>>,
}

impl Repo {
    /// Points `cmd` at an index that does not exist, which git reads as empty, for commands
    /// that load the index without needing it: `diff-tree` and `check-attr` read the whole
    /// index at start-up (tens of milliseconds on a large repository) only to find
    /// `.gitattributes` files a working tree lacks. Attributes then come from the working
    /// tree alone. If something sits at that path after all, the command keeps its index.
    pub fn without_index(&self, cmd: &mut std::process::Command) {
        let absent = self.git_dir.join("jev-preflight-no-index");
        if std::fs::symlink_metadata(&absent)
            .is_err_and(|e| e.kind() == std::io::ErrorKind::NotFound)
        {
            cmd.env("GIT_INDEX_FILE", absent);
        }
    }
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
    // The filter names are read concurrently: they cost a git process, but no wall time.
    let (revparse, filters) = std::thread::scope(|scope| {
        let filters = scope.spawn(|| filter_names(git, cwd));
        (git.run_args(cwd, QUERIES), filters.join())
    });
    let stdout = match revparse {
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
                Some(&b"false") if lines.get(1) == Some(&&b"false"[..]) => Ok(Discovery::NotARepo),
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
    let filters = filters.map_err(|_| GitError::Parse {
        command: "config".into(),
        detail: "reading filter names panicked".into(),
    })??;
    Ok(match parse(&stdout)? {
        Some(repo) => Discovery::Found(Repo { filters, ..repo }),
        None => Discovery::Bare,
    })
}

/// Resolves again a repository an earlier event discovered, without asking `rev-parse`:
/// when its working tree, git dirs and object store are all still where they were, only the
/// filter names are read (afresh: a filter configured since must still be neutralized). On
/// any doubt — something moved or vanished — it is a full [`discover`] from `known.top`.
pub fn rediscover(git: &Git, known: &Repo) -> Result<Discovery, GitError> {
    let is_dir = |p: &Path| std::fs::symlink_metadata(p).is_ok_and(|m| m.is_dir());
    let in_place = [
        &known.top,
        &known.git_dir,
        &known.common_dir,
        &known.objects,
    ]
    .into_iter()
    .all(|p| is_dir(p))
        && std::fs::symlink_metadata(known.top.join(".git")).is_ok();
    if !in_place {
        return discover(git, &known.top);
    }
    let filters = filter_names(git, &known.top)?;
    Ok(Discovery::Found(Repo {
        filters,
        ..known.clone()
    }))
}

/// The names of every configured filter driver (`filter.<name>.*` in any config scope).
fn filter_names(git: &Git, cwd: &Path) -> Result<Vec<Vec<u8>>, GitError> {
    let out = match git.run_args(cwd, ["config", "-z", "--get-regexp", r"^filter\."]) {
        Ok(out) => out,
        // Exit 1: no such keys. Outside a repository rev-parse's answer is what counts.
        Err(GitError::Process(ProcessError::Exit { code: 1 | 128, .. })) => return Ok(Vec::new()),
        Err(e) => return Err(e),
    };
    let mut names: Vec<Vec<u8>> = Vec::new();
    for record in out.split(|&b| b == 0).filter(|r| !r.is_empty()) {
        let key = record.split(|&b| b == b'\n').next().unwrap_or_default();
        let Some(rest) = key.strip_prefix(b"filter.") else {
            continue;
        };
        if let Some(dot) = rest.iter().rposition(|&b| b == b'.') {
            let name = rest[..dot].to_vec();
            if !names.contains(&name) {
                names.push(name);
            }
        }
    }
    Ok(names)
}

fn parse(stdout: &[u8]) -> Result<Option<Repo>, GitError> {
    let bad = |detail: &str| GitError::Parse {
        command: "rev-parse".into(),
        detail: detail.into(),
    };
    let text = std::str::from_utf8(stdout).map_err(|_| bad("paths are not valid UTF-8"))?;
    let lines: Vec<&str> = text
        .strip_suffix('\n')
        .unwrap_or(text)
        .split('\n')
        .collect();
    let [
        bare,
        _inside,
        format,
        git_dir,
        common_dir,
        index,
        objects,
        top,
    ] = lines[..]
    else {
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
        filters: Vec::new(),
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
