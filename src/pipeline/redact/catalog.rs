//! The redaction rules: exact provider token formats and the checks for the generic ones.
//!
//! Each rule names its marker, the lower-case keywords that must occur on a line before the
//! rule's pattern is even compiled or run, and a byte-regex (ASCII, case as written unless the
//! pattern says `(?i)`). A pattern's `s` group, when present, is the part that is replaced;
//! otherwise the whole match is.

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

/// One redaction rule.
#[derive(Debug)]
pub(crate) struct Rule {
    pub id: &'static str,
    pub keywords: &'static [&'static str],
    pub pattern: &'static str,
    pub check: Check,
}

const fn exact(id: &'static str, keywords: &'static [&'static str], pattern: &'static str) -> Rule {
    Rule {
        id,
        keywords,
        pattern,
        check: Check::Exact,
    }
}

/// A provider whose tokens have no prefix: the provider's name must be on the line and the
/// value must look opaque.
const fn near(id: &'static str, keywords: &'static [&'static str], pattern: &'static str) -> Rule {
    Rule {
        id,
        keywords,
        pattern,
        check: Check::Opaque,
    }
}

/// Identifier characters that may not touch a token on either side.
macro_rules! tok {
    ($($body:literal),+ $(,)?) => {
        concat!(r"(?:^|[^A-Za-z0-9_])(?P<s>", $($body,)+ r")(?:$|[^A-Za-z0-9_])")
    };
}

/// Every rule, provider formats first; on overlap the earlier rule's marker wins.
pub(crate) static RULES: &[Rule] = &[
    // Private keys and signed tokens.
    Rule {
        id: "private-key",
        keywords: &["private key"],
        pattern: concat!(
            r"-----BEGIN[ A-Z0-9_-]{0,64}PRIVATE KEY(?: BLOCK)?-----(?P<s>.*?)(?:-----END",
            r"[ A-Z0-9_-]{0,64}PRIVATE KEY(?: BLOCK)?-----|$)"
        ),
        check: Check::PrivateKey,
    },
    exact(
        "age-secret-key",
        &["age-secret-key-"],
        r"AGE-SECRET-KEY-1[QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L]{58}",
    ),
    exact(
        "jwt",
        &["eyj"],
        tok!(r"eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]*"),
    ),
    // Cloud.
    exact(
        "aws-access-key",
        &["akia", "asia", "abia", "acca", "a3t"],
        tok!(r"(?:AKIA|ASIA|ABIA|ACCA|A3T[A-Z0-9])[A-Z2-7]{16}"),
    ),
    // AWS's secret key is 40 base64 characters under any of the names AWS's own tools and
    // SDKs write (`aws_secret_access_key`, `SecretAccessKey` in STS and CloudFormation JSON,
    // `secretAccessKey` in the JS SDK), with a separator of code or of a call's arguments.
    exact(
        "aws-secret-key",
        &[
            "aws",
            "secretaccesskey",
            "secret_access_key",
            "secret-access-key",
        ],
        concat!(
            r#"(?i)(?:aws_?(?:secret|sec)_?(?:access)?_?key|secret_?access_?key"#,
            r#"|secret-access-key)["']?\s*(?::|=|=>|:=|,)\s*["']?(?P<s>[A-Za-z0-9/+]{40})(?:$"#,
            r#"|[^A-Za-z0-9/+=])"#
        ),
    ),
    // An access key ID and its secret side by side, as AWS's credentials CSV, `aws
    // configure list` and SDK constructors hold them.
    exact(
        "aws-secret-key",
        &["akia", "asia"],
        concat!(
            r#"(?:AKIA|ASIA)[A-Z2-7]{16}["']?[ \t]*[,;|: \t][ \t]*["']?(?P<s>[A-Za-z0-9/+]{40})"#,
            r#"(?:$|[^A-Za-z0-9/+=])"#
        ),
    ),
    exact(
        "aws-session-token",
        &["aws", "sessiontoken", "session_token"],
        r#"(?i)(?:aws_?)?session_?token["']?\s*(?::|=|=>|:=)\s*["']?(?P<s>[A-Za-z0-9/+=]{100,})"#,
    ),
    // STS session tokens begin with the base64 of their own header (documented in AWS's
    // STS examples); a token seen anywhere else is still one.
    exact(
        "aws-session-token",
        &["iqojb3jpz2lux2vj", "fwogzxivyxdz"],
        tok!(r"(?:IQoJb3JpZ2luX2Vj|FwoGZXIvYXdz)[A-Za-z0-9+/=]{100,}"),
    ),
    // Amazon Bedrock API keys (gitleaks `aws-amazon-bedrock-api-key-long-lived` and
    // `-short-lived`).
    exact(
        "aws-bedrock-api-key",
        &["absk", "bedrock-api-key-"],
        tok!(
            r"ABSK[A-Za-z0-9+/]{109,269}={0,2}|bedrock-api-key-YmVkcm9jay5hbWF6b25hd3MuY29t",
            r"[A-Za-z0-9+/=%&_.-]*"
        ),
    ),
    // Amazon MWS auth tokens and AppSync API keys (Nosey Parker `np.aws.5`, `np.aws.8`).
    exact(
        "aws-mws-token",
        &["amzn.mws."],
        tok!(r"amzn\.mws\.[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}"),
    ),
    exact("aws-appsync-key", &["da2-"], tok!(r"da2-[a-z0-9]{26}")),
    exact("gcp-api-key", &["aiza"], tok!(r"AIza[0-9A-Za-z_-]{35}")),
    exact(
        "gcp-oauth-client-secret",
        &["gocspx-"],
        tok!(r"GOCSPX-[A-Za-z0-9_-]{28}"),
    ),
    exact(
        "gcp-oauth-token",
        &["ya29."],
        tok!(r"ya29\.[0-9A-Za-z_-]{20,}"),
    ),
    exact(
        "gcp-service-account-key-id",
        &["private_key_id"],
        r#""private_key_id"\s*:\s*"(?P<s>[a-f0-9]{40})""#,
    ),
    // Azure storage and Cosmos DB account keys (64 bytes), Service Bus, Event Hubs and IoT Hub
    // shared access keys (32 bytes), Azure connection-string syntax (Nosey Parker
    // `np.azure.1`: 20 to 100 base64 characters).
    exact(
        "azure-storage-key",
        &["accountkey", "sharedaccesskey", "sharedsecretvalue"],
        concat!(
            r"(?i)(?:AccountKey|SharedAccessKey|SharedSecretValue)[ \t]*=[ \t]*(?P<s>",
            r"[A-Za-z0-9+/]{20,100}={0,3})"
        ),
    ),
    // An account key alone, next to a name that says Azure or storage: 86 base64
    // characters and `==` (64 bytes), the shape of every storage and Cosmos DB key.
    near(
        "azure-storage-key",
        &["azure", "cosmos"],
        r"(?:^|[^A-Za-z0-9+/])(?P<s>[A-Za-z0-9+/]{86}==)(?:$|[^A-Za-z0-9+/=])",
    ),
    // Azure App Configuration connection strings: `Endpoint=…azconfig.io;Id=…;Secret=…`.
    exact(
        "azure-app-config-secret",
        &[".azconfig.io"],
        r"(?i)\.azconfig\.io;Id=[^;\s]{1,100};Secret=(?P<s>[A-Za-z0-9+/]{20,}={0,2})",
    ),
    exact(
        "azure-sas-token",
        &["sig="],
        r"(?:[?&]|^|[^A-Za-z0-9])sig=(?P<s>[A-Za-z0-9%+/]{40,}(?:%3D|=){0,2})",
    ),
    exact(
        "azure-ad-client-secret",
        &["q~"],
        tok!(r"[A-Za-z0-9_~.]{3}\dQ~[A-Za-z0-9_~.-]{31,34}"),
    ),
    exact(
        "alibaba-access-key",
        &["ltai"],
        tok!(r"LTAI[A-Za-z0-9]{12,20}"),
    ),
    exact("tencent-secret-id", &["akid"], tok!(r"AKID[A-Za-z0-9]{32}")),
    exact(
        "digitalocean-token",
        &["dop_v1_", "doo_v1_", "dor_v1_"],
        tok!(r"do[por]_v1_[a-f0-9]{64}"),
    ),
    exact(
        "heroku-api-key",
        &["hrku-"],
        tok!(r"HRKU-[A-Za-z0-9_-]{60}"),
    ),
    near(
        "heroku-api-key",
        &["heroku"],
        tok!(r"[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}"),
    ),
    exact(
        "ibm-cloud-api-key",
        &["ibm"],
        concat!(
            r#"(?i)ibm[a-z0-9_.-]{0,20}(?:key|token)["']?\s*(?::|=|=>"#,
            r#"|:=)\s*["']?(?P<s>[A-Za-z0-9_-]{44})(?:$|[^A-Za-z0-9_-])"#
        ),
    ),
    exact(
        "flyio-token",
        &["fo1_", "flyv1 ", "fm1a_", "fm1r_", "fm2_"],
        concat!(
            r"(?:^|[^A-Za-z0-9_])(?P<s>fo1_[A-Za-z0-9_-]{43}",
            r"|(?:FlyV1 )?fm[12][ar]?_[A-Za-z0-9+/=,_-]{100,})"
        ),
    ),
    exact(
        "openshift-token",
        &["sha256~"],
        tok!(r"sha256~[A-Za-z0-9_-]{43}"),
    ),
    // Source hosting and CI.
    exact(
        "github-token",
        &["ghp_", "gho_", "ghu_", "ghs_", "ghr_"],
        tok!(r"gh[pousr]_[A-Za-z0-9]{36,255}"),
    ),
    exact(
        "github-fine-grained-token",
        &["github_pat_"],
        tok!(r"github_pat_[A-Za-z0-9_]{50,255}"),
    ),
    exact(
        "gitlab-token",
        &[
            "glpat-",
            "glptt-",
            "glrt-",
            "gldt-",
            "glsoat-",
            "glcbt-",
            "gloas-",
            "glimt-",
            "glagent-",
            "glffct-",
            "glft-",
            "gr1348941",
        ],
        tok!(
            r"(?:glpat-|glrt-|gldt-|glsoat-|glcbt-|gloas-|glimt-|glagent-|glffct-|glft-",
            r"|GR1348941)[A-Za-z0-9_.-]{20,}|glptt-[a-f0-9]{40}"
        ),
    ),
    exact(
        "atlassian-api-token",
        &["atatt3", "atbb", "atctt3"],
        tok!(r"(?:ATATT3|ATCTT3)[A-Za-z0-9_=-]{60,}|ATBB[A-Za-z0-9_=.-]{32,}"),
    ),
    near(
        "bitbucket-client-secret",
        &["bitbucket"],
        tok!(r"[A-Za-z0-9_-]{32,64}"),
    ),
    exact(
        "sourcegraph-token",
        &["sgp_"],
        tok!(r"sgp_(?:[a-fA-F0-9]{16}_|local_)?[a-fA-F0-9]{40}"),
    ),
    exact("pulumi-token", &["pul-"], tok!(r"pul-[a-f0-9]{40}")),
    exact(
        "terraform-cloud-token",
        &[".atlasv1."],
        tok!(r"[A-Za-z0-9]{14}\.atlasv1\.[A-Za-z0-9_=-]{60,70}"),
    ),
    exact(
        "vault-token",
        &["hvs.", "hvb.", "hvr."],
        tok!(r"hv[sbr]\.[A-Za-z0-9_-]{24,}"),
    ),
    exact(
        "doppler-token",
        &[
            "dp.pt.",
            "dp.st.",
            "dp.ct.",
            "dp.sa.",
            "dp.scim.",
            "dp.audit.",
        ],
        tok!(r"dp\.(?:pt|st|ct|sa|scim|audit)\.[A-Za-z0-9_.-]{40,}"),
    ),
    exact("octopus-deploy-key", &["api-"], tok!(r"API-[A-Z0-9]{26}")),
    exact(
        "databricks-token",
        &["dapi"],
        tok!(r"dapi[a-f0-9]{32}(?:-\d)?"),
    ),
    exact("prefect-token", &["pnu_"], tok!(r"pnu_[A-Za-z0-9]{36}")),
    exact(
        "scalingo-token",
        &["tk-us-"],
        tok!(r"tk-us-[A-Za-z0-9_-]{48}"),
    ),
    exact("infracost-key", &["ico-"], tok!(r"ico-[A-Za-z0-9]{32}")),
    // Chat, email, messaging.
    exact(
        "slack-token",
        &[
            "xoxb-", "xoxp-", "xoxa-", "xoxo-", "xoxs-", "xoxr-", "xoxe", "xapp-",
        ],
        tok!(
            r"xox[bpaosre]-[0-9A-Za-z-]{10,}|xoxe(?:\.xox[bp])?-\d-[A-Za-z0-9]{100,}",
            r"|xapp-\d-[A-Z0-9]+-\d+-[a-z0-9]+"
        ),
    ),
    exact(
        "slack-webhook",
        &["hooks.slack.com"],
        r"hooks\.slack\.com/(?:services|workflows|triggers)/(?P<s>[A-Za-z0-9+/_-]{20,})",
    ),
    exact(
        "discord-webhook",
        &["/api/webhooks/"],
        r"discord(?:app)?\.com/api/webhooks/(?P<s>\d+/[A-Za-z0-9_-]{60,})",
    ),
    near(
        "discord-bot-token",
        &["discord"],
        tok!(r"[MNO][A-Za-z0-9_-]{23,25}\.[A-Za-z0-9_-]{6}\.[A-Za-z0-9_-]{27,38}"),
    ),
    exact(
        "telegram-bot-token",
        &[":aa"],
        tok!(r"\d{8,10}:AA[A-Za-z0-9_-]{33}"),
    ),
    // Twilio API key SIDs (`SK` and 32 hex digits, of either case in gitleaks' rule).
    exact("twilio-api-key", &["twilio"], tok!(r"SK[0-9a-fA-F]{32}")),
    near("twilio-auth-token", &["twilio"], tok!(r"[0-9a-f]{32}")),
    exact(
        "sendgrid-api-key",
        &["sg."],
        tok!(r"SG\.[A-Za-z0-9_-]{16,32}\.[A-Za-z0-9_-]{16,64}|SG\.[A-Za-z0-9=_.-]{66}"),
    ),
    exact("mailgun-api-key", &["key-"], tok!(r"key-[0-9a-f]{32}")),
    exact(
        "mailchimp-api-key",
        &["-us"],
        tok!(r"[0-9a-f]{32}-us\d{1,2}"),
    ),
    exact(
        "brevo-api-key",
        &["xkeysib-", "xsmtpsib-"],
        tok!(r"x(?:keysib|smtpsib)-[a-f0-9]{64}-[A-Za-z0-9]{16}"),
    ),
    near("mailjet-key", &["mailjet"], tok!(r"[a-f0-9]{32}")),
    near(
        "postmark-token",
        &["postmark"],
        tok!(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}"),
    ),
    // Payments and commerce.
    exact(
        "stripe-key",
        &[
            "sk_live_", "sk_test_", "sk_prod_", "rk_live_", "rk_test_", "rk_prod_",
        ],
        tok!(r"[sr]k_(?:live|test|prod)_[A-Za-z0-9]{24,247}"),
    ),
    // Shorter restricted keys (gitleaks allows ten characters) only when they look random.
    near(
        "stripe-key",
        &[
            "sk_live_", "sk_test_", "sk_prod_", "rk_live_", "rk_test_", "rk_prod_",
        ],
        tok!(r"[sr]k_(?:live|test|prod)_[A-Za-z0-9]{10,23}"),
    ),
    exact(
        "stripe-webhook-secret",
        &["whsec_"],
        tok!(r"whsec_[A-Za-z0-9+/=]{32,}"),
    ),
    exact(
        "square-token",
        &["sq0atp-", "sq0csp-", "eaaa"],
        tok!(r"sq0atp-[0-9A-Za-z_-]{22,60}|sq0csp-[0-9A-Za-z_-]{43}|EAAA[A-Za-z0-9_+=-]{22,60}"),
    ),
    exact(
        "braintree-access-token",
        &["access_token$"],
        r"access_token\$(?:production|sandbox)\$[0-9a-z]{16}\$(?P<s>[0-9a-f]{32})",
    ),
    near(
        "paypal-client-secret",
        &["paypal"],
        tok!(r"E[A-Za-z0-9_-]{79}"),
    ),
    exact(
        "shopify-token",
        &["shpat_", "shpss_", "shpca_", "shppa_"],
        tok!(r"shp(?:at|ss|ca|pa)_[a-fA-F0-9]{32}"),
    ),
    exact(
        "flutterwave-key",
        &["flwseck", "flwpubk"],
        tok!(r"FLW(?:SECK|PUBK)(?:_TEST)?-[a-hA-H0-9]{32}-X|FLWSECK_TEST-[a-hA-H0-9]{12}"),
    ),
    exact(
        "shippo-token",
        &["shippo_"],
        tok!(r"shippo_(?:live|test)_[a-fA-F0-9]{40}"),
    ),
    exact(
        "duffel-token",
        &["duffel_"],
        tok!(r"duffel_(?:test|live)_[A-Za-z0-9_=-]{43}"),
    ),
    exact(
        "easypost-key",
        &["ezak", "eztk"],
        tok!(r"EZ[AT]K[A-Za-z0-9]{54}"),
    ),
    exact("adyen-key", &["aqe"], tok!(r"AQE[A-Za-z0-9+/=_.-]{80,}")),
    // AI providers.
    exact(
        "anthropic-api-key",
        &["sk-ant-"],
        tok!(r"sk-ant-(?:api|admin|sid)\d{2}-[A-Za-z0-9_-]{40,}"),
    ),
    exact(
        "openai-api-key",
        &["sk-"],
        tok!(
            r"sk-(?:proj-|svcacct-|admin-|None-)?[A-Za-z0-9_-]{20,}T3BlbkFJ[A-Za-z0-9_-]{20,}",
            r"|sk-(?:proj-|svcacct-|admin-)[A-Za-z0-9_-]{40,}|sk-[A-Za-z0-9]{48}"
        ),
    ),
    exact(
        "huggingface-token",
        &["hf_", "api_org_"],
        tok!(r"(?:hf_|api_org_)[A-Za-z]{34}"),
    ),
    exact("groq-api-key", &["gsk_"], tok!(r"gsk_[A-Za-z0-9]{52}")),
    exact("replicate-token", &["r8_"], tok!(r"r8_[A-Za-z0-9]{37}")),
    exact(
        "perplexity-api-key",
        &["pplx-"],
        tok!(r"pplx-[A-Za-z0-9]{48}"),
    ),
    exact("xai-api-key", &["xai-"], tok!(r"xai-[A-Za-z0-9]{70,90}")),
    near(
        "cohere-api-key",
        &["cohere", "co_api_key"],
        tok!(r"[A-Za-z0-9]{40}"),
    ),
    near("mistral-api-key", &["mistral"], tok!(r"[A-Za-z0-9]{32}")),
    near("deepseek-api-key", &["deepseek"], tok!(r"sk-[a-f0-9]{32}")),
    // Package registries.
    exact("npm-token", &["npm_"], tok!(r"npm_[A-Za-z0-9]{36}")),
    exact(
        "pypi-token",
        &["pypi-"],
        tok!(r"pypi-AgEIcHlwaS5vcmc[A-Za-z0-9_-]{50,}"),
    ),
    exact(
        "rubygems-token",
        &["rubygems_"],
        tok!(r"rubygems_[a-f0-9]{48}"),
    ),
    exact("nuget-api-key", &["oy2"], tok!(r"oy2[a-z0-9]{43}")),
    exact(
        "dockerhub-token",
        &["dckr_pat_", "dckr_oat_"],
        tok!(r"dckr_(?:pat|oat)_[A-Za-z0-9_-]{27,}"),
    ),
    exact(
        "clojars-token",
        &["clojars_"],
        tok!(r"CLOJARS_[a-z0-9]{60}"),
    ),
    near(
        "artifactory-key",
        &["artifactory", "akcp", "cmvmd"],
        tok!(r"AKCp[A-Za-z0-9]{69}|cmVmd[A-Za-z0-9]{59}"),
    ),
    // Observability.
    near(
        "datadog-key",
        &[
            "datadog",
            "dd_api_key",
            "dd_app_key",
            "dd-api-key",
            "dd-application-key",
        ],
        tok!(r"[a-f0-9]{40}|[a-f0-9]{32}"),
    ),
    exact(
        "sentry-token",
        &["sntrys_", "sntryu_"],
        tok!(r"sntrys_eyJ[A-Za-z0-9+/=_-]{40,}|sntryu_[a-f0-9]{64}"),
    ),
    exact(
        "sentry-dsn",
        &["sentry.io", "ingest."],
        r"https?://(?P<s>[0-9a-f]{32})@[A-Za-z0-9.-]*ingest",
    ),
    exact(
        "newrelic-key",
        &["nrak-", "nrjs-", "nrbr-", "nrii-", "nriq-", "nral"],
        tok!(
            r"(?i:NRAK-)[A-Za-z0-9]{27}|(?i:NRJS-|NRBR-)[a-fA-F0-9]{19}",
            r"|(?i:NRII-|NRIQ-)[A-Za-z0-9_-]{25,32}|[a-f0-9]{36}NRAL"
        ),
    ),
    exact(
        "grafana-token",
        &["glc_", "glsa_", "eyjrijoi"],
        tok!(
            r"glc_[A-Za-z0-9+/]{32,400}={0,2}|glsa_[A-Za-z0-9]{32}_[A-Fa-f0-9]{8}",
            r"|eyJrIjoi[A-Za-z0-9]{70,400}={0,2}"
        ),
    ),
    near(
        "honeycomb-key",
        &["honeycomb"],
        tok!(r"[A-Za-z0-9]{22}|[a-f0-9]{32}"),
    ),
    near(
        "splunk-token",
        &["splunk"],
        tok!(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}"),
    ),
    // Productivity and SaaS.
    exact(
        "linear-api-key",
        &["lin_api_"],
        tok!(r"lin_api_[A-Za-z0-9]{40}"),
    ),
    exact(
        "notion-token",
        &["ntn_", "secret_"],
        tok!(r"ntn_[0-9]{11}[A-Za-z0-9]{35}|secret_[A-Za-z0-9]{43}"),
    ),
    exact(
        "postman-api-key",
        &["pmak-"],
        tok!(r"PMAK-[a-f0-9]{24}-[a-f0-9]{34}"),
    ),
    exact("dropbox-token", &["sl."], tok!(r"sl\.[A-Za-z0-9_-]{130,}")),
    exact(
        "mapbox-token",
        &["sk.eyj"],
        tok!(r"sk\.eyJ[A-Za-z0-9_-]{60,}\.[A-Za-z0-9_-]{20,}"),
    ),
    near(
        "mapbox-token",
        &["mapbox"],
        tok!(r"[ps]k\.[A-Za-z0-9_-]{60,}\.[A-Za-z0-9_-]{20,}"),
    ),
    exact("facebook-token", &["eaa"], tok!(r"EAA[A-Za-z0-9]{90,}")),
    exact(
        "twitter-bearer-token",
        &["aaaaaaaaaaaaaaaaaaaaa"],
        tok!(r"A{22}[A-Za-z0-9%]{30,}"),
    ),
    near("okta-token", &["okta"], tok!(r"00[A-Za-z0-9_-]{40}")),
    near("algolia-key", &["algolia"], tok!(r"[a-f0-9]{32}")),
    near(
        "cloudflare-token",
        &["cloudflare", "cf_api"],
        tok!(r"[A-Za-z0-9_-]{40}|[a-f0-9]{37}"),
    ),
    exact(
        "cloudflare-origin-ca-key",
        &["v1.0-"],
        tok!(r"v1\.0-[a-f0-9]{24}-[a-f0-9]{146}"),
    ),
    near(
        "snyk-token",
        &["snyk"],
        tok!(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}"),
    ),
    exact(
        "planetscale-token",
        &["pscale_"],
        tok!(r"pscale_(?:tkn|pw|oauth)_[A-Za-z0-9_.=-]{32,64}"),
    ),
    exact("supabase-token", &["sbp_"], tok!(r"sbp_[a-f0-9]{40}")),
    exact("readme-api-key", &["rdme_"], tok!(r"rdme_[a-z0-9]{70}")),
    exact(
        "frameio-token",
        &["fio-u-"],
        tok!(r"fio-u-[A-Za-z0-9_=-]{64}"),
    ),
    exact(
        "onepassword-token",
        &["ops_eyj", "a3-"],
        tok!(
            r"ops_eyJ[A-Za-z0-9+/=_-]{200,}|A3-[A-Z0-9]{6}-(?:[A-Z0-9]{11}|[A-Z0-9]{6}-",
            r"[A-Z0-9]{5})-[A-Z0-9]{5}-[A-Z0-9]{5}-[A-Z0-9]{5}"
        ),
    ),
    exact(
        "yandex-key",
        &["aqvn", "yandex"],
        tok!(r"AQVN[A-Za-z0-9_-]{35,38}|YC[A-Za-z0-9_-]{38}"),
    ),
    exact(
        "intra42-secret",
        &["s-s4t2"],
        tok!(r"s-s4t2(?:ud|af)-[a-f0-9]{64}"),
    ),
    near(
        "lob-key",
        &["lob"],
        tok!(r"(?:live|test)_(?:pub_)?[a-f0-9]{31,35}"),
    ),
    near(
        "azure-devops-pat",
        &["azure", "ado_", "devops"],
        tok!(r"[a-z2-7]{52}|[A-Za-z0-9]{84}"),
    ),
    // Formats added from the public scanner rule sets (prefix, length and alphabet).
    exact(
        "adobe-client-secret",
        &["p8e-"],
        tok!(r"p8e-[A-Za-z0-9]{32}"),
    ),
    exact(
        "clickhouse-api-secret",
        &["4b1d"],
        tok!(r"4b1d[A-Za-z0-9]{38}"),
    ),
    exact(
        "dynatrace-token",
        &["dt0c01."],
        tok!(r"dt0c01\.[A-Za-z0-9]{24}\.[A-Za-z0-9]{64}"),
    ),
    exact("mailgun-key", &["pubkey-"], tok!(r"pubkey-[a-f0-9]{32}")),
    near(
        "mailgun-key",
        &["mailgun"],
        tok!(r"[a-h0-9]{32}-[a-h0-9]{8}-[a-h0-9]{8}"),
    ),
    exact(
        "maxmind-license-key",
        &["_mmk"],
        tok!(r"[A-Za-z0-9]{6}_[A-Za-z0-9]{29}_mmk"),
    ),
    exact(
        "settlemint-token",
        &["sm_aat_", "sm_pat_", "sm_sat_"],
        tok!(r"sm_[aps]at_[A-Za-z0-9]{16}"),
    ),
    exact(
        "typeform-token",
        &["tfp_"],
        tok!(r"tfp_[A-Za-z0-9_.=-]{59}"),
    ),
    near("vault-token", &["vault"], tok!(r"s\.[A-Za-z0-9]{24}")),
    exact(
        "yandex-key",
        &["t1."],
        tok!(r"t1\.[A-Za-z0-9_-]{20,}=*\.[A-Za-z0-9_-]{86}=*"),
    ),
    exact(
        "harness-token",
        &["pat.", "sat."],
        tok!(r"(?:pat|sat)\.[A-Za-z0-9_-]{22}\.[A-Za-z0-9]{24}\.[A-Za-z0-9]{20}"),
    ),
    exact(
        "gitlab-session-cookie",
        &["_gitlab_session="],
        r"_gitlab_session=(?P<s>[0-9a-z]{32})",
    ),
    exact(
        "teams-webhook",
        &["webhook.office.com"],
        r"[A-Za-z0-9-]+\.webhook\.office\.com/webhookb2/(?P<s>[^\s\x22'`<>]{20,})",
    ),
    exact(
        "zapier-webhook",
        &["hooks.zapier.com"],
        r"hooks\.zapier\.com/hooks/catch/(?P<s>\d+/[A-Za-z0-9]+)",
    ),
    exact("jwt", &["zxlk"], tok!(r"ZXlK[A-Za-z0-9+/_-]{40,}={0,2}")),
    exact(
        "authress-key",
        &[".acc_", ".acc-"],
        tok!(
            r"(?:sc|ext|scauth|authress)_[A-Za-z0-9]{5,30}\.[A-Za-z0-9]{4,6}\.acc[_-]",
            r"[A-Za-z0-9-]{10,32}\.[A-Za-z0-9+/_=-]{30,120}"
        ),
    ),
    exact(
        "sidekiq-secret",
        &["contribsys"],
        concat!(
            r#"(?i)BUNDLE_(?:ENTERPRISE|GEMS)__CONTRIBSYS__COM[A-Z_]*["']?\s*[:=]+\s*["']?(?P<s>"#,
            r#"[a-f0-9]{8}:[a-f0-9]{8})"#
        ),
    ),
    exact(
        "circleci-token",
        &["ccipat_", "cciprj_"],
        tok!(r"CCI(?:PAT|PRJ)_[A-Za-z0-9]{22}_[a-f0-9]{40}"),
    ),
    exact("buildkite-token", &["bkua_"], tok!(r"bkua_[a-f0-9]{40}")),
    exact(
        "openrouter-api-key",
        &["sk-or-v1-"],
        tok!(r"sk-or-v1-[a-f0-9]{64}"),
    ),
    exact(
        "pinecone-api-key",
        &["pcsk_"],
        tok!(r"pcsk_[A-Za-z0-9]{4,8}_[A-Za-z0-9]{50,80}"),
    ),
    exact(
        "langsmith-api-key",
        &["lsv2_"],
        tok!(r"lsv2_(?:pt|sk)_[a-f0-9]{32}_[a-f0-9]{10}"),
    ),
    exact(
        "tavily-api-key",
        &["tvly-"],
        tok!(r"tvly-(?:dev-|prod-)?[A-Za-z0-9]{32}"),
    ),
    exact(
        "razorpay-key",
        &["rzp_live_", "rzp_test_"],
        tok!(r"rzp_(?:live|test)_[A-Za-z0-9]{14}"),
    ),
    exact(
        "posthog-personal-key",
        &["phx_"],
        tok!(r"phx_[A-Za-z0-9]{43}"),
    ),
    exact(
        "contentful-token",
        &["cfpat-"],
        tok!(r"CFPAT-[A-Za-z0-9_-]{43}"),
    ),
    exact("netlify-token", &["nfp_"], tok!(r"nfp_[A-Za-z0-9]{36}")),
    exact("render-api-key", &["rnd_"], tok!(r"rnd_[A-Za-z0-9]{32}")),
    exact(
        "vercel-token",
        &["vcp_", "vci_", "vca_", "vcr_", "vck_"],
        tok!(r"vc[pikar]_[A-Za-z0-9]{24,64}"),
    ),
    exact("gcs-hmac-key", &["goog1"], tok!(r"GOOG1[A-Z0-9]{50,70}")),
    exact("figma-token", &["figd_"], tok!(r"figd_[A-Za-z0-9_-]{40}")),
    exact(
        "supabase-token",
        &["sb_secret_"],
        tok!(r"sb_secret_[A-Za-z0-9_-]{24,}"),
    ),
    exact(
        "gcp-refresh-token",
        &["1//0"],
        tok!(r"1//0[A-Za-z0-9_-]{40,}"),
    ),
    exact(
        "plaid-token",
        &[
            "access-sandbox-",
            "access-development-",
            "access-production-",
        ],
        tok!(
            r"access-(?:sandbox|development|production)-[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-",
            r"[0-9a-f]{4}-[0-9a-f]{12}"
        ),
    ),
    near(
        "launchdarkly-key",
        &["launchdarkly"],
        tok!(r"(?:sdk|api|mob)-[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}"),
    ),
    near(
        "gocardless-token",
        &["gocardless", "live_"],
        tok!(r"live_[A-Za-z0-9_=-]{40}"),
    ),
    // Lob keys: `live_`/`test_` (and `_pub_`) and 35 hex digits (gitleaks `lob-api-key`).
    exact(
        "lob-key",
        &["live_"],
        tok!(r"live_pub_[a-f0-9]{31}|live_[a-f0-9]{35}"),
    ),
    // Telegram bot tokens next to the name, in gitleaks' looser shape (`:A` and 34).
    near(
        "telegram-bot-token",
        &["telegr"],
        tok!(r"\d{5,16}:A[A-Za-z0-9_-]{34}"),
    ),
    // Sidekiq Enterprise credentials as Bundler stores them for gems.contribsys.com.
    exact(
        "sidekiq-secret",
        &["contribsys"],
        r"(?:^|[^A-Za-z0-9])(?P<s>[a-f0-9]{8}:[a-f0-9]{8})(?:$|[^A-Za-z0-9])",
    ),
    // KuCoin's API secret is a UUID: only next to the name.
    near(
        "kucoin-secret",
        &["kucoin"],
        tok!(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}"),
    ),
    near(
        "twitter-access-token",
        &["twitter"],
        tok!(r"\d{15,25}-[A-Za-z0-9]{20,40}"),
    ),
    near(
        "dropbox-token",
        &["dropbox"],
        tok!(r"[A-Za-z0-9]{11}AAAAAAAAAA[A-Za-z0-9_=-]{43}"),
    ),
    // Password hashes: crypt(3) formats (md5crypt and Apache's apr1, bcrypt, sha256crypt and
    // sha512crypt, Cisco type 8/9, yescrypt, scrypt), Argon2's PHC strings, Kerberos AS-REP
    // and TGS hashes, Django's PBKDF2, PostgreSQL SCRAM verifiers and LDAP `{SSHA}` values
    // (shapes from Nosey Parker's `np.pwhash.*` and `np.krb5.*` rules and the formats'
    // own documentation). A hash is as good as the password to an offline attack.
    exact(
        "password-hash",
        &[
            "$1$",
            "$apr1$",
            "$2a$",
            "$2b$",
            "$2x$",
            "$2y$",
            "$5$",
            "$6$",
            "$7$",
            "$8$",
            "$9$",
            "$y$",
            "$argon2",
            "$krb5",
            "pbkdf2_sha",
            "scram-sha-",
            "{ssha",
            "{sha",
        ],
        concat!(
            r"(?:^|[^A-Za-z0-9./$])(?P<s>",
            r"\$(?:1|apr1)\$[./A-Za-z0-9]{1,8}\$[./A-Za-z0-9]{22}",
            r"|\$2[abxy]?\$\d{2}\$[./A-Za-z0-9]{53}",
            r"|\$[56]\$(?:rounds=\d{1,9}\$)?[./A-Za-z0-9]{1,16}\$(?:[./A-Za-z0-9]{86}",
            r"|[./A-Za-z0-9]{43})",
            r"|\$[89]\$[./A-Za-z0-9]{14}\$[./A-Za-z0-9]{43}",
            r"|\$7\$[./A-Za-z0-9]{11,64}\$[./A-Za-z0-9]{43}",
            r"|\$y\$[./A-Za-z0-9]{1,8}\$[./A-Za-z0-9]{1,86}\$[./A-Za-z0-9]{43}",
            r"|\$argon2(?:id|i|d)\$v=\d{1,3}\$m=\d{1,9},t=\d{1,4},p=\d{1,4}\$[A-Za-z0-9+/]{11,}\$",
            r"[A-Za-z0-9+/]{16,}",
            r"|\$krb5asrep\$\d{1,2}\$(?:[^:$\s]{1,200}:)?[0-9a-fA-F]{32}\$[0-9a-fA-F]{64,}",
            r"|\$krb5tgs\$\d{1,2}\$\*[^*\s]{1,200}\*\$[0-9a-fA-F]{32}\$[0-9a-fA-F]{64,}",
            r"|pbkdf2_sha(?:1|256|512)\$\d{3,7}\$[A-Za-z0-9./+]{4,64}\$[A-Za-z0-9+/]{20,}={0,2}",
            r"|(?i:scram-sha-(?:1|256))\$\d{1,7}:[A-Za-z0-9+/]{8,}={0,2}\$",
            r"[A-Za-z0-9+/]{20,}={0,2}:[A-Za-z0-9+/]{20,}={0,2}",
            r"|\{(?i:ssha|sha|ssha256|ssha512|sha256|sha512)\}[A-Za-z0-9+/]{20,}={0,2}",
            r")",
        ),
    ),
    // PostgreSQL's `md5` verifier and MySQL's `mysql_native_password` hash, quoted.
    exact(
        "password-hash",
        &["'md5", "\"md5"],
        r#"['"](?P<s>md5[0-9a-f]{32})['"]"#,
    ),
    exact(
        "password-hash",
        &["identified", "authentication_string"],
        r#"['"](?P<s>\*[0-9A-Fa-f]{40})['"]"#,
    ),
    // pwdump and secretsdump lines: `user:rid:LM:NT:::`.
    exact(
        "password-hash",
        &[":::"],
        r"^[+\- \t]*[^:\s]{1,64}:\d{1,10}:(?P<s>[0-9a-fA-F]{32}:[0-9a-fA-F]{32}):::",
    ),
    // Formats from gitleaks' and trufflehog's rule lists that the rules above lacked.
    exact(
        "hubspot-token",
        &["pat-na", "pat-eu", "pat-ap"],
        tok!(r"pat-(?:na|eu|ap)\d-[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}"),
    ),
    // HubSpot's legacy API key and Squarespace's token are UUIDs: only next to the name.
    near(
        "hubspot-token",
        &["hubspot"],
        tok!(r"[0-9A-Fa-f]{8}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{12}"),
    ),
    near(
        "squarespace-token",
        &["squarespace"],
        tok!(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}"),
    ),
    exact(
        "sonar-token",
        &["squ_", "sqp_", "sqa_"],
        tok!(r"sq[upa]_[a-f0-9]{40}"),
    ),
    near(
        "airtable-token",
        &["airtable"],
        tok!(r"pat[A-Za-z0-9]{14}\.[a-f0-9]{64}|key[A-Za-z0-9]{14}"),
    ),
    near("beamer-token", &["beamer"], tok!(r"b_[A-Za-z0-9=_-]{44}")),
    near("meraki-api-key", &["meraki"], tok!(r"[0-9a-f]{40}")),
    exact(
        "defined-networking-token",
        &["dnkey-"],
        tok!(r"(?i:dnkey-[a-z0-9=_-]{26}-[a-z0-9=_-]{52})"),
    ),
    near("etsy-token", &["etsy"], tok!(r"[A-Za-z0-9]{24}")),
    near(
        "looker-secret",
        &["looker"],
        tok!(r"[A-Za-z0-9]{20}|[A-Za-z0-9]{24}"),
    ),
    near(
        "sumologic-key",
        &["sumo"],
        tok!(r"su[A-Za-z0-9]{12}|[A-Za-z0-9]{64}"),
    ),
    // Kubernetes bootstrap tokens (`kubeadm join --token`, Nosey Parker `np.kubernetes.1`).
    near(
        "kubernetes-bootstrap-token",
        &["kube", "bootstrap"],
        tok!(r"[a-z0-9]{6}\.[a-z0-9]{16}"),
    ),
    // Headers, cookies, URLs.
    Rule {
        id: "bearer-token",
        keywords: &["bearer"],
        pattern: r"(?i)(?:^|[^A-Za-z0-9_])bearer[ \t]+(?P<s>[A-Za-z0-9._~+/-]{12,}=*)",
        check: Check::Opaque,
    },
    Rule {
        id: "basic-auth",
        keywords: &["basic"],
        pattern: r"(?i)(?:^|[^A-Za-z0-9_])basic[ \t]+(?P<s>[A-Za-z0-9+/]{6,}={0,2})",
        check: Check::BasicAuth,
    },
    Rule {
        id: "authorization-header",
        keywords: &["authorization"],
        pattern: concat!(
            r#"(?i)authorization["']?[ \t]*[:=,][ \t]*["']?(?:token[ \t]+)?(?P<s>"#,
            r#"[A-Za-z0-9._~+/-]{16,}=*)"#
        ),
        check: Check::Opaque,
    },
    Rule {
        id: "cookie",
        keywords: &["cookie"],
        pattern: concat!(
            r"(?i)(?:session|sess|sid|token|auth|jwt|csrf",
            r"|remember)[A-Za-z0-9_.-]*=(?P<s>[A-Za-z0-9%._~+/=-]{16,})"
        ),
        check: Check::Opaque,
    },
    // `scheme://user:password@host`: the password runs to the last `@` before the host, as
    // MongoDB's and libpq's parsers read an unencoded `@` in it (`p@ss@host`); host, port
    // and database stay readable.
    Rule {
        id: "url-credentials",
        keywords: &["://"],
        pattern: concat!(
            r#"(?i)[a-z][a-z0-9+.-]*://(?P<n>[^/\s:@"'`<>]*):(?P<s>[^/\s@"'`<>]+(?:@"#,
            r#"[^/\s@"'`<>:]+)*?)@[A-Za-z0-9_.\[\]-]+(?:[^@A-Za-z0-9_.\[\]-]|$)"#
        ),
        check: Check::UrlPassword,
    },
    // Oracle's thin JDBC URL puts the password after a `/`: `jdbc:oracle:thin:user/pass@//host`.
    exact(
        "connection-string",
        &["jdbc:oracle:"],
        r#"(?i)jdbc:oracle:[a-z]+:[A-Za-z0-9_$#.]+/(?P<s>[^@\s"'/]{1,128})@"#,
    ),
    // `Password=`/`Pwd=` in ADO.NET, ODBC, JDBC and libpq connection strings and JDBC query
    // parameters (Nosey Parker `np.odbc.1`, trufflehog `jdbc`), ending at `;`, `&`, a quote
    // or a blank; only the value goes, the other keys stay readable.
    Rule {
        id: "connection-string",
        keywords: &["password=", "pwd=", "password =", "pwd ="],
        pattern: concat!(
            r#"(?i)(?:^|[;"'\s{(,?&:])(?:password|pwd)[ \t]*=[ \t]*"#,
            r#"(?P<s>[^;"'\s<>&(),]{3,200})"#
        ),
        check: Check::ConnectionString,
    },
    // Generic assignments: a credential-like name bound to a secret-looking value.
    // `Redactor` runs this pattern as the hand-written matcher in `assignment.rs`; tests check
    // the matcher against the pattern, so a change here must be made there too.
    Rule {
        id: "generic-secret",
        keywords: &[
            "pass",
            "pwd",
            "secret",
            "token",
            "key",
            "credential",
            "creds",
            "dsn",
        ],
        pattern: concat!(
            r#"(?i)(?P<n>[a-z0-9_.$@-]*(?:pass|pwd|secret|token|key|credential|creds"#,
            r#"|dsn)[a-z0-9_.-]*)"#,
            r#"(?P<c>\\?["'`]?\]?)[ \t]*"#,
            r#"(?P<o>:[ \t]*[&A-Za-z_][A-Za-z0-9_.<>|?&' \[\]]*?[ \t]*=|:{1,3}=|=>|===?|!==?|<="#,
            r#"|>=|\|\|=|\?\?=|[+.?]=|=|:|,|>|[ \t]+[A-Za-z_][A-Za-z0-9_.\[\]*]*[ \t]*=|[ \t])"#,
            r#"[ \t]*(?P<v>\\"[^"\\\n]*\\"|(?:[fFbBrRuU]{1,2})?"(?:[^"\\\n]|\\.)*""#,
            r#"|(?:[fFbBrRuU]{1,2})?'(?:[^'\\\n]|\\.)*'|`[^`\n]*`"#,
            r#"|[^\s"'`,;(){}\[\]<>&=:][^\s"'`,;(){}\[\]<>&]*)"#,
        ),
        check: Check::Assignment,
    },
    Rule {
        id: "xml-attribute-secret",
        keywords: &["value="],
        pattern: concat!(
            r#"(?i)(?:name|key)[ \t]*=[ \t]*"(?P<n>[A-Za-z0-9_.:-]{1,64})"[ \t]+value[ \t]*="#,
            r#"[ \t]*"(?P<v>[^"\n]*)""#
        ),
        check: Check::AttributePair,
    },
    Rule {
        id: "command-line-password",
        keywords: &[
            "mysql",
            "mariadb",
            "curl",
            "sshpass",
            "redis-cli",
            "machine",
            "docker",
            "htpasswd",
            "openssl",
            "securestring",
        ],
        // Each alternative captures the password in its own (unnamed) group.
        pattern: concat!(
            r#"(?:mysql(?:dump|admin)?|mariadb)\b[^\n]*?[ \t]-p([^\s'"\-][^\s'"]{3,})"#,
            r#"|(?:mysql(?:dump|admin)?|mariadb)\b[^\n]*?[ \t]-p['"]([^'"\n]{3,})['"]"#,
            r#"|\bdocker\b[^\n]*?\blogin\b[^\n]*?[ \t](?:-p|--password)(?:="#,
            r#"|[ \t]+)["']?([^\s"'-][^\s"']{2,})"#,
            // `htpasswd -b[cBm] file user password`, `htpasswd -nb user password`.
            r#"|\bhtpasswd[ \t]+-[A-Za-mo-z]*b[A-Za-mo-z]*[ \t]+\S+[ \t]+\S+[ \t]+["']?("#,
            r#"[^\s"']{3,})"#,
            r#"|\bhtpasswd[ \t]+-[A-Za-z]*(?:nb|bn)[A-Za-z]*[ \t]+\S+[ \t]+["']?([^\s"']{3,})"#,
            r#"|\bopenssl\b[^\n]*?[ \t](?:-k[ \t]+"#,
            r#"|-pass(?:in|out)?[ \t]+["']?pass:)["']?([^\s"']{3,})"#,
            r#"|(?i:ConvertTo-SecureString)[ \t]+(?:-String[ \t]+)?["']([^"'\n]{3,})["']"#,
            r#"[ \t]+-AsPlainText"#,
            r#"|\bcurl\b[^\n]*?[ \t](?:-u|--user)(?:=|[ \t]+)["']?[^\s:"'$]{1,64}:([^\s"']{3,})"#,
            r#"|\bsshpass\b[^\n]*?[ \t]-p[ \t]*["']?([^\s"']{3,})"#,
            r#"|\bredis-cli\b[^\n]*?[ \t](?:-a|--pass)[ \t]+["']?([^\s"']{3,})"#,
            r#"|^[+\- \t]*machine[ \t]+\S+[^\n]*?[ \t]password[ \t]+(\S+)"#,
        ),
        check: Check::CommandLine,
    },
    // A user and password handed to a credential constructor or an auth tuple
    // (`NetworkCredential("u", "p")`, `HTTPBasicAuth("u", "p")`, `auth=("u", "p")`; Nosey
    // Parker `np.generic.7`), and `DirectoryEntry(path, "u", "p")` (`np.generic.8`).
    Rule {
        id: "generic-secret",
        // Words the automaton already holds: every constructor name above contains one.
        keywords: &["credential", "auth"],
        pattern: concat!(
            r#"(?i)\b(?:NetworkCredential|HTTPBasicAuth|HTTPDigestAuth|BasicAuth"#,
            r#"|UsernamePasswordCredentials?|PasswordCredential|PasswordAuthentication"#,
            r#"|auth[ \t]*=[ \t]*)[ \t]*\([ \t]*["'](?P<n>[^"'\n]{1,64})["'][ \t]*,[ \t]*["']"#,
            r#"(?P<s>[^"'\n]{3,128})["']"#
        ),
        check: Check::UrlPassword,
    },
    Rule {
        id: "generic-secret",
        keywords: &["directoryentry"],
        pattern: concat!(
            r#"(?i)\bDirectoryEntry[ \t]*\([ \t]*"[^"\n]{0,200}"[ \t]*,[ \t]*"(?P<n>[^"\n]{1,64})"#,
            r#""[ \t]*,[ \t]*"(?P<s>[^"\n]{3,128})""#
        ),
        check: Check::UrlPassword,
    },
    // Prose: `the default password is 'changeme'`, `the password for user 'x' is "y"` (Nosey
    // Parker `np.generic.11` to `.14`).
    Rule {
        id: "generic-secret",
        keywords: &["password is", "password for"],
        pattern: concat!(
            r#"(?i)\bthe[ \t]+(?:default[ \t]+)?password[ \t]+(?:for[ \t]+(?:the[ \t]+)?(?:user"#,
            r#"|username)[ \t]+['"][^'"\n]{1,24}['"][ \t]+)?is[ \t]+['"`]([^'"`\n\#$|{<+ ()\\]"#,
            r#"[^'"`\n]{2,60})['"`]"#
        ),
        check: Check::CommandLine,
    },
    // `CREATE USER … WITH PASSWORD '…'`, `ALTER USER … IDENTIFIED BY '…'` (PostgreSQL,
    // MySQL, Oracle); `PASSWORD = '…'` is the generic rule's.
    Rule {
        id: "sql-password",
        keywords: &["password '", "identified by '", "password e'"],
        pattern: r"(?i)\b(?:password|identified[ \t]+by)[ \t]+e?'([^'\n]{4,128})'",
        check: Check::CommandLine,
    },
    // A random-looking token on a line that names a credential or a provider: the long tail
    // of formats with no prefix, in whatever syntax binds them. `Redactor::near_keyword`
    // runs this pattern as a hand-written byte scan (it sees every line naming a credential).
    Rule {
        id: "secret-near-keyword",
        keywords: NEAR_TRIGGERS,
        pattern: concat!(
            r#"(?:^|[\s"'`=:(,\[{>|])[A-Za-z0-9][A-Za-z0-9_+/=.~-]{15,511}"#,
            r#"(?:$|[\s"'`;,)\]}<&\\])"#
        ),
        check: Check::NearKeyword,
    },
];

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
