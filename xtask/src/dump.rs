//! `cargo xtask dump FILE`: every case of every set, and the mixed turns built from the
//! corpus, unit by unit, as text for experiments outside Rust (one line per unit: the case's
//! labels and side, the unit's role, size, detector findings and hashed features).

use std::fmt::Write as _;

use jev_preflight::pipeline::axes::AXIS_IDS;
use jev_preflight::scorer::local::detect::Context;
use jev_preflight::scorer::local::features::extract_files_in;
use jev_preflight::scorer::local::hunks::{self, Role};
use jev_preflight::scorer::local::units::{self, Grouping};

use crate::sets::{self, Case, Kind, SetName, Side};
use crate::turns;
use testkit::payload;

fn role_name(files: &[Role]) -> &'static str {
    let mut roles: Vec<&'static str> = files
        .iter()
        .map(|r| match r {
            Role::Source => "code",
            Role::Test => "test",
            Role::Config => "config",
            Role::Manifest => "manifest",
            Role::Docs => "docs",
        })
        .collect();
    roles.sort_unstable();
    roles.dedup();
    if roles.len() == 1 { roles[0] } else { "mixed" }
}

/// The labels and provenance columns of a case.
fn head(set: &str, id: &str, case: &Case, kind: Kind) -> String {
    format!(
        "{set}\t{id}\t{}\t{}\t{}\t{}\t{}\t{}\t{}\t{}",
        case.repo,
        match case.side {
            Side::Train => "train",
            Side::HeldApart => "held",
        },
        match kind {
            Kind::Risky => "risky",
            Kind::Benign => "benign",
        },
        match kind {
            Kind::Risky => case.primary.map_or("-", |a| AXIS_IDS[a]),
            Kind::Benign => "-",
        },
        if case.secondary.is_empty() || kind == Kind::Benign {
            "-".to_owned()
        } else {
            case.secondary
                .iter()
                .map(|&a| AXIS_IDS[a])
                .collect::<Vec<_>>()
                .join(",")
        },
        if case.category.is_empty() {
            "-"
        } else {
            &case.category
        },
        if case.rule.is_empty() {
            "-"
        } else {
            &case.rule
        },
        if case.shape.is_empty() {
            "-"
        } else {
            &case.shape
        },
    )
}

fn lines_of(head: &str, diff: &str) -> String {
    let mut out = String::new();
    let mut files = hunks::parse(diff);
    hunks::mark_changed(&mut files);
    // The whole turn's names, each unit's counts: as the shipped scorer reads a unit.
    let context = Context::of(&files);
    for (name, grouping) in [
        ("whole", Grouping::Whole),
        ("file", Grouping::File),
        ("function", Grouping::Function),
        ("family", Grouping::Family),
    ]
    .into_iter()
    .filter(|(name, _)| {
        std::env::var("JEV_DUMP_GROUPINGS").map_or(true, |g| g.split(',').any(|x| x == *name))
    }) {
        for (u, unit) in units::split(&files, grouping).iter().enumerate() {
            let f = extract_files_in(unit, &context);
            let roles: Vec<Role> = unit.iter().map(|f| f.role).collect();
            let added = f.lines.iter().filter(|l| !l.removed).count();
            let removed = f.lines.len() - added;
            let dets: Vec<&str> = f.findings.iter().map(|d| d.rule.name()).collect();
            let _ = write!(
                out,
                "{head}\t{name}\t{u}\t{}\t{added}\t{removed}\t{}\t",
                role_name(&roles),
                if dets.is_empty() {
                    "-".to_owned()
                } else {
                    dets.join(",")
                }
            );
            for (i, (&b, &v)) in f.index.iter().zip(&f.value).enumerate() {
                if i > 0 {
                    out.push(' ');
                }
                let _ = write!(out, "{b}:{v}");
            }
            out.push('\n');
        }
    }
    out
}

/// Runs `f` over `items` on two threads, keeping the order.
pub fn parallel<T: Sync, R: Send>(items: &[T], f: impl Fn(&T) -> R + Sync) -> Vec<R> {
    if items.is_empty() {
        return Vec::new();
    }
    std::thread::scope(|s| {
        let per = items.len().div_ceil(2);
        let handles: Vec<_> = items
            .chunks(per)
            .map(|chunk| {
                let f = &f;
                s.spawn(move || chunk.iter().map(f).collect::<Vec<R>>())
            })
            .collect();
        handles
            .into_iter()
            .flat_map(|h| h.join().expect("worker"))
            .collect()
    })
}

pub fn run(path: &str) -> Result<(), String> {
    let root = sets::testdata();
    let mut cases = Vec::new();
    for set in SetName::ALL {
        cases.extend(sets::load(&root, set)?);
    }
    let payloads: Vec<Option<String>> = parallel(&cases, |c| payload::diff_of(&c.diff));
    eprintln!("dump: {} cases read", cases.len());
    let mut jobs: Vec<(String, String)> = cases
        .iter()
        .zip(&payloads)
        .filter_map(|(c, p)| {
            p.as_ref()
                .map(|p| (head(c.set.dir_name(), &c.id, c, c.kind), p.clone()))
        })
        .collect();
    for side in [Side::Train, Side::HeldApart] {
        let corpus = |c: &Case| c.set == SetName::Corpus;
        let folds = (side == Side::Train).then_some(5);
        for t in turns::build(&cases, &payloads, side, &corpus, &corpus, 3000, folds) {
            let Some(diff) = payload::diff_of(&t.diff) else {
                continue;
            };
            let (id, case, kind) = match t.risky {
                Some(r) => (format!("mixed:{}", cases[r].id), &cases[r], Kind::Risky),
                None => (
                    format!(
                        "benign-turn:{}",
                        t.parts
                            .iter()
                            .map(|&i| cases[i].id.as_str())
                            .collect::<Vec<_>>()
                            .join("+")
                    ),
                    &cases[t.parts[0]],
                    Kind::Benign,
                ),
            };
            jobs.push((head("mixed", &id, case, kind), diff));
        }
    }
    eprintln!("dump: {} cases and turns", jobs.len());
    let chunks = parallel(&jobs, |(h, d)| lines_of(h, d));
    std::fs::write(path, chunks.concat()).map_err(|e| format!("cannot write `{path}`: {e}"))?;
    eprintln!("dump: wrote {path}");
    Ok(())
}
