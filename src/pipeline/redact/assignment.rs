//! The `generic-secret` rule's pattern matched by hand.
//!
//! The rule's regex (in `catalog.rules`, kept as the reference) is `N C [ \t]* O [ \t]* V`: a name
//! holding a credential word, optional closing quote/bracket, an operator and a value, all
//! ASCII case-insensitive. It runs on every line that names a credential, and a general
//! engine pays for its size there: a lazy DFA to find each match, then a backtracker over the
//! match to read the groups. Written out, almost every step of the pattern is deterministic,
//! so one walk finds the groups directly. This module returns exactly the match, with the
//! same groups, that the regex returns under its leftmost-first semantics; a differential
//! test in `mod.rs` checks that against the regex on generated lines.
//!
//! How the leftmost-first match is found, piece by piece:
//!
//! - **Start.** The name is `[a-z0-9_.$@-]*` (class `A`), a credential word, then
//!   `[a-z0-9_.-]*` (class `B`, a subset of `A`). The words' letters are all in `A`, so a match
//!   that starts at some byte of a maximal run of `A` bytes also starts at the run's first byte
//!   (or at the search start, inside a run): the leftmost match starts at the start of the
//!   first run holding a word that the rest of the pattern can follow.
//! - **Word.** The greedy prefix gives back one byte at a time, so the word occurrence that
//!   starts last in the run is tried first. At most one word starts at any byte (`credential`
//!   and `creds` differ at their fifth byte, `pass` and `pwd` at their second, the others at
//!   their first), so the alternation order never decides.
//! - **Name end.** The greedy `B` tail is tried from the end of its run backwards. Inside the
//!   run the next byte is a `B` byte; of those only `.` can begin what follows the name (the
//!   `.=` operator), and its `=` is not a `B` byte. So only the run's end `e` and, when
//!   `line[e-1]` is `.`, `e-1` can end the name; shorter tails cannot match.
//! - **Rest.** See [`rest`]: closing pieces, blanks, operator, blanks and value are each
//!   tried in the pattern's priority order.

/// The credential words of the pattern, in its alternation order.
pub(crate) const WORDS: &[&[u8]] = &[
    b"pass",
    b"pwd",
    b"secret",
    b"token",
    b"key",
    b"credential",
    b"creds",
    b"dsn",
];

/// A byte range in a line: start and end offsets.
pub(crate) type Range = (usize, usize);

/// One match of the pattern: byte ranges in the line of the whole match and of the groups
/// `n` (name), `c` (closing quote or bracket), `o` (operator) and `v` (value).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Assignment {
    pub start: usize,
    pub end: usize,
    pub n: Range,
    pub c: Range,
    pub o: Range,
    pub v: Range,
}

/// Byte classes of the pattern, one bit each.
const NAME: u8 = 1; // `[a-z0-9_.$@-]` with `(?i)`
const TAIL: u8 = 2; // `[a-z0-9_.-]` with `(?i)`
const TYPE: u8 = 4; // `[A-Za-z0-9_.<>|?&' \[\]]`, the lazy part of a typed operator
const IDENT: u8 = 8; // `[A-Za-z0-9_.\[\]*]`, the type of `name Type = value`
const VALUE: u8 = 16; // `[^\s"'`,;(){}\[\]<>&]`, the tail of a bare value
const VALUE_FIRST: u8 = 32; // the same without `=` and `:`, the first byte of a bare value
const PREFIX: u8 = 64; // `[fFbBrRuU]`, a string prefix

static CLASS: [u8; 256] = {
    let mut table = [0u8; 256];
    let mut i = 0;
    while i < 256 {
        let b = i as u8;
        let alnum = b.is_ascii_alphanumeric();
        let mut c = 0;
        if alnum || matches!(b, b'_' | b'.' | b'$' | b'@' | b'-') {
            c |= NAME;
        }
        if alnum || matches!(b, b'_' | b'.' | b'-') {
            c |= TAIL;
        }
        if alnum
            || matches!(
                b,
                b'_' | b'.' | b'<' | b'>' | b'|' | b'?' | b'&' | b'\'' | b' ' | b'[' | b']'
            )
        {
            c |= TYPE;
        }
        if alnum || matches!(b, b'_' | b'.' | b'[' | b']' | b'*') {
            c |= IDENT;
        }
        // `\s` without Unicode is `[\t\n\v\f\r ]`.
        let space = matches!(b, b'\t' | b'\n' | 0x0b | 0x0c | b'\r' | b' ');
        let stop = space
            || matches!(
                b,
                b'"' | b'\''
                    | b'`'
                    | b','
                    | b';'
                    | b'('
                    | b')'
                    | b'{'
                    | b'}'
                    | b'['
                    | b']'
                    | b'<'
                    | b'>'
                    | b'&'
            );
        if !stop {
            c |= VALUE;
            if !matches!(b, b'=' | b':') {
                c |= VALUE_FIRST;
            }
        }
        if matches!(b, b'f' | b'F' | b'b' | b'B' | b'r' | b'R' | b'u' | b'U') {
            c |= PREFIX;
        }
        table[i] = c;
        i += 1;
    }
    table
};

fn is(line: &[u8], at: usize, class: u8) -> bool {
    line.get(at)
        .is_some_and(|&b| CLASS[usize::from(b)] & class != 0)
}

/// The end of the run of `class` bytes starting at `at`.
fn run_end(line: &[u8], mut at: usize, class: u8) -> usize {
    while is(line, at, class) {
        at += 1;
    }
    at
}

/// Past `[ \t]*`.
fn skip_blank(line: &[u8], mut at: usize) -> usize {
    while matches!(line.get(at), Some(b' ' | b'\t')) {
        at += 1;
    }
    at
}

/// Start and end offsets of the credential words in `line`, in order; occurrences may
/// overlap (`pwdsn`).
pub(crate) fn word_starts(line: &[u8], out: &mut Vec<(usize, usize)>) {
    out.clear();
    // Sixteen positions at a time, each flagged when its first two bytes begin a word; the
    // loop has no branch, so it runs on vector registers. A flag is rare in code.
    const CHUNK: usize = 16;
    let mut base = 0;
    while base + CHUNK < line.len() {
        let window: &[u8; CHUNK + 1] = line[base..base + CHUNK + 1]
            .try_into()
            .expect("the window is in the line");
        let mut flags = [0u8; CHUNK];
        for (j, flag) in flags.iter_mut().enumerate() {
            *flag = u8::from(begins_word(window[j], window[j + 1]));
        }
        if flags != [0; CHUNK] {
            for (j, &flag) in flags.iter().enumerate() {
                if flag != 0
                    && let Some(end) = word_at(line, base + j)
                {
                    out.push((base + j, base + j + end));
                }
            }
        }
        base += CHUNK;
    }
    // The last bytes; a word is at least three bytes long, so none starts at the last one.
    for i in base..line.len().saturating_sub(1) {
        if begins_word(line[i], line[i + 1])
            && let Some(end) = word_at(line, i)
        {
            out.push((i, i + end));
        }
    }
}

/// Whether two bytes may begin a credential word: `b | 0x20` equals a lower-case letter only
/// for that letter in either case. Written with `&` and `|` so that it compiles without
/// branches.
fn begins_word(first: u8, second: u8) -> bool {
    let (a, b) = (first | 0x20, second | 0x20);
    (a == b'p') & ((b == b'a') | (b == b'w'))
        | (a == b's') & (b == b'e')
        | (a == b't') & (b == b'o')
        | (a == b'k') & (b == b'e')
        | (a == b'c') & (b == b'r')
        | (a == b'd') & (b == b's')
}

/// The length of the credential word starting at `at`, if one does (at most one can).
fn word_at(line: &[u8], at: usize) -> Option<usize> {
    let rest = &line[at..];
    let is = |w: &[u8]| rest.len() >= w.len() && rest.iter().zip(w).all(|(&a, &c)| a | 0x20 == c);
    WORDS.iter().find(|w| is(w)).map(|w| w.len())
}

/// The leftmost-first match starting at or after `at`; `words` are the line's
/// [`word_starts`].
pub(crate) fn find_at(line: &[u8], at: usize, words: &[(usize, usize)]) -> Option<Assignment> {
    let mut i = words.partition_point(|&(start, _)| start < at);
    while i < words.len() {
        let first = words[i].0;
        let mut run_start = first;
        while run_start > at && is(line, run_start - 1, NAME) {
            run_start -= 1;
        }
        let run = run_end(line, first, NAME);
        let next = i + words[i..].partition_point(|&(start, _)| start < run);
        // The last tail end tried and found not to be followed by the rest.
        let mut failed: Option<usize> = None;
        // The word after this one and its tail's end: a tail that reaches that word, whose
        // bytes are `B` bytes, ends where its tail ends. Each byte is scanned once per run.
        let (mut after, mut after_tail) = (usize::MAX, 0);
        for &(word_start, word_end) in words[i..next].iter().rev() {
            let tail = if (after..=after_tail).contains(&word_end) {
                after_tail
            } else {
                let mut at = word_end;
                while at < after && is(line, at, TAIL) {
                    at += 1;
                }
                if at >= after { after_tail } else { at }
            };
            (after, after_tail) = (word_start, tail);
            if failed == Some(tail) {
                continue;
            }
            let mut ends = [Some(tail), None];
            if tail > word_end && line[tail - 1] == b'.' {
                ends[1] = Some(tail - 1);
            }
            for name_end in ends.into_iter().flatten() {
                if let Some((c_end, o, v)) = rest(line, name_end) {
                    return Some(Assignment {
                        start: run_start,
                        end: v.1,
                        n: (run_start, name_end),
                        c: (name_end, c_end),
                        o,
                        v,
                    });
                }
            }
            failed = Some(tail);
        }
        i = next;
    }
    None
}

/// `(?P<c>\\?["'`]?\]?)[ \t]*(?P<o>…)[ \t]*(?P<v>…)` anchored at `at`: the end of `c` and the
/// ranges of `o` and `v`.
///
/// The three optional pieces of `c` are disjoint byte sets in a fixed order, so the ways to
/// match them are the prefixes of the longest, tried longest first (the pattern's priority:
/// each `?` tries to take its byte before skipping it). After them, the greedy blanks first
/// take the whole run; only the last two operators begin with a blank, and with a blank given
/// back both reach the same place whichever blank they start at, so the first one given back
/// decides. The blanks before the value are taken whole: no value begins with a blank.
fn rest(line: &[u8], at: usize) -> Option<(usize, Range, Range)> {
    let mut ends = [at; 4];
    let mut count = 1;
    let mut i = at;
    if line.get(i) == Some(&b'\\') {
        i += 1;
        ends[count] = i;
        count += 1;
    }
    if matches!(line.get(i), Some(b'"' | b'\'' | b'`')) {
        i += 1;
        ends[count] = i;
        count += 1;
    }
    if line.get(i) == Some(&b']') {
        i += 1;
        ends[count] = i;
        count += 1;
    }
    for &c_end in ends[..count].iter().rev() {
        let op = skip_blank(line, c_end);
        if let Some((o_end, v)) = operator(line, op) {
            return Some((c_end, (op, o_end), v));
        }
        if op > c_end {
            // A blank given back: `[ \t]+Type[ \t]*=`, then a lone blank.
            if let Some(o_end) = typed_blank(line, op) {
                let v_start = skip_blank(line, o_end);
                if let Some(v_end) = value(line, v_start) {
                    return Some((c_end, (op - 1, o_end), (v_start, v_end)));
                }
            }
            if let Some(v_end) = value(line, op) {
                return Some((c_end, (op - 1, op), (op, v_end)));
            }
        }
    }
    None
}

/// The operators that begin with a non-blank byte, at `at`, in the pattern's order, each
/// followed by blanks and a value: the operator's end and the value's range.
fn operator(line: &[u8], at: usize) -> Option<(usize, Range)> {
    let first = *line.get(at)?;
    let next = line.get(at + 1).copied();
    let then = |o_end: usize| {
        let v_start = skip_blank(line, o_end);
        value(line, v_start).map(|v_end| (o_end, (v_start, v_end)))
    };
    match first {
        b':' => {
            // `:[ \t]*[&A-Za-z_][…]*?[ \t]*=`: the lazy part can stop only where blanks and `=`
            // follow, and `=` is outside its class, so every stop reaches the same `=`: the
            // first after the class's run and the blanks after it.
            let type_start = skip_blank(line, at + 1);
            if line
                .get(type_start)
                .is_some_and(|&b| b.is_ascii_alphabetic() || matches!(b, b'&' | b'_'))
            {
                let eq = skip_blank(line, run_end(line, type_start + 1, TYPE));
                if line.get(eq) == Some(&b'=')
                    && let Some(found) = then(eq + 1)
                {
                    return Some(found);
                }
            }
            // `:{1,3}=`: only the whole run of colons can be followed by `=`.
            let colons = line[at..].iter().take_while(|&&b| b == b':').count();
            if colons <= 3
                && line.get(at + colons) == Some(&b'=')
                && let Some(found) = then(at + colons + 1)
            {
                return Some(found);
            }
            then(at + 1)
        }
        b'=' => {
            if next == Some(b'>')
                && let Some(found) = then(at + 2)
            {
                return Some(found);
            }
            if next == Some(b'=') {
                if line.get(at + 2) == Some(&b'=')
                    && let Some(found) = then(at + 3)
                {
                    return Some(found);
                }
                if let Some(found) = then(at + 2) {
                    return Some(found);
                }
            }
            then(at + 1)
        }
        b'!' if next == Some(b'=') => {
            if line.get(at + 2) == Some(&b'=')
                && let Some(found) = then(at + 3)
            {
                return Some(found);
            }
            then(at + 2)
        }
        b'<' if next == Some(b'=') => then(at + 2),
        b'>' => {
            if next == Some(b'=')
                && let Some(found) = then(at + 2)
            {
                return Some(found);
            }
            then(at + 1)
        }
        b'|' if next == Some(b'|') && line.get(at + 2) == Some(&b'=') => then(at + 3),
        b'?' => {
            if next == Some(b'?')
                && line.get(at + 2) == Some(&b'=')
                && let Some(found) = then(at + 3)
            {
                return Some(found);
            }
            if next == Some(b'=') {
                return then(at + 2);
            }
            None
        }
        b'+' | b'.' if next == Some(b'=') => then(at + 2),
        b',' => then(at + 1),
        _ => None,
    }
}

/// `[ \t]+[A-Za-z_][A-Za-z0-9_.\[\]*]*[ \t]*=` where the blanks end at `at`: the end of the
/// `=`. The type's class holds neither blanks nor `=`, so only its whole run can be followed
/// by them.
fn typed_blank(line: &[u8], at: usize) -> Option<usize> {
    let b = *line.get(at)?;
    if !(b.is_ascii_alphabetic() || b == b'_') {
        return None;
    }
    let eq = skip_blank(line, run_end(line, at + 1, IDENT));
    (line.get(eq) == Some(&b'=')).then_some(eq + 1)
}

/// The value at `at`, tried in the pattern's order: an escaped JSON string, a (prefixed)
/// double- or single-quoted string, a template string, a bare value. The end of the value.
fn value(line: &[u8], at: usize) -> Option<usize> {
    let first = *line.get(at)?;
    // `\\"[^"\\\n]*\\"`: the run stops at the first `"`, `\` or newline; only a `\"` there
    // closes it.
    if first == b'\\' && line.get(at + 1) == Some(&b'"') {
        let stop = line[at + 2..]
            .iter()
            .position(|&b| matches!(b, b'"' | b'\\' | b'\n'))
            .map_or(line.len(), |p| at + 2 + p);
        if line[stop..].starts_with(b"\\\"") {
            return Some(stop + 2);
        }
    }
    // `(?:[fFbBrRuU]{1,2})?"…"` and the same with `'`: the quote can sit after two prefix
    // letters, one or none, and only one of those places holds it.
    for quote in [b'"', b'\''] {
        let open = if first == quote {
            Some(at)
        } else if is(line, at, PREFIX) && line.get(at + 1) == Some(&quote) {
            Some(at + 1)
        } else if is(line, at, PREFIX)
            && is(line, at + 1, PREFIX)
            && line.get(at + 2) == Some(&quote)
        {
            Some(at + 2)
        } else {
            None
        };
        if let Some(open) = open
            && let Some(end) = quoted(line, open + 1, quote)
        {
            return Some(end);
        }
    }
    // `` `[^`\n]*` ``
    if first == b'`' {
        let stop = line[at + 1..]
            .iter()
            .position(|&b| matches!(b, b'`' | b'\n'))
            .map_or(line.len(), |p| at + 1 + p);
        if line.get(stop) == Some(&b'`') {
            return Some(stop + 1);
        }
    }
    // `[^\s"'`,;(){}\[\]<>&=:][^\s"'`,;(){}\[\]<>&]*`
    if is(line, at, VALUE_FIRST) {
        return Some(run_end(line, at + 1, VALUE));
    }
    None
}

/// `(?:[^q\\\n]|\\.)*q` from `at`: the end past the closing quote. The body's pieces are
/// read in the only way they split (a backslash always starts an escape); the star stops at
/// the first quote that is not escaped, and no earlier split point holds a quote, so giving
/// pieces back never finds another.
fn quoted(line: &[u8], mut at: usize, quote: u8) -> Option<usize> {
    while let Some(&b) = line.get(at) {
        if b == quote {
            return Some(at + 1);
        }
        match b {
            b'\n' => return None,
            b'\\' => match line.get(at + 1) {
                Some(&next) if next != b'\n' => at += 2,
                _ => return None,
            },
            _ => at += 1,
        }
    }
    None
}
