//! The units a turn is judged by. A turn is many changes; the model reads each unit on its
//! own, so harmless code, tests or docs beside a risky change cannot dilute it (a turn is
//! risky when one of its units is).
//!
//! A unit is a set of hunks of one file with the file's header (path, role, created or
//! deleted), cut from the whole payload's parse, so a line moved between files still counts
//! as moved.

use super::features::{self, Features};
use super::hunks::{self, FileDiff, Hunk};

/// How a turn is cut into units.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Grouping {
    /// The whole turn is one unit.
    Whole,
    /// Each file is a unit.
    File,
    /// Each function of a file is a unit: consecutive hunks share one when git names the
    /// same enclosing function (or none) in their headers.
    Function,
    /// Related files are one unit: a file and its test (`parse.js`, `parse.test.js`), or files
    /// of one folder below the top two levels. Unrelated files stay apart.
    Family,
}

/// Most units read per turn; the rest of a very large turn is read as one last unit.
pub const MAX_UNITS: usize = 64;

/// Cuts parsed, marked files into units.
pub fn split<'a>(files: &[FileDiff<'a>], grouping: Grouping) -> Vec<Vec<FileDiff<'a>>> {
    let mut units: Vec<Vec<FileDiff<'a>>> = match grouping {
        Grouping::Whole => vec![files.to_vec()],
        Grouping::File => files.iter().map(|f| vec![f.clone()]).collect(),
        Grouping::Function => files.iter().flat_map(functions).map(|f| vec![f]).collect(),
        Grouping::Family => families(files)
            .into_iter()
            .map(|members| members.into_iter().map(|i| files[i].clone()).collect())
            .collect(),
    };
    if units.len() > MAX_UNITS {
        let rest: Vec<FileDiff<'a>> = units.drain(MAX_UNITS - 1..).flatten().collect();
        units.push(rest);
    }
    units
}

/// The features of each unit of a payload's unified diff.
pub fn features(diff: &str, grouping: Grouping) -> Vec<Features> {
    let mut files = hunks::parse(diff);
    hunks::mark_changed(&mut files);
    let context = super::detect::Context::of(&files);
    split(&files, grouping)
        .iter()
        .map(|unit| features::extract_files_in(unit, &context))
        .collect()
}

/// Stems too common to relate two files by (`index.js` of one package and of another).
const GENERIC_STEMS: &[&str] = &[
    "",
    "index",
    "mod",
    "lib",
    "main",
    "init",
    "__init__",
    "utils",
    "util",
    "helpers",
    "helper",
    "common",
    "base",
    "core",
    "types",
    "constants",
    "config",
    "settings",
    "setup",
    "conftest",
    "readme",
    "changelog",
    "test",
    "tests",
    "spec",
    "app",
    "server",
    "client",
    "api",
    "package",
    "cargo",
    "makefile",
    "dockerfile",
    "build",
    "errors",
    "error",
];

/// A file's stem without test affixes, lower-cased: `tests/test_parse.py` → `parse`.
fn family_stem(path: &str) -> String {
    let name = path.rsplit('/').next().unwrap_or(path);
    let stem = name.split('.').next().unwrap_or(name);
    let stem = stem
        .strip_suffix("Tests")
        .or_else(|| stem.strip_suffix("Test"))
        .or_else(|| stem.strip_suffix("Spec"))
        .unwrap_or(stem);
    let lower = stem.to_ascii_lowercase();
    let lower = lower
        .strip_prefix("test_")
        .or_else(|| lower.strip_suffix("_test"))
        .or_else(|| lower.strip_suffix("_tests"))
        .or_else(|| lower.strip_suffix("_spec"))
        .unwrap_or(&lower)
        .to_owned();
    if GENERIC_STEMS.contains(&lower.as_str()) {
        String::new()
    } else {
        lower
    }
}

/// The folder a file relates others by: its parent, when that is at least three levels
/// deep (`a/b/c/x.go`); shallower folders (`src/`, `lib/foo/`) hold unrelated files too often.
fn family_dir(path: &str) -> Option<&str> {
    let (dir, _) = path.rsplit_once('/')?;
    (dir.matches('/').count() >= 2).then_some(dir)
}

/// The files of each family, in order of their first file.
fn families(files: &[FileDiff<'_>]) -> Vec<Vec<usize>> {
    let mut parent: Vec<usize> = (0..files.len()).collect();
    fn root(parent: &mut [usize], mut i: usize) -> usize {
        while parent[i] != i {
            parent[i] = parent[parent[i]];
            i = parent[i];
        }
        i
    }
    let keys: Vec<(String, Option<&str>)> = files
        .iter()
        .map(|f| (family_stem(&f.path), family_dir(&f.path)))
        .collect();
    for i in 0..files.len() {
        if files[i].role == super::hunks::Role::Docs {
            continue;
        }
        for j in 0..i {
            if files[j].role == super::hunks::Role::Docs {
                continue;
            }
            let same_stem = !keys[i].0.is_empty() && keys[i].0 == keys[j].0;
            let same_dir = keys[i].1.is_some() && keys[i].1 == keys[j].1;
            if same_stem || same_dir {
                let (a, b) = (root(&mut parent, i), root(&mut parent, j));
                parent[a.max(b)] = a.min(b);
            }
        }
    }
    let mut groups: Vec<Vec<usize>> = Vec::new();
    let mut at: Vec<Option<usize>> = vec![None; files.len()];
    for i in 0..files.len() {
        let r = root(&mut parent, i);
        match at[r] {
            Some(g) => groups[g].push(i),
            None => {
                at[r] = Some(groups.len());
                groups.push(vec![i]);
            }
        }
    }
    groups
}

/// A file's hunks grouped by enclosing function: one copy of the file per group.
fn functions<'a>(file: &FileDiff<'a>) -> Vec<FileDiff<'a>> {
    if file.hunks.len() <= 1 {
        return vec![file.clone()];
    }
    let mut groups: Vec<Vec<Hunk<'a>>> = Vec::new();
    let mut last: Option<&str> = None;
    for hunk in &file.hunks {
        match (groups.last_mut(), last) {
            (Some(group), Some(header)) if header == hunk.header => group.push(hunk.clone()),
            _ => groups.push(vec![hunk.clone()]),
        }
        last = Some(hunk.header);
    }
    groups
        .into_iter()
        .map(|hunks| FileDiff {
            hunks,
            ..file.clone()
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::super::hunks;
    use super::*;

    const TWO_FILES: &str = "diff --git a/src/a.py b/src/a.py\n--- a/src/a.py\n+++ b/src/a.py\n\
        @@ -1,2 +1,2 @@ def f():\n-    return 1\n+    return 2\n\
        @@ -10,2 +10,2 @@ def f():\n-    x = 1\n+    x = 3\n\
        @@ -20,2 +20,2 @@ def g():\n-    y = 1\n+    y = 4\n\
        diff --git a/README.md b/README.md\n--- a/README.md\n+++ b/README.md\n@@ -1 +1 @@\n-old\n\
        +new\n";

    #[test]
    fn groupings_cut_where_they_say() {
        let mut files = hunks::parse(TWO_FILES);
        hunks::mark_changed(&mut files);
        assert_eq!(split(&files, Grouping::Whole).len(), 1);
        assert_eq!(split(&files, Grouping::File).len(), 2);
        let f = split(&files, Grouping::Function);
        assert_eq!(f.len(), 3);
        assert_eq!(f[0][0].hunks.len(), 2);
        assert_eq!(f[1][0].hunks[0].header, "def g():");
        assert_eq!(f[2][0].path, "README.md");
    }

    #[test]
    fn a_move_between_files_stays_a_move_in_units() {
        let diff = "diff --git a/a.py b/a.py\n--- a/a.py\n+++ b/a.py\n@@ -1,2 +1,1 @@\n x = 1\n\
            -def helper(): return 42\n\
            diff --git a/b.py b/b.py\n--- a/b.py\n+++ b/b.py\n@@ -1,1 +1,2 @@\n y = 1\n\
            +def helper(): return 42\n";
        let mut files = hunks::parse(diff);
        hunks::mark_changed(&mut files);
        for unit in split(&files, Grouping::File) {
            assert!(
                unit[0]
                    .hunks
                    .iter()
                    .flat_map(|h| &h.lines)
                    .all(|l| !l.changed)
            );
        }
    }

    #[test]
    fn very_large_turns_keep_a_bounded_number_of_units() {
        let diff: String = (0..200)
            .map(|i| {
                format!(
                    "diff --git a/f{i}.py b/f{i}.py\n--- a/f{i}.py\n+++ b/f{i}.py\n\
                @@ -1 +1 @@\n-a = {i}\n+a = {}\n",
                    i + 1
                )
            })
            .collect();
        let mut files = hunks::parse(&diff);
        hunks::mark_changed(&mut files);
        let units = split(&files, Grouping::File);
        assert_eq!(units.len(), MAX_UNITS);
        assert_eq!(units.iter().map(Vec::len).sum::<usize>(), 200);
    }
}
