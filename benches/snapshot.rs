//! Snapshot cost against `git status`, on generated repositories of 100 and 50,000 files.
//!
//! `cargo bench --bench snapshot` prints, per repository size, the median wall time of the
//! baseline snapshot (discover + take, as the UserPromptSubmit hook runs it), of the second
//! snapshot + diff (discover + take + diff, as the Stop hook runs it) and of
//! `git status --porcelain`, their ratios, the first-ever baseline (empty tree cache) and the
//! number of git processes each hook starts. Pass `--quick` for fewer rounds.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use jev_preflight::diff;
use jev_preflight::git::{self, Discovery, Git, Repo};
use jev_preflight::snapshot::{self, PrivateStore, SnapshotOptions};

const ENV: &[(&str, &str)] = &[
    ("GIT_CONFIG_NOSYSTEM", "1"),
    ("GIT_CONFIG_GLOBAL", "/dev/null"),
    ("GIT_AUTHOR_NAME", "Bench"),
    ("GIT_AUTHOR_EMAIL", "bench@example.com"),
    ("GIT_COMMITTER_NAME", "Bench"),
    ("GIT_COMMITTER_EMAIL", "bench@example.com"),
    ("LC_ALL", "C"),
];

fn git_cmd(dir: &Path) -> Command {
    let mut cmd = Command::new("git");
    cmd.current_dir(dir).env_clear();
    cmd.env("PATH", std::env::var_os("PATH").unwrap_or_default());
    cmd.env("HOME", dir);
    for (k, v) in ENV {
        cmd.env(k, v);
    }
    cmd
}

fn git(dir: &Path, args: &[&str]) {
    let out = git_cmd(dir)
        .args(["-c", "gc.auto=0", "-c", "maintenance.auto=false"])
        .args(args)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "git {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// A committed repository of `files` files spread over `leaf_dirs` directories three deep.
fn generate(root: &Path, files: usize, leaf_dirs: usize) {
    git(root, &["init", "-q", "-b", "main"]);
    let per_dir = files.div_ceil(leaf_dirs);
    for n in 0..files {
        let d = n / per_dir;
        let dir = root.join(format!("d{}/e{}/f{}", d / 100, (d / 10) % 10, d % 10));
        if n % per_dir == 0 {
            std::fs::create_dir_all(&dir).unwrap();
        }
        let body: String = (0..20).map(|i| format!("file {n} line {i}\n")).collect();
        std::fs::write(dir.join(format!("file{n}.txt")), body).unwrap();
    }
    git(root, &["add", "-A"]);
    git(root, &["commit", "-q", "-m", "generated"]);
    git(root, &["gc", "-q"]);
}

fn file(root: &Path, n: usize, files: usize, leaf_dirs: usize) -> PathBuf {
    let per_dir = files.div_ceil(leaf_dirs);
    let d = n / per_dir;
    root.join(format!(
        "d{}/e{}/f{}/file{n}.txt",
        d / 100,
        (d / 10) % 10,
        d % 10
    ))
}

fn append(path: &Path, text: &str) {
    let mut body = std::fs::read(path).unwrap();
    body.extend_from_slice(text.as_bytes());
    std::fs::write(path, body).unwrap();
}

fn median(mut v: Vec<Duration>) -> Duration {
    v.sort();
    v[v.len() / 2]
}

fn ms(d: Duration) -> String {
    format!("{:.1} ms", d.as_secs_f64() * 1000.0)
}

struct Case {
    files: usize,
    leaf_dirs: usize,
    rounds: usize,
}

fn discover(git: &Git, dir: &Path) -> Repo {
    match git::discover(git, dir).unwrap() {
        Discovery::Found(repo) => repo,
        other => panic!("{other:?}"),
    }
}

fn run(case: &Case) {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().join("repo");
    std::fs::create_dir(&root).unwrap();
    generate(&root, case.files, case.leaf_dirs);
    let f = |n: usize| file(&root, n % case.files, case.files, case.leaf_dirs);

    // A few changes at baseline: staged, unstaged, untracked.
    append(&f(1), "staged\n");
    git(&root, &["add", "--", f(1).to_str().unwrap()]);
    append(&f(case.files / 2), "unstaged\n");
    std::fs::write(root.join("untracked-at-baseline.txt"), "u\n").unwrap();

    let store_dir = tmp.path().join("store");
    let store = PrivateStore {
        prompt: store_dir.join("prompt"),
        tree_cache: store_dir.join("trees"),
    };
    let opts = SnapshotOptions::default();
    let g = Git::default();

    let turn_paths = [f(7), f(case.files / 3), f(case.files - 2)];
    let originals: Vec<Vec<u8>> = turn_paths
        .iter()
        .map(|p| std::fs::read(p).unwrap())
        .collect();
    let turn = || {
        for p in &turn_paths {
            append(p, "turn edit\n");
        }
        std::fs::write(root.join("new-in-turn.rs"), "fn added() {}\n").unwrap();
    };
    let undo = || {
        for (p, body) in turn_paths.iter().zip(&originals) {
            std::fs::write(p, body).unwrap();
        }
        let _ = std::fs::remove_file(root.join("new-in-turn.rs"));
    };

    // First-ever baseline: the tree cache is empty, so every tree is written once.
    let start = Instant::now();
    let repo = discover(&g, &root);
    snapshot::take(&g, &repo, &store, &opts).unwrap();
    let cold = start.elapsed();
    snapshot::purge_prompt(&store).unwrap();

    let (mut baseline, mut stop, mut status) = (Vec::new(), Vec::new(), Vec::new());
    let mut changes = 0;
    for _ in 0..case.rounds {
        let start = Instant::now();
        let repo = discover(&g, &root);
        let base = snapshot::take(&g, &repo, &store, &opts).unwrap();
        baseline.push(start.elapsed());

        turn();
        let start = Instant::now();
        let repo = discover(&g, &root);
        let head = snapshot::take(&g, &repo, &store, &opts).unwrap();
        let diff = diff::diff(&g, &repo, &store, &base, &head).unwrap();
        stop.push(start.elapsed());
        changes = diff.len();

        let start = Instant::now();
        let out = git_cmd(&root)
            .args(["status", "--porcelain"])
            .output()
            .unwrap();
        status.push(start.elapsed());
        assert!(out.status.success());

        undo();
        snapshot::purge_prompt(&store).unwrap();
    }

    let (b, s, st) = (median(baseline), median(stop), median(status));
    let ratio = |d: Duration| d.as_secs_f64() / st.as_secs_f64();
    let (base_procs, stop_procs) = count_processes(&root, &store_dir, &opts, &turn, &undo);
    println!(
        "{} files, {} rounds ({} changes in the turn diff)",
        case.files, case.rounds, changes
    );
    println!("  git status --porcelain        {:>10}", ms(st));
    println!(
        "  baseline snapshot             {:>10}  {:.2}x status  ({} git processes)",
        ms(b),
        ratio(b),
        base_procs
    );
    println!(
        "  second snapshot + diff        {:>10}  {:.2}x status  ({} git processes)",
        ms(s),
        ratio(s),
        stop_procs
    );
    println!(
        "  first baseline, empty cache   {:>10}  {:.2}x status",
        ms(cold),
        ratio(cold)
    );
}

/// Runs one baseline and one stop through a counting wrapper around git.
fn count_processes(
    root: &Path,
    store_dir: &Path,
    opts: &SnapshotOptions,
    turn: &dyn Fn(),
    undo: &dyn Fn(),
) -> (usize, usize) {
    let counter = store_dir.join("count");
    let shim = store_dir.join("git-shim");
    let real = String::from_utf8(
        Command::new("sh")
            .args(["-c", "command -v git"])
            .output()
            .unwrap()
            .stdout,
    )
    .unwrap();
    std::fs::write(
        &shim,
        format!(
            "#!/bin/sh\necho x >> '{}'\nexec '{}' \"$@\"\n",
            counter.display(),
            real.trim()
        ),
    )
    .unwrap();
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&shim, std::fs::Permissions::from_mode(0o755)).unwrap();
    let g = Git::new(shim);
    let store = PrivateStore {
        prompt: store_dir.join("prompt"),
        tree_cache: store_dir.join("trees"),
    };
    let lines = || {
        std::fs::read_to_string(&counter)
            .map(|s| s.lines().count())
            .unwrap_or(0)
    };
    let repo = discover(&g, root);
    let base = snapshot::take(&g, &repo, &store, opts).unwrap();
    let base_procs = lines();
    turn();
    let repo = discover(&g, root);
    let head = snapshot::take(&g, &repo, &store, opts).unwrap();
    diff::diff(&g, &repo, &store, &base, &head).unwrap();
    let stop_procs = lines() - base_procs;
    undo();
    snapshot::purge_prompt(&store).unwrap();
    (base_procs, stop_procs)
}

fn main() {
    let quick = std::env::args().any(|a| a == "--quick");
    let cases = [
        Case {
            files: 100,
            leaf_dirs: 10,
            rounds: if quick { 5 } else { 41 },
        },
        Case {
            files: 50_000,
            leaf_dirs: 1000,
            rounds: if quick { 3 } else { 15 },
        },
    ];
    for case in &cases {
        run(case);
    }
}
