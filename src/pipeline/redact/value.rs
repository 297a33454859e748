//! Value judgement: whether a matched value reads as a secret (random enough, not a
//! placeholder, a version, a path, a template or a word) rather than ordinary text.

use super::*;

/// Shannon entropy in bits per byte.
pub(super) fn entropy(value: &[u8]) -> f64 {
    if value.is_empty() {
        return 0.0;
    }
    let mut counts = [0u32; 256];
    for &b in value {
        counts[usize::from(b)] += 1;
    }
    let n = value.len() as f64;
    counts
        .iter()
        .filter(|&&c| c > 0)
        .map(|&c| {
            let p = f64::from(c) / n;
            -p * p.log2()
        })
        .sum()
}

/// Character classes present: lower, upper, digit, other.
pub(super) fn classes(value: &[u8]) -> (bool, bool, bool, bool) {
    let mut c = (false, false, false, false);
    for &b in value {
        match b {
            b'a'..=b'z' => c.0 = true,
            b'A'..=b'Z' => c.1 = true,
            b'0'..=b'9' => c.2 = true,
            _ => c.3 = true,
        }
    }
    c
}

/// A value that looks like a machine-generated token rather than a word or an identifier.
pub(super) fn looks_opaque(value: &[u8]) -> bool {
    if value.len() < 8
        || is_placeholder(value)
        || is_identifier_words(value)
        || implausible_alphabet(value)
    {
        return false;
    }
    let (lower, upper, digit, _) = classes(value);
    let letters = lower || upper;
    (letters && digit && entropy(value) >= 3.0) || (value.len() >= 20 && entropy(value) >= 3.5)
}

/// `Basic <base64>` that decodes to `user:password`.
pub(super) fn basic_credentials(value: &[u8]) -> bool {
    base64_decode(value).is_some_and(|plain| {
        plain.contains(&b':') && plain.iter().all(|&b| (0x20..0x7f).contains(&b))
    })
}

pub(super) fn base64_decode(value: &[u8]) -> Option<Vec<u8>> {
    let trimmed: Vec<u8> = value.iter().copied().filter(|&b| b != b'=').collect();
    let mut out = Vec::with_capacity(trimmed.len() * 3 / 4);
    let mut acc = 0u32;
    let mut bits = 0;
    for b in trimmed {
        let v = match b {
            b'A'..=b'Z' => b - b'A',
            b'a'..=b'z' => b - b'a' + 26,
            b'0'..=b'9' => b - b'0' + 52,
            b'+' | b'-' => 62,
            b'/' | b'_' => 63,
            _ => return None,
        };
        acc = (acc << 6) | u32::from(v);
        bits += 6;
        if bits >= 8 {
            bits -= 8;
            out.push((acc >> bits) as u8);
            acc &= (1 << bits) - 1;
        }
    }
    Some(out)
}

/// A token that reads as machine-generated: long, mixed letters and digits, high entropy,
/// and not a digest, a version, a path of words, a UUID or public key material. `before` is
/// the line up to the token.
pub(super) fn random_token(before: &[u8], value: &[u8]) -> bool {
    let mut v = value;
    while let Some(rest) = v.strip_suffix(b"=") {
        v = rest;
    }
    // Cheap tests first: most candidates in code are identifiers without digits. A long
    // token of dense mixed-case letters with few digits (a base64url secret can have one or
    // none) counts too.
    if v.len() < MIN_NEAR_TOKEN {
        return false;
    }
    let digits = v.iter().any(u8::is_ascii_digit);
    let letters = v.iter().any(u8::is_ascii_alphabetic);
    let mixed_segments = || {
        digits
            && letters
            && v.split(|b| matches!(b, b'_' | b'-' | b'.' | b'/' | b'+' | b'=' | b'~'))
                .any(random_segment)
    };
    // A shorter token must show it more: many switches between letters and digits.
    let short_random = || {
        v.len() >= 16
            || v.windows(2)
                .filter(|w| w[0].is_ascii_digit() != w[1].is_ascii_digit())
                .count()
                >= 5
    };
    // Letters and digits at an entropy that words joined by separators do not reach, even
    // when the digits are too few to make a segment look random. The cheap byte tests run
    // first; the entropy and the word tests only for what passes them.
    let dense_mixed = || {
        v.len() >= 20
            && digits
            && letters
            && v.iter()
                .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'-' | b'+' | b'/'))
            && entropy(v) >= 4.0
            && !reads_as_words(v)
            && !segments_read_as_words(v)
    };
    if !((mixed_segments() && short_random()) || dense_mixed() || dense_letters(v)) {
        return false;
    }
    // A path segment or a member (`Suite::Chacha20Poly1305`, `.v2Beta3Client`) is code.
    if before.ends_with(b"::") || before.ends_with(b".") {
        return false;
    }
    let lower_before = before[before.len().saturating_sub(8)..].to_ascii_lowercase();
    if [&b"sha1:"[..], b"sha256:", b"sha384:", b"sha512:", b"md5:"]
        .iter()
        .any(|p| lower_before.ends_with(p))
    {
        return false;
    }
    if is_placeholder(v)
        || is_identifier_words(v)
        || is_uuid(v)
        || is_traceparent(v)
        || implausible_alphabet(v)
    {
        return false;
    }
    let lower = v.to_ascii_lowercase();
    if [
        &b"sha1-"[..],
        b"sha256-",
        b"sha384-",
        b"sha512-",
        b"aaaa",
        b"0x",
    ]
    .iter()
    .any(|p| lower.starts_with(p))
    {
        return false;
    }
    // Versions and addresses: `1.2.3-beta.4`, `10.0.0.1`.
    if v[0].is_ascii_digit() && v.contains(&b'.') {
        return false;
    }
    let hex = v.iter().all(u8::is_ascii_hexdigit);
    if hex {
        // A hex value on a line that names a digest is one (`checksum … = "…"`).
        let line = before.to_ascii_lowercase();
        if DIGEST_WORDS.iter().any(|w| find(&line, w).is_some()) {
            return false;
        }
        return v.len() >= 20 && entropy(v) >= 3.0;
    }
    entropy(v) >= 3.3
}

/// Words that make a hex value on their line a digest or a revision, not a key.
pub(super) const DIGEST_WORDS: &[&[u8]] = &[
    b"checksum",
    b"digest",
    b"sha1",
    b"sha256",
    b"sha512",
    b"md5",
    b"integrity",
    b"commit",
    b"revision",
    b"etag",
    b"guid",
    b"uuid",
];

/// Twenty-four or more characters of both cases whose entropy (4.2 bits a byte and up)
/// only generated text reaches; identifiers of words stay below it.
pub(super) fn dense_letters(v: &[u8]) -> bool {
    v.len() >= 24
        && v.iter()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'-'))
        && v.iter().any(u8::is_ascii_lowercase)
        && v.iter().any(u8::is_ascii_uppercase)
        && entropy(v) >= 4.2
        && !reads_as_words(v)
        && !segments_read_as_words(v)
}

/// Mixed-case text whose humps are mostly pronounceable words of three letters or more
/// (`FMRB_OnlyReadsInaccessibleOrArgMem`, `xmlSecGCryptAppGetDefaultPwdCallback`): an
/// identifier. Random mixed-case text cuts into humps that are rarely words: at 60% of its
/// letters in such humps, about 3 in 100 random tokens pass for a name.
pub(super) fn reads_as_words(v: &[u8]) -> bool {
    if !(v.iter().any(u8::is_ascii_lowercase) && v.iter().any(u8::is_ascii_uppercase)) {
        return false;
    }
    let words = split_words(v);
    let total: usize = words.iter().map(Vec::len).sum();
    let wordy: usize = words
        .iter()
        .filter(|w| {
            let letters = w.iter().filter(|b| b.is_ascii_alphabetic()).count();
            let vowels = w
                .iter()
                .filter(|b| matches!(b, b'a' | b'e' | b'i' | b'o' | b'u'))
                .count();
            letters >= 3 && vowels * 5 >= letters && vowels * 5 <= letters * 3
        })
        .map(Vec::len)
        .sum();
    total > 0 && wordy * 5 >= total * 3
}

/// Whether the line around a token (not the token itself, whose random letters may spell
/// one) names a credential or a provider.
pub(super) fn mentions_near_keyword(before: &[u8], after: &[u8]) -> bool {
    let around = [before, after].concat().to_ascii_lowercase();
    catalog::NEAR_TRIGGERS
        .iter()
        .chain(catalog::NEAR_PROVIDERS)
        .any(|k| find(&around, k.as_bytes()).is_some())
}

/// A piece of a token that mixes letters and digits the way generated text does, rather than
/// a word with a numeric tail (`migration2024`, `v2`).
pub(super) fn random_segment(segment: &[u8]) -> bool {
    if segment.len() < 8 {
        return false;
    }
    let (lower, upper, digit, _) = classes(segment);
    if !digit || !(lower || upper) {
        return false;
    }
    let switches = segment
        .windows(2)
        .filter(|w| w[0].is_ascii_digit() != w[1].is_ascii_digit())
        .count();
    switches >= 3
}

/// A W3C trace context header value: `00-<32 hex>-<16 hex>-<2 hex>`.
pub(super) fn is_traceparent(v: &[u8]) -> bool {
    let parts: Vec<&[u8]> = v.split(|&b| b == b'-').collect();
    parts.len() == 4
        && parts
            .iter()
            .zip([2, 32, 16, 2])
            .all(|(p, n)| p.len() == n && p.iter().all(u8::is_ascii_hexdigit))
}

pub(super) fn is_uuid(v: &[u8]) -> bool {
    v.len() == 36
        && v.iter().enumerate().all(|(i, b)| {
            if matches!(i, 8 | 13 | 18 | 23) {
                *b == b'-'
            } else {
                b.is_ascii_hexdigit()
            }
        })
}

/// Values that stand for a secret without being one: templates, references, examples.
pub(super) fn is_placeholder(value: &[u8]) -> bool {
    let lower = value.to_ascii_lowercase();
    let has = |needle: &[u8]| find(&lower, needle).is_some();
    is_template(value)
        || has(b"${")
        || has(b"{{")
        || has(b"#{")
        || has(b"<%")
        || has_format_verb(value)
        || has(b"xxxx")
        || has(b"***")
        || has(b"...")
        || has(b"your_")
        || has(b"your-")
        || has(b"placeholder")
        || has(b"redacted")
        || has(b"changeme")
        || has(b"replace_with")
        || has(b"replace-with")
        || has(b"replace_me")
        || has(b"insert_")
        || has(b"_here")
        || has(b"-here")
        || matches!(
            lower.as_slice(),
            b"password" | b"pass" | b"passwd" | b"pwd" | b"secret" | b"token" | b"user"
        )
}

/// A whole value that is a template variable or a reference: `$VAR`, `${…}`, `$(…)`,
/// `%VAR%`, `<your-key>`, `{0}`, `{name}`, `@TOKEN@`, `:name`.
pub(super) fn is_template(v: &[u8]) -> bool {
    let ident = |s: &[u8]| {
        !s.is_empty()
            && s.iter()
                .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'.' | b'-'))
    };
    match (v.first(), v.last()) {
        (Some(b'$'), _) => {
            matches!(v.get(1), Some(b'{' | b'('))
                || ident(&v[1..])
                || v[1..]
                    .split(|&b| b == b':')
                    .filter(|part| !part.is_empty())
                    .all(|part| ident(part) && part.len() < 40)
        }
        (Some(b'%'), Some(b'%')) => v.len() > 2 && ident(&v[1..v.len() - 1]),
        (Some(b'<'), _) => v.contains(&b'>'),
        (Some(b'{'), Some(b'}')) => true,
        (Some(b'@'), Some(b'@')) => {
            let inner: &[u8] = {
                let start = v.iter().position(|&b| b != b'@').unwrap_or(v.len());
                let end = v.iter().rposition(|&b| b != b'@').map_or(start, |e| e + 1);
                &v[start..end.max(start)]
            };
            ident(inner)
        }
        _ => false,
    }
}

/// A printf or `%(name)s` verb standing alone, not `%s` inside random text (`c%sq`).
pub(super) fn has_format_verb(v: &[u8]) -> bool {
    v.iter().enumerate().any(|(i, &b)| {
        if b != b'%' || (i > 0 && v[i - 1].is_ascii_alphanumeric()) {
            return false;
        }
        let rest = &v[i + 1..];
        let verb = |r: &[u8]| {
            matches!(r.first(), Some(b's' | b'v' | b'd' | b'q'))
                && !r.get(1).is_some_and(u8::is_ascii_alphanumeric)
        };
        verb(rest)
            || (rest.first() == Some(&b'(')
                && rest.iter().position(|&c| c == b')').is_some_and(|close| {
                    close > 1
                        && rest[1..close]
                            .iter()
                            .all(|c| c.is_ascii_alphanumeric() || *c == b'_')
                        && verb(&rest[close + 1..])
                }))
    })
}

/// Values printed in providers' documentation and filler standing in for a token: they
/// match a format but protect nothing. `EXAMPLE` in the value (AWS's documented keys), a run
/// of one filler character (`XXXXXX`, `******`, `000000`, `......`), one character making up
/// most of the value (`AAAA…==`), a run of the alphabet (`abcdefgh`), and the few
/// well-known example tokens of providers' docs.
pub(super) fn is_filler(v: &[u8]) -> bool {
    if v.len() < 8 {
        return false;
    }
    if v.windows(7).any(|w| w.eq_ignore_ascii_case(b"example")) || DOCUMENTED_EXAMPLES.contains(&v)
    {
        return true;
    }
    let mut counts = [0usize; 256];
    let (mut run, mut longest_filler, mut sequence, mut longest_sequence) = (0, 0, 0, 0);
    for (i, &b) in v.iter().enumerate() {
        counts[usize::from(b)] += 1;
        run = if i > 0 && v[i - 1] == b { run + 1 } else { 1 };
        if matches!(b, b'x' | b'X' | b'*' | b'#' | b'0' | b'.') {
            longest_filler = longest_filler.max(run);
        }
        // Letters only: ten digits in a row (`0123456789`) are a fake someone typed, but
        // also the whole digit alphabet, and fixtures use them as the random part.
        sequence = if i > 0 && b.is_ascii_alphabetic() && v[i - 1].wrapping_add(1) == b {
            sequence + 1
        } else {
            1
        };
        longest_sequence = longest_sequence.max(sequence);
    }
    let dominant = counts.iter().max().copied().unwrap_or(0);
    longest_filler >= 6 || longest_sequence >= 8 || (v.len() >= 12 && dominant * 2 > v.len())
}

/// Example tokens that providers print in their documentation, verbatim.
pub(super) const DOCUMENTED_EXAMPLES: &[&[u8]] = &[
    // Stripe's API reference.
    b"sk_test_4eC39HqLyjWDarjtT1zdp7dc",
    b"pk_test_TYooMQauvdEDq54NiTphI7jx",
    b"sk_test_BQokikJOvBiI2HlWgH4olfQ2",
    // GitHub's docs on token formats.
    b"ghp_16C7e42F292c6912E7710c838347Ae178B4a",
    // Slack's and Mailgun's API docs, Google's Maps samples.
    b"xoxb-17653672481-19874698323-pdFZKVeTuE8sk7oOcBrzbqgy",
    b"key-3ax6xnjp29jd6fds4gc373sgvjxteol0",
    b"AIzaSyD-9tSrke72PouQMnMX-a7eZSW0jkFMBWY",
    // The token jwt.io shows by default.
    b"eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.\
      eyJzdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6IkpvaG4gRG9lIiwiaWF0IjoxNTE2MjM5MDIyfQ.\
      SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c",
];

/// Text whose alphabet makes a credential implausible however random it looks: a long run
/// over at most five symbols (a DNA or RNA sequence, a bit string) or letters of one case
/// only (words run together, a protein sequence); generated credentials mix in digits.
pub(super) fn implausible_alphabet(v: &[u8]) -> bool {
    if v.len() < 16 {
        return false;
    }
    let mut seen = [false; 256];
    for &b in v {
        seen[usize::from(b)] = true;
    }
    let distinct = seen.iter().filter(|&&s| s).count();
    let one_case = v.len() >= 20
        && (v.iter().all(u8::is_ascii_lowercase) || v.iter().all(u8::is_ascii_uppercase));
    distinct <= 5 || one_case
}

/// Text no password generator writes: lower-case letters only (a word, `poneyland`), or
/// escaped line breaks (`hell\\0o\\r\\nBread:` is the text of a request).
pub(super) fn is_prose(v: &[u8]) -> bool {
    let vowels = v
        .iter()
        .filter(|b| matches!(b, b'a' | b'e' | b'i' | b'o' | b'u' | b'y'))
        .count();
    // Random lower-case letters (a Google app password) are neither: few vowels, long
    // consonant runs.
    (v.iter().all(u8::is_ascii_lowercase) && vowels * 4 >= v.len() && segment_reads_as_word(v))
        || v.windows(2).any(|w| w == b"\\n" || w == b"\\r")
}

/// A version or build string: `1.2.3`, `v3.2.2-rc.5+build.7`.
pub(super) fn is_version(v: &[u8]) -> bool {
    let digits = v.strip_prefix(b"v").unwrap_or(v);
    digits.first().is_some_and(u8::is_ascii_digit)
        && digits
            .iter()
            .take_while(|b| b.is_ascii_digit() || **b == b'.')
            .filter(|b| **b == b'.')
            .count()
            >= 1
}

/// A file-system path made of names (`/etc/app/secret.json`, `./certs/server.key`,
/// `C:\\data\\key.pem`), not base64 that happens to begin with `/`.
pub(super) fn looks_like_path(v: &[u8]) -> bool {
    let lower = v.to_ascii_lowercase();
    let rooted = lower.starts_with(b"/")
        || lower.starts_with(b"./")
        || lower.starts_with(b"../")
        || lower.starts_with(b"~/")
        || (v.len() > 2
            && v[0].is_ascii_alphabetic()
            && v[1] == b':'
            && matches!(v[2], b'\\' | b'/'));
    // `certs/end.key`, `SOFTWARE\\Microsoft\\VisualStudio`: separated names, the last with
    // an extension, or names only.
    let separators = v.iter().filter(|&&b| b == b'/' || b == b'\\').count();
    let last = v.rsplit(|&b| b == b'/' || b == b'\\').next().unwrap_or(v);
    let extension = last
        .iter()
        .rposition(|&b| b == b'.')
        .is_some_and(|dot| dot > 0 && (1..=5).contains(&(last.len() - dot - 1)));
    let relative = separators >= 1
        && (extension
            || (separators >= 2
                && v.split(|&b| b == b'/' || b == b'\\')
                    .all(|s| !s.is_empty() && segment_reads_as_word(s))));
    (rooted || relative)
        && !v.contains(&b'+')
        && !v.ends_with(b"=")
        && v.split(|b| matches!(b, b'/' | b'\\'))
            .all(|segment| segment.len() < 20 || !random_segment(segment))
}

/// A piece of a name that reads as a word: its letters, cut at digits, are pieces of at
/// most three letters or hold a vowel and no run of five consonants (`chacha20`,
/// `x25519`, `Microsoft`), which random letters rarely manage.
pub(super) fn segment_reads_as_word(segment: &[u8]) -> bool {
    segment
        .split(|b| !b.is_ascii_alphabetic())
        .filter(|part| !part.is_empty())
        .all(|part| {
            if part.len() <= 3 {
                return true;
            }
            let vowel = |b: &u8| {
                matches!(
                    b.to_ascii_lowercase(),
                    b'a' | b'e' | b'i' | b'o' | b'u' | b'y'
                )
            };
            let mut run = 0;
            let mut longest = 0;
            for b in part {
                run = if vowel(b) { 0 } else { run + 1 };
                longest = longest.max(run);
            }
            part.iter().any(vowel) && longest < 5
        })
}

/// Names joined by `_ - . /` (`TLS13_CHACHA20_POLY1305_SHA256`, `riscv64gc-unknown-linux`):
/// every piece reads as a word.
pub(super) fn segments_read_as_words(v: &[u8]) -> bool {
    v.split(|b| matches!(b, b'_' | b'-' | b'.' | b'/' | b'+'))
        .filter(|s| !s.is_empty())
        .all(segment_reads_as_word)
}

/// Whether a name (`NAME` of `NAME=value`) is an identifier: a letter or `_`, then letters,
/// digits, `_`, `.` or `-`.
pub(super) fn is_name(v: &[u8]) -> bool {
    v.first()
        .is_some_and(|b| b.is_ascii_alphabetic() || *b == b'_')
        && v.iter()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'.' | b'-'))
}

/// The password of `scheme://user:password@host`, unless it is a placeholder or a
/// documented default that repeats the user name (`guest:guest`).
pub(super) fn url_password(user: &[u8], password: &[u8]) -> bool {
    password.len() >= 3
        && !is_placeholder(password)
        && !(password.len() < 16 && user.eq_ignore_ascii_case(password))
}

/// The value of `Password=`/`Pwd=` in a connection string: the line must hold another key of
/// one (`Server=`, `User ID=`, `jdbc:`, …), and the value must not be a placeholder.
pub(super) fn connection_password(line: &[u8], value: &[u8]) -> bool {
    let lower = line.to_ascii_lowercase();
    let context = CONNECTION_KEYS.iter().any(|k| find(&lower, k).is_some());
    context
        && value.len() >= 3
        && !is_placeholder(value)
        && !is_identifier_words(value)
        && !value.contains(&b'+')
        && !matches!(
            value.first(),
            Some(b'$' | b'{' | b'%' | b'"' | b'\'' | b'(' | b'[')
        )
}

/// Keys that make a line a connection string (ADO.NET, ODBC, JDBC, libpq, Azure).
pub(super) const CONNECTION_KEYS: &[&[u8]] = &[
    b"server=",
    b"data source=",
    b"datasource=",
    b"host=",
    b"hostname=",
    b"uid=",
    b"user id=",
    b"userid=",
    b"user=",
    b"username=",
    b"database=",
    b"initial catalog=",
    b"driver=",
    b"dsn=",
    b"provider=",
    b"port=",
    b"dbname=",
    b"endpoint=",
    b"accountname=",
    b"jdbc:",
    b"odbc",
    b"://",
];

/// A numeric literal of code: `0xC0000465_u32`, `1048576i32`, `16384u32`, `3.5f64`.
pub(super) fn is_number_literal(v: &[u8]) -> bool {
    let v = v.strip_prefix(b"-").unwrap_or(v);
    let lower = v.to_ascii_lowercase();
    if let Some(hex) = lower.strip_prefix(b"0x") {
        return hex.iter().all(|b| b.is_ascii_alphanumeric() || *b == b'_');
    }
    let digits = lower
        .iter()
        .take_while(|b| b.is_ascii_digit() || matches!(b, b'_' | b'.'))
        .count();
    digits > 0
        && matches!(
            &lower[digits..],
            b"" | b"u8"
                | b"u16"
                | b"u32"
                | b"u64"
                | b"u128"
                | b"usize"
                | b"i8"
                | b"i16"
                | b"i32"
                | b"i64"
                | b"i128"
                | b"isize"
                | b"f32"
                | b"f64"
                | b"l"
                | b"ul"
                | b"ull"
                | b"ll"
                | b"u"
                | b"f"
                | b"d"
                | b"m"
        )
}

/// A strong-named value (quoted, or literal by context) that is a secret.
pub(super) fn quoted_or_literal_is_secret(v: &[u8]) -> bool {
    if v.len() < 6 || is_placeholder(v) {
        return false;
    }
    if v.iter().any(u8::is_ascii_whitespace) {
        return false;
    }
    let lower = v.to_ascii_lowercase();
    if looks_like_path(v) || find(&lower, b"://").is_some() {
        return false;
    }
    if implausible_alphabet(v) || is_version(v) || is_traceparent(v) || is_prose(v) {
        return false;
    }
    if TYPE_WORDS.contains(&lower.as_slice()) || COMMON_VALUES.contains(&lower.as_slice()) {
        return false;
    }
    // Words joined by separators or humps name something (`access_token`, `X-Api-Key`).
    if is_identifier_words(v) && split_words(v).len() >= 2 {
        return false;
    }
    let (_, _, digit, _) = classes(v);
    v.len() >= 8 || digit
}

/// Ordinary values that a credential-named field often holds and that are not secrets.
pub(super) const COMMON_VALUES: &[&[u8]] = &[
    b"bearer",
    b"basic",
    b"digest",
    b"oauth",
    b"oauth2",
    b"required",
    b"optional",
    b"hidden",
    b"default",
    b"example",
    b"password",
    b"secret",
    b"token",
    b"string",
    b"disabled",
    b"enabled",
    b"invalid",
    b"expired",
    b"missing",
    b"unknown",
    b"masked",
    b"sha256",
    b"sha512",
    b"sha1",
    b"md5",
    b"bcrypt",
    b"argon2",
    b"argon2id",
    b"scrypt",
    b"pbkdf2",
    b"hs256",
    b"rs256",
    b"es256",
    b"base64",
    b"secrets",
    b"credentials",
    b"apikey",
    b"api_key",
    b"session",
    b"cookie",
    b"cookies",
    b"header",
    b"headers",
    b"query",
    b"body",
    b"access",
    b"refresh",
    b"generic",
    b"opaque",
    b"vault",
    b"keyring",
    b"keychain",
    b"environment",
    b"manual",
    b"client_credentials",
    b"authorization_code",
    b"new-password",
    b"current-password",
];

/// A value random enough to be a credential even under a loose name such as `key`.
pub(super) fn strong_value(v: &[u8]) -> bool {
    // Percent-encoded text is a URL or query fragment, not a raw token.
    if v.len() < 16 || is_placeholder(v) || v.iter().any(|b| b.is_ascii_whitespace() || *b == b'%')
    {
        return false;
    }
    if is_identifier_words(v) || implausible_alphabet(v) || looks_like_path(v) {
        return false;
    }
    let (lower, upper, digit, _) = classes(v);
    (lower || upper) && digit && entropy(v) >= 3.5
}

/// A quoted value under a loose name (`pass`, `pw`, `key` alone) that reads as a password:
/// upper- and lower-case letters and digits, or letters, digits and punctuation, and no
/// words or template.
pub(super) fn password_like(v: &[u8]) -> bool {
    if v.len() < 8
        || v.len() > 128
        || is_prose(v)
        || is_placeholder(v)
        || v.iter().any(|b| b.is_ascii_whitespace())
        || is_identifier_words(v)
        || is_version(v)
        || looks_like_path(v)
        || find(&v.to_ascii_lowercase(), b"://").is_some()
    {
        return false;
    }
    let (lower, upper, digit, _) = classes(v);
    let punctuation = v
        .iter()
        .any(|b| b.is_ascii_punctuation() && !matches!(b, b'_' | b'-' | b'.' | b'/' | b':'));
    ((lower && upper && digit) || ((lower || upper) && digit && punctuation)) && entropy(v) >= 3.0
}
