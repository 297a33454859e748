//! Contract tests: each host's recorded event shapes (`recorded.json`, each taken from where
//! its `from` says) go through the real decoder and the real answer renderer.

use super::*;
use crate::hook::answer::Answer;
use crate::hook::event::{Dispatch, Event};
use serde_json::json;

fn decode(event: serde_json::Value, hint: Option<Host>) -> Event {
    Event::decode_from(event.to_string().as_bytes(), hint).unwrap()
}

fn continuation(host: Host, form: Form) -> serde_json::Value {
    let answer = Answer {
        continuation: Some((form, "R".into())),
        messages: vec![],
    };
    let text = answer
        .render_for(host, EventName::Stop, host.shows_notices(EventName::Stop))
        .unwrap();
    serde_json::from_str(&text).unwrap()
}

/// One host's recorded prompt and end-of-turn events, and what must be read from them.
#[derive(serde::Deserialize)]
struct Recorded {
    /// The host, by its id.
    #[serde(deserialize_with = "host_by_id")]
    host: Host,
    /// Whether the hook is told the host (`--host`, which install writes for hosts whose
    /// events need it).
    hinted: bool,
    prompt: serde_json::Value,
    stop: serde_json::Value,
    continued: serde_json::Value,
}

impl Recorded {
    fn hint(&self) -> Option<Host> {
        self.hinted.then_some(self.host)
    }
}

fn host_by_id<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Host, D::Error> {
    let id = <String as serde::Deserialize>::deserialize(d)?;
    Host::from_id(&id).ok_or_else(|| serde::de::Error::custom(format!("no host `{id}`")))
}

/// The events each host was seen or documented to send, from `recorded.json`; each entry's
/// `from` says where its shapes were taken from.
fn recorded() -> Vec<Recorded> {
    serde_json::from_str(include_str!("recorded.json")).unwrap()
}

#[test]
fn every_recorded_event_is_told_apart_and_read() {
    for r in recorded() {
        let name = r.host.name();
        let argv = |e| (r.host == Host::Copilot).then_some(e);
        let prompt = decode(r.prompt.clone(), r.hint());
        assert_eq!(prompt.host, r.host, "{name} prompt");
        assert_eq!(
            prompt.dispatch(argv(EventName::UserPromptSubmit)),
            Dispatch::Known(EventName::UserPromptSubmit),
            "{name}"
        );
        assert_eq!(
            prompt.session_id.as_deref().map(|s| !s.is_empty()),
            Some(true),
            "{name}"
        );
        assert!(prompt.cwd.is_some(), "{name} cwd");
        assert!(!prompt.continues_our_feedback, "{name}");
        let stop = decode(r.stop.clone(), r.hint());
        assert_eq!(stop.host, r.host, "{name} stop");
        assert_eq!(
            stop.dispatch(argv(EventName::Stop)),
            Dispatch::Known(EventName::Stop),
            "{name}"
        );
        assert!(!stop.stop_hook_active, "{name}");
        let again = decode(r.continued.clone(), r.hint());
        assert!(again.stop_hook_active, "{name}: the host's loop signal");
        // Our own continuation coming back as a prompt keeps the prompt's state.
        let mut ours = r.prompt.clone();
        ours["prompt"] = json!(format!("{ASSIST_OPENING} 1. auth_boundary"));
        assert!(decode(ours, r.hint()).continues_our_feedback, "{name}");
    }
}

#[test]
fn a_hint_never_overrides_a_shape_only_one_host_sends() {
    // VS Code and Copilot CLI both read `.github/hooks`: a handler written for one may see
    // the other's events, and answers the host that sent them.
    for r in recorded() {
        for hint in ALL {
            let got = decode(r.stop.clone(), Some(hint)).host;
            if matches!(
                r.host,
                Host::ClaudeCode | Host::Qwen | Host::Droid | Host::Devin | Host::OpenCode
            ) {
                assert_eq!(got, hint, "{} with hint {}", r.host.name(), hint.name());
            } else {
                assert_eq!(got, r.host, "{} with hint {}", r.host.name(), hint.name());
            }
        }
    }
}

#[test]
fn each_host_is_answered_in_its_own_form() {
    use AnswerForm::*;
    assert_eq!(Host::ClaudeCode.form(Auto, true), Form::Context);
    assert_eq!(Host::ClaudeCode.form(Auto, false), Form::Block);
    assert_eq!(Host::ClaudeCode.form(Context, false), Form::Context);
    assert_eq!(Host::ClaudeCode.form(Block, true), Form::Block);
    for host in [
        Host::Codex,
        Host::Gemini,
        Host::Copilot,
        Host::Qwen,
        Host::Droid,
        Host::Devin,
        Host::OpenCode,
        Host::Kilo,
    ] {
        for configured in [Auto, Context, Block] {
            assert_eq!(host.form(configured, true), Form::Block, "{}", host.name());
        }
        assert_eq!(
            continuation(host, Form::Block),
            json!({"decision": "block", "reason": "R"}),
            "{}",
            host.name()
        );
    }
    // Cursor: `followup_message` (its hooks reference); exit 2 on `stop` only observes.
    assert_eq!(Host::Cursor.form(Context, true), Form::Followup);
    assert_eq!(
        continuation(Host::Cursor, Form::Followup),
        json!({"followup_message": "R"})
    );
    // VS Code: the documented Stop output, plus Claude's top-level fields.
    assert_eq!(
        continuation(Host::VsCode, Form::BlockEverywhere),
        json!({"decision": "block", "reason": "R",
               "hookSpecificOutput": {"hookEventName": "Stop", "decision": "block", "reason": "R"}})
    );
}

#[test]
fn notices_and_empty_answers() {
    let quiet = Answer {
        continuation: None,
        messages: vec!["note".into()],
    };
    let shown = |host: Host, e| quiet.render_for(host, e, host.shows_notices(e));
    assert_eq!(
        shown(Host::ClaudeCode, EventName::Stop).as_deref(),
        Some(r#"{"systemMessage":"note"}"#)
    );
    assert_eq!(shown(Host::Codex, EventName::UserPromptSubmit), None);
    assert_eq!(
        shown(Host::Qwen, EventName::UserPromptSubmit).as_deref(),
        Some(r#"{"systemMessage":"note"}"#)
    );
    assert_eq!(shown(Host::Copilot, EventName::Stop), None);
    assert_eq!(
        shown(Host::Gemini, EventName::SessionEnd).as_deref(),
        Some("{}")
    );
    assert_eq!(
        shown(Host::Cursor, EventName::UserPromptSubmit).as_deref(),
        Some(r#"{"continue":true}"#)
    );
    assert_eq!(shown(Host::Cursor, EventName::Stop).as_deref(), Some("{}"));
}

#[test]
fn every_host_names_its_events_and_they_map_back() {
    for host in ALL {
        for e in [
            EventName::UserPromptSubmit,
            EventName::Stop,
            EventName::SessionEnd,
        ] {
            assert_eq!(
                Host::event_of(host.event_name(e)),
                Some(e),
                "{}",
                host.name()
            );
        }
        assert_eq!(Host::from_id(host.id()), Some(host));
        assert!(!host.registered().is_empty());
    }
    assert_eq!(Host::event_of("PreToolUse"), None);
}

#[test]
fn install_writes_a_host_hint_and_recognises_every_form_of_it() {
    assert_eq!(Host::ClaudeCode.hook_args(EventName::Stop), ["hook"]);
    assert_eq!(
        Host::Qwen.hook_args(EventName::Stop),
        ["hook", "--host", "qwen"]
    );
    assert_eq!(
        Host::Copilot.hook_args(EventName::UserPromptSubmit),
        ["hook", "--host", "copilot", "user-prompt-submit"]
    );
    let s = |v: &[&str]| v.iter().map(|w| w.to_string()).collect::<Vec<_>>();
    for host in ALL {
        for e in [
            EventName::UserPromptSubmit,
            EventName::Stop,
            EventName::SessionEnd,
        ] {
            assert!(is_our_hook_args(&host.hook_args(e)));
        }
    }
    assert!(!is_our_hook_args(&s(&["hook", "--verbose"])));
    assert!(!is_our_hook_args(&s(&["hook", "--host", "nobody"])));
    assert!(!is_our_hook_args(&s(&[
        "hook", "--host", "qwen", "stop", "x"
    ])));
    assert!(!is_our_hook_args(&s(&["eval"])));
}

#[test]
fn install_paths_for_each_host_and_scope() {
    let project = Scope::Project {
        root: PathBuf::from("/r"),
    };
    let user = Scope::User {
        home: PathBuf::from("/h"),
        config_dir: None,
    };
    let cases = [
        (
            Host::ClaudeCode,
            "/r/.claude/settings.json",
            "/h/.claude/settings.json",
        ),
        (Host::Codex, "/r/.codex/hooks.json", "/h/.codex/hooks.json"),
        (
            Host::Gemini,
            "/r/.gemini/settings.json",
            "/h/.gemini/settings.json",
        ),
        (
            Host::Copilot,
            "/r/.github/hooks/jev-preflight.json",
            "/h/.copilot/hooks/jev-preflight.json",
        ),
        (
            Host::Cursor,
            "/r/.cursor/hooks.json",
            "/h/.cursor/hooks.json",
        ),
        (
            Host::Qwen,
            "/r/.qwen/settings.json",
            "/h/.qwen/settings.json",
        ),
        (
            Host::Droid,
            "/r/.factory/hooks.json",
            "/h/.factory/hooks.json",
        ),
        (
            Host::Devin,
            "/r/.devin/hooks.v1.json",
            "/h/.config/devin/config.json",
        ),
        (
            Host::VsCode,
            "/r/.github/hooks/jev-preflight-vscode.json",
            "/h/.copilot/hooks/jev-preflight-vscode.json",
        ),
        (
            Host::OpenCode,
            "/r/.opencode/plugins/jev-preflight.js",
            "/h/.config/opencode/plugins/jev-preflight.js",
        ),
        (
            Host::Kilo,
            "/r/.kilo/plugins/jev-preflight.js",
            "/h/.config/kilo/plugins/jev-preflight.js",
        ),
    ];
    assert_eq!(cases.len(), ALL.len());
    for (host, p, u) in cases {
        assert_eq!(
            host.settings_path(&project),
            PathBuf::from(p),
            "{}",
            host.name()
        );
        assert_eq!(
            host.settings_path(&user),
            PathBuf::from(u),
            "{}",
            host.name()
        );
    }
    let env = HostEnv::from_pairs([("COPILOT_HOME", "/c"), ("GEMINI_CLI_HOME", "/g")]);
    let with = |host: Host| Scope::User {
        home: "/h".into(),
        config_dir: host.user_dir(&env),
    };
    assert_eq!(
        Host::Copilot.settings_path(&with(Host::Copilot)),
        PathBuf::from("/c/hooks/jev-preflight.json")
    );
    assert_eq!(
        Host::Gemini.settings_path(&with(Host::Gemini)),
        PathBuf::from("/g/.gemini/settings.json")
    );
    assert_eq!(
        Host::Qwen.settings_path(&with(Host::Qwen)),
        PathBuf::from("/h/.qwen/settings.json")
    );
}

#[test]
fn windows_paths_in_events_become_one_spelling() {
    let cases = [
        ("C:\\Users\\me\\proj", "C:\\Users\\me\\proj"),
        ("c:\\Users\\me\\proj\\", "C:\\Users\\me\\proj"),
        ("C:/Users/me/proj", "C:\\Users\\me\\proj"),
        ("/c/Users/me/proj", "C:\\Users\\me\\proj"),
        ("d:", "D:\\"),
        ("D:\\", "D:\\"),
        ("\\\\server\\share\\x\\", "\\\\server\\share\\x"),
    ];
    for (raw, want) in cases {
        assert_eq!(native_path(raw, true), PathBuf::from(want), "{raw}");
    }
    // Elsewhere the text is kept as sent.
    assert_eq!(
        native_path("/home/me/proj", false),
        PathBuf::from("/home/me/proj")
    );
    // A Windows event decodes with its backslashes intact (JSON `\\` is one backslash).
    let e = Event::decode(br#"{"hook_event_name":"Stop","cwd":"C:\\Users\\me\\proj"}"#).unwrap();
    assert_eq!(e.cwd.as_deref(), Some("C:\\Users\\me\\proj"));
    assert_eq!(
        e.dir(),
        Some(native_path("C:\\Users\\me\\proj", cfg!(windows)))
    );
}
