//! The Stop's git work: what changed in the working tree since the prompt's baseline, and the
//! `.gitattributes` facts selection needs for it, in as few git processes as the facts allow,
//! with the independent ones running side by side.
//!
//! One walk (`git status` for tracked files beside `git ls-files --others` for new ones) finds
//! the paths that differ from the private index, which still holds the baseline. Then one of
//! four ways:
//! - **nothing** differs and the private index is still the baseline's: no further git;
//! - **files**, when the private index is itself the baseline
//!   ([`snapshot::baseline`]): one `git diff-files` limited to the paths compares the
//!   baseline index with the working tree, and the paths the index does not track are written
//!   as added files without git ([`diff::added`]) — or, when a path is gone and a rename could
//!   pair it with one of them, marked intent-to-add first (`git add -N`) for git to diff with
//!   the rest. No blob, index or tree is written for the turn: git reads the changed files as
//!   it diffs them. That is the content staging
//!   would have stored when reading a file converts nothing and its mode comes from the file
//!   alone — the conditions of the limited way below, which it shares (line endings, for one,
//!   are converted differently by a diff and by staging under `core.autocrlf`);
//! - **limited**, when the baseline wrote its tree (a baseline taken before the files way
//!   existed, or by a test): the paths are staged afresh into a small index of their own
//!   (`update-index` reads and writes a few entries, not the whole private index) and one
//!   `diff-index` limited to those paths compares the baseline tree with it. Outside those
//!   paths the baseline and the working tree agree, so this is the whole diff, byte for byte,
//!   whenever staging a path cannot depend on the index entry it replaces (see
//!   [`limited_is_exact`]);
//! - **whole**, otherwise: the paths are restaged into the private index, which is diffed
//!   against the baseline tree entire ([`crate::git::diff::diff_index`]).
//!
//! Beside the staging and the diff, `check-attr` runs on its own thread, and only when some
//! attribute file exists at all ([`attributes::none_apply`]); and so does the `write-tree` of
//! the baseline when UserPromptSubmit left it to the Stop ([`snapshot::baseline`]), from the
//! saved baseline index that the staging never touches.

use std::borrow::Cow;
use std::path::Path;

use crate::git::attributes::Attributes;
use crate::git::diff::{self, Change};
use crate::git::snapshot::{
    self, LeftOut, PrivateStore, Runner, Scan, Snapshot, SnapshotOptions, Staged, index_identity,
    join, with_runner,
};
use crate::git::{Git, GitError, Repo, attributes};

/// What the Stop needs from git.
#[derive(Debug, Clone, Default)]
pub struct Turn {
    /// What changed since the baseline, in path order.
    pub changes: Vec<Change>,
    /// The attributes of (at least) every path in `changes`.
    pub attributes: Attributes,
    /// How the diff was made.
    pub way: Way,
    /// Paths past the read bounds that selection excludes by name, not looked at (see
    /// [`snapshot::Bounds`]).
    pub dropped: u64,
}

/// Most bytes of paths handed to git as arguments; more take the whole way (a command line
/// has a bounded length everywhere, and a short one on Windows).
const MAX_PATHSPEC_BYTES: usize = 16 * 1024;

/// How the diff was made; see the module docs.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum Way {
    /// Nothing differed from the baseline: one walk, no diff.
    #[default]
    Nothing,
    /// The changed paths diffed against the baseline index itself, from the working tree.
    Files,
    /// The changed paths staged into a small index of their own and diffed alone.
    Limited,
    /// The changed paths restaged into the private index, diffed whole.
    Whole,
}

impl Way {
    /// The name the decision log records.
    pub fn name(self) -> &'static str {
        match self {
            Way::Nothing => "nothing",
            Way::Files => "files",
            Way::Limited => "limited",
            Way::Whole => "whole",
        }
    }
}

/// What changed in the working tree of `repo` since `base`, which the prompt's
/// UserPromptSubmit took into `store`, and the attributes of the changed paths.
pub fn changes_since(
    git: &Git,
    repo: &Repo,
    store: &PrivateStore,
    options: &SnapshotOptions,
    base: &Snapshot,
) -> Result<Turn, GitError> {
    with_runner(git, repo, store, |run| {
        let base = &*with_unread(run, base)?;
        // The private index is the baseline's while it is the file the baseline came from (an
        // earlier Stop of this prompt that died after restaging changed it).
        let deferred = base.tree_deferred();
        if deferred {
            saved_baseline_exists(run)?;
        }
        let index_is_baseline = if deferred {
            run.index_is_kept_baseline()
        } else {
            run.reusable_tree(index_identity(&run.dirs.index))
                .is_some_and(|tree| tree == base.tree)
        };
        // Whether the baseline index names an attribute file is read beside the walk, which
        // leaves that index as it is (at 50,000 files it is a third of the Stop's own CPU),
        // and only when a short way could use the answer.
        let ask = index_is_baseline && staging_ignores_index(repo);
        let (scan, index_names_attributes) = std::thread::scope(|scope| {
            let names = ask.then(|| scope.spawn(|| index_may_name_gitattributes(&run.dirs.index)));
            let scan = snapshot::scan(run, options, &base.oversized);
            let names = names.is_none_or(|job| job.join().unwrap_or(true));
            (scan, names)
        });
        let scan = scan?;

        let paths = diff_paths(&scan, base);
        let no_attributes = attributes::none_apply(repo, &paths);
        let way = if index_is_baseline {
            short_way(repo, &scan, deferred, no_attributes, index_names_attributes)
        } else {
            Way::Whole
        };
        if way == Way::Files {
            match files_way(git, repo, store, run, base, &scan, no_attributes, &paths) {
                Ok(turn) => return Ok(turn),
                // Git refused a path (it vanished since the walk, a sparse checkout keeps it
                // out): the whole way stages what is there now.
                Err(GitError::Process(crate::process::ProcessError::Exit { .. })) => {}
                Err(e) => return Err(e),
            }
        }
        let way = if way == Way::Files { Way::Whole } else { way };

        let (changes, looked_up) = std::thread::scope(|scope| {
            let lookup =
                (!no_attributes).then(|| scope.spawn(|| attributes::read(git, repo, &paths)));
            // The baseline's tree, when UserPromptSubmit left it to us, is written beside the
            // staging: from the saved baseline index, which the staging never touches.
            let tree = (deferred && way != Way::Nothing)
                .then(|| scope.spawn(|| snapshot::write_tree(run, Some(&run.dirs.baseline))));
            let changes = stage_by(way, run, &scan).and_then(|()| {
                let tree = match tree {
                    Some(job) => join(job, "write-tree")?,
                    None => base.tree.clone(),
                };
                let base = Snapshot {
                    tree,
                    oversized: base.oversized.clone(),
                    unread: 0,
                };
                diff_by(way, git, repo, store, run, &base, &scan)
            });
            let looked_up = match lookup {
                None => Ok(attributes::unspecified(repo, &paths)),
                Some(job) => join(job, "check-attr"),
            };
            (changes, looked_up)
        });
        let changes = changes?;
        let mut attributes = looked_up?;
        look_up_missing(git, repo, &changes, &paths, &mut attributes)?;
        Ok(Turn {
            changes,
            attributes,
            way,
            dropped: scan.dropped,
        })
    })
}

/// The baseline with what it listed without reading, past its bounds, read back from beside
/// its index: the Stop compares those files' metadata, never reads them.
fn with_unread<'a>(run: &Runner<'_>, base: &'a Snapshot) -> Result<Cow<'a, Snapshot>, GitError> {
    if base.unread == 0 {
        return Ok(Cow::Borrowed(base));
    }
    let mut full = base.clone();
    full.oversized
        .extend(snapshot::load_unread(run, base.unread)?);
    Ok(Cow::Owned(full))
}

/// Without its saved index a deferred baseline is gone (the prompt's store was removed): git
/// would read the absent file as an empty index and every file of the repository would look
/// added. Fail instead.
fn saved_baseline_exists(run: &Runner<'_>) -> Result<(), GitError> {
    if std::fs::symlink_metadata(&run.dirs.baseline).is_ok() {
        return Ok(());
    }
    Err(GitError::Io {
        path: run.dirs.baseline.clone(),
        source: std::io::Error::new(
            std::io::ErrorKind::NotFound,
            "the baseline's saved index is gone",
        ),
    })
}

/// Every path the diff can name, sorted: what the walk found, and what was too large to stage
/// now or at the baseline. (Files left out past the bounds are many and mostly unchanged: the
/// few that changed are looked up at the end, with any other path missing here.)
fn diff_paths(scan: &Scan, base: &Snapshot) -> Vec<Vec<u8>> {
    let mut paths: Vec<Vec<u8>> = scan.staged_paths().map(<[u8]>::to_vec).collect();
    paths.extend(
        scan.oversized
            .iter()
            .chain(&base.oversized)
            .filter(|f| f.reason == LeftOut::Size)
            .map(|f| f.path.clone()),
    );
    paths.sort();
    paths.dedup();
    paths
}

/// The way to take when the private index is the baseline's: nothing to stage, one of the
/// short ways when no attribute applies and they are exact, else the whole way.
fn short_way(
    repo: &Repo,
    scan: &Scan,
    deferred: bool,
    no_attributes: bool,
    index_names_attributes: bool,
) -> Way {
    let fits = scan.stage.len() <= MAX_PATHSPEC_BYTES
        && (cfg!(unix) || scan.staged_paths().all(|p| std::str::from_utf8(p).is_ok()));
    if scan.stage.is_empty() {
        Way::Nothing
    } else if no_attributes && fits && limited_is_exact(repo, scan, index_names_attributes) {
        if !deferred {
            Way::Limited
        } else if default_big_file_threshold(repo) {
            Way::Files
        } else {
            // Git's diff calls a blob over `core.bigFileThreshold` binary, but not a
            // symbolic link it reads from the working tree: only blobs agree.
            Way::Whole
        }
    } else {
        Way::Whole
    }
}

/// The walk names every path the diff can (a rename's two sides are a deletion and an
/// addition to it); should one ever be missing from `paths`, its attributes are looked up
/// after all and added to `attributes`.
fn look_up_missing(
    git: &Git,
    repo: &Repo,
    changes: &[Change],
    paths: &[Vec<u8>],
    attributes: &mut Attributes,
) -> Result<(), GitError> {
    let missing: Vec<Vec<u8>> = crate::git::attributes::paths_of(changes)
        .into_iter()
        .filter(|p| paths.binary_search(p).is_err())
        .collect();
    if !missing.is_empty() {
        let more = attributes::read(git, repo, &missing)?;
        attributes.generated.extend(more.generated);
        attributes.vendored.extend(more.vendored);
        attributes.no_diff.extend(more.no_diff);
        attributes.output_roots.extend(more.output_roots);
    }
    Ok(())
}

/// The files way: `diff-files` on the walk's paths, with the attribute lookup beside it. New
/// paths are written as added files here ([`diff::added`]) when no rename can pair one with
/// anything — no path the baseline tracks is gone, so `-M` has no source; otherwise they are
/// marked intent-to-add in the private index (the baseline) first, and git diffs them with
/// the rest.
#[allow(clippy::too_many_arguments)]
fn files_way(
    git: &Git,
    repo: &Repo,
    store: &PrivateStore,
    run: &Runner<'_>,
    base: &Snapshot,
    scan: &Scan,
    no_attributes: bool,
    paths: &[Vec<u8>],
) -> Result<Turn, GitError> {
    std::thread::scope(|scope| {
        let lookup = (!no_attributes).then(|| scope.spawn(|| attributes::read(git, repo, paths)));
        let changes = match added_without_git(repo, scan) {
            Some((tracked, added)) => {
                // The walk named the baseline's entry of every tracked path: a small index of
                // just those is all `diff-files` needs to read.
                let entries = (!scan.entries_missing).then_some(&scan.entries[..]);
                diff::diff_files(
                    git,
                    repo,
                    store,
                    base,
                    &tracked,
                    entries,
                    added,
                    &scan.oversized,
                )
            }
            None => mark_new(run, &scan.untracked).and_then(|()| {
                let staged: Vec<&[u8]> = scan.staged_paths().collect();
                diff::diff_files(
                    git,
                    repo,
                    store,
                    base,
                    &staged,
                    None,
                    Vec::new(),
                    &scan.oversized,
                )
            }),
        };
        let attributes = match lookup {
            None => Ok(attributes::unspecified(repo, paths)),
            Some(job) => join(job, "check-attr"),
        };
        Ok(Turn {
            changes: changes?,
            attributes: attributes?,
            way: Way::Files,
            dropped: scan.dropped,
        })
    })
}

/// The walk's tracked paths and the changes of its new ones, written without git, when that
/// is exact (see [`files_way`]); `None` when git must mark them intent-to-add. A turn that
/// added nothing (the common one) has every path tracked and nothing to mark.
fn added_without_git<'a>(repo: &Repo, scan: &'a Scan) -> Option<(Vec<&'a [u8]>, Vec<Change>)> {
    if scan.untracked.is_empty() {
        return Some((scan.staged_paths().collect(), Vec::new()));
    }
    if !default_big_file_threshold(repo) {
        return None;
    }
    let new: Vec<&[u8]> = scan
        .untracked
        .split(|&b| b == 0)
        .filter(|p| !p.is_empty())
        .collect();
    let tracked: Vec<&[u8]> = scan.staged_paths().filter(|p| !new.contains(p)).collect();
    let gone =
        |p: &&[u8]| std::fs::symlink_metadata(repo.top.join(snapshot::path_from_bytes(p))).is_err();
    if tracked.iter().any(gone) {
        return None;
    }
    let added = new
        .iter()
        .map(|p| diff::added(&repo.top, p, repo.format))
        .collect::<std::io::Result<Vec<Change>>>()
        .ok()?;
    Some((tracked, added))
}

/// Whether `core.bigFileThreshold` is known to be unset: git's diff then calls a file binary
/// by its bytes alone, wherever it reads them from.
fn default_big_file_threshold(repo: &Repo) -> bool {
    repo.facts
        .config
        .as_ref()
        .is_some_and(|c| c.default_big_file_threshold)
}

/// Marks `untracked` (NUL-separated paths) intent-to-add in the private index: an entry with
/// no content, which `diff-files` shows as an added file read from the working tree.
fn mark_new(run: &Runner<'_>, untracked: &[u8]) -> Result<(), GitError> {
    if untracked.is_empty() {
        return Ok(());
    }
    let mut cmd = run.git(
        snapshot::Access::Read,
        &[
            "add",
            "--intent-to-add",
            "--pathspec-from-file=-",
            "--pathspec-file-nul",
        ],
    )?;
    cmd.env("GIT_LITERAL_PATHSPECS", "1");
    run.git_output(cmd, Some(untracked.to_vec()))?;
    Ok(())
}

/// Stages the walk's paths for `way`: into a small index of their own, or the private index.
fn stage_by(way: Way, run: &Runner<'_>, scan: &Scan) -> Result<(), GitError> {
    match way {
        Way::Nothing => Ok(()),
        Way::Limited => {
            let index = &run.dirs.turn_index;
            // A small index left by a Stop that died must not lend us its entries.
            crate::fs::remove_entry(index)?;
            snapshot::apply(run, &scan.stage, Some(index))
        }
        // (The files way is not staged; one that git refused ends here as the whole way.)
        Way::Whole | Way::Files if scan.stage.is_empty() => Ok(()),
        Way::Whole | Way::Files => snapshot::apply(run, &scan.stage, None),
    }
}

/// Diffs `base` (its tree written) against what [`stage_by`] staged.
fn diff_by(
    way: Way,
    git: &Git,
    repo: &Repo,
    store: &PrivateStore,
    run: &Runner<'_>,
    base: &Snapshot,
    scan: &Scan,
) -> Result<Vec<Change>, GitError> {
    match way {
        Way::Nothing => {
            let staged = Staged {
                oversized: scan.oversized.clone(),
                unchanged_tree: Some(base.tree.clone()),
            };
            diff::diff_index(git, repo, store, base, &staged)
        }
        Way::Limited => {
            let paths: Vec<&[u8]> = scan.staged_paths().collect();
            let index = &run.dirs.turn_index;
            diff::diff_index_limited(git, repo, store, base, index, &paths, &scan.oversized)
        }
        Way::Whole | Way::Files => {
            let staged = Staged {
                oversized: scan.oversized.clone(),
                unchanged_tree: None,
            };
            diff::diff_index(git, repo, store, base, &staged)
        }
    }
}

/// Whether staging `scan`'s paths into an empty index gives each the entry it would get in
/// the private index, so that the limited way is exact. Git looks at the entry a file replaces
/// when the config says not to trust the file's mode or case (`core.fileMode`,
/// `core.symlinks`, `core.ignoreCase`), before converting line endings (`core.autocrlf`, the
/// `text` attribute), and for `.gitattributes` it reads from the index when the working tree
/// has none; and for a directory (a submodule's commit, a directory that replaced a file) it
/// decides by the old entry what to stage. The caller has already found no attribute file in
/// the working tree ([`attributes::none_apply`]); this checks the config, that every path is
/// a file, a symbolic link or gone, and that the private index names no `.gitattributes`
/// either (`index_names_attributes`, from [`index_may_name_gitattributes`]). (The caller also
/// checks that the paths fit on a command line.)
fn limited_is_exact(repo: &Repo, scan: &Scan, index_names_attributes: bool) -> bool {
    staging_ignores_index(repo) && !scan.not_files && !index_names_attributes
}

/// Whether the config lets staging ignore the entry a file replaces (see
/// [`limited_is_exact`]).
fn staging_ignores_index(repo: &Repo) -> bool {
    repo.facts
        .config
        .as_ref()
        .is_some_and(|c| c.staging_ignores_index)
}

/// Whether the index file at `index` may hold an entry named `.gitattributes` (in any
/// directory). Versions 2 and 3 store every path whole, so a byte search is exact in one
/// direction: no match, no such entry. Anything else answers `true`.
/// The file is streamed through a small buffer, not read whole: a large index read at once
/// costs more in fresh pages than in the search.
fn index_may_name_gitattributes(index: &Path) -> bool {
    use std::io::Read;
    let Ok(mut file) = std::fs::File::open(index) else {
        return true;
    };
    let mut header = [0u8; 8];
    if file.read_exact(&mut header).is_err() {
        return true;
    }
    let version = u32::from_be_bytes([header[4], header[5], header[6], header[7]]);
    if &header[..4] != b"DIRC" || !matches!(version, 2 | 3) {
        return true;
    }
    let Ok(ac) = aho_corasick::AhoCorasick::new([b".gitattributes\0"]) else {
        return true;
    };
    // A read error counts as a match: the answer must never be a wrong "no".
    ac.stream_find_iter(file).next().is_some()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_a_whole_path_index_without_gitattributes_is_clear() {
        let tmp = tempfile::tempdir().unwrap();
        let index = tmp.path().join("index");
        let entry = |name: &str| {
            let mut e = vec![0u8; 62];
            e.extend_from_slice(name.as_bytes());
            e.push(0);
            e
        };
        let file = |version: u32, names: &[&str]| {
            let mut b = b"DIRC".to_vec();
            b.extend_from_slice(&version.to_be_bytes());
            b.extend_from_slice(&(names.len() as u32).to_be_bytes());
            for n in names {
                b.extend(entry(n));
            }
            std::fs::write(&index, b).unwrap();
        };
        assert!(index_may_name_gitattributes(&index), "absent");
        file(2, &["a.txt", "src/.gitattributes.bak", "gitattributes"]);
        assert!(!index_may_name_gitattributes(&index));
        file(2, &["a.txt", "src/.gitattributes"]);
        assert!(index_may_name_gitattributes(&index));
        file(3, &[".gitattributes"]);
        assert!(index_may_name_gitattributes(&index));
        file(4, &["a.txt"]);
        assert!(
            index_may_name_gitattributes(&index),
            "version 4 is not scanned"
        );
        std::fs::write(&index, b"garbage").unwrap();
        assert!(index_may_name_gitattributes(&index));
        // Streamed: a name far into a large index, across any buffer's edge, is still found.
        for at in [65_530, 131_070, 300_001] {
            let mut b = b"DIRC\0\0\0\x02\0\0\0\x01".to_vec();
            b.resize(at, b'x');
            b.extend_from_slice(b"d/.gitattributes\0");
            b.resize(at + 100_000, b'y');
            std::fs::write(&index, &b).unwrap();
            assert!(index_may_name_gitattributes(&index), "at {at}");
            b[at + 2] = b'_';
            std::fs::write(&index, &b).unwrap();
            assert!(!index_may_name_gitattributes(&index), "at {at}, renamed");
        }
    }
}
