//! Reading a unified diff from a file or stdin (`eval --patch`) into the same [`Change`]s a
//! turn diff produces, without a repository.
//!
//! Git patches (`git diff`, `git format-patch`, `git show`) are split at their `diff --git`
//! lines; status, renames, copies and binary changes come from their extended headers. Git
//! may write other path prefixes than `a/` and `b/`: swapped by `git diff -R`, `i/ w/ c/ o/`
//! with `diff.mnemonicPrefix`, none with `--no-prefix`, anything with `--src-prefix` and
//! `--dst-prefix`. Each section's prefixes are recovered from its own lines (the two names of
//! an unrenamed file differ only by their prefixes, and a prefix is empty or ends in `/`), and
//! a section that does not show them takes the patch's. A section written with other prefixes
//! gets its `diff --git`, `---` and `+++` lines rewritten with `a/` and `b/`; every other byte
//! is kept. Plain `diff -u` output (`---`/`+++` pairs) is accepted too: its paths lose a
//! common first directory the way `patch -p1` would, and each file gets a `diff --git`
//! header, so the payload reads the same whichever tool wrote the patch.

use crate::git::diff::{Change, Status};
use crate::git::quote::{self, unquote};

/// The prefixes the hook's own diffs use, and that every parsed section ends up with.
const CANONICAL: (&[u8], &[u8]) = (b"a/", b"b/");

/// Why a patch could not be read as a diff.
#[derive(Debug, thiserror::Error)]
pub enum PatchError {
    #[error("no file changes found: the input has no `diff --git` or `---`/`+++` lines")]
    NotADiff,
}

/// Splits `bytes` into lines that keep their `\n`.
fn lines(bytes: &[u8]) -> Vec<&[u8]> {
    let mut out = Vec::new();
    let mut start = 0;
    for (i, &b) in bytes.iter().enumerate() {
        if b == b'\n' {
            out.push(&bytes[start..=i]);
            start = i + 1;
        }
    }
    if start < bytes.len() {
        out.push(&bytes[start..]);
    }
    out
}

fn trim_eol(line: &[u8]) -> &[u8] {
    let line = line.strip_suffix(b"\n").unwrap_or(line);
    line.strip_suffix(b"\r").unwrap_or(line)
}

/// The path of a `---`/`+++` line: quoted or up to a tab (plain diff puts a date there);
/// `None` for `/dev/null`.
pub(crate) fn marker_path(rest: &[u8]) -> Option<Vec<u8>> {
    let rest = trim_eol(rest);
    let path = if rest.starts_with(b"\"") {
        let end = rest[1..]
            .iter()
            .enumerate()
            .find(|&(i, &b)| b == b'"' && rest[i] != b'\\')
            .map_or(rest.len(), |(i, _)| i + 2);
        unquote(&rest[..end])
    } else {
        let end = rest.iter().position(|&b| b == b'\t').unwrap_or(rest.len());
        rest[..end].to_vec()
    };
    (path != b"/dev/null").then_some(path)
}

fn strip_prefix(path: Vec<u8>, prefix: &[u8]) -> Vec<u8> {
    match path.strip_prefix(prefix) {
        Some(rest) if !rest.is_empty() => rest.to_vec(),
        _ => path,
    }
}

/// A source and a destination prefix (`a/` and `b/`, `c/` and `w/`, or two empty ones).
type Prefixes = (Vec<u8>, Vec<u8>);

/// Splits the two names of one unrenamed file into their prefixes: the longest common tail
/// whose heads are each empty or end in `/` (`c/src/a.rs`, `w/src/a.rs` → `c/`, `w/`).
fn split_prefixes(old: &[u8], new: &[u8]) -> Option<Prefixes> {
    let is_prefix = |p: &[u8]| p.is_empty() || p.ends_with(b"/");
    (1..=old.len().min(new.len())).rev().find_map(|tail| {
        let (s, x) = old.split_at(old.len() - tail);
        let (d, y) = new.split_at(new.len() - tail);
        (x == y && is_prefix(s) && is_prefix(d)).then(|| (s.to_vec(), d.to_vec()))
    })
}

/// The two names of a `diff --git` line, quoted ones unquoted; `None` when the split is not
/// certain (unquoted names that hold spaces and differ in length).
fn header_names(rest: &[u8]) -> Option<(Vec<u8>, Vec<u8>)> {
    let rest = trim_eol(rest);
    if rest.starts_with(b"\"") {
        let close = (1..rest.len()).find(|&i| rest[i] == b'"' && rest[i - 1] != b'\\')?;
        let a = unquote(&rest[..=close]);
        let b = unquote(rest.get(close + 2..)?);
        return Some((a, b));
    }
    if let Some(open) = rest.windows(2).position(|w| w == b" \"") {
        return Some((rest[..open].to_vec(), unquote(&rest[open + 1..])));
    }
    // Unquoted, one file under prefixes of equal length (`a/ b/`, `i/ w/`, none): the two
    // halves around the middle space.
    if rest.len() % 2 == 1 && rest[rest.len() / 2] == b' ' {
        let half = rest.len() / 2;
        return Some((rest[..half].to_vec(), rest[half + 1..].to_vec()));
    }
    None
}

/// The two names of a `diff --git` line for known prefixes: `S + X + " " + D + X`.
fn header_with(rest: &[u8], (s, d): (&[u8], &[u8])) -> Option<(Vec<u8>, Vec<u8>)> {
    let rest = trim_eol(rest);
    if let Some((a, b)) = header_names(rest)
        && a.starts_with(s)
        && b.starts_with(d)
    {
        return Some((a, b));
    }
    let name = rest.len().checked_sub(s.len() + d.len() + 1)?;
    if name % 2 != 0 {
        return None;
    }
    let (a, b) = rest.split_at(s.len() + name / 2);
    let b = b.strip_prefix(b" ")?;
    (a.starts_with(s) && b.starts_with(d) && a[s.len()..] == b[d.len()..])
        .then(|| (a.to_vec(), b.to_vec()))
}

/// The legacy guess for a `diff --git` line nothing else explains: the last ` b/`.
fn header_guess(rest: &[u8]) -> Option<(Vec<u8>, Vec<u8>)> {
    let rest = trim_eol(rest);
    let split = rest.windows(3).rposition(|w| w == b" b/")?;
    Some((rest[..split].to_vec(), rest[split + 1..].to_vec()))
}

/// One line with `prefix` and a path, quoted the way git quotes it; `---`/`+++` lines end a
/// name holding a space with a tab, as git writes them.
fn path_line(tag: &[u8], path: Option<(&[u8], &[u8])>, eol: &[u8]) -> Vec<u8> {
    let mut line = tag.to_vec();
    match path {
        None => line.extend_from_slice(b"/dev/null"),
        Some((prefix, name)) => {
            line.extend_from_slice(&quote::prefixed(prefix, name));
            if tag != b"diff --git " && name.contains(&b' ') {
                line.push(b'\t');
            }
        }
    }
    line.extend_from_slice(eol);
    line
}

fn eol_of(line: &[u8]) -> &[u8] {
    if line.ends_with(b"\r\n") {
        b"\r\n"
    } else if line.ends_with(b"\n") {
        b"\n"
    } else {
        b""
    }
}

/// One file's section while it is read.
#[derive(Default)]
struct Section {
    git: bool,
    text: Vec<u8>,
    old: Option<Vec<u8>>,
    new: Option<Vec<u8>>,
    /// What follows `diff --git ` on the section's first line.
    header: Vec<u8>,
    rename_from: Option<Vec<u8>>,
    rename_to: Option<Vec<u8>>,
    copy: bool,
    added: bool,
    deleted: bool,
    old_mode: Option<Vec<u8>>,
    new_mode: Option<Vec<u8>>,
    binary: bool,
    /// `---`/`+++` seen: what follows is hunks.
    in_hunks: bool,
    /// `---` is the previous line (plain diffs, and git's header).
    minus_seen: bool,
}

impl Section {
    /// The section's own prefixes, where its lines show them: the `---`/`+++` names of a
    /// modified file, a `diff --git` line matched with the one name an added or deleted file
    /// has, or a `diff --git` line that can be split with certainty.
    fn prefixes(&self) -> Option<Prefixes> {
        if !self.git || self.rename_to.is_some() {
            return None;
        }
        let rest = trim_eol(&self.header);
        let (old, new) = match (&self.old, &self.new) {
            (Some(old), Some(new)) => (old.clone(), new.clone()),
            // An added file: the header ends with its `+++` name; a deleted one starts with
            // its `---` name (both unquoted only: quoting is handled by `header_names`).
            (None, Some(new)) if rest.ends_with(&[b" ", new.as_slice()].concat()) => {
                (rest[..rest.len() - new.len() - 1].to_vec(), new.clone())
            }
            (Some(old), None) if rest.starts_with(&[old.as_slice(), b" "].concat()) => {
                (old.clone(), rest[old.len() + 1..].to_vec())
            }
            _ => header_names(rest)?,
        };
        split_prefixes(&old, &new)
    }

    fn finish(self, default: &Prefixes) -> Change {
        let own = self.prefixes();
        let (src, dst) = own.as_ref().unwrap_or(default);
        let (src, dst) = (src.as_slice(), dst.as_slice());
        let strip = |p: Option<Vec<u8>>, prefix: &[u8]| p.map(|p| strip_prefix(p, prefix));
        let (old, new) = if self.git {
            let (header_old, header_new) = header_with(&self.header, (src, dst))
                .or_else(|| header_guess(&self.header))
                .unzip();
            let header_src = if own.is_some() || header_old.is_some() {
                src
            } else {
                CANONICAL.0
            };
            (
                self.rename_from
                    .clone()
                    .or(strip(self.old.clone(), src))
                    .or(strip(header_old, header_src)),
                self.rename_to
                    .clone()
                    .or(strip(self.new.clone(), dst))
                    .or(strip(header_new, dst)),
            )
        } else {
            plain_paths(self.old.clone(), self.new.clone())
        };
        let added = self.added || (self.in_hunks && self.old.is_none());
        let deleted = self.deleted || (self.in_hunks && self.new.is_none());
        let type_changed = matches!((&self.old_mode, &self.new_mode),
            (Some(a), Some(b)) if a.get(..2) != b.get(..2));
        let status = if self.rename_to.is_some() && self.copy {
            Status::Copied
        } else if self.rename_to.is_some() {
            Status::Renamed
        } else if added {
            Status::Added
        } else if deleted {
            Status::Deleted
        } else if type_changed {
            Status::TypeChanged
        } else {
            Status::Modified
        };
        let path = match status {
            Status::Deleted => old.clone().or(new.clone()),
            _ => new.clone().or(old.clone()),
        }
        .unwrap_or_default();
        let old_path = match status {
            Status::Renamed | Status::Copied => old.clone(),
            _ => None,
        };
        let canonical = (src, dst) == CANONICAL;
        let patch = if self.binary {
            Vec::new()
        } else if self.git && canonical {
            self.text
        } else if self.git {
            let old_name = old_path.clone().unwrap_or_else(|| path.clone());
            with_canonical_names(&self.text, &old_name, &path, added, deleted)
        } else {
            plain_as_git(&self.text, &path, status)
        };
        Change {
            path,
            old_path,
            status,
            binary: self.binary,
            patch,
            oversized: None,
            unread: false,
        }
    }
}

/// A git section with its `diff --git`, `---` and `+++` lines written with the `a/` and `b/`
/// prefixes the hook's own diffs use; every other line is kept byte for byte.
fn with_canonical_names(
    text: &[u8],
    old: &[u8],
    new: &[u8],
    added: bool,
    deleted: bool,
) -> Vec<u8> {
    let (a, b) = CANONICAL;
    let mut out = Vec::with_capacity(text.len() + 16);
    let mut header = true;
    let (mut minus_done, mut plus_done) = (false, false);
    for (i, line) in lines(text).into_iter().enumerate() {
        let eol = eol_of(line);
        if i == 0 {
            let mut first = path_line(b"diff --git ", Some((a, old)), b"");
            first.push(b' ');
            first.extend_from_slice(&quote::prefixed(b, new));
            first.extend_from_slice(eol);
            out.extend_from_slice(&first);
        } else if header && !minus_done && line.starts_with(b"--- ") {
            minus_done = true;
            out.extend_from_slice(&path_line(b"--- ", (!added).then_some((a, old)), eol));
        } else if header && minus_done && !plus_done && line.starts_with(b"+++ ") {
            plus_done = true;
            header = false;
            out.extend_from_slice(&path_line(b"+++ ", (!deleted).then_some((b, new)), eol));
        } else {
            if line.starts_with(b"@@") {
                header = false;
            }
            out.extend_from_slice(line);
        }
    }
    out
}

/// Paths of a plain diff: the common first directory (`a/`, `old/`) goes, as with `patch -p1`.
fn plain_paths(old: Option<Vec<u8>>, new: Option<Vec<u8>>) -> (Option<Vec<u8>>, Option<Vec<u8>>) {
    let tail = |p: &[u8]| {
        p.iter()
            .position(|&b| b == b'/')
            .map(|i| p[i + 1..].to_vec())
    };
    match (&old, &new) {
        (Some(o), Some(n)) => match (tail(o), tail(n)) {
            (Some(a), Some(b)) if a == b && !a.is_empty() => (Some(a), Some(b)),
            _ => (old, new),
        },
        (None, Some(n)) if n.starts_with(b"b/") => (None, Some(n[2..].to_vec())),
        (Some(o), None) if o.starts_with(b"a/") => (Some(o[2..].to_vec()), None),
        _ => (old, new),
    }
}

/// A plain section rewritten with a `diff --git` header and `a/` `b/` marker lines.
fn plain_as_git(text: &[u8], path: &[u8], status: Status) -> Vec<u8> {
    let mut out = Vec::with_capacity(text.len() + 2 * path.len() + 32);
    let push_path = |out: &mut Vec<u8>, prefix: &[u8]| {
        out.extend_from_slice(prefix);
        out.extend_from_slice(path);
    };
    out.extend_from_slice(b"diff --git ");
    push_path(&mut out, b"a/");
    out.push(b' ');
    push_path(&mut out, b"b/");
    out.push(b'\n');
    let mut markers_done = false;
    for line in lines(text) {
        if !markers_done && line.starts_with(b"--- ") {
            if status == Status::Added {
                out.extend_from_slice(b"--- /dev/null\n");
            } else {
                push_path(&mut out, b"--- a/");
                out.push(b'\n');
            }
        } else if !markers_done && line.starts_with(b"+++ ") {
            if status == Status::Deleted {
                out.extend_from_slice(b"+++ /dev/null\n");
            } else {
                push_path(&mut out, b"+++ b/");
                out.push(b'\n');
            }
            markers_done = true;
        } else {
            out.extend_from_slice(line);
        }
    }
    out
}

/// Parses a unified diff into changes, in path order. Text before the first file (a mail
/// header, a commit message) is ignored.
pub fn parse(bytes: &[u8]) -> Result<Vec<Change>, PatchError> {
    let all = lines(bytes);
    let mut sections = Vec::new();
    let mut current: Option<Section> = None;
    let mut i = 0;
    while i < all.len() {
        let line = all[i];
        let next = all.get(i + 1).copied().unwrap_or_default();
        if let Some(rest) = line.strip_prefix(b"diff --git ") {
            if let Some(done) = current.take() {
                sections.push(done);
            }
            current = Some(Section {
                git: true,
                text: line.to_vec(),
                header: trim_eol(rest).to_vec(),
                ..Section::default()
            });
            i += 1;
            continue;
        }
        let starts_plain = line.starts_with(b"--- ")
            && next.starts_with(b"+++ ")
            && all.get(i + 2).is_some_and(|l| l.starts_with(b"@@"))
            && current.as_ref().is_none_or(|s| s.in_hunks || !s.git);
        if starts_plain {
            if let Some(done) = current.take() {
                sections.push(done);
            }
            current = Some(Section::default());
        }
        let Some(section) = current.as_mut() else {
            i += 1;
            continue;
        };
        section.text.extend_from_slice(line);
        if !section.in_hunks {
            let body = trim_eol(line);
            if let Some(rest) = line.strip_prefix(b"--- ") {
                section.old = marker_path(rest);
                section.minus_seen = true;
            } else if let (Some(rest), true) = (line.strip_prefix(b"+++ "), section.minus_seen) {
                section.new = marker_path(rest);
                section.in_hunks = true;
            } else if section.git {
                if let Some(p) = body.strip_prefix(b"rename from ") {
                    section.rename_from = Some(unquote(p));
                } else if let Some(p) = body.strip_prefix(b"rename to ") {
                    section.rename_to = Some(unquote(p));
                } else if let Some(p) = body.strip_prefix(b"copy from ") {
                    section.rename_from = Some(unquote(p));
                    section.copy = true;
                } else if let Some(p) = body.strip_prefix(b"copy to ") {
                    section.rename_to = Some(unquote(p));
                    section.copy = true;
                } else if body.starts_with(b"new file mode ") {
                    section.added = true;
                } else if body.starts_with(b"deleted file mode ") {
                    section.deleted = true;
                } else if let Some(m) = body.strip_prefix(b"old mode ") {
                    section.old_mode = Some(m.to_vec());
                } else if let Some(m) = body.strip_prefix(b"new mode ") {
                    section.new_mode = Some(m.to_vec());
                } else if body == b"GIT binary patch"
                    || (body.starts_with(b"Binary files ") && body.ends_with(b" differ"))
                {
                    section.binary = true;
                }
            }
        }
        i += 1;
    }
    if let Some(done) = current.take() {
        sections.push(done);
    }
    // One `git diff` writes one pair of prefixes: a section that does not show its own
    // takes the first one another section shows.
    let default = sections
        .iter()
        .find_map(Section::prefixes)
        .unwrap_or_else(|| (CANONICAL.0.to_vec(), CANONICAL.1.to_vec()));
    let mut changes: Vec<Change> = sections.into_iter().map(|s| s.finish(&default)).collect();
    if changes.is_empty() && bytes.iter().any(|b| !b.is_ascii_whitespace()) {
        return Err(PatchError::NotADiff);
    }
    changes.retain(|c| !c.path.is_empty());
    changes.sort_by(|a, b| a.path.cmp(&b.path));
    Ok(changes)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn one(text: &str) -> Change {
        let mut all = parse(text.as_bytes()).unwrap();
        assert_eq!(all.len(), 1, "{all:?}");
        all.remove(0)
    }

    #[test]
    fn git_sections_keep_their_bytes_and_status() {
        let text = "From 1 Mon\nSubject: x\n\n---\n a | 1 +\n\ndiff --git a/src/a.rs b/src/a.rs\n\
            index 1..2 100644\n--- a/src/a.rs\n+++ b/src/a.rs\n@@ -1 +1 @@\n-x\n+y\ndiff --git \
            a/new.txt b/new.txt\nnew file mode 100644\n--- /dev/null\n+++ b/new.txt\n@@ -0,0 +1 \
            @@\n+n\n";
        let all = parse(text.as_bytes()).unwrap();
        assert_eq!(all.len(), 2);
        assert_eq!(all[0].path, b"new.txt");
        assert_eq!(all[0].status, Status::Added);
        assert_eq!(all[1].path, b"src/a.rs");
        assert_eq!(all[1].status, Status::Modified);
        assert!(
            all[1]
                .patch
                .starts_with(b"diff --git a/src/a.rs b/src/a.rs\n")
        );
        assert!(all[1].patch.ends_with(b"+y\n"));
    }

    #[test]
    fn table_of_headers() {
        let cases: &[(&str, &str, Option<&str>, Status, bool)] = &[
            (
                "diff --git a/x b/y\nsimilarity index 90%\nrename from x\nrename to y\n",
                "y",
                Some("x"),
                Status::Renamed,
                false,
            ),
            (
                "diff --git a/x b/z\ncopy from x\ncopy to z\n",
                "z",
                Some("x"),
                Status::Copied,
                false,
            ),
            (
                "diff --git a/gone b/gone\ndeleted file mode 100644\n--- a/gone\n+++ /dev/null\n@@ \
                    -1 +0,0 @@\n-x\n",
                "gone",
                None,
                Status::Deleted,
                false,
            ),
            (
                "diff --git a/img.png b/img.png\nindex 1..2 100644\nBinary files a/img.png and \
                    b/img.png differ\n",
                "img.png",
                None,
                Status::Modified,
                true,
            ),
            (
                "diff --git a/l b/l\nold mode 100644\nnew mode 120000\n",
                "l",
                None,
                Status::TypeChanged,
                false,
            ),
            (
                "diff --git a/with space b/with space\nnew file mode 100644\n",
                "with space",
                None,
                Status::Added,
                false,
            ),
            (
                "diff --git \"a/tab\\there\" \"b/tab\\there\"\n--- \"a/tab\\there\"\n+++ \
                    \"b/tab\\there\"\n@@ -1 +1 @@\n-a\n+b\n",
                "tab\there",
                None,
                Status::Modified,
                false,
            ),
        ];
        for (text, path, old, status, binary) in cases {
            let c = one(text);
            assert_eq!(String::from_utf8_lossy(&c.path), *path, "{text}");
            assert_eq!(
                c.old_path
                    .as_deref()
                    .map(String::from_utf8_lossy)
                    .as_deref(),
                *old,
                "{text}"
            );
            assert_eq!(c.status, *status, "{text}");
            assert_eq!(c.binary, *binary, "{text}");
        }
    }

    #[test]
    fn plain_diffs_get_git_headers() {
        let text = "--- old/app.py\t2026-01-01 00:00:00\n+++ new/app.py\t2026-01-02 00:00:00\n@@ \
            -1 +1 @@\n-a\n+b\n--- /dev/null\n+++ b/added.py\n@@ -0,0 +1 @@\n+c\n";
        let all = parse(text.as_bytes()).unwrap();
        assert_eq!(all.len(), 2);
        assert_eq!(all[0].path, b"added.py");
        assert_eq!(all[0].status, Status::Added);
        assert_eq!(
            String::from_utf8_lossy(&all[1].patch),
            "diff --git a/app.py b/app.py\n--- a/app.py\n+++ b/app.py\n@@ -1 +1 @@\n-a\n+b\n"
        );
    }

    #[test]
    fn removed_lines_that_look_like_markers_stay_in_the_hunk() {
        let c = one("diff --git a/a b/a\n--- a/a\n+++ b/a\n@@ -1,2 +1,2 @@\n--- x\n+++ y\n x\n");
        assert!(c.patch.ends_with(b"--- x\n+++ y\n x\n"));
    }

    #[test]
    fn prefixes_are_split_at_a_slash_or_nowhere() {
        type Case = (
            &'static str,
            &'static str,
            Option<(&'static str, &'static str)>,
        );
        let cases: &[Case] = &[
            ("a/src/x.rs", "b/src/x.rs", Some(("a/", "b/"))),
            ("b/src/x.rs", "a/src/x.rs", Some(("b/", "a/"))),
            ("c/x", "w/x", Some(("c/", "w/"))),
            ("src/x.rs", "src/x.rs", Some(("", ""))),
            // "left" and "right" share a last letter; the split is still at the slash.
            ("left/src/x.rs", "right/src/x.rs", Some(("left/", "right/"))),
            // A directory named like a prefix stays in the path.
            ("b/a/x", "a/a/x", Some(("b/", "a/"))),
            ("a/x", "b/y", None),
        ];
        for (old, new, want) in cases {
            let got = split_prefixes(old.as_bytes(), new.as_bytes());
            let got = got.as_ref().map(|(s, d)| {
                (
                    std::str::from_utf8(s).unwrap(),
                    std::str::from_utf8(d).unwrap(),
                )
            });
            assert_eq!(got, *want, "{old} {new}");
        }
        assert_eq!(
            header_with(b"left/a b.rs right/a b.rs", (b"left/", b"right/")),
            Some((b"left/a b.rs".to_vec(), b"right/a b.rs".to_vec()))
        );
    }

    #[test]
    fn a_section_without_names_takes_the_patch_prefixes() {
        // A mode change shows no `---`/`+++` names; the other section shows the prefixes.
        let text = "diff --git left/src/a.rs right/src/a.rs\n--- left/src/a.rs\n+++ \
            right/src/a.rs\n@@ -1 +1 @@\n-x\n+y\ndiff --git left/run me.sh right/run me.sh\nold \
            mode 100644\nnew mode 100755\n";
        let all = parse(text.as_bytes()).unwrap();
        assert_eq!(all[0].path, b"run me.sh");
        assert_eq!(
            String::from_utf8_lossy(&all[0].patch),
            "diff --git a/run me.sh b/run me.sh\nold mode 100644\nnew mode 100755\n"
        );
        assert_eq!(
            String::from_utf8_lossy(&all[1].patch),
            "diff --git a/src/a.rs b/src/a.rs\n--- a/src/a.rs\n+++ b/src/a.rs\n@@ -1 +1 @@\n-x\n\
                +y\n"
        );
    }

    #[test]
    fn not_a_diff_and_empty() {
        assert!(matches!(
            parse(b"hello\nworld\n"),
            Err(PatchError::NotADiff)
        ));
        assert!(parse(b"").unwrap().is_empty());
        assert!(parse(b"\n \n").unwrap().is_empty());
    }
}
