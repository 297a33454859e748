//! Private snapshots of a working tree: a private index and object store outside the repo.
//!
//! A snapshot is one walk over a private copy of the index (`git status`; on a large index,
//! `git status` for the tracked files beside `git ls-files --others` for the untracked ones,
//! see [`scan`]), an `update-index` of just the paths that walk reported (content blobs go to
//! the prompt's object store), and a `write-tree` whose new trees go to a per-repository tree
//! cache — for the baseline of a prompt, that last step is left to the Stop, which rarely
//! needs it ([`baseline`]). Every command that writes objects sees only our own stores,
//! because git refreshes the mtime of any object it would write that already exists in a store
//! it can see; commands that only read also see the repository's real store through an
//! alternate.

mod dirs;
mod porcelain;
pub(crate) mod small_index;
mod unread;

use std::collections::{HashMap, HashSet};
use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::Arc;
use std::time::SystemTime;

use crate::git::{Git, GitError, ObjectFormat, Repo, quote};
use crate::process::ProcessError;
use porcelain::{Collector, Listing, Pending};

pub(crate) use dirs::Dirs;
pub use dirs::{Sweep, sweep_tree_cache};

/// Default size above which an untracked file is reported but never read.
pub const DEFAULT_UNTRACKED_CAP: u64 = 1024 * 1024;

/// Default size of the private index from which a walk is split in two processes (see
/// [`scan`]): about 10,000 files. One more git process costs a millisecond or two, which the
/// overlap wins back only on a large index; 1 MiB sits on a log scale between the sizes
/// where the split saved nothing (2,000 files) and where it clearly paid (50,000).
pub const DEFAULT_SPLIT_WALK_FROM: u64 = 1024 * 1024;

/// How much one snapshot looks at and reads. A working tree within them is snapshotted whole;
/// past the read bounds (a turn that wrote a dependency folder or generated output), the
/// files are read in the [`ReadOrder`] of the options until a bound is reached —
/// never the paths excluded from scoring, never new files that came in bulk — and the others
/// are listed by name and metadata only (their changes reach the payload as unread). Past the
/// walk bounds the snapshot fails with [`GitError::TooManyFiles`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Bounds {
    /// Most files whose content one snapshot reads.
    pub read_files: usize,
    /// Most bytes of content (by file size) one snapshot reads: what a diff of them prints
    /// stays within the git runner's output cap.
    pub read_bytes: u64,
    /// Most changed or new files one walk keeps, after dropping the paths excluded from
    /// scoring (which it stops keeping once the listing is past `read_files`).
    pub walk_files: usize,
    /// Most bytes of paths one walk keeps.
    pub walk_bytes: usize,
}

impl Default for Bounds {
    fn default() -> Self {
        Bounds {
            read_files: 1000,
            read_bytes: 3 * 1024 * 1024,
            walk_files: 100_000,
            walk_bytes: 16 * 1024 * 1024,
        }
    }
}

/// Knobs for taking a snapshot.
#[derive(Debug, Clone)]
pub struct SnapshotOptions {
    /// Files larger than this are never read or stored; they are reported as metadata only.
    /// The cap applies to every file a snapshot would have to read: untracked files, and
    /// tracked files whose working-tree copy changed.
    pub untracked_cap: u64,
    /// From this size of the private index in bytes, the tracked and the untracked files are
    /// walked by two git processes side by side; below it, by one (see [`scan`]). Both ways
    /// find the same changes.
    pub split_walk_from: u64,
    /// Past the read bounds: which paths are never read nor kept, and which are read first.
    pub read_order: Arc<dyn ReadOrder>,
    pub bounds: Bounds,
}

impl Default for SnapshotOptions {
    fn default() -> Self {
        SnapshotOptions {
            untracked_cap: DEFAULT_UNTRACKED_CAP,
            split_walk_from: DEFAULT_SPLIT_WALK_FROM,
            read_order: Arc::new(Unordered),
            bounds: Bounds::default(),
        }
    }
}

/// Where the private state for one prompt lives.
///
/// `prompt` holds the private index and content objects and is removed when the prompt ends;
/// `tree_cache` is a per-repository object store that may keep tree objects across prompts.
/// Both are created 0700 when missing; neither may be a symlink or overlap the repository.
/// A prompt's first [`take`] seeds the private index from the real one; later calls for the
/// same prompt reuse it, so purge the prompt (see [`purge_prompt`]) before a new baseline.
#[derive(Debug, Clone)]
pub struct PrivateStore {
    pub prompt: PathBuf,
    pub tree_cache: PathBuf,
}

/// Why a snapshot left a file's content out.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum LeftOut {
    /// Larger than the size cap.
    #[default]
    Size,
    /// Past the read bounds of one snapshot ([`Bounds`]).
    Bounds,
}

impl LeftOut {
    fn is_size(&self) -> bool {
        *self == LeftOut::Size
    }
}

/// A file a snapshot listed without reading it, for its size or past its bounds (reported as
/// metadata only).
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct OversizedFile {
    pub path: Vec<u8>,
    pub size: u64,
    /// Modification time in nanoseconds since the epoch, to tell two oversized states apart.
    #[serde(default)]
    pub mtime_ns: u64,
    /// Whether the private index tracked the path (its old content is in the other snapshot).
    #[serde(default)]
    pub tracked: bool,
    #[serde(default, skip_serializing_if = "LeftOut::is_size")]
    pub reason: LeftOut,
    /// The path was gone (a tracked file removed, left out past the bounds; its size and
    /// time are 0).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub gone: bool,
}

/// One snapshot: a tree id in the private store plus what was too large to include.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Snapshot {
    /// The tree; empty when the snapshot is the private index saved as the prompt's
    /// baseline, whose tree is written only when a diff needs it (see [`baseline`]).
    pub tree: String,
    /// The files listed without being read. A baseline ([`baseline`]) keeps here only those
    /// left out for their size, and the ones past its bounds in a list of their own (see
    /// `unread`).
    pub oversized: Vec<OversizedFile>,
    /// How many files a baseline left out past its bounds; their list is kept in the prompt's
    /// store beside the baseline's index, not in the state (it can be long).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub unread: u64,
}

fn is_zero(n: &u64) -> bool {
    *n == 0
}

impl Snapshot {
    /// Whether the tree is still to be written from the saved baseline index.
    pub fn tree_deferred(&self) -> bool {
        self.tree.is_empty()
    }
}

/// Snapshots the working tree of `repo` into `store`.
pub fn take(
    git: &Git,
    repo: &Repo,
    store: &PrivateStore,
    options: &SnapshotOptions,
) -> Result<Snapshot, GitError> {
    with_runner(git, repo, store, |run| {
        let Staged {
            oversized,
            unchanged_tree,
        } = stage_with(run, options)?;
        if let Some(tree) = unchanged_tree {
            // Nothing changed since the last tree of this private index: it is still the tree.
            return Ok(Snapshot {
                tree,
                oversized,
                unread: 0,
            });
        }
        let tree = write_tree(run, None)?;
        run.remember_tree(&tree);
        Ok(Snapshot {
            tree,
            oversized,
            unread: 0,
        })
    })
}

/// UserPromptSubmit's snapshot: the staged private index is kept as the baseline (a hard
/// link, `baseline` in the prompt's store) and no tree is written. The Stop diffs the working
/// tree against that index itself (the files way of [`crate::git::turn`]) and needs no tree;
/// only its slower ways write one, from the saved index, beside their own staging. Writing
/// the tree here read the whole private index once more and delayed every prompt on a large
/// repository, for a diff that no longer needs it.
pub fn baseline(
    git: &Git,
    repo: &Repo,
    store: &PrivateStore,
    options: &SnapshotOptions,
) -> Result<Snapshot, GitError> {
    baseline_deferring_up_to(git, repo, store, options, u64::MAX)
}

/// [`baseline`], writing the tree at once when the private index is larger than
/// `defer_up_to` bytes (tests take both ways).
#[doc(hidden)]
pub fn baseline_deferring_up_to(
    git: &Git,
    repo: &Repo,
    store: &PrivateStore,
    options: &SnapshotOptions,
    defer_up_to: u64,
) -> Result<Snapshot, GitError> {
    with_runner(git, repo, store, |run| {
        let staged = stage_with(run, options)?;
        // What the bounds left out is listed beside the baseline's index, the rest of the
        // snapshot in the state.
        let unread = unread::save(&run.dirs.unread, &staged.oversized)?;
        let mut oversized = staged.oversized;
        oversized.retain(|f| f.reason == LeftOut::Size);
        // No index at all (nothing staged in an unborn repository) has its (empty) tree
        // written now: a deferred baseline always has its saved index, so that a missing one
        // can only mean the prompt's store was removed, never "empty".
        let small = std::fs::metadata(&run.dirs.index).is_ok_and(|m| m.len() <= defer_up_to);
        if !small {
            let tree = match staged.unchanged_tree {
                Some(tree) => tree,
                None => {
                    let tree = write_tree(run, None)?;
                    run.remember_tree(&tree);
                    tree
                }
            };
            return Ok(Snapshot {
                tree,
                oversized,
                unread,
            });
        }
        run.keep_baseline()?;
        Ok(Snapshot {
            tree: String::new(),
            oversized,
            unread,
        })
    })
}

/// Writes the tree of the private index, or of `index` when given, into the tree cache.
pub(crate) fn write_tree(run: &Runner<'_>, index: Option<&Path>) -> Result<String, GitError> {
    let mut cmd = run.git(Access::WriteTrees, &["write-tree", "--missing-ok"])?;
    if let Some(index) = index {
        cmd.env("GIT_INDEX_FILE", index);
    }
    let out = run.git_output(cmd, None)?;
    parse_oid(&out, run.repo)
}

/// The private index brought up to date with the working tree, without a tree written.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Staged {
    /// The files left out for their size.
    pub oversized: Vec<OversizedFile>,
    /// The tree last written from the private index, when nothing has changed in the index
    /// since: a diff against that same tree has nothing to find.
    pub unchanged_tree: Option<String>,
}

/// Brings the private index in `store` up to date with the working tree, as [`take`] does,
/// without writing its tree: for a diff of the index itself against one tree (see
/// [`crate::git::diff::diff_index`]), which needs no tree of the working tree at all.
pub fn stage(
    git: &Git,
    repo: &Repo,
    store: &PrivateStore,
    options: &SnapshotOptions,
) -> Result<Staged, GitError> {
    with_runner(git, repo, store, |run| stage_with(run, options))
}

/// [`stage`] with a prepared runner; also the first half of [`take`].
fn stage_with(run: &Runner<'_>, options: &SnapshotOptions) -> Result<Staged, GitError> {
    let index_before = index_identity(&run.dirs.index);
    let (restaged, oversized) = stage_into(run, options)?;
    let unchanged_tree = match restaged {
        true => None,
        false => run.reusable_tree(index_before),
    };
    Ok(Staged {
        oversized,
        unchanged_tree,
    })
}

/// Prepares the store's directories and runs `f` with a runner over them.
pub(crate) fn with_runner<T>(
    git: &Git,
    repo: &Repo,
    store: &PrivateStore,
    f: impl FnOnce(&Runner<'_>) -> Result<T, GitError>,
) -> Result<T, GitError> {
    let dirs = Dirs::prepare(store, repo)?;
    f(&Runner {
        git,
        repo,
        dirs: &dirs,
        filters: &repo.filters,
    })
}

/// One walk, then an `update-index` of what it reported; true when it restaged
/// anything.
fn stage_into(
    run: &Runner<'_>,
    options: &SnapshotOptions,
) -> Result<(bool, Vec<OversizedFile>), GitError> {
    let scan = scan(run, options, &[])?;
    if scan.stage.is_empty() {
        return Ok((false, scan.oversized));
    }
    apply(run, &scan.stage, None)?;
    Ok((true, scan.oversized))
}

/// What one walk found against the private index.
#[derive(Debug, Clone, Default)]
pub(crate) struct Scan {
    /// The NUL-separated paths to restage.
    pub stage: Vec<u8>,
    /// The files left out for their size.
    pub oversized: Vec<OversizedFile>,
    /// Some path to restage is neither a file, a symbolic link nor gone (a directory that
    /// replaced a file, a submodule): staging it depends on the index entry it replaces.
    pub not_files: bool,
    /// The NUL-separated paths among `stage` that the private index does not track.
    pub untracked: Vec<u8>,
    /// The private index's entries for the tracked paths among `stage` (path, mode, object
    /// id in hex), in the walk's order: what a diff of those paths needs from the index.
    pub entries: Vec<small_index::Entry>,
    /// Some tracked path among `stage` came without its entry (an unmerged path).
    pub entries_missing: bool,
    /// Paths the walk dropped past the read bounds because selection excludes them by path.
    pub dropped: u64,
}

impl Scan {
    /// The paths to restage, one by one.
    pub fn staged_paths(&self) -> impl Iterator<Item = &[u8]> {
        self.stage.split(|&b| b == 0).filter(|p| !p.is_empty())
    }
}

/// Seeds the private index if this is the prompt's first snapshot, then walks the working
/// tree for what differs from it.
///
/// One `git status --untracked-files=all` stats the index's files and then walks the
/// directories for new ones, one after the other. On a large index
/// ([`SnapshotOptions::split_walk_from`]) the two walks run side by side instead, `git status
/// --untracked-files=no` for the tracked files and `git ls-files --others` for the new ones,
/// and the scan takes less time than the `git status` it replaces (BENCHMARKS.md). On a
/// small one the second process costs more than the overlap saves. Both processes read the
/// same private index; a seeding status that saves refreshed stat data replaces it
/// atomically, so the listing reads either copy, and both name the same entries.
///
/// Git's output is read as it comes, within the walk bounds ([`Bounds`]); `left` is what an
/// earlier snapshot of this private index listed without reading (a baseline's
/// [`OversizedFile`]s), which this one never reads either (see [`partition`]).
pub(crate) fn scan(
    run: &Runner<'_>,
    options: &SnapshotOptions,
    left: &[OversizedFile],
) -> Result<Scan, GitError> {
    let seeded = run.seed_index()?;
    // An index that is absent (an unborn HEAD) is empty.
    let split =
        std::fs::metadata(&run.dirs.index).is_ok_and(|meta| meta.len() >= options.split_walk_from);

    // (No untracked cache either way: with `--untracked-files=all`, git's cache misses files
    // added to a directory once `update-index` has tracked files in it; see the test
    // `changes_made_right_after_a_snapshot_are_all_seen`.)
    let mut status = run.git(
        Access::Read,
        &[
            "status",
            "--porcelain=v2",
            "-z",
            if split {
                "--untracked-files=no"
            } else {
                "--untracked-files=all"
            },
            "--no-renames",
            // A dirty submodule's files are not part of this tree; only its commit is, and that
            // is read from its HEAD without running anything inside it.
            "--ignore-submodules=dirty",
        ],
    )?;
    if seeded {
        // The first walk of a prompt may save the stat data it refreshed in the private
        // index (a copied index can hold stale or racily clean entries), so that the Stop's
        // walk does not hash those files again.
        status.env("GIT_OPTIONAL_LOCKS", "1");
    }
    let excluded = &*options.read_order;
    let drop = |path: &[u8]| excluded.excluded(path);
    let bounds = options.bounds;
    let collector = |listing| {
        Collector::new(listing, bounds.walk_files, bounds.walk_bytes)
            .drop_excluded_from(&drop, bounds.read_files)
    };
    if !split {
        let (pending, dropped) = walk(run, status, collector(Listing::Status))?;
        return Ok(partition(
            run.repo, pending, dropped, options, left, excluded,
        ));
    }
    // Every untracked file, one by one, under the same ignore rules `git status` applies
    // (an embedded repository comes as `dir/`).
    let others = run.git(
        Access::Read,
        &["ls-files", "-z", "--others", "--exclude-standard"],
    )?;
    let (tracked, untracked) = std::thread::scope(|scope| {
        let untracked = scope.spawn(|| walk(run, others, collector(Listing::Others)));
        let tracked = walk(run, status, collector(Listing::Status));
        (tracked, join(untracked, "ls-files --others"))
    });
    let (mut pending, dropped) = tracked?;
    let (new, dropped_new) = untracked?;
    pending.extend(new);
    if pending.len() > bounds.walk_files {
        return Err(GitError::TooManyFiles {
            limit: bounds.walk_files,
        });
    }
    Ok(partition(
        run.repo,
        pending,
        dropped + dropped_new,
        options,
        left,
        excluded,
    ))
}

/// Runs one listing of the walk, its output going to `collector` as it comes.
fn walk(
    run: &Runner<'_>,
    cmd: Command,
    mut collector: Collector<'_>,
) -> Result<(Vec<Pending>, u64), GitError> {
    {
        let mut sink = |chunk: &[u8]| collector.feed(chunk);
        // A collector that stopped the listing says why when it finishes.
        run.git.run_streaming(cmd, None, &mut sink)?;
    }
    collector.finish()
}

/// What a walk past its read bounds leaves unread and what it reads first. These are the
/// payload's rules, decided outside `git/` and handed in with the [`SnapshotOptions`] (the
/// hook and `eval` hand in `pipeline::read_order`), so that a snapshot and the payload keep
/// the same files.
pub trait ReadOrder: Send + Sync {
    /// Whether scoring leaves `path` out by its name alone: never read nor kept.
    fn excluded(&self, path: &[u8]) -> bool;
    /// The new files among `added` that came in bulk: never read.
    fn bulk<'a>(&self, added: &[&'a [u8]]) -> HashSet<&'a [u8]>;
    /// The rank `path` is read in: lower first, then the smaller file first.
    fn rank(&self, path: &[u8]) -> u8;
}

impl std::fmt::Debug for dyn ReadOrder {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("ReadOrder")
    }
}

/// No rules: nothing is left out, every file ranks the same (then the smaller first).
#[derive(Debug, Clone, Copy)]
pub struct Unordered;

impl ReadOrder for Unordered {
    fn excluded(&self, _path: &[u8]) -> bool {
        false
    }
    fn bulk<'a>(&self, _added: &[&'a [u8]]) -> HashSet<&'a [u8]> {
        HashSet::new()
    }
    fn rank(&self, _path: &[u8]) -> u8 {
        0
    }
}

/// The result of a job run beside the main thread; its panic becomes an error.
pub(crate) fn join<T>(
    job: std::thread::ScopedJoinHandle<'_, Result<T, GitError>>,
    what: &str,
) -> Result<T, GitError> {
    job.join().unwrap_or_else(|_| {
        Err(GitError::Parse {
            command: what.into(),
            detail: "the job running it panicked".into(),
        })
    })
}

/// Restages `stage` (NUL-separated paths) from the working tree into the private index, or
/// into `index` when given; content blobs go to the prompt's store.
pub(crate) fn apply(run: &Runner<'_>, stage: &[u8], index: Option<&Path>) -> Result<(), GitError> {
    let mut cmd = run.git(
        Access::WriteBlobs,
        &[
            "update-index",
            "--add",
            "--remove",
            "--replace",
            "-z",
            "--stdin",
        ],
    )?;
    if let Some(index) = index {
        cmd.env("GIT_INDEX_FILE", index);
    }
    run.git_output(cmd, Some(stage.to_vec()))?;
    Ok(())
}

/// The files a baseline of this prompt listed without reading, `count` of them (see
/// [`Snapshot::unread`]).
pub(crate) fn load_unread(run: &Runner<'_>, count: u64) -> Result<Vec<OversizedFile>, GitError> {
    unread::load(&run.dirs.unread, count)
}

/// Removes the prompt's private index and objects.
pub fn purge_prompt(store: &PrivateStore) -> Result<(), GitError> {
    dirs::remove_prompt(&store.prompt)
}

/// Which object stores a git command may see.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Access {
    /// Reads only: prompt objects, plus the tree cache and the real store as alternates.
    Read,
    /// Writes content blobs into the prompt's store and sees nothing else.
    WriteBlobs,
    /// Writes trees into the tree cache; sees the prompt's blobs, never the real store.
    WriteTrees,
}

pub(crate) struct Runner<'a> {
    pub git: &'a Git,
    pub repo: &'a Repo,
    pub dirs: &'a Dirs,
    pub filters: &'a [Vec<u8>],
}

impl Runner<'_> {
    /// A hardened git command against the private index and the stores `access` allows.
    pub fn git(&self, access: Access, args: &[&str]) -> Result<Command, GitError> {
        let mut cmd = self.git.command(&self.repo.top);
        cmd.env("GIT_INDEX_FILE", &self.dirs.index);
        match access {
            Access::Read => {
                cmd.env("GIT_OBJECT_DIRECTORY", &self.dirs.objects);
                cmd.env(
                    "GIT_ALTERNATE_OBJECT_DIRECTORIES",
                    quote::alternates(&[&self.dirs.tree_objects, &self.repo.objects]),
                );
            }
            Access::WriteBlobs => {
                cmd.env("GIT_OBJECT_DIRECTORY", &self.dirs.objects);
                // Content blobs live only until the prompt ends; syncing them buys nothing.
                cmd.arg("-c").arg("core.fsync=none");
                // Every blob over one byte streams into one pack per command instead of a
                // loose file each: hundreds of dirty files cost one file to write and to
                // remove. (Only blob writing reads this setting; diffs never see it.)
                cmd.arg("-c").arg("core.bigFileThreshold=1");
            }
            Access::WriteTrees => {
                cmd.env("GIT_OBJECT_DIRECTORY", &self.dirs.tree_objects);
                cmd.env(
                    "GIT_ALTERNATE_OBJECT_DIRECTORIES",
                    quote::alternates(&[&self.dirs.objects]),
                );
            }
        }
        // Our private index never needs its trailing checksum (git ≥ 2.40 skips it).
        cmd.arg("-c").arg("index.skipHash=true");
        self.neutralize_filters(&mut cmd);
        cmd.args(args);
        Ok(cmd)
    }

    /// Every configured filter driver becomes a no-op: an empty `process` makes git skip
    /// `clean` too, and `required=false` keeps the skipped filter from being an error.
    /// Names travel in `GIT_CONFIG_*` variables, which take any bytes a name may hold.
    fn neutralize_filters(&self, cmd: &mut Command) {
        let mut n = 0;
        for name in self.filters {
            for (key, value) in [("process", ""), ("clean", "cat"), ("required", "false")] {
                let mut k = b"filter.".to_vec();
                k.extend_from_slice(name);
                k.push(b'.');
                k.extend_from_slice(key.as_bytes());
                cmd.env(format!("GIT_CONFIG_KEY_{n}"), os_from_bytes(k));
                cmd.env(format!("GIT_CONFIG_VALUE_{n}"), value);
                n += 1;
            }
        }
        if n > 0 {
            cmd.env("GIT_CONFIG_COUNT", n.to_string());
        }
    }

    pub fn git_output(&self, cmd: Command, stdin: Option<Vec<u8>>) -> Result<Vec<u8>, GitError> {
        self.git.run(cmd, stdin)
    }

    /// Seeds the private index on a prompt's first snapshot; true when it did.
    fn seed_index(&self) -> Result<bool, GitError> {
        let index = &self.dirs.index;
        if index.exists() {
            // A lock left by a killed run of ours would block every later write.
            let lock = index.with_extension("lock");
            if let Ok(meta) = std::fs::symlink_metadata(&lock)
                && meta
                    .modified()
                    .ok()
                    .and_then(|m| m.elapsed().ok())
                    .is_some_and(|age| age.as_secs() > 60)
            {
                let _ = std::fs::remove_file(&lock);
            }
            return Ok(false);
        }
        match std::fs::metadata(&self.repo.index) {
            Ok(meta) => {
                // A byte copy keeps the stat cache, so only changed files are rehashed. The
                // copy keeps the original's mtime, because git judges "racily clean" entries
                // against the index file's own mtime.
                std::fs::copy(&self.repo.index, index).map_err(|source| GitError::Io {
                    path: self.repo.index.clone(),
                    source,
                })?;
                if let Ok(mtime) = meta.modified()
                    && let Ok(file) = std::fs::File::options().write(true).open(index)
                {
                    let _ = file.set_modified(mtime);
                }
                self.expand_split_index().map(|()| true)
            }
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                // No index: HEAD's tree; an unborn HEAD leaves the private index absent, which
                // git reads as empty.
                let cmd = self.git(Access::Read, &["read-tree", "HEAD^{tree}"])?;
                match self.git_output(cmd, None) {
                    Ok(_) => Ok(true),
                    Err(GitError::Process(ProcessError::Exit { .. })) => {
                        let _ = std::fs::remove_file(index);
                        Ok(true)
                    }
                    Err(e) => Err(e),
                }
            }
            Err(source) => Err(GitError::Io {
                path: self.repo.index.clone(),
                source,
            }),
        }
    }

    /// Rewrites a split private index as a self-contained one, without touching the real
    /// shared index: git refreshes the mtime of a shared index every time it reads one, so
    /// the read happens in a scratch git dir holding byte copies of the shared index files.
    fn expand_split_index(&self) -> Result<(), GitError> {
        let io = |path: &Path| {
            let path = path.to_path_buf();
            move |source| GitError::Io { path, source }
        };
        let shared: Vec<PathBuf> = std::fs::read_dir(&self.repo.git_dir)
            .map_err(io(&self.repo.git_dir))?
            .flatten()
            .filter(|e| {
                e.file_name()
                    .as_encoded_bytes()
                    .starts_with(b"sharedindex.")
            })
            .map(|e| e.path())
            .collect();
        if shared.is_empty() {
            return Ok(());
        }
        let scratch = self.dirs.index.with_file_name("split");
        let _ = std::fs::remove_dir_all(&scratch);
        for dir in [scratch.join("objects"), scratch.join("refs")] {
            std::fs::create_dir_all(&dir).map_err(io(&dir))?;
        }
        let config = match self.repo.format {
            ObjectFormat::Sha1 => "[core]\n\trepositoryformatversion = 0\n".to_string(),
            ObjectFormat::Sha256 => "[core]\n\trepositoryformatversion = 1\n\
                                     [extensions]\n\tobjectformat = sha256\n"
                .to_string(),
        };
        for (name, body) in [
            ("HEAD", "ref: refs/heads/main\n".to_string()),
            ("config", config),
        ] {
            let path = scratch.join(name);
            std::fs::write(&path, body).map_err(io(&path))?;
        }
        for file in &shared {
            let to = scratch.join(file.file_name().unwrap_or_default());
            std::fs::copy(file, &to).map_err(io(file))?;
        }
        let mut cmd = self.git.command(&scratch);
        cmd.env("GIT_DIR", &scratch)
            .env("GIT_INDEX_FILE", &self.dirs.index)
            .args(["update-index", "--no-split-index"]);
        let result = self.git_output(cmd, None);
        let _ = std::fs::remove_dir_all(&scratch);
        result.map(drop)
    }

    /// The tree last written from this private index, if the index is unchanged since.
    pub fn reusable_tree(&self, index_now: Option<(u64, u64)>) -> Option<String> {
        let text = std::fs::read_to_string(&self.dirs.stamp).ok()?;
        let mut parts = text.split_whitespace();
        let tree = parts.next()?;
        let len: u64 = parts.next()?.parse().ok()?;
        let mtime: u64 = parts.next()?.parse().ok()?;
        (index_now? == (len, mtime) && tree.len() == self.repo.format.hex_len())
            .then(|| tree.to_string())
    }

    /// Keeps the private index as it is now as the prompt's baseline: a second name for the
    /// same file. Every git write replaces an index through a rename, so the baseline keeps
    /// this content whatever happens to the private index later. (A copy where links are not
    /// supported.)
    pub fn keep_baseline(&self) -> Result<(), GitError> {
        let (index, baseline) = (&self.dirs.index, &self.dirs.baseline);
        crate::fs::remove_entry(baseline)?;
        if std::fs::hard_link(index, baseline).is_ok() {
            return Ok(());
        }
        let io = |source| GitError::Io {
            path: baseline.clone(),
            source,
        };
        std::fs::copy(index, baseline).map_err(io)?;
        // The copy keeps the original's time, by which the Stop recognizes it.
        let mtime = std::fs::metadata(index)
            .and_then(|m| m.modified())
            .map_err(io)?;
        std::fs::File::options()
            .write(true)
            .open(baseline)
            .and_then(|f| f.set_modified(mtime))
            .map_err(io)
    }

    /// Whether the private index is still the baseline [`Runner::keep_baseline`] kept: the
    /// same file (or, for a copy, the same length and time).
    pub fn index_is_kept_baseline(&self) -> bool {
        let (a, b) = (
            std::fs::metadata(&self.dirs.index),
            std::fs::metadata(&self.dirs.baseline),
        );
        match (a, b) {
            (Ok(a), Ok(b)) => {
                #[cfg(unix)]
                {
                    use std::os::unix::fs::MetadataExt;
                    if a.dev() == b.dev() && a.ino() == b.ino() {
                        return true;
                    }
                }
                a.len() == b.len() && mtime_ns(&a) == mtime_ns(&b) && mtime_ns(&a) != 0
            }
            _ => false,
        }
    }

    fn remember_tree(&self, tree: &str) {
        if let Some((len, mtime)) = index_identity(&self.dirs.index) {
            let _ = std::fs::write(&self.dirs.stamp, format!("{tree} {len} {mtime}\n"));
        }
    }
}

/// A path the walk found, with what `lstat` said about it.
struct Candidate {
    item: Pending,
    /// Size and modification time of a file or symbolic link to read; `None` when the path
    /// is gone or is something else (nothing to read: it is restaged as it is).
    read: Option<(u64, u64)>,
    not_file: bool,
    /// The path is gone: a tracked file removed.
    gone: bool,
}

/// Splits the pending paths into the NUL-separated list to restage and the files left out,
/// judged by `lstat` alone so that a file left out is never opened: those over the size cap,
/// those `left` says an earlier snapshot did not read (only their metadata can tell whether
/// they changed since), and, past the read bounds, those [`choose`] does not pick.
fn partition(
    repo: &Repo,
    pending: Vec<Pending>,
    dropped: u64,
    options: &SnapshotOptions,
    left: &[OversizedFile],
    excluded: &dyn ReadOrder,
) -> Scan {
    let unread_before: HashMap<&[u8], &OversizedFile> = left
        .iter()
        .filter(|f| f.reason == LeftOut::Bounds)
        .map(|f| (f.path.as_slice(), f))
        .collect();
    let mut scan = Scan {
        dropped,
        ..Scan::default()
    };
    let mut candidates = Vec::with_capacity(pending.len());
    for item in pending {
        let path = repo.top.join(path_from_bytes(&item.path));
        let found = std::fs::symlink_metadata(&path);
        if let Some(before) = unread_before.get(item.path.as_slice()) {
            let (size, mtime_ns) = found
                .as_ref()
                .map_or((0, 0), |meta| (meta.len(), mtime_ns(meta)));
            scan.oversized.push(OversizedFile {
                path: item.path,
                size,
                mtime_ns,
                tracked: before.tracked,
                reason: LeftOut::Bounds,
                gone: found.is_err(),
            });
            continue;
        }
        match found {
            Ok(meta) if meta.is_file() && meta.len() > options.untracked_cap => {
                scan.oversized.push(OversizedFile {
                    path: item.path,
                    size: meta.len(),
                    mtime_ns: mtime_ns(&meta),
                    tracked: !item.untracked,
                    reason: LeftOut::Size,
                    gone: false,
                })
            }
            Ok(meta) if meta.is_file() || meta.file_type().is_symlink() => {
                candidates.push(Candidate {
                    item,
                    read: Some((meta.len(), mtime_ns(&meta))),
                    not_file: false,
                    gone: false,
                })
            }
            // Gone files are restaged too: `--remove` drops them from the private index.
            found => candidates.push(Candidate {
                item,
                read: None,
                not_file: found.is_ok(),
                gone: found.is_err(),
            }),
        }
    }
    let chosen = choose(&candidates, &options.bounds, excluded);
    for (i, c) in candidates.into_iter().enumerate() {
        // Past the bounds, a removed file is named, not diffed: its old content could be
        // any size.
        if chosen.as_ref().is_some_and(|chosen| !chosen[i]) && (c.read.is_some() || c.gone) {
            let (size, mtime_ns) = c.read.unwrap_or((0, 0));
            scan.oversized.push(OversizedFile {
                path: c.item.path,
                size,
                mtime_ns,
                tracked: !c.item.untracked,
                reason: LeftOut::Bounds,
                gone: c.gone,
            });
            continue;
        }
        scan.not_files |= c.not_file;
        let item = c.item;
        if item.untracked {
            scan.untracked.extend_from_slice(&item.path);
            scan.untracked.push(0);
        } else if let Some((mode, oid)) = item.entry {
            scan.entries.push((item.path.clone(), mode, oid));
        } else {
            scan.entries_missing = true;
        }
        scan.stage.extend_from_slice(&item.path);
        scan.stage.push(0);
    }
    scan
}

/// Which files to read when there are more (removed ones included), or more bytes of them,
/// than `bounds` allow: `None` when all fit. Never a removed file, never a path selection
/// excludes by name, never a new file that came in bulk; the others in the payload's order
/// ([`ReadOrder::rank`], then smaller first) while the bounds hold.
fn choose(candidates: &[Candidate], bounds: &Bounds, order: &dyn ReadOrder) -> Option<Vec<bool>> {
    let (count, bytes) = candidates
        .iter()
        .filter(|c| c.read.is_some() || c.gone)
        .fold((0usize, 0u64), |(n, b), c| {
            (n + 1, b.saturating_add(c.read.map_or(0, |(size, _)| size)))
        });
    if count <= bounds.read_files && bytes <= bounds.read_bytes {
        return None;
    }
    let added: Vec<&[u8]> = candidates
        .iter()
        .filter(|c| c.read.is_some() && c.item.untracked)
        .map(|c| c.item.path.as_slice())
        .collect();
    let bulk = order.bulk(&added);
    let mut ranked: Vec<(u8, u64, usize)> = candidates
        .iter()
        .enumerate()
        .filter_map(|(i, c)| {
            let (size, _) = c.read?;
            let path = c.item.path.as_slice();
            (!bulk.contains(path) && !order.excluded(path)).then(|| (order.rank(path), size, i))
        })
        .collect();
    ranked.sort_unstable_by(|a, b| {
        (a.0, a.1, &candidates[a.2].item.path).cmp(&(b.0, b.1, &candidates[b.2].item.path))
    });
    let mut chosen = vec![false; candidates.len()];
    let (mut n, mut used) = (0, 0u64);
    for (_, size, i) in ranked {
        if n == bounds.read_files {
            break;
        }
        if used.saturating_add(size) > bounds.read_bytes {
            continue;
        }
        chosen[i] = true;
        n += 1;
        used += size;
    }
    Some(chosen)
}

fn parse_oid(out: &[u8], repo: &Repo) -> Result<String, GitError> {
    let text = std::str::from_utf8(out).unwrap_or("").trim();
    if text.len() == repo.format.hex_len() && text.bytes().all(|b| b.is_ascii_hexdigit()) {
        Ok(text.to_string())
    } else {
        Err(GitError::Parse {
            command: "write-tree".into(),
            detail: format!("not an object id: `{}`", text.escape_debug()),
        })
    }
}

pub(crate) fn index_identity(index: &Path) -> Option<(u64, u64)> {
    let meta = std::fs::metadata(index).ok()?;
    Some((meta.len(), mtime_ns(&meta)))
}

pub(crate) fn mtime_ns(meta: &std::fs::Metadata) -> u64 {
    meta.modified()
        .ok()
        .and_then(|m| m.duration_since(SystemTime::UNIX_EPOCH).ok())
        .map_or(0, |d| u64::try_from(d.as_nanos()).unwrap_or(u64::MAX))
}

/// A repository-relative path as git printed it, as a platform path.
pub(crate) fn path_from_bytes(bytes: &[u8]) -> PathBuf {
    PathBuf::from(os_from_bytes(bytes.to_vec()))
}

pub(crate) fn os_from_bytes(bytes: Vec<u8>) -> OsString {
    #[cfg(unix)]
    {
        use std::os::unix::ffi::OsStringExt;
        OsString::from_vec(bytes)
    }
    #[cfg(not(unix))]
    {
        OsString::from(String::from_utf8_lossy(&bytes).into_owned())
    }
}
