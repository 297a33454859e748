"""Print the corpus counts that testdata/corpus/README.md reports (Markdown).

Usage:
    scripts/corpus stats                        # counts from manifest.jsonl (+ cases.jsonl.gz size)
    scripts/corpus stats --audit                # label error rates from audit.jsonl
    scripts/corpus stats --write-readme         # refresh the generated sections of README.md
    scripts/corpus stats --corpus testdata/corpus-fresh   # another corpus directory

Reads only files under the corpus directory (default testdata/corpus); needs no snapshot.
"""
from __future__ import annotations

import argparse
import json
import os
import sys
from collections import Counter

from jevtools.corpus.common import ROOT, add_corpus_arg, corpus_paths
from jevtools.corpus.rules import AXES


def table(title: str, counter: Counter, head=("value", "cases"), limit=None) -> str:
    rows = sorted(counter.items(), key=lambda kv: (-kv[1], str(kv[0])))
    if limit:
        rows = rows[:limit]
    out = [f"**{title}**", "", f"| {head[0]} | {head[1]} |", "|---|---:|"]
    out += [f"| {k} | {v} |" for k, v in rows]
    return "\n".join(out) + "\n"


def counts(cp) -> str:
    with open(cp.manifest, encoding="utf-8") as f:
        cases = [json.loads(l) for l in f]
    with open(cp.repos_json, encoding="utf-8") as f:
        repos = json.load(f)["repos"]
    risky = [c for c in cases if c["kind"] == "risky"]
    benign = [c for c in cases if c["kind"] == "benign"]
    out = []
    out.append(f"- cases: **{len(cases)}** — risky (reversed fixes) **{len(risky)}**, benign (forward) **{len(benign)}**")
    used = {c["repo"] for c in cases}
    out.append(f"- repositories in repos.json: {len(repos)}; with at least one case: {len(used)}; "
               f"with at least one risky case: {len({c['repo'] for c in risky})}")
    langs_r = Counter(c["lang"] for c in risky)
    out.append(f"- languages of risky cases (by changed source lines): {len(langs_r)}")
    deletes = sum(1 for c in risky if c["test_lines_removed"] > 0)
    touched = sum(1 for c in risky if c["tests_touched"])
    out.append(f"- risky cases whose stored (reversed) diff deletes test lines: **{deletes} of {len(risky)} "
               f"({100 * deletes / max(1, len(risky)):.1f}%)**; risky cases touching a test file at all: {touched} "
               f"({100 * touched / max(1, len(risky)):.1f}%)")
    bt = sum(1 for c in benign if c["tests_touched"])
    out.append(f"- benign cases touching a test file: {bt} of {len(benign)} ({100 * bt / max(1, len(benign)):.1f}%)")
    if os.path.exists(cp.cases):
        out.append(f"- size on disk: cases.jsonl.gz {os.path.getsize(cp.cases):,} bytes; manifest.jsonl "
                   f"{os.path.getsize(cp.manifest):,} bytes; total of {os.path.relpath(cp.dir, ROOT)} "
                   f"{sum(os.path.getsize(os.path.join(cp.dir, n)) for n in os.listdir(cp.dir)):,} bytes")
    out.append("")
    prim = Counter(c["primary"] for c in risky)
    out.append(table("Risky cases per primary axis", Counter({a: prim.get(a, 0) for a in AXES}), ("primary axis", "cases")))
    sec = Counter(a for c in risky for a in c["secondary"])
    out.append(table("Risky cases per secondary axis (a case may have several)", Counter({a: sec.get(a, 0) for a in AXES}), ("secondary axis", "cases")))
    out.append(table("Risky cases per language", langs_r, ("language", "cases")))
    out.append(table("Benign cases per language", Counter(c["lang"] for c in benign), ("language", "cases")))
    src = Counter(c["label_source"].split(":")[0] for c in risky)
    out.append(table("Risky cases per label source", src, ("label source", "cases")))
    adv_db = Counter()
    for c in risky:
        if c["label_source"].startswith("advisory:"):
            i = c["label_source"].split(":", 1)[1]
            adv_db[i.split("-")[0]] += 1
    out.append(table("Advisory-labeled risky cases per advisory id prefix", adv_db, ("id prefix", "cases")))
    out.append(table("Cases per rule", Counter(c["rule"].split("@")[0] if not c["rule"].startswith(("cwe:", "ossfuzz:")) else c["rule"].split(":")[0] + ":*" for c in cases), ("rule", "cases")))
    out.append(table("Benign cases per rule", Counter(c["rule"] for c in benign), ("rule", "cases")))
    per_repo = Counter(c["repo"] for c in cases)
    out.append(table("Top 20 repositories (all cases)", per_repo, ("repository", "cases"), limit=20))
    return "\n".join(out)


def audit(cp) -> str:
    path = os.path.join(cp.dir, "audit.jsonl")
    with open(path, encoding="utf-8") as f:
        rows = [json.loads(l) for l in f]
    out = []

    def rate(rs):
        wrong = sum(1 for r in rs if r["verdict"] == "wrong")
        unclear = sum(1 for r in rs if r["verdict"] == "unclear")
        return (f"{wrong}/{len(rs)} wrong ({100 * wrong / max(1, len(rs)):.1f}%), {unclear} unclear "
                f"({100 * unclear / max(1, len(rs)):.1f}%)")

    rounds = sorted({r["round"] for r in rows})
    out.append("| round | rule version | sample | read | overall | risky | benign |")
    out.append("|---|---|---|---:|---|---|---|")
    for rd in rounds:
        rs = [r for r in rows if r["round"] == rd]
        out.append(f"| {rd} | {rs[0]['rule_version']} | {rs[0]['sample']} | {len(rs)} | {rate(rs)} | "
                   f"{rate([r for r in rs if r['kind'] == 'risky'])} | {rate([r for r in rs if r['kind'] == 'benign'])} |")
    last = [r for r in rows if r["round"] == rounds[-1]]
    out.append("")
    out.append(f"Final round ({rounds[-1]}, the rule as committed) per primary axis:")
    out.append("")
    out.append("| primary axis | sampled | right | wrong | unclear |")
    out.append("|---|---:|---:|---:|---:|")
    for a in list(AXES) + [None]:
        rs = [r for r in last if r["primary"] == a]
        name = f"`{a}`" if a else "benign (no axis)"
        out.append(f"| {name} | {len(rs)} | {sum(r['verdict'] == 'right' for r in rs)} | "
                   f"{sum(r['verdict'] == 'wrong' for r in rs)} | {sum(r['verdict'] == 'unclear' for r in rs)} |")
    src = Counter()
    wrong = Counter()
    for r in last:
        if r["kind"] == "risky":
            s_ = r["label_source"].split(":")[0]
            src[s_] += 1
            wrong[s_] += r["verdict"] == "wrong"
    out.append("")
    out.append("| label source (final round, risky) | sampled | wrong |")
    out.append("|---|---:|---:|")
    for s_ in sorted(src):
        out.append(f"| {s_} | {src[s_]} | {wrong[s_]} |")
    return "\n".join(out) + "\n"


def write_readme(cp) -> None:
    import re
    from jevtools.corpus.rules import rules_markdown
    path = os.path.join(cp.dir, "README.md")
    with open(path, encoding="utf-8") as f:
        text = f.read()
    parts = {"rules": rules_markdown(), "counts": counts(cp)}
    if os.path.exists(os.path.join(cp.dir, "audit.jsonl")):
        parts["audit"] = audit(cp)
    for name, body in parts.items():
        text = re.sub(
            rf"(<!-- BEGIN {name} -->\n).*?(<!-- END {name} -->)",
            lambda m: m.group(1) + body + m.group(2),
            text,
            flags=re.S,
        )
    with open(path, "w", encoding="utf-8") as f:
        f.write(text)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--audit", action="store_true")
    ap.add_argument("--write-readme", action="store_true")
    add_corpus_arg(ap)
    args = ap.parse_args()
    cp = corpus_paths(args.corpus)
    if args.write_readme:
        write_readme(cp)
        return 0
    sys.stdout.write(audit(cp) if args.audit else counts(cp))
    return 0


if __name__ == "__main__":
    sys.exit(main())
