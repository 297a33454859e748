//! Table-driven tests of the detectors: a risky line and its safe variant per rule and
//! language (`table.txt`), the textbook one-liners, moves and the turn context.

mod table_file;

use super::super::hunks;
use super::*;

/// Whether the whole scorer reads a one-file diff of `ext` — one context line, then `body`
/// (`old` and `new` lines on each side, the context counted) under `header` — with every
/// score in [0, 1]: the property tests' check that byte-offset rules never panic.
pub(super) fn scores_stay_in_range(
    ext: &str,
    header: &str,
    (old, new): (usize, usize),
    body: &str,
) -> bool {
    let diff = format!(
        "diff --git a/q.{ext} b/q.{ext}\n--- a/q.{ext}\n+++ b/q.{ext}\n\
            @@ -1,{old} +1,{new} @@{header}\n ctx\n{body}"
    );
    let s = crate::scorer::local::LocalScorer::new().score_diff(&diff);
    s.values.iter().all(|v| (0.0..=1.0).contains(v))
}

fn rules(diff: &str) -> Vec<&'static str> {
    let mut files = hunks::parse(diff);
    hunks::mark_changed(&mut files);
    find(&files).iter().map(|f| f.rule.name()).collect()
}

/// Lines added after one line of context.
fn added(path: &str, lines: &[&str]) -> String {
    let body: String = lines.iter().map(|l| format!("+{l}\n")).collect();
    format!(
        "diff --git a/{path} b/{path}\n--- a/{path}\n+++ b/{path}\n@@ -1,1 +1,{} @@\n x = 1\n\
            {body}",
        lines.len() + 1
    )
}

/// `old` lines replaced by `new` lines after one line of context.
fn edit(path: &str, old: &[&str], new: &[&str]) -> String {
    let body: String = old
        .iter()
        .map(|l| format!("-{l}\n"))
        .chain(new.iter().map(|l| format!("+{l}\n")))
        .collect();
    format!(
        "diff --git a/{path} b/{path}\n--- a/{path}\n+++ b/{path}\n@@ -1,{} +1,{} @@\n x = 1\n\
            {body}",
        old.len() + 1,
        new.len() + 1
    )
}

/// `old` lines replaced by `new` lines inside unchanged context (before and after).
fn edit_in(path: &str, before: &[&str], old: &[&str], new: &[&str], after: &[&str]) -> String {
    let body: String = before
        .iter()
        .map(|l| format!(" {l}\n"))
        .chain(old.iter().map(|l| format!("-{l}\n")))
        .chain(new.iter().map(|l| format!("+{l}\n")))
        .chain(after.iter().map(|l| format!(" {l}\n")))
        .collect();
    let ctx = before.len() + after.len();
    format!(
        "diff --git a/{path} b/{path}\n--- a/{path}\n+++ b/{path}\n@@ -1,{} +1,{} @@\n{body}",
        old.len() + ctx,
        new.len() + ctx
    )
}

fn deleted_file(path: &str, lines: &[&str]) -> String {
    let body: String = lines.iter().map(|l| format!("-{l}\n")).collect();
    format!(
        "diff --git a/{path} b/{path}\ndeleted file mode 100644\n--- a/{path}\n+++ /dev/null\n\
            @@ -1,{} +0,0 @@\n{body}",
        lines.len()
    )
}

fn created_file(path: &str, lines: &[&str]) -> String {
    let body: String = lines.iter().map(|l| format!("+{l}\n")).collect();
    format!(
        "diff --git a/{path} b/{path}\nnew file mode 100644\n--- /dev/null\n+++ b/{path}\n\
            @@ -0,0 +1,{} @@\n{body}",
        lines.len()
    )
}

/// The rows of `table.txt`, the detector table.
fn table() -> Vec<table_file::Row<'static>> {
    table_file::parse(include_str!("table.txt")).unwrap_or_else(|e| panic!("table.txt {e}"))
}

#[test]
fn every_rule_fires_on_its_risky_line_and_not_on_the_safe_variant() {
    let mut failures = Vec::new();
    for row in table() {
        let (rule, risky, safe) = (row.rule, row.risky(), row.safe());
        let got = rules(&risky);
        if !got.contains(&rule) {
            failures.push(format!("{rule} did not fire ({got:?}) on\n{risky}"));
        }
        let got = rules(&safe);
        if got.contains(&rule) {
            failures.push(format!("{rule} fired on the safe variant\n{safe}"));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

#[test]
fn every_rule_is_in_the_table_or_known_to_need_context() {
    let covered: Vec<&str> = table().iter().map(|row| row.rule).collect();
    for rule in Rule::ALL {
        assert!(
            covered.contains(&rule.name()),
            "{} has no table case",
            rule.name()
        );
    }
}

#[test]
fn textbook_risky_one_liners_fire_on_their_axis() {
    for (diff, want) in [
        (
            added(
                "app/client.py",
                &["r = requests.get(url, verify=False, timeout=5)"],
            ),
            Rule::TlsVerifyOff,
        ),
        (
            added(
                "cmd/x/main.go",
                &["\tcfg := &tls.Config{InsecureSkipVerify: true}"],
            ),
            Rule::TlsVerifyOff,
        ),
        (
            added(
                "app/jobs.py",
                &["try:", "    run()", "except Exception: pass"],
            ),
            Rule::ErrorSwallowed,
        ),
        (
            edit_in(
                "tests/test_x.py",
                &[],
                &[],
                &["@pytest.mark.skip"],
                &["def test_x():"],
            ),
            Rule::TestSkipped,
        ),
        (
            edit_in(
                "tests/test_x.py",
                &["import x", ""],
                &["def test_gone():", "    assert x.f() == 1"],
                &[],
                &[""],
            ),
            Rule::TestDeleted,
        ),
        (
            edit(
                "tests/test_x.py",
                &["    assert result == 42"],
                &["    assert result is not None"],
            ),
            Rule::AssertionLoosened,
        ),
        (
            added(
                "app/db.py",
                &["cur.execute(f\"SELECT * FROM users WHERE name = '{name}'\")"],
            ),
            Rule::SqlFromString,
        ),
        (
            edit_in(
                "app/settings.py",
                &["MIDDLEWARE = ["],
                &["    'django.middleware.csrf.CsrfViewMiddleware',"],
                &["    # 'django.middleware.csrf.CsrfViewMiddleware',"],
                &["]"],
            ),
            Rule::CsrfOff,
        ),
        (
            edit(
                "src/auth.js",
                &["const claims = jwt.verify(token, secret);"],
                &["const claims = jwt.decode(token);"],
            ),
            Rule::TokenVerifyOff,
        ),
        (
            added(
                "src/auth.js",
                &["const claims = jwt.decode(token, { complete: true });"],
            ),
            Rule::TokenVerifyOff,
        ),
        (
            added("deploy.sh", &["chmod 777 /etc/app/key.pem"]),
            Rule::PermissionsWidened,
        ),
        (
            added(
                "app/load.py",
                &["data = yaml.load(stream, Loader=yaml.FullLoader)"],
            ),
            Rule::UnsafeDeserialize,
        ),
        (
            edit(
                "internal/c.go",
                &["\tmu.Lock()", "\tdefer mu.Unlock()"],
                &["\tmu.Lock()"],
            ),
            Rule::UnlockRemoved,
        ),
    ] {
        let mut files = hunks::parse(&diff);
        hunks::mark_changed(&mut files);
        let found = find(&files);
        assert!(
            found
                .iter()
                .any(|f| f.rule == want && f.rule.axis() == want.axis()),
            "{} not found ({:?}) in\n{diff}",
            want.name(),
            found.iter().map(|f| f.rule.name()).collect::<Vec<_>>()
        );
        // Each finding quotes its line.
        assert!(found.iter().all(|f| !f.text.is_empty()), "{found:?}");
    }
}

#[test]
fn safe_variants_stay_quiet() {
    for diff in [
        added(
            "app/client.py",
            &["r = requests.get(url, verify=True, timeout=5)"],
        ),
        added(
            "app/db.py",
            &["cur.execute(\"SELECT * FROM users WHERE name = %s\", (name,))"],
        ),
        added("app/load.py", &["data = yaml.safe_load(stream)"]),
        added(
            "app/jobs.py",
            &[
                "try:",
                "    run()",
                "except ValueError:",
                "    log.warning(\"bad\")",
            ],
        ),
        added(
            "src/api.ts",
            &["  } catch (e) {", "    logger.error(e);", "  }"],
        ),
        added(
            "app/files.py",
            &["with open(path) as f:", "    data = f.read()"],
        ),
        added(
            "app/log.py",
            &["logger.info(\"token refreshed for %s\", user.id)"],
        ),
        edit(
            "tests/test_x.py",
            &["@pytest.mark.skip(reason=\"flaky\")"],
            &[],
        ),
        added(
            "tests/test_x.py",
            &["def test_new():", "    assert parse(\"1\") == 1"],
        ),
        added("src/x.rs", &["let n = parse(s)?;"]),
        added("cmd/x/main.go", &["\tdefer f.Close()"]),
        added(".github/workflows/ci.yml", &["      - run: pytest -x"]),
    ] {
        assert!(rules(&diff).is_empty(), "{:?} for\n{diff}", rules(&diff));
    }
}

#[test]
fn a_test_moved_to_another_file_is_not_deleted() {
    let moved = format!(
        "{}{}",
        edit_in(
            "tests/test_a.py",
            &["import a", ""],
            &["def test_rejects_empty():", "    assert not a.parse(\"\")"],
            &[],
            &[""]
        ),
        added(
            "tests/test_b.py",
            &["def test_rejects_empty():", "    assert not a.parse(\"\")"]
        )
    );
    assert!(
        !rules(&moved).contains(&"test-deleted"),
        "{:?}",
        rules(&moved)
    );
    let renamed = edit(
        "tests/test_x.py",
        &["def test_rejects_empty():", "    assert not parse(\"\")"],
        &["def test_rejects_blank():", "    assert not parse(\"\")"],
    );
    assert!(
        !rules(&renamed).contains(&"test-deleted"),
        "{:?}",
        rules(&renamed)
    );
}

#[test]
fn find_in_reads_one_unit_with_the_whole_turns_context() {
    let test_diff = edit(
        "tests/test_x.py",
        &["    assert total(cart) == 30"],
        &["    assert total(cart) == 35"],
    );
    let code_diff = edit(
        "app/cart.py",
        &["    return sum(prices)"],
        &["    return sum(prices) + shipping"],
    );
    let whole = format!("{test_diff}{code_diff}");
    let mut all = hunks::parse(&whole);
    hunks::mark_changed(&mut all);
    let ctx = Context::of(&all);
    assert!(ctx.code_lines > 0);
    // The test file and the code it tests read as one unit: the code changed, so a
    // changed expectation is not flagged.
    let found = find_in(&all, &ctx);
    assert!(
        found.iter().all(|f| f.rule != Rule::ExpectationChanged),
        "{found:?}"
    );
    // The test file as a unit of its own: code elsewhere in the turn does not silence it
    // (a file unrelated to a unit never lowers what the unit raises).
    let unit = &all[..1];
    for alone in [find_in(unit, &ctx), find_in(unit, &Context::of(unit))] {
        assert!(
            alone.iter().any(|f| f.rule == Rule::ExpectationChanged),
            "{alone:?}"
        );
    }
    assert_eq!(find(&all), find_in(&all, &ctx));
}
