//! Test support shared by jev-preflight's integration tests, its benches and `cargo xtask`:
//!
//! - [`payload`]: what the hook would send for a diff, through the real stages;
//! - [`eval_set`]: the hand-labeled set in `testdata/eval/` and the figures that measure a
//!   scorer on it;
//! - [`genrepo`]: the benches' generated repositories, hermetic git and the floors every
//!   timing is compared with;
//! - [`GIT_ENV`]: the environment of every git call a test, bench or task makes.

pub mod eval_set;
pub mod genrepo;
pub mod payload;

/// The environment of every git call the tests, benches and tasks make: no user or system
/// config, a fixed identity and fixed dates (so commit ids repeat), the C locale.
pub const GIT_ENV: &[(&str, &str)] = &[
    ("GIT_CONFIG_NOSYSTEM", "1"),
    ("GIT_CONFIG_GLOBAL", "/dev/null"),
    ("GIT_AUTHOR_NAME", "Test Author"),
    ("GIT_AUTHOR_EMAIL", "author@example.com"),
    ("GIT_AUTHOR_DATE", "2026-01-01T00:00:00Z"),
    ("GIT_COMMITTER_NAME", "Test Committer"),
    ("GIT_COMMITTER_EMAIL", "committer@example.com"),
    ("GIT_COMMITTER_DATE", "2026-01-01T00:00:00Z"),
    ("LC_ALL", "C"),
];
