//! `eval --format sarif`: a SARIF 2.1.0 log for code scanning. The shape checks here are the
//! ones GitHub's code scanning relies on; full validation against the published 2.1.0 JSON
//! schema (vendored in `testdata/sarif/`) runs in `scripts/action/test`, which installs a
//! schema validator from PyPI.

use std::process::Output;

use serde_json::{Value, json};

use crate::support::TestRepo;
use crate::support::hook::HookEnv;

const API_BEFORE: &str = "use crate::auth::require_admin;\n\npub fn delete_user(db: &mut Db, caller: &Caller, id: u64) -> Result<(), E> {\n    require_admin(caller)?;\n    db.users().delete(id)?;\n    Ok(())\n}\n";
const API_AFTER: &str = "use crate::auth::require_admin;\n\npub fn delete_user(db: &mut Db, caller: &Caller, id: u64) -> Result<(), E> {\n    db.users().delete(id)?;\n    Ok(())\n}\n";

fn eval(env: &HookEnv, repo: &TestRepo, args: &[&str]) -> Output {
    env.command(&[&["eval"], args].concat())
        .current_dir(repo.path())
        .output()
        .unwrap()
}

fn sarif_of(out: &Output) -> Value {
    serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
        panic!(
            "{e}: {}\n{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        )
    })
}

/// A branch whose one commit drops an admin check, in a file whose name needs encoding.
fn branch_repo() -> TestRepo {
    let repo = TestRepo::new();
    repo.write("src/user api.rs", API_BEFORE);
    repo.commit_all("init");
    repo.git(&["checkout", "-q", "-b", "feature"]);
    repo.write("src/user api.rs", API_AFTER);
    repo.commit_all("drop the check");
    repo
}

#[test]
fn one_result_per_selected_axis_with_its_evidence() {
    let repo = branch_repo();
    let env = HookEnv::new();
    let out = eval(
        &env,
        &repo,
        &[
            "main...feature",
            "--scorer",
            "local",
            "--format",
            "sarif",
            "--fail-on",
            "0.5",
        ],
    );
    // `--fail-on` still decides the exit code.
    assert_eq!(out.status.code(), Some(1));
    let log = sarif_of(&out);
    let json_out = eval(
        &env,
        &repo,
        &["main...feature", "--scorer", "local", "--json"],
    );
    let report: Value = serde_json::from_slice(&json_out.stdout).unwrap();

    assert_eq!(log["version"], "2.1.0");
    assert!(
        log["$schema"]
            .as_str()
            .unwrap()
            .ends_with("sarif-schema-2.1.0.json")
    );
    let run = &log["runs"][0];
    let rules = run["tool"]["driver"]["rules"].as_array().unwrap();
    let ids: Vec<&str> = rules.iter().map(|r| r["id"].as_str().unwrap()).collect();
    assert_eq!(
        ids,
        [
            "behavior_regression",
            "auth_boundary",
            "input_validation",
            "data_integrity",
            "error_handling",
            "compatibility",
            "lifecycle",
            "regression_tests"
        ]
    );
    assert!(rules.iter().all(|r| {
        r["shortDescription"]["text"]
            .as_str()
            .is_some_and(|t| t.ends_with('?'))
    }));

    let results = run["results"].as_array().unwrap();
    let selected: Vec<&str> = report["selected"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_str().unwrap())
        .collect();
    assert!(!selected.is_empty());
    let rule_ids: Vec<&str> = results
        .iter()
        .map(|r| r["ruleId"].as_str().unwrap())
        .collect();
    assert_eq!(rule_ids, selected);
    let auth = results
        .iter()
        .find(|r| r["ruleId"] == "auth_boundary")
        .unwrap();
    assert_eq!(auth["ruleIndex"], 1);
    let score = report["scores"]["auth_boundary"].as_f64().unwrap();
    assert_eq!(
        auth["level"],
        if score >= 0.5 { "error" } else { "warning" }
    );
    let text = auth["message"]["text"].as_str().unwrap();
    assert!(text.contains(rules[1]["shortDescription"]["text"].as_str().unwrap()));
    assert!(text.contains(&format!("score {score:.2}")), "{text}");
    let loc = &auth["locations"][0]["physicalLocation"];
    assert_eq!(loc["artifactLocation"]["uri"], "src/user%20api.rs");
    assert_eq!(loc["artifactLocation"]["uriBaseId"], "SRCROOT");
    let evidence_line = report["evidence"]
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e["axis"] == "auth_boundary")
        .unwrap()["line"]
        .clone();
    assert_eq!(loc["region"]["startLine"], evidence_line);
    assert_eq!(run["properties"]["status"], "scored");
}

#[test]
fn sarif_file_next_to_markdown_from_one_scoring() {
    let repo = branch_repo();
    let env = HookEnv::new();
    let path = env.root.path().join("out.sarif");
    let out = eval(
        &env,
        &repo,
        &[
            "main...feature",
            "--scorer",
            "local",
            "--format",
            "markdown",
            "--sarif",
            path.to_str().unwrap(),
        ],
    );
    assert_eq!(out.status.code(), Some(0));
    assert!(String::from_utf8_lossy(&out.stdout).starts_with("### jev-preflight"));
    let log: Value = serde_json::from_slice(&std::fs::read(&path).unwrap()).unwrap();
    assert_eq!(log["runs"][0]["results"][0]["ruleId"], "auth_boundary");

    let out = eval(
        &env,
        &repo,
        &["main...feature", "--sarif", "/nonexistent/dir/out.sarif"],
    );
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("could not write `/nonexistent/dir/out.sarif`"),
        "{err}"
    );
}

#[test]
fn nothing_to_score_is_a_valid_log_without_results() {
    let repo = TestRepo::new();
    repo.write("a.txt", "a\n");
    repo.commit_all("init");
    let env = HookEnv::new();
    let out = eval(&env, &repo, &["--scorer", "local", "--format", "sarif"]);
    assert_eq!(out.status.code(), Some(0));
    let log = sarif_of(&out);
    assert_eq!(log["runs"][0]["results"], json!([]));
    assert_eq!(log["runs"][0]["properties"]["status"], "nothing_to_score");
    assert_eq!(
        log["runs"][0]["tool"]["driver"]["rules"]
            .as_array()
            .unwrap()
            .len(),
        8
    );
}
