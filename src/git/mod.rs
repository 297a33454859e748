//! Talking to git: the hardened runner, repository discovery and git's path quoting.

pub mod quote;
pub mod repo;
pub mod runner;

pub use repo::{Discovery, ObjectFormat, Repo, discover, rediscover};
pub use runner::{Git, GitError};
