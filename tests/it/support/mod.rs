//! Hermetic test fixtures: temp repos, a clean environment, the built binary.

#![allow(dead_code)]

pub mod http;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// Environment every git call in tests gets (one copy, shared with the benches and tasks).
pub use testkit::GIT_ENV;

/// The handler the host tests turn risky: `delete_user` behind an admin check.
pub const ADMIN_CHECKED: &str = "pub fn delete_user(db: &mut Db, caller: &Caller, id: u64) \
    -> Result<(), E> {\n    require_admin(caller)?;\n    db.delete(id)\n}\n";

/// [`ADMIN_CHECKED`] with its admin check removed.
pub const ADMIN_UNCHECKED: &str = "pub fn delete_user(db: &mut Db, caller: &Caller, id: u64) \
    -> Result<(), E> {\n    db.delete(id)\n}\n";

/// A committed repository holding [`ADMIN_CHECKED`] as `src/api.rs` and `config` as its
/// `.jev-preflight.json`.
pub fn admin_repo(config: &str) -> TestRepo {
    let repo = TestRepo::new();
    repo.write("src/api.rs", ADMIN_CHECKED);
    repo.write(".jev-preflight.json", config);
    repo.commit_all("init");
    repo
}

/// A git repository in a temp dir.
pub struct TestRepo {
    pub dir: tempfile::TempDir,
}

impl TestRepo {
    /// `git init` with `main` as the initial branch.
    pub fn new() -> TestRepo {
        TestRepo::with_init_args(&[])
    }

    pub fn with_init_args(extra: &[&str]) -> TestRepo {
        let dir = tempfile::Builder::new()
            .prefix("jev-test-repo")
            .tempdir()
            .unwrap();
        let repo = TestRepo { dir };
        let mut args = vec!["init", "-q", "-b", "main"];
        args.extend_from_slice(extra);
        repo.git(&args);
        repo
    }

    pub fn path(&self) -> &Path {
        self.dir.path()
    }

    /// Runs git in the repo with the hermetic environment; panics on failure.
    pub fn git(&self, args: &[&str]) -> String {
        let out = git_in(self.path(), args);
        assert!(
            out.status.success(),
            "git {args:?} failed: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8_lossy(&out.stdout).into_owned()
    }

    pub fn write(&self, rel: &str, content: impl AsRef<[u8]>) -> &TestRepo {
        let path = self.path().join(rel);
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent).unwrap();
        }
        std::fs::write(path, content).unwrap();
        self
    }

    pub fn remove(&self, rel: &str) -> &TestRepo {
        std::fs::remove_file(self.path().join(rel)).unwrap();
        self
    }

    pub fn commit_all(&self, message: &str) -> &TestRepo {
        self.git(&["add", "-A"]);
        self.git(&["commit", "-q", "--allow-empty", "-m", message]);
        self
    }
}

/// Runs git in `dir` with the hermetic environment.
pub fn git_in(dir: &Path, args: &[&str]) -> Output {
    let mut cmd = Command::new("git");
    cmd.current_dir(dir).args(args).env_clear();
    cmd.env("PATH", std::env::var_os("PATH").unwrap_or_default());
    cmd.env("HOME", dir);
    for (k, v) in GIT_ENV {
        cmd.env(k, v);
    }
    cmd.output().unwrap()
}

/// The built `jev-preflight` binary.
pub fn binary() -> PathBuf {
    PathBuf::from(env!("CARGO_BIN_EXE_jev-preflight"))
}
pub mod hook;
pub mod inventory;
