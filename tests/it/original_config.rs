//! The original jev-preflight's documented `.jev-preflight.json`, verbatim, through the real
//! binary: it validates, `riskThreshold` decides which axes are selected, `timeoutMs` is the
//! scorer's time budget, and `exclude` keeps its paths out of the payload.

use std::time::{Duration, Instant};

use serde_json::{Value, json};

use crate::support::TestRepo;
use crate::support::hook::{HookEnv, HookResult, JevServer, event, with};
use crate::support::http::{Response, TestServer};

/// The example the original jev-preflight's README documents, byte for byte.
const ORIGINAL: &str = r#"{"mode": "assist", "riskThreshold": 0.85, "timeoutMs": 2000, "maxDiffBytes": 65536, "exclude": ["dist/**", "vendor/**"]}"#;

const KEY: &str = "sk-ts-ORIGINAL-CONFIG-5d1e";

/// A Jev reply: `auth_boundary` 0.9, `error_handling` 0.8, every other axis 0.1.
fn answer() -> String {
    let answers: serde_json::Map<String, Value> = jev_preflight::pipeline::axes::AXIS_IDS
        .iter()
        .map(|id| {
            let p = match *id {
                "auth_boundary" => 0.9,
                "error_handling" => 0.8,
                _ => 0.1,
            };
            (id.to_string(), json!({"noul": p}))
        })
        .collect();
    json!({"answers": answers, "model": "jev-test-1"}).to_string()
}

fn repo(config: &str) -> TestRepo {
    let repo = TestRepo::new();
    repo.write(".jev-preflight.json", config);
    repo.write("src/lib.rs", "pub fn f() -> u32 {\n    1\n}\n");
    repo.commit_all("init");
    repo
}

/// One prompt whose turn edits a source file and two excluded ones; the Stop's result.
fn turn(env: &HookEnv, repo: &TestRepo, prompt: &str) -> HookResult {
    env.run(&event("UserPromptSubmit", "s", prompt, repo.path()))
        .ok();
    repo.write(
        "src/lib.rs",
        format!("pub fn f() -> u32 {{\n    2 // {prompt}\n}}\n"),
    );
    repo.write("dist/bundle.js", format!("var x = '{prompt}';\n"));
    repo.write("vendor/lib/x.c", format!("int x = 0; /* {prompt} */\n"));
    let stop = env.run(&with(
        event("Stop", "s", prompt, repo.path()),
        json!({"stop_hook_active": false}),
    ));
    stop.ok();
    stop
}

/// The axis ids a continuation names, in its order.
fn named_axes(text: &str) -> Vec<&'static str> {
    jev_preflight::pipeline::axes::AXIS_IDS
        .into_iter()
        .filter(|id| text.contains(&format!("{id} (score ")))
        .collect()
}

#[test]
fn the_original_example_validates_and_risk_threshold_selects_the_axes() {
    let server = JevServer::start(200, &answer());
    let env = HookEnv::new().jev(&server, KEY);
    let repo = repo(ORIGINAL);

    // `doctor` and `eval` accept the file as it is.
    let doctor = env
        .command(&["doctor"])
        .current_dir(repo.path())
        .output()
        .unwrap();
    let report = String::from_utf8_lossy(&doctor.stdout);
    assert!(report.contains(".jev-preflight.json` is valid"), "{report}");
    assert!(
        report.contains("threshold 0.85") && report.contains("scorer budget 2000 ms (`timeoutMs`)"),
        "{report}"
    );

    // riskThreshold 0.85: auth_boundary (0.9) is selected, error_handling (0.8) is not.
    let stop = turn(&env, &repo, "p1");
    let text = stop.continuation().expect("a continuation");
    assert_eq!(named_axes(&text), ["auth_boundary"], "{text}");
    // `exclude` took effect: only the source file was sent.
    let sent = server.seen().last().unwrap().json();
    assert_eq!(sent["state"]["files"], json!(["src/lib.rs"]), "{sent}");

    // The same file with riskThreshold 0.75 selects both; with 0.95, none.
    for (risk, want) in [
        ("0.75", vec!["auth_boundary", "error_handling"]),
        ("0.95", vec![]),
    ] {
        repo.write(
            ".jev-preflight.json",
            ORIGINAL.replace(
                "\"riskThreshold\": 0.85",
                &format!("\"riskThreshold\": {risk}"),
            ),
        );
        let stop = turn(&env, &repo, &format!("risk-{risk}"));
        let text = stop.continuation().unwrap_or_default();
        assert_eq!(named_axes(&text), want, "riskThreshold {risk}: {stop:?}");
    }
    assert_eq!(server.requests(), 3);
}

#[test]
fn timeout_ms_is_the_scorer_budget() {
    // A scorer that answers after 3 s: within a 5 s budget, not within the example's 2 s.
    let server =
        TestServer::start(|_, _| Response::json(200, answer()).after(Duration::from_millis(3000)));
    let env = HookEnv::new()
        .var("JEV_PREFLIGHT_JEV_URL", &server.url("/v1/systemone"))
        .var("TYPESAFE_API_KEY", KEY);
    let repo = repo(ORIGINAL);

    let started = Instant::now();
    let stop = turn(&env, &repo, "p1");
    let elapsed = started.elapsed();
    assert_eq!(stop.class().as_deref(), Some("timeout"), "{stop:?}");
    assert!(
        stop.stderr.contains("did not answer within 2000 ms"),
        "{}",
        stop.stderr
    );
    assert!(stop.continuation().is_none());
    // The hook gave up at the budget, not when the server answered.
    assert!(elapsed < Duration::from_millis(2900), "{elapsed:?}");

    // `eval` honours it too.
    let eval = env
        .command(&["eval", "--json"])
        .current_dir(repo.path())
        .output()
        .unwrap();
    assert_eq!(eval.status.code(), Some(2));
    let err = String::from_utf8_lossy(&eval.stderr);
    assert!(err.contains("did not answer within 2000 ms"), "{err}");

    repo.write(
        ".jev-preflight.json",
        ORIGINAL.replace("\"timeoutMs\": 2000", "\"timeoutMs\": 5000"),
    );
    let stop = turn(&env, &repo, "p2");
    let text = stop.continuation().expect("answered within 5 s");
    assert_eq!(named_axes(&text), ["auth_boundary"], "{text}");
}

#[test]
fn a_repository_cannot_stretch_the_hook_past_its_budget() {
    let env = HookEnv::new();
    for too_long in ["20001", "60000", "3600000"] {
        let repo = repo(&ORIGINAL.replace("2000", too_long));
        let prompt = env.run(&event("UserPromptSubmit", too_long, "p1", repo.path()));
        prompt.ok();
        assert_eq!(
            prompt.class().as_deref(),
            Some("config_invalid"),
            "{prompt:?}"
        );
        assert!(
            prompt
                .stderr
                .contains("`timeoutMs`: must be a whole number from 100 to 20000"),
            "{}",
            prompt.stderr
        );
    }
}
