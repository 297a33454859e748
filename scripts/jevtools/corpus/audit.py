"""Draw the seeded audit sample and show each case for a human to judge.

Usage:
    scripts/corpus audit sample --seed 13 --risky 90 --benign 30 --min-per-axis 8 > /tmp/sample.txt
    scripts/corpus audit show ID [ID ...]                   # message + stored diff of cases

The sample is random.Random(seed).sample over the risky ids and, separately, the benign ids
(both sorted), so it is reproducible from the manifest. The human verdicts go to
testdata/corpus/audit.jsonl ({"id", "kind", "primary", "rule", "label_source", "verdict":
"right"|"wrong"|"unclear", "reason"}); stats.py --audit summarises them.
Needs cases.jsonl.gz, and the snapshots for the commit messages.
"""
from __future__ import annotations

import argparse
import gzip
import json
import random
import sys

from jevtools.corpus.common import CASES, DEFAULT_MIRRORS, MANIFEST, git, mirror_dir


def load(with_diffs: bool = True):
    with open(MANIFEST, encoding="utf-8") as f:
        man = {c["id"]: c for c in map(json.loads, f)}
    diffs = {}
    if with_diffs:
        with gzip.open(CASES, "rt", encoding="utf-8") as f:
            diffs = {d["id"]: d["diff"] for d in map(json.loads, f)}
    return man, diffs


def sample(man, seed: int, n_risky: int, n_benign: int, min_per_axis: int = 0) -> list[str]:
    """Seeded random sample; then, with a second generator (seed + 1), extra risky cases of
    each primary axis that has fewer than `min_per_axis` in the sample."""
    rng = random.Random(seed)
    risky = sorted(i for i, c in man.items() if c["kind"] == "risky")
    benign = sorted(i for i, c in man.items() if c["kind"] == "benign")
    ids = rng.sample(risky, n_risky) + rng.sample(benign, n_benign)
    if min_per_axis:
        rng2 = random.Random(seed + 1)
        axes = sorted({man[i]["primary"] for i in risky})
        for a in axes:
            have = sum(1 for i in ids if man[i]["primary"] == a)
            if have >= min_per_axis:
                continue
            pool = [i for i in risky if man[i]["primary"] == a and i not in ids]
            ids += rng2.sample(pool, min(len(pool), min_per_axis - have))
    return ids


def show(man, diffs, ids, mirrors: str, max_lines: int) -> None:
    for i in ids:
        c = man[i]
        gd = mirror_dir(mirrors, c["repo"])
        msg = git(gd, "log", "-1", "--format=%B", c["commit"]).decode("utf-8", "replace").strip()
        print("=" * 100)
        print(f"{i}  kind={c['kind']} primary={c['primary']} secondary={c['secondary']} rule={c['rule']} src={c['label_source']} lang={c['lang']}")
        print("MESSAGE: " + "\n         ".join(msg.splitlines()[:8]))
        lines = diffs[i].splitlines()
        print("\n".join(lines[:max_lines]))
        if len(lines) > max_lines:
            print(f"... ({len(lines) - max_lines} more lines)")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("cmd", choices=["sample", "show"])
    ap.add_argument("ids", nargs="*")
    ap.add_argument("--seed", type=int, default=13)
    ap.add_argument("--risky", type=int, default=90)
    ap.add_argument("--benign", type=int, default=30)
    ap.add_argument("--mirrors", default=DEFAULT_MIRRORS)
    ap.add_argument("--max-lines", type=int, default=70)
    ap.add_argument("--ids-only", action="store_true")
    ap.add_argument("--min-per-axis", type=int, default=0)
    args = ap.parse_args()
    man, diffs = load(with_diffs=not args.ids_only)
    ids = sample(man, args.seed, args.risky, args.benign, args.min_per_axis) if args.cmd == "sample" else args.ids
    if args.ids_only:
        print("\n".join(ids))
    else:
        show(man, diffs, ids, args.mirrors, args.max_lines)
    return 0


if __name__ == "__main__":
    sys.exit(main())
