#!/usr/bin/env python3
"""How well a model of its own separates risky from benign test-only changes (issue 13).

regression_tests is the one axis under the 30% floor: 347 of its 367 corpus cases change only
tests, as do 921 benign cases. This fits a logistic regression on the test-only cases alone
(regression_tests cases against benign ones, the shipped model's features), out-of-fold by
repository (grouped 5-fold), and prints what share of the regression_tests cases it passes when
k benign test-only changes are allowed to alarm. Compare with the frontier the quality bench
prints for the shipped model (`scripts/quality`, "test-only changes under a threshold of their
own"). Needs numpy, scipy and scikit-learn (not used anywhere else):

    cargo bench --locked --bench fit -- --corpus testdata/corpus --dump /tmp/dump.tsv
    python3 scripts/experiments/test-only-specialist.py /tmp/dump.tsv
"""
import sys

import numpy as np
import scipy.sparse as sp
from sklearn.linear_model import LogisticRegression
from sklearn.metrics import roc_auc_score
from sklearn.model_selection import GroupKFold

DIM = 1 << 14
REGRESSION_TESTS = "7"  # the axis index the dump writes


def bucket(namespace: str, text: str) -> int:
    """src/scorer/local/features.rs `bucket`: FNV-1a of namespace, 0x1f, text."""
    h = 0xCBF29CE484222325
    for b in namespace.encode() + b"\x1f" + text.encode():
        h ^= b
        h = (h * 0x100000001B3) & 0xFFFFFFFFFFFFFFFF
    return h % DIM


def main() -> int:
    rows, cols, vals, labels, repos = [], [], [], [], []
    with open(sys.argv[1], encoding="utf-8") as f:
        for r, line in enumerate(f):
            case_id, repo, label, _secondary, feats = line.rstrip("\n").split("\t")
            labels.append(label)
            repos.append(repo)
            for kv in feats.split():
                i, v = kv.split(":")
                rows.append(r)
                cols.append(int(i))
                vals.append(float(v))
    x = sp.csr_matrix((vals, (rows, cols)), shape=(len(labels), DIM))
    labels, repos = np.array(labels), np.array(repos)
    tests_only = np.asarray(x[:, bucket("only", "tests")].todense()).ravel() > 0
    keep = tests_only & ((labels == REGRESSION_TESTS) | (labels == "benign"))
    xs, y, groups = x[keep], (labels[keep] == REGRESSION_TESTS).astype(int), repos[keep]
    print(f"test-only: {y.sum()} regression_tests cases, {(y == 0).sum()} benign")
    for c in [0.1, 0.3, 1, 3, 10]:
        oof = np.zeros(len(y))
        for train, test in GroupKFold(5).split(xs, y, groups):
            model = LogisticRegression(C=c, max_iter=2000, class_weight="balanced")
            oof[test] = model.fit(xs[train], y[train]).decision_function(xs[test])
        benign = np.sort(oof[y == 0])[::-1]
        at = " ".join(
            f"k={k}: {100 * (oof[y == 1] > benign[k]).mean():.1f}%" for k in [10, 21, 30, 42, 50, 63]
        )
        print(f"C={c}: AUC {roc_auc_score(y, oof):.3f}; regression_tests passed at {at}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
