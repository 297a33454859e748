//! The command line: parse arguments, run one command, map the result to an exit code.
//!
//! One room per user command; `hook` is the one command that serves the host, and lives in
//! [`crate::hook`]. Commands report errors loudly (exit 2 with a `hint:`); only the hook fails
//! open.

pub mod cli;
pub mod demo;
pub mod docs;
pub mod doctor;
pub mod eval;
pub mod init;
pub mod install;
pub mod status;

use std::ffi::OsString;
use std::io::{IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::{CommandFactory, Parser};

use crate::cmd::cli::{Cli, Command, EvalArgs, ForgetArgs, Format, InstallArgs, StatusArgs};
use crate::config::HostEnv;
use crate::env::vars as ev;
use crate::hook::{self, effects};

/// Why a user command failed, or finished with a verdict that is not success.
#[derive(Debug, thiserror::Error)]
pub enum RunError {
    #[error(transparent)]
    Usage(clap::Error),
    #[error(transparent)]
    Demo(#[from] crate::cmd::demo::DemoError),
    #[error(transparent)]
    Eval(#[from] crate::cmd::eval::EvalError),
    #[error(transparent)]
    Status(#[from] crate::cmd::status::StatusError),
    #[error(transparent)]
    Install(#[from] crate::cmd::install::InstallError),
    #[error(transparent)]
    Init(#[from] crate::cmd::init::InitError),
    #[error(transparent)]
    Docs(#[from] crate::cmd::docs::DocsError),
    #[error("`{}` is not inside a git repository", .0.display())]
    NotARepo(PathBuf),
    #[error("cannot tell where this program is: {0}")]
    CurrentExe(std::io::Error),
    #[error("cannot read the current directory: {0}")]
    Cwd(std::io::Error),
    #[error("could not write the output: {0}")]
    Write(std::io::Error),
    #[error("could not write `{}`: {source}", path.display())]
    WriteFile {
        path: PathBuf,
        source: std::io::Error,
    },
    /// `eval --fail-on`: an axis reached the limit (exit 1, not an error).
    #[error("{0}")]
    FailOn(String),
    /// `doctor` found problems (exit 1; the report says which).
    #[error("{0} problem(s) found")]
    Unhealthy(usize),
}

impl RunError {
    /// The next step, printed on a `hint:` line.
    pub fn hint(&self) -> Option<String> {
        match self {
            RunError::Eval(e) => e.hint(),
            RunError::Status(e) => e.hint(),
            RunError::Install(e) => e.hint(),
            RunError::Init(e) => e.hint(),
            RunError::Docs(e) => e.hint(),
            RunError::NotARepo(_) => {
                Some("run it inside a git repository (`git init` creates one)".into())
            }
            RunError::CurrentExe(_) => {
                Some("run the installed `jev-preflight` binary by its full path".into())
            }
            RunError::WriteFile { .. } => {
                Some("check that the directory exists and is writable".into())
            }
            _ => None,
        }
    }
}

/// What this invocation is.
#[derive(Debug)]
enum Invocation {
    Hook(hook::Argv),
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
        Invocation::Hook(argv) => {
            run_hook(argv);
            Ok(())
        }
        Invocation::User(Command::Demo) => {
            let mut out = std::io::stdout().lock();
            crate::cmd::demo::run(&mut out)?;
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
        Invocation::User(Command::Hook { event, host }) => {
            run_hook(hook_argv(event, host));
            Ok(())
        }
        Invocation::User(command) => run_user(command),
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

/// Anything that starts with `hook` is the hook, whatever follows, except a request for help:
/// a usage error there would be exit 2, which a Stop host reads as "continue the agent". No
/// arguments at all with stdin from a pipe is the hook too: hosts before 2.1.139 drop
/// exec-form `args`.
fn parse(args: Vec<OsString>, stdin_is_terminal: bool) -> Invocation {
    let first = args.get(1).and_then(|a| a.to_str());
    if first == Some("hook") {
        return match Cli::try_parse_from(&args) {
            Ok(Cli {
                command: Some(Command::Hook { event, host }),
            }) => Invocation::Hook(hook_argv(event, host)),
            // A person asking for help (no host passes `--help`) gets it, on stdout, exit 0.
            Err(e) if e.kind() == clap::error::ErrorKind::DisplayHelp => Invocation::Clap(e),
            _ => Invocation::Hook(hook::Argv::default()),
        };
    }
    if args.len() <= 1 && !stdin_is_terminal {
        return Invocation::Hook(hook::Argv::default());
    }
    match Cli::try_parse_from(&args) {
        Ok(Cli { command: Some(c) }) => Invocation::User(c),
        Ok(Cli { command: None }) => {
            Invocation::Clap(<Cli as clap::CommandFactory>::command().error(
                clap::error::ErrorKind::MissingSubcommand,
                "a command is required\n\nhint: try `jev-preflight demo`",
            ))
        }
        Err(e) => Invocation::Clap(with_hint(e, &args)),
    }
}

/// The hook's arguments; an unknown `--host` is no hint (never a usage error in the hook).
fn hook_argv(event: Option<crate::cmd::cli::HookEvent>, host: Option<String>) -> hook::Argv {
    hook::Argv {
        event: event.map(Into::into),
        host: host.as_deref().and_then(crate::host::Host::from_id),
    }
}

/// A usage error with a hint where a guess is natural but wrong: `eval --range A...B`
/// (the range is positional).
fn with_hint(e: clap::Error, args: &[OsString]) -> clap::Error {
    use clap::error::{ContextKind, ContextValue, ErrorKind};
    let guessed_range = e.kind() == ErrorKind::UnknownArgument
        && args.get(1).and_then(|a| a.to_str()) == Some("eval")
        && matches!(e.get(ContextKind::InvalidArg),
            Some(ContextValue::String(arg)) if arg == "--range" || arg.starts_with("--range="));
    if !guessed_range {
        return e;
    }
    let mut cli = Cli::command();
    // Built, the subcommand knows its full name for the usage line.
    cli.build();
    let eval = cli
        .find_subcommand_mut("eval")
        .expect("`eval` is a subcommand");
    eval.error(
        ErrorKind::UnknownArgument,
        "`--range` is not an option: the range is positional\n\nhint: `jev-preflight eval \
            main...HEAD` (or `A..B`, or one revision)",
    )
}

fn cwd() -> Result<PathBuf, RunError> {
    std::env::current_dir().map_err(RunError::Cwd)
}

fn print(text: &str) -> Result<(), RunError> {
    let mut out = std::io::stdout().lock();
    match out.write_all(text.as_bytes()).and_then(|()| out.flush()) {
        // A closed pipe (`| head`) is the reader's choice, not our failure.
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => Ok(()),
        other => other.map_err(RunError::Write),
    }
}

/// The user subcommands.
fn run_user(command: Command) -> Result<(), RunError> {
    let env = HostEnv::from_process();
    match command {
        Command::Eval(args) => eval(&env, args),
        Command::Status(args) => status(&env, args),
        Command::Forget(args) => forget(&env, args),
        Command::Doctor => {
            let checks = crate::cmd::doctor::run(&env, &cwd()?);
            print(&crate::cmd::doctor::render(&checks))?;
            match checks
                .iter()
                .filter(|c| c.level == crate::cmd::doctor::Level::Fail)
                .count()
            {
                0 => Ok(()),
                n => Err(RunError::Unhealthy(n)),
            }
        }
        Command::Install(args) => install(&env, args, true),
        Command::Uninstall(args) => install(&env, args, false),
        Command::Init { force } => {
            let top =
                repo_top(&cwd()?)?.ok_or_else(|| RunError::NotARepo(cwd().unwrap_or_default()))?;
            let outcome = crate::cmd::init::init(&top, force)?;
            let verb = if outcome.replaced {
                "replaced"
            } else {
                "wrote"
            };
            print(&format!(
                "{verb} `{}`\n\n{}",
                outcome.path.display(),
                crate::cmd::init::explanation()
            ))
        }
        Command::Completions { shell } => {
            let mut out = Vec::new();
            crate::cmd::docs::completions(&mut Cli::command(), &shell, &mut out)?;
            print(&String::from_utf8_lossy(&out))
        }
        Command::Man => {
            let mut out = Vec::new();
            crate::cmd::docs::man_page(&Cli::command(), &mut out)?;
            print(&String::from_utf8_lossy(&out))
        }
        Command::Demo | Command::Version | Command::Hook { .. } => Ok(()),
    }
}

/// The repository top level containing `dir`, if any.
fn repo_top(dir: &Path) -> Result<Option<PathBuf>, RunError> {
    Ok(repo_of(dir)?.map(|repo| repo.top))
}

fn eval(env: &HostEnv, args: EvalArgs) -> Result<(), RunError> {
    let request = crate::cmd::eval::Request {
        source: crate::cmd::eval::Source::from_args(args.range.as_deref(), args.patch.as_deref()),
        scorer: args.scorer.map(Into::into),
        dry_run: args.dry_run,
        fail_on: args.fail_on,
    };
    let format = if args.json { Format::Json } else { args.format };
    let report = crate::cmd::eval::run(env, &cwd()?, &request, &mut std::io::stdin().lock())?;
    for warning in &report.warnings {
        let _ = writeln!(
            std::io::stderr(),
            "warning: {}\nhint: {}",
            warning.message,
            warning.hint
        );
    }
    let text = match format {
        Format::Json => format!("{:#}\n", crate::cmd::eval::render::json(&report)),
        Format::Markdown => crate::cmd::eval::render::markdown(&report),
        Format::Sarif => format!("{:#}\n", crate::cmd::eval::render::sarif(&report)),
        Format::Text => match &report.result {
            // The exact payload on stdout, the summary on stderr: `> payload.json` keeps it.
            crate::cmd::eval::EvalResult::Payload {
                payload,
                scored: None,
            } => {
                let _ = write!(
                    std::io::stderr(),
                    "{}",
                    crate::cmd::eval::render::table(&report)
                );
                format!("{}\n", payload.json)
            }
            _ => crate::cmd::eval::render::table(&report),
        },
    };
    if let Some(path) = &args.sarif {
        let log = format!("{:#}\n", crate::cmd::eval::render::sarif(&report));
        std::fs::write(path, log).map_err(|source| RunError::WriteFile {
            path: path.clone(),
            source,
        })?;
    }
    print(&text)?;
    let failing = report.failing();
    if failing.is_empty() {
        return Ok(());
    }
    let axes: Vec<String> = failing
        .iter()
        .map(|&(i, v)| {
            format!(
                "{} {}",
                crate::pipeline::axes::AXIS_IDS[i],
                crate::scorer::threshold::shown(v)
            )
        })
        .collect();
    Err(RunError::FailOn(format!(
        "jev-preflight: --fail-on {}: {}",
        request.fail_on.unwrap_or_default(),
        axes.join(", ")
    )))
}

fn status(env: &HostEnv, args: StatusArgs) -> Result<(), RunError> {
    let data = env
        .data_dir()
        .ok_or(crate::cmd::status::StatusError::NoDataDir)?;
    let repo = if args.all { None } else { repo_of(&cwd()?)? };
    let top = repo.as_ref().map(|r| r.top.clone());
    let scope = match &top {
        Some(top) => format!("in {}", top.display()),
        None => "in any repository".to_owned(),
    };
    let entries = crate::cmd::status::decisions(&data, top.as_deref(), args.limit)?;
    if args.json {
        let json = serde_json::to_string_pretty(&entries).unwrap_or_default();
        return print(&format!("{json}\n"));
    }
    let mut text = crate::cmd::status::render(&entries, &scope, env.now);
    text.push_str(&crate::cmd::status::remembered(
        env,
        &data,
        repo.as_ref(),
        env.now,
    ));
    text.push_str(&crate::cmd::status::spent(env, &data, &entries, env.now));
    print(&text)
}

fn forget(env: &HostEnv, args: ForgetArgs) -> Result<(), RunError> {
    let data = env
        .data_dir()
        .ok_or(crate::cmd::status::StatusError::NoDataDir)?;
    let repo = if args.all {
        None
    } else {
        Some(repo_of(&cwd()?)?.ok_or_else(|| RunError::NotARepo(cwd().unwrap_or_default()))?)
    };
    let text = crate::cmd::status::forget(&data, repo.as_ref())?;
    print(&text)
}

/// The repository containing `dir`, if any.
fn repo_of(dir: &Path) -> Result<Option<crate::git::Repo>, RunError> {
    match crate::git::discover(&crate::git::Git::default(), dir) {
        Ok(crate::git::Discovery::Found(repo)) => Ok(Some(repo)),
        Ok(_) => Ok(None),
        Err(e) => Err(RunError::Eval(e.into())),
    }
}

fn install(env: &HostEnv, args: InstallArgs, add: bool) -> Result<(), RunError> {
    use crate::cmd::install;
    use crate::host::Scope;
    let host = args.host();
    let scope = if args.user {
        let home = env
            .get(ev::HOME)
            .map(PathBuf::from)
            .ok_or_else(|| RunError::Status(crate::cmd::status::StatusError::NoDataDir))?;
        Scope::User {
            home,
            config_dir: host.user_dir(env),
        }
    } else {
        let here = cwd()?;
        Scope::Project {
            root: repo_top(&here)?.unwrap_or(here),
        }
    };
    let settings = host.settings_path(&scope);
    let program = std::env::current_exe()
        .and_then(std::fs::canonicalize)
        .map_err(RunError::CurrentExe)?;
    let file = host.hook_file(&scope);
    // What undoes an install lives in the data dir, never beside the settings file.
    let data = env
        .data_dir()
        .ok_or(crate::cmd::status::StatusError::NoDataDir)?;
    let undo_root = crate::state::Store::open(&data)
        .and_then(|store| store.install_dir())
        .map_err(|source| crate::cmd::status::StatusError::Store {
            path: data.clone(),
            source,
        })?;
    let outcome = if add {
        install::install(host, file, &settings, &program, &undo_root)?
    } else {
        install::uninstall(host, file, &settings, &program, &undo_root)?
    };
    print(&format!("{outcome}\n"))?;
    if add && let Some(step) = host.next_step(&scope) {
        let _ = writeln!(std::io::stderr(), "hint: {step}");
    }
    Ok(())
}

/// The hook process: read stdin (bounded), handle, print, exit 0 whatever happens.
fn run_hook(argv: hook::Argv) {
    hook::install_panic_hook();
    let env = HostEnv::from_process();
    let ctx = hook::Context::new(&env, &effects::Real);
    let read = read_stdin(hook::STDIN_DEADLINE, hook::event::MAX_EVENT_BYTES as u64);
    let output = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| match read {
        Stdin::Closed(Ok(Some(input))) => hook::handle(&ctx, &input, argv),
        Stdin::Closed(Ok(None)) => hook::handle_too_large(&ctx, argv),
        Stdin::Closed(Err(e)) => hook::handle_unreadable(&ctx, argv, &e),
        Stdin::StillOpen(partial) => hook::handle_stdin_open(&ctx, &partial, argv),
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

/// What the hook's stdin held.
enum Stdin {
    /// Closed by the host: the bytes (`None` past the cap), or why they could not be read.
    Closed(std::io::Result<Option<Vec<u8>>>),
    /// Still open at the deadline, with what had arrived by then.
    StillOpen(Vec<u8>),
}

/// Reads stdin to its end, at most `max` bytes, waiting at most `deadline`. The read runs on
/// a thread of its own: a host that never closes stdin leaves it blocked, and it ends with
/// the process.
fn read_stdin(deadline: std::time::Duration, max: u64) -> Stdin {
    use std::io::Read;
    use std::sync::{Arc, Mutex, mpsc};
    let arrived = Arc::new(Mutex::new(Vec::new()));
    let sink = Arc::clone(&arrived);
    let (done, finished) = mpsc::channel();
    std::thread::spawn(move || {
        let mut stdin = std::io::stdin().lock();
        let mut chunk = vec![0u8; 64 * 1024];
        let result = loop {
            match stdin.read(&mut chunk) {
                Ok(0) => break Ok(true),
                Ok(n) => {
                    let mut bytes = sink.lock().unwrap_or_else(|p| p.into_inner());
                    bytes.extend_from_slice(&chunk[..n]);
                    if bytes.len() as u64 > max {
                        break Ok(false);
                    }
                }
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                Err(e) => break Err(e),
            }
        };
        let _ = done.send(result);
    });
    let take = || std::mem::take(&mut *arrived.lock().unwrap_or_else(|p| p.into_inner()));
    match finished.recv_timeout(deadline) {
        Ok(Ok(true)) => Stdin::Closed(Ok(Some(take()))),
        Ok(Ok(false)) => Stdin::Closed(Ok(None)),
        Ok(Err(e)) => Stdin::Closed(Err(e)),
        Err(_) => Stdin::StillOpen(take()),
    }
}

/// Exit codes of the user commands (the hook always exits 0).
pub mod codes {
    /// Done; for `eval --fail-on`, no axis reached the limit.
    pub const OK: u8 = 0;
    /// A verdict, not an error: `eval --fail-on` reached, `doctor` found a problem.
    pub const VERDICT: u8 = 1;
    /// A usage error, or the command could not do its work.
    pub const ERROR: u8 = 2;
}

/// The exit code of a result.
pub fn code_of(result: &Result<(), RunError>) -> u8 {
    match result {
        Ok(()) => codes::OK,
        Err(RunError::FailOn(_) | RunError::Unhealthy(_)) => codes::VERDICT,
        Err(_) => codes::ERROR,
    }
}

/// The one place exit codes are decided, and errors printed. The hook never gets here with
/// an error.
pub fn exit_code(result: &Result<(), RunError>) -> ExitCode {
    let mut err = std::io::stderr().lock();
    match result {
        // clap printed usage errors itself; doctor's report says what is wrong.
        Ok(()) | Err(RunError::Usage(_) | RunError::Unhealthy(_)) => {}
        Err(RunError::FailOn(line)) => {
            let _ = writeln!(err, "{line}");
        }
        Err(e) => {
            let _ = writeln!(err, "error: {e}");
            if let Some(hint) = e.hint() {
                let _ = writeln!(err, "hint: {hint}");
            }
        }
    }
    ExitCode::from(code_of(result))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::host::EventName;

    fn args(a: &[&str]) -> Vec<OsString> {
        std::iter::once("jev-preflight")
            .chain(a.iter().copied())
            .map(OsString::from)
            .collect()
    }

    #[test]
    fn hook_parsing_never_fails() {
        use crate::host::Host;
        let hook = |event, host| Invocation::Hook(hook::Argv { event, host });
        let cases = [
            (&["hook"][..], hook(None, None)),
            (&["hook", "stop"][..], hook(Some(EventName::Stop), None)),
            (
                &["hook", "user-prompt-submit"][..],
                hook(Some(EventName::UserPromptSubmit), None),
            ),
            (
                &["hook", "--host", "qwen"][..],
                hook(None, Some(Host::Qwen)),
            ),
            (
                &["hook", "--host", "copilot", "stop"][..],
                hook(Some(EventName::Stop), Some(Host::Copilot)),
            ),
            // An unknown host is no hint, never a usage error.
            (&["hook", "--host", "nobody"][..], hook(None, None)),
            (&["hook", "bogus", "--x"][..], hook(None, None)),
        ];
        for (argv, want) in cases {
            let got = parse(args(argv), true);
            assert!(
                matches!((&got, &want), (Invocation::Hook(a), Invocation::Hook(b)) if a == b),
                "{argv:?}"
            );
        }
        assert!(matches!(
            parse(args(&[]), false),
            Invocation::Hook(hook::Argv {
                event: None,
                host: None
            })
        ));
        for help in [
            &["hook", "--help"][..],
            &["hook", "-h"],
            &["hook", "stop", "--help"],
            &["hook", "--host", "qwen", "--help"],
        ] {
            match parse(args(help), false) {
                Invocation::Clap(e) => {
                    assert_eq!(e.kind(), clap::error::ErrorKind::DisplayHelp);
                    assert!(!e.use_stderr());
                    assert!(
                        e.render()
                            .to_string()
                            .contains("Run as an agent host's hook")
                    );
                }
                _ => panic!("{help:?} is not help"),
            }
        }
        assert!(matches!(parse(args(&[]), true), Invocation::Clap(_)));
        assert!(matches!(
            parse(args(&["demo"]), true),
            Invocation::User(Command::Demo)
        ));
        assert!(matches!(parse(args(&["nope"]), false), Invocation::Clap(_)));
    }

    #[test]
    fn a_range_flag_gets_a_hint_that_the_range_is_positional() {
        for guess in [
            &["eval", "--range", "main...HEAD"][..],
            &["eval", "--range=A..B"][..],
        ] {
            let Invocation::Clap(e) = parse(args(guess), true) else {
                panic!("{guess:?} parsed");
            };
            let text = e.render().to_string();
            assert!(text.contains("the range is positional"), "{text}");
            assert!(
                text.contains("hint: `jev-preflight eval main...HEAD`"),
                "{text}"
            );
            assert_eq!(code_of(&Err(RunError::Usage(e))), codes::ERROR);
        }
        let Invocation::Clap(e) = parse(args(&["eval", "--bogus"]), true) else {
            panic!("parsed");
        };
        assert!(!e.render().to_string().contains("positional"));
    }

    #[test]
    fn exit_codes() {
        assert_eq!(exit_code(&Ok(())), ExitCode::SUCCESS);
        assert_eq!(code_of(&Err(RunError::FailOn("x".into()))), 1);
        assert_eq!(code_of(&Err(RunError::Unhealthy(1))), 1);
        assert_eq!(code_of(&Err(RunError::NotARepo("/x".into()))), 2);
        let usage = Cli::try_parse_from(["jev-preflight", "eval", "--fail-on", "2"]).unwrap_err();
        assert_eq!(code_of(&Err(RunError::Usage(usage))), 2);
    }
}
