//! The `.gitattributes` facts path selection needs, read from the working tree: one
//! `git check-attr` call (it reads attribute files and runs no filter, driver or hook), plus a
//! look at the directories next to changed paths for the build manifests that make a
//! `target/`, `build/`, `dist/`, … directory an output tree.

use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};

use crate::git::{Git, GitError, Repo};
use crate::pipeline::select::{Attributes, basename, manifest_matches, output_dirs_of, parent_of};

/// Reads the attributes that matter for selection for `paths` from the working tree.
///
/// One `git check-attr -z --stdin` call (check-attr reads attribute files and runs no filter,
/// driver or hook), plus a look at the working tree for the build manifests that make a
/// `target/`, `build/`, `dist/`, … directory an output tree.
pub fn read(git: &Git, repo: &Repo, paths: &[Vec<u8>]) -> Result<Attributes, GitError> {
    let mut attributes = Attributes::default();
    if paths.is_empty() {
        return Ok(attributes);
    }
    let mut stdin = Vec::new();
    for path in paths {
        stdin.extend_from_slice(path);
        stdin.push(0);
    }
    let mut cmd = git.command(&repo.top);
    repo.without_index(&mut cmd);
    cmd.args([
        "check-attr",
        "-z",
        "--stdin",
        "linguist-generated",
        "linguist-vendored",
        "diff",
    ]);
    let out = git.run(cmd, Some(stdin))?;
    // Output is `path NUL attribute NUL info NUL` per path and attribute.
    let body = out.strip_suffix(&[0u8][..]).unwrap_or(&out);
    let fields: Vec<&[u8]> = if body.is_empty() {
        Vec::new()
    } else {
        body.split(|&b| b == 0).collect()
    };
    if !fields.len().is_multiple_of(3) {
        return Err(GitError::Parse {
            command: "check-attr".to_owned(),
            detail: format!("{} NUL-separated fields", fields.len()),
        });
    }
    for record in fields.chunks_exact(3) {
        let (path, attr, info) = (record[0], record[1], record[2]);
        let on = info == b"set" || info == b"true";
        match attr {
            b"linguist-generated" if on => {
                attributes.generated.insert(path.to_vec());
            }
            b"linguist-vendored" if on => {
                attributes.vendored.insert(path.to_vec());
            }
            b"diff" if info == b"unset" => {
                attributes.no_diff.insert(path.to_vec());
            }
            _ => {}
        }
    }
    attributes.output_roots = find_output_roots(&repo.top, paths);
    Ok(attributes)
}

/// The output-tree directories among `paths`' ancestors that sit next to their manifest.
fn find_output_roots(top: &Path, paths: &[Vec<u8>]) -> HashSet<Vec<u8>> {
    let mut listings: HashMap<Vec<u8>, Vec<Vec<u8>>> = HashMap::new();
    let mut roots = HashSet::new();
    for path in paths {
        for dir in output_dirs_of(path) {
            if roots.contains(dir) {
                continue;
            }
            let parent = parent_of(dir);
            let names = listings
                .entry(parent.to_vec())
                .or_insert_with(|| list_dir(&top.join(bytes_path(parent))));
            if names.iter().any(|n| manifest_matches(basename(dir), n)) {
                roots.insert(dir.to_vec());
            }
        }
    }
    roots
}

/// File names in `dir` (regular files only; nothing is followed or read).
fn list_dir(dir: &Path) -> Vec<Vec<u8>> {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    entries
        .filter_map(Result::ok)
        .filter(|e| e.file_type().is_ok_and(|t| t.is_file()))
        .map(|e| os_bytes(&e.file_name()))
        .collect()
}

#[cfg(unix)]
fn bytes_path(raw: &[u8]) -> PathBuf {
    use std::os::unix::ffi::OsStrExt;
    PathBuf::from(std::ffi::OsStr::from_bytes(raw))
}

#[cfg(not(unix))]
fn bytes_path(raw: &[u8]) -> PathBuf {
    PathBuf::from(String::from_utf8_lossy(raw).into_owned())
}

#[cfg(unix)]
fn os_bytes(name: &std::ffi::OsStr) -> Vec<u8> {
    use std::os::unix::ffi::OsStrExt;
    name.as_bytes().to_vec()
}

#[cfg(not(unix))]
fn os_bytes(name: &std::ffi::OsStr) -> Vec<u8> {
    name.to_string_lossy().into_owned().into_bytes()
}
