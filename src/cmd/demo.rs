//! `jev-preflight demo`: one real turn, played through the real hook code path with the
//! built-in scorer in a throwaway repository and data dir — no key, no network.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

use serde_json::{Value, json};

use crate::config::HostEnv;
use crate::env::vars as ev;
use crate::fs::{FsError, PrivateTempDir};
use crate::git::{Git, GitError};
use crate::hook::{self, Context, effects};

/// Why the demo could not run.
#[derive(Debug, thiserror::Error)]
pub enum DemoError {
    #[error(
        "could not prepare the demo directory {}: {source}\nhint: check that the temp dir is \
         writable",
        .path.display()
    )]
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error(
        "could not set up the demo repository: {0}\nhint: `jev-preflight demo` needs git on PATH"
    )]
    Git(#[from] GitError),
    #[error("could not prepare the demo directory: {0}\nhint: check that the temp dir is writable")]
    Temp(#[from] FsError),
    #[error("the demo hook run failed: {0}")]
    Hook(String),
}

const API_BEFORE: &str = r#"use crate::auth::{require_role, Role};
use crate::db::Db;

/// Deletes a user account. Only administrators may do this.
pub fn delete_user(db: &mut Db, caller: &Caller, user_id: u64) -> Result<(), ApiError> {
    require_role(caller, Role::Admin)?;
    if !caller.is_authenticated() {
        return Err(ApiError::Unauthorized);
    }
    db.users().delete(user_id)?;
    db.audit().record(caller.id, "delete_user", user_id)?;
    Ok(())
}
"#;

const API_AFTER: &str = r#"use crate::auth::{require_role, Role};
use crate::db::Db;

/// Deletes a user account. Only administrators may do this.
pub fn delete_user(db: &mut Db, caller: &Caller, user_id: u64) -> Result<(), ApiError> {
    // TODO: re-enable once the admin UI sends roles
    // require_role(caller, Role::Admin)?;
    db.users().delete(user_id)?;
    Ok(())
}
"#;

fn io(path: &Path) -> impl FnOnce(std::io::Error) -> DemoError + '_ {
    move |source| DemoError::Io {
        path: path.to_owned(),
        source,
    }
}

fn git(git: &Git, repo: &Path, args: &[&str]) -> Result<(), GitError> {
    let mut cmd: Command = git.command(repo);
    // The demo repository must not depend on the user's git config (signing, templates).
    cmd.env("GIT_CONFIG_GLOBAL", crate::git::runner::null_device())
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .args([
            "-c",
            "user.name=jev-preflight demo",
            "-c",
            "user.email=demo@example.invalid",
            "-c",
            "commit.gpgsign=false",
        ])
        .args(args);
    git.run(cmd, None).map(drop)
}

/// Runs the demo, writing what happens to `out`.
pub fn run(out: &mut dyn Write) -> Result<(), DemoError> {
    let temp = PrivateTempDir::new("jev-preflight-demo")?;
    let repo = temp.path().join("repo");
    let src = users_api(&repo)?;
    let env = HostEnv::from_pairs([
        (
            ev::CLAUDE_PLUGIN_DATA,
            temp.path().join("data").to_string_lossy().into_owned(),
        ),
        (ev::SCORER, "local".to_owned()),
    ]);
    let session = Session {
        ctx: Context::new(&env, &effects::Real),
        cwd: repo.to_string_lossy().into_owned(),
    };

    say(
        out,
        format!(
            "jev-preflight demo — a throwaway repository at {}\n",
            repo.display()
        ),
    )?;
    say(
        out,
        "1. UserPromptSubmit: the user asks to \"let support staff delete users\"; the hook \
         takes a private baseline of the working tree.",
    )?;
    let first = session.send(
        "UserPromptSubmit",
        json!({"prompt": "let support staff delete users"}),
    )?;
    say(out, format!("   → {}\n", first.outcome))?;

    say(
        out,
        "2. The agent edits src/api.rs: it comments out the admin check, drops the \
         authentication test and the audit record.",
    )?;
    std::fs::write(src.join("api.rs"), API_AFTER).map_err(io(&src))?;
    say(out, "")?;

    say(
        out,
        "3. Stop: snapshot, diff, select, redact, payload, score with the built-in local \
         scorer, answer.",
    )?;
    let started = Instant::now();
    let stop = session.send(
        "Stop",
        json!({"stop_hook_active": false, "background_tasks": [], "session_crons": []}),
    )?;
    let took = started.elapsed();
    say(
        out,
        format!("   → {} in {} ms", stop.outcome, took.as_millis()),
    )?;
    show_answer(out, stop.stdout.as_deref())?;
    say(out, "")?;

    say(
        out,
        "4. The agent looks again and stops; Claude Code sets stop_hook_active. The hook must \
         do nothing.",
    )?;
    let again = session.handle("Stop", json!({"stop_hook_active": true}));
    say(
        out,
        format!(
            "   → {}; stdout: {}",
            again.outcome,
            again.stdout.as_deref().unwrap_or("(nothing)")
        ),
    )?;
    let end = session.handle("SessionEnd", json!({"reason": "other"}));
    say(
        out,
        format!(
            "\n5. SessionEnd → {}. The demo directory is removed.",
            end.outcome
        ),
    )?;
    if again.stdout.is_some() {
        return Err(DemoError::Hook(
            "the second Stop answered; it must not".into(),
        ));
    }
    Ok(())
}

/// A repository at `repo` whose one commit holds the users API (`src/api.rs`) as it is
/// before the turn; returns its `src` directory.
fn users_api(repo: &Path) -> Result<PathBuf, DemoError> {
    std::fs::create_dir(repo).map_err(io(repo))?;
    let g = Git::default();
    git(&g, repo, &["init", "-q"])?;
    let src = repo.join("src");
    std::fs::create_dir(&src).map_err(io(&src))?;
    std::fs::write(src.join("api.rs"), API_BEFORE).map_err(io(&src))?;
    git(&g, repo, &["add", "-A"])?;
    git(&g, repo, &["commit", "-q", "-m", "users api"])?;
    Ok(src)
}

/// The demo's one session and prompt in the throwaway repository, sent through the real hook.
struct Session<'a> {
    ctx: Context<'a>,
    cwd: String,
}

impl Session<'_> {
    /// Runs the hook on event `name` of the demo prompt, with `extra` fields.
    fn handle(&self, name: &str, extra: Value) -> hook::Output {
        let mut event = json!({
            "session_id": "demo-session",
            "prompt_id": "demo-prompt-1",
            "cwd": self.cwd,
            "hook_event_name": name,
        });
        if let (Value::Object(event), Value::Object(extra)) = (&mut event, extra) {
            event.extend(extra);
        }
        hook::handle(
            &self.ctx,
            &event.to_string().into_bytes(),
            hook::Argv::default(),
        )
    }

    /// [`Session::handle`], for a step the demo cannot go on without: a failure ends it.
    fn send(&self, name: &str, extra: Value) -> Result<hook::Output, DemoError> {
        let output = self.handle(name, extra);
        match output.class {
            Some(_) => Err(DemoError::Hook(output.stderr.join("; "))),
            None => Ok(output),
        }
    }
}

/// What the Stop printed, and the text the agent reads in it.
fn show_answer(out: &mut dyn Write, stdout: Option<&str>) -> Result<(), DemoError> {
    let Some(json) = stdout else {
        return say(
            out,
            "   The hook printed nothing: no axis reached its threshold.",
        );
    };
    say(out, "   The hook prints this JSON on stdout:")?;
    say(out, format!("   {json}\n"))?;
    let v: Value = serde_json::from_str(json).unwrap_or(Value::Null);
    let text = v["hookSpecificOutput"]["additionalContext"]
        .as_str()
        .or(v["reason"].as_str())
        .or(v["systemMessage"].as_str())
        .unwrap_or("");
    say(out, "   What the agent reads:")?;
    for line in text.lines() {
        say(out, format!("   │ {line}"))?;
    }
    Ok(())
}

/// One line of the demo on `out`.
fn say(out: &mut dyn Write, text: impl std::fmt::Display) -> Result<(), DemoError> {
    writeln!(out, "{text}").map_err(io(Path::new("stdout")))
}
