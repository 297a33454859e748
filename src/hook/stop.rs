//! Stop: the pipeline of SPEC §1, top to bottom — gates, snapshot, diff, select, redact and
//! payload, hash gate, score, threshold and top 3, answer — at most once per prompt.

use serde_json::json;

use crate::config::{self, Mode};
use crate::git::Discovery;
use crate::git::snapshot::PrivateStore;
use crate::hook::answer::{self, Finding};
use crate::hook::budget::{self, Scored};
use crate::hook::effects::Checkpoint;
use crate::hook::event::Event;
use crate::hook::failure::{Class, Failure};
use crate::hook::prompt_state::{Phase, PromptState, STATE_VERSION};
use crate::hook::remember;
use crate::hook::{Context, Reply, STOP_GIT_DEADLINE};
use crate::pipeline::Stages;
use crate::pipeline::axes::{self, AXIS_IDS};
use crate::pipeline::payload::{Outcome, SkipReason};
use crate::scorer::ScorerKind;
use crate::state::{PromptStore, SessionStore};

/// Outcome of a Stop that found no baseline for its prompt.
pub const NO_BASELINE: &str = "no baseline";
/// Outcome of a Stop whose every selected axis the agent was already asked about.
pub const ALREADY_LOOKED_AT: &str = "already looked at";
/// Outcome of a Stop not scored because a remote limit was reached and the user chose `skip`.
pub const BUDGET_SKIPPED: &str = "remote budget reached; skipped";

/// Told to the user when the agent (or anyone) edited the repo config during the turn.
pub const CONFIG_CHANGED: &str = "jev-preflight: `.jev-preflight.json` changed during this turn; this turn was checked with the config read when the prompt was sent, and the new config applies from your next prompt";

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
    let result = evaluate(
        ctx, event, &session, &prompt, &private, &mut state, &mut clock,
    );
    if state.phase == Phase::Baseline {
        finish(ctx, &prompt, &private, &mut state);
    }
    let mut reply = result?;
    clock.lap("cleanup");
    if let Some(serde_json::Value::Object(log)) = &mut reply.log {
        log.insert("ms".to_owned(), serde_json::Value::Object(clock.laps));
    }
    if config_changed {
        reply.answer.messages.insert(0, CONFIG_CHANGED.to_owned());
    }
    Ok(reply)
}

/// Snapshot → diff → select → payload → hash gate → score → select axes → answer.
/// Leaves `state.phase` at `Baseline` unless it issued the continuation.
fn evaluate(
    ctx: &Context<'_>,
    event: &Event,
    session: &SessionStore,
    prompt: &PromptStore,
    private: &PrivateStore,
    state: &mut PromptState,
    clock: &mut StageClock,
) -> Result<Reply, Failure> {
    let effects = ctx.effects;
    let git = ctx.git.clone().with_deadline(STOP_GIT_DEADLINE);
    let frozen = state.config.clone();
    let Some(baseline) = state.baseline.clone() else {
        return Ok(Reply::untraced(NO_BASELINE));
    };
    let found = match &state.repo {
        Some(known) => effects.rediscover(&git, known)?,
        None => effects.discover(&git, &state.repo_top)?,
    };
    let repo = match found {
        Discovery::Found(repo) => repo,
        _ => return Ok(Reply::quiet("repository is gone")),
    };
    clock.lap("prepare");
    let options = frozen.snapshot_options();
    // What the pure stages need besides the diff — the path selector (its globs) and the
    // redactor (its keyword automaton), a few ms of CPU — is built on a second thread while
    // git works, instead of after it.
    let (turn, prepared) = std::thread::scope(|scope| {
        let prepared = scope.spawn(|| Stages::new(&frozen.exclude, frozen.size_policy()));
        let turn = effects.changes_since(&git, &repo, private, &options, &baseline);
        let prepared = prepared
            .join()
            .unwrap_or_else(|panic| std::panic::resume_unwind(panic));
        (turn, prepared)
    });
    let turn = turn?;
    clock.lap("changes");

    // Select paths, then redact into the canonical payload under the size policy.
    let stages = prepared?;
    let changed = turn.changes.len();
    let way = turn.way.name();
    let large = LargeTurn::of(&turn);
    let selection = stages.select(turn.changes, &turn.attributes);
    clock.lap("select");
    let outcome = stages.payload(&selection.kept);
    clock.lap("payload");
    let payload = match outcome {
        Outcome::Ready(payload) => payload,
        Outcome::Empty => {
            return Ok(Reply {
                log: Some(
                    json!({"changed": changed, "excluded": selection.excluded.len(), "diff": way}),
                ),
                ..Reply::quiet("nothing to score")
            });
        }
        Outcome::Skipped(SkipReason::TooLarge { bytes, max_bytes }) => {
            return Ok(Reply {
                log: Some(json!({"payload_bytes": bytes, "max_diff_bytes": max_bytes})),
                ..Reply::quiet("diff over maxDiffBytes; skipped")
            });
        }
    };

    // Hash gate: one request per distinct diff per prompt, recorded before the request.
    let user = config::user_settings(ctx.env).map_err(Failure::user_config)?;
    if state.scored.contains(&payload.hash) {
        return Ok(Reply::quiet("same diff already scored"));
    }
    state.scored.push(payload.hash.clone());
    // Renamed into place before a request, so that a Stop retried after a crash of this
    // process sees the hash; not synced: only a power cut could lose it, and what it gates is
    // a second request for the same diff. A second continuation is gated by the count, whose
    // write below is synced. (Syncing this write cost 0.5–7 ms per Stop: the file's data and
    // its directory's journal commit.) The built-in scorer sends no request, so nothing is
    // written for it here: the hash reaches the state with the prompt's last write, and the
    // Stop replaces its state file once instead of twice (a rename over a file written
    // milliseconds before costs up to a few ms on a busy disk).
    if user.scorer.kind.resolve(&user.scorer) != ScorerKind::Local {
        prompt.write_state_unsynced(state)?;
    }
    effects.checkpoint(Checkpoint::HashSaved);

    // Score under the remote budget, then drop the axes the agent already looked at.
    let tag = session.tag();
    let mut notice = None;
    let scored = budget::score(ctx, session, &tag, &user, &frozen, &payload, &mut notice)?;
    let spent = scored.log();
    let mut verdict = match scored {
        Scored::Chosen { verdict, .. } | Scored::Fallback { verdict, .. } => verdict,
        Scored::Skipped { .. } => {
            let mut reply = Reply {
                log: Some(json!({"budget": spent, "files": payload.files.len(), "diff": way})),
                ..Reply::quiet(BUDGET_SKIPPED)
            };
            reply.answer.messages.extend(notice);
            return Ok(reply);
        }
    };
    effects.checkpoint(Checkpoint::Scored);
    clock.lap("score");
    let now = unix(ctx.now());
    let remembered = match state.tree_cache.parent() {
        Some(dir) => remember::recall(
            dir,
            &tag,
            now,
            frozen.memory_days,
            &payload,
            &verdict.scores,
            &mut verdict.selected,
        ),
        None => Vec::new(),
    };
    let (scores, selected) = (&verdict.scores, &verdict.selected);
    let log = json!({
        "scorer": verdict.scorer,
        "model": scores.model,
        "scores": AXIS_IDS.iter().zip(scores.values).map(|(id, v)| (id.to_string(), json!((v * 1e4).round() / 1e4))).collect::<serde_json::Map<_, _>>(),
        "selected": selected.iter().map(|s| AXIS_IDS[s.axis]).collect::<Vec<_>>(),
        "files": payload.files.len(),
        "payload_bytes": payload.json.len(),
        // Counts per marker (`{"aws-access-key": 1}`), never the secrets themselves.
        "redactions": payload.redactions.counts,
        "hash": payload.hash[..16].to_owned(),
        "mode": frozen.mode,
        "diff": way,
    });
    let mut log = large.annotate(log, payload.omitted.len());
    if let Some(spent) = spent {
        log["budget"] = spent;
    }
    if !remembered.is_empty() {
        log["remembered"] = json!(remembered);
    }
    if selected.is_empty() {
        let mut reply = Reply {
            log: Some(log),
            ..Reply::quiet(if remembered.is_empty() {
                "below threshold"
            } else {
                ALREADY_LOOKED_AT
            })
        };
        reply.answer.messages.extend(notice);
        return Ok(reply);
    }

    // Answer.
    let mut reply = Reply {
        log: Some(log),
        ..Reply::default()
    };
    reply.answer.messages.extend(notice);
    match frozen.mode {
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
            let form = event.host.form(frozen.answer, event.prompt_id.is_some());
            // The count is saved before the answer exists: a crash from here on can lose the
            // continuation, never repeat it.
            state.asked = remember::asked(&state.repo_top, &tag, &payload, scores, selected);
            state.phase = Phase::Continued;
            state.continuations += 1;
            state.baseline = None;
            let _ = effects.purge(private);
            let _ = crate::fs::remove_entry(&private.prompt);
            prompt.write_state(state)?;
            effects.checkpoint(Checkpoint::ContinuationSaved);
            reply.outcome = "continued";
            reply.answer.continuation = Some((form, text));
        }
    }
    Ok(reply)
}

/// How much of a turn was not looked at whole, for the decision log (absent when all was).
struct LargeTurn {
    /// Changes whose content was never read (past the snapshot's read bounds).
    unread: usize,
    /// Paths the walk did not keep (excluded by name, past the read bounds).
    dropped: u64,
}

impl LargeTurn {
    fn of(turn: &crate::git::turn::Turn) -> LargeTurn {
        LargeTurn {
            unread: turn.changes.iter().filter(|c| c.unread).count(),
            dropped: turn.dropped,
        }
    }

    /// `log` with `unread`, `dropped` and `omitted` (files the payload left out) where not 0.
    fn annotate(&self, mut log: serde_json::Value, omitted: usize) -> serde_json::Value {
        for (key, n) in [
            ("unread", self.unread as u64),
            ("dropped", self.dropped),
            ("omitted", omitted as u64),
        ] {
            if n > 0 {
                log[key] = json!(n);
            }
        }
        log
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
    laps: serde_json::Map<String, serde_json::Value>,
}

impl StageClock {
    fn start() -> StageClock {
        StageClock {
            last: std::time::Instant::now(),
            laps: serde_json::Map::new(),
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
            .insert(stage.to_owned(), json!((ms * 10.0).round() / 10.0));
        self.last = now;
    }
}
