//! Which line rules can match at all, decided before any rule regex is compiled.
//!
//! Compiling every rule costs a hook process milliseconds on each run, while a typical turn
//! can only match a handful. For each rule a condition on literals is read from its pattern
//! (walking the syntax tree: a concatenation needs all of its parts, an alternation one of
//! its branches, an optional part nothing; case is ignored). One Aho-Corasick automaton over
//! all those literals scans each side's lower-cased text once; only rules whose condition holds are
//! compiled and run. Skipping a rule is therefore exact: it could not have matched.

use std::collections::HashMap;

use aho_corasick::{AhoCorasick, AhoCorasickBuilder, AhoCorasickKind, MatchKind};
use regex_syntax::ast::{Ast, Flag, FlagsItemKind, GroupKind, RepetitionKind, RepetitionRange};

/// Literals shorter than this filter almost nothing and are treated as always present.
const MIN_LITERAL: usize = 2;

/// What a pattern needs in the text, as literal ids.
#[derive(Debug, Clone, PartialEq)]
enum Need {
    Any,
    Lit(usize),
    All(Vec<Need>),
    OneOf(Vec<Need>),
}

impl Need {
    fn holds(&self, present: &[bool]) -> bool {
        match self {
            Need::Any => true,
            Need::Lit(i) => present[*i],
            Need::All(v) => v.iter().all(|n| n.holds(present)),
            Need::OneOf(v) => v.iter().any(|n| n.holds(present)),
        }
    }
}

/// Literal conditions for a list of patterns.
pub struct Prefilter {
    keywords: AhoCorasick,
    words: usize,
    needs: Vec<Need>,
}

impl Prefilter {
    /// `patterns` as the line rules compile them: ASCII semantics over bytes (`unicode(false)`).
    pub fn new<'p>(patterns: impl IntoIterator<Item = &'p str>) -> Prefilter {
        let mut words = Words::default();
        let needs = patterns
            .into_iter()
            .map(|p| parse(p).map_or(Need::Any, |ast| need(&ast, &mut words)))
            .collect();
        // The words are lower case and so is the text scanned: cheaper to build than an
        // ASCII case-insensitive automaton.
        let keywords = AhoCorasickBuilder::new()
            .match_kind(MatchKind::Standard)
            .prefilter(false)
            // A DFA over hundreds of case-insensitive literals takes milliseconds to build,
            // more than it saves scanning a few KiB once.
            .kind(Some(AhoCorasickKind::NoncontiguousNFA))
            .build(&words.list)
            .expect("the literal list is small and valid");
        Prefilter {
            keywords,
            words: words.list.len(),
            needs,
        }
    }

    /// Per pattern: whether it can match somewhere in `text`.
    pub fn candidates(&self, text: &str) -> Vec<bool> {
        let mut present = vec![false; self.words];
        let lower = text.to_ascii_lowercase();
        for m in self.keywords.find_overlapping_iter(&lower) {
            present[m.pattern().as_usize()] = true;
        }
        self.needs.iter().map(|n| n.holds(&present)).collect()
    }

    /// How many patterns run on every text (for tests and benches).
    pub fn always_count(&self) -> usize {
        self.needs.iter().filter(|n| **n == Need::Any).count()
    }
}

/// The syntax tree of `pattern`. Only the syntax is needed: literals are compared without
/// regard to case (a superset of what the pattern matches), so flags, classes and Unicode
/// tables never have to be worked out, which keeps reading all rules well under a millisecond.
fn parse(pattern: &str) -> Option<Ast> {
    regex_syntax::ast::parse::Parser::new().parse(pattern).ok()
}

/// Distinct lower-cased literals, each with its id (its index in the automaton).
#[derive(Default)]
struct Words {
    list: Vec<String>,
    ids: HashMap<String, usize>,
}

fn literal(text: String, words: &mut Words) -> Need {
    if text.len() < MIN_LITERAL {
        return Need::Any;
    }
    let text = text.to_ascii_lowercase();
    let next = words.list.len();
    let id = *words.ids.entry(text.clone()).or_insert(next);
    if id == next {
        words.list.push(text);
    }
    Need::Lit(id)
}

/// What every match of `ast` must contain.
fn need(ast: &Ast, words: &mut Words) -> Need {
    match ast {
        Ast::Literal(lit) => literal(lit.c.to_string(), words),
        Ast::Group(group) => {
            if let GroupKind::NonCapturing(flags) = &group.kind
                && flags
                    .items
                    .iter()
                    .any(|i| i.kind == FlagsItemKind::Flag(Flag::IgnoreWhitespace))
            {
                return Need::Any;
            }
            need(&group.ast, words)
        }
        Ast::Repetition(rep) => {
            let min = match &rep.op.kind {
                RepetitionKind::ZeroOrOne | RepetitionKind::ZeroOrMore => 0,
                RepetitionKind::OneOrMore => 1,
                RepetitionKind::Range(
                    RepetitionRange::Exactly(n)
                    | RepetitionRange::AtLeast(n)
                    | RepetitionRange::Bounded(n, _),
                ) => *n,
            };
            if min >= 1 {
                need(&rep.ast, words)
            } else {
                Need::Any
            }
        }
        Ast::Alternation(alt) => {
            let mut branches = Vec::new();
            for sub in &alt.asts {
                match need(sub, words) {
                    Need::Any => return Need::Any,
                    n => branches.push(n),
                }
            }
            Need::OneOf(branches)
        }
        Ast::Concat(concat) => {
            // Runs of literal characters make longer literals; every other part adds its own.
            let mut parts = Vec::new();
            let mut run = String::new();
            for sub in &concat.asts {
                match sub {
                    Ast::Literal(lit) => run.push(lit.c),
                    Ast::Flags(flags)
                        if !flags
                            .flags
                            .items
                            .iter()
                            .any(|i| i.kind == FlagsItemKind::Flag(Flag::IgnoreWhitespace)) =>
                    {
                        // `(?i)` and friends match nothing themselves.
                    }
                    _ => {
                        parts.push(literal(std::mem::take(&mut run), words));
                        parts.push(need(sub, words));
                    }
                }
            }
            parts.push(literal(run, words));
            parts.retain(|n| *n != Need::Any);
            match parts.len() {
                0 => Need::Any,
                1 => parts.pop().unwrap_or(Need::Any),
                _ => Need::All(parts),
            }
        }
        _ => Need::Any,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn runs(patterns: &[&str], text: &str) -> Vec<bool> {
        Prefilter::new(patterns.iter().copied()).candidates(text)
    }

    #[test]
    fn conditions_follow_the_syntax() {
        let p = [
            r"InsecureSkipVerify\s*:\s*true",
            r"(?i)auth|Owner",
            r"^\s*return\s*\(\)\s*=>",
        ];
        assert_eq!(
            runs(&p, "insecureskipverify: TRUE"),
            vec![true, false, false]
        );
        assert_eq!(runs(&p, "insecureskipverify"), vec![false, false, false]);
        assert_eq!(runs(&p, "the OWNER"), vec![false, true, false]);
        // A concatenation needs all of its literals, not just one.
        assert_eq!(runs(&p, "return x"), vec![false, false, false]);
        assert_eq!(runs(&p, "return () => 1"), vec![false, false, true]);
        assert_eq!(
            Prefilter::new([r"^\s*(?:x)?\s*$", r"foo|\w+"]).always_count(),
            2
        );
    }

    #[test]
    fn skipped_patterns_cannot_match() {
        let patterns = [
            r"(?i)skip_?verify",
            r"\bfoo(?:bar)?\b",
            r"^\s*$",
            r"(?i)s[aeiou]fe",
        ];
        let pre = Prefilter::new(patterns);
        assert_eq!(pre.always_count(), 1);
        for text in ["SKIPVERIFY", "nothing here", "foobar", "SAFE", "ſafe", "x"] {
            let c = pre.candidates(text);
            for (i, p) in patterns.iter().enumerate() {
                let re = regex::bytes::RegexBuilder::new(p)
                    .unicode(false)
                    .build()
                    .unwrap();
                if re.is_match(text.as_bytes()) {
                    assert!(c[i], "{p} on {text}");
                }
            }
        }
        assert_eq!(pre.candidates("nothing"), vec![false, false, true, false]);
    }
}
