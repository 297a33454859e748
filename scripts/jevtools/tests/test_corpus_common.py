"""The corpus tools' pure helpers: the stored diff's exact `git diff`, file kinds, the
blocklist, manifest bytes, numstat parsing and per-diff statistics."""

import hashlib
import json
import os
import unittest

from jevtools import REPO
from jevtools.corpus import common, forward, mine


class DiffArgsTest(unittest.TestCase):
    def test_a_reversed_case_diffs_from_the_fix_to_its_parent(self):
        args = common.diff_args("c0ffee", "beef00", "reversed")
        self.assertEqual(args[-2:], ["c0ffee", "beef00"])
        self.assertEqual(args[:6], ["diff", "--no-color", "--no-ext-diff", "--no-textconv", "-M50%", "-U3"])
        self.assertIn("--src-prefix=a/", args)
        self.assertIn("--dst-prefix=b/", args)

    def test_a_forward_case_diffs_from_the_parent(self):
        self.assertEqual(common.diff_args("c0ffee", "beef00", "forward")[-2:], ["beef00", "c0ffee"])


class FileKindsTest(unittest.TestCase):
    def test_tests(self):
        for path in ("tests/test_api.py", "pkg/api_test.go", "src/test/java/FooTest.java", "web/app.spec.ts",
                     "spec/models/user_spec.rb", "crate/tests.rs", "conftest.py", "fuzz/fuzz_targets/a.rs"):
            self.assertTrue(common.is_test(path), path)
        for path in ("src/api.py", "lib/contest.rb", "src/testing_utils_impl.go"):
            self.assertFalse(common.is_test(path), path)

    def test_docs_code_and_locks(self):
        self.assertTrue(common.is_doc("README.md"))
        self.assertTrue(common.is_doc("docs/guide.rst"))
        self.assertFalse(common.is_doc("docs/conf.py"))
        self.assertTrue(common.is_code("src/api.py"))
        self.assertFalse(common.is_code("examples/demo.py"))
        self.assertTrue(common.is_lock("web/package-lock.json"))
        self.assertEqual(common.ext_of("views/page.blade.php"), ".php")
        self.assertEqual(common.ext_of("Makefile"), "")
        self.assertEqual(common.ext_of(".bashrc"), "")

    def test_comment_lines_by_language(self):
        self.assertTrue(common.is_comment_line("    # note", "python"))
        self.assertTrue(common.is_comment_line("// note", "go"))
        self.assertTrue(common.is_comment_line("   ", "go"))
        self.assertFalse(common.is_comment_line("#[derive(Debug)]", "rust"))
        self.assertFalse(common.is_comment_line("#[Attribute]", "php"))
        self.assertFalse(common.is_comment_line("x = 1  # note", "python"))


class BlocklistTest(unittest.TestCase):
    def test_kept_repositories_and_their_forks_are_refused(self):
        for repo in ("psf/requests", "PSF/Requests.git", "someone/requests", "psf+requests"):
            with self.assertRaises(SystemExit, msg=repo):
                common.refuse_blocked(repo)
        common.refuse_blocked("acme/app")  # no exception


class ManifestTest(unittest.TestCase):
    def test_first_case_per_patch_id_sorted_by_id(self):
        seen = {"p0"}
        cases = [{"id": "b", "patch_id": "p1"}, {"id": "a", "patch_id": "p2"}, {"id": "c", "patch_id": "p1"},
                 {"id": "d", "patch_id": "p0"}]
        data = common.unique_manifest(cases, seen)
        self.assertEqual(data, b'{"id": "a", "patch_id": "p2"}\n{"id": "b", "patch_id": "p1"}\n')
        self.assertEqual(seen, {"p0", "p1", "p2"})

    def test_stable_hash(self):
        self.assertEqual(common.stable_hash("a", "b"), hashlib.sha256(b"a\x00b").hexdigest())
        self.assertNotEqual(common.stable_hash("a", "b"), common.stable_hash("ab"))

    def test_corpus_paths(self):
        default = common.corpus_paths()
        self.assertTrue(default.is_default)
        self.assertEqual(default.dir, os.path.join(REPO, "testdata", "corpus"))
        self.assertEqual(os.path.dirname(default.fetch_list), os.path.dirname(common.__file__))
        self.assertTrue(os.path.isfile(default.fetch_list))
        fresh = common.corpus_paths("testdata/corpus-fresh")
        self.assertFalse(fresh.is_default)
        self.assertEqual(fresh.fetch_list, os.path.join(REPO, "testdata", "corpus-fresh", "fetch-list.txt"))


class NumstatTest(unittest.TestCase):
    def test_renames_binaries_and_plain_entries(self):
        raw = (b"\x1e" + b"a" * 40 + b"\n\n3\t1\tsrc/api.py\x00-\t-\tlogo.png\x00"
               b"2\t2\t\x00old/name.py\x00new/name.py\x00")
        self.assertEqual(mine.parse_numstat(raw), {"a" * 40: [
            (3, 1, "src/api.py", None), (None, None, "logo.png", None), (2, 2, "new/name.py", "old/name.py")]})

    def test_size_limits(self):
        self.assertEqual(mine.size_ok([]), (False, "empty"))
        self.assertEqual(mine.size_ok([(None, None, "a.png", None)]), (False, "binary"))
        self.assertEqual(mine.size_ok([(1, 0, "a.py", None)]), (False, "lines"))
        self.assertEqual(mine.size_ok([(3, 2, "a.py", None)]), (True, ""))


class DiffStatsTest(unittest.TestCase):
    DIFF = "\n".join([
        "diff --git a/src/api.py b/src/api.py",
        "--- a/src/api.py",
        "+++ b/src/api.py",
        "@@ -1,4 +1,2 @@",
        "-    if not user.is_admin:",
        "-        raise PermissionDenied()",
        "+    # admins only",
        "diff --git a/tests/test_api.py b/tests/test_api.py",
        "--- a/tests/test_api.py",
        "+++ /dev/null",
        "-def test_admin():",
        "-",
        "-    assert denied()",
    ])

    def test_counts_test_lines_removed_and_code_lines(self):
        # added, removed, non-blank test lines removed, non-comment code lines changed
        self.assertEqual(mine.diff_stats(self.DIFF, "python"), (1, 5, 2, 2))


class SplitTest(unittest.TestCase):
    def test_the_recorded_splits_follow_split_of(self):
        for name in ("tampering", "ordinary"):
            with open(os.path.join(REPO, "testdata", name, "repos.json"), encoding="utf-8") as f:
                repos = json.load(f)["repos"]
            for r in repos:
                self.assertEqual(forward.split_of(r["repo"]), r["split"], r["repo"])

    def test_held_apart_text_is_the_committed_file(self):
        for name in ("tampering", "ordinary"):
            sp = forward.SetPaths(name)
            with open(sp.held_apart, "rb") as f:
                self.assertEqual(forward.held_apart_text(forward.load_repos(sp)), f.read(), name)


if __name__ == "__main__":
    unittest.main()
