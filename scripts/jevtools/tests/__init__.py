"""Unit tests of the package's pure parts, standard library `unittest` only. From the repository
root: `python3 -m unittest discover -s scripts/jevtools/tests -t scripts`."""
