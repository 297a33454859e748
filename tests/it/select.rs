//! Path selection: built-in excludes, output trees, headers, user globs, attributes.

use jev_preflight::git::attributes::Attributes;
use jev_preflight::git::attributes::read as read_attributes;
use jev_preflight::git::diff::{Change, Status};
use jev_preflight::git::{Git, ObjectFormat, Repo};
use jev_preflight::pipeline::select::{ExcludeReason, Selector, select};

use crate::support::TestRepo;

fn change(path: &str) -> Change {
    Change {
        path: path.as_bytes().to_vec(),
        old_path: None,
        status: Status::Modified,
        binary: false,
        patch: format!(
            "diff --git a/{path} b/{path}\n--- a/{path}\n+++ b/{path}\n@@ -3,1 +3,1 @@\n-a\n+b\n"
        )
        .into_bytes(),
        oversized: None,
        unread: false,
    }
}

fn added_with(path: &str, lines: &[&str]) -> Change {
    let mut patch = format!(
        "diff --git a/{path} b/{path}\nnew file mode 100644\n--- /dev/null\n+++ b/{path}\n@@ -0,0 +1,{} @@\n",
        lines.len()
    );
    for line in lines {
        patch.push('+');
        patch.push_str(line);
        patch.push('\n');
    }
    Change {
        path: path.as_bytes().to_vec(),
        old_path: None,
        status: Status::Added,
        binary: false,
        patch: patch.into_bytes(),
        oversized: None,
        unread: false,
    }
}

fn kept(changes: Vec<Change>, user: &[&str], attributes: &Attributes) -> Vec<String> {
    let user: Vec<String> = user.iter().map(|s| s.to_string()).collect();
    let selection = select(changes, &Selector::new(&user).unwrap(), attributes);
    selection
        .kept
        .iter()
        .map(|c| String::from_utf8_lossy(&c.path).into_owned())
        .collect()
}

fn is_kept(path: &str) -> bool {
    !kept(vec![change(path)], &[], &Attributes::default()).is_empty()
}

#[test]
fn builtin_excludes_table() {
    let excluded = [
        // Lockfiles of the major ecosystems.
        "Cargo.lock",
        "web/package-lock.json",
        "npm-shrinkwrap.json",
        "yarn.lock",
        "pnpm-lock.yaml",
        "bun.lockb",
        "deno.lock",
        "Gemfile.lock",
        "Pipfile.lock",
        "poetry.lock",
        "uv.lock",
        "composer.lock",
        "go.sum",
        "ios/Podfile.lock",
        "Package.resolved",
        "packages.lock.json",
        "mix.lock",
        "pubspec.lock",
        "flake.lock",
        "gradle.lockfile",
        ".terraform.lock.hcl",
        // Vendored and dependency trees at any depth.
        "vendor/github.com/pkg/errors/errors.go",
        "app/node_modules/left-pad/index.js",
        "third_party/zlib/inflate.c",
        "ios/Pods/Alamofire/Source/AF.swift",
        ".venv/lib/python3.12/site-packages/six.py",
        "web/bower_components/jquery/jquery.js",
        // Caches and tool output.
        "pkg/__pycache__/mod.cpython-312.pyc",
        "web/.next/server/page.js",
        ".terraform/modules/vpc/main.tf",
        "bazel-out/k8-fastbuild/bin/app",
        "cmake-build-debug/CMakeCache.txt",
        // Generated names, minified files, source maps.
        "api/v1/service.pb.go",
        "proto/service_pb2.py",
        "lib/models.g.dart",
        "static/app.min.js",
        "static/site.min.css",
        "static/app.js.map",
        // Media, fonts, documents, archives, objects.
        "assets/logo.png",
        "assets/Photo.JPG",
        "img/icon.svg",
        "media/intro.mp4",
        "fonts/Inter.woff2",
        "fonts/Mono.ttf",
        "docs/spec.pdf",
        "docs/plan.docx",
        "data/report.xlsx",
        "dist.zip",
        "lib/libfoo.so",
        "build.jar",
        "Main.class",
    ];
    for path in excluded {
        assert!(!is_kept(path), "{path} should be excluded");
    }
    let kept_paths = [
        "src/main.rs",
        "src/lock.rs",
        "src/vendor_api.go",
        "pkg/vendors/list.go",
        "docs/guide.md",
        "Cargo.toml",
        "package.json",
        "src/build.rs",
        "tools/build/gen.go",
        "internal/target/resolve.go",
        "src/map.rs",
        "scripts/release.sh",
        "config/app.yaml",
    ];
    for path in kept_paths {
        assert!(is_kept(path), "{path} should be kept");
    }
}

#[test]
fn build_dirs_are_output_only_next_to_their_manifest() {
    let attributes = Attributes::default();
    // `build/` holding tracked source with no manifest beside it stays.
    assert_eq!(
        kept(
            vec![change("build/ci/release.sh"), change("tools/build/gen.go")],
            &[],
            &attributes
        ),
        ["build/ci/release.sh", "tools/build/gen.go"]
    );
    // Output trees next to the manifest that writes them are dropped: known from the
    // working tree (read_attributes) ...
    let mut attributes = Attributes::default();
    attributes.output_roots.insert(b"target".to_vec());
    attributes.output_roots.insert(b"web/dist".to_vec());
    assert_eq!(
        kept(
            vec![
                change("target/debug/app.d"),
                change("web/dist/bundle.js"),
                change("web/src/app.ts"),
            ],
            &[],
            &attributes
        ),
        ["web/src/app.ts"]
    );
    // ... or from a manifest changed in the same turn.
    assert_eq!(
        kept(
            vec![
                change("app/build.gradle"),
                change("app/build/generated/R.java"),
                change("app/src/main/Main.java"),
            ],
            &[],
            &Attributes::default()
        ),
        ["app/build.gradle", "app/src/main/Main.java"]
    );
    // A manifest for another kind of build does not make the name an output tree.
    assert_eq!(
        kept(
            vec![change("Cargo.toml"), change("dist/notes.txt")],
            &[],
            &Attributes::default()
        ),
        ["Cargo.toml", "dist/notes.txt"]
    );
}

#[test]
fn read_attributes_finds_output_trees_in_the_working_tree() {
    let repo = TestRepo::new();
    repo.write("Cargo.toml", "[package]\n")
        .write("target/debug/out.txt", "x")
        .write("scripts/build/run.sh", "x")
        .write("web/package.json", "{}")
        .write("web/dist/app.js", "x");
    let r = repo_of(&repo);
    let paths: Vec<Vec<u8>> = [
        "target/debug/out.txt",
        "scripts/build/run.sh",
        "web/dist/app.js",
    ]
    .iter()
    .map(|p| p.as_bytes().to_vec())
    .collect();
    let attributes = read_attributes(&Git::default(), &r, &paths).unwrap();
    assert!(attributes.output_roots.contains(&b"target"[..]));
    assert!(attributes.output_roots.contains(&b"web/dist"[..]));
    assert!(!attributes.output_roots.contains(&b"scripts/build"[..]));
}

#[test]
fn generated_headers_and_minified_content_are_excluded() {
    let cases: Vec<(Change, bool)> = vec![
        (
            added_with(
                "api/client.go",
                &[
                    "// Code generated by protoc-gen-go. DO NOT EDIT.",
                    "package api",
                ],
            ),
            false,
        ),
        (
            added_with("src/schema.rs", &["// @generated by diesel", "use x;"]),
            false,
        ),
        (
            added_with(
                "Models/User.cs",
                &[
                    "//------",
                    "// <auto-generated>",
                    "//     This code was generated by a tool.",
                ],
            ),
            false,
        ),
        (
            added_with(
                "gen/types.ts",
                &[
                    "/* eslint-disable */",
                    "// This file was automatically generated. Do not edit.",
                ],
            ),
            false,
        ),
        (
            added_with("static/vendor.js", &[&"a=1;".repeat(400)]),
            false,
        ),
        // A comment that mentions generation without the conventional header stays.
        (
            added_with(
                "src/gen.rs",
                &[
                    "//! Generates the schema from the model.",
                    "pub fn generate() {}",
                ],
            ),
            true,
        ),
        // A header below the file's top (hunk not at line 1) is not a file header.
        (change("src/other.go"), true),
    ];
    for (change, want_kept) in cases {
        let path = String::from_utf8_lossy(&change.path).into_owned();
        let selection = select(
            vec![change],
            &Selector::new(&[]).unwrap(),
            &Attributes::default(),
        );
        assert_eq!(selection.kept.len() == 1, want_kept, "{path}");
        if !want_kept {
            assert!(matches!(
                selection.excluded[0].reason,
                ExcludeReason::GeneratedHeader | ExcludeReason::Builtin("minified content")
            ));
        }
    }
}

#[test]
fn user_globs_follow_the_documented_semantics() {
    let paths = [
        "a.snap",
        "src/x/a.snap",
        "docs/guide.md",
        "pkg/docs/api.md",
        "fixtures/big.json",
        "src/gen/model.rs",
        "src/gen/sub/deep.rs",
        "src/main.rs",
        "Makefile",
    ];
    let table: &[(&[&str], &[&str])] = &[
        // A basename glob matches at any depth.
        (&["*.snap"], &["a.snap", "src/x/a.snap"]),
        // A glob without `/` also matches a directory and everything under it.
        (&["docs"], &["docs/guide.md", "pkg/docs/api.md"]),
        // A leading `/` anchors at the top.
        (&["/docs"], &["docs/guide.md"]),
        // A `/` in the middle anchors too; `*` stays within a segment.
        (&["src/gen/*.rs"], &["src/gen/model.rs"]),
        // `**` crosses segments.
        (
            &["src/gen/**"],
            &["src/gen/model.rs", "src/gen/sub/deep.rs"],
        ),
        (&["**/*.md"], &["docs/guide.md", "pkg/docs/api.md"]),
        // Trailing `/`: directories only.
        (&["fixtures/"], &["fixtures/big.json"]),
        (&["Makefile/"], &[]),
        // `!` re-includes; the last matching glob wins.
        (
            &["src/**", "!src/main.rs"],
            &["src/x/a.snap", "src/gen/model.rs", "src/gen/sub/deep.rs"],
        ),
        // Character classes and alternatives.
        (
            &["*.{snap,json}"],
            &["a.snap", "src/x/a.snap", "fixtures/big.json"],
        ),
    ];
    for (globs, want_excluded) in table {
        let changes: Vec<Change> = paths.iter().map(|p| change(p)).collect();
        let user: Vec<String> = globs.iter().map(|s| s.to_string()).collect();
        let selection = select(
            changes,
            &Selector::new(&user).unwrap(),
            &Attributes::default(),
        );
        let mut got: Vec<&str> = selection.excluded.iter().map(|e| e.path.as_str()).collect();
        got.sort_unstable();
        let mut want = want_excluded.to_vec();
        want.sort_unstable();
        assert_eq!(got, want, "{globs:?}");
        for e in &selection.excluded {
            assert!(matches!(e.reason, ExcludeReason::User(_)), "{e:?}");
        }
    }
    // A user `!glob` brings back a path a built-in rule would drop.
    let user = vec!["!vendor/ours/**".to_owned()];
    let selection = select(
        vec![change("vendor/ours/lib.go"), change("vendor/theirs/lib.go")],
        &Selector::new(&user).unwrap(),
        &Attributes::default(),
    );
    assert_eq!(selection.kept.len(), 1);
    assert_eq!(selection.kept[0].path, b"vendor/ours/lib.go");
}

#[test]
fn invalid_user_globs_are_reported() {
    for bad in ["", "!", "src/[a-", "a/{b"] {
        let err = Selector::new(&[bad.to_owned()]).unwrap_err();
        assert_eq!(err.glob, bad);
        assert!(err.to_string().starts_with("invalid exclude glob"), "{err}");
    }
}

#[test]
fn a_rename_is_out_when_either_side_is_out() {
    let rename = |from: &str, to: &str| Change {
        path: to.as_bytes().to_vec(),
        old_path: Some(from.as_bytes().to_vec()),
        status: Status::Renamed,
        binary: false,
        patch: format!(
            "diff --git a/{from} b/{to}\nsimilarity index 90%\nrename from {from}\nrename to {to}\n"
        )
        .into_bytes(),
        oversized: None,
        unread: false,
    };
    for (from, to, want_kept) in [
        ("src/a.rs", "src/b.rs", true),
        ("vendor/x/a.go", "internal/a.go", false),
        ("src/util.js", "src/util.min.js", false),
        ("src/data.rs", "src/secret.rs", false),
    ] {
        let user = vec!["secret.rs".to_owned()];
        let selection = select(
            vec![rename(from, to)],
            &Selector::new(&user).unwrap(),
            &Attributes::default(),
        );
        assert_eq!(selection.kept.len() == 1, want_kept, "{from} -> {to}");
    }
}

#[test]
fn binary_and_oversized_changes_are_kept_for_metadata() {
    let mut bin = change("data/model.weights");
    bin.binary = true;
    bin.patch.clear();
    let mut big = change("data/dump.csv");
    big.oversized = Some(5 << 20);
    big.patch.clear();
    assert_eq!(
        kept(vec![bin, big], &[], &Attributes::default()),
        ["data/model.weights", "data/dump.csv"]
    );
}

fn repo_of(repo: &TestRepo) -> Repo {
    let top = repo.path().canonicalize().unwrap();
    Repo {
        git_dir: top.join(".git"),
        common_dir: top.join(".git"),
        index: top.join(".git/index"),
        objects: top.join(".git/objects"),
        top,
        format: ObjectFormat::Sha1,
        filters: Vec::new(),
        facts: Default::default(),
    }
}

#[test]
fn attributes_come_from_gitattributes_and_run_nothing() {
    let repo = TestRepo::new();
    let marker = repo.path().join("trap-ran");
    let trap = repo.path().join("trap.sh");
    std::fs::write(
        &trap,
        format!("#!/bin/sh\ntouch '{}'\ncat\n", marker.display()),
    )
    .unwrap();
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&trap, std::fs::Permissions::from_mode(0o755)).unwrap();
    }
    let trap = trap.display().to_string();
    for (key, value) in [
        ("filter.evil.clean", trap.as_str()),
        ("filter.evil.smudge", trap.as_str()),
        ("filter.evil.process", trap.as_str()),
        ("filter.evil.required", "true"),
        ("diff.evil.textconv", trap.as_str()),
        ("core.fsmonitor", trap.as_str()),
        ("core.hooksPath", repo.path().to_str().unwrap()),
    ] {
        repo.git(&["config", key, value]);
    }
    repo.write(
        ".gitattributes",
        "* filter=evil diff=evil\ngen/** linguist-generated\n*.dat -diff\n\
         lib/ext/** linguist-vendored\nkeep.pb.go linguist-generated=false\n",
    );
    let paths: Vec<Vec<u8>> = [
        "gen/api.go",
        "blob.dat",
        "lib/ext/x.js",
        "src/main.rs",
        "keep.pb.go",
        "dir with space/new\nline.rs",
    ]
    .iter()
    .map(|p| p.as_bytes().to_vec())
    .collect();
    let attributes = read_attributes(&Git::default(), &repo_of(&repo), &paths).unwrap();
    assert!(
        !marker.exists(),
        "check-attr ran a program the repo configured"
    );
    assert!(attributes.generated.contains(&b"gen/api.go"[..]));
    assert!(!attributes.generated.contains(&b"keep.pb.go"[..]));
    assert!(attributes.no_diff.contains(&b"blob.dat"[..]));
    assert!(attributes.vendored.contains(&b"lib/ext/x.js"[..]));
    assert_eq!(attributes.generated.len(), 1);

    let changes: Vec<Change> = paths
        .iter()
        .map(|p| change(&String::from_utf8_lossy(p)))
        .collect();
    let selection = select(changes, &Selector::new(&[]).unwrap(), &attributes);
    let reasons: Vec<String> = selection
        .excluded
        .iter()
        .map(|e| format!("{} {}", e.path, e.reason))
        .collect();
    assert_eq!(
        reasons,
        [
            "gen/api.go gitattributes `linguist-generated`",
            "blob.dat gitattributes `-diff`",
            "lib/ext/x.js gitattributes `linguist-vendored`",
            "keep.pb.go generated file name",
        ]
    );
    assert!(
        read_attributes(&Git::default(), &repo_of(&repo), &[])
            .unwrap()
            .generated
            .is_empty()
    );
}

/// `check-attr` runs against an absent index (loading a large one costs more than the whole
/// lookup); attributes still come from every `.gitattributes` of the working tree, nested ones
/// included, and a file that happens to sit where the absent index would be changes nothing.
#[test]
fn attributes_need_no_index() {
    let repo = TestRepo::new();
    repo.write(".gitattributes", "gen/** linguist-generated\n")
        .write("lib/.gitattributes", "vendor/** linguist-vendored\n")
        .write("src/main.rs", "fn main() {}\n")
        .commit_all("attributes");
    let paths: Vec<Vec<u8>> = ["gen/api.go", "lib/vendor/x.js", "src/main.rs"]
        .iter()
        .map(|p| p.as_bytes().to_vec())
        .collect();
    let check = |label: &str| {
        let attributes = read_attributes(&Git::default(), &repo_of(&repo), &paths).unwrap();
        assert_eq!(
            attributes.generated.iter().collect::<Vec<_>>(),
            [&b"gen/api.go"[..]],
            "{label}"
        );
        assert_eq!(
            attributes.vendored.iter().collect::<Vec<_>>(),
            [&b"lib/vendor/x.js"[..]],
            "{label}"
        );
    };
    check("absent index");
    std::fs::copy(
        repo.path().join(".git/index"),
        repo.path().join(".git/jev-preflight-no-index"),
    )
    .unwrap();
    check("a file at the absent index's path");
}
