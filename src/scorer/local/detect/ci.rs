//! CI and test-runner configuration made tolerant of failures, or a test step removed.

use super::*;

/// CI or the test run made tolerant of failures, or a test step removed.
pub(super) fn ci_file(
    file: &FileDiff<'_>,
    _dialect: Dialect,
    push: &mut impl FnMut(Rule, u32, &str),
) {
    for hunk in &file.hunks {
        let new = side(hunk, true);
        // What the hunk adds as configuration (comments left out) and as comments.
        let added: String = hunk
            .lines
            .iter()
            .filter(|l| l.kind == LineKind::Added && !file.is_comment(l.text))
            .map(|l| l.text.to_ascii_lowercase())
            .collect::<Vec<_>>()
            .join("\n");
        let added_squeezed = without_spaces(&added);
        let commented: BTreeSet<String> = hunk
            .lines
            .iter()
            .filter(|l| l.kind == LineKind::Added && file.is_comment(l.text))
            .map(|l| uncomment(&l.text.to_ascii_lowercase()))
            .collect();
        for l in &hunk.lines {
            if !l.changed {
                continue;
            }
            let raw = l.text.trim();
            let lower = raw.to_ascii_lowercase();
            let squeezed = without_spaces(&lower);
            match l.kind {
                LineKind::Added => {
                    if ci_tolerant(&squeezed) {
                        push(Rule::CiTolerant, l.new_line, raw);
                    } else if squeezed == "if:false"
                        || squeezed == "if:${{false}}"
                        || condition_on_test_step(&new, l.new_line, &squeezed)
                    {
                        push(Rule::CiTestStepRemoved, l.new_line, raw);
                    }
                }
                LineKind::Removed => {
                    let runs_tests = runs_tests(&squeezed);
                    let commented_out = commented.contains(&squeezed);
                    if runs_tests
                        && (commented_out
                            || ![
                                "pytest", "test", "tox", "nox", "rspec", "spec", "phpunit", "jest",
                                "vitest", "mocha", "check", "verify", "ctest",
                            ]
                            .iter()
                            .any(|w| added_squeezed.contains(w)))
                    {
                        push(Rule::CiTestStepRemoved, l.new_line, raw);
                    }
                    if let Some(old) = coverage_floor(&squeezed) {
                        let lowered = added
                            .lines()
                            .filter_map(|a| coverage_floor(&without_spaces(a)))
                            .any(|new| new < old);
                        if lowered {
                            push(Rule::CiTolerant, l.new_line, raw);
                        }
                    }
                }
                LineKind::Context => {}
            }
        }
    }
}

/// A condition added to a step that already ran tests (`if: github.ref == 'refs/heads/main'`
/// above an unchanged `run: npm test`): where it does not hold, the tests stop running.
fn condition_on_test_step(new: &[SideLine<'_>], line: u32, squeezed: &str) -> bool {
    if !squeezed.starts_with("if:") && !squeezed.starts_with("-if:") {
        return false;
    }
    let Some(at) = new.iter().position(|l| l.edited && l.line == line) else {
        return false;
    };
    // The step's other lines: up to the next step (`- name:`, `- run:`, `- uses:`).
    let step = new[at + 1..]
        .iter()
        .take_while(|l| !l.text.trim_start().starts_with("- "))
        .take(6)
        .chain(
            new[..at]
                .iter()
                .rev()
                .take_while(|l| !l.text.trim_start().starts_with("- "))
                .take(6),
        )
        .chain(
            new[..at]
                .iter()
                .rev()
                .find(|l| l.text.trim_start().starts_with("- ")),
        );
    step.into_iter()
        .any(|l| !l.changed && runs_tests(&without_spaces(&l.text.to_ascii_lowercase())))
}

/// A squeezed, lower-cased CI line that lets failures pass.
pub(super) fn ci_tolerant(squeezed: &str) -> bool {
    (squeezed.contains("continue-on-error:") && !squeezed.contains("continue-on-error:false"))
        || squeezed.contains("continueonerror:true")
        || squeezed.contains("allow_failure:true")
        || squeezed.contains("allowfailure:true")
        || squeezed.starts_with("allow_failures:")
        || squeezed.contains("soft_fail:true")
        || squeezed.contains("fail_ci_if_error:false")
        || squeezed.contains("failonerror:false")
        || squeezed.contains("ignore_errors:true")
        || squeezed.contains("ignorefailures=true")
        || squeezed.contains("ignorefailures:true")
        || squeezed.contains("testfailureignore>true")
        || squeezed.contains("maven.test.failure.ignore=true")
        || squeezed.contains("maven.test.skip=true")
        || squeezed.contains("||true")
        || squeezed.contains("||exit0")
        || squeezed.contains("||:")
        || squeezed.contains("$lastexitcode=0")
        || squeezed == "set+e"
        || squeezed.contains("--passwithnotests")
        || squeezed.contains("--no-fail")
        || squeezed.contains("--exit-zero")
        || squeezed.contains("--deselect")
        || squeezed.contains("--ignore=test")
        || squeezed.contains("--ignore=tests")
        || squeezed.contains("-k\"not")
        || squeezed.contains("-k'not")
        || squeezed.contains("--testpathignorepatterns")
        || (squeezed.contains("test") && squeezed.contains("--skip"))
        || (squeezed.contains("gradle") && squeezed.contains("-xtest"))
}

/// A squeezed, lower-cased CI line that runs tests.
pub(super) fn runs_tests(squeezed: &str) -> bool {
    [
        "pytest",
        "npmtest",
        "npmruntest",
        "npmrune2e",
        "yarntest",
        "yarnruntest",
        "pnpmtest",
        "pnpmruntest",
        "gotest",
        "cargotest",
        "cargonextest",
        "mvntest",
        "mvnverify",
        "gradlewtest",
        "gradletest",
        "gradlewcheck",
        "maketest",
        "makecheck",
        "&&ctest",
        "run:ctest",
        "tox",
        "nox",
        "rspec",
        "raketest",
        "rakespec",
        "phpunit",
        "vendor/bin/pest",
        "jest",
        "vitest",
        "mocha",
        "karma",
        "dotnettest",
        "bundleexecrake",
        "runtests",
        "run_tests",
        "test.sh",
        "nosetests",
        "unittest",
        "swifttest",
        "mixtest",
        "fluttertest",
        "coveragerun",
    ]
    .iter()
    .any(|w| squeezed.contains(w))
}

/// The coverage floor a squeezed line sets, if it sets one.
pub(super) fn coverage_floor(squeezed: &str) -> Option<f64> {
    for key in [
        "--cov-fail-under=",
        "fail_under=",
        "fail-under=",
        "--fail-under=",
        "fail_under:",
        "minimum_coverage",
        "coveragethreshold",
        "\"lines\":",
        "branches:",
        "lines:",
        "threshold:",
        "-covermode",
        "min_coverage",
    ] {
        if let Some(at) = squeezed.find(key) {
            let rest = &squeezed[at + key.len()..];
            let num: String = rest
                .trim_start_matches(|c: char| !c.is_ascii_digit())
                .chars()
                .take_while(|c| c.is_ascii_digit() || *c == '.')
                .collect();
            if let Ok(v) = num.parse::<f64>() {
                return Some(v);
            }
        }
    }
    None
}
