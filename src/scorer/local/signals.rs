//! Reading signals out of a parsed diff: the line rules of [`super::line_rules`], plus structural
//! signals that need more than one line — short-circuited access decisions (by the enclosing
//! function), paired before/after lines (flipped conditions, changed constants, dropped `?`),
//! public signatures, dependency majors, configuration keys, and tests.

use std::collections::HashSet;

use std::sync::{LazyLock, OnceLock};

use regex::Regex;
use regex_automata::Input;
use regex_automata::meta::Regex as LineRegex;

use super::hunks::{FileDiff, Kind, Lang, Line, Role, normalize};
use super::line_rules::{AUTH, BEHAVIOR, COMPAT, ERRORS, INPUT, RULES, Rule, Side, TESTS};
use super::prefilter::Prefilter;

/// Longest prefix of a line the rules read; keeps minified or generated lines cheap.
const MAX_LINE: usize = 800;

/// One signal found at one place.
#[derive(Debug, Clone, PartialEq)]
pub struct Hit {
    pub axis: usize,
    pub id: &'static str,
    pub weight: f64,
    pub file: String,
    /// New-file line shown to the agent (0 when the signal is about the whole file).
    pub line: u32,
    /// Distinguishes places: several removed lines share one new-file line.
    pub place: u64,
    pub note: String,
}

/// The line rules split by side, each compiled the first time a payload could match it.
struct Compiled {
    added: RuleSide,
    removed: RuleSide,
}

struct RuleSide {
    rules: Vec<&'static Rule>,
    /// Patterns as compiled: multi-line mode (the rules anchor on line starts and ends within
    /// the joined side text), ASCII classes.
    patterns: Vec<String>,
    regexes: Vec<OnceLock<LineRegex>>,
    unless: Vec<OnceLock<Option<LineRegex>>>,
    prefilter: Prefilter,
}

impl RuleSide {
    fn new(rules: Vec<&'static Rule>) -> RuleSide {
        let patterns: Vec<String> = rules
            .iter()
            .map(|r| ascii_classes(&format!("(?m:{})", r.pattern)))
            .collect();
        RuleSide {
            // The prefilter reads the patterns as written: the ASCII rewrite only expands
            // classes, which it does not look into.
            prefilter: Prefilter::new(rules.iter().map(|r| r.pattern)),
            regexes: rules.iter().map(|_| OnceLock::new()).collect(),
            unless: rules.iter().map(|_| OnceLock::new()).collect(),
            rules,
            patterns,
        }
    }

    fn regex(&self, i: usize) -> &LineRegex {
        self.regexes[i].get_or_init(|| line_regex(&self.patterns[i]))
    }

    fn unless(&self, i: usize) -> Option<&LineRegex> {
        self.unless[i]
            .get_or_init(|| self.rules[i].unless.map(|p| line_regex(&ascii_classes(p))))
            .as_ref()
    }
}

/// A line rule's regex: ASCII semantics over bytes. Code is ASCII in practice, and Unicode
/// `.`, negated classes and case folding make a rule dearer to compile, which a hook process
/// pays on every run; so do the regex crate's one-pass, backtracking and literal-prefilter
/// engines, which lines of a few hundred bytes do not need ([`Prefilter`] already decided the
/// rule can match). What is left is the lazy DFA with the PikeVM behind it.
fn line_regex(pattern: &str) -> LineRegex {
    LineRegex::builder()
        .syntax(
            regex_automata::util::syntax::Config::new()
                .unicode(false)
                .utf8(false),
        )
        .configure(
            LineRegex::config()
                .auto_prefilter(false)
                .onepass(false)
                .backtrack(false)
                .utf8_empty(false),
        )
        .build(pattern)
        .expect("signal pattern compiles")
}

static COMPILED: LazyLock<Compiled> = LazyLock::new(|| {
    let (added, removed): (Vec<&Rule>, Vec<&Rule>) =
        RULES.iter().partition(|r| r.side == Side::Added);
    Compiled {
        added: RuleSide::new(added),
        removed: RuleSide::new(removed),
    }
});

/// Compile time of every line rule (compiled afresh) and of every structural regex (forced
/// now, so call this in a fresh process); for the start-up bench.
#[doc(hidden)]
pub fn compile_profile() -> Vec<(String, std::time::Duration)> {
    let mut out = Vec::new();
    let start = std::time::Instant::now();
    LazyLock::force(&COMPILED);
    out.push(("prefilter tables".to_string(), start.elapsed()));
    for rule in RULES {
        let start = std::time::Instant::now();
        std::hint::black_box(line_regex(&ascii_classes(&format!(
            "(?m:{})",
            rule.pattern
        ))));
        out.push((format!("rule {}", rule.id), start.elapsed()));
    }
    macro_rules! timed {
        ($name:ident) => {{
            let start = std::time::Instant::now();
            LazyLock::force(&$name);
            out.push((stringify!($name).to_string(), start.elapsed()));
        }};
    }
    timed!(FN_DEF);
    timed!(ACCESS_NAME);
    timed!(VALIDATION_NAME);
    timed!(ACCESS_EXPR);
    timed!(CONST_TRUE);
    timed!(RETURN_EXPR);
    timed!(EXPORTED_TYPE);
    timed!(TS_FIELD);
    timed!(VARIANT);
    timed!(MEMBER_NAME);
    timed!(GO_FIELD);
    timed!(HANDLER_OPEN);
    timed!(HANDLER_EMPTY);
    timed!(LOG_ONLY);
    timed!(CLOSE);
    timed!(COND);
    timed!(RETURN);
    timed!(OPERATORS);
    timed!(NUMBER);
    timed!(ARITH);
    timed!(TRY_OP);
    timed!(HANDLED);
    timed!(COMPARISON);
    timed!(UNWRAP);
    timed!(WORD);
    timed!(DEF_GO);
    timed!(DEF_PY);
    timed!(DEF_JS);
    timed!(DEF_RS);
    timed!(DEF_JAVA);
    timed!(DEF_JAVA_IFACE);
    timed!(DEF_RB);
    timed!(PRIVATE_MARK);
    timed!(DEP_LINE);
    timed!(POM_VERSION);
    timed!(GO_MAJOR);
    timed!(CONFIG_KEY);
    timed!(IMPORT);
    out
}

/// Compiles every line rule now; for tests and benches (a payload compiles only the rules
/// its text could match). Returns how many rules run on every payload.
#[doc(hidden)]
pub fn compile_all_rules() -> usize {
    let c = &*COMPILED;
    for side in [&c.added, &c.removed] {
        for i in 0..side.rules.len() {
            side.regex(i);
            side.unless(i);
        }
    }
    c.added.prefilter.always_count() + c.removed.prefilter.always_count()
}

fn re(p: &str) -> Regex {
    Regex::new(&ascii_classes(p)).expect("signal pattern compiles")
}

/// Rewrites the Perl classes and word boundaries of a pattern to their ASCII forms. Code
/// identifiers and keywords are ASCII in practice, and Unicode `\w`/`\b` make compiling the
/// rules about ten times slower, which a hook process pays on every run. Nested classes
/// (`[[0-9A-Za-z_].]`) keep the rewrite valid inside brackets.
fn ascii_classes(pattern: &str) -> String {
    let mut out = String::with_capacity(pattern.len() * 2);
    let mut chars = pattern.chars();
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        match chars.next() {
            Some('w') => out.push_str("[0-9A-Za-z_]"),
            Some('W') => out.push_str("[^0-9A-Za-z_]"),
            Some('d') => out.push_str("[0-9]"),
            Some('s') => out.push_str("[\\t\\n\\x0B\\x0C\\r ]"),
            Some('S') => out.push_str("[^\\t\\n\\x0B\\x0C\\r ]"),
            Some('b') => out.push_str("(?-u:\\b)"),
            Some(other) => {
                out.push('\\');
                out.push(other);
            }
            None => out.push('\\'),
        }
    }
    out
}

fn clip(text: &str) -> &str {
    if text.len() <= MAX_LINE {
        return text;
    }
    let mut end = MAX_LINE;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    &text[..end]
}

/// Everything the rules and detectors found in `files`. Marks each line's `changed` flag.
pub fn collect(files: &mut [FileDiff<'_>]) -> Vec<Hit> {
    super::hunks::mark_changed(files);
    let files: &[FileDiff<'_>] = files;
    let ctx = Ctx {
        tests_touched: files.iter().any(|f| f.role == Role::Test),
    };
    let mut hits = Vec::new();
    line_rules(files, &mut hits);
    let defs = Defs::new(files);
    for (idx, file) in files
        .iter()
        .enumerate()
        .filter(|(_, f)| f.role != Role::Docs)
    {
        if file.role == Role::Source {
            type_members(file, &mut hits);
            swallowed_blocks(&ctx, file, &mut hits);
            short_circuits(&ctx, file, &mut hits);
            pairs(&ctx, file, &mut hits);
            signatures(&defs, idx, file, &mut hits);
        }
        if file.role == Role::Manifest {
            dependency_majors(file, &mut hits);
        }
        if file.role == Role::Config {
            config_keys(file, &mut hits);
        }
        if file.role == Role::Test && file.deleted {
            hits.push(hit(
                TESTS,
                "test_file_deleted",
                0.85,
                file,
                0,
                "a test file deleted",
            ));
        }
    }
    untested_logic(&ctx, files, &mut hits);
    for file in files.iter().filter(|f| f.role == Role::Source) {
        dropped_awaits(file, &mut hits);
    }
    for file in files
        .iter()
        .filter(|f| f.role == Role::Test || inline_tests(f))
    {
        rewritten_tests(file, &mut hits);
    }
    hits
}

/// A Rust source file whose change touches its inline `#[cfg(test)]` module.
fn inline_tests(file: &FileDiff<'_>) -> bool {
    file.lang == Lang::Rust
        && file.role == Role::Source
        && file.hunks.iter().any(|h| {
            h.header.contains("mod tests")
                || h.lines.iter().any(|l| {
                    let t = l.text.trim();
                    t.starts_with("#[cfg(test)]")
                        || t.starts_with("#[test]")
                        || t.starts_with("mod tests")
                })
        })
}

/// The changed lines of one side of `file`.
fn changed_lines<'f, 'a>(file: &'f FileDiff<'a>, kind: Kind) -> impl Iterator<Item = &'f Line<'a>> {
    file.hunks
        .iter()
        .flat_map(|h| &h.lines)
        .filter(move |l| l.kind == kind && l.changed)
}

/// A call that was awaited and now is not (`await save(x)` → `save(x)`): its failure becomes
/// an unhandled rejection or is lost, and the caller no longer waits for it.
fn dropped_awaits(file: &FileDiff<'_>, hits: &mut Vec<Hit>) {
    let added: HashSet<String> = changed_lines(file, Kind::Added)
        .map(|l| normalize(l.text))
        .collect();
    for line in changed_lines(file, Kind::Removed) {
        let norm = normalize(line.text);
        // `return await x` → `return x` only moves where a rejection surfaces.
        if !norm.contains("await") || norm.starts_with("returnawait") {
            continue;
        }
        let without = norm.replace(".await", "").replacen("await", "", 1);
        if without != norm && added.contains(&without) {
            hits.push(hit_at(
                ERRORS,
                "dropped_await",
                0.86,
                file,
                line,
                "an `await` dropped: the call's failure is no longer seen",
            ));
        }
    }
}

static EXACT_ASSERT: LazyLock<Regex> = LazyLock::new(|| {
    re(
        r"\bassert_(?:eq|ne)!|\bassert(?:Equals|Same|NotEquals|Equal|Is|IsNone)\(|\.to(?:Equal|Be|StrictEqual|HaveBeenCalledWith)\(|\.to\s+(?:eq|eql|equal|be)\b|\bassert\s[^=]*(?:==|!=|\bis\b)|\bif\s+got\s*!=|\bt\.(?:Errorf|Fatalf)\(",
    )
});
static ASSERT_LINE: LazyLock<Regex> = LazyLock::new(|| {
    re(
        r"\bassert\w*[!(\s]|\bexpect\(|\bt\.(?:Fatal|Error|Fail)\w*\(|\bshould\b|\.to\s|\.to_not\s|\.not_to\s|assertThat\(|verify\(",
    )
});

/// Test files rewritten rather than cut: a test whose definition only changed its parameters
/// was not removed, and assertions replaced one for one were not removed. Exact assertions
/// (equality, expected value) replaced by looser ones only are their own signal.
fn rewritten_tests(file: &FileDiff<'_>, hits: &mut Vec<Hit>) {
    let head = |text: &str| normalize(text.split('(').next().unwrap_or(text));
    let added_heads: HashSet<String> = changed_lines(file, Kind::Added)
        .map(|l| head(l.text))
        .collect();
    let kept: HashSet<u64> = changed_lines(file, Kind::Removed)
        .filter(|l| l.text.contains('(') && added_heads.contains(&head(l.text)))
        .map(|l| (1 << 32) | u64::from(l.old_line))
        .collect();
    hits.retain(|h| {
        !(h.id == "removed_test_case" && h.file == file.path && kept.contains(&h.place))
    });
    let count = |kind, re: &Regex| {
        changed_lines(file, kind)
            .filter(|l| re.is_match(l.text))
            .count()
    };
    if count(Kind::Added, &ASSERT_LINE) >= count(Kind::Removed, &ASSERT_LINE) {
        hits.retain(|h| !(h.id == "removed_assertion" && h.file == file.path));
    }
    // Exact checks gone and none left in the change (a helper that asserts still counts).
    if count(Kind::Removed, &EXACT_ASSERT) > 0
        && count(Kind::Added, &EXACT_ASSERT) == 0
        && let Some(line) =
            changed_lines(file, Kind::Removed).find(|l| EXACT_ASSERT.is_match(l.text))
    {
        hits.push(hit_at(
            TESTS,
            "exact_assertion_weakened",
            0.86,
            file,
            line,
            "an exact assertion removed or loosened",
        ));
    }
}

struct Ctx {
    tests_touched: bool,
}

impl Ctx {
    /// Whether a diff line carries a real change (see [`collect`]).
    fn changed(&self, _file: &FileDiff<'_>, line: &Line<'_>) -> bool {
        line.changed
    }
}

fn hit(
    axis: usize,
    id: &'static str,
    weight: f64,
    file: &FileDiff<'_>,
    line: u32,
    note: impl Into<String>,
) -> Hit {
    Hit {
        axis,
        id,
        weight,
        file: file.path.clone(),
        line,
        place: u64::from(line),
        note: note.into(),
    }
}

/// A hit at a diff line; removed lines are told apart by their old-file line.
fn hit_at(
    axis: usize,
    id: &'static str,
    weight: f64,
    file: &FileDiff<'_>,
    at: &Line<'_>,
    note: impl Into<String>,
) -> Hit {
    let mut h = hit(axis, id, weight, file, at.new_line, note);
    if at.kind == Kind::Removed {
        h.place = (1 << 32) | u64::from(at.old_line);
    }
    h
}

/// The changed lines of one side of the whole payload, joined by newlines so that each rule
/// scans the text once; a match is then confirmed on its line alone.
struct SideText<'f, 'a> {
    text: String,
    starts: Vec<usize>,
    lines: Vec<(&'f FileDiff<'a>, &'f Line<'a>)>,
}

impl<'f, 'a> SideText<'f, 'a> {
    fn new(files: &'f [FileDiff<'a>], kind: Kind) -> Self {
        let mut side = SideText {
            text: String::new(),
            starts: Vec::new(),
            lines: Vec::new(),
        };
        for file in files.iter().filter(|f| f.role != Role::Docs) {
            for line in file.hunks.iter().flat_map(|h| &h.lines) {
                if line.kind == kind && line.changed {
                    side.starts.push(side.text.len());
                    side.text.push_str(clip(line.text));
                    side.text.push('\n');
                    side.lines.push((file, line));
                }
            }
        }
        side
    }

    /// The index of the line holding byte `offset`.
    fn line_at(&self, offset: usize) -> usize {
        self.starts.partition_point(|&s| s <= offset) - 1
    }

    fn line_text(&self, idx: usize) -> &str {
        let end = self.starts.get(idx + 1).map_or(self.text.len(), |e| e - 1);
        &self.text[self.starts[idx]..end]
    }
}

fn line_rules(files: &[FileDiff<'_>], hits: &mut Vec<Hit>) {
    let compiled = &*COMPILED;
    let added = SideText::new(files, Kind::Added);
    let removed = SideText::new(files, Kind::Removed);
    for (side, rules) in [(&added, &compiled.added), (&removed, &compiled.removed)] {
        if side.text.is_empty() {
            continue;
        }
        let langs = side.lines.iter().fold(0, |acc, (f, _)| acc | f.lang.bit());
        let roles = side.lines.iter().fold(0, |acc, (f, _)| acc | f.role.bit());
        let candidates = rules.prefilter.candidates(&side.text);
        for (i, rule) in rules.rules.iter().enumerate() {
            if !candidates[i] || rule.langs & langs == 0 || rule.roles & roles == 0 {
                continue;
            }
            let regex = rules.regex(i);
            let mut pos = 0;
            while pos < side.text.len() {
                let Some(m) = regex.find(Input::new(side.text.as_bytes()).range(pos..)) else {
                    break;
                };
                let idx = side.line_at(m.start());
                pos = side.starts.get(idx + 1).copied().unwrap_or(side.text.len());
                let (file, line) = side.lines[idx];
                if rule.langs & file.lang.bit() == 0 || rule.roles & file.role.bit() == 0 {
                    continue;
                }
                let text = side.line_text(idx);
                // The joined text lets `\s` and negated classes run across lines: confirm.
                if !regex.is_match(text.as_bytes()) {
                    continue;
                }
                if let Some(unless) = rules.unless(i)
                    && unless.is_match(text.as_bytes())
                {
                    continue;
                }
                hits.push(hit_at(
                    rule.axis,
                    rule.id,
                    rule.weight,
                    file,
                    line,
                    rule.note,
                ));
            }
        }
    }
}

static FN_DEF: LazyLock<Regex> = LazyLock::new(|| {
    re(
        r"(?:\bfunc\s+(?:\([^)]*\)\s*)?|\bdef\s+(?:self\.)?|\bfn\s+|\bfunction\s+)(\w+[?!]?)|^\s*(?:(?:public|private|protected|static|final|async|override|synchronized)\s+)+[\w<>\[\],.? ]*?(\w+)\s*\([^;]*$|^\s*(\w+)\s*\([^;]*\)\s*(?::\s*[\w<>\[\]| ]+)?\s*\{\s*$",
    )
});
static ACCESS_NAME: LazyLock<Regex> = LazyLock::new(|| {
    re(
        r"(?i)auth|permi|allow|access|owner|admin|role|acl|polic|grant|privileg|login|member|tenant|trusted|entitle|forbid|(?-i:(?:^|_)(?:can|may)(?:_|[A-Z])|^(?:Can|May)(?:[A-Z_]|$)|^(?:can|may)\?$)",
    )
});
static VALIDATION_NAME: LazyLock<Regex> =
    LazyLock::new(|| re(r"(?i)valid|sanitiz|safe|check|verify|allowed_?(?:path|host|url|origin)"));
static ACCESS_EXPR: LazyLock<Regex> = LazyLock::new(|| {
    re(
        r"(?i)owner|actor|admin|role|permi|\.id\b|user_?id|author|poster|tenant|acl|grant|member|scope|current_user|principal|claims",
    )
});
static CONST_TRUE: LazyLock<Regex> = LazyLock::new(|| {
    re(
        r"^\s*(?:return\s+)?(?:true|True|1)\s*;?\s*$|\b(?:true|True)\s*(?:\|\||\bor\b)|(?:\|\||\bor\b)\s*(?:true|True)\b|^\s*(?:if|elif|else if)\s*\(?\s*(?:true|True)\s*\)?\s*(?:\{|:|then)?\s*$|\b(?:false|False)\s*(?:&&|\band\b)",
    )
});
static RETURN_EXPR: LazyLock<Regex> = LazyLock::new(|| {
    re(r"^\s*(?:return\s+)?[^=]*(?:==|!=|<=|>=|<|>|&&|\|\||\band\b|\bor\b|\(|\.)")
});

/// The function enclosing hunk line `idx`: the nearest definition above it, else the header.
fn enclosing_fn<'a>(hunk_lines: &[Line<'a>], idx: usize, header: &'a str) -> Option<String> {
    for line in hunk_lines[..idx].iter().rev() {
        if line.kind == Kind::Removed {
            continue;
        }
        if let Some(name) = fn_name(line.text) {
            return Some(name);
        }
    }
    fn_name(header)
}

fn fn_name(text: &str) -> Option<String> {
    let caps = FN_DEF.captures(text)?;
    let m = caps
        .get(1)
        .or_else(|| caps.get(2))
        .or_else(|| caps.get(3))?;
    let name = m.as_str();
    if matches!(
        name,
        "if" | "for" | "while" | "switch" | "catch" | "return" | "match"
    ) {
        return None;
    }
    Some(name.to_owned())
}

/// `return true`, `true || …`, `if true` in an access or validation decision.
fn short_circuits(ctx: &Ctx, file: &FileDiff<'_>, hits: &mut Vec<Hit>) {
    for hunk in &file.hunks {
        for (idx, line) in hunk.lines.iter().enumerate() {
            if line.kind != Kind::Added
                || !ctx.changed(file, line)
                || !CONST_TRUE.is_match(line.text)
            {
                continue;
            }
            // A bare `true`/`1` line only counts when it replaced a removed expression.
            let removed: Vec<&str> = hunk.lines[..idx]
                .iter()
                .rev()
                .take_while(|l| l.kind != Kind::Context)
                .filter(|l| l.kind == Kind::Removed)
                .map(|l| l.text)
                .collect();
            let bare = line
                .text
                .trim()
                .trim_end_matches(';')
                .trim_start_matches("return")
                .trim();
            let replaced_expr = removed.iter().any(|r| RETURN_EXPR.is_match(r));
            if matches!(bare, "true" | "True" | "1") && !replaced_expr {
                continue;
            }
            let name = enclosing_fn(&hunk.lines, idx, hunk.header).unwrap_or_default();
            let access = ACCESS_NAME.is_match(&name)
                || removed
                    .iter()
                    .any(|r| ACCESS_EXPR.is_match(r) && RETURN_EXPR.is_match(r));
            if access {
                hits.push(hit(
                    AUTH,
                    "access_short_circuit",
                    0.93,
                    file,
                    line.new_line,
                    format!("access decision in `{name}` short-circuited to always allow"),
                ));
            } else if VALIDATION_NAME.is_match(&name) {
                hits.push(hit(
                    INPUT,
                    "validation_short_circuit",
                    0.85,
                    file,
                    line.new_line,
                    format!("validation in `{name}` short-circuited to always pass"),
                ));
            } else if replaced_expr {
                hits.push(hit(
                    BEHAVIOR,
                    "constant_result",
                    0.5,
                    file,
                    line.new_line,
                    "a computed result replaced by a constant",
                ));
            }
        }
    }
}

static EXPORTED_TYPE: LazyLock<Regex> = LazyLock::new(|| {
    re(
        r"^\s*(?:export\s+(?:default\s+)?(?:interface|type|class|enum)\b|pub\s+enum\b|public\s+enum\b|(?:public\s+)?(?:record|enum)\s+\w+|type\s+[A-Z]\w*\s+struct\b)",
    )
});
static TS_FIELD: LazyLock<Regex> =
    LazyLock::new(|| re(r"^\s*(?:readonly\s+)?['\x22]?\w+['\x22]?\??\s*:\s*[^=(]+;?\s*$"));
static VARIANT: LazyLock<Regex> = LazyLock::new(|| {
    re(r"^\s*[A-Z][A-Za-z0-9_]*\s*(?:\([^)]*\)|\{[^}]*\}|=\s*[\w\x22']+)?\s*,?\s*$")
});
static MEMBER_NAME: LazyLock<Regex> = LazyLock::new(|| re(r"\w+"));
static GO_FIELD: LazyLock<Regex> =
    LazyLock::new(|| re(r"^\s+[A-Z]\w*\s+[\w.*\[\]]+(?:\s+`[^`]*`)?\s*$"));

/// Members of an exported type (TypeScript fields, enum variants, exported Go struct fields)
/// removed or renamed.
fn type_members(file: &FileDiff<'_>, hits: &mut Vec<Hit>) {
    for hunk in &file.hunks {
        let exported = EXPORTED_TYPE.is_match(hunk.header)
            || hunk
                .lines
                .iter()
                .any(|l| l.kind != Kind::Added && EXPORTED_TYPE.is_match(l.text));
        if !exported {
            continue;
        }
        let readded: HashSet<&str> = hunk
            .lines
            .iter()
            .filter(|l| l.kind == Kind::Added)
            .filter_map(|l| MEMBER_NAME.find(l.text).map(|m| m.as_str()))
            .collect();
        for line in hunk
            .lines
            .iter()
            .filter(|l| l.kind == Kind::Removed && l.changed)
        {
            if MEMBER_NAME
                .find(line.text)
                .is_some_and(|m| readded.contains(m.as_str()))
            {
                continue;
            }
            let member = match file.lang {
                Lang::JavaScript => TS_FIELD.is_match(line.text) || VARIANT.is_match(line.text),
                Lang::Rust | Lang::Java => VARIANT.is_match(line.text),
                Lang::Go => GO_FIELD.is_match(line.text),
                _ => false,
            };
            if member {
                hits.push(hit_at(
                    COMPAT,
                    "type_member_removed",
                    0.75,
                    file,
                    line,
                    "a member of an exported type removed or renamed",
                ));
            }
        }
    }
}

static HANDLER_OPEN: LazyLock<Regex> = LazyLock::new(|| {
    re(
        r"^\s*(?:except\b[^:]*:|(?:\}\s*)?catch\s*(?:\([^)]*\))?\s*\{|rescue\b.*|\.catch\(\s*(?:\(\s*\w*\s*\)|\w+)\s*=>\s*\{|if\s+err\s*!=\s*nil\s*\{)\s*$",
    )
});
static HANDLER_EMPTY: LazyLock<Regex> = LazyLock::new(|| {
    re(
        r"^\s*(?:pass|\.\.\.|continue|return|return\s+(?:None|nil|null|false|False|-1|\[\]|\{\})\s*;?|nil|end|\}\)?;?|//.*|#.*)\s*$",
    )
});

/// An added handler whose body is empty or only passes: `except: pass`, `catch (e) {}`, a
/// `rescue` that does nothing, `if err != nil { }`.
fn swallowed_blocks(_ctx: &Ctx, file: &FileDiff<'_>, hits: &mut Vec<Hit>) {
    for hunk in &file.hunks {
        // The handler as it reads after the change: its opening line may be unchanged context.
        let after: Vec<&Line<'_>> = hunk
            .lines
            .iter()
            .filter(|l| l.kind != Kind::Removed)
            .collect();
        for w in after.windows(2) {
            let (open, body) = (w[0], w[1]);
            if body.kind == Kind::Added
                && (open.changed || body.changed)
                && HANDLER_OPEN.is_match(open.text)
                && HANDLER_EMPTY.is_match(body.text)
            {
                hits.push(hit_at(
                    ERRORS,
                    "swallowed_block",
                    0.88,
                    file,
                    open,
                    "an error handler that swallows the error",
                ));
            }
        }
        for w in after.windows(3) {
            let (open, body, close) = (w[0], w[1], w[2]);
            if body.kind == Kind::Added
                && body.changed
                && HANDLER_OPEN.is_match(open.text)
                && LOG_ONLY.is_match(body.text)
                && CLOSE.is_match(close.text)
            {
                hits.push(hit_at(
                    ERRORS,
                    "logged_only",
                    0.8,
                    file,
                    open,
                    "an error handler that only logs and carries on",
                ));
            }
        }
    }
}

static LOG_ONLY: LazyLock<Regex> = LazyLock::new(|| {
    re(
        r"^\s*(?:\w+\.)*(?:log|logger|logging|LOG|LOGGER|console|slog|tracing|warn!|error!|debug!|info!)\b[\w.]*\(.*\)\s*;?\s*$|^\s*(?:\w+\.)*(?:printStackTrace|print|println!|eprintln!|puts|p|pp)\b\(?.*$",
    )
});
static CLOSE: LazyLock<Regex> = LazyLock::new(|| re(r"^\s*(?:\}|end\b)"));

static COND: LazyLock<Regex> = LazyLock::new(|| {
    re(
        r"^\s*(?:\}\s*)?(?:if|elif|else\s+if|elsif|unless|while|until|when|case|guard|match)\b|\?\s*[^:]+:|^\s*return\b.*(?:==|!=|<|>|&&|\|\||\band\b|\bor\b|!)",
    )
});
static RETURN: LazyLock<Regex> = LazyLock::new(|| re(r"^\s*return\b"));
static OPERATORS: LazyLock<Regex> = LazyLock::new(|| re(r"[=!<>&|]+|\b(?:and|or|not)\b|\s+"));
static NUMBER: LazyLock<Regex> = LazyLock::new(|| re(r"\b\d+(?:\.\d+)?\b"));
static ARITH: LazyLock<Regex> = LazyLock::new(|| {
    re(r"[\w)\]]\s*(?:[-+*/%]|<<|>>)=?\s*[\w(]|\b(?:wrapping|saturating|checked|overflowing)_\w+\(")
});
static TRY_OP: LazyLock<Regex> = LazyLock::new(|| re(r"\?\s*[;).]|\?$"));
static HANDLED: LazyLock<Regex> =
    LazyLock::new(|| re(r"\.map_err\(|\.ok_or(?:_else)?\(|\.context\(|\.with_context\(|\bErr\("));
static COMPARISON: LazyLock<Regex> =
    LazyLock::new(|| re(r"[<>]=?|[=!]==?|&&|\|\||\b(?:and|or|not)\b"));
static UNWRAP: LazyLock<Regex> =
    LazyLock::new(|| re(r"\.unwrap\(\)|\.expect\(|\.ok\(\)|let\s+_\s*="));

/// Pairs each run of removed lines with the added run that follows, line by line.
fn pairs(ctx: &Ctx, file: &FileDiff<'_>, hits: &mut Vec<Hit>) {
    for hunk in &file.hunks {
        let lines = &hunk.lines;
        let mut i = 0;
        while i < lines.len() {
            if lines[i].kind != Kind::Removed {
                i += 1;
                continue;
            }
            let start = i;
            while i < lines.len() && lines[i].kind == Kind::Removed {
                i += 1;
            }
            let removed = &lines[start..i];
            let astart = i;
            while i < lines.len() && lines[i].kind == Kind::Added {
                i += 1;
            }
            let added = &lines[astart..i];
            let removed: Vec<&Line<'_>> = removed
                .iter()
                .filter(|l| ctx.changed(file, l))
                .take(MAX_PAIR_RUN)
                .collect();
            let added: Vec<&Line<'_>> = added
                .iter()
                .filter(|l| ctx.changed(file, l))
                .take(MAX_PAIR_RUN)
                .collect();
            let added_tokens: Vec<HashSet<&str>> = added.iter().map(|l| tokens(l.text)).collect();
            if file.lang == Lang::Rust {
                for a in added
                    .iter()
                    .filter(|a| UNWRAP.is_match(a.text) && !TRY_OP.is_match(a.text))
                {
                    let at = tokens(a.text);
                    let handled = removed.iter().any(|r| {
                        (TRY_OP.is_match(r.text) || HANDLED.is_match(r.text))
                            && similarity(&tokens(r.text), &at) >= 0.25
                    });
                    if handled {
                        hits.push(hit(
                            ERRORS,
                            "try_dropped",
                            0.75,
                            file,
                            a.new_line,
                            "error propagation (`?`) replaced by unwrap or discard",
                        ));
                    }
                }
            }
            let mut used = vec![false; added.len()];
            for r in &removed {
                let rt = tokens(r.text);
                let best = (0..added.len())
                    .filter(|&j| !used[j])
                    .map(|j| (j, similarity(&rt, &added_tokens[j])))
                    .max_by(|a, b| a.1.total_cmp(&b.1).then(b.0.cmp(&a.0)));
                if let Some((j, sim)) = best
                    && sim >= 0.5
                {
                    used[j] = true;
                    pair(file, r, added[j], hits);
                }
            }
        }
    }
}

/// Longest run of removed or added lines that is paired; bounds the quadratic matching.
const MAX_PAIR_RUN: usize = 40;

static WORD: LazyLock<Regex> = LazyLock::new(|| re(r"\w+"));

fn tokens(text: &str) -> HashSet<&str> {
    WORD.find_iter(text).map(|m| m.as_str()).collect()
}

/// Jaccard similarity of two lines' word sets.
fn similarity(a: &HashSet<&str>, b: &HashSet<&str>) -> f64 {
    let union = a.union(b).count();
    if union == 0 {
        return 0.0;
    }
    a.intersection(b).count() as f64 / union as f64
}

fn pair(file: &FileDiff<'_>, r: &Line<'_>, a: &Line<'_>, hits: &mut Vec<Hit>) {
    let (rt, at) = (r.text.trim(), a.text.trim());
    let rc = COND.is_match(rt);
    let ac = COND.is_match(at);
    let flipped = COMPARISON.is_match(rt)
        && COMPARISON.is_match(at)
        && OPERATORS.replace_all(rt, "") == OPERATORS.replace_all(at, "");
    if flipped && !(rc && ac) {
        hits.push(hit(
            BEHAVIOR,
            "condition_flipped",
            0.7,
            file,
            a.new_line,
            "a comparison or boolean operator changed",
        ));
        return;
    }
    if rc && ac {
        let ro = OPERATORS.replace_all(rt, "");
        let ao = OPERATORS.replace_all(at, "");
        if ro == ao {
            hits.push(hit(
                BEHAVIOR,
                "condition_flipped",
                0.7,
                file,
                a.new_line,
                "a comparison or boolean operator changed",
            ));
        } else {
            hits.push(hit(
                BEHAVIOR,
                "condition_changed",
                0.45,
                file,
                a.new_line,
                "a condition changed",
            ));
        }
        return;
    }
    if NUMBER.replace_all(rt, "0") == NUMBER.replace_all(at, "0") {
        hits.push(hit(
            BEHAVIOR,
            "constant_changed",
            0.4,
            file,
            a.new_line,
            "a constant changed",
        ));
        return;
    }
    if RETURN.is_match(rt) && RETURN.is_match(at) {
        hits.push(hit(
            BEHAVIOR,
            "return_changed",
            0.4,
            file,
            a.new_line,
            "a returned value changed",
        ));
        return;
    }
    if ARITH.is_match(rt) && ARITH.is_match(at) {
        hits.push(hit(
            BEHAVIOR,
            "arithmetic_changed",
            0.35,
            file,
            a.new_line,
            "arithmetic changed",
        ));
    }
}

struct Def {
    name: String,
    /// Parameter names in order; a change here breaks callers.
    params: Vec<String>,
    norm: String,
    line: u32,
    place: u64,
}

static DEF_GO: LazyLock<Regex> =
    LazyLock::new(|| re(r"^func\s+(?:\([^)]*\)\s*)?([A-Z]\w*)\s*[\[(]"));
static DEF_PY: LazyLock<Regex> = LazyLock::new(|| re(r"^\s*(?:async\s+)?def\s+([a-zA-Z]\w*)\s*\("));
static DEF_JS: LazyLock<Regex> = LazyLock::new(|| {
    re(
        r"^\s*export\s+(?:default\s+)?(?:async\s+)?(?:function\s*\*?\s*(\w+)|(?:const|let)\s+(\w+)\s*=\s*(?:async\s*)?(?:\(|function))",
    )
});
static DEF_RS: LazyLock<Regex> = LazyLock::new(|| {
    re(r"^\s*pub\s+(?:const\s+)?(?:async\s+)?(?:unsafe\s+)?(?:extern\s+\S+\s+)?fn\s+(\w+)")
});
static DEF_JAVA: LazyLock<Regex> = LazyLock::new(|| {
    re(
        r"^\s*(?:public\s+|protected\s+)(?:(?:static|final|abstract|synchronized|default|native)\s+)*[\w<>\[\],.? ]+?\s+(\w+)\s*\(",
    )
});
static DEF_JAVA_IFACE: LazyLock<Regex> = LazyLock::new(|| {
    re(
        r"^\s+(?:default\s+)?[\w<>\[\],.?]+(?:\s*<[^>]*>)?\s+(\w+)\s*\([^)]*\)\s*(?:throws\s+[\w., ]+)?;",
    )
});
static DEF_RB: LazyLock<Regex> = LazyLock::new(|| re(r"^\s*def\s+(?:self\.)?([a-z_]\w*[?!=]?)"));
static PRIVATE_MARK: LazyLock<Regex> = LazyLock::new(|| re(r"^\s*(?:private|protected)\s*$"));

fn public_def(file: &FileDiff<'_>, text: &str, in_interface: bool) -> Option<String> {
    let caps = match file.lang {
        Lang::Go => DEF_GO.captures(text),
        Lang::Python => DEF_PY.captures(text),
        Lang::JavaScript => DEF_JS.captures(text),
        Lang::Rust => DEF_RS.captures(text),
        Lang::Java => DEF_JAVA.captures(text).or_else(|| {
            in_interface
                .then(|| DEF_JAVA_IFACE.captures(text))
                .flatten()
        }),
        Lang::Ruby => DEF_RB.captures(text),
        Lang::Sql | Lang::Other => None,
    }?;
    let name = caps.get(1).or_else(|| caps.get(2))?.as_str();
    if file.lang == Lang::Python && name.starts_with('_') {
        return None;
    }
    Some(name.to_owned())
}

/// Public definitions on changed lines, per file, computed once per payload.
struct Defs {
    removed: Vec<Vec<Def>>,
    added: Vec<Vec<Def>>,
    interface: Vec<bool>,
    langs: Vec<Lang>,
}

impl Defs {
    fn new(files: &[FileDiff<'_>]) -> Defs {
        let mut defs = Defs {
            removed: Vec::new(),
            added: Vec::new(),
            interface: Vec::new(),
            langs: Vec::new(),
        };
        for f in files {
            let in_interface = f
                .hunks
                .iter()
                .flat_map(|h| &h.lines)
                .any(|l| l.kind != Kind::Added && l.text.contains("interface "));
            let wanted = f.role == Role::Source && !f.migration;
            defs.removed.push(if wanted {
                def_lines(f, Kind::Removed, in_interface)
            } else {
                Vec::new()
            });
            defs.added.push(if wanted {
                def_lines(f, Kind::Added, in_interface)
            } else {
                Vec::new()
            });
            defs.interface.push(in_interface);
            defs.langs.push(f.lang);
        }
        defs
    }
}

fn def_lines(f: &FileDiff<'_>, kind: Kind, in_interface: bool) -> Vec<Def> {
    let mut defs = Vec::new();
    for hunk in &f.hunks {
        let mut private = false;
        for line in &hunk.lines {
            if line.kind != Kind::Removed
                && line.kind != Kind::Added
                && PRIVATE_MARK.is_match(line.text)
            {
                private = true;
            }
            if line.kind != kind || !line.changed || (f.lang == Lang::Ruby && private) {
                continue;
            }
            if let Some(name) = public_def(f, line.text, in_interface) {
                let place = hit_at(COMPAT, "", 0.0, f, line, "").place;
                let params = param_names(f.lang, line.text);
                defs.push(Def {
                    name,
                    params,
                    norm: normalize(line.text),
                    line: line.new_line,
                    place,
                });
            }
        }
    }
    defs
}

/// Public definitions removed (not re-added verbatim): changed when a same-name definition is
/// added in a file of the same language, removed or renamed otherwise.
fn signatures(defs: &Defs, idx: usize, file: &FileDiff<'_>, hits: &mut Vec<Hit>) {
    let removed = &defs.removed[idx];
    if removed.is_empty() {
        return;
    }
    let in_interface = defs.interface[idx];
    // Ruby has no visibility keyword on the line, so its definitions count for less; an
    // interface method is a contract with every implementer.
    let weak = matches!(file.lang, Lang::Ruby);
    for def in removed {
        let same_name = defs
            .added
            .iter()
            .zip(&defs.langs)
            .filter(|(_, lang)| **lang == file.lang)
            .flat_map(|(d, _)| d.iter())
            .find(|a| a.name == def.name);
        match same_name {
            Some(a) if a.params != def.params => hits.push(hit(
                COMPAT,
                "signature_changed",
                if weak { 0.65 } else { 0.85 },
                file,
                a.line,
                format!("parameters of public `{}` changed", def.name),
            )),
            Some(a) if a.norm != def.norm => hits.push(hit(
                COMPAT,
                "signature_types_changed",
                if weak { 0.3 } else { 0.45 },
                file,
                a.line,
                format!("types in the signature of public `{}` changed", def.name),
            )),
            Some(_) => {}
            None => {
                let w = if in_interface {
                    0.85
                } else if weak {
                    0.4
                } else {
                    0.55
                };
                let mut h = hit(
                    COMPAT,
                    "public_removed",
                    w,
                    file,
                    def.line,
                    format!("public `{}` removed or renamed", def.name),
                );
                h.place = def.place;
                hits.push(h);
            }
        }
    }
}

/// The parameter names of a definition line: the text between its first `(` and the matching
/// `)` split at top-level commas, each reduced to its name (defaults and types dropped; Go and
/// Java put the name first and last respectively).
fn param_names(lang: Lang, text: &str) -> Vec<String> {
    // A Go method's receiver `(c *Client)` comes before its name: skip it.
    let text = match (lang, text.trim_start().strip_prefix("func")) {
        (Lang::Go, Some(rest)) if rest.trim_start().starts_with('(') => {
            rest.find(')').map_or(text, |close| &rest[close + 1..])
        }
        _ => text,
    };
    let Some(open) = text.find('(') else {
        return Vec::new();
    };
    let mut depth = 0i32;
    let mut params = Vec::new();
    let mut current = String::new();
    for c in text[open + 1..].chars() {
        match c {
            '(' | '<' | '[' | '{' => depth += 1,
            ')' | '>' | ']' | '}' if depth > 0 => depth -= 1,
            ')' => break,
            ',' if depth == 0 => {
                params.push(std::mem::take(&mut current));
                continue;
            }
            _ => {}
        }
        current.push(c);
    }
    params.push(current);
    params
        .iter()
        .map(|p| {
            let p = p.split('=').next().unwrap_or("").trim();
            let p = if matches!(
                lang,
                Lang::Python | Lang::Rust | Lang::JavaScript | Lang::Ruby
            ) {
                p.split(':').next().unwrap_or("")
            } else {
                p
            };
            let words: Vec<&str> = WORD.find_iter(p).map(|m| m.as_str()).collect();
            let name = match lang {
                Lang::Java => words.last(),
                Lang::Rust => words.iter().rfind(|w| **w != "mut"),
                _ => words.first(),
            };
            name.map(|w| (*w).to_owned()).unwrap_or_default()
        })
        .filter(|n| !n.is_empty())
        .collect()
}

static DEP_LINE: LazyLock<Regex> = LazyLock::new(|| {
    re(
        r#"^\s*(?:gem\s+)?["']?(@?[A-Za-z0-9_.\-/]+)["']?\s*(?:[:=]=?|,|\s)\s*(?:\{\s*version\s*=\s*)?["']?\s*[~^>=<!v ]*(\d+(?:\.\d+)*)"#,
    )
});
static POM_VERSION: LazyLock<Regex> = LazyLock::new(|| re(r"^\s*<version>\s*v?(\d+(?:\.\d+)*)"));
static GO_MAJOR: LazyLock<Regex> = LazyLock::new(|| re(r"^(.*)/v(\d+)$"));

fn dep(line: &str) -> Option<(String, String)> {
    if let Some(c) = POM_VERSION.captures(line) {
        return Some(("<version>".into(), major(&c[1])));
    }
    let c = DEP_LINE.captures(line)?;
    let mut name = c[1].to_owned();
    let mut ver = major(&c[2]);
    if let Some(g) = GO_MAJOR.captures(&name.clone()) {
        name = g[1].to_owned();
        ver = g[2].to_owned();
    }
    if matches!(
        name.as_str(),
        "version" | "go" | "edition" | "rust-version" | "python_requires"
    ) {
        return None;
    }
    Some((name, ver))
}

fn major(version: &str) -> String {
    let mut parts = version.split('.');
    let first = parts.next().unwrap_or("");
    if first == "0" {
        format!("0.{}", parts.next().unwrap_or(""))
    } else {
        first.to_owned()
    }
}

/// Dependencies whose major version (or 0.x minor) changed in a manifest.
fn dependency_majors(file: &FileDiff<'_>, hits: &mut Vec<Hit>) {
    for hunk in &file.hunks {
        let removed: Vec<(String, String)> = hunk
            .lines
            .iter()
            .filter(|l| l.kind == Kind::Removed)
            .filter_map(|l| dep(l.text))
            .collect();
        let mut pom_index = 0;
        for line in hunk.lines.iter().filter(|l| l.kind == Kind::Added) {
            let Some((name, ver)) = dep(line.text) else {
                continue;
            };
            let before = if name == "<version>" {
                let found = removed
                    .iter()
                    .filter(|(n, _)| n == "<version>")
                    .nth(pom_index);
                pom_index += 1;
                found
            } else {
                removed.iter().find(|(n, _)| *n == name)
            };
            if let Some((_, old)) = before
                && *old != ver
            {
                hits.push(hit(
                    COMPAT,
                    "major_bump",
                    0.9,
                    file,
                    line.new_line,
                    format!("major version change of `{name}` ({old} → {ver})"),
                ));
            }
        }
    }
}

static CONFIG_KEY: LazyLock<Regex> =
    LazyLock::new(|| re(r#"^\s*["']?([A-Za-z_][\w.\-]*)["']?\s*[:=]"#));

/// Configuration keys removed without coming back under the same name.
fn config_keys(file: &FileDiff<'_>, hits: &mut Vec<Hit>) {
    let keys = |kind: Kind| -> Vec<(String, &Line<'_>)> {
        file.hunks
            .iter()
            .flat_map(|h| &h.lines)
            .filter(|l| l.kind == kind)
            .filter_map(|l| CONFIG_KEY.captures(l.text).map(|c| (c[1].to_owned(), l)))
            .collect()
    };
    let added: HashSet<String> = keys(Kind::Added).into_iter().map(|(k, _)| k).collect();
    for (key, line) in keys(Kind::Removed) {
        if !added.contains(&key) {
            hits.push(hit_at(
                COMPAT,
                "config_key_removed",
                0.6,
                file,
                line,
                format!("configuration key `{key}` removed or renamed"),
            ));
        }
    }
}

static IMPORT: LazyLock<Regex> = LazyLock::new(|| {
    re(
        r"^\s*(?:import|from\s+\S+\s+import|package|use|require|require_relative|#include|using|extern\s+crate|mod)\b|^\s*[{}()\[\];,]*\s*$|\blog(?:ger)?\.\w+\(|console\.\w+\(|println!?\(|print\(|puts\b",
    )
});

/// Source logic changed while no test file changed.
fn untested_logic(ctx: &Ctx, files: &[FileDiff<'_>], hits: &mut Vec<Hit>) {
    if ctx.tests_touched {
        return;
    }
    let mut first: Option<(&FileDiff<'_>, u32)> = None;
    let mut count = 0usize;
    for file in files
        .iter()
        .filter(|f| f.role == Role::Source && f.lang != Lang::Other)
    {
        for line in file.hunks.iter().flat_map(|h| &h.lines) {
            if ctx.changed(file, line) && !IMPORT.is_match(line.text) {
                count += 1;
                first.get_or_insert((file, line.new_line));
            }
        }
    }
    if let Some((file, line)) = first {
        let strength = if count >= 3 { 1.0 } else { 0.6 };
        hits.push(hit(
            TESTS,
            "untested_change",
            0.45 * strength,
            file,
            line,
            "source logic changed with no test change",
        ));
        hits.push(hit(
            BEHAVIOR,
            "untested_change",
            0.3 * strength,
            file,
            line,
            "source logic changed with no test change",
        ));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scorer::local::hunks::parse;

    /// The prefilter never skips a rule that matches: checked on every diff of the eval set.
    #[test]
    fn prefilter_skips_only_rules_that_cannot_match() {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("testdata/eval/cases");
        let mut cases: Vec<(String, String)> = std::fs::read_dir(&dir)
            .unwrap()
            .map(|e| e.unwrap().path())
            .map(|p| {
                (
                    p.display().to_string(),
                    std::fs::read_to_string(&p).unwrap(),
                )
            })
            .collect();
        cases.sort();
        assert!(cases.len() > 100, "{}", cases.len());
        compile_all_rules();
        let c = &*COMPILED;
        let mut skipped = 0;
        for (id, diff) in &cases {
            let mut files = parse(diff);
            collect(&mut files);
            for (kind, rules) in [(Kind::Added, &c.added), (Kind::Removed, &c.removed)] {
                let side = SideText::new(&files, kind);
                let candidates = rules.prefilter.candidates(&side.text);
                for (i, &candidate) in candidates.iter().enumerate() {
                    if rules.regex(i).is_match(side.text.as_bytes()) {
                        assert!(candidate, "{}: {} skipped", id, rules.rules[i].id);
                    }
                    skipped += usize::from(!candidate);
                }
            }
        }
        assert!(
            2 * skipped > cases.len() * RULES.len(),
            "prefilter skips little: {skipped}"
        );
    }

    fn ids(diff: &str) -> Vec<&'static str> {
        let mut files = parse(diff);
        let mut v: Vec<_> = collect(&mut files).into_iter().map(|h| h.id).collect();
        v.sort();
        v.dedup();
        v
    }

    fn one_file(path: &str, body: &str) -> String {
        format!("diff --git a/{path} b/{path}\n--- a/{path}\n+++ b/{path}\n{body}")
    }

    #[test]
    fn return_true_in_access_function() {
        let d = one_file(
            "p.go",
            "@@ -1,3 +1,3 @@\n func CanEdit(owner, actor string) bool {\n-\treturn owner == actor\n+\treturn true\n }\n",
        );
        assert!(ids(&d).contains(&"access_short_circuit"));
        let d = one_file(
            "p.go",
            "@@ -1,3 +1,3 @@\n func Render(x int) bool {\n-\treturn x > 3\n+\treturn true\n }\n",
        );
        let got = ids(&d);
        assert!(!got.contains(&"access_short_circuit"), "{got:?}");
        assert!(got.contains(&"constant_result"), "{got:?}");
    }

    #[test]
    fn moved_and_reformatted_lines_raise_nothing_but_untested() {
        let d = one_file(
            "a.py",
            "@@ -1,2 +1,2 @@\n-if not user.is_admin: raise PermissionDenied()\n+if not user.is_admin:  raise PermissionDenied()\n",
        );
        assert_eq!(ids(&d), Vec::<&str>::new());
    }

    #[test]
    fn operator_flip_and_try_drop() {
        let d = one_file(
            "a.rs",
            "@@ -1,2 +1,2 @@\n-    if a >= b {\n+    if a > b {\n-    let n = s.parse()?;\n+    let n = s.parse().unwrap();\n",
        );
        let got = ids(&d);
        assert!(got.contains(&"condition_flipped"), "{got:?}");
        assert!(got.contains(&"try_dropped"), "{got:?}");
        assert!(got.contains(&"unwrap"), "{got:?}");
    }

    #[test]
    fn table_of_single_line_signals() {
        // (path, removed, added, signal expected, whether it must fire)
        let table: &[(&str, &str, &str, &str, bool)] = &[
            (
                "a.js",
                "return given.length === expected.length && timingSafeEqual(given, expected);",
                "return header === expected;",
                "removed_constant_time",
                true,
            ),
            (
                "a.rb",
                "redirect_to url_from(params[:next]) || root_path",
                "redirect_to params[:next] || root_path, allow_other_host: true",
                "redirect_any_host",
                true,
            ),
            (
                "a.go",
                "r.Body = http.MaxBytesReader(w, r.Body, maxBody)",
                "defer r.Body.Close()",
                "removed_size_limit",
                true,
            ),
            (
                "a.py",
                "parser = etree.XMLParser(resolve_entities=False)",
                "parser = etree.XMLParser(resolve_entities=True)",
                "xxe_enabled",
                true,
            ),
            (
                "a.rs",
                "let _guard = self.lock.write().unwrap();",
                "let _ = self.lock.write().unwrap();",
                "guard_dropped",
                true,
            ),
            (
                "a.rs",
                "let _guard = self.lock.write().unwrap();",
                "let _ = self.lock.write().unwrap();",
                "ignored_result_rs",
                false,
            ),
            (
                "a.rs",
                "self.cells.get(i).copied()",
                "Some(unsafe { *self.cells.get_unchecked(i) })",
                "unchecked_access",
                true,
            ),
            (
                "a.ts",
                "await repo.save(profile);",
                "repo.save(profile);",
                "dropped_await",
                true,
            ),
            (
                "a.ts",
                "return await repo.save(profile);",
                "return repo.save(profile);",
                "dropped_await",
                false,
            ),
            (
                "a.rb",
                "update!(seats: seats)",
                "update_column(:seats, seats)",
                "skips_validation",
                true,
            ),
            (
                "a.py",
                "cur.execute(\"SELECT * FROM t WHERE a = %s\", (a,))",
                "cur.execute(f\"SELECT * FROM t WHERE a = '{a}'\")",
                "sql_built",
                true,
            ),
            (
                "a.py",
                "cur.execute(q)",
                "cur.execute(\"SELECT * FROM t WHERE a = %s\", (a,))",
                "sql_built",
                false,
            ),
            (
                "a.go",
                "db.Query(q, id)",
                "db.Query(\"SELECT name FROM t WHERE id = \" + id)",
                "sql_built",
                true,
            ),
            (
                "a.rb",
                "User.update(user_params)",
                "User.update(params[:user].permit!)",
                "mass_assignment",
                true,
            ),
            (
                "a.js",
                "x.textContent = s;",
                "x.innerHTML = s;",
                "html_raw",
                true,
            ),
            (
                "a.js",
                "x.textContent = s;",
                "x.innerHTML = '';",
                "html_raw",
                false,
            ),
            (
                "a.py",
                "yaml.safe_load(s)",
                "yaml.load(s, Loader=yaml.SafeLoader)",
                "unsafe_deserialize",
                false,
            ),
            (
                "a.rb",
                "YAML.safe_load(s)",
                "YAML.unsafe_load(s)",
                "unsafe_deserialize",
                true,
            ),
            ("a.go", "\tdefer f.Close()", "", "removed_defer", true),
            (
                "a.java",
                "    @PreAuthorize(\"hasRole('ADMIN')\")",
                "",
                "removed_auth_call",
                true,
            ),
            (
                "a.rb",
                "  @p = current_user.projects.find(params[:id])",
                "  @p = Project.find(params[:id])",
                "removed_owner_scope",
                true,
            ),
            (
                "a.go",
                "\ts := Sum(xs)",
                "\ts, _ := Sum(xs)",
                "ignored_result_go",
                true,
            ),
            (
                "a.go",
                "\tfor _, x := range xs {",
                "\tfor _, x := range ys {",
                "ignored_result_go",
                false,
            ),
            (
                "tests/a_test.go",
                "",
                "\tt.Skip(\"flaky\")",
                "test_skipped",
                true,
            ),
            ("a.go", "", "\tt.Skip(\"flaky\")", "test_skipped", false),
        ];
        for (path, removed, added, id, fires) in table {
            let mut body = String::from("@@ -1,1 +1,1 @@\n");
            if !removed.is_empty() {
                body.push_str(&format!("-{removed}\n"));
            }
            if !added.is_empty() {
                body.push_str(&format!("+{added}\n"));
            }
            let got = ids(&one_file(path, &body));
            assert_eq!(
                got.contains(id),
                *fires,
                "{path}: `{removed}` → `{added}`: {got:?}"
            );
        }
    }

    #[test]
    fn handlers_that_swallow_or_only_log() {
        let d = one_file(
            "A.java",
            "@@ -1,4 +1,4 @@\n         } catch (SQLException e) {\n-            throw new SyncException(e);\n+            log.debug(\"ignored\", e);\n         }\n",
        );
        assert!(ids(&d).contains(&"logged_only"));
        let d = one_file(
            "a.py",
            "@@ -1,2 +1,4 @@\n+try:\n     save()\n+except Exception:\n+    pass\n",
        );
        assert!(ids(&d).contains(&"swallowed_block"));
        let d = one_file(
            "a.py",
            "@@ -1,2 +1,4 @@\n+try:\n     save()\n+except OSError as e:\n+    raise SaveError(path) from e\n",
        );
        let got = ids(&d);
        assert!(
            !got.contains(&"swallowed_block") && !got.contains(&"logged_only"),
            "{got:?}"
        );
    }

    #[test]
    fn exported_type_members_renamed_but_not_retyped() {
        let renamed = one_file(
            "t.ts",
            "@@ -1,3 +1,3 @@\n export interface U {\n-  userName: string;\n+  username: string;\n }\n",
        );
        assert!(ids(&renamed).contains(&"type_member_removed"));
        let retyped = one_file(
            "t.ts",
            "@@ -1,3 +1,3 @@\n export interface U {\n-  id: any;\n+  id: UserId;\n }\n",
        );
        assert!(!ids(&retyped).contains(&"type_member_removed"));
    }

    #[test]
    fn ascii_rewrite_keeps_meaning() {
        assert_eq!(
            ascii_classes(r"\w+\s*\(\d\b"),
            r"[0-9A-Za-z_]+[\t\n\x0B\x0C\r ]*\([0-9](?-u:\b)"
        );
        let r = re(r"^[\w.]+\s*=\s*[^\s;]");
        assert!(r.is_match("a.b = c"));
        assert!(!r.is_match("a.b = ;"));
    }

    #[test]
    fn loosened_and_rewritten_tests() {
        let weakened = "diff --git a/src/p.rs b/src/p.rs\n--- a/src/p.rs\n+++ b/src/p.rs\n@@ -1,6 +1,6 @@ mod tests {\n     #[test]\n     fn parses() {\n-        assert_eq!(parse(\"a\"), Ok(1));\n+        assert!(parse(\"a\").is_ok() || parse(\"a\").is_err());\n     }\n";
        assert!(ids(weakened).contains(&"exact_assertion_weakened"));
        let parametrized = "diff --git a/tests/test_m.py b/tests/test_m.py\n--- a/tests/test_m.py\n+++ b/tests/test_m.py\n@@ -1,3 +1,4 @@\n-def test_money():\n-    assert money(1234) == \"12.34\"\n+@pytest.mark.parametrize(\"c,t\", [(1234, \"12.34\")])\n+def test_money(c, t):\n+    assert money(c) == t\n";
        let found = ids(parametrized);
        assert!(!found.contains(&"removed_test_case"), "{found:?}");
        assert!(!found.contains(&"removed_assertion"), "{found:?}");
        assert!(!found.contains(&"exact_assertion_weakened"), "{found:?}");
    }

    #[test]
    fn parameter_names() {
        assert_eq!(
            param_names(Lang::Python, "def f(a: int, b=3, *args) -> int:"),
            ["a", "b", "args"]
        );
        assert_eq!(
            param_names(
                Lang::Go,
                "func F(ctx context.Context, m map[string]int) error {"
            ),
            ["ctx", "m"]
        );
        assert_eq!(
            param_names(
                Lang::Java,
                "public Map<String, Integer> f(final List<String> xs, int n) {"
            ),
            ["xs", "n"]
        );
        assert_eq!(
            param_names(Lang::Rust, "pub fn f(mut s: &str, n: Vec<u8>) -> u8 {"),
            ["s", "n"]
        );
        assert_eq!(param_names(Lang::Python, "def f():"), Vec::<String>::new());
        // A Go method's receiver is not a parameter.
        assert_eq!(
            param_names(
                Lang::Go,
                "func (c *Client) Get(ctx context.Context, id string) {"
            ),
            ["ctx", "id"]
        );
    }

    #[test]
    fn dependency_majors_only() {
        let d = one_file(
            "package.json",
            "@@ -1,2 +1,2 @@\n-    \"express\": \"^4.19.2\",\n+    \"express\": \"^5.0.0\",\n-    \"pg\": \"^8.11.3\"\n+    \"pg\": \"^8.11.5\"\n",
        );
        let mut files = parse(&d);
        let hits = collect(&mut files);
        let majors: Vec<_> = hits.iter().filter(|h| h.id == "major_bump").collect();
        assert_eq!(majors.len(), 1, "{hits:?}");
        assert!(majors[0].note.contains("express"));
        assert_eq!(
            dep("golang.org/x/sync v0.7.1"),
            Some(("golang.org/x/sync".into(), "0.7".into()))
        );
        assert_eq!(
            dep("github.com/a/b/v3 v3.0.1"),
            Some(("github.com/a/b".into(), "3".into()))
        );
        assert_eq!(dep("Django==4.2.11"), Some(("Django".into(), "4".into())));
        assert_eq!(
            dep("gem \"rails\", \"7.1.3\""),
            Some(("rails".into(), "7".into()))
        );
    }

    #[test]
    fn test_files_only_raise_test_signals() {
        let d = one_file(
            "tests/test_x.py",
            "@@ -1,2 +1,2 @@\n-def test_a():\n-    assert f() == 1\n+    requests.get(u, verify=False)\n",
        );
        let got = ids(&d);
        assert!(got.contains(&"removed_test_case"), "{got:?}");
        assert!(!got.contains(&"tls_skip_verify"), "{got:?}");
    }
}
