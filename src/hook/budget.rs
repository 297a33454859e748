//! Scoring at the Stop under the user's budget for remote scorers (`jev`, `openai`,
//! `command`: any of them may call a paid model). A payload this session already had scored
//! is never sent again — its scores are reused; a request that would pass a limit is not sent
//! — the built-in scorer scores the turn instead, or the turn is skipped, as the user chose;
//! and the first time a limit stops a request in a session, the user is told, once. The
//! built-in scorer costs nothing and is never counted. The limits and the ledger are
//! [`crate::state::budget`].

use std::time::{Duration, SystemTime};

use serde_json::{Value, json};

use crate::config::{Frozen, UserSettings};
use crate::hook::Context;
use crate::hook::failure::Failure;
use crate::pipeline::axes::{self, AXIS_COUNT};
use crate::pipeline::payload::Payload;
use crate::scorer::Verdict;
use crate::scorer::{Scorer, ScorerKind, ScorerSettings, Scores};
use crate::state::SessionStore;
use crate::state::budget::{Ledger, Limit, OverBudget};

/// How a Stop's payload was scored.
#[derive(Debug)]
pub enum Scored {
    /// By the scorer the user chose (`cached`: this session's earlier scores of the same
    /// payload, nothing sent).
    Chosen { verdict: Verdict, cached: bool },
    /// By the built-in scorer, because a remote limit was reached.
    Fallback { verdict: Verdict, limit: Limit },
    /// Not at all: a remote limit was reached and the user chose to skip.
    Skipped { limit: Limit },
}

impl Scored {
    /// What the decision log records about the budget (`None`: nothing to say).
    pub fn log(&self) -> Option<String> {
        match self {
            Scored::Chosen { cached: true, .. } => Some("cached".to_owned()),
            Scored::Chosen { .. } => None,
            Scored::Fallback { limit, .. } => Some(format!("local: {}", name(*limit))),
            Scored::Skipped { limit } => Some(format!("skipped: {}", name(*limit))),
        }
    }
}

fn name(limit: Limit) -> &'static str {
    match limit {
        Limit::Session(_) => "session limit",
        Limit::Day(_) => "daily limit",
        Limit::Tokens(_) => "daily token limit",
    }
}

/// Scores `payload` as the user's settings and budget allow. `session` is the Stop's session
/// in the store, `tag` its hash prefix; `notice` receives the once-per-session message when a
/// limit is first reached.
pub fn score(
    ctx: &Context<'_>,
    session: &SessionStore,
    tag: &str,
    user: &UserSettings,
    frozen: &Frozen,
    payload: &Payload,
    notice: &mut Option<String>,
) -> Result<Scored, Failure> {
    let kind = user.scorer.kind.resolve(&user.scorer);
    if kind == ScorerKind::Local {
        let verdict = plain(ctx, &user.scorer, frozen, payload)?;
        return Ok(Scored::Chosen {
            verdict,
            cached: false,
        });
    }
    if let Some(scores) = session.cached_scores(&payload.hash).and_then(from_cache) {
        let thresholds = frozen.thresholds(kind.default_thresholds(&user.scorer));
        let selected = axes::select(&scores.values, &thresholds);
        return Ok(Scored::Chosen {
            verdict: Verdict {
                scorer: kind.name(),
                scores,
                selected,
            },
            cached: true,
        });
    }
    let now = ctx
        .now()
        .duration_since(SystemTime::UNIX_EPOCH)
        .map(|d| d.as_secs())
        .unwrap_or(0);
    let root = session
        .dir()
        .parent()
        .and_then(|sessions| sessions.parent())
        .unwrap_or(session.dir());
    let ledger = Ledger::at(root);
    // Built first: a scorer that cannot be built (no key, a bad setting) sends nothing and
    // must not be counted.
    let scorer = ctx.effects.scorer(&user.scorer)?;
    let Some(limit) = ledger.reserve(tag, now, &user.budget)? else {
        let verdict = judge(&*scorer, frozen, payload, ctx.scorer_budget)?;
        if let Some(tokens) = verdict.scores.tokens {
            let _ = ledger.record_tokens(tag, now, tokens);
        }
        // A lost entry (another process held the session) costs one request later.
        let _ = session.cache_scores(&payload.hash, to_cache(&verdict.scores));
        return Ok(Scored::Chosen {
            verdict,
            cached: false,
        });
    };
    if session.notice_once("budget").unwrap_or(true) {
        let then = match user.budget.over {
            OverBudget::Local => {
                "this session's turns are checked by the built-in scorer from now on (nothing is \
                 sent)"
            }
            OverBudget::Skip => "this session's turns are not checked from now on",
        };
        *notice = Some(format!(
            "jev-preflight: the `{}` scorer reached its limit of {}; {then}",
            kind.name(),
            limit.describe()
        ));
    }
    match user.budget.over {
        OverBudget::Skip => Ok(Scored::Skipped { limit }),
        OverBudget::Local => {
            let local = ScorerSettings {
                kind: ScorerKind::Local,
                ..user.scorer.clone()
            };
            let verdict = plain(ctx, &local, frozen, payload)?;
            Ok(Scored::Fallback { verdict, limit })
        }
    }
}

/// The scorer `settings` choose, its thresholds, its verdict.
fn plain(
    ctx: &Context<'_>,
    settings: &ScorerSettings,
    frozen: &Frozen,
    payload: &Payload,
) -> Result<Verdict, Failure> {
    let scorer = ctx.effects.scorer(settings)?;
    judge(&*scorer, frozen, payload, ctx.scorer_budget)
}

/// `scorer`'s verdict on `payload` under its thresholds, within the hook's `cap` as the
/// repository's `timeoutMs` narrows it.
fn judge(
    scorer: &dyn Scorer,
    frozen: &Frozen,
    payload: &Payload,
    cap: Duration,
) -> Result<Verdict, Failure> {
    let thresholds = frozen.thresholds(scorer.default_thresholds());
    let budget = frozen.scorer_budget(cap);
    Ok(crate::scorer::judge(payload, scorer, &thresholds, budget)?)
}

/// What the session keeps of a remote verdict: the scores and the model (remote scorers give
/// no evidence, and nothing else of the reply is kept).
fn to_cache(scores: &Scores) -> Value {
    json!({"values": scores.values, "model": scores.model})
}

fn from_cache(value: Value) -> Option<Scores> {
    let values: Vec<f64> = value
        .get("values")?
        .as_array()?
        .iter()
        .map(Value::as_f64)
        .collect::<Option<_>>()?;
    let values: [f64; AXIS_COUNT] = values.try_into().ok()?;
    if values.iter().any(|v| !(0.0..=1.0).contains(v)) {
        return None;
    }
    Some(Scores {
        values,
        model: value
            .get("model")
            .and_then(Value::as_str)
            .map(str::to_owned),
        evidence: Vec::new(),
        tokens: None,
    })
}
