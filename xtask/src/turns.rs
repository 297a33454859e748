//! Mixed turns: what the hook meets when an agent's turn holds more than one change. Each
//! risky case is put in one turn with 1–3 harmless changes drawn from benign cases of other
//! repositories on the same side of the split; benign turns are 2–4 harmless changes. The
//! draw is a hash of the case id, so the same sets give the same turns on every machine.

use std::collections::BTreeSet;

use crate::sets::{Case, Kind, Side, fnv};

/// One mixed turn: its parts (indices into the cases it was drawn from) and its diff, the
/// parts' payload diffs in a drawn order.
#[derive(Debug, Clone)]
pub struct Turn {
    /// The risky part, if any (its labels are the turn's).
    pub risky: Option<usize>,
    pub parts: Vec<usize>,
    pub diff: String,
}

/// The paths a payload diff writes (its `diff --git` lines), to keep parts apart.
fn paths(diff: &str) -> BTreeSet<&str> {
    diff.lines()
        .filter_map(|l| l.strip_prefix("diff --git "))
        .collect()
}

/// A small deterministic generator (SplitMix64) seeded by a text.
struct Draw(u64);

impl Draw {
    fn new(seed: &str) -> Draw {
        Draw(fnv(seed))
    }

    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}

/// Builds the mixed turns of one side: one per risky case of `risky_from` (with 1–3
/// companions), and `benign_turns` benign ones (2–4 parts). With `folds`, every part of a
/// turn comes from one fold of repositories ([`crate::sets::fold_of`]), so out-of-fold scores
/// of the turn are out-of-fold for each of its parts. `payload` holds each case's
/// payload diff (`None`: the hook would not score it; such cases are never drawn).
pub fn build(
    cases: &[Case],
    payload: &[Option<String>],
    side: Side,
    risky_from: &dyn Fn(&Case) -> bool,
    companions_from: &dyn Fn(&Case) -> bool,
    benign_turns: usize,
    folds: Option<usize>,
) -> Vec<Turn> {
    let fold = |i: usize| folds.map(|k| crate::sets::fold_of(&cases[i].repo, k));
    let pool: Vec<usize> = (0..cases.len())
        .filter(|&i| {
            cases[i].side == side
                && cases[i].kind == Kind::Benign
                && companions_from(&cases[i])
                && payload[i].is_some()
        })
        .collect();
    let risky: Vec<usize> = (0..cases.len())
        .filter(|&i| {
            cases[i].side == side
                && cases[i].kind == Kind::Risky
                && risky_from(&cases[i])
                && payload[i].is_some()
        })
        .collect();
    let mut turns = Vec::new();
    if pool.is_empty() {
        return turns;
    }
    let one = |seed: String, first: Option<usize>, companions: usize, in_fold: Option<usize>| {
        let mut draw = Draw::new(&seed);
        let mut parts: Vec<usize> = first.into_iter().collect();
        let mut repos: BTreeSet<String> = parts
            .iter()
            .map(|&i| cases[i].repo.to_ascii_lowercase())
            .collect();
        let mut taken: BTreeSet<&str> = parts
            .iter()
            .flat_map(|&i| paths(payload[i].as_deref().unwrap_or_default()))
            .collect();
        let want = parts.len() + companions;
        for _ in 0..2000 {
            if parts.len() == want {
                break;
            }
            let c = pool[draw.below(pool.len())];
            if in_fold.is_some() && fold(c) != in_fold {
                continue;
            }
            let p = paths(payload[c].as_deref().unwrap_or_default());
            if repos.contains(&cases[c].repo.to_ascii_lowercase()) || !taken.is_disjoint(&p) {
                continue;
            }
            repos.insert(cases[c].repo.to_ascii_lowercase());
            taken.extend(p);
            parts.push(c);
        }
        // The risky part at a drawn place among its companions.
        let mut order = parts.clone();
        let at = draw.below(order.len());
        order.swap(0, at);
        let mut diff = String::new();
        for &i in &order {
            diff.push_str(payload[i].as_deref().unwrap_or_default());
            if !diff.ends_with('\n') {
                diff.push('\n');
            }
        }
        Turn {
            risky: first,
            parts: order,
            diff,
        }
    };
    for &r in &risky {
        let n = 1 + (fnv(&format!("companions:{}", cases[r].id)) % 3) as usize;
        turns.push(one(format!("mixed:{}", cases[r].id), Some(r), n, fold(r)));
    }
    for t in 0..benign_turns {
        let n = 2 + (fnv(&format!("benign-turn:{t}")) % 3) as usize;
        let in_fold = folds.map(|k| t % k);
        turns.push(one(format!("benign-turn:{t}"), None, n, in_fold));
    }
    turns
}
