"""The mechanical labeling rule of the mined corpus.

testdata/corpus/README.md prints these tables (`scripts/corpus mine --rules-md`
regenerates that section); mine.py applies exactly them. Order matters: the first rule that
fires gives the primary axis, in this order of trust:

1. an advisory names the fix commit (or an alias of it is named in the commit message):
   its CWE ids (CWE table, first mapped id in table order), else the OSS-Fuzz crash type
   (CRASH table), else the keyword table applied to the advisory's summary, else the keyword
   table applied to the commit message;
2. CWE ids written in the commit message (CWE table);
3. keyword table on the commit subject, then on the body (first row that matches wins).

Secondary axes: every other axis whose keyword rows also match (message or advisory text),
plus `regression_tests` when the stored diff removes non-blank lines from test files.
"""
from __future__ import annotations

import re

AXES = (
    "behavior_regression", "auth_boundary", "input_validation", "data_integrity",
    "error_handling", "compatibility", "lifecycle", "regression_tests",
)

# CWE id -> primary axis. Ids not listed here give no label (the next source is tried).
CWE_AXIS: dict[int, str] = {}
_CWE_ROWS = [
    ("auth_boundary", [284, 285, 287, 288, 290, 294, 295, 297, 306, 345, 346, 347, 352, 269, 522,
                       613, 639, 640, 862, 863, 1390]),
    ("input_validation", [20, 22, 23, 35, 59, 74, 77, 78, 79, 80, 88, 89, 90, 91, 93, 94, 95, 113,
                          116, 117, 119, 120, 121, 122, 125, 129, 134, 184, 190, 191, 400, 407, 409,
                          470, 502, 601, 611, 643, 674, 770, 776, 787, 789, 915, 918, 1236, 1321,
                          1333]),
    ("lifecycle", [362, 366, 367, 401, 404, 415, 416, 459, 664, 667, 763, 772, 775, 825, 833]),
    ("error_handling", [248, 252, 253, 390, 391, 392, 476, 617, 703, 754, 755]),
    ("data_integrity", [354, 471, 1286]),
]
for _axis, _ids in _CWE_ROWS:
    for _i in _ids:
        CWE_AXIS[_i] = _axis
CWE_ROWS = _CWE_ROWS

# OSS-Fuzz crash type (start of the advisory summary) -> primary axis.
CRASH_AXIS = {
    "Heap-buffer-overflow": "input_validation", "Stack-buffer-overflow": "input_validation",
    "Global-buffer-overflow": "input_validation", "UNKNOWN READ": "input_validation",
    "UNKNOWN WRITE": "input_validation", "Index-out-of-bounds": "input_validation",
    "Negative-size-param": "input_validation", "Container-overflow": "input_validation",
    "Dynamic-stack-buffer-overflow": "input_validation", "Stack-buffer-underflow": "input_validation",
    "Segv on unknown address": "input_validation", "Memcpy-param-overlap": "input_validation",
    "Stack-overflow": "input_validation", "Integer-overflow": "input_validation",
    "Heap-use-after-free": "lifecycle", "Heap-double-free": "lifecycle", "Use-after-poison": "lifecycle",
    "Stack-use-after-return": "lifecycle", "Stack-use-after-scope": "lifecycle",
    "Invalid-free": "lifecycle", "Bad-free": "lifecycle", "Memory leak": "lifecycle",
    "Null-dereference": "error_handling", "Null-dereference READ": "error_handling",
    "Null-dereference WRITE": "error_handling", "Uncaught exception": "error_handling",
}

# (rule id, axis, pattern). Case-insensitive, matched against the subject, then the body,
# then (for advisories) the advisory summary. First matching row wins, so the more specific
# security classes come first.
KW = [
    # auth_boundary
    ("kw:auth:authz", "auth_boundary", r"\b(unauthori[sz]ed|unauthenticated|privilege[- ]escalation|escalat\w* (of )?privileges?|idor|insecure direct object|broken access( control)?|(authori[sz]ation|authentication|auth|permission|access|ownership|acl|role|scope|tenant) (checks?|bypass\w*|enforcement|restrictions?)|missing (\w+ ){0,2}(authori[sz]ation|authentication|auth|permission|access|ownership) (checks?|validation|requirements?)|(requir(e|es|ed|ing)|enforc\w+) (\w+ ){0,2}(authori[sz]ation|authentication|auth|permissions?|login|access|ownership)|without (\w+ )?(authori[sz]ation|authentication|auth|permission|login)|cross[- ](repo\w*|tenant|user|org\w*|project|account|site|team)s?\b[^.\n]{0,40}\b(access|modif\w*|read|write|delet\w*|leak\w*|vulnerab\w*))\b"),
    ("kw:auth:bypass", "auth_boundary", r"\b(auth\w*|permission|login|acl|rbac|2fa|mfa|otp|totp|sso|saml|oauth|jwt|token|session|password)\b[^.\n]{0,60}\bbypass\w*|\bbypass\w*\b[^.\n]{0,60}\b(auth\w*|permission|login|acl|rbac|2fa|mfa|otp|totp|sso|saml|oauth|jwt|token|session|password)\b"),
    ("kw:auth:csrf", "auth_boundary", r"\b(csrf|xsrf|cross[- ]site request forgery) (protection|check|vulnerab\w*|bypass|attack|validation|verification|token (check|validation|verification))|\b(missing|add\w*|enabl\w*|enforc\w*|requir\w*|restor\w*) (\w+ ){0,2}(csrf|xsrf)\b|\b(csrf|xsrf) (token )?(is |was )?(not )?(checked|validated|verified|required|enforced)\b"),
    ("kw:auth:verify", "auth_boundary", r"\b(verif\w*|validat\w*) (of |the |for )?(server |client |peer |jwt |token |webhook |request )?(signatures?|certificates?|certs?|hostnames?|tls|ssl|jwt|hmac|issuer|audience|nonce|credentials?)\b|\b(signature|certificate|hostname|jwt|hmac|token|csrf token) (verification|validation)\b|insecureskipverify|verify_peer|ssl_verify|verify_mode|timing attack|constant[- ]time compar\w*"),
    ("kw:auth:perm", "auth_boundary", r"\b((missing (\w+ )?permission checks?|check(s|ed|ing)?|enforc\w*|verif\w*|respect\w*|honou?r\w*|bypass\w*) (the )?(user'?s? |acl |access |repo |project |object |admin )?permissions?|permission (check|bypass|escalation)s?|privilege escalat\w*|escalat\w* (of )?privileges?|not allowed to|only (admins?|owners?|the owner|authori[sz]ed)|non-?admins?|admin[- ]only|must be (an )?admin|role checks?|tenant isolation|cross[- ]tenant|access (check|restriction)s?|restrict\w* access|unprivileged users?|leaks? (private|secret|confidential))\b"),
    # input_validation
    ("kw:input:xss", "input_validation", r"\b(xss|cross[- ]site[- ]scripting|html[- ]injection|unescaped|escap\w+ (html|output|user|input|attributes?|urls?|names?|titles?|values?)|html[- ]escap\w*|sanitiz\w* (the )?(html|input|user|output|urls?|filenames?|paths?|attributes?|markup|svg|links?|names?|values?|data|strings?|content)|innerhtml|dangerouslysetinnerhtml)\b"),
    ("kw:input:injection", "input_validation", r"\b(sql|command|code|shell|template|ldap|header|crlf|xpath|log|argument|nosql|expression|query|os command|el) injection\b|\bsqli\b|\brce\b|remote code execution|arbitrary code|arbitrary command"),
    ("kw:input:path", "input_validation", r"\b(path|directory|dir) traversal\b|\bzip[- ]?slip\b|\.\./|arbitrary file (read|write|access|overwrite|deletion)|outside (of )?the (root|base|target|destination|upload) (dir\w*|folder|path)|symlink (attack|follow\w*)|path (validation|sanitiz\w*|normaliz\w*)"),
    ("kw:input:ssrf-xxe", "input_validation", r"\b(ssrf|server[- ]side request forgery|xxe|xml external entit\w*|external entit\w*|billion laughs|entity expansion|open redirect|unvalidated redirect)\b"),
    ("kw:input:deser", "input_validation", r"\b(unsafe|untrusted|insecure) (deserializ\w*|unmarshal\w*|yaml\.load|pickle)|deserialization (of untrusted|vulnerab\w*|gadget)|prototype pollution|__proto__|mass assignment"),
    ("kw:input:redos", "input_validation", r"\b(redos|regular expression denial|catastrophic backtracking|exponential backtracking|polynomial regex|inefficient regular expression)\b"),
    ("kw:input:bounds", "input_validation", r"\b(heap|memory|stack|pointer) corruption|\b(buffer|heap|stack[- ]buffer|integer|int|size|length|arithmetic) (overflow|underflow|over-read|overread)|out[- ]of[- ]bounds|\boob (read|write|access)|bounds? check\w*|index out of (range|bounds)|array index|slice bounds|out of range (read|write|access|index)|read past (the )?end|heap-buffer|stack-buffer|off-by-one (read|write)|negative (size|length|index)|(check|validate|limit) (the )?(length|size|index|offset|count)\b"),
    ("kw:input:dos", "input_validation", r"\b(denial[- ]of[- ]service|\bdos\b|zip bomb|decompression bomb|memory exhaustion|resource exhaustion|unbounded (memory|allocation|recursion|growth|read)|excessive (memory|allocation|recursion)|stack exhaustion|recursion (depth|limit)|(size|length|depth|body|header|request|upload|payload|message) limits?|too (large|deep|long) (input|payload|request|body|header|message)|malicious (input|payload|request|file|archive)|crafted (input|payload|request|file|packet|archive|message))\b"),
    ("kw:input:validate", "input_validation", r"\b(input validation|validat(e|es|ed|ing|ion of) (user |untrusted |the )?(input|parameters?|params|arguments?|urls?|paths?|filenames?|names?|headers?|hosts?|email|uri)|untrusted (input|data|user)|user[- ]supplied|user[- ]controlled|attacker[- ]controlled|improper(ly)? validat\w*|insufficient validation|missing validation|malformed)\b"),
    # no axis: information exposure (no axis asks it); a match drops the commit
    ("kw:skip:exposure", None, r"\b(credentials?|secrets?|passwords?|tokens?|api keys?|keys?|information|info|sensitive (data|info\w*)|private (data|info\w*)|personal data|paths?|emails?|memory contents?) (from |are |is |were |was )?(leak|leaks|leaking|leaked|exposure|exposed|disclosure|disclosed)\b|\b(information|info|data) (leak\w*|disclosure|exposure)\b|\bexpos\w+ (of )?(the )?(credentials|secrets?|passwords?|tokens?|sensitive|private)\b"),
    # lifecycle
    ("kw:life:uaf", "lifecycle", r"\b(use[- ]after[- ]free|double[- ]free|double[- ]close|dangling (pointer|reference)|freed (memory|object|pointer)|use after close|after (it is|being) (freed|closed|released))\b"),
    ("kw:life:leak", "lifecycle", r"(?<!state )(?<!abstraction )(?<!type )(?<!api )\bleak(s|ing|ed|age)?\b(?! (of )?(the )?(info\w*|secrets?|credentials?|passwords?|tokens?|keys?|private|sensitive|paths?|user|personal|email|ip|internal|implementation|(\w+ )?types?))|\b(memory|goroutine|thread|file[- ]descriptor|fd|handle|socket|connection|resource|listener|timer|subscription|context|task)s? leaks?\b|\bleak\w*\b[^.\n]{0,40}\b(goroutines?|threads?|file descriptors?|fds?|handles?|sockets?|connections?|resources?|listeners?|timers?|subscriptions?|memory|tasks?|streams?|file handles?)\b"),
    ("kw:life:race", "lifecycle", r"\b(race(s|y)?|race[- ]condition|data race|racing|deadlock\w*|livelock|lock (ordering|inversion)|concurrent (map|access|modification|writes?|reads?)|thread[- ]?safe(ty)?|not thread[- ]safe|(missing|add|lack of|without|proper|fix) (\w+ )?synchroni[sz]ation|(missing|add\w*|hold\w*|tak(e|es|ing)|acquir\w*|use|under) (a |the )?(\w+ )?(mutex|lock)\b|missing lock|unlock\w*|toctou|time[- ]of[- ]check)\b"),
    ("kw:life:close", "lifecycle", r"\b(close|release|dispose|free|cleanup|clean up|cancel|stop|shut ?down|drain)\b[^.\n]{0,30}\b(properly|on (error|failure|exit|all paths|every path|shutdown|close|cancel\w*))\b|\b(connections?|files?|sockets?|streams?|channels?|handles?|sessions?|body|bodies|responses?|readers?|writers?|clients?|transactions?|cursors?|pipes?|fds?|descriptors?|listeners?|watchers?|subscriptions?|resources?|contexts?|goroutines?|threads?|timers?|workers?|processes|tasks?) (is |are |was |were )?(not|never|isn'?t|wasn'?t|aren'?t|weren'?t) (being |always |properly )?(closed|released|freed|cancell?ed|disposed|stopped|cleaned up|unsubscribed|joined|awaited|shut down|terminated)\b|\b(hangs?|hanging|hung|stuck|blocks? forever|never (returns|finishes|terminates))\b (on|when|in|during|forever|after|while|if|at|with|until)\b|\b(defer\w*|finally|ensure block|using statement|try-with-resources|with statement)\b[^.\n]{0,30}\b(close|release|unlock|cleanup)"),
    # data_integrity
    ("kw:data:loss", "data_integrity", r"\b(data[- ]loss|los(e|es|ing|t) (user |stored |saved |all )?(data|writes?|updates?|records?|rows?|files?|changes|messages|events)|(data|database|db|index|cache|state|storage|repository|repo|archive|journal|wal|table|config|file ?system) corruption|corrupt(s|ing)? (the |stored |on-disk )?(data|database|db|index|cache|storage|entries|records|rows|repository|repo|journal)|(deletes?|deleted|deleting|removes?|removed|wipes?|wiped|drops?|dropped) (all |other |wrong |unrelated |unconfirmed |existing )(\w+ )?(records|rows|data|entries|users|items|memos|messages|comments|objects|tables|documents|posts)|accidental(ly)? delet\w* (of )?(the )?(user |stored )?(data|records?|rows?|users?|entries|objects|documents))\b"),
    ("kw:data:txn", "data_integrity", r"\b(atomic(ally)? (write|rename|update|replace|save|commit)\w*|fsync|non-atomic|not atomic(ally)?|(missing|wrap\w* in|inside|within|use|add) (a |the )?(db |database )?transactions?|transaction (isolation|rollback|leak|handling)|not (saved|persisted|flushed|written)( to disk)?|durability|lost updates?|write skew|idempoten\w*|stale (data|reads?|cache|values?)|destructive migration|data migration)\b"),
    # error_handling
    ("kw:err:ignored", "error_handling", r"\b(ignor\w+|swallow\w*|discard\w*|suppress\w*|unchecked|unhandled|uncaught|silently (ignor\w+|fail\w*|swallow\w*|drop\w*))\b[^.\n]{0,30}\b(errors?|exceptions?|err|failures?|return (value|code)s?|rejections?)\b|\berror (handling|propagation|checks?|is (not )?(returned|checked|propagated|ignored))\b|\b(check(s|ed|ing)?|handl(e|es|ed|ing)|propagat\w*|return(s|ing)?|catch(es|ing)?) (the |an? |any |all |possible )?(errors?|err|exceptions?|return (value|code)s?|failures?)\b|\bfail(s|ed|ing)? silently\b|\bunhandled (promise )?rejection\b|\b(missing|add\w*|no) (error|err|nil|null) (check|handling)\w*"),
    ("kw:err:null", "error_handling", r"\b(nil|null|none|undefined)[- ](pointer|reference|dereference|deref|check|value|error|exception|panic)\w*|\b(npe|nullpointerexception|nil map)\b|\b(fix\w*|avoid\w*|prevent\w*|don'?t|do not|no longer|stop\w*|handle\w*|recover\w*)\b[^.\n]{0,40}\bpanic\w*|\bpanic\w* (when|on|if|in|with|during|due|caused|because|for|after|while)\b|\b(unwrap|expect)\(\)|\b(remove|avoid|replace|no) (\w+ )?unwraps?\b|\bunwrap(s|ping)? (on |of )?(a |an )?(none|err|error|result|option)\b|\b(crash\w*|abort\w*)\b[^.\n]{0,30}\b(when|on|if|with)\b[^.\n]{0,30}\b(nil|null|none|empty|missing|invalid|error|fails?)\b|\bexpect\(\)|\bassert(ion)? fail\w*"),
    # compatibility
    ("kw:compat:compat", "compatibility", r"\b(backwards?[- ]compat\w*|backward[- ]incompat\w*|incompatib\w* with|(fix|restore|keep|maintain|preserve|broke|break\w*|regain)\w* [^.\n]{0,30}\bcompatib\w*|compatib\w* (fix|break\w*|issue|problem|regression)|breaking change|api break\w*|broke (the )?(api|abi|public|compat\w*)|abi (break|change)|wire (format|protocol)|older (versions?|clients?|servers?|releases?)|legacy (clients?|config\w*|format|api)|(restore|re-?add|reinstate|keep)\w* (the )?(old|previous|deprecated|removed|public|exported) (api|method|function|flag|option|alias|field|argument|parameter|key|name|export|signature|constructor|class)s?)\b"),
    ("kw:compat:surface", "compatibility", r"\b((config|configuration|env(ironment)?) (key|variable|option)s? (renamed|removed|ignored|not (read|respected|honou?red))|(cli|command[- ]line) (flag|option|argument)s?|exported (function|type|symbol|name)s? (removed|renamed|missing|restored)|re-?export\w*)\b"),
    # behavior_regression
    ("kw:behav:regression", "behavior_regression", r"\b(regression|regressed|regresses|no longer work\w*|stopped working|broke (the |a )?\w+|broken (by|since|in|after) |used to work|restore\w* (the )?(previous|original|old|default|expected|correct) (behaviou?r|value|order|output|result)s?|revert\w* (the )?behaviou?r|unintended(ly)?|accidental(ly)?)\b"),
    ("kw:behav:wrong", "behavior_regression", r"\b(off[- ]by[- ]one|wrong(ly)?|incorrect(ly)?|erroneous(ly)?|invert\w* (condition|logic|check|comparison)|reversed (condition|logic|check|comparison)|(condition|logic|comparison|check) (is|was) (wrong|inverted|backwards)|(returns?|returned|returning|produces?|computes?|calculat\w+) (the )?(wrong|incorrect|bad|invalid)|logic (error|bug)|miscalculat\w*|miscomput\w*|(default (value|behaviou?r)?s?|precedence) (is|was) (wrong|incorrect|not))\b"),
    # regression_tests (test-only commits only: see TESTS_ONLY_RULES)
    ("kw:tests:restore", "regression_tests", r"\b(re-?enable\w*|un-?skip\w*|un-?ignor\w*|restor\w+|re-?add\w*|reinstat\w*|re-?activat\w*|un-?comment\w*)\b[^.\n]{0,40}\b(tests?|specs?|assert\w*|expectations?|test ?cases?|test ?suite)\b|\b(tests?|specs?|assert\w*|expectations?) (were|was|are|is|did) (never|not) (run\w*|executed|checking|check\w*|assert\w*|test\w*|fail\w*)|\b(missing|no-?op|vacuous|ineffective|always[- ]pass\w*|tautolog\w*|useless|dead) (tests?|assert\w*|expectations?)\b|\btests? (never|didn'?t|did not|doesn'?t|does not|weren'?t|were not|wasn'?t|was not) (ran|run\w*|fail\w*|assert\w*|check\w*|test\w*|executed)\b|\b(assert\w*|expect\w*) (nothing|the wrong|wrong)\b"),
]
KW_COMPILED = [(rid, axis, re.compile(p, re.I)) for rid, axis, p in KW]
TESTS_ONLY_RULES = {"kw:tests:restore"}

# A risky commit's message must read as a fix (subject or body).
FIX_GATE = re.compile(
    r"\b(fix\w*|bug\w*|hotfix|prevent\w*|avoid\w*|resolv\w*|correct\w*|patch(ed|es)?|vulnerab\w*|"
    r"security|cve-\d|ghsa-|cwe-\d|regression|leak\w*|crash\w*|race|deadlock\w*|panic\w*|overflow\w*|"
    r"missing (\w+ )?(checks?|validation|locks?|unlocks?|close|free|release|escap\w+|authori\w+|permissions?|auth\w*|null|nil|error|bounds?|limits?)|"
    r"harden\w*|restor\w*|re-?enable\w*|protect\w*|mitigat\w*|enforce\w*|"
    r"segfault|npe|hang|hangs|stuck|corrupt\w*|injection|xss|csrf|traversal|bypass\w*)\b",
    re.I,
)
# Commits that are never risky cases: reverts, release/version bumps, dependency updates,
# merges of branches written as plain commits, formatting/CI-only.
NOT_RISKY_SUBJECT = re.compile(
    r"\b(typos?|docstrings?|documentation|readme|changelog|spelling)\b|^(revert\b|\"?revert|(refactor|renam|clean ?up|cleanup|tidy|simplif|extract|reformat|format|style|lint|typo|docs?|comment)\w*\b|(refactor|feat|feature|perf|style|chore|build|ci|docs?)(\([^)]*\))?!?:|merge (branch|pull|remote)|(chore|build|ci)\(deps[^)]*\)|bump\b|"
    r"update (dependency|module|rust crate|npm|gem)\b|release\b|prepare (release|for)|v?\d+\.\d+(\.\d+)?$|"
    r"version \d|changelog|ci[:(]|docs?[:(]|style[:(]|chore\(release|\[ci\]|\[skip ci\])",
    re.I,
)
# A subject about tests: only the test-only row (kw:tests:restore) may use it.
TEST_SUBJECT = re.compile(r"^(tests?|testing|specs?)(\([^)]*\))?[:!]|\b(in|from|for|of) (the |a |some )?(unit |e2e |integration )?tests?\b", re.I)
REVERT_BODY = re.compile(r"This reverts commit [0-9a-f]{7,}", re.I)

# Benign: the message must contain none of these (subject and body; for dependency bumps the
# subject only, because bump bodies quote upstream release notes).
BENIGN_DENY = re.compile(
    r"\b(fix\w*|bug\w*|hotfix|cve|ghsa|cwe|security|secur\w*|vulnerab\w*|exploit\w*|leak\w*|crash\w*|"
    r"regress\w*|race|racy|deadlock\w*|panic\w*|overflow\w*|inject\w*|xss|csrf|traversal|bypass\w*|"
    r"broken|break\w*|wrong|incorrect\w*|issue|problem|error|errors|fail\w*|revert\w*|workaround|"
    r"prevent\w*|avoid\w*|correct\w*|patch(es|ed)?|sanitiz\w*|escap\w*|unsafe|corrupt\w*|loss|lost|"
    r"hang\w*|nil|null|npe|segfault|undefined|mistake|oops|typo in code|restor\w*|missing)\b",
    re.I,
)
# (rule id, pattern on subject, file condition)
BENIGN_RULES = [
    ("benign:deps-patch", r"^(chore|build|deps)(\(deps[^)]*\))?:? ?(bump|update|upgrade)\b.* from v?(\d+)\.(\d+)\.(\d+)\S* to v?(\d+)\.(\d+)\.(\d+)|^bump \S+ from v?(\d+)\.(\d+)\.(\d+)\S* to v?(\d+)\.(\d+)\.(\d+)", "manifest"),
    ("benign:docs", r"^(docs?|documentation|readme|changelog)\b|\b(docs?|documentation|readme|docstrings?|comments?|typos?|spelling|wording|grammar)\b", "docs"),
    ("benign:tests", r"\b(tests?|specs?|coverage|testing|benchmarks?)\b", "tests"),
    ("benign:refactor", r"^(refactor|style|chore|cleanup|clean up|perf|lint)\b|\b(refactor\w*|renam\w+|clean ?up|simplif\w*|extract\w*|mov(e|ed|es|ing) \w+ (to|into)|reorganiz\w*|restructur\w*|tidy|lint\w*|reformat\w*|format(ting)?|code style|dedup\w*|inline\w*|split \w+ into|consolidat\w*|polish|readability|unused|dead code)\b", "any"),
    ("benign:feature", r"^(feat(ure)?|add|adds|added|support|implement\w*|introduce\w*|allow|new|enable)\b|\b(feat|feature)\(", "with-tests"),
]
BENIGN_COMPILED = [(rid, re.compile(p, re.I), cond) for rid, p, cond in BENIGN_RULES]


def cwe_axis(cwes) -> tuple[str, int] | None:
    """First CWE (in CWE table order) that maps to an axis."""
    best = None
    order = {a: i for i, (a, _) in enumerate(CWE_ROWS)}
    for c in cwes:
        a = CWE_AXIS.get(int(c))
        if a is not None:
            key = (order[a], int(c))
            if best is None or key < best[0]:
                best = (key, a, int(c))
    return (best[1], best[2]) if best else None


def kw_first(text: str, allow_tests_only: bool = False) -> tuple[str, str] | None:
    for rid, axis, rx in KW_COMPILED:
        if rid in TESTS_ONLY_RULES and not allow_tests_only:
            continue
        if rx.search(text):
            return rid, axis
    return None


ADVISORY_ORDER = [r for r in KW_COMPILED if r[1] == "input_validation"] + [
    r for r in KW_COMPILED if r[1] != "input_validation"]


def kw_first_advisory(text: str):
    """Keyword rows on an advisory summary: input_validation rows first (auth words in
    summaries are often context, e.g. 'an authenticated user can inject ...')."""
    for rid, axis, rx in ADVISORY_ORDER:
        if rid in TESTS_ONLY_RULES:
            continue
        if rx.search(text):
            return rid, axis
    return None


def kw_axes(text: str) -> set[str]:
    return {axis for rid, axis, rx in KW_COMPILED if axis and rid not in TESTS_ONLY_RULES and rx.search(text)}


def crash_axis(crash: str) -> str | None:
    if not crash:
        return None
    if crash in CRASH_AXIS:
        return CRASH_AXIS[crash]
    for k, a in CRASH_AXIS.items():
        if crash.startswith(k):
            return a
    return None


def rules_markdown() -> str:
    """The README section that states this rule."""
    out = ["### CWE id → primary axis", "", "| axis | CWE ids |", "|---|---|"]
    for axis, ids in CWE_ROWS:
        out.append(f"| `{axis}` | {', '.join(str(i) for i in ids)} |")
    out += ["", "### OSS-Fuzz crash type → primary axis", "", "| crash type | axis |", "|---|---|"]
    for k, a in CRASH_AXIS.items():
        out.append(f"| {k} | `{a}` |")
    out += ["", "### Message keyword rows (first match wins; case-insensitive Python regex)", "",
            "| rule | axis | pattern |", "|---|---|---|"]
    for rid, axis, p in KW:
        out.append(f"| `{rid}` | {'`' + axis + '`' if axis else '(none: drop the commit)'} | `{p.replace('|', '&#124;')}` |")
    out += ["", "### Benign rows (first match wins)", "", "| rule | subject pattern | files |", "|---|---|---|"]
    for rid, p, cond in BENIGN_RULES:
        out.append(f"| `{rid}` | `{p.replace('|', '&#124;')}` | {cond} |")
    out += ["", "Fix gate (a risky commit's message must match): `" + FIX_GATE.pattern.replace("|", "&#124;") + "`",
            "", "Never risky (subject): `" + NOT_RISKY_SUBJECT.pattern.replace("|", "&#124;") + "`; nor a body with `This reverts commit`.",
            "", "Test subjects (only `kw:tests:restore` may label them): `" + TEST_SUBJECT.pattern.replace("|", "&#124;") + "`",
            "", "Benign deny list (none may occur in the message): `" + BENIGN_DENY.pattern.replace("|", "&#124;") + "`"]
    return "\n".join(out) + "\n"
