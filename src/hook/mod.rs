//! The hook: one event on stdin, dispatched to UserPromptSubmit, Stop or SessionEnd, answered
//! with at most one JSON object on stdout. Every failure is handled here, in one place: it
//! becomes a class, one stderr line, and at most one notice per session per class; the exit
//! code is always 0 and a panic is caught and treated the same way.
//!
//! The rooms: [`event`] decodes the input, [`prompt`] (UserPromptSubmit), [`stop`] and
//! [`session_end`] handle the three events, [`prompt_state`] is what a prompt persists between
//! them (the frozen config, the baseline, the loop gates), [`answer`] renders what is printed,
//! [`failure`] classifies what went wrong, and [`effects`] is the seam to git and the scorer.
//! The hook decides; it calls [`crate::pipeline`] for the pure stages and never runs git or
//! touches the network except through [`effects::Effects`].

pub mod answer;
pub mod budget;
pub mod effects;
pub mod event;
pub mod failure;
pub mod prompt;
pub mod prompt_state;
pub mod remember;
pub mod session_end;
pub mod stop;
#[cfg(test)]
mod tests;

use std::panic::AssertUnwindSafe;
use std::sync::Mutex;
use std::time::{Duration, SystemTime};

use crate::config::HostEnv;
use crate::git::Git;
use crate::host::EventName;
use crate::state::Store;
use crate::state::decision::{self, Decision};
use answer::Answer;
use effects::Effects;
use event::{Dispatch, Event};
use failure::{Class, Failure};

/// Time the scorer may take on a Stop (the plugin's Stop hook timeout is 60 s); a
/// repository's `timeoutMs` may shorten it, never lengthen it
/// ([`crate::config::TIMEOUT_MS_RANGE`]).
pub const SCORER_BUDGET: Duration = Duration::from_secs(20);
/// Deadline of one git call on UserPromptSubmit (whose hook timeout is 30 s).
pub const PROMPT_GIT_DEADLINE: Duration = Duration::from_secs(5);
/// Deadline of one git call on Stop.
pub const STOP_GIT_DEADLINE: Duration = Duration::from_secs(10);
/// How long the hook waits for the host to close stdin. Hosts write the event and close it
/// at once; one that leaves it open must not hold the hook (and the agent) until the host's
/// own timeout.
pub const STDIN_DEADLINE: Duration = Duration::from_secs(3);
/// SessionEnd hooks share 1.5 s; we stop removing well before.
pub const SESSION_END_BUDGET: Duration = Duration::from_millis(1000);

/// What the command line said: the event (for hosts that pass it as an argument) and the
/// host (`--host`, which `install` writes for hosts whose events need the hint).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Argv {
    pub event: Option<EventName>,
    pub host: Option<crate::host::Host>,
}

/// What the hook runs with.
pub struct Context<'a> {
    pub env: &'a HostEnv,
    pub effects: &'a dyn Effects,
    pub git: Git,
    pub scorer_budget: Duration,
}

impl<'a> Context<'a> {
    pub fn new(env: &'a HostEnv, effects: &'a dyn Effects) -> Context<'a> {
        Context {
            env,
            effects,
            git: Git::default(),
            scorer_budget: SCORER_BUDGET,
        }
    }

    fn now(&self) -> SystemTime {
        self.env.now
    }

    fn data_dir(&self) -> Result<std::path::PathBuf, Failure> {
        data_dir(self.env)
    }

    /// Opens the store, creating it (UserPromptSubmit with a mode that writes).
    fn create_store(&self) -> Result<Store, Failure> {
        open_store(self.env)
    }

    /// Opens the store only when it exists (Stop, SessionEnd, notices: never create it).
    fn existing_store(&self) -> Result<Option<Store>, Failure> {
        let root = self.data_dir()?;
        Ok(Store::open_existing(&root)?)
    }
}

/// The data dir, or the failure the hook reports without one.
fn data_dir(env: &HostEnv) -> Result<std::path::PathBuf, Failure> {
    env.data_dir().ok_or_else(|| {
        Failure::new(
            Class::StoreIo,
            "no data dir: neither CLAUDE_PLUGIN_DATA, XDG_STATE_HOME nor HOME is set",
        )
    })
}

/// Opens the private store under the data dir, creating it when missing, and proves it is a
/// private directory of ours: what UserPromptSubmit does before it writes anything. `doctor`
/// runs this very function, so its verdict on the data dir is the hook's, failure class and
/// all.
pub fn open_store(env: &HostEnv) -> Result<Store, Failure> {
    Ok(Store::open(&data_dir(env)?)?)
}

/// The result of handling one event, before fail-open rendering.
#[derive(Debug, Default)]
pub struct Reply {
    pub answer: Answer,
    /// Short machine-readable outcome for stderr and the decision log.
    pub outcome: &'static str,
    /// What the Stop found, for the decision log (never diff content); [`handle`] adds what
    /// is said of every event.
    pub log: Option<Decision>,
    /// Leave no trace in the decision log: the event concerned no prompt we hold state for
    /// (mode `off`, or a prompt we never saw), and `off` must write nothing.
    pub untraced: bool,
}

impl Reply {
    pub fn quiet(outcome: &'static str) -> Reply {
        Reply {
            outcome,
            ..Reply::default()
        }
    }

    /// A quiet reply that is not logged.
    pub fn untraced(outcome: &'static str) -> Reply {
        Reply {
            untraced: true,
            ..Reply::quiet(outcome)
        }
    }
}

/// What the process prints.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct Output {
    /// The one JSON object for stdout, if any.
    pub stdout: Option<String>,
    /// Lines for stderr.
    pub stderr: Vec<String>,
    /// The outcome (for tests and the demo).
    pub outcome: String,
    /// The failure class, if the event failed.
    pub class: Option<Class>,
}

static LAST_PANIC: Mutex<Option<String>> = Mutex::new(None);

/// Routes panic messages into the fail-open path instead of printing them: stdout stays clean
/// and stderr gets exactly one line from [`handle`].
pub fn install_panic_hook() {
    std::panic::set_hook(Box::new(|info| {
        let place = info
            .location()
            .map(|l| format!(" at {}:{}", l.file(), l.line()))
            .unwrap_or_default();
        let msg = info
            .payload()
            .downcast_ref::<&str>()
            .map(|s| s.to_string())
            .or_else(|| info.payload().downcast_ref::<String>().cloned())
            .unwrap_or_else(|| "panic".into());
        if let Ok(mut slot) = LAST_PANIC.lock() {
            *slot = Some(format!("{msg}{place}"));
        }
    }));
}

/// Handles one hook invocation: `input` is stdin, `argv` the subcommand's event, if any.
pub fn handle(ctx: &Context<'_>, input: &[u8], argv: Argv) -> Output {
    let event = match Event::decode_from(input, argv.host) {
        Ok(e) => e,
        Err(e) => return fail(ctx, &Event::hinted(argv.host), None, Failure::from(e)),
    };
    let name = match event.dispatch(argv.event) {
        Dispatch::Known(name) => name,
        Dispatch::Other(_) | Dispatch::Unnamed => {
            return Output {
                outcome: "ignored".into(),
                ..Output::default()
            };
        }
    };
    let result = std::panic::catch_unwind(AssertUnwindSafe(|| match name {
        EventName::UserPromptSubmit => prompt::submit(ctx, &event),
        EventName::Stop => stop::stop(ctx, &event),
        EventName::SessionEnd => session_end::end(ctx, &event),
    }));
    let label = name.protocol_name();
    let reply = match result {
        Ok(Ok(reply)) => reply,
        Ok(Err(failure)) => return fail(ctx, &event, Some(name), failure),
        Err(payload) => {
            let msg = LAST_PANIC
                .lock()
                .ok()
                .and_then(|mut s| s.take())
                .or_else(|| payload.downcast_ref::<&str>().map(|s| s.to_string()))
                .or_else(|| payload.downcast_ref::<String>().cloned())
                .unwrap_or_else(|| "panic".into());
            return fail(ctx, &event, Some(name), Failure::new(Class::Panic, msg));
        }
    };
    if name == EventName::Stop && !reply.untraced {
        log(ctx, &event, label, reply.outcome, None, reply.log);
    }
    Output {
        stdout: reply
            .answer
            .render_for(event.host, name, event.host.shows_notices(name)),
        stderr: vec![format!("jev-preflight: {label}: {}", reply.outcome)],
        outcome: reply.outcome.into(),
        class: None,
    }
}

/// The one fail-open path. `name` is `None` when the input was not an event at all.
fn fail(ctx: &Context<'_>, event: &Event, name: Option<EventName>, failure: Failure) -> Output {
    let label = name.map_or("hook", EventName::protocol_name);
    let mut answer = Answer::default();
    // Input that is no event gets the answer shape every event accepts.
    let shown_as = name.unwrap_or(EventName::Stop);
    let shows = event.host.shows_notices(shown_as);
    if shows && first_notice(ctx, event, failure.class) {
        answer.messages.push(failure.notice());
    }
    log(ctx, event, label, "failed", Some(failure.class), None);
    Output {
        stdout: answer.render_for(event.host, shown_as, shows),
        stderr: vec![failure.stderr_line(label)],
        outcome: "failed".into(),
        class: Some(failure.class),
    }
}

/// Whether this is the first notice of `class` in the session. When the store cannot record
/// it, the notice is shown (better once too often than a silent failure), unless the store is
/// only busy: another hook process of this session is recording one right now.
fn first_notice(ctx: &Context<'_>, event: &Event, class: Class) -> bool {
    let Ok(dir) = ctx.data_dir() else { return true };
    match Store::open(&dir) {
        Ok(store) => store
            .session(event.session_key())
            .notice_once(&class.name())
            .unwrap_or(class != Class::StoreBusy),
        Err(_) => true,
    }
}

/// Appends to the decision log `status` reads; never fails the hook. `facts` are what the
/// Stop found (none for other events and failures); the rest is said of every event here.
fn log(
    ctx: &Context<'_>,
    event: &Event,
    label: &str,
    outcome: &str,
    class: Option<Class>,
    facts: Option<Decision>,
) {
    let Ok(Some(store)) = ctx.existing_store() else {
        return;
    };
    let entry = Decision {
        v: decision::Version::CURRENT,
        time: ctx
            .now()
            .duration_since(SystemTime::UNIX_EPOCH)
            .map(|d| d.as_secs())
            .unwrap_or(0),
        event: label.to_owned(),
        session: crate::state::key("session", event.session_key())[..12].to_owned(),
        outcome: outcome.to_owned(),
        class: class.map(|class| class.name().into_owned()),
        // `status` matches entries to the repository it is run in by this directory.
        cwd: event.dir().map(|dir| dir.to_string_lossy().into_owned()),
        host: (event.host != crate::host::Host::ClaudeCode).then(|| event.host.id().to_owned()),
        ..facts.unwrap_or_default()
    };
    let _ = store.log_decision(&entry);
}

/// Stdin held more than an event may (the rest was not read).
pub fn handle_too_large(ctx: &Context<'_>, argv: Argv) -> Output {
    let failure = Failure::from(event::EventError::TooLarge);
    fail(ctx, &Event::hinted(argv.host), None, failure)
}

/// Stdin was still open at [`STDIN_DEADLINE`]. What arrived is handled when it is one whole
/// JSON object (a host that forgot to close stdin); otherwise the hook gives up, failing open.
pub fn handle_stdin_open(ctx: &Context<'_>, partial: &[u8], argv: Argv) -> Output {
    match serde_json::from_slice::<serde_json::Value>(partial) {
        Ok(serde_json::Value::Object(_)) => handle(ctx, partial, argv),
        _ => fail(
            ctx,
            &Event::hinted(argv.host),
            None,
            Failure::new(
                Class::InputInvalid,
                format!(
                    "stdin was still open after {} s without a whole event ({} bytes read)",
                    STDIN_DEADLINE.as_secs(),
                    partial.len()
                ),
            ),
        ),
    }
}

/// Stdin could not be read at all.
pub fn handle_unreadable(ctx: &Context<'_>, argv: Argv, error: &std::io::Error) -> Output {
    fail(
        ctx,
        &Event::hinted(argv.host),
        None,
        Failure::new(
            Class::InputInvalid,
            format!("could not read stdin: {error}"),
        ),
    )
}
