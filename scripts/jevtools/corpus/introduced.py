"""Build testdata/introduced/: changes that ADD a known-dangerous pattern, with the matched safe
variants as negatives, from the test fixtures of security linters (issue 24, deliverable 5c).

Usage:
    scripts/corpus introduced                       # write manifest.jsonl and cases.jsonl.gz
    scripts/corpus introduced --check               # rebuild in memory, compare byte for byte
    scripts/corpus introduced --drops               # also print why snippets were left out
    scripts/corpus introduced --discover            # re-scan the mirror folder for real commits

A linter's own tests say which code it flags and which it does not: gosec's samples carry an
expected issue count, ruff's snapshots and clippy's .stderr files list the flagged lines,
RuleTester cases are `valid` or `invalid`, RuboCop specs `expect_offense` or
`expect_no_offenses`, PMD tests `expected-problems`, Roslyn tests their expected diagnostics,
psalm tests an `error_message`. Every label here is that expectation, read mechanically; the
table RULES maps each rule to one category and one axis.

The tables of testdata/introduced/README.md between BEGIN/END markers are written too, and
--check compares them with a rebuild as well.

Each kept snippet becomes a unified diff (made by git in a scratch repository, exactly like
`git diff --no-color -U3 -M50% --src-prefix=a/ --dst-prefix=b/`):
- `add`: the snippet is added, either as a new file (self-contained samples) or into its
  fixture file's remaining lines (imports, helpers), which show as context;
- `edit`: a risky snippet and a safe variant of the same rule differing in a few lines give
  two cases, safe -> risky (risky: the edit introduces the pattern) and risky -> safe (benign).

Needs the snapshots of SOURCES in /work/.mirror (or --mirrors), at the pinned commits.
Python 3.11 standard library only.
"""
from __future__ import annotations

import argparse
import difflib
import gzip
import hashlib
import io
import json
import os
import re
import subprocess
import sys
import tempfile
from collections import Counter, defaultdict

from jevtools.corpus import introduced_commits
from jevtools.corpus import introduced_sources as src
from jevtools.corpus.common import DEFAULT_MIRRORS, GIT_CFG, GIT_ENV, ROOT, is_test, mirror_dir, refuse_blocked
from jevtools.corpus.introduced_lex import normalize
from jevtools.corpus.rules import AXES

OUT_DIR = os.path.join(ROOT, "testdata", "introduced")
COMMITS_JSON = os.path.join(OUT_DIR, "commits.json")

# Source repositories: the pinned snapshot commit, the licence, and the tool's short name.
SOURCES = {
    "securego/gosec": ("45b083a0cb42119d61b1e0e364d8c62c68f6f5cd", "Apache-2.0", "gosec"),
    "astral-sh/ruff": ("fca5c7cf2cd2f8338f18b9485f936b8e9f07bd0b", "MIT", "ruff"),
    "eslint-community/eslint-plugin-security": ("cb8645c3150a52eb400ba08d83fb53528797b652", "Apache-2.0",
                                                "eslint-plugin-security"),
    "eslint/eslint": ("c27bc926e496985eb7911c09eb60914b2e4b5d0f", "MIT", "eslint"),
    "rubocop/rubocop": ("3a42c622171794510e03999c8d55129b73c5dc8f", "MIT", "rubocop"),
    "vimeo/psalm": ("3c67fc53dcdaab8107c214b8cf95c4c5e39489d2", "MIT", "psalm"),
    "WordPress/WordPress-Coding-Standards": ("7ee7992c65e0a5e114d6b6f3062a75b92dfc0c30", "MIT", "wpcs"),
    "pmd/pmd": ("cd096e90e4ed2e61f4109466d21a1eaab09721eb", "BSD-4-Clause-style (PMD licence)", "pmd"),
    "dotnet/roslyn-analyzers": ("d45048f958379c63acfc716136a5e2466f21c5d4", "MIT", "roslyn-analyzers"),
    "rust-lang/rust-clippy": ("e57f468d8f079a7b50627a95121fd16fff8e5bfa", "MIT OR Apache-2.0", "clippy"),
    "timakin/bodyclose": ("857993a2939c1245454bd304459ac3c7e61a98ad", "MIT", "bodyclose"),
    "google/error-prone": ("984f6adb6ab11291d6fc200b18726c35937b0ccb", "Apache-2.0", "error-prone"),
    "rubocop/rubocop-rails": ("a4655cb220eac63e0f1e8fb5f7bd56287e6acb56", "MIT", "rubocop-rails"),
    "typescript-eslint/typescript-eslint": ("56c9ed90d0aee0b5a71cfc39fc76b715b82e3ea8", "MIT", "typescript-eslint"),
    "eslint-community/eslint-plugin-promise": ("e73585efc03ddf17df0273fa3b8dad0b66c51168", "ISC",
                                               "eslint-plugin-promise"),
    "kisielk/errcheck": ("6e4cd893c1d21befe7deebe03e93e8a1d95248c8", "MIT", "errcheck"),
}

# Category -> axis. `weak_crypto` is kept apart so it can be reported on its own.
CATEGORY_AXIS = {
    "verification_disabled": "auth_boundary",
    "permissions_widened": "auth_boundary",
    "credentials_logged": "auth_boundary",
    "weak_crypto": "auth_boundary",
    "access_check_missing": "auth_boundary",
    "injection": "input_validation",
    "unsafe_deserialization": "input_validation",
    "size_limit_removed": "input_validation",
    "error_swallowed": "error_handling",
    "error_unwrapped": "error_handling",
    "resource_leak": "lifecycle",
    "timeout_removed": "lifecycle",
}


class Rule:
    """One tool rule: its category and subcategory, where its fixtures are, and the few
    fixture allowances our axes do not make (safe snippets matching `drop_safe` are left out;
    with `only`, snippets not matching it fall under the next row of the rule or are left
    out; with `risky_only`, risky snippets whose code (or, for Roslyn, expected-diagnostic
    arguments) do not match are left out; with `comments`, snippets whose comments decide
    the label are left out, since comments are removed)."""

    def __init__(self, repo, rule, category, sub, where=None, drop_safe=None, only=None, comments=False, lang=None,
                 id=None, risky_only=None):
        self.repo, self.rule, self.category, self.sub = repo, rule, category, sub
        self.id = id or rule  # rows splitting one tool rule by `only` get their own id
        self.where, self.lang = where, lang
        self.drop_safe = re.compile(drop_safe) if drop_safe else None
        self.only = re.compile(only) if only else None
        self.risky_only = re.compile(risky_only) if risky_only else None
        self.comments = comments

    @property
    def axis(self) -> str:
        return CATEGORY_AXIS[self.category]

    @property
    def group(self) -> str:
        return f"{self.repo}:{self.id}"


G, RF, ESP, ES = "securego/gosec", "astral-sh/ruff", "eslint-community/eslint-plugin-security", "eslint/eslint"
RC, PS, WP, P = "rubocop/rubocop", "vimeo/psalm", "WordPress/WordPress-Coding-Standards", "pmd/pmd"
RA, CL, BC = "dotnet/roslyn-analyzers", "rust-lang/rust-clippy", "timakin/bodyclose"
EP, RR, TS, PR = ("google/error-prone", "rubocop/rubocop-rails", "typescript-eslint/typescript-eslint",
                  "eslint-community/eslint-plugin-promise")
EC = "kisielk/errcheck"
EPB = "core/src/test/java/com/google/errorprone/bugpatterns/"
TSR = "packages/eslint-plugin/tests/rules/"
PMDJ = "pmd-java/src/test/resources/net/sourceforge/pmd/lang/java/rule/"
PMDA = "pmd-apex/src/test/resources/net/sourceforge/pmd/lang/apex/rule/"
RAS = "src/NetAnalyzers/UnitTests/Microsoft.NetCore.Analyzers/Security/"
RAR = "src/NetAnalyzers/UnitTests/Microsoft.NetCore.Analyzers/Runtime/"
RAQ = "src/NetAnalyzers/UnitTests/Microsoft.CodeQuality.Analyzers/"
RAD = "src/NetAnalyzers/UnitTests/Microsoft.NetCore.Analyzers/Data/"
EVAL_NON_LITERAL = r"\b(eval|exec|Function)\s*\(\s*[^'\"\s)]"
RULES = [
    # gosec (Go): testutils/g*_samples.go, each sample with the issue count its rule must report.
    # G104's negatives are all allow-listed calls or `_` discards, which swallow errors by our axes.
    Rule(G, "G104", "error_swallowed", "unchecked error", drop_safe=r"."),
    Rule(G, "G106", "verification_disabled", "ssh host key"),
    Rule(G, "G107", "injection", "url (ssrf)"),
    Rule(G, "G110", "size_limit_removed", "decompression size"),
    Rule(G, "G111", "injection", "file path"),
    Rule(G, "G112", "timeout_removed", "http server timeout"),
    Rule(G, "G114", "timeout_removed", "http server timeout"),
    Rule(G, "G117", "credentials_logged", "secret serialized"),
    Rule(G, "G118", "resource_leak", "goroutine/context"),
    Rule(G, "G120", "size_limit_removed", "request body size"),
    Rule(G, "G121", "verification_disabled", "csrf"),
    Rule(G, "G123", "verification_disabled", "tls"),
    Rule(G, "G201", "injection", "sql"),
    Rule(G, "G202", "injection", "sql"),
    Rule(G, "G203", "injection", "html template"),
    Rule(G, "G204", "injection", "command"),
    Rule(G, "G301", "permissions_widened", "directory mode"),
    Rule(G, "G302", "permissions_widened", "file mode"),
    Rule(G, "G304", "injection", "file path"),
    Rule(G, "G305", "injection", "file path"),
    Rule(G, "G306", "permissions_widened", "file mode"),
    Rule(G, "G307", "permissions_widened", "file mode"),
    Rule(G, "G401", "weak_crypto", "hash"),
    # G402 covers both switched-off verification and weak versions/ciphers: one row each.
    Rule(G, "G402", "verification_disabled", "tls", only=r"InsecureSkipVerify"),
    Rule(G, "G402", "weak_crypto", "tls version/cipher", id="G402-version-cipher"),
    Rule(G, "G403", "weak_crypto", "key size"),
    Rule(G, "G404", "weak_crypto", "random"),
    Rule(G, "G405", "weak_crypto", "cipher"),
    Rule(G, "G406", "weak_crypto", "hash"),
    Rule(G, "G407", "weak_crypto", "nonce/iv"),
    Rule(G, "G408", "verification_disabled", "ssh public key"),
    Rule(G, "G501", "weak_crypto", "hash"),
    Rule(G, "G701", "injection", "sql"),
    Rule(G, "G702", "injection", "command"),
    Rule(G, "G703", "injection", "file path"),
    Rule(G, "G704", "injection", "url (ssrf)"),
    Rule(G, "G705", "injection", "html"),
    Rule(G, "G707", "injection", "smtp"),
    Rule(G, "G708", "injection", "template"),
    Rule(G, "G709", "unsafe_deserialization", "decoder"),
    Rule(G, "G710", "injection", "redirect"),
    # ruff (Python): fixture files and the insta snapshot listing the lines the rule flags.
    Rule(RF, "S103", "permissions_widened", "file mode", ("flake8_bandit", "S103.py")),
    Rule(RF, "S110", "error_swallowed", "except pass", ("flake8_bandit", "S110.py")),
    # SIM105 accepts `except: pass` where contextlib.suppress does not fit: still swallowed.
    Rule(RF, "SIM105", "error_swallowed", "except pass", ("flake8_simplify", "SIM105_0.py"),
         drop_safe=r"except[^\n]*:[ \t]*\n\s*(pass|continue|\.\.\.)\s*(\n|$)"),
    Rule(RF, "S112", "error_swallowed", "except continue", ("flake8_bandit", "S112.py")),
    Rule(RF, "S113", "timeout_removed", "http request timeout", ("flake8_bandit", "S113.py")),
    Rule(RF, "S202", "injection", "file path", ("flake8_bandit", "S202.py")),
    Rule(RF, "S301", "unsafe_deserialization", "pickle", ("flake8_bandit", "S301.py")),
    Rule(RF, "S308", "injection", "html", ("flake8_bandit", "S308.py")),
    Rule(RF, "S310", "injection", "url (ssrf)", ("flake8_bandit", "S310.py")),
    Rule(RF, "S324", "weak_crypto", "hash", ("flake8_bandit", "S324.py")),
    Rule(RF, "S501", "verification_disabled", "tls", ("flake8_bandit", "S501.py")),
    Rule(RF, "S502", "weak_crypto", "tls version", ("flake8_bandit", "S502.py")),
    Rule(RF, "S503", "weak_crypto", "tls version", ("flake8_bandit", "S503.py")),
    Rule(RF, "S504", "weak_crypto", "tls version", ("flake8_bandit", "S504.py")),
    Rule(RF, "S505", "weak_crypto", "key size", ("flake8_bandit", "S505.py")),
    Rule(RF, "S506", "unsafe_deserialization", "yaml", ("flake8_bandit", "S506.py")),
    Rule(RF, "S507", "verification_disabled", "ssh host key", ("flake8_bandit", "S507.py")),
    Rule(RF, "S601", "injection", "command", ("flake8_bandit", "S601.py")),
    Rule(RF, "S602", "injection", "command", ("flake8_bandit", "S602.py")),
    Rule(RF, "S604", "injection", "command", ("flake8_bandit", "S604.py")),
    Rule(RF, "S605", "injection", "command", ("flake8_bandit", "S605.py")),
    Rule(RF, "S608", "injection", "sql", ("flake8_bandit", "S608.py")),
    Rule(RF, "S609", "injection", "command", ("flake8_bandit", "S609.py")),
    Rule(RF, "S610", "injection", "sql", ("flake8_bandit", "S610.py")),
    Rule(RF, "S611", "injection", "sql", ("flake8_bandit", "S611.py")),
    Rule(RF, "S701", "injection", "html template", ("flake8_bandit", "S701.py")),
    Rule(RF, "BLE001", "error_swallowed", "blind except", ("flake8_blind_except", "BLE.py")),
    Rule(RF, "B012", "error_swallowed", "jump in finally", ("flake8_bugbear", "B012.py")),
    Rule(RF, "SIM115", "resource_leak", "file", ("flake8_simplify", "SIM115.py")),
    Rule(RF, "RUF006", "resource_leak", "task", ("ruff", "RUF006.py")),
    Rule(RF, "PLW1510", "error_swallowed", "unchecked exit status", ("pylint", "subprocess_run_without_check.py")),
    # eslint-plugin-security and ESLint (JavaScript): RuleTester `valid` / `invalid` code strings.
    Rule(ESP, "detect-child-process", "injection", "command", "test/rules/detect-child-process.js"),
    Rule(ESP, "detect-eval-with-expression", "injection", "eval", "test/rules/detect-eval-with-expression.js"),
    Rule(ESP, "detect-non-literal-fs-filename", "injection", "file path",
         "test/rules/detect-non-literal-fs-filename.js"),
    Rule(ESP, "detect-non-literal-require", "injection", "module path", "test/rules/detect-non-literal-require.js"),
    Rule(ESP, "detect-non-literal-regexp", "injection", "regex", "test/rules/detect-non-literal-regexp.js"),
    Rule(ESP, "detect-no-csrf-before-method-override", "verification_disabled", "csrf",
         "test/rules/detect-no-csrf-before-method-override.js"),
    Rule(ESP, "detect-disable-mustache-escape", "injection", "html template",
         "test/rules/detect-disable-mustache-escape.js"),
    Rule(ESP, "detect-pseudoRandomBytes", "weak_crypto", "random", "test/rules/detect-pseudoRandomBytes.js"),
    # no-empty flags every empty block: only cases with a `catch`, risky ones with an empty one.
    Rule(ES, "no-empty", "error_swallowed", "empty catch", "tests/lib/rules/no-empty.js", comments=True,
         only=r"\bcatch\b", risky_only=r"catch\s*(\([^)]*\))?\s*\{\s*\}"),
    # no-eval and no-new-func flag every use; risky cases here evaluate something not literal.
    Rule(ES, "no-eval", "injection", "eval", "tests/lib/rules/no-eval.js", risky_only=EVAL_NON_LITERAL),
    Rule(ES, "no-new-func", "injection", "eval", "tests/lib/rules/no-new-func.js", risky_only=EVAL_NON_LITERAL),
    Rule(ES, "no-unsafe-finally", "error_swallowed", "jump in finally", "tests/lib/rules/no-unsafe-finally.js"),
    Rule(ES, "handle-callback-err", "error_swallowed", "callback error ignored",
         "tests/lib/rules/handle-callback-err.js"),
    # RuboCop (Ruby): specs, expect_offense / expect_no_offenses heredocs.
    Rule(RC, "Security/Eval", "injection", "eval", "spec/rubocop/cop/security/eval_spec.rb"),
    Rule(RC, "Security/Open", "injection", "command", "spec/rubocop/cop/security/open_spec.rb"),
    Rule(RC, "Security/IoMethods", "injection", "command", "spec/rubocop/cop/security/io_methods_spec.rb"),
    Rule(RC, "Security/YAMLLoad", "unsafe_deserialization", "yaml", "spec/rubocop/cop/security/yaml_load_spec.rb"),
    Rule(RC, "Security/MarshalLoad", "unsafe_deserialization", "marshal",
         "spec/rubocop/cop/security/marshal_load_spec.rb"),
    Rule(RC, "Security/JSONLoad", "unsafe_deserialization", "json", "spec/rubocop/cop/security/json_load_spec.rb"),
    # The default AllowNil and AllowComments accept `rescue nil` and commented empty rescues.
    Rule(RC, "Lint/SuppressedException", "error_swallowed", "empty rescue",
         "spec/rubocop/cop/lint/suppressed_exception_spec.rb", comments=True,
         drop_safe=r"\brescue\b[^\n]*\n\s*nil\s*(\n|$)|\brescue\s+nil\b"),
    Rule(RC, "Lint/EnsureReturn", "error_swallowed", "jump in ensure", "spec/rubocop/cop/lint/ensure_return_spec.rb"),
    # psalm (PHP): TaintTest.php; valid code takes the rule of the closest invalid code.
    Rule(PS, "TaintedSql", "injection", "sql"),
    Rule(PS, "TaintedShell", "injection", "command"),
    Rule(PS, "TaintedHtml", "injection", "html"),
    Rule(PS, "TaintedCallable", "injection", "callable"),
    Rule(PS, "TaintedEval", "injection", "eval"),
    Rule(PS, "TaintedInclude", "injection", "file path"),
    Rule(PS, "TaintedFile", "injection", "file path"),
    Rule(PS, "TaintedSSRF", "injection", "url (ssrf)"),
    Rule(PS, "TaintedXpath", "injection", "xpath"),
    Rule(PS, "TaintedLdap", "injection", "ldap"),
    Rule(PS, "TaintedHeader", "injection", "header"),
    Rule(PS, "TaintedCookie", "injection", "cookie"),
    Rule(PS, "TaintedUnserialize", "unsafe_deserialization", "unserialize"),
    Rule(PS, "TaintedExtract", "injection", "extract"),
    # WordPress Coding Standards (PHP): .inc test files, error/warning lists per line.
    Rule(WP, "WordPress.DB.PreparedSQL", "injection", "sql", "WordPress/Tests/DB/PreparedSQLUnitTest"),
    Rule(WP, "WordPress.Security.EscapeOutput", "injection", "html", "WordPress/Tests/Security/EscapeOutputUnitTest"),
    Rule(WP, "WordPress.Security.NonceVerification", "verification_disabled", "csrf",
         "WordPress/Tests/Security/NonceVerificationUnitTest"),
    Rule(WP, "WordPress.Security.ValidatedSanitizedInput", "injection", "unsanitized input",
         "WordPress/Tests/Security/ValidatedSanitizedInputUnitTest"),
    Rule(WP, "WordPress.Security.SafeRedirect", "injection", "redirect",
         "WordPress/Tests/Security/SafeRedirectUnitTest"),
    # The sniff allow-lists some functions (fopen, ...): a silenced call is still silenced.
    Rule(WP, "WordPress.PHP.NoSilencedErrors", "error_swallowed", "@ operator",
         "WordPress/Tests/PHP/NoSilencedErrorsUnitTest", drop_safe=r"@\s*[\\\w$&(]"),
    # PMD (Java, Apex): rule tests with expected-problems.
    # EmptyCatchBlock accepts `catch (E ignored) {}` by name: still swallowed.
    Rule(P, "EmptyCatchBlock", "error_swallowed", "empty catch", PMDJ + "errorprone/xml/EmptyCatchBlock.xml",
         lang="java", drop_safe=r"catch\s*\([^)]*\b(ignored|expected)\s*\)\s*\{\s*\}"),
    Rule(P, "CloseResource", "resource_leak", "stream/connection", PMDJ + "errorprone/xml/CloseResource.xml",
         lang="java"),
    Rule(P, "ReturnFromFinallyBlock", "error_swallowed", "jump in finally",
         PMDJ + "errorprone/xml/ReturnFromFinallyBlock.xml", lang="java"),
    Rule(P, "CheckSkipResult", "error_swallowed", "ignored result", PMDJ + "errorprone/xml/CheckSkipResult.xml",
         lang="java"),
    Rule(P, "CheckResultSet", "error_swallowed", "ignored result", PMDJ + "bestpractices/xml/CheckResultSet.xml",
         lang="java"),
    Rule(P, "HardCodedCryptoKey", "weak_crypto", "hard-coded key", PMDJ + "security/xml/HardCodedCryptoKey.xml",
         lang="java"),
    Rule(P, "InsecureCryptoIv", "weak_crypto", "nonce/iv", PMDJ + "security/xml/InsecureCryptoIv.xml", lang="java"),
    Rule(P, "ApexSOQLInjection", "injection", "sql", PMDA + "security/xml/ApexSOQLInjection.xml", lang="apex"),
    Rule(P, "ApexCRUDViolation", "access_check_missing", "crud/fls", PMDA + "security/xml/ApexCRUDViolation.xml",
         lang="apex"),
    Rule(P, "ApexSharingViolations", "access_check_missing", "sharing",
         PMDA + "security/xml/ApexSharingViolations.xml", lang="apex"),
    Rule(P, "ApexOpenRedirect", "injection", "redirect", PMDA + "security/xml/ApexOpenRedirect.xml", lang="apex"),
    Rule(P, "ApexXSSFromURLParam", "injection", "html", PMDA + "security/xml/ApexXSSFromURLParam.xml", lang="apex"),
    Rule(P, "ApexXSSFromEscapeFalse", "injection", "html", PMDA + "security/xml/ApexXSSFromEscapeFalse.xml",
         lang="apex"),
    Rule(P, "ApexBadCrypto", "weak_crypto", "nonce/iv", PMDA + "security/xml/ApexBadCrypto.xml", lang="apex"),
    Rule(P, "ApexInsecureEndpoint", "weak_crypto", "plain http", PMDA + "security/xml/ApexInsecureEndpoint.xml",
         lang="apex"),
    Rule(P, "ApexDangerousMethods", "credentials_logged", "debug log", PMDA + "security/xml/ApexDangerousMethods.xml",
         lang="apex", only=r"System\.debug"),
    Rule(P, "ApexDangerousMethods", "access_check_missing", "crud disabled",
         PMDA + "security/xml/ApexDangerousMethods.xml", lang="apex", id="ApexDangerousMethods-crud"),
    Rule(P, "ApexCSRF", "verification_disabled", "csrf", PMDA + "errorprone/xml/ApexCSRF.xml", lang="apex"),
    Rule(P, "EmptyCatchBlock", "error_swallowed", "empty catch", PMDA + "errorprone/xml/EmptyCatchBlock.xml",
         lang="apex", id="EmptyCatchBlock-apex"),
    # Roslyn analyzers (C#): VerifyCS calls, source text and expected diagnostics.
    Rule(RA, "CA5359", "verification_disabled", "tls", RAS + "DoNotDisableCertificateValidationTests.cs"),
    Rule(RA, "CA5405", "verification_disabled", "token", RAS + "DoNotAlwaysSkipTokenValidationInDelegatesTests.cs"),
    Rule(RA, "CA5404", "verification_disabled", "token", RAS + "DoNotDisableTokenValidationChecksTests.cs"),
    Rule(RA, "CA5399/CA5400", "verification_disabled", "certificate revocation",
         RAS + "DoNotDisableHttpClientCRLCheckTests.cs"),
    Rule(RA, "CA5391/CA5395", "verification_disabled", "csrf", RAS + "UseAutoValidateAntiforgeryTokenTests.cs"),
    Rule(RA, "CA5380/CA5381", "verification_disabled", "trust store", RAS + "DoNotInstallRootCertTests.cs"),
    Rule(RA, "CA5363", "injection", "request validation off", RAS + "DoNotDisableRequestValidationTests.cs"),
    Rule(RA, "CA3001", "injection", "sql", RAS + "ReviewCodeForSqlInjectionVulnerabilitiesTests.cs"),
    Rule(RA, "CA2100", "injection", "sql", RAD + "ReviewSQLQueriesForSecurityVulnerabilitiesTests.cs"),
    Rule(RA, "CA3003", "injection", "file path", RAS + "ReviewCodeForFileCanonicalizationVulnerabilitiesTests.cs"),
    Rule(RA, "CA3005", "injection", "ldap", RAS + "ReviewCodeForLdapInjectionVulnerabilitiesTests.cs"),
    Rule(RA, "CA3006", "injection", "command", RAS + "ReviewCodeForCommandExecutionVulnerabilitiesTests.cs"),
    Rule(RA, "CA3007", "injection", "redirect", RAS + "ReviewCodeForOpenRedirectVulnerabilitiesTests.cs"),
    Rule(RA, "CA3008", "injection", "xpath", RAS + "ReviewCodeForXPathInjectionVulnerabilitiesTests.cs"),
    Rule(RA, "CA3011", "injection", "dll path", RAS + "ReviewCodeForDllInjectionVulnerabilitiesTests.cs"),
    Rule(RA, "CA3012", "injection", "regex", RAS + "ReviewCodeForRegexInjectionVulnerabilitiesTests.cs"),
    Rule(RA, "CA5389", "injection", "file path", RAS + "DoNotAddArchiveItemPathToTheTargetFileSystemPathTests.cs"),
    Rule(RA, "CA2300", "unsafe_deserialization", "binaryformatter",
         RAS + "DoNotUseInsecureDeserializerBinaryFormatterMethodsTests.cs"),
    Rule(RA, "CA2301/CA2302", "unsafe_deserialization", "binaryformatter",
         RAS + "DoNotUseInsecureDeserializerBinaryFormatterWithoutBinderTests.cs"),
    Rule(RA, "CA2305", "unsafe_deserialization", "losformatter",
         RAS + "DoNotUseInsecureDeserializationLosFormatterTests.cs"),
    Rule(RA, "CA2310", "unsafe_deserialization", "netdatacontractserializer",
         RAS + "DoNotUseInsecureDeserializerNetDataContractSerializerMethodsTests.cs"),
    Rule(RA, "CA2315", "unsafe_deserialization", "objectstateformatter",
         RAS + "DoNotUseInsecureDeserializationObjectStateFormatterTests.cs"),
    Rule(RA, "CA2321/CA2322", "unsafe_deserialization", "javascriptserializer",
         RAS + "DoNotUseInsecureDeserializerJavascriptSerializerWithSimpleTypeResolverTests.cs"),
    Rule(RA, "CA2326", "unsafe_deserialization", "json type names", RAS + "JsonNetTypeNameHandlingTests.cs"),
    Rule(RA, "CA2327/CA2328", "unsafe_deserialization", "json type names",
         RAS + "DoNotUseInsecureSettingsForJsonNetTests.cs"),
    Rule(RA, "CA2329/CA2330", "unsafe_deserialization", "json type names",
         RAS + "DoNotUseInsecureDeserializerJsonNetWithoutBinderTests.cs"),
    Rule(RA, "CA5350/CA5351", "weak_crypto", "algorithm", RAS + "DoNotUseInsecureCryptographicAlgorithmsTests.cs"),
    Rule(RA, "CA5364/CA5386", "weak_crypto", "tls version", RAS + "DoNotUseDeprecatedSecurityProtocolsTests.cs"),
    Rule(RA, "CA5378", "weak_crypto", "tls version",
         RAS + "DoNotDisableUsingServicePointManagerSecurityProtocolsTests.cs"),
    Rule(RA, "CA5361", "weak_crypto", "tls version", RAS + "DoNotDisableSchUseStrongCryptoTests.cs"),
    Rule(RA, "CA5397/CA5398", "weak_crypto", "tls version", RAS + "SslProtocolsAnalyzerTests.cs"),
    Rule(RA, "CA5385", "weak_crypto", "key size", RAS + "UseRSAWithSufficientKeySizeTests.cs"),
    Rule(RA, "CA5387/CA5388", "weak_crypto", "kdf iterations",
         RAS + "DoNotUseWeakKDFInsufficientIterationCountTests.cs"),
    Rule(RA, "CA5394", "weak_crypto", "random", RAS + "DoNotUseInsecureRandomnessTests.cs"),
    Rule(RA, "CA5390", "weak_crypto", "hard-coded key", RAS + "DoNotHardCodeEncryptionKeyTests.cs"),
    Rule(RA, "CA5384", "weak_crypto", "algorithm", RAS + "DoNotUseDSATests.cs"),
    Rule(RA, "CA5358", "weak_crypto", "cipher mode", RAS + "ApprovedCipherModeTests.cs"),
    Rule(RA, "CA2000", "resource_leak", "dispose", RAR + "DisposeObjectsBeforeLosingScopeTests.cs"),
    Rule(RA, "CA2213", "resource_leak", "dispose", RAR + "DisposableFieldsShouldBeDisposedTests.cs"),
    Rule(RA, "CA1031", "error_swallowed", "catch-all", RAQ + "ApiDesignGuidelines/DoNotCatchGeneralExceptionTypesTests.cs"),
    # CA1806 also flags ignored results of pure, LINQ and string methods: only the ignored
    # HRESULTs / error codes and TryParse results are errors.
    Rule(RA, "CA1806", "error_swallowed", "ignored result", RAQ + "Maintainability/DoNotIgnoreMethodResultsTests.cs",
         risky_only=r"Get\w*(HResultOrErrorCode|TryParse)\w*ResultAt"),
    # clippy (Rust): tests/ui/<name>.rs and the lines its .stderr reports.
    Rule(CL, "let_underscore_must_use", "error_swallowed", "ignored result", "let_underscore_must_use"),
    Rule(CL, "unused_result_ok", "error_swallowed", "ignored result", "unused_result_ok"),
    Rule(CL, "unused_io_amount", "error_swallowed", "io amount ignored", "unused_io_amount"),
    Rule(CL, "map_err_ignore", "error_swallowed", "error discarded", "map_err"),
    Rule(CL, "unwrap_used/expect_used", "error_unwrapped", "unwrap/expect", "unwrap_expect_used"),
    Rule(CL, "let_underscore_future", "resource_leak", "future dropped", "let_underscore_future"),
    Rule(CL, "let_underscore_lock", "resource_leak", "lock", "let_underscore_lock"),
    Rule(CL, "await_holding_lock", "resource_leak", "lock", "await_holding_lock"),
    Rule(CL, "zombie_processes", "resource_leak", "child process", "zombie_processes"),
    Rule(CL, "permissions_set_readonly_false", "permissions_widened", "file mode", "permissions_set_readonly_false"),
    # bodyclose (Go): analysistest files, `// want` on the flagged line.
    Rule(BC, "bodyclose", "resource_leak", "http body", "passes/bodyclose/testdata/src"),
    # errcheck (Go): analysistest packages, `// want` on the flagged line. Package `a` runs with
    # default flags, which accept `_ = f()` discards (dropped from its negatives); package
    # `blank` runs with -blank, which flags them.
    Rule(EC, "errcheck", "error_swallowed", "unchecked error", "errcheck/testdata/src/a",
         drop_safe=r"(^|[\s,(])_\s*(,\s*\w+\s*)*:?=(?!=)"),
    Rule(EC, "errcheck", "error_swallowed", "unchecked error", "errcheck/testdata/src/blank", id="errcheck-blank"),
    # error-prone (Java): CompilationTestHelper sources, `// BUG: Diagnostic` before the flagged line.
    # EmptyCatch accepts empty catches in tests and around close(): still swallowed.
    Rule(EP, "EmptyCatch", "error_swallowed", "empty catch", EPB + "EmptyCatchTest.java",
         drop_safe=r"catch\s*\([^)]*\)\s*\{\s*\}"),
    Rule(EP, "CatchAndPrintStackTrace", "error_swallowed", "catch and print", EPB + "CatchAndPrintStackTraceTest.java"),
    Rule(EP, "InterruptedExceptionSwallowed", "error_swallowed", "interrupt swallowed",
         EPB + "InterruptedExceptionSwallowedTest.java"),
    Rule(EP, "FutureReturnValueIgnored", "error_swallowed", "ignored result", EPB + "FutureReturnValueIgnoredTest.java"),
    Rule(EP, "Finally", "error_swallowed", "jump in finally", EPB + "FinallyTest.java"),
    Rule(EP, "StreamResourceLeak", "resource_leak", "stream", EPB + "StreamResourceLeakTest.java"),
    Rule(EP, "LockNotBeforeTry", "resource_leak", "lock", EPB + "LockNotBeforeTryTest.java"),
    Rule(EP, "GuardedBy", "resource_leak", "lock not held", EPB + "threadsafety/GuardedByCheckerTest.java"),
    Rule(EP, "InsecureCipherMode", "weak_crypto", "cipher mode", EPB + "InsecureCipherModeTest.java"),
    Rule(EP, "BanSerializableRead", "unsafe_deserialization", "java serialization",
         EPB + "BanSerializableReadTest.java"),
    Rule(EP, "BanJNDI", "injection", "jndi", EPB + "BanJNDITest.java"),
    # rubocop-rails (Ruby).
    Rule(RR, "Rails/OutputSafety", "injection", "html", "spec/rubocop/cop/rails/output_safety_spec.rb"),
    Rule(RR, "Rails/RenderInline", "injection", "template", "spec/rubocop/cop/rails/render_inline_spec.rb"),
    # typescript-eslint (TypeScript): RuleTester cases. A floating promise given an empty
    # handler or `void` is accepted by the rule and still swallowed by our axes.
    Rule(TS, "no-floating-promises", "error_swallowed", "unhandled promise", TSR + "no-floating-promises.test.ts",
         lang="typescript", drop_safe=r"=>\s*\{\s*\}|\bvoid\s"),
    Rule(TS, "no-misused-promises", "error_swallowed", "unhandled promise", TSR + "no-misused-promises.test.ts",
         lang="typescript"),
    Rule(TS, "no-implied-eval", "injection", "eval", TSR + "no-implied-eval.test.ts", lang="typescript",
         risky_only=r"\b(eval|Function|setTimeout|setInterval|setImmediate|execScript)\s*\(\s*[^'\"`\s)]"),
    # eslint-plugin-promise (JavaScript).
    Rule(PR, "catch-or-return", "error_swallowed", "unhandled promise", "__tests__/catch-or-return.js",
         drop_safe=r"\{\s*\}\s*\)|\bcy\."),
    Rule(PR, "no-return-in-finally", "error_swallowed", "jump in finally", "__tests__/no-return-in-finally.js"),
]

LIMITS = {
    "max_lines": 80,        # longer snippets are left out
    "min_similarity": 0.5,  # a fixture unit kept as safe must be this close to a risky one
    "edit_similarity": 0.75,
    "edit_max_changed": 4,  # lines changed on each side of an `edit`
    "pair_ids": 3,          # matched variants listed per case
    "dev_share": 0.4,       # share of each category's groups on the dev side
}
# Per rule: at most this many risky and safe `add` cases and `edit` pairs, by category, so no
# rule and no category dominates (weak crypto is optional and kept small; injection has many
# rules; thin categories take all they have).
CAPS = {"weak_crypto": (12, 12, 4), "injection": (20, 20, 8)}
CAP_DEFAULT = (30, 30, 12)
CAP_THIN = (40, 40, 16)
THIN = {"timeout_removed", "permissions_widened", "credentials_logged", "size_limit_removed", "error_unwrapped",
        "unsafe_deserialization", "verification_disabled", "access_check_missing"}


def caps(category: str) -> tuple[int, int, int]:
    return CAPS.get(category, CAP_THIN if category in THIN else CAP_DEFAULT)


def stable_int(*parts: str) -> int:
    return int(hashlib.sha256("\0".join(parts).encode()).hexdigest()[:12], 16)


def splits() -> dict[str, str]:
    """dev or eval per group (source + rule). Within each category the groups are ordered by a
    stable hash of their name and the first 40% (at least one when there are two or more) go
    to dev, so whole rules sit on one side and every category with several rules has both."""
    by_cat = defaultdict(list)
    for r in RULES:
        if r.group not in by_cat[r.category]:
            by_cat[r.category].append(r.group)
    out = {}
    for groups in by_cat.values():
        groups.sort(key=lambda g: (stable_int("split", g), g))
        n_dev = round(LIMITS["dev_share"] * len(groups))
        if len(groups) >= 2:
            n_dev = max(1, n_dev)
        for i, g in enumerate(groups):
            out[g] = "dev" if i < n_dev else "eval"
    return out


# ---------------------------------------------------------------------------------------------
# Reading


def read_all(mirrors: str):
    snaps = {}
    for repo, (commit, _lic, _tool) in SOURCES.items():
        refuse_blocked(repo)
        snaps[repo] = src.Snapshot(repo, commit, mirror_dir(mirrors, repo))
    out = []
    # Rows read from the same place (one gosec or psalm file set, one fixture) share one read;
    # each snippet then falls under the rows of its rule among them.
    keyed = defaultdict(list)
    for r in RULES:
        where = None if r.repo in (G, PS) else r.where
        keyed[(r.repo, where)].append(r)
    for (repo, where), rows in keyed.items():
        r = rows[0]
        before = len(out)
        s = snaps[r.repo]
        if r.repo == G:
            out += src.read_gosec(s)
        elif r.repo == PS:
            out += src.read_psalm(s)
        elif r.repo == RF:
            out += src.read_ruff(s, r.where[0], r.rule, r.where[1])
        elif r.repo in (ESP, ES, PR):
            out += src.read_rule_tester(s, r.where, r.rule)
        elif r.repo == TS:
            out += src.read_rule_tester(s, r.where, r.rule, "typescript")
        elif r.repo == EP:
            out += src.read_errorprone(s, r.where, r.rule)
        elif r.repo in (RC, RR):
            out += src.read_rubocop_spec(s, r.where, r.rule)
        elif r.repo == WP:
            out += src.read_phpcs(s, r.where, r.rule)
        elif r.repo == P:
            out += src.read_pmd(s, r.where, r.rule, r.lang)
        elif r.repo == RA:
            out += src.read_roslyn(s, r.where, r.rule)
        elif r.repo == CL:
            out += src.read_clippy(s, r.where, r.rule)
        elif r.repo in (BC, EC):
            for path in s.ls(r.where):
                if path.endswith(".go"):
                    out += src.read_want(s, path, r.rule, descend=r.repo == EC)
        else:
            raise SystemExit(f"no reader for {r.repo}")
        for sn in out[before:]:
            sn.extra["rows"] = [x for x in rows if x.rule == sn.rule]
    return out


# ---------------------------------------------------------------------------------------------
# Selection


_TOKENS: dict[int, tuple] = {}
_SIM: dict[tuple[int, int], float] = {}


def tokens(code: list[str]) -> tuple:
    key = id(code)
    if key not in _TOKENS:
        _TOKENS[key] = tuple(re.findall(r"\w+|[^\w\s]", "\n".join(code)))
    return _TOKENS[key]


def sim(a: list[str], b: list[str]) -> float:
    """Similarity of two snippets: difflib's ratio over their tokens."""
    key = (id(a), id(b))
    if key not in _SIM:
        _SIM[key] = _SIM[(id(b), id(a))] = difflib.SequenceMatcher(None, tokens(a), tokens(b), autojunk=False).ratio()
    return _SIM[key]


def changed_lines(a: list[str], b: list[str]) -> tuple[int, int]:
    sm = difflib.SequenceMatcher(None, a, b, autojunk=False)
    da = db = 0
    for op, i1, i2, j1, j2 in sm.get_opcodes():
        if op != "equal":
            da += i2 - i1
            db += j2 - j1
    return da, db


# Fixture notes that the tool's expectation is known to be wrong for a snippet.
FALSE_NEGATIVE = re.compile(r"(?i)false[ _-]?negative|(?-i:\bFNs?\b)|undetected|should (also )?(be )?(lint|flag|warn|report|"
                            r"detect|catch)|(?-i:\b(TODO|FIXME|XXX)\b)(?![!(])|known (bug|issue|limitation)|"
                            r"not (yet )?(detected|caught|flagged|handled)|\bmiss(es|ed)\b")
FALSE_POSITIVE = re.compile(r"(?i)false[ _-]?positive|(?-i:\bFPs?\b)|should ?n[o']t (be )?(lint|flag|warn|report)|"
                            r"(?-i:\b(TODO|FIXME|XXX)\b)(?![!(])|known (bug|issue|limitation)")
KEEP_IN_CONTEXT = {"duplicate", "safe unit unlike any risky one", "over the per-rule cap"}


def drop(drops: Counter, s, why: str) -> None:
    """Count a left-out snippet; a left-out fixture unit also leaves its file's context unless
    it is plain safe code (a duplicate or a capped one)."""
    drops[(s.repo, s.rule, why)] += 1
    if s.context is not None and (s.risky or why not in KEEP_IN_CONTEXT):
        s.extra["file"]["drop_ranges"].append(s.context)


def select(snips, drops: Counter):
    """Filter and deduplicate the snippets of the rules in RULES."""
    kept = []
    seen_at = Counter()
    for s in snips:
        # Several snippets can start on one line (RuleTester strings): number them.
        seen_at[(s.repo, s.path, s.start)] += 1
        s.extra["ord"] = seen_at[(s.repo, s.path, s.start)] - 1
        rows = s.extra.get("rows", [])
        if not rows and not s.ruleless:
            continue
        if s.note:
            drop(drops, s, s.note)
            continue
        text = "\n".join(s.code)
        if not s.code or not text.strip():
            drop(drops, s, "no code")
            continue
        if len(s.code) > LIMITS["max_lines"]:
            drop(drops, s, f"over {LIMITS['max_lines']} lines")
            continue
        r = next((r for r in rows if not r.only or r.only.search(text)), None)
        if rows and r is None:
            drop(drops, s, "outside the rule's scope here")
            continue
        s.row = r
        raw = s.extra.get("raw", "")
        if not s.risky and FALSE_NEGATIVE.search(raw):
            drop(drops, s, "the fixture notes a false negative or an open question")
            continue
        if s.risky and FALSE_POSITIVE.search(raw):
            drop(drops, s, "the fixture notes a false positive")
            continue
        if r is not None:
            s.family = f"{r.id}:{s.path}"
            if r.comments and s.extra.get("had_comments"):
                drop(drops, s, "label may depend on a comment")
                continue
            if r.risky_only and s.risky and not r.risky_only.search(s.extra.get("expected", "") + "\n" + text):
                drop(drops, s, "outside the rule's scope here")
                continue
            if r.drop_safe and not s.risky and r.drop_safe.search(text):
                drop(drops, s, "safe only by an allowance our axes do not make")
                continue
        kept.append(s)
    # Duplicates (whitespace-insensitive): a text risky anywhere is never kept as safe; a text
    # both risky and safe under the same rule is dropped; otherwise the first one is kept.
    by_norm = defaultdict(list)
    for s in kept:
        by_norm[normalize("\n".join(s.code))].append(s)
    final = []
    for group in by_norm.values():
        risky = [s for s in group if s.risky]
        safe = [s for s in group if not s.risky]
        if risky and safe and {s.rule for s in risky} & {s.rule for s in safe}:
            for s in group:
                drop(drops, s, "same code both flagged and not flagged")
            continue
        if risky:
            for s in safe:
                drop(drops, s, "safe code flagged by another rule")
            group = risky
        group.sort(key=lambda s: (s.repo, s.path, s.start, s.rule))
        final.append(group[0])
        for s in group[1:]:
            drop(drops, s, "duplicate")
    return final


# ---------------------------------------------------------------------------------------------
# Cases


NAMES = ["client", "handler", "service", "worker", "server", "store", "loader", "jobs", "sync", "api",
         "app", "tasks", "backend", "pipeline", "gateway", "manager", "processor", "runner", "importer", "bridge"]


TESTISH = re.compile(r"(?i)test|fixture|sample|example|spec")


def target_path(lang: str, group: str, code: list[str]) -> str:
    """Where the diff puts the snippet: a neutral name chosen by the group, never by the label,
    so risky and safe variants of a rule share one path."""
    name = NAMES[stable_int("name", group) % len(NAMES)]
    text = "\n".join(code)
    if lang == "go":
        m = re.search(r"^package\s+(\w+)", text, re.M)
        pkg = m.group(1) if m else "main"
        pkg = name if TESTISH.search(pkg) else pkg
        return f"cmd/{name}/main.go" if pkg == "main" else f"internal/{pkg}/{name}.go"
    if lang in ("java", "apex"):
        m = re.search(r"\b(?:class|interface|enum|record)\s+(\w+)", text)
        cls = m.group(1) if m and not TESTISH.search(m.group(1)) else name.capitalize()
        if lang == "apex":
            return f"force-app/main/default/classes/{cls}.cls"
        m = re.search(r"^package\s+([\w.]+)\s*;", text, re.M)
        pkg = m.group(1).replace(".", "/") + "/" if m and not TESTISH.search(m.group(1)) else ""
        return f"src/main/java/{pkg}{cls}.java"
    if lang == "csharp":
        m = re.search(r"\bclass\s+(\w+)", text)
        return f"src/{m.group(1) if m and not TESTISH.search(m.group(1)) else name.capitalize()}.cs"
    ext = {"python": "py", "rust": "rs", "javascript": "js", "typescript": "ts", "ruby": "rb", "php": "php"}[lang]
    top = {"python": "app", "ruby": "lib"}.get(lang, "src")
    return f"{top}/{name}.{ext}"


def collapse(lines) -> list[str]:
    out: list[str] = []
    for l in lines:
        if l is None:
            continue
        if not l.strip():
            if out and out[-1] == "":
                continue
            out.append("")
        else:
            out.append(l)
    return out


def assemble(before: list[str], mid: list[str], after: list[str], lang: str = "python") -> list[str]:
    b, a = list(before), list(after)
    while b and not b[-1]:
        b.pop()
    while b and not b[0]:
        b.pop(0)
    while a and not a[0]:
        a.pop(0)
    while a and not a[-1]:
        a.pop()
    out: list[str] = []
    for part in (b, mid, a):
        if part:
            if out:
                out.append("")
            out += part
    if lang != "python":
        # No blank line right inside braces.
        out = [l for i, l in enumerate(out)
               if l or not (i > 0 and out[i - 1].rstrip().endswith("{"))
               and not (i + 1 < len(out) and out[i + 1].lstrip().startswith("}"))]
    return out


def context_of(s, removed_ranges) -> tuple[list[str], list[str]]:
    """The rest of a fixture unit's file: every line but the removed units and comments."""
    base = s.extra["file"]["base"]
    start, end = s.context  # the unit's lines within its fixture text
    gone = set()
    for a, b in removed_ranges:
        gone.update(range(a, b + 1))
    gone.update(range(start, end + 1))
    before = collapse(base[k - 1] for k in range(1, start) if k not in gone)
    after = collapse(base[k - 1] for k in range(end + 1, len(base) + 1) if k not in gone)
    return before, after


class Case:
    __slots__ = ("id", "snip", "rule", "kind", "shape", "path", "old", "new", "pair", "partner", "family")

    def __init__(self, **kw):
        for k in self.__slots__:
            setattr(self, k, kw.get(k))


def case_id(s, shape: str) -> str:
    owner, name = s.repo.split("/")
    stem = re.sub(r"[^A-Za-z0-9_.-]", "-", os.path.basename(s.path).rsplit(".", 1)[0])
    slug = re.sub(r"[^A-Za-z0-9_.-]", "-", s.row.id)
    ord_ = f".{s.extra['ord']}" if s.extra.get("ord") else ""
    return f"{owner}__{name}__{slug}__{stem}-L{s.start}{ord_}-{shape}"


def build_cases(kept, drops: Counter) -> list[Case]:
    # Safe snippets no single rule owns (psalm's valid code) take the rule of the risky
    # snippet of the same file they are closest to.
    risky_by_path = defaultdict(list)
    for s in kept:
        if s.risky:
            risky_by_path[(s.repo, s.path)].append(s)
    for s in kept:
        if s.ruleless:
            cands = risky_by_path.get((s.repo, s.path), [])
            if not cands:
                continue
            best = max(cands, key=lambda r: (sim(s.code, r.code), -r.start))
            s.rule, s.row, s.family = best.rule, best.row, best.family
    kept = [s for s in kept if s.row is not None]
    fam = defaultdict(list)
    for s in kept:
        fam[s.family].append(s)
    # Fixture units kept as safe must resemble a risky unit of the same fixture.
    chosen = []
    for ss in fam.values():
        risky = [s for s in ss if s.risky]
        for s in ss:
            if s.risky or s.context is None:
                chosen.append(s)
                continue
            best = max((sim(s.code, r.code) for r in risky), default=0.0)
            if best >= LIMITS["min_similarity"]:
                chosen.append(s)
            else:
                drop(drops, s, "safe unit unlike any risky one")
    # Caps per rule, in a stable pseudo-random order; safe snippets that best match a kept
    # risky snippet go first.
    by_rule = defaultdict(list)
    for s in chosen:
        by_rule[s.row.group].append(s)
    final = []
    edits = []
    for key in sorted(by_rule):
        ss = by_rule[key]
        order = lambda s: stable_int("pick", s.repo, s.path, str(s.start), s.rule)
        risky = sorted((s for s in ss if s.risky), key=order)
        safe = sorted((s for s in ss if not s.risky), key=order)
        cap_risky, cap_safe, cap_edits = caps(ss[0].row.category)
        for s in risky[cap_risky:]:
            drop(drops, s, "over the per-rule cap")
        risky = risky[:cap_risky]
        # Edit pairs: a risky and a safe variant of the same fixture a few lines apart.
        cands = []
        for r in risky:
            for s in safe:
                if s.family != r.family:
                    continue
                da, db = changed_lines(s.code, r.code)
                if 0 < max(da, db) <= LIMITS["edit_max_changed"] and da < len(s.code) and db < len(r.code):
                    ratio = sim(s.code, r.code)
                    if ratio >= LIMITS["edit_similarity"]:
                        cands.append((-ratio, order(r), order(s), r, s))
        cands.sort(key=lambda t: t[:3])
        used_r, used_s, pairs = set(), set(), []
        for _, _, _, r, s in cands:
            if id(r) in used_r or id(s) in used_s or len(pairs) >= cap_edits:
                continue
            used_r.add(id(r))
            used_s.add(id(s))
            pairs.append((r, s))
        first = [s for _, s in pairs]
        best_of = []
        for r in risky:
            m = [s for s in safe if s.family == r.family and id(s) not in used_s]
            if m:
                best_of.append(max(m, key=lambda s: (sim(s.code, r.code), -order(s))))
        picked, seen = [], set()
        for s in first + best_of + safe:
            if id(s) not in seen:
                seen.add(id(s))
                picked.append(s)
        for s in picked[cap_safe:]:
            drop(drops, s, "over the per-rule cap")
        final += risky + picked[:cap_safe]
        edits += pairs
    keep_ids = {id(s) for s in final}
    # Which units leave their fixture's context: risky ones, kept ones and dropped ones.
    removed = defaultdict(list)
    for s in final:
        if s.context is not None:
            removed[id(s.extra["file"])].append(s.context)
    for s in kept:
        if s.context is not None and s.risky:
            removed[id(s.extra["file"])].append(s.context)
    cases = []
    for s in final:
        shape = "add"
        if s.context is not None:
            before, after = context_of(s, removed[id(s.extra["file"])] + s.extra["file"]["drop_ranges"])
            old = assemble(before, [], after, s.lang) or None
            new = assemble(before, s.code, after, s.lang)
        else:
            old, new = None, list(s.code)
        cases.append(Case(id=case_id(s, shape), snip=s, rule=s.row, kind=s.risky,
                          shape=shape, old=old, new=new, family=s.family))
    for r, s in edits:
        assert id(r) in keep_ids and id(s) in keep_ids
        if r.context is not None:
            before, after = context_of(r, removed[id(r.extra["file"])] + r.extra["file"]["drop_ranges"])
            risky_text = assemble(before, r.code, after, r.lang)
            safe_text = assemble(before, s.code, after, r.lang)
        else:
            risky_text, safe_text = list(r.code), list(s.code)
        rule = r.row
        a = Case(id=case_id(r, "edit"), snip=r, rule=rule, kind=True, shape="edit", old=safe_text,
                 new=risky_text, family=r.family)
        b = Case(id=case_id(s, "edit"), snip=s, rule=rule, kind=False, shape="edit", old=risky_text,
                 new=safe_text, family=r.family)
        a.partner, b.partner = b, a
        cases += [a, b]
    # Matched variants: the reversed edit, or the closest `add` cases of the other label.
    adds = defaultdict(list)
    for c in cases:
        if c.shape == "add":
            adds[(c.family, c.kind)].append(c)
    for c in cases:
        if c.partner is not None:
            c.pair = [c.partner.id]
            continue
        others = adds.get((c.family, not c.kind), [])
        ranked = sorted(others, key=lambda o: (-sim(o.snip.code, c.snip.code), o.id))
        c.pair = sorted(o.id for o in ranked[: LIMITS["pair_ids"]])
    ids = Counter(c.id for c in cases)
    dup = [i for i, n in ids.items() if n > 1]
    if dup:
        raise SystemExit(f"duplicate case ids: {dup[:5]}")
    return sorted(cases, key=lambda c: c.id)


# ---------------------------------------------------------------------------------------------
# Diffs: real git, in a scratch repository


def git_run(gitdir: str, *args: str, inp: bytes | None = None) -> bytes:
    p = subprocess.run(["git", "--no-pager", *GIT_CFG, "--git-dir", gitdir, *args], input=inp,
                       capture_output=True, env=GIT_ENV, stdin=None if inp is not None else subprocess.DEVNULL)
    if p.returncode != 0:
        raise SystemExit(f"git {' '.join(args[:2])}: {p.stderr.decode(errors='replace')[:300]}")
    return p.stdout


def make_diffs(cases: list[Case]) -> dict[str, str]:
    with tempfile.TemporaryDirectory(prefix="introduced-") as tmp:
        gd = os.path.join(tmp, "scratch.git")
        git_run(tmp, "init", "--quiet", "--bare", gd)
        stream = io.BytesIO()
        for n, c in enumerate(cases):
            for k, text in ((2 * n + 1, c.old), (2 * n + 2, c.new)):
                stream.write(f"commit refs/heads/scratch\nmark :{k}\ncommitter x <x> 0 +0000\ndata 0\n"
                             f"deleteall\n".encode())
                if text is not None:
                    data = ("\n".join(text) + "\n").encode("utf-8")
                    stream.write(f"M 100644 inline {c.path}\ndata {len(data)}\n".encode() + data + b"\n")
                stream.write(b"\n")
        marks = os.path.join(tmp, "marks")
        git_run(gd, "fast-import", "--quiet", f"--export-marks={marks}", inp=stream.getvalue())
        mark = {}
        with open(marks, encoding="ascii") as f:
            for line in f:
                k, sha = line.split()
                mark[int(k[1:])] = sha
        out = {}
        for n, c in enumerate(cases):
            raw = git_run(gd, "-c", "core.abbrev=7", "diff", "--no-color", "--no-ext-diff", "--no-textconv", "-M50%", "-U3",
                          "--src-prefix=a/", "--dst-prefix=b/", mark[2 * n + 1], mark[2 * n + 2])
            out[c.id] = raw.decode("utf-8")
        return out


# ---------------------------------------------------------------------------------------------


def manifest_row(c: Case, diff: str) -> dict:
    s, r = c.snip, c.rule
    added = sum(1 for l in diff.split("\n") if l.startswith("+") and not l.startswith("+++"))
    removed = sum(1 for l in diff.split("\n") if l.startswith("-") and not l.startswith("---"))
    tool = SOURCES[s.repo][2]
    return {
        "id": c.id, "repo": s.repo, "commit": SOURCES[s.repo][0], "licence": SOURCES[s.repo][1],
        "kind": "risky" if c.kind else "benign", "primary": r.axis if c.kind else None, "secondary": [],
        "category": r.category, "subcategory": r.sub, "lang": s.lang, "rule": s.rule,
        "label_source": f"{tool}:{s.rule} {s.expect}", "group": r.group, "split": SPLITS[r.group],
        "shape": c.shape, "path": s.path, "lines": [s.start, s.end], "pair": c.pair, "file": c.path,
        "added": added, "removed": removed,
    }


def commit_row(k: dict) -> tuple[dict, str]:
    """A real commit labeled by its subject (introduced_commits.py): always risky, always eval."""
    owner, name = k["repo"].split("/")
    diff = k["diff"]
    added = sum(1 for l in diff.split("\n") if l.startswith("+") and not l.startswith("+++"))
    removed = sum(1 for l in diff.split("\n") if l.startswith("-") and not l.startswith("---"))
    row = {
        "id": f"{owner}__{name}__{k['commit'][:12]}", "repo": k["repo"], "commit": k["commit"], "parent": k["parent"],
        "licence": k["licence"], "kind": "risky", "primary": k["axis"], "secondary": [], "category": k["category"],
        "subcategory": "commit message", "lang": k["lang"], "rule": k["rule"], "label_source": "message",
        "group": f"{k['repo']}:message", "split": "eval", "shape": "commit", "path": None, "lines": None, "pair": [],
        "file": k["file"], "added": added, "removed": removed, "subject": k["subject"],
    }
    return row, diff


SPLITS = splits()


def build(mirrors: str, drops: Counter):
    snips = read_all(mirrors)
    kept = select(snips, drops)
    cases = build_cases(kept, drops)
    for c in cases:
        c.path = target_path(c.snip.lang, c.rule.group, c.new)
    diffs = make_diffs(cases)
    # Two edit pairs can make the same change in the same surroundings: keep the first.
    seen, gone = set(), set()
    for c in cases:
        if c.shape != "edit" or not c.kind:
            continue
        bodies = [diffs[x.id].split("\n", 4)[-1] for x in (c, c.partner)]
        if any(b in seen for b in bodies):
            gone.update((c.id, c.partner.id))
            drops[(c.snip.repo, c.snip.rule, "edit pair repeats another one")] += 1
        seen.update(bodies)
    cases = [c for c in cases if c.id not in gone]
    rows = [(manifest_row(c, diffs[c.id]), diffs[c.id]) for c in cases]
    rows += [commit_row(k) for k in introduced_commits.load(mirrors, COMMITS_JSON)]
    rows.sort(key=lambda rd: rd[0]["id"])
    # What the corpus loader (xtask/src/sets.rs) insists on, checked before writing.
    ids = [r["id"] for r, _ in rows]
    if len(set(ids)) != len(ids):
        raise SystemExit("duplicate case ids")
    for r, diff in rows:
        if r["kind"] not in ("risky", "benign") or (r["kind"] == "risky") != (r["primary"] in AXES):
            raise SystemExit(f"{r['id']}: risky cases need a primary axis, benign ones none")
        if r["primary"] is not None and r["primary"] not in AXES:
            raise SystemExit(f"{r['id']}: unknown axis {r['primary']}")
        if not diff.startswith("diff --git a/") or "\n@@ " not in diff:
            raise SystemExit(f"{r['id']}: not a git diff")
        if r["shape"] != "commit" and is_test(r["file"]):
            raise SystemExit(f"{r['id']}: the diff writes to a test path, {r['file']}")
    man = io.StringIO()
    buf = io.BytesIO()
    with gzip.GzipFile(filename="", mode="wb", fileobj=buf, compresslevel=9, mtime=0) as gz:
        for row, diff in rows:
            man.write(json.dumps(row, sort_keys=True, ensure_ascii=False) + "\n")
            gz.write((json.dumps({"id": row["id"], "diff": diff}, ensure_ascii=False) + "\n").encode("utf-8"))
    return man.getvalue().encode("utf-8"), buf.getvalue()


# ---------------------------------------------------------------------------------------------


# ---------------------------------------------------------------------------------------------
# README tables


def md_table(head: list[str], rows: list[list], right: int = 0) -> str:
    """A Markdown table; the last `right` columns are right-aligned."""
    align = ["---"] * (len(head) - right) + ["---:"] * right
    out = ["| " + " | ".join(head) + " |", "| " + " | ".join(align) + " |"]
    out += ["| " + " | ".join(str(c) for c in r) + " |" for r in rows]
    return "\n".join(out) + "\n"


def readme_sections(manifest: bytes, drops: Counter) -> dict[str, str]:
    rows = [json.loads(l) for l in manifest.decode("utf-8").splitlines()]
    per_group = defaultdict(Counter)
    for r in rows:
        per_group[r["group"]][r["kind"]] += 1
    out = {}
    src_rows = []
    for repo, (commit, lic, tool) in SOURCES.items():
        n = Counter(r["kind"] for r in rows if r["repo"] == repo)
        src_rows.append([f"`{repo}`", tool, f"`{commit[:12]}`", lic, n["risky"], n["benign"]])
    out["sources"] = md_table(["repository", "tool", "commit", "licence", "risky", "benign"], src_rows, 2)
    rule_rows = []
    for r in RULES:
        n = per_group[r.group]
        rule_rows.append([SOURCES[r.repo][2], f"`{r.rule}`" + (f" ({r.id})" if r.id != r.rule else ""),
                          r.category, r.sub, f"`{r.axis}`", SPLITS[r.group], n["risky"], n["benign"]])
    out["rules"] = md_table(["tool", "rule", "category", "subcategory", "axis", "split", "risky", "benign"],
                            rule_rows, 2)
    cat_axis = [[c, f"`{a}`"] for c, a in CATEGORY_AXIS.items()]
    out["categories"] = md_table(["category", "axis"], cat_axis)

    def counts(key, title):
        c = defaultdict(Counter)
        for r in rows:
            k = "(real commits)" if key == "repo" and r["shape"] == "commit" else r[key]
            c[k][(r["kind"], r["split"])] += 1
        body = []
        for k in sorted(c, key=lambda k: (-sum(c[k].values()), k)):
            v = c[k]
            body.append([k, v[("risky", "dev")], v[("benign", "dev")], v[("risky", "eval")], v[("benign", "eval")],
                         v[("risky", "dev")] + v[("risky", "eval")], v[("benign", "dev")] + v[("benign", "eval")]])
        tot = Counter()
        for v in c.values():
            tot.update(v)
        body.append(["**all**", tot[("risky", "dev")], tot[("benign", "dev")], tot[("risky", "eval")],
                     tot[("benign", "eval")], tot[("risky", "dev")] + tot[("risky", "eval")],
                     tot[("benign", "dev")] + tot[("benign", "eval")]])
        return md_table([title, "dev risky", "dev benign", "eval risky", "eval benign", "risky", "benign"], body, 6)

    shapes = Counter((r["shape"], r["kind"]) for r in rows)
    out["counts"] = (
        f"{len(rows)} cases: {sum(1 for r in rows if r['kind'] == 'risky')} risky, "
        f"{sum(1 for r in rows if r['kind'] == 'benign')} benign; `add` {shapes[('add', 'risky')]} risky + "
        f"{shapes[('add', 'benign')]} benign, `edit` {shapes[('edit', 'risky')]} risky + "
        f"{shapes[('edit', 'benign')]} benign, `commit` {shapes[('commit', 'risky')]} risky; "
        f"{sum(1 for g in per_group if g in SPLITS)} fixture groups (source + rule), "
        f"{sum(1 for g in per_group if SPLITS.get(g) == 'dev')} on the dev side.\n\n"
        + counts("category", "category") + "\n" + counts("lang", "language") + "\n"
        + counts("repo", "source"))
    commit_rows = sorted((r for r in rows if r["shape"] == "commit"), key=lambda r: (r["category"], r["id"]))
    out["commits"] = md_table(["repository", "commit", "licence", "lang", "category", "subject"], [
        [f"`{r['repo']}`", f"`{r['commit'][:12]}`", r["licence"], r["lang"], r["category"],
         r["subject"].replace("|", "\\|")[:90]] for r in commit_rows])
    why = Counter()
    for (_repo, _rule, reason), n in drops.items():
        why[re.sub(r"unreadable: .*", "unreadable (lexer)", re.sub(r"\[.*\]", "[...]", reason))] += n
    out["drops"] = md_table(["reason a snippet was left out", "snippets"],
                            [[k, v] for k, v in sorted(why.items(), key=lambda kv: (-kv[1], kv[0]))], 1)
    return out


def render_readme(text: str, sections: dict[str, str]) -> str:
    for name, body in sections.items():
        a, b = f"<!-- BEGIN {name} -->\n", f"<!-- END {name} -->"
        i, j = text.find(a), text.find(b)
        if i < 0 or j < 0:
            raise SystemExit(f"README.md lacks the {name} markers")
        text = text[: i + len(a)] + body + text[j:]
    return text


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--mirrors", default=DEFAULT_MIRRORS)
    ap.add_argument("--check", action="store_true", help="rebuild in memory and compare byte for byte")
    ap.add_argument("--drops", action="store_true", help="print why snippets were left out")
    ap.add_argument("--discover", action="store_true",
                    help="scan the mirror folder for real commits (rewrites commits.json), then build")
    args = ap.parse_args()
    if args.discover:
        exclude = {r.lower() for r in SOURCES} | {"pycqa/bandit"}
        for corpus in ("corpus", "corpus-fresh"):
            with open(os.path.join(ROOT, "testdata", corpus, "repos.json"), encoding="utf-8") as f:
                exclude |= {r["repo"].lower() for r in json.load(f)["repos"]}
        spec = introduced_commits.discover(args.mirrors, exclude)
        with open(COMMITS_JSON, "w", encoding="utf-8") as f:
            json.dump(spec, f, indent=1, sort_keys=True)
            f.write("\n")
        print(f"scanned {len(spec['scanned'])} snapshots, kept {len(spec['cases'])} commits")
    drops = Counter()
    manifest, cases = build(args.mirrors, drops)
    if args.drops:
        for (repo, rule, why), n in sorted(drops.items()):
            print(f"{repo}\t{rule}\t{why}\t{n}")
    mpath, cpath = os.path.join(OUT_DIR, "manifest.jsonl"), os.path.join(OUT_DIR, "cases.jsonl.gz")
    rpath = os.path.join(OUT_DIR, "README.md")
    with open(rpath, encoding="utf-8") as f:
        readme_old = f.read()
    readme = render_readme(readme_old, readme_sections(manifest, drops)).encode("utf-8")
    if args.check:
        bad = []
        for path, data in ((mpath, manifest), (cpath, cases), (rpath, readme)):
            with open(path, "rb") as f:
                if f.read() != data:
                    bad.append(os.path.relpath(path, ROOT))
        if bad:
            print(f"differs from a rebuild: {', '.join(bad)}", file=sys.stderr)
            print("hint: run scripts/corpus introduced to rewrite them, and commit the result",
                  file=sys.stderr)
            return 1
        print(f"manifest.jsonl ({len(manifest)} bytes), cases.jsonl.gz ({len(cases)} bytes) and the README "
              f"tables reproduced")
        return 0
    for path, data in ((mpath, manifest), (cpath, cases), (rpath, readme)):
        with open(path, "wb") as f:
            f.write(data)
    n = manifest.count(b"\n")
    print(f"wrote {n} cases: {os.path.relpath(mpath, ROOT)} ({len(manifest)} bytes), "
          f"{os.path.relpath(cpath, ROOT)} ({len(cases)} bytes), README tables")
    return 0


if __name__ == "__main__":
    sys.exit(main())
