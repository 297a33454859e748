//! Git's C-style path quoting, as used in diff headers and alternate object lists, and its
//! inverse: every place in src/git that writes or reads a quoted path goes through here, so
//! the two directions cannot drift apart.

use std::ffi::OsString;
use std::path::Path;

/// Quotes `bytes` the way git does with `core.quotePath=true`: unchanged when nothing needs
/// quoting, else wrapped in double quotes with C escapes and octal for other bytes.
pub fn c_quote(bytes: &[u8]) -> Vec<u8> {
    let needs = bytes
        .iter()
        .any(|&b| !(0x20..0x7f).contains(&b) || b == b'"' || b == b'\\');
    if !needs {
        return bytes.to_vec();
    }
    let mut out = Vec::with_capacity(bytes.len() + 8);
    out.push(b'"');
    for &b in bytes {
        match b {
            0x07 => out.extend_from_slice(b"\\a"),
            0x08 => out.extend_from_slice(b"\\b"),
            b'\t' => out.extend_from_slice(b"\\t"),
            b'\n' => out.extend_from_slice(b"\\n"),
            0x0b => out.extend_from_slice(b"\\v"),
            0x0c => out.extend_from_slice(b"\\f"),
            b'\r' => out.extend_from_slice(b"\\r"),
            b'"' => out.extend_from_slice(b"\\\""),
            b'\\' => out.extend_from_slice(b"\\\\"),
            b if !(0x20..0x7f).contains(&b) => {
                out.extend_from_slice(format!("\\{b:03o}").as_bytes());
            }
            b => out.push(b),
        }
    }
    out.push(b'"');
    out
}

/// `prefix` + `path`, quoted as git quotes a name in a diff header (`a/x y` stays bare,
/// `a/tab\there` becomes `"a/tab\\there"`): the prefix is inside the quotes.
pub fn prefixed(prefix: &[u8], path: &[u8]) -> Vec<u8> {
    c_quote(&[prefix, path].concat())
}

/// Undoes git's C-style quoting of a path (`"a\tb"`, octal escapes); unquoted paths pass.
pub fn unquote(raw: &[u8]) -> Vec<u8> {
    let Some(inner) = raw.strip_prefix(b"\"").and_then(|r| r.strip_suffix(b"\"")) else {
        return raw.to_vec();
    };
    let mut out = Vec::with_capacity(inner.len());
    let mut i = 0;
    while i < inner.len() {
        let b = inner[i];
        if b != b'\\' || i + 1 == inner.len() {
            out.push(b);
            i += 1;
            continue;
        }
        let e = inner[i + 1];
        i += 2;
        out.push(match e {
            b'n' => b'\n',
            b't' => b'\t',
            b'r' => b'\r',
            b'a' => 7,
            b'b' => 8,
            b'f' => 12,
            b'v' => 11,
            b'0'..=b'7' => {
                let mut v = u32::from(e - b'0');
                for _ in 0..2 {
                    match inner.get(i) {
                        Some(&d @ b'0'..=b'7') => {
                            v = v * 8 + u32::from(d - b'0');
                            i += 1;
                        }
                        _ => break,
                    }
                }
                v as u8
            }
            other => other,
        });
    }
    out
}

/// The value of `GIT_ALTERNATE_OBJECT_DIRECTORIES` for `dirs`: each entry C-quoted, so a
/// path holding the list separator (`:` or `;`) or a quote is read back intact.
pub fn alternates(dirs: &[&Path]) -> OsString {
    let sep = if cfg!(windows) { b';' } else { b':' };
    let mut out = Vec::new();
    for (i, dir) in dirs.iter().enumerate() {
        if i > 0 {
            out.push(sep);
        }
        let raw = dir.as_os_str().as_encoded_bytes();
        let mut quoted = c_quote(raw);
        if quoted.first() != Some(&b'"') {
            quoted.insert(0, b'"');
            quoted.push(b'"');
        }
        out.extend_from_slice(&quoted);
    }
    #[allow(unsafe_code)]
    // SAFETY: the input was valid OS-string bytes; quoting only adds ASCII and replaces whole
    // bytes by ASCII escapes, which keeps the encoding's validity.
    unsafe {
        OsString::from_encoded_bytes_unchecked(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quotes_like_git() {
        let cases: &[(&[u8], &[u8])] = &[
            (b"plain.rs", b"plain.rs"),
            (b"with space", b"with space"),
            (b"-leading", b"-leading"),
            (b"tab\there", b"\"tab\\there\""),
            (b"new\nline", b"\"new\\nline\""),
            (b"quo\"te", b"\"quo\\\"te\""),
            (b"back\\slash", b"\"back\\\\slash\""),
            (b"caf\xc3\xa9", b"\"caf\\303\\251\""),
            (b"bad\xff", b"\"bad\\377\""),
            (b"del\x7f", b"\"del\\177\""),
            (b"bell\x07", b"\"bell\\a\""),
        ];
        for (raw, want) in cases {
            assert_eq!(
                c_quote(raw),
                want.to_vec(),
                "{}",
                String::from_utf8_lossy(raw)
            );
        }
    }

    #[test]
    fn unquote_reverses_quote() {
        for raw in [
            &b"plain.rs"[..],
            b"with space",
            b"tab\there",
            b"new\nline",
            b"quo\"te",
            b"back\\slash",
            b"caf\xc3\xa9",
            b"bad\xff",
            b"del\x7f",
            b"bell\x07\x08\x0b\x0c\r",
        ] {
            assert_eq!(
                unquote(&c_quote(raw)),
                raw,
                "{}",
                String::from_utf8_lossy(raw)
            );
        }
        // Git's short octal forms and an unknown escape read as git reads them.
        assert_eq!(unquote(b"\"a\\1b\\qc\""), b"a\x01bqc");
        assert_eq!(unquote(b"\"unterminated"), b"\"unterminated");
    }

    #[test]
    fn prefixed_quotes_prefix_and_path_together() {
        assert_eq!(prefixed(b"a/", b"x y"), b"a/x y");
        assert_eq!(prefixed(b"b/", b"t\tab"), b"\"b/t\\tab\"");
    }

    #[test]
    fn alternates_are_always_quoted() {
        let v = alternates(&[Path::new("/a:b"), Path::new("/c\"d")]);
        assert_eq!(v, OsString::from("\"/a:b\":\"/c\\\"d\""));
    }
}
