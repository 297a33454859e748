//! Test tampering in test files: tests deleted or skipped, assertions removed, loosened or
//! caught, expectations changed with no code change, snapshots rewritten.

use super::*;

/// What a test file's change does to the tests.
pub(super) fn test_file(
    file: &FileDiff<'_>,
    ctx: &Context,
    push: &mut impl FnMut(Rule, u32, &str),
) {
    // Focus markers (`fit`, `fdescribe`, `it.only`) belong to JavaScript's, Ruby's and the
    // JVM's test runners: in a fixture or an expected-output file, `FIT data` is text.
    let focusable = matches!(
        dialect_of(&file.path),
        Dialect::Js | Dialect::Ruby | Dialect::Java
    ) || file.path.ends_with(".coffee");
    let push = &mut |rule: Rule, line: u32, text: &str| {
        if rule != Rule::TestFocused || focusable {
            push(rule, line, text);
        }
    };
    let removed_decl = edited_decls(file, false);
    let added_decl = edited_decls(file, true);
    let tests = TestFileChange::new(file, ctx, &removed_decl, &added_decl);
    if file.deleted {
        tests.file_deleted(push);
        return;
    }
    tests.tests_lost(push);
    // The skip and focus markers each hunk removes, read once.
    let removed_markers: Vec<Vec<(&str, Rule)>> = file
        .hunks
        .iter()
        .map(|h| {
            h.lines
                .iter()
                .filter(|r| r.kind == LineKind::Removed)
                .filter_map(|r| {
                    skip_marker(r.text, &r.text.trim().to_ascii_lowercase()).map(|m| (r.text, m))
                })
                .collect()
        })
        .collect();
    // Their APIs across the file: a marker added back was moved or had its condition or
    // message changed.
    let moved_markers: BTreeSet<String> = removed_markers
        .iter()
        .flatten()
        .map(|(text, _)| marker_api(text))
        .collect();
    for (hunk, removed) in file.hunks.iter().zip(&removed_markers) {
        commented_out_tests(file, hunk, push);
        added_markers(hunk, &tests.removed_names, removed, &moved_markers, push);
    }
    // Assertions inside removed tests are the test's business (deleted, moved or explained).
    let in_removed_tests: BTreeSet<usize> = (0..removed_decl.len())
        .flat_map(|k| {
            tests
                .removed_test(k)
                .iter()
                .map(|l| l.text.as_ptr() as usize)
        })
        .collect();
    assertions(file, ctx, &in_removed_tests, &tests.added, push);
}

/// A test file's change read as tests: its removed and added lines and the tests declared on
/// each side, so the rules can ask which removed tests are really gone.
struct TestFileChange<'a> {
    file: &'a FileDiff<'a>,
    ctx: &'a Context,
    removed: Vec<&'a Line<'a>>,
    added: Vec<&'a Line<'a>>,
    /// Removed test declarations: where each sits in `removed`, and its name.
    removed_decl: &'a [(usize, String)],
    removed_names: BTreeSet<&'a str>,
    added_names: BTreeSet<&'a str>,
}

impl<'a> TestFileChange<'a> {
    fn new(
        file: &'a FileDiff<'a>,
        ctx: &'a Context,
        removed_decl: &'a [(usize, String)],
        added_decl: &'a [(usize, String)],
    ) -> Self {
        let all: Vec<&Line<'_>> = file.hunks.iter().flat_map(|h| &h.lines).collect();
        let removed: Vec<&Line<'_>> = all
            .iter()
            .copied()
            .filter(|l| l.kind == LineKind::Removed)
            .collect();
        let added: Vec<&Line<'_>> = all
            .iter()
            .copied()
            .filter(|l| l.kind == LineKind::Added)
            .collect();
        TestFileChange {
            file,
            ctx,
            removed,
            added,
            removed_decl,
            removed_names: removed_decl.iter().map(|(_, n)| n.as_str()).collect(),
            added_names: added_decl.iter().map(|(_, n)| n.as_str()).collect(),
        }
    }

    /// The removed lines from removed test `k`'s declaration up to the next one.
    fn removed_test(&self, k: usize) -> &[&'a Line<'a>] {
        let (at, _) = &self.removed_decl[k];
        let end = self
            .removed_decl
            .get(k + 1)
            .map_or(self.removed.len(), |(n, _)| *n);
        &self.removed[*at..end]
    }

    /// A removed test's body: the lines removed with its declaration, up to the next one.
    fn body(&self, k: usize) -> &[&'a Line<'a>] {
        let at = self.removed_decl[k].0;
        let run = self
            .removed_test(k)
            .iter()
            .take_while(|l| l.new_line == self.removed[at].new_line)
            .count();
        &self.removed[at + 1..at + run.max(1)]
    }

    /// Whether removed test `k` is gone for good: its body really removed (not merged or
    /// moved), not declared again, and not explained by the rest of the turn.
    fn gone(&self, k: usize) -> bool {
        let name = self.removed_decl[k].1.as_str();
        let code: Vec<&Line<'_>> = self
            .body(k)
            .iter()
            .copied()
            .filter(|l| l.text.trim().len() > 3 && !self.file.is_comment(l.text))
            .collect();
        let changed = code.iter().filter(|l| l.changed).count();
        // Only the header went (the body stays, merged into another test), or the body
        // mostly reappears elsewhere in the turn (moved).
        let merged_or_moved = code.is_empty() || changed * 2 < code.len();
        let texts: Vec<&str> = self.body(k).iter().map(|l| l.text).collect();
        !merged_or_moved
            && !self.added_names.contains(name)
            && !self.ctx.test_moved(name)
            && !self.ctx.test_explained(name)
            && !self.ctx.test_uses_removed_code(name, &texts)
    }

    /// A deleted test file that took tests (or a real amount of cases) with it.
    fn file_deleted(&self, push: &mut impl FnMut(Rule, u32, &str)) {
        let (file, ctx, removed) = (self.file, self.ctx, &self.removed);
        let asserts = removed
            .iter()
            .filter(|l| l.changed && is_assertion(&l.text.to_ascii_lowercase()))
            .count();
        let lost = (0..self.removed_decl.len())
            .filter(|k| self.gone(*k))
            .count();
        // Moved: most of its code (blank and comment lines aside) is added elsewhere.
        let code: Vec<&&Line<'_>> = removed
            .iter()
            .filter(|l| !l.text.trim().is_empty() && !file.is_comment(l.text))
            .collect();
        let moved = ctx.names.created_tests.contains(&file_stem(&file.path))
            || code.iter().filter(|l| l.changed).count() * 2 < code.len();
        // A file of cases (data-driven tests, fixtures a runner collects) counts when it held
        // a real amount of content; a file that declared tests counts when one is lost.
        let lower_path = file.path.to_ascii_lowercase();
        let name = lower_path.rsplit('/').next().unwrap_or(&lower_path);
        let helper = [
            "fixture",
            "helper",
            "support",
            "bootstrap",
            "mock",
            "stub",
            "util",
        ]
        .iter()
        .any(|w| lower_path.contains(w))
            || !(name.contains("test") || name.contains("spec") || name.contains("case"));
        let content = if helper {
            0
        } else {
            removed.iter().filter(|l| l.changed).count()
        };
        if !moved
            && !ctx.code_deleted
            && !ctx.test_created
            && (lost > 0 || self.removed_decl.is_empty() && (asserts >= 2 || content >= 5))
        {
            push(Rule::TestFileDeleted, 1, &file.path);
        }
    }

    /// Tests that disappear for good: neither declared again (here or elsewhere in the turn)
    /// nor explained by code the turn removed, and more than the tests the change adds.
    fn tests_lost(&self, push: &mut impl FnMut(Rule, u32, &str)) {
        let lost: Vec<&(usize, String)> = (0..self.removed_decl.len())
            .filter(|k| self.gone(*k))
            .map(|k| &self.removed_decl[k])
            .collect();
        let new_tests = self
            .added_names
            .iter()
            .filter(|n| !self.removed_names.contains(*n))
            .count();
        if lost.len() > new_tests.max(self.ctx.new_tests)
            && let Some((i, _)) = lost.first()
        {
            let l = self.removed[*i];
            push(Rule::TestDeleted, l.new_line, l.text);
        }
    }
}

/// Test annotations or declarations commented out in one hunk: the removed line comes back
/// as a comment.
fn commented_out_tests(
    file: &FileDiff<'_>,
    hunk: &Hunk<'_>,
    push: &mut impl FnMut(Rule, u32, &str),
) {
    let commented: BTreeSet<String> = hunk
        .lines
        .iter()
        .filter(|a| a.kind == LineKind::Added && file.is_comment(a.text))
        .map(|a| uncomment(a.text))
        .collect();
    for r in hunk
        .lines
        .iter()
        .filter(|r| r.kind == LineKind::Removed && r.changed)
    {
        let t = r.text.trim();
        let annotation = is_test_annotation(t)
            || t.starts_with('@')
                && t[1..]
                    .split(['(', ' '])
                    .next()
                    .unwrap_or("")
                    .ends_with("Test");
        if (annotation || test_decl(t).is_some()) && commented.contains(&hunks_normalize(t)) {
            push(Rule::TestSkipped, r.new_line, r.text);
        }
    }
    if let Some(a) = renamed_out_of_the_suite(hunk).or_else(|| annotation_dropped(hunk)) {
        push(Rule::TestSkipped, a.new_line, a.text);
    }
}

/// A test renamed so the runner no longer collects it (`def test_parse` becomes
/// `def XXX_parse` or `def _test_parse`, `func TestParse` becomes `func _TestParse`): the
/// added declaration.
fn renamed_out_of_the_suite<'a, 'b>(hunk: &'b Hunk<'a>) -> Option<&'b Line<'a>> {
    let removed: Vec<String> = hunk
        .lines
        .iter()
        .filter(|r| r.kind == LineKind::Removed && test_decl(r.text.trim()).is_some())
        .filter_map(|r| declared_name(r.text))
        .collect();
    if removed.is_empty() {
        return None;
    }
    hunk.lines.iter().find(|a| {
        let t = a.text.trim();
        a.kind == LineKind::Added
            && test_decl(t).is_none()
            && declared_name(t).is_some_and(|new| {
                let new = new.to_ascii_lowercase();
                removed.iter().any(|old| {
                    let old = old.to_ascii_lowercase();
                    let core = old.trim_start_matches("test").trim_start_matches('_');
                    core.len() >= 4 && new != old && new.ends_with(core)
                })
            })
    })
}

/// A test annotation removed while the method it marked stays (`@Test`, `#[test]`, `[Fact]`
/// gone, nothing put in its place): the method is no longer a test. The kept declaration.
fn annotation_dropped<'a, 'b>(hunk: &'b Hunk<'a>) -> Option<&'b Line<'a>> {
    let adds_annotation = hunk
        .lines
        .iter()
        .any(|a| a.kind == LineKind::Added && is_test_annotation(a.text.trim()));
    if adds_annotation {
        return None;
    }
    let old: Vec<&Line<'_>> = hunk
        .lines
        .iter()
        .filter(|l| l.kind != LineKind::Added)
        .collect();
    old.windows(2).find_map(|w| {
        let (r, next) = (w[0], w[1]);
        let annotation = r.kind == LineKind::Removed
            && r.changed
            && is_test_annotation(r.text.trim())
            && !r.text.contains('(');
        let kept = next.kind == LineKind::Context
            && method_name(next.text.trim()).is_some()
            && !next.text.trim_start().starts_with(['@', '[', '#']);
        (annotation && kept).then_some(next)
    })
}

/// Handlers that catch a failed assertion (without spaces, lower-cased), so the test passes
/// whatever the assertion says.
const ASSERTION_CATCHES: &[&str] = &[
    "exceptassertionerror",
    "catch(assertionerror",
    "catch(assertionfailederror",
    "catch(junit.framework.assertionfailederror",
    "rescueminitest::assertion",
    "rescuerspec::expectations",
    "catch(expectationfailed",
    "catch(xunitexception",
    "catch(assertexception",
    "catch(assertfailedexception",
    "catch(expectationfailedexception",
];

/// What the added lines of one hunk do to tests: skip or focus markers (outside tests the
/// change newly declares), caught assertions, and assertions put under a new condition.
fn added_markers(
    hunk: &Hunk<'_>,
    removed_names: &BTreeSet<&str>,
    hunk_removed_markers: &[(&str, Rule)],
    moved_markers: &BTreeSet<String>,
    push: &mut impl FnMut(Rule, u32, &str),
) {
    let new = side(hunk, true);
    // A hunk that also removes a skip marker changes a skip's condition or form; it
    // counts when the new marker only adds to the old one (`@DisabledOnOs(MAC)` becomes
    // `@DisabledOnOs({ MAC, WINDOWS })`).
    let removed_markers: Vec<BTreeSet<String>> = hunk_removed_markers
        .iter()
        .filter(|(_, rule)| *rule == Rule::TestSkipped)
        .map(|(text, _)| words_of(text))
        .collect();
    let removes_marker = !removed_markers.is_empty();
    for (i, l) in new.iter().enumerate() {
        if !l.changed {
            continue;
        }
        let raw = l.text.trim();
        let lower = raw.to_ascii_lowercase();
        if let Some(rule) = skip_marker(raw, &lower) {
            let added_words = words_of(raw);
            let broadened = removed_markers
                .iter()
                .any(|old| old.is_subset(&added_words) && added_words.len() > old.len());
            let replaced = rule == Rule::TestSkipped && removes_marker && !broadened
                || moved_markers.contains(&marker_api(raw));
            if !replaced && !in_new_test(&new, i, removed_names) {
                push(rule, l.line, raw);
            }
        }
        let squeezed = without_spaces(&lower);
        if any(&squeezed, ASSERTION_CATCHES) {
            push(Rule::AssertionCaught, l.line, raw);
        }
        // An assertion that used to run always now runs under a new condition.
        if is_guard_line(&lower)
            && following_lines(&new, i, 2)
                .iter()
                .any(|n| n.edited && !n.changed && is_assertion(&n.text.to_ascii_lowercase()))
        {
            push(Rule::AssertionLoosened, l.line, raw);
        }
        if guards_existing_tests(&new, i, &lower) || returns_early(&new, i, &lower) {
            push(Rule::TestSkipped, l.line, raw);
        }
    }
}

/// A skip marker's API: its text up to the first parenthesis, lower-cased, without spaces
/// (`@unittest.skipunless`, `self.skiptest`).
fn marker_api(text: &str) -> String {
    let t = text.trim().to_ascii_lowercase();
    hunks_normalize(t.split('(').next().unwrap_or(&t))
}

/// Whether added line `i` puts tests that ran always under a new condition: an `if`,
/// `unless` or preprocessor `#if` whose body is existing tests (moved in, not rewritten), or
/// Ruby's `end if …` / `end unless …` closing an existing block.
fn guards_existing_tests(new: &[SideLine<'_>], i: usize, lower: &str) -> bool {
    let t = lower.trim_start();
    if t.starts_with("end if ") || t.starts_with("end unless ") {
        return true;
    }
    let preprocessor = ["#if ", "#ifdef ", "#ifndef ", "#if("]
        .iter()
        .any(|p| t.starts_with(p));
    if !(preprocessor || is_guard_line(t)) {
        return false;
    }
    // A branch (`} else {`) chooses between variants; it does not skip.
    let branches = new[i + 1..].iter().any(|n| {
        let t = n.text.trim_start();
        n.changed && (t.starts_with("} else") || t.starts_with("else") || t.starts_with("#else"))
    });
    following_lines(new, i, 1).iter().any(|n| {
        let body = n.text.trim();
        if preprocessor {
            // Under a preprocessor condition, untouched lines are inside it.
            return !n.edited && !body.starts_with('#') && !branches;
        }
        !n.changed && n.edited && !branches && (test_decl(body).is_some() || suite_decl(body))
    })
}

/// A suite or group of tests declared on one line (`describe('x', …`, `context "x" do`).
fn suite_decl(t: &str) -> bool {
    ["describe", "context", "suite", "feature"].iter().any(|w| {
        t.strip_prefix(w)
            .is_some_and(|rest| rest.starts_with(['(', ' ', '.']))
    })
}

/// Whether added line `i`, inside a test the change keeps, returns early on a new condition:
/// `if sys.platform == "win32": return`, `if (isCI) return;`, or a guard whose next line is a
/// bare `return`. The rest of the test stops running where the condition holds.
fn returns_early(new: &[SideLine<'_>], i: usize, lower: &str) -> bool {
    if !is_guard_line(lower) {
        return false;
    }
    let code = code_only(lower);
    let t = code.trim_start();
    let bare_return = |s: &str| {
        let s = s.trim().trim_end_matches(';').trim_end();
        matches!(
            s,
            "return" | "return nil" | "return null" | "return none" | "process.exit(0)"
        )
    };
    let same_line = t
        .rsplit_once(':')
        .map(|(_, r)| r)
        .into_iter()
        .chain(t.rsplit_once(')').map(|(_, r)| r))
        .any(|r| bare_return(r.trim().trim_start_matches('{').trim_end_matches('}')));
    let early = same_line
        || following_lines(new, i, 1)
            .first()
            .is_some_and(|n| n.changed && bare_return(&n.text.to_ascii_lowercase()));
    early && in_kept_test(new, i)
}

/// Whether line `i` sits in the body of a test declared on an unchanged line of the hunk (so
/// not in a test the change adds).
fn in_kept_test(new: &[SideLine<'_>], i: usize) -> bool {
    let texts: Vec<&str> = new.iter().map(|l| l.text).collect();
    declared_tests(&texts)
        .iter()
        .rev()
        .find(|(d, _)| *d < i)
        .is_some_and(|(d, _)| !new[*d].edited)
}

/// Removed, commented-out, loosened and rewritten assertions of one test file.
pub(super) fn assertions(
    file: &FileDiff<'_>,
    ctx: &Context,
    in_removed_tests: &BTreeSet<usize>,
    added: &[&Line<'_>],
    push: &mut impl FnMut(Rule, u32, &str),
) {
    let added_asserts: Vec<&Line<'_>> = added
        .iter()
        .copied()
        .filter(|a| a.changed && is_assertion(&a.text.to_ascii_lowercase()))
        .collect();
    // Assertions commented out: the same text comes back as a comment.
    let commented: BTreeSet<String> = added
        .iter()
        .filter(|a| !a.changed && file.is_comment(a.text))
        .map(|a| uncomment(a.text))
        .collect();
    let mut removed_asserts: Vec<&Line<'_>> = Vec::new();
    for hunk in &file.hunks {
        let partners: Vec<&Line<'_>> = hunk
            .lines
            .iter()
            .filter(|l| l.kind == LineKind::Added && l.changed)
            .filter(|l| is_assertion(&l.text.to_ascii_lowercase()))
            .collect();
        for r in hunk
            .lines
            .iter()
            .filter(|l| l.kind == LineKind::Removed && l.changed)
        {
            let lower = r.text.trim().to_ascii_lowercase();
            if !is_assertion(&lower)
                || plumbing_check(&lower)
                || in_removed_tests.contains(&(r.text.as_ptr() as usize))
            {
                continue;
            }
            if commented.contains(&hunks_normalize(r.text)) {
                push(Rule::AssertionRemoved, r.new_line, r.text);
                continue;
            }
            let partner = partners
                .iter()
                .find(|a| similar(r.text, a.text))
                .or_else(|| partners.iter().find(|a| same_subject(r.text, a.text)));
            match partner {
                Some(a) => {
                    let new_lower = a.text.trim().to_ascii_lowercase();
                    if loosened(&lower, &new_lower) || tolerance_loosened(&lower, &new_lower) {
                        push(Rule::AssertionLoosened, a.new_line, a.text);
                    } else if ctx.code_lines == 0
                        && ctx.new_tests == 0
                        && literal_only_change(r.text, a.text)
                        && !reports_failure(&lower)
                        && !tolerance_loosened(&new_lower, &lower)
                    {
                        push(Rule::ExpectationChanged, a.new_line, a.text);
                    }
                }
                None if !ctx.test_uses_removed_code("", &[r.text]) => removed_asserts.push(r),
                None => {}
            }
        }
    }
    if removed_asserts.len() >= added_asserts.len() + 2
        && ctx.new_tests == 0
        && let Some(r) = removed_asserts.first()
    {
        push(Rule::AssertionRemoved, r.new_line, r.text);
    }
}

pub(super) fn hunks_normalize(text: &str) -> String {
    super::super::hunks::normalize(text)
}

/// A comment line's text without its comment marker, whitespace removed.
pub(super) fn uncomment(text: &str) -> String {
    let t = text.trim_start();
    let t = t
        .strip_prefix("//")
        .or_else(|| t.strip_prefix('#'))
        .or_else(|| t.strip_prefix("/*"))
        .unwrap_or(t);
    let t = t.trim_end();
    let t = t.strip_suffix("*/").unwrap_or(t);
    hunks_normalize(t)
}

/// The next `n` lines after `at` that say something.
pub(super) fn following_lines<'a, 'b>(
    lines: &'b [SideLine<'a>],
    at: usize,
    n: usize,
) -> Vec<&'b SideLine<'a>> {
    lines[at + 1..]
        .iter()
        .filter(|l| !l.text.trim().is_empty())
        .take(n)
        .collect()
}

/// An `if`/`unless` head (a condition that can keep what follows from running).
pub(super) fn is_guard_line(lower: &str) -> bool {
    let t = lower.trim_start();
    (t.starts_with("if ") || t.starts_with("if(") || t.starts_with("unless "))
        && !t.contains("err != nil")
        && !t.contains("err == nil")
}

/// Whether the skip marker at `i` belongs to a test the change adds (a new test that does
/// not run yet adds no coverage but takes none away).
pub(super) fn in_new_test(new: &[SideLine<'_>], i: usize, removed_names: &BTreeSet<&str>) -> bool {
    let texts: Vec<&str> = new.iter().map(|l| l.text).collect();
    let decls = declared_tests(&texts);
    let marker = new[i].text.trim_start();
    let decorator = marker.starts_with('@')
        || marker.starts_with("#[")
        || marker.starts_with('[')
        || marker.starts_with("pytestmark");
    // The marker's own declaration (`it.skip('x', …)`), the next one for a decorator, or the
    // nearest one above for a call inside a test's body.
    let owner = decls.iter().find(|(d, _)| *d == i).or_else(|| {
        if decorator {
            decls.iter().find(|(d, _)| *d > i && *d <= i + 12)
        } else {
            decls.iter().rev().find(|(d, _)| *d < i)
        }
    });
    if let Some((d, name)) = owner {
        return new[*d].edited && !removed_names.contains(name.as_str());
    }
    // Not in a test: a helper (a skip decorator of its own, a fixture) the change adds.
    if decorator {
        return false;
    }
    new[..i]
        .iter()
        .rev()
        .find(|l| declared_name(l.text).is_some())
        .is_some_and(|l| l.edited)
}

/// The tests declared on the edited lines of one side of a file's hunks (context lines
/// resolve annotations): (index among that side's edited lines, normalized name).
pub(super) fn edited_decls(file: &FileDiff<'_>, new: bool) -> Vec<(usize, String)> {
    let mut out = Vec::new();
    let mut base = 0;
    for hunk in &file.hunks {
        let lines = side(hunk, new);
        let texts: Vec<&str> = lines.iter().map(|l| l.text).collect();
        let mut index = vec![usize::MAX; lines.len()];
        let mut n = 0;
        for (i, l) in lines.iter().enumerate() {
            if l.edited {
                index[i] = base + n;
                n += 1;
            }
        }
        for (i, name) in declared_tests(&texts) {
            if lines[i].edited {
                out.push((index[i], name));
            }
        }
        base += n;
    }
    out
}

/// Test annotations that sit on the line(s) above the test's declaration.
pub(super) fn is_test_annotation(t: &str) -> bool {
    let word_end = |rest: &str| {
        rest.is_empty() || rest.starts_with(['(', ']', ',', ' ', ')']) || rest.starts_with("]")
    };
    // Every annotation below starts with one of these.
    if !t.starts_with(['@', '[', '#']) {
        return t.contains("@test") && (t.starts_with("/**") || t.starts_with('*'));
    }
    for a in [
        "@Test",
        "@ParameterizedTest",
        "@RepeatedTest",
        "@TestFactory",
        "@TestTemplate",
        "@Property",
        "@org.junit.Test",
        "@org.junit.jupiter.api.Test",
        "[Fact",
        "[Theory",
        "[Test",
        "[TestMethod",
        "[TestCase",
        "[DataTestMethod",
        "#[Test",
        "#[test",
        "#[tokio::test",
        "#[rstest",
        "#[async_std::test",
        "#[test_case",
    ] {
        if let Some(rest) = t.strip_prefix(a)
            && word_end(rest)
        {
            return true;
        }
    }
    t.contains("@test") && (t.starts_with("/**") || t.starts_with('*'))
}

/// The tests a run of lines declares: (index of the declaring line, normalized name).
pub(super) fn declared_tests(lines: &[&str]) -> Vec<(usize, String)> {
    let mut out = Vec::new();
    let mut pending = false;
    for (i, raw) in lines.iter().enumerate() {
        let t = raw.trim();
        if let Some(name) = test_decl(t) {
            out.push((i, name));
            pending = false;
            continue;
        }
        if is_test_annotation(t) {
            pending = true;
            continue;
        }
        if pending {
            if t.is_empty()
                || t.starts_with('@')
                || t.starts_with('[')
                || t.starts_with("#[")
                || t.starts_with("//")
                || t.starts_with('*')
                || t.starts_with("/*")
            {
                continue;
            }
            if let Some(name) = method_name(t) {
                out.push((i, name));
            }
            pending = false;
        }
    }
    out
}

/// Lower-cased letters and digits of a name.
pub(super) fn norm_name(s: &str) -> String {
    s.chars()
        .filter(char::is_ascii_alphanumeric)
        .map(|c| c.to_ascii_lowercase())
        .collect()
}

/// The identifier a method declaration line declares (`public void fooBar() {`,
/// ``fun `does a thing`()``, `fn works()`).
pub(super) fn method_name(t: &str) -> Option<String> {
    if let Some((_, rest)) = t.split_once('`')
        && let Some((name, _)) = rest.split_once('`')
    {
        return Some(norm_name(name)).filter(|n| !n.is_empty());
    }
    let head = &t[..t.find('(')?];
    let name = head.trim_end().rsplit([' ', '\t']).next()?;
    let n = norm_name(name);
    (!n.is_empty() && name.chars().all(|c| c.is_alphanumeric() || c == '_')).then_some(n)
}

/// The first string literal of a line (a test's description).
pub(super) fn first_literal(t: &str) -> Option<&str> {
    let start = t.find(['\'', '"', '`'])?;
    let q = t[start..].chars().next()?;
    let rest = &t[start + 1..];
    let end = rest.find(q)?;
    Some(&rest[..end])
}

/// The test a line declares by itself, if it declares one.
pub(super) fn test_decl(t: &str) -> Option<String> {
    // Every declaration below starts with a letter or `[`.
    if !t.starts_with(|c: char| c.is_ascii_alphabetic() || c == '[') {
        return None;
    }
    // Most lines differ from a prefix in its first byte: that is compared before the rest.
    let after = |prefix: &str| {
        if t.as_bytes().first() == prefix.as_bytes().first() {
            t.strip_prefix(prefix)
        } else {
            None
        }
    };
    let ident = |s: &str| -> String {
        s.chars()
            .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
            .collect()
    };
    // Spock and Groovy: `def "does a thing"()`, `void "test a thing"()`.
    for prefix in ["def \"", "void \"", "def '"] {
        if after(prefix).is_some() {
            return first_literal(t).map(norm_name).filter(|n| !n.is_empty());
        }
    }
    for prefix in [
        "def test",
        "async def test",
        "func Test",
        "func test",
        "fun test",
        "public void test",
        "void test",
        "public function test",
        "function test",
    ] {
        if let Some(rest) = after(prefix) {
            let name = ident(rest);
            // `func testX()` is an XCTest method; a lower-case Go `func testX(t testing.TB, …)`
            // is a helper (Go runs `TestX` only), so it takes parameters and is no test.
            if prefix == "func test" && !rest[name.len()..].trim_start().starts_with("()") {
                return None;
            }
            return Some(norm_name(&format!("test{name}")));
        }
    }
    // Described tests: `it('…'`, `test "…" do`, `t.Run("…"`, `TEST_CASE("…"`.
    for call in [
        "it(",
        "it.only(",
        "it.skip(",
        "it.todo(",
        "xit(",
        "fit(",
        "test(",
        "test.only(",
        "test.concurrent(",
        "it.concurrent(",
        "test.skip(",
        "test.todo(",
        "xtest(",
        "it \"",
        "it '",
        "xit \"",
        "xit '",
        "specify \"",
        "specify '",
        "scenario \"",
        "scenario '",
        "example \"",
        "example '",
        "test \"",
        "test '",
        "specify(",
        "scenario(",
        "t.Run(",
        "TEST_CASE(",
        "SCENARIO(",
    ] {
        if let Some(rest) = after(call) {
            if let Some(name) = first_literal(rest) {
                return Some(norm_name(name)).filter(|n| !n.is_empty());
            }
            return None;
        }
    }
    // Data-driven cases: mypy-style `[case testName]`.
    if let Some(rest) = after("[case ") {
        let name = rest.trim_end_matches(']').split('-').next().unwrap_or(rest);
        return Some(norm_name(name)).filter(|n| !n.is_empty());
    }
    // C test functions: `static void test_foo(void)`.
    for prefix in ["static void test", "static int test"] {
        if let Some(rest) = after(prefix) {
            return Some(norm_name(&format!("test{}", ident(rest))));
        }
    }
    // C and C++ macros: `TEST(Suite, Name)`, `TEST_F(Fixture, Name)`, `TEST_BEGIN(name)`.
    for mac in [
        "TEST(",
        "TEST_F(",
        "TEST_P(",
        "TEST_BEGIN(",
        "BOOST_AUTO_TEST_CASE(",
    ] {
        if let Some(rest) = after(mac) {
            let args = rest.split(')').next().unwrap_or(rest);
            return Some(norm_name(args)).filter(|n| !n.is_empty());
        }
    }
    None
}

pub(super) fn is_assertion(lower: &str) -> bool {
    let code = code_only(lower);
    let t = code.trim_start();
    let assigned = t.find("assert").is_some_and(|at| {
        let head = t[..at]
            .replace("==", "")
            .replace("!=", "")
            .replace("=>", "");
        head.contains('=') && !head.contains('(')
    });
    // Lines that name an assertion library or helper without asserting: imports,
    // requires, definitions.
    let declares = any(t, &["function (", "function(", "require('", "require(\""])
        || starts_any(
            t,
            &[
                "import ",
                "from ",
                "use ",
                "using ",
                "#include",
                "require '",
                "require \"",
                "def ",
                "func ",
                "fn ",
                "function ",
            ],
        );
    if assigned || declares {
        return false;
    }
    any(
        t,
        &[
            "assert", "expect(", "expect {", "require.", ".should", "should.", ".to eq", "to be_",
            ").to ", ".must_",
        ],
    ) || starts_any(
        t,
        &[
            "expect_", "check(", "check_", "require(", "require_", "refute", "t.error", "t.fatal",
            "#expect(", "xct",
        ],
    )
}

/// Whether two assertions check the same thing: they share a name that is not assertion
/// vocabulary (`assert result == 42` and `assert result is not None` share `result`).
pub(super) fn same_subject(a: &str, b: &str) -> bool {
    const VOCAB: &[&str] = &[
        "assert",
        "expect",
        "is",
        "not",
        "none",
        "null",
        "nil",
        "true",
        "false",
        "t",
        "self",
        "this",
        "require",
        "should",
        "be",
        "to",
        "ok",
        "eq",
        "equal",
        "equals",
        "in",
        "and",
        "or",
        "that",
        "the",
        "some",
        "new",
        "err",
        "result_of",
    ];
    let names = |s: &str| -> BTreeSet<String> {
        code_only(&s.to_ascii_lowercase())
            .split(|c: char| !c.is_ascii_alphanumeric() && c != '_')
            .filter(|w| w.len() > 1 && w.starts_with(|c: char| c.is_ascii_alphabetic()))
            .filter(|w| {
                !VOCAB.contains(w)
                    && !w.starts_with("assert")
                    && ![
                        "tobe",
                        "toequal",
                        "tohave",
                        "tocontain",
                        "tomatch",
                        "tothrow",
                        "tostrict",
                    ]
                    .iter()
                    .any(|m| w.starts_with(m))
                    && ![
                        "isequal",
                        "isnot",
                        "isnull",
                        "istrue",
                        "isfalse",
                        "isempty",
                        "isclose",
                        "isinstance",
                    ]
                    .iter()
                    .any(|m| w.starts_with(m))
            })
            .map(str::to_owned)
            .collect()
    };
    let (x, y) = (names(a), names(b));
    !x.is_empty() && x.intersection(&y).count() * 2 >= x.len().min(y.len()).max(1)
}

pub(super) fn similar(a: &str, b: &str) -> bool {
    let words = |s: &str| -> std::collections::BTreeSet<String> {
        s.split(|c: char| !c.is_ascii_alphanumeric() && c != '_')
            .filter(|w| !w.is_empty())
            .map(str::to_ascii_lowercase)
            .collect()
    };
    let (x, y) = (words(a), words(b));
    let union = x.union(&y).count();
    union > 0 && x.intersection(&y).count() * 2 >= union
}

const LOOSENED_EXACT: &[&str] = &[
    "assertequal",
    "assert_equal",
    "assert_array_equal",
    "assert_frame_equal",
    "assert_series_equal",
    "assertsame(",
    "assert.equal(",
    "assert.deepequal",
    "assert.strictequal",
    "assert.deepstrictequal",
    "assert.equal",
    "assert.exactly",
    "require.equal(",
    "assert_eq!",
    "assert_eq(",
    "tobe(",
    "toequal(",
    "tostrictequal(",
    "tohavelength(",
    "tohavebeencalledwith(",
    "tohavebeencalledtimes(",
    "to eq",
    "to eql",
    "to equal",
    "to be(",
    ".isequalto(",
    ".hasmessage(",
    ".hassize(",
    ".containsexactly(",
    "should().be(",
    "should().equal(",
    "should().beequivalentto(",
    "assert.equal(",
    "assert.areequal(",
    "assert.that(",
    ", is(",
    "equalto(",
    "_eq(",
    "_eq!(",
    "expect_eq(",
    "check_eq(",
    "==",
    "===",
];

const LOOSENED_LOOSE: &[&str] = &[
    "is not none",
    "isnotnone",
    "assert_not_nil",
    "assert_not_none",
    "assert_not_empty",
    "assertnotempty",
    "isnotempty",
    "tobedefined",
    "tobetruthy",
    "not.tobenull",
    "not.tobeundefined",
    "tocontain(",
    "tocontainequal(",
    "tomatch(",
    "tomatchobject(",
    "tobecloseto(",
    "tobegreaterthan",
    "tobelessthan",
    "expect.any(",
    "expect.anything(",
    "expect.stringcontaining(",
    "expect.stringmatching(",
    "expect.objectcontaining(",
    "expect.arraycontaining(",
    "assertin(",
    "assert_in(",
    "assert_in ",
    "assert.contains(",
    "assert.notnil(",
    "require.notnil(",
    "assert.notempty(",
    "require.notempty(",
    "assert.indelta(",
    "assert.greater",
    "assert.less",
    "assert.true(",
    "require.true(",
    "assert.ok(",
    "assert.isok(",
    "assert.exists(",
    "assert.include(",
    "notnullvalue",
    "isnotnull",
    "assertnotnull",
    "assert.notnull(",
    "assert.istrue(",
    "assert.contains(",
    "assert.inrange(",
    "assertalmostequal",
    "assert_almost_equal",
    "assert_array_almost_equal",
    "assert_allclose",
    "assertgreater",
    "assertless",
    "approx(",
    "isclose(",
    "assertcontains",
    "assertstringcontainsstring",
    "assertmatchesregularexpression",
    "assertregexp",
    "assertregex",
    "asserttrue(",
    "assert_true",
    "assert!(",
    "to be_truthy",
    "not_to be_nil",
    "to include",
    "to be_present",
    "to be_within",
    "to match",
    "to start_with",
    "to be_a(",
    "to be_kind_of",
    "tohavebeencalled()",
    ".isnotnull()",
    ".isnotempty()",
    ".contains(",
    ".containsstring(",
    "containsstring(",
    ".startswith(",
    ".hasmessagecontaining(",
    ".hasmessagestartingwith(",
    ".iscloseto(",
    ".isgreaterthan",
    ".islessthan",
    "should().contain(",
    "should().notbenull(",
    "should().notbeempty(",
    "should().beapproximately(",
    "should().startwith(",
    "should().match(",
    "_ge(",
    "_le(",
    "_gt(",
    "_lt(",
    "_ne(",
    ">=",
    "<=",
    "is not null",
    " in ",
];

/// Comparisons that allow a margin (lower case).
const APPROXIMATE: &[&str] = &["approx(", "isclose("];

/// Exact assertions become weaker ones: equality becomes containment, presence, truthiness,
/// approximation or an inequality.
pub(super) fn loosened(old: &str, new: &str) -> bool {
    let has = |line: &str, list: &[&str]| list.iter().any(|e| line.contains(e));
    let exact = |line: &str| {
        has(line, LOOSENED_EXACT)
            && !line.contains("!=")
            && !line.contains("!==")
            && !line.contains("is not none")
    };
    exact(old) && !has(old, LOOSENED_LOOSE) && has(new, LOOSENED_LOOSE) && !exact(new)
        || (old.trim_start().starts_with("assert ") && old.contains("==") && !old.contains("!="))
            && new.trim_start().starts_with("assert ")
            // `== 20` becomes `== pytest.approx(20, …)`, or the comparison goes.
            && (!new.contains("==") || has(new, APPROXIMATE) && !has(old, APPROXIMATE))
            && !new.contains(" is ")
            && !new.contains(" not ")
            && !new.contains('<')
            && !new.contains('>')
}

/// A tolerance widened: only numbers changed, on an assertion with a tolerance, and the new
/// number allows more (a larger delta, fewer decimal places).
pub(super) fn tolerance_loosened(old: &str, new: &str) -> bool {
    const TOLERANCE: &[&str] = &[
        "rtol",
        "atol",
        "tol=",
        "tolerance",
        "delta",
        "epsilon",
        "places",
        "decimal",
        "digits",
        "precision",
        "tobelessthan(",
        "tobecloseto(",
        "be_within(",
        "indelta(",
        "isclose",
        "approx(",
        "within(",
        "< ",
        "<=",
    ];
    if !TOLERANCE.iter().any(|t| old.contains(t)) || !literal_only_change(old, new) {
        return false;
    }
    let numbers = |s: &str| -> Vec<f64> {
        let mut out = Vec::new();
        let mut cur = String::new();
        for c in s.chars().chain(std::iter::once(' ')) {
            if c.is_ascii_digit() || c == '.' || (c == 'e' || c == '-') && !cur.is_empty() {
                cur.push(c);
            } else if !cur.is_empty() {
                if let Ok(v) = cur.trim_end_matches(['.', 'e', '-']).parse::<f64>() {
                    out.push(v);
                }
                cur.clear();
            }
        }
        out
    };
    let (a, b) = (numbers(old), numbers(new));
    let Some((x, y)) = a.iter().zip(&b).find(|(x, y)| x != y) else {
        return false;
    };
    let fewer_is_looser = ["places", "decimal", "digits", "precision"]
        .iter()
        .any(|w| old.contains(w));
    if fewer_is_looser { y < x } else { y > x }
}

/// Only string or number literals differ between the two lines.
pub(super) fn literal_only_change(old: &str, new: &str) -> bool {
    let strip = |s: &str| -> String {
        let mut out = String::new();
        let mut quote: Option<char> = None;
        for c in s.chars() {
            match quote {
                Some(q) if c == q => quote = None,
                Some(_) => {}
                None if c == '"' || c == '\'' => {
                    quote = Some(c);
                    out.push('S');
                }
                None if c.is_ascii_digit() || c == '.' => {
                    if !out.ends_with('N') {
                        out.push('N');
                    }
                }
                None if c.is_whitespace() => {}
                None => out.push(c),
            }
        }
        out
    };
    old.trim() != new.trim() && strip(old) == strip(new)
}

/// Focus: every other test of the file or suite stops running.
const SKIP_MARKER_FOCUS: &[&str] = &[
    "it.only(",
    "describe.only(",
    "test.only(",
    "context.only(",
    "suite.only(",
    "test.describe.only(",
    "fit(",
    "fdescribe(",
    "ftest(",
    "fcontext(",
    "fspecify(",
    "fexample(",
    "fscenario(",
];

/// A skip, ignore, xfail or focus marker on an added test line.
pub(super) fn skip_marker(raw: &str, lower: &str) -> Option<Rule> {
    let mut code = code_only(lower);
    // A trailing comment (`# isort:skip`, `// skip on CI`) is not code.
    if let Some(at) = [" #", "\t#", " //", "\t//"]
        .iter()
        .filter_map(|m| code.find(m))
        .min()
    {
        code.truncate(at);
    }
    let l = code.trim_start();
    let squeezed = without_spaces(l);
    if focus_marker(l, &squeezed) {
        return Some(Rule::TestFocused);
    }
    if declaration_or_import(l) {
        return None;
    }
    // Annotations and decorators: `@pytest.mark.skipif(…)`, `@Disabled`, `@Ignore`,
    // `@unittest.expectedFailure`, `@Test(enabled = false)`, `@Test @Ignore`.
    if l.starts_with('@') {
        return skip_annotation(l, &squeezed).then_some(Rule::TestSkipped);
    }
    // Options of a test call: `test('x', { skip: … }, …)`, `it('x', { skip: true })`.
    let skip_option = test_decl(raw.trim()).is_some()
        && (squeezed.contains("{skip:") || squeezed.contains(",skip:"));
    let skipped = skip_option
        || skip_attribute(&squeezed)
        || any(&squeezed, SKIP_MARKER_SET)
        || skip_statement(l)
        || skip_call(&code)
        || skip_chosen(&squeezed);
    skipped.then_some(Rule::TestSkipped)
}

/// A focus marker (`it.only(`, `fit "…"`, `focus: true`): every other test stops running.
fn focus_marker(l: &str, squeezed: &str) -> bool {
    SKIP_MARKER_FOCUS
        .iter()
        .any(|f| l.starts_with(f) || follows(l, f, b" ("))
        || squeezed.contains("focus:true")
        || squeezed.contains(",:focus")
        || l.starts_with("fit ")
        || l.starts_with("fdescribe ")
        || l.starts_with("fcontext ")
        || l.starts_with("fspecify ")
        || l.starts_with("fexample ")
}

/// Whether `text` holds `needle` right after one of the bytes `before`.
fn follows(text: &str, needle: &str, before: &[u8]) -> bool {
    let (text, needle) = (text.as_bytes(), needle.as_bytes());
    text.windows(needle.len() + 1)
        .any(|w| before.contains(&w[0]) && &w[1..] == needle)
}

/// A function declaration or an import: a `skip` in its name or path is no marker.
fn declaration_or_import(l: &str) -> bool {
    l.starts_with("def ")
        || l.starts_with("func ")
        || l.starts_with("fn ")
        || l.starts_with("function ")
        || l.starts_with("import ")
        || l.starts_with("from ")
        || l.starts_with("use ")
}

/// Whether one of the annotations on line `l` (lower-cased, starting with `@`) skips,
/// ignores, disables or expects the test to fail.
fn skip_annotation(l: &str, squeezed: &str) -> bool {
    for rest in l.split('@').skip(1) {
        let name: String = rest
            .chars()
            .take_while(|c| c.is_ascii_alphanumeric() || *c == '_' || *c == '.')
            .collect();
        let last = name.rsplit('.').next().unwrap_or(&name);
        if name.contains("skip")
            || name.contains("xfail")
            || last == "expectedfailure"
            || matches!(last, "ignore" | "ignored" | "ignoreif" | "ignoreon")
            || last.starts_with("disabled")
            || last.starts_with("enabledif")
            || last.starts_with("enabledon")
            || last == "flaky"
            || last == "pending"
            || last == "test" && squeezed.contains("enabled=false")
        {
            return true;
        }
    }
    false
}

/// Attributes: Rust `#[ignore]`, C# `[Ignore]`, `[Fact(Skip = "…")]`, `[Explicit]`.
fn skip_attribute(squeezed: &str) -> bool {
    squeezed.starts_with("#[ignore")
        || squeezed.starts_with("#[cfg_attr(") && squeezed.contains(",ignore")
        || squeezed.starts_with('[')
            && (squeezed.contains("skip=")
                || squeezed.starts_with("[ignore")
                || squeezed.contains(",ignore")
                || squeezed.starts_with("[explicit")
                || squeezed.contains(",explicit]")
                || squeezed.contains(",explicit,")
                || squeezed.contains("explicit=true"))
        || (squeezed.ends_with("-skip]") || squeezed.ends_with("-xfail]"))
            && squeezed.starts_with("[case")
}

/// Markers set on a module or a parameter, skips raised or called, and assumptions that skip
/// a test when they fail (without spaces, lower-cased).
const SKIP_MARKER_SET: &[&str] = &[
    "pytestmark=pytest.mark.skip",
    "pytestmark=pytest.mark.xfail",
    "marks=pytest.mark.skip",
    "marks=pytest.mark.xfail",
    "marks=[pytest.mark.skip",
    "marks=[pytest.mark.xfail",
    "pytest.mark.skip(",
    "pytest.mark.skipif(",
    "pytest.mark.xfail(",
    "pytest.xfail(",
    "pytest.skip(",
    "marktestskipped(",
    "marktestincomplete(",
    "xctskip(",
    "raiseunittest.skiptest",
    "raiseskiptest",
    "raisepytest.skip",
    "throwxctskip",
    "xctskipif(",
    "xctskipunless(",
    "__test__=false",
    "describe.skip",
    "it.skip",
    "test.skip",
    "context.skip",
    "suite.skip",
    "test.fixme(",
    "it.failing(",
    "test.failing(",
    "assert.ignore(",
    "assert.inconclusive(",
    "gtest_skip()",
    "assume().that",
    "assume.assume",
    "assumptions.assume",
    "assume.that(",
    "assumetrue(",
    "assumefalse(",
    "assumethat(",
    "assumenotnull(",
    "enabled=false)",
    "skip:true,",
];

/// A skipping variant picked by a condition: `(cond ? it : xit)(…)`,
/// `const run = cond ? describe : describe.skip` (squeezed).
fn skip_chosen(squeezed: &str) -> bool {
    let b = squeezed.as_bytes();
    squeezed.contains('?')
        && [
            "xit",
            "xdescribe",
            "xtest",
            "xcontext",
            "it.skip",
            "test.skip",
            "describe.skip",
        ]
        .iter()
        .any(|w| {
            squeezed.match_indices(w).any(|(at, _)| {
                let before = at.checked_sub(1).map(|k| b[k]);
                let after = b.get(at + w.len()).copied();
                matches!(before, Some(b'?' | b':'))
                    && !after.is_some_and(|c| c.is_ascii_alphanumeric() || c == b'_' || c == b'.')
            })
        })
}

/// Ruby and RSpec statements: `skip "…"`, `pending`, `xit "…" do`.
fn skip_statement(l: &str) -> bool {
    for word in [
        "skip",
        "pending",
        "xit",
        "xdescribe",
        "xcontext",
        "xspecify",
        "xexample",
        "xscenario",
        "xtest",
        "xfeature",
    ] {
        if let Some(rest) = l.strip_prefix(word)
            && (rest.is_empty()
                || rest.starts_with(' ') && !rest.trim_start().starts_with('=')
                || rest.starts_with('(')
                || rest.starts_with(" {"))
        {
            return true;
        }
    }
    false
}

/// A call of a skip API: `t.Skip(…)`, `self.skipTest(…)`, `pytest.skip(…)`,
/// `$this->markTestSkipped(…)`, `skipOn(t, …)`, `Skip.If(…)`, `tt_skip()`.
pub(super) fn skip_call(code: &str) -> bool {
    let b = code.as_bytes();
    let is_ident = |c: u8| c.is_ascii_alphanumeric() || c == b'_';
    let mut from = 0;
    while let Some(off) = code[from..].find("skip") {
        let at = from + off;
        from = at + 4;
        let mut start = at;
        while start > 0 && is_ident(b[start - 1]) {
            start -= 1;
        }
        let mut end = at + 4;
        while end < b.len() && is_ident(b[end]) {
            end += 1;
        }
        let token = &code[start..end];
        let distinctive = ["skipf", "skipnow", "skiptest"].contains(&token)
            || [
                "skipif",
                "skipunless",
                "skipon",
                "skip_if",
                "skip_unless",
                "skip_on",
                "skipwhen",
                "skip_when",
                "skiptest",
                "skip_test",
                "skipfor",
                "skip_for",
                "skipbecause",
            ]
            .iter()
            .any(|p| token.starts_with(p))
            || token.ends_with("_skip")
            || token.ends_with("testskip")
            || token.contains("_skip_if");
        // `skipOnWindows.suite()`: a skipping helper used as an object.
        if distinctive && b.get(end) == Some(&b'.') && token.starts_with("skipon") {
            return true;
        }
        if b.get(end) != Some(&b'(') {
            continue;
        }
        if token.starts_with("no") || token.starts_with("un") || token.contains("skipped") {
            continue;
        }
        // What the call is made on.
        let before = &code[..start];
        let receiver: &str = if let Some(r) = before.strip_suffix("->") {
            r.rsplit(|c: char| !c.is_ascii_alphanumeric() && c != '_' && c != '$')
                .next()
                .unwrap_or("")
        } else if let Some(r) = before
            .strip_suffix('.')
            .or_else(|| before.strip_suffix("::"))
        {
            r.rsplit(|c: char| !c.is_ascii_alphanumeric() && c != '_' && c != '$')
                .next()
                .unwrap_or("")
        } else {
            ""
        };
        let bare = receiver.is_empty() && !before.ends_with('.') && !before.ends_with("->");
        let test_receiver = matches!(
            receiver,
            "t" | "b"
                | "tb"
                | "f"
                | "s"
                | "c"
                | "self"
                | "cls"
                | "this"
                | "$this"
                | "pytest"
                | "unittest"
                | "skip"
                | "testing"
                | "test"
                | "it"
                | "describe"
                | "context"
                | "suite"
                | "spec"
                | "helper"
                | "helpers"
                | "support"
                | "testutil"
                | "testutils"
                | "testhelper"
        ) || before.ends_with(")->")
            || before.ends_with("})");
        if distinctive || bare && token == "skip" || test_receiver {
            return true;
        }
    }
    false
}

/// A snapshot or golden file rewritten wholesale.
/// A snapshot or golden file rewritten wholesale, or its recorded values changed while no
/// code changed.
pub(super) fn snapshot_file(
    file: &FileDiff<'_>,
    ctx: &Context,
    push: &mut impl FnMut(Rule, u32, &str),
) {
    if file.created || file.deleted {
        return;
    }
    let (mut removed, mut added, mut context) = (0usize, 0usize, 0usize);
    let mut first_changed: Option<&Line<'_>> = None;
    for l in file.hunks.iter().flat_map(|h| &h.lines) {
        match l.kind {
            LineKind::Removed => removed += 1,
            LineKind::Added => added += 1,
            LineKind::Context => context += 1,
        }
        if l.kind == LineKind::Removed && l.changed && first_changed.is_none() {
            first_changed = Some(l);
        }
    }
    // Counts in recorded summaries (`Tests: 12 passed`) move whenever tests are added.
    if let Some(l) = first_changed {
        let numeric_only = file
            .hunks
            .iter()
            .flat_map(|h| &h.lines)
            .filter(|a| a.kind == LineKind::Added && a.changed)
            .any(|a| digits_only_change(l.text, a.text));
        if numeric_only {
            first_changed = file
                .hunks
                .iter()
                .flat_map(|h| &h.lines)
                .filter(|r| r.kind == LineKind::Removed && r.changed)
                .find(|r| {
                    !file
                        .hunks
                        .iter()
                        .flat_map(|h| &h.lines)
                        .filter(|a| a.kind == LineKind::Added && a.changed)
                        .any(|a| digits_only_change(r.text, a.text))
                });
        }
    }
    if removed >= 10
        && added >= 10
        && removed * 2 >= removed + context
        && ctx.code_lines == 0
        && ctx.new_tests == 0
    {
        push(Rule::SnapshotRewritten, 1, &file.path);
    } else if ctx.code_lines == 0
        && ctx.new_tests == 0
        && added > 0
        && let Some(l) = first_changed
    {
        push(Rule::ExpectationChanged, l.new_line, l.text);
    }
}

/// A check that only stops a test on an unexpected error (`t.Fatal(err)`,
/// `require.NoError(t, err)`): test plumbing that helpers take over, not an expectation.
pub(super) fn plumbing_check(lower: &str) -> bool {
    let t = lower.trim_start();
    t.starts_with("t.fatal(err")
        || t.starts_with("t.error(err")
        || t.starts_with("b.fatal(err")
        || (t.starts_with("t.fatalf(") || t.starts_with("t.errorf(")) && t.contains("err)")
        || t.starts_with("require.noerror(")
        || t.starts_with("assert.noerror(")
        || t.starts_with("assert.nilerror(")
        || t.starts_with("require.nilerror(")
        || t.starts_with("assertnoerror(")
        || t.starts_with("ok(t, err")
        || t.starts_with("rtest.ok(")
        || t.starts_with("check(err")
}

/// A line that only reports a failure (its message is not an expectation).
pub(super) fn reports_failure(lower: &str) -> bool {
    let t = lower.trim_start();
    [
        "t.error",
        "t.fatal",
        "t.log",
        "b.error",
        "b.fatal",
        "fail(",
        "self.fail(",
        "assert.fail(",
    ]
    .iter()
    .any(|p| t.starts_with(p))
}

/// Whether two lines differ only in digits.
pub(super) fn digits_only_change(old: &str, new: &str) -> bool {
    let strip = |s: &str| -> String { s.chars().filter(|c| !c.is_ascii_digit()).collect() };
    strip(old) == strip(new)
}
