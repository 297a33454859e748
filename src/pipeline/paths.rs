//! What a path alone says about a file. One definition of "test code", shared by the payload's
//! size policy (source before tests) and the local scorer (which signals a file may raise).

/// Directory names that hold test code.
const TEST_DIRS: &[&str] = &[
    "test",
    "tests",
    "__tests__",
    "spec",
    "specs",
    "testing",
    "testdata",
    "fixtures",
    "e2e",
    "it",
];

/// Whether `path` (repository-relative, `/`-separated) names test code: a file under a test
/// directory (`tests/`, `unittests/`, a .NET test project `Foo.Tests/`), or a test file by
/// its name (`test_x.py`, `x_test.go`, `x_spec.rb`, `x.test.ts`, `x.spec.js`, `FooTest.java`,
/// `FooTests.cs`, Django's and Rust's `tests.py` / `tests.rs`, `linuxliketests.py`).
pub fn is_test_path(path: &str) -> bool {
    let file = path.rsplit('/').next().unwrap_or(path);
    let lower = path.to_ascii_lowercase();
    let in_test_dir = lower.split('/').rev().skip(1).any(test_dir);
    let name = file.to_ascii_lowercase();
    let stem = name.split('.').next().unwrap_or(&name);
    let cased_stem = file.split('.').next().unwrap_or(file);
    in_test_dir
        || stem.starts_with("test_")
        || stem.ends_with("_test")
        || stem.ends_with("_spec")
        || stem.ends_with("_specs")
        || plural_tests(stem)
        || name.contains(".test.")
        || name.contains(".spec.")
        // CamelCase test classes: `FooTest`, `FooTests`, not `latest` or `contest`.
        || cased_stem.ends_with("Test")
        || cased_stem.ends_with("Tests")
}

/// A directory that holds tests: one of [`TEST_DIRS`], a name of tests in the plural
/// (`unittests`, `integration_tests`, `selftests`), a suite (`testsuite`,
/// `runtime-testsuite`), or a .NET test project (`Foo.Tests`, `Foo.UnitTests`, `Foo.Testing`).
fn test_dir(dir: &str) -> bool {
    TEST_DIRS.contains(&dir)
        || plural_tests(dir)
        || dir.ends_with("testsuite")
        || dir.ends_with("test-suite")
        || dir.ends_with("test_suite")
        || dir == "selftest"
        || dir.rsplit_once('.').is_some_and(|(_, last)| test_dir(last))
}

/// A name that ends in `tests` as a word of its own (`tests`, `unit_tests`, `unittests`,
/// `linuxliketests`), not as the end of an English word (`contests`, `protests`).
fn plural_tests(name: &str) -> bool {
    name.ends_with("tests")
        && !["contests", "protests", "attests", "detests", "latests"]
            .iter()
            .any(|w| name.ends_with(w))
}

#[cfg(test)]
mod tests {
    use super::is_test_path;

    #[test]
    fn test_paths() {
        for (path, test) in [
            ("src/a_test.go", true),
            ("tests/test_x.py", true),
            ("app/test_x.py", true),
            ("src/ui/Badge.test.tsx", true),
            ("src/ui/badge.spec.js", true),
            ("src/test/java/com/x/FooTest.java", true),
            ("src/main/java/com/x/FooTest.java", true),
            ("Foo.Tests/BarTests.cs", true),
            ("spec/models/a_spec.rb", true),
            ("pkg/testdata/input.json", true),
            ("unittests/allplatformstests.py", true),
            ("mesonbuild/linuxliketests.py", true),
            ("polls/tests.py", true),
            ("src/parser/tests.rs", true),
            ("MassTransit.ServiceBus.Tests/QueueTestContext.cs", true),
            ("src/Acme.UnitTests/Helpers.cs", true),
            ("runtime-testsuite/src/Base.java", true),
            ("spec/models/user_specs.rb", true),
            ("tools/selftest/run.sh", true),
            ("src/contests.py", false),
            ("app/protests/views.py", false),
            ("src/Acme.Testing/Fake.cs", true),
            ("src/latest.java", false),
            ("src/contest.py", false),
            ("src/testing_utils.go", false),
            ("src/lib.rs", false),
            ("docs/testing.md", false),
        ] {
            assert_eq!(is_test_path(path), test, "{path}");
        }
    }
}
