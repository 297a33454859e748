//! The command line: one command enum for the hook and the user subcommands.

use std::path::PathBuf;

use clap::{Args, Parser, Subcommand, ValueEnum};

use crate::host::EventName;
use crate::scorer::ScorerKind;

/// Scores one agent turn's code change on 8 risk axes and asks the agent once to look again.
#[derive(Debug, Parser)]
#[command(name = "jev-preflight", version, about, disable_version_flag = false)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Option<Command>,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Run as an agent host's hook: read one event on stdin, answer on stdout.
    Hook {
        /// The event, for hosts that pass it as an argument; the event's own
        /// `hook_event_name` on stdin wins.
        event: Option<HookEvent>,
        /// The host that runs the hook (`install` writes it where the event's shape does not
        /// tell): claude-code, codex, gemini, copilot, cursor, qwen, droid, devin, vscode,
        /// opencode, kilo.
        #[arg(long, value_name = "HOST")]
        host: Option<String>,
    },
    /// Play one real turn in a throwaway repository with the built-in scorer and show what
    /// the agent would receive. Uses no key and no network.
    Demo,
    /// Score a change now: the working tree against HEAD, a revision range, or a patch.
    ///
    /// Runs the hook's own selection, redaction, payload and scorer on the change and prints
    /// the scores. Nothing is written to the repository. Exit codes: 0 done, 1 an axis
    /// reached `--fail-on`, 2 usage error or failure.
    Eval(EvalArgs),
    /// Show the hook's recent decisions in this repository and why it did or did not fire,
    /// what it remembers was already looked at, and what remote scorers spent.
    Status(StatusArgs),
    /// Forget the findings this repository's memory holds, so that they are raised again.
    Forget(ForgetArgs),
    /// Check git, the repository, both configs, the scorer and key, host CLIs and the data dir.
    ///
    /// Exit code 1 when something is broken.
    Doctor,
    /// Register the hooks in an agent host's settings (Claude Code's unless a host flag says
    /// otherwise), for use without the plugin marketplace.
    Install(InstallArgs),
    /// Remove exactly the hooks `install` added.
    Uninstall(InstallArgs),
    /// Write a starter `.jev-preflight.json` at the repository's top level and explain each key.
    Init {
        /// Replace an existing `.jev-preflight.json`.
        #[arg(long)]
        force: bool,
    },
    /// Print a shell completion script (bash, elvish, fish, powershell, zsh).
    Completions {
        /// The shell: bash, elvish, fish, powershell or zsh.
        shell: String,
    },
    /// Print the man page (roff) on stdout.
    Man,
    /// Print the version.
    Version,
}

/// `eval` arguments.
#[derive(Debug, Args)]
pub struct EvalArgs {
    /// What to score: `A..B` (tree of A against tree of B), `A...B` (merge base of A and B
    /// against B), or one revision R (the working tree against R, like `git diff R`). An
    /// empty side means HEAD. Default: the working tree against HEAD.
    #[arg(value_name = "RANGE", conflicts_with = "patch")]
    pub range: Option<String>,
    /// Score a unified diff from FILE, or from stdin with `-`; no repository needed.
    #[arg(long, value_name = "FILE")]
    pub patch: Option<PathBuf>,
    /// The scorer to use instead of the configured one.
    #[arg(long, value_name = "NAME")]
    pub scorer: Option<ScorerArg>,
    /// Print one JSON object (same as `--format json`).
    #[arg(long, conflicts_with = "format")]
    pub json: bool,
    /// Output format.
    #[arg(long, value_name = "FORMAT", default_value = "text")]
    pub format: Format,
    /// Build the exact payload and print it; send nothing, score nothing.
    #[arg(long)]
    pub dry_run: bool,
    /// Also write the SARIF 2.1.0 log to FILE (one scoring, two outputs: a pull-request
    /// check prints Markdown and uploads SARIF).
    #[arg(long, value_name = "FILE")]
    pub sarif: Option<PathBuf>,
    /// Exit with code 1 when any axis scores at or above THRESHOLD (0 to 1).
    #[arg(long, value_name = "THRESHOLD", value_parser = parse_probability)]
    pub fail_on: Option<f64>,
}

/// `status` arguments.
#[derive(Debug, Args)]
pub struct StatusArgs {
    /// How many decisions to show.
    #[arg(long, short = 'n', default_value_t = crate::cmd::status::DEFAULT_LIMIT)]
    pub limit: usize,
    /// Show decisions from every repository, not only this one.
    #[arg(long)]
    pub all: bool,
    /// Print the decisions as a JSON array (newest first).
    #[arg(long)]
    pub json: bool,
}

/// `forget` arguments.
#[derive(Debug, Args)]
pub struct ForgetArgs {
    /// Forget in every repository, not only this one.
    #[arg(long)]
    pub all: bool,
}

/// `install` and `uninstall` arguments.
#[derive(Debug, Args)]
pub struct InstallArgs {
    /// This project's settings (`.claude/settings.json` at the repository's top level, or the
    /// current directory outside a repository). The default.
    #[arg(long, conflicts_with = "user")]
    pub project: bool,
    /// Your user settings (`~/.claude/settings.json`, or `$CLAUDE_CONFIG_DIR`; with
    /// `--codex`, `~/.codex/hooks.json` or `$CODEX_HOME`; with `--gemini`,
    /// `~/.gemini/settings.json` or `$GEMINI_CLI_HOME/.gemini/settings.json`; with
    /// `--copilot`, `~/.copilot/hooks/` or `$COPILOT_HOME/hooks/`; the other hosts' files
    /// under `~`).
    #[arg(long)]
    pub user: bool,
    /// Codex CLI: `.codex/hooks.json`.
    #[arg(long, group = "host")]
    pub codex: bool,
    /// Gemini CLI: `.gemini/settings.json`.
    #[arg(long, group = "host")]
    pub gemini: bool,
    /// GitHub Copilot CLI: `.github/hooks/jev-preflight.json` (user: `~/.copilot/hooks/`).
    #[arg(long, group = "host")]
    pub copilot: bool,
    /// Cursor: `.cursor/hooks.json`.
    #[arg(long, group = "host")]
    pub cursor: bool,
    /// Qwen Code: `.qwen/settings.json`.
    #[arg(long, group = "host")]
    pub qwen: bool,
    /// Factory Droid: `.factory/hooks.json`.
    #[arg(long, group = "host")]
    pub droid: bool,
    /// Devin CLI: `.devin/hooks.v1.json` (user: `~/.config/devin/config.json`).
    #[arg(long, group = "host")]
    pub devin: bool,
    /// VS Code agent hooks: `.github/hooks/jev-preflight-vscode.json`.
    #[arg(long, group = "host")]
    pub vscode: bool,
    /// OpenCode: the plugin `.opencode/plugins/jev-preflight.js`.
    #[arg(long, group = "host")]
    pub opencode: bool,
    /// Kilo Code CLI: the plugin `.kilo/plugins/jev-preflight.js`.
    #[arg(long, group = "host")]
    pub kilo: bool,
}

impl InstallArgs {
    /// The host the flags name (Claude Code when none does).
    pub fn host(&self) -> crate::host::Host {
        use crate::host::Host;
        [
            (self.codex, Host::Codex),
            (self.gemini, Host::Gemini),
            (self.copilot, Host::Copilot),
            (self.cursor, Host::Cursor),
            (self.qwen, Host::Qwen),
            (self.droid, Host::Droid),
            (self.devin, Host::Devin),
            (self.vscode, Host::VsCode),
            (self.opencode, Host::OpenCode),
            (self.kilo, Host::Kilo),
        ]
        .into_iter()
        .find_map(|(set, host)| set.then_some(host))
        .unwrap_or(Host::ClaudeCode)
    }
}

/// Output formats of `eval`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Format {
    /// A readable table.
    Text,
    /// One JSON object.
    Json,
    /// A pull-request comment.
    Markdown,
    /// SARIF 2.1.0 for code scanning: one result per selected axis with its evidence.
    Sarif,
}

/// Scorer names accepted by `--scorer`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum ScorerArg {
    /// `jev` when a TypeSafe key is set, else `local`.
    Auto,
    /// The TypeSafe Jev API (needs a key).
    Jev,
    /// An OpenAI-compatible chat endpoint.
    Openai,
    /// A user-configured command.
    Command,
    /// The built-in offline scorer.
    Local,
}

impl From<ScorerArg> for ScorerKind {
    fn from(s: ScorerArg) -> ScorerKind {
        match s {
            ScorerArg::Auto => ScorerKind::Auto,
            ScorerArg::Jev => ScorerKind::Jev,
            ScorerArg::Openai => ScorerKind::OpenAi,
            ScorerArg::Command => ScorerKind::Command,
            ScorerArg::Local => ScorerKind::Local,
        }
    }
}

fn parse_probability(s: &str) -> Result<f64, String> {
    match s.trim().parse::<f64>() {
        Ok(x) if (0.0..=1.0).contains(&x) => Ok(x),
        _ => Err(format!("`{s}` is not a number from 0 to 1")),
    }
}

/// The hook events accepted as an argument.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum HookEvent {
    UserPromptSubmit,
    Stop,
    SessionEnd,
}

impl From<HookEvent> for EventName {
    fn from(e: HookEvent) -> EventName {
        match e {
            HookEvent::UserPromptSubmit => EventName::UserPromptSubmit,
            HookEvent::Stop => EventName::Stop,
            HookEvent::SessionEnd => EventName::SessionEnd,
        }
    }
}
