//! `cargo xtask fit [--check | --write]`: fits the built-in scorer's model on the train side
//! of every set in `testdata/` and writes `src/scorer/local/model.bin` and `model.sha256`.
//! The result is deterministic: `--check` re-fits and exits 1 unless the bytes equal the
//! shipped model's. Without either flag it fits and prints the out-of-fold figures only;
//! `--explore gamma_rest:power,...` prints them for other shapes, and `--budgets
//! singles/mixed/ordinary/tests/safe` chooses the thresholds under other false-alarm budgets
//! (neither with `--write` or `--check`).
//!
//! The held-apart side of every set takes no part (see each set's README and
//! [`crate::sets::Side`]), so `cargo xtask quality` measures the shipped model itself on
//! data it never saw.

use std::path::{Path, PathBuf};

use jev_preflight::pipeline::axes::{AXIS_COUNT, AXIS_IDS};
use jev_preflight::scorer::local::detect::Rule;
use jev_preflight::scorer::local::model::Calibration;

use crate::data::{Data, Options, Source};
use crate::learn::{self, Budgets, Params};
use crate::metrics;
use crate::sets::{SetName, Side};

fn model_path() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../src/scorer/local/model.bin")
}

/// The value after `name` on the command line, if any.
pub fn arg_value(args: &[String], name: &str) -> Option<String> {
    args.iter()
        .position(|a| a == name)
        .and_then(|i| args.get(i + 1))
        .cloned()
}

/// The fit's options from the command line (`--l2-gate`, `--l2-axes`, `--axis-balance`,
/// `--rounds`, `--gamma-top`, `--gamma-rest`).
pub fn params(args: &[String]) -> Result<Params, String> {
    fn number<T: std::str::FromStr>(args: &[String], name: &str) -> Result<Option<T>, String> {
        arg_value(args, name)
            .map(|v| {
                v.parse()
                    .map_err(|_| format!("`{name}` takes a number, not `{v}`"))
            })
            .transpose()
    }
    let mut p = Params::default();
    p.l2_gate = number(args, "--l2-gate")?.unwrap_or(p.l2_gate);
    p.l2_axes = number(args, "--l2-axes")?.unwrap_or(p.l2_axes);
    p.axis_balance = number(args, "--axis-balance")?.unwrap_or(p.axis_balance);
    p.rounds = number(args, "--rounds")?.unwrap_or(p.rounds);
    p.gamma_top = number(args, "--gamma-top")?.unwrap_or(p.gamma_top);
    p.gamma_rest = number(args, "--gamma-rest")?.unwrap_or(p.gamma_rest);
    p.iterations = number(args, "--iterations")?.unwrap_or(p.iterations);
    Ok(p)
}

/// Benign mixed turns built per side.
pub const BENIGN_TURNS: usize = 3000;

pub fn run(args: &[String]) -> Result<bool, String> {
    let write = args.iter().any(|a| a == "--write");
    let check = args.iter().any(|a| a == "--check");
    let p = params(args)?;
    let budgets = match arg_value(args, "--budgets") {
        None => Budgets::default(),
        Some(_) if write || check => {
            return Err("--budgets is for exploring; the shipped model keeps the defaults".into());
        }
        Some(spec) => budgets_of(&spec)?,
    };
    let data = Data::load(Options {
        benign_turns: BENIGN_TURNS,
        held_apart: false,
    })?;
    let raw = learn::out_of_fold(&data, &p);
    let calibration = learn::calibrate(&data, &raw, &p);
    let measured = learn::rule_strengths(&data, &learn::fit_items(&data));
    println!("{p:?}\n{calibration:?}");
    let show = |choice: &learn::Choice| {
        let mut rules: Vec<String> = Rule::ALL
            .iter()
            .enumerate()
            .map(|(r, rule)| {
                format!(
                    "{} {:.2}{}",
                    rule.name(),
                    measured[r],
                    if choice.trusted[r] { " (trusted)" } else { "" }
                )
            })
            .collect();
        rules.sort();
        println!("rules, measured strength: {}", rules.join(", "));
        println!(
            "thresholds: {}",
            AXIS_IDS
                .iter()
                .zip(choice.thresholds)
                .map(|(a, t)| format!("{a} {t:.4}"))
                .collect::<Vec<_>>()
                .join(", ")
        );
    };
    let table = |values: &[[f64; AXIS_COUNT]], thresholds: &[f64; AXIS_COUNT]| {
        print!("{}", metrics::HEADER);
        for source in [
            Source::Set(SetName::Corpus),
            Source::Mixed,
            Source::Set(SetName::Introduced),
            Source::Set(SetName::Tampering),
            Source::Set(SetName::Ordinary),
        ] {
            let members = data.of(Side::Train, source);
            let f = metrics::figures(&data.items, &members, values, thresholds);
            print!("{}", metrics::row(source.name(), "fold", &f));
        }
    };
    if let Some(grid) = arg_value(args, "--explore") {
        // Exploration: `gamma_rest:power,...`, out-of-fold figures for each.
        for point in grid.split(',') {
            let (g, w) = point.split_once(':').unwrap_or((point, "0.5"));
            let (g, w): (f64, f64) = (
                g.parse().map_err(|_| format!("bad gamma `{g}`"))?,
                w.parse().map_err(|_| format!("bad power `{w}`"))?,
            );
            let c = Calibration {
                gamma_rest: g,
                ..calibration
            };
            let parts = learn::item_parts(&data, &|u| raw[u], &c);
            let choice = learn::choose(&data, &parts, &measured, &budgets, w);
            println!("\ngamma_rest {g} power {w}");
            show(&choice);
            let v: Vec<[f64; AXIS_COUNT]> = parts
                .iter()
                .map(|p| learn::values_with(p, &choice.strengths))
                .collect();
            table(&v, &choice.thresholds);
        }
        return Ok(true);
    }
    let parts = learn::item_parts(&data, &|u| raw[u], &calibration);
    let choice = learn::choose(&data, &parts, &measured, &budgets, learn::SET_WEIGHT_POWER);
    show(&choice);
    let values: Vec<[f64; AXIS_COUNT]> = parts
        .iter()
        .map(|p| learn::values_with(p, &choice.strengths))
        .collect();
    print!("\nout-of-fold, train side (5 folds by repository)\n\n");
    table(&values, &choice.thresholds);
    let (thresholds, strengths) = (choice.thresholds, choice.strengths);
    let weights = learn::fit(&data, &learn::fit_items(&data), &p);
    let bytes = learn::parts(&weights, &calibration, &thresholds, &strengths).encode();
    let sha = jev_preflight::digest::hex_sha256(&bytes);
    let path = model_path();
    let mut ok = true;
    if check {
        let shipped = std::fs::read(&path).unwrap_or_default();
        if shipped == bytes {
            println!("fit: reproduces {} byte for byte ({sha})", path.display());
        } else {
            eprintln!(
                "fit: the fit does not reproduce {} (got {sha})",
                path.display()
            );
            ok = false;
        }
    }
    if write {
        std::fs::write(&path, &bytes)
            .map_err(|e| format!("cannot write `{}`: {e}", path.display()))?;
        std::fs::write(path.with_extension("sha256"), format!("{sha}\n"))
            .map_err(|e| format!("cannot write the checksum: {e}"))?;
        println!(
            "fit: wrote {} ({} bytes, {sha})",
            path.display(),
            bytes.len()
        );
    }
    Ok(ok)
}

/// `singles/mixed/ordinary/tests/safe` shares (for example `0.04/0.05/0.05/0.03/0.05`).
fn budgets_of(spec: &str) -> Result<Budgets, String> {
    let shares: Vec<f64> = spec
        .split('/')
        .map(|v| {
            v.parse()
                .map_err(|_| format!("bad budget `{v}` in `{spec}`"))
        })
        .collect::<Result<_, _>>()?;
    let [singles, mixed, ordinary, tests, safe_variants] = shares[..] else {
        return Err(format!("--budgets takes five shares, got `{spec}`"));
    };
    Ok(Budgets {
        singles,
        mixed,
        ordinary,
        tests,
        safe_variants,
    })
}
