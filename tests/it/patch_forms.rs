//! `eval --patch` reads every form real git writes: swapped prefixes (`git diff -R`),
//! `diff.mnemonicPrefix` (`c/ i/ w/ o/`), `--no-prefix`, and `--src-prefix`/`--dst-prefix`.
//! Each form, parsed, must give the same paths and statuses as git's default output of the
//! same change — and the same bytes, because sections written with other prefixes are
//! rewritten with `a/` and `b/`.

use std::process::Stdio;

use jev_preflight::git::diff::Change;
use jev_preflight::git::diff::patch::parse;
use serde_json::{Value, json};

use crate::support::TestRepo;
use crate::support::hook::HookEnv;

/// A repository whose index and working tree hold every kind of change: a modification in a
/// subdirectory, an added and a deleted file, a rename with an edit, names with a space and
/// a tab, a mode change and a binary file.
fn repo() -> TestRepo {
    let repo = TestRepo::new();
    repo.write(
        "src/auth.rs",
        "pub fn check(user: &User) -> bool {\n    require_admin(user)?;\n    user.ok()\n}\n",
    );
    repo.write("gone.txt", "bye\n");
    repo.write(
        "docs/old name.md",
        "one\ntwo\nthree\nfour\nfive\nsix\nseven\neight\n",
    );
    repo.write("tab\there.txt", "t\n");
    repo.write("run.sh", "echo hi\n");
    repo.write("logo.bin", [0u8, 1, 2, 3, 0, 5]);
    repo.commit_all("init");
    repo.write(
        "src/auth.rs",
        "pub fn check(user: &User) -> bool {\n    user.ok()\n}\n",
    );
    repo.remove("gone.txt");
    repo.write("new file.txt", "hello\n");
    repo.git(&["mv", "docs/old name.md", "docs/new name.md"]);
    repo.write(
        "docs/new name.md",
        "one\ntwo\nthree\nfour\nfive\nsix\nseven\neight!\n",
    );
    repo.write("tab\there.txt", "u\n");
    std::fs::set_permissions(
        repo.path().join("run.sh"),
        std::os::unix::fs::PermissionsExt::from_mode(0o755),
    )
    .unwrap();
    repo.write("logo.bin", [0u8, 1, 2, 3, 0, 6]);
    repo.git(&["add", "-A"]);
    repo
}

fn summary(changes: &[Change]) -> Vec<(String, Option<String>, String, bool)> {
    changes
        .iter()
        .map(|c| {
            (
                String::from_utf8_lossy(&c.path).into_owned(),
                c.old_path
                    .as_ref()
                    .map(|p| String::from_utf8_lossy(p).into_owned()),
                format!("{:?}", c.status),
                c.binary,
            )
        })
        .collect()
}

fn parsed(patch: &str) -> Vec<Change> {
    parse(patch.as_bytes()).unwrap_or_else(|e| panic!("{e}:\n{patch}"))
}

#[test]
fn every_prefix_form_git_writes_reads_as_the_default() {
    let repo = repo();
    let base = parsed(&repo.git(&["diff", "--cached", "HEAD"]));
    assert_eq!(
        summary(&base),
        [
            (
                "docs/new name.md".into(),
                Some("docs/old name.md".into()),
                "Renamed".into(),
                false
            ),
            ("gone.txt".into(), None, "Deleted".into(), false),
            ("logo.bin".into(), None, "Modified".into(), true),
            ("new file.txt".into(), None, "Added".into(), false),
            ("run.sh".into(), None, "Modified".into(), false),
            ("src/auth.rs".into(), None, "Modified".into(), false),
            ("tab\there.txt".into(), None, "Modified".into(), false),
        ]
    );
    let forms: &[(&str, &[&str])] = &[
        (
            "mnemonic c/ i/",
            &["-c", "diff.mnemonicPrefix=true", "diff", "--cached", "HEAD"],
        ),
        ("no prefix", &["diff", "--cached", "HEAD", "--no-prefix"]),
        (
            "src/dst prefixes",
            &[
                "diff",
                "--cached",
                "HEAD",
                "--src-prefix=left/",
                "--dst-prefix=right/",
            ],
        ),
        (
            "src/dst prefixes of one letter",
            &[
                "diff",
                "--cached",
                "HEAD",
                "--src-prefix=x/",
                "--dst-prefix=y/",
            ],
        ),
        (
            "swapped b/ a/",
            &[
                "diff",
                "--cached",
                "HEAD",
                "--src-prefix=b/",
                "--dst-prefix=a/",
            ],
        ),
    ];
    for (name, args) in forms {
        let text = repo.git(args);
        assert!(
            !text.contains("diff --git a/"),
            "{name}: not the form meant:\n{text}"
        );
        let changes = parsed(&text);
        assert_eq!(summary(&changes), summary(&base), "{name}:\n{text}");
        for (got, want) in changes.iter().zip(&base) {
            assert_eq!(
                String::from_utf8_lossy(&got.patch),
                String::from_utf8_lossy(&want.patch),
                "{name}"
            );
        }
    }
}

#[test]
fn git_diff_reversed_reads_as_the_reverse_change() {
    let repo = repo();
    repo.git(&["commit", "-q", "-m", "change"]);
    // `git diff -R HEAD~1 HEAD` is `git diff HEAD HEAD~1` with the prefixes swapped.
    let reversed = repo.git(&["diff", "-R", "HEAD~1", "HEAD"]);
    assert!(
        reversed.contains("diff --git b/src/auth.rs a/src/auth.rs"),
        "{reversed}"
    );
    let forward = parsed(&repo.git(&["diff", "HEAD", "HEAD~1"]));
    let changes = parsed(&reversed);
    assert_eq!(summary(&changes), summary(&forward));
    assert!(summary(&changes).contains(&("gone.txt".into(), None, "Added".into(), false)));
    for (got, want) in changes.iter().zip(&forward) {
        assert_eq!(
            String::from_utf8_lossy(&got.patch),
            String::from_utf8_lossy(&want.patch)
        );
    }
    // Mnemonic prefixes of the working tree against the index (`i/ w/`).
    repo.write(
        "src/auth.rs",
        "pub fn check(_: &User) -> bool {\n    true\n}\n",
    );
    let text = repo.git(&["-c", "diff.mnemonicPrefix=true", "diff"]);
    assert!(
        text.starts_with("diff --git i/src/auth.rs w/src/auth.rs"),
        "{text}"
    );
    assert_eq!(
        summary(&parsed(&text)),
        [("src/auth.rs".into(), None, "Modified".into(), false)]
    );
}

/// The real binary: `eval --patch -` on a reversed, mnemonic and prefix-less diff names the
/// right files, and the local scorer's evidence points into them.
#[test]
fn eval_reads_each_form_from_stdin_with_correct_paths() {
    let repo = repo();
    let env = HookEnv::new();
    let outside = tempfile::tempdir().unwrap();
    // The payload names both sides of a rename.
    let expected = json!([
        "docs/new name.md",
        "docs/old name.md",
        "gone.txt",
        "new file.txt",
        "run.sh",
        "src/auth.rs",
        "tab\there.txt"
    ]);
    repo.git(&["commit", "-q", "-m", "change"]);
    for args in [
        &["diff", "-R", "HEAD", "HEAD~1"][..],
        &["-c", "diff.mnemonicPrefix=true", "diff", "HEAD~1", "HEAD"][..],
        &["diff", "--no-prefix", "HEAD~1", "HEAD"][..],
        &[
            "diff",
            "--src-prefix=old/",
            "--dst-prefix=new/",
            "HEAD~1",
            "HEAD",
        ][..],
    ] {
        let patch = repo.git(args);
        let mut child = env
            .command(&["eval", "--patch", "-", "--json", "--scorer", "local"])
            .current_dir(outside.path())
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        std::io::Write::write_all(&mut child.stdin.take().unwrap(), patch.as_bytes()).unwrap();
        let out = child.wait_with_output().unwrap();
        assert_eq!(
            out.status.code(),
            Some(0),
            "{args:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        let v: Value = serde_json::from_slice(&out.stdout).unwrap();
        assert_eq!(v["files"], expected, "{args:?}");
        let evidence = v["evidence"].as_array().unwrap();
        assert!(
            evidence
                .iter()
                .any(|e| e["file"] == "src/auth.rs" && e["axis"] == "auth_boundary"),
            "{args:?}: {v:#}"
        );
        for e in evidence {
            assert!(
                expected.as_array().unwrap().contains(&e["file"]),
                "{args:?}: evidence for a file that is not in the change: {e}"
            );
        }
    }
}
