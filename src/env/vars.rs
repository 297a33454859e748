//! Every environment variable jev-preflight reads, in one documented list.
//!
//! The process environment is read once, at the edge ([`super::HostEnv::from_process`]),
//! and passed down; nothing else calls `std::env::var`. Two exceptions, both outside our
//! control and listed below: the HTTP client reads the proxy variables, and the OS reads
//! `PATH`. Git's own variables are not read: the hardened git runner removes inherited
//! `GIT_*` variables from every child it starts.

/// Data dir set by Claude Code for the plugin; survives plugin updates.
pub const CLAUDE_PLUGIN_DATA: &str = "CLAUDE_PLUGIN_DATA";
/// Fallback base of the data dir (`$XDG_STATE_HOME/jev-preflight`).
pub const XDG_STATE_HOME: &str = "XDG_STATE_HOME";
/// Base of the user config file (`$XDG_CONFIG_HOME/jev-preflight/config.json`).
pub const XDG_CONFIG_HOME: &str = "XDG_CONFIG_HOME";
/// Last fallback for the data dir and the user config file.
pub const HOME: &str = "HOME";

/// How Claude Code names the variable of a plugin userConfig option: this prefix and the
/// option's key in upper case (`scorer` → `CLAUDE_PLUGIN_OPTION_SCORER`).
pub const PLUGIN_OPTION_PREFIX: &str = "CLAUDE_PLUGIN_OPTION_";

/// TypeSafe API key from the plugin's sensitive userConfig option.
pub const PLUGIN_TYPESAFE_API_KEY: &str = "CLAUDE_PLUGIN_OPTION_TYPESAFE_API_KEY";
/// TypeSafe API key from the user's shell environment (used when the plugin option is unset).
pub const TYPESAFE_API_KEY: &str = "TYPESAFE_API_KEY";

/// Scorer choice: `auto`, `jev`, `openai`, `command`, `local` (plugin option, then env).
pub const PLUGIN_SCORER: &str = "CLAUDE_PLUGIN_OPTION_SCORER";
pub const SCORER: &str = "JEV_PREFLIGHT_SCORER";
/// Default mode for repositories without a `mode` key (plugin option, then env).
pub const PLUGIN_MODE: &str = "CLAUDE_PLUGIN_OPTION_MODE";
pub const MODE: &str = "JEV_PREFLIGHT_MODE";
/// Default threshold for repositories without a `threshold` key (plugin option, then env).
pub const PLUGIN_THRESHOLD: &str = "CLAUDE_PLUGIN_OPTION_THRESHOLD";
pub const THRESHOLD: &str = "JEV_PREFLIGHT_THRESHOLD";
/// Jev model (default `jev-latest`).
pub const PLUGIN_JEV_MODEL: &str = "CLAUDE_PLUGIN_OPTION_JEV_MODEL";
pub const JEV_MODEL: &str = "JEV_PREFLIGHT_JEV_MODEL";
/// Full URL of the Jev endpoint, for gateways and tests.
pub const JEV_URL: &str = "JEV_PREFLIGHT_JEV_URL";
/// Base URL of an OpenAI-compatible chat API.
pub const PLUGIN_OPENAI_BASE_URL: &str = "CLAUDE_PLUGIN_OPTION_OPENAI_BASE_URL";
pub const OPENAI_BASE_URL: &str = "JEV_PREFLIGHT_OPENAI_BASE_URL";
/// Model the openai scorer asks.
pub const PLUGIN_OPENAI_MODEL: &str = "CLAUDE_PLUGIN_OPTION_OPENAI_MODEL";
pub const OPENAI_MODEL: &str = "JEV_PREFLIGHT_OPENAI_MODEL";
/// Key of the OpenAI-compatible endpoint from the plugin's sensitive option.
pub const PLUGIN_OPENAI_API_KEY: &str = "CLAUDE_PLUGIN_OPTION_OPENAI_API_KEY";
/// Name of the variable that holds the OpenAI-compatible key (default `OPENAI_API_KEY`);
/// the variable it names is read too.
pub const OPENAI_API_KEY_ENV: &str = "JEV_PREFLIGHT_OPENAI_API_KEY_ENV";
/// Default name of the variable holding the OpenAI-compatible key.
pub const OPENAI_API_KEY_DEFAULT: &str = "OPENAI_API_KEY";
/// argv of the command scorer, as a JSON array of strings (no shell).
pub const COMMAND: &str = "JEV_PREFLIGHT_COMMAND";
/// Days a finding the agent was already asked about stays remembered (0 to 30; default 7).
pub const MEMORY_DAYS: &str = "JEV_PREFLIGHT_MEMORY_DAYS";
/// Most requests to a remote scorer (`jev`, `openai`, `command`) per session and per UTC day.
pub const REMOTE_MAX_PER_SESSION: &str = "JEV_PREFLIGHT_REMOTE_MAX_PER_SESSION";
pub const REMOTE_MAX_PER_DAY: &str = "JEV_PREFLIGHT_REMOTE_MAX_PER_DAY";
/// Most tokens remote scorers may report using per UTC day (unset: no limit).
pub const REMOTE_MAX_TOKENS_PER_DAY: &str = "JEV_PREFLIGHT_REMOTE_MAX_TOKENS_PER_DAY";
/// What a Stop does once a remote limit is reached: `local` (the built-in scorer) or `skip`.
pub const OVER_BUDGET: &str = "JEV_PREFLIGHT_OVER_BUDGET";

/// Read by the HTTP client (`ureq::Proxy::try_from_env`) for remote scorers; never for
/// loopback endpoints. Listed here so the table is complete.
pub const PROXY_VARS: &[&str] = &[
    "ALL_PROXY",
    "all_proxy",
    "HTTPS_PROXY",
    "https_proxy",
    "HTTP_PROXY",
    "http_proxy",
    "NO_PROXY",
    "no_proxy",
];
/// Searched by the operating system to find `git` (and a command scorer's program).
pub const PATH: &str = "PATH";
/// Claude Code's user config directory (default `~/.claude`), for `install --user`.
pub const CLAUDE_CONFIG_DIR: &str = "CLAUDE_CONFIG_DIR";
/// Codex CLI's home directory (default `~/.codex`), for `install --user --codex`.
pub const CODEX_HOME: &str = "CODEX_HOME";
/// Gemini CLI's stand-in for the home directory (settings in `<it>/.gemini`), for
/// `install --user --gemini`.
pub const GEMINI_CLI_HOME: &str = "GEMINI_CLI_HOME";

/// Copilot CLI's home directory (default `~/.copilot`; hooks in `<it>/hooks`), for
/// `install --user --copilot` and `--vscode`.
pub const COPILOT_HOME: &str = "COPILOT_HOME";

/// Every fixed name above, for `doctor` and the documentation table.
pub const ALL: &[&str] = &[
    CLAUDE_PLUGIN_DATA,
    XDG_STATE_HOME,
    XDG_CONFIG_HOME,
    HOME,
    PLUGIN_TYPESAFE_API_KEY,
    TYPESAFE_API_KEY,
    PLUGIN_SCORER,
    SCORER,
    PLUGIN_MODE,
    MODE,
    PLUGIN_THRESHOLD,
    THRESHOLD,
    PLUGIN_JEV_MODEL,
    JEV_MODEL,
    JEV_URL,
    PLUGIN_OPENAI_BASE_URL,
    OPENAI_BASE_URL,
    PLUGIN_OPENAI_MODEL,
    OPENAI_MODEL,
    PLUGIN_OPENAI_API_KEY,
    OPENAI_API_KEY_ENV,
    OPENAI_API_KEY_DEFAULT,
    COMMAND,
    MEMORY_DAYS,
    REMOTE_MAX_PER_SESSION,
    REMOTE_MAX_PER_DAY,
    REMOTE_MAX_TOKENS_PER_DAY,
    OVER_BUDGET,
    PATH,
    CLAUDE_CONFIG_DIR,
    CODEX_HOME,
    GEMINI_CLI_HOME,
    COPILOT_HOME,
];
