//! The four renderings of an `eval` [`Report`]: a table for people, JSON for tools, Markdown
//! for a pull-request comment, and SARIF 2.1.0 for code-scanning tools (see [`sarif`]).
//!
//! The JSON is one object whose schema is stable within `"version": 1` (fields may be added,
//! never renamed or removed):
//!
//! | field | type | meaning |
//! |---|---|---|
//! | `version` | number | `1` |
//! | `source` | string | what was scored (`working tree vs HEAD`, `main...HEAD`, `patch x.diff`) |
//! | `status` | string | `scored`, `dry_run`, `nothing_to_score`, `too_large` |
//! | `scorer` | string | `local`, `jev`, `openai`, `command` (the one used, or that would be) |
//! | `model` | string or null | the model the scorer reports |
//! | `thresholds` | object | axis id → the threshold in force |
//! | `threshold_note` | string | who chose the thresholds and their values, in words |
//! | `scores` | object | axis id → number in \[0, 1\]; all 8 axes if `scored`, else empty |
//! | `selected` | array | axis ids at or above their threshold, best first, at most 3 |
//! | `evidence` | array | `{axis, file, line, note}` signals from the scorer |
//! | `files` | array | redacted paths in the payload, sorted |
//! | `omitted` | array | paths left out of a partial payload for size |
//! | `partial` | bool | the payload leaves files out |
//! | `excluded` | array | `{path, reason}` paths selection left out |
//! | `redactions` | object | marker → count of secrets replaced |
//! | `changed` | number | changed paths before selection |
//! | `payload_bytes` | number | size of the canonical payload (the full size when `too_large`) |
//! | `payload_sha256` | string or null | SHA-256 of the payload |
//! | `payload` | string | the exact canonical JSON that would be sent (only with `--dry-run`) |
//! | `fail_on` | number or null | the `--fail-on` threshold |
//! | `failed` | array | axis ids at or above `--fail-on` (exit code 1 when non-empty) |
//! | `warnings` | array | `{message, hint}` problems that did not stop `eval` (also on stderr) |
//!
//! `selected` and `evidence` are empty unless `status` is `scored`. Scores and thresholds are
//! rounded to [`crate::scorer::threshold::DECIMALS`] places in every format; selection
//! compares the unrounded values.

use std::fmt::Write as _;

use serde_json::{Map, Value, json};

use super::{EvalResult, Report, Scored};
use crate::pipeline::axes::{AXIS_IDS, axes};
use crate::pipeline::payload::Payload;
use crate::scorer::threshold::{rounded, shown as number};

/// Version of the JSON schema.
pub const JSON_VERSION: u64 = 1;

fn status(report: &Report) -> &'static str {
    match &report.result {
        EvalResult::Empty => "nothing_to_score",
        EvalResult::TooLarge { .. } => "too_large",
        EvalResult::Payload { scored: None, .. } => "dry_run",
        EvalResult::Payload { .. } => "scored",
    }
}

/// The JSON object described in the module docs.
pub fn json(report: &Report) -> Value {
    let mut o = Map::new();
    o.insert("version".into(), json!(JSON_VERSION));
    o.insert("source".into(), json!(report.source));
    o.insert("status".into(), json!(status(report)));
    o.insert("scorer".into(), json!(report.scorer));
    o.insert("model".into(), json!(report.model));
    o.insert(
        "thresholds".into(),
        AXIS_IDS
            .iter()
            .zip(report.thresholds)
            .map(|(id, t)| (id.to_string(), json!(rounded(t))))
            .collect::<Map<_, _>>()
            .into(),
    );
    let (files, omitted, redactions, bytes, sha) = match &report.result {
        EvalResult::Payload { payload, .. } => (
            payload.files.clone(),
            payload.omitted.clone(),
            json!(payload.redactions.counts),
            payload.json.len(),
            json!(payload.hash),
        ),
        EvalResult::TooLarge { bytes, .. } => (vec![], vec![], json!({}), *bytes, Value::Null),
        EvalResult::Empty => (vec![], vec![], json!({}), 0, Value::Null),
    };
    // The promised fields are always there: empty when nothing was scored.
    let (scores, selected, evidence) = match &report.result {
        EvalResult::Payload {
            scored: Some(s), ..
        } => (
            AXIS_IDS
                .iter()
                .zip(s.values)
                .map(|(id, v)| (id.to_string(), json!(rounded(v))))
                .collect::<Map<_, _>>(),
            s.selected.iter().map(|&i| AXIS_IDS[i]).collect::<Vec<_>>(),
            s.evidence
                .iter()
                .map(|e| {
                    json!({"axis": AXIS_IDS.get(e.axis).copied().unwrap_or("unknown"),
                           "file": e.file, "line": e.line, "note": e.note})
                })
                .collect::<Vec<_>>(),
        ),
        _ => (Map::new(), Vec::new(), Vec::new()),
    };
    o.insert("threshold_note".into(), json!(report.threshold_note));
    o.insert("scores".into(), scores.into());
    o.insert("selected".into(), json!(selected));
    o.insert("evidence".into(), evidence.into());
    o.insert("partial".into(), json!(!omitted.is_empty()));
    o.insert("files".into(), json!(files));
    o.insert("omitted".into(), json!(omitted));
    o.insert(
        "excluded".into(),
        report
            .excluded
            .iter()
            .map(|(p, r)| json!({"path": p, "reason": r}))
            .collect::<Vec<_>>()
            .into(),
    );
    o.insert("redactions".into(), redactions);
    o.insert("changed".into(), json!(report.changed));
    o.insert("payload_bytes".into(), json!(bytes));
    o.insert("payload_sha256".into(), sha);
    if let EvalResult::Payload {
        payload,
        scored: None,
    } = &report.result
    {
        o.insert("payload".into(), json!(payload.json));
    }
    o.insert("fail_on".into(), json!(report.fail_on));
    o.insert(
        "warnings".into(),
        report
            .warnings
            .iter()
            .map(|w| json!({"message": w.message, "hint": w.hint}))
            .collect::<Vec<_>>()
            .into(),
    );
    o.insert(
        "failed".into(),
        json!(
            report
                .failing()
                .iter()
                .map(|&(i, _)| AXIS_IDS[i])
                .collect::<Vec<_>>()
        ),
    );
    Value::Object(o)
}

/// One line of a path for display: control characters escaped.
fn shown(path: &str) -> String {
    path.chars()
        .flat_map(|c| {
            if c.is_control() {
                c.escape_default().collect::<Vec<_>>()
            } else {
                vec![c]
            }
        })
        .collect()
}

fn redaction_summary(report: &Report) -> Option<String> {
    let EvalResult::Payload { payload, .. } = &report.result else {
        return None;
    };
    let total = payload.redactions.total();
    if total == 0 {
        return None;
    }
    let kinds: Vec<String> = payload
        .redactions
        .counts
        .iter()
        .map(|(k, n)| format!("{k} ×{n}"))
        .collect();
    Some(format!("{total} secret(s) replaced: {}", kinds.join(", ")))
}

/// The readable table.
pub fn table(report: &Report) -> String {
    let mut t = String::new();
    let _ = writeln!(t, "jev-preflight eval: {}", shown(&report.source));
    match &report.result {
        EvalResult::Empty => {
            let _ = writeln!(
                t,
                "nothing to score: {} changed path(s), none selected",
                report.changed
            );
        }
        EvalResult::TooLarge { bytes, max_bytes } => {
            let _ = writeln!(
                t,
                "not scored: the payload is {bytes} bytes, over `maxDiffBytes` ({max_bytes}), and \
                    no whole file fits a partial payload (or `oversize` is `skip`)"
            );
        }
        EvalResult::Payload { payload, scored } => {
            let model = report
                .model
                .as_deref()
                .map(|m| format!(" ({m})"))
                .unwrap_or_default();
            let _ = writeln!(
                t,
                "scorer: {}{model} · payload {} bytes · {} file(s){}",
                report.scorer,
                payload.json.len(),
                payload.files.len(),
                if payload.omitted.is_empty() {
                    ""
                } else {
                    " · partial"
                }
            );
            match scored {
                None => {
                    let _ = writeln!(t, "dry run: nothing was sent; the payload follows");
                }
                Some(s) => table_scores(&mut t, report, s),
            }
            table_files(&mut t, payload);
        }
    }
    table_footer(&mut t, report);
    t
}

/// The table's scores: one row per axis with its threshold and marks (selected rank,
/// `--fail-on`), who chose the thresholds, the selected axes' questions, and the evidence
/// sorted by axis, file and line.
fn table_scores(t: &mut String, report: &Report, s: &Scored) {
    let _ = writeln!(t);
    let _ = writeln!(t, "{:<20} {:>6} {:>9}", "axis", "score", "threshold");
    for (i, id) in AXIS_IDS.iter().enumerate() {
        let mark = match s.selected.iter().position(|&x| x == i) {
            Some(rank) => format!("  ◀ look again #{}", rank + 1),
            None => String::new(),
        };
        let fail = if report.failing().iter().any(|&(f, _)| f == i) {
            "  ✗ fail-on"
        } else {
            ""
        };
        let _ = writeln!(
            t,
            "{id:<20} {:>6} {:>9}{mark}{fail}",
            number(s.values[i]),
            number(report.thresholds[i])
        );
    }
    let _ = writeln!(t, "threshold: {}", report.threshold_note);
    if s.selected.is_empty() {
        let _ = writeln!(t, "\nno axis reached its threshold");
    } else {
        let _ = writeln!(t);
        for &i in &s.selected {
            let _ = writeln!(t, "{}: {}", AXIS_IDS[i], axes()[i].question);
        }
    }
    if !s.evidence.is_empty() {
        let _ = writeln!(t, "\nevidence");
        let mut ev = s.evidence.clone();
        ev.sort_by_key(|e| (e.axis, e.file.clone(), e.line));
        for e in ev {
            let place = match e.line {
                Some(l) => format!("{}:{l}", shown(&e.file)),
                None => shown(&e.file),
            };
            let _ = writeln!(
                t,
                "  {:<20} {place}  {}",
                AXIS_IDS.get(e.axis).copied().unwrap_or("?"),
                shown(&e.note)
            );
        }
    }
}

/// The table's list of the files in the payload, and of those a partial payload left out.
fn table_files(t: &mut String, payload: &Payload) {
    let _ = writeln!(t, "\nfiles scored ({})", payload.files.len());
    for f in &payload.files {
        let _ = writeln!(t, "  {}", shown(f));
    }
    if !payload.omitted.is_empty() {
        let _ = writeln!(
            t,
            "\npartial: {} file(s) left out to stay within `maxDiffBytes`",
            payload.omitted.len()
        );
        for f in &payload.omitted {
            let _ = writeln!(t, "  {}", shown(f));
        }
    }
}

/// The table's closing lines: excluded paths, what redaction replaced, and, under scores, the
/// reminder that they are priorities.
fn table_footer(t: &mut String, report: &Report) {
    if !report.excluded.is_empty() {
        let _ = writeln!(t, "\nexcluded ({})", report.excluded.len());
        for (p, r) in &report.excluded {
            let _ = writeln!(t, "  {}  ({r})", shown(p));
        }
    }
    if let Some(r) = redaction_summary(report) {
        let _ = writeln!(t, "\nredacted: {r}");
    }
    if let EvalResult::Payload {
        scored: Some(_), ..
    } = &report.result
    {
        let _ = writeln!(
            t,
            "\nscores are priorities for where to look, not proof of a defect"
        );
    }
}

/// Text safe inside a Markdown table cell or inline code.
fn md(text: &str) -> String {
    shown(text)
        .replace('\\', "\\\\")
        .replace('|', "\\|")
        .replace('`', "'")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
}

/// The Markdown pull-request comment.
pub fn markdown(report: &Report) -> String {
    let mut t = String::new();
    let _ = writeln!(t, "### jev-preflight: {}\n", md_head(report));
    let _ = writeln!(
        t,
        "Scored `{}` with the `{}` scorer{}.",
        md(&report.source),
        report.scorer,
        report
            .model
            .as_deref()
            .map(|m| format!(" (model `{}`)", md(m)))
            .unwrap_or_default()
    );
    match &report.result {
        EvalResult::Empty => {
            let _ = writeln!(
                t,
                "\n{} changed path(s); none selected for scoring.",
                report.changed
            );
        }
        EvalResult::TooLarge { bytes, max_bytes } => {
            let _ = writeln!(
                t,
                "\nThe payload is {bytes} bytes, over `maxDiffBytes` ({max_bytes})."
            );
        }
        EvalResult::Payload { payload, scored } => {
            if let Some(s) = scored {
                md_scores(&mut t, report, s);
            }
            md_files(&mut t, payload);
            if scored.is_none() {
                md_payload(&mut t, payload);
            }
        }
    }
    md_footer(&mut t, report);
    t
}

/// The comment's heading: how many axes are worth a second look, or why there are none.
fn md_head(report: &Report) -> String {
    match &report.result {
        EvalResult::Payload {
            scored: Some(s), ..
        } if !s.selected.is_empty() => format!("{} axis(es) worth a second look", s.selected.len()),
        EvalResult::Payload {
            scored: Some(_), ..
        } => "no axis reached its threshold".to_owned(),
        EvalResult::Payload { scored: None, .. } => "dry run, nothing sent".to_owned(),
        EvalResult::Empty => "nothing to score".to_owned(),
        EvalResult::TooLarge { .. } => "not scored: diff too large".to_owned(),
    }
}

/// The comment's score table, who chose the thresholds, and each selected axis with its
/// question and up to four pieces of evidence.
fn md_scores(t: &mut String, report: &Report, s: &Scored) {
    let _ = writeln!(t, "\n| axis | score | threshold | |\n|---|---:|---:|---|");
    for (i, id) in AXIS_IDS.iter().enumerate() {
        let mark = if s.selected.contains(&i) {
            "**look again**"
        } else {
            ""
        };
        let _ = writeln!(
            t,
            "| `{id}` | {} | {} | {mark} |",
            number(s.values[i]),
            number(report.thresholds[i])
        );
    }
    // Our own words and numbers only, so the Markdown keeps its inline code.
    let _ = writeln!(t, "\nThreshold: {}.", report.threshold_note);
    if !s.selected.is_empty() {
        let _ = writeln!(t);
        for &i in &s.selected {
            let _ = writeln!(
                t,
                "- **`{}`** ({}): {}",
                AXIS_IDS[i],
                number(s.values[i]),
                md(axes()[i].question)
            );
            for e in s.evidence.iter().filter(|e| e.axis == i).take(4) {
                let place = match e.line {
                    Some(l) => format!("{}:{l}", md(&e.file)),
                    None => md(&e.file),
                };
                let _ = writeln!(t, "  - `{place}`: {}", md(&e.note));
            }
        }
    }
}

/// The comment's folded list of the files in the payload, and of those left out for size.
fn md_files(t: &mut String, payload: &Payload) {
    let _ = writeln!(
        t,
        "\n<details><summary>{} file(s) scored, payload {} bytes{}</summary>\n",
        payload.files.len(),
        payload.json.len(),
        if payload.omitted.is_empty() {
            String::new()
        } else {
            format!(", {} left out for size", payload.omitted.len())
        }
    );
    for f in &payload.files {
        let _ = writeln!(t, "- `{}`", md(f));
    }
    for f in &payload.omitted {
        let _ = writeln!(t, "- `{}` (left out for size)", md(f));
    }
    let _ = writeln!(t, "\n</details>");
}

/// A dry run's payload, fenced: a fence longer than any backtick run inside keeps the payload
/// byte-exact.
fn md_payload(t: &mut String, payload: &Payload) {
    let longest = payload
        .json
        .split(|c| c != '`')
        .map(str::len)
        .max()
        .unwrap_or(0);
    let fence = "`".repeat(longest.max(2) + 1);
    let _ = writeln!(t, "\n{fence}json\n{}\n{fence}", payload.json);
}

/// The comment's closing: the excluded paths (folded), what redaction replaced, and the
/// reminder that scores are priorities.
fn md_footer(t: &mut String, report: &Report) {
    if !report.excluded.is_empty() {
        let _ = writeln!(
            t,
            "\n<details><summary>{} path(s) excluded</summary>\n",
            report.excluded.len()
        );
        for (p, r) in &report.excluded {
            let _ = writeln!(t, "- `{}`: {}", md(p), md(r));
        }
        let _ = writeln!(t, "\n</details>");
    }
    if let Some(r) = redaction_summary(report) {
        let _ = writeln!(t, "\nRedacted before scoring: {}.", md(&r));
    }
    let _ = writeln!(
        t,
        "\n<sub>Scores are priorities for where to look, not proof of a defect.</sub>"
    );
}

/// Where SARIF 2.1.0's JSON schema is published (OASIS, errata 01).
pub const SARIF_SCHEMA: &str =
    "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json";
/// Most locations one SARIF result lists.
const MAX_SARIF_LOCATIONS: usize = 10;

/// The SARIF 2.1.0 log of a report: one run whose driver lists the 8 axes as rules — always
/// all 8, in contract order, so a rule's id (the axis id) and index never change — and one
/// result per selected axis (best first) with `ruleId` = the axis id, its question and score
/// in the message, and the scorer's evidence as locations (the changed files when the scorer
/// gave none, because code scanning wants at least one). The level is `error` when the axis
/// reaches `--fail-on`, `warning` otherwise. Each result carries a `partialFingerprints`
/// entry that stays the same for the same finding across runs, and the security axes'
/// rules a `security-severity`. A report that scored nothing has no results; its `status`
/// is in the run's properties.
pub fn sarif(report: &Report) -> Value {
    let rules: Vec<Value> = axes()
        .iter()
        .map(|a| {
            json!({
                "id": a.id,
                "name": rule_name(a.id),
                "shortDescription": {"text": a.question},
                "fullDescription": {"text": format!("{} Yes: {} No: {}", a.question, a.yes, a.no)},
                "help": {"text": format!(
                    "{} A score is a priority for where to look, not proof of a defect: inspect \
                        the change, the code around it and its tests.",
                    a.question
                )},
                "defaultConfiguration": {"level": "warning"},
                "properties": rule_properties(a.id),
            })
        })
        .collect();
    let failing: Vec<usize> = report.failing().iter().map(|&(i, _)| i).collect();
    let mut results = Vec::new();
    if let EvalResult::Payload {
        payload,
        scored: Some(s),
    } = &report.result
    {
        for &i in &s.selected {
            let mut locations: Vec<Value> = s
                .evidence
                .iter()
                .filter(|e| e.axis == i)
                .map(|e| location(changed_file(&e.file, &payload.files), e.line, Some(&e.note)))
                .collect();
            if locations.is_empty() {
                locations = payload
                    .files
                    .iter()
                    .map(|f| location(f, None, None))
                    .collect();
            }
            locations.truncate(MAX_SARIF_LOCATIONS);
            let level = if failing.contains(&i) {
                "error"
            } else {
                "warning"
            };
            let fingerprint = finding_fingerprint(AXIS_IDS[i], &locations[0]);
            results.push(json!({
                "ruleId": AXIS_IDS[i],
                "ruleIndex": i,
                "level": level,
                "partialFingerprints": {FINGERPRINT_KEY: fingerprint},
                "message": {"text": format!(
                    "{} (score {}, threshold {}). Worth a second look; scores are priorities, not \
                        proof of a defect.",
                    axes()[i].question, number(s.values[i]), number(report.thresholds[i])
                )},
                "locations": locations,
                "properties": {
                    "score": rounded(s.values[i]),
                    "threshold": rounded(report.thresholds[i]),
                },
            }));
        }
    }
    json!({
        "$schema": SARIF_SCHEMA,
        "version": "2.1.0",
        "runs": [{
            "tool": {"driver": {
                "name": "jev-preflight",
                "version": env!("CARGO_PKG_VERSION"),
                "informationUri": env!("CARGO_PKG_REPOSITORY"),
                "rules": rules,
            }},
            "originalUriBaseIds": {
                "SRCROOT": {"description": {"text": "The repository's top level"}},
            },
            "results": results,
            "properties": {
                "source": report.source,
                "status": status(report),
                "scorer": report.scorer,
                "model": report.model,
                "threshold": report.threshold_note,
            },
        }],
    })
}

/// The key of our own entry in a result's `partialFingerprints`.
pub const FINGERPRINT_KEY: &str = "jevPreflightFinding/v1";

/// `security-severity` of the axes that are about security (GitHub code scanning shows
/// such rules' alerts as security alerts, this score as their severity): 6.5 is "medium",
/// because a selected axis is a priority to look at, not a confirmed vulnerability.
const SECURITY_AXES: [(&str, &str, &[&str]); 2] = [
    (
        "auth_boundary",
        "6.5",
        &["external/cwe/cwe-285", "external/cwe/cwe-287"],
    ),
    ("input_validation", "6.5", &["external/cwe/cwe-20"]),
];

/// A rule's `properties`: tags, and `security-severity` on the security axes.
fn rule_properties(id: &str) -> Value {
    match SECURITY_AXES.iter().find(|(axis, ..)| *axis == id) {
        Some((_, severity, cwes)) => {
            let mut tags = vec!["security"];
            tags.extend_from_slice(cwes);
            json!({"tags": tags, "security-severity": severity})
        }
        None => json!({"tags": ["correctness"]}),
    }
}

/// What makes two results the same finding across runs, so that code scanning updates an
/// alert instead of opening a new one: the axis, the primary location's file and the
/// evidence there (the changed line's text, which moves with the code), never the line
/// number or the score.
fn finding_fingerprint(axis: &str, primary: &Value) -> String {
    let place = &primary["physicalLocation"]["artifactLocation"]["uri"];
    let note = primary["message"]["text"].as_str().unwrap_or_default();
    let key = format!("{axis}\0{}\0{note}", place.as_str().unwrap_or_default());
    crate::digest::hex_sha256(key.as_bytes())[..32].to_owned()
}

/// `auth_boundary` → `AuthBoundary`.
fn rule_name(id: &str) -> String {
    id.split('_')
        .map(|w| {
            let mut c = w.chars();
            c.next()
                .map(|f| f.to_ascii_uppercase().to_string() + c.as_str())
                .unwrap_or_default()
        })
        .collect()
}

/// The changed file an evidence path names. A unified diff ends a `+++` path that holds a
/// space with a tab, and a scorer may keep it: the payload's own path is the one to point at.
fn changed_file<'a>(file: &'a str, changed: &'a [String]) -> &'a str {
    if changed.iter().any(|c| c == file) {
        return file;
    }
    let trimmed = file.strip_suffix('\t').unwrap_or(file);
    changed
        .iter()
        .find(|c| c.as_str() == trimmed)
        .map_or(file, String::as_str)
}

fn location(file: &str, line: Option<u32>, note: Option<&str>) -> Value {
    let mut physical = json!({"artifactLocation": {"uri": uri_path(file), "uriBaseId": "SRCROOT"}});
    if let Some(line) = line.filter(|&l| l > 0) {
        physical["region"] = json!({"startLine": line});
    }
    let mut loc = json!({"physicalLocation": physical});
    if let Some(note) = note {
        loc["message"] = json!({"text": note});
    }
    loc
}

/// A repository-relative path as a relative URI reference: every byte outside the unreserved
/// set and `/` is percent-encoded, so spaces, `#`, `?` and `%` cannot change its meaning.
pub fn uri_path(path: &str) -> String {
    let mut out = String::with_capacity(path.len());
    for b in path.bytes() {
        if b.is_ascii_alphanumeric() || b"-._~/".contains(&b) {
            out.push(b as char);
        } else {
            let _ = write!(out, "%{b:02X}");
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn uri_paths_are_percent_encoded() {
        let cases = [
            ("src/api.rs", "src/api.rs"),
            ("a b/c#d?.rs", "a%20b/c%23d%3F.rs"),
            ("50%.txt", "50%25.txt"),
            ("ünï.rs", "%C3%BCn%C3%AF.rs"),
        ];
        for (raw, uri) in cases {
            assert_eq!(uri_path(raw), uri);
        }
    }

    #[test]
    fn evidence_paths_resolve_to_changed_files() {
        let changed = ["src/a b.rs".to_owned(), "x.rs".to_owned()];
        assert_eq!(changed_file("src/a b.rs\t", &changed), "src/a b.rs");
        assert_eq!(changed_file("x.rs", &changed), "x.rs");
        assert_eq!(changed_file("gone.rs", &changed), "gone.rs");
    }

    #[test]
    fn a_fingerprint_is_the_axis_file_and_evidence_never_the_line() {
        let at = |file: &str, line: u32, note: &str| location(file, Some(line), Some(note));
        let base = finding_fingerprint("auth_boundary", &at("src/a.rs", 5, "check removed"));
        assert_eq!(
            base,
            finding_fingerprint("auth_boundary", &at("src/a.rs", 9, "check removed"))
        );
        for other in [
            finding_fingerprint("input_validation", &at("src/a.rs", 5, "check removed")),
            finding_fingerprint("auth_boundary", &at("src/b.rs", 5, "check removed")),
            finding_fingerprint("auth_boundary", &at("src/a.rs", 5, "token check removed")),
            finding_fingerprint("auth_boundary", &location("src/a.rs", None, None)),
        ] {
            assert_ne!(other, base);
        }
    }

    #[test]
    fn rule_names_are_pascal_case() {
        assert_eq!(rule_name("auth_boundary"), "AuthBoundary");
        assert_eq!(rule_name("regression_tests"), "RegressionTests");
    }
}
