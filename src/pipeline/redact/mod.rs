//! Removes secrets from every byte that leaves the machine, keeping ordinary code intact.
//!
//! One pass finds every keyword of every rule (an Aho-Corasick automaton over the whole
//! text, ASCII case-insensitive). Only lines holding a keyword are examined further, and only
//! with the rules those keywords belong to; each rule's regex is compiled the first time a
//! keyword of it is seen, so building a [`Redactor`] costs one small automaton. Patterns run
//! on the `regex` crate, whose matching time is linear in the input, except the two that see
//! every line naming a credential: `generic-secret` and `secret-near-keyword` run as
//! hand-written scans of their patterns, which stay in the rule table as the reference.

mod assignment;
mod catalog;
mod name;
mod value;

use std::borrow::Cow;
use std::collections::BTreeMap;
use std::sync::OnceLock;

use aho_corasick::automaton::Automaton;
use aho_corasick::dfa::DFA;
use aho_corasick::{Anchored, MatchKind};
use regex::bytes::{CaptureLocations, Regex};

use catalog::{Check, RULES, Rule};
use name::*;
use value::*;

/// Counts of redactions per marker type; never the secret itself.
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize)]
pub struct RedactionReport {
    pub counts: BTreeMap<String, usize>,
}

impl RedactionReport {
    pub fn total(&self) -> usize {
        self.counts.values().sum()
    }

    fn add(&mut self, id: &str) {
        *self.counts.entry(id.to_owned()).or_default() += 1;
    }
}

/// The compiled redaction rules.
pub struct Redactor {
    /// The keyword automaton: ASCII case-insensitive, leftmost-longest.
    keywords: DFA,
    words: Vec<&'static str>,
    /// For each keyword pattern, the rules it names itself.
    own: Vec<Vec<usize>>,
    /// For each keyword pattern, the rules it triggers: its own and those of every keyword
    /// inside it; worked out the first time the keyword is seen.
    triggers: Vec<OnceLock<Vec<usize>>>,
    compiled: Vec<OnceLock<Compiled>>,
}

impl std::fmt::Debug for Redactor {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Redactor")
            .field("rules", &RULES.len())
            .field("keywords", &self.words.len())
            .finish()
    }
}

impl Default for Redactor {
    fn default() -> Self {
        Redactor::new()
    }
}

/// A byte range to replace and the marker that replaces it.
#[derive(Debug, Clone, Copy)]
struct Span {
    start: usize,
    end: usize,
    rule: usize,
}

/// A rule's regex and the indices of its named groups, looked up once.
struct Compiled {
    regex: Regex,
    s: Option<usize>,
    n: Option<usize>,
    v: Option<usize>,
}

/// A matched group: its byte range in the line.
#[derive(Debug, Clone, Copy)]
struct Group<'h> {
    line: &'h [u8],
    start: usize,
    end: usize,
}

impl<'h> Group<'h> {
    fn start(&self) -> usize {
        self.start
    }

    fn end(&self) -> usize {
        self.end
    }

    fn as_bytes(&self) -> &'h [u8] {
        &self.line[self.start..self.end]
    }

    fn is_empty(&self) -> bool {
        self.start == self.end
    }
}

/// The groups of one match, read from capture locations reused across matches (no
/// allocation per match).
struct Caps<'a, 'h> {
    locs: &'a CaptureLocations,
    line: &'h [u8],
}

impl<'h> Caps<'_, 'h> {
    fn get(&self, group: usize) -> Option<Group<'h>> {
        self.locs.get(group).map(|(start, end)| Group {
            line: self.line,
            start,
            end,
        })
    }

    fn named(&self, group: Option<usize>) -> Option<Group<'h>> {
        group.and_then(|g| self.get(g))
    }
}

/// The keyword automaton. Without a prefilter only dead and match states are special, which
/// [`keyword_hits`] relies on.
fn keyword_automaton(words: &[&str]) -> DFA {
    DFA::builder()
        .ascii_case_insensitive(true)
        .match_kind(MatchKind::LeftmostLongest)
        .prefilter(false)
        .build(words)
        .expect("the keyword list is small and valid")
}

/// A keyword match: where it starts and ends, and which keyword it is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Hit {
    start: usize,
    end: usize,
    pattern: usize,
}

/// One leftmost-longest search of the keyword automaton over `at..end`, restarted after
/// each match as `find_iter` does.
struct Search {
    at: usize,
    end: usize,
    state: aho_corasick::automaton::StateID,
    /// The longest match seen since the search (re)started.
    pending: Option<Hit>,
    done: bool,
}

impl Search {
    fn new(dfa: &DFA, at: usize, end: usize) -> Search {
        Search {
            at,
            end,
            state: dfa
                .start_state(Anchored::No)
                .expect("unanchored searches are supported"),
            pending: None,
            done: at >= end,
        }
    }

    /// Reads one byte.
    #[inline(always)]
    fn step(&mut self, dfa: &DFA, haystack: &[u8], hits: &mut Vec<Hit>) {
        self.state = dfa.next_state(Anchored::No, self.state, haystack[self.at]);
        self.at += 1;
        if dfa.is_special(self.state) {
            if dfa.is_dead(self.state) {
                self.restart(dfa, hits);
            } else if dfa.is_match(self.state) {
                let pattern = dfa.match_pattern(self.state, 0);
                self.pending = Some(Hit {
                    start: self.at - dfa.pattern_len(pattern),
                    end: self.at,
                    pattern: pattern.as_usize(),
                });
            }
        }
        if self.at >= self.end && !self.done {
            self.restart(dfa, hits);
        }
    }

    /// Reports the pending match and searches again from its end; without one, the search
    /// is over (the automaton dies only after a match, or the end was reached).
    fn restart(&mut self, dfa: &DFA, hits: &mut Vec<Hit>) {
        match self.pending.take() {
            Some(hit) => {
                hits.push(hit);
                self.at = hit.end;
                self.state = dfa
                    .start_state(Anchored::No)
                    .expect("unanchored searches are supported");
                self.done = self.at >= self.end;
            }
            None => self.done = true,
        }
    }
}

/// The keyword matches of `find_iter` over `bytes`, found by two searches run side by side
/// over the halves of the text, split after a newline. A keyword holds no newline, so no
/// match crosses the split and each half's matches are the whole text's there. Each step of
/// a search waits on the previous one's table lookup; two independent searches overlap
/// those waits.
fn keyword_hits(dfa: &DFA, bytes: &[u8]) -> Vec<Hit> {
    let split = bytes[bytes.len() / 2..]
        .iter()
        .position(|&b| b == b'\n')
        .map_or(bytes.len(), |p| bytes.len() / 2 + p + 1);
    let (mut first, mut second) = (Vec::new(), Vec::new());
    let mut a = Search::new(dfa, 0, split);
    let mut b = Search::new(dfa, split, bytes.len());
    while !a.done && !b.done {
        a.step(dfa, bytes, &mut first);
        b.step(dfa, bytes, &mut second);
    }
    while !a.done {
        a.step(dfa, bytes, &mut first);
    }
    while !b.done {
        b.step(dfa, bytes, &mut second);
    }
    first.append(&mut second);
    first
}

/// Longest run of lines a PEM body may span before we stop treating lines as key material.
const PEM_MAX_LINES: usize = 200;

impl Redactor {
    pub fn new() -> Redactor {
        let mut words: Vec<&'static str> = Vec::new();
        let mut triggers: Vec<Vec<usize>> = Vec::new();
        for (index, rule) in RULES.iter().enumerate() {
            // A provider's name alone sends a line to the near-keyword scan too: gitleaks'
            // keyword rules bind a token to a bare `fastly:` or `"twitch" =>`.
            let providers = match rule.check {
                Check::NearKeyword => catalog::KEYWORD_PROVIDERS,
                _ => &[],
            };
            for keyword in rule.keywords.iter().chain(providers) {
                match words.iter().position(|w| w == keyword) {
                    Some(at) => triggers[at].push(index),
                    None => {
                        words.push(keyword);
                        triggers.push(vec![index]);
                    }
                }
            }
        }
        let keywords = keyword_automaton(&words);
        Redactor {
            keywords,
            triggers: words.iter().map(|_| OnceLock::new()).collect(),
            words,
            own: triggers,
            compiled: RULES.iter().map(|_| OnceLock::new()).collect(),
        }
    }

    /// The rules keyword `pattern` triggers. Matches do not overlap, so a keyword also
    /// triggers the rules of every keyword inside it (`dd_api_key` runs the `key` rules too).
    fn triggers(&self, pattern: usize) -> &[usize] {
        self.triggers[pattern].get_or_init(|| {
            let outer = self.words[pattern];
            let mut rules = self.own[pattern].clone();
            for (j, inner) in self.words.iter().enumerate() {
                if j != pattern && inner.len() < outer.len() && outer.contains(inner) {
                    rules.extend_from_slice(&self.own[j]);
                }
            }
            rules.sort_unstable();
            rules.dedup();
            rules
        })
    }

    fn regex(&self, rule: usize) -> &Compiled {
        self.compiled[rule].get_or_init(|| {
            let rule = &RULES[rule];
            let regex = rule.compile().unwrap_or_else(|e| {
                panic!("catalog.rules line {}: rule `{}`: {e}", rule.line, rule.id)
            });
            let group = |name: &str| regex.capture_names().position(|n| n == Some(name));
            Compiled {
                s: group("s"),
                n: group("n"),
                v: group("v"),
                regex,
            }
        })
    }

    /// Compiles every rule now and returns each rule's compile time; for benchmarks and tests
    /// (normal use compiles a rule the first time one of its keywords is seen).
    #[doc(hidden)]
    pub fn compile_all(&self) -> Vec<(&'static str, std::time::Duration)> {
        (0..RULES.len())
            .map(|index| {
                let start = std::time::Instant::now();
                self.regex(index);
                (RULES[index].id, start.elapsed())
            })
            .collect()
    }

    /// Reads the embedded rules file again and returns how many rules it holds; for the
    /// benchmark of that cost (normal use pays it once per process, in the first `new`).
    #[doc(hidden)]
    pub fn read_rules() -> usize {
        catalog::read_again()
    }

    /// Replaces each secret in `text` with a typed marker such as `[REDACTED:github-token]`.
    pub fn redact<'a>(&self, text: &'a str, report: &mut RedactionReport) -> Cow<'a, str> {
        let bytes = text.as_bytes();
        let mut spans: Vec<Span> = Vec::new();
        let mut hits = keyword_hits(&self.keywords, bytes).into_iter().peekable();
        // Lines up to this offset were already handled (as a PEM body).
        let mut done = 0usize;
        let mut rules_on_line: Vec<usize> = Vec::new();
        // Capture locations per rule, allocated the first time the rule runs in this call.
        let mut locations: Vec<Option<CaptureLocations>> = Vec::new();
        locations.resize_with(RULES.len(), || None);
        while let Some(hit) = hits.next() {
            if hit.start < done {
                continue;
            }
            let line_start = bytes[..hit.start]
                .iter()
                .rposition(|&b| b == b'\n')
                .map_or(0, |p| p + 1);
            let line_end = line_end(bytes, hit.start);
            rules_on_line.clear();
            rules_on_line.extend_from_slice(self.triggers(hit.pattern));
            while let Some(next) = hits.peek() {
                if next.start >= line_end {
                    break;
                }
                rules_on_line.extend_from_slice(self.triggers(next.pattern));
                hits.next();
            }
            rules_on_line.sort_unstable();
            rules_on_line.dedup();
            let line = &bytes[line_start..line_end];
            let mut pem_open = false;
            for &rule in &rules_on_line {
                pem_open |= self.apply(rule, line, line_start, &mut spans, &mut locations);
            }
            done = line_end;
            if pem_open {
                done = pem_body(bytes, line_end, &mut spans);
            }
        }
        if spans.is_empty() {
            return Cow::Borrowed(text);
        }
        Cow::Owned(render(text, spans, report))
    }

    /// Runs one rule on one line; true when a private key's body continues past the line.
    fn apply(
        &self,
        index: usize,
        line: &[u8],
        offset: usize,
        spans: &mut Vec<Span>,
        locations: &mut [Option<CaptureLocations>],
    ) -> bool {
        let rule: &Rule = &RULES[index];
        match rule.check {
            Check::NearKeyword => {
                self.near_keyword(index, line, offset, spans);
                return false;
            }
            Check::Assignment => {
                assignments(index, line, offset, spans);
                return false;
            }
            _ => {}
        }
        let compiled = self.regex(index);
        let locs = locations[index].get_or_insert_with(|| compiled.regex.capture_locations());
        let mut open = false;
        // The matches `captures_iter` would yield, read into reused locations.
        let mut at = 0;
        let mut last_end: Option<usize> = None;
        while at <= line.len() {
            let Some(m) = compiled.regex.captures_read_at(locs, line, at) else {
                break;
            };
            if m.start() == m.end() {
                // An empty match right after the previous match is skipped, as the
                // iterator does; either way the search moves on by one byte.
                at = m.end() + 1;
                if last_end == Some(m.end()) {
                    continue;
                }
            } else {
                at = m.end();
            }
            last_end = Some(m.end());
            let caps = Caps { locs, line };
            let whole = caps.get(0).expect("group 0 always matches");
            let target = match rule.check {
                // The first group that took part holds the password.
                Check::CommandLine => (1..locs.len()).find_map(|g| caps.get(g)).unwrap_or(whole),
                _ => caps.named(compiled.s).unwrap_or(whole),
            };
            let keep = match rule.check {
                Check::Exact => true,
                Check::Opaque => looks_opaque(target.as_bytes()),
                Check::BasicAuth => basic_credentials(target.as_bytes()),
                Check::UrlPassword => {
                    let user = caps.named(compiled.n).map_or(&b""[..], |n| n.as_bytes());
                    url_password(user, target.as_bytes())
                }
                Check::ConnectionString => connection_password(line, target.as_bytes()),
                // Matched by hand above.
                Check::Assignment | Check::NearKeyword => false,
                Check::AttributePair => {
                    attribute_pair(&caps, compiled, index, offset, spans);
                    false
                }
                Check::CommandLine => {
                    let v = target.as_bytes();
                    v.len() >= 4 && !is_placeholder(v) && !v.contains(&b'$')
                }
                Check::PrivateKey => {
                    let ended = whole.as_bytes().ends_with(b"-----")
                        && find(whole.as_bytes(), b"-----END").is_some();
                    // Without its END on this line, the rest of the line must be key material
                    // (or nothing) for this to be a key rather than code that names the marker.
                    let material = ended || pem_material(target.as_bytes()).is_some();
                    open = !ended && material;
                    material
                }
            };
            // Documented examples and filler (`AKIA…EXAMPLE`, `ghp_XXXX…`) are never secrets;
            // a key's body is judged by `pem_material` instead.
            if keep
                && !target.is_empty()
                && (rule.check == Check::PrivateKey || !is_filler(target.as_bytes()))
            {
                spans.push(Span {
                    start: offset + target.start(),
                    end: offset + target.end(),
                    rule: index,
                });
            }
        }
        open
    }
}

/// A `name="…" value="…"` pair (an XML or config element): the value is a span when the name
/// is a strong secret name and the value reads as a secret. The match itself is never one.
fn attribute_pair(
    caps: &Caps<'_, '_>,
    compiled: &Compiled,
    index: usize,
    offset: usize,
    spans: &mut Vec<Span>,
) {
    let name = caps.named(compiled.n).map_or(&b""[..], |n| n.as_bytes());
    let value = caps.named(compiled.v).map_or(&b""[..], |v| v.as_bytes());
    if let Some(v) = caps
        .named(compiled.v)
        .filter(|_| classify_name(name) == NameKind::Strong && quoted_or_literal_is_secret(value))
    {
        spans.push(Span {
            start: offset + v.start(),
            end: offset + v.end(),
            rule: index,
        });
    }
}

/// `name <op> value` bindings on a line whose value is a secret. The rule's pattern runs as
/// the hand-written matcher in [`assignment`], which finds the same matches and groups.
fn assignments(index: usize, line: &[u8], offset: usize, spans: &mut Vec<Span>) {
    let mut words = Vec::new();
    assignment::word_starts(line, &mut words);
    let mut at = 0;
    while let Some(m) = assignment::find_at(line, at, &words) {
        // Matches are never empty: the name holds a credential word.
        at = m.end;
        if let Some((start, end)) = assignment_value(&m, line)
            && !is_filler(&line[start..end])
        {
            spans.push(Span {
                start: offset + start,
                end: offset + end,
                rule: index,
            });
        }
    }
}

impl Redactor {
    /// Random-looking tokens on a line that names a credential or a provider. This scan is
    /// the rule's pattern written out by hand: it runs on every line that names a credential,
    /// where a byte loop with cheap rejections costs a fraction of a regex search.
    fn near_keyword(&self, index: usize, line: &[u8], offset: usize, spans: &mut Vec<Span>) {
        let mut at = 0;
        while at < line.len() {
            let Some(skip) = line[at..].iter().position(|&b| is_token_byte(b)) else {
                break;
            };
            let run_start = at + skip;
            at = line[run_start..]
                .iter()
                .position(|&b| !is_token_byte(b))
                .map_or(line.len(), |p| run_start + p);
            if at - run_start < MIN_NEAR_TOKEN {
                continue;
            }
            // Leading `=` belongs to an assignment, not to the token; so does a leading
            // `NAME=` (`AWS_BEARER_TOKEN=…` is one run of token bytes).
            let mut start = run_start;
            if let Some(eq) = line[run_start..at].iter().position(|&b| b == b'=')
                && line
                    .get(run_start + eq + 1)
                    .is_some_and(u8::is_ascii_alphanumeric)
            {
                // The name may carry the diff's `+`; a random name is a token, not a name.
                let name = line[run_start..run_start + eq].trim_ascii_start();
                let name = &name[name.iter().take_while(|&&b| b == b'+' || b == b'-').count()..];
                if is_name(name)
                    && !name
                        .split(|&b| matches!(b, b'_' | b'-' | b'.'))
                        .any(random_segment)
                {
                    start = run_start + eq + 1;
                }
            }
            while start < at && line[start] == b'=' {
                start += 1;
            }
            let end = at;
            let opens = start > run_start
                || start == 0
                || matches!(
                    line[start - 1],
                    b' ' | b'\t'
                        | b'"'
                        | b'\''
                        | b'`'
                        | b':'
                        | b'('
                        | b','
                        | b'['
                        | b'{'
                        | b'>'
                        | b'|'
                );
            let closes = end == line.len()
                || matches!(
                    line[end],
                    b' ' | b'\t'
                        | b'\r'
                        | b'"'
                        | b'\''
                        | b'`'
                        | b';'
                        | b','
                        | b')'
                        | b']'
                        | b'}'
                        | b'<'
                        | b'&'
                        | b'\\'
                );
            // Base64 may begin with `+`, `/` or `-`; a run of those is no token.
            if end - start < MIN_NEAR_TOKEN
                || end - start > 512
                || !(line[start].is_ascii_alphanumeric()
                    || (matches!(line[start], b'+' | b'/' | b'-' | b'_')
                        && !line[start..].starts_with(b"//")
                        && line[start + 1..end.min(start + 3)]
                            .iter()
                            .any(u8::is_ascii_alphanumeric)))
                || !opens
                || !closes
            {
                continue;
            }
            let token = &line[start..end];
            if random_token(&line[..start], token)
                && !is_filler(token)
                && mentions_near_keyword(&line[..start], &line[end..])
            {
                spans.push(Span {
                    start: offset + start,
                    end: offset + end,
                    rule: index,
                });
            }
        }
    }
}

/// The shortest random token the near-keyword scan considers: fourteen characters, the
/// length of the shortest keyword-anchored formats (LinkedIn, Dropbox app keys).
const MIN_NEAR_TOKEN: usize = 14;

fn is_token_byte(b: u8) -> bool {
    TOKEN_BYTES[usize::from(b)]
}

/// The bytes a token may hold: ASCII letters and digits and `_ + / = . ~ -`.
static TOKEN_BYTES: [bool; 256] = {
    let mut table = [false; 256];
    let mut b = 0;
    while b < 256 {
        let c = b as u8;
        table[b] = c.is_ascii_alphanumeric()
            || matches!(c, b'_' | b'+' | b'/' | b'=' | b'.' | b'~' | b'-');
        b += 1;
    }
    table
};

/// The offset of the `\n` ending the line that holds `at`, or the text's end.
fn line_end(bytes: &[u8], at: usize) -> usize {
    bytes[at..]
        .iter()
        .position(|&b| b == b'\n')
        .map_or(bytes.len(), |p| at + p)
}

/// Marks the body lines of a PEM key that began on the previous line, up to its END line;
/// returns the offset up to which lines were consumed.
fn pem_body(bytes: &[u8], mut at: usize, spans: &mut Vec<Span>) -> usize {
    let rule = RULES
        .iter()
        .position(|r| r.check == Check::PrivateKey)
        .expect("a private-key rule exists");
    for _ in 0..PEM_MAX_LINES {
        if at >= bytes.len() {
            break;
        }
        let start = at + 1;
        if start > bytes.len() {
            break;
        }
        let end = line_end(bytes, start);
        let line = &bytes[start..end];
        if line.starts_with(b"diff --git ") || line.starts_with(b"@@ ") {
            return at;
        }
        let skip = usize::from(matches!(line.first(), Some(b'+' | b'-' | b' ')));
        let body = &line[skip.min(line.len())..];
        let end_at = find(body, b"-----END");
        if end_at.is_none() && pem_material(body).is_none() {
            // Not key material: the block was not a key after all, or it is cut short.
            return at;
        }
        if let Some(pos) = end_at {
            if pos > 0 {
                spans.push(Span {
                    start: start + skip,
                    end: start + skip + pos,
                    rule,
                });
            }
            return end;
        }
        if !body.is_empty() {
            spans.push(Span {
                start: start + skip,
                end,
                rule,
            });
        }
        at = end;
    }
    at
}

/// For a line inside a PEM block: `Some(len)` of its base64 or `Header: value` content once
/// quotes, commas, `\n` escapes and whitespace around it are ignored (`Some(0)` for a blank
/// line); `None` when the line is something else.
fn pem_material(line: &[u8]) -> Option<usize> {
    let trim = |b: &u8| b.is_ascii_whitespace() || matches!(b, b'"' | b'\'' | b',' | b'+' | b'`');
    let mut body = line;
    while let Some((first, rest)) = body.split_first() {
        if trim(first) {
            body = rest;
        } else if body.starts_with(b"\\n") {
            body = &body[2..];
        } else {
            break;
        }
    }
    while let Some((last, rest)) = body.split_last() {
        if trim(last) {
            body = rest;
        } else if body.ends_with(b"\\n") {
            body = &body[..body.len() - 2];
        } else {
            break;
        }
    }
    if body.is_empty() {
        return Some(0);
    }
    let header = body.windows(2).position(|w| w == b": ").is_some_and(|at| {
        body[..at]
            .iter()
            .all(|b| b.is_ascii_alphanumeric() || *b == b'-')
    });
    let base64 = body.len() >= 16
        && body
            .iter()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'+' | b'/' | b'=' | b'\\'));
    (header || base64).then_some(body.len())
}

fn find(haystack: &[u8], needle: &[u8]) -> Option<usize> {
    // The first byte decides most windows without a call to compare slices.
    haystack
        .windows(needle.len())
        .position(|w| w[0] == needle[0] && w == needle)
}

/// Builds the output from non-overlapping spans; overlapping spans merge and keep the marker
/// of the earlier (more specific) rule.
fn render(text: &str, mut spans: Vec<Span>, report: &mut RedactionReport) -> String {
    spans.sort_by_key(|s| (s.start, std::cmp::Reverse(s.end)));
    let mut merged: Vec<Span> = Vec::with_capacity(spans.len());
    for mut span in spans {
        while span.start > 0 && !text.is_char_boundary(span.start) {
            span.start -= 1;
        }
        while span.end < text.len() && !text.is_char_boundary(span.end) {
            span.end += 1;
        }
        match merged.last_mut() {
            Some(last) if span.start < last.end => {
                last.end = last.end.max(span.end);
                last.rule = last.rule.min(span.rule);
            }
            _ => merged.push(span),
        }
    }
    let mut out = String::with_capacity(text.len());
    let mut at = 0;
    for span in merged {
        let id = RULES[span.rule].id;
        out.push_str(&text[at..span.start]);
        out.push_str("[REDACTED:");
        out.push_str(id);
        out.push(']');
        report.add(id);
        at = span.end;
    }
    out.push_str(&text[at..]);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_split_into_words() {
        let words = |s: &str| {
            split_words(s.as_bytes())
                .into_iter()
                .map(|w| String::from_utf8(w).unwrap())
                .collect::<Vec<_>>()
        };
        assert_eq!(words("apiKey"), ["api", "key"]);
        assert_eq!(words("APIKey"), ["api", "key"]);
        assert_eq!(words("GITHUB_TOKEN"), ["github", "token"]);
        assert_eq!(words("x-api-key"), ["x", "api", "key"]);
        assert_eq!(words("tokenCount"), ["token", "count"]);
    }

    #[test]
    fn names_are_classified() {
        for (kind, names) in [
            (
                NameKind::Strong,
                "password apiKey STRIPE_KEY client_secret accesstoken",
            ),
            (NameKind::Weak, "key"),
            (
                NameKind::None,
                "tokenCount secret_len primary_key token_url isPasswordValid",
            ),
        ] {
            for name in names.split_whitespace() {
                assert_eq!(classify_name(name.as_bytes()), kind, "{name}");
            }
        }
    }

    #[test]
    fn random_tokens_are_told_from_code() {
        for (value, random) in [
            ("jp7vkumolzcpwvxnvacrsr4tp7vyfovq", true),
            ("a8f5f167f44f4964e6c998dee827110c", true),
            ("OOpiANnp22PiU6L2jwhq21==", true),
            ("token_v2_migration_20240101", false),
            ("RSA_PSS_2048_8192_SHA384_LEGACY_KEY", false),
            ("0x60624cfa_a477_47b1_8a8e_3a4a19981827", false),
            ("550e8400-e29b-41d4-a716-446655440000", false),
            ("sha512-Fk8zv7wPa2Rk3NnJ0bK4y9Qx1LmTt6Vc", false),
            ("1.2.3-beta.4+build.5678", false),
            ("process.env.GITHUB_TOKEN", false),
            ("AAAAC3NzaC1lZDI1NTE5AAAAIFake", false),
        ] {
            assert_eq!(random_token(b"x = ", value.as_bytes()), random, "{value}");
        }
        assert!(!random_token(
            b"Suite::",
            b"Chacha20Poly1305Chacha20Poly1305"
        ));
        assert!(!random_token(
            b"@sha256:",
            b"4a3b2c1d0e9f8a7b6c5d4e3f2a1b0c9d"
        ));
    }

    #[test]
    fn number_literals_are_not_values() {
        for (value, number) in [
            ("0xC0000465_u32", true),
            ("16384u32", true),
            ("1048576i32", true),
            ("3.5f64", true),
            ("12345", true),
            ("hunter2hunter2", false),
            ("9f2c4e6a8b0d1f3a", false),
        ] {
            assert_eq!(is_number_literal(value.as_bytes()), number, "{value}");
        }
    }

    #[test]
    fn basic_auth_needs_user_and_password() {
        assert!(basic_credentials(b"dXNlcjpwYXNzd29yZA=="));
        assert!(!basic_credentials(b"realm"));
    }
}

#[cfg(test)]
mod rule_tests {
    use super::*;
    use assignment::Assignment;
    use proptest::prelude::*;

    #[test]
    fn every_rule_compiles() {
        assert_eq!(Redactor::new().compile_all().len(), RULES.len());
    }

    #[test]
    fn keyword_providers_are_near_providers() {
        for p in catalog::KEYWORD_PROVIDERS {
            assert!(catalog::NEAR_PROVIDERS.contains(p), "{p}");
        }
    }

    fn assignment_rule() -> usize {
        let rules: Vec<usize> = (0..RULES.len())
            .filter(|&i| RULES[i].check == Check::Assignment)
            .collect();
        assert_eq!(rules.len(), 1, "the hand matcher implements one pattern");
        rules[0]
    }

    /// One redactor for all cases, so the rule's regex is compiled once.
    fn shared() -> &'static Redactor {
        static REDACTOR: OnceLock<Redactor> = OnceLock::new();
        REDACTOR.get_or_init(Redactor::new)
    }

    /// The matches of the rule's regex, read the way the regex path did before the hand
    /// matcher: `captures_read_at` from the end of each match.
    fn regex_matches(redactor: &Redactor, line: &[u8]) -> Vec<Assignment> {
        let compiled = redactor.regex(assignment_rule());
        let group = |name: &str| {
            compiled
                .regex
                .capture_names()
                .position(|n| n == Some(name))
                .expect("the pattern names its groups")
        };
        let (n, c, o, v) = (group("n"), group("c"), group("o"), group("v"));
        let mut locs = compiled.regex.capture_locations();
        let mut out = Vec::new();
        let mut at = 0;
        while at <= line.len() {
            let Some(m) = compiled.regex.captures_read_at(&mut locs, line, at) else {
                break;
            };
            assert!(m.start() < m.end(), "the pattern never matches empty");
            at = m.end();
            let get = |g: usize| locs.get(g).expect("every group takes part");
            out.push(Assignment {
                start: m.start(),
                end: m.end(),
                n: get(n),
                c: get(c),
                o: get(o),
                v: get(v),
            });
        }
        out
    }

    /// The hand matcher and the rule's regex find the same matches, with the same groups.
    fn agrees(line: &[u8]) -> Result<(), proptest::test_runner::TestCaseError> {
        proptest::prop_assert_eq!(
            hand_matches(line),
            regex_matches(shared(), line),
            "{:?}",
            String::from_utf8_lossy(line)
        );
        Ok(())
    }

    fn hand_matches(line: &[u8]) -> Vec<Assignment> {
        let mut words = Vec::new();
        assignment::word_starts(line, &mut words);
        let mut out = Vec::new();
        let mut at = 0;
        while let Some(m) = assignment::find_at(line, at, &words) {
            at = m.end;
            out.push(m);
        }
        out
    }

    #[test]
    fn the_hand_matcher_implements_the_rules_pattern() {
        let rule = &RULES[assignment_rule()];
        let words: Vec<&str> = assignment::WORDS
            .iter()
            .map(|w| std::str::from_utf8(w).unwrap())
            .collect();
        let alternation = format!("(?:{})", words.join("|"));
        assert!(rule.pattern.contains(&alternation), "{}", rule.pattern);
        assert_eq!(rule.keywords, words.as_slice());
    }

    #[test]
    fn hand_matcher_agrees_with_the_regex_on_known_shapes() {
        let redactor = Redactor::new();
        for line in [
            "password = \"hunter2hunter2\"",
            "+  API_KEY=sk_live_abc123",
            "token == nil",
            "if token === undefined || key !== other",
            "secret: str = os.environ['X']",
            "password: Option<&'static str> = None",
            "apiKey: \"abc\", secretKey: 'def'",
            "\\\"password\\\": \\\"s3cr3tValue\\\"",
            "pass.=x; key||=y; tok??=z; creds+=w; dsn?=v; secret::=u; key:::=t; key::::=s",
            "$db.password@host-key_1.=value",
            "<password>hunter2</password>",
            "--password hunter2 --token\tabc",
            "ENV SECRET_KEY value",
            "String password = \"x\"; char *token = f\"abc{x}\"",
            "key: `template ${x}`, pwdsn = rb'raw', KEY = Rb\"x\"",
            "passpasspass keykeykey.=zz tokentoken. = x",
            "secret\"] = \"value\"",
            "secret\\'] = 'va\\'lue'",
            "credential, creds, credentials,",
            "key = \"unterminated",
            "key = 'a\\",
            "token:\t&mut String = x",
            "key :  a b c = d",
            "token \t  T = v",
            "token  x",
            "token",
            "",
        ] {
            let line = line.as_bytes();
            assert_eq!(
                hand_matches(line),
                regex_matches(&redactor, line),
                "{}",
                String::from_utf8_lossy(line)
            );
        }
    }

    /// Pieces of the pattern and of the code around it: names, credential words, closing
    /// quotes and brackets, blanks, operators, typed operators, quotes and values.
    const PIECES: &[&str] = &[
        "pass",
        "PWD",
        "Secret",
        "token",
        "KEY",
        "key",
        "credential",
        "Creds",
        "dsn",
        "pwdsn",
        "api_",
        "db.",
        "$",
        "@",
        "-",
        "_",
        ".",
        "x",
        "Y",
        "9",
        "my",
        "s",
        "t",
        "k",
        "c",
        "d",
        "p",
        "\\",
        "\"",
        "'",
        "`",
        "]",
        "[",
        " ",
        "  ",
        "\t",
        "=",
        ":",
        "::",
        ":::",
        "::::",
        "=>",
        "==",
        "===",
        "!=",
        "!==",
        "<=",
        ">=",
        "||=",
        "??=",
        "+=",
        ".=",
        "?=",
        ",",
        ">",
        "<",
        "&",
        "|",
        "?",
        "+",
        "!",
        "*",
        "(",
        ")",
        "{",
        "}",
        ";",
        "\n",
        "\r",
        "\u{b}",
        "é",
        ": str =",
        ": Option<&'a str> =",
        " String =",
        " char* =",
        "f\"",
        "rb'",
        "U\"",
        "\\\"",
        "${x}",
        "abc123XYZ",
        "s3cr3t",
        "hunter2",
    ];

    fn line_from(pieces: Vec<usize>, raw: Vec<u8>) -> Vec<u8> {
        let mut line = Vec::new();
        for (i, p) in pieces.into_iter().enumerate() {
            line.extend_from_slice(PIECES[p].as_bytes());
            // Now and then a raw byte, which may be invalid UTF-8.
            if let Some(&b) = raw.get(i)
                && b % 7 == 0
            {
                line.push(b);
            }
        }
        line
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(4000))]

        /// The hand matcher finds the regex's matches, with the same groups, on lines built
        /// from the pattern's pieces.
        #[test]
        fn hand_matcher_agrees_with_the_regex(
            pieces in proptest::collection::vec(0..PIECES.len(), 0..24),
            raw in proptest::collection::vec(any::<u8>(), 0..24),
        ) {
            let line = line_from(pieces, raw);
            agrees(&line)?;
        }

        /// The same on lines of arbitrary bytes biased toward the pattern's alphabet.
        #[test]
        fn hand_matcher_agrees_with_the_regex_on_noise(
            line in "[a-zA-Z0-9 \t_.$@:=<>!|?+,;'\"`\\\\\\[\\](){}&*-]{0,40}",
            word in 0..assignment::WORDS.len(),
            at in 0usize..40,
        ) {
            let mut line = line.into_bytes();
            let at = at.min(line.len());
            line.splice(at..at, assignment::WORDS[word].iter().copied());
            agrees(&line)?;
        }
    }

    /// Long lines of repeated names stay linear (each tail end is tried once) and agree
    /// with the regex.
    #[test]
    fn hand_matcher_on_long_lines() {
        let redactor = Redactor::new();
        for unit in [
            "key",
            "keykey.",
            "key$",
            "token ",
            "pass: a b ",
            "key=\"x",
            "key '",
            "secret:=",
        ] {
            let line = unit.repeat(60_000 / unit.len());
            let start = std::time::Instant::now();
            let hand = hand_matches(line.as_bytes());
            let took = start.elapsed();
            assert_eq!(hand, regex_matches(&redactor, line.as_bytes()), "{unit}");
            assert!(took < std::time::Duration::from_secs(1), "{unit}: {took:?}");
        }
    }

    /// The matches of the keyword automaton as the library's own iterator finds them.
    fn library_hits(redactor: &Redactor, text: &[u8]) -> Vec<Hit> {
        static AUTOMATON: OnceLock<aho_corasick::AhoCorasick> = OnceLock::new();
        let automaton = AUTOMATON.get_or_init(|| {
            aho_corasick::AhoCorasick::builder()
                .ascii_case_insensitive(true)
                .match_kind(MatchKind::LeftmostLongest)
                .build(&redactor.words)
                .expect("keywords")
        });
        automaton
            .find_iter(text)
            .map(|m| Hit {
                start: m.start(),
                end: m.end(),
                pattern: m.pattern().as_usize(),
            })
            .collect()
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(2000))]

        /// The two-search keyword scan finds the library iterator's matches, wherever the
        /// newlines (and so the split) fall.
        #[test]
        fn keyword_scan_agrees_with_the_library(
            pieces in proptest::collection::vec((0usize..400, any::<u8>(), any::<bool>()), 0..60),
        ) {
            let redactor = shared();
            let mut text = Vec::new();
            for (piece, byte, upper) in pieces {
                match redactor.words.get(piece) {
                    Some(word) if upper => {
                        text.extend(word.bytes().map(|b| b.to_ascii_uppercase()))
                    }
                    Some(word) => text.extend_from_slice(word.as_bytes()),
                    None if piece % 3 == 0 => text.push(b'\n'),
                    None => text.push(byte),
                }
            }
            prop_assert_eq!(
                keyword_hits(&redactor.keywords, &text),
                library_hits(redactor, &text)
            );
        }
    }

    #[test]
    fn keyword_scan_agrees_with_the_library_on_corpus_text() {
        let redactor = shared();
        let root = env!("CARGO_MANIFEST_DIR");
        let mut text = String::new();
        for name in [
            "secrets.txt",
            "lookalikes.txt",
            "heldout.txt",
            "heldout-fresh.txt",
        ] {
            text.push_str(
                &std::fs::read_to_string(format!("{root}/testdata/redact/{name}"))
                    .expect("corpus file"),
            );
        }
        let text = text.as_bytes();
        for cut in [
            0,
            1,
            text.len() / 3,
            text.len() / 2,
            text.len() - 1,
            text.len(),
        ] {
            for part in [&text[..cut], &text[cut..]] {
                assert_eq!(
                    keyword_hits(&redactor.keywords, part),
                    library_hits(redactor, part)
                );
            }
        }
    }

    fn every_word(line: &[u8]) -> Vec<(usize, usize)> {
        let mut expected = Vec::new();
        for i in 0..line.len() {
            for w in assignment::WORDS {
                if line[i..].len() >= w.len() && line[i..i + w.len()].eq_ignore_ascii_case(w) {
                    expected.push((i, i + w.len()));
                }
            }
        }
        expected
    }

    /// The word scan finds every occurrence, overlapping ones included, wherever it falls
    /// in the scan's chunks.
    #[test]
    fn word_scan_finds_every_occurrence() {
        let line = b"xPASSwdsnpwDsnKeYtokenCREDentialcredsecrETkeypwd";
        for shift in 0..40 {
            let line = [&b"-".repeat(shift)[..], line].concat();
            let mut found = Vec::new();
            assignment::word_starts(&line, &mut found);
            assert_eq!(found, every_word(&line), "{shift}");
        }
    }

    proptest! {
        #[test]
        fn word_scan_agrees_with_a_naive_search(
            pieces in proptest::collection::vec(0..PIECES.len(), 0..40),
        ) {
            let line = line_from(pieces, Vec::new());
            let mut found = Vec::new();
            assignment::word_starts(&line, &mut found);
            prop_assert_eq!(found, every_word(&line));
        }
    }
}
