//! Talking to git: the hardened runner, repository discovery, git's path quoting, private
//! snapshots of a working tree, the changes between two trees (or read from a patch), the
//! `.gitattributes` facts selection needs, and the Stop's whole git work ([`turn`]).
//!
//! Everything that starts a git process lives here and goes through [`runner::Git`]. Nothing
//! here writes to the user's repository: writes go to private stores only.

pub mod attributes;
pub mod diff;
pub mod quote;
pub mod repo;
pub mod runner;
pub mod snapshot;
pub mod turn;

pub use repo::{Discovery, ObjectFormat, Remembered, Repo, discover, discover_again, rediscover};
pub use runner::{Git, GitError};
