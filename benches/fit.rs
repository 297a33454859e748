//! Fits the local scorer's model on the mined corpus and writes it where the binary embeds it.
//!
//! `scripts/fit` runs `cargo bench --bench fit -- --write`: features of every case through the
//! production code, then the two stages of `src/scorer/local/model.rs` (a gate, `P(risky)`,
//! and an axis model, `P(axis | risky)`, both regularized logistic regressions), Platt
//! calibration of the gate and the thresholds chosen from out-of-fold scores
//! (repositories never on both sides of a fold), then the final fit on every case. The result
//! is deterministic: the same corpus gives the same `src/scorer/local/model.bin` byte for byte
//! (`--check` verifies it), and its SHA-256 goes to `model.sha256` next to it. It also prints
//! the nested out-of-fold figures (each fold's model, calibration and thresholds chosen
//! without that fold's repositories).
//!
//! Options: `--write` (replace the shipped model), `--check` (exit 1 unless the fit
//! reproduces the shipped model), `--corpus DIR`, `--folds K`, `--false-alarms R` (the benign
//! false-alarm rate the thresholds keep to, out-of-fold), `--l2 X` / `--l2-gate X` /
//! `--l2-axes X`, `--secondary M` (label mass given to secondary axes), `--global-threshold`
//! (one threshold for every axis, the default) or `--per-axis-thresholds`, `--gamma G` (how
//! much the axis model weighs in an axis's score), `--axis-balance A` (how much more a rare
//! axis weighs in the axis model), `--dump FILE` (the features of every case, for
//! experiments).

use std::path::{Path, PathBuf};
use std::process::ExitCode;

#[path = "support/corpus.rs"]
mod corpus;
#[path = "support/eval_set.rs"]
mod eval_set;
#[path = "support/fit.rs"]
mod fit;
#[path = "support/learn.rs"]
mod learn;

fn model_path() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("src/scorer/local/model.bin")
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let value = |name: &str| fit::arg_value(&args, name);
    let params = match fit::Params::from_args(&args) {
        Ok(p) => p,
        Err(e) => {
            eprintln!("error: {e}");
            return ExitCode::from(2);
        }
    };
    let dir = value("--corpus").map_or_else(corpus::default_dir, PathBuf::from);
    let write = args.iter().any(|a| a == "--write");
    let check = args.iter().any(|a| a == "--check");
    // `cargo bench` passes `--bench`; without our own flags there is nothing to do.
    if !write && !check && value("--corpus").is_none() {
        println!("fit: pass --write to re-fit the shipped model, --check to verify it");
        return ExitCode::SUCCESS;
    }
    let data = match learn::Data::load(&dir, &params) {
        Ok(d) => d,
        Err(e) => {
            eprintln!("error: {e}");
            return ExitCode::from(2);
        }
    };
    println!(
        "corpus: {} cases from {} repositories; {params:?}",
        data.cases.len(),
        data.repos().len()
    );
    if let Some(path) = value("--dump") {
        // Features and labels as text, for experiments outside this bench.
        let mut out = String::new();
        for (c, s) in data.cases.iter().zip(&data.samples) {
            let label = c.primary.map_or("benign".to_owned(), |p| p.to_string());
            out.push_str(&format!("{}\t{}\t{}\t", c.id, c.repo, label));
            let sec: Vec<String> = c.secondary.iter().map(|a| a.to_string()).collect();
            out.push_str(&sec.join(","));
            out.push('\t');
            let feats: Vec<String> = s
                .index
                .iter()
                .zip(&s.value)
                .map(|(i, v)| format!("{i}:{v}"))
                .collect();
            out.push_str(&feats.join(" "));
            out.push('\n');
        }
        std::fs::write(&path, out).expect("dump is writable");
        println!("fit: wrote features to {path}");
        return ExitCode::SUCCESS;
    }
    // `--check` only needs the shipped model; the nested figures are for people.
    let out = learn::run(&data, &data.all(), &params, true, !check || write);
    if !check || write {
        print!(
            "{}",
            fit::table(
                "nested out-of-fold (each fold's model, calibration and thresholds chosen without it)",
                &out.nested
            )
        );
    }
    print!(
        "{}",
        fit::table(
            "out-of-fold at the shipped thresholds (thresholds chosen on these scores)",
            &out.oof
        )
    );
    println!(
        "shipped thresholds (lowest per-axis precision {:.2}): {:?}",
        out.precision_target,
        out.thresholds.map(|t| (t * 1000.0).round() / 1000.0)
    );
    let bytes = out.parts.expect("the fit asked for the model").encode();
    let sha = jev_preflight::digest::hex_sha256(&bytes);
    let path = model_path();
    if check {
        let shipped = std::fs::read(&path).unwrap_or_default();
        if shipped != bytes {
            eprintln!(
                "fit: the fit does not reproduce {} (got {sha})",
                path.display()
            );
            return ExitCode::from(1);
        }
        println!("fit: reproduces {} byte for byte ({sha})", path.display());
    }
    if write {
        std::fs::write(&path, &bytes).expect("model.bin is writable");
        std::fs::write(path.with_extension("sha256"), format!("{sha}\n"))
            .expect("model.sha256 is writable");
        println!(
            "fit: wrote {} ({} bytes, {sha})",
            path.display(),
            bytes.len()
        );
    }
    ExitCode::SUCCESS
}
