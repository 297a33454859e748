"""Mine labeled cases (reversed fixes, forward benign commits) from git snapshots.

Usage:
    scripts/corpus mine                            # write testdata/corpus/manifest.jsonl
    scripts/corpus mine --check                    # re-mine, compare with manifest.jsonl byte for byte
    scripts/corpus mine --rules-md                 # print the labeling-rule tables (README section)
    scripts/corpus mine --only owner/name [--verbose]   # one repository, to stdout
    scripts/corpus mine --corpus testdata/corpus-fresh [--check]   # another corpus directory

Needs the bare snapshots of every repository in testdata/corpus/repos.json (fetch the
`owner/name` lines of scripts/jevtools/corpus/fetch-list.txt first; they land in /work/.mirror, or pass
--mirrors DIR) and testdata/corpus/advisories.jsonl (advisories.py). Walks each repository from
the HEAD recorded in repos.json, never from the snapshot's current HEAD, so a rebuild sees the
same history. Refuses the repositories kept for independent evaluation (common.BLOCKLIST).
For a corpus other than the default, every case whose patch id occurs in
testdata/corpus/manifest.jsonl is dropped (forks and cherry-picks do not leak).

Per repository: the newest WALK_LIMIT non-merge commits reachable from the recorded HEAD are
read; each is classified by rules.py; candidates are ordered by sha256(repo, commit) (not by
date) and taken round-robin across primary axes until RISKY_CAP risky and BENIGN_CAP benign
cases pass the size and content filters. Cases are deduplicated by `git patch-id --stable`
(within a repository during selection, across repositories afterwards).
"""
from __future__ import annotations

import argparse
import json
import os
import re
import sys
from concurrent.futures import ProcessPoolExecutor

from jevtools.corpus import rules
from jevtools.corpus.common import (
    CI_PATH, DEFAULT_MIRRORS, LANG_BY_EXT, MANIFEST_FILES, VENDOR_PATH, add_corpus_arg,
    corpus_paths, default_patch_ids, diff_args, ext_of, git, is_code, is_comment_line, is_doc, is_lock, is_test,
    mirror_dir, refuse_blocked, stable_hash, unique_manifest,
)

WALK_LIMIT = 30000
RISKY_CAP = 60
BENIGN_CAP = 8
MIN_LINES, MAX_LINES = 2, 120
MAX_FILES = 12
MAX_PATCH = 64 * 1024
TRUST_RANK = {"advisory": 0, "cwe": 1, "cve": 1, "message": 2}

TRAILER = re.compile(r"^\s*([A-Za-z-]+-by|Change-Id|Bug|Fixes|Closes|Refs|See|PR-URL|Reviewed-on|Tested-on|Cc|Co-authored-by|Signed-off-by|\(cherry picked from)\b.*$", re.I | re.M)
ALIAS = re.compile(r"\b(CVE-\d{4}-\d{4,}|GHSA(?:-[23456789cfghjmpqrvwx]{4}){3})\b", re.I)
DEPS_VERSIONS = re.compile(r"from v?(\d+)\.(\d+)\.(\d+)\S* to v?(\d+)\.(\d+)\.(\d+)", re.I)
CWE_MSG = re.compile(r"\bCWE-(\d+)\b", re.I)


def load_advisories(path: str):
    by_repo: dict[str, list[dict]] = {}
    by_alias: dict[str, list[dict]] = {}
    if not os.path.exists(path):
        return by_repo, by_alias
    with open(path, encoding="utf-8") as f:
        for line in f:
            r = json.loads(line)
            by_repo.setdefault(r["repo"], []).append(r)
            for a in [r["id"], *r["aliases"]]:
                by_alias.setdefault(a.upper(), []).append(r)
    return by_repo, by_alias


def clean_body(body: str) -> str:
    body = TRAILER.sub("", body)
    return body[:800]


def classify_advisory(adv: dict, msg: str):
    """(axis, rule, source detail) for a commit an advisory names, or None."""
    c = rules.cwe_axis(adv.get("cwes", []))
    if c:
        return c[0], f"cwe:CWE-{c[1]}"
    ca = rules.crash_axis(adv.get("oss_fuzz_crash", ""))
    if ca:
        return ca, "ossfuzz:" + adv["oss_fuzz_crash"]
    k = rules.kw_first_advisory(adv.get("summary", ""))
    if k:
        return (k[1], k[0] + "@advisory") if k[1] else None
    k = rules.kw_first(msg)
    if k and k[1]:
        return k[1], k[0]
    return None


def classify(repo: str, sha: str, subject: str, body: str, adv_repo: list[dict], by_alias: dict):
    """Return ('risky', axis, rule, label_source, text) | ('benign', rule, deps) | None."""
    msg = subject + "\n" + body
    reverted = NOT_RISKY(subject) or rules.REVERT_BODY.search(body)
    # 1. advisory naming this commit
    advs = [a for a in adv_repo if sha.startswith(a["commit"]) and len(a["commit"]) >= 7]
    alias_advs = []
    for al in sorted({m.upper() for m in ALIAS.findall(msg)}):
        for a in by_alias.get(al, []):
            if a["repo"] == repo:
                alias_advs.append(a)
    if (advs or alias_advs) and not reverted and rules.FIX_GATE.search(msg):
        for a in sorted(advs, key=lambda a: (a["db"], a["id"])) + sorted(alias_advs, key=lambda a: (a["db"], a["id"])):
            got = classify_advisory(a, subject)
            if got:
                return ("risky", got[0], got[1], f"advisory:{a['id']}", subject + "\n" + a.get("summary", ""))
        return None  # an advisory names it, but no class: not used at all (not benign either)
    if advs or alias_advs:
        return None  # named by an advisory but not worded as a fix, or a revert: neither risky nor benign
    if reverted:
        return None
    if rules.FIX_GATE.search(subject) or (rules.FIX_GATE.search(msg) and CWE_MSG.search(msg)):
        # 2. CWE ids in the message
        cw = rules.cwe_axis(int(x) for x in CWE_MSG.findall(msg))
        if cw:
            return ("risky", cw[0], f"cwe:CWE-{cw[1]}", f"cwe:CWE-{cw[1]} in message", subject)
        cves = sorted({m.upper() for m in ALIAS.findall(msg)})
        # 3. keywords: subject first, then body
        for text in (subject,):  # keyword rows read the subject only (bodies are too noisy)
            k = rules.kw_first(text, allow_tests_only=True)
            if k and not k[1]:
                return None  # a no-axis row (information exposure) matched first
            if k and k[0] not in rules.TESTS_ONLY_RULES and rules.TEST_SUBJECT.search(subject):
                return None  # the subject is about tests, but the row is not the test-only row
            if k:
                src = f"cve:{cves[0]} in message" if cves else "message"
                return ("risky", k[1], k[0], src, subject)
        return None
    # benign
    deny_text = subject if rules.BENIGN_COMPILED[0][1].search(subject) else msg
    if rules.BENIGN_DENY.search(deny_text) or ALIAS.search(msg):
        return None
    for rid, rx, cond in rules.BENIGN_COMPILED:
        m = rx.search(subject)
        if not m:
            continue
        if rid == "benign:deps-patch":
            v = DEPS_VERSIONS.search(subject)
            if not v or v.group(1) != v.group(4) or v.group(2) != v.group(5):
                continue  # only patch-level bumps
        return ("benign", rid, cond)
    return None


def NOT_RISKY(subject: str) -> bool:
    return bool(rules.NOT_RISKY_SUBJECT.search(subject.strip()))


def parse_numstat(raw: bytes):
    """git log -z --numstat output -> {sha: [(added, removed, path, oldpath)]}."""
    out: dict[str, list] = {}
    for chunk in raw.split(b"\x1e")[1:]:
        # chunk: sha \n \0? numstat entries
        head, _, rest = chunk.partition(b"\n")
        sha = head.strip(b"\0").decode()
        ents = []
        toks = rest.split(b"\0")
        i = 0
        while i < len(toks):
            t = toks[i].lstrip(b"\n")
            i += 1
            if not t:
                continue
            parts = t.split(b"\t")
            if len(parts) < 3:
                continue
            a, r = parts[0], parts[1]
            path = parts[2]
            old = None
            if path == b"":  # rename: old \0 new
                old = toks[i].decode("utf-8", "surrogateescape")
                path = toks[i + 1]
                i += 2
            ents.append((None if a == b"-" else int(a), None if r == b"-" else int(r),
                         path.decode("utf-8", "surrogateescape"), old))
        out[sha] = ents
    return out


def numstats(gd: str, shas: list[str]) -> dict:
    if not shas:
        return {}
    args = ("log", "--no-walk=unsorted", "--stdin", "-z", "--numstat", "-M50%", "--format=%x1e%H")
    try:
        return parse_numstat(git(gd, *args, inp=("\n".join(shas) + "\n").encode()))
    except RuntimeError:
        # a snapshot lacks files of 4 MiB and more: find the commits that touch one
        out = {}
        for s in shas:
            try:
                out.update(parse_numstat(git(gd, *args, inp=(s + "\n").encode())))
            except RuntimeError:
                out[s] = None
        return out


def size_ok(ents) -> tuple[bool, str]:
    if not ents:
        return False, "empty"
    if len(ents) > MAX_FILES:
        return False, "files"
    if any(a is None for a, r, p, o in ents):
        return False, "binary"
    n = sum(a + r for a, r, p, o in ents)
    if n < MIN_LINES or n > MAX_LINES:
        return False, "lines"
    return True, ""


def diff_stats(diff: str, repo_lang: str):
    """Per stored diff: counts, test lines removed, non-comment code lines changed."""
    added = removed = test_removed = code_lines = 0
    path = ""
    for line in diff.split("\n"):
        if line.startswith("diff --git "):
            path = ""
            continue
        if line.startswith("+++ ") or line.startswith("--- "):
            p = line[4:]
            if p != "/dev/null":
                if p.startswith('"'):
                    p = p.strip('"')
                path = p[2:]
            continue
        if line.startswith("+") or line.startswith("-"):
            body = line[1:]
            if line[0] == "+":
                added += 1
            else:
                removed += 1
            t = is_test(path)
            if t and line[0] == "-" and body.strip():
                test_removed += 1
            if not t and is_code(path) and not VENDOR_PATH.search(path):
                lang = LANG_BY_EXT.get(ext_of(path), repo_lang)
                if not is_comment_line(body, lang):
                    code_lines += 1
    return added, removed, test_removed, code_lines


def case_lang(ents, repo_lang: str) -> str:
    weight: dict[str, int] = {}
    for a, r, p, o in ents:
        if is_test(p) or VENDOR_PATH.search(p):
            continue
        lang = LANG_BY_EXT.get(ext_of(p))
        if lang in (None, "template", "shell", "sql"):
            continue
        if lang == "c" and repo_lang == "cpp":
            lang = "cpp"
        if lang == "javascript" and repo_lang == "typescript":
            pass
        weight[lang] = weight.get(lang, 0) + (a or 0) + (r or 0)
    if not weight:
        return repo_lang
    return sorted(weight.items(), key=lambda kv: (-kv[1], kv[0]))[0][0]


def mine_repo(args):
    spec, mirrors, adv_path = args
    repo, head, repo_lang = spec["repo"], spec["head"], spec["lang"]
    refuse_blocked(repo)
    gd = mirror_dir(mirrors, repo)
    by_repo, by_alias = load_advisories(adv_path)
    adv_repo = by_repo.get(repo.lower(), [])
    raw = git(gd, "log", "--no-merges", f"-n{WALK_LIMIT}", "--format=%x1e%H%x1f%P%x1f%B", head)
    risky_q: dict[str, list] = {}
    benign_q: dict[str, list] = {}
    stats = {"walked": 0, "risky_candidates": 0, "benign_candidates": 0, "rejected": {}}
    for rec in raw.decode("utf-8", "replace").split("\x1e")[1:]:
        sha, parents, msg = rec.split("\x1f", 2)
        parents = parents.split()
        stats["walked"] += 1
        if len(parents) != 1:
            continue
        msg = msg.strip()
        subject, _, body = msg.partition("\n")
        subject = subject.strip()
        body = clean_body(body.strip())
        got = classify(repo.lower(), sha, subject, body, adv_repo, by_alias)
        if not got:
            continue
        h = stable_hash(repo.lower(), sha)
        if got[0] == "risky":
            _, axis, rule, src, text = got
            trust = TRUST_RANK[src.split(":")[0]]
            risky_q.setdefault(axis, []).append((trust, h, sha, parents[0], subject, axis, rule, src, text))
            stats["risky_candidates"] += 1
        else:
            _, rule, cond = got
            benign_q.setdefault(rule, []).append((0, h, sha, parents[0], subject, None, rule, "message", cond))
            stats["benign_candidates"] += 1
    for q in (*risky_q.values(), *benign_q.values()):
        q.sort()
    cases = []
    seen_pid: set[str] = set()

    def reject(why):
        stats["rejected"][why] = stats["rejected"].get(why, 0) + 1

    def evaluate(item, kind, ents):
        trust, h, sha, parent, subject, axis, rule, src, extra = item
        if ents is None:
            return reject(kind + ":missing-object")
        ok, why = size_ok(ents)
        if not ok:
            return reject(kind + ":" + why)
        paths = [p for a, r, p, o in ents]
        tests = [p for p in paths if is_test(p)]
        nontest = [p for p in paths if not is_test(p)]
        if all(is_lock(p) for p in paths):
            return reject(kind + ":lockfiles")
        if kind == "risky":
            if rule in rules.TESTS_ONLY_RULES:
                if nontest:
                    return reject("risky:tests-rule-with-code")
            else:
                if not any(is_code(p) and not VENDOR_PATH.search(p) for p in nontest):
                    return reject("risky:no-code")
                if all(CI_PATH.search(p) or is_doc(p) or is_lock(p) for p in nontest):
                    return reject("risky:ci-docs-only")
        else:
            if extra == "manifest":
                bases = [p.rsplit("/", 1)[-1].lower() for p in paths]
                if not all(b in MANIFEST_FILES or is_lock(p) for b, p in zip(bases, paths)) or not any(b in MANIFEST_FILES for b in bases):
                    return reject("benign:deps-not-manifest")
            if extra == "docs" and not all(is_doc(p) for p in paths):
                return reject("benign:docs-not-docs")
            if extra == "tests" and nontest:
                return reject("benign:tests-not-tests")
            if extra == "with-tests" and not (tests and nontest):
                return reject("benign:feature-without-tests")
        direction = "reversed" if kind == "risky" else "forward"
        try:
            raw = git(gd, *diff_args(sha, parent, direction))
        except RuntimeError:
            return reject(kind + ":missing-object")
        if len(raw) > MAX_PATCH:
            return reject(kind + ":patch-size")
        try:
            diff = raw.decode("utf-8")
        except UnicodeDecodeError:
            return reject(kind + ":not-utf8")
        added, removed, test_removed, code_lines = diff_stats(diff, repo_lang)
        if kind == "risky" and rule not in rules.TESTS_ONLY_RULES and code_lines == 0:
            return reject("risky:comment-only")
        if kind == "risky" and rule in rules.TESTS_ONLY_RULES and test_removed == 0:
            return reject("risky:tests-rule-no-removal")
        pid_out = git(gd, "patch-id", "--stable", inp=raw).split()
        if not pid_out:
            return reject(kind + ":no-patch-id")
        pid = pid_out[0].decode()
        if pid in seen_pid:
            return reject(kind + ":duplicate")
        seen_pid.add(pid)
        secondary = []
        if kind == "risky":
            sec = rules.kw_axes(extra) - {axis}
            if test_removed > 0 and axis != "regression_tests":
                sec.add("regression_tests")
            secondary = [a for a in rules.AXES if a in sec]
        owner, name = repo.split("/")
        return {
            "id": f"{owner}__{name}__{sha[:12]}",
            "repo": repo,
            "commit": sha,
            "parent": parent,
            "kind": kind,
            "direction": direction,
            "primary": axis,
            "secondary": secondary,
            "lang": case_lang(ents, repo_lang),
            "label_source": src if kind == "risky" else "message",
            "rule": rule,
            "subject": subject,
            "files": sorted(paths),
            "added": added,
            "removed": removed,
            "tests_touched": bool(tests),
            "test_lines_removed": test_removed,
            "patch_id": pid,
        }

    def take(queues: dict[str, list], order: list[str], cap: int, kind: str):
        got = 0
        pos = {k: 0 for k in queues}
        cache: dict[str, list] = {}
        while got < cap:
            progressed = False
            for key in order:
                if got >= cap:
                    break
                q = queues.get(key)
                if not q:
                    continue
                while pos[key] < len(q):
                    item = q[pos[key]]
                    pos[key] += 1
                    sha = item[2]
                    if sha not in cache:
                        # prefetch numstat for the next chunk of this queue
                        chunk = [it[2] for it in q[pos[key] - 1 : pos[key] + 49] if it[2] not in cache]
                        cache.update(numstats(gd, chunk))
                    c = evaluate(item, kind, cache.get(sha, []) if sha in cache else None)
                    if c:
                        cases.append(c)
                        got += 1
                        progressed = True
                        break
                else:
                    continue
            if not progressed:
                break

    take(risky_q, list(rules.AXES), RISKY_CAP, "risky")
    take(benign_q, [r for r, _, _ in rules.BENIGN_COMPILED], BENIGN_CAP, "benign")
    return repo, cases, stats


def load_repos(path: str):
    with open(path, encoding="utf-8") as f:
        doc = json.load(f)
    for r in doc["repos"]:
        refuse_blocked(r["repo"])
    return doc


def run(mirrors: str, only: str | None, jobs: int, verbose: bool, cp=corpus_paths()):
    doc = load_repos(cp.repos_json)
    specs = [r for r in doc["repos"] if not only or r["repo"].lower() == only.lower()]
    if only and not specs:
        refuse_blocked(only)
        raise SystemExit(f"{only} is not in repos.json")
    work = [(s, mirrors, cp.advisories) for s in specs]
    results = []
    if jobs > 1 and len(work) > 1:
        with ProcessPoolExecutor(max_workers=jobs) as ex:
            for res in ex.map(mine_repo, work):
                results.append(res)
                if verbose:
                    print(f"{res[0]}: {len(res[1])} cases {res[2]}", file=sys.stderr)
    else:
        for w in work:
            res = mine_repo(w)
            results.append(res)
            if verbose:
                print(f"{res[0]}: {len(res[1])} cases {res[2]}", file=sys.stderr)
    # cross-repository dedup by patch id: keep the most trusted, then the smallest id
    allc = [c for _, cs, _ in results for c in cs]
    allc.sort(key=lambda c: (TRUST_RANK[c["label_source"].split(":")[0]] if c["kind"] == "risky" else 3, c["id"]))
    # another corpus never repeats a change of the default one (forks, cherry-picks)
    data = unique_manifest(allc, set() if cp.is_default else default_patch_ids())
    return data, results


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--mirrors", default=DEFAULT_MIRRORS)
    ap.add_argument("--check", action="store_true")
    ap.add_argument("--only")
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    ap.add_argument("--verbose", action="store_true")
    ap.add_argument("--rules-md", action="store_true")
    ap.add_argument("--stats", help="write per-repository mining statistics (JSON) here")
    add_corpus_arg(ap)
    args = ap.parse_args()
    cp = corpus_paths(args.corpus)
    if args.rules_md:
        sys.stdout.write(rules.rules_markdown())
        return 0
    data, results = run(args.mirrors, args.only, args.jobs, args.verbose, cp)
    if args.stats:
        with open(args.stats, "w", encoding="utf-8") as f:
            json.dump({r: s for r, _, s in results}, f, indent=1, sort_keys=True)
    if args.only:
        sys.stdout.buffer.write(data)
        return 0
    if args.check:
        with open(cp.manifest, "rb") as f:
            old = f.read()
        if old != data:
            print("manifest.jsonl differs from a re-mine", file=sys.stderr)
            return 1
        print(f"manifest.jsonl reproduced ({data.count(10)} cases, {len(data)} bytes)")
        return 0
    with open(cp.manifest, "wb") as f:
        f.write(data)
    print(f"wrote {cp.manifest}: {data.count(10)} cases")
    return 0


if __name__ == "__main__":
    sys.exit(main())
