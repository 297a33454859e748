//! Parses `git status --porcelain=v2 -z` and `git ls-files -z --others` into the paths a
//! snapshot must restage, as git prints them: a [`Collector`] takes the output chunk by chunk
//! and keeps at most a bounded number of records, so a working tree with hundreds of
//! thousands of new files costs bounded memory and an early, typed end instead of an output
//! cap.

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

/// Which listing a [`Collector`] reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Listing {
    /// `git status --porcelain=v2 -z`.
    Status,
    /// `git ls-files -z --others`.
    Others,
}

/// Whether a path is left out of the walk (see [`Collector::drop_excluded_from`]).
pub type Drop<'a> = &'a (dyn Fn(&[u8]) -> bool + Sync);

/// Takes one listing's output as it arrives and keeps its records, within bounds.
pub struct Collector<'a> {
    listing: Listing,
    /// The start of a field whose NUL has not arrived yet.
    partial: Vec<u8>,
    /// The next field is a rename record's original path.
    skip_field: bool,
    pending: Vec<Pending>,
    bytes: usize,
    max_files: usize,
    max_bytes: usize,
    drop: Option<(Drop<'a>, usize)>,
    dropping: bool,
    dropped: u64,
    error: Option<GitError>,
    over: bool,
}

impl<'a> Collector<'a> {
    /// A collector keeping at most `max_files` records and `max_bytes` bytes of paths; past
    /// either it stops, and [`Collector::finish`] says so.
    pub fn new(listing: Listing, max_files: usize, max_bytes: usize) -> Collector<'a> {
        Collector {
            listing,
            partial: Vec::new(),
            skip_field: false,
            pending: Vec::new(),
            bytes: 0,
            max_files,
            max_bytes,
            drop: None,
            dropping: false,
            dropped: 0,
            error: None,
            over: false,
        }
    }

    /// Once more than `from` records are kept, records whose path `drop` names are dropped
    /// (and counted) instead of kept, those kept so far included: a listing that long is past
    /// what one snapshot reads, and such paths (excluded from scoring) need not be looked at.
    pub fn drop_excluded_from(mut self, drop: Drop<'a>, from: usize) -> Collector<'a> {
        self.drop = Some((drop, from));
        self
    }

    /// Takes the next chunk; `false` once the collector wants no more (a bound was passed
    /// or a record did not parse).
    pub fn feed(&mut self, chunk: &[u8]) -> bool {
        let mut rest = chunk;
        while let Some(end) = rest.iter().position(|&b| b == 0) {
            let ok = if self.partial.is_empty() {
                self.field(&rest[..end])
            } else {
                let mut field = std::mem::take(&mut self.partial);
                field.extend_from_slice(&rest[..end]);
                self.field(&field)
            };
            if !ok {
                return false;
            }
            rest = &rest[end + 1..];
        }
        self.partial.extend_from_slice(rest);
        // One path is never longer than the bytes a walk may keep.
        if self.partial.len() > self.max_bytes {
            self.over = true;
            return false;
        }
        true
    }

    /// The records kept, in git's order, and how many were dropped.
    pub fn finish(mut self) -> Result<(Vec<Pending>, u64), GitError> {
        if !self.partial.is_empty() && !self.over && self.error.is_none() {
            // The last record without its NUL: take it as it is.
            let last = std::mem::take(&mut self.partial);
            self.field(&last);
        }
        if let Some(e) = self.error {
            return Err(e);
        }
        if self.over {
            return Err(GitError::TooManyFiles {
                limit: self.max_files,
            });
        }
        Ok((self.pending, self.dropped))
    }

    /// One NUL-terminated field; `false` to stop.
    fn field(&mut self, field: &[u8]) -> bool {
        if std::mem::take(&mut self.skip_field) || field.is_empty() {
            return true;
        }
        let record = match self.listing {
            Listing::Status => status_record(field),
            Listing::Others => Ok(other_record(field)),
        };
        match record {
            Ok((item, skip_next)) => {
                self.skip_field = skip_next;
                if let Some(item) = item {
                    self.keep(item);
                }
            }
            Err(e) => {
                self.error = Some(e);
                return false;
            }
        }
        if self.pending.len() > self.max_files || self.bytes > self.max_bytes {
            self.over = true;
            return false;
        }
        true
    }

    fn keep(&mut self, item: Pending) {
        if self.dropping
            && let Some((drop, _)) = self.drop
            && drop(&item.path)
        {
            self.dropped += 1;
            return;
        }
        self.bytes += item.path.len();
        self.pending.push(item);
        if let Some((drop, from)) = self.drop
            && !self.dropping
            && self.pending.len() > from
        {
            self.dropping = true;
            let before = self.pending.len();
            self.pending.retain(|p| !drop(&p.path));
            self.dropped += (before - self.pending.len()) as u64;
            self.bytes = self.pending.iter().map(|p| p.path.len()).sum();
        }
    }
}

/// The entries whose working-tree side differs from the private index, in git's order.
///
/// Changes that are only staged (index ≠ HEAD, working tree = index) need nothing: the
/// private index already holds them. Unmerged entries always need restaging, because
/// `write-tree` cannot write a tree with conflict stages in it.
#[cfg(test)]
pub fn parse(stdout: &[u8]) -> Result<Vec<Pending>, GitError> {
    let mut collector = Collector::new(Listing::Status, usize::MAX, usize::MAX);
    collector.feed(stdout);
    collector.finish().map(|(pending, _)| pending)
}

/// One status record: the path to restage, if any, and whether a rename's original path
/// follows as the next field.
fn status_record(rec: &[u8]) -> Result<(Option<Pending>, bool), GitError> {
    let bad = |detail: String| GitError::Parse {
        command: "status --porcelain=v2".into(),
        detail,
    };
    let fields_before_path = match rec[0] {
        b'1' => 8,
        b'2' => 9,
        b'u' => 10,
        b'?' => {
            let path = rec.get(2..).ok_or_else(|| bad("short `?` record".into()))?;
            // `dir/` is an embedded repository; it has no content of its own to stage.
            let item = (!path.ends_with(b"/")).then(|| Pending {
                path: path.to_vec(),
                untracked: true,
                entry: None,
            });
            return Ok((item, false));
        }
        b'!' | b'#' => return Ok((None, false)),
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
    // A rename record carries its original path as the next NUL-separated field.
    let rename = rec[0] == b'2';
    let item = (rec[0] == b'u' || xy[1] != b'.').then(|| Pending {
        path: path.to_vec(),
        untracked: false,
        entry: (rec[0] == b'1').then(|| index_entry(rec)).flatten(),
    });
    Ok((item, rename))
}

/// One `ls-files --others` path; an embedded repository (`dir/`) has no content of its own
/// to stage and is left out.
fn other_record(path: &[u8]) -> (Option<Pending>, bool) {
    let item = (!path.ends_with(b"/")).then(|| Pending {
        path: path.to_vec(),
        untracked: true,
        entry: None,
    });
    (item, false)
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
        let mut c = Collector::new(Listing::Others, 10, 1024);
        assert!(c.feed(b"new\nline\0nested/\0dir/file\0"));
        let listed = c.finish().unwrap().0;
        assert_eq!(
            listed,
            vec![pending(b"new\nline", true), pending(b"dir/file", true)]
        );
        assert!(
            Collector::new(Listing::Others, 10, 1024)
                .finish()
                .unwrap()
                .0
                .is_empty()
        );
    }

    #[test]
    fn chunks_of_any_size_give_the_same_records() {
        let z = "0".repeat(40);
        let a = "a".repeat(40);
        let input = format!(
            "# branch.oid (initial)\0\
             1 .M N... 100644 100644 100644 {z} {a} with space\0\
             2 .M N... 100644 100644 100644 {z} {z} R100 new name\0old name\0\
             ? new\nline\0? nested/\0? last\0"
        );
        let whole = parse(input.as_bytes()).unwrap();
        assert_eq!(whole.len(), 4);
        for size in [1, 2, 3, 7, 64] {
            let mut c = Collector::new(Listing::Status, 100, 1 << 20);
            for chunk in input.as_bytes().chunks(size) {
                assert!(c.feed(chunk));
            }
            assert_eq!(c.finish().unwrap().0, whole, "chunks of {size}");
        }
    }

    #[test]
    fn a_listing_past_its_bounds_stops_and_says_so() {
        let listing: Vec<u8> = (0..1000)
            .flat_map(|i| format!("f{i:04}\0").into_bytes())
            .collect();
        let mut c = Collector::new(Listing::Others, 100, 1 << 20);
        let kept_going = listing.chunks(64).all(|chunk| c.feed(chunk));
        assert!(!kept_going, "the collector asks to stop");
        let err = c.finish().unwrap_err();
        assert!(
            matches!(err, GitError::TooManyFiles { limit: 100 }),
            "{err}"
        );
        // By bytes too.
        let mut c = Collector::new(Listing::Others, usize::MAX, 50);
        assert!(!c.feed(&listing));
        assert!(c.finish().is_err());
    }

    #[test]
    fn past_the_read_bound_excluded_paths_are_dropped_and_counted() {
        let mut listing = Vec::new();
        for i in 0..300 {
            listing.extend_from_slice(format!("node_modules/p{i}/index.js\0").as_bytes());
            if i % 100 == 0 {
                listing.extend_from_slice(format!("src/f{i}.rs\0").as_bytes());
            }
        }
        let drop = |p: &[u8]| p.starts_with(b"node_modules/");
        // Only 10 records may be kept; dropping starts past 5 and keeps it under.
        let mut c = Collector::new(Listing::Others, 10, 1 << 20).drop_excluded_from(&drop, 5);
        assert!(c.feed(&listing));
        let (kept, dropped) = c.finish().unwrap();
        let names: Vec<&[u8]> = kept.iter().map(|p| p.path.as_slice()).collect();
        assert_eq!(names, [&b"src/f0.rs"[..], b"src/f100.rs", b"src/f200.rs"]);
        assert_eq!(dropped, 300);
    }

    #[test]
    fn rejects_garbage() {
        assert!(parse(b"x what\0").is_err());
        assert!(parse(b"1 M.\0").is_err());
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
