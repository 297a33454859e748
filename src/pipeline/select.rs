//! Which changed paths may be scored: built-in excludes, `.gitattributes`, user globs.
//!
//! A change is left out when any of these says so, checked in this order:
//! `.gitattributes` (`linguist-generated`, `linguist-vendored`, `-diff`); the user's
//! `exclude` globs (last match wins; a `!glob` re-includes a path the built-in path rules
//! would drop); built-in path rules (lockfiles, vendored and dependency trees, caches,
//! minified and generated file names, media, fonts, documents, archives and object files);
//! build output trees (`target/`, `build/`, `dist/`, … only next to the build manifest that
//! produces them); a generated-file header at the top of the new file; minified content.
//! A rename or copy is left out when either of its paths is.
//!
//! User glob semantics (gitignore-like, compiled once with `globset`), matched against the
//! repository-relative path with `/` separators, case-sensitively:
//! - `*` matches within one path segment, `?` one character other than `/`, `[a-z]` a class,
//!   `{a,b}` either alternative, `**` any number of whole segments (`a/**/b`, `**/x`, `x/**`);
//! - a glob without a `/` (other than a trailing one) matches the basename at any depth;
//! - a glob with a `/` at the start or in the middle is anchored at the repository top
//!   (a leading `/` is dropped);
//! - every glob also matches everything under a directory it matches (`docs` drops
//!   `docs/a.md`); a trailing `/` matches directories only;
//! - `!glob` re-includes; `\` escapes a special character.

use std::collections::HashSet;
use std::fmt;

use globset::{Glob, GlobBuilder, GlobSet, GlobSetBuilder};

use crate::git::attributes::Attributes;
use crate::git::attributes::{basename, is_manifest_for, output_dirs_of, parent_of};
use crate::git::diff::Change;

/// Compiled exclude rules (built-ins plus the user's globs).
#[derive(Debug, Clone)]
pub struct Selector {
    /// Built-in globs, lowercased, matched against the lowercased path.
    builtin: GlobSet,
    builtin_reasons: Vec<&'static str>,
    user: GlobSet,
    /// For each compiled user glob: the pattern as written and whether it re-includes.
    user_rules: Vec<(String, bool)>,
}

/// A user glob that does not compile.
#[derive(Debug, thiserror::Error)]
#[error("invalid exclude glob `{glob}`: {detail}")]
pub struct SelectError {
    pub glob: String,
    pub detail: String,
}

/// Lockfiles of every major ecosystem, by basename.
const LOCKFILES: &[&str] = &[
    "Cargo.lock",
    "package-lock.json",
    "npm-shrinkwrap.json",
    "yarn.lock",
    "pnpm-lock.yaml",
    "bun.lock",
    "bun.lockb",
    "deno.lock",
    "Gemfile.lock",
    "gems.locked",
    "Pipfile.lock",
    "poetry.lock",
    "uv.lock",
    "pdm.lock",
    "pixi.lock",
    "conda-lock.yml",
    "composer.lock",
    "go.sum",
    "go.work.sum",
    "Podfile.lock",
    "Package.resolved",
    "Cartfile.resolved",
    "packages.lock.json",
    "paket.lock",
    "project.assets.json",
    "mix.lock",
    "pubspec.lock",
    "flake.lock",
    "gradle.lockfile",
    "*.lockfile",
    "Manifest.toml",
    "cabal.project.freeze",
    "stack.yaml.lock",
    "shard.lock",
    "rebar.lock",
    ".terraform.lock.hcl",
    "renv.lock",
    "MODULE.bazel.lock",
    "conan.lock",
    "vcpkg-lock.json",
];

/// Dependency and vendored trees, by directory name at any depth.
const VENDORED_DIRS: &[&str] = &[
    "vendor",
    "node_modules",
    "third_party",
    "third-party",
    "thirdparty",
    "bower_components",
    "jspm_packages",
    "Pods",
    "Carthage",
    "site-packages",
    ".venv",
    "venv",
    ".bundle",
    "elm-stuff",
    "Godeps",
    ".yarn",
];

/// Caches and tool output that are never source, by directory name at any depth.
const CACHE_DIRS: &[&str] = &[
    "__pycache__",
    ".pytest_cache",
    ".mypy_cache",
    ".ruff_cache",
    ".tox",
    ".nox",
    ".next",
    ".nuxt",
    ".svelte-kit",
    ".angular",
    ".parcel-cache",
    ".turbo",
    ".gradle",
    ".terraform",
    ".dart_tool",
    "DerivedData",
    "*.egg-info",
    "bazel-bin",
    "bazel-out",
    "bazel-testlogs",
    "cmake-build-*",
    "CMakeFiles",
    ".cache",
];

/// File names that tools generate.
const GENERATED_NAMES: &[&str] = &[
    "*.pb.go",
    "*.pb.gw.go",
    "*_pb2.py",
    "*_pb2.pyi",
    "*_pb2_grpc.py",
    "*.pb.cc",
    "*.pb.h",
    "*_grpc.pb.go",
    "*.g.dart",
    "*.freezed.dart",
    "*.Designer.cs",
    "*.designer.cs",
    "*.g.cs",
    "zz_generated*.go",
    ".pnp.cjs",
    ".pnp.loader.mjs",
];

const MINIFIED: &[&str] = &[
    "*.min.js",
    "*.min.mjs",
    "*.min.cjs",
    "*.min.css",
    "*-min.js",
    "*-min.css",
    "*.js.map",
    "*.css.map",
    "*.mjs.map",
    "*.map",
];

const MEDIA: &[&str] = &[
    "png", "jpg", "jpeg", "gif", "bmp", "ico", "icns", "webp", "avif", "tif", "tiff", "psd",
    "heic", "heif", "svg", "eps", "ai", "xcf", "raw", "cr2", "nef", "mp3", "mp4", "m4a", "m4v",
    "wav", "ogg", "oga", "ogv", "flac", "aac", "opus", "webm", "mov", "avi", "mkv", "wmv", "mpg",
    "mpeg", "3gp", "blend", "fbx", "glb", "gltf", "obj", "stl",
];

const FONTS: &[&str] = &["woff", "woff2", "ttf", "otf", "eot", "ttc", "pfb", "pfm"];

const DOCUMENTS: &[&str] = &[
    "pdf", "doc", "docx", "xls", "xlsx", "ppt", "pptx", "odt", "ods", "odp", "rtf", "epub",
    "pages", "numbers", "key", "vsd", "vsdx",
];

const ARCHIVES_AND_OBJECTS: &[&str] = &[
    "zip", "tar", "gz", "tgz", "bz2", "xz", "zst", "7z", "rar", "jar", "war", "ear", "aar", "whl",
    "egg", "nupkg", "gem", "deb", "rpm", "dmg", "iso", "apk", "ipa", "so", "dylib", "dll", "exe",
    "o", "a", "lib", "obj", "class", "pyc", "pyo", "wasm", "bin", "dat", "db", "sqlite", "sqlite3",
    "pdb", "idb", "ilk", "rlib", "rmeta",
];

fn builtin_globs() -> Vec<(String, &'static str)> {
    let mut globs = Vec::new();
    for name in LOCKFILES {
        globs.push((format!("**/{name}"), "lockfile"));
    }
    for dir in VENDORED_DIRS {
        globs.push((format!("**/{dir}/**"), "vendored or dependency tree"));
    }
    for dir in CACHE_DIRS {
        globs.push((format!("**/{dir}/**"), "tool cache or output"));
    }
    for name in GENERATED_NAMES {
        globs.push((format!("**/{name}"), "generated file name"));
    }
    for name in MINIFIED {
        globs.push((format!("**/{name}"), "minified file or source map"));
    }
    for (exts, why) in [
        (MEDIA, "media file"),
        (FONTS, "font file"),
        (DOCUMENTS, "document file"),
        (ARCHIVES_AND_OBJECTS, "archive or compiled object"),
    ] {
        for ext in exts {
            globs.push((format!("**/*.{ext}"), why));
        }
    }
    globs
}

fn compile(pattern: &str, case_insensitive: bool) -> Result<Glob, globset::Error> {
    GlobBuilder::new(pattern)
        .literal_separator(true)
        .backslash_escape(true)
        .case_insensitive(case_insensitive)
        .build()
}

/// Turns one user glob into the globset patterns that give it gitignore-like meaning.
fn expand_user_glob(raw: &str) -> Result<(Vec<String>, bool), String> {
    let (negated, body) = match raw.strip_prefix('!') {
        Some(rest) => (true, rest),
        None => (false, raw),
    };
    if body.trim().is_empty() {
        return Err("empty pattern".to_owned());
    }
    let (body, dir_only) = match body.strip_suffix('/') {
        Some(rest) => (rest, true),
        None => (body, false),
    };
    if body.is_empty() {
        return Err("a pattern of only `/` matches nothing".to_owned());
    }
    let anchored = body.starts_with('/') || body.contains('/');
    let body = body.trim_start_matches('/');
    let base = if anchored || body.starts_with("**") {
        body.to_owned()
    } else {
        format!("**/{body}")
    };
    let mut out = vec![format!("{base}/**")];
    if !dir_only {
        out.push(base);
    }
    Ok((out, negated))
}

impl Selector {
    pub fn new(user_excludes: &[String]) -> Result<Selector, SelectError> {
        let mut builtin = GlobSetBuilder::new();
        let mut builtin_reasons = Vec::new();
        // Built-ins match case-insensitively. A case-insensitive glob can only compile to a
        // regex, while a lowercase one matched against the lowercased path mostly compiles to
        // literal and extension lookups: the same verdicts for a third of the start-up cost.
        for (pattern, why) in builtin_globs() {
            let glob = compile(&pattern.to_lowercase(), false).expect("built-in globs compile");
            builtin.add(glob);
            builtin_reasons.push(why);
        }
        let mut user = GlobSetBuilder::new();
        let mut user_rules = Vec::new();
        for raw in user_excludes {
            let fail = |detail: String| SelectError {
                glob: raw.clone(),
                detail,
            };
            let (patterns, negated) = expand_user_glob(raw).map_err(fail)?;
            for pattern in patterns {
                let glob = compile(&pattern, false).map_err(|e| fail(e.kind().to_string()))?;
                user.add(glob);
                user_rules.push((raw.clone(), negated));
            }
        }
        Ok(Selector {
            builtin: builtin.build().expect("built-in glob set builds"),
            builtin_reasons,
            user: user.build().map_err(|e| SelectError {
                glob: user_excludes.join(", "),
                detail: e.to_string(),
            })?,
            user_rules,
        })
    }

    /// The user's verdict on a path: `Some(true)` excluded by a glob, `Some(false)`
    /// re-included by a `!glob`, `None` no user glob matches. The last matching glob wins.
    fn user_verdict(&self, path: &str) -> Option<(bool, &str)> {
        let last = self.user.matches(path).into_iter().max()?;
        let (pattern, negated) = &self.user_rules[last];
        Some((!negated, pattern.as_str()))
    }

    fn builtin_reason(&self, path: &str) -> Option<&'static str> {
        let first = self
            .builtin
            .matches(path.to_lowercase())
            .into_iter()
            .min()?;
        Some(self.builtin_reasons[first])
    }

    /// Whether the path rules alone — the user's globs and the built-in names, with no
    /// attributes and no build output trees known — exclude `raw` from scoring.
    pub fn excludes_by_path(&self, raw: &[u8]) -> bool {
        let path = String::from_utf8_lossy(raw);
        match self.user_verdict(&path) {
            Some((excluded, _)) => excluded,
            None => self.builtin_reason(&path).is_some(),
        }
    }

    /// Why `path` is excluded by path alone (attributes, globs, output trees), if it is.
    fn path_reason(
        &self,
        raw: &[u8],
        attributes: &Attributes,
        output_roots: &HashSet<Vec<u8>>,
    ) -> Option<ExcludeReason> {
        if attributes.generated.contains(raw) {
            return Some(ExcludeReason::Attribute("linguist-generated"));
        }
        if attributes.vendored.contains(raw) {
            return Some(ExcludeReason::Attribute("linguist-vendored"));
        }
        if attributes.no_diff.contains(raw) {
            return Some(ExcludeReason::Attribute("-diff"));
        }
        let path = String::from_utf8_lossy(raw);
        match self.user_verdict(&path) {
            Some((true, glob)) => return Some(ExcludeReason::User(glob.to_owned())),
            Some((false, _)) => return None,
            None => {}
        }
        if let Some(why) = self.builtin_reason(&path) {
            return Some(ExcludeReason::Builtin(why));
        }
        let dirs: Vec<&[u8]> = raw.split(|&b| b == b'/').collect();
        for end in 1..dirs.len() {
            let dir = raw_prefix(raw, &dirs, end);
            if output_roots.contains(dir) {
                return Some(ExcludeReason::Builtin("build output"));
            }
        }
        None
    }
}

/// The first `segments` segments of `raw` as a byte slice of it.
fn raw_prefix<'a>(raw: &'a [u8], dirs: &[&[u8]], segments: usize) -> &'a [u8] {
    let len: usize = dirs[..segments].iter().map(|d| d.len()).sum::<usize>() + segments - 1;
    &raw[..len]
}

/// Why a path was left out.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ExcludeReason {
    Builtin(&'static str),
    Attribute(&'static str),
    GeneratedHeader,
    User(String),
}

impl fmt::Display for ExcludeReason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ExcludeReason::Builtin(what) => write!(f, "{what}"),
            ExcludeReason::Attribute(attr) => write!(f, "gitattributes `{attr}`"),
            ExcludeReason::GeneratedHeader => f.write_str("generated-file header"),
            ExcludeReason::User(glob) => write!(f, "exclude `{glob}`"),
        }
    }
}

/// A path that was left out and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Excluded {
    pub path: String,
    pub reason: ExcludeReason,
}

/// The outcome of selection.
#[derive(Debug, Clone, Default)]
pub struct Selection {
    pub kept: Vec<Change>,
    pub excluded: Vec<Excluded>,
}

/// Splits changes into those that may be scored and those left out.
pub fn select(changes: Vec<Change>, selector: &Selector, attributes: &Attributes) -> Selection {
    // A manifest changed in this very turn also marks its sibling output trees.
    let mut output_roots = attributes.output_roots.clone();
    let changed: Vec<&[u8]> = changes.iter().map(|c| c.path.as_slice()).collect();
    for path in &changed {
        for dir in output_dirs_of(path) {
            let parent = parent_of(dir);
            if changed
                .iter()
                .any(|other| is_manifest_for(dir, parent, other))
            {
                output_roots.insert(dir.to_vec());
            }
        }
    }
    let mut selection = Selection::default();
    for change in changes {
        let reason = std::iter::once(&change.path)
            .chain(change.old_path.as_ref())
            .find_map(|p| selector.path_reason(p, attributes, &output_roots))
            .or_else(|| content_reason(&change));
        match reason {
            Some(reason) => selection.excluded.push(Excluded {
                path: String::from_utf8_lossy(&change.path).into_owned(),
                reason,
            }),
            None => selection.kept.push(change),
        }
    }
    selection
}

/// Lines of the new file's top examined for a generated-file header.
const HEADER_LINES: usize = 12;

/// Exclusion decided by the patch itself: a generated-file header or minified content.
fn content_reason(change: &Change) -> Option<ExcludeReason> {
    if change.patch.is_empty() {
        return None;
    }
    if has_generated_header(&change.patch) {
        return Some(ExcludeReason::GeneratedHeader);
    }
    if is_minified(change) {
        return Some(ExcludeReason::Builtin("minified content"));
    }
    None
}

/// Whether the new side of the patch starts at line 1 with a generated-file header.
fn has_generated_header(patch: &[u8]) -> bool {
    let mut lines = patch.split(|&b| b == b'\n');
    // Skip to the first hunk; it must cover the new file's first line.
    let Some(hunk) = lines.by_ref().find(|l| l.starts_with(b"@@ ")) else {
        return false;
    };
    let hunk = String::from_utf8_lossy(hunk);
    let new_start = hunk
        .split_whitespace()
        .find(|w| w.starts_with('+'))
        .and_then(|w| w[1..].split(',').next()?.parse::<u64>().ok());
    if new_start != Some(1) {
        return false;
    }
    lines
        .filter(|l| l.first().is_some_and(|&b| b == b'+' || b == b' '))
        .take(HEADER_LINES)
        .any(|l| is_generated_marker(&String::from_utf8_lossy(&l[1..]).to_ascii_lowercase()))
}

fn is_generated_marker(line: &str) -> bool {
    line.contains("@generated")
        || line.contains("<auto-generated")
        || (line.contains("generated")
            && (line.contains("do not edit")
                || line.contains("do not modify")
                || line.contains("automatically generated")
                || line.contains("auto-generated")
                || line.contains("autogenerated")))
}

/// Minified scripts and stylesheets: very long added lines in a `.js`/`.css` file.
fn is_minified(change: &Change) -> bool {
    let name = String::from_utf8_lossy(basename(&change.path)).to_ascii_lowercase();
    if ![".js", ".mjs", ".cjs", ".css"]
        .iter()
        .any(|ext| name.ends_with(ext))
    {
        return false;
    }
    change
        .patch
        .split(|&b| b == b'\n')
        .any(|l| l.starts_with(b"+") && !l.starts_with(b"+++") && l.len() > 1000)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn user_globs_expand_like_gitignore() {
        for (raw, want, negated) in [
            ("*.snap", vec!["**/*.snap/**", "**/*.snap"], false),
            ("docs/", vec!["**/docs/**"], false),
            ("/build", vec!["build/**", "build"], false),
            (
                "src/gen/*.rs",
                vec!["src/gen/*.rs/**", "src/gen/*.rs"],
                false,
            ),
            ("!keep.lock", vec!["**/keep.lock/**", "**/keep.lock"], true),
            ("**/fixtures", vec!["**/fixtures/**", "**/fixtures"], false),
        ] {
            let (got, neg) = expand_user_glob(raw).unwrap();
            assert_eq!(got, want, "{raw}");
            assert_eq!(neg, negated, "{raw}");
        }
        assert!(expand_user_glob("").is_err());
        assert!(expand_user_glob("!").is_err());
    }
}
