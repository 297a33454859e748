//! The `command` backend with scripts of our own: one that answers, hangs, floods, fails.

#![cfg(unix)]

use jev_preflight::hook::failure::Class;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use jev_preflight::scorer::command::CommandScorer;
use jev_preflight::scorer::jev::request_body;
use jev_preflight::scorer::{ScoreError, Scorer, Scores};

use crate::scorer_jev::{reply_with, sample_payload};

struct Scripts {
    dir: tempfile::TempDir,
}

impl Scripts {
    fn new() -> Scripts {
        Scripts {
            dir: tempfile::tempdir().unwrap(),
        }
    }

    /// Writes a `/bin/sh` script and returns its path.
    fn script(&self, name: &str, body: &str) -> PathBuf {
        let path = self.dir.path().join(name);
        std::fs::write(&path, format!("#!/bin/sh\n{body}\n")).unwrap();
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
        path
    }

    fn path(&self, name: &str) -> PathBuf {
        self.dir.path().join(name)
    }
}

/// `sh <script> <args…>`: the script is run by `sh` rather than exec'd directly, because
/// exec'ing a file just written while other test threads fork can fail with `ETXTBSY`.
/// The arguments still reach the script verbatim; our side runs no shell.
fn argv(script: &Path, args: &[&str]) -> Vec<String> {
    ["/bin/sh".to_owned(), script.to_string_lossy().into_owned()]
        .into_iter()
        .chain(args.iter().map(|a| (*a).to_owned()))
        .collect()
}

fn run(argv: &[String], budget: Duration) -> Result<Scores, ScoreError> {
    CommandScorer::new(argv, None)
        .unwrap()
        .score(&sample_payload(), budget)
}

const BUDGET: Duration = Duration::from_secs(5);

#[test]
fn a_script_that_answers_gets_the_request_and_is_read() {
    let s = Scripts::new();
    let reply = s.path("reply.json");
    std::fs::write(&reply, reply_with([0.1, 0.9, 0.0, 1.0, 0.2, 0.3, 0.4, 0.5])).unwrap();
    let seen = s.path("stdin.json");
    let args = s.path("args.txt");
    let cwd = s.path("cwd.txt");
    let marker = s.path("pwned");
    let program = s.script(
        "answer",
        &format!(
            "cat > '{}'\nprintf '%s\\n' \"$@\" > '{}'\npwd > '{}'\ncat '{}'",
            seen.display(),
            args.display(),
            cwd.display(),
            reply.display()
        ),
    );
    // Arguments reach the program as they are: no shell expands them.
    let hostile = format!("$(touch {})", marker.display());
    let scores = run(&argv(&program, &["--flag", &hostile, "a b; c"]), BUDGET).unwrap();
    assert_eq!(scores.values, [0.1, 0.9, 0.0, 1.0, 0.2, 0.3, 0.4, 0.5]);
    assert_eq!(scores.model.as_deref(), Some("jev-2026-11"));

    // stdin carried exactly the Jev request body.
    let expected = request_body(&sample_payload(), "jev-latest").unwrap();
    assert_eq!(std::fs::read_to_string(&seen).unwrap(), expected);
    assert_eq!(
        std::fs::read_to_string(&args).unwrap(),
        format!("--flag\n{hostile}\na b; c\n")
    );
    assert!(!marker.exists(), "an argument was run through a shell");
    // It runs outside the repository, in the temp dir.
    let ran_in = std::fs::read_to_string(&cwd).unwrap();
    assert_eq!(
        Path::new(ran_in.trim()).canonicalize().unwrap(),
        std::env::temp_dir().canonicalize().unwrap()
    );
}

#[test]
fn a_script_that_hangs_is_killed_at_the_deadline() {
    let s = Scripts::new();
    let program = s.script("hang", "sleep 30");
    let start = Instant::now();
    let e = run(&argv(&program, &[]), Duration::from_millis(300)).unwrap_err();
    assert_eq!(Class::from(&e), "timeout");
    assert!(
        start.elapsed() < Duration::from_secs(3),
        "{:?}",
        start.elapsed()
    );
}

#[test]
fn a_script_that_never_reads_stdin_and_hangs_still_times_out() {
    let s = Scripts::new();
    let program = s.script("deaf", "exec sleep 30 < /dev/null");
    let e = run(&argv(&program, &[]), Duration::from_millis(300)).unwrap_err();
    assert_eq!(Class::from(&e), "timeout");
}

#[test]
fn a_script_that_floods_stdout_is_cut_off() {
    let s = Scripts::new();
    let program = s.script("flood", "cat > /dev/null; yes '{\"answers\":{}}'");
    let start = Instant::now();
    let e = run(&argv(&program, &[]), BUDGET).unwrap_err();
    assert_eq!(Class::from(&e), "response_too_large");
    assert!(start.elapsed() < Duration::from_secs(3));
}

#[test]
fn a_script_that_exits_non_zero_is_command_failed() {
    let s = Scripts::new();
    let program = s.script(
        "fail",
        &format!(
            "cat > /dev/null; echo 'model unavailable' >&2; printf '%s' '{}'; exit 3",
            reply_with([0.5; 8])
        ),
    );
    let e = run(&argv(&program, &[]), BUDGET).unwrap_err();
    assert_eq!(Class::from(&e), "command_failed");
    let text = e.to_string();
    assert!(text.contains("status 3"), "{text}");
    assert!(text.contains("model unavailable"), "{text}");
}

#[test]
fn a_script_killed_by_a_signal_is_command_failed() {
    let s = Scripts::new();
    let program = s.script("killed", "kill -9 $$");
    let e = run(&argv(&program, &[]), BUDGET).unwrap_err();
    assert_eq!(Class::from(&e), "command_failed");
}

#[test]
fn a_missing_program_is_command_failed() {
    let e = run(&["/nonexistent/jev-preflight-scorer".to_owned()], BUDGET).unwrap_err();
    assert_eq!(Class::from(&e), "command_failed");
    assert!(e.to_string().contains("not found"), "{e}");
}

#[test]
fn output_that_breaks_the_contract_is_invalid_response() {
    let s = Scripts::new();
    let good = reply_with([0.5; 8]);
    let cases = [
        ("nothing", String::new()),
        ("prose", "I think yes".to_owned()),
        ("trailing", format!("{good}\nDone.")),
        ("out of range", good.replacen("0.5", "1.5", 1)),
        (
            "missing axes",
            r#"{"answers":{"auth_boundary":{"noul":0.9}}}"#.to_owned(),
        ),
    ];
    for (name, out) in cases {
        let file = s.path(&format!("{}.out", name.replace(' ', "_")));
        std::fs::write(&file, &out).unwrap();
        let program = s.script(
            &format!("say_{}", name.replace(' ', "_")),
            &format!("cat > /dev/null; cat '{}'", file.display()),
        );
        let e = run(&argv(&program, &[]), BUDGET).unwrap_err();
        assert_eq!(Class::from(&e), "invalid_response", "{name}: {e}");
    }
}

#[test]
fn an_empty_argv_is_a_config_error() {
    for argv in [vec![], vec![String::new()]] {
        let e = CommandScorer::new(&argv, None).unwrap_err();
        assert_eq!(Class::from(&e), "scorer_config");
    }
}
