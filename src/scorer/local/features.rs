//! The features of a diff that the learned model reads: general facts about what kind of line
//! was removed or added, in which role of file, hashed token n-grams of the changed lines and
//! their context, what each hunk lost and gained, and the shape of the change. Every feature
//! that comes from a line remembers the line, so the model can point the agent at the lines
//! that raised an axis.
//!
//! Features are hashed into [`DIM`] buckets (FNV-1a of a namespaced string). Counts become
//! `1 + ln(count)`; the text block is scaled to unit length so a long diff does not weigh more
//! than a short one, while the shape block keeps its values.

use std::collections::BTreeMap;

use super::detect::{self, Finding};
use super::hunks::{FileDiff, Hunk, Kind as LineKind, Lang, Role};
use super::kinds::{self, Kind, Kinds};
use super::quick::{QuickMap, fnv};
use super::tokens::{self, Token, TokenKind};

/// Buckets of the hashed feature space.
pub const DIM: usize = 1 << 14;

/// Lines of context on each side of a change whose words count as context.
const CONTEXT: usize = 3;
/// Changed lines read per payload; beyond this a turn is large enough already.
const MAX_LINES: usize = 4000;

/// A changed line the features came from.
#[derive(Debug, Clone)]
pub struct LineInfo {
    /// Index into [`Features::files`].
    pub file: usize,
    /// New-file line number (for a removed line: where the removal sits).
    pub line: u32,
    pub removed: bool,
    /// The line's text, trimmed and clipped.
    pub text: String,
    pub kinds: Kinds,
    /// The line on the other side this one was paired with (a modification), as an index
    /// into [`Features::lines`].
    pub partner: Option<usize>,
}

/// A diff as the model reads it.
#[derive(Debug, Clone, Default)]
pub struct Features {
    /// Sorted bucket indices and their values.
    pub index: Vec<u32>,
    pub value: Vec<f32>,
    pub files: Vec<String>,
    pub lines: Vec<LineInfo>,
    /// For each of [`Features::lines`], the buckets it raised (one entry per occurrence).
    pub line_buckets: Vec<Vec<u32>>,
    /// Only test files changed (the `only tests` feature).
    pub tests_only: bool,
    /// What the [`detect`] rules found, file by file.
    pub findings: Vec<Finding>,
}

impl Features {
    /// The value of bucket `i` (0 when absent).
    pub fn get(&self, i: u32) -> f32 {
        self.index
            .binary_search(&i)
            .map_or(0.0, |at| self.value[at])
    }
}

/// A feature namespace: FNV-1a's state after the namespace's pieces and the separator.
/// Features hash their text on from it piece by piece, so no namespaced string is ever
/// formatted for a feature.
#[derive(Debug, Clone, Copy)]
struct Namespace(u64);

impl Namespace {
    /// The namespace spelled by `pieces` in order.
    fn of(pieces: &[&str]) -> Namespace {
        let h = pieces
            .iter()
            .fold(0xcbf2_9ce4_8422_2325, |h, p| fnv(h, p.as_bytes()));
        Namespace(fnv(h, &[0x1f]))
    }

    /// The bucket of the text spelled by `pieces` in order.
    fn bucket(self, pieces: &[&str]) -> u32 {
        let h = pieces.iter().fold(self.0, |h, p| fnv(h, p.as_bytes()));
        (h % DIM as u64) as u32
    }
}

/// FNV-1a over a namespace, a separator and a text.
fn bucket(namespace: &str, text: &str) -> u32 {
    Namespace::of(&[namespace]).bucket(&[text])
}

type BucketMap<V> = QuickMap<u32, V>;

/// Counts per bucket, in two blocks.
#[derive(Default)]
struct Counts {
    text: BucketMap<u32>,
    shape: BucketMap<f32>,
}

impl Counts {
    /// Counts sized for a unit of `lines` changed lines (a few dozen texts each), so the
    /// maps are not grown step by step.
    fn for_lines(lines: usize) -> Counts {
        let text = (lines * 32).min(DIM);
        Counts {
            text: BucketMap::with_capacity_and_hasher(text, Default::default()),
            shape: BucketMap::with_capacity_and_hasher(32, Default::default()),
        }
    }

    /// Counts the text spelled by `pieces` in namespace `ns`; returns its bucket.
    fn text(&mut self, ns: Namespace, pieces: &[&str]) -> u32 {
        let b = ns.bucket(pieces);
        self.count(b);
        b
    }

    /// Counts one more text in bucket `b`.
    fn count(&mut self, b: u32) {
        *self.text.entry(b).or_insert(0) += 1;
    }

    fn shape(&mut self, namespace: &str, text: &str, value: f32) {
        *self.shape.entry(bucket(namespace, text)).or_insert(0.0) += value;
    }
}

fn role_code(role: Role) -> &'static str {
    match role {
        Role::Source => "s",
        Role::Test => "t",
        Role::Config | Role::Manifest => "c",
        Role::Docs => "d",
    }
}

fn lang_name(lang: Lang) -> &'static str {
    match lang {
        Lang::Go => "go",
        Lang::Python => "python",
        Lang::JavaScript => "js",
        Lang::Rust => "rust",
        Lang::Java => "java",
        Lang::Ruby => "ruby",
        Lang::Sql => "sql",
        Lang::Other => "other",
    }
}

/// Operators worth a feature of their own (punctuation is not).
fn significant_op(op: &str) -> bool {
    !matches!(
        op,
        "." | "," | ";" | "(" | ")" | "{" | "}" | "[" | "]" | "\"" | ":"
    )
}

/// A number's feature: small values as themselves, larger ones by magnitude.
fn number_class(text: &str) -> &'static str {
    if text.starts_with("0x") {
        return "hex";
    }
    let digits = text.split(['.', 'e']).next().unwrap_or(text);
    match digits.trim_start_matches('0').len() {
        0 => "0",
        1 if digits.ends_with('1') => "1",
        1 => "digit",
        2 => "tens",
        3 => "hundreds",
        4 => "thousands",
        _ => "large",
    }
}

/// Kinds whose pairs on one line are features (the rest are too common to pair).
const PAIRED: Kinds = {
    let mut k: Kinds = 0;
    let all = kinds::ALL;
    let mut i = 0;
    while i < all.len() {
        match all[i] {
            Kind::Call | Kind::Assign | Kind::Literal | Kind::Definition | Kind::Index => {}
            other => k |= 1 << (other as u32),
        }
        i += 1;
    }
    k
};

/// The features of a payload's unified diff read as one unit (the scorer cuts a turn into
/// units first: `units::features`).
#[cfg(test)]
fn extract(diff: &str) -> Features {
    let mut files = super::hunks::parse(diff);
    super::hunks::mark_changed(&mut files);
    extract_files_in(&files, &detect::Context::of(&files))
}

/// The features of one unit of a turn (its files cut from the whole payload's parse, with
/// the whole payload's marks); the detectors read the whole turn's facts in `context`.
pub fn extract_files_in(files: &[FileDiff<'_>], context: &detect::Context) -> Features {
    let mut out = Features {
        files: files.iter().map(|f| f.path.clone()).collect(),
        ..Features::default()
    };
    let changed = files
        .iter()
        .flat_map(|f| f.hunks.iter().flat_map(|h| &h.lines))
        .filter(|l| l.changed)
        .count();
    let mut counts = Counts::for_lines(changed);
    out.findings = detect::find_in(files, context);
    for f in &out.findings {
        counts.shape("det", f.rule.name(), 1.0);
    }
    let mut tally = Tally::default();
    for (fi, file) in files.iter().enumerate() {
        file_features(file, &mut counts);
        for hunk in &file.hunks {
            hunk_features(fi, file, hunk, &mut out, &mut counts, &mut tally);
        }
    }
    out.tests_only = shape_features(&tally, files.len(), &mut counts);
    vectorize(&counts, &mut out);
    out
}

/// What the lines of a whole unit add up to, for its shape.
#[derive(Default)]
struct Tally {
    added: usize,
    removed: usize,
    test_added: usize,
    test_removed: usize,
    /// The roles with a changed line.
    roles_changed: [bool; 5],
    /// Lines removed outright, added outright, and modified (a removed line paired with an
    /// added one).
    edit_totals: [usize; 3],
}

/// The features of one hunk of `file` (the `fi`th): each changed line's kinds and words, the
/// words around it, the pairs of removed and added lines, what the hunk lost and gained.
fn hunk_features(
    fi: usize,
    file: &FileDiff<'_>,
    hunk: &Hunk<'_>,
    out: &mut Features,
    counts: &mut Counts,
    tally: &mut Tally,
) {
    let role = role_code(file.role);
    // Prose says what a change is for, not what it does: a changelog line that names the
    // fix would teach the model words, not code. Docs count by shape.
    if file.role == Role::Docs {
        if hunk.lines.iter().any(|l| l.changed) {
            tally.roles_changed[Role::Docs as usize] = true;
        }
        return;
    }
    // The changed lines read (up to the payload's budget), each tokenized once.
    let read: Vec<(usize, Vec<Token<'_>>)> = hunk
        .lines
        .iter()
        .enumerate()
        .filter(|(_, l)| l.changed)
        .take(MAX_LINES.saturating_sub(out.lines.len()))
        .map(|(li, l)| (li, tokens::tokenize(l.text)))
        .collect();
    if read.is_empty() {
        return;
    }
    let mut lost: BTreeMap<&str, usize> = BTreeMap::new();
    let mut gained: BTreeMap<&str, usize> = BTreeMap::new();
    // The changed lines of this hunk, for pairing removed with added lines.
    let mut sides: [Vec<(usize, &[Token<'_>], Kinds)>; 2] = [Vec::new(), Vec::new()];
    let context_words = context_words(hunk, Namespace::of(&["c", role]));
    for (li, toks) in &read {
        let (li, line) = (*li, &hunk.lines[*li]);
        let is_removed = line.kind == LineKind::Removed;
        let side = if is_removed { "-" } else { "+" };
        if is_removed {
            tally.removed += 1;
            tally.test_removed += usize::from(file.role == Role::Test);
        } else {
            tally.added += 1;
            tally.test_added += usize::from(file.role == Role::Test);
        }
        tally.roles_changed[file.role as usize] = true;
        let line_kinds = kinds::of(toks, matches!(file.role, Role::Config));
        let mut raised = Vec::with_capacity(2 * toks.len() + 8);
        line_features(side, role, toks, line_kinds, counts, &mut raised);
        let index = out.lines.len();
        for t in toks.iter().filter(|t| {
            matches!(
                t.kind,
                TokenKind::Word | TokenKind::StrWord | TokenKind::Ident
            )
        }) {
            let bag = if is_removed { &mut lost } else { &mut gained };
            bag.entry(&*t.text).or_insert(index);
        }
        // Words of the context lines around the change.
        let lo = li.saturating_sub(CONTEXT);
        let hi = (li + CONTEXT + 1).min(hunk.lines.len());
        for words in context_words[lo..hi].iter().flatten() {
            for &b in words {
                counts.count(b);
            }
        }
        out.lines.push(LineInfo {
            file: fi,
            line: line.new_line,
            removed: is_removed,
            text: tokens::clip(line.text.trim(), 160).to_owned(),
            kinds: line_kinds,
            partner: None,
        });
        out.line_buckets.push(raised);
        sides[usize::from(!is_removed)].push((index, toks, line_kinds));
    }
    let [removed_lines, added_lines] = &sides;
    let pairs = edits(
        role,
        removed_lines,
        added_lines,
        counts,
        &mut out.line_buckets,
        &mut tally.edit_totals,
    );
    for (r, a) in pairs {
        out.lines[r].partner = Some(a);
        out.lines[a].partner = Some(r);
    }
    hunk_summary(role, hunk, &lost, &gained, counts, out);
}

/// What a hunk lost and gained, word by word (moved words cancel out), its shape, and the
/// words of its header (git's function context).
fn hunk_summary(
    role: &str,
    hunk: &Hunk<'_>,
    lost: &BTreeMap<&str, usize>,
    gained: &BTreeMap<&str, usize>,
    counts: &mut Counts,
    out: &mut Features,
) {
    for (word, &at) in lost {
        if !gained.contains_key(word) {
            let b = counts.text(Namespace::of(&["L", role]), &[word]);
            out.line_buckets[at].push(b);
        }
    }
    for (word, &at) in gained {
        if !lost.contains_key(word) {
            let b = counts.text(Namespace::of(&["G", role]), &[word]);
            out.line_buckets[at].push(b);
        }
    }
    let shape = match (lost.is_empty(), gained.is_empty()) {
        (false, true) => "removed-only",
        (true, false) => "added-only",
        _ => "mixed",
    };
    counts.shape("hunk", &format!("{role}{shape}"), 0.5);
    for t in tokens::tokenize(hunk.header)
        .iter()
        .filter(|t| t.kind == TokenKind::Word)
    {
        counts.text(Namespace::of(&["h"]), &[&t.text]);
    }
}

/// Each context line's words as buckets of namespace `ns`, read once (a line is context for
/// up to six changes); `None` for the changed lines.
fn context_words(hunk: &Hunk<'_>, ns: Namespace) -> Vec<Option<Vec<u32>>> {
    hunk.lines
        .iter()
        .map(|l| {
            (l.kind == LineKind::Context).then(|| {
                tokens::tokenize(l.text)
                    .iter()
                    .filter(|t| t.kind == TokenKind::Word)
                    .map(|t| ns.bucket(&[&t.text]))
                    .collect()
            })
        })
        .collect()
}

/// The shape of the whole unit: how much it adds and removes, in how many files, how much of
/// it is tests, pure removal or modification, and whether one role holds every change.
/// Returns whether tests alone changed.
fn shape_features(tally: &Tally, files: usize, counts: &mut Counts) -> bool {
    let bucket_of = |n: usize| match n {
        0 => "0",
        1..=2 => "1-2",
        3..=9 => "3-9",
        10..=29 => "10-29",
        30..=99 => "30-99",
        _ => "100+",
    };
    let (added, removed) = (tally.added, tally.removed);
    counts.shape("added", bucket_of(added), 1.0);
    counts.shape("removed", bucket_of(removed), 1.0);
    counts.shape("files", bucket_of(files), 1.0);
    let total = added + removed;
    if let Some(share) = (removed * 4).checked_div(total) {
        counts.shape("removed-share", &share.to_string(), 1.0);
    }
    let tests = match (tally.test_added > 0, tally.test_removed > 0) {
        (false, false) => "none",
        (true, false) => "added",
        (false, true) => "removed",
        (true, true) => "both",
    };
    counts.shape("tests", tests, 1.0);
    let [pure_removed, pure_added, modified] = tally.edit_totals;
    counts.shape("pure-removed", bucket_of(pure_removed), 1.0);
    counts.shape("pure-added", bucket_of(pure_added), 1.0);
    counts.shape("modified", bucket_of(modified), 1.0);
    let edits_total = pure_removed + pure_added + modified;
    if let (Some(pure), Some(modified)) = (
        (pure_removed * 4).checked_div(edits_total),
        (modified * 4).checked_div(edits_total),
    ) {
        counts.shape("pure-removed-share", &pure.to_string(), 1.0);
        counts.shape("modified-share", &modified.to_string(), 1.0);
    }
    let roles_changed = &tally.roles_changed;
    let only =
        |r: Role| roles_changed[r as usize] && roles_changed.iter().filter(|x| **x).count() == 1;
    for (r, name) in [
        (Role::Test, "tests"),
        (Role::Docs, "docs"),
        (Role::Config, "config"),
        (Role::Manifest, "manifest"),
        (Role::Source, "source"),
    ] {
        if only(r) {
            counts.shape("only", name, 1.0);
        }
    }
    counts.shape("bias-shape", "", 0.0);
    only(Role::Test)
}

/// The sparse vector: the text block as sublinear counts scaled to unit length, the shape
/// block as is. Sorted first: float sums in a fixed order make the features the same on
/// every run.
fn vectorize(counts: &Counts, out: &mut Features) {
    let mut text: Vec<(u32, f32)> = counts
        .text
        .iter()
        .map(|(&b, &c)| (b, 1.0 + (c as f32).ln()))
        .collect();
    text.sort_unstable_by_key(|p| p.0);
    let norm = text.iter().map(|p| p.1 * p.1).sum::<f32>().sqrt().max(1.0);
    let mut values: Vec<(u32, f32)> = text.into_iter().map(|(b, v)| (b, v / norm)).collect();
    // Each shape bucket once, added to the text value it shares a bucket with (if any).
    for (&b, &v) in &counts.shape {
        if v != 0.0 {
            match values.binary_search_by_key(&b, |p| p.0) {
                Ok(at) => values[at].1 += v.min(3.0),
                Err(at) => values.insert(at, (b, v.min(3.0))),
            }
        }
    }
    out.index = values.iter().map(|p| p.0).collect();
    out.value = values.iter().map(|p| p.1).collect();
}

/// Path words, language and role of a changed file.
fn file_features(file: &FileDiff<'_>, counts: &mut Counts) {
    if !file.hunks.iter().flat_map(|h| &h.lines).any(|l| l.changed)
        && !file.created
        && !file.deleted
    {
        return;
    }
    let role = role_code(file.role);
    counts.shape("lang", lang_name(file.lang), 0.5);
    counts.shape("role", role, 0.5);
    if file.created {
        counts.shape("created", role, 1.0);
    }
    if file.deleted {
        counts.shape("deleted", role, 1.0);
    }
    if file.migration {
        counts.shape("migration", "", 1.0);
    }
    for part in file.path.split('/') {
        let stem = part.split('.').next().unwrap_or(part);
        for word in tokens::split_words(stem) {
            counts.text(Namespace::of(&["p"]), &[&word]);
        }
    }
}

/// The significant tokens of a line, as feature texts.
fn significant<'t>(toks: &'t [Token<'_>]) -> Vec<&'t str> {
    toks.iter()
        .filter_map(|t| match t.kind {
            TokenKind::Word | TokenKind::StrWord => Some(&*t.text),
            TokenKind::Number => Some(number_class(&t.text)),
            TokenKind::Op if significant_op(&t.text) => Some(&*t.text),
            _ => None,
        })
        .collect()
}

/// A line's significant tokens as a set: sorted, each once.
fn token_set<'a>(sig: &[&'a str]) -> Vec<&'a str> {
    let mut set = sig.to_vec();
    set.sort_unstable();
    set.dedup();
    set
}

/// Jaccard similarity of two lines' significant tokens, each given as a [`token_set`]
/// (made once per line, as a line is compared with every line on the other side).
fn similarity(a: &[&str], b: &[&str]) -> f64 {
    let (mut i, mut j, mut both) = (0, 0, 0);
    while i < a.len() && j < b.len() {
        match a[i].cmp(b[j]) {
            std::cmp::Ordering::Less => i += 1,
            std::cmp::Ordering::Greater => j += 1,
            std::cmp::Ordering::Equal => (i, j, both) = (i + 1, j + 1, both + 1),
        }
    }
    let union = a.len() + b.len() - both;
    if union == 0 {
        return 0.0;
    }
    both as f64 / union as f64
}

/// Most line comparisons made to pair one hunk's removed and added lines.
const MAX_PAIRINGS: usize = 2500;

/// What each edit of a hunk did: a line removed outright (`P-`), added outright (`P+`), or
/// modified — a removed line paired with the most similar added line — and then which kinds
/// the modification lost or gained (`Mk-`, `Mk+`), which tokens (`Mt-`, `Mt+`), and whether
/// only names changed (`Mrename`). A refactor renames and moves; a reversed fix removes a
/// guard outright or flips an operator: these features tell the two apart. Returns the
/// pairs (removed line, added line) as indices into the lines.
fn edits(
    role: &str,
    removed: &[(usize, &[Token<'_>], Kinds)],
    added: &[(usize, &[Token<'_>], Kinds)],
    counts: &mut Counts,
    line_buckets: &mut [Vec<u32>],
    totals: &mut [usize; 3],
) -> Vec<(usize, usize)> {
    let mut pairs = Vec::new();
    let r_sig: Vec<Vec<&str>> = removed.iter().map(|l| significant(l.1)).collect();
    let a_sig: Vec<Vec<&str>> = added.iter().map(|l| significant(l.1)).collect();
    let mut partner: Vec<Option<usize>> = vec![None; removed.len()];
    let mut taken = vec![false; added.len()];
    if removed.len() * added.len() <= MAX_PAIRINGS {
        let r_sets: Vec<Vec<&str>> = r_sig.iter().map(|s| token_set(s)).collect();
        let a_sets: Vec<Vec<&str>> = a_sig.iter().map(|s| token_set(s)).collect();
        for (ri, r) in r_sets.iter().enumerate() {
            let best = a_sets
                .iter()
                .enumerate()
                .filter(|(ai, _)| !taken[*ai])
                .map(|(ai, a)| (ai, similarity(r, a)))
                .fold(None, |best: Option<(usize, f64)>, (ai, sim)| match best {
                    Some((_, s)) if s >= sim => best,
                    _ => Some((ai, sim)),
                });
            if let Some((ai, sim)) = best
                && sim >= 0.4
            {
                partner[ri] = Some(ai);
                taken[ai] = true;
            }
        }
    }
    let mut emit = |line: usize, namespace: &str, text: &str| {
        let b = counts.text(Namespace::of(&[namespace, role]), &[text]);
        line_buckets[line].push(b);
    };
    for (ri, (line, _, kinds_r)) in removed.iter().enumerate() {
        let Some(ai) = partner[ri] else {
            totals[0] += 1;
            for k in kinds::iter(*kinds_r) {
                emit(*line, "P-", k.name());
            }
            continue;
        };
        totals[2] += 1;
        let (a_line, _, kinds_a) = &added[ai];
        pairs.push((*line, *a_line));
        for k in kinds::iter(kinds_r & !kinds_a) {
            emit(*line, "Mk-", k.name());
        }
        for k in kinds::iter(kinds_a & !kinds_r) {
            emit(*a_line, "Mk+", k.name());
        }
        for k in kinds::iter(kinds_r & kinds_a) {
            emit(*line, "M", k.name());
        }
        // Token multisets: what the modification took away and put in.
        let mut bag: BTreeMap<&str, i32> = BTreeMap::new();
        for t in &r_sig[ri] {
            *bag.entry(t).or_insert(0) += 1;
        }
        for t in &a_sig[ai] {
            *bag.entry(t).or_insert(0) -= 1;
        }
        let mut only_names = true;
        for (t, n) in &bag {
            if *n == 0 {
                continue;
            }
            let is_name = t
                .bytes()
                .next()
                .is_some_and(|b| b.is_ascii_alphabetic() || b == b'_');
            only_names &= is_name;
            if *n > 0 {
                emit(*line, "Mt-", t);
            } else {
                emit(*a_line, "Mt+", t);
            }
        }
        if only_names {
            emit(*line, "Mrename", "");
        }
    }
    for (ai, (line, _, kinds_a)) in added.iter().enumerate() {
        if taken[ai] {
            continue;
        }
        totals[1] += 1;
        for k in kinds::iter(*kinds_a) {
            emit(*line, "P+", k.name());
        }
    }
    pairs
}

/// Unigrams, bigrams, kinds and kind pairs of one changed line.
fn line_features(
    side: &str,
    role: &str,
    toks: &[Token<'_>],
    line_kinds: Kinds,
    counts: &mut Counts,
    raised: &mut Vec<u32>,
) {
    let unigram = |ns: &str| Namespace::of(&["u", side, role, ns]);
    let (words, string_words, idents) = (unigram(""), unigram("s"), unigram("i"));
    let bigram = Namespace::of(&["b", side, role]);
    let mut prev: Option<&str> = None;
    for t in toks {
        let text: &str = match t.kind {
            TokenKind::Word | TokenKind::StrWord | TokenKind::Ident => &t.text,
            TokenKind::Number => number_class(&t.text),
            TokenKind::Op if significant_op(&t.text) => &t.text,
            TokenKind::Op => {
                continue;
            }
        };
        let ns = match t.kind {
            TokenKind::StrWord => string_words,
            TokenKind::Ident => idents,
            _ => words,
        };
        raised.push(counts.text(ns, &[text]));
        if t.kind != TokenKind::Ident {
            if let Some(p) = prev {
                raised.push(counts.text(bigram, &[p, " ", text]));
            }
            prev = Some(text);
        }
    }
    let kind_ns = Namespace::of(&["k", side, role]);
    let pair_ns = Namespace::of(&["kk", side, role]);
    let list: Vec<Kind> = kinds::iter(line_kinds).collect();
    for (i, a) in list.iter().enumerate() {
        raised.push(counts.text(kind_ns, &[a.name()]));
        if PAIRED & a.bit() == 0 {
            continue;
        }
        for b in &list[i + 1..] {
            if PAIRED & b.bit() != 0 {
                raised.push(counts.text(pair_ns, &[a.name(), "&", b.name()]));
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const DIFF: &str = "diff --git a/src/redirect.py b/src/redirect.py\n--- a/src/redirect.py\n\
        +++ b/src/redirect.py\n@@ -10,6 +10,5 @@ def rebuild_auth(self, prepared, response):\n     \
        url = prepared.url\n     headers = prepared.headers\n\
        -    if 'Proxy-Authorization' in headers:\n-        del \
        headers['Proxy-Authorization']\n     return prepared\n";

    #[test]
    fn features_are_sorted_unit_text_and_point_at_lines() {
        let f = extract(DIFF);
        assert!(f.index.windows(2).all(|w| w[0] < w[1]));
        assert_eq!(f.index.len(), f.value.len());
        assert_eq!(f.lines.len(), 2);
        assert!(f.lines.iter().all(|l| l.removed && l.file == 0));
        assert_eq!(f.lines[0].line, 12);
        assert!(f.lines[0].kinds & Kind::Condition.bit() != 0);
        assert!(f.lines[0].kinds & Kind::Header.bit() != 0);
        assert!(f.line_buckets.iter().all(|b| !b.is_empty()));
        assert!(!f.tests_only);
        // The lost words of the hunk are features.
        assert!(f.get(bucket("Ls", "authorization")) > 0.0);
        assert!(f.get(bucket("Gs", "authorization")) == 0.0);
        // Deterministic.
        let g = extract(DIFF);
        assert_eq!(f.index, g.index);
        assert_eq!(f.value, g.value);
    }

    #[test]
    fn test_only_changes_are_told_apart() {
        let test = "diff --git a/tests/test_x.py b/tests/test_x.py\n--- a/tests/test_x.py\n\
            +++ b/tests/test_x.py\n@@ -1,2 +1,1 @@\n def test_x():\n-    assert x() == 1\n";
        assert!(extract(test).tests_only);
        let both = format!("{test}{DIFF}");
        assert!(!extract(&both).tests_only);
    }

    #[test]
    fn empty_and_odd_input() {
        let f = extract("");
        assert!(f.lines.is_empty());
        let _ = extract("diff --git a/x b/x\n@@ -1 +1 @@\n-\u{0}\n+é😀\n");
    }
}
