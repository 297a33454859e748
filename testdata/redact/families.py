#!/usr/bin/env python3
"""Writes the in-sample corpus for issue 14's families: secrets and look-alikes.

Unlike `heldout_families.py`, this corpus was written alongside the rules and grows with
every rule: each rule for a family has secret lines here in several syntaxes, and each
precision check has look-alike lines that must come out byte-identical.

Provenance: every value is synthetic (a seeded generator fills the shape that the format's
documentation gives: prefix, length, alphabet); the shapes are named per family below. No
scanner's test fixture or example secret is copied.

    python3 families.py secrets    > families.txt
    python3 families.py lookalikes > families-lookalikes.txt
"""
import random
import string
import sys

rng = random.Random(20261414)
AZ = string.ascii_uppercase
az = string.ascii_lowercase
D = string.digits
HEX = "0123456789abcdef"
ALNUM = AZ + az + D
B64 = ALNUM + "+/"
URL = ALNUM + "-_"
CRYPT = "./" + ALNUM


def r(chars, n):
    return "".join(rng.choice(chars) for _ in range(n))


def mixed(chars, n):
    while True:
        v = r(chars, n)
        if any(c.isdigit() for c in v) and any(c.isalpha() for c in v):
            return v


def pw(n=14):
    while True:
        v = r(ALNUM + "!#%^*-_+.~", n)
        if any(c.isdigit() for c in v) and any(c.isupper() for c in v) and any(c.islower() for c in v):
            return v


def b64(nbytes):
    n = (nbytes * 4 + 2) // 3
    return mixed(B64, n) + "=" * (-n % 4)


def uuid():
    return "-".join([r(HEX, 8), r(HEX, 4), "4" + r(HEX, 3), rng.choice("89ab") + r(HEX, 3), r(HEX, 12)])


def host():
    return rng.choice(["db", "mongo", "pg", "sql01", "cache", "queue"]) + "." + rng.choice(
        ["internal", "corp.local", "prod.svc.cluster.local", "example.net"])


# Where a value sits: (template with {n} for a name and {v} for the marked value).
ASSIGN = [
    "{n}={v}",
    "export {n}=\"{v}\"",
    "  {n}: {v}",
    "  {n}: \"{v}\"",
    "{n} = \"{v}\"",
    "{n} = '{v}'",
    "  \"{n}\": \"{v}\",",
    "{n} := \"{v}\"",
    "const {n} = \"{v}\";",
    "    <{n}>{v}</{n}>",
    "{n}: '{v}'",
    "set {n}={v}",
    "ENV {n}={v}",
    "{n} => '{v}',",
    "$env:{n} = \"{v}\"",
    "{n}=\"{v}\" # rotated quarterly",
]


def place(name, value):
    return rng.choice(ASSIGN).format(n=name, v="«" + value + "»")


def secrets():
    out = []

    def add(family, line):
        assert line.count("«") == 1 and line.count("»") == 1, line
        out.append(f"{family}\t{line}")

    # Generic assignments (gitleaks `generic-api-key`, detect-secrets `KeywordDetector`,
    # Nosey Parker `np.generic.*`): credential-named keys in every syntax.
    names = ["password", "db_password", "DB_PASS", "admin_password", "api_key", "apiKey",
             "API_SECRET", "client_secret", "clientSecret", "auth_token", "access_token",
             "secret_key", "SECRET", "private_key", "passwd", "pwd", "credentials",
             "refresh_token", "webhook_secret", "signing_key", "encryption_key", "app_secret",
             "consumer_secret", "master_password", "root_password", "smtp_password",
             "ldap_bind_password", "redis_password", "service_key", "account_key",
             "auth_key", "db_key", "priv_key", "jwt_secret", "session_secret", "cookie_secret"]
    for name in names:
        for gen in (lambda: pw(rng.randint(10, 20)), lambda: mixed(ALNUM, rng.randint(24, 48)),
                    lambda: r(HEX, rng.choice([32, 40, 64]))):
            add("generic", place(name, gen()))
    # Loose names with quoted password-like values.
    for name in ["pass", "key", "secret"]:
        for _ in range(3):
            add("generic", f'{name} = "«{pw(rng.randint(10, 16))}»"')
    # Base64 values that begin with `/`, passwords holding `%s`-like text or a leading `*`.
    for _ in range(4):
        add("generic", f'encryption_key: «/{mixed(B64, 42)}=»')
        add("generic", f'password = "«{mixed(ALNUM, 5)}%s{pw(8)}»"')
        add("generic", f'$password = "«*{pw(11)}»";')
        add("generic", f'"password": "«${mixed(ALNUM, 4)}!{pw(8)}»"')

    # AWS (AWS docs: access key IDs are 20 characters, secret keys 40 base64 characters;
    # STS session tokens; Bedrock API keys `ABSK…`; MWS `amzn.mws.<uuid>`; AppSync `da2-`).
    sk = lambda: mixed(B64, 40)
    for name in ["aws_secret_access_key", "AWS_SECRET_ACCESS_KEY", "SecretAccessKey",
                 "secretAccessKey", "aws_secret_key", "AWS_SECRET", "s3_secret_key"]:
        for _ in range(3):
            add("aws", place(name, sk()))
    for _ in range(4):
        add("aws", f'new BasicAWSCredentials("AKIA{r(AZ + "234567", 16)}", "«{sk()}»");')
        add("aws", f'aws_session_token = «IQoJb3JpZ2luX2Vj{mixed(B64, 280)}»')
        add("aws", f'    "SessionToken": "«FwoGZXIvYXdzE{mixed(B64, 180)}»",')
        add("aws", f'AWS_BEARER_TOKEN_BEDROCK=«ABSK{mixed(B64, 132)}»')
        add("aws", f'mws_auth_token: «amzn.mws.{uuid()}»')
        add("aws", f'  apiKey: "«da2-{r(az + D, 26)}»",')
        add("aws", f'AWS_ACCESS_KEY_ID=«AKIA{r(AZ + "234567", 16)}»')
        add("aws", f'aws configure set aws_secret_access_key «{sk()}»')
        add("aws", f'deploy-bot,,AKIA{r(AZ + "234567", 16)},«{sk()}»,https://console.aws.amazon.com/')

    # Password hashes (crypt(3) formats, Argon2 PHC strings, Kerberos, Django, PostgreSQL,
    # MySQL, LDAP; shapes from the formats' docs and Nosey Parker's `np.pwhash.*`).
    hashes = [
        lambda: f"$1${r(CRYPT, 8)}${r(CRYPT, 22)}",
        lambda: f"$apr1${r(CRYPT, 8)}${r(CRYPT, 22)}",
        lambda: f"$2b$12${r(CRYPT, 53)}",
        lambda: f"$2y$10${r(CRYPT, 53)}",
        lambda: f"$2a$08${r(CRYPT, 53)}",
        lambda: f"$5$rounds=80000${r(CRYPT, 16)}${r(CRYPT, 43)}",
        lambda: f"$6${r(CRYPT, 16)}${r(CRYPT, 86)}",
        lambda: f"$8${r(CRYPT, 14)}${r(CRYPT, 43)}",
        lambda: f"$9${r(CRYPT, 14)}${r(CRYPT, 43)}",
        lambda: f"$y$j9T${r(CRYPT, 24)}${r(CRYPT, 43)}",
        lambda: f"$argon2id$v=19$m=19456,t=2,p=1${r(B64, 22)}${r(B64, 43)}",
        lambda: f"$krb5asrep$23$jdoe@CORP.LOCAL:{r(HEX, 32)}${r(HEX, 180)}",
        lambda: f"pbkdf2_sha256$870000${r(ALNUM, 22)}${b64(32)}",
        lambda: f"SCRAM-SHA-256$4096:{b64(16)}${b64(32)}:{b64(32)}",
        lambda: f"{{SSHA}}{b64(24)}",
    ]
    wraps = ["root:«{h}»:19800:0:99999:7:::", "deploy:«{h}»", "  password_hash: \"«{h}»\"",
             "'password' => '«{h}»',", "hashed_password = '«{h}»'", "userPassword: «{h}»",
             "INSERT INTO users (name, pw) VALUES ('ops', '«{h}»');", "«{h}»"]
    for i, h in enumerate(hashes):
        for k in range(2):
            add("hash", wraps[(i + k * 3) % len(wraps)].format(h=h()))
    for _ in range(3):
        add("hash", f"ALTER ROLE app PASSWORD '«md5{r(HEX, 32)}»';")
        add("hash", f"CREATE USER 'web'@'%' IDENTIFIED WITH mysql_native_password AS '«*{r(HEX.upper(), 40)}»';")
        add("hash", f"svc{r(D, 2)}:{rng.randint(1000, 9999)}:«{r(HEX, 32)}:{r(HEX, 32)}»:::")

    # MongoDB (MongoDB's connection-string reference: `mongodb://` and `mongodb+srv://`,
    # percent-encoded or bare `@` in passwords, several hosts, options).
    for _ in range(12):
        user = rng.choice(["app", "admin", "svc_etl", "reader", "root"])
        secret = rng.choice([mixed(ALNUM, 16), pw(14), mixed(ALNUM, 8) + "%40" + mixed(ALNUM, 6),
                             mixed(ALNUM, 6) + "@" + mixed(ALNUM, 6)])
        hosts = rng.choice([f"cluster0.{r(az + D, 5)}.mongodb.net",
                            f"{host()}:27017", "m1:27017,m2:27017,m3:27017"])
        scheme = "mongodb+srv" if "mongodb.net" in hosts else "mongodb"
        tail = rng.choice(["/app?retryWrites=true&w=majority", "/?authSource=admin", "", "/orders"])
        uri = f"{scheme}://{user}:«{secret}»@{hosts}{tail}"
        add("mongodb", rng.choice(["MONGO_URL={u}", "  uri: \"{u}\"", "mongoose.connect('{u}');",
                                   "MongoClient(\"{u}\")", "spring.data.mongodb.uri={u}"]).format(u=uri))

    # Azure (Azure Storage, Cosmos DB, Service Bus, Event Hubs, IoT Hub, App Configuration
    # connection strings; SAS query strings; Entra client secrets).
    acct = lambda: r(az + D, 12)
    for _ in range(3):
        add("azure", f'DefaultEndpointsProtocol=https;AccountName={acct()};AccountKey=«{b64(64)}»;EndpointSuffix=core.windows.net')
        add("azure", f'AccountEndpoint=https://{acct()}.documents.azure.com:443/;AccountKey=«{b64(64)}»;')
        add("azure", f'Endpoint=sb://{acct()}.servicebus.windows.net/;SharedAccessKeyName=send;SharedAccessKey=«{b64(32)}»;EntityPath=orders')
        add("azure", f'HostName={acct()}.azure-devices.net;DeviceId=dev1;SharedAccessKey=«{b64(32)}»')
        add("azure", f'Endpoint=https://{acct()}.azconfig.io;Id={r(ALNUM, 4)}-l0-s0:{r(ALNUM, 20)};Secret=«{b64(32)}»')
        add("azure", f'https://{acct()}.blob.core.windows.net/c/f.zip?sv=2022-11-02&sr=b&sp=r&se=2027-01-01&sig=«{mixed(ALNUM, 43)}%3D»')
        add("azure", f'AZURE_STORAGE_KEY=«{b64(64)}»')
        add("azure", f'  storageAccountKey: «{b64(64)}»')
        add("azure", f'AZURE_CLIENT_SECRET=«{r(ALNUM, 3)}8Q~{mixed(URL + "~.", 34)}»')

    # ODBC, ADO.NET, JDBC, libpq keyword strings (connectionstrings-style docs of each driver).
    odbc = [
        "Server=tcp:{h},1433;Initial Catalog=app;User ID=sa;Password=«{p}»;Encrypt=True;",
        "Driver={{ODBC Driver 18 for SQL Server}};Server={h};Database=erp;Uid=report;Pwd=«{p}»;",
        "Data Source={h}:1521/XE;User Id=hr;Password=«{p}»;",
        "Host={h};Port=5432;Database=app;Username=app;Password=«{p}»",
        "jdbc:postgresql://{h}:5432/ledger?user=app&password=«{p}»&ssl=true",
        "jdbc:mysql://{h}:3306/shop?user=root&password=«{p}»",
        "jdbc:sqlserver://{h}:1433;databaseName=hr;user=sa;password=«{p}»;",
        "jdbc:oracle:thin:scott/«{p}»@//{h}:1521/ORCL",
        "host={h} port=5432 dbname=app user=app password=«{p}» sslmode=require",
        "DSN=Warehouse;UID=etl;PWD=«{p}»",
        "Provider=SQLOLEDB;Data Source={h};Initial Catalog=crm;User Id=crm;Password = «{p}»;",
        "jdbc:db2://{h}:50000/SAMPLE:user=db2inst1;password=«{p}»;",
    ]
    for t in odbc:
        for _ in range(2):
            secret = pw(rng.randint(10, 18)).replace("+", "!")
            add("odbc", t.format(h=host(), p=secret))

    # URLs with credentials (RFC 3986 userinfo; each driver's URL docs).
    schemes = ["postgres", "postgresql", "postgresql+psycopg2", "mysql", "mysql+pymysql", "redis",
               "rediss", "amqp", "amqps", "smtp", "ftp", "sftp", "https", "mssql", "sqlserver",
               "clickhouse", "nats", "ldap", "mariadb", "cockroachdb", "neo4j", "couchbase"]
    for scheme in schemes:
        user = "" if scheme.startswith("redis") and rng.random() < 0.5 else rng.choice(["app", "svc", "deploy", "default"])
        secret = rng.choice([mixed(ALNUM, 24), pw(14)])
        add("url", f"{scheme.upper().split('+')[0]}_URL={scheme}://{user}:«{secret}»@{host()}:{rng.randint(1000, 65000)}/{r(az, 6)}")

    # Credentials handed to constructors, compared with literals, or stated in prose
    # (Nosey Parker `np.generic.7`, `.8`, `.11`, `.15`).
    for _ in range(2):
        add("generic", f'var cred = new NetworkCredential("svc_mail", "«{pw(14)}»");')
        add("generic", f'session.auth = HTTPBasicAuth("admin", "«{pw(14)}»")')
        add("generic", f'requests.get(url, auth=("deploy", "«{pw(14)}»"))')
        add("generic", f'new DirectoryEntry("LDAP://dc01/DC=corp,DC=local", "corp\\\\svc", "«{pw(14)}»")')
        add("generic", f'if (password == "«{pw(12)}»") {{ grantAdmin(); }}')
        add("generic", f"# The default password is '«{pw(12)}»' until first login.")

    # Provider formats added for issue 14 (gitleaks rule list; trufflehog detectors).
    providers = [
        lambda: f"HUBSPOT_ACCESS_TOKEN=«pat-na1-{uuid()}»",
        lambda: f"hubspot_api_key: «{uuid()}»",
        lambda: f"SQUARESPACE_API_KEY=«{uuid()}»",
        lambda: f"SONAR_TOKEN=«squ_{r(HEX, 40)}»",
        lambda: f"sonar.login=«sqp_{r(HEX, 40)}»",
        lambda: f"AIRTABLE_TOKEN=«pat{r(ALNUM, 14)}.{r(HEX, 64)}»",
        lambda: f"beamer_api_key = \"«b_{mixed(URL + '=', 44)}»\"",
        lambda: f"MERAKI_API_KEY=«{r(HEX, 40)}»",
        lambda: f"DN_API_KEY=«dnkey-{r(AZ + D, 26)}-{r(AZ + D, 52)}»",
        lambda: f"etsy: «{mixed(az + D, 24)}»",
        lambda: f"looker_client_secret=«{mixed(ALNUM, 24)}»",
        lambda: f"SUMO_ACCESS_ID=«su{mixed(ALNUM, 12)}»",
        lambda: f"kubeadm join 10.0.0.1:6443 --token «{mixed(az + D, 6)}.{mixed(az + D, 16)}»",
        lambda: f"  fastly: «{mixed(URL, 32)}»",
        lambda: f'"twitch" => "«{mixed(az + D, 30)}»",',
        lambda: f"finnhub = «{mixed(az + D, 20)}»",
        lambda: f"kucoin: «{mixed(HEX, 24)}»",
        lambda: f"mattermost: «{mixed(az + D, 26)}»",
        lambda: f"travis = \"«{mixed(az + D, 22)}»\"",
        lambda: f"zendesk: «{mixed(az + D, 40)}»",
    ]
    for p in providers:
        for _ in range(2):
            add("provider", p())
    return out


def lookalikes():
    out = []

    def add(tag, line):
        assert "«" not in line
        out.append(f"{tag}\t{line}")

    # Documented example keys and filler, in each config syntax.
    examples = [
        "AKIAIOSFODNN7EXAMPLE", "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY", "AKIAI44QH8DHBEXAMPLE",
        "je7MtGbClwBF/2Zp9Utk/h3yCo8nvbEXAMPLEKEY", "ghp_" + "X" * 36, "ghp_" + "x" * 36,
        "sk-" + "x" * 48, "sk_live_" + "X" * 24, "sk_test_" + "0" * 24, "xoxb-" + "0" * 12 + "-" + "x" * 24,
        "AIza" + "X" * 35, "SG." + "x" * 22 + "." + "x" * 43, "ops_eyJ" + "x" * 250, "glpat-" + "x" * 20,
        "*" * 12, "X" * 32, "0" * 40, "." * 16, "#" * 20, "abcdefghijklmnopqrstuvwxyz", "ABCDEFGHIJKLMNOPQRSTUVWXYZ012345",
        "sk_test_4eC39HqLyjWDarjtT1zdp7dc", "ghp_16C7e42F292c6912E7710c838347Ae178B4a",
        "xoxb-17653672481-19874698323-pdFZKVeTuE8sk7oOcBrzbqgy", "key-3ax6xnjp29jd6fds4gc373sgvjxteol0",
        "your-api-key-here", "<YOUR_API_KEY>", "REPLACE_WITH_SECRET", "INSERT_TOKEN_HERE",
        "changeme", "placeholder-password", "example-secret-value", "dummy-example-token-0001",
    ]
    names = ["API_KEY", "password", "client_secret", "token", "aws_secret_access_key", "SECRET_KEY"]
    syntaxes = ["{n}={v}", "  {n}: \"{v}\"", "{n} = '{v}'", "  \"{n}\": \"{v}\",", "export {n}={v}",
                "<{n}>{v}</{n}>", "{n}: {v}"]
    for i, v in enumerate(examples):
        for k in range(2):
            add("example", syntaxes[(i + k) % len(syntaxes)].format(n=names[(i + k * 2) % len(names)], v=v))

    # Templates and references in each templating language and shell.
    templates = ["${DB_PASSWORD}", "$DB_PASSWORD", "$(DB_PASSWORD)", "%DB_PASSWORD%", "{{ db_password }}",
                 "{{ .Values.db.password }}", "${{ secrets.DB_PASSWORD }}", "<%= ENV['DB_PASSWORD'] %>",
                 "#{db_password}", "%(db_password)s", "%s", "{0}", "{password}", "@DB_PASSWORD@",
                 "@@DB_PASSWORD@@", "<db-password>", "$env:DB_PASSWORD", "${env:DB_PASSWORD}",
                 "{{{ password }}}", "$__DB_PASSWORD__"]
    for i, t in enumerate(templates):
        add("template", syntaxes[i % len(syntaxes)].format(n=names[i % len(names)], v=t))
        add("template", f"Server=db;Database=app;User Id=app;Password={t};")
        add("template", f"postgres://app:{t}@db:5432/app")

    # Connection strings without a password, or with a placeholder or a default.
    for line in [
        "mongodb://localhost:27017/app", "mongodb+srv://cluster0.abcde.mongodb.net/?retryWrites=true",
        "postgres://localhost:5432/app", "postgresql:///app?host=/var/run/postgresql",
        "redis://redis:6379/0", "rediss://cache.internal:6380", "amqp://guest:guest@localhost:5672/",
        "mysql://root:root@127.0.0.1:3306/test", "Server=(localdb)\\\\MSSQLLocalDB;Database=app;Trusted_Connection=True;",
        "Server=db;Database=app;Integrated Security=SSPI;", "Data Source=app.db;Cache=Shared",
        "Host=localhost;Database=app;Username=app;Password=;", "jdbc:h2:mem:testdb;DB_CLOSE_DELAY=-1",
        "jdbc:postgresql://localhost:5432/app", "jdbc:mysql://localhost:3306/app?useSSL=false",
        "jdbc:oracle:thin:@//localhost:1521/ORCL", "DefaultEndpointsProtocol=https;AccountName=devstoreaccount1;AccountKey=<key>;",
        "UseDevelopmentStorage=true", "Endpoint=sb://ns.servicebus.windows.net/;Authentication=Managed Identity",
        "https://acct.blob.core.windows.net/container?sv=2022-11-02&sig=<signature>",
        "DSN=Warehouse;Trusted_Connection=Yes", "host=localhost port=5432 dbname=app user=app",
        "Password=%s;Server=%s", "Pwd={0};Uid={1}", "password=$PGPASSWORD host=db",
        "https://user@github.com/org/repo.git", "ssh://git@github.com:22/org/repo.git",
        "ftp://anonymous@ftp.example.org/pub", "http://localhost:8080/api?token=", "git+https://example.com/pkg.git#v1.2.3",
    ]:
        add("connection", line)

    # High-entropy or structured data that is not a credential.
    for _ in range(6):
        add("data", f'sequence = "{r("ACGT", rng.randint(40, 200))}"')
        add("data", f'rna_key: {r("ACGU", 60)}')
        add("data", f'bits = "{r("01", 64)}"')
        add("data", f'commit_sha: {r(HEX, 40)}')
        add("data", f'sha256sum = "{r(HEX, 64)}"')
        add("data", f'uses: actions/setup-node@{r(HEX, 40)} # v4')
        add("data", f'"integrity": "sha512-{b64(64)}",')
        add("data", f'request_id = "{uuid()}"')
        add("data", f'image = "data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAA{mixed(B64, 80)}"')
        add("data", f'ssh-rsa AAAAB3NzaC1yc2EAAAADAQABAAABAQ{mixed(B64, 60)} user@host')
        add("data", f'fingerprint = "SHA256:{mixed(B64, 43)}"')
        add("data", f'wallet_address = "0x{r(HEX, 40)}"')
        add("data", f'  version_key: "v{rng.randint(1, 9)}.{rng.randint(0, 30)}.{rng.randint(0, 99)}-beta.{rng.randint(1, 9)}"')
        add("data", f'word_key = "{"".join(rng.choice(["river", "stone", "maple", "cloud", "ember", "north"]) for _ in range(5))}"')
        add("data", f'HEADER_KEY = "{"".join(rng.choice(["CONTENT", "LENGTH", "TYPE", "ACCEPT", "RANGE"]) for _ in range(5))}"')
        add("data", f'secret_path = "/var/lib/app/secrets/{r(az, 6)}/{r(az, 8)}.json"')
        add("data", f'key_file: ./config/keys/{r(az, 7)}.pem')
        add("data", f'cache_key = "deps-v{rng.randint(1, 9)}-{r(HEX, 12)}"')
        add("data", f'trace_token = "00-{r(HEX, 32)}-{r(HEX, 16)}-01"')

    # Code that names credentials, in many languages.
    for line in [
        "password = getpass.getpass(prompt='Password: ')",
        "if (password.length < 12) throw new Error('password too short');",
        "let key = cache_key(&request.path, request.user_id);",
        "token, err := auth.Token(ctx, scopes...)",
        "secret := os.Getenv(\"APP_SECRET\")",
        "String password = System.getenv(\"DB_PASSWORD\");",
        "var secret = configuration[\"Jwt:Secret\"];",
        "$password = $_POST['password'] ?? '';",
        "password = params.require(:user).permit(:password)",
        "val apiKey = BuildConfig.API_KEY",
        "let token = try keychain.read(account: \"api\")",
        "char *password = getenv(\"PGPASSWORD\");",
        "read -rsp 'Password: ' password",
        "SELECT id FROM users WHERE password_hash = crypt($1, password_hash);",
        "hash = bcrypt.hashpw(password.encode(), bcrypt.gensalt(rounds=12))",
        "if hash.startswith(\"$2b$\") or hash.startswith(\"$argon2id$\"):",
        "PASSWORD_HASHERS = ['django.contrib.auth.hashers.PBKDF2PasswordHasher']",
        "conn = psycopg2.connect(host=host, dbname=db, user=user, password=password)",
        "url = f\"mongodb+srv://{user}:{quote_plus(password)}@{host}/\"",
        "builder.Password = Environment.GetEnvironmentVariable(\"SQL_PASSWORD\");",
        "props.setProperty(\"password\", password);",
        "DriverManager.getConnection(url, user, password)",
        "new SqlConnection($\"Server={server};Database={db};User Id={user};Password={pwd};\")",
        "AccountKey = Environment.GetEnvironmentVariable(\"STORAGE_KEY\"),",
        "aws_secret_access_key = session.get_credentials().secret_key",
        "credentials = boto3.Session().get_credentials()",
        "sig = hmac.new(key, msg, hashlib.sha256).hexdigest()",
        "const sasUrl = `${blobUrl}?${sasToken}`;",
        "kubeadm token create --print-join-command",
        "sonar.login=${SONAR_TOKEN}",
        "hubspot_client = HubSpot(access_token=os.environ['HUBSPOT_TOKEN'])",
        "shadow = spwd.getspnam(user).sp_pwdp",
        "if entry.startswith('$6$'): algo = 'sha512crypt'",
        "echo \"$user:$(openssl passwd -6 \"$pw\")\" >> users.txt",
        "  - name: Rotate the storage key",
        "az storage account keys renew --key primary --account-name \"$ACCOUNT\"",
        "PGPASSWORD=\"$(vault read -field=password db/creds/app)\" psql -h db",
        "mongosh \"mongodb://localhost:27017\" --username admin --password",
        "export AWS_SESSION_TOKEN=$(jq -r .Credentials.SessionToken creds.json)",
        # Shapes from the real-code check (registry sources, headers) that once came out
        # altered, rewritten.
        'let key = r"SOFTWARE\\Vendor\\Toolchain\\Installed\\V17";',
        '/// let old_key = "marshmallow";',
        'b"HTTP/1.1 200 OK\\r\\nAccess-Control-Allow-Credentials: tr\\0ue\\r\\nX: y\\r\\n"',
        'ServerTrafficSecret1 => "SERVER_TRAFFIC_SECRET_1",',
        'let ks = KeySchedule::new_with_empty_secret(TLS13_AES_256_GCM_SHA384_INTERNAL);',
        '- Tests: fix token tests on `aarch64-unknown-linux-musl` <https://github.com/org/repo/pull/1>',
        '"checksum serde 1.0.1 (registry+https://github.com/rust-lang/crates.io-index)" = "3f2a9c1d7e5b4a6f8c0e2d4b6a8f0c1e3d5b7a9f1c2e3d4f5a6b7c8d9e0f1a2b"',
        '$ cargo run --bin server -- --certs test-ca/rsa-2048/end.chain --key test-ca/rsa-2048/end.key',
        '"http://u:p@127.0.0.1:8080/",',
        'FMRB_OnlyWritesInaccessibleOrArgMem = FMRL_InaccessibleMem |',
        '#define xmlSecCryptoAppGetDefaultPwdCallback    xmlSecOpenSSLAppGetDefaultPwdCallback',
        'SECPKCS12TargetTokenNoCAs,  /* CA certs go to the fixed token */',
        'check_private_key_bytes: x25519_check_private_key_bytes,',
        'PASSWORD_HASHERS = ["django.contrib.auth.hashers.Argon2PasswordHasher"]',
        '// token refresh fixed in https://github.com/acme/api/commit/3f2a9c1d7e5b4a6f8c0e2d4b6a8f0c1e3d5b7a9f',
        'trace_token = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"',
        'pub const STATUS_INVALID_TOKEN_EXAMPLE2: NTSTATUS = -1073741700i32;',
        'pub const GUID_PRIVILEGED_ACCESS_FEATURE: PCSTR = s!("73e843ece8cc4046b4ab07ffe4ab5bcd");',
        "        self.key = '_threading_local._localimpl.' + str(id(self))",
        'pub const TOKEN: &str = "$serde_json::private::RawValue";',
        '    make_key = _make_key         # build a key from the arguments',
        'if password == "" or token == "undefined":',
        'if (password !== confirmPassword) return "passwords differ";',
        'auth=("user", "password")',
        'new NetworkCredential(userName, password)',
        'The default password is set by the installer; change it on first login.',
        'if secret_type == "OAuthToken":',
    ]:
        add("code", line)
    return out


if __name__ == "__main__":
    which = sys.argv[1] if len(sys.argv) > 1 else "secrets"
    lines = secrets() if which == "secrets" else lookalikes()
    print("# Generated by families.py; synthetic values, formats from providers' docs.")
    for line in lines:
        print(line)
