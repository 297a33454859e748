//! What a snapshot must never do: run a program the repository configures, follow inherited
//! `GIT_*` variables, read a huge untracked file, outlive its deadline or flood its caller.
#![cfg(unix)]

use jev_preflight::hook::failure::Class;
use std::os::unix::fs::PermissionsExt;
use std::path::Path;
use std::time::Duration;

use jev_preflight::git::diff::{self, Status};
use jev_preflight::git::snapshot::{self, PrivateStore, SnapshotOptions};
use jev_preflight::git::{self, Discovery, Git};

use crate::snapshot_zero_writes::{Store, found, run_turn};
use crate::support::TestRepo;

fn write_exec(path: &Path, body: &str) {
    std::fs::write(path, body).unwrap();
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o755)).unwrap();
}

#[test]
fn hostile_config_executes_nothing() {
    let r = TestRepo::new();
    r.write("a.txt", "plain\n")
        .write("b.txt", "bee\n")
        .commit_all("base");
    let traps = tempfile::tempdir().unwrap();
    let marker = traps.path().join("marker");
    let trap = traps.path().join("trap");
    write_exec(
        &trap,
        &format!(
            "#!/bin/sh\necho \"$0 $*\" >> '{}'\nexit 0\n",
            marker.display()
        ),
    );
    let hooks = traps.path().join("hooks");
    std::fs::create_dir(&hooks).unwrap();
    for hook in [
        "post-index-change",
        "pre-commit",
        "post-checkout",
        "reference-transaction",
        "pre-auto-gc",
        "fsmonitor-watchman",
    ] {
        write_exec(&hooks.join(hook), &std::fs::read_to_string(&trap).unwrap());
    }
    let t = trap.to_str().unwrap();
    for (k, v) in [
        ("core.fsmonitor", t),
        ("core.hooksPath", hooks.to_str().unwrap()),
        ("filter.trap.clean", t),
        ("filter.trap.smudge", t),
        ("filter.trap.process", t),
        ("filter.trap.required", "true"),
        ("diff.trap.textconv", t),
        ("diff.trap.command", t),
        ("diff.external", t),
        ("core.pager", t),
        ("core.askPass", t),
    ] {
        r.git(&["config", k, v]);
    }
    // In the git dir, so the attributes are in force without being a working-tree change.
    r.write(".git/info/attributes", "* filter=trap diff=trap\n");
    // Same size, new mtime: status must compare content, which is where a clean filter runs.
    std::thread::sleep(Duration::from_millis(20));
    r.write("a.txt", "plain\n");

    let (changes, ..) = run_turn(r.path(), || {
        r.write("a.txt", "plain\nadded\n").write("c.txt", "new\n");
    });
    assert!(
        !marker.exists(),
        "a trap ran: {}",
        std::fs::read_to_string(&marker).unwrap_or_default()
    );
    let paths: Vec<_> = changes.iter().map(|c| (c.path.clone(), c.status)).collect();
    assert_eq!(
        paths,
        [
            (b"a.txt".to_vec(), Status::Modified),
            (b"c.txt".to_vec(), Status::Added)
        ]
    );
    assert!(String::from_utf8_lossy(&changes[0].patch).contains("\n plain\n+added\n"));
    // The trap is real: git itself runs it when nothing neutralizes it.
    crate::support::git_in(r.path(), &["diff", "--", "a.txt"]);
    assert!(
        marker.exists(),
        "the trap fixture never fires, so the test proves nothing"
    );
}

/// Runs in a child process whose environment carries hostile `GIT_*` variables.
#[test]
#[ignore = "run by inherited_git_variables_cannot_redirect_a_snapshot"]
fn inherited_env_child() {
    let Some(dir) = std::env::var_os("JEV_TEST_REPO") else {
        return;
    };
    let dir = Path::new(&dir);
    let (changes, ..) = run_turn(dir, || {
        std::fs::write(dir.join("turn.txt"), "turn\n").unwrap();
    });
    let paths: Vec<_> = changes.iter().map(|c| c.path.clone()).collect();
    assert_eq!(paths, [b"turn.txt".to_vec()]);
}

#[test]
fn inherited_git_variables_cannot_redirect_a_snapshot() {
    let r = TestRepo::new();
    r.write("a.txt", "a\n").commit_all("base");
    let decoy = TestRepo::new();
    decoy.write("decoy.txt", "d\n").commit_all("decoy");
    let decoy_git = decoy.path().join(".git");
    let before = crate::support::inventory::inventory(&[decoy.path()]);
    let out = std::process::Command::new(std::env::current_exe().unwrap())
        .args([
            "--ignored",
            "--exact",
            "snapshot_safety::inherited_env_child",
            "--test-threads=1",
        ])
        .env("JEV_TEST_REPO", r.path())
        .env("GIT_DIR", &decoy_git)
        .env("GIT_WORK_TREE", decoy.path())
        .env("GIT_INDEX_FILE", decoy_git.join("index"))
        .env("GIT_OBJECT_DIRECTORY", decoy_git.join("objects"))
        .env(
            "GIT_ALTERNATE_OBJECT_DIRECTORIES",
            decoy_git.join("objects"),
        )
        .env("GIT_CEILING_DIRECTORIES", "/")
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success() && stdout.contains("1 passed"),
        "{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    crate::support::inventory::assert_same(
        &before,
        &crate::support::inventory::inventory(&[decoy.path()]),
        "decoy repository",
    );
}

fn sparse_file(path: &Path, size: u64) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    let f = std::fs::File::create(path).unwrap();
    f.set_len(size).unwrap();
}

fn dir_bytes(dir: &Path) -> u64 {
    let mut n = 0;
    for e in std::fs::read_dir(dir).into_iter().flatten().flatten() {
        let meta = e.metadata().unwrap();
        n += if meta.is_dir() {
            dir_bytes(&e.path())
        } else {
            meta.len()
        };
    }
    n
}

#[test]
fn huge_untracked_files_are_metadata_only() {
    const HUGE: u64 = 200 * 1024 * 1024;
    let r = TestRepo::new();
    r.write("a.txt", "a\n").commit_all("base");
    sparse_file(&r.path().join("dataset.bin"), HUGE);
    let (changes, base, head, store) = run_turn(r.path(), || {
        sparse_file(&r.path().join("build/artifact.bin"), 0);
        sparse_file(&r.path().join("build/artifact.bin"), HUGE);
        r.write("a.txt", "a\nb\n");
    });
    assert_eq!(base.oversized.len(), 1);
    assert_eq!(head.oversized.len(), 2);
    let store_bytes = dir_bytes(store.dir.path());
    assert!(
        store_bytes < 1024 * 1024,
        "private store holds {store_bytes} bytes"
    );
    let summary: Vec<_> = changes
        .iter()
        .map(|c| (c.path.clone(), c.status, c.oversized, c.patch.is_empty()))
        .collect();
    assert_eq!(
        summary,
        [
            (b"a.txt".to_vec(), Status::Modified, None, false),
            (
                b"build/artifact.bin".to_vec(),
                Status::Added,
                Some(HUGE),
                true
            ),
        ]
    );
}

#[test]
fn an_oversized_file_growing_or_going_is_reported() {
    let r = TestRepo::new();
    r.write("a.txt", "a\n")
        .write("small.txt", "s\n")
        .commit_all("base");
    r.write("big.txt", vec![b'x'; 2000]);
    let git = Git::default();
    let repo = found(&git, r.path());
    let store = Store::new();
    let opts = SnapshotOptions {
        untracked_cap: 1000,
        ..SnapshotOptions::default()
    };
    let base = snapshot::take(&git, &repo, &store.private(), &opts).unwrap();
    // A second private index at the same baseline, diffed the Stop's way.
    let index_store = Store::new();
    assert_eq!(
        snapshot::take(&git, &repo, &index_store.private(), &opts).unwrap(),
        base
    );
    r.remove("big.txt").write("small.txt", vec![b'y'; 5000]);
    let head = snapshot::take(&git, &repo, &store.private(), &opts).unwrap();
    let changes = diff::diff(&git, &repo, &store.private(), &base, &head).unwrap();
    let staged = snapshot::stage(&git, &repo, &index_store.private(), &opts).unwrap();
    let by_index = diff::diff_index(&git, &repo, &index_store.private(), &base, &staged).unwrap();
    assert_eq!(by_index, changes);
    let summary: Vec<_> = changes
        .iter()
        .map(|c| (c.path.clone(), c.status, c.oversized))
        .collect();
    assert_eq!(
        summary,
        [
            (b"big.txt".to_vec(), Status::Deleted, Some(2000)),
            (b"small.txt".to_vec(), Status::Modified, Some(5000)),
        ]
    );
}

#[test]
fn a_slow_git_is_killed_and_reaped() {
    let dir = tempfile::tempdir().unwrap();
    let fake = dir.path().join("git");
    let pid_file = dir.path().join("pid");
    write_exec(
        &fake,
        &format!("#!/bin/sh\necho $$ > '{}'\nsleep 30\n", pid_file.display()),
    );
    let git = Git::new(fake).with_deadline(Duration::from_millis(300));
    let start = std::time::Instant::now();
    let err = git.run_args(dir.path(), ["status"]).unwrap_err();
    assert_eq!(Class::from(&err), "git_timeout", "{err}");
    assert!(start.elapsed() < Duration::from_secs(5));
    let pid = std::fs::read_to_string(&pid_file).unwrap();
    // Reaped: no zombie left in the process table.
    assert!(
        !Path::new(&format!("/proc/{}", pid.trim())).exists(),
        "child {pid} was not reaped"
    );
}

#[test]
fn output_over_the_cap_is_too_large() {
    let r = TestRepo::new();
    r.write("big.txt", "0123456789\n".repeat(2000))
        .commit_all("base");
    let git = Git::default().with_stdout_cap(4096);
    let err = git
        .run_args(r.path(), ["cat-file", "-p", "HEAD:big.txt"])
        .unwrap_err();
    assert_eq!(Class::from(&err), "git_output_too_large", "{err}");
}

#[test]
fn a_missing_git_is_a_typed_error() {
    let dir = tempfile::tempdir().unwrap();
    let git = Git::new("/nonexistent/jev-no-git".into());
    let err = git::discover(&git, dir.path()).unwrap_err();
    assert_eq!(Class::from(&err), "git_missing");
}

#[test]
fn discovery_outcomes() {
    let git = Git::default();
    let plain = tempfile::tempdir().unwrap();
    assert_eq!(
        git::discover(&git, plain.path()).unwrap(),
        Discovery::NotARepo
    );
    assert_eq!(
        git::discover(&git, &plain.path().join("missing")).unwrap(),
        Discovery::NotARepo
    );
    let bare = TestRepo::with_init_args(&["--bare"]);
    assert_eq!(git::discover(&git, bare.path()).unwrap(), Discovery::Bare);
    let r = TestRepo::new();
    r.write("sub/dir/x.txt", "x\n");
    let repo = found(&git, &r.path().join("sub/dir"));
    let top = std::fs::canonicalize(r.path()).unwrap();
    assert_eq!(repo.top, top);
    assert_eq!(repo.git_dir, top.join(".git"));
    assert_eq!(repo.index, top.join(".git/index"));
    assert_eq!(repo.objects, top.join(".git/objects"));
    assert_eq!(
        git::discover(&git, &r.path().join(".git")).unwrap(),
        Discovery::NotARepo
    );
}

#[test]
fn unsafe_stores_are_refused() {
    let git = Git::default();
    let r = TestRepo::new();
    r.write("a.txt", "a\n").commit_all("base");
    let repo = found(&git, r.path());
    let opts = SnapshotOptions::default();
    let outside = tempfile::tempdir().unwrap();
    let inside = PrivateStore {
        prompt: repo.top.join("store/prompt"),
        tree_cache: outside.path().join("trees"),
    };
    let err = snapshot::take(&git, &repo, &inside, &opts).unwrap_err();
    assert!(matches!(err, git::GitError::UnsafeStore { .. }), "{err}");
    let in_git = PrivateStore {
        prompt: outside.path().join("prompt"),
        tree_cache: repo.git_dir.join("jev"),
    };
    assert!(snapshot::take(&git, &repo, &in_git, &opts).is_err());
    let target = outside.path().join("elsewhere");
    std::fs::create_dir(&target).unwrap();
    std::os::unix::fs::symlink(&target, outside.path().join("linked")).unwrap();
    let linked = PrivateStore {
        prompt: outside.path().join("linked"),
        tree_cache: outside.path().join("trees"),
    };
    let err = snapshot::take(&git, &repo, &linked, &opts).unwrap_err();
    assert!(err.to_string().contains("symbolic link"), "{err}");

    let ok = PrivateStore {
        prompt: outside.path().join("p"),
        tree_cache: outside.path().join("t"),
    };
    snapshot::take(&git, &repo, &ok, &opts).unwrap();
    use std::os::unix::fs::MetadataExt;
    for dir in [&ok.prompt, &ok.tree_cache] {
        assert_eq!(std::fs::metadata(dir).unwrap().mode() & 0o777, 0o700);
    }
}

#[test]
fn sweep_bounds_the_tree_cache() {
    let dir = tempfile::tempdir().unwrap();
    let objects = dir.path().join("objects/ab");
    std::fs::create_dir_all(&objects).unwrap();
    let now = std::time::SystemTime::now();
    for (i, age_days) in [0u64, 1, 2, 40].into_iter().enumerate() {
        let path = objects.join(format!("{i:038}"));
        std::fs::write(&path, vec![0u8; 1000]).unwrap();
        let f = std::fs::File::options().write(true).open(&path).unwrap();
        f.set_modified(now - Duration::from_secs(age_days * 86400))
            .unwrap();
    }
    let day = Duration::from_secs(86400);
    let s = snapshot::sweep_tree_cache(dir.path(), 1_000_000, 30 * day, now).unwrap();
    assert_eq!((s.removed_files, s.kept_bytes), (1, 3000));
    let s = snapshot::sweep_tree_cache(dir.path(), 2500, 30 * day, now).unwrap();
    // Over budget: oldest first until under half of it.
    assert_eq!((s.removed_files, s.kept_bytes), (2, 1000));
    assert!(objects.join(format!("{:038}", 0)).exists());
}

/// A `PATH` with a relative entry (`.`, or an empty one, which means the same) must not let a
/// repository choose the `git` the hook runs: git commands run in the working tree, where a
/// planted `git` would be found first. The hook looks `git` up once, in absolute entries only.
#[test]
fn a_git_planted_in_the_repository_never_runs() {
    let r = TestRepo::new();
    r.write("a.txt", "one\n").commit_all("base");
    let traps = tempfile::tempdir().unwrap();
    let marker = traps.path().join("marker");
    write_exec(
        &r.path().join("git"),
        &format!(
            "#!/bin/sh\necho \"$0 $*\" >> '{}'\nexit 0\n",
            marker.display()
        ),
    );
    let path = format!(".::{}", std::env::var("PATH").unwrap_or_default());
    let env = crate::support::hook::HookEnv::new().var("PATH", &path);
    let event = |name: &str| {
        serde_json::json!({"hook_event_name": name, "session_id": "s", "prompt_id": "p",
               "cwd": r.path(), "prompt": "go", "stop_hook_active": false})
    };
    let out = env.run(&event("UserPromptSubmit"));
    assert!(out.stderr.contains("baseline taken"), "{out:?}");
    r.write("a.txt", "two\n");
    let out = env.run(&event("Stop"));
    out.ok();
    assert!(
        !marker.exists(),
        "the planted git ran: {}",
        std::fs::read_to_string(&marker).unwrap_or_default()
    );
    // The trap is real: a shell in the working tree with that PATH runs it.
    let status = std::process::Command::new("sh")
        .args(["-c", "git status"])
        .current_dir(r.path())
        .env("PATH", &path)
        .status()
        .unwrap();
    assert!(status.success());
    assert!(
        marker.exists(),
        "the planted git never fires, so the test proves nothing"
    );
}
