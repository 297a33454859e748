//! `eval --format sarif`: a SARIF 2.1.0 log for code scanning. The shape checks here are the
//! ones GitHub's code scanning relies on; full validation against the published 2.1.0 JSON
//! schema (vendored in `testdata/sarif/`) runs in `scripts/action/test`, which installs a
//! schema validator from PyPI.

use std::process::Output;

use serde_json::{Value, json};

use crate::support::TestRepo;
use crate::support::hook::HookEnv;

const API_BEFORE: &str = "use crate::auth::require_admin;\n\npub fn delete_user(db: &mut Db, caller: &Caller, id: u64) -> Result<(), E> {\n    require_admin(caller)?;\n    db.users().delete(id)?;\n    db.audit().record(caller.id, \"delete_user\", id)?;\n    Ok(())\n}\n";
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

/// A branch whose one commit drops an admin check and an audit record, in a file whose name
/// needs encoding.
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
    // The 8 axes as rules, in contract order (`tests/it/axes.rs` pins that order).
    assert_eq!(ids, jev_preflight::pipeline::axes::AXIS_IDS);
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

fn results_of(log: &Value) -> Vec<Value> {
    log["runs"][0]["results"].as_array().unwrap().clone()
}

fn fingerprint(result: &Value) -> String {
    let key = jev_preflight::cmd::eval::render::FINGERPRINT_KEY;
    result["partialFingerprints"][key]
        .as_str()
        .unwrap_or_else(|| panic!("no {key} fingerprint: {result:#}"))
        .to_owned()
}

#[test]
fn fingerprints_identify_a_finding_across_runs_and_moved_lines() {
    let env = HookEnv::new();
    let args = ["main...feature", "--scorer", "local", "--format", "sarif"];
    let repo = branch_repo();
    let first = results_of(&sarif_of(&eval(&env, &repo, &args)));
    let again = results_of(&sarif_of(&eval(&env, &repo, &args)));
    assert!(!first.is_empty());
    let prints: Vec<String> = first.iter().map(fingerprint).collect();
    assert_eq!(prints, again.iter().map(fingerprint).collect::<Vec<_>>());
    // One per finding: different axes never share one.
    let mut unique = prints.clone();
    unique.sort();
    unique.dedup();
    assert_eq!(unique.len(), prints.len(), "{prints:?}");
    assert!(
        prints
            .iter()
            .all(|p| p.len() == 32 && p.bytes().all(|b| b.is_ascii_hexdigit()))
    );

    // The same change three lines further down (a later push of the branch): the lines move,
    // the findings keep their fingerprints.
    let moved = TestRepo::new();
    let header = "// one\n// two\n// three\n";
    moved.write("src/user api.rs", format!("{header}{API_BEFORE}"));
    moved.commit_all("init");
    moved.git(&["checkout", "-q", "-b", "feature"]);
    moved.write("src/user api.rs", format!("{header}{API_AFTER}"));
    moved.commit_all("drop the check");
    let shifted = results_of(&sarif_of(&eval(&env, &moved, &args)));
    let auth = |results: &[Value]| {
        results
            .iter()
            .find(|r| r["ruleId"] == "auth_boundary")
            .cloned()
            .unwrap()
    };
    let (before, after) = (auth(&first), auth(&shifted));
    assert_ne!(
        before["locations"][0]["physicalLocation"]["region"]["startLine"],
        after["locations"][0]["physicalLocation"]["region"]["startLine"]
    );
    assert_eq!(fingerprint(&before), fingerprint(&after));
}

#[test]
fn rules_are_stable_and_security_axes_carry_a_severity() {
    let env = HookEnv::new();
    let scored = sarif_of(&eval(
        &env,
        &branch_repo(),
        &["main...feature", "--scorer", "local", "--format", "sarif"],
    ));
    let empty_repo = TestRepo::new();
    empty_repo.write("a.txt", "a\n");
    empty_repo.commit_all("init");
    let empty = sarif_of(&eval(&env, &empty_repo, &["--format", "sarif"]));
    let rules = |log: &Value| log["runs"][0]["tool"]["driver"]["rules"].clone();
    // The rules never depend on what was found.
    assert_eq!(rules(&scored), rules(&empty));
    for (index, rule) in rules(&scored).as_array().unwrap().iter().enumerate() {
        let id = rule["id"].as_str().unwrap();
        assert_eq!(id, jev_preflight::pipeline::axes::AXIS_IDS[index]);
        let tags: Vec<&str> = rule["properties"]["tags"]
            .as_array()
            .unwrap()
            .iter()
            .map(|t| t.as_str().unwrap())
            .collect();
        let severity = rule["properties"]["security-severity"].as_str();
        if matches!(id, "auth_boundary" | "input_validation") {
            // GitHub reads a number in a string, and uses it only with the `security` tag.
            let value: f64 = severity.unwrap().parse().unwrap();
            assert!((4.0..7.0).contains(&value), "{id}: {value}");
            assert!(tags.contains(&"security"), "{id}: {tags:?}");
            assert!(tags.iter().any(|t| t.starts_with("external/cwe/cwe-")));
        } else {
            assert_eq!(severity, None, "{id}");
            assert!(!tags.contains(&"security"), "{id}: {tags:?}");
        }
    }
    for result in results_of(&scored) {
        let index = result["ruleIndex"].as_u64().unwrap() as usize;
        assert_eq!(result["ruleId"], rules(&scored)[index]["id"]);
    }
}
