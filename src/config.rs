//! Configuration: the environment read once, the repository's untrusted `.jev-preflight.json`,
//! and the user-level settings (scorer, endpoints, keys) that only the user can set.
//!
//! The repository file may set mode, thresholds, size limits, excludes and the answer form.
//! It can never name an endpoint, a command, a key or anything else that changes where data
//! goes: those come only from the environment, the plugin's userConfig options
//! (`CLAUDE_PLUGIN_OPTION_*`) and the user config file. Both files are parsed strictly.

use std::collections::BTreeMap;
use std::path::Path;
use std::time::Duration;

use serde_json::{Map, Value};

use crate::digest::hex_sha256;
pub use crate::env::HostEnv;
use crate::env::vars as ev;
use crate::fs::FsError;
use crate::git::snapshot::{DEFAULT_UNTRACKED_CAP, SnapshotOptions};
use crate::pipeline::axes::{AXIS_COUNT, AXIS_IDS, DEFAULT_THRESHOLD, Thresholds};
use crate::pipeline::payload::{DEFAULT_MAX_DIFF_BYTES, Oversize, SizePolicy};
use crate::scorer::secret::ApiKey;
use crate::scorer::{ScorerKind, ScorerSettings};
use crate::state::budget::{Budget, OverBudget};

/// Name of the repository config file at the repository's top level.
pub const REPO_CONFIG_FILE: &str = ".jev-preflight.json";
/// Largest config file read, repository or user.
pub const CONFIG_MAX_BYTES: u64 = 64 * 1024;
/// Range of `maxDiffBytes`.
pub const MAX_DIFF_BYTES_RANGE: (u64, u64) = (1024, 4 * 1024 * 1024);
/// Range of `untrackedMaxBytes`.
pub const UNTRACKED_MAX_BYTES_RANGE: (u64, u64) = (1, 1024 * 1024 * 1024);
/// Most `exclude` globs accepted.
pub const MAX_EXCLUDES: usize = 256;
/// Range of `timeoutMs`, the scorer's time budget. The top is the hook's own budget
/// ([`crate::hook::SCORER_BUDGET`]), chosen to keep a Stop well inside the hosts' 60 s Stop
/// timeout: a repository may shorten the wait, never lengthen it.
pub const TIMEOUT_MS_RANGE: (u64, u64) = (100, 20_000);

/// Range of `memoryDays`, and its default: how long a finding the agent was already asked
/// about and left as it was is not raised again in the repository (within the session that
/// asked, it never is). The top is the store's age sweep of a repository's directory.
pub const MEMORY_DAYS_RANGE: (u64, u64) = (0, 30);
pub const DEFAULT_MEMORY_DAYS: u32 = 7;

/// What the hook does in a repository.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Mode {
    /// Ask the agent once to look again.
    #[default]
    Assist,
    /// Show the user a one-line summary; never continue the agent.
    Report,
    /// No snapshot, no scoring, nothing written.
    Off,
}

/// Which JSON form an assist answer takes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum AnswerForm {
    /// `additionalContext` when the host is known to accept it, else `decision`/`reason`.
    #[default]
    Auto,
    /// `hookSpecificOutput.additionalContext` (Claude Code ≥ 2.1.163).
    Context,
    /// `decision: "block"` with a `reason` (every Claude Code version, Codex).
    Block,
}

/// The repository config as written; every key optional.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct RepoConfig {
    pub mode: Option<Mode>,
    /// `threshold`, or the original jev-preflight's name for it, `riskThreshold`.
    pub threshold: Option<f64>,
    pub thresholds: BTreeMap<String, f64>,
    pub max_diff_bytes: Option<u64>,
    pub oversize: Option<Oversize>,
    pub exclude: Vec<String>,
    pub untracked_max_bytes: Option<u64>,
    pub answer: Option<AnswerForm>,
    /// `timeoutMs`: the scorer's time budget in milliseconds, within [`TIMEOUT_MS_RANGE`].
    pub timeout_ms: Option<u64>,
    /// `memoryDays`: how long a finding already looked at is not raised again, within
    /// [`MEMORY_DAYS_RANGE`].
    pub memory_days: Option<u32>,
}

/// Where a setting was read from, so that an error can say where to fix it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Origin {
    /// The repository's `.jev-preflight.json`.
    RepoFile,
    /// The user config file at this path.
    UserFile(String),
    /// An environment variable (the error's location names it).
    Env,
    /// A plugin userConfig option, which reaches us as `CLAUDE_PLUGIN_OPTION_<KEY>`.
    PluginOption,
}

impl std::fmt::Display for Origin {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Origin::RepoFile => f.write_str(REPO_CONFIG_FILE),
            Origin::UserFile(path) => f.write_str(path),
            Origin::Env => f.write_str("environment"),
            Origin::PluginOption => f.write_str("plugin option"),
        }
    }
}

/// A configuration file that could not be used, with where the problem is.
#[derive(Debug, thiserror::Error)]
pub enum ConfigError {
    #[error("{origin}: {location}: {message}")]
    Invalid {
        origin: Origin,
        location: String,
        message: String,
    },
    #[error(transparent)]
    File(#[from] FsError),
}

impl ConfigError {
    /// The next step, naming the place that holds the bad value: the repository file (at
    /// `repo_file`), the user config file, the environment variable, or the plugin option.
    pub fn fix(&self, repo_file: &Path) -> String {
        match self {
            ConfigError::Invalid {
                origin: Origin::RepoFile,
                location,
                ..
            } => format!(
                "edit `{}` at {location}; `jev-preflight init --force` writes a valid starter",
                repo_file.display()
            ),
            ConfigError::Invalid {
                origin: Origin::UserFile(path),
                location,
                ..
            } => format!("edit the user config file `{path}` at {location}"),
            ConfigError::Invalid {
                origin: Origin::Env,
                location,
                ..
            } => format!("set the environment variable `{location}` to a valid value, or unset it"),
            ConfigError::Invalid {
                origin: Origin::PluginOption,
                location,
                ..
            } => format!(
                "change the plugin's {location} option (`/plugin`, jev-preflight, configure), or \
                    clear it"
            ),
            ConfigError::File(e) => {
                let path = match e {
                    FsError::Io { path, .. }
                    | FsError::Unsafe { path, .. }
                    | FsError::TooLarge { path, .. } => path,
                };
                format!(
                    "make `{}` a readable regular file of at most {CONFIG_MAX_BYTES} bytes",
                    path.display()
                )
            }
        }
    }
}

fn invalid(file: &str, location: impl Into<String>, message: impl Into<String>) -> ConfigError {
    let origin = if file == REPO_CONFIG_FILE {
        Origin::RepoFile
    } else {
        Origin::UserFile(file.to_owned())
    };
    ConfigError::Invalid {
        origin,
        location: location.into(),
        message: message.into(),
    }
}

/// A bad value in environment variable `name`: a plugin option when it is one of the
/// `CLAUDE_PLUGIN_OPTION_*` variables Claude Code sets from the plugin's userConfig.
fn env_invalid(name: &str, message: impl Into<String>) -> ConfigError {
    let (origin, location) = match name.strip_prefix(ev::PLUGIN_OPTION_PREFIX) {
        Some(key) => (
            Origin::PluginOption,
            format!("`{}`", key.to_ascii_lowercase()),
        ),
        None => (Origin::Env, name.to_owned()),
    };
    ConfigError::Invalid {
        origin,
        location,
        message: message.into(),
    }
}

/// Parses JSON text strictly: one object, no trailing data, no duplicate keys.
fn parse_object(file: &str, bytes: &[u8]) -> Result<Map<String, Value>, ConfigError> {
    let text = std::str::from_utf8(bytes)
        .map_err(|e| invalid(file, format!("byte {}", e.valid_up_to()), "not valid UTF-8"))?;
    let value: Value = serde_json::from_str(text).map_err(|e| {
        invalid(
            file,
            format!("line {} column {}", e.line(), e.column()),
            e.to_string(),
        )
    })?;
    let Value::Object(map) = value else {
        return Err(invalid(file, "top level", "must be a JSON object"));
    };
    // serde_json keeps the last of duplicate keys silently; a duplicate is a mistake (or a
    // trick), so count the keys of the top-level object in the raw text as well.
    let mut seen = std::collections::HashSet::new();
    let mut de = serde_json::Deserializer::from_str(text);
    if let Ok(keys) = <TopKeys as serde::Deserialize>::deserialize(&mut de) {
        for key in keys.0 {
            if !seen.insert(key.clone()) {
                return Err(invalid(file, format!("`{key}`"), "duplicate key"));
            }
        }
    }
    Ok(map)
}

/// The keys of a JSON object in document order, duplicates included.
struct TopKeys(Vec<String>);

impl<'de> serde::Deserialize<'de> for TopKeys {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<TopKeys, D::Error> {
        struct V;
        impl<'de> serde::de::Visitor<'de> for V {
            type Value = TopKeys;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("an object")
            }
            fn visit_map<A: serde::de::MapAccess<'de>>(
                self,
                mut m: A,
            ) -> Result<TopKeys, A::Error> {
                let mut keys = Vec::new();
                while let Some(k) = m.next_key::<String>()? {
                    m.next_value::<serde::de::IgnoredAny>()?;
                    keys.push(k);
                }
                Ok(TopKeys(keys))
            }
        }
        d.deserialize_map(V)
    }
}

fn type_name(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

fn want_str<'a>(file: &str, loc: &str, v: &'a Value) -> Result<&'a str, ConfigError> {
    v.as_str().ok_or_else(|| {
        invalid(
            file,
            format!("`{loc}`"),
            format!("must be a string, not {}", type_name(v)),
        )
    })
}

fn want_enum<T: serde::de::DeserializeOwned>(
    file: &str,
    loc: &str,
    v: &Value,
    allowed: &str,
) -> Result<T, ConfigError> {
    let s = want_str(file, loc, v)?;
    serde_json::from_value(Value::String(s.to_owned())).map_err(|_| {
        invalid(
            file,
            format!("`{loc}`"),
            format!("must be one of {allowed}, not `{s}`"),
        )
    })
}

fn want_probability(file: &str, loc: &str, v: &Value) -> Result<f64, ConfigError> {
    match v.as_f64() {
        Some(x) if (0.0..=1.0).contains(&x) => Ok(x),
        Some(x) => Err(invalid(
            file,
            format!("`{loc}`"),
            format!("must be between 0 and 1, not {x}"),
        )),
        None => Err(invalid(
            file,
            format!("`{loc}`"),
            format!("must be a number between 0 and 1, not {}", type_name(v)),
        )),
    }
}

fn want_int(file: &str, loc: &str, v: &Value, (lo, hi): (u64, u64)) -> Result<u64, ConfigError> {
    match v.as_u64() {
        Some(x) if (lo..=hi).contains(&x) => Ok(x),
        _ => Err(invalid(
            file,
            format!("`{loc}`"),
            format!("must be a whole number from {lo} to {hi}, not {v}"),
        )),
    }
}

/// Parses and validates `.jev-preflight.json`. No I/O.
pub fn parse_repo_config(bytes: &[u8]) -> Result<RepoConfig, ConfigError> {
    let file = REPO_CONFIG_FILE;
    let map = parse_object(file, bytes)?;
    let mut cfg = RepoConfig::default();
    for (key, v) in &map {
        match key.as_str() {
            // Editors use `$schema`; it changes nothing.
            "$schema" => {
                want_str(file, key, v)?;
            }
            "mode" => cfg.mode = Some(want_enum(file, key, v, "`assist`, `report`, `off`")?),
            // `riskThreshold` is the original jev-preflight's name of the same setting.
            "threshold" | "riskThreshold" => {
                if map.contains_key("threshold") && map.contains_key("riskThreshold") {
                    return Err(invalid(
                        file,
                        "`threshold` and `riskThreshold`",
                        "both set: they are one setting (`riskThreshold` is the original \
                         jev-preflight's name for `threshold`); keep one",
                    ));
                }
                cfg.threshold = Some(want_probability(file, key, v)?)
            }
            "timeoutMs" => cfg.timeout_ms = Some(want_int(file, key, v, TIMEOUT_MS_RANGE)?),
            "thresholds" => cfg.thresholds = want_thresholds(file, v)?,
            "maxDiffBytes" => {
                cfg.max_diff_bytes = Some(want_int(file, key, v, MAX_DIFF_BYTES_RANGE)?)
            }
            "oversize" => cfg.oversize = Some(want_enum(file, key, v, "`partial`, `skip`")?),
            "exclude" => cfg.exclude = want_globs(file, v)?,
            "untrackedMaxBytes" => {
                cfg.untracked_max_bytes = Some(want_int(file, key, v, UNTRACKED_MAX_BYTES_RANGE)?)
            }
            "answer" => cfg.answer = Some(want_enum(file, key, v, "`auto`, `context`, `block`")?),
            // The memory only ever keeps a finding from being raised again, and a repository
            // may already turn the hook off: it may set this either way.
            "memoryDays" => {
                cfg.memory_days = Some(want_int(file, key, v, MEMORY_DAYS_RANGE)? as u32)
            }
            other => return Err(unknown_repo_key(other)),
        }
    }
    Ok(cfg)
}

/// The per-axis `thresholds` object: known axis ids only, each a probability.
fn want_thresholds(file: &str, v: &Value) -> Result<BTreeMap<String, f64>, ConfigError> {
    let Value::Object(per) = v else {
        return Err(invalid(
            file,
            "`thresholds`",
            format!(
                "must be an object of axis id to number, not {}",
                type_name(v)
            ),
        ));
    };
    let mut thresholds = BTreeMap::new();
    for (axis, t) in per {
        let loc = format!("thresholds.{axis}");
        if !AXIS_IDS.contains(&axis.as_str()) {
            return Err(invalid(
                file,
                format!("`{loc}`"),
                format!("unknown axis; axes are {}", AXIS_IDS.join(", ")),
            ));
        }
        thresholds.insert(axis.clone(), want_probability(file, &loc, t)?);
    }
    Ok(thresholds)
}

/// The `exclude` array: at most [`MAX_EXCLUDES`] strings, each a valid glob.
fn want_globs(file: &str, v: &Value) -> Result<Vec<String>, ConfigError> {
    let Value::Array(items) = v else {
        return Err(invalid(
            file,
            "`exclude`",
            format!("must be an array of glob strings, not {}", type_name(v)),
        ));
    };
    if items.len() > MAX_EXCLUDES {
        return Err(invalid(
            file,
            "`exclude`",
            format!("has more than {MAX_EXCLUDES} globs"),
        ));
    }
    let mut globs = Vec::with_capacity(items.len());
    for (i, item) in items.iter().enumerate() {
        let loc = format!("exclude[{i}]");
        let glob = want_str(file, &loc, item)?;
        globset::Glob::new(glob).map_err(|e| {
            invalid(
                file,
                format!("`{loc}`"),
                format!("invalid glob `{glob}`: {}", e.kind()),
            )
        })?;
        globs.push(glob.to_owned());
    }
    Ok(globs)
}

/// The error for a key the repository file does not know; a user-level setting gets a hint
/// that a repository can never choose where data goes or what runs.
fn unknown_repo_key(key: &str) -> ConfigError {
    let hint = if matches!(
        key.to_ascii_lowercase().as_str(),
        "url" | "endpoint" | "jevurl" | "scorer" | "command" | "apikey" | "key" | "model"
    ) {
        " (endpoints, commands, scorers and keys are user settings, never repository settings)"
    } else {
        ""
    };
    invalid(
        REPO_CONFIG_FILE,
        format!("`{key}`"),
        format!("unknown key{hint}"),
    )
}

/// Reads `path` without following a symlink at its last component, at most `CONFIG_MAX_BYTES`.
/// `Ok(None)` when it does not exist.
pub fn read_bounded(path: &Path) -> Result<Option<Vec<u8>>, ConfigError> {
    Ok(crate::fs::read_file(path, CONFIG_MAX_BYTES)?)
}

/// The repository config at `top`, and the SHA-256 of its bytes (`None`: no file).
pub fn read_repo_config(top: &Path) -> Result<(RepoConfig, Option<String>), ConfigError> {
    match read_bounded(&top.join(REPO_CONFIG_FILE))? {
        None => Ok((RepoConfig::default(), None)),
        Some(bytes) => Ok((parse_repo_config(&bytes)?, Some(hex_sha256(&bytes)))),
    }
}

/// The hash `read_repo_config` records, without parsing (used to notice edits during a turn).
pub fn repo_config_hash(top: &Path) -> Result<Option<String>, ConfigError> {
    Ok(read_bounded(&top.join(REPO_CONFIG_FILE))?.map(|b| hex_sha256(&b)))
}

/// User-level settings: where data may go and the defaults repositories can override.
#[derive(Debug, Clone, Default)]
pub struct UserSettings {
    pub scorer: ScorerSettings,
    pub mode: Option<Mode>,
    pub threshold: Option<f64>,
    pub memory_days: Option<u32>,
    /// Limits on remote scorers' requests and tokens. User-level only: a repository can
    /// neither raise them (SPEC invariant 5) nor lower them — the counters are the user's, one
    /// set across every repository.
    pub budget: Budget,
}

/// The user config file as written; every key optional.
#[derive(Debug, Default, serde::Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct UserFile {
    #[serde(rename = "$schema")]
    _schema: Option<String>,
    scorer: Option<ScorerKind>,
    mode: Option<Mode>,
    threshold: Option<f64>,
    jev_url: Option<String>,
    jev_model: Option<String>,
    openai_base_url: Option<String>,
    openai_model: Option<String>,
    openai_api_key_env: Option<String>,
    command: Option<Vec<String>>,
    memory_days: Option<u64>,
    remote_max_per_session: Option<u64>,
    remote_max_per_day: Option<u64>,
    remote_max_tokens_per_day: Option<u64>,
    over_budget: Option<OverBudget>,
}

/// Builds the user-level settings from the environment and the user config file.
/// Precedence per setting: plugin option, then environment variable, then the file.
/// Errors come in a fixed order: the file, then each setting as listed here.
pub fn user_settings(env: &HostEnv) -> Result<UserSettings, ConfigError> {
    let user_path = env.user_config_path();
    let shown = user_path
        .as_ref()
        .map(|p| p.display().to_string())
        .unwrap_or_default();
    let file = read_user_file(user_path.as_deref(), &shown)?;
    let scorer: ScorerKind = enum_var(
        env,
        &[ev::PLUGIN_SCORER, ev::SCORER],
        "`auto`, `jev`, `openai`, `command`, `local`",
    )?
    .unwrap_or_else(|| file.scorer.unwrap_or_default());
    let mode = enum_var(
        env,
        &[ev::PLUGIN_MODE, ev::MODE],
        "`assist`, `report`, `off`",
    )?
    .or(file.mode);
    let threshold = threshold_setting(env, file.threshold, &shown)?;
    let command = command_setting(env, &file.command, &shown)?;
    let memory_days = match env.first(&[ev::MEMORY_DAYS]) {
        Some((name, v)) => Some(env_int(name, v, MEMORY_DAYS_RANGE)?),
        None => file
            .memory_days
            .map(|n| in_range(&shown, "`memoryDays`", n, MEMORY_DAYS_RANGE))
            .transpose()?,
    }
    .map(|n| n as u32);
    let budget = budget_settings(env, &file, &shown)?;
    Ok(UserSettings {
        scorer: scorer_settings(env, &file, scorer, command),
        mode,
        threshold,
        memory_days,
        budget,
    })
}

/// The user config file at `path`, parsed strictly (no unknown key, no `null`); the defaults
/// when there is no path or no file. `shown` is the path as errors name it.
fn read_user_file(path: Option<&Path>, shown: &str) -> Result<UserFile, ConfigError> {
    let Some(path) = path else {
        return Ok(UserFile::default());
    };
    let Some(bytes) = read_bounded(path)? else {
        return Ok(UserFile::default());
    };
    let map = parse_object(shown, &bytes)?;
    if let Some((key, _)) = map.iter().find(|(_, v)| v.is_null()) {
        return Err(invalid(shown, format!("`{key}`"), "must not be null"));
    }
    let mut de = serde_json::Deserializer::from_slice(&bytes);
    let parsed = serde::Deserialize::deserialize(&mut de).map_err(|e: serde_json::Error| {
        invalid(
            shown,
            format!("line {} column {}", e.line(), e.column()),
            e.to_string(),
        )
    })?;
    de.end().map_err(|e| invalid(shown, "end", e.to_string()))?;
    Ok(parsed)
}

/// A setting with named values from the first of `names` that is set (the plugin option wins
/// over the variable), read case-blind; an error names whichever was read and lists `one_of`.
fn enum_var<T: serde::de::DeserializeOwned>(
    env: &HostEnv,
    names: &[&'static str],
    one_of: &str,
) -> Result<Option<T>, ConfigError> {
    let Some((name, v)) = env.first(names) else {
        return Ok(None);
    };
    let v = Value::String(v.trim().to_ascii_lowercase());
    serde_json::from_value(v.clone())
        .map(Some)
        .map_err(|_| env_invalid(name, format!("must be one of {one_of}, not {v}")))
}

/// The single threshold: from the plugin option or variable, else the file; either must lie
/// between 0 and 1.
fn threshold_setting(
    env: &HostEnv,
    from_file: Option<f64>,
    shown: &str,
) -> Result<Option<f64>, ConfigError> {
    match env.first(&[ev::PLUGIN_THRESHOLD, ev::THRESHOLD]) {
        Some((name, v)) => match v.trim().parse::<f64>() {
            Ok(x) if (0.0..=1.0).contains(&x) => Ok(Some(x)),
            _ => Err(env_invalid(name, "must be a number between 0 and 1")),
        },
        None => match from_file {
            Some(x) if !(0.0..=1.0).contains(&x) => {
                Err(invalid(shown, "`threshold`", "must be between 0 and 1"))
            }
            other => Ok(other),
        },
    }
}

/// The `command` scorer's argv: a JSON array from the variable, else the file's; either must
/// name a program (no shell is ever involved).
fn command_setting(
    env: &HostEnv,
    from_file: &Option<Vec<String>>,
    shown: &str,
) -> Result<Option<Vec<String>>, ConfigError> {
    let command = match env.get(ev::COMMAND) {
        Some(raw) => {
            let argv = serde_json::from_str::<Vec<String>>(raw).map_err(|_| {
                env_invalid(
                    ev::COMMAND,
                    "must be a JSON array of strings (argv, no shell)",
                )
            })?;
            if argv.is_empty() {
                return Err(env_invalid(ev::COMMAND, "must name a program"));
            }
            Some(argv)
        }
        None => from_file.clone(),
    };
    if matches!(&command, Some(argv) if argv.is_empty()) {
        return Err(invalid(shown, "`command`", "must name a program"));
    }
    Ok(command)
}

/// Where each scorer sends and with what: URLs, models and keys, each from its plugin option
/// or variable, else the file. The OpenAI key is read from the variable the settings name.
fn scorer_settings(
    env: &HostEnv,
    file: &UserFile,
    kind: ScorerKind,
    command: Option<Vec<String>>,
) -> ScorerSettings {
    let string = |names: &[&'static str], fallback: &Option<String>| {
        env.first(names)
            .map(|(_, v)| v.trim().to_owned())
            .or_else(|| fallback.clone())
    };
    let openai_key_var = env
        .get(ev::OPENAI_API_KEY_ENV)
        .map(str::to_owned)
        .or(file.openai_api_key_env.clone())
        .unwrap_or_else(|| ev::OPENAI_API_KEY_DEFAULT.to_owned());
    let openai_key = env
        .get(ev::PLUGIN_OPENAI_API_KEY)
        .or_else(|| env.get(&openai_key_var))
        .and_then(ApiKey::new);
    ScorerSettings {
        kind,
        jev_url: string(&[ev::JEV_URL], &file.jev_url),
        jev_model: string(&[ev::PLUGIN_JEV_MODEL, ev::JEV_MODEL], &file.jev_model),
        typesafe_key: env
            .first(&[ev::PLUGIN_TYPESAFE_API_KEY, ev::TYPESAFE_API_KEY])
            .and_then(|(_, v)| ApiKey::new(v)),
        openai_base_url: string(
            &[ev::PLUGIN_OPENAI_BASE_URL, ev::OPENAI_BASE_URL],
            &file.openai_base_url,
        ),
        openai_model: string(
            &[ev::PLUGIN_OPENAI_MODEL, ev::OPENAI_MODEL],
            &file.openai_model,
        ),
        openai_key,
        command,
    }
}

/// The most remote requests a limit may allow (per session or per day), and tokens per day.
pub const REMOTE_MAX_RANGE: (u64, u64) = (0, 1_000_000);
pub const REMOTE_TOKENS_RANGE: (u64, u64) = (0, 1_000_000_000_000);

/// The remote scorers' budget: each limit from its variable, else the user config file, else
/// its default ([`Budget::default`]).
/// `shown` is the user config file's path, for errors.
fn budget_settings(env: &HostEnv, file: &UserFile, shown: &str) -> Result<Budget, ConfigError> {
    let limit =
        |var: &'static str, key: &str, from_file: Option<u64>, range| match env.first(&[var]) {
            Some((name, v)) => env_int(name, v, range).map(Some),
            None => from_file
                .map(|n| in_range(shown, &format!("`{key}`"), n, range))
                .transpose(),
        };
    let default = Budget::default();
    let over = match env.first(&[ev::OVER_BUDGET]) {
        Some((name, v)) => serde_json::from_value(Value::String(v.trim().to_ascii_lowercase()))
            .map_err(|_| {
                env_invalid(
                    name,
                    format!("must be `local` or `skip`, not `{}`", v.trim()),
                )
            })?,
        None => file.over_budget.unwrap_or(default.over),
    };
    Ok(Budget {
        per_session: limit(
            ev::REMOTE_MAX_PER_SESSION,
            "remoteMaxPerSession",
            file.remote_max_per_session,
            REMOTE_MAX_RANGE,
        )?
        .unwrap_or(default.per_session),
        per_day: limit(
            ev::REMOTE_MAX_PER_DAY,
            "remoteMaxPerDay",
            file.remote_max_per_day,
            REMOTE_MAX_RANGE,
        )?
        .unwrap_or(default.per_day),
        tokens_per_day: limit(
            ev::REMOTE_MAX_TOKENS_PER_DAY,
            "remoteMaxTokensPerDay",
            file.remote_max_tokens_per_day,
            REMOTE_TOKENS_RANGE,
        )?
        .or(default.tokens_per_day),
        over,
    })
}

/// A whole number from an environment variable, within `(lo, hi)`.
fn env_int(name: &str, v: &str, (lo, hi): (u64, u64)) -> Result<u64, ConfigError> {
    match v.trim().parse::<u64>() {
        Ok(n) if (lo..=hi).contains(&n) => Ok(n),
        _ => Err(env_invalid(
            name,
            format!(
                "must be a whole number from {lo} to {hi}, not `{}`",
                v.trim()
            ),
        )),
    }
}

fn in_range(file: &str, loc: &str, n: u64, (lo, hi): (u64, u64)) -> Result<u64, ConfigError> {
    if (lo..=hi).contains(&n) {
        Ok(n)
    } else {
        Err(invalid(
            file,
            loc,
            format!("must be a whole number from {lo} to {hi}, not {n}"),
        ))
    }
}

/// The settings a prompt runs with, frozen into its state at UserPromptSubmit.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Frozen {
    pub mode: Mode,
    /// The threshold the repository or the user set; `None`: the scorer's own defaults.
    pub threshold: Option<f64>,
    pub per_axis: Vec<Option<f64>>,
    pub max_diff_bytes: usize,
    pub oversize: Oversize,
    pub exclude: Vec<String>,
    pub untracked_max_bytes: u64,
    pub answer: AnswerForm,
    /// `timeoutMs`: the scorer's time budget the repository asked for, in milliseconds.
    /// (Absent from states written before the key existed.)
    #[serde(default)]
    pub timeout_ms: Option<u64>,
    /// Days a finding already looked at is not raised again (see [`MEMORY_DAYS_RANGE`]).
    #[serde(default = "default_memory_days")]
    pub memory_days: u32,
}

fn default_memory_days() -> u32 {
    DEFAULT_MEMORY_DAYS
}

impl Frozen {
    /// The repository's choices over the user's defaults over the built-in defaults.
    pub fn resolve(repo: &RepoConfig, user: &UserSettings) -> Frozen {
        Frozen {
            mode: repo.mode.or(user.mode).unwrap_or_default(),
            threshold: repo.threshold.or(user.threshold),
            per_axis: AXIS_IDS
                .iter()
                .map(|id| repo.thresholds.get(*id).copied())
                .collect(),
            max_diff_bytes: repo
                .max_diff_bytes
                .map(|b| b as usize)
                .unwrap_or(DEFAULT_MAX_DIFF_BYTES),
            oversize: repo.oversize.unwrap_or_default(),
            exclude: repo.exclude.clone(),
            untracked_max_bytes: repo.untracked_max_bytes.unwrap_or(DEFAULT_UNTRACKED_CAP),
            answer: repo.answer.unwrap_or_default(),
            timeout_ms: repo.timeout_ms,
            memory_days: repo
                .memory_days
                .or(user.memory_days)
                .unwrap_or(DEFAULT_MEMORY_DAYS),
        }
    }

    /// The time the scorer gets: the repository's `timeoutMs` when it set one, never more
    /// than `cap` (the caller's own budget, which keeps the hook inside the host's timeout).
    pub fn scorer_budget(&self, cap: Duration) -> Duration {
        self.timeout_ms
            .map(|ms| Duration::from_millis(ms.clamp(TIMEOUT_MS_RANGE.0, TIMEOUT_MS_RANGE.1)))
            .map_or(cap, |budget| budget.min(cap))
    }

    /// The thresholds that select axes: per axis, the repository's `thresholds` entry, else
    /// the `threshold` the repository or the user set, else the scorer's own default for that
    /// axis (the `local` scorer's are calibrated), else [`DEFAULT_THRESHOLD`].
    pub fn thresholds(&self, scorer_defaults: Option<[f64; AXIS_COUNT]>) -> Thresholds {
        let mut per_axis = [None; AXIS_COUNT];
        for (i, slot) in per_axis.iter_mut().enumerate() {
            let explicit = self.per_axis.get(i).copied().flatten();
            *slot = match (explicit, self.threshold, scorer_defaults) {
                (Some(t), _, _) => Some(t),
                (None, None, Some(defaults)) => Some(defaults[i]),
                _ => None,
            };
        }
        Thresholds {
            default: self.threshold.unwrap_or(DEFAULT_THRESHOLD),
            per_axis,
        }
    }

    /// How a snapshot of this repository is taken: the size cap, and the `exclude` globs a
    /// turn too large to read whole leaves out first.
    pub fn snapshot_options(&self) -> SnapshotOptions {
        SnapshotOptions {
            untracked_cap: self.untracked_max_bytes,
            read_order: crate::pipeline::read_order(&self.exclude),
            ..SnapshotOptions::default()
        }
    }

    pub fn size_policy(&self) -> SizePolicy {
        SizePolicy {
            max_bytes: self.max_diff_bytes,
            oversize: self.oversize,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::PathBuf;

    #[test]
    fn valid_config_parses() {
        let cfg = parse_repo_config(
            br#"{"$schema":"x","mode":"report","threshold":0.5,"thresholds":{"auth_boundary":0.9},
                "maxDiffBytes":2048,"oversize":"skip","exclude":["docs/**"],"untrackedMaxBytes":10,
                "answer":"block"}"#,
        )
        .unwrap();
        assert_eq!(cfg.mode, Some(Mode::Report));
        assert_eq!(cfg.thresholds["auth_boundary"], 0.9);
        assert_eq!(cfg.answer, Some(AnswerForm::Block));
        assert_eq!(parse_repo_config(b" {} ").unwrap(), RepoConfig::default());
    }

    #[test]
    fn each_rule_is_enforced_with_a_location() {
        let cases: &[(&str, &str)] = &[
            (r#"{"mode":"loud"}"#, "`mode`"),
            (r#"{"mode":null}"#, "`mode`"),
            (r#"{"threshold":1.5}"#, "`threshold`"),
            (r#"{"threshold":"0.5"}"#, "`threshold`"),
            (r#"{"threshold":null}"#, "`threshold`"),
            (r#"{"thresholds":{"nope":0.5}}"#, "`thresholds.nope`"),
            (
                r#"{"thresholds":{"lifecycle":-1}}"#,
                "`thresholds.lifecycle`",
            ),
            (r#"{"thresholds":[]}"#, "`thresholds`"),
            (r#"{"maxDiffBytes":10}"#, "`maxDiffBytes`"),
            (r#"{"maxDiffBytes":1.5e4}"#, "`maxDiffBytes`"),
            (r#"{"oversize":"drop"}"#, "`oversize`"),
            (r#"{"exclude":"a"}"#, "`exclude`"),
            (r#"{"exclude":[1]}"#, "`exclude[0]`"),
            (r#"{"exclude":["a[" ]}"#, "`exclude[0]`"),
            (r#"{"untrackedMaxBytes":0}"#, "`untrackedMaxBytes`"),
            (r#"{"answer":"maybe"}"#, "`answer`"),
            (r#"{"memoryDays":31}"#, "`memoryDays`"),
            (r#"{"memoryDays":-1}"#, "`memoryDays`"),
            (r#"{"jevUrl":"http://evil"}"#, "`jevUrl`"),
            (r#"{"command":["sh"]}"#, "`command`"),
            (r#"{"mode":"off"} {}"#, "line 1"),
            (r#"{"mode":"off""#, "line 1"),
            (r#"[]"#, "top level"),
            (r#"{"mode":"off","mode":"assist"}"#, "`mode`"),
        ];
        for (text, loc) in cases {
            let err = parse_repo_config(text.as_bytes()).unwrap_err().to_string();
            assert!(err.contains(loc), "{text}: {err}");
            assert!(err.starts_with(".jev-preflight.json: "), "{err}");
        }
        let err = parse_repo_config(br#"{"url":"x"}"#)
            .unwrap_err()
            .to_string();
        assert!(err.contains("never repository settings"), "{err}");
    }

    /// The configuration the original jev-preflight documents, verbatim.
    const ORIGINAL_EXAMPLE: &str = concat!(
        r#"{"mode": "assist", "riskThreshold": 0.85, "timeoutMs": 2000, "maxDiffBytes": 65536, "#,
        r#""exclude": ["dist/**", "vendor/**"]}"#
    );

    #[test]
    fn the_original_example_config_is_accepted_with_its_meaning() {
        let cfg = parse_repo_config(ORIGINAL_EXAMPLE.as_bytes()).unwrap();
        assert_eq!(cfg.threshold, Some(0.85));
        assert_eq!(cfg.timeout_ms, Some(2000));
        assert_eq!(cfg.max_diff_bytes, Some(65536));
        assert_eq!(cfg.exclude, ["dist/**", "vendor/**"]);
        let frozen = Frozen::resolve(&cfg, &UserSettings::default());
        // `riskThreshold` replaces the scorer's defaults exactly as `threshold` does.
        let t = frozen.thresholds(Some([0.95; AXIS_COUNT]));
        assert_eq!((t.default, t.per_axis), (0.85, [None; AXIS_COUNT]));
        assert_eq!(
            frozen.scorer_budget(Duration::from_secs(20)),
            Duration::from_millis(2000)
        );
        // `riskThreshold` is exactly `threshold`: same value, same strictness.
        for bad in ["1.5", "\"0.5\"", "null", "-0.1"] {
            let err = parse_repo_config(format!(r#"{{"riskThreshold":{bad}}}"#).as_bytes())
                .unwrap_err()
                .to_string();
            assert!(err.contains("`riskThreshold`"), "{bad}: {err}");
        }
        assert_eq!(
            parse_repo_config(br#"{"riskThreshold":0.7}"#).unwrap(),
            parse_repo_config(br#"{"threshold":0.7}"#).unwrap()
        );
    }

    #[test]
    fn threshold_and_risk_threshold_together_are_an_error_naming_both() {
        for text in [
            r#"{"threshold":0.5,"riskThreshold":0.5}"#,
            r#"{"riskThreshold":0.9,"threshold":0.5}"#,
        ] {
            let err = parse_repo_config(text.as_bytes()).unwrap_err().to_string();
            assert!(
                err.contains("`threshold` and `riskThreshold`") && err.contains("keep one"),
                "{err}"
            );
        }
    }

    #[test]
    fn timeout_ms_is_bounded_and_only_ever_shortens_the_budget() {
        let (lo, hi) = TIMEOUT_MS_RANGE;
        assert_eq!(u128::from(hi), crate::hook::SCORER_BUDGET.as_millis());
        for bad in [
            "0", "99", "20001", "2000.5", "\"2000\"", "-1", "null", "1e9",
        ] {
            let err = parse_repo_config(format!(r#"{{"timeoutMs":{bad}}}"#).as_bytes())
                .unwrap_err()
                .to_string();
            assert!(
                err.contains("`timeoutMs`") && err.contains(&format!("from {lo} to {hi}")),
                "{bad}: {err}"
            );
        }
        let budget = |ms: Option<u64>| {
            let repo = RepoConfig {
                timeout_ms: ms,
                ..RepoConfig::default()
            };
            Frozen::resolve(&repo, &UserSettings::default())
        };
        let cap = Duration::from_secs(20);
        assert_eq!(budget(None).scorer_budget(cap), cap);
        assert_eq!(budget(Some(hi)).scorer_budget(cap), cap);
        assert_eq!(
            budget(Some(lo)).scorer_budget(cap),
            Duration::from_millis(lo)
        );
        // A smaller cap (a test's, or a host's) always wins.
        assert_eq!(
            budget(Some(5000)).scorer_budget(Duration::from_secs(1)),
            Duration::from_secs(1)
        );
        // A state written before `timeoutMs` existed still reads.
        let mut old = serde_json::to_value(budget(None)).unwrap();
        old.as_object_mut().unwrap().remove("timeout_ms");
        let read: Frozen = serde_json::from_value(old).unwrap();
        assert_eq!(read.timeout_ms, None);
    }

    #[test]
    fn a_bad_user_setting_names_the_place_that_set_it() {
        let dir = tempfile::tempdir().unwrap();
        let xdg = dir.path().to_str().unwrap();
        let fix = |pairs: &[(&str, &str)]| {
            let e = user_settings(&env(pairs)).unwrap_err();
            (e.to_string(), e.fix(Path::new("/repo/.jev-preflight.json")))
        };
        let (err, fix_text) = fix(&[("JEV_PREFLIGHT_SCORER", "nope")]);
        assert!(
            err.starts_with("environment: JEV_PREFLIGHT_SCORER: "),
            "{err}"
        );
        assert!(
            fix_text.contains("environment variable `JEV_PREFLIGHT_SCORER`"),
            "{fix_text}"
        );
        let (err, fix_text) = fix(&[
            ("CLAUDE_PLUGIN_OPTION_SCORER", "nope"),
            ("JEV_PREFLIGHT_SCORER", "local"),
        ]);
        assert!(err.starts_with("plugin option: `scorer`: "), "{err}");
        assert!(
            fix_text.contains("the plugin's `scorer` option"),
            "{fix_text}"
        );
        assert!(!fix_text.contains("JEV_PREFLIGHT_SCORER"), "{fix_text}");
        let cfg = dir.path().join("jev-preflight/config.json");
        std::fs::create_dir_all(cfg.parent().unwrap()).unwrap();
        std::fs::write(&cfg, r#"{"scorer":"nope"}"#).unwrap();
        let (err, fix_text) = fix(&[("XDG_CONFIG_HOME", xdg)]);
        assert!(err.starts_with(&cfg.display().to_string()), "{err}");
        assert!(
            fix_text.starts_with(&format!("edit the user config file `{}`", cfg.display())),
            "{fix_text}"
        );
        std::fs::write(&cfg, r#"{"threshold":2}"#).unwrap();
        let (err, _) = fix(&[("XDG_CONFIG_HOME", xdg)]);
        assert!(err.starts_with(&cfg.display().to_string()), "{err}");
        let (err, _) = fix(&[("JEV_PREFLIGHT_COMMAND", "[]")]);
        assert!(
            err.starts_with("environment: JEV_PREFLIGHT_COMMAND: "),
            "{err}"
        );
        // The repository file's fix points at its path.
        let e = parse_repo_config(br#"{"mode":"x"}"#).unwrap_err();
        assert!(
            e.fix(Path::new("/repo/.jev-preflight.json"))
                .starts_with("edit `/repo/.jev-preflight.json` at `mode`"),
            "{e}"
        );
    }

    fn env(pairs: &[(&str, &str)]) -> HostEnv {
        HostEnv::from_pairs(pairs.iter().copied())
    }

    #[test]
    fn data_dir_precedence() {
        assert_eq!(
            env(&[("CLAUDE_PLUGIN_DATA", "/d"), ("HOME", "/h")]).data_dir(),
            Some(PathBuf::from("/d"))
        );
        assert_eq!(
            env(&[("XDG_STATE_HOME", "/s"), ("HOME", "/h")]).data_dir(),
            Some(PathBuf::from("/s/jev-preflight"))
        );
        assert_eq!(
            env(&[("CLAUDE_PLUGIN_DATA", ""), ("HOME", "/h")]).data_dir(),
            Some(PathBuf::from("/h/.local/state/jev-preflight"))
        );
        assert_eq!(env(&[]).data_dir(), None);
    }

    #[test]
    fn user_settings_precedence_and_keys() {
        let dir = tempfile::tempdir().unwrap();
        let cfg = dir.path().join("jev-preflight");
        std::fs::create_dir_all(&cfg).unwrap();
        std::fs::write(
            cfg.join("config.json"),
            concat!(
                r#"{"scorer":"openai","openaiBaseUrl":"http://127.0.0.1:1/v1","#,
                r#""openaiApiKeyEnv":"MY_KEY","jevModel":"m1"}"#
            ),
        )
        .unwrap();
        let xdg = dir.path().to_str().unwrap();
        let s = user_settings(&env(&[
            ("XDG_CONFIG_HOME", xdg),
            ("MY_KEY", "sk-abc"),
            ("JEV_PREFLIGHT_JEV_MODEL", "m2"),
            ("CLAUDE_PLUGIN_OPTION_TYPESAFE_API_KEY", "ts-1"),
            ("TYPESAFE_API_KEY", "ts-2"),
        ]))
        .unwrap();
        assert_eq!(s.scorer.kind, ScorerKind::OpenAi);
        assert_eq!(s.scorer.openai_key.unwrap().expose(), "sk-abc");
        assert_eq!(s.scorer.jev_model.as_deref(), Some("m2"));
        assert_eq!(s.scorer.typesafe_key.unwrap().expose(), "ts-1");

        let s = user_settings(&env(&[
            ("XDG_CONFIG_HOME", xdg),
            ("CLAUDE_PLUGIN_OPTION_SCORER", "Local"),
            ("JEV_PREFLIGHT_COMMAND", r#"["codex","exec"]"#),
        ]))
        .unwrap();
        assert_eq!(s.scorer.kind, ScorerKind::Local);
        assert_eq!(s.scorer.command.unwrap(), ["codex", "exec"]);

        std::fs::write(cfg.join("config.json"), r#"{"scorer":null}"#).unwrap();
        let err = user_settings(&env(&[("XDG_CONFIG_HOME", xdg)])).unwrap_err();
        assert!(
            err.to_string().contains("`scorer`: must not be null"),
            "{err}"
        );
        std::fs::write(cfg.join("config.json"), r#"{"scorer":"jev","bogus":1}"#).unwrap();
        let err = user_settings(&env(&[("XDG_CONFIG_HOME", xdg)])).unwrap_err();
        assert!(err.to_string().contains("bogus"), "{err}");
        assert!(user_settings(&env(&[("JEV_PREFLIGHT_SCORER", "nope")])).is_err());
        assert!(user_settings(&env(&[("JEV_PREFLIGHT_THRESHOLD", "2")])).is_err());
    }

    #[test]
    fn memory_days_come_from_the_repository_the_user_or_the_default() {
        let user = UserSettings {
            memory_days: Some(2),
            ..UserSettings::default()
        };
        let repo = parse_repo_config(br#"{"memoryDays":0}"#).unwrap();
        assert_eq!(Frozen::resolve(&repo, &user).memory_days, 0);
        assert_eq!(
            Frozen::resolve(&RepoConfig::default(), &user).memory_days,
            2
        );
        let none = UserSettings::default();
        assert_eq!(
            Frozen::resolve(&RepoConfig::default(), &none).memory_days,
            DEFAULT_MEMORY_DAYS
        );
        // A state written before the key existed reads with the default.
        let mut v = serde_json::to_value(Frozen::resolve(&repo, &user)).unwrap();
        v.as_object_mut().unwrap().remove("memory_days");
        let old: Frozen = serde_json::from_value(v).unwrap();
        assert_eq!(old.memory_days, DEFAULT_MEMORY_DAYS);
    }

    #[test]
    fn budget_and_memory_settings_are_user_level() {
        let dir = tempfile::tempdir().unwrap();
        let cfg = dir.path().join("jev-preflight");
        std::fs::create_dir_all(&cfg).unwrap();
        std::fs::write(
            cfg.join("config.json"),
            concat!(
                r#"{"memoryDays":3,"remoteMaxPerSession":5,"remoteMaxPerDay":9,"#,
                r#""remoteMaxTokensPerDay":1000,"overBudget":"skip"}"#
            ),
        )
        .unwrap();
        let xdg = dir.path().to_str().unwrap();
        let s = user_settings(&env(&[("XDG_CONFIG_HOME", xdg)])).unwrap();
        assert_eq!(s.memory_days, Some(3));
        assert_eq!(
            s.budget,
            Budget {
                per_session: 5,
                per_day: 9,
                tokens_per_day: Some(1000),
                over: OverBudget::Skip
            }
        );
        // The environment wins over the file.
        let s = user_settings(&env(&[
            ("XDG_CONFIG_HOME", xdg),
            ("JEV_PREFLIGHT_REMOTE_MAX_PER_DAY", "0"),
            ("JEV_PREFLIGHT_OVER_BUDGET", "Local"),
            ("JEV_PREFLIGHT_MEMORY_DAYS", "30"),
        ]))
        .unwrap();
        assert_eq!((s.budget.per_day, s.budget.over), (0, OverBudget::Local));
        assert_eq!(s.memory_days, Some(30));
        // Defaults without either.
        let s = user_settings(&env(&[])).unwrap();
        assert_eq!(s.budget, Budget::default());
        assert_eq!(s.memory_days, None);
        for (var, value) in [
            ("JEV_PREFLIGHT_REMOTE_MAX_PER_SESSION", "-1"),
            ("JEV_PREFLIGHT_REMOTE_MAX_PER_DAY", "lots"),
            ("JEV_PREFLIGHT_REMOTE_MAX_TOKENS_PER_DAY", "1e3"),
            ("JEV_PREFLIGHT_OVER_BUDGET", "wait"),
            ("JEV_PREFLIGHT_MEMORY_DAYS", "31"),
        ] {
            let err = user_settings(&env(&[(var, value)]))
                .unwrap_err()
                .to_string();
            assert!(err.contains(var), "{var}: {err}");
        }
        // A repository cannot set a budget: those keys are unknown there.
        let err = parse_repo_config(br#"{"remoteMaxPerDay":1}"#).unwrap_err();
        assert!(err.to_string().contains("unknown key"), "{err}");
    }

    #[test]
    fn the_starter_config_of_init_parses() {
        let cfg = parse_repo_config(crate::cmd::init::starter_config().as_bytes()).unwrap();
        assert_eq!(cfg.mode, Some(Mode::Assist));
    }

    #[test]
    fn frozen_resolution() {
        let repo = parse_repo_config(br#"{"thresholds":{"lifecycle":0.3}}"#).unwrap();
        let user = UserSettings {
            mode: Some(Mode::Report),
            threshold: Some(0.6),
            ..UserSettings::default()
        };
        let f = Frozen::resolve(&repo, &user);
        assert_eq!(f.mode, Mode::Report);
        assert_eq!(f.thresholds(None).default, 0.6);
        assert_eq!(f.thresholds(None).per_axis[6], Some(0.3));
        // An explicit threshold wins over a scorer's defaults; per-axis entries over both.
        let t = f.thresholds(Some([0.4; AXIS_COUNT]));
        assert_eq!(
            (t.default, t.per_axis[0], t.per_axis[6]),
            (0.6, None, Some(0.3))
        );
        let unset = Frozen::resolve(&repo, &UserSettings::default());
        let t = unset.thresholds(Some([0.4; AXIS_COUNT]));
        assert_eq!((t.per_axis[0], t.per_axis[6]), (Some(0.4), Some(0.3)));
        assert_eq!(unset.thresholds(None).per_axis[0], None);
        assert_eq!(unset.thresholds(None).default, DEFAULT_THRESHOLD);
        let f = Frozen::resolve(&parse_repo_config(br#"{"mode":"assist"}"#).unwrap(), &user);
        assert_eq!(f.mode, Mode::Assist);
    }
}
