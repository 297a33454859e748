//! The `openai` backend: any OpenAI-compatible chat completions endpoint as a yes/no judge.
//!
//! Each axis is one short request, all 8 in flight at once within the budget. The model may
//! answer with one token, and P(yes) = e^yes / (e^yes + e^no) is read from the log
//! probabilities of that first token (every spelling of yes and no pooled: `Yes`, ` yes`,
//! `YES`, …). A server that returns no log probabilities is asked a second time for a strict
//! JSON answer, `{"answer":"yes"|"no","confidence":0..1}`.

use std::collections::HashMap;
use std::fmt;
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use super::http::{self, Endpoint};
use super::{ScoreError, Scorer, Scores};
use crate::pipeline::axes::{AXIS_COUNT, Axis, axes};
use crate::pipeline::payload::Payload;
use crate::scorer::secret::ApiKey;

/// The base URL used unless the user names another one.
pub const DEFAULT_BASE_URL: &str = "https://api.openai.com/v1";

/// How many alternatives to ask for at the answer token.
const TOP_LOGPROBS: u32 = 10;

/// Lower bound for the probability mass of an answer the server did not list.
const MIN_MASS: f64 = 1e-6;

const SYSTEM_ONE_TOKEN: &str = "You review one code change for risk. The change is a JSON \
object with the changed files and a unified diff in which secrets are redacted. Answer the \
question about this change with exactly one word: yes or no.";

const SYSTEM_JSON: &str = "You review one code change for risk. The change is a JSON object \
with the changed files and a unified diff in which secrets are redacted. Reply with only a JSON \
object of the form {\"answer\": \"yes\" or \"no\", \"confidence\": a number from 0 to 1}, \
where confidence is how sure you are of that answer.";

/// A judge behind an OpenAI-compatible API.
pub struct OpenAiScorer {
    url: String,
    agent: ureq::Agent,
    key: Option<ApiKey>,
    model: String,
}

impl fmt::Debug for OpenAiScorer {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        http::debug_client(f, "OpenAiScorer", &self.model, &self.key)
    }
}

impl OpenAiScorer {
    /// A judge at `base_url` (default [`DEFAULT_BASE_URL`]; requests go to
    /// `<base_url>/chat/completions`) using `model`. The key may be absent for a local server,
    /// but not for the default OpenAI endpoint.
    pub fn new(
        base_url: Option<&str>,
        model: Option<&str>,
        key: Option<ApiKey>,
    ) -> Result<OpenAiScorer, ScoreError> {
        let base = base_url
            .map(str::trim)
            .filter(|b| !b.is_empty())
            .unwrap_or(DEFAULT_BASE_URL);
        if base == DEFAULT_BASE_URL && key.is_none() {
            return Err(ScoreError::MissingKey { scorer: "openai" });
        }
        let model = model
            .map(str::trim)
            .filter(|m| !m.is_empty())
            .ok_or(ScoreError::Config {
                setting: "`openai` scorer",
                problem: "needs a model name",
            })?;
        let url = format!("{}/chat/completions", base.trim_end_matches('/'));
        let endpoint = Endpoint::parse(&url, "OpenAI base URL")?;
        Ok(OpenAiScorer {
            agent: http::agent(&endpoint),
            url,
            key,
            model: model.to_owned(),
        })
    }

    fn post(&self, body: &Value, deadline: Instant) -> Result<Value, ScoreError> {
        let key = self.key.as_ref().map(ApiKey::expose);
        let reply = http::post_json(&self.agent, &self.url, key, &body.to_string(), deadline)?;
        if !(200..300).contains(&reply.status) {
            return Err(ScoreError::Http {
                status: reply.status,
            });
        }
        serde_json::from_slice(&reply.body).map_err(|_| ScoreError::InvalidResponse {
            at: "the reply".into(),
            problem: "is not one JSON value",
        })
    }

    /// P(yes) for one axis, the model the server reports, and the tokens it reports using.
    fn ask(&self, axis: &Axis, payload: &Payload, deadline: Instant) -> Result<Asked, ScoreError> {
        let question = question_text(axis, payload);
        let first = json!({
            "model": self.model,
            "messages": [
                {"role": "system", "content": SYSTEM_ONE_TOKEN},
                {"role": "user", "content": format!("{question}\n\nAnswer yes or no.")},
            ],
            "max_tokens": 1,
            "temperature": 0,
            "logprobs": true,
            "top_logprobs": TOP_LOGPROBS,
        });
        let reply = self.post(&first, deadline)?;
        let model = reported_model(&reply);
        let tokens = crate::scorer::usage_tokens(&reply);
        if let Some(p) = yes_from_logprobs(&reply) {
            return Ok((p, model, tokens));
        }
        let second = json!({
            "model": self.model,
            "messages": [
                {"role": "system", "content": SYSTEM_JSON},
                {
                    "role": "user",
                    "content": format!("{question}\n\nReply with the JSON object only."),
                },
            ],
            "max_tokens": 64,
            "temperature": 0,
            "response_format": {"type": "json_object"},
        });
        let reply = self.post(&second, deadline)?;
        let p = yes_from_json_answer(&reply)?;
        let tokens = match (tokens, crate::scorer::usage_tokens(&reply)) {
            (None, None) => None,
            (a, b) => Some(a.unwrap_or(0).saturating_add(b.unwrap_or(0))),
        };
        Ok((p, model.or_else(|| reported_model(&reply)), tokens))
    }
}

impl Scorer for OpenAiScorer {
    fn name(&self) -> &'static str {
        "openai"
    }

    fn score(&self, payload: &Payload, budget: Duration) -> Result<Scores, ScoreError> {
        let deadline = Instant::now() + budget;
        let results: Vec<Result<Asked, ScoreError>> = std::thread::scope(|s| {
            let handles: Vec<_> = axes()
                .iter()
                .map(|axis| s.spawn(move || self.ask(axis, payload, deadline)))
                .collect();
            handles
                .into_iter()
                .map(|h| {
                    h.join().unwrap_or_else(|_| {
                        Err(ScoreError::InvalidResponse {
                            at: "an axis request".into(),
                            problem: "panicked",
                        })
                    })
                })
                .collect()
        });
        let key = self.key.as_ref().map(ApiKey::expose);
        let mut values = [0.0; AXIS_COUNT];
        let mut model = None;
        let mut tokens: Option<u64> = None;
        for (i, result) in results.into_iter().enumerate() {
            let (p, m, t) = result.map_err(|e| scrub(e, key, budget))?;
            values[i] = p;
            model = model.or(m);
            if let Some(t) = t {
                tokens = Some(tokens.unwrap_or(0).saturating_add(t));
            }
        }
        Ok(Scores {
            values,
            model: model.map(|m| match key {
                Some(k) => m.replace(k, "****"),
                None => m,
            }),
            evidence: Vec::new(),
            tokens,
        })
    }
}

/// One axis asked: P(yes), the model the server reported, the tokens it reported using.
type Asked = (f64, Option<String>, Option<u64>);

fn scrub(e: ScoreError, key: Option<&str>, budget: Duration) -> ScoreError {
    match (e.against_budget(budget), key) {
        (ScoreError::Network(t), Some(key)) => ScoreError::Network(t.scrub(key)),
        (other, _) => other,
    }
}

fn question_text(axis: &Axis, payload: &Payload) -> String {
    format!(
        "Question: {}\nAnswer yes when: {}\nAnswer no when: {}\n\nThe change:\n{}",
        axis.question, axis.yes, axis.no, payload.json
    )
}

fn reported_model(reply: &Value) -> Option<String> {
    let m: String = reply
        .get("model")?
        .as_str()?
        .chars()
        .filter(|c| !c.is_control())
        .take(128)
        .collect();
    (!m.is_empty()).then_some(m)
}

/// Which answer a token spells, if any: case, surrounding whitespace, tokenizer space
/// markers (`Ġ`, `▁`) and trailing punctuation are ignored.
pub fn answer_of(token: &str) -> Option<bool> {
    let t = token
        .trim_matches(|c: char| c.is_whitespace() || c == 'Ġ' || c == '▁')
        .trim_end_matches(['.', ',', '!', ':', ';'])
        .to_lowercase();
    match t.as_str() {
        "yes" => Some(true),
        "no" => Some(false),
        _ => None,
    }
}

/// P(yes) from the first answer token's log probabilities, or `None` when the reply carries
/// none or none of them spells yes or no.
///
/// Every listed spelling of each answer is pooled. When only one answer is listed, the
/// other's mass is bounded by what the list leaves unaccounted for (and by the smallest listed
/// probability, since it would otherwise have been listed), floored at [`MIN_MASS`].
pub fn yes_from_logprobs(reply: &Value) -> Option<f64> {
    let first = reply
        .pointer("/choices/0/logprobs/content/0")
        .filter(|v| v.is_object())?;
    let mut listed: HashMap<String, f64> = HashMap::new();
    let mut add = |entry: &Value| {
        if let (Some(tok), Some(lp)) = (
            entry.get("token").and_then(Value::as_str),
            entry.get("logprob").and_then(Value::as_f64),
        ) && lp.is_finite()
            && lp <= 0.0
        {
            listed.entry(tok.to_owned()).or_insert(lp);
        }
    };
    add(first);
    if let Some(top) = first.get("top_logprobs").and_then(Value::as_array) {
        top.iter().for_each(&mut add);
    }
    let (mut yes, mut no, mut total) = (0.0f64, 0.0f64, 0.0f64);
    let mut smallest = 1.0f64;
    for (tok, lp) in &listed {
        let p = lp.exp();
        total += p;
        smallest = smallest.min(p);
        match answer_of(tok) {
            Some(true) => yes += p,
            Some(false) => no += p,
            None => {}
        }
    }
    if yes == 0.0 && no == 0.0 {
        return None;
    }
    let unlisted = (1.0 - total).min(smallest).max(MIN_MASS);
    if yes == 0.0 {
        yes = unlisted;
    }
    if no == 0.0 {
        no = unlisted;
    }
    Some(yes / (yes + no))
}

/// P(yes) from a strict JSON answer in the first choice's message: one object with `answer`
/// (`yes` or `no`, any case) and `confidence` in \[0, 1\]. A Markdown code fence around it is
/// tolerated; anything else is an invalid response.
pub fn yes_from_json_answer(reply: &Value) -> Result<f64, ScoreError> {
    let invalid = |at: &str, problem| ScoreError::InvalidResponse {
        at: at.to_owned(),
        problem,
    };
    let content = reply
        .pointer("/choices/0/message/content")
        .and_then(Value::as_str)
        .ok_or_else(|| invalid("the reply", "has no message content"))?;
    let text = content.trim();
    let text = text
        .strip_prefix("```json")
        .or_else(|| text.strip_prefix("```"))
        .and_then(|t| t.strip_suffix("```"))
        .unwrap_or(text)
        .trim();
    let answer: Value =
        serde_json::from_str(text).map_err(|_| invalid("the answer", "is not one JSON object"))?;
    let yes = answer
        .get("answer")
        .and_then(Value::as_str)
        .and_then(answer_of)
        .ok_or_else(|| invalid("`answer`", "is not yes or no"))?;
    let confidence = answer
        .get("confidence")
        .and_then(Value::as_f64)
        .filter(|c| c.is_finite() && (0.0..=1.0).contains(c))
        .ok_or_else(|| invalid("`confidence`", "is not a number in [0, 1]"))?;
    Ok(if yes { confidence } else { 1.0 - confidence })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::hook::failure::Class;

    #[test]
    fn spellings() {
        for t in ["yes", "Yes", "YES", " yes", "Ġyes", "▁Yes", "yes.", "\nyes"] {
            assert_eq!(answer_of(t), Some(true), "{t:?}");
        }
        for t in ["no", "No", " NO", "no,"] {
            assert_eq!(answer_of(t), Some(false), "{t:?}");
        }
        for t in ["", "y", "yeah", "nope", "maybe", "noul"] {
            assert_eq!(answer_of(t), None, "{t:?}");
        }
    }

    fn lp(first: (&str, f64), top: &[(&str, f64)]) -> Value {
        let top: Vec<Value> = top
            .iter()
            .map(|(t, l)| json!({"token": t, "logprob": l}))
            .collect();
        json!({"choices": [{"logprobs": {"content": [
            {"token": first.0, "logprob": first.1, "top_logprobs": top}
        ]}}]})
    }

    #[test]
    fn pools_spellings_and_normalises() {
        let (y, n) = (0.6f64.ln(), 0.2f64.ln());
        let r = lp(
            ("Yes", y),
            &[
                ("Yes", y),
                ("No", n),
                (" yes", 0.1f64.ln()),
                (" no", 0.1f64.ln()),
            ],
        );
        let p = yes_from_logprobs(&r).unwrap();
        assert!((p - 0.7 / 1.0).abs() < 1e-9, "{p}");
    }

    #[test]
    fn one_sided_list_is_bounded_not_certain() {
        let r = lp(("yes", 0.99f64.ln()), &[]);
        let p = yes_from_logprobs(&r).unwrap();
        assert!(p > 0.98 && p < 1.0, "{p}");
        let r = lp(
            ("no", 0.9f64.ln()),
            &[("no", 0.9f64.ln()), ("maybe", 0.05f64.ln())],
        );
        let p = yes_from_logprobs(&r).unwrap();
        assert!(p > 0.0 && p < 0.06, "{p}");
    }

    #[test]
    fn no_usable_logprobs_is_none() {
        assert_eq!(
            yes_from_logprobs(&json!({"choices": [{"logprobs": null}]})),
            None
        );
        assert_eq!(yes_from_logprobs(&json!({"choices": []})), None);
        assert_eq!(
            yes_from_logprobs(&lp(("maybe", -0.1), &[("perhaps", -2.0)])),
            None
        );
    }

    #[test]
    fn json_answers() {
        let reply = |c: &str| json!({"choices": [{"message": {"content": c}}]});
        let ok: &[(&str, f64)] = &[
            (r#"{"answer":"yes","confidence":0.9}"#, 0.9),
            (r#"{"answer":"No","confidence":0.8}"#, 0.2),
            ("```json\n{\"answer\":\"yes\",\"confidence\":1}\n```", 1.0),
        ];
        for (c, want) in ok {
            let got = yes_from_json_answer(&reply(c)).unwrap();
            assert!((got - want).abs() < 1e-9, "{c}: {got}");
        }
        for bad in [
            "yes",
            r#"{"answer":"maybe","confidence":0.5}"#,
            r#"{"answer":"yes","confidence":1.5}"#,
            r#"{"answer":"yes"}"#,
            r#"{"answer":"yes","confidence":0.5} trailing"#,
        ] {
            let e = yes_from_json_answer(&reply(bad)).unwrap_err();
            assert_eq!(Class::from(&e), "invalid_response", "{bad}");
        }
    }
}
