//! The stages the hook drives, behind one small seam so the hook's own logic (gates, state,
//! answers, fail-open) can be tested with fakes and crashes injected between steps.
//! [`Stages`] is the real thing: the snapshot engine, selection, redaction, payload, scorers.

use std::path::Path;

use crate::axes::{self, AXIS_COUNT, Axis, Selected, Thresholds};
use crate::diff::{self, Change};
use crate::git::{self, Discovery, Git, GitError, Repo};
use crate::payload::{Outcome, SizePolicy};
use crate::scorer::{self, ScoreError, Scorer, ScorerSettings};
use crate::select::{SelectError, Selection};
use crate::snapshot::{self, PrivateStore, Snapshot, SnapshotOptions};

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

/// Everything outside the hook that the hook calls.
pub trait Engine {
    fn discover(&self, git: &Git, cwd: &Path) -> Result<Discovery, GitError>;
    /// The repository an earlier event of the prompt discovered, resolved again (Stop).
    fn rediscover(&self, git: &Git, known: &Repo) -> Result<Discovery, GitError> {
        self.discover(git, &known.top)
    }
    fn snapshot(
        &self,
        git: &Git,
        repo: &Repo,
        store: &PrivateStore,
        options: &SnapshotOptions,
    ) -> Result<Snapshot, GitError>;
    fn purge(&self, store: &PrivateStore) -> Result<(), GitError>;
    /// Stop: what changed in the working tree since the baseline `base`. The real engine
    /// brings the private index up to date and diffs it against `base`'s tree, writing no tree
    /// at all (the prompt ends after its Stop).
    fn changes_since(
        &self,
        git: &Git,
        repo: &Repo,
        store: &PrivateStore,
        options: &SnapshotOptions,
        base: &Snapshot,
    ) -> Result<Vec<Change>, GitError>;
    fn select(
        &self,
        git: &Git,
        repo: &Repo,
        changes: Vec<Change>,
        excludes: &[String],
    ) -> Result<Result<Selection, SelectError>, GitError>;
    fn payload(&self, kept: &[Change], policy: &SizePolicy) -> Outcome;
    fn scorer(
        &self,
        settings: &ScorerSettings,
    ) -> Result<Box<dyn Scorer + Send + Sync>, ScoreError>;
    fn axes(&self) -> &'static [Axis; AXIS_COUNT];
    fn select_axes(&self, scores: &[f64; AXIS_COUNT], thresholds: &Thresholds) -> Vec<Selected>;
    /// Called between steps; does nothing in the real engine.
    fn checkpoint(&self, _at: Checkpoint) {}
}

/// The real stages.
#[derive(Debug, Default)]
pub struct Stages;

impl Engine for Stages {
    fn discover(&self, git: &Git, cwd: &Path) -> Result<Discovery, GitError> {
        git::discover(git, cwd)
    }

    fn rediscover(&self, git: &Git, known: &Repo) -> Result<Discovery, GitError> {
        git::rediscover(git, known)
    }

    fn snapshot(
        &self,
        git: &Git,
        repo: &Repo,
        store: &PrivateStore,
        options: &SnapshotOptions,
    ) -> Result<Snapshot, GitError> {
        snapshot::take(git, repo, store, options)
    }

    fn purge(&self, store: &PrivateStore) -> Result<(), GitError> {
        snapshot::purge_prompt(store)
    }

    fn changes_since(
        &self,
        git: &Git,
        repo: &Repo,
        store: &PrivateStore,
        options: &SnapshotOptions,
        base: &Snapshot,
    ) -> Result<Vec<Change>, GitError> {
        let staged = snapshot::stage(git, repo, store, options)?;
        diff::diff_index(git, repo, store, base, &staged)
    }

    fn select(
        &self,
        git: &Git,
        repo: &Repo,
        changes: Vec<Change>,
        excludes: &[String],
    ) -> Result<Result<Selection, SelectError>, GitError> {
        crate::pipeline::select_changes(git, Some(repo), changes, excludes)
    }

    fn payload(&self, kept: &[Change], policy: &SizePolicy) -> Outcome {
        crate::pipeline::build_payload(kept, policy)
    }

    fn scorer(
        &self,
        settings: &ScorerSettings,
    ) -> Result<Box<dyn Scorer + Send + Sync>, ScoreError> {
        scorer::build(settings)
    }

    fn axes(&self) -> &'static [Axis; AXIS_COUNT] {
        axes::axes()
    }

    fn select_axes(&self, scores: &[f64; AXIS_COUNT], thresholds: &Thresholds) -> Vec<Selected> {
        crate::pipeline::select_axes(scores, thresholds)
    }
}
