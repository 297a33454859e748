//! Parses `git status --porcelain=v2 -z` and `git ls-files -z --others` into the paths a
//! snapshot must restage.

use crate::git::GitError;

/// One path `git status` reported that the private index does not yet reflect.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Pending {
    pub path: Vec<u8>,
    /// Not in the private index (a `?` line); otherwise tracked with a working-tree change.
    pub untracked: bool,
    /// The private index's entry for a tracked path, as an ordinary change record (`1`)
    /// names it: its mode and object id in hex. `None` for untracked and unmerged paths.
    pub entry: Option<(u32, Vec<u8>)>,
}

/// The entries whose working-tree side differs from the private index, in git's order.
///
/// Changes that are only staged (index ≠ HEAD, working tree = index) need nothing: the
/// private index already holds them. Unmerged entries always need restaging, because
/// `write-tree` cannot write a tree with conflict stages in it.
pub fn parse(stdout: &[u8]) -> Result<Vec<Pending>, GitError> {
    let bad = |detail: String| GitError::Parse {
        command: "status --porcelain=v2".into(),
        detail,
    };
    let mut out = Vec::new();
    let mut records = stdout.split(|&b| b == 0);
    while let Some(rec) = records.next() {
        if rec.is_empty() {
            continue;
        }
        let fields_before_path = match rec[0] {
            b'1' => 8,
            b'2' => 9,
            b'u' => 10,
            b'?' => {
                let path = rec.get(2..).ok_or_else(|| bad("short `?` record".into()))?;
                // `dir/` is an embedded repository; it has no content of its own to stage.
                if !path.ends_with(b"/") {
                    out.push(Pending {
                        path: path.to_vec(),
                        untracked: true,
                        entry: None,
                    });
                }
                continue;
            }
            b'!' | b'#' => continue,
            other => return Err(bad(format!("unknown record kind `{}`", other as char))),
        };
        let mut parts = rec.splitn(fields_before_path + 1, |&b| b == b' ');
        let _kind = parts.next();
        let xy = parts.next().filter(|xy| xy.len() == 2);
        let path = parts.nth(fields_before_path - 2);
        let (Some(xy), Some(path)) = (xy, path) else {
            return Err(bad(format!(
                "malformed record `{}`",
                String::from_utf8_lossy(rec)
            )));
        };
        if rec[0] == b'2' {
            // A rename record carries its original path as the next NUL-separated field.
            records.next();
        }
        if rec[0] == b'u' || xy[1] != b'.' {
            out.push(Pending {
                path: path.to_vec(),
                untracked: false,
                entry: (rec[0] == b'1').then(|| index_entry(rec)).flatten(),
            });
        }
    }
    Ok(out)
}

/// The untracked files `git ls-files -z --others` listed, in its order. An embedded
/// repository (`dir/`) has no content of its own to stage and is left out.
pub fn untracked(stdout: &[u8]) -> impl Iterator<Item = Pending> + '_ {
    stdout
        .split(|&b| b == 0)
        .filter(|path| !path.is_empty() && !path.ends_with(b"/"))
        .map(|path| Pending {
            path: path.to_vec(),
            untracked: true,
            entry: None,
        })
}

/// The index side of an ordinary change record `1 XY sub mH mI mW hH hI path`: `mI` (octal)
/// and `hI`. `None` when the index holds no entry (mode 0) or a field does not parse.
fn index_entry(rec: &[u8]) -> Option<(u32, Vec<u8>)> {
    let mut fields = rec.split(|&b| b == b' ');
    let mode = fields.nth(4)?;
    let oid = fields.nth(2)?;
    let mode = u32::from_str_radix(std::str::from_utf8(mode).ok()?, 8).ok()?;
    (mode != 0 && !oid.is_empty() && oid.iter().all(u8::is_ascii_hexdigit))
        .then(|| (mode, oid.to_vec()))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pending(path: &[u8], untracked: bool) -> Pending {
        Pending {
            path: path.to_vec(),
            untracked,
            entry: None,
        }
    }

    fn tracked(path: &[u8], mode: u32, oid: &str) -> Pending {
        Pending {
            path: path.to_vec(),
            untracked: false,
            entry: Some((mode, oid.as_bytes().to_vec())),
        }
    }

    #[test]
    fn keeps_only_working_tree_changes() {
        let z = "0".repeat(40);
        let (a, b) = ("a".repeat(40), "b".repeat(40));
        let input = format!(
            "# branch.oid (initial)\0\
             1 M. N... 100644 100644 100644 {z} {z} staged only\0\
             1 .M N... 100644 100644 100644 {z} {a} with space\0\
             1 MD N... 100644 100755 000000 {z} {b} -gone\0\
             2 .M N... 100644 100644 100644 {z} {z} R100 new name\0old name\0\
             u UU N... 100644 100644 100644 100644 {z} {z} {z} conflict\0\
             ? new\nline\0\
             ? nested/\0\
             ! ignored\0"
        );
        assert_eq!(
            parse(input.as_bytes()).unwrap(),
            vec![
                tracked(b"with space", 0o100644, &a),
                tracked(b"-gone", 0o100755, &b),
                pending(b"new name", false),
                pending(b"conflict", false),
                pending(b"new\nline", true),
            ]
        );
    }

    #[test]
    fn lists_untracked_files_but_not_embedded_repositories() {
        let listed: Vec<Pending> = untracked(b"new\nline\0nested/\0dir/file\0").collect();
        assert_eq!(
            listed,
            vec![pending(b"new\nline", true), pending(b"dir/file", true)]
        );
        assert_eq!(untracked(b"").count(), 0);
    }

    #[test]
    fn rejects_garbage() {
        assert!(parse(b"x what\0").is_err());
        assert!(parse(b"1 M.\0").is_err());
    }

    proptest::proptest! {
        #[test]
        fn arbitrary_output_never_panics(bytes in proptest::collection::vec(proptest::prelude::any::<u8>(), 0..512)) {
            let _ = parse(&bytes);
        }
    }
}
