//! Stop: the pipeline of SPEC §1, top to bottom — gates, snapshot, diff, select, redact and
//! payload, hash gate, score, threshold and top 3, answer — at most once per prompt.

use std::collections::BTreeMap;
use std::ops::ControlFlow;

use crate::config::{self, Frozen, Mode, UserSettings};
use crate::git::snapshot::{PrivateStore, Snapshot};
use crate::git::turn::Turn;
use crate::git::{Discovery, Git, Repo};
use crate::hook::answer::{self, Finding};
use crate::hook::budget::{self, Scored};
use crate::hook::effects::{Checkpoint, Effects};
use crate::hook::event::Event;
use crate::hook::failure::{Class, Failure};
use crate::hook::prompt_state::{Phase, PromptState, STATE_VERSION};
use crate::hook::remember;
use crate::hook::{Context, Reply, STOP_GIT_DEADLINE};
use crate::pipeline::Stages;
use crate::pipeline::axes::{self, AXIS_IDS};
use crate::pipeline::payload::{Outcome, Payload, SkipReason};
use crate::scorer::{ScorerKind, Verdict};
use crate::state::decision::{Decision, Redactions};
use crate::state::{PromptStore, SessionStore};

/// Outcome of a Stop that found no baseline for its prompt.
pub const NO_BASELINE: &str = "no baseline";
/// Outcome of a Stop whose every selected axis the agent was already asked about.
pub const ALREADY_LOOKED_AT: &str = "already looked at";
/// Outcome of a Stop not scored because a remote limit was reached and the user chose `skip`.
pub const BUDGET_SKIPPED: &str = "remote budget reached; skipped";

/// Told to the user when the agent (or anyone) edited the repo config during the turn.
pub const CONFIG_CHANGED: &str = "jev-preflight: `.jev-preflight.json` changed during this turn; \
                                  this turn was checked with the config read when the prompt was \
                                  sent, and the new config applies from your next prompt";

pub fn stop(ctx: &Context<'_>, event: &Event) -> Result<Reply, Failure> {
    let mut clock = StageClock::start();
    // Gate 1: background work pending means the session is paused, not done.
    if event.background_pending() {
        return Ok(Reply::quiet("background work pending; baseline kept"));
    }
    let Some(store) = ctx.existing_store()? else {
        return Ok(Reply::untraced(NO_BASELINE));
    };
    let session = store.session(event.session_key());
    let key = match event.prompt_key() {
        Some(key) => key,
        None => match session.current_seq()? {
            0 => return Ok(Reply::untraced(NO_BASELINE)),
            n => format!("seq:{n}"),
        },
    };
    let prompt = session.prompt(&key);
    // The common Stop of a prompt we never saw: nothing to lock, nothing to log.
    if !prompt.exists() {
        return Ok(Reply::untraced(NO_BASELINE));
    }
    // Gate 2: one Stop at a time per prompt; a concurrent one does nothing.
    let Some(_lock) = prompt.lock_existing()? else {
        return Ok(Reply::quiet(
            "no baseline, or another Stop is evaluating this prompt",
        ));
    };
    let mut state = match prompt.read_state::<PromptState>() {
        Ok(Some(state)) if state.version == STATE_VERSION => state,
        Ok(None) => {
            prompt.remove()?;
            return Ok(Reply::untraced(NO_BASELINE));
        }
        other => {
            let _ = prompt.remove();
            return Err(match other {
                Err(e) => e.into(),
                _ => Failure::new(Class::StateCorrupt, "state file of another version"),
            });
        }
    };
    let private = PrivateStore {
        prompt: prompt.snapshot_dir(),
        tree_cache: state.tree_cache.clone(),
    };
    // Gate 3: the loop gates. A continuation was issued, or the host says a Stop hook
    // already continued this turn: finish without evaluating.
    if state.phase != Phase::Baseline || state.continuations > 0 || event.stop_hook_active {
        let outcome = match state.phase {
            Phase::Finished => "prompt already finished",
            _ if event.stop_hook_active => "stop_hook_active; prompt finished",
            _ => "continuation already issued; prompt finished",
        };
        if state.phase != Phase::Finished {
            finish(ctx, &prompt, &private, &mut state);
        }
        return Ok(Reply::quiet(outcome));
    }

    let config_changed = config::repo_config_hash(&state.repo_top)
        .map(|h| h != state.config_hash)
        .unwrap_or(true);
    let held = Held {
        session: &session,
        prompt: &prompt,
        private: &private,
    };
    let result = evaluate(ctx, event, &held, &mut state, &mut clock);
    if state.phase == Phase::Baseline {
        finish(ctx, &prompt, &private, &mut state);
    }
    let mut reply = result?;
    clock.lap("cleanup");
    if let Some(log) = &mut reply.log {
        log.ms = Some(clock.laps);
    }
    if config_changed {
        reply.answer.messages.insert(0, CONFIG_CHANGED.to_owned());
    }
    Ok(reply)
}

/// The prompt's stores a Stop holds under the prompt's lock.
struct Held<'a> {
    session: &'a SessionStore,
    prompt: &'a PromptStore,
    private: &'a PrivateStore,
}

/// Snapshot → diff → select → payload → hash gate → score → select axes → answer.
/// Leaves `state.phase` at `Baseline` unless it issued the continuation.
fn evaluate(
    ctx: &Context<'_>,
    event: &Event,
    held: &Held<'_>,
    state: &mut PromptState,
    clock: &mut StageClock,
) -> Result<Reply, Failure> {
    let git = ctx.git.clone().with_deadline(STOP_GIT_DEADLINE);
    let frozen = state.config.clone();
    let Some(baseline) = state.baseline.clone() else {
        return Ok(Reply::untraced(NO_BASELINE));
    };
    let Some(repo) = find_repo(ctx.effects, &git, state)? else {
        return Ok(Reply::quiet("repository is gone"));
    };
    clock.lap("prepare");
    let (turn, stages) = changes(ctx.effects, &git, &repo, held.private, &frozen, &baseline)?;
    clock.lap("changes");
    let (payload, seen) = match to_payload(&stages, turn, clock) {
        ControlFlow::Continue(ready) => ready,
        ControlFlow::Break(reply) => return Ok(reply),
    };

    let user = config::user_settings(ctx.env).map_err(Failure::user_config)?;
    if !hash_gate(held.prompt, state, &user, &payload)? {
        return Ok(Reply::quiet("same diff already scored"));
    }
    ctx.effects.checkpoint(Checkpoint::HashSaved);

    // Score under the remote budget, then drop the axes the agent already looked at.
    let tag = held.session.tag();
    let mut notice = None;
    let scored = budget::score(
        ctx,
        held.session,
        &tag,
        &user,
        &frozen,
        &payload,
        &mut notice,
    )?;
    let budget = scored.log();
    let mut verdict = match scored {
        Scored::Chosen { verdict, .. } | Scored::Fallback { verdict, .. } => verdict,
        Scored::Skipped { .. } => {
            let log = Decision {
                budget,
                files: Some(payload.files.len() as u64),
                diff: Some(seen.way.to_owned()),
                ..Decision::default()
            };
            let mut reply = Reply {
                log: Some(log),
                ..Reply::quiet(BUDGET_SKIPPED)
            };
            reply.answer.messages.extend(notice);
            return Ok(reply);
        }
    };
    ctx.effects.checkpoint(Checkpoint::Scored);
    clock.lap("score");
    let remembered = recall(ctx, state, &tag, &payload, &mut verdict);
    let log = scored_log(&seen, &verdict, &payload, frozen.mode, budget, &remembered);
    let mut reply = Reply {
        log: Some(log),
        ..Reply::default()
    };
    reply.answer.messages.extend(notice);
    if verdict.selected.is_empty() {
        reply.outcome = if remembered.is_empty() {
            "below threshold"
        } else {
            ALREADY_LOOKED_AT
        };
        return Ok(reply);
    }
    respond(ctx, event, held, state, &payload, &verdict, reply)
}

/// The repository the prompt was sent in, found again; `None` when it is gone.
fn find_repo(
    effects: &dyn Effects,
    git: &Git,
    state: &PromptState,
) -> Result<Option<Repo>, Failure> {
    let found = match &state.repo {
        Some(known) => effects.rediscover(git, known)?,
        None => effects.discover(git, &state.repo_top)?,
    };
    Ok(match found {
        Discovery::Found(repo) => Some(repo),
        _ => None,
    })
}

/// The turn's changes since `baseline`, and the pure stages that read them next.
fn changes(
    effects: &dyn Effects,
    git: &Git,
    repo: &Repo,
    private: &PrivateStore,
    frozen: &Frozen,
    baseline: &Snapshot,
) -> Result<(Turn, Stages), Failure> {
    let options = frozen.snapshot_options();
    // What the pure stages need besides the diff — the path selector (its globs) and the
    // redactor (its keyword automaton), a few ms of CPU — is built on a second thread while
    // git works, instead of after it.
    let (turn, prepared) = std::thread::scope(|scope| {
        let prepared = scope.spawn(|| Stages::new(&frozen.exclude, frozen.size_policy()));
        let turn = effects.changes_since(git, repo, private, &options, baseline);
        let prepared = prepared
            .join()
            .unwrap_or_else(|panic| std::panic::resume_unwind(panic));
        (turn, prepared)
    });
    let turn = turn?;
    Ok((turn, prepared?))
}

/// Selects the turn's paths, then redacts them into the canonical payload under the size
/// policy. A turn with nothing to score, or too large to score, ends the Stop with the reply.
fn to_payload(
    stages: &Stages,
    turn: Turn,
    clock: &mut StageClock,
) -> ControlFlow<Reply, (Payload, Seen)> {
    let changed = turn.changes.len();
    let seen = Seen::of(&turn);
    let selection = stages.select(turn.changes, &turn.attributes);
    clock.lap("select");
    let outcome = stages.payload(&selection.kept);
    clock.lap("payload");
    let (log, outcome) = match outcome {
        Outcome::Ready(payload) => return ControlFlow::Continue((payload, seen)),
        Outcome::Empty => (
            Decision {
                changed: Some(changed as u64),
                excluded: Some(selection.excluded.len() as u64),
                diff: Some(seen.way.to_owned()),
                ..Decision::default()
            },
            "nothing to score",
        ),
        Outcome::Skipped(SkipReason::TooLarge { bytes, max_bytes }) => (
            Decision {
                payload_bytes: Some(bytes as u64),
                max_diff_bytes: Some(max_bytes as u64),
                ..Decision::default()
            },
            "diff over maxDiffBytes; skipped",
        ),
    };
    ControlFlow::Break(Reply {
        log: Some(log),
        ..Reply::quiet(outcome)
    })
}

/// The hash gate: one request per distinct diff per prompt. Whether `payload` is new to the
/// prompt; a new one's hash is recorded before it is scored.
fn hash_gate(
    prompt: &PromptStore,
    state: &mut PromptState,
    user: &UserSettings,
    payload: &Payload,
) -> Result<bool, Failure> {
    if state.scored.contains(&payload.hash) {
        return Ok(false);
    }
    state.scored.push(payload.hash.clone());
    // Renamed into place before a request, so that a Stop retried after a crash of this
    // process sees the hash; not synced: only a power cut could lose it, and what it gates is
    // a second request for the same diff. A second continuation is gated by the count, whose
    // write in `save_continuation` is synced. (Syncing this write too would add a data sync
    // and a directory journal commit to every Stop.) The built-in scorer sends no request, so
    // nothing is written for it here: the hash reaches the state with the prompt's last
    // write, and the Stop replaces its state file once instead of twice (a rename over a file
    // written just before is slow on a busy disk).
    if user.scorer.kind.resolve(&user.scorer) != ScorerKind::Local {
        prompt.write_state_unsynced(state)?;
    }
    Ok(true)
}

/// Drops from `verdict.selected` the axes the agent already looked at for the same lines
/// and returns them, for the log.
fn recall(
    ctx: &Context<'_>,
    state: &PromptState,
    tag: &str,
    payload: &Payload,
    verdict: &mut Verdict,
) -> Vec<&'static str> {
    match state.tree_cache.parent() {
        Some(dir) => remember::recall(
            dir,
            tag,
            unix(ctx.now()),
            state.config.memory_days,
            payload,
            &verdict.scores,
            &mut verdict.selected,
        ),
        None => Vec::new(),
    }
}

/// The decision-log entry of a scored Stop: the verdict and the payload's facts, never its
/// content.
fn scored_log(
    seen: &Seen,
    verdict: &Verdict,
    payload: &Payload,
    mode: Mode,
    budget: Option<String>,
    remembered: &[&str],
) -> Decision {
    let scores = &verdict.scores;
    let rounded = |v: f64| (v * 1e4).round() / 1e4;
    // Counts per marker (`{"aws-access-key": 1}`), never the secrets themselves.
    let redactions = payload.redactions.counts.iter();
    let mut log = Decision {
        scorer: Some(verdict.scorer.to_owned()),
        model: Some(scores.model.clone()),
        scores: Some(
            AXIS_IDS
                .iter()
                .zip(scores.values)
                .map(|(id, v)| (id.to_string(), rounded(v)))
                .collect(),
        ),
        selected: Some(
            verdict
                .selected
                .iter()
                .map(|s| AXIS_IDS[s.axis].to_owned())
                .collect(),
        ),
        files: Some(payload.files.len() as u64),
        payload_bytes: Some(payload.json.len() as u64),
        redactions: Some(Redactions::PerMarker(
            redactions.map(|(k, n)| (k.clone(), *n as u64)).collect(),
        )),
        hash: Some(payload.hash[..16].to_owned()),
        mode: mode_name(mode),
        diff: Some(seen.way.to_owned()),
        budget,
        ..Decision::default()
    };
    seen.annotate(&mut log, payload.omitted.len());
    if !remembered.is_empty() {
        log.remembered = Some(remembered.iter().map(|a| a.to_string()).collect());
    }
    log
}

/// The name the config gives `mode` (`assist`), which the log records.
fn mode_name(mode: Mode) -> Option<String> {
    serde_json::to_value(mode)
        .ok()
        .and_then(|name| name.as_str().map(str::to_owned))
}

/// The answer to a verdict that selected axes, as the prompt's mode has it: none (`off`), a
/// line for the user (`report`), or the continuation asking the agent to look again
/// (`assist`).
fn respond(
    ctx: &Context<'_>,
    event: &Event,
    held: &Held<'_>,
    state: &mut PromptState,
    payload: &Payload,
    verdict: &Verdict,
    mut reply: Reply,
) -> Result<Reply, Failure> {
    let (scores, selected) = (&verdict.scores, &verdict.selected);
    match state.config.mode {
        Mode::Off => reply.outcome = "mode off",
        Mode::Report => {
            reply.outcome = "reported";
            reply
                .answer
                .messages
                .push(answer::report_line(selected, &payload.files));
        }
        Mode::Assist => {
            let text = answer::assist_text(&Finding {
                selected,
                axes: axes::axes(),
                evidence: &scores.evidence,
                files: &payload.files,
                omitted: &payload.omitted,
            });
            let form = event
                .host
                .form(state.config.answer, event.prompt_id.is_some());
            save_continuation(ctx, held, state, payload, verdict)?;
            reply.outcome = "continued";
            reply.answer.continuation = Some((form, text));
        }
    }
    Ok(reply)
}

/// Records the continuation and ends the prompt's baseline. The count is saved before the
/// answer exists: a crash from here on can lose the continuation, never repeat it.
fn save_continuation(
    ctx: &Context<'_>,
    held: &Held<'_>,
    state: &mut PromptState,
    payload: &Payload,
    verdict: &Verdict,
) -> Result<(), Failure> {
    let tag = held.session.tag();
    state.asked = remember::asked(
        &state.repo_top,
        &tag,
        payload,
        &verdict.scores,
        &verdict.selected,
    );
    state.phase = Phase::Continued;
    state.continuations += 1;
    state.baseline = None;
    let _ = ctx.effects.purge(held.private);
    let _ = crate::fs::remove_entry(&held.private.prompt);
    held.prompt.write_state(state)?;
    ctx.effects.checkpoint(Checkpoint::ContinuationSaved);
    Ok(())
}

/// What the decision log says of the turn itself: how its diff was made, and how much of it
/// was not looked at whole.
struct Seen {
    /// How the diff was made ([`crate::git::turn::Way::name`]).
    way: &'static str,
    /// Changes whose content was never read (past the snapshot's read bounds).
    unread: usize,
    /// Paths the walk did not keep (excluded by name, past the read bounds).
    dropped: u64,
}

impl Seen {
    fn of(turn: &Turn) -> Seen {
        Seen {
            way: turn.way.name(),
            unread: turn.changes.iter().filter(|c| c.unread).count(),
            dropped: turn.dropped,
        }
    }

    /// Adds to `log` `unread`, `dropped` and `omitted` (files the payload left out), each
    /// only where not 0.
    fn annotate(&self, log: &mut Decision, omitted: usize) {
        let some = |n: u64| (n > 0).then_some(n);
        log.unread = some(self.unread as u64);
        log.dropped = some(self.dropped);
        log.omitted = some(omitted as u64);
    }
}

/// Ends a prompt: content removed, a content-free tombstone kept so duplicates stay no-ops.
pub(crate) fn finish(
    ctx: &Context<'_>,
    prompt: &PromptStore,
    private: &PrivateStore,
    state: &mut PromptState,
) {
    let _ = ctx.effects.purge(private);
    let _ = crate::fs::remove_entry(&prompt.snapshot_dir());
    // The turn after a continuation has ended: what it left as it was is remembered.
    if state.phase == Phase::Continued
        && let Some(dir) = state.tree_cache.parent()
    {
        remember::confirm(dir, &state.repo_top, &state.asked, unix(ctx.now()));
    }
    state.asked.clear();
    state.phase = Phase::Finished;
    state.baseline = None;
    // Not synced: losing the tombstone in a power cut leaves the last synced state, whose
    // gates (hashes scored, continuation count) still hold.
    if prompt.write_state_unsynced(state).is_err() {
        let _ = prompt.remove();
    }
}

fn unix(t: std::time::SystemTime) -> u64 {
    t.duration_since(std::time::SystemTime::UNIX_EPOCH)
        .map(|d| d.as_secs())
        .unwrap_or(0)
}

/// The stages a Stop's decision-log entry times (`ms`), in the order they run.
pub const STAGES: [&str; 6] = [
    "prepare", "changes", "select", "payload", "score", "cleanup",
];

/// Milliseconds spent in each stage of one Stop, for the decision log (`status` and anyone
/// asking why a Stop took long read them there).
struct StageClock {
    last: std::time::Instant,
    laps: BTreeMap<String, f64>,
}

impl StageClock {
    fn start() -> StageClock {
        StageClock {
            last: std::time::Instant::now(),
            laps: BTreeMap::new(),
        }
    }

    fn lap(&mut self, stage: &str) {
        debug_assert!(
            STAGES.contains(&stage),
            "stage `{stage}` missing from STAGES"
        );
        let now = std::time::Instant::now();
        let ms = (now - self.last).as_secs_f64() * 1e3;
        self.laps
            .insert(stage.to_owned(), (ms * 10.0).round() / 10.0);
        self.last = now;
    }
}
