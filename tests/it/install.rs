//! `install` / `uninstall`: hooks registered in real settings files in temp dirs, user
//! formatting kept, round trips byte-identical, broken files refused and left alone.

use std::fs;
use std::path::{Path, PathBuf};

use jev_preflight::cmd::install::{self, Action, EditError, InstallError, legacy_backup_path};
use jev_preflight::host::{HookFile, Host, Scope};
use serde_json::{Value, json};

/// The shape of `host`'s project hooks file.
fn file(host: Host) -> HookFile {
    host.hook_file(&Scope::Project { root: "/".into() })
}

const PROGRAM: &str = "/opt/jev tools/bin/jev-preflight";

struct Project {
    dir: tempfile::TempDir,
    /// The data dir, outside the project: install keeps its undo records there.
    data: tempfile::TempDir,
}

impl Project {
    fn new() -> Project {
        Project {
            dir: tempfile::Builder::new()
                .prefix("jev-install")
                .tempdir()
                .unwrap(),
            data: tempfile::Builder::new()
                .prefix("jev-install-data")
                .tempdir()
                .unwrap(),
        }
    }

    /// The data dir's `install/`, where install keeps what undoes it.
    fn undo(&self) -> PathBuf {
        self.data.path().join("install")
    }

    /// `install` of `host`'s own hook file at `path`, with this project's undo record.
    fn install(&self, host: Host, path: &Path) -> Result<install::Outcome, InstallError> {
        install::install(host, file(host), path, program(), &self.undo())
    }

    /// `uninstall`, the same way.
    fn uninstall(&self, host: Host, path: &Path) -> Result<install::Outcome, InstallError> {
        install::uninstall(host, file(host), path, program(), &self.undo())
    }

    fn settings(&self, host: Host) -> PathBuf {
        host.settings_path(&Scope::Project {
            root: self.dir.path().to_owned(),
        })
    }

    fn write(&self, host: Host, bytes: &[u8]) -> PathBuf {
        let path = self.settings(host);
        fs::create_dir_all(path.parent().unwrap()).unwrap();
        fs::write(&path, bytes).unwrap();
        path
    }

    /// Every file under the project with its bytes, to prove a refusal wrote nothing.
    fn inventory(&self) -> Vec<(PathBuf, Vec<u8>)> {
        let mut out = Vec::new();
        let mut stack = vec![self.dir.path().to_owned()];
        while let Some(dir) = stack.pop() {
            for entry in fs::read_dir(dir).unwrap() {
                let path = entry.unwrap().path();
                if path.is_dir() {
                    stack.push(path);
                } else {
                    let bytes = fs::read(&path).unwrap();
                    out.push((path, bytes));
                }
            }
        }
        out.sort();
        out
    }
}

fn program() -> &'static Path {
    Path::new(PROGRAM)
}

fn read_json(path: &Path) -> Value {
    serde_json::from_slice(&fs::read(path).unwrap()).unwrap()
}

fn claude_handler(timeout: u64) -> Value {
    json!({"type": "command", "command": PROGRAM, "args": ["hook"], "timeout": timeout})
}

#[test]
fn settings_paths_for_each_host_and_scope() {
    let project = Scope::Project { root: "/p".into() };
    let user = Scope::User {
        home: "/h".into(),
        config_dir: None,
    };
    let overridden = Scope::User {
        home: "/h".into(),
        config_dir: Some("/cfg".into()),
    };
    let cases = [
        (Host::ClaudeCode, &project, "/p/.claude/settings.json"),
        (Host::ClaudeCode, &user, "/h/.claude/settings.json"),
        (Host::ClaudeCode, &overridden, "/cfg/settings.json"),
        (Host::Codex, &project, "/p/.codex/hooks.json"),
        (Host::Codex, &user, "/h/.codex/hooks.json"),
        (Host::Codex, &overridden, "/cfg/hooks.json"),
        (Host::Gemini, &project, "/p/.gemini/settings.json"),
        (Host::Gemini, &user, "/h/.gemini/settings.json"),
        (Host::Gemini, &overridden, "/cfg/settings.json"),
    ];
    for (host, scope, expected) in cases {
        assert_eq!(host.settings_path(scope), PathBuf::from(expected));
    }
    assert_eq!(
        legacy_backup_path(Path::new("/p/.claude/settings.json")),
        PathBuf::from("/p/.claude/settings.json.jev-preflight.bak")
    );
}

#[test]
fn install_creates_a_missing_file_and_directory() {
    let project = Project::new();
    let path = project.settings(Host::ClaudeCode);
    let outcome = project.install(Host::ClaudeCode, &path).unwrap();
    assert_eq!(outcome.action, Action::Created);
    assert_eq!(outcome.backup, None);
    assert_eq!(
        read_json(&path),
        json!({"hooks": {
            "UserPromptSubmit": [{"hooks": [claude_handler(30)]}],
            "Stop": [{"hooks": [claude_handler(60)]}],
            "SessionEnd": [{"hooks": [claude_handler(5)]}],
        }})
    );
    // The key order of a handler is the one people write by hand.
    let text = fs::read_to_string(&path).unwrap();
    let order =
        ["\"type\"", "\"command\"", "\"args\"", "\"timeout\""].map(|k| text.find(k).unwrap());
    assert!(order.is_sorted(), "{text}");
    assert!(text.ends_with("}\n"));

    let outcome = project.uninstall(Host::ClaudeCode, &path).unwrap();
    assert_eq!(outcome.action, Action::Deleted);
    assert!(!path.exists());
    assert!(project.inventory().is_empty());
    // The folder install created went with the file.
    assert!(!path.parent().unwrap().exists());
    assert_eq!(fs::read_dir(project.dir.path()).unwrap().count(), 0);
}

#[test]
fn uninstall_removes_only_the_empty_folders_install_created() {
    for host in jev_preflight::host::ALL {
        // Several levels created (a user scope whose config dir does not exist yet).
        let project = Project::new();
        let scope = Scope::User {
            home: project.dir.path().to_owned(),
            config_dir: Some(project.dir.path().join("a/b/config")),
        };
        let path = host.settings_path(&scope);
        let shape = host.hook_file(&scope);
        install::install(host, shape, &path, program(), &project.undo()).unwrap();
        assert!(path.exists());
        let outcome = install::uninstall(host, shape, &path, program(), &project.undo()).unwrap();
        assert_eq!(outcome.action, Action::Deleted, "{host:?}");
        assert_eq!(
            fs::read_dir(project.dir.path()).unwrap().count(),
            0,
            "{host:?}: {:?}",
            project.inventory()
        );
        // Nothing is kept for a file that is gone.
        assert_eq!(fs::read_dir(project.undo()).unwrap().count(), 0);

        // A folder that was there before install stays, even empty.
        let project = Project::new();
        let path = project.settings(host);
        fs::create_dir_all(path.parent().unwrap()).unwrap();
        project.install(host, &path).unwrap();
        project.uninstall(host, &path).unwrap();
        assert!(path.parent().unwrap().is_dir(), "{host:?}");
        assert!(!path.exists());

        // A folder install created but the user has put something in stays, with it.
        let project = Project::new();
        let path = project.settings(host);
        project.install(host, &path).unwrap();
        let theirs = path.with_file_name("theirs.json");
        fs::write(&theirs, "{}").unwrap();
        project.uninstall(host, &path).unwrap();
        assert!(!path.exists());
        assert_eq!(fs::read(&theirs).unwrap(), b"{}");
    }
}

#[test]
fn a_backup_an_earlier_version_left_beside_the_file_is_used_and_removed() {
    let project = Project::new();
    let original = "{\n  \"model\": \"opus\"\n}\n";
    let host = Host::ClaudeCode;
    let path = project.write(host, original.as_bytes());
    // What an earlier install left: the edited file, and its backup next to it.
    let installed = install::add_hooks(original.as_bytes(), host, file(host), PROGRAM)
        .unwrap()
        .unwrap();
    fs::write(&path, &installed).unwrap();
    let legacy = legacy_backup_path(&path);
    fs::write(&legacy, original).unwrap();
    let outcome = project.uninstall(host, &path).unwrap();
    assert_eq!(outcome.action, Action::Restored);
    assert_eq!(fs::read_to_string(&path).unwrap(), original);
    assert!(!legacy.exists());
    // Installing again over such a leftover removes it too.
    fs::write(&legacy, original).unwrap();
    project.install(host, &path).unwrap();
    assert!(!legacy.exists());
    assert_eq!(project.inventory().len(), 1);
}

#[test]
fn second_install_changes_nothing() {
    let project = Project::new();
    let path = project.write(Host::ClaudeCode, b"{\n  \"model\": \"opus\"\n}\n");
    assert_eq!(
        project.install(Host::ClaudeCode, &path).unwrap().action,
        Action::Added
    );
    let before = project.inventory();
    let outcome = project.install(Host::ClaudeCode, &path).unwrap();
    assert_eq!(outcome.action, Action::AlreadyInstalled);
    assert_eq!(project.inventory(), before);
}

/// Settings files as people really write them.
const ODD_FILES: &[&str] = &[
    "{\n\t\"permissions\": {\n\t\t\"allow\": [\"Bash(ls:*)\"]\n\t},\n\t\"env\": {\"A\": \"1\"}\n}\n",
    "{\n    \"zeta\": 1,\n    \"alpha\": {\"nested\": [1, 2, {\"x\": null}]},\n    \"theme\": \"dark\"\n}",
    "{\"compact\":true,\"list\":[1,2,3]}",
    "{\r\n  \"statusLine\" : {\"type\": \"command\", \"command\": \"echo 🚀 ünïcödé\"}\r\n}\r\n",
    "  {  \"spaced\"  :  \"out\"  }  \n\n",
    "{}",
    "{\n}\n",
    "{\"hooks\": {}}",
    "{\n  \"hooks\": {\n    \"Stop\": []\n  }\n}\n",
    // Other hooks on the same events and on others, which must stay exactly as they are.
    "{\n  \"hooks\": {\n    \"PreToolUse\": [\n      {\n        \"matcher\": \"Bash\",\n        \"hooks\": [{\"type\": \"command\", \"command\": \"guard.sh\"}]\n      }\n    ],\n    \"Stop\": [\n      {\n        \"hooks\": [{\"type\": \"command\", \"command\": \"notify.sh\", \"timeout\": 10}]\n      }\n    ]\n  },\n  \"model\": \"sonnet\"\n}\n",
    "{\"hooks\":{\"UserPromptSubmit\":[{\"hooks\":[{\"type\":\"command\",\"command\":\"log-prompt\"}]}],\"SessionEnd\":[]}}",
];

#[test]
fn install_keeps_every_other_setting_and_uninstall_restores_the_bytes() {
    for original in ODD_FILES {
        for host in [Host::ClaudeCode, Host::Codex, Host::Gemini] {
            let project = Project::new();
            let path = project.write(host, original.as_bytes());
            let before: Value = serde_json::from_str(original).unwrap();

            let outcome = project.install(host, &path).unwrap();
            assert_eq!(outcome.action, Action::Added, "{original:?}");
            // The previous file is kept in the data dir, never beside the settings file.
            let backup = outcome.backup.clone().unwrap();
            assert!(backup.starts_with(project.undo()), "{backup:?}");
            assert_eq!(fs::read(&backup).unwrap(), original.as_bytes());
            assert_eq!(
                project.inventory().len(),
                1,
                "only the settings file in the project"
            );
            let installed = read_json(&path);
            assert_keeps(&before, &installed, original);
            assert_has_our_hooks(host, &installed);

            let outcome = project.uninstall(host, &path).unwrap();
            assert_eq!(outcome.action, Action::Restored, "{original:?}");
            assert_eq!(
                fs::read_to_string(&path).unwrap(),
                *original,
                "{host:?} round trip"
            );
            // Nothing is left to undo, so nothing is kept.
            assert!(!backup.exists());
        }
    }
}

#[test]
fn uninstall_after_the_user_edited_the_file_removes_only_our_hooks() {
    for (i, original) in ODD_FILES.iter().enumerate() {
        let host = Host::ClaudeCode;
        let project = Project::new();
        let path = project.write(host, original.as_bytes());
        project.install(host, &path).unwrap();
        // The user adds a setting after install, at the very start of the file: the backup no
        // longer describes this file, so uninstall has to cut our hooks out of the text.
        let edited = fs::read_to_string(&path).unwrap();
        let brace = edited.find('{').unwrap();
        let edited = format!(
            "{}{{\"userEdit\": 1,{}",
            &edited[..brace],
            &edited[brace + 1..]
        );
        fs::write(&path, &edited).unwrap();

        let outcome = project.uninstall(host, &path).unwrap();
        assert_eq!(outcome.action, Action::Removed, "{original:?}");
        assert_eq!(
            fs::read_to_string(outcome.backup.as_ref().unwrap()).unwrap(),
            edited
        );
        let text = fs::read_to_string(&path).unwrap();
        let mut expected: Value = serde_json::from_str(original).unwrap();
        expected["userEdit"] = json!(1);
        let after: Value = serde_json::from_str(&text).unwrap();
        // Structural removal drops an event list or `hooks` object that our entry emptied.
        let simplify = |mut v: Value| {
            if let Some(hooks) = v.get_mut("hooks").and_then(Value::as_object_mut) {
                hooks.retain(|_, list| list.as_array().is_none_or(|l| !l.is_empty()));
                if hooks.is_empty() {
                    v.as_object_mut().unwrap().remove("hooks");
                }
            }
            v
        };
        assert_eq!(simplify(after), simplify(expected), "{original:?}\n{text}");
        // Where install appended only to non-empty containers, the text is exactly the user's.
        if [0, 1, 2, 3, 4, 9].contains(&i) {
            let mut want = original.to_string();
            let brace = want.find('{').unwrap();
            want.replace_range(brace..=brace, "{\"userEdit\": 1,");
            assert_eq!(text, want, "{original:?}");
        }
    }
}

#[test]
fn install_replaces_a_stale_registration_instead_of_adding_a_second() {
    let project = Project::new();
    let path = project.settings(Host::ClaudeCode);
    install::install(
        Host::ClaudeCode,
        file(Host::ClaudeCode),
        &path,
        Path::new("/old/place/jev-preflight"),
        &project.undo(),
    )
    .unwrap();
    let outcome = project.install(Host::ClaudeCode, &path).unwrap();
    assert_eq!(outcome.action, Action::Added);
    let settings = read_json(&path);
    assert_has_our_hooks(Host::ClaudeCode, &settings);
    assert!(!fs::read_to_string(&path).unwrap().contains("/old/place"));
}

#[test]
fn uninstall_removes_a_handler_from_a_group_it_shares_with_others() {
    let original = format!(
        "{{\n  \"hooks\": {{\n    \"Stop\": [\n      {{\n        \"hooks\": [\n          {{\"type\": \"command\", \"command\": \"notify.sh\"}},\n          {{\"type\": \"command\", \"command\": \"{PROGRAM}\", \"args\": [\"hook\"]}}\n        ]\n      }}\n    ]\n  }}\n}}\n"
    );
    let project = Project::new();
    let path = project.write(Host::ClaudeCode, original.as_bytes());
    let outcome = project.uninstall(Host::ClaudeCode, &path).unwrap();
    assert_eq!(outcome.action, Action::Removed);
    assert_eq!(
        read_json(&path),
        json!({"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "notify.sh"}]}]}})
    );
}

#[test]
fn uninstall_without_our_hooks_writes_nothing() {
    let project = Project::new();
    let path = project.settings(Host::ClaudeCode);
    let outcome = project.uninstall(Host::ClaudeCode, &path).unwrap();
    assert_eq!(outcome.action, Action::NotInstalled);
    assert!(project.inventory().is_empty());

    project.write(Host::ClaudeCode, ODD_FILES[9].as_bytes());
    let before = project.inventory();
    let outcome = project.uninstall(Host::ClaudeCode, &path).unwrap();
    assert_eq!(outcome.action, Action::NotInstalled);
    assert_eq!(project.inventory(), before);
}

#[test]
fn broken_settings_are_refused_and_left_untouched() {
    type Check = fn(&EditError) -> bool;
    let cases: &[(&[u8], Check)] = &[
        (b"{\n  // my settings\n  \"model\": \"opus\"\n}\n", |e| {
            matches!(e, EditError::Comments { line: 2, column: 3 })
        }),
        (b"{\"a\": 1, /* trailing */}", |e| {
            matches!(e, EditError::Comments { .. })
        }),
        (b"{\"a\": 1,}", |e| matches!(e, EditError::Invalid { .. })),
        (b"{\"a\": ", |e| matches!(e, EditError::Invalid { .. })),
        (b"\xef\xbb\xbf{}", |e| {
            matches!(e, EditError::Invalid { .. })
        }),
        (b"{\"a\": \"\xff\"}", |e| matches!(e, EditError::NotUtf8)),
        (
            b"[]",
            |e| matches!(e, EditError::Shape { pointer, found: "an array", .. } if pointer == "/"),
        ),
        (
            b"{\"hooks\": []}",
            |e| matches!(e, EditError::Shape { pointer, .. } if pointer == "/hooks"),
        ),
        (
            b"{\"hooks\": {\"Stop\": {}}}",
            |e| matches!(e, EditError::Shape { pointer, expected: "an array", .. } if pointer == "/hooks/Stop"),
        ),
    ];
    for (bytes, check) in cases {
        let project = Project::new();
        let path = project.write(Host::ClaudeCode, bytes);
        let before = project.inventory();
        let err = project.install(Host::ClaudeCode, &path).unwrap_err();
        match &err {
            InstallError::Settings { path: p, source } => {
                assert_eq!(p, &path);
                assert!(check(source), "{bytes:?}: {source:?}");
            }
            other => panic!("{bytes:?}: {other:?}"),
        }
        let message = err.to_string();
        assert!(message.starts_with("refusing to edit `"), "{message}");
        assert!(message.contains(&*path.to_string_lossy()), "{message}");
        assert!(err.hint().is_some());
        assert_eq!(project.inventory(), before, "{bytes:?} was modified");
        // Uninstall refuses the same files (or finds nothing of ours) and writes nothing.
        match project.uninstall(Host::ClaudeCode, &path) {
            Ok(outcome) => assert_eq!(outcome.action, Action::NotInstalled),
            Err(err) => assert!(matches!(err, InstallError::Settings { .. }), "{err:?}"),
        }
        assert_eq!(
            project.inventory(),
            before,
            "{bytes:?} was modified by uninstall"
        );
    }
}

#[test]
fn comment_refusal_explains_what_to_do() {
    let project = Project::new();
    let path = project.write(Host::ClaudeCode, b"{\n  // hi\n}\n");
    let err = project.install(Host::ClaudeCode, &path).unwrap_err();
    assert_eq!(
        err.to_string(),
        format!(
            "refusing to edit `{}`: it contains comments (line 2, column 3), which strict JSON does not allow",
            path.display()
        )
    );
    assert!(err.hint().unwrap().contains("remove the comments"));
}

#[test]
fn relative_program_path_is_refused() {
    let project = Project::new();
    let path = project.settings(Host::ClaudeCode);
    let err = install::install(
        Host::ClaudeCode,
        file(Host::ClaudeCode),
        &path,
        Path::new("jev-preflight"),
        &project.undo(),
    )
    .unwrap_err();
    assert!(matches!(err, InstallError::Program(_)), "{err:?}");
    assert!(project.inventory().is_empty());
}

#[test]
fn codex_handlers_are_shell_commands() {
    // Codex 0.171 runs SessionEnd hooks (clamped to 3 s); older versions ignore the event.
    let project = Project::new();
    let path = project.settings(Host::Codex);
    let program = Path::new("/home/o'neil/my tools/jev-preflight");
    install::install(
        Host::Codex,
        file(Host::Codex),
        &path,
        program,
        &project.undo(),
    )
    .unwrap();
    let settings = read_json(&path);
    let command = r"'/home/o'\''neil/my tools/jev-preflight' hook";
    assert_eq!(
        settings,
        json!({"hooks": {
            "UserPromptSubmit": [{"hooks": [{"type": "command", "command": command, "timeout": 30}]}],
            "Stop": [{"hooks": [{"type": "command", "command": command, "timeout": 60}]}],
            "SessionEnd": [{"hooks": [{"type": "command", "command": command, "timeout": 3}]}],
        }})
    );
    // What the shell makes of the command is the binary's path and `hook`.
    let out = std::process::Command::new("sh")
        .arg("-c")
        .arg(format!("printf '%s\\n' {}", command))
        .output()
        .unwrap();
    assert_eq!(
        String::from_utf8(out.stdout).unwrap(),
        "/home/o'neil/my tools/jev-preflight\nhook\n"
    );
    assert_eq!(
        install::install(
            Host::Codex,
            file(Host::Codex),
            &path,
            program,
            &project.undo()
        )
        .unwrap()
        .action,
        Action::AlreadyInstalled
    );
    assert_eq!(
        install::uninstall(
            Host::Codex,
            file(Host::Codex),
            &path,
            program,
            &project.undo()
        )
        .unwrap()
        .action,
        Action::Deleted
    );
}

#[test]
fn claude_and_codex_registrations_do_not_touch_each_other() {
    // One file holding both shapes (as if someone pointed both tools at it): each host's
    // uninstall removes only its own handlers.
    let project = Project::new();
    let path = project.write(Host::ClaudeCode, b"{\n  \"x\": 1\n}\n");
    project.install(Host::ClaudeCode, &path).unwrap();
    project.install(Host::Codex, &path).unwrap();
    project.uninstall(Host::Codex, &path).unwrap();
    let settings = read_json(&path);
    assert_has_our_hooks(Host::ClaudeCode, &settings);
    assert_eq!(settings["hooks"]["Stop"].as_array().unwrap().len(), 1);
    project.uninstall(Host::ClaudeCode, &path).unwrap();
    assert_eq!(fs::read_to_string(&path).unwrap(), "{\n  \"x\": 1\n}\n");
}

#[cfg(unix)]
#[test]
fn a_symlinked_settings_file_stays_a_symlink_and_keeps_its_mode() {
    use std::os::unix::fs::PermissionsExt;
    let project = Project::new();
    let real = project.dir.path().join("dotfiles/claude-settings.json");
    fs::create_dir_all(real.parent().unwrap()).unwrap();
    fs::write(&real, "{\"a\": 1}\n").unwrap();
    fs::set_permissions(&real, fs::Permissions::from_mode(0o600)).unwrap();
    let path = project.settings(Host::ClaudeCode);
    fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::os::unix::fs::symlink(&real, &path).unwrap();

    project.install(Host::ClaudeCode, &path).unwrap();
    assert!(
        fs::symlink_metadata(&path)
            .unwrap()
            .file_type()
            .is_symlink()
    );
    assert_has_our_hooks(Host::ClaudeCode, &read_json(&real));
    assert_eq!(
        fs::metadata(&real).unwrap().permissions().mode() & 0o777,
        0o600
    );

    project.uninstall(Host::ClaudeCode, &path).unwrap();
    assert!(
        fs::symlink_metadata(&path)
            .unwrap()
            .file_type()
            .is_symlink()
    );
    assert_eq!(fs::read_to_string(&real).unwrap(), "{\"a\": 1}\n");
}

#[test]
fn user_scope_writes_under_the_given_home_only() {
    let home = Project::new();
    let scope = Scope::User {
        home: home.dir.path().to_owned(),
        config_dir: None,
    };
    let path = Host::ClaudeCode.settings_path(&scope);
    install::install(
        Host::ClaudeCode,
        file(Host::ClaudeCode),
        &path,
        program(),
        &home.undo(),
    )
    .unwrap();
    let files: Vec<PathBuf> = home.inventory().into_iter().map(|(p, _)| p).collect();
    assert_eq!(files, vec![home.dir.path().join(".claude/settings.json")]);
}

#[test]
fn gemini_handlers_are_named_shell_commands_with_millisecond_timeouts() {
    let project = Project::new();
    let path = project.write(
        Host::Gemini,
        b"{\n  \"security\": {\"auth\": {\"selectedType\": \"gemini-api-key\"}}\n}\n",
    );
    project.install(Host::Gemini, &path).unwrap();
    let settings = read_json(&path);
    let handler = |timeout: u64| json!({"type": "command", "name": "jev-preflight", "command": format!("'{PROGRAM}' hook"), "timeout": timeout});
    assert_eq!(
        settings,
        json!({
            "security": {"auth": {"selectedType": "gemini-api-key"}},
            "hooks": {
                "BeforeAgent": [{"hooks": [handler(30_000)]}],
                "AfterAgent": [{"hooks": [handler(60_000)]}],
                "SessionEnd": [{"hooks": [handler(5_000)]}],
            }
        })
    );
    // A Claude Code registration in the same file is another host's, and stays.
    project.install(Host::ClaudeCode, &path).unwrap();
    assert_eq!(
        project.uninstall(Host::Gemini, &path).unwrap().action,
        Action::Removed
    );
    let settings = read_json(&path);
    assert_has_our_hooks(Host::ClaudeCode, &settings);
    assert!(settings["hooks"].get("AfterAgent").is_none(), "{settings}");
}

/// Every key of `before` is in `after` with the same value, except that `/hooks` may have
/// gained entries (which must end with the old ones intact).
fn assert_keeps(before: &Value, after: &Value, context: &str) {
    for (key, value) in before.as_object().unwrap() {
        if key == "hooks" {
            for (event, list) in value.as_object().unwrap() {
                let old = list.as_array().unwrap();
                let new = after["hooks"][event].as_array().unwrap();
                assert_eq!(&new[..old.len()], &old[..], "{context}");
            }
        } else {
            assert_eq!(&after[key], value, "{context}: {key}");
        }
    }
}

fn assert_has_our_hooks(host: Host, settings: &Value) {
    for &(event, timeout) in host.registered() {
        let event = host.event_name(event);
        let groups = settings["hooks"][event].as_array().unwrap();
        let ours: Vec<&Value> = groups
            .iter()
            .flat_map(|g| g["hooks"].as_array().unwrap())
            .filter(|h| {
                h["command"]
                    .as_str()
                    .is_some_and(|c| c.contains("jev-preflight"))
            })
            .collect();
        assert_eq!(ours.len(), 1, "{event}: {settings}");
        assert_eq!(ours[0]["timeout"], json!(timeout));
        match host {
            Host::ClaudeCode => assert_eq!(ours[0], &claude_handler(timeout)),
            Host::Codex => assert_eq!(ours[0]["command"], json!(format!("'{PROGRAM}' hook"))),
            Host::Gemini => {
                assert_eq!(ours[0]["command"], json!(format!("'{PROGRAM}' hook")));
                assert_eq!(ours[0]["name"], json!("jev-preflight"));
            }
            other => unreachable!("{other:?} is checked by its own test"),
        }
    }
}

mod properties {
    use super::file;
    use jev_preflight::cmd::install::{add_hooks, remove_hooks};
    use jev_preflight::host::Host;
    use proptest::prelude::*;
    use serde::Serialize;
    use serde_json::{Map, Value};

    fn scalar() -> impl Strategy<Value = Value> {
        prop_oneof![
            Just(Value::Null),
            any::<bool>().prop_map(Value::Bool),
            (-1000i64..1000).prop_map(Value::from),
            "[a-zé🚀 \"\\\\/]{0,8}".prop_map(Value::String),
        ]
    }

    fn setting() -> impl Strategy<Value = Value> {
        scalar().prop_recursive(2, 12, 3, |inner| {
            prop_oneof![
                prop::collection::vec(inner.clone(), 0..3).prop_map(Value::Array),
                prop::collection::btree_map("[a-zü]{1,6}", inner, 0..3)
                    .prop_map(|m| Value::Object(m.into_iter().collect())),
            ]
        })
    }

    fn group() -> impl Strategy<Value = Value> {
        (
            prop::option::of("[A-Za-z|]{1,8}"),
            prop::collection::vec("[a-z./ -]{1,12}", 1..3),
        )
            .prop_map(|(matcher, commands)| {
                let mut group = Map::new();
                if let Some(m) = matcher {
                    group.insert("matcher".into(), Value::String(m));
                }
                let handlers = commands
                    .into_iter()
                    .map(|c| serde_json::json!({"type": "command", "command": c}))
                    .collect();
                group.insert("hooks".into(), Value::Array(handlers));
                Value::Object(group)
            })
    }

    fn settings() -> impl Strategy<Value = Value> {
        let events = prop::collection::btree_map(
            prop::sample::select(vec![
                "PreToolUse",
                "Stop",
                "UserPromptSubmit",
                "SessionEnd",
                "Notification",
                "AfterAgent",
                "BeforeAgent",
            ]),
            prop::collection::vec(group(), 0..3),
            0..4,
        );
        (
            prop::collection::btree_map("[a-zA-Zé]{1,8}", setting(), 0..4),
            prop::option::of(events),
        )
            .prop_map(|(others, hooks)| {
                let mut root: Map<String, Value> = others.into_iter().collect();
                root.remove("hooks");
                if let Some(events) = hooks {
                    let events = events
                        .into_iter()
                        .map(|(k, v)| (k.to_owned(), Value::Array(v)))
                        .collect();
                    root.insert("hooks".into(), Value::Object(events));
                }
                Value::Object(root)
            })
    }

    fn render(value: &Value, style: u8) -> String {
        let pretty = |indent: &[u8]| {
            let mut out = Vec::new();
            let fmt = serde_json::ser::PrettyFormatter::with_indent(indent);
            value
                .serialize(&mut serde_json::Serializer::with_formatter(&mut out, fmt))
                .unwrap();
            String::from_utf8(out).unwrap()
        };
        match style {
            0 => serde_json::to_string(value).unwrap(),
            1 => pretty(b"  ") + "\n",
            2 => pretty(b"\t"),
            3 => pretty(b"    ").replace('\n', "\r\n") + "\r\n",
            _ => pretty(b" "),
        }
    }

    /// What structural removal leaves of the original: our removal also drops the managed
    /// event lists and the `hooks` object that only our entries had filled.
    fn simplify(mut value: Value, managed: &[&str]) -> Value {
        let root = value.as_object_mut().unwrap();
        if let Some(hooks) = root.get_mut("hooks").and_then(Value::as_object_mut) {
            hooks.retain(|k, v| !(managed.contains(&k.as_str()) && v == &Value::Array(vec![])));
            if hooks.is_empty() {
                root.remove("hooks");
            }
        }
        value
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(200))]

        #[test]
        fn install_is_idempotent_and_removal_inverts_it(
            value in settings(),
            style in 0u8..5,
            host in prop_oneof![
                Just(Host::ClaudeCode), Just(Host::Codex), Just(Host::Gemini), Just(Host::Qwen),
                Just(Host::Droid), Just(Host::Cursor), Just(Host::VsCode), Just(Host::Copilot),
            ],
        ) {
            let managed: Vec<&str> =
                host.registered().iter().map(|&(e, _)| host.event_name(e)).collect();
            let text = render(&value, style);
            let program = "/usr/local/bin/jev-preflight";
            let added = add_hooks(text.as_bytes(), host, file(host), program).unwrap().unwrap();
            let parsed: Value = serde_json::from_str(&added).unwrap();
            // Every other setting is kept.
            for (key, v) in value.as_object().unwrap() {
                if key != "hooks" {
                    prop_assert_eq!(&parsed[key], v);
                }
            }
            for (event, list) in value.get("hooks").and_then(Value::as_object).into_iter().flatten() {
                let old = list.as_array().unwrap();
                prop_assert_eq!(&parsed["hooks"][event].as_array().unwrap()[..old.len()], &old[..]);
            }
            prop_assert_eq!(add_hooks(added.as_bytes(), host, file(host), program).unwrap(), None);

            let removed = remove_hooks(added.as_bytes(), file(host)).unwrap().unwrap();
            let back: Value = serde_json::from_str(&removed).unwrap();
            prop_assert_eq!(&back, &simplify(value.clone(), &managed));
            // Exactly the original bytes unless a container that only we filled had to go.
            let hooks = value.get("hooks");
            let emptied = hooks.is_some_and(|h| {
                h == &Value::Object(Map::new())
                    || managed.iter().any(|e| h.get(e) == Some(&Value::Array(vec![])))
            });
            if !emptied {
                prop_assert_eq!(removed, text);
            }
        }
    }
}

/// Every host, both scopes: from no file to our hooks and back to no file, and from a file
/// with the user's own settings and hooks back to exactly its bytes.
#[test]
fn every_host_round_trips_byte_exact_in_both_scopes() {
    use jev_preflight::host::ALL;
    for host in ALL {
        let dir = tempfile::tempdir().unwrap();
        let scopes = [
            Scope::Project {
                root: dir.path().join("repo"),
            },
            Scope::User {
                home: dir.path().join("home"),
                config_dir: None,
            },
        ];
        for scope in scopes {
            let base = match &scope {
                Scope::Project { root } => root.clone(),
                Scope::User { home, .. } => home.clone(),
            };
            // The data dir's `install/`, outside both: what undoes an install is kept there.
            let data = tempfile::tempdir().unwrap();
            let undo = data.path().join("install");
            let shape = host.hook_file(&scope);
            let path = host.settings_path(&scope);
            let name = format!("{} {}", host.name(), path.display());
            let added = install::install(host, shape, &path, program(), &undo).unwrap();
            assert_eq!(added.action, Action::Created, "{name}");
            let again = install::install(host, shape, &path, program(), &undo).unwrap();
            assert_eq!(again.action, Action::AlreadyInstalled, "{name}");
            let removed = install::uninstall(host, shape, &path, program(), &undo).unwrap();
            assert_eq!(removed.action, Action::Deleted, "{name}");
            assert!(!path.exists(), "{name}");
            // The folders install created went with the file; nothing is kept to undo.
            assert!(!base.exists(), "{name}");
            assert_eq!(fs::read_dir(&undo).unwrap().count(), 0, "{name}");
            if host.hook_file(&scope).ours_alone {
                continue;
            }
            // The user's own file: other settings and another tool's hook on our events.
            let own = user_file(host, &scope);
            fs::create_dir_all(path.parent().unwrap()).unwrap();
            fs::write(&path, &own).unwrap();
            install::install(host, shape, &path, program(), &undo).unwrap();
            let text = fs::read_to_string(&path).unwrap();
            assert!(text.contains("jev-preflight"), "{name}: {text}");
            assert!(text.contains("notify.sh"), "{name}: {text}");
            let removed = install::uninstall(host, shape, &path, program(), &undo).unwrap();
            assert_eq!(removed.action, Action::Restored, "{name}");
            assert_eq!(fs::read(&path).unwrap(), own.as_bytes(), "{name}");
            // Edited after install: our handlers are cut out, the edit stays.
            install::install(host, shape, &path, program(), &undo).unwrap();
            let edited = fs::read_to_string(&path)
                .unwrap()
                .replacen("notify.sh", "notify2.sh", 1);
            fs::write(&path, &edited).unwrap();
            let removed = install::uninstall(host, shape, &path, program(), &undo).unwrap();
            assert_eq!(removed.action, Action::Removed, "{name}");
            assert_eq!(
                fs::read_to_string(&path).unwrap(),
                own.replacen("notify.sh", "notify2.sh", 1),
                "{name}"
            );
            // What was cut out is kept in the data dir, never beside the file.
            assert!(removed.backup.unwrap().starts_with(&undo), "{name}");
        }
    }
}

/// A settings file of `host`'s shape holding another tool's hook on each of our events.
fn user_file(host: Host, scope: &Scope) -> String {
    use jev_preflight::host::{Container, Nesting};
    let shape = host.hook_file(scope);
    let other = match shape.nesting {
        Nesting::Grouped => json!([{"hooks": [{"type": "command", "command": "notify.sh"}]}]),
        Nesting::Flat => json!([{"type": "command", "command": "notify.sh", "bash": "notify.sh"}]),
    };
    let mut events = serde_json::Map::new();
    for &(event, _) in host.registered() {
        events.insert(host.event_name(event).to_owned(), other.clone());
    }
    let root = match shape.container {
        Container::Root => Value::Object(events),
        Container::Hooks { .. } => json!({"theme": "dark", "hooks": events}),
    };
    format!("{}\n", serde_json::to_string_pretty(&root).unwrap())
}

/// What install writes for the hosts added beside Claude Code, Codex and Gemini, in the
/// form each host's documentation gives (see `src/host/mod.rs`).
#[test]
fn new_hosts_get_handlers_in_their_own_form() {
    let dir = tempfile::tempdir().unwrap();
    // The data dir's `install/`, outside the project.
    let data = tempfile::tempdir().unwrap();
    let undo = data.path().join("install");
    let scope = Scope::Project {
        root: dir.path().to_owned(),
    };
    let written = |host: Host| -> Value {
        let path = host.settings_path(&scope);
        install::install(host, host.hook_file(&scope), &path, program(), &undo).unwrap();
        read_json(&path)
    };
    let q = |args: &str| format!("'{PROGRAM}' hook {args}");
    assert_eq!(
        written(Host::Copilot),
        json!({"version": 1, "hooks": {
            "userPromptSubmitted": [{"type": "command", "bash": q("--host copilot user-prompt-submit"),
                "powershell": format!("& '{PROGRAM}' 'hook' '--host' 'copilot' 'user-prompt-submit'"), "timeoutSec": 30}],
            "agentStop": [{"type": "command", "bash": q("--host copilot stop"),
                "powershell": format!("& '{PROGRAM}' 'hook' '--host' 'copilot' 'stop'"), "timeoutSec": 60}],
            "sessionEnd": [{"type": "command", "bash": q("--host copilot session-end"),
                "powershell": format!("& '{PROGRAM}' 'hook' '--host' 'copilot' 'session-end'"), "timeoutSec": 5}],
        }})
    );
    assert_eq!(
        written(Host::Cursor),
        json!({"version": 1, "hooks": {
            "beforeSubmitPrompt": [{"command": q("--host cursor"), "timeout": 30}],
            "stop": [{"command": q("--host cursor"), "timeout": 60, "loop_limit": 1}],
        }})
    );
    let exec = |timeout: u64, host: &str| json!([{"hooks": [{"type": "command", "command": PROGRAM, "args": ["hook", "--host", host], "timeout": timeout}]}]);
    assert_eq!(
        written(Host::Qwen),
        json!({"hooks": {"UserPromptSubmit": exec(30, "qwen"), "Stop": exec(60, "qwen"), "SessionEnd": exec(5, "qwen")}})
    );
    let shell = |timeout: u64, host: &str| json!([{"hooks": [{"type": "command", "command": q(&format!("--host {host}")), "timeout": timeout}]}]);
    assert_eq!(
        written(Host::Droid),
        json!({"hooks": {"UserPromptSubmit": shell(30, "droid"), "Stop": shell(60, "droid"), "SessionEnd": shell(5, "droid")}})
    );
    assert_eq!(
        written(Host::Devin),
        json!({"UserPromptSubmit": shell(30, "devin"), "Stop": shell(60, "devin"), "SessionEnd": shell(5, "devin")})
    );
    let flat = |timeout: u64| json!([{"type": "command", "command": q("--host vscode"), "timeout": timeout}]);
    assert_eq!(
        written(Host::VsCode),
        json!({"hooks": {"UserPromptSubmit": flat(30), "Stop": flat(60), "SessionEnd": flat(5)}})
    );
    // OpenCode: a plugin file; one the user wrote under that name is refused, untouched.
    let path = Host::OpenCode.settings_path(&scope);
    install::install(
        Host::OpenCode,
        Host::OpenCode.hook_file(&scope),
        &path,
        program(),
        &undo,
    )
    .unwrap();
    let plugin = fs::read_to_string(&path).unwrap();
    assert!(
        plugin.contains(&format!("const PROGRAM = \"{PROGRAM}\";")),
        "{plugin}"
    );
    fs::write(&path, "export const Mine = async () => ({});\n").unwrap();
    let err = install::install(
        Host::OpenCode,
        Host::OpenCode.hook_file(&scope),
        &path,
        program(),
        &undo,
    )
    .unwrap_err();
    assert!(matches!(err, InstallError::NotOurs { .. }), "{err}");
    let err = install::uninstall(
        Host::OpenCode,
        Host::OpenCode.hook_file(&scope),
        &path,
        program(),
        &undo,
    )
    .unwrap_err();
    assert!(err.hint().unwrap().contains("move"), "{err}");
    assert_eq!(
        fs::read_to_string(&path).unwrap(),
        "export const Mine = async () => ({});\n"
    );
}
