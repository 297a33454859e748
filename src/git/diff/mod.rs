//! The turn diff: what changed between two private snapshots.
//!
//! One `git diff-tree` prints the three views NUL-delimited, in this order: the raw
//! name-status records, the numstat records, a NUL, then the patch. The patch is split per
//! file by matching each section's `diff --git` header against the header git must have
//! written for the raw record's paths, and the three views are cross-checked (same paths,
//! same binary verdict, same added/removed line counts) before anything is trusted.

mod added;
pub mod patch;
mod raw;

pub(crate) use added::added;

use std::collections::{HashMap, HashSet};
use std::path::Path;

use crate::git::snapshot::{
    Access, Dirs, LeftOut, OversizedFile, PrivateStore, Runner, Snapshot, Staged, os_from_bytes,
    small_index,
};
use crate::git::{Git, GitError, Repo};

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
    /// The file's content was never read: the turn changed more files (or bytes) than a
    /// snapshot reads, and this one came later in the snapshot's
    /// [`ReadOrder`](crate::git::snapshot::ReadOrder).
    pub unread: bool,
}

/// The fixed diff options: renames at 50%, `a/` `b/` prefixes, 3 lines of context, no color,
/// no relative paths, short submodules, and no program the repository could configure.
/// `diff-tree` and `diff-index --cached` print the same three views with them.
const DIFF_OPTIONS: &[&str] = &[
    "-r",
    "-z",
    "--raw",
    "--numstat",
    "--patch",
    "-M50%",
    "--src-prefix=a/",
    "--dst-prefix=b/",
    "-U3",
    "--no-color",
    "--no-relative",
    "--submodule=short",
    "--ignore-submodules=none",
    "--no-ext-diff",
    "--no-textconv",
    "--full-index",
];

/// Diffs two snapshots of the same prompt, in path order.
pub fn diff(
    git: &Git,
    repo: &Repo,
    store: &PrivateStore,
    base: &Snapshot,
    head: &Snapshot,
) -> Result<Vec<Change>, GitError> {
    let mut changes = if base.tree == head.tree {
        Vec::new()
    } else {
        // Two trees: the command needs no index at all.
        let args = [base.tree.as_str(), head.tree.as_str(), "--"];
        private_diff(git, repo, store, "diff-tree", &args, false)?
    };
    merge_oversized(repo, &mut changes, &base.oversized, &head.oversized);
    changes.sort_by(|a, b| a.path.cmp(&b.path));
    Ok(changes)
}

/// Diffs two trees of the repository's own object store (a revision range), in path order.
/// Read-only: the hardened runner with the repository's real index and objects untouched,
/// the same fixed options as a turn diff.
pub fn diff_trees(
    git: &Git,
    repo: &Repo,
    base_tree: &str,
    head_tree: &str,
) -> Result<Vec<Change>, GitError> {
    if base_tree == head_tree {
        return Ok(Vec::new());
    }
    let mut cmd = git.command(&repo.top);
    repo.without_index(&mut cmd);
    cmd.args(diff_args("diff-tree"))
        .args([base_tree, head_tree, "--"]);
    let mut changes = raw::parse(&git.run(cmd, None)?)?;
    changes.sort_by(|a, b| a.path.cmp(&b.path));
    Ok(changes)
}

/// Diffs `base` against the private index of `store`, which [`snapshot::stage`] brought up
/// to date with the working tree: the same changes, byte for byte, as a snapshot's tree would
/// give with [`diff`], without writing any tree. `git diff-index --cached` skips every
/// directory whose cached tree in the index matches `base`, so a repository's unchanged bulk
/// costs nothing; and when the index is still exactly `base` (a turn that changed nothing) no
/// git runs at all. The Stop uses it (its prompt ends with it, so no later diff needs the
/// tree) and so does `eval` of the working tree (with no tree cache to fill).
///
/// [`snapshot::stage`]: crate::git::snapshot::stage
pub fn diff_index(
    git: &Git,
    repo: &Repo,
    store: &PrivateStore,
    base: &Snapshot,
    staged: &Staged,
) -> Result<Vec<Change>, GitError> {
    let mut changes = if staged.unchanged_tree.as_deref() == Some(base.tree.as_str()) {
        Vec::new()
    } else {
        let args = ["--cached", base.tree.as_str(), "--"];
        private_diff(git, repo, store, "diff-index", &args, true)?
    };
    merge_oversized(repo, &mut changes, &base.oversized, &staged.oversized);
    changes.sort_by(|a, b| a.path.cmp(&b.path));
    Ok(changes)
}

/// [`diff_index`] limited to `paths`, against the index at `index` instead of the private
/// index: the Stop's way when `index` holds exactly `paths` staged afresh from the working
/// tree (see [`crate::git::turn`]). Outside `paths` the baseline tree and the working tree
/// agree, so the limited diff of the two is the whole diff; inside them, the small index holds
/// what the private index would after restaging them. Pathspecs are literal.
pub(crate) fn diff_index_limited(
    git: &Git,
    repo: &Repo,
    store: &PrivateStore,
    base: &Snapshot,
    index: &Path,
    paths: &[&[u8]],
    oversized: &[OversizedFile],
) -> Result<Vec<Change>, GitError> {
    let dirs = Dirs::for_read(store)?;
    let runner = Runner {
        git,
        repo,
        dirs: &dirs,
        filters: &[],
    };
    let mut all = diff_args("diff-index");
    all.extend_from_slice(&["--cached", base.tree.as_str(), "--"]);
    let mut cmd = runner.git(Access::Read, &all)?;
    // A path is a path, never a glob or `:(magic)`.
    cmd.env("GIT_INDEX_FILE", index)
        .env("GIT_LITERAL_PATHSPECS", "1");
    cmd.args(paths.iter().map(|p| os_from_bytes(p.to_vec())));
    let mut changes = raw::parse(&runner.git_output(cmd, None)?)?;
    merge_oversized(repo, &mut changes, &base.oversized, oversized);
    changes.sort_by(|a, b| a.path.cmp(&b.path));
    Ok(changes)
}

/// The working tree against the private index of `store` for `paths` (`git diff-files`):
/// when that index is still the baseline, the turn's changes to those paths, the same bytes
/// [`diff_index`] gives after restaging them — git reads each changed file itself instead of
/// from a blob written for it. Paths the index does not track must be marked intent-to-add
/// first, so that they show as added, or come as `added` changes made without git
/// ([`added()`]). With no `paths`, no git runs. The raw records' working-tree ids are zeros
/// (they are not hashed); the patch's `index` lines carry the real ones. With `entries`, the
/// baseline's entries for exactly `paths`, git reads those from a small index of their own.
#[allow(clippy::too_many_arguments)]
pub(crate) fn diff_files(
    git: &Git,
    repo: &Repo,
    store: &PrivateStore,
    base: &Snapshot,
    paths: &[&[u8]],
    entries: Option<&[small_index::Entry]>,
    added: Vec<Change>,
    oversized: &[OversizedFile],
) -> Result<Vec<Change>, GitError> {
    let mut changes = if paths.is_empty() {
        Vec::new()
    } else {
        diff_files_of(git, repo, store, paths, entries)?
    };
    changes.extend(added);
    merge_oversized(repo, &mut changes, &base.oversized, oversized);
    changes.sort_by(|a, b| a.path.cmp(&b.path));
    Ok(changes)
}

/// One `git diff-files` of `paths`, parsed. With `entries` (the baseline index's entries for
/// exactly `paths`), it reads a small index of just those ([`small_index`]) instead of the
/// whole private index.
fn diff_files_of(
    git: &Git,
    repo: &Repo,
    store: &PrivateStore,
    paths: &[&[u8]],
    entries: Option<&[small_index::Entry]>,
) -> Result<Vec<Change>, GitError> {
    let dirs = Dirs::for_read(store)?;
    let runner = Runner {
        git,
        repo,
        dirs: &dirs,
        filters: &repo.filters,
    };
    // The small index stands in for the pathspec only when it holds exactly `paths`.
    let covers = |entries: &[small_index::Entry]| {
        let mut named: Vec<&[u8]> = entries.iter().map(|e| &e.0[..]).collect();
        let mut asked = paths.to_vec();
        named.sort_unstable();
        asked.sort_unstable();
        named == asked
    };
    let small = match entries {
        Some(entries) if covers(entries) => {
            small_index::write(&dirs.turn_index, entries, repo.format)?
        }
        _ => false,
    };
    let mut all = diff_args("diff-files");
    if small {
        let mut cmd = runner.git(Access::Read, &all)?;
        cmd.env("GIT_INDEX_FILE", &dirs.turn_index);
        return raw::parse(&runner.git_output(cmd, None)?);
    }
    all.push("--");
    let mut cmd = runner.git(Access::Read, &all)?;
    cmd.env("GIT_LITERAL_PATHSPECS", "1");
    cmd.args(paths.iter().map(|p| os_from_bytes(p.to_vec())));
    raw::parse(&runner.git_output(cmd, None)?)
}

/// Runs `command` with the fixed options and `args` on the objects of `store` (and, with
/// `index`, its private index), and parses the three views.
fn private_diff(
    git: &Git,
    repo: &Repo,
    store: &PrivateStore,
    command: &str,
    args: &[&str],
    index: bool,
) -> Result<Vec<Change>, GitError> {
    let dirs = Dirs::for_read(store)?;
    let runner = Runner {
        git,
        repo,
        dirs: &dirs,
        filters: &[],
    };
    let mut all = diff_args(command);
    all.extend_from_slice(args);
    let mut cmd = runner.git(Access::Read, &all)?;
    if !index {
        repo.without_index(&mut cmd);
    }
    raw::parse(&runner.git_output(cmd, None)?)
}

/// `command` with the fixed options, paths quoted the one way the parser reads them.
fn diff_args(command: &str) -> Vec<&str> {
    let mut args = vec!["-c", "core.quotePath=true", command];
    args.extend_from_slice(DIFF_OPTIONS);
    args
}

/// Adds the files a snapshot listed without reading (over the size cap, or past its read
/// bounds) as metadata-only changes: `head`'s unless its file is unchanged since `base` by
/// size and modification time, and `base`'s that `head` no longer lists and that are gone or
/// changed. Hash maps, not scans: a large turn lists tens of thousands of them.
fn merge_oversized(
    repo: &Repo,
    changes: &mut Vec<Change>,
    base: &[OversizedFile],
    head: &[OversizedFile],
) {
    if base.is_empty() && head.is_empty() {
        return;
    }
    let metadata_only = |file: &OversizedFile, status| Change {
        path: file.path.clone(),
        old_path: None,
        status,
        binary: false,
        patch: Vec::new(),
        oversized: (file.reason == LeftOut::Size).then_some(file.size),
        unread: file.reason == LeftOut::Bounds,
    };
    let before: HashMap<&[u8], &OversizedFile> =
        base.iter().map(|f| (f.path.as_slice(), f)).collect();
    let listed: HashSet<&[u8]> = head.iter().map(|f| f.path.as_slice()).collect();
    let mut replaced: HashSet<&[u8]> = HashSet::new();
    let mut added = Vec::new();
    for now in head {
        let was = before.get(now.path.as_slice());
        if was
            .is_some_and(|b| b.size == now.size && b.mtime_ns == now.mtime_ns && b.gone == now.gone)
        {
            continue;
        }
        replaced.insert(now.path.as_slice());
        let status = if now.gone {
            Status::Deleted
        } else if was.is_some_and(|b| b.gone) {
            // Gone at the baseline, there now.
            Status::Added
        } else if now.tracked || was.is_some() {
            Status::Modified
        } else {
            Status::Added
        };
        added.push(metadata_only(now, status));
    }
    if !replaced.is_empty() {
        changes.retain(|c| !replaced.contains(c.path.as_slice()));
    }
    let at: HashMap<Vec<u8>, usize> = changes
        .iter()
        .enumerate()
        .map(|(i, c)| (c.path.clone(), i))
        .collect();
    for gone in base.iter().filter(|b| !listed.contains(b.path.as_slice())) {
        if let Some(&i) = at.get(&gone.path) {
            // It existed at the baseline, only too large to read: now it has content.
            if changes[i].status == Status::Added {
                changes[i].status = Status::Modified;
            }
            continue;
        }
        let found = std::fs::symlink_metadata(
            repo.top
                .join(crate::git::snapshot::path_from_bytes(&gone.path)),
        );
        let bounds = gone.reason == LeftOut::Bounds;
        let status = match found {
            // Past the bounds, the walk may not list a file it never read (ignored now):
            // only its metadata says whether it changed.
            Ok(meta)
                if bounds
                    && !gone.gone
                    && meta.len() == gone.size
                    && crate::git::snapshot::mtime_ns(&meta) == gone.mtime_ns =>
            {
                continue;
            }
            Ok(_) if bounds && gone.gone => Status::Added,
            Ok(_) => Status::Modified,
            Err(_) if bounds && gone.gone => continue,
            Err(_) => Status::Deleted,
        };
        added.push(metadata_only(gone, status));
    }
    changes.extend(added);
}
