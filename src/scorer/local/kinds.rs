//! What kind of line a changed line is — a condition, a comparison, a `raise`/`throw`/`return
//! err`, a release of a resource, an `await`, a test assertion, a header or cookie name, a
//! size or bounds constant, … — read from its tokens, in any of the languages we lex.
//!
//! Kinds are features of the learned model and the words of its evidence: "a condition was
//! removed", "`close()` is no longer called".

use super::quick::QuickMap;
use super::tokens::{Token, TokenKind};

/// A set of [`Kind`]s.
pub type Kinds = u64;

/// One kind of line. The discriminant is its bit in [`Kinds`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Kind {
    Condition,
    Comparison,
    Logic,
    Negation,
    Raise,
    Return,
    ErrorValue,
    NullCheck,
    Bound,
    Length,
    Release,
    Acquire,
    Lock,
    Await,
    Assert,
    Try,
    Log,
    Auth,
    Crypto,
    Validate,
    Escape,
    Sink,
    Header,
    Cookie,
    Redirect,
    Data,
    Transaction,
    Compat,
    Definition,
    Import,
    Concurrency,
    Loop,
    Assign,
    Call,
    Literal,
    Boolean,
    Config,
    TestDecl,
    Skip,
    Unwrap,
    Cast,
    Arithmetic,
    Index,
    Path,
    Time,
}

/// Every kind, in bit order.
pub const ALL: [Kind; 45] = [
    Kind::Condition,
    Kind::Comparison,
    Kind::Logic,
    Kind::Negation,
    Kind::Raise,
    Kind::Return,
    Kind::ErrorValue,
    Kind::NullCheck,
    Kind::Bound,
    Kind::Length,
    Kind::Release,
    Kind::Acquire,
    Kind::Lock,
    Kind::Await,
    Kind::Assert,
    Kind::Try,
    Kind::Log,
    Kind::Auth,
    Kind::Crypto,
    Kind::Validate,
    Kind::Escape,
    Kind::Sink,
    Kind::Header,
    Kind::Cookie,
    Kind::Redirect,
    Kind::Data,
    Kind::Transaction,
    Kind::Compat,
    Kind::Definition,
    Kind::Import,
    Kind::Concurrency,
    Kind::Loop,
    Kind::Assign,
    Kind::Call,
    Kind::Literal,
    Kind::Boolean,
    Kind::Config,
    Kind::TestDecl,
    Kind::Skip,
    Kind::Unwrap,
    Kind::Cast,
    Kind::Arithmetic,
    Kind::Index,
    Kind::Path,
    Kind::Time,
];

impl Kind {
    pub fn bit(self) -> Kinds {
        1 << (self as u32)
    }

    /// The feature name.
    pub fn name(self) -> &'static str {
        match self {
            Kind::Condition => "condition",
            Kind::Comparison => "comparison",
            Kind::Logic => "logic",
            Kind::Negation => "negation",
            Kind::Raise => "raise",
            Kind::Return => "return",
            Kind::ErrorValue => "error",
            Kind::NullCheck => "null",
            Kind::Bound => "bound",
            Kind::Length => "length",
            Kind::Release => "release",
            Kind::Acquire => "acquire",
            Kind::Lock => "lock",
            Kind::Await => "await",
            Kind::Assert => "assert",
            Kind::Try => "try",
            Kind::Log => "log",
            Kind::Auth => "auth",
            Kind::Crypto => "crypto",
            Kind::Validate => "validate",
            Kind::Escape => "escape",
            Kind::Sink => "sink",
            Kind::Header => "header",
            Kind::Cookie => "cookie",
            Kind::Redirect => "redirect",
            Kind::Data => "data",
            Kind::Transaction => "transaction",
            Kind::Compat => "compat",
            Kind::Definition => "definition",
            Kind::Import => "import",
            Kind::Concurrency => "concurrency",
            Kind::Loop => "loop",
            Kind::Assign => "assign",
            Kind::Call => "call",
            Kind::Literal => "literal",
            Kind::Boolean => "boolean",
            Kind::Config => "config",
            Kind::TestDecl => "test",
            Kind::Skip => "skip",
            Kind::Unwrap => "unwrap",
            Kind::Cast => "cast",
            Kind::Arithmetic => "arithmetic",
            Kind::Index => "index",
            Kind::Path => "path",
            Kind::Time => "time",
        }
    }

    /// What a line of this kind is, in a few words, for evidence ("a condition").
    pub fn phrase(self) -> &'static str {
        match self {
            Kind::Condition => "a condition",
            Kind::Comparison => "a comparison",
            Kind::Logic => "a boolean combination",
            Kind::Negation => "a negation",
            Kind::Raise => "an error raised",
            Kind::Return => "a return",
            Kind::ErrorValue => "error handling",
            Kind::NullCheck => "a null/nil check",
            Kind::Bound => "a size or bounds limit",
            Kind::Length => "a length check",
            Kind::Release => "a release of a resource",
            Kind::Acquire => "an acquired resource",
            Kind::Lock => "locking",
            Kind::Await => "an await",
            // `verify`, `expect`, `require` are checks in code too, not only in tests.
            Kind::Assert => "an assertion or check",
            Kind::Try => "a try/catch block",
            Kind::Log => "logging",
            Kind::Auth => "an authentication or permission check",
            Kind::Crypto => "a cryptographic or TLS step",
            Kind::Validate => "input validation",
            Kind::Escape => "escaping or sanitizing",
            Kind::Sink => "a query, command, path or template built from data",
            Kind::Header => "an HTTP header",
            Kind::Cookie => "a cookie",
            // `url`, `host`, `proxy`: a line need not redirect to name one.
            Kind::Redirect => "a URL, host or redirect",
            Kind::Data => "a write to stored data",
            Kind::Transaction => "a transaction",
            Kind::Compat => "a public or versioned interface",
            Kind::Definition => "a definition or signature",
            Kind::Import => "an import",
            Kind::Concurrency => "concurrent work",
            Kind::Loop => "a loop",
            Kind::Assign => "an assignment",
            Kind::Call => "a call",
            Kind::Literal => "a literal value",
            Kind::Boolean => "a boolean constant",
            Kind::Config => "a configuration value",
            Kind::TestDecl => "a test",
            Kind::Skip => "a skipped test",
            Kind::Unwrap => "an unchecked unwrap",
            Kind::Cast => "a type conversion",
            Kind::Arithmetic => "arithmetic",
            Kind::Index => "an index or slice",
            Kind::Path => "a file path",
            Kind::Time => "a timeout or deadline",
        }
    }
}

/// The words that mark each kind (lower-case words of identifiers and keywords). A word may
/// mark several kinds (`verify` is a check and a crypto step).
const WORDS: &[(Kind, &[&str])] = &[
    (
        Kind::Condition,
        &[
            "if", "elif", "elsif", "unless", "when", "case", "switch", "guard", "else",
        ],
    ),
    (
        Kind::Loop,
        &[
            "while", "for", "foreach", "loop", "each", "map", "range", "iter",
        ],
    ),
    (Kind::Logic, &["and", "or"]),
    (Kind::Negation, &["not"]),
    (
        Kind::Raise,
        &[
            "raise",
            "throw",
            "throws",
            "panic!",
            "panic",
            "abort",
            "bail!",
            "bail",
            "fatal",
            "fatalf",
            "reject",
            "unreachable!",
        ],
    ),
    (Kind::Return, &["return"]),
    (
        Kind::ErrorValue,
        &[
            "err",
            "error",
            "errors",
            "exception",
            "errno",
            "failure",
            "fail",
            "failed",
            "errorf",
            "throwable",
            "errs",
        ],
    ),
    (
        Kind::NullCheck,
        &[
            "nil",
            "null",
            "none",
            "undefined",
            "nullptr",
            "nullable",
            "optional",
            "some",
        ],
    ),
    (
        Kind::Length,
        &[
            "len", "length", "size", "count", "capacity", "cap", "bytes", "width",
        ],
    ),
    (
        Kind::Bound,
        &[
            "max", "min", "limit", "limits", "maximum", "minimum", "bound", "bounds", "overflow",
            "truncate", "clamp", "range", "offset", "depth",
        ],
    ),
    (
        Kind::Release,
        &[
            "close",
            "closed",
            "unlock",
            "release",
            "cancel",
            "cancelled",
            "canceled",
            "dispose",
            "free",
            "shutdown",
            "stop",
            "destroy",
            "cleanup",
            "finally",
            "defer",
            "ensure",
            "disconnect",
            "unsubscribe",
            "terminate",
            "teardown",
            "drop",
            "done",
            "flush",
            "unref",
            "detach",
        ],
    ),
    (
        Kind::Acquire,
        &[
            "open",
            "acquire",
            "connect",
            "spawn",
            "subscribe",
            "listen",
            "start",
            "new",
            "alloc",
            "malloc",
            "dial",
            "begin",
            "attach",
            "retain",
            "ref",
        ],
    ),
    (
        Kind::Lock,
        &[
            "lock",
            "mutex",
            "rwlock",
            "synchronized",
            "atomic",
            "semaphore",
            "rlock",
            "runlock",
            "critical",
        ],
    ),
    (
        Kind::Await,
        &["await", "yield", "async", "then", "promise", "future"],
    ),
    (
        Kind::Assert,
        &[
            "assert",
            "asserts",
            "expect",
            "should",
            "assert_eq!",
            "assert!",
            "require",
            "assertequal",
            "equals",
            "to_eq",
            "eq",
            "tobe",
            "toequal",
            "verify",
        ],
    ),
    (
        Kind::Try,
        &[
            "try", "catch", "except", "rescue", "recover", "ensure_", "throws_",
        ],
    ),
    (
        Kind::Log,
        &[
            "log",
            "logger",
            "logging",
            "console",
            "print",
            "println",
            "printf",
            "warn",
            "warning",
            "debug",
            "info",
            "trace",
            "eprintln!",
            "println!",
            "puts",
        ],
    ),
    (
        Kind::Auth,
        &[
            "auth",
            "authenticate",
            "authenticated",
            "authentication",
            "authorize",
            "authorized",
            "authorization",
            "permission",
            "permissions",
            "permit",
            "role",
            "roles",
            "admin",
            "owner",
            "privilege",
            "privileges",
            "acl",
            "policy",
            "jwt",
            "session",
            "login",
            "logout",
            "password",
            "passwd",
            "credential",
            "credentials",
            "secret",
            "principal",
            "user",
            "users",
            "scope",
            "scopes",
            "grant",
            "forbidden",
            "unauthorized",
            "allowed",
            "access",
            "csrf",
            "xsrf",
            "cors",
            "origin",
            "token",
            "tokens",
            "bearer",
            "oauth",
            "sso",
            "saml",
            "identity",
            "tenant",
            "rbac",
            "sudo",
            "impersonate",
        ],
    ),
    (
        Kind::Crypto,
        &[
            "verify",
            "verified",
            "signature",
            "sign",
            "signed",
            "hmac",
            "hash",
            "digest",
            "sha1",
            "sha256",
            "md5",
            "encrypt",
            "decrypt",
            "cipher",
            "tls",
            "ssl",
            "certificate",
            "cert",
            "certs",
            "x509",
            "nonce",
            "salt",
            "random",
            "crypto",
            "insecure",
            "constant",
            "compare_digest",
            "timingsafe",
        ],
    ),
    (
        Kind::Validate,
        &[
            "validate",
            "validation",
            "validator",
            "valid",
            "invalid",
            "check",
            "checked",
            "allowlist",
            "whitelist",
            "denylist",
            "blacklist",
            "allow",
            "deny",
            "reject_",
            "sanitize",
            "sanitized",
            "filter",
            "is_valid",
            "isvalid",
            "parse",
            "strict",
            "match",
            "matches",
            "regex",
            "regexp",
            "pattern",
            "contains",
            "starts",
            "ends",
            "prefix",
            "suffix",
            "within",
        ],
    ),
    (
        Kind::Escape,
        &[
            "escape",
            "escaped",
            "unescape",
            "quote",
            "quoted",
            "encode",
            "encoded",
            "decode",
            "html",
            "safe",
            "unsafe",
            "raw",
            "clean",
            "bleach",
            "strip",
            "normalize",
            "canonical",
            "canonicalize",
            "realpath",
            "abspath",
        ],
    ),
    (
        Kind::Sink,
        &[
            "exec",
            "system",
            "popen",
            "shell",
            "spawn_",
            "query",
            "execute",
            "sql",
            "eval",
            "render",
            "template",
            "innerhtml",
            "deserialize",
            "unmarshal",
            "pickle",
            "yaml",
            "load",
            "loads",
            "unserialize",
            "command",
            "cmd",
            "xml",
            "xpath",
            "ldap",
            "format",
            "sprintf",
            "interpolate",
        ],
    ),
    (Kind::Header, &["header", "headers", "hdr"]),
    (Kind::Cookie, &["cookie", "cookies", "samesite", "httponly"]),
    (
        Kind::Redirect,
        &[
            "redirect",
            "redirects",
            "location",
            "follow",
            "referer",
            "referrer",
            "url",
            "uri",
            "host",
            "hostname",
            "proxy",
        ],
    ),
    (
        Kind::Data,
        &[
            "delete",
            "update",
            "insert",
            "save",
            "persist",
            "store",
            "write",
            "writes",
            "fsync",
            "sync",
            "db",
            "database",
            "table",
            "column",
            "row",
            "rows",
            "record",
            "records",
            "migrate",
            "migration",
            "upsert",
            "remove",
            "destroy_",
            "truncate_",
            "cache",
            "put",
            "set",
        ],
    ),
    (
        Kind::Transaction,
        &[
            "transaction",
            "tx",
            "txn",
            "commit",
            "rollback",
            "savepoint",
            "isolation",
        ],
    ),
    (
        Kind::Compat,
        &[
            "deprecated",
            "version",
            "versions",
            "api",
            "public",
            "export",
            "exports",
            "exported",
            "interface",
            "legacy",
            "compat",
            "compatibility",
            "v1",
            "v2",
            "v3",
            "default",
            "defaults",
            "protocol",
            "schema",
            "serialize",
            "json",
            "field",
            "fields",
            "option",
            "options",
            "flag",
            "flags",
            "env",
        ],
    ),
    (
        Kind::Definition,
        &[
            "def",
            "fn",
            "func",
            "function",
            "class",
            "struct",
            "impl",
            "trait",
            "module",
            "enum",
            "type",
            "pub",
            "private",
            "protected",
            "static",
            "const",
            "let",
            "var",
            "val",
        ],
    ),
    (
        Kind::Import,
        &["import", "use", "include", "from", "package", "mod"],
    ),
    (
        Kind::Concurrency,
        &[
            "go",
            "thread",
            "threads",
            "goroutine",
            "channel",
            "chan",
            "select",
            "task",
            "tasks",
            "executor",
            "pool",
            "worker",
            "workers",
            "wait",
            "waitgroup",
            "notify",
            "signal",
            "concurrent",
            "parallel",
            "tokio",
            "spawn_blocking",
            "sleep",
            "race",
        ],
    ),
    (Kind::Boolean, &["true", "false"]),
    (
        Kind::TestDecl,
        &[
            "test", "tests", "it", "describe", "spec", "context", "fixture", "mock", "stub",
        ],
    ),
    (
        Kind::Skip,
        &[
            "skip",
            "skipped",
            "xit",
            "xdescribe",
            "ignore",
            "ignored",
            "pending",
            "todo",
            "disabled",
            "only",
        ],
    ),
    (
        Kind::Unwrap,
        &[
            "unwrap",
            "expect_",
            "must",
            "get!",
            "unwrap_or_default",
            "force",
        ],
    ),
    (
        Kind::Cast,
        &[
            "int", "uint", "i32", "i64", "u32", "u64", "u8", "usize", "isize", "float", "as",
            "parseint", "atoi", "cast", "convert", "to_i", "to_s", "str", "string", "number",
        ],
    ),
    (
        Kind::Path,
        &[
            "path",
            "paths",
            "file",
            "files",
            "dir",
            "directory",
            "filename",
            "filepath",
            "join",
            "resolve",
            "symlink",
            "tmp",
            "temp",
            "upload",
            "download",
        ],
    ),
    (
        Kind::Time,
        &[
            "timeout", "timeouts", "deadline", "ttl", "expire", "expires", "expiry", "expired",
            "duration", "interval", "retry", "retries", "backoff",
        ],
    ),
];

/// Word → kinds, built on first use (a few hundred entries).
static WORD_KINDS: std::sync::LazyLock<QuickMap<&'static str, Kinds>> =
    std::sync::LazyLock::new(|| {
        let mut map = QuickMap::default();
        for (kind, words) in WORDS {
            for word in *words {
                *map.entry(*word).or_insert(0) |= kind.bit();
            }
        }
        map
    });

/// The kinds one lower-case word stands for (0 for most words).
pub fn word_kind(w: &str) -> Kinds {
    WORD_KINDS.get(w).copied().unwrap_or(0)
}

/// The kinds of a line from its tokens; `config` says the line is in a configuration file.
pub fn of(tokens: &[Token<'_>], config: bool) -> Kinds {
    use Kind as K;
    let mut kinds: Kinds = 0;
    let mut has_number = false;
    let mut big_number = false;
    let mut has_string = false;
    let mut calls = false;
    let mut question = false;
    let mut colon = false;
    for (i, t) in tokens.iter().enumerate() {
        match t.kind {
            TokenKind::Word | TokenKind::Ident => kinds |= word_kind(&t.text),
            TokenKind::StrWord => {
                has_string = true;
                match &*t.text {
                    "authorization" | "auth" | "proxy" | "bearer" | "forwarded" | "origin"
                    | "referer" | "host" | "location" | "content" | "accept" => {
                        kinds |= K::Header.bit()
                    }
                    "cookie" | "set-cookie" => kinds |= K::Cookie.bit(),
                    _ => {}
                }
            }
            TokenKind::Number => {
                has_number = true;
                let t = t.text.trim_end_matches(|c: char| c.is_ascii_alphabetic());
                if t.parse::<f64>().is_ok_and(|v| v.abs() >= 2.0) || t.starts_with("0x") {
                    big_number = true;
                }
            }
            TokenKind::Op => match &*t.text {
                "==" | "!=" | "===" | "!==" | "<" | ">" | "<=" | ">=" | "<=>" => {
                    kinds |= K::Comparison.bit()
                }
                "&&" | "||" => kinds |= K::Logic.bit(),
                "!" => kinds |= K::Negation.bit(),
                "=" | ":=" | "+=" | "-=" | "*=" | "/=" | "|=" | "&=" | "??=" | "||=" => {
                    kinds |= K::Assign.bit()
                }
                "+" | "-" | "*" | "/" | "%" | "<<" | ">>" | "^" => kinds |= K::Arithmetic.bit(),
                "(" if i > 0 => calls = true,
                "[" => kinds |= K::Index.bit(),
                "?" => question = true,
                ":" => colon = true,
                "\"" => has_string = true,
                _ => {}
            },
        }
    }
    // `if`, `elif`, a ternary, or Go's `if err != nil`.
    if question && colon {
        kinds |= K::Condition.bit();
    }
    if calls {
        kinds |= K::Call.bit();
    }
    if (kinds & K::Return.bit() != 0) && (kinds & K::ErrorValue.bit() != 0) {
        kinds |= K::Raise.bit();
    }
    if big_number && (kinds & (K::Comparison.bit() | K::Length.bit() | K::Bound.bit()) != 0) {
        kinds |= K::Bound.bit();
    }
    if (has_number || has_string || kinds & K::Boolean.bit() != 0) && kinds & K::Call.bit() == 0 {
        kinds |= K::Literal.bit();
    }
    if config {
        kinds |= K::Config.bit();
    }
    kinds
}

/// The kinds in `kinds`, in bit order.
pub fn iter(kinds: Kinds) -> impl Iterator<Item = Kind> {
    ALL.into_iter().filter(move |k| kinds & k.bit() != 0)
}

#[cfg(test)]
mod tests {
    use super::super::tokens::tokenize;
    use super::*;

    fn kinds(line: &str) -> Vec<&'static str> {
        iter(of(&tokenize(line), false)).map(Kind::name).collect()
    }

    #[test]
    fn lines_get_their_kinds() {
        let k = kinds("if !user.isAdmin() {");
        for want in ["condition", "negation", "auth", "call"] {
            assert!(k.contains(&want), "{want} in {k:?}");
        }
        let k = kinds("if len(buf) > 4096 {");
        assert!(k.contains(&"bound") && k.contains(&"comparison"), "{k:?}");
        assert!(kinds("return nil, err").contains(&"raise"));
        assert!(kinds("raise ValueError(\"bad\")").contains(&"raise"));
        assert!(kinds("defer f.Close()").contains(&"release"));
        assert!(kinds("await session.commit()").contains(&"await"));
        assert!(kinds("assert_eq!(a, b);").contains(&"assert"));
        let k = kinds(r#"req.headers.remove("Proxy-Authorization")"#);
        assert!(k.contains(&"header"), "{k:?}");
        assert!(kinds("x = a ? b : c").contains(&"condition"));
    }

    #[test]
    fn all_is_in_bit_order() {
        for (i, k) in ALL.iter().enumerate() {
            assert_eq!(*k as usize, i);
        }
    }
}
