//! `cargo xtask detectors`: how the hand-written detectors (`scorer::local::detect`) do on
//! every set, rule by rule.
//!
//! Each case is read as the hook would see it (`payload::diff_of`), parsed and marked, and
//! handed whole to `detect::find`. For each set the train side is reported in detail (per
//! rule: risky cases where the rule fires on the case's primary axis, benign cases where it
//! fires; per set: the share of risky cases with a finding on their primary axis and of benign
//! cases with any finding; breakdowns by category and language). `--misses SET` and
//! `--alarms SET` print samples of missed risky and firing benign cases, `--cases SET` every
//! case (both kinds, with its findings), **train side only**.
//! The held-apart side is read only with `--held-apart`, and then only counted in aggregate.
//!
//! Options: `--sets a,b` (directory names; default all), `--held-apart`, `--misses SET`,
//! `--alarms SET` (`--diff`: with the payload's first `--lines N` lines), `--verbose` (introduced: per labeling rule), `--n N` (sample size, default 20), `--filter WORD` (keep sampled cases
//! whose category, rule, language, id or finding names contain WORD).

use std::collections::BTreeMap;
use std::fmt::Write as _;

use jev_preflight::pipeline::axes::AXIS_IDS;
use jev_preflight::scorer::local::detect::{self, Finding, Rule};
use jev_preflight::scorer::local::hunks;

use crate::sets::{self, Case, Kind, SetName, Side};
use testkit::payload;

struct Options {
    sets: Vec<SetName>,
    held_apart: bool,
    misses: Option<SetName>,
    alarms: Option<SetName>,
    /// Every train case of a set (risky and benign, hit or not), for reading a group whole.
    cases: Option<SetName>,
    n: usize,
    filter: Option<String>,
    verbose: bool,
    diff: bool,
    lines: usize,
}

fn set_named(name: &str) -> Result<SetName, String> {
    SetName::ALL
        .into_iter()
        .find(|s| s.dir_name() == name)
        .ok_or_else(|| format!("unknown set `{name}`"))
}

fn options(args: &[String]) -> Result<Options, String> {
    let mut o = Options {
        sets: SetName::ALL.to_vec(),
        held_apart: false,
        misses: None,
        alarms: None,
        cases: None,
        n: 20,
        filter: None,
        verbose: false,
        diff: false,
        lines: 80,
    };
    let mut it = args.iter();
    while let Some(a) = it.next() {
        let mut value = || it.next().ok_or_else(|| format!("`{a}` takes a value"));
        match a.as_str() {
            "--sets" => {
                o.sets = value()?
                    .split(',')
                    .map(set_named)
                    .collect::<Result<_, _>>()?;
            }
            "--held-apart" => o.held_apart = true,
            "--verbose" => o.verbose = true,
            "--diff" => o.diff = true,
            "--lines" => o.lines = value()?.parse().map_err(|e| format!("--lines: {e}"))?,
            "--misses" => o.misses = Some(set_named(value()?)?),
            "--alarms" => o.alarms = Some(set_named(value()?)?),
            "--cases" => o.cases = Some(set_named(value()?)?),
            "--n" => o.n = value()?.parse().map_err(|e| format!("--n: {e}"))?,
            "--filter" => o.filter = Some(value()?.to_ascii_lowercase()),
            other => return Err(format!("unknown option `{other}`")),
        }
    }
    if let Some(s) = o.misses.or(o.alarms).or(o.cases) {
        o.sets = vec![s];
        o.held_apart = false;
    }
    Ok(o)
}

/// One case read: its payload diff (when the hook would score it) and the findings.
struct Read {
    diff: Option<String>,
    findings: Vec<Finding>,
    /// (file path, rule) per finding, so samples can name files without re-parsing.
    paths: Vec<String>,
}

fn read(case: &Case) -> Read {
    let Some(diff) = payload::diff_of(&case.diff) else {
        return Read {
            diff: None,
            findings: Vec::new(),
            paths: Vec::new(),
        };
    };
    let mut files = hunks::parse(&diff);
    hunks::mark_changed(&mut files);
    let findings = detect::find(&files);
    let paths = findings
        .iter()
        .map(|f| files.get(f.file).map_or(String::new(), |x| x.path.clone()))
        .collect();
    drop(files);
    Read {
        diff: Some(diff),
        findings,
        paths,
    }
}

fn read_all(cases: &[Case]) -> Vec<Read> {
    if cases.is_empty() {
        return Vec::new();
    }
    std::thread::scope(|s| {
        let per = cases.len().div_ceil(2);
        let handles: Vec<_> = cases
            .chunks(per)
            .map(|chunk| s.spawn(move || chunk.iter().map(read).collect::<Vec<_>>()))
            .collect();
        handles
            .into_iter()
            .flat_map(|h| h.join().expect("detectors worker"))
            .collect()
    })
}

fn hit(case: &Case, r: &Read) -> bool {
    case.primary
        .is_some_and(|p| r.findings.iter().any(|f| f.rule.axis() == p))
}

fn pct(a: usize, b: usize) -> String {
    if b == 0 {
        "    -".to_owned()
    } else {
        format!("{:5.3}", a as f64 / b as f64)
    }
}

#[derive(Default)]
struct Tally {
    risky: usize,
    risky_hit: usize,
    benign: usize,
    benign_any: usize,
    /// Benign cases with a finding on the test axis (tampering's measure).
    benign_tests: usize,
    scored: usize,
}

impl Tally {
    fn add(&mut self, case: &Case, r: &Read) {
        if r.diff.is_some() {
            self.scored += 1;
        }
        match case.kind {
            Kind::Risky => {
                self.risky += 1;
                self.risky_hit += usize::from(hit(case, r));
            }
            Kind::Benign => {
                self.benign += 1;
                self.benign_any += usize::from(!r.findings.is_empty());
                self.benign_tests +=
                    usize::from(r.findings.iter().any(|f| f.rule.axis() == TESTS_AXIS));
            }
        }
    }

    fn line(&self, label: &str) -> String {
        format!(
            "{label:<28} risky {:>5} hit {:>5} ({})   benign {:>5} any {:>5} ({})  tests-axis {}",
            self.risky,
            self.risky_hit,
            pct(self.risky_hit, self.risky),
            self.benign,
            self.benign_any,
            pct(self.benign_any, self.benign),
            pct(self.benign_tests, self.benign),
        )
    }
}

const TESTS_AXIS: usize = 7;

fn report_train(set: SetName, cases: &[Case], reads: &[Read], verbose: bool, out: &mut String) {
    let side: Vec<(&Case, &Read)> = cases
        .iter()
        .zip(reads)
        .filter(|(c, _)| c.side == Side::Train)
        .collect();
    let mut total = Tally::default();
    let mut per_rule: BTreeMap<Rule, (usize, usize, usize)> = BTreeMap::new();
    let mut by_cat: BTreeMap<String, Tally> = BTreeMap::new();
    let mut by_lang: BTreeMap<String, Tally> = BTreeMap::new();
    let mut by_rule: BTreeMap<String, Tally> = BTreeMap::new();
    for (c, r) in &side {
        by_rule
            .entry(format!("{} {}", c.category, c.rule))
            .or_default()
            .add(c, r);
        total.add(c, r);
        by_cat
            .entry(if c.category.is_empty() {
                c.rule.clone()
            } else {
                c.category.clone()
            })
            .or_default()
            .add(c, r);
        by_lang.entry(c.lang.clone()).or_default().add(c, r);
        let mut rules: Vec<Rule> = r.findings.iter().map(|f| f.rule).collect();
        rules.sort();
        rules.dedup();
        for rule in rules {
            let e = per_rule.entry(rule).or_default();
            match c.kind {
                Kind::Risky if c.primary == Some(rule.axis()) => e.0 += 1,
                Kind::Risky => e.2 += 1,
                Kind::Benign => e.1 += 1,
            }
        }
    }
    let _ = writeln!(
        out,
        "\n== {} (train side; {} cases, {} scored by the hook) ==",
        set.dir_name(),
        side.len(),
        total.scored
    );
    let _ = writeln!(out, "{}", total.line("all"));
    if set == SetName::Ordinary {
        let _ = writeln!(
            out,
            "ordinary commits with any finding: {} of {} ({})",
            total.benign_any,
            total.benign,
            pct(total.benign_any, total.benign)
        );
    }
    let _ = writeln!(
        out,
        "{:<24} {:>10} {:>11} {:>11} {:>8}",
        "rule", "risky-axis", "risky-other", "benign", "strength"
    );
    for (rule, (right, benign, other)) in &per_rule {
        let _ = writeln!(
            out,
            "{:<24} {right:>10} {other:>11} {benign:>11} {:>8.2}",
            rule.name(),
            rule.strength()
        );
    }
    if matches!(set, SetName::Introduced | SetName::Tampering) {
        let _ = writeln!(out, "-- by category");
        for (k, t) in &by_cat {
            let _ = writeln!(out, "{}", t.line(k));
        }
    }
    if set == SetName::Introduced && verbose {
        let _ = writeln!(out, "-- by category and labeling rule");
        for (k, t) in &by_rule {
            let _ = writeln!(out, "{}", t.line(k));
        }
    }
    if matches!(
        set,
        SetName::Introduced | SetName::Tampering | SetName::Ordinary
    ) {
        let _ = writeln!(out, "-- by language");
        for (k, t) in &by_lang {
            let _ = writeln!(out, "{}", t.line(k));
        }
    }
}

/// Held-apart figures, aggregate only: no case's id, content or finding is printed.
fn report_held(set: SetName, cases: &[Case], reads: &[Read], out: &mut String) {
    let mut total = Tally::default();
    let mut per_rule: BTreeMap<Rule, (usize, usize)> = BTreeMap::new();
    for (c, r) in cases.iter().zip(reads) {
        if c.side != Side::HeldApart {
            continue;
        }
        total.add(c, r);
        let mut rules: Vec<Rule> = r.findings.iter().map(|f| f.rule).collect();
        rules.sort();
        rules.dedup();
        for rule in rules {
            let e = per_rule.entry(rule).or_default();
            match c.kind {
                Kind::Risky if c.primary == Some(rule.axis()) => e.0 += 1,
                Kind::Risky => {}
                Kind::Benign => e.1 += 1,
            }
        }
    }
    if total.risky + total.benign == 0 {
        return;
    }
    let _ = writeln!(out, "{}", total.line(set.dir_name()));
    if set == SetName::Ordinary {
        let rules: Vec<String> = per_rule
            .iter()
            .filter(|(_, (_, b))| *b > 0)
            .map(|(r, (_, b))| format!("{} {b}", r.name()))
            .collect();
        let _ = writeln!(out, "    ordinary per rule: {}", rules.join(", "));
    }
}

fn wanted(case: &Case, r: &Read, filter: Option<&str>) -> bool {
    let Some(f) = filter else { return true };
    let hay = format!(
        "{} {} {} {} {}",
        case.category,
        case.rule,
        case.lang,
        case.id,
        r.findings
            .iter()
            .map(|x| x.rule.name())
            .collect::<Vec<_>>()
            .join(" ")
    )
    .to_ascii_lowercase();
    hay.contains(f)
}

fn samples(set: SetName, cases: &[Case], reads: &[Read], o: &Options, out: &mut String) {
    let misses = o.misses == Some(set);
    let every = o.cases == Some(set);
    let mut picked: Vec<(&Case, &Read)> = cases
        .iter()
        .zip(reads)
        .filter(|(c, _)| c.side == Side::Train)
        .filter(|(c, r)| {
            if every {
                r.diff.is_some()
            } else if misses {
                c.kind == Kind::Risky && r.diff.is_some() && !hit(c, r)
            } else {
                c.kind == Kind::Benign && !r.findings.is_empty()
            }
        })
        .filter(|(c, r)| wanted(c, r, o.filter.as_deref()))
        .collect();
    let total = picked.len();
    picked.sort_by_key(|(c, _)| (if every { 0 } else { sets::fnv(&c.id) }, c.id.clone()));
    picked.truncate(o.n);
    let _ = writeln!(
        out,
        "\n== {} {} (train side): {total} cases, {} shown ==",
        set.dir_name(),
        if every {
            "cases"
        } else if misses {
            "misses"
        } else {
            "alarms"
        },
        picked.len()
    );
    for (c, r) in picked {
        let _ = writeln!(
            out,
            "\n--- {} [{} / {} / {} / {}]",
            c.id,
            c.category,
            c.rule,
            c.lang,
            c.primary.map_or("-", |a| AXIS_IDS[a])
        );
        if every {
            let _ = writeln!(out, "    [{:?}]", c.kind);
        }
        if (misses || o.diff || every)
            && let Some(d) = &r.diff
        {
            for l in d.lines().take(if misses && !o.diff { 40 } else { o.lines }) {
                let _ = writeln!(out, "    {}", l.chars().take(200).collect::<String>());
            }
        }
        if misses && !every {
            for (f, p) in r.findings.iter().zip(&r.paths) {
                let _ = writeln!(out, "    (found {} at {p}:{})", f.rule.name(), f.line);
            }
        } else {
            for (f, p) in r.findings.iter().zip(&r.paths) {
                let _ = writeln!(
                    out,
                    "    {:<22} {p}:{}  {}",
                    f.rule.name(),
                    f.line,
                    f.text.chars().take(150).collect::<String>()
                );
            }
        }
    }
}

pub fn run(args: &[String]) -> Result<(), String> {
    let o = options(args)?;
    let root = sets::testdata();
    let mut out = String::new();
    let mut held = String::new();
    for &set in &o.sets {
        let all = sets::load(&root, set)?;
        // Held-apart cases are not even read unless their aggregate is asked for.
        let cases: Vec<Case> = all
            .into_iter()
            .filter(|c| c.side == Side::Train || o.held_apart)
            .collect();
        let reads = read_all(&cases);
        if o.misses.is_some() || o.alarms.is_some() || o.cases.is_some() {
            samples(set, &cases, &reads, &o, &mut out);
        } else {
            report_train(set, &cases, &reads, o.verbose, &mut out);
            if o.held_apart {
                report_held(set, &cases, &reads, &mut held);
            }
        }
        eprintln!("detectors: read {}", set.dir_name());
    }
    print!("{out}");
    if o.held_apart {
        println!("\n== held-apart side, aggregate only ==\n{held}");
    }
    Ok(())
}
