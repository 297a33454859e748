//! Textbook risky one-liners through the whole local scorer: each alone, and in a turn that
//! also adds a short docs file and an unrelated helper. A reviewer flags every one at a
//! glance; the scorer must select the expected axis on most of them, and a harmless companion
//! must never change the answer (a turn is judged unit by unit). These lines were written by
//! us with the detectors in view, so the count is in-sample: it guards against regressions,
//! the held-apart figures are `cargo xtask quality`'s.

use jev_preflight::pipeline::axes::AXIS_IDS;
use jev_preflight::scorer::Scorer;
use jev_preflight::scorer::local::LocalScorer;

/// A diff adding `lines` after one line of context in `path`.
fn added(path: &str, lines: &[&str]) -> String {
    let body: String = lines.iter().map(|l| format!("+{l}\n")).collect();
    format!(
        "diff --git a/{path} b/{path}\n--- a/{path}\n+++ b/{path}\n@@ -10,1 +10,{} @@ def main():\n     run()\n{body}",
        lines.len() + 1
    )
}

/// A diff replacing `old` with `new` inside context in `path`.
fn edit(path: &str, before: &str, old: &[&str], new: &[&str]) -> String {
    let body: String = old
        .iter()
        .map(|l| format!("-{l}\n"))
        .chain(new.iter().map(|l| format!("+{l}\n")))
        .collect();
    format!(
        "diff --git a/{path} b/{path}\n--- a/{path}\n+++ b/{path}\n@@ -20,{} +20,{} @@\n {before}\n{body}",
        old.len() + 1,
        new.len() + 1
    )
}

fn cases() -> Vec<(&'static str, &'static str, String)> {
    vec![
        (
            "python verify=False",
            "auth_boundary",
            edit(
                "app/client.py",
                "def fetch(url):",
                &["    r = requests.get(url, timeout=5)"],
                &["    r = requests.get(url, verify=False, timeout=5)"],
            ),
        ),
        (
            "go InsecureSkipVerify",
            "auth_boundary",
            edit(
                "internal/net/client.go",
                "func newClient() *http.Client {",
                &["\ttr := &http.Transport{}"],
                &[
                    "\ttr := &http.Transport{TLSClientConfig: &tls.Config{InsecureSkipVerify: true}}",
                ],
            ),
        ),
        (
            "node rejectUnauthorized",
            "auth_boundary",
            edit(
                "src/http.js",
                "function agent() {",
                &["  return new https.Agent({ keepAlive: true });"],
                &["  return new https.Agent({ keepAlive: true, rejectUnauthorized: false });"],
            ),
        ),
        (
            "python except pass",
            "error_handling",
            edit(
                "app/jobs.py",
                "def sync():",
                &["    push_all()"],
                &[
                    "    try:",
                    "        push_all()",
                    "    except Exception:",
                    "        pass",
                ],
            ),
        ),
        (
            "java empty catch",
            "error_handling",
            edit(
                "src/main/java/app/Sync.java",
                "  void sync() {",
                &["    pushAll();"],
                &[
                    "    try {",
                    "      pushAll();",
                    "    } catch (Exception e) {",
                    "    }",
                ],
            ),
        ),
        (
            "ruby rescue nil",
            "error_handling",
            edit(
                "lib/app/sync.rb",
                "  def sync",
                &["    push_all"],
                &["    push_all rescue nil"],
            ),
        ),
        (
            "go error discarded",
            "error_handling",
            edit(
                "internal/store/save.go",
                "func save(path string, b []byte) {",
                &[
                    "\tif err := os.WriteFile(path, b, 0o600); err != nil {",
                    "\t\treturn err",
                    "\t}",
                ],
                &["\t_ = os.WriteFile(path, b, 0o600)"],
            ),
        ),
        (
            "pytest skip",
            "regression_tests",
            edit(
                "tests/test_parse.py",
                "",
                &["def test_rejects_nested_quotes():"],
                &[
                    "@pytest.mark.skip(reason=\"flaky\")",
                    "def test_rejects_nested_quotes():",
                ],
            ),
        ),
        (
            "jest it.skip",
            "regression_tests",
            edit(
                "src/parse.test.ts",
                "describe('parse', () => {",
                &["  it('rejects nested quotes', () => {"],
                &["  it.skip('rejects nested quotes', () => {"],
            ),
        ),
        (
            "test deleted",
            "regression_tests",
            edit(
                "tests/test_limits.py",
                "",
                &[
                    "def test_rejects_oversized_body():",
                    "    with pytest.raises(TooLarge):",
                    "        parse(b\"x\" * (LIMIT + 1))",
                ],
                &[],
            ),
        ),
        (
            "assert loosened",
            "regression_tests",
            edit(
                "tests/test_total.py",
                "def test_total():",
                &["    assert total(cart) == 30"],
                &["    assert total(cart) is not None"],
            ),
        ),
        (
            "sql by f-string",
            "input_validation",
            edit(
                "app/db.py",
                "def find(name):",
                &["    cur.execute(\"SELECT * FROM users WHERE name = %s\", (name,))"],
                &["    cur.execute(f\"SELECT * FROM users WHERE name = '{name}'\")"],
            ),
        ),
        (
            "shell with f-string",
            "input_validation",
            edit(
                "app/run.py",
                "def archive(path):",
                &["    subprocess.run([\"tar\", \"czf\", \"out.tgz\", path], check=True)"],
                &["    subprocess.run(f\"tar czf out.tgz {path}\", shell=True, check=True)"],
            ),
        ),
        (
            "yaml full loader",
            "input_validation",
            edit(
                "app/load.py",
                "def load(stream):",
                &["    return yaml.safe_load(stream)"],
                &["    return yaml.load(stream, Loader=yaml.FullLoader)"],
            ),
        ),
        (
            "pickle of request",
            "input_validation",
            added("app/views.py", &["    state = pickle.loads(request.data)"]),
        ),
        (
            "csrf commented out",
            "auth_boundary",
            edit(
                "app/settings.py",
                "MIDDLEWARE = [",
                &["    \"django.middleware.csrf.CsrfViewMiddleware\","],
                &["    # \"django.middleware.csrf.CsrfViewMiddleware\","],
            ),
        ),
        (
            "jwt verify to decode",
            "auth_boundary",
            edit(
                "src/auth.js",
                "function claims(token) {",
                &["  return jwt.verify(token, secret);"],
                &["  return jwt.decode(token);"],
            ),
        ),
        (
            "chmod 777 key",
            "auth_boundary",
            added("deploy/setup.sh", &["chmod 777 /etc/app/key.pem"]),
        ),
        (
            "go unlock dropped",
            "lifecycle",
            edit(
                "internal/cache/cache.go",
                "\tc.mu.Lock()",
                &["\tdefer c.mu.Unlock()"],
                &[],
            ),
        ),
        (
            "file never closed",
            "lifecycle",
            edit(
                "app/report.py",
                "def head(path):",
                &["    with open(path) as f:", "        return f.readline()"],
                &["    f = open(path)", "    return f.readline()"],
            ),
        ),
    ]
}

/// Seventy-five more, in eight languages and every axis the detectors serve, written from a
/// reviewer's checklist before the detectors were last changed (then 61 selected their
/// axis); the misses named rules that were added or trusted since, so this count is
/// in-sample too.
fn checklist_cases() -> Vec<(&'static str, &'static str, String)> {
    vec![
        (
            "py unverified ctx",
            "auth_boundary",
            edit(
                "svc/fetch.py",
                "def opener():",
                &["    ctx = ssl.create_default_context()"],
                &["    ctx = ssl._create_unverified_context()"],
            ),
        ),
        (
            "py CERT_NONE",
            "auth_boundary",
            edit(
                "svc/tls.py",
                "    ctx = ssl.create_default_context()",
                &[],
                &[
                    "    ctx.check_hostname = False",
                    "    ctx.verify_mode = ssl.CERT_NONE",
                ],
            ),
        ),
        (
            "py httpx verify False",
            "auth_boundary",
            edit(
                "svc/api.py",
                "def client():",
                &["    return httpx.Client(base_url=BASE)"],
                &["    return httpx.Client(base_url=BASE, verify=False)"],
            ),
        ),
        (
            "node TLS env 0",
            "auth_boundary",
            edit(
                "src/index.js",
                "const app = express();",
                &[],
                &["process.env.NODE_TLS_REJECT_UNAUTHORIZED = '0';"],
            ),
        ),
        (
            "java hostname verifier",
            "auth_boundary",
            edit(
                "src/main/java/com/acme/Http.java",
                "    static void init() {",
                &[],
                &[
                    "        HttpsURLConnection.setDefaultHostnameVerifier((hostname, session) -> true);",
                ],
            ),
        ),
        (
            "cs cert callback",
            "auth_boundary",
            edit(
                "src/Acme/Client.cs",
                "        public Client() {",
                &[],
                &[
                    "            ServicePointManager.ServerCertificateValidationCallback = (s, cert, chain, errors) => true;",
                ],
            ),
        ),
        (
            "go ssh insecure hostkey",
            "auth_boundary",
            edit(
                "pkg/remote/ssh.go",
                "\tcfg := &ssh.ClientConfig{",
                &["\t\tHostKeyCallback: ssh.FixedHostKey(hostKey),"],
                &["\t\tHostKeyCallback: ssh.InsecureIgnoreHostKey(),"],
            ),
        ),
        (
            "ruby VERIFY_NONE",
            "auth_boundary",
            edit(
                "lib/acme/http.rb",
                "    http.use_ssl = true",
                &[],
                &["    http.verify_mode = OpenSSL::SSL::VERIFY_NONE"],
            ),
        ),
        (
            "php curl verifypeer",
            "auth_boundary",
            edit(
                "src/Http/Fetcher.php",
                "        $ch = curl_init($url);",
                &[],
                &["        curl_setopt($ch, CURLOPT_SSL_VERIFYPEER, false);"],
            ),
        ),
        (
            "rust accept invalid certs",
            "auth_boundary",
            edit(
                "src/client.rs",
                "    let client = reqwest::Client::builder()",
                &[],
                &["        .danger_accept_invalid_certs(true)"],
            ),
        ),
        (
            "py jwt no verify",
            "auth_boundary",
            edit(
                "app/auth.py",
                "def claims(token):",
                &["    return jwt.decode(token, KEY, algorithms=['HS256'])"],
                &["    return jwt.decode(token, options={'verify_signature': False})"],
            ),
        ),
        (
            "flask csrf exempt",
            "auth_boundary",
            edit(
                "app/views.py",
                "",
                &[],
                &["@csrf.exempt", "@app.route('/transfer', methods=['POST'])"],
            ),
        ),
        (
            "rails skip csrf",
            "auth_boundary",
            edit(
                "app/controllers/payments_controller.rb",
                "class PaymentsController < ApplicationController",
                &[],
                &["  skip_before_action :verify_authenticity_token"],
            ),
        ),
        (
            "flask login_required removed",
            "auth_boundary",
            edit(
                "app/admin.py",
                "@app.route('/admin/users')",
                &["@login_required"],
                &[],
            ),
        ),
        (
            "go admin check removed",
            "auth_boundary",
            edit(
                "internal/api/users.go",
                "func (h *Handler) Delete(w http.ResponseWriter, r *http.Request) {",
                &[
                    "\tif !currentUser(r).IsAdmin {",
                    "\t\thttp.Error(w, \"forbidden\", http.StatusForbidden)",
                    "\t\treturn",
                    "\t}",
                ],
                &[],
            ),
        ),
        (
            "java PreAuthorize removed",
            "auth_boundary",
            edit(
                "src/main/java/com/acme/AdminController.java",
                "    @DeleteMapping(\"/users/{id}\")",
                &["    @PreAuthorize(\"hasRole('ADMIN')\")"],
                &[],
            ),
        ),
        (
            "express auth middleware dropped",
            "auth_boundary",
            edit(
                "src/routes/users.js",
                "",
                &["router.delete('/users/:id', requireAuth, deleteUser);"],
                &["router.delete('/users/:id', deleteUser);"],
            ),
        ),
        (
            "js sql concat",
            "input_validation",
            edit(
                "src/db/users.js",
                "async function find(req) {",
                &[],
                &["  return db.query(\"SELECT * FROM users WHERE id = \" + req.params.id);"],
            ),
        ),
        (
            "go sprintf sql",
            "input_validation",
            edit(
                "internal/store/user.go",
                "func (s *Store) ByName(name string) (*User, error) {",
                &["\trow := s.db.QueryRow(\"SELECT id FROM users WHERE name = $1\", name)"],
                &[
                    "\trow := s.db.QueryRow(fmt.Sprintf(\"SELECT id FROM users WHERE name = '%s'\", name))",
                ],
            ),
        ),
        (
            "java sql concat",
            "input_validation",
            edit(
                "src/main/java/com/acme/UserDao.java",
                "    public User find(String name) throws SQLException {",
                &[],
                &[
                    "        ResultSet rs = stmt.executeQuery(\"SELECT * FROM users WHERE name = '\" + name + \"'\");",
                ],
            ),
        ),
        (
            "ruby where interp",
            "input_validation",
            edit(
                "app/models/search.rb",
                "  def self.by_name(params)",
                &["    User.where(name: params[:name])"],
                &["    User.where(\"name = '#{params[:name]}'\")"],
            ),
        ),
        (
            "php mysqli GET",
            "input_validation",
            edit(
                "public/user.php",
                "<?php",
                &[],
                &["$res = mysqli_query($conn, \"SELECT * FROM users WHERE id = \" . $_GET['id']);"],
            ),
        ),
        (
            "py os.system concat",
            "input_validation",
            edit(
                "tools/net.py",
                "def ping(host):",
                &[],
                &["    os.system(\"ping -c 1 \" + host)"],
            ),
        ),
        (
            "node exec concat",
            "input_validation",
            edit(
                "src/api/files.js",
                "app.get('/ls', (req, res) => {",
                &[],
                &["  child_process.exec('ls ' + req.query.dir, (err, out) => res.send(out));"],
            ),
        ),
        (
            "go sh -c concat",
            "input_validation",
            edit(
                "internal/git/log.go",
                "func Log(ref string) ([]byte, error) {",
                &["\treturn exec.Command(\"git\", \"log\", ref).Output()"],
                &["\treturn exec.Command(\"sh\", \"-c\", \"git log \"+ref).Output()"],
            ),
        ),
        (
            "py eval request",
            "input_validation",
            edit(
                "app/calc.py",
                "def calc():",
                &[],
                &["    return str(eval(request.args.get('expr')))"],
            ),
        ),
        (
            "js xss send",
            "input_validation",
            edit(
                "src/server.js",
                "app.get('/hello', (req, res) => {",
                &[],
                &["  res.send('<h1>Hello ' + req.query.name + '</h1>');"],
            ),
        ),
        (
            "py path traversal",
            "input_validation",
            edit(
                "app/files.py",
                "def download():",
                &[],
                &["    return send_file(os.path.join(UPLOAD_DIR, request.args['file']))"],
            ),
        ),
        (
            "cs sqlcommand concat",
            "input_validation",
            edit(
                "src/Acme/Repo.cs",
                "        public User Find(string name) {",
                &[],
                &[
                    "            var cmd = new SqlCommand(\"SELECT * FROM Users WHERE Name = '\" + name + \"'\", conn);",
                ],
            ),
        ),
        (
            "rust format sql",
            "input_validation",
            edit(
                "src/db.rs",
                "pub async fn by_name(pool: &PgPool, name: &str) -> Result<User> {",
                &[],
                &[
                    "    let q = format!(\"SELECT * FROM users WHERE name = '{}'\", name);",
                    "    sqlx::query_as(&q).fetch_one(pool).await",
                ],
            ),
        ),
        (
            "js innerHTML",
            "input_validation",
            edit(
                "src/ui/render.js",
                "function show(msg) {",
                &["  el.textContent = msg;"],
                &["  el.innerHTML = msg;"],
            ),
        ),
        (
            "react dangerously",
            "input_validation",
            edit(
                "src/Comment.tsx",
                "  return (",
                &[],
                &["    <div dangerouslySetInnerHTML={{ __html: comment.body }} />"],
            ),
        ),
        (
            "java ObjectInputStream",
            "input_validation",
            edit(
                "src/main/java/com/acme/Session.java",
                "    Object read(HttpServletRequest request) throws Exception {",
                &[],
                &["        return new ObjectInputStream(request.getInputStream()).readObject();"],
            ),
        ),
        (
            "ruby Marshal params",
            "input_validation",
            edit(
                "app/controllers/prefs_controller.rb",
                "  def update",
                &[],
                &["    prefs = Marshal.load(Base64.decode64(params[:data]))"],
            ),
        ),
        (
            "php unserialize cookie",
            "input_validation",
            edit(
                "src/prefs.php",
                "function prefs() {",
                &[],
                &["    return unserialize($_COOKIE['prefs']);"],
            ),
        ),
        (
            "cs BinaryFormatter",
            "input_validation",
            edit(
                "src/Acme/Cache.cs",
                "        object Load(Stream stream) {",
                &[],
                &["            return new BinaryFormatter().Deserialize(stream);"],
            ),
        ),
        (
            "ruby YAML.load",
            "input_validation",
            edit(
                "lib/config.rb",
                "  def self.read(body)",
                &["    YAML.safe_load(body)"],
                &["    YAML.load(body)"],
            ),
        ),
        (
            "py chmod 777",
            "auth_boundary",
            edit(
                "deploy/install.py",
                "def install(path):",
                &[],
                &["    os.chmod(path, 0o777)"],
            ),
        ),
        (
            "go writefile 0666 key",
            "auth_boundary",
            edit(
                "internal/keys/store.go",
                "func Save(path string, key []byte) error {",
                &["\treturn os.WriteFile(path, key, 0o600)"],
                &["\treturn os.WriteFile(path, key, 0o666)"],
            ),
        ),
        (
            "s3 public-read",
            "auth_boundary",
            edit(
                "app/upload.py",
                "def put(key, body):",
                &[],
                &["    s3.put_object(Bucket=BUCKET, Key=key, Body=body, ACL='public-read')"],
            ),
        ),
        (
            "py log password",
            "auth_boundary",
            edit(
                "app/login.py",
                "def login(user, password):",
                &[],
                &["    logger.info('login attempt user=%s password=%s', user, password)"],
            ),
        ),
        (
            "js console token",
            "auth_boundary",
            edit(
                "src/auth/session.js",
                "function start(token) {",
                &[],
                &["  console.log('session token', token);"],
            ),
        ),
        (
            "java log secret",
            "auth_boundary",
            edit(
                "src/main/java/com/acme/Auth.java",
                "    void auth(String apiKey) {",
                &[],
                &["        log.debug(\"using api key {}\", apiKey);"],
            ),
        ),
        (
            "js empty catch",
            "error_handling",
            edit(
                "src/sync.js",
                "async function sync() {",
                &["  await push();"],
                &["  try {", "    await push();", "  } catch (e) {}"],
            ),
        ),
        (
            "rust let _ result",
            "error_handling",
            edit(
                "src/store.rs",
                "    fn cleanup(&self) {",
                &["        fs::remove_file(&self.path).expect(\"remove\");"],
                &["        let _ = fs::remove_file(&self.path);"],
            ),
        ),
        (
            "rust .ok()",
            "error_handling",
            edit(
                "src/io.rs",
                "    fn flush(&mut self) {",
                &["        self.file.sync_all()?;"],
                &["        self.file.sync_all().ok();"],
            ),
        ),
        (
            "cs empty catch",
            "error_handling",
            edit(
                "src/Acme/Sync.cs",
                "        void Run() {",
                &["            Push();"],
                &["            try { Push(); } catch { }"],
            ),
        ),
        (
            "py bare except pass",
            "error_handling",
            edit(
                "app/worker.py",
                "def tick():",
                &["    process_queue()"],
                &[
                    "    try:",
                    "        process_queue()",
                    "    except:",
                    "        pass",
                ],
            ),
        ),
        (
            "go err ignored return nil",
            "error_handling",
            edit(
                "internal/cfg/load.go",
                "\tdata, err := os.ReadFile(path)",
                &["\tif err != nil {", "\t\treturn nil, err", "\t}"],
                &[],
            ),
        ),
        (
            "php @ suppress",
            "error_handling",
            edit(
                "src/cache.php",
                "function load($f) {",
                &["    $s = file_get_contents($f);"],
                &["    $s = @file_get_contents($f);"],
            ),
        ),
        (
            "ruby rescue => nil",
            "error_handling",
            edit(
                "lib/sync.rb",
                "  def push",
                &["    client.push!(batch)"],
                &["    client.push!(batch) rescue nil"],
            ),
        ),
        (
            "java catch ignore",
            "error_handling",
            edit(
                "src/main/java/com/acme/Job.java",
                "    void run() {",
                &["        process();"],
                &[
                    "        try {",
                    "            process();",
                    "        } catch (Exception ignored) {",
                    "        }",
                ],
            ),
        ),
        (
            "go resp body not closed",
            "lifecycle",
            edit(
                "internal/fetch/get.go",
                "func Get(url string) (int, error) {",
                &[],
                &[
                    "\tresp, err := http.Get(url)",
                    "\tif err != nil {",
                    "\t\treturn 0, err",
                    "\t}",
                    "\treturn resp.StatusCode, nil",
                ],
            ),
        ),
        (
            "java stream unclosed",
            "lifecycle",
            edit(
                "src/main/java/com/acme/Reader.java",
                "    String first(File f) throws IOException {",
                &[
                    "        try (BufferedReader r = new BufferedReader(new FileReader(f))) {",
                    "            return r.readLine();",
                    "        }",
                ],
                &[
                    "        BufferedReader r = new BufferedReader(new FileReader(f));",
                    "        return r.readLine();",
                ],
            ),
        ),
        (
            "py lock acquire no release",
            "lifecycle",
            edit(
                "app/cache.py",
                "def put(k, v):",
                &["    with LOCK:", "        CACHE[k] = v"],
                &["    LOCK.acquire()", "    CACHE[k] = v"],
            ),
        ),
        (
            "go defer cancel dropped",
            "lifecycle",
            edit(
                "internal/svc/call.go",
                "\tctx, cancel := context.WithTimeout(ctx, 5*time.Second)",
                &["\tdefer cancel()"],
                &[],
            ),
        ),
        (
            "py timeout removed",
            "lifecycle",
            edit(
                "app/client.py",
                "def fetch(url):",
                &["    return requests.get(url, timeout=10)"],
                &["    return requests.get(url)"],
            ),
        ),
        (
            "go client timeout removed",
            "lifecycle",
            edit(
                "internal/net/http.go",
                "func New() *http.Client {",
                &["\treturn &http.Client{Timeout: 10 * time.Second}"],
                &["\treturn &http.Client{}"],
            ),
        ),
        (
            "go t.Skip",
            "regression_tests",
            edit(
                "internal/store/store_test.go",
                "func TestConcurrentWrites(t *testing.T) {",
                &[],
                &["\tt.Skip(\"flaky on CI\")"],
            ),
        ),
        (
            "java @Disabled",
            "regression_tests",
            edit(
                "src/test/java/com/acme/UserServiceTest.java",
                "    @Test",
                &[],
                &["    @Disabled(\"fails after refactor\")"],
            ),
        ),
        (
            "rust #[ignore]",
            "regression_tests",
            edit("src/parse.rs", "    #[test]", &[], &["    #[ignore]"]),
        ),
        (
            "js xit",
            "regression_tests",
            edit(
                "test/api.test.js",
                "describe('api', () => {",
                &["  it('rejects bad tokens', async () => {"],
                &["  xit('rejects bad tokens', async () => {"],
            ),
        ),
        (
            "py unittest skip",
            "regression_tests",
            edit(
                "tests/test_billing.py",
                "class BillingTest(unittest.TestCase):",
                &[],
                &["    @unittest.skip('broken')"],
            ),
        ),
        (
            "jest loosen toBe->toBeDefined",
            "regression_tests",
            edit(
                "test/total.test.ts",
                "  const total = sum(items);",
                &["  expect(total).toBe(42);"],
                &["  expect(total).toBeDefined();"],
            ),
        ),
        (
            "py assert loosened",
            "regression_tests",
            edit(
                "tests/test_total.py",
                "    result = compute(data)",
                &["    assert result == 42"],
                &["    assert result is not None"],
            ),
        ),
        (
            "go assertion removed",
            "regression_tests",
            edit(
                "pkg/calc/calc_test.go",
                "\tgot := Add(2, 3)",
                &[
                    "\tif got != 5 {",
                    "\t\tt.Errorf(\"Add(2, 3) = %d, want 5\", got)",
                    "\t}",
                ],
                &["\t_ = got"],
            ),
        ),
        (
            "gh continue-on-error",
            "regression_tests",
            edit(
                ".github/workflows/ci.yml",
                "      - run: npm test",
                &[],
                &["        continue-on-error: true"],
            ),
        ),
        (
            "ci || true",
            "regression_tests",
            edit(
                ".github/workflows/test.yml",
                "    steps:",
                &["      - run: pytest -q"],
                &["      - run: pytest -q || true"],
            ),
        ),
        (
            "rspec skip",
            "regression_tests",
            edit(
                "spec/models/user_spec.rb",
                "  it 'validates email' do",
                &[],
                &["    skip 'later'"],
            ),
        ),
        (
            "phpunit markTestSkipped",
            "regression_tests",
            edit(
                "tests/UserTest.php",
                "    public function testLogin(): void {",
                &[],
                &["        $this->markTestSkipped('flaky');"],
            ),
        ),
        (
            "xunit Skip",
            "regression_tests",
            edit(
                "tests/Acme.Tests/UserTests.cs",
                "",
                &["    [Fact]"],
                &["    [Fact(Skip = \"flaky\")]"],
            ),
        ),
        (
            "py pytest xfail",
            "regression_tests",
            edit(
                "tests/test_parser.py",
                "",
                &[],
                &["@pytest.mark.xfail(reason='known issue')"],
            ),
        ),
        (
            "coverage floor lowered",
            "regression_tests",
            edit(
                "setup.cfg",
                "[coverage:report]",
                &["fail_under = 90"],
                &["fail_under = 50"],
            ),
        ),
        (
            "py md5 password",
            "auth_boundary",
            edit(
                "app/users.py",
                "def hash_pw(pw):",
                &["    return bcrypt.hashpw(pw.encode(), bcrypt.gensalt())"],
                &["    return hashlib.md5(pw.encode()).hexdigest()"],
            ),
        ),
        (
            "js Math.random token",
            "auth_boundary",
            edit(
                "src/reset.js",
                "function resetToken() {",
                &["  return crypto.randomBytes(32).toString('hex');"],
                &["  return Math.random().toString(36).slice(2);"],
            ),
        ),
    ]
}

/// A second list of 84 textbook changes in eight languages, written after the first
/// checklist's misses were mended, in two parts each read once with the model then shipped
/// (`fe916326…`) and the detectors of the moment: 41 of the first 48 and 27 of the next 36
/// selected their axis. The misses named the rules added with this list, so the count is
/// in-sample from here on.
fn second_checklist_cases() -> Vec<(&'static str, &'static str, String)> {
    vec![
        (
            "py subprocess shell f-string",
            "input_validation",
            edit(
                "app/tasks.py",
                "def archive(name):",
                &["    subprocess.run([\"tar\", \"czf\", name + \".tgz\", name], check=True)"],
                &["    subprocess.run(f\"tar czf {name}.tgz {name}\", shell=True, check=True)"],
            ),
        ),
        (
            "py pickle.loads request",
            "input_validation",
            edit(
                "app/views.py",
                "def restore(request):",
                &["    state = json.loads(request.body)"],
                &["    state = pickle.loads(request.body)"],
            ),
        ),
        (
            "py csrf_exempt added",
            "auth_boundary",
            edit("app/views.py", "@require_POST", &[], &["@csrf_exempt"]),
        ),
        (
            "py jwt no verify",
            "auth_boundary",
            edit(
                "app/auth.py",
                "def current_user(token):",
                &["    claims = jwt.decode(token, KEY, algorithms=[\"HS256\"])"],
                &["    claims = jwt.decode(token, options={\"verify_signature\": False})"],
            ),
        ),
        (
            "py except pass in loop",
            "error_handling",
            edit(
                "app/sync.py",
                "    for item in items:",
                &["        push(item)"],
                &[
                    "        try:",
                    "            push(item)",
                    "        except Exception:",
                    "            pass",
                ],
            ),
        ),
        (
            "py open without with",
            "lifecycle",
            edit(
                "app/report.py",
                "def header(path):",
                &["    with open(path) as f:", "        return f.readline()"],
                &["    f = open(path)", "    return f.readline()"],
            ),
        ),
        (
            "py pytest skip added",
            "regression_tests",
            edit(
                "tests/test_billing.py",
                "def test_refund_rounding():",
                &[],
                &["    pytest.skip(\"flaky\")"],
            ),
        ),
        (
            "py assert loosened",
            "regression_tests",
            edit(
                "tests/test_api.py",
                "def test_status():",
                &["    assert resp.status_code == 200"],
                &["    assert resp.status_code is not None"],
            ),
        ),
        (
            "js exec template",
            "input_validation",
            edit(
                "src/git.js",
                "function checkout(branch) {",
                &["  return execFile('git', ['checkout', branch]);"],
                &["  return exec(`git checkout ${branch}`);"],
            ),
        ),
        (
            "js innerHTML from query",
            "input_validation",
            edit(
                "src/page.js",
                "function greet() {",
                &["  el.textContent = params.get('name');"],
                &["  el.innerHTML = params.get('name');"],
            ),
        ),
        (
            "js TLS env off",
            "auth_boundary",
            edit(
                "src/client.js",
                "const https = require('https');",
                &[],
                &["process.env.NODE_TLS_REJECT_UNAUTHORIZED = '0';"],
            ),
        ),
        (
            "js empty catch",
            "error_handling",
            edit(
                "src/save.ts",
                "export async function save(doc: Doc) {",
                &["  await db.put(doc);"],
                &["  try { await db.put(doc); } catch (e) {}"],
            ),
        ),
        (
            "js it.only",
            "regression_tests",
            edit(
                "test/cart.test.js",
                "describe('cart', () => {",
                &["  it('adds items', () => {"],
                &["  it.only('adds items', () => {"],
            ),
        ),
        (
            "js jwt ignoreExpiration",
            "auth_boundary",
            edit(
                "src/auth.ts",
                "export function verify(token: string) {",
                &["  return jwt.verify(token, secret);"],
                &["  return jwt.verify(token, secret, { ignoreExpiration: true });"],
            ),
        ),
        (
            "go exec sh -c",
            "input_validation",
            edit(
                "internal/run/run.go",
                "func Run(name string) error {",
                &["\tcmd := exec.Command(\"convert\", name, name+\".png\")"],
                &["\tcmd := exec.Command(\"sh\", \"-c\", \"convert \"+name+\" \"+name+\".png\")"],
            ),
        ),
        (
            "go WriteFile 0777",
            "auth_boundary",
            edit(
                "internal/store/store.go",
                "func Save(p string, b []byte) error {",
                &["\treturn os.WriteFile(p, b, 0o600)"],
                &["\treturn os.WriteFile(p, b, 0o777)"],
            ),
        ),
        (
            "go error ignored _",
            "error_handling",
            edit(
                "internal/store/store.go",
                "func Flush(f *os.File) {",
                &[
                    "\tif err := f.Sync(); err != nil {",
                    "\t\tlog.Printf(\"sync: %v\", err)",
                    "\t}",
                ],
                &["\t_ = f.Sync()"],
            ),
        ),
        (
            "go body not closed",
            "lifecycle",
            edit(
                "internal/fetch/fetch.go",
                "\tresp, err := http.Get(url)",
                &["\tdefer resp.Body.Close()"],
                &[],
            ),
        ),
        (
            "go lock no unlock",
            "lifecycle",
            edit(
                "internal/cache/cache.go",
                "func (c *Cache) Put(k string, v []byte) {",
                &["\tc.mu.Lock()", "\tdefer c.mu.Unlock()"],
                &["\tc.mu.Lock()"],
            ),
        ),
        (
            "go t.Skip",
            "regression_tests",
            edit(
                "internal/cache/cache_test.go",
                "func TestEviction(t *testing.T) {",
                &[],
                &["\tt.Skip(\"TODO\")"],
            ),
        ),
        (
            "java SQL concat",
            "input_validation",
            edit(
                "src/main/java/com/acme/UserDao.java",
                "    public User find(String name) throws SQLException {",
                &[
                    "        PreparedStatement ps = conn.prepareStatement(\"SELECT * FROM users WHERE name = ?\");",
                ],
                &[
                    "        ResultSet rs = conn.createStatement().executeQuery(\"SELECT * FROM users WHERE name = '\" + name + \"'\");",
                ],
            ),
        ),
        (
            "java readObject",
            "input_validation",
            edit(
                "src/main/java/com/acme/Session.java",
                "    Object load(InputStream in) throws Exception {",
                &["        return mapper.readValue(in, Session.class);"],
                &["        return new ObjectInputStream(in).readObject();"],
            ),
        ),
        (
            "java trust all",
            "auth_boundary",
            edit(
                "src/main/java/com/acme/Http.java",
                "    void configure(HttpsURLConnection c) {",
                &[],
                &["        c.setHostnameVerifier((host, session) -> true);"],
            ),
        ),
        (
            "java catch empty one line",
            "error_handling",
            edit(
                "src/main/java/com/acme/Importer.java",
                "    void load() {",
                &["        importAll();"],
                &["        try { importAll(); } catch (Exception e) { }"],
            ),
        ),
        (
            "java @Ignore",
            "regression_tests",
            edit(
                "src/test/java/com/acme/JobTest.java",
                "    @Test",
                &[],
                &["    @Ignore"],
            ),
        ),
        (
            "java md5 password",
            "auth_boundary",
            edit(
                "src/main/java/com/acme/Passwords.java",
                "    String hash(String password) throws Exception {",
                &["        MessageDigest md = MessageDigest.getInstance(\"SHA-256\");"],
                &["        MessageDigest md = MessageDigest.getInstance(\"MD5\");"],
            ),
        ),
        (
            "rb sql interpolation",
            "input_validation",
            edit(
                "app/models/user.rb",
                "  def self.named(name)",
                &["    where(name: name)"],
                &["    where(\"name = '#{name}'\")"],
            ),
        ),
        (
            "rb system interpolation",
            "input_validation",
            edit(
                "app/jobs/thumb.rb",
                "  def perform(path)",
                &["    system('convert', path, 'thumb.png')"],
                &["    system(\"convert #{path} thumb.png\")"],
            ),
        ),
        (
            "rb rescue nil",
            "error_handling",
            edit(
                "app/services/sync.rb",
                "  def call",
                &["    client.push(payload)"],
                &["    client.push(payload) rescue nil"],
            ),
        ),
        (
            "rb html_safe",
            "input_validation",
            edit(
                "app/helpers/bio_helper.rb",
                "  def bio(user)",
                &["    user.bio"],
                &["    user.bio.html_safe"],
            ),
        ),
        (
            "rb skip csrf",
            "auth_boundary",
            edit(
                "app/controllers/hooks_controller.rb",
                "class HooksController < ApplicationController",
                &[],
                &["  skip_before_action :verify_authenticity_token"],
            ),
        ),
        (
            "rb xit",
            "regression_tests",
            edit(
                "spec/models/user_spec.rb",
                "  describe '#name' do",
                &["    it 'joins first and last' do"],
                &["    xit 'joins first and last' do"],
            ),
        ),
        (
            "rs accept invalid certs",
            "auth_boundary",
            edit(
                "src/net.rs",
                "fn client() -> reqwest::Client {",
                &["    reqwest::Client::builder().build().unwrap()"],
                &[
                    "    reqwest::Client::builder().danger_accept_invalid_certs(true).build().unwrap()",
                ],
            ),
        ),
        (
            "rs sh -c format",
            "input_validation",
            edit(
                "src/run.rs",
                "fn convert(name: &str) -> io::Result<()> {",
                &["    Command::new(\"convert\").arg(name).status()?;"],
                &[
                    "    Command::new(\"sh\").arg(\"-c\").arg(format!(\"convert {name}\")).status()?;",
                ],
            ),
        ),
        (
            "rs let _ send result io",
            "error_handling",
            edit(
                "src/log.rs",
                "    fn write(&mut self, line: &str) {",
                &["        self.out.write_all(line.as_bytes())?;"],
                &["        let _ = self.out.write_all(line.as_bytes());"],
            ),
        ),
        (
            "rs #[ignore]",
            "regression_tests",
            edit("tests/parse.rs", "#[test]", &[], &["#[ignore]"]),
        ),
        (
            "rs permissions 777",
            "auth_boundary",
            edit(
                "src/install.rs",
                "fn install(p: &Path) -> io::Result<()> {",
                &["    fs::set_permissions(p, fs::Permissions::from_mode(0o755))?;"],
                &["    fs::set_permissions(p, fs::Permissions::from_mode(0o777))?;"],
            ),
        ),
        (
            "php mysqli concat",
            "input_validation",
            edit(
                "src/users.php",
                "function find_user($db) {",
                &["    $stmt = $db->prepare('SELECT * FROM users WHERE id = ?');"],
                &[
                    "    $res = mysqli_query($db, \"SELECT * FROM users WHERE id = \" . $_GET['id']);",
                ],
            ),
        ),
        (
            "php unserialize",
            "input_validation",
            edit(
                "src/cart.php",
                "function load_cart() {",
                &["    return json_decode($_COOKIE['cart'], true);"],
                &["    return unserialize($_COOKIE['cart']);"],
            ),
        ),
        (
            "php echo get",
            "input_validation",
            edit(
                "src/search.php",
                "<h1>Results</h1>",
                &["<p><?= htmlspecialchars($_GET['q']) ?></p>"],
                &["<p><?= $_GET['q'] ?></p>"],
            ),
        ),
        (
            "php include get",
            "input_validation",
            edit(
                "src/index.php",
                "$page = $_GET['page'];",
                &["include 'pages/home.php';"],
                &["include $page . '.php';"],
            ),
        ),
        (
            "php curl verify off",
            "auth_boundary",
            edit(
                "src/http.php",
                "$ch = curl_init($url);",
                &[],
                &["curl_setopt($ch, CURLOPT_SSL_VERIFYPEER, false);"],
            ),
        ),
        (
            "cs SqlCommand concat",
            "input_validation",
            edit(
                "src/Acme/Users.cs",
                "        public User Find(string name) {",
                &[
                    "            var cmd = new SqlCommand(\"SELECT * FROM Users WHERE Name = @n\", conn);",
                ],
                &[
                    "            var cmd = new SqlCommand(\"SELECT * FROM Users WHERE Name = '\" + name + \"'\", conn);",
                ],
            ),
        ),
        (
            "cs BinaryFormatter",
            "input_validation",
            edit(
                "src/Acme/Store.cs",
                "        public object Load(Stream s) {",
                &["            return JsonSerializer.Deserialize<State>(s);"],
                &["            return new BinaryFormatter().Deserialize(s);"],
            ),
        ),
        (
            "cs cert callback true",
            "auth_boundary",
            edit(
                "src/Acme/Http.cs",
                "        static HttpClient Make() {",
                &[],
                &[
                    "            ServicePointManager.ServerCertificateValidationCallback = (s, c, ch, e) => true;",
                ],
            ),
        ),
        (
            "cs catch empty",
            "error_handling",
            edit(
                "src/Acme/Sync.cs",
                "        void Push() {",
                &["            client.Send(batch);"],
                &["            try { client.Send(batch); } catch { }"],
            ),
        ),
        (
            "cs [Fact(Skip)]",
            "regression_tests",
            edit(
                "tests/Acme.Tests/SyncTests.cs",
                "    public class SyncTests {",
                &["        [Fact]"],
                &["        [Fact(Skip = \"flaky\")]"],
            ),
        ),
        (
            "cs AllowAnonymous",
            "auth_boundary",
            edit(
                "src/Acme/AdminController.cs",
                "    [Authorize(Roles = \"Admin\")]",
                &[],
                &["    [AllowAnonymous]"],
            ),
        ),
        (
            "py yaml.load",
            "input_validation",
            edit(
                "app/config.py",
                "def load(path):",
                &["    return yaml.safe_load(open(path))"],
                &["    return yaml.load(open(path), Loader=yaml.Loader)"],
            ),
        ),
        (
            "py md5 password",
            "auth_boundary",
            edit(
                "app/users.py",
                "def hash_password(pw):",
                &["    return bcrypt.hashpw(pw.encode(), bcrypt.gensalt())"],
                &["    return hashlib.md5(pw.encode()).hexdigest()"],
            ),
        ),
        (
            "py log token",
            "auth_boundary",
            edit(
                "app/auth.py",
                "def login(user, token):",
                &[],
                &["    logger.info(f\"login {user} token={token}\")"],
            ),
        ),
        (
            "py chmod 777",
            "auth_boundary",
            edit(
                "app/install.py",
                "def install(path):",
                &["    os.chmod(path, 0o600)"],
                &["    os.chmod(path, 0o777)"],
            ),
        ),
        (
            "py eval input",
            "input_validation",
            edit(
                "app/calc.py",
                "def calc(request):",
                &["    return ast.literal_eval(request.GET['expr'])"],
                &["    return eval(request.GET['expr'])"],
            ),
        ),
        (
            "py send_file path",
            "input_validation",
            edit(
                "app/views.py",
                "def download(request):",
                &["    return send_from_directory(UPLOADS, request.args['f'])"],
                &["    return send_file(os.path.join(UPLOADS, request.args['f']))"],
            ),
        ),
        (
            "py lock acquire no release",
            "lifecycle",
            edit(
                "app/cache.py",
                "    def put(self, k, v):",
                &["        with self.lock:", "            self.d[k] = v"],
                &["        self.lock.acquire()", "        self.d[k] = v"],
            ),
        ),
        (
            "py test deleted",
            "regression_tests",
            edit(
                "tests/test_refunds.py",
                "",
                &[
                    "def test_refund_never_negative():",
                    "    assert refund(-5) == 0",
                    "",
                ],
                &[],
            ),
        ),
        (
            "py xfail",
            "regression_tests",
            edit(
                "tests/test_tax.py",
                "",
                &[],
                &["@pytest.mark.xfail(reason=\"rounding\")"],
            ),
        ),
        (
            "py approx loosened",
            "regression_tests",
            edit(
                "tests/test_tax.py",
                "def test_vat():",
                &["    assert vat(100) == 20"],
                &["    assert vat(100) == pytest.approx(20, rel=0.5)"],
            ),
        ),
        (
            "js cors star creds",
            "auth_boundary",
            edit(
                "src/server.js",
                "const app = express();",
                &["app.use(cors({ origin: 'https://app.acme.io', credentials: true }));"],
                &["app.use(cors({ origin: '*', credentials: true }));"],
            ),
        ),
        (
            "js eval body",
            "input_validation",
            edit(
                "src/calc.js",
                "app.post('/calc', (req, res) => {",
                &["  res.json({ v: safeEval(req.body.expr) });"],
                &["  res.json({ v: eval(req.body.expr) });"],
            ),
        ),
        (
            "js helmet removed",
            "auth_boundary",
            edit(
                "src/server.js",
                "const app = express();",
                &["app.use(helmet());"],
                &[],
            ),
        ),
        (
            "js describe.skip",
            "regression_tests",
            edit(
                "test/api.test.ts",
                "",
                &["describe('payments', () => {"],
                &["describe.skip('payments', () => {"],
            ),
        ),
        (
            "js expect loosened",
            "regression_tests",
            edit(
                "test/api.test.ts",
                "  it('returns the total', async () => {",
                &["    expect(total).toBe(42);"],
                &["    expect(total).toBeDefined();"],
            ),
        ),
        (
            "js promise catch swallow",
            "error_handling",
            edit(
                "src/sync.js",
                "function sync() {",
                &["  return push().catch(err => log.error(err));"],
                &["  push().catch(() => {});"],
            ),
        ),
        (
            "go sql sprintf",
            "input_validation",
            edit(
                "internal/db/users.go",
                "func Find(db *sql.DB, name string) (*sql.Rows, error) {",
                &["\treturn db.Query(\"SELECT * FROM users WHERE name = $1\", name)"],
                &[
                    "\treturn db.Query(fmt.Sprintf(\"SELECT * FROM users WHERE name = '%s'\", name))",
                ],
            ),
        ),
        (
            "go template.HTML",
            "input_validation",
            edit(
                "internal/web/render.go",
                "func bio(u User) template.HTML {",
                &["\treturn template.HTML(template.HTMLEscapeString(u.Bio))"],
                &["\treturn template.HTML(u.Bio)"],
            ),
        ),
        (
            "go err check removed",
            "error_handling",
            edit(
                "internal/store/store.go",
                "\terr := s.db.Save(rec)",
                &["\tif err != nil {", "\t\treturn err", "\t}"],
                &[],
            ),
        ),
        (
            "go ctx background",
            "lifecycle",
            edit(
                "internal/api/handler.go",
                "func (h *H) Get(ctx context.Context, id string) error {",
                &["\treturn h.store.Load(ctx, id)"],
                &["\treturn h.store.Load(context.Background(), id)"],
            ),
        ),
        (
            "go assert removed",
            "regression_tests",
            edit(
                "internal/store/store_test.go",
                "\tgot, err := s.Load(\"a\")",
                &["\trequire.NoError(t, err)", "\trequire.Equal(t, want, got)"],
                &[],
            ),
        ),
        (
            "java ProcessBuilder sh",
            "input_validation",
            edit(
                "src/main/java/com/acme/Run.java",
                "    void convert(String name) throws IOException {",
                &["        new ProcessBuilder(\"convert\", name).start();"],
                &["        Runtime.getRuntime().exec(\"sh -c convert \" + name);"],
            ),
        ),
        (
            "java stream not closed",
            "lifecycle",
            edit(
                "src/main/java/com/acme/Files.java",
                "    String first(Path p) throws IOException {",
                &[
                    "        try (BufferedReader r = Files.newBufferedReader(p)) {",
                    "            return r.readLine();",
                    "        }",
                ],
                &[
                    "        BufferedReader r = Files.newBufferedReader(p);",
                    "        return r.readLine();",
                ],
            ),
        ),
        (
            "java log password",
            "auth_boundary",
            edit(
                "src/main/java/com/acme/Login.java",
                "    void login(String user, String password) {",
                &[],
                &["        log.info(\"login {} with password {}\", user, password);"],
            ),
        ),
        (
            "java assertEquals removed",
            "regression_tests",
            edit(
                "src/test/java/com/acme/TaxTest.java",
                "        BigDecimal v = tax.vat(100);",
                &["        assertEquals(new BigDecimal(\"20\"), v);"],
                &[],
            ),
        ),
        (
            "rb Marshal.load",
            "input_validation",
            edit(
                "app/models/session.rb",
                "  def self.restore(blob)",
                &["    JSON.parse(blob)"],
                &["    Marshal.load(blob)"],
            ),
        ),
        (
            "rb send params",
            "input_validation",
            edit(
                "app/controllers/report_controller.rb",
                "  def show",
                &["    @report = Report.public_send(:summary)"],
                &["    @report = Report.send(params[:kind])"],
            ),
        ),
        (
            "rb pending",
            "regression_tests",
            edit(
                "spec/models/order_spec.rb",
                "  it 'totals lines' do",
                &[],
                &["    pending 'flaky'"],
            ),
        ),
        (
            "rs unwrap removed ?",
            "error_handling",
            edit(
                "src/cfg.rs",
                "fn load(p: &Path) -> Result<Cfg> {",
                &["    let s = fs::read_to_string(p)?;"],
                &["    let s = fs::read_to_string(p).unwrap_or_default();"],
            ),
        ),
        (
            "rs lock no drop",
            "lifecycle",
            edit(
                "src/cache.rs",
                "    fn put(&self, k: String, v: Vec<u8>) {",
                &["        self.map.lock().unwrap().insert(k, v);"],
                &[
                    "        let mut g = self.map.lock().unwrap();",
                    "        g.insert(k, v);",
                    "        std::mem::forget(g);",
                ],
            ),
        ),
        (
            "php md5 password",
            "auth_boundary",
            edit(
                "src/auth.php",
                "function hash_pw($pw) {",
                &["    return password_hash($pw, PASSWORD_DEFAULT);"],
                &["    return md5($pw);"],
            ),
        ),
        (
            "php shell_exec",
            "input_validation",
            edit(
                "src/convert.php",
                "function convert($name) {",
                &["    exec('convert ' . escapeshellarg($name));"],
                &["    shell_exec('convert ' . $name);"],
            ),
        ),
        (
            "php empty catch",
            "error_handling",
            edit(
                "src/sync.php",
                "function push($c) {",
                &["    $c->send();"],
                &["    try { $c->send(); } catch (Exception $e) {}"],
            ),
        ),
        (
            "cs Process.Start interp",
            "input_validation",
            edit(
                "src/Acme/Run.cs",
                "        void Convert(string name) {",
                &["            Process.Start(\"convert\", new[] { name });"],
                &["            Process.Start(\"cmd.exe\", $\"/c convert {name}\");"],
            ),
        ),
        (
            "cs ValidateAntiForgery removed",
            "auth_boundary",
            edit(
                "src/Acme/OrdersController.cs",
                "        [HttpPost]",
                &["        [ValidateAntiForgeryToken]"],
                &[],
            ),
        ),
        (
            "cs Ignore test",
            "regression_tests",
            edit(
                "tests/Acme.Tests/OrderTests.cs",
                "        [Test]",
                &[],
                &["        [Ignore(\"flaky\")]"],
            ),
        ),
    ]
}

/// A harmless docs file and an unrelated helper of another folder.
const COMPANIONS: &str = "diff --git a/docs/usage.md b/docs/usage.md\n--- a/docs/usage.md\n+++ b/docs/usage.md\n@@ -1,1 +1,4 @@\n # Usage\n+\n+Run `make` to build.\n+See the changelog.\n\
    diff --git a/tools/fmt/width.py b/tools/fmt/width.py\n--- a/tools/fmt/width.py\n+++ b/tools/fmt/width.py\n@@ -1,1 +1,3 @@\n import os\n+def column_width():\n+    return int(os.environ.get(\"COLUMNS\", \"80\"))\n";

/// The axes `diff` selects with the shipped model and thresholds, highest first, at most 3.
fn selected(scorer: &LocalScorer, thresholds: &[f64], diff: &str) -> Vec<&'static str> {
    let s = scorer.score_diff(diff);
    let mut axes: Vec<usize> = (0..AXIS_IDS.len())
        .filter(|&a| s.values[a] >= thresholds[a])
        .collect();
    axes.sort_by(|&a, &b| s.values[b].total_cmp(&s.values[a]));
    axes.truncate(3);
    axes.into_iter().map(|a| AXIS_IDS[a]).collect()
}

/// How many of `cases` select their axis alone; panics when an axis a change selects alone
/// is lost beside the harmless companions.
fn count_selected(cases: &[(&'static str, &'static str, String)]) -> usize {
    let scorer = LocalScorer::new();
    let thresholds = scorer
        .default_thresholds()
        .expect("the shipped model parses");
    let mut fired = 0;
    for (name, axis, diff) in cases {
        let alone = selected(&scorer, &thresholds, diff);
        let with = selected(&scorer, &thresholds, &format!("{COMPANIONS}{diff}"));
        fired += usize::from(alone.contains(axis));
        println!("{name:<32} {axis:<18} alone {alone:?}  with companions {with:?}");
        // No dilution: what the change raises alone it raises beside harmless files.
        for a in &alone {
            assert!(
                with.contains(a),
                "{name}: {a} lost beside companions: {with:?}"
            );
        }
    }
    println!("{fired} of {} select the expected axis", cases.len());
    fired
}

/// Asserts that at least `floor` of `cases` select their axis (measured when the model
/// shipped, see CHANGELOG: in-sample, a regression floor) and that companions change nothing.
fn assert_floor(cases: &[(&'static str, &'static str, String)], floor: usize) {
    let fired = count_selected(cases);
    assert!(fired >= floor, "{fired} of {} fire", cases.len());
}

#[test]
fn textbook_one_liners_select_their_axis_and_companions_change_nothing() {
    assert_floor(&cases(), FLOOR);
}

/// The least number of the 20 that must select their axis.
const FLOOR: usize = 20;

#[test]
fn checklist_changes_select_their_axis_and_companions_change_nothing() {
    assert_floor(&checklist_cases(), CHECKLIST_FLOOR);
}

/// The least number of the 75 checklist changes that must select their axis.
const CHECKLIST_FLOOR: usize = 73;

#[test]
fn second_checklist_changes_select_their_axis_and_companions_change_nothing() {
    assert_floor(&second_checklist_cases(), SECOND_FLOOR);
}

/// The least number of the 84 changes of the second list that must select their axis.
const SECOND_FLOOR: usize = 79;
