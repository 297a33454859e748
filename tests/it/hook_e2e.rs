//! The hook end to end: the built binary, real repositories, a loopback Jev server that
//! counts requests.

use serde_json::json;

use crate::support::hook::{HookEnv, JevServer, event, inventory, jev_answer, with};
use crate::support::{ADMIN_CHECKED, ADMIN_UNCHECKED, TestRepo};

const KEY: &str = "sk-ts-TEST-KEY-7f3a9c";

fn repo() -> TestRepo {
    let repo = TestRepo::new();
    repo.write("src/api.rs", ADMIN_CHECKED);
    repo.write("package-lock.json", "{\"lockfileVersion\": 3}\n");
    repo.commit_all("init");
    repo
}

fn risky_edit(repo: &TestRepo) {
    repo.write("src/api.rs", ADMIN_UNCHECKED);
}

fn ups(env: &HookEnv, repo: &TestRepo, prompt: &str) {
    let r = env.run(&event("UserPromptSubmit", "s1", prompt, repo.path()));
    r.ok();
    assert_eq!(r.stdout, "", "{r:?}");
}

fn stop(
    env: &HookEnv,
    repo: &TestRepo,
    prompt: &str,
    active: bool,
) -> crate::support::hook::HookResult {
    let r = env.run(&with(
        event("Stop", "s1", prompt, repo.path()),
        json!({"stop_hook_active": active, "background_tasks": [], "session_crons": [], "last_assistant_message": "done"}),
    ));
    r.ok();
    r
}

#[test]
fn risky_turn_continues_exactly_once() {
    let server = JevServer::start(200, &jev_answer(0.95, 0.1));
    let env = HookEnv::new().jev(&server, KEY);
    let repo = repo();
    let git_before = inventory(&repo.path().join(".git"));
    ups(&env, &repo, "p1");
    risky_edit(&repo);
    let first = stop(&env, &repo, "p1", false);
    let text = first.continuation().expect("a continuation");
    assert!(text.contains("auth_boundary (score 0.95)"), "{text}");
    assert!(text.contains("src/api.rs"), "{text}");
    assert!(text.contains("not proof"), "{text}");
    assert!(text.chars().count() < 10_000);
    assert_eq!(server.requests(), 1);
    let seen = server.seen()[0].clone();
    assert_eq!(
        seen.header("authorization"),
        Some(format!("Bearer {KEY}").as_str())
    );
    let body = seen.json();
    assert!(
        body["state"]["diff"]
            .as_str()
            .unwrap()
            .contains("require_admin")
    );
    assert!(
        !seen.body_str().contains("\"done\""),
        "the assistant message never leaves"
    );

    // The continuation's own Stop: no-op.
    let second = stop(&env, &repo, "p1", true);
    assert_eq!(second.stdout, "");
    // A changed diff afterwards cannot cause a second continuation, even with the latch off.
    repo.write("src/other.rs", "fn other() {}\n");
    let third = stop(&env, &repo, "p1", false);
    assert_eq!(third.stdout, "");
    assert_eq!(server.requests(), 1);
    env.assert_no_content();
    // Nothing of the user's repository was written: not a byte, mode or mtime under `.git`.
    assert_eq!(inventory(&repo.path().join(".git")), git_before);
}

#[test]
fn unchanged_rerun_excluded_and_empty_turns_make_no_second_request() {
    let server = JevServer::start(200, &jev_answer(0.2, 0.1));
    let env = HookEnv::new().jev(&server, KEY);
    let repo = repo();
    // Empty turn.
    ups(&env, &repo, "p1");
    assert_eq!(stop(&env, &repo, "p1", false).stdout, "");
    // Excluded-only turn (a lockfile).
    ups(&env, &repo, "p2");
    repo.write("package-lock.json", "{\"lockfileVersion\": 3, \"x\": 1}\n");
    assert_eq!(stop(&env, &repo, "p2", false).stdout, "");
    assert_eq!(server.requests(), 0);
    // Below threshold, then the same Stop again.
    ups(&env, &repo, "p3");
    risky_edit(&repo);
    assert_eq!(stop(&env, &repo, "p3", false).stdout, "");
    assert_eq!(stop(&env, &repo, "p3", false).stdout, "");
    assert_eq!(server.requests(), 1);
    env.assert_no_content();
}

#[test]
fn report_mode_shows_one_line_and_off_writes_nothing() {
    let server = JevServer::start(200, &jev_answer(0.97, 0.1));
    let env = HookEnv::new().jev(&server, KEY);
    let repo = repo();
    repo.write(".jev-preflight.json", r#"{"mode":"report"}"#);
    ups(&env, &repo, "p1");
    risky_edit(&repo);
    let r = stop(&env, &repo, "p1", false);
    assert_eq!(r.continuation(), None);
    let line = r.notice().unwrap();
    assert!(
        line.contains("auth_boundary 0.97") && !line.contains('\n'),
        "{line}"
    );

    let env = HookEnv::new().jev(&server, KEY);
    let repo2 = crate::hook_e2e::repo();
    repo2.write(".jev-preflight.json", r#"{"mode":"off"}"#);
    ups(&env, &repo2, "p1");
    risky_edit(&repo2);
    assert_eq!(stop(&env, &repo2, "p1", false).stdout, "");
    assert!(!env.data.exists(), "mode off writes nothing");
    assert_eq!(server.requests(), 1);

    // Claude Code creates the plugin's data dir before the first hook runs: an empty one
    // must stay empty through a whole turn in `off` mode, SessionEnd included.
    let env = HookEnv::new().jev(&server, KEY);
    std::fs::create_dir_all(&env.data).unwrap();
    ups(&env, &repo2, "p2");
    risky_edit(&repo2);
    assert_eq!(stop(&env, &repo2, "p2", false).stdout, "");
    env.run(&serde_json::json!({
        "hook_event_name": "SessionEnd",
        "session_id": "s1",
        "cwd": repo2.path(),
        "reason": "other",
    }));
    let left: Vec<_> = std::fs::read_dir(&env.data).unwrap().collect();
    assert!(left.is_empty(), "mode off left {left:?} in the data dir");
    assert_eq!(server.requests(), 1);
}

#[test]
fn background_tasks_keep_the_baseline() {
    let server = JevServer::start(200, &jev_answer(0.95, 0.1));
    let env = HookEnv::new().jev(&server, KEY);
    let repo = repo();
    ups(&env, &repo, "p1");
    risky_edit(&repo);
    let paused = env.run(&with(
        event("Stop", "s1", "p1", repo.path()),
        json!({"stop_hook_active": false, "background_tasks": [{"id": "b1", "type": "shell", "status": "running"}], "session_crons": []}),
    ));
    paused.ok();
    assert_eq!(paused.stdout, "");
    let crons = env.run(&with(
        event("Stop", "s1", "p1", repo.path()),
        json!({"session_crons": [{"id": "c", "schedule": "* * * * *", "recurring": true, "prompt": "x"}]}),
    ));
    assert_eq!(crons.stdout, "");
    assert_eq!(server.requests(), 0);
    assert!(stop(&env, &repo, "p1", false).continuation().is_some());
}

#[test]
fn tampered_config_is_ignored_for_the_turn_and_reported() {
    let server = JevServer::start(200, &jev_answer(0.95, 0.1));
    let env = HookEnv::new().jev(&server, KEY);
    let repo = repo();
    ups(&env, &repo, "p1");
    risky_edit(&repo);
    repo.write(".jev-preflight.json", r#"{"mode":"off"}"#);
    let r = stop(&env, &repo, "p1", false);
    assert!(r.continuation().is_some(), "{r:?}");
    assert!(r.notice().unwrap().contains("changed during this turn"));
    assert_eq!(server.requests(), 1);
    // The next prompt uses the new config.
    ups(&env, &repo, "p2");
    repo.write("src/more.rs", "fn more() {}\n");
    assert_eq!(stop(&env, &repo, "p2", false).stdout, "");
    assert_eq!(server.requests(), 1);
}

#[test]
fn codex_gets_the_portable_form_and_argv_dispatch_works() {
    let server = JevServer::start(200, &jev_answer(0.95, 0.1));
    let env = HookEnv::new().jev(&server, KEY);
    let repo = repo();
    let codex = |name: &str| json!({"session_id": "c1", "turn_id": "t1", "cwd": repo.path(), "hook_event_name": name, "model": "gpt", "stop_hook_active": false, "transcript_path": null, "last_assistant_message": null, "permission_mode": "default"});
    env.run(&codex("UserPromptSubmit")).ok();
    risky_edit(&repo);
    let r = env.run(&codex("Stop"));
    r.ok();
    let v = r.json().unwrap();
    assert_eq!(v["decision"], "block");
    assert!(v.get("hookSpecificOutput").is_none());

    // Old hosts without hook_event_name on stdin: the argv subcommand is used.
    let env = HookEnv::new().jev(&server, KEY);
    let repo = crate::hook_e2e::repo();
    let bare = |p: &str| json!({"session_id": "o1", "cwd": repo.path(), "prompt_id": p});
    env.hook()
        .arg("user-prompt-submit")
        .event(&bare("p1"))
        .run()
        .ok();
    risky_edit(&repo);
    let r = env.hook().arg("stop").event(&bare("p1")).run();
    r.ok();
    assert!(r.continuation().is_some(), "{r:?}");
}

#[test]
fn session_end_cleans_up_within_budget() {
    let server = JevServer::start(200, &jev_answer(0.1, 0.1));
    let env = HookEnv::new().jev(&server, KEY);
    let repo = repo();
    for p in ["p1", "p2", "p3"] {
        ups(&env, &repo, p);
    }
    let start = std::time::Instant::now();
    let r = env.run(&with(
        event("SessionEnd", "s1", "p3", repo.path()),
        json!({"reason": "other"}),
    ));
    let took = start.elapsed();
    r.ok();
    assert_eq!(r.stdout, "");
    assert!(took < std::time::Duration::from_millis(1500), "{took:?}");
    env.assert_no_content();
    assert!(
        !env.data_files()
            .iter()
            .any(|(p, _)| p.to_string_lossy().contains("/sessions/") && p.ends_with("state.json"))
    );
}

#[test]
fn api_key_and_prompt_text_never_reach_the_store_or_stderr() {
    let server = JevServer::start(200, &jev_answer(0.95, 0.1));
    let env = HookEnv::new().jev(&server, KEY);
    let repo = repo();
    let secret_prompt = "PROMPT-TEXT-4c2e91 please remove the admin check";
    let mut stderr = String::new();
    let r = env.run(&with(
        event("UserPromptSubmit", "s1", "p1", repo.path()),
        json!({"prompt": secret_prompt}),
    ));
    stderr.push_str(&r.stderr);
    // Keep the baseline's content around while scanning: stop before SessionEnd.
    for (path, bytes) in env.data_files() {
        let text = String::from_utf8_lossy(&bytes);
        assert!(
            !text.contains(KEY) && !text.contains("PROMPT-TEXT-4c2e91"),
            "{}",
            path.display()
        );
        assert!(!path.to_string_lossy().contains("s1") || !path.to_string_lossy().ends_with("/s1"));
    }
    risky_edit(&repo);
    let r = stop(&env, &repo, "p1", false);
    stderr.push_str(&r.stderr);
    server.set_reply(500, "{}");
    let r = env.run(&with(
        event("UserPromptSubmit", "s1", "p2", repo.path()),
        json!({"prompt": secret_prompt}),
    ));
    stderr.push_str(&r.stderr);
    repo.write("src/x.rs", "fn x() {}\n");
    let r = stop(&env, &repo, "p2", false);
    assert_eq!(r.class().as_deref(), Some("http_500"));
    stderr.push_str(&r.stderr);
    stderr.push_str(&r.stdout);
    assert!(
        !stderr.contains(KEY) && !stderr.contains("PROMPT-TEXT-4c2e91"),
        "{stderr}"
    );
    for (path, bytes) in env.data_files() {
        let text = String::from_utf8_lossy(&bytes);
        assert!(!text.contains(KEY), "key in {}", path.display());
        assert!(
            !text.contains("PROMPT-TEXT-4c2e91"),
            "prompt in {}",
            path.display()
        );
        assert!(
            !path.to_string_lossy().contains("p1"),
            "raw prompt id in {}",
            path.display()
        );
    }
}

#[test]
fn demo_plays_a_turn_and_the_second_stop_does_nothing() {
    let env = HookEnv::new();
    let out = env.command(&["demo"]).output().unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(stdout.contains("auth_boundary"), "{stdout}");
    assert!(stdout.contains("→ continued"), "{stdout}");
    assert!(stdout.contains("stdout: (nothing)"), "{stdout}");
}
