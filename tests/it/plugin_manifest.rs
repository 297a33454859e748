//! `.claude-plugin/plugin.json` and `marketplace.json`: the fields Claude Code and users rely
//! on, the hook wiring (exec form through the launcher, timeouts inside the host's limits), and
//! the archive pin's shape. `claude plugin validate --strict` runs in `scripts/e2e-claude-code`.

use serde_json::Value;

const REPO: &str = env!("CARGO_MANIFEST_DIR");

fn read(rel: &str) -> Value {
    let text = std::fs::read_to_string(format!("{REPO}/{rel}")).unwrap();
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{rel}: {e}"))
}

#[test]
fn plugin_identity_matches_the_crate() {
    let p = read(".claude-plugin/plugin.json");
    assert_eq!(p["name"], "jev-preflight");
    assert_eq!(p["version"], env!("CARGO_PKG_VERSION"));
    assert_eq!(p["license"], env!("CARGO_PKG_LICENSE"));
    assert_eq!(p["repository"], env!("CARGO_PKG_REPOSITORY"));
    assert!(p["description"].as_str().is_some_and(|d| d.len() > 20));
    assert!(p["author"]["name"].as_str().is_some_and(|n| !n.is_empty()));
}

#[test]
fn user_config_options_are_complete() {
    let p = read(".claude-plugin/plugin.json");
    let options = p["userConfig"].as_object().expect("userConfig");
    let key_ok = |k: &str| {
        let mut chars = k.chars();
        chars
            .next()
            .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
            && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
    };
    for (key, option) in options {
        assert!(
            key_ok(key),
            "{key} cannot become CLAUDE_PLUGIN_OPTION_<KEY>"
        );
        for field in ["type", "title", "description"] {
            assert!(
                option[field].as_str().is_some_and(|s| !s.is_empty()),
                "{key}.{field}"
            );
        }
        assert!(
            ["string", "number", "boolean", "directory", "file"]
                .contains(&option["type"].as_str().unwrap()),
            "{key}"
        );
        // The key is optional: without it the built-in local scorer runs.
        assert_ne!(option["required"], true, "{key} must not be required");
    }
    let key = &options["typesafe_api_key"];
    assert_eq!(key["sensitive"], true);
    assert!(key.get("default").is_none(), "a key must have no default");
    assert_eq!(options["openai_api_key"]["sensitive"], true);
    let scorers: Vec<&str> = options["scorer"]["options"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_str().unwrap())
        .collect();
    assert_eq!(scorers, ["auto", "jev", "openai", "command", "local"]);
    assert_eq!(options["scorer"]["default"], "auto");
    let threshold = &options["threshold"];
    assert_eq!(
        (threshold["min"].as_f64(), threshold["max"].as_f64()),
        (Some(0.0), Some(1.0))
    );
}

#[test]
fn hooks_run_the_launcher_in_exec_form_within_host_limits() {
    let p = read(".claude-plugin/plugin.json");
    let hooks = p["hooks"].as_object().expect("inline hooks");
    let mut events: Vec<&str> = hooks.keys().map(String::as_str).collect();
    events.sort();
    assert_eq!(events, ["SessionEnd", "Stop", "UserPromptSubmit"]);
    for (event, groups) in hooks {
        let groups = groups.as_array().unwrap();
        assert_eq!(groups.len(), 1, "{event}");
        let handlers = groups[0]["hooks"].as_array().unwrap();
        assert_eq!(handlers.len(), 1, "{event}");
        let h = &handlers[0];
        assert_eq!(h["type"], "command");
        assert_eq!(
            h["command"], "${CLAUDE_PLUGIN_ROOT}/bin/jev-preflight",
            "{event}"
        );
        assert_eq!(h["args"], serde_json::json!(["hook"]), "{event}");
        assert!(
            !h.to_string().contains("user_config"),
            "{event}: ${{user_config.*}} fails when unset"
        );
        let timeout = h["timeout"].as_f64().expect("numeric timeout in seconds");
        let limit = match event.as_str() {
            // Claude Code's own default for UserPromptSubmit; a timeout drops the baseline.
            "UserPromptSubmit" => 30.0,
            // All SessionEnd hooks share ~1.5 s; a plugin timeout cannot raise it.
            "SessionEnd" => 2.0,
            _ => 120.0,
        };
        assert!(timeout > 0.0 && timeout <= limit, "{event}: {timeout}");
    }
    // A `hooks/hooks.json` would load a second copy of every hook.
    assert!(!std::path::Path::new(REPO).join("hooks/hooks.json").exists());
}

#[test]
fn marketplace_pins_a_release_archive_of_this_version() {
    let m = read(".claude-plugin/marketplace.json");
    assert_eq!(m["name"], "jev-preflight");
    assert!(m["owner"]["name"].as_str().is_some_and(|n| !n.is_empty()));
    assert!(m["description"].as_str().is_some_and(|d| !d.is_empty()));
    let plugins = m["plugins"].as_array().unwrap();
    assert_eq!(plugins.len(), 1);
    let entry = &plugins[0];
    assert_eq!(entry["name"], "jev-preflight");
    assert!(entry["description"].as_str().is_some_and(|d| !d.is_empty()));
    let source = &entry["source"];
    assert_eq!(source["source"], "archive");
    // The pin names a published release (the release workflow rewrites it), so its version
    // may trail the crate's between a version bump and the tag.
    let url = source["url"].as_str().unwrap();
    let prefix = format!("{}/releases/download/v", env!("CARGO_PKG_REPOSITORY"));
    let rest = url.strip_prefix(&prefix).unwrap_or_else(|| panic!("{url}"));
    let (tag_version, file) = rest.split_once('/').unwrap();
    assert_eq!(file, format!("jev-preflight-{tag_version}.zip"));
    let sha = source["sha256"].as_str().unwrap();
    assert!(
        sha.len() == 64
            && sha
                .bytes()
                .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b)),
        "{sha}"
    );
}
