//! `bin/jev-preflight` (the launcher): platform mapping, checksum verification, development fallback, and fail-open
//! behaviour, driven through bash with a stub `uname` on `PATH` and stub binaries that record
//! that they ran.

#![cfg(unix)]

use std::fs;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

use sha2::{Digest, Sha256};

const LAUNCHER: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/bin/jev-preflight");

/// A plugin root in a temp dir (its path chosen by the test), with the launcher copied in,
/// a stub `uname` and a marker dir that stub binaries write to when they run.
struct Plugin {
    _tmp: tempfile::TempDir,
    root: PathBuf,
    stubs: PathBuf,
    markers: PathBuf,
}

impl Plugin {
    fn new() -> Plugin {
        Plugin::at("plugin")
    }

    fn at(root_name: &str) -> Plugin {
        let tmp = tempfile::tempdir().unwrap();
        let root = tmp.path().join(root_name);
        fs::create_dir_all(root.join("bin")).unwrap();
        fs::copy(LAUNCHER, root.join("bin/jev-preflight")).unwrap();
        let stubs = tmp.path().join("stubs");
        fs::create_dir_all(&stubs).unwrap();
        write_exec(
            &stubs.join("uname"),
            "#!/bin/sh\ncase \"$1\" in -s) printf '%s\\n' \"$STUB_UNAME_S\" ;; -m) printf '%s\\n' \"$STUB_UNAME_M\" ;; *) exit 1 ;; esac\n",
        );
        let markers = tmp.path().join("markers");
        fs::create_dir_all(&markers).unwrap();
        Plugin {
            _tmp: tmp,
            root,
            stubs,
            markers,
        }
    }

    /// A stub binary at `rel` that records its name, args and stdin, and echoes them.
    fn stub_binary(&self, rel: &str, label: &str) -> Vec<u8> {
        let script = format!(
            "#!/bin/sh\nin=$(cat)\nprintf 'ran {label} args=%s stdin=%s\\n' \"$*\" \"$in\"\n: > '{}'/{label}\n",
            self.markers.display()
        );
        write_exec(&self.root.join(rel), &script);
        script.into_bytes()
    }

    /// Writes `bin/SHA256SUMS` with the given `(target/name, bytes)` entries.
    fn manifest(&self, entries: &[(&str, &[u8])]) {
        let mut text = String::new();
        for (name, bytes) in entries {
            text.push_str(&format!("{}  {name}\n", hex(&Sha256::digest(bytes))));
        }
        fs::create_dir_all(self.root.join("bin")).unwrap();
        fs::write(self.root.join("bin/SHA256SUMS"), text).unwrap();
    }

    fn ran(&self, label: &str) -> bool {
        self.markers.join(label).exists()
    }

    fn run(&self, os: &str, arch: &str) -> Output {
        self.run_with_path(os, arch, &format!("{}:/usr/bin:/bin", self.stubs.display()))
    }

    fn run_with_path(&self, os: &str, arch: &str, path: &str) -> Output {
        let mut child = Command::new("/bin/bash")
            .arg(self.root.join("bin/jev-preflight"))
            .arg("hook")
            .env_clear()
            .env("PATH", path)
            .env("STUB_UNAME_S", os)
            .env("STUB_UNAME_M", arch)
            .current_dir(self.markers.parent().unwrap())
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        use std::io::Write;
        // Failing open, the launcher may exit before it reads its input: a closed pipe here is
        // that, not a failure (the assertions on its output decide).
        let written = child
            .stdin
            .take()
            .unwrap()
            .write_all(br#"{"hook_event_name":"Stop"}"#);
        if let Err(e) = written {
            assert_eq!(e.kind(), std::io::ErrorKind::BrokenPipe, "{e}");
        }
        child.wait_with_output().unwrap()
    }
}

fn write_exec(path: &Path, content: &str) {
    fs::create_dir_all(path.parent().unwrap()).unwrap();
    fs::write(path, content).unwrap();
    fs::set_permissions(path, fs::Permissions::from_mode(0o755)).unwrap();
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// Exit 0, nothing on stdout, exactly one stderr line containing `needle`.
fn assert_failed_open(out: &Output, needle: &str) {
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "stderr: {stderr}");
    assert!(out.stdout.is_empty(), "stdout: {:?}", out.stdout);
    assert_eq!(stderr.lines().count(), 1, "stderr: {stderr}");
    assert!(
        stderr.starts_with("jev-preflight: hook skipped: "),
        "{stderr}"
    );
    assert!(stderr.contains(needle), "expected {needle:?} in {stderr}");
}

const TARGETS: &[&str] = &[
    "linux-x86_64",
    "linux-aarch64",
    "macos-x86_64",
    "macos-aarch64",
    "windows-x86_64",
    "windows-aarch64",
];

fn binary_name(target: &str) -> &'static str {
    if target.starts_with("windows") {
        "jev-preflight.exe"
    } else {
        "jev-preflight"
    }
}

/// A plugin with a verified stub binary for every target.
fn full_plugin(root_name: &str) -> Plugin {
    let plugin = Plugin::at(root_name);
    let mut entries = Vec::new();
    for target in TARGETS {
        let rel = format!("{target}/{}", binary_name(target));
        let bytes = plugin.stub_binary(&format!("bin/{rel}"), target);
        entries.push((rel, bytes));
    }
    let refs: Vec<(&str, &[u8])> = entries
        .iter()
        .map(|(n, b)| (n.as_str(), b.as_slice()))
        .collect();
    plugin.manifest(&refs);
    plugin
}

#[test]
fn maps_each_platform_to_its_target_and_passes_args_and_stdin() {
    let plugin = full_plugin("plugin");
    let cases = [
        ("Linux", "x86_64", "linux-x86_64"),
        ("Linux", "aarch64", "linux-aarch64"),
        ("Darwin", "x86_64", "macos-x86_64"),
        ("Darwin", "arm64", "macos-aarch64"),
        ("MINGW64_NT-10.0-19045", "x86_64", "windows-x86_64"),
        ("MSYS_NT-10.0-22631", "aarch64", "windows-aarch64"),
        ("CYGWIN_NT-10.0-19045", "x86_64", "windows-x86_64"),
        ("Linux", "arm64", "linux-aarch64"),
        ("Linux", "amd64", "linux-x86_64"),
    ];
    for (os, arch, target) in cases {
        let out = plugin.run(os, arch);
        assert_eq!(
            String::from_utf8_lossy(&out.stdout),
            format!("ran {target} args=hook stdin={{\"hook_event_name\":\"Stop\"}}\n"),
            "{os} {arch}: stderr {}",
            String::from_utf8_lossy(&out.stderr)
        );
        assert!(out.stderr.is_empty(), "{os} {arch}");
        assert_eq!(out.status.code(), Some(0));
    }
    for target in TARGETS {
        assert!(plugin.ran(target), "{target} never ran");
    }
}

#[test]
fn unsupported_platforms_fail_open() {
    let plugin = full_plugin("plugin");
    assert_failed_open(
        &plugin.run("FreeBSD", "amd64"),
        "unsupported operating system `FreeBSD`",
    );
    assert_failed_open(
        &plugin.run("Linux", "riscv64"),
        "unsupported architecture `riscv64`",
    );
    assert_failed_open(
        &plugin.run("Linux", "i686"),
        "unsupported architecture `i686`",
    );
    assert!(fs::read_dir(&plugin.markers).unwrap().next().is_none());
}

#[test]
fn missing_binary_fails_open() {
    let plugin = Plugin::new();
    assert_failed_open(&plugin.run("Linux", "x86_64"), "no binary for linux-x86_64");
    // A partial archive: another target is present, this one is not.
    let bytes = plugin.stub_binary("bin/macos-aarch64/jev-preflight", "macos-aarch64");
    plugin.manifest(&[("macos-aarch64/jev-preflight", &bytes)]);
    assert_failed_open(&plugin.run("Linux", "x86_64"), "no binary for linux-x86_64");
    assert!(!plugin.ran("macos-aarch64"));
}

#[test]
fn checksum_mismatch_never_runs_the_binary() {
    let plugin = Plugin::new();
    plugin.stub_binary("bin/linux-x86_64/jev-preflight", "trap");
    plugin.manifest(&[(
        "linux-x86_64/jev-preflight",
        b"the bytes that were released",
    )]);
    assert_failed_open(&plugin.run("Linux", "x86_64"), "checksum mismatch");
    assert!(
        !plugin.ran("trap"),
        "the binary ran despite a checksum mismatch"
    );
}

#[test]
fn missing_manifest_or_entry_never_runs_the_binary() {
    let plugin = Plugin::new();
    let bytes = plugin.stub_binary("bin/linux-x86_64/jev-preflight", "trap");
    assert_failed_open(&plugin.run("Linux", "x86_64"), "bin/SHA256SUMS is missing");
    plugin.manifest(&[("linux-aarch64/jev-preflight", &bytes)]);
    assert_failed_open(&plugin.run("Linux", "x86_64"), "no entry for linux-x86_64");
    assert!(!plugin.ran("trap"));
}

#[test]
fn no_hashing_tool_never_runs_the_binary() {
    let plugin = Plugin::new();
    let bytes = plugin.stub_binary("bin/linux-x86_64/jev-preflight", "trap");
    plugin.manifest(&[("linux-x86_64/jev-preflight", &bytes)]);
    // PATH holds only the stub `uname` and `cat`: no `sha256sum`, no `shasum`.
    std::os::unix::fs::symlink("/bin/cat", plugin.stubs.join("cat")).unwrap();
    let out = plugin.run_with_path("Linux", "x86_64", &plugin.stubs.display().to_string());
    assert_failed_open(&out, "neither `sha256sum` nor `shasum`");
    assert!(!plugin.ran("trap"));
}

#[test]
fn shasum_is_used_when_sha256sum_is_absent() {
    if !Path::new("/usr/bin/shasum").exists() {
        eprintln!("skipped: /usr/bin/shasum is not installed");
        return;
    }
    let plugin = Plugin::new();
    let bytes = plugin.stub_binary("bin/linux-x86_64/jev-preflight", "linux-x86_64");
    plugin.manifest(&[("linux-x86_64/jev-preflight", &bytes)]);
    // A PATH with `shasum` (and the perl it needs) but no `sha256sum`.
    let only = plugin.stubs.clone();
    for tool in ["shasum", "perl", "cat"] {
        for dir in ["/usr/bin", "/bin"] {
            let src = Path::new(dir).join(tool);
            if src.exists() && !only.join(tool).exists() {
                std::os::unix::fs::symlink(&src, only.join(tool)).unwrap();
            }
        }
    }
    let out = plugin.run_with_path("Linux", "x86_64", &only.display().to_string());
    assert_eq!(out.status.code(), Some(0));
    assert!(
        plugin.ran("linux-x86_64"),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn root_with_spaces_quotes_and_command_substitution() {
    let name = "my plugin 'q' \"dq\" $(touch INJECTED) `touch INJECTED2` -x";
    let plugin = full_plugin(name);
    let out = plugin.run("Linux", "x86_64");
    assert_eq!(out.status.code(), Some(0));
    assert!(
        String::from_utf8_lossy(&out.stdout).starts_with("ran linux-x86_64 args=hook"),
        "stderr: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let parent = plugin.root.parent().unwrap();
    for dir in [parent, plugin.markers.as_path(), plugin.root.as_path()] {
        assert!(!dir.join("INJECTED").exists() && !dir.join("INJECTED2").exists());
    }
    // The same root with a mismatched binary still fails open rather than misparsing.
    fs::write(
        plugin.root.join("bin/linux-x86_64/jev-preflight"),
        "#!/bin/sh\n: > trap\n",
    )
    .unwrap();
    assert_failed_open(&plugin.run("Linux", "x86_64"), "checksum mismatch");
}

#[test]
fn development_checkout_prefers_release_then_debug() {
    let plugin = Plugin::new();
    plugin.stub_binary("target/debug/jev-preflight", "debug");
    let out = plugin.run("Linux", "x86_64");
    assert!(String::from_utf8_lossy(&out.stdout).starts_with("ran debug"));
    plugin.stub_binary("target/release/jev-preflight", "release");
    let out = plugin.run("Linux", "x86_64");
    assert!(String::from_utf8_lossy(&out.stdout).starts_with("ran release"));
    // A packaged binary wins over both.
    let bytes = plugin.stub_binary("bin/linux-x86_64/jev-preflight", "packaged");
    plugin.manifest(&[("linux-x86_64/jev-preflight", &bytes)]);
    let out = plugin.run("Linux", "x86_64");
    assert!(String::from_utf8_lossy(&out.stdout).starts_with("ran packaged"));
}

#[test]
fn non_executable_binary_fails_open() {
    let plugin = Plugin::new();
    let bytes = plugin.stub_binary("bin/linux-x86_64/jev-preflight", "trap");
    plugin.manifest(&[("linux-x86_64/jev-preflight", &bytes)]);
    let bin = plugin.root.join("bin/linux-x86_64/jev-preflight");
    fs::set_permissions(&bin, fs::Permissions::from_mode(0o644)).unwrap();
    assert_failed_open(&plugin.run("Linux", "x86_64"), "not executable");
    assert!(!plugin.ran("trap"));
}

#[test]
fn runs_the_real_binary_through_the_manifest() {
    let plugin = Plugin::new();
    let os = match std::env::consts::OS {
        "macos" => "macos",
        _ => "linux",
    };
    let rel = format!("{os}-{}/jev-preflight", std::env::consts::ARCH);
    let real = fs::read(crate::support::binary()).unwrap();
    let dest = plugin.root.join("bin").join(&rel);
    fs::create_dir_all(dest.parent().unwrap()).unwrap();
    fs::write(&dest, &real).unwrap();
    fs::set_permissions(&dest, fs::Permissions::from_mode(0o755)).unwrap();
    plugin.manifest(&[(rel.as_str(), &real)]);
    let out = Command::new(plugin.root.join("bin/jev-preflight"))
        .arg("version")
        .env("PATH", "/usr/bin:/bin")
        .stdin(Stdio::null())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    assert!(
        String::from_utf8_lossy(&out.stdout).contains(env!("CARGO_PKG_VERSION")),
        "stdout {:?} stderr {:?}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn launcher_in_the_repository_is_executable() {
    let mode = fs::metadata(LAUNCHER).unwrap().permissions().mode();
    assert_eq!(
        mode & 0o111,
        0o111,
        "bin/jev-preflight must be executable: {mode:o}"
    );
}
