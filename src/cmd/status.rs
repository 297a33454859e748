//! `jev-preflight status`: the hook's recent decisions in this repository, read from the
//! store's decision log (time, mode, scorer, axes and scores, files, skip or failure reason;
//! never diff content), each with a plain-words reason — the answer to "why did (or didn't)
//! it fire?". Reading never creates the store.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

use std::collections::BTreeMap;

use crate::config::HostEnv;
use crate::git::Repo;
use crate::hook::failure::Class;
use crate::state::decision::{Decision, Redactions};
use crate::state::memory::Memory;
use crate::state::{MARKER, Store};

/// Entries shown by default.
pub const DEFAULT_LIMIT: usize = 10;

/// Why `status` could not read the log.
#[derive(Debug, thiserror::Error)]
pub enum StatusError {
    #[error("no data dir: neither `CLAUDE_PLUGIN_DATA`, `XDG_STATE_HOME` nor `HOME` is set")]
    NoDataDir,
    #[error("{}: {source}", .path.display())]
    Store {
        path: PathBuf,
        source: crate::state::StoreError,
    },
}

impl StatusError {
    pub fn hint(&self) -> Option<String> {
        Some(match self {
            StatusError::NoDataDir => "set `HOME` (or `XDG_STATE_HOME`) and run again".into(),
            StatusError::Store { .. } => "run `jev-preflight doctor` to check the data dir".into(),
        })
    }
}

/// The decisions to show: those made in `repo_top` (all when `None`), newest first.
pub fn decisions(
    data_dir: &Path,
    repo_top: Option<&Path>,
    limit: usize,
) -> Result<Vec<Decision>, StatusError> {
    // Never create the store just to find it empty; an existing one must be ours.
    if std::fs::symlink_metadata(data_dir.join(MARKER)).is_err() {
        return Ok(Vec::new());
    }
    let store = Store::open(data_dir).map_err(|source| StatusError::Store {
        path: data_dir.to_owned(),
        source,
    })?;
    let mut all = store.decisions();
    all.reverse();
    Ok(all
        .into_iter()
        .map(with_repository)
        .filter(|d| match repo_top {
            None => true,
            // The entry's repository; for a layout without a `.git` in the working tree
            // (`core.worktree`), any directory under this top.
            Some(top) => match &d.repo {
                Some(repo) => Path::new(repo) == top,
                None => d
                    .cwd
                    .as_ref()
                    .and_then(|cwd| std::fs::canonicalize(cwd).ok())
                    .is_some_and(|cwd| cwd.starts_with(top)),
            },
        })
        .take(limit)
        .collect())
}

/// The repository an entry's `cwd` belongs to, added as `repo`: the nearest directory at or
/// above it that holds a `.git` (a linked worktree's is a file), after resolving symlinks.
/// Nothing is added when the directory is gone or in no repository.
fn with_repository(mut entry: Decision) -> Decision {
    let repo = entry
        .cwd
        .as_ref()
        .and_then(|cwd| std::fs::canonicalize(cwd).ok())
        .and_then(|cwd| {
            cwd.ancestors()
                .find(|dir| std::fs::symlink_metadata(dir.join(".git")).is_ok())
                .map(Path::to_path_buf)
        });
    if let Some(repo) = repo {
        entry.repo = Some(repo.display().to_string());
    }
    entry
}

/// What an outcome means, in plain words.
pub fn explain(outcome: &str, class: Option<&str>) -> String {
    if outcome != "failed" {
        return meaning(outcome).unwrap_or(outcome).to_owned();
    }
    let name = class.unwrap_or("unknown");
    match class.and_then(Class::from_name) {
        Some(class) => format!(
            "failed open ({name}): the agent was let finish; {}",
            class.hint()
        ),
        None => format!("failed open ({name}): the agent was let finish"),
    }
}

/// What an outcome other than `failed` means; `None` for one this version does not know.
fn meaning(outcome: &str) -> Option<&'static str> {
    Some(match outcome {
        "continued" => "asked the agent once to look again at the axes above",
        "reported" => "showed you a one-line summary (mode `report`); the agent was not asked",
        "mode off" => "mode `off`: nothing shown",
        "below threshold" => "no axis reached its threshold, so nothing was shown",
        "nothing to score" => {
            "no selected file changed in the turn (no change, or every changed path was \
             excluded)"
        }
        "diff over maxDiffBytes; skipped" => {
            "the turn's diff was over `maxDiffBytes` and `oversize` is `skip` (or no whole file \
             fit)"
        }
        "same diff already scored" => {
            "this exact diff was already scored for this prompt; one request per diff"
        }
        "already looked at" => {
            "every axis that reached its threshold was one the agent was already asked about for \
             these same lines, and left them as they were; it is not raised again (see what is \
             remembered below; `jev-preflight forget` raises it again)"
        }
        "remote budget reached; skipped" => {
            "a remote scorer's limit was reached and `overBudget` is `skip`, so the turn was not \
             scored (see the remote budget below)"
        }
        "no baseline" => {
            "no baseline for this prompt: mode `off`, not a repository when the prompt was sent, \
             a failure at the prompt, or hooks installed mid-session"
        }
        "repository is gone" => "the repository was removed during the turn",
        "background work pending; baseline kept" => {
            "background tasks or crons were pending: the session paused, it was not done; the \
             baseline is kept for the real end"
        }
        "stop_hook_active; prompt finished" | "continuation already issued; prompt finished" => {
            "the agent was already asked once for this prompt; never twice"
        }
        "prompt already finished" => "a duplicate Stop for a prompt already finished",
        "no baseline, or another Stop is evaluating this prompt" => {
            "another Stop of the same prompt was running, or there was no baseline"
        }
        _ => return None,
    })
}

/// `YYYY-MM-DD HH:MM:SS` UTC for seconds since the epoch.
pub fn utc(secs: u64) -> String {
    let days = (secs / 86_400) as i64;
    let rem = secs % 86_400;
    // Howard Hinnant's civil-from-days.
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + i64::from(m <= 2);
    format!(
        "{y:04}-{m:02}-{d:02} {:02}:{:02}:{:02}",
        rem / 3600,
        rem % 3600 / 60,
        rem % 60
    )
}

fn ago(now: SystemTime, secs: u64) -> String {
    let then = SystemTime::UNIX_EPOCH + Duration::from_secs(secs);
    let s = now.duration_since(then).unwrap_or_default().as_secs();
    match s {
        0..=59 => format!("{s}s ago"),
        60..=3599 => format!("{}m ago", s / 60),
        3600..=86_399 => format!("{}h ago", s / 3600),
        _ => format!("{}d ago", s / 86_400),
    }
}

/// The readable listing.
pub fn render(entries: &[Decision], scope: &str, now: SystemTime) -> String {
    let mut t = String::new();
    if entries.is_empty() {
        let _ = writeln!(t, "no decisions recorded {scope}");
        let _ = writeln!(
            t,
            "the hook records one line per Stop; none yet means it has not run a turn here \
             (check `jev-preflight doctor`, and that the plugin or `jev-preflight install` \
             hooks are active)"
        );
        return t;
    }
    let _ = writeln!(
        t,
        "last {} decision(s) {scope}, newest first",
        entries.len()
    );
    for e in entries {
        render_entry(&mut t, e, now);
    }
    t
}

/// One decision: when and what, where, what was scored, the facts of the turn, what was not
/// raised or not sent, how long it took, and why it ended as it did.
fn render_entry(t: &mut String, e: &Decision, now: SystemTime) {
    let (event, outcome) = (or_unknown(&e.event), or_unknown(&e.outcome));
    let _ = write!(
        t,
        "\n{} UTC ({})  {event}  {outcome}",
        utc(e.time),
        ago(now, e.time)
    );
    if let Some(mode) = &e.mode {
        let _ = write!(t, "  mode {mode}");
    }
    if let Some(scorer) = &e.scorer {
        let _ = write!(t, "  scorer {scorer}");
        if let Some(Some(model)) = &e.model {
            let _ = write!(t, " ({model})");
        }
    }
    let _ = writeln!(t);
    match (&e.repo, &e.cwd) {
        (Some(repo), _) => {
            let _ = writeln!(t, "  repository: {repo}");
        }
        (_, Some(cwd)) => {
            let _ = writeln!(t, "  directory: {cwd} (not a repository now)");
        }
        _ => {}
    }
    if let Some(scores) = &e.scores {
        let selected = e.selected.as_deref().unwrap_or_default();
        let _ = writeln!(t, "  top scores: {}", top_scores(scores, selected));
    }
    let facts = facts(e);
    if !facts.is_empty() {
        let _ = writeln!(t, "  {}", facts.join(", "));
    }
    if let Some(axes) = &e.remembered {
        let _ = writeln!(
            t,
            "  not raised again (already looked at, same lines): {}",
            axes.join(", ")
        );
    }
    match e.budget.as_deref() {
        Some("cached") => {
            let _ = writeln!(
                t,
                "  scores reused: this session had this exact diff scored before; nothing was \
                 sent"
            );
        }
        Some(other) => {
            let _ = writeln!(t, "  remote budget: {other}");
        }
        None => {}
    }
    if let Some(stages) = &e.ms {
        let _ = writeln!(t, "  took {}", timings(stages));
    }
    let _ = writeln!(t, "  why: {}", explain(outcome, e.class.as_deref()));
}

/// `?` for a field an entry lacks.
fn or_unknown(field: &str) -> &str {
    if field.is_empty() { "?" } else { field }
}

/// The three highest scores, best first, and the axes selected (`none`).
fn top_scores(scores: &BTreeMap<String, f64>, selected: &[String]) -> String {
    let mut top: Vec<(&String, f64)> = scores.iter().map(|(k, v)| (k, *v)).collect();
    top.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(b.0)));
    let shown: Vec<String> = top
        .iter()
        .take(3)
        .map(|(k, v)| format!("{k} {}", crate::scorer::threshold::shown(*v)))
        .collect();
    format!(
        "{}; selected: {}",
        shown.join(", "),
        if selected.is_empty() {
            "none".to_owned()
        } else {
            selected.join(", ")
        }
    )
}

/// The counts an entry holds (files, paths, bytes, secrets redacted), in words.
fn facts(e: &Decision) -> Vec<String> {
    let mut facts: Vec<String> = [
        (e.files, "file(s)"),
        (e.changed, "changed path(s)"),
        (e.excluded, "excluded"),
        (e.omitted, "left out of a partial payload"),
        (e.unread, "not read (a large turn)"),
        (e.dropped, "excluded path(s) not looked at (a large turn)"),
        (e.payload_bytes, "payload bytes"),
    ]
    .into_iter()
    .filter_map(|(n, label)| Some(format!("{} {label}", n?)))
    .collect();
    match &e.redactions {
        // Entries written before the per-type log hold a total.
        Some(Redactions::Total(n)) => facts.push(format!("{n} secret(s) redacted")),
        Some(Redactions::PerMarker(types)) if !types.is_empty() => {
            let total: u64 = types.values().sum();
            let each: Vec<String> = types.iter().map(|(id, n)| format!("{id} {n}")).collect();
            facts.push(format!("{total} secret(s) redacted ({})", each.join(", ")));
        }
        _ => {}
    }
    facts
}

/// Milliseconds in all, then per stage in pipeline order: `141 ms (prepare 2, …)`.
fn timings(stages: &BTreeMap<String, f64>) -> String {
    let spent: Vec<String> = crate::hook::stop::STAGES
        .iter()
        .filter_map(|stage| Some((stage, stages.get(*stage)?)))
        .map(|(stage, ms)| format!("{stage} {ms:.0}"))
        .collect();
    let total: f64 = stages.values().sum();
    format!("{total:.0} ms ({})", spent.join(", "))
}

/// What the memory of `repo` holds (with none: how much every repository's holds), for the
/// listing: each finding, when and in which session the agent was asked, and how often it
/// kept its axis from being raised again. Reading never creates the store.
pub fn remembered(env: &HostEnv, data: &Path, repo: Option<&Repo>, now: SystemTime) -> String {
    let Ok(Some(store)) = Store::open_existing(data) else {
        return String::new();
    };
    let now = now
        .duration_since(SystemTime::UNIX_EPOCH)
        .map(|d| d.as_secs())
        .unwrap_or(0);
    let mut t = String::new();
    let Some(repo) = repo else {
        let mut total = 0;
        let mut repos = 0;
        for dir in std::fs::read_dir(store.root().join("repos"))
            .into_iter()
            .flatten()
            .flatten()
        {
            let n = Memory::at(&dir.path()).findings().map_or(0, |f| f.len());
            total += n;
            repos += usize::from(n > 0);
        }
        let _ = writeln!(
            t,
            "\nremembered: {total} finding(s) already looked at, in {repos} repository(ies)"
        );
        return t;
    };
    // The days this repository's prompts would use now.
    let days = crate::config::read_repo_config(&repo.top)
        .ok()
        .and_then(|(cfg, _)| cfg.memory_days)
        .or_else(|| {
            crate::config::user_settings(env)
                .ok()
                .and_then(|u| u.memory_days)
        })
        .unwrap_or(crate::config::DEFAULT_MEMORY_DAYS);
    match Memory::at(&store.repo_dir(&repo.common_dir)).findings() {
        Err(e) => {
            let _ = writeln!(
                t,
                "\nremembered: the memory cannot be read ({e}); nothing is kept from being \
                 raised\nhint: `jev-preflight forget` clears it"
            );
        }
        Ok(findings) if findings.is_empty() => {
            let _ = writeln!(
                t,
                "\nremembered: nothing yet; an axis the agent is asked about and leaves as it was \
                 is not raised again for the same lines for {days} day(s)"
            );
        }
        Ok(mut findings) => {
            findings.sort_by_key(|f| std::cmp::Reverse(f.asked));
            let _ = writeln!(
                t,
                "\nremembered: {} finding(s) the agent was asked about and left as they were; an \
                 axis is not raised again for the same lines in the session that asked, nor for \
                 {days} day(s) here (`jev-preflight forget` clears them)",
                findings.len()
            );
            for f in findings.iter().take(MEMORY_SHOWN) {
                let expired = now.saturating_sub(f.asked) >= u64::from(days) * 86_400;
                let _ = write!(
                    t,
                    "  {} on {} (hunk {}), asked {} in session {}",
                    f.axis,
                    f.path,
                    &f.fingerprint[..f.fingerprint.len().min(12)],
                    ago(SystemTime::UNIX_EPOCH + Duration::from_secs(now), f.asked),
                    f.session
                );
                if f.suppressed > 0 {
                    let _ = write!(t, "; kept from being raised {} time(s)", f.suppressed);
                }
                if expired {
                    let _ = write!(t, "; past {days} day(s): holds only in its session");
                }
                let _ = writeln!(t);
            }
            if findings.len() > MEMORY_SHOWN {
                let _ = writeln!(t, "  … and {} more", findings.len() - MEMORY_SHOWN);
            }
        }
    }
    t
}

/// Findings shown by `status`.
const MEMORY_SHOWN: usize = 10;

/// What remote scorers spent today (UTC) and in the session of the newest decision shown,
/// against the user's limits.
pub fn spent(env: &HostEnv, data: &Path, entries: &[Decision], now: SystemTime) -> String {
    if std::fs::symlink_metadata(data.join(MARKER)).is_err() {
        return String::new();
    }
    let now = now
        .duration_since(SystemTime::UNIX_EPOCH)
        .map(|d| d.as_secs())
        .unwrap_or(0);
    let session = entries
        .iter()
        .map(|e| e.session.as_str())
        .find(|session| !session.is_empty())
        .unwrap_or("");
    let ledger = crate::state::budget::Ledger::at(data);
    let Ok(spent) = ledger.spent(session, now) else {
        return "
remote budget: the ledger cannot be read
"
        .to_owned();
    };
    let mut t = String::new();
    let Ok(user) = crate::config::user_settings(env) else {
        let _ = writeln!(
            t,
            "\nremote budget: today {} request(s), {} token(s) reported; the limits are unknown \
             (the user config is invalid; see `jev-preflight doctor`)",
            spent.day_requests, spent.day_tokens
        );
        return t;
    };
    let b = user.budget;
    let tokens = match b.tokens_per_day {
        Some(max) => format!("{} of {max} token(s)", spent.day_tokens),
        None => format!("{} token(s) reported (no token limit)", spent.day_tokens),
    };
    let past = match b.over {
        crate::state::budget::OverBudget::Local => "the built-in scorer scores instead",
        crate::state::budget::OverBudget::Skip => "turns are not scored",
    };
    let _ = writeln!(
        t,
        "\nremote budget (jev, openai, command; yours, across repositories): today (UTC) {} of {} \
         request(s), {tokens}",
        spent.day_requests, b.per_day
    );
    if !session.is_empty() {
        let _ = writeln!(
            t,
            "  session {session}: {} of {} request(s)",
            spent.session_requests, b.per_session
        );
    }
    let _ = writeln!(t, "  past a limit: {past}");
    t
}

/// Forgets the memory of `repo` (of every repository with none) and says how much.
pub fn forget(data: &Path, repo: Option<&Repo>) -> Result<String, StatusError> {
    let store = match Store::open_existing(data) {
        Ok(Some(store)) => store,
        Ok(None) => return Ok("nothing remembered: no data dir yet\n".to_owned()),
        Err(source) => {
            return Err(StatusError::Store {
                path: data.to_owned(),
                source,
            });
        }
    };
    let dirs: Vec<PathBuf> = match repo {
        Some(repo) => vec![store.repo_dir(&repo.common_dir)],
        None => std::fs::read_dir(store.root().join("repos"))
            .into_iter()
            .flatten()
            .flatten()
            .map(|e| e.path())
            .collect(),
    };
    let mut total = 0;
    for dir in &dirs {
        if std::fs::symlink_metadata(dir).is_err() {
            continue;
        }
        total += Memory::at(dir)
            .forget()
            .map_err(|source| StatusError::Store {
                path: dir.clone(),
                source,
            })?;
    }
    Ok(match repo {
        Some(repo) => format!(
            "forgot {total} finding(s) in {}; their axes will be raised again\n",
            repo.top.display()
        ),
        None => format!("forgot {total} finding(s) in every repository\n"),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// An entry as a line of the log holds it.
    fn decision(line: serde_json::Value) -> Decision {
        serde_json::from_value(line).unwrap()
    }

    #[test]
    fn utc_dates() {
        assert_eq!(utc(0), "1970-01-01 00:00:00");
        assert_eq!(utc(951_782_400), "2000-02-29 00:00:00");
        assert_eq!(utc(1_767_225_600 + 3661), "2026-01-01 01:01:01");
    }

    #[test]
    fn what_was_not_raised_and_why_is_shown() {
        let entry = serde_json::json!({
            "time": 1_767_225_600u64, "event": "Stop", "outcome": "already looked at",
            "remembered": ["auth_boundary"], "budget": "cached", "omitted": 12, "unread": 40,
        });
        let text = render(&[decision(entry)], "this repository", std::time::UNIX_EPOCH);
        for needle in [
            "not raised again (already looked at, same lines): auth_boundary",
            "scores reused: this session had this exact diff scored before",
            "12 left out of a partial payload, 40 not read (a large turn)",
            "why: every axis that reached its threshold was one the agent was already asked about",
        ] {
            assert!(text.contains(needle), "{needle:?} in\n{text}");
        }
    }

    #[test]
    fn stage_timings_are_shown_in_pipeline_order() {
        let entry = serde_json::json!({
            "time": 1_767_225_600u64, "event": "Stop", "outcome": "below threshold",
            "ms": {"score": 4.2, "cleanup": 1.0, "changes": 125.9, "prepare": 2.0,
                   "select": 5.0, "payload": 2.9},
        });
        let text = render(&[decision(entry)], "this repository", std::time::UNIX_EPOCH);
        assert!(
            text.contains(
                "took 141 ms (prepare 2, changes 126, select 5, payload 3, score 4, cleanup 1)"
            ),
            "{text}"
        );
    }

    #[test]
    fn redactions_are_shown_per_type() {
        let entry = serde_json::json!({
            "time": 1_767_225_600u64, "event": "Stop", "outcome": "below threshold",
            "files": 2, "redactions": {"aws-access-key": 1, "generic-secret": 2},
        });
        let text = render(&[decision(entry)], "this repository", std::time::UNIX_EPOCH);
        assert!(
            text.contains("2 file(s), 3 secret(s) redacted (aws-access-key 1, generic-secret 2)"),
            "{text}"
        );
        // A log written before the per-type counts still reads.
        let old = serde_json::json!({
            "time": 1_767_225_600u64, "event": "Stop", "outcome": "below threshold",
            "redactions": 3,
        });
        let text = render(&[decision(old)], "this repository", std::time::UNIX_EPOCH);
        assert!(text.contains("3 secret(s) redacted"), "{text}");
        // No redaction: nothing said.
        let none = serde_json::json!({
            "time": 1_767_225_600u64, "event": "Stop", "outcome": "below threshold",
            "redactions": {},
        });
        let text = render(&[decision(none)], "this repository", std::time::UNIX_EPOCH);
        assert!(!text.contains("redacted"), "{text}");
    }

    #[test]
    fn old_lines_and_lines_with_unknown_fields_render() {
        let line = r#"{"cwd":"/gone","event":"Stop","files":1,"mode":"report","model":null,
            "outcome":"reported","redactions":{},"scorer":"local","scores":{"lifecycle":0.9},
            "selected":["lifecycle"],"session":"0123456789ab","time":1767225600}"#;
        let rendered = |line: &str| {
            let d: Decision = serde_json::from_str(line).unwrap();
            render(&[d], "this repository", std::time::UNIX_EPOCH)
        };
        // Written before `v`: version 1.
        let old = rendered(line);
        assert!(
            old.contains(concat!(
                "2026-01-01 00:00:00 UTC (0s ago)  Stop  reported  mode report  scorer local\n",
                "  directory: /gone (not a repository now)\n",
                "  top scores: lifecycle 0.9; selected: lifecycle\n",
                "  1 file(s)\n",
                "  why: showed you a one-line summary"
            )),
            "{old}"
        );
        // The same entry from this version, and from a newer one with a field not known here.
        let this = line.replace(r#""time":1767225600"#, r#""time":1767225600,"v":1"#);
        let newer = line.replace(
            r#""time":1767225600"#,
            r#""time":1767225600,"v":2,"tokens":{"in":3}"#,
        );
        assert_eq!(rendered(&this), old);
        assert_eq!(rendered(&newer), old);
    }

    #[test]
    fn every_hook_outcome_is_explained() {
        for outcome in [
            "continued",
            "reported",
            "below threshold",
            "nothing to score",
            "no baseline",
            "same diff already scored",
            crate::hook::stop::ALREADY_LOOKED_AT,
            crate::hook::stop::BUDGET_SKIPPED,
        ] {
            assert_ne!(explain(outcome, None), outcome);
        }
        assert!(explain("failed", Some("missing_key")).contains("missing_key"));
        // Doctor is named only where it can find the cause.
        assert!(explain("failed", Some("store_unsafe")).contains("jev-preflight doctor"));
        assert!(explain("failed", Some("config_invalid")).contains("jev-preflight doctor"));
        for class in [
            "network",
            "timeout",
            "http_503",
            "git_timeout",
            "store_busy",
            "panic",
        ] {
            let why = explain("failed", Some(class));
            assert!(why.contains(class) && !why.contains("doctor"), "{why}");
        }
        assert!(!explain("failed", Some("from_the_future")).contains("doctor"));
    }
}
