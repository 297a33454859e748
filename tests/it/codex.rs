//! Codex CLI as a host: events shaped like Codex's (`turn_id`, `model`, no `prompt_id`, no
//! SessionEnd), and every answer checked against Codex's command-hook output schemas.
//!
//! Codex's schemas (`codex-rs/hooks/schema/generated/*.command.output.schema.json`) are
//! objects with `additionalProperties: false`. Stop allows `continue`, `decision` (`"block"`
//! or null), `reason` (required and not blank when blocking), `stopReason`, `suppressOutput`,
//! `systemMessage`. On exit 0, stdout that is not JSON is an error in Codex, so the hook must
//! print one object or nothing. For UserPromptSubmit we hold ourselves to the narrower rule
//! of printing nothing at all: Codex would add any `additionalContext` to the prompt.

use serde_json::{Value, json};

use crate::support::hook::{HookEnv, HookResult};
use crate::support::{ADMIN_UNCHECKED, TestRepo, admin_repo};

/// The keys Codex's Stop output schema allows.
const STOP_KEYS: &[&str] = &[
    "continue",
    "decision",
    "reason",
    "stopReason",
    "suppressOutput",
    "systemMessage",
];

/// Violations of Codex's Stop output schema.
fn stop_schema_violations(v: &Value) -> Vec<String> {
    let mut out = Vec::new();
    let Some(obj) = v.as_object() else {
        return vec!["not an object".into()];
    };
    for (k, val) in obj {
        if !STOP_KEYS.contains(&k.as_str()) {
            out.push(format!("key `{k}` is not allowed"));
            continue;
        }
        let ok = match k.as_str() {
            "continue" | "suppressOutput" => val.is_boolean(),
            "decision" => val.is_null() || val == "block",
            _ => val.is_null() || val.is_string(),
        };
        if !ok {
            out.push(format!("`{k}` has the wrong type: {val}"));
        }
    }
    if obj.get("decision") == Some(&json!("block")) {
        match obj.get("reason").and_then(Value::as_str) {
            Some(r) if !r.trim().is_empty() => {}
            _ => out.push("`reason` must be a non-blank string when blocking".into()),
        }
    }
    out
}

/// Stdout is empty, or one object valid under the Stop schema.
fn assert_codex_stop(r: &HookResult) {
    r.ok();
    if let Some(v) = r.json() {
        let bad = stop_schema_violations(&v);
        assert!(bad.is_empty(), "{bad:?} in {}", r.stdout);
    }
}

fn codex_event(name: &str, turn: &str, cwd: &std::path::Path, extra: Value) -> Value {
    let mut e = json!({
        "session_id": "codex-session-1",
        "turn_id": turn,
        "transcript_path": null,
        "cwd": cwd,
        "hook_event_name": name,
        "model": "gpt-5-codex",
        "permission_mode": "default",
    });
    for (k, v) in extra.as_object().unwrap() {
        e[k] = v.clone();
    }
    e
}

fn ups(env: &HookEnv, repo: &TestRepo, turn: &str) -> HookResult {
    env.run(&codex_event(
        "UserPromptSubmit",
        turn,
        repo.path(),
        json!({"prompt": "tighten the delete endpoint"}),
    ))
}

fn stop(env: &HookEnv, repo: &TestRepo, turn: &str, active: bool) -> HookResult {
    env.run(&codex_event(
        "Stop",
        turn,
        repo.path(),
        json!({"stop_hook_active": active, "last_assistant_message": null}),
    ))
}

/// The turn's edit: the admin check removed.
fn risky_edit(repo: &TestRepo) {
    repo.write("src/api.rs", ADMIN_UNCHECKED);
}

#[test]
fn the_schema_checker_rejects_what_codex_rejects() {
    let bad = [
        json!({"hookSpecificOutput": {"hookEventName": "Stop", "additionalContext": "x"}}),
        json!({"decision": "block"}),
        json!({"decision": "block", "reason": "  "}),
        json!({"decision": "approve", "reason": "x"}),
        json!({"systemMessage": 3}),
        json!([]),
    ];
    for v in bad {
        assert!(!stop_schema_violations(&v).is_empty(), "{v}");
    }
    for v in [
        json!({"decision": "block", "reason": "look again"}),
        json!({"systemMessage": "note"}),
        json!({}),
    ] {
        assert!(stop_schema_violations(&v).is_empty(), "{v}");
    }
}

#[test]
fn a_codex_turn_continues_with_decision_and_reason_only() {
    // `answer: context` would pick `additionalContext` on Claude Code; Codex never gets it.
    let repo = admin_repo(r#"{"threshold": 0.05, "answer": "context"}"#);
    let env = HookEnv::new().var("JEV_PREFLIGHT_SCORER", "local");
    let first = ups(&env, &repo, "turn-1");
    first.ok();
    assert_eq!(
        first.stdout, "",
        "UserPromptSubmit prints nothing for Codex"
    );
    risky_edit(&repo);
    let answer = stop(&env, &repo, "turn-1", false);
    assert_codex_stop(&answer);
    let v = answer.json().expect("a continuation");
    assert_eq!(v["decision"], "block");
    assert!(
        v["reason"].as_str().unwrap().contains("auth_boundary"),
        "{v}"
    );
    assert!(v.get("hookSpecificOutput").is_none());
    // The continuation's own Stop, and a duplicate: nothing at all.
    let again = stop(&env, &repo, "turn-1", true);
    assert_codex_stop(&again);
    assert_eq!(again.stdout, "");
    let dup = stop(&env, &repo, "turn-1", false);
    assert_codex_stop(&dup);
    assert_eq!(dup.stdout, "");
}

#[test]
fn a_quiet_codex_turn_prints_nothing() {
    let repo = admin_repo(r#"{"threshold": 1}"#);
    let env = HookEnv::new().var("JEV_PREFLIGHT_SCORER", "local");
    assert_eq!(ups(&env, &repo, "t").stdout, "");
    repo.write("README.md", "docs\n");
    let r = stop(&env, &repo, "t", false);
    assert_codex_stop(&r);
    assert_eq!(r.stdout, "");
}

#[test]
fn report_mode_on_codex_is_a_system_message() {
    let repo = admin_repo(r#"{"threshold": 0.05, "mode": "report"}"#);
    let env = HookEnv::new().var("JEV_PREFLIGHT_SCORER", "local");
    assert_eq!(ups(&env, &repo, "t").stdout, "");
    risky_edit(&repo);
    let r = stop(&env, &repo, "t", false);
    assert_codex_stop(&r);
    let v = r.json().unwrap();
    assert!(
        v["systemMessage"].as_str().unwrap().contains("report"),
        "{v}"
    );
    assert!(v.get("decision").is_none());
}

#[test]
fn failures_on_codex_stay_inside_the_schemas() {
    // An invalid repository config fails the prompt: nothing on stdout for Codex's
    // UserPromptSubmit, and the Stop that follows has no baseline.
    let repo = admin_repo(r#"{"mode": "loud"}"#);
    let env = HookEnv::new().var("JEV_PREFLIGHT_SCORER", "local");
    let r = ups(&env, &repo, "t");
    r.ok();
    assert_eq!(r.stdout, "");
    assert_eq!(r.class().as_deref(), Some("config_invalid"), "{}", r.stderr);
    assert_codex_stop(&stop(&env, &repo, "t", false));

    // A scorer failure at Stop: at most a `systemMessage`, never a continuation.
    let repo = admin_repo(r#"{"threshold": 0.05}"#);
    let env = HookEnv::new().var("JEV_PREFLIGHT_SCORER", "jev");
    assert_eq!(ups(&env, &repo, "t").stdout, "");
    risky_edit(&repo);
    let r = stop(&env, &repo, "t", false);
    assert_codex_stop(&r);
    assert_eq!(r.class().as_deref(), Some("missing_key"), "{}", r.stderr);
    let v = r.json().expect("a notice");
    assert!(v.get("decision").is_none(), "{v}");
    assert!(v["systemMessage"].is_string(), "{v}");

    // Garbage on stdin is not Codex's fault, but the answer must still parse as Stop output.
    let r = env.hook().stdin("{not json").run();
    assert_codex_stop(&r);
}
