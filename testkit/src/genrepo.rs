//! The benches' generated repository (N tracked files in nested dirs, some staged,
//! M modified and K untracked at baseline, and a small turn to apply and undo), hermetic git,
//! the floors every figure is compared with (`git status --porcelain` and `git add -A` into a
//! copied index), and medians.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use crate::GIT_ENV;

/// A hermetic git command in `dir`: cleared environment, `HOME` pointing at `home`.
pub fn git_cmd(dir: &Path, home: &Path) -> Command {
    let mut cmd = Command::new("git");
    cmd.current_dir(dir).env_clear();
    cmd.env("PATH", std::env::var_os("PATH").unwrap_or_default());
    cmd.env("HOME", home);
    for (k, v) in GIT_ENV {
        cmd.env(k, v);
    }
    cmd
}

/// Runs git and panics with its stderr when it fails.
pub fn git(dir: &Path, home: &Path, args: &[&str]) -> Vec<u8> {
    let out = git_cmd(dir, home)
        .args(["-c", "gc.auto=0", "-c", "maintenance.auto=false"])
        .args(args)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "git {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    out.stdout
}

/// The shape of a generated repository.
#[derive(Debug, Clone, Copy)]
pub struct Spec {
    /// Tracked files, committed.
    pub files: usize,
    /// Leaf directories, three levels deep, the files spread evenly over them.
    pub leaf_dirs: usize,
    /// Tracked files with a staged change at baseline.
    pub staged: usize,
    /// Tracked files with an unstaged change at baseline.
    pub modified: usize,
    /// Untracked files at baseline.
    pub untracked: usize,
}

impl Spec {
    /// A repository of `files` files, about 50 per leaf directory, with 1% of the files (at
    /// least 10, at most 100) modified and as many untracked at baseline, and one staged.
    pub fn sized(files: usize) -> Spec {
        let changed = (files / 100).clamp(10, 100);
        Spec {
            files,
            leaf_dirs: files.div_ceil(50).max(1),
            staged: 1,
            modified: changed,
            untracked: changed,
        }
    }
}

/// A generated repository in a temp dir, with a fake `HOME` next to it.
pub struct GenRepo {
    pub tmp: tempfile::TempDir,
    pub root: PathBuf,
    pub home: PathBuf,
    pub spec: Spec,
    turn_paths: Vec<PathBuf>,
    originals: Vec<Vec<u8>>,
    /// The scratch dirs of [`GenRepo::add_sample`], removed by [`GenRepo::drop_scratch`].
    scratch: std::cell::RefCell<Vec<tempfile::TempDir>>,
}

/// Name of the file the turn adds.
pub const TURN_NEW_FILE: &str = "new-in-turn.rs";

impl GenRepo {
    /// Writes, commits and packs `spec.files` files of 20 lines each, then makes the
    /// baseline changes (staged, modified, untracked).
    pub fn generate(spec: Spec) -> GenRepo {
        let tmp = tempfile::Builder::new()
            .prefix("jev-bench")
            .tempdir()
            .unwrap();
        let root = tmp.path().join("repo");
        let home = tmp.path().join("home");
        std::fs::create_dir_all(&root).unwrap();
        std::fs::create_dir_all(&home).unwrap();
        git(&root, &home, &["init", "-q", "-b", "main"]);
        let mut repo = GenRepo {
            tmp,
            root,
            home,
            spec,
            turn_paths: Vec::new(),
            originals: Vec::new(),
            scratch: Default::default(),
        };
        for n in 0..spec.files {
            let path = repo.file(n);
            if n % repo.per_dir() == 0 {
                std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            }
            let body: String = (0..20).map(|i| format!("file {n} line {i}\n")).collect();
            std::fs::write(path, body).unwrap();
        }
        repo.git(&["add", "-A"]);
        repo.git(&["commit", "-q", "-m", "generated"]);
        repo.git(&["gc", "-q"]);

        for i in 0..spec.staged {
            let p = repo.file(1 + i);
            append(&p, "staged\n");
            repo.git(&["add", "--", p.to_str().unwrap()]);
        }
        for i in 0..spec.modified {
            append(
                &repo.file(spread(spec.files / 2, i, spec.files)),
                "unstaged\n",
            );
        }
        for i in 0..spec.untracked {
            let dir = repo.file(spread(0, i, spec.files));
            let dir = dir.parent().unwrap();
            std::fs::write(dir.join(format!("untracked-at-baseline-{i}.txt")), "u\n").unwrap();
        }

        repo.turn_paths = vec![
            repo.file(7 % spec.files),
            repo.file(spec.files / 3),
            repo.file(spec.files - 2),
        ];
        repo.originals = repo
            .turn_paths
            .iter()
            .map(|p| std::fs::read(p).unwrap())
            .collect();
        repo
    }

    fn per_dir(&self) -> usize {
        self.spec.files.div_ceil(self.spec.leaf_dirs)
    }

    /// Path of tracked file `n`.
    pub fn file(&self, n: usize) -> PathBuf {
        let d = n / self.per_dir();
        self.root.join(format!(
            "d{}/e{}/f{}/file{n}.txt",
            d / 100,
            (d / 10) % 10,
            d % 10
        ))
    }

    /// Hermetic git in the repository.
    pub fn git(&self, args: &[&str]) -> Vec<u8> {
        git(&self.root, &self.home, args)
    }

    pub fn git_cmd(&self) -> Command {
        git_cmd(&self.root, &self.home)
    }

    /// The agent's turn: three tracked files edited, one file added.
    pub fn turn(&self) {
        for p in &self.turn_paths {
            append(p, "turn edit\n");
        }
        std::fs::write(
            self.root.join(TURN_NEW_FILE),
            "pub fn added(input: &str) -> usize {\n    input.len()\n}\n",
        )
        .unwrap();
    }

    /// Commits everything in the tree (the baseline changes, or a turn), as a user who
    /// commits between prompts does.
    pub fn commit_all(&self, message: &str) {
        self.git(&["add", "-A"]);
        self.git(&["-c", "gc.auto=0", "commit", "-q", "-m", message]);
    }

    /// A turn that is committed afterwards instead of undone, as issue 16 measured it: the
    /// same three files get one more line each, and nothing is added (the dirty scenario's
    /// [`GenRepo::turn`] adds a file too).
    pub fn turn_kept(&self) {
        for p in &self.turn_paths {
            append(p, "turn edit\n");
        }
    }

    /// Restores the tree as it was before [`GenRepo::turn`].
    pub fn undo(&self) {
        for (p, body) in self.turn_paths.iter().zip(&self.originals) {
            std::fs::write(p, body).unwrap();
        }
        let _ = std::fs::remove_file(self.root.join(TURN_NEW_FILE));
    }

    /// One run of `git status --porcelain`, read-only like the hook: `GIT_OPTIONAL_LOCKS=0`
    /// keeps it from rewriting the index to refresh stat data, which would add an index write
    /// (tens of ms at 100k files) to the floor.
    pub fn status_sample(&self) -> Sample {
        let mut cmd = self.git_cmd();
        cmd.env("GIT_OPTIONAL_LOCKS", "0")
            .args(["status", "--porcelain"]);
        let (out, sample) = timed(|| cmd.output().unwrap());
        assert!(out.status.success());
        sample
    }

    /// One run of `git add -A` into a copy of the index, writing objects into a fresh temp
    /// directory (`GIT_OBJECT_DIRECTORY`), as the snapshot engine writes. No alternate: git
    /// freshens (touches the mtime of) any object it is asked to write that it finds in an
    /// alternate, so pointing the write at the real store as an alternate would touch it. The
    /// copy and the temp dir are made outside the timing. The temp dir, with the blobs `git add`
    /// wrote, is kept until [`GenRepo::drop_scratch`]: removing hundreds of files right before
    /// the next hook runs would load the file system's journal under that hook's own writes.
    pub fn add_sample(&self) -> Sample {
        let scratch = tempfile::Builder::new()
            .prefix("jev-bench-add")
            .tempdir()
            .unwrap();
        let index = scratch.path().join("index");
        let objects = scratch.path().join("objects");
        std::fs::copy(self.root.join(".git/index"), &index).unwrap();
        std::fs::create_dir(&objects).unwrap();
        let mut cmd = self.git_cmd();
        cmd.env("GIT_INDEX_FILE", &index)
            .env("GIT_OBJECT_DIRECTORY", &objects)
            .args(["-c", "gc.auto=0", "add", "-A"]);
        let (out, sample) = timed(|| cmd.output().unwrap());
        assert!(
            out.status.success(),
            "git add -A: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        self.scratch.borrow_mut().push(scratch);
        sample
    }

    /// Removes the scratch dirs [`GenRepo::add_sample`] kept.
    pub fn drop_scratch(&self) {
        self.scratch.borrow_mut().clear();
    }

    /// Median wall time of [`GenRepo::status_sample`] over `rounds` runs.
    pub fn status_floor(&self, rounds: usize) -> Duration {
        median_of(rounds, || self.status_sample().wall)
    }

    /// Median wall time of [`GenRepo::add_sample`] over `rounds` runs.
    pub fn add_floor(&self, rounds: usize) -> Duration {
        median_of(rounds, || self.add_sample().wall)
    }
}

/// What one run of a process cost.
#[derive(Debug, Clone, Copy, Default)]
pub struct Sample {
    /// Wall time from spawn to exit.
    pub wall: Duration,
    /// User + system CPU time of the process and every descendant it waited for; far less
    /// sensitive than wall time to other work on a shared machine.
    pub cpu: Duration,
}

/// User + system CPU time of every child of this process that has been waited for (and of
/// their waited-for descendants).
#[allow(unsafe_code)] // one libc call, SAFETY below
pub fn children_cpu() -> Duration {
    // SAFETY: getrusage writes one `rusage` into the pointer it is given and has no other
    // preconditions.
    let usage = unsafe {
        let mut usage: libc::rusage = std::mem::zeroed();
        libc::getrusage(libc::RUSAGE_CHILDREN, &mut usage);
        usage
    };
    let tv = |t: libc::timeval| Duration::new(t.tv_sec as u64, t.tv_usec as u32 * 1000);
    tv(usage.ru_utime) + tv(usage.ru_stime)
}

/// Runs `f`, which spawns and waits for one child, and measures its wall and CPU time. The
/// benches wait for their children one at a time, so the difference in [`children_cpu`] is
/// that child's.
pub fn timed<T>(f: impl FnOnce() -> T) -> (T, Sample) {
    let cpu = children_cpu();
    let start = Instant::now();
    let out = f();
    let wall = start.elapsed();
    (
        out,
        Sample {
            wall,
            cpu: children_cpu().saturating_sub(cpu),
        },
    )
}

/// Index `base + i * p` modulo `n` for a prime stride `p`, so consecutive `i` land in
/// different directories and never repeat while `i < n`.
fn spread(base: usize, i: usize, n: usize) -> usize {
    (base + i * 7919) % n
}

pub fn append(path: &Path, text: &str) {
    let mut body = std::fs::read(path).unwrap();
    body.extend_from_slice(text.as_bytes());
    std::fs::write(path, body).unwrap();
}

pub fn median(mut v: Vec<Duration>) -> Duration {
    assert!(!v.is_empty(), "median of nothing");
    v.sort();
    v[v.len() / 2]
}

/// Runs `f` `rounds` times (at least once) and returns the median of what it measured.
pub fn median_of(rounds: usize, mut f: impl FnMut() -> Duration) -> Duration {
    median((0..rounds.max(1)).map(|_| f()).collect())
}

pub fn ms(d: Duration) -> String {
    format!("{:.1} ms", d.as_secs_f64() * 1000.0)
}

pub fn us(d: Duration) -> String {
    format!("{:.0} µs", d.as_secs_f64() * 1e6)
}

/// `a / b` as a ratio.
pub fn ratio(a: Duration, b: Duration) -> f64 {
    a.as_secs_f64() / b.as_secs_f64()
}

/// The 1-, 5- and 15-minute load averages, as `/proc/loadavg` prints them.
pub fn load_average() -> String {
    std::fs::read_to_string("/proc/loadavg")
        .map(|s| s.split_whitespace().take(3).collect::<Vec<_>>().join(" "))
        .unwrap_or_else(|_| "unknown".into())
}

/// Whether `--quick` was passed.
pub fn quick() -> bool {
    std::env::args().any(|a| a == "--quick")
}

/// A `git` that records each call it serves, for counting the git processes a hook starts:
/// the bench binary itself, run again as `git` through a symbolic link put first on `PATH`.
/// Per call it logs the subcommand, the wall time of the real git it ran, and — when asked
/// and `strace` is installed — the bytes that git read or mapped from files (`read(2)`,
/// `pread(2)` and file-backed `mmap(2)`, shared libraries and `/dev` left out).
pub struct GitShim {
    dir: tempfile::TempDir,
    log: PathBuf,
    real: PathBuf,
}

/// One git call the shim served.
#[derive(Debug, Clone)]
pub struct GitCall {
    pub command: String,
    pub wall: Duration,
    pub bytes: Option<u64>,
}

const SHIM_LOG: &str = "JEV_BENCH_SHIM_LOG";
const SHIM_REAL: &str = "JEV_BENCH_SHIM_REAL_GIT";
const SHIM_STRACE: &str = "JEV_BENCH_SHIM_STRACE";

impl GitShim {
    /// `None` when there is no git on `PATH` to stand in for.
    pub fn new() -> Option<GitShim> {
        let real = find_on_path("git")?;
        let dir = tempfile::Builder::new()
            .prefix("jev-bench-shim")
            .tempdir()
            .ok()?;
        let bin = dir.path().join("bin");
        std::fs::create_dir(&bin).ok()?;
        std::os::unix::fs::symlink(std::env::current_exe().ok()?, bin.join("git")).ok()?;
        let log = dir.path().join("log");
        Some(GitShim { dir, log, real })
    }

    /// The variables a hook process needs to go through the shim; with `bytes`, each call
    /// runs under `strace` (not for timing: tracing is slow).
    pub fn vars(&self, bytes: bool) -> Vec<(String, String)> {
        let path = format!(
            "{}:{}",
            self.dir.path().join("bin").display(),
            std::env::var("PATH").unwrap_or_default()
        );
        let mut vars = vec![
            ("PATH".to_owned(), path),
            (SHIM_LOG.to_owned(), self.log.display().to_string()),
            (SHIM_REAL.to_owned(), self.real.display().to_string()),
        ];
        if bytes && let Some(strace) = find_on_path("strace") {
            vars.push((SHIM_STRACE.to_owned(), strace.display().to_string()));
        }
        vars
    }

    /// The calls served since the last `take`, in the order they finished.
    pub fn take(&self) -> Vec<GitCall> {
        let text = std::fs::read_to_string(&self.log).unwrap_or_default();
        let _ = std::fs::remove_file(&self.log);
        text.lines()
            .filter_map(|l| {
                let mut f = l.split('\t');
                let command = f.next()?.to_owned();
                let wall = Duration::from_micros(f.next()?.parse().ok()?);
                let bytes = f.next().and_then(|b| b.parse().ok());
                Some(GitCall {
                    command,
                    wall,
                    bytes,
                })
            })
            .collect()
    }
}

/// When this process was started as the [`GitShim`], runs the real git, logs the call and
/// exits with git's status; otherwise returns at once. Call it first thing in `main`.
pub fn serve_as_git_shim() {
    let Some(log) = std::env::var_os(SHIM_LOG) else {
        return;
    };
    let real = std::env::var_os(SHIM_REAL).expect("the shim knows the real git");
    let args: Vec<std::ffi::OsString> = std::env::args_os().skip(1).collect();
    // The subcommand: the first argument that is neither an option nor a `-c` value.
    let mut command = String::from("?");
    let mut skip = false;
    for a in &args {
        let a = a.to_string_lossy();
        if skip {
            skip = false;
        } else if a == "-c" {
            skip = true;
        } else if !a.starts_with('-') {
            command = a.into_owned();
            break;
        }
    }
    let trace = std::env::var_os(SHIM_STRACE).map(|strace| {
        let file = PathBuf::from(&log).with_extension(format!("trace.{}", std::process::id()));
        (strace, file)
    });
    let mut cmd = match &trace {
        Some((strace, file)) => {
            let mut c = Command::new(strace);
            c.args(["-f", "-qq", "-y", "-e", "trace=read,pread64,mmap"])
                .args(["-e", "signal=none", "-o"])
                .arg(file)
                .arg(&real);
            c
        }
        None => Command::new(&real),
    };
    cmd.args(&args);
    let start = Instant::now();
    let status = cmd.status().expect("run the real git");
    let wall = start.elapsed();
    let bytes = trace.map(|(_, file)| {
        let text = std::fs::read_to_string(&file).unwrap_or_default();
        let _ = std::fs::remove_file(&file);
        file_bytes_read(&text).to_string()
    });
    let line = format!(
        "{command}\t{}\t{}\n",
        wall.as_micros(),
        bytes.unwrap_or_else(|| "-".into())
    );
    use std::io::Write;
    if let Ok(mut f) = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(&log)
    {
        let _ = f.write_all(line.as_bytes());
    }
    std::process::exit(status.code().unwrap_or(1));
}

/// Bytes read or mapped from files in an `strace -f -y` log of `read`, `pread64` and `mmap`.
fn file_bytes_read(trace: &str) -> u64 {
    let mut pending: std::collections::HashMap<&str, &str> = Default::default();
    let mut total = 0u64;
    for line in trace.lines() {
        let Some((pid, rest)) = line.split_once(' ') else {
            continue;
        };
        let rest = rest.trim_start();
        if let Some(start) = rest.strip_suffix(" <unfinished ...>") {
            pending.insert(pid, start);
            continue;
        }
        let joined;
        let call = if let Some(tail) = rest.strip_prefix("<... ") {
            let Some(start) = pending.remove(pid) else {
                continue;
            };
            let Some((_, after)) = tail.split_once("resumed>") else {
                continue;
            };
            joined = format!("{start}{after}");
            joined.as_str()
        } else {
            rest
        };
        let Some((name, args)) = call.split_once('(') else {
            continue;
        };
        let file_path = |arg: &str| -> Option<String> {
            let path = arg.trim().split_once('<')?.1.strip_suffix('>')?.to_owned();
            let counted = path.starts_with('/')
                && !path.starts_with("/dev/")
                && !path.contains(".so")
                && !path.ends_with("ld.so.cache");
            counted.then_some(path)
        };
        match name {
            "read" | "pread64" => {
                let fd = args.split(',').next().unwrap_or_default();
                let ret = call.rsplit(" = ").next().and_then(|r| {
                    r.split_whitespace()
                        .next()
                        .and_then(|n| n.parse::<u64>().ok())
                });
                if let (Some(_), Some(n)) = (file_path(fd), ret) {
                    total += n;
                }
            }
            "mmap" => {
                let parts: Vec<&str> = args.splitn(6, ',').collect();
                if parts.len() == 6
                    && file_path(parts[4]).is_some()
                    && let Ok(len) = parts[1].trim().parse::<u64>()
                {
                    total += len;
                }
            }
            _ => {}
        }
    }
    total
}

/// The first executable file named `name` on `PATH`.
pub fn find_on_path(name: &str) -> Option<PathBuf> {
    use std::os::unix::fs::PermissionsExt;
    std::env::split_paths(&std::env::var_os("PATH")?)
        .map(|d| d.join(name))
        .find(|p| {
            std::fs::metadata(p).is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
        })
}
