//! The release tool: byte-identical archives from different paths, time zones, locales and
//! umasks; fixed entry metadata; refusals of symlinks, unexpected or missing inputs; the
//! marketplace pin.

#![cfg(unix)]

use std::fs;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::OnceLock;

const REPO: &str = env!("CARGO_MANIFEST_DIR");
const VERSION: &str = env!("CARGO_PKG_VERSION");
const TARGETS: [&str; 6] = [
    "linux-aarch64",
    "linux-x86_64",
    "macos-aarch64",
    "macos-x86_64",
    "windows-aarch64",
    "windows-x86_64",
];
const TREE_FILES: [&str; 7] = [
    "Cargo.toml",
    ".claude-plugin/plugin.json",
    ".claude-plugin/marketplace.json",
    "bin/jev-preflight",
    "README.md",
    "LICENSE",
    "CHANGELOG.md",
];

/// The release tool, built once per test run with the same cargo.
fn tool() -> &'static Path {
    static TOOL: OnceLock<PathBuf> = OnceLock::new();
    TOOL.get_or_init(|| {
        let out = Command::new(env!("CARGO"))
            .args([
                "build",
                "--quiet",
                "--locked",
                "-p",
                "jev-preflight-release",
            ])
            .args(["--message-format", "json"])
            .current_dir(REPO)
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8(out.stdout)
            .unwrap()
            .lines()
            .filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
            .filter(|m| m["target"]["name"] == "jev-preflight-release")
            .find_map(|m| m["executable"].as_str().map(PathBuf::from))
            .expect("cargo reported no jev-preflight-release executable")
    })
}

/// A copy of the release inputs and a binaries dir, under `base`.
struct Tree {
    root: PathBuf,
    bins: PathBuf,
    out: PathBuf,
}

impl Tree {
    fn new(base: &Path, targets: &[&str]) -> Tree {
        let root = base.join("repo");
        for rel in TREE_FILES {
            let dest = root.join(rel);
            fs::create_dir_all(dest.parent().unwrap()).unwrap();
            fs::copy(Path::new(REPO).join(rel), &dest).unwrap();
        }
        let bins = base.join("bins");
        for target in targets {
            let name = if target.starts_with("windows") {
                "jev-preflight.exe"
            } else {
                "jev-preflight"
            };
            let path = bins.join(target).join(name);
            fs::create_dir_all(path.parent().unwrap()).unwrap();
            let body: Vec<u8> = format!("binary for {target}\n")
                .bytes()
                .cycle()
                .take(40_000)
                .collect();
            fs::write(path, body).unwrap();
        }
        Tree {
            root,
            bins,
            out: base.join("out"),
        }
    }

    fn build(&self, extra: &[&str]) -> Output {
        self.build_env(extra, "UTC", "C", "022")
    }

    fn build_env(&self, extra: &[&str], tz: &str, lc_all: &str, umask: &str) -> Output {
        Command::new("/bin/sh")
            .arg("-c")
            .arg(format!("umask {umask} && exec \"$0\" \"$@\""))
            .arg(tool())
            .arg("build")
            .arg("--root")
            .arg(&self.root)
            .arg("--bins")
            .arg(&self.bins)
            .arg("--out")
            .arg(&self.out)
            .args(extra)
            .env("TZ", tz)
            .env("LC_ALL", lc_all)
            .env("LANG", lc_all)
            .output()
            .unwrap()
    }

    fn read_out(&self, name: &str) -> Vec<u8> {
        fs::read(self.out.join(name)).unwrap_or_else(|e| panic!("{name}: {e}"))
    }
}

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

fn assert_refused(out: &Output, needle: &str) {
    assert_eq!(out.status.code(), Some(1), "stderr: {}", stderr(out));
    assert!(
        stderr(out).contains(needle),
        "expected {needle:?} in {}",
        stderr(out)
    );
}

fn sha256_hex(bytes: &[u8]) -> String {
    use sha2::Digest;
    sha2::Sha256::digest(bytes)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

#[test]
fn archives_are_byte_identical_across_paths_timezones_locales_and_umasks() {
    let one = tempfile::tempdir().unwrap();
    let two = tempfile::tempdir().unwrap();
    let a = Tree::new(one.path(), &TARGETS);
    let b = Tree::new(&two.path().join("a much/deeper 'path'/here"), &TARGETS);
    // The second copy differs in everything the archive must not record: modes and mtimes.
    for rel in TREE_FILES {
        let path = b.root.join(rel);
        fs::set_permissions(&path, fs::Permissions::from_mode(0o600)).unwrap();
        let touched = Command::new("touch")
            .args(["-d", "2011-11-11T11:11:11"])
            .arg(&path)
            .status()
            .unwrap();
        assert!(touched.success());
    }
    let ra = a.build_env(&[], "UTC", "C", "022");
    let rb = b.build_env(&[], "Pacific/Chatham", "de_DE.UTF-8", "077");
    assert!(ra.status.success(), "{}", stderr(&ra));
    assert!(rb.status.success(), "{}", stderr(&rb));
    for name in [
        format!("jev-preflight-{VERSION}.zip"),
        format!("jev-preflight-{VERSION}.tar.gz"),
        "SHA256SUMS".to_string(),
    ] {
        let (x, y) = (a.read_out(&name), b.read_out(&name));
        assert!(!x.is_empty());
        assert!(x == y, "{name} differs between the two builds");
    }
    // SHA256SUMS names both archives with their real digests.
    let sums = String::from_utf8(a.read_out("SHA256SUMS")).unwrap();
    for name in [
        format!("jev-preflight-{VERSION}.tar.gz"),
        format!("jev-preflight-{VERSION}.zip"),
    ] {
        let line = format!("{}  {name}", sha256_hex(&a.read_out(&name)));
        assert!(sums.lines().any(|l| l == line), "{line} not in {sums}");
    }
}

/// Entry metadata as Python's zipfile and tarfile read it: one JSON object per archive.
fn inspect(zip: &Path, tgz: &Path) -> serde_json::Value {
    let script = r#"
import json, sys, tarfile, zipfile
z = zipfile.ZipFile(sys.argv[1])
zi = [{"name": i.filename, "mode": i.external_attr >> 16, "time": list(i.date_time),
       "extra": len(i.extra), "system": i.create_system, "comment": len(i.comment)} for i in z.infolist()]
t = tarfile.open(sys.argv[2], "r:gz")
ti = [{"name": m.name + ("/" if m.isdir() else ""), "mode": m.mode, "uid": m.uid, "gid": m.gid,
       "uname": m.uname, "gname": m.gname, "mtime": m.mtime, "type": m.type.decode()} for m in t.getmembers()]
sums = z.read("bin/SHA256SUMS").decode()
print(json.dumps({"zip": zi, "tar": ti, "sums": sums, "zip_comment": len(z.comment)}))
"#;
    let out = Command::new("python3")
        .arg("-c")
        .arg(script)
        .arg(zip)
        .arg(tgz)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    serde_json::from_slice(&out.stdout).unwrap()
}

#[test]
fn entries_are_sorted_with_fixed_metadata_and_verified_binaries() {
    let tmp = tempfile::tempdir().unwrap();
    let tree = Tree::new(tmp.path(), &TARGETS);
    let out = tree.build(&[]);
    assert!(out.status.success(), "{}", stderr(&out));
    let info = inspect(
        &tree.out.join(format!("jev-preflight-{VERSION}.zip")),
        &tree.out.join(format!("jev-preflight-{VERSION}.tar.gz")),
    );
    let zip = info["zip"].as_array().unwrap();
    let tar = info["tar"].as_array().unwrap();
    let names: Vec<&str> = zip.iter().map(|e| e["name"].as_str().unwrap()).collect();
    let mut sorted = names.clone();
    sorted.sort();
    assert_eq!(names, sorted);
    let tar_names: Vec<&str> = tar.iter().map(|e| e["name"].as_str().unwrap()).collect();
    assert_eq!(names, tar_names);
    for want in [
        ".claude-plugin/plugin.json",
        "bin/jev-preflight",
        "README.md",
        "LICENSE",
        "CHANGELOG.md",
        "bin/SHA256SUMS",
        "bin/windows-x86_64/jev-preflight.exe",
        // What Windows runs for the hooks' extensionless `bin/jev-preflight`.
        "bin/jev-preflight.exe",
        "bin/macos-aarch64/jev-preflight",
    ] {
        assert!(names.contains(&want), "{want} missing from {names:?}");
    }
    // The marketplace pins the archive, so the archive cannot contain it.
    assert!(!names.contains(&".claude-plugin/marketplace.json"));
    let executable = |name: &str| name.ends_with('/') || name.contains("/jev-preflight");
    for e in zip {
        let name = e["name"].as_str().unwrap();
        let kind = if name.ends_with('/') {
            0o040000
        } else {
            0o100000
        };
        let mode = if executable(name) { 0o755 } else { 0o644 };
        assert_eq!(e["mode"], kind | mode, "{name}");
        assert_eq!(
            e["time"],
            serde_json::json!([1980, 1, 1, 0, 0, 0]),
            "{name}"
        );
        assert_eq!(e["extra"], 0, "{name} has extra fields");
        assert_eq!(e["system"], 3, "{name}: made-by must be unix");
        assert_eq!(e["comment"], 0);
    }
    assert_eq!(info["zip_comment"], 0);
    for e in tar {
        let name = e["name"].as_str().unwrap();
        assert_eq!(
            e["mode"],
            if executable(name) { 0o755 } else { 0o644 },
            "{name}"
        );
        assert_eq!(
            (e["uid"].as_u64(), e["gid"].as_u64()),
            (Some(0), Some(0)),
            "{name}"
        );
        assert_eq!(
            (e["uname"].as_str(), e["gname"].as_str()),
            (Some(""), Some("")),
            "{name}"
        );
        assert_eq!(e["mtime"], 315_532_800, "{name}");
    }
    // The launcher's manifest lists every binary with its digest.
    let sums = info["sums"].as_str().unwrap();
    assert_eq!(sums.lines().count(), 7, "{sums}");
    let exe = fs::read(tree.bins.join("windows-x86_64/jev-preflight.exe")).unwrap();
    for name in ["windows-x86_64/jev-preflight.exe", "jev-preflight.exe"] {
        assert!(
            sums.contains(&format!("{}  {name}\n", sha256_hex(&exe))),
            "{name}: {sums}"
        );
    }
}

#[test]
fn partial_sets_need_the_explicit_flag() {
    let tmp = tempfile::tempdir().unwrap();
    let tree = Tree::new(tmp.path(), &["linux-x86_64"]);
    assert_refused(&tree.build(&[]), "missing binaries for linux-aarch64");
    let out = tree.build(&["--partial"]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(
        tree.out
            .join(format!("jev-preflight-{VERSION}-partial.zip"))
            .is_file()
    );
    assert!(
        !tree
            .out
            .join(format!("jev-preflight-{VERSION}.zip"))
            .exists()
    );
    // A partial archive is never pinned in the marketplace.
    assert_refused(
        &tree.build(&["--partial", "--pin"]),
        "refusing to pin a partial archive",
    );
    let empty = Tree::new(&tmp.path().join("empty"), &[]);
    fs::create_dir_all(&empty.bins).unwrap();
    assert_refused(&empty.build(&["--partial"]), "no binaries");
}

#[test]
fn symlinks_and_unexpected_inputs_are_refused() {
    let tmp = tempfile::tempdir().unwrap();
    let tree = Tree::new(tmp.path(), &TARGETS);

    let bin = tree.bins.join("linux-x86_64/jev-preflight");
    fs::rename(&bin, tmp.path().join("real-binary")).unwrap();
    std::os::unix::fs::symlink(tmp.path().join("real-binary"), &bin).unwrap();
    assert_refused(&tree.build(&[]), "refusing symlink");
    fs::remove_file(&bin).unwrap();
    fs::rename(tmp.path().join("real-binary"), &bin).unwrap();

    std::os::unix::fs::symlink(
        tree.bins.join("linux-x86_64"),
        tree.bins.join("linux-aarch64-link"),
    )
    .unwrap();
    assert_refused(&tree.build(&[]), "refusing symlink");
    fs::remove_file(tree.bins.join("linux-aarch64-link")).unwrap();

    fs::write(tree.bins.join("notes.txt"), "x").unwrap();
    assert_refused(&tree.build(&[]), "unexpected");
    fs::remove_file(tree.bins.join("notes.txt")).unwrap();

    fs::write(tree.bins.join("linux-x86_64/jev-preflight.debug"), "x").unwrap();
    assert_refused(&tree.build(&[]), "unexpected");
    fs::remove_file(tree.bins.join("linux-x86_64/jev-preflight.debug")).unwrap();

    fs::create_dir_all(tree.bins.join("freebsd-x86_64")).unwrap();
    assert_refused(&tree.build(&[]), "unexpected");
    fs::remove_dir(tree.bins.join("freebsd-x86_64")).unwrap();

    let readme = tree.root.join("README.md");
    fs::remove_file(&readme).unwrap();
    assert_refused(&tree.build(&[]), "missing input");
    std::os::unix::fs::symlink("/etc/hostname", &readme).unwrap();
    assert_refused(&tree.build(&[]), "refusing symlink");
    fs::remove_file(&readme).unwrap();
    fs::write(&readme, "readme").unwrap();

    // Everything restored: it builds.
    let out = tree.build(&[]);
    assert!(out.status.success(), "{}", stderr(&out));
}

#[test]
fn plugin_version_must_match_the_crate() {
    let tmp = tempfile::tempdir().unwrap();
    let tree = Tree::new(tmp.path(), &TARGETS);
    let path = tree.root.join(".claude-plugin/plugin.json");
    let text = fs::read_to_string(&path).unwrap();
    let bumped = text.replacen(
        &format!("\"version\": \"{VERSION}\""),
        "\"version\": \"9.9.9\"",
        1,
    );
    assert_ne!(text, bumped);
    fs::write(&path, bumped).unwrap();
    assert_refused(&tree.build(&[]), "differs from `Cargo.toml` version");
}

#[test]
fn marketplace_pin_is_checked_and_updated() {
    let tmp = tempfile::tempdir().unwrap();
    let tree = Tree::new(tmp.path(), &TARGETS);
    let zip = tree.out.join(format!("jev-preflight-{VERSION}.zip"));
    let check = |archive: &Path| {
        Command::new(tool())
            .arg("check-pin")
            .arg("--root")
            .arg(&tree.root)
            .arg("--archive")
            .arg(archive)
            .output()
            .unwrap()
    };

    assert!(tree.build(&[]).status.success());
    // The committed pin is for the released archive, not for these fake binaries.
    assert_refused(&check(&zip), "does not match");
    assert_refused(&tree.build(&["--check-pin"]), "does not match");

    let before = fs::read_to_string(tree.root.join(".claude-plugin/marketplace.json")).unwrap();
    let out = tree.build(&["--pin"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let after = fs::read_to_string(tree.root.join(".claude-plugin/marketplace.json")).unwrap();
    let digest = sha256_hex(&fs::read(&zip).unwrap());
    assert!(
        after.contains(&format!("\"sha256\": \"{digest}\"")),
        "{after}"
    );
    let url = format!("/releases/download/v{VERSION}/jev-preflight-{VERSION}.zip\"");
    assert!(after.contains(&url), "{after}");
    // Only the pinned values changed; the rest of the file keeps its bytes and layout.
    let changed = before
        .lines()
        .zip(after.lines())
        .filter(|(x, y)| x != y)
        .count();
    assert!(
        changed <= 2 && before.lines().count() == after.lines().count(),
        "{after}"
    );

    assert!(check(&zip).status.success(), "{}", stderr(&check(&zip)));
    assert!(tree.build(&["--check-pin"]).status.success());

    // Any other archive does not match the pin.
    let other = tmp.path().join("other.zip");
    let mut bytes = fs::read(&zip).unwrap();
    bytes.push(0);
    fs::write(&other, bytes).unwrap();
    assert_refused(&check(&other), "does not match");
}
