//! A language-agnostic lexer for one changed line: identifiers split into lower-case words,
//! numbers, the words of short string literals, and operators. Hand-written (no regex), so a
//! hook process pays nothing to set it up.
//!
//! Identifiers are split at `_`, `-`, `.` inside names and at case changes (`isAdmin` →
//! `is`, `admin`; `HTTPHeader` → `http`, `header`), so the same idea reads the same in Go,
//! Python, Java or Ruby.

use std::borrow::Cow;

/// What a token is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TokenKind {
    /// A lower-case word of an identifier or keyword.
    Word,
    /// A whole identifier, lower-cased (only when it splits into several words).
    Ident,
    /// A number.
    Number,
    /// A lower-case word inside a short string literal.
    StrWord,
    /// An operator or punctuation.
    Op,
}

/// One token of a line. Its text is borrowed from the line where the line already spells it
/// (operators, names already in lower case), so most tokens cost no allocation.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Token<'a> {
    pub kind: TokenKind,
    pub text: Cow<'a, str>,
}

/// String literals longer than this contribute no words (data, not names).
const MAX_STRING_WORDS: usize = 48;
/// Longest prefix of a line that is read; minified or generated lines stay cheap.
const MAX_LINE: usize = 400;

/// Operators read as one token, longest first.
const OPERATORS: &[&str] = &[
    "===", "!==", "<=>", "...", "**=", "<<=", ">>=", "&&=", "||=", "??=", "==", "!=", "<=", ">=",
    "&&", "||", "->", "=>", "::", "?.", "??", "<<", ">>", "+=", "-=", "*=", "/=", "%=", "|=", "&=",
    "^=", ":=", "++", "--", "..",
];

/// The tokens of `line`.
pub fn tokenize(line: &str) -> Vec<Token<'_>> {
    let line = clip(line, MAX_LINE);
    let bytes = line.as_bytes();
    // About one token for every few bytes of code: grown once or never.
    let mut out = Vec::with_capacity(line.len() / 3 + 1);
    let mut i = 0;
    while i < bytes.len() {
        let b = bytes[i];
        if b.is_ascii_whitespace() {
            i += 1;
        } else if b.is_ascii_alphabetic() || b == b'_' || b == b'$' || b >= 0x80 {
            let start = i;
            while i < bytes.len()
                && (bytes[i].is_ascii_alphanumeric()
                    || bytes[i] == b'_'
                    || bytes[i] == b'$'
                    || bytes[i] >= 0x80)
            {
                i += 1;
            }
            // `!` and `?` end Ruby and Rust names (`save!`, `empty?`, `panic!`).
            if i < bytes.len() && (bytes[i] == b'!' || bytes[i] == b'?') {
                let next = bytes.get(i + 1).copied().unwrap_or(b' ');
                if next != b'=' && next != b'.' && next != b'?' {
                    i += 1;
                }
            }
            identifier(&line[start..i], &mut out);
        } else if b.is_ascii_digit() {
            let start = i;
            while i < bytes.len()
                && (bytes[i].is_ascii_alphanumeric() || bytes[i] == b'.' || bytes[i] == b'_')
            {
                i += 1;
            }
            out.push(Token {
                kind: TokenKind::Number,
                text: ascii_lowered(&line[start..i]),
            });
        } else if b == b'"' || b == b'\'' || b == b'`' {
            let (body_end, end) = string_end(bytes, i);
            let body = &line[i + 1..body_end];
            out.push(Token {
                kind: TokenKind::Op,
                text: Cow::Borrowed("\""),
            });
            if body.len() <= MAX_STRING_WORDS {
                string_words(body, &mut out);
            }
            i = end;
        } else if let Some(len) = redaction_marker(&line[i..]) {
            // `[REDACTED:aws-access-key]`: one word for the redactor's marker, so its hyphens
            // are not read as arithmetic nor its type's words as the code's own names.
            out.push(Token {
                kind: TokenKind::Word,
                text: Cow::Borrowed("redacted"),
            });
            i += len;
        } else {
            let rest = &line[i..];
            // Only an operator that starts with this byte can match here.
            let op = OPERATORS
                .iter()
                .find(|op| op.as_bytes()[0] == b && rest.starts_with(*op))
                .map_or_else(|| &rest[..char_len(rest)], |op| &rest[..op.len()]);
            out.push(Token {
                kind: TokenKind::Op,
                text: Cow::Borrowed(op),
            });
            i += op.len();
        }
    }
    out
}

/// The length of the redactor's marker (`[REDACTED:type]`) at the start of `rest`, if any.
fn redaction_marker(rest: &str) -> Option<usize> {
    let body = rest.strip_prefix("[REDACTED:")?;
    let end = body.find(']')?;
    body[..end]
        .bytes()
        .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_')
        .then_some("[REDACTED:".len() + end + 1)
}

fn char_len(s: &str) -> usize {
    s.chars().next().map_or(1, char::len_utf8)
}

/// The longest prefix of `text` of at most `max` bytes that ends on a character boundary.
pub(super) fn clip(text: &str, max: usize) -> &str {
    if text.len() <= max {
        return text;
    }
    let mut end = max;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    &text[..end]
}

/// Where the body of the string starting at `start` ends (its closing quote, or the line's
/// end when unterminated), and where reading goes on.
fn string_end(bytes: &[u8], start: usize) -> (usize, usize) {
    let quote = bytes[start];
    let mut i = start + 1;
    while i < bytes.len() {
        match bytes[i] {
            // An escape skips the next byte; a multi-byte character is never a quote or a
            // backslash, so stepping into one only continues the scan.
            b'\\' => i += 2,
            b if b == quote => return (i, i + 1),
            _ => i += 1,
        }
    }
    (bytes.len(), bytes.len())
}

/// The words of a string literal: header names, keys, messages.
fn string_words<'a>(body: &'a str, out: &mut Vec<Token<'a>>) {
    for part in body.split(|c: char| !(c.is_ascii_alphanumeric() || c == '_')) {
        each_word(part, |word| {
            if word.len() > 1 && !word.bytes().all(|b| b.is_ascii_digit()) {
                out.push(Token {
                    kind: TokenKind::StrWord,
                    text: word,
                });
            }
        });
    }
}

/// An identifier as its words, plus the whole name (first) when it has several.
fn identifier<'a>(name: &'a str, out: &mut Vec<Token<'a>>) {
    let at = out.len();
    each_word(name, |word| {
        out.push(Token {
            kind: TokenKind::Word,
            text: word,
        });
    });
    if out.len() - at > 1 {
        let whole = Token {
            kind: TokenKind::Ident,
            text: ascii_lowered(name),
        };
        out.insert(at, whole);
    }
}

/// `text` with its ASCII capitals lowered; borrowed when it has none.
fn ascii_lowered(text: &str) -> Cow<'_, str> {
    if text.bytes().any(|b| b.is_ascii_uppercase()) {
        Cow::Owned(text.to_ascii_lowercase())
    } else {
        Cow::Borrowed(text)
    }
}

/// `text` lower-cased; borrowed when that changes nothing (ASCII without capitals).
fn lowered(text: &str) -> Cow<'_, str> {
    if text.is_ascii() {
        ascii_lowered(text)
    } else {
        Cow::Owned(text.to_lowercase())
    }
}

/// `isHTTPSecure_v2` → `is`, `http`, `secure`, `v2`; `$` and trailing `!`/`?` are kept on
/// the last word (`save!`).
pub fn split_words(name: &str) -> Vec<String> {
    let mut words = Vec::new();
    each_word(name, |word| words.push(word.into_owned()));
    words
}

/// Hands each word of `name` to `f`, in order, as [`split_words`] cuts them.
fn each_word<'a>(name: &'a str, mut f: impl FnMut(Cow<'a, str>)) {
    for part in name.split(['_', '-', '.', '$']) {
        // The part's characters with their byte offsets: a word is lower-cased straight from
        // its slice of the part, without copying the part into characters first.
        let mut start = 0;
        let mut chars = part.char_indices().peekable();
        let mut prev: Option<char> = None;
        while let Some((i, cur)) = chars.next() {
            let next_lower = chars.peek().is_some_and(|(_, c)| c.is_lowercase());
            let boundary = prev.is_some_and(|prev| {
                (prev.is_lowercase() && cur.is_uppercase())
                    || (prev.is_uppercase() && cur.is_uppercase() && next_lower)
                    || (prev.is_ascii_digit() && cur.is_uppercase())
            });
            if boundary {
                f(lowered(&part[start..i]));
                start = i;
            }
            prev = Some(cur);
        }
        if start < part.len() {
            f(lowered(&part[start..]));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn texts(line: &str) -> Vec<String> {
        tokenize(line)
            .into_iter()
            .map(|t| t.text.into_owned())
            .collect()
    }

    #[test]
    fn words_split_across_conventions() {
        assert_eq!(split_words("isAdmin"), ["is", "admin"]);
        assert_eq!(split_words("HTTPHeader"), ["http", "header"]);
        assert_eq!(split_words("max_body_size"), ["max", "body", "size"]);
        assert_eq!(split_words("utf8Decode"), ["utf8", "decode"]);
        assert_eq!(split_words("save!"), ["save!"]);
    }

    #[test]
    fn lines_tokenize() {
        assert_eq!(
            texts("if !user.isAdmin() && n <= 10 {"),
            [
                "if", "!", "user", ".", "isadmin", "is", "admin", "(", ")", "&&", "n", "<=", "10",
                "{"
            ]
        );
        let t = tokenize(r#"req.headers.remove("Proxy-Authorization")"#);
        assert!(
            t.iter()
                .any(|t| t.kind == TokenKind::StrWord && t.text == "authorization")
        );
        assert!(
            t.iter()
                .any(|t| t.kind == TokenKind::StrWord && t.text == "proxy")
        );
        let t = texts("a <= b && c?.d ?? e");
        for op in ["<=", "&&", "?.", "??"] {
            assert!(t.contains(&op.to_string()), "{op} in {t:?}");
        }
        assert_eq!(texts("x == 0x1F"), ["x", "==", "0x1f"]);
        // The redactor's marker is one word: no `-` to read as arithmetic.
        assert_eq!(
            texts("AWS_KEY=[REDACTED:aws-access-key] # note"),
            ["aws_key", "aws", "key", "=", "redacted", "#", "note"]
        );
        assert_eq!(texts("a[REDACTED b]"), ["a", "[", "redacted", "b", "]"]);
    }

    proptest::proptest! {
        // Changed lines are outside input: any text must tokenize without panicking.
        #[test]
        fn any_line_tokenizes(line in "(?s).{0,120}", quote in "[\"'`]", tail in "\\PC{0,6}") {
            let _ = tokenize(&line);
            let _ = tokenize(&format!("{quote}{line}{tail}"));
            let _ = tokenize(&format!("x = {quote}\\{tail}"));
        }
    }

    #[test]
    fn any_text_tokenizes() {
        for line in [
            "",
            "\"unterminated",
            "'",
            "\\",
            "é€😀 = ß",
            "a\"b\\\"c\"d",
            "1.2.3e4",
        ] {
            let _ = tokenize(line);
        }
        let long = "x".repeat(10_000);
        assert!(tokenize(&long).len() <= 2);
    }
}
