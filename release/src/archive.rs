//! The archive writers. Only the inputs decide the bytes: entries are sorted, every entry gets
//! the same timestamp, modes come from the entry kind (0755 executables and directories, 0644
//! the rest), owners are 0 with empty names, and no extra fields or host data are written.

use std::fs;
use std::io::{Cursor, Write};
use std::path::{Path, PathBuf};

use zip::write::SimpleFileOptions;
use zip::{CompressionMethod, DateTime, ZipWriter};

use crate::inputs::{Inputs, sha256_hex};

/// 1980-01-01T00:00:00Z: the earliest instant a zip header can hold, used for every entry.
const FIXED_UNIX_TIME: u64 = 315_532_800;

pub struct Built {
    pub files: Vec<BuiltFile>,
    pub zip_sha256: String,
}

pub struct BuiltFile {
    pub path: PathBuf,
    pub sha256: String,
}

/// One archive member: a directory (path ends in `/`) or a file.
struct Member<'a> {
    path: String,
    data: Option<&'a [u8]>,
    mode: u32,
}

/// Files plus every directory that contains them, sorted by path.
fn members(inputs: &Inputs) -> Vec<Member<'_>> {
    let mut dirs = std::collections::BTreeSet::new();
    for entry in &inputs.entries {
        let mut at = 0;
        while let Some(slash) = entry.path[at..].find('/') {
            at += slash + 1;
            dirs.insert(entry.path[..at].to_string());
        }
    }
    let mut all: Vec<Member<'_>> = dirs
        .into_iter()
        .map(|path| Member {
            path,
            data: None,
            mode: 0o755,
        })
        .collect();
    all.extend(inputs.entries.iter().map(|e| Member {
        path: e.path.clone(),
        data: Some(&e.data),
        mode: if e.executable { 0o755 } else { 0o644 },
    }));
    all.sort_by(|a, b| a.path.cmp(&b.path));
    all
}

pub fn write_all(inputs: &Inputs, out: &Path) -> Result<Built, String> {
    let members = members(inputs);
    let stem = format!(
        "jev-preflight-{}{}",
        inputs.meta.version,
        if inputs.partial { "-partial" } else { "" }
    );
    let zip = zip_bytes(&members)?;
    let tgz = tar_gz_bytes(&members)?;
    let zip_name = format!("{stem}.zip");
    let tgz_name = format!("{stem}.tar.gz");
    let zip_sha256 = sha256_hex(&zip);
    let sums = format!(
        "{zip_sha256}  {zip_name}\n{}  {tgz_name}\n",
        sha256_hex(&tgz)
    );

    fs::create_dir_all(out).map_err(|e| format!("cannot create `{}`: {e}", out.display()))?;
    let mut files = Vec::new();
    for (name, bytes) in [
        (zip_name, zip),
        (tgz_name, tgz),
        ("SHA256SUMS".to_string(), sums.into_bytes()),
    ] {
        let path = out.join(&name);
        write_file(&path, &bytes)?;
        files.push(BuiltFile {
            sha256: sha256_hex(&bytes),
            path,
        });
    }
    Ok(Built { files, zip_sha256 })
}

/// Writes through a temp file and a rename, so a reader never sees half an archive.
fn write_file(path: &Path, bytes: &[u8]) -> Result<(), String> {
    let tmp = path.with_extension("partial-write");
    let result = (|| {
        let mut file = fs::File::create(&tmp)?;
        file.write_all(bytes)?;
        file.sync_all()?;
        fs::rename(&tmp, path)
    })();
    result.map_err(|e| {
        let _ = fs::remove_file(&tmp);
        format!("cannot write `{}`: {e}", path.display())
    })
}

fn zip_bytes(members: &[Member<'_>]) -> Result<Vec<u8>, String> {
    let time = DateTime::from_date_and_time(1980, 1, 1, 0, 0, 0).map_err(|e| e.to_string())?;
    let mut zip = ZipWriter::new(Cursor::new(Vec::new()));
    for member in members {
        let options = SimpleFileOptions::default()
            .last_modified_time(time)
            .unix_permissions(member.mode)
            .large_file(false);
        let result = match member.data {
            None => zip.add_directory(
                member.path.as_str(),
                options.compression_method(CompressionMethod::Stored),
            ),
            Some(data) => zip
                .start_file(
                    member.path.as_str(),
                    options
                        .compression_method(CompressionMethod::Deflated)
                        .compression_level(Some(6)),
                )
                .and_then(|()| zip.write_all(data).map_err(Into::into)),
        };
        result.map_err(|e| format!("cannot add `{}` to the zip: {e}", member.path))?;
    }
    let cursor = zip
        .finish()
        .map_err(|e| format!("cannot finish the zip: {e}"))?;
    Ok(cursor.into_inner())
}

fn tar_gz_bytes(members: &[Member<'_>]) -> Result<Vec<u8>, String> {
    let mut tar = Vec::new();
    for member in members {
        tar.extend_from_slice(&ustar_header(member)?);
        if let Some(data) = member.data {
            tar.extend_from_slice(data);
            tar.resize(tar.len().next_multiple_of(512), 0);
        }
    }
    // End-of-archive marker, then padding to a whole 10 KiB record as tar(1) writes it.
    tar.resize(tar.len() + 1024, 0);
    tar.resize(tar.len().next_multiple_of(10240), 0);

    let mut gz = flate2::GzBuilder::new()
        .mtime(0)
        .operating_system(255)
        .write(Vec::new(), flate2::Compression::new(6));
    gz.write_all(&tar)
        .map_err(|e| format!("cannot compress the tar: {e}"))?;
    gz.finish()
        .map_err(|e| format!("cannot compress the tar: {e}"))
}

/// A POSIX ustar header with owner 0:0, empty owner names and the fixed time.
fn ustar_header(member: &Member<'_>) -> Result<[u8; 512], String> {
    let mut h = [0u8; 512];
    let name = member.path.as_bytes();
    if name.len() > 100 {
        return Err(format!(
            "path `{}` is longer than a ustar name (100 bytes)",
            member.path
        ));
    }
    let size = member.data.map_or(0, <[u8]>::len);
    let mut put = |at: usize, bytes: &[u8]| h[at..at + bytes.len()].copy_from_slice(bytes);
    put(0, name);
    put(100, format!("{:07o}\0", member.mode).as_bytes());
    put(108, b"0000000\0");
    put(116, b"0000000\0");
    put(124, format!("{size:011o}\0").as_bytes());
    put(136, format!("{FIXED_UNIX_TIME:011o}\0").as_bytes());
    put(148, b"        ");
    put(156, if member.data.is_some() { b"0" } else { b"5" });
    put(257, b"ustar\0");
    put(263, b"00");
    put(329, b"0000000\0");
    put(337, b"0000000\0");
    let sum: u32 = h.iter().map(|&b| u32::from(b)).sum();
    h[148..156].copy_from_slice(format!("{sum:06o}\0 ").as_bytes());
    Ok(h)
}
