"""Build testdata/tampering/: real forward commits that weaken tests, and harmless test commits.

Usage:
    scripts/corpus tampering                             # write manifest.jsonl, cases.jsonl.gz,
                                                         # held-apart.txt, README sections
    scripts/corpus tampering --check                     # rebuild in memory, compare byte for byte
    scripts/corpus tampering --record-heads              # (re)write repos.json from fetch-list.txt
    scripts/corpus tampering --audit-sample --seed 24 --risky 60 --benign 30   # show a sample
    scripts/corpus tampering --show ID [ID ...]          # show cases

The label comes from the commit SUBJECT only, by the rule rows below (first row whose subject
pattern matches decides), plus a coarse file-type condition of that row (test files, CI or
test-config files, no non-test source file). Diff content is never read for the label: the
scorer's test-tampering detectors read exactly that, and the evaluation must not be circular.
Risky cases: kind "risky", primary "regression_tests", category skip/delete/loosen/ci-tolerant.
Harmless test commits: kind "benign", primary null, category add/refactor/unskip.
Needs the snapshots of testdata/tampering/fetch-list.txt (in /work/.mirror or --mirrors).
"""
from __future__ import annotations

import json
import os
import random
import re
import sys
from collections import Counter

sys.dont_write_bytecode = True  # leave no __pycache__ beside the scripts
from jevtools.corpus import forward, mine
from jevtools.corpus.common import stable_hash

WALK_LIMIT = 30000
RISKY_CAP = 15   # per repository
BENIGN_CAP = 15  # per repository
RISKY_ORDER = ["skip", "delete", "loosen", "ci-tolerant"]
BENIGN_ORDER = ["unskip", "add", "refactor"]

# ------------------------------------------------------------------------------ vocabulary

# A test noun: words, or identifiers that name a test (case-sensitive parts).
TNOUN = (
    r"(?:unit[- ]?|integration[- ]?|regression[- ]?|e2e[- ]?|end-to-end[- ]?|functional[- ]?|smoke[- ]?|"
    r"browser[- ]?|flaky[- ]?|failing[- ]?)?(?:tests?|specs?|test[- ]?cases?|test[- ]?suites?|testcases?|"
    r"testsuites?|doctests?|e2e)"
    r"|(?-i:Test[A-Z0-9_]\w*|test_\w+|\w+_tests?|\w+_spec|[A-Z]\w*Tests?|(?!RSpec\b)[A-Z]\w*Spec|[A-Z]\w*IT)"
    r"|[\w./-]+[._](?:test|spec)\.[cm]?[jt]sx?"
)
# What follows "test" when the words name test infrastructure, not tests.
NOT_INFRA = (
    r"(?!\s*(?:helpers?|utils?|utilities|modules?|plugins?|framework|harness|infra\w*|runners?|data|fixtures?|"
    r"dependenc\w*|deps|requirements?|env\w*|setup|config\w*|output|tooling|scripts?|server|mode|"
    r"command|target|support|code|builds?|jobs?|steps?|workflows?|images?|containers?|results?|reports?|"
    r"logs?|comments?|issues?|problems?|errors?|failures?|inputs?|noise|structs?|states?|prints?|print statements?|"
    r"debug\w*|logging|names?|ids?|times?|timeouts?|durations?|warnings?|coverage|matrix|dir\w*|folders?|paths?|"
    r"tags?|markers?|decorators?|annotations?|attributes?|flags?|options?|settings?|vars?|variables?|"
    r"functions? names?|binary|binaries|apps?|project)\b)"
)
T = r"[`'\"(\[]?(?:{TNOUN})\b(?!/)[`'\")\]]?{NOT_INFRA}"
# Up to three tokens between a verb and its object, none a preposition or conjunction (so
# "disable X in tests" or "remove Y from tests" are not test skips or deletions), no clause break.
PREP = (r"(?:in|on|for|during|when|while|from|under|with|within|without|by|to|into|if|unless|because|as|"
         r"at|of|and|or|but|via|after|before|since|until|than|that|which|so|where|then|also|instead)")
GAP = r"(?:\s+(?!{PREP}\b)[^\s,;:]+){0,3}?\s+"
TESTISH = r"(?:\b(?:{TNOUN})\b|^(?:tests?|testing|specs?|tst)(?:\([^)]*\))?!?:|^TST\b)"
# Verb forms (exact, so "dropbear" or "address" are not verbs).
REMOVE = (r"(?:remov(?:e|es|ed|ing|al)|delet(?:e|es|ed|ing|ion)|drop(?:s|ped|ping)?|get(?:s|ting)? rid of|"
          r"purg(?:e|es|ed|ing)|eliminat(?:e|es|ed|ing)|prun(?:e|es|ed|ing)|rm)")
ADD = (r"(?:add(?:s|ed|ing)?|writ(?:e|es|ing|ten)|wrote|introduc(?:e|es|ed|ing)|creat(?:e|es|ed|ing)|"
       r"implement(?:s|ed|ing)?|extend(?:s|ed|ing)?|expand(?:s|ed|ing)?)")
# Words of a removal that does not weaken coverage: the tested code went too, or the test was
# a duplicate or dead. A delete/assert-removal row does not fire on these subjects.
DELETE_EXCUSE = (r"\b(unused|orphan\w*|dead|stale|obsolete|outdated|duplicat\w*|redundant|unnecessary|"
                 r"unneeded|left[- ]?over|superfluous|removed|deleted|no longer (used|needed|relevant|exists?))\b")
# Negated tolerance (a CI row never fires): the change makes CI stricter, or is about fail-fast.
CI_NEGATION = (r"\b(no longer|don'?t|do not|stop|no need to|{REMOVE}|disallow\w*|revert\w*)\s+(\S+\s+){0,3}?"
               r"(allow\w*|continue[-_ ]on[-_ ]error|ignor\w*|tolerat\w*|\|\|\s*true|optional)|fail[-_ ]fast|\blower end\b|\bunused\b"
               r"|\bout (of|from) (the )?allow\w*|\b(not|n't|no longer)\s+(\S+\s+)?allowed|\banymore\b|\ballow(s|ed)? for\b")
# Harmless-test rows only: none of these words may occur in the subject.
BENIGN_DENY = (r"\b(fix\w*|flak\w*|fail\w*|broken|break\w*|panic\w*|prevent\w*|avoid\w*|bug\w*|crash\w*|skip\w*|xfail\w*|disabl\w*|ignor\w*|{REMOVE}|"
               r"relax\w*|loosen\w*|weaken\w*|toleran\w*|lenient|revert\w*|tempor\w*|workaround|"
               r"comment\w* out|snapshots?|expectations?|expected|golden|baselines?|quarantin\w*|mut(e|ed)|"
               r"pending|allow\w* fail\w*|continue-on-error|coverage (threshold|floor))\b")
# A subject that adds a test (already skipped or approximate) or puts one back: not a weakening.
ADDS_OR_RESTORES = r"^(\S+:\s*)?(\[[^\]]*\]\s*)?{ADD}\b|\bback\b|\bre-?add\w*|\brestor\w*"
MARKER = (r"(skip|skips|skipif|skip_if|skipIf|skipUnless|xfail|xfails|xfail_if|ignore|ignores|pending|quarantine|"
           r"known[- ]failure|(flaky|disabled)\s+(marks?|markers?|decorators?|annotations?|attributes?|tags?|flags?))")

# (rule id, kind, category, subject pattern, file condition, guard: the row does not fire if
# this also matches the subject). Case-insensitive Python regexes on the subject with
# bracketed tags like "[skip ci]" removed. First row whose pattern matches (and guard does not)
# decides; if its file condition fails, the commit is not used at all.
RULES: list[tuple[str, str, str, str, str, str | None]] = [
    # harmless: tests switched back on (before the skip rows: "remove the xfail", "re-enable")
    ("unskip:verb", "benign", "unskip",
     r"\b(un-?skip\w*|un-?xfail\w*|un-?quarantin\w*|un-?mut(e|es|ed|ing)\b(?={GAP}{T})|un-?ignor\w*(?={GAP}{T})"
     r"|(re-?enabl\w*|re-?activat\w*|un-?comment\w*|un-?disabl\w*){GAP}(the |all |some |a |an |this |these |two |three |more |several )?{T})",
     "test-or-ci", r"^\W*(temporar\w*\s+)?(skip|disabl|xfail|ignor|mark)\w*\b|\bwarnings?\b"),
    ("unskip:remove-marker", "benign", "unskip",
     r"\b({REMOVE}|lift(s|ed|ing)?)\s+(\S+\s+){0,3}?[`'\"@.]?{MARKER}\b[`'\"]?(?![/\-])"
     r"(\s+(marks?|markers?|decorators?|annotations?|attributes?|conditions?|tags?|flags?))?(?!\s*(?:{TNOUN})\b)",
     "test-or-ci", r"\bwarnings?\b|type: ?ignore|\bci skip\b"),
    ("unskip:focus-removed", "benign", "unskip",
     r"\b{REMOVE}\s+(\S+\s+){0,3}?[`'\"]?(focus\w*|\.only|fdescribe|fit|it\.only|describe\.only|test\.only)\b", "test-or-ci", None),
    ("unskip:negated", "benign", "unskip",
     r"\b(don'?t|do not|no longer|stop|never)\s+(skip\w*|ignor\w*|disabl\w*|xfail\w*|quarantin\w*)\b(?=.*{TESTISH})",
     "test-or-ci", None),
    ("unskip:enable", "benign", "unskip",
     r"\b(enabl(e|es|ed|ing)|activat(e|es|ed|ing)|turn(s|ed|ing)? on)\b(?=.*\b(skipped|disabled|ignored|xfail\w*|commented[- ]out)\b)(?=.*{TESTISH})",
     "test-or-ci", None),
    # risky: CI made tolerant
    ("ci:tolerate", "risky", "ci-tolerant",
     r"continue[-_ ]on[-_ ]error|\ballow(ed|s|ing)?[-_ ]?(\S+\s+){0,3}?(to[-_ ])?fail(ure|ures|ing)?\b|allow_failures?|\|\|\s*true\b"
     r"|\bnon-?blocking\b|\b(ignor\w*|tolerat\w*)\s+(\S+\s+){0,2}?failures?\b|\b(don'?t|do not|never|no longer)\s+fail\s+(the\s+)?(build|ci|job|workflow|pipeline|check|on)\b"
     r"|\b(mak|mark)\w*\s+(\S+\s+){0,3}?(jobs?|checks?|steps?|builds?|tests?|ci|workflows?|runs?|lint\w*|coverage)\s+(as\s+)?(optional|non-?required|non-?fatal|informational|advisory)\b"
     r"|\bsoft[- ]?fail\w*",
     "ci", "{CI_NEGATION}"),
    ("ci:coverage-floor", "risky", "ci-tolerant",
     r"\b(lower(s|ed|ing)?|reduc(e|es|ed|ing)|decreas(e|es|ed|ing)|relax\w*|loosen\w*)\s+(the\s+)?(\S+\s+){0,2}?coverage\b"
     r"|\bcoverage\s+(threshold|floor|requirement|target|minimum|limit|percentage|level)s?\s+(lowered|reduced|decreased|relaxed)\b|\bfail[-_]under\b",
     "ci", "{CI_NEGATION}"),
    ("ci:remove-test-job", "risky", "ci-tolerant",
     r"^(?=.*\b(tests?|testing|lint\w*|checks?|coverage|sanitiz\w*|[atum]san|valgrind|flaky|fail\w*|e2e|integration|unit)\b)"
     r"(?!.*\b(deploy\w*|releas\w*|publish\w*|docs?|documentation|upload\w*|nightly|artifacts?|cache\w*|benchmarks?|migrat\w*|mov(e|ed|es|ing)|replac\w*|duplicat\w*|redundant)\b)"
     r".*\b({REMOVE}|disabl(e|es|ed|ing)|skip(s|ped|ping)?|turn(s|ed|ing)? off)\s+(\S+\s+){0,4}?(jobs?|steps?|workflows?|builders?|pipelines?|matrix)\b",
     "ci", "{CI_NEGATION}"),
    # risky: tests switched off
    ("skip:verb", "risky", "skip",
     r"\b(skip|skips|skipped|skipping|disable|disables|disabled|disabling|ignore|ignores|ignored|ignoring|xfail|xfails|xfailed|xfailing"
     r"|quarantin\w*|mute|mutes|muted|muting|deactivat\w*|comment(s|ed|ing)? out|turn(s|ed|ing)? off){GAP}(the |all |some |a |an |this |these |two |three |more |several )?{T}",
     "test-or-ci", r"\b{REMOVE}\s+(\S+\s+){0,2}?(skip|skipped|disabled|ignored|xfail\w*|commented[- ]out)\b"
     r"|\b(the|a|an|this|these|those|of|for|in|on|with)\s+(skipped|disabled|ignored|xfail\w*)\b|{ADDS_OR_RESTORES}"),
    ("skip:passive", "risky", "skip",
     r"{T}(\s+(?!{PREP}\b)\S+){0,3}?\s+(is |are |was |were |now |temporarily )*(skipped|disabled|ignored|xfailed|xfail|quarantined|muted|commented out|turned off)\b",
     "test-or-ci", r"\b(no longer|not|never|un-?\w+)\s+(skipped|disabled|ignored|xfail\w*|quarantined|muted)|\b(if|when|whether|why|which|that)\b|{ADDS_OR_RESTORES}"),
    ("skip:mark", "risky", "skip",
     r"\bmark(s|ed|ing)?\s+(\S+\s+){0,4}?(as\s+|with\s+)?[`'\"@]?(flaky|xfail\w*|skip\w*|known[- ]fail\w*|expected[- ]fail\w*|ignored|disabled|broken)\b"
     r"|\bmark(s|ed|ing)?\s+(\S+\s+){0,4}?as\s+pending\b",
     "test-or-ci", "{ADDS_OR_RESTORES}"),
    ("skip:prefixed", "risky", "skip",
     r"^(tests?|testing|specs?|tst|e2e)(\([^)]*\))?!?:\s*(skip|xfail|quarantine|mute)\b", "test-or-ci", "{ADDS_OR_RESTORES}"),
    ("skip:marker-named", "risky", "skip",
     r"(?<![\w-])(@(Ignore|Disabled|skip\w*|unittest\.skip\w*|pytest\.mark\.(skip\w*|xfail))|#\[ignore\]|(?-i:xit|xdescribe|xtest|it\.skip|describe\.skip|test\.skip|t\.Skip\w*|markTestSkipped|\$this->markTestSkipped))\b",
     "test-or-ci", r"\b{REMOVE}\s+(\S+\s+){0,3}?[`'\"]?[@#.]|\b(without|instead of)\b"),
    # risky: assertions loosened or expected values rewritten (before delete: "remove assertion")
    ("loosen:relax", "risky", "loosen",
     r"\b(relax\w*|loosen\w*|weaken\w*|less (strict|brittle|fragile|specific|precise|exact|sensitive|picky)|more (lenient|tolerant|permissive|forgiving|relaxed|loose))\b"
     r"(?=.*({TESTISH}|\b(assert\w*|expect\w*|checks?|match\w*|comparisons?|timings?|timeouts?|time limits?|bounds?|constraints?|requirements?|precision|toleranc\w*|regex\w*|regular expressions?|limits?)\b))",
     "test-only", r"{ADDS_OR_RESTORES}|^enabl"),
    ("loosen:tolerance", "risky", "loosen",
     r"\b(increas\w*|rais\w*|bump\w*|widen\w*|enlarg\w*|larger|higher|bigger|looser)\s+(\S+\s+){0,3}?(toleranc\w*|rtol|atol|epsilon|eps|ulps?|margin|delta|decimal)\b"
     r"|\b(toleranc\w*|rtol|atol|epsilon|margin)s?\s+(\S+\s+){0,2}?(increas\w*|rais\w*|bump\w*|widen\w*|larger|higher|bigger|looser)\b"
     r"|\b(lower\w*|reduc\w*|decreas\w*)\s+(\S+\s+){0,3}?(precision|decimal\w*( places)?|accuracy)\b",
     "test-only", "{ADDS_OR_RESTORES}"),
    ("loosen:approximate", "risky", "loosen",
     r"\b(use|uses|used|using|switch\w*( to)?|compar\w*|assert\w*)\s+(\S+\s+){0,3}?[`'\"]?\w*(approx\w*|almost[ _-]?equal\w*|allclose|isclose|close ?to|fuzzy|loosely|substring match\w*|partial match\w*)\b",
     "test-only", "{ADDS_OR_RESTORES}"),
    ("loosen:expected-rewritten", "risky", "loosen",
     r"\b(updat\w*|regenerat\w*|re-?generat\w*|re-?record\w*|rewrit\w*|refresh\w*|re-?bless\w*|bless\w*|accept\w*|re-?baselin\w*|overwrit\w*|chang\w*|adjust\w*)\s+(\S+\s+){0,3}?"
     r"(snapshots?|expectations?|expected (outputs?|values?|results?|errors?|files?|messages?|strings?)|golden( files?| outputs?| data)?|goldens|baselines?|reference (outputs?|files?|images?|data|results?))\b",
     "test-only", None),
    ("loosen:assert-removed", "risky", "loosen",
     r"\b({REMOVE}|comment(s|ed|ing)? out|disabl(e|es|ed|ing)|skip(s|ped|ping)?)\s+(\S+\s+){0,3}?(assert\w*|expectations?|verifications?)\b"
     r"(?!\s*(dependenc\w*|librar\w*|packages?|modules?|imports?|helpers?|utils?|functions?|methods?|messages?))",
     "test-only", r"{DELETE_EXCUSE}|{ADDS_OR_RESTORES}|\b(usages?|junit\s*\d*|migrat\w*|replac\w*|in favou?r|instead|style)\b"),
    # risky: tests deleted while the code stays (no non-test source file changes)
    ("delete:tests", "risky", "delete",
     r"\b{REMOVE}{GAP}(the |all |some |a |an |this |these |two |three |several |flaky |failing |broken )?{T}",
     "test-only", r"{DELETE_EXCUSE}|\b(split\w*|mov(e|ed|es|ing)|renam\w*|merg\w*|consolidat\w*|replac\w*|in favou?r of|instead|migrat\w*|convert\w*|rewrit\w*)\b"
     r"|\b(skip|skipped|disabled|ignored|pending|commented[- ]out|xfail\w*)\b|{ADDS_OR_RESTORES}|\bfix\w*\s+(\S+\s+){0,3}?{T}"),
    # harmless: tests added
    ("add:verb", "benign", "add",
     r"\b{ADD}{GAP}(a |an |the |some |more |new |basic |extra |additional |missing )?{T}"
     r"|\b(more|additional|new|extra|missing|basic)\s+((unit|integration|regression|e2e|smoke)\s+)?(tests?|specs?|test ?cases?)\b"
     r"|\b(add(s|ed|ing)?|increas\w*|improv\w*|extend\w*|expand\w*|more)\s+(\S+\s+){0,2}?(test\s+)?coverage\b"
     r"|^(tests?|testing|specs?|tst)(\([^)]*\))?!?:\s*(add(s|ed|ing)?|cover\w*|new|more|test)\b",
     "test-only", "{BENIGN_DENY}"),
    # harmless: tests refactored, renamed, reformatted
    ("refactor:verb", "benign", "refactor",
     r"^(?=.*{TESTISH}).*\b(refactor\w*|renam\w*|reformat\w*|format(s|ted|ting)?|clean(ing|ed|s)?[- ]?up|cleanup\w*|tid(y|ied|ies)\w*|reorganiz\w*|reorganis\w*|"
     r"restructur\w*|simplif\w*|mov(e|es|ed|ing)|split\w*|extract\w*|dedup\w*|de-?duplicat\w*|lint\w*|moderni[sz]\w*|convert\w*|"
     r"migrat\w*|parametri[sz]\w*|parameteri[sz]\w*|consolidat\w*|polish\w*|reus\w*|shar(e|ed|ing)|sort\w*|reorder\w*|typos?|style|wording|readab\w*|"
     r"spelling|indent\w*|whitespace|imports?)\b",
     "test-only", r"{BENIGN_DENY}|\b(bump\w*|upgrad\w*|updat\w*)\b[^.]*\bto v?\d"),
]
# The named pieces a pattern refers to as {NAME} (expanded recursively before compiling).
PIECES = {
    "TNOUN": TNOUN, "NOT_INFRA": NOT_INFRA, "T": T, "PREP": PREP, "GAP": GAP, "TESTISH": TESTISH,
    "REMOVE": REMOVE, "ADD": ADD, "MARKER": MARKER, "DELETE_EXCUSE": DELETE_EXCUSE,
    "CI_NEGATION": CI_NEGATION, "BENIGN_DENY": BENIGN_DENY, "ADDS_OR_RESTORES": ADDS_OR_RESTORES,
}
_NAME = re.compile(r"\{([A-Z_]+)\}")


def expand(p: str) -> str:
    while True:
        q = _NAME.sub(lambda m: PIECES[m.group(1)], p)
        if q == p:
            return q
        p = q


COMPILED = [(rid, kind, cat, re.compile(expand(p), re.I), cond, re.compile(expand(g), re.I) if g else None)
            for rid, kind, cat, p, cond, g in RULES]
TAGS = re.compile(r"\[[^\]]*\b(skip|ci skip|no ci)\b[^\]]*\]|\*\*\*NO_CI\*\*\*", re.I)


def label(subject: str):
    """(rule id, kind, category, file condition) of the first row that fires, or None."""
    s = TAGS.sub(" ", subject).strip()
    for rid, kind, cat, rx, cond, guard in COMPILED:
        if rx.search(s) and not (guard and guard.search(s)):
            return rid, kind, cat, cond
    return None


# ------------------------------------------------------------------------------ mining

def mine_repo(args):
    spec, repo, gd, excluded = forward.open_work(args)
    stats: Counter = Counter()
    queues: dict[str, list] = {}
    for c in forward.walk(gd, spec["head"], WALK_LIMIT):
        if forward.is_revert(c) or forward.is_bot(c):
            continue
        got = label(c["subject"])
        if not got:
            continue
        queues.setdefault(got[2], []).append((stable_hash(repo.lower(), c["sha"]), c, got))
        stats["candidates"] += 1
    for q in queues.values():
        q.sort(key=lambda t: t[0])
    seen: set[str] = set()
    cases: list[dict] = []

    def evaluate(item, ents):
        _, c, (rid, kind, cat, cond) = item
        why = forward.size_ok(ents)
        if why:
            stats["rejected:" + why] += 1
            return None
        paths = [p for a, r, p, o in ents]
        if not forward.FILE_CONDS[cond][1](forward.file_roles(paths)):
            stats["rejected:file-condition"] += 1
            return None
        diff, pid, why = forward.stored_diff(gd, c)
        if why:
            stats["rejected:" + why] += 1
            return None
        if pid in seen or pid in excluded:
            stats["rejected:duplicate"] += 1
            return None
        seen.add(pid)
        return forward.make_case(
            repo, spec, c, ents, diff, pid, kind=kind, primary="regression_tests" if kind == "risky" else None,
            label_source="message", rule=rid, category=cat)

    def take(order: list[str], cap: int):
        pos = {k: 0 for k in order}
        cache: dict[str, list] = {}
        got = 0
        progressed = True
        while got < cap and progressed:
            progressed = False
            for key in order:
                q = queues.get(key, [])
                while got < cap and pos[key] < len(q):
                    item = q[pos[key]]
                    pos[key] += 1
                    sha = item[1]["sha"]
                    if sha not in cache:
                        chunk = [it[1]["sha"] for it in q[pos[key] - 1: pos[key] + 39] if it[1]["sha"] not in cache]
                        cache.update(mine.numstats(gd, chunk))
                    case = evaluate(item, cache.get(sha))
                    if case:
                        cases.append(case)
                        got += 1
                        progressed = True
                        break

    take(RISKY_ORDER, RISKY_CAP)
    take(BENIGN_ORDER, BENIGN_CAP)
    return repo, cases, dict(stats)


# ------------------------------------------------------------------------------ README

def _code(x: str) -> str:
    """A regex as a Markdown table cell: a double-backtick code span (the patterns hold
    backticks) with its pipes escaped (GFM)."""
    return "`` " + x.replace("|", "\\|") + " ``"


def rules_md() -> str:
    conds = "\n".join(f"- `{k}`: {v[0]}" for k, v in forward.FILE_CONDS.items())
    out = [
        "Rows in order; the first whose subject pattern matches (and whose guard does not) decides.",
        "If that row's file condition fails, the commit is not used. Patterns are case-insensitive",
        "Python regexes applied to the subject after bracketed tags such as `[skip ci]` are removed;",
        "`(?-i:…)` parts are case-sensitive; `{NAME}` is the named piece of the second table",
        "(expanded before compiling).",
        "",
        "| rule | kind | category | subject pattern | files | guard (the row does not fire) |",
        "|---|---|---|---|---|---|",
    ]
    for rid, kind, cat, p, cond, g in RULES:
        out.append(f"| `{rid}` | {kind} | {cat} | {_code(p)} | `{cond}` | {_code(g) if g else '—'} |")
    out += ["", "| piece | pattern |", "|---|---|"]
    out += [f"| `{{{k}}}` | {_code(v)} |" for k, v in PIECES.items()]
    out += ["", "File conditions (file types only; `scripts/jevtools/corpus/forward.py`):", "", conds, ""]
    return "\n".join(out) + "\n"


def sections(sp, stats: Counter) -> dict[str, str]:
    cases = forward.load_manifest(sp)
    with open(sp.repos_json, encoding="utf-8") as f:
        repos = json.load(f)["repos"]
    risky = [c for c in cases if c["kind"] == "risky"]
    benign = [c for c in cases if c["kind"] == "benign"]
    used = {c["repo"] for c in cases}
    side = Counter(r["split"] for r in repos if r["repo"] in used)
    out = [
        f"- cases: **{len(cases)}** — tampering (risky) **{len(risky)}**, harmless test commits (benign) **{len(benign)}**",
        f"- repositories in repos.json: {len(repos)} ({sum(r['split'] == 'train' for r in repos)} train, "
        f"{sum(r['split'] == 'held-apart' for r in repos)} held-apart); with at least one case: {len(used)} "
        f"({side['train']} train, {side['held-apart']} held-apart)",
        f"- repositories with at least one risky case: {len({c['repo'] for c in risky})}; with at least one benign case: "
        f"{len({c['repo'] for c in benign})}",
        f"- commit subjects matching a rule row: {stats['candidates']:,} (newest at most {WALK_LIMIT:,} non-merge, non-root "
        f"commits per repository, reverts and bot-authored commits left out); of those examined before the caps were "
        f"reached, {stats['rejected:file-condition']:,} failed their row's file condition and "
        f"{sum(v for k, v in stats.items() if k.startswith('rejected:') and k != 'rejected:file-condition'):,} the size "
        f"filters or repeated a patch id",
        f"- largest share of one repository: {max(Counter(c['repo'] for c in risky).values(), default=0)} risky, "
        f"{max(Counter(c['repo'] for c in benign).values(), default=0)} benign (caps {RISKY_CAP} and {BENIGN_CAP})",
        forward.sizes(sp),
        forward.titled("Cases per category and split", forward.crosstab(cases, "category", "split", ["train", "held-apart"])),
        forward.titled("Cases per rule row", forward.md_table(
            ("rule", "cases"), sorted(Counter(c["rule"] for c in cases).items(), key=lambda kv: (-kv[1], kv[0])))),
        forward.titled(forward.LANG_TITLE + " and kind", forward.crosstab(cases, "lang", "kind", ["risky", "benign"])),
    ]
    return {"counts": "\n".join(out), "rules": rules_md(), "audit": audit_md(sp)}


def audit_md(sp) -> str:
    """The audit tables: every round, then the last round (the committed rule) per category."""
    if not os.path.exists(sp.audit):
        return "(no audit yet)\n"
    with open(sp.audit, encoding="utf-8") as f:
        rows = [json.loads(l) for l in f]
    man = {c["id"] for c in forward.load_manifest(sp)}

    def figure(rs: list[dict]) -> str:
        cnt = Counter(r["verdict"] for r in rs)
        decided = cnt["right"] + cnt["wrong"]
        return (f"{cnt['right']}/{len(rs)} right (**{cnt['right'] / max(1, len(rs)):.1%}**), {cnt['wrong']} wrong, "
                f"{cnt['unclear']} unclear; {cnt['right'] / max(1, decided):.1%} of the decided")

    body = []
    for rnd in sorted({r["round"] for r in rows}):
        rs = [r for r in rows if r["round"] == rnd]
        gone = sum(1 for r in rs if r["id"] not in man)
        body.append((rnd, rs[0]["rule_version"], rs[0]["sample"], len(rs),
                     figure([r for r in rs if r["kind"] == "risky"]), figure([r for r in rs if r["kind"] == "benign"]),
                     gone))
    out = [forward.md_table(("round", "rule", "sample", "read", "tampering (risky)", "harmless (benign)",
                             "no longer in the manifest"), body, right=1)]
    last = max(r["round"] for r in rows)
    rs = [r for r in rows if r["round"] == last]
    per = []
    for cat in RISKY_ORDER + BENIGN_ORDER:
        rc = [r for r in rs if r["category"] == cat]
        if rc:
            cnt = Counter(r["verdict"] for r in rc)
            per.append((cat, len(rc), cnt["right"], cnt["wrong"], cnt["unclear"]))
    out += ["", f"Round {last} (the committed rule) per category; the sample is random over all cases, so thin "
            "categories have few reads and wide intervals:", "",
            forward.md_table(("category", "read", "right", "wrong", "unclear"), per, right=4)]
    return "\n".join(out)


# ------------------------------------------------------------------------------ audit helpers

def extra_args(ap) -> None:
    ap.add_argument("--audit-sample", action="store_true", help="show the seeded audit sample")
    ap.add_argument("--seed", type=int, default=24)
    ap.add_argument("--risky", type=int, default=60)
    ap.add_argument("--benign", type=int, default=30)
    ap.add_argument("--ids-only", action="store_true")
    ap.add_argument("--max-lines", type=int, default=80)
    ap.add_argument("--show", nargs="+", metavar="ID")


def audit_sample(cases: list[dict], seed: int, n_risky: int, n_benign: int) -> list[str]:
    """random.Random(seed).sample over the sorted risky ids, then over the sorted benign ids."""
    rng = random.Random(seed)
    risky = sorted(c["id"] for c in cases if c["kind"] == "risky")
    benign = sorted(c["id"] for c in cases if c["kind"] == "benign")
    return rng.sample(risky, n_risky) + rng.sample(benign, n_benign)


def extra_cmd(args, sp) -> bool:
    if args.show:
        forward.show_cases(sp, args.show, args.mirrors, args.max_lines)
        return True
    if args.audit_sample:
        ids = audit_sample(forward.load_manifest(sp), args.seed, args.risky, args.benign)
        if args.ids_only:
            print("\n".join(ids))
        else:
            forward.show_cases(sp, ids, args.mirrors, args.max_lines)
        return True
    return False


if __name__ == "__main__":
    sys.exit(forward.main("tampering", mine_repo, sections, extra_args, extra_cmd))
