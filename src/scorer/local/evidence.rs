//! Where an axis comes from, in words the agent can act on: the changed lines whose features
//! pushed the axis up most (each line's share of the model's score). Each item names a file
//! and a line and says what changed ("the `Proxy-Authorization` header is no longer
//! removed"), not only the kind of rule that fired.

use crate::pipeline::axes::{AXIS_COUNT, AXIS_IDS};
use crate::scorer::Evidence;

use super::features::{Features, LineInfo};
use super::hunks::{self, Role};
use super::kinds::{self, Kind};
use super::model::{Model, Scored};
use super::quick::QuickMap;
use super::tokens::{self, TokenKind};

/// Evidence items kept per axis, strongest first.
pub const PER_AXIS: usize = 3;

/// The kinds that best describe a line for each axis, most telling first.
const PREFERRED: [&[Kind]; AXIS_COUNT] = [
    // behavior_regression
    &[
        Kind::Condition,
        Kind::Comparison,
        Kind::Return,
        Kind::Boolean,
        Kind::Bound,
        Kind::Arithmetic,
        Kind::Literal,
    ],
    // auth_boundary
    &[
        Kind::Header,
        Kind::Cookie,
        Kind::Auth,
        Kind::Crypto,
        Kind::Redirect,
        Kind::Condition,
        Kind::Validate,
    ],
    // input_validation
    &[
        Kind::Bound,
        Kind::Length,
        Kind::Escape,
        Kind::Validate,
        Kind::Sink,
        Kind::Path,
        Kind::Redirect,
        Kind::Comparison,
        Kind::Condition,
    ],
    // data_integrity
    &[
        Kind::Transaction,
        Kind::Data,
        Kind::Lock,
        Kind::Condition,
        Kind::Assign,
    ],
    // error_handling
    &[
        Kind::Raise,
        Kind::Try,
        Kind::Unwrap,
        Kind::ErrorValue,
        Kind::NullCheck,
        Kind::Return,
        Kind::Log,
    ],
    // compatibility
    &[
        Kind::Definition,
        Kind::Compat,
        Kind::Import,
        Kind::Config,
        Kind::Header,
    ],
    // lifecycle
    &[
        Kind::Release,
        Kind::Lock,
        Kind::Await,
        Kind::Acquire,
        Kind::Concurrency,
        Kind::Time,
    ],
    // regression_tests
    &[Kind::Assert, Kind::Skip, Kind::TestDecl],
];

/// One candidate: a line (index into [`Features::lines`]), its strength for the axis and
/// where it ranks. Its words are written only for the candidates kept.
struct Candidate {
    strength: f64,
    line: usize,
    place: (usize, u32, bool),
    /// Punctuation or a block keyword only ([`is_bare`]).
    bare: bool,
    /// In a test file for an axis about the code, or in the code for an axis about removed
    /// tests.
    elsewhere: bool,
}

/// Whether a line is only punctuation or a block keyword (`}`, `):`, `end`, `else {`): it
/// closes or opens something and says nothing about what changed.
fn is_bare(text: &str) -> bool {
    tokens::tokenize(text).iter().all(|t| match t.kind {
        TokenKind::Op => true,
        TokenKind::Word => matches!(
            &*t.text,
            "end" | "else" | "do" | "then" | "begin" | "fi" | "done" | "esac"
        ),
        _ => false,
    })
}

/// The detectors' findings as evidence, at most [`PER_AXIS`] per axis, in the order found:
/// each says what the rule saw and quotes the line.
pub fn findings(f: &Features) -> Vec<Evidence> {
    let mut out: Vec<Evidence> = Vec::new();
    for finding in &f.findings {
        let axis = finding.rule.axis();
        if out.iter().filter(|e| e.axis == axis).count() >= PER_AXIS {
            continue;
        }
        let file = f.files[finding.file].clone();
        let note = if finding.text.is_empty() || finding.text == file {
            finding.rule.sentence().to_owned()
        } else {
            format!("{}: `{}`", finding.rule.sentence(), finding.text)
        };
        let line = (!finding.text.is_empty() && finding.text != file).then_some(finding.line);
        out.push(Evidence {
            axis,
            file,
            line,
            note,
        });
    }
    out
}

/// The evidence for every axis. A line's strength for an axis is its share of the derivative
/// of `ln P(axis)`: its features' gate weights scaled by `1 − P(risky)`, plus their axis
/// weights minus the weights of the other axes in proportion to `P(axis | risky)`.
pub fn collect(model: &Model<'_>, f: &Features, scored: &Scored, axes: &[usize]) -> Vec<Evidence> {
    // How often each bucket was raised, so a line gets its share of a bucket's value.
    let mut occurrences: QuickMap<u32, u32> = QuickMap::default();
    for buckets in &f.line_buckets {
        for &b in buckets {
            *occurrences.entry(b).or_insert(0) += 1;
        }
    }
    // What one occurrence of each bucket gives every axis asked for (the same for every
    // line that raised it, so worked out once).
    let per_occurrence: QuickMap<u32, [f64; AXIS_COUNT]> = occurrences
        .iter()
        .map(|(&b, &n)| {
            let share = f64::from(f.get(b)) / f64::from(n.max(1));
            let inf = influences(model, scored, b);
            let mut s = [0.0; AXIS_COUNT];
            for &a in axes {
                s[a] = inf[a] * share;
            }
            (b, s)
        })
        .collect();
    let in_tests: Vec<bool> = f
        .files
        .iter()
        .map(|p| hunks::role_of(p) == Role::Test)
        .collect();
    // Test lines speak to regression_tests when the change removes some (a deleted or
    // weakened test); for every other axis the code under test is the place to look.
    let removes_tests = f.lines.iter().any(|l| l.removed && in_tests[l.file]);
    // Per line, its strength for every axis asked for: one pass over its buckets.
    let strengths: Vec<[f64; AXIS_COUNT]> = f
        .line_buckets
        .iter()
        .map(|buckets| {
            let mut s = [0.0; AXIS_COUNT];
            for b in buckets {
                let one = &per_occurrence[b];
                for &a in axes {
                    s[a] += one[a];
                }
            }
            s
        })
        .collect();
    // Whether a line is bare does not depend on the axis.
    let bare: Vec<bool> = f.lines.iter().map(|l| is_bare(&l.text)).collect();
    let mut out = Vec::new();
    for (axis, id) in AXIS_IDS.iter().enumerate() {
        if !axes.contains(&axis) {
            continue;
        }
        let tests_axis = *id == "regression_tests" && removes_tests;
        let mut candidates: Vec<Candidate> = Vec::new();
        for (li, line) in f.lines.iter().enumerate() {
            let strength = strengths[li][axis];
            candidates.push(Candidate {
                strength,
                line: li,
                place: (line.file, line.line, line.removed),
                bare: bare[li],
                elsewhere: in_tests[line.file] != tests_axis,
            });
        }
        // Lines that say something first (a lone `}` or `):` names no change the agent could
        // look at), then lines in the files that speak to the axis, then strongest first;
        // ties keep diff order (the sort is stable).
        candidates.sort_by(|a, b| {
            (a.bare, a.elsewhere)
                .cmp(&(b.bare, b.elsewhere))
                .then(b.strength.total_cmp(&a.strength))
        });
        let mut seen = Vec::new();
        let mut said: Vec<String> = Vec::new();
        for c in candidates {
            if seen.len() == PER_AXIS {
                break;
            }
            // Below zero a line argues against the axis; keep it only when nothing argues for.
            if c.strength <= 0.0 && !seen.is_empty() {
                break;
            }
            if seen.contains(&c.place) {
                continue;
            }
            let line = &f.lines[c.line];
            let note = describe(axis, line, line.partner.map(|p| &f.lines[p]));
            // Both sides of a modification say the same; once is enough.
            if said.contains(&note) {
                continue;
            }
            seen.push(c.place);
            said.push(note.clone());
            out.push(Evidence {
                axis,
                file: f.files[line.file].clone(),
                line: Some(line.line),
                note,
            });
        }
    }
    out
}

/// How much one unit of `bucket` moves `ln P(axis)`, for every axis.
fn influences(model: &Model<'_>, scored: &Scored, bucket: u32) -> [f64; AXIS_COUNT] {
    let gate = f64::from(model.gate_weight(bucket)) * (1.0 - scored.risky);
    let w: [f64; AXIS_COUNT] = std::array::from_fn(|c| f64::from(model.axis_weight(c, bucket)));
    let mean: f64 = (0..AXIS_COUNT).map(|c| scored.given_risky[c] * w[c]).sum();
    w.map(|wa| gate + wa - mean)
}

/// The part of a modified line that changed, in whole words and operators (`>=` → `>`, not
/// `=` → nothing): the tokens left once the common start and end are set aside. `None` when
/// nothing but spacing changed or the part is too long to say in a few words.
fn changed_part(old: &str, new: &str) -> Option<(String, String)> {
    const MOST: usize = 40;
    let (o, n) = (raw_tokens(old), raw_tokens(new));
    let start = o.iter().zip(&n).take_while(|(a, b)| a == b).count();
    let end = o[start..]
        .iter()
        .rev()
        .zip(n[start..].iter().rev())
        .take_while(|(a, b)| a == b)
        .count();
    let gone = o[start..o.len() - end].concat();
    let came = n[start..n.len() - end].concat();
    let (gone, came) = (gone.trim(), came.trim());
    if (gone.is_empty() && came.is_empty()) || gone.len() > MOST || came.len() > MOST {
        return None;
    }
    Some((gone.to_owned(), came.to_owned()))
}

/// A line cut into runs of word characters, of operator characters and of spaces, and single
/// brackets and separators; concatenated they give the line back.
fn raw_tokens(text: &str) -> Vec<&str> {
    let class = |c: char| {
        if c.is_alphanumeric() || c == '_' || c == '$' {
            1
        } else if c.is_whitespace() {
            0
        } else if "()[]{},;\"'`".contains(c) {
            3
        } else {
            2
        }
    };
    let mut out = Vec::new();
    let mut start = 0;
    let mut prev: Option<u8> = None;
    for (i, c) in text.char_indices() {
        let k = class(c);
        if prev.is_some_and(|p| p != k || k == 3) {
            out.push(&text[start..i]);
            start = i;
        }
        prev = Some(k);
    }
    if start < text.len() {
        out.push(&text[start..]);
    }
    out
}

/// What changed on `line`, in words, for `axis`; `partner` is the other side of a
/// modification.
pub fn describe(axis: usize, line: &LineInfo, partner: Option<&LineInfo>) -> String {
    if let Some(other) = partner {
        let (old, new) = if line.removed {
            (line, other)
        } else {
            (other, line)
        };
        if let Some((gone, came)) = changed_part(&old.text, &new.text) {
            let what = match (gone.is_empty(), came.is_empty()) {
                (false, false) => format!("`{gone}` became `{came}`"),
                (false, true) => format!("`{gone}` was dropped"),
                _ => format!("`{came}` was added"),
            };
            let kinds = old.kinds | new.kinds;
            let kind = PREFERRED[axis]
                .iter()
                .copied()
                .find(|k| kinds & k.bit() != 0);
            let head = kind.map_or_else(String::new, |k| format!("{} changed, ", k.phrase()));
            return format!("{head}{what}: {}", quote(&new.text));
        }
    }
    let code = quote(&line.text);
    // Only a kind that speaks to this axis names the change; otherwise the line is quoted
    // plainly (a kind chosen for another axis would put the wrong words on it).
    let kind = PREFERRED[axis]
        .iter()
        .copied()
        .find(|k| line.kinds & k.bit() != 0);
    let toks = tokens::tokenize(&line.text);
    let has_word = |words: &[&str]| {
        toks.iter()
            .any(|t| t.kind == TokenKind::Word && words.contains(&&*t.text))
    };
    match (kind, line.removed) {
        (Some(k @ (Kind::Header | Kind::Cookie)), removed) => {
            let what = if k == Kind::Header {
                "header"
            } else {
                "cookie"
            };
            let name = first_string(&line.text).map_or_else(String::new, |n| format!("`{n}` "));
            let stripping =
                has_word(&["del", "delete", "remove", "pop", "strip", "unset", "clear"]);
            match (removed, stripping) {
                (true, true) => format!("the {name}{what} is no longer removed: {code}"),
                (true, false) => format!("the {name}{what} is no longer set or checked: {code}"),
                (false, true) => format!("the {name}{what} is now removed: {code}"),
                (false, false) => format!("the {name}{what} is now set or read: {code}"),
            }
        }
        (Some(Kind::Auth), removed) if !is_guard(line.kinds, &toks) => {
            // A line that only mentions a user, a role or a token (an audit write, a log
            // line) is not a check, and saying "a check was removed" would send the agent
            // after the wrong thing.
            let verb = if removed {
                "was removed"
            } else {
                "was added or changed"
            };
            let word = toks.iter().find(|t| {
                t.kind == TokenKind::Word && kinds::word_kind(&t.text) & Kind::Auth.bit() != 0
            });
            match word {
                Some(w) => format!(
                    "a line using `{}` (identity or permissions) {verb}: {code}",
                    w.text
                ),
                None => format!("a line about identity or permissions {verb}: {code}"),
            }
        }
        (Some(Kind::Release), true) => format!("a release is no longer done: {code}"),
        (Some(Kind::Await), true) => format!("an `await` was dropped: {code}"),
        (Some(Kind::Assert), true) => format!("a test assertion was removed: {code}"),
        (Some(Kind::Skip), false) => format!("a test is now skipped: {code}"),
        (Some(Kind::Raise), true) => format!("an error is no longer raised or returned: {code}"),
        (Some(Kind::Condition), true) => format!("a condition was removed: {code}"),
        (Some(Kind::Lock), true) => format!("locking was removed: {code}"),
        (Some(Kind::Transaction), true) => format!("a transaction step was removed: {code}"),
        (Some(k), true) => format!("{} was removed: {code}", k.phrase()),
        (Some(k), false) => format!("{} was added or changed: {code}", k.phrase()),
        (None, removed) => {
            let verb = if removed {
                "was removed"
            } else {
                "was added or changed"
            };
            match callee(&line.text) {
                Some(name) => format!("a call to `{name}` {verb}: {code}"),
                None => format!("a line {verb}: {code}"),
            }
        }
    }
}

/// The function or method a line calls at its outermost level, last of a chain
/// (`db.audit().record(id)?` → `record`, `x = load(path(p))` → `load`).
fn callee(text: &str) -> Option<&str> {
    let bytes = text.as_bytes();
    let mut depth = 0usize;
    let mut found = None;
    let mut quote = None;
    for (i, &b) in bytes.iter().enumerate() {
        match (quote, b) {
            (Some(q), _) if b == q && bytes.get(i.wrapping_sub(1)) != Some(&b'\\') => quote = None,
            (Some(_), _) => {}
            (None, b'"' | b'\'' | b'`') => quote = Some(b),
            (None, b'(') => {
                if depth == 0 {
                    // Just after the last character that is not part of a name (which may
                    // take more than one byte).
                    let name_start = text[..i]
                        .char_indices()
                        .rfind(|&(_, c)| !(c.is_alphanumeric() || c == '_'))
                        .map_or(0, |(at, c)| at + c.len_utf8());
                    let name = &text[name_start..i];
                    let keyword = matches!(
                        name,
                        "if" | "elif"
                            | "while"
                            | "for"
                            | "foreach"
                            | "switch"
                            | "match"
                            | "catch"
                            | "return"
                            | "function"
                            | "fn"
                            | "def"
                            | "func"
                            | "sizeof"
                    );
                    if !keyword && name.starts_with(|c: char| c.is_alphabetic() || c == '_') {
                        found = Some(name);
                    }
                }
                depth += 1;
            }
            (None, b')') => depth = depth.saturating_sub(1),
            _ => {}
        }
    }
    found
}

/// Words that make a call a guard: `require_admin(caller)?`, `@login_required`,
/// `authorize!(:delete, post)`, `ensureOwner(req)`.
const GUARD_WORDS: &[&str] = &[
    "require",
    "required",
    "requires",
    "ensure",
    "check",
    "verify",
    "authorize",
    "authenticate",
    "deny",
    "forbid",
    "permit",
    "allow",
    "guard",
    "protect",
    "restrict",
    "enforce",
    "must",
];

/// Whether a line reads as a check: a condition, a comparison or negation, an error raised,
/// an assertion or validation, or a call named for a guard ([`GUARD_WORDS`]).
fn is_guard(line_kinds: kinds::Kinds, toks: &[tokens::Token<'_>]) -> bool {
    let checks = [
        Kind::Condition,
        Kind::Comparison,
        Kind::Negation,
        Kind::Logic,
        Kind::NullCheck,
        Kind::Raise,
        Kind::Assert,
        Kind::Validate,
    ];
    checks.iter().any(|k| line_kinds & k.bit() != 0)
        || toks
            .iter()
            .any(|t| t.kind == TokenKind::Word && GUARD_WORDS.contains(&&*t.text))
}

/// The line in backticks, short enough to read.
fn quote(text: &str) -> String {
    let mut t: String = text.chars().take(100).collect();
    if t.len() < text.len() {
        t.push('…');
    }
    format!("`{}`", t.replace('`', "'"))
}

/// The first string literal of a line, if short.
fn first_string(text: &str) -> Option<&str> {
    let start = text.find(['"', '\''])?;
    let quote = text[start..].chars().next()?;
    let rest = &text[start + 1..];
    let end = rest.find(quote)?;
    let s = &rest[..end];
    (!s.is_empty() && s.len() <= 60 && !s.contains('`')).then_some(s)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn line(text: &str, removed: bool) -> LineInfo {
        LineInfo {
            file: 0,
            line: 3,
            removed,
            text: text.into(),
            kinds: super::super::kinds::of(&tokens::tokenize(text), false),
            partner: None,
        }
    }

    #[test]
    fn a_modification_says_what_became_what() {
        let old = line("if size >= self.limit {", true);
        let new = line("if size > self.limit {", false);
        assert_eq!(
            describe(2, &old, Some(&new)),
            "a size or bounds limit changed, `>=` became `>`: `if size > self.limit {`"
        );
        assert_eq!(describe(2, &new, Some(&old)), describe(2, &old, Some(&new)));
        let old = line("return owner == actor", true);
        let new = line("return true", false);
        assert!(
            describe(1, &new, Some(&old))
                .ends_with("`owner == actor` became `true`: `return true`"),
            "{}",
            describe(1, &new, Some(&old))
        );
        let old = line("foo(a, b, c)", true);
        let new = line("foo(a, c)", false);
        assert!(describe(0, &new, Some(&old)).starts_with("`b,` was dropped"));
        // Spacing only, or a change too long to name: the line is described as before.
        let old = line("x  = 1", true);
        let new = line("x = 1", false);
        assert_eq!(describe(0, &new, Some(&old)), describe(0, &new, None));
        assert_eq!(raw_tokens("a >= b(c)").concat(), "a >= b(c)");
    }

    #[test]
    fn bare_lines_say_nothing() {
        for bare in ["}", "):", "});", "end", "} else {", "]"] {
            assert!(is_bare(bare), "{bare}");
        }
        for said in [
            "return nil, err",
            "x = 1",
            "if n > max {",
            "close(fd)",
            "\"admin\"",
        ] {
            assert!(!is_bare(said), "{said}");
        }
    }

    #[test]
    fn words_say_what_changed() {
        let l = line("del headers['Proxy-Authorization']", true);
        assert_eq!(
            describe(1, &l, None),
            "the `Proxy-Authorization` header is no longer removed: `del \
                headers['Proxy-Authorization']`"
        );
        let l = line("defer f.Close()", true);
        assert!(describe(6, &l, None).starts_with("a release is no longer done"));
        let l = line("if n > maxSize {", true);
        assert!(
            describe(2, &l, None).starts_with("a size or bounds limit was removed"),
            "{}",
            describe(2, &l, None)
        );
        let l = line("assert.Equal(t, want, got)", true);
        assert!(describe(7, &l, None).starts_with("a test assertion was removed"));
    }

    #[test]
    fn a_plain_line_names_what_it_calls() {
        assert_eq!(
            callee("db.audit().record(caller.id, \"x(y)\", id)?;"),
            Some("record")
        );
        assert_eq!(callee("x = load(path(p))"), Some("load"));
        assert_eq!(callee("if (a) {"), None);
        assert_eq!(callee("} else if(ready(x)) {"), None);
        assert_eq!(callee("let x = 1;"), None);
        // A name after a character of several bytes that is no part of a name.
        assert_eq!(callee("x = ¥load(p)"), Some("load"));
        assert_eq!(callee("\u{3347a}("), None);
        let l = line("db.audit().record(caller.id, \"delete_user\", id)?;", true);
        assert!(describe(0, &l, None).starts_with("a call to `record` was removed: "));
    }

    #[test]
    fn only_a_check_is_called_a_check() {
        for check in [
            "require_admin(caller)?;",
            "if !caller.is_authenticated() {",
            "@login_required",
            "if user.role != Role::Admin {",
        ] {
            let l = line(check, true);
            assert!(
                describe(1, &l, None)
                    .starts_with("an authentication or permission check was removed"),
                "{check}: {}",
                describe(1, &l, None)
            );
        }
        let l = line(
            "db.audit().record(caller.id, \"delete_user\", user_id)?;",
            true,
        );
        assert_eq!(
            describe(1, &l, None),
            "a line using `user` (identity or permissions) was removed: \
             `db.audit().record(caller.id, \"delete_user\", user_id)?;`"
        );
    }
}
