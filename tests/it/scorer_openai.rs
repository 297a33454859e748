//! The `openai` backend against loopback servers: one that returns log probabilities, one that
//! does not (and is asked again for a JSON answer).

use jev_preflight::hook::failure::Class;
use std::time::{Duration, Instant};

use jev_preflight::pipeline::axes::{AXIS_IDS, axes};
use jev_preflight::scorer::openai::OpenAiScorer;
use jev_preflight::scorer::secret::ApiKey;
use jev_preflight::scorer::{ScoreError, Scorer};
use serde_json::{Value, json};

use crate::scorer_jev::sample_payload;
use crate::support::http::{Request, Response, TestServer};

const KEY: &str = "sk-local-K3Y-a1b2c3d4";

/// The axis a request asks about, found by its question in the user message.
fn axis_of(req: &Request) -> usize {
    let body = req.json();
    let user = body["messages"][1]["content"].as_str().unwrap().to_owned();
    axes()
        .iter()
        .position(|a| user.contains(a.question))
        .expect("the user message carries one axis question")
}

/// P(yes) the fake model holds for axis `i`.
fn truth(i: usize) -> f64 {
    [0.02, 0.95, 0.5, 0.1, 0.3, 0.7, 0.15, 0.88][i]
}

/// A chat completion whose first token carries log probabilities, with several spellings.
fn logprob_reply(i: usize) -> String {
    let p = truth(i);
    // Split each answer's mass over two spellings to prove they are pooled.
    let top = json!([
        {"token": "Yes", "logprob": (p * 0.75).ln()},
        {"token": " yes", "logprob": (p * 0.25).ln()},
        {"token": "No", "logprob": ((1.0 - p) * 0.5).ln()},
        {"token": "NO", "logprob": ((1.0 - p) * 0.5).ln()},
    ]);
    let first = if p >= 0.5 { "Yes" } else { "No" };
    json!({
        "id": "chatcmpl-1",
        "object": "chat.completion",
        "model": "qwen2.5-coder-7b",
        "choices": [{
            "index": 0,
            "message": {"role": "assistant", "content": first},
            "logprobs": {"content": [{
                "token": first,
                "logprob": top[if p >= 0.5 { 0 } else { 2 }]["logprob"],
                "top_logprobs": top,
            }]},
            "finish_reason": "length",
        }],
    })
    .to_string()
}

fn scorer(server: &TestServer, key: Option<&str>) -> OpenAiScorer {
    OpenAiScorer::new(
        Some(&server.url("/v1")),
        Some("qwen2.5-coder-7b"),
        key.and_then(ApiKey::new),
    )
    .unwrap()
}

fn assert_keyless(e: &ScoreError) {
    let text = format!("{e} {e:?}");
    assert!(!text.contains("K3Y"), "key leaked: {text}");
}

#[test]
fn logprobs_give_p_yes_per_axis_concurrently() {
    let server = TestServer::start(|req, _| {
        Response::json(200, logprob_reply(axis_of(req))).after(Duration::from_millis(600))
    });
    let start = Instant::now();
    let scores = scorer(&server, Some(KEY))
        .score(&sample_payload(), Duration::from_secs(5))
        .unwrap();
    let took = start.elapsed();
    for (i, v) in scores.values.iter().enumerate() {
        assert!((v - truth(i)).abs() < 1e-9, "{}: {v}", AXIS_IDS[i]);
    }
    assert_eq!(scores.model.as_deref(), Some("qwen2.5-coder-7b"));
    assert!(scores.evidence.is_empty());
    // Eight 600 ms answers in well under 8 × 600 ms: the requests overlap.
    assert!(
        took < Duration::from_millis(2500),
        "not concurrent: {took:?}"
    );

    let reqs = server.requests();
    assert_eq!(reqs.len(), 8, "one request per axis");
    let mut asked: Vec<usize> = reqs.iter().map(axis_of).collect();
    asked.sort_unstable();
    assert_eq!(asked, (0..8).collect::<Vec<_>>());
    let payload = sample_payload();
    for r in &reqs {
        assert_eq!(r.method, "POST");
        assert_eq!(r.path, "/v1/chat/completions");
        assert_eq!(r.header("authorization"), Some(&*format!("Bearer {KEY}")));
        assert_eq!(r.header("content-type"), Some("application/json"));
        let b = r.json();
        assert_eq!(b["model"], "qwen2.5-coder-7b");
        assert_eq!(b["max_tokens"], 1);
        assert_eq!(b["logprobs"], true);
        assert!(b["top_logprobs"].as_u64().unwrap() >= 5);
        assert_eq!(b["messages"][0]["role"], "system");
        assert_eq!(b["messages"][1]["role"], "user");
        // The canonical payload is what the judge sees, verbatim.
        let user = b["messages"][1]["content"].as_str().unwrap();
        assert!(user.contains(&payload.json), "{user}");
        let a = &axes()[axis_of(r)];
        assert!(user.contains(a.yes) && user.contains(a.no));
    }
}

#[test]
fn without_logprobs_it_asks_for_a_json_answer() {
    let server = TestServer::start(|req, _| {
        let body = req.json();
        let i = axis_of(req);
        if body.get("response_format").is_none() {
            // A server that ignores `logprobs`: a plain one-token answer.
            return Response::json(
                200,
                json!({"model": "llama3", "choices": [{"message": {"content": "Yes"}}]})
                    .to_string(),
            );
        }
        let (answer, confidence) = if truth(i) >= 0.5 {
            ("yes", truth(i))
        } else {
            ("no", 1.0 - truth(i))
        };
        let content = json!({"answer": answer, "confidence": confidence}).to_string();
        Response::json(
            200,
            json!({"model": "llama3", "choices": [{"message": {"content": content}}]}).to_string(),
        )
    });
    let scores = scorer(&server, None)
        .score(&sample_payload(), Duration::from_secs(5))
        .unwrap();
    for (i, v) in scores.values.iter().enumerate() {
        assert!((v - truth(i)).abs() < 1e-9, "{}: {v}", AXIS_IDS[i]);
    }
    assert_eq!(scores.model.as_deref(), Some("llama3"));

    let reqs = server.requests();
    assert_eq!(reqs.len(), 16, "a one-token try and a JSON try per axis");
    for r in &reqs {
        assert_eq!(
            r.header("authorization"),
            None,
            "no key configured, none sent"
        );
    }
    let fallbacks: Vec<Value> = reqs
        .iter()
        .map(Request::json)
        .filter(|b| b.get("response_format").is_some())
        .collect();
    assert_eq!(fallbacks.len(), 8);
    for b in fallbacks {
        assert_eq!(b["response_format"], json!({"type": "json_object"}));
        assert!(b.get("logprobs").is_none());
        let system = b["messages"][0]["content"].as_str().unwrap();
        assert!(system.contains("\"answer\"") && system.contains("\"confidence\""));
    }
}

#[test]
fn a_fallback_answer_that_is_not_strict_json_is_invalid() {
    let server = TestServer::always(Response::json(
        200,
        json!({"choices": [{"message": {"content": "Probably yes."}}]}).to_string(),
    ));
    let e = scorer(&server, Some(KEY))
        .score(&sample_payload(), Duration::from_secs(5))
        .unwrap_err();
    assert_eq!(Class::from(&e), "invalid_response");
    assert_keyless(&e);
}

#[test]
fn one_failing_axis_fails_the_whole_score() {
    let target = axes()[4].question;
    let server = TestServer::start(move |req, _| {
        let user = req.json()["messages"][1]["content"]
            .as_str()
            .unwrap()
            .to_owned();
        if user.contains(target) {
            Response::json(500, format!("{{\"error\":\"{KEY}\"}}"))
        } else {
            Response::json(200, logprob_reply(axis_of(req)))
        }
    });
    let e = scorer(&server, Some(KEY))
        .score(&sample_payload(), Duration::from_secs(5))
        .unwrap_err();
    assert_eq!(Class::from(&e), "http_500");
    assert_keyless(&e);
}

#[test]
fn statuses_and_garbage_map_to_classes() {
    let cases = [
        (Response::json(401, "{}"), "http_401"),
        (
            Response::new(302).header("Location", "http://127.0.0.1:1/"),
            "http_302",
        ),
        (Response::json(200, "not json"), "invalid_response"),
        (
            Response::json(200, vec![b' '; 100 * 1024]).without_length(),
            "response_too_large",
        ),
        (Response::Close, "network"),
    ];
    for (response, class) in cases {
        let server = TestServer::always(response);
        let e = scorer(&server, Some(KEY))
            .score(&sample_payload(), Duration::from_secs(5))
            .unwrap_err();
        assert_eq!(Class::from(&e), class);
        assert_keyless(&e);
    }
}

#[test]
fn a_silent_server_times_out_within_the_budget() {
    let server = TestServer::always(Response::Hang);
    let start = Instant::now();
    let e = scorer(&server, Some(KEY))
        .score(&sample_payload(), Duration::from_millis(400))
        .unwrap_err();
    assert_eq!(Class::from(&e), "timeout");
    assert!(
        start.elapsed() < Duration::from_millis(2500),
        "{:?}",
        start.elapsed()
    );
}

#[test]
fn configuration_errors() {
    // The public endpoint needs a key; a model is always needed.
    let e = OpenAiScorer::new(None, Some("gpt-4o-mini"), None).unwrap_err();
    assert_eq!(Class::from(&e), "missing_key");
    let e = OpenAiScorer::new(Some("http://127.0.0.1:8080/v1"), None, None).unwrap_err();
    assert_eq!(Class::from(&e), "scorer_config");
    let e = OpenAiScorer::new(Some("file:///etc/passwd"), Some("m"), None).unwrap_err();
    assert_eq!(Class::from(&e), "scorer_config");
    // A trailing slash on the base URL is fine.
    let server = TestServer::start(|req, _| Response::json(200, logprob_reply(axis_of(req))));
    OpenAiScorer::new(Some(&server.url("/v1/")), Some("m"), None)
        .unwrap()
        .score(&sample_payload(), Duration::from_secs(5))
        .unwrap();
    assert!(
        server
            .requests()
            .iter()
            .all(|r| r.path == "/v1/chat/completions")
    );
}
