#!/usr/bin/env python3
"""Writes heldout.txt: secret lines in the shapes public secret-scanner fixtures use.

Written from the documented token formats of scanner rule sets (provider prefixes, lengths,
alphabets, the keyword a value sits next to) and the syntaxes their sample generators emit
(INI, JSON, escaped JSON, XML, YAML, Go, Java, C#, Kotlin, PHP, Python, CSV, logstash, make),
*before* the redactor had rules for most of them. The test reports recall on it; it is kept
apart from secrets.txt so it measures how well the rules generalise.
Values are fake (seeded generator) and authenticate nothing.
Run: python3 testdata/redact/heldout.py > testdata/redact/heldout.txt
"""
import random
import string

rng = random.Random(4242)
AZ = string.ascii_uppercase
az = string.ascii_lowercase
D = string.digits
HEX = "0123456789abcdef"
ALNUM = AZ + az + D
LOWNUM = az + D
URL = ALNUM + "-_"


def r(chars, n):
    while True:
        v = "".join(rng.choice(chars) for _ in range(n))
        if not any(c in D for c in chars) or any(c in D for c in v) or n < 8:
            return v


def uuid(upper=False):
    v = "-".join([r(HEX, 8), r(HEX, 4), r(HEX, 4), r(HEX, 4), r(HEX, 12)])
    return v.upper() if upper else v


# (id, identifier the fixture names, value)
CASES = [
    ("adafruit", "adafruit", lambda: r(LOWNUM + "_-", 32)),
    ("adobe-client-id", "adobe", lambda: r(HEX, 32)),
    ("adobe-client-secret", "adobe", lambda: "p8e-" + r(ALNUM, 32)),
    ("airtable", "airtable", lambda: r(LOWNUM, 17)),
    ("alibaba-secret", "alibaba", lambda: r(LOWNUM, 30)),
    ("asana-secret", "asana", lambda: r(LOWNUM, 32)),
    ("atlassian", "atlassian", lambda: r(LOWNUM, 20) + r(HEX, 4)),
    ("beamer", "beamer", lambda: "b_" + r(LOWNUM + "=_-", 44)),
    ("bitbucket-client-id", "bitbucket", lambda: r(LOWNUM, 32)),
    ("bittrex", "bittrex", lambda: r(LOWNUM, 32)),
    ("meraki", "meraki", lambda: r(HEX, 40)),
    ("clickhouse", "clickhouse", lambda: "4b1d" + r(ALNUM, 38)),
    ("codecov", "codecov", lambda: r(LOWNUM, 32)),
    ("coinbase", "coinbase", lambda: r(LOWNUM + "_-", 64)),
    ("confluent", "confluent", lambda: r(LOWNUM, 64)),
    ("contentful", "contentful", lambda: r(LOWNUM + "=_-", 43)),
    ("discord-secret", "discord", lambda: r(HEX, 64)),
    ("droneci", "droneci", lambda: r(LOWNUM, 32)),
    ("dropbox-long-lived", "dropbox", lambda: r(LOWNUM, 11) + "AAAAAAAAAA" + r(LOWNUM + "-_=", 43)),
    ("dynatrace", "dynatrace", lambda: "dt0c01." + r(ALNUM, 24) + "." + r(ALNUM, 64)),
    ("etsy", "etsy", lambda: r(LOWNUM, 24)),
    ("facebook-secret", "facebook", lambda: r(HEX, 32)),
    ("fastly", "fastly", lambda: r(LOWNUM + "=_-", 32)),
    ("finicity", "finicity", lambda: r(HEX, 32)),
    ("finnhub", "finnhub", lambda: r(LOWNUM, 20)),
    ("flickr", "flickr", lambda: r(LOWNUM, 32)),
    ("flutterwave-enc", "flutterwave", lambda: "FLWSECK_TEST-" + r("abcdefgh" + D, 12)),
    ("flyio-macaroon", "fly", lambda: "fm2_" + r(ALNUM + "+/", 120)),
    ("freshbooks", "freshbooks", lambda: r(LOWNUM, 64)),
    ("gitter", "gitter", lambda: r(LOWNUM + "_-", 40)),
    ("gocardless", "gocardless", lambda: "live_" + r(LOWNUM + "-_=", 40)),
    ("harness", "harness", lambda: "pat." + r(URL, 22) + "." + r(ALNUM, 24) + "." + r(ALNUM, 20)),
    ("heroku-v2", "heroku", lambda: "HRKU-AA" + r(URL, 58)),
    ("hubspot", "hubspot", lambda: uuid(upper=True)),
    ("intercom", "intercom", lambda: r(LOWNUM + "=_-", 60)),
    ("jfrog", "jfrog", lambda: r(LOWNUM, 73)),
    ("kraken", "kraken", lambda: r(LOWNUM + "/=_+-", 86)),
    ("kucoin", "kucoin", lambda: r(HEX, 24)),
    ("launchdarkly", "launchdarkly", lambda: r(LOWNUM + "=_-", 40)),
    ("linear-client-secret", "linear", lambda: r(HEX, 32)),
    ("linkedin", "linkedin", lambda: r(LOWNUM, 16)),
    ("mailgun-pub", "mailgun", lambda: "pubkey-" + r(HEX, 32)),
    ("mailgun-signing", "mailgun", lambda: r(HEX, 32) + "-" + r(HEX, 8) + "-" + r(HEX, 8)),
    ("mapbox-public", "mapbox", lambda: "pk." + r(LOWNUM, 60) + "." + r(LOWNUM, 22)),
    ("mattermost", "mattermost", lambda: r(LOWNUM, 26)),
    ("maxmind", "maxmind", lambda: r(ALNUM, 6) + "_" + r(ALNUM, 29) + "_mmk"),
    ("messagebird", "messagebird", lambda: r(LOWNUM, 25)),
    ("netlify", "netlify", lambda: r(LOWNUM + "=_-", 43)),
    ("newrelic-insert", "newrelic", lambda: "NRII-" + r(LOWNUM + "-", 32)),
    ("nytimes", "nytimes", lambda: r(LOWNUM + "=_-", 32)),
    ("plaid-access", "plaid", lambda: "access-sandbox-" + uuid()),
    ("plaid-secret", "plaid", lambda: r(LOWNUM, 30)),
    ("privateai", "privateai", lambda: r(LOWNUM, 32)),
    ("rapidapi", "rapidapi", lambda: r(LOWNUM + "_-", 50)),
    ("sendbird", "sendbird", lambda: r(HEX, 40)),
    ("settlemint", "settlemint", lambda: "sm_pat_" + r(ALNUM, 16)),
    ("sonar", "sonar", lambda: r(LOWNUM + "=_-", 40)),
    ("squarespace", "squarespace", lambda: uuid()),
    ("sumologic", "sumo", lambda: r(LOWNUM, 64)),
    ("travisci", "travis", lambda: r(LOWNUM, 22)),
    ("twitch", "twitch", lambda: r(LOWNUM, 30)),
    ("twitter-secret", "twitter", lambda: r(LOWNUM, 45)),
    ("twitter-api-key", "twitter", lambda: r(LOWNUM, 25)),
    ("twitter-access-token", "twitter", lambda: r(D, 18) + "-" + r(ALNUM, 30)),
    ("typeform", "typeform", lambda: "tfp_" + r(LOWNUM + "-_.=", 59)),
    ("vault-legacy", "vault", lambda: "s." + r(ALNUM, 24)),
    ("yandex-access", "yandex", lambda: "t1." + r(ALNUM + "_-", 40) + "." + r(ALNUM + "_-", 86)),
    ("zendesk", "zendesk", lambda: r(LOWNUM, 40)),
    ("sidekiq", "BUNDLE_GEMS__CONTRIBSYS__COM", lambda: r(HEX, 8) + ":" + r(HEX, 8)),
    ("circleci", "circleci", lambda: "CCIPAT_" + r(ALNUM, 22) + "_" + r(HEX, 40)),
    ("buildkite", "buildkite", lambda: "bkua_" + r(HEX, 40)),
    ("openrouter", "openrouter", lambda: "sk-or-v1-" + r(HEX, 64)),
    ("pinecone", "pinecone", lambda: "pcsk_" + r(ALNUM, 5) + "_" + r(ALNUM, 63)),
    ("langsmith", "langsmith", lambda: "lsv2_pt_" + r(HEX, 32) + "_" + r(HEX, 10)),
    ("tavily", "tavily", lambda: "tvly-" + r(ALNUM, 32)),
    ("razorpay", "razorpay", lambda: "rzp_live_" + r(ALNUM, 14)),
    ("posthog", "posthog", lambda: "phx_" + r(ALNUM, 43)),
    ("contentful-pat", "contentful", lambda: "CFPAT-" + r(URL, 43)),
    ("netlify-pat", "netlify", lambda: "nfp_" + r(ALNUM, 36)),
    ("render", "render", lambda: "rnd_" + r(ALNUM, 32)),
    ("vercel", "vercel", lambda: "vcp_" + r(ALNUM, 56)),
    ("gcs-hmac", "gcs", lambda: "GOOG1E" + r(AZ + D, 55)),
    ("sentry-legacy", "sentry", lambda: r(HEX, 64)),
]

# The sample syntaxes of a scanner's fixture generator (single-line ones).
SYNTAXES = [
    lambda i, s: f"{i}Token=\"«{s}»\"",
    lambda i, s: f"{i}Token = «{s}»",
    lambda i, s: f"    \"{i}_token\": \"«{s}»\"",
    lambda i, s: f"    \\\"{i}_token\\\": \\\"«{s}»\\\"",
    lambda i, s: f"<{i}Token>«{s}»</{i}Token>",
    lambda i, s: f"{i}_token: «{s}»",
    lambda i, s: f"{i}_token: '«{s}»'",
    lambda i, s: f"string {i}Token = \"«{s}»\";",
    lambda i, s: f"var {i}Token string = \"«{s}»\"",
    lambda i, s: f"{i}Token := `«{s}»`",
    lambda i, s: f"${i}Token .= \"«{s}»\"",
    lambda i, s: f"{i}Token,«{s}»,",
    lambda i, s: f"  \"{i}Token\" => \"«{s}»\"",
    lambda i, s: f"{i.upper()}_TOKEN ::= \"«{s}»\"",
    lambda i, s: f"{i.upper()}_TOKEN ?= \"«{s}»\"",
    lambda i, s: f"{i}_api_token = \"«{s}»\"",
    # Detector tests in another scanner: the provider named in prose next to the value.
    lambda i, s: f"{i} secret - '«{s}»'",
    lambda i, s: f"{i} credentials: «{s}»",
]


def main():
    out = []
    for n, (cid, ident, gen) in enumerate(CASES):
        for k in range(2):
            syntax = SYNTAXES[(n * 2 + k * 7) % len(SYNTAXES)]
            out.append(f"{cid}\t{syntax(ident, gen())}")
    # Shapes with no provider at all: headers, command lines, connection strings, configs.
    def pw():
        return r(az, 5) + r(D, 3) + r(AZ, 2) + "!" + r(az, 2)
    out += [
        f"curl-header\tcurl -H \"Authorization: Token «{r(ALNUM, 40)}»\" https://api.example.test",
        f"curl-header\tcurl --header 'X-Api-Key: «{r(ALNUM, 32)}»' https://api.example.test/v2",
        f"curl-user\tcurl -u admin:«{pw()}» https://api.example.test",
        f"curl-user\tcurl --user \"deploy:«{pw()}»\" https://ci.example.test/job",
        f"database-password\tDB_PASSWORD=«{pw()}»",
        f"database-password\tdatabase_password: \"«{pw()}»\"",
        f"nuget-config\t<add key=\"ClearTextPassword\" value=\"«{pw()}»\" />",
        f"gitlab-session\tCookie: _gitlab_session=«{r(LOWNUM, 32)}»",
        f"teams-webhook\thttps://acme.webhook.office.com/webhookb2/{uuid()}@{uuid()}/IncomingWebhook/«{r(LOWNUM, 32)}»/{uuid()}",
        f"jwt-base64\tauth = \"«ZXlKaGJHY2lPaUpJVXpJMU5pSXNJblI1Y0NJNklrcFhWQ0o5{r(ALNUM, 60)}»\"",
        f"authress\tAUTHRESS_KEY=«sc_{r(LOWNUM, 10)}.{r(LOWNUM, 5)}.acc_{r(LOWNUM, 20)}.{r(ALNUM + '+/', 60)}»",
        f"kubernetes-secret\t  password: «{r(ALNUM, 22)}==»",
        f"php-array\t    'api_secret' => '«{r(ALNUM, 36)}»',",
        f"xml-attr\t<entry name=\"apiToken\" value=\"«{r(ALNUM, 32)}»\" />",
        f"properties\tapp.datasource.password=«{pw()}»",
        f"docker-env\tENV API_TOKEN «{r(ALNUM, 36)}»",
        f"terraform\t  administrator_login_password = \"«{pw()}»\"",
        f"cli-flag\tmyctl login --api-key «{r(ALNUM, 32)}» --region eu",
        f"cli-flag\tmysql -uroot -p«{pw()}» app",
        f"ruby-hash\t  secret_access_key: '«{r(ALNUM + '/+', 40)}»',",
        f"python-kwarg\tclient = Client(token='«{r(ALNUM, 40)}»')",
        f"kotlin-typed\tval apiSecret: String = \"«{r(ALNUM, 32)}»\"",
        f"js-object\t  clientSecret: '«{r(URL, 40)}»',",
        f"swift\tlet authToken = \"«{r(ALNUM, 40)}»\"",
        f"ini-section\tsecret_key={r(HEX, 8)}«{r(HEX, 32)}»",
    ]
    for line in out:
        print(line)




def fresh():
    """A second held-out set, written after the first one had been used to write rules:
    config files, command lines, builder calls and client constructors that the rules were
    not written against. Run: python3 heldout.py fresh > heldout-fresh.txt"""
    rng.seed(777)
    def pw():
        return r(az, 4) + r(D, 3) + r(AZ, 3) + "#" + r(az, 3)
    out = [
        f"netrc\tmachine api.example.test login deploy password «{pw()}»",
        f"pgpass\tdb.internal:5432:app:app_user:«{pw()}»",
        f"jdbc\tjdbc:mysql://db.internal:3306/app?user=root&password=«{pw()}»",
        f"redis-cli\tredis-cli -h cache.internal -a «{r(ALNUM, 24)}» ping",
        f"sshpass\tsshpass -p '«{pw()}»' ssh deploy@host",
        f"docker-run\tdocker run -e API_KEY=«{r(ALNUM, 32)}» -p 8080:8080 app",
        f"compose-env\t      - STRIPE_SECRET=«sk_live_{r(ALNUM, 24)}»",
        f"powershell\t$env:OPENAI_API_KEY = \"«{r(ALNUM, 48)}»\"",
        f"heroku-config\theroku config:set SENDGRID_API_KEY=«SG.{r(URL, 22)}.{r(URL, 43)}»",
        f"aws-configure\taws configure set aws_secret_access_key «{r(ALNUM + '/+', 40)}»",
        f"gh-secret\tgh secret set DEPLOY_TOKEN --body \"«{r(ALNUM, 40)}»\"",
        f"rust-builder\t    .api_key(\"«{r(ALNUM, 40)}»\")",
        f"js-client\tconst client = new Client({{ apiKey: '«{r(ALNUM, 32)}»' }});",
        f"ruby-stripe\tStripe.api_key = '«sk_test_{r(ALNUM, 24)}»'",
        f"py-setdefault\tos.environ.setdefault(\"SERVICE_TOKEN\", \"«{r(ALNUM, 36)}»\")",
        f"py-headers\tresp = requests.get(url, headers={{\"X-Auth-Token\": \"«{r(ALNUM, 32)}»\"}})",
        f"py-auth-tuple\tresp = requests.get(url, auth=(\"admin\", \"«{pw()}»\"))",
        f"go-struct\t\tPassword: \"«{pw()}»\",",
        f"java-props\tprops.put(\"api.secret\", \"«{r(ALNUM, 32)}»\");",
        f"properties\tmail.smtp.password=«{pw()}»",
        f"ini\tpassword = «{pw()}»",
        f"pip-conf\tindex-url = https://__token__:«pypi-AgEIcHlwaS5vcmc{r(URL, 60)}»@upload.pypi.org/simple",
        f"npmrc\t//npm.pkg.github.com/:_authToken=«ghp_{r(ALNUM, 36)}»",
        f"terraform\t  api_token = \"«{r(ALNUM, 40)}»\"",
        f"gha-env\t      SLACK_WEBHOOK: «https://hooks.slack.com/services/T{r(AZ + D, 10)}/B{r(AZ + D, 10)}/{r(ALNUM, 24)}»",
        f"connection-string\t\"Data Source=db;Initial Catalog=app;User ID=sa;Pwd=«{pw()}»;\"",
        f"openssh-key\t-----BEGIN OPENSSH PRIVATE KEY-----«b3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQAAAAAAAAABAAAAMwAAAAtzc2gtZW»",
        f"twilio-ctor\tclient = Client('AC{r(HEX, 32)}', '«{r(HEX, 32)}»')",
        f"datadog-bare\tDATADOG = \"«{r(HEX, 32)}»\"",
        f"slack-bare\tslack_client = WebClient(\"«xoxb-{r(D, 12)}-{r(D, 12)}-{r(ALNUM, 24)}»\")",
        f"yaml-nested\t    secretAccessKey: «{r(ALNUM + '/+', 40)}»",
        f"php-define\tdefine('API_SECRET', '«{r(ALNUM, 40)}»');",
        f"csharp-conn\tvar cs = \"Host=db;Username=app;Password=«{pw()}»\";",
        f"kotlin-const\tconst val API_TOKEN = \"«{r(ALNUM, 40)}»\"",
        f"swift-header\trequest.setValue(\"Bearer «{r(ALNUM, 40)}»\", forHTTPHeaderField: \"Authorization\")",
        f"dart\tconst apiKey = '«{r(ALNUM, 39)}»';",
        f"elixir\tconfig :app, api_key: \"«{r(ALNUM, 32)}»\"",
        f"scala\tval secret = \"«{r(ALNUM, 32)}»\"",
        f"lua\tlocal token = \"«{r(ALNUM, 32)}»\"",
        f"hcl-vault\t  token = \"«hvs.{r(URL, 90)}»\"",
        f"query\tGET /api/v1/items?api_key=«{r(ALNUM, 32)}»&page=2",
        f"cookie-header\tCookie: connect.sid=«s%3A{r(URL, 32)}.{r(URL, 43)}»",
        f"mongo-uri\tMONGO_URL=mongodb://root:«{pw()}»@mongo:27017/admin",
        f"amqp-uri\tamqp://guest:«{pw()}»@rabbit:5672/",
        f"smtp-uri\tsmtps://mailer:«{pw()}»@smtp.example.test:465",
        f"google-sa\t  \"private_key\": \"-----BEGIN PRIVATE KEY-----\\n«MIIEvgIBADANBgkqhkiG9w0BAQEFAASCBKgwggSkAgEAAoIBAQC{r(ALNUM + '+/', 40)}»\\n",
        f"openai-bare\topenai.api_key = \"«sk-{r(ALNUM, 48)}»\"",
        f"anthropic-bare\tclient = anthropic.Anthropic(api_key=\"«sk-ant-api03-{r(URL, 93)}AA»\")",
        f"gitlab-bare\tgl = gitlab.Gitlab(url, private_token='«glpat-{r(URL, 20)}»')",
        f"jwt-bare\tconst session = \"«eyJhbGciOiJIUzI1NiJ9.eyJ{r(URL, 40)}.{r(URL, 43)}»\";",
    ]
    for line in out:
        print(line)


if __name__ == "__main__":
    import sys
    if sys.argv[1:] == ["fresh"]:
        fresh()
    else:
        main()
