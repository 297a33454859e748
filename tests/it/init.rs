//! `init`: the starter config on a real temp repo, the schema it points at, the explanation;
//! and the completions and man page generated from a clap command.

use std::collections::BTreeSet;
use std::fs;

use jev_preflight::cmd::docs::{self, DocsError, SHELLS};
use jev_preflight::cmd::init::{self, CONFIG_FILE, CONFIG_SCHEMA, InitError, KEYS, SCHEMA_URL};
use jev_preflight::git::snapshot::DEFAULT_UNTRACKED_CAP;
use jev_preflight::pipeline::axes::{AXIS_IDS, DEFAULT_THRESHOLD};
use jev_preflight::pipeline::payload::DEFAULT_MAX_DIFF_BYTES;
use serde_json::{Value, json};

use crate::support::TestRepo;

fn schema() -> Value {
    serde_json::from_str(CONFIG_SCHEMA).unwrap()
}

/// A checker for the subset of JSON Schema that `config.schema.json` uses: `type`, `enum`,
/// `minimum`/`maximum`, `maxItems`, `items`, `properties`,
/// `additionalProperties: false`, `required`, `not`, and local `$ref`. Any other keyword fails the check, so the
/// schema cannot grow a rule this test silently ignores.
fn violations(root: &Value, schema: &Value, value: &Value, at: &str) -> Vec<String> {
    const KNOWN: &[&str] = &[
        "$schema",
        "$id",
        "$defs",
        "$ref",
        "title",
        "description",
        "default",
        "type",
        "enum",
        "minimum",
        "maximum",
        "maxItems",
        "items",
        "properties",
        "additionalProperties",
        "required",
        "not",
    ];
    let mut out = Vec::new();
    for keyword in schema.as_object().unwrap().keys() {
        assert!(
            KNOWN.contains(&keyword.as_str()),
            "unsupported keyword `{keyword}`"
        );
    }
    if let Some(inner) = schema.get("not")
        && violations(root, inner, value, at).is_empty()
    {
        out.push(format!("{at}: matches what `not` forbids"));
    }
    if let (Some(required), Some(members)) = (
        schema.get("required").and_then(Value::as_array),
        value.as_object(),
    ) {
        for key in required {
            if !members.contains_key(key.as_str().unwrap()) {
                out.push(format!("{at}: `{key}` missing"));
            }
        }
    }
    if let Some(pointer) = schema.get("$ref").and_then(Value::as_str) {
        let target = root.pointer(pointer.trim_start_matches('#')).unwrap();
        return violations(root, target, value, at);
    }
    let type_ok = match schema.get("type").and_then(Value::as_str) {
        None => true,
        Some("object") => value.is_object(),
        Some("array") => value.is_array(),
        Some("string") => value.is_string(),
        Some("number") => value.is_number(),
        Some("integer") => value.is_u64() || value.is_i64(),
        Some(other) => panic!("unsupported type {other}"),
    };
    if !type_ok {
        out.push(format!("{at}: wrong type"));
        return out;
    }
    if let Some(allowed) = schema.get("enum").and_then(Value::as_array)
        && !allowed.contains(value)
    {
        out.push(format!("{at}: not in enum"));
    }
    if let Some(x) = value.as_f64() {
        if schema
            .get("minimum")
            .and_then(Value::as_f64)
            .is_some_and(|lo| x < lo)
        {
            out.push(format!("{at}: below minimum"));
        }
        if schema
            .get("maximum")
            .and_then(Value::as_f64)
            .is_some_and(|hi| x > hi)
        {
            out.push(format!("{at}: above maximum"));
        }
    }
    if let Some(items) = value.as_array() {
        if schema
            .get("maxItems")
            .and_then(Value::as_u64)
            .is_some_and(|n| items.len() as u64 > n)
        {
            out.push(format!("{at}: too many items"));
        }
        if let Some(item_schema) = schema.get("items") {
            for (i, item) in items.iter().enumerate() {
                out.extend(violations(root, item_schema, item, &format!("{at}[{i}]")));
            }
        }
    }
    if let Some(members) = value.as_object() {
        let properties = schema.get("properties").and_then(Value::as_object);
        for (key, member) in members {
            match properties.and_then(|p| p.get(key)) {
                Some(sub) => out.extend(violations(root, sub, member, &format!("{at}/{key}"))),
                None if schema.get("additionalProperties") == Some(&json!(false)) => {
                    out.push(format!("{at}/{key}: unknown key"))
                }
                None => {}
            }
        }
    }
    out
}

fn check(value: &Value) -> Vec<String> {
    let root = schema();
    violations(&root, &root, value, "")
}

#[test]
fn init_writes_the_starter_at_the_repo_top() {
    let repo = TestRepo::new();
    let outcome = init::init(repo.path(), false).unwrap();
    assert_eq!(outcome.path, repo.path().join(CONFIG_FILE));
    assert!(!outcome.replaced);
    let text = fs::read_to_string(&outcome.path).unwrap();
    assert_eq!(text, init::starter_config());
    // `$schema` comes first so editors find it at a glance.
    assert!(
        text.starts_with(&format!("{{\n  \"$schema\": \"{SCHEMA_URL}\",\n")),
        "{text}"
    );
    // Nothing else was written: the only change in the repository is the new file.
    assert_eq!(
        repo.git(&["status", "--porcelain", "--untracked-files=all"]),
        "?? .jev-preflight.json\n"
    );
}

#[test]
fn init_refuses_to_overwrite_unless_forced() {
    let repo = TestRepo::new();
    repo.write(CONFIG_FILE, "{\"mode\": \"off\"}\n");
    let err = init::init(repo.path(), false).unwrap_err();
    assert!(matches!(&err, InitError::Exists { path } if *path == repo.path().join(CONFIG_FILE)));
    assert_eq!(
        err.to_string(),
        format!(
            "`{}` already exists",
            repo.path().join(CONFIG_FILE).display()
        )
    );
    assert!(err.hint().unwrap().contains("--force"));
    assert_eq!(
        fs::read_to_string(repo.path().join(CONFIG_FILE)).unwrap(),
        "{\"mode\": \"off\"}\n"
    );

    let outcome = init::init(repo.path(), true).unwrap();
    assert!(outcome.replaced);
    assert_eq!(
        fs::read_to_string(&outcome.path).unwrap(),
        init::starter_config()
    );
    let leftovers: Vec<_> = fs::read_dir(repo.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .filter(|n| n != ".git")
        .collect();
    assert_eq!(leftovers, [CONFIG_FILE]);
}

#[test]
fn init_into_a_missing_directory_is_a_write_error() {
    let repo = TestRepo::new();
    let err = init::init(&repo.path().join("nope"), false).unwrap_err();
    assert!(matches!(err, InitError::Write { .. }), "{err:?}");
    assert!(err.to_string().starts_with("could not write `"), "{err}");
}

#[test]
fn starter_validates_against_the_schema_and_uses_every_key() {
    let starter: Value = serde_json::from_str(&init::starter_config()).unwrap();
    assert_eq!(check(&starter), Vec::<String>::new());
    let starter_keys: BTreeSet<&str> = starter
        .as_object()
        .unwrap()
        .keys()
        .map(String::as_str)
        .collect();
    let schema = schema();
    let schema_keys: BTreeSet<&str> = schema["properties"]
        .as_object()
        .unwrap()
        .keys()
        .map(String::as_str)
        .collect();
    let listed: BTreeSet<&str> = KEYS.into_iter().collect();
    // Every key but `threshold` (set, it would replace the local scorer's calibrated
    // default), its other name `riskThreshold`, `timeoutMs` (the hook's own budget) and
    // `memoryDays` (set, it would replace the user's own).
    let mut expected = schema_keys.clone();
    for key in init::NOT_IN_STARTER {
        assert!(expected.remove(key), "{key}");
    }
    assert_eq!(starter_keys, expected);
    assert_eq!(listed, schema_keys);
    // The starter's key order is `KEYS`.
    let text = init::starter_config();
    let positions: Vec<usize> = KEYS
        .iter()
        .filter(|k| !init::NOT_IN_STARTER.contains(k))
        .map(|k| text.find(&format!("\"{k}\"")).unwrap())
        .collect();
    assert!(positions.is_sorted());
    // Every value in the starter is the schema's documented default.
    for (key, value) in starter.as_object().unwrap() {
        if key != "$schema" {
            assert_eq!(&schema["properties"][key]["default"], value, "{key}");
        }
    }
}

#[test]
fn schema_defaults_and_axes_match_the_code() {
    let schema = schema();
    let p = &schema["properties"];
    // The threshold's default depends on the scorer, so the schema states it in words, from
    // the real values, instead of one number.
    assert_eq!(p["threshold"].get("default"), None);
    let story = jev_preflight::scorer::threshold::default_story();
    assert!(
        p["threshold"]["description"]
            .as_str()
            .unwrap()
            .contains(&story),
        "the schema's `threshold` description must say: {story}"
    );
    assert!(story.ends_with(&format!("{DEFAULT_THRESHOLD} for the other scorers")));
    for key in ["threshold", "riskThreshold"] {
        assert_eq!(
            (&p[key]["minimum"], &p[key]["maximum"]),
            (&json!(0), &json!(1))
        );
    }
    let (lo, hi) = jev_preflight::config::TIMEOUT_MS_RANGE;
    assert_eq!(
        (&p["timeoutMs"]["minimum"], &p["timeoutMs"]["maximum"]),
        (&json!(lo), &json!(hi))
    );
    assert_eq!(
        p["timeoutMs"]["default"],
        json!(jev_preflight::hook::SCORER_BUDGET.as_millis() as u64)
    );
    assert_eq!(p["maxDiffBytes"]["default"], json!(DEFAULT_MAX_DIFF_BYTES));
    assert_eq!(
        p["untrackedMaxBytes"]["default"],
        json!(DEFAULT_UNTRACKED_CAP)
    );
    assert_eq!(
        p["memoryDays"]["default"],
        json!(jev_preflight::config::DEFAULT_MEMORY_DAYS)
    );
    assert_eq!(
        (
            p["memoryDays"]["minimum"].as_u64(),
            p["memoryDays"]["maximum"].as_u64()
        ),
        (
            Some(jev_preflight::config::MEMORY_DAYS_RANGE.0),
            Some(jev_preflight::config::MEMORY_DAYS_RANGE.1)
        )
    );
    let axes: BTreeSet<&str> = p["thresholds"]["properties"]
        .as_object()
        .unwrap()
        .keys()
        .map(String::as_str)
        .collect();
    assert_eq!(axes, AXIS_IDS.into_iter().collect());
    assert_eq!(schema["$id"], json!(SCHEMA_URL));
    assert_eq!(schema["additionalProperties"], json!(false));
    assert_eq!(p["thresholds"]["additionalProperties"], json!(false));
}

#[test]
fn the_schema_rejects_what_the_config_parser_rejects() {
    // The checker must be able to fail, and the schema must carry the parser's rules
    // (src/config.rs: ranges, enums, strict keys).
    let bad = [
        json!({"mode": "loud"}),
        json!({"mode": null}),
        json!({"threshold": 1.5}),
        json!({"threshold": -0.1}),
        json!({"threshold": "0.5"}),
        json!({"thresholds": {"nope": 0.5}}),
        json!({"thresholds": {"lifecycle": 2}}),
        json!({"thresholds": []}),
        json!({"maxDiffBytes": 10}),
        json!({"maxDiffBytes": 4194305}),
        json!({"maxDiffBytes": 1.5e4}),
        json!({"oversize": "drop"}),
        json!({"exclude": "a"}),
        json!({"exclude": [1]}),
        json!({"exclude": vec!["x"; 257]}),
        json!({"untrackedMaxBytes": 0}),
        json!({"untrackedMaxBytes": 1073741825u64}),
        json!({"answer": "maybe"}),
        json!({"memoryDays": 31}),
        json!({"memoryDays": -1}),
        json!({"memoryDays": 1.5}),
        json!({"jevUrl": "http://evil"}),
        json!({"command": ["sh"]}),
        json!({"$schema": 1}),
        json!([]),
        json!({"riskThreshold": 1.5}),
        json!({"riskThreshold": "0.85"}),
        json!({"threshold": 0.5, "riskThreshold": 0.5}),
        json!({"timeoutMs": 99}),
        json!({"timeoutMs": 20001}),
        json!({"timeoutMs": 1500.5}),
    ];
    for value in bad {
        assert!(!check(&value).is_empty(), "{value} passed");
    }
    let good = [
        json!({}),
        json!({"mode": "report", "threshold": 0, "thresholds": {"auth_boundary": 1}}),
        json!({"maxDiffBytes": 1024, "untrackedMaxBytes": 1, "exclude": ["docs/**"], "oversize": "skip", "answer": "block"}),
        json!({"maxDiffBytes": 4194304, "untrackedMaxBytes": 1073741824u64, "mode": "off", "answer": "context"}),
        // The original jev-preflight's documented example.
        json!({"mode": "assist", "riskThreshold": 0.85, "timeoutMs": 2000, "maxDiffBytes": 65536, "exclude": ["dist/**", "vendor/**"]}),
        json!({"memoryDays": 0}),
        json!({"memoryDays": 30}),
    ];
    for value in good {
        assert_eq!(check(&value), Vec::<String>::new(), "{value}");
    }
}

#[test]
fn explanation_covers_every_key_with_its_default() {
    let text = init::explanation();
    for key in KEYS {
        assert!(
            text.contains(&format!("\n  {key}: ")),
            "{key} missing:\n{text}"
        );
    }
    for line in [
        "  mode: one of \"assist\", \"report\", \"off\"; default \"assist\"",
        "  threshold: number from 0 to 1\n",
        "  riskThreshold: number from 0 to 1\n",
        "  timeoutMs: whole number from 100 to 20000; default 20000",
        "  maxDiffBytes: whole number from 1024 to 4194304; default 65536",
        "  exclude: array of strings, at most 256; default []",
    ] {
        assert!(text.contains(line), "missing {line:?}:\n{text}");
    }
    assert!(text.contains("  thresholds: object of axis id to number from 0 to 1; default {}\n"));
    let flat = text.split_whitespace().collect::<Vec<_>>().join(" ");
    assert!(
        flat.contains(&format!("Axis ids: {}.", AXIS_IDS.join(", "))),
        "{text}"
    );
    assert!(
        text.contains("A repository cannot choose where data goes"),
        "{text}"
    );
    let story = jev_preflight::scorer::threshold::default_story();
    assert!(flat.contains(&story), "{story}\n{text}");
    assert!(text.lines().all(|l| l.chars().count() <= 100), "{text}");
}

fn sample_command() -> clap::Command {
    clap::Command::new("jev-preflight")
        .version("0.1.0")
        .about("Scores each agent turn's change on 8 risk axes")
        .subcommand(
            clap::Command::new("eval")
                .about("Score the working tree against HEAD")
                .arg(
                    clap::Arg::new("json")
                        .long("json")
                        .action(clap::ArgAction::SetTrue)
                        .help("Print one JSON object"),
                )
                .arg(
                    clap::Arg::new("fail-on")
                        .long("fail-on")
                        .value_name("THRESHOLD"),
                ),
        )
        .subcommand(
            clap::Command::new("install")
                .about("Register the hooks")
                .arg(
                    clap::Arg::new("user")
                        .long("user")
                        .action(clap::ArgAction::SetTrue),
                ),
        )
}

#[test]
fn completions_for_every_shell_name_the_subcommands_and_flags() {
    for shell in SHELLS {
        let mut out = Vec::new();
        docs::completions(&mut sample_command(), shell, &mut out).unwrap();
        let script = String::from_utf8(out).unwrap();
        for word in ["jev-preflight", "eval", "install", "fail-on", "json"] {
            assert!(script.contains(word), "{shell}: `{word}` missing");
        }
    }
    let mut out = Vec::new();
    docs::completions(&mut sample_command(), "Bash", &mut out).unwrap();
    assert!(String::from_utf8(out).unwrap().contains("complete -F"));
}

#[test]
fn unknown_shell_is_an_error_with_the_choices() {
    let mut out = Vec::new();
    let err = docs::completions(&mut sample_command(), "tcsh", &mut out).unwrap_err();
    assert!(matches!(&err, DocsError::UnknownShell(s) if s == "tcsh"));
    assert_eq!(err.to_string(), "unknown shell `tcsh`");
    assert_eq!(
        err.hint().unwrap(),
        "choose one of bash, elvish, fish, powershell, zsh"
    );
    assert!(out.is_empty());
}

#[test]
fn a_closed_output_is_an_error_not_a_panic() {
    struct Closed;
    impl std::io::Write for Closed {
        fn write(&mut self, _: &[u8]) -> std::io::Result<usize> {
            Err(std::io::ErrorKind::BrokenPipe.into())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }
    let err = docs::completions(&mut sample_command(), "zsh", &mut Closed).unwrap_err();
    assert!(matches!(err, DocsError::Write(_)), "{err:?}");
    let err = docs::man_page(&sample_command(), &mut Closed).unwrap_err();
    assert!(matches!(err, DocsError::Write(_)), "{err:?}");
}

#[test]
fn man_page_is_roff_with_the_subcommands() {
    let mut out = Vec::new();
    docs::man_page(&sample_command(), &mut out).unwrap();
    let page = String::from_utf8(out).unwrap();
    assert!(page.contains(".TH jev-preflight 1"), "{page}");
    assert!(page.contains("Scores each agent turn"), "{page}");
    for sub in ["eval", "install"] {
        assert!(page.contains(sub), "{sub} missing:\n{page}");
    }
    assert!(page.contains("0.1.0"), "{page}");
}
