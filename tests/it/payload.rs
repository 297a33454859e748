//! The canonical payload: exact format, normalisation, metadata, size policy, invariants.

use jev_preflight::git::diff::{Change, Status};
use jev_preflight::pipeline::payload::{
    Outcome, Oversize, PARTIAL_MARKER, Payload, SizePolicy, SkipReason, build,
};
use jev_preflight::pipeline::redact::Redactor;
use proptest::prelude::*;
use sha2::{Digest, Sha256};

fn text_change(path: &str, body: &str) -> Change {
    let mut patch =
        format!("diff --git a/{path} b/{path}\n--- a/{path}\n+++ b/{path}\n@@ -1,1 +1,1 @@\n");
    patch.push_str(body);
    Change {
        path: path.as_bytes().to_vec(),
        old_path: None,
        status: Status::Modified,
        binary: false,
        patch: patch.into_bytes(),
        oversized: None,
        unread: false,
    }
}

fn ready(outcome: Outcome) -> Payload {
    match outcome {
        Outcome::Ready(p) => p,
        other => panic!("expected a payload, got {other:?}"),
    }
}

fn sha256_hex(bytes: &[u8]) -> String {
    Sha256::digest(bytes)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

#[test]
fn canonical_json_is_exact() {
    let changes = vec![
        text_change("src/b.rs", "-old\n+new\n"),
        text_change("src/a.rs", "+x\n"),
    ];
    let p = ready(build(&changes, &Redactor::new(), &SizePolicy::default()));
    let diff = "diff --git a/src/a.rs b/src/a.rs\n--- a/src/a.rs\n+++ b/src/a.rs\n@@ -1,1 +1,1 @@\n+x\n\
                diff --git a/src/b.rs b/src/b.rs\n--- a/src/b.rs\n+++ b/src/b.rs\n@@ -1,1 +1,1 @@\n-old\n+new\n";
    let want = format!(
        "{{\"format\":\"unified_diff\",\"files\":[\"src/a.rs\",\"src/b.rs\"],\"diff\":{}}}",
        serde_json::to_string(diff).unwrap()
    );
    assert_eq!(p.json, want);
    assert_eq!(p.hash, sha256_hex(p.json.as_bytes()));
    assert_eq!(p.hash.len(), 64);
    assert_eq!(p.files, ["src/a.rs", "src/b.rs"]);
    assert_eq!(p.diff, diff);
    assert!(p.omitted.is_empty());
}

#[test]
fn crlf_and_invalid_utf8_are_normalised() {
    let mut change = text_change("a.txt", "+one\r\n+two\r\n");
    change.patch.extend_from_slice(b"+bad \xff\xfe byte\n");
    change.path = b"caf\xe9.txt".to_vec();
    let p = ready(build(&[change], &Redactor::new(), &SizePolicy::default()));
    assert!(!p.diff.contains('\r'));
    assert!(p.diff.contains("+one\n+two\n"));
    assert!(p.diff.contains("+bad \u{fffd}\u{fffd} byte\n"));
    assert_eq!(p.files, ["caf\u{fffd}.txt"]);
    let value: serde_json::Value = serde_json::from_str(&p.json).unwrap();
    assert_eq!(value["diff"], p.diff.as_str());
}

#[test]
fn secrets_in_paths_and_patches_are_redacted() {
    let token = "ghp_FAKEfake0123456789FAKEfake0123456789";
    let path = format!("keys/{token}.txt");
    let change = text_change(
        &path,
        &format!("+password = \"hunter2hunter2\"\n+t = {token}\n"),
    );
    let p = ready(build(&[change], &Redactor::new(), &SizePolicy::default()));
    assert!(
        !p.json.contains(token) && !p.json.contains("hunter2"),
        "{}",
        p.json
    );
    assert_eq!(p.files, ["keys/[REDACTED:github-token].txt"]);
    assert!(p.redactions.counts["github-token"] >= 2);
    assert_eq!(p.redactions.counts["generic-secret"], 1);
}

#[test]
fn binary_and_oversized_changes_are_metadata_only() {
    let binary = Change {
        path: b"img/new.bin".to_vec(),
        old_path: Some(b"img/old.bin".to_vec()),
        status: Status::Renamed,
        binary: true,
        patch: b"diff --git a/img/old.bin b/img/new.bin\nGIT binary patch\nliteral 3\nabc\n"
            .to_vec(),
        oversized: None,
        unread: false,
    };
    let oversized = Change {
        path: b"data/dump.csv".to_vec(),
        old_path: None,
        status: Status::Added,
        binary: false,
        patch: Vec::new(),
        oversized: Some(3 << 20),
        unread: false,
    };
    let p = ready(build(
        &[binary, oversized],
        &Redactor::new(),
        &SizePolicy::default(),
    ));
    assert_eq!(
        p.diff,
        "diff --git a/data/dump.csv b/data/dump.csv\n# path: data/dump.csv\n# status: added\n\
         # file over the size cap (3145728 bytes), content not included\n\
         diff --git a/img/old.bin b/img/new.bin\n# old path: img/old.bin\n# path: img/new.bin\n\
         # status: renamed\n# binary file, content not included\n"
    );
    assert!(!p.json.contains("GIT binary patch"));
    // A rename names both paths.
    assert_eq!(p.files, ["data/dump.csv", "img/new.bin", "img/old.bin"]);
}

#[test]
fn nothing_kept_is_empty() {
    assert!(matches!(
        build(&[], &Redactor::new(), &SizePolicy::default()),
        Outcome::Empty
    ));
}

fn body(lines: usize) -> String {
    (0..lines).map(|i| format!("+line {i}\n")).collect()
}

#[test]
fn partial_keeps_whole_files_by_priority_and_names_the_rest() {
    let changes = vec![
        text_change("README.md", &body(5)),
        text_change("config/app.yaml", &body(5)),
        text_change("tests/api_test.rs", &body(20)),
        text_change("src/small.rs", &body(10)),
        text_change("src/big.rs", &body(400)),
    ];
    let policy = SizePolicy {
        max_bytes: 1200,
        oversize: Oversize::Partial,
    };
    let p = ready(build(&changes, &Redactor::new(), &policy));
    assert!(p.json.len() <= 1200, "{}", p.json.len());
    // Source first (the small one fits, the big one does not), then the test, then config.
    assert_eq!(
        p.files,
        [
            "README.md",
            "config/app.yaml",
            "src/small.rs",
            "tests/api_test.rs"
        ]
    );
    assert_eq!(p.omitted, ["src/big.rs"]);
    assert!(p.diff.ends_with(&format!(
        "{PARTIAL_MARKER}: 1 of 5 files left out to stay within the size limit\n#   src/big.rs\n"
    )));
    assert_eq!(p.hash, sha256_hex(p.json.as_bytes()));

    // Tighter: the test file no longer fits; a smaller lower-priority file still fills the
    // room that is left, and the marker lists the others.
    let policy = SizePolicy {
        max_bytes: 560,
        oversize: Oversize::Partial,
    };
    let p = ready(build(&changes, &Redactor::new(), &policy));
    assert!(p.json.len() <= 560, "{}", p.json.len());
    assert_eq!(p.files, ["README.md", "src/small.rs"]);
    assert_eq!(
        p.omitted,
        ["config/app.yaml", "src/big.rs", "tests/api_test.rs"]
    );
    for name in &p.omitted {
        assert!(p.diff.contains(&format!("#   {name}\n")), "{name}");
    }
}

#[test]
fn marker_degrades_to_a_count_when_names_do_not_fit() {
    let mut changes = vec![text_change("src/a.rs", "+a\n")];
    for i in 0..200 {
        changes.push(text_change(
            &format!("docs/a-very-long-directory-name/another-long-segment/file-{i:03}.md"),
            &body(50),
        ));
    }
    let policy = SizePolicy {
        max_bytes: 600,
        oversize: Oversize::Partial,
    };
    let p = ready(build(&changes, &Redactor::new(), &policy));
    assert!(p.json.len() <= 600, "{}", p.json.len());
    assert_eq!(p.files, ["src/a.rs"]);
    assert_eq!(p.omitted.len(), 200);
    // The names do not fit; the count per top-level directory does.
    assert!(
        p.diff.ends_with(&format!(
            "{PARTIAL_MARKER}: 200 of 201 files left out to stay within the size limit\n#   docs/ (200 files)\n"
        )),
        "{}",
        p.diff
    );

    // Spread over 200 top-level directories, not even those fit: names and a count.
    let mut changes = vec![text_change("src/a.rs", "+a\n")];
    for i in 0..200 {
        changes.push(text_change(
            &format!("dir-with-a-long-name-{i:03}/file.md"),
            &body(50),
        ));
    }
    let p = ready(build(&changes, &Redactor::new(), &policy));
    assert!(p.json.len() <= 600, "{}", p.json.len());
    assert_eq!(p.omitted.len(), 200);
    assert!(p.diff.contains(PARTIAL_MARKER));
    assert!(p.diff.contains("more\n"), "{}", p.diff);
}

/// A new file, as git's diff shows one.
fn added_change(path: &str, body: &str) -> Change {
    let lines = body.lines().count();
    let mut change = text_change(path, "");
    change.status = Status::Added;
    change.patch = format!(
        "diff --git a/{path} b/{path}\nnew file mode 100644\n--- /dev/null\n+++ b/{path}\n@@ -0,0 +1,{lines} @@\n{body}"
    )
    .into_bytes();
    change
}

#[test]
fn a_real_edit_goes_before_bulk_and_unread_files() {
    // The edit is larger than each generated file; by size alone it would come last.
    let edit = text_change("src/server.rs", &body(40));
    let mut changes = vec![edit];
    for i in 0..300 {
        changes.push(added_change(
            &format!("generated/part{}/gen{i:04}.js", i / 100),
            "+export const v = 1;\n",
        ));
    }
    let mut unread = added_change("generated/part9/late.js", "");
    unread.patch.clear();
    unread.unread = true;
    changes.push(unread);
    // A new test file beside them is no bulk: it goes before every generated file.
    changes.push(added_change("tests/server_test.rs", &body(3)));
    let policy = SizePolicy {
        max_bytes: 4096,
        oversize: Oversize::Partial,
    };
    let p = ready(build(&changes, &Redactor::new(), &policy));
    assert!(p.json.len() <= 4096, "{}", p.json.len());
    assert!(
        p.files.contains(&"src/server.rs".to_owned()),
        "{:?}",
        p.files
    );
    assert!(p.files.contains(&"tests/server_test.rs".to_owned()));
    assert!(p.files.len() > 2, "bulk files fill the room that is left");
    assert!(p.omitted.contains(&"generated/part9/late.js".to_owned()));
    assert!(p.diff.contains(PARTIAL_MARKER));

    // With room for all, the unread file says why it has no content.
    let roomy = SizePolicy {
        max_bytes: 1 << 20,
        oversize: Oversize::Partial,
    };
    let p = ready(build(&changes, &Redactor::new(), &roomy));
    assert!(p.omitted.is_empty());
    assert!(p.diff.contains(&format!(
        "diff --git a/generated/part9/late.js b/generated/part9/late.js\n# path: generated/part9/late.js\n# status: added\n# {}\n",
        jev_preflight::pipeline::payload::UNREAD_NOTE
    )));
}

#[test]
fn skip_mode_and_unfittable_partial_are_typed_skips() {
    let changes = vec![text_change("src/a.rs", &body(100))];
    let full = ready(build(&changes, &Redactor::new(), &SizePolicy::default()))
        .json
        .len();
    for oversize in [Oversize::Skip, Oversize::Partial] {
        let policy = SizePolicy {
            max_bytes: 300,
            oversize,
        };
        match build(&changes, &Redactor::new(), &policy) {
            Outcome::Skipped(SkipReason::TooLarge { bytes, max_bytes }) => {
                assert_eq!((bytes, max_bytes), (full, 300));
            }
            other => panic!("{oversize:?}: {other:?}"),
        }
    }
    // Exactly at the cap is still whole.
    let policy = SizePolicy {
        max_bytes: full,
        oversize: Oversize::Skip,
    };
    assert_eq!(
        ready(build(&changes, &Redactor::new(), &policy)).json.len(),
        full
    );
}

fn arb_change() -> impl Strategy<Value = Change> {
    let path = proptest::collection::vec(
        prop_oneof![
            Just("src".to_owned()),
            Just("tests".to_owned()),
            Just("docs".to_owned()),
            "[a-z]{1,8}",
        ],
        1..4,
    )
    .prop_flat_map(|dirs| {
        (
            Just(dirs),
            prop_oneof![Just("rs"), Just("go"), Just("md"), Just("yaml"), Just("py")],
        )
    })
    .prop_map(|(dirs, ext)| format!("{}.{ext}", dirs.join("/")));
    let line = prop_oneof![
        "[ -~]{0,60}",
        Just("password = \"hunter2hunter2\"".to_owned()),
        Just("token: ghp_FAKEfake0123456789FAKEfake0123456789".to_owned()),
        Just("\"quoted\\\\ and \u{e9}\u{1f600} unicode\"".to_owned()),
        Just("tab\there\r".to_owned()),
    ];
    (
        path,
        proptest::collection::vec(line, 0..30),
        any::<bool>(),
        proptest::option::of(1u64..1 << 30),
        proptest::collection::vec(any::<u8>(), 0..8),
    )
        .prop_map(|(path, lines, binary, oversized, junk)| {
            let mut patch = format!("diff --git a/{path} b/{path}\n@@ -1 +1 @@\n").into_bytes();
            for l in lines {
                patch.push(b'+');
                patch.extend_from_slice(l.as_bytes());
                patch.push(b'\n');
            }
            patch.extend_from_slice(&junk);
            Change {
                path: path.into_bytes(),
                old_path: None,
                status: Status::Modified,
                binary,
                patch,
                oversized: if binary { None } else { oversized },
                unread: false,
            }
        })
}

fn unique_paths(changes: Vec<Change>) -> Vec<Change> {
    let mut seen = std::collections::HashSet::new();
    changes
        .into_iter()
        .filter(|c| seen.insert(c.path.clone()))
        .collect()
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 96, ..ProptestConfig::default() })]

    #[test]
    fn payload_invariants(
        changes in proptest::collection::vec(arb_change(), 1..12),
        max_bytes in 40usize..6000,
        skip in any::<bool>(),
        rotate in 0usize..12,
    ) {
        let changes = unique_paths(changes);
        let policy = SizePolicy {
            max_bytes,
            oversize: if skip { Oversize::Skip } else { Oversize::Partial },
        };
        let redactor = Redactor::new();
        let first = build(&changes, &redactor, &policy);
        let mut shuffled = changes.clone();
        shuffled.reverse();
        let len = shuffled.len();
        shuffled.rotate_left(rotate % len);
        let second = build(&shuffled, &Redactor::new(), &policy);
        match (first, second) {
            (Outcome::Ready(a), Outcome::Ready(b)) => {
                prop_assert!(a.json.len() <= max_bytes, "{} > {max_bytes}", a.json.len());
                let value: serde_json::Value = serde_json::from_str(&a.json).unwrap();
                let keys: Vec<&String> = value.as_object().unwrap().keys().collect();
                prop_assert_eq!(keys.len(), 3);
                let prefix = "{\"format\":\"unified_diff\",\"files\":[";
                prop_assert!(a.json.starts_with(prefix), "bad prefix");
                prop_assert_eq!(value["diff"].as_str().unwrap(), a.diff.as_str());
                let mut sorted = a.files.clone();
                sorted.sort();
                prop_assert_eq!(&sorted, &a.files);
                prop_assert!(!a.diff.contains("\r\n"), "CRLF left in the diff");
                prop_assert!(!a.json.contains("hunter2") && !a.json.contains("FAKEfake"));
                prop_assert_eq!(&a.hash, &sha256_hex(a.json.as_bytes()));
                prop_assert_eq!(&a.json, &b.json);
                prop_assert_eq!(&a.hash, &b.hash);
                if !a.omitted.is_empty() {
                    prop_assert!(!skip);
                    prop_assert!(a.diff.contains(PARTIAL_MARKER));
                }
            }
            (Outcome::Skipped(a), Outcome::Skipped(b)) => prop_assert_eq!(a, b),
            (a, b) => prop_assert!(false, "order changed the outcome: {a:?} vs {b:?}"),
        }
    }
}
