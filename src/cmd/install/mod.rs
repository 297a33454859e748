//! Registering jev-preflight's hooks in a host's settings file, and removing them again.
//!
//! For people who do not use the plugin marketplace, `jev-preflight install` registers command
//! hooks that run this binary with the argument `hook` in the file the host reads (project or
//! user scope): Claude Code's `.claude/settings.json`, Codex CLI's `.codex/hooks.json`, Gemini
//! CLI's `.gemini/settings.json`, and the files of the other hosts [`Host`] knows. Which file,
//! which events, what a handler looks like: all of that is [`Host`]'s; this module only edits.
//!
//! The settings file is the user's: every other setting, its key order, indentation, line
//! endings and unicode are kept, because edits are text splices (see [`edit`]) rather than a
//! re-serialization. A file with comments or invalid JSON is refused and left untouched.
//! Writes are atomic (temp file in the same directory, synced, renamed). What install needs to
//! undo itself — the previous file, and the directories it created — is kept under the data
//! dir ([`Undo`]), never next to the settings file, where a project could commit it by
//! accident. Install is idempotent, and uninstall removes exactly what install added: when the
//! file is still what install wrote, the backup's bytes come back verbatim; otherwise our
//! handlers are cut out of the text, which is the exact inverse of how they were spliced in.
//! A file install created and that holds nothing else is deleted again with the directories
//! install created for it, when nothing else was put in them. The plugin hosts (OpenCode, Kilo
//! Code) get a plugin file of ours, see [`plugin`]; its folders are undone the same way.
//!
//! Nothing here reads the environment: the caller passes the binary's path, the file and
//! where the undo records live.

mod edit;
mod plugin;

use crate::fs::{Durability, FsError};
use crate::host::EventName;
use crate::host::{Command, Container, HookFile, Host, Nesting};
use crate::state;
use std::fs;
use std::io;
use std::path::{Path, PathBuf};

pub use edit::EditError;
use edit::{Addition, Node, Splice, Style, Value};

/// Suffix of the backup earlier versions kept next to an edited settings file; uninstall
/// still reads it, and install and uninstall remove it.
pub const LEGACY_BACKUP_SUFFIX: &str = ".jev-preflight.bak";
/// Where the README shows the entries to add by hand (its section "Add the hooks by hand").
pub const BY_HAND: &str = concat!(env!("CARGO_PKG_REPOSITORY"), "#add-the-hooks-by-hand");
/// Name of the record of the directories install created, in an [`Undo`] directory.
const CREATED_DIRS: &str = "created-dirs.json";
/// The `name` of our handlers in Gemini's settings.
const GEMINI_NAME: &str = "jev-preflight";
/// Cursor's per-hook cap on follow-ups: ours asks at most once per prompt.
const CURSOR_LOOP_LIMIT: u64 = 1;

/// The backup earlier versions kept next to `settings`.
pub fn legacy_backup_path(settings: &Path) -> PathBuf {
    let mut name = settings.file_name().unwrap_or_default().to_os_string();
    name.push(LEGACY_BACKUP_SUFFIX);
    settings.with_file_name(name)
}

/// What install keeps to undo itself for one settings file: `<root>/<hash of its path>/`
/// holds the previous file (under its own name) and the list of directories install created.
/// `root` is the data dir's `install/` (private, 0700).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Undo {
    dir: PathBuf,
    file_name: std::ffi::OsString,
}

impl Undo {
    /// The undo record of the settings file at `target` (its resolved path) under `root`.
    pub fn of(root: &Path, target: &Path) -> Undo {
        Undo {
            dir: root.join(state::key("install", &target.to_string_lossy())),
            file_name: target.file_name().unwrap_or_default().to_os_string(),
        }
    }

    /// Where the previous file is kept.
    pub fn backup(&self) -> PathBuf {
        self.dir.join(&self.file_name)
    }

    fn created_dirs(&self) -> PathBuf {
        self.dir.join(CREATED_DIRS)
    }

    fn ensure(&self) -> Result<(), InstallError> {
        for dir in [self.dir.parent().unwrap_or(&self.dir), &self.dir] {
            crate::fs::ensure_private_dir(dir).map_err(fs_error(dir))?;
        }
        Ok(())
    }

    /// Keeps `previous`, the bytes of `target` before an edit.
    fn keep(&self, previous: &[u8], target: &Path) -> Result<PathBuf, InstallError> {
        self.ensure()?;
        let backup = self.backup();
        write_atomic(&backup, previous, Some(target))?;
        Ok(backup)
    }

    /// Records the directories install is about to create (`dirs`, deepest first).
    fn record_created(&self, dirs: &[PathBuf]) -> Result<(), InstallError> {
        self.ensure()?;
        let names: Vec<&str> = dirs.iter().filter_map(|d| d.to_str()).collect();
        let json = serde_json::to_vec(&names).unwrap_or_default();
        let path = self.created_dirs();
        crate::fs::write_atomic(&path, &json, Durability::Synced, None).map_err(fs_error(&path))
    }

    /// Removes the directories install created for `target`, deepest first, where they are
    /// empty; a directory someone put something in stays.
    fn remove_created(&self, target: &Path) {
        let Ok(Some(bytes)) = crate::fs::read_file(&self.created_dirs(), 64 * 1024) else {
            return;
        };
        let dirs: Vec<PathBuf> = serde_json::from_slice(&bytes).unwrap_or_default();
        for dir in dirs {
            // Only ever an ancestor of the settings file.
            if target.starts_with(&dir) && dir != target {
                let _ = fs::remove_dir(&dir);
            }
        }
    }

    /// Forgets everything kept for this file.
    fn forget(&self) {
        let _ = crate::fs::remove_entry(&self.dir);
    }
}

/// The directories that do not exist yet on the way to `dir`, deepest first.
fn missing_dirs(dir: &Path) -> Vec<PathBuf> {
    dir.ancestors()
        .take_while(|d| !d.as_os_str().is_empty() && fs::symlink_metadata(d).is_err())
        .map(Path::to_path_buf)
        .collect()
}

fn fs_error(path: &Path) -> impl FnOnce(FsError) -> InstallError + '_ {
    move |e| match e {
        FsError::Io { path, source } => InstallError::Write { path, source },
        other => write_error(path, io::Error::other(other.to_string())),
    }
}

/// What install or uninstall did to the settings file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Action {
    /// The file did not exist and now holds our hooks.
    Created,
    /// Our hooks were added to an existing file (or replaced stale ones).
    Added,
    /// Our hooks were already there, exactly; nothing was written.
    AlreadyInstalled,
    /// The file was still what install wrote: its previous bytes were put back.
    Restored,
    /// Our handlers were cut out of a file that changed since install.
    Removed,
    /// The file held nothing but our hooks, so it was deleted.
    Deleted,
    /// No handler of ours was found; nothing was written.
    NotInstalled,
}

/// The result of [`install`] or [`uninstall`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Outcome {
    pub action: Action,
    /// The settings file.
    pub path: PathBuf,
    /// Where the previous contents were saved, when a file was overwritten or deleted.
    pub backup: Option<PathBuf>,
}

impl std::fmt::Display for Outcome {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let path = self.path.display();
        match self.action {
            Action::Created => write!(f, "created `{path}` with the jev-preflight hooks")?,
            Action::Added => write!(f, "added the jev-preflight hooks to `{path}`")?,
            Action::AlreadyInstalled => write!(
                f,
                "the jev-preflight hooks are already in `{path}`; nothing changed"
            )?,
            Action::Restored => write!(
                f,
                "removed the jev-preflight hooks: `{path}` is back to its bytes before install"
            )?,
            Action::Removed => write!(f, "removed the jev-preflight hooks from `{path}`")?,
            Action::Deleted => write!(
                f,
                "removed `{path}`: install had created it and it held only the jev-preflight hooks"
            )?,
            Action::NotInstalled => {
                write!(f, "no jev-preflight hooks in `{path}`; nothing changed")?
            }
        }
        if let Some(backup) = &self.backup {
            write!(f, " (previous file saved as `{}`)", backup.display())?;
        }
        Ok(())
    }
}

/// Why install or uninstall did not happen. The settings file is untouched in every case.
#[derive(Debug, thiserror::Error)]
pub enum InstallError {
    #[error("the hook command must be an absolute UTF-8 path, got `{}`", .0.display())]
    Program(PathBuf),
    #[error("could not read `{}`: {source}", path.display())]
    Read { path: PathBuf, source: io::Error },
    #[error("refusing to edit `{}`: {source}", path.display())]
    Settings { path: PathBuf, source: EditError },
    #[error("could not write `{}`: {source}", path.display())]
    Write { path: PathBuf, source: io::Error },
    #[error("refusing to touch `{}`: jev-preflight did not write it", path.display())]
    NotOurs { path: PathBuf },
}

impl InstallError {
    /// The next step for the user, printed on a `hint:` line.
    pub fn hint(&self) -> Option<String> {
        match self {
            InstallError::Program(_) => Some(
                "run the installed `jev-preflight` binary itself, not through a relative path"
                    .to_owned(),
            ),
            InstallError::NotOurs { path } => Some(format!(
                "move `{}` away if it is an older copy of the jev-preflight plugin, then run this \
                    again",
                path.display()
            )),
            InstallError::Read { .. } | InstallError::Write { .. } => {
                Some("check that the file and its directory exist and are writable".to_owned())
            }
            InstallError::Settings { path, source } => Some(match source {
                EditError::Comments { .. } => format!(
                    "remove the comments from `{}`, or add the hooks by hand: {BY_HAND}",
                    path.display()
                ),
                EditError::NotUtf8 | EditError::Invalid { .. } => format!(
                    "fix `{}` so that it is valid JSON (or move it away), then run this again",
                    path.display()
                ),
                EditError::Shape { .. } => format!(
                    "`{}` does not have the shape the host expects; fix that entry, then run this \
                        again",
                    path.display()
                ),
            }),
        }
    }
}

/// Registers the hooks of `host` in `settings` (a file of the shape `file`), running
/// `program` (the absolute path of the running `jev-preflight` binary); what undoes it is
/// kept under `undo_root` ([`Undo`]).
pub fn install(
    host: Host,
    file: HookFile,
    settings: &Path,
    program: &Path,
    undo_root: &Path,
) -> Result<Outcome, InstallError> {
    let program = program_str(program)?;
    if file.command == Command::Plugin {
        return plugin::install(host, settings, program, &Undo::of(undo_root, settings));
    }
    let target = resolve_symlink(settings);
    let current = read_optional(&target)?;
    let edited = add_hooks(current.as_deref().unwrap_or_default(), host, file, program)
        .map_err(|source| settings_error(settings, source))?;
    let Some(edited) = edited else {
        return Ok(outcome(Action::AlreadyInstalled, settings, None));
    };
    let undo = Undo::of(undo_root, &target);
    let result = match current {
        None => {
            if let Some(dir) = target.parent() {
                let missing = missing_dirs(dir);
                // Recorded before they exist: a crash in between leaves nothing unrecorded.
                undo.record_created(&missing)?;
                fs::create_dir_all(dir).map_err(|source| write_error(dir, source))?;
            }
            write_atomic(&target, edited.as_bytes(), None)?;
            outcome(Action::Created, settings, None)
        }
        Some(previous) => {
            let backup = undo.keep(&previous, &target)?;
            write_atomic(&target, edited.as_bytes(), Some(&target))?;
            outcome(Action::Added, settings, Some(backup))
        }
    };
    // A backup an older version left next to the file must not stay where it can be committed.
    let _ = fs::remove_file(legacy_backup_path(&target));
    Ok(result)
}

/// Removes what [`install`] added to `settings`; `program` is the running binary, used to
/// recognise a file that is still exactly what install wrote; `undo_root` as for [`install`].
pub fn uninstall(
    host: Host,
    file: HookFile,
    settings: &Path,
    program: &Path,
    undo_root: &Path,
) -> Result<Outcome, InstallError> {
    if file.command == Command::Plugin {
        return plugin::uninstall(settings, &Undo::of(undo_root, settings));
    }
    let target = resolve_symlink(settings);
    let Some(current) = read_optional(&target)? else {
        return Ok(outcome(Action::NotInstalled, settings, None));
    };
    let edited = remove_hooks(&current, file).map_err(|source| settings_error(settings, source))?;
    let Some(edited) = edited else {
        return Ok(outcome(Action::NotInstalled, settings, None));
    };
    let undo = Undo::of(undo_root, &target);
    let legacy = legacy_backup_path(&target);
    let original = match read_optional(&undo.backup())? {
        Some(bytes) => Some(bytes),
        None => read_optional(&legacy)?,
    };

    // The file is still what install made of the backup: give back the backup's bytes, which
    // also covers the few edits that text surgery cannot invert (an empty `[]` or `{}` that
    // install filled in, say).
    if let (Ok(program), Some(original)) = (program_str(program), &original)
        && let Ok(Some(installed)) = add_hooks(original, host, file, program)
        && installed.as_bytes() == current.as_slice()
    {
        write_atomic(&target, original, Some(&target))?;
        undo.forget();
        let _ = fs::remove_file(&legacy);
        return Ok(outcome(Action::Restored, settings, None));
    }
    // Install created this file and nothing else was ever added to it.
    if edited == skeleton(file, Style::detect(&edited, None).newline) && original.is_none() {
        fs::remove_file(&target).map_err(|source| write_error(&target, source))?;
        undo.remove_created(&target);
        undo.forget();
        return Ok(outcome(Action::Deleted, settings, None));
    }
    let backup = undo.keep(&current, &target)?;
    write_atomic(&target, edited.as_bytes(), Some(&target))?;
    let _ = fs::remove_file(&legacy);
    Ok(outcome(Action::Removed, settings, Some(backup)))
}

/// Whether a handler of ours (or, for the plugin hosts, our plugin file) is registered in
/// `settings`, a file of the shape `file`; any binary path counts. A missing file holds none.
pub fn installed(file: HookFile, settings: &Path) -> Result<bool, InstallError> {
    let Some(bytes) = read_optional(&resolve_symlink(settings))? else {
        return Ok(false);
    };
    if file.command == Command::Plugin {
        return Ok(bytes.starts_with(plugin::MARKER.as_bytes()));
    }
    let found = std::str::from_utf8(&bytes)
        .map_err(|_| EditError::NotUtf8)
        .and_then(parse_root)
        .and_then(|root| match root {
            Some(root) => Ok(!our_handlers(&root, file)?.is_empty()),
            None => Ok(false),
        });
    found.map_err(|source| settings_error(settings, source))
}

fn outcome(action: Action, path: &Path, backup: Option<PathBuf>) -> Outcome {
    Outcome {
        action,
        path: path.to_owned(),
        backup,
    }
}

fn settings_error(path: &Path, source: EditError) -> InstallError {
    InstallError::Settings {
        path: path.to_owned(),
        source,
    }
}

fn write_error(path: &Path, source: io::Error) -> InstallError {
    InstallError::Write {
        path: path.to_owned(),
        source,
    }
}

fn program_str(program: &Path) -> Result<&str, InstallError> {
    match program.to_str() {
        Some(s) if program.is_absolute() => Ok(s),
        _ => Err(InstallError::Program(program.to_owned())),
    }
}

/// A settings file that is a symlink (dotfile managers do this) is edited where it points, so
/// the link survives.
fn resolve_symlink(path: &Path) -> PathBuf {
    match fs::symlink_metadata(path) {
        Ok(meta) if meta.file_type().is_symlink() => {
            fs::canonicalize(path).unwrap_or_else(|_| path.to_owned())
        }
        _ => path.to_owned(),
    }
}

fn read_optional(path: &Path) -> Result<Option<Vec<u8>>, InstallError> {
    match fs::read(path) {
        Ok(bytes) => Ok(Some(bytes)),
        Err(err) if err.kind() == io::ErrorKind::NotFound => Ok(None),
        Err(source) => Err(InstallError::Read {
            path: path.to_owned(),
            source,
        }),
    }
}

/// Writes `bytes` to `path` atomically and durably. The new file takes the permissions of
/// `mode_from` when that file exists; a settings file created afresh is 0644 (readable, like
/// any file a project commits).
fn write_atomic(path: &Path, bytes: &[u8], mode_from: Option<&Path>) -> Result<(), InstallError> {
    let permissions = match mode_from.and_then(|p| fs::metadata(p).ok()) {
        Some(meta) => Some(meta.permissions()),
        #[cfg(unix)]
        None => Some(std::os::unix::fs::PermissionsExt::from_mode(0o644)),
        #[cfg(not(unix))]
        None => None,
    };
    crate::fs::write_atomic(path, bytes, Durability::Synced, permissions).map_err(|e| match e {
        FsError::Io { path, source } => InstallError::Write { path, source },
        other => write_error(path, io::Error::other(other.to_string())),
    })
}

/// The handler install writes for `host`'s `event`.
fn handler(host: Host, file: HookFile, program: &str, event: EventName, timeout: u64) -> Value {
    let string = |s: &str| Value::String(s.to_owned());
    let member = |k: &str, v: Value| (k.to_owned(), v);
    let args = host.hook_args(event);
    let line = std::iter::once(program.to_owned())
        .chain(args.iter().cloned())
        .map(|w| shell_quote(&w))
        .collect::<Vec<_>>()
        .join(" ");
    let type_command = member("type", string("command"));
    let members = match file.command {
        Command::Exec => vec![
            type_command,
            member("command", string(program)),
            member(
                "args",
                Value::Array(args.iter().map(|a| string(a)).collect()),
            ),
            member("timeout", Value::Number(timeout)),
        ],
        Command::Shell => vec![
            type_command,
            member("command", Value::String(line)),
            member("timeout", Value::Number(timeout)),
        ],
        // Gemini shows the name in its hook list and messages instead of the command.
        Command::NamedShell => vec![
            type_command,
            member("name", string(GEMINI_NAME)),
            member("command", Value::String(line)),
            member("timeout", Value::Number(timeout)),
        ],
        Command::BashAndPowershell => vec![
            type_command,
            member("bash", Value::String(line)),
            member("powershell", Value::String(powershell_line(program, &args))),
            member("timeoutSec", Value::Number(timeout)),
        ],
        Command::Cursor => {
            let mut members = vec![
                member("command", Value::String(line)),
                member("timeout", Value::Number(timeout)),
            ];
            if event == EventName::Stop {
                members.push(member("loop_limit", Value::Number(CURSOR_LOOP_LIMIT)));
            }
            members
        }
        Command::Plugin => unreachable!("plugin hosts get a plugin file, not handlers"),
    };
    Value::Object(members)
}

/// `program` and `args` as a PowerShell command line (`& 'C:\x\jev-preflight.exe' hook …`).
fn powershell_line(program: &str, args: &[String]) -> String {
    let quote = |s: &str| format!("'{}'", s.replace('\'', "''"));
    std::iter::once(format!("& {}", quote(program)))
        .chain(args.iter().map(|a| quote(a)))
        .collect::<Vec<_>>()
        .join(" ")
}

/// The words of a PowerShell line [`powershell_line`] wrote; `None` for anything else.
fn powershell_words(s: &str) -> Option<Vec<String>> {
    let rest = s.strip_prefix("& ")?;
    let mut words = Vec::new();
    let mut chars = rest.chars().peekable();
    loop {
        match chars.next() {
            None => return Some(words),
            Some(' ') => continue,
            Some('\'') => {
                let mut w = String::new();
                loop {
                    match chars.next()? {
                        '\'' if chars.peek() == Some(&'\'') => {
                            chars.next();
                            w.push('\'');
                        }
                        '\'' => break,
                        c => w.push(c),
                    }
                }
                words.push(w);
            }
            Some(_) => return None,
        }
    }
}

fn group(handler: Value) -> Value {
    Value::Object(vec![("hooks".to_owned(), Value::Array(vec![handler]))])
}

/// Quotes `s` as one word for a POSIX shell.
pub fn shell_quote(s: &str) -> String {
    let safe = |c: char| c.is_ascii_alphanumeric() || "_@%+=:,./-".contains(c);
    if !s.is_empty() && s.chars().all(safe) {
        s.to_owned()
    } else {
        format!("'{}'", s.replace('\'', r"'\''"))
    }
}

/// Splits a shell command into words when it uses only quoting (no expansions, operators or
/// redirections); `None` otherwise.
fn shell_words(s: &str) -> Option<Vec<String>> {
    let mut words = Vec::new();
    let mut word: Option<String> = None;
    let mut chars = s.chars();
    while let Some(c) = chars.next() {
        match c {
            ' ' | '\t' => {
                if let Some(w) = word.take() {
                    words.push(w);
                }
            }
            '\'' => {
                let w = word.get_or_insert_with(String::new);
                loop {
                    match chars.next()? {
                        '\'' => break,
                        c => w.push(c),
                    }
                }
            }
            '"' => {
                let w = word.get_or_insert_with(String::new);
                loop {
                    match chars.next()? {
                        '"' => break,
                        '\\' => match chars.next()? {
                            c @ ('"' | '\\' | '$' | '`') => w.push(c),
                            c => {
                                w.push('\\');
                                w.push(c);
                            }
                        },
                        '$' | '`' => return None,
                        c => w.push(c),
                    }
                }
            }
            '\\' => word.get_or_insert_with(String::new).push(chars.next()?),
            c if "|&;<>()$`*?[]#~{}!\n".contains(c) => return None,
            c => word.get_or_insert_with(String::new).push(c),
        }
    }
    words.extend(word);
    Some(words)
}

/// Whether `words` (a command line split into words) run our binary as a hook.
fn runs_our_hook(words: Option<Vec<String>>) -> bool {
    matches!(words.as_deref(), Some([bin, args @ ..])
        if crate::host::is_our_binary(bin) && crate::host::is_our_hook_args(args))
}

/// Whether a handler is one that install writes in files of this shape (with any binary
/// path and host hint, so that a moved binary's hooks are still recognised).
fn is_ours(command: Command, handler: &Node) -> bool {
    let text = |key: &str| handler.get(key).and_then(Node::as_str);
    if command != Command::Cursor && text("type") != Some("command") {
        return false;
    }
    match command {
        Command::Exec => {
            let args = handler.get("args").and_then(Node::elements).map(|args| {
                args.iter()
                    .map(|a| a.as_str().map(str::to_owned))
                    .collect::<Option<Vec<_>>>()
            });
            matches!((text("command"), args), (Some(bin), Some(Some(args)))
                if crate::host::is_our_binary(bin) && crate::host::is_our_hook_args(&args))
        }
        Command::Shell | Command::NamedShell | Command::Cursor => {
            handler.get("args").is_none() && runs_our_hook(text("command").and_then(shell_words))
        }
        Command::BashAndPowershell => {
            runs_our_hook(text("bash").and_then(shell_words))
                || runs_our_hook(text("powershell").and_then(powershell_words))
        }
        Command::Plugin => false,
    }
}

/// Where one handler sits: event member, group element (grouped files), handler element.
#[derive(Debug, Clone, Copy)]
struct Position {
    event: usize,
    group: Option<usize>,
    handler: usize,
}

fn expect_object<'a>(node: &'a Node, pointer: &str) -> Result<&'a [edit::Member], EditError> {
    node.members().ok_or_else(|| EditError::Shape {
        pointer: pointer.to_owned(),
        expected: "an object",
        found: node.kind_name(),
    })
}

/// The object that maps event names to lists: the root's `hooks` (the last one, as JSON
/// parsers read duplicates), or the root itself.
fn events_object(root: &Node, file: HookFile) -> Result<Option<(Option<usize>, &Node)>, EditError> {
    expect_object(root, "/")?;
    if file.container == Container::Root {
        return Ok(Some((None, root)));
    }
    let members = root.members().unwrap_or_default();
    let Some(index) = members.iter().rposition(|m| m.key == "hooks") else {
        return Ok(None);
    };
    let hooks = &members[index].value;
    expect_object(hooks, "/hooks")?;
    Ok(Some((Some(index), hooks)))
}

/// Every handler of ours, in document order.
fn our_handlers(root: &Node, file: HookFile) -> Result<Vec<(Position, &Node)>, EditError> {
    let mut found = Vec::new();
    let Some((_, events)) = events_object(root, file)? else {
        return Ok(found);
    };
    for (e, event) in events.members().unwrap_or_default().iter().enumerate() {
        // Other tools' entries may have shapes we do not know; only well-formed lists can
        // hold a handler of ours.
        let Some(entries) = event.value.elements() else {
            continue;
        };
        for (g, entry) in entries.iter().enumerate() {
            match file.nesting {
                Nesting::Flat => {
                    if is_ours(file.command, entry) {
                        let position = Position {
                            event: e,
                            group: None,
                            handler: g,
                        };
                        found.push((position, entry));
                    }
                }
                Nesting::Grouped => {
                    let Some(handlers) = entry.get("hooks").and_then(Node::elements) else {
                        continue;
                    };
                    for (h, handler) in handlers.iter().enumerate() {
                        if is_ours(file.command, handler) {
                            let position = Position {
                                event: e,
                                group: Some(g),
                                handler: h,
                            };
                            found.push((position, handler));
                        }
                    }
                }
            }
        }
    }
    Ok(found)
}

fn parse_root(text: &str) -> Result<Option<Node>, EditError> {
    let root = edit::parse(text.as_bytes())?;
    if let Some(root) = &root {
        expect_object(root, "/")?;
    }
    Ok(root)
}

/// Adds our hooks to a settings document; `None` when they are already there exactly.
///
/// Stale handlers of ours (another binary path, other timeouts) are replaced.
pub fn add_hooks(
    text: &[u8],
    host: Host,
    file: HookFile,
    program: &str,
) -> Result<Option<String>, EditError> {
    let text = std::str::from_utf8(text).map_err(|_| EditError::NotUtf8)?;
    let Some(root) = parse_root(text)? else {
        return Ok(Some(new_document(host, file, program)));
    };
    if is_exactly_installed(text, &root, host, file, program)? {
        return Ok(None);
    }
    let mut text = remove_hooks(text.as_bytes(), file)?.unwrap_or_else(|| text.to_owned());
    for &(event, timeout) in host.registered() {
        let name = host.event_name(event);
        let Some(root) = parse_root(&text)? else {
            return Ok(Some(new_document(host, file, program)));
        };
        let style = Style::detect(&text, Some(&root));
        let entry = entry(host, file, program, event, timeout);
        let splice = match events_object(&root, file)? {
            None => {
                // No `hooks` yet: one member holding every event.
                let all = events_value(host, file, program);
                text = edit::append(&text, &root, Addition::Member("hooks", &all), &style)
                    .apply(&text);
                break;
            }
            Some((_, events)) => match events.get(name) {
                None => edit::append(
                    &text,
                    events,
                    Addition::Member(name, &Value::Array(vec![entry])),
                    &style,
                ),
                Some(list) if list.elements().is_some() => {
                    edit::append(&text, list, Addition::Element(&entry), &style)
                }
                Some(other) => {
                    let at = match file.container {
                        Container::Root => format!("/{name}"),
                        Container::Hooks { .. } => format!("/hooks/{name}"),
                    };
                    return Err(EditError::Shape {
                        pointer: at,
                        expected: "an array",
                        found: other.kind_name(),
                    });
                }
            },
        };
        text = splice.apply(&text);
    }
    Ok(Some(text))
}

/// What one event's list gets: the handler, in a group where the file groups them.
fn entry(host: Host, file: HookFile, program: &str, event: EventName, timeout: u64) -> Value {
    let handler = handler(host, file, program, event, timeout);
    match file.nesting {
        Nesting::Grouped => group(handler),
        Nesting::Flat => handler,
    }
}

fn events_value(host: Host, file: HookFile, program: &str) -> Value {
    Value::Object(
        host.registered()
            .iter()
            .map(|&(event, timeout)| {
                (
                    host.event_name(event).to_owned(),
                    Value::Array(vec![entry(host, file, program, event, timeout)]),
                )
            })
            .collect(),
    )
}

/// The members a new file has besides the events.
fn preamble(file: HookFile) -> Vec<(String, Value)> {
    match file.container {
        Container::Hooks { version: true } => vec![("version".to_owned(), Value::Number(1))],
        _ => Vec::new(),
    }
}

fn new_document(host: Host, file: HookFile, program: &str) -> String {
    let style = Style::detect("", None);
    let root = match (file.container, events_value(host, file, program)) {
        (Container::Root, events) => events,
        (Container::Hooks { .. }, events) => {
            let mut members = preamble(file);
            members.push(("hooks".to_owned(), events));
            Value::Object(members)
        }
    };
    format!("{}{}", style.render(&root, ""), style.newline)
}

/// What a file install created is once our hooks are cut out again: `{}`, or `{"version": 1}`.
fn skeleton(file: HookFile, newline: &str) -> String {
    let style = Style::detect("", None);
    format!(
        "{}{newline}",
        style.render(&Value::Object(preamble(file)), "")
    )
}

/// Our hooks are present for every event, once each, exactly as install writes them, and
/// there is no other handler of ours anywhere.
fn is_exactly_installed(
    text: &str,
    root: &Node,
    host: Host,
    file: HookFile,
    program: &str,
) -> Result<bool, EditError> {
    let ours = our_handlers(root, file)?;
    let Some((_, events)) = events_object(root, file)? else {
        return Ok(false);
    };
    let members = events.members().unwrap_or_default();
    if ours.len() != host.registered().len() {
        return Ok(false);
    }
    for &(event, timeout) in host.registered() {
        let expected = handler(host, file, program, event, timeout).to_json();
        let matching = ours.iter().filter(|(pos, node)| {
            members[pos.event].key == host.event_name(event)
                && serde_json::from_str::<serde_json::Value>(&text[node.start..node.end]).ok()
                    == Some(expected.clone())
        });
        if matching.count() != 1 {
            return Ok(false);
        }
    }
    Ok(true)
}

/// Removes every handler of ours from a settings document, together with the groups, event
/// lists and `hooks` object that become empty; `None` when there was none.
pub fn remove_hooks(text: &[u8], file: HookFile) -> Result<Option<String>, EditError> {
    let text = std::str::from_utf8(text).map_err(|_| EditError::NotUtf8)?;
    let mut text = text.to_owned();
    let mut changed = false;
    while let Some(root) = parse_root(&text)? {
        let Some((position, _)) = our_handlers(&root, file)?.into_iter().next() else {
            break;
        };
        text = removal(&root, file, position)?.apply(&text);
        changed = true;
    }
    Ok(changed.then_some(text))
}

/// The splice that removes the handler at `position`, widened to its group, event and the
/// `hooks` object when removing it would leave them empty.
fn removal(root: &Node, file: HookFile, position: Position) -> Result<Splice, EditError> {
    let (hooks_index, events) = events_object(root, file)?.expect("a handler was found");
    let event = &events.members().unwrap_or_default()[position.event].value;
    let entries = event.elements().unwrap_or_default();
    if let Some(g) = position.group {
        let handlers = entries[g]
            .get("hooks")
            .expect("a handler was found in this group");
        if handlers.elements().unwrap_or_default().len() > 1 {
            return Ok(edit::remove(handlers, position.handler));
        }
    }
    let in_list = position.group.unwrap_or(position.handler);
    if entries.len() > 1 {
        return Ok(edit::remove(event, in_list));
    }
    match hooks_index {
        Some(index) if events.members().unwrap_or_default().len() == 1 => {
            Ok(edit::remove(root, index))
        }
        _ => Ok(edit::remove(events, position.event)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shell_quote_round_trips_through_shell_words() {
        let cases = [
            (
                "/usr/local/bin/jev-preflight",
                "/usr/local/bin/jev-preflight",
            ),
            ("/home/a b/jev-preflight", "'/home/a b/jev-preflight'"),
            ("/tmp/it's/jev-preflight", r"'/tmp/it'\''s/jev-preflight'"),
            ("/tmp/$HOME;x/jev-preflight", "'/tmp/$HOME;x/jev-preflight'"),
        ];
        for (raw, quoted) in cases {
            assert_eq!(shell_quote(raw), quoted);
            let words = shell_words(&format!("{quoted} hook")).unwrap();
            assert_eq!(words, vec![raw.to_owned(), "hook".to_owned()]);
        }
    }

    #[test]
    fn shell_words_refuses_anything_but_plain_quoting() {
        for cmd in [
            "jev-preflight hook; rm -rf /",
            "jev-preflight hook | tee x",
            "$(which jev-preflight) hook",
            "\"$BIN\" hook",
            "jev-preflight hook > log",
            "'unterminated hook",
        ] {
            assert_eq!(shell_words(cmd), None, "{cmd}");
        }
        assert_eq!(
            shell_words("\"/a \\\"b\\\"/jev-preflight\"  hook").unwrap(),
            vec!["/a \"b\"/jev-preflight".to_owned(), "hook".to_owned()]
        );
    }

    #[test]
    fn recognises_only_our_handlers() {
        let cases = [
            (
                Command::Exec,
                r#"{"type":"command","command":"/x/jev-preflight","args":["hook"]}"#,
                true,
            ),
            (
                Command::Exec,
                concat!(
                    r#"{"type":"command","command":"C:\\x\\jev-preflight.exe","#,
                    r#""args":["hook"],"timeout":1}"#
                ),
                true,
            ),
            (
                Command::Exec,
                r#"{"type":"command","command":"/x/jev-preflight"}"#,
                false,
            ),
            (
                Command::Exec,
                r#"{"type":"command","command":"/x/jev-preflight","args":["eval"]}"#,
                false,
            ),
            (
                Command::Exec,
                r#"{"type":"command","command":"/x/not-jev-preflight","args":["hook"]}"#,
                false,
            ),
            (
                Command::Exec,
                r#"{"type":"http","command":"/x/jev-preflight","args":["hook"]}"#,
                false,
            ),
            (
                Command::Shell,
                r#"{"type":"command","command":"'/a b/jev-preflight' hook"}"#,
                true,
            ),
            (
                Command::Shell,
                r#"{"type":"command","command":"/x/jev-preflight hook --verbose"}"#,
                false,
            ),
            (
                Command::Shell,
                r#"{"type":"command","command":"/x/jev-preflight hook && curl x"}"#,
                false,
            ),
            (
                Command::NamedShell,
                concat!(
                    r#"{"type":"command","name":"jev-preflight","#,
                    r#""command":"/x/jev-preflight hook","timeout":60000}"#
                ),
                true,
            ),
            (
                Command::NamedShell,
                r#"{"type":"command","command":"'/a b/jev-preflight' hook"}"#,
                true,
            ),
            (
                Command::NamedShell,
                r#"{"type":"command","name":"jev-preflight","command":"/x/other hook"}"#,
                false,
            ),
        ];
        for (command, json, ours) in cases {
            let node = edit::parse(json.as_bytes()).unwrap().unwrap();
            assert_eq!(is_ours(command, &node), ours, "{json}");
        }
    }
}
