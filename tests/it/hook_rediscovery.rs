//! What the Stop saves by reusing what UserPromptSubmit learned, and what it must not save:
//! the repository facts are reused only while everything is where it was, and the filter
//! names are always read afresh.

use jev_preflight::git::{self, Discovery, Git, Repo};

use crate::support::TestRepo;

fn found(git: &Git, cwd: &std::path::Path) -> Repo {
    match git::discover(git, cwd).unwrap() {
        Discovery::Found(repo) => repo,
        other => panic!("expected a repository, got {other:?}"),
    }
}

#[test]
fn rediscovery_keeps_the_facts_and_rereads_the_filters() {
    let git = Git::default();
    let r = TestRepo::new();
    r.write("a.txt", "a\n").commit_all("init");
    let known = found(&git, r.path());
    assert!(known.filters.is_empty());
    // A filter configured during the turn must still be neutralized at Stop.
    r.git(&["config", "filter.trap.clean", "touch /nonexistent/marker"]);
    let again = match git::rediscover(&git, &known).unwrap() {
        Discovery::Found(repo) => repo,
        other => panic!("expected a repository, got {other:?}"),
    };
    assert_eq!(again.filters, vec![b"trap".to_vec()]);
    assert_eq!(
        Repo {
            filters: vec![],
            ..again
        },
        known
    );
}

#[test]
fn rediscovery_of_a_moved_or_replaced_repository_asks_git_again() {
    let git = Git::default();
    let r = TestRepo::new();
    r.write("a.txt", "a\n").commit_all("init");
    let known = found(&git, r.path());

    // Its git dir is gone: a full discovery says what is there now.
    std::fs::rename(r.path().join(".git"), r.path().join("old-git")).unwrap();
    assert_eq!(git::rediscover(&git, &known).unwrap(), Discovery::NotARepo);

    // The whole working tree moved away.
    std::fs::rename(r.path().join("old-git"), r.path().join(".git")).unwrap();
    let parent = tempfile::tempdir().unwrap();
    let moved = parent.path().join("moved");
    std::fs::rename(r.path(), &moved).unwrap();
    assert_eq!(git::rediscover(&git, &known).unwrap(), Discovery::NotARepo);
    std::fs::rename(&moved, r.path()).unwrap();
}

#[test]
fn the_persisted_repository_never_carries_filter_names() {
    let git = Git::default();
    let r = TestRepo::new();
    r.git(&["config", "filter.lfs.clean", "cat"]);
    let known = found(&git, r.path());
    assert_eq!(known.filters, vec![b"lfs".to_vec()]);
    let json = serde_json::to_string(&known).unwrap();
    assert!(!json.contains("filters"), "{json}");
    let back: Repo = serde_json::from_str(&json).unwrap();
    assert!(back.filters.is_empty());
}

/// The next prompt of a session reuses what the last one discovered from the same directory,
/// but only while that still holds: a repository created on the way up from `cwd`, a `.git`
/// file pointing elsewhere, another directory, or config that places the working tree each
/// send it back to `rev-parse`, whose answer wins.
#[test]
fn a_remembered_discovery_is_used_only_while_it_holds() {
    use jev_preflight::git::{Remembered, discover_again};
    let git = Git::default();
    let r = TestRepo::new();
    r.write("sub/deeper/a.txt", "a\n").commit_all("init");
    let cwd = r.path().join("sub/deeper");
    let known = found(&git, &cwd);
    let memory = Remembered::of(&git, &cwd, &known).unwrap();
    let again = |cwd: &std::path::Path| match discover_again(&git, cwd, &memory).unwrap() {
        Discovery::Found(repo) => repo,
        other => panic!("expected a repository, got {other:?}"),
    };
    assert_eq!(again(&cwd), known);
    let json = serde_json::to_string(&memory).unwrap();
    assert!(!json.contains("filters"), "{json}");
    assert_eq!(serde_json::from_str::<Remembered>(&json).unwrap(), memory);

    // A repository created between `cwd` and the top: it is the one `cwd` is in now.
    crate::support::git_in(&r.path().join("sub"), &["init", "-q"]);
    let nested = again(&cwd);
    assert_eq!(nested.top, r.path().join("sub").canonicalize().unwrap());
    std::fs::remove_dir_all(r.path().join("sub/.git")).unwrap();
    assert_eq!(again(&cwd), known);

    // Another directory is discovered afresh.
    assert_eq!(again(r.path()).top, known.top);

    // `core.worktree` moves the working tree: rev-parse says where.
    let elsewhere = tempfile::tempdir().unwrap();
    r.git(&[
        "config",
        "core.worktree",
        elsewhere.path().to_str().unwrap(),
    ]);
    let moved = again(&cwd);
    assert_eq!(moved.top, elsewhere.path().canonicalize().unwrap());
}
