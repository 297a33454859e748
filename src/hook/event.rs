//! The hook event on stdin: decoded leniently, because every host version sends a different
//! subset of fields and new fields must never break us. Which host sent it, and what its
//! fields mean, is [`crate::host::Host`]'s to say.

use serde_json::Value;

use crate::host::{EventName, Host};

/// Largest event read from stdin; anything larger is refused (fail-open).
pub const MAX_EVENT_BYTES: usize = 1024 * 1024;

/// Which event an invocation is about.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Dispatch {
    Known(EventName),
    /// An event we do not handle (`SessionStart`, `SubagentStop`, …): a no-op.
    Other(String),
    /// Neither stdin nor argv named an event.
    Unnamed,
}

/// One hook event, every field optional.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Event {
    pub hook_event_name: Option<String>,
    pub session_id: Option<String>,
    pub prompt_id: Option<String>,
    /// Present only on Codex.
    pub turn_id: Option<String>,
    /// As sent; [`Event::dir`] is the path of this platform.
    pub cwd: Option<String>,
    pub stop_hook_active: bool,
    /// Statuses of background tasks (`None`: the entry had no status).
    pub background_tasks: Vec<Option<String>>,
    pub session_crons: usize,
    pub reason: Option<String>,
    pub host: Host,
    /// A prompt event whose prompt is our own continuation text, sent back by the host
    /// (see [`Host::continues_our_feedback`]).
    pub continues_our_feedback: bool,
}

/// Why stdin could not be used as an event.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum EventError {
    #[error("the event on stdin is larger than {MAX_EVENT_BYTES} bytes")]
    TooLarge,
    #[error("the event on stdin is not a JSON object: {0}")]
    NotJson(String),
}

fn text(obj: &serde_json::Map<String, Value>, key: &str) -> Option<String> {
    obj.get(key)
        .and_then(Value::as_str)
        .filter(|s| !s.is_empty())
        .map(str::to_owned)
}

impl Event {
    /// Decodes one event. A field of the wrong type counts as missing; unknown fields are
    /// ignored. Empty stdin is an event with no fields (older hosts may send nothing useful).
    pub fn decode(bytes: &[u8]) -> Result<Event, EventError> {
        Event::decode_from(bytes, None)
    }

    /// Decodes one event, with the host named on the command line (`--host`) as a hint.
    pub fn decode_from(bytes: &[u8], hint: Option<Host>) -> Result<Event, EventError> {
        if bytes.len() > MAX_EVENT_BYTES {
            return Err(EventError::TooLarge);
        }
        if bytes.iter().all(u8::is_ascii_whitespace) {
            return Ok(Event::hinted(hint));
        }
        let value: Value =
            serde_json::from_slice(bytes).map_err(|e| EventError::NotJson(e.to_string()))?;
        let Value::Object(obj) = value else {
            return Err(EventError::NotJson("not an object".into()));
        };
        let background_tasks = match obj.get("background_tasks") {
            Some(Value::Array(items)) => items
                .iter()
                .map(|t| t.get("status").and_then(Value::as_str).map(str::to_owned))
                .collect(),
            _ => Vec::new(),
        };
        let session_crons = match obj.get("session_crons") {
            Some(Value::Array(items)) => items.len(),
            _ => 0,
        };
        let hook_event_name = text(&obj, "hook_event_name").or_else(|| text(&obj, "hookEventName"));
        let host = Host::detect(&obj, hint);
        let is_prompt = hook_event_name
            .as_deref()
            .and_then(Host::event_of)
            .is_none_or(|e| e == EventName::UserPromptSubmit);
        Ok(Event {
            hook_event_name,
            session_id: Host::session_of(&obj),
            prompt_id: text(&obj, "prompt_id"),
            turn_id: text(&obj, "turn_id"),
            cwd: Host::cwd_of(&obj),
            stop_hook_active: host.loop_signal(&obj),
            background_tasks,
            session_crons,
            reason: text(&obj, "reason"),
            host,
            continues_our_feedback: is_prompt && Host::continues_our_feedback(&obj),
        })
    }

    /// The event to handle: stdin's `hook_event_name` wins over the argv subcommand, because
    /// hosts older than 2.1.139 drop `args` silently.
    pub fn dispatch(&self, argv: Option<EventName>) -> Dispatch {
        match (&self.hook_event_name, argv) {
            (Some(name), _) => match Host::event_of(name) {
                Some(known) => Dispatch::Known(known),
                None => Dispatch::Other(name.clone()),
            },
            (None, Some(known)) => Dispatch::Known(known),
            (None, None) => Dispatch::Unnamed,
        }
    }

    /// An event with no fields from `host`, when the input was no event at all.
    pub fn hinted(host: Option<Host>) -> Event {
        Event {
            host: host.unwrap_or_default(),
            ..Event::default()
        }
    }

    /// The working directory as a path of this platform (Windows hosts send backslashes).
    pub fn dir(&self) -> Option<std::path::PathBuf> {
        self.cwd.as_deref().map(crate::host::event_path)
    }

    /// The id of this prompt as the host names it (`prompt_id`, or Codex's `turn_id`).
    pub fn prompt_key(&self) -> Option<String> {
        self.prompt_id
            .as_deref()
            .map(|id| format!("prompt:{id}"))
            .or_else(|| self.turn_id.as_deref().map(|id| format!("turn:{id}")))
    }

    pub fn session_key(&self) -> &str {
        self.session_id.as_deref().unwrap_or("")
    }

    /// Background work is pending: the session is paused, not done.
    pub fn background_pending(&self) -> bool {
        const FINISHED: &[&str] = &[
            "completed",
            "complete",
            "done",
            "finished",
            "failed",
            "error",
            "killed",
            "stopped",
            "cancelled",
            "canceled",
        ];
        self.session_crons > 0
            || self.background_tasks.iter().any(|status| {
                status
                    .as_deref()
                    .is_none_or(|s| !FINISHED.contains(&s.to_ascii_lowercase().as_str()))
            })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::hook::answer::ASSIST_OPENING;
    use crate::hook::failure::Class;

    #[test]
    fn decodes_claude_code_stop() {
        let e = Event::decode(
            br#"{"session_id":"s","transcript_path":"t","cwd":"/p","prompt_id":"p1",
            "permission_mode":"default","effort":{"level":"medium"},"hook_event_name":"Stop",
            "stop_hook_active":false,"last_assistant_message":"hi","background_tasks":[],
            "session_crons":[],"brand_new_field":{"x":1}}"#,
        )
        .unwrap();
        assert_eq!(e.dispatch(None), Dispatch::Known(EventName::Stop));
        assert_eq!(e.prompt_key().as_deref(), Some("prompt:p1"));
        assert!(!e.background_pending());
        assert_ne!(e.host, Host::Codex);
    }

    #[test]
    fn lenient_on_types_and_missing_fields() {
        let e = Event::decode(
            br#"{"hook_event_name":"Stop","stop_hook_active":"yes","session_id":5,"cwd":null}"#,
        )
        .unwrap();
        assert!(!e.stop_hook_active);
        assert_eq!(e.session_id, None);
        assert_eq!(e.cwd, None);
        assert_eq!(Event::decode(b"").unwrap(), Event::default());
        assert_eq!(
            Class::from(&Event::decode(b"[1]").unwrap_err()),
            "input_invalid"
        );
        assert_eq!(
            Class::from(&Event::decode(b"not json").unwrap_err()),
            "input_invalid"
        );
        assert_eq!(
            Class::from(&Event::decode(br#"{"a":1} x"#).unwrap_err()),
            "input_invalid"
        );
        let big = vec![b' '; MAX_EVENT_BYTES + 1];
        assert_eq!(Event::decode(&big).unwrap_err(), EventError::TooLarge);
    }

    #[test]
    fn dispatch_prefers_stdin_over_argv() {
        let e = Event::decode(br#"{"hook_event_name":"SessionEnd"}"#).unwrap();
        assert_eq!(
            e.dispatch(Some(EventName::Stop)),
            Dispatch::Known(EventName::SessionEnd)
        );
        let e = Event::decode(br#"{"session_id":"s"}"#).unwrap();
        assert_eq!(
            e.dispatch(Some(EventName::Stop)),
            Dispatch::Known(EventName::Stop)
        );
        assert_eq!(e.dispatch(None), Dispatch::Unnamed);
        let e = Event::decode(br#"{"hook_event_name":"SubagentStop"}"#).unwrap();
        assert_eq!(
            e.dispatch(Some(EventName::Stop)),
            Dispatch::Other("SubagentStop".into())
        );
    }

    #[test]
    fn background_work_pauses() {
        let cases: &[(&str, bool)] = &[
            (r#"{"background_tasks":[{"status":"running"}]}"#, true),
            (
                r#"{"background_tasks":[{"status":"completed"},{"status":"failed"}]}"#,
                false,
            ),
            (r#"{"background_tasks":[{"id":"x"}]}"#, true),
            (r#"{"session_crons":[{"id":"c"}]}"#, true),
            (r#"{"session_crons":[],"background_tasks":[]}"#, false),
        ];
        for (json, paused) in cases {
            assert_eq!(
                Event::decode(json.as_bytes()).unwrap().background_pending(),
                *paused,
                "{json}"
            );
        }
    }

    #[test]
    fn hosts_are_told_apart() {
        let cases: &[(&str, Host)] = &[
            (
                r#"{"hook_event_name":"Stop","prompt_id":"p"}"#,
                Host::ClaudeCode,
            ),
            (
                r#"{"hook_event_name":"SessionEnd","reason":"other"}"#,
                Host::ClaudeCode,
            ),
            (r#"{"hook_event_name":"Stop","turn_id":"t"}"#, Host::Codex),
            (
                r#"{"hook_event_name":"AfterAgent","session_id":"s"}"#,
                Host::Gemini,
            ),
            (
                r#"{"hook_event_name":"BeforeAgent","prompt":"x"}"#,
                Host::Gemini,
            ),
            (
                concat!(
                    r#"{"hook_event_name":"SessionEnd","#,
                    r#""timestamp":"2026-01-01T00:00:00Z","reason":"exit"}"#
                ),
                Host::Gemini,
            ),
            // Stamped, with a prompt id: Qwen Code (Gemini sends no prompt id).
            (
                r#"{"hook_event_name":"SessionEnd","timestamp":"t","prompt_id":"p"}"#,
                Host::Qwen,
            ),
        ];
        for (json, host) in cases {
            assert_eq!(
                Event::decode(json.as_bytes()).unwrap().host,
                *host,
                "{json}"
            );
        }
    }

    #[test]
    fn gemini_events_map_to_ours() {
        let e = Event::decode(
            br#"{"session_id":"s","transcript_path":"/t.json","cwd":"/p",
            "hook_event_name":"AfterAgent","timestamp":"2026-12-03T06:00:00.000Z",
            "prompt":"fix it","prompt_response":"done","stop_hook_active":true}"#,
        )
        .unwrap();
        assert_eq!(e.dispatch(None), Dispatch::Known(EventName::Stop));
        assert!(e.stop_hook_active);
        assert_eq!(e.prompt_key(), None);
        let e = Event::decode(br#"{"hook_event_name":"BeforeAgent","prompt":"fix it"}"#).unwrap();
        assert_eq!(
            e.dispatch(None),
            Dispatch::Known(EventName::UserPromptSubmit)
        );
        assert!(!e.continues_our_feedback);
    }

    #[test]
    fn gemini_sends_our_reason_back_as_a_prompt() {
        let ours = format!("{ASSIST_OPENING} and more");
        let event = |name: &str, prompt: &str| {
            serde_json::json!({"hook_event_name": name, "prompt": prompt, "timestamp": "t"})
                .to_string()
        };
        let decode = |s: String| Event::decode(s.as_bytes()).unwrap();
        assert!(decode(event("BeforeAgent", &ours)).continues_our_feedback);
        assert!(!decode(event("BeforeAgent", &format!("please: {ours}"))).continues_our_feedback);
        // Other hosts send it back on their own prompt events; an end of turn is never one.
        assert!(decode(event("UserPromptSubmit", &ours)).continues_our_feedback);
        assert!(decode(event("userPromptSubmitted", &ours)).continues_our_feedback);
        assert!(!decode(event("Stop", &ours)).continues_our_feedback);
    }

    #[test]
    fn codex_uses_turn_id() {
        let e = Event::decode(br#"{"hook_event_name":"Stop","turn_id":"t9","session_id":"s"}"#)
            .unwrap();
        assert_eq!(e.host, Host::Codex);
        assert_eq!(e.prompt_key().as_deref(), Some("turn:t9"));
    }
}
