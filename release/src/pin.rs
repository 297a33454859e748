//! The marketplace pin: `.claude-plugin/marketplace.json` lists jev-preflight with an `archive`
//! source whose `url` is the GitHub release asset for this version and whose `sha256` is the
//! zip's. `check` refuses a pin that does not match; `update` rewrites only those two values.

use std::fs;
use std::path::Path;

use serde_json::Value;

use crate::inputs::Meta;

const MARKETPLACE: &str = ".claude-plugin/marketplace.json";

/// The release asset URL of the zip for this version.
pub fn expected_url(meta: &Meta) -> Result<String, String> {
    let repo = meta.repository.trim_end_matches('/');
    if !repo.starts_with("https://github.com/") {
        return Err(format!(
            "`Cargo.toml` repository `{repo}` is not a https://github.com/ URL"
        ));
    }
    Ok(format!(
        "{repo}/releases/download/v{v}/jev-preflight-{v}.zip",
        v = meta.version
    ))
}

/// The `(url, sha256)` of the jev-preflight entry's archive source.
fn current_pin(text: &str) -> Result<(String, String), String> {
    let doc: Value = serde_json::from_str(text)
        .map_err(|e| format!("`{MARKETPLACE}` is not valid JSON: {e}"))?;
    let entry = doc["plugins"]
        .as_array()
        .and_then(|plugins| plugins.iter().find(|p| p["name"] == "jev-preflight"))
        .ok_or_else(|| format!("`{MARKETPLACE}` lists no `jev-preflight` plugin"))?;
    let source = &entry["source"];
    if source["source"] != "archive" {
        return Err(format!(
            "`{MARKETPLACE}`: jev-preflight's source must be an `archive` source"
        ));
    }
    let field = |name: &str| {
        source[name]
            .as_str()
            .map(str::to_string)
            .ok_or_else(|| format!("`{MARKETPLACE}`: the archive source has no `{name}` string"))
    };
    Ok((field("url")?, field("sha256")?))
}

pub fn check(root: &Path, meta: &Meta, zip_sha256: &str) -> Result<(), String> {
    let text = read(root)?;
    let (url, sha256) = current_pin(&text)?;
    let want_url = expected_url(meta)?;
    if url != want_url {
        return Err(format!(
            "marketplace pin url `{url}` does not match `{want_url}`\nhint: run `scripts/release --pin <out-dir>` on the full set of binaries"
        ));
    }
    if sha256 != zip_sha256 {
        return Err(format!(
            "marketplace pin sha256 {sha256} does not match the archive's {zip_sha256}\nhint: run `scripts/release --pin <out-dir>` on the full set of binaries"
        ));
    }
    Ok(())
}

pub fn update(root: &Path, meta: &Meta, zip_sha256: &str) -> Result<(), String> {
    let text = read(root)?;
    let (url, sha256) = current_pin(&text)?;
    let mut new = text.clone();
    for (old, value) in [(url, expected_url(meta)?), (sha256, zip_sha256.to_string())] {
        let old = serde_json::to_string(&old).map_err(|e| e.to_string())?;
        let value = serde_json::to_string(&value).map_err(|e| e.to_string())?;
        if new.matches(&old).count() != 1 {
            return Err(format!(
                "`{MARKETPLACE}`: {old} must appear exactly once to be replaced"
            ));
        }
        new = new.replacen(&old, &value, 1);
    }
    check_text(&new, meta, zip_sha256)?;
    let path = root.join(MARKETPLACE);
    let tmp = path.with_extension("json.tmp");
    fs::write(&tmp, new)
        .and_then(|()| fs::rename(&tmp, &path))
        .map_err(|e| format!("cannot write `{}`: {e}", path.display()))
}

fn check_text(text: &str, meta: &Meta, zip_sha256: &str) -> Result<(), String> {
    let (url, sha256) = current_pin(text)?;
    if url == expected_url(meta)? && sha256 == zip_sha256 {
        Ok(())
    } else {
        Err(format!("`{MARKETPLACE}` did not take the new pin"))
    }
}

fn read(root: &Path) -> Result<String, String> {
    let path = root.join(MARKETPLACE);
    let meta = fs::symlink_metadata(&path)
        .map_err(|e| format!("cannot read `{}`: {e}", path.display()))?;
    if !meta.is_file() {
        return Err(format!("`{}` must be a regular file", path.display()));
    }
    fs::read_to_string(&path).map_err(|e| format!("cannot read `{}`: {e}", path.display()))
}
