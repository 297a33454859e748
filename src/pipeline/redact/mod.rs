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

use std::borrow::Cow;
use std::collections::BTreeMap;
use std::sync::OnceLock;

use aho_corasick::automaton::Automaton;
use aho_corasick::dfa::DFA;
use aho_corasick::{Anchored, MatchKind};
use regex::bytes::{CaptureLocations, Regex, RegexBuilder};

use catalog::{Check, RULES, Rule};

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
            let regex = RegexBuilder::new(RULES[rule].pattern)
                .unicode(false)
                .size_limit(1 << 22)
                .build()
                .expect("built-in redaction patterns compile");
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
                    let name = caps.named(compiled.n).map_or(&b""[..], |n| n.as_bytes());
                    let value = caps.named(compiled.v).map_or(&b""[..], |v| v.as_bytes());
                    if let Some(v) = caps.named(compiled.v).filter(|_| {
                        classify_name(name) == NameKind::Strong
                            && quoted_or_literal_is_secret(value)
                    }) {
                        spans.push(Span {
                            start: offset + v.start(),
                            end: offset + v.end(),
                            rule: index,
                        });
                    }
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

/// Shannon entropy in bits per byte.
fn entropy(value: &[u8]) -> f64 {
    if value.is_empty() {
        return 0.0;
    }
    let mut counts = [0u32; 256];
    for &b in value {
        counts[usize::from(b)] += 1;
    }
    let n = value.len() as f64;
    counts
        .iter()
        .filter(|&&c| c > 0)
        .map(|&c| {
            let p = f64::from(c) / n;
            -p * p.log2()
        })
        .sum()
}

/// Character classes present: lower, upper, digit, other.
fn classes(value: &[u8]) -> (bool, bool, bool, bool) {
    let mut c = (false, false, false, false);
    for &b in value {
        match b {
            b'a'..=b'z' => c.0 = true,
            b'A'..=b'Z' => c.1 = true,
            b'0'..=b'9' => c.2 = true,
            _ => c.3 = true,
        }
    }
    c
}

/// A value that looks like a machine-generated token rather than a word or an identifier.
fn looks_opaque(value: &[u8]) -> bool {
    if value.len() < 8
        || is_placeholder(value)
        || is_identifier_words(value)
        || implausible_alphabet(value)
    {
        return false;
    }
    let (lower, upper, digit, _) = classes(value);
    let letters = lower || upper;
    (letters && digit && entropy(value) >= 3.0) || (value.len() >= 20 && entropy(value) >= 3.5)
}

/// `Basic <base64>` that decodes to `user:password`.
fn basic_credentials(value: &[u8]) -> bool {
    base64_decode(value).is_some_and(|plain| {
        plain.contains(&b':') && plain.iter().all(|&b| (0x20..0x7f).contains(&b))
    })
}

fn base64_decode(value: &[u8]) -> Option<Vec<u8>> {
    let trimmed: Vec<u8> = value.iter().copied().filter(|&b| b != b'=').collect();
    let mut out = Vec::with_capacity(trimmed.len() * 3 / 4);
    let mut acc = 0u32;
    let mut bits = 0;
    for b in trimmed {
        let v = match b {
            b'A'..=b'Z' => b - b'A',
            b'a'..=b'z' => b - b'a' + 26,
            b'0'..=b'9' => b - b'0' + 52,
            b'+' | b'-' => 62,
            b'/' | b'_' => 63,
            _ => return None,
        };
        acc = (acc << 6) | u32::from(v);
        bits += 6;
        if bits >= 8 {
            bits -= 8;
            out.push((acc >> bits) as u8);
            acc &= (1 << bits) - 1;
        }
    }
    Some(out)
}

/// A token that reads as machine-generated: long, mixed letters and digits, high entropy,
/// and not a digest, a version, a path of words, a UUID or public key material. `before` is
/// the line up to the token.
fn random_token(before: &[u8], value: &[u8]) -> bool {
    let mut v = value;
    while let Some(rest) = v.strip_suffix(b"=") {
        v = rest;
    }
    // Cheap tests first: most candidates in code are identifiers without digits. A long
    // token of dense mixed-case letters with few digits (a base64url secret can have one or
    // none) counts too.
    if v.len() < MIN_NEAR_TOKEN {
        return false;
    }
    let digits = v.iter().any(u8::is_ascii_digit);
    let letters = v.iter().any(u8::is_ascii_alphabetic);
    let mixed_segments = || {
        digits
            && letters
            && v.split(|b| matches!(b, b'_' | b'-' | b'.' | b'/' | b'+' | b'=' | b'~'))
                .any(random_segment)
    };
    // A shorter token must show it more: many switches between letters and digits.
    let short_random = || {
        v.len() >= 16
            || v.windows(2)
                .filter(|w| w[0].is_ascii_digit() != w[1].is_ascii_digit())
                .count()
                >= 5
    };
    // Letters and digits at an entropy that words joined by separators do not reach, even
    // when the digits are too few to make a segment look random. The cheap byte tests run
    // first; the entropy and the word tests only for what passes them.
    let dense_mixed = || {
        v.len() >= 20
            && digits
            && letters
            && v.iter()
                .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'-' | b'+' | b'/'))
            && entropy(v) >= 4.0
            && !reads_as_words(v)
            && !segments_read_as_words(v)
    };
    if !((mixed_segments() && short_random()) || dense_mixed() || dense_letters(v)) {
        return false;
    }
    // A path segment or a member (`Suite::Chacha20Poly1305`, `.v2Beta3Client`) is code.
    if before.ends_with(b"::") || before.ends_with(b".") {
        return false;
    }
    let lower_before = before[before.len().saturating_sub(8)..].to_ascii_lowercase();
    if [&b"sha1:"[..], b"sha256:", b"sha384:", b"sha512:", b"md5:"]
        .iter()
        .any(|p| lower_before.ends_with(p))
    {
        return false;
    }
    if is_placeholder(v)
        || is_identifier_words(v)
        || is_uuid(v)
        || is_traceparent(v)
        || implausible_alphabet(v)
    {
        return false;
    }
    let lower = v.to_ascii_lowercase();
    if [
        &b"sha1-"[..],
        b"sha256-",
        b"sha384-",
        b"sha512-",
        b"aaaa",
        b"0x",
    ]
    .iter()
    .any(|p| lower.starts_with(p))
    {
        return false;
    }
    // Versions and addresses: `1.2.3-beta.4`, `10.0.0.1`.
    if v[0].is_ascii_digit() && v.contains(&b'.') {
        return false;
    }
    let hex = v.iter().all(u8::is_ascii_hexdigit);
    if hex {
        // A hex value on a line that names a digest is one (`checksum … = "…"`).
        let line = before.to_ascii_lowercase();
        if DIGEST_WORDS.iter().any(|w| find(&line, w).is_some()) {
            return false;
        }
        return v.len() >= 20 && entropy(v) >= 3.0;
    }
    entropy(v) >= 3.3
}

/// Words that make a hex value on their line a digest or a revision, not a key.
const DIGEST_WORDS: &[&[u8]] = &[
    b"checksum",
    b"digest",
    b"sha1",
    b"sha256",
    b"sha512",
    b"md5",
    b"integrity",
    b"commit",
    b"revision",
    b"etag",
    b"guid",
    b"uuid",
];

/// Twenty-four or more characters of both cases whose entropy (4.2 bits a byte and up)
/// only generated text reaches; identifiers of words stay below it.
fn dense_letters(v: &[u8]) -> bool {
    v.len() >= 24
        && v.iter()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'-'))
        && v.iter().any(u8::is_ascii_lowercase)
        && v.iter().any(u8::is_ascii_uppercase)
        && entropy(v) >= 4.2
        && !reads_as_words(v)
        && !segments_read_as_words(v)
}

/// Mixed-case text whose humps are mostly pronounceable words of three letters or more
/// (`FMRB_OnlyReadsInaccessibleOrArgMem`, `xmlSecGCryptAppGetDefaultPwdCallback`): an
/// identifier. Random mixed-case text cuts into humps that are rarely words: at 60% of its
/// letters in such humps, about 3 in 100 random tokens pass for a name.
fn reads_as_words(v: &[u8]) -> bool {
    if !(v.iter().any(u8::is_ascii_lowercase) && v.iter().any(u8::is_ascii_uppercase)) {
        return false;
    }
    let words = split_words(v);
    let total: usize = words.iter().map(Vec::len).sum();
    let wordy: usize = words
        .iter()
        .filter(|w| {
            let letters = w.iter().filter(|b| b.is_ascii_alphabetic()).count();
            let vowels = w
                .iter()
                .filter(|b| matches!(b, b'a' | b'e' | b'i' | b'o' | b'u'))
                .count();
            letters >= 3 && vowels * 5 >= letters && vowels * 5 <= letters * 3
        })
        .map(Vec::len)
        .sum();
    total > 0 && wordy * 5 >= total * 3
}

/// Whether the line around a token (not the token itself, whose random letters may spell
/// one) names a credential or a provider.
fn mentions_near_keyword(before: &[u8], after: &[u8]) -> bool {
    let around = [before, after].concat().to_ascii_lowercase();
    catalog::NEAR_TRIGGERS
        .iter()
        .chain(catalog::NEAR_PROVIDERS)
        .any(|k| find(&around, k.as_bytes()).is_some())
}

/// A piece of a token that mixes letters and digits the way generated text does, rather than
/// a word with a numeric tail (`migration2024`, `v2`).
fn random_segment(segment: &[u8]) -> bool {
    if segment.len() < 8 {
        return false;
    }
    let (lower, upper, digit, _) = classes(segment);
    if !digit || !(lower || upper) {
        return false;
    }
    let switches = segment
        .windows(2)
        .filter(|w| w[0].is_ascii_digit() != w[1].is_ascii_digit())
        .count();
    switches >= 3
}

/// A W3C trace context header value: `00-<32 hex>-<16 hex>-<2 hex>`.
fn is_traceparent(v: &[u8]) -> bool {
    let parts: Vec<&[u8]> = v.split(|&b| b == b'-').collect();
    parts.len() == 4
        && parts
            .iter()
            .zip([2, 32, 16, 2])
            .all(|(p, n)| p.len() == n && p.iter().all(u8::is_ascii_hexdigit))
}

fn is_uuid(v: &[u8]) -> bool {
    v.len() == 36
        && v.iter().enumerate().all(|(i, b)| {
            if matches!(i, 8 | 13 | 18 | 23) {
                *b == b'-'
            } else {
                b.is_ascii_hexdigit()
            }
        })
}

/// Values that stand for a secret without being one: templates, references, examples.
fn is_placeholder(value: &[u8]) -> bool {
    let lower = value.to_ascii_lowercase();
    let has = |needle: &[u8]| find(&lower, needle).is_some();
    is_template(value)
        || has(b"${")
        || has(b"{{")
        || has(b"#{")
        || has(b"<%")
        || has_format_verb(value)
        || has(b"xxxx")
        || has(b"***")
        || has(b"...")
        || has(b"your_")
        || has(b"your-")
        || has(b"placeholder")
        || has(b"redacted")
        || has(b"changeme")
        || has(b"replace_with")
        || has(b"replace-with")
        || has(b"replace_me")
        || has(b"insert_")
        || has(b"_here")
        || has(b"-here")
        || matches!(
            lower.as_slice(),
            b"password" | b"pass" | b"passwd" | b"pwd" | b"secret" | b"token" | b"user"
        )
}

/// A whole value that is a template variable or a reference: `$VAR`, `${…}`, `$(…)`,
/// `%VAR%`, `<your-key>`, `{0}`, `{name}`, `@TOKEN@`, `:name`.
fn is_template(v: &[u8]) -> bool {
    let ident = |s: &[u8]| {
        !s.is_empty()
            && s.iter()
                .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'.' | b'-'))
    };
    match (v.first(), v.last()) {
        (Some(b'$'), _) => {
            matches!(v.get(1), Some(b'{' | b'('))
                || ident(&v[1..])
                || v[1..]
                    .split(|&b| b == b':')
                    .filter(|part| !part.is_empty())
                    .all(|part| ident(part) && part.len() < 40)
        }
        (Some(b'%'), Some(b'%')) => v.len() > 2 && ident(&v[1..v.len() - 1]),
        (Some(b'<'), _) => v.contains(&b'>'),
        (Some(b'{'), Some(b'}')) => true,
        (Some(b'@'), Some(b'@')) => {
            let inner: &[u8] = {
                let start = v.iter().position(|&b| b != b'@').unwrap_or(v.len());
                let end = v.iter().rposition(|&b| b != b'@').map_or(start, |e| e + 1);
                &v[start..end.max(start)]
            };
            ident(inner)
        }
        _ => false,
    }
}

/// A printf or `%(name)s` verb standing alone, not `%s` inside random text (`c%sq`).
fn has_format_verb(v: &[u8]) -> bool {
    v.iter().enumerate().any(|(i, &b)| {
        if b != b'%' || (i > 0 && v[i - 1].is_ascii_alphanumeric()) {
            return false;
        }
        let rest = &v[i + 1..];
        let verb = |r: &[u8]| {
            matches!(r.first(), Some(b's' | b'v' | b'd' | b'q'))
                && !r.get(1).is_some_and(u8::is_ascii_alphanumeric)
        };
        verb(rest)
            || (rest.first() == Some(&b'(')
                && rest.iter().position(|&c| c == b')').is_some_and(|close| {
                    close > 1
                        && rest[1..close]
                            .iter()
                            .all(|c| c.is_ascii_alphanumeric() || *c == b'_')
                        && verb(&rest[close + 1..])
                }))
    })
}

/// Values printed in providers' documentation and filler standing in for a token: they
/// match a format but protect nothing. `EXAMPLE` in the value (AWS's documented keys), a run
/// of one filler character (`XXXXXX`, `******`, `000000`, `......`), one character making up
/// most of the value (`AAAA…==`), a run of the alphabet (`abcdefgh`), and the few
/// well-known example tokens of providers' docs.
fn is_filler(v: &[u8]) -> bool {
    if v.len() < 8 {
        return false;
    }
    if v.windows(7).any(|w| w.eq_ignore_ascii_case(b"example")) || DOCUMENTED_EXAMPLES.contains(&v)
    {
        return true;
    }
    let mut counts = [0usize; 256];
    let (mut run, mut longest_filler, mut sequence, mut longest_sequence) = (0, 0, 0, 0);
    for (i, &b) in v.iter().enumerate() {
        counts[usize::from(b)] += 1;
        run = if i > 0 && v[i - 1] == b { run + 1 } else { 1 };
        if matches!(b, b'x' | b'X' | b'*' | b'#' | b'0' | b'.') {
            longest_filler = longest_filler.max(run);
        }
        // Letters only: ten digits in a row (`0123456789`) are a fake someone typed, but
        // also the whole digit alphabet, and fixtures use them as the random part.
        sequence = if i > 0 && b.is_ascii_alphabetic() && v[i - 1].wrapping_add(1) == b {
            sequence + 1
        } else {
            1
        };
        longest_sequence = longest_sequence.max(sequence);
    }
    let dominant = counts.iter().max().copied().unwrap_or(0);
    longest_filler >= 6 || longest_sequence >= 8 || (v.len() >= 12 && dominant * 2 > v.len())
}

/// Example tokens that providers print in their documentation, verbatim.
const DOCUMENTED_EXAMPLES: &[&[u8]] = &[
    // Stripe's API reference.
    b"sk_test_4eC39HqLyjWDarjtT1zdp7dc",
    b"pk_test_TYooMQauvdEDq54NiTphI7jx",
    b"sk_test_BQokikJOvBiI2HlWgH4olfQ2",
    // GitHub's docs on token formats.
    b"ghp_16C7e42F292c6912E7710c838347Ae178B4a",
    // Slack's and Mailgun's API docs, Google's Maps samples.
    b"xoxb-17653672481-19874698323-pdFZKVeTuE8sk7oOcBrzbqgy",
    b"key-3ax6xnjp29jd6fds4gc373sgvjxteol0",
    b"AIzaSyD-9tSrke72PouQMnMX-a7eZSW0jkFMBWY",
    // The token jwt.io shows by default.
    b"eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6IkpvaG4gRG9lIiwiaWF0IjoxNTE2MjM5MDIyfQ.SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c",
];

/// Text whose alphabet makes a credential implausible however random it looks: a long run
/// over at most five symbols (a DNA or RNA sequence, a bit string) or letters of one case
/// only (words run together, a protein sequence); generated credentials mix in digits.
fn implausible_alphabet(v: &[u8]) -> bool {
    if v.len() < 16 {
        return false;
    }
    let mut seen = [false; 256];
    for &b in v {
        seen[usize::from(b)] = true;
    }
    let distinct = seen.iter().filter(|&&s| s).count();
    let one_case = v.len() >= 20
        && (v.iter().all(u8::is_ascii_lowercase) || v.iter().all(u8::is_ascii_uppercase));
    distinct <= 5 || one_case
}

/// Text no password generator writes: lower-case letters only (a word, `poneyland`), or
/// escaped line breaks (`hell\\0o\\r\\nBread:` is the text of a request).
fn is_prose(v: &[u8]) -> bool {
    let vowels = v
        .iter()
        .filter(|b| matches!(b, b'a' | b'e' | b'i' | b'o' | b'u' | b'y'))
        .count();
    // Random lower-case letters (a Google app password) are neither: few vowels, long
    // consonant runs.
    (v.iter().all(u8::is_ascii_lowercase) && vowels * 4 >= v.len() && segment_reads_as_word(v))
        || v.windows(2).any(|w| w == b"\\n" || w == b"\\r")
}

/// A version or build string: `1.2.3`, `v3.2.2-rc.5+build.7`.
fn is_version(v: &[u8]) -> bool {
    let digits = v.strip_prefix(b"v").unwrap_or(v);
    digits.first().is_some_and(u8::is_ascii_digit)
        && digits
            .iter()
            .take_while(|b| b.is_ascii_digit() || **b == b'.')
            .filter(|b| **b == b'.')
            .count()
            >= 1
}

/// A file-system path made of names (`/etc/app/secret.json`, `./certs/server.key`,
/// `C:\\data\\key.pem`), not base64 that happens to begin with `/`.
fn looks_like_path(v: &[u8]) -> bool {
    let lower = v.to_ascii_lowercase();
    let rooted = lower.starts_with(b"/")
        || lower.starts_with(b"./")
        || lower.starts_with(b"../")
        || lower.starts_with(b"~/")
        || (v.len() > 2
            && v[0].is_ascii_alphabetic()
            && v[1] == b':'
            && matches!(v[2], b'\\' | b'/'));
    // `certs/end.key`, `SOFTWARE\\Microsoft\\VisualStudio`: separated names, the last with
    // an extension, or names only.
    let separators = v.iter().filter(|&&b| b == b'/' || b == b'\\').count();
    let last = v.rsplit(|&b| b == b'/' || b == b'\\').next().unwrap_or(v);
    let extension = last
        .iter()
        .rposition(|&b| b == b'.')
        .is_some_and(|dot| dot > 0 && (1..=5).contains(&(last.len() - dot - 1)));
    let relative = separators >= 1
        && (extension
            || (separators >= 2
                && v.split(|&b| b == b'/' || b == b'\\')
                    .all(|s| !s.is_empty() && segment_reads_as_word(s))));
    (rooted || relative)
        && !v.contains(&b'+')
        && !v.ends_with(b"=")
        && v.split(|b| matches!(b, b'/' | b'\\'))
            .all(|segment| segment.len() < 20 || !random_segment(segment))
}

/// A piece of a name that reads as a word: its letters, cut at digits, are pieces of at
/// most three letters or hold a vowel and no run of five consonants (`chacha20`,
/// `x25519`, `Microsoft`), which random letters rarely manage.
fn segment_reads_as_word(segment: &[u8]) -> bool {
    segment
        .split(|b| !b.is_ascii_alphabetic())
        .filter(|part| !part.is_empty())
        .all(|part| {
            if part.len() <= 3 {
                return true;
            }
            let vowel = |b: &u8| {
                matches!(
                    b.to_ascii_lowercase(),
                    b'a' | b'e' | b'i' | b'o' | b'u' | b'y'
                )
            };
            let mut run = 0;
            let mut longest = 0;
            for b in part {
                run = if vowel(b) { 0 } else { run + 1 };
                longest = longest.max(run);
            }
            part.iter().any(vowel) && longest < 5
        })
}

/// Names joined by `_ - . /` (`TLS13_CHACHA20_POLY1305_SHA256`, `riscv64gc-unknown-linux`):
/// every piece reads as a word.
fn segments_read_as_words(v: &[u8]) -> bool {
    v.split(|b| matches!(b, b'_' | b'-' | b'.' | b'/' | b'+'))
        .filter(|s| !s.is_empty())
        .all(segment_reads_as_word)
}

/// Whether a name (`NAME` of `NAME=value`) is an identifier: a letter or `_`, then letters,
/// digits, `_`, `.` or `-`.
fn is_name(v: &[u8]) -> bool {
    v.first()
        .is_some_and(|b| b.is_ascii_alphabetic() || *b == b'_')
        && v.iter()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'.' | b'-'))
}

/// The password of `scheme://user:password@host`, unless it is a placeholder or a
/// documented default that repeats the user name (`guest:guest`).
fn url_password(user: &[u8], password: &[u8]) -> bool {
    password.len() >= 3
        && !is_placeholder(password)
        && !(password.len() < 16 && user.eq_ignore_ascii_case(password))
}

/// The value of `Password=`/`Pwd=` in a connection string: the line must hold another key of
/// one (`Server=`, `User ID=`, `jdbc:`, …), and the value must not be a placeholder.
fn connection_password(line: &[u8], value: &[u8]) -> bool {
    let lower = line.to_ascii_lowercase();
    let context = CONNECTION_KEYS.iter().any(|k| find(&lower, k).is_some());
    context
        && value.len() >= 3
        && !is_placeholder(value)
        && !is_identifier_words(value)
        && !value.contains(&b'+')
        && !matches!(
            value.first(),
            Some(b'$' | b'{' | b'%' | b'"' | b'\'' | b'(' | b'[')
        )
}

/// Keys that make a line a connection string (ADO.NET, ODBC, JDBC, libpq, Azure).
const CONNECTION_KEYS: &[&[u8]] = &[
    b"server=",
    b"data source=",
    b"datasource=",
    b"host=",
    b"hostname=",
    b"uid=",
    b"user id=",
    b"userid=",
    b"user=",
    b"username=",
    b"database=",
    b"initial catalog=",
    b"driver=",
    b"dsn=",
    b"provider=",
    b"port=",
    b"dbname=",
    b"endpoint=",
    b"accountname=",
    b"jdbc:",
    b"odbc",
    b"://",
];

/// Identifier-shaped text made of words: `access_token`, `X-Api-Key`, `db.password`,
/// `GITHUB_TOKEN`, `AccessToken`. Such values name a secret; they are not one.
fn is_identifier_words(value: &[u8]) -> bool {
    // `_make_key`, `__token__`: the underscores of a private or magic name.
    let value = value.trim_ascii();
    let start = value.iter().take_while(|&&b| b == b'_').count();
    let value = &value[start..];
    if value.is_empty() || !value[0].is_ascii_alphabetic() {
        return false;
    }
    if !value
        .iter()
        .all(|&b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'-' | b'.' | b':' | b'/'))
    {
        return false;
    }
    let words = split_words(value);
    if words.is_empty() {
        return false;
    }
    // Every word is a plausible word: letters with at most a short numeric tail, no
    // random-looking runs of mixed digits.
    // Random tokens split into many short, vowel-less pieces; names into a few words.
    let vowelless = words.iter().filter(|w| !has_vowel(w)).count();
    let single = words.iter().filter(|w| w.len() == 1).count();
    if words.len() > 6 || vowelless > 2 || single > 1 {
        return false;
    }
    // Mostly two- and three-letter humps with digits among them (`ZKCCo4KHMBah9`) is a
    // generated password cut into humps, not a name.
    let short = words.iter().filter(|w| w.len() <= 3).count();
    let with_digits = words
        .iter()
        .filter(|w| w.iter().any(u8::is_ascii_digit))
        .count();
    let (lower, upper, _, _) = classes(value);
    let humps = (short * 2 >= words.len() && with_digits >= 2)
        || (short * 5 >= words.len() * 4 && with_digits >= 1);
    if words.len() >= 3 && humps && lower && upper {
        return false;
    }
    words.iter().all(|w| {
        // `_0`, `_2`: a counter between words.
        if w.len() <= 2 && w.iter().all(u8::is_ascii_digit) {
            return true;
        }
        let letters = w.iter().take_while(|b| b.is_ascii_alphabetic()).count();
        let tail = &w[letters..];
        // Short words (`x`, `db`, `src`, `npm`) need no vowel; longer ones must read as words.
        (1..=16).contains(&letters)
            && tail.len() <= 2
            && tail.iter().all(u8::is_ascii_digit)
            && (letters <= 4 || has_vowel(&w[..letters]))
    }) && (words.len() >= 2 || value.len() <= 12)
}

fn has_vowel(word: &[u8]) -> bool {
    word.iter().any(|b| {
        matches!(
            b.to_ascii_lowercase(),
            b'a' | b'e' | b'i' | b'o' | b'u' | b'y'
        )
    })
}

/// Splits an identifier into lower-case words at `_ - . : /`, `$ @`, and camelCase humps.
fn split_words(name: &[u8]) -> Vec<Vec<u8>> {
    let mut words: Vec<Vec<u8>> = Vec::new();
    let mut current: Vec<u8> = Vec::new();
    let mut prev: u8 = 0;
    for (i, &b) in name.iter().enumerate() {
        if !b.is_ascii_alphanumeric() {
            if !current.is_empty() {
                words.push(std::mem::take(&mut current));
            }
            prev = b;
            continue;
        }
        let next = name.get(i + 1).copied().unwrap_or(0);
        let hump = b.is_ascii_uppercase()
            && (prev.is_ascii_lowercase()
                || prev.is_ascii_digit() && !current.is_empty() && current.len() > 1
                || (prev.is_ascii_uppercase() && next.is_ascii_lowercase()));
        if hump && !current.is_empty() {
            words.push(std::mem::take(&mut current));
        }
        current.push(b.to_ascii_lowercase());
        prev = b;
    }
    if !current.is_empty() {
        words.push(current);
    }
    words
}

/// How strongly a name says "this holds a credential".
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum NameKind {
    /// Not a credential name.
    None,
    /// `key` alone or a loose word: only a strongly random value counts.
    Weak,
    /// `password`, `api_key`, `GITHUB_TOKEN`, `client_secret`, …
    Strong,
}

const CRED_WORDS: &[&[u8]] = &[
    b"password",
    b"passwd",
    b"passphrase",
    b"pwd",
    b"pass",
    b"pw",
    b"secret",
    b"secrets",
    b"token",
    b"apikey",
    b"credential",
    b"credentials",
    b"creds",
    b"dsn",
    b"key",
    b"cookie",
    b"sig",
    b"signature",
];

/// Words that may follow the credential word without changing what the name holds.
const TRAILING_OK: &[&[u8]] = &[
    b"value",
    b"val",
    b"str",
    b"b64",
    b"base64",
    b"hex",
    b"raw",
    b"enc",
    b"encrypted",
    b"prod",
    b"production",
    b"dev",
    b"development",
    b"staging",
    b"stage",
    b"test",
    b"live",
    b"sandbox",
    b"local",
    b"v1",
    b"v2",
    b"v3",
    b"secret",
    b"key",
    b"token",
    b"plain",
    b"plaintext",
    b"override",
    b"default",
];

/// A `key` preceded by one of these is a data-structure key, not a credential.
const KEY_NOT_SECRET: &[&[u8]] = &[
    b"primary",
    b"foreign",
    b"sort",
    b"partition",
    b"cache",
    b"public",
    b"pub",
    b"map",
    b"dict",
    b"hash",
    b"lookup",
    b"unique",
    b"composite",
    b"row",
    b"column",
    b"index",
    b"range",
    b"hot",
    b"short",
    b"i18n",
    b"translation",
    b"route",
    b"react",
    b"object",
    b"s3",
    b"dedup",
    b"idempotency",
    b"group",
    b"field",
    b"next",
    b"prev",
    b"last",
    b"first",
    b"state",
    b"redis",
    b"kv",
    b"sorting",
    b"label",
    b"query",
    b"search",
    b"storage",
    b"item",
    b"entry",
    b"list",
    b"local",
    b"message",
    b"msg",
    b"config",
    b"setting",
    b"settings",
    b"env",
    b"name",
    b"ssh",
    b"gpg",
    b"pgp",
    b"verify",
    b"verifying",
    b"verification",
    b"keyboard",
    b"menu",
    b"shortcut",
    b"hotkey",
    b"unique",
    b"compound",
    b"distribution",
    b"sharding",
    b"shard",
    b"bucket",
    b"metric",
    b"event",
    b"feature",
    b"flag",
    b"option",
    b"param",
    b"header",
    b"json",
    b"yaml",
    b"dto",
    b"id",
    b"file",
    b"path",
    b"url",
];

/// Leading words that turn the name into a flag, count or function about a credential.
const LEADING_NOT_SECRET: &[&[u8]] = &[
    b"is",
    b"has",
    b"should",
    b"use",
    b"enable",
    b"enabled",
    b"disable",
    b"show",
    b"hide",
    b"no",
    b"max",
    b"min",
    b"num",
    b"validate",
    b"check",
    b"get",
    b"set",
    b"require",
    b"requires",
    b"allow",
    b"forgot",
    b"reset",
    b"verify",
    b"on",
    b"handle",
    b"with",
];

fn classify_name(name: &[u8]) -> NameKind {
    let words = split_words(name);
    if words.is_empty() {
        return NameKind::None;
    }
    if LEADING_NOT_SECRET.contains(&words[0].as_slice()) && words.len() > 1 {
        return NameKind::None;
    }
    // The last credential word, allowing compounds such as `apikey` or `accesstoken`.
    let Some(last_cred) = words.iter().rposition(|w| {
        CRED_WORDS.contains(&w.as_slice())
            || [
                &b"password"[..],
                b"passwd",
                b"token",
                b"secret",
                b"apikey",
                b"secretkey",
            ]
            .iter()
            .any(|c| w.len() > c.len() && w.ends_with(c))
    }) else {
        return NameKind::None;
    };
    if !words[last_cred + 1..]
        .iter()
        .all(|w| TRAILING_OK.contains(&w.as_slice()) || w.iter().all(u8::is_ascii_digit))
    {
        return NameKind::None;
    }
    let word = words[last_cred].as_slice();
    match word {
        b"key" | b"sig" | b"signature" | b"cookie" | b"pass" | b"pw" => {
            if last_cred == 0 {
                return NameKind::Weak;
            }
            let before = words[last_cred - 1].as_slice();
            if KEY_NOT_SECRET.contains(&before) {
                NameKind::None
            } else {
                NameKind::Strong
            }
        }
        _ => NameKind::Strong,
    }
}

/// Type names that follow `name:` in annotations and are never values.
const TYPE_WORDS: &[&[u8]] = &[
    b"string",
    b"str",
    b"number",
    b"boolean",
    b"bool",
    b"any",
    b"unknown",
    b"never",
    b"object",
    b"bigint",
    b"symbol",
    b"int",
    b"integer",
    b"float",
    b"double",
    b"bytes",
    b"byte",
    b"usize",
    b"isize",
    b"u8",
    b"u16",
    b"u32",
    b"u64",
    b"u128",
    b"i8",
    b"i16",
    b"i32",
    b"i64",
    b"i128",
    b"f32",
    b"f64",
    b"char",
    b"void",
    b"null",
    b"nil",
    b"none",
    b"true",
    b"false",
    b"undefined",
    b"uint8array",
    b"int32",
    b"int64",
    b"uint32",
    b"uint64",
    b"float32",
    b"float64",
    b"arraybuffer",
    b"buffer",
    b"secretstr",
    b"secretstring",
    b"securestring",
];

/// Finds the byte range of the secret in a generic `name <op> value` match, if it is one.
fn assignment_value(m: &assignment::Assignment, line: &[u8]) -> Option<(usize, usize)> {
    let group = |(start, end): (usize, usize)| Group { line, start, end };
    let name = group(m.n);
    let op = group(m.o).as_bytes();
    let value = group(m.v);
    let op_trim: Vec<u8> = op
        .iter()
        .copied()
        .filter(|b| !b.is_ascii_whitespace())
        .collect();
    // Comparisons are never assignments, but a credential compared with a literal that
    // reads as a password is a hard-coded one (`if password == "S3cr3t!"`; Nosey Parker
    // `np.generic.15`).
    if matches!(
        op_trim.as_slice(),
        b"==" | b"===" | b"!=" | b"!==" | b"<=" | b">="
    ) {
        let v = group(m.v).as_bytes();
        return match quoted_content(v) {
            Some((skip, len))
                if op_trim.len() >= 2
                    && op_trim[0] != b'<'
                    && op_trim[0] != b'>'
                    && classify_name(name.as_bytes()) == NameKind::Strong
                    && password_like(&v[skip..skip + len]) =>
            {
                Some((value.start() + skip, value.start() + skip + len))
            }
            _ => None,
        };
    }
    let raw_name = name.as_bytes();
    // Whitespace as the operator only binds a command-line flag (`--password hunter2`) or a
    // Dockerfile `ENV NAME value`.
    if op_trim.is_empty() && !raw_name.starts_with(b"-") && !line[..name.start()].ends_with(b"ENV ")
    {
        return None;
    }
    // `,` binds a quoted key to its value (`("api_key", "…")`); after a bare name (a CSV
    // row, or call arguments) only a strongly random value counts.
    let bare_comma = op_trim == b"," && m.c.0 == m.c.1;
    // `name Type = value`: the type is a word, never a keyword of the language's control flow.
    if op_trim.len() > 1
        && op_trim[0].is_ascii_alphabetic()
        && matches!(
            &op_trim[..op_trim.len() - 1],
            b"is" | b"in" | b"and" | b"or" | b"not" | b"if" | b"else" | b"return"
        )
    {
        return None;
    }
    // `>` only closes an XML element: `<password>…</password>`; the value runs to its end
    // tag (`<password>@host` in a URL template is not an element).
    if op_trim == b">"
        && !(name.start() > 0
            && line[name.start() - 1] == b'<'
            && line[value.end()..].starts_with(b"</"))
    {
        return None;
    }
    let kind = classify_name(raw_name);
    if kind == NameKind::None {
        return None;
    }
    let v = value.as_bytes();
    let after = line.get(value.end()).copied();
    let quoted = quoted_content(v).is_some();
    let (content, start) = match quoted_content(v) {
        Some((skip, len)) => (&v[skip..skip + len], value.start() + skip),
        None if bare_comma => (v, value.start()),
        None => {
            // A function call, an index, or a member access is a reference, not a value.
            if matches!(after, Some(b'(' | b'[' | b'{')) {
                return None;
            }
            let context = Context {
                line,
                name_start: name.start(),
                flag: raw_name.starts_with(b"-"),
                xml: op_trim == b">",
                after,
            };
            if !unquoted_is_literal(v, &context, kind) {
                return None;
            }
            (v, value.start())
        }
    };
    if content.is_empty() {
        return None;
    }
    // A quoted value that is a type annotation's default, e.g. `password: str = "…"`, is
    // handled by the typed operator; a trailing `+`/`%` makes the literal a format prefix.
    let secret = match kind {
        _ if bare_comma => random_token(&line[..start], content),
        NameKind::Strong => quoted_or_literal_is_secret(content),
        NameKind::Weak => strong_value(content) || (quoted && password_like(content)),
        NameKind::None => false,
    };
    secret.then_some((start, start + content.len()))
}

/// For a quoted value, the offset and length of its content.
fn quoted_content(v: &[u8]) -> Option<(usize, usize)> {
    // `\"…\"`: a string inside an escaped JSON document.
    if v.len() >= 4 && v.starts_with(b"\\\"") && v.ends_with(b"\\\"") {
        return Some((2, v.len() - 4));
    }
    let prefix = v
        .iter()
        .take_while(|b| matches!(b, b'f' | b'F' | b'b' | b'B' | b'r' | b'R' | b'u' | b'U'))
        .count();
    let rest = &v[prefix..];
    let quote = *rest.first()?;
    if !matches!(quote, b'"' | b'\'' | b'`') || rest.len() < 2 || rest[rest.len() - 1] != quote {
        return None;
    }
    // An f-string, a template literal or a format string interpolates code.
    if (prefix > 0 && v[..prefix].eq_ignore_ascii_case(b"f")) || quote == b'`' {
        let inner = &rest[1..rest.len() - 1];
        if inner.contains(&b'{') {
            return Some((prefix + 1, 0));
        }
    }
    Some((prefix + 1, rest.len() - 2))
}

/// Where an unquoted value sits.
struct Context<'a> {
    line: &'a [u8],
    name_start: usize,
    /// The name is a command-line flag (`--password`).
    flag: bool,
    /// The value is an XML element's text.
    xml: bool,
    /// The byte right after the value.
    after: Option<u8>,
}

/// Whether an unquoted value is a literal (env file, YAML, CLI flag, connection string)
/// rather than code, where a bare identifier is a reference to a variable.
fn unquoted_is_literal(v: &[u8], context: &Context<'_>, kind: NameKind) -> bool {
    let lower = v.to_ascii_lowercase();
    if TYPE_WORDS.contains(&lower.as_slice()) {
        return false;
    }
    if v.iter()
        .all(|b| b.is_ascii_digit() || *b == b'.' || *b == b'-')
        || is_number_literal(v)
    {
        return false;
    }
    // Dotted or scoped references: `cfg.APIKey`, `process.env.SECRET`, `Config::KEY`, each
    // part an identifier (`OGi1iQ.L8!ljqg` is not one).
    let part_is_identifier = |part: &[u8]| {
        let part = part
            .strip_suffix(b"!")
            .or(part.strip_suffix(b"?"))
            .unwrap_or(part);
        part.first()
            .is_some_and(|b| b.is_ascii_alphabetic() || matches!(b, b'_' | b'$' | b'&'))
            && part
                .iter()
                .all(|&b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'$' | b'&'))
    };
    let is_path = v.iter().all(|&b| {
        b.is_ascii_alphanumeric() || matches!(b, b'_' | b'.' | b':' | b'$' | b'!' | b'?' | b'&')
    }) && v
        .split(|&b| matches!(b, b'.' | b':'))
        .filter(|part| !part.is_empty())
        .all(part_is_identifier)
        && (v.windows(2).any(|w| w == b"::")
            || (v.contains(&b'.')
                && split_words(v)
                    .iter()
                    .all(|w| w.iter().any(u8::is_ascii_alphabetic))));
    if is_path || v.starts_with(b"&") || v.starts_with(b"!") || v.starts_with(b"*") {
        return false;
    }
    // A single capitalised word is a type or class name (`token: Credential`).
    if v.len() > 1 && v[0].is_ascii_uppercase() && v[1..].iter().all(u8::is_ascii_lowercase) {
        return false;
    }
    let prefix = &context.line[..context.name_start];
    // `NAME=value` or `name: value` opening a line (after the diff prefix): an env, shell,
    // YAML or properties file, unless a `,`/`;` after the value says it is code.
    let env_line = (prefix
        .iter()
        .all(|b| matches!(b, b'+' | b'-' | b' ' | b'\t'))
        || prefix.ends_with(b"export ")
        || prefix.ends_with(b"ENV ")
        || prefix.ends_with(b"set "))
        && !matches!(context.after, Some(b',' | b';'));
    // `…;Password=…;` in a connection string, `?token=…` in a query string,
    // `--from-literal=password=…`.
    let embedded = matches!(prefix.last(), Some(b';' | b'?' | b'&' | b'='));
    if (env_line || embedded || context.flag || context.xml) && kind == NameKind::Strong {
        return v.len() >= 6;
    }
    let identifier = v
        .first()
        .is_some_and(|b| b.is_ascii_alphabetic() || matches!(b, b'_' | b'$'))
        && v.iter()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'$'));
    if identifier {
        // In code a bare identifier names a variable or a constant (`MSV1_0_CREDENTIAL_KEY`);
        // only a random-looking one is a value.
        return strong_value(v) && random_token(&context.line[..context.name_start], v);
    }
    v.len() >= 8
}

/// A numeric literal of code: `0xC0000465_u32`, `1048576i32`, `16384u32`, `3.5f64`.
fn is_number_literal(v: &[u8]) -> bool {
    let v = v.strip_prefix(b"-").unwrap_or(v);
    let lower = v.to_ascii_lowercase();
    if let Some(hex) = lower.strip_prefix(b"0x") {
        return hex.iter().all(|b| b.is_ascii_alphanumeric() || *b == b'_');
    }
    let digits = lower
        .iter()
        .take_while(|b| b.is_ascii_digit() || matches!(b, b'_' | b'.'))
        .count();
    digits > 0
        && matches!(
            &lower[digits..],
            b"" | b"u8"
                | b"u16"
                | b"u32"
                | b"u64"
                | b"u128"
                | b"usize"
                | b"i8"
                | b"i16"
                | b"i32"
                | b"i64"
                | b"i128"
                | b"isize"
                | b"f32"
                | b"f64"
                | b"l"
                | b"ul"
                | b"ull"
                | b"ll"
                | b"u"
                | b"f"
                | b"d"
                | b"m"
        )
}

/// A strong-named value (quoted, or literal by context) that is a secret.
fn quoted_or_literal_is_secret(v: &[u8]) -> bool {
    if v.len() < 6 || is_placeholder(v) {
        return false;
    }
    if v.iter().any(u8::is_ascii_whitespace) {
        return false;
    }
    let lower = v.to_ascii_lowercase();
    if looks_like_path(v) || find(&lower, b"://").is_some() {
        return false;
    }
    if implausible_alphabet(v) || is_version(v) || is_traceparent(v) || is_prose(v) {
        return false;
    }
    if TYPE_WORDS.contains(&lower.as_slice()) || COMMON_VALUES.contains(&lower.as_slice()) {
        return false;
    }
    // Words joined by separators or humps name something (`access_token`, `X-Api-Key`).
    if is_identifier_words(v) && split_words(v).len() >= 2 {
        return false;
    }
    let (_, _, digit, _) = classes(v);
    v.len() >= 8 || digit
}

/// Ordinary values that a credential-named field often holds and that are not secrets.
const COMMON_VALUES: &[&[u8]] = &[
    b"bearer",
    b"basic",
    b"digest",
    b"oauth",
    b"oauth2",
    b"required",
    b"optional",
    b"hidden",
    b"default",
    b"example",
    b"password",
    b"secret",
    b"token",
    b"string",
    b"disabled",
    b"enabled",
    b"invalid",
    b"expired",
    b"missing",
    b"unknown",
    b"masked",
    b"sha256",
    b"sha512",
    b"sha1",
    b"md5",
    b"bcrypt",
    b"argon2",
    b"argon2id",
    b"scrypt",
    b"pbkdf2",
    b"hs256",
    b"rs256",
    b"es256",
    b"base64",
    b"secrets",
    b"credentials",
    b"apikey",
    b"api_key",
    b"session",
    b"cookie",
    b"cookies",
    b"header",
    b"headers",
    b"query",
    b"body",
    b"access",
    b"refresh",
    b"generic",
    b"opaque",
    b"vault",
    b"keyring",
    b"keychain",
    b"environment",
    b"manual",
    b"client_credentials",
    b"authorization_code",
    b"new-password",
    b"current-password",
];

/// A value random enough to be a credential even under a loose name such as `key`.
fn strong_value(v: &[u8]) -> bool {
    // Percent-encoded text is a URL or query fragment, not a raw token.
    if v.len() < 16 || is_placeholder(v) || v.iter().any(|b| b.is_ascii_whitespace() || *b == b'%')
    {
        return false;
    }
    if is_identifier_words(v) || implausible_alphabet(v) || looks_like_path(v) {
        return false;
    }
    let (lower, upper, digit, _) = classes(v);
    (lower || upper) && digit && entropy(v) >= 3.5
}

/// A quoted value under a loose name (`pass`, `pw`, `key` alone) that reads as a password:
/// upper- and lower-case letters and digits, or letters, digits and punctuation, and no
/// words or template.
fn password_like(v: &[u8]) -> bool {
    if v.len() < 8
        || v.len() > 128
        || is_prose(v)
        || is_placeholder(v)
        || v.iter().any(|b| b.is_ascii_whitespace())
        || is_identifier_words(v)
        || is_version(v)
        || looks_like_path(v)
        || find(&v.to_ascii_lowercase(), b"://").is_some()
    {
        return false;
    }
    let (lower, upper, digit, _) = classes(v);
    let punctuation = v
        .iter()
        .any(|b| b.is_ascii_punctuation() && !matches!(b, b'_' | b'-' | b'.' | b'/' | b':'));
    ((lower && upper && digit) || ((lower || upper) && digit && punctuation)) && entropy(v) >= 3.0
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
        for (name, kind) in [
            ("password", NameKind::Strong),
            ("apiKey", NameKind::Strong),
            ("STRIPE_KEY", NameKind::Strong),
            ("client_secret", NameKind::Strong),
            ("key", NameKind::Weak),
            ("tokenCount", NameKind::None),
            ("secret_len", NameKind::None),
            ("primary_key", NameKind::None),
            ("token_url", NameKind::None),
            ("isPasswordValid", NameKind::None),
            ("accesstoken", NameKind::Strong),
        ] {
            assert_eq!(classify_name(name.as_bytes()), kind, "{name}");
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
                    Some(word) if upper => text.extend(word.bytes().map(|b| b.to_ascii_uppercase())),
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
