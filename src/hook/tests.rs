//! The hook's own logic against a fake engine and a real temp store: gates, state, answers,
//! fail-open, and the property "never more than one continuation per prompt".

use crate::hook::Argv;
use std::cell::Cell;
use std::collections::HashMap;
use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use proptest::prelude::*;
use serde_json::{Value, json};

use super::effects::{Checkpoint, Effects};
use super::{Context, Output, handle};
use crate::config::HostEnv;
use crate::git::attributes::Attributes;
use crate::git::diff::{Change, Status};
use crate::git::snapshot::{PrivateStore, Snapshot, SnapshotOptions};
use crate::git::turn::Turn;
use crate::git::{Discovery, Git, GitError, ObjectFormat, Repo};
use crate::pipeline::axes::AXIS_COUNT;
use crate::pipeline::payload::Payload;
use crate::scorer::{Evidence, ScoreError, Scorer, ScorerSettings, Scores};

/// A repo is a dir with a `FAKE_REPO` file; its "working tree" is the text of `work`.
/// Work text containing `risky` scores high, `fail` makes the scorer time out, `docs`
/// changes only a path the real selection excludes (a lockfile).
#[derive(Default)]
struct Fake {
    requests: Arc<AtomicUsize>,
    crash_at: Cell<Option<Checkpoint>>,
    crash_in_snapshot: Cell<bool>,
}

struct FakeScorer {
    requests: Arc<AtomicUsize>,
}

impl Scorer for FakeScorer {
    fn name(&self) -> &'static str {
        "fake"
    }
    fn score(&self, payload: &Payload, _budget: Duration) -> Result<Scores, ScoreError> {
        self.requests.fetch_add(1, Ordering::SeqCst);
        if payload.diff.contains("fail") {
            return Err(ScoreError::Timeout {
                budget: Duration::from_secs(1),
            });
        }
        let mut values = [0.1; AXIS_COUNT];
        if payload.diff.contains("risky") {
            values[1] = 0.95;
            values[0] = 0.9;
        }
        Ok(Scores {
            values,
            model: None,
            evidence: vec![Evidence {
                axis: 1,
                file: "src/lib.rs".into(),
                line: Some(3),
                note: "removed a check".into(),
            }],
            tokens: None,
        })
    }
}

impl Effects for Fake {
    fn discover(&self, _git: &Git, cwd: &Path) -> Result<Discovery, GitError> {
        if !cwd.join("FAKE_REPO").exists() {
            return Ok(Discovery::NotARepo);
        }
        Ok(Discovery::Found(Repo {
            top: cwd.to_owned(),
            git_dir: cwd.join(".git"),
            common_dir: cwd.join(".git"),
            index: cwd.join(".git/index"),
            objects: cwd.join(".git/objects"),
            format: ObjectFormat::Sha1,
            filters: Vec::new(),
            facts: Default::default(),
        }))
    }
    fn rediscover(&self, git: &Git, known: &Repo) -> Result<Discovery, GitError> {
        self.discover(git, &known.top)
    }
    fn baseline(
        &self,
        _g: &Git,
        repo: &Repo,
        store: &PrivateStore,
        _o: &SnapshotOptions,
    ) -> Result<Snapshot, GitError> {
        if self.crash_in_snapshot.get() {
            panic!("simulated crash in snapshot");
        }
        let work = std::fs::read_to_string(repo.top.join("work")).unwrap_or_default();
        std::fs::create_dir_all(&store.prompt).unwrap();
        std::fs::write(
            store.prompt.join(format!(
                "blob-{}",
                crate::digest::hex_sha256(work.as_bytes())
            )),
            &work,
        )
        .unwrap();
        Ok(Snapshot {
            tree: work,
            oversized: vec![],
            unread: 0,
        })
    }
    fn purge(&self, store: &PrivateStore) -> Result<(), GitError> {
        let _ = std::fs::remove_dir_all(&store.prompt);
        Ok(())
    }
    fn changes_since(
        &self,
        g: &Git,
        r: &Repo,
        s: &PrivateStore,
        o: &SnapshotOptions,
        base: &Snapshot,
    ) -> Result<Turn, GitError> {
        let head = self.baseline(g, r, s, o)?;
        if base.tree == head.tree {
            return Ok(Turn::default());
        }
        let path = if head.tree.contains("docs") {
            "package-lock.json"
        } else {
            "src/lib.rs"
        };
        Ok(Turn {
            changes: vec![Change {
                path: path.into(),
                old_path: None,
                status: Status::Modified,
                binary: false,
                patch: format!(
                    "diff --git a/{path} b/{path}\n-{}\n+{}\n",
                    base.tree, head.tree
                )
                .into_bytes(),
                oversized: None,
                unread: false,
            }],
            attributes: Attributes::default(),
            way: crate::git::turn::Way::Whole,
            dropped: 0,
        })
    }
    fn scorer(
        &self,
        settings: &ScorerSettings,
    ) -> Result<Box<dyn Scorer + Send + Sync>, ScoreError> {
        if settings.kind == crate::scorer::ScorerKind::Jev && settings.typesafe_key.is_none() {
            return Err(ScoreError::MissingKey { scorer: "jev" });
        }
        Ok(Box::new(FakeScorer {
            requests: self.requests.clone(),
        }))
    }
    fn checkpoint(&self, at: Checkpoint) {
        if self.crash_at.get() == Some(at) {
            panic!("simulated crash at {at:?}");
        }
    }
}

/// A fake repo and a data dir, on a RAM-backed fs when there is one (the property test
/// writes many small synced files).
struct World {
    _tmp: tempfile::TempDir,
    repo: std::path::PathBuf,
    data: std::path::PathBuf,
    env: HostEnv,
    fake: Fake,
}

impl World {
    fn new() -> World {
        let shm = Path::new("/dev/shm");
        let tmp = if shm.is_dir() {
            tempfile::Builder::new()
                .prefix("jev-hook-test")
                .tempdir_in(shm)
        } else {
            tempfile::Builder::new().prefix("jev-hook-test").tempdir()
        }
        .unwrap();
        let repo = tmp.path().join("repo");
        std::fs::create_dir(&repo).unwrap();
        std::fs::write(repo.join("FAKE_REPO"), "").unwrap();
        std::fs::write(repo.join("work"), "clean").unwrap();
        let data = tmp.path().join("data");
        let env = HostEnv::from_pairs([
            ("CLAUDE_PLUGIN_DATA", data.to_str().unwrap()),
            ("JEV_PREFLIGHT_SCORER", "local"),
            ("XDG_CONFIG_HOME", tmp.path().join("xdg").to_str().unwrap()),
        ]);
        World {
            _tmp: tmp,
            repo,
            data,
            env,
            fake: Fake::default(),
        }
    }

    fn with_env(mut self, k: &str, v: &str) -> World {
        let mut pairs: Vec<(String, String)> = vec![
            (
                "CLAUDE_PLUGIN_DATA".into(),
                self.data.to_str().unwrap().into(),
            ),
            (
                "XDG_CONFIG_HOME".into(),
                self.data
                    .parent()
                    .unwrap()
                    .join("xdg")
                    .to_str()
                    .unwrap()
                    .into(),
            ),
        ];
        pairs.push((k.into(), v.into()));
        self.env = HostEnv::from_pairs(pairs);
        self
    }

    fn work(&self, text: &str) {
        std::fs::write(self.repo.join("work"), text).unwrap();
    }

    fn event(&self, name: &str, extra: Value) -> Vec<u8> {
        let mut e = json!({
            "hook_event_name": name, "session_id": "s1", "prompt_id": "p1", "cwd": self.repo
        });
        for (k, v) in extra.as_object().unwrap() {
            if v.is_null() {
                e.as_object_mut().unwrap().remove(k);
            } else {
                e[k] = v.clone();
            }
        }
        e.to_string().into_bytes()
    }

    fn run(&self, name: &str, extra: Value) -> Output {
        let ctx = Context::new(&self.env, &self.fake);
        handle(&ctx, &self.event(name, extra), Argv::default())
    }

    fn requests(&self) -> usize {
        self.fake.requests.load(Ordering::SeqCst)
    }

    /// The state file of the one prompt the store holds.
    fn state_file(&self) -> String {
        let files = self.files();
        let mut states = files.iter().filter(|f| f.ends_with("state.json"));
        let state = states.next().expect("a prompt's state file").clone();
        assert_eq!(states.next(), None, "{files:?}");
        state
    }

    fn files(&self) -> Vec<String> {
        fn walk(d: &Path, out: &mut Vec<String>) {
            if let Ok(rd) = std::fs::read_dir(d) {
                for e in rd.flatten() {
                    out.push(e.path().to_string_lossy().into_owned());
                    walk(&e.path(), out);
                }
            }
        }
        let mut out = vec![];
        walk(&self.data, &mut out);
        out
    }
}

fn json_of(o: &Output) -> Value {
    serde_json::from_str(o.stdout.as_deref().expect("an answer")).unwrap()
}

fn continues(o: &Output) -> bool {
    o.stdout.as_deref().is_some_and(|s| {
        let v: Value = serde_json::from_str(s).unwrap();
        v.get("decision").is_some() || v.get("hookSpecificOutput").is_some()
    })
}

#[test]
fn risky_turn_continues_exactly_once() {
    let w = World::new();
    assert_eq!(
        w.run("UserPromptSubmit", json!({})).outcome,
        "baseline taken"
    );
    w.work("risky change");
    let out = w.run("Stop", json!({"stop_hook_active": false}));
    assert_eq!(out.outcome, "continued", "{out:?}");
    let v = json_of(&out);
    let text = v["hookSpecificOutput"]["additionalContext"]
        .as_str()
        .unwrap();
    assert!(text.contains("auth_boundary (score 0.95)"), "{text}");
    assert!(text.contains("src/lib.rs:3: removed a check"));
    assert_eq!(w.requests(), 1);
    // No content is left once the continuation is issued.
    assert!(
        !w.files().iter().any(|f| f.contains("blob-")),
        "{:?}",
        w.files()
    );

    w.work("risky change, then more");
    for active in [true, false, false] {
        let again = w.run("Stop", json!({"stop_hook_active": active}));
        assert_eq!(again.stdout, None, "{again:?}");
    }
    assert_eq!(w.requests(), 1);
}

#[test]
fn codex_and_old_hosts_get_decision_block() {
    let w = World::new();
    w.run(
        "UserPromptSubmit",
        json!({"prompt_id": null, "turn_id": "t1"}),
    );
    w.work("risky");
    let out = w.run("Stop", json!({"prompt_id": null, "turn_id": "t1"}));
    let v = json_of(&out);
    assert_eq!(v["decision"], "block");
    assert!(v.get("hookSpecificOutput").is_none());

    // No prompt_id (Claude Code before 2.1.196): per-session sequence, portable form.
    let w = World::new();
    w.run("UserPromptSubmit", json!({"prompt_id": null}));
    w.work("risky");
    let v = json_of(&w.run("Stop", json!({"prompt_id": null})));
    assert_eq!(v["decision"], "block");
    assert_eq!(w.run("Stop", json!({"prompt_id": null})).stdout, None);
    // The next prompt without id is a new prompt.
    w.run("UserPromptSubmit", json!({"prompt_id": null}));
    w.work("risky again");
    assert!(continues(&w.run("Stop", json!({"prompt_id": null}))));
}

#[test]
fn unchanged_empty_and_excluded_turns_make_no_request() {
    let w = World::new();
    w.run("UserPromptSubmit", json!({}));
    assert_eq!(w.run("Stop", json!({})).outcome, "nothing to score");
    w.run("UserPromptSubmit", json!({"prompt_id": "p2"}));
    w.work("docs only");
    assert_eq!(
        w.run("Stop", json!({"prompt_id": "p2"})).outcome,
        "nothing to score"
    );
    assert_eq!(w.requests(), 0);
    w.run("UserPromptSubmit", json!({"prompt_id": "p3"}));
    w.work("harmless");
    assert_eq!(
        w.run("Stop", json!({"prompt_id": "p3"})).outcome,
        "below threshold"
    );
    assert_eq!(
        w.run("Stop", json!({"prompt_id": "p3"})).outcome,
        "prompt already finished"
    );
    assert_eq!(w.requests(), 1);
}

#[test]
fn background_work_keeps_the_baseline() {
    let w = World::new();
    w.run("UserPromptSubmit", json!({}));
    w.work("risky");
    let out = w.run(
        "Stop",
        json!({"background_tasks": [{"id": "b", "status": "running"}]}),
    );
    assert_eq!(out.stdout, None);
    assert_eq!(w.requests(), 0);
    assert!(continues(&w.run(
        "Stop",
        json!({"background_tasks": [{"status": "completed"}]})
    )));
}

#[test]
fn report_and_off_modes() {
    let w = World::new();
    std::fs::write(w.repo.join(".jev-preflight.json"), r#"{"mode":"report"}"#).unwrap();
    w.run("UserPromptSubmit", json!({}));
    w.work("risky");
    let out = w.run("Stop", json!({}));
    let v = json_of(&out);
    assert_eq!(v.as_object().unwrap().len(), 1, "{v}");
    let line = v["systemMessage"].as_str().unwrap();
    assert!(
        line.contains("auth_boundary 0.95") && !line.contains('\n'),
        "{line}"
    );

    let w = World::new();
    std::fs::write(w.repo.join(".jev-preflight.json"), r#"{"mode":"off"}"#).unwrap();
    w.run("UserPromptSubmit", json!({}));
    w.work("risky");
    assert_eq!(w.run("Stop", json!({})).stdout, None);
    assert!(!w.data.exists(), "mode off must write nothing");

    // The user's default mode applies when the repo says nothing.
    let w = World::new().with_env("CLAUDE_PLUGIN_OPTION_MODE", "off");
    w.run("UserPromptSubmit", json!({}));
    assert!(!w.data.exists());
}

#[test]
fn tampering_with_the_config_mid_turn_is_reported_and_ignored() {
    let w = World::new();
    w.run("UserPromptSubmit", json!({}));
    w.work("risky");
    std::fs::write(w.repo.join(".jev-preflight.json"), r#"{"mode":"off"}"#).unwrap();
    let v = json_of(&w.run("Stop", json!({})));
    assert!(
        v["hookSpecificOutput"]["additionalContext"].is_string(),
        "{v}"
    );
    assert!(
        v["systemMessage"]
            .as_str()
            .unwrap()
            .contains("changed during this turn")
    );
}

#[test]
fn failures_are_classified_noticed_once_and_cleaned() {
    let w = World::new();
    std::fs::write(w.repo.join(".jev-preflight.json"), r#"{"mode":"loud"}"#).unwrap();
    let out = w.run("UserPromptSubmit", json!({}));
    assert_eq!(
        out.class.map(|c| c.name().into_owned()).as_deref(),
        Some("config_invalid")
    );
    assert_eq!(out.stderr.len(), 1);
    assert!(
        json_of(&out)["systemMessage"]
            .as_str()
            .unwrap()
            .contains("`mode`")
    );
    let out = w.run("UserPromptSubmit", json!({"prompt_id": "p2"}));
    assert_eq!(
        out.class.map(|c| c.name().into_owned()).as_deref(),
        Some("config_invalid")
    );
    assert_eq!(
        out.stdout, None,
        "second notice of the same class in a session"
    );
    // Another session is told again.
    let out = w.run("UserPromptSubmit", json!({"session_id": "s2"}));
    assert!(out.stdout.is_some());

    // A scorer failure: fail open, prompt finished, no content left.
    let w = World::new();
    w.run("UserPromptSubmit", json!({}));
    w.work("risky fail");
    let out = w.run("Stop", json!({}));
    assert_eq!(
        out.class.map(|c| c.name().into_owned()).as_deref(),
        Some("timeout")
    );
    assert!(
        json_of(&out)["systemMessage"]
            .as_str()
            .unwrap()
            .contains("timeout")
    );
    assert!(
        !w.files()
            .iter()
            .any(|f| f.contains("blob-") || f.ends_with("/snap"))
    );
    assert_eq!(w.run("Stop", json!({})).stdout, None);

    // Key missing for the jev scorer.
    let w = World::new().with_env("JEV_PREFLIGHT_SCORER", "jev");
    w.run("UserPromptSubmit", json!({}));
    w.work("risky");
    assert_eq!(
        w.run("Stop", json!({}))
            .class
            .map(|c| c.name().into_owned())
            .as_deref(),
        Some("missing_key")
    );

    // Bad input.
    let ctx_w = World::new();
    let ctx = Context::new(&ctx_w.env, &ctx_w.fake);
    for (input, class) in [
        (&b"not json"[..], "input_invalid"),
        (&b"[]"[..], "input_invalid"),
    ] {
        let out = handle(&ctx, input, Argv::default());
        assert_eq!(
            out.class.map(|c| c.name().into_owned()).as_deref(),
            Some(class)
        );
    }
    let big = vec![b' '; super::event::MAX_EVENT_BYTES + 1];
    assert_eq!(
        handle(&ctx, &big, Argv::default())
            .class
            .map(|c| c.name().into_owned())
            .as_deref(),
        Some("input_too_large")
    );
}

#[test]
fn what_the_hook_logs_status_reads_back() {
    use crate::cmd::status;
    use crate::state::decision::{Decision, Version};
    let w = World::new();
    w.run("UserPromptSubmit", json!({}));
    w.work("risky change");
    assert_eq!(w.run("Stop", json!({})).outcome, "continued");
    let ctx = Context::new(&w.env, &w.fake);
    assert_eq!(handle(&ctx, b"not json", Argv::default()).outcome, "failed");

    let log = std::fs::read_to_string(w.data.join("decisions.jsonl")).unwrap();
    let lines: Vec<&str> = log.lines().collect();
    let entries = status::decisions(&w.data, None, status::DEFAULT_LIMIT).unwrap();
    assert_eq!(entries.len(), 2, "{log}");
    let (failed, stop) = (&entries[0], &entries[1]);
    assert_eq!((stop.v, failed.v), (Version::CURRENT, Version::CURRENT));
    assert_eq!(
        (failed.outcome.as_str(), failed.class.as_deref()),
        ("failed", Some("input_invalid"))
    );
    assert_eq!(stop.outcome, "continued");
    assert_eq!(stop.cwd.as_deref(), w.repo.to_str());
    assert_eq!(stop.selected.as_deref().map(<[String]>::len), Some(2));
    // What status read is what the hook wrote, byte for byte (`repo` is found by the reader).
    for (read, line) in [(stop, lines[0]), (failed, lines[1])] {
        let read = Decision {
            repo: None,
            ..read.clone()
        };
        assert_eq!(serde_json::to_string(&read).unwrap(), line);
    }
    let text = status::render(&entries, "anywhere", w.env.now);
    for needle in [
        "  Stop  continued  mode assist  scorer fake\n",
        "  top scores: auth_boundary 0.95, behavior_regression 0.9, compatibility 0.1; \
         selected: auth_boundary, behavior_regression\n",
        "  1 file(s), 119 payload bytes\n",
        "  hook  failed\n",
        "  why: failed open (input_invalid)",
    ] {
        assert!(text.contains(needle), "{needle:?} in\n{text}");
    }
}

#[test]
fn corrupt_and_foreign_state_fail_open_and_are_removed() {
    let w = World::new();
    w.run("UserPromptSubmit", json!({}));
    let state = w.state_file();
    std::fs::write(&state, "{garbage").unwrap();
    w.work("risky");
    let out = w.run("Stop", json!({}));
    assert_eq!(
        out.class.map(|c| c.name().into_owned()).as_deref(),
        Some("state_corrupt")
    );
    assert!(!Path::new(&state).exists());
    assert_eq!(w.run("Stop", json!({})).stdout, None);
}

#[test]
fn panics_are_caught_and_classified() {
    let w = World::new();
    w.fake.crash_in_snapshot.set(true);
    let out = w.run("UserPromptSubmit", json!({}));
    assert_eq!(
        out.class.map(|c| c.name().into_owned()).as_deref(),
        Some("panic")
    );
    assert_eq!(out.stderr.len(), 1);
}

#[test]
fn session_end_removes_the_session() {
    let w = World::new();
    w.run("UserPromptSubmit", json!({}));
    w.run("UserPromptSubmit", json!({"prompt_id": "p2"}));
    w.run("UserPromptSubmit", json!({"session_id": "other"}));
    assert_eq!(w.run("SessionEnd", json!({})).outcome, "session removed");
    let left = w.files();
    assert_eq!(
        left.iter().filter(|f| f.ends_with("state.json")).count(),
        1,
        "{left:?}"
    );
}

#[test]
fn a_stop_for_a_prompt_never_seen_writes_nothing() {
    let w = World::new();
    w.run("UserPromptSubmit", json!({}));
    let log = w.data.join("decisions.jsonl");
    let before = (w.files(), std::fs::read(&log).ok());
    let out = w.run("Stop", json!({"prompt_id": "never-seen"}));
    assert_eq!(out.outcome, super::stop::NO_BASELINE);
    assert_eq!(out.stdout, None);
    let out = w.run("Stop", json!({"session_id": "never-seen"}));
    assert_eq!(out.outcome, super::stop::NO_BASELINE);
    assert_eq!((w.files(), std::fs::read(&log).ok()), before);
}

#[test]
fn the_stop_reuses_the_repository_the_prompt_found_and_fails_open_when_it_is_gone() {
    let w = World::new();
    w.run("UserPromptSubmit", json!({}));
    let state = w.state_file();
    let state: Value = serde_json::from_slice(&std::fs::read(&state).unwrap()).unwrap();
    assert_eq!(state["repo"]["top"], json!(w.repo));
    std::fs::remove_file(w.repo.join("FAKE_REPO")).unwrap();
    w.work("changed");
    let out = w.run("Stop", json!({}));
    assert_eq!(out.outcome, "repository is gone");
    assert_eq!(out.stdout, None);
    assert_eq!(w.requests(), 0);
}

#[test]
fn unknown_events_are_ignored() {
    let w = World::new();
    let out = w.run("SubagentStop", json!({}));
    assert_eq!((out.stdout, out.outcome.as_str()), (None, "ignored"));
    assert!(!w.data.exists());
}

/// One step of a random sequence.
#[derive(Debug, Clone)]
enum Step {
    Submit {
        session: u8,
        prompt: Option<u8>,
    },
    Edit {
        risky: bool,
        n: u8,
    },
    Stop {
        session: u8,
        prompt: Option<u8>,
        active: bool,
        background: bool,
    },
    Crash(Checkpoint),
}

fn step() -> impl Strategy<Value = Step> {
    let prompt = prop_oneof![3 => (0u8..3).prop_map(Some), 1 => Just(None)];
    prop_oneof![
        3 => (0u8..2, prompt.clone())
            .prop_map(|(session, prompt)| Step::Submit { session, prompt }),
        2 => (any::<bool>(), 0u8..4).prop_map(|(risky, n)| Step::Edit { risky, n }),
        5 => (0u8..2, prompt, prop::bool::weighted(0.3), prop::bool::weighted(0.1))
            .prop_map(|(session, prompt, active, background)| {
                Step::Stop { session, prompt, active, background }
            }),
        1 => prop_oneof![
            Just(Checkpoint::BaselineTaken),
            Just(Checkpoint::HashSaved),
            Just(Checkpoint::Scored),
            Just(Checkpoint::ContinuationSaved),
        ]
        .prop_map(Step::Crash),
    ]
}

fn cases() -> u32 {
    std::env::var("JEV_PROPTEST_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(10_000)
}

proptest! {
    #![proptest_config(ProptestConfig {
        cases: cases(),
        failure_persistence: None,
        ..ProptestConfig::default()
    })]

    /// Random sequences of UserPromptSubmit / Stop with duplicates, missing ids, interleaved
    /// sessions and prompts, random `stop_hook_active`, and crashes injected between steps:
    /// never more than one continuation per prompt, never a malformed answer.
    #[test]
    fn never_more_than_one_continuation_per_prompt(steps in prop::collection::vec(step(), 1..14)) {
        let w = World::new();
        let mut continued: HashMap<String, u32> = HashMap::new();
        let mut unnamed_seq: HashMap<u8, u32> = HashMap::new();
        for s in steps {
            match s {
                Step::Edit { risky, n } => {
                    w.work(&format!("{} {n}", if risky { "risky" } else { "calm" }))
                }
                Step::Crash(at) => w.fake.crash_at.set(Some(at)),
                Step::Submit { session, prompt } => {
                    let out = w.run("UserPromptSubmit", json!({
                        "session_id": format!("s{session}"),
                        "prompt_id": prompt.map(|p| format!("p{p}")),
                    }));
                    w.fake.crash_at.set(None);
                    if prompt.is_none() {
                        *unnamed_seq.entry(session).or_default() += 1;
                    }
                    prop_assert!(out.stdout.is_none() || out.class.is_some(), "{out:?}");
                }
                Step::Stop { session, prompt, active, background } => {
                    let out = w.run("Stop", json!({
                        "session_id": format!("s{session}"),
                        "prompt_id": prompt.map(|p| format!("p{p}")),
                        "stop_hook_active": active,
                        "background_tasks":
                            if background { json!([{"status": "running"}]) } else { json!([]) },
                    }));
                    w.fake.crash_at.set(None);
                    if let Some(text) = &out.stdout {
                        let v: Value = serde_json::from_str(text).unwrap();
                        prop_assert!(v.is_object());
                    }
                    prop_assert_eq!(out.stderr.len(), 1);
                    if continues(&out) {
                        prop_assert!(!active && !background);
                        let key = match prompt {
                            Some(p) => format!("s{session}/p{p}"),
                            None => {
                                let seq = unnamed_seq.get(&session).copied().unwrap_or(0);
                                format!("s{session}/#{seq}")
                            }
                        };
                        let n = continued.entry(key.clone()).or_default();
                        *n += 1;
                        prop_assert!(*n <= 1, "second continuation for {}", key);
                    }
                }
            }
        }
    }
}
