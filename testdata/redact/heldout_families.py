#!/usr/bin/env python3
"""Writes the third held-out set: secrets in the families issue 14 names, and look-alikes.

Written before the rules that catch them (connection strings, password hashes, AWS and Azure
shapes, generic assignments under more names, provider formats missing from the catalog, and
the precision layer), and scored once at first look; see README.md for that figure.

Every value is synthetic: a seeded generator fills the documented shape of each format
(length, alphabet, prefix) with random characters, so nothing here authenticates anything.
The shapes come from the providers' own documentation of their key and connection-string
formats; no scanner's test fixture or example secret is copied.

    python3 heldout_families.py secrets    > heldout-families.txt
    python3 heldout_families.py lookalikes > heldout-families-lookalikes.txt
"""
import random
import string
import sys

rng = random.Random(14014)
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
    """A human-chosen-looking password: letters, digits and a few symbols."""
    while True:
        v = r(ALNUM + "!#%^*-_+.~", n)
        if any(c.isdigit() for c in v) and any(c.isupper() for c in v):
            return v


def b64key(nbytes):
    n = (nbytes * 4 + 2) // 3
    pad = "=" * (-n % 4)
    return mixed(B64, n) + pad


def uuid():
    return "-".join([r(HEX, 8), r(HEX, 4), "4" + r(HEX, 3), rng.choice("89ab") + r(HEX, 3), r(HEX, 12)])


def secrets():
    out = []

    def add(family, line):
        assert "«" in line and "»" in line, line
        out.append(f"{family}\t{line}")

    # Generic credential assignments under names and in syntaxes beyond `password = "…"`.
    add("generic", f'auth_token: «{mixed(ALNUM, 32)}»')
    add("generic", f'  "access_key": "«{mixed(ALNUM, 24)}»",')
    add("generic", f"client_secret = '«{mixed(URL, 40)}»'")
    add("generic", f'db_password: «{pw()}»')
    add("generic", f'PGPASSWORD=«{pw(16)}»')
    add("generic", f'      MYSQL_ROOT_PASSWORD: «{pw(18)}»')
    add("generic", f'spring.datasource.password=«{pw(12)}»')
    add("generic", f'    <password>«{pw(15)}»</password>')
    add("generic", f'export API_SECRET="«{mixed(ALNUM, 36)}»"')
    add("generic", f'  --password=«{pw(13)}» \\')
    add("generic", f"  apiKey: '«{mixed(ALNUM, 32)}»',")
    add("generic", f'    private static final String API_KEY = "«{mixed(ALNUM, 32)}»";')
    add("generic", f"$config['encryption_key'] = '«{mixed(ALNUM, 32)}»';")
    add("generic", f'set :secret_key_base, "«{r(HEX, 128)}»"')
    add("generic", f"app.config['SECRET_KEY'] = '«{mixed(ALNUM + '!@#%^&*(-_=+)', 50)}»'")
    add("generic", f'signing_secret = «{r(HEX, 32)}»')
    add("generic", f'webhook_secret: «{mixed(ALNUM, 32)}»')
    add("generic", f'JWT_SECRET="«{mixed(ALNUM, 48)}»"')
    add("generic", f'encryption_key: «{b64key(32)}»')
    add("generic", f'master_key = «{r(HEX, 32)}»')
    add("generic", f'pw = "«{pw(12)}»"')
    add("generic", f'passwd: «{pw(10)}»')
    add("generic", f'admin_pass = "«{pw(14)}»"')
    add("generic", f'  "pass": "«{pw(12)}»",')
    add("generic", f'\ttoken := "«{mixed(ALNUM, 40)}»"')
    add("generic", f'        var password = "«{pw(16)}»";')
    add("generic", f"  auth: {{ user: 'mailer', pass: '«{pw(16)}»' }},")
    add("generic", f'ACCESS_TOKEN_SECRET=«{mixed(ALNUM, 45)}»')
    add("generic", f'consumer_secret = «{mixed(ALNUM, 50)}»')
    add("generic", f'app_secret: «{r(HEX, 32)}»')
    add("generic", f'X-API-KEY: «{mixed(ALNUM, 32)}»')
    add("generic", f'auth = "«{mixed(ALNUM, 40)}»"')
    add("generic", f'license_key = "«{mixed(AZ + D, 20)}»"')
    add("generic", f'session_secret: «{mixed(ALNUM, 64)}»')
    add("generic", f'COOKIE_SECRET=«{mixed(ALNUM, 32)}»')
    add("generic", f'HMAC_KEY=«{r(HEX, 64)}»')
    add("generic", f'private_key = "«{r(HEX, 64)}»"')
    add("generic", f'  password => "«{pw(14)}»",')
    add("generic", f'password="«{pw(9)}»"')
    add("generic", f'ENV DB_PASS «{pw(14)}»')
    add("generic", f'    "secret": "«{mixed(URL, 43)}»"')
    add("generic", f"  ('api_key', '«{mixed(ALNUM, 32)}»'),")
    add("generic", f'api_token <- "«{mixed(ALNUM, 40)}»"')
    add("generic", f'$password = "«{pw(12)}»";')
    add("generic", f'passphrase: «{pw(20)}»')
    add("generic", f'{{"username":"svc-deploy","password":"«{pw(16)}»"}}')
    add("generic", f'curl -H "X-Auth-Token: «{mixed(ALNUM, 40)}»" https://api.internal/v1/items')
    add("generic", f'client_key="«{mixed(ALNUM, 32)}»"')
    add("generic", f'rootPassword: «{pw(14)}»')
    add("generic", f'smtp_pass = "«{pw(16)}»"')

    # AWS.
    ak = lambda p="AKIA": p + r(AZ + "234567", 16)
    sk = lambda: mixed(B64, 40)
    add("aws", f'aws_secret_access_key = «{sk()}»')
    add("aws", f'  AWS_SECRET_ACCESS_KEY: «{sk()}»')
    add("aws", f'        "SecretAccessKey": "«{sk()}»",')
    add("aws", f'        "AccessKeyId": "«{ak("ASIA")}»",')
    add("aws", f'aws_session_token = «IQoJb3JpZ2luX2Vj{mixed(B64, 300)}»')
    add("aws", f'    "SessionToken": "«FwoGZXIvYXdzE{mixed(B64, 200)}»",')
    add("aws", f"  secretAccessKey: '«{sk()}»',")
    add("aws", f'new BasicAWSCredentials("{ak()}", "«{sk()}»");')
    add("aws", f'aws configure set aws_secret_access_key «{sk()}»')
    add("aws", f'AWS_SECRET_KEY=«{sk()}»')
    add("aws", f's3.secret.key=«{sk()}»')
    add("aws", f'  "aws_secret": "«{sk()}»"')
    add("aws", f'secret_key = «{sk()}»')
    add("aws", f'AWS_BEARER_TOKEN_BEDROCK=«ABSK{mixed(B64, 120)}=»')
    add("aws", f'mws_auth_token: «amzn.mws.{uuid()}»')
    add("aws", f'  apiKey: "«da2-{r(az + D, 26)}»",')
    add("aws", f'aws_access_key_id={ak()} aws_secret_access_key=«{sk()}»')
    add("aws", f'  SecretKey: «{sk()}»')
    add("aws", f'AWS_ACCESS_KEY_ID: «{ak()}»')
    add("aws", f'Credentials(access_key="{ak()}", secret_key="«{sk()}»")')

    # Password hashes and hex credentials.
    add("hash", f'root:«$6${r(CRYPT, 16)}${r(CRYPT, 86)}»:19700:0:99999:7:::')
    add("hash", f'admin:«$apr1${r(CRYPT, 8)}${r(CRYPT, 22)}»')
    add("hash", f'  password_hash: "«$2b$12${r(CRYPT, 53)}»"')
    add("hash", f"'password' => '«$2y$10${r(CRYPT, 53)}»',")
    add("hash", f'«$1${r(CRYPT, 8)}${r(CRYPT, 22)}»')
    add("hash", f'hashed_password = "«$5$rounds=5000${r(CRYPT, 16)}${r(CRYPT, 43)}»"')
    add("hash", f'enable secret 8 «$8${r(CRYPT, 14)}${r(CRYPT, 43)}»')
    add("hash", f'username admin secret 9 «$9${r(CRYPT, 14)}${r(CRYPT, 43)}»')
    add("hash", f'«$krb5asrep$23$svc@CORP.LOCAL:{r(HEX, 32)}${r(HEX, 200)}»')
    add("hash", f'DJANGO_ADMIN_HASH=«pbkdf2_sha256$600000${r(ALNUM, 22)}${b64key(32)}»')
    add("hash", f'  hash: «$argon2id$v=19$m=65536,t=3,p=4${r(B64, 22)}${r(B64, 43)}»')
    add("hash", f'svc_backup:1104:«{r(HEX, 32)}:{r(HEX, 32)}»:::')
    add("hash", f"CREATE USER 'app'@'%' IDENTIFIED WITH mysql_native_password AS '«*{r(HEX.upper(), 40)}»';")
    add("hash", f"ALTER ROLE app PASSWORD '«md5{r(HEX, 32)}»';")
    add("hash", f"  rolpassword: «SCRAM-SHA-256$4096:{b64key(16)}${b64key(32)}:{b64key(32)}»")
    add("hash", f'api_secret = "«{r(HEX, 32)}»"')
    add("hash", f'  client_secret: «{r(HEX, 40)}»')
    add("hash", f'TOKEN_HEX=«{r(HEX, 64)}»')
    add("hash", f'admin:«{{SHA}}{b64key(20)}»')

    # MongoDB.
    def mhost():
        return f"cluster{rng.randint(0, 9)}.{r(az + D, 5)}.mongodb.net"
    add("mongodb", f'MONGO_URL=mongodb+srv://appuser:«{mixed(ALNUM, 16)}»@{mhost()}/app?retryWrites=true&w=majority')
    add("mongodb", f"mongoose.connect('mongodb://admin:«{pw(12)}»@localhost:27017/shop?authSource=admin');")
    add("mongodb", f'    uri: "mongodb+srv://svc:«{mixed(ALNUM, 20)}»@{mhost()}/?retryWrites=true"')
    add("mongodb", f'mongodb://reader:«{mixed(ALNUM, 10)}%40{mixed(ALNUM, 6)}»@db1.internal:27017,db2.internal:27017,db3.internal:27017/?replicaSet=rs0')
    add("mongodb", f'const uri = "mongodb+srv://web:«Sun{rng.randint(10,99)}@{mixed(ALNUM, 8)}»@{mhost()}/prod";')
    add("mongodb", f'MONGODB_URI="mongodb://root:«{pw(14)}»@mongo:27017"')
    add("mongodb", f'spring.data.mongodb.uri=mongodb://app:«{mixed(ALNUM, 18)}»@10.0.3.12:27017/orders')
    add("mongodb", f'client = MongoClient("mongodb://etl:«{mixed(ALNUM, 12)}!{mixed(ALNUM, 4)}»@mongo-0.mongo:27017/?tls=true")')
    add("mongodb", f'  "connectionString": "mongodb://api:«{mixed(ALNUM, 24)}»@{mhost()}:27017/api?ssl=true"')
    add("mongodb", f'mongo "mongodb+srv://{mhost()}/admin" --username ops --password «{mixed(ALNUM, 16)}»')
    add("mongodb", f'mongodb://{r(az, 6)}:«{mixed(ALNUM, 14)}»@localhost')
    add("mongodb", f'DATABASE_URL=mongodb://user_{r(D, 3)}:«{mixed(ALNUM, 22)}»@ds0{r(D, 5)}.mlab.com:{r(D, 5)}/heroku_{r(az + D, 8)}')
    add("mongodb", f'  mongo_uri: mongodb+srv://backup:«{pw(12)}»@{mhost()}')

    # Azure.
    acct = lambda: r(az + D, 12)
    add("azure", f'DefaultEndpointsProtocol=https;AccountName={acct()};AccountKey=«{b64key(64)}»;EndpointSuffix=core.windows.net')
    add("azure", f'  "AzureWebJobsStorage": "DefaultEndpointsProtocol=https;AccountName={acct()};AccountKey=«{b64key(64)}»",')
    add("azure", f'Endpoint=sb://{acct()}.servicebus.windows.net/;SharedAccessKeyName=RootManageSharedAccessKey;SharedAccessKey=«{b64key(32)}»')
    add("azure", f'HostName={acct()}.azure-devices.net;SharedAccessKeyName=iothubowner;SharedAccessKey=«{b64key(32)}»')
    add("azure", f'https://{acct()}.blob.core.windows.net/backups?sv=2022-11-02&ss=b&srt=co&sp=rl&se=2026-12-31T00:00:00Z&st=2026-01-01T00:00:00Z&spr=https&sig=«{mixed(ALNUM, 43)}%3D»')
    add("azure", f'AccountEndpoint=https://{acct()}.documents.azure.com:443/;AccountKey=«{b64key(64)}»;')
    add("azure", f'AZURE_CLIENT_SECRET=«{r(ALNUM, 3)}8Q~{mixed(URL + "~.", 34)}»')
    add("azure", f'  x-functions-key: «{mixed(URL, 54)}==»')
    add("azure", f'Ocp-Apim-Subscription-Key: «{r(HEX, 32)}»')
    add("azure", f'AZURE_OPENAI_API_KEY=«{r(HEX, 32)}»')
    add("azure", f'Endpoint=https://{acct()}.azconfig.io;Id={r(ALNUM, 4)}-l0-s0:{r(ALNUM, 20)};Secret=«{b64key(32)}»')
    add("azure", f'    storage_account_key = "«{b64key(64)}»"')
    add("azure", f'SharedAccessSignature sr={acct()}.azure-devices.net&sig=«{mixed(ALNUM, 43)}%3D»&se=1767225600')
    add("azure", f'  "accountKey": "«{b64key(64)}»"')
    add("azure", f'AZURE_STORAGE_KEY=«{b64key(64)}»')

    # ODBC, JDBC, ADO.NET and libpq keyword strings.
    add("odbc", f'Server=tcp:{acct()}.database.windows.net,1433;Initial Catalog=app;Persist Security Info=False;User ID=sqladmin;Password=«{pw(16)}»;MultipleActiveResultSets=False;Encrypt=True;')
    add("odbc", f'Driver={{ODBC Driver 18 for SQL Server}};Server=db01;Database=erp;Uid=sa;Pwd=«{pw(14)}»;')
    add("odbc", f'jdbc:postgresql://db.internal:5432/ledger?user=app&password=«{pw(14)}»&ssl=true')
    add("odbc", f'spring.datasource.url=jdbc:mysql://mysql:3306/shop?user=root&password=«{mixed(ALNUM, 16)}»&useSSL=false')
    add("odbc", f'jdbc:sqlserver://sql01:1433;databaseName=hr;user=sa;password=«{pw(15)}»;encrypt=true')
    add("odbc", f'jdbc:oracle:thin:scott/«{mixed(ALNUM, 12)}»@//ora01.internal:1521/ORCLPDB1')
    add("odbc", f'  "Default": "Host=postgres;Port=5432;Database=app;Username=app;Password=«{pw(16)}»"')
    add("odbc", f'Data Source=ora01:1521/XE;User Id=hr;Password=«{pw(12)}»;')
    add("odbc", f"conn = psycopg2.connect(\"host=localhost port=5432 dbname=app user=app password=«{pw(14)}»\")")
    add("odbc", f'Provider=SQLOLEDB;Data Source=sql02;Initial Catalog=crm;User Id=crm_app;Password = «{pw(12)}»;')
    add("odbc", f'jdbc:db2://db2.internal:50000/SAMPLE:user=db2inst1;password=«{pw(12)}»;')
    add("odbc", f'<add name="Main" connectionString="Server=sql03;Database=main;User ID=web;Password=«{pw(14)}»;" providerName="System.Data.SqlClient" />')
    add("odbc", f'DSN=Warehouse;UID=report;PWD=«{pw(13)}»')
    add("odbc", f'  url: jdbc:mariadb://maria:3306/app?user=svc&password=«{pw(15)}»')
    add("odbc", f'Server=myserver;Database=mydb;User Id=svc_{r(az, 4)};Password=«{mixed(ALNUM, 20)}»;Trusted_Connection=False;')

    # Other URLs with credentials.
    add("url", f'DATABASE_URL=postgres://app:«{mixed(ALNUM, 24)}»@ec2-{r(D, 2)}-{r(D, 3)}.compute-1.amazonaws.com:5432/{r(az, 10)}')
    add("url", f'SQLALCHEMY_DATABASE_URI = "postgresql+psycopg2://svc:«{pw(14)}»@pg:5432/app"')
    add("url", f'mysql://root:«{pw(12)}»@127.0.0.1:3306/wordpress')
    add("url", f'REDIS_URL=redis://:«{mixed(ALNUM, 32)}»@redis-{r(D, 5)}.c1.us-east-1-2.ec2.cloud.redislabs.com:{r(D, 5)}')
    add("url", f'  url: rediss://default:«{mixed(ALNUM, 32)}»@{r(az, 8)}.upstash.io:6379')
    add("url", f'CELERY_BROKER_URL=amqp://guest:«{pw(12)}»@rabbitmq:5672//')
    add("url", f'amqps://{r(az, 8)}:«{mixed(URL, 32)}»@{r(az, 6)}.rmq.cloudamqp.com/{r(az, 8)}')
    add("url", f'git clone https://deploy:«{mixed(ALNUM, 20)}»@git.example.org/team/repo.git')
    add("url", f'smtp://postmaster:«{pw(14)}»@smtp.mailhost.net:587')
    add("url", f'ftp://backup:«{pw(12)}»@ftp.internal/archive')
    add("url", f'sqlserver://sa:«{pw(14)}»@localhost:1433?database=master')
    add("url", f'clickhouse://default:«{mixed(ALNUM, 20)}»@ch.internal:9000/default')
    add("url", f'  broker: "nats://svc:«{mixed(ALNUM, 18)}»@nats:4222"')
    add("url", f'ldap://cn=admin,dc=corp,dc=local:«{pw(12)}»@ldap.corp.local:389')
    add("url", f'https://user:«{mixed(ALNUM, 18)}»@registry.internal/v2/')

    # Provider formats (prefix tokens and keyword-anchored values).
    add("provider", f'HUBSPOT_TOKEN=«pat-na1-{uuid()}»')
    add("provider", f'SONAR_TOKEN=«squ_{r(HEX, 40)}»')
    add("provider", f'  token: «sqp_{r(HEX, 40)}»')
    add("provider", f'AIRTABLE_PAT=«pat{r(ALNUM, 14)}.{r(HEX, 64)}»')
    add("provider", f'FASTLY_API_TOKEN=«{mixed(URL, 32)}»')
    add("provider", f'lokalise_token = "«{r(HEX, 40)}»"')
    add("provider", f'MATTERMOST_TOKEN=«{r(az + D, 26)}»')
    add("provider", f'wireguard PrivateKey = «{b64key(32)}»')
    add("provider", f'[Interface]\tPrivateKey = «{b64key(32)}»')
    add("provider", f'DJANGO_SECRET_KEY="«django-insecure-{r(az + D + "!@#$%^&*(-_=+)", 50)}»"')
    add("provider", f'crates_io_token = "«cio{r(ALNUM, 32)}»"')
    add("provider", f'TWITCH_CLIENT_SECRET=«{r(az + D, 30)}»')
    add("provider", f'  zendesk_api_token: «{mixed(ALNUM, 40)}»')
    add("provider", f'SUMO_ACCESS_ID=«su{r(ALNUM, 12)}»')
    add("provider", f'DEFINED_NETWORKING_KEY=«dnkey-{r(AZ + D, 26)}-{r(AZ + D, 52)}»')
    add("provider", f'SALESFORCE_ACCESS_TOKEN=«00D{r(ALNUM, 12)}!{mixed(ALNUM + ".", 96)}»')
    add("provider", f'hawk_api_key: «hawk.{r(ALNUM, 20)}.{r(ALNUM, 20)}»')
    add("provider", f'MERAKI_DASHBOARD_API_KEY=«{r(HEX, 40)}»')
    add("provider", f'  "kubernetes": "«{r(az + D, 6)}.{r(az + D, 16)}»"')
    add("provider", f'NEW_RELIC_LICENSE_KEY=«{r(HEX, 36)}NRAL»')
    add("provider", f'TRAVIS_TOKEN=«{mixed(URL, 22)}»')
    add("provider", f'freemius secret_key = "«sk_{mixed(ALNUM + "<>;^$[]", 29)}»"')
    add("provider", f'FINNHUB_API_KEY=«{r(az + D, 20)}»')
    add("provider", f'coinbase_api_secret = "«{mixed(ALNUM, 64)}»"')
    add("provider", f'SENDBIRD_API_TOKEN=«{r(HEX, 40)}»')
    add("provider", f'  etsy_api_key: «{r(az + D, 24)}»')
    add("provider", f'TERRAFORM_TOKEN="«{r(ALNUM, 14)}.atlasv1.{mixed(URL, 67)}»"')
    add("provider", f'NUGET_API_KEY=«oy2{r(az + D, 43)}»')
    add("provider", f'    <add key="ClearTextPassword" value="«{pw(14)}»" />')
    add("provider", f'ARTIFACTORY_API_KEY=«AKCp8{mixed(ALNUM, 68)}»')
    add("provider", f'JENKINS_API_TOKEN=«11{r(HEX, 32)}»')
    add("provider", f'LINEAR_CLIENT_SECRET=«{r(HEX, 32)}»')
    add("provider", f'RAPIDAPI_KEY=«{mixed(URL, 50)}»')
    add("provider", f'TWILIO_ACCOUNT_SID=AC{r(HEX, 32)} TWILIO_AUTH_TOKEN=«{r(HEX, 32)}»')
    add("provider", f'bitbucket_app_password: «ATBB{mixed(ALNUM, 32)}{r(HEX.upper(), 8)}»')
    add("provider", f'OPENAI_API_KEY=«sk-proj-{mixed(URL, 74)}T3BlbkFJ{mixed(URL, 74)}»')
    add("provider", f'PRIVATE_AI_KEY=«{r(HEX, 32)}»')
    add("provider", f'looker_client_secret: «{mixed(ALNUM, 24)}»')
    add("provider", f'FRESHBOOKS_TOKEN=«{r(ALNUM, 64)}»')
    add("provider", f'  kraken_key: «{mixed(B64, 56)}»')
    return out


def lookalikes():
    out = []

    def add(tag, line):
        assert "«" not in line
        out.append(f"{tag}\t{line}")

    # Documented example keys and placeholders (providers' docs print these on purpose).
    add("example", 'aws_access_key_id = AKIAIOSFODNN7EXAMPLE')
    add("example", 'aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY')
    add("example", 'AWS_ACCESS_KEY_ID=AKIAI44QH8DHBEXAMPLE')
    add("example", 'AWS_SECRET_ACCESS_KEY=je7MtGbClwBF/2Zp9Utk/h3yCo8nvbEXAMPLEKEY')
    add("example", '    "AccessKeyId": "ASIAIOSFODNN7EXAMPLE",')
    add("example", 'export GITHUB_TOKEN=ghp_XXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXX')
    add("example", 'OPENAI_API_KEY=sk-xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx')
    add("example", 'OP_SERVICE_ACCOUNT_TOKEN=ops_eyJ' + "x" * 260)
    add("example", 'STRIPE_SECRET_KEY=sk_live_xxxxxxxxxxxxxxxxxxxxxxxx')
    add("example", 'SLACK_BOT_TOKEN=xoxb-000000000000-0000000000000-xxxxxxxxxxxxxxxxxxxxxxxx')
    add("example", 'api_key: "0000000000000000000000000000000000000000"')
    add("example", 'password: "********"')
    add("example", 'DB_PASSWORD=**************')
    add("example", 'client_secret = "XXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXX"')
    add("example", 'token: "<your-token-here>"')
    add("example", 'AZURE_STORAGE_KEY=<storage-account-key>')
    add("example", 'TWILIO_AUTH_TOKEN=your_auth_token')
    add("example", 'SENDGRID_API_KEY=SG.xxxxxxxxxxxxxxxxxxxxxx.xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx')
    add("example", 'GOOGLE_API_KEY=AIzaSyXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXX')
    add("example", 'secret_key = "REPLACE_WITH_YOUR_SECRET_KEY"')
    add("example", 'api_key = "INSERT_API_KEY_HERE"')
    add("example", 'ANTHROPIC_API_KEY=sk-ant-api03-...')
    add("example", 'password: "example-password"')
    add("example", 'password = "dummy_password_for_tests"')
    add("example", 'GH_TOKEN=ghp_1234567890abcdefghijklmnopqrstuvwxyz')
    add("example", 'token = "abcdefghijklmnopqrstuvwxyz123456"')
    add("example", 'AccountKey=YOUR_ACCOUNT_KEY_HERE;')
    add("example", 'sig=XXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXX%3D')
    add("example", 'mongodb+srv://<username>:<password>@cluster0.example.mongodb.net/')
    add("example", 'postgres://user:password@localhost:5432/mydb')
    add("example", 'mysql://USER:PASSWORD@HOST:PORT/DATABASE')
    add("example", 'redis://:${REDIS_PASSWORD}@redis:6379/0')
    add("example", 'amqp://guest:guest@localhost:5672/')
    add("example", 'Server=.;Database=app;User Id=sa;Password=<YourStrong@Passw0rd>;')
    add("example", 'Server=.;Database=app;User Id=sa;Password={0};')
    add("example", 'jdbc:postgresql://localhost:5432/app?user=app&password=${DB_PASSWORD}')
    add("example", 'Driver={ODBC Driver 18 for SQL Server};Server=db;Uid=%s;Pwd=%s;')
    add("example", 'AccountKey=' + "A" * 86 + "==")
    add("example", '$2b$12$' + "." * 53)

    # Template variables and references.
    add("template", 'password: ${DB_PASSWORD}')
    add("template", 'api_key: "{{ .Values.apiKey }}"')
    add("template", 'token = "%(token)s"')
    add("template", 'secret: $SECRET_VALUE')
    add("template", "  password: '{{ vault_db_password }}'")
    add("template", 'AWS_SECRET_ACCESS_KEY=${{ secrets.AWS_SECRET_ACCESS_KEY }}')
    add("template", 'client_secret = os.environ["CLIENT_SECRET"]')
    add("template", 'password = ENV.fetch("DB_PASSWORD")')
    add("template", '      - name: API_TOKEN')
    add("template", '        valueFrom: { secretKeyRef: { name: api, key: token } }')
    add("template", 'export TOKEN=$(cat /run/secrets/token)')
    add("template", 'password: !vault |')
    add("template", 'DATABASE_URL=postgres://${PGUSER}:${PGPASSWORD}@${PGHOST}:5432/${PGDATABASE}')
    add("template", 'mongodb://${MONGO_USER}:${MONGO_PASS}@${MONGO_HOST}:27017')
    add("template", 'Password=$(SqlPassword);')
    add("template", 'secret_key = "{secret_key}"')
    add("template", 'token: "@@TOKEN@@"')
    add("template", 'password: "%DB_PASSWORD%"')
    add("template", 'api_key = "<%= ENV[\'API_KEY\'] %>"')
    add("template", 'key: "#{api_key}"')

    # High-entropy data that is not a credential.
    dna = lambda n: r("ACGT", n)
    add("data", f'sequence = "{dna(120)}"')
    add("data", f'    "token": "{dna(64)}",')
    add("data", f'>chr1_fragment_key {dna(80)}')
    add("data", f'secret_sequence: {dna(48)}')
    add("data", f'primer_key = "{r("ACGTU", 40)}"')
    add("data", f'protein_key: "{r("ACDEFGHIKLMNPQRSTVWY", 60)}"')
    add("data", f'commit: {r(HEX, 40)}')
    add("data", f'  sha256: {r(HEX, 64)}')
    add("data", f'integrity: sha512-{b64key(64)}')
    add("data", f'checksum = "{r(HEX, 64)}"')
    add("data", f'  resolved "https://registry.example/pkg/-/pkg-1.2.3.tgz#{r(HEX, 40)}"')
    add("data", f'image: "data:image/png;base64,iVBORw0KGgo{mixed(B64, 120)}"')
    add("data", f'request_id = "{uuid()}"')
    add("data", f'trace_id: {r(HEX, 32)}')
    add("data", f'  "etag": "W/\\"{r(HEX, 32)}\\""')
    add("data", f'uses: actions/checkout@{r(HEX, 40)}')
    add("data", f'FROM node:20@sha256:{r(HEX, 64)}')
    add("data", f'ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAI{mixed(B64, 43)} deploy@ci')
    add("data", f'public_key = "{b64key(32)}"')
    add("data", f'pubkey: "04{r(HEX, 128)}"')
    add("data", f'address = "0x{r(HEX, 40)}"')
    add("data", f'  bitcoin_address: bc1q{r("023456789acdefghjklmnpqrstuvwxyz", 38)}')
    add("data", f'key_id = "{r(HEX, 16)}"')
    add("data", f'  fingerprint: "{":".join(r(HEX, 2) for _ in range(16))}"')
    add("data", f'GPG_KEY_ID={r(HEX.upper(), 40)}')
    add("data", 'lorem_key = "lorem ipsum dolor sit amet consectetur adipiscing elit"')
    add("data", 'password_policy = "minimumlengthtwelvecharactersandonedigit"')
    add("data", 'secret_name = "productiondatabasecredentials"')
    add("data", 'token_type = "urn:ietf:params:oauth:token-type:access_token"')
    add("data", f'base_key = "{"".join(rng.choice(["alpha", "bravo", "charlie", "delta", "echo"]) for _ in range(6))}"')
    add("data", 'password_file = "/etc/app/secrets/db_password.txt"')
    add("data", 'key_path: /home/deploy/.ssh/id_ed25519')
    add("data", 'secret_file = "C:\\\\ProgramData\\\\App\\\\secret.json"')
    add("data", 'tls_key: ./certs/server.key')
    add("data", 'token_url = "https://oauth2.googleapis.com/token"')
    add("data", f'version_key = "v{rng.randint(1,9)}.{rng.randint(0,20)}.{rng.randint(0,40)}-rc.{rng.randint(1,9)}+build.{r(D, 6)}"')
    add("data", f'cache_key = "deps-{{{{ checksum \\"Cargo.lock\\" }}}}-{r(HEX, 8)}"')
    add("data", f'ETHEREUM_TX_HASH=0x{r(HEX, 64)}')
    add("data", f'  "sourceMappingURL": "app.{r(HEX, 20)}.js.map"')
    add("data", f'<script src="/static/js/main.{r(HEX, 8)}.chunk.js" integrity="sha384-{b64key(48)}"></script>')
    add("data", f'secret_santa_group_id = {r(D, 12)}')
    add("data", f'TOKEN_ALPHABET = "{ALNUM}"')
    add("data", f'password_chars = "{ALNUM}!@#$%^&*"')
    add("data", f'const KEY_CODES = "{"".join(chr(c) for c in range(0x41, 0x5b))}";')

    # Code that names credentials without holding one.
    add("code", 'if password == confirm_password:')
    add("code", 'token = request.headers.get("Authorization", "").removeprefix("Bearer ")')
    add("code", 'const apiKey = useApiKey();')
    add("code", 'let secret = Secret::new(bytes);')
    add("code", 'password: z.string().min(12).max(128),')
    add("code", 'def rotate_key(key_id: str) -> None:')
    add("code", 'SECRET_KEY = get_random_secret_key()')
    add("code", 'passwordHash := bcrypt.GenerateFromPassword([]byte(password), 12)')
    add("code", '  "password": "Password",')
    add("code", '  "passwordHint": "Use at least twelve characters",')
    add("code", 'private String password; // set by the framework')
    add("code", 'Password=%s;Server=%s', )
    add("code", 'var connectionString = $"Server={host};Database={db};User Id={user};Password={pass};";')
    add("code", 'conn_str = f"postgresql://{user}:{password}@{host}:{port}/{db}"')
    add("code", 'url = "mongodb://%s:%s@%s" % (user, password, host)')
    add("code", 'String url = "jdbc:mysql://" + host + "/db?user=" + user + "&password=" + pass;')
    add("code", 'AccountKey=" + accountKey + ";EndpointSuffix=core.windows.net"')
    add("code", 'hash = "$2b$" + rounds + "$" + salt')
    add("code", 'if (!password.matches("^[A-Za-z0-9!@#$%^&*]{12,64}$")) {')
    add("code", "pattern = r'AKIA[0-9A-Z]{16}'")
    add("code", 'token_re = re.compile(r"ghp_[A-Za-z0-9]{36}")')
    add("code", 'assert len(secret_key) == 64')
    add("code", 'secretKeyRef:')
    add("code", '  passwordSecretRef: { name: db-creds, key: password }')
    add("code", 'auth_method = "client_secret_post"')
    add("code", 'grant_type=client_credentials&scope=read')
    add("code", 'KeyVaultSecret secret = client.GetSecret("db-password");')
    add("code", 'let token_count = tokens.len();')
    add("code", 'password_reset_token_ttl: 3600')
    add("code", 'accessKeyId: credentials.accessKeyId,')
    add("code", 'session_token=None,')
    return out


if __name__ == "__main__":
    which = sys.argv[1] if len(sys.argv) > 1 else "secrets"
    lines = secrets() if which == "secrets" else lookalikes()
    print("# Generated by heldout_families.py; synthetic values, formats from providers' docs.")
    for line in lines:
        print(line)
