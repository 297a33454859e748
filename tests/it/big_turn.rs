//! Turns too large to read whole (issue 25, item 4): a turn that writes 20,000 generated files
//! beside one real edit is judged by the edit, with the payload marked partial; `eval` on that
//! tree works; the next prompts neither fail nor read the bulk again; the repository is never
//! written. The bounds themselves, on small numbers, through the library.
#![cfg(unix)]

use jev_preflight::git::diff::{Change, Status};
use jev_preflight::git::snapshot::{self, Bounds, SnapshotOptions};
use jev_preflight::git::turn;
use jev_preflight::git::{Git, GitError};
use jev_preflight::pipeline::payload::{PARTIAL_MARKER, UNREAD_NOTE};
use serde_json::Value;

use crate::snapshot_zero_writes::{Store, found};
use crate::support::hook::inventory;
use crate::support::hook::{HookEnv, JevServer, event, jev_answer};
use crate::support::{TestRepo, binary};

/// Where the turn writes its generated files.
const GENERATED: &str = "generated-by-the-build-step";
const SERVER: &str = "fn handle(req: Request) -> Response {\n    if req.user.is_none() {\n        return Response::unauthorized();\n    }\n    serve(req)\n}\n";
const SERVER_EDITED: &str = "fn handle(req: Request) -> Response {\n    serve(req)\n}\n";

/// Writes `count` small generated files, 100 to a directory, under `root`.
fn generate(repo: &TestRepo, root: &str, count: usize) {
    for i in 0..count {
        let dir = repo.path().join(format!("{root}/d{:03}", i / 100));
        if i % 100 == 0 {
            std::fs::create_dir_all(&dir).unwrap();
        }
        std::fs::write(
            dir.join(format!("gen{i:05}.js")),
            format!("export const v{i} = {i};\n"),
        )
        .unwrap();
    }
}

/// The acceptance test of the issue, through the real binary and a loopback Jev endpoint that
/// records what it is sent.
#[test]
fn a_turn_that_writes_20000_files_is_judged_by_its_real_edit() {
    let r = TestRepo::new();
    // An attribute file makes the Stop ask git about every changed path: 20,000 of them
    // print more than the git runner's usual output cap.
    r.write("src/server.rs", SERVER)
        .write("src/other.rs", "pub fn other() {}\n")
        .write(".gitattributes", "*.png binary\n")
        .commit_all("init");
    let server = JevServer::start(200, &jev_answer(0.1, 0.1));
    let env = HookEnv::new().jev(&server, "ts-key");
    let git_before = inventory(&r.path().join(".git"));
    let run = |name: &str, prompt: &str| {
        let out = env.run(&event(name, "s", prompt, r.path()));
        out.ok();
        out.outcome()
    };

    assert_eq!(run("UserPromptSubmit", "p1"), "baseline taken");
    generate(&r, GENERATED, 20_000);
    r.write("src/server.rs", SERVER_EDITED);
    assert_eq!(run("Stop", "p1"), "below threshold");
    assert_eq!(server.requests(), 1);
    let sent = server.seen()[0].json();
    let state = &sent["state"];
    let diff = state["diff"].as_str().unwrap();
    assert!(
        diff.contains("-    if req.user.is_none() {\n"),
        "the real edit is in the payload:\n{}",
        &diff[..diff.len().min(2000)]
    );
    assert!(diff.contains(PARTIAL_MARKER), "marked partial");
    assert!(
        diff.contains(&format!("#   {GENERATED}/ (")),
        "{}",
        &diff[diff.len() - 300..]
    );
    let files: Vec<&str> = state["files"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f.as_str().unwrap())
        .collect();
    assert!(files.contains(&"src/server.rs"), "{files:?}");
    assert!(
        sent.to_string().len() <= 65536 + 16 * 1024,
        "bounded request"
    );

    // `eval` of that tree, as it is: a payload with the edit, marked partial.
    let out = std::process::Command::new(binary())
        .args(["eval", "--dry-run", "--json"])
        .env_clear()
        .envs(env_vars(&env))
        .current_dir(r.path())
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let report: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(report["changed"], 20_001);
    let payload: Value = serde_json::from_str(report["payload"].as_str().unwrap()).unwrap();
    let diff = payload["diff"].as_str().unwrap();
    assert!(diff.contains("-    if req.user.is_none() {\n") && diff.contains(PARTIAL_MARKER));

    // The next prompt takes its baseline without reading the bulk; a turn that leaves it alone
    // changed nothing.
    assert_eq!(run("UserPromptSubmit", "p2"), "baseline taken");
    assert_eq!(run("Stop", "p2"), "nothing to score");
    assert_eq!(server.requests(), 1);

    // A turn that edits and removes one generated file each: their changes are named, without
    // content (their content at the prompt was never read), beside the real edit.
    assert_eq!(run("UserPromptSubmit", "p3"), "baseline taken");
    r.write(
        &format!("{GENERATED}/d007/gen00700.js"),
        "export const v700 = 7;\n",
    )
    .remove(&format!("{GENERATED}/d008/gen00800.js"))
    .write("src/other.rs", "pub fn other() { todo() }\n");
    assert_eq!(run("Stop", "p3"), "below threshold");
    let sent = server.seen()[1].json();
    let state = &sent["state"];
    let diff = state["diff"].as_str().unwrap();
    assert!(diff.contains("+pub fn other() { todo() }\n"), "{diff}");
    for (path, status) in [
        (format!("{GENERATED}/d007/gen00700.js"), "modified"),
        (format!("{GENERATED}/d008/gen00800.js"), "deleted"),
    ] {
        assert!(
            diff.contains(&format!(
                "# path: {path}\n# status: {status}\n# {UNREAD_NOTE}\n"
            )),
            "{diff}"
        );
    }
    assert!(!diff.contains(PARTIAL_MARKER), "three changes fit: {diff}");

    assert_eq!(
        run("SessionEnd", ""),
        "session removed",
        "the session's store is cleaned"
    );
    env.assert_no_content();
    assert_eq!(inventory(&r.path().join(".git")), git_before);
}

fn env_vars(env: &HookEnv) -> Vec<(String, String)> {
    let cmd = env.command(&[]);
    cmd.get_envs()
        .filter_map(|(k, v)| Some((k.to_str()?.to_owned(), v?.to_str()?.to_owned())))
        .collect()
}

/// Bounds small enough to test with a handful of files, and the payload's reading order.
fn small(read_files: usize, walk_files: usize) -> SnapshotOptions {
    SnapshotOptions {
        read_order: jev_preflight::pipeline::read_order(&[]),
        bounds: Bounds {
            read_files,
            read_bytes: 1 << 20,
            walk_files,
            walk_bytes: 1 << 20,
        },
        ..SnapshotOptions::default()
    }
}

/// Each change's path, status, whether it was left unread, and whether it has no patch.
fn summary(changes: &[Change]) -> Vec<(String, Status, bool, bool)> {
    changes
        .iter()
        .map(|c| {
            (
                String::from_utf8_lossy(&c.path).into_owned(),
                c.status,
                c.unread,
                c.patch.is_empty(),
            )
        })
        .collect()
}

fn by_path<'a>(changes: &'a [Change], path: &str) -> Option<&'a Change> {
    changes.iter().find(|c| c.path == path.as_bytes())
}

/// A baseline past its read bounds lists the rest by metadata beside its index; the Stop
/// compares them: unchanged ones are no change, edited and removed ones are named without
/// content, and files the turn wrote are read by priority.
#[test]
fn past_the_read_bounds_files_are_listed_and_compared_by_metadata() {
    let r = TestRepo::new();
    r.write("src/lib.rs", "pub fn f() {}\n")
        .write("README.md", "hello\n")
        .commit_all("init");
    for i in 0..10 {
        r.write(&format!("notes/n{i}.txt"), format!("note {i}\n"));
    }
    let git = Git::default();
    let repo = found(&git, r.path());
    let opts = small(4, 1000);
    let store = Store::new();
    let base = snapshot::baseline(&git, &repo, &store.private(), &opts).unwrap();
    assert_eq!(base.unread, 6, "four read, six listed: {base:?}");
    assert!(base.oversized.is_empty(), "the list is not in the state");
    assert!(store.private().prompt.join("unread").is_file());

    // The turn: one tracked edit, one new source file, one test; one listed note edited (with
    // its size changed), one removed; the others untouched.
    let unread_notes: Vec<String> = (0..10)
        .map(|i| format!("notes/n{i}.txt"))
        .filter(|p| {
            // Which ones the baseline left out: the ones its private index does not hold.
            let out = std::process::Command::new("git")
                .args(["ls-files", "--error-unmatch", p])
                .env("GIT_INDEX_FILE", store.private().prompt.join("index"))
                .current_dir(r.path())
                .output()
                .unwrap();
            !out.status.success()
        })
        .collect();
    assert_eq!(unread_notes.len(), 6, "{unread_notes:?}");
    r.write("src/lib.rs", "pub fn f() { g() }\n")
        .write("src/g.rs", "pub fn g() {}\n")
        .write(&unread_notes[0], "note edited, longer\n")
        .remove(&unread_notes[1]);
    let stop = turn::changes_since(&git, &repo, &store.private(), &opts, &base).unwrap();
    let summary = summary(&stop.changes);
    let mut want = vec![
        (unread_notes[0].clone(), Status::Modified, true, true),
        (unread_notes[1].clone(), Status::Deleted, true, true),
        ("src/g.rs".to_owned(), Status::Added, false, false),
        ("src/lib.rs".to_owned(), Status::Modified, false, false),
    ];
    want.sort();
    assert_eq!(summary, want);
}

/// Past the read bounds, a turn's files are read source first and smaller first; paths
/// selection excludes by name and new files that came in bulk are never read; past the walk
/// bounds the snapshot fails with a typed error.
#[test]
fn a_large_turn_reads_what_a_reviewer_reads_first() {
    let r = TestRepo::new();
    r.write("src/lib.rs", "pub fn f() {}\n").commit_all("init");
    let git = Git::default();
    let repo = found(&git, r.path());
    let mut opts = small(3, 1000);
    opts.bounds.read_bytes = 1000;
    let store = Store::new();
    let base = snapshot::baseline(&git, &repo, &store.private(), &opts).unwrap();
    assert_eq!(base.unread, 0);

    r.write("src/lib.rs", "pub fn f() { big() }\n")
        .write("src/big.rs", "x".repeat(5000))
        .write("src/small.rs", "pub fn small() {}\n")
        .write("docs/guide.md", "read me\n")
        .write("tests/t.rs", "#[test] fn t() {}\n")
        .write("package-lock.json", "{}\n");
    generate(&r, "out/gen", 60);
    for i in 0..30 {
        r.write(
            &format!("node_modules/p{i}/index.js"),
            "module.exports = 1;\n",
        );
    }
    let stop = turn::changes_since(&git, &repo, &store.private(), &opts, &base).unwrap();
    let read: Vec<String> = stop
        .changes
        .iter()
        .filter(|c| !c.unread)
        .map(|c| String::from_utf8_lossy(&c.path).into_owned())
        .collect();
    // Three read: the source files, smaller first, while their bytes fit (`big.rs` does not),
    // then the test; never the lockfile, `node_modules` or the bulk.
    assert_eq!(read, ["src/lib.rs", "src/small.rs", "tests/t.rs"]);
    assert!(by_path(&stop.changes, "src/big.rs").is_some_and(|c| c.unread));
    assert!(by_path(&stop.changes, "out/gen/d000/gen00000.js").is_some_and(|c| c.unread));
    // Past the read bound, the walk stops keeping what selection excludes by name.
    assert!(stop.dropped > 0, "{}", stop.dropped);
    assert!(
        stop.changes
            .iter()
            .all(|c| !c.path.starts_with(b"node_modules/") || c.unread)
    );

    // Past the walk bound: a typed failure, not an output cap.
    let tight = small(3, 50);
    let store = Store::new();
    let err = snapshot::baseline(&git, &repo, &store.private(), &tight).unwrap_err();
    assert!(matches!(err, GitError::TooManyFiles { limit: 50 }), "{err}");
}

/// Nothing of this runs when the bounds are not reached: a turn within them is the same
/// whether the bounds are the defaults or far larger.
#[test]
fn within_the_bounds_nothing_changes() {
    let r = TestRepo::new();
    r.write("src/lib.rs", "pub fn f() {}\n").commit_all("init");
    r.write("notes.txt", "at baseline\n");
    let git = Git::default();
    let repo = found(&git, r.path());
    let roomy = small(1 << 20, 1 << 20);
    let (a, b) = (Store::new(), Store::new());
    let base_a =
        snapshot::baseline(&git, &repo, &a.private(), &SnapshotOptions::default()).unwrap();
    let base_b = snapshot::baseline(&git, &repo, &b.private(), &roomy).unwrap();
    assert_eq!((base_a.unread, base_b.unread), (0, 0));
    r.write("src/lib.rs", "pub fn f() { g() }\n")
        .write("notes.txt", "edited\n");
    let stop_a = turn::changes_since(
        &git,
        &repo,
        &a.private(),
        &SnapshotOptions::default(),
        &base_a,
    )
    .unwrap();
    let stop_b = turn::changes_since(&git, &repo, &b.private(), &roomy, &base_b).unwrap();
    assert_eq!(stop_a.changes, stop_b.changes);
    assert!(
        stop_a
            .changes
            .iter()
            .all(|c| !c.unread && !c.patch.is_empty())
    );
    assert_eq!(stop_a.changes.len(), 2);
}

/// Past the read bounds a removed file is named, not diffed; one removed before the prompt
/// and still gone is no change.
#[test]
fn past_the_bounds_removed_files_are_named_not_diffed() {
    let r = TestRepo::new();
    for i in 0..8 {
        r.write(&format!("lib/m{i}.rs"), format!("pub fn m{i}() {{}}\n"));
    }
    r.write("src/main.rs", "fn main() {}\n").commit_all("init");
    // Removed before the prompt, past the bounds: listed, not staged.
    for i in 0..5 {
        r.remove(&format!("lib/m{i}.rs"));
    }
    let git = Git::default();
    let repo = found(&git, r.path());
    let opts = small(3, 1000);
    let store = Store::new();
    let base = snapshot::baseline(&git, &repo, &store.private(), &opts).unwrap();
    assert_eq!(base.unread, 5, "{base:?}");
    // The turn removes three more and edits one file.
    for i in 5..8 {
        r.remove(&format!("lib/m{i}.rs"));
    }
    r.write("src/main.rs", "fn main() { run() }\n");
    let stop = turn::changes_since(&git, &repo, &store.private(), &opts, &base).unwrap();
    let summary = summary(&stop.changes);
    let mut want: Vec<(String, Status, bool, bool)> = (5..8)
        .map(|i| (format!("lib/m{i}.rs"), Status::Deleted, true, true))
        .collect();
    want.push(("src/main.rs".into(), Status::Modified, false, false));
    assert_eq!(summary, want);
}
