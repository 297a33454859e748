//! Start-up cost of the local scorer as a Stop hook pays it: a fresh process constructs a
//! `LocalScorer` and scores one typical payload (2–10 KiB of diff), once.
//!
//! `cargo bench --bench local_startup [-- --rounds 40]` re-runs this binary as a child per
//! round (so every lazy table is built from scratch, as in a hook process) and prints the
//! median, p90 and max of the in-process time from construction to scores, per payload size,
//! and the same payload scored again in that process ("warm"). `--warm-rules` compiles every
//! line rule before the clock starts (what the rest costs); `--profile` prints the compile
//! time of each regex instead.

use std::process::{Command, ExitCode};
use std::time::{Duration, Instant};

use jev_preflight::scorer::Scorer;
use jev_preflight::scorer::local::LocalScorer;

#[path = "support/eval_set.rs"]
mod eval_set;
use eval_set::CaseKind;

const CHILD_ENV: &str = "JEV_LOCAL_STARTUP_CHILD";
const WARM_RULES_ENV: &str = "JEV_LOCAL_STARTUP_WARM_RULES";

/// A payload of about `target` bytes: risky and benign eval cases concatenated in manifest
/// order, so the text looks like a real turn touching several files and languages.
fn payload(target: usize) -> String {
    let cases = eval_set::load(&eval_set::default_dir()).expect("eval set loads");
    let mut diff = String::new();
    let risky = cases.iter().filter(|c| c.kind == CaseKind::Risky);
    let benign = cases.iter().filter(|c| c.kind == CaseKind::Benign);
    for case in risky.zip(benign).flat_map(|(a, b)| [a, b]) {
        if diff.len() >= target {
            break;
        }
        diff.push_str(&case.diff);
    }
    diff
}

fn child(target: usize) {
    let diff = payload(target);
    let p = eval_set::payload_from_diff(&diff).expect("the eval diffs make a payload");
    if std::env::var_os(WARM_RULES_ENV).is_some() {
        // Every line rule compiled before the clock starts: what the rest costs.
        LocalScorer::new().compile_all_rules();
    }
    let start = Instant::now();
    let scorer = LocalScorer::new();
    let scores = scorer.score(&p, Duration::from_secs(5)).expect("scores");
    let took = start.elapsed();
    std::hint::black_box(scores);
    // The same payload again in the same process: what is left once everything is compiled.
    let start = Instant::now();
    std::hint::black_box(scorer.score(&p, Duration::from_secs(5)).expect("scores"));
    let warm = start.elapsed();
    println!("{} {} {}", diff.len(), took.as_nanos(), warm.as_nanos());
}

fn main() -> ExitCode {
    if std::env::args().any(|a| a == "--profile") {
        let mut times = LocalScorer::new().compile_profile();
        let total: Duration = times.iter().map(|(_, t)| *t).sum();
        times.sort_by_key(|t| std::cmp::Reverse(t.1));
        let rules: Duration = times
            .iter()
            .filter(|(n, _)| n.starts_with("rule "))
            .map(|(_, t)| *t)
            .sum();
        println!(
            "compiling every regex: {:.2}ms (line rules {:.2}ms, structural {:.2}ms)",
            total.as_secs_f64() * 1e3,
            rules.as_secs_f64() * 1e3,
            (total - rules).as_secs_f64() * 1e3
        );
        for (name, t) in times.iter().take(25) {
            println!("{:>8.3}ms {name}", t.as_secs_f64() * 1e3);
        }
        return ExitCode::SUCCESS;
    }
    if let Ok(target) = std::env::var(CHILD_ENV) {
        child(target.parse().expect("size"));
        return ExitCode::SUCCESS;
    }
    let mut rounds = 30usize;
    let mut warm_rules = false;
    let mut it = std::env::args().skip(1);
    while let Some(arg) = it.next() {
        match arg.as_str() {
            "--bench" | "--profile" => {}
            "--warm-rules" => warm_rules = true,
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
        "{:>9} {:>9} {:>9} {:>9} {:>12}",
        "bytes", "median", "p90", "max", "warm median"
    );
    for target in [2048usize, 4096, 10240] {
        let mut times = Vec::with_capacity(rounds);
        let mut warm = Vec::with_capacity(rounds);
        let mut bytes = 0;
        for _ in 0..rounds {
            let mut child = Command::new(&exe);
            if warm_rules {
                child.env(WARM_RULES_ENV, "1");
            }
            let out = child
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
        }
        times.sort();
        warm.sort();
        let at = |q: f64| times[((times.len() - 1) as f64 * q).round() as usize];
        println!(
            "{bytes:>9} {:>7.2}ms {:>7.2}ms {:>7.2}ms {:>10.2}ms",
            at(0.5).as_secs_f64() * 1e3,
            at(0.9).as_secs_f64() * 1e3,
            times[times.len() - 1].as_secs_f64() * 1e3,
            warm[warm.len() / 2].as_secs_f64() * 1e3
        );
    }
    ExitCode::SUCCESS
}
