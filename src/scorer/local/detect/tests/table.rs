//! The table of risky lines and their safe variants, rule by rule and language by language.

use super::Diff;

/// `(rule, risky diff, matched safe diff)`: the rule fires on the first and not on the
/// second, for every language the rule covers.
pub(super) const TABLE: &[(&str, Diff, Diff)] = &[
    // Verification switched off.
    (
        "tls-verify-off",
        Diff::Added(
            "app/c.py",
            &["r = requests.get(url, verify=False, timeout=5)"],
        ),
        Diff::Added(
            "app/c.py",
            &["r = requests.get(url, verify=True, timeout=5)"],
        ),
    ),
    (
        "tls-verify-off",
        Diff::Added(
            "cmd/x/main.go",
            &["\tcfg := &tls.Config{InsecureSkipVerify: true}"],
        ),
        Diff::Added(
            "cmd/x/main.go",
            &["\tcfg := &tls.Config{InsecureSkipVerify: false}"],
        ),
    ),
    (
        "tls-verify-off",
        Diff::Added(
            "src/c.js",
            &["const agent = new https.Agent({ rejectUnauthorized: false });"],
        ),
        Diff::Added(
            "src/c.js",
            &["const agent = new https.Agent({ rejectUnauthorized: true });"],
        ),
    ),
    (
        "tls-verify-off",
        Diff::Added(
            "src/C.java",
            &["builder.setSSLHostnameVerifier(NoopHostnameVerifier.INSTANCE);"],
        ),
        Diff::Added(
            "src/C.java",
            &["builder.setSSLHostnameVerifier(new DefaultHostnameVerifier());"],
        ),
    ),
    (
        "tls-verify-off",
        Diff::Added(
            "lib/c.rb",
            &["http.verify_mode = OpenSSL::SSL::VERIFY_NONE"],
        ),
        Diff::Added(
            "lib/c.rb",
            &["http.verify_mode = OpenSSL::SSL::VERIFY_PEER"],
        ),
    ),
    (
        "tls-verify-off",
        Diff::Added(
            "src/c.rs",
            &["let c = Client::builder().danger_accept_invalid_certs(true).build()?;"],
        ),
        Diff::Added(
            "src/c.rs",
            &["let c = Client::builder().danger_accept_invalid_certs(false).build()?;"],
        ),
    ),
    (
        "tls-verify-off",
        Diff::Added(
            "src/c.php",
            &["curl_setopt($ch, CURLOPT_SSL_VERIFYPEER, false);"],
        ),
        Diff::Added(
            "src/c.php",
            &["curl_setopt($ch, CURLOPT_SSL_VERIFYPEER, true);"],
        ),
    ),
    (
        "tls-verify-off",
        Diff::Added(
            "src/C.cs",
            &["handler.ServerCertificateCustomValidationCallback = (m, c, ch, e) => true;"],
        ),
        Diff::Added(
            "src/C.cs",
            &[
                "handler.ServerCertificateCustomValidationCallback = (m, c, ch, e) => e == \
                        SslPolicyErrors.None;",
            ],
        ),
    ),
    (
        "host-key-off",
        Diff::Added(
            "cmd/x/main.go",
            &["\tHostKeyCallback: ssh.InsecureIgnoreHostKey(),"],
        ),
        Diff::Added(
            "cmd/x/main.go",
            &["\tHostKeyCallback: ssh.FixedHostKey(key),"],
        ),
    ),
    (
        "host-key-off",
        Diff::Added(
            "app/s.py",
            &["client.set_missing_host_key_policy(paramiko.AutoAddPolicy())"],
        ),
        Diff::Added(
            "app/s.py",
            &["client.set_missing_host_key_policy(paramiko.RejectPolicy())"],
        ),
    ),
    (
        "host-key-off",
        Diff::Added("deploy.sh", &["ssh -o StrictHostKeyChecking=no host true"]),
        Diff::Added("deploy.sh", &["ssh -o StrictHostKeyChecking=yes host true"]),
    ),
    (
        "host-key-off",
        Diff::Added(
            "src/S.java",
            &["session.setConfig(\"StrictHostKeyChecking\", \"no\");"],
        ),
        Diff::Added(
            "src/S.java",
            &["session.setConfig(\"StrictHostKeyChecking\", \"yes\");"],
        ),
    ),
    (
        "token-verify-off",
        Diff::Edit(
            "src/auth.js",
            &["const claims = jwt.verify(token, secret);"],
            &["const claims = jwt.decode(token);"],
        ),
        Diff::Edit(
            "src/auth.js",
            &["const claims = jwt.decode(token);"],
            &["const claims = jwt.verify(token, secret);"],
        ),
    ),
    (
        "token-verify-off",
        Diff::Added(
            "app/a.py",
            &["claims = jwt.decode(tok, options={\"verify_signature\": False})"],
        ),
        Diff::Added(
            "app/a.py",
            &["claims = jwt.decode(tok, key, algorithms=[\"HS256\"])"],
        ),
    ),
    (
        "token-verify-off",
        Diff::Added(
            "pkg/a.go",
            &["\ttok, _, err := parser.ParseUnverified(raw, claims)"],
        ),
        Diff::Added(
            "pkg/a.go",
            &["\ttok, err := parser.ParseWithClaims(raw, claims, keyFunc)"],
        ),
    ),
    (
        "token-verify-off",
        Diff::Added("src/A.cs", &["ValidateIssuerSigningKey = false,"]),
        Diff::Added("src/A.cs", &["ValidateIssuerSigningKey = true,"]),
    ),
    (
        "token-verify-off",
        Diff::Added("lib/a.rb", &["payload = JWT.decode(token, nil, false)"]),
        Diff::Added(
            "lib/a.rb",
            &["payload = JWT.decode(token, key, true, algorithm: 'HS256')"],
        ),
    ),
    (
        "csrf-off",
        Diff::Added("app/views.py", &["@csrf_exempt"]),
        Diff::Added("app/views.py", &["@csrf_protect"]),
    ),
    (
        "csrf-off",
        Diff::EditIn(
            "app/settings.py",
            &["MIDDLEWARE = ["],
            &["    'django.middleware.csrf.CsrfViewMiddleware',"],
            &["    # 'django.middleware.csrf.CsrfViewMiddleware',"],
            &["]"],
        ),
        Diff::EditIn(
            "app/settings.py",
            &["MIDDLEWARE = ["],
            &["    'django.middleware.common.CommonMiddleware',"],
            &["    # 'django.middleware.common.CommonMiddleware',"],
            &["]"],
        ),
    ),
    (
        "csrf-off",
        Diff::Added(
            "app/controllers/a.rb",
            &["  skip_before_action :verify_authenticity_token"],
        ),
        Diff::Added(
            "app/controllers/a.rb",
            &["  protect_from_forgery with: :exception"],
        ),
    ),
    (
        "csrf-off",
        Diff::Added("src/Sec.java", &["http.csrf().disable();"]),
        Diff::Added("src/Sec.java", &["http.csrf();"]),
    ),
    (
        "csrf-off",
        Diff::Added("src/H.cs", &["[IgnoreAntiforgeryToken]"]),
        Diff::Added("src/H.cs", &["[ValidateAntiForgeryToken]"]),
    ),
    (
        "csrf-off",
        Diff::Added("cmd/x/main.go", &["\tcop.AddInsecureBypassPattern(\"/\")"]),
        Diff::Added(
            "cmd/x/main.go",
            &["\tcop.AddInsecureBypassPattern(\"/healthz\")"],
        ),
    ),
    // Permissions, credentials, crypto.
    (
        "permissions-widened",
        Diff::Added("app/k.py", &["os.chmod(key_path, 0o777)"]),
        Diff::Added("app/k.py", &["os.chmod(key_path, 0o600)"]),
    ),
    (
        "permissions-widened",
        Diff::Added("deploy.sh", &["chmod 777 /etc/app/key.pem"]),
        Diff::Added("deploy.sh", &["chmod 600 /etc/app/key.pem"]),
    ),
    (
        "permissions-widened",
        Diff::Added("cmd/x/main.go", &["\terr := os.WriteFile(p, data, 0666)"]),
        Diff::Added("cmd/x/main.go", &["\terr := os.WriteFile(p, data, 0600)"]),
    ),
    (
        "permissions-widened",
        Diff::Added("src/k.js", &["fs.chmodSync(keyPath, 0o777);"]),
        Diff::Added("src/k.js", &["fs.chmodSync(keyPath, 0o600);"]),
    ),
    (
        "permissions-widened",
        Diff::Added(
            "src/K.java",
            &["Files.setPosixFilePermissions(p, \
                        PosixFilePermissions.fromString(\"rwxrwxrwx\"));"],
        ),
        Diff::Added(
            "src/K.java",
            &["Files.setPosixFilePermissions(p, \
                        PosixFilePermissions.fromString(\"rw-------\"));"],
        ),
    ),
    (
        "permissions-widened",
        Diff::Added("lib/k.rb", &["File.chmod(0777, path)"]),
        Diff::Added("lib/k.rb", &["File.chmod(0600, path)"]),
    ),
    (
        "permissions-widened",
        Diff::Added("src/k.php", &["chmod($path, 0777);"]),
        Diff::Added("src/k.php", &["chmod($path, 0600);"]),
    ),
    (
        "permissions-widened",
        Diff::Added(
            "src/k.rs",
            &["fs::set_permissions(&p, Permissions::from_mode(0o777))?;"],
        ),
        Diff::Added(
            "src/k.rs",
            &["fs::set_permissions(&p, Permissions::from_mode(0o600))?;"],
        ),
    ),
    (
        "credential-logged",
        Diff::Added("app/l.py", &["logger.info(f\"login with token={token}\")"]),
        Diff::Added(
            "app/l.py",
            &["logger.info(\"token refreshed for %s\", user.id)"],
        ),
    ),
    (
        "credential-logged",
        Diff::Added("pkg/l.go", &["\tlog.Printf(\"password: %s\", password)"]),
        Diff::Added("pkg/l.go", &["\tlog.Printf(\"user: %s\", user)"]),
    ),
    (
        "credential-logged",
        Diff::Added("src/l.js", &["console.log('secret', apiKey);"]),
        Diff::Added("src/l.js", &["console.log('user', userName);"]),
    ),
    (
        "credential-logged",
        Diff::Added("src/L.java", &["log.info(\"auth \" + password);"]),
        Diff::Added("src/L.java", &["log.info(\"auth for \" + user);"]),
    ),
    (
        "credential-logged",
        Diff::Added("pkg/c.go", &["\tPassword string `json:\"password\"`"]),
        Diff::Added("pkg/c.go", &["\tPassword string `json:\"-\"`"]),
    ),
    (
        "weak-crypto",
        Diff::Added("app/h.py", &["digest = hashlib.md5(data).hexdigest()"]),
        Diff::Added("app/h.py", &["digest = hashlib.sha256(data).hexdigest()"]),
    ),
    (
        "weak-crypto",
        Diff::Added(
            "app/k.py",
            &["key = rsa.generate_private_key(public_exponent=65537, key_size=1024)"],
        ),
        Diff::Added(
            "app/k.py",
            &["key = rsa.generate_private_key(public_exponent=65537, key_size=2048)"],
        ),
    ),
    (
        "weak-crypto",
        Diff::Added("pkg/h.go", &["\th := md5.New()"]),
        Diff::Added("pkg/h.go", &["\th := sha256.New()"]),
    ),
    (
        "weak-crypto",
        Diff::Added("src/h.js", &["const h = crypto.createHash('md5');"]),
        Diff::Added("src/h.js", &["const h = crypto.createHash('sha256');"]),
    ),
    (
        "weak-crypto",
        Diff::Added(
            "src/H.java",
            &["MessageDigest md = MessageDigest.getInstance(\"MD5\");"],
        ),
        Diff::Added(
            "src/H.java",
            &["MessageDigest md = MessageDigest.getInstance(\"SHA-256\");"],
        ),
    ),
    (
        "weak-crypto",
        Diff::Added("src/H.cs", &["var md5 = new MD5CryptoServiceProvider();"]),
        Diff::Added("src/H.cs", &["var sha = SHA256.Create();"]),
    ),
    (
        "weak-crypto",
        Diff::Added("lib/h.rb", &["d = Digest::MD5.hexdigest(password)"]),
        Diff::Added("lib/h.rb", &["d = Digest::SHA256.hexdigest(password)"]),
    ),
    (
        "weak-crypto",
        Diff::Added("src/h.php", &["$hash = md5($password);"]),
        Diff::Added(
            "src/h.php",
            &["$hash = password_hash($password, PASSWORD_DEFAULT);"],
        ),
    ),
    (
        "root-cert-trusted",
        Diff::Added(
            "src/T.cs",
            &[
                "var store = new X509Store(StoreName.Root, StoreLocation.CurrentUser);",
                "store.Add(cert);",
            ],
        ),
        Diff::Added(
            "src/T.cs",
            &[
                "var store = new X509Store(StoreName.My, StoreLocation.CurrentUser);",
                "store.Add(cert);",
            ],
        ),
    ),
    // Input reaching sinks.
    (
        "sql-from-string",
        Diff::Added(
            "app/db.py",
            &["cur.execute(f\"SELECT * FROM users WHERE name = '{name}'\")"],
        ),
        Diff::Added(
            "app/db.py",
            &["cur.execute(\"SELECT * FROM users WHERE name = %s\", (name,))"],
        ),
    ),
    (
        "sql-from-string",
        Diff::Added(
            "src/Db.java",
            &["stmt.executeQuery(\"SELECT * FROM t WHERE id = \" + id);"],
        ),
        Diff::Added(
            "src/Db.java",
            &[
                "PreparedStatement ps = conn.prepareStatement(\"SELECT * FROM t WHERE id = \
                        ?\");",
            ],
        ),
    ),
    (
        "sql-from-string",
        Diff::Added(
            "src/Q.cs",
            &["var cmd = new SqlCommand($\"SELECT * FROM t WHERE id = {id}\");"],
        ),
        Diff::Added(
            "src/Q.cs",
            &["var cmd = new SqlCommand(\"SELECT * FROM t WHERE id = @id\");"],
        ),
    ),
    (
        "sql-from-string",
        Diff::Added(
            "src/q.php",
            &["$r = $db->query(\"SELECT * FROM t WHERE id = $id\");"],
        ),
        Diff::Added(
            "src/q.php",
            &["$r = $db->query(\"SELECT * FROM t WHERE id = \" . (int) $id);"],
        ),
    ),
    (
        "sql-from-string",
        Diff::Added(
            "pkg/q.go",
            &["\trows, err := db.Query(\"SELECT * FROM t WHERE name = '\" + name + \"'\")"],
        ),
        Diff::Added(
            "pkg/q.go",
            &["\trows, err := db.Query(\"SELECT * FROM t WHERE name = $1\", name)"],
        ),
    ),
    (
        "sql-from-string",
        Diff::Added(
            "src/q.js",
            &["const rows = await db.query(`SELECT * FROM t WHERE id = ${req.params.id}`);"],
        ),
        Diff::Added(
            "src/q.js",
            &["const rows = await db.query('SELECT * FROM t WHERE id = ?', [req.params.id]);"],
        ),
    ),
    (
        "sql-from-string",
        Diff::Added(
            "lib/q.rb",
            &["User.find_by_sql(\"SELECT * FROM users WHERE name = '#{name}'\")"],
        ),
        Diff::Added("lib/q.rb", &["User.where(name: name)"]),
    ),
    (
        "command-from-string",
        Diff::Added("app/run.py", &["os.system(\"rm -rf \" + path)"]),
        Diff::Added(
            "app/run.py",
            &["subprocess.run([\"rm\", \"-rf\", path], check=True)"],
        ),
    ),
    (
        "command-from-string",
        Diff::Added("app/run.py", &["subprocess.run(cmd, shell=True)"]),
        Diff::Added("app/run.py", &["subprocess.run(cmd, shell=False)"]),
    ),
    (
        "command-from-string",
        Diff::Added(
            "src/run.js",
            &[
                "const cp = require('child_process');",
                "cp.exec(`ls ${dir}`);",
            ],
        ),
        Diff::Added(
            "src/run.js",
            &[
                "const cp = require('child_process');",
                "cp.execFile('ls', [dir]);",
            ],
        ),
    ),
    (
        "command-from-string",
        Diff::Added(
            "pkg/run.go",
            &["\tout, err := exec.Command(\"sh\", \"-c\", cmd).Output()"],
        ),
        Diff::Added(
            "pkg/run.go",
            &["\tout, err := exec.Command(\"ls\", dir).Output()"],
        ),
    ),
    (
        "command-from-string",
        Diff::Added(
            "src/Run.java",
            &["Process p = Runtime.getRuntime().exec(\"ls \" + dir);"],
        ),
        Diff::Added(
            "src/Run.java",
            &["Process p = new ProcessBuilder(\"ls\", dir).start();"],
        ),
    ),
    (
        "command-from-string",
        Diff::Added("lib/run.rb", &["system(\"ls #{dir}\")"]),
        Diff::Added("lib/run.rb", &["system(\"ls\", dir)"]),
    ),
    (
        "command-from-string",
        Diff::Added("src/run.php", &["$out = shell_exec(\"ls $dir\");"]),
        Diff::Added(
            "src/run.php",
            &["$out = shell_exec('ls ' . escapeshellarg($dir));"],
        ),
    ),
    (
        "command-from-string",
        Diff::Added(
            "src/Run.cs",
            &["Process.Start(\"cmd.exe\", \"/c \" + arg);"],
        ),
        Diff::Added("src/Run.cs", &["Process.Start(\"notepad.exe\");"]),
    ),
    (
        "eval-from-string",
        Diff::Added("app/e.py", &["result = eval(expr)"]),
        Diff::Added("app/e.py", &["result = ast.literal_eval(expr)"]),
    ),
    (
        "eval-from-string",
        Diff::Added("src/e.js", &["const v = eval(code);"]),
        Diff::Added("src/e.js", &["const v = JSON.parse(code);"]),
    ),
    (
        "eval-from-string",
        Diff::Added("lib/e.rb", &["value = eval(params[:expr])"]),
        Diff::Added("lib/e.rb", &["value = Integer(params[:expr])"]),
    ),
    (
        "eval-from-string",
        Diff::Added("src/e.php", &["eval($code);"]),
        Diff::Added("src/e.php", &["echo intval($code);"]),
    ),
    (
        "request-data-in-sink",
        Diff::Added("app/f.py", &["data = open(request.args[\"name\"]).read()"]),
        Diff::Added("app/f.py", &["data = open(\"static/index.html\").read()"]),
    ),
    (
        "request-data-in-sink",
        Diff::Added(
            "pkg/r.go",
            &["\thttp.Redirect(w, r, r.URL.Query().Get(\"next\"), http.StatusFound)"],
        ),
        Diff::Added(
            "pkg/r.go",
            &["\thttp.Redirect(w, r, \"/home\", http.StatusFound)"],
        ),
    ),
    (
        "request-data-in-sink",
        Diff::Added("src/r.js", &["res.redirect(req.query.next);"]),
        Diff::Added("src/r.js", &["res.redirect('/home');"]),
    ),
    (
        "request-data-in-sink",
        Diff::Added("src/r.php", &["$body = file_get_contents($_GET['url']);"]),
        Diff::Added("src/r.php", &["$body = file_get_contents('config.json');"]),
    ),
    (
        "request-data-in-sink",
        Diff::Added(
            "src/R.java",
            &["File f = new File(request.getParameter(\"name\"));"],
        ),
        Diff::Added("src/R.java", &["File f = new File(\"static.txt\");"]),
    ),
    (
        "markup-unescaped",
        Diff::Added("app/v.py", &["html = mark_safe(user_input)"]),
        Diff::Added("app/v.py", &["html = escape(user_input)"]),
    ),
    (
        "markup-unescaped",
        Diff::Added("src/v.js", &["el.innerHTML = name;"]),
        Diff::Added("src/v.js", &["el.textContent = name;"]),
    ),
    (
        "markup-unescaped",
        Diff::Added("src/v.php", &["echo $name;"]),
        Diff::Added("src/v.php", &["echo esc_html( $name );"]),
    ),
    (
        "markup-unescaped",
        Diff::Added("app/helpers/v.rb", &["  text.html_safe"]),
        Diff::Added("app/helpers/v.rb", &["  h(text)"]),
    ),
    (
        "markup-unescaped",
        Diff::Added("Views/V.cshtml", &["@Html.Raw(Model.Bio)"]),
        Diff::Added("Views/V.cshtml", &["@Model.Bio"]),
    ),
    (
        "markup-unescaped",
        Diff::Created(
            "cmd/web/main.go",
            &[
                "import (",
                "\t\"net/http\"",
                "\t\"text/template\"",
                ")",
                "func h(w http.ResponseWriter, r *http.Request) {",
                "\tt.Execute(w, r.FormValue(\"n\"))",
                "}",
            ],
        ),
        Diff::Created(
            "cmd/web/main.go",
            &[
                "import (",
                "\t\"net/http\"",
                "\t\"html/template\"",
                ")",
                "func h(w http.ResponseWriter, r *http.Request) {",
                "\tt.Execute(w, r.FormValue(\"n\"))",
                "}",
            ],
        ),
    ),
    (
        "unsafe-deserialize",
        Diff::Added("app/load.py", &["obj = pickle.loads(blob)"]),
        Diff::Added("app/load.py", &["obj = json.loads(blob)"]),
    ),
    (
        "unsafe-deserialize",
        Diff::Added(
            "app/load.py",
            &["data = yaml.load(stream, Loader=yaml.FullLoader)"],
        ),
        Diff::Added("app/load.py", &["data = yaml.safe_load(stream)"]),
    ),
    (
        "unsafe-deserialize",
        Diff::Added("lib/load.rb", &["obj = Marshal.load(blob)"]),
        Diff::Added("lib/load.rb", &["obj = JSON.parse(blob)"]),
    ),
    (
        "unsafe-deserialize",
        Diff::Added(
            "src/Load.java",
            &["ObjectInputStream in = new ObjectInputStream(socket.getInputStream());"],
        ),
        Diff::Added(
            "src/Load.java",
            &["DataInputStream in = new DataInputStream(socket.getInputStream());"],
        ),
    ),
    (
        "unsafe-deserialize",
        Diff::Added(
            "src/Load.cs",
            &[
                "var f = new BinaryFormatter();",
                "var o = f.Deserialize(stream);",
            ],
        ),
        Diff::Added(
            "src/Load.cs",
            &["var o = JsonSerializer.Deserialize<Order>(stream);"],
        ),
    ),
    (
        "unsafe-deserialize",
        Diff::Added("src/load.php", &["$o = unserialize($data);"]),
        Diff::Added(
            "src/load.php",
            &["$o = unserialize($data, ['allowed_classes' => false]);"],
        ),
    ),
    (
        "unsafe-deserialize",
        Diff::Added("src/load.js", &["const o = serialize.unserialize(body);"]),
        Diff::Added("src/load.js", &["const o = JSON.parse(body);"]),
    ),
    (
        "archive-path-unchecked",
        Diff::Added(
            "app/x.py",
            &[
                "with tarfile.open(path) as tar:",
                "    tar.extractall(dest)",
            ],
        ),
        Diff::Added(
            "app/x.py",
            &[
                "with tarfile.open(path) as tar:",
                "    tar.extractall(dest, filter=\"data\")",
            ],
        ),
    ),
    (
        "archive-path-unchecked",
        Diff::Added(
            "pkg/unzip.go",
            &[
                "\tfor _, f := range zipReader.File {",
                "\t\tp := filepath.Join(dest, f.Name)",
            ],
        ),
        Diff::Added(
            "pkg/unzip.go",
            &[
                "\tfor _, f := range zipReader.File {",
                "\t\tp := filepath.Join(dest, f.Name)",
                "\t\tif !strings.HasPrefix(p, dest) {",
            ],
        ),
    ),
    (
        "archive-path-unchecked",
        Diff::Added(
            "src/Unzip.java",
            &[
                "ZipEntry entry = zis.getNextEntry();",
                "File out = new File(dir, entry.getName());",
            ],
        ),
        Diff::Added(
            "src/Unzip.java",
            &[
                "ZipEntry entry = zis.getNextEntry();",
                "File out = new File(dir, entry.getName());",
                "if (!out.getCanonicalPath().startsWith(base)) throw new IOException();",
            ],
        ),
    ),
    (
        "input-validation-off",
        Diff::Added("src/C.cs", &["[ValidateInput(false)]"]),
        Diff::Added("src/C.cs", &["[ValidateInput(true)]"]),
    ),
    (
        "size-limit-missing",
        Diff::Added(
            "pkg/h.go",
            &[
                "func h(w http.ResponseWriter, r *http.Request) {",
                "\tbody, err := io.ReadAll(r.Body)",
            ],
        ),
        Diff::Added(
            "pkg/h.go",
            &[
                "func h(w http.ResponseWriter, r *http.Request) {",
                "\tr.Body = http.MaxBytesReader(w, r.Body, 1<<20)",
                "\tbody, err := io.ReadAll(r.Body)",
            ],
        ),
    ),
    // Errors.
    (
        "error-swallowed",
        Diff::Added(
            "app/jobs.py",
            &["try:", "    run()", "except Exception:", "    pass"],
        ),
        Diff::Added(
            "app/jobs.py",
            &[
                "try:",
                "    run()",
                "except Exception:",
                "    log.exception(\"run failed\")",
            ],
        ),
    ),
    (
        "error-swallowed",
        Diff::Added("src/api.ts", &["  } catch (e) {}"]),
        Diff::Added(
            "src/api.ts",
            &["  } catch (e) {", "    logger.error(e);", "  }"],
        ),
    ),
    (
        "error-swallowed",
        Diff::Added("src/A.java", &["} catch (IOException e) {", "}"]),
        Diff::Added(
            "src/A.java",
            &[
                "} catch (IOException e) {",
                "    throw new UncheckedIOException(e);",
                "}",
            ],
        ),
    ),
    (
        "error-swallowed",
        Diff::Added("src/A.cs", &["catch (Exception) { }"]),
        Diff::Added(
            "src/A.cs",
            &["catch (Exception ex) { log.Error(ex); throw; }"],
        ),
    ),
    (
        "error-swallowed",
        Diff::Added("pkg/a.go", &["\tif err != nil {", "\t}"]),
        Diff::Added("pkg/a.go", &["\tif err != nil {", "\t\treturn err", "\t}"]),
    ),
    (
        "error-swallowed",
        Diff::Added("lib/x.rb", &["value = Integer(s) rescue nil"]),
        Diff::Added("lib/x.rb", &["value = Integer(s, exception: false)"]),
    ),
    (
        "error-swallowed",
        Diff::Added("src/x.php", &["$data = @file_get_contents($path);"]),
        Diff::Added("src/x.php", &["$data = file_get_contents($path);"]),
    ),
    (
        "error-check-removed",
        Diff::EditIn(
            "pkg/a.go",
            &["\terr := save(x)"],
            &["\tif err != nil {", "\t\treturn err", "\t}"],
            &[],
            &["\treturn nil"],
        ),
        Diff::EditIn(
            "pkg/a.go",
            &["\terr := save(x)"],
            &["\tif err != nil {", "\t\treturn err", "\t}"],
            &[
                "\tif err != nil {",
                "\t\treturn fmt.Errorf(\"save: %w\", err)",
                "\t}",
            ],
            &["\treturn nil"],
        ),
    ),
    (
        "error-discarded",
        Diff::Added("src/x.rs", &["let _ = fs::remove_file(&path);"]),
        Diff::Added("src/x.rs", &["fs::remove_file(&path)?;"]),
    ),
    (
        "error-discarded",
        Diff::Added("pkg/x.go", &["\t_ = os.Remove(p)"]),
        Diff::Added("pkg/x.go", &["\tif err := os.Remove(p); err != nil {"]),
    ),
    (
        "error-discarded",
        Diff::Added("src/X.cs", &["int.TryParse(s, out n);"]),
        Diff::Added("src/X.cs", &["if (!int.TryParse(s, out n)) return;"]),
    ),
    (
        "error-discarded",
        Diff::Added("src/X.java", &["file.delete();"]),
        Diff::Added(
            "src/X.java",
            &["if (!file.delete()) throw new IOException(\"delete\");"],
        ),
    ),
    (
        "jump-in-finally",
        Diff::Added(
            "src/F.java",
            &[
                "  try {",
                "    work();",
                "  } finally {",
                "    return;",
                "  }",
            ],
        ),
        Diff::Added(
            "src/F.java",
            &[
                "  try {",
                "    work();",
                "  } finally {",
                "    close();",
                "  }",
            ],
        ),
    ),
    (
        "jump-in-finally",
        Diff::Added("src/f.js", &["p.finally(() => { return 2 });"]),
        Diff::Added("src/f.js", &["p.finally(() => { cleanup() });"]),
    ),
    (
        "jump-in-finally",
        Diff::Added(
            "app/f.py",
            &["try:", "    work()", "finally:", "    return None"],
        ),
        Diff::Added(
            "app/f.py",
            &["try:", "    work()", "finally:", "    close()"],
        ),
    ),
    (
        "jump-in-finally",
        Diff::Added(
            "lib/f.rb",
            &["begin", "  work", "ensure", "  return x", "end"],
        ),
        Diff::Added(
            "lib/f.rb",
            &["begin", "  work", "ensure", "  file.close", "end"],
        ),
    ),
    // Lifecycle.
    (
        "resource-unclosed",
        Diff::Added("app/f.py", &["f = open(path)", "data = f.read()"]),
        Diff::Added(
            "app/f.py",
            &["with open(path) as f:", "    data = f.read()"],
        ),
    ),
    (
        "resource-unclosed",
        Diff::Added(
            "pkg/f.go",
            &["\tf, err := os.Open(p)", "\tdata, err := io.ReadAll(f)"],
        ),
        Diff::Added("pkg/f.go", &["\tf, err := os.Open(p)", "\tdefer f.Close()"]),
    ),
    (
        "resource-unclosed",
        Diff::Added(
            "src/F.java",
            &[
                "FileInputStream in = new FileInputStream(file);",
                "int b = in.read();",
            ],
        ),
        Diff::Added(
            "src/F.java",
            &[
                "try (FileInputStream in = new FileInputStream(file)) {",
                "  int b = in.read();",
                "}",
            ],
        ),
    ),
    (
        "resource-unclosed",
        Diff::Added(
            "src/F.cs",
            &["var r = new StreamReader(path);", "var s = r.ReadToEnd();"],
        ),
        Diff::Added(
            "src/F.cs",
            &[
                "using var r = new StreamReader(path);",
                "var s = r.ReadToEnd();",
            ],
        ),
    ),
    (
        "resource-unclosed",
        Diff::Added("app/t.py", &["    asyncio.create_task(poll())"]),
        Diff::Added(
            "app/t.py",
            &["    task = asyncio.create_task(poll())", "    await task"],
        ),
    ),
    (
        "unlock-removed",
        Diff::Edit(
            "internal/c.go",
            &["\tmu.Lock()", "\tdefer mu.Unlock()"],
            &["\tmu.Lock()"],
        ),
        Diff::Edit(
            "internal/c.go",
            &["\tmu.Lock()", "\tdefer mu.Unlock()"],
            &["\tmu.Lock()", "\tdefer func() { mu.Unlock() }()"],
        ),
    ),
    (
        "unlock-removed",
        Diff::Added("src/L.java", &["lock.lock();", "count++;"]),
        Diff::Added(
            "src/L.java",
            &[
                "lock.lock();",
                "try { count++; } finally { lock.unlock(); }",
            ],
        ),
    ),
    (
        "unlock-removed",
        Diff::Added("app/l.py", &["lock.acquire()", "counter += 1"]),
        Diff::Added("app/l.py", &["with lock:", "    counter += 1"]),
    ),
    (
        "cancel-discarded",
        Diff::Added(
            "cmd/x/main.go",
            &["\tctx, _ := context.WithTimeout(ctx, time.Second)"],
        ),
        Diff::Added(
            "cmd/x/main.go",
            &[
                "\tctx, cancel := context.WithTimeout(ctx, time.Second)",
                "\tdefer cancel()",
            ],
        ),
    ),
    (
        "context-dropped",
        Diff::Added(
            "pkg/w.go",
            &[
                "func work(ctx context.Context) error {",
                "\treturn fetch(context.Background())",
                "}",
            ],
        ),
        Diff::Added(
            "pkg/w.go",
            &[
                "func work(ctx context.Context) error {",
                "\treturn fetch(ctx)",
                "}",
            ],
        ),
    ),
    (
        "context-dropped",
        Diff::Added(
            "pkg/w.go",
            &[
                "func poll(ctx context.Context) {",
                "\tfor {",
                "\t\ttick()",
                "\t}",
                "}",
            ],
        ),
        Diff::Added(
            "pkg/w.go",
            &[
                "func poll(ctx context.Context) {",
                "\tfor {",
                "\t\tif ctx.Err() != nil {",
                "\t\t\treturn",
                "\t\t}",
                "\t\ttick()",
                "\t}",
                "}",
            ],
        ),
    ),
    (
        "timeout-removed",
        Diff::Added("app/h.py", &["r = requests.get(url)"]),
        Diff::Added("app/h.py", &["r = requests.get(url, timeout=10)"]),
    ),
    (
        "timeout-removed",
        Diff::Added("cmd/x/main.go", &["\thttp.ListenAndServe(\":8080\", mux)"]),
        Diff::Added(
            "cmd/x/main.go",
            &["\tsrv := &http.Server\
                        {Addr: \":8080\", Handler: mux, ReadHeaderTimeout: 5 * time.Second}"],
        ),
    ),
    // Test tampering.
    (
        "test-skipped",
        Diff::EditIn(
            "tests/test_x.py",
            &[],
            &[],
            &["@pytest.mark.skip(reason=\"flaky\")"],
            &["def test_parse():", "    assert parse(\"1\") == 1"],
        ),
        Diff::EditIn(
            "tests/test_x.py",
            &[],
            &["@pytest.mark.skip(reason=\"flaky\")"],
            &[],
            &["def test_parse():", "    assert parse(\"1\") == 1"],
        ),
    ),
    (
        "test-skipped",
        Diff::EditIn(
            "tests/test_x.py",
            &[],
            &[],
            &["    @unittest.skip(\"later\")"],
            &["    def test_parse(self):"],
        ),
        Diff::Added(
            "tests/test_x.py",
            &[
                "    @unittest.skip(\"needs network\")",
                "    def test_new_download(self):",
                "        self.assertTrue(download())",
            ],
        ),
    ),
    (
        "test-skipped",
        Diff::Edit(
            "src/a.test.ts",
            &["it('parses', () => {"],
            &["it.skip('parses', () => {"],
        ),
        Diff::Edit(
            "src/a.test.ts",
            &["it.skip('parses', () => {"],
            &["it('parses', () => {"],
        ),
    ),
    (
        "test-skipped",
        Diff::Edit(
            "src/a.test.js",
            &["describe('parser', () => {"],
            &["xdescribe('parser', () => {"],
        ),
        Diff::Edit(
            "src/a.test.js",
            &["xdescribe('parser', () => {"],
            &["describe('parser', () => {"],
        ),
    ),
    (
        "test-skipped",
        Diff::EditIn(
            "pkg/x_test.go",
            &["func TestParse(t *testing.T) {"],
            &[],
            &["\tt.Skip(\"broken\")"],
            &["\tgot := Parse(\"1\")"],
        ),
        Diff::EditIn(
            "pkg/x_test.go",
            &["func TestParse(t *testing.T) {"],
            &["\tt.Skip(\"broken\")"],
            &[],
            &["\tgot := Parse(\"1\")"],
        ),
    ),
    (
        "test-skipped",
        Diff::EditIn(
            "src/test/java/a/ParserTest.java",
            &["  @Test"],
            &[],
            &["  @Disabled(\"flaky\")"],
            &["  void parses() {"],
        ),
        Diff::EditIn(
            "src/test/java/a/ParserTest.java",
            &["  @Test"],
            &["  @Disabled(\"flaky\")"],
            &[],
            &["  void parses() {"],
        ),
    ),
    (
        "test-skipped",
        Diff::EditIn(
            "src/test/java/a/ParserTest.java",
            &[],
            &[],
            &["  @Ignore"],
            &["  @Test", "  public void parses() {"],
        ),
        Diff::EditIn(
            "src/test/java/a/ParserTest.java",
            &[],
            &["  @Ignore"],
            &[],
            &["  @Test", "  public void parses() {"],
        ),
    ),
    (
        "test-skipped",
        Diff::Edit(
            "spec/parser_spec.rb",
            &["  it 'parses' do"],
            &["  xit 'parses' do"],
        ),
        Diff::Edit(
            "spec/parser_spec.rb",
            &["  xit 'parses' do"],
            &["  it 'parses' do"],
        ),
    ),
    (
        "test-skipped",
        Diff::EditIn(
            "spec/parser_spec.rb",
            &["  it 'parses' do"],
            &[],
            &["    skip 'broken on CI'"],
            &["    expect(parse('1')).to eq(1)"],
        ),
        Diff::EditIn(
            "spec/parser_spec.rb",
            &["  it 'parses' do"],
            &["    pending 'broken on CI'"],
            &[],
            &["    expect(parse('1')).to eq(1)"],
        ),
    ),
    (
        "test-skipped",
        Diff::EditIn(
            "tests/parse.rs",
            &["#[test]"],
            &[],
            &["#[ignore]"],
            &["fn parses() {"],
        ),
        Diff::EditIn(
            "tests/parse.rs",
            &["#[test]"],
            &["#[ignore]"],
            &[],
            &["fn parses() {"],
        ),
    ),
    (
        "test-skipped",
        Diff::Edit(
            "tests/Unit/ParserTests.cs",
            &["    [Fact]"],
            &["    [Fact(Skip = \"flaky\")]"],
        ),
        Diff::Edit(
            "tests/Unit/ParserTests.cs",
            &["    [Fact(Skip = \"flaky\")]"],
            &["    [Fact]"],
        ),
    ),
    (
        "test-skipped",
        Diff::EditIn(
            "tests/Unit/ParserTests.cs",
            &["    [Test]"],
            &[],
            &["    [Ignore(\"flaky\")]"],
            &["    public void Parses() {"],
        ),
        Diff::EditIn(
            "tests/Unit/ParserTests.cs",
            &["    [Test]"],
            &["    [Ignore(\"flaky\")]"],
            &[],
            &["    public void Parses() {"],
        ),
    ),
    (
        "test-skipped",
        Diff::EditIn(
            "tests/Unit/ParserTest.php",
            &["    public function testParses(): void", "    {"],
            &[],
            &["        $this->markTestSkipped('flaky');"],
            &["        $this->assertSame(1, parse('1'));"],
        ),
        Diff::EditIn(
            "tests/Unit/ParserTest.php",
            &["    public function testParses(): void", "    {"],
            &["        $this->markTestSkipped('flaky');"],
            &[],
            &["        $this->assertSame(1, parse('1'));"],
        ),
    ),
    (
        "test-focused",
        Diff::Edit(
            "src/a.test.ts",
            &["it('works', () => {"],
            &["it.only('works', () => {"],
        ),
        Diff::Edit(
            "src/a.test.ts",
            &["it.only('works', () => {"],
            &["it('works', () => {"],
        ),
    ),
    (
        "test-focused",
        Diff::Edit(
            "spec/a_spec.rb",
            &["  it 'works' do"],
            &["  fit 'works' do"],
        ),
        Diff::Edit(
            "spec/a_spec.rb",
            &["  fit 'works' do"],
            &["  it 'works' do"],
        ),
    ),
    (
        "test-deleted",
        Diff::EditIn(
            "tests/test_x.py",
            &["import parse", ""],
            &["def test_rejects_empty():", "    assert not parse(\"\")"],
            &[],
            &["def test_other():"],
        ),
        Diff::Two(
            &Diff::EditIn(
                "tests/test_x.py",
                &["import parse", ""],
                &["def test_rejects_empty():", "    assert not parse(\"\")"],
                &[],
                &["def test_other():"],
            ),
            &Diff::Created(
                "tests/test_parse_empty.py",
                &["def test_rejects_empty():", "    assert not parse(\"\")"],
            ),
        ),
    ),
    (
        "test-deleted",
        Diff::EditIn(
            "src/p.test.js",
            &["describe('p', () => {"],
            &[
                "  it('rejects empty', () => {",
                "    expect(parse('')).toBeNull();",
                "  });",
            ],
            &[],
            &["});"],
        ),
        Diff::EditIn(
            "src/p.test.js",
            &["describe('p', () => {"],
            &[
                "  it('rejects empty', () => {",
                "    expect(parse('')).toBeNull();",
                "  });",
            ],
            &[
                "  it('rejects an empty input', () => {",
                "    expect(parse('')).toBeNull();",
                "  });",
            ],
            &["});"],
        ),
    ),
    (
        "test-deleted",
        Diff::EditIn(
            "pkg/p_test.go",
            &["package p", ""],
            &[
                "func TestRejectsEmpty(t *testing.T) {",
                "\tif Parse(\"\") != nil {",
                "\t\tt.Fatal(\"want nil\")",
                "\t}",
                "}",
            ],
            &[],
            &[""],
        ),
        Diff::Two(
            &Diff::EditIn(
                "pkg/p_test.go",
                &["package p", ""],
                &[
                    "func TestRejectsEmpty(t *testing.T) {",
                    "\tif Parse(\"\") != nil {",
                    "\t\tt.Fatal(\"want nil\")",
                    "\t}",
                    "}",
                ],
                &[],
                &[""],
            ),
            &Diff::EditIn(
                "pkg/p.go",
                &["package p", ""],
                &["func Parse(s string) *Node {", "\treturn nil", "}"],
                &[],
                &[""],
            ),
        ),
    ),
    (
        "test-file-deleted",
        Diff::Deleted(
            "tests/test_parser.py",
            &[
                "def test_parses():",
                "    assert parse(\"1\") == 1",
                "def test_rejects():",
                "    assert parse(\"x\") is None",
            ],
        ),
        Diff::Two(
            &Diff::Deleted(
                "tests/test_parser.py",
                &["def test_parses():", "    assert parse(\"1\") == 1"],
            ),
            &Diff::Deleted("app/parser.py", &["def parse(s):", "    return int(s)"]),
        ),
    ),
    (
        "assertion-removed",
        Diff::EditIn(
            "tests/test_x.py",
            &["def test_parse():"],
            &["    assert parse(\"1\") == 1"],
            &["    # assert parse(\"1\") == 1"],
            &["    assert parse(\"2\") == 2"],
        ),
        Diff::EditIn(
            "tests/test_x.py",
            &["def test_parse():"],
            &["    assert parse(\"1\") == 1"],
            &["    assert parse(\"1\") == 1  # the simplest case"],
            &["    assert parse(\"2\") == 2"],
        ),
    ),
    (
        "assertion-loosened",
        Diff::Edit(
            "tests/test_x.py",
            &["    assert result == 42"],
            &["    assert result is not None"],
        ),
        Diff::Edit(
            "tests/test_x.py",
            &["    assert result is not None"],
            &["    assert result == 42"],
        ),
    ),
    (
        "assertion-loosened",
        Diff::Edit(
            "src/a.test.ts",
            &["  expect(total).toBe(3);"],
            &["  expect(total).toBeDefined();"],
        ),
        Diff::Edit(
            "src/a.test.ts",
            &["  expect(total).toBeDefined();"],
            &["  expect(total).toBe(3);"],
        ),
    ),
    (
        "assertion-loosened",
        Diff::Edit(
            "src/test/java/a/ATest.java",
            &["    assertEquals(\"ok\", result);"],
            &["    assertNotNull(result);"],
        ),
        Diff::Edit(
            "src/test/java/a/ATest.java",
            &["    assertNotNull(result);"],
            &["    assertEquals(\"ok\", result);"],
        ),
    ),
    (
        "assertion-loosened",
        Diff::Edit(
            "pkg/a_test.go",
            &["\tassert.Equal(t, 3, got)"],
            &["\tassert.NotNil(t, got)"],
        ),
        Diff::Edit(
            "pkg/a_test.go",
            &["\tassert.NotNil(t, got)"],
            &["\tassert.Equal(t, 3, got)"],
        ),
    ),
    (
        "assertion-loosened",
        Diff::Edit(
            "tests/a.rs",
            &["    assert_eq!(parse(\"1\"), Ok(1));"],
            &["    assert!(parse(\"1\").is_ok());"],
        ),
        Diff::Edit(
            "tests/a.rs",
            &["    assert!(parse(\"1\").is_ok());"],
            &["    assert_eq!(parse(\"1\"), Ok(1));"],
        ),
    ),
    (
        "assertion-loosened",
        Diff::Edit(
            "tests/test_n.py",
            &["    assert_allclose(x, y, rtol=1e-12)"],
            &["    assert_allclose(x, y, rtol=1e-3)"],
        ),
        Diff::Edit(
            "tests/test_n.py",
            &["    assert_allclose(x, y, rtol=1e-3)"],
            &["    assert_allclose(x, y, rtol=1e-12)"],
        ),
    ),
    (
        "assertion-caught",
        Diff::Added(
            "tests/test_x.py",
            &[
                "    try:",
                "        assert parse(\"1\") == 1",
                "    except AssertionError:",
                "        pass",
            ],
        ),
        Diff::Added(
            "tests/test_x.py",
            &[
                "    with pytest.raises(ValueError):",
                "        parse(\"x\")",
            ],
        ),
    ),
    (
        "expectation-changed",
        Diff::Edit(
            "tests/test_x.py",
            &["    assert total(cart) == 30"],
            &["    assert total(cart) == 35"],
        ),
        Diff::Two(
            &Diff::Edit(
                "tests/test_x.py",
                &["    assert total(cart) == 30"],
                &["    assert total(cart) == 35"],
            ),
            &Diff::Edit(
                "app/cart.py",
                &["    return sum(prices)"],
                &["    return sum(prices) + shipping"],
            ),
        ),
    ),
    (
        "snapshot-rewritten",
        Diff::Edit(
            "src/__snapshots__/a.test.js.snap",
            &["a1", "a2", "a3", "a4", "a5", "a6", "a7", "a8", "a9", "a10"],
            &["b1", "b2", "b3", "b4", "b5", "b6", "b7", "b8", "b9", "b10"],
        ),
        Diff::Created(
            "src/__snapshots__/b.test.js.snap",
            &[
                "b1", "b2", "b3", "b4", "b5", "b6", "b7", "b8", "b9", "b10", "b11",
            ],
        ),
    ),
    (
        "ci-tolerant",
        Diff::Added(
            ".github/workflows/ci.yml",
            &["        continue-on-error: true"],
        ),
        Diff::Added(
            ".github/workflows/ci.yml",
            &["        continue-on-error: false"],
        ),
    ),
    (
        "ci-tolerant",
        Diff::Added(".github/workflows/ci.yml", &["      - run: pytest || true"]),
        Diff::Added(".github/workflows/ci.yml", &["      - run: pytest -x"]),
    ),
    (
        "ci-tolerant",
        Diff::Added(".gitlab-ci.yml", &["  allow_failure: true"]),
        Diff::Added(".gitlab-ci.yml", &["  allow_failure: false"]),
    ),
    (
        "ci-tolerant",
        Diff::Edit("setup.cfg", &["fail_under = 90"], &["fail_under = 60"]),
        Diff::Edit("setup.cfg", &["fail_under = 60"], &["fail_under = 90"]),
    ),
    (
        "ci-test-step-removed",
        Diff::EditIn(
            ".github/workflows/ci.yml",
            &["    steps:"],
            &["      - run: pytest"],
            &[],
            &["      - run: build"],
        ),
        Diff::EditIn(
            ".github/workflows/ci.yml",
            &["    steps:"],
            &["      - run: pytest"],
            &["      - run: pytest -n auto"],
            &["      - run: build"],
        ),
    ),
];
