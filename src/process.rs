//! Runs one child process with a deadline, capped output and a typed outcome.
//!
//! Every program jev-preflight starts (git, a user's scorer command) goes through [`run`]:
//! stdin is either null or a buffer written from its own thread, stdout and stderr are read
//! concurrently into capped buffers, and a child that outlives its deadline or floods its
//! output is killed together with its process group and reaped.

use std::io::{Read, Write};
use std::path::PathBuf;
use std::process::{Child, Command, ExitStatus, Stdio};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError, Sender};
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

/// Runs `cmd` to completion under `limits`, feeding it `stdin` (or the null device).
///
/// On unix the child gets its own process group so that a kill reaches whatever it started
/// (a shell script's `sleep`, a pager) and no grandchild keeps our pipes open.
pub fn run(
    mut cmd: Command,
    stdin: Option<Vec<u8>>,
    limits: Limits,
) -> Result<Output, ProcessError> {
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
    let mut child = cmd.spawn().map_err(|source| {
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
        return polled::run(child, pidfd, stdin, limits, program, start);
    }

    if let (Some(input), Some(mut pipe)) = (stdin, child.stdin.take()) {
        // A child that never reads its stdin must not block us: write from a thread and
        // ignore a broken pipe (the child's answer, or its exit, is what counts).
        thread::spawn(move || {
            let _ = pipe.write_all(&input);
        });
    }

    let overflow = Arc::new(AtomicBool::new(false));
    // Woken when the child exits or stdout overflows, so nothing waits on a timer.
    let (wake, woken) = mpsc::channel();
    let out_reader = spawn_reader(
        child.stdout.take(),
        limits.stdout_cap,
        Some((overflow.clone(), wake.clone())),
    );
    let err_reader = spawn_reader(child.stderr.take(), limits.stderr_cap, None);
    let watching = watch_exit(&child, wake);

    let status = match wait_until(
        &mut child,
        start + limits.deadline,
        &overflow,
        watching.then_some(&woken),
    ) {
        Ok(Some(status)) => status,
        Ok(None) => {
            kill_and_reap(&mut child);
            return Err(if overflow.load(Ordering::SeqCst) {
                ProcessError::TooLarge {
                    program,
                    cap: limits.stdout_cap,
                }
            } else {
                ProcessError::Timeout {
                    program,
                    after: limits.deadline,
                }
            });
        }
        Err(source) => {
            kill_and_reap(&mut child);
            return Err(ProcessError::Io { program, source });
        }
    };

    // The child has exited. Its pipes close unless a grandchild escaped the process group;
    // kill the group anyway so the readers finish promptly.
    kill_group(&child);
    let stdout = join_reader(out_reader);
    let stderr = join_reader(err_reader);
    if overflow.load(Ordering::SeqCst) {
        return Err(ProcessError::TooLarge {
            program,
            cap: limits.stdout_cap,
        });
    }
    finish(program, status, stdout, stderr, start.elapsed())
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

type Reader = Option<JoinHandle<Vec<u8>>>;

fn spawn_reader<R: Read + Send + 'static>(
    pipe: Option<R>,
    cap: usize,
    overflow: Option<(Arc<AtomicBool>, Sender<bool>)>,
) -> Reader {
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
                    // stderr keeps draining past its cap so the child never blocks on a
                    // full pipe; stdout past its cap is the too-large outcome.
                    if n > room
                        && let Some((flag, wake)) = &overflow
                    {
                        flag.store(true, Ordering::SeqCst);
                        let _ = wake.send(true);
                        break;
                    }
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
/// stays ours to reap with `try_wait`), then sends `true` on `wake` (`false`: it could not
/// watch, poll instead). Returns `false` when no such thread could be started.
#[cfg(unix)]
#[allow(unsafe_code)] // two libc calls, SAFETY below
fn watch_exit(child: &Child, wake: Sender<bool>) -> bool {
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
                    let _ = wake.send(true);
                    break;
                }
                if std::io::Error::last_os_error().kind() != std::io::ErrorKind::Interrupted {
                    // Cannot watch this child: tell the waiter to poll.
                    let _ = wake.send(false);
                    break;
                }
            }
        })
        .is_ok()
}

#[cfg(not(unix))]
fn watch_exit(_child: &Child, _wake: Sender<bool>) -> bool {
    false
}

/// Waits until the child exits (Some), the deadline passes or stdout overflows (None).
/// With `woken`, sleeps until told that one of those happened; without it, polls.
fn wait_until(
    child: &mut Child,
    deadline: Instant,
    overflow: &AtomicBool,
    woken: Option<&Receiver<bool>>,
) -> std::io::Result<Option<ExitStatus>> {
    // Short first naps keep fast git calls fast; the cap keeps a long wait cheap.
    let mut nap = Duration::from_micros(50);
    loop {
        if let Some(status) = child.try_wait()? {
            return Ok(Some(status));
        }
        if overflow.load(Ordering::SeqCst) {
            return Ok(None);
        }
        let now = Instant::now();
        if now >= deadline {
            return Ok(None);
        }
        match woken {
            Some(rx) => match rx.recv_timeout(deadline - now) {
                Ok(true) | Err(RecvTimeoutError::Timeout) => {}
                // The watcher could not wait, or every sender is gone: poll.
                Ok(false) | Err(RecvTimeoutError::Disconnected) => {
                    return wait_until(child, deadline, overflow, None);
                }
            },
            None => {
                thread::sleep(nap.min(deadline - now));
                nap = (nap * 2).min(Duration::from_millis(5));
            }
        }
    }
}

/// On Linux one thread does it all: the pipes and the child's exit (a pidfd) are polled
/// together, so a call starts no helper thread — each of the four it took cost a spawn and a
/// wake-up, about a third of a millisecond per git call on a busy machine. The outcomes are
/// those of the threaded way: capped stdout, drained stderr, the group killed once the child
/// exits, at the deadline, or when stdout overflows.
#[cfg(target_os = "linux")]
mod polled {
    use std::io::{Read, Write};
    use std::os::fd::{AsRawFd, FromRawFd, OwnedFd, RawFd};
    use std::path::PathBuf;
    use std::process::Child;
    use std::time::Instant;

    use super::{Limits, Output, ProcessError, finish, kill_and_reap, kill_group};

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
    /// past `cap` are counted in `over` and dropped.
    fn drain(pipe: &mut impl Read, buf: &mut Vec<u8>, cap: usize, over: &mut bool) -> bool {
        let mut chunk = [0u8; 16 * 1024];
        loop {
            match pipe.read(&mut chunk) {
                Ok(0) => return true,
                Ok(n) => {
                    let room = cap.saturating_sub(buf.len());
                    buf.extend_from_slice(&chunk[..n.min(room)]);
                    if n > room {
                        *over = true;
                    }
                }
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => return false,
                Err(_) => return true,
            }
        }
    }

    #[allow(unsafe_code)] // one poll call, SAFETY below
    pub(super) fn run(
        mut child: Child,
        pidfd: OwnedFd,
        input: Option<Vec<u8>>,
        limits: Limits,
        program: PathBuf,
        start: Instant,
    ) -> Result<Output, ProcessError> {
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
        for fd in fds.into_iter().flatten() {
            if let Err(source) = set_nonblocking(fd) {
                kill_and_reap(&mut child);
                return Err(ProcessError::Io { program, source });
            }
        }
        let (mut out, mut err) = (Vec::new(), Vec::new());
        let (mut written, mut exited, mut overflow, mut err_over) = (0, false, false, false);
        while !(exited && stdout.is_none() && stderr.is_none()) {
            let now = Instant::now();
            if now >= deadline {
                if exited {
                    // Only an escaped grandchild holds the pipes now: what came is all.
                    break;
                }
                kill_and_reap(&mut child);
                return Err(ProcessError::Timeout {
                    program,
                    after: limits.deadline,
                });
            }
            let entry = |fd: Option<RawFd>, events| libc::pollfd {
                fd: fd.unwrap_or(-1),
                events,
                revents: 0,
            };
            let mut set = [
                entry(stdin.as_ref().map(AsRawFd::as_raw_fd), libc::POLLOUT),
                entry(stdout.as_ref().map(AsRawFd::as_raw_fd), libc::POLLIN),
                entry(stderr.as_ref().map(AsRawFd::as_raw_fd), libc::POLLIN),
                entry((!exited).then(|| pidfd.as_raw_fd()), libc::POLLIN),
            ];
            // Rounded up, so that a wait never ends just short of the deadline.
            let wait = (deadline - now).as_millis().saturating_add(1);
            let wait = i32::try_from(wait).unwrap_or(i32::MAX);
            // SAFETY: `set` is a live array of `set.len()` pollfd records; negative
            // descriptors are ignored by poll.
            let ready = unsafe { libc::poll(set.as_mut_ptr(), set.len() as libc::nfds_t, wait) };
            if ready < 0 {
                let source = std::io::Error::last_os_error();
                if source.kind() == std::io::ErrorKind::Interrupted {
                    continue;
                }
                kill_and_reap(&mut child);
                return Err(ProcessError::Io { program, source });
            }
            let fired = |i: usize| set[i].revents != 0;
            if fired(0)
                && let Some(pipe) = stdin.as_mut()
            {
                // A child that stops reading (or exits) ends the input: its answer, or its
                // exit, is what counts.
                match pipe.write(&input[written..]) {
                    Ok(n) => written += n,
                    Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => {}
                    Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                    Err(_) => written = input.len(),
                }
                if written >= input.len() {
                    stdin = None;
                }
            }
            if fired(1)
                && let Some(pipe) = stdout.as_mut()
            {
                if drain(pipe, &mut out, limits.stdout_cap, &mut overflow) {
                    stdout = None;
                }
                if overflow {
                    kill_and_reap(&mut child);
                    return Err(ProcessError::TooLarge {
                        program,
                        cap: limits.stdout_cap,
                    });
                }
            }
            if fired(2)
                && let Some(pipe) = stderr.as_mut()
                && drain(pipe, &mut err, limits.stderr_cap, &mut err_over)
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
        let status = match child.wait() {
            Ok(status) => status,
            Err(source) => return Err(ProcessError::Io { program, source }),
        };
        finish(program, status, out, err, start.elapsed())
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

    #[test]
    fn the_polling_wait_still_works() {
        let mut child = sh("exit 3").spawn().unwrap();
        let flag = AtomicBool::new(false);
        let deadline = Instant::now() + Duration::from_secs(10);
        let status = wait_until(&mut child, deadline, &flag, None)
            .unwrap()
            .unwrap();
        assert_eq!(status.code(), Some(3));
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
