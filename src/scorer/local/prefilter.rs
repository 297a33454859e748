//! Which line rules can match at all, decided before any rule regex is compiled.
//!
//! Compiling every rule costs a hook process milliseconds on each run, while a typical turn
//! can only match a handful. For each rule the literals one of which *every* match must
//! contain are read from its pattern (walking the parsed syntax: a concatenation needs its
//! most selective part, an alternation needs one literal per branch, an optional part needs
//! nothing). One ASCII case-insensitive Aho-Corasick automaton over all those literals scans
//! each side's text once; only rules whose literals occur (and rules with no literal to
//! require) are compiled and run. Skipping a rule is therefore exact: it could not match.

use aho_corasick::{AhoCorasick, AhoCorasickBuilder, MatchKind};
use regex_syntax::hir::{Class, Hir, HirKind};

/// Literals shorter than this filter almost nothing; such a rule is treated as "always run".
const MIN_LITERAL: usize = 2;
/// A rule needing more alternative literals than this is treated as "always run".
const MAX_LITERALS: usize = 64;

/// Literal triggers for a list of patterns.
pub struct Prefilter {
    keywords: AhoCorasick,
    /// keyword index → pattern indexes it triggers.
    triggers: Vec<Vec<usize>>,
    /// Patterns with no required literal: always run.
    always: Vec<usize>,
    count: usize,
}

impl Prefilter {
    /// `patterns` as the line rules compile them: ASCII semantics over bytes (`unicode(false)`).
    pub fn new<'p>(patterns: impl IntoIterator<Item = &'p str>) -> Prefilter {
        let mut words: Vec<String> = Vec::new();
        let mut triggers: Vec<Vec<usize>> = Vec::new();
        let mut always = Vec::new();
        let mut count = 0;
        for (i, pattern) in patterns.into_iter().enumerate() {
            count += 1;
            let required = parse(pattern).and_then(|hir| required(&hir)).filter(|set| {
                set.len() <= MAX_LITERALS && set.iter().all(|s| s.len() >= MIN_LITERAL)
            });
            let Some(set) = required else {
                always.push(i);
                continue;
            };
            for word in set {
                match words.iter().position(|w| *w == word) {
                    Some(k) => triggers[k].push(i),
                    None => {
                        words.push(word);
                        triggers.push(vec![i]);
                    }
                }
            }
        }
        let keywords = AhoCorasickBuilder::new()
            .ascii_case_insensitive(true)
            .match_kind(MatchKind::Standard)
            .build(&words)
            .expect("the literal list is small and valid");
        Prefilter {
            keywords,
            triggers,
            always,
            count,
        }
    }

    /// Per pattern: whether it can match somewhere in `text`.
    pub fn candidates(&self, text: &str) -> Vec<bool> {
        let mut out = vec![false; self.count];
        for &i in &self.always {
            out[i] = true;
        }
        for m in self.keywords.find_overlapping_iter(text) {
            for &i in &self.triggers[m.pattern().as_usize()] {
                out[i] = true;
            }
        }
        out
    }

    /// How many patterns run on every text (for tests and benches).
    pub fn always_count(&self) -> usize {
        self.always.len()
    }
}

/// The syntax of `pattern` as a bytes regex with Unicode off parses it.
fn parse(pattern: &str) -> Option<Hir> {
    regex_syntax::ParserBuilder::new()
        .unicode(false)
        .utf8(false)
        .build()
        .parse(pattern)
        .ok()
}

/// Lower-cased literals one of which every match of `hir` contains, or `None` when no such
/// finite set is known.
fn required(hir: &Hir) -> Option<Vec<String>> {
    let set = match hir.kind() {
        HirKind::Literal(lit) => vec![String::from_utf8_lossy(&lit.0).to_ascii_lowercase()],
        HirKind::Class(class) => vec![case_letter(class)?.to_string()],
        HirKind::Capture(cap) => required(&cap.sub)?,
        HirKind::Repetition(rep) if rep.min >= 1 => required(&rep.sub)?,
        HirKind::Alternation(subs) => {
            let mut all = Vec::new();
            for sub in subs {
                all.extend(required(sub)?);
            }
            all.sort();
            all.dedup();
            all
        }
        HirKind::Concat(subs) => {
            // Runs of literal characters make longer literals; other parts offer their own
            // sets. The most selective candidate wins.
            let mut candidates: Vec<Vec<String>> = Vec::new();
            let mut run = String::new();
            for sub in subs {
                match single_text(sub) {
                    Some(text) => run.push_str(&text),
                    None => {
                        if !run.is_empty() {
                            candidates.push(vec![std::mem::take(&mut run)]);
                        }
                        if let Some(set) = required(sub) {
                            candidates.push(set);
                        }
                    }
                }
            }
            if !run.is_empty() {
                candidates.push(vec![run]);
            }
            candidates.into_iter().max_by_key(|set| {
                let shortest = set.iter().map(String::len).min().unwrap_or(0);
                (shortest.min(4), std::cmp::Reverse(set.len()), shortest)
            })?
        }
        _ => return None,
    };
    (!set.is_empty() && set.iter().all(|s| !s.is_empty())).then_some(set)
}

/// The text of a node that matches exactly one ASCII-case-insensitive string.
fn single_text(hir: &Hir) -> Option<String> {
    match hir.kind() {
        HirKind::Literal(lit) => Some(String::from_utf8_lossy(&lit.0).to_ascii_lowercase()),
        HirKind::Class(class) => case_letter(class).map(String::from),
        _ => None,
    }
}

/// A class matching one ASCII character up to case (`[Aa]`, `a`), lower-cased.
fn case_letter(class: &Class) -> Option<char> {
    let mut bytes: Vec<u8> = Vec::new();
    match class {
        Class::Unicode(c) => {
            for r in c.ranges() {
                if !r.end().is_ascii() || (r.end() as u32) - (r.start() as u32) > 1 {
                    return None;
                }
                bytes.extend((r.start() as u8)..=(r.end() as u8));
            }
        }
        Class::Bytes(c) => {
            for r in c.ranges() {
                if !r.end().is_ascii() || r.end() - r.start() > 1 {
                    return None;
                }
                bytes.extend(r.start()..=r.end());
            }
        }
    }
    let first = bytes.first()?.to_ascii_lowercase();
    bytes
        .iter()
        .all(|b| b.to_ascii_lowercase() == first)
        .then_some(char::from(first))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn req(p: &str) -> Option<Vec<String>> {
        required(&parse(p).unwrap())
    }

    #[test]
    fn reads_required_literals() {
        assert_eq!(
            req(r"InsecureSkipVerify\s*:\s*true"),
            Some(vec!["insecureskipverify".into()])
        );
        assert_eq!(
            req(r"(?i)auth|Owner"),
            Some(vec!["auth".into(), "owner".into()])
        );
        assert_eq!(req(r"\bunsafe\s*\{"), Some(vec!["unsafe".into()]));
        assert_eq!(req(r"^\s*(?:x)?\s*$"), None);
        assert_eq!(req(r"foo|\w+"), None);
        assert_eq!(req(r"(?i)kelvin"), Some(vec!["kelvin".into()]));
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
