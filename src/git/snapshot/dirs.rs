//! The private store's directories: created owner-only, never through a symlink, never
//! inside the repository; and the age/size sweep of the per-repository tree cache.

use std::fs;
use std::path::{Component, Path, PathBuf};
use std::time::{Duration, SystemTime};

use super::PrivateStore;
use crate::git::{GitError, Repo};

fn io(path: &Path) -> impl FnOnce(std::io::Error) -> GitError + '_ {
    move |source| GitError::Io {
        path: path.to_path_buf(),
        source,
    }
}

fn unsafe_store(path: &Path, why: &str) -> GitError {
    GitError::UnsafeStore {
        path: path.to_path_buf(),
        why: why.to_string(),
    }
}

/// The validated, canonical directories a snapshot works in.
#[derive(Debug, Clone)]
pub(crate) struct Dirs {
    pub index: PathBuf,
    pub objects: PathBuf,
    pub tree_objects: PathBuf,
    pub stamp: PathBuf,
    /// The Stop's small index of just the paths its walk found changed (see
    /// [`crate::git::turn`]).
    pub turn_index: PathBuf,
    /// The private index as UserPromptSubmit left it, when it kept that as the baseline
    /// instead of writing its tree (see [`super::baseline`]).
    pub baseline: PathBuf,
    /// The files the baseline listed without reading, past its bounds (see
    /// [`super::unread`]).
    pub unread: PathBuf,
}

impl Dirs {
    /// Creates (or checks) both leaves of `store` and refuses any overlap with `repo`.
    pub fn prepare(store: &PrivateStore, repo: &Repo) -> Result<Dirs, GitError> {
        let prompt = leaf_dir(&store.prompt)?;
        let cache = leaf_dir(&store.tree_cache)?;
        for dir in [&prompt, &cache] {
            for theirs in [&repo.top, &repo.git_dir, &repo.common_dir, &repo.objects] {
                if dir.starts_with(theirs) || theirs.starts_with(dir) {
                    return Err(unsafe_store(
                        dir,
                        &format!("it overlaps the repository at {}", theirs.display()),
                    ));
                }
            }
        }
        Dirs::existing(&prompt, &cache)
    }

    /// The layout inside already validated leaves; makes the object directories.
    fn existing(prompt: &Path, cache: &Path) -> Result<Dirs, GitError> {
        let dirs = Dirs {
            index: prompt.join("index"),
            objects: prompt.join("objects"),
            tree_objects: cache.join("objects"),
            stamp: prompt.join("tree"),
            turn_index: prompt.join("turn-index"),
            baseline: prompt.join("baseline"),
            unread: prompt.join("unread"),
        };
        for dir in [&dirs.objects, &dirs.tree_objects] {
            make_private_dir(dir)?;
        }
        Ok(dirs)
    }

    /// The layout for reads only (diff): the leaves must already exist and be safe.
    pub fn for_read(store: &PrivateStore) -> Result<Dirs, GitError> {
        let prompt = check_leaf(&store.prompt)?;
        let cache = check_leaf(&store.tree_cache)?;
        Dirs::existing(&prompt, &cache)
    }
}

/// Creates `path` (and missing parents) with mode 0700 and returns its canonical form.
fn leaf_dir(path: &Path) -> Result<PathBuf, GitError> {
    if !path.is_absolute() || path.components().any(|c| c == Component::ParentDir) {
        return Err(unsafe_store(
            path,
            "it must be an absolute path without `..`",
        ));
    }
    if let Some(parent) = path.parent() {
        fs::create_dir_all(parent).map_err(io(parent))?;
    }
    make_private_dir(path)?;
    check_leaf(path)
}

fn make_private_dir(path: &Path) -> Result<(), GitError> {
    Ok(crate::fs::create_private_dir(path)?)
}

/// Refuses a symlinked or foreign leaf, tightens its mode to 0700, and canonicalizes it.
fn check_leaf(path: &Path) -> Result<PathBuf, GitError> {
    crate::fs::check_private_dir(path)?;
    fs::canonicalize(path).map_err(io(path))
}

/// Removes the prompt's private directory and everything in it (a symlink planted at the
/// leaf is removed, never followed); a missing one is fine.
pub(crate) fn remove_prompt(prompt: &Path) -> Result<(), GitError> {
    Ok(crate::fs::remove_entry(prompt)?)
}

/// What a sweep of the tree cache found and removed.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Sweep {
    pub kept_bytes: u64,
    pub removed_files: u64,
}

/// Bounds the per-repository tree cache at `dir`: object files older than `max_age` go, then,
/// while the rest exceeds `max_bytes`, the oldest go until it is under half the budget.
///
/// Trees are names and ids, never content, and any removed tree is rewritten by the next
/// snapshot that needs it. Run it before a baseline snapshot, not between a baseline and its
/// diff, or that prompt's diff may miss a tree and fail open.
pub fn sweep_tree_cache(
    dir: &Path,
    max_bytes: u64,
    max_age: Duration,
    now: SystemTime,
) -> Result<Sweep, GitError> {
    let objects = dir.join("objects");
    let mut files: Vec<(SystemTime, u64, PathBuf)> = Vec::new();
    let fanout = match fs::read_dir(&objects) {
        Ok(rd) => rd,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Sweep::default()),
        Err(e) => return Err(io(&objects)(e)),
    };
    for sub in fanout.flatten() {
        let Ok(meta) = sub.metadata() else { continue };
        if !meta.is_dir() {
            continue;
        }
        let Ok(entries) = fs::read_dir(sub.path()) else {
            continue;
        };
        for entry in entries.flatten() {
            let Ok(meta) = entry.metadata() else { continue };
            if meta.is_file() {
                let mtime = meta.modified().unwrap_or(SystemTime::UNIX_EPOCH);
                files.push((mtime, meta.len(), entry.path()));
            }
        }
    }
    files.sort();
    let mut sweep = Sweep::default();
    let mut total: u64 = files.iter().map(|f| f.1).sum();
    let budget_after = max_bytes / 2;
    let mut over = total > max_bytes;
    for (mtime, len, path) in &files {
        let old = now.duration_since(*mtime).unwrap_or_default() > max_age;
        if old || (over && total > budget_after) {
            if fs::remove_file(path).is_ok() {
                total -= len;
                sweep.removed_files += 1;
            }
        } else {
            over = false;
        }
    }
    sweep.kept_bytes = total;
    Ok(sweep)
}
