//! The `.gitattributes` facts path selection needs, read from the working tree: one
//! `git check-attr` call (it reads attribute files and runs no filter, driver or hook), plus a
//! look at the directories next to changed paths for the build manifests that make a
//! `target/`, `build/`, `dist/`, … directory an output tree.
//!
//! Most repositories have no attribute file on a changed path's way to the root, and most
//! machines none of their own; then [`none_apply`] says so from a few `lstat`s and no git
//! process runs.

use std::collections::{HashMap, HashSet};
use std::ffi::OsString;
use std::path::{Path, PathBuf};

use crate::git::diff::Change;
use crate::git::repo::ConfigFacts;
use crate::git::{Git, GitError, Repo};

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
    if none_apply(repo, paths) {
        return Ok(unspecified(repo, paths));
    }
    let mut stdin = Vec::new();
    for path in paths {
        stdin.extend_from_slice(path);
        stdin.push(0);
    }
    // The output names each path once per attribute: its size follows from the input, which
    // the walk bounds (a large turn asks about tens of thousands of paths).
    let cap = (3 * stdin.len() + 96 * paths.len()).max(crate::git::runner::STDOUT_CAP);
    let git = git.clone().with_stdout_cap(cap);
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

/// The attributes of `paths` when no attribute file applies ([`none_apply`]): every
/// attribute unspecified, as `check-attr` would print, and the output trees from the working
/// tree.
pub fn unspecified(repo: &Repo, paths: &[Vec<u8>]) -> Attributes {
    Attributes {
        output_roots: find_output_roots(&repo.top, paths),
        ..Attributes::default()
    }
}

/// Whether git, asked for the attributes of `paths` the way [`read`] asks (working tree only),
/// would find no attribute file at all: none of the system file of its build, the global file
/// (`core.attributesFile`, else `$XDG_CONFIG_HOME/git/attributes` or
/// `~/.config/git/attributes`), `info/attributes`, or a `.gitattributes` in any directory from
/// the top of the working tree down to a path's own — and no `attr.tree` pointing elsewhere.
///
/// Anything unknown (a git too old to name its system file, config not read, a path git would
/// expand in a way this does not) or any entry found at one of those places, whatever it is,
/// answers `false`: the caller then asks git.
pub fn none_apply(repo: &Repo, paths: &[Vec<u8>]) -> bool {
    let Some(config) = &repo.facts.config else {
        return false;
    };
    let Some(system) = &repo.facts.system_attributes else {
        return false;
    };
    if config.attributes_tree || exists(system) {
        return false;
    }
    match global_file(config, &repo.top) {
        Err(Unknown) => return false,
        Ok(Some(global)) if exists(&global) => return false,
        Ok(_) => {}
    }
    let info = Path::new("info").join("attributes");
    if exists(&repo.git_dir.join(&info)) || exists(&repo.common_dir.join(&info)) {
        return false;
    }
    let mut seen: HashSet<&[u8]> = HashSet::new();
    for path in paths {
        // The top directory, then every directory on the way to the path's own.
        let dirs = std::iter::once(&path[..0]).chain(
            path.iter()
                .enumerate()
                .filter(|(_, b)| **b == b'/')
                .map(|(i, _)| &path[..i]),
        );
        for dir in dirs {
            if seen.insert(dir) && exists(&repo.top.join(bytes_path(dir)).join(".gitattributes")) {
                return false;
            }
        }
    }
    true
}

/// A fact this code cannot establish.
struct Unknown;

/// The global attributes file git would read, as `git var GIT_ATTR_GLOBAL` computes it: the
/// configured `core.attributesFile` (with `~/` expanded), else under `$XDG_CONFIG_HOME` or
/// `$HOME`; `None` when there is none. The environment is read here, not at the edge, because
/// it is the one git children inherit from this process.
fn global_file(config: &ConfigFacts, top: &Path) -> Result<Option<PathBuf>, Unknown> {
    let var = |name: &str| std::env::var_os(name);
    let suffixed = |base: OsString, suffix: &str| {
        let mut p = base;
        p.push(suffix);
        PathBuf::from(p)
    };
    match &config.attributes_file {
        Some(raw) => {
            if let Some(rest) = raw.strip_prefix(b"~/") {
                let home = var("HOME").ok_or(Unknown)?;
                return Ok(Some(PathBuf::from(home).join(bytes_path(rest))));
            }
            // `~user/`, `%(prefix)/`, an empty value: expansions this does not repeat.
            if raw.is_empty() || raw.starts_with(b"~") || raw.starts_with(b"%(prefix)") {
                return Err(Unknown);
            }
            Ok(Some(top.join(bytes_path(raw))))
        }
        None => Ok(match var("XDG_CONFIG_HOME").filter(|x| !x.is_empty()) {
            Some(xdg) => Some(suffixed(xdg, "/git/attributes")),
            None => var("HOME").map(|home| suffixed(home, "/.config/git/attributes")),
        }),
    }
}

/// Whether anything at all sits at `path` (a dangling link, a directory, an unreadable
/// entry all count: only a clean "not found" is absence).
fn exists(path: &Path) -> bool {
    !matches!(std::fs::symlink_metadata(path), Err(e) if e.kind() == std::io::ErrorKind::NotFound)
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

/// Per-path facts from `.gitattributes` (`linguist-generated`, `linguist-vendored`, `-diff`).
#[derive(Debug, Clone, Default)]
pub struct Attributes {
    pub generated: HashSet<Vec<u8>>,
    pub vendored: HashSet<Vec<u8>>,
    pub no_diff: HashSet<Vec<u8>>,
    /// Output directories (repository-relative, e.g. `target`, `app/build`) that sit next to
    /// the build manifest that writes them; everything under them is build output.
    pub output_roots: HashSet<Vec<u8>>,
}

/// The paths whose `.gitattributes` selection needs: every new and old path of `changes`.
pub fn paths_of(changes: &[Change]) -> Vec<Vec<u8>> {
    changes
        .iter()
        .flat_map(|c| std::iter::once(c.path.clone()).chain(c.old_path.clone()))
        .collect()
}

/// Output directory names and the manifests that put their build output there.
const OUTPUT_TREES: &[(&str, &[&str])] = &[
    ("target", &["Cargo.toml", "pom.xml", "build.sbt"]),
    (
        "build",
        &[
            "build.gradle",
            "build.gradle.kts",
            "settings.gradle",
            "settings.gradle.kts",
            "package.json",
            "CMakeLists.txt",
            "setup.py",
            "pyproject.toml",
            "pubspec.yaml",
            "meson.build",
        ],
    ),
    (
        "dist",
        &[
            "package.json",
            "setup.py",
            "pyproject.toml",
            "setup.cfg",
            "cabal.project",
        ],
    ),
    (
        "out",
        &[
            "package.json",
            "build.gradle",
            "build.gradle.kts",
            "tsconfig.json",
        ],
    ),
    ("bin", &[".csproj", ".fsproj", ".vbproj"]),
    ("obj", &[".csproj", ".fsproj", ".vbproj"]),
    ("_build", &["mix.exs", "dune-project", "rebar.config"]),
    (".build", &["Package.swift"]),
    ("dist-newstyle", &["cabal.project"]),
];

/// The directory prefixes of `path` whose last segment is an output-tree name.
pub fn output_dirs_of(path: &[u8]) -> Vec<&[u8]> {
    let mut out = Vec::new();
    let mut start = 0;
    for (i, &b) in path.iter().enumerate() {
        if b != b'/' {
            continue;
        }
        let segment = &path[start..i];
        if OUTPUT_TREES
            .iter()
            .any(|(name, _)| name.as_bytes() == segment)
        {
            out.push(&path[..i]);
        }
        start = i + 1;
    }
    out
}

/// The directory holding `dir` (`""` at the top).
pub fn parent_of(dir: &[u8]) -> &[u8] {
    match dir.iter().rposition(|&b| b == b'/') {
        Some(at) => &dir[..at],
        None => b"",
    }
}

/// The last segment of `path`.
pub fn basename(path: &[u8]) -> &[u8] {
    match path.iter().rposition(|&b| b == b'/') {
        Some(at) => &path[at + 1..],
        None => path,
    }
}

/// Whether `file` (repository-relative) is a manifest in `parent` that builds into `dir`.
pub fn is_manifest_for(dir: &[u8], parent: &[u8], file: &[u8]) -> bool {
    if parent_of(file) != parent || file == dir {
        return false;
    }
    manifest_matches(basename(dir), basename(file))
}

/// Whether `file_name` is a build manifest that writes an output tree named `dir_name`.
pub fn manifest_matches(dir_name: &[u8], file_name: &[u8]) -> bool {
    OUTPUT_TREES
        .iter()
        .filter(|(name, _)| name.as_bytes() == dir_name)
        .flat_map(|(_, manifests)| manifests.iter())
        .any(|m| {
            if m.starts_with('.') {
                file_name.ends_with(m.as_bytes()) && file_name.len() > m.len()
            } else {
                file_name == m.as_bytes()
            }
        })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::git::ObjectFormat;
    use crate::git::repo::Facts;

    /// A repository layout in a temp dir with everything known and no attribute file.
    fn repo(tmp: &Path) -> Repo {
        let top = tmp.join("top");
        let git_dir = top.join(".git");
        std::fs::create_dir_all(git_dir.join("info")).unwrap();
        Repo {
            index: git_dir.join("index"),
            objects: git_dir.join("objects"),
            common_dir: git_dir.clone(),
            git_dir,
            top,
            format: ObjectFormat::Sha1,
            filters: Vec::new(),
            facts: Facts {
                system_attributes: Some(tmp.join("etc/gitattributes")),
                config: Some(ConfigFacts {
                    attributes_file: Some(
                        tmp.join("global")
                            .to_string_lossy()
                            .into_owned()
                            .into_bytes(),
                    ),
                    attributes_tree: false,
                    staging_ignores_index: true,
                    places_worktree: false,
                    default_big_file_threshold: true,
                }),
            },
        }
    }

    fn paths(list: &[&str]) -> Vec<Vec<u8>> {
        list.iter().map(|p| p.as_bytes().to_vec()).collect()
    }

    #[test]
    fn every_place_git_reads_attributes_from_is_looked_at() {
        let tmp = tempfile::tempdir().unwrap();
        let base = repo(tmp.path());
        let changed = paths(&["a.txt", "src/deep/er/lib.rs"]);
        assert!(none_apply(&base, &changed));
        assert!(none_apply(&base, &[]));

        // Each of these makes the answer "ask git".
        let place = |rel: &str| tmp.path().join(rel);
        for file in [
            "etc/gitattributes",
            "global",
            "top/.git/info/attributes",
            "top/.gitattributes",
            "top/src/.gitattributes",
            "top/src/deep/er/.gitattributes",
        ] {
            let path = place(file);
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(&path, "* -diff\n").unwrap();
            assert!(!none_apply(&base, &changed), "{file}");
            std::fs::remove_file(&path).unwrap();
        }
        // A directory, or a dangling link, is something too.
        std::fs::create_dir(place("top/.gitattributes")).unwrap();
        assert!(!none_apply(&base, &changed));
        std::fs::remove_dir(place("top/.gitattributes")).unwrap();
        #[cfg(unix)]
        {
            std::os::unix::fs::symlink("/nonexistent", place("top/src/.gitattributes")).unwrap();
            assert!(!none_apply(&base, &changed));
            std::fs::remove_file(place("top/src/.gitattributes")).unwrap();
        }
        // A `.gitattributes` off every changed path's way does not count.
        std::fs::create_dir_all(place("top/docs")).unwrap();
        std::fs::write(place("top/docs/.gitattributes"), "* -diff\n").unwrap();
        assert!(none_apply(&base, &changed));
        assert!(!none_apply(&base, &paths(&["docs/x.md"])));
        assert!(none_apply(&base, &changed));
    }

    #[test]
    fn what_is_not_known_is_never_skipped() {
        let tmp = tempfile::tempdir().unwrap();
        let base = repo(tmp.path());
        let changed = paths(&["a.txt"]);
        let with = |f: &dyn Fn(&mut Repo)| {
            let mut r = base.clone();
            f(&mut r);
            none_apply(&r, &changed)
        };
        assert!(with(&|_| {}));
        assert!(!with(&|r| r.facts.system_attributes = None));
        assert!(!with(&|r| r.facts.config = None));
        let config = |f: &dyn Fn(&mut ConfigFacts)| with(&|r| f(r.facts.config.as_mut().unwrap()));
        assert!(!config(&|c| c.attributes_tree = true));
        for raw in ["", "~alice/attributes", "%(prefix)/etc/attributes"] {
            assert!(!config(&|c| c.attributes_file = Some(raw.into())), "{raw}");
        }
        // A relative path is read from the top of the working tree.
        assert!(config(
            &|c| c.attributes_file = Some(b"my-attributes".to_vec())
        ));
        std::fs::write(base.top.join("my-attributes"), "* -diff\n").unwrap();
        assert!(!config(
            &|c| c.attributes_file = Some(b"my-attributes".to_vec())
        ));
    }

    #[test]
    fn output_dirs_are_found_by_segment() {
        assert_eq!(output_dirs_of(b"app/build/out.js"), vec![&b"app/build"[..]]);
        assert!(output_dirs_of(b"src/build.rs").is_empty());
        assert!(manifest_matches(b"bin", b"App.csproj"));
        assert!(!manifest_matches(b"bin", b".csproj"));
    }
}
