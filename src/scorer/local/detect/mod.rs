//! Precise detectors for what static analysis knows well: risk a change *introduces*
//! (verification switched off, queries, commands or code built from strings, unsafe
//! deserialization, widened permissions, credentials logged, errors swallowed, resources or
//! locks never released, timeouts removed) and *test tampering* (skip and focus markers,
//! deleted tests, removed or loosened assertions, rewritten snapshots, CI made tolerant).
//!
//! Each detector reads one changed line (or a line and its neighbours on the same side) of
//! one file, in that file's language, and names its axis, the line and what it saw. A finding
//! is a property of one line, so harmless code elsewhere in the turn cannot dilute it.
//! Findings are features of the learned model and also raise their axis on their own by
//! their rule's strength (see [`Rule::strength`]); hand-written string matching only, so a
//! hook process compiles nothing at start-up.

use std::collections::BTreeSet;

use super::hunks::{FileDiff, Hunk, Kind as LineKind, Line, Role};

/// Axis indices, in contract order.
const AUTH: usize = 1;
const INPUT: usize = 2;
const ERROR: usize = 4;
const LIFECYCLE: usize = 6;
const TESTS: usize = 7;

/// A detector's rule.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Rule {
    TlsVerifyOff,
    HostKeyOff,
    TokenVerifyOff,
    CsrfOff,
    PermissionsWidened,
    CredentialLogged,
    WeakCrypto,
    SqlFromString,
    CommandFromString,
    EvalFromString,
    RequestDataInSink,
    MarkupUnescaped,
    UnsafeDeserialize,
    ErrorSwallowed,
    ErrorCheckRemoved,
    ErrorDiscarded,
    ResourceUnclosed,
    UnlockRemoved,
    CancelDiscarded,
    TimeoutRemoved,
    TestSkipped,
    TestFocused,
    TestDeleted,
    TestFileDeleted,
    AssertionRemoved,
    AssertionLoosened,
    AssertionCaught,
    ExpectationChanged,
    SnapshotRewritten,
    CiTolerant,
    CiTestStepRemoved,
    RootCertTrusted,
    ArchivePathUnchecked,
    JumpInFinally,
    ContextDropped,
    SizeLimitMissing,
    InputValidationOff,
    SqlFromInput,
    AuthCheckRemoved,
    TimeoutDropped,
}

impl Rule {
    /// Every rule, in order.
    pub const ALL: [Rule; 40] = [
        Rule::TlsVerifyOff,
        Rule::HostKeyOff,
        Rule::TokenVerifyOff,
        Rule::CsrfOff,
        Rule::PermissionsWidened,
        Rule::CredentialLogged,
        Rule::WeakCrypto,
        Rule::SqlFromString,
        Rule::CommandFromString,
        Rule::EvalFromString,
        Rule::RequestDataInSink,
        Rule::MarkupUnescaped,
        Rule::UnsafeDeserialize,
        Rule::ErrorSwallowed,
        Rule::ErrorCheckRemoved,
        Rule::ErrorDiscarded,
        Rule::ResourceUnclosed,
        Rule::UnlockRemoved,
        Rule::CancelDiscarded,
        Rule::TimeoutRemoved,
        Rule::TestSkipped,
        Rule::TestFocused,
        Rule::TestDeleted,
        Rule::TestFileDeleted,
        Rule::AssertionRemoved,
        Rule::AssertionLoosened,
        Rule::AssertionCaught,
        Rule::ExpectationChanged,
        Rule::SnapshotRewritten,
        Rule::CiTolerant,
        Rule::CiTestStepRemoved,
        Rule::RootCertTrusted,
        Rule::ArchivePathUnchecked,
        Rule::JumpInFinally,
        Rule::ContextDropped,
        Rule::SizeLimitMissing,
        Rule::InputValidationOff,
        Rule::SqlFromInput,
        Rule::AuthCheckRemoved,
        Rule::TimeoutDropped,
    ];

    /// The axis the rule raises.
    pub fn axis(self) -> usize {
        use Rule::*;
        match self {
            TlsVerifyOff | HostKeyOff | TokenVerifyOff | CsrfOff | PermissionsWidened
            | CredentialLogged | WeakCrypto | RootCertTrusted | AuthCheckRemoved => AUTH,
            SqlFromString | CommandFromString | EvalFromString | RequestDataInSink
            | MarkupUnescaped | UnsafeDeserialize | ArchivePathUnchecked | SizeLimitMissing
            | InputValidationOff | SqlFromInput => INPUT,
            ErrorSwallowed | ErrorCheckRemoved | ErrorDiscarded | JumpInFinally => ERROR,
            ResourceUnclosed | UnlockRemoved | CancelDiscarded | TimeoutRemoved
            | ContextDropped | TimeoutDropped => LIFECYCLE,
            TestSkipped | TestFocused | TestDeleted | TestFileDeleted | AssertionRemoved
            | AssertionLoosened | AssertionCaught | ExpectationChanged | SnapshotRewritten
            | CiTolerant | CiTestStepRemoved => TESTS,
        }
    }

    /// A stable name (feature namespace, tests, the quality bench).
    pub fn name(self) -> &'static str {
        use Rule::*;
        match self {
            TlsVerifyOff => "tls-verify-off",
            HostKeyOff => "host-key-off",
            TokenVerifyOff => "token-verify-off",
            CsrfOff => "csrf-off",
            PermissionsWidened => "permissions-widened",
            CredentialLogged => "credential-logged",
            WeakCrypto => "weak-crypto",
            SqlFromString => "sql-from-string",
            CommandFromString => "command-from-string",
            EvalFromString => "eval-from-string",
            RequestDataInSink => "request-data-in-sink",
            MarkupUnescaped => "markup-unescaped",
            UnsafeDeserialize => "unsafe-deserialize",
            ErrorSwallowed => "error-swallowed",
            ErrorCheckRemoved => "error-check-removed",
            ErrorDiscarded => "error-discarded",
            ResourceUnclosed => "resource-unclosed",
            UnlockRemoved => "unlock-removed",
            CancelDiscarded => "cancel-discarded",
            TimeoutRemoved => "timeout-removed",
            TestSkipped => "test-skipped",
            TestFocused => "test-focused",
            TestDeleted => "test-deleted",
            TestFileDeleted => "test-file-deleted",
            AssertionRemoved => "assertion-removed",
            AssertionLoosened => "assertion-loosened",
            AssertionCaught => "assertion-caught",
            ExpectationChanged => "expectation-changed",
            SnapshotRewritten => "snapshot-rewritten",
            CiTolerant => "ci-tolerant",
            CiTestStepRemoved => "ci-test-step-removed",
            RootCertTrusted => "root-cert-trusted",
            ArchivePathUnchecked => "archive-path-unchecked",
            JumpInFinally => "jump-in-finally",
            ContextDropped => "context-dropped",
            SizeLimitMissing => "size-limit-missing",
            InputValidationOff => "input-validation-off",
            SqlFromInput => "sql-from-input",
            AuthCheckRemoved => "auth-check-removed",
            TimeoutDropped => "timeout-dropped",
        }
    }

    /// What the rule saw, as the start of an evidence sentence.
    pub fn sentence(self) -> &'static str {
        use Rule::*;
        match self {
            TlsVerifyOff => "TLS certificate or host name verification is switched off",
            HostKeyOff => "SSH host key checking is switched off",
            TokenVerifyOff => "a token's signature or claims are no longer verified",
            CsrfOff => "CSRF protection is switched off or removed",
            PermissionsWidened => {
                "a file, directory or resource is made readable or writable by everyone"
            }
            CredentialLogged => "a password, secret or token is written to a log or output",
            WeakCrypto => "a weak hash, cipher or random source is used",
            SqlFromString => "an SQL statement is built from strings",
            CommandFromString => "a shell command is built from strings or run through a shell",
            EvalFromString => "code is evaluated from a string that is not a literal",
            RequestDataInSink => "request data reaches a file path, URL, command or redirect",
            MarkupUnescaped => "markup is emitted without escaping",
            UnsafeDeserialize => {
                "data is deserialized with a loader that can build arbitrary objects"
            }
            ErrorSwallowed => "an error is caught and ignored",
            ErrorCheckRemoved => "an error check was removed",
            ErrorDiscarded => "an error or result is discarded",
            ResourceUnclosed => "a file, response or connection is opened without being closed",
            UnlockRemoved => "a lock's release was removed or a lock is taken without one",
            CancelDiscarded => "a context's cancel function is discarded",
            TimeoutRemoved => "a timeout was removed or a call is made without one",
            TestSkipped => "a test is marked skipped, ignored or expected to fail",
            TestFocused => "a test is focused (`only`), so the others stop running",
            TestDeleted => "a test was deleted while the code it covers stays",
            TestFileDeleted => "a test file was deleted",
            AssertionRemoved => "an assertion was removed",
            AssertionLoosened => "an assertion was loosened",
            AssertionCaught => "an assertion's failure is caught",
            ExpectationChanged => "a test's expected value changed while no code changed",
            SnapshotRewritten => "a snapshot or golden file was rewritten",
            CiTolerant => "CI is made to tolerate failures",
            CiTestStepRemoved => "a CI test step was removed",
            RootCertTrusted => "a certificate is added to the trusted root store",
            ArchivePathUnchecked => {
                "an archive is extracted with its entries' paths taken unchecked"
            }
            JumpInFinally => {
                "a return, break or throw inside finally or ensure discards the error in flight"
            }
            ContextDropped => {
                "a caller's context is replaced by a fresh one, so cancellation no longer reaches \
                    the work"
            }
            SizeLimitMissing => "a request body or archive is read without a size limit",
            InputValidationOff => "the framework's validation of request input is switched off",
            SqlFromInput => {
                "an SQL statement is built from a function's argument or request data and run"
            }
            AuthCheckRemoved => {
                "an authentication or authorization check was removed from a handler or skipped"
            }
            TimeoutDropped => "a timeout was dropped from a call or client that stays",
        }
    }

    /// How strongly one finding of this rule raises its axis on its own: about the rule's
    /// precision measured on the train sides (`cargo xtask detectors`: risky cases where it
    /// fires on their axis against safe variants, harmless test commits, ordinary commits and
    /// benign corpus commits where it fires), rounded down where few cases back it. At or above
    /// the threshold the rule fires alone; below, it needs the model too.
    pub fn strength(self) -> f64 {
        use Rule::*;
        match self {
            TlsVerifyOff | HostKeyOff | CsrfOff => 0.97,
            CiTolerant | PermissionsWidened => 0.94,
            RootCertTrusted | ArchivePathUnchecked | JumpInFinally => 0.92,
            TokenVerifyOff | WeakCrypto | UnlockRemoved | CancelDiscarded | TestFocused => 0.9,
            RequestDataInSink | EvalFromString | CommandFromString | UnsafeDeserialize => 0.9,
            ErrorCheckRemoved | ResourceUnclosed | MarkupUnescaped | CredentialLogged => 0.85,
            InputValidationOff | ContextDropped | SizeLimitMissing | TestSkipped => 0.85,
            AuthCheckRemoved => 0.85,
            SqlFromString | SqlFromInput | TimeoutRemoved | TimeoutDropped => 0.8,
            TestDeleted | AssertionLoosened => 0.75,
            TestFileDeleted | CiTestStepRemoved | ErrorSwallowed => 0.7,
            AssertionRemoved => 0.65,
            ExpectationChanged => 0.6,
            ErrorDiscarded => 0.55,
            AssertionCaught | SnapshotRewritten => 0.5,
        }
    }
}

/// One finding: a rule, the file (index into the parsed files) and the new-file line.
#[derive(Debug, Clone, PartialEq)]
pub struct Finding {
    pub rule: Rule,
    pub file: usize,
    pub line: u32,
    /// The line's text, trimmed (empty for a whole-file finding).
    pub text: String,
}

/// The language family a detector reads a file as (wider than the model's: PHP, C#, shell
/// and CI files have rules of their own).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Dialect {
    Python,
    Js,
    Go,
    Java,
    Ruby,
    Rust,
    Php,
    CSharp,
    Shell,
    /// YAML, JSON, TOML, INI, Makefiles: configuration and CI.
    Data,
    Other,
}

fn dialect_of(path: &str) -> Dialect {
    let name = path.rsplit('/').next().unwrap_or(path);
    let ext = name
        .rsplit_once('.')
        .map(|(_, e)| e.to_ascii_lowercase())
        .unwrap_or_default();
    match ext.as_str() {
        "py" | "pyi" => Dialect::Python,
        "js" | "jsx" | "mjs" | "cjs" | "ts" | "tsx" | "mts" | "cts" | "vue" | "svelte" => {
            Dialect::Js
        }
        "go" => Dialect::Go,
        "java" | "kt" | "kts" | "scala" | "groovy" | "cls" | "trigger" => Dialect::Java,
        "rb" | "rake" | "erb" | "gemspec" => Dialect::Ruby,
        "rs" => Dialect::Rust,
        _ if name.ends_with(".blade.php") => Dialect::Other,
        "php" | "inc" | "phtml" => Dialect::Php,
        "cs" | "cshtml" | "razor" => Dialect::CSharp,
        "sh" | "bash" | "zsh" | "ps1" => Dialect::Shell,
        "yml" | "yaml" | "json" | "toml" | "ini" | "cfg" | "mk" => Dialect::Data,
        _ if name == "Makefile" || name == "Jenkinsfile" || name == "Dockerfile" => Dialect::Data,
        _ => Dialect::Other,
    }
}

/// Whether `path` configures CI or the test run.
fn is_ci_path(path: &str) -> bool {
    let lower = path.to_ascii_lowercase();
    let name = lower.rsplit('/').next().unwrap_or(&lower);
    lower.starts_with(".github/workflows/")
        || lower.starts_with(".circleci/")
        || lower.starts_with(".buildkite/")
        || name == ".gitlab-ci.yml"
        || name == ".travis.yml"
        || name == "appveyor.yml"
        || name == ".appveyor.yml"
        || name.starts_with("azure-pipelines")
        || name == "jenkinsfile"
        || name == "tox.ini"
        || name == "noxfile.py"
        || name == "makefile"
        || name == "justfile"
        || name == "package.json"
        || name == "setup.cfg"
        || name == "pyproject.toml"
        || name == "pytest.ini"
        || name == ".coveragerc"
        || name == "codecov.yml"
        || name == ".codecov.yml"
        || name.starts_with("jest.config")
        || name.starts_with("vitest.config")
        || name.starts_with("karma.conf")
        || name == "phpunit.xml"
        || name == "phpunit.xml.dist"
}

/// Whether `path` holds recorded expectations: snapshots, golden files, approved outputs,
/// expected compiler output of UI tests.
fn is_snapshot_path(path: &str) -> bool {
    let lower = path.to_ascii_lowercase();
    let name = lower.rsplit('/').next().unwrap_or(&lower);
    let in_tests = lower.contains("test") || lower.contains("spec");
    ends_any(&lower, &[".snap", ".ambr", ".golden", ".phpt"])
        || any(
            &lower,
            &[
                "__snapshots__/",
                ".approved.",
                "/golden/",
                "/goldens/",
                "snapshots/",
            ],
        )
        || in_tests
            && (any(&lower, &["/baselines/", "/expected/", "/expectations/"])
                || ends_any(name, &[".stderr", ".stdout", ".expected", ".expect"])
                || any(name, &["expected_output", ".expected."]))
}

/// One line of one side of a hunk, as the detectors read it.
#[derive(Debug, Clone, Copy)]
struct SideLine<'a> {
    text: &'a str,
    line: u32,
    /// Added (or removed, on the old side) and a real change.
    changed: bool,
    /// Added on the new side / removed on the old side (changed or not).
    edited: bool,
}

/// The new side (context and added lines) or the old side (context and removed lines) of a
/// hunk, in order.
fn side<'a>(hunk: &Hunk<'a>, new: bool) -> Vec<SideLine<'a>> {
    let mine = if new {
        LineKind::Added
    } else {
        LineKind::Removed
    };
    hunk.lines
        .iter()
        .filter(|l| l.kind == LineKind::Context || l.kind == mine)
        .map(|l| SideLine {
            text: l.text,
            line: l.new_line,
            changed: l.kind == mine && l.changed,
            edited: l.kind == mine,
        })
        .collect()
}

/// The next lines after `at` that say something (not blank), at most `n`.
fn following<'a>(lines: &[SideLine<'a>], at: usize, n: usize) -> Vec<&'a str> {
    lines[at + 1..]
        .iter()
        .map(|l| l.text.trim())
        .filter(|t| !t.is_empty())
        .take(n)
        .collect()
}

/// A line trimmed and lower-cased, and that again without string contents: made once per
/// line of a hunk's side for every rule that reads the hunk.
struct Lowered {
    lower: String,
    /// [`code_only`] of `lower`.
    code: String,
}

impl Lowered {
    fn of(text: &str) -> Lowered {
        let lower = text.trim().to_ascii_lowercase();
        let code = code_only(&lower);
        Lowered { lower, code }
    }
}

/// `lines` lower-cased and joined by `sep`: a window of code read as one text, so a rule can
/// look for a setting or a close anywhere in it.
fn lowered(lines: &[SideLine<'_>], sep: &str) -> String {
    lines
        .iter()
        .map(|l| l.text.to_ascii_lowercase())
        .collect::<Vec<_>>()
        .join(sep)
}

/// `text` without its whitespace, so `x = f( a )` and `x=f(a)` read alike.
fn without_spaces(text: &str) -> String {
    super::hunks::normalize(text)
}

/// `text` without string literals' contents (quotes kept), so a word inside a message does
/// not read as code.
fn code_only(text: &str) -> String {
    strings_removed(text, &['"', '\'', '`'], &[])
}

/// `text` with the contents of the literals quoted by one of `quotes` removed (the quotes
/// stay), except those quoted by one of `kept`.
pub(super) fn strings_removed(text: &str, quotes: &[char], kept: &[char]) -> String {
    let mut out = String::with_capacity(text.len());
    let mut quote: Option<char> = None;
    let mut escaped = false;
    // Where the run of characters kept since the last one dropped starts: runs are copied
    // whole.
    let mut run = 0;
    for (at, c) in text.char_indices() {
        let keep = match quote {
            Some(q) => {
                if escaped {
                    escaped = false;
                } else if c == '\\' {
                    escaped = true;
                } else if c == q {
                    quote = None;
                }
                kept.contains(&q) || quote.is_none()
            }
            None => {
                if quotes.contains(&c) {
                    quote = Some(c);
                }
                true
            }
        };
        if !keep {
            out.push_str(&text[run..at]);
            run = at + c.len_utf8();
        }
    }
    out.push_str(&text[run..]);
    out
}

/// A line of code (string contents already removed) without its trailing comment.
fn strip_comment(code: &str, dialect: Dialect) -> String {
    let markers: &[&str] = if matches!(
        dialect,
        Dialect::Python | Dialect::Ruby | Dialect::Shell | Dialect::Php | Dialect::Data
    ) {
        &[" //", "\t//", " /*", " #", "\t#"]
    } else {
        &[" //", "\t//", " /*"]
    };
    let cut = markers.iter().filter_map(|m| code.find(m)).min();
    match cut {
        Some(at) => code[..at].to_owned(),
        None => code.to_owned(),
    }
}

/// Whether `text` holds any of `needles`.
fn any(text: &str, needles: &[&str]) -> bool {
    // A needle with two neighbouring bytes that are nowhere neighbours in the text cannot be
    // in it: most of a long list is ruled out by that alone, before any search.
    let pair = |a: u8, b: u8| (usize::from(a) * 67 + usize::from(b)) % 1024;
    let mut held = [0u64; 16];
    for w in text.as_bytes().windows(2) {
        let p = pair(w[0], w[1]);
        held[p / 64] |= 1 << (p % 64);
    }
    let fits = |n: &str| {
        n.as_bytes().windows(2).all(|w| {
            let p = pair(w[0], w[1]);
            held[p / 64] & (1 << (p % 64)) != 0
        })
    };
    needles.iter().any(|n| fits(n) && text.contains(n))
}

/// Whether `text`, lower-cased (ASCII), holds `needle`, without lower-casing a copy of it.
fn contains_lowered(text: &str, needle: &str) -> bool {
    let (text, needle) = (text.as_bytes(), needle.as_bytes());
    let Some(first) = needle.first() else {
        return true;
    };
    text.windows(needle.len())
        .any(|w| w[0].to_ascii_lowercase() == *first && w.eq_ignore_ascii_case(needle))
}

/// Whether `text` starts with any of `prefixes`.
fn starts_any(text: &str, prefixes: &[&str]) -> bool {
    prefixes.iter().any(|p| text.starts_with(p))
}

/// Whether `text` ends with any of `suffixes`.
fn ends_any(text: &str, suffixes: &[&str]) -> bool {
    suffixes.iter().any(|p| text.ends_with(p))
}

/// Whether a line's call argument after `call` is built rather than a literal: string
/// interpolation, concatenation or formatting, or a bare name.
fn built_argument(text: &str, call: &str) -> bool {
    let Some(at) = text.find(call) else {
        return false;
    };
    let rest = text[at + call.len()..].trim_start();
    interpolated(rest)
        || !(rest.starts_with('"')
            || rest.starts_with('\'')
            || rest.starts_with('`')
            || rest.starts_with(')')
            || rest.starts_with('[')
            || rest.is_empty())
}

/// Whether `text` holds a string built from values: interpolation, concatenation with a
/// name, or a format call.
fn interpolated(text: &str) -> bool {
    let t = text;
    any(
        t,
        &[
            "f\"",
            "f'",
            "${",
            "#{",
            ".format(",
            "% (",
            "%(",
            "Sprintf(",
            "sprintf(",
            "$\"",
            "String.format(",
            "format!(",
            "\" +",
            "' +",
            "+ \"",
            "+ '",
            "\"+",
            "+\"",
            "\" .",
            "' .",
            ". \"",
            ". '",
            "\" %",
            "' %",
        ],
    ) || php_interpolated(t)
}

/// PHP's `"… $name …"` interpolation.
fn php_interpolated(text: &str) -> bool {
    let b = text.as_bytes();
    let mut in_double = false;
    for (i, &c) in b.iter().enumerate() {
        if c == b'"' && (i == 0 || b[i - 1] != b'\\') {
            in_double = !in_double;
        } else if in_double
            && c == b'$'
            && b.get(i + 1)
                .is_some_and(|n| n.is_ascii_alphabetic() || *n == b'_')
        {
            return true;
        }
    }
    false
}

/// The values a line splices into its string literals: expressions concatenated to a
/// literal (`"…" + x`, `'…' . $x`) and interpolations inside one (`{x}`, `${x}`, `#{x}`,
/// PHP `$x`). `None` when the line formats in ways not read here (`%`, `.format(`).
fn spliced_values(raw: &str) -> Option<Vec<String>> {
    let lower = raw.to_ascii_lowercase();
    if lower.contains(".format(")
        || lower.contains("sprintf(")
        || lower.contains("string.format(")
        || lower.contains("\" %")
        || lower.contains("' %")
        || lower.contains("format!(")
    {
        return None;
    }
    let b = raw.as_bytes();
    let mut out: Vec<String> = Vec::new();
    let mut i = 0;
    let mut literal_ends: Vec<(usize, usize)> = Vec::new(); // (start, end) of literals
    while i < b.len() {
        let c = b[i];
        if c == b'"' || c == b'\'' || c == b'`' {
            let q = c;
            let start = i;
            i += 1;
            let mut content = String::new();
            while i < b.len() && b[i] != q {
                if b[i] == b'\\' {
                    // An escaped character is literal text (`\$x` is not interpolated).
                    content.push('\\');
                    i += 1;
                    if i < b.len() {
                        content.push(if b[i] == b'$' { 'S' } else { b[i] as char });
                    }
                    i += 1;
                    continue;
                }
                content.push(b[i] as char);
                i += 1;
            }
            i += 1;
            literal_ends.push((start, i.min(b.len())));
            if q != b'\'' {
                interpolations(&content, &mut out);
            }
        } else {
            i += 1;
        }
    }
    // Concatenated pieces: the code between a literal and the next one (or the end of the
    // call), when it starts or ends with a concatenation operator.
    for w in 0..literal_ends.len() {
        let (_, end) = literal_ends[w];
        let next = literal_ends.get(w + 1).map_or(b.len(), |(s, _)| *s);
        let between = raw[end..next].trim();
        let starts = between.starts_with('+')
            || between.starts_with(". ")
            || between.starts_with(".$")
            || between.starts_with("..")
            || between == ".";
        if !starts {
            continue;
        }
        let piece = between
            .trim_start_matches(['+', '.'])
            .trim_end_matches(['+', '.', ' '])
            .trim();
        // Up to the end of the call's argument.
        let piece = piece.split([',', ';']).next().unwrap_or(piece).trim();
        if !piece.is_empty() {
            out.push(piece.to_owned());
        }
    }
    // A piece before the first literal: `x + "…"`.
    if let Some((first, _)) = literal_ends.first() {
        let before = raw[..*first].trim_end();
        if let Some(head) = before.strip_suffix('+') {
            let piece = head
                .rsplit(['(', '=', ',', ' '])
                .next()
                .unwrap_or("")
                .trim();
            if !piece.is_empty() {
                out.push(piece.to_owned());
            }
        }
    }
    Some(out)
}

/// The values interpolated in a literal's `content`: `{x}`, `${x}`, `#{x}`, `$x`.
fn interpolations(content: &str, out: &mut Vec<String>) {
    let cb = content.as_bytes();
    let mut k = 0;
    while k < cb.len() {
        if cb[k] == b'{' {
            let end = content[k..].find('}').map_or(cb.len(), |n| k + n);
            let inner = content[k + 1..end].trim_start_matches('$').to_owned();
            if !inner.is_empty() {
                out.push(inner);
            }
            k = end + 1;
        } else if cb[k] == b'$'
            && cb
                .get(k + 1)
                .is_some_and(|n| n.is_ascii_alphabetic() || *n == b'_')
        {
            let end = content[k + 1..]
                .find(|ch: char| {
                    !(ch.is_ascii_alphanumeric() || ch == '_' || ch == '-' || ch == '>')
                })
                .map_or(cb.len(), |n| k + 1 + n);
            out.push(content[k..end].to_owned());
            k = end;
        } else {
            k += 1;
        }
    }
}

/// A spliced value that cannot carry SQL: a number, a cast or conversion to a number, an
/// escaping call, a constant, a table or placeholder list.
fn safe_sql_piece(piece: &str) -> bool {
    let p = piece
        .trim()
        .trim_matches(['(', ')', ' '])
        .to_ascii_lowercase();
    if p.is_empty() {
        return true;
    }
    let numeric = p
        .chars()
        .all(|c| c.is_ascii_digit() || "_.+-*/ xo".contains(c))
        && p.chars().any(|c| c.is_ascii_digit());
    let constant = piece
        .trim()
        .rsplit(['>', ':', '.'])
        .next()
        .is_some_and(|last| {
            last.len() > 1
                && last
                    .chars()
                    .all(|c| c.is_ascii_uppercase() || c == '_' || c.is_ascii_digit())
        });
    numeric
        || constant
        || p.starts_with("(int)")
        || p.starts_with("(float)")
        || p.starts_with("int)")
        || p.starts_with("float)")
        || sanitized(&p)
        || p.contains("parse(")
        || p.contains("esc_sql")
        || p.starts_with("len(")
        || p.starts_with("count(")
        || p.contains("table")
        || p.contains("prefix")
        || p.contains("placeholder")
        || p.starts_with("$wpdb->")
        || p.starts_with("wpdb->")
}

/// Names assigned an SQL statement literal in a run of lines (`query := "SELECT …"`).
fn sql_variables(lines: &[Lowered]) -> Vec<String> {
    let mut out = Vec::new();
    for l in lines {
        if !sql_string(&l.lower) {
            continue;
        }
        for n in assigned_names(&l.code) {
            if !out.contains(&n) {
                out.push(n);
            }
        }
    }
    out
}

/// A value appended to an SQL statement held in a variable (`query += x`,
/// `query = query + x`, `$sql .= $x`), when the value is not a literal or a safe piece.
fn sql_appended(s: &str, sql_vars: &[String]) -> bool {
    sql_vars.iter().any(|v| {
        let v = v.as_str();
        let tail = s
            .strip_prefix(&format!("{v}+="))
            .or_else(|| s.strip_prefix(&format!("${v}.=")))
            .or_else(|| s.strip_prefix(&format!("{v}={v}+")))
            .or_else(|| s.strip_prefix(&format!("${v}=${v}.")));
        tail.is_some_and(|t| {
            let t = t.trim_end_matches(';');
            !t.starts_with(['"', '\'', '`']) && !safe_sql_piece(t)
        })
    })
}

const SQL_VERBS: &[&str] = &[
    "select ",
    "insert into",
    "update ",
    "delete from",
    "drop table",
    "create table",
    "alter table",
    " where ",
    "order by",
];

/// Whether a lower-cased line holds SQL inside a string literal.
fn sql_string(lower: &str) -> bool {
    let quoted = lower.contains('"') || lower.contains('\'') || lower.contains('`');
    if !quoted {
        return false;
    }
    let verbs = SQL_VERBS.iter().filter(|v| lower.contains(**v)).count();
    verbs >= 2
        || (lower.contains("select ") && lower.contains(" from "))
        || lower.contains("insert into")
        || lower.contains("delete from")
        || (lower.contains("update ") && lower.contains(" set "))
}

const REQUEST_DATA: &[&str] = &[
    "request.args",
    "request.form",
    "request.get[",
    "request.post[",
    "request.get.get(",
    "request.post.get(",
    "request.values",
    "request.json",
    "request.query_params",
    "request.params",
    "req.query",
    "req.params",
    "req.body",
    "$_get",
    "$_post",
    "$_request",
    "$_cookie",
    "$_files",
    "params[:",
    "r.url.query()",
    "r.formvalue(",
    "r.form.get(",
    "c.query(",
    "c.param(",
    "getparameter(",
    "request.query[",
    "request.form[",
    "request.querystring",
];

/// Sinks where request data is dangerous.
const SINKS: &[&str] = &[
    "open(",
    "readfile",
    "writefile",
    "createreadstream",
    "sendfile(",
    "send_file(",
    "send_from_directory(",
    "os.path.join(",
    "path.join(",
    "filepath.join(",
    "new file(",
    "file_get_contents(",
    "fopen(",
    "include ",
    "require ",
    "include_once",
    "require_once",
    "urlopen(",
    "requests.get(",
    "requests.post(",
    "http.get(",
    "fetch(",
    "axios.get(",
    "redirect(",
    "redirect_to",
    "header(\"location",
    "sendredirect(",
    "os.system(",
    "subprocess.",
    "exec(",
    "exec.command(",
    "system(",
    "render_template_string(",
    "eval(",
    "unserialize(",
    "pickle.loads(",
];

/// Reads every file of a parsed, `mark_changed` payload as one turn.
pub fn find(files: &[FileDiff<'_>]) -> Vec<Finding> {
    find_in(files, &Context::of(files))
}

/// Reads one unit of a turn (a file, or a file and its test) with facts about the whole turn.
/// Findings' `file` indexes `unit_files`.
pub fn find_in(unit_files: &[FileDiff<'_>], ctx: &Context) -> Vec<Finding> {
    let ctx = &ctx.scoped(unit_files);
    let mut out = Vec::new();
    for (fi, file) in unit_files.iter().enumerate() {
        let snapshot = is_snapshot_path(&file.path);
        if file.role == Role::Docs && !snapshot {
            continue;
        }
        let dialect = dialect_of(&file.path);
        let ci = is_ci_path(&file.path);
        let tests = file.role == Role::Test;
        // Tests in a source file (Rust `mod tests`, a `unittests/` directory).
        let test_like = tests || file.role == Role::Source && declares_tests(file);
        let mut push = |rule: Rule, line: u32, text: &str| {
            out.push(Finding {
                rule,
                file: fi,
                line,
                text: text.trim().chars().take(160).collect(),
            });
        };
        if snapshot {
            snapshot_file(file, ctx, &mut push);
            continue;
        }
        if test_like {
            test_file(file, ctx, &mut push);
        }
        if ci {
            ci_file(file, dialect, &mut push);
        }
        if !tests {
            let all_added = edited_text(file, LineKind::Added);
            for hunk in &file.hunks {
                introduced(hunk, dialect, &mut push);
                removed_guards(hunk, dialect, &all_added, &mut push);
                handling_discarded(hunk, dialect, &mut push);
                timeout_dropped(hunk, dialect, &mut push);
            }
        }
    }
    out.sort_by_key(|f| (f.file, f.line, f.rule));
    out.dedup_by(|a, b| a.file == b.file && a.line == b.line && a.rule == b.rule);
    out
}

/// Whether a file's hunks show test declarations (`#[test]`, `def test_…`, `@Test`).
fn declares_tests(file: &FileDiff<'_>) -> bool {
    file.hunks.iter().flat_map(|h| &h.lines).any(|l| {
        let t = l.text.trim();
        let t = t.strip_prefix("//").unwrap_or(t).trim_start();
        is_test_annotation(t)
            || test_decl(t).is_some()
            || t.starts_with('@')
                && t[1..]
                    .split(['(', ' '])
                    .next()
                    .unwrap_or("")
                    .ends_with("Test")
    })
}

/// Facts about the turn that some detectors weigh when they read one unit of it. Names are
/// read across the whole turn (a test declared again elsewhere was moved; a test named after
/// code the turn removed went with it); counts are of the unit being read ([`Context::scoped`]:
/// did its files change or delete non-test code, create tests), so a file unrelated to the
/// unit never silences one of its findings.
#[derive(Debug, Clone, Default)]
pub struct Context {
    /// Lines of non-test code that really changed (added or removed).
    pub code_lines: usize,
    /// A non-test source file was deleted.
    pub code_deleted: bool,
    /// A test file was created.
    pub test_created: bool,
    /// Tests declared anywhere in the turn under a name no removed test had: the turn extends
    /// the suite (recorded counts and outputs then change for a reason).
    pub new_tests: usize,
    /// The names read across the whole turn, shared by every unit's [`Context::scoped`].
    names: std::sync::Arc<Names>,
}

/// Names read across the whole turn.
#[derive(Debug, Clone, Default)]
struct Names {
    /// Names (normalized) of the tests declared on added lines anywhere in the turn.
    added_tests: BTreeSet<String>,
    /// Base names (normalized) of the test files created in the turn.
    created_tests: BTreeSet<String>,
    /// Words of the declarations removed from non-test code: a test named after removed code
    /// went with it.
    removed_code_words: BTreeSet<String>,
    /// Identifiers (lower-cased, 5 characters or more) that non-test code lost: on removed
    /// lines and on no added line. A test that used them went with them.
    removed_code_idents: BTreeSet<String>,
    /// Names (normalized) of the tests declared on removed lines anywhere in the turn.
    removed_tests: BTreeSet<String>,
}

impl Context {
    /// The facts of a whole turn's parsed, `mark_changed` files.
    pub fn of(all_files: &[FileDiff<'_>]) -> Context {
        let code = |f: &&FileDiff<'_>| f.role == Role::Source && !is_snapshot_path(&f.path);
        let mut ctx = Context {
            code_lines: all_files
                .iter()
                .filter(code)
                .flat_map(|f| f.hunks.iter().flat_map(|h| &h.lines))
                .filter(|l| l.changed)
                .count(),
            code_deleted: all_files.iter().filter(code).any(|f| f.deleted),
            test_created: all_files.iter().any(|f| f.role == Role::Test && f.created),
            ..Context::default()
        };
        let mut names = Names::default();
        for f in all_files {
            if f.role == Role::Test {
                if f.created {
                    names.created_tests.insert(file_stem(&f.path));
                }
                for (_, name) in edited_decls(f, true) {
                    names.added_tests.insert(name);
                }
            } else if f.role == Role::Source {
                for l in f.hunks.iter().flat_map(|h| &h.lines) {
                    if l.kind == LineKind::Removed && l.changed {
                        if let Some(name) = declared_name(l.text) {
                            names.removed_code_words.extend(words_of(&name));
                        }
                        names.removed_code_idents.extend(idents_of(l.text));
                    }
                }
            }
        }
        for f in all_files.iter().filter(|f| f.role != Role::Docs) {
            names
                .removed_tests
                .extend(edited_decls(f, false).into_iter().map(|(_, n)| n));
        }
        ctx.new_tests = names
            .added_tests
            .iter()
            .filter(|n| !names.removed_tests.contains(*n))
            .count();
        for f in all_files.iter().filter(|f| f.role == Role::Source) {
            for l in f.hunks.iter().flat_map(|h| &h.lines) {
                if l.kind == LineKind::Added && !names.removed_code_idents.is_empty() {
                    for id in idents_of(l.text) {
                        names.removed_code_idents.remove(&id);
                    }
                }
            }
        }
        ctx.names = std::sync::Arc::new(names);
        ctx
    }

    /// The turn's names with the counts of one unit's files.
    pub fn scoped(&self, unit_files: &[FileDiff<'_>]) -> Context {
        let code = |f: &&FileDiff<'_>| f.role == Role::Source && !is_snapshot_path(&f.path);
        let added: BTreeSet<String> = unit_files
            .iter()
            .filter(|f| f.role == Role::Test)
            .flat_map(|f| edited_decls(f, true).into_iter().map(|(_, n)| n))
            .collect();
        Context {
            code_lines: unit_files
                .iter()
                .filter(code)
                .flat_map(|f| f.hunks.iter().flat_map(|h| &h.lines))
                .filter(|l| l.changed)
                .count(),
            code_deleted: unit_files.iter().filter(code).any(|f| f.deleted),
            test_created: unit_files.iter().any(|f| f.role == Role::Test && f.created),
            new_tests: added
                .iter()
                .filter(|n| !self.names.removed_tests.contains(*n))
                .count(),
            ..self.clone()
        }
    }

    /// Whether a removed test used code the turn removed: its name holds, or its body calls,
    /// an identifier non-test code lost.
    fn test_uses_removed_code(&self, name: &str, body: &[&str]) -> bool {
        !self.names.removed_code_idents.is_empty()
            && (self
                .names
                .removed_code_idents
                .iter()
                .any(|id| id.len() >= 6 && name.contains(id.as_str()))
                || body
                    .iter()
                    .flat_map(|l| idents_of(l))
                    .any(|id| self.names.removed_code_idents.contains(&id)))
    }

    /// Whether a test removed under `name` was declared again somewhere in the turn, under
    /// the same name, a name holding it, or in a new test file named after it.
    fn test_moved(&self, name: &str) -> bool {
        self.names.added_tests.contains(name)
            || name.len() >= 6
                && (self.names.added_tests.iter().any(|a| a.contains(name))
                    || self
                        .names
                        .created_tests
                        .iter()
                        .any(|f| f.len() >= 6 && (name.contains(f.as_str()) || f.contains(name))))
    }

    /// Whether a removed test's name points at code the turn removed.
    fn test_explained(&self, name: &str) -> bool {
        self.code_deleted
            || words_of(name)
                .iter()
                .any(|w| w.len() >= 4 && self.names.removed_code_words.contains(w))
    }
}

/// A test file's base name without test affixes or extension, lower-cased.
fn file_stem(path: &str) -> String {
    let name = path.rsplit('/').next().unwrap_or(path).to_ascii_lowercase();
    let stem = name.split('.').next().unwrap_or(&name).to_owned();
    let stem = stem
        .trim_start_matches("test_")
        .trim_end_matches("_test")
        .trim_end_matches("_spec")
        .trim_end_matches("tests")
        .trim_end_matches("test");
    norm_name(stem)
}

/// The identifiers of a line of code, lower-cased, 5 characters or more, keywords left out.
fn idents_of(text: &str) -> Vec<String> {
    const COMMON: &[&str] = &[
        "return",
        "false",
        "const",
        "string",
        "class",
        "public",
        "private",
        "static",
        "final",
        "import",
        "async",
        "await",
        "throw",
        "throws",
        "while",
        "self",
        "value",
        "error",
        "errors",
        "assert",
        "expect",
        "equal",
        "should",
        "object",
        "double",
        "float",
        "number",
        "boolean",
        "println",
        "printf",
        "sprintf",
        "length",
        "append",
        "unwrap",
        "clone",
        "nullptr",
        "undefined",
        "typeof",
        "instanceof",
        "elif",
        "raise",
        "yield",
        "lambda",
        "override",
        "struct",
        "interface",
        "extends",
        "implements",
        "protected",
        "function",
        "context",
        "result",
        "require",
        "equals",
        "format",
        "params",
        "options",
        "config",
        "default",
        "delete",
        "update",
        "create",
        "input",
        "output",
        "message",
        "count",
    ];
    text.split(|c: char| !c.is_ascii_alphanumeric() && c != '_')
        .filter(|w| w.len() >= 5 && w.starts_with(|c: char| c.is_ascii_alphabetic()))
        .map(str::to_ascii_lowercase)
        .filter(|w| !COMMON.contains(&w.as_str()))
        .collect()
}

/// The lower-cased words of an identifier or phrase (`snake_case`, `camelCase`, spaces).
fn words_of(name: &str) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    let mut word = String::new();
    let mut prev_lower = false;
    for c in name.chars() {
        if c.is_ascii_alphanumeric() {
            if c.is_ascii_uppercase() && prev_lower && !word.is_empty() {
                out.insert(std::mem::take(&mut word));
            }
            prev_lower = c.is_ascii_lowercase() || c.is_ascii_digit();
            word.push(c.to_ascii_lowercase());
        } else {
            if !word.is_empty() {
                out.insert(std::mem::take(&mut word));
            }
            prev_lower = false;
        }
    }
    if !word.is_empty() {
        out.insert(word);
    }
    for generic in [
        "test", "tests", "should", "when", "with", "returns", "that", "func",
    ] {
        out.remove(generic);
    }
    out
}

/// Keywords that start a function's declaration (lower case, with their space).
const FUNCTION_KEYWORDS: &[&str] = &[
    "def ",
    "async def ",
    "func ",
    "fn ",
    "pub fn ",
    "pub(crate) fn ",
    "function ",
];

/// The name a line of code declares (a function, method or class), if it declares one.
fn declared_name(text: &str) -> Option<String> {
    let t = text.trim_start();
    for kw in FUNCTION_KEYWORDS.iter().copied().chain([
        "export function ",
        "export async function ",
        "async function ",
        "class ",
        "public function ",
        "private function ",
        "protected function ",
    ]) {
        if let Some(rest) = t.strip_prefix(kw) {
            // Go methods: `func (r *T) Name(`.
            let rest = if rest.starts_with('(') {
                rest.split_once(')').map_or(rest, |(_, r)| r.trim_start())
            } else {
                rest
            };
            let name: String = rest
                .chars()
                .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
                .collect();
            if name.len() >= 3 {
                return Some(name);
            }
        }
    }
    // Java, C#: `public Type name(`.
    if (t.starts_with("public ") || t.starts_with("private ") || t.starts_with("protected "))
        && t.contains('(')
    {
        let head = &t[..t.find('(').unwrap_or(t.len())];
        let name = head.rsplit(' ').next().unwrap_or("");
        if name.len() >= 3 && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') {
            return Some(name.to_owned());
        }
    }
    None
}

mod access;
mod ci;
mod introduced;
mod languages;
mod patterns;
mod query_input;
mod tampering;
#[cfg(test)]
mod tests;

use access::*;
use ci::*;
use introduced::*;
use languages::*;
use patterns::*;
use query_input::*;
use tampering::*;
