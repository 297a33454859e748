//! UserPromptSubmit: take the baseline of the turn and freeze the repository config with it.

use std::path::Path;
use std::time::SystemTime;

use crate::config::{self, Frozen, Mode};
use crate::git::snapshot::PrivateStore;
use crate::git::{Discovery, Remembered};
use crate::hook::effects::Checkpoint;
use crate::hook::event::Event;
use crate::hook::failure::Failure;
use crate::hook::prompt_state::{Phase, PromptState, STATE_VERSION};
use crate::hook::stop::finish;
use crate::hook::{Context, PROMPT_GIT_DEADLINE, Reply};
use crate::state::{PromptStore, SessionStore};

/// Most store entries the age sweep looks at per prompt.
const SWEEP_BUDGET: usize = 2000;

pub fn submit(ctx: &Context<'_>, event: &Event) -> Result<Reply, Failure> {
    // Several hosts send our continuation back as a prompt: it belongs to the prompt it
    // continues, whose state (one continuation issued) must stay, not start a new one.
    if event.continues_our_feedback {
        return Ok(Reply::quiet(
            "our own continuation; the prompt's baseline is kept",
        ));
    }
    let Some(dir) = event.dir() else {
        return Ok(Reply::quiet("no cwd in the event"));
    };
    let git = ctx.git.clone().with_deadline(PROMPT_GIT_DEADLINE);
    let cwd: &Path = &dir;
    // What the session's last prompt found from this directory spares `rev-parse` and
    // `git var` while it still holds (read only: `mode: off` writes nothing).
    let known: Option<Remembered> = ctx
        .existing_store()
        .ok()
        .flatten()
        .and_then(|store| store.session(event.session_key()).repo_memory())
        .and_then(|bytes| serde_json::from_slice(&bytes).ok());
    let found = match &known {
        Some(known) if known.cwd == cwd => ctx.effects.discover_again(&git, cwd, known)?,
        _ => ctx.effects.discover(&git, cwd)?,
    };
    let repo = match found {
        Discovery::Found(repo) => repo,
        Discovery::NotARepo => return Ok(Reply::quiet("not a repository")),
        Discovery::Bare => return Ok(Reply::quiet("bare repository")),
    };
    // Read and validate both configs before anything is written: `mode: off` writes nothing.
    let (repo_config, config_hash) =
        config::read_repo_config(&repo.top).map_err(Failure::repo_config)?;
    let user = config::user_settings(ctx.env).map_err(Failure::user_config)?;
    let frozen = Frozen::resolve(&repo_config, &user);
    if frozen.mode == Mode::Off {
        return Ok(Reply::quiet("mode off"));
    }

    let store = ctx.create_store()?;
    store.sweep_if_due(ctx.now(), SWEEP_BUDGET);
    let session = store.session(event.session_key());
    session.ensure()?;
    if let Some(memory) = Remembered::of(&git, cwd, &repo)
        && Some(&memory) != known.as_ref()
        && let Ok(bytes) = serde_json::to_vec(&memory)
    {
        let _ = session.remember_repo(&bytes);
    }
    let key = match event.prompt_key() {
        Some(key) => key,
        None => format!("seq:{}", session.next_seq()?),
    };
    let prompt = session.prompt(&key);
    end_earlier_prompts(ctx, &session, &prompt);
    let Some(_lock) = prompt.create_and_lock()? else {
        return Ok(Reply::quiet("another hook process is taking this baseline"));
    };
    match prompt.read_state::<PromptState>() {
        // A repeated event for a prompt we already know keeps the first baseline.
        Ok(Some(_)) => return Ok(Reply::quiet("duplicate prompt; first baseline kept")),
        Ok(None) => {}
        Err(e) => {
            let _ = prompt.remove();
            return Err(e.into());
        }
    }
    let private = PrivateStore {
        prompt: prompt.snapshot_dir(),
        tree_cache: store.repo_cache(&repo.common_dir)?,
    };
    let options = frozen.snapshot_options();
    let baseline = match ctx.effects.baseline(&git, &repo, &private, &options) {
        Ok(b) => b,
        Err(e) => {
            let _ = ctx.effects.purge(&private);
            let _ = prompt.remove();
            return Err(e.into());
        }
    };
    ctx.effects.checkpoint(Checkpoint::BaselineTaken);
    let state = PromptState {
        version: STATE_VERSION,
        phase: Phase::Baseline,
        repo_top: repo.top.clone(),
        repo: Some(repo.clone()),
        tree_cache: private.tree_cache.clone(),
        config: frozen,
        config_hash,
        baseline: Some(baseline),
        scored: Vec::new(),
        continuations: 0,
        created_unix: ctx
            .now()
            .duration_since(SystemTime::UNIX_EPOCH)
            .map(|d| d.as_secs())
            .unwrap_or(0),
        asked: Vec::new(),
    };
    // Not synced: the content objects the baseline names are not synced either, and a state
    // lost in a power cut only makes the Stop find no baseline (fail open).
    if let Err(e) = prompt.write_state_unsynced(&state) {
        let _ = ctx.effects.purge(&private);
        let _ = prompt.remove();
        return Err(e.into());
    }
    Ok(Reply::quiet("baseline taken"))
}

/// A new prompt ends the session's earlier ones (a turn the user interrupted never gets its
/// Stop): their content is removed now rather than at SessionEnd or by the age sweep.
/// Prompts another process holds are left alone.
fn end_earlier_prompts(ctx: &Context<'_>, session: &SessionStore, current: &PromptStore) {
    for other in session.prompts() {
        // A prompt without a snapshot dir holds no content, so it is neither locked nor read:
        // a long session's finished prompts cost one `lstat` each, not a lock and a parse.
        if other.dir() == current.dir() || !other.may_hold_content() {
            continue;
        }
        let Ok(Some(_lock)) = other.lock_existing() else {
            continue;
        };
        match other.read_state::<PromptState>() {
            Ok(Some(mut state)) if state.phase != Phase::Finished => {
                let private = PrivateStore {
                    prompt: other.snapshot_dir(),
                    tree_cache: state.tree_cache.clone(),
                };
                finish(ctx, &other, &private, &mut state);
            }
            Ok(Some(_)) => {}
            // No state (a writer died) or an unreadable one: nothing worth keeping.
            Ok(None) | Err(_) => {
                let _ = other.remove();
            }
        }
    }
}
