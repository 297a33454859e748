//! What the hook prints: the assist continuation, the one-line report, and user notices,
//! each as the one JSON object the host expects on stdout.

use serde_json::{Map, Value, json};

use crate::host::EventName;
use crate::host::Host;
use crate::pipeline::axes::{AXIS_IDS, Axis, Selected};
use crate::scorer::Evidence;
use crate::scorer::threshold::shown;

/// Claude Code's cap on one hook string; we stay well below it.
pub const MAX_TEXT_CHARS: usize = 9_500;
const MAX_EVIDENCE_PER_AXIS: usize = 4;
const MAX_FILES_LISTED: usize = 25;

pub use crate::host::Form;

pub use crate::host::ASSIST_OPENING;

/// What the agent needs to look again.
#[derive(Debug, Clone)]
pub struct Finding<'a> {
    pub selected: &'a [Selected],
    pub axes: &'a [Axis],
    pub evidence: &'a [Evidence],
    pub files: &'a [String],
    pub omitted: &'a [String],
}

/// Truncates to at most `max` chars, on a char boundary, marking the cut.
pub fn clip(text: &str, max: usize) -> String {
    if text.chars().count() <= max {
        return text.to_owned();
    }
    let mut out: String = text.chars().take(max.saturating_sub(1)).collect();
    out.push('…');
    out
}

fn one_line(text: &str, max: usize) -> String {
    clip(&text.split_whitespace().collect::<Vec<_>>().join(" "), max)
}

fn axis_id(axis: usize) -> &'static str {
    AXIS_IDS.get(axis).copied().unwrap_or("unknown")
}

/// The continuation text for assist mode.
pub fn assist_text(f: &Finding<'_>) -> String {
    let mut t = String::new();
    t.push_str(ASSIST_OPENING);
    t.push_str(" The scores are priorities for where to look, not proof of a defect.\n");
    for (n, sel) in f.selected.iter().enumerate() {
        let id = axis_id(sel.axis);
        let question = f
            .axes
            .get(sel.axis)
            .map(|a| one_line(a.question, 300))
            .unwrap_or_default();
        t.push_str(&format!(
            "\n{}. {id} (score {}): {question}\n",
            n + 1,
            shown(sel.score)
        ));
        let ev: Vec<&Evidence> = f.evidence.iter().filter(|e| e.axis == sel.axis).collect();
        for e in ev.iter().take(MAX_EVIDENCE_PER_AXIS) {
            let place = match e.line {
                Some(line) => format!("{}:{line}", one_line(&e.file, 200)),
                None => one_line(&e.file, 200),
            };
            t.push_str(&format!("   - {place}: {}\n", one_line(&e.note, 240)));
        }
        if ev.len() > MAX_EVIDENCE_PER_AXIS {
            t.push_str(&format!(
                "   - and {} more signals\n",
                ev.len() - MAX_EVIDENCE_PER_AXIS
            ));
        }
    }
    if !f.files.is_empty() {
        let listed: Vec<String> = f
            .files
            .iter()
            .take(MAX_FILES_LISTED)
            .map(|p| one_line(p, 200))
            .collect();
        t.push_str(&format!(
            "\nFiles changed in this turn: {}",
            listed.join(", ")
        ));
        if f.files.len() > MAX_FILES_LISTED {
            t.push_str(&format!(" and {} more", f.files.len() - MAX_FILES_LISTED));
        }
        t.push('\n');
    }
    if !f.omitted.is_empty() {
        t.push_str(&format!(
            "The scorer saw a partial view: {} file(s) were left out for size.\n",
            f.omitted.len()
        ));
    }
    t.push_str(
        "\nFor each question above, inspect this turn's diff, the code around it and the tests \
         that cover it. Change code only where you find concrete evidence of a problem. If you \
         find none, say so in one or two sentences and finish.",
    );
    clip(&t, MAX_TEXT_CHARS)
}

/// The one-line summary for report mode.
pub fn report_line(selected: &[Selected], files: &[String]) -> String {
    let axes: Vec<String> = selected
        .iter()
        .map(|s| format!("{} {}", axis_id(s.axis), shown(s.score)))
        .collect();
    let where_ = match files {
        [] => String::new(),
        [one] => format!(" in {}", one_line(one, 120)),
        [first, rest @ ..] => format!(" in {} and {} more", one_line(first, 120), rest.len()),
    };
    one_line(
        &format!(
            "jev-preflight (report): worth a second look: {}{where_}; scores are priorities, not \
             proof",
            axes.join(", ")
        ),
        600,
    )
}

/// The one JSON object printed on stdout.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Answer {
    pub continuation: Option<(Form, String)>,
    /// Lines shown to the user (report line, config-change note, failure notice).
    pub messages: Vec<String>,
}

impl Answer {
    pub fn is_empty(&self) -> bool {
        self.continuation.is_none() && self.messages.is_empty()
    }

    /// Renders for `event_name` (`None` when the host shows nothing, e.g. SessionEnd).
    pub fn render(&self, event_name: &str, user_messages_allowed: bool) -> Option<String> {
        let mut obj = Map::new();
        match &self.continuation {
            Some((Form::Block, text)) => {
                obj.insert("decision".into(), json!("block"));
                obj.insert("reason".into(), json!(text));
            }
            Some((Form::Context, text)) => {
                obj.insert(
                    "hookSpecificOutput".into(),
                    json!({"hookEventName": event_name, "additionalContext": text}),
                );
            }
            Some((Form::Followup, text)) => {
                obj.insert("followup_message".into(), json!(text));
            }
            Some((Form::BlockEverywhere, text)) => {
                obj.insert("decision".into(), json!("block"));
                obj.insert("reason".into(), json!(text));
                obj.insert(
                    "hookSpecificOutput".into(),
                    json!({"hookEventName": event_name, "decision": "block", "reason": text}),
                );
            }
            None => {}
        }
        if user_messages_allowed && !self.messages.is_empty() {
            obj.insert(
                "systemMessage".into(),
                json!(clip(&self.messages.join(" · "), MAX_TEXT_CHARS)),
            );
        }
        (!obj.is_empty()).then(|| Value::Object(obj).to_string())
    }

    /// Renders `event` for `host`, in the host's own event name, with the object the host
    /// needs when there is nothing to say (see [`Host::empty_answer`]).
    pub fn render_for(
        &self,
        host: Host,
        event: EventName,
        user_messages_allowed: bool,
    ) -> Option<String> {
        self.render(host.event_name(event), user_messages_allowed)
            .or_else(|| host.empty_answer(event).map(str::to_owned))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const AXES: [Axis; 2] = [
        Axis {
            id: "behavior_regression",
            question: "Could existing callers now get a different result?",
            yes: "",
            no: "",
        },
        Axis {
            id: "auth_boundary",
            question: "Does the change loosen who may\ndo what?",
            yes: "",
            no: "",
        },
    ];

    #[test]
    fn assist_text_names_axis_question_score_evidence_and_asks_for_evidence() {
        let selected = [Selected {
            axis: 1,
            score: 0.934,
        }];
        let evidence = [Evidence {
            axis: 1,
            file: "src/api.rs".into(),
            line: Some(42),
            note: "removed an authorization check".into(),
        }];
        let files = ["src/api.rs".to_owned()];
        let t = assist_text(&Finding {
            selected: &selected,
            axes: &AXES,
            evidence: &evidence,
            files: &files,
            omitted: &[],
        });
        for needle in [
            "auth_boundary (score 0.934): Does the change loosen who may do what?",
            "src/api.rs:42: removed an authorization check",
            "priorities for where to look, not proof",
            "Change code only where you find concrete evidence",
            "say so",
            "Files changed in this turn: src/api.rs",
        ] {
            assert!(t.contains(needle), "missing {needle:?} in\n{t}");
        }
    }

    #[test]
    fn assist_text_is_bounded() {
        let selected = [
            Selected {
                axis: 0,
                score: 0.9,
            },
            Selected {
                axis: 1,
                score: 0.9,
            },
        ];
        let evidence: Vec<Evidence> = (0..1000)
            .map(|i| Evidence {
                axis: i % 2,
                file: "f".repeat(500),
                line: Some(i as u32),
                note: "n".repeat(1000),
            })
            .collect();
        let files: Vec<String> = (0..5000)
            .map(|i| format!("{}{i}", "p".repeat(300)))
            .collect();
        let t = assist_text(&Finding {
            selected: &selected,
            axes: &AXES,
            evidence: &evidence,
            files: &files,
            omitted: &files,
        });
        assert!(t.chars().count() <= MAX_TEXT_CHARS);
        assert!(t.contains("and 4975 more"));
    }

    #[test]
    fn render_forms() {
        let a = Answer {
            continuation: Some((Form::Block, "R".into())),
            messages: vec![],
        };
        assert_eq!(
            a.render("Stop", true).unwrap(),
            r#"{"decision":"block","reason":"R"}"#
        );
        let a = Answer {
            continuation: Some((Form::Context, "C".into())),
            messages: vec!["m".into()],
        };
        let v: Value = serde_json::from_str(&a.render("Stop", true).unwrap()).unwrap();
        assert_eq!(v["hookSpecificOutput"]["hookEventName"], "Stop");
        assert_eq!(v["hookSpecificOutput"]["additionalContext"], "C");
        assert_eq!(v["systemMessage"], "m");
        let a = Answer {
            continuation: None,
            messages: vec!["m".into()],
        };
        assert_eq!(a.render("SessionEnd", false), None);
        assert_eq!(Answer::default().render("Stop", true), None);
        assert_eq!(
            Answer::default()
                .render_for(Host::Gemini, EventName::Stop, true)
                .as_deref(),
            Some("{}")
        );
        assert_eq!(
            Answer::default().render_for(Host::Codex, EventName::Stop, true),
            None
        );
        let a = Answer {
            continuation: Some((Form::Followup, "F".into())),
            messages: vec!["m".into()],
        };
        assert_eq!(
            a.render_for(Host::Cursor, EventName::Stop, false).unwrap(),
            r#"{"followup_message":"F"}"#
        );
        let a = Answer {
            continuation: Some((Form::BlockEverywhere, "V".into())),
            messages: vec![],
        };
        let v: Value =
            serde_json::from_str(&a.render_for(Host::VsCode, EventName::Stop, true).unwrap())
                .unwrap();
        assert_eq!(v["decision"], "block");
        assert_eq!(v["reason"], "V");
        assert_eq!(
            v["hookSpecificOutput"],
            json!({"hookEventName": "Stop", "decision": "block", "reason": "V"})
        );
    }

    #[test]
    fn report_is_one_line() {
        let line = report_line(
            &[Selected {
                axis: 1,
                score: 0.91,
            }],
            &["a\nb.rs".into(), "c".into()],
        );
        assert!(!line.contains('\n'));
        assert!(
            line.contains("auth_boundary 0.91 in a b.rs and 1 more"),
            "{line}"
        );
    }
}
