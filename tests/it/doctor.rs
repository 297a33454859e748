//! `doctor` tells the truth: for every store and configuration reason the hook fails open
//! with, doctor — run in the same environment — reports a problem naming the same failure
//! class, with a fix that points at the place holding the bad value. And when doctor finds
//! nothing, the hook runs a whole turn without failing.

use std::path::Path;
use std::process::Output;

use serde_json::json;

use crate::support::TestRepo;
use crate::support::hook::{HookEnv, event, with};

fn repo() -> TestRepo {
    let repo = TestRepo::new();
    repo.write("src/lib.rs", "pub fn f() -> u32 {\n    1\n}\n");
    repo.commit_all("init");
    repo
}

fn doctor(env: &HookEnv, dir: &Path) -> (i32, String) {
    let out: Output = env.command(&["doctor"]).current_dir(dir).output().unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
    )
}

/// The failure class of the first event of a turn that fails open (prompt, then Stop after
/// an edit), or `None` when the whole turn ran.
fn hook_class(env: &HookEnv, repo: &TestRepo, session: &str) -> Option<String> {
    let prompt = env.run(&event("UserPromptSubmit", session, "p1", repo.path()));
    prompt.ok();
    if let Some(class) = prompt.class() {
        return Some(class);
    }
    repo.write(
        "src/lib.rs",
        format!("pub fn f() -> u32 {{\n    2 // {session}\n}}\n"),
    );
    let stop = env.run(&with(
        event("Stop", session, "p1", repo.path()),
        json!({"stop_hook_active": false}),
    ));
    stop.ok();
    stop.class()
}

/// The hook fails open with `class`, and doctor reports a problem led by the same class on
/// the line of check `name`, with a fix containing `fix`. Returns doctor's report.
fn same_verdict(env: &HookEnv, repo: &TestRepo, name: &str, class: &str, fix: &str) -> String {
    let (code, report) = doctor(env, repo.path());
    assert_eq!(
        hook_class(env, repo, class).as_deref(),
        Some(class),
        "the hook\n{report}"
    );
    assert_eq!(code, 1, "{report}");
    let line = report
        .lines()
        .position(|l| l.starts_with(&format!("  FAIL  {name:<13} {class}: ")))
        .unwrap_or_else(|| panic!("no `{name}` failure naming {class}:\n{report}"));
    let next = report.lines().nth(line + 1).unwrap_or_default();
    assert!(
        next.trim_start().starts_with("fix: ") && next.contains(fix),
        "fix of {class} should mention {fix:?}:\n{report}"
    );
    // The hook's own hint sends the user to doctor for this class.
    let notice = env
        .run(&event(
            "UserPromptSubmit",
            &format!("{class}-2"),
            "p1",
            repo.path(),
        ))
        .notice()
        .unwrap_or_default();
    assert!(
        notice.is_empty()
            || notice.contains("jev-preflight doctor")
            || notice.contains("JEV_PREFLIGHT_SCORER=local"),
        "{notice}"
    );
    report
}

#[test]
fn a_healthy_setup_is_healthy_for_both() {
    let env = HookEnv::new();
    let repo = repo();
    let (code, report) = doctor(&env, repo.path());
    assert_eq!(code, 0, "{report}");
    assert!(report.ends_with("no problems found\n"), "{report}");
    assert_eq!(hook_class(&env, &repo, "s"), None);
    // Every supported host is listed, from the one list of hosts.
    for host in jev_preflight::host::ALL {
        assert!(
            report.contains(&format!("  {:<13} ", host.name())),
            "{} missing:\n{report}",
            host.name()
        );
    }
}

#[test]
fn a_data_dir_under_a_regular_file() {
    let mut env = HookEnv::new();
    let file = env.root.path().join("a-file");
    std::fs::write(&file, "x").unwrap();
    env.set("CLAUDE_PLUGIN_DATA", file.join("data").to_str().unwrap());
    let report = same_verdict(
        &env,
        &repo(),
        "data dir",
        "store_io",
        "`CLAUDE_PLUGIN_DATA`",
    );
    assert!(report.contains("Not a directory"), "{report}");
    assert_eq!(std::fs::read_to_string(&file).unwrap(), "x");
}

#[test]
fn a_data_dir_that_is_a_file() {
    let env = HookEnv::new();
    std::fs::write(&env.data, "not a dir").unwrap();
    same_verdict(
        &env,
        &repo(),
        "data dir",
        "store_unsafe",
        "private directory",
    );
    assert_eq!(std::fs::read_to_string(&env.data).unwrap(), "not a dir");
}

#[test]
fn a_data_dir_owned_by_another_user() {
    use std::os::unix::fs::MetadataExt;
    let env = HookEnv::new();
    std::fs::create_dir(&env.data).unwrap();
    // Only root can give a directory away; elsewhere the case cannot be set up.
    if std::fs::metadata(&env.data).unwrap().uid() != 0 {
        return;
    }
    std::os::unix::fs::chown(&env.data, Some(65534), Some(65534)).unwrap();
    let report = same_verdict(
        &env,
        &repo(),
        "data dir",
        "store_unsafe",
        "`CLAUDE_PLUGIN_DATA`",
    );
    assert!(report.contains("is owned by another user"), "{report}");
}

#[test]
fn a_data_dir_full_of_someone_elses_files() {
    let env = HookEnv::new();
    std::fs::create_dir(&env.data).unwrap();
    std::fs::write(env.data.join("precious.txt"), "x").unwrap();
    same_verdict(&env, &repo(), "data dir", "store_foreign", "empty");
    assert_eq!(std::fs::read_dir(&env.data).unwrap().count(), 1);
}

#[test]
fn a_repository_cache_that_cannot_be_made() {
    let env = HookEnv::new();
    let repo = repo();
    // A healthy store whose `repos` is a file: the prompt cannot make its tree cache.
    assert_eq!(doctor(&env, repo.path()).0, 0);
    let repos = env.data.join("repos");
    std::fs::remove_dir_all(&repos).unwrap();
    std::fs::write(&repos, "x").unwrap();
    same_verdict(&env, &repo, "data dir", "store_unsafe", "private directory");
}

#[test]
fn an_invalid_repository_config() {
    let env = HookEnv::new();
    let repo = repo();
    repo.write(".jev-preflight.json", r#"{"mode": "loud"}"#);
    let top = std::fs::canonicalize(repo.path()).unwrap();
    same_verdict(
        &env,
        &repo,
        "repo config",
        "config_invalid",
        &format!(
            "edit `{}` at `mode`",
            top.join(".jev-preflight.json").display()
        ),
    );
    // Both names of the threshold in one file: the error names both.
    repo.write(
        ".jev-preflight.json",
        r#"{"threshold": 0.9, "riskThreshold": 0.85}"#,
    );
    let report = same_verdict(
        &env,
        &repo,
        "repo config",
        "config_invalid",
        "at `threshold` and `riskThreshold`",
    );
    assert!(report.contains("keep one"), "{report}");
}

#[test]
fn an_invalid_user_config_file() {
    let env = HookEnv::new();
    let file = env.config_home.join("jev-preflight/config.json");
    std::fs::create_dir_all(file.parent().unwrap()).unwrap();
    std::fs::write(&file, r#"{"scorer": "local", "bogus": 1}"#).unwrap();
    same_verdict(
        &env,
        &repo(),
        "user config",
        "user_config_invalid",
        &format!("edit the user config file `{}`", file.display()),
    );
}

#[test]
fn a_bad_scorer_choice_names_the_place_that_set_it() {
    let repo = repo();
    // The environment variable.
    let env = HookEnv::new().var("JEV_PREFLIGHT_SCORER", "nope");
    let report = same_verdict(
        &env,
        &repo,
        "user config",
        "user_config_invalid",
        "the environment variable `JEV_PREFLIGHT_SCORER`",
    );
    assert!(!report.contains("init --force"), "{report}");
    // The plugin's userConfig option, which wins over the variable.
    let env = HookEnv::new()
        .var("CLAUDE_PLUGIN_OPTION_SCORER", "nope")
        .var("JEV_PREFLIGHT_SCORER", "local");
    let report = same_verdict(
        &env,
        &repo,
        "user config",
        "user_config_invalid",
        "the plugin's `scorer` option",
    );
    assert!(!report.contains("JEV_PREFLIGHT_SCORER`"), "{report}");
    // The user config file.
    a_bad_user_config_file_is_named(&repo, r#"{"scorer": "nope"}"#);
}

/// A user config file holding `setting`: the hook and doctor both blame that file.
fn a_bad_user_config_file_is_named(repo: &TestRepo, setting: &str) {
    let env = HookEnv::new();
    let file = env.config_home.join("jev-preflight/config.json");
    std::fs::create_dir_all(file.parent().unwrap()).unwrap();
    std::fs::write(&file, setting).unwrap();
    same_verdict(
        &env,
        repo,
        "user config",
        "user_config_invalid",
        &format!("edit the user config file `{}`", file.display()),
    );
}

#[test]
fn a_bad_memory_or_budget_setting_names_the_place_that_set_it() {
    let repo = repo();
    for (var, value) in [
        ("JEV_PREFLIGHT_MEMORY_DAYS", "31"),
        ("JEV_PREFLIGHT_REMOTE_MAX_PER_DAY", "lots"),
        ("JEV_PREFLIGHT_OVER_BUDGET", "wait"),
    ] {
        let env = HookEnv::new().var(var, value);
        let report = same_verdict(
            &env,
            &repo,
            "user config",
            "user_config_invalid",
            &format!("the environment variable `{var}`"),
        );
        assert!(!report.contains("user config file"), "{report}");
    }
    for setting in [
        r#"{"memoryDays": 99}"#,
        r#"{"remoteMaxPerSession": 2000000}"#,
    ] {
        a_bad_user_config_file_is_named(&repo, setting);
    }
}

#[test]
fn a_scorer_that_cannot_be_built() {
    let env = HookEnv::new().var("JEV_PREFLIGHT_SCORER", "jev");
    same_verdict(
        &env,
        &repo(),
        "scorer",
        "missing_key",
        "JEV_PREFLIGHT_SCORER=local",
    );
    let env = HookEnv::new().var("JEV_PREFLIGHT_SCORER", "command");
    same_verdict(&env, &repo(), "scorer", "scorer_config", "JEV_PREFLIGHT_");
}
