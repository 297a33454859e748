//! The canonical payload: exactly the bytes that may leave the machine, and their hash.
//!
//! Each kept change becomes one section of unified diff text: its patch with CRLF turned
//! into LF, invalid UTF-8 replaced and every secret redacted, or, for a binary or oversized
//! file, a metadata header with no body. Sections are ordered by redacted path, so the
//! payload does not depend on the order changes arrive in. The payload is the compact JSON
//! `{"format":"unified_diff","files":[…],"diff":"…"}`; its hash is the SHA-256 of exactly
//! those bytes. When the JSON is over the size cap, the partial policy keeps whole files by
//! priority (source, then tests, then config and the rest; smaller first) and ends the diff
//! with a marker naming what was left out; the skip policy drops the turn.

use std::fmt::Write as _;

use sha2::{Digest, Sha256};

use crate::git::diff::{Change, Status};
use crate::pipeline::paths::is_test_path;
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

/// How important a file is to keep when the payload must shrink.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Class {
    Source,
    Test,
    Other,
}

/// One file's contribution to the payload.
#[derive(Debug, Clone)]
struct Section {
    path: String,
    old_path: Option<String>,
    text: String,
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
    let mut sections: Vec<Section> = kept
        .iter()
        .map(|change| section(change, redactor, &mut report))
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
        (x.class, x.cost, &x.path).cmp(&(y.class, y.cost, &y.path))
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
/// else as many as fit and a count of the rest, else only the count.
fn marker(sections: &[Section], omitted: &[usize], room: usize) -> Option<String> {
    if omitted.is_empty() {
        return Some(String::new());
    }
    let head = format!(
        "{PARTIAL_MARKER}: {} of {} files left out to stay within the size limit\n",
        omitted.len(),
        sections.len()
    );
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
    let hash = hex(&Sha256::digest(json.as_bytes()));
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
fn section(change: &Change, redactor: &Redactor, report: &mut RedactionReport) -> Section {
    let path = redact_path(&change.path, redactor, report);
    let old_path = change
        .old_path
        .as_ref()
        .map(|p| redact_path(p, redactor, report));
    let metadata = if change.binary {
        Some("binary file, content not included".to_owned())
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
    let class = classify(&path);
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

const SOURCE_EXTENSIONS: &[&str] = &[
    "rs", "go", "py", "pyi", "js", "jsx", "mjs", "cjs", "ts", "tsx", "mts", "cts", "java", "kt",
    "kts", "scala", "swift", "m", "mm", "c", "cc", "cpp", "cxx", "h", "hh", "hpp", "hxx", "cs",
    "fs", "vb", "rb", "php", "pl", "pm", "lua", "dart", "ex", "exs", "erl", "hrl", "hs", "ml",
    "mli", "clj", "cljs", "elm", "r", "jl", "sh", "bash", "zsh", "fish", "ps1", "sql", "vue",
    "svelte", "groovy", "tf", "proto", "graphql", "gql", "sol", "zig", "nim", "cr", "v", "f90",
    "asm", "s", "cu", "metal", "wgsl", "glsl", "hlsl",
];

/// Source before tests before everything else (config, docs, data).
fn classify(path: &str) -> Class {
    let lower = path.to_ascii_lowercase();
    let name = lower.rsplit('/').next().unwrap_or(&lower);
    if is_test_path(path) {
        return Class::Test;
    }
    let ext = name.rsplit_once('.').map(|(_, e)| e).unwrap_or("");
    if SOURCE_EXTENSIONS.contains(&ext) {
        Class::Source
    } else {
        Class::Other
    }
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

fn hex(bytes: &[u8]) -> String {
    let mut out = String::with_capacity(bytes.len() * 2);
    for b in bytes {
        let _ = write!(out, "{b:02x}");
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn classes_order_source_tests_other() {
        for (path, class) in [
            ("src/lib.rs", Class::Source),
            ("cmd/main.go", Class::Source),
            ("pkg/server_test.go", Class::Test),
            ("tests/it/main.rs", Class::Test),
            ("app/__tests__/a.js", Class::Test),
            ("web/button.test.tsx", Class::Test),
            ("src/test/java/FooTest.java", Class::Test),
            ("test_api.py", Class::Test),
            ("config.yaml", Class::Other),
            ("README.md", Class::Other),
            ("Cargo.toml", Class::Other),
        ] {
            assert_eq!(classify(path), class, "{path}");
        }
    }

    #[test]
    fn escaped_len_counts_json_escapes() {
        assert_eq!(escaped_len("ab"), 2);
        assert_eq!(escaped_len("a\"b\n"), 6);
        assert_eq!(escaped_len("\u{1}"), 6);
    }
}
