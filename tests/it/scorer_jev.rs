//! The `jev` backend against a real HTTP server on 127.0.0.1: the exact request, and every
//! failure mapped to its fail-open class without the key in any text.

use jev_preflight::hook::failure::Class;
use std::time::{Duration, Instant};

use jev_preflight::pipeline::axes::{AXIS_IDS, axes};
use jev_preflight::pipeline::payload::Payload;
use jev_preflight::scorer::jev::JevScorer;
use jev_preflight::scorer::secret::ApiKey;
use jev_preflight::scorer::{ScoreError, Scorer, Scores};
use serde_json::{Value, json};

use crate::support::http::{Response, TestServer, refused_addr};

pub const KEY: &str = "ts-live-K3Y-0f9e8d7c6b5a";

/// A payload whose JSON uses escapes a re-serializer would change (`\u00e9`, `\/`), so a
/// byte-for-byte comparison proves it was spliced in verbatim.
pub fn sample_payload() -> Payload {
    let json = r#"{"format":"unified_diff","files":["src\/caf\u00e9.rs"],"diff":"--- a/src/caf\u00e9.rs\n+++ b/src/caf\u00e9.rs\n@@ -1 +1 @@\n-    return owner == actor\n+    return true\n"}"#;
    Payload {
        json: json.to_owned(),
        hash: "0".repeat(64),
        files: vec!["src/café.rs".into()],
        diff: "-    return owner == actor\n+    return true\n".into(),
        omitted: vec![],
        redactions: Default::default(),
    }
}

/// A valid reply with `values` in contract order, plus fields a client must ignore.
pub fn reply_with(values: [f64; 8]) -> String {
    let mut answers = serde_json::Map::new();
    for (id, v) in AXIS_IDS.iter().zip(values) {
        answers.insert((*id).into(), json!({"noul": v, "reason": "ignored"}));
    }
    json!({"answers": answers, "model": "jev-2026-11", "usage": {"tokens": 12}}).to_string()
}

fn good_reply() -> String {
    reply_with([0.1, 0.97, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7])
}

fn scorer(server: &TestServer) -> JevScorer {
    JevScorer::new(
        Some(&server.url("/v1/systemone")),
        None,
        ApiKey::new(KEY).unwrap(),
    )
    .unwrap()
}

fn assert_keyless(e: &ScoreError) {
    let text = format!("{e} {e:?} {}", Class::from(e));
    assert!(!text.contains(KEY), "key leaked: {text}");
    assert!(!text.contains("K3Y"), "part of the key leaked: {text}");
}

/// Scores against a server answering every request with `response`; returns the error and
/// how many requests arrived.
fn fail_with(response: Response, budget: Duration) -> (ScoreError, usize) {
    let server = TestServer::always(response);
    let err = scorer(&server)
        .score(&sample_payload(), budget)
        .expect_err("this reply must be refused");
    assert_keyless(&err);
    (err, server.hits())
}

fn ok_with(body: impl Into<Vec<u8>>) -> Scores {
    let server = TestServer::always(Response::json(200, body));
    scorer(&server)
        .score(&sample_payload(), Duration::from_secs(5))
        .expect("this reply must be accepted")
}

const BUDGET: Duration = Duration::from_secs(3);

#[test]
fn happy_path_sends_the_exact_request() {
    let server = TestServer::always(Response::json(200, good_reply()));
    let scores = scorer(&server).score(&sample_payload(), BUDGET).unwrap();
    assert_eq!(scores.values, [0.1, 0.97, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7]);
    assert_eq!(scores.model.as_deref(), Some("jev-2026-11"));
    assert!(scores.evidence.is_empty());

    let reqs = server.requests();
    assert_eq!(reqs.len(), 1);
    let r = &reqs[0];
    assert_eq!(r.method, "POST");
    assert_eq!(r.path, "/v1/systemone");
    assert_eq!(r.header("authorization"), Some(&*format!("Bearer {KEY}")));
    assert_eq!(r.header_count("authorization"), 1);
    assert_eq!(r.header("content-type"), Some("application/json"));
    assert_eq!(r.header_count("content-type"), 1);
    assert_eq!(r.header("accept"), Some("application/json"));
    assert_eq!(r.header_count("accept"), 1);
    let mut names: Vec<&str> = r.headers.iter().map(|(k, _)| k.as_str()).collect();
    names.sort_unstable();
    assert_eq!(
        names,
        [
            "accept",
            "authorization",
            "content-length",
            "content-type",
            "host",
            "user-agent"
        ]
    );
    assert_eq!(
        r.header("user-agent"),
        Some(&*format!("jev-preflight/{}", env!("CARGO_PKG_VERSION")))
    );
    assert_eq!(r.header("content-length"), Some(&*r.body.len().to_string()));

    // The payload is spliced in byte for byte, followed by the model and the questions.
    let payload = sample_payload();
    let prefix = format!(
        "{{\"state\":{},\"model\":\"jev-latest\",\"questions\":{{",
        payload.json
    );
    assert!(r.body_str().starts_with(&prefix), "{}", r.body_str());

    // The whole body, as a value, is exactly the contract.
    let mut questions = serde_json::Map::new();
    for a in axes() {
        questions.insert(
            a.id.into(),
            json!({"type": "noul", "instructions": a.question,
                   "criteria": {"true": a.yes, "false": a.no}}),
        );
    }
    let state: Value = serde_json::from_str(&payload.json).unwrap();
    assert_eq!(
        r.json(),
        json!({"state": state, "model": "jev-latest", "questions": questions})
    );
    // Questions in contract order.
    let body = r.body_str();
    let positions: Vec<usize> = AXIS_IDS
        .iter()
        .map(|id| body.find(&format!("\"{id}\":{{\"")).unwrap())
        .collect();
    assert!(positions.windows(2).all(|w| w[0] < w[1]), "{positions:?}");
}

#[test]
fn pinned_model_is_sent() {
    let server = TestServer::always(Response::json(200, good_reply()));
    let s = JevScorer::new(
        Some(&server.url("/v1/systemone")),
        Some("jev-2026-10-01"),
        ApiKey::new(KEY).unwrap(),
    )
    .unwrap();
    s.score(&sample_payload(), BUDGET).unwrap();
    assert_eq!(server.requests()[0].json()["model"], "jev-2026-10-01");
}

#[test]
fn statuses_map_to_http_classes_without_retry() {
    for status in [400, 401, 403, 404, 500, 502] {
        let (e, hits) = fail_with(
            Response::json(status, format!(r#"{{"error":"bad key {KEY}"}}"#)),
            BUDGET,
        );
        assert_eq!(Class::from(&e), format!("http_{status}"));
        assert_eq!(hits, 1, "{status} must not be retried");
    }
}

#[test]
fn redirects_are_not_followed() {
    for status in [301, 302, 303, 307, 308] {
        let target = TestServer::always(Response::json(200, good_reply()));
        let location = target.url("/stolen");
        let (e, hits) = fail_with(Response::new(status).header("Location", &location), BUDGET);
        assert_eq!(Class::from(&e), format!("http_{status}"));
        assert_eq!(hits, 1);
        assert_eq!(target.hits(), 0, "{status} was followed");
    }
}

#[test]
fn retryable_statuses_retry_once_then_fail() {
    for status in [429, 503, 529] {
        let start = Instant::now();
        let (e, hits) = fail_with(Response::new(status), BUDGET);
        assert_eq!(Class::from(&e), format!("http_{status}"));
        assert_eq!(hits, 2, "{status}: exactly one retry");
        assert!(start.elapsed() < BUDGET);
    }
}

#[test]
fn retry_after_is_honoured_when_it_fits() {
    let server = TestServer::start(|_, n| {
        if n == 0 {
            Response::new(429).header("Retry-After", "1")
        } else {
            Response::json(200, good_reply())
        }
    });
    let start = Instant::now();
    let scores = scorer(&server).score(&sample_payload(), BUDGET).unwrap();
    let took = start.elapsed();
    assert_eq!(scores.values[1], 0.97);
    assert_eq!(server.hits(), 2);
    assert!(took >= Duration::from_secs(1), "did not wait: {took:?}");
    assert!(took < BUDGET, "{took:?}");
}

#[test]
fn retry_after_http_date_in_the_past_retries_now() {
    let server = TestServer::start(|_, n| {
        if n == 0 {
            Response::new(503).header("Retry-After", "Thu, 01 Jan 2015 00:00:00 GMT")
        } else {
            Response::json(200, good_reply())
        }
    });
    let start = Instant::now();
    scorer(&server).score(&sample_payload(), BUDGET).unwrap();
    assert_eq!(server.hits(), 2);
    assert!(start.elapsed() < Duration::from_secs(2));
}

#[test]
fn retry_after_that_does_not_fit_is_not_waited_for() {
    for value in ["30", "Fri, 31 Dec 2100 23:59:59 GMT"] {
        let start = Instant::now();
        let (e, hits) = fail_with(Response::new(429).header("Retry-After", value), BUDGET);
        assert_eq!(Class::from(&e), "http_429");
        assert_eq!(
            hits, 1,
            "{value}: no retry when the wait exceeds the budget"
        );
        assert!(start.elapsed() < Duration::from_secs(2), "{value}: waited");
    }
}

#[test]
fn no_retry_when_the_budget_is_nearly_spent() {
    let (e, hits) = fail_with(Response::new(529), Duration::from_millis(600));
    assert_eq!(Class::from(&e), "http_529");
    assert_eq!(hits, 1);
}

#[test]
fn a_server_that_never_answers_times_out_within_the_budget() {
    let start = Instant::now();
    let (e, _) = fail_with(Response::Hang, Duration::from_millis(400));
    assert_eq!(Class::from(&e), "timeout");
    assert!(
        start.elapsed() < Duration::from_millis(2500),
        "{:?}",
        start.elapsed()
    );
}

#[test]
fn headers_after_the_budget_time_out() {
    let (e, _) = fail_with(
        Response::json(200, good_reply()).after(Duration::from_secs(3)),
        Duration::from_millis(400),
    );
    assert_eq!(Class::from(&e), "timeout");
}

#[test]
fn a_slow_body_times_out_within_the_budget() {
    let start = Instant::now();
    let (e, _) = fail_with(
        Response::Slow {
            status: 200,
            body: good_reply().into_bytes(),
            chunks: 20,
            gap: Duration::from_millis(100),
        },
        Duration::from_millis(500),
    );
    assert_eq!(Class::from(&e), "timeout");
    assert!(
        start.elapsed() < Duration::from_millis(2500),
        "{:?}",
        start.elapsed()
    );
}

#[test]
fn connection_refused_is_network() {
    let addr = refused_addr();
    let s = JevScorer::new(
        Some(&format!("http://{addr}/v1/systemone")),
        None,
        ApiKey::new(KEY).unwrap(),
    )
    .unwrap();
    let e = s.score(&sample_payload(), BUDGET).unwrap_err();
    assert_keyless(&e);
    assert_eq!(Class::from(&e), "network");
}

#[test]
fn broken_connections_are_network() {
    let cases = [
        Response::Close,
        Response::Raw(b"this is not http\r\n\r\n".to_vec()),
        // Promises 100 bytes, sends 10, closes.
        Response::new(200)
            .header("Content-Length", "100")
            .body(&b"{\"answers\""[..]),
    ];
    for r in cases {
        let (e, _) = fail_with(r.clone(), BUDGET);
        assert_eq!(Class::from(&e), "network", "{r:?}");
    }
}

#[test]
fn oversized_bodies_are_refused_without_reading_them_all() {
    let big = format!("{}{}", good_reply(), " ".repeat(70 * 1024));
    let (e, _) = fail_with(Response::json(200, big.clone()), BUDGET);
    assert_eq!(Class::from(&e), "response_too_large");
    // No Content-Length: the cap applies while reading.
    let (e, _) = fail_with(Response::json(200, big).without_length(), BUDGET);
    assert_eq!(Class::from(&e), "response_too_large");
    // A 20 MiB stream is refused quickly: we stop at the cap.
    let start = Instant::now();
    let (e, _) = fail_with(
        Response::json(200, vec![b' '; 20 << 20]).without_length(),
        BUDGET,
    );
    assert_eq!(Class::from(&e), "response_too_large");
    assert!(start.elapsed() < Duration::from_secs(2));
}

#[test]
fn a_reply_of_exactly_64_kib_is_accepted() {
    let mut body = good_reply();
    body.push_str(&" ".repeat(64 * 1024 - body.len()));
    assert_eq!(body.len(), 65536);
    let s = ok_with(body.clone());
    assert_eq!(s.values[1], 0.97);
    body.push(' ');
    let (e, _) = fail_with(Response::json(200, body).without_length(), BUDGET);
    assert_eq!(Class::from(&e), "response_too_large");
}

/// Replies that arrive intact but break the contract.
#[test]
fn invalid_replies_are_invalid_response() {
    let good = good_reply();
    let with_axis = |id: &str, v: &str| {
        let mut r: Value = serde_json::from_str(&good).unwrap();
        r["answers"][id] = serde_json::from_str(v).unwrap();
        r.to_string()
    };
    let raw_noul = |literal: &str| good.replacen("0.97", literal, 1);
    let mut missing: Value = serde_json::from_str(&good).unwrap();
    missing["answers"]
        .as_object_mut()
        .unwrap()
        .remove("lifecycle");
    let cases: Vec<(&str, Vec<u8>)> = vec![
        ("empty", vec![]),
        ("not json", b"not json".to_vec()),
        ("html", b"<html>502</html>".to_vec()),
        ("truncated", good.as_bytes()[..good.len() / 2].to_vec()),
        ("trailing garbage", format!("{good}x").into_bytes()),
        ("two objects", format!("{good}{{}}").into_bytes()),
        ("array", b"[]".to_vec()),
        ("no answers", br#"{"model":"x"}"#.to_vec()),
        ("answers not object", br#"{"answers":[]}"#.to_vec()),
        ("missing axis", missing.to_string().into_bytes()),
        (
            "axis not object",
            with_axis("auth_boundary", "0.5").into_bytes(),
        ),
        (
            "noul missing",
            with_axis("auth_boundary", r#"{"yes":0.5}"#).into_bytes(),
        ),
        (
            "noul string",
            with_axis("auth_boundary", r#"{"noul":"0.5"}"#).into_bytes(),
        ),
        (
            "noul bool",
            with_axis("auth_boundary", r#"{"noul":true}"#).into_bytes(),
        ),
        (
            "noul null",
            with_axis("auth_boundary", r#"{"noul":null}"#).into_bytes(),
        ),
        (
            "noul NaN string",
            with_axis("auth_boundary", r#"{"noul":"NaN"}"#).into_bytes(),
        ),
        ("noul NaN literal", raw_noul("NaN").into_bytes()),
        ("noul Infinity literal", raw_noul("Infinity").into_bytes()),
        ("noul overflow", raw_noul("1e999").into_bytes()),
        ("noul above 1", raw_noul("1.0000001").into_bytes()),
        ("noul below 0", raw_noul("-0.01").into_bytes()),
        ("noul 2", raw_noul("2").into_bytes()),
        ("not utf-8", b"{\"answers\":\xff}".to_vec()),
    ];
    for (name, body) in cases {
        let (e, hits) = fail_with(Response::json(200, body), BUDGET);
        assert_eq!(Class::from(&e), "invalid_response", "{name}: {e}");
        assert_eq!(hits, 1, "{name}");
    }
}

#[test]
fn bounds_zero_and_one_are_accepted() {
    let s = ok_with(reply_with([0.0, 1.0, 0.0, 1.0, 0.5, 0.0, 1.0, 0.25]));
    assert_eq!(s.values, [0.0, 1.0, 0.0, 1.0, 0.5, 0.0, 1.0, 0.25]);
    // Integer literals too, and surrounding whitespace.
    let ints = reply_with([0.5; 8])
        .replace(
            r#""auth_boundary":{"noul":0.5"#,
            r#""auth_boundary":{"noul":0"#,
        )
        .replace(r#""lifecycle":{"noul":0.5"#, r#""lifecycle":{"noul":1"#);
    let s = ok_with(format!("\n {ints} \r\n"));
    assert_eq!(s.values, [0.5, 0.0, 0.5, 0.5, 0.5, 0.5, 1.0, 0.5]);
}

#[test]
fn missing_or_odd_model_is_not_recorded() {
    let mut r: Value = serde_json::from_str(&good_reply()).unwrap();
    r.as_object_mut().unwrap().remove("model");
    assert_eq!(ok_with(r.to_string()).model, None);
    r["model"] = json!(42);
    assert_eq!(ok_with(r.to_string()).model, None);
}

#[test]
fn a_key_echoed_by_the_server_is_scrubbed() {
    let mut r: Value = serde_json::from_str(&good_reply()).unwrap();
    r["model"] = json!(format!("echo {KEY}"));
    let s = ok_with(r.to_string());
    assert_eq!(s.model.as_deref(), Some("echo ****"));
    let (e, _) = fail_with(
        Response::json(200, format!(r#"{{"answers":"{KEY}"}}"#)),
        BUDGET,
    );
    assert_eq!(Class::from(&e), "invalid_response");
}

#[test]
fn plain_http_is_refused_off_loopback() {
    let e = JevScorer::new(
        Some("http://gateway.example.com/v1/systemone"),
        None,
        ApiKey::new(KEY).unwrap(),
    )
    .unwrap_err();
    assert_eq!(Class::from(&e), "scorer_config");
    assert_keyless(&e);
}

#[test]
fn a_payload_that_is_not_json_is_never_sent() {
    let server = TestServer::always(Response::json(200, good_reply()));
    let mut p = sample_payload();
    p.json.push('}');
    let e = scorer(&server).score(&p, BUDGET).unwrap_err();
    assert_eq!(Class::from(&e), "scorer_config");
    assert_eq!(server.hits(), 0);
}

#[test]
fn a_key_with_forbidden_characters_is_a_config_error_without_the_key() {
    let server = TestServer::always(Response::json(200, good_reply()));
    let s = JevScorer::new(
        Some(&server.url("/v1/systemone")),
        None,
        ApiKey::new(&format!("{KEY}\ninjected: yes")).unwrap(),
    )
    .unwrap();
    let e = s.score(&sample_payload(), BUDGET).unwrap_err();
    assert_eq!(Class::from(&e), "scorer_config");
    assert_keyless(&e);
    assert_eq!(server.hits(), 0);
}

#[test]
fn https_goes_through_tls_and_fails_closed_against_plain_http() {
    // The loopback server speaks plain HTTP; a TLS client must refuse it, not downgrade.
    let server = TestServer::always(Response::json(200, good_reply()));
    let s = JevScorer::new(
        Some(&format!("https://{}/v1/systemone", server.addr())),
        None,
        ApiKey::new(KEY).unwrap(),
    )
    .unwrap();
    let e = s.score(&sample_payload(), BUDGET).unwrap_err();
    assert_keyless(&e);
    assert_eq!(Class::from(&e), "network", "{e}");
    assert!(
        server.requests().is_empty(),
        "a request was read in clear text"
    );
}
