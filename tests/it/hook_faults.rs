//! The fault matrix: every failure of ours ends with exit 0, valid-or-empty stdout, at most
//! one notice, and no prompt content left in the store.

use std::path::Path;

use serde_json::json;

use crate::support::TestRepo;
use crate::support::hook::{HookEnv, HookResult, JevServer, event, jev_answer, with};

const KEY: &str = "sk-ts-FAULT-KEY-19bd";

fn repo() -> TestRepo {
    let repo = TestRepo::new();
    repo.write(
        "src/lib.rs",
        "pub fn check(user: &User) -> bool {\n    user.is_admin()\n}\n",
    );
    repo.commit_all("init");
    repo
}

fn turn(env: &HookEnv, repo: &TestRepo, session: &str) -> (HookResult, HookResult) {
    let a = env.run(&event("UserPromptSubmit", session, "p1", repo.path()));
    a.ok();
    repo.write(
        "src/lib.rs",
        format!("pub fn check(_user: &User) -> bool {{\n    true // {session}\n}}\n"),
    );
    let b = env.run(&with(
        event("Stop", session, "p1", repo.path()),
        json!({"stop_hook_active": false}),
    ));
    b.ok();
    env.assert_no_content();
    (a, b)
}

/// The failure shows one notice naming `class` across the two events of a turn.
fn assert_one_notice(pair: &(HookResult, HookResult), class: &str) {
    let notices: Vec<String> = [&pair.0, &pair.1]
        .iter()
        .filter_map(|r| r.notice())
        .collect();
    assert_eq!(notices.len(), 1, "{pair:#?}");
    assert!(notices[0].contains(class), "{notices:?}");
    assert!(pair.0.continuation().is_none() && pair.1.continuation().is_none());
}

#[test]
fn no_git_not_a_repo_bare_repo() {
    let env = HookEnv::new().var("PATH", "/nonexistent-bin");
    let repo = repo();
    let r = env.run(&event("UserPromptSubmit", "s", "p", repo.path()));
    r.ok();
    assert_eq!(r.class().as_deref(), Some("git_missing"));
    assert!(r.notice().unwrap().contains("git_missing"));
    let again = env.run(&event("UserPromptSubmit", "s", "p2", repo.path()));
    assert_eq!(again.stdout, "", "notice once per session per class");

    let env = HookEnv::new();
    let plain = tempfile::tempdir().unwrap();
    let r = env.run(&event("UserPromptSubmit", "s", "p", plain.path()));
    r.ok();
    assert_eq!(r.stdout, "");
    let bare = TestRepo::with_init_args(&["--bare"]);
    let r = env.run(&event("UserPromptSubmit", "s", "p", bare.path()));
    r.ok();
    assert_eq!(r.stdout, "");
    assert!(
        !env.data.exists()
            || env
                .data_files()
                .iter()
                .all(|(p, _)| !p.ends_with("state.json"))
    );
}

#[test]
fn index_lock_held_does_not_stop_the_check() {
    let server = JevServer::start(200, &jev_answer(0.95, 0.1));
    let env = HookEnv::new().jev(&server, KEY);
    let repo = repo();
    std::fs::write(repo.path().join(".git/index.lock"), "").unwrap();
    let (_, stop) = turn(&env, &repo, "s");
    assert!(stop.continuation().is_some(), "{stop:?}");
    assert!(repo.path().join(".git/index.lock").exists());
}

#[test]
fn corrupt_state_and_symlinked_state() {
    let server = JevServer::start(200, &jev_answer(0.95, 0.1));
    let env = HookEnv::new().jev(&server, KEY);
    let repo = repo();
    env.run(&event("UserPromptSubmit", "s", "p1", repo.path()))
        .ok();
    let state = env
        .data_files()
        .into_iter()
        .map(|(p, _)| p)
        .find(|p| p.ends_with("state.json"))
        .unwrap();
    std::fs::write(&state, b"\x00garbage").unwrap();
    let r = env.run(&event("Stop", "s", "p1", repo.path()));
    r.ok();
    assert_eq!(r.class().as_deref(), Some("state_corrupt"));
    assert!(r.notice().is_some());
    env.assert_no_content();

    let outside = env.root.path().join("outside.json");
    std::fs::write(&outside, "{}").unwrap();
    env.run(&event("UserPromptSubmit", "s2", "p1", repo.path()))
        .ok();
    let state = env
        .data_files()
        .into_iter()
        .map(|(p, _)| p)
        .find(|p| p.ends_with("state.json"))
        .unwrap();
    std::fs::remove_file(&state).unwrap();
    std::os::unix::fs::symlink(&outside, &state).unwrap();
    let r = env.run(&event("Stop", "s2", "p1", repo.path()));
    r.ok();
    assert_eq!(r.class().as_deref(), Some("store_unsafe"));
    assert!(r.notice().is_some());
    assert_eq!(std::fs::read_to_string(&outside).unwrap(), "{}");
    assert!(
        std::fs::symlink_metadata(&state).is_err(),
        "the link is removed"
    );
    env.assert_no_content();
    assert_eq!(server.requests(), 0);
}

#[test]
fn unusable_data_dir() {
    let repo = repo();
    // A file where the data dir should be.
    let env = HookEnv::new();
    std::fs::write(&env.data, "not a dir").unwrap();
    let r = env.run(&event("UserPromptSubmit", "s", "p", repo.path()));
    r.ok();
    assert_eq!(r.class().as_deref(), Some("store_unsafe"));
    assert!(r.notice().is_some());
    // A data dir owned by someone else (the tests may run as root, so no chmod trick).
    let env = HookEnv::new();
    std::fs::create_dir(&env.data).unwrap();
    let uid = unsafe_uid();
    if uid == 0 {
        std::os::unix::fs::chown(&env.data, Some(65534), Some(65534)).unwrap();
        let r = env.run(&event("UserPromptSubmit", "s", "p", repo.path()));
        r.ok();
        assert_eq!(r.class().as_deref(), Some("store_unsafe"));
    }
    // A data dir full of someone else's files.
    let env = HookEnv::new();
    std::fs::create_dir(&env.data).unwrap();
    std::fs::write(env.data.join("precious.txt"), "x").unwrap();
    let r = env.run(&event("UserPromptSubmit", "s", "p", repo.path()));
    r.ok();
    assert_eq!(r.class().as_deref(), Some("store_foreign"));
    assert_eq!(std::fs::read_dir(&env.data).unwrap().count(), 1);
}

fn unsafe_uid() -> u32 {
    use std::os::unix::fs::MetadataExt;
    std::fs::metadata(std::env::temp_dir()).map(|_| ()).ok();
    let probe = tempfile::tempfile().unwrap();
    probe.metadata().unwrap().uid()
}

#[test]
fn invalid_config_each_rule() {
    let server = JevServer::start(200, &jev_answer(0.95, 0.1));
    let env = HookEnv::new().jev(&server, KEY);
    let cases = [
        r#"{"mode":"loud"}"#,
        r#"{"unknown":1}"#,
        r#"{"threshold":"high"}"#,
        r#"{"threshold":7}"#,
        r#"{"mode":null}"#,
        r#"{"mode":"off"} trailing"#,
        r#"{"thresholds":{"not_an_axis":0.5}}"#,
        r#"{"maxDiffBytes":-1}"#,
        r#"{"exclude":["[z-a]"]}"#,
    ];
    for (i, text) in cases.iter().enumerate() {
        let repo = repo();
        repo.write(".jev-preflight.json", text);
        let pair = turn(&env, &repo, &format!("session-{i}"));
        assert_one_notice(&pair, "config_invalid");
        assert!(
            pair.0.notice().unwrap().contains(".jev-preflight.json"),
            "{text}"
        );
    }
    assert_eq!(server.requests(), 0);
}

#[test]
fn repository_config_cannot_redirect_the_endpoint() {
    let real = JevServer::start(200, &jev_answer(0.95, 0.1));
    let evil = JevServer::start(200, &jev_answer(0.95, 0.1));
    let env = HookEnv::new().jev(&real, KEY);
    for (i, text) in [
        format!(r#"{{"jevUrl":"{}"}}"#, evil.url()),
        format!(r#"{{"endpoint":"{}"}}"#, evil.url()),
        r#"{"command":["sh","-c","touch /tmp/jev-pwned"]}"#.to_owned(),
        r#"{"scorer":"command"}"#.to_owned(),
    ]
    .iter()
    .enumerate()
    {
        let repo = repo();
        repo.write(".jev-preflight.json", text);
        let pair = turn(&env, &repo, &format!("s{i}"));
        assert_one_notice(&pair, "config_invalid");
    }
    assert_eq!(evil.requests(), 0);
    assert_eq!(real.requests(), 0);
    assert!(evil.seen().is_empty());
}

#[test]
fn bad_input() {
    let env = HookEnv::new();
    let cases: Vec<(Vec<u8>, Option<&str>)> = vec![
        (b"this is not json".to_vec(), Some("input_invalid")),
        (vec![b'{'; 10 * 1024 * 1024], Some("input_too_large")),
        (b"{}".to_vec(), None),
        (br#"{"hook_event_name":"Stop"}"#.to_vec(), None),
        (br#"{"hook_event_name":"UserPromptSubmit"}"#.to_vec(), None),
        (br#"{"hook_event_name":"SessionEnd"}"#.to_vec(), None),
        (
            br#"{"hook_event_name":"SessionStart","source":"startup"}"#.to_vec(),
            None,
        ),
        (
            br#"{"hook_event_name":"Stop","cwd":42,"session_id":[],"stop_hook_active":"yes"}"#
                .to_vec(),
            None,
        ),
        (b"".to_vec(), None),
    ];
    for (i, (input, class)) in cases.into_iter().enumerate() {
        let r = env.hook().stdin(input).run();
        assert_eq!(r.code, Some(0), "case {i}: {r:?}");
        assert_eq!(r.class().as_deref(), class, "case {i}: {r:?}");
        if class.is_some() {
            r.ok();
        } else {
            assert_eq!(r.stdout, "", "case {i}");
        }
    }
}

#[test]
fn scorer_failures_fail_open_with_one_notice() {
    let cases: Vec<(u16, String, &str)> = vec![
        (500, "{}".into(), "http_500"),
        (401, "{}".into(), "http_401"),
        (200, "not json".into(), "invalid_response"),
        (200, r#"{"answers":{}}"#.into(), "invalid_response"),
        (
            200,
            format!(r#"{{"pad":"{}"}}"#, "x".repeat(70 * 1024)),
            "response_too_large",
        ),
    ];
    for (status, body, class) in cases {
        let server = JevServer::start(status, &body);
        let env = HookEnv::new().jev(&server, KEY);
        let repo = repo();
        let pair = turn(&env, &repo, "s");
        assert_one_notice(&pair, class);
        assert_eq!(pair.1.class().as_deref(), Some(class));
        assert!(!pair.1.stderr.contains(KEY));
        // Same class again in the session: no second notice.
        env.run(&event("UserPromptSubmit", "s", "p2", repo.path()))
            .ok();
        repo.write("src/new.rs", "fn n() {}\n");
        let again = env.run(&event("Stop", "s", "p2", repo.path()));
        again.ok();
        assert_eq!(again.notice(), None, "{again:?}");
    }
    // Nobody listening.
    let closed = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!(
        "http://127.0.0.1:{}/v1/systemone",
        closed.local_addr().unwrap().port()
    );
    drop(closed);
    let env = HookEnv::new()
        .var("JEV_PREFLIGHT_JEV_URL", &url)
        .var("TYPESAFE_API_KEY", KEY);
    let pair = turn(&env, &repo(), "s");
    assert_one_notice(&pair, "network");
}

#[test]
fn command_scorer_failure() {
    let env = HookEnv::new()
        .var("JEV_PREFLIGHT_SCORER", "command")
        .var("JEV_PREFLIGHT_COMMAND", r#"["false"]"#);
    let pair = turn(&env, &repo(), "s");
    assert_one_notice(&pair, "command_failed");
    // A user config file that does not parse is the user's failure class, not the repo's.
    let env = HookEnv::new();
    std::fs::create_dir_all(env.config_home.join("jev-preflight")).unwrap();
    std::fs::write(
        env.config_home.join("jev-preflight/config.json"),
        r#"{"scorer":"jev","jevUrl":1}"#,
    )
    .unwrap();
    let pair = turn(&env, &repo(), "s");
    assert_one_notice(&pair, "user_config_invalid");
}

#[test]
fn missing_key_for_jev() {
    let env = HookEnv::new().var("JEV_PREFLIGHT_SCORER", "jev");
    let pair = turn(&env, &repo(), "s");
    assert_one_notice(&pair, "missing_key");
}

#[test]
fn a_panic_would_be_a_hook_error_so_the_panic_path_is_exit_zero() {
    // Unreadable stdin is the closest outside trigger; the in-process tests inject panics.
    let env = HookEnv::new();
    let r = env.hook().stdin(vec![0xff, 0xfe, 0x00]).run();
    r.ok();
    assert_eq!(r.class().as_deref(), Some("input_invalid"));
    let _ = Path::new("");
}

#[test]
fn a_stdin_that_never_closes_gives_up_in_bounded_time() {
    let deadline = jev_preflight::hook::STDIN_DEADLINE;
    let limit = deadline + std::time::Duration::from_secs(15);
    let env = HookEnv::new();
    let repo = repo();
    // Nothing, or half an event, and stdin left open: give up, fail open, exit 0.
    for input in [&b""[..], br#"{"hook_event_name":"Stop","session_id":"#] {
        let (elapsed, r) = env.hook().stdin(input).run_with_stdin_open(limit);
        r.ok();
        assert!(elapsed >= deadline, "{elapsed:?}");
        assert_eq!(r.class().as_deref(), Some("input_invalid"), "{r:?}");
        assert!(
            r.stderr.contains("stdin was still open after"),
            "{}",
            r.stderr
        );
        assert!(r.continuation().is_none());
    }
    // A whole event on a stdin the host forgot to close is still handled.
    let event = event("UserPromptSubmit", "open", "p1", repo.path()).to_string();
    let (_, r) = env.hook().stdin(event).run_with_stdin_open(limit);
    r.ok();
    assert!(r.stderr.contains("baseline taken"), "{}", r.stderr);
}
