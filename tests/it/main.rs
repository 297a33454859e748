//! Integration tests: one binary, one module per feature.

mod axes;
mod bench_generator;
mod big_turn;
mod budget;
mod cli;
mod codex;
mod doctor;
mod gemini;
mod hook_concurrency;
mod hook_e2e;
mod hook_faults;
mod hook_rediscovery;
mod init;
mod install;
mod launcher;
mod memory;
mod original_config;
mod patch_forms;
mod payload;
mod plugin_manifest;
mod readme;
mod redact;
mod release;
mod sarif;
mod scorer_command;
mod scorer_jev;
mod scorer_local;
mod scorer_openai;
mod select;
mod snapshot_safety;
mod snapshot_zero_writes;
mod stop_git;
mod support;
mod textbook;

/// A test file that no `mod` line names is never compiled, so its tests silently never run.
/// Every `.rs` file under `tests/it/` must be declared by the `main.rs` or `mod.rs` of its
/// directory.
#[test]
fn every_test_file_is_compiled() {
    fn check(dir: &std::path::Path, missing: &mut Vec<String>) {
        let root = ["main.rs", "mod.rs"]
            .iter()
            .map(|n| dir.join(n))
            .find(|p| p.exists());
        let declared = root
            .as_ref()
            .map(|p| std::fs::read_to_string(p).unwrap())
            .unwrap_or_default();
        for entry in std::fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                if path.join("mod.rs").exists() {
                    let name = path.file_name().unwrap().to_str().unwrap().to_owned();
                    if !declares(&declared, &name) {
                        missing.push(path.display().to_string());
                    }
                    check(&path, missing);
                }
                continue;
            }
            let Some(name) = path
                .file_name()
                .and_then(|n| n.to_str())
                .and_then(|n| n.strip_suffix(".rs"))
            else {
                continue;
            };
            if name == "main" || name == "mod" {
                continue;
            }
            if !declares(&declared, name) {
                missing.push(path.display().to_string());
            }
        }
    }
    fn declares(text: &str, name: &str) -> bool {
        text.lines().any(|l| {
            let l = l.trim();
            let l = l.strip_prefix("pub ").unwrap_or(l);
            l == format!("mod {name};")
        })
    }
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/it");
    let mut missing = Vec::new();
    check(&dir, &mut missing);
    assert!(missing.is_empty(), "never compiled: {missing:?}");
}
