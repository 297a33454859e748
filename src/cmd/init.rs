//! `jev-preflight init`: a starter `.jev-preflight.json` and the explanation of its keys.
//!
//! The starter file names every key the repository config accepts, set to its default — all
//! but four, which are explained and left out: `threshold` (written out, it would replace
//! the `local` scorer's calibrated default with one uncalibrated number), `riskThreshold` (the
//! original jev-preflight's name for the same setting), `timeoutMs` (its default is the
//! hook's own budget, which a later version may change) and `memoryDays` (set, it would
//! replace the user's own setting). It points editors at the JSON Schema shipped in this
//! crate (`$schema`), so they validate and complete it. JSON has no comments, so what each
//! key means is printed instead: the text is generated from the schema's own descriptions,
//! which keeps the two from drifting apart.

use std::fmt::Write as _;
use std::fs;
use std::io::{self, Write};
use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::fs::{Durability, FsError};
use crate::git::snapshot::DEFAULT_UNTRACKED_CAP;
use crate::pipeline::axes::AXIS_IDS;
use crate::pipeline::payload::DEFAULT_MAX_DIFF_BYTES;

/// The repository config file, at the repository's top level.
pub const CONFIG_FILE: &str = crate::config::REPO_CONFIG_FILE;
/// Where editors fetch the schema from (the file below, on the main branch).
pub const SCHEMA_URL: &str =
    "https://raw.githubusercontent.com/typesafe-ai/jev-preflight/main/src/config.schema.json";
/// The JSON Schema (draft 2020-12) of the repository config.
pub const CONFIG_SCHEMA: &str = include_str!("../config.schema.json");

/// The keys of the repository config in the order the starter file and the explanation use.
pub const KEYS: [&str; 12] = [
    "$schema",
    "mode",
    "threshold",
    "riskThreshold",
    "thresholds",
    "maxDiffBytes",
    "oversize",
    "exclude",
    "untrackedMaxBytes",
    "answer",
    "timeoutMs",
    "memoryDays",
];

/// The keys the starter file leaves out (explained only): see the module docs.
pub const NOT_IN_STARTER: [&str; 4] = ["threshold", "riskThreshold", "timeoutMs", "memoryDays"];

/// The starter `.jev-preflight.json`: every key at its default, except
/// [`NOT_IN_STARTER`] (left unset so the scorer's, the hook's and the user's own defaults
/// apply).
pub fn starter_config() -> String {
    format!(
        r#"{{
  "$schema": "{SCHEMA_URL}",
  "mode": "assist",
  "thresholds": {{}},
  "maxDiffBytes": {DEFAULT_MAX_DIFF_BYTES},
  "oversize": "partial",
  "exclude": [],
  "untrackedMaxBytes": {DEFAULT_UNTRACKED_CAP},
  "answer": "auto"
}}
"#
    )
}

/// What each key of the starter file means, for stdout.
pub fn explanation() -> String {
    let schema: Value = serde_json::from_str(CONFIG_SCHEMA).expect("the embedded schema is JSON");
    let properties = &schema["properties"];
    let mut out = String::new();
    let _ = writeln!(
        out,
        "What each key in `{CONFIG_FILE}` does (JSON has no comments, so it is explained here):"
    );
    for key in KEYS {
        let property = resolve(&schema, &properties[key]);
        let _ = writeln!(out);
        let _ = write!(out, "  {key}: {}", describe_type(&schema, property));
        if let Some(default) = property.get("default") {
            let _ = write!(out, "; default {default}");
        }
        let _ = writeln!(out);
        let mut text = property
            .get("description")
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_owned();
        if let Some(axes) = property.get("properties").and_then(Value::as_object) {
            let mut ids: Vec<&str> = axes.keys().map(String::as_str).collect();
            ids.sort_by_key(|id| AXIS_IDS.iter().position(|a| a == id));
            let _ = write!(text, " Axis ids: {}.", ids.join(", "));
        }
        for line in wrap(&text, 84) {
            let _ = writeln!(out, "      {line}");
        }
    }
    let _ = writeln!(out);
    for line in wrap(
        "Unknown keys are errors. A repository cannot choose where data goes: scorer, \
         endpoints, commands and keys are user settings (environment, plugin options, or the \
         user config file). The file is read when a prompt is submitted; edits made during a \
         turn apply from the next prompt.",
        86,
    ) {
        let _ = writeln!(out, "{line}");
    }
    out
}

/// Follows a local `$ref` (`#/$defs/…`).
fn resolve<'a>(schema: &'a Value, node: &'a Value) -> &'a Value {
    match node.get("$ref").and_then(Value::as_str) {
        Some(pointer) => schema
            .pointer(pointer.trim_start_matches('#'))
            .unwrap_or(node),
        None => node,
    }
}

fn describe_type(schema: &Value, node: &Value) -> String {
    if let Some(values) = node.get("enum").and_then(Value::as_array) {
        let names: Vec<String> = values.iter().map(Value::to_string).collect();
        return format!("one of {}", names.join(", "));
    }
    let range = match (node.get("minimum"), node.get("maximum")) {
        (Some(lo), Some(hi)) => format!(" from {lo} to {hi}"),
        _ => String::new(),
    };
    match node.get("type").and_then(Value::as_str) {
        Some("number") => format!("number{range}"),
        Some("integer") => format!("whole number{range}"),
        Some("string") => "string".to_owned(),
        Some("array") => {
            let most = node
                .get("maxItems")
                .map(|n| format!(", at most {n}"))
                .unwrap_or_default();
            format!("array of strings{most}")
        }
        Some("object") => {
            let value = node
                .get("properties")
                .and_then(|p| p.as_object()?.values().next())
                .map(|v| describe_type(schema, resolve(schema, v)))
                .unwrap_or_default();
            format!("object of axis id to {value}")
        }
        _ => "value".to_owned(),
    }
}

/// Splits `text` into lines of at most `width` characters at spaces.
fn wrap(text: &str, width: usize) -> Vec<String> {
    let mut lines = Vec::new();
    let mut line = String::new();
    for word in text.split_whitespace() {
        if !line.is_empty() && line.chars().count() + 1 + word.chars().count() > width {
            lines.push(std::mem::take(&mut line));
        }
        if !line.is_empty() {
            line.push(' ');
        }
        line.push_str(word);
    }
    if !line.is_empty() {
        lines.push(line);
    }
    lines
}

/// What [`init`] wrote.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct InitOutcome {
    pub path: PathBuf,
    /// An existing file was overwritten (only with `force`).
    pub replaced: bool,
}

/// Why [`init`] wrote nothing.
#[derive(Debug, thiserror::Error)]
pub enum InitError {
    #[error("`{}` already exists", .path.display())]
    Exists { path: PathBuf },
    #[error("could not write `{}`: {source}", .path.display())]
    Write { path: PathBuf, source: io::Error },
}

impl InitError {
    /// The next step for the user, printed on a `hint:` line.
    pub fn hint(&self) -> Option<String> {
        match self {
            InitError::Exists { .. } => Some(
                "edit the existing file, or pass `--force` to replace it with the starter"
                    .to_owned(),
            ),
            InitError::Write { .. } => {
                Some("check that the repository's top level is writable".to_owned())
            }
        }
    }
}

/// Writes the starter config at `top` (a repository's top level). An existing file is kept
/// unless `force`; a forced replacement is atomic.
pub fn init(top: &Path, force: bool) -> Result<InitOutcome, InitError> {
    let path = top.join(CONFIG_FILE);
    let content = starter_config();
    let write_err = |source| InitError::Write {
        path: path.clone(),
        source,
    };
    if !force {
        // `create_new` decides atomically that we are not overwriting anything.
        let mut file = match fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(&path)
        {
            Ok(file) => file,
            Err(err) if err.kind() == io::ErrorKind::AlreadyExists => {
                return Err(InitError::Exists { path });
            }
            Err(err) => return Err(write_err(err)),
        };
        let written = file
            .write_all(content.as_bytes())
            .and_then(|()| file.sync_all());
        if let Err(err) = written {
            let _ = fs::remove_file(&path);
            return Err(write_err(err));
        }
        return Ok(InitOutcome {
            path,
            replaced: false,
        });
    }
    let replaced = fs::symlink_metadata(&path).is_ok();
    #[cfg(unix)]
    let permissions = Some(std::os::unix::fs::PermissionsExt::from_mode(0o644));
    #[cfg(not(unix))]
    let permissions = None;
    crate::fs::write_atomic(&path, content.as_bytes(), Durability::Synced, permissions).map_err(
        |e| match e {
            FsError::Io { path, source } => InitError::Write { path, source },
            other => write_err(io::Error::other(other.to_string())),
        },
    )?;
    Ok(InitOutcome { path, replaced })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wrap_respects_the_width_and_keeps_every_word() {
        let text = "one two three four five six seven eight nine ten";
        let lines = wrap(text, 10);
        assert!(lines.iter().all(|l| l.chars().count() <= 10), "{lines:?}");
        assert_eq!(lines.join(" "), text);
        assert_eq!(wrap("", 10), Vec::<String>::new());
        assert_eq!(
            wrap("averyveryverylongword x", 5),
            ["averyveryverylongword", "x"]
        );
    }
}
