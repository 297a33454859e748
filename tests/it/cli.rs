//! The user commands end to end: the built binary on real temp repositories, in a clean
//! environment. What users read (tables, Markdown, JSON, error messages, `--help`) is
//! snapshot-tested; temp paths are replaced by placeholders first.

use std::io::Write;
use std::path::Path;
use std::process::Stdio;

use serde_json::{Value, json};
use sha2::{Digest, Sha256};

use crate::support::TestRepo;
use crate::support::hook::{HookEnv, event, inventory};

/// What one command produced.
struct Out {
    code: i32,
    stdout: String,
    stderr: String,
}

fn run_in(env: &HookEnv, dir: &Path, args: &[&str], stdin: &[u8]) -> Out {
    let mut child = env
        .command(args)
        .current_dir(dir)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut input = child.stdin.take().unwrap();
    let bytes = stdin.to_vec();
    let writer = std::thread::spawn(move || {
        let _ = input.write_all(&bytes);
    });
    let out = child.wait_with_output().unwrap();
    let _ = writer.join();
    Out {
        code: out.status.code().unwrap_or(-1),
        stdout: String::from_utf8(out.stdout).unwrap(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    }
}

fn run(env: &HookEnv, dir: &Path, args: &[&str]) -> Out {
    run_in(env, dir, args, b"")
}

/// Replaces every temp path in `text` by a placeholder.
fn scrub(text: &str, paths: &[(&Path, &str)]) -> String {
    let mut t = text.to_owned();
    for (p, name) in paths {
        let canonical = std::fs::canonicalize(p).unwrap_or(p.to_path_buf());
        t = t.replace(&canonical.display().to_string(), name);
        t = t.replace(&p.display().to_string(), name);
    }
    t
}

const API_BEFORE: &str = "use crate::auth::require_admin;\n\n/// Deletes a user. Only administrators may do this.\npub fn delete_user(db: &mut Db, caller: &Caller, id: u64) -> Result<(), E> {\n    require_admin(caller)?;\n    db.users().delete(id)?;\n    db.audit().record(caller.id, \"delete_user\", id)?;\n    Ok(())\n}\n";
const API_AFTER: &str = "use crate::auth::require_admin;\n\n/// Deletes a user. Only administrators may do this.\npub fn delete_user(db: &mut Db, caller: &Caller, id: u64) -> Result<(), E> {\n    db.users().delete(id)?;\n    Ok(())\n}\n";

/// A repository with one commit, then a risky uncommitted turn: an admin check removed, a
/// lockfile touched, a key pasted into a new file.
fn turn_repo() -> TestRepo {
    let repo = TestRepo::new();
    repo.write("src/api.rs", API_BEFORE);
    repo.write("package-lock.json", "{\"lockfileVersion\": 3}\n");
    repo.commit_all("init");
    repo.write("src/api.rs", API_AFTER);
    repo.write("package-lock.json", "{\"lockfileVersion\": 3, \"x\": 1}\n");
    repo.write("deploy.env", "AWS_KEY=AKIAQ2RZ7NJK4TXWB5MD\n");
    repo
}

fn env() -> HookEnv {
    HookEnv::new()
}

fn json_of(out: &Out) -> Value {
    assert_eq!(out.code, 0, "stderr: {}", out.stderr);
    serde_json::from_str(&out.stdout).unwrap()
}

#[test]
fn eval_outputs_for_people_tools_and_pull_requests() {
    let repo = turn_repo();
    let mut env = env();
    let tmp = env.root.path().join("tmp");
    std::fs::create_dir(&tmp).unwrap();
    env.set("TMPDIR", tmp.to_str().unwrap());
    let git_before = inventory(&repo.path().join(".git"));
    let status_before = repo.git(&[
        "--no-optional-locks",
        "status",
        "--porcelain=v2",
        "-z",
        "--untracked-files=all",
    ]);

    let table = run(&env, repo.path(), &["eval"]);
    assert_eq!(table.code, 0, "{}", table.stderr);
    insta::assert_snapshot!("eval_table", table.stdout);

    let md = run(&env, repo.path(), &["eval", "--format", "markdown"]);
    assert_eq!(md.code, 0);
    insta::assert_snapshot!("eval_markdown", md.stdout);

    let v = json_of(&run(&env, repo.path(), &["eval", "--json"]));
    insta::assert_snapshot!("eval_json", format!("{v:#}"));
    assert_eq!(v["scorer"], "local");
    assert_eq!(v["status"], "scored");
    assert_eq!(v["files"], json!(["deploy.env", "src/api.rs"]));
    assert!(
        v["selected"]
            .as_array()
            .unwrap()
            .contains(&json!("auth_boundary")),
        "{v}"
    );
    assert_eq!(v["scores"].as_object().unwrap().len(), 8);
    assert_eq!(v["excluded"][0]["path"], "package-lock.json");
    assert_eq!(v["redactions"]["aws-access-key"], 1);
    assert!(v.get("payload").is_none());

    // Same bytes through `--format json`, and nothing written to the repository.
    let again = json_of(&run(&env, repo.path(), &["eval", "--format", "json"]));
    assert_eq!(again, v);
    assert_eq!(inventory(&repo.path().join(".git")), git_before);
    assert_eq!(
        repo.git(&[
            "--no-optional-locks",
            "status",
            "--porcelain=v2",
            "-z",
            "--untracked-files=all"
        ]),
        status_before
    );
    // The private snapshot lived under TMPDIR and is gone.
    let leftovers: Vec<_> = std::fs::read_dir(&tmp).unwrap().flatten().collect();
    assert!(leftovers.is_empty(), "{leftovers:?}");
}

#[test]
fn dry_run_prints_the_exact_payload_and_sends_nothing() {
    let repo = turn_repo();
    // A scorer that would fail if it were called proves nothing is sent.
    let env = env()
        .var("JEV_PREFLIGHT_SCORER", "jev")
        .var("TYPESAFE_API_KEY", "ts-never-used")
        .var("JEV_PREFLIGHT_JEV_URL", "http://127.0.0.1:9/v1/systemone");
    let text = run(&env, repo.path(), &["eval", "--dry-run"]);
    assert_eq!(text.code, 0, "{}", text.stderr);
    let v = json_of(&run(&env, repo.path(), &["eval", "--dry-run", "--json"]));
    assert_eq!(v["status"], "dry_run");
    assert_eq!(v["scorer"], "jev");
    // Nothing scored: the promised fields are there, empty.
    assert_eq!((&v["scores"], &v["selected"]), (&json!({}), &json!([])));
    let payload = v["payload"].as_str().unwrap();
    assert_eq!(text.stdout, format!("{payload}\n"));
    assert_eq!(v["payload_bytes"], payload.len());
    let sha = Sha256::digest(payload.as_bytes());
    let hex: String = sha.iter().map(|b| format!("{b:02x}")).collect();
    assert_eq!(v["payload_sha256"], hex);
    let canonical: Value = serde_json::from_str(payload).unwrap();
    assert_eq!(canonical["format"], "unified_diff");
    assert!(!payload.contains("AKIAQ2RZ7NJK4TXWB5MD"));
    assert!(payload.contains("[REDACTED:aws-access-key]"));
    assert!(
        text.stderr.contains("dry run: nothing was sent"),
        "{}",
        text.stderr
    );
    let md = run(
        &env,
        repo.path(),
        &["eval", "--dry-run", "--format", "markdown"],
    );
    assert!(md.stdout.contains(payload), "{}", md.stdout);
}

#[test]
fn ranges_merge_bases_and_single_revisions() {
    let repo = TestRepo::new();
    repo.write("src/api.rs", API_BEFORE);
    repo.commit_all("init");
    repo.git(&["checkout", "-q", "-b", "feature"]);
    repo.write("src/api.rs", API_AFTER);
    repo.commit_all("drop the admin check");
    repo.git(&["checkout", "-q", "main"]);
    repo.write("docs/notes.md", "main moved on\n");
    repo.commit_all("docs");
    let env = env();

    // `main...feature`: what the branch changes since it forked.
    let v = json_of(&run(
        &env,
        repo.path(),
        &["eval", "main...feature", "--json"],
    ));
    assert_eq!(v["source"], "main...feature");
    assert_eq!(v["files"], json!(["src/api.rs"]));
    assert_eq!(v["selected"][0], "auth_boundary");
    // `main..feature`: the two trees, so main's own docs change shows as removed.
    let v = json_of(&run(
        &env,
        repo.path(),
        &["eval", "main..feature", "--json"],
    ));
    assert_eq!(v["files"], json!(["docs/notes.md", "src/api.rs"]));
    // A single revision: the working tree against it, like `git diff R`.
    repo.write("src/new.rs", "pub fn f() {}\n");
    let v = json_of(&run(&env, repo.path(), &["eval", "HEAD~1", "--json"]));
    assert_eq!(v["files"], json!(["docs/notes.md", "src/new.rs"]));
    // An empty side is HEAD.
    let v = json_of(&run(&env, repo.path(), &["eval", "feature..", "--json"]));
    assert_eq!(v["source"], "feature..HEAD");
    // Equal trees: nothing to score, exit 0.
    let v = json_of(&run(&env, repo.path(), &["eval", "main..main", "--json"]));
    assert_eq!(v["status"], "nothing_to_score");
}

#[test]
fn patches_from_files_and_stdin_need_no_repository() {
    let repo = TestRepo::new();
    repo.write("src/api.rs", API_BEFORE);
    repo.commit_all("init");
    repo.write("src/api.rs", API_AFTER);
    repo.commit_all("risky");
    let patch = repo.git(&["format-patch", "-1", "--stdout"]);
    let outside = tempfile::tempdir().unwrap();
    std::fs::write(outside.path().join("turn.patch"), &patch).unwrap();
    let env = env();

    let from_file = json_of(&run(
        &env,
        outside.path(),
        &["eval", "--patch", "turn.patch", "--json"],
    ));
    let from_stdin = json_of(&run_in(
        &env,
        outside.path(),
        &["eval", "--patch", "-", "--json"],
        patch.as_bytes(),
    ));
    assert_eq!(from_file["files"], json!(["src/api.rs"]));
    assert_eq!(from_file["scores"], from_stdin["scores"]);
    assert_eq!(from_stdin["source"], "patch from stdin");
    assert!(
        from_file["selected"]
            .as_array()
            .unwrap()
            .contains(&json!("auth_boundary")),
        "{}",
        from_file["selected"]
    );

    // Plain `diff -u` output works too.
    let plain = "--- a/app.py\t2026-01-01\n+++ b/app.py\t2026-01-02\n@@ -1,2 +1,2 @@\n-query = db.execute(\"SELECT * FROM t WHERE id = ?\", (uid,))\n+query = db.execute(\"SELECT * FROM t WHERE id = \" + uid)\n x = 1\n";
    let v = json_of(&run_in(
        &env,
        outside.path(),
        &["eval", "--patch", "-", "--json"],
        plain.as_bytes(),
    ));
    assert_eq!(v["files"], json!(["app.py"]));
    // An empty patch is nothing to score.
    let v = json_of(&run_in(
        &env,
        outside.path(),
        &["eval", "--patch", "-", "--json"],
        b"",
    ));
    assert_eq!(v["status"], "nothing_to_score");
}

/// The fields SPEC §9 promises, present in every status.
const PROMISED: [&str; 8] = [
    "scorer",
    "scores",
    "selected",
    "files",
    "payload_bytes",
    "thresholds",
    "evidence",
    "status",
];

#[test]
fn eval_json_keeps_its_fields_when_nothing_is_selectable() {
    let repo = TestRepo::new();
    repo.write(".jev-preflight.json", r#"{"exclude": ["docs/**"]}"#);
    repo.write("package-lock.json", "{\"lockfileVersion\": 3}\n");
    repo.write("docs/guide.md", "one\n");
    repo.commit_all("init");
    repo.write("package-lock.json", "{\"lockfileVersion\": 3, \"x\": 1}\n");
    repo.write("docs/guide.md", "two\n");
    let env = env();
    let v = json_of(&run(&env, repo.path(), &["eval", "--json"]));
    assert_eq!(v["status"], "nothing_to_score", "{v:#}");
    for field in PROMISED {
        assert!(v.get(field).is_some(), "`{field}` missing: {v:#}");
    }
    assert_eq!(v["scores"], json!({}));
    assert_eq!(v["selected"], json!([]));
    assert_eq!(v["evidence"], json!([]));
    assert_eq!(v["files"], json!([]));
    assert_eq!(v["payload_bytes"], 0);
    assert_eq!(v["scorer"], "local");
    assert_eq!(v["excluded"].as_array().unwrap().len(), 2, "{v:#}");

    // Over `maxDiffBytes` with `oversize: skip`: the same fields.
    repo.write(
        ".jev-preflight.json",
        r#"{"maxDiffBytes": 1024, "oversize": "skip"}"#,
    );
    repo.commit_all("config");
    repo.write(
        "src/big.rs",
        "// filler line for a large change\n".repeat(200),
    );
    let v = json_of(&run(&env, repo.path(), &["eval", "--json"]));
    assert_eq!(v["status"], "too_large", "{v:#}");
    for field in PROMISED {
        assert!(v.get(field).is_some(), "`{field}` missing: {v:#}");
    }
    assert_eq!((&v["scores"], &v["selected"]), (&json!({}), &json!([])));
}

#[test]
fn an_invalid_repository_config_does_not_stop_a_patch() {
    let repo = TestRepo::new();
    repo.write(".jev-preflight.json", r#"{"mode": "loud"}"#);
    repo.commit_all("init");
    let env = env();
    let patch = format!("--- a/src/api.rs\n+++ b/src/api.rs\n@@ -1,9 +1,7 @@\n{}", {
        let before: Vec<&str> = API_BEFORE.lines().collect();
        let after: Vec<&str> = API_AFTER.lines().collect();
        let mut body = String::new();
        for l in &before {
            if after.contains(l) {
                body.push_str(&format!(" {l}\n"));
            } else {
                body.push_str(&format!("-{l}\n"));
            }
        }
        body
    });
    let out = run_in(
        &env,
        repo.path(),
        &["eval", "--patch", "-", "--json"],
        patch.as_bytes(),
    );
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(
        out.stderr.starts_with(
            "warning: ignoring the repository config: .jev-preflight.json: `mode`: must be one of"
        ),
        "{}",
        out.stderr
    );
    assert!(
        out.stderr
            .contains("\nhint: `--patch` needs no repository, so the defaults apply; edit `"),
        "{}",
        out.stderr
    );
    let v: Value = serde_json::from_str(&out.stdout).unwrap();
    assert_eq!(v["status"], "scored");
    assert_eq!(v["files"], json!(["src/api.rs"]));
    assert!(
        v["warnings"][0]["message"]
            .as_str()
            .unwrap()
            .contains("`mode`"),
        "{v:#}"
    );
    // Scoring the repository itself still needs a valid config.
    let own = run(&env, repo.path(), &["eval"]);
    assert_eq!(own.code, 2);
    assert!(
        own.stderr.starts_with("error: invalid configuration"),
        "{}",
        own.stderr
    );
}

#[test]
fn fail_on_maps_to_exit_codes() {
    let repo = turn_repo();
    let env = env();
    let hit = run(&env, repo.path(), &["eval", "--fail-on", "0.5", "--json"]);
    assert_eq!(hit.code, 1, "{}", hit.stderr);
    let v: Value = serde_json::from_str(&hit.stdout).unwrap();
    let failed: Vec<&str> = v["failed"]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| a.as_str().unwrap())
        .collect();
    assert!(failed.contains(&"auth_boundary"), "{failed:?}");
    // Every failed axis is at or above the bar, highest first, and stderr names them so.
    let score = |a: &str| v["scores"][a].as_f64().unwrap();
    assert!(failed.iter().all(|a| score(a) >= 0.5), "{v}");
    assert!(failed.windows(2).all(|w| score(w[0]) >= score(w[1])), "{v}");
    assert!(
        hit.stderr
            .starts_with(&format!("jev-preflight: --fail-on 0.5: {} ", failed[0])),
        "{}",
        hit.stderr
    );
    let table = run(&env, repo.path(), &["eval", "--fail-on", "0.5"]);
    assert_eq!(table.code, 1);
    assert!(table.stdout.contains("✗ fail-on"), "{}", table.stdout);
    let miss = run(&env, repo.path(), &["eval", "--fail-on", "1"]);
    assert_eq!(miss.code, 0, "{}", miss.stderr);
    let usage = run(&env, repo.path(), &["eval", "--fail-on", "2"]);
    assert_eq!(usage.code, 2);
    assert!(
        usage.stderr.contains("not a number from 0 to 1"),
        "{}",
        usage.stderr
    );
    let usage = run(&env, repo.path(), &["eval", "HEAD", "--patch", "x"]);
    assert_eq!(usage.code, 2);
    // A dry run scores nothing, so it never fails.
    let dry = run(&env, repo.path(), &["eval", "--fail-on", "0", "--dry-run"]);
    assert_eq!(dry.code, 0);
}

/// Runs a command that must fail with exit 2, a lower-case `error:` line and a `hint:` line.
fn failing(env: &HookEnv, dir: &Path, args: &[&str], stdin: &[u8]) -> String {
    let out = run_in(env, dir, args, stdin);
    assert_eq!(out.code, 2, "{args:?}: {}", out.stderr);
    assert!(out.stdout.is_empty(), "{}", out.stdout);
    let lines: Vec<&str> = out.stderr.lines().collect();
    assert!(lines[0].starts_with("error: "), "{}", out.stderr);
    let first = lines[0]
        .trim_start_matches("error: ")
        .chars()
        .next()
        .unwrap();
    assert!(!first.is_uppercase(), "{}", out.stderr);
    assert!(
        lines.iter().any(|l| l.starts_with("hint: ")),
        "{}",
        out.stderr
    );
    out.stderr
}

#[test]
fn every_error_a_new_user_hits_says_what_to_do() {
    let env = env();
    let nowhere = tempfile::tempdir().unwrap();
    let unborn = TestRepo::new();
    let repo = turn_repo();
    let bad_config = TestRepo::new();
    bad_config.write(".jev-preflight.json", "{\"threshold\": 2}\n");
    bad_config.commit_all("init");
    let paths = [
        (nowhere.path(), "[DIR]"),
        (unborn.path(), "[REPO]"),
        (repo.path(), "[REPO]"),
        (bad_config.path(), "[REPO]"),
    ];
    let mut all = String::new();
    let mut case = |name: &str, dir: &Path, args: &[&str], stdin: &[u8]| {
        let text = failing(&env, dir, args, stdin);
        all.push_str(&format!(
            "$ jev-preflight {} # {name}\n{}\n",
            args.join(" "),
            scrub(&text, &paths)
        ));
    };
    case("not a repository", nowhere.path(), &["eval"], b"");
    case("no commits", unborn.path(), &["eval"], b"");
    case("bad revision", repo.path(), &["eval", "nope"], b"");
    case("bad range", repo.path(), &["eval", "main...nope"], b"");
    case(
        "unreadable patch",
        nowhere.path(),
        &["eval", "--patch", "missing.diff"],
        b"",
    );
    case(
        "not a diff",
        nowhere.path(),
        &["eval", "--patch", "-"],
        b"hello\n",
    );
    case("invalid config", bad_config.path(), &["eval"], b"");
    case("no key", repo.path(), &["eval", "--scorer", "jev"], b"");
    case("init outside a repository", nowhere.path(), &["init"], b"");
    case(
        "unknown shell",
        nowhere.path(),
        &["completions", "tcsh"],
        b"",
    );
    insta::assert_snapshot!("errors", all);
}

#[test]
fn status_explains_what_the_hook_did_in_this_repository() {
    let env = env().var("JEV_PREFLIGHT_SCORER", "local");
    let repo = TestRepo::new();
    repo.write("src/api.rs", API_BEFORE);
    repo.write(".jev-preflight.json", "{\"threshold\": 0.5}\n");
    repo.commit_all("init");
    let other = TestRepo::new();
    other.write("a.txt", "a\n");
    other.commit_all("init");

    let empty = run(&env, repo.path(), &["status"]);
    assert_eq!(empty.code, 0);
    assert!(
        empty.stdout.starts_with("no decisions recorded in "),
        "{}",
        empty.stdout
    );
    assert!(!env.data.exists(), "status must not create the store");

    env.run(&event("UserPromptSubmit", "s", "p1", repo.path()))
        .ok();
    repo.write("src/api.rs", API_AFTER);
    env.run(&event("Stop", "s", "p1", repo.path())).ok();
    env.run(&event("UserPromptSubmit", "s", "p2", repo.path()))
        .ok();
    env.run(&event("Stop", "s", "p2", repo.path())).ok();
    env.run(&event("UserPromptSubmit", "s", "p3", other.path()))
        .ok();
    other.write("a.txt", "b\n");
    env.run(&event("Stop", "s", "p3", other.path())).ok();

    let text = run(&env, repo.path(), &["status"]);
    assert_eq!(text.code, 0, "{}", text.stderr);
    assert!(
        text.stdout.contains("last 2 decision(s) in "),
        "{}",
        text.stdout
    );
    assert!(
        text.stdout
            .contains("Stop  continued  mode assist  scorer local"),
        "{}",
        text.stdout
    );
    assert!(
        text.stdout.contains("selected: auth_boundary"),
        "{}",
        text.stdout
    );
    assert!(
        text.stdout
            .contains("why: asked the agent once to look again"),
        "{}",
        text.stdout
    );
    assert!(
        text.stdout.contains("why: no selected file changed"),
        "{}",
        text.stdout
    );
    let v: Value =
        serde_json::from_str(&run(&env, repo.path(), &["status", "--json"]).stdout).unwrap();
    let entries = v.as_array().unwrap();
    assert_eq!(entries.len(), 2);
    assert_eq!(entries[0]["outcome"], "nothing to score");
    assert_eq!(entries[1]["outcome"], "continued");
    // No diff content in the log.
    let log = std::fs::read_to_string(env.data.join("decisions.jsonl")).unwrap();
    assert!(
        !log.contains("delete_user") && !log.contains("require_admin"),
        "{log}"
    );
    let all: Value =
        serde_json::from_str(&run(&env, repo.path(), &["status", "--all", "--json"]).stdout)
            .unwrap();
    assert_eq!(all.as_array().unwrap().len(), 3);
    let one: Value =
        serde_json::from_str(&run(&env, repo.path(), &["status", "-n", "1", "--json"]).stdout)
            .unwrap();
    assert_eq!(one.as_array().unwrap().len(), 1);

    // Every entry names its repository, also from a subdirectory and across repositories.
    let top = |r: &TestRepo| std::fs::canonicalize(r.path()).unwrap();
    let sub = repo.path().join("src");
    let here = run(&env, &sub, &["status"]).stdout;
    assert_eq!(
        here.matches(&format!("  repository: {}\n", top(&repo).display()))
            .count(),
        2,
        "{here}"
    );
    let every = run(&env, &sub, &["status", "--all"]).stdout;
    for (r, n) in [(&repo, 2), (&other, 1)] {
        assert_eq!(
            every
                .matches(&format!("  repository: {}\n", top(r).display()))
                .count(),
            n,
            "{every}"
        );
    }
    assert_eq!(all[0]["repo"], top(&other).display().to_string());
    // A failure that doctor can diagnose sends the user there; the entry says which repo.
    repo.write(".jev-preflight.json", "{\"mode\": \"loud\"}\n");
    env.run(&event("UserPromptSubmit", "s", "p4", repo.path()));
    let failed = run(&env, repo.path(), &["status", "-n", "1"]).stdout;
    assert!(
        failed.contains(
            "why: failed open (config_invalid): the agent was let finish; fix `.jev-preflight.json`"
        ) && failed.contains("`jev-preflight doctor` shows where"),
        "{failed}"
    );
}

#[test]
fn doctor_reports_health_and_each_problem_with_its_fix() {
    let repo = TestRepo::new();
    repo.write("a.txt", "a\n");
    repo.commit_all("init");
    let env = env();
    let ok = run(&env, repo.path(), &["doctor"]);
    assert_eq!(ok.code, 0, "{}", ok.stdout);
    for needle in [
        "ok    git",
        "ok    repository",
        "ok    scorer        local (auto → local",
        "note  TypeSafe key  not set",
        "no problems found",
    ] {
        assert!(
            ok.stdout.contains(needle),
            "missing {needle:?}:\n{}",
            ok.stdout
        );
    }

    repo.write(".jev-preflight.json", "{\"exclude\": [\"a[\"]}\n");
    let env = env
        .var("JEV_PREFLIGHT_SCORER", "jev")
        .var("CLAUDE_PLUGIN_OPTION_TYPESAFE_API_KEY", "");
    let bad = run(&env, repo.path(), &["doctor"]);
    assert_eq!(bad.code, 1, "{}", bad.stdout);
    let text = scrub(
        &bad.stdout,
        &[(repo.path(), "[REPO]"), (env.root.path(), "[ENV]")],
    );
    assert!(
        text.contains(
            "FAIL  repo config   config_invalid: .jev-preflight.json: `exclude[0]`: invalid glob"
        ),
        "{text}"
    );
    assert!(
        text.contains("fix: edit `[REPO]/.jev-preflight.json` at `exclude[0]`"),
        "{text}"
    );
    assert!(text.contains("FAIL  scorer        missing_key: jev chosen by `JEV_PREFLIGHT_SCORER`, but it cannot be built: no API key is configured"), "{text}");
    assert!(text.contains("2 problem(s) found"), "{text}");

    // The key is reported present, never shown.
    let env = env.var("TYPESAFE_API_KEY", "ts-secret-value-123");
    std::fs::remove_file(repo.path().join(".jev-preflight.json")).unwrap();
    let keyed = run(&env, repo.path(), &["doctor"]);
    assert_eq!(keyed.code, 0, "{}", keyed.stdout);
    assert!(
        keyed
            .stdout
            .contains("set (from `TYPESAFE_API_KEY`; never shown)")
    );
    assert!(!keyed.stdout.contains("ts-secret-value-123"));
}

/// `doctor` has one line per host, in `jev_preflight::host::ALL`'s order, each with the
/// host's CLI version (a stand-in `qwen` on PATH here) and where `install` put its hooks.
#[cfg(unix)]
#[test]
fn doctor_reports_every_host_and_where_its_hooks_are_installed() {
    use jev_preflight::host::ALL;
    use std::os::unix::fs::PermissionsExt;

    let repo = TestRepo::new();
    repo.commit_all("init");
    let bin = repo.path().join(".git/fake-bin");
    std::fs::create_dir_all(&bin).unwrap();
    let qwen = bin.join("qwen");
    std::fs::write(&qwen, "#!/bin/sh\necho 0.24.4\n").unwrap();
    std::fs::set_permissions(&qwen, std::fs::Permissions::from_mode(0o755)).unwrap();
    let path = format!(
        "{}:{}",
        bin.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let env = env().var("PATH", &path);
    for args in [
        &["install", "--qwen"][..],
        &["install", "--opencode"],
        &["install", "--user", "--gemini"],
        &["install", "--user", "--copilot"],
        &["install", "--user", "--qwen"],
    ] {
        let out = run(&env, repo.path(), args);
        assert_eq!(out.code, 0, "{args:?}: {}", out.stderr);
    }
    // A hooks file doctor cannot read is a note, never a failure.
    repo.write(".cursor/hooks.json", "{ // mine\n}\n");

    let out = run(&env, repo.path(), &["doctor"]);
    assert_eq!(out.code, 0, "{}", out.stdout);
    let text = scrub(
        &out.stdout,
        &[(repo.path(), "[REPO]"), (&env.home, "[HOME]")],
    );
    let lines: Vec<&str> = ALL
        .iter()
        .map(|host| {
            let named: Vec<&str> = text
                .lines()
                .filter(|l| {
                    l.get(8..)
                        .is_some_and(|rest| rest.starts_with(&format!("{:<13} ", host.name())))
                })
                .collect();
            assert_eq!(named.len(), 1, "{}: {named:?}\n{text}", host.name());
            named[0]
        })
        .collect();
    let positions: Vec<usize> = lines.iter().map(|l| text.find(l).unwrap()).collect();
    assert!(positions.windows(2).all(|w| w[0] < w[1]), "{text}");
    let line = |name: &str| lines[ALL.iter().position(|h| h.name() == name).unwrap()];

    assert_eq!(
        line("Qwen Code"),
        "  ok    Qwen Code     0.24.4; hooks installed in this project (`[REPO]/.qwen/settings.json`) and for this user (`[HOME]/.qwen/settings.json`)"
    );
    assert!(
        line("OpenCode").ends_with(
            "; hooks installed in this project (`[REPO]/.opencode/plugins/jev-preflight.js`)"
        ),
        "{text}"
    );
    assert!(
        line("Gemini CLI")
            .ends_with("; hooks installed for this user (`[HOME]/.gemini/settings.json`)"),
        "{text}"
    );
    assert!(
        line("Copilot CLI").ends_with(
            "; hooks installed for this user (`[HOME]/.copilot/hooks/jev-preflight.json`)"
        ),
        "{text}"
    );
    assert!(
        line("Cursor").contains(
            "hooks not installed; cannot tell from `[REPO]/.cursor/hooks.json`: it contains comments"
        ),
        "{text}"
    );
    for name in [
        "Claude Code",
        "Codex CLI",
        "Factory Droid",
        "Devin CLI",
        "VS Code",
        "Kilo Code",
    ] {
        assert!(
            line(name).ends_with("; hooks not installed"),
            "{name}: {text}"
        );
    }

    // Uninstalled hooks are reported gone.
    assert_eq!(run(&env, repo.path(), &["uninstall", "--opencode"]).code, 0);
    let out = run(&env, repo.path(), &["doctor"]);
    assert!(
        out.stdout
            .lines()
            .any(|l| l.contains("OpenCode") && l.ends_with("; hooks not installed")),
        "{}",
        out.stdout
    );
}

#[test]
fn install_and_uninstall_from_the_command_line() {
    let repo = TestRepo::new();
    repo.commit_all("init");
    let env = env();
    let sub = repo.path().join("sub");
    std::fs::create_dir(&sub).unwrap();
    // Project scope: the repository's top level, even from a subdirectory.
    let settings = repo.path().join(".claude/settings.json");
    let out = run(&env, &sub, &["install"]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(out.stdout.starts_with("created `"), "{}", out.stdout);
    let v: Value = serde_json::from_str(&std::fs::read_to_string(&settings).unwrap()).unwrap();
    let handler = &v["hooks"]["Stop"][0]["hooks"][0];
    let bin = std::fs::canonicalize(crate::support::binary()).unwrap();
    assert_eq!(handler["command"], bin.display().to_string());
    assert_eq!(handler["args"], json!(["hook"]));
    assert!(
        run(&env, repo.path(), &["install", "--project"])
            .stdout
            .contains("already")
    );
    let out = run(&env, repo.path(), &["uninstall"]);
    assert_eq!(out.code, 0);
    assert!(!settings.exists(), "{}", out.stdout);

    // An existing file comes back byte-identical.
    let original = "{\n  \"model\": \"opus\",\n  \"permissions\": {\"allow\": []}\n}\n";
    std::fs::create_dir_all(settings.parent().unwrap()).unwrap();
    std::fs::write(&settings, original).unwrap();
    repo.git(&["add", ".claude/settings.json"]);
    repo.git(&["commit", "-q", "-m", "settings"]);
    let out = run(&env, repo.path(), &["install"]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert_ne!(std::fs::read_to_string(&settings).unwrap(), original);
    // The previous file is kept in the data dir: nothing new for `git add -A` to pick up.
    let kept = std::fs::canonicalize(&env.data).unwrap().join("install");
    assert!(
        out.stdout
            .contains(&format!("(previous file saved as `{}", kept.display())),
        "{}",
        out.stdout
    );
    assert_eq!(
        repo.git(&["status", "--porcelain", "--untracked-files=all"]),
        " M .claude/settings.json\n"
    );
    assert_eq!(run(&env, repo.path(), &["uninstall"]).code, 0);
    assert_eq!(std::fs::read_to_string(&settings).unwrap(), original);

    // A file with comments is refused and left alone.
    std::fs::write(&settings, "// mine\n{}\n").unwrap();
    let refused = run(&env, repo.path(), &["install"]);
    assert_eq!(refused.code, 2);
    assert!(
        refused.stderr.starts_with("error: refusing to edit"),
        "{}",
        refused.stderr
    );
    assert!(
        refused.stderr.contains("\nhint: remove the comments")
            && refused.stderr.contains("#add-the-hooks-by-hand"),
        "{}",
        refused.stderr
    );
    assert_eq!(std::fs::read_to_string(&settings).unwrap(), "// mine\n{}\n");

    // User scope and Codex.
    let out = run(&env, repo.path(), &["install", "--user"]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(env.home.join(".claude/settings.json").exists());
    let codex_home = env.root.path().join("codex-home");
    let env = env.var("CODEX_HOME", codex_home.to_str().unwrap());
    assert_eq!(
        run(&env, repo.path(), &["install", "--user", "--codex"]).code,
        0
    );
    let v: Value =
        serde_json::from_str(&std::fs::read_to_string(codex_home.join("hooks.json")).unwrap())
            .unwrap();
    assert_eq!(v["hooks"]["SessionEnd"][0]["hooks"][0]["timeout"], 3);
    let out = run(&env, repo.path(), &["install", "--codex"]);
    assert_eq!(out.code, 0);
    assert!(repo.path().join(".codex/hooks.json").exists());
    // Codex runs hooks only after the user reviewed them; install says how.
    assert!(
        out.stderr
            .starts_with("hint: Codex runs project hooks only once you trust the project"),
        "{}",
        out.stderr
    );

    // Gemini CLI: project and user scope (`GEMINI_CLI_HOME` stands in for the home dir).
    let out = run(&env, repo.path(), &["install", "--gemini"]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(out.stderr.contains("trusted folder"), "{}", out.stderr);
    let v: Value = serde_json::from_str(
        &std::fs::read_to_string(repo.path().join(".gemini/settings.json")).unwrap(),
    )
    .unwrap();
    assert_eq!(v["hooks"]["AfterAgent"][0]["hooks"][0]["timeout"], 60_000);
    let gemini_home = env.root.path().join("gemini-home");
    let env = env.var("GEMINI_CLI_HOME", gemini_home.to_str().unwrap());
    assert_eq!(
        run(&env, repo.path(), &["install", "--user", "--gemini"]).code,
        0
    );
    assert!(gemini_home.join(".gemini/settings.json").exists());
    assert_eq!(
        run(&env, repo.path(), &["uninstall", "--user", "--gemini"]).code,
        0
    );
    assert!(!gemini_home.join(".gemini/settings.json").exists());
    assert_eq!(
        run(&env, repo.path(), &["install", "--codex", "--gemini"]).code,
        2
    );
    assert_eq!(
        run(&env, repo.path(), &["install", "--user", "--project"]).code,
        2
    );
}

#[test]
fn init_writes_a_config_that_eval_and_the_hook_accept() {
    let repo = TestRepo::new();
    repo.write("a.txt", "a\n");
    repo.commit_all("init");
    let env = env();
    let out = run(&env, repo.path(), &["init"]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    let path = repo.path().join(".jev-preflight.json");
    let text = std::fs::read_to_string(&path).unwrap();
    assert!(text.contains("\"$schema\""), "{text}");
    for key in jev_preflight::cmd::init::KEYS {
        assert!(out.stdout.contains(key), "{key} is not explained");
    }
    let again = run(&env, repo.path(), &["init"]);
    assert_eq!(again.code, 2);
    assert!(
        again
            .stderr
            .contains("hint: edit the existing file, or pass `--force`"),
        "{}",
        again.stderr
    );
    assert_eq!(run(&env, repo.path(), &["init", "--force"]).code, 0);
    // `$schema` is accepted by the config parser that eval and the hook share.
    repo.write("a.txt", "b\n");
    let v = json_of(&run(&env, repo.path(), &["eval", "--json"]));
    assert_eq!(v["status"], "scored");
    let doctor = run(&env, repo.path(), &["doctor"]);
    assert!(
        doctor.stdout.contains(".jev-preflight.json` is valid"),
        "{}",
        doctor.stdout
    );
}

#[test]
fn completions_man_page_and_help() {
    let env = env();
    let dir = env.root.path().to_path_buf();
    for shell in jev_preflight::cmd::docs::SHELLS {
        let out = run(&env, &dir, &["completions", shell]);
        assert_eq!(out.code, 0, "{shell}: {}", out.stderr);
        assert!(out.stdout.contains("fail-on"), "{shell}");
    }
    let man = run(&env, &dir, &["man"]);
    assert_eq!(man.code, 0);
    assert!(
        man.stdout.contains(".TH jev-preflight"),
        "{}",
        &man.stdout[..200.min(man.stdout.len())]
    );
    assert!(man.stdout.contains("eval"));
    // One page holds every command whole: its heading, its options; no pointers to pages of
    // their own (`jev-preflight-eval(1)`) that nobody installs.
    for (heading, option) in [
        ("eval", "fail\\-on"),
        ("install", "codex"),
        ("status", "json"),
    ] {
        assert!(
            man.stdout
                .contains(&format!(".SS \"jev\\-preflight {heading}\"")),
            "{heading}"
        );
        assert!(man.stdout.contains(&format!("\\-\\-{option}")), "{option}");
    }
    assert!(!man.stdout.contains("(1)\n"), "{}", man.stdout);
    assert_eq!(man.stdout.matches(".ds Aq").count(), 2);

    let mut help = String::new();
    for sub in [
        "",
        "hook",
        "eval",
        "status",
        "forget",
        "doctor",
        "install",
        "uninstall",
        "init",
        "completions",
        "man",
    ] {
        let args: Vec<&str> = [sub, "--help"]
            .into_iter()
            .filter(|a| !a.is_empty())
            .collect();
        let out = run(&env, &dir, &args);
        assert_eq!(out.code, 0, "{args:?}: {}", out.stderr);
        help.push_str(&format!(
            "$ jev-preflight {}\n{}\n",
            args.join(" "),
            out.stdout
        ));
    }
    insta::assert_snapshot!("help", help);
}
