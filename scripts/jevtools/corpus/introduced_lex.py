"""Language-aware text helpers for scripts/jevtools/corpus/introduced.py (stdlib only).

- `strip_comments(text, lang)`: remove comments without touching strings, keeping one output
  entry per input line (None for a line that held only a comment), so line numbers of a
  fixture stay valid. Test fixtures carry their labels in comments ("# OK", "// BAD",
  `//~^ lint`, `// want "..."`, "Insecure minimum version"), which a scorer must not read.
- `depth_deltas(lines, lang)`: bracket depth change per line, ignoring strings and comments.
- `neutralize(lines, lang)`: rename declared identifiers whose words say the label.

The lexers are small hand-written scanners, not parsers; Python uses the standard `tokenize`.
Anything they cannot read raises LexError and the caller drops the fixture.
"""
from __future__ import annotations

import hashlib
import io
import re
import tokenize


class LexError(Exception):
    def __init__(self, msg: str, pos: int | None = None):
        super().__init__(msg)
        self.pos = pos


# Line comment tokens, block comment delimiters and string forms per language.
LINE_COMMENTS = {
    "go": ("//",), "rust": ("//",), "java": ("//",), "csharp": ("//",), "javascript": ("//",),
    "typescript": ("//",), "apex": ("//",), "php": ("//", "#"), "ruby": ("#",), "python": ("#",),
}
BLOCK_COMMENTS = {"go", "rust", "java", "csharp", "javascript", "typescript", "apex", "php"}
IDENT = re.compile(r"[A-Za-z0-9_]")


def _python_strip(text: str) -> list[str | None]:
    lines = text.split("\n")
    cut: dict[int, int] = {}  # line index -> column where a comment starts
    try:
        for tok in tokenize.generate_tokens(io.StringIO(text).readline):
            if tok.type == tokenize.COMMENT:
                cut[tok.start[0] - 1] = tok.start[1]
    except (tokenize.TokenError, IndentationError, SyntaxError) as e:
        raise LexError(str(e)) from e
    out: list[str | None] = []
    for i, line in enumerate(lines):
        if i in cut:
            code = line[: cut[i]].rstrip()
            out.append(code if code.strip() else None)
        else:
            out.append(line.rstrip())
    return out


def strip_comments(text: str, lang: str) -> list[str | None]:
    """One entry per line of `text`: the line without comments and trailing blanks, or None
    when the line held a comment and nothing else. Blank lines stay ""."""
    if lang == "python":
        return _python_strip(text)
    line_toks = LINE_COMMENTS[lang]
    block = lang in BLOCK_COMMENTS
    n = len(text)
    i = 0
    code: list[list[str]] = [[]]
    had_comment = [False]

    def emit(s: str) -> None:
        parts = s.split("\n")
        code[-1].append(parts[0])
        for p in parts[1:]:
            code.append([p])
            had_comment.append(False)

    def mark_comment() -> None:
        had_comment[-1] = True

    prev_sig = ""  # last significant code character (for JS regex detection)
    while i < n:
        c = text[i]
        two = text[i : i + 2]
        # Line comments.
        if any(text.startswith(t, i) for t in line_toks) and not (lang == "php" and two == "#["):
            j = text.find("\n", i)
            j = n if j < 0 else j
            mark_comment()
            i = j
            continue
        # Block comments (Rust nests them).
        if block and two == "/*":
            depth, j = 1, i + 2
            while j < n and depth:
                if lang == "rust" and text.startswith("/*", j):
                    depth, j = depth + 1, j + 2
                elif text.startswith("*/", j):
                    depth, j = depth - 1, j + 2
                else:
                    j += 1
            if depth:
                raise LexError("unterminated block comment")
            mark_comment()
            nl = text.count("\n", i, j)
            for _ in range(nl):
                code.append([])
                had_comment.append(True)
            i = j
            continue
        # Ruby =begin/=end at line start.
        if lang == "ruby" and text.startswith("=begin", i) and (i == 0 or text[i - 1] == "\n"):
            j = text.find("\n=end", i)
            if j < 0:
                raise LexError("unterminated =begin")
            j = text.find("\n", j + 1)
            j = n if j < 0 else j
            mark_comment()
            for _ in range(text.count("\n", i, j)):
                code.append([])
                had_comment.append(True)
            i = j
            continue
        # Strings.
        j = _string_end(text, i, lang, prev_sig)
        if j is not None:
            emit(text[i:j])
            prev_sig = "a"
            i = j
            continue
        emit(c)
        if not c.isspace():
            prev_sig = c
        i += 1
    out: list[str | None] = []
    for parts, com in zip(code, had_comment):
        s = "".join(parts).rstrip()
        out.append(None if (com and not s.strip()) else s)
    return out


def _scan_quoted(text: str, i: int, q: str, escapes: bool = True, multiline: bool = True) -> int:
    """Index just past the closing quote `q` of the string opening at text[i] (= q)."""
    j = i + len(q)
    n = len(text)
    while j < n:
        ch = text[j]
        if escapes and ch == "\\":
            j += 2
            continue
        if text.startswith(q, j):
            return j + len(q)
        if ch == "\n" and not multiline:
            raise LexError(f"newline in string at {i}", i)
        j += 1
    raise LexError(f"unterminated string at {i}", i)


def _string_end(text: str, i: int, lang: str, prev_sig: str) -> int | None:
    """If a string, char or regex literal starts at text[i], the index just past it."""
    c = text[i]
    rest = text[i : i + 4]
    if lang == "rust":
        m = re.match(r'b?r(#*)"', text[i:])
        if m and (i == 0 or not IDENT.match(text[i - 1])):
            close = '"' + m.group(1)
            j = text.find(close, i + m.end())
            if j < 0:
                raise LexError("unterminated raw string")
            return j + len(close)
        if c == "b" and text.startswith("b'", i) and (i == 0 or not IDENT.match(text[i - 1])):
            i += 1
            c = "'"
        if c == "'":
            m = re.match(r"'(\\.|\\u\{[0-9a-fA-F]+\}|\\x[0-9a-fA-F]{2}|[^\\'\n])'", text[i:])
            return i + m.end() if m else None  # otherwise a lifetime or label
    if lang == "csharp":
        if text.startswith('"""', i) or text.startswith('$"""', i):
            k = i + (1 if c == "$" else 0)
            m = re.match(r'"{3,}', text[k:])
            close = m.group(0)
            j = text.find(close, k + len(close))
            if j < 0:
                raise LexError("unterminated raw string")
            return j + len(close)
        if rest.startswith('@"') or rest.startswith('$@"') or rest.startswith('@$"'):
            k = text.index('"', i) + 1
            while k < len(text):
                if text.startswith('""', k):
                    k += 2
                    continue
                if text[k] == '"':
                    return k + 1
                k += 1
            raise LexError("unterminated verbatim string")
    if lang == "java" and text.startswith('"""', i):
        j = text.find('"""', i + 3)
        if j < 0:
            raise LexError("unterminated text block")
        return j + 3
    if c == '"':
        return _scan_quoted(text, i, '"', multiline=lang in ("php", "ruby", "go_raw"))
    if c == "'":
        if lang in ("go", "java", "csharp", "apex", "javascript", "typescript", "php", "ruby"):
            return _scan_quoted(text, i, "'", multiline=lang in ("php", "ruby"))
        return None
    if c == "`" and lang == "go":
        j = text.find("`", i + 1)
        if j < 0:
            raise LexError("unterminated raw string")
        return j + 1
    if c == "`" and lang in ("javascript", "typescript"):
        return _scan_quoted(text, i, "`")
    if c == "/" and lang in ("javascript", "typescript") and prev_sig in "(,=:[!&|?{};+-*%<>~^" \
            and text[i + 1 : i + 2] not in ("/", "*"):
        j, in_class = i + 1, False
        while j < len(text):
            ch = text[j]
            if ch == "\\":
                j += 2
                continue
            if ch == "\n":
                return None
            if ch == "[":
                in_class = True
            elif ch == "]":
                in_class = False
            elif ch == "/" and not in_class:
                j += 1
                while j < len(text) and IDENT.match(text[j]):
                    j += 1
                return j
            j += 1
        return None
    return None


def depth_deltas(lines: list[str], lang: str) -> list[int]:
    """Per line, the change in ({[ depth, strings and comments ignored. `lines` must already
    be free of comments (output of strip_comments with None replaced by "")."""
    text = "\n".join(lines)
    deltas = [0] * len(lines)
    line = 0
    i, n = 0, len(text)
    prev_sig = ""
    while i < n:
        c = text[i]
        if c == "\n":
            line += 1
            i += 1
            continue
        if lang == "python":
            m = re.match(r"[rRbBuUfF]{0,2}('''|\"\"\"|'|\")", text[i:])
            if m and (i == 0 or not IDENT.match(text[i - 1])):
                q = m.group(1)
                j = _scan_quoted(text, i + m.start(1), q, multiline=len(q) == 3)
                line += text.count("\n", i, j)
                i = j
                continue
        else:
            j = _string_end(text, i, lang, prev_sig)
            if j is not None:
                line += text.count("\n", i, j)
                i = j
                prev_sig = "a"
                continue
        if c in "({[":
            deltas[line] += 1
        elif c in ")}]":
            deltas[line] -= 1
        if not c.isspace():
            prev_sig = c
        i += 1
    return deltas


def normalize(text: str) -> str:
    """Whitespace-insensitive form of a snippet, for duplicate detection."""
    return re.sub(r"\s+", "", text)


# Identifier parts that say what a fixture expects ("bad_style", "goodFunction", "$tainted",
# "VulnerableWebApp"). Names declared in a snippet are renamed so the code does not carry its
# own label; names it only uses (library APIs such as `yaml.safe_load`, `mark_safe`,
# `InsecureSkipVerify`) are kept, since they are the pattern itself.
LABEL_WORDS = {
    "bad", "good", "safe", "unsafe", "insecure", "secure", "vulnerable", "vuln", "tainted", "untainted", "evil",
    "noncompliant", "compliant", "violation", "violating", "incorrect", "correct", "wrong", "lint", "nolint",
    "negative", "positive", "ok", "okay", "malicious", "dangerous", "leaky", "should", "fp", "tp", "flagged",
    "unflagged", "exploit", "attacker",
}
NEUTRAL = ["alpha", "beta", "gamma", "delta", "kappa", "sigma", "omega", "theta", "zeta", "tau"]
DECL = {
    "python": [r"\bdef\s+(\w+)", r"\bclass\s+(\w+)", r"^\s*(\w+)\s*(?::[^=]+)?=(?!=)", r"\bfor\s+(\w+)\s+in\b",
               r"\bas\s+(\w+)"],
    "ruby": [r"\bdef\s+(?:self\.)?(\w+[?!]?)", r"\b(?:class|module)\s+(\w+)", r"^\s*(\w+)\s*=(?!=)"],
    "rust": [r"\bfn\s+(\w+)", r"\blet\s+(?:mut\s+)?(\w+)", r"\b(?:struct|enum|trait|mod|type|const|static)\s+(\w+)"],
    "go": [r"\bfunc\s+(?:\([^)]*\)\s*)?(\w+)", r"\b(\w+)(?:\s*,\s*\w+)*\s*:=", r"\b(?:var|type|const)\s+(\w+)"],
    "javascript": [r"\bfunction\s*\*?\s*(\w+)", r"\b(?:var|let|const)\s+(\w+)", r"\bclass\s+(\w+)"],
    "typescript": [r"\bfunction\s*\*?\s*(\w+)", r"\b(?:var|let|const)\s+(\w+)", r"\b(?:class|interface|type)\s+(\w+)"],
    "php": [r"\bfunction\s+&?(\w+)", r"\b(?:class|interface|trait)\s+(\w+)", r"(\$\w+)\s*=(?!=)"],
}
_JAVA_LIKE = [r"\b(?:class|interface|enum|record|struct|namespace)\s+([\w.]+)",
              r"^\s*(?:(?:public|private|protected|internal|static|final|abstract|virtual|override|async|"
              r"global|with sharing|without sharing|webservice|testmethod)\s+)*[\w<>\[\],.?]+\s+(\w+)\s*\(",
              r"^\s*(?:final\s+)?[\w<>\[\],.?]+\s+(\w+)\s*=(?!=)"]
DECL["java"] = DECL["csharp"] = DECL["apex"] = _JAVA_LIKE
# Parameter lists of function signatures, and the parameter names in them.
_JAVA_SIG = (r"^\s*(?:(?:public|private|protected|internal|static|final|abstract|virtual|override|async|global)\s+)*"
             r"[\w<>\[\],.?]+\s+\w+\s*\(([^)]*)\)", r"(\w+)\s*(?:=[^,]*)?(?:,|$)")
SIGNATURES = {
    "python": (r"\bdef\s+\w+\s*\(([^)]*)\)", r"(?:^|,)\s*\**(\w+)"),
    "ruby": (r"\bdef\s+(?:self\.)?\w+[?!]?\s*\(([^)\n]*)\)", r"(?:^|,)\s*[*&]*(\w+)"),
    "rust": (r"\bfn\s+\w+(?:<[^>]*>)?\s*\(([^)]*)\)", r"(?:^|,)\s*(?:mut\s+)?(\w+)\s*:"),
    "go": (r"\bfunc\s+(?:\([^)]*\)\s*)?\w*\s*\(([^)]*)\)", r"(?:^|,)\s*(\w+)\s+[\w*.\[\]]"),
    "javascript": (r"\bfunction\s*\*?\s*\w*\s*\(([^)]*)\)", r"(?:^|,)\s*(?:\.\.\.)?(\w+)"),
    "typescript": (r"\bfunction\s*\*?\s*\w*\s*\(([^)]*)\)", r"(?:^|,)\s*(?:\.\.\.)?(\w+)"),
    "php": (r"\bfunction\s+&?\w*\s*\(([^)]*)\)", r"(\$\w+)"),
    "java": _JAVA_SIG, "csharp": _JAVA_SIG, "apex": _JAVA_SIG,
}
KEYWORDS = {"new", "return", "else", "case", "throw", "await", "yield", "in", "is", "as", "var", "let"}


def _parts(ident: str) -> list[str]:
    return re.findall(r"[A-Z]+(?![a-z])|[A-Z]?[a-z]+|\d+|_+|\$", ident)


def neutralize(lines: list[str | None], lang: str) -> list[str | None]:
    """Rename identifiers declared in `lines` whose parts are label words (see LABEL_WORDS)."""
    text = "\n".join(l for l in lines if l is not None)
    declared = set()
    for pat in DECL.get(lang, []):
        for m in re.finditer(pat, text, re.M):
            for name in m.group(1).split("."):
                declared.add(name)
    sig, param = SIGNATURES.get(lang, (None, None))
    if sig:
        for m in re.finditer(sig, text, re.M):
            declared.update(re.findall(param, m.group(1).strip()))
    rename = {}
    taken = set(re.findall(r"\$?\w+", text))
    for name in sorted(declared):
        if name in KEYWORDS or not name:
            continue
        parts = _parts(name)
        if not any(p.lower() in LABEL_WORDS for p in parts):
            continue
        h = int(hashlib.sha256(name.encode()).hexdigest()[:8], 16)
        out = []
        for p in parts:
            if p.lower() in LABEL_WORDS:
                w = NEUTRAL[h % len(NEUTRAL)]
                h //= len(NEUTRAL)
                w = w.upper() if p.isupper() and len(p) > 1 else (w.capitalize() if p[:1].isupper() else w)
                out.append(w)
            else:
                out.append(p)
        new = "".join(out)
        if new[:1].isdigit() or new == "$":
            new = ("$v" if name.startswith("$") else "v") + new.lstrip("$")
        k = 2
        base = new
        while new in taken or new in rename.values():
            new = f"{base}{k}"
            k += 1
        rename[name] = new
    if not rename:
        return lines
    pat = re.compile(r"(?<![\w$])(" + "|".join(re.escape(n) for n in sorted(rename, key=len, reverse=True)) + r")(?![\w])")
    return [None if l is None else pat.sub(lambda m: rename[m.group(1)], l) for l in lines]
