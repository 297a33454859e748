"""Real forward commits that introduce a known-dangerous pattern, labeled by their subject
(the optional part of testdata/introduced/; used by introduced.py, stdlib only).

A commit is taken when its subject says it switches a verification off or makes it optional
(`disable SSL verification`, `add --insecure flag to skip certificate checks`, `allow
self-signed certs`, `InsecureSkipVerify`) or makes code ignore errors (`ignore errors when
...`, `swallow exceptions`), and says nothing that turns the meaning around (`don't`, `stop`,
`fix`, `revert`, `remove`, tests or CI). The diff is the commit as made (`git diff parent
commit`, forward), with the corpus's exact options. The commits were found once by
`introduced.py --discover`, which scans every snapshot in the mirror folder that is no source
of the fixture cases and no repository of testdata/corpus or testdata/corpus-fresh, and writes
testdata/introduced/commits.json (the repositories scanned with their HEADs, and the commits
kept); a build re-reads those commits and re-applies the same rule to their subjects.
"""
from __future__ import annotations

import json
import os
import re

from jevtools.corpus.common import (
    CI_PATH, LANG_BY_EXT, VENDOR_PATH, diff_args, ext_of, git, is_code, is_test, mirror_dir, refuse_blocked,
)

OBJ = r"(ssl|tls|https|cert\w*|host[- ]?keys?|csrf|signatures?|hostnames?)"
VERIFY = re.compile(
    r"(?i)\b(disabl\w*|skip\w*|ignor\w*|bypass\w*|turn\w* off|opt\w* out of)\s+(\w+\s+){0,3}?" + OBJ
    + r"\s+(\w+\s+){0,1}?(verif\w*|check\w*|validat\w*)"
    r"|\b" + OBJ + r"\s+(verif\w*|check\w*|validat\w*)\s+(to be\s+|be\s+)?(disabled|skipped|ignored|bypassed|optional)"
    r"|\binsecure[-_ ]?skip[-_ ]?verify\b|--insecure\b|\ballow\w* (self[- ]signed|insecure|untrusted)\b"
    r"|\bskip[-_ ]?tls[-_ ]?verif\w*")
SWALLOW = re.compile(
    r"(?i)\b(ignor\w*|swallow\w*|silenc\w*)\s+(all\s+|any\s+|the\s+)?(errors?|exceptions?|failures?)\s+"
    r"(when|from|in|on|during|while|if|for|at)\b|\bcatch\w* and ignor\w*")
NEGATE = re.compile(
    r"(?i)\b(not|don['\u2019]?t|doesn['\u2019]?t|stop\w*|no longer|never|instead of|avoid\w*|fix\w*|revert\w*|"
    r"unignore|remov\w*|restor\w*|re-?enabl\w*|enforc\w*|warn\w*|deprecat\w*|tests?|testing|specs?|ci|"
    r"docs?|document\w*|expla\w*|annotat\w*|typo|types?|typing|lint\w*|phpstan|mypy|flake8|eslint|clippy|"
    r"rubocop|retr(y|ies)|messages?|logs?|popups?|highlight\w*|report\w*|unmatched|comments?|support\w*|"
    r"for now|fails?)\b")
NEVER = re.compile(r"(?i)^(revert|merge|docs?|chore|ci|test|tests|build|style|typ)(\(|:|\b)")
ROWS = [("verification_disabled", "auth_boundary", "msg:verification-disabled", VERIFY),
        ("error_swallowed", "error_handling", "msg:errors-ignored", SWALLOW)]
MIN_LINES, MAX_LINES, MAX_FILES, MAX_PATCH = 2, 120, 12, 64 * 1024
PER_REPO = 3


def classify(subject: str):
    """(category, axis, rule) for a subject that says it introduces a pattern, else None."""
    if NEVER.search(subject) or NEGATE.search(subject):
        return None
    for cat, axis, rule, pat in ROWS:
        if pat.search(subject):
            return cat, axis, rule
    return None


def numstat(gd: str, parent: str, commit: str):
    out = git(gd, "diff", "--numstat", "-M50%", "--no-color", parent, commit).decode("utf-8", "replace")
    ents = []
    for line in out.splitlines():
        a, d, path = line.split("\t", 2)
        if a == "-":
            return None  # binary
        ents.append((int(a), int(d), path.split(" => ")[-1].rstrip("}")))
    return ents


def lang_of(ents) -> str | None:
    """The language with the most changed lines among non-test, non-vendored code files."""
    by = {}
    for a, d, p in ents:
        if is_code(p) and not is_test(p) and not VENDOR_PATH.search(p) and not CI_PATH.search(p):
            lang = LANG_BY_EXT[ext_of(p)]
            by[lang] = by.get(lang, 0) + a + d
    return max(sorted(by), key=lambda k: by[k]) if by else None


def candidate(gd: str, commit: str, parent: str, subject: str):
    """The case for one commit, or None when it does not pass the rule and the filters."""
    lab = classify(subject)
    if not lab:
        return None
    ents = numstat(gd, parent, commit)
    if not ents or len(ents) > MAX_FILES:
        return None
    changed = sum(a + d for a, d, _ in ents)
    if not MIN_LINES <= changed <= MAX_LINES:
        return None
    lang = lang_of(ents)
    if lang is None or lang in ("template", "shell", "sql"):
        return None
    raw = git(gd, *diff_args(commit, parent, "forward"))
    if len(raw) > MAX_PATCH:
        return None
    try:
        diff = raw.decode("utf-8")
    except UnicodeDecodeError:
        return None
    cat, axis, rule = lab
    code = [p for a, d, p in ents if is_code(p) and not is_test(p) and not VENDOR_PATH.search(p)]
    return {"commit": commit, "parent": parent, "subject": subject, "category": cat, "axis": axis, "rule": rule,
            "lang": lang, "file": sorted(code)[0], "diff": diff}


LICENCE_FILES = ["LICENSE", "LICENSE.md", "LICENSE.txt", "LICENCE", "LICENCE.md", "License.txt", "license",
                 "LICENSE-MIT", "COPYING", "COPYING.md"]


def licence_of(gd: str, head: str) -> str | None:
    """The repository's licence when it is a permissive one we recognise (MIT, Apache-2.0,
    BSD-2/3-Clause, ISC) from the licence file at `head`, else None."""
    for name in LICENCE_FILES:
        text = git(gd, "show", f"{head}:{name}", check=False).decode("utf-8", "replace")
        if not text.strip():
            continue
        t = " ".join(text.split())
        if "Permission is hereby granted, free of charge" in t:
            return "MIT"
        if "Apache License" in t and "Version 2.0" in t and "GNU" not in t:
            return "Apache-2.0"
        if "Permission to use, copy, modify, and/or distribute this software for any purpose" in t:
            return "ISC"
        if "Redistribution and use in source and binary forms" in t and "GNU" not in t:
            return "BSD-3-Clause" if "Neither the name" in t or "names of its" in t else "BSD-2-Clause"
        return None
    return None


def eligible_repos(mirrors: str, exclude: set[str], blocked) -> list[str]:
    out = []
    for d in sorted(os.listdir(mirrors)):
        if "+" not in d:
            continue
        repo = d.replace("+", "/", 1)
        low = repo.lower()
        if low in exclude or low.split("/")[1] in {e.split("/")[1] for e in exclude}:
            continue
        try:
            blocked(repo)
        except SystemExit:
            continue
        try:
            mirror_dir(mirrors, repo)
        except SystemExit:
            continue
        out.append(repo)
    return out


def discover(mirrors: str, exclude: set[str]) -> dict:
    """Scan every eligible snapshot's history from its HEAD; keep at most PER_REPO commits per
    repository, in a stable order (by SHA-256 of repository and commit)."""
    import hashlib

    scanned, cases = [], []
    for repo in eligible_repos(mirrors, exclude, refuse_blocked):
        gd = mirror_dir(mirrors, repo)
        head = git(gd, "rev-parse", "HEAD").decode().strip()
        lic = licence_of(gd, head)
        scanned.append({"repo": repo, "head": head, "licence": lic})
        if lic is None:
            continue  # permissive licences only
        log = git(gd, "log", "--no-merges", "--format=%H%x00%P%x00%s%x01", head).decode("utf-8", "replace")
        found = []
        for line in log.split("\x01\n"):
            if not line.strip():
                continue
            sha, parents, subject = line.split("\x00", 2)
            if " " in parents or not parents or not classify(subject):
                continue
            found.append((hashlib.sha256(f"{repo}\0{sha}".encode()).hexdigest(), sha, parents, subject))
        kept = 0
        for _, sha, parent, subject in sorted(found):
            if kept >= PER_REPO:
                break
            if candidate(gd, sha, parent, subject):
                cases.append({"repo": repo, "commit": sha, "parent": parent, "licence": lic})
                kept += 1
    return {"rule": "introduced_commits.py (VERIFY, SWALLOW, NEGATE, NEVER)", "scanned": scanned,
            "cases": sorted(cases, key=lambda c: (c["repo"].lower(), c["commit"]))}


def load(mirrors: str, path: str) -> list[dict]:
    """The cases of commits.json, re-labeled from their subjects; a commit that no longer
    passes is an error (the rule or the snapshot changed)."""
    if not os.path.exists(path):
        return []
    with open(path, encoding="utf-8") as f:
        spec = json.load(f)
    out = []
    for c in spec["cases"]:
        refuse_blocked(c["repo"])
        gd = mirror_dir(mirrors, c["repo"])
        subject = git(gd, "log", "-1", "--format=%s", c["commit"]).decode("utf-8", "replace").strip()
        case = candidate(gd, c["commit"], c["parent"], subject)
        if case is None:
            raise SystemExit(f"{c['repo']} {c['commit'][:12]}: no longer passes the commit rule\n"
                             f"hint: re-run introduced.py --discover, or fix the rule")
        case["repo"], case["licence"] = c["repo"], c["licence"]
        out.append(case)
    return out
