//! The change git would report for a file the baseline does not track, written here from
//! the working tree: the Stop's files way ([`crate::git::turn`]) needs no `git add -N` (a
//! process that rewrites the private index) when no rename can pair a new file with a
//! deleted one.
//!
//! Exact only under the files way's conditions — no attribute file anywhere (no `binary`,
//! `diff` or `text` attribute), filters that never run, no `core.autocrlf`, trusted file
//! modes and symbolic links — and with `core.bigFileThreshold` unset (git calls larger files
//! binary); the zero-write matrix compares it with git's own diff, byte for byte. What it
//! writes is what `git diff-files` prints for an intent-to-add entry with the fixed options
//! of [`super::DIFF_OPTIONS`]: the `new file mode` and full `index` lines, then either
//! git's binary notice (a NUL in the first 8,000 bytes) or one hunk adding every line.

use std::path::Path;

use sha2::Digest;

use super::{Change, Status};
use crate::git::ObjectFormat;
use crate::git::quote::prefixed;

/// How many leading bytes git looks at for a NUL to call a file binary.
const FIRST_FEW_BYTES: usize = 8000;

/// The added-file change for `path` (repository-relative), read from `top`; an error when it
/// cannot be read as a file or a symbolic link (the caller lets git decide then).
pub(crate) fn added(top: &Path, path: &[u8], format: ObjectFormat) -> std::io::Result<Change> {
    let full = top.join(crate::git::snapshot::path_from_bytes(path));
    let meta = std::fs::symlink_metadata(&full)?;
    let (mode, body) = if meta.file_type().is_symlink() {
        ("120000", link_target(&full)?)
    } else if meta.is_file() {
        (
            if executable(&meta) {
                "100755"
            } else {
                "100644"
            },
            std::fs::read(&full)?,
        )
    } else {
        return Err(std::io::Error::other("neither a file nor a symbolic link"));
    };
    Ok(change(path, mode, &body, format))
}

/// The change for a new file of `mode` holding `body`.
fn change(path: &[u8], mode: &str, body: &[u8], format: ObjectFormat) -> Change {
    if body[..body.len().min(FIRST_FEW_BYTES)].contains(&0) {
        // A binary change keeps only its name, as the parsed diff of one does.
        return Change {
            path: path.to_vec(),
            old_path: None,
            status: Status::Added,
            binary: true,
            patch: Vec::new(),
            oversized: None,
            unread: false,
        };
    }
    let (a, b) = (prefixed(b"a/", path), prefixed(b"b/", path));
    let mut patch = b"diff --git ".to_vec();
    patch.extend_from_slice(&a);
    patch.push(b' ');
    patch.extend_from_slice(&b);
    patch.extend_from_slice(format!("\nnew file mode {mode}\nindex ").as_bytes());
    patch.extend(std::iter::repeat_n(b'0', format.hex_len()));
    patch.extend_from_slice(b"..");
    patch.extend_from_slice(blob_id(body, format).as_bytes());
    patch.push(b'\n');
    if !body.is_empty() {
        patch.extend_from_slice(b"--- /dev/null\n+++ ");
        patch.extend_from_slice(&b);
        // Git ends a file name line holding a space with a tab.
        if b.contains(&b' ') {
            patch.push(b'\t');
        }
        patch.push(b'\n');
        let lines: Vec<&[u8]> = body.split_inclusive(|&c| c == b'\n').collect();
        match lines.len() {
            1 => patch.extend_from_slice(b"@@ -0,0 +1 @@\n"),
            n => patch.extend_from_slice(format!("@@ -0,0 +1,{n} @@\n").as_bytes()),
        }
        for line in &lines {
            patch.push(b'+');
            patch.extend_from_slice(line);
        }
        if body.last() != Some(&b'\n') {
            patch.extend_from_slice(b"\n\\ No newline at end of file\n");
        }
    }
    Change {
        path: path.to_vec(),
        old_path: None,
        status: Status::Added,
        binary: false,
        patch,
        oversized: None,
        unread: false,
    }
}

/// The id git gives a blob holding `body`.
fn blob_id(body: &[u8], format: ObjectFormat) -> String {
    let header = format!("blob {}\0", body.len());
    let hex = |bytes: &[u8]| bytes.iter().map(|b| format!("{b:02x}")).collect::<String>();
    match format {
        ObjectFormat::Sha1 => {
            let mut ctx = ring::digest::Context::new(&ring::digest::SHA1_FOR_LEGACY_USE_ONLY);
            ctx.update(header.as_bytes());
            ctx.update(body);
            hex(ctx.finish().as_ref())
        }
        ObjectFormat::Sha256 => {
            let mut ctx = sha2::Sha256::new();
            ctx.update(header.as_bytes());
            ctx.update(body);
            hex(&ctx.finalize())
        }
    }
}

#[cfg(unix)]
fn link_target(path: &Path) -> std::io::Result<Vec<u8>> {
    use std::os::unix::ffi::OsStringExt;
    Ok(std::fs::read_link(path)?.into_os_string().into_vec())
}

#[cfg(not(unix))]
fn link_target(_path: &Path) -> std::io::Result<Vec<u8>> {
    Err(std::io::Error::other("symbolic links are left to git here"))
}

#[cfg(unix)]
fn executable(meta: &std::fs::Metadata) -> bool {
    use std::os::unix::fs::PermissionsExt;
    meta.permissions().mode() & 0o100 != 0
}

#[cfg(not(unix))]
fn executable(_meta: &std::fs::Metadata) -> bool {
    false
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn blob_ids_are_gits() {
        assert_eq!(
            blob_id(b"", ObjectFormat::Sha1),
            "e69de29bb2d1d6434b8b29ae775ad8c2e48c5391"
        );
        assert_eq!(
            blob_id(b"hello\n", ObjectFormat::Sha1),
            "ce013625030ba8dba906f756967f9e9ca394464a"
        );
        assert_eq!(
            blob_id(b"", ObjectFormat::Sha256),
            "473a0f4c3be8a93681a267e3b1e9a7dcda1185436fe141f7749120a303721813"
        );
    }

    #[test]
    fn a_new_file_is_one_hunk_of_additions() {
        let c = change(b"a b.txt", "100644", b"one\ntwo", ObjectFormat::Sha1);
        let zeros = "0".repeat(40);
        let id = blob_id(b"one\ntwo", ObjectFormat::Sha1);
        assert_eq!(
            String::from_utf8(c.patch).unwrap(),
            format!(
                "diff --git a/a b.txt b/a b.txt\nnew file mode 100644\nindex {zeros}..{id}\n\
                 --- /dev/null\n+++ b/a b.txt\t\n@@ -0,0 +1,2 @@\n+one\n+two\n\
                 \\ No newline at end of file\n"
            )
        );
        let c = change(b"bin", "100755", b"\x89PNG\0", ObjectFormat::Sha1);
        assert!(c.binary && c.patch.is_empty());
    }
}
