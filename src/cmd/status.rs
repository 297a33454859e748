//! `jev-preflight status`: the hook's recent decisions in this repository, read from the
//! store's decision log (time, mode, scorer, axes and scores, files, skip or failure reason;
//! never diff content), each with a plain-words reason — the answer to "why did (or didn't)
//! it fire?". Reading never creates the store.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

use serde_json::Value;

use crate::hook::failure::Class;
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
) -> Result<Vec<Value>, StatusError> {
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
            Some(top) => match d.get("repo").and_then(Value::as_str) {
                Some(repo) => Path::new(repo) == top,
                None => d
                    .get("cwd")
                    .and_then(Value::as_str)
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
fn with_repository(mut entry: Value) -> Value {
    let repo = entry
        .get("cwd")
        .and_then(Value::as_str)
        .and_then(|cwd| std::fs::canonicalize(cwd).ok())
        .and_then(|cwd| {
            cwd.ancestors()
                .find(|dir| std::fs::symlink_metadata(dir.join(".git")).is_ok())
                .map(Path::to_path_buf)
        });
    if let (Some(repo), Value::Object(map)) = (repo, &mut entry) {
        map.insert("repo".into(), Value::String(repo.display().to_string()));
    }
    entry
}

/// What an outcome means, in plain words.
pub fn explain(outcome: &str, class: Option<&str>) -> String {
    match outcome {
        "continued" => "asked the agent once to look again at the axes above".into(),
        "reported" => "showed you a one-line summary (mode `report`); the agent was not asked".into(),
        "mode off" => "mode `off`: nothing shown".into(),
        "below threshold" => "no axis reached its threshold, so nothing was shown".into(),
        "nothing to score" => "no selected file changed in the turn (no change, or every changed path was excluded)".into(),
        "diff over maxDiffBytes; skipped" => "the turn's diff was over `maxDiffBytes` and `oversize` is `skip` (or no whole file fit)".into(),
        "same diff already scored" => "this exact diff was already scored for this prompt; one request per diff".into(),
        "no baseline" => "no baseline for this prompt: mode `off`, not a repository when the prompt was sent, a failure at the prompt, or hooks installed mid-session".into(),
        "repository is gone" => "the repository was removed during the turn".into(),
        "background work pending; baseline kept" => "background tasks or crons were pending: the session paused, it was not done; the baseline is kept for the real end".into(),
        "stop_hook_active; prompt finished" | "continuation already issued; prompt finished" => "the agent was already asked once for this prompt; never twice".into(),
        "prompt already finished" => "a duplicate Stop for a prompt already finished".into(),
        "no baseline, or another Stop is evaluating this prompt" => "another Stop of the same prompt was running, or there was no baseline".into(),
        "failed" => {
            let name = class.unwrap_or("unknown");
            match class.and_then(Class::from_name) {
                Some(class) => {
                    format!("failed open ({name}): the agent was let finish; {}", class.hint())
                }
                None => format!("failed open ({name}): the agent was let finish"),
            }
        }
        other => other.to_owned(),
    }
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
pub fn render(entries: &[Value], scope: &str, now: SystemTime) -> String {
    let mut t = String::new();
    if entries.is_empty() {
        let _ = writeln!(t, "no decisions recorded {scope}");
        let _ = writeln!(
            t,
            "the hook records one line per Stop; none yet means it has not run a turn here (check `jev-preflight doctor`, and that the plugin or `jev-preflight install` hooks are active)"
        );
        return t;
    }
    let _ = writeln!(
        t,
        "last {} decision(s) {scope}, newest first",
        entries.len()
    );
    for e in entries {
        let time = e.get("time").and_then(Value::as_u64).unwrap_or(0);
        let event = e.get("event").and_then(Value::as_str).unwrap_or("?");
        let outcome = e.get("outcome").and_then(Value::as_str).unwrap_or("?");
        let class = e.get("class").and_then(Value::as_str);
        let _ = write!(
            t,
            "\n{} UTC ({})  {event}  {outcome}",
            utc(time),
            ago(now, time)
        );
        if let Some(mode) = e.get("mode").and_then(Value::as_str) {
            let _ = write!(t, "  mode {mode}");
        }
        if let Some(scorer) = e.get("scorer").and_then(Value::as_str) {
            let _ = write!(t, "  scorer {scorer}");
            if let Some(model) = e.get("model").and_then(Value::as_str) {
                let _ = write!(t, " ({model})");
            }
        }
        let _ = writeln!(t);
        match (e.get("repo"), e.get("cwd")) {
            (Some(Value::String(repo)), _) => {
                let _ = writeln!(t, "  repository: {repo}");
            }
            (_, Some(Value::String(cwd))) => {
                let _ = writeln!(t, "  directory: {cwd} (not a repository now)");
            }
            _ => {}
        }
        if let Some(scores) = e.get("scores").and_then(Value::as_object) {
            let mut top: Vec<(&String, f64)> = scores
                .iter()
                .filter_map(|(k, v)| Some((k, v.as_f64()?)))
                .collect();
            top.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(b.0)));
            let shown: Vec<String> = top
                .iter()
                .take(3)
                .map(|(k, v)| format!("{k} {}", crate::pipeline::threshold::shown(*v)))
                .collect();
            let selected: Vec<&str> = e
                .get("selected")
                .and_then(Value::as_array)
                .map(|a| a.iter().filter_map(Value::as_str).collect())
                .unwrap_or_default();
            let _ = writeln!(
                t,
                "  top scores: {}; selected: {}",
                shown.join(", "),
                if selected.is_empty() {
                    "none".to_owned()
                } else {
                    selected.join(", ")
                }
            );
        }
        let mut facts = Vec::new();
        for (key, label) in [
            ("files", "file(s)"),
            ("changed", "changed path(s)"),
            ("excluded", "excluded"),
            ("payload_bytes", "payload bytes"),
            ("redactions", "secret(s) redacted"),
        ] {
            if let Some(n) = e.get(key).and_then(Value::as_u64) {
                facts.push(format!("{n} {label}"));
            }
        }
        // Redactions per marker type; entries written before the per-type log hold a total.
        if let Some(types) = e.get("redactions").and_then(Value::as_object)
            && !types.is_empty()
        {
            let total: u64 = types.values().filter_map(Value::as_u64).sum();
            let each: Vec<String> = types
                .iter()
                .filter_map(|(id, n)| Some(format!("{id} {}", n.as_u64()?)))
                .collect();
            facts.push(format!("{total} secret(s) redacted ({})", each.join(", ")));
        }
        if !facts.is_empty() {
            let _ = writeln!(t, "  {}", facts.join(", "));
        }
        if let Some(stages) = e.get("ms").and_then(Value::as_object) {
            let spent: Vec<String> = crate::hook::stop::STAGES
                .iter()
                .filter_map(|stage| Some((stage, stages.get(*stage)?.as_f64()?)))
                .map(|(stage, ms)| format!("{stage} {ms:.0}"))
                .collect();
            let total: f64 = stages.values().filter_map(Value::as_f64).sum();
            let _ = writeln!(t, "  took {total:.0} ms ({})", spent.join(", "));
        }
        let _ = writeln!(t, "  why: {}", explain(outcome, class));
    }
    t
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn utc_dates() {
        assert_eq!(utc(0), "1970-01-01 00:00:00");
        assert_eq!(utc(951_782_400), "2000-02-29 00:00:00");
        assert_eq!(utc(1_767_225_600 + 3661), "2026-01-01 01:01:01");
    }

    #[test]
    fn stage_timings_are_shown_in_pipeline_order() {
        let entry = serde_json::json!({
            "time": 1_767_225_600u64, "event": "Stop", "outcome": "below threshold",
            "ms": {"score": 4.2, "cleanup": 1.0, "changes": 125.9, "prepare": 2.0,
                   "select": 5.0, "payload": 2.9},
        });
        let text = render(&[entry], "this repository", std::time::UNIX_EPOCH);
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
        let text = render(&[entry], "this repository", std::time::UNIX_EPOCH);
        assert!(
            text.contains("2 file(s), 3 secret(s) redacted (aws-access-key 1, generic-secret 2)"),
            "{text}"
        );
        // A log written before the per-type counts still reads.
        let old = serde_json::json!({
            "time": 1_767_225_600u64, "event": "Stop", "outcome": "below threshold",
            "redactions": 3,
        });
        let text = render(&[old], "this repository", std::time::UNIX_EPOCH);
        assert!(text.contains("3 secret(s) redacted"), "{text}");
        // No redaction: nothing said.
        let none = serde_json::json!({
            "time": 1_767_225_600u64, "event": "Stop", "outcome": "below threshold",
            "redactions": {},
        });
        let text = render(&[none], "this repository", std::time::UNIX_EPOCH);
        assert!(!text.contains("redacted"), "{text}");
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
