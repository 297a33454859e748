#!/usr/bin/env python3
"""Writes secrets.txt: fake, format-valid credentials in the syntaxes code and config use.

Values come from a seeded generator (reproducible) and are fake: they authenticate nothing.
Each output line is `<format-id>\t<line>`; the secret inside the line is wrapped in
`«` and `»`, which the test strips before redacting and uses to check the value is gone.
Run: python3 testdata/redact/generate.py > testdata/redact/secrets.txt
"""
import random
import string

rng = random.Random(20260101)
AZ = string.ascii_uppercase
az = string.ascii_lowercase
D = string.digits
HEX = "0123456789abcdef"
ALNUM = AZ + az + D
B64 = ALNUM + "+/"
URL = ALNUM + "-_"
B32 = "abcdefghijklmnopqrstuvwxyz234567"


def r(chars, n):
    return "".join(rng.choice(chars) for _ in range(n))


def mixed(chars, n):
    # Ensure digits and both cases where the alphabet allows, like real generated tokens.
    while True:
        v = r(chars, n)
        if not any(c.isdigit() for c in chars) or any(c.isdigit() for c in v):
            if not (set(chars) & set(az)) or any(c in az for c in v):
                return v


# (format id, env-style name, value generator)
FORMATS = [
    ("aws-access-key", "AWS_ACCESS_KEY_ID", lambda: "AKIA" + r(AZ + "234567", 16)),
    ("aws-access-key-sts", "AWS_ACCESS_KEY_ID", lambda: "ASIA" + r(AZ + "234567", 16)),
    ("aws-secret-key", "AWS_SECRET_ACCESS_KEY", lambda: mixed(B64, 40)),
    ("gcp-api-key", "GOOGLE_API_KEY", lambda: "AIza" + mixed(URL, 35)),
    ("gcp-oauth-client-secret", "GOOGLE_CLIENT_SECRET", lambda: "GOCSPX-" + mixed(URL, 28)),
    ("gcp-oauth-token", "GOOGLE_ACCESS_TOKEN", lambda: "ya29." + mixed(URL, 60)),
    ("azure-storage-key", "AZURE_STORAGE_CONNECTION_STRING",
     lambda: "DefaultEndpointsProtocol=https;AccountName=fakeacct;AccountKey=«" + mixed(B64, 86) + "==»;EndpointSuffix=core.windows.net"),
    ("azure-ad-client-secret", "AZURE_CLIENT_SECRET", lambda: r(ALNUM, 3) + "8Q~" + mixed(ALNUM + "_~.-", 34)),
    ("alibaba-access-key", "ALIBABA_ACCESS_KEY_ID", lambda: "LTAI" + mixed(ALNUM, 20)),
    ("tencent-secret-id", "TENCENT_SECRET_ID", lambda: "AKID" + mixed(ALNUM, 32)),
    ("digitalocean-token", "DIGITALOCEAN_TOKEN", lambda: "dop_v1_" + r(HEX, 64)),
    ("heroku-api-key", "HEROKU_API_KEY", lambda: "HRKU-" + mixed(URL, 60)),
    ("heroku-api-key-uuid", "HEROKU_API_KEY",
     lambda: "-".join([r(HEX, 8), r(HEX, 4), r(HEX, 4), r(HEX, 4), r(HEX, 12)])),
    ("flyio-token", "FLY_API_TOKEN", lambda: "fo1_" + mixed(URL, 43)),
    ("github-pat", "GITHUB_TOKEN", lambda: "ghp_" + mixed(ALNUM, 36)),
    ("github-oauth", "GH_OAUTH_TOKEN", lambda: "gho_" + mixed(ALNUM, 36)),
    ("github-app", "GH_APP_TOKEN", lambda: "ghs_" + mixed(ALNUM, 36)),
    ("github-fine-grained", "GITHUB_PAT", lambda: "github_pat_" + mixed(ALNUM, 22) + "_" + mixed(ALNUM, 59)),
    ("gitlab-pat", "GITLAB_TOKEN", lambda: "glpat-" + mixed(URL, 20)),
    ("gitlab-pipeline-trigger", "GITLAB_TRIGGER_TOKEN", lambda: "glptt-" + r(HEX, 40)),
    ("gitlab-runner", "RUNNER_TOKEN", lambda: "glrt-" + mixed(URL, 20)),
    ("atlassian-api-token", "JIRA_API_TOKEN", lambda: "ATATT3" + mixed(URL + "=", 186)),
    ("bitbucket-app-password", "BITBUCKET_APP_PASSWORD", lambda: "ATBB" + mixed(ALNUM, 32)),
    ("sourcegraph-token", "SRC_ACCESS_TOKEN", lambda: "sgp_" + r(HEX, 16) + "_" + r(HEX, 40)),
    ("pulumi-token", "PULUMI_ACCESS_TOKEN", lambda: "pul-" + r(HEX, 40)),
    ("terraform-cloud-token", "TFE_TOKEN", lambda: mixed(ALNUM, 14) + ".atlasv1." + mixed(URL, 67)),
    ("vault-token", "VAULT_TOKEN", lambda: "hvs." + mixed(URL, 90)),
    ("doppler-token", "DOPPLER_TOKEN", lambda: "dp.pt." + mixed(ALNUM, 43)),
    ("databricks-token", "DATABRICKS_TOKEN", lambda: "dapi" + r(HEX, 32)),
    ("slack-bot-token", "SLACK_BOT_TOKEN",
     lambda: "xoxb-" + r(D, 12) + "-" + r(D, 13) + "-" + mixed(ALNUM, 24)),
    ("slack-user-token", "SLACK_USER_TOKEN",
     lambda: "xoxp-" + r(D, 12) + "-" + r(D, 12) + "-" + r(D, 13) + "-" + r(HEX, 32)),
    ("slack-app-token", "SLACK_APP_TOKEN",
     lambda: "xapp-1-A" + r(AZ + D, 10) + "-" + r(D, 13) + "-" + r(HEX, 64)),
    ("slack-webhook", "SLACK_WEBHOOK_URL",
     lambda: "https://hooks.slack.com/services/T" + r(AZ + D, 10) + "/B" + r(AZ + D, 10) + "/" + mixed(ALNUM, 24)),
    ("discord-webhook", "DISCORD_WEBHOOK_URL",
     lambda: "https://discord.com/api/webhooks/" + r(D, 18) + "/" + mixed(URL, 68)),
    ("discord-bot-token", "DISCORD_BOT_TOKEN",
     lambda: "M" + mixed(ALNUM, 25) + "." + mixed(URL, 6) + "." + mixed(URL, 38)),
    ("telegram-bot-token", "TELEGRAM_BOT_TOKEN", lambda: r(D, 10) + ":AA" + mixed(URL, 33)),
    ("twilio-api-key", "TWILIO_API_KEY", lambda: "SK" + r(HEX, 32)),
    ("twilio-auth-token", "TWILIO_AUTH_TOKEN", lambda: r(HEX, 32)),
    ("sendgrid-api-key", "SENDGRID_API_KEY", lambda: "SG." + mixed(URL, 22) + "." + mixed(URL, 43)),
    ("mailgun-api-key", "MAILGUN_API_KEY", lambda: "key-" + r(HEX, 32)),
    ("mailchimp-api-key", "MAILCHIMP_API_KEY", lambda: r(HEX, 32) + "-us" + r(D, 2)),
    ("brevo-api-key", "BREVO_API_KEY", lambda: "xkeysib-" + r(HEX, 64) + "-" + mixed(ALNUM, 16)),
    ("mailjet-key", "MAILJET_API_SECRET", lambda: r(HEX, 32)),
    ("stripe-secret-key", "STRIPE_SECRET_KEY", lambda: "sk_live_" + mixed(ALNUM, 99)),
    ("stripe-test-key", "STRIPE_TEST_KEY", lambda: "sk_test_" + mixed(ALNUM, 24)),
    ("stripe-restricted-key", "STRIPE_RESTRICTED_KEY", lambda: "rk_live_" + mixed(ALNUM, 24)),
    ("stripe-webhook-secret", "STRIPE_WEBHOOK_SECRET", lambda: "whsec_" + mixed(ALNUM, 32)),
    ("square-access-token", "SQUARE_ACCESS_TOKEN", lambda: "EAAA" + mixed(URL, 60)),
    ("square-oauth-secret", "SQUARE_OAUTH_SECRET", lambda: "sq0csp-" + mixed(URL, 43)),
    ("braintree-access-token", "BRAINTREE_ACCESS_TOKEN",
     lambda: "access_token$production$" + r(az + D, 16) + "$" + r(HEX, 32)),
    ("paypal-client-secret", "PAYPAL_CLIENT_SECRET", lambda: "E" + mixed(URL, 79)),
    ("shopify-token", "SHOPIFY_ACCESS_TOKEN", lambda: "shpat_" + r(HEX, 32)),
    ("flutterwave-key", "FLW_SECRET_KEY", lambda: "FLWSECK_TEST-" + r("abcdefgh" + D, 32) + "-X"),
    ("shippo-token", "SHIPPO_API_TOKEN", lambda: "shippo_live_" + r(HEX, 40)),
    ("duffel-token", "DUFFEL_ACCESS_TOKEN", lambda: "duffel_test_" + mixed(URL, 43)),
    ("easypost-key", "EASYPOST_API_KEY", lambda: "EZAK" + mixed(ALNUM, 54)),
    ("anthropic-api-key", "ANTHROPIC_API_KEY", lambda: "sk-ant-api03-" + mixed(URL, 93) + "AA"),
    ("openai-api-key", "OPENAI_API_KEY", lambda: "sk-proj-" + mixed(URL, 58) + "T3BlbkFJ" + mixed(URL, 58)),
    ("openai-legacy-key", "OPENAI_API_KEY", lambda: "sk-" + mixed(ALNUM, 20) + "T3BlbkFJ" + mixed(ALNUM, 20)),
    ("huggingface-token", "HF_TOKEN", lambda: "hf_" + r(AZ + az, 34)),
    ("groq-api-key", "GROQ_API_KEY", lambda: "gsk_" + mixed(ALNUM, 52)),
    ("replicate-token", "REPLICATE_API_TOKEN", lambda: "r8_" + mixed(ALNUM, 37)),
    ("perplexity-api-key", "PERPLEXITY_API_KEY", lambda: "pplx-" + mixed(ALNUM, 48)),
    ("xai-api-key", "XAI_API_KEY", lambda: "xai-" + mixed(ALNUM, 80)),
    ("cohere-api-key", "COHERE_API_KEY", lambda: mixed(ALNUM, 40)),
    ("mistral-api-key", "MISTRAL_API_KEY", lambda: mixed(ALNUM, 32)),
    ("npm-token", "NPM_TOKEN", lambda: "npm_" + mixed(ALNUM, 36)),
    ("pypi-token", "PYPI_TOKEN", lambda: "pypi-AgEIcHlwaS5vcmc" + mixed(URL, 70)),
    ("rubygems-token", "GEM_HOST_API_KEY", lambda: "rubygems_" + r(HEX, 48)),
    ("nuget-api-key", "NUGET_API_KEY", lambda: "oy2" + r(az + D, 43)),
    ("dockerhub-token", "DOCKERHUB_TOKEN", lambda: "dckr_pat_" + mixed(URL, 27)),
    ("clojars-token", "CLOJARS_TOKEN", lambda: "CLOJARS_" + r(az + D, 60)),
    ("artifactory-key", "ARTIFACTORY_API_KEY", lambda: "AKCp" + mixed(ALNUM, 69)),
    ("datadog-api-key", "DATADOG_API_KEY", lambda: r(HEX, 32)),
    ("datadog-app-key", "DD_APP_KEY", lambda: r(HEX, 40)),
    ("sentry-auth-token", "SENTRY_AUTH_TOKEN", lambda: "sntryu_" + r(HEX, 64)),
    ("sentry-dsn", "SENTRY_DSN",
     lambda: "https://«" + r(HEX, 32) + "»@o" + r(D, 6) + ".ingest.sentry.io/" + r(D, 7)),
    ("newrelic-user-key", "NEW_RELIC_API_KEY", lambda: "NRAK-" + r(AZ + D, 27)),
    ("newrelic-license-key", "NEW_RELIC_LICENSE_KEY", lambda: r(HEX, 36) + "NRAL"),
    ("grafana-cloud-token", "GRAFANA_CLOUD_TOKEN", lambda: "glc_" + mixed(ALNUM, 60)),
    ("grafana-service-account", "GRAFANA_SA_TOKEN", lambda: "glsa_" + mixed(ALNUM, 32) + "_" + r(HEX, 8)),
    ("linear-api-key", "LINEAR_API_KEY", lambda: "lin_api_" + mixed(ALNUM, 40)),
    ("notion-token", "NOTION_TOKEN", lambda: "ntn_" + r(D, 11) + mixed(ALNUM, 35)),
    ("postman-api-key", "POSTMAN_API_KEY", lambda: "PMAK-" + r(HEX, 24) + "-" + r(HEX, 34)),
    ("dropbox-token", "DROPBOX_ACCESS_TOKEN", lambda: "sl." + mixed(URL, 138)),
    ("mapbox-secret-token", "MAPBOX_SECRET_TOKEN",
     lambda: "sk.eyJ1Ijoi" + mixed(URL, 60) + "." + mixed(URL, 22)),
    ("facebook-token", "FB_ACCESS_TOKEN", lambda: "EAA" + mixed(ALNUM, 120)),
    ("twitter-bearer-token", "TWITTER_BEARER_TOKEN", lambda: "A" * 22 + mixed(ALNUM, 80)),
    ("okta-token", "OKTA_API_TOKEN", lambda: "00" + mixed(URL, 40)),
    ("algolia-admin-key", "ALGOLIA_ADMIN_KEY", lambda: r(HEX, 32)),
    ("cloudflare-api-token", "CLOUDFLARE_API_TOKEN", lambda: mixed(URL, 40)),
    ("snyk-token", "SNYK_TOKEN",
     lambda: "-".join([r(HEX, 8), r(HEX, 4), r(HEX, 4), r(HEX, 4), r(HEX, 12)])),
    ("planetscale-token", "PLANETSCALE_TOKEN", lambda: "pscale_tkn_" + mixed(URL, 43)),
    ("supabase-token", "SUPABASE_ACCESS_TOKEN", lambda: "sbp_" + r(HEX, 40)),
    ("age-secret-key", "SOPS_AGE_KEY", lambda: "AGE-SECRET-KEY-1" + r("QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L", 58)),
    ("azure-devops-pat", "AZURE_DEVOPS_PAT", lambda: r(B32, 52)),
    ("jwt", "ID_TOKEN",
     lambda: "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJ" + mixed(URL, 60) + "." + mixed(URL, 43)),
    # Formats added from public scanner rule sets.
    ("adobe-client-secret", "ADOBE_CLIENT_SECRET", lambda: "p8e-" + mixed(ALNUM, 32)),
    ("clickhouse-api-secret", "CLICKHOUSE_API_SECRET", lambda: "4b1d" + mixed(ALNUM, 38)),
    ("dynatrace-token", "DT_API_TOKEN", lambda: "dt0c01." + mixed(AZ + D, 24) + "." + mixed(AZ + D, 64)),
    ("mailgun-public-key", "MAILGUN_PUBLIC_KEY", lambda: "pubkey-" + r(HEX, 32)),
    ("mailgun-signing-key", "MAILGUN_WEBHOOK_SIGNING_KEY",
     lambda: r(HEX, 32) + "-" + r(HEX, 8) + "-" + r(HEX, 8)),
    ("maxmind-license-key", "MAXMIND_LICENSE_KEY", lambda: mixed(ALNUM, 6) + "_" + mixed(ALNUM, 29) + "_mmk"),
    ("settlemint-token", "SETTLEMINT_ACCESS_TOKEN", lambda: "sm_pat_" + mixed(ALNUM, 16)),
    ("typeform-token", "TYPEFORM_TOKEN", lambda: "tfp_" + mixed(URL, 59)),
    ("yandex-iam-token", "YANDEX_IAM_TOKEN", lambda: "t1." + mixed(URL, 40) + "." + mixed(URL, 86)),
    ("harness-token", "HARNESS_API_KEY",
     lambda: "pat." + mixed(URL, 22) + "." + mixed(ALNUM, 24) + "." + mixed(ALNUM, 20)),
    ("circleci-token", "CIRCLECI_TOKEN", lambda: "CCIPAT_" + mixed(ALNUM, 22) + "_" + r(HEX, 40)),
    ("buildkite-token", "BUILDKITE_API_TOKEN", lambda: "bkua_" + r(HEX, 40)),
    ("openrouter-api-key", "OPENROUTER_API_KEY", lambda: "sk-or-v1-" + r(HEX, 64)),
    ("pinecone-api-key", "PINECONE_API_KEY", lambda: "pcsk_" + mixed(ALNUM, 6) + "_" + mixed(ALNUM, 63)),
    ("langsmith-api-key", "LANGSMITH_API_KEY", lambda: "lsv2_pt_" + r(HEX, 32) + "_" + r(HEX, 10)),
    ("tavily-api-key", "TAVILY_API_KEY", lambda: "tvly-" + mixed(ALNUM, 32)),
    ("razorpay-key", "RAZORPAY_KEY_SECRET", lambda: "rzp_live_" + mixed(ALNUM, 14)),
    ("posthog-personal-key", "POSTHOG_PERSONAL_API_KEY", lambda: "phx_" + mixed(ALNUM, 43)),
    ("contentful-token", "CONTENTFUL_MANAGEMENT_TOKEN", lambda: "CFPAT-" + mixed(URL, 43)),
    ("netlify-token", "NETLIFY_AUTH_TOKEN", lambda: "nfp_" + mixed(ALNUM, 36)),
    ("render-api-key", "RENDER_API_KEY", lambda: "rnd_" + mixed(ALNUM, 32)),
    ("vercel-token", "VERCEL_TOKEN", lambda: "vcp_" + mixed(ALNUM, 56)),
    ("gcs-hmac-key", "GCS_HMAC_ACCESS_ID", lambda: "GOOG1E" + r(AZ + D, 55)),
    ("figma-token", "FIGMA_TOKEN", lambda: "figd_" + mixed(URL, 40)),
    ("supabase-secret-key", "SUPABASE_SECRET_KEY", lambda: "sb_secret_" + mixed(URL, 31)),
    ("gcp-refresh-token", "GOOGLE_REFRESH_TOKEN", lambda: "1//0" + mixed(URL, 100)),
    ("plaid-access-token", "PLAID_ACCESS_TOKEN",
     lambda: "access-sandbox-" + "-".join([r(HEX, 8), r(HEX, 4), r(HEX, 4), r(HEX, 4), r(HEX, 12)])),
    ("flyio-macaroon", "FLY_API_TOKEN", lambda: "fm2_" + mixed(B64, 140)),
    ("flutterwave-encryption-key", "FLW_ENCRYPTION_KEY", lambda: "FLWSECK_TEST-" + r("abcdef" + D, 12)),
    ("artifactory-reference-token", "ARTIFACTORY_TOKEN", lambda: "cmVmd" + mixed(ALNUM, 59)),
    ("jwt-base64", "ENCODED_ID_TOKEN", lambda: "ZXlKaGJHY2lPaUpJVXpJMU5pSjk" + mixed(ALNUM, 60)),
    ("teams-webhook", "TEAMS_WEBHOOK_URL",
     lambda: "https://acme.webhook.office.com/webhookb2/«" + r(HEX, 8) + "-" + r(HEX, 4) + "-" + r(HEX, 4)
     + "-" + r(HEX, 4) + "-" + r(HEX, 12) + "@" + r(HEX, 8) + "/IncomingWebhook/" + r(HEX, 32) + "»"),
    ("zapier-webhook", "ZAPIER_HOOK_URL",
     lambda: "https://hooks.zapier.com/hooks/catch/«" + r(D, 7) + "/" + r(az + D, 6) + "»/"),
    ("vault-legacy-token", "VAULT_TOKEN", lambda: "s." + mixed(ALNUM, 24)),
    ("gocardless-token", "GOCARDLESS_ACCESS_TOKEN", lambda: "live_" + mixed(URL, 40)),
    ("twitter-access-token", "TWITTER_ACCESS_TOKEN", lambda: r(D, 19) + "-" + mixed(ALNUM, 30)),
    ("dropbox-long-lived-token", "DROPBOX_TOKEN", lambda: mixed(ALNUM, 11) + "AAAAAAAAAA" + mixed(URL, 43)),
    ("password-literal", "DB_PASSWORD", lambda: r(az, 6) + r(D, 2) + r(az + AZ, 4) + "!"),
    ("generic-api-key", "PAYMENTS_API_KEY", lambda: mixed(ALNUM, 32)),
    ("generic-client-secret", "OAUTH_CLIENT_SECRET", lambda: mixed(URL, 40)),
    ("generic-signing-key", "JWT_SIGNING_KEY", lambda: mixed(B64, 44)),
]


def camel(env):
    parts = env.lower().split("_")
    return parts[0] + "".join(p.title() for p in parts[1:])


SYNTAXES = [
    lambda n, v: f"+export {n}=«{v}»",
    lambda n, v: f"+{n}: \"«{v}»\"",
    lambda n, v: f"+    \"{n.lower()}\": \"«{v}»\",",
    lambda n, v: f"+const {camel(n)} = '«{v}»';",
    lambda n, v: f"+{n.lower()} = \"«{v}»\"",
    lambda n, v: f"+\t{camel(n)[0].upper() + camel(n)[1:]}: \"«{v}»\",",
    lambda n, v: f"+private static final String {n} = \"«{v}»\";",
    lambda n, v: f"+  {n.lower()}: «{v}»",
    lambda n, v: f"+{n}=«{v}»",
    lambda n, v: f"+let {n.lower()} = \"«{v}»\".to_string();",
    # Shapes of scanner fixtures: make, PHP append, Go typed var, escaped JSON, CSV, XML.
    lambda n, v: f"+{n} ?= \"«{v}»\"",
    lambda n, v: f"+${camel(n)} .= \"«{v}»\";",
    lambda n, v: f"+var {camel(n)} string = \"«{v}»\"",
    lambda n, v: f"+  \\\"{n.lower()}\\\": \\\"«{v}»\\\",",
    lambda n, v: f"+{camel(n)},«{v}»,",
    lambda n, v: f"+  <entry name=\"{camel(n)}\" value=\"«{v}»\" />",
]


def main():
    out = []
    for i, (fid, name, gen) in enumerate(FORMATS):
        # Four syntaxes per format, rotating so every syntax meets every family.
        for k in range(4):
            syntax = SYNTAXES[(i + k * 3) % len(SYNTAXES)]
            value = gen()
            line = syntax(name, value)
            if "«" in value:
                line = line.replace("«" + value + "»", value)
            out.append(f"{fid}\t{line}")
        # The bare value handed to a client: only the format (and the provider's name) tell.
        # Formats recognised by their name alone (no prefix, no provider) have no bare form.
        if fid.startswith(("generic-", "password-")) or fid == "aws-secret-key":
            continue
        value = gen()
        provider = name.split("_")[0].lower()
        if "«" in value:
            out.append(f"{fid}\t+    client = {provider}.Client(\"{value}\")")
        else:
            out.append(f"{fid}\t+    client = {provider}.Client(\"«{value}»\")")
    # Secrets outside an assignment: headers, URLs, command lines, calls, cookies.
    for _ in range(4):
        tok = "eyJhbGciOiJSUzI1NiJ9.eyJ" + mixed(URL, 50) + "." + mixed(URL, 40)
        out.append(f"bearer-jwt\t+Authorization: Bearer «{tok}»")
        out.append(f"bearer-opaque\t+curl -H \"Authorization: Bearer «{mixed(URL, 40)}»\" https://api.example.test/v1")
        out.append(f"bearer-opaque\t+    req.Header.Set(\"Authorization\", \"Bearer «{mixed(ALNUM, 32)}»\")")
        cred = "deploy:" + mixed(ALNUM, 14)
        import base64
        b = base64.b64encode(cred.encode()).decode()
        out.append(f"basic-auth\t+Authorization: Basic «{b}»")
        out.append(f"basic-auth\t+    headers = {{\"Authorization\": \"Basic «{b}»\"}}")
        out.append(f"url-credentials\t+DATABASE_URL=postgres://app:«{mixed(ALNUM, 16)}»@db.internal:5432/app")
        out.append(f"url-credentials\t+  url: \"mongodb+srv://admin:«{mixed(ALNUM, 18)}»@cluster0.example.test/prod\"")
        out.append(f"url-credentials\t+git clone https://ci-bot:«{mixed(ALNUM, 20)}»@git.example.test/team/repo.git")
        out.append(f"url-credentials\t+REDIS_URL=redis://:«{mixed(ALNUM, 24)}»@cache.internal:6379/0")
        out.append(f"cookie\t+Cookie: theme=dark; sessionid=«{mixed(ALNUM, 32)}»")
        out.append(f"cookie\t+Set-Cookie: session_token=«{mixed(URL, 40)}»; Path=/; HttpOnly")
        out.append(f"password-flag\t+mysql -u root --password=«{r(az, 5) + r(D, 3) + r(AZ, 3)}» app")
        out.append(f"password-flag\t+psql --password «{r(az, 6) + r(D, 4)}» -h db")
        out.append(f"password-connection-string\t+\"Server=db;Database=app;User Id=sa;Password=«{r(az, 5) + r(D, 3) + r(AZ, 3)}»;\"")
        out.append(f"password-xml\t+<password>«{r(az, 7) + r(D, 3)}»</password>")
        out.append(f"password-literal\t+password = \"«hunter2hunter2»\"")
        out.append(f"password-literal\t+    $config['db_password'] = '«{r(az, 8) + r(D, 2)}»';")
        out.append(f"password-literal\t+  config.password = \"«{r(az, 6) + r(D, 3) + '#'}»\"")
        out.append(f"password-literal\t+    db_pass: «{r(az, 6) + r(D, 4)}»")
        out.append(f"api-key-header\t+    headers[\"X-Api-Key\"] = \"«{mixed(ALNUM, 32)}»\"")
        out.append(f"api-key-call\t+client = Client(api_key=\"«{mixed(ALNUM, 32)}»\")")
        out.append(f"api-key-call\t+    os.environ[\"SERVICE_API_KEY\"] = \"«{mixed(ALNUM, 28)}»\"")
        out.append(f"api-key-typed\t+const API_KEY: &str = \"«{mixed(ALNUM, 30)}»\";")
        out.append(f"api-key-typed\t+    apiKey: string = \"«{mixed(ALNUM, 30)}»\";")
        out.append(f"npmrc-auth\t+//registry.npmjs.org/:_authToken=«{mixed(ALNUM, 36)}»")
        out.append(f"private-key-inline\t+  \"private_key\": \"-----BEGIN PRIVATE KEY-----«\\nMIIEvQIBADANBgkqhkiG9w0BAQEFAASC{mixed(B64, 60)}\\n»-----END PRIVATE KEY-----\\n\",")
    # Other syntaxes, written by hand.
    out += [
        "toml-stripe\t+api_key = '«sk_live_4eC39HqLyjWDarjtT1zdp7dcFAKEk3y9»'",
        "docker-login\t+echo x | docker login -u ci -p «dckr_pat_2b3e36beeb386dfdaacb9b46004»",
        "github-token-header\t+  \"Authorization\": \"token «ghp_2iQnfEf3V1oCW35xwEeVxaZhRJqcaxN1tXxs»\",",
        "kubectl-literal\t+kubectl create secret generic db --from-literal=password=«S3cr3tPassw0rd»",
        "properties-password\t+spring.datasource.password=«S3cr3tPassw0rd»",
        "php-define\t+define('DB_PASSWORD', '«S3cr3tPassw0rd»');",
        "go-setenv\t+\tos.Setenv(\"API_TOKEN\", \"«a8f5f167f44f4964e6c998dee827110c»\")",
        "ruby-config\t+  config.api_key = \"«a8f5f167f44f4964e6c998dee827110c»\"",
        "pgpassword\t+export PGPASSWORD=«Wq8zR2vN5kLp»",
        "mysql-pwd\t+MYSQL_PWD=«Wq8zR2vN5kLp» mysql -u root",
        "swift-api-key\t+    let apiKey = \"«3f9a1c7e5b2d4f6a8c0e1b3d5f7a9c2e»\"",
        "csharp-api-key\t+    options.ApiKey = \"«3f9a1c7e5b2d4f6a8c0e1b3d5f7a9c2e»\";",
        "query-token\t+GET /v1/export?format=csv&access_token=«a8f5f167f44f4964e6c998dee827110c»",
        "yaml-unquoted-password\t+    password: «Tr0ub4dor-and-3»",
        "ini-secret\t+secret_key = «2f1c7e9a4b6d8f0a1c3e5b7d9f2a4c6e»",
        "dockerfile-env\t+ENV API_TOKEN «Zk3q9XvR2mT8wLp4Hn6bYc1s»",
        "mysql-flag\t+mysqldump -u backup -p«Wq8zR2vN5kLp» --all-databases",
        "curl-user\t+curl -u deploy:«Wq8zR2vN5kLp» https://ci.example.test/api",
        "sshpass\t+sshpass -p '«Wq8zR2vN5kLp»' ssh deploy@host",
        "redis-cli\t+redis-cli -h cache -a «Zk3q9XvR2mT8wLp4Hn6bYc1s» ping",
        "netrc\t+machine api.example.test login ci password «Zk3q9XvR2mT8wLp4Hn6bYc1s»",
        "nuget-config\t+    <add key=\"ClearTextPassword\" value=\"«Wq8zR2vN5kLp»\" />",
        "near-keyword-prose\t+# sendbird secret - '«9f2c4e6a8b0d1f3a5c7e9b2d4f6a8c0e1b3d5f7a»'",
        "near-keyword-prose\t+    twitch credentials: «q8w2e4r6t8y0u1i3o5p7a9s2d4f6g8»",
        "near-keyword-prose\t+// launchdarkly sdk key for staging: «sdk-3f9a1c7e-5b2d-4f6a-8c0e-1b3d5f7a9c2e»",
    ]
    seen = set()
    for line in out:
        if line not in seen:
            seen.add(line)
            print(line)


main()
