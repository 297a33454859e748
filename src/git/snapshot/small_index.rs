//! A small index written without git: the baseline's entries for just the paths a Stop's walk
//! found changed. `git diff-files` then reads a few entries instead of the whole private index
//! (megabytes on a large repository, read on every Stop), and needs no pathspec: everything
//! in the small index is to be diffed.
//!
//! The entries carry no stat data, so git compares each one's content with the working tree,
//! as it would anyway: the walk has just found every one of them changed.

use std::path::Path;

use sha2::Digest;

use crate::git::{GitError, ObjectFormat};

/// One entry: path, mode, object id in hex (as `git status --porcelain=v2` prints it).
pub(crate) type Entry = (Vec<u8>, u32, Vec<u8>);

/// The bytes of a version-2 index holding `entries` at stage 0, sorted as git sorts them;
/// `None` when an entry is not a regular file or a symbolic link, its id is not one of
/// `format`, or two entries share a path.
pub(crate) fn encode(entries: &[Entry], format: ObjectFormat) -> Option<Vec<u8>> {
    let mut sorted: Vec<&Entry> = entries.iter().collect();
    sorted.sort_by(|a, b| a.0.cmp(&b.0));
    if sorted.windows(2).any(|w| w[0].0 == w[1].0) {
        return None;
    }
    let count = u32::try_from(sorted.len()).ok()?;
    let mut out = Vec::with_capacity(12 + sorted.len() * 96);
    out.extend_from_slice(b"DIRC");
    out.extend_from_slice(&2u32.to_be_bytes());
    out.extend_from_slice(&count.to_be_bytes());
    for (path, mode, oid) in sorted {
        if !matches!(mode, 0o100644 | 0o100755 | 0o120000) || path.is_empty() {
            return None;
        }
        let raw = decode_hex(oid, format)?;
        let start = out.len();
        // ctime, mtime (seconds and nanoseconds), dev, ino: none.
        out.extend_from_slice(&[0u8; 24]);
        out.extend_from_slice(&mode.to_be_bytes());
        // uid, gid, size: none.
        out.extend_from_slice(&[0u8; 12]);
        out.extend_from_slice(&raw);
        let name_len = u16::try_from(path.len().min(0xFFF)).ok()?;
        out.extend_from_slice(&name_len.to_be_bytes());
        out.extend_from_slice(path);
        // One to eight NULs, to a multiple of eight bytes.
        let len = out.len() - start;
        out.resize(start + (len + 8) / 8 * 8, 0);
    }
    let trailer: Vec<u8> = match format {
        ObjectFormat::Sha1 => {
            let mut ctx = ring::digest::Context::new(&ring::digest::SHA1_FOR_LEGACY_USE_ONLY);
            ctx.update(&out);
            ctx.finish().as_ref().to_vec()
        }
        ObjectFormat::Sha256 => sha2::Sha256::digest(&out).to_vec(),
    };
    out.extend_from_slice(&trailer);
    Some(out)
}

/// Writes [`encode`]'s index to `path`; `Ok(false)` when the entries cannot be written so.
pub(crate) fn write(
    path: &Path,
    entries: &[Entry],
    format: ObjectFormat,
) -> Result<bool, GitError> {
    let Some(bytes) = encode(entries, format) else {
        return Ok(false);
    };
    crate::fs::remove_entry(path)?;
    std::fs::write(path, bytes).map_err(|source| GitError::Io {
        path: path.to_path_buf(),
        source,
    })?;
    Ok(true)
}

fn decode_hex(hex: &[u8], format: ObjectFormat) -> Option<Vec<u8>> {
    if hex.len() != format.hex_len() {
        return None;
    }
    hex.chunks(2)
        .map(|pair| {
            let digit = |b: u8| (b as char).to_digit(16);
            u8::try_from(digit(pair[0])? * 16 + digit(pair[1])?).ok()
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(path: &str, mode: u32, oid: &str) -> Entry {
        (path.as_bytes().to_vec(), mode, oid.as_bytes().to_vec())
    }

    #[test]
    fn refuses_what_it_cannot_write_exactly() {
        let a = "a".repeat(40);
        let ok = entry("src/a.rs", 0o100644, &a);
        assert!(encode(std::slice::from_ref(&ok), ObjectFormat::Sha1).is_some());
        assert!(encode(&[entry("sub", 0o160000, &a)], ObjectFormat::Sha1).is_none());
        assert!(encode(&[entry("dir", 0o040000, &a)], ObjectFormat::Sha1).is_none());
        assert!(encode(&[entry("x", 0o100644, "abc")], ObjectFormat::Sha1).is_none());
        assert!(encode(&[entry("x", 0o100644, &"g".repeat(40))], ObjectFormat::Sha1).is_none());
        assert!(encode(std::slice::from_ref(&ok), ObjectFormat::Sha256).is_none());
        assert!(encode(&[ok.clone(), ok], ObjectFormat::Sha1).is_none());
    }

    #[test]
    fn entries_are_sorted_and_padded_to_eight_bytes() {
        let a = "a".repeat(40);
        let bytes = encode(
            &[
                entry("b", 0o100644, &a),
                entry("a/long/name.txt", 0o100755, &a),
            ],
            ObjectFormat::Sha1,
        )
        .unwrap();
        assert_eq!(&bytes[..4], b"DIRC");
        assert_eq!(bytes[8..12], 2u32.to_be_bytes());
        // 62 fixed bytes + 15 name bytes = 77, padded to 80; 62 + 1 = 63, padded to 64.
        assert_eq!(bytes.len(), 12 + 80 + 64 + 20);
        assert_eq!(&bytes[12 + 62..12 + 62 + 15], b"a/long/name.txt");
        assert_eq!(&bytes[12 + 80 + 62..12 + 80 + 63], b"b");
    }
}
