//! The list of files a baseline listed but did not read (a working tree past the bounds of
//! one snapshot): their paths and metadata, never their content, kept beside the baseline's
//! private index in the prompt's store and read back by the Stop, which compares each file's
//! metadata with it to tell whether the turn changed the file.
//!
//! A compact binary list rather than part of the prompt's JSON state: a tree with 20,000 new
//! files lists 20,000 of them, which the state file (read whole on every event) should not
//! carry. Layout: the magic `JPU1`, then per file its path's length (`u32`, little-endian),
//! the path, its size and modification time in nanoseconds (`u64` each) and one byte of flags
//! (1: the private index tracked it; 2: it was gone). Written atomically, read without
//! following a symlink and within a cap; anything unexpected is an error (the Stop then fails
//! open).

use std::path::Path;

use super::{LeftOut, OversizedFile};
use crate::fs::{self, Durability};
use crate::git::GitError;

const MAGIC: &[u8; 4] = b"JPU1";
/// Largest list read back: the walk's bounds keep it far below this.
const MAX_BYTES: u64 = 256 * 1024 * 1024;

/// Saves the files of `left` that were left out for the read bounds to `path` (and removes
/// an earlier list when there are none); returns how many were saved.
pub(crate) fn save(path: &Path, left: &[OversizedFile]) -> Result<u64, GitError> {
    let mut bytes = MAGIC.to_vec();
    let mut count = 0;
    for file in left.iter().filter(|f| f.reason == LeftOut::Bounds) {
        let len = u32::try_from(file.path.len()).map_err(|_| corrupt("a path is too long"))?;
        bytes.extend_from_slice(&len.to_le_bytes());
        bytes.extend_from_slice(&file.path);
        bytes.extend_from_slice(&file.size.to_le_bytes());
        bytes.extend_from_slice(&file.mtime_ns.to_le_bytes());
        bytes.push(u8::from(file.tracked) | (u8::from(file.gone) << 1));
        count += 1;
    }
    if count == 0 {
        fs::remove_entry(path)?;
        return Ok(0);
    }
    // Not synced: the baseline's content objects are not either; a list lost in a power cut
    // makes the Stop fail open.
    fs::write_atomic(path, &bytes, Durability::Unsynced, None)?;
    Ok(count)
}

/// Reads back the `count` files [`save`] saved at `path`.
pub(crate) fn load(path: &Path, count: u64) -> Result<Vec<OversizedFile>, GitError> {
    let bytes = fs::read_file(path, MAX_BYTES)?.ok_or_else(|| GitError::Io {
        path: path.to_owned(),
        source: std::io::Error::new(
            std::io::ErrorKind::NotFound,
            "the baseline's list of unread files is gone",
        ),
    })?;
    let mut rest = bytes
        .strip_prefix(MAGIC.as_slice())
        .ok_or_else(|| corrupt("it does not start with its magic"))?;
    let mut files = Vec::new();
    while !rest.is_empty() {
        let (len, tail) = take::<4>(rest)?;
        let len = u32::from_le_bytes(len) as usize;
        if tail.len() < len {
            return Err(corrupt("a path runs past the end"));
        }
        let (path, tail) = tail.split_at(len);
        let (size, tail) = take::<8>(tail)?;
        let (mtime, tail) = take::<8>(tail)?;
        let (flags, tail) = take::<1>(tail)?;
        files.push(OversizedFile {
            path: path.to_vec(),
            size: u64::from_le_bytes(size),
            mtime_ns: u64::from_le_bytes(mtime),
            tracked: flags[0] & 1 != 0,
            reason: LeftOut::Bounds,
            gone: flags[0] & 2 != 0,
        });
        rest = tail;
    }
    if files.len() as u64 != count {
        return Err(corrupt(
            "it does not hold as many files as the baseline says",
        ));
    }
    Ok(files)
}

fn take<const N: usize>(bytes: &[u8]) -> Result<([u8; N], &[u8]), GitError> {
    let (head, tail) = bytes
        .split_first_chunk::<N>()
        .ok_or_else(|| corrupt("a record runs past the end"))?;
    Ok((*head, tail))
}

fn corrupt(detail: &str) -> GitError {
    GitError::Parse {
        command: "the baseline's list of unread files".into(),
        detail: detail.into(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn file(path: &[u8], reason: LeftOut) -> OversizedFile {
        OversizedFile {
            path: path.to_vec(),
            size: 12,
            mtime_ns: 1_700_000_000_123_456_789,
            tracked: path.starts_with(b"t"),
            reason,
            gone: path.ends_with(b"gone"),
        }
    }

    #[test]
    fn round_trip_keeps_only_what_the_bounds_left_out() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("unread");
        let left = vec![
            file(b"gen/a b.js", LeftOut::Bounds),
            file(b"big.bin", LeftOut::Size),
            file(b"tracked\n\xff", LeftOut::Bounds),
            file(b"tracked and gone", LeftOut::Bounds),
        ];
        assert_eq!(save(&path, &left).unwrap(), 3);
        let back = load(&path, 3).unwrap();
        assert_eq!(back, [left[0].clone(), left[2].clone(), left[3].clone()]);
        assert!(back[2].tracked && back[2].gone && !back[1].gone);
        // A count that disagrees, a truncated list, and garbage are errors.
        assert!(load(&path, 2).is_err());
        let bytes = std::fs::read(&path).unwrap();
        std::fs::write(&path, &bytes[..bytes.len() - 1]).unwrap();
        assert!(load(&path, 3).is_err());
        std::fs::write(&path, b"garbage").unwrap();
        assert!(load(&path, 3).is_err());
        // Nothing left out: no list.
        assert_eq!(save(&path, &left[1..2]).unwrap(), 0);
        assert!(!path.exists());
        assert!(load(&path, 1).is_err());
    }
}
