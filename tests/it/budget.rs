//! The remote scorers' budget (issue 25, item 7), through the real binary and a loopback Jev
//! endpoint that counts requests and reports token usage: the per-session and per-day limits
//! and the daily token limit hold; past a limit the built-in scorer scores (or the turn is
//! skipped), said once per session; an identical payload is never sent twice in a session;
//! `status` shows the counters.
#![cfg(unix)]

use std::time::{Duration, SystemTime};

use serde_json::Value;

use crate::support::TestRepo;
use crate::support::hook::{HookEnv, HookResult, event};
use crate::support::http::{Response, TestServer};

/// A Jev endpoint answering low scores on every axis, reporting 100 tokens used.
fn counting_server() -> TestServer {
    TestServer::start(|_, _| {
        let answers: serde_json::Map<String, Value> = jev_preflight::pipeline::axes::AXIS_IDS
            .iter()
            .map(|id| ((*id).to_owned(), serde_json::json!({"noul": 0.05})))
            .collect();
        Response::json(
            200,
            serde_json::json!({"answers": answers, "model": "jev-test", "usage": {"input_tokens": 90, "output_tokens": 10}})
                .to_string(),
        )
    })
}

/// Far enough from a UTC midnight that the whole test sees one day.
fn same_utc_day() {
    let secs = SystemTime::now()
        .duration_since(SystemTime::UNIX_EPOCH)
        .unwrap()
        .as_secs();
    let left = 86_400 - secs % 86_400;
    if left < 120 {
        std::thread::sleep(Duration::from_secs(left + 1));
    }
}

/// One prompt of `session` whose turn writes `body` into `src/lib.rs`.
fn prompt(env: &HookEnv, r: &TestRepo, session: &str, n: usize, body: &str) -> HookResult {
    let id = format!("p{n}");
    env.run(&event("UserPromptSubmit", session, &id, r.path()))
        .ok();
    r.write("src/lib.rs", body);
    let out = env.run(&event("Stop", session, &id, r.path()));
    out.ok();
    out
}

fn repo() -> TestRepo {
    let r = TestRepo::new();
    r.write("src/lib.rs", "pub fn f() {}\n").commit_all("init");
    r
}

fn env(server: &TestServer, extra: &[(&str, &str)]) -> HookEnv {
    let mut env = HookEnv::new()
        .var("JEV_PREFLIGHT_JEV_URL", &server.url("/v1/systemone"))
        .var("TYPESAFE_API_KEY", "ts-key");
    for (k, v) in extra {
        env.set(k, v);
    }
    env
}

#[test]
fn the_limits_hold_and_the_fallback_is_announced_once_per_session() {
    same_utc_day();
    let server = counting_server();
    let r = repo();
    let env = env(
        &server,
        &[
            ("JEV_PREFLIGHT_REMOTE_MAX_PER_SESSION", "2"),
            ("JEV_PREFLIGHT_REMOTE_MAX_PER_DAY", "3"),
        ],
    );
    // Session A: two requests, then the session limit.
    for n in 1..=2 {
        let out = prompt(&env, &r, "A", n, &format!("pub fn f() -> u8 {{ {n} }}\n"));
        assert_eq!(out.outcome(), "below threshold");
        assert!(out.notice().is_none(), "{out:?}");
    }
    assert_eq!(server.hits(), 2);
    let out = prompt(&env, &r, "A", 3, "pub fn f() -> u8 { 3 }\n");
    assert_eq!(server.hits(), 2, "nothing sent past the session limit");
    let notice = out.notice().expect("the fallback is announced");
    assert!(
        notice.contains("reached its limit of 2 remote request(s) per session")
            && notice.contains("built-in scorer"),
        "{notice}"
    );
    let entry = env.last_decision();
    assert_eq!(entry["scorer"], "local");
    assert_eq!(entry["budget"], "local: session limit");
    // Said once per session.
    let out = prompt(&env, &r, "A", 4, "pub fn f() -> u8 { 4 }\n");
    assert!(out.notice().is_none(), "{out:?}");
    assert_eq!(env.last_decision()["scorer"], "local");
    assert_eq!(server.hits(), 2);

    // Session B: one more request makes three today, then the daily limit.
    let out = prompt(&env, &r, "B", 1, "pub fn f() -> u8 { 5 }\n");
    assert!(out.notice().is_none());
    assert_eq!(server.hits(), 3);
    let out = prompt(&env, &r, "B", 2, "pub fn f() -> u8 { 6 }\n");
    assert_eq!(server.hits(), 3, "nothing sent past the daily limit");
    let notice = out.notice().expect("announced in this session too");
    assert!(notice.contains("per UTC day"), "{notice}");

    // `status` shows the counters.
    let status = env
        .command(&["status"])
        .current_dir(r.path())
        .output()
        .unwrap();
    let status = String::from_utf8(status.stdout).unwrap();
    assert!(
        status.contains("today (UTC) 3 of 3 request(s), 300 token(s) reported (no token limit)"),
        "{status}"
    );
    assert!(status.contains("of 2 request(s)"), "{status}");
}

#[test]
fn tokens_are_counted_and_skip_is_honoured() {
    same_utc_day();
    let server = counting_server();
    let r = repo();
    let env = env(
        &server,
        &[
            ("JEV_PREFLIGHT_REMOTE_MAX_TOKENS_PER_DAY", "150"),
            ("JEV_PREFLIGHT_OVER_BUDGET", "skip"),
        ],
    );
    // 100 tokens, then 200: the third request would pass 150.
    prompt(&env, &r, "T", 1, "pub fn f() -> u8 { 1 }\n");
    prompt(&env, &r, "T", 2, "pub fn f() -> u8 { 2 }\n");
    assert_eq!(server.hits(), 2);
    let out = prompt(&env, &r, "T", 3, "pub fn f() -> u8 { 3 }\n");
    assert_eq!(out.outcome(), "remote budget reached; skipped");
    assert_eq!(server.hits(), 2);
    let notice = out.notice().unwrap();
    assert!(
        notice.contains("150 reported token(s) per UTC day") && notice.contains("not checked"),
        "{notice}"
    );
    assert!(out.continuation().is_none());
}

#[test]
fn an_identical_payload_is_never_sent_twice_in_a_session() {
    let server = counting_server();
    let r = repo();
    let env = env(&server, &[]);
    let change = "pub fn f() -> u8 { 7 }\n";
    prompt(&env, &r, "S", 1, change);
    assert_eq!(server.hits(), 1);
    // Undone, then done again: the same payload as prompt 1's.
    prompt(&env, &r, "S", 2, "pub fn f() {}\n");
    assert_eq!(server.hits(), 2);
    let out = prompt(&env, &r, "S", 3, change);
    assert_eq!(out.outcome(), "below threshold");
    assert_eq!(server.hits(), 2, "scores reused, nothing sent");
    let entry = env.last_decision();
    assert_eq!(entry["budget"], "cached");
    assert_eq!(entry["scorer"], "jev");
    assert_eq!(entry["model"], "jev-test");
    // Another session sends it.
    prompt(&env, &r, "other", 1, "pub fn f() {}\n");
    prompt(&env, &r, "other", 2, change);
    assert_eq!(server.hits(), 4);
    // The ledger holds no content: times, session hashes, counts.
    let ledger = std::fs::read_to_string(env.data.join("spend.log")).unwrap();
    assert!(
        !ledger.contains("pub fn") && !ledger.contains("ts-key"),
        "{ledger}"
    );
    assert_eq!(
        ledger.lines().filter(|l| l.ends_with(" request")).count(),
        4
    );
}

#[test]
fn a_scorer_that_cannot_be_built_is_not_counted() {
    let server = counting_server();
    let r = repo();
    let mut env = env(&server, &[("JEV_PREFLIGHT_SCORER", "jev")]);
    env.unset("TYPESAFE_API_KEY");
    let out = prompt(&env, &r, "K", 1, "pub fn f() -> u8 { 1 }\n");
    assert_eq!(out.class().as_deref(), Some("missing_key"), "{out:?}");
    assert_eq!(server.hits(), 0);
    let ledger = std::fs::read_to_string(env.data.join("spend.log")).unwrap_or_default();
    assert!(!ledger.contains(" request"), "{ledger}");
}
