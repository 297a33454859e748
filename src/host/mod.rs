//! Every agent host jev-preflight runs under, and every fact that differs between them: how
//! its events look and are named, how it is told to continue, where it shows a notice, how it
//! signals a loop, where its hooks are registered and in what form, and what `doctor` asks it.
//!
//! The rest of the program asks [`Host`] instead of matching on hosts itself, so adding a
//! host is one new variant here (each `match` below then asks for its facts) plus its tests.
//! Where each fact was checked, and at which version, is said next to it; the README's host
//! table repeats the versions.

use std::path::PathBuf;

use serde_json::{Map, Value};

use crate::config::AnswerForm;
use crate::env::HostEnv;
use crate::env::vars as ev;

/// The events we act on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EventName {
    UserPromptSubmit,
    Stop,
    SessionEnd,
}

impl EventName {
    /// Claude Code's name for the event, used in our own messages and the decision log.
    pub fn protocol_name(self) -> &'static str {
        Host::ClaudeCode.event_name(self)
    }
}

/// The words every continuation starts with. Gemini CLI sends a continuation back as a new
/// prompt, and [`Host::continues_our_feedback`] recognises it by them.
pub const ASSIST_OPENING: &str = "jev-preflight scored the code change of this turn and asks for \
                                  one more look before you finish.";

/// The agent that sent an event, or whose settings `install` edits.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub enum Host {
    /// Claude Code (the plugin, or `install`): `.claude/settings.json`.
    #[default]
    ClaudeCode,
    /// OpenAI Codex CLI: `.codex/hooks.json`; tells itself by `turn_id`.
    Codex,
    /// Google Gemini CLI: `BeforeAgent` / `AfterAgent` in `.gemini/settings.json`.
    Gemini,
    /// GitHub Copilot CLI: camelCase events in `.github/hooks/*.json`.
    Copilot,
    /// Cursor (editor and `cursor-agent`): `beforeSubmitPrompt` / `stop` in
    /// `.cursor/hooks.json`, continued with `followup_message`.
    Cursor,
    /// Qwen Code: Claude-style events in `.qwen/settings.json`, every event stamped.
    Qwen,
    /// Factory Droid: Claude-style events in `.factory/hooks.json`.
    Droid,
    /// Devin CLI: Claude-style events in `.devin/hooks.v1.json`.
    Devin,
    /// VS Code agent hooks (Copilot Chat's local agent): `.github/hooks/*.json`, camelCase
    /// common fields.
    VsCode,
    /// OpenCode, through the plugin `install --opencode` writes (it spawns this binary).
    OpenCode,
    /// Kilo Code CLI (an OpenCode fork), through the same plugin in its own folder.
    Kilo,
}

/// Every host, in the order `doctor`, the README and `--help` list them.
pub const ALL: [Host; 11] = [
    Host::ClaudeCode,
    Host::Codex,
    Host::Gemini,
    Host::Copilot,
    Host::Cursor,
    Host::Qwen,
    Host::Droid,
    Host::Devin,
    Host::VsCode,
    Host::OpenCode,
    Host::Kilo,
];

/// The JSON form of a continuation.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Form {
    /// `{"decision":"block","reason":…}`: Claude Code (every version) and the hosts that copy
    /// its contract.
    Block,
    /// `{"hookSpecificOutput":{"hookEventName":"Stop","additionalContext":…}}`: Claude Code
    /// ≥ 2.1.163.
    Context,
    /// `{"followup_message":…}`: Cursor submits it as the next user message.
    Followup,
    /// `decision`/`reason` both at the top level and in `hookSpecificOutput`: VS Code
    /// documents the latter and reads Claude's former.
    BlockEverywhere,
}

/// Where a host's hooks file keeps its events.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Container {
    /// Under a top-level `hooks` object; `version` is the `"version": 1` a new file gets.
    Hooks { version: bool },
    /// The file's top-level object is the event map itself (Devin's `hooks.v1.json`).
    Root,
}

/// How one event's list holds handlers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Nesting {
    /// `"Stop": [{"hooks": [handler]}]`: Claude Code's matcher groups.
    Grouped,
    /// `"stop": [handler]`: Copilot CLI, Cursor, VS Code hook files.
    Flat,
}

/// How a handler names the command.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Command {
    /// `"command"` is the program and `"args"` its arguments; no shell (Claude Code, Qwen).
    Exec,
    /// `"command"` is one POSIX shell command line.
    Shell,
    /// Like `Shell`, with a `"name"` first (Gemini lists hooks by it).
    NamedShell,
    /// `"bash"` and `"powershell"` command lines (Copilot CLI); `"timeoutSec"`.
    BashAndPowershell,
    /// Cursor: `"command"` only (no `"type"`); the Stop handler carries `"loop_limit"`.
    Cursor,
    /// A plugin file that runs the binary itself (OpenCode, Kilo Code).
    Plugin,
}

/// Where `install` writes, for one host.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct HookFile {
    pub container: Container,
    pub nesting: Nesting,
    pub command: Command,
    /// The whole file is ours (a file of our own in a folder the host reads): uninstall
    /// deletes it rather than leave an empty shell.
    pub ours_alone: bool,
}

/// Where to register the hooks.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Scope {
    /// One project: the host's project file under `root`.
    Project { root: PathBuf },
    /// Every project of this user: the host's user file under `home`, unless `config_dir`
    /// (from the host's own variable, see [`Host::user_dir`]) overrides the host's directory.
    User {
        home: PathBuf,
        config_dir: Option<PathBuf>,
    },
}

impl Host {
    /// The name in `--host`, `install --<id>` and the decision log.
    pub fn id(self) -> &'static str {
        match self {
            Host::ClaudeCode => "claude-code",
            Host::Codex => "codex",
            Host::Gemini => "gemini",
            Host::Copilot => "copilot",
            Host::Cursor => "cursor",
            Host::Qwen => "qwen",
            Host::Droid => "droid",
            Host::Devin => "devin",
            Host::VsCode => "vscode",
            Host::OpenCode => "opencode",
            Host::Kilo => "kilo",
        }
    }

    /// `jev-preflight install` or `uninstall` (`verb`) for this host: Claude Code is the
    /// default, every other host has its flag.
    pub fn command(self, verb: &str) -> String {
        match self {
            Host::ClaudeCode => format!("jev-preflight {verb}"),
            other => format!("jev-preflight {verb} --{}", other.id()),
        }
    }

    /// The name people know it by.
    pub fn name(self) -> &'static str {
        match self {
            Host::ClaudeCode => "Claude Code",
            Host::Codex => "Codex CLI",
            Host::Gemini => "Gemini CLI",
            Host::Copilot => "Copilot CLI",
            Host::Cursor => "Cursor",
            Host::Qwen => "Qwen Code",
            Host::Droid => "Factory Droid",
            Host::Devin => "Devin CLI",
            Host::VsCode => "VS Code",
            Host::OpenCode => "OpenCode",
            Host::Kilo => "Kilo Code",
        }
    }

    pub fn from_id(id: &str) -> Option<Host> {
        ALL.into_iter().find(|h| h.id() == id)
    }

    /// The host's names for our three events: prompt, end of turn, end of session.
    ///
    /// Copilot CLI 1.0.x: `userPromptSubmitted`, `agentStop`, `sessionEnd` (its hooks
    /// reference and release notes for 1.0.72; seen in 1.0.102 by `scripts/e2e-copilot`).
    /// Cursor: `beforeSubmitPrompt`, `stop` (its hooks reference; no session end is
    /// registered). Gemini CLI 0.61.0: `BeforeAgent`,
    /// `AfterAgent`. The rest use Claude Code's names; the OpenCode plugin sends them too.
    pub fn event_names(self) -> [&'static str; 3] {
        match self {
            Host::Gemini => ["BeforeAgent", "AfterAgent", "SessionEnd"],
            Host::Copilot => ["userPromptSubmitted", "agentStop", "sessionEnd"],
            Host::Cursor => ["beforeSubmitPrompt", "stop", "sessionEnd"],
            _ => ["UserPromptSubmit", "Stop", "SessionEnd"],
        }
    }

    /// The host's name for `event`.
    pub fn event_name(self, event: EventName) -> &'static str {
        let [prompt, stop, end] = self.event_names();
        match event {
            EventName::UserPromptSubmit => prompt,
            EventName::Stop => stop,
            EventName::SessionEnd => end,
        }
    }

    /// The event a host-side name stands for, whichever host uses it.
    pub fn event_of(name: &str) -> Option<EventName> {
        ALL.iter().find_map(|host| {
            [
                EventName::UserPromptSubmit,
                EventName::Stop,
                EventName::SessionEnd,
            ]
            .into_iter()
            .find(|&e| host.event_name(e) == name)
        })
    }

    /// Which host sent `event`. Shapes only one host sends decide first; `hint` (the
    /// `--host` that `install` writes into the hooks it registers) decides among hosts whose
    /// events look like Claude Code's; the plugin's own hooks carry no hint.
    pub fn detect(event: &Map<String, Value>, hint: Option<Host>) -> Host {
        let text = |key: &str| event.get(key).and_then(Value::as_str);
        let name = text("hook_event_name").or_else(|| text("hookEventName"));
        let timestamp = event.get("timestamp");
        if let Some(name) = name {
            // Names no other host uses.
            for host in [Host::Gemini, Host::Copilot, Host::Cursor] {
                if host.event_names()[..2].contains(&name) {
                    return host;
                }
            }
        }
        if event.contains_key("turn_id") {
            return Host::Codex;
        }
        // VS Code's common fields are camelCase (`hookEventName`, `sessionId`) with an ISO
        // `timestamp` (its hooks reference, 2026-06).
        if event.contains_key("hookEventName") {
            return Host::VsCode;
        }
        // Cursor's common fields (its hooks reference): `conversation_id`, `generation_id`,
        // `workspace_roots`, `cursor_version`.
        if ["generation_id", "cursor_version", "workspace_roots"]
            .iter()
            .any(|k| event.contains_key(*k))
        {
            return Host::Cursor;
        }
        // Copilot CLI stamps every event with milliseconds since the epoch.
        if timestamp.is_some_and(Value::is_number) {
            return Host::Copilot;
        }
        if let Some(hint) = hint {
            return hint;
        }
        let stamped = timestamp.is_some_and(Value::is_string);
        match name {
            // Gemini's `SessionEnd` shares Claude Code's name; Gemini stamps every event.
            Some("SessionEnd") if stamped && !event.contains_key("prompt_id") => Host::Gemini,
            // Qwen Code 0.24.4 stamps every event too (`createBaseInput`); Claude Code never.
            Some(_) if stamped => Host::Qwen,
            _ => Host::ClaudeCode,
        }
    }

    /// The host signals that this turn already continued because of a Stop hook.
    ///
    /// `stop_hook_active` everywhere it exists (Claude Code, Codex, Gemini, Qwen, VS Code,
    /// Copilot CLI since 1.0.72, Droid, Devin; our OpenCode plugin sends it too); Cursor
    /// counts instead: `loop_count` is the number of follow-ups already sent.
    pub fn loop_signal(self, event: &Map<String, Value>) -> bool {
        match self {
            Host::Cursor => event
                .get("loop_count")
                .and_then(Value::as_u64)
                .is_some_and(|n| n > 0),
            _ => event.get("stop_hook_active").and_then(Value::as_bool) == Some(true),
        }
    }

    /// The prompt event carries our own continuation: Gemini sends a blocking `AfterAgent`'s
    /// reason back as a new prompt, Copilot CLI makes it the next prompt, Cursor submits a
    /// `followup_message` as the next user message, Qwen Code fires `UserPromptSubmit` for a
    /// hook's send, and our OpenCode plugin's prompt comes back through `chat.message`. Such
    /// a prompt belongs to the prompt it continues, whose state must stay.
    pub fn continues_our_feedback(event: &Map<String, Value>) -> bool {
        event
            .get("prompt")
            .and_then(Value::as_str)
            .is_some_and(|p| p.trim_start().starts_with(ASSIST_OPENING))
    }

    /// The session the event belongs to: `session_id`, VS Code's and Copilot CLI's
    /// `sessionId`, Cursor's `conversation_id`.
    pub fn session_of(event: &Map<String, Value>) -> Option<String> {
        ["session_id", "sessionId", "conversation_id"]
            .iter()
            .find_map(|k| event.get(*k).and_then(Value::as_str))
            .filter(|s| !s.is_empty())
            .map(str::to_owned)
    }

    /// The directory the agent works in: `cwd`, or Cursor's first workspace root.
    pub fn cwd_of(event: &Map<String, Value>) -> Option<String> {
        let first_root = || {
            event
                .get("workspace_roots")
                .and_then(Value::as_array)
                .and_then(|roots| roots.first())
                .and_then(Value::as_str)
        };
        event
            .get("cwd")
            .and_then(Value::as_str)
            .or_else(first_root)
            .filter(|s| !s.is_empty())
            .map(str::to_owned)
    }

    /// The form of a continuation. Only Claude Code offers a choice: `auto` takes
    /// `additionalContext` when the event carries `prompt_id` (sent since 2.1.196, so past
    /// 2.1.163, which added `additionalContext` on Stop), else the portable `decision` form.
    /// Codex allows `decision`/`reason` only; Gemini reads `"block"` as its `"deny"`.
    pub fn form(self, configured: AnswerForm, has_prompt_id: bool) -> Form {
        match (self, configured) {
            (Host::ClaudeCode, AnswerForm::Context) => Form::Context,
            (Host::ClaudeCode, AnswerForm::Auto) if has_prompt_id => Form::Context,
            (Host::Cursor, _) => Form::Followup,
            (Host::VsCode, _) => Form::BlockEverywhere,
            _ => Form::Block,
        }
    }

    /// Whether a `systemMessage` reaches the user on `event`. Never on a session end (its
    /// output is discarded); not on Codex's prompt event (its schema allows no message
    /// there); never on Copilot CLI, Cursor and the plugin hosts, whose hook answers have no
    /// message for the user.
    pub fn shows_notices(self, event: EventName) -> bool {
        !matches!(
            (self, event),
            (_, EventName::SessionEnd)
                | (Host::Codex, EventName::UserPromptSubmit)
                | (
                    Host::Copilot | Host::Cursor | Host::OpenCode | Host::Kilo,
                    _
                )
        )
    }

    /// What to print when there is nothing to say, for hosts that need an object: Gemini CLI
    /// reads stderr as the answer when stdout is empty (and shows our stderr line to the
    /// user); Cursor's `beforeSubmitPrompt` expects `continue`.
    pub fn empty_answer(self, event: EventName) -> Option<&'static str> {
        match (self, event) {
            (Host::Gemini, _) => Some("{}"),
            (Host::Cursor, EventName::UserPromptSubmit) => Some(r#"{"continue":true}"#),
            (Host::Cursor, _) => Some("{}"),
            _ => None,
        }
    }

    /// The events `install` registers, with each handler's timeout in the host's unit
    /// (seconds; milliseconds for Gemini).
    ///
    /// The prompt hook keeps Claude Code's own 30 s default; the end-of-turn hook may wait on
    /// a scorer over the network; SessionEnd only removes private files, and a settings-file
    /// timeout raises Claude Code's shared 1.5 s SessionEnd budget, so a few seconds leave
    /// room on slow disks. Codex clamps SessionEnd hooks to 3 s; Gemini does not wait for
    /// them at all. Cursor gets no session-end hook (the age sweep and the next prompt clean
    /// up), the plugin hosts none in the file (the plugin handles `session.deleted`).
    pub fn registered(self) -> &'static [(EventName, u64)] {
        use EventName::*;
        match self {
            Host::Codex => &[(UserPromptSubmit, 30), (Stop, 60), (SessionEnd, 3)],
            Host::Gemini => &[
                (UserPromptSubmit, 30_000),
                (Stop, 60_000),
                (SessionEnd, 5_000),
            ],
            Host::Cursor | Host::OpenCode | Host::Kilo => &[(UserPromptSubmit, 30), (Stop, 60)],
            _ => &[(UserPromptSubmit, 30), (Stop, 60), (SessionEnd, 5)],
        }
    }

    /// The shape of the hooks file `install` edits for `scope`.
    pub fn hook_file(self, scope: &Scope) -> HookFile {
        let claude_like = |command| HookFile {
            container: Container::Hooks { version: false },
            nesting: Nesting::Grouped,
            command,
            ours_alone: false,
        };
        match (self, scope) {
            (Host::ClaudeCode | Host::Qwen, _) => claude_like(Command::Exec),
            (Host::Codex | Host::Droid, _) => claude_like(Command::Shell),
            (Host::Gemini, _) => claude_like(Command::NamedShell),
            // Devin CLI's project file is the event map itself (its hooks overview); the
            // user's config file keeps hooks under `hooks`.
            (Host::Devin, Scope::Project { .. }) => HookFile {
                container: Container::Root,
                ..claude_like(Command::Shell)
            },
            (Host::Devin, Scope::User { .. }) => claude_like(Command::Shell),
            (Host::Copilot, _) => HookFile {
                container: Container::Hooks { version: true },
                nesting: Nesting::Flat,
                command: Command::BashAndPowershell,
                ours_alone: true,
            },
            (Host::VsCode, _) => HookFile {
                container: Container::Hooks { version: false },
                nesting: Nesting::Flat,
                command: Command::Shell,
                ours_alone: true,
            },
            (Host::Cursor, _) => HookFile {
                container: Container::Hooks { version: true },
                nesting: Nesting::Flat,
                command: Command::Cursor,
                ours_alone: false,
            },
            (Host::OpenCode | Host::Kilo, _) => HookFile {
                container: Container::Root,
                nesting: Nesting::Flat,
                command: Command::Plugin,
                ours_alone: true,
            },
        }
    }

    /// The arguments our handlers pass after the binary: `hook`, then `--host <id>` for
    /// every host whose events need the hint (see [`Host::detect`]) or do not name
    /// themselves (Copilot CLI's events carry no event name: the event follows).
    pub fn hook_args(self, event: EventName) -> Vec<String> {
        let mut args = vec![HOOK_ARG.to_owned()];
        if matches!(self, Host::ClaudeCode | Host::Codex | Host::Gemini) {
            return args;
        }
        args.extend(["--host".to_owned(), self.id().to_owned()]);
        if self == Host::Copilot {
            args.push(
                match event {
                    EventName::UserPromptSubmit => "user-prompt-submit",
                    EventName::Stop => "stop",
                    EventName::SessionEnd => "session-end",
                }
                .to_owned(),
            );
        }
        args
    }

    /// The host's directory in a project, and the file in it.
    fn project_file(self) -> (&'static str, &'static str) {
        match self {
            Host::ClaudeCode => (".claude", "settings.json"),
            Host::Codex => (".codex", "hooks.json"),
            Host::Gemini => (".gemini", "settings.json"),
            // Copilot CLI loads every `*.json` in `.github/hooks` of the working directory;
            // VS Code loads the same folder (and converts its camelCase names), so each gets
            // a file of its own.
            Host::Copilot => (".github/hooks", "jev-preflight.json"),
            Host::VsCode => (".github/hooks", "jev-preflight-vscode.json"),
            Host::Cursor => (".cursor", "hooks.json"),
            Host::Qwen => (".qwen", "settings.json"),
            Host::Droid => (".factory", "hooks.json"),
            Host::Devin => (".devin", "hooks.v1.json"),
            Host::OpenCode => (".opencode/plugins", "jev-preflight.js"),
            Host::Kilo => (".kilo/plugins", "jev-preflight.js"),
        }
    }

    /// The host's user directory under the home directory, and the file in it.
    fn user_file(self) -> (&'static str, &'static str) {
        match self {
            Host::Copilot => (".copilot/hooks", "jev-preflight.json"),
            Host::VsCode => (".copilot/hooks", "jev-preflight-vscode.json"),
            Host::Devin => (".config/devin", "config.json"),
            Host::OpenCode => (".config/opencode/plugins", "jev-preflight.js"),
            Host::Kilo => (".config/kilo/plugins", "jev-preflight.js"),
            other => other.project_file(),
        }
    }

    /// The directory the host's own variable names instead of `~/<its directory>`:
    /// `CLAUDE_CONFIG_DIR`, `CODEX_HOME`, `$GEMINI_CLI_HOME/.gemini`, `$COPILOT_HOME/hooks`.
    pub fn user_dir(self, env: &HostEnv) -> Option<PathBuf> {
        let var = |name| env.get(name).map(PathBuf::from);
        match self {
            Host::ClaudeCode => var(ev::CLAUDE_CONFIG_DIR),
            Host::Codex => var(ev::CODEX_HOME),
            Host::Gemini => var(ev::GEMINI_CLI_HOME).map(|home| home.join(".gemini")),
            Host::Copilot | Host::VsCode => var(ev::COPILOT_HOME).map(|home| home.join("hooks")),
            _ => None,
        }
    }

    /// The file `install` edits for `scope`.
    pub fn settings_path(self, scope: &Scope) -> PathBuf {
        match scope {
            Scope::Project { root } => {
                let (dir, file) = self.project_file();
                root.join(dir).join(file)
            }
            Scope::User {
                config_dir: Some(dir),
                ..
            } => dir.join(self.user_file().1),
            Scope::User { home, .. } => {
                let (dir, file) = self.user_file();
                home.join(dir).join(file)
            }
        }
    }

    /// What the user must still do before the host runs the hooks, when the host asks for
    /// review or trust first.
    pub fn next_step(self, scope: &Scope) -> Option<&'static str> {
        let project = matches!(scope, Scope::Project { .. });
        match self {
            // Seen in Codex CLI 0.171.0.
            Host::Codex if project => Some(
                "Codex runs project hooks only once you trust the project and review the hooks: \
                 run `codex` here, trust the project, then approve the jev-preflight hooks under \
                 `/hooks` (`codex exec` skips unreviewed hooks without a word)",
            ),
            Host::Codex => Some(
                "Codex runs new hooks only after review: run `codex` and approve the jev-preflight \
                 hooks under `/hooks` (`codex exec` skips unreviewed hooks without a word)",
            ),
            // Seen in Gemini CLI 0.61.0.
            Host::Gemini => Some(
                "Gemini CLI runs settings hooks only in a trusted folder: trust the project folder \
                 when `gemini` asks (headless runs refuse an untrusted folder)",
            ),
            // Seen in Qwen Code 0.24.4 (`Project hooks load only in a trusted folder`).
            Host::Qwen if project => Some(
                "Qwen Code loads project hooks only in a trusted folder: trust the project folder \
                 when `qwen` asks",
            ),
            Host::Copilot if project => Some(
                "Copilot CLI runs repository hooks only in a trusted folder: trust the folder when \
                 `copilot` asks",
            ),
            Host::Devin if project => Some(
                "Devin CLI runs project hooks only in a trusted folder: trust the folder when \
                 `devin` asks",
            ),
            Host::OpenCode | Host::Kilo => Some(
                "the plugin needs Bun's or Node's `child_process`, which OpenCode provides; \
                 restart the client to load it",
            ),
            _ => None,
        }
    }

    /// The command `doctor` asks `--version`, when the host has a command line.
    pub fn program(self) -> Option<&'static str> {
        match self {
            Host::ClaudeCode => Some("claude"),
            Host::Codex => Some("codex"),
            Host::Gemini => Some("gemini"),
            Host::Copilot => Some("copilot"),
            Host::Cursor => Some("cursor-agent"),
            Host::Qwen => Some("qwen"),
            Host::Droid => Some("droid"),
            Host::Devin => Some("devin"),
            Host::VsCode => Some("code"),
            Host::OpenCode => Some("opencode"),
            Host::Kilo => Some("kilo"),
        }
    }
}

/// The argument our hook handlers pass to the binary.
pub const HOOK_ARG: &str = "hook";

/// `raw` as a path of this platform. Windows hosts send `C:\\Users\\me\\proj` (backslashes,
/// sometimes a lower-case drive letter or a trailing separator); Git Bash style `/c/Users/me`
/// and forward slashes appear too. On Windows each becomes one canonical spelling, so that a
/// prompt's and a Stop's directories compare equal; elsewhere the text is kept as sent.
pub fn native_path(raw: &str, windows: bool) -> PathBuf {
    if !windows {
        return PathBuf::from(raw);
    }
    let mut text = raw.replace('/', "\\");
    // `\c\Users\…` (Git Bash) → `C:\Users\…`
    let bytes = text.as_bytes();
    if bytes.len() >= 2
        && bytes[0] == b'\\'
        && bytes[1].is_ascii_alphabetic()
        && (bytes.len() == 2 || bytes[2] == b'\\')
    {
        text = format!("{}:{}", &text[1..2], &text[2..]);
    }
    let bytes = text.as_bytes();
    if bytes.len() >= 2 && bytes[1] == b':' && bytes[0].is_ascii_alphabetic() {
        text = format!("{}{}", text[..1].to_ascii_uppercase(), &text[1..]);
        if text.len() == 2 {
            text.push('\\');
        }
    }
    while text.len() > 3 && text.ends_with('\\') && !text.ends_with(":\\") {
        text.pop();
    }
    PathBuf::from(text)
}

/// [`native_path`] for the platform this binary runs on.
pub fn event_path(raw: &str) -> PathBuf {
    native_path(raw, cfg!(windows))
}

/// Whether `path` names our binary (any directory, with or without `.exe`).
pub fn is_our_binary(path: &str) -> bool {
    let name = path.rsplit(['/', '\\']).next().unwrap_or(path);
    ["jev-preflight", "jev-preflight.exe"].contains(&name)
}

/// Whether `args` (what follows the binary) are ones [`Host::hook_args`] writes for some
/// host: a moved or older install is still recognised as ours.
pub fn is_our_hook_args(args: &[String]) -> bool {
    match args {
        [hook] => hook == HOOK_ARG,
        [hook, flag, id, rest @ ..] => {
            hook == HOOK_ARG
                && flag == "--host"
                && Host::from_id(id).is_some()
                && match rest {
                    [] => true,
                    [event] => ["user-prompt-submit", "stop", "session-end"].contains(&&**event),
                    _ => false,
                }
        }
        _ => false,
    }
}

#[cfg(test)]
mod tests;
