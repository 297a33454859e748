//! The HTTP edge shared by the remote scorers: one hardened agent, one bounded POST, and the
//! mapping from transport failures to [`ScoreError`].
//!
//! Every request goes over `ureq` with `rustls` on `ring`, verifies certificates against the
//! operating system's trust store (so corporate CAs work), honours `HTTPS_PROXY`/`NO_PROXY`,
//! never follows a redirect (a key must not travel to a second host), reads at most
//! [`MAX_REPLY_BYTES`] + 1 bytes of a reply, and finishes within the deadline it is given.

use std::fmt;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use ureq::Agent;
use ureq::http::Uri;
use ureq::tls::{RootCerts, TlsConfig};

use super::{ScoreError, Transport};

/// A remote scorer as `Debug` shows it: its model and its key (whose `Debug` is redacted), not
/// the agent or the endpoint.
pub(super) fn debug_client(
    f: &mut fmt::Formatter<'_>,
    name: &str,
    model: &str,
    key: &dyn fmt::Debug,
) -> fmt::Result {
    f.debug_struct(name)
        .field("model", &model)
        .field("key", key)
        .finish_non_exhaustive()
}

/// Largest reply body accepted from a scorer.
pub const MAX_REPLY_BYTES: usize = 64 * 1024;

/// `User-Agent` sent with every request.
pub const USER_AGENT: &str = concat!("jev-preflight/", env!("CARGO_PKG_VERSION"));

/// A parsed endpoint: the URL as given, and whether it points at this machine.
#[derive(Debug, Clone)]
pub struct Endpoint {
    pub url: String,
    pub loopback: bool,
    pub https: bool,
}

impl Endpoint {
    /// Parses an `http(s)` URL. Errors never echo the URL: it may carry credentials.
    pub fn parse(url: &str, setting: &'static str) -> Result<Endpoint, ScoreError> {
        let bad = || ScoreError::Config {
            setting,
            problem: "is not a valid http(s) URL",
        };
        let uri: Uri = url.parse().map_err(|_| bad())?;
        let https = match uri.scheme_str() {
            Some("https") => true,
            Some("http") => false,
            _ => return Err(bad()),
        };
        let host = uri.host().ok_or_else(bad)?;
        let host = host.trim_start_matches('[').trim_end_matches(']');
        let loopback = host.eq_ignore_ascii_case("localhost")
            || host
                .parse::<std::net::IpAddr>()
                .is_ok_and(|ip| ip.is_loopback());
        Ok(Endpoint {
            url: url.to_owned(),
            loopback,
            https,
        })
    }
}

/// Builds the agent for `endpoint`. A loopback endpoint never goes through a proxy: a proxy
/// cannot reach our own machine's services and would only leak the request.
pub fn agent(endpoint: &Endpoint) -> Agent {
    let proxy = if endpoint.loopback {
        None
    } else {
        ureq::Proxy::try_from_env()
    };
    Agent::config_builder()
        .tls_config(
            TlsConfig::builder()
                .root_certs(RootCerts::PlatformVerifier)
                .build(),
        )
        .proxy(proxy)
        // A redirect would carry the request body (and, for some clients, the key) to a
        // host the user did not choose; a 3xx is an answer like any other status.
        .max_redirects(0)
        // Statuses are classified by us, with the body and `Retry-After` at hand.
        .http_status_as_error(false)
        .https_only(false)
        .user_agent(USER_AGENT)
        .build()
        .new_agent()
}

/// A reply that arrived in time and within the size cap, whatever its status.
#[derive(Debug)]
pub struct Reply {
    pub status: u16,
    pub retry_after: Option<String>,
    pub body: Vec<u8>,
}

/// POSTs `body` as JSON to `url` and reads the reply, all before `deadline`.
/// `bearer` is sent as `Authorization: Bearer …` when present.
pub fn post_json(
    agent: &Agent,
    url: &str,
    bearer: Option<&str>,
    body: &str,
    deadline: Instant,
) -> Result<Reply, ScoreError> {
    let remaining = remaining(deadline).ok_or(ScoreError::Timeout {
        budget: Duration::ZERO,
    })?;
    let mut request = agent
        .post(url)
        .header("Content-Type", "application/json")
        .header("Accept", "application/json");
    if let Some(key) = bearer {
        request = request.header("Authorization", format!("Bearer {key}"));
    }
    let request = request
        .config()
        // One budget covers resolve, connect, TLS, send, headers and body.
        .timeout_global(Some(remaining))
        .timeout_connect(Some(remaining))
        .build();
    let mut response = request
        .send(body.as_bytes())
        .map_err(|e| transport_error(e, remaining))?;
    let status = response.status().as_u16();
    let retry_after = response
        .headers()
        .get("retry-after")
        .and_then(|v| v.to_str().ok())
        .map(|v| v.trim().to_owned());
    if response
        .body()
        .content_length()
        .is_some_and(|n| n > MAX_REPLY_BYTES as u64)
    {
        return Err(ScoreError::ResponseTooLarge {
            limit: MAX_REPLY_BYTES,
        });
    }
    // `limit` reads at most the cap plus a one-byte probe, never the whole body.
    let body = response
        .body_mut()
        .with_config()
        .limit(MAX_REPLY_BYTES as u64)
        .read_to_vec()
        .map_err(|e| transport_error(e, remaining))?;
    Ok(Reply {
        status,
        retry_after,
        body,
    })
}

/// Time left before `deadline`, or `None` when it has passed.
pub fn remaining(deadline: Instant) -> Option<Duration> {
    deadline
        .checked_duration_since(Instant::now())
        .filter(|d| !d.is_zero())
}

/// Maps a transport failure to its kind. The texts name the failure only: ureq's messages
/// carry no headers, and we add no URL (it may hold credentials).
fn transport_error(e: ureq::Error, budget: Duration) -> ScoreError {
    use std::io::ErrorKind;
    let too_large = ScoreError::ResponseTooLarge {
        limit: MAX_REPLY_BYTES,
    };
    ScoreError::Network(match e {
        ureq::Error::Timeout(_) => return ScoreError::Timeout { budget },
        ureq::Error::BodyExceedsLimit(_) | ureq::Error::LargeResponseHeader(..) => {
            return too_large;
        }
        ureq::Error::Io(io) if matches!(io.kind(), ErrorKind::TimedOut | ErrorKind::WouldBlock) => {
            return ScoreError::Timeout { budget };
        }
        ureq::Error::Io(io) => Transport::Io(io_text(&io)),
        ureq::Error::HostNotFound => Transport::HostNotFound,
        ureq::Error::ConnectionFailed => Transport::ConnectionFailed,
        ureq::Error::BadUri(_) => {
            return ScoreError::Config {
                setting: "scorer URL",
                problem: "is not usable",
            };
        }
        // An invalid header value: the key holds a character HTTP forbids (the value itself
        // is never part of the message).
        ureq::Error::Http(_) => {
            return ScoreError::Config {
                setting: "request",
                problem: "could not be built; the API key may contain invalid characters",
            };
        }
        ureq::Error::Tls(msg) => Transport::Tls(msg.to_owned()),
        ureq::Error::Rustls(err) => Transport::Tls(err.to_string()),
        ureq::Error::ConnectProxyFailed(_) | ureq::Error::InvalidProxyUrl => Transport::Proxy,
        ureq::Error::Protocol(err) => Transport::Protocol(err.to_string()),
        other => Transport::Io(other.to_string()),
    })
}

fn io_text(io: &std::io::Error) -> String {
    use std::io::ErrorKind;
    match io.kind() {
        ErrorKind::ConnectionRefused => "the connection was refused".into(),
        ErrorKind::ConnectionReset => "the connection was reset".into(),
        ErrorKind::UnexpectedEof => "the connection closed early".into(),
        _ => format!("i/o: {}", io.kind()),
    }
}

/// How long a `Retry-After` value asks us to wait: delta-seconds, or an HTTP-date
/// (IMF-fixdate) measured against `now`. A date in the past means "now".
pub fn parse_retry_after(value: &str, now: SystemTime) -> Option<Duration> {
    let value = value.trim();
    if !value.is_empty() && value.bytes().all(|b| b.is_ascii_digit()) {
        // More seconds than fit in a u64 is "not within any budget", not "unparseable".
        return Some(
            value
                .parse::<u64>()
                .map_or(Duration::MAX, Duration::from_secs),
        );
    }
    let at = parse_imf_fixdate(value)?;
    let now = now.duration_since(UNIX_EPOCH).ok()?.as_secs();
    Some(Duration::from_secs(at.saturating_sub(now)))
}

/// Seconds since the epoch for `Sun, 06 Nov 1994 08:49:37 GMT`.
fn parse_imf_fixdate(s: &str) -> Option<u64> {
    let rest = s.split_once(", ")?.1;
    let parts: Vec<&str> = rest.split(' ').collect();
    let [day, month, year, time, "GMT"] = parts.as_slice() else {
        return None;
    };
    let day: u32 = day.parse().ok()?;
    const MONTHS: [&str; 12] = [
        "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec",
    ];
    let month = MONTHS.iter().position(|m| m == month)? as u32 + 1;
    let year: i64 = year.parse().ok()?;
    let hms: Vec<u64> = time
        .split(':')
        .map(|p| p.parse().ok())
        .collect::<Option<_>>()?;
    let [h, m, sec] = hms.as_slice() else {
        return None;
    };
    if !(1..=31).contains(&day) || *h > 23 || *m > 59 || *sec > 60 {
        return None;
    }
    let days = days_from_civil(year, month, day);
    u64::try_from(days * 86_400 + (*h * 3600 + *m * 60 + *sec) as i64).ok()
}

/// Days since 1970-01-01 in the proleptic Gregorian calendar (Howard Hinnant's algorithm).
fn days_from_civil(y: i64, m: u32, d: u32) -> i64 {
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let mp = i64::from((m + 9) % 12);
    let doy = (153 * mp + 2) / 5 + i64::from(d) - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::hook::failure::Class;

    #[test]
    fn retry_after_forms() {
        let now = UNIX_EPOCH + Duration::from_secs(784_111_777); // Sun, 06 Nov 1994 08:49:37 GMT
        let cases: &[(&str, Option<u64>)] = &[
            ("0", Some(0)),
            ("7", Some(7)),
            (" 12 ", Some(12)),
            ("Sun, 06 Nov 1994 08:49:37 GMT", Some(0)),
            ("Sun, 06 Nov 1994 08:50:07 GMT", Some(30)),
            ("Sat, 05 Nov 1994 08:49:37 GMT", Some(0)),
            ("Mon, 07 Nov 1994 08:49:37 GMT", Some(86_400)),
            ("99999999999999999999999", Some(u64::MAX)),
            ("-1", None),
            ("1.5", None),
            ("", None),
            ("soon", None),
            ("Sun, 06 Nov 1994 25:00:00 GMT", None),
            ("Sun, 06 Foo 1994 08:49:37 GMT", None),
        ];
        for (raw, want) in cases {
            assert_eq!(
                parse_retry_after(raw, now),
                want.map(|w| if w == u64::MAX {
                    Duration::MAX
                } else {
                    Duration::from_secs(w)
                }),
                "{raw:?}"
            );
        }
    }

    #[test]
    fn civil_days() {
        assert_eq!(days_from_civil(1970, 1, 1), 0);
        assert_eq!(days_from_civil(2000, 3, 1), 11_017);
        assert_eq!(days_from_civil(2026, 12, 2), 20_789);
    }

    #[test]
    fn endpoints() {
        let e = Endpoint::parse("http://127.0.0.1:9/v1", "x").unwrap();
        assert!(e.loopback && !e.https);
        let e = Endpoint::parse("http://[::1]:9/v1", "x").unwrap();
        assert!(e.loopback);
        let e = Endpoint::parse("http://localhost/v1", "x").unwrap();
        assert!(e.loopback);
        let e = Endpoint::parse("https://api.typesafe.ai/v1/systemone", "x").unwrap();
        assert!(!e.loopback && e.https);
        for bad in ["ftp://x/y", "not a url", "", "https://user:sk-secret@"] {
            let err = Endpoint::parse(bad, "Jev URL").unwrap_err();
            assert_eq!(Class::from(&err), "scorer_config");
            assert!(!err.to_string().contains("sk-secret"));
        }
    }
}
