//! jev-preflight: score one agent turn's code change on 8 risk axes and, when an axis is at
//! or above its threshold, ask the agent once to look again.
//!
//! The house, one room per stage of the flow (SPEC §1):
//!
//! - [`hook`] — the host's events: decode, dispatch, gates, prompt state, answers, fail-open.
//! - [`git`] — every git process: the hardened runner, discovery, private snapshots and diffs.
//! - [`pipeline`] — pure stages from changes to a verdict: select paths, redact, build the
//!   canonical payload, pick the axes. No I/O.
//! - [`scorer`] — turning a payload into 8 probabilities: `jev`, `openai`, `command`, `local`.
//! - [`state`] — the private data dir: sessions, prompts, locks and the decision log.
//! - [`cmd`] — the command line: `hook`, `eval`, `status`, `doctor`, `install`, `init`, `demo`.
//! - [`config`], [`env`](mod@env), [`fs`], [`process`], [`digest`] — the settings, the
//!   environment read once, careful file-system work (private dirs, bounded reads, atomic
//!   writes, locks) shared by every room, child processes with deadlines, and the one hash
//!   helper.

pub mod cmd;
pub mod config;
pub mod digest;
pub mod env;
pub mod fs;
pub mod git;
pub mod hook;
pub mod host;
pub mod pipeline;
pub mod process;
pub mod scorer;
pub mod state;
