//! Which changed files a reviewer looks at first when not all of them fit: the payload's size
//! policy keeps whole files in this order, and a snapshot of a turn too large to read whole
//! reads files in this order (see [`crate::git::snapshot`]), so that both keep the same ones.
//!
//! The order: a file's [`Tier`] (ordinary changes, then new files that came in bulk, then
//! files whose content was never read), then its [`Class`] (source, then tests, then the rest:
//! config, docs, data), then the smaller first. A new file is *bulk* when its directory got
//! [`BULK_DIR_FILES`] new files or more in the same change, or the directory above it
//! [`BULK_TREE_FILES`] or more (counted at any depth): a dependency folder, generated output,
//! a data dump — what a person skims, not what they read line by line. It is a heuristic on
//! paths and counts alone, and it only decides what goes first.

use std::collections::{HashMap, HashSet};

use crate::pipeline::paths::is_test_path;

/// New files in one directory, directly, from which they are bulk.
pub const BULK_DIR_FILES: usize = 50;
/// New files under one directory (at any depth), from which the new files of its immediate
/// subdirectories are bulk. The repository's top level never counts, and neither does any
/// directory higher up: a turn that writes many files somewhere does not make its other new
/// files bulk.
pub const BULK_TREE_FILES: usize = 200;

/// What kind of file a path names.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Class {
    Source,
    Test,
    Other,
}

/// How much a change's content can be had and is worth, before its class.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Tier {
    /// Every change of an ordinary turn: its diff can be shown.
    Ordinary,
    /// A new file that came in bulk.
    Bulk,
    /// A change whose content was never read (a turn too large to read whole).
    Unread,
}

const SOURCE_EXTENSIONS: &[&str] = &[
    "rs", "go", "py", "pyi", "js", "jsx", "mjs", "cjs", "ts", "tsx", "mts", "cts", "java", "kt",
    "kts", "scala", "swift", "m", "mm", "c", "cc", "cpp", "cxx", "h", "hh", "hpp", "hxx", "cs",
    "fs", "vb", "rb", "php", "pl", "pm", "lua", "dart", "ex", "exs", "erl", "hrl", "hs", "ml",
    "mli", "clj", "cljs", "elm", "r", "jl", "sh", "bash", "zsh", "fish", "ps1", "sql", "vue",
    "svelte", "groovy", "tf", "proto", "graphql", "gql", "sol", "zig", "nim", "cr", "v", "f90",
    "asm", "s", "cu", "metal", "wgsl", "glsl", "hlsl",
];

/// Source before tests before everything else (config, docs, data).
pub fn classify(path: &str) -> Class {
    let lower = path.to_ascii_lowercase();
    let name = lower.rsplit('/').next().unwrap_or(&lower);
    if is_test_path(path) {
        return Class::Test;
    }
    let ext = name.rsplit_once('.').map(|(_, e)| e).unwrap_or("");
    if SOURCE_EXTENSIONS.contains(&ext) {
        Class::Source
    } else {
        Class::Other
    }
}

/// The directory part of `path` (`b""` at the top level).
fn parent(path: &[u8]) -> &[u8] {
    match path.iter().rposition(|&b| b == b'/') {
        Some(at) => &path[..at],
        None => b"",
    }
}

/// The new files among `added` (repository-relative, `/`-separated) that came in bulk.
pub fn bulk<'a>(added: impl IntoIterator<Item = &'a [u8]> + Clone) -> HashSet<&'a [u8]> {
    let mut direct: HashMap<&[u8], usize> = HashMap::new();
    let mut below: HashMap<&[u8], usize> = HashMap::new();
    for path in added.clone() {
        let dir = parent(path);
        *direct.entry(dir).or_default() += 1;
        // Every directory above the file's own, the top level left out.
        let mut up = dir;
        while !up.is_empty() {
            up = parent(up);
            if up.is_empty() {
                break;
            }
            *below.entry(up).or_default() += 1;
        }
    }
    if direct.values().all(|&n| n < BULK_DIR_FILES) && below.values().all(|&n| n < BULK_TREE_FILES)
    {
        return HashSet::new();
    }
    added
        .into_iter()
        .filter(|path| {
            let dir = parent(path);
            if direct.get(dir).is_some_and(|&n| n >= BULK_DIR_FILES) {
                return true;
            }
            let above = parent(dir);
            !above.is_empty() && below.get(above).is_some_and(|&n| n >= BULK_TREE_FILES)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn classes_order_source_tests_other() {
        for (class, paths) in [
            (Class::Source, "src/lib.rs cmd/main.go"),
            (
                Class::Test,
                "pkg/server_test.go tests/it/main.rs app/__tests__/a.js \
                web/button.test.tsx src/test/java/FooTest.java test_api.py",
            ),
            (Class::Other, "config.yaml README.md Cargo.toml"),
        ] {
            for path in paths.split_whitespace() {
                assert_eq!(classify(path), class, "{path}");
            }
        }
    }

    #[test]
    fn bulk_is_many_new_files_in_one_directory_or_one_tree() {
        let mut added: Vec<String> = vec![
            "src/new_feature.rs".into(),
            "packages/bar/src/x.ts".into(),
            "README.md".into(),
        ];
        // One directory with 50 new files: bulk; one with 49: not.
        added.extend((0..50).map(|i| format!("gen/flat/f{i}.js")));
        added.extend((0..49).map(|i| format!("docs/d{i}.md")));
        // 200 files spread thin (4 per directory) under one tree two levels up: bulk.
        added.extend((0..200).map(|i| format!("packages/foo/out/p{}/f{i}.js", i / 4)));
        let bytes: Vec<&[u8]> = added.iter().map(|p| p.as_bytes()).collect();
        let found = bulk(bytes.iter().copied());
        let is = |p: &str| found.contains(p.as_bytes());
        assert!(is("gen/flat/f0.js") && is("gen/flat/f49.js"));
        assert!(is("packages/foo/out/p0/f0.js") && is("packages/foo/out/p49/f199.js"));
        assert!(!is("docs/d0.md"));
        // The files beside them are not bulk: the top level, and `packages/` (which holds
        // the bulk two levels down), do not count.
        assert!(!is("src/new_feature.rs") && !is("packages/bar/src/x.ts") && !is("README.md"));
        assert_eq!(found.len(), 250);
        // Few new files: nothing is bulk.
        assert!(bulk([&b"a/b.rs"[..], b"a/c.rs"]).is_empty());
    }
}
