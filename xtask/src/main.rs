//! Development tasks of jev-preflight, run as `cargo xtask <task>`.

mod bench;
mod data;
mod deps;
mod detectors;
mod dump;
mod fit;
mod learn;
mod metrics;
mod optimize;
mod quality;
mod sets;
mod turns;

use std::process::ExitCode;

const HELP: &str = "cargo xtask <task>

tasks:
  fit          fit the built-in scorer's model on the train side of every set; --write
               replaces the shipped model, --check exits 1 unless the fit reproduces it
  quality      the shipped model on the held-apart side of every set (ROC/PR-AUC next to a
               lines-added baseline, polarity, reliability); --curve adds the learning curve
  dump FILE    every case of every set, unit by unit, as text for experiments
  bench        regenerate BENCHMARKS.md: every timing bench in benches/ and `quality`
               (--quick: fewer rounds and no learning curve)
  check-deps   every dependency's licence is on the accepted list and its rust-version is
               not newer than ours (reads `cargo metadata --locked`)
  detectors    the hand-written detectors' hits and alarms per set and rule (train side;
               --held-apart adds held-apart aggregates; --misses SET / --alarms SET sample
               train cases; --sets a,b --n N --filter WORD)
";

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    // `Ok(false)`: a check that ran and failed (it printed its findings); `Err`: a task that
    // could not run, with the reason.
    let result: Result<bool, String> = match args.first().map(String::as_str) {
        Some("dump") => match args.get(1) {
            Some(path) => dump::run(path).map(|()| true),
            None => Err("`dump` takes the file to write".into()),
        },
        Some("detectors") => detectors::run(&args[1..]).map(|()| true),
        Some("quality") => quality::run(&args[1..]).map(|()| true),
        Some("fit") => fit::run(&args[1..]),
        Some("check-deps") => deps::run(&args[1..]),
        Some("bench") => bench::run(&args[1..]).map(|()| true),
        Some("help" | "-h" | "--help") | None => {
            print!("{HELP}");
            Ok(true)
        }
        Some(other) => Err(format!("unknown task `{other}`\nhint: `cargo xtask help`")),
    };
    match result {
        Ok(true) => ExitCode::SUCCESS,
        Ok(false) => ExitCode::from(1),
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::from(2)
        }
    }
}
