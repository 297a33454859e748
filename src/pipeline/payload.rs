//! The canonical payload: exactly the bytes that may leave the machine, and their hash.
//!
//! Each kept change becomes one section of unified diff text: its patch with CRLF turned
//! into LF, invalid UTF-8 replaced and every secret redacted, or, for a binary or oversized
//! file, a metadata header with no body. Sections are ordered by redacted path, so the
//! payload does not depend on the order changes arrive in. The payload is the compact JSON
//! `{"format":"unified_diff","files":[…],"diff":"…"}`; its hash is the SHA-256 of exactly
//! those bytes. When the JSON is over the size cap, the partial policy keeps whole files by
//! priority ([`crate::pipeline::priority`]: ordinary changes before new files that came in
//! bulk before files whose content was never read; within each, source, then tests, then
//! config and the rest; smaller first) and ends the diff with a marker naming what was left
//! out — every name when they fit, else the count per top-level directory, else as many names
//! as fit and a count; the skip policy drops the turn.

use std::fmt::Write as _;

use crate::digest::hex_sha256;
use crate::git::diff::{Change, Status};
use crate::pipeline::priority::{self, Class, Tier};
use crate::pipeline::redact::{RedactionReport, Redactor};

/// Default cap on the canonical payload, in bytes.
pub const DEFAULT_MAX_DIFF_BYTES: usize = 65536;

/// What to do when the payload is over the cap.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Oversize {
    #[default]
    Partial,
    Skip,
}

/// The size policy applied after redaction.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SizePolicy {
    pub max_bytes: usize,
    pub oversize: Oversize,
}

impl Default for SizePolicy {
    fn default() -> Self {
        SizePolicy {
            max_bytes: DEFAULT_MAX_DIFF_BYTES,
            oversize: Oversize::Partial,
        }
    }
}

/// A ready payload.
#[derive(Debug, Clone)]
pub struct Payload {
    /// The canonical JSON, byte for byte what a remote scorer receives as `state`.
    pub json: String,
    /// Lower-case hex SHA-256 of `json`.
    pub hash: String,
    /// Sorted, redacted paths as they appear in `json`.
    pub files: Vec<String>,
    /// The redacted diff text as it appears in `json`.
    pub diff: String,
    /// Files left out by the size policy (redacted paths).
    pub omitted: Vec<String>,
    pub redactions: RedactionReport,
}

/// Why a turn was skipped by the size policy.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SkipReason {
    /// `bytes` is the size of the complete payload. Under the partial policy this also means
    /// that not even one whole file fits next to the marker.
    TooLarge { bytes: usize, max_bytes: usize },
}

/// The result of building a payload.
#[derive(Debug, Clone)]
pub enum Outcome {
    Ready(Payload),
    /// Nothing selected: no scoring, no hash.
    Empty,
    Skipped(SkipReason),
}

/// The canonical JSON; field order is part of the format.
#[derive(serde::Serialize)]
struct Canonical<'a> {
    format: &'static str,
    files: &'a [String],
    diff: &'a str,
}

/// The first line of the partial-payload marker; scorers and the agent can look for it.
pub const PARTIAL_MARKER: &str = "# jev-preflight: partial diff";

/// What a file whose content was never read says in the payload.
pub const UNREAD_NOTE: &str =
    "content not read: this turn changed more files than one look reads, and this one came later";

/// One file's contribution to the payload.
#[derive(Debug, Clone)]
struct Section {
    path: String,
    old_path: Option<String>,
    text: String,
    tier: Tier,
    class: Class,
    /// Bytes this section adds to the JSON: its escaped text plus its escaped path entry.
    cost: usize,
}

/// Redacts the kept changes and assembles the canonical payload under `policy`.
pub fn build(kept: &[Change], redactor: &Redactor, policy: &SizePolicy) -> Outcome {
    if kept.is_empty() {
        return Outcome::Empty;
    }
    let mut report = RedactionReport::default();
    let bulk = priority::bulk(
        kept.iter()
            .filter(|c| c.status == Status::Added)
            .map(|c| c.path.as_slice()),
    );
    let mut sections: Vec<Section> = kept
        .iter()
        .map(|change| {
            let tier = if change.unread {
                Tier::Unread
            } else if bulk.contains(change.path.as_slice()) {
                Tier::Bulk
            } else {
                Tier::Ordinary
            };
            section(change, tier, redactor, &mut report)
        })
        .collect();
    sections.sort_by(|a, b| (&a.path, &a.old_path, &a.text).cmp(&(&b.path, &b.old_path, &b.text)));
    let all: Vec<usize> = (0..sections.len()).collect();
    let full = assemble(&sections, &all, &[], policy.max_bytes, &report)
        .expect("with nothing omitted there is no marker to fit");
    if full.json.len() <= policy.max_bytes {
        return Outcome::Ready(full);
    }
    let too_large = SkipReason::TooLarge {
        bytes: full.json.len(),
        max_bytes: policy.max_bytes,
    };
    if policy.oversize == Oversize::Skip {
        return Outcome::Skipped(too_large);
    }
    match partial(&sections, policy.max_bytes, &report) {
        Some(payload) => Outcome::Ready(payload),
        None => Outcome::Skipped(too_large),
    }
}

/// Keeps whole files in priority order while the payload, marker included, fits.
fn partial(sections: &[Section], max_bytes: usize, report: &RedactionReport) -> Option<Payload> {
    let mut order: Vec<usize> = (0..sections.len()).collect();
    order.sort_by(|&a, &b| {
        let (x, y) = (&sections[a], &sections[b]);
        (x.tier, x.class, x.cost, &x.path).cmp(&(y.tier, y.class, y.cost, &y.path))
    });
    let base = base_len();
    let mut included: Vec<usize> = Vec::new();
    let mut used = base;
    for &candidate in &order {
        let cost = sections[candidate].cost + usize::from(!included.is_empty());
        // The marker can always shrink to its short form, so that is what must still fit.
        let omitted = sections.len() - included.len() - 1;
        let reserve = if omitted == 0 {
            0
        } else {
            escaped_len(&short_marker(omitted))
        };
        if used + cost + reserve <= max_bytes {
            included.push(candidate);
            used += cost;
        }
    }
    if included.is_empty() {
        return None;
    }
    // Files whose content was never read say little each: when they take the room the count
    // of omitted files per top-level directory needs, that count goes in their place.
    let omitted = omitted_of(sections, &included);
    if !omitted.is_empty() {
        // The directories of the files given up can only add lines: a margin covers them.
        let want = escaped_len(&directory_marker(sections, &omitted)) + 256;
        while max_bytes.saturating_sub(used) < want
            && included
                .last()
                .is_some_and(|&i| sections[i].tier == Tier::Unread)
            && included.len() > 1
        {
            if let Some(i) = included.pop() {
                used -= sections[i].cost + 1;
            }
        }
    }
    // The exact assembly is the authority: drop the least important file until it fits.
    loop {
        let omitted = omitted_of(sections, &included);
        if let Some(payload) = assemble(sections, &included, &omitted, max_bytes, report)
            && payload.json.len() <= max_bytes
        {
            return Some(payload);
        }
        included.pop();
        if included.is_empty() {
            return None;
        }
    }
}

/// Length of `{"format":"unified_diff","files":[],"diff":""}`.
fn base_len() -> usize {
    json_len(&Canonical {
        format: "unified_diff",
        files: &[],
        diff: "",
    })
}

fn included_cost(sections: &[Section], included: &[usize]) -> usize {
    included.iter().map(|&i| sections[i].cost).sum::<usize>() + included.len().saturating_sub(1)
}

fn omitted_of(sections: &[Section], included: &[usize]) -> Vec<usize> {
    let mut keep = vec![false; sections.len()];
    for &i in included {
        keep[i] = true;
    }
    (0..sections.len()).filter(|&i| !keep[i]).collect()
}

fn short_marker(omitted: usize) -> String {
    format!("{PARTIAL_MARKER}: {omitted} files left out\n")
}

/// The marker naming the omitted files, as long as fits in `room` escaped bytes: all names,
/// else the count per top-level directory, else as many names as fit and a count of the rest,
/// else only the count.
fn marker(sections: &[Section], omitted: &[usize], room: usize) -> Option<String> {
    if omitted.is_empty() {
        return Some(String::new());
    }
    let head = marker_head(sections, omitted);
    let mut names: Vec<String> = omitted
        .iter()
        .map(|&i| format!("#   {}\n", one_line(&sections[i].path)))
        .collect();
    names.sort_unstable();
    let head_len = escaped_len(&head);
    let lens: Vec<usize> = names.iter().map(|n| escaped_len(n)).collect();
    let all: usize = head_len + lens.iter().sum::<usize>();
    if all <= room {
        return Some(head + &names.concat());
    }
    // Too many names: how many files each top-level directory lost, when that fits.
    if per_top_directory(sections, omitted).len() < names.len() {
        let by_dir = directory_marker(sections, omitted);
        if escaped_len(&by_dir) <= room {
            return Some(by_dir);
        }
    }
    // Fewer names plus a count: the most names whose lines and the count line still fit.
    let mut used = head_len;
    let mut shown = 0;
    for (i, len) in lens.iter().enumerate() {
        let more = escaped_len(&format!("#   … and {} more\n", names.len() - (i + 1)));
        if used + len + more > room {
            break;
        }
        used += len;
        shown = i + 1;
    }
    let more = format!("#   … and {} more\n", names.len() - shown);
    if used + escaped_len(&more) <= room {
        return Some(head + &names[..shown].concat() + &more);
    }
    let short = short_marker(omitted.len());
    (escaped_len(&short) <= room).then_some(short)
}

/// The marker that counts the omitted files per top-level directory.
fn directory_marker(sections: &[Section], omitted: &[usize]) -> String {
    let mut text = marker_head(sections, omitted);
    for (dir, n) in per_top_directory(sections, omitted) {
        let files = if n == 1 { "file" } else { "files" };
        let _ = writeln!(text, "#   {} ({n} {files})", one_line(dir));
    }
    text
}

/// The marker's first line.
fn marker_head(sections: &[Section], omitted: &[usize]) -> String {
    format!(
        "{PARTIAL_MARKER}: {} of {} files left out to stay within the size limit\n",
        omitted.len(),
        sections.len()
    )
}

/// The omitted files counted by top-level directory (`dir/`), or by name at the top level,
/// in path order.
fn per_top_directory<'a>(sections: &'a [Section], omitted: &[usize]) -> Vec<(&'a str, usize)> {
    let mut counts: std::collections::BTreeMap<&str, usize> = std::collections::BTreeMap::new();
    for &i in omitted {
        let path = sections[i].path.as_str();
        let top = match path.find('/') {
            Some(at) => &path[..=at],
            None => path,
        };
        *counts.entry(top).or_default() += 1;
    }
    counts.into_iter().collect()
}

/// Builds the payload for the chosen sections and the marker for the rest; `None` when the
/// marker does not fit next to them.
fn assemble(
    sections: &[Section],
    included: &[usize],
    omitted: &[usize],
    max_bytes: usize,
    report: &RedactionReport,
) -> Option<Payload> {
    let mut keep: Vec<usize> = included.to_vec();
    keep.sort_unstable();
    let mut diff = String::new();
    for &i in &keep {
        diff.push_str(&sections[i].text);
    }
    let room = if omitted.is_empty() {
        0
    } else {
        max_bytes.saturating_sub(base_len() + included_cost(sections, included))
    };
    diff.push_str(&marker(sections, omitted, room)?);
    // A rename or copy names both of its paths, as the original plugin's payload does.
    let mut files: Vec<String> = keep
        .iter()
        .flat_map(|&i| std::iter::once(&sections[i].path).chain(sections[i].old_path.as_ref()))
        .cloned()
        .collect();
    files.sort_unstable();
    files.dedup();
    let mut omitted_names: Vec<String> =
        omitted.iter().map(|&i| sections[i].path.clone()).collect();
    omitted_names.sort_unstable();
    let json = serde_json::to_string(&Canonical {
        format: "unified_diff",
        files: &files,
        diff: &diff,
    })
    .expect("strings always serialize");
    let hash = hex_sha256(json.as_bytes());
    Some(Payload {
        json,
        hash,
        files,
        diff,
        omitted: omitted_names,
        redactions: report.clone(),
    })
}

/// One change as diff text, redacted.
fn section(
    change: &Change,
    tier: Tier,
    redactor: &Redactor,
    report: &mut RedactionReport,
) -> Section {
    let path = redact_path(&change.path, redactor, report);
    let old_path = change
        .old_path
        .as_ref()
        .map(|p| redact_path(p, redactor, report));
    let metadata = if change.binary {
        Some("binary file, content not included".to_owned())
    } else if change.unread {
        Some(UNREAD_NOTE.to_owned())
    } else {
        change
            .oversized
            .map(|size| format!("file over the size cap ({size} bytes), content not included"))
    };
    let text = match metadata {
        Some(what) => metadata_text(&path, old_path.as_deref(), change.status, &what),
        None if change.patch.is_empty() => metadata_text(
            &path,
            old_path.as_deref(),
            change.status,
            "no content change",
        ),
        None => {
            let mut raw = String::from_utf8_lossy(&change.patch).into_owned();
            // Terminate the last line first, so a trailing `\r` becomes part of a CRLF.
            if !raw.ends_with('\n') {
                raw.push('\n');
            }
            let normalized = raw.replace("\r\n", "\n");
            redactor.redact(&normalized, report).into_owned()
        }
    };
    let class = priority::classify(&path);
    // Text, the path's entry in `files`, and for a rename the old path's entry and its comma
    // (an upper bound: equal paths are listed once).
    let cost = escaped_len(&text)
        + escaped_len(&path)
        + 2
        + old_path.as_ref().map_or(0, |old| escaped_len(old) + 3);
    Section {
        path,
        old_path,
        text,
        tier,
        class,
        cost,
    }
}

fn redact_path(raw: &[u8], redactor: &Redactor, report: &mut RedactionReport) -> String {
    let lossy = String::from_utf8_lossy(raw).replace("\r\n", "\n");
    redactor.redact(&lossy, report).into_owned()
}

/// A header for a change whose content is not sent.
fn metadata_text(path: &str, old_path: Option<&str>, status: Status, what: &str) -> String {
    let old = old_path.unwrap_or(path);
    let status = match status {
        Status::Added => "added",
        Status::Modified => "modified",
        Status::Deleted => "deleted",
        Status::Renamed => "renamed",
        Status::Copied => "copied",
        Status::TypeChanged => "type changed",
    };
    let mut text = format!("diff --git a/{} b/{}\n", one_line(old), one_line(path));
    if let Some(old) = old_path {
        let _ = writeln!(text, "# old path: {}", one_line(old));
    }
    let _ = writeln!(text, "# path: {}", one_line(path));
    let _ = writeln!(text, "# status: {status}");
    let _ = writeln!(text, "# {what}");
    text
}

/// A path safe to put on one line of the diff text: control characters escaped.
fn one_line(path: &str) -> String {
    if !path.chars().any(char::is_control) {
        return path.to_owned();
    }
    path.chars()
        .map(|c| {
            if c.is_control() {
                c.escape_default().to_string()
            } else {
                c.to_string()
            }
        })
        .collect()
}

/// Bytes `s` takes inside a JSON string, quotes excluded.
fn escaped_len(s: &str) -> usize {
    json_len(&s) - 2
}

fn json_len<T: serde::Serialize + ?Sized>(value: &T) -> usize {
    serde_json::to_string(value)
        .expect("strings always serialize")
        .len()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escaped_len_counts_json_escapes() {
        assert_eq!(escaped_len("ab"), 2);
        assert_eq!(escaped_len("a\"b\n"), 6);
        assert_eq!(escaped_len("\u{1}"), 6);
    }
}
