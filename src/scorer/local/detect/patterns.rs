//! The general patterns of introduced risk: verification switched off, permissions widened,
//! credentials logged, weak crypto, commands, code or markup built from strings, unsafe
//! deserialization, swallowed or discarded errors, resources and locks never released,
//! timeouts missing.

use super::*;

/// A check switched off: TLS certificates, SSH host keys, token signatures or lifetimes,
/// CSRF protection (tried in that order; the first that fits names the rule).
pub(super) fn verification_off(lower: &str, full: &str, dialect: Dialect) -> Option<Rule> {
    if tls_verify_off(lower, full, dialect) {
        return Some(Rule::TlsVerifyOff);
    }
    if any(full, HOST_KEY_OFF) || full.contains("stricthostkeychecking=no") {
        return Some(Rule::HostKeyOff);
    }
    if token_verify_off(full, dialect) {
        return Some(Rule::TokenVerifyOff);
    }
    if any(full, CSRF_OFF) {
        return Some(Rule::CsrfOff);
    }
    None
}

/// Settings that turn off TLS certificate or host name checks (without spaces, lower-cased).
const TLS_VERIFY_OFF: &[&str] = &[
    "verify=false",
    "insecureskipverify:true",
    "insecureskipverify=true",
    "rejectunauthorized:false",
    "rejectunauthorized=false",
    "_create_unverified_context",
    "check_hostname=false",
    "verify_mode=openssl::ssl::verify_none",
    "verify_mode:openssl::ssl::verify_none",
    "openssl::ssl::verify_none",
    "ssl_verify_none",
    "cert_none",
    "danger_accept_invalid_certs(true)",
    "danger_accept_invalid_hostnames(true)",
    "curlopt_ssl_verifypeer,false",
    "curlopt_ssl_verifypeer,0",
    "curlopt_ssl_verifyhost,0",
    "curlopt_ssl_verifyhost,false",
    "dangerousacceptanyservercertificatevalidator",
    "allow_all_hostname_verifier",
    "noophostnameverifier",
    "trustallcerts",
    "insecuretrustmanagerfactory",
    "verify_ssl=false",
    "ssl_verify=false",
    "sslverify:false",
    "\"strict-ssl\":false",
    "strictssl:false",
    "verifypeer:false",
    "verify_peer=>false",
    "'verify_peer'=>false",
    "\"verify_peer\"=>false",
    "'verify'=>false",
    "\"verify\"=>false",
];

/// TLS verification off: a known setting, `NODE_TLS_REJECT_UNAUTHORIZED=0`, `curl -k` or
/// `wget --no-check-certificate` in a script, a verifier or callback that accepts anything.
fn tls_verify_off(lower: &str, full: &str, dialect: Dialect) -> bool {
    let s = full;
    any(s, TLS_VERIFY_OFF)
        || full.contains("node_tls_reject_unauthorized")
            && (full.contains("'0'") || full.contains("\"0\"") || full.contains("=0"))
        || (dialect == Dialect::Shell || dialect == Dialect::Data)
            && (lower.contains("curl ") && (lower.contains(" -k ") || lower.contains("--insecure"))
                || lower.contains("wget ") && lower.contains("--no-check-certificate"))
        || s.contains("hostnameverifier") && s.contains("->true")
        || s.contains("=>true")
            && (s.contains("certificatevalidation") || s.contains("validationcallback"))
        || s.contains("certificatevalidationcallback") && s.contains("delegate{returntrue;}")
}

/// Settings that accept any SSH host key (without spaces, lower-cased).
const HOST_KEY_OFF: &[&str] = &[
    "insecureignorehostkey(",
    "autoaddpolicy(",
    "warningpolicy(",
    "stricthostkeychecking=no",
    "stricthostkeychecking:no",
    "known_hosts=/dev/null",
    "userknownhostsfile=/dev/null",
    "\"stricthostkeychecking\",\"no\"",
    "hostkeyverifier(promiscuousverifier",
    "newpromiscuousverifier(",
    "accept_new_host_keys",
    "verify_host_key:false",
    "verify_host_key::never",
    "paranoid:false",
];

/// Settings that skip a token's signature, algorithm, lifetime, issuer or audience check
/// (without spaces, lower-cased).
const TOKEN_VERIFY_OFF: &[&str] = &[
    "\"verify_signature\":false",
    "'verify_signature':false",
    "verify_signature=false",
    "algorithms=[\"none\"]",
    "algorithms=['none']",
    "algorithm:'none'",
    "algorithm:\"none\"",
    "ignoreexpiration:true",
    "\"verify_exp\":false",
    "'verify_exp':false",
    "verify_aud\":false",
    "verify_aud':false",
    "parseunverified(",
    "insecure_decode(",
    "validateissuersigningkey=false",
    "requiresignedtokens=false",
    "validatelifetime=false",
    "requireexpirationtime=false",
    "validateissuer=false",
    "validateaudience=false",
    "requireaudience=false",
    "validateactor=false",
    "validatetokenreplay=false",
];

/// A token read without checking it: a known setting, or a decode call that never verifies.
fn token_verify_off(full: &str, dialect: Dialect) -> bool {
    any(full, TOKEN_VERIFY_OFF)
        || (full.contains("jwt.decode(")
            && (full.contains("verify=false") || full.contains("options:{complete")))
        // Node's `jsonwebtoken` and Java's `com.auth0` `decode` never check the signature.
        || matches!(dialect, Dialect::Js | Dialect::Java)
            && full.contains("jwt.decode(")
            && !full.contains("jwt.verify(")
        || dialect == Dialect::Java
            && (full.contains(".parseclaimsjwt(") || full.contains(".parseunsecuredclaims("))
        // Ruby's `JWT.decode(token, key, false)`.
        || dialect == Dialect::Ruby && full.contains("jwt.decode(") && full.contains(",false")
}

/// Settings that exempt requests from CSRF protection (without spaces, lower-cased).
const CSRF_OFF: &[&str] = &[
    "@csrf_exempt",
    "csrf_exempt(",
    "@csrf.exempt",
    "skip_before_action:verify_authenticity_token",
    "skip_forgery_protection",
    "protect_from_forgerywith::null_session",
    "csrf().disable()",
    "csrf(abstracthttpconfigurer::disable)",
    "csrf(csrf->csrf.disable())",
    "csrf.disable()",
    "wtf_csrf_enabled=false",
    "csrf_enabled=false",
    "csrf:false",
    "[ignoreantiforgerytoken",
];

pub(super) fn permissions_widened(lower: &str, s: &str) -> bool {
    let mode_context = any(
        s,
        &[
            "chmod",
            "mkdir",
            "makedirs",
            "writefile",
            "openfile",
            "os.open(",
            "umask",
            "perm",
            "mode=",
            "mode:",
            "fs.open",
            "copyfile(",
            "install(",
        ],
    );
    let mode = if mode_context { file_mode(s) } else { None };
    let widened_mode =
        mode.is_some_and(|m| m & 0o002 != 0 || m & 0o070 == 0o070 || m & 0o007 == 0o007);
    let umask_off = s.contains("umask(0)")
        || s.contains("umask(0o0)")
        || s.contains("umask(0o000)")
        || s.contains("umask(000)");
    widened_mode
        || umask_off
        || lower.contains("chmod 777")
        || lower.contains("chmod -r 777")
        || lower.contains("chmod 666")
        || lower.contains("chmod 776")
        || lower.contains("chmod a+w")
        || lower.contains("chmod o+w")
        || lower.contains("chmod a+rwx")
        || lower.contains("chmod ugo+")
        || s.contains("s_iwoth")
        || s.contains("s_irwxo")
        || s.contains("os.modeperm") && (s.contains("mkdir") || s.contains("writefile"))
        || s.contains("\"rwxrwxrwx\"")
        || s.contains("\"rw-rw-rw-\"")
        || lower.contains("rwxrwxrwx") && lower.contains("posixfilepermissions")
        || s.contains("setwritable(true,false)")
        || any(
            lower,
            &[
                "acl: 'public-read",
                "acl: \"public-read",
                "acl='public-read",
                "acl=\"public-read",
                "acl: public-read",
                "\"acl\": \"public-read",
                "'acl' => 'public-read",
                "cannedacl.publicread",
                "predefined_acl=\"publicread",
                "allusers\"",
                "x-amz-acl\": \"public",
                "blockpublicacls: false",
                "block_public_acls = false",
                "blockpublicacls=false",
            ],
        )
}

/// Cross-origin access opened to every origin (`cors({ origin: '*' })`,
/// `Access-Control-Allow-Origin: *`, `CORS_ALLOW_ALL_ORIGINS = True`, `.AllowAnyOrigin()`,
/// `@CrossOrigin(origins = "*")`), read on the line lower-cased with strings kept, squeezed.
pub(super) fn cors_opened(full: &str) -> bool {
    // Every pattern below names an origin: most lines stop here.
    if !full.contains("origin") {
        return false;
    }
    let wildcard_origin = ["origin", "origins", "allowedorigins", "alloworigins"]
        .iter()
        .any(|k| {
            ["", "=", ":"].iter().any(|sep| {
                ["'*'", "\"*\"", "[]string{\"*\"}", "[\"*\"]", "['*']"]
                    .iter()
                    .any(|v| full.contains(&format!("{k}{sep}{v}")))
            })
        });
    let header = full.contains("access-control-allow-origin")
        && [
            "\",\"*\"",
            "','*'",
            ":*\"",
            ":*'",
            "\":\"*\"",
            "':'*'",
            "\"=>\"*\"",
            "'=>'*'",
        ]
        .iter()
        .any(|v| full.contains(v));
    wildcard_origin
        || header
        || any(
            full,
            &[
                "cors_origin_allow_all=true",
                "cors_allow_all_origins=true",
                "allowallorigins:true",
                "allowallorigins=true",
                ".allowanyorigin()",
                ".allowedorigins(\"*\")",
                ".allowedoriginpatterns(\"*\")",
                "@crossorigin(\"*\")",
            ],
        )
}

/// The file mode a squeezed line sets: its octal (`0o755`, `0755`) or hexadecimal literals,
/// or-ed together (`0o700 | 0o070`); decimal only when nothing else is there (`511`).
pub(super) fn file_mode(s: &str) -> Option<u32> {
    let b = s.as_bytes();
    let mut mode: Option<u32> = None;
    let mut decimal: Option<u32> = None;
    let mut i = 0;
    while i < b.len() {
        let starts = b[i].is_ascii_digit()
            && (i == 0
                || !(b[i - 1].is_ascii_alphanumeric() || b[i - 1] == b'_' || b[i - 1] == b'.'));
        if !starts {
            i += 1;
            continue;
        }
        let start = i;
        while i < b.len() && (b[i].is_ascii_alphanumeric() || b[i] == b'_') {
            i += 1;
        }
        let tok = s[start..i].replace('_', "");
        let value = if let Some(o) = tok.strip_prefix("0o") {
            u32::from_str_radix(o, 8).ok()
        } else if let Some(h) = tok.strip_prefix("0x") {
            u32::from_str_radix(h, 16).ok()
        } else if tok.len() >= 3
            && tok.starts_with('0')
            && tok.chars().all(|c| ('0'..='7').contains(&c))
        {
            u32::from_str_radix(&tok, 8).ok()
        } else {
            if tok.chars().all(|c| c.is_ascii_digit()) && tok.len() == 3 && !tok.starts_with('0') {
                decimal = tok.parse().ok().filter(|v: &u32| *v <= 0o777);
            }
            None
        };
        if let Some(v) = value.filter(|v| *v <= 0o7777) {
            mode = Some(mode.unwrap_or(0) | v);
        }
    }
    mode.or(decimal)
}

pub(super) const SECRET_NAMES: &[&str] = &[
    "password",
    "passwd",
    "secret",
    "token",
    "apikey",
    "api_key",
    "credential",
    "private_key",
    "privatekey",
];

pub(super) const LOG_CALLS: &[&str] = &[
    "log.",
    "logger.",
    "logging.",
    "console.log(",
    "console.info(",
    "console.debug(",
    "console.warn(",
    "console.error(",
    "print(",
    "println(",
    "printf(",
    "println!(",
    "eprintln!(",
    "debug!(",
    "info!(",
    "warn!(",
    "system.debug(",
    "system.out.print",
    "puts ",
    "rails.logger",
    "error_log(",
    "var_dump(",
    "print_r(",
    "fmt.print",
    "slog.",
    "zap.",
];

pub(super) fn credential_logged(raw: &str, code: &str) -> bool {
    if !LOG_CALLS.iter().any(|c| code.contains(c)) {
        return false;
    }
    // The secret must be a value in the call, not a word of the message: look in the code
    // outside string literals, and not at a length, a presence check or a redaction.
    let words = code
        .replace("len(", "")
        .replace(".length", "")
        .replace("redact", "");
    if any(
        &words,
        &[
            "is_none",
            "is not none",
            "!= nil",
            "== nil",
            "mask",
            "***",
            "expires",
            "tokenizer",
            "count",
        ],
    ) {
        return false;
    }
    let ident_chars = |c: char| c.is_ascii_alphanumeric() || c == '_' || c == '.';
    let idents = words
        .split(|c: char| !ident_chars(c))
        .filter(|w| !w.is_empty());
    let hit = idents.into_iter().any(|w| {
        let last = w.rsplit('.').next().unwrap_or(w);
        SECRET_NAMES.iter().any(|s| last.ends_with(s) || last == *s)
            && !last.ends_with("tokens")
            && !last.starts_with("csrf")
            && !last.contains("type")
    });
    // A secret interpolated into a message counts too (`f"token={token}"`, `${password}`).
    let lower = raw.to_ascii_lowercase();
    let interpolated = SECRET_NAMES.iter().any(|s| {
        lower.contains(&format!("{{{s}"))
            || lower.contains(&format!("${{{s}"))
            || lower.contains(&format!("#{{{s}"))
    });
    hit || interpolated
}

/// Random sources that are predictable, as called (lower case, no spaces): JavaScript's
/// `Math.random`, Python's `random` module, Go's `math/rand`, Java's and C#'s `Random`.
const WEAK_RANDOM: &[&str] = &[
    "math.random(",
    "random.random(",
    "random.randint(",
    "random.choice(",
    "random.choices(",
    "random.randrange(",
    "random.getrandbits(",
    "random.sample(",
    "rand.intn(",
    "rand.int63(",
    "rand.int31(",
    "rand.uint64(",
    "rand.uint32(",
    "newrandom(",
    "random().next",
    "mt_rand(",
    "uniqid(",
];

/// What a value made from randomness is for when it must not be guessed (lower case, no
/// spaces).
const SECRET_PURPOSES: &[&str] = &[
    "token",
    "secret",
    "password",
    "passwd",
    "nonce",
    "salt",
    "otp",
    "apikey",
    "api_key",
    "csrf",
    "sessionid",
    "session_id",
    "resetcode",
    "reset_code",
];

/// A predictable random source called on the line (`squeezed`: its code).
pub(super) fn weak_random(squeezed: &str, dialect: Dialect) -> bool {
    // Every source below holds `rand` but PHP's `uniqid(`: most lines stop here.
    if !squeezed.contains("rand") && !squeezed.contains("uniqid(") {
        return false;
    }
    let bare_rand = || {
        let b = squeezed.as_bytes();
        squeezed
            .match_indices("rand(")
            .any(|(at, _)| at == 0 || !(b[at - 1].is_ascii_alphanumeric() || b[at - 1] == b'_'))
    };
    (any(squeezed, WEAK_RANDOM) || matches!(dialect, Dialect::Php | Dialect::Ruby) && bare_rand())
        && !any(
            squeezed,
            &["securerandom", "systemrandom", "secrets.", "crypto."],
        )
}

/// Whether `context` (lower case, no spaces) says a value is a secret: a token, password,
/// nonce, salt or key.
pub(super) fn secret_purpose(context: &str) -> bool {
    any(context, SECRET_PURPOSES)
}

/// Every pattern below holds one of these words: a line without any is not about crypto.
const WEAK_CRYPTO_WORDS: &[&str] = &[
    "md",
    "sha",
    "des",
    "rc2",
    "rc4",
    "crypt",
    "cipher",
    "rand",
    "ecb",
    "cbc",
    "tls",
    "ssl",
    "key",
    "iv",
    "rsa",
    "dsa",
    "hash",
    "aes",
    "pbkdf",
    "iteration",
    "blowfish",
    "digest",
    "protocol",
    "algorithm",
    "socket",
    "bits",
    "modulus",
    "initialize",
    "rfc2898",
    "derive",
    "argon",
    "generate",
];

/// Weak hashes, ciphers, modes, protocol versions, key sizes and KDF work factors.
pub(super) fn weak_crypto(lower: &str, s: &str, dialect: Dialect) -> bool {
    if !any(lower, WEAK_CRYPTO_WORDS) {
        return false;
    }
    if any(
        s,
        &[
            "usedforsecurity=false",
            "checksum",
            "etag",
            "cachekey",
            "cache_key",
        ],
    ) {
        return false;
    }
    // Hashes and ciphers broken for security use.
    let broken = any(s, BROKEN_CIPHERS);
    // Protocol versions that are broken or deprecated.
    let old_protocol = deprecated_protocol(s, dialect);
    // Hashing a password with a fast, broken hash.
    let password_hash = (s.contains("md5(") || s.contains("sha1("))
        && any(s, &["password", "passwd", "pass)", "secret"]);
    // `(SslProtocols)768`: a cast whose flags hold a whole weak protocol.
    let weak_cast = s.split_once("(sslprotocols)").is_some_and(|(_, r)| {
        let n: String = r.chars().take_while(char::is_ascii_digit).collect();
        n.parse::<u32>()
            .is_ok_and(|v| [12u32, 48, 192, 768].iter().any(|w| v & w == *w))
    });
    broken || old_protocol || weak_cast || password_hash || small_key(s) || few_iterations(s)
}

/// Hashes, ciphers and modes broken for security use (without spaces, lower-cased).
const BROKEN_CIPHERS: &[&str] = &[
    "hashlib.md5(",
    "hashlib.sha1(",
    "hashlib.md4(",
    "hashlib.new('md5'",
    "hashlib.new(\"md5\"",
    "hashlib.new('md4'",
    "hashlib.new(\"md4\"",
    "hashlib.new('sha1'",
    "hashlib.new(\"sha1\"",
    "hashlib.new('sha'",
    "hashlib.new(\"sha\"",
    "hashlib.sha(",
    "crypt.method_crypt",
    "crypt.method_md5",
    "crypt.method_blowfish",
    "md5.new(",
    "sha1.new(",
    "md4.new(",
    "md5.sum(",
    "sha1.sum(",
    "md5.new()",
    "sha1.new()",
    "getinstance(\"md5\"",
    "getinstance(\"md2\"",
    "getinstance(\"md4\"",
    "getinstance(\"sha1\"",
    "getinstance(\"sha-1\"",
    "getinstance(\"sha\"",
    "getinstance(\"des",
    "getinstance(\"desede",
    "getinstance(\"rc2",
    "getinstance(\"rc4",
    "getinstance(\"blowfish",
    "getinstance(\"aes\")",
    "/ecb/",
    "des.new(",
    "des3.new(",
    "arc4.new(",
    "arc2.new(",
    "blowfish.new(",
    "des.newcipher(",
    "des.newtripledescipher(",
    "rc4.newcipher(",
    "createcipher(",
    "createhash('md5'",
    "createhash(\"md5\"",
    "createhash('sha1'",
    "createhash(\"sha1\"",
    "createhash('md4'",
    "createcipheriv('des",
    "createcipheriv(\"des",
    "createcipheriv('rc4",
    "createcipheriv(\"rc4",
    "-ecb'",
    "-ecb\"",
    "pseudorandombytes(",
    "digest::md5",
    "digest::sha1",
    "openssl::digest::md5",
    "openssl::digest::sha1",
    "openssl::cipher.new('des",
    "openssl::cipher.new(\"des",
    "openssl::cipher.new('rc4",
    "md5.create()",
    "sha1.create()",
    "md5cryptoserviceprovider",
    "sha1cryptoserviceprovider",
    "sha1managed",
    "descryptoserviceprovider",
    "tripledescryptoserviceprovider",
    "rc2cryptoserviceprovider",
    "des.create(",
    "tripledes.create(",
    "rc2.create(",
    "ciphermode.ecb",
    "ciphermode.ofb",
    "ciphermode.cfb",
    "modes.ecb(",
    "mode_ecb",
    "algorithms.arc4(",
    "algorithms.tripledes(",
    "algorithms.blowfish(",
    "mcrypt_",
    "crypto.md5",
    "crypto.sha1",
];

/// Protocol versions that are broken or deprecated (without spaces, lower-cased).
const OLD_PROTOCOLS: &[&str] = &[
    "tls.versiontls10",
    "tls.versiontls11",
    "tls.versionssl30",
    "ssl.protocol_sslv2",
    "ssl.protocol_sslv3",
    "ssl.protocol_sslv23",
    "protocol_sslv2",
    "protocol_sslv3",
    "ssl.sslv2_method",
    "ssl.sslv3_method",
    "ssl.sslv23_method",
    "ssl.tlsv1_method",
    "ssl.tlsv1_1_method",
    "sslprotocols.ssl2",
    "sslprotocols.ssl3",
    "sslprotocols.tls11",
    "sslprotocols.default",
    "securityprotocoltype.ssl3",
    "securityprotocoltype.tls11",
    "dontenableschusestrongcrypto\",true",
    "dontenablesystemdefaulttlsversions\",true",
    "tlsv1_method",
    "sslv3_method",
    "sslcontext.getinstance(\"ssl",
    "sslcontext.getinstance(\"tlsv1\")",
    "sslcontext.getinstance(\"tlsv1.1\")",
    "minversion:'tlsv1'",
    "minversion:\"tlsv1\"",
    "minversion:'tlsv1.1'",
    "securityprotocoltype.tls)",
    "preferserverciphersuites:false",
    "asymmetricalgorithm.create()",
    "asymmetricalgorithm.create(\"rsa\")",
    "asymmetricalgorithm.create(\"system.security.cryptography.rsa\")",
    "securityprotocoltype.tls;",
];

/// A broken or deprecated protocol version: a named one, a bare `Tls`/`TLSv1` constant, an
/// unpinned `ssl.wrap_socket()`, strong crypto switched off, or a weak Go cipher suite.
fn deprecated_protocol(s: &str, dialect: Dialect) -> bool {
    any(s, OLD_PROTOCOLS)
        || ends_word(s, "sslprotocols.tls")
        || ends_word(s, "securityprotocoltype.tls")
        || ends_word(s, "ssl.protocol_tlsv1")
        || ends_word(s, "protocol_tlsv1")
        || ends_word(s, "ssl.protocol_tlsv1_1")
        || ends_word(s, "protocol_tlsv1_1")
        // The deprecated `ssl.wrap_socket()` picks an insecure protocol unless told.
        || (s.starts_with("ssl.wrap_socket(") || s.starts_with("wrap_socket("))
            && !s.contains("ssl_version")
        || s.contains("dontenableschusestrongcrypto") && s.contains(",true)")
        || dialect == Dialect::Go
            && (s.contains("tls_rsa_with_rc4")
                || s.contains("tls_ecdhe_rsa_with_rc4")
                || s.contains("tls_rsa_with_3des")
                || s.contains("tls_ecdhe_rsa_with_3des")
                || s.contains("tls_rsa_with_aes_128_cbc_sha256")
                || s.contains("tls.tls_rsa_with_aes_128_gcm_sha256")
                || s.contains("tls.tls_rsa_with_aes_256_gcm_sha384"))
}

/// Whether the lines around `i` (a few before, several after) mention `needle`
/// (lower-cased, strings included).
pub(super) fn window_has(lines: &[SideLine<'_>], i: usize, needle: &str) -> bool {
    lines[i.saturating_sub(8)..lines.len().min(i + 8)]
        .iter()
        .any(|l| contains_lowered(l.text, needle))
}

/// Whether `s` holds `word` not followed by more of an identifier (`tls` but not `tls12`).
pub(super) fn ends_word(s: &str, word: &str) -> bool {
    let mut from = 0;
    while let Some(off) = s[from..].find(word) {
        let end = from + off + word.len();
        if !s[end..].starts_with(|c: char| c.is_ascii_alphanumeric() || c == '_') {
            return true;
        }
        from = end;
    }
    false
}

/// The integer literals of a squeezed line.
pub(super) fn int_literals(s: &str) -> Vec<u64> {
    let mut out = Vec::new();
    let b = s.as_bytes();
    let mut i = 0;
    while i < b.len() {
        if b[i].is_ascii_digit()
            && (i == 0 || !(b[i - 1].is_ascii_alphanumeric() || b[i - 1] == b'_'))
        {
            let start = i;
            while i < b.len() && (b[i].is_ascii_digit() || b[i] == b'_') {
                i += 1;
            }
            if i < b.len() && (b[i].is_ascii_alphabetic() || b[i] == b'.') {
                continue;
            }
            if let Ok(v) = s[start..i].replace('_', "").parse::<u64>() {
                out.push(v);
            }
        } else {
            i += 1;
        }
    }
    out
}

/// An RSA or DSA key generated or sized below 2048 bits.
pub(super) fn small_key(s: &str) -> bool {
    let context = any(
        s,
        &[
            "key_size=",
            "keysize=",
            "keysize:",
            "bits=",
            "moduluslength:",
            "rsa.generate_private_key(",
            "dsa.generate_private_key(",
            "rsa.generate(",
            "dsa.generate(",
            "rsa.generatekey(",
            "dsa.generateparameters(",
            "rsa.newkey(",
            "rsa.new(",
            "newrsacng(",
            "newrsacryptoserviceprovider(",
            "newdsacryptoserviceprovider(",
            "rsa.create(",
            "dsa.create(",
            "createfromname(\"rsa\"",
            "createfromname(\"system.security.cryptography.rsa\"",
            "createfromname(\"system.security.cryptography.asymmetricalgorithm\"",
            "keypairgenerator",
            "keygen.initialize(",
            "kpg.initialize(",
            "generator.initialize(",
            "openssl::pkey::rsa.new(",
            "openssl::pkey::rsa.generate(",
            "generatekeypair('rsa'",
            "generatekeypairsync('rsa'",
            "_generate(",
        ],
    );
    if !context {
        return false;
    }
    // A default-sized key from `CryptoConfig` or `AsymmetricAlgorithm.Create("RSA")` is 1024.
    if s.contains("createfromname(\"system.security.cryptography.rsa\")")
        || s.contains("createfromname(\"rsa\")")
        || s.contains("createfromname(\"system.security.cryptography.asymmetricalgorithm\")")
        || s.contains("asymmetricalgorithm.create(\"rsa\")")
    {
        return true;
    }
    int_literals(s)
        .into_iter()
        .any(|v| (256..2048).contains(&v) && v != 65537 && v % 8 == 7 || (512..2048).contains(&v))
}

/// A password-based key derivation with fewer than 100,000 iterations (or the 1,000 of a
/// default `Rfc2898DeriveBytes`).
pub(super) fn few_iterations(s: &str) -> bool {
    let small = |v: u64| (1..100_000).contains(&v);
    if s.contains("newrfc2898derivebytes(") {
        let args = s
            .split_once("newrfc2898derivebytes(")
            .map_or("", |(_, r)| r)
            .split(')')
            .next()
            .unwrap_or("");
        let n = args.split(',').count();
        return n <= 2 || int_literals(args).into_iter().any(small) && n >= 3;
    }
    let kdf = any(
        s,
        &[
            "pbkdf", "rfc2898", "keyspec", "derive", "hashpw", "bcrypt", "scrypt", "argon",
        ],
    );
    if s.contains("iterationcount=")
        || kdf && (s.contains("iterations=") || s.contains("iterations:"))
    {
        return int_literals(s).into_iter().any(small);
    }
    if s.contains("pbkdf2_hmac(") || s.contains("pbkdf2(") || s.contains("newpbekeyspec(") {
        return int_literals(s).into_iter().any(|v| {
            (2..100_000).contains(&v)
                && v != 32
                && v != 64
                && v != 16
                && v != 256
                && v != 128
                && v != 512
        });
    }
    false
}

pub(super) fn command_built(raw: &str, code: &str, dialect: Dialect) -> bool {
    let shell_true = code.contains("shell=true") || code.contains("shell = true");
    match dialect {
        Dialect::Python => {
            (shell_true && (interpolated(raw) || code.contains("subprocess")))
                || ["os.system(", "os.popen(", "commands.getoutput("]
                    .iter()
                    .any(|c| code.contains(c) && built_argument(raw, c.trim_end_matches('(')))
        }
        Dialect::Js => {
            ["exec(", "execsync(", "child_process.exec("]
                .iter()
                .any(|c| {
                    code.contains(c)
                        && !code.contains("regex")
                        && !code.contains(".exec(")
                        && interpolated(raw)
                })
                || (code.contains("shell: true")
                    && (code.contains("spawn(") || code.contains("execfile")))
                || code.contains("child_process.exec(") && interpolated(raw)
        }
        Dialect::Go => {
            let l = without_spaces(&raw.to_ascii_lowercase());
            (l.contains("exec.command(") || l.contains("exec.commandcontext("))
                && (l.contains("\"sh\",\"-c\"")
                    || l.contains("\"bash\",\"-c\"")
                    || l.contains("\"/bin/sh\",\"-c\"")
                    || l.contains("\"/bin/bash\",\"-c\"")
                    || l.contains("\"cmd\",\"/c\"")
                    || l.contains("\"cmd.exe\",\"/c\""))
                && !l.ends_with("\")")
                && !l.ends_with("\").output()")
                && !l.ends_with("\").run()")
                || l.contains("exec.command(")
                    && l.contains("\"-c\"")
                    && (l.contains("\"+") || l.contains("sprintf("))
        }
        Dialect::Java => {
            (code.contains("runtime.getruntime().exec(") || code.contains("new processbuilder("))
                && interpolated(raw)
        }
        Dialect::Ruby => {
            (code.contains("system(")
                || code.contains("exec(")
                || code.contains("%x")
                || code.contains("spawn(")
                || code.contains("io.popen(")
                || code.contains("open3."))
                && raw.contains("#{")
                || raw.contains('`')
                    && raw.contains("#{")
                    && raw
                        .find(['"', '\'', '`'])
                        .is_some_and(|q| raw[q..].starts_with('`'))
                || code.contains("open(\"|")
                || code.contains("open('|")
        }
        Dialect::Php => [
            "shell_exec(",
            "exec(",
            "system(",
            "passthru(",
            "popen(",
            "proc_open(",
        ]
        .iter()
        .any(|c| code.contains(c) && (raw.contains('$') && !code.contains("escapeshellarg"))),
        Dialect::CSharp => code.contains("process.start(") && interpolated(raw),
        Dialect::Rust => {
            // `Command::new("sh").arg("-c").arg(format!(…))`: a formatted shell line.
            let l = without_spaces(&raw.to_ascii_lowercase());
            l.contains("format!(")
                && ["arg(\"-c\")", "[\"-c\",", "arg(\"/c\")", "[\"/c\","]
                    .iter()
                    .any(|c| l.contains(c))
        }
        _ => false,
    }
}

pub(super) fn eval_built(raw: &str, code: &str, dialect: Dialect) -> bool {
    let calls: &[&str] = match dialect {
        Dialect::Python => &["eval(", "exec("],
        Dialect::Js => &[
            "eval(",
            "new function(",
            "settimeout(",
            "setinterval(",
            "runinthiscontext(",
            "runinnewcontext(",
        ],
        Dialect::Ruby => &[
            "eval(",
            "instance_eval(",
            "class_eval(",
            "module_eval(",
            "eval ",
        ],
        Dialect::Php => &["eval(", "create_function(", "assert("],
        _ => return false,
    };
    calls.iter().any(|c| {
        let Some(at) = code.find(c) else { return false };
        // `x.eval(` on another object (a regex, a model) is not the language's eval.
        let before = code[..at].chars().last();
        if matches!(before, Some('.') | Some('_'))
            || before.is_some_and(|b| b.is_ascii_alphanumeric())
        {
            return false;
        }
        let raw_lower = raw.to_ascii_lowercase();
        let rest = raw_lower.get(at + c.len()..).unwrap_or("").trim_start();
        if c.starts_with("settimeout") || c.starts_with("setinterval") {
            // Only the string form evaluates code.
            return rest.starts_with('"')
                || rest.starts_with('\'')
                || rest.starts_with('`') && rest.contains("${");
        }
        if dialect == Dialect::Php && *c == "assert(" {
            return rest.starts_with('$');
        }
        !rest.is_empty()
            && !rest.starts_with(')')
            && (interpolated(rest) || !(rest.starts_with('"') || rest.starts_with('\'')))
    })
}

pub(super) fn markup_unescaped(raw: &str, code: &str) -> bool {
    any(
        code,
        &[
            "mark_safe(",
            "dangerouslysetinnerhtml",
            "v-html",
            ".html_safe",
            "bypasssecuritytrusthtml",
            "{!! $",
            "autoescape=false",
            "autoescape false",
            "escapemarkup = false",
            "|safe",
            "| safe",
            "htmlstring(",
            "@html.raw(",
        ],
    ) || (code.contains(".innerhtml =")
        || code.contains(".innerhtml +=")
        || code.contains(".outerhtml ="))
        && !code.contains("= \"\"")
        && !code.contains("= ''")
        && (interpolated(raw) || !code.contains("= \"") && !code.contains("= '"))
        || code.contains("template.html(") && !code.contains("template.html(\"")
        || code.contains("markup(") && interpolated(raw)
        || code.contains("document.write(") && (interpolated(raw) || !code.contains("write(\""))
}

/// Input deserialized in a way that can build arbitrary types or run code.
pub(super) fn unsafe_deserialize(
    code: &str,
    dialect: Dialect,
    new: &[SideLine<'_>],
    i: usize,
) -> bool {
    match dialect {
        Dialect::Python => {
            any(
                code,
                &[
                    "pickle.load(",
                    "pickle.loads(",
                    "cpickle.load",
                    "dill.load",
                    "marshal.load",
                    "jsonpickle.decode(",
                    "yaml.unsafe_load(",
                    "loader=yaml.loader",
                    "loader=yaml.fullloader",
                    "loader=yaml.unsafeloader",
                    "loader=loader",
                    "yaml.full_load(",
                    "torch.load(",
                    "joblib.load(",
                    "pd.read_pickle(",
                ],
            ) || (code.contains("yaml.load(")
                && !code.contains("safeloader")
                && !code.contains("csafeloader")
                && !code.contains("baseloader"))
        }
        Dialect::Ruby => {
            let core_marshal = |call: &str| {
                code.find(call).is_some_and(|at| {
                    !code[..at].ends_with("::") && !code[at..].contains("marshal.dump(")
                })
            };
            core_marshal("marshal.load(")
                || core_marshal("marshal.restore(")
                || any(
                    code,
                    &["yaml.unsafe_load(", "oj.load(", "psych.unsafe_load("],
                )
                || (code.contains("yaml.load(") || code.contains("psych.load("))
                    && !code.contains("safe")
                || code.contains("json.load(") && !code.contains("json.load(file")
        }
        Dialect::Java => any(
            code,
            &[
                "new objectinputstream(",
                "xmldecoder(",
                "enabledefaulttyping(",
                "activatedefaulttyping(",
                "new xstream(",
                "new yaml()",
                "kryo.readclassandobject",
            ],
        ),
        Dialect::CSharp => csharp_deserialize(code, new, i),
        Dialect::Php => {
            code.contains("unserialize(")
                && !new[i].text.to_ascii_lowercase().contains("allowed_classes")
        }
        Dialect::Js => {
            any(
                code,
                &[
                    "node-serialize",
                    "serialize.unserialize(",
                    "funcster",
                    "yaml.load(",
                ],
            ) && !code.contains("safe")
        }
        Dialect::Go => code.contains("gob.newdecoder(") && code.contains("r.body"),
        _ => false,
    }
}

/// C#: a formatter that builds any type deserializing with no binder to limit the types,
/// type names read from the input, or an explicitly unsafe deserialize.
fn csharp_deserialize(code: &str, new: &[SideLine<'_>], i: usize) -> bool {
    // Formatters that build any type: risky where they deserialize without a binder.
    let formatter = any(
        code,
        &[
            "new binaryformatter(",
            "new soapformatter(",
            "new netdatacontractserializer(",
            "new losformatter(",
            "new objectstateformatter(",
        ],
    );
    let type_names = any(
        code,
        &[
            "typenamehandling.all",
            "typenamehandling.auto",
            "typenamehandling.objects",
            "typenamehandling.arrays",
            "new simpletyperesolver(",
            "new javascriptserializer(new simpletyperesolver",
        ],
    );
    let binder = new.iter().any(|l| {
        let lt = l.text.to_ascii_lowercase();
        lt.contains("binder =") || lt.contains("serializationbinder =")
    });
    formatter && window_has(new, i, "deserialize") && !binder
        || type_names && !binder
        || code.contains(".unsafedeserialize(")
}

/// An error caught and ignored: an empty `catch`/`except`/`rescue` body, or one that only
/// passes, continues or returns nothing.
pub(super) fn swallowed(new: &[SideLine<'_>], i: usize, squeezed: &str, dialect: Dialect) -> bool {
    // Unless a reviewer signed the suppression (`# pragma: no cover`, `@SuppressWarnings`;
    // lines acknowledged for a linter, `# noqa` and the like, never reach the rules); read
    // only for the few lines that swallow.
    swallowed_as_written(new, i, squeezed, dialect) && {
        let raw = new[i].text.to_ascii_lowercase();
        !raw.contains("pragma") && !raw.contains("@suppresswarnings")
    }
}

/// [`swallowed`], suppression comments aside.
fn swallowed_as_written(new: &[SideLine<'_>], i: usize, squeezed: &str, dialect: Dialect) -> bool {
    let next = following(new, i, 2);
    let first = next.first().copied().unwrap_or("");
    let empty_body = |close: &str| first == close || first.starts_with(close) && first.len() <= 3;
    match dialect {
        Dialect::Python => {
            let head = squeezed.starts_with("except") && squeezed.ends_with(':')
                || squeezed.starts_with("except")
                    && (squeezed.ends_with(":pass") || squeezed.ends_with(":..."));
            // A specific, expected exception ignored on purpose is an idiom; a broad one
            // hides every failure.
            let broad = squeezed.starts_with("except:")
                || squeezed.starts_with("exceptexception")
                || squeezed.starts_with("exceptbaseexception")
                || squeezed.starts_with("except(exception")
                || squeezed.starts_with("except(baseexception")
                || squeezed.contains(",exception)")
                || squeezed.contains(",exception,");
            if !head || !broad {
                return false;
            }
            if squeezed.ends_with(":pass") || squeezed.ends_with(":...") {
                return true;
            }
            matches!(
                first,
                "pass" | "..." | "continue" | "return" | "return None" | "break"
            )
        }
        Dialect::Js | Dialect::Java | Dialect::CSharp | Dialect::Php => {
            if any(
                squeezed,
                &[
                    ".catch(()=>{})",
                    ".catch(function(){})",
                    ".catch(()=>null)",
                    ".catch(()=>undefined)",
                    ".catch(noop)",
                    ".catch(_=>{})",
                    ".catch((e)=>{})",
                    ".catch(e=>{})",
                    ".catch((err)=>{})",
                    ".catch(err=>{})",
                ],
            ) {
                return true;
            }
            let Some(at) = squeezed.find("catch") else {
                return false;
            };
            // A parameter named to say the exception is expected or ignored on purpose.
            let head = squeezed[at..].split(')').next().unwrap_or("");
            if ["ignored", "ignore", "expected", "unused", "_)"]
                .iter()
                .any(|n| {
                    head.ends_with(n.trim_end_matches(')')) || head.ends_with(&format!(" {n}"))
                })
            {
                return false;
            }
            let before = squeezed[..at].chars().last();
            if before.is_some_and(|c| c.is_ascii_alphanumeric() || c == '.') {
                return false;
            }
            // A named, specific exception ignored is usually the expected case (an
            // `InterruptedException` on shutdown); a broad or untyped one hides every failure.
            if dialect != Dialect::Js && !broad_catch(&new[i].text.to_ascii_lowercase()) {
                return false;
            }
            let tail = &squeezed[at..];
            if tail.ends_with("{}") || tail.ends_with("{};") {
                return true;
            }
            tail.ends_with('{') && empty_body("}")
        }
        Dialect::Go => {
            (squeezed.starts_with("iferr!=nil{") || squeezed.contains(";err!=nil{"))
                && (first == "}" || first == "return nil" && next.get(1) == Some(&"}"))
                || squeezed == "_=err"
        }
        Dialect::Ruby => {
            squeezed.ends_with("rescuenil")
                || squeezed.contains("rescuenil)")
                || (squeezed == "rescue"
                    || squeezed.starts_with("rescue=>")
                    || squeezed.starts_with("rescueexception")
                    || squeezed.starts_with("rescuestandarderror"))
                    && matches!(first, "end" | "nil" | "next")
        }
        Dialect::Rust => false,
        _ => false,
    }
}

/// Whether a (lower-cased) `catch` clause catches everything: no type (`catch {`), or
/// `Exception`, `Throwable`, `RuntimeException` or `Error` among its types.
fn broad_catch(lower: &str) -> bool {
    let Some(at) = lower.find("catch") else {
        return false;
    };
    let rest = lower[at + 5..].trim_start();
    let Some(inner) = rest.strip_prefix('(') else {
        return true;
    };
    let inner = inner.split(')').next().unwrap_or(inner);
    // `(IOException | Exception e)`: the types before the variable's name.
    let words: Vec<&str> = inner
        .split(|c: char| c.is_whitespace() || c == '|')
        .filter(|w| !w.is_empty() && !w.starts_with('@') && *w != "final")
        .collect();
    let types = if words.len() > 1 {
        &words[..words.len() - 1]
    } else {
        &words[..]
    };
    types.iter().any(|t| {
        let t = t.trim_start_matches('\\');
        let last = t.rsplit(['.', '\\']).next().unwrap_or(t);
        matches!(
            last,
            "exception" | "throwable" | "runtimeexception" | "error"
        )
    })
}

/// A result or error thrown away where the language makes it explicit.
pub(super) fn discarded(code: &str, squeezed: &str, dialect: Dialect) -> bool {
    let t = code.trim_start();
    match dialect {
        Dialect::Rust => {
            squeezed.starts_with("let_=")
                && squeezed.contains('(')
                && !squeezed.contains("tx.send")
                && !squeezed.contains(".send(")
                && !squeezed.contains("writeln!")
                && !squeezed.contains("write!")
                && !squeezed.contains("fmt::")
                || squeezed.ends_with(").ok();") && !squeezed.contains('=')
        }
        Dialect::Go => {
            // `_ = f()` on a call that fails for real (not a marshal, a print or a getter).
            (squeezed.starts_with("_=") || squeezed.starts_with("_,_="))
                && squeezed.contains('(')
                && !any(
                    squeezed,
                    &[
                        "fmt.",
                        "append(",
                        "marshal",
                        "encode(",
                        "sprintf",
                        ".write(",
                        ".close()",
                        "template.must(",
                        ".writestring(",
                        ".writebyte(",
                        ".writerune(",
                        "formvalue(",
                        "postformvalue(",
                        ".get(",
                        "strconv.",
                        "len(",
                    ],
                )
                || go_unchecked_call(t)
        }
        Dialect::CSharp => [
            "int.tryparse(",
            "long.tryparse(",
            "guid.tryparse(",
            "double.tryparse(",
            "decimal.tryparse(",
            "datetime.tryparse(",
            "enum.tryparse(",
        ]
        .iter()
        .any(|c| t.starts_with(c)),
        Dialect::Java => {
            // Results that say whether the call worked, ignored.
            let bare = !squeezed.contains('=') && !t.starts_with("return") && !t.starts_with("if");
            bare && squeezed.ends_with(';')
                && any(
                    squeezed,
                    &[
                        ".delete();",
                        ".mkdir();",
                        ".mkdirs();",
                        ".createnewfile();",
                        ".setreadable(",
                        ".setwritable(",
                        ".setexecutable(",
                        ".setlastmodified(",
                        ".trylock();",
                    ],
                )
                || bare
                    && (squeezed.starts_with("rs.next();")
                        || squeezed.starts_with("resultset.next();")
                        || squeezed.starts_with("results.next();"))
                || bare && squeezed.contains(".renameto(")
        }
        _ => false,
    }
}

/// A JavaScript promise left floating: a `Promise.*` statement nobody awaits or handles,
/// a `.catch()` with no handler, or a call of an `async` function the hunk declares, made as
/// a bare statement.
pub(super) fn floating_promise(new: &[SideLine<'_>], i: usize, code: &str) -> bool {
    let t = code.trim();
    let handled = |t: &str| {
        t.contains(".catch(") && !t.contains(".catch()")
            || t.starts_with("await ")
            || t.starts_with("return ")
            || t.starts_with("void ")
            || t.starts_with("yield ")
            || t.contains(" = ")
            || t.starts_with("export ")
    };
    if handled(t) {
        return false;
    }
    let statement = t.ends_with(';') || t.ends_with(')');
    if t.starts_with("promise.") && statement || t.ends_with(".catch();") {
        return true;
    }
    // `name();` where the hunk declares `async function name` or `const name = async`.
    let Some(name) = t.strip_suffix("();").or_else(|| t.strip_suffix("()")) else {
        return false;
    };
    if name.is_empty() || !name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') {
        return false;
    }
    new.iter().enumerate().any(|(k, l)| {
        let lt = l.text.to_ascii_lowercase();
        k != i
            && (lt.contains(&format!("async function {name}("))
                || lt.contains(&format!("{name} = async")))
    })
}

/// A Go statement that calls a standard-library function returning an error and drops it
/// (errcheck's common cases).
pub(super) fn go_unchecked_call(t: &str) -> bool {
    const CALLS: &[&str] = &[
        "os.remove(",
        "os.removeall(",
        "os.rename(",
        "os.mkdir(",
        "os.mkdirall(",
        "os.writefile(",
        "os.readfile(",
        "os.setenv(",
        "os.unsetenv(",
        "os.chdir(",
        "os.chmod(",
        "os.chown(",
        "os.symlink(",
        "os.link(",
        "os.truncate(",
        "ioutil.writefile(",
        "ioutil.readfile(",
        "json.unmarshal(",
        "xml.unmarshal(",
        "yaml.unmarshal(",
        "proto.unmarshal(",
        "io.copy(",
        "io.readfull(",
        "http.listenandserve(",
        "filepath.walk(",
        "recover()",
        "defer recover()",
    ];
    CALLS.iter().any(|c| t.starts_with(c))
}

/// A file, response or connection opened on a line of its own, with no close in sight.
pub(super) fn unclosed(new: &[SideLine<'_>], i: usize, squeezed: &str, dialect: Dialect) -> bool {
    match dialect {
        Dialect::Python => python_unclosed(new, i, squeezed),
        Dialect::Go => {
            let opened = any(
                squeezed,
                &[
                    "os.open(",
                    "os.create(",
                    "os.openfile(",
                    "http.get(",
                    "http.post(",
                    ".do(req)",
                    "client.do(",
                    "net.dial(",
                ],
            ) && squeezed.contains(":=");
            opened && !close_window(new, i).contains(".close()")
        }
        Dialect::Java => opened_unscoped(new, i, squeezed, JAVA_OPENERS, "try(", &[".close()"]),
        Dialect::CSharp => opened_unscoped(
            new,
            i,
            squeezed,
            CSHARP_OPENERS,
            "using",
            &[".close()", "dispose()"],
        ),
        Dialect::Js => {
            (squeezed.contains("=fs.opensync(") || squeezed.contains("=awaitfs.open("))
                && !close_window(new, i).contains("close")
        }
        _ => false,
    }
}

/// A resource opened by one of `openers` outside the block that would close it (`scoped`:
/// Java's `try (…)`, C#'s `using`), with none of `closes` in sight.
fn opened_unscoped(
    new: &[SideLine<'_>],
    i: usize,
    squeezed: &str,
    openers: &[&str],
    scoped: &str,
    closes: &[&str],
) -> bool {
    any(squeezed, openers)
        && !squeezed.starts_with(scoped)
        && !closes.iter().any(|c| close_window(new, i).contains(c))
}

/// Java streams, readers, writers, sockets and connections (without spaces, lower-cased).
const JAVA_OPENERS: &[&str] = &[
    "=files.newbufferedreader(",
    "=files.newbufferedwriter(",
    "=files.newinputstream(",
    "=files.newoutputstream(",
    "=files.lines(",
    "=newrandomaccessfile(",
    "=newfileinputstream(",
    "=newfileoutputstream(",
    "=newfilereader(",
    "=newbufferedreader(",
    "=newfilewriter(",
    ".getconnection(",
    "=newsocket(",
    "=newscanner(newfile",
];

/// C# streams, files and connections (without spaces, lower-cased).
const CSHARP_OPENERS: &[&str] = &[
    "=newstreamreader(",
    "=newstreamwriter(",
    "=newfilestream(",
    "=file.open(",
    "=newsqlconnection(",
];

/// The lines from `i` on where a resource opened at `i` would be closed, lower-cased.
fn close_window(new: &[SideLine<'_>], i: usize) -> String {
    lowered(&new[i..new.len().min(i + 25)], "\n")
}

/// Python calls that open a file, socket, connection or process to be closed.
const PYTHON_OPENERS: &[&str] = &[
    "open(",
    ".open(",
    "tempfile.temporaryfile(",
    "tempfile.namedtemporaryfile(",
    "tempfile.spooledtemporaryfile(",
    "namedtemporaryfile(",
    "temporaryfile(",
    "tempfile.temporarydirectory(",
    "lzma.lzmafile(",
    "bz2.bz2file(",
    "gzip.gzipfile(",
    "io.open_code(",
    "tarfile.tarfile(",
    "zipfile.zipfile(",
    "fileinput.input(",
    "fileinput.fileinput(",
    ".taropen(",
    "socket.socket(",
    "sqlite3.connect(",
    "urlopen(",
    "subprocess.popen(",
    "popen(",
];

/// Python: `x = <opener>(…)` outside `with`, never closed nearby; or an asyncio task that
/// nothing keeps.
fn python_unclosed(new: &[SideLine<'_>], i: usize, squeezed: &str) -> bool {
    let assigned = assigned_names(&squeezed.replace('=', " = "));
    let rhs = squeezed.split_once('=').map_or("", |(_, r)| r);
    let opens = !squeezed.starts_with("with")
        && !squeezed.starts_with("return")
        && !squeezed.starts_with("async with")
        && assigned.len() == 1
        && PYTHON_OPENERS.iter().any(|o| {
            rhs.starts_with(o) || {
                // `pathlib.Path("x").open()`, `tarfile.TarFile("x").open()`.
                let head = rhs.split('(').next().unwrap_or("");
                (o.starts_with('.') && rhs.contains(o) && !head.contains('['))
                    || head.ends_with(o.trim_end_matches('('))
            }
        })
        && !rhs.contains(").read")
        && !rhs.contains(").write")
        && !rhs.contains("os.open(");
    let closed = || {
        let w = close_window(new, i);
        let name = &assigned[0];
        w.contains(&format!("{name}.close()"))
            || w.contains(&format!("with {name}"))
            || w.contains(&format!("closing({name})"))
            || hands_over(&w, &format!("return {name}"))
            || hands_over(&w, &format!("yield {name}"))
            || w.contains(&format!("self.{name}"))
    };
    opens && !closed() || python_task_dangling(new, i, squeezed, &assigned, rhs)
}

/// Whether `w` holds `head` (`return f`) as a whole expression that hands the handle over
/// (`return f`, `return f, n`), not a use of it (`return f.readline()`).
fn hands_over(w: &str, head: &str) -> bool {
    w.match_indices(head).any(|(at, _)| {
        !w[at + head.len()..]
            .chars()
            .next()
            .is_some_and(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '.' | '(' | '['))
    })
}

/// An asyncio task spawned and dropped, or kept in a local that nothing reads again: the
/// event loop holds tasks weakly, so it can be collected mid-flight.
fn python_task_dangling(
    new: &[SideLine<'_>],
    i: usize,
    squeezed: &str,
    assigned: &[String],
    rhs: &str,
) -> bool {
    let spawns = |t: &str| {
        t.starts_with("asyncio.create_task(")
            || t.starts_with("asyncio.ensure_future(")
            || t.starts_with("loop.create_task(")
            || t.starts_with("asyncio.get_event_loop().create_task(")
    };
    let unused_local = assigned.len() == 1
        && (spawns(rhs) || rhs.contains(".create_task("))
        && !rhs.starts_with("lambda")
        && !squeezed.contains('[')
        && !squeezed.split('=').next().unwrap_or("").contains('.')
        && !new[i + 1..new.len().min(i + 30)]
            .iter()
            .any(|l| uses_word(&l.text.to_ascii_lowercase(), &assigned[0]))
        && !new[..i].iter().any(|l| {
            let lt = l.text.trim().to_ascii_lowercase();
            lt.starts_with("global ") || lt.starts_with("nonlocal ")
        });
    spawns(squeezed) || unused_local
}

pub(super) fn lock_without_unlock(new: &[SideLine<'_>], i: usize, squeezed: &str) -> bool {
    let receiver = squeezed
        .rsplit_once('.')
        .map_or("", |(r, _)| r)
        .rsplit(['.', '(', ' '])
        .next()
        .unwrap_or("");
    let lockish = ["lock", "mu", "mutex", "mtx", "sem", "guard", "latch"]
        .iter()
        .any(|w| receiver.ends_with(w) || receiver.starts_with(w));
    let locks = lockish
        && (squeezed.ends_with(".lock()")
            || squeezed.ends_with(".rlock()")
            || squeezed.ends_with(".acquire()")
            || squeezed.ends_with(".lock();"));
    if !locks
        || squeezed.starts_with("defer")
        || squeezed.starts_with("with")
        || squeezed.contains("=")
    {
        return false;
    }
    let window = lowered(&new[i + 1..new.len().min(i + 40)], "\n");
    !window.contains("unlock") && !window.contains("release") && !window.contains("runlock")
}

pub(super) fn timeout_missing(squeezed: &str, dialect: Dialect) -> bool {
    match dialect {
        Dialect::Python => {
            any(
                squeezed,
                &[
                    "requests.get(",
                    "requests.post(",
                    "requests.put(",
                    "requests.delete(",
                    "requests.patch(",
                    "requests.head(",
                    "requests.request(",
                ],
            ) && !squeezed.contains("timeout")
                && squeezed.ends_with(')')
                || squeezed.contains("timeout=none")
        }
        Dialect::Go => {
            squeezed.contains("http.listenandserve(")
                || squeezed.contains("http.listenandservetls(")
                || squeezed.contains("http.serve(")
        }
        _ => squeezed.contains("timeout:0,") || squeezed.contains("timeout=0,"),
    }
}

/// A line's code, lower-cased, without string contents or spaces: how the rules over removed
/// and added lines compare them.
fn squeezed_code(text: &str) -> String {
    without_spaces(&code_only(&text.to_ascii_lowercase()))
}

/// A call whose error was handled on a removed line (Rust `f()?`, `.unwrap()`, `.expect(…)`,
/// also behind `match` or `if let` as in `match f()? {`; Go `if err := f(); err != nil {`,
/// `x, err := f()`) made again on an added line of the same hunk with the error thrown away
/// (Rust `let _ = f();`, `f().ok();`, `let x = f().unwrap_or_default();`; Go `_ = f()`,
/// `x, _ := f()`, a bare `f()`). The added line is the evidence. A bare `match f() {` is not
/// read as handling: it moved the refit's thresholds for one pattern (docs/local-scorer.md).
pub(super) fn handling_discarded(
    hunk: &Hunk<'_>,
    dialect: Dialect,
    push: &mut impl FnMut(Rule, u32, &str),
) {
    if !matches!(dialect, Dialect::Rust | Dialect::Go) {
        return;
    }
    // A handled call says so in a few characters: most removed lines stop here.
    let may_handle = |t: &str| match dialect {
        Dialect::Go => contains_lowered(t, "err"),
        _ => {
            t.contains('?')
                || t.contains("unwrap")
                || t.contains("expect")
                || t.contains("match")
                || t.contains("if let")
        }
    };
    let handled: Vec<String> = hunk
        .lines
        .iter()
        .filter(|l| l.kind == LineKind::Removed && l.changed && may_handle(l.text))
        .filter_map(|l| handled_call(&squeezed_code(l.text), dialect))
        .collect();
    if handled.is_empty() {
        return;
    }
    for l in &hunk.lines {
        if l.kind != LineKind::Added || !l.changed {
            continue;
        }
        if let Some(call) = discarded_call(&squeezed_code(l.text), dialect)
            && handled.contains(&call)
        {
            push(Rule::ErrorCheckRemoved, l.new_line, l.text.trim());
        }
    }
}

/// The call (squeezed) whose error line `s` handles, if it does.
fn handled_call(s: &str, dialect: Dialect) -> Option<String> {
    let s = s.trim_end_matches(';');
    let call = match dialect {
        Dialect::Rust => {
            let s = s
                .strip_prefix("match")
                .and_then(|r| r.strip_suffix('{'))
                .or_else(|| {
                    s.strip_prefix("iflet")
                        .and_then(|r| r.split_once('=').map(|(_, c)| c))
                        .and_then(|r| r.strip_suffix('{'))
                })
                .unwrap_or_else(|| after_let(s));
            s.strip_suffix('?')
                .or_else(|| s.strip_suffix(".unwrap()"))
                .or_else(|| s.rsplit_once(".expect(").map(|(c, _)| c))?
        }
        Dialect::Go => {
            if let Some(r) = s.strip_prefix("iferr:=") {
                r.strip_suffix(";err!=nil{")?
            } else {
                let (lhs, rhs) = s.split_once(":=").or_else(|| s.split_once('='))?;
                (lhs.split(',').any(|v| v == "err") && !rhs.starts_with('=')).then_some(rhs)?
            }
        }
        _ => return None,
    };
    call_like(call).then(|| call.to_string())
}

/// The call (squeezed) whose error line `s` throws away, if it does.
fn discarded_call(s: &str, dialect: Dialect) -> Option<String> {
    let s = s.trim_end_matches(';');
    let call = match dialect {
        Dialect::Rust => s
            .strip_prefix("let_=")
            .or_else(|| s.strip_suffix(".ok()"))
            .or_else(|| after_let(s).strip_suffix(".unwrap_or_default()"))?,
        Dialect::Go => match s.split_once(":=").or_else(|| s.split_once('=')) {
            Some((lhs, rhs)) => (lhs.split(',').next_back() == Some("_")).then_some(rhs)?,
            None => s,
        },
        _ => return None,
    };
    call_like(call).then(|| call.to_string())
}

/// `s` after a `let …=` binding (or `s` itself when it binds nothing).
fn after_let(s: &str) -> &str {
    s.strip_prefix("let")
        .and_then(|r| {
            let at = r.find('=')?;
            (r.as_bytes().get(at + 1) != Some(&b'=')).then(|| &r[at + 1..])
        })
        .unwrap_or(s)
}

/// Whether `s` is one call expression (`a.b(…)`), not a value or a block.
fn call_like(s: &str) -> bool {
    s.ends_with(')')
        && s.find('(').is_some_and(|p| {
            p > 0
                && s[..p].bytes().all(|c| {
                    c.is_ascii_alphanumeric() || matches!(c, b'_' | b'.' | b':' | b'&' | b'*')
                })
        })
}

/// A timeout taken off a call or client the hunk keeps: the added line is the removed one
/// without its timeout argument or field (`requests.get(url, timeout=10)` →
/// `requests.get(url)`, `&http.Client{Timeout: 10 * time.Second}` → `&http.Client{}`), or a
/// removed line that was only a timeout argument or field of a literal that stays
/// (`ReadTimeout: 5 * time.Second,`) with no timeout written again in the hunk.
pub(super) fn timeout_dropped(
    hunk: &Hunk<'_>,
    dialect: Dialect,
    push: &mut impl FnMut(Rule, u32, &str),
) {
    if matches!(dialect, Dialect::Data | Dialect::Shell | Dialect::Other) {
        return;
    }
    let timed_text = |t: &str| contains_lowered(t, "timeout") || contains_lowered(t, "deadline");
    // Most hunks remove no line that names a timeout: they stop here.
    if !hunk
        .lines
        .iter()
        .any(|l| l.kind == LineKind::Removed && l.changed && timed_text(l.text))
    {
        return;
    }
    let timed = |s: &str| s.contains("timeout") || s.contains("deadline");
    let changed = |kind: LineKind| {
        hunk.lines
            .iter()
            .filter(move |l| l.kind == kind && l.changed)
            .map(|l| (l, squeezed_code(l.text)))
    };
    let added: Vec<(&Line<'_>, String)> = changed(LineKind::Added).collect();
    let added_timeout = added.iter().any(|(_, s)| timed(s));
    for (l, s) in changed(LineKind::Removed) {
        if !timed(&s) {
            continue;
        }
        if timeout_field(&s) {
            if !added_timeout {
                push(Rule::TimeoutDropped, l.new_line, l.text.trim());
            }
            continue;
        }
        let Some(without) = without_timeout_arguments(&s) else {
            continue;
        };
        if let Some((a, _)) = added.iter().find(|(_, a)| *a == without) {
            push(Rule::TimeoutDropped, a.new_line, a.text.trim());
        }
    }
}

/// Whether squeezed line `s` is one timeout argument or field of a literal that goes on
/// (`readtimeout:5*time.second,`, `timeout=10,`), set to a real value.
fn timeout_field(s: &str) -> bool {
    let Some(body) = s.strip_suffix(',') else {
        return false;
    };
    let key_end = body
        .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
        .unwrap_or(body.len());
    let (key, rest) = body.split_at(key_end);
    let value = rest
        .strip_prefix(':')
        .or_else(|| rest.strip_prefix('=').filter(|v| !v.starts_with('=')));
    bounding_key(key) && value.is_some_and(|v| !v.is_empty() && !unset_value(v))
}

/// A key that bounds a wait: a timeout or deadline, not a keep-alive's idle time (which
/// only decides how long a spare connection is kept).
fn bounding_key(key: &str) -> bool {
    (key.contains("timeout") || key.contains("deadline")) && !key.contains("keepalive")
}

/// A value that sets nothing: `None`, `nil`, `null`, `0`, `false`, `undefined`.
fn unset_value(v: &str) -> bool {
    matches!(v, "none" | "nil" | "null" | "0" | "false" | "undefined")
}

/// Squeezed line `s` with each argument or field that names a timeout or deadline cut out
/// (`get(url,timeout=5)` → `get(url)`, `client{timeout:t}` → `client{}`, an options object
/// left empty dropped with it), or `None` when it names none or one is set to nothing.
fn without_timeout_arguments(s: &str) -> Option<String> {
    let b = s.as_bytes();
    let mut cut: Vec<(usize, usize)> = Vec::new();
    let mut from = 0;
    while let Some(at) = ["timeout", "deadline"]
        .iter()
        .filter_map(|w| s[from..].find(w).map(|p| from + p))
        .min()
    {
        // The argument's start: just after the nearest unmatched `(`, `{` or `,` to the left.
        let mut depth = 0i32;
        let mut start = at;
        while start > 0 {
            match b[start - 1] {
                b')' | b'}' | b']' => depth += 1,
                b'(' | b'{' | b'[' if depth == 0 => break,
                b'(' | b'{' | b'[' => depth -= 1,
                b',' if depth == 0 => break,
                _ => {}
            }
            start -= 1;
        }
        // Its end: the next `,` or unmatched closer to the right.
        let mut depth = 0i32;
        let mut end = at;
        while end < b.len() {
            match b[end] {
                b'(' | b'{' | b'[' => depth += 1,
                b')' | b'}' | b']' if depth == 0 => break,
                b')' | b'}' | b']' => depth -= 1,
                b',' if depth == 0 => break,
                _ => {}
            }
            end += 1;
        }
        from = end.max(at + 1);
        // Only a named argument or field of a call or literal, keyed by a timeout.
        let opened = start > 0 && matches!(b[start - 1], b'(' | b'{' | b',');
        let Some((key, value)) = s[start..end].split_once([':', '=']) else {
            continue;
        };
        if !opened
            || !bounding_key(key)
            || key.contains(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
        {
            continue;
        }
        let value = value.trim_start_matches('=');
        if value.is_empty() || unset_value(value) {
            return None;
        }
        // Take a comma with it: the one before, or else the one after.
        if start > 0 && b[start - 1] == b',' {
            cut.push((start - 1, end));
        } else if b.get(end) == Some(&b',') {
            cut.push((start, end + 1));
        } else {
            cut.push((start, end));
        }
    }
    if cut.is_empty() {
        return None;
    }
    let mut out = String::with_capacity(s.len());
    let mut at = 0;
    for (a, z) in cut {
        if a >= at {
            out.push_str(&s[at..a]);
            at = z;
        }
    }
    out.push_str(&s[at..]);
    Some(out.replace(",{})", ")"))
}

#[cfg(test)]
mod tests {
    use super::{discarded_call, handled_call, without_timeout_arguments};
    use crate::scorer::local::detect::Dialect;
    use crate::scorer::local::detect::tests::scores_stay_in_range;

    #[test]
    fn timeout_arguments_are_cut_with_their_comma() {
        let cut = |s: &str| without_timeout_arguments(s);
        assert_eq!(cut("get(url,timeout=5)").as_deref(), Some("get(url)"));
        assert_eq!(cut("get(timeout=5,url)").as_deref(), Some("get(url)"));
        assert_eq!(
            cut("&http.client{timeout:t}").as_deref(),
            Some("&http.client{}")
        );
        assert_eq!(cut("get(url,{timeout:5})").as_deref(), Some("get(url)"));
        // Set to nothing, or only named inside a call: nothing is dropped.
        assert_eq!(cut("get(url,timeout=none)"), None);
        assert_eq!(cut("ctx,cancel:=context.withtimeout(ctx,d)"), None);
    }

    #[test]
    fn handled_and_discarded_calls_are_read_alike() {
        let rust = |s: &str| handled_call(s, Dialect::Rust);
        assert_eq!(
            rust("letn=f.read(&mutb)?;").as_deref(),
            Some("f.read(&mutb)")
        );
        assert_eq!(rust("letn=f();"), None);
        let go = |s: &str| handled_call(s, Dialect::Go);
        assert_eq!(go("iferr:=f.sync();err!=nil{").as_deref(), Some("f.sync()"));
        assert_eq!(go("n,err:=w.write(b)").as_deref(), Some("w.write(b)"));
        assert_eq!(
            discarded_call("n,_:=w.write(b)", Dialect::Go).as_deref(),
            Some("w.write(b)")
        );
        assert_eq!(
            discarded_call("f.sync_all().ok();", Dialect::Rust).as_deref(),
            Some("f.sync_all()")
        );
    }

    proptest::proptest! {
        // Removed and added lines of timeouts, handled and discarded errors, grants and
        // origins, with brackets and multi-byte text in any order: the rules slice by byte
        // offsets, so none may panic, in any language.
        #[test]
        fn any_mix_of_removed_and_added_pieces_reads_without_panicking(
            lines in proptest::collection::vec(
                (
                    proptest::bool::ANY,
                    proptest::collection::vec(proptest::sample::select(PIECES.to_vec()), 0..10),
                ),
                1..8,
            ),
            ext in proptest::sample::select(vec!["py", "go", "js", "java", "rs", "cs", "rb"]),
        ) {
            let body: String = lines
                .iter()
                .map(|(added, l)| format!("{}{}\n", if *added { '+' } else { '-' }, l.concat()))
                .collect();
            let removed = lines.iter().filter(|(a, _)| !a).count();
            let sides = (removed + 1, lines.len() - removed + 1);
            proptest::prop_assert!(scores_stay_in_range(ext, "", sides, &body));
        }
    }

    const PIECES: &[&str] = &[
        "timeout",
        "Timeout",
        "deadline",
        "keepalive",
        "=",
        ":=",
        ":",
        ",",
        "(",
        ")",
        "{",
        "}",
        "[",
        "]",
        "?",
        ";",
        ".ok()",
        ".unwrap()",
        ".expect(",
        "let _ = ",
        "_ = ",
        "err",
        "if err := ",
        "; err != nil {",
        "defer ",
        ".Close()",
        "origin",
        "'*'",
        "\"",
        "'",
        " ",
        "é",
        "0",
        "None",
        "[AllowAnonymous]",
        "[Authorize]",
        "AllowAny",
        "where(\"#{",
    ];
}
