//! Every set read the way the hook reads a turn: each case's diff through the real selection,
//! redaction and payload stages, cut into units ([`units::Grouping::Family`]) and each unit's
//! features and detector findings extracted by the production code. Mixed turns
//! ([`crate::turns`]) and the forward (un-reversed) fixes of the polarity check are items too.

use std::ops::Range;

use jev_preflight::scorer::local::detect;
use jev_preflight::scorer::local::detect::Finding;
use jev_preflight::scorer::local::features::extract_files_in;
use jev_preflight::scorer::local::hunks::{self, Role};
use jev_preflight::scorer::local::units::{self, Grouping};

use crate::dump::parallel;
use crate::sets::{self, Case, Kind, SetName, Side, fold_of};
use crate::turns;
use testkit::payload;

/// Folds of the cross-validation on the train side, by repository.
pub const FOLDS: usize = 5;

/// One unit's features as the model reads them.
#[derive(Debug, Clone, Default)]
pub struct Unit {
    pub index: Vec<u32>,
    pub value: Vec<f32>,
    pub findings: Vec<Finding>,
    /// The unit changes test files only.
    pub tests: bool,
    /// Changed lines the features read (added + removed).
    pub changed: usize,
}

impl Unit {
    /// Whether the scorer judges it: it has changed lines the features read, or findings (the
    /// rule of [`jev_preflight::scorer::local::score_units`]).
    pub fn scored(&self) -> bool {
        self.changed > 0 || !self.findings.is_empty()
    }
}

/// Where an item comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Source {
    Set(SetName),
    /// A corpus case with 1–3 harmless companions, or 2–4 harmless changes.
    Mixed,
    /// A held-apart reversed fix stored forward (the fix as made).
    Forward,
}

impl Source {
    pub fn name(self) -> &'static str {
        match self {
            Source::Set(s) => s.dir_name(),
            Source::Mixed => "mixed",
            Source::Forward => "forward",
        }
    }
}

/// One thing to score: a case, a mixed turn or a forward fix.
#[derive(Debug, Clone)]
pub struct Item {
    pub source: Source,
    pub repo: String,
    pub side: Side,
    pub kind: Kind,
    pub primary: Option<usize>,
    pub secondary: Vec<usize>,
    /// Introduced-risk cases: `add`, `edit` or `commit`.
    pub shape: String,
    /// The fold of its repository (train side; every part of a train mixed turn shares it).
    pub fold: usize,
    /// Its units in [`Data::units`].
    pub units: Range<usize>,
    /// Lines the payload adds (the one-feature baseline).
    pub added: usize,
    /// Lines the payload changes (added + removed).
    pub changed: usize,
    /// For a forward fix: the item of its reversal.
    pub reversal_of: Option<usize>,
}

impl Item {
    pub fn risky(&self) -> bool {
        self.kind == Kind::Risky
    }

    pub fn labeled(&self, axis: usize) -> bool {
        self.primary == Some(axis) || self.secondary.contains(&axis)
    }
}

/// Everything the fit and the quality bench read.
pub struct Data {
    pub items: Vec<Item>,
    pub units: Vec<Unit>,
}

/// Reads a payload diff into its units.
pub fn units_of(diff: &str) -> Vec<Unit> {
    let mut files = hunks::parse(diff);
    hunks::mark_changed(&mut files);
    let context = detect::Context::of(&files);
    units::split(&files, Grouping::Family)
        .iter()
        .map(|unit| {
            let f = extract_files_in(unit, &context);
            Unit {
                index: f.index,
                value: f.value,
                findings: f.findings,
                tests: unit.iter().all(|f| f.role == Role::Test),
                changed: f.lines.len(),
            }
        })
        .collect()
}

/// The lines a payload diff adds and changes.
pub fn counts(diff: &str) -> (usize, usize) {
    let (mut added, mut removed) = (0, 0);
    for l in diff.lines() {
        if l.starts_with('+') && !l.starts_with("+++ ") {
            added += 1;
        } else if l.starts_with('-') && !l.starts_with("--- ") {
            removed += 1;
        }
    }
    (added, added + removed)
}

/// A unified diff read the other way round: what it adds it removes, a created file is
/// deleted. Used to turn a stored reversed fix back into the fix as it was made.
pub fn invert(diff: &str) -> String {
    let mut out = String::with_capacity(diff.len());
    let mut pending_old: Option<String> = None;
    for line in diff.split_inclusive('\n') {
        let body = line.strip_suffix('\n').unwrap_or(line);
        let nl = if line.ends_with('\n') { "\n" } else { "" };
        if let Some(rest) = body.strip_prefix("diff --git ") {
            // `a/x b/y` → `a/y b/x` (paths with spaces: best effort on the ` b/` split).
            match rest.find(" b/") {
                Some(at) => {
                    let (a, b) = (&rest[2..at], &rest[at + 3..]);
                    out.push_str(&format!("diff --git a/{b} b/{a}{nl}"));
                }
                None => out.push_str(line),
            }
        } else if let Some(rest) = body.strip_prefix("--- ") {
            pending_old = Some(rest.to_owned());
        } else if let Some(rest) = body.strip_prefix("+++ ") {
            let old = pending_old.take().unwrap_or_default();
            let swap = |p: &str, from: &str, to: &str| match p.strip_prefix(from) {
                Some(r) => format!("{to}{r}"),
                None => p.to_owned(),
            };
            out.push_str(&format!("--- {}\n", swap(rest, "b/", "a/")));
            out.push_str(&format!("+++ {}{nl}", swap(&old, "a/", "b/")));
        } else if let Some(mode) = body.strip_prefix("new file mode ") {
            out.push_str(&format!("deleted file mode {mode}{nl}"));
        } else if let Some(mode) = body.strip_prefix("deleted file mode ") {
            out.push_str(&format!("new file mode {mode}{nl}"));
        } else if let Some(rest) = body.strip_prefix("rename from ") {
            out.push_str(&format!("rename to {rest}{nl}"));
        } else if let Some(rest) = body.strip_prefix("rename to ") {
            out.push_str(&format!("rename from {rest}{nl}"));
        } else if let Some(rest) = body.strip_prefix("@@ -") {
            // `@@ -a,b +c,d @@ ctx` → `@@ -c,d +a,b @@ ctx`
            match rest
                .split_once(" +")
                .and_then(|(old, r)| r.split_once(" @@").map(|(new, ctx)| (old, new, ctx)))
            {
                Some((old, new, ctx)) => out.push_str(&format!("@@ -{new} +{old} @@{ctx}{nl}")),
                None => out.push_str(line),
            }
        } else if let Some(rest) = body.strip_prefix('+') {
            out.push_str(&format!("-{rest}{nl}"));
        } else if let Some(rest) = body.strip_prefix('-') {
            out.push_str(&format!("+{rest}{nl}"));
        } else if body.starts_with("index ") {
            // `index old..new mode`: ids swap; nothing reads them.
            out.push_str(line);
        } else {
            out.push_str(line);
        }
    }
    out
}

/// What to build besides the sets' own cases.
#[derive(Debug, Clone, Copy)]
pub struct Options {
    /// Benign mixed turns per side.
    pub benign_turns: usize,
    /// Build the mixed turns and forward fixes of the held-apart side.
    pub held_apart: bool,
}

impl Data {
    /// Loads every set under `testdata/`.
    pub fn load(options: Options) -> Result<Data, String> {
        let start = std::time::Instant::now();
        let root = sets::testdata();
        let mut cases: Vec<Case> = Vec::new();
        for set in SetName::ALL {
            cases.extend(sets::load(&root, set)?);
        }
        let payloads: Vec<Option<String>> = parallel(&cases, |c| payload::diff_of(&c.diff));
        // Jobs: (item without units, payload diff).
        let mut jobs: Vec<(Item, String)> = Vec::new();
        let item_of = |c: &Case, source: Source, kind: Kind| Item {
            source,
            repo: c.repo.clone(),
            side: c.side,
            kind,
            primary: if kind == Kind::Risky { c.primary } else { None },
            secondary: if kind == Kind::Risky {
                c.secondary.clone()
            } else {
                Vec::new()
            },
            shape: c.shape.clone(),
            fold: fold_of(&c.repo, FOLDS),
            units: 0..0,
            added: 0,
            changed: 0,
            reversal_of: None,
        };
        let mut case_item: Vec<Option<usize>> = vec![None; cases.len()];
        for (i, (c, p)) in cases.iter().zip(&payloads).enumerate() {
            if let Some(p) = p {
                case_item[i] = Some(jobs.len());
                jobs.push((item_of(c, Source::Set(c.set), c.kind), p.clone()));
            }
        }
        let corpus = |c: &Case| c.set == SetName::Corpus;
        // On the train side the risky turns only report figures (the benign ones set the
        // threshold): one risky case in four is enough.
        let some_corpus = |c: &Case| {
            c.set == SetName::Corpus
                && (c.side == Side::HeldApart || sets::fnv(&c.id).is_multiple_of(4))
        };
        for side in [Side::Train, Side::HeldApart] {
            if side == Side::HeldApart && !options.held_apart {
                continue;
            }
            let folds = (side == Side::Train).then_some(FOLDS);
            for t in turns::build(
                &cases,
                &payloads,
                side,
                &some_corpus,
                &corpus,
                options.benign_turns,
                folds,
            ) {
                let Some(diff) = payload::diff_of(&t.diff) else {
                    continue;
                };
                let (first, kind) = match t.risky {
                    Some(r) => (r, Kind::Risky),
                    None => (t.parts[0], Kind::Benign),
                };
                jobs.push((item_of(&cases[first], Source::Mixed, kind), diff));
            }
        }
        if options.held_apart {
            for (i, c) in cases.iter().enumerate() {
                let (Some(at), Some(p)) = (case_item[i], &payloads[i]) else {
                    continue;
                };
                if c.set == SetName::Corpus && c.side == Side::HeldApart && c.kind == Kind::Risky {
                    let Some(forward) = payload::diff_of(&invert(p)) else {
                        continue;
                    };
                    let mut item = item_of(c, Source::Forward, Kind::Benign);
                    item.reversal_of = Some(at);
                    jobs.push((item, forward));
                }
            }
        }
        let read: Vec<Vec<Unit>> = parallel(&jobs, |(_, diff)| units_of(diff));
        let mut data = Data {
            items: Vec::with_capacity(jobs.len()),
            units: Vec::new(),
        };
        for ((mut item, diff), units) in jobs.into_iter().zip(read) {
            let (added, changed) = counts(&diff);
            item.added = added;
            item.changed = changed;
            let at = data.units.len();
            data.units.extend(units);
            item.units = at..data.units.len();
            data.items.push(item);
        }
        eprintln!(
            "data: {} items, {} units in {:.1} s",
            data.items.len(),
            data.units.len(),
            start.elapsed().as_secs_f64()
        );
        Ok(data)
    }

    /// The items `keep` keeps, with their units (a forward fix keeps its reversal's link only
    /// when both are kept).
    pub fn subset(&self, keep: &dyn Fn(&Item) -> bool) -> Data {
        let mut new_index: Vec<Option<usize>> = vec![None; self.items.len()];
        let mut out = Data {
            items: Vec::new(),
            units: Vec::new(),
        };
        for (i, it) in self.items.iter().enumerate() {
            if !keep(it) {
                continue;
            }
            new_index[i] = Some(out.items.len());
            let mut item = it.clone();
            let at = out.units.len();
            out.units
                .extend(self.units[it.units.clone()].iter().cloned());
            item.units = at..out.units.len();
            out.items.push(item);
        }
        for item in &mut out.items {
            item.reversal_of = item.reversal_of.and_then(|r| new_index[r]);
        }
        out
    }

    /// The items of a side and source.
    pub fn of(&self, side: Side, source: Source) -> Vec<usize> {
        (0..self.items.len())
            .filter(|&i| self.items[i].side == side && self.items[i].source == source)
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn invert_reads_a_diff_backwards() {
        let diff = "diff --git a/x.py b/x.py\nindex 1..2 100644\n--- a/x.py\n+++ b/x.py\n@@ -1,3 +1,2 @@ def f():\n a = 1\n-if a:\n-    b()\n+b()\n";
        let back = invert(diff);
        assert_eq!(
            back,
            "diff --git a/x.py b/x.py\nindex 1..2 100644\n--- a/x.py\n+++ b/x.py\n@@ -1,2 +1,3 @@ def f():\n a = 1\n+if a:\n+    b()\n-b()\n"
        );
        let created = "diff --git a/n.py b/n.py\nnew file mode 100644\n--- /dev/null\n+++ b/n.py\n@@ -0,0 +1 @@\n+x = 1\n";
        let gone = invert(created);
        assert!(gone.contains("deleted file mode 100644\n--- a/n.py\n+++ /dev/null\n"));
        assert!(gone.contains("@@ -1 +0,0 @@\n-x = 1\n"));
    }
}
