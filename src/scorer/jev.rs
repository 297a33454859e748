//! The `jev` backend: the TypeSafe Jev API, and the request/reply contract it defines.
//!
//! The request is `{"state":<canonical payload>,"model":…,"questions":{<axis>:…}}`, with the
//! payload spliced in byte for byte; the reply must hold `answers.<axis>.noul`, a number in
//! \[0, 1\], for all 8 axes. The `command` backend speaks the same contract over stdin/stdout.

use std::fmt;
use std::time::{Duration, Instant, SystemTime};

use serde_json::Value;
use serde_json::value::RawValue;

use super::http::{self, Endpoint, MAX_REPLY_BYTES};
use super::{ScoreError, Scorer, Scores};
use crate::pipeline::axes::{AXIS_COUNT, AXIS_IDS, axes};
use crate::pipeline::payload::Payload;
use crate::scorer::secret::ApiKey;

/// The Jev endpoint used unless the user's environment overrides it.
pub const DEFAULT_URL: &str = "https://api.typesafe.ai/v1/systemone";

/// The model asked for unless the user pins one.
pub const DEFAULT_MODEL: &str = "jev-latest";

/// Statuses worth one retry: rate limited, unavailable, overloaded.
const RETRY_STATUSES: [u16; 3] = [429, 503, 529];

/// Pause before a retry the server did not time with `Retry-After`.
const BACKOFF: Duration = Duration::from_millis(250);

/// Least time a second attempt needs to be worth starting.
const RETRY_RESERVE: Duration = Duration::from_millis(500);

/// Longest reported model name we keep.
const MAX_MODEL_CHARS: usize = 128;

/// The Jev API client.
pub struct JevScorer {
    endpoint: Endpoint,
    agent: ureq::Agent,
    key: ApiKey,
    model: String,
}

impl fmt::Debug for JevScorer {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        http::debug_client(f, "JevScorer", &self.model, &self.key)
    }
}

impl JevScorer {
    /// A client for `url` (default [`DEFAULT_URL`]) asking for `model` (default
    /// [`DEFAULT_MODEL`]). Plain `http` is accepted only for loopback addresses, so the key
    /// never crosses a network in clear text.
    pub fn new(
        url: Option<&str>,
        model: Option<&str>,
        key: ApiKey,
    ) -> Result<JevScorer, ScoreError> {
        let endpoint = Endpoint::parse(url.unwrap_or(DEFAULT_URL), "Jev URL")?;
        if !endpoint.https && !endpoint.loopback {
            return Err(ScoreError::Config {
                setting: "Jev URL",
                problem: "must use https (plain http is allowed only for loopback)",
            });
        }
        let model = match model.map(str::trim) {
            None | Some("") => DEFAULT_MODEL.to_owned(),
            Some(m) => m.to_owned(),
        };
        Ok(JevScorer {
            agent: http::agent(&endpoint),
            endpoint,
            key,
            model,
        })
    }

    fn attempt(&self, body: &str, deadline: Instant) -> Result<http::Reply, ScoreError> {
        http::post_json(
            &self.agent,
            &self.endpoint.url,
            Some(self.key.expose()),
            body,
            deadline,
        )
    }
}

impl Scorer for JevScorer {
    fn name(&self) -> &'static str {
        "jev"
    }

    fn score(&self, payload: &Payload, budget: Duration) -> Result<Scores, ScoreError> {
        let start = Instant::now();
        let deadline = start + budget;
        let body = request_body(payload, &self.model)?;
        let key = self.key.expose();
        let mut reply = self
            .attempt(&body, deadline)
            .map_err(|e| scrub_error(e, key, budget))?;
        if let Some(wait) = retry_wait(&reply, SystemTime::now(), http::remaining(deadline)) {
            std::thread::sleep(wait);
            reply = self
                .attempt(&body, deadline)
                .map_err(|e| scrub_error(e, key, budget))?;
        }
        if !(200..300).contains(&reply.status) {
            return Err(ScoreError::Http {
                status: reply.status,
            });
        }
        let mut scores = parse_reply(&reply.body)?;
        scores.model = scores.model.map(|m| m.replace(key, "****"));
        Ok(scores)
    }
}

/// A timeout is reported against the whole budget; any text is scrubbed of the key.
fn scrub_error(e: ScoreError, key: &str, budget: Duration) -> ScoreError {
    match e.against_budget(budget) {
        ScoreError::Network(t) => ScoreError::Network(t.scrub(key)),
        other => other,
    }
}

/// How long to wait before the one retry, or `None` when there is no retry: the status is
/// not retryable, or the wait plus a useful second attempt does not fit in `left`.
pub fn retry_wait(
    reply: &http::Reply,
    now: SystemTime,
    left: Option<Duration>,
) -> Option<Duration> {
    if !RETRY_STATUSES.contains(&reply.status) {
        return None;
    }
    let left = left?;
    let wait = reply
        .retry_after
        .as_deref()
        .and_then(|v| http::parse_retry_after(v, now))
        .unwrap_or(BACKOFF);
    (wait.checked_add(RETRY_RESERVE)? <= left).then_some(wait)
}

/// The request body for `payload`: the canonical JSON spliced in verbatim as `state`, the
/// model, and the 8 questions in contract order.
pub fn request_body(payload: &Payload, model: &str) -> Result<String, ScoreError> {
    // The payload is sent byte for byte, so it must be one well-formed JSON value.
    let state: &RawValue =
        serde_json::from_str(&payload.json).map_err(|_| ScoreError::PayloadNotJson)?;
    let request = Request {
        state,
        model,
        questions: Questions,
    };
    Ok(serde_json::to_string(&request).expect("strings and raw JSON serialize"))
}

/// `{"state":…,"model":…,"questions":…}`, in this order.
#[derive(serde::Serialize)]
struct Request<'a> {
    state: &'a RawValue,
    model: &'a str,
    questions: Questions,
}

/// The 8 questions, keyed by axis id in contract order.
struct Questions;

impl serde::Serialize for Questions {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap;
        let mut map = serializer.serialize_map(Some(AXIS_COUNT))?;
        for axis in axes() {
            map.serialize_entry(
                axis.id,
                &Question {
                    criteria: Criteria {
                        no: axis.no,
                        yes: axis.yes,
                    },
                    instructions: axis.question,
                    kind: "noul",
                },
            )?;
        }
        map.end()
    }
}

/// One question. Members in the byte order the API has always received (sorted by name).
#[derive(serde::Serialize)]
struct Question {
    criteria: Criteria,
    instructions: &'static str,
    #[serde(rename = "type")]
    kind: &'static str,
}

#[derive(serde::Serialize)]
struct Criteria {
    #[serde(rename = "false")]
    no: &'static str,
    #[serde(rename = "true")]
    yes: &'static str,
}

/// Validates a reply: one JSON object, nothing after it, `answers.<axis>.noul` a finite
/// number in \[0, 1\] for every axis. Extra fields are ignored; a string `model` is recorded,
/// and so are the tokens a `usage` object reports.
/// Error texts name the offending field only, never the reply's content.
pub fn parse_reply(body: &[u8]) -> Result<Scores, ScoreError> {
    if body.len() > MAX_REPLY_BYTES {
        return Err(ScoreError::ResponseTooLarge {
            limit: MAX_REPLY_BYTES,
        });
    }
    let invalid = |at: String, problem| ScoreError::InvalidResponse { at, problem };
    // `from_slice` rejects anything but whitespace after the value.
    let reply: Value = serde_json::from_slice(body).map_err(|e| ScoreError::NotJson {
        category: category(&e),
        line: e.line(),
        column: e.column(),
    })?;
    let answers = reply
        .get("answers")
        .and_then(Value::as_object)
        .ok_or_else(|| invalid("`answers`".into(), "is missing or not an object"))?;
    let mut values = [0.0; AXIS_COUNT];
    for (i, id) in AXIS_IDS.iter().enumerate() {
        let at = || format!("`answers.{id}.noul`");
        let noul = answers
            .get(*id)
            .ok_or_else(|| invalid(format!("axis `{id}`"), "is missing"))?
            .get("noul")
            .ok_or_else(|| invalid(at(), "is missing"))?;
        let v = noul
            .as_f64()
            .ok_or_else(|| invalid(at(), "is not a number"))?;
        if !v.is_finite() || !(0.0..=1.0).contains(&v) {
            return Err(invalid(at(), "is outside [0, 1]"));
        }
        values[i] = v;
    }
    let model = reply
        .get("model")
        .and_then(Value::as_str)
        .map(|m| {
            m.chars()
                .filter(|c| !c.is_control())
                .take(MAX_MODEL_CHARS)
                .collect::<String>()
        })
        .filter(|m| !m.is_empty());
    Ok(Scores {
        values,
        model,
        evidence: Vec::new(),
        tokens: crate::scorer::usage_tokens(&reply),
    })
}

fn category(e: &serde_json::Error) -> &'static str {
    match e.classify() {
        serde_json::error::Category::Io => "i/o error",
        serde_json::error::Category::Syntax => "syntax error",
        serde_json::error::Category::Data => "data error",
        serde_json::error::Category::Eof => "unexpected end",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The body is byte for byte what the API has always received: each question is the
    /// object serde_json writes for `{"type","instructions","criteria":{"true","false"}}`
    /// (members sorted by name), in contract order, after the spliced state and the model.
    #[test]
    fn request_bytes_are_stable() {
        let json = r#"{"format":"unified_diff","files":["a.rs"],"diff":"x"}"#.to_owned();
        let payload = Payload {
            hash: crate::digest::hex_sha256(json.as_bytes()),
            json,
            files: vec!["a.rs".into()],
            diff: "x".into(),
            omitted: vec![],
            redactions: Default::default(),
        };
        let mut expected = format!(
            "{{\"state\":{},\"model\":\"m\",\"questions\":{{",
            payload.json
        );
        for (i, a) in axes().iter().enumerate() {
            if i > 0 {
                expected.push(',');
            }
            let q = serde_json::json!({"type": "noul", "instructions": a.question,
                "criteria": {"true": a.yes, "false": a.no}});
            expected.push_str(&format!("\"{}\":{}", a.id, q));
        }
        expected.push_str("}}");
        assert_eq!(request_body(&payload, "m").unwrap(), expected);
        let bad = Payload {
            json: "{".into(),
            ..payload
        };
        assert!(matches!(
            request_body(&bad, "m"),
            Err(ScoreError::PayloadNotJson)
        ));
    }

    fn reply(status: u16, retry_after: Option<&str>) -> http::Reply {
        http::Reply {
            status,
            retry_after: retry_after.map(str::to_owned),
            body: Vec::new(),
        }
    }

    type Case = (
        u16,
        Option<&'static str>,
        Option<Duration>,
        Option<Duration>,
    );

    #[test]
    fn retry_policy_table() {
        let now = SystemTime::UNIX_EPOCH + Duration::from_secs(1_000_000);
        let s = Duration::from_secs;
        let ms = Duration::from_millis;
        let cases: &[Case] = &[
            (429, Some("1"), Some(s(5)), Some(s(1))),
            (503, Some("0"), Some(s(5)), Some(s(0))),
            (529, None, Some(s(5)), Some(BACKOFF)),
            (429, Some("garbage"), Some(s(5)), Some(BACKOFF)),
            // Does not fit: the wait plus a useful attempt exceeds what is left.
            (429, Some("5"), Some(s(5)), None),
            (429, Some("99999999999999999999999"), Some(s(5)), None),
            (429, None, Some(ms(600)), None),
            (429, Some("1"), None, None),
            // Not retryable.
            (500, Some("1"), Some(s(5)), None),
            (401, None, Some(s(5)), None),
            (200, None, Some(s(5)), None),
        ];
        for &(status, ra, left, want) in cases {
            assert_eq!(
                retry_wait(&reply(status, ra), now, left),
                want,
                "{status} {ra:?} {left:?}"
            );
        }
    }

    #[test]
    fn questions_are_in_contract_order() {
        let p = Payload {
            json: r#"{"format":"unified_diff","files":[],"diff":""}"#.into(),
            hash: String::new(),
            files: vec![],
            diff: String::new(),
            omitted: vec![],
            redactions: Default::default(),
        };
        let body = request_body(&p, "m").unwrap();
        let mut last = 0;
        for id in AXIS_IDS {
            let at = body.find(&format!("\"{id}\":{{")).unwrap();
            assert!(at > last, "{id} out of order");
            last = at;
        }
    }
}
