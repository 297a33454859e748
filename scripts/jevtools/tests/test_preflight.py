"""scripts/action/preflight.py ships to users with the GitHub Action: it must stay one
self-contained standard-library script. Checks that, and its pure helpers (loaded from its
path; it is not part of this package)."""

import ast
import importlib.util
import io
import os
import sys
import unittest
from contextlib import redirect_stdout
from unittest import mock

from jevtools import REPO

PREFLIGHT = os.path.join(REPO, "scripts", "action", "preflight.py")


def load():
    spec = importlib.util.spec_from_file_location("jev_preflight_action", PREFLIGHT)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


class SelfContainedTest(unittest.TestCase):
    def test_imports_only_the_standard_library(self):
        with open(PREFLIGHT, encoding="utf-8") as f:
            tree = ast.parse(f.read(), PREFLIGHT)
        imported = set()
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                imported |= {alias.name.split(".")[0] for alias in node.names}
            elif isinstance(node, ast.ImportFrom):
                self.assertEqual(node.level, 0, "no relative imports")
                imported.add(node.module.split(".")[0])
        self.assertEqual(imported - set(sys.stdlib_module_names), set())

    def test_action_yml_runs_it_from_the_action_path(self):
        with open(os.path.join(REPO, "action.yml"), encoding="utf-8") as f:
            self.assertIn('"$JP_ACTION_PATH/scripts/action/preflight.py"', f.read())


class HelpersTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.pf = load()

    def test_sums_entry(self):
        sums = b"abc123  jev-preflight-1.0.0.tar.gz\nDEF456 *bin/linux-x86_64/jev-preflight\nbad line here\n"
        self.assertEqual(self.pf.sums_entry(sums, "jev-preflight-1.0.0.tar.gz"), "abc123")
        self.assertEqual(self.pf.sums_entry(sums, "bin/linux-x86_64/jev-preflight"), "def456")
        self.assertIsNone(self.pf.sums_entry(sums, "jev-preflight-1.0.1.tar.gz"))

    def test_notice_escapes_workflow_command_data(self):
        out = io.StringIO()
        with redirect_stdout(out):
            self.pf.notice("error", "50% done\r\nnext")
        self.assertEqual(out.getvalue(), "::error::50%25 done%0D%0Anext\n")

    def test_target_from_the_runner(self):
        for env, want in (({"RUNNER_OS": "Linux", "RUNNER_ARCH": "X64"}, ("linux-x86_64", "")),
                          ({"RUNNER_OS": "macOS", "RUNNER_ARCH": "ARM64"}, ("macos-aarch64", "")),
                          ({"RUNNER_OS": "Windows", "RUNNER_ARCH": "X64"}, ("windows-x86_64", ".exe"))):
            with mock.patch.dict(os.environ, env):
                self.assertEqual(self.pf.target(), want)

    def test_action_version_is_the_crate_version(self):
        with open(os.path.join(REPO, "Cargo.toml"), encoding="utf-8") as f:
            version = next(line.split("=", 1)[1].strip().strip('"') for line in f if line.startswith("version"))
        self.assertEqual(self.pf.action_version(), version)


if __name__ == "__main__":
    unittest.main()
