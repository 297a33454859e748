//! The Stop's git work ([`jev_preflight::git::turn`]): how few processes it starts, and that
//! every shortcut it takes gives exactly what the long way gives — an attribute file anywhere
//! git would read one is honoured, and staging that depends on the index takes the long way.
#![cfg(unix)]

use std::path::{Path, PathBuf};

use jev_preflight::git::diff::{self, Change};
use jev_preflight::git::snapshot::{self, SnapshotOptions};
use jev_preflight::git::turn::{self, Turn, Way};
use jev_preflight::git::{self, Discovery, Git, Repo};
use serde_json::json;

use crate::snapshot_zero_writes::Store;
use crate::support::TestRepo;
use crate::support::hook::HookEnv;

/// A git that logs each subcommand it runs (one line each) before running the real one.
struct LoggedGit {
    _dir: tempfile::TempDir,
    bin: PathBuf,
    log: PathBuf,
}

impl LoggedGit {
    fn new() -> LoggedGit {
        let real = std::env::var_os("PATH")
            .and_then(|paths| {
                std::env::split_paths(&paths)
                    .map(|p| p.join("git"))
                    .find(|p| p.is_file())
            })
            .expect("git on PATH");
        let dir = tempfile::tempdir().unwrap();
        let log = dir.path().join("log");
        let bin = dir.path().join("bin");
        std::fs::create_dir(&bin).unwrap();
        let wrapper = bin.join("git");
        std::fs::write(
            &wrapper,
            format!(
                "#!/bin/sh\nskip=0\nfor a in \"$@\"; do\n  if [ $skip = 1 ]; then skip=0; continue; fi\n  case \"$a\" in -c) skip=1 ;; --no-pager) ;; *) echo \"$a\" >> '{log}'; echo \"$a ${{GIT_INDEX_FILE##*/}}\" >> '{log}.index'; break ;; esac\ndone\nexec '{real}' \"$@\"\n",
                log = log.display(),
                real = real.display()
            ),
        )
        .unwrap();
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&wrapper, std::fs::Permissions::from_mode(0o755)).unwrap();
        LoggedGit {
            _dir: dir,
            bin,
            log,
        }
    }

    fn git(&self) -> Git {
        Git::new(self.bin.join("git"))
    }

    /// The subcommands run since the last call, sorted (some run side by side).
    fn take(&self) -> Vec<String> {
        let _ = std::fs::remove_file(self.log.with_extension("index"));
        let text = std::fs::read_to_string(&self.log).unwrap_or_default();
        let _ = std::fs::remove_file(&self.log);
        let mut lines: Vec<String> = text.lines().map(str::to_owned).collect();
        lines.sort();
        lines
    }
}

impl LoggedGit {
    /// The index file (its name, empty for the repository's own) each subcommand run since
    /// the last call read, as `subcommand name` lines, sorted; also clears [`LoggedGit::take`].
    fn take_indexes(&self) -> Vec<String> {
        let path = self.log.with_extension("index");
        let text = std::fs::read_to_string(&path).unwrap_or_default();
        let _ = std::fs::remove_file(&path);
        let _ = std::fs::remove_file(&self.log);
        let mut lines: Vec<String> = text.lines().map(str::to_owned).collect();
        lines.sort();
        lines
    }
}

fn found(git: &Git, dir: &Path) -> Repo {
    match git::discover(git, dir).unwrap() {
        Discovery::Found(repo) => repo,
        other => panic!("expected a repository, got {other:?}"),
    }
}

/// The system attributes file of the git on `PATH`, if this machine has one: then no
/// shortcut may be taken, and the tests that expect one say so instead.
fn machine_has_system_attributes() -> bool {
    let out = std::process::Command::new("git")
        .args(["var", "GIT_ATTR_SYSTEM"])
        .output()
        .unwrap();
    let path = String::from_utf8_lossy(&out.stdout).trim().to_owned();
    let has = !path.is_empty() && Path::new(&path).exists();
    if has {
        eprintln!("note: {path} exists on this machine; the Stop must ask git for attributes");
    }
    has
}

fn base_repo() -> TestRepo {
    let r = TestRepo::new();
    r.write("a.txt", "one\ntwo\nthree\n")
        .write("src/lib.rs", "fn main() {}\n")
        .write("src/deep/mod.rs", "pub fn f() -> u8 { 1 }\n")
        .write("run.sh", "#!/bin/sh\necho hi\n")
        .commit_all("init");
    r
}

/// A baseline in fresh stores, then `turn`, then the Stop twice — after a baseline that left
/// its tree to the Stop (the hook's way on a small repository) and after one that wrote it —
/// and the long way (a third store, restaged whole and diffed against the tree): all three
/// must agree, byte for byte. Returns the Stop after each kind of baseline, in that order.
fn stop_after(r: &TestRepo, git: &Git, turn: impl FnOnce()) -> (Turn, Turn) {
    let repo = found(git, r.path());
    let opts = SnapshotOptions::default();
    let (store, tree_store, long) = (Store::new(), Store::new(), Store::new());
    let base = snapshot::baseline(git, &repo, &store.private(), &opts).unwrap();
    assert!(base.tree_deferred());
    let tree_base =
        snapshot::baseline_deferring_up_to(git, &repo, &tree_store.private(), &opts, 0).unwrap();
    let long_base = snapshot::take(git, &repo, &long.private(), &opts).unwrap();
    assert_eq!(tree_base, long_base);
    turn();
    let repo = match git::rediscover(git, &repo).unwrap() {
        Discovery::Found(repo) => repo,
        other => panic!("{other:?}"),
    };
    let staged = snapshot::stage(git, &repo, &long.private(), &opts).unwrap();
    let whole = diff::diff_index(git, &repo, &long.private(), &long_base, &staged).unwrap();
    let with_tree =
        turn::changes_since(git, &repo, &tree_store.private(), &opts, &tree_base).unwrap();
    assert_eq!(
        with_tree.changes,
        whole,
        "the {} way, tree written then",
        with_tree.way.name()
    );
    let stop = turn::changes_since(git, &repo, &store.private(), &opts, &base).unwrap();
    assert_eq!(
        stop.changes,
        whole,
        "the {} way, tree left to the Stop",
        stop.way.name()
    );
    (stop, with_tree)
}

fn names(changes: &[Change]) -> Vec<String> {
    changes
        .iter()
        .map(|c| String::from_utf8_lossy(&c.path).into_owned())
        .collect()
}

/// The hook as Claude Code runs it, with a git that logs: on a small repository without
/// attribute files a Stop whose turn edited a file and added one starts `config`, `status`
/// and `diff-files` — no `add -N` (the new file's change is written without git, as no path
/// is gone), no `check-attr`, no blob, index or tree written for the turn, no second walk
/// process (that is for large indexes) — and its decision log says it took the files way;
/// the session's next prompt starts three.
#[test]
fn a_stop_starts_three_git_processes_and_a_prompt_three() {
    let r = base_repo();
    r.write("untracked.txt", "at baseline\n");
    let logged = LoggedGit::new();
    let env = HookEnv::new().var(
        "PATH",
        &format!(
            "{}:{}",
            logged.bin.display(),
            std::env::var("PATH").unwrap_or_default()
        ),
    );
    let event = |name: &str| {
        json!({"hook_event_name": name, "session_id": "s", "prompt_id": "p",
               "cwd": r.path(), "prompt": "go", "stop_hook_active": false})
    };
    let next = |name: &str| {
        json!({"hook_event_name": name, "session_id": "s", "prompt_id": "p2",
               "cwd": r.path(), "prompt": "go", "stop_hook_active": false})
    };
    let outcome = |out: &crate::support::hook::HookResult| {
        out.ok();
        out.stderr
            .trim()
            .rsplit(": ")
            .next()
            .unwrap_or_default()
            .to_owned()
    };
    let out = env.run(&event("UserPromptSubmit"));
    assert_eq!(outcome(&out), "baseline taken", "{out:?}");
    // A small repository's baseline is its private index: its tree waits for the Stop.
    assert_eq!(
        logged.take(),
        ["config", "rev-parse", "status", "update-index", "var"]
    );

    r.write("src/lib.rs", "fn main() { run() }\n")
        .write("src/new.rs", "pub fn run() {}\n");
    let out = env.run(&event("Stop"));
    assert!(
        ["below threshold", "continued"].contains(&outcome(&out).as_str()),
        "{out:?}"
    );
    let ran = logged.take();
    let log = std::fs::read_to_string(env.data.join("decisions.jsonl")).unwrap();
    let entry: serde_json::Value = serde_json::from_str(log.lines().last().unwrap()).unwrap();
    if machine_has_system_attributes() {
        assert!(ran.contains(&"check-attr".to_owned()), "{ran:?}");
        return;
    }
    assert_eq!(ran, ["config", "diff-files", "status"]);
    assert_eq!(entry["diff"], "files", "{entry}");

    // The session's next prompt from the same directory: the repository it found is
    // remembered, so neither `rev-parse` nor `git var` runs again.
    let out = env.run(&next("UserPromptSubmit"));
    assert_eq!(outcome(&out), "baseline taken", "{out:?}");
    assert_eq!(logged.take(), ["config", "status", "update-index"]);
}

/// New files' changes written without git are git's own, byte for byte — text with and
/// without a last newline, empty, one line, binary, executable, a symbolic link, names git
/// quotes or ends with a tab — and git marks them intent-to-add instead when a path is gone
/// (a rename may pair them). With `core.bigFileThreshold` set, git's diff of the working tree
/// and of blobs disagree on binary files, so the files way is not taken at all.
#[test]
fn new_files_are_written_as_git_writes_them() {
    let added = |r: &TestRepo| {
        r.write("src/lib.rs", "fn main() { edited() }\n")
            .write("new.txt", "one\ntwo\nthree\n")
            .write("no newline.txt", "last line")
            .write("empty", "")
            .write("one", "x\n")
            .write("caf\u{e9} \"q\".md", "quoted\r\nname\n")
            .write("logo.bin", b"\x89PNG\0\0body".as_slice())
            .write("deep/er/new.rs", "pub fn f() {}\n");
        use std::os::unix::fs::PermissionsExt;
        r.write("tool.sh", "#!/bin/sh\n");
        let p = r.path().join("tool.sh");
        std::fs::set_permissions(&p, std::fs::Permissions::from_mode(0o755)).unwrap();
        std::os::unix::fs::symlink("new.txt", r.path().join("link")).unwrap();
    };
    let logged = LoggedGit::new();
    let logging = logged.git();
    let r = base_repo();
    let (stop, _) = stop_after(&r, &logging, || added(&r));
    assert_eq!(stop.way, Way::Files);
    assert_eq!(stop.changes.len(), 10, "{:?}", names(&stop.changes));
    assert!(!logged.take().contains(&"add".to_owned()));

    // A path gone: a rename may pair it with a new file, so git sees them together.
    let r = base_repo();
    let (stop, _) = stop_after(&r, &logging, || {
        added(&r);
        r.remove("a.txt");
    });
    assert_eq!(stop.way, Way::Files);
    assert!(logged.take().contains(&"add".to_owned()));

    // Git's diff calls a blob over the threshold binary, but not a symbolic link it reads
    // from the working tree: the files way is not exact, and the whole way is taken.
    let r = base_repo();
    r.git(&["config", "core.bigFileThreshold", "5"]);
    let (stop, _) = stop_after(&r, &logging, || added(&r));
    assert_eq!(stop.way, Way::Whole);
}

/// A turn that changed nothing runs one walk after the config (`status`, or on a large
/// index `status` for the tracked files beside `ls-files` for the untracked ones): no diff,
/// and no tree written for the baseline.
#[test]
fn an_unchanged_turn_runs_one_walk() {
    let r = base_repo();
    let logged = LoggedGit::new();
    let git = logged.git();
    let repo = found(&git, r.path());
    let split = SnapshotOptions {
        split_walk_from: 0,
        ..SnapshotOptions::default()
    };
    for (opts, walk) in [
        (SnapshotOptions::default(), &["status"][..]),
        (split, &["ls-files", "status"][..]),
    ] {
        let store = Store::new();
        let base = snapshot::baseline(&git, &repo, &store.private(), &opts).unwrap();
        logged.take();
        let stop = turn::changes_since(&git, &repo, &store.private(), &opts, &base).unwrap();
        assert_eq!(stop.way, Way::Nothing);
        assert!(stop.changes.is_empty());
        assert_eq!(logged.take(), walk);
    }
}

/// A baseline whose saved index is gone (its store was removed under it) fails the Stop:
/// it must never diff the working tree against an empty index, which would make every file of
/// the repository look added.
#[test]
fn a_deferred_baseline_without_its_index_fails() {
    let r = base_repo();
    let git = Git::default();
    let repo = found(&git, r.path());
    let store = Store::new();
    let opts = SnapshotOptions::default();
    let base = snapshot::baseline(&git, &repo, &store.private(), &opts).unwrap();
    assert!(base.tree_deferred());
    std::fs::remove_dir_all(&store.private().prompt).unwrap();
    r.write("a.txt", "changed\n");
    let stop = turn::changes_since(&git, &repo, &store.private(), &opts, &base);
    assert!(stop.is_err(), "{:?}", stop.map(|t| names(&t.changes)));
}

/// Edits, additions, deletions, renames, mode changes, odd names: the files way (a small
/// repository's baseline) and the limited way (a baseline with its tree) give the long way's
/// diff, byte for byte (`stop_after` compares them). A directory where a file was takes the
/// whole way, because staging it depends on the old entry; the result is the same.
#[test]
fn the_short_ways_match_the_long_way() {
    let r = base_repo();
    r.write("gone.txt", "bye\n").commit_all("more");
    let git = Git::default();
    let (stop, with_tree) = stop_after(&r, &git, || {
        r.write("a.txt", "one\n2\nthree\n")
            .write("src/renamed.rs", "fn main() {}\n")
            .remove("src/lib.rs")
            .remove("gone.txt")
            .write("-dash file\n.txt", "odd name\n");
        use std::os::unix::fs::PermissionsExt;
        let p = r.path().join("run.sh");
        std::fs::set_permissions(&p, std::fs::Permissions::from_mode(0o755)).unwrap();
    });
    assert_eq!(
        names(&stop.changes),
        [
            "-dash file\n.txt",
            "a.txt",
            "gone.txt",
            "run.sh",
            "src/renamed.rs"
        ]
    );
    assert_eq!(stop.way, Way::Files);
    if !machine_has_system_attributes() {
        assert_eq!(with_tree.way, Way::Limited);
    }

    let r = base_repo();
    r.write("gone.txt", "bye\n").commit_all("more");
    let (stop, with_tree) = stop_after(&r, &git, || {
        r.remove("gone.txt")
            .write("gone.txt/inside.txt", "now a directory\n");
    });
    assert_eq!(names(&stop.changes), ["gone.txt", "gone.txt/inside.txt"]);
    assert_eq!((stop.way, with_tree.way), (Way::Whole, Way::Whole));
}

/// When no tracked path is gone, the files way diffs from a small index of just the changed
/// paths' baseline entries, which the walk named, instead of the whole private index: edits,
/// an executable bit, a symbolic link's new target, odd names, and a file already changed
/// (and staged) at the baseline, whose baseline entry is not HEAD's. Byte for byte the long
/// way's diff.
#[test]
fn the_files_way_diffs_from_a_small_index_of_the_changed_entries() {
    let r = base_repo();
    std::os::unix::fs::symlink("a.txt", r.path().join("link")).unwrap();
    r.write("spaced name.txt", "x\n").commit_all("more");
    r.write("src/deep/mod.rs", "pub fn f() -> u8 { 2 }\n");
    r.git(&["add", "src/deep/mod.rs"]);
    r.write("src/lib.rs", "fn main() { dirty(); }\n");
    let git = Git::default();
    let (stop, _) = stop_after(&r, &git, || {
        r.write("a.txt", "one\n2\nthree\n")
            .write("src/deep/mod.rs", "pub fn f() -> u8 { 3 }\n")
            .write("src/lib.rs", "fn main() { dirtier(); }\n")
            .write("spaced name.txt", "y\n")
            .write("new\nline.txt", "new\n");
        std::fs::remove_file(r.path().join("link")).unwrap();
        std::os::unix::fs::symlink("run.sh", r.path().join("link")).unwrap();
        use std::os::unix::fs::PermissionsExt;
        let p = r.path().join("run.sh");
        std::fs::set_permissions(&p, std::fs::Permissions::from_mode(0o755)).unwrap();
    });
    assert_eq!(stop.way, Way::Files);
    assert_eq!(
        names(&stop.changes),
        [
            "a.txt",
            "link",
            "new\nline.txt",
            "run.sh",
            "spaced name.txt",
            "src/deep/mod.rs",
            "src/lib.rs"
        ]
    );
    let deep = &stop.changes[5];
    let patch = String::from_utf8_lossy(&deep.patch);
    assert!(
        patch.contains("-pub fn f() -> u8 { 2 }") && patch.contains("+pub fn f() -> u8 { 3 }"),
        "the baseline is the staged content, not HEAD's: {patch}"
    );
}

/// A turn that only changed tracked files — the most common turn: edits, a deletion, an
/// executable bit, nothing new — also diffs from the small index (the turn's own, not the
/// whole private index) and marks nothing intent-to-add, byte for byte the long way's diff.
#[test]
fn a_turn_without_new_files_diffs_from_the_small_index_too() {
    let r = base_repo();
    r.write("spaced name.txt", "x\n").commit_all("more");
    let logged = LoggedGit::new();
    let logging = logged.git();
    let (stop, _) = stop_after(&r, &logging, || {
        logged.take();
        r.write("a.txt", "one\n2\nthree\n")
            .write("spaced name.txt", "y\n");
        r.remove("src/lib.rs");
        use std::os::unix::fs::PermissionsExt;
        let p = r.path().join("run.sh");
        std::fs::set_permissions(&p, std::fs::Permissions::from_mode(0o755)).unwrap();
    });
    assert_eq!(stop.way, Way::Files);
    assert_eq!(
        names(&stop.changes),
        ["a.txt", "run.sh", "spaced name.txt", "src/lib.rs"]
    );
    let ran = logged.take_indexes();
    let diffs: Vec<&String> = ran.iter().filter(|l| l.starts_with("diff-files")).collect();
    assert_eq!(diffs, ["diff-files turn-index"], "{ran:?}");
    assert!(!ran.iter().any(|l| l.starts_with("add ")), "{ran:?}");
}

/// An attribute file anywhere git would read one is honoured: in a parent directory of a
/// changed path (committed, or added during the turn), named by `core.attributesFile`, or in
/// `info/attributes`. With any of them present `check-attr` runs, beside the diff.
#[test]
fn attributes_on_the_way_to_a_changed_path_are_still_honoured() {
    let git = Git::default();

    // A committed `.gitattributes` two directories up.
    let r = base_repo();
    r.write("lib/.gitattributes", "gen/** linguist-generated\n")
        .commit_all("attributes");
    let (stop, with_tree) = stop_after(&r, &git, || {
        r.write("lib/gen/api.rs", "pub fn api() {}\n")
            .write("src/lib.rs", "fn main() { 1 }\n");
    });
    assert_eq!((stop.way, with_tree.way), (Way::Whole, Way::Whole));
    for stop in [&stop, &with_tree] {
        assert!(
            stop.attributes.generated.contains(&b"lib/gen/api.rs"[..]),
            "{:?}",
            stop.attributes
        );
    }

    // One the turn itself adds at the top.
    let r = base_repo();
    let (stop, with_tree) = stop_after(&r, &git, || {
        r.write(".gitattributes", "*.txt -diff\n")
            .write("a.txt", "changed\n");
    });
    assert!(stop.attributes.no_diff.contains(&b"a.txt"[..]));
    assert!(with_tree.attributes.no_diff.contains(&b"a.txt"[..]));
    assert_eq!((stop.way, with_tree.way), (Way::Whole, Way::Whole));

    // `core.attributesFile` and `info/attributes`.
    let r = base_repo();
    let elsewhere = tempfile::tempdir().unwrap();
    let global = elsewhere.path().join("attributes");
    std::fs::write(&global, "src/** linguist-vendored\n").unwrap();
    r.git(&["config", "core.attributesFile", global.to_str().unwrap()]);
    std::fs::write(
        r.path().join(".git/info/attributes"),
        "a.txt linguist-generated\n",
    )
    .unwrap();
    let (stop, with_tree) = stop_after(&r, &git, || {
        r.write("a.txt", "changed\n")
            .write("src/lib.rs", "fn main() { 2 }\n");
    });
    for stop in [&stop, &with_tree] {
        assert!(stop.attributes.vendored.contains(&b"src/lib.rs"[..]));
        assert!(stop.attributes.generated.contains(&b"a.txt"[..]));
    }
}

/// Where staging a file looks at the entry it replaces, the short ways step aside and the
/// Stop restages the private index whole: an executable bit git is told not to trust, line
/// endings git converts only when the old blob had none (and converts differently when it
/// diffs), and a `.gitattributes` only the index has.
#[test]
fn staging_that_reads_the_old_entry_takes_the_long_way() {
    let git = Git::default();

    let r = base_repo();
    r.git(&["update-index", "--chmod=+x", "run.sh"]);
    r.git(&["commit", "-q", "-m", "exec"]);
    r.git(&["config", "core.fileMode", "false"]);
    let (stop, with_tree) = stop_after(&r, &git, || {
        r.write("run.sh", "#!/bin/sh\necho changed\n");
    });
    assert_eq!((stop.way, with_tree.way), (Way::Whole, Way::Whole));
    assert!(
        !String::from_utf8_lossy(&stop.changes[0].patch).contains("mode"),
        "the mode the index keeps must not change: {:?}",
        String::from_utf8_lossy(&stop.changes[0].patch)
    );

    let r = base_repo();
    r.write("crlf.txt", "one\r\ntwo\r\n").commit_all("crlf");
    r.git(&["config", "core.autocrlf", "true"]);
    let (stop, with_tree) = stop_after(&r, &git, || {
        r.write("crlf.txt", "one\r\ntwo\r\nthree\r\n");
    });
    assert_eq!((stop.way, with_tree.way), (Way::Whole, Way::Whole));

    // A `.gitattributes` the index holds but the working tree does not (skip-worktree).
    let r = base_repo();
    r.write("src/.gitattributes", "*.rs text eol=crlf\n")
        .commit_all("attributes");
    r.git(&["update-index", "--skip-worktree", "src/.gitattributes"]);
    r.remove("src/.gitattributes");
    let (stop, with_tree) = stop_after(&r, &git, || {
        r.write("src/lib.rs", "fn main() { 3 }\n");
    });
    assert_eq!((stop.way, with_tree.way), (Way::Whole, Way::Whole));
}
