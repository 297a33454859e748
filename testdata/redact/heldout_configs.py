#!/usr/bin/env python3
"""Writes the fourth held-out set: secrets and look-alikes in the files where they live.

Written after the issue 14 rules were in place and before any change made for it, to measure
how those rules carry over to shapes they were not written against: package-manager and tool
config files (.npmrc, .pypirc, Maven settings.xml, Docker config.json, .netrc,
git-credentials), framework config (wp-config.php, Laravel .env, Spring, appsettings.json,
web.config, Rails), infrastructure (Terraform, Helm, Kubernetes Secret stringData,
docker-compose, GitHub Actions, Ansible), and code in more languages (Kotlin, Swift,
PowerShell, Rust, Scala, Elixir, Lua, R). Scored once at first look; see README.md.

Every value is synthetic: random characters in the documented shape of each format.

    python3 heldout_configs.py secrets    > heldout-configs.txt
    python3 heldout_configs.py lookalikes > heldout-configs-lookalikes.txt
"""
import base64
import random
import string
import sys

rng = random.Random(41414)
AZ = string.ascii_uppercase
az = string.ascii_lowercase
D = string.digits
HEX = "0123456789abcdef"
ALNUM = AZ + az + D
B64 = ALNUM + "+/"
URL = ALNUM + "-_"


def r(chars, n):
    return "".join(rng.choice(chars) for _ in range(n))


def mixed(chars, n):
    while True:
        v = r(chars, n)
        if any(c.isdigit() for c in v) and any(c.isalpha() for c in v):
            return v


def pw(n=14):
    while True:
        v = r(ALNUM + "!#%^*-_.~", n)
        if any(c.isdigit() for c in v) and any(c.isupper() for c in v) and any(c.islower() for c in v):
            return v


def secrets():
    out = []

    def add(tag, line):
        assert line.count("«") == 1 and line.count("»") == 1, line
        out.append(f"{tag}\t{line}")

    # Package managers and tools.
    add("npmrc", f"//registry.npmjs.org/:_authToken=«npm_{mixed(ALNUM, 36)}»")
    add("npmrc", f"//npm.pkg.github.com/:_authToken=«ghp_{mixed(ALNUM, 36)}»")
    add("npmrc", f"_auth=«{base64.b64encode(('ci:' + pw(14)).encode()).decode()}»")
    add("yarnrc", f'npmAuthToken: "«{mixed(ALNUM, 40)}»"')
    add("pypirc", f"password: «pypi-AgEIcHlwaS5vcmc{mixed(URL, 70)}»")
    add("pypirc", f"password = «{pw(16)}»")
    add("maven", f"      <password>«{pw(16)}»</password>")
    add("gradle", f"artifactoryPassword=«{mixed(ALNUM, 20)}»")
    add("gradle", f'    password = "«{pw(14)}»"')
    add("docker", f'    "auth": "«{base64.b64encode(("deploy:" + pw(16)).encode()).decode()}»"')
    add("netrc", f"machine api.internal login deploy password «{pw(14)}»")
    add("git-credentials", f"https://ci-bot:«{mixed(ALNUM, 40)}»@git.internal")
    add("composer", f'"github-oauth": {{"github.com": "«ghp_{mixed(ALNUM, 36)}»"}}')
    add("cargo", f'token = "«cio{mixed(ALNUM, 32)}»"')
    add("nuget", f'    <add key="ClearTextPassword" value="«{pw(16)}»" />')
    add("gem", f":rubygems_api_key: «rubygems_{r(HEX, 48)}»")

    # Frameworks.
    add("wordpress", f"define( 'DB_PASSWORD', '«{pw(16)}»' );")
    add("wordpress", f"define('AUTH_KEY', '«{r(ALNUM + '!@#%^&*()-_[]{}<>~+=,.;:/?|', 64)}»');")
    add("laravel", f"APP_KEY=base64:«{base64.b64encode(bytes(rng.randrange(256) for _ in range(32))).decode()}»")
    add("laravel", f"MAIL_PASSWORD=«{mixed(ALNUM, 16)}»")
    add("spring", f"    password: «{pw(14)}»")
    add("spring", f"spring.mail.password=«{mixed(ALNUM, 16)}»")
    add("dotnet", f'    "ClientSecret": "«{mixed(ALNUM + "~.-_", 40)}»",')
    add("dotnet", f'  <add key="ApiKey" value="«{mixed(ALNUM, 32)}»" />')
    add("rails", f"secret_key_base: «{r(HEX, 128)}»")
    add("django", f"EMAIL_HOST_PASSWORD = '«{r(az, 16)}»'")
    add("flask", f"app.secret_key = b'«{mixed(ALNUM, 32)}»'")
    add("node", f"  clientSecret: process.env.CLIENT_SECRET || '«{mixed(ALNUM, 32)}»',")

    # Infrastructure.
    add("terraform", f'  password = "«{pw(16)}»"')
    add("terraform", f'administrator_login_password = "«{pw(16)}»"')
    add("tfvars", f'datadog_api_key = "«{r(HEX, 32)}»"')
    add("helm", f"  rootPassword: «{pw(16)}»")
    add("k8s", f"  POSTGRES_PASSWORD: «{pw(16)}»")
    add("k8s", f"  password: «{base64.b64encode(pw(16).encode()).decode()}»")
    add("compose", f"      - POSTGRES_PASSWORD=«{pw(16)}»")
    add("compose", f"      MINIO_ROOT_PASSWORD: «{mixed(ALNUM, 24)}»")
    add("actions", f"          API_TOKEN: «{mixed(ALNUM, 40)}»")
    add("ansible", f"ansible_become_password: «{pw(14)}»")
    add("ansible", f"  mysql_root_password: \"«{pw(14)}»\"")
    add("vault", f"vault login «hvs.{mixed(URL, 90)}»")
    add("consul", f'acl {{ tokens {{ default = "«{r(HEX, 8)}-{r(HEX, 4)}-4{r(HEX, 3)}-a{r(HEX, 3)}-{r(HEX, 12)}»" }} }}')
    add("serverless", f"    STRIPE_KEY: «sk_live_{mixed(ALNUM, 24)}»")
    add("circleci", f"          SLACK_WEBHOOK: «https://hooks.slack.com/services/T{r(AZ + D, 8)}/B{r(AZ + D, 10)}/{mixed(ALNUM, 24)}»".replace("«https://hooks.slack.com/services/", "https://hooks.slack.com/services/«"))

    # Code in more languages.
    add("kotlin", f'    private val apiKey = "«{mixed(ALNUM, 32)}»"')
    add("swift", f'let clientSecret = "«{mixed(ALNUM, 40)}»"')
    add("powershell", f'$password = ConvertTo-SecureString "«{pw(14)}»" -AsPlainText -Force')
    add("powershell", f'$env:API_TOKEN = "«{mixed(ALNUM, 36)}»"')
    add("rust", f'    let token = "«{mixed(ALNUM, 40)}»";')
    add("scala", f'  val dbPassword = "«{pw(14)}»"')
    add("elixir", f'  password: "«{pw(14)}»",')
    add("lua", f'local api_key = "«{mixed(ALNUM, 32)}»"')
    add("r", f'Sys.setenv(OPENAI_API_KEY = "«sk-proj-{mixed(URL, 40)}»")')
    add("go", f'\tcfg.Password = "«{pw(14)}»"')
    add("java", f'        props.put("mail.smtp.password", "«{pw(14)}»");')
    add("csharp", f'            Password = "«{pw(14)}»",')
    add("ruby", f"  config.api_key = '«{mixed(ALNUM, 32)}»'")
    add("php", f"    'secret' => env('APP_SECRET', '«{mixed(ALNUM, 32)}»'),")
    add("python", f'requests.post(url, headers={{"X-Api-Key": "«{mixed(ALNUM, 32)}»"}})')
    add("js", f"axios.defaults.headers.common['Authorization'] = 'Bearer «{mixed(URL, 40)}»';")
    add("sql", f"CREATE USER app WITH PASSWORD '«{pw(14)}»';")
    add("sql", f"ALTER LOGIN sa WITH PASSWORD = '«{pw(16)}»';")
    add("shell", f"docker login -u deploy -p «{pw(16)}» registry.internal")
    add("shell", f"mysql -h db -u root -p'«{pw(14)}»' app")
    add("shell", f"psql \"postgresql://app:«{pw(14)}»@db:5432/app\"")
    add("shell", f"curl -u admin:«{pw(14)}» https://jenkins.internal/api/json")
    add("shell", f"htpasswd -b .htpasswd admin «{pw(14)}»")
    add("shell", f"openssl enc -aes-256-cbc -k «{pw(16)}» -in a -out b")
    add("shell", f"export GITLAB_TOKEN=«glpat-{mixed(URL, 20)}»")
    add("yaml", f"  api_secret: «{mixed(ALNUM, 40)}»")
    add("toml", f'client_secret = "«{mixed(ALNUM, 40)}»"')
    add("ini", f"secret_access_key = «{mixed(B64, 40)}»")
    add("properties", f"db.password=«{pw(14)}»")
    add("xml", f'<property name="password" value="«{pw(14)}»"/>')
    add("json", f'{{"type": "service_account", "private_key_id": "«{r(HEX, 40)}»"}}')
    add("json", f'  "apiKey": "«AIza{mixed(URL, 35)}»",')
    return out


def lookalikes():
    out = []

    def add(tag, line):
        out.append(f"{tag}\t{line}")

    add("npmrc", "//registry.npmjs.org/:_authToken=${NPM_TOKEN}")
    add("npmrc", "always-auth=true")
    add("pypirc", "username = __token__")
    add("pypirc", "repository = https://upload.pypi.org/legacy/")
    add("maven", "      <password>${env.MAVEN_PASSWORD}</password>")
    add("maven", "      <username>deployment</username>")
    add("docker", '    "credsStore": "desktop",')
    add("docker", '  "auths": { "registry.internal": {} },')
    add("netrc", "machine api.internal login deploy")
    add("composer", '"github-oauth": {}')
    add("wordpress", "define( 'DB_PASSWORD', getenv('DB_PASSWORD') );")
    add("wordpress", "define('AUTH_KEY', 'put your unique phrase here');")
    add("laravel", "APP_KEY=")
    add("laravel", "MAIL_PASSWORD=null")
    add("spring", "    password: ${DB_PASSWORD:changeme}")
    add("spring", "spring.datasource.password=")
    add("dotnet", '    "ClientSecret": "",')
    add("dotnet", '  <add key="ApiKey" value="$(ApiKey)" />')
    add("rails", "secret_key_base: <%= ENV['SECRET_KEY_BASE'] %>")
    add("django", "EMAIL_HOST_PASSWORD = os.environ.get('EMAIL_HOST_PASSWORD', '')")
    add("flask", "app.secret_key = os.urandom(32)")
    add("terraform", "  password = var.db_password")
    add("terraform", "  password = random_password.db.result")
    add("terraform", '  administrator_login_password = data.azurerm_key_vault_secret.sql.value')
    add("helm", "  rootPassword: {{ .Values.auth.rootPassword | quote }}")
    add("k8s", "          secretKeyRef: { name: pg, key: password }")
    add("k8s", "  password: \"\"")
    add("compose", "      - POSTGRES_PASSWORD_FILE=/run/secrets/pg_password")
    add("compose", "      MINIO_ROOT_PASSWORD: ${MINIO_ROOT_PASSWORD:?set it}")
    add("actions", "          API_TOKEN: ${{ secrets.API_TOKEN }}")
    add("actions", "        uses: actions/checkout@b4ffde65f46336ab88eb53be808477a3936bae11 # v4.1.1")
    add("ansible", "ansible_become_password: \"{{ vault_become_password }}\"")
    add("ansible", "  mysql_root_password: !vault |")
    add("ansible", "          $ANSIBLE_VAULT;1.1;AES256")
    add("vault", "vault kv get -field=password secret/db")
    add("kotlin", "    private val apiKey = BuildConfig.API_KEY")
    add("swift", 'let clientSecret = Bundle.main.object(forInfoDictionaryKey: "ClientSecret") as? String')
    add("powershell", '$password = Read-Host -AsSecureString "Password"')
    add("powershell", "$cred = Get-Credential -UserName admin -Message 'sign in'")
    add("rust", '    let token = std::env::var("API_TOKEN")?;')
    add("scala", '  val dbPassword = sys.env("DB_PASSWORD")')
    add("elixir", '  password: System.get_env("DB_PASSWORD"),')
    add("lua", 'local api_key = os.getenv("API_KEY")')
    add("r", 'Sys.getenv("OPENAI_API_KEY")')
    add("go", "\tcfg.Password = os.Getenv(\"DB_PASSWORD\")")
    add("java", '        props.put("mail.smtp.password", password);')
    add("csharp", "            Password = configuration[\"Smtp:Password\"],")
    add("ruby", "  config.api_key = Rails.application.credentials.stripe[:api_key]")
    add("php", "    'secret' => env('APP_SECRET'),")
    add("python", 'requests.post(url, headers={"X-Api-Key": api_key})')
    add("js", "axios.defaults.headers.common['Authorization'] = `Bearer ${token}`;")
    add("sql", "CREATE USER app WITH PASSWORD :'app_password';")
    add("sql", "SELECT * FROM users WHERE password_reset_token = $1;")
    add("shell", "docker login -u deploy --password-stdin registry.internal < token.txt")
    add("shell", "mysql -h db -u root -p app")
    add("shell", 'curl -u "$USER:$PASS" https://jenkins.internal/api/json')
    add("shell", "openssl rand -base64 32 > secret.key")
    add("shell", "ssh-keygen -t ed25519 -C deploy@ci -f ~/.ssh/id_ed25519 -N ''")
    add("yaml", "  api_secret_ref: projects/app/secrets/api/versions/latest")
    add("toml", 'client_secret_file = "client_secret.json"')
    add("ini", "secret_access_key_id_env = AWS_SECRET_ACCESS_KEY")
    add("properties", "db.password.encrypted=true")
    add("xml", '<property name="password" value="${jdbc.password}"/>')
    add("json", '{"type": "service_account", "project_id": "my-project-123456"}')
    add("json", '  "apiKey": "",')
    add("doc", "Set `API_KEY` to the key shown on the dashboard (it starts with `sk_live_`).")
    add("doc", "| `password` | string | The user's password; at least 12 characters. |")
    add("doc", "The token looks like `ghp_` followed by 36 letters and digits.")
    add("doc", "# Example: AWS_SECRET_ACCESS_KEY=wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY")
    add("lock", '    "node_modules/token-types": { "version": "5.0.1", "integrity": "sha512-Y2fmSnZjQdDb9W4w4r1tswlMHylzWIeOKpx0aZH9BgGtACHhrk3OkT52AzwcuqTRBZtvvnTjDI6HDgdTr0ES8A==" },')
    add("lock", 'secret-handshake@1.1.20:\n'.rstrip())
    add("lock", '  resolved "https://registry.yarnpkg.com/keygrip/-/keygrip-1.1.0.tgz#871b1681d5e159c62a445b0c74b615e0917e7226"')
    add("lock", 'name = "secrecy"\nversion = "0.8.0"'.split("\n")[0])
    add("lock", 'checksum = "9bd1c54ea06cfd2f6b63219704de0b9b4f72dcc2b8fdef820be6cd799780e91e"')
    add("data", f'  "nonce": "{r(HEX, 32)}",')
    add("data", f'csrf_token_length = {rng.randint(16, 64)}')
    add("data", f'  "passwordless": true,')
    add("data", 'tokenizer = AutoTokenizer.from_pretrained("bert-base-uncased")')
    add("data", f'max_tokens = {rng.randint(100, 4000)}')
    add("data", 'keyboard_layout = "qwertyuiopasdfghjklzxcvbnm"')
    add("data", f'secret_santa_seed = {rng.randint(10**9, 10**10)}')
    add("data", f'public_key_pem = "-----BEGIN PUBLIC KEY-----\\nMFkwEwYHKoZIzj0CAQYIKoZIzj0DAQcDQgAE{mixed(B64, 40)}"')
    add("data", f'cert_thumbprint = "{r(HEX.upper(), 40)}"')
    add("data", f'  "kid": "{r(HEX, 40)}",')
    add("data", f'  "x5t": "{mixed(URL, 27)}",')
    add("data", f'  "e": "AQAB",')
    add("data", f'  "n": "{mixed(URL, 342)}",')
    return out


if __name__ == "__main__":
    which = sys.argv[1] if len(sys.argv) > 1 else "secrets"
    lines = secrets() if which == "secrets" else lookalikes()
    print("# Generated by heldout_configs.py; synthetic values, formats from providers' docs.")
    for line in lines:
        print(line)
