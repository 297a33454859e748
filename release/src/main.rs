//! Builds the jev-preflight plugin archive reproducibly: the same inputs give the same
//! `.zip`, `.tar.gz` and `SHA256SUMS` bytes from any path, locale, time zone or umask.
//! It also keeps the marketplace's `archive` pin in step with the zip, and checks it.

mod archive;
mod inputs;
mod pin;

use std::path::PathBuf;
use std::process::ExitCode;

const USAGE: &str = "\
usage: jev-preflight-release build --root <repo> --bins <dir> --out <dir> [--partial] [--pin | --check-pin]
       jev-preflight-release check-pin --root <repo> --archive <zip>

build       assemble jev-preflight-<version>.zip, .tar.gz and SHA256SUMS in <out>.
            <bins> holds <target>/jev-preflight[.exe] for the six targets
            (linux, macos, windows x x86_64, aarch64).
  --partial     accept a subset of the targets (local testing; the name gets `-partial`)
  --pin         rewrite .claude-plugin/marketplace.json to pin the new zip
  --check-pin   fail unless .claude-plugin/marketplace.json already pins the new zip
check-pin   fail unless .claude-plugin/marketplace.json pins <zip> (url and sha256)";

fn main() -> ExitCode {
    match run(std::env::args().skip(1).collect()) {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => {
            eprintln!("error: {message}");
            ExitCode::FAILURE
        }
    }
}

fn run(args: Vec<String>) -> Result<(), String> {
    let command = parse(args)?;
    match command {
        Command::Build {
            root,
            bins,
            out,
            partial,
            pin_mode,
        } => {
            let inputs = inputs::collect(&root, &bins, partial)?;
            let built = archive::write_all(&inputs, &out)?;
            for file in &built.files {
                println!("{}  {}", file.sha256, file.path.display());
            }
            match pin_mode {
                PinMode::None => {}
                PinMode::Update => {
                    if partial {
                        return Err("refusing to pin a partial archive in the marketplace\nhint: build all six targets (the release workflow does)".into());
                    }
                    pin::update(&root, &inputs.meta, &built.zip_sha256)?;
                    eprintln!(
                        "pinned {} in .claude-plugin/marketplace.json",
                        built.zip_sha256
                    );
                }
                PinMode::Check => pin::check(&root, &inputs.meta, &built.zip_sha256)?,
            }
            Ok(())
        }
        Command::CheckPin { root, archive } => {
            let meta = inputs::read_meta(&root)?;
            let bytes = std::fs::read(&archive)
                .map_err(|e| format!("cannot read `{}`: {e}", archive.display()))?;
            pin::check(&root, &meta, &inputs::sha256_hex(&bytes))?;
            eprintln!("marketplace pin matches `{}`", archive.display());
            Ok(())
        }
    }
}

enum PinMode {
    None,
    Update,
    Check,
}

enum Command {
    Build {
        root: PathBuf,
        bins: PathBuf,
        out: PathBuf,
        partial: bool,
        pin_mode: PinMode,
    },
    CheckPin {
        root: PathBuf,
        archive: PathBuf,
    },
}

fn parse(args: Vec<String>) -> Result<Command, String> {
    let mut args = args.into_iter();
    let sub = args.next().ok_or_else(|| USAGE.to_string())?;
    let (mut root, mut bins, mut out, mut archive) = (None, None, None, None);
    let (mut partial, mut pin_mode) = (false, PinMode::None);
    while let Some(arg) = args.next() {
        let mut value = |name: &str| {
            args.next()
                .map(PathBuf::from)
                .ok_or_else(|| format!("`{name}` needs a value\n{USAGE}"))
        };
        match arg.as_str() {
            "--root" => root = Some(value("--root")?),
            "--bins" => bins = Some(value("--bins")?),
            "--out" => out = Some(value("--out")?),
            "--archive" => archive = Some(value("--archive")?),
            "--partial" => partial = true,
            "--pin" => pin_mode = PinMode::Update,
            "--check-pin" => pin_mode = PinMode::Check,
            "-h" | "--help" => return Err(USAGE.to_string()),
            other => return Err(format!("unexpected argument `{other}`\n{USAGE}")),
        }
    }
    let need =
        |v: Option<PathBuf>, name: &str| v.ok_or_else(|| format!("missing `{name}`\n{USAGE}"));
    match sub.as_str() {
        "build" => Ok(Command::Build {
            root: need(root, "--root")?,
            bins: need(bins, "--bins")?,
            out: need(out, "--out")?,
            partial,
            pin_mode,
        }),
        "check-pin" => Ok(Command::CheckPin {
            root: need(root, "--root")?,
            archive: need(archive, "--archive")?,
        }),
        other => Err(format!("unknown command `{other}`\n{USAGE}")),
    }
}
