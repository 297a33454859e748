//! Gemini CLI as a host: `BeforeAgent` / `AfterAgent` / `SessionEnd` events shaped like Gemini
//! CLI 0.61's (`timestamp` on each, no `prompt_id`, `stop_hook_active` on `AfterAgent`), and
//! answers in the form its hook runner reads.
//!
//! Facts from `@google/gemini-cli` 0.61.0 (`packages/core/src/hooks/hookRunner.ts`,
//! `core/client.ts`): stdout is parsed as JSON, and when stdout is empty the runner parses
//! *stderr* instead, turning plain text into a `systemMessage` shown to the user; a blocking
//! `AfterAgent` (`decision` `"deny"` or `"block"`) sends `reason` back to the model as a new
//! prompt, which fires `BeforeAgent` again, and re-fires `AfterAgent` with `stop_hook_active`
//! only when that continuation used no tool.

use serde_json::{Value, json};

use crate::support::hook::{HookEnv, HookResult};
use crate::support::{ADMIN_UNCHECKED, TestRepo, admin_repo};

fn gemini_event(name: &str, cwd: &std::path::Path, extra: Value) -> Value {
    let mut e = json!({
        "session_id": "gemini-session-1",
        "transcript_path": "/nonexistent/chats/session.json",
        "cwd": cwd,
        "hook_event_name": name,
        "timestamp": "2026-12-03T06:00:00.000Z",
    });
    for (k, v) in extra.as_object().unwrap() {
        e[k] = v.clone();
    }
    e
}

fn before_agent(env: &HookEnv, repo: &TestRepo, prompt: &str) -> HookResult {
    env.run(&gemini_event(
        "BeforeAgent",
        repo.path(),
        json!({"prompt": prompt}),
    ))
}

fn after_agent(env: &HookEnv, repo: &TestRepo, active: bool) -> HookResult {
    env.run(&gemini_event(
        "AfterAgent",
        repo.path(),
        json!({"prompt": "tighten the delete endpoint", "prompt_response": "Done.", "stop_hook_active": active}),
    ))
}

/// Exit 0 and exactly one JSON object on stdout, so Gemini never falls back to stderr.
fn assert_gemini(r: &HookResult) -> Value {
    r.ok();
    let v = r
        .json()
        .expect("Gemini always gets a JSON object on stdout");
    if v.get("decision").is_some() {
        assert_eq!(v["decision"], "block", "{v}");
        assert!(
            v["reason"].as_str().is_some_and(|s| !s.trim().is_empty()),
            "{v}"
        );
        assert!(v.get("hookSpecificOutput").is_none(), "{v}");
    }
    v
}

/// The turn's edit: the admin check removed.
fn risky_edit(repo: &TestRepo) {
    repo.write("src/api.rs", ADMIN_UNCHECKED);
}

#[test]
fn a_quiet_gemini_turn_answers_with_an_empty_object() {
    let repo = admin_repo(r#"{"threshold": 1}"#);
    let env = HookEnv::new().var("JEV_PREFLIGHT_SCORER", "local");
    assert_eq!(assert_gemini(&before_agent(&env, &repo, "hi")), json!({}));
    repo.write("README.md", "docs\n");
    assert_eq!(assert_gemini(&after_agent(&env, &repo, false)), json!({}));
    let end = env.run(&gemini_event(
        "SessionEnd",
        repo.path(),
        json!({"reason": "exit"}),
    ));
    assert_eq!(assert_gemini(&end), json!({}));
    env.assert_no_content();
}

#[test]
fn a_risky_gemini_turn_continues_once_even_when_the_continuation_uses_tools() {
    // `answer: context` would pick `additionalContext` on Claude Code; Gemini never gets it.
    let repo = admin_repo(r#"{"threshold": 0.05, "answer": "context"}"#);
    let env = HookEnv::new().var("JEV_PREFLIGHT_SCORER", "local");
    assert_gemini(&before_agent(&env, &repo, "tighten the delete endpoint"));
    risky_edit(&repo);
    let answer = after_agent(&env, &repo, false);
    let v = assert_gemini(&answer);
    let reason = answer.continuation().expect("a continuation");
    assert!(reason.contains("auth_boundary"), "{v}");

    // Gemini sends the reason back as a prompt: BeforeAgent with our own text. It must not
    // start a new prompt, or the Stop after a tool-using continuation (stop_hook_active
    // false) would be scored afresh.
    let again = before_agent(&env, &repo, &reason);
    assert_eq!(assert_gemini(&again), json!({}));
    assert!(
        again.stderr.contains("our own continuation"),
        "{}",
        again.stderr
    );
    repo.write("src/api.rs", "pub fn delete_user() { unimplemented!() }\n");
    for active in [false, true] {
        let r = after_agent(&env, &repo, active);
        assert_eq!(assert_gemini(&r), json!({}), "stop_hook_active {active}");
    }

    // The next typed prompt is a new prompt again, with its own single chance.
    repo.write(
        "src/api.rs",
        "pub fn delete_user(db: &mut Db, caller: &Caller, id: u64) -> Result<(), E> {\n    require_admin(caller)?;\n    db.delete(id)\n}\n",
    );
    assert_gemini(&before_agent(&env, &repo, "now do it again"));
    risky_edit(&repo);
    let next = after_agent(&env, &repo, false);
    assert_gemini(&next);
    assert!(next.continuation().is_some(), "{}", next.stdout);
}

#[test]
fn report_mode_on_gemini_is_a_system_message() {
    let repo = admin_repo(r#"{"threshold": 0.05, "mode": "report"}"#);
    let env = HookEnv::new().var("JEV_PREFLIGHT_SCORER", "local");
    assert_gemini(&before_agent(&env, &repo, "x"));
    risky_edit(&repo);
    let v = assert_gemini(&after_agent(&env, &repo, false));
    assert!(
        v["systemMessage"].as_str().unwrap().contains("report"),
        "{v}"
    );
    assert!(v.get("decision").is_none(), "{v}");
}

#[test]
fn failures_on_gemini_stay_one_json_object() {
    let repo = admin_repo(r#"{"mode": "loud"}"#);
    let env = HookEnv::new().var("JEV_PREFLIGHT_SCORER", "local");
    let r = before_agent(&env, &repo, "x");
    assert_eq!(r.class().as_deref(), Some("config_invalid"), "{}", r.stderr);
    let v = assert_gemini(&r);
    assert!(v["systemMessage"].is_string(), "{v}");
    assert_gemini(&after_agent(&env, &repo, false));

    let repo = admin_repo(r#"{"threshold": 0.05}"#);
    let env = HookEnv::new().var("JEV_PREFLIGHT_SCORER", "jev");
    assert_gemini(&before_agent(&env, &repo, "x"));
    risky_edit(&repo);
    let r = after_agent(&env, &repo, false);
    assert_eq!(r.class().as_deref(), Some("missing_key"), "{}", r.stderr);
    let v = assert_gemini(&r);
    assert!(v.get("decision").is_none(), "{v}");
}

#[test]
fn mode_off_on_gemini_writes_nothing() {
    let repo = admin_repo(r#"{"mode": "off"}"#);
    let env = HookEnv::new().var("JEV_PREFLIGHT_SCORER", "local");
    assert_eq!(assert_gemini(&before_agent(&env, &repo, "x")), json!({}));
    risky_edit(&repo);
    assert_eq!(assert_gemini(&after_agent(&env, &repo, false)), json!({}));
    assert!(env.data_files().is_empty(), "{:?}", env.data_files());
}
