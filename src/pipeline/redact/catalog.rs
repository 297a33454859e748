//! The redaction rules: exact provider token formats and the checks for the generic ones.
//!
//! The rules are data, in `catalog.rules` beside this file, whose header describes the format.
//! Each names its marker, its [`Check`], the lower-case keywords that must occur on a line
//! before the rule's pattern is even compiled or run, and a byte-regex (ASCII, case as written
//! unless the pattern says `(?i)`). A pattern's `s` group, when present, is the part that is
//! replaced; otherwise the whole match is. The file is embedded and read once, into [`RULES`],
//! borrowing its text (only the lists of keywords are allocated).

use std::borrow::Cow;
use std::sync::LazyLock;

use regex::bytes::{Regex, RegexBuilder};

/// How a rule's match is confirmed before it is replaced.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Check {
    /// The format alone is proof.
    Exact,
    /// A value that must look random enough (length, character classes) to be a token.
    Opaque,
    /// `Basic <base64>` whose decoded form is `user:password`.
    BasicAuth,
    /// The password part of `scheme://user:password@host`.
    UrlPassword,
    /// `name <op> value` with a credential-like name and a secret-looking value.
    Assignment,
    /// A PEM private key; its body may continue on the following lines.
    PrivateKey,
    /// A random-looking token on a line that names a credential or a provider.
    NearKeyword,
    /// `name="…" value="…"` attributes whose name is a credential's.
    AttributePair,
    /// A password given on a command line (`-pSECRET`, `-u user:SECRET`).
    CommandLine,
    /// `Password=`/`Pwd=` on a line that is a connection string (another of its keys is
    /// there), unless the value is a placeholder.
    ConnectionString,
}

/// Each check's name in `catalog.rules`.
const CHECKS: &[(&str, Check)] = &[
    ("exact", Check::Exact),
    ("opaque", Check::Opaque),
    ("basic-auth", Check::BasicAuth),
    ("url-password", Check::UrlPassword),
    ("assignment", Check::Assignment),
    ("private-key", Check::PrivateKey),
    ("near-keyword", Check::NearKeyword),
    ("attribute-pair", Check::AttributePair),
    ("command-line", Check::CommandLine),
    ("connection-string", Check::ConnectionString),
];

/// The keyword lists a rule may name with `@name` instead of spelling them out.
const LISTS: &[(&str, &[&str])] = &[("near-triggers", NEAR_TRIGGERS)];

/// One redaction rule.
#[derive(Debug)]
pub(crate) struct Rule {
    pub id: &'static str,
    pub keywords: Vec<&'static str>,
    /// The regex as the file writes it; a token's is bounded when compiled (see
    /// [`Rule::regex_source`]).
    pub pattern: &'static str,
    /// Whether `pattern` is a whole token's, which no identifier character may touch.
    pub token: bool,
    pub check: Check,
    /// The line of `catalog.rules` where the rule begins.
    pub line: usize,
}

/// What bounds a token's pattern: identifier characters may not touch it on either side.
const TOKEN_START: &str = r"(?:^|[^A-Za-z0-9_])(?P<s>";
const TOKEN_END: &str = r")(?:$|[^A-Za-z0-9_])";

impl Rule {
    /// The regex the rule runs: its pattern, bounded when it is a token's.
    pub(crate) fn regex_source(&self) -> Cow<'static, str> {
        if self.token {
            Cow::Owned([TOKEN_START, self.pattern, TOKEN_END].concat())
        } else {
            Cow::Borrowed(self.pattern)
        }
    }

    /// Compiles the rule's regex, which runs on bytes with Unicode off.
    pub(crate) fn compile(&self) -> Result<Regex, regex::Error> {
        RegexBuilder::new(&self.regex_source())
            .unicode(false)
            .size_limit(1 << 22)
            .build()
    }
}

/// The rules file, embedded in the binary.
const SOURCE: &str = include_str!("catalog.rules");

/// Every rule, provider formats first; on overlap the earlier rule's marker wins.
pub(crate) static RULES: LazyLock<Vec<Rule>> =
    LazyLock::new(|| parse(SOURCE).unwrap_or_else(|e| panic!("catalog.rules: {e}")));

/// Reads the embedded file again, as building [`RULES`] did, and returns the number of rules;
/// for the benchmark of that one-time cost.
pub(crate) fn read_again() -> usize {
    parse(SOURCE).map_or(0, |rules| rules.len())
}

/// A mistake in the rules file and the line it is on.
#[derive(Debug)]
pub(crate) struct ParseError {
    pub line: usize,
    pub message: String,
}

impl std::fmt::Display for ParseError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "line {}: {}", self.line, self.message)
    }
}

fn error(line: usize, message: impl Into<String>) -> ParseError {
    ParseError {
        line,
        message: message.into(),
    }
}

/// The rules file's lines, numbered from 1, comments skipped.
struct Lines(std::iter::Zip<std::str::Lines<'static>, std::ops::RangeFrom<usize>>);

impl Lines {
    /// The next line that is not a comment, with its number.
    fn next(&mut self) -> Result<Option<(usize, &'static str)>, ParseError> {
        for (line, at) in self.0.by_ref() {
            if line.ends_with(|c: char| c.is_ascii_whitespace()) {
                return Err(error(
                    at,
                    "the line ends in a blank, which an editor may strip",
                ));
            }
            if !line.starts_with('#') {
                return Ok(Some((at, line)));
            }
        }
        Ok(None)
    }

    /// The next line, which must be one of the fields `names` of the rule begun at `start`:
    /// its number, its field name and its value.
    fn field(
        &mut self,
        start: usize,
        names: &[&str],
    ) -> Result<(usize, &'static str, &'static str), ParseError> {
        let expected = || names.join("` or `");
        let Some((at, line)) = self.next()?.filter(|(_, line)| !line.is_empty()) else {
            let message = format!("the rule ends before its `{}` line", expected());
            return Err(error(start, message));
        };
        match split_once(line, b' ') {
            Some((name, value)) if names.contains(&name) && !value.is_empty() => {
                Ok((at, name, value))
            }
            _ => {
                let message = format!("expected `{} <value>`, found `{line}`", expected());
                Err(error(at, message))
            }
        }
    }
}

/// Reads the rules file; its header describes the format.
fn parse(text: &'static str) -> Result<Vec<Rule>, ParseError> {
    let mut lines = Lines(text.lines().zip(1..));
    let mut rules = Vec::new();
    while let Some((start, line)) = lines.next()? {
        if line.is_empty() {
            continue;
        }
        let id = match split_once(line, b' ') {
            Some(("rule", id)) if is_id(id) => id,
            Some(("rule", id)) => {
                let why = "is not lower-case letters and digits joined by `-`";
                return Err(error(start, format!("the id `{id}` {why}")));
            }
            _ => {
                return Err(error(
                    start,
                    format!("expected `rule <id>`, found `{line}`"),
                ));
            }
        };
        let (at, _, name) = lines.field(start, &["check"])?;
        let Some(&(_, check)) = CHECKS.iter().find(|(n, _)| *n == name) else {
            let known: Vec<&str> = CHECKS.iter().map(|(n, _)| *n).collect();
            let message = format!(
                "unknown check `{name}`; the checks are {}",
                known.join(", ")
            );
            return Err(error(at, message));
        };
        let (at, _, words) = lines.field(start, &["keywords"])?;
        let keywords = keywords(at, words)?;
        let (_, kind, pattern) = lines.field(start, &["pattern", "token"])?;
        if let Some((at, line)) = lines.next()?.filter(|(_, line)| !line.is_empty()) {
            let message = format!("a blank line must end the rule begun at line {start}");
            return Err(error(at, format!("{message}, found `{line}`")));
        }
        rules.push(Rule {
            id,
            keywords,
            pattern,
            token: kind == "token",
            check,
            line: start,
        });
    }
    Ok(rules)
}

/// Where `byte` first occurs in `text`. Byte by byte: `str::find` pays a call and a compare
/// for each match, which the short field names and keywords here do not need.
fn find(text: &str, byte: u8) -> Option<usize> {
    text.bytes().position(|b| b == byte)
}

/// `text` split around the first `byte` (an ASCII byte, so both sides are `str`s).
fn split_once(text: &str, byte: u8) -> Option<(&str, &str)> {
    find(text, byte).map(|at| (&text[..at], &text[at + 1..]))
}

/// Whether `id` makes a marker: lower-case ASCII letters and digits joined by single `-`.
fn is_id(id: &str) -> bool {
    id.split('-').all(|part| {
        !part.is_empty()
            && part
                .bytes()
                .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit())
    })
}

/// A `keywords` line's words: separated by one space, a word with a space in it between
/// backticks, `@name` for a list of [`LISTS`]; every word lower-case ASCII, since lines are
/// matched against them ASCII case-insensitively.
fn keywords(at: usize, mut rest: &'static str) -> Result<Vec<&'static str>, ParseError> {
    let mut words = Vec::new();
    while !rest.is_empty() {
        let (word, after) = match rest.strip_prefix('`') {
            Some(quoted) => quoted
                .split_once('`')
                .ok_or_else(|| error(at, "a backtick opens a keyword it does not close"))?,
            None => rest.split_at(find(rest, b' ').unwrap_or(rest.len())),
        };
        if let Some(name) = word.strip_prefix('@').filter(|_| !rest.starts_with('`')) {
            let Some((_, list)) = LISTS.iter().find(|(n, _)| *n == name) else {
                return Err(error(at, format!("no keyword list is called `@{name}`")));
            };
            words.extend_from_slice(list);
        } else if word.is_empty() {
            return Err(error(at, "an empty keyword: one space separates two"));
        } else if !word.is_ascii() || word.bytes().any(|b| b.is_ascii_uppercase()) {
            return Err(error(
                at,
                format!("the keyword `{word}` is not lower-case ASCII"),
            ));
        } else {
            words.push(word);
        }
        rest = match after.strip_prefix(' ') {
            Some("") => return Err(error(at, "the keywords end in a blank")),
            Some(next) => next,
            None if after.is_empty() => after,
            None => return Err(error(at, format!("expected a space before `{after}`"))),
        };
    }
    if words.is_empty() {
        return Err(error(at, "a rule needs at least one keyword"));
    }
    Ok(words)
}

/// The credential words that send a line to the `secret-near-keyword` rule. Provider names
/// are not keywords of the automaton (hundreds of them would slow every scan); a line that
/// names only a provider is left to the provider's own rule.
pub(crate) const NEAR_TRIGGERS: &[&str] = &[
    "token",
    "secret",
    "passw",
    "pwd",
    "credential",
    "apikey",
    "api_key",
    "api-key",
    "access_key",
    "accesskey",
    "auth",
    "private_key",
    "client_key",
    "signing",
    "webhook",
    "access",
];

/// The providers whose name alone binds a token in gitleaks' keyword rules (`fastly: …`,
/// `"twitch" => …`): these send a line to the near-keyword scan even without a credential
/// word. Every one is also in [`NEAR_PROVIDERS`]. The list stays short because each name
/// grows the keyword automaton every scan walks and every `Redactor::new` builds.
pub(crate) const KEYWORD_PROVIDERS: &[&str] = &[
    "adafruit",
    "adobe",
    "airtable",
    "algolia",
    "alibaba",
    "asana",
    "beamer",
    "bitbucket",
    "bittrex",
    "codecov",
    "coinbase",
    "confluent",
    "contentful",
    "datadog",
    "discord",
    "droneci",
    "dropbox",
    "etsy",
    "facebook",
    "fastly",
    "finicity",
    "finnhub",
    "flickr",
    "freshbooks",
    "gitter",
    "hubspot",
    "intercom",
    "jfrog",
    "kraken",
    "kucoin",
    "launchdarkly",
    "linear",
    "linkedin",
    "looker",
    "mattermost",
    "meraki",
    "messagebird",
    "netlify",
    "new-relic",
    "nytimes",
    "plaid",
    "privateai",
    "rapidapi",
    "sendbird",
    "sentry",
    "squarespace",
    "sumo",
    "telegr",
    "travis",
    "twitch",
    "twitter",
    "zendesk",
];

/// Provider names whose tokens have no prefix: outside the token itself, one of these or a
/// credential word from [`NEAR_TRIGGERS`] makes a random token on a triggered line a
/// credential.
pub(crate) const NEAR_PROVIDERS: &[&str] = &[
    "adafruit",
    "adobe",
    "airtable",
    "algolia",
    "alibaba",
    "amplitude",
    "asana",
    "assemblyai",
    "atlassian",
    "auth0",
    "airbrake",
    "beamer",
    "binance",
    "bitbucket",
    "bittrex",
    "braintree",
    "browserstack",
    "bugsnag",
    "buildkite",
    "chargebee",
    "circleci",
    "clarifai",
    "clickhouse",
    "clickup",
    "cloudflare",
    "cloudinary",
    "codecov",
    "cohere",
    "coinbase",
    "coinmarketcap",
    "confluence",
    "confluent",
    "contentful",
    "coveralls",
    "datadog",
    "deepgram",
    "deepseek",
    "digitalocean",
    "discord",
    "docusign",
    "doppler",
    "droneci",
    "dropbox",
    "dynatrace",
    "elevenlabs",
    "etherscan",
    "etsy",
    "facebook",
    "fastly",
    "figma",
    "finicity",
    "finnhub",
    "firebase",
    "flickr",
    "flutterwave",
    "freshbooks",
    "freshdesk",
    "github",
    "gitlab",
    "gitter",
    "gocardless",
    "grafana",
    "harness",
    "heroku",
    "honeycomb",
    "hubspot",
    "huggingface",
    "infura",
    "intercom",
    "ipinfo",
    "jenkins",
    "jfrog",
    "artifactory",
    "jira",
    "klaviyo",
    "kraken",
    "kucoin",
    "launchdarkly",
    "linear",
    "linkedin",
    "logdna",
    "loggly",
    "looker",
    "mailchimp",
    "mailerlite",
    "mailgun",
    "mailjet",
    "mandrill",
    "mapbox",
    "mattermost",
    "maxmind",
    "meraki",
    "message_bird",
    "message-bird",
    "messagebird",
    "mistral",
    "mixpanel",
    "mollie",
    "moralis",
    "netlify",
    "newrelic",
    "new_relic",
    "new-relic",
    "nexmo",
    "notion",
    "nytimes",
    "newyorktimes",
    "new-york-times",
    "okta",
    "onelogin",
    "openai",
    "anthropic",
    "openrouter",
    "openweather",
    "opsgenie",
    "pagerduty",
    "papertrail",
    "paypal",
    "paystack",
    "pinecone",
    "pipedrive",
    "plaid",
    "plivo",
    "postmark",
    "posthog",
    "privateai",
    "private_ai",
    "private-ai",
    "pusher",
    "rapidapi",
    "razorpay",
    "recurly",
    "replicate",
    "rollbar",
    "salesforce",
    "saucelabs",
    "sendbird",
    "sendgrid",
    "sendinblue",
    "sentry",
    "shodan",
    "shopify",
    "slack",
    "snyk",
    "sonar",
    "sparkpost",
    "splunk",
    "squarespace",
    "stripe",
    "sumo",
    "supabase",
    "telegr",
    "telnyx",
    "terraform",
    "travis",
    "trello",
    "twilio",
    "twitch",
    "twitter",
    "typeform",
    "vercel",
    "virustotal",
    "vonage",
    "yandex",
    "zapier",
    "zendesk",
    "zoom",
];

#[cfg(test)]
mod tests {
    use super::*;

    /// The embedded file is the guard's subject: every rule has an id, a known check,
    /// lower-case keywords and a pattern, each on its own line in the format's order.
    #[test]
    fn the_rules_file_is_well_formed() {
        if let Err(e) = parse(SOURCE) {
            panic!("catalog.rules: {e}");
        }
        assert!(RULES.len() > 100, "{} rules", RULES.len());
    }

    #[test]
    fn every_pattern_compiles() {
        for rule in RULES.iter() {
            if let Err(e) = rule.compile() {
                panic!("catalog.rules line {}: rule `{}`: {e}", rule.line, rule.id);
            }
        }
    }

    #[test]
    fn the_lists_are_lower_case() {
        for word in NEAR_TRIGGERS
            .iter()
            .chain(KEYWORD_PROVIDERS)
            .chain(NEAR_PROVIDERS)
        {
            assert!(
                !word.is_empty() && word.bytes().all(|b| !b.is_ascii_uppercase()),
                "{word}"
            );
        }
    }

    #[test]
    fn a_rule_reads_as_written() {
        let text = "# a comment\n\nrule some-token\ncheck opaque\n# inside\n\
                    keywords ab_ `c d` @near-triggers\ntoken ab_[0-9]{4}\n\n\
                    rule other\ncheck exact\nkeywords x\npattern (?i)x(?P<s>y)\n";
        let rules = parse(text).unwrap();
        assert_eq!(rules.len(), 2);
        let (first, second) = (&rules[0], &rules[1]);
        assert_eq!(
            (first.id, first.check, first.line),
            ("some-token", Check::Opaque, 3)
        );
        assert_eq!(first.keywords[..2], ["ab_", "c d"]);
        assert_eq!(first.keywords[2..], *NEAR_TRIGGERS);
        assert_eq!(
            first.regex_source(),
            r"(?:^|[^A-Za-z0-9_])(?P<s>ab_[0-9]{4})(?:$|[^A-Za-z0-9_])"
        );
        assert_eq!((second.id, second.line), ("other", 9));
        assert_eq!(second.regex_source(), r"(?i)x(?P<s>y)");
    }

    #[test]
    fn a_mistake_names_its_line() {
        let rule = "rule a\ncheck exact\nkeywords k\npattern p\n";
        for (text, line, says) in [
            (
                "rule a\ncheck exact\nkeywords k\n",
                1,
                "ends before its `pattern` or `token`",
            ),
            (
                "rule a\ncheck exact\n\nkeywords k\npattern p\n",
                1,
                "ends before its `keywords`",
            ),
            (
                "rule A\ncheck exact\nkeywords k\npattern p\n",
                1,
                "the id `A`",
            ),
            (
                "rule a\ncheck fuzzy\nkeywords k\npattern p\n",
                2,
                "unknown check `fuzzy`",
            ),
            (
                "rule a\nkeywords k\ncheck exact\npattern p\n",
                2,
                "expected `check <value>`",
            ),
            (
                "rule a\ncheck exact\nkeywords Key\npattern p\n",
                3,
                "`Key` is not lower-case",
            ),
            (
                "rule a\ncheck exact\nkeywords a  b\npattern p\n",
                3,
                "an empty keyword",
            ),
            (
                "rule a\ncheck exact\nkeywords `a b\npattern p\n",
                3,
                "does not close",
            ),
            (
                "rule a\ncheck exact\nkeywords `a`b\npattern p\n",
                3,
                "a space before `b`",
            ),
            (
                "rule a\ncheck exact\nkeywords @nope\npattern p\n",
                3,
                "`@nope`",
            ),
            (
                "rule a\ncheck exact\nkeywords k\npattern\n",
                4,
                "found `pattern`",
            ),
            (
                "rule a\ncheck exact\nkeywords k\npattern p \n",
                4,
                "ends in a blank",
            ),
            (
                &format!("{rule}rule b\n"),
                5,
                "a blank line must end the rule begun at line 1",
            ),
            (&format!("{rule}\ncheck exact\n"), 6, "expected `rule <id>`"),
        ] {
            let e = parse(text.to_owned().leak()).expect_err(text);
            assert_eq!(e.line, line, "{text:?}: {e}");
            assert!(e.to_string().contains(says), "{text:?}: {e}");
        }
    }
}
