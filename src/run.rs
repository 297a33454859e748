//! The command line: parse arguments, run one command, map the result to an exit code.

use std::ffi::OsString;
use std::io::{IsTerminal, Read, Write};
use std::process::ExitCode;

use clap::Parser;

use crate::cli::{Cli, Command};
use crate::config::HostEnv;
use crate::hook::{self, engine::Stages, event::EventName};

/// Why a user command failed.
#[derive(Debug, thiserror::Error)]
pub enum RunError {
    #[error(transparent)]
    Usage(clap::Error),
    #[error(transparent)]
    Demo(#[from] crate::demo::DemoError),
}

/// What this invocation is.
#[derive(Debug)]
enum Invocation {
    Hook(Option<EventName>),
    User(Command),
    /// `--help`, `--version`, or a usage error: clap prints it.
    Clap(clap::Error),
}

pub fn main() -> ExitCode {
    exit_code(&run(std::env::args_os().collect()))
}

/// Runs one invocation.
pub fn run(args: Vec<OsString>) -> Result<(), RunError> {
    match parse(args, std::io::stdin().is_terminal()) {
        Invocation::Hook(argv_event) => {
            run_hook(argv_event);
            Ok(())
        }
        Invocation::User(Command::Demo) => {
            let mut out = std::io::stdout().lock();
            crate::demo::run(&mut out)?;
            Ok(())
        }
        Invocation::User(Command::Version) => {
            let _ = writeln!(
                std::io::stdout(),
                "jev-preflight {}",
                env!("CARGO_PKG_VERSION")
            );
            Ok(())
        }
        Invocation::User(Command::Hook { event }) => {
            run_hook(event.map(Into::into));
            Ok(())
        }
        Invocation::Clap(e) => {
            let _ = e.print();
            if e.use_stderr() {
                Err(RunError::Usage(e))
            } else {
                Ok(())
            }
        }
    }
}

/// Anything that starts with `hook` is the hook, whatever follows: a usage error there would
/// be exit 2, which a Stop host reads as "continue the agent". No arguments at all with stdin
/// from a pipe is the hook too: hosts before 2.1.139 drop exec-form `args`.
fn parse(args: Vec<OsString>, stdin_is_terminal: bool) -> Invocation {
    let first = args.get(1).and_then(|a| a.to_str());
    if first == Some("hook") {
        return match Cli::try_parse_from(&args) {
            Ok(Cli {
                command: Some(Command::Hook { event }),
            }) => Invocation::Hook(event.map(Into::into)),
            _ => Invocation::Hook(None),
        };
    }
    if args.len() <= 1 && !stdin_is_terminal {
        return Invocation::Hook(None);
    }
    match Cli::try_parse_from(&args) {
        Ok(Cli { command: Some(c) }) => Invocation::User(c),
        Ok(Cli { command: None }) => {
            Invocation::Clap(<Cli as clap::CommandFactory>::command().error(
                clap::error::ErrorKind::MissingSubcommand,
                "a command is required\n\nhint: try `jev-preflight demo`",
            ))
        }
        Err(e) => Invocation::Clap(e),
    }
}

/// The hook process: read stdin (bounded), handle, print, exit 0 whatever happens.
fn run_hook(argv_event: Option<EventName>) {
    hook::install_panic_hook();
    let env = HostEnv::from_process();
    let ctx = hook::Context::new(&env, &Stages);
    let mut input = Vec::new();
    let read = std::io::stdin()
        .lock()
        .take(hook::event::MAX_EVENT_BYTES as u64 + 1)
        .read_to_end(&mut input);
    let output = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| match read {
        Ok(_) => hook::handle(&ctx, &input, argv_event),
        Err(e) => hook::handle_unreadable(&ctx, &e),
    }))
    .unwrap_or_else(|_| hook::Output {
        stderr: vec!["jev-preflight: hook: panic: while handling the event".into()],
        ..hook::Output::default()
    });
    if let Some(json) = &output.stdout {
        let mut out = std::io::stdout().lock();
        let _ = writeln!(out, "{json}");
        let _ = out.flush();
    }
    let mut err = std::io::stderr().lock();
    for line in &output.stderr {
        let _ = writeln!(err, "{line}");
    }
}

/// The one place exit codes are decided. The hook never gets here with an error.
pub fn exit_code(result: &Result<(), RunError>) -> ExitCode {
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(RunError::Usage(_)) => ExitCode::from(2),
        Err(e) => {
            let _ = writeln!(std::io::stderr(), "error: {e}");
            ExitCode::FAILURE
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(a: &[&str]) -> Vec<OsString> {
        std::iter::once("jev-preflight")
            .chain(a.iter().copied())
            .map(OsString::from)
            .collect()
    }

    #[test]
    fn hook_parsing_never_fails() {
        assert!(matches!(
            parse(args(&["hook"]), true),
            Invocation::Hook(None)
        ));
        assert!(matches!(
            parse(args(&["hook", "stop"]), true),
            Invocation::Hook(Some(EventName::Stop))
        ));
        assert!(matches!(
            parse(args(&["hook", "user-prompt-submit"]), true),
            Invocation::Hook(Some(EventName::UserPromptSubmit))
        ));
        assert!(matches!(
            parse(args(&["hook", "bogus", "--x"]), true),
            Invocation::Hook(None)
        ));
        assert!(matches!(parse(args(&[]), false), Invocation::Hook(None)));
        assert!(matches!(parse(args(&[]), true), Invocation::Clap(_)));
        assert!(matches!(
            parse(args(&["demo"]), true),
            Invocation::User(Command::Demo)
        ));
        assert!(matches!(parse(args(&["nope"]), false), Invocation::Clap(_)));
    }

    #[test]
    fn exit_codes() {
        assert_eq!(exit_code(&Ok(())), ExitCode::SUCCESS);
    }
}
