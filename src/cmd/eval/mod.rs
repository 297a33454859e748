//! `jev-preflight eval`: score a change on demand — the working tree against a commit, a
//! revision range, or a patch file — through the same selection, redaction, payload,
//! scorers and axis selection as the hook ([`crate::pipeline`]).
//!
//! Sources:
//! - no argument: the working tree (staged, unstaged and untracked, as git ignores decide)
//!   against `HEAD`; a single revision `R`: the working tree against `R`, like `git diff R`.
//!   The working tree is read through a private snapshot in a temp dir that is removed
//!   afterwards; nothing is written to the repository.
//! - `A..B`: the tree of `A` against the tree of `B`; `A...B`: the merge base of `A` and `B`
//!   against `B` (what a pull request from `B` into `A` changes). An empty side is `HEAD`.
//!   Both read the repository's own objects with read-only git.
//! - `--patch <file>` or `--patch -` (stdin): a unified diff; no repository needed. When the
//!   current directory is inside a repository, its `.jev-preflight.json` and attributes apply.

pub mod render;

use std::io::Read;
use std::path::{Path, PathBuf};
use std::time::Duration;

use crate::config::{self, ConfigError, Frozen, HostEnv};
use crate::fs::{FsError, PrivateTempDir, read_capped};
use crate::git::attributes::Attributes;
use crate::git::diff::{self, Change};
use crate::git::snapshot::{self, PrivateStore, Snapshot};
use crate::git::{self, Discovery, Git, GitError, Repo};
use crate::pipeline::Stages;
use crate::pipeline::axes::{self, AXIS_COUNT, AXIS_IDS, Thresholds};
use crate::pipeline::payload::{Outcome, Payload, SkipReason};
use crate::pipeline::select::SelectError;
use crate::scorer::threshold::{self, SetBy};
use crate::scorer::{self, ScoreError, ScorerKind, ScorerSettings};

/// Time a scorer may take for one `eval` (a repository's `timeoutMs` shortens it).
pub const SCORER_BUDGET: Duration = Duration::from_secs(60);
/// Deadline of one git call.
pub const GIT_DEADLINE: Duration = Duration::from_secs(60);
/// Largest patch read from a file or stdin.
pub const MAX_PATCH_BYTES: u64 = 64 * 1024 * 1024;

/// What to score.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Source {
    /// The working tree against a revision (`HEAD` by default).
    WorkingTree { base: String },
    /// Two revisions; `merge_base`: `A...B`, the merge base of both against `B`.
    Range {
        base: String,
        head: String,
        merge_base: bool,
    },
    /// A unified diff from a file, or stdin when `None`.
    Patch(Option<PathBuf>),
}

impl Source {
    /// Reads the positional argument and `--patch`.
    pub fn from_args(range: Option<&str>, patch: Option<&Path>) -> Source {
        if let Some(p) = patch {
            return Source::Patch((p != Path::new("-")).then(|| p.to_owned()));
        }
        let Some(range) = range else {
            return Source::WorkingTree {
                base: "HEAD".into(),
            };
        };
        let side = |s: &str| if s.is_empty() { "HEAD" } else { s }.to_owned();
        if let Some((a, b)) = range.split_once("...") {
            Source::Range {
                base: side(a),
                head: side(b),
                merge_base: true,
            }
        } else if let Some((a, b)) = range.split_once("..") {
            Source::Range {
                base: side(a),
                head: side(b),
                merge_base: false,
            }
        } else {
            Source::WorkingTree {
                base: range.to_owned(),
            }
        }
    }

    /// How the source is named in output.
    pub fn describe(&self) -> String {
        match self {
            Source::WorkingTree { base } => format!("working tree vs {base}"),
            Source::Range {
                base,
                head,
                merge_base: true,
            } => format!("{base}...{head}"),
            Source::Range { base, head, .. } => format!("{base}..{head}"),
            Source::Patch(Some(p)) => format!("patch {}", p.display()),
            Source::Patch(None) => "patch from stdin".into(),
        }
    }
}

/// What `eval` was asked to do.
#[derive(Debug, Clone)]
pub struct Request {
    pub source: Source,
    /// Overrides the user's scorer choice.
    pub scorer: Option<ScorerKind>,
    /// Build the payload, send nothing.
    pub dry_run: bool,
    /// Exit 1 when any axis scores at or above this.
    pub fail_on: Option<f64>,
}

/// Why `eval` could not produce a result.
#[derive(Debug, thiserror::Error)]
pub enum EvalError {
    #[error("`{}` is not inside a git repository", .0.display())]
    NotARepo(PathBuf),
    #[error("`{}` is a bare repository: it has no working tree to score", .0.display())]
    Bare(PathBuf),
    #[error("this repository has no commits yet, so there is no `HEAD` to compare with")]
    NoCommits,
    #[error("unknown revision `{0}`")]
    BadRevision(String),
    #[error("no merge base between `{0}` and `{1}`")]
    NoMergeBase(String, String),
    #[error("could not read the patch {what}: {source}")]
    PatchRead {
        what: String,
        source: std::io::Error,
    },
    #[error("the patch {what} is larger than {MAX_PATCH_BYTES} bytes")]
    PatchTooLarge { what: String },
    #[error("the patch {what} is not a diff: {source}")]
    NotADiff {
        what: String,
        source: crate::git::diff::patch::PatchError,
    },
    #[error("invalid configuration: {0}")]
    Config(#[from] ConfigError),
    #[error("invalid `exclude` glob `{}`: {}", .0.glob, .0.detail)]
    Exclude(SelectError),
    #[error("git failed: {0}")]
    Git(#[from] GitError),
    #[error("the `{scorer}` scorer failed: {source}")]
    Score {
        scorer: &'static str,
        source: ScoreError,
    },
    #[error("could not prepare a private snapshot dir: {0}")]
    Temp(#[from] FsError),
}

impl EvalError {
    /// The next step for the user, printed on a `hint:` line.
    pub fn hint(&self) -> Option<String> {
        Some(match self {
            EvalError::NotARepo(_) => "run `jev-preflight eval` inside a repository, or score a \
                diff with `jev-preflight eval --patch <file>` (`-` reads stdin)"
                .into(),
            EvalError::Bare(_) => "run it in a clone with a working tree, or pass a range such as \
                `main...HEAD`"
                .into(),
            EvalError::NoCommits => "commit once (`git commit`), or score a diff with \
                `jev-preflight eval --patch <file>`"
                .into(),
            EvalError::BadRevision(rev) => format!(
                "check the name with `git rev-parse --verify \
                {rev}`; ranges look like `main...HEAD` or `HEAD~3..HEAD`"
            ),
            EvalError::NoMergeBase(..) => "use a two-dot range `A..B` to compare the two trees \
                directly"
                .into(),
            EvalError::PatchRead { .. } => "check the path, or pipe the diff in with `--patch \
                -`"
            .into(),
            EvalError::PatchTooLarge { .. } => "score a smaller range or a part of the \
                patch"
                .into(),
            EvalError::NotADiff { .. } => "pass the output of `git diff`, `git format-patch` or \
                `diff -u`"
                .into(),
            EvalError::Config(ConfigError::Invalid { .. }) => "fix that entry (`jev-preflight \
                doctor` checks every config), or see `jev-preflight init` for a valid \
                starter"
                .into(),
            EvalError::Config(ConfigError::File(_)) => "check that the file is a readable regular \
                file"
                .into(),
            EvalError::Exclude(_) => "fix the glob in `.jev-preflight.json`".into(),
            EvalError::Git(GitError::TooManyFiles { .. }) => "add generated or dependency folders \
                to `.gitignore`, or to `exclude` in `.jev-preflight.json`, or score a range such \
                as `HEAD~1..HEAD`"
                .into(),
            EvalError::Git(_) => "run `jev-preflight doctor` to check git and the \
                repository"
                .into(),
            EvalError::Score {
                source: ScoreError::MissingKey { scorer },
                ..
            } => match *scorer {
                "openai" => "set `OPENAI_API_KEY` (or the variable \
                    `JEV_PREFLIGHT_OPENAI_API_KEY_ENV` names), or use `--scorer local`"
                    .into(),
                _ => "set `TYPESAFE_API_KEY` (or the plugin's `typesafe_api_key` option), or use \
                    `--scorer local`, which needs no key"
                    .into(),
            },
            EvalError::Score {
                source: ScoreError::Config { .. },
                ..
            } => "check the scorer \
                settings in the user config file or the `JEV_PREFLIGHT_*` variables \
                (`jev-preflight doctor` shows them)"
                .into(),
            EvalError::Score { .. } => "try again, or use `--scorer local`, which runs \
                offline"
                .into(),
            EvalError::Temp(_) => "check that the temp dir (`TMPDIR`) is writable".into(),
        })
    }
}

/// What an `eval` found; rendered as a table, JSON or Markdown by [`render`].
#[derive(Debug, Clone)]
pub struct Report {
    pub source: String,
    pub scorer: &'static str,
    pub model: Option<String>,
    pub dry_run: bool,
    pub thresholds: [f64; AXIS_COUNT],
    /// Who chose the thresholds and their values, in words ([`threshold::in_force`]).
    pub threshold_note: String,
    /// Problems that did not stop the evaluation (e.g. an invalid repository config ignored
    /// by `--patch`), for stderr and the JSON.
    pub warnings: Vec<Warning>,
    /// Paths that changed before selection.
    pub changed: usize,
    pub excluded: Vec<(String, String)>,
    pub result: EvalResult,
    pub fail_on: Option<f64>,
}

/// A problem that did not stop an evaluation.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Warning {
    pub message: String,
    /// The next step.
    pub hint: String,
}

/// The payload-dependent part of a [`Report`].
#[derive(Debug, Clone)]
pub enum EvalResult {
    /// No change survived selection: nothing to score.
    Empty,
    /// The payload is over `maxDiffBytes` and the policy (or the files) did not allow a
    /// partial one.
    TooLarge { bytes: usize, max_bytes: usize },
    /// A payload, scored unless this is a dry run.
    Payload {
        payload: Box<Payload>,
        scored: Option<Scored>,
    },
}

/// Scores and the axes they select.
#[derive(Debug, Clone)]
pub struct Scored {
    pub values: [f64; AXIS_COUNT],
    /// Indices of the selected axes, best first.
    pub selected: Vec<usize>,
    pub evidence: Vec<crate::scorer::Evidence>,
}

impl Report {
    /// The axes at or above `--fail-on`, best first.
    pub fn failing(&self) -> Vec<(usize, f64)> {
        let (
            Some(limit),
            EvalResult::Payload {
                scored: Some(s), ..
            },
        ) = (self.fail_on, &self.result)
        else {
            return Vec::new();
        };
        let mut hits: Vec<(usize, f64)> = s
            .values
            .iter()
            .enumerate()
            .filter(|&(_, &v)| v >= limit)
            .map(|(i, &v)| (i, v))
            .collect();
        hits.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
        hits
    }
}

/// Runs one evaluation from `cwd`; `stdin` supplies `--patch -`.
pub fn run(
    env: &HostEnv,
    cwd: &Path,
    request: &Request,
    stdin: &mut dyn Read,
) -> Result<Report, EvalError> {
    let git = Git::default().with_deadline(GIT_DEADLINE);
    let patch_mode = matches!(request.source, Source::Patch(_));
    let repo = find_repo(&git, cwd, patch_mode)?;
    let mut warnings = Vec::new();
    let repo_config = repo_config(repo.as_ref(), patch_mode, &mut warnings)?;
    let user = config::user_settings(env)?;
    let frozen = Frozen::resolve(&repo_config, &user);
    let mut scorer_settings = user.scorer.clone();
    if let Some(kind) = request.scorer {
        scorer_settings.kind = kind;
    }

    let changes = match (&request.source, &repo) {
        (Source::Patch(path), _) => read_patch(path.as_deref(), stdin)?,
        (Source::WorkingTree { base }, Some(repo)) => {
            let base_tree = tree_of(&git, repo, base)?;
            working_tree_changes(&git, repo, &base_tree, &frozen)?
        }
        (
            Source::Range {
                base,
                head,
                merge_base,
            },
            Some(repo),
        ) => range_changes(&git, repo, base, head, *merge_base)?,
        (_, None) => return Err(EvalError::NotARepo(cwd.to_owned())),
    };
    let changed = changes.len();

    // The shared stages: select, payload, score, axes.
    let stages = Stages::new(&frozen.exclude, frozen.size_policy()).map_err(EvalError::Exclude)?;
    let attributes = match &repo {
        Some(repo) => git::attributes::read(&git, repo, &git::attributes::paths_of(&changes))?,
        // A patch scored outside any repository: only paths and contents count.
        None => Attributes::default(),
    };
    let selection = stages.select(changes, &attributes);
    let scorer_defaults = scorer_settings.kind.default_thresholds(&scorer_settings);
    let thresholds = frozen.thresholds(scorer_defaults);
    let mut report = Report {
        source: request.source.describe(),
        scorer: kind_name(scorer_settings.kind.resolve(&scorer_settings)),
        model: None,
        dry_run: request.dry_run,
        thresholds: std::array::from_fn(|i| axes::threshold_for(&thresholds, i)),
        threshold_note: threshold::in_force(
            repo_config
                .threshold
                .map(|t| (t, SetBy::Repo))
                .or(user.threshold.map(|t| (t, SetBy::User))),
            scorer_defaults,
            &repo_config.thresholds,
        ),
        warnings,
        changed,
        excluded: selection
            .excluded
            .iter()
            .map(|e| (e.path.clone(), e.reason.to_string()))
            .collect(),
        result: EvalResult::Empty,
        fail_on: request.fail_on,
    };
    report.result = match stages.payload(&selection.kept) {
        Outcome::Empty => EvalResult::Empty,
        Outcome::Skipped(SkipReason::TooLarge { bytes, max_bytes }) => {
            EvalResult::TooLarge { bytes, max_bytes }
        }
        Outcome::Ready(payload) if request.dry_run => EvalResult::Payload {
            payload: Box::new(payload),
            scored: None,
        },
        Outcome::Ready(payload) => {
            let budget = frozen.scorer_budget(SCORER_BUDGET);
            score(&mut report, payload, &scorer_settings, &thresholds, budget)?
        }
    };
    Ok(report)
}

/// The repository `eval` runs in: required unless scoring a patch, and never a bare one
/// (the working tree is what a single revision is scored against).
fn find_repo(git: &Git, cwd: &Path, patch_mode: bool) -> Result<Option<Repo>, EvalError> {
    match git::discover(git, cwd)? {
        Discovery::Found(repo) => Ok(Some(repo)),
        Discovery::NotARepo if patch_mode => Ok(None),
        Discovery::Bare if patch_mode => Ok(None),
        Discovery::NotARepo => Err(EvalError::NotARepo(cwd.to_owned())),
        Discovery::Bare => {
            // A range needs no working tree.
            Err(EvalError::Bare(cwd.to_owned()))
        }
    }
}

/// The repository's settings exactly as a prompt would freeze them (the repository's file
/// goes over the user's). A patch needs no repository, so the config of the one it happens to
/// be run in cannot stop it: an invalid file is reported in `warnings` and the defaults apply.
fn repo_config(
    repo: Option<&Repo>,
    patch_mode: bool,
    warnings: &mut Vec<Warning>,
) -> Result<config::RepoConfig, EvalError> {
    let Some(repo) = repo else {
        return Ok(config::RepoConfig::default());
    };
    match config::read_repo_config(&repo.top) {
        Ok((cfg, _)) => Ok(cfg),
        Err(e) if patch_mode => {
            warnings.push(Warning {
                message: format!("ignoring the repository config: {e}"),
                hint: format!(
                    "`--patch` needs no repository, so the defaults apply; {}",
                    e.fix(&repo.top.join(config::REPO_CONFIG_FILE))
                ),
            });
            Ok(config::RepoConfig::default())
        }
        Err(e) => Err(e.into()),
    }
}

/// The changes of a revision range: the tree of `base` (or of the merge base of `base` and
/// `head`, for `A...B`) against the tree of `head`.
fn range_changes(
    git: &Git,
    repo: &Repo,
    base: &str,
    head: &str,
    merge_base: bool,
) -> Result<Vec<Change>, EvalError> {
    let base_commit = if merge_base {
        let a = commit_of(git, repo, base)?;
        let b = commit_of(git, repo, head)?;
        merge_base_of(git, repo, &a, &b)
            .ok_or_else(|| EvalError::NoMergeBase(base.to_owned(), head.to_owned()))?
    } else {
        commit_of(git, repo, base)?
    };
    let base_tree = tree_of(git, repo, &base_commit)?;
    let head_tree = tree_of(git, repo, head)?;
    Ok(diff::diff_trees(git, repo, &base_tree, &head_tree)?)
}

/// Scores `payload` with the scorer `settings` name and picks the axes to look at again; the
/// scorer and model that answered are written into `report`.
fn score(
    report: &mut Report,
    payload: Payload,
    settings: &ScorerSettings,
    thresholds: &Thresholds,
    budget: Duration,
) -> Result<EvalResult, EvalError> {
    let fail = |source| EvalError::Score {
        scorer: report.scorer,
        source,
    };
    let scorer = scorer::build(settings).map_err(fail)?;
    let verdict = scorer::judge(&payload, &*scorer, thresholds, budget).map_err(fail)?;
    report.scorer = verdict.scorer;
    report.model = verdict.scores.model.clone();
    Ok(EvalResult::Payload {
        payload: Box::new(payload),
        scored: Some(Scored {
            values: verdict.scores.values,
            selected: verdict.selected.iter().map(|s| s.axis).collect(),
            evidence: verdict.scores.evidence,
        }),
    })
}

/// The name a scorer kind reports as.
pub fn kind_name(kind: ScorerKind) -> &'static str {
    kind.name()
}

fn read_patch(path: Option<&Path>, stdin: &mut dyn Read) -> Result<Vec<Change>, EvalError> {
    let what = match path {
        Some(p) => format!("`{}`", p.display()),
        None => "from stdin".to_owned(),
    };
    let read_err = |source| EvalError::PatchRead {
        what: what.clone(),
        source,
    };
    let bytes = match path {
        Some(p) => {
            let meta = std::fs::metadata(p).map_err(read_err)?;
            if meta.is_dir() {
                return Err(read_err(std::io::Error::other("it is a directory")));
            }
            read_capped(std::fs::File::open(p).map_err(read_err)?, MAX_PATCH_BYTES)
        }
        None => read_capped(stdin, MAX_PATCH_BYTES),
    }
    .map_err(read_err)?
    .ok_or(EvalError::PatchTooLarge { what: what.clone() })?;
    crate::git::diff::patch::parse(&bytes).map_err(|source| EvalError::NotADiff { what, source })
}

/// Resolves `rev` to an object id of kind `peel` (`commit`, `tree`).
fn resolve(git: &Git, repo: &Repo, rev: &str, peel: &str) -> Result<String, EvalError> {
    // A revision that starts with `-` would be read as an option; none is valid anyway.
    if rev.starts_with('-') || rev.is_empty() {
        return Err(EvalError::BadRevision(rev.to_owned()));
    }
    let spec = format!("{rev}^{{{peel}}}");
    match git.run_args(
        &repo.top,
        [
            "rev-parse",
            "--verify",
            "--quiet",
            "--end-of-options",
            &spec,
        ],
    ) {
        Ok(out) => {
            let id = String::from_utf8_lossy(&out).trim().to_owned();
            if id.len() == repo.format.hex_len() && id.bytes().all(|b| b.is_ascii_hexdigit()) {
                Ok(id)
            } else {
                Err(EvalError::BadRevision(rev.to_owned()))
            }
        }
        Err(GitError::Process(crate::process::ProcessError::Exit { .. })) => {
            if rev == "HEAD" && unborn(git, repo) {
                Err(EvalError::NoCommits)
            } else {
                Err(EvalError::BadRevision(rev.to_owned()))
            }
        }
        Err(e) => Err(e.into()),
    }
}

fn commit_of(git: &Git, repo: &Repo, rev: &str) -> Result<String, EvalError> {
    resolve(git, repo, rev, "commit")
}

fn tree_of(git: &Git, repo: &Repo, rev: &str) -> Result<String, EvalError> {
    resolve(git, repo, rev, "tree")
}

/// `HEAD` names a branch with no commit yet.
fn unborn(git: &Git, repo: &Repo) -> bool {
    git.run_args(&repo.top, ["rev-parse", "--verify", "--quiet", "HEAD"])
        .is_err()
        && git
            .run_args(&repo.top, ["symbolic-ref", "--quiet", "HEAD"])
            .is_ok()
}

fn merge_base_of(git: &Git, repo: &Repo, a: &str, b: &str) -> Option<String> {
    let out = git
        .run_args(&repo.top, ["merge-base", "--end-of-options", a, b])
        .ok()?;
    let id = String::from_utf8_lossy(&out).trim().to_owned();
    (!id.is_empty()).then_some(id)
}

/// The working tree against `base_tree`: a private index in a temp dir brought up to date
/// with the working tree (content into private objects), diffed against the real tree, then
/// removed. No tree is written: there is no tree cache to fill for a one-off.
fn working_tree_changes(
    git: &Git,
    repo: &Repo,
    base_tree: &str,
    frozen: &Frozen,
) -> Result<Vec<Change>, EvalError> {
    let temp = PrivateTempDir::new("jev-preflight-eval")?;
    let store = PrivateStore {
        prompt: temp.path().join("prompt"),
        tree_cache: temp.path().join("trees"),
    };
    let options = frozen.snapshot_options();
    let staged = snapshot::stage(git, repo, &store, &options)?;
    let base = Snapshot {
        tree: base_tree.to_owned(),
        oversized: Vec::new(),
        unread: 0,
    };
    let changes = diff::diff_index(git, repo, &store, &base, &staged)?;
    let _ = snapshot::purge_prompt(&store);
    drop(temp);
    Ok(changes)
}

/// Every axis id with its index, for renderers.
pub fn axis_ids() -> impl Iterator<Item = (usize, &'static str)> {
    AXIS_IDS.iter().copied().enumerate()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sources_from_arguments() {
        let wt = |b: &str| Source::WorkingTree { base: b.into() };
        let range = |a: &str, b: &str, m| Source::Range {
            base: a.into(),
            head: b.into(),
            merge_base: m,
        };
        assert_eq!(Source::from_args(None, None), wt("HEAD"));
        assert_eq!(Source::from_args(Some("v1.2"), None), wt("v1.2"));
        assert_eq!(
            Source::from_args(Some("main...HEAD"), None),
            range("main", "HEAD", true)
        );
        assert_eq!(
            Source::from_args(Some("main..feature"), None),
            range("main", "feature", false)
        );
        assert_eq!(
            Source::from_args(Some("main.."), None),
            range("main", "HEAD", false)
        );
        assert_eq!(
            Source::from_args(Some("...topic"), None),
            range("HEAD", "topic", true)
        );
        assert_eq!(
            Source::from_args(None, Some(Path::new("-"))),
            Source::Patch(None)
        );
        assert_eq!(
            Source::from_args(None, Some(Path::new("x.diff"))),
            Source::Patch(Some("x.diff".into()))
        );
    }
}
