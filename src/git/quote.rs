//! Git's C-style path quoting, as used in diff headers and alternate object lists.

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
    fn alternates_are_always_quoted() {
        let v = alternates(&[Path::new("/a:b"), Path::new("/c\"d")]);
        assert_eq!(v, OsString::from("\"/a:b\":\"/c\\\"d\""));
    }
}
