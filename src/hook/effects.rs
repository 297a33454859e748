//! The hook's seam: only what reaches outside the process — git (discovery, snapshots,
//! changes, attributes) and the scorer — goes through [`Effects`], so the hook's own logic
//! (gates, state, answers, fail-open) can be tested with a fake and crashes injected between
//! steps. Pure stages ([`crate::pipeline`]) are called directly and never appear here: adding
//! one changes the pipeline, not this trait. The clock is the one in [`crate::env::HostEnv`].
//! [`Real`] is the real thing.

use std::path::Path;

use crate::git::snapshot::{self, PrivateStore, Snapshot, SnapshotOptions};
use crate::git::turn::{self, Turn};
use crate::git::{self, Discovery, Git, GitError, Remembered, Repo};
use crate::scorer::{self, ScoreError, Scorer, ScorerSettings};

/// Points between steps where a test may simulate a crash.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Checkpoint {
    /// UserPromptSubmit: the baseline exists, its state is not written yet.
    BaselineTaken,
    /// Stop: the payload hash is saved, the scorer not called yet.
    HashSaved,
    /// Stop: the scorer answered.
    Scored,
    /// Stop: the continuation count is saved, the answer not printed yet.
    ContinuationSaved,
}

/// Everything outside the process that the hook calls.
pub trait Effects {
    /// The repository `cwd` belongs to (UserPromptSubmit).
    fn discover(&self, git: &Git, cwd: &Path) -> Result<Discovery, GitError>;
    /// The same, when an earlier prompt of the session found `known` there
    /// (UserPromptSubmit); only what may have changed is asked again.
    fn discover_again(
        &self,
        git: &Git,
        cwd: &Path,
        _known: &Remembered,
    ) -> Result<Discovery, GitError> {
        self.discover(git, cwd)
    }
    /// The repository an earlier event of the prompt discovered, resolved again (Stop).
    fn rediscover(&self, git: &Git, known: &Repo) -> Result<Discovery, GitError>;
    /// UserPromptSubmit: a private snapshot of the working tree, the turn's baseline.
    fn baseline(
        &self,
        git: &Git,
        repo: &Repo,
        store: &PrivateStore,
        options: &SnapshotOptions,
    ) -> Result<Snapshot, GitError>;
    /// Stop: what changed in the working tree since the baseline `base`, with the
    /// `.gitattributes` facts selection needs for the changed paths (one seam, so that the
    /// attribute lookup can run beside the diff).
    fn changes_since(
        &self,
        git: &Git,
        repo: &Repo,
        store: &PrivateStore,
        options: &SnapshotOptions,
        base: &Snapshot,
    ) -> Result<Turn, GitError>;
    /// Removes the content a prompt's snapshots wrote.
    fn purge(&self, store: &PrivateStore) -> Result<(), GitError>;
    /// The scorer the user's settings choose.
    fn scorer(
        &self,
        settings: &ScorerSettings,
    ) -> Result<Box<dyn Scorer + Send + Sync>, ScoreError>;
    /// Called between steps; does nothing in the real effects.
    fn checkpoint(&self, _at: Checkpoint) {}
}

/// The real effects: git and the scorer backends.
#[derive(Debug, Default)]
pub struct Real;

impl Effects for Real {
    fn discover(&self, git: &Git, cwd: &Path) -> Result<Discovery, GitError> {
        git::discover(git, cwd)
    }

    fn discover_again(
        &self,
        git: &Git,
        cwd: &Path,
        known: &Remembered,
    ) -> Result<Discovery, GitError> {
        git::discover_again(git, cwd, known)
    }

    fn rediscover(&self, git: &Git, known: &Repo) -> Result<Discovery, GitError> {
        git::rediscover(git, known)
    }

    fn baseline(
        &self,
        git: &Git,
        repo: &Repo,
        store: &PrivateStore,
        options: &SnapshotOptions,
    ) -> Result<Snapshot, GitError> {
        snapshot::baseline(git, repo, store, options)
    }

    // The prompt ends after its Stop: stage what changed and diff it against the baseline's
    // tree, writing no tree at all.
    fn changes_since(
        &self,
        git: &Git,
        repo: &Repo,
        store: &PrivateStore,
        options: &SnapshotOptions,
        base: &Snapshot,
    ) -> Result<Turn, GitError> {
        turn::changes_since(git, repo, store, options, base)
    }

    fn purge(&self, store: &PrivateStore) -> Result<(), GitError> {
        snapshot::purge_prompt(store)
    }

    fn scorer(
        &self,
        settings: &ScorerSettings,
    ) -> Result<Box<dyn Scorer + Send + Sync>, ScoreError> {
        scorer::build(settings)
    }
}
