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
/// directory, or a test file by its name (`test_x.py`, `x_test.go`, `x_spec.rb`, `x.test.ts`,
/// `x.spec.js`, `FooTest.java`, `FooTests.cs`).
pub fn is_test_path(path: &str) -> bool {
    let file = path.rsplit('/').next().unwrap_or(path);
    let lower = path.to_ascii_lowercase();
    let in_test_dir = lower
        .split('/')
        .rev()
        .skip(1)
        .any(|dir| TEST_DIRS.contains(&dir));
    let name = file.to_ascii_lowercase();
    let stem = name.split('.').next().unwrap_or(&name);
    let cased_stem = file.split('.').next().unwrap_or(file);
    in_test_dir
        || stem.starts_with("test_")
        || stem.ends_with("_test")
        || stem.ends_with("_tests")
        || stem.ends_with("_spec")
        || name.contains(".test.")
        || name.contains(".spec.")
        // CamelCase test classes: `FooTest`, `FooTests`, not `latest` or `contest`.
        || cased_stem.ends_with("Test")
        || cased_stem.ends_with("Tests")
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
