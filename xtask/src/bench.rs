//! `cargo xtask bench [--quick]`: regenerates BENCHMARKS.md. Builds the release binary, runs
//! every timing bench in `benches/` and `cargo xtask quality`, and writes the method, the
//! machine and the figures; nothing in the file is typed by hand. The file is replaced only
//! when every bench ran. Honours `CARGO_TARGET_DIR`; progress goes to stderr.

use std::fmt::Write as _;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Instant, SystemTime, UNIX_EPOCH};

/// The timing benches in report order, and whether each takes `--quick`.
const BENCHES: &[(&str, bool)] = &[
    ("hooks", true),
    ("snapshot", true),
    ("redact", false),
    ("local_startup", false),
];

/// How the figures were measured; the same for every run.
const METHOD: &str = include_str!("bench-method.md");

/// One bench's output and how long it took.
struct Ran {
    out: String,
    secs: u64,
}

/// Runs every bench and writes BENCHMARKS.md in the workspace root.
pub fn run(args: &[String]) -> Result<(), String> {
    let quick = match args {
        [] => false,
        [a] if a == "--quick" => true,
        [a, ..] => {
            return Err(format!(
                "unknown argument `{a}`\nhint: `cargo xtask bench [--quick]`"
            ));
        }
    };
    let root = Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .ok_or("no workspace root")?;
    std::env::set_current_dir(root).map_err(|e| format!("cannot enter {}: {e}", root.display()))?;
    let started = Instant::now();
    let load_start = load_average();

    eprintln!("bench: building in release ...");
    cargo(&["build", "--release", "--locked", "--bins"])?;
    let mut no_run = vec!["bench", "--locked", "--no-run"];
    for (name, _) in BENCHES {
        no_run.extend(["--bench", name]);
    }
    cargo(&no_run)?;
    let mut ran = Vec::new();
    for &(name, takes_quick) in BENCHES {
        eprintln!("bench: running benches/{name}.rs ...");
        let mut args = vec!["bench", "--locked", "--quiet", "--bench", name, "--"];
        if quick && takes_quick {
            args.push("--quick");
        }
        ran.push(timed(|| output(Command::new(cargo_program()).args(&args)))?);
    }
    eprintln!("bench: running cargo xtask quality ...");
    // A full run adds the learning curve (four re-fits).
    let quality_args: &[&str] = if quick { &[] } else { &["--curve"] };
    let me = std::env::current_exe().map_err(|e| format!("cannot find this program: {e}"))?;
    let quality = timed(|| output(Command::new(me).arg("quality").args(quality_args)))?;

    let run = Run {
        quick,
        elapsed: started.elapsed().as_secs(),
        load: (load_start, load_average()),
        quality_args: quality_args.iter().map(|a| format!(" {a}")).collect(),
    };
    let page = squeeze_blank_lines(&render(&run, &ran, &quality)?);
    let temp = root.join(".BENCHMARKS.md.tmp");
    std::fs::write(&temp, page).map_err(|e| format!("cannot write {}: {e}", temp.display()))?;
    std::fs::rename(&temp, root.join("BENCHMARKS.md"))
        .map_err(|e| format!("cannot replace BENCHMARKS.md: {e}"))?;
    eprintln!("bench: wrote BENCHMARKS.md in {} s", run.elapsed);
    Ok(())
}

/// Facts about this run that are not bench output.
struct Run {
    quick: bool,
    elapsed: u64,
    load: (String, String),
    quality_args: String,
}

/// The whole page. `ran` is in [`BENCHES`] order.
fn render(run: &Run, ran: &[Ran], quality: &Ran) -> Result<String, String> {
    let [hooks, snapshot, redact, startup] = ran else {
        return Err("every bench must have run".into());
    };
    let mut page = String::new();
    header(&mut page, run);
    page.push_str("\n## Summary\n\n");
    let (hook_sections, targets) = match hooks.out.split_once("## Targets") {
        Some((sections, targets)) => (sections, targets),
        None => return Err("benches/hooks.rs printed no `## Targets` table".into()),
    };
    // The targets table without its heading line and the blank line after it.
    page.push_str(targets.splitn(3, '\n').nth(2).unwrap_or_default());
    page.push_str(&redaction_row(&redact.out));
    page.push_str(&startup_row(&startup.out, Startup::Small));
    page.push_str(&startup_row(&startup.out, Startup::Large));
    page.push_str(&quality_rows(&quality.out));
    page.push_str("\n## Method\n\n");
    page.push_str(METHOD);
    machine(&mut page, &run.load);
    page.push('\n');
    page.push_str(hook_sections);
    section(
        &mut page,
        "snapshot",
        "Snapshot engine (benches/snapshot.rs)",
        snapshot,
    );
    section(&mut page, "redact", "Redaction (benches/redact.rs)", redact);
    section(
        &mut page,
        "local_startup",
        "Local scorer start-up (benches/local_startup.rs)",
        startup,
    );
    page.push_str("\n## Scoring quality of the local scorer (cargo xtask quality)\n\n");
    let _ = writeln!(
        page,
        "`cargo xtask quality{}`, {} s.",
        run.quality_args, quality.secs
    );
    page.push_str(quality.out.split_once('\n').map_or("", |(_, rest)| rest));
    Ok(page)
}

/// The title, how to regenerate, when, and whether the machine was busy.
fn header(page: &mut String, run: &Run) {
    let mut commit = git_line(&["rev-parse", "--short", "HEAD"]);
    let clean = Command::new("git")
        .args([
            "diff",
            "--quiet",
            "HEAD",
            "--",
            "src",
            "benches",
            "Cargo.toml",
            "Cargo.lock",
        ])
        .status()
        .is_ok_and(|s| s.success());
    if !clean {
        commit.push_str(" with uncommitted changes");
    }
    let cores = cores();
    let (start, end) = &run.load;
    let first = |load: &str| load.split(' ').next().and_then(|v| v.parse::<f64>().ok());
    let loaded = [start, end]
        .iter()
        .any(|l| first(l).is_some_and(|v| v > cores as f64 / 2.0));
    let _ = write!(
        page,
        "# Benchmarks\n\n\
         <!-- Written by `cargo xtask bench`; do not edit by hand: run it again. -->\n\n\
         Regenerate with one command: `cargo xtask bench` (`cargo xtask bench --quick` for\n\
         fewer rounds). This run: {}, commit {commit},\n{} s in all{}.\n\n",
        utc_minute(),
        run.elapsed,
        if run.quick { ", with `--quick`" } else { "" },
    );
    let _ = if loaded {
        writeln!(
            page,
            "**The machine was shared while these figures were measured** (1-minute load \
             average\n{start} at the start, {end} at the end, on {cores} cores): absolute times \
             are\nslower and noisier than on an idle machine. Ratios to the floors are \
             measured in the\nsame rounds, so they hold up better than absolute times."
        )
    } else {
        writeln!(
            page,
            "The machine was otherwise idle (load average {start} at the start, {end} at\nthe \
             end, on {cores} cores)."
        )
    };
}

/// The machine table.
fn machine(page: &mut String, (start, end): &(String, String)) {
    let cpuinfo = std::fs::read_to_string("/proc/cpuinfo").unwrap_or_default();
    let cpu = ["model name", "Hardware", "cpu model", "Processor"]
        .iter()
        .find_map(|key| {
            cpuinfo.lines().find_map(|l| {
                let (k, v) = l.split_once(':')?;
                (k.trim() == *key).then(|| v.trim().to_owned())
            })
        })
        .unwrap_or_else(|| "unknown (no model name in /proc/cpuinfo)".to_owned());
    let meminfo = std::fs::read_to_string("/proc/meminfo").unwrap_or_default();
    let kib: f64 = meminfo
        .lines()
        .find_map(|l| l.strip_prefix("MemTotal:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        .unwrap_or(0.0);
    let kernel = command_line(Command::new("uname").arg("-sr"));
    let git = git_line(&["--version"]);
    let rustc = command_line(Command::new("rustc").arg("--version"));
    let _ = write!(
        page,
        "\n## Machine\n\n| | |\n|---|---|\n| CPU | {cpu} |\n| cores (`nproc`) | {} |\n\
         | memory | {:.1} GiB |\n| kernel | {kernel} |\n| git | {} |\n| rustc | {rustc} |\n\
         | load average at start | {start} |\n| load average at end | {end} |\n",
        cores(),
        kib / 1_048_576.0,
        git.trim_start_matches("git version "),
    );
}

/// A bench's output under its own heading, fenced as text.
fn section(page: &mut String, bench: &str, title: &str, ran: &Ran) {
    let _ = write!(
        page,
        "\n## {title}\n\n`cargo bench --bench {bench}`, {} s.\n\n```text\n{}```\n",
        ran.secs, ran.out
    );
}

/// The redaction target, from the line `benches/redact.rs` prints:
/// `redaction throughput: <x> MB/s by thread CPU time (…), <y> MB/s by wall clock (…); …`.
fn redaction_row(out: &str) -> String {
    let target = "| redaction ≥ 100 MB/s |";
    let line = out.lines().find(|l| l.starts_with("redaction throughput:"));
    let figure = |label: &str| -> Option<f64> {
        let before = line?.split(&format!(" MB/s by {label}")).next()?;
        before.rsplit(' ').next()?.parse().ok()
    };
    let (Some(cpu), Some(wall)) = (figure("thread CPU time"), figure("wall clock")) else {
        return format!(
            "{target} see the redaction section below (its output format was not recognised) \
             | not judged |\n"
        );
    };
    let verdict = match (cpu >= 100.0, wall >= 100.0) {
        (true, true) => "met",
        (true, false) => "met by CPU time; wall clock below on this loaded run",
        _ => "**not met**",
    };
    format!(
        "{target} {cpu} MB/s by thread CPU time, {wall} MB/s by wall clock (one thread) \
         | {verdict} |\n"
    )
}

/// Which start-up target a row judges.
#[derive(Clone, Copy)]
enum Startup {
    /// The first row under 3,000 bytes, against 3 ms.
    Small,
    /// The first row over 60,000 bytes, against 10 ms.
    Large,
}

/// A start-up target, from the rows `benches/local_startup.rs` prints (`<bytes> <ms>ms ...`).
fn startup_row(out: &str, which: Startup) -> String {
    let (target, limit) = match which {
        Startup::Small => (
            "local scorer from a cold process on a 2 KiB turn ≤ 3 ms (issue 16)",
            3.0,
        ),
        Startup::Large => (
            "local scorer from a cold process on a 64 KiB turn ≤ 10 ms (issue 24)",
            10.0,
        ),
    };
    let row = out.lines().find_map(|l| {
        let mut cells = l.split_whitespace();
        let bytes: u64 = cells.next()?.parse().ok()?;
        let ms = cells.next()?.strip_suffix("ms").unwrap_or_default();
        let fits = match which {
            Startup::Small => bytes < 3000,
            Startup::Large => bytes > 60000,
        };
        fits.then(|| (bytes, ms.to_owned()))
    });
    match row {
        Some((bytes, ms)) => {
            let met = ms.parse::<f64>().is_ok_and(|v| v <= limit);
            let verdict = if met { "met" } else { "**not met**" };
            format!("| {target} | {ms} ms median ({bytes} bytes) | {verdict} |\n")
        }
        None => format!("| {target} | no such row in the bench's output | not measured |\n"),
    }
}

/// The local scorer's quality targets (issue 24), judged on the first Markdown table
/// `cargo xtask quality` prints: set, held apart by, risky, benign, detection, primary, benign
/// fire, `regression_tests` recall / benign, ROC-AUC (baseline), PR-AUC (baseline), gap.
fn quality_rows(out: &str) -> String {
    let mut rows: Vec<Vec<&str>> = Vec::new();
    for line in out.lines() {
        let cells: Vec<&str> = line
            .trim()
            .trim_matches('|')
            .split('|')
            .map(str::trim)
            .collect();
        if cells.len() == 11 && cells[0].starts_with('(') {
            rows.push(cells);
        } else if !rows.is_empty() && !line.starts_with('|') {
            break;
        }
    }
    let find = |name: &str| rows.iter().find(|c| c[0] == name);
    let pct = |v: &str| {
        v.strip_suffix('%')
            .and_then(|p| p.parse::<f64>().ok())
            .map(|p| p / 100.0)
    };
    let at_least = |v: &str, limit: f64| pct(v).is_some_and(|p| p >= limit);
    let at_most = |v: &str, limit: f64| pct(v).is_some_and(|p| p <= limit);
    let mut page = String::new();
    let mut row = |target: &str,
                   name: &str,
                   judge: &dyn Fn(&[&str]) -> bool,
                   shown: &dyn Fn(&[&str]) -> String| {
        let _ = match find(name) {
            Some(c) => {
                let verdict = if judge(c) { "met" } else { "**not met**" };
                writeln!(page, "| {target} | {} | {verdict} |", shown(c))
            }
            None => writeln!(page, "| {target} | not in the output | not measured |"),
        };
    };
    row(
        "mixed turns: detection ≥ 0.65, primary axis ≥ 0.45, benign turns ≤ 5%",
        "(b) mixed turns",
        &|c| at_least(c[4], 0.65) && at_least(c[5], 0.45) && at_most(c[6], 0.05),
        &|c| format!("detection {}, primary {}, benign {}", c[4], c[5], c[6]),
    );
    row(
        "lone reversed fixes: primary axis ≥ 0.55 at ≤ 4% benign",
        "(a) reversed fixes and benign commits",
        &|c| at_least(c[5], 0.55) && at_most(c[6], 0.04),
        &|c| format!("primary {} at {} benign", c[5], c[6]),
    );
    row(
        "introduced risk (rules held apart): right axis ≥ 0.70 at ≤ 5% safe variants",
        "(c) introduced risk, linter fixtures",
        &|c| at_least(c[5], 0.70) && at_most(c[6], 0.05),
        &|c| format!("{} at {} safe", c[5], c[6]),
    );
    let split = |c: &[&str]| {
        let (recall, benign) = c[7].split_once('/').unwrap_or((c[7], ""));
        (recall.trim().to_owned(), benign.trim().to_owned())
    };
    row(
        "test tampering: `regression_tests` ≥ 0.60, ≤ 3% of harmless test commits",
        "(d) test tampering",
        &|c| {
            let (recall, benign) = split(c);
            at_least(&recall, 0.60) && at_most(&benign, 0.03)
        },
        &|c| c[7].to_owned(),
    );
    row(
        "ordinary commits: fire rate ≤ 5%",
        "(e) ordinary commits",
        &|c| at_most(c[6], 0.05),
        &|c| c[6].to_owned(),
    );
    page.push_str(&auc_and_gap_rows(&rows));
    page
}

/// The two targets every set shares: the gate's ROC-AUC against the lines-added baseline, and
/// the median gap between the first and fourth axis.
fn auc_and_gap_rows(rows: &[Vec<&str>]) -> String {
    let judged: Vec<&Vec<&str>> = rows.iter().filter(|c| c[8] != "– (–)").collect();
    let auc_ok = |cell: &str| {
        let Some((auc, base)) = cell.split_once(" (") else {
            return false;
        };
        let base = base.trim_end_matches(')');
        match (auc.parse::<f64>(), base.parse::<f64>()) {
            (Ok(auc), Ok(base)) => auc >= base + 0.05,
            _ => auc == "–",
        }
    };
    let listed: Vec<String> = judged
        .iter()
        .map(|c| format!("{}) {}", c[0].split(')').next().unwrap_or_default(), c[8]))
        .collect();
    let verdict = if judged.iter().all(|c| auc_ok(c[8])) {
        "met"
    } else {
        "**not met**"
    };
    let gaps: Vec<f64> = rows.iter().filter_map(|c| c[10].parse().ok()).collect();
    let lowest = gaps.iter().copied().fold(f64::INFINITY, f64::min);
    let gap_verdict = if lowest >= 0.2 { "met" } else { "**not met**" };
    format!(
        "| gate ROC-AUC ≥ lines-added baseline + 0.05 on every set | {} | {verdict} |\n\
         | median gap 1st–4th axis on fired cases ≥ 0.2 on every set | lowest {lowest:.3} \
         | {gap_verdict} |\n",
        listed.join("; ")
    )
}

/// `cat -s`: runs of blank lines become one.
fn squeeze_blank_lines(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut blank = false;
    for line in text.split_inclusive('\n') {
        let is_blank = line.trim_end_matches('\n').is_empty();
        if !(is_blank && blank) {
            out.push_str(line);
        }
        blank = is_blank;
    }
    out
}

/// Times a step that produced output.
fn timed(step: impl FnOnce() -> Result<String, String>) -> Result<Ran, String> {
    let start = Instant::now();
    let out = step()?;
    Ok(Ran {
        out,
        secs: start.elapsed().as_secs(),
    })
}

/// Runs cargo with its output going to stderr (progress).
fn cargo(args: &[&str]) -> Result<(), String> {
    let status = Command::new(cargo_program())
        .args(args)
        .stdout(Stdio::inherit())
        .status()
        .map_err(|e| format!("cannot run cargo: {e}"))?;
    match status.success() {
        true => Ok(()),
        false => Err(format!("`cargo {}` failed", args.join(" "))),
    }
}

/// A command whose stdout is kept and whose stderr goes to ours; fails when it fails.
fn output(cmd: &mut Command) -> Result<String, String> {
    let out = cmd
        .stderr(Stdio::inherit())
        .output()
        .map_err(|e| format!("cannot run {cmd:?}: {e}"))?;
    if !out.status.success() {
        return Err(format!("{cmd:?} failed"));
    }
    String::from_utf8(out.stdout).map_err(|_| format!("{cmd:?} printed bytes that are not UTF-8"))
}

fn cargo_program() -> std::ffi::OsString {
    std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into())
}

/// The first line a command prints, or `unknown`.
fn command_line(cmd: &mut Command) -> String {
    cmd.output()
        .ok()
        .filter(|o| o.status.success())
        .and_then(|o| String::from_utf8(o.stdout).ok())
        .and_then(|s| s.lines().next().map(str::to_owned))
        .unwrap_or_else(|| "unknown".to_owned())
}

fn git_line(args: &[&str]) -> String {
    command_line(Command::new("git").args(args))
}

/// The first three fields of `/proc/loadavg`.
fn load_average() -> String {
    let text = std::fs::read_to_string("/proc/loadavg").unwrap_or_default();
    text.split_whitespace()
        .take(3)
        .collect::<Vec<_>>()
        .join(" ")
}

fn cores() -> usize {
    std::thread::available_parallelism().map_or(1, usize::from)
}

/// Now, as `YYYY-MM-DD HH:MM UTC`.
fn utc_minute() -> String {
    let secs = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_secs());
    let mut stamp = jev_preflight::cmd::status::utc(secs);
    stamp.truncate("YYYY-MM-DD HH:MM".len());
    stamp + " UTC"
}

#[cfg(test)]
mod tests {
    use super::*;

    const QUALITY: &str = "\
# quality

| set | held apart by | risky | benign | detection | primary in top 3 | benign fire | regression_tests | ROC-AUC | PR-AUC | gap |
|---|---|---|---|---|---|---|---|---|---|---|
| (a) reversed fixes and benign commits | repository | 4073 | 1013 | 33.7% | 25.0% | 3.4% | 4.8% / 1.5% | 0.896 (0.271) | 0.965 (0.668) | 0.271 |
| (b) mixed turns | repository | 4073 | 3000 | 37.7% | 25.5% | 9.4% | 6.7% / 3.9% | 0.807 (0.385) | 0.824 (0.495) | 0.124 |
| (c) introduced risk, linter fixtures | rule | 1195 | 970 | 19.7% | 17.6% | 8.7% | 0.1% / 0.1% | 0.628 (0.496) | 0.669 (0.521) | 0.848 |
| (d) test tampering | repository | 1162 | 1891 | 37.7% | 37.3% | 4.1% | 37.3% / 4.0% | 0.832 (0.204) | 0.732 (0.246) | 0.651 |
| (e) ordinary commits | repository | 0 | 2714 | – | – | 2.7% | – / 0.8% | – (–) | – (–) | 0.488 |

later text
";

    #[test]
    fn quality_targets_are_judged_from_the_table() {
        let rows = quality_rows(QUALITY);
        let lines: Vec<&str> = rows.lines().collect();
        assert_eq!(
            lines[0],
            "| mixed turns: detection ≥ 0.65, primary axis ≥ 0.45, benign turns ≤ 5% \
             | detection 37.7%, primary 25.5%, benign 9.4% | **not met** |"
        );
        assert_eq!(
            lines[3],
            "| test tampering: `regression_tests` ≥ 0.60, ≤ 3% of harmless test commits | 37.3% / 4.0% | **not met** |"
        );
        assert_eq!(
            lines[4],
            "| ordinary commits: fire rate ≤ 5% | 2.7% | met |"
        );
        assert!(
            lines[5].ends_with("(d) 0.832 (0.204) | met |"),
            "{}",
            lines[5]
        );
        assert_eq!(
            lines[6],
            "| median gap 1st–4th axis on fired cases ≥ 0.2 on every set | lowest 0.124 | **not met** |"
        );
    }

    #[test]
    fn redaction_and_startup_rows() {
        let redact = "x\nredaction throughput: 120.5 MB/s by thread CPU time (a), 98.1 MB/s by \
                      wall clock (b); c\n";
        assert_eq!(
            redaction_row(redact),
            "| redaction ≥ 100 MB/s | 120.5 MB/s by thread CPU time, 98.1 MB/s by wall clock \
             (one thread) | met by CPU time; wall clock below on this loaded run |\n"
        );
        let startup = "bytes median\n2184 1.57ms 1.60ms\n10240 4.1ms\n68731 17.60ms 18ms\n";
        assert!(
            startup_row(startup, Startup::Small).contains("1.57 ms median (2184 bytes) | met |")
        );
        assert!(
            startup_row(startup, Startup::Large)
                .contains("17.60 ms median (68731 bytes) | **not met** |")
        );
    }

    #[test]
    fn blank_runs_squeeze_to_one() {
        assert_eq!(squeeze_blank_lines("a\n\n\n\nb\n\nc\n"), "a\n\nb\n\nc\n");
    }

    #[test]
    fn dates_are_civil() {
        assert!(utc_minute().ends_with(" UTC"));
        assert_eq!(utc_minute().len(), "2026-12-07 01:09 UTC".len());
    }
}
