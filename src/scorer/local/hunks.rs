//! The unified diff as the local scorer reads it: files, hunks, and changed lines with their
//! line numbers, plus each file's language and role (source, test, config, …).

use std::collections::HashSet;

use crate::git::diff::patch::marker_path;
use crate::git::quote::unquote;
use crate::pipeline::paths::is_test_path;

/// The programming language of a file, from its extension.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Lang {
    Go,
    Python,
    JavaScript,
    Rust,
    Java,
    Ruby,
    Sql,
    /// Markup, data and anything else.
    Other,
}

impl Lang {
    /// Languages where `#` starts a comment.
    fn hash_comments(self) -> bool {
        matches!(self, Lang::Python | Lang::Ruby | Lang::Other)
    }
}

/// What a file is for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Role {
    Source,
    Test,
    /// Configuration data (YAML, JSON, TOML, properties, env files).
    Config,
    /// A dependency manifest (`go.mod`, `package.json`, `Cargo.toml`, …).
    Manifest,
    /// Prose: Markdown, text, licences.
    Docs,
}

/// How a line changed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    Context,
    Added,
    Removed,
}

/// One line of a hunk.
#[derive(Debug, Clone)]
pub struct Line<'a> {
    pub kind: Kind,
    /// The text without its `+`/`-`/` ` prefix.
    pub text: &'a str,
    /// New-file line number; for a removed line, the new-file line where the removal sits.
    pub new_line: u32,
    /// Set by [`mark_changed`]: the line carries a real change (not blank, not a
    /// comment, not moved or re-indented).
    pub changed: bool,
}

/// One `@@` hunk.
#[derive(Debug, Clone, Default)]
pub struct Hunk<'a> {
    /// The text after the second `@@` (git's function context), trimmed.
    pub header: &'a str,
    pub lines: Vec<Line<'a>>,
}

/// One file's section of the diff.
#[derive(Debug, Clone)]
pub struct FileDiff<'a> {
    pub path: String,
    pub lang: Lang,
    pub role: Role,
    /// Whether the path looks like a schema migration.
    pub migration: bool,
    pub created: bool,
    pub deleted: bool,
    pub hunks: Vec<Hunk<'a>>,
}

impl FileDiff<'_> {
    /// Whether `text` is a comment line in this file's language.
    pub fn is_comment(&self, text: &str) -> bool {
        let t = text.trim_start();
        t.starts_with("//")
            || t.starts_with("/*")
            || t.starts_with("* ")
            || t == "*"
            || t.starts_with("*/")
            || (self.lang.hash_comments()
                && t.starts_with('#')
                && !t.starts_with("#{")
                && !(self.lang == Lang::Other && preprocessor_directive(t)))
            || (self.lang == Lang::Sql && t.starts_with("--"))
            || (self.lang == Lang::Python && (t.starts_with("\"\"\"") || t.starts_with("'''")))
    }
}

/// A C-family preprocessor directive (`#if`, `#ifdef X`, `#endif`, `#include <x>`): code in
/// C, C++, C#, Objective-C and Swift, not a comment.
fn preprocessor_directive(t: &str) -> bool {
    let word: String = t[1..]
        .trim_start()
        .chars()
        .take_while(char::is_ascii_alphabetic)
        .collect();
    let rest = &t[1..].trim_start()[word.len()..];
    matches!(
        word.as_str(),
        "if" | "ifdef"
            | "ifndef"
            | "elif"
            | "else"
            | "endif"
            | "define"
            | "undef"
            | "include"
            | "import"
            | "pragma"
    ) && (rest.is_empty() || rest.starts_with([' ', '\t', '(', '<', '"', '!']))
        && t.as_bytes()
            .get(1)
            .is_some_and(|c| !c.is_ascii_whitespace())
}

/// Splits a payload diff into files. Tolerates metadata-only sections and markers.
pub fn parse(diff: &str) -> Vec<FileDiff<'_>> {
    let mut files: Vec<FileDiff<'_>> = Vec::new();
    let mut new_line = 0u32;
    for raw in diff.split('\n') {
        let raw = raw.strip_suffix('\r').unwrap_or(raw);
        if let Some(rest) = raw.strip_prefix("diff --git ") {
            files.push(new_file(path_from_git_line(rest)));
            continue;
        }
        let Some(file) = files.last_mut() else {
            continue;
        };
        let in_hunk = !file.hunks.is_empty();
        if let Some(rest) = raw.strip_prefix("@@ ")
            && let Some((_old_start, start, header)) = parse_hunk_header(rest)
        {
            new_line = start;
            file.hunks.push(Hunk {
                header,
                lines: Vec::new(),
            });
            continue;
        }
        if !in_hunk {
            if let Some(p) = raw.strip_prefix("+++ ") {
                if let Some(path) = marker_path(p.as_bytes()) {
                    set_path(
                        file,
                        strip_prefix_dir(&String::from_utf8_lossy(&path), "b/"),
                    );
                }
            } else if let Some(p) = raw.strip_prefix("--- ") {
                if marker_path(p.as_bytes()).is_none() {
                    file.created = true;
                }
            } else if raw.starts_with("new file mode") {
                file.created = true;
            } else if raw.starts_with("deleted file mode") {
                file.deleted = true;
            } else if let Some(p) = raw.strip_prefix("rename to ") {
                set_path(
                    file,
                    String::from_utf8_lossy(&unquote(p.as_bytes())).into_owned(),
                );
            }
            continue;
        }
        let hunk = file.hunks.last_mut().expect("in a hunk");
        let (kind, text) = match raw.as_bytes().first() {
            Some(b'+') => (Kind::Added, &raw[1..]),
            Some(b'-') => (Kind::Removed, &raw[1..]),
            Some(b' ') => (Kind::Context, &raw[1..]),
            // `\ No newline at end of file`, blank trailing line, markers.
            _ => continue,
        };
        hunk.lines.push(Line {
            kind,
            text,
            new_line,
            changed: false,
        });
        if kind != Kind::Removed {
            new_line = new_line.saturating_add(1);
        }
    }
    files
}

/// The line with all whitespace removed: moved or reformatted lines compare equal.
pub fn normalize(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for run in text.split(char::is_whitespace) {
        out.push_str(run);
    }
    out
}

/// Sets each line's `changed` flag: a line carries a real change when it is not blank, not a
/// comment, and its whitespace-free text does not appear on the other side of the payload
/// (moved, re-indented, renamed files).
pub fn mark_changed(files: &mut [FileDiff<'_>]) {
    // Each changed line's whitespace-free text, in payload order, made once for both sets
    // and for the lookups (trimming first would change nothing).
    let norms: Vec<String> = files
        .iter()
        .flat_map(|f| f.hunks.iter().flat_map(|h| &h.lines))
        .filter(|l| l.kind != Kind::Context)
        .map(|l| normalize(l.text))
        .collect();
    let mut added_norm: HashSet<&str> = HashSet::new();
    let mut removed_norm: HashSet<&str> = HashSet::new();
    let changed = files
        .iter()
        .flat_map(|f| f.hunks.iter().flat_map(|h| &h.lines))
        .filter(|l| l.kind != Kind::Context);
    for (line, norm) in changed.zip(&norms) {
        match line.kind {
            Kind::Added => added_norm.insert(norm),
            Kind::Removed => removed_norm.insert(norm),
            Kind::Context => false,
        };
    }
    let mut norms = norms.iter();
    for file in files.iter_mut() {
        let mut flags = Vec::new();
        for line in file.hunks.iter().flat_map(|h| &h.lines) {
            let norm = match line.kind {
                Kind::Context => "",
                Kind::Added | Kind::Removed => norms.next().map_or("", String::as_str),
            };
            let t = line.text.trim();
            let real = !t.is_empty()
                && !file.is_comment(t)
                && match line.kind {
                    Kind::Added => !removed_norm.contains(norm),
                    Kind::Removed => !added_norm.contains(norm),
                    Kind::Context => false,
                };
            flags.push(real);
        }
        let mut flags = flags.into_iter();
        for line in file.hunks.iter_mut().flat_map(|h| &mut h.lines) {
            line.changed = flags.next().unwrap_or(false);
        }
    }
}

fn new_file(path: String) -> FileDiff<'static> {
    let mut f = FileDiff {
        path: String::new(),
        lang: Lang::Other,
        role: Role::Source,
        migration: false,
        created: false,
        deleted: false,
        hunks: Vec::new(),
    };
    set_path(&mut f, path);
    f
}

fn set_path(file: &mut FileDiff<'_>, path: String) {
    file.lang = lang_of(&path);
    file.role = role_of(&path);
    let lower = path.to_ascii_lowercase();
    file.migration =
        lower.contains("migrat") || lower.contains("db/migrate") || lower.ends_with(".sql");
    file.path = path;
}

/// `p` without git's C quoting and without the `a/`/`b/` `prefix`.
fn strip_prefix_dir(p: &str, prefix: &str) -> String {
    let p = String::from_utf8_lossy(&unquote(p.as_bytes())).into_owned();
    match p.strip_prefix(prefix) {
        Some(rest) => rest.to_owned(),
        None => p,
    }
}

/// `a/x b/x` → `x`; for paths with spaces, the second half when both halves agree.
fn path_from_git_line(rest: &str) -> String {
    let rest = rest.trim();
    if let Some(idx) = rest.find(" b/") {
        return strip_prefix_dir(&rest[idx + 1..], "b/");
    }
    strip_prefix_dir(rest, "a/")
}

/// `-a,b +c,d @@ header` → (a, c, header).
fn parse_hunk_header(rest: &str) -> Option<(u32, u32, &str)> {
    let end = rest.find(" @@")?;
    let ranges = &rest[..end];
    let header = rest[end + 3..].trim();
    let start_of = |sign: char| -> Option<u32> {
        let r = ranges.split(' ').find(|r| r.starts_with(sign))?;
        r[1..].split(',').next()?.parse().ok()
    };
    Some((start_of('-')?, start_of('+')?, header))
}

/// The language of `path`, from its extension.
pub fn lang_of(path: &str) -> Lang {
    let name = path.rsplit('/').next().unwrap_or(path);
    let ext = name.rsplit_once('.').map(|(_, e)| e.to_ascii_lowercase());
    match ext.as_deref() {
        Some("go") => Lang::Go,
        Some("py" | "pyi") => Lang::Python,
        Some("js" | "jsx" | "mjs" | "cjs" | "ts" | "tsx" | "mts" | "cts" | "vue" | "svelte") => {
            Lang::JavaScript
        }
        Some("rs") => Lang::Rust,
        Some("java" | "kt" | "kts" | "scala" | "groovy") => Lang::Java,
        Some("rb" | "rake" | "erb" | "gemspec") => Lang::Ruby,
        Some("sql") => Lang::Sql,
        _ if name == "Gemfile" || name == "Rakefile" => Lang::Ruby,
        _ => Lang::Other,
    }
}

/// The role of `path`: tests, docs, manifests and configuration are told apart by name.
pub fn role_of(path: &str) -> Role {
    let lower = path.to_ascii_lowercase();
    let name = lower.rsplit('/').next().unwrap_or(&lower);
    let segments: Vec<&str> = lower.split('/').collect();
    let dirs = &segments[..segments.len().saturating_sub(1)];
    if matches!(
        name,
        "go.mod"
            | "package.json"
            | "cargo.toml"
            | "gemfile"
            | "pom.xml"
            | "build.gradle"
            | "build.gradle.kts"
            | "pyproject.toml"
            | "pipfile"
            | "setup.cfg"
    ) || (name.starts_with("requirements") && name.ends_with(".txt"))
    {
        return Role::Manifest;
    }
    let ext = name.rsplit_once('.').map(|(_, e)| e).unwrap_or("");
    if matches!(ext, "md" | "markdown" | "rst" | "txt" | "adoc")
        || name.starts_with("license")
        || name.starts_with("changelog")
    {
        return Role::Docs;
    }
    // A test under a `docs` package (`src/test/kotlin/io/x/docs/…Spec.kt`) is a test.
    if is_test_path(path) {
        return Role::Test;
    }
    if dirs.contains(&"docs") {
        return Role::Docs;
    }
    if matches!(
        ext,
        "yml" | "yaml" | "json" | "toml" | "ini" | "cfg" | "conf" | "properties" | "env" | "xml"
    ) || name.starts_with(".env")
    {
        return Role::Config;
    }
    Role::Source
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_with_spaces_and_quotes_are_read_as_git_wrote_them() {
        let diff = "diff --git a/src/user api.rs b/src/user api.rs\n--- a/src/user api.rs\t\n\
            +++ b/src/user api.rs\t\n@@ -1 +1 @@\n-a\n+b\n\
            diff --git \"a/src/\\303\\244.rs\" \"b/src/\\303\\244.rs\"\n\
            --- \"a/src/\\303\\244.rs\"\n+++ \"b/src/\\303\\244.rs\"\n@@ -1 +1 @@\n-a\n+b\n";
        let files = parse(diff);
        assert_eq!(files[0].path, "src/user api.rs");
        assert_eq!(files[1].path, "src/ä.rs");
    }

    #[test]
    fn preprocessor_directives_are_code_and_hash_comments_are_not() {
        let file = |path: &str| parse_one(path);
        let (swift, c, yml) = (file("Tests/A.swift"), file("src/a.c"), file("ci.yml"));
        for (f, text, comment) in [
            (&swift, "#if os(macOS)", false),
            (&swift, "#endif", false),
            (&c, "#include <stdio.h>", false),
            (&c, "#ifndef A_H", false),
            (&yml, "# if the job fails, retry", true),
            (&yml, "#", true),
        ] {
            assert_eq!(f.is_comment(text), comment, "{} {text}", f.path);
        }
    }

    fn parse_one(path: &str) -> FileDiff<'static> {
        let diff = format!(
            "diff --git a/{path} b/{path}\n--- a/{path}\n+++ b/{path}\n@@ -1 +1 @@\n-a\n+b\n"
        );
        parse(Box::leak(diff.into_boxed_str())).remove(0)
    }

    #[test]
    fn roles() {
        for (role, paths) in [
            (Role::Source, "src/a.go db/migrate/1_x.rb"),
            (
                Role::Test,
                "src/a_test.go tests/test_x.py app/test_x.py src/ui/Badge.test.tsx \
                src/test/java/com/x/FooTest.java spec/models/a_spec.rb \
                src/test/kotlin/io/x/docs/streaming/FlowSpec.kt",
            ),
            (Role::Docs, "README.md docs/conf.py"),
            (Role::Manifest, "package.json requirements-dev.txt"),
            (Role::Config, "config/settings.yml"),
        ] {
            for path in paths.split_whitespace() {
                assert_eq!(role_of(path), role, "{path}");
            }
        }
    }

    #[test]
    fn langs() {
        for (path, lang) in [
            ("a.go", Lang::Go),
            ("a.py", Lang::Python),
            ("a.tsx", Lang::JavaScript),
            ("a.rs", Lang::Rust),
            ("A.java", Lang::Java),
            ("a.rb", Lang::Ruby),
            ("Gemfile", Lang::Ruby),
            ("a.yml", Lang::Other),
        ] {
            assert_eq!(lang_of(path), lang, "{path}");
        }
    }

    #[test]
    fn parses_files_hunks_and_line_numbers() {
        let diff = "diff --git a/x.go b/x.go\nindex 1..2 100644\n--- a/x.go\n+++ b/x.go\n\
                    @@ -5,4 +5,4 @@ func CanEdit(owner, actor string) bool \
                    {\n \tif x {\n-\treturn owner == actor\n+\treturn true\n }\n\
                    diff --git a/new.py b/new.py\nnew file mode 100644\n--- /dev/null\n\
                    +++ b/new.py\n@@ -0,0 +1,2 @@\n+a\n+b\n\
                    diff --git a/img.png b/img.png\nBinary files differ\n";
        let files = parse(diff);
        assert_eq!(files.len(), 3);
        let f = &files[0];
        assert_eq!(f.path, "x.go");
        assert_eq!(
            f.hunks[0].header,
            "func CanEdit(owner, actor string) bool {"
        );
        let added = f.hunks[0]
            .lines
            .iter()
            .find(|l| l.kind == Kind::Added)
            .unwrap();
        assert_eq!((added.text, added.new_line), ("\treturn true", 6));
        let removed = f.hunks[0]
            .lines
            .iter()
            .find(|l| l.kind == Kind::Removed)
            .unwrap();
        assert_eq!(removed.new_line, 6);
        assert!(files[1].created);
        assert_eq!(files[1].hunks[0].lines[1].new_line, 2);
        assert_eq!(files[2].path, "img.png");
        assert!(files[2].hunks.is_empty());
    }
}
