//! Remembering what was already looked at (issue 25, item 6), through the real binary: an
//! axis the agent was asked about, for lines it then left as they were, is not raised again
//! for those lines — in the session, and in the repository for `memoryDays` — while a changed
//! hunk is raised again; `status` shows what is remembered and why a finding was not raised;
//! `forget` forgets. The scorer is a loopback Jev endpoint that raises `auth_boundary` only
//! when the payload removes the admin check, as a careful scorer would.
#![cfg(unix)]

use std::path::Path;

use serde_json::{Value, json};

use crate::support::TestRepo;
use crate::support::hook::{HookEnv, HookResult, event, jev_answer, with};
use crate::support::http::{Response, TestServer};

const API: &str = "use crate::auth::require_admin;\n\n/// Deletes a user. Only administrators may do this.\npub fn delete_user(db: &mut Db, caller: &Caller, id: u64) -> Result<(), E> {\n    require_admin(caller)?;\n    db.users().delete(id)?;\n    Ok(())\n}\n";
/// The risky change: the admin check removed.
const RISKY: &str = "use crate::auth::require_admin;\n\n/// Deletes a user. Only administrators may do this.\npub fn delete_user(db: &mut Db, caller: &Caller, id: u64) -> Result<(), E> {\n    db.users().delete(id)?;\n    Ok(())\n}\n";
/// Another change of the same lines: the check removed and the call beside it changed.
const RISKY_OTHER: &str = "use crate::auth::require_admin;\n\n/// Deletes a user. Only administrators may do this.\npub fn delete_user(db: &mut Db, caller: &Caller, id: u64) -> Result<(), E> {\n    db.users().remove(id)?;\n    Ok(())\n}\n";

/// A Jev endpoint that gives `auth_boundary` 0.97 when the payload removes the admin check,
/// and 0.1 to every axis otherwise.
fn scorer() -> TestServer {
    TestServer::start(|req, _| {
        let body: Value = serde_json::from_slice(&req.body).unwrap_or(Value::Null);
        let diff = body["state"]["diff"].as_str().unwrap_or("");
        let auth = if diff.contains("-    require_admin(caller)?;") {
            0.97
        } else {
            0.1
        };
        Response::json(200, jev_answer(auth, 0.1))
    })
}

struct Session<'a> {
    env: &'a HookEnv,
    repo: &'a TestRepo,
    id: String,
    n: usize,
}

impl<'a> Session<'a> {
    fn new(env: &'a HookEnv, repo: &'a TestRepo, id: &str) -> Session<'a> {
        Session {
            env,
            repo,
            id: id.into(),
            n: 0,
        }
    }

    /// One prompt: its baseline, the agent's `turn`, then the Stop.
    fn prompt(&mut self, turn: impl FnOnce(&TestRepo)) -> HookResult {
        self.n += 1;
        let prompt = format!("p{}", self.n);
        let up = self.env.run(&event(
            "UserPromptSubmit",
            &self.id,
            &prompt,
            self.repo.path(),
        ));
        up.ok();
        turn(self.repo);
        let out = self
            .env
            .run(&event("Stop", &self.id, &prompt, self.repo.path()));
        out.ok();
        out
    }

    /// The Stop that follows a continuation: the agent looked and finished.
    fn after_continuation(&self, turn: impl FnOnce(&TestRepo)) -> HookResult {
        turn(self.repo);
        let prompt = format!("p{}", self.n);
        let out = self.env.run(&with(
            event("Stop", &self.id, &prompt, self.repo.path()),
            json!({"stop_hook_active": true}),
        ));
        out.ok();
        out
    }
}

fn asks_about(out: &HookResult, axis: &str) -> bool {
    out.continuation().is_some_and(|text| text.contains(axis))
}

fn cli(env: &HookEnv, dir: &Path, args: &[&str]) -> String {
    let out = env.command(args).current_dir(dir).output().unwrap();
    assert!(
        out.status.success(),
        "{args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

fn repo() -> TestRepo {
    let r = TestRepo::new();
    r.write("src/api.rs", API)
        .write("src/other.rs", "pub fn other() {}\n")
        .commit_all("init");
    r
}

/// The acceptance test: prompt 1 removes the check (one continuation); the agent looks and
/// leaves it; prompt 2 is an unrelated edit (no continuation); later prompts that make the
/// very same change again do not raise the axis again; a changed hunk is raised again.
#[test]
fn an_axis_looked_at_is_not_raised_again_for_the_same_lines() {
    let server = scorer();
    let r = repo();
    let env = HookEnv::new()
        .var("JEV_PREFLIGHT_JEV_URL", &server.url("/v1/systemone"))
        .var("TYPESAFE_API_KEY", "ts-key");
    let mut s = Session::new(&env, &r, "s1");

    let out = s.prompt(|r| {
        r.write("src/api.rs", RISKY);
    });
    assert!(asks_about(&out, "auth_boundary"), "{out:?}");
    // The agent looks, says the removal is intended, edits nothing of it.
    let out = s.after_continuation(|r| {
        r.write(
            "src/other.rs",
            "// looked at delete_user: the check moved to the router\npub fn other() {}\n",
        );
    });
    assert_eq!(out.outcome(), "stop_hook_active; prompt finished");
    let status = cli(&env, r.path(), &["status"]);
    assert!(
        status.contains("auth_boundary on src/api.rs (hunk "),
        "{status}"
    );

    // Prompt 2: an unrelated edit; the risky lines untouched.
    let out = s.prompt(|r| {
        r.write("src/other.rs", "pub fn other() -> u8 { 1 }\n");
    });
    assert_eq!(out.outcome(), "below threshold");
    assert!(out.continuation().is_none());

    // The agent undoes the change, then makes it again, the very same lines: not raised.
    let out = s.prompt(|r| {
        r.write("src/api.rs", API);
    });
    assert_eq!(out.outcome(), "below threshold");
    let requests = server.hits();
    let out = s.prompt(|r| {
        r.write("src/api.rs", RISKY);
    });
    assert_eq!(out.outcome(), "already looked at", "{out:?}");
    assert!(out.continuation().is_none());
    let entry = env.last_decision();
    assert_eq!(entry["remembered"], json!(["auth_boundary"]));
    assert_eq!(entry["scores"]["auth_boundary"], json!(0.97));
    // The same payload as prompt 1's: its scores were reused, nothing sent.
    assert_eq!(entry["budget"], "cached");
    assert_eq!(server.hits(), requests);
    let status = cli(&env, r.path(), &["status"]);
    assert!(status.contains("already looked at"), "{status}");
    assert!(
        status.contains("not raised again (already looked at, same lines): auth_boundary"),
        "{status}"
    );
    assert!(
        status.contains("kept from being raised 1 time(s)"),
        "{status}"
    );

    // A changed hunk of the same lines is another change: raised again.
    s.prompt(|r| {
        r.write("src/api.rs", API);
    });
    let out = s.prompt(|r| {
        r.write("src/api.rs", RISKY_OTHER);
    });
    assert!(asks_about(&out, "auth_boundary"), "{out:?}");
    assert!(env.last_decision().get("remembered").is_none());
}

/// Past its session the memory holds in the repository for `memoryDays` (the repository may
/// set 0: only the session that asked); `forget` forgets everything.
#[test]
fn the_memory_lasts_its_days_in_the_repository_and_forget_clears_it() {
    let server = scorer();
    let r = repo();
    let env = HookEnv::new()
        .var("JEV_PREFLIGHT_JEV_URL", &server.url("/v1/systemone"))
        .var("TYPESAFE_API_KEY", "ts-key");
    let mut first = Session::new(&env, &r, "first");
    assert!(asks_about(
        &first.prompt(|r| {
            r.write("src/api.rs", RISKY);
        }),
        "auth_boundary"
    ));
    first.after_continuation(|_| {});
    first.prompt(|r| {
        r.write("src/api.rs", API);
    });

    // Another session, the same change: still remembered (7 days by default).
    let mut second = Session::new(&env, &r, "second");
    let out = second.prompt(|r| {
        r.write("src/api.rs", RISKY);
    });
    assert_eq!(out.outcome(), "already looked at");
    second.prompt(|r| {
        r.write("src/api.rs", API);
    });

    // The repository says 0 days: from its next prompt, only the session that asked is spared.
    r.write(".jev-preflight.json", r#"{"memoryDays": 0}"#)
        .commit_all("memory: session only");
    let mut third = Session::new(&env, &r, "third");
    let out = third.prompt(|r| {
        r.write("src/api.rs", RISKY);
    });
    assert!(asks_about(&out, "auth_boundary"), "{out:?}");
    // …while the session that asked still is.
    first.prompt(|r| {
        r.write("src/api.rs", API);
    });
    let out = first.prompt(|r| {
        r.write("src/api.rs", RISKY);
    });
    assert_eq!(out.outcome(), "already looked at");

    // `forget`: raised again, even in the session that asked.
    first.prompt(|r| {
        r.write("src/api.rs", API);
    });
    let said = cli(&env, r.path(), &["forget"]);
    assert!(said.starts_with("forgot 1 finding(s) in "), "{said}");
    let status = cli(&env, r.path(), &["status"]);
    assert!(status.contains("remembered: nothing yet"), "{status}");
    let out = first.prompt(|r| {
        r.write("src/api.rs", RISKY);
    });
    assert!(asks_about(&out, "auth_boundary"), "{out:?}");
    // Nothing of the code is kept: only fingerprints, axis and path.
    for (path, bytes) in env.data_files() {
        if path.ends_with("memory.json") {
            let text = String::from_utf8_lossy(&bytes);
            assert!(!text.contains("require_admin"), "{text}");
        }
    }
}
