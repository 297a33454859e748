//! Concurrency and crashes through the real binary: parallel hook processes, and random
//! sequences with processes killed at random moments.

use std::process::Stdio;
use std::time::Duration;

use serde_json::{Value, json};

use crate::support::TestRepo;
use crate::support::hook::{HookEnv, JevServer, event, jev_answer, with};

const KEY: &str = "sk-ts-CONC-KEY-5521";

fn repo() -> TestRepo {
    let repo = TestRepo::new();
    repo.write(
        "src/lib.rs",
        "pub fn allowed(u: &User) -> bool {\n    u.is_admin()\n}\n",
    );
    repo.commit_all("init");
    repo
}

fn spawn(env: &HookEnv, ev: &Value) -> std::process::Child {
    let mut child = env
        .command(&["hook"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    use std::io::Write;
    child
        .stdin
        .take()
        .unwrap()
        .write_all(ev.to_string().as_bytes())
        .unwrap();
    child
}

fn continues(stdout: &[u8]) -> bool {
    let text = String::from_utf8_lossy(stdout);
    if text.trim().is_empty() {
        return false;
    }
    let v: Value = serde_json::from_str(&text).expect("valid JSON");
    v.get("decision").is_some() || v.get("hookSpecificOutput").is_some()
}

#[test]
fn two_sessions_and_two_stops_for_one_prompt() {
    let server = JevServer::start(200, &jev_answer(0.95, 0.1));
    let env = HookEnv::new().jev(&server, KEY);
    let repo = repo();
    // Two sessions baseline the same repo at once.
    let a = spawn(&env, &event("UserPromptSubmit", "sa", "p1", repo.path()));
    let b = spawn(&env, &event("UserPromptSubmit", "sb", "p1", repo.path()));
    for c in [a, b] {
        let out = c.wait_with_output().unwrap();
        assert!(out.status.success());
        assert!(
            out.stdout.is_empty(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
    repo.write(
        "src/lib.rs",
        "pub fn allowed(_u: &User) -> bool {\n    true\n}\n",
    );
    // Two Stops of session a's prompt plus one of session b, all at once.
    let stops: Vec<_> = [("sa", "p1"), ("sa", "p1"), ("sb", "p1")]
        .iter()
        .map(|(s, p)| {
            spawn(
                &env,
                &with(
                    event("Stop", s, p, repo.path()),
                    json!({"stop_hook_active": false}),
                ),
            )
        })
        .collect();
    let outs: Vec<_> = stops
        .into_iter()
        .map(|c| c.wait_with_output().unwrap())
        .collect();
    for o in &outs {
        assert!(o.status.success());
    }
    let a_count = outs[..2].iter().filter(|o| continues(&o.stdout)).count();
    assert_eq!(
        a_count, 1,
        "exactly one continuation for session a's prompt"
    );
    assert!(
        continues(&outs[2].stdout),
        "session b is evaluated on its own"
    );
    assert_eq!(server.requests(), 2);
    // Nothing corrupt: both prompts finish cleanly.
    for s in ["sa", "sb"] {
        let r = env.run(&with(
            event("Stop", s, "p1", repo.path()),
            json!({"stop_hook_active": true}),
        ));
        r.ok();
        assert_eq!(r.stdout, "");
        assert_eq!(r.class(), None, "{r:?}");
    }
    env.assert_no_content();
}

/// A tiny deterministic generator (the sequences must be reproducible from the seed).
struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

#[test]
fn random_sequences_with_killed_processes_never_continue_twice() {
    let server = JevServer::start(200, &jev_answer(0.95, 0.1));
    let sequences: u64 = std::env::var("JEV_BINARY_SEQUENCES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(12);
    for seed in 1..=sequences {
        let mut rng = Rng(0x9e3779b97f4a7c15 ^ seed);
        let env = HookEnv::new().jev(&server, KEY);
        let repo = repo();
        let mut continued = std::collections::HashMap::<String, u32>::new();
        for step in 0..8 {
            let prompt = format!("p{}", rng.below(2));
            let session = format!("s{}", rng.below(2));
            match rng.below(4) {
                0 => {
                    let r = env.run(&event("UserPromptSubmit", &session, &prompt, repo.path()));
                    assert_eq!(r.code, Some(0));
                }
                1 => {
                    repo.write(
                        "src/lib.rs",
                        format!("pub fn allowed(_u: &User) -> bool {{ {} }}\n", rng.next()),
                    );
                }
                2 => {
                    // Killed at a random moment.
                    let ev = with(
                        event("Stop", &session, &prompt, repo.path()),
                        json!({"stop_hook_active": rng.below(4) == 0}),
                    );
                    let name = if rng.below(2) == 0 {
                        ev
                    } else {
                        event("UserPromptSubmit", &session, &prompt, repo.path())
                    };
                    let mut child = spawn(&env, &name);
                    std::thread::sleep(Duration::from_millis(rng.below(40)));
                    let _ = child.kill();
                    let out = child.wait_with_output().unwrap();
                    if continues(&out.stdout) {
                        *continued.entry(format!("{session}/{prompt}")).or_default() += 1;
                    }
                }
                _ => {
                    let active = rng.below(4) == 0;
                    let r = env.run(&with(
                        event("Stop", &session, &prompt, repo.path()),
                        json!({"stop_hook_active": active}),
                    ));
                    r.ok();
                    if r.continuation().is_some() {
                        assert!(!active);
                        *continued.entry(format!("{session}/{prompt}")).or_default() += 1;
                    }
                }
            }
            for (k, n) in &continued {
                assert!(
                    *n <= 1,
                    "seed {seed} step {step}: {n} continuations for {k}"
                );
            }
        }
    }
}
