//! What the README promises, checked against the code: the section the install error points
//! at exists and shows exactly what install writes, the threshold is described as everywhere
//! else, and the Rust version is the crate's.

use std::path::Path;

use jev_preflight::cmd::install::{self, BY_HAND};
use jev_preflight::host::{ALL, Host, Scope};
use jev_preflight::scorer::threshold::default_story;
use serde_json::Value;

use crate::support::TestRepo;
use crate::support::hook::HookEnv;

fn read(rel: &str) -> String {
    std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join(rel)).unwrap()
}

/// The anchor GitHub gives a Markdown heading: lower case, punctuation other than `-` and
/// `_` dropped, spaces turned into `-`.
fn slug(heading: &str) -> String {
    heading
        .trim()
        .to_lowercase()
        .chars()
        .filter(|c| c.is_alphanumeric() || matches!(c, ' ' | '-' | '_'))
        .map(|c| if c == ' ' { '-' } else { c })
        .collect()
}

fn anchors(markdown: &str) -> Vec<String> {
    let mut fenced = false;
    markdown
        .lines()
        .filter(|l| {
            if l.starts_with("```") {
                fenced = !fenced;
            }
            !fenced && l.starts_with('#')
        })
        .map(|l| slug(l.trim_start_matches('#')))
        .collect()
}

#[test]
fn the_install_error_points_at_a_readme_section_that_exists() {
    let (page, anchor) = BY_HAND.split_once('#').unwrap();
    assert_eq!(
        page,
        env!("CARGO_PKG_REPOSITORY"),
        "the README of this repository"
    );
    let readme = read("README.md");
    assert!(
        anchors(&readme).iter().any(|a| a == anchor),
        "no heading with the anchor `{anchor}`; headings: {:?}",
        anchors(&readme)
    );
    // The refusal that needs it says where it is.
    let dir = tempfile::tempdir().unwrap();
    let settings = dir.path().join(".claude/settings.json");
    std::fs::create_dir_all(settings.parent().unwrap()).unwrap();
    std::fs::write(&settings, "// mine\n{}\n").unwrap();
    let host = Host::ClaudeCode;
    let scope = Scope::Project {
        root: dir.path().to_owned(),
    };
    let err = install::install(
        host,
        host.hook_file(&scope),
        &settings,
        Path::new("/usr/local/bin/jev-preflight"),
        &dir.path().join("data/install"),
    )
    .unwrap_err();
    assert!(err.hint().unwrap().ends_with(BY_HAND), "{:?}", err.hint());
}

#[test]
fn the_entries_to_add_by_hand_are_what_install_writes() {
    let readme = read("README.md");
    let (_, section) = readme.split_once("#### Add the hooks by hand").unwrap();
    let section = section.split("\n## ").next().unwrap();
    let blocks: Vec<&str> = section
        .split("```json\n")
        .skip(1)
        .map(|b| b.split("```").next().unwrap())
        .collect();
    // Every host whose hooks go into a file other tools share; the others get a file of
    // their own, which install never has to merge into.
    let project = Scope::Project { root: "/p".into() };
    let shared: Vec<Host> = ALL
        .into_iter()
        .filter(|h| !h.hook_file(&project).ours_alone)
        .collect();
    assert_eq!(blocks.len(), shared.len(), "one block per host: {shared:?}");
    const PROGRAM: &str = "/usr/local/bin/jev-preflight";
    for (host, block) in shared.into_iter().zip(blocks) {
        let shown: Value =
            serde_json::from_str(&block.replace("/path/to/jev-preflight", PROGRAM)).unwrap();
        let file = host.hook_file(&project);
        let written: Value = serde_json::from_str(
            &install::add_hooks(b"", host, file, PROGRAM)
                .unwrap()
                .unwrap(),
        )
        .unwrap();
        assert_eq!(shown, written, "{host:?}");
    }
}

#[test]
fn the_rust_version_is_the_crates() {
    let manifest = read("Cargo.toml");
    let version = manifest
        .lines()
        .find_map(|l| l.strip_prefix("rust-version = \""))
        .and_then(|v| v.strip_suffix('"'))
        .unwrap();
    assert!(
        read("README.md").contains(&format!("Building needs Rust {version} or newer")),
        "README must state Rust {version}"
    );
}

/// README, the JSON Schema (and so `init`), the plugin manifest and every output format of
/// `eval` describe the threshold the same way, generated from the real default values.
#[test]
fn the_threshold_is_described_the_same_way_everywhere() {
    let story = default_story();
    let flat = |text: &str| text.split_whitespace().collect::<Vec<_>>().join(" ");
    let readme = flat(&read("README.md"));
    // The turn picture, the configuration table and the limits.
    assert!(
        readme.matches(&story).count() >= 3,
        "the README must say: {story}"
    );
    let manifest: Value = serde_json::from_str(&read(".claude-plugin/plugin.json")).unwrap();
    let option = manifest["userConfig"]["threshold"]["description"]
        .as_str()
        .unwrap();
    assert!(
        option.contains(&story),
        "the plugin manifest's `threshold` option must say: {story}\n{option}"
    );
    let schema: Value = serde_json::from_str(jev_preflight::cmd::init::CONFIG_SCHEMA).unwrap();
    let key = schema["properties"]["threshold"]["description"]
        .as_str()
        .unwrap();
    assert!(
        key.contains(&story),
        "src/config.schema.json's `threshold` must say: {story}\n{key}"
    );
    assert!(flat(&jev_preflight::cmd::init::explanation()).contains(&story));

    // Every eval format states the thresholds in force with the same words and number.
    let repo = TestRepo::new();
    repo.write("src/api.rs", "fn f() {\n    check(user)?;\n}\n");
    repo.commit_all("init");
    repo.write("src/api.rs", "fn f() {\n}\n");
    let env = HookEnv::new();
    let out = |format: &str| {
        let o = env
            .command(&["eval", "--format", format])
            .current_dir(repo.path())
            .output()
            .unwrap();
        assert_eq!(
            o.status.code(),
            Some(0),
            "{}",
            String::from_utf8_lossy(&o.stderr)
        );
        String::from_utf8(o.stdout).unwrap()
    };
    let json: Value = serde_json::from_str(&out("json")).unwrap();
    let note = json["threshold_note"].as_str().unwrap().to_owned();
    assert!(story.starts_with(&note), "{note} / {story}");
    let shipped = jev_preflight::scorer::local::default_thresholds().unwrap();
    for (a, id) in jev_preflight::pipeline::axes::AXIS_IDS.iter().enumerate() {
        let number = jev_preflight::scorer::threshold::rounded(shipped[a]);
        assert_eq!(json["thresholds"][id].as_f64(), Some(number), "{id}");
    }
    assert!(out("text").contains(&format!("threshold: {note}\n")));
    assert!(out("markdown").contains(&format!("Threshold: {note}.")));
    let sarif: Value = serde_json::from_str(&out("sarif")).unwrap();
    assert_eq!(sarif["runs"][0]["properties"]["threshold"], note.as_str());
}
