//! Talking to git: the hardened runner and repository discovery.

pub mod repo;
pub mod runner;

pub use repo::{Discovery, ObjectFormat, Repo, discover};
pub use runner::{Git, GitError};
