"""The package's own rules: standard library only, modules import each other through the
package (never by patching the import path), and every shim in scripts/ names a module that
exists."""

import ast
import importlib
import os
import re
import sys
import unittest

import jevtools
from jevtools import REPO, SCRIPTS

PACKAGE = os.path.dirname(jevtools.__file__)
PATH_PATCH = "sys.path" + ".insert"  # spelled apart so that this file does not contain it


def package_modules():
    for dirpath, dirnames, filenames in os.walk(PACKAGE):
        dirnames[:] = sorted(d for d in dirnames if d != "__pycache__")
        for name in sorted(filenames):
            if name.endswith(".py"):
                path = os.path.join(dirpath, name)
                rel = os.path.relpath(path, SCRIPTS)[:-3].replace(os.sep, ".")
                yield path, rel[:-len(".__init__")] if rel.endswith(".__init__") else rel


def python_files():
    """Every Python file of the repository (by extension or shebang), outside build output."""
    for dirpath, dirnames, filenames in os.walk(REPO):
        dirnames[:] = [d for d in dirnames if d not in (".git", "target", "node_modules", "__pycache__")]
        for name in filenames:
            path = os.path.join(dirpath, name)
            if name.endswith(".py"):
                yield path
            elif os.access(path, os.X_OK) and os.path.isfile(path):
                with open(path, "rb") as f:
                    head = f.readline()
                if head.startswith(b"#!") and b"python" in head:
                    yield path


class LayoutTest(unittest.TestCase):
    def test_no_file_patches_the_import_path(self):
        found = []
        for path in python_files():
            with open(path, encoding="utf-8", errors="replace") as f:
                if PATH_PATCH in f.read():
                    found.append(os.path.relpath(path, REPO))
        self.assertEqual(found, [])

    def test_the_package_imports_only_the_standard_library_and_itself(self):
        for path, _ in package_modules():
            with open(path, encoding="utf-8") as f:
                tree = ast.parse(f.read(), path)
            for node in ast.walk(tree):
                if isinstance(node, ast.Import):
                    names = [alias.name for alias in node.names]
                elif isinstance(node, ast.ImportFrom) and node.level == 0:
                    names = [node.module]
                else:
                    continue
                for name in names:
                    top = name.split(".")[0]
                    self.assertTrue(top == "jevtools" or top in sys.stdlib_module_names,
                                    "%s:%d imports %s" % (os.path.relpath(path, REPO), node.lineno, name))

    def test_every_module_imports(self):
        for _, module in package_modules():
            importlib.import_module(module)

    def test_every_shim_names_a_module_that_exists(self):
        modules = {module for _, module in package_modules()}
        shims = 0
        for dirpath, dirnames, filenames in os.walk(SCRIPTS):
            dirnames[:] = [d for d in dirnames if d not in ("jevtools", "__pycache__")]
            for name in filenames:
                path = os.path.join(dirpath, name)
                with open(path, encoding="utf-8", errors="replace") as f:
                    text = f.read()
                for module in re.findall(r"^exec python3 -m (\S+)", text, re.M):
                    shims += 1
                    if module == '"jevtools.corpus.$tool"':
                        tools = re.search(r"^\s*(advisories \|.*)\) ;;$", text, re.M).group(1).split(" | ")
                        for tool in tools:
                            self.assertIn("jevtools.corpus." + tool, modules, path)
                    else:
                        self.assertIn(module, modules, path)
        self.assertGreaterEqual(shims, 9)


if __name__ == "__main__":
    unittest.main()
