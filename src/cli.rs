//! The command line: one command enum for the hook and the user subcommands.

use clap::{Parser, Subcommand, ValueEnum};

use crate::hook::event::EventName;

/// Scores one agent turn's code change on 8 risk axes and asks the agent once to look again.
#[derive(Debug, Parser)]
#[command(name = "jev-preflight", version, about, disable_version_flag = false)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Option<Command>,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Run as a Claude Code / Codex hook: read one event on stdin, answer on stdout.
    Hook {
        /// The event, for hosts that pass it as an argument; the event's own
        /// `hook_event_name` on stdin wins.
        event: Option<HookEvent>,
    },
    /// Play one real turn in a throwaway repository with the built-in scorer and show what
    /// the agent would receive. Uses no key and no network.
    Demo,
    /// Print the version.
    Version,
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
