//! Driving the built binary as a hook: a clean environment with a fake HOME, XDG dirs and
//! plugin data dir, an event on stdin, and assertions on what came back. Also a minimal
//! loopback Jev endpoint on top of the shared test server.

use std::collections::BTreeMap;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::{Arc, Mutex};

use serde_json::{Value, json};

use super::http::{Request, Response, TestServer};
use super::{GIT_ENV, binary};

/// A clean environment for hook runs; everything lives in one temp dir.
pub struct HookEnv {
    pub root: tempfile::TempDir,
    pub data: PathBuf,
    pub home: PathBuf,
    pub config_home: PathBuf,
    vars: BTreeMap<String, String>,
}

impl HookEnv {
    pub fn new() -> HookEnv {
        let root = tempfile::Builder::new()
            .prefix("jev-hook-env")
            .tempdir()
            .unwrap();
        let home = root.path().join("home");
        let config_home = root.path().join("config");
        let data = root.path().join("plugin-data");
        std::fs::create_dir_all(&home).unwrap();
        std::fs::create_dir_all(&config_home).unwrap();
        let mut vars = BTreeMap::new();
        vars.insert("PATH".into(), std::env::var("PATH").unwrap_or_default());
        vars.insert("HOME".into(), home.to_string_lossy().into_owned());
        vars.insert(
            "XDG_CONFIG_HOME".into(),
            config_home.to_string_lossy().into_owned(),
        );
        vars.insert(
            "XDG_STATE_HOME".into(),
            root.path().join("state").to_string_lossy().into_owned(),
        );
        vars.insert(
            "CLAUDE_PLUGIN_DATA".into(),
            data.to_string_lossy().into_owned(),
        );
        for (k, v) in GIT_ENV {
            vars.insert((*k).into(), (*v).into());
        }
        HookEnv {
            root,
            data,
            home,
            config_home,
            vars,
        }
    }

    pub fn var(mut self, key: &str, value: &str) -> HookEnv {
        self.set(key, value);
        self
    }

    pub fn set(&mut self, key: &str, value: &str) {
        self.vars.insert(key.into(), value.into());
    }

    pub fn unset(&mut self, key: &str) {
        self.vars.remove(key);
    }

    /// Uses the loopback Jev server with `key`.
    pub fn jev(self, server: &JevServer, key: &str) -> HookEnv {
        self.var("JEV_PREFLIGHT_JEV_URL", &server.url())
            .var("TYPESAFE_API_KEY", key)
    }

    /// Starts a hook call.
    pub fn hook(&self) -> HookCall<'_> {
        HookCall {
            env: self,
            stdin: Vec::new(),
            args: vec!["hook".into()],
        }
    }

    /// Runs one event.
    pub fn run(&self, event: &Value) -> HookResult {
        self.hook().event(event).run()
    }

    /// A prepared command (for concurrency tests that spawn by hand).
    pub fn command(&self, args: &[&str]) -> Command {
        let mut cmd = Command::new(binary());
        cmd.args(args)
            .env_clear()
            .envs(&self.vars)
            .current_dir(self.root.path());
        cmd
    }

    /// Every file under the data dir with its bytes (for scans and cleanliness checks).
    pub fn data_files(&self) -> Vec<(PathBuf, Vec<u8>)> {
        fn walk(dir: &Path, out: &mut Vec<(PathBuf, Vec<u8>)>) {
            let Ok(rd) = std::fs::read_dir(dir) else {
                return;
            };
            for e in rd.flatten() {
                let p = e.path();
                let ft = e.file_type().unwrap();
                if ft.is_dir() {
                    walk(&p, out);
                } else if ft.is_file() {
                    out.push((p.clone(), std::fs::read(&p).unwrap_or_default()));
                } else {
                    out.push((p, Vec::new()));
                }
            }
        }
        let mut out = Vec::new();
        walk(&self.data, &mut out);
        out
    }

    /// The newest entry of the decision log.
    pub fn last_decision(&self) -> Value {
        let log = std::fs::read_to_string(self.data.join("decisions.jsonl")).unwrap();
        serde_json::from_str(log.lines().last().unwrap()).unwrap()
    }

    /// No prompt content is left: no private snapshot dir anywhere in the store.
    pub fn assert_no_content(&self) {
        let leftovers: Vec<PathBuf> = self
            .data_files()
            .into_iter()
            .map(|(p, _)| p)
            .filter(|p| p.components().any(|c| c.as_os_str() == "snap"))
            .collect();
        assert!(
            leftovers.is_empty(),
            "prompt content left in the store: {leftovers:#?}"
        );
    }
}

/// One hook invocation being built.
pub struct HookCall<'a> {
    env: &'a HookEnv,
    stdin: Vec<u8>,
    args: Vec<String>,
}

impl HookCall<'_> {
    pub fn event(mut self, event: &Value) -> Self {
        self.stdin = event.to_string().into_bytes();
        self
    }

    pub fn stdin(mut self, bytes: impl Into<Vec<u8>>) -> Self {
        self.stdin = bytes.into();
        self
    }

    pub fn arg(mut self, arg: &str) -> Self {
        self.args.push(arg.into());
        self
    }

    fn spawn(&self) -> std::process::Child {
        let args: Vec<&str> = self.args.iter().map(String::as_str).collect();
        self.env
            .command(&args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap()
    }

    /// Writes the input and keeps stdin open, never closing it while the hook runs; fails the
    /// test (after killing the hook) when it has not exited within `limit`. How long it ran,
    /// and what it printed.
    pub fn run_with_stdin_open(
        self,
        limit: std::time::Duration,
    ) -> (std::time::Duration, HookResult) {
        use std::io::Read;
        let started = std::time::Instant::now();
        let mut child = self.spawn();
        let mut stdin = child.stdin.take().unwrap();
        stdin.write_all(&self.stdin).unwrap();
        stdin.flush().unwrap();
        let status = loop {
            if let Some(status) = child.try_wait().unwrap() {
                break status;
            }
            if started.elapsed() > limit {
                let _ = child.kill();
                panic!("the hook was still waiting on stdin after {limit:?}");
            }
            std::thread::sleep(std::time::Duration::from_millis(20));
        };
        let elapsed = started.elapsed();
        let (mut stdout, mut stderr) = (String::new(), String::new());
        child
            .stdout
            .take()
            .unwrap()
            .read_to_string(&mut stdout)
            .unwrap();
        child
            .stderr
            .take()
            .unwrap()
            .read_to_string(&mut stderr)
            .unwrap();
        drop(stdin);
        let result = HookResult {
            code: status.code(),
            stdout,
            stderr,
        };
        (elapsed, result)
    }

    pub fn run(self) -> HookResult {
        let mut child = self.spawn();
        let mut stdin = child.stdin.take().unwrap();
        let input = self.stdin;
        let writer = std::thread::spawn(move || {
            let _ = stdin.write_all(&input);
        });
        let out = child.wait_with_output().unwrap();
        let _ = writer.join();
        HookResult {
            code: out.status.code(),
            stdout: String::from_utf8(out.stdout).expect("stdout is UTF-8"),
            stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
        }
    }
}

/// What one hook run produced.
#[derive(Debug, Clone)]
pub struct HookResult {
    pub code: Option<i32>,
    pub stdout: String,
    pub stderr: String,
}

impl HookResult {
    /// Exit 0, stdout empty or exactly one JSON object, at least one stderr line.
    pub fn ok(&self) -> &HookResult {
        assert_eq!(self.code, Some(0), "exit code; stderr: {}", self.stderr);
        if !self.stdout.trim().is_empty() {
            let mut de = serde_json::Deserializer::from_str(&self.stdout).into_iter::<Value>();
            let first = de.next().expect("one value").expect("valid JSON on stdout");
            assert!(first.is_object(), "stdout is an object: {}", self.stdout);
            assert!(
                de.next().is_none(),
                "exactly one JSON value on stdout: {}",
                self.stdout
            );
        }
        assert!(!self.stderr.trim().is_empty(), "a stderr line");
        self
    }

    pub fn json(&self) -> Option<Value> {
        (!self.stdout.trim().is_empty()).then(|| serde_json::from_str(&self.stdout).unwrap())
    }

    /// The text the agent is asked to act on, if the answer continues the agent.
    pub fn continuation(&self) -> Option<String> {
        let v = self.json()?;
        v["hookSpecificOutput"]["additionalContext"]
            .as_str()
            .or(v["reason"].as_str().filter(|_| v["decision"] == "block"))
            .map(str::to_owned)
    }

    /// The message shown to the user, if any.
    pub fn notice(&self) -> Option<String> {
        self.json()?["systemMessage"].as_str().map(str::to_owned)
    }

    /// The outcome from the stderr line (`jev-preflight: <event>: <outcome>`).
    pub fn outcome(&self) -> String {
        self.stderr
            .lines()
            .rev()
            .find_map(|l| l.strip_prefix("jev-preflight: "))
            .and_then(|l| l.split_once(": ").map(|(_, o)| o.to_owned()))
            .unwrap_or_default()
    }

    /// The failure class from the stderr line (`jev-preflight: <event>: <class>: …`).
    pub fn class(&self) -> Option<String> {
        let line = self
            .stderr
            .lines()
            .find(|l| l.starts_with("jev-preflight: "))?;
        let mut parts = line.splitn(4, ": ");
        parts.next();
        parts.next();
        let class = parts.next()?;
        parts.next().map(|_| class.to_owned())
    }
}

/// A hook event for `cwd`.
pub fn event(name: &str, session: &str, prompt: &str, cwd: &Path) -> Value {
    json!({
        "session_id": session,
        "prompt_id": prompt,
        "transcript_path": "/nonexistent/transcript.jsonl",
        "cwd": cwd,
        "permission_mode": "default",
        "hook_event_name": name,
    })
}

pub fn with(mut event: Value, extra: Value) -> Value {
    for (k, v) in extra.as_object().unwrap() {
        event[k] = v.clone();
    }
    event
}

/// A Jev-shaped answer giving `auth` to `auth_boundary` and `rest` to every other axis.
pub fn jev_answer(auth: f64, rest: f64) -> String {
    let ids = jev_preflight::pipeline::axes::AXIS_IDS;
    let answers: serde_json::Map<String, Value> = ids
        .iter()
        .map(|id| {
            (
                id.to_string(),
                json!({"noul": if *id == "auth_boundary" { auth } else { rest }}),
            )
        })
        .collect();
    json!({"answers": answers, "model": "jev-test-1"}).to_string()
}

/// A loopback Jev endpoint answering every request with a status and body the test can
/// change; requests are counted and recorded by the shared [`TestServer`].
pub struct JevServer {
    inner: TestServer,
    reply: Arc<Mutex<(u16, String)>>,
}

impl JevServer {
    pub fn start(status: u16, body: &str) -> JevServer {
        let reply = Arc::new(Mutex::new((status, body.to_owned())));
        let r = reply.clone();
        let inner = TestServer::start(move |_, _| {
            let (status, body) = r.lock().unwrap().clone();
            Response::json(status, body)
        });
        JevServer { inner, reply }
    }

    pub fn url(&self) -> String {
        self.inner.url("/v1/systemone")
    }

    pub fn requests(&self) -> usize {
        self.inner.hits()
    }

    pub fn seen(&self) -> Vec<Request> {
        self.inner.requests()
    }

    pub fn set_reply(&self, status: u16, body: &str) {
        *self.reply.lock().unwrap() = (status, body.to_owned());
    }
}

/// Every entry under `dir` with its size, mode, mtime and a hash of its bytes, sorted: two
/// equal inventories mean nothing was written, touched or re-moded.
pub fn inventory(dir: &Path) -> Vec<String> {
    use std::os::unix::fs::MetadataExt;
    fn walk(root: &Path, dir: &Path, out: &mut Vec<String>) {
        let Ok(rd) = std::fs::read_dir(dir) else {
            return;
        };
        for e in rd.flatten() {
            let p = e.path();
            let m = std::fs::symlink_metadata(&p).unwrap();
            let digest = if m.is_file() {
                let bytes = std::fs::read(&p).unwrap_or_default();
                format!(
                    "{:x}",
                    sha2::Digest::finalize(<sha2::Sha256 as sha2::Digest>::new_with_prefix(&bytes))
                )
            } else {
                String::new()
            };
            out.push(format!(
                "{} {} {:o} {}.{} {digest}",
                p.strip_prefix(root).unwrap().display(),
                m.len(),
                m.mode(),
                m.mtime(),
                m.mtime_nsec()
            ));
            if m.is_dir() {
                walk(root, &p, out);
            }
        }
    }
    let mut out = Vec::new();
    walk(dir, dir, &mut out);
    out.sort();
    out
}
