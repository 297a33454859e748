//! Quality and speed report for a scorer on the labeled set in `testdata/eval/`.
//!
//! `cargo bench --bench quality [-- --split dev|holdout|all] [--threshold 0.85] [--misses]`
//! prints per-axis precision and recall, the benign false-alarm rate and top-1 / top-3 hit
//! rates, then times the local scorer on a payload of about 64 KiB. [`quality`] takes any
//! [`Scorer`], so a remote backend can be measured the same way.

use std::process::ExitCode;
use std::time::{Duration, Instant};

use jev_preflight::pipeline::axes::DEFAULT_THRESHOLD;
use jev_preflight::pipeline::payload::DEFAULT_MAX_DIFF_BYTES;
use jev_preflight::scorer::Scorer;
use jev_preflight::scorer::local::LocalScorer;

#[path = "support/eval_set.rs"]
mod eval_set;
use eval_set::{Case, Split};

struct Args {
    split: Option<Split>,
    threshold: f64,
    misses: bool,
}

fn parse_args() -> Result<Args, String> {
    let mut args = Args {
        split: None,
        threshold: DEFAULT_THRESHOLD,
        misses: false,
    };
    let mut it = std::env::args().skip(1);
    while let Some(arg) = it.next() {
        match arg.as_str() {
            // Passed by `cargo bench`.
            "--bench" => {}
            "--misses" => args.misses = true,
            "--split" => {
                args.split = match it.next().as_deref() {
                    Some("dev") => Some(Split::Dev),
                    Some("holdout") => Some(Split::Holdout),
                    Some("all") => None,
                    other => return Err(format!("unknown split `{}`", other.unwrap_or(""))),
                }
            }
            "--threshold" => {
                args.threshold = it
                    .next()
                    .and_then(|t| t.parse().ok())
                    .filter(|t: &f64| (0.0..=1.0).contains(t))
                    .ok_or("`--threshold` takes a number in [0, 1]")?;
            }
            other => return Err(format!("unknown argument `{other}`")),
        }
    }
    Ok(args)
}

/// Prints the quality table of `scorer` on `cases`.
fn quality(
    scorer: &dyn Scorer,
    cases: &[Case],
    threshold: f64,
    misses: bool,
) -> Result<(), String> {
    let report = eval_set::evaluate(scorer, cases, threshold).map_err(|e| e.to_string())?;
    print!("{}", report.table());
    let total: Duration = report.results.iter().map(|r| r.elapsed).sum();
    println!(
        "mean time per case: {:.1} µs",
        total.as_secs_f64() * 1e6 / report.results.len().max(1) as f64
    );
    if misses {
        print!("{}", report.misses());
    }
    Ok(())
}

/// Times the local scorer on whole eval diffs concatenated up to the default payload cap.
fn speed(cases: &[Case]) {
    let mut diff = String::new();
    'fill: loop {
        for case in cases {
            // Whole diffs while the payload stays complete (no partial view).
            let next = diff.clone() + &case.diff;
            if eval_set::payload_from_diff(&next)
                .is_none_or(|p| p.json.len() >= DEFAULT_MAX_DIFF_BYTES || !p.omitted.is_empty())
            {
                break 'fill;
            }
            diff.push_str(&case.diff);
        }
    }
    let payload = eval_set::payload_from_diff(&diff).expect("the eval diffs make a payload");
    let scorer = LocalScorer::new();
    let start = Instant::now();
    std::hint::black_box(scorer.score_diff(""));
    println!(
        "rule compilation (first score in a process): {:.2} ms",
        start.elapsed().as_secs_f64() * 1e3
    );
    // The first call on real input fills the regex engines' caches; report it apart.
    let start = Instant::now();
    scorer
        .score(&payload, Duration::from_secs(1))
        .expect("local scorer never fails");
    let first = start.elapsed();
    let mut times: Vec<Duration> = (0..200)
        .map(|_| {
            let start = Instant::now();
            let scores = scorer
                .score(&payload, Duration::from_secs(1))
                .expect("local scorer never fails");
            std::hint::black_box(scores);
            start.elapsed()
        })
        .collect();
    times.sort();
    let ms = |d: Duration| d.as_secs_f64() * 1e3;
    println!(
        "speed: payload {} bytes ({} diff lines, {} files): first call {:.2} ms (cold caches); \
         then min {:.3} ms, median {:.3} ms, p99 {:.3} ms, max {:.3} ms over {} runs",
        payload.json.len(),
        diff.lines().count(),
        payload.files.len(),
        ms(first),
        ms(times[0]),
        ms(times[times.len() / 2]),
        ms(times[times.len() * 99 / 100]),
        ms(times[times.len() - 1]),
        times.len()
    );
}

fn main() -> ExitCode {
    let args = match parse_args() {
        Ok(args) => args,
        Err(e) => {
            eprintln!(
                "error: {e}\nhint: `cargo bench --bench quality -- --split dev|holdout|all --threshold 0.85 --misses`"
            );
            return ExitCode::from(2);
        }
    };
    let cases = match eval_set::load(&eval_set::default_dir()) {
        Ok(cases) => cases,
        Err(e) => {
            eprintln!("error: {e}");
            return ExitCode::FAILURE;
        }
    };
    let subset: Vec<Case> = cases
        .iter()
        .filter(|c| args.split.is_none_or(|s| c.split == s))
        .cloned()
        .collect();
    // Speed first, so its first call pays for compiling the rules as a hook process does.
    speed(&cases);
    if let Err(e) = quality(&LocalScorer::new(), &subset, args.threshold, args.misses) {
        eprintln!("error: scorer failed: {e}");
        return ExitCode::FAILURE;
    }
    ExitCode::SUCCESS
}
