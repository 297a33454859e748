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
            .map(|p| need_of(p, &mut words))
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

/// What every match of `pattern` must contain, read by a small reader of the regex syntax
/// the rules use (groups and flags, alternation, classes, escapes, quantifiers). Literals are
/// compared without regard to case, a superset of what the pattern matches, so flags and
/// classes never have to be worked out. The regex crate's own parser would take milliseconds
/// for all rules; the tests check this reader agrees with it on every rule.
fn need_of(pattern: &str, words: &mut Words) -> Need {
    let chars: Vec<char> = pattern.chars().collect();
    let mut reader = Reader { chars, at: 0 };
    match reader.alternation(words) {
        Some(need) if reader.at == reader.chars.len() => need,
        _ => Need::Any,
    }
}

struct Reader {
    chars: Vec<char>,
    at: usize,
}

/// One element of a concatenation.
enum Item {
    Char(char),
    /// Matches nothing by itself (`(?i)`).
    Flags,
    Other(Need),
}

impl Reader {
    fn peek(&self) -> Option<char> {
        self.chars.get(self.at).copied()
    }

    fn eat(&mut self, c: char) -> bool {
        let yes = self.peek() == Some(c);
        self.at += usize::from(yes);
        yes
    }

    fn alternation(&mut self, words: &mut Words) -> Option<Need> {
        let mut branches = vec![self.concat(words)?];
        while self.eat('|') {
            branches.push(self.concat(words)?);
        }
        if branches.len() == 1 {
            return branches.pop();
        }
        if branches.contains(&Need::Any) {
            return Some(Need::Any);
        }
        Some(Need::OneOf(branches))
    }

    fn concat(&mut self, words: &mut Words) -> Option<Need> {
        let mut parts = Vec::new();
        let mut run = String::new();
        while let Some(c) = self.peek() {
            if c == '|' || c == ')' {
                break;
            }
            match self.item(words)? {
                Item::Char(c) => run.push(c),
                Item::Flags => {}
                Item::Other(need) => {
                    parts.push(literal(std::mem::take(&mut run), words));
                    parts.push(need);
                }
            }
        }
        parts.push(literal(run, words));
        parts.retain(|n| *n != Need::Any);
        Some(match parts.len() {
            0 => Need::Any,
            1 => parts.pop().unwrap_or(Need::Any),
            _ => Need::All(parts),
        })
    }

    /// An atom and its quantifier.
    fn item(&mut self, words: &mut Words) -> Option<Item> {
        let atom = self.atom(words)?;
        let min = match self.peek() {
            Some('*') | Some('?') => {
                self.at += 1;
                0
            }
            Some('+') => {
                self.at += 1;
                1
            }
            Some('{') => {
                let close = self.chars[self.at..].iter().position(|&c| c == '}')? + self.at;
                let body: String = self.chars[self.at + 1..close].iter().collect();
                self.at = close + 1;
                body.split(',').next()?.trim().parse::<u32>().ok()?
            }
            _ => return Some(atom),
        };
        self.eat('?');
        let need = match atom {
            Item::Char(c) => literal(c.to_string(), words),
            Item::Flags => return None,
            Item::Other(need) => need,
        };
        Some(Item::Other(if min >= 1 { need } else { Need::Any }))
    }

    fn atom(&mut self, words: &mut Words) -> Option<Item> {
        let c = self.peek()?;
        self.at += 1;
        Some(match c {
            '(' => {
                if self.eat('?') {
                    if self.eat('P') || self.peek() == Some('<') {
                        let close = self.chars[self.at..].iter().position(|&c| c == '>')?;
                        self.at += close + 1;
                    } else {
                        while let Some(f) = self.peek() {
                            match f {
                                ':' => break,
                                ')' => {
                                    self.at += 1;
                                    return Some(Item::Flags);
                                }
                                'x' => return None,
                                _ => self.at += 1,
                            }
                        }
                        self.eat(':');
                    }
                }
                let need = self.alternation(words)?;
                if !self.eat(')') {
                    return None;
                }
                Item::Other(need)
            }
            '[' => {
                self.skip_class()?;
                Item::Other(Need::Any)
            }
            '\\' => {
                let e = self.peek()?;
                self.at += 1;
                match e {
                    'x' => {
                        let digits: String = if self.eat('{') {
                            let close =
                                self.chars[self.at..].iter().position(|&c| c == '}')? + self.at;
                            let d = self.chars[self.at..close].iter().collect();
                            self.at = close + 1;
                            d
                        } else {
                            let d = self.chars.get(self.at..self.at + 2)?.iter().collect();
                            self.at += 2;
                            d
                        };
                        Item::Char(char::from_u32(u32::from_str_radix(&digits, 16).ok()?)?)
                    }
                    'n' => Item::Char('\n'),
                    't' => Item::Char('\t'),
                    'r' => Item::Char('\r'),
                    'p' | 'P' => {
                        if self.eat('{') {
                            let close = self.chars[self.at..].iter().position(|&c| c == '}')?;
                            self.at += close + 1;
                        } else {
                            self.at += 1;
                        }
                        Item::Other(Need::Any)
                    }
                    e if e.is_ascii_alphanumeric() => Item::Other(Need::Any),
                    e => Item::Char(e),
                }
            }
            '.' | '^' | '$' => Item::Other(Need::Any),
            c => Item::Char(c),
        })
    }

    /// Skips a bracketed class, nested classes included; the reader is just past its `[`.
    fn skip_class(&mut self) -> Option<()> {
        self.eat('^');
        self.eat(']');
        loop {
            match self.peek()? {
                ']' => {
                    self.at += 1;
                    return Some(());
                }
                '\\' => self.at += 2,
                '[' => {
                    self.at += 1;
                    if self.eat(':') {
                        let close = self.chars[self.at..].iter().position(|&c| c == ']')?;
                        self.at += close + 1;
                    } else {
                        self.skip_class()?;
                    }
                }
                _ => self.at += 1,
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    // The reference: the regex crate's own parser, walked the same way.
    use regex_syntax::ast::{Ast, Flag, FlagsItemKind, GroupKind, RepetitionKind, RepetitionRange};

    /// The syntax tree of `pattern`. Only the syntax is needed: literals are compared without
    /// regard to case (a superset of what the pattern matches), so flags, classes and Unicode
    /// tables never have to be worked out, which keeps reading all rules well under a millisecond.
    fn parse(pattern: &str) -> Option<Ast> {
        regex_syntax::ast::parse::Parser::new().parse(pattern).ok()
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

    #[test]
    fn the_reader_agrees_with_the_regex_parser_on_every_rule() {
        for side in [
            crate::scorer::local::line_rules::Side::Added,
            crate::scorer::local::line_rules::Side::Removed,
        ] {
            let rules: Vec<_> = crate::scorer::local::line_rules::RULES
                .iter()
                .filter(|r| r.side == side)
                .collect();
            let mut mine = Words::default();
            let mut theirs = Words::default();
            for rule in &rules {
                for p in std::iter::once(rule.pattern).chain(rule.unless) {
                    let a = need_of(p, &mut mine);
                    let b = parse(p).map_or(Need::Any, |ast| need(&ast, &mut theirs));
                    assert_eq!(named(&a, &mine), named(&b, &theirs), "{}: {p}", rule.id);
                }
            }
        }
    }

    /// A condition with its literals spelled out (ids depend on insertion order).
    fn named(need: &Need, words: &Words) -> String {
        match need {
            Need::Any => "*".into(),
            Need::Lit(i) => format!("{:?}", words.list[*i]),
            Need::All(v) => format!(
                "all({})",
                v.iter()
                    .map(|n| named(n, words))
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
            Need::OneOf(v) => format!(
                "one({})",
                v.iter()
                    .map(|n| named(n, words))
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
        }
    }

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
