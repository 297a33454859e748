//! The one module for careful file-system work: private (0700, owner-only) directories that are
//! never reached through a symlink, bounded reads, atomic writes (durable when asked), non-waiting
//! locks, removal that never follows a link, and private temp dirs removed on drop.
//!
//! Every caller that keeps state, writes a user's file or reads outside input goes through
//! these functions, so each mechanism has one implementation. Errors carry the path.

use std::fs::{self, File, OpenOptions, TryLockError};
use std::io::{self, Read, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU32, Ordering};
use std::time::SystemTime;

/// Why a file-system step failed.
#[derive(Debug, thiserror::Error)]
pub enum FsError {
    #[error("{}: {source}", .path.display())]
    Io { path: PathBuf, source: io::Error },
    #[error("{} is unsafe: it {why}", .path.display())]
    Unsafe { path: PathBuf, why: &'static str },
    #[error("{} is larger than {max} bytes", .path.display())]
    TooLarge { path: PathBuf, max: u64 },
}

/// Maps an I/O error on `path`; `ELOOP` (an `O_NOFOLLOW` open hit a symlink) is unsafe.
pub fn io_error(path: &Path) -> impl FnOnce(io::Error) -> FsError + '_ {
    move |source| {
        #[cfg(unix)]
        if source.raw_os_error() == Some(libc::ELOOP) {
            return FsError::Unsafe {
                path: path.to_owned(),
                why: "is a symbolic link",
            };
        }
        FsError::Io {
            path: path.to_owned(),
            source,
        }
    }
}

/// Open options that never follow a symlink at the last component and create files 0600.
fn no_follow() -> OpenOptions {
    let mut o = OpenOptions::new();
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        o.custom_flags(libc::O_NOFOLLOW | libc::O_CLOEXEC)
            .mode(0o600);
    }
    o
}

/// Creates `path` as a 0700 directory; one that already exists is fine (it is not checked).
pub fn create_private_dir(path: &Path) -> Result<(), FsError> {
    let mut builder = fs::DirBuilder::new();
    #[cfg(unix)]
    {
        use std::os::unix::fs::DirBuilderExt;
        builder.mode(0o700);
    }
    match builder.create(path) {
        Err(e) if e.kind() != io::ErrorKind::AlreadyExists => Err(io_error(path)(e)),
        _ => Ok(()),
    }
}

/// Makes `path` a private directory of ours, or proves it already is one: not a symlink, a
/// directory, owned by this user; a mode open to others is tightened to 0700.
pub fn ensure_private_dir(path: &Path) -> Result<(), FsError> {
    match fs::symlink_metadata(path) {
        Err(e) if e.kind() == io::ErrorKind::NotFound => {
            // Another hook process may create it between our look and our create.
            create_private_dir(path)?;
            check_private_dir(path)
        }
        Err(e) => Err(io_error(path)(e)),
        Ok(_) => check_private_dir(path),
    }
}

/// Refuses a symlinked, foreign or non-directory `path`; tightens its mode to 0700.
pub fn check_private_dir(path: &Path) -> Result<(), FsError> {
    let meta = fs::symlink_metadata(path).map_err(io_error(path))?;
    let refuse = |why| FsError::Unsafe {
        path: path.to_owned(),
        why,
    };
    if meta.file_type().is_symlink() {
        return Err(refuse("is a symbolic link"));
    }
    if !meta.is_dir() {
        return Err(refuse("is not a directory"));
    }
    #[cfg(unix)]
    {
        use std::os::unix::fs::{MetadataExt, PermissionsExt};
        #[allow(unsafe_code)]
        // SAFETY: geteuid has no preconditions and cannot fail.
        let euid = unsafe { libc::geteuid() };
        if meta.uid() != euid {
            return Err(refuse("is owned by another user"));
        }
        if meta.mode() & 0o077 != 0 {
            fs::set_permissions(path, fs::Permissions::from_mode(0o700)).map_err(io_error(path))?;
        }
    }
    Ok(())
}

/// Reads at most `max` bytes from `reader`: `None` when there are more.
pub fn read_capped(reader: impl Read, max: u64) -> io::Result<Option<Vec<u8>>> {
    let mut bytes = Vec::new();
    reader.take(max.saturating_add(1)).read_to_end(&mut bytes)?;
    Ok((bytes.len() as u64 <= max).then_some(bytes))
}

/// Reads the regular file at `path` without following a symlink; `Ok(None)` when absent,
/// [`FsError::TooLarge`] past `max` bytes.
pub fn read_file(path: &Path, max: u64) -> Result<Option<Vec<u8>>, FsError> {
    let file = match no_follow().read(true).open(path) {
        Ok(f) => f,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(io_error(path)(e)),
    };
    let meta = file.metadata().map_err(io_error(path))?;
    if !meta.is_file() {
        return Err(FsError::Unsafe {
            path: path.to_owned(),
            why: "is not a regular file",
        });
    }
    match read_capped(file, max).map_err(io_error(path))? {
        Some(bytes) => Ok(Some(bytes)),
        None => Err(FsError::TooLarge {
            path: path.to_owned(),
            max,
        }),
    }
}

/// How far an atomic write goes to survive a crash.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Durability {
    /// Data synced, renamed, then the directory synced: after a power loss the file holds the
    /// new content. For what gates a continuation, and for a user's settings file.
    Synced,
    /// Renamed without a sync: readers see the old or the new content, never a mix, but a power
    /// loss may lose the write. For what is worth nothing after a crash, or is only a hint.
    Unsynced,
}

/// Temp files of ours start with `.` and end with this; the store's sweep removes stale ones.
pub const TEMP_SUFFIX: &str = ".tmp";

/// Writes `bytes` to `path` atomically: a temp file in the same directory (0600, never through
/// a symlink), then a rename, which replaces a symlink planted at `path` instead of following
/// it. `permissions` (e.g. those of the file being replaced) are applied before the rename.
pub fn write_atomic(
    path: &Path,
    bytes: &[u8],
    durability: Durability,
    permissions: Option<fs::Permissions>,
) -> Result<(), FsError> {
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    };
    let tmp = dir.join(temp_name(path));
    let result = (|| {
        let mut file = no_follow()
            .write(true)
            .create_new(true)
            .open(&tmp)
            .map_err(io_error(&tmp))?;
        file.write_all(bytes).map_err(io_error(&tmp))?;
        if let Some(permissions) = permissions {
            file.set_permissions(permissions).map_err(io_error(&tmp))?;
        }
        if durability == Durability::Synced {
            file.sync_data().map_err(io_error(&tmp))?;
        }
        drop(file);
        fs::rename(&tmp, path).map_err(io_error(path))?;
        // The rename is durable once the directory entry is.
        #[cfg(unix)]
        if durability == Durability::Synced {
            File::open(dir)
                .and_then(|d| d.sync_all())
                .map_err(io_error(dir))?;
        }
        Ok(())
    })();
    if result.is_err() {
        let _ = fs::remove_file(&tmp);
    }
    result
}

/// Appends `line` (which ends with a newline) to the regular file at `path` in one write,
/// creating it 0600 and never through a symlink, and returns the file's new length. A last
/// line some writer left unterminated (it died mid-write) is ended first, so that the two
/// never read as one.
pub fn append_line(path: &Path, line: &[u8]) -> Result<u64, FsError> {
    let mut file = no_follow()
        .read(true)
        .append(true)
        .create(true)
        .open(path)
        .map_err(io_error(path))?;
    let meta = file.metadata().map_err(io_error(path))?;
    if !meta.is_file() {
        return Err(FsError::Unsafe {
            path: path.to_owned(),
            why: "is not a regular file",
        });
    }
    let mut bytes = Vec::with_capacity(line.len() + 1);
    #[cfg(unix)]
    if meta.len() > 0 {
        use std::os::unix::fs::FileExt;
        let mut last = [0u8; 1];
        file.read_exact_at(&mut last, meta.len() - 1)
            .map_err(io_error(path))?;
        if last[0] != b'\n' {
            bytes.push(b'\n');
        }
    }
    bytes.extend_from_slice(line);
    file.write_all(&bytes).map_err(io_error(path))?;
    Ok(meta.len() + bytes.len() as u64)
}

/// `.<name>.<pid>.<nanos>.<n>.tmp`: unique per process and call.
fn temp_name(path: &Path) -> String {
    static COUNTER: AtomicU32 = AtomicU32::new(0);
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| "file".into());
    let nanos = SystemTime::now()
        .duration_since(SystemTime::UNIX_EPOCH)
        .map(|d| d.subsec_nanos())
        .unwrap_or(0);
    let n = COUNTER.fetch_add(1, Ordering::Relaxed);
    format!(".{name}.{}.{nanos}.{n}{TEMP_SUFFIX}", std::process::id())
}

/// Removes a file or a directory tree; a symlink is removed, never followed. Absent is fine.
pub fn remove_entry(path: &Path) -> Result<(), FsError> {
    let meta = match fs::symlink_metadata(path) {
        Ok(m) => m,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(()),
        Err(e) => return Err(io_error(path)(e)),
    };
    let removed = if meta.is_dir() {
        fs::remove_dir_all(path)
    } else {
        fs::remove_file(path)
    };
    match removed {
        Err(e) if e.kind() != io::ErrorKind::NotFound => Err(io_error(path)(e)),
        _ => Ok(()),
    }
}

/// A held non-waiting lock; released on drop or when the process dies.
#[derive(Debug)]
pub struct Lock {
    _file: File,
}

/// Takes the lock file at `path` without waiting: `Ok(None)` when someone else holds it.
pub fn try_lock(path: &Path) -> Result<Option<Lock>, FsError> {
    let file = no_follow()
        .read(true)
        .write(true)
        .create(true)
        .truncate(false)
        .open(path)
        .map_err(io_error(path))?;
    match file.try_lock() {
        Ok(()) => Ok(Some(Lock { _file: file })),
        Err(TryLockError::WouldBlock) => Ok(None),
        Err(TryLockError::Error(e)) => Err(io_error(path)(e)),
    }
}

/// A fresh private directory under the system temp dir, removed with everything in it on
/// drop. Its path is canonical, so a symlinked temp dir (macOS `/var`) is no surprise.
#[derive(Debug)]
pub struct PrivateTempDir {
    path: PathBuf,
}

impl PrivateTempDir {
    /// Creates `<temp>/<prefix>-<pid>-<n>`, refusing to reuse anything already there.
    pub fn new(prefix: &str) -> Result<PrivateTempDir, FsError> {
        static COUNTER: AtomicU32 = AtomicU32::new(0);
        let base = std::env::temp_dir();
        loop {
            let n = COUNTER.fetch_add(1, Ordering::Relaxed);
            let path = base.join(format!("{prefix}-{}-{n}", std::process::id()));
            let mut builder = fs::DirBuilder::new();
            #[cfg(unix)]
            {
                use std::os::unix::fs::DirBuilderExt;
                builder.mode(0o700);
            }
            match builder.create(&path) {
                Ok(()) => {
                    let path = fs::canonicalize(&path).unwrap_or(path);
                    return Ok(PrivateTempDir { path });
                }
                // Left by an earlier process with our pid: take the next name.
                Err(e) if e.kind() == io::ErrorKind::AlreadyExists => continue,
                Err(e) => return Err(io_error(&path)(e)),
            }
        }
    }

    pub fn path(&self) -> &Path {
        &self.path
    }
}

impl Drop for PrivateTempDir {
    fn drop(&mut self) {
        let _ = fs::remove_dir_all(&self.path);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[cfg(unix)]
    fn mode(path: &Path) -> u32 {
        use std::os::unix::fs::PermissionsExt;
        fs::symlink_metadata(path).unwrap().permissions().mode() & 0o777
    }

    #[test]
    fn capped_reads() {
        assert_eq!(read_capped(&b"abc"[..], 3).unwrap(), Some(b"abc".to_vec()));
        assert_eq!(read_capped(&b"abcd"[..], 3).unwrap(), None);
        let tmp = tempfile::tempdir().unwrap();
        let path = tmp.path().join("f");
        assert!(read_file(&path, 10).unwrap().is_none());
        fs::write(&path, "0123456789x").unwrap();
        assert!(matches!(
            read_file(&path, 10),
            Err(FsError::TooLarge { max: 10, .. })
        ));
        assert_eq!(read_file(&path, 11).unwrap().unwrap().len(), 11);
        assert!(matches!(
            read_file(tmp.path(), 10),
            Err(FsError::Unsafe { .. })
        ));
    }

    #[cfg(unix)]
    #[test]
    fn atomic_writes_replace_links_and_keep_modes() {
        use std::os::unix::fs::PermissionsExt;
        let tmp = tempfile::tempdir().unwrap();
        let target = tmp.path().join("target");
        fs::write(&target, "theirs").unwrap();
        let path = tmp.path().join("state");
        std::os::unix::fs::symlink(&target, &path).unwrap();
        assert!(matches!(read_file(&path, 100), Err(FsError::Unsafe { .. })));
        for durability in [Durability::Synced, Durability::Unsynced] {
            write_atomic(&path, b"ours", durability, None).unwrap();
            assert_eq!(fs::read_to_string(&path).unwrap(), "ours");
            assert_eq!(fs::read_to_string(&target).unwrap(), "theirs");
            assert_eq!(mode(&path), 0o600);
        }
        let perms = fs::Permissions::from_mode(0o644);
        write_atomic(&path, b"x", Durability::Synced, Some(perms)).unwrap();
        assert_eq!(mode(&path), 0o644);
        // No temp file is left behind.
        let names: Vec<_> = fs::read_dir(tmp.path()).unwrap().flatten().collect();
        assert_eq!(names.len(), 2);
    }

    #[cfg(unix)]
    #[test]
    fn private_dirs() {
        use std::os::unix::fs::PermissionsExt;
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path().join("d");
        ensure_private_dir(&dir).unwrap();
        assert_eq!(mode(&dir), 0o700);
        fs::set_permissions(&dir, fs::Permissions::from_mode(0o755)).unwrap();
        ensure_private_dir(&dir).unwrap();
        assert_eq!(mode(&dir), 0o700);
        let link = tmp.path().join("link");
        std::os::unix::fs::symlink(&dir, &link).unwrap();
        assert!(matches!(
            ensure_private_dir(&link),
            Err(FsError::Unsafe { .. })
        ));
        let file = tmp.path().join("file");
        fs::write(&file, "").unwrap();
        assert!(matches!(
            ensure_private_dir(&file),
            Err(FsError::Unsafe { .. })
        ));
        remove_entry(&link).unwrap();
        assert!(dir.is_dir(), "removing a link leaves its target");
    }

    #[test]
    fn temp_dirs_are_private_and_removed() {
        let a = PrivateTempDir::new("jev-fs-test").unwrap();
        let b = PrivateTempDir::new("jev-fs-test").unwrap();
        assert_ne!(a.path(), b.path());
        #[cfg(unix)]
        assert_eq!(mode(a.path()), 0o700);
        let kept = a.path().to_owned();
        fs::write(kept.join("x"), "y").unwrap();
        drop(a);
        assert!(!kept.exists());
    }

    #[test]
    fn appended_lines_stay_lines() {
        let tmp = tempfile::tempdir().unwrap();
        let path = tmp.path().join("log");
        assert_eq!(append_line(&path, b"one\n").unwrap(), 4);
        fs::write(&path, "one\ntw").unwrap();
        assert_eq!(append_line(&path, b"three\n").unwrap(), 13);
        assert_eq!(fs::read_to_string(&path).unwrap(), "one\ntw\nthree\n");
        #[cfg(unix)]
        {
            let link = tmp.path().join("link");
            std::os::unix::fs::symlink(&path, &link).unwrap();
            assert!(matches!(
                append_line(&link, b"x\n"),
                Err(FsError::Unsafe { .. })
            ));
        }
    }

    #[test]
    fn locks_do_not_wait_and_die_with_their_holder() {
        let tmp = tempfile::tempdir().unwrap();
        let path = tmp.path().join("lock");
        let held = try_lock(&path).unwrap().unwrap();
        assert!(try_lock(&path).unwrap().is_none());
        drop(held);
        assert!(try_lock(&path).unwrap().is_some());
    }
}
