//! Figures of a scorer on a set of items: how often it fires, whether it names the labeled
//! axis, how well its best axis score ranks risky above benign (ROC-AUC, PR-AUC) next to a
//! one-feature baseline (lines added), and how far apart the axis scores of one turn are.

use std::fmt::Write as _;

use jev_preflight::pipeline::axes::{AXIS_COUNT, AXIS_IDS, MAX_SELECTED};

use crate::data::Item;

/// The axes an answer would name: at or above the axis's threshold, best first, ties by id,
/// at most three (the production rule).
pub fn selected_at(values: &[f64; AXIS_COUNT], thresholds: &[f64; AXIS_COUNT]) -> Vec<usize> {
    let mut axes: Vec<usize> = (0..AXIS_COUNT)
        .filter(|&a| values[a].is_finite() && values[a] >= thresholds[a])
        .collect();
    axes.sort_by(|&a, &b| {
        values[b]
            .total_cmp(&values[a])
            .then(AXIS_IDS[a].cmp(AXIS_IDS[b]))
    });
    axes.truncate(MAX_SELECTED);
    axes
}

/// ROC-AUC of `scores` for `labels` (ties count one half); `None` without both classes.
pub fn roc_auc(scores: &[f64], labels: &[bool]) -> Option<f64> {
    let mut order: Vec<usize> = (0..scores.len()).collect();
    order.sort_by(|&a, &b| scores[a].total_cmp(&scores[b]));
    let pos = labels.iter().filter(|&&l| l).count();
    let neg = labels.len() - pos;
    if pos == 0 || neg == 0 {
        return None;
    }
    // Average ranks over ties.
    let mut rank_sum = 0.0;
    let mut i = 0;
    while i < order.len() {
        let mut j = i;
        while j + 1 < order.len() && scores[order[j + 1]] == scores[order[i]] {
            j += 1;
        }
        let avg = (i + j) as f64 / 2.0 + 1.0;
        for &k in &order[i..=j] {
            if labels[k] {
                rank_sum += avg;
            }
        }
        i = j + 1;
    }
    Some((rank_sum - (pos * (pos + 1)) as f64 / 2.0) / (pos as f64 * neg as f64))
}

/// Average precision (PR-AUC), ties broken against the risky; `None` without both classes.
pub fn pr_auc(scores: &[f64], labels: &[bool]) -> Option<f64> {
    let pos = labels.iter().filter(|&&l| l).count();
    if pos == 0 || pos == labels.len() {
        return None;
    }
    let mut order: Vec<usize> = (0..scores.len()).collect();
    order.sort_by(|&a, &b| {
        scores[b]
            .total_cmp(&scores[a])
            .then(labels[a].cmp(&labels[b]))
    });
    let (mut tp, mut ap) = (0usize, 0.0);
    for (n, &k) in order.iter().enumerate() {
        if labels[k] {
            tp += 1;
            ap += tp as f64 / (n + 1) as f64;
        }
    }
    Some(ap / pos as f64)
}

/// What one set's items scored.
#[derive(Debug, Clone, Default)]
pub struct Figures {
    pub risky: usize,
    pub benign: usize,
    /// Risky items with any axis selected.
    pub detected: usize,
    /// Risky items whose primary axis is selected.
    pub primary: usize,
    /// Benign items with any axis selected.
    pub alarms: usize,
    /// Risky items with `regression_tests` selected, and benign ones.
    pub tests_risky: usize,
    pub tests_benign: usize,
    pub auc: Option<f64>,
    pub pr_auc: Option<f64>,
    pub baseline_auc: Option<f64>,
    pub baseline_pr_auc: Option<f64>,
    /// Median gap between the first and the fourth axis score on items that fired.
    pub gap: Option<f64>,
    /// Per axis: risky items with it as primary, and of them selected.
    pub per_axis: [(usize, usize); AXIS_COUNT],
}

fn ratio(n: usize, d: usize) -> Option<f64> {
    (d > 0).then(|| n as f64 / d as f64)
}

impl Figures {
    pub fn detection(&self) -> Option<f64> {
        ratio(self.detected, self.risky)
    }
    pub fn primary_recall(&self) -> Option<f64> {
        ratio(self.primary, self.risky)
    }
    pub fn fire(&self) -> Option<f64> {
        ratio(self.alarms, self.benign)
    }
}

/// The median of `v` (`None` when empty).
pub fn median(mut v: Vec<f64>) -> Option<f64> {
    if v.is_empty() {
        return None;
    }
    v.sort_by(f64::total_cmp);
    let n = v.len();
    Some(if n % 2 == 1 {
        v[n / 2]
    } else {
        (v[n / 2 - 1] + v[n / 2]) / 2.0
    })
}

/// Figures of `members` (indices into `items` and `values`) at per-axis `thresholds`.
pub fn figures(
    items: &[Item],
    members: &[usize],
    values: &[[f64; AXIS_COUNT]],
    thresholds: &[f64; AXIS_COUNT],
) -> Figures {
    let mut f = Figures::default();
    let tests = AXIS_COUNT - 1;
    let (mut scores, mut baseline, mut labels, mut gaps) = (vec![], vec![], vec![], vec![]);
    for &i in members {
        let it = &items[i];
        let v = &values[i];
        let sel = selected_at(v, thresholds);
        let mut sorted = *v;
        sorted.sort_by(|a, b| b.total_cmp(a));
        if !sel.is_empty() {
            gaps.push(sorted[0] - sorted[3]);
        }
        scores.push(sorted[0]);
        baseline.push(it.added as f64);
        labels.push(it.risky());
        if it.risky() {
            f.risky += 1;
            f.detected += usize::from(!sel.is_empty());
            f.tests_risky += usize::from(sel.contains(&tests));
            if let Some(p) = it.primary {
                f.per_axis[p].0 += 1;
                if sel.contains(&p) {
                    f.primary += 1;
                    f.per_axis[p].1 += 1;
                }
            }
        } else {
            f.benign += 1;
            f.alarms += usize::from(!sel.is_empty());
            f.tests_benign += usize::from(sel.contains(&tests));
        }
    }
    f.auc = roc_auc(&scores, &labels);
    f.pr_auc = pr_auc(&scores, &labels);
    f.baseline_auc = roc_auc(&baseline, &labels);
    f.baseline_pr_auc = pr_auc(&baseline, &labels);
    f.gap = median(gaps);
    f
}

fn pct(v: Option<f64>) -> String {
    v.map_or("–".to_owned(), |v| format!("{:.1}%", 100.0 * v))
}

fn num(v: Option<f64>) -> String {
    v.map_or("–".to_owned(), |v| format!("{v:.3}"))
}

/// The header of [`row`]'s table.
pub const HEADER: &str = "| set | held apart by | risky | benign | detection | primary axis in top 3 | benign fire | `regression_tests` risky / benign | ROC-AUC (lines added) | PR-AUC (lines added) | median gap 1st–4th |\n|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n";

/// One Markdown row of figures.
pub fn row(name: &str, held_by: &str, f: &Figures) -> String {
    format!(
        "| {name} | {held_by} | {} | {} | {} | {} | {} | {} / {} | {} ({}) | {} ({}) | {} |\n",
        f.risky,
        f.benign,
        pct(f.detection()),
        pct(f.primary_recall()),
        pct(f.fire()),
        pct(ratio(f.tests_risky, f.risky)),
        pct(ratio(f.tests_benign, f.benign)),
        num(f.auc),
        num(f.baseline_auc),
        num(f.pr_auc),
        num(f.baseline_pr_auc),
        num(f.gap),
    )
}

/// Per-axis recall of the primary axis.
pub fn axis_table(f: &Figures) -> String {
    let mut out = String::from("| axis | risky with it as primary | selected |\n|---|---:|---:|\n");
    for (a, id) in AXIS_IDS.iter().enumerate() {
        let (n, hit) = f.per_axis[a];
        if n > 0 {
            let _ = writeln!(out, "| `{id}` | {n} | {} |", pct(ratio(hit, n)));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn auc_of_known_orders() {
        assert_eq!(
            roc_auc(&[0.1, 0.2, 0.3, 0.4], &[false, false, true, true]),
            Some(1.0)
        );
        assert_eq!(
            roc_auc(&[0.4, 0.3, 0.2, 0.1], &[false, false, true, true]),
            Some(0.0)
        );
        assert_eq!(roc_auc(&[0.5, 0.5], &[false, true]), Some(0.5));
        assert_eq!(roc_auc(&[0.5], &[true]), None);
        assert_eq!(pr_auc(&[0.9, 0.1], &[true, false]), Some(1.0));
        // Ties go against the risky: a tie of one risky and one benign at the top is 0.5.
        assert_eq!(pr_auc(&[0.5, 0.5], &[true, false]), Some(0.5));
    }

    #[test]
    fn selection_is_the_production_rule() {
        let v = [0.9, 0.95, 0.1, 0.97, 0.96, 0.2, 0.3, 0.4];
        let mut t = [0.9; AXIS_COUNT];
        t[3] = 0.98;
        assert_eq!(selected_at(&v, &t), vec![4, 1, 0]);
        let v = [0.9, 0.95, 0.1, 0.97, 0.96, 0.2, 0.3, 0.4];
        assert_eq!(selected_at(&v, &[0.9; AXIS_COUNT]), vec![3, 4, 1]);
        assert!(selected_at(&v, &[0.99; AXIS_COUNT]).is_empty());
    }
}
