"""jev-preflight's development tools: one Python package, standard library only. Nothing in it
ships to users (the pull-request check's `scripts/action/preflight.py` is a self-contained
script outside this package).

    jevtools.loopback   the loopback HTTP server every helper server here runs on
    jevtools.e2e        the real-client end-to-end suites, their model-API mocks and harness
    jevtools.action     the pull-request check's test and its fake GitHub
    jevtools.corpus     the scripts that mine and rebuild the labeled sets in testdata/
    jevtools.tests      unit tests of the pure parts (`python3 -m unittest discover -s
                        scripts/jevtools/tests -t scripts`, from the repository root)

Run a module with the folder that holds this package (`scripts/`) on PYTHONPATH:
`PYTHONPATH=scripts python3 -m jevtools.corpus.stats`. The shims in scripts/ (`e2e-*`,
`windows-resolution`, `action/test`, `corpus`) do exactly that from any working directory.
"""

import os

# The folder that holds this package (what PYTHONPATH names), and the repository root.
SCRIPTS = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
REPO = os.path.dirname(SCRIPTS)
