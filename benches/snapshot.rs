//! Snapshot cost against `git status`, on generated repositories of 100 and 50,000 files.
//!
//! `cargo bench --bench snapshot` prints, per repository size, the median wall time of the
//! baseline snapshot (discovery + baseline, as a session's later UserPromptSubmit runs it: the
//! remembered repository, its config read again), of the Stop's git work (rediscovery +
//! [`turn::changes_since`], as the Stop hook runs it) and of `git status --porcelain`, their
//! ratios, the first-ever baseline (empty tree cache) and the number of git processes each
//! hook starts. Pass `--quick` for fewer rounds.

use testkit::genrepo as support;

use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant};

use jev_preflight::git::snapshot::{self, PrivateStore, SnapshotOptions};
use jev_preflight::git::{self, Discovery, Git, Remembered, Repo, turn};
use support::{GenRepo, Spec, median, ms};

struct Case {
    files: usize,
    leaf_dirs: usize,
    rounds: usize,
}

fn found(d: Discovery) -> Repo {
    match d {
        Discovery::Found(repo) => repo,
        other => panic!("{other:?}"),
    }
}

fn discover(git: &Git, dir: &Path) -> Repo {
    found(git::discover(git, dir).unwrap())
}

/// The UserPromptSubmit's discovery once the session remembers the repository.
fn discover_again(git: &Git, dir: &Path, known: &Remembered) -> Repo {
    found(git::discover_again(git, dir, known).unwrap())
}

/// The Stop's: the repository its prompt found, config read again.
fn rediscover(git: &Git, known: &Repo) -> Repo {
    found(git::rediscover(git, known).unwrap())
}

fn run(case: &Case) {
    // A few changes at baseline: staged, unstaged, untracked.
    let gen_repo = GenRepo::generate(Spec {
        files: case.files,
        leaf_dirs: case.leaf_dirs,
        staged: 1,
        modified: 1,
        untracked: 1,
    });
    let root = gen_repo.root.clone();

    let store_dir = gen_repo.tmp.path().join("store");
    let store = PrivateStore {
        prompt: store_dir.join("prompt"),
        tree_cache: store_dir.join("trees"),
    };
    let opts = SnapshotOptions::default();
    let g = Git::default();

    let edit = || gen_repo.turn();
    let undo = || gen_repo.undo();

    // First-ever baseline: the tree cache is empty, so every tree is written once.
    let start = Instant::now();
    let repo = discover(&g, &root);
    snapshot::take(&g, &repo, &store, &opts).unwrap();
    let cold = start.elapsed();
    snapshot::purge_prompt(&store).unwrap();

    let known = Remembered::of(&g, &root, &repo).unwrap();
    let (mut baseline, mut stop, mut status) = (Vec::new(), Vec::new(), Vec::new());
    let mut changes = 0;
    let mut way = "";
    for _ in 0..case.rounds {
        let start = Instant::now();
        let repo = discover_again(&g, &root, &known);
        let base = snapshot::baseline(&g, &repo, &store, &opts).unwrap();
        baseline.push(start.elapsed());

        edit();
        let start = Instant::now();
        let repo = rediscover(&g, &repo);
        let t = turn::changes_since(&g, &repo, &store, &opts, &base).unwrap();
        stop.push(start.elapsed());
        changes = t.changes.len();
        way = t.way.name();

        let start = Instant::now();
        let out = gen_repo
            .git_cmd()
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
    let (base_procs, stop_procs) = count_processes(&root, &store_dir, &opts, &edit, &undo);
    println!(
        "{} files, {} rounds ({} changes in the turn diff, the {way} way)",
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
        "  Stop: walk, stage, diff       {:>10}  {:.2}x status  ({} git processes)",
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
    edit: &dyn Fn(),
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
    let first = discover(&g, root);
    let known = Remembered::of(&g, root, &first).unwrap();
    let start = lines();
    let repo = discover_again(&g, root, &known);
    let base = snapshot::baseline(&g, &repo, &store, opts).unwrap();
    let base_procs = lines() - start;
    edit();
    let repo = rediscover(&g, &repo);
    turn::changes_since(&g, &repo, &store, opts, &base).unwrap();
    let stop_procs = lines() - start - base_procs;
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
