//! Start-up cost of the local scorer as a Stop hook pays it: a fresh process constructs a
//! `LocalScorer` and scores one payload (2, 10 and 64 KiB of diff), once.
//!
//! `cargo bench --bench local_startup [-- --rounds 40]` re-runs this binary as a child per
//! round (so every lazy table is built from scratch, as in a hook process) and prints the
//! median, p90 and max of the in-process time from construction to scores, per payload size,
//! and the same payload scored again in that process ("warm"), and how the cold time splits
//! between reading the diff's features and the model with its evidence.

use std::process::{Command, ExitCode};
use std::time::{Duration, Instant};

use jev_preflight::scorer::Scorer;
use jev_preflight::scorer::local::{self, LocalScorer, units};

use testkit::eval_set;

const CHILD_ENV: &str = "JEV_LOCAL_STARTUP_CHILD";

/// A payload of about `target` bytes: real changes of `testdata/corpus-fresh/` (reversed fixes
/// and benign commits of 59 repositories, in manifest order) concatenated, so the text looks
/// like a real turn touching several files and languages.
fn payload(target: usize) -> String {
    use std::io::BufRead;
    let gz = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("testdata/corpus-fresh/cases.jsonl.gz");
    let file = std::fs::File::open(&gz).expect("testdata/corpus-fresh is in the checkout");
    let mut diff = String::new();
    for line in std::io::BufReader::new(flate2::read::GzDecoder::new(file)).lines() {
        if diff.len() >= target {
            break;
        }
        let case: serde_json::Value = serde_json::from_str(&line.expect("readable")).expect("json");
        let text = case["diff"].as_str().expect("a diff");
        if diff.len() + text.len() <= target + target / 8 {
            diff.push_str(text);
        }
    }
    diff
}

fn child(target: usize) {
    let diff = payload(target);
    let p = eval_set::payload_from_diff(&diff).expect("the eval diffs make a payload");
    let start = Instant::now();
    let scorer = LocalScorer::new();
    // What `score` does, in its two steps, so the split can be printed.
    let units = units::features(&p.diff, units::Grouping::Family);
    let extracted = start.elapsed();
    let scores = local::score_units(&units);
    let took = start.elapsed();
    std::hint::black_box(scores);
    // The same payload again in the same process: what is left once everything is compiled.
    let start = Instant::now();
    std::hint::black_box(scorer.score(&p, Duration::from_secs(5)).expect("scores"));
    let warm = start.elapsed();
    println!(
        "{} {} {} {}",
        diff.len(),
        took.as_nanos(),
        warm.as_nanos(),
        extracted.as_nanos()
    );
}

fn main() -> ExitCode {
    if let Ok(target) = std::env::var(CHILD_ENV) {
        child(target.parse().expect("size"));
        return ExitCode::SUCCESS;
    }
    let mut rounds = 30usize;
    let mut it = std::env::args().skip(1);
    while let Some(arg) = it.next() {
        match arg.as_str() {
            "--bench" => {}
            "--rounds" => match it.next().and_then(|n| n.parse().ok()) {
                Some(n) if n > 0 => rounds = n,
                _ => {
                    eprintln!("`--rounds` takes a positive number");
                    return ExitCode::from(2);
                }
            },
            other => {
                eprintln!("unknown argument `{other}`");
                return ExitCode::from(2);
            }
        }
    }
    let exe = std::env::current_exe().expect("own path");
    println!("local scorer start-up, fresh process per round, {rounds} rounds");
    println!(
        "{:>9} {:>9} {:>9} {:>9} {:>12} {:>16}",
        "bytes", "median", "p90", "max", "warm median", "features, median"
    );
    for target in [2048usize, 10240, 65536] {
        let mut times = Vec::with_capacity(rounds);
        let mut warm = Vec::with_capacity(rounds);
        let mut extract = Vec::with_capacity(rounds);
        let mut bytes = 0;
        for _ in 0..rounds {
            let out = Command::new(&exe)
                .env(CHILD_ENV, target.to_string())
                .output()
                .expect("child runs");
            if !out.status.success() {
                eprintln!("child failed: {}", String::from_utf8_lossy(&out.stderr));
                return ExitCode::FAILURE;
            }
            let text = String::from_utf8_lossy(&out.stdout);
            let mut parts = text.split_whitespace();
            bytes = parts.next().and_then(|b| b.parse().ok()).unwrap_or(0);
            let ns: u64 = parts.next().and_then(|n| n.parse().ok()).unwrap_or(0);
            times.push(Duration::from_nanos(ns));
            let ns: u64 = parts.next().and_then(|n| n.parse().ok()).unwrap_or(0);
            warm.push(Duration::from_nanos(ns));
            let ns: u64 = parts.next().and_then(|n| n.parse().ok()).unwrap_or(0);
            extract.push(Duration::from_nanos(ns));
        }
        times.sort();
        warm.sort();
        extract.sort();
        let at = |q: f64| times[((times.len() - 1) as f64 * q).round() as usize];
        println!(
            "{bytes:>9} {:>7.2}ms {:>7.2}ms {:>7.2}ms {:>10.2}ms {:>14.2}ms",
            at(0.5).as_secs_f64() * 1e3,
            at(0.9).as_secs_f64() * 1e3,
            times[times.len() - 1].as_secs_f64() * 1e3,
            warm[warm.len() / 2].as_secs_f64() * 1e3,
            extract[extract.len() / 2].as_secs_f64() * 1e3
        );
    }
    ExitCode::SUCCESS
}
