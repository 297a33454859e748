"""Record the repositories the corpus is mined from (testdata/corpus/repos.json).

Usage:
    scripts/corpus repos                       # (re)write repos.json and fetch-list.txt
                                               # from the snapshots named in fetch-list.txt
    scripts/corpus repos --corpus testdata/corpus-fresh   # another corpus directory
                                               # (its fetch-list.txt lives in that directory)

Run once, after fetching: it records each snapshot's HEAD commit, so that mine.py and
build.py later walk from that commit even if a newer snapshot is fetched. A repository
already in repos.json keeps its recorded HEAD (delete its entry to move it). The language is
the most common source language (by file count, tests and vendored files excluded) in the
recorded tree. Refuses the repositories kept for independent evaluation; for a corpus other
than the default, also every repository of testdata/corpus/repos.json and any repository with
the same project name (forks, mirrors).
"""
from __future__ import annotations

import argparse
import json
import os
import sys
from collections import Counter

from jevtools.corpus.common import (
    DEFAULT_MIRRORS, LANG_BY_EXT, VENDOR_PATH, add_corpus_arg, corpus_paths, ext_of, git, is_test,
    mirror_dir, refuse_blocked, refuse_mined,
)
from jevtools.corpus.advisories import ADVISORY_DBS


def repo_lang(gd: str, head: str) -> str:
    names = git(gd, "ls-tree", "-r", "-z", "--name-only", head).split(b"\0")
    c: Counter = Counter()
    for n in names:
        p = n.decode("utf-8", "replace")
        if not p or is_test(p) or VENDOR_PATH.search(p):
            continue
        lang = LANG_BY_EXT.get(ext_of(p))
        if lang and lang not in ("template", "shell", "sql"):
            c[lang] += 1
    if not c:
        return "unknown"
    if c["typescript"] and c["typescript"] >= c["javascript"] / 2:
        c["typescript"] += c["javascript"]
        c["javascript"] = 0
    if c["cpp"] and c["cpp"] >= c["c"] / 3 and c["c"]:
        pass
    return sorted(c.items(), key=lambda kv: (-kv[1], kv[0]))[0][0]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--mirrors", default=DEFAULT_MIRRORS)
    add_corpus_arg(ap)
    args = ap.parse_args()
    cp = corpus_paths(args.corpus)
    with open(cp.fetch_list, encoding="utf-8") as f:
        names = [l.split("#")[0].strip() for l in f]
    names = [n for n in names if n]
    old = {}
    if os.path.exists(cp.repos_json):
        with open(cp.repos_json, encoding="utf-8") as f:
            d = json.load(f)
        old = {r["repo"]: r for r in d.get("repos", []) + d.get("advisory_dbs", [])}
    adv_count: Counter = Counter()
    adv_dbs: dict[str, set] = {}
    if os.path.exists(cp.advisories):
        with open(cp.advisories, encoding="utf-8") as f:
            for line in f:
                r = json.loads(line)
                adv_count[r["repo"]] += 1
                adv_dbs.setdefault(r["repo"], set()).add(r["db"])
    repos, dbs = [], []
    for n in names:
        refuse_blocked(n)
        if not cp.is_default and n not in ADVISORY_DBS:
            refuse_mined(n)
        gd = mirror_dir(args.mirrors, n)
        head = old.get(n, {}).get("head") or git(gd, "rev-parse", "HEAD").decode().strip()
        if n in ADVISORY_DBS:
            dbs.append({"repo": n, "head": head, "why": "advisory database: fix-commit URLs, CWE ids, summaries"})
            continue
        lang = old.get(n, {}).get("lang") or repo_lang(gd, head)
        k = adv_count.get(n.lower(), 0)
        if k:
            why = (f"{k} advisory rows name fix commits here ({', '.join(sorted(adv_dbs[n.lower()]))}); "
                   f"active {lang} project with a readable commit history")
        else:
            why = f"active, medium-size {lang} project (snapshot under the size limits); fix and benign commits found by message rules"
        if n in old and old[n].get("why"):
            why = old[n]["why"]
        repos.append({"repo": n, "head": head, "lang": lang, "advisory_rows": k, "why": why})
    repos.sort(key=lambda r: r["repo"].lower())
    dbs.sort(key=lambda r: r["repo"].lower())
    doc = {"advisory_dbs": dbs, "repos": repos}
    with open(cp.repos_json, "w", encoding="utf-8") as f:
        json.dump(doc, f, indent=1, ensure_ascii=False)
        f.write("\n")
    print(f"wrote {cp.repos_json}: {len(repos)} repositories, {len(dbs)} advisory databases")
    return 0


if __name__ == "__main__":
    sys.exit(main())
