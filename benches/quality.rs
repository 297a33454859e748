//! How well a scorer routes real changes: per-axis precision and recall, top-3 primary-axis
//! recall, any-label recall and benign false alarms, on the mined corpus in
//! `testdata/corpus/` (real fix commits stored reversed and real benign commits).
//!
//! `scripts/quality` runs `cargo bench --bench quality -- [options]`:
//!
//! - (default) the `local` scorer, **out-of-fold**: grouped 5-fold cross-validation by
//!   repository, nested, so the figures for each fold come from a model, a calibration and
//!   thresholds chosen without any repository of that fold. Also the out-of-fold reliability
//!   table of the scores.
//! - `--curve`: the same on 25%, 50% and 75% of the repositories too (the learning curve).
//! - `--scorer jev|openai|command|local`: score every case with that backend as configured in
//!   the environment (`JEV_PREFLIGHT_*`, keys), at its own thresholds. For a remote scorer
//!   every case is out-of-sample; for `local` this is the shipped model on the data it was
//!   fitted on, and is labeled **in-sample**; with `--corpus DIR` naming a corpus that shares
//!   no repository with `testdata/corpus/`, it is out-of-sample and labeled so.
//! - `--eval-set`: the shipped `local` model on the hand-written set in `testdata/eval/`; the
//!   model never saw it, but the line kinds were written with it in view, so it is labeled
//!   in-sample too.
//! - `--held-apart FILE`: also, the repositories FILE names (one `owner/name` per line) take
//!   no part in fitting, calibration or thresholds; the model fitted on the rest as
//!   `scripts/fit` fits it scores them. `testdata/corpus/held-apart.txt` lists the repositories added to the
//!   corpus after the model's design was settled (all but one later choice, which its
//!   header names).
//!   `--held-apart-only` skips the nested figures.
//! - `--corpus DIR` and the fit options (`--folds K`, `--false-alarms R`, `--l2 X`, …) as for
//!   the `fit` bench.

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

use jev_preflight::pipeline::axes::{AXIS_COUNT, AXIS_IDS, DEFAULT_THRESHOLD};
use jev_preflight::scorer::local::LocalScorer;
use jev_preflight::scorer::{self, Scorer, ScorerKind};

#[path = "support/corpus.rs"]
mod corpus;
#[path = "support/eval_set.rs"]
mod eval_set;
#[path = "support/fit.rs"]
mod fit;
#[path = "support/learn.rs"]
mod learn;

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let value = |name: &str| fit::arg_value(&args, name);
    let flag = |name: &str| args.iter().any(|a| a == name);
    let params = match fit::Params::from_args(&args) {
        Ok(p) => p,
        Err(e) => {
            eprintln!("error: {e}");
            return ExitCode::from(2);
        }
    };
    if flag("--eval-set") {
        return eval_set_report();
    }
    let dir = value("--corpus").map_or_else(corpus::default_dir, PathBuf::from);
    let data = match learn::Data::load(&dir, &params) {
        Ok(d) => d,
        Err(e) => {
            eprintln!("error: {e}\nhint: the corpus is `testdata/corpus/` (see its README)");
            return ExitCode::from(2);
        }
    };
    println!(
        "corpus: {} cases ({} risky, {} benign) from {} repositories",
        data.cases.len(),
        data.cases
            .iter()
            .filter(|c| c.kind == corpus::Kind::Risky)
            .count(),
        data.cases
            .iter()
            .filter(|c| c.kind == corpus::Kind::Benign)
            .count(),
        data.repos().len()
    );
    if let Some(name) = value("--scorer") {
        return scorer_report(&data, &dir, &name);
    }
    if let Some(path) = value("--held-apart")
        && flag("--held-apart-only")
    {
        return held_apart_report(&data, &path, &params);
    }
    let all = data.all();
    let out = learn::run(&data, &all, &params, false, true);
    print!(
        "{}",
        fit::table(
            &format!(
                "local scorer, out-of-fold (nested, {} folds by repository; benign false-alarm budget {:.0}%)",
                params.folds,
                params.false_alarm_limit * 100.0
            ),
            &out.nested
        )
    );
    println!(
        "reliability, out-of-fold: a case's highest axis score (what an answer shows first, \
         about P(risky)) vs the share of risky changes; on the corpus's mix of {:.0}% risky",
        100.0 * out.nested.risky as f64 / (out.nested.risky + out.nested.benign).max(1) as f64
    );
    print!("{}", fit::reliability(&out.nested));
    println!(
        "test-only changes under a threshold of their own (out-of-fold scores; both thresholds \
         chosen on them, so each row is the best that split reaches): {} of {} benign and {} of \
         {} regression_tests cases change only tests",
        all.iter()
            .filter(|&&i| data.samples[i].tests_only && data.cases[i].kind == corpus::Kind::Benign)
            .count(),
        out.nested.benign,
        all.iter()
            .filter(|&&i| data.samples[i].tests_only
                && data.cases[i].primary.map(|a| AXIS_IDS[a]) == Some("regression_tests"))
            .count(),
        out.nested.per_axis[AXIS_COUNT - 1].0,
    );
    print!(
        "{}",
        fit::test_only_frontier(
            &data.cases,
            &all,
            &out.probs,
            &|i| data.samples[i].tests_only,
            params.false_alarm_limit
        )
    );
    if flag("--curve") {
        println!(
            "learning curve (nested out-of-fold, on a share of the repositories; per axis: \
             top-3 primary recall among its cases, %):"
        );
        println!(
            "| repositories | cases | top-3 primary recall | benign false alarms | {} |",
            AXIS_IDS.join(" | ")
        );
        println!("|---:|---:|---:|---:|{}", "---:|".repeat(AXIS_COUNT));
        let row = |repos: usize, cases: usize, f: &fit::Figures| {
            let axes: Vec<String> = f
                .per_axis
                .iter()
                .map(|&(n, hit, _, _)| format!("{:.1}", 100.0 * hit as f64 / n.max(1) as f64))
                .collect();
            println!(
                "| {repos} | {cases} | {:.3} | {:.3} | {} |",
                f.primary_recall(),
                f.false_alarms(),
                axes.join(" | ")
            );
        };
        let repos = data.repos();
        for share in [0.25, 0.5, 0.75] {
            // A fixed subset: repositories whose hash falls in the first `share` of the range.
            let keep: Vec<&str> = repos
                .iter()
                .copied()
                .filter(|r| (corpus::fold_of(r, 1000) as f64) < share * 1000.0)
                .collect();
            let members: Vec<usize> = all
                .iter()
                .copied()
                .filter(|&i| keep.contains(&data.cases[i].repo.as_str()))
                .collect();
            let o = learn::run(&data, &members, &params, false, true);
            row(keep.len(), members.len(), &o.nested);
        }
        row(repos.len(), all.len(), &out.nested);
    }
    if let Some(path) = value("--held-apart") {
        return held_apart_report(&data, &path, &params);
    }
    ExitCode::SUCCESS
}

/// `--held-apart FILE`: the repositories named in FILE (one `owner/name` per line, `#`
/// comments) are left out of fitting, calibration and thresholds; the model fitted on the
/// rest, as `scripts/fit` fits it, scores them.
fn held_apart_report(data: &learn::Data, path: &str, params: &fit::Params) -> ExitCode {
    let text = match std::fs::read_to_string(path) {
        Ok(t) => t,
        Err(e) => {
            eprintln!("error: cannot read `{path}`: {e}");
            return ExitCode::from(2);
        }
    };
    let apart: std::collections::HashSet<&str> = text
        .lines()
        .map(|l| l.split('#').next().unwrap_or("").trim())
        .filter(|l| !l.is_empty())
        .collect();
    let (test, train): (Vec<usize>, Vec<usize>) = data
        .all()
        .into_iter()
        .partition(|&i| apart.contains(data.cases[i].repo.as_str()));
    if test.is_empty() || train.is_empty() {
        eprintln!(
            "error: `{path}` names {} repositories, {} cases of the corpus; both sides need some",
            apart.len(),
            test.len()
        );
        return ExitCode::from(2);
    }
    let figures = learn::held_apart(data, &train, &test, params);
    print!(
        "{}",
        fit::table(
            &format!(
                "local scorer fitted on {} cases from {} repositories, scored on {} cases from {} repositories held apart (`{path}`)",
                train.len(),
                data.repos_of(&train).len(),
                test.len(),
                data.repos_of(&test).len()
            ),
            &figures
        )
    );
    ExitCode::SUCCESS
}

/// Every case scored by one configured backend, at that backend's thresholds.
fn scorer_report(data: &learn::Data, dir: &std::path::Path, name: &str) -> ExitCode {
    let env = jev_preflight::env::HostEnv::from_process();
    let mut settings = match jev_preflight::config::user_settings(&env) {
        Ok(u) => u.scorer,
        Err(e) => {
            eprintln!("error: {e}");
            return ExitCode::from(2);
        }
    };
    settings.kind = match name {
        "jev" => ScorerKind::Jev,
        "openai" => ScorerKind::OpenAi,
        "command" => ScorerKind::Command,
        "local" => ScorerKind::Local,
        other => {
            eprintln!("error: unknown scorer `{other}`");
            return ExitCode::from(2);
        }
    };
    let backend = match scorer::build(&settings) {
        Ok(s) => s,
        Err(e) => {
            eprintln!("error: {e}");
            return ExitCode::from(2);
        }
    };
    let thresholds = backend
        .default_thresholds()
        .unwrap_or([DEFAULT_THRESHOLD; AXIS_COUNT]);
    let mut probs = vec![[0.0; AXIS_COUNT]; data.cases.len()];
    for (i, c) in data.cases.iter().enumerate() {
        if let Some(p) = eval_set::payload_from_diff(&c.diff) {
            match backend.score(&p, Duration::from_secs(60)) {
                Ok(s) => probs[i] = s.values,
                Err(e) => {
                    eprintln!("error: case `{}`: {e}", c.id);
                    return ExitCode::FAILURE;
                }
            }
        }
    }
    let figures = fit::figures(&data.cases, &data.all(), &probs, &|_| thresholds);
    // The shipped model was fitted on the default corpus: on it, or on any corpus sharing a
    // repository with it, the figures are in-sample.
    let fitted_on = match corpus::repos_in(&corpus::default_dir()) {
        Ok(r) => r,
        Err(e) => {
            eprintln!("error: {e}");
            return ExitCode::from(2);
        }
    };
    let shared = data
        .repos()
        .iter()
        .filter(|r| fitted_on.contains(&r.to_ascii_lowercase()))
        .count();
    let title = if name == "local" && shared == 0 {
        format!(
            "local scorer as shipped, on {} repositories it was never fitted on (`{}`; out-of-sample)",
            data.repos().len(),
            dir.display()
        )
    } else if name == "local" {
        format!(
            "local scorer as shipped, IN-SAMPLE ({shared} of these {} repositories are in the corpus it was fitted on; see the default run for out-of-fold figures)",
            data.repos().len()
        )
    } else {
        format!("`{name}` scorer at its thresholds (every case out-of-sample)")
    };
    print!("{}", fit::table(&title, &figures));
    ExitCode::SUCCESS
}

/// The shipped model on the hand-written set in `testdata/eval/`.
fn eval_set_report() -> ExitCode {
    let cases = match eval_set::load(&eval_set::default_dir()) {
        Ok(c) => c,
        Err(e) => {
            eprintln!("error: {e}");
            return ExitCode::FAILURE;
        }
    };
    let scorer = LocalScorer::new();
    let thresholds = scorer
        .default_thresholds()
        .unwrap_or([DEFAULT_THRESHOLD; AXIS_COUNT]);
    let report = eval_set::evaluate(&scorer, &cases, &thresholds).expect("local never fails");
    println!(
        "testdata/eval: the model was never fitted on it, but its line kinds and evidence \
         words were written with these cases in view, so treat it as IN-SAMPLE"
    );
    print!("{}", report.table());
    ExitCode::SUCCESS
}
