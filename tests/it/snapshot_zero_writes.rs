//! The zero-write invariant over a matrix of repository states and turn changes: the real
//! repository (every path, size, mode, mtime and content hash, and `git status`) is identical
//! before and after each snapshot and the diff, and the diff holds exactly the turn's changes.
#![cfg(unix)]

use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};

use jev_preflight::git::diff::{self, Change, Status};
use jev_preflight::git::snapshot::{self, PrivateStore, Snapshot, SnapshotOptions};
use jev_preflight::git::{self, Discovery, Git, Repo, turn};

use crate::support::TestRepo;
use crate::support::inventory::{Inventory, assert_same, inventory, status_v2};

/// A private store in its own temp dir, outside every test repository.
pub struct Store {
    pub dir: tempfile::TempDir,
}

impl Store {
    pub fn new() -> Store {
        Store {
            dir: tempfile::Builder::new()
                .prefix("jev-test-store")
                .tempdir()
                .unwrap(),
        }
    }

    pub fn private(&self) -> PrivateStore {
        PrivateStore {
            prompt: self.dir.path().join("prompt"),
            tree_cache: self.dir.path().join("trees"),
        }
    }
}

pub fn found(git: &Git, dir: &Path) -> Repo {
    match git::discover(git, dir).unwrap() {
        Discovery::Found(repo) => repo,
        other => panic!("expected a repository at {}, got {other:?}", dir.display()),
    }
}

fn roots(repo: &Repo) -> Vec<PathBuf> {
    vec![
        repo.top.clone(),
        repo.git_dir.clone(),
        repo.common_dir.clone(),
    ]
}

fn snapshot_of(repo: &Repo) -> Inventory {
    let roots = roots(repo);
    let refs: Vec<&Path> = roots.iter().map(PathBuf::as_path).collect();
    inventory(&refs)
}

/// Runs one turn: baseline snapshot, `turn`, current snapshot, diff; checks the repository
/// is untouched by each of our steps. Returns the changes.
pub fn run_turn(dir: &Path, turn: impl FnOnce()) -> (Vec<Change>, Snapshot, Snapshot, Store) {
    let git = Git::default();
    let repo = found(&git, dir);
    let store = Store::new();
    let opts = SnapshotOptions::default();

    // `git status` itself refreshes a split index's shared file, so it runs before the
    // inventory is taken and after it is compared.
    let status = status_v2(&repo.top);
    let inv = snapshot_of(&repo);
    let base = snapshot::take(&git, &repo, &store.private(), &opts).unwrap();
    let index_store = Store::new();
    let index_base = snapshot::take(&git, &repo, &index_store.private(), &opts).unwrap();
    assert_eq!(index_base, base);
    // A large index's walk (two processes side by side) finds what one `git status` finds.
    let split = SnapshotOptions {
        split_walk_from: 0,
        ..opts.clone()
    };
    let split_store = Store::new();
    let split_base = snapshot::take(&git, &repo, &split_store.private(), &split).unwrap();
    assert_eq!(split_base, base, "the split walk's baseline differs");
    // The hook's UserPromptSubmit, once leaving the tree to the Stop, once writing it.
    let (turn_store, tree_store) = (Store::new(), Store::new());
    let deferring = |store: &Store, up_to| {
        snapshot::baseline_deferring_up_to(&git, &repo, &store.private(), &opts, up_to).unwrap()
    };
    // (Deferred unless there is no private index at all: an unborn repository, nothing
    // staged.)
    let turn_base = deferring(&turn_store, u64::MAX);
    assert_eq!(turn_base.oversized, base.oversized);
    if !turn_base.tree_deferred() {
        assert_eq!(turn_base, base);
    }
    assert_eq!(deferring(&tree_store, 0), base);
    assert_same(&inv, &snapshot_of(&repo), "baseline snapshot");
    assert_eq!(
        status,
        status_v2(&repo.top),
        "baseline snapshot changed git status"
    );

    turn();

    let status = status_v2(&repo.top);
    let inv = snapshot_of(&repo);
    let head = snapshot::take(&git, &repo, &store.private(), &opts).unwrap();
    let changes = diff::diff(&git, &repo, &store.private(), &base, &head).unwrap();
    let split_head = snapshot::take(&git, &repo, &split_store.private(), &split).unwrap();
    assert_eq!(split_head, head, "the split walk's snapshot differs");
    // The Stop's way, on a second private index seeded at the same baseline: stage the
    // working tree and diff the index against the baseline tree. Same changes, byte for byte.
    let staged = snapshot::stage(&git, &repo, &index_store.private(), &opts).unwrap();
    let by_index = diff::diff_index(&git, &repo, &index_store.private(), &base, &staged).unwrap();
    assert_eq!(
        by_index, changes,
        "the index diff differs from the tree diff"
    );
    // The hook's Stop, on the private indexes seeded at the same baseline: whichever way it
    // takes, with the baseline's tree written now or then, the same changes, byte for byte.
    // (The second with the split walk.)
    for (store, base, opts) in [
        (&turn_store, &turn_base, &opts),
        (&tree_store, &base, &split),
    ] {
        let stop = turn::changes_since(&git, &repo, &store.private(), opts, base).unwrap();
        assert_eq!(
            stop.changes,
            changes,
            "the Stop's {} diff, tree written {}, differs from the tree diff",
            stop.way.name(),
            if base.tree_deferred() { "now" } else { "then" }
        );
    }
    assert_same(&inv, &snapshot_of(&repo), "current snapshot and diff");
    assert_eq!(
        status,
        status_v2(&repo.top),
        "current snapshot changed git status"
    );
    (changes, base, head, store)
}

fn summary(changes: &[Change]) -> Vec<(String, Status)> {
    changes
        .iter()
        .map(|c| (String::from_utf8_lossy(&c.path).into_owned(), c.status))
        .collect()
}

fn patch_of<'a>(changes: &'a [Change], path: &str) -> &'a str {
    let c = changes
        .iter()
        .find(|c| c.path == path.as_bytes())
        .unwrap_or_else(|| panic!("no change for {path}"));
    std::str::from_utf8(&c.patch).unwrap()
}

/// A committed repository with a few files in nested directories.
fn base_repo() -> TestRepo {
    let repo = TestRepo::new();
    repo.write("a.txt", "one\ntwo\nthree\n")
        .write("b.txt", "bee\n")
        .write("src/lib.rs", "fn main() {}\n")
        .write("src/deep/mod.rs", "pub fn f() -> u8 { 1 }\n")
        .write(
            "docs/guide.md",
            (1..=20).map(|i| format!("line {i}\n")).collect::<String>(),
        )
        .commit_all("base");
    repo
}

fn set_mode(path: &Path, mode: u32) {
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(mode)).unwrap();
}

use Status::*;

#[test]
fn staged_change_at_baseline_stays_out_of_the_turn() {
    let r = base_repo();
    r.write("a.txt", "staged\n");
    r.git(&["add", "a.txt"]);
    let (changes, ..) = run_turn(r.path(), || {
        r.write("b.txt", "bee\nsecond\n");
    });
    assert_eq!(summary(&changes), [("b.txt".into(), Modified)]);
    assert!(patch_of(&changes, "b.txt").contains("\n+second\n"));
}

#[test]
fn unstaged_change_at_baseline_stays_out_of_the_turn() {
    let r = base_repo();
    r.write("a.txt", "unstaged edit\n");
    let (changes, ..) = run_turn(r.path(), || {
        r.write("a.txt", "unstaged edit\nturn edit\n");
    });
    assert_eq!(summary(&changes), [("a.txt".into(), Modified)]);
    let patch = patch_of(&changes, "a.txt");
    assert!(patch.contains("\n unstaged edit\n+turn edit\n"), "{patch}");
}

#[test]
fn untracked_and_ignored_files() {
    let r = base_repo();
    r.write(".gitignore", "*.log\n").commit_all("ignore");
    r.write("notes.txt", "untracked at baseline\n")
        .write("old.log", "ignored at baseline\n");
    let (changes, ..) = run_turn(r.path(), || {
        r.write("new.log", "ignored in turn\n")
            .write("notes.txt", "untracked at baseline\nedited\n")
            .write("fresh/new.txt", "new\n");
    });
    assert_eq!(
        summary(&changes),
        [
            ("fresh/new.txt".into(), Added),
            ("notes.txt".into(), Modified)
        ]
    );
}

/// Both walks (one `git status`, and on a large index `ls-files --others` beside it; `run_turn`
/// takes every snapshot both ways) find exactly the new files `git status
/// --untracked-files=all` finds, under every ignore source: `.gitignore` at the top and below
/// it with negations, `info/exclude`, `core.excludesFile`, an embedded repository, a name
/// with a newline, a directory that only the turn created.
#[test]
fn new_files_are_the_ones_git_status_finds() {
    let r = base_repo();
    let excludes = r.path().join("x-excludes");
    std::fs::write(&excludes, "*.bak\n").unwrap();
    r.git(&["config", "core.excludesFile", excludes.to_str().unwrap()]);
    r.write(
        ".gitignore",
        "build/\n*.tmp\n!keep.tmp\nlogs/*\n!logs/keep.log\nx-excludes\n",
    )
    .write("sub/.gitignore", "local.txt\n")
    .commit_all("ignore rules");
    std::fs::write(r.path().join(".git/info/exclude"), "secret.txt\n").unwrap();
    r.git(&["init", "-q", "vendor/inner"]);
    r.write("vendor/inner/first.txt", "inside an embedded repository\n");
    let (changes, ..) = run_turn(r.path(), || {
        for path in [
            "build/out.o",
            "a.tmp",
            "keep.tmp",
            "logs/x.log",
            "logs/keep.log",
            "secret.txt",
            "file.bak",
            "sub/local.txt",
            "sub/other.txt",
            "vendor/inner/new.txt",
            "name with\nnewline.txt",
            "deep/er/still/new.rs",
        ] {
            r.write(path, "new in the turn\n");
        }
    });
    let mut found: Vec<String> = r
        .git(&["status", "--porcelain=v2", "-z", "--untracked-files=all"])
        .split('\0')
        .filter_map(|rec| rec.strip_prefix("? "))
        .filter(|path| !path.ends_with('/'))
        .map(str::to_owned)
        .collect();
    found.sort();
    assert_eq!(
        found,
        [
            "deep/er/still/new.rs",
            "keep.tmp",
            "logs/keep.log",
            "name with\nnewline.txt",
            "sub/other.txt"
        ]
    );
    let added: Vec<(String, Status)> = found.into_iter().map(|p| (p, Added)).collect();
    assert_eq!(summary(&changes), added);
}

#[test]
fn add_modify_delete_in_the_turn() {
    let r = base_repo();
    let (changes, ..) = run_turn(r.path(), || {
        r.write("added.rs", "new file\n")
            .write("src/deep/mod.rs", "pub fn f() -> u8 { 2 }\n")
            .remove("b.txt");
    });
    assert_eq!(
        summary(&changes),
        [
            ("added.rs".into(), Added),
            ("b.txt".into(), Deleted),
            ("src/deep/mod.rs".into(), Modified)
        ]
    );
    assert!(patch_of(&changes, "b.txt").contains("\n-bee\n"));
    assert!(patch_of(&changes, "added.rs").starts_with("diff --git a/added.rs b/added.rs\n"));
}

#[test]
fn rename_is_detected_at_fifty_percent() {
    let r = base_repo();
    let (changes, ..) = run_turn(r.path(), || {
        std::fs::rename(
            r.path().join("docs/guide.md"),
            r.path().join("docs/manual.md"),
        )
        .unwrap();
    });
    assert_eq!(summary(&changes), [("docs/manual.md".into(), Renamed)]);
    assert_eq!(changes[0].old_path.as_deref(), Some(&b"docs/guide.md"[..]));
}

#[test]
fn mode_change_symlink_and_binary() {
    let r = base_repo();
    let (changes, ..) = run_turn(r.path(), || {
        set_mode(&r.path().join("a.txt"), 0o755);
        std::os::unix::fs::symlink("a.txt", r.path().join("link")).unwrap();
        r.write("logo.bin", b"\x89PNG\0\0\x01\x02binary\0body");
    });
    assert_eq!(
        summary(&changes),
        [
            ("a.txt".into(), Modified),
            ("link".into(), Added),
            ("logo.bin".into(), Added)
        ]
    );
    assert!(patch_of(&changes, "a.txt").contains("new mode 100755"));
    assert!(patch_of(&changes, "link").contains("new file mode 120000"));
    let bin = &changes[2];
    assert!(bin.binary && bin.patch.is_empty());
}

#[test]
fn file_becomes_directory_and_type_change() {
    let r = base_repo();
    let (changes, ..) = run_turn(r.path(), || {
        r.remove("b.txt").write("b.txt/inner.txt", "now a dir\n");
        r.remove("a.txt");
        std::os::unix::fs::symlink("b.txt/inner.txt", r.path().join("a.txt")).unwrap();
    });
    assert_eq!(
        summary(&changes),
        [
            ("a.txt".into(), TypeChanged),
            ("b.txt".into(), Deleted),
            ("b.txt/inner.txt".into(), Added)
        ]
    );
}

#[test]
fn submodule_pointer_change() {
    let r = base_repo();
    let sub = r.path().join("sub");
    std::fs::create_dir(&sub).unwrap();
    let inner = |args: &[&str]| {
        let out = crate::support::git_in(&sub, args);
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
    };
    inner(&["init", "-q", "-b", "main"]);
    std::fs::write(sub.join("s.txt"), "1\n").unwrap();
    inner(&["add", "."]);
    inner(&["commit", "-qm", "one"]);
    r.git(&["add", "sub"]);
    r.git(&["commit", "-qm", "gitlink"]);
    let (changes, ..) = run_turn(r.path(), || {
        std::fs::write(sub.join("s.txt"), "2\n").unwrap();
        inner(&["commit", "-qam", "two"]);
    });
    assert_eq!(summary(&changes), [("sub".into(), Modified)]);
    assert!(patch_of(&changes, "sub").contains("+Subproject commit "));
}

#[test]
fn unborn_repository_without_an_index() {
    let r = TestRepo::new();
    r.write("first.txt", "hello\n");
    assert!(!r.path().join(".git/index").exists());
    let (changes, ..) = run_turn(r.path(), || {
        r.write("first.txt", "hello\nworld\n")
            .write("second.txt", "2\n");
    });
    assert_eq!(
        summary(&changes),
        [("first.txt".into(), Modified), ("second.txt".into(), Added)]
    );
}

#[test]
fn linked_worktree() {
    let r = base_repo();
    let wt_parent = tempfile::tempdir().unwrap();
    let wt = wt_parent.path().join("wt");
    r.git(&["worktree", "add", "-q", "-b", "side", wt.to_str().unwrap()]);
    crate::support::git_in(&wt, &["status"]);
    let repo = found(&Git::default(), &wt);
    assert_ne!(repo.git_dir, repo.common_dir);
    assert_eq!(repo.index, repo.git_dir.join("index"));
    std::fs::write(wt.join("a.txt"), "baseline edit\n").unwrap();
    let (changes, ..) = run_turn(&wt, || {
        std::fs::write(wt.join("c.txt"), "in the worktree\n").unwrap();
    });
    assert_eq!(summary(&changes), [("c.txt".into(), Added)]);
}

#[test]
fn split_index() {
    let r = base_repo();
    r.git(&["update-index", "--split-index"]);
    r.write("a.txt", "changed\n");
    r.git(&["add", "a.txt"]);
    let shared: Vec<_> = std::fs::read_dir(r.path().join(".git"))
        .unwrap()
        .flatten()
        .filter(|e| e.file_name().to_string_lossy().starts_with("sharedindex."))
        .collect();
    assert!(!shared.is_empty(), "the fixture must have a split index");
    let (changes, ..) = run_turn(r.path(), || {
        r.write("b.txt", "bee\nmore\n");
    });
    assert_eq!(summary(&changes), [("b.txt".into(), Modified)]);
}

#[test]
fn sha256_repository() {
    let r = TestRepo::with_init_args(&["--object-format=sha256"]);
    r.write("a.txt", "x\n").commit_all("base");
    let repo = found(&Git::default(), r.path());
    assert_eq!(repo.format, git::ObjectFormat::Sha256);
    let (changes, base, ..) = run_turn(r.path(), || {
        r.write("a.txt", "y\n");
    });
    assert_eq!(base.tree.len(), 64);
    assert_eq!(summary(&changes), [("a.txt".into(), Modified)]);
}

#[test]
fn sparse_checkout() {
    let r = base_repo();
    r.git(&["sparse-checkout", "set", "--cone", "src"]);
    assert!(!r.path().join("docs/guide.md").exists());
    let (changes, ..) = run_turn(r.path(), || {
        r.write("src/lib.rs", "fn main() { changed() }\n");
    });
    assert_eq!(summary(&changes), [("src/lib.rs".into(), Modified)]);
}

#[test]
fn index_held_by_someone_else() {
    let r = base_repo();
    r.write(".git/index.lock", "held by another git\n");
    let (changes, ..) = run_turn(r.path(), || {
        r.write("a.txt", "edited while locked\n");
    });
    assert_eq!(summary(&changes), [("a.txt".into(), Modified)]);
    assert!(r.path().join(".git/index.lock").exists());
}

#[test]
fn hard_paths_round_trip() {
    let r = base_repo();
    let names: Vec<Vec<u8>> = vec![
        b"with space.txt".to_vec(),
        b"quo\"te.txt".to_vec(),
        b"-leading-dash".to_vec(),
        b"new\nline".to_vec(),
        b"tab\there".to_vec(),
        b"back\\slash".to_vec(),
        b"caf\xe9-latin1".to_vec(),
        "ünïcode.rs".as_bytes().to_vec(),
    ];
    use std::os::unix::ffi::OsStrExt;
    let path_of = |n: &[u8]| r.path().join(std::ffi::OsStr::from_bytes(n));
    std::fs::write(path_of(b"with space.txt"), "committed\n").unwrap();
    r.commit_all("space");
    let (changes, ..) = run_turn(r.path(), || {
        for n in &names {
            let mut body = b"content of ".to_vec();
            body.extend_from_slice(n);
            body.push(b'\n');
            std::fs::write(path_of(n), body).unwrap();
        }
    });
    let mut want = names.clone();
    want.sort();
    let got: Vec<Vec<u8>> = changes.iter().map(|c| c.path.clone()).collect();
    assert_eq!(got, want);
    for c in &changes {
        let mut line = b"\n+content of ".to_vec();
        line.extend_from_slice(&c.path);
        line.push(b'\n');
        let hit = c.patch.windows(line.len()).any(|w| w == line.as_slice());
        let newline_name = c.path.contains(&b'\n');
        assert!(
            hit || newline_name,
            "{:?}",
            String::from_utf8_lossy(&c.patch)
        );
    }
}

#[test]
fn unmerged_index_at_baseline() {
    let r = base_repo();
    r.git(&["checkout", "-q", "-b", "other"]);
    r.write("a.txt", "other side\n").commit_all("other");
    r.git(&["checkout", "-q", "main"]);
    r.write("a.txt", "main side\n").commit_all("main");
    let out = crate::support::git_in(r.path(), &["merge", "-q", "other"]);
    assert!(!out.status.success(), "the fixture needs a conflict");
    let (changes, ..) = run_turn(r.path(), || {
        r.write("a.txt", "resolved\n");
    });
    assert_eq!(summary(&changes), [("a.txt".into(), Modified)]);
}

#[test]
fn nothing_changed_means_no_changes_and_no_tree_write() {
    let r = base_repo();
    r.write("a.txt", "dirty at baseline\n");
    let (changes, base, head, _store) = run_turn(r.path(), || {});
    assert!(changes.is_empty());
    assert_eq!(base.tree, head.tree);
}

#[test]
fn tree_cache_keeps_unchanged_trees_across_prompts() {
    let r = base_repo();
    let git = Git::default();
    let repo = found(&git, r.path());
    let store = Store::new();
    let opts = SnapshotOptions::default();
    let count = || walkdir_files(&store.dir.path().join("trees/objects"));
    snapshot::take(&git, &repo, &store.private(), &opts).unwrap();
    let first = count();
    assert!(first >= 4, "root, src, src/deep, docs: {first}");
    snapshot::purge_prompt(&store.private()).unwrap();
    assert!(!store.private().prompt.exists());
    r.write("src/deep/mod.rs", "pub fn f() -> u8 { 3 }\n");
    snapshot::take(&git, &repo, &store.private(), &opts).unwrap();
    // Only the changed path's trees are new: src/deep, src and the root.
    assert_eq!(count(), first + 3);
}

fn walkdir_files(dir: &Path) -> usize {
    let mut n = 0;
    for e in std::fs::read_dir(dir).into_iter().flatten().flatten() {
        if e.file_type().unwrap().is_dir() {
            n += walkdir_files(&e.path());
        } else {
            n += 1;
        }
    }
    n
}

/// Many snapshots of one prompt, each round changing the tree at once after the last snapshot
/// (no sleep, so file and directory mtimes and the private index's own timestamp are as close
/// as they get): every snapshot must still see every change — files added to a directory the
/// previous round added files to, to a new nested directory, removed, and revealed by a
/// `.gitignore` edit. (With git's untracked cache in the private index, this failed within a
/// few rounds: the cache is not used.)
#[test]
fn changes_made_right_after_a_snapshot_are_all_seen() {
    let r = base_repo();
    r.write(".gitignore", "*.log\n").commit_all("ignore");
    r.write("src/untracked-at-baseline.txt", "u\n")
        .write("keep.log", "ignored\n");
    let git = Git::default();
    let repo = found(&git, r.path());
    let store = Store::new();
    let opts = SnapshotOptions::default();
    let base = snapshot::take(&git, &repo, &store.private(), &opts).unwrap();
    let mut expected: Vec<(String, Status)> = Vec::new();
    for round in 0..25 {
        let added = format!("src/added-{round}.rs");
        let nested = format!("fresh/{round}/deep/new.txt");
        r.write(&added, format!("pub fn f{round}() {{}}\n"))
            .write(&nested, "new\n");
        expected.push((added, Added));
        expected.push((nested, Added));
        if round == 10 {
            r.remove("src/untracked-at-baseline.txt");
            expected.push(("src/untracked-at-baseline.txt".into(), Deleted));
        }
        if round == 20 {
            r.write(".gitignore", "*.tmp\n");
            expected.push((".gitignore".into(), Modified));
            expected.push(("keep.log".into(), Added));
        }
        let head = snapshot::take(&git, &repo, &store.private(), &opts).unwrap();
        let changes = diff::diff(&git, &repo, &store.private(), &base, &head).unwrap();
        let mut want = expected.clone();
        want.sort();
        let mut got = summary(&changes);
        got.sort();
        assert_eq!(got, want, "round {round}");
    }
}

/// `eval` of the working tree diffs the private index against a tree (`diff-index --cached`)
/// instead of writing a tree of the working tree; both ways must give the same changes, byte
/// for byte, over every kind of change.
#[test]
fn index_diff_matches_tree_diff() {
    let r = base_repo();
    r.write("staged.txt", "staged\n");
    r.git(&["add", "staged.txt"]);
    // Intent-to-add entries, one small and one over the size cap.
    r.write("intent.txt", "intended\n")
        .write("intent-big.dat", vec![b'i'; 2048]);
    r.git(&["add", "-N", "intent.txt", "intent-big.dat"]);
    r.write("a.txt", "one\ntwo\nthree\nfour\n")
        .remove("b.txt")
        .write("notes/new.md", "# new\n")
        .write("logo.bin", b"\x89PNG\0\0\x01\x02binary\0body")
        .write("big.dat", vec![b'x'; 4096]);
    std::fs::rename(
        r.path().join("docs/guide.md"),
        r.path().join("docs/moved.md"),
    )
    .unwrap();
    set_mode(&r.path().join("src/lib.rs"), 0o755);
    std::os::unix::fs::symlink("a.txt", r.path().join("link")).unwrap();

    let git = Git::default();
    let repo = found(&git, r.path());
    let head_tree = r.git(&["rev-parse", "HEAD^{tree}"]).trim().to_owned();
    let opts = SnapshotOptions {
        untracked_cap: 1024,
        ..SnapshotOptions::default()
    };
    let inv = snapshot_of(&repo);

    let trees = Store::new();
    let snap = snapshot::take(&git, &repo, &trees.private(), &opts).unwrap();
    let base = Snapshot {
        tree: head_tree.clone(),
        oversized: Vec::new(),
        unread: 0,
    };
    let by_tree = diff::diff(&git, &repo, &trees.private(), &base, &snap).unwrap();

    let index = Store::new();
    let staged = snapshot::stage(&git, &repo, &index.private(), &opts).unwrap();
    let by_index = diff::diff_index(&git, &repo, &index.private(), &base, &staged).unwrap();
    assert_same(&inv, &snapshot_of(&repo), "stage and diff-index");

    assert_eq!(by_index, by_tree);
    let kinds: Vec<_> = summary(&by_index);
    for want in [
        ("a.txt", Modified),
        ("b.txt", Deleted),
        ("big.dat", Added),
        ("docs/moved.md", Renamed),
        // Over the cap, so metadata only; the private index holds its intent-to-add entry,
        // which counts as tracked (both ways agree, as asserted above).
        ("intent-big.dat", Modified),
        ("intent.txt", Added),
        ("link", Added),
        ("logo.bin", Added),
        ("notes/new.md", Added),
        ("src/lib.rs", Modified),
        ("staged.txt", Added),
    ] {
        assert!(
            kinds.contains(&(want.0.to_owned(), want.1)),
            "{want:?} missing from {kinds:?}"
        );
    }
    let big = by_index.iter().find(|c| c.path == b"big.dat").unwrap();
    assert_eq!(big.oversized, Some(4096));
}

/// A turn that changed nothing costs the Stop one walk (`status`; on a large index `status`
/// beside `ls-files`, in either order): the private index is still the baseline's tree, so
/// no `update-index` and no `diff-index` run. (A wrapper logs every git command the stages
/// start.)
#[test]
fn an_unchanged_turn_runs_no_diff() {
    unchanged_turn_runs_no_diff(SnapshotOptions::default(), &["status"]);
    let split = SnapshotOptions {
        split_walk_from: 0,
        ..SnapshotOptions::default()
    };
    unchanged_turn_runs_no_diff(split, &["ls-files", "status"]);
}

fn unchanged_turn_runs_no_diff(opts: SnapshotOptions, walk: &[&str]) {
    let r = base_repo();
    r.write("notes.txt", "untracked at baseline\n");
    let real = which_git();
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("log");
    let wrapper = dir.path().join("git");
    std::fs::write(
        &wrapper,
        format!(
            "#!/bin/sh\nskip=0\nfor a in \"$@\"; do\n  if [ $skip = 1 ]; then skip=0; continue; fi\n  case \"$a\" in -c) skip=1 ;; --no-pager) ;; *) echo \"$a\" >> '{}'; break ;; esac\ndone\nexec '{}' \"$@\"\n",
            log.display(),
            real.display()
        ),
    )
    .unwrap();
    set_mode(&wrapper, 0o755);
    let git = Git::new(wrapper);
    let repo = found(&git, r.path());
    let store = Store::new();
    let base = snapshot::take(&git, &repo, &store.private(), &opts).unwrap();
    std::fs::write(&log, "").unwrap();

    let staged = snapshot::stage(&git, &repo, &store.private(), &opts).unwrap();
    assert_eq!(staged.unchanged_tree.as_deref(), Some(base.tree.as_str()));
    let changes = diff::diff_index(&git, &repo, &store.private(), &base, &staged).unwrap();
    assert!(changes.is_empty(), "{changes:?}");
    let ran = || {
        let text = std::fs::read_to_string(&log).unwrap();
        let mut lines: Vec<String> = text.lines().map(str::to_owned).collect();
        lines.sort();
        lines
    };
    assert_eq!(ran(), walk);

    // One edit later, the index diff runs and finds it.
    r.write("b.txt", "bee\nedited\n");
    let staged = snapshot::stage(&git, &repo, &store.private(), &opts).unwrap();
    assert_eq!(staged.unchanged_tree, None);
    let changes = diff::diff_index(&git, &repo, &store.private(), &base, &staged).unwrap();
    assert_eq!(summary(&changes), [("b.txt".into(), Modified)]);
    let mut expected: Vec<&str> = [walk, walk, &["update-index", "diff-index"]].concat();
    expected.sort();
    assert_eq!(ran(), expected);
}

/// The git on `PATH`, resolved once for wrappers that must call the real one.
fn which_git() -> PathBuf {
    std::env::var_os("PATH")
        .and_then(|paths| {
            std::env::split_paths(&paths)
                .map(|p| p.join("git"))
                .find(|p| p.is_file())
        })
        .expect("git on PATH")
}
