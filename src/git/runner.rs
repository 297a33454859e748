//! The one hardened constructor for every git process jev-preflight starts.

use std::ffi::OsStr;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use crate::process::{self, Limits, ProcessError};

/// Largest stdout accepted from one git call.
pub const STDOUT_CAP: usize = 4 * 1024 * 1024;

/// Where git lives and how long one call may take.
#[derive(Debug, Clone)]
pub struct Git {
    program: PathBuf,
    deadline: Duration,
    stdout_cap: usize,
}

/// Why a git call failed.
#[derive(Debug, thiserror::Error)]
pub enum GitError {
    #[error(transparent)]
    Process(#[from] ProcessError),
    #[error("unexpected output from `git {command}`: {detail}")]
    Parse { command: String, detail: String },
    #[error("{path}: {source}")]
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("private store {path} is unsafe: {why}")]
    UnsafeStore { path: PathBuf, why: String },
    #[error(
        "the working tree has more than {limit} changed or new files outside the excluded paths"
    )]
    TooManyFiles { limit: usize },
}

impl From<crate::fs::FsError> for GitError {
    fn from(e: crate::fs::FsError) -> GitError {
        use crate::fs::FsError;
        match e {
            FsError::Io { path, source } => GitError::Io { path, source },
            FsError::Unsafe { path, why } => GitError::UnsafeStore {
                path,
                why: format!("it {why}"),
            },
            FsError::TooLarge { path, max } => GitError::Io {
                path,
                source: std::io::Error::other(format!("larger than {max} bytes")),
            },
        }
    }
}

impl Default for Git {
    /// `git` as found on `PATH` once, when the process starts using it: every spawn then
    /// execs that file directly instead of walking `PATH` again (a hook starts two to five).
    fn default() -> Git {
        Git::new(on_path("git").unwrap_or_else(|| PathBuf::from("git")))
    }
}

/// The first executable `name` in an absolute directory of `PATH`. Relative entries (`.`, an
/// empty one) are skipped: exec would resolve them against the working tree a git command
/// runs in, where a repository could have planted its own `git`. `None` when no absolute
/// entry has one (the spawn then searches as it always did, and fails the same way).
#[cfg(unix)]
fn on_path(name: &str) -> Option<PathBuf> {
    use std::os::unix::fs::PermissionsExt;
    std::env::split_paths(&std::env::var_os("PATH")?)
        .filter(|dir| dir.is_absolute())
        .map(|dir| dir.join(name))
        .find(|p| {
            std::fs::metadata(p).is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
        })
}

/// Windows resolves `git` to `git.exe` and friends itself.
#[cfg(not(unix))]
fn on_path(_name: &str) -> Option<PathBuf> {
    None
}

impl Git {
    pub fn new(program: PathBuf) -> Git {
        Git {
            program,
            deadline: Duration::from_secs(10),
            stdout_cap: STDOUT_CAP,
        }
    }

    pub fn with_deadline(mut self, deadline: Duration) -> Git {
        self.deadline = deadline;
        self
    }

    pub fn with_stdout_cap(mut self, cap: usize) -> Git {
        self.stdout_cap = cap;
        self
    }

    pub fn program(&self) -> &Path {
        &self.program
    }

    /// A git command in `cwd` with every hardening applied; the caller adds arguments.
    pub fn command(&self, cwd: &Path) -> Command {
        let mut cmd = Command::new(&self.program);
        cmd.current_dir(cwd);
        // Inherited GIT_* variables could point us at another repo, index or object store.
        for (key, _) in std::env::vars_os() {
            let Some(key) = key.to_str() else { continue };
            if key.starts_with("GIT_")
                && !matches!(
                    key,
                    "GIT_CONFIG_NOSYSTEM" | "GIT_CONFIG_GLOBAL" | "GIT_CONFIG_SYSTEM"
                )
            {
                cmd.env_remove(key);
            }
        }
        cmd.env("GIT_TERMINAL_PROMPT", "0") // never wait for a password on a tty
            .env("GIT_OPTIONAL_LOCKS", "0") // status/diff must not take index.lock or refresh it
            .env("GIT_NO_LAZY_FETCH", "1") // a partial clone must not fetch missing objects
            .env("GIT_NO_REPLACE_OBJECTS", "1") // refs/replace must not change what we read
            .env("LC_ALL", "C") // parseable, untranslated output
            .env("LANG", "C")
            .env_remove("LANGUAGE");
        cmd.arg("--no-pager");
        for (key, value) in [
            ("core.fsmonitor", "false"), // a configured fsmonitor is a program the repo chooses
            ("core.splitIndex", "false"), // keep the private index self-contained
            ("core.untrackedCache", "false"), // never write the untracked cache extension
            ("core.hooksPath", null_device()), // no hook may run
            ("credential.helper", ""),   // no credential helper may run
            ("gc.auto", "0"),            // no automatic gc on our writes
            ("maintenance.auto", "false"), // no background maintenance
            ("core.pager", "cat"),       // belt and braces with --no-pager
            ("diff.external", ""),       // external diff drivers never run
            ("core.sshCommand", ""),     // no transport programs
            ("protocol.allow", "never"), // nothing leaves the machine through git
        ] {
            cmd.arg("-c").arg(format!("{key}={value}"));
        }
        cmd
    }

    /// Runs a prepared command under this runner's limits; stdout on success.
    pub fn run(&self, cmd: Command, stdin: Option<Vec<u8>>) -> Result<Vec<u8>, GitError> {
        let limits = Limits::new(self.deadline, self.stdout_cap);
        Ok(process::run(cmd, stdin, limits)?.stdout)
    }

    /// Runs a prepared command under this runner's deadline, handing its stdout to `sink` as
    /// it arrives ([`process::run_streaming`]); `Ok(true)` when the sink ended it early.
    pub fn run_streaming(
        &self,
        cmd: Command,
        stdin: Option<Vec<u8>>,
        sink: process::Sink<'_>,
    ) -> Result<bool, GitError> {
        let limits = Limits::new(self.deadline, self.stdout_cap);
        Ok(process::run_streaming(cmd, stdin, limits, sink)?.stopped)
    }

    /// Shorthand: hardened command in `cwd` with `args`, run to completion.
    pub fn run_args<I, S>(&self, cwd: &Path, args: I) -> Result<Vec<u8>, GitError>
    where
        I: IntoIterator<Item = S>,
        S: AsRef<OsStr>,
    {
        let mut cmd = self.command(cwd);
        cmd.args(args);
        self.run(cmd, None)
    }
}

/// The platform's null device, used to point `core.hooksPath` at nothing.
pub fn null_device() -> &'static str {
    if cfg!(windows) { "NUL" } else { "/dev/null" }
}
