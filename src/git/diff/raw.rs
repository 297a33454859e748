//! Parses `git diff-tree -z --raw --numstat --patch` output into cross-checked changes.

use super::{Change, Status};
use crate::git::GitError;
use crate::git::quote;

fn bad(detail: impl Into<String>) -> GitError {
    GitError::Parse {
        command: "diff-tree".into(),
        detail: detail.into(),
    }
}

struct Cursor<'a> {
    buf: &'a [u8],
    pos: usize,
}

impl<'a> Cursor<'a> {
    /// The bytes up to the next NUL, consuming the NUL.
    fn field(&mut self) -> Result<&'a [u8], GitError> {
        let rest = &self.buf[self.pos..];
        let end = rest
            .iter()
            .position(|&b| b == 0)
            .ok_or_else(|| bad("record is not NUL-terminated"))?;
        self.pos += end + 1;
        Ok(&rest[..end])
    }

    fn peek(&self) -> Option<u8> {
        self.buf.get(self.pos).copied()
    }
}

struct Raw {
    status: Status,
    old: Option<Vec<u8>>,
    path: Vec<u8>,
}

/// Splits and checks the three views; changes come back in git's order.
pub fn parse(out: &[u8]) -> Result<Vec<Change>, GitError> {
    if out.is_empty() {
        return Ok(Vec::new());
    }
    let mut cur = Cursor { buf: out, pos: 0 };
    let raws = name_status(&mut cur)?;
    let numstat = numstat(&mut cur, &raws)?;
    if cur.pos < out.len() && cur.field()? != b"" {
        return Err(bad("no separator before the patch"));
    }
    let patch = &out[cur.pos..];
    let sections = split_sections(patch);

    let mut changes = Vec::with_capacity(raws.len());
    let mut next = 0;
    for (raw, counts) in raws.into_iter().zip(numstat) {
        let header = expected_header(raw.old.as_deref().unwrap_or(&raw.path), &raw.path);
        let mut body = Vec::new();
        // A type change (file ↔ symlink) is printed as a deletion and a creation, two sections
        // under the same header.
        while let Some(section) = sections.get(next).filter(|s| s.starts_with(&header)) {
            body.extend_from_slice(section);
            next += 1;
            if raw.status != Status::TypeChanged || body.len() > section.len() {
                break;
            }
        }
        if body.is_empty() {
            return Err(bad(format!(
                "no patch section for `{}`",
                String::from_utf8_lossy(&raw.path)
            )));
        }
        let (binary_patch, added, deleted) = count(&body);
        match counts {
            None if binary_patch => {}
            Some(c) if !binary_patch && c == (added, deleted) => {}
            _ => {
                return Err(bad(format!(
                    "numstat and patch disagree for `{}`",
                    String::from_utf8_lossy(&raw.path)
                )));
            }
        }
        changes.push(Change {
            path: raw.path,
            old_path: raw.old,
            status: raw.status,
            binary: binary_patch,
            patch: if binary_patch { Vec::new() } else { body },
            oversized: None,
            unread: false,
        });
    }
    if next != sections.len() {
        return Err(bad("patch has sections that match no changed path"));
    }
    Ok(changes)
}

/// The name-status view: one record per changed path, with its status letter and, for a
/// rename or copy, its old path.
fn name_status(cur: &mut Cursor<'_>) -> Result<Vec<Raw>, GitError> {
    let mut raws = Vec::new();
    while cur.peek() == Some(b':') {
        let meta = cur.field()?;
        let letter = meta
            .rsplit(|&b| b == b' ')
            .next()
            .and_then(|s| s.first())
            .copied()
            .ok_or_else(|| bad("raw record without a status"))?;
        let status = match letter {
            b'A' => Status::Added,
            b'M' => Status::Modified,
            b'D' => Status::Deleted,
            b'R' => Status::Renamed,
            b'C' => Status::Copied,
            b'T' => Status::TypeChanged,
            other => return Err(bad(format!("unexpected status `{}`", other as char))),
        };
        let first = cur.field()?.to_vec();
        let (old, path) = if matches!(status, Status::Renamed | Status::Copied) {
            (Some(first), cur.field()?.to_vec())
        } else {
            (None, first)
        };
        raws.push(Raw { status, old, path });
    }
    Ok(raws)
}

/// The numstat view: per record of `raws`, in the same order and naming the same paths, the
/// added and deleted line counts (`None` for a binary file).
fn numstat(cur: &mut Cursor<'_>, raws: &[Raw]) -> Result<Vec<Option<(u64, u64)>>, GitError> {
    let mut numstat = Vec::with_capacity(raws.len());
    for raw in raws {
        let rec = cur.field()?;
        let mut parts = rec.splitn(3, |&b| b == b'\t');
        let (Some(added), Some(deleted), Some(path)) = (parts.next(), parts.next(), parts.next())
        else {
            return Err(bad("malformed numstat record"));
        };
        let (old, new) = if path.is_empty() {
            (Some(cur.field()?), cur.field()?)
        } else {
            (None, path)
        };
        if new != raw.path.as_slice() || old != raw.old.as_deref() {
            return Err(bad("numstat and name-status disagree on paths"));
        }
        let counts = match (added, deleted) {
            (b"-", b"-") => None,
            (a, d) => Some((number(a)?, number(d)?)),
        };
        numstat.push(counts);
    }
    Ok(numstat)
}

fn number(digits: &[u8]) -> Result<u64, GitError> {
    std::str::from_utf8(digits)
        .ok()
        .and_then(|s| s.parse().ok())
        .ok_or_else(|| bad("numstat count is not a number"))
}

/// The first line git writes for a file pair, quoted as git quotes it.
fn expected_header(old: &[u8], new: &[u8]) -> Vec<u8> {
    let mut header = b"diff --git ".to_vec();
    header.extend_from_slice(&quote::prefixed(b"a/", old));
    header.push(b' ');
    header.extend_from_slice(&quote::prefixed(b"b/", new));
    header.push(b'\n');
    header
}

/// Splits a patch at each line that starts with `diff --git `; hunk lines always start with
/// ` `, `+`, `-` or `\`, and headers quote newlines, so no other line can.
fn split_sections(patch: &[u8]) -> Vec<&[u8]> {
    const MARK: &[u8] = b"diff --git ";
    let mut starts = Vec::new();
    let mut line_start = 0;
    while line_start < patch.len() {
        if patch[line_start..].starts_with(MARK) {
            starts.push(line_start);
        }
        match patch[line_start..].iter().position(|&b| b == b'\n') {
            Some(nl) => line_start += nl + 1,
            None => break,
        }
    }
    let mut sections = Vec::with_capacity(starts.len());
    for (i, &s) in starts.iter().enumerate() {
        let e = starts.get(i + 1).copied().unwrap_or(patch.len());
        sections.push(&patch[s..e]);
    }
    if starts.first().is_some_and(|&s| s > 0) || (starts.is_empty() && !patch.is_empty()) {
        // Leading bytes before any header: keep them visible so the caller rejects them.
        sections.insert(0, &patch[..starts.first().copied().unwrap_or(patch.len())]);
    }
    sections
}

/// Whether a section is a binary notice, and its added and removed hunk lines.
fn count(section: &[u8]) -> (bool, u64, u64) {
    let (mut binary, mut added, mut deleted) = (false, 0, 0);
    let mut in_hunk = false;
    for line in section.split(|&b| b == b'\n') {
        if line.starts_with(b"diff --git ") {
            in_hunk = false;
        } else if line.starts_with(b"@@") {
            in_hunk = true;
        } else if in_hunk && line.first() == Some(&b'+') {
            added += 1;
        } else if in_hunk && line.first() == Some(&b'-') {
            deleted += 1;
        } else if !in_hunk && line.starts_with(b"Binary files ") {
            binary = true;
        }
    }
    (binary, added, deleted)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn headers_quote_like_git() {
        assert_eq!(expected_header(b"a b", b"a b"), b"diff --git a/a b b/a b\n");
        assert_eq!(
            expected_header(b"t\tx", b"n\ny"),
            b"diff --git \"a/t\\tx\" \"b/n\\ny\"\n"
        );
    }

    #[test]
    fn counts_hunk_lines_only() {
        let s = b"diff --git a/x b/x\nindex 1..2 100644\n--- a/x\n+++ b/x\n@@ -1,2 +1,2 @@\n-- a\n\
            +++ b\n c\n";
        assert_eq!(count(s), (false, 1, 1));
    }

    #[test]
    fn rejects_disagreeing_views() {
        let z = "0".repeat(40);
        let mut out = format!(":100644 100644 {z} {z} M\0x\0").into_bytes();
        out.extend_from_slice(b"5\t0\tx\0\0diff --git a/x b/x\n@@ -1 +1 @@\n-a\n+b\n");
        assert!(parse(&out).is_err());
        let mut out = format!(":100644 100644 {z} {z} M\0x\0").into_bytes();
        out.extend_from_slice(b"1\t1\ty\0\0diff --git a/x b/x\n@@ -1 +1 @@\n-a\n+b\n");
        assert!(parse(&out).is_err());
        let mut out = format!(":100644 100644 {z} {z} M\0x\0").into_bytes();
        out.extend_from_slice(b"1\t1\tx\0\0diff --git a/x b/x\n@@ -1 +1 @@\n-a\n+b\n");
        assert_eq!(parse(&out).unwrap().len(), 1);
    }

    proptest::proptest! {
        #[test]
        fn arbitrary_output_never_panics(
            bytes in proptest::collection::vec(proptest::prelude::any::<u8>(), 0..512)
        ) {
            let _ = parse(&bytes);
        }
    }
}
