//! The release inputs: the files taken from the repository, the per-target binaries, and the
//! version and repository they are published under. Everything unexpected is refused.

use std::fs;
use std::path::Path;

use sha2::{Digest, Sha256};

/// Lower-case hex SHA-256 of `bytes`: the digest of every input and of the archives.
pub fn sha256_hex(bytes: &[u8]) -> String {
    Sha256::digest(bytes)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// The six targets the launcher knows, as `<os>-<arch>` directory names under `bin/`.
pub const TARGETS: [&str; 6] = [
    "linux-aarch64",
    "linux-x86_64",
    "macos-aarch64",
    "macos-x86_64",
    "windows-aarch64",
    "windows-x86_64",
];

/// Files copied from the repository root into the archive: (path, executable).
const ROOT_FILES: [(&str, bool); 5] = [
    (".claude-plugin/plugin.json", false),
    ("CHANGELOG.md", false),
    ("LICENSE", false),
    ("README.md", false),
    (LAUNCHER, true),
];

/// The launcher the plugin's hooks name; on Windows the same name resolves to [`WINDOWS_EXE`].
pub const LAUNCHER: &str = "bin/jev-preflight";
/// The Windows binary beside the launcher: Node's process spawning (libuv) tries `.com` and
/// `.exe` for a command without an extension, so on Windows `bin/jev-preflight` runs this file.
/// It is the x86_64 build (Windows on ARM runs it emulated).
pub const WINDOWS_EXE: &str = "bin/jev-preflight.exe";
/// The target whose binary is copied to [`WINDOWS_EXE`].
const WINDOWS_EXE_TARGET: &str = "windows-x86_64";

/// Name and place of the release, read from `Cargo.toml` and `plugin.json` (which must agree).
pub struct Meta {
    pub version: String,
    pub repository: String,
}

/// One file of the archive.
pub struct Entry {
    /// Path inside the archive, `/`-separated, relative.
    pub path: String,
    pub data: Vec<u8>,
    pub executable: bool,
}

pub struct Inputs {
    pub meta: Meta,
    /// Sorted by path.
    pub entries: Vec<Entry>,
    pub partial: bool,
}

pub fn binary_name(target: &str) -> &'static str {
    if target.starts_with("windows-") {
        "jev-preflight.exe"
    } else {
        "jev-preflight"
    }
}

pub fn collect(root: &Path, bins: &Path, partial: bool) -> Result<Inputs, String> {
    let meta = read_meta(root)?;
    let mut entries = Vec::new();
    for (rel, executable) in ROOT_FILES {
        entries.push(Entry {
            path: rel.to_string(),
            data: read_regular(root, rel)?,
            executable,
        });
    }

    let binaries = read_bins(bins)?;
    if binaries.is_empty() {
        return Err(format!(
            "no binaries in `{}`\nhint: it must hold <target>/jev-preflight[.exe] for {}",
            bins.display(),
            TARGETS.join(", ")
        ));
    }
    let missing: Vec<&str> = TARGETS
        .iter()
        .copied()
        .filter(|t| !binaries.iter().any(|(have, _)| have == t))
        .collect();
    if !missing.is_empty() && !partial {
        return Err(format!(
            "missing binaries for {}\nhint: pass `--partial` to assemble a local test archive without them",
            missing.join(", ")
        ));
    }

    let mut sums = String::new();
    for (target, data) in binaries {
        let rel = format!("{target}/{}", binary_name(&target));
        let sha256 = sha256_hex(&data);
        sums.push_str(&format!("{sha256}  {rel}\n"));
        if target == WINDOWS_EXE_TARGET {
            let exe = WINDOWS_EXE.trim_start_matches("bin/");
            sums.push_str(&format!("{sha256}  {exe}\n"));
            entries.push(Entry {
                path: WINDOWS_EXE.to_string(),
                data: data.clone(),
                executable: true,
            });
        }
        entries.push(Entry {
            path: format!("bin/{rel}"),
            data,
            executable: true,
        });
    }
    entries.push(Entry {
        path: "bin/SHA256SUMS".to_string(),
        data: sums.into_bytes(),
        executable: false,
    });
    entries.sort_by(|a, b| a.path.cmp(&b.path));
    Ok(Inputs {
        meta,
        entries,
        partial: !missing.is_empty(),
    })
}

/// `(target, bytes)` for every target directory in `bins`, sorted by target.
fn read_bins(bins: &Path) -> Result<Vec<(String, Vec<u8>)>, String> {
    let listing =
        fs::read_dir(bins).map_err(|e| format!("cannot read `{}`: {e}", bins.display()))?;
    let mut found = Vec::new();
    for item in listing {
        let item = item.map_err(|e| format!("cannot read `{}`: {e}", bins.display()))?;
        let name = item.file_name().to_string_lossy().into_owned();
        let path = item.path();
        let kind = fs::symlink_metadata(&path)
            .map_err(|e| format!("cannot stat `{}`: {e}", path.display()))?;
        if kind.file_type().is_symlink() {
            return Err(format!("refusing symlink `{}`", path.display()));
        }
        if !kind.is_dir() || !TARGETS.contains(&name.as_str()) {
            return Err(format!(
                "unexpected `{}` in the binaries directory\nhint: only {} are allowed",
                path.display(),
                TARGETS.join(", ")
            ));
        }
        let expected = binary_name(&name);
        let inner =
            fs::read_dir(&path).map_err(|e| format!("cannot read `{}`: {e}", path.display()))?;
        for file in inner {
            let file = file.map_err(|e| format!("cannot read `{}`: {e}", path.display()))?;
            if file.file_name() != expected {
                return Err(format!(
                    "unexpected `{}`\nhint: `{name}/` may hold only `{expected}`",
                    file.path().display()
                ));
            }
        }
        let data = read_regular(&path, expected)?;
        if data.is_empty() {
            return Err(format!("`{}` is empty", path.join(expected).display()));
        }
        found.push((name, data));
    }
    found.sort_by(|a, b| a.0.cmp(&b.0));
    Ok(found)
}

/// Reads `base/rel`, refusing a symlink at any component below `base`, or a non-file.
fn read_regular(base: &Path, rel: &str) -> Result<Vec<u8>, String> {
    let mut path = base.to_path_buf();
    for part in rel.split('/') {
        path.push(part);
        let meta = fs::symlink_metadata(&path)
            .map_err(|e| format!("missing input `{}`: {e}", path.display()))?;
        if meta.file_type().is_symlink() {
            return Err(format!("refusing symlink `{}`", path.display()));
        }
    }
    let meta = fs::symlink_metadata(&path)
        .map_err(|e| format!("cannot stat `{}`: {e}", path.display()))?;
    if !meta.is_file() {
        return Err(format!("`{}` is not a regular file", path.display()));
    }
    fs::read(&path).map_err(|e| format!("cannot read `{}`: {e}", path.display()))
}

/// Version and repository from `Cargo.toml`'s `[package]`, checked against `plugin.json`.
pub fn read_meta(root: &Path) -> Result<Meta, String> {
    let cargo = String::from_utf8(read_regular(root, "Cargo.toml")?)
        .map_err(|_| "`Cargo.toml` is not UTF-8".to_string())?;
    let version = package_field(&cargo, "version")?;
    let repository = package_field(&cargo, "repository")?;
    let manifest = read_regular(root, ".claude-plugin/plugin.json")?;
    let plugin: serde_json::Value = serde_json::from_slice(&manifest)
        .map_err(|e| format!("`.claude-plugin/plugin.json` is not valid JSON: {e}"))?;
    if plugin["name"] != "jev-preflight" {
        return Err("`.claude-plugin/plugin.json` must name the plugin `jev-preflight`".into());
    }
    if plugin["version"] != version.as_str() {
        return Err(format!(
            "`.claude-plugin/plugin.json` version {} differs from `Cargo.toml` version {version}\nhint: bump both together",
            plugin["version"]
        ));
    }
    if plugin["repository"] != repository.as_str() {
        return Err(format!(
            "`.claude-plugin/plugin.json` repository {} differs from `Cargo.toml` repository {repository}",
            plugin["repository"]
        ));
    }
    let hooks = plugin["hooks"]
        .as_object()
        .ok_or("`.claude-plugin/plugin.json` declares no hooks")?;
    for (event, groups) in hooks {
        for handler in groups
            .as_array()
            .into_iter()
            .flatten()
            .flat_map(|g| g["hooks"].as_array().into_iter().flatten())
        {
            if handler["command"] != format!("${{CLAUDE_PLUGIN_ROOT}}/{LAUNCHER}") {
                return Err(format!(
                    "the {event} hook must run `${{CLAUDE_PLUGIN_ROOT}}/{LAUNCHER}`, the launcher this archive ships (and, on Windows, `{WINDOWS_EXE}`)"
                ));
            }
        }
    }
    Ok(Meta {
        version,
        repository,
    })
}

/// A `key = "value"` line of the `[package]` table.
fn package_field(cargo: &str, key: &str) -> Result<String, String> {
    let mut in_package = false;
    for line in cargo.lines() {
        let line = line.trim();
        if line.starts_with('[') {
            in_package = line == "[package]";
            continue;
        }
        if !in_package {
            continue;
        }
        if let Some((k, v)) = line.split_once('=')
            && k.trim() == key
        {
            let v = v.trim();
            if let Some(inner) = v.strip_prefix('"').and_then(|v| v.strip_suffix('"')) {
                return Ok(inner.to_string());
            }
        }
    }
    Err(format!(
        "`Cargo.toml` has no `{key} = \"…\"` in `[package]`"
    ))
}
