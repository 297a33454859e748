"""Readers of security-linter test fixtures for scripts/jevtools/corpus/introduced.py (stdlib only).

Each reader takes a Snapshot (a bare git directory at a pinned commit) and yields Snippet
records: a piece of code that the tool's own tests say it flags (risky) or does not flag
(safe), with the tool's rule id, where it sits in the source repository and the expectation
that labels it. Readers never judge code themselves: the label is the fixture's expectation.

Two shapes:
- a *snippet* is a self-contained program or code string (gosec samples, RuleTester strings,
  RSpec heredocs, PMD/psalm/Roslyn test sources): `context` is None;
- a *fixture unit* is one top-level item of a fixture file whose flagged lines the tool lists
  (ruff snapshots, clippy `.stderr`, `// want` markers, PHPCS error lists): `context` holds the
  rest of the file (imports, helpers) with every other unit removed, and where the unit goes.
"""
from __future__ import annotations

import ast
import json
import re
import textwrap
import xml.etree.ElementTree as ET
from dataclasses import dataclass, field

from jevtools.corpus.common import git
from jevtools.corpus.introduced_lex import LexError, _string_end, depth_deltas, neutralize, strip_comments


@dataclass
class Snapshot:
    repo: str
    commit: str
    gitdir: str

    def ls(self, prefix: str) -> list[str]:
        out = git(self.gitdir, "ls-tree", "-r", "--name-only", self.commit, "--", prefix)
        return sorted(out.decode("utf-8").splitlines())

    def read(self, path: str) -> str:
        data = git(self.gitdir, "show", f"{self.commit}:{path}")
        text = data.decode("utf-8")
        return text.lstrip("\ufeff").replace("\r\n", "\n")


@dataclass
class Snippet:
    repo: str
    rule: str            # the tool's rule id, e.g. "G402", "S501", "Security/Eval"
    path: str            # source file in the tool's repository
    start: int           # 1-based line range of the snippet in `path`
    end: int
    risky: bool
    expect: str          # the expectation that labels it, e.g. "expected 1", "invalid"
    lang: str
    code: list[str]      # the snippet's lines, comments removed, dedented for snippets
    context: tuple[int, int] | None = None   # fixture units: the unit's range; extra["file"] has the file
    family: str = ""     # snippets that are variants of each other (same rule, same fixture)
    ruleless: bool = False  # a safe snippet no single rule owns (psalm valid code): matched later
    note: str = ""       # why a snippet was dropped (set by the caller), "" when kept
    extra: dict = field(default_factory=dict)
    row: object = None   # the RULES row of introduced.py that the snippet falls under


def clean_lines(lines: list[str | None]) -> list[str]:
    """Drop comment-only lines, trim blank lines at both ends, collapse blank runs, dedent."""
    out = clean_lines_keep_indent(lines)
    if not out:
        return []
    # A code string whose first line starts right after the quote: dedent the other lines.
    if not out[0][:1].isspace() and len(out) > 1:
        rest = textwrap.dedent("\n".join(out[1:])).split("\n")
        if rest != out[1:]:
            return [out[0]] + rest
    return textwrap.dedent("\n".join(out)).split("\n")


def snippet_code(text: str, lang: str) -> list[str]:
    return clean_lines(neutralize(strip_comments(text, lang), lang))


def has_comments(text: str, lang: str) -> bool:
    return strip_comments(text, lang) != [l.rstrip() for l in text.split("\n")]


def line_of(text: str, idx: int) -> int:
    return text.count("\n", 0, idx) + 1


# ---------------------------------------------------------------------------------------------
# Literal readers


def parse_go_string_expr(text: str, i: int) -> tuple[str, int] | None:
    """A Go string expression made of `raw` and "interpreted" literals joined by +."""
    parts = []
    n = len(text)
    while True:
        while i < n and text[i] in " \t\n":
            i += 1
        if i >= n:
            return None
        if text[i] == "`":
            j = text.find("`", i + 1)
            if j < 0:
                return None
            parts.append(text[i + 1 : j])
            i = j + 1
        elif text[i] == '"':
            m = re.match(r'"((?:\\.|[^"\\\n])*)"', text[i:])
            if not m:
                return None
            try:
                parts.append(json.loads('"' + m.group(1) + '"'))
            except ValueError:
                return None
            i += m.end()
        else:
            return None
        k = i
        while k < n and text[k] in " \t\n":
            k += 1
        if k < n and text[k] == "+":
            i = k + 1
            continue
        return "".join(parts), i


JS_ESC = {"n": "\n", "t": "\t", "r": "\r", "b": "\b", "f": "\f", "v": "\v", "0": "\0"}


def parse_js_string(text: str, i: int) -> tuple[str, int] | None:
    """A JavaScript string literal ('', "" or a template without ${}) at text[i]."""
    q = text[i]
    if q not in "'\"`":
        return None
    out = []
    j = i + 1
    n = len(text)
    while j < n:
        c = text[j]
        if c == "\\":
            e = text[j + 1]
            if e in JS_ESC:
                out.append(JS_ESC[e])
                j += 2
            elif e == "x":
                out.append(chr(int(text[j + 2 : j + 4], 16)))
                j += 4
            elif e == "u":
                if text[j + 2] == "{":
                    k = text.index("}", j)
                    out.append(chr(int(text[j + 3 : k], 16)))
                    j = k + 1
                else:
                    out.append(chr(int(text[j + 2 : j + 6], 16)))
                    j += 6
            elif e == "\n":
                j += 2
            else:
                out.append(e)
                j += 2
            continue
        if c == q:
            return "".join(out), j + 1
        if q == "`" and text.startswith("${", j):
            return None
        if c == "\n" and q != "`":
            return None
        out.append(c)
        j += 1
    return None


def js_string_expr(text: str) -> str | None:
    """The value of `text` if it is one JS string literal, or literals joined by +."""
    i, parts = 0, []
    text = text.strip()
    while True:
        while i < len(text) and text[i] in " \t\n":
            i += 1
        r = parse_js_string(text, i) if i < len(text) else None
        if not r:
            return None
        parts.append(r[0])
        i = r[1]
        while i < len(text) and text[i] in " \t\n":
            i += 1
        if i == len(text):
            return "".join(parts)
        if text[i] != "+":
            return None
        i += 1


def _code_chars(text: str, i: int, lang: str):
    """(index, character) of every character from text[i] on that is code: outside string
    literals and // or /* */ comments."""
    prev = ""
    n = len(text)
    comments = lang not in ("ruby", "python")
    while i < n:
        if comments and text.startswith("//", i):
            j = text.find("\n", i)
            i = n if j < 0 else j
            continue
        if comments and text.startswith("/*", i):
            j = text.find("*/", i + 2)
            i = n if j < 0 else j + 2
            continue
        j = _string_end(text, i, lang, prev)
        if j is not None:
            i, prev = j, "a"
            continue
        c = text[i]
        yield i, c
        if not c.isspace():
            prev = c
        i += 1


def split_top(text: str, lang: str, seps: str = ",") -> list[tuple[str, int]]:
    """Split `text` at top-level separators (outside brackets, strings and comments)."""
    out, depth, start = [], 0, 0
    for i, c in _code_chars(text, 0, lang):
        if c in "([{":
            depth += 1
        elif c in ")]}":
            depth -= 1
        elif depth == 0 and c in seps:
            out.append((text[start:i], start))
            start = i + 1
    if text[start:].strip():
        out.append((text[start:], start))
    return out


def matching_close(text: str, i: int, lang: str) -> int:
    """Index of the bracket closing the one at text[i]."""
    depth = 0
    for k, c in _code_chars(text, i, lang):
        if c in "([{":
            depth += 1
        elif c in ")]}":
            depth -= 1
            if depth == 0:
                return k
    raise LexError("unbalanced brackets")


# ---------------------------------------------------------------------------------------------
# gosec: testutils/g*_samples.go — []CodeSample{{[]string{`code`}, <issues>, gosec.NewConfig()}}


def read_gosec(snap: Snapshot):
    for path in snap.ls("testutils"):
        m = re.fullmatch(r"testutils/g(\d{3})_samples\.go", path)
        if not m:
            continue
        text = snap.read(path)
        # The variable names say which rule runs on which list (SampleCodeG104Audit etc.).
        var_at = [(v.start(), v.group(1)) for v in re.finditer(r"\b(SampleCodeG\d{3}\w*)\s*=", text)]
        for hit in re.finditer(r"\{\s*(?:Code:\s*)?\[\]string\{", text):
            var = [v for pos, v in var_at if pos < hit.start()]
            if not var:
                continue
            var = var[-1]
            rule = re.match(r"SampleCode(G\d{3})", var).group(1)
            i = hit.end()
            codes = []
            while True:
                r = parse_go_string_expr(text, i)
                if not r:
                    break
                codes.append(r[0])
                i = r[1]
                while text[i] in " \t\n":
                    i += 1
                if text[i] == ",":
                    i += 1
            while text[i] in " \t\n":
                i += 1
            if not codes or text[i] != "}":
                continue
            tail = re.match(r"\}\s*,\s*(?:Errors:\s*)?(\d+)\s*,\s*(?:Config:\s*)?(gosec\.NewConfig\(\)|"
                            r"gosec\.Config\{gosec\.Globals: map\[gosec\.GlobalOption\]string\{gosec\.Audit: "
                            r"\"enabled\"\}\})\s*,?\s*\}", text[i:])
            if not tail:
                yield _dropped(snap, rule, path, text, hit.start(), i, "go", "non-default configuration")
                continue
            audit = "Audit" in tail.group(2)
            if audit != var.endswith("Audit"):
                continue
            if len(codes) > 1:
                yield _dropped(snap, rule, path, text, hit.start(), i, "go", "sample of several files")
                continue
            issues = int(tail.group(1))
            try:
                code = snippet_code(codes[0], "go")
            except LexError as e:
                yield _dropped(snap, rule, path, text, hit.start(), i, "go", f"unreadable: {e}")
                continue
            cfg = " (audit mode)" if audit else ""
            a = text.rfind("\n", 0, text.rfind("\n", 0, hit.start()))
            yield Snippet(snap.repo, rule, path, line_of(text, hit.start()), line_of(text, i + tail.end()),
                          issues > 0, f"expected {issues}{cfg}", "go", code, family=f"{rule}:{var}",
                          extra={"raw": text[a + 1 : i]})


def _dropped(snap, rule, path, text, a, b, lang, why) -> Snippet:
    return Snippet(snap.repo, rule, path, line_of(text, a), line_of(text, b), False, "", lang, [], note=why)


# ---------------------------------------------------------------------------------------------
# ESLint RuleTester: tester.run("rule", rule, { valid: [...], invalid: [...] })


def _js_array_items(text: str, key: str):
    m = re.search(r"\b" + key + r"\s*:\s*\[", text)
    if not m:
        return
    open_i = m.end() - 1
    close_i = matching_close(text, open_i, "javascript")
    body = text[open_i + 1 : close_i]
    for item, off in split_top(body, "javascript"):
        yield item, open_i + 1 + off


def _js_object_code(item: str) -> tuple[str | None, str]:
    """(code, why-not) of a RuleTester object case."""
    inner = item.strip()[1:-1]
    props = {}
    for part, _ in split_top(inner, "javascript"):
        m = re.match(r"\s*(\w+)\s*:\s*(.*)", part, re.S)
        if m:
            props[m.group(1)] = m.group(2)
        elif part.strip():
            return None, "unreadable test case"
    for k in ("options", "settings", "filename", "only"):
        if k in props:
            return None, f"test case with {k}"
    if "code" not in props:
        return None, "no code"
    code = js_string_expr(props["code"])
    if code is None:
        return None, "code is not a string literal"
    return code, ""


def read_rule_tester(snap: Snapshot, path: str, rule: str, lang: str = "javascript"):
    text = snap.read(path)
    for key, risky in (("valid", False), ("invalid", True)):
        for item, off in _js_array_items(text, key):
            s = item.strip()
            if s.startswith("{"):
                code, why = _js_object_code(s)
            elif s.startswith("..."):
                code, why = None, "spread"
            else:
                code = js_string_expr(s)
                why = "" if code is not None else "not a string literal"
            a = off + (len(item) - len(item.lstrip()))
            start, end = line_of(text, a), line_of(text, off + len(item.rstrip()))
            if code is None:
                yield Snippet(snap.repo, rule, path, start, end, risky, "", lang, [], note=why)
                continue
            try:
                lines = snippet_code(code, lang)
                stripped_changed = has_comments(code, lang)
            except LexError as e:
                yield Snippet(snap.repo, rule, path, start, end, risky, "", lang, [], note=f"unreadable: {e}")
                continue
            raw = "\n".join(text.split("\n")[max(0, start - 3) : end])
            yield Snippet(snap.repo, rule, path, start, end, risky, "invalid" if risky else "valid", lang, lines,
                          family=f"{rule}:{path}", extra={"had_comments": stripped_changed, "raw": raw})


# ---------------------------------------------------------------------------------------------
# RuboCop specs: expect_offense(<<~RUBY) ... RUBY / expect_no_offenses(<<~RUBY) ... RUBY


def read_rubocop_spec(snap: Snapshot, path: str, rule: str):
    text = snap.read(path)
    lines = text.split("\n")
    # Scopes that set a cop configuration: from the enclosing `context`/`describe` line to its end.
    configured = set()
    for i, l in enumerate(lines):
        m = re.match(r"(\s*)let\(:(cop_config|config|other_cops)\)", l)
        if not m:
            continue
        # Turning `Allow...` options off only makes the cop stricter than its default: an
        # offense is still an offense and a non-offense still one for our axes.
        if re.fullmatch(r"\s*let\(:cop_config\)\s*\{\s*\{\s*('Allow\w+'\s*=>\s*false\s*,?\s*)+\}\s*\}\s*", l):
            continue
        ind = len(m.group(1))
        if ind <= 2:
            configured.update(range(len(lines)))
            continue
        k = i - 1
        while k >= 0 and not (re.match(r"\s*", lines[k]).end() == ind - 2 and lines[k].rstrip().endswith("do")):
            k -= 1
        e = i + 1
        while e < len(lines) and not (lines[e].strip() == "end" and re.match(r"\s*", lines[e]).end() == ind - 2):
            e += 1
        configured.update(range(k, e + 1))
    pat = re.compile(r"expect_(offense|no_offenses)\(<<~(['\"]?)(RUBY)\2(.*)$")
    for i, l in enumerate(lines):
        m = pat.search(l)
        if not m:
            continue
        risky = m.group(1) == "offense"
        j = i + 1
        while j < len(lines) and lines[j].strip() != "RUBY":
            j += 1
        body = lines[i + 1 : j]
        why = ""
        if i in configured:
            why = "configured cop"
        elif m.group(4).strip() not in (")", ""):
            why = "templated expectation"
        elif m.group(2) != "'" and "#{" in "\n".join(body):
            why = "interpolated heredoc"
        elif any(re.search(r"[%^_]\{", b) for b in body):
            why = "templated expectation"
        if why:
            yield Snippet(snap.repo, rule, path, i + 1, j + 1, risky, "", "ruby", [], note=why)
            continue
        code = [b for b in body if not re.match(r"\s*\^+(\s.*)?$", b)]
        src = "\n".join(code)
        if m.group(2) != "'":
            src = src.replace("\\\\", "\\")
        try:
            out = snippet_code(src, "ruby")
            had = has_comments(src, "ruby")
        except LexError as e:
            yield Snippet(snap.repo, rule, path, i + 1, j + 1, risky, "", "ruby", [], note=f"unreadable: {e}")
            continue
        k = i
        while k > 0 and not re.match(r"\s*(it|specify|context|describe)\b", lines[k]):
            k -= 1
        yield Snippet(snap.repo, rule, path, i + 1, j + 1, risky,
                      "expect_offense" if risky else "expect_no_offenses", "ruby", out,
                      family=f"{rule}:{path}", extra={"had_comments": had, "raw": "\n".join(lines[k : j + 1])})


# ---------------------------------------------------------------------------------------------
# PMD rule tests: <test-code><expected-problems>N</expected-problems><code>...</code></test-code>


def read_pmd(snap: Snapshot, path: str, rule: str, lang: str):
    text = snap.read(path)
    root = ET.fromstring(text.encode("utf-8"))
    ns = "{http://pmd.sourceforge.net/rule-tests}"
    frags = {f.get("id"): f.text or "" for f in root.iter(ns + "code-fragment")}
    # Line numbers: the n-th <test-code> opening tag.
    starts = [m.start() for m in re.finditer(r"<test-code\b", text)]
    for n, tc in enumerate(root.iter(ns + "test-code")):
        start = line_of(text, starts[n]) if n < len(starts) else 0
        endpos = text.find("</test-code>", starts[n]) if n < len(starts) else -1
        end = line_of(text, endpos) if endpos >= 0 else start
        exp = tc.find(ns + "expected-problems")
        if exp is None:
            continue
        problems = int(exp.text.strip())
        why = ""
        if tc.get("disabled") == "true" or tc.get("regressionTest") == "false":
            why = "disabled test"
        elif tc.find(ns + "rule-property") is not None:
            why = "configured rule"
        code_el = tc.find(ns + "code")
        if code_el is not None:
            code = code_el.text or ""
        else:
            ref = tc.find(ns + "code-ref")
            code = frags.get(ref.get("id"), "") if ref is not None else ""
        if not code.strip():
            why = why or "no code"
        if why:
            yield Snippet(snap.repo, rule, path, start, end, problems > 0, "", lang, [], note=why)
            continue
        try:
            lines = snippet_code(code, lang)
            had = has_comments(code, lang)
        except LexError as e:
            yield Snippet(snap.repo, rule, path, start, end, problems > 0, "", lang, [], note=f"unreadable: {e}")
            continue
        desc = tc.find(ns + "description")
        raw = ((desc.text or "") if desc is not None else "") + "\n" + code
        yield Snippet(snap.repo, rule, path, start, end, problems > 0, f"expected-problems {problems}", lang, lines,
                      family=f"{rule}:{path}", extra={"had_comments": had, "raw": raw})


# ---------------------------------------------------------------------------------------------
# psalm: tests/TaintTest.php providers: 'name' => ['code' => '<?php ...', 'error_message' => 'TaintedX']


def _php_sq(text: str, i: int) -> tuple[str, int]:
    """A PHP single-quoted string at text[i]: only \\' and \\\\ are escapes."""
    assert text[i] == "'"
    out, j = [], i + 1
    while True:
        c = text[j]
        if c == "\\" and text[j + 1] in "'\\":
            out.append(text[j + 1])
            j += 2
            continue
        if c == "'":
            return "".join(out), j + 1
        out.append(c)
        j += 1


def read_psalm(snap: Snapshot, path: str = "tests/TaintTest.php"):
    text = snap.read(path)
    valid_at = text.index("function providerValidCodeParse")
    invalid_at = text.index("function providerInvalidCodeParse")
    for m in re.finditer(r"\n\s*'([^'\n]+)' => \[\s*\n\s*'code' => '", text):
        code, j = _php_sq(text, m.end() - 1)
        close = matching_close(text, text.index("[", m.start()), "php")
        entry = text[j:close]
        start, end = line_of(text, m.start() + 1), line_of(text, close)
        in_valid = valid_at < m.start() < invalid_at if valid_at < invalid_at else m.start() > valid_at
        em = re.search(r"'error_message' => '(\w+)", entry)
        if in_valid == bool(em):
            continue
        rule = em.group(1) if em else ""
        why = ""
        if re.search(r"@psalm-(taint|assert-untainted|flow)|@psalm-suppress", code):
            why = "label depends on a psalm annotation"
        elif re.search(r"'(ignored_issues|php_version)'", entry):
            why = "configured test"
        elif "SKIPPED-" in m.group(1):
            why = "skipped test"
        if why:
            yield Snippet(snap.repo, rule or "valid", path, start, end, bool(em), "", "php", [], note=why)
            continue
        try:
            lines = snippet_code(code, "php")
        except LexError as e:
            yield Snippet(snap.repo, rule or "valid", path, start, end, bool(em), "", "php", [], note=f"unreadable: {e}")
            continue
        yield Snippet(snap.repo, rule or "valid", path, start, end, bool(em),
                      f"error_message {rule}" if em else "valid code", "php", lines,
                      family=f"{path}", ruleless=not em, extra={"raw": m.group(1) + "\n" + code})


# ---------------------------------------------------------------------------------------------
# Roslyn analyzers: VerifyCS.VerifyAnalyzerAsync(@"code", GetCSharpResultAt(...), ...)

CS_CALL = re.compile(r"\b(VerifyCS\.VerifyAnalyzerAsync|VerifyCSharpWithDependenciesAsync|VerifyCSharpAnalyzerAsync"
                     r"|VerifyCSharpAsync|VerifyCSharpWithJsonNetAsync)\(")
CS_MARKUP = re.compile(r"\{\|(#\d+|[A-Z]+\d+)?:|\|\}|\[\||\|\]")


def _cs_literal(arg: str) -> str | None:
    a = arg.strip()
    if a.startswith('@"') and a.endswith('"'):
        return a[2:-1].replace('""', '"')
    m = re.fullmatch(r'("{3,})(.*)\1', a, re.S)
    if m:
        body = m.group(2)
        if body.startswith("\n"):
            body = body[1:]
        lines = body.split("\n")
        ind = len(lines[-1]) if not lines[-1].strip() else 0
        return "\n".join(l[ind:] for l in lines[:-1])
    return None


def read_roslyn(snap: Snapshot, path: str, rule: str):
    text = snap.read(path)
    for m in CS_CALL.finditer(text):
        open_i = m.end() - 1
        try:
            close_i = matching_close(text, open_i, "csharp")
        except LexError:
            continue
        args = split_top(text[open_i + 1 : close_i], "csharp")
        start, end = line_of(text, m.start()), line_of(text, close_i)
        if not args:
            continue
        if m.group(1) == "VerifyCSharpWithJsonNetAsync":
            args = args[1:]  # (NewtonsoftJsonVersion version, source, expected...)
            if not args:
                continue
        code = _cs_literal(args[0][0])
        rest = ["\n".join(l for l in strip_comments(a, "csharp") if l).strip() for a, _ in args[1:]]
        if code is None:
            yield Snippet(snap.repo, rule, path, start, end, False, "", "csharp", [], note="code is not a literal")
            continue
        expected = sum(1 for a in rest if re.match(r"(Get\w*Result\w*|VerifyCS\.Diagnostic|new DiagnosticResult)\b", a))
        markup = len(re.findall(r"\[\||\{\|CA\d+:", code))
        if expected != len(rest):
            yield Snippet(snap.repo, rule, path, start, end, False, "", "csharp", [], note="unrecognised argument")
            continue
        if re.search(r"\{\|(CS|BC)\d+:", code):
            yield Snippet(snap.repo, rule, path, start, end, False, "", "csharp", [], note="code that does not compile")
            continue
        total = expected + markup
        code = CS_MARKUP.sub("", code)
        try:
            lines = snippet_code(code, "csharp")
            had = has_comments(code, "csharp")
        except LexError as e:
            yield Snippet(snap.repo, rule, path, start, end, total > 0, "", "csharp", [], note=f"unreadable: {e}")
            continue
        what = f"{total} expected diagnostic{'s' if total != 1 else ''}" if total else "no diagnostics"
        names = re.findall(r"\b(?:Task|void)\s+(\w+)\s*\(", text[: m.start()])
        raw = (names[-1] if names else "") + "\n" + text[m.start() : close_i]
        yield Snippet(snap.repo, rule, path, start, end, total > 0, what, "csharp", lines,
                      family=f"{rule}:{path}", extra={"had_comments": had, "raw": raw, "expected": "\n".join(rest)})


# ---------------------------------------------------------------------------------------------
# Fixture files with per-line expectations: units are the file's top-level items.


def python_units(text: str):
    """(start, end) 1-based line ranges of the top-level statements of a Python module, with
    decorators; imports, `from __future__`, docstrings and `if TYPE_CHECKING` blocks are left
    to the context."""
    tree = ast.parse(text)
    for node in tree.body:
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            continue
        if isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant) and isinstance(node.value.value, str):
            continue
        start = min([node.lineno] + [d.lineno for d in getattr(node, "decorator_list", [])])
        yield start, node.end_lineno


CONTEXT_ITEM = re.compile(
    r"\s*(package\s|import\s|import\(|use\s|extern\s+crate|mod\s+\w+\s*;|#!\[|namespace\s|<\?php|declare\s*\(|"
    r"(pub(\([^)]*\))?\s+)?(struct|enum|trait|type|union|const|static|impl|macro_rules!)\b|type\s|var\s*\(|const\s*\()")
ATTRIBUTE = re.compile(r"\s*(#\[[^\]]*\]\s*|@\w+(\([^)]*\))?\s*)+$")


def brace_units(lines: list[str], lang: str, flagged: set[int], descend: bool = True):
    """Top-level items of a brace language file as (start, end) 1-based ranges. An item is a run
    of lines from a non-blank line at depth 0 until the depth is back to 0 at a line end;
    attribute lines join the item they precede. Declarations (package, imports, types, impls,
    constants) stay in the context unless they hold a flagged line. When `descend` and an item
    holds flagged lines in two or more blank-line separated groups, its body is split into
    such groups (its opening and closing lines stay in the context)."""
    deltas = depth_deltas(lines, lang)
    items = []
    i, n = 0, len(lines)
    pending = None
    while i < n:
        if not lines[i].strip():
            i += 1
            continue
        depth, j = 0, i
        while True:
            depth += deltas[j]
            if depth <= 0 or j == n - 1:
                break
            j += 1
        if ATTRIBUTE.match(lines[i]) and j == i:
            pending = i if pending is None else pending
            i = j + 1
            continue
        items.append((i if pending is None else pending, j))
        pending = None
        i = j + 1
    for a, b in items:
        hits = [k for k in range(a, b + 1) if k + 1 in flagged]
        if not hits and CONTEXT_ITEM.match(lines[a]):
            continue
        inner = [k for k in hits if a < k < b]
        if len(inner) != len(hits):
            inner = []  # the opening or closing line itself is flagged: keep the item whole
        stmts = _statements(lines, deltas, a + 1, b - 1, lang) if descend and inner and b - a >= 2 else []
        if len(stmts) >= 2:
            for s, e in stmts:
                yield s + 1, e + 1
        else:
            yield a + 1, b + 1


def _statements(lines, deltas, a, b, lang) -> list[tuple[int, int]]:
    """The statements within lines [a, b] (0-based): runs of lines that end where the bracket
    depth is back to where it started and the line ends a statement. [] when the lines are
    not a plain block body."""
    out = []
    k = a
    while k <= b:
        if not lines[k].strip():
            k += 1
            continue
        start, depth = k, 0
        while k <= b:
            depth += deltas[k]
            if depth < 0:
                return []
            tail = lines[k].rstrip()
            ends = tail.endswith((";", "}")) if lang != "go" else not tail.endswith((",", "(", ".", "+", "&&", "||"))
            if depth == 0 and (ends or k == b):
                break
            k += 1
        if k > b:
            return []
        out.append((start, k))
        k += 1
    return out


def fixture_units(snap: Snapshot, path: str, rule: str, lang: str, flagged: dict[int, str], text: str | None = None,
                  descend: bool = True, expect: str = "flags"):
    """Units of a fixture file whose flagged lines (1-based, with a note) the tool's test lists."""
    text = snap.read(path) if text is None else text
    raw = text.split("\n")

    def cut(k: int):
        """Keep the first k lines of the fixture only (and their flags)."""
        return raw[:k], "\n".join(raw[:k]), {l: v for l, v in flagged.items() if l <= k}

    if lang == "python":
        # Fixtures may end in syntax newer than this interpreter (t-strings): keep the longest
        # prefix that parses and leave the rest of the file out of every case.
        try:
            ast.parse(text)
        except SyntaxError as e:
            k = (e.lineno or 1) - 1
            while k > 0:
                try:
                    ast.parse("\n".join(raw[:k]))
                    break
                except SyntaxError:
                    k -= 1
            raw, text, flagged = cut(k)
    try:
        stripped = neutralize(strip_comments(text, lang), lang)
    except LexError as e:
        # A fixture may end in deliberately broken code ("live coding"): keep what precedes it.
        stripped = None
        if e.pos is not None and lang != "python":
            raw, text, flagged = cut(text.count("\n", 0, e.pos))
            try:
                stripped = neutralize(strip_comments(text, lang), lang)
            except LexError as e2:
                e = e2
        if stripped is None:
            yield Snippet(snap.repo, rule, path, 1, len(raw), False, "", lang, [], note=f"unreadable: {e}")
            return
    lines = [l if l is not None else "" for l in stripped]
    try:
        if lang == "python":
            ranges = list(python_units(text))
        else:
            ranges = list(brace_units(lines, lang, set(flagged), descend))
    except (SyntaxError, LexError) as e:
        yield Snippet(snap.repo, rule, path, 1, len(raw), False, "", lang, [], note=f"unreadable: {e}")
        return
    in_unit = set()
    for s, e in ranges:
        in_unit.update(range(s, e + 1))
    # Flagged lines outside every unit (an import, a declaration) make the fixture unusable:
    # those lines would show as context in other cases.
    stray = sorted(l for l in flagged if l not in in_unit and stripped[l - 1] not in (None, ""))
    # The driver builds each case's context from this: the file's lines without the units it
    # does not keep as context (see introduced.py, `context_of`).
    filectx = {"base": stripped, "ranges": ranges, "drop_ranges": []}
    suppress = re.compile(r"noqa|nosec|#\[allow\(|#!\[allow\(|@SuppressWarnings|NOPMD|rubocop:disable|"
                          r"eslint-disable|nolint|psalm-suppress|phpcs:ignore|phpcs:disable")
    # Lines under a directive that turns the rule off or configures it (PHPCS `phpcs:disable`
    # .. `phpcs:enable`, `phpcs:set` to the end of the file) carry no default expectation.
    off, state = set(), None
    for k, l in enumerate(raw):
        if re.search(r"phpcs:(disable|set)\b", l):
            state = "set" if "phpcs:set" in l else (state or "disable")
        elif re.search(r"phpcs:enable\b", l) and state == "disable":
            state = None
        if state:
            off.add(k + 1)
    for s, e in ranges:
        hit = sorted(l for l in flagged if s <= l <= e)
        code = clean_lines_keep_indent(stripped[s - 1 : e])
        why = ""
        if any(suppress.search(raw[k]) for k in range(s - 1, e)):
            why = "suppression comment in the unit"
        elif any(k in off for k in range(s, e + 1)):
            why = "rule disabled or configured here"
        elif stray:
            why = f"flagged line(s) outside any unit: {stray[:3]}"
        elif not code:
            why = "no code"
        label = f"{expect} line {hit[0]}" if hit else f"{expect} no line in {s}-{e}"
        k = s - 1
        while k > 0 and stripped[k - 1] is None:
            k -= 1
        yield Snippet(snap.repo, rule, path, s, e, bool(hit), "" if why else label, lang, code,
                      context=(s, e), family=f"{rule}:{path}", note=why,
                      extra={"file": filectx, "raw": "\n".join(raw[k:e])})


def clean_lines_keep_indent(lines: list[str | None]) -> list[str]:
    """Drop comment-only lines (None), trim blank lines at both ends, collapse blank runs."""
    kept = [l for l in lines if l is not None]
    while kept and not kept[0].strip():
        kept.pop(0)
    while kept and not kept[-1].strip():
        kept.pop()
    out: list[str] = []
    for l in kept:
        if not l.strip() and out and not out[-1].strip():
            continue
        out.append(l if l.strip() else "")
    return out


# ruff: crates/ruff_linter/src/rules/<plugin>/snapshots/ruff_linter__rules__<plugin>__tests__<CODE>_<file>.snap

def ruff_flagged(snap_text: str, fixture_name: str) -> dict[int, str]:
    out = {}
    for m in re.finditer(r"^\s*-->\s+(\S+):(\d+):(\d+)", snap_text, re.M):
        if m.group(1).split("/")[-1] == fixture_name:
            out[int(m.group(2))] = "snapshot"
    for m in re.finditer(r"^(\S+\.pyi?):(\d+):(\d+): ", snap_text, re.M):
        if m.group(1).split("/")[-1] == fixture_name:
            out[int(m.group(2))] = "snapshot"
    return out


def read_ruff(snap: Snapshot, plugin: str, code: str, fixture: str):
    snap_path = (f"crates/ruff_linter/src/rules/{plugin}/snapshots/"
                 f"ruff_linter__rules__{plugin}__tests__{code}_{fixture}.snap")
    fix_dir = {"pylint": "pylint", "ruff": "ruff"}.get(plugin, plugin)
    path = f"crates/ruff_linter/resources/test/fixtures/{fix_dir}/{fixture}"
    flagged = ruff_flagged(snap.read(snap_path), fixture)
    yield from fixture_units(snap, path, code, "python", flagged, expect="snapshot flags")


# clippy: tests/ui/<name>.rs with tests/ui/<name>.stderr

def read_clippy(snap: Snapshot, name: str, lint: str):
    path = f"tests/ui/{name}.rs"
    err = snap.read(f"tests/ui/{name}.stderr")
    flagged = {}
    # Every primary location of an error block counts; clippy UI tests run the named lint.
    for m in re.finditer(r"^(?:error|warning)[^\n]*\n\s*-->\s+tests/ui/([\w./-]+):(\d+):\d+", err, re.M):
        if m.group(1) == f"{name}.rs":
            flagged[int(m.group(2))] = "stderr"
    yield from fixture_units(snap, path, lint, "rust", flagged, expect="stderr flags")


# analysistest fixtures: `// want "..."` on the flagged line (Go)

def read_want(snap: Snapshot, path: str, rule: str, lang: str = "go", descend: bool = False):
    """`descend`: split functions holding several cases into statements (errcheck); bodyclose
    keeps whole functions, since whether a body is closed is a property of the function."""
    text = snap.read(path)
    flagged = {i + 1: "want" for i, l in enumerate(text.split("\n")) if re.search(r"//\s*want\s+[\"`]", l)}
    yield from fixture_units(snap, path, rule, lang, flagged, text=text, descend=descend, expect="want marker on")


# PHP_CodeSniffer / WPCS: <Sniff>UnitTest.inc with getErrorList()/getWarningList() in <Sniff>UnitTest.php

def phpcs_expected(php: str, which: str = "both") -> dict[str, dict[int, int]]:
    """{'': {line: count}} or, when the lists switch on the test file name, {file: {line: count}}."""
    out: dict[str, dict[int, int]] = {}
    for fn in ("getErrorList", "getWarningList"):
        m = re.search(r"function " + fn + r"\s*\(([^)]*)\)[^{]*\{", php)
        if not m:
            continue
        body = php[m.end() : matching_close(php, m.end() - 1, "php")]
        cases = re.split(r"\bcase\s+'([^']+)'\s*:", body)
        if len(cases) == 1:
            chunks = [("", body)]
        else:
            chunks = [(cases[k], cases[k + 1]) for k in range(1, len(cases), 2)]
        for name, chunk in chunks:
            d = out.setdefault(name, {})
            for ln, cnt in re.findall(r"(\d+)\s*=>\s*(\d+)", chunk):
                d[int(ln)] = d.get(int(ln), 0) + int(cnt)
    return out


def read_phpcs(snap: Snapshot, test_base: str, rule: str):
    """A PHPCS sniff's test files `<test_base>.inc` / `<test_base>.<n>.inc`, labeled by the
    error and warning lists of `<test_base>.php` (per test file when the lists switch on it)."""
    php = snap.read(test_base + ".php")
    expected = phpcs_expected(php)
    folder = test_base.rsplit("/", 1)[0]
    stem = test_base.rsplit("/", 1)[1]
    for path in snap.ls(folder):
        name = path.rsplit("/", 1)[1]
        if not re.fullmatch(re.escape(stem) + r"(\.\d+)?\.inc", name):
            continue
        flagged_counts = expected.get(name, expected.get("", {}))
        flagged = {l: f"{n} expected" for l, n in flagged_counts.items() if n > 0}
        text = snap.read(path)
        yield from fixture_units(snap, path, rule, "php", flagged, text=text, expect="error/warning list has")


# error-prone: CompilationTestHelper tests; .addSourceLines("File.java", <lines or a text block>)
# or .addSourceFile("testdata/X.java"); `// BUG: Diagnostic contains:` marks the next line.

def _java_literal(arg: str) -> str | None:
    a = arg.strip()
    if a.startswith('"""'):
        body = a[3:-3]
        if body.startswith("\n"):
            body = body[1:]
        lines = body.split("\n")
        ind = min((len(l) - len(l.lstrip()) for l in lines if l.strip()), default=0)
        if not lines[-1].strip():
            ind = min(ind, len(lines[-1]))
            lines = lines[:-1]
        text = "\n".join(l[ind:] for l in lines) + "\n"
        return text.replace("\\\n", "").replace('\\"', '"').replace("\\\\", "\\")
    m = re.fullmatch(r'"((?:\\.|[^"\\\n])*)"', a)
    if not m:
        return None
    try:
        return json.loads('"' + m.group(1).replace("\\'", "'") + '"')
    except ValueError:
        return None


def read_errorprone(snap: Snapshot, path: str, rule: str):
    text = snap.read(path)
    folder = path.rsplit("/", 1)[0]
    for m in re.finditer(r"\.(addSourceLines|addSourceFile)\(", text):
        open_i = m.end() - 1
        close_i = matching_close(text, open_i, "java")
        args = split_top(text[open_i + 1 : close_i], "java")
        # The helper chain this call belongs to: flags or expected messages configure the check.
        chain_end = text.find(".doTest()", close_i)
        chain_start = text.rfind(";", 0, m.start())
        chain = text[chain_start:chain_end]
        start, end = line_of(text, m.start()), line_of(text, close_i)
        if m.group(1) == "addSourceFile":
            name = _java_literal(args[0][0]) if args else None
            if not name:
                continue
            try:
                code = snap.read(f"{folder}/{name}")
            except RuntimeError:
                continue
            src_path = f"{folder}/{name}"
            offset = 0
        else:
            parts = [_java_literal(a) for a, _ in args[1:]]
            if not parts or any(p is None for p in parts):
                yield Snippet(snap.repo, rule, path, start, end, False, "", "java", [],
                              note="source lines are not literals")
                continue
            block = len(args) == 2 and args[1][0].strip().startswith('"""')
            code = parts[0] if block else "\n".join(parts) + "\n"
            src_path = path
            first = open_i + 1 + args[1][1] + (len(args[1][0]) - len(args[1][0].lstrip()))
            offset = line_of(text, first) - (0 if block else 1)
        if re.search(r"\.(setArgs|expectErrorMessage|matchAllDiagnostics|withClasspath)\(", chain):
            yield Snippet(snap.repo, rule, path, start, end, False, "", "java", [], note="configured check")
            continue
        lines = code.split("\n")
        flagged = {}
        for i, l in enumerate(lines):
            if re.search(r"//\s*BUG: Diagnostic (contains|matches)", l):
                k = i + 1
                while k < len(lines) and re.match(r"\s*//", lines[k]):
                    k += 1
                flagged[k + 1] = "BUG marker"
        off = offset if src_path == path else 0
        for sn in fixture_units(snap, src_path, rule, "java", flagged, text=code, expect="BUG marker before"):
            # Lines count in the test file; the unit's range within the code stays in `context`.
            sn.start, sn.end = sn.start + off, sn.end + off
            sn.family = f"{rule}:{path}"
            yield sn
