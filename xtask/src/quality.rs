//! `cargo xtask quality`: the shipped `local` model measured on the held-apart side of every
//! set — data that took no part in fitting, calibration, thresholds or the detectors' tuning
//! (see each set's README for how it is held apart) — on the distributions the hook meets:
//!
//! - (a) lone reversed fixes and benign commits (`corpus` held-apart repositories, and
//!   `corpus-fresh`, mined after every design choice);
//! - (b) mixed turns: each held-apart risky case with 1–3 harmless changes of other
//!   repositories, and benign turns of 2–4 harmless changes;
//! - (c) introduced risk: changes that add a known-dangerous pattern, with their safe
//!   variants (linter rules of the `eval` split, and real commits);
//! - (d) test tampering: real commits that skip, delete or loosen tests, and harmless test
//!   commits;
//! - (e) ordinary forward commits (the fire rate a user lives with).
//!
//! Each row gives the gate's ROC-AUC and PR-AUC (a turn's best axis score) next to a
//! lines-added baseline. The polarity check scores each held-apart fix as it was made and
//! reversed. `--curve` re-fits on a quarter, half and three quarters of the train side's
//! repositories and measures each on the same held-apart sets (the learning curve).

use jev_preflight::pipeline::axes::{AXIS_COUNT, AXIS_IDS};
use jev_preflight::scorer::local::LocalScorer;
use jev_preflight::scorer::local::model::{self, Calibration, Model};

use crate::data::{Data, Item, Options, Source};
use crate::learn::{self, Budgets, Raw};
use crate::metrics::{self, Figures};
use crate::sets::{self, SetName, Side, fnv};

/// The rows of the report: a name, how it is held apart, and its items.
fn rows(data: &Data) -> Vec<(&'static str, &'static str, Vec<usize>)> {
    let held = |source: Source| data.of(Side::HeldApart, source);
    let introduced = held(Source::Set(SetName::Introduced));
    let (commits, fixtures): (Vec<usize>, Vec<usize>) = introduced
        .iter()
        .partition(|&&i| data.items[i].shape == "commit");
    vec![
        (
            "(a) reversed fixes and benign commits",
            "repository",
            held(Source::Set(SetName::Corpus)),
        ),
        (
            "(a) the same, mined after every choice",
            "repository, time",
            held(Source::Set(SetName::Fresh)),
        ),
        ("(b) mixed turns", "repository", held(Source::Mixed)),
        ("(c) introduced risk, linter fixtures", "rule", fixtures),
        ("(c) introduced risk, real commits", "repository", commits),
        (
            "(d) test tampering",
            "repository",
            held(Source::Set(SetName::Tampering)),
        ),
        (
            "(e) ordinary commits",
            "repository",
            held(Source::Set(SetName::Ordinary)),
        ),
    ]
}

/// Every item's values under a model given as raw unit scores.
fn values_of(
    data: &Data,
    raw: &dyn Fn(usize) -> Option<Raw>,
    c: &Calibration,
    strengths: &[f64],
) -> Vec<[f64; AXIS_COUNT]> {
    data.items
        .iter()
        .map(|it| learn::item_values(data, it, raw, c, strengths))
        .collect()
}

/// The shipped model's strengths in [`jev_preflight::scorer::local::detect::Rule::ALL`] order.
fn shipped_strengths(m: &Model<'_>) -> Vec<f64> {
    jev_preflight::scorer::local::detect::Rule::ALL
        .iter()
        .map(|&r| m.rule_strength(r))
        .collect()
}

/// Of the held-apart fixes, the share whose reversal scores above the fix as it was made.
fn polarity(data: &Data, values: &[[f64; AXIS_COUNT]]) -> (usize, usize, usize) {
    let best = |v: &[f64; AXIS_COUNT]| v.iter().copied().fold(0.0, f64::max);
    let (mut above, mut tied, mut n) = (0, 0, 0);
    for (i, it) in data.items.iter().enumerate() {
        let Some(r) = it.reversal_of else { continue };
        n += 1;
        let (fwd, rev) = (best(&values[i]), best(&values[r]));
        if rev > fwd {
            above += 1;
        } else if rev == fwd {
            tied += 1;
        }
    }
    (above, tied, n)
}

/// Per axis: items by score bin, the share labeled with the axis (primary or secondary)
/// against the bin's mean score, and the expected calibration error (the bins' gaps between
/// the two, weighted by their items): how far an axis's score is from that axis's
/// probability.
fn reliability(data: &Data, members: &[usize], values: &[[f64; AXIS_COUNT]]) -> String {
    const EDGES: [f64; 6] = [0.0, 0.5, 0.8, 0.9, 0.95, 1.0 + 1e-9];
    let mut out = String::from("| axis |");
    for w in EDGES.windows(2) {
        out.push_str(&format!(" {:.2}–{:.2} |", w[0], w[1].min(1.0)));
    }
    out.push_str(" ECE |\n");
    out.push_str(&format!("|---|{}---:|\n", "---:|".repeat(EDGES.len() - 1)));
    for (a, id) in AXIS_IDS.iter().enumerate() {
        out.push_str(&format!("| `{id}` |"));
        let mut error = 0.0;
        for w in EDGES.windows(2) {
            let inside: Vec<usize> = members
                .iter()
                .copied()
                .filter(|&i| values[i][a] >= w[0] && values[i][a] < w[1])
                .collect();
            if inside.is_empty() {
                out.push_str(" – |");
                continue;
            }
            let n = inside.len() as f64;
            let yes = inside.iter().filter(|&&i| data.items[i].labeled(a)).count() as f64 / n;
            let mean = inside.iter().map(|&i| values[i][a]).sum::<f64>() / n;
            error += n * (yes - mean).abs();
            out.push_str(&format!(" {yes:.2} vs {mean:.2} ({}) |", inside.len()));
        }
        out.push_str(&format!(" {:.3} |\n", error / members.len().max(1) as f64));
    }
    out
}

/// Checks that the values this report computes from stored units are the hook's: the real
/// scorer on the same payloads gives the same numbers.
fn agrees_with_the_scorer(m: &Model<'_>, strengths: &[f64]) -> Result<usize, String> {
    let cases = sets::load(&sets::testdata(), SetName::Fresh)?;
    let scorer = LocalScorer::new();
    let c = m.calibration();
    let mut n = 0;
    for case in cases.iter().filter(|c| fnv(&c.id).is_multiple_of(10)) {
        let Some(diff) = testkit::payload::diff_of(&case.diff) else {
            continue;
        };
        let units = crate::data::units_of(&diff);
        let mut mine = [0.0f64; AXIS_COUNT];
        for u in units.iter().filter(|u| u.scored()) {
            let (g, z) = m.logits_of(&u.index, &u.value);
            let v = model::with_findings(c.score(g, &z).axes, &u.findings, |r| {
                learn::strength_of(strengths, r)
            });
            for a in 0..AXIS_COUNT {
                mine[a] = mine[a].max(v[a]);
            }
        }
        let theirs = scorer.score_diff(&diff).values;
        if mine != theirs {
            return Err(format!(
                "case `{}`: this report computes {mine:?}, the scorer {theirs:?}",
                case.id
            ));
        }
        n += 1;
    }
    Ok(n)
}

fn report(data: &Data, values: &[[f64; AXIS_COUNT]], thresholds: &[f64; AXIS_COUNT]) -> String {
    let mut out = String::from(metrics::HEADER);
    for (name, by, members) in rows(data) {
        out.push_str(&metrics::row(
            name,
            by,
            &metrics::figures(&data.items, &members, values, thresholds),
        ));
    }
    out
}

pub fn run(args: &[String]) -> Result<(), String> {
    if let Some(name) = crate::fit::arg_value(args, "--scorer") {
        let limit = crate::fit::arg_value(args, "--limit")
            .map(|v| {
                v.parse()
                    .map_err(|_| format!("`--limit` takes a number, not `{v}`"))
            })
            .transpose()?;
        return scorer_report(&name, limit);
    }
    let m = model::SHIPPED
        .as_ref()
        .ok_or("the shipped model does not parse\nhint: `cargo xtask fit --write`")?;
    let strengths = shipped_strengths(m);
    let checked = agrees_with_the_scorer(m, &strengths)?;
    let data = Data::load(Options {
        benign_turns: crate::fit::BENIGN_TURNS,
        held_apart: true,
    })?;
    let thresholds = m.thresholds();
    let values = values_of(
        &data,
        &|u| Some(m.logits_of(&data.units[u].index, &data.units[u].value)),
        &m.calibration(),
        &strengths,
    );
    println!(
        "# The shipped `local` model on held-apart data\n\nmodel sha256 {}; thresholds {}; \
         {checked} payloads scored by this report and by the scorer itself agree exactly\n",
        model::MODEL_SHA256.trim(),
        AXIS_IDS
            .iter()
            .zip(thresholds)
            .map(|(a, t)| format!("`{a}` {t:.3}"))
            .collect::<Vec<_>>()
            .join(", ")
    );
    print!("{}", report(&data, &values, &thresholds));
    let (above, tied, n) = polarity(&data, &values);
    println!(
        "\npolarity: of {n} held-apart fixes, the reversal (re-introducing the bug) scores above \
         the fix as made on {above} ({:.1}%), the same on {tied} ({:.1}%)\n",
        100.0 * above as f64 / n.max(1) as f64,
        100.0 * tied as f64 / n.max(1) as f64
    );
    let singles: Vec<usize> = rows(&data)
        .into_iter()
        .filter(|(name, _, _)| name.starts_with("(a) reversed"))
        .flat_map(|(_, _, m)| m)
        .collect();
    let f: Figures = metrics::figures(&data.items, &singles, &values, &thresholds);
    println!(
        "primary axis selected, per axis, (a) held-apart reversed fixes:\n\n{}",
        metrics::axis_table(&f)
    );
    let labeled: Vec<usize> = (0..data.items.len())
        .filter(|&i| {
            let it = &data.items[i];
            it.side == Side::HeldApart && matches!(it.source, Source::Set(_))
        })
        .collect();
    println!(
        "reliability per axis, every held-apart case: by the axis's score, the share of cases \
         labeled with the axis vs the bin's mean score (and how many cases)\n\n{}",
        reliability(&data, &labeled, &values)
    );
    if args.iter().any(|a| a == "--curve") {
        curve(&data, &crate::fit::params(args)?)?;
    }
    Ok(())
}

/// Every held-apart case of every set (no mixed turns), scored by one configured backend
/// through the real payload and [`Scorer`](jev_preflight::scorer::Scorer) path, at that backend's thresholds; `limit`
/// takes every n-th case so that about that many are sent.
fn scorer_report(name: &str, limit: Option<usize>) -> Result<(), String> {
    use jev_preflight::pipeline::axes::DEFAULT_THRESHOLD;
    use jev_preflight::scorer::{self, ScorerKind};
    let env = jev_preflight::env::HostEnv::from_process();
    let mut settings = jev_preflight::config::user_settings(&env)
        .map_err(|e| e.to_string())?
        .scorer;
    settings.kind = match name {
        "jev" => ScorerKind::Jev,
        "openai" => ScorerKind::OpenAi,
        "command" => ScorerKind::Command,
        "local" => ScorerKind::Local,
        other => return Err(format!("unknown scorer `{other}`")),
    };
    let backend = scorer::build(&settings).map_err(|e| e.to_string())?;
    let thresholds = backend
        .default_thresholds()
        .unwrap_or([DEFAULT_THRESHOLD; AXIS_COUNT]);
    let mut cases = Vec::new();
    for set in SetName::ALL {
        cases.extend(
            sets::load(&sets::testdata(), set)?
                .into_iter()
                .filter(|c| c.side == Side::HeldApart),
        );
    }
    let every = limit.map_or(1, |n| (cases.len() / n.max(1)).max(1));
    let mut data = Data {
        items: Vec::new(),
        units: Vec::new(),
    };
    let mut values = Vec::new();
    for c in cases.iter().step_by(every) {
        let Some(payload) = testkit::payload::of(&c.diff) else {
            continue;
        };
        let diff = payload.diff.clone();
        let scores = backend
            .score(&payload, std::time::Duration::from_secs(60))
            .map_err(|e| format!("case `{}`: {e}", c.id))?;
        values.push(scores.values);
        let (added, _) = crate::data::counts(&diff);
        data.items.push(Item {
            source: Source::Set(c.set),
            repo: c.repo.clone(),
            side: c.side,
            kind: c.kind,
            primary: c.primary,
            secondary: c.secondary.clone(),
            shape: c.shape.clone(),
            fold: 0,
            units: 0..0,
            added,
            changed: 0,
            reversal_of: None,
        });
    }
    let sample = if every > 1 {
        format!("every {every}th case")
    } else {
        "every case".to_owned()
    };
    println!(
        "# The `{name}` scorer at its thresholds on the held-apart cases ({sample}; every case \
         is out-of-sample for a remote scorer)\n"
    );
    print!("{}", report(&data, &values, &thresholds));
    Ok(())
}

/// The learning curve: fits on a share of the train side's repositories (whole fitting
/// procedure: out-of-fold calibration and thresholds, then the final fit) and measures each
/// model on the held-apart rows.
fn curve(data: &Data, p: &learn::Params) -> Result<(), String> {
    for share in [25u64, 50, 75, 100] {
        let keep = |it: &Item| {
            it.side == Side::HeldApart
                || fnv(&format!("curve:{}", it.repo.to_ascii_lowercase())) % 100 < share
        };
        let sub = data.subset(&keep);
        let raw = learn::out_of_fold(&sub, p);
        let c = learn::calibrate(&sub, &raw, p);
        let measured = learn::rule_strengths(&sub, &learn::fit_items(&sub));
        let parts = learn::item_parts(&sub, &|u| raw[u], &c);
        let choice = learn::choose(
            &sub,
            &parts,
            &measured,
            &Budgets::default(),
            learn::SET_WEIGHT_POWER,
        );
        let (t, strengths) = (choice.thresholds, choice.strengths);
        let w = learn::fit(&sub, &learn::fit_items(&sub), p);
        let held = values_of(&sub, &|u| Some(w.logits(&sub.units[u])), &c, &strengths);
        println!(
            "\nlearning curve: {share}% of the train side's repositories ({} fit items)\n\n{}",
            learn::fit_items(&sub).len(),
            report(&sub, &held, &t)
        );
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sets::Kind;

    fn item(primary: Option<usize>) -> Item {
        Item {
            source: Source::Set(SetName::Corpus),
            repo: "r".into(),
            side: Side::HeldApart,
            kind: if primary.is_some() {
                Kind::Risky
            } else {
                Kind::Benign
            },
            primary,
            secondary: Vec::new(),
            shape: String::new(),
            fold: 0,
            units: 0..0,
            added: 0,
            changed: 0,
            reversal_of: None,
        }
    }

    /// Four cases at 0.975 on axis 0, one labeled with it: the bin says 0.25 labeled at a
    /// mean of 0.97, and the axis's calibration error is their gap; four at 0.25, one
    /// labeled: a score that is its probability, error 0.
    #[test]
    fn reliability_prints_each_bins_mean_and_the_calibration_error() {
        let items: Vec<Item> = (0..8)
            .map(|i| item(if i % 4 == 0 { Some(0) } else { None }))
            .collect();
        let values: Vec<[f64; AXIS_COUNT]> = (0..8)
            .map(|i| {
                let mut v = [0.25; AXIS_COUNT];
                v[0] = if i < 4 { 0.975 } else { 0.25 };
                v
            })
            .collect();
        let data = Data {
            items,
            units: Vec::new(),
        };
        let members: Vec<usize> = (0..8).collect();
        let table = reliability(&data, &members, &values);
        let row = table
            .lines()
            .find(|l| l.starts_with("| `behavior_regression`"))
            .unwrap();
        assert!(row.contains(" 0.25 vs 0.25 (4) |"), "{row}");
        assert!(row.contains(" 0.25 vs 0.97 (4) |"), "{row}");
        // (4·0 + 4·0.725) / 8
        assert!(row.ends_with(" 0.362 |"), "{row}");
        let other = table
            .lines()
            .find(|l| l.starts_with("| `auth_boundary`"))
            .unwrap();
        assert!(other.ends_with(" 0.250 |"), "{other}");
    }
}
