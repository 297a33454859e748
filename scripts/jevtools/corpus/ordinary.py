"""Build testdata/ordinary/: ordinary forward commits, not filtered by message.

Usage:
    scripts/corpus ordinary                             # write manifest.jsonl, cases.jsonl.gz,
                                                        # held-apart.txt, README sections
    scripts/corpus ordinary --check                     # rebuild in memory, compare byte for byte
    scripts/corpus ordinary --record-heads              # (re)write repos.json from fetch-list.txt

Per repository: the newest WALK_LIMIT non-merge commits reachable from the recorded head, minus
root commits, reverts, bot-authored commits and dependency bumps (forward.py says exactly
which), ordered by sha256(owner/name NUL commit) and taken in that order until PER_REPO pass
the size filters. Every case is `kind: "benign"`, `category: "ordinary"`: this set measures the
fire rate a user lives with, not labels. Needs the snapshots of testdata/ordinary/fetch-list.txt.
"""
from __future__ import annotations

import json
import os
import sys
from collections import Counter

sys.dont_write_bytecode = True  # leave no __pycache__ beside the scripts
from jevtools.corpus import forward, mine
from jevtools.corpus.common import stable_hash

WALK_LIMIT = 5000
PER_REPO = 20


def mine_repo(args):
    spec, repo, gd, excluded = forward.open_work(args)
    stats: Counter = Counter()
    pool = []
    for c in forward.walk(gd, spec["head"], WALK_LIMIT):
        stats["walked"] += 1
        if forward.is_revert(c):
            stats["excluded:revert"] += 1
        elif forward.is_bot(c):
            stats["excluded:bot"] += 1
        else:
            pool.append((stable_hash(repo.lower(), c["sha"]), c))
    pool.sort(key=lambda t: t[0])
    seen: set[str] = set()
    cases: list[dict] = []
    i = 0
    while len(cases) < PER_REPO and i < len(pool):
        chunk = pool[i: i + 40]
        i += len(chunk)
        ns = mine.numstats(gd, [c["sha"] for _, c in chunk])
        for _, c in chunk:
            if len(cases) >= PER_REPO:
                break
            ents = ns.get(c["sha"])
            paths = [p for a, r, p, o in ents or []]
            if forward.is_deps_bump(c, paths):
                stats["excluded:deps"] += 1
                continue
            why = forward.size_ok(ents)
            if why:
                stats["rejected:" + why] += 1
                continue
            diff, pid, why = forward.stored_diff(gd, c)
            if why:
                stats["rejected:" + why] += 1
                continue
            if pid in seen or pid in excluded:
                stats["rejected:duplicate"] += 1
                continue
            seen.add(pid)
            cases.append(forward.make_case(
                repo, spec, c, ents, diff, pid, kind="benign", primary=None, label_source="sample",
                rule="ordinary:sha256-order", category="ordinary"))
    return repo, cases, dict(stats)


def sections(sp, stats: Counter) -> dict[str, str]:
    cases = forward.load_manifest(sp)
    with open(sp.repos_json, encoding="utf-8") as f:
        repos = json.load(f)["repos"]
    per_repo = Counter(c["repo"] for c in cases)
    split_of = {r["repo"]: r["split"] for r in repos}
    side = Counter(split_of[r] for r in per_repo)
    full = Counter(split_of[r] for r, n in per_repo.items() if n >= PER_REPO)
    tests = sum(1 for c in cases if any(forward.is_test_file(p) for p in c["files"]))
    src = sum(1 for c in cases if any(forward.is_source(p) for p in c["files"]))
    lines = sorted(c["added"] + c["removed"] for c in cases)
    tamper_manifest = forward.SetPaths("tampering").manifest
    tamper = set()
    if os.path.exists(tamper_manifest):
        tamper = {c["patch_id"] for c in forward.load_manifest(forward.SetPaths("tampering"))}
    both = sum(1 for c in cases if c["patch_id"] in tamper)
    out = [
        f"- cases: **{len(cases)}**, all `kind: \"benign\"`, `category: \"ordinary\"`",
        f"- repositories with at least one case: **{len(per_repo)}** — held-apart **{side['held-apart']}**, "
        f"train {side['train']}; with the full {PER_REPO}: {full['held-apart']} held-apart, {full['train']} train",
        f"- commits read: {stats['walked']:,} (the newest at most {WALK_LIMIT:,} non-merge, non-root commits of each "
        f"repository); excluded before sampling: {stats['excluded:bot']:,} bot-authored, {stats['excluded:revert']:,} reverts; "
        f"skipped while sampling: {stats['excluded:deps']:,} dependency bumps, "
        f"{sum(v for k, v in stats.items() if k.startswith('rejected:')):,} failing the size filters or repeating a patch id",
        f"- cases per split: held-apart {sum(1 for c in cases if c['split'] == 'held-apart')}, "
        f"train {sum(1 for c in cases if c['split'] == 'train')}",
        f"- cases touching a non-test source file: {src} ({src / max(1, len(cases)):.0%}); touching a test file: "
        f"{tests} ({tests / max(1, len(cases)):.0%})",
        f"- cases that are also in testdata/tampering (same patch id; a test commit is an ordinary commit too): {both}",
        f"- changed lines per case (stored diff): median {lines[len(lines) // 2] if lines else 0}, "
        f"90th percentile {lines[int(len(lines) * 0.9)] if lines else 0}",
        forward.sizes(sp),
        forward.titled(forward.LANG_TITLE + " and split", forward.crosstab(cases, "lang", "split", ["train", "held-apart"])),
        forward.titled("Repositories with fewer than the full sample (their windows run out after the filters)",
                       forward.md_table(("repository", "split", "cases"),
                                        sorted((r, split_of[r], n) for r, n in per_repo.items() if n < PER_REPO))
                       if any(n < PER_REPO for n in per_repo.values()) else "(none)\n"),
    ]
    return {"counts": "\n".join(out)}


if __name__ == "__main__":
    sys.exit(forward.main("ordinary", mine_repo, sections))
