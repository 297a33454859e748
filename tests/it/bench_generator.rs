//! The benches' repository generator and floors measure what `BENCHMARKS.md` says they do: the
//! generated tree has the stated baseline changes, the turn and its undo round-trip, and the
//! `git add -A` floor writes nothing into the repository's own `.git`.

use testkit::genrepo as bench;

use crate::support::inventory::{assert_same, inventory};
use bench::{GenRepo, Spec, TURN_NEW_FILE};

fn porcelain(repo: &GenRepo) -> Vec<String> {
    let out = repo.git(&["status", "--porcelain", "--untracked-files=all"]);
    String::from_utf8(out)
        .unwrap()
        .lines()
        .map(str::to_owned)
        .collect()
}

#[test]
fn generated_repository_has_the_stated_shape() {
    let spec = Spec {
        files: 240,
        leaf_dirs: 12,
        staged: 2,
        modified: 5,
        untracked: 4,
    };
    let repo = GenRepo::generate(spec);
    let tracked = repo.git(&["ls-files", "-z"]);
    assert_eq!(
        tracked.split(|b| *b == 0).filter(|p| !p.is_empty()).count(),
        240
    );
    // Nested three deep, spread over the leaf directories.
    let dirs: std::collections::BTreeSet<_> = (0..spec.files)
        .map(|n| repo.file(n).parent().unwrap().to_owned())
        .collect();
    assert_eq!(dirs.len(), 12);
    assert!(repo.file(239).starts_with(repo.root.join("d0/e1/f1")));

    let status = porcelain(&repo);
    let count = |prefix: &str| status.iter().filter(|l| l.starts_with(prefix)).count();
    assert_eq!(count("M  "), 2, "{status:#?}");
    assert_eq!(count(" M "), 5, "{status:#?}");
    assert_eq!(count("?? "), 4, "{status:#?}");
    assert_eq!(status.len(), 11, "{status:#?}");

    repo.turn();
    let during = porcelain(&repo);
    assert!(
        during.iter().any(|l| l.ends_with(TURN_NEW_FILE)),
        "{during:#?}"
    );
    assert!(during.len() > status.len(), "{during:#?}");
    repo.undo();
    assert_eq!(porcelain(&repo), status);
}

#[test]
fn floors_leave_the_repository_untouched() {
    let repo = GenRepo::generate(Spec::sized(300));
    let git_dir = repo.root.join(".git");
    // A tracked file with new stat data and the same content: a plain `git status` would
    // rewrite the index to refresh it; the read-only status floor must not.
    let touched = repo.file(5);
    let body = std::fs::read(&touched).unwrap();
    std::thread::sleep(std::time::Duration::from_millis(20));
    std::fs::write(&touched, body).unwrap();
    let before = inventory(&[&git_dir]);
    let add = repo.add_floor(2);
    let status = repo.status_floor(2);
    assert_same(&before, &inventory(&[&git_dir]), "after the floors");
    assert!(!add.is_zero() && !status.is_zero());
}
