//! Finds the repository a hook event's `cwd` belongs to.
//!
//! One `git rev-parse` answers every question (bare or not, object format, git dir, common
//! dir, index, objects, top level); its output is line-based, so a path holding a newline is
//! reported as unexpected output rather than misread. Beside it run one `git config` for the
//! settings every later command depends on (filter drivers, where attributes come from, how a
//! staged file's mode and line endings are decided) and one `git var GIT_ATTR_SYSTEM`.

use std::path::{Path, PathBuf};

use super::{Git, GitError};
use crate::process::ProcessError;

/// The object id format of a repository.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum ObjectFormat {
    Sha1,
    Sha256,
}

impl ObjectFormat {
    /// Length of an object id in hex digits.
    pub fn hex_len(self) -> usize {
        match self {
            ObjectFormat::Sha1 => 40,
            ObjectFormat::Sha256 => 64,
        }
    }
}

/// A non-bare repository with a working tree, all paths absolute and canonical.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Repo {
    pub top: PathBuf,
    pub git_dir: PathBuf,
    pub common_dir: PathBuf,
    pub index: PathBuf,
    pub objects: PathBuf,
    pub format: ObjectFormat,
    /// Names of the filter drivers configured for this repository (any config scope). Every
    /// command that reads working-tree files must neutralize them. Never persisted: they are
    /// read afresh by every discovery, since config may change between two events.
    #[serde(skip)]
    pub filters: Vec<Vec<u8>>,
    /// What decides whether some of git's work can be skipped exactly (see [`Facts`]).
    #[serde(default)]
    pub facts: Facts,
}

/// Facts beyond the repository's paths that decide which shortcuts are exact: where git
/// would read attributes besides the working tree's `.gitattributes` files (with none at all,
/// `check-attr` has nothing to say), and whether staging a path depends on the index entry it
/// replaces. Unknown facts make every shortcut step aside.
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Facts {
    /// The system-wide attributes file of this git build (`git var GIT_ATTR_SYSTEM`), a
    /// property of the binary, so it is kept between the events of a prompt; `None` when git
    /// cannot say (before 2.42).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub system_attributes: Option<PathBuf>,
    /// What the configuration says; read afresh by every discovery, like the filter names,
    /// because config may change between two events. `None` until read.
    #[serde(skip)]
    pub config: Option<ConfigFacts>,
}

/// The settings of every config scope that the shortcuts depend on.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ConfigFacts {
    /// The last `core.attributesFile` value, as written (before `~` is expanded).
    pub attributes_file: Option<Vec<u8>>,
    /// `attr.tree` is set: in-tree attributes come from a tree instead of the working tree.
    pub attributes_tree: bool,
    /// `core.fileMode` and `core.symlinks` are not false, `core.ignoreCase` is not true and
    /// `core.autocrlf` is off: a file staged into an empty index gets the same mode and bytes
    /// as one staged over its old entry (otherwise git keeps the old entry's mode, matches
    /// names case-blind, or looks at the old blob before converting line endings).
    pub staging_ignores_index: bool,
    /// `core.worktree` is set or `core.bare` is true: the config itself says where the
    /// working tree is, so only `rev-parse` may answer.
    pub places_worktree: bool,
    /// `core.bigFileThreshold` is unset: git's diff calls a file binary by its bytes alone,
    /// never by its size below 512 MiB, so a new file's change can be written without git
    /// (see [`crate::git::turn`]).
    pub default_big_file_threshold: bool,
}

impl Repo {
    /// Points `cmd` at an index that does not exist, which git reads as empty, for commands
    /// that load the index without needing it: `diff-tree` and `check-attr` read the whole
    /// index at start-up (tens of milliseconds on a large repository) only to find
    /// `.gitattributes` files a working tree lacks. Attributes then come from the working
    /// tree alone. If something sits at that path after all, the command keeps its index.
    pub fn without_index(&self, cmd: &mut std::process::Command) {
        let absent = self.git_dir.join("jev-preflight-no-index");
        if std::fs::symlink_metadata(&absent)
            .is_err_and(|e| e.kind() == std::io::ErrorKind::NotFound)
        {
            cmd.env("GIT_INDEX_FILE", absent);
        }
    }
}

/// What lives at a `cwd`.
// One per event and never stored in bulk: boxing the repository would buy nothing.
#[allow(clippy::large_enum_variant)]
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Discovery {
    Found(Repo),
    NotARepo,
    Bare,
}

const QUERIES: &[&str] = &[
    "rev-parse",
    "--path-format=absolute",
    "--is-bare-repository",
    "--is-inside-work-tree",
    "--show-object-format",
    "--git-dir",
    "--git-common-dir",
    "--git-path",
    "index",
    "--git-path",
    "objects",
    // Last: it fails outside a working tree, after the answers above are printed.
    "--show-toplevel",
];

/// Resolves the repository containing `cwd`.
pub fn discover(git: &Git, cwd: &Path) -> Result<Discovery, GitError> {
    if !cwd.is_dir() {
        return Ok(Discovery::NotARepo);
    }
    // The config and the system attributes path are read concurrently: each costs a git
    // process, but no wall time.
    let (revparse, config, system_attributes) = std::thread::scope(|scope| {
        let config = scope.spawn(|| read_config(git, cwd));
        let system = scope.spawn(|| system_attributes(git, cwd));
        (git.run_args(cwd, QUERIES), config.join(), system.join())
    });
    let stdout = match revparse {
        Ok(stdout) => stdout,
        Err(GitError::Process(ProcessError::Exit {
            code: 128,
            stdout,
            stderr,
            ..
        })) => {
            let lines: Vec<&[u8]> = stdout.split(|&b| b == b'\n').collect();
            return match lines.first() {
                Some(&b"true") => Ok(Discovery::Bare),
                // Inside a git dir of a non-bare repository: no working tree to snapshot.
                Some(&b"false") if lines.get(1) == Some(&&b"false"[..]) => Ok(Discovery::NotARepo),
                _ if String::from_utf8_lossy(&stderr).contains("not a git repository") => {
                    Ok(Discovery::NotARepo)
                }
                _ => Err(GitError::Process(ProcessError::Exit {
                    program: git.program().to_path_buf(),
                    code: 128,
                    stdout,
                    stderr,
                })),
            };
        }
        Err(e) => return Err(e),
    };
    let (filters, config) = config.map_err(|_| GitError::Parse {
        command: "config".into(),
        detail: "reading the config panicked".into(),
    })??;
    let facts = Facts {
        system_attributes: system_attributes.unwrap_or(None),
        config: Some(config),
    };
    Ok(match parse(&stdout)? {
        Some(repo) => Discovery::Found(Repo {
            filters,
            facts,
            ..repo
        }),
        None => Discovery::Bare,
    })
}

/// Resolves again a repository an earlier event discovered, without asking `rev-parse`:
/// when its working tree, git dirs and object store are all still where they were, only the
/// config is read (afresh: a filter configured since must still be neutralized). On any
/// doubt — something moved or vanished — it is a full [`discover`] from `known.top`.
pub fn rediscover(git: &Git, known: &Repo) -> Result<Discovery, GitError> {
    if !in_place(known) {
        return discover(git, &known.top);
    }
    let (filters, config) = read_config(git, &known.top)?;
    Ok(Discovery::Found(Repo {
        filters,
        facts: Facts {
            config: Some(config),
            ..known.facts.clone()
        },
        ..known.clone()
    }))
}

/// What one discovery from `cwd` found, kept for the session so that the next prompt from
/// the same directory need not ask `rev-parse` and `git var` again ([`discover_again`]).
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Remembered {
    /// The event's `cwd`, as the host sent it.
    pub cwd: PathBuf,
    pub repo: Repo,
    /// `.git` at the top of the working tree: `None` for a directory, else the file's bytes
    /// (a linked worktree's pointer to its git dir).
    dot_git: Option<Vec<u8>>,
    /// The git on `PATH` (resolved path, length, modification time): another build may keep
    /// its system attributes elsewhere.
    git: (PathBuf, u64, u64),
}

impl Remembered {
    /// What to remember of `repo`, found from `cwd` by `git`; `None` when it cannot be
    /// checked again cheaply.
    pub fn of(git: &Git, cwd: &Path, repo: &Repo) -> Option<Remembered> {
        Some(Remembered {
            cwd: cwd.to_path_buf(),
            repo: Repo {
                filters: Vec::new(),
                facts: Facts {
                    config: None,
                    ..repo.facts.clone()
                },
                ..repo.clone()
            },
            dot_git: dot_git(&repo.top)?,
            git: binary_identity(git.program())?,
        })
    }

    /// Whether `cwd` still leads to the same repository, as `rev-parse` would find it: the
    /// same directory, nothing named `.git` between it and the top of the working tree,
    /// `.git` there unchanged, the git dirs in place, and the same git binary.
    fn still_holds(&self, git: &Git, cwd: &Path) -> bool {
        let repo = &self.repo;
        if cwd != self.cwd || !in_place(repo) {
            return false;
        }
        if dot_git(&repo.top).as_ref() != Some(&self.dot_git)
            || binary_identity(git.program()).as_ref() != Some(&self.git)
        {
            return false;
        }
        let Ok(cwd) = std::fs::canonicalize(cwd) else {
            return false;
        };
        if !cwd.starts_with(&repo.top) || cwd.starts_with(&repo.git_dir) {
            return false;
        }
        // Discovery walks up from `cwd` and stops at the first directory holding `.git`.
        cwd.ancestors()
            .take_while(|dir| *dir != repo.top)
            .all(|dir| {
                matches!(std::fs::symlink_metadata(dir.join(".git")),
                    Err(e) if e.kind() == std::io::ErrorKind::NotFound)
            })
    }
}

/// The repository at `cwd` when an earlier prompt of the session found `known` there: when
/// nothing that decides the answer has changed ([`Remembered::still_holds`]), only the config
/// is read, afresh; on any doubt, and when the config itself places the working tree, it is
/// a full [`discover`].
pub fn discover_again(git: &Git, cwd: &Path, known: &Remembered) -> Result<Discovery, GitError> {
    if !known.still_holds(git, cwd) {
        return discover(git, cwd);
    }
    let (filters, config) = read_config(git, &known.repo.top)?;
    if config.places_worktree {
        return discover(git, cwd);
    }
    Ok(Discovery::Found(Repo {
        filters,
        facts: Facts {
            config: Some(config),
            ..known.repo.facts.clone()
        },
        ..known.repo.clone()
    }))
}

/// The working tree, git dirs and object store are directories still, and `.git` is there.
fn in_place(known: &Repo) -> bool {
    let is_dir = |p: &Path| std::fs::symlink_metadata(p).is_ok_and(|m| m.is_dir());
    [
        &known.top,
        &known.git_dir,
        &known.common_dir,
        &known.objects,
    ]
    .into_iter()
    .all(|p| is_dir(p))
        && std::fs::symlink_metadata(known.top.join(".git")).is_ok()
}

/// `.git` at `top`: `Some(None)` for a directory, `Some(Some(bytes))` for a small file.
fn dot_git(top: &Path) -> Option<Option<Vec<u8>>> {
    let path = top.join(".git");
    let meta = std::fs::symlink_metadata(&path).ok()?;
    if meta.is_dir() {
        return Some(None);
    }
    if !meta.is_file() || meta.len() > 4096 {
        return None;
    }
    std::fs::read(&path).ok().map(Some)
}

/// The file `program` runs as, found the way a spawn finds it, with its length and
/// modification time.
fn binary_identity(program: &Path) -> Option<(PathBuf, u64, u64)> {
    let found = if program.components().count() > 1 {
        Some(program.to_path_buf())
    } else {
        std::env::split_paths(&std::env::var_os("PATH")?)
            .map(|dir| dir.join(program))
            .find(|p| is_executable(p))
    }?;
    let path = std::fs::canonicalize(found).ok()?;
    let meta = std::fs::metadata(&path).ok()?;
    let mtime = meta
        .modified()
        .ok()?
        .duration_since(std::time::SystemTime::UNIX_EPOCH)
        .ok()?;
    Some((path, meta.len(), u64::try_from(mtime.as_nanos()).ok()?))
}

fn is_executable(path: &Path) -> bool {
    let Ok(meta) = std::fs::metadata(path) else {
        return false;
    };
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        meta.is_file() && meta.permissions().mode() & 0o111 != 0
    }
    #[cfg(not(unix))]
    {
        meta.is_file()
    }
}

/// The keys [`read_config`] asks for, as `git config --get-regexp` matches them: section and
/// variable names lower-cased.
const CONFIG_KEYS: &str = concat!(
    r"^(filter\..*|core\.(attributesfile|filemode|symlinks|ignorecase|autocrlf|worktree|bare|",
    r"bigfilethreshold)|attr\.tree)$"
);

/// One `git config` for every scope: the names of the configured filter drivers
/// (`filter.<name>.*`) and the [`ConfigFacts`].
fn read_config(git: &Git, cwd: &Path) -> Result<(Vec<Vec<u8>>, ConfigFacts), GitError> {
    let out = match git.run_args(cwd, ["config", "-z", "--get-regexp", CONFIG_KEYS]) {
        Ok(out) => out,
        // Exit 1: no such keys. Outside a repository rev-parse's answer is what counts.
        Err(GitError::Process(ProcessError::Exit { code: 1 | 128, .. })) => Vec::new(),
        Err(e) => return Err(e),
    };
    Ok(parse_config(&out))
}

/// Parses `git config -z --get-regexp` records (`key NL value NUL`, or `key NUL` for a key
/// without a value); a later value of a key overrides an earlier one, as git reads them.
fn parse_config(out: &[u8]) -> (Vec<Vec<u8>>, ConfigFacts) {
    let mut names: Vec<Vec<u8>> = Vec::new();
    let mut last: std::collections::HashMap<&[u8], Option<&[u8]>> = Default::default();
    let mut attributes_tree = false;
    for record in out.split(|&b| b == 0).filter(|r| !r.is_empty()) {
        let (key, value) = match record.iter().position(|&b| b == b'\n') {
            Some(nl) => (&record[..nl], Some(&record[nl + 1..])),
            None => (record, None),
        };
        if let Some(rest) = key.strip_prefix(b"filter.") {
            if let Some(dot) = rest.iter().rposition(|&b| b == b'.') {
                let name = rest[..dot].to_vec();
                if !names.contains(&name) {
                    names.push(name);
                }
            }
        } else if key == b"attr.tree" {
            attributes_tree = true;
        } else {
            last.insert(key, value);
        }
    }
    // A key without a value is true; anything git would not read as plainly true or false
    // counts as the value that takes the shortcut away.
    let word = |key: &[u8]| {
        last.get(key).map(|v| {
            v.map_or("true".to_owned(), |v| {
                String::from_utf8_lossy(v).trim().to_ascii_lowercase()
            })
        })
    };
    let is_true = |v: &str| matches!(v, "true" | "yes" | "on" | "1");
    let is_false = |v: &str| matches!(v, "false" | "no" | "off" | "0" | "");
    let staging_ignores_index = word(b"core.filemode").is_none_or(|v| is_true(&v))
        && word(b"core.symlinks").is_none_or(|v| is_true(&v))
        && word(b"core.ignorecase").is_none_or(|v| is_false(&v))
        && word(b"core.autocrlf").is_none_or(|v| is_false(&v));
    let config = ConfigFacts {
        attributes_file: last
            .get(&b"core.attributesfile"[..])
            .map(|v| v.unwrap_or_default().to_vec()),
        attributes_tree,
        staging_ignores_index,
        places_worktree: last.contains_key(&b"core.worktree"[..])
            || word(b"core.bare").is_some_and(|v| !is_false(&v)),
        default_big_file_threshold: !last.contains_key(&b"core.bigfilethreshold"[..]),
    };
    (names, config)
}

/// The system-wide attributes file this git reads, or `None` when it cannot say.
fn system_attributes(git: &Git, cwd: &Path) -> Option<PathBuf> {
    let out = git.run_args(cwd, ["var", "GIT_ATTR_SYSTEM"]).ok()?;
    let text = std::str::from_utf8(&out).ok()?.strip_suffix('\n')?;
    (!text.is_empty() && !text.contains('\n') && Path::new(text).is_absolute())
        .then(|| PathBuf::from(text))
}

fn parse(stdout: &[u8]) -> Result<Option<Repo>, GitError> {
    let bad = |detail: &str| GitError::Parse {
        command: "rev-parse".into(),
        detail: detail.into(),
    };
    let text = std::str::from_utf8(stdout).map_err(|_| bad("paths are not valid UTF-8"))?;
    let lines: Vec<&str> = text
        .strip_suffix('\n')
        .unwrap_or(text)
        .split('\n')
        .collect();
    let [
        bare,
        _inside,
        format,
        git_dir,
        common_dir,
        index,
        objects,
        top,
    ] = lines[..]
    else {
        return Err(bad(&format!("expected 8 lines, got {}", lines.len())));
    };
    if bare == "true" {
        return Ok(None);
    }
    let format = match format {
        "sha1" => ObjectFormat::Sha1,
        "sha256" => ObjectFormat::Sha256,
        other => return Err(bad(&format!("unknown object format `{other}`"))),
    };
    Ok(Some(Repo {
        top: canonical(top)?,
        git_dir: canonical(git_dir)?,
        common_dir: canonical(common_dir)?,
        index: canonical_leaf(index)?,
        objects: canonical(objects)?,
        format,
        filters: Vec::new(),
        facts: Facts::default(),
    }))
}

fn canonical(path: impl AsRef<Path>) -> Result<PathBuf, GitError> {
    let path = path.as_ref();
    std::fs::canonicalize(path).map_err(|source| GitError::Io {
        path: path.to_path_buf(),
        source,
    })
}

/// Canonicalizes a path whose last component may not exist yet (a fresh repo has no index).
fn canonical_leaf(path: &str) -> Result<PathBuf, GitError> {
    let path = Path::new(path);
    match (path.parent(), path.file_name()) {
        (Some(parent), Some(name)) => Ok(canonical(parent)?.join(name)),
        _ => canonical(path),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn facts(records: &[&str]) -> (Vec<Vec<u8>>, ConfigFacts) {
        let mut out = Vec::new();
        for r in records {
            out.extend_from_slice(r.as_bytes());
            out.push(0);
        }
        parse_config(&out)
    }

    #[test]
    fn config_facts() {
        let (names, config) = facts(&[]);
        assert!(names.is_empty());
        assert_eq!(
            config,
            ConfigFacts {
                attributes_file: None,
                attributes_tree: false,
                staging_ignores_index: true,
                places_worktree: false,
                default_big_file_threshold: true,
            }
        );
        assert!(
            !facts(&["core.bigfilethreshold\n100k"])
                .1
                .default_big_file_threshold
        );
        let (names, config) = facts(&[
            "filter.lfs.clean\ngit-lfs clean -- %f",
            "filter.lfs.process\ngit-lfs filter-process",
            "filter.a.b.smudge\ncat",
            "core.attributesfile\n~/one",
            "core.attributesfile\n~/two",
            "attr.tree\nHEAD",
        ]);
        assert_eq!(names, [b"lfs".to_vec(), b"a.b".to_vec()]);
        assert_eq!(config.attributes_file.as_deref(), Some(&b"~/two"[..]));
        assert!(config.attributes_tree);
        assert!(config.staging_ignores_index);
        assert!(!config.places_worktree);
        assert!(!facts(&["core.bare\nfalse"]).1.places_worktree);
        assert!(facts(&["core.bare\ntrue"]).1.places_worktree);
        assert!(facts(&["core.worktree\n/elsewhere"]).1.places_worktree);
        // Each setting that makes staging look at the old entry, in every spelling git takes;
        // the last value wins.
        for records in [
            &["core.filemode\nfalse"][..],
            &["core.filemode\nNo"],
            &["core.symlinks\n0"],
            &["core.symlinks\nmaybe"],
            &["core.ignorecase"],
            &["core.ignorecase\ntrue"],
            &["core.autocrlf\ninput"],
            &["core.autocrlf\ntrue"],
            &["core.filemode\ntrue", "core.filemode\noff"],
        ] {
            assert!(!facts(records).1.staging_ignores_index, "{records:?}");
        }
        for records in [
            &["core.filemode\ntrue", "core.symlinks"][..],
            &["core.ignorecase\nfalse", "core.autocrlf\nfalse"],
            &["core.autocrlf\n"],
            &["core.filemode\nfalse", "core.filemode\nyes"],
        ] {
            assert!(facts(records).1.staging_ignores_index, "{records:?}");
        }
    }
}
