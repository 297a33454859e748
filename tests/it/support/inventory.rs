//! A full inventory of a repository on disk, to prove that nothing of it changed.

use std::collections::BTreeMap;
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};
use std::process::Command;

use sha2::{Digest, Sha256};

/// Every path under the roots with its kind, size, mode, mtime and content hash.
pub type Inventory = BTreeMap<PathBuf, String>;

pub fn inventory(roots: &[&Path]) -> Inventory {
    let mut out = Inventory::new();
    for root in roots {
        walk(root, &mut out);
    }
    out
}

fn walk(path: &Path, out: &mut Inventory) {
    let Ok(meta) = std::fs::symlink_metadata(path) else {
        return;
    };
    let mtime = format!("{}.{:09}", meta.mtime(), meta.mtime_nsec());
    let kind = if meta.file_type().is_symlink() {
        format!("link->{:?}", std::fs::read_link(path).unwrap())
    } else if meta.is_dir() {
        "dir".to_string()
    } else if meta.len() > 8 * 1024 * 1024 {
        // Huge (sparse) test files: size and mtime say enough, hashing them is slow.
        "file:large".to_string()
    } else {
        let bytes = std::fs::read(path).unwrap_or_default();
        format!("file:{:x}", Sha256::digest(&bytes))
    };
    out.insert(
        path.to_path_buf(),
        format!(
            "{kind} size={} mode={:o} mtime={mtime}",
            meta.len(),
            meta.mode()
        ),
    );
    if meta.is_dir() {
        let mut entries: Vec<_> = std::fs::read_dir(path)
            .unwrap()
            .flatten()
            .map(|e| e.path())
            .collect();
        entries.sort();
        for entry in entries {
            walk(&entry, out);
        }
    }
}

/// Asserts two inventories are equal, naming the first paths that differ.
pub fn assert_same(before: &Inventory, after: &Inventory, when: &str) {
    if before == after {
        return;
    }
    let mut diffs = Vec::new();
    for (path, was) in before {
        match after.get(path) {
            Some(now) if now == was => {}
            Some(now) => diffs.push(format!("changed {}: {was} -> {now}", path.display())),
            None => diffs.push(format!("removed {}", path.display())),
        }
    }
    for path in after.keys().filter(|p| !before.contains_key(*p)) {
        diffs.push(format!("added {}", path.display()));
    }
    diffs.truncate(10);
    panic!("{when}: the repository changed:\n{}", diffs.join("\n"));
}

/// `git status --porcelain=v2 -z` without taking optional locks (so it writes nothing).
pub fn status_v2(dir: &Path) -> Vec<u8> {
    let mut cmd = Command::new("git");
    cmd.current_dir(dir).env_clear();
    cmd.env("PATH", std::env::var_os("PATH").unwrap_or_default());
    cmd.env("HOME", dir).env("GIT_OPTIONAL_LOCKS", "0");
    for (k, v) in super::GIT_ENV {
        cmd.env(k, v);
    }
    // The checker must not run what the hostile-config test plants (its filter is `trap`).
    for c in [
        "core.fsmonitor=false",
        "core.hooksPath=/dev/null",
        "filter.trap.process=",
        "filter.trap.required=false",
    ] {
        cmd.args(["-c", c]);
    }
    cmd.args(["status", "--porcelain=v2", "-z", "--untracked-files=all"]);
    let out = cmd.output().unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    out.stdout
}
