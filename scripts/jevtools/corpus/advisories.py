"""Index public advisory databases by the fix commits they name.

Usage:
    scripts/corpus advisories                       # write testdata/corpus/advisories.jsonl
    scripts/corpus advisories --check               # rebuild in memory, compare byte for byte
    scripts/corpus advisories --corpus testdata/corpus-fresh   # another corpus directory

Reads the bare snapshots of the advisory databases listed in ADVISORY_DBS (fetched to
/work/.mirror/<owner>+<name>/..., or --mirrors DIR) at the commit recorded in
<corpus>/repos.json ("advisory_dbs"), and writes one JSON object per (advisory, fix
commit) pair:

    {"id", "db", "repo" (owner/name, lower case), "commit" (hex, as written, 7-40 chars),
     "cwes": [...], "aliases": [...], "summary": "...", "oss_fuzz_crash": "..."}

Only commits hosted on GitHub are kept (the corpus is mined from GitHub snapshots), and only
rows of repositories listed in repos.json (--all keeps every repository, to choose them).
Output is sorted and written deterministically. Python 3.11 standard library only.
"""
from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys

from jevtools.corpus.common import add_corpus_arg, corpus_paths

# owner/name of each advisory database, and the paths inside it that hold advisories.
ADVISORY_DBS = {
    "golang/vulndb": ["data/osv/"],
    "pypa/advisory-database": ["vulns/"],
    "rustsec/advisory-db": ["crates/"],
    "rubysec/ruby-advisory-db": ["gems/"],
    "nodejs/security-wg": ["vuln/"],
    "google/oss-fuzz-vulns": ["vulns/"],
}

COMMIT_URL = re.compile(
    r"github\.com/([A-Za-z0-9_.-]+)/([A-Za-z0-9_.-]+)/(?:pull/\d+/)?commits?/([0-9a-fA-F]{7,40})\b"
)
CWE = re.compile(r"CWE-(\d+)")
CWE_URL = re.compile(r"cwe\.mitre\.org/data/definitions/(\d+)\.html")
ALIAS = re.compile(r"\b(CVE-\d{4}-\d{4,}|GHSA(?:-[23456789cfghjmpqrvwx]{4}){3})\b")
GITHUB_REPO = re.compile(r"github\.com/([A-Za-z0-9_.-]+)/([A-Za-z0-9_.-]+?)(?:\.git)?/?$")


def git(gitdir: str, *args: str) -> bytes:
    return subprocess.run(
        ["git", "--git-dir", gitdir, *args], check=True, capture_output=True
    ).stdout


def mirror_dir(mirrors: str, repo: str) -> str:
    base = os.path.join(mirrors, repo.replace("/", "+"))
    for cand in (os.path.join(base, "repo", ".git"), os.path.join(base, "repo")):
        if os.path.exists(os.path.join(cand, "HEAD")):
            return cand
    raise SystemExit(f"mirror of {repo} not found under {base}; fetch it first")


def norm_repo(owner: str, name: str) -> str:
    name = name[:-4] if name.endswith(".git") else name
    return f"{owner}/{name}".lower()


def first(pattern: str, text: str) -> str:
    m = re.search(pattern, text, re.M)
    return m.group(1).strip().strip("\"'") if m else ""


def summary_of(db: str, text: str, path: str) -> tuple[str, str]:
    """Return (id, one-line summary) of an advisory file."""
    if path.endswith(".json"):
        try:
            doc = json.loads(text)
        except ValueError:
            doc = {}
        aid = str(doc.get("id", "")) or os.path.basename(path)[:-5]
        if db == "nodejs/security-wg":
            aid = "NSWG-" + path.split("/")[-2].upper() + "-" + aid
        summ = doc.get("summary") or doc.get("title") or ""
        det = doc.get("details") or doc.get("overview") or ""
        return aid, (summ + " — " + det)[:400]
    if db == "rustsec/advisory-db":
        aid = first(r'^id\s*=\s*"([^"]+)"', text)
        title = first(r"^#\s+(.+)$", text)
        cats = first(r"^categories\s*=\s*\[(.*)\]", text)
        kws = first(r"^keywords\s*=\s*\[(.*)\]", text)
        return aid, f"{title} [categories: {cats}] [keywords: {kws}]"[:400]
    if db == "rubysec/ruby-advisory-db":
        cve = first(r"^cve:\s*(\S+)", text)
        ghsa = first(r"^ghsa:\s*(\S+)", text)
        osvdb = first(r"^osvdb:\s*(\S+)", text)
        aid = (
            f"CVE-{cve}" if cve else f"GHSA-{ghsa}" if ghsa else f"OSVDB-{osvdb}" if osvdb
            else "RUBYSEC-" + os.path.basename(path).rsplit(".", 1)[0]
        )
        title = first(r"^title:\s*(.+)$", text)
        desc = text.split("description:", 1)[1][:300] if "description:" in text else ""
        return aid, (title + " — " + " ".join(desc.split()))[:400]
    # YAML with id/summary/details (pypa, oss-fuzz)
    aid = first(r"^id:\s*(\S+)", text) or os.path.basename(path).rsplit(".", 1)[0]
    summ = first(r"^summary:\s*(.+)$", text)
    det = ""
    m = re.search(r"^details:\s*(.*(?:\n[ \t]+.*)*)", text, re.M)
    if m:
        det = " ".join(m.group(1).split())
    return aid, (summ + " — " + det)[:400] if summ else det[:400]


def oss_fuzz_commits(text: str) -> list[tuple[str, str]]:
    """(repo, fixed commit) pairs from an OSV GIT range."""
    out = []
    repo = ""
    for line in text.splitlines():
        s = line.strip()
        if s.startswith("repo:"):
            repo = s[5:].strip()
        m = re.match(r"-?\s*fixed:\s*([0-9a-f]{40})$", s)
        if m and repo:
            g = GITHUB_REPO.search(repo)
            if g:
                out.append((norm_repo(g.group(1), g.group(2)), m.group(1)))
    return out


def crash_type(summary: str) -> str:
    m = re.match(r"([A-Za-z][A-Za-z -]*?)(?: in |\s—|$)", summary)
    return m.group(1).strip() if m else ""


def build(mirrors: str, heads: dict[str, str], keep: set[str] | None) -> bytes:
    rows = []
    for db, prefixes in sorted(ADVISORY_DBS.items()):
        gd = mirror_dir(mirrors, db)
        head = heads.get(db) or git(gd, "rev-parse", "HEAD").decode().strip()
        listing = git(gd, "ls-tree", "-r", "-z", head, "--", *prefixes).split(b"\0")
        blobs = []
        for ent in listing:
            if not ent:
                continue
            meta, path = ent.split(b"\t", 1)
            mode, typ, oid = meta.split()
            p = path.decode("utf-8", "replace")
            if typ != b"blob" or not p.endswith((".json", ".yaml", ".yml", ".md", ".toml")):
                continue
            if p.endswith("README.md"):
                continue
            blobs.append((p, oid.decode()))
        # one cat-file process for all blobs
        inp = "".join(oid + "\n" for _, oid in blobs).encode()
        proc = subprocess.run(
            ["git", "--git-dir", gd, "cat-file", "--batch"], input=inp, capture_output=True,
            check=True,
        )
        data = proc.stdout
        pos = 0
        for p, oid in blobs:
            nl = data.index(b"\n", pos)
            hdr = data[pos:nl].split()
            size = int(hdr[2])
            text = data[nl + 1 : nl + 1 + size].decode("utf-8", "replace")
            pos = nl + 1 + size + 1
            aid, summ = summary_of(db, text, p)
            cwes = sorted({int(x) for x in CWE.findall(text)} | {int(x) for x in CWE_URL.findall(text)})
            aliases = sorted(set(ALIAS.findall(text)) - {aid})
            pairs = set()
            if db == "google/oss-fuzz-vulns":
                pairs |= set(oss_fuzz_commits(text))
            for o, n, c in COMMIT_URL.findall(text):
                pairs.add((norm_repo(o, n), c.lower()))
            for repo, commit in sorted(pairs):
                row = {
                    "id": aid,
                    "db": db,
                    "repo": repo,
                    "commit": commit,
                    "cwes": cwes,
                    "aliases": aliases,
                    "summary": " ".join(summ.split()),
                }
                if db == "google/oss-fuzz-vulns":
                    row["oss_fuzz_crash"] = crash_type(summ)
                rows.append(row)
    if keep is not None:
        rows = [r for r in rows if r["repo"] in keep]
    rows.sort(key=lambda r: (r["repo"], r["commit"], r["db"], r["id"]))
    return b"".join(
        (json.dumps(r, ensure_ascii=False, sort_keys=True) + "\n").encode() for r in rows
    )


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--mirrors", default="/work/.mirror")
    ap.add_argument("--check", action="store_true")
    add_corpus_arg(ap)
    ap.add_argument("--out", help="output file (default: advisories.jsonl of the corpus)")
    ap.add_argument("--all", action="store_true", help="keep rows of every repository (to choose repositories), not only those in repos.json")
    args = ap.parse_args()
    cp = corpus_paths(args.corpus)
    args.out = args.out or cp.advisories
    heads = {}
    keep = None
    if os.path.exists(cp.repos_json) and not args.all:
        with open(cp.repos_json, encoding="utf-8") as f:
            doc = json.load(f)
        heads = {d["repo"]: d["head"] for d in doc.get("advisory_dbs", [])}
        keep = {d["repo"].lower() for d in doc.get("repos", [])}
    data = build(args.mirrors, heads, keep)
    if args.check:
        with open(args.out, "rb") as f:
            old = f.read()
        if old != data:
            print("advisories.jsonl differs from a rebuild", file=sys.stderr)
            return 1
        print(f"advisories.jsonl reproduced ({len(data)} bytes)")
        return 0
    os.makedirs(os.path.dirname(args.out), exist_ok=True)
    with open(args.out, "wb") as f:
        f.write(data)
    print(f"wrote {args.out}: {data.count(10)} rows")
    return 0


if __name__ == "__main__":
    sys.exit(main())
