//! The private state store under the data dir: per-session and per-prompt directories named by
//! hashes of their ids, atomic writes, non-waiting locks, the notice ledger, the age sweep and
//! the small decision log ([`decision`]) `status` reads. Its careful file-system work (atomic
//! writes, bounded reads, private directories, locks) goes through [`crate::fs`], which every
//! other room uses too.
//!
//! This room owns the data dir's layout and nothing else: it knows no git, no hook event and no
//! scorer, and it never reads or writes inside a repository.
//!
//! Layout (every directory 0700, every file 0600, nothing followed through a symlink):
//!
//! ```text
//! <data>/.jev-preflight-store          ownership marker
//! <data>/decisions.jsonl               last decisions, no diff content
//! <data>/repos/<h(repo)>/trees/        per-repository tree-object cache (snapshot engine)
//! <data>/repos/<h(repo)>/memory.json   findings already looked at (fingerprints, no content)
//! <data>/spend.log                     remote scorers' requests and tokens (no content)
//! <data>/sessions/<h(session)>/        lock, seq, notices, repo.json (last discovery),
//!                                      scores.json (remote scores by payload hash)
//! <data>/sessions/<h(session)>/prompts/<h(prompt)>/   lock, state.json, snap/
//! <data>/install/<h(settings path)>/   what `install` keeps to undo itself
//! ```
//!
//! Raw session and prompt ids are never written: directory names are truncated SHA-256 hashes.
//! Locks are `flock`-style file locks taken with `try_lock`: a contended lock is an answer
//! ("someone else is on it"), never a wait, and the kernel drops a lock when its holder dies,
//! so a crash never leaves a stale lock behind.

pub mod budget;
pub mod decision;
pub mod memory;

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant, SystemTime};

use crate::digest::hex_sha256;
use crate::fs::{self, Durability, FsError, Lock, remove_entry, try_lock};
use decision::Decision;

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
/// Payloads whose remote scores a session keeps (see [`SessionStore::cache_scores`]).
pub const SCORES_KEPT: usize = 64;
const SCORES_MAX_BYTES: u64 = 256 * 1024;
/// Entries kept in the decision log.
const DECISIONS_KEPT: usize = 200;
/// Size past which the decision log is trimmed to its last `DECISIONS_KEPT` entries (an entry
/// is well under 2 KiB, and this stays under `STATE_MAX_BYTES`, the most any read takes).
const DECISIONS_MAX_BYTES: u64 = 512 * 1024;

/// Why the store could not be used.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    #[error("{}: {source}", .path.display())]
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("{} is unsafe: it {why}", .path.display())]
    Unsafe { path: PathBuf, why: &'static str },
    #[error("{} holds files jev-preflight did not create (no `{MARKER}` marker)", .path.display())]
    Foreign { path: PathBuf },
    #[error("{}: {detail}", .path.display())]
    Corrupt { path: PathBuf, detail: String },
    #[error("another jev-preflight process holds {}", .path.display())]
    Busy { path: PathBuf },
}

impl From<FsError> for StoreError {
    fn from(e: FsError) -> StoreError {
        match e {
            FsError::Io { path, source } => StoreError::Io { path, source },
            FsError::Unsafe { path, why } => StoreError::Unsafe { path, why },
            FsError::TooLarge { path, max } => StoreError::Corrupt {
                path,
                detail: format!("larger than {max} bytes"),
            },
        }
    }
}

/// A short, stable directory name for an id.
pub fn key(kind: &str, id: &str) -> String {
    hex_sha256(format!("{kind}\0{id}").as_bytes())[..32].to_owned()
}

/// Whether `path` exists and was modified less than `age` ago.
fn fresh(path: &Path, age: Duration) -> bool {
    std::fs::symlink_metadata(path)
        .and_then(|m| m.modified())
        .ok()
        .and_then(|t| t.elapsed().ok())
        .is_some_and(|elapsed| elapsed < age)
}

fn read_file(path: &Path, max: u64) -> Result<Option<Vec<u8>>, StoreError> {
    Ok(fs::read_file(path, max)?)
}

/// Writes what must survive a power cut: the state recording that a prompt's continuation
/// was issued (SPEC invariants 3 and 8), and the store's ownership marker (written once;
/// without it the store would read as foreign and every later event fail open). A synced
/// write costs a data sync and a directory sync, so nothing else is written this way.
fn write_synced(path: &Path, bytes: &[u8]) -> Result<(), StoreError> {
    Ok(fs::write_atomic(path, bytes, Durability::Synced, None)?)
}

/// Writes what is worth nothing after a crash, or is only a hint (the decision log, the
/// notice ledger, time stamps, a baseline whose content objects are not synced either).
fn write_unsynced(path: &Path, bytes: &[u8]) -> Result<(), StoreError> {
    Ok(fs::write_atomic(path, bytes, Durability::Unsynced, None)?)
}

fn ensure_dir(path: &Path) -> Result<(), StoreError> {
    Ok(fs::ensure_private_dir(path)?)
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
            std::fs::create_dir_all(parent)
                .map_err(fs::io_error(parent))
                .map_err(StoreError::from)?;
        }
        ensure_dir(root)?;
        let marker = root.join(MARKER);
        match read_file(&marker, 4096)? {
            Some(_) => {}
            None => {
                let mut entries = std::fs::read_dir(root)
                    .map_err(fs::io_error(root))
                    .map_err(StoreError::from)?;
                if entries.any(|e| {
                    e.map(|e| {
                        !e.file_name()
                            .to_string_lossy()
                            .starts_with(&format!(".{MARKER}"))
                    })
                    .unwrap_or(true)
                }) {
                    // A hook starting at the same moment may have written the marker between
                    // our read and our listing, and its first files since: then the store is
                    // ours after all.
                    if read_file(&marker, 4096)?.is_some() {
                        return Ok(Store {
                            root: root.to_owned(),
                        });
                    }
                    return Err(StoreError::Foreign {
                        path: root.to_owned(),
                    });
                }
                write_synced(&marker, MARKER_TEXT.as_bytes())?;
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

    /// The directory of the repository whose common dir is `common_dir` (not created): its
    /// tree cache and its memory ([`memory`]) live there.
    pub fn repo_dir(&self, common_dir: &Path) -> PathBuf {
        self.root
            .join("repos")
            .join(key("repo", &common_dir.to_string_lossy()))
    }

    /// The per-repository tree cache for the repository whose common dir is `common_dir`.
    pub fn repo_cache(&self, common_dir: &Path) -> Result<PathBuf, StoreError> {
        ensure_dir(&self.root.join("repos"))?;
        let dir = self.repo_dir(common_dir);
        ensure_dir(&dir)?;
        // The stamp only has to be younger than `STALE_REPO_AGE`: refresh it when it is
        // older than `STAMP_REFRESH`, not on every prompt.
        let used = dir.join("used");
        if !fresh(&used, STAMP_REFRESH) {
            write_unsynced(&used, b"")?;
        }
        let trees = dir.join("trees");
        ensure_dir(&trees)?;
        Ok(trees)
    }

    /// Where `install` keeps what it needs to undo itself (created when missing); the sweep
    /// never touches it.
    pub fn install_dir(&self) -> Result<PathBuf, StoreError> {
        let dir = self.root.join("install");
        ensure_dir(&dir)?;
        Ok(dir)
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
                .is_some_and(|n| n.starts_with('.') && n.ends_with(fs::TEMP_SUFFIX))
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
        let _ = write_unsynced(&stamp, b"");
        self.sweep(now, budget)
    }

    /// Appends one decision to the log; skipped when another process is writing it.
    ///
    /// An append writes one line to the file that is there, so an event creates no file
    /// (each new file costs an inode, which on a busy file system is not free). Only once the
    /// log outgrows `DECISIONS_MAX_BYTES` is it rewritten, atomically, down to its last
    /// `DECISIONS_KEPT` entries; readers only ever look at those.
    pub fn log_decision(&self, entry: &Decision) -> Result<(), StoreError> {
        let Some(_lock) = try_lock(&self.root.join("decisions.lock"))? else {
            return Ok(());
        };
        let path = self.root.join("decisions.jsonl");
        // A `Decision` always serializes (strings, numbers, maps with string keys); were it
        // ever not to, no line is better than a broken one.
        let Ok(mut line) = serde_json::to_string(entry) else {
            return Ok(());
        };
        line.push('\n');
        // A lost log line after a power loss costs nothing; a sync on every event does.
        let len = fs::append_line(&path, line.as_bytes())?;
        if len > DECISIONS_MAX_BYTES {
            let old = read_file(&path, STATE_MAX_BYTES)
                .unwrap_or(None)
                .unwrap_or_default();
            let text = String::from_utf8_lossy(&old);
            let lines: Vec<&str> = text.lines().filter(|l| !l.is_empty()).collect();
            let skip = lines.len().saturating_sub(DECISIONS_KEPT);
            let mut out = lines[skip..].join("\n");
            out.push('\n');
            write_unsynced(&path, out.as_bytes())?;
        }
        Ok(())
    }

    /// The decisions in the log, oldest first (for `status`). A line that is no decision (cut
    /// short, or written by hand) is skipped.
    pub fn decisions(&self) -> Vec<Decision> {
        let mut all: Vec<Decision> = read_file(&self.root.join("decisions.jsonl"), STATE_MAX_BYTES)
            .ok()
            .flatten()
            .map(|b| {
                String::from_utf8_lossy(&b)
                    .lines()
                    .filter_map(|l| serde_json::from_str(l).ok())
                    .collect()
            })
            .unwrap_or_default();
        let skip = all.len().saturating_sub(DECISIONS_KEPT);
        all.drain(..skip);
        all
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

    /// The short name the decision log, the memory and the spend ledger know the session by:
    /// the first 12 hex digits of its directory's name (a hash of its id).
    pub fn tag(&self) -> String {
        self.dir
            .file_name()
            .map(|n| n.to_string_lossy().chars().take(12).collect())
            .unwrap_or_default()
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
    ///
    /// Not synced: a number lost in a power cut is handed out again, and the prompt that gets
    /// it finds the earlier prompt's state under that key — a duplicate, whose Stop stays
    /// quiet or finishes it. It never gets a second continuation: that is gated by the
    /// synced state under the key.
    pub fn next_seq(&self) -> Result<u64, StoreError> {
        let _lock = self.lock()?;
        let next = self.read_seq()? + 1;
        write_unsynced(&self.dir.join("seq"), next.to_string().as_bytes())?;
        Ok(next)
    }

    /// The latest prompt started with [`SessionStore::next_seq`] (0: none).
    pub fn current_seq(&self) -> Result<u64, StoreError> {
        self.read_seq()
    }

    /// The repository the session's last prompt discovered, as the hook saved it (bytes it
    /// parses and checks itself); `None` when there is none or it cannot be read.
    pub fn repo_memory(&self) -> Option<Vec<u8>> {
        read_file(&self.dir.join("repo.json"), 64 * 1024)
            .ok()
            .flatten()
    }

    /// Saves what [`SessionStore::repo_memory`] returns. Not synced: it is a hint, checked
    /// before every use, and worth nothing after a crash.
    pub fn remember_repo(&self, bytes: &[u8]) -> Result<(), StoreError> {
        write_unsynced(&self.dir.join("repo.json"), bytes)
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
        write_unsynced(&path, out.as_bytes())?;
        Ok(true)
    }

    /// What [`SessionStore::cache_scores`] saved for the payload whose hash is `hash`.
    pub fn cached_scores(&self, hash: &str) -> Option<serde_json::Value> {
        let bytes = read_file(&self.dir.join("scores.json"), SCORES_MAX_BYTES)
            .ok()
            .flatten()?;
        let cache: serde_json::Value = serde_json::from_slice(&bytes).ok()?;
        cache
            .as_array()?
            .iter()
            .find(|e| e.get("hash").and_then(|h| h.as_str()) == Some(hash))
            .and_then(|e| e.get("scores"))
            .cloned()
    }

    /// Keeps `scores` for the payload whose hash is `hash`, so that the session never sends
    /// the same payload twice; the last [`SCORES_KEPT`] payloads are kept. Not synced, and
    /// skipped when another process holds the session: a lost entry costs one request.
    pub fn cache_scores(&self, hash: &str, scores: serde_json::Value) -> Result<(), StoreError> {
        let _lock = self.lock()?;
        let path = self.dir.join("scores.json");
        let mut cache: Vec<serde_json::Value> = read_file(&path, SCORES_MAX_BYTES)
            .ok()
            .flatten()
            .and_then(|b| serde_json::from_slice(&b).ok())
            .unwrap_or_default();
        cache.retain(|e| e.get("hash").and_then(|h| h.as_str()) != Some(hash));
        cache.push(serde_json::json!({"hash": hash, "scores": scores}));
        let skip = cache.len().saturating_sub(SCORES_KEPT);
        cache.drain(..skip);
        let bytes = serde_json::to_vec(&cache).map_err(|e| StoreError::Corrupt {
            path: path.clone(),
            detail: e.to_string(),
        })?;
        write_unsynced(&path, &bytes)
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

    /// Whether anything sits where the snapshot dir goes: a prompt without one holds no
    /// content (it finished, continued, or never got as far as a snapshot).
    pub fn may_hold_content(&self) -> bool {
        let found = std::fs::symlink_metadata(self.snapshot_dir());
        !matches!(found, Err(e) if e.kind() == std::io::ErrorKind::NotFound)
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
            Err(e) => return Err(fs::io_error(&self.dir)(e).into()),
            Ok(_) => fs::check_private_dir(&self.dir)?,
        }
        Ok(try_lock(&self.dir.join("lock"))?)
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

    /// Writes the state synced ([`Durability::Synced`]): for the state that records a
    /// continuation, which must survive a power cut.
    pub fn write_state<T: serde::Serialize>(&self, state: &T) -> Result<(), StoreError> {
        let bytes = serde_json::to_vec(state).map_err(|e| StoreError::Corrupt {
            path: self.dir.join("state.json"),
            detail: e.to_string(),
        })?;
        write_synced(&self.dir.join("state.json"), &bytes)
    }

    /// Writes the state without syncing it ([`Durability::Unsynced`]): for states whose
    /// loss in a power cut gates no continuation — a baseline (its content objects are not
    /// synced either; a lost one means the Stop fails open), the payload hashes recorded
    /// before a request (a lost one costs at most a repeated request), and a finished
    /// prompt's tombstone. Other processes see it as soon as it returns, like a synced write.
    pub fn write_state_unsynced<T: serde::Serialize>(&self, state: &T) -> Result<(), StoreError> {
        let bytes = serde_json::to_vec(state).map_err(|e| StoreError::Corrupt {
            path: self.dir.join("state.json"),
            detail: e.to_string(),
        })?;
        write_unsynced(&self.dir.join("state.json"), &bytes)
    }

    /// Removes the whole prompt dir.
    pub fn remove(&self) -> Result<(), StoreError> {
        Ok(remove_entry(&self.dir)?)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::hook::failure::Class;

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
        assert_eq!(Class::from(&err), "store_unsafe", "{err}");
        // Writing replaces the link; the target is untouched.
        prompt.write_state(&serde_json::json!({"b": 2})).unwrap();
        assert_eq!(std::fs::read_to_string(&target).unwrap(), "{}");
        // A session dir replaced by a symlink is refused.
        let other = store.session("t");
        std::fs::create_dir_all(other.dir().parent().unwrap()).unwrap();
        std::os::unix::fs::symlink(tmp.path(), other.dir()).unwrap();
        assert_eq!(Class::from(&other.ensure().unwrap_err()), "store_unsafe");
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
        std::fs::File::options()
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
            let entry = Decision {
                time: i as u64,
                ..Decision::default()
            };
            store.log_decision(&entry).unwrap();
        }
        let d = store.decisions();
        assert_eq!(d.len(), DECISIONS_KEPT);
        assert_eq!(d.last().unwrap().time, DECISIONS_KEPT as u64 + 4);
    }

    #[test]
    fn a_line_that_is_no_decision_is_skipped() {
        let tmp = tempfile::tempdir().unwrap();
        let store = Store::open(&tmp.path().join("d")).unwrap();
        std::fs::write(
            store.root().join("decisions.jsonl"),
            concat!(
                "{\"event\":\"Stop\",\"outcome\":\"a\",\"session\":\"s\",\"time\":1}\n",
                "{\"event\":\"Stop\",\"outcome\":\"b\",\"ses\n",
                "{\"event\":\"Stop\",\"outcome\":\"c\",\"time\":\"yesterday\"}\n",
                "not json\n",
                "{\"event\":\"Stop\",\"outcome\":\"d\",\"session\":\"s\",\"time\":2}\n",
            ),
        )
        .unwrap();
        let outcomes: Vec<String> = store.decisions().into_iter().map(|d| d.outcome).collect();
        assert_eq!(outcomes, ["a", "d"]);
    }
}
