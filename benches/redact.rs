//! Redaction throughput (MB/s) on a 4 MiB mixed diff, `Redactor::new()` cost, the one-time
//! cost of reading the embedded rules file, payload-building time, and the real-code check:
//! every line of a tree of real source (`/usr/include` by default, about 2.8M lines of C
//! headers; `JEV_REAL_CODE=dir:dir` for others; `JEV_REAL_CODE_SHOW=n` lists up to n altered
//! lines, 40 by default) redacted as new files must come out byte-identical, up to a 0.004%
//! ceiling.
//! Run: `cargo bench --bench redact` (`-- --real-code-only` skips the rest).

use std::hint::black_box;
use std::time::{Duration, Instant};

use jev_preflight::git::diff::{Change, Status};
use jev_preflight::pipeline::payload::{self, Oversize, SizePolicy};
use jev_preflight::pipeline::redact::{RedactionReport, Redactor};
use sha2::{Digest, Sha256};

const TARGET_BYTES: usize = 4 * 1024 * 1024;

/// Ordinary code in several languages, auth-flavoured look-alikes and real-looking secrets
/// from the test corpus, interleaved the way a large turn diff would hold them.
fn mixed_diff() -> (String, Vec<Change>) {
    let root = env!("CARGO_MANIFEST_DIR");
    let read = |name: &str| {
        std::fs::read_to_string(format!("{root}/testdata/redact/{name}"))
            .expect("corpus file")
            .lines()
            .filter_map(|l| {
                l.split_once('\t')
                    .map(|(_, line)| line.replace(['«', '»'], ""))
            })
            .collect::<Vec<_>>()
    };
    let secrets = read("secrets.txt");
    let lookalikes = read("lookalikes.txt");
    let code = [
        "+    for (i, item) in items.iter().enumerate() {",
        "+        let value = compute(&item.name, i * 2 + offset)?;",
        "+        if value > threshold && !seen.contains(&value) {",
        "+            results.push(Entry { id: item.id, value, label: item.label.clone() });",
        "+        }",
        " func (s *Server) handle(w http.ResponseWriter, r *http.Request) {",
        " \tctx, cancel := context.WithTimeout(r.Context(), 5*time.Second)",
        " \tdefer cancel()",
        "-    def process(self, records: list[dict]) -> int:",
        "+    def process(self, records: list[dict], *, strict: bool = False) -> int:",
        "+        return sum(1 for r in records if self._valid(r, strict=strict))",
        "+const rows = data.filter((d) => d.active).map((d) => ({ ...d, total: d.a + d.b }));",
        "+  public List<Order> findOrders(long customerId, Instant since) {",
        "+    return repository.findByCustomerIdAndCreatedAfter(customerId, since);",
        "+  def update_totals!(order)\n+    order.total = order.items.sum(&:price)",
        "+      - name: install dependencies",
        "+        run: npm ci --ignore-scripts",
        "+echo \"building $TARGET for $ARCH\" >&2",
        " // Resolve the configuration from the environment before any I/O happens.",
        "+    # Retry a few times: the service restarts during deploys.",
    ];
    let mut text = String::with_capacity(TARGET_BYTES + 4096);
    let mut changes = Vec::new();
    let mut file = 0usize;
    let mut i = 0usize;
    while text.len() < TARGET_BYTES {
        let path = format!("src/module_{file:04}/file_{file:04}.rs");
        let mut section = format!(
            "diff --git a/{path} b/{path}\n--- a/{path}\n+++ b/{path}\n@@ -1,200 +1,200 @@\n"
        );
        for _ in 0..200 {
            let line = match i % 100 {
                0 => &secrets[(i / 100) % secrets.len()],
                1..=20 => &lookalikes[i % lookalikes.len()],
                _ => code[i % code.len()].to_owned().leak() as &str,
            };
            section.push_str(line);
            section.push('\n');
            i += 1;
        }
        text.push_str(&section);
        changes.push(Change {
            path: path.into_bytes(),
            old_path: None,
            status: Status::Modified,
            binary: false,
            patch: section.into_bytes(),
            oversized: None,
            unread: false,
        });
        file += 1;
    }
    (text, changes)
}

/// CPU time this thread has used; on a shared machine it measures our work, not the wait.
#[cfg(unix)]
#[allow(unsafe_code)] // one libc call, SAFETY below
fn cpu_time() -> Duration {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: `ts` is a valid, writable timespec for the duration of the call.
    let rc = unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut ts) };
    assert_eq!(rc, 0, "clock_gettime");
    Duration::new(ts.tv_sec as u64, ts.tv_nsec as u32)
}

#[cfg(not(unix))]
fn cpu_time() -> Duration {
    // No per-thread CPU clock here: fall back to a monotonic clock.
    static START: std::sync::OnceLock<Instant> = std::sync::OnceLock::new();
    START.get_or_init(Instant::now).elapsed()
}

fn median(mut times: Vec<Duration>) -> Duration {
    times.sort();
    times[times.len() / 2]
}

/// The median CPU time of `runs` calls of `run`.
fn cpu_median(runs: usize, mut run: impl FnMut()) -> Duration {
    median(
        (0..runs)
            .map(|_| {
                let start = cpu_time();
                run();
                cpu_time() - start
            })
            .collect(),
    )
}

/// Share of real-code lines the redactor may alter, in percent.
const REAL_CODE_CEILING: f64 = 0.004;

/// Redacts every UTF-8 text file under the real-code directories as the body of a new file
/// (each line prefixed with `+`, as `eval` sees it) and counts the lines that change. Fails
/// the bench above [`REAL_CODE_CEILING`].
fn real_code_check() {
    let dirs = std::env::var("JEV_REAL_CODE").unwrap_or_else(|_| "/usr/include".into());
    let mut files = Vec::new();
    for dir in dirs.split(':').filter(|d| !d.is_empty()) {
        walk(std::path::Path::new(dir), &mut files);
    }
    if files.is_empty() {
        println!("real-code check: no files under {dirs}; skipped");
        return;
    }
    files.sort();
    let redactor = Redactor::new();
    let (mut lines, mut altered, mut bytes) = (0usize, Vec::new(), 0usize);
    let mut counts = std::collections::BTreeMap::<String, usize>::new();
    let start = Instant::now();
    for path in &files {
        let Ok(text) = std::fs::read_to_string(path) else {
            continue;
        };
        let mut patch = String::with_capacity(text.len() + text.len() / 16);
        for line in text.lines() {
            patch.push('+');
            patch.push_str(line);
            patch.push('\n');
        }
        bytes += patch.len();
        let mut report = RedactionReport::default();
        let out = redactor.redact(&patch, &mut report);
        for (id, n) in report.counts {
            *counts.entry(id).or_default() += n;
        }
        for (before, after) in patch.lines().zip(out.lines()) {
            lines += 1;
            if before != after {
                altered.push(format!("{}: {after}", path.display()));
            }
        }
    }
    let share = 100.0 * altered.len() as f64 / lines.max(1) as f64;
    let markers: Vec<String> = counts.iter().map(|(id, n)| format!("{id}={n}")).collect();
    println!(
        "real-code check: {} of {lines} lines altered ({share:.4}%, ceiling {REAL_CODE_CEILING}%) \
         in {} files, {:.0} MB, {:?}; markers: {}",
        altered.len(),
        files.len(),
        bytes as f64 / 1e6,
        start.elapsed(),
        if markers.is_empty() {
            "none".into()
        } else {
            markers.join(" ")
        }
    );
    let show = std::env::var("JEV_REAL_CODE_SHOW")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(40);
    for line in altered.iter().take(show) {
        let cut: String = line.chars().take(200).collect();
        println!("  altered {cut}");
    }
    assert!(
        share <= REAL_CODE_CEILING,
        "{share:.4}% of real-code lines altered > {REAL_CODE_CEILING}%"
    );
}

fn walk(dir: &std::path::Path, out: &mut Vec<std::path::PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let Ok(kind) = entry.file_type() else {
            continue;
        };
        if kind.is_dir() {
            walk(&entry.path(), out);
        } else if kind.is_file() {
            out.push(entry.path());
        }
    }
}

/// What building a redactor costs: `Redactor::new`, the one-time read of the rules file, and
/// compiling every rule.
fn build_costs() {
    let construct = median(
        (0..51)
            .map(|_| {
                let start = Instant::now();
                black_box(Redactor::new());
                start.elapsed()
            })
            .collect(),
    );
    println!("Redactor::new(): {construct:?} (median of 51)");

    // Paid once per process, by the first `Redactor::new`.
    let read = cpu_median(201, || {
        black_box(Redactor::read_rules());
    });
    println!("reading the embedded rules file: {read:?} CPU (median of 201)");

    let mut compile = Redactor::new().compile_all();
    let total: Duration = compile.iter().map(|(_, t)| *t).sum();
    compile.sort_by_key(|(_, t)| std::cmp::Reverse(*t));
    let slowest: Vec<String> = compile
        .iter()
        .take(5)
        .map(|(id, t)| format!("{id} {t:?}"))
        .collect();
    println!(
        "compiling all {} rules: {total:?} (slowest: {})",
        compile.len(),
        slowest.join(", ")
    );
}

fn main() {
    real_code_check();
    if std::env::args().any(|a| a == "--real-code-only") {
        return;
    }
    let (text, changes) = mixed_diff();
    let mib = text.len() as f64 / (1024.0 * 1024.0);

    build_costs();

    // A typical turn: ~16 KiB of diff. What a Stop hook pays: build, compile what the text
    // triggers, one pass.
    let small = &text[..text[..16 * 1024].rfind('\n').expect("newline") + 1];
    let cold_small = median(
        (0..21)
            .map(|_| {
                let start = cpu_time();
                let redactor = Redactor::new();
                let mut report = RedactionReport::default();
                black_box(redactor.redact(black_box(small), &mut report));
                cpu_time() - start
            })
            .collect(),
    );
    println!(
        "cold redaction of a {} KiB diff (new + lazy compilation + pass): {cold_small:?} CPU (median of 21)",
        small.len() / 1024
    );

    // First use includes compiling the rules the text triggers.
    let start = Instant::now();
    let redactor = Redactor::new();
    let mut report = RedactionReport::default();
    let out = black_box(redactor.redact(&text, &mut report));
    let cold = start.elapsed();
    println!(
        "first redaction (new + lazy rule compilation + pass): {cold:?} on {mib:.2} MiB, {} markers",
        report.total()
    );
    // A fingerprint of the output, so a speed-up can be checked to change no byte of it.
    let digest: String = Sha256::digest(out.as_bytes())
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect();
    let counts: Vec<String> = report
        .counts
        .iter()
        .map(|(id, n)| format!("{id}={n}"))
        .collect();
    println!(
        "redacted output: sha256 {digest}, {} bytes; markers: {}",
        out.len(),
        counts.join(" ")
    );
    drop(out);

    let (wall, cpu): (Vec<Duration>, Vec<Duration>) = (0..9)
        .map(|_| {
            let mut report = RedactionReport::default();
            let (start, cpu_start) = (Instant::now(), cpu_time());
            black_box(redactor.redact(black_box(&text), &mut report));
            (start.elapsed(), cpu_time() - cpu_start)
        })
        .unzip();
    let (wall, cpu) = (median(wall), median(cpu));
    let mbs = |d: Duration| text.len() as f64 / 1e6 / d.as_secs_f64();
    println!(
        "redaction throughput: {:.1} MB/s by thread CPU time ({cpu:?}), {:.1} MB/s by wall clock \
         ({wall:?}); {mib:.2} MiB, median of 9, one thread",
        mbs(cpu),
        mbs(wall)
    );

    for (label, policy) in [
        ("default 64 KiB partial", SizePolicy::default()),
        (
            "no cap (whole 4 MiB)",
            SizePolicy {
                max_bytes: usize::MAX,
                oversize: Oversize::Partial,
            },
        ),
    ] {
        let (wall, cpu): (Vec<Duration>, Vec<Duration>) = (0..5)
            .map(|_| {
                let (start, cpu_start) = (Instant::now(), cpu_time());
                black_box(payload::build(&changes, &Redactor::new(), &policy));
                (start.elapsed(), cpu_time() - cpu_start)
            })
            .unzip();
        println!(
            "payload::build, {} files, {label}: {:?} CPU, {:?} wall (median of 5; includes \
             Redactor::new, rule compilation and redaction)",
            changes.len(),
            median(cpu),
            median(wall)
        );
    }
}
