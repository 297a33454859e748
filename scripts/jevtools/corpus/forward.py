"""Shared machinery of the forward-commit evaluation sets (issue 24, deliverables 5(d), 5(e)).

testdata/tampering/ (tampering.py) and testdata/ordinary/ (ordinary.py) are real commits of
public repositories stored forward (`git diff <c>^ <c>`, exactly common.diff_args), each with
its provenance. Both sets read the same pool of repositories (their `fetch-list.txt` files are
identical) and share one split: every repository is on the `train` or the `held-apart` side by
a stable hash of its name (split_of), for everything.

Per set directory:
    fetch-list.txt   owner/name of every snapshot to fetch (input)
    repos.json       every repository with the snapshot `head` mined from, `lang`, `split`,
                     `why` (written once by --record-heads; input afterwards)
    manifest.jsonl   the cases, sorted by id (output)
    cases.jsonl.gz   {"id", "diff"} per case in manifest order (output; build.build)
    held-apart.txt   the held-apart repositories of the pool (output)
    README.md        its generated sections (counts, rule table, audit) are refreshed (output)

Python 3.11 standard library only; reuses common.py, mine.py (numstat parsing, in the two
scripts), repos.py (repository language), build.py (the gzip stream) and audit.py (showing
cases) rather than copying them.
"""
from __future__ import annotations

import argparse
import gzip
import json
import os
import re
import sys
from collections import Counter
from concurrent.futures import ProcessPoolExecutor
from typing import Callable

from jevtools.corpus import audit, build
from jevtools.corpus.common import (
    CI_PATH, DEFAULT_MIRRORS, LANG_BY_EXT, MANIFEST_FILES, ROOT, VENDOR_PATH, default_patch_ids, diff_args,
    ext_of, git, is_code, is_lock, is_test, mirror_dir, refuse_blocked, refuse_mined, stable_hash, unique_manifest,
)
from jevtools.corpus.repos import repo_lang

FRESH_REPOS = os.path.join(ROOT, "testdata", "corpus-fresh", "repos.json")
FRESH_MANIFEST = os.path.join(ROOT, "testdata", "corpus-fresh", "manifest.jsonl")

# Size filters (whole commit, `--numstat -M50%`), as the corpus but wider: an agent's turn is
# larger than a fix.
MIN_LINES, MAX_LINES = 2, 400
MAX_FILES = 20
MAX_PATCH = 64 * 1024

# The split: sha256("jev-preflight split" NUL owner/name, lower case), first 8 hex digits as
# an integer, modulo 100; below TRAIN_PERCENT is `train`, the rest `held-apart`.
TRAIN_PERCENT = 45


def split_of(repo: str) -> str:
    h = int(stable_hash("jev-preflight split", repo.lower())[:8], 16) % 100
    return "train" if h < TRAIN_PERCENT else "held-apart"


# ------------------------------------------------------------------------------ file roles

# Test files the corpus's TEST_PATH does not know: git's t/, C and C++ test sources, C# test
# projects, Swift/Kotlin test source sets, snapshot files. Used only by these two sets (the
# corpus keeps common.is_test, so its rebuild is unchanged).
EXTRA_TEST = re.compile(
    r"(^|/)(t|tst|testsuite|test-suite|regress|regression)/|(^|/)[^/]*\.(Unit|Integration|Functional)?Tests?/"
    r"|(^|/)src/\w*Test/|(^|/)__snapshots__/|\.snap$|_(unit)?tests?\.(c|cc|cpp|cxx|h|hpp|ts|js|php|kt|swift|m|lua)$"
    r"|(^|/)test_[^/]*\.(c|cc|cpp|h|hpp|rb|js|ts)$|Tests?\.(swift|m|mm|cpp|cc|h)$|(^|/)testing/",
    re.I,
)
# CI and test-runner configuration: where failures are tolerated, jobs removed, coverage floors
# set. A file here is not "source code" for the file conditions below, even if it is a script.
CI_CONF = re.compile(
    r"(^|/)(tox\.ini|noxfile\.py|codecov\.ya?ml|\.codecov\.ya?ml|\.coveragerc|pytest\.ini|setup\.cfg|"
    r"pyproject\.toml|jest\.config\.[cm]?[jt]s|vitest\.config\.[cm]?[jt]s|karma\.conf\.[cm]?[jt]s|\.nycrc(\.json|\.ya?ml)?|"
    r"\.mocharc\.\w+|Makefile|GNUmakefile|Jenkinsfile|\.gitlab-ci\.ya?ml|\.cirrus\.ya?ml|\.drone\.ya?ml|"
    r"\.travis\.ya?ml|appveyor\.ya?ml|azure-pipelines\.ya?ml|phpunit\.xml(\.dist)?|\.golangci\.ya?ml|"
    r"build\.gradle(\.kts)?|pom\.xml|\.bazelci/[^/]+|codecov\.json)$"
    r"|(^|/)(ci|\.ci|\.github|\.circleci|\.buildkite|\.azure-pipelines|\.azure|\.cirrus|\.gitlab|scripts/ci|tools/ci|build/ci)/",
    re.I,
)


def is_test_file(p: str) -> bool:
    return is_test(p) or bool(EXTRA_TEST.search(p))


def is_ci_file(p: str) -> bool:
    return bool(CI_PATH.search(p) or CI_CONF.search(p))


def is_source(p: str) -> bool:
    """Non-test source code (a behaviour change could hide here)."""
    return is_code(p) and not is_test_file(p) and not is_ci_file(p)


def file_roles(paths: list[str]) -> dict[str, bool]:
    return {
        "tests": any(is_test_file(p) for p in paths),
        "ci": any(is_ci_file(p) and not is_test_file(p) for p in paths),
        "source": any(is_source(p) for p in paths),
    }


# Coarse file conditions of the rule rows (file types only, never diff content).
FILE_CONDS: dict[str, tuple[str, Callable[[dict], bool]]] = {
    "test-only": ("touches a test file; no non-test source file", lambda r: r["tests"] and not r["source"]),
    "test-or-ci": ("touches a test or CI/test-config file; no non-test source file",
                   lambda r: (r["tests"] or r["ci"]) and not r["source"]),
    "ci": ("touches a CI/test-config file; no non-test source file", lambda r: r["ci"] and not r["source"]),
}


# ------------------------------------------------------------------------------ commit walk

# A bot-authored commit: the author NAME has "[bot]", a word "bot" ("OSS-Bot", "yurishkuro's
# AI bot"), is one token ending in "bot" ("fluxcdbot"), names a known dependency/CI app, or an
# automation account; or the author email has "[bot]". (Copybara exports such as
# "Dagger Team <java-team-github-bot@...>" carry human changes and are kept.)
BOT_APPS = ("dependabot", "renovate", "greenkeeper", "pyup", "snyk", "depfu", "pre-commit-ci", "github-actions",
            "actions-user", "mergify", "allcontributors", "imgbot", "scala-steward", "whitesource", "deepsource",
            "restyled")
BOT_ACCOUNTS = ("automation", "releaser", "release tools", "expeditor", "file sync")
BOT_AUTHOR = re.compile(
    r"\[bot\]|(^|[\s_.-])bot($|[\s_.-])|^[a-z0-9_.-]*bot$|^(mend )?(" + "|".join(map(re.escape, BOT_APPS)) + ")|"
    + "|".join(map(re.escape, BOT_ACCOUNTS)),
    re.I,
)
REVERT_SUBJECT = re.compile(r"^[\"']?revert\b", re.I)
REVERT_BODY = re.compile(r"This reverts commit [0-9a-f]{7,}", re.I)
# A dependency bump: this subject, with only manifests and lockfiles changed (or lockfiles only).
DEPS_SUBJECT = re.compile(
    r"^(\[[^\]]*\]\s*)?((chore|build|deps|fix|ci)(\([^)]*\))?!?:\s*)?(bump|bumps|bumped|update|updates|updated|upgrade|upgrades|upgraded|pin|pins)\b"
    r"[^\n]*(\bfrom\s+\S+\s+to\s+\S+|\bto\s+v?\d+(\.\d+)*\b|\bdependenc\w*|\bdeps?\b|\block ?files?\b|\bversions?\b)",
    re.I,
)


class Commit(dict):
    """sha, parent, subject, body, author (name <email>)."""


def walk(gd: str, head: str, limit: int) -> list[Commit]:
    """Non-merge, non-root commits, newest first, from `head` (at most `limit` read)."""
    raw = git(gd, "log", "--no-merges", f"-n{limit}", "--format=%x1e%H%x1f%P%x1f%an <%ae>%x1f%B", head)
    out = []
    for rec in raw.decode("utf-8", "replace").split("\x1e")[1:]:
        sha, parents, author, msg = rec.split("\x1f", 3)
        parents = parents.split()
        if len(parents) != 1:
            continue
        subject, _, body = msg.strip().partition("\n")
        out.append(Commit(sha=sha, parent=parents[0], subject=subject.strip(), body=body.strip(), author=author))
    return out


def is_bot(c: Commit) -> bool:
    name, _, email = c["author"].partition(" <")
    return bool(BOT_AUTHOR.search(name.strip()) or "[bot]" in email)


def is_revert(c: Commit) -> bool:
    return bool(REVERT_SUBJECT.search(c["subject"]) or REVERT_BODY.search(c["body"]))


def is_deps_bump(c: Commit, paths: list[str]) -> bool:
    if paths and all(is_lock(p) for p in paths):
        return True
    if not DEPS_SUBJECT.search(c["subject"]):
        return False
    return bool(paths) and all(is_lock(p) or p.rsplit("/", 1)[-1].lower() in MANIFEST_FILES for p in paths)


def size_ok(ents) -> str:
    """'' when the numstat entries pass the size filters, else the reason."""
    if ents is None:
        return "missing-object"
    if not ents:
        return "empty"
    if len(ents) > MAX_FILES:
        return "files"
    if any(a is None for a, r, p, o in ents):
        return "binary"
    n = sum(a + r for a, r, p, o in ents)
    if n < MIN_LINES or n > MAX_LINES:
        return "lines"
    return ""


def stored_diff(gd: str, c: Commit) -> tuple[str, str, str]:
    """(diff, patch id, '') or ('', '', reason)."""
    try:
        raw = git(gd, *diff_args(c["sha"], c["parent"], "forward"))
    except RuntimeError:
        return "", "", "missing-object"
    if len(raw) > MAX_PATCH:
        return "", "", "patch-size"
    try:
        diff = raw.decode("utf-8")
    except UnicodeDecodeError:
        return "", "", "not-utf8"
    out = git(gd, "patch-id", "--stable", inp=raw).split()
    if not out:
        return "", "", "no-patch-id"
    return diff, out[0].decode(), ""


def excluded_patch_ids() -> set[str]:
    """Patch ids of testdata/corpus and testdata/corpus-fresh: never repeated here."""
    ids = default_patch_ids()
    if os.path.exists(FRESH_MANIFEST):
        with open(FRESH_MANIFEST, encoding="utf-8") as f:
            ids |= {json.loads(l)["patch_id"] for l in f}
    return ids


def case_lang(ents, repo_lang: str) -> str:
    """The language with the most changed lines among the commit's non-vendored source files,
    test files included (most cases here are test-only); the repository's language when none.
    (testdata/corpus, mine.case_lang, leaves test files out: its cases are code fixes.)"""
    weight: Counter = Counter()
    for a, r, p, o in ents:
        lang = LANG_BY_EXT.get(ext_of(p))
        if VENDOR_PATH.search(p) or lang in (None, "template", "shell", "sql"):
            continue
        if lang == "c" and repo_lang == "cpp":
            lang = "cpp"
        weight[lang] += (a or 0) + (r or 0)
    if not weight:
        return repo_lang
    return sorted(weight.items(), key=lambda kv: (-kv[1], kv[0]))[0][0]


def make_case(repo: str, spec: dict, c: Commit, ents, diff: str, pid: str, **labels) -> dict:
    owner, name = repo.split("/")
    added = sum(1 for l in diff.split("\n") if l.startswith("+") and not l.startswith("+++ "))
    removed = sum(1 for l in diff.split("\n") if l.startswith("-") and not l.startswith("--- "))
    case = {
        "id": f"{owner}__{name}__{c['sha'][:12]}",
        "repo": repo,
        "commit": c["sha"],
        "parent": c["parent"],
        "direction": "forward",
        "secondary": [],
        "lang": case_lang(ents, spec["lang"]),
        "split": spec["split"],
        "subject": c["subject"],
        "files": sorted(p for a, r, p, o in ents),
        "added": added,
        "removed": removed,
        "patch_id": pid,
    }
    case.update(labels)
    return case


# ------------------------------------------------------------------------------ set layout

class SetPaths:
    def __init__(self, name: str):
        self.name = name
        self.dir = os.path.join(ROOT, "testdata", name)
        self.fetch_list = os.path.join(self.dir, "fetch-list.txt")
        self.repos_json = os.path.join(self.dir, "repos.json")
        self.manifest = os.path.join(self.dir, "manifest.jsonl")
        self.cases = os.path.join(self.dir, "cases.jsonl.gz")
        self.held_apart = os.path.join(self.dir, "held-apart.txt")
        self.readme = os.path.join(self.dir, "README.md")
        self.audit = os.path.join(self.dir, "audit.jsonl")


SETS = ("tampering", "ordinary")


def refuse(repo: str) -> None:
    refuse_blocked(repo)
    refuse_mined(repo)
    if os.path.exists(FRESH_REPOS):
        refuse_mined(repo, FRESH_REPOS)


def read_fetch_list(path: str) -> list[str]:
    with open(path, encoding="utf-8") as f:
        names = [l.split("#")[0].strip() for l in f]
    return [n for n in names if n]


def test_share(gd: str, head: str) -> tuple[int, int, float]:
    """(commits reachable from head, non-merge commits read (the newest, at most 5,000), share
    of those touching a test file): the measured facts a repository's `why` states."""
    total = int(git(gd, "rev-list", "--count", head).decode().strip())
    raw = git(gd, "log", "--no-merges", "-n5000", "--no-renames", "--format=%x1e", "--name-only", head).decode("utf-8", "replace")
    recs = raw.split("\x1e")[1:]
    hit = sum(1 for r in recs if any(is_test_file(p) for p in r.split("\n") if p))
    return total, len(recs), hit / max(1, len(recs))


def record_heads(sp: SetPaths, mirrors: str) -> None:
    """(Re)write repos.json from fetch-list.txt. A repository already listed (here or in the
    sibling set, which shares the pool) keeps its recorded head, language and reason."""
    known: dict[str, dict] = {}
    for other in sorted(SETS, key=lambda n: n == sp.name):  # this set's own entries win
        p = SetPaths(other).repos_json
        if os.path.exists(p):
            with open(p, encoding="utf-8") as f:
                known.update({r["repo"]: r for r in json.load(f)["repos"]})
    repos = []
    for n in read_fetch_list(sp.fetch_list):
        refuse(n)
        if n in known:
            r = dict(known[n])
        else:
            gd = mirror_dir(mirrors, n)
            head = git(gd, "rev-parse", "HEAD").decode().strip()
            lang = repo_lang(gd, head)
            total, read, share = test_share(gd, head)
            why = (f"well-known, active {lang} project with a test suite and CI: {total:,} commits "
                   f"reachable from the recorded head, {share:.0%} of its newest {read:,} non-merge commits "
                   f"touch a test file; snapshot under 500 MB; not in testdata/corpus or corpus-fresh")
            r = {"repo": n, "head": head, "lang": lang, "why": why}
        r["split"] = split_of(n)
        repos.append({k: r[k] for k in ("repo", "head", "lang", "split", "why")})
    repos.sort(key=lambda r: r["repo"].lower())
    with open(sp.repos_json, "w", encoding="utf-8") as f:
        json.dump({"repos": repos}, f, indent=1, ensure_ascii=False)
        f.write("\n")
    print(f"wrote {sp.repos_json}: {len(repos)} repositories")


def load_repos(sp: SetPaths) -> list[dict]:
    with open(sp.repos_json, encoding="utf-8") as f:
        repos = json.load(f)["repos"]
    for r in repos:
        refuse(r["repo"])
        if r["split"] != split_of(r["repo"]):
            raise SystemExit(f"{r['repo']}: recorded split {r['split']} differs from split_of()")
    return repos


def held_apart_text(repos: list[dict]) -> bytes:
    held = sorted((r["repo"] for r in repos if r["split"] == "held-apart"), key=str.lower)
    # This header is stored in the committed held-apart.txt files, path and all: a change here
    # changes them (and `--check` fails until they are rewritten).
    head = (
        f"# The held-apart repositories of the testdata/tampering and testdata/ordinary pool\n"
        f"# ({len(held)} of {len(repos)}): sha256(\"jev-preflight split\" NUL owner/name in lower case),\n"
        f"# first 8 hex digits mod 100 >= {TRAIN_PERCENT} (scripts/corpus/forward.py, split_of). The same\n"
        f"# repositories are held apart in both sets; fit on the `train` side only.\n"
    )
    return (head + "".join(r + "\n" for r in held)).encode()


# ------------------------------------------------------------------------------ run

def open_work(args) -> tuple[dict, str, str, set[str]]:
    """One repository's work item (spec, mirrors, excluded patch ids) -> (spec, owner/name, git
    directory, excluded); refuses a blocked repository."""
    spec, mirrors, excluded = args
    refuse_blocked(spec["repo"])
    return spec, spec["repo"], mirror_dir(mirrors, spec["repo"]), excluded


def run_set(sp: SetPaths, mine_repo, mirrors: str, jobs: int, verbose: bool):
    """Mine every repository with `mine_repo((spec, mirrors, excluded))` -> (repo, cases,
    stats); dedupe by patch id across repositories (smallest id first); manifest bytes."""
    repos = load_repos(sp)
    excluded = excluded_patch_ids()
    work = [(r, mirrors, excluded) for r in repos]
    results = []
    if jobs > 1 and len(work) > 1:
        with ProcessPoolExecutor(max_workers=jobs) as ex:
            results = list(ex.map(mine_repo, work))
    else:
        results = [mine_repo(w) for w in work]
    if verbose:
        for repo, cases, stats in results:
            print(f"{repo}: {len(cases)} cases {stats}", file=sys.stderr)
    data = unique_manifest(sorted((c for _, cs, _ in results for c in cs), key=lambda c: c["id"]), set())
    return data, repos, results


def replace_section(text: str, name: str, body: str) -> str:
    start, end = f"<!-- BEGIN {name} -->\n", f"<!-- END {name} -->"
    i, j = text.find(start), text.find(end)
    if i < 0 or j < 0:
        raise SystemExit(f"README lacks the {name} markers")
    return text[: i + len(start)] + body + text[j:]


def main(set_name: str, mine_repo, sections: Callable[[SetPaths, Counter], dict[str, str]], extra_args=None,
         extra_cmd=None) -> int:
    """`sections(set paths, summed mining statistics)` gives the README's generated sections."""
    sp = SetPaths(set_name)
    ap = argparse.ArgumentParser(description=f"Build testdata/{set_name}/ (see its README.md).")
    ap.add_argument("--mirrors", default=DEFAULT_MIRRORS)
    ap.add_argument("--check", action="store_true",
                    help="rebuild manifest.jsonl, cases.jsonl.gz, held-apart.txt and the README's generated sections in memory; compare byte for byte")
    ap.add_argument("--record-heads", action="store_true", help="(re)write repos.json from fetch-list.txt (keeps recorded heads)")
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    ap.add_argument("--verbose", action="store_true")
    if extra_args:
        extra_args(ap)
    args = ap.parse_args()
    if extra_cmd and extra_cmd(args, sp):
        return 0
    if args.record_heads:
        record_heads(sp, args.mirrors)
        return 0
    data, repos, results = run_set(sp, mine_repo, args.mirrors, args.jobs, args.verbose)
    stats: Counter = Counter()
    for _, _, st in results:
        stats.update(st)
    held = held_apart_text(repos)
    if args.check:
        bad = []
        for path, want in ((sp.manifest, data), (sp.held_apart, held)):
            with open(path, "rb") as f:
                if f.read() != want:
                    bad.append(os.path.relpath(path, ROOT))
        if not bad:
            gz = build.build(args.mirrors, sp.manifest)
            with open(sp.cases, "rb") as f:
                if f.read() != gz:
                    bad.append(os.path.relpath(sp.cases, ROOT))
        if not bad:
            with open(sp.readme, encoding="utf-8") as f:
                text = f.read()
            if render_readme(text, sections(sp, stats)) != text:
                bad.append(os.path.relpath(sp.readme, ROOT) + " (generated sections)")
        if bad:
            print("differs from a rebuild: " + ", ".join(bad), file=sys.stderr)
            return 1
        print(f"testdata/{set_name} reproduced: manifest.jsonl ({data.count(10)} cases, {len(data)} bytes), "
              f"cases.jsonl.gz ({os.path.getsize(sp.cases)} bytes), held-apart.txt, README sections")
        return 0
    with open(sp.manifest, "wb") as f:
        f.write(data)
    with open(sp.held_apart, "wb") as f:
        f.write(held)
    gz = build.build(args.mirrors, sp.manifest)
    with open(sp.cases, "wb") as f:
        f.write(gz)
    write_readme(sp, sections(sp, stats))
    print(f"wrote testdata/{set_name}: {data.count(10)} cases, cases.jsonl.gz {len(gz)} bytes")
    return 0


def render_readme(text: str, sections: dict[str, str]) -> str:
    for name, body in sections.items():
        text = replace_section(text, name, body)
    return text


def write_readme(sp: SetPaths, sections: dict[str, str]) -> None:
    with open(sp.readme, encoding="utf-8") as f:
        text = f.read()
    new = render_readme(text, sections)
    if new != text:
        with open(sp.readme, "w", encoding="utf-8") as f:
            f.write(new)


# ------------------------------------------------------------------------------ reporting

def load_manifest(sp: SetPaths) -> list[dict]:
    with open(sp.manifest, encoding="utf-8") as f:
        return [json.loads(l) for l in f]


def load_diffs(sp: SetPaths) -> dict[str, str]:
    with gzip.open(sp.cases, "rt", encoding="utf-8") as f:
        return {d["id"]: d["diff"] for d in map(json.loads, f)}


def md_table(head: tuple[str, ...], rows: list[tuple], right: int = 1) -> str:
    out = ["| " + " | ".join(head) + " |", "|" + "|".join(["---"] * (len(head) - right) + ["---:"] * right) + "|"]
    out += ["| " + " | ".join(str(x) for x in r) + " |" for r in rows]
    return "\n".join(out) + "\n"


def crosstab(cases: list[dict], row_key: str, col_key: str, cols: list[str]) -> str:
    rows = sorted({c[row_key] for c in cases})
    cnt = Counter((c[row_key], c[col_key]) for c in cases)
    body = [(r, *(cnt[(r, k)] for k in cols), sum(cnt[(r, k)] for k in cols)) for r in rows]
    body.sort(key=lambda t: (-t[-1], t[0]))
    body.append(("**total**", *(sum(cnt[(r, k)] for r in rows) for k in cols), len(cases)))
    return md_table((row_key, *cols, "total"), body, right=len(cols) + 1)


LANG_TITLE = "Cases per language (by changed source lines, test files included; the repository's language when none)"


def titled(title: str, table: str) -> str:
    """A bold title line, a blank line, then a Markdown table."""
    return f"**{title}**\n\n{table}"


def sizes(sp: SetPaths) -> str:
    return (f"- size on disk: cases.jsonl.gz {os.path.getsize(sp.cases):,} bytes; manifest.jsonl "
            f"{os.path.getsize(sp.manifest):,} bytes\n")


def show_cases(sp: SetPaths, ids: list[str], mirrors: str, max_lines: int) -> None:
    """Message and stored diff of the cases `ids` (audit.show, on this set's files)."""
    man = {c["id"]: c for c in load_manifest(sp)}
    audit.show(man, load_diffs(sp), ids, mirrors, max_lines)
