//! Name judgement: whether the name a value is assigned to says it holds a credential, and
//! where in a `name <op> value` match the secret sits.

use super::*;

/// Identifier-shaped text made of words: `access_token`, `X-Api-Key`, `db.password`,
/// `GITHUB_TOKEN`, `AccessToken`. Such values name a secret; they are not one.
pub(super) fn is_identifier_words(value: &[u8]) -> bool {
    // `_make_key`, `__token__`: the underscores of a private or magic name.
    let value = value.trim_ascii();
    let start = value.iter().take_while(|&&b| b == b'_').count();
    let value = &value[start..];
    if value.is_empty() || !value[0].is_ascii_alphabetic() {
        return false;
    }
    if !value
        .iter()
        .all(|&b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'-' | b'.' | b':' | b'/'))
    {
        return false;
    }
    let words = split_words(value);
    if words.is_empty() {
        return false;
    }
    // Every word is a plausible word: letters with at most a short numeric tail, no
    // random-looking runs of mixed digits.
    // Random tokens split into many short, vowel-less pieces; names into a few words.
    let vowelless = words.iter().filter(|w| !has_vowel(w)).count();
    let single = words.iter().filter(|w| w.len() == 1).count();
    if words.len() > 6 || vowelless > 2 || single > 1 {
        return false;
    }
    // Mostly two- and three-letter humps with digits among them (`ZKCCo4KHMBah9`) is a
    // generated password cut into humps, not a name.
    let short = words.iter().filter(|w| w.len() <= 3).count();
    let with_digits = words
        .iter()
        .filter(|w| w.iter().any(u8::is_ascii_digit))
        .count();
    let (lower, upper, _, _) = classes(value);
    let humps = (short * 2 >= words.len() && with_digits >= 2)
        || (short * 5 >= words.len() * 4 && with_digits >= 1);
    if words.len() >= 3 && humps && lower && upper {
        return false;
    }
    words.iter().all(|w| {
        // `_0`, `_2`: a counter between words.
        if w.len() <= 2 && w.iter().all(u8::is_ascii_digit) {
            return true;
        }
        let letters = w.iter().take_while(|b| b.is_ascii_alphabetic()).count();
        let tail = &w[letters..];
        // Short words (`x`, `db`, `src`, `npm`) need no vowel; longer ones must read as words.
        (1..=16).contains(&letters)
            && tail.len() <= 2
            && tail.iter().all(u8::is_ascii_digit)
            && (letters <= 4 || has_vowel(&w[..letters]))
    }) && (words.len() >= 2 || value.len() <= 12)
}

pub(super) fn has_vowel(word: &[u8]) -> bool {
    word.iter().any(|b| {
        matches!(
            b.to_ascii_lowercase(),
            b'a' | b'e' | b'i' | b'o' | b'u' | b'y'
        )
    })
}

/// Splits an identifier into lower-case words at `_ - . : /`, `$ @`, and camelCase humps.
pub(super) fn split_words(name: &[u8]) -> Vec<Vec<u8>> {
    let mut words: Vec<Vec<u8>> = Vec::new();
    let mut current: Vec<u8> = Vec::new();
    let mut prev: u8 = 0;
    for (i, &b) in name.iter().enumerate() {
        if !b.is_ascii_alphanumeric() {
            if !current.is_empty() {
                words.push(std::mem::take(&mut current));
            }
            prev = b;
            continue;
        }
        let next = name.get(i + 1).copied().unwrap_or(0);
        let hump = b.is_ascii_uppercase()
            && (prev.is_ascii_lowercase()
                || prev.is_ascii_digit() && !current.is_empty() && current.len() > 1
                || (prev.is_ascii_uppercase() && next.is_ascii_lowercase()));
        if hump && !current.is_empty() {
            words.push(std::mem::take(&mut current));
        }
        current.push(b.to_ascii_lowercase());
        prev = b;
    }
    if !current.is_empty() {
        words.push(current);
    }
    words
}

/// How strongly a name says "this holds a credential".
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum NameKind {
    /// Not a credential name.
    None,
    /// `key` alone or a loose word: only a strongly random value counts.
    Weak,
    /// `password`, `api_key`, `GITHUB_TOKEN`, `client_secret`, …
    Strong,
}

pub(super) const CRED_WORDS: &[&[u8]] = &[
    b"password",
    b"passwd",
    b"passphrase",
    b"pwd",
    b"pass",
    b"pw",
    b"secret",
    b"secrets",
    b"token",
    b"apikey",
    b"credential",
    b"credentials",
    b"creds",
    b"dsn",
    b"key",
    b"cookie",
    b"sig",
    b"signature",
];

/// Words that may follow the credential word without changing what the name holds.
pub(super) const TRAILING_OK: &[&[u8]] = &[
    b"value",
    b"val",
    b"str",
    b"b64",
    b"base64",
    b"hex",
    b"raw",
    b"enc",
    b"encrypted",
    b"prod",
    b"production",
    b"dev",
    b"development",
    b"staging",
    b"stage",
    b"test",
    b"live",
    b"sandbox",
    b"local",
    b"v1",
    b"v2",
    b"v3",
    b"secret",
    b"key",
    b"token",
    b"plain",
    b"plaintext",
    b"override",
    b"default",
];

/// A `key` preceded by one of these is a data-structure key, not a credential.
pub(super) const KEY_NOT_SECRET: &[&[u8]] = &[
    b"primary",
    b"foreign",
    b"sort",
    b"partition",
    b"cache",
    b"public",
    b"pub",
    b"map",
    b"dict",
    b"hash",
    b"lookup",
    b"unique",
    b"composite",
    b"row",
    b"column",
    b"index",
    b"range",
    b"hot",
    b"short",
    b"i18n",
    b"translation",
    b"route",
    b"react",
    b"object",
    b"s3",
    b"dedup",
    b"idempotency",
    b"group",
    b"field",
    b"next",
    b"prev",
    b"last",
    b"first",
    b"state",
    b"redis",
    b"kv",
    b"sorting",
    b"label",
    b"query",
    b"search",
    b"storage",
    b"item",
    b"entry",
    b"list",
    b"local",
    b"message",
    b"msg",
    b"config",
    b"setting",
    b"settings",
    b"env",
    b"name",
    b"ssh",
    b"gpg",
    b"pgp",
    b"verify",
    b"verifying",
    b"verification",
    b"keyboard",
    b"menu",
    b"shortcut",
    b"hotkey",
    b"unique",
    b"compound",
    b"distribution",
    b"sharding",
    b"shard",
    b"bucket",
    b"metric",
    b"event",
    b"feature",
    b"flag",
    b"option",
    b"param",
    b"header",
    b"json",
    b"yaml",
    b"dto",
    b"id",
    b"file",
    b"path",
    b"url",
];

/// Leading words that turn the name into a flag, count or function about a credential.
pub(super) const LEADING_NOT_SECRET: &[&[u8]] = &[
    b"is",
    b"has",
    b"should",
    b"use",
    b"enable",
    b"enabled",
    b"disable",
    b"show",
    b"hide",
    b"no",
    b"max",
    b"min",
    b"num",
    b"validate",
    b"check",
    b"get",
    b"set",
    b"require",
    b"requires",
    b"allow",
    b"forgot",
    b"reset",
    b"verify",
    b"on",
    b"handle",
    b"with",
];

pub(super) fn classify_name(name: &[u8]) -> NameKind {
    let words = split_words(name);
    if words.is_empty() {
        return NameKind::None;
    }
    if LEADING_NOT_SECRET.contains(&words[0].as_slice()) && words.len() > 1 {
        return NameKind::None;
    }
    // The last credential word, allowing compounds such as `apikey` or `accesstoken`.
    let Some(last_cred) = words.iter().rposition(|w| {
        CRED_WORDS.contains(&w.as_slice())
            || [
                &b"password"[..],
                b"passwd",
                b"token",
                b"secret",
                b"apikey",
                b"secretkey",
            ]
            .iter()
            .any(|c| w.len() > c.len() && w.ends_with(c))
    }) else {
        return NameKind::None;
    };
    if !words[last_cred + 1..]
        .iter()
        .all(|w| TRAILING_OK.contains(&w.as_slice()) || w.iter().all(u8::is_ascii_digit))
    {
        return NameKind::None;
    }
    let word = words[last_cred].as_slice();
    match word {
        b"key" | b"sig" | b"signature" | b"cookie" | b"pass" | b"pw" => {
            if last_cred == 0 {
                return NameKind::Weak;
            }
            let before = words[last_cred - 1].as_slice();
            if KEY_NOT_SECRET.contains(&before) {
                NameKind::None
            } else {
                NameKind::Strong
            }
        }
        _ => NameKind::Strong,
    }
}

/// Type names that follow `name:` in annotations and are never values.
pub(super) const TYPE_WORDS: &[&[u8]] = &[
    b"string",
    b"str",
    b"number",
    b"boolean",
    b"bool",
    b"any",
    b"unknown",
    b"never",
    b"object",
    b"bigint",
    b"symbol",
    b"int",
    b"integer",
    b"float",
    b"double",
    b"bytes",
    b"byte",
    b"usize",
    b"isize",
    b"u8",
    b"u16",
    b"u32",
    b"u64",
    b"u128",
    b"i8",
    b"i16",
    b"i32",
    b"i64",
    b"i128",
    b"f32",
    b"f64",
    b"char",
    b"void",
    b"null",
    b"nil",
    b"none",
    b"true",
    b"false",
    b"undefined",
    b"uint8array",
    b"int32",
    b"int64",
    b"uint32",
    b"uint64",
    b"float32",
    b"float64",
    b"arraybuffer",
    b"buffer",
    b"secretstr",
    b"secretstring",
    b"securestring",
];

/// Finds the byte range of the secret in a generic `name <op> value` match, if it is one.
pub(super) fn assignment_value(m: &assignment::Assignment, line: &[u8]) -> Option<(usize, usize)> {
    let group = |(start, end): (usize, usize)| Group { line, start, end };
    let name = group(m.n);
    let op = group(m.o).as_bytes();
    let value = group(m.v);
    let op_trim: Vec<u8> = op
        .iter()
        .copied()
        .filter(|b| !b.is_ascii_whitespace())
        .collect();
    // Comparisons are never assignments, but a credential compared with a literal that
    // reads as a password is a hard-coded one (`if password == "S3cr3t!"`; Nosey Parker
    // `np.generic.15`).
    if matches!(
        op_trim.as_slice(),
        b"==" | b"===" | b"!=" | b"!==" | b"<=" | b">="
    ) {
        let v = group(m.v).as_bytes();
        return match quoted_content(v) {
            Some((skip, len))
                if op_trim.len() >= 2
                    && op_trim[0] != b'<'
                    && op_trim[0] != b'>'
                    && classify_name(name.as_bytes()) == NameKind::Strong
                    && password_like(&v[skip..skip + len]) =>
            {
                Some((value.start() + skip, value.start() + skip + len))
            }
            _ => None,
        };
    }
    let raw_name = name.as_bytes();
    // Whitespace as the operator only binds a command-line flag (`--password hunter2`) or a
    // Dockerfile `ENV NAME value`.
    if op_trim.is_empty() && !raw_name.starts_with(b"-") && !line[..name.start()].ends_with(b"ENV ")
    {
        return None;
    }
    // `,` binds a quoted key to its value (`("api_key", "…")`); after a bare name (a CSV
    // row, or call arguments) only a strongly random value counts.
    let bare_comma = op_trim == b"," && m.c.0 == m.c.1;
    // `name Type = value`: the type is a word, never a keyword of the language's control flow.
    if op_trim.len() > 1
        && op_trim[0].is_ascii_alphabetic()
        && matches!(
            &op_trim[..op_trim.len() - 1],
            b"is" | b"in" | b"and" | b"or" | b"not" | b"if" | b"else" | b"return"
        )
    {
        return None;
    }
    // `>` only closes an XML element: `<password>…</password>`; the value runs to its end
    // tag (`<password>@host` in a URL template is not an element).
    if op_trim == b">"
        && !(name.start() > 0
            && line[name.start() - 1] == b'<'
            && line[value.end()..].starts_with(b"</"))
    {
        return None;
    }
    let kind = classify_name(raw_name);
    if kind == NameKind::None {
        return None;
    }
    let v = value.as_bytes();
    let after = line.get(value.end()).copied();
    let quoted = quoted_content(v).is_some();
    let (content, start) = match quoted_content(v) {
        Some((skip, len)) => (&v[skip..skip + len], value.start() + skip),
        None if bare_comma => (v, value.start()),
        None => {
            // A function call, an index, or a member access is a reference, not a value.
            if matches!(after, Some(b'(' | b'[' | b'{')) {
                return None;
            }
            let context = Context {
                line,
                name_start: name.start(),
                flag: raw_name.starts_with(b"-"),
                xml: op_trim == b">",
                after,
            };
            if !unquoted_is_literal(v, &context, kind) {
                return None;
            }
            (v, value.start())
        }
    };
    if content.is_empty() {
        return None;
    }
    // A quoted value that is a type annotation's default, e.g. `password: str = "…"`, is
    // handled by the typed operator; a trailing `+`/`%` makes the literal a format prefix.
    let secret = match kind {
        _ if bare_comma => random_token(&line[..start], content),
        NameKind::Strong => quoted_or_literal_is_secret(content),
        NameKind::Weak => strong_value(content) || (quoted && password_like(content)),
        NameKind::None => false,
    };
    secret.then_some((start, start + content.len()))
}

/// For a quoted value, the offset and length of its content.
pub(super) fn quoted_content(v: &[u8]) -> Option<(usize, usize)> {
    // `\"…\"`: a string inside an escaped JSON document.
    if v.len() >= 4 && v.starts_with(b"\\\"") && v.ends_with(b"\\\"") {
        return Some((2, v.len() - 4));
    }
    let prefix = v
        .iter()
        .take_while(|b| matches!(b, b'f' | b'F' | b'b' | b'B' | b'r' | b'R' | b'u' | b'U'))
        .count();
    let rest = &v[prefix..];
    let quote = *rest.first()?;
    if !matches!(quote, b'"' | b'\'' | b'`') || rest.len() < 2 || rest[rest.len() - 1] != quote {
        return None;
    }
    // An f-string, a template literal or a format string interpolates code.
    if (prefix > 0 && v[..prefix].eq_ignore_ascii_case(b"f")) || quote == b'`' {
        let inner = &rest[1..rest.len() - 1];
        if inner.contains(&b'{') {
            return Some((prefix + 1, 0));
        }
    }
    Some((prefix + 1, rest.len() - 2))
}

/// Where an unquoted value sits.
pub(super) struct Context<'a> {
    line: &'a [u8],
    name_start: usize,
    /// The name is a command-line flag (`--password`).
    flag: bool,
    /// The value is an XML element's text.
    xml: bool,
    /// The byte right after the value.
    after: Option<u8>,
}

/// Whether an unquoted value is a literal (env file, YAML, CLI flag, connection string)
/// rather than code, where a bare identifier is a reference to a variable.
pub(super) fn unquoted_is_literal(v: &[u8], context: &Context<'_>, kind: NameKind) -> bool {
    let lower = v.to_ascii_lowercase();
    if TYPE_WORDS.contains(&lower.as_slice()) {
        return false;
    }
    if v.iter()
        .all(|b| b.is_ascii_digit() || *b == b'.' || *b == b'-')
        || is_number_literal(v)
    {
        return false;
    }
    // Dotted or scoped references: `cfg.APIKey`, `process.env.SECRET`, `Config::KEY`, each
    // part an identifier (`OGi1iQ.L8!ljqg` is not one).
    let part_is_identifier = |part: &[u8]| {
        let part = part
            .strip_suffix(b"!")
            .or(part.strip_suffix(b"?"))
            .unwrap_or(part);
        part.first()
            .is_some_and(|b| b.is_ascii_alphabetic() || matches!(b, b'_' | b'$' | b'&'))
            && part
                .iter()
                .all(|&b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'$' | b'&'))
    };
    let is_path = v.iter().all(|&b| {
        b.is_ascii_alphanumeric() || matches!(b, b'_' | b'.' | b':' | b'$' | b'!' | b'?' | b'&')
    }) && v
        .split(|&b| matches!(b, b'.' | b':'))
        .filter(|part| !part.is_empty())
        .all(part_is_identifier)
        && (v.windows(2).any(|w| w == b"::")
            || (v.contains(&b'.')
                && split_words(v)
                    .iter()
                    .all(|w| w.iter().any(u8::is_ascii_alphabetic))));
    if is_path || v.starts_with(b"&") || v.starts_with(b"!") || v.starts_with(b"*") {
        return false;
    }
    // A single capitalised word is a type or class name (`token: Credential`).
    if v.len() > 1 && v[0].is_ascii_uppercase() && v[1..].iter().all(u8::is_ascii_lowercase) {
        return false;
    }
    let prefix = &context.line[..context.name_start];
    // `NAME=value` or `name: value` opening a line (after the diff prefix): an env, shell,
    // YAML or properties file, unless a `,`/`;` after the value says it is code.
    let env_line = (prefix
        .iter()
        .all(|b| matches!(b, b'+' | b'-' | b' ' | b'\t'))
        || prefix.ends_with(b"export ")
        || prefix.ends_with(b"ENV ")
        || prefix.ends_with(b"set "))
        && !matches!(context.after, Some(b',' | b';'));
    // `…;Password=…;` in a connection string, `?token=…` in a query string,
    // `--from-literal=password=…`.
    let embedded = matches!(prefix.last(), Some(b';' | b'?' | b'&' | b'='));
    if (env_line || embedded || context.flag || context.xml) && kind == NameKind::Strong {
        return v.len() >= 6;
    }
    let identifier = v
        .first()
        .is_some_and(|b| b.is_ascii_alphabetic() || matches!(b, b'_' | b'$'))
        && v.iter()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'$'));
    if identifier {
        // In code a bare identifier names a variable or a constant (`MSV1_0_CREDENTIAL_KEY`);
        // only a random-looking one is a value.
        return strong_value(v) && random_token(&context.line[..context.name_start], v);
    }
    v.len() >= 8
}
