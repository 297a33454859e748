//! `jev-preflight doctor`: checks what the hook depends on — git, the repository, both
//! configuration files, the scorer that would run and why, the key (present or not, never
//! shown), the host CLIs, the data dir and stale state — and says how to fix each problem.
//!
//! One function per check. The configuration, scorer and data dir checks run the code the
//! hook runs (the same parsers, the same scorer builder, the same store opening), and a failed
//! one leads with the failure class the hook would report: whenever the hook would fail open
//! for one of these reasons, doctor names the same cause.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, SystemTime};

use crate::cmd::install::{self, InstallError};
use crate::config::{self, HostEnv};
use crate::env::vars as ev;
use crate::git::{self, Discovery, Git, Repo};
use crate::hook::{self, failure::Class, failure::Failure};
use crate::host::{Host, Scope};
use crate::process::{self, Limits};
use crate::scorer::threshold;
use crate::scorer::{self, ScorerKind};
use crate::state::STALE_PROMPT_AGE;

/// Oldest git the snapshot engine supports (`rev-parse --path-format=absolute`).
pub const MIN_GIT: (u32, u32) = (2, 31);
/// Deadline for asking a host CLI its version.
pub const HOST_DEADLINE: Duration = Duration::from_secs(5);

/// How a check came out.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Level {
    Ok,
    Note,
    Fail,
}

/// One check.
#[derive(Debug, Clone)]
pub struct Check {
    pub name: &'static str,
    pub level: Level,
    pub detail: String,
    pub fix: Option<String>,
}

fn check(name: &'static str, level: Level, detail: impl Into<String>) -> Check {
    Check {
        name,
        level,
        detail: detail.into(),
        fix: None,
    }
}

impl Check {
    fn fix(mut self, fix: impl Into<String>) -> Check {
        self.fix = Some(fix.into());
        self
    }
}

/// Parses `git version 2.47.3` (and vendor suffixes) into (major, minor).
pub fn parse_git_version(text: &str) -> Option<(u32, u32)> {
    let v = text.trim().strip_prefix("git version ")?;
    let mut parts = v.split(|c: char| !c.is_ascii_digit());
    Some((parts.next()?.parse().ok()?, parts.next()?.parse().ok()?))
}

/// Runs every check from `cwd`. The configuration and data dir checks call the functions the
/// hook calls at UserPromptSubmit and Stop, and a failing one names the failure class the
/// hook would report, so that "no problems found" means the hook will not fail open for a
/// store or configuration reason.
pub fn run(env: &HostEnv, cwd: &Path) -> Vec<Check> {
    let git = Git::default().with_deadline(Duration::from_secs(10));
    let mut checks = vec![git_check(&git, cwd)];
    let (repository, repo) = repository_check(&git, cwd);
    checks.push(repository);
    if let Some(repo) = &repo {
        checks.push(repo_config_check(repo));
    }
    let (user_check, user) = user_config_check(env);
    checks.push(user_check);
    checks.push(key_check(env));
    if let Some(user) = &user {
        checks.push(scorer_check(env, user));
    }
    // host CLIs and where our hooks are registered
    let project = repo.as_ref().map_or(cwd, |repo| repo.top.as_path());
    checks.extend(host_checks(env, project));
    checks.extend(data_dir_checks(env, repo.as_ref()));
    checks
}

/// A check that failed the way the hook fails: the detail starts with the failure class the
/// hook reports for the same cause.
fn hook_failure(name: &'static str, failure: &Failure) -> Check {
    check(
        name,
        Level::Fail,
        format!("{}: {}", failure.class, failure.detail),
    )
}

fn git_check(git: &Git, cwd: &Path) -> Check {
    match git.run_args(cwd, ["--version"]) {
        Ok(out) => {
            let text = String::from_utf8_lossy(&out).trim().to_owned();
            match parse_git_version(&text) {
                Some(v) if v >= MIN_GIT => check("git", Level::Ok, text),
                _ => check(
                    "git",
                    Level::Fail,
                    format!("{text} is older than {}.{}", MIN_GIT.0, MIN_GIT.1),
                )
                .fix("install git 2.31 or newer"),
            }
        }
        Err(e) => {
            hook_failure("git", &Failure::from(e)).fix("install git and make sure it is on PATH")
        }
    }
}

fn repository_check(git: &Git, cwd: &Path) -> (Check, Option<Repo>) {
    match git::discover(git, cwd) {
        Ok(Discovery::Found(repo)) => {
            let head = git
                .run_args(&repo.top, ["rev-parse", "--verify", "--quiet", "HEAD"])
                .is_ok();
            let detail = format!(
                "{} ({:?}{})",
                repo.top.display(),
                repo.format,
                if head { "" } else { ", no commits yet" }
            )
            .replace("Sha1", "sha1")
            .replace("Sha256", "sha256");
            (check("repository", Level::Ok, detail), Some(repo))
        }
        Ok(Discovery::NotARepo) => (
            check(
                "repository",
                Level::Note,
                format!(
                    "`{}` is not inside a git repository; the hook does nothing here",
                    cwd.display()
                ),
            )
            .fix("run `jev-preflight doctor` inside the repository you want checked"),
            None,
        ),
        Ok(Discovery::Bare) => (
            check(
                "repository",
                Level::Note,
                "a bare repository: the hook does nothing here",
            ),
            None,
        ),
        Err(e) => (
            hook_failure("repository", &Failure::from(e))
                .fix("check the repository with `git status`"),
            None,
        ),
    }
}

/// The repository's `.jev-preflight.json`, read and validated as UserPromptSubmit does, with
/// the settings it puts in force.
fn repo_config_check(repo: &Repo) -> Check {
    let path = repo.top.join(config::REPO_CONFIG_FILE);
    match config::read_repo_config(&repo.top) {
        Ok((_, None)) => check(
            "repo config",
            Level::Ok,
            format!("no `{}`; defaults apply", config::REPO_CONFIG_FILE),
        )
        .fix("`jev-preflight init` writes a starter file"),
        Ok((cfg, Some(_))) => check(
            "repo config",
            Level::Ok,
            format!("`{}` is valid{}", path.display(), in_force(&cfg)),
        ),
        Err(e) => {
            let fix = e.fix(&path);
            hook_failure("repo config", &Failure::repo_config(e)).fix(fix)
        }
    }
}

/// What a valid repository config changes, in short: `; mode report, threshold 0.85, …`.
fn in_force(cfg: &config::RepoConfig) -> String {
    let mut parts = Vec::new();
    if let Some(mode) = cfg.mode {
        parts.push(format!("mode {}", format!("{mode:?}").to_ascii_lowercase()));
    }
    if let Some(t) = cfg.threshold {
        parts.push(format!("threshold {}", threshold::shown(t)));
    }
    if !cfg.thresholds.is_empty() {
        parts.push(format!("{} per-axis threshold(s)", cfg.thresholds.len()));
    }
    if let Some(ms) = cfg.timeout_ms {
        parts.push(format!("scorer budget {ms} ms (`timeoutMs`)"));
    }
    if let Some(bytes) = cfg.max_diff_bytes {
        parts.push(format!("maxDiffBytes {bytes}"));
    }
    if !cfg.exclude.is_empty() {
        parts.push(format!("{} exclude glob(s)", cfg.exclude.len()));
    }
    if parts.is_empty() {
        String::new()
    } else {
        format!("; {}", parts.join(", "))
    }
}

/// The user-level settings, built as the hook builds them (environment, plugin options, the
/// user config file); a bad value is reported with the place that set it.
fn user_config_check(env: &HostEnv) -> (Check, Option<config::UserSettings>) {
    let user_path = env.user_config_path();
    match config::user_settings(env) {
        Ok(user) => {
            let detail = match &user_path {
                Some(p) if p.exists() => format!("`{}` is valid", p.display()),
                Some(p) => format!("no `{}`; environment and defaults apply", p.display()),
                None => "no user config path (HOME is not set)".into(),
            };
            (check("user config", Level::Ok, detail), Some(user))
        }
        Err(e) => {
            let fix = e.fix(Path::new(config::REPO_CONFIG_FILE));
            (
                hook_failure("user config", &Failure::user_config(e)).fix(fix),
                None,
            )
        }
    }
}

fn key_check(env: &HostEnv) -> Check {
    let key_source = [ev::PLUGIN_TYPESAFE_API_KEY, ev::TYPESAFE_API_KEY]
        .into_iter()
        .find(|name| env.get(name).is_some());
    match key_source {
        Some(name) => check(
            "TypeSafe key",
            Level::Ok,
            format!("set (from `{name}`; never shown)"),
        ),
        None => check(
            "TypeSafe key",
            Level::Note,
            "not set; the built-in `local` scorer runs offline",
        )
        .fix(
            "set `TYPESAFE_API_KEY` (or the plugin's `typesafe_api_key` option) to use the Jev API",
        ),
    }
}

/// The scorer the Stop would build, built the same way, and why it is the one.
fn scorer_check(env: &HostEnv, user: &config::UserSettings) -> Check {
    let settings = &user.scorer;
    let chosen_by = [ev::PLUGIN_SCORER, ev::SCORER]
        .into_iter()
        .find(|name| env.get(name).is_some())
        .map(|n| format!("`{n}`"))
        .unwrap_or_else(|| match settings.kind {
            ScorerKind::Auto => "the default `auto`".into(),
            _ => "the user config file".into(),
        });
    let resolved = settings.kind.resolve(settings);
    let why = match (settings.kind, resolved) {
        (ScorerKind::Auto, ScorerKind::Jev) => "auto → jev: a TypeSafe key is set".to_owned(),
        (ScorerKind::Auto, _) => {
            "auto → local: no TypeSafe key is set; nothing leaves the machine".to_owned()
        }
        (_, kind) => format!(
            "{} chosen by {chosen_by}",
            crate::cmd::eval::kind_name(kind)
        ),
    };
    match scorer::build(settings) {
        Ok(s) => {
            let dest = match resolved {
                ScorerKind::Jev => format!(
                    ", sends to {}",
                    settings
                        .jev_url
                        .as_deref()
                        .unwrap_or(scorer::jev::DEFAULT_URL)
                ),
                ScorerKind::OpenAi => format!(
                    ", sends to {}",
                    settings.openai_base_url.as_deref().unwrap_or("?")
                ),
                ScorerKind::Command => format!(
                    ", runs `{}`",
                    settings
                        .command
                        .as_ref()
                        .and_then(|c| c.first())
                        .map(String::as_str)
                        .unwrap_or("?")
                ),
                _ => String::new(),
            };
            check("scorer", Level::Ok, format!("{} ({why}{dest})", s.name()))
        }
        Err(e) => {
            let fix = match e {
                scorer::ScoreError::MissingKey { .. } => {
                    "set the scorer's key, or set `JEV_PREFLIGHT_SCORER=local`".to_owned()
                }
                _ => "fix the scorer settings in the user config file or the \
                    `JEV_PREFLIGHT_*` variables"
                    .to_owned(),
            };
            let failure = Failure::from(e);
            check(
                "scorer",
                Level::Fail,
                format!(
                    "{}: {why}, but it cannot be built: {}",
                    failure.class, failure.detail
                ),
            )
            .fix(fix)
        }
    }
}

/// One line per agent host: its command line's version (or that it is not on PATH) and where
/// `install` registered our hooks for it, in this project (`project`: the repository's top
/// level, else `cwd`) and for this user.
fn host_checks(env: &HostEnv, project: &Path) -> Vec<Check> {
    crate::host::ALL
        .into_iter()
        .map(|host| {
            let version = host.program().and_then(host_version);
            let mut scopes = vec![(
                "in this project",
                Scope::Project {
                    root: project.to_owned(),
                },
            )];
            if let Some(home) = env.get(ev::HOME) {
                let scope = Scope::User {
                    home: PathBuf::from(home),
                    config_dir: host.user_dir(env),
                };
                scopes.push(("for this user", scope));
            }
            let hooks = scopes
                .into_iter()
                .map(|(place, scope)| {
                    let path = host.settings_path(&scope);
                    let state = install::installed(host.hook_file(&scope), &path);
                    (place, path, state)
                })
                .collect::<Vec<_>>();
            host_check(host, version, &hooks)
        })
        .collect()
}

/// The line for `host`: its CLI's `version` (when found) and, per place, whether our hooks are
/// in the file `install` writes there.
fn host_check(
    host: Host,
    version: Option<String>,
    hooks: &[(&str, PathBuf, Result<bool, InstallError>)],
) -> Check {
    let program = host.program().unwrap_or(host.id());
    let mut detail = version
        .clone()
        .unwrap_or_else(|| format!("`{program}` not on PATH"));
    let installed: Vec<String> = hooks
        .iter()
        .filter(|(_, _, state)| matches!(state, Ok(true)))
        .map(|(place, path, _)| format!("{place} (`{}`)", path.display()))
        .collect();
    if installed.is_empty() {
        let _ = write!(detail, "; hooks not installed");
    } else {
        let _ = write!(detail, "; hooks installed {}", installed.join(" and "));
    }
    let unreadable: Vec<&InstallError> = hooks
        .iter()
        .filter_map(|(_, _, state)| state.as_ref().err())
        .collect();
    if let Some(first) = unreadable.first() {
        for e in &unreadable {
            let _ = match e {
                InstallError::Settings { path, source } => {
                    write!(detail, "; cannot tell from `{}`: {source}", path.display())
                }
                other => write!(detail, "; {other}"),
            };
        }
        let fix = first.hint().unwrap_or_else(|| "fix that file".to_owned());
        return check(host.name(), Level::Note, detail).fix(fix);
    }
    match version {
        Some(_) => check(host.name(), Level::Ok, detail),
        // Fine for every host but the ones in use: no fix to offer.
        None if installed.is_empty() => check(host.name(), Level::Note, detail),
        None => check(host.name(), Level::Note, detail).fix(format!(
            "install {} or put `{program}` on PATH; `{}` removes the hooks",
            host.name(),
            host.command("uninstall")
        )),
    }
}

/// `<program> --version` with a short deadline; `None` when it is not there or fails.
fn host_version(program: &str) -> Option<String> {
    let mut cmd = Command::new(program);
    cmd.arg("--version");
    let out = process::run(cmd, None, Limits::new(HOST_DEADLINE, 4096)).ok()?;
    let text = String::from_utf8_lossy(&out.stdout).trim().to_owned();
    (!text.is_empty()).then(|| text.lines().next().unwrap_or_default().to_owned())
}

/// Size in bytes and file count under `dir`, never following symlinks.
fn tree_size(dir: &Path) -> (u64, u64) {
    let mut bytes = 0;
    let mut files = 0;
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        let Ok(rd) = std::fs::read_dir(&d) else {
            continue;
        };
        for e in rd.flatten() {
            let Ok(meta) = std::fs::symlink_metadata(e.path()) else {
                continue;
            };
            if meta.is_dir() {
                stack.push(e.path());
            } else {
                bytes += meta.len();
                files += 1;
            }
        }
    }
    (bytes, files)
}

fn human(bytes: u64) -> String {
    match bytes {
        0..1024 => format!("{bytes} B"),
        1024..1_048_576 => format!("{:.1} KiB", bytes as f64 / 1024.0),
        _ => format!("{:.1} MiB", bytes as f64 / 1_048_576.0),
    }
}

/// Which variable chose the data dir, for messages.
fn data_dir_origin(env: &HostEnv) -> &'static str {
    if env.get(ev::CLAUDE_PLUGIN_DATA).is_some() {
        ev::CLAUDE_PLUGIN_DATA
    } else if env
        .get(ev::XDG_STATE_HOME)
        .is_some_and(|d| Path::new(d).is_absolute())
    {
        ev::XDG_STATE_HOME
    } else {
        ev::HOME
    }
}

/// The data dir, opened exactly as UserPromptSubmit opens it ([`hook::open_store`]: created
/// when missing, as the first prompt would, and proved to be a private directory of ours),
/// with this repository's tree cache under it; then its size and stale state.
fn data_dir_checks(env: &HostEnv, repo: Option<&Repo>) -> Vec<Check> {
    let origin = data_dir_origin(env);
    let shown = env
        .data_dir()
        .map(|d| d.display().to_string())
        .unwrap_or_default();
    let failed = |failure: Failure| {
        let fix = match failure.class {
            Class::StoreForeign => {
                format!("point `{origin}` at another directory, or empty `{shown}`")
            }
            Class::StoreUnsafe => format!(
                "jev-preflight keeps its state only in a private directory of yours: move away \
                    what is in the way, or point `{origin}` at another directory"
            ),
            _ if shown.is_empty() => "set `HOME`".to_owned(),
            _ => format!(
                "make sure you can create and write `{shown}` (no file in its path, a writable \
                    disk), or point `{origin}` at another directory"
            ),
        };
        vec![hook_failure("data dir", &failure).fix(fix)]
    };
    let store = match hook::open_store(env) {
        Ok(store) => store,
        Err(failure) => return failed(failure),
    };
    if let Some(repo) = repo
        && let Err(e) = store.repo_cache(&repo.common_dir)
    {
        return failed(Failure::from(e));
    }
    let dir = store.root();
    let (bytes, files) = tree_size(dir);
    let mut out = vec![check(
        "data dir",
        Level::Ok,
        format!(
            "{} (from `{origin}`; {}, {files} files)",
            dir.display(),
            human(bytes)
        ),
    )];
    out.push(stale_check(dir, env.now));
    out
}

/// Prompt dirs older than the sweep age: sessions that never stopped.
fn stale_check(dir: &Path, now: SystemTime) -> Check {
    let mut stale: Vec<PathBuf> = Vec::new();
    if let Ok(sessions) = std::fs::read_dir(dir.join("sessions")) {
        for s in sessions.flatten() {
            if let Ok(prompts) = std::fs::read_dir(s.path().join("prompts")) {
                for p in prompts.flatten() {
                    let old = std::fs::symlink_metadata(p.path())
                        .and_then(|m| m.modified())
                        .map(|t| now.duration_since(t).unwrap_or_default() > STALE_PROMPT_AGE)
                        .unwrap_or(false);
                    if old && p.path().join("snap").exists() {
                        stale.push(p.path());
                    }
                }
            }
        }
    }
    if stale.is_empty() {
        check("stale state", Level::Ok, "none")
    } else {
        let hours = STALE_PROMPT_AGE.as_secs() / 3600;
        check(
            "stale state",
            Level::Note,
            format!(
                "{} prompt dir(s) with snapshot content older than {hours} h (sessions that \
                    never stopped)",
                stale.len()
            ),
        )
        .fix(format!(
            "the next prompt sweeps them; or remove `{}` when no session is running",
            dir.join("sessions").display()
        ))
    }
}

/// The readable report.
pub fn render(checks: &[Check]) -> String {
    let mut t = String::from("jev-preflight doctor\n");
    for c in checks {
        let mark = match c.level {
            Level::Ok => "ok  ",
            Level::Note => "note",
            Level::Fail => "FAIL",
        };
        let _ = writeln!(t, "  {mark}  {:<13} {}", c.name, c.detail);
        if let Some(fix) = &c.fix
            && c.level != Level::Ok
        {
            let _ = writeln!(t, "        {:<13} fix: {fix}", "");
        }
    }
    let failed = checks.iter().filter(|c| c.level == Level::Fail).count();
    if failed == 0 {
        let _ = writeln!(t, "\nno problems found");
    } else {
        let _ = writeln!(t, "\n{failed} problem(s) found");
    }
    t
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn git_versions() {
        assert_eq!(parse_git_version("git version 2.47.3\n"), Some((2, 47)));
        assert_eq!(
            parse_git_version("git version 2.39.5 (Apple Git-154)"),
            Some((2, 39))
        );
        assert_eq!(
            parse_git_version("git version 2.45.1.windows.1"),
            Some((2, 45))
        );
        assert_eq!(parse_git_version("nope"), None);
        assert!((2, 30) < MIN_GIT && (2, 31) >= MIN_GIT && (3, 0) > MIN_GIT);
    }

    fn hooks(
        project: bool,
        user: bool,
    ) -> Vec<(&'static str, PathBuf, Result<bool, InstallError>)> {
        vec![
            (
                "in this project",
                PathBuf::from("/p/.qwen/settings.json"),
                Ok(project),
            ),
            (
                "for this user",
                PathBuf::from("/h/.qwen/settings.json"),
                Ok(user),
            ),
        ]
    }

    #[test]
    fn a_host_line_says_its_version_and_where_the_hooks_are() {
        let c = host_check(Host::Qwen, Some("0.24.4".into()), &hooks(true, false));
        assert_eq!((c.name, c.level), ("Qwen Code", Level::Ok));
        assert_eq!(
            c.detail,
            "0.24.4; hooks installed in this project (`/p/.qwen/settings.json`)"
        );
        let c = host_check(Host::Qwen, Some("0.24.4".into()), &hooks(true, true));
        assert!(c.detail.ends_with(
            "in this project (`/p/.qwen/settings.json`) and for this user \
                (`/h/.qwen/settings.json`)"
        ));

        // Not on PATH: a note, fine when the host is not used, a hint when hooks are there.
        let c = host_check(Host::Qwen, None, &hooks(false, false));
        assert_eq!(c.level, Level::Note);
        assert_eq!(c.detail, "`qwen` not on PATH; hooks not installed");
        assert_eq!(c.fix, None);
        let c = host_check(Host::ClaudeCode, None, &hooks(false, true));
        assert_eq!(c.level, Level::Note);
        assert!(
            c.fix
                .unwrap()
                .contains("`jev-preflight uninstall` removes the hooks")
        );
        let c = host_check(Host::Qwen, None, &hooks(false, true));
        assert!(
            c.fix
                .unwrap()
                .contains("`jev-preflight uninstall --qwen` removes the hooks")
        );

        // A file that cannot be read says so, with the next step; never a failure.
        let unreadable = vec![(
            "in this project",
            PathBuf::from("/p/.qwen/settings.json"),
            Err(InstallError::Settings {
                path: PathBuf::from("/p/.qwen/settings.json"),
                source: install::EditError::NotUtf8,
            }),
        )];
        let c = host_check(Host::Qwen, Some("0.24.4".into()), &unreadable);
        assert_eq!(c.level, Level::Note);
        assert!(
            c.detail
                .contains("hooks not installed; cannot tell from `/p/.qwen/settings.json`"),
            "{}",
            c.detail
        );
        assert!(c.fix.unwrap().contains("valid JSON"));
    }
}
