//! The hook event on stdin: decoded leniently, because every host version sends a different
//! subset of fields and new fields must never break us.
//!
//! Three hosts send events, each with its own names and fields:
//!
//! | host | prompt | end of turn | session end | tells itself by |
//! |---|---|---|---|---|
//! | Claude Code | `UserPromptSubmit` | `Stop` | `SessionEnd` | `prompt_id` (≥ 2.1.196) |
//! | Codex CLI | `UserPromptSubmit` | `Stop` | `SessionEnd` (0.171) | `turn_id` on every turn event |
//! | Gemini CLI | `BeforeAgent` | `AfterAgent` | `SessionEnd` | its event names; `timestamp` on every event |

use serde_json::Value;

use crate::hook::answer::ASSIST_OPENING;

/// Largest event read from stdin; anything larger is refused (fail-open).
pub const MAX_EVENT_BYTES: usize = 1024 * 1024;

/// The events we act on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EventName {
    UserPromptSubmit,
    Stop,
    SessionEnd,
}

impl EventName {
    /// The name in the hook protocol (`hook_event_name`).
    pub fn protocol_name(self) -> &'static str {
        match self {
            EventName::UserPromptSubmit => "UserPromptSubmit",
            EventName::Stop => "Stop",
            EventName::SessionEnd => "SessionEnd",
        }
    }

    /// Gemini CLI's `BeforeAgent` and `AfterAgent` play the parts of `UserPromptSubmit` and
    /// `Stop`: one fires when a prompt is sent, the other after the final answer of its turn.
    fn from_protocol(name: &str) -> Option<EventName> {
        match name {
            "UserPromptSubmit" | GEMINI_PROMPT => Some(EventName::UserPromptSubmit),
            "Stop" | GEMINI_STOP => Some(EventName::Stop),
            "SessionEnd" => Some(EventName::SessionEnd),
            _ => None,
        }
    }
}

const GEMINI_PROMPT: &str = "BeforeAgent";
const GEMINI_STOP: &str = "AfterAgent";

/// The agent that sent the event; it decides the form of the answer.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum Host {
    #[default]
    ClaudeCode,
    /// Codex CLI: `decision`/`reason` only; stdout on exit 0 must be JSON or nothing.
    Codex,
    /// Gemini CLI: `decision`/`reason` only; an empty stdout makes it read stderr as the
    /// answer, so it always gets a JSON object.
    Gemini,
}

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
    pub cwd: Option<String>,
    pub stop_hook_active: bool,
    /// Statuses of background tasks (`None`: the entry had no status).
    pub background_tasks: Vec<Option<String>>,
    pub session_crons: usize,
    pub reason: Option<String>,
    pub host: Host,
    /// A Gemini `BeforeAgent` whose prompt is our own continuation text: Gemini sends the
    /// `reason` of a blocking `AfterAgent` back as a new prompt, with the same `BeforeAgent`
    /// any typed prompt gets.
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
        if bytes.len() > MAX_EVENT_BYTES {
            return Err(EventError::TooLarge);
        }
        if bytes.iter().all(u8::is_ascii_whitespace) {
            return Ok(Event::default());
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
        let hook_event_name = text(&obj, "hook_event_name");
        let prompt_id = text(&obj, "prompt_id");
        let turn_id = text(&obj, "turn_id");
        let host = host_of(
            hook_event_name.as_deref(),
            prompt_id.is_some(),
            turn_id.is_some(),
            obj.get("timestamp").is_some_and(Value::is_string),
        );
        let continues_our_feedback = host == Host::Gemini
            && hook_event_name.as_deref() == Some(GEMINI_PROMPT)
            && obj
                .get("prompt")
                .and_then(Value::as_str)
                .is_some_and(|p| p.trim_start().starts_with(ASSIST_OPENING));
        Ok(Event {
            hook_event_name,
            session_id: text(&obj, "session_id"),
            prompt_id,
            turn_id,
            cwd: text(&obj, "cwd"),
            stop_hook_active: obj.get("stop_hook_active").and_then(Value::as_bool) == Some(true),
            background_tasks,
            session_crons,
            reason: text(&obj, "reason"),
            host,
            continues_our_feedback,
        })
    }

    /// The event to handle: stdin's `hook_event_name` wins over the argv subcommand, because
    /// hosts older than 2.1.139 drop `args` silently.
    pub fn dispatch(&self, argv: Option<EventName>) -> Dispatch {
        match (&self.hook_event_name, argv) {
            (Some(name), _) => match EventName::from_protocol(name) {
                Some(known) => Dispatch::Known(known),
                None => Dispatch::Other(name.clone()),
            },
            (None, Some(known)) => Dispatch::Known(known),
            (None, None) => Dispatch::Unnamed,
        }
    }

    /// The host is Codex (it sends `turn_id`, never `prompt_id`).
    pub fn is_codex(&self) -> bool {
        self.host == Host::Codex
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

/// Which host sent an event. Gemini's own event names are unambiguous; its `SessionEnd`
/// shares Claude Code's name, so there the `timestamp` every Gemini event carries (and no
/// Claude Code event does) decides, unless a `prompt_id` says Claude Code.
fn host_of(name: Option<&str>, prompt_id: bool, turn_id: bool, timestamp: bool) -> Host {
    match name {
        Some(GEMINI_PROMPT | GEMINI_STOP) => Host::Gemini,
        _ if turn_id => Host::Codex,
        Some("SessionEnd") if timestamp && !prompt_id => Host::Gemini,
        _ => Host::ClaudeCode,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
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
        assert!(!e.is_codex());
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
                r#"{"hook_event_name":"SessionEnd","timestamp":"2026-01-01T00:00:00Z","reason":"exit"}"#,
                Host::Gemini,
            ),
            (
                r#"{"hook_event_name":"SessionEnd","timestamp":"t","prompt_id":"p"}"#,
                Host::ClaudeCode,
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
            br#"{"session_id":"s","transcript_path":"/t.json","cwd":"/p","hook_event_name":"AfterAgent",
            "timestamp":"2026-12-03T06:00:00.000Z","prompt":"fix it","prompt_response":"done",
            "stop_hook_active":true}"#,
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
        // Only Gemini sends the reason back as a prompt.
        assert!(!decode(event("UserPromptSubmit", &ours)).continues_our_feedback);
    }

    #[test]
    fn codex_uses_turn_id() {
        let e = Event::decode(br#"{"hook_event_name":"Stop","turn_id":"t9","session_id":"s"}"#)
            .unwrap();
        assert!(e.is_codex());
        assert_eq!(e.prompt_key().as_deref(), Some("turn:t9"));
    }
}
