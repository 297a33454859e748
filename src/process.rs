//! Runs one child process with a deadline, capped output and a typed outcome.
//!
//! Every program jev-preflight starts (git, a user's scorer command) goes through [`run`]:
//! stdin is either null or a buffer written from its own thread, stdout and stderr are read
//! concurrently into capped buffers, and a child that outlives its deadline or floods its
//! output is killed together with its process group and reaped.

use std::io::{Read, Write};
use std::path::PathBuf;
use std::process::{Child, Command, ExitStatus, Stdio};
use std::sync::mpsc::{self, RecvTimeoutError, SyncSender};
use std::thread::{self, JoinHandle};
use std::time::{Duration, Instant};

/// Limits applied to one child process.
#[derive(Debug, Clone, Copy)]
pub struct Limits {
    /// Wall-clock time after which the child is killed.
    pub deadline: Duration,
    /// Largest stdout accepted; more is the [`ProcessError::TooLarge`] outcome.
    pub stdout_cap: usize,
    /// Largest stderr kept; more is truncated silently (stderr is diagnostics only).
    pub stderr_cap: usize,
}

impl Limits {
    pub const fn new(deadline: Duration, stdout_cap: usize) -> Limits {
        Limits {
            deadline,
            stdout_cap,
            stderr_cap: 16 * 1024,
        }
    }
}

/// What a successful child produced.
#[derive(Debug)]
pub struct Output {
    pub stdout: Vec<u8>,
    pub stderr: Vec<u8>,
    pub elapsed: Duration,
}

/// Why a child did not produce a usable result.
#[derive(Debug, thiserror::Error)]
pub enum ProcessError {
    #[error("`{program}` was not found")]
    NotFound { program: PathBuf },
    #[error("could not start `{program}`: {source}")]
    Spawn {
        program: PathBuf,
        source: std::io::Error,
    },
    #[error("`{program}` exited with status {code}: {}", stderr_line(.stderr))]
    Exit {
        program: PathBuf,
        code: i32,
        stderr: Vec<u8>,
        stdout: Vec<u8>,
    },
    #[error("`{program}` was killed by signal {signal}")]
    Signal {
        program: PathBuf,
        signal: i32,
        stderr: Vec<u8>,
    },
    #[error("`{program}` did not finish within {} ms and was killed", .after.as_millis())]
    Timeout { program: PathBuf, after: Duration },
    #[error("`{program}` wrote more than {cap} bytes to stdout and was killed")]
    TooLarge { program: PathBuf, cap: usize },
    #[error("i/o error while talking to `{program}`: {source}")]
    Io {
        program: PathBuf,
        source: std::io::Error,
    },
}

impl ProcessError {
    /// Short stable name of the failure, for fail-open classes and logs.
    pub fn kind(&self) -> &'static str {
        match self {
            ProcessError::NotFound { .. } => "not_found",
            ProcessError::Spawn { .. } => "spawn",
            ProcessError::Exit { .. } => "exit",
            ProcessError::Signal { .. } => "signal",
            ProcessError::Timeout { .. } => "timeout",
            ProcessError::TooLarge { .. } => "too_large",
            ProcessError::Io { .. } => "io",
        }
    }
}

/// First non-empty line of a child's stderr, trimmed and bounded, for one-line messages.
pub fn stderr_line(stderr: &[u8]) -> String {
    let text = String::from_utf8_lossy(stderr);
    let line = text
        .lines()
        .map(str::trim)
        .find(|l| !l.is_empty())
        .unwrap_or("");
    let mut out: String = line.chars().take(300).collect();
    if line.chars().count() > 300 {
        out.push('…');
    }
    out
}

/// Receives a child's stdout as it arrives, chunk by chunk; returns `false` to end the child
/// early (it is killed with its group, and what it wrote so far is all there is).
pub type Sink<'a> = &'a mut (dyn FnMut(&[u8]) -> bool + Send);

/// What a child streamed to a [`Sink`] ended with.
#[derive(Debug)]
pub struct Streamed {
    pub stderr: Vec<u8>,
    pub elapsed: Duration,
    /// The sink ended the child before it finished; its exit status is not looked at.
    pub stopped: bool,
}

/// Where stdout goes: a capped buffer (more is [`ProcessError::TooLarge`]) or a sink.
enum Consumer<'a> {
    Collect { buf: Vec<u8>, cap: usize },
    Stream(Sink<'a>),
}

impl Consumer<'_> {
    /// Takes one chunk; `false` when the child must be stopped (an overflow, or the sink
    /// said so).
    fn feed(&mut self, chunk: &[u8]) -> bool {
        match self {
            Consumer::Collect { buf, cap } => {
                let room = cap.saturating_sub(buf.len());
                buf.extend_from_slice(&chunk[..chunk.len().min(room)]);
                chunk.len() <= room
            }
            Consumer::Stream(sink) => sink(chunk),
        }
    }
}

/// How a child ended, before its status is judged.
struct Ended {
    /// `None`: stopped early, by an overflow or the sink.
    status: Option<ExitStatus>,
    stderr: Vec<u8>,
}

/// Runs `cmd` to completion under `limits`, feeding it `stdin` (or the null device).
///
/// On unix the child gets its own process group so that a kill reaches whatever it started
/// (a shell script's `sleep`, a pager) and no grandchild keeps our pipes open.
pub fn run(cmd: Command, stdin: Option<Vec<u8>>, limits: Limits) -> Result<Output, ProcessError> {
    let cap = limits.stdout_cap;
    let mut consumer = Consumer::Collect {
        buf: Vec::new(),
        cap,
    };
    let (program, ended, elapsed) = run_with(cmd, stdin, limits, &mut consumer)?;
    let stdout = match consumer {
        Consumer::Collect { buf, .. } => buf,
        Consumer::Stream(_) => Vec::new(),
    };
    match ended.status {
        None => Err(ProcessError::TooLarge { program, cap }),
        Some(status) => finish(program, status, stdout, ended.stderr, elapsed),
    }
}

/// Runs `cmd` like [`run`], handing its stdout to `sink` as it arrives instead of keeping it:
/// the caller bounds what it keeps, and may end the child early (`sink` returns `false`),
/// which is not an error. `limits.stdout_cap` does not apply.
pub fn run_streaming(
    cmd: Command,
    stdin: Option<Vec<u8>>,
    limits: Limits,
    sink: Sink<'_>,
) -> Result<Streamed, ProcessError> {
    let mut consumer = Consumer::Stream(sink);
    let (program, ended, elapsed) = run_with(cmd, stdin, limits, &mut consumer)?;
    match ended.status {
        None => Ok(Streamed {
            stderr: ended.stderr,
            elapsed,
            stopped: true,
        }),
        Some(status) => {
            let out = finish(program, status, Vec::new(), ended.stderr, elapsed)?;
            Ok(Streamed {
                stderr: out.stderr,
                elapsed,
                stopped: false,
            })
        }
    }
}

/// Spawns `cmd` and runs it to its end, its stdout going to `consumer`.
fn run_with(
    mut cmd: Command,
    stdin: Option<Vec<u8>>,
    limits: Limits,
    consumer: &mut Consumer<'_>,
) -> Result<(PathBuf, Ended, Duration), ProcessError> {
    let program = PathBuf::from(cmd.get_program());
    cmd.stdin(if stdin.is_some() {
        Stdio::piped()
    } else {
        Stdio::null()
    });
    cmd.stdout(Stdio::piped());
    cmd.stderr(Stdio::piped());
    #[cfg(unix)]
    {
        use std::os::unix::process::CommandExt;
        cmd.process_group(0);
    }
    let start = Instant::now();
    let child = cmd.spawn().map_err(|source| {
        if source.kind() == std::io::ErrorKind::NotFound {
            ProcessError::NotFound {
                program: program.clone(),
            }
        } else {
            ProcessError::Spawn {
                program: program.clone(),
                source,
            }
        }
    })?;

    #[cfg(target_os = "linux")]
    if let Some(pidfd) = polled::pidfd(&child) {
        let ended = polled::run(child, pidfd, stdin, limits, &program, start, consumer)?;
        return Ok((program, ended, start.elapsed()));
    }
    let ended = threaded(child, stdin, limits, &program, start, consumer)?;
    Ok((program, ended, start.elapsed()))
}

fn finish(
    program: PathBuf,
    status: ExitStatus,
    stdout: Vec<u8>,
    stderr: Vec<u8>,
    elapsed: Duration,
) -> Result<Output, ProcessError> {
    if status.success() {
        return Ok(Output {
            stdout,
            stderr,
            elapsed,
        });
    }
    if let Some(code) = status.code() {
        return Err(ProcessError::Exit {
            program,
            code,
            stderr,
            stdout,
        });
    }
    #[cfg(unix)]
    {
        use std::os::unix::process::ExitStatusExt;
        if let Some(signal) = status.signal() {
            return Err(ProcessError::Signal {
                program,
                signal,
                stderr,
            });
        }
    }
    Err(ProcessError::Exit {
        program,
        code: -1,
        stderr,
        stdout,
    })
}

/// What the helper threads of [`threaded`] tell the waiting thread.
enum Msg {
    /// A chunk of stdout.
    Out(Vec<u8>),
    /// Stdout reached its end.
    OutDone,
    /// The child has exited (not reaped yet).
    Exited,
    /// The exit cannot be watched: poll for it.
    CannotWatch,
}

/// Where no pidfd is at hand: a thread reads stdout and hands each chunk to the waiting
/// thread, which feeds `consumer` (a sink is borrowed, not sent anywhere), a second drains
/// stderr, and a third watches for the exit, so that nothing waits on a timer unless the exit
/// cannot be watched. The outcomes are those of the polled way.
fn threaded(
    mut child: Child,
    stdin: Option<Vec<u8>>,
    limits: Limits,
    program: &std::path::Path,
    start: Instant,
    consumer: &mut Consumer<'_>,
) -> Result<Ended, ProcessError> {
    spawn_stdin_writer(&mut child, stdin);
    let deadline = start + limits.deadline;
    // Bounded, so that a child writing faster than the consumer takes waits for it.
    let (tx, rx) = mpsc::sync_channel::<Msg>(64);
    let out_done = !spawn_stdout_reader(child.stdout.take(), tx.clone());
    let err_reader = spawn_stderr_reader(child.stderr.take(), limits.stderr_cap);
    let mut polling = !watch_exit(&child, tx.clone());
    drop(tx);

    let mut out_done = out_done;
    let mut status: Option<ExitStatus> = None;
    // Short first naps keep fast calls fast when polling; the cap keeps a long wait cheap.
    let mut nap = Duration::from_micros(50);
    while !(out_done && status.is_some()) {
        if status.is_none() {
            match child.try_wait() {
                Ok(Some(s)) => {
                    status = Some(s);
                    // Its pipes close unless a grandchild escaped the process group; kill
                    // the group anyway so that they do.
                    kill_group(&child);
                    continue;
                }
                Ok(None) => {}
                Err(source) => {
                    kill_and_reap(&mut child);
                    return Err(ProcessError::Io {
                        program: program.to_owned(),
                        source,
                    });
                }
            }
        }
        let now = Instant::now();
        if now >= deadline {
            if status.is_some() {
                // Only an escaped grandchild holds the pipes now: what came is all.
                break;
            }
            kill_and_reap(&mut child);
            return Err(ProcessError::Timeout {
                program: program.to_owned(),
                after: limits.deadline,
            });
        }
        let wait = if polling {
            let n = nap.min(deadline - now);
            nap = (nap * 2).min(Duration::from_millis(5));
            n
        } else {
            deadline - now
        };
        match rx.recv_timeout(wait) {
            Ok(Msg::Out(chunk)) => {
                if !consumer.feed(&chunk) {
                    kill_and_reap(&mut child);
                    drop(rx);
                    return Ok(Ended {
                        status: None,
                        stderr: join_reader(err_reader),
                    });
                }
            }
            Ok(Msg::OutDone) => out_done = true,
            Ok(Msg::Exited) | Err(RecvTimeoutError::Timeout) => {}
            Ok(Msg::CannotWatch) => polling = true,
            // Every helper is gone (stdout ended, the watcher finished): poll the exit.
            Err(RecvTimeoutError::Disconnected) => {
                out_done = true;
                polling = true;
                thread::sleep(wait);
            }
        }
    }
    let status = match status {
        Some(status) => status,
        None => reap(&mut child, program)?,
    };
    Ok(Ended {
        status: Some(status),
        stderr: join_reader(err_reader),
    })
}

/// Writes `stdin` to the child from its own thread, so that a child that never reads its
/// stdin cannot block us; a broken pipe is ignored (the child's answer, or its exit, is what
/// counts).
fn spawn_stdin_writer(child: &mut Child, stdin: Option<Vec<u8>>) {
    if let (Some(input), Some(mut pipe)) = (stdin, child.stdin.take()) {
        thread::spawn(move || {
            let _ = pipe.write_all(&input);
        });
    }
}

/// Starts the thread that reads stdout and sends each chunk to the waiting thread, then
/// [`Msg::OutDone`]; `false` when there is no stdout to read (it counts as ended).
fn spawn_stdout_reader<R: Read + Send + 'static>(pipe: Option<R>, tx: SyncSender<Msg>) -> bool {
    let Some(mut pipe) = pipe else {
        return false;
    };
    thread::spawn(move || {
        let mut chunk = [0u8; 16 * 1024];
        loop {
            match pipe.read(&mut chunk) {
                Ok(0) => break,
                Ok(n) => {
                    if tx.send(Msg::Out(chunk[..n].to_vec())).is_err() {
                        return;
                    }
                }
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                Err(_) => break,
            }
        }
        let _ = tx.send(Msg::OutDone);
    });
    true
}

/// Waits for the child to be reaped and returns its exit status; a failed wait is an I/O
/// error on `program`.
fn reap(child: &mut Child, program: &std::path::Path) -> Result<ExitStatus, ProcessError> {
    child.wait().map_err(|source| ProcessError::Io {
        program: program.to_owned(),
        source,
    })
}

type Reader = Option<JoinHandle<Vec<u8>>>;

/// Drains stderr past its cap (the child must never block on a full pipe), keeping `cap`.
fn spawn_stderr_reader<R: Read + Send + 'static>(pipe: Option<R>, cap: usize) -> Reader {
    let mut pipe = pipe?;
    Some(thread::spawn(move || {
        let mut buf = Vec::new();
        let mut chunk = [0u8; 16 * 1024];
        loop {
            match pipe.read(&mut chunk) {
                Ok(0) => break,
                Ok(n) => {
                    let room = cap.saturating_sub(buf.len());
                    buf.extend_from_slice(&chunk[..n.min(room)]);
                }
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                Err(_) => break,
            }
        }
        buf
    }))
}

fn join_reader(reader: Reader) -> Vec<u8> {
    reader.and_then(|h| h.join().ok()).unwrap_or_default()
}

/// Starts a thread that blocks until the child has exited, without reaping it (the child
/// stays ours to reap with `try_wait`), then sends [`Msg::Exited`] (or [`Msg::CannotWatch`]:
/// poll instead). Returns `false` when no such thread could be started.
#[cfg(unix)]
#[allow(unsafe_code)] // two libc calls, SAFETY below
fn watch_exit(child: &Child, wake: mpsc::SyncSender<Msg>) -> bool {
    let pid: libc::id_t = child.id();
    thread::Builder::new()
        .stack_size(64 * 1024)
        .spawn(move || {
            loop {
                // SAFETY: an all-zero siginfo_t is a valid out-parameter for waitid.
                let mut info: libc::siginfo_t = unsafe { std::mem::zeroed() };
                // SAFETY: `info` outlives the call; WNOWAIT leaves the child unreaped, so its
                // pid cannot be reused while `Child` still owns it.
                let r = unsafe {
                    libc::waitid(libc::P_PID, pid, &mut info, libc::WEXITED | libc::WNOWAIT)
                };
                if r == 0 {
                    let _ = wake.send(Msg::Exited);
                    break;
                }
                if std::io::Error::last_os_error().kind() != std::io::ErrorKind::Interrupted {
                    // Cannot watch this child: tell the waiter to poll.
                    let _ = wake.send(Msg::CannotWatch);
                    break;
                }
            }
        })
        .is_ok()
}

#[cfg(not(unix))]
fn watch_exit(_child: &Child, _wake: mpsc::SyncSender<Msg>) -> bool {
    false
}

/// On Linux one thread does it all: the pipes and the child's exit (a pidfd) are polled
/// together, so a call starts no helper thread — each of the four it took cost a spawn and a
/// wake-up, about a third of a millisecond per git call on a busy machine. The outcomes are
/// those of the threaded way: stdout to its consumer, drained stderr, the group killed once
/// the child exits, at the deadline, or when the consumer wants no more.
#[cfg(target_os = "linux")]
mod polled {
    use std::io::{Read, Write};
    use std::os::fd::{AsRawFd, FromRawFd, OwnedFd, RawFd};
    use std::path::Path;
    use std::process::Child;
    use std::time::{Duration, Instant};

    use super::{Consumer, Ended, Limits, ProcessError, kill_and_reap, kill_group, reap};

    /// A descriptor that becomes readable when `child` exits; `None` before Linux 5.3.
    #[allow(unsafe_code)] // one syscall, SAFETY below
    pub(super) fn pidfd(child: &Child) -> Option<OwnedFd> {
        let pid = libc::pid_t::try_from(child.id()).ok()?;
        // SAFETY: pidfd_open takes a pid and flags and returns a new descriptor or -1; the
        // child is not reaped yet, so its pid is still ours.
        let fd = unsafe { libc::syscall(libc::SYS_pidfd_open, pid, 0) };
        let fd = RawFd::try_from(fd).ok().filter(|&fd| fd >= 0)?;
        // SAFETY: the kernel just returned `fd`; nothing else owns it.
        Some(unsafe { OwnedFd::from_raw_fd(fd) })
    }

    #[allow(unsafe_code)] // two fcntl calls, SAFETY below
    fn set_nonblocking(fd: RawFd) -> std::io::Result<()> {
        // SAFETY: F_GETFL on a descriptor we own.
        let flags = unsafe { libc::fcntl(fd, libc::F_GETFL) };
        // SAFETY: F_SETFL on the same descriptor, with its own flags plus O_NONBLOCK.
        if flags < 0 || unsafe { libc::fcntl(fd, libc::F_SETFL, flags | libc::O_NONBLOCK) } < 0 {
            return Err(std::io::Error::last_os_error());
        }
        Ok(())
    }

    /// Reads what `pipe` has now into `buf` (kept up to `cap`); `true` at end of file. Bytes
    /// past `cap` are dropped.
    fn drain(pipe: &mut impl Read, buf: &mut Vec<u8>, cap: usize) -> bool {
        let mut chunk = [0u8; 16 * 1024];
        loop {
            match pipe.read(&mut chunk) {
                Ok(0) => return true,
                Ok(n) => {
                    let room = cap.saturating_sub(buf.len());
                    buf.extend_from_slice(&chunk[..n.min(room)]);
                }
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => return false,
                Err(_) => return true,
            }
        }
    }

    /// What reading stdout now came to.
    enum Fed {
        /// More may come.
        Open,
        /// End of file.
        Done,
        /// The consumer wants no more (an overflow, or the sink said so).
        Stop,
    }

    /// Hands what `pipe` has now to `consumer`.
    fn feed(pipe: &mut impl Read, consumer: &mut Consumer<'_>) -> Fed {
        let mut chunk = [0u8; 16 * 1024];
        loop {
            match pipe.read(&mut chunk) {
                Ok(0) => return Fed::Done,
                Ok(n) => {
                    if !consumer.feed(&chunk[..n]) {
                        return Fed::Stop;
                    }
                }
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => return Fed::Open,
                Err(_) => return Fed::Done,
            }
        }
    }

    pub(super) fn run(
        mut child: Child,
        pidfd: OwnedFd,
        input: Option<Vec<u8>>,
        limits: Limits,
        program: &Path,
        start: Instant,
        consumer: &mut Consumer<'_>,
    ) -> Result<Ended, ProcessError> {
        let program = || program.to_owned();
        let deadline = start + limits.deadline;
        let input = input.unwrap_or_default();
        let mut stdin = child.stdin.take().filter(|_| !input.is_empty());
        let mut stdout = child.stdout.take();
        let mut stderr = child.stderr.take();
        let fds = [
            stdin.as_ref().map(AsRawFd::as_raw_fd),
            stdout.as_ref().map(AsRawFd::as_raw_fd),
            stderr.as_ref().map(AsRawFd::as_raw_fd),
        ];
        if let Err(source) = fds.into_iter().flatten().try_for_each(set_nonblocking) {
            kill_and_reap(&mut child);
            return Err(ProcessError::Io {
                program: program(),
                source,
            });
        }
        let mut err = Vec::new();
        let (mut written, mut exited) = (0, false);
        while !(exited && stdout.is_none() && stderr.is_none()) {
            let now = Instant::now();
            if now >= deadline {
                if exited {
                    // Only an escaped grandchild holds the pipes now: what came is all.
                    break;
                }
                kill_and_reap(&mut child);
                return Err(ProcessError::Timeout {
                    program: program(),
                    after: limits.deadline,
                });
            }
            let mut set = [
                entry(stdin.as_ref().map(AsRawFd::as_raw_fd), libc::POLLOUT),
                entry(stdout.as_ref().map(AsRawFd::as_raw_fd), libc::POLLIN),
                entry(stderr.as_ref().map(AsRawFd::as_raw_fd), libc::POLLIN),
                entry((!exited).then(|| pidfd.as_raw_fd()), libc::POLLIN),
            ];
            match poll(&mut set, deadline - now) {
                Ok(()) => {}
                Err(source) if source.kind() == std::io::ErrorKind::Interrupted => continue,
                Err(source) => {
                    kill_and_reap(&mut child);
                    return Err(ProcessError::Io {
                        program: program(),
                        source,
                    });
                }
            }
            let fired = |i: usize| set[i].revents != 0;
            if fired(0)
                && let Some(pipe) = stdin.as_mut()
                && write_some(pipe, &input, &mut written)
            {
                stdin = None;
            }
            if fired(1)
                && let Some(pipe) = stdout.as_mut()
            {
                match feed(pipe, consumer) {
                    Fed::Open => {}
                    Fed::Done => stdout = None,
                    Fed::Stop => {
                        return Ok(stopped(&mut child, stderr.as_mut(), err, limits.stderr_cap));
                    }
                }
            }
            if fired(2)
                && let Some(pipe) = stderr.as_mut()
                && drain(pipe, &mut err, limits.stderr_cap)
            {
                stderr = None;
            }
            if fired(3) {
                exited = true;
                stdin = None;
                // Its pipes close unless a grandchild escaped the process group; kill the
                // group anyway so that they do.
                kill_group(&child);
            }
        }
        drop((stdin, stdout, stderr));
        Ok(Ended {
            status: Some(reap(&mut child, &program())?),
            stderr: err,
        })
    }

    /// Ends a child whose consumer wants no more: the group is killed and reaped, and what
    /// stderr holds by now is kept (up to `cap`) for the message.
    fn stopped(
        child: &mut Child,
        stderr: Option<&mut impl Read>,
        mut err: Vec<u8>,
        cap: usize,
    ) -> Ended {
        kill_and_reap(child);
        if let Some(pipe) = stderr {
            drain(pipe, &mut err, cap);
        }
        Ended {
            status: None,
            stderr: err,
        }
    }

    /// One record of the poll set: `fd` watched for `events`, or no descriptor (-1, which
    /// poll skips) once that pipe is closed or the exit was seen.
    fn entry(fd: Option<RawFd>, events: libc::c_short) -> libc::pollfd {
        libc::pollfd {
            fd: fd.unwrap_or(-1),
            events,
            revents: 0,
        }
    }

    /// Waits until a record of `set` is ready or `left` has passed.
    #[allow(unsafe_code)] // one poll call, SAFETY below
    fn poll(set: &mut [libc::pollfd], left: Duration) -> std::io::Result<()> {
        // Rounded up, so that a wait never ends just short of the deadline.
        let wait = left.as_millis().saturating_add(1);
        let wait = i32::try_from(wait).unwrap_or(i32::MAX);
        // SAFETY: `set` is a live array of `set.len()` pollfd records; negative
        // descriptors are ignored by poll.
        let ready = unsafe { libc::poll(set.as_mut_ptr(), set.len() as libc::nfds_t, wait) };
        if ready < 0 {
            return Err(std::io::Error::last_os_error());
        }
        Ok(())
    }

    /// Writes what the child's stdin takes now of `input[*written..]`; `true` once the input
    /// has ended. A child that stops reading (or exits) ends the input: its answer, or its
    /// exit, is what counts.
    fn write_some(pipe: &mut impl Write, input: &[u8], written: &mut usize) -> bool {
        match pipe.write(&input[*written..]) {
            Ok(n) => *written += n,
            Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => {}
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(_) => *written = input.len(),
        }
        *written >= input.len()
    }
}

fn kill_and_reap(child: &mut Child) {
    kill_group(child);
    let _ = child.kill();
    let _ = child.wait();
}

#[cfg(unix)]
#[allow(unsafe_code)] // one libc call, SAFETY below
fn kill_group(child: &Child) {
    if let Ok(pid) = i32::try_from(child.id()) {
        // SAFETY: kill(2) with a negative pid signals the process group we created for this
        // child at spawn (process_group(0) makes its pgid equal to its pid).
        unsafe {
            libc::kill(-pid, libc::SIGKILL);
        }
    }
}

#[cfg(not(unix))]
fn kill_group(_child: &Child) {}

#[cfg(test)]
mod tests {
    use super::*;

    fn sh(script: &str) -> Command {
        let mut c = Command::new("sh");
        c.arg("-c").arg(script);
        c
    }

    #[test]
    fn success_captures_both_streams() {
        let out = run(
            sh("echo out; echo err >&2"),
            None,
            Limits::new(Duration::from_secs(5), 1024),
        )
        .unwrap();
        assert_eq!(out.stdout, b"out\n");
        assert_eq!(out.stderr, b"err\n");
    }

    #[test]
    fn stdin_is_delivered() {
        let out = run(
            Command::new("cat"),
            Some(b"hello".to_vec()),
            Limits::new(Duration::from_secs(5), 1024),
        )
        .unwrap();
        assert_eq!(out.stdout, b"hello");
    }

    #[test]
    fn large_stdin_flows_while_stdout_is_read() {
        // Far more than a pipe holds, both ways at once: neither side may wait for the other.
        let input: Vec<u8> = (0..3 << 20).map(|i: u32| (i % 251) as u8).collect();
        let out = run(
            Command::new("cat"),
            Some(input.clone()),
            Limits::new(Duration::from_secs(10), 4 << 20),
        )
        .unwrap();
        assert!(out.stdout == input, "{} bytes back", out.stdout.len());
        // A child that never reads its input still finishes.
        let out = run(
            sh("echo done"),
            Some(input),
            Limits::new(Duration::from_secs(10), 1024),
        )
        .unwrap();
        assert_eq!(out.stdout, b"done\n");
    }

    #[test]
    fn non_zero_exit_is_typed_with_stderr() {
        let err = run(
            sh("echo boom >&2; exit 3"),
            None,
            Limits::new(Duration::from_secs(5), 1024),
        )
        .unwrap_err();
        match err {
            ProcessError::Exit { code, stderr, .. } => {
                assert_eq!(code, 3);
                assert_eq!(stderr, b"boom\n");
            }
            other => panic!("unexpected {other:?}"),
        }
    }

    #[test]
    fn deadline_kills_the_whole_group() {
        let start = Instant::now();
        let err = run(
            sh("sleep 30 & sleep 30"),
            None,
            Limits::new(Duration::from_millis(200), 1024),
        )
        .unwrap_err();
        assert!(matches!(err, ProcessError::Timeout { .. }), "{err:?}");
        assert!(start.elapsed() < Duration::from_secs(5));
    }

    #[test]
    fn flood_is_too_large() {
        let err = run(
            sh("yes"),
            None,
            Limits::new(Duration::from_secs(10), 64 * 1024),
        )
        .unwrap_err();
        assert!(matches!(err, ProcessError::TooLarge { .. }), "{err:?}");
    }

    /// Exit status (`None`: stopped), stdout, stderr.
    type Threaded = (Option<ExitStatus>, Vec<u8>, Vec<u8>);

    /// Runs `cmd` the threaded way (the only way off Linux), collecting stdout up to `cap`.
    fn threaded_run(
        mut cmd: Command,
        stdin: Option<Vec<u8>>,
        limits: Limits,
    ) -> Result<Threaded, ProcessError> {
        cmd.stdin(if stdin.is_some() {
            Stdio::piped()
        } else {
            Stdio::null()
        })
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
        #[cfg(unix)]
        {
            use std::os::unix::process::CommandExt;
            cmd.process_group(0);
        }
        let child = cmd.spawn().unwrap();
        let mut consumer = Consumer::Collect {
            buf: Vec::new(),
            cap: limits.stdout_cap,
        };
        let ended = threaded(
            child,
            stdin,
            limits,
            std::path::Path::new("sh"),
            Instant::now(),
            &mut consumer,
        )?;
        let Consumer::Collect { buf, .. } = consumer else {
            return Ok((ended.status, Vec::new(), ended.stderr));
        };
        Ok((ended.status, buf, ended.stderr))
    }

    #[test]
    fn the_threaded_way_has_the_same_outcomes() {
        let limits = Limits::new(Duration::from_secs(10), 1024);
        let (status, out, err) =
            threaded_run(sh("echo out; echo err >&2; exit 3"), None, limits).unwrap();
        assert_eq!(status.and_then(|s| s.code()), Some(3));
        assert_eq!(
            (out.as_slice(), err.as_slice()),
            (&b"out\n"[..], &b"err\n"[..])
        );
        let input: Vec<u8> = (0..3 << 20).map(|i: u32| (i % 251) as u8).collect();
        let big = Limits::new(Duration::from_secs(10), 4 << 20);
        let (status, out, _) = threaded_run(Command::new("cat"), Some(input.clone()), big).unwrap();
        assert!(status.is_some_and(|s| s.success()));
        assert!(out == input, "{} bytes back", out.len());
        // A flood stops at the cap (no status: stopped), a sleeper at the deadline.
        let flood = Limits::new(Duration::from_secs(10), 64 * 1024);
        let (status, out, _) = threaded_run(sh("yes"), None, flood).unwrap();
        assert!(status.is_none());
        assert_eq!(out.len(), 64 * 1024);
        let start = Instant::now();
        let slow = Limits::new(Duration::from_millis(200), 1024);
        let err = threaded_run(sh("sleep 30 & sleep 30"), None, slow).unwrap_err();
        assert!(matches!(err, ProcessError::Timeout { .. }), "{err:?}");
        assert!(start.elapsed() < Duration::from_secs(5));
    }

    #[test]
    fn a_stream_goes_to_the_sink_and_the_sink_may_stop_it() {
        let limits = Limits::new(Duration::from_secs(10), 16);
        // All of it, past the collecting cap, chunk by chunk.
        let mut seen = Vec::new();
        let mut sink = |chunk: &[u8]| {
            seen.extend_from_slice(chunk);
            true
        };
        let done = run_streaming(sh("seq 1 20000"), None, limits, &mut sink).unwrap();
        assert!(!done.stopped);
        let want: String = (1..=20000).map(|i| format!("{i}\n")).collect();
        assert!(seen == want.as_bytes(), "{} bytes", seen.len());
        // A sink that has enough ends an endless child early, and that is no error.
        let mut taken = 0;
        let mut sink = |chunk: &[u8]| {
            taken += chunk.len();
            taken < 100_000
        };
        let start = Instant::now();
        let stopped = run_streaming(sh("yes"), None, limits, &mut sink).unwrap();
        assert!(stopped.stopped && taken >= 100_000);
        assert!(start.elapsed() < Duration::from_secs(5));
        // A failure is still one.
        let mut sink = |_: &[u8]| true;
        let err = run_streaming(sh("echo x; exit 2"), None, limits, &mut sink).unwrap_err();
        assert!(matches!(err, ProcessError::Exit { code: 2, .. }), "{err:?}");
    }

    #[test]
    fn a_fast_child_is_seen_as_soon_as_it_exits() {
        // With the exit watched, the wait ends on the child's exit, not on a timer tick: a
        // hundred runs of a trivial program take far less than a hundred 5 ms naps.
        let start = Instant::now();
        for _ in 0..100 {
            run(
                sh("exit 0"),
                None,
                Limits::new(Duration::from_secs(10), 1024),
            )
            .unwrap();
        }
        // Loose bound (loaded CI): the point is that a lost wake-up would cost the deadline.
        assert!(
            start.elapsed() < Duration::from_secs(8),
            "{:?}",
            start.elapsed()
        );
    }

    #[test]
    fn missing_program_is_not_found() {
        let err = run(
            Command::new("/nonexistent/jev-preflight-no-such-program"),
            None,
            Limits::new(Duration::from_secs(1), 1024),
        )
        .unwrap_err();
        assert!(matches!(err, ProcessError::NotFound { .. }), "{err:?}");
    }

    #[test]
    fn signal_is_typed() {
        let err = run(
            sh("kill -9 $$"),
            None,
            Limits::new(Duration::from_secs(5), 1024),
        )
        .unwrap_err();
        assert!(
            matches!(err, ProcessError::Signal { signal: 9, .. }),
            "{err:?}"
        );
    }
}
