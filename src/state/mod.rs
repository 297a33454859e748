//! The private state store under the data dir: per-session and per-prompt directories named by
//! hashes of their ids, atomic writes, non-waiting locks, the notice ledger, the age sweep and
//! the small decision log `status` reads.
//!
//! Layout (every directory 0700, every file 0600, nothing followed through a symlink):
//!
//! ```text
//! <data>/.jev-preflight-store          ownership marker
//! <data>/decisions.jsonl               last decisions, no diff content
//! <data>/repos/<h(repo)>/trees/        per-repository tree-object cache (snapshot engine)
//! <data>/sessions/<h(session)>/        lock, seq, notices
//! <data>/sessions/<h(session)>/prompts/<h(prompt)>/   lock, state.json, snap/
//! ```
//!
//! Raw session and prompt ids are never written: directory names are truncated SHA-256 hashes.
//! Locks are `flock`-style file locks taken with `try_lock`: a contended lock is an answer
//! ("someone else is on it"), never a wait, and the kernel drops a lock when its holder dies,
//! so a crash never leaves a stale lock behind.

use std::fs::{File, OpenOptions, TryLockError};
use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant, SystemTime};

use crate::digest::hex_sha256;

/// Name of the ownership marker at the store's root.
pub const MARKER: &str = ".jev-preflight-store";
const MARKER_TEXT: &str = "jev-preflight private store v1; safe to delete when no session runs\n";
/// Largest state file read.
const STATE_MAX_BYTES: u64 = 1024 * 1024;
/// Prompt dirs untouched this long are abandoned (a session that never stopped).
pub const STALE_PROMPT_AGE: Duration = Duration::from_secs(24 * 3600);
/// Temp files this old belong to a writer that died.
pub const STALE_TEMP_AGE: Duration = Duration::from_secs(3600);
/// Repository caches unused this long are removed.
pub const STALE_REPO_AGE: Duration = Duration::from_secs(30 * 24 * 3600);
/// How often the age sweep runs, and how stale a "used" stamp may get before it is renewed.
pub const STAMP_REFRESH: Duration = Duration::from_secs(3600);
/// Entries kept in the decision log.
const DECISIONS_KEPT: usize = 200;

/// Why the store could not be used.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    #[error("{}: {source}", .path.display())]
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("{} is unsafe: {why}", .path.display())]
    Unsafe { path: PathBuf, why: String },
    #[error("{} holds files jev-preflight did not create (no `{MARKER}` marker)", .path.display())]
    Foreign { path: PathBuf },
    #[error("{}: {detail}", .path.display())]
    Corrupt { path: PathBuf, detail: String },
    #[error("another jev-preflight process holds {}", .path.display())]
    Busy { path: PathBuf },
}

impl StoreError {
    /// The fail-open class.
    pub fn class(&self) -> &'static str {
        match self {
            StoreError::Io { .. } => "store_io",
            StoreError::Unsafe { .. } => "store_unsafe",
            StoreError::Foreign { .. } => "store_foreign",
            StoreError::Corrupt { .. } => "state_corrupt",
            StoreError::Busy { .. } => "store_busy",
        }
    }
}

fn io_err(path: &Path) -> impl FnOnce(std::io::Error) -> StoreError + '_ {
    move |source| {
        if source.raw_os_error() == Some(libc_eloop()) {
            StoreError::Unsafe {
                path: path.to_owned(),
                why: "is a symbolic link".into(),
            }
        } else {
            StoreError::Io {
                path: path.to_owned(),
                source,
            }
        }
    }
}

#[cfg(unix)]
fn libc_eloop() -> i32 {
    libc::ELOOP
}
#[cfg(not(unix))]
fn libc_eloop() -> i32 {
    -1
}

/// A short, stable directory name for an id.
pub fn key(kind: &str, id: &str) -> String {
    hex_sha256(format!("{kind}\0{id}").as_bytes())[..32].to_owned()
}

fn open_options() -> OpenOptions {
    let mut o = OpenOptions::new();
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        o.custom_flags(libc::O_NOFOLLOW | libc::O_CLOEXEC)
            .mode(0o600);
    }
    o
}

#[cfg(unix)]
fn our_uid() -> u32 {
    // SAFETY: geteuid has no preconditions and cannot fail.
    unsafe { libc::geteuid() }
}

/// Makes `path` a private directory of ours, or proves it already is one.
pub fn ensure_dir(path: &Path) -> Result<(), StoreError> {
    match std::fs::symlink_metadata(path) {
        Ok(meta) => check_dir(path, &meta),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            let mut b = std::fs::DirBuilder::new();
            #[cfg(unix)]
            {
                use std::os::unix::fs::DirBuilderExt;
                b.mode(0o700);
            }
            match b.create(path) {
                Ok(()) => Ok(()),
                // Another hook process created it between our look and our create.
                Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {
                    let meta = std::fs::symlink_metadata(path).map_err(io_err(path))?;
                    check_dir(path, &meta)
                }
                Err(e) => Err(io_err(path)(e)),
            }
        }
        Err(e) => Err(io_err(path)(e)),
    }
}

fn check_dir(path: &Path, meta: &std::fs::Metadata) -> Result<(), StoreError> {
    let unsafe_ = |why: &str| StoreError::Unsafe {
        path: path.to_owned(),
        why: why.into(),
    };
    if meta.file_type().is_symlink() {
        return Err(unsafe_("is a symbolic link"));
    }
    if !meta.is_dir() {
        return Err(unsafe_("is not a directory"));
    }
    #[cfg(unix)]
    {
        use std::os::unix::fs::{MetadataExt, PermissionsExt};
        if meta.uid() != our_uid() {
            return Err(unsafe_("is owned by another user"));
        }
        if meta.mode() & 0o077 != 0 {
            std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o700))
                .map_err(io_err(path))?;
        }
    }
    Ok(())
}

/// Reads a regular file without following symlinks; `Ok(None)` when absent.
pub fn read_file(path: &Path, max: u64) -> Result<Option<Vec<u8>>, StoreError> {
    let file = match open_options().read(true).open(path) {
        Ok(f) => f,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(io_err(path)(e)),
    };
    let meta = file.metadata().map_err(io_err(path))?;
    if !meta.is_file() {
        return Err(StoreError::Unsafe {
            path: path.to_owned(),
            why: "is not a regular file".into(),
        });
    }
    let mut bytes = Vec::new();
    file.take(max + 1)
        .read_to_end(&mut bytes)
        .map_err(io_err(path))?;
    if bytes.len() as u64 > max {
        return Err(StoreError::Corrupt {
            path: path.to_owned(),
            detail: format!("larger than {max} bytes"),
        });
    }
    Ok(Some(bytes))
}

/// Writes `bytes` to `path` atomically: a temp file in the same directory, synced, renamed.
/// For what must survive a crash: the state that gates continuations.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> Result<(), StoreError> {
    write_replacing(path, bytes, true)
}

/// Like [`write_atomic`] without the sync: readers see the old or the new content, never a
/// mix, but a power loss may lose the write. For what is worth nothing after a crash, or is
/// only a hint: the decision log, the notice ledger, time stamps, a baseline whose content
/// objects are not synced either.
pub fn write_atomic_unsynced(path: &Path, bytes: &[u8]) -> Result<(), StoreError> {
    write_replacing(path, bytes, false)
}

fn write_replacing(path: &Path, bytes: &[u8], sync: bool) -> Result<(), StoreError> {
    let dir = path.parent().unwrap_or(Path::new("."));
    let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("file");
    let nanos = SystemTime::now()
        .duration_since(SystemTime::UNIX_EPOCH)
        .map(|d| d.subsec_nanos())
        .unwrap_or(0);
    let tmp = dir.join(format!(".{name}.{}.{nanos}.tmp", std::process::id()));
    let result = (|| {
        let mut f = open_options()
            .write(true)
            .create_new(true)
            .open(&tmp)
            .map_err(io_err(&tmp))?;
        f.write_all(bytes).map_err(io_err(&tmp))?;
        if sync {
            f.sync_data().map_err(io_err(&tmp))?;
        }
        // A symlink planted at `path` is replaced, never followed: rename swaps the entry.
        std::fs::rename(&tmp, path).map_err(io_err(path))
    })();
    if result.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    result
}

/// Whether `path` exists and was modified less than `age` ago.
fn fresh(path: &Path, age: Duration) -> bool {
    std::fs::symlink_metadata(path)
        .and_then(|m| m.modified())
        .ok()
        .and_then(|t| t.elapsed().ok())
        .is_some_and(|elapsed| elapsed < age)
}

/// Removes a file or a directory tree; symlinks are removed, never followed. Absent is fine.
pub fn remove_entry(path: &Path) -> Result<(), StoreError> {
    let meta = match std::fs::symlink_metadata(path) {
        Ok(m) => m,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(()),
        Err(e) => return Err(io_err(path)(e)),
    };
    let r = if meta.is_dir() {
        std::fs::remove_dir_all(path)
    } else {
        std::fs::remove_file(path)
    };
    match r {
        Err(e) if e.kind() != std::io::ErrorKind::NotFound => Err(io_err(path)(e)),
        _ => Ok(()),
    }
}

/// A held non-waiting lock; released on drop or when the process dies.
#[derive(Debug)]
pub struct Lock {
    _file: File,
}

/// Takes the lock file at `path` without waiting: `Ok(None)` when someone else holds it.
pub fn try_lock(path: &Path) -> Result<Option<Lock>, StoreError> {
    let file = open_options()
        .read(true)
        .write(true)
        .create(true)
        .truncate(false)
        .open(path)
        .map_err(io_err(path))?;
    match file.try_lock() {
        Ok(()) => Ok(Some(Lock { _file: file })),
        Err(TryLockError::WouldBlock) => Ok(None),
        Err(TryLockError::Error(e)) => Err(io_err(path)(e)),
    }
}

/// The store root.
#[derive(Debug, Clone)]
pub struct Store {
    root: PathBuf,
}

impl Store {
    /// Opens (creating when needed) the store at `root` and checks it is ours.
    pub fn open(root: &Path) -> Result<Store, StoreError> {
        if let Some(parent) = root.parent()
            && !parent.as_os_str().is_empty()
            && std::fs::symlink_metadata(parent).is_err()
        {
            std::fs::create_dir_all(parent).map_err(io_err(parent))?;
        }
        ensure_dir(root)?;
        let marker = root.join(MARKER);
        match read_file(&marker, 4096)? {
            Some(_) => {}
            None => {
                let mut entries = std::fs::read_dir(root).map_err(io_err(root))?;
                if entries.any(|e| {
                    e.map(|e| {
                        !e.file_name()
                            .to_string_lossy()
                            .starts_with(&format!(".{MARKER}"))
                    })
                    .unwrap_or(true)
                }) {
                    return Err(StoreError::Foreign {
                        path: root.to_owned(),
                    });
                }
                write_atomic(&marker, MARKER_TEXT.as_bytes())?;
            }
        }
        Ok(Store {
            root: root.to_owned(),
        })
    }

    /// Opens the store at `root` only if one was ever created there; writes nothing.
    /// Events that can only find state (Stop, SessionEnd, the decision log) use this, so
    /// that a repository in `off` mode — which never creates state — leaves no trace.
    pub fn open_existing(root: &Path) -> Result<Option<Store>, StoreError> {
        match std::fs::symlink_metadata(root.join(MARKER)) {
            Ok(_) => Store::open(root).map(Some),
            Err(_) => Ok(None),
        }
    }

    pub fn root(&self) -> &Path {
        &self.root
    }

    /// The per-repository tree cache for the repository whose common dir is `common_dir`.
    pub fn repo_cache(&self, common_dir: &Path) -> Result<PathBuf, StoreError> {
        let repos = self.root.join("repos");
        ensure_dir(&repos)?;
        let dir = repos.join(key("repo", &common_dir.to_string_lossy()));
        ensure_dir(&dir)?;
        // The stamp only has to be younger than `STALE_REPO_AGE`: refresh it when it is
        // older than `STAMP_REFRESH`, not on every prompt.
        let used = dir.join("used");
        if !fresh(&used, STAMP_REFRESH) {
            write_atomic_unsynced(&used, b"")?;
        }
        let trees = dir.join("trees");
        ensure_dir(&trees)?;
        Ok(trees)
    }

    /// The directory of one session (not created until [`SessionStore::ensure`]).
    pub fn session(&self, session_id: &str) -> SessionStore {
        SessionStore {
            dir: self.root.join("sessions").join(key("session", session_id)),
        }
    }

    /// Removes prompt dirs untouched for `STALE_PROMPT_AGE`, empty abandoned sessions, and
    /// repository caches unused for `STALE_REPO_AGE`; examines at most `budget` entries.
    /// Prompt dirs whose lock is held are left alone.
    pub fn sweep(&self, now: SystemTime, budget: usize) -> usize {
        let mut examined = 0;
        let mut removed = 0;
        let old = |path: &Path, age: Duration| {
            std::fs::symlink_metadata(path)
                .and_then(|m| m.modified())
                .map(|t| now.duration_since(t).unwrap_or_default() > age)
                .unwrap_or(false)
        };
        let entries = |dir: &Path| -> Vec<PathBuf> {
            std::fs::read_dir(dir)
                .map(|rd| rd.filter_map(|e| e.ok().map(|e| e.path())).collect())
                .unwrap_or_default()
        };
        // Temp files of writers that died between create and rename.
        let stale_temp = |path: &Path| {
            path.file_name()
                .and_then(|n| n.to_str())
                .is_some_and(|n| n.starts_with('.') && n.ends_with(".tmp"))
                && old(path, STALE_TEMP_AGE)
        };
        for temp in entries(&self.root).into_iter().filter(|p| stale_temp(p)) {
            let _ = remove_entry(&temp);
        }
        for session in entries(&self.root.join("sessions")) {
            for temp in entries(&session).into_iter().filter(|p| stale_temp(p)) {
                let _ = remove_entry(&temp);
            }
            let prompts = session.join("prompts");
            let mut live = 0;
            for prompt in entries(&prompts) {
                examined += 1;
                if examined > budget {
                    return removed;
                }
                let stamp = if prompt.join("state.json").exists() {
                    prompt.join("state.json")
                } else {
                    prompt.clone()
                };
                if old(&stamp, STALE_PROMPT_AGE)
                    && let Ok(Some(_lock)) = try_lock(&prompt.join("lock"))
                    && remove_entry(&prompt).is_ok()
                {
                    removed += 1;
                    continue;
                }
                live += 1;
            }
            if live == 0
                && old(&session.join("seq"), STALE_PROMPT_AGE)
                && old(&session, STALE_PROMPT_AGE)
            {
                let _ = remove_entry(&session);
            }
        }
        for repo in entries(&self.root.join("repos")) {
            examined += 1;
            if examined > budget {
                break;
            }
            if old(&repo.join("used"), STALE_REPO_AGE) && remove_entry(&repo).is_ok() {
                removed += 1;
            }
        }
        removed
    }

    /// Runs [`Store::sweep`] when the last one is older than [`STAMP_REFRESH`] (or `now` says
    /// so), recorded in the `swept` stamp; otherwise does nothing and returns 0. Nothing
    /// the sweep removes is younger than an hour, so running it hourly loses nothing.
    pub fn sweep_if_due(&self, now: SystemTime, budget: usize) -> usize {
        let stamp = self.root.join("swept");
        let due = match std::fs::symlink_metadata(&stamp).and_then(|m| m.modified()) {
            Ok(last) => now.duration_since(last).unwrap_or_default() > STAMP_REFRESH,
            Err(_) => true,
        };
        if !due {
            return 0;
        }
        let _ = write_atomic_unsynced(&stamp, b"");
        self.sweep(now, budget)
    }

    /// Appends one decision to the log, keeping the last `DECISIONS_KEPT`; skipped when
    /// another process is writing it.
    pub fn log_decision(&self, entry: &serde_json::Value) -> Result<(), StoreError> {
        let Some(_lock) = try_lock(&self.root.join("decisions.lock"))? else {
            return Ok(());
        };
        let path = self.root.join("decisions.jsonl");
        let old = read_file(&path, STATE_MAX_BYTES)
            .unwrap_or(None)
            .unwrap_or_default();
        let text = String::from_utf8_lossy(&old);
        let mut lines: Vec<&str> = text.lines().filter(|l| !l.is_empty()).collect();
        let new = entry.to_string();
        lines.push(&new);
        let skip = lines.len().saturating_sub(DECISIONS_KEPT);
        let mut out = lines[skip..].join("\n");
        out.push('\n');
        // A lost log line after a power loss costs nothing; a sync on every event does.
        write_atomic_unsynced(&path, out.as_bytes())
    }

    /// The decisions in the log, oldest first (for `status`).
    pub fn decisions(&self) -> Vec<serde_json::Value> {
        read_file(&self.root.join("decisions.jsonl"), STATE_MAX_BYTES)
            .ok()
            .flatten()
            .map(|b| {
                String::from_utf8_lossy(&b)
                    .lines()
                    .filter_map(|l| serde_json::from_str(l).ok())
                    .collect()
            })
            .unwrap_or_default()
    }
}

/// One session's directory.
#[derive(Debug, Clone)]
pub struct SessionStore {
    dir: PathBuf,
}

impl SessionStore {
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    pub fn ensure(&self) -> Result<(), StoreError> {
        if let Some(parent) = self.dir.parent() {
            ensure_dir(parent)?;
        }
        ensure_dir(&self.dir)?;
        ensure_dir(&self.dir.join("prompts"))
    }

    fn lock(&self) -> Result<Lock, StoreError> {
        self.ensure()?;
        let path = self.dir.join("lock");
        try_lock(&path)?.ok_or(StoreError::Busy { path })
    }

    fn read_seq(&self) -> Result<u64, StoreError> {
        let path = self.dir.join("seq");
        match read_file(&path, 64)? {
            None => Ok(0),
            Some(b) => std::str::from_utf8(&b)
                .ok()
                .and_then(|s| s.trim().parse().ok())
                .ok_or(StoreError::Corrupt {
                    path,
                    detail: "not a sequence number".into(),
                }),
        }
    }

    /// Starts the next prompt of a session whose host sends no prompt id.
    pub fn next_seq(&self) -> Result<u64, StoreError> {
        let _lock = self.lock()?;
        let next = self.read_seq()? + 1;
        write_atomic(&self.dir.join("seq"), next.to_string().as_bytes())?;
        Ok(next)
    }

    /// The latest prompt started with [`SessionStore::next_seq`] (0: none).
    pub fn current_seq(&self) -> Result<u64, StoreError> {
        self.read_seq()
    }

    /// Records `class` in the session's notice ledger; `true` the first time only.
    pub fn notice_once(&self, class: &str) -> Result<bool, StoreError> {
        let _lock = self.lock()?;
        let path = self.dir.join("notices");
        let old = read_file(&path, 64 * 1024)?.unwrap_or_default();
        let text = String::from_utf8_lossy(&old);
        if text.lines().any(|l| l == class) {
            return Ok(false);
        }
        let mut out = text.into_owned();
        out.push_str(class);
        out.push('\n');
        write_atomic_unsynced(&path, out.as_bytes())?;
        Ok(true)
    }

    /// Every prompt directory of this session.
    pub fn prompts(&self) -> Vec<PromptStore> {
        std::fs::read_dir(self.dir.join("prompts"))
            .map(|rd| {
                rd.flatten()
                    .map(|e| PromptStore { dir: e.path() })
                    .collect()
            })
            .unwrap_or_default()
    }

    /// One prompt's directory, by the key the hook derived for it.
    pub fn prompt(&self, prompt_key: &str) -> PromptStore {
        PromptStore {
            dir: self.dir.join("prompts").join(key("prompt", prompt_key)),
        }
    }

    /// Removes every prompt of this session, then the session itself, stopping at `deadline`.
    /// Returns whether everything was removed.
    pub fn remove_all(&self, deadline: Instant) -> bool {
        let prompts = self.dir.join("prompts");
        if let Ok(rd) = std::fs::read_dir(&prompts) {
            for entry in rd.flatten() {
                if Instant::now() >= deadline {
                    return false;
                }
                let _ = remove_entry(&entry.path());
            }
        }
        remove_entry(&self.dir).is_ok()
    }
}

/// One prompt's directory: its lock, its state file and its private snapshot store.
#[derive(Debug, Clone)]
pub struct PromptStore {
    dir: PathBuf,
}

impl PromptStore {
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// The private index and content objects of this prompt.
    pub fn snapshot_dir(&self) -> PathBuf {
        self.dir.join("snap")
    }

    pub fn exists(&self) -> bool {
        std::fs::symlink_metadata(&self.dir).is_ok()
    }

    /// Creates the directory (and the snapshot dir) and takes its lock without waiting.
    pub fn create_and_lock(&self) -> Result<Option<Lock>, StoreError> {
        ensure_dir(&self.dir)?;
        let lock = try_lock(&self.dir.join("lock"))?;
        if lock.is_some() {
            ensure_dir(&self.snapshot_dir())?;
        }
        Ok(lock)
    }

    /// Takes the lock of an existing prompt dir; `Ok(None)` when absent or held.
    pub fn lock_existing(&self) -> Result<Option<Lock>, StoreError> {
        match std::fs::symlink_metadata(&self.dir) {
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
            Err(e) => return Err(io_err(&self.dir)(e)),
            Ok(meta) => check_dir(&self.dir, &meta)?,
        }
        try_lock(&self.dir.join("lock"))
    }

    /// Reads the state strictly; `Ok(None)` when there is none.
    pub fn read_state<T: serde::de::DeserializeOwned>(&self) -> Result<Option<T>, StoreError> {
        let path = self.dir.join("state.json");
        let Some(bytes) = read_file(&path, STATE_MAX_BYTES)? else {
            return Ok(None);
        };
        serde_json::from_slice(&bytes)
            .map(Some)
            .map_err(|e| StoreError::Corrupt {
                path,
                detail: e.to_string(),
            })
    }

    pub fn write_state<T: serde::Serialize>(&self, state: &T) -> Result<(), StoreError> {
        let bytes = serde_json::to_vec(state).map_err(|e| StoreError::Corrupt {
            path: self.dir.join("state.json"),
            detail: e.to_string(),
        })?;
        write_atomic(&self.dir.join("state.json"), &bytes)
    }

    /// Writes the state without syncing it (see [`write_atomic_unsynced`]): for states whose
    /// loss in a power cut gates nothing — a baseline (its content objects are not synced
    /// either; a lost one means the Stop fails open) and a finished prompt's tombstone.
    pub fn write_state_unsynced<T: serde::Serialize>(&self, state: &T) -> Result<(), StoreError> {
        let bytes = serde_json::to_vec(state).map_err(|e| StoreError::Corrupt {
            path: self.dir.join("state.json"),
            detail: e.to_string(),
        })?;
        write_atomic_unsynced(&self.dir.join("state.json"), &bytes)
    }

    /// Removes the whole prompt dir.
    pub fn remove(&self) -> Result<(), StoreError> {
        remove_entry(&self.dir)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[cfg(unix)]
    fn mode(path: &Path) -> u32 {
        use std::os::unix::fs::PermissionsExt;
        std::fs::symlink_metadata(path)
            .unwrap()
            .permissions()
            .mode()
            & 0o777
    }

    #[test]
    fn layout_modes_marker_and_hashed_names() {
        let tmp = tempfile::tempdir().unwrap();
        let root = tmp.path().join("data");
        let store = Store::open(&root).unwrap();
        assert!(root.join(MARKER).is_file());
        let session = store.session("session-raw-id");
        let prompt = session.prompt("prompt-raw-id");
        session.ensure().unwrap();
        let _lock = prompt.create_and_lock().unwrap().unwrap();
        prompt.write_state(&serde_json::json!({"a": 1})).unwrap();
        #[cfg(unix)]
        {
            assert_eq!(mode(&root), 0o700);
            assert_eq!(mode(prompt.dir()), 0o700);
            assert_eq!(mode(&prompt.dir().join("state.json")), 0o600);
        }
        let all = format!("{:?}", walk(&root));
        assert!(!all.contains("raw-id"), "{all}");
    }

    fn walk(dir: &Path) -> Vec<PathBuf> {
        let mut out = vec![];
        for e in std::fs::read_dir(dir).unwrap().flatten() {
            out.push(e.path());
            if e.file_type().unwrap().is_dir() {
                out.extend(walk(&e.path()));
            }
        }
        out
    }

    #[test]
    fn foreign_dir_is_refused() {
        let tmp = tempfile::tempdir().unwrap();
        std::fs::write(tmp.path().join("something"), "x").unwrap();
        assert!(matches!(
            Store::open(tmp.path()),
            Err(StoreError::Foreign { .. })
        ));
    }

    #[cfg(unix)]
    #[test]
    fn symlinks_are_never_followed() {
        let tmp = tempfile::tempdir().unwrap();
        let store = Store::open(&tmp.path().join("d")).unwrap();
        let session = store.session("s");
        session.ensure().unwrap();
        let prompt = session.prompt("p");
        let _lock = prompt.create_and_lock().unwrap().unwrap();
        let target = tmp.path().join("target.json");
        std::fs::write(&target, "{}").unwrap();
        std::os::unix::fs::symlink(&target, prompt.dir().join("state.json")).unwrap();
        let err = prompt.read_state::<serde_json::Value>().unwrap_err();
        assert_eq!(err.class(), "store_unsafe", "{err}");
        // Writing replaces the link; the target is untouched.
        prompt.write_state(&serde_json::json!({"b": 2})).unwrap();
        assert_eq!(std::fs::read_to_string(&target).unwrap(), "{}");
        // A session dir replaced by a symlink is refused.
        let other = store.session("t");
        std::fs::create_dir_all(other.dir().parent().unwrap()).unwrap();
        std::os::unix::fs::symlink(tmp.path(), other.dir()).unwrap();
        assert_eq!(other.ensure().unwrap_err().class(), "store_unsafe");
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

    #[test]
    fn notice_ledger_and_sequence() {
        let tmp = tempfile::tempdir().unwrap();
        let store = Store::open(&tmp.path().join("d")).unwrap();
        let s = store.session("s");
        assert!(s.notice_once("git_missing").unwrap());
        assert!(!s.notice_once("git_missing").unwrap());
        assert!(s.notice_once("timeout").unwrap());
        assert!(store.session("other").notice_once("git_missing").unwrap());
        assert_eq!(s.current_seq().unwrap(), 0);
        assert_eq!(s.next_seq().unwrap(), 1);
        assert_eq!(s.next_seq().unwrap(), 2);
        assert_eq!(s.current_seq().unwrap(), 2);
        assert!(s.remove_all(Instant::now() + Duration::from_secs(1)));
        assert!(!s.dir().exists());
    }

    #[test]
    fn sweep_removes_only_stale_unlocked_prompts() {
        let tmp = tempfile::tempdir().unwrap();
        let store = Store::open(&tmp.path().join("d")).unwrap();
        let s = store.session("s");
        s.ensure().unwrap();
        let stale = s.prompt("old");
        drop(stale.create_and_lock().unwrap());
        stale.write_state(&1).unwrap();
        let held = s.prompt("held");
        let _lock = held.create_and_lock().unwrap().unwrap();
        held.write_state(&1).unwrap();
        // Nothing is old yet.
        assert_eq!(store.sweep(SystemTime::now(), 100), 0);
        std::fs::write(store.root().join(".decisions.jsonl.1.2.tmp"), "x").unwrap();
        std::fs::write(s.dir().join(".notices.1.2.tmp"), "x").unwrap();
        let later = SystemTime::now() + STALE_PROMPT_AGE + Duration::from_secs(60);
        assert_eq!(store.sweep(later, 100), 1);
        assert!(!store.root().join(".decisions.jsonl.1.2.tmp").exists());
        assert!(!s.dir().join(".notices.1.2.tmp").exists());
        assert!(!stale.exists());
        assert!(held.exists());
    }

    #[test]
    fn the_sweep_runs_at_most_once_an_hour() {
        let tmp = tempfile::tempdir().unwrap();
        let store = Store::open(&tmp.path().join("d")).unwrap();
        let temp = store.root().join(".decisions.jsonl.1.2.tmp");
        let now = SystemTime::now();
        let later = now + STALE_PROMPT_AGE;
        // First call: due (no stamp).
        std::fs::write(&temp, "x").unwrap();
        store.sweep_if_due(later, 100);
        assert!(!temp.exists());
        // Within the hour of the stamp: not due, the stale file stays.
        std::fs::write(&temp, "x").unwrap();
        store.sweep_if_due(now + Duration::from_secs(60), 100);
        store.sweep_if_due(now + STAMP_REFRESH / 2, 100);
        assert!(temp.exists());
        // Over an hour later: due again.
        store.sweep_if_due(later, 100);
        assert!(!temp.exists());
    }

    #[test]
    fn the_repo_stamp_is_renewed_only_when_old() {
        let tmp = tempfile::tempdir().unwrap();
        let store = Store::open(&tmp.path().join("d")).unwrap();
        let trees = store.repo_cache(Path::new("/some/repo/.git")).unwrap();
        let used = trees.parent().unwrap().join("used");
        let old = SystemTime::now() - STAMP_REFRESH * 2;
        File::options()
            .write(true)
            .open(&used)
            .unwrap()
            .set_modified(old)
            .unwrap();
        store.repo_cache(Path::new("/some/repo/.git")).unwrap();
        let renewed = std::fs::metadata(&used).unwrap().modified().unwrap();
        assert!(renewed > old + STAMP_REFRESH);
        store.repo_cache(Path::new("/some/repo/.git")).unwrap();
        assert_eq!(
            std::fs::metadata(&used).unwrap().modified().unwrap(),
            renewed
        );
    }

    #[test]
    fn decision_log_is_bounded() {
        let tmp = tempfile::tempdir().unwrap();
        let store = Store::open(&tmp.path().join("d")).unwrap();
        for i in 0..(DECISIONS_KEPT + 5) {
            store.log_decision(&serde_json::json!({"i": i})).unwrap();
        }
        let d = store.decisions();
        assert_eq!(d.len(), DECISIONS_KEPT);
        assert_eq!(d.last().unwrap()["i"], DECISIONS_KEPT + 4);
    }
}
