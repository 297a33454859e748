"""The corpus's mechanical labeling rule (jevtools.corpus.rules) and how mine.classify applies
it; and that the committed sets and README still agree with the rule as written."""

import json
import os
import unittest

from jevtools import REPO
from jevtools.corpus import mine, rules


def manifest(corpus):
    with open(os.path.join(REPO, "testdata", corpus, "manifest.jsonl"), encoding="utf-8") as f:
        return [json.loads(line) for line in f]


class CweTest(unittest.TestCase):
    def test_the_first_mapped_id_in_table_order_wins(self):
        # 79 (input_validation) is listed before 862 (auth_boundary) in the cwes, but
        # auth_boundary's row comes first in the table.
        self.assertEqual(rules.cwe_axis([79, 862]), ("auth_boundary", 862))
        self.assertEqual(rules.cwe_axis(["416", "20"]), ("input_validation", 20))
        self.assertEqual(rules.cwe_axis([79, 22]), ("input_validation", 22))

    def test_unmapped_ids_give_no_label(self):
        self.assertIsNone(rules.cwe_axis([200, 1]))
        self.assertIsNone(rules.cwe_axis([]))

    def test_every_axis_of_the_tables_is_an_axis(self):
        self.assertTrue(set(rules.CWE_AXIS.values()) <= set(rules.AXES))
        self.assertTrue(set(rules.CRASH_AXIS.values()) <= set(rules.AXES))
        self.assertTrue({axis for _, axis, _ in rules.KW if axis} <= set(rules.AXES))


class CrashTest(unittest.TestCase):
    def test_exact_and_prefix(self):
        self.assertEqual(rules.crash_axis("Heap-use-after-free"), "lifecycle")
        self.assertEqual(rules.crash_axis("Heap-buffer-overflow READ 4"), "input_validation")
        self.assertEqual(rules.crash_axis("Null-dereference READ"), "error_handling")
        self.assertIsNone(rules.crash_axis("Timeout"))
        self.assertIsNone(rules.crash_axis(""))


class KeywordTest(unittest.TestCase):
    def test_first_matching_row_wins(self):
        self.assertEqual(rules.kw_first("Fix authorization bypass in the admin API"), ("kw:auth:authz", "auth_boundary"))
        self.assertEqual(rules.kw_first("fix SQL injection in search"), ("kw:input:injection", "input_validation"))
        self.assertEqual(rules.kw_first("fix use-after-free in parser"), ("kw:life:uaf", "lifecycle"))
        self.assertEqual(rules.kw_first("Fix off-by-one in pagination"), ("kw:behav:wrong", "behavior_regression"))
        self.assertIsNone(rules.kw_first("Add a greeting helper"))

    def test_information_exposure_has_no_axis(self):
        self.assertEqual(rules.kw_first("fix credentials leak in logs"), ("kw:skip:exposure", None))

    def test_the_test_only_row_needs_permission(self):
        subject = "re-enable the skipped tests for the parser"
        self.assertIsNone(rules.kw_first(subject))
        self.assertEqual(rules.kw_first(subject, allow_tests_only=True), ("kw:tests:restore", "regression_tests"))
        self.assertNotIn("regression_tests", rules.kw_axes(subject))

    def test_advisory_summaries_read_input_validation_rows_first(self):
        summary = "An authenticated user can perform SQL injection through the search field"
        self.assertEqual(rules.kw_first_advisory(summary)[1], "input_validation")

    def test_gates(self):
        self.assertTrue(rules.FIX_GATE.search("Prevent a race on shutdown"))
        self.assertFalse(rules.FIX_GATE.search("Add dark mode"))
        self.assertTrue(rules.NOT_RISKY_SUBJECT.search('Revert "fix auth check"'))
        self.assertTrue(rules.NOT_RISKY_SUBJECT.search("chore(deps): bump serde from 1.0.1 to 1.0.2"))
        self.assertTrue(rules.REVERT_BODY.search("This reverts commit 0123456789abcdef."))


class ClassifyTest(unittest.TestCase):
    """mine.classify: advisory, then CWE in the message, then keywords on the subject; else benign."""

    def classify(self, subject, body="", advisories=(), by_alias=None, sha="a" * 40):
        return mine.classify("acme/app", sha, subject, body, list(advisories), by_alias or {})

    def test_keyword_on_the_subject(self):
        self.assertEqual(self.classify("Fix missing permission check on delete"),
                         ("risky", "auth_boundary", "kw:auth:authz", "message", "Fix missing permission check on delete"))

    def test_a_cve_in_the_message_is_the_label_source(self):
        got = self.classify("Fix path traversal in upload (CVE-2024-12345)")
        self.assertEqual(got[:4], ("risky", "input_validation", "kw:input:path", "cve:CVE-2024-12345 in message"))

    def test_cwe_in_the_message_beats_keywords(self):
        got = self.classify("Fix XSS in comments", "CWE-352")
        self.assertEqual(got[:4], ("risky", "auth_boundary", "cwe:CWE-352", "cwe:CWE-352 in message"))

    def test_an_advisory_naming_the_commit_beats_everything(self):
        adv = {"commit": "a" * 12, "db": "ghsa", "id": "GHSA-xxxx", "cwes": [416], "summary": "UAF"}
        got = self.classify("Fix crash when closing twice", advisories=[adv])
        self.assertEqual(got[:4], ("risky", "lifecycle", "cwe:CWE-416", "advisory:GHSA-xxxx"))

    def test_an_advisory_commit_not_worded_as_a_fix_is_unused(self):
        adv = {"commit": "a" * 12, "db": "ghsa", "id": "GHSA-xxxx", "cwes": [416], "summary": "UAF"}
        self.assertIsNone(self.classify("Update parser", advisories=[adv]))

    def test_reverts_and_exposure_are_dropped(self):
        self.assertIsNone(self.classify('Revert "Fix missing permission check"'))
        self.assertIsNone(self.classify("Fix missing permission check", "This reverts commit 0123456789abc."))
        self.assertIsNone(self.classify("fix token leak in debug logs"))

    def test_benign_rows(self):
        self.assertEqual(self.classify("Reword a comment in the parser"), ("benign", "benign:docs", "docs"))
        self.assertEqual(self.classify("Minor clean up of the parser"), ("benign", "benign:refactor", "any"))
        self.assertEqual(self.classify("Add retries for the upload"), ("benign", "benign:feature", "with-tests"))
        self.assertEqual(self.classify("deps: bump serde from 1.0.1 to 1.0.2"),
                         ("benign", "benign:deps-patch", "manifest"))
        self.assertIsNone(self.classify("deps: bump serde from 1.0.1 to 1.1.0"))  # not a patch bump

    def test_benign_needs_a_clean_message(self):
        self.assertIsNone(self.classify("Add retries for the upload error"))  # "error" is on the deny list
        self.assertIsNone(self.classify("Add retries for the upload", "See CVE-2024-12345"))
        self.assertIsNone(self.classify("Update README wording"))  # docs subjects are never risky, nor used


class CommittedSetsTest(unittest.TestCase):
    """The committed cases were labeled by this rule: re-reading their subjects gives the
    stored labels (cases labeled from an advisory or a CWE id need the mined text, not stored)."""

    def test_message_labeled_risky_cases_keep_their_rule_and_axis(self):
        for corpus in ("corpus", "corpus-fresh"):
            for c in manifest(corpus):
                if c["kind"] == "risky" and c["label_source"] == "message":
                    self.assertEqual(rules.kw_first(c["subject"], allow_tests_only=True), (c["rule"], c["primary"]),
                                     c["id"])
                    self.assertTrue(rules.FIX_GATE.search(c["subject"]), c["id"])

    def test_benign_cases_keep_their_rule(self):
        for corpus in ("corpus", "corpus-fresh"):
            for c in manifest(corpus):
                if c["kind"] == "benign":
                    first = next((rid for rid, rx, _ in rules.BENIGN_COMPILED if rx.search(c["subject"])), None)
                    self.assertEqual(first, c["rule"], c["id"])
                    self.assertIsNone(rules.BENIGN_DENY.search(c["subject"]), c["id"])

    def test_the_readme_states_the_rule_as_written(self):
        with open(os.path.join(REPO, "testdata", "corpus", "README.md"), encoding="utf-8") as f:
            text = f.read()
        start = text.index("<!-- BEGIN rules -->\n") + len("<!-- BEGIN rules -->\n")
        self.assertEqual(text[start:text.index("<!-- END rules -->")], rules.rules_markdown(),
                         "run `scripts/corpus stats --write-readme`")


if __name__ == "__main__":
    unittest.main()
