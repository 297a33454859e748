//! The table of risky lines and their safe variants, rule by rule and language by language.

use super::*;

/// `(rule, risky diff, matched safe diff)`: the rule fires on the first and not on the
/// second, for every language the rule covers.
pub(super) fn table() -> Vec<(&'static str, String, String)> {
    vec![
        // Verification switched off.
        (
            "tls-verify-off",
            added(
                "app/c.py",
                &["r = requests.get(url, verify=False, timeout=5)"],
            ),
            added(
                "app/c.py",
                &["r = requests.get(url, verify=True, timeout=5)"],
            ),
        ),
        (
            "tls-verify-off",
            added(
                "cmd/x/main.go",
                &["\tcfg := &tls.Config{InsecureSkipVerify: true}"],
            ),
            added(
                "cmd/x/main.go",
                &["\tcfg := &tls.Config{InsecureSkipVerify: false}"],
            ),
        ),
        (
            "tls-verify-off",
            added(
                "src/c.js",
                &["const agent = new https.Agent({ rejectUnauthorized: false });"],
            ),
            added(
                "src/c.js",
                &["const agent = new https.Agent({ rejectUnauthorized: true });"],
            ),
        ),
        (
            "tls-verify-off",
            added(
                "src/C.java",
                &["builder.setSSLHostnameVerifier(NoopHostnameVerifier.INSTANCE);"],
            ),
            added(
                "src/C.java",
                &["builder.setSSLHostnameVerifier(new DefaultHostnameVerifier());"],
            ),
        ),
        (
            "tls-verify-off",
            added(
                "lib/c.rb",
                &["http.verify_mode = OpenSSL::SSL::VERIFY_NONE"],
            ),
            added(
                "lib/c.rb",
                &["http.verify_mode = OpenSSL::SSL::VERIFY_PEER"],
            ),
        ),
        (
            "tls-verify-off",
            added(
                "src/c.rs",
                &["let c = Client::builder().danger_accept_invalid_certs(true).build()?;"],
            ),
            added(
                "src/c.rs",
                &["let c = Client::builder().danger_accept_invalid_certs(false).build()?;"],
            ),
        ),
        (
            "tls-verify-off",
            added(
                "src/c.php",
                &["curl_setopt($ch, CURLOPT_SSL_VERIFYPEER, false);"],
            ),
            added(
                "src/c.php",
                &["curl_setopt($ch, CURLOPT_SSL_VERIFYPEER, true);"],
            ),
        ),
        (
            "tls-verify-off",
            added(
                "src/C.cs",
                &["handler.ServerCertificateCustomValidationCallback = (m, c, ch, e) => true;"],
            ),
            added(
                "src/C.cs",
                &[
                    "handler.ServerCertificateCustomValidationCallback = (m, c, ch, e) => e == \
                        SslPolicyErrors.None;",
                ],
            ),
        ),
        (
            "host-key-off",
            added(
                "cmd/x/main.go",
                &["\tHostKeyCallback: ssh.InsecureIgnoreHostKey(),"],
            ),
            added(
                "cmd/x/main.go",
                &["\tHostKeyCallback: ssh.FixedHostKey(key),"],
            ),
        ),
        (
            "host-key-off",
            added(
                "app/s.py",
                &["client.set_missing_host_key_policy(paramiko.AutoAddPolicy())"],
            ),
            added(
                "app/s.py",
                &["client.set_missing_host_key_policy(paramiko.RejectPolicy())"],
            ),
        ),
        (
            "host-key-off",
            added("deploy.sh", &["ssh -o StrictHostKeyChecking=no host true"]),
            added("deploy.sh", &["ssh -o StrictHostKeyChecking=yes host true"]),
        ),
        (
            "host-key-off",
            added(
                "src/S.java",
                &["session.setConfig(\"StrictHostKeyChecking\", \"no\");"],
            ),
            added(
                "src/S.java",
                &["session.setConfig(\"StrictHostKeyChecking\", \"yes\");"],
            ),
        ),
        (
            "token-verify-off",
            edit(
                "src/auth.js",
                &["const claims = jwt.verify(token, secret);"],
                &["const claims = jwt.decode(token);"],
            ),
            edit(
                "src/auth.js",
                &["const claims = jwt.decode(token);"],
                &["const claims = jwt.verify(token, secret);"],
            ),
        ),
        (
            "token-verify-off",
            added(
                "app/a.py",
                &["claims = jwt.decode(tok, options={\"verify_signature\": False})"],
            ),
            added(
                "app/a.py",
                &["claims = jwt.decode(tok, key, algorithms=[\"HS256\"])"],
            ),
        ),
        (
            "token-verify-off",
            added(
                "pkg/a.go",
                &["\ttok, _, err := parser.ParseUnverified(raw, claims)"],
            ),
            added(
                "pkg/a.go",
                &["\ttok, err := parser.ParseWithClaims(raw, claims, keyFunc)"],
            ),
        ),
        (
            "token-verify-off",
            added("src/A.cs", &["ValidateIssuerSigningKey = false,"]),
            added("src/A.cs", &["ValidateIssuerSigningKey = true,"]),
        ),
        (
            "token-verify-off",
            added("lib/a.rb", &["payload = JWT.decode(token, nil, false)"]),
            added(
                "lib/a.rb",
                &["payload = JWT.decode(token, key, true, algorithm: 'HS256')"],
            ),
        ),
        (
            "csrf-off",
            added("app/views.py", &["@csrf_exempt"]),
            added("app/views.py", &["@csrf_protect"]),
        ),
        (
            "csrf-off",
            edit_in(
                "app/settings.py",
                &["MIDDLEWARE = ["],
                &["    'django.middleware.csrf.CsrfViewMiddleware',"],
                &["    # 'django.middleware.csrf.CsrfViewMiddleware',"],
                &["]"],
            ),
            edit_in(
                "app/settings.py",
                &["MIDDLEWARE = ["],
                &["    'django.middleware.common.CommonMiddleware',"],
                &["    # 'django.middleware.common.CommonMiddleware',"],
                &["]"],
            ),
        ),
        (
            "csrf-off",
            added(
                "app/controllers/a.rb",
                &["  skip_before_action :verify_authenticity_token"],
            ),
            added(
                "app/controllers/a.rb",
                &["  protect_from_forgery with: :exception"],
            ),
        ),
        (
            "csrf-off",
            added("src/Sec.java", &["http.csrf().disable();"]),
            added("src/Sec.java", &["http.csrf();"]),
        ),
        (
            "csrf-off",
            added("src/H.cs", &["[IgnoreAntiforgeryToken]"]),
            added("src/H.cs", &["[ValidateAntiForgeryToken]"]),
        ),
        (
            "csrf-off",
            added("cmd/x/main.go", &["\tcop.AddInsecureBypassPattern(\"/\")"]),
            added(
                "cmd/x/main.go",
                &["\tcop.AddInsecureBypassPattern(\"/healthz\")"],
            ),
        ),
        // Permissions, credentials, crypto.
        (
            "permissions-widened",
            added("app/k.py", &["os.chmod(key_path, 0o777)"]),
            added("app/k.py", &["os.chmod(key_path, 0o600)"]),
        ),
        (
            "permissions-widened",
            added("deploy.sh", &["chmod 777 /etc/app/key.pem"]),
            added("deploy.sh", &["chmod 600 /etc/app/key.pem"]),
        ),
        (
            "permissions-widened",
            added("cmd/x/main.go", &["\terr := os.WriteFile(p, data, 0666)"]),
            added("cmd/x/main.go", &["\terr := os.WriteFile(p, data, 0600)"]),
        ),
        (
            "permissions-widened",
            added("src/k.js", &["fs.chmodSync(keyPath, 0o777);"]),
            added("src/k.js", &["fs.chmodSync(keyPath, 0o600);"]),
        ),
        (
            "permissions-widened",
            added(
                "src/K.java",
                &["Files.setPosixFilePermissions(p, \
                        PosixFilePermissions.fromString(\"rwxrwxrwx\"));"],
            ),
            added(
                "src/K.java",
                &["Files.setPosixFilePermissions(p, \
                        PosixFilePermissions.fromString(\"rw-------\"));"],
            ),
        ),
        (
            "permissions-widened",
            added("lib/k.rb", &["File.chmod(0777, path)"]),
            added("lib/k.rb", &["File.chmod(0600, path)"]),
        ),
        (
            "permissions-widened",
            added("src/k.php", &["chmod($path, 0777);"]),
            added("src/k.php", &["chmod($path, 0600);"]),
        ),
        (
            "permissions-widened",
            added(
                "src/k.rs",
                &["fs::set_permissions(&p, Permissions::from_mode(0o777))?;"],
            ),
            added(
                "src/k.rs",
                &["fs::set_permissions(&p, Permissions::from_mode(0o600))?;"],
            ),
        ),
        (
            "credential-logged",
            added("app/l.py", &["logger.info(f\"login with token={token}\")"]),
            added(
                "app/l.py",
                &["logger.info(\"token refreshed for %s\", user.id)"],
            ),
        ),
        (
            "credential-logged",
            added("pkg/l.go", &["\tlog.Printf(\"password: %s\", password)"]),
            added("pkg/l.go", &["\tlog.Printf(\"user: %s\", user)"]),
        ),
        (
            "credential-logged",
            added("src/l.js", &["console.log('secret', apiKey);"]),
            added("src/l.js", &["console.log('user', userName);"]),
        ),
        (
            "credential-logged",
            added("src/L.java", &["log.info(\"auth \" + password);"]),
            added("src/L.java", &["log.info(\"auth for \" + user);"]),
        ),
        (
            "credential-logged",
            added("pkg/c.go", &["\tPassword string `json:\"password\"`"]),
            added("pkg/c.go", &["\tPassword string `json:\"-\"`"]),
        ),
        (
            "weak-crypto",
            added("app/h.py", &["digest = hashlib.md5(data).hexdigest()"]),
            added("app/h.py", &["digest = hashlib.sha256(data).hexdigest()"]),
        ),
        (
            "weak-crypto",
            added(
                "app/k.py",
                &["key = rsa.generate_private_key(public_exponent=65537, key_size=1024)"],
            ),
            added(
                "app/k.py",
                &["key = rsa.generate_private_key(public_exponent=65537, key_size=2048)"],
            ),
        ),
        (
            "weak-crypto",
            added("pkg/h.go", &["\th := md5.New()"]),
            added("pkg/h.go", &["\th := sha256.New()"]),
        ),
        (
            "weak-crypto",
            added("src/h.js", &["const h = crypto.createHash('md5');"]),
            added("src/h.js", &["const h = crypto.createHash('sha256');"]),
        ),
        (
            "weak-crypto",
            added(
                "src/H.java",
                &["MessageDigest md = MessageDigest.getInstance(\"MD5\");"],
            ),
            added(
                "src/H.java",
                &["MessageDigest md = MessageDigest.getInstance(\"SHA-256\");"],
            ),
        ),
        (
            "weak-crypto",
            added("src/H.cs", &["var md5 = new MD5CryptoServiceProvider();"]),
            added("src/H.cs", &["var sha = SHA256.Create();"]),
        ),
        (
            "weak-crypto",
            added("lib/h.rb", &["d = Digest::MD5.hexdigest(password)"]),
            added("lib/h.rb", &["d = Digest::SHA256.hexdigest(password)"]),
        ),
        (
            "weak-crypto",
            added("src/h.php", &["$hash = md5($password);"]),
            added(
                "src/h.php",
                &["$hash = password_hash($password, PASSWORD_DEFAULT);"],
            ),
        ),
        (
            "root-cert-trusted",
            added(
                "src/T.cs",
                &[
                    "var store = new X509Store(StoreName.Root, StoreLocation.CurrentUser);",
                    "store.Add(cert);",
                ],
            ),
            added(
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
            added(
                "app/db.py",
                &["cur.execute(f\"SELECT * FROM users WHERE name = '{name}'\")"],
            ),
            added(
                "app/db.py",
                &["cur.execute(\"SELECT * FROM users WHERE name = %s\", (name,))"],
            ),
        ),
        (
            "sql-from-string",
            added(
                "src/Db.java",
                &["stmt.executeQuery(\"SELECT * FROM t WHERE id = \" + id);"],
            ),
            added(
                "src/Db.java",
                &[
                    "PreparedStatement ps = conn.prepareStatement(\"SELECT * FROM t WHERE id = \
                        ?\");",
                ],
            ),
        ),
        (
            "sql-from-string",
            added(
                "src/Q.cs",
                &["var cmd = new SqlCommand($\"SELECT * FROM t WHERE id = {id}\");"],
            ),
            added(
                "src/Q.cs",
                &["var cmd = new SqlCommand(\"SELECT * FROM t WHERE id = @id\");"],
            ),
        ),
        (
            "sql-from-string",
            added(
                "src/q.php",
                &["$r = $db->query(\"SELECT * FROM t WHERE id = $id\");"],
            ),
            added(
                "src/q.php",
                &["$r = $db->query(\"SELECT * FROM t WHERE id = \" . (int) $id);"],
            ),
        ),
        (
            "sql-from-string",
            added(
                "pkg/q.go",
                &["\trows, err := db.Query(\"SELECT * FROM t WHERE name = '\" + name + \"'\")"],
            ),
            added(
                "pkg/q.go",
                &["\trows, err := db.Query(\"SELECT * FROM t WHERE name = $1\", name)"],
            ),
        ),
        (
            "sql-from-string",
            added(
                "src/q.js",
                &["const rows = await db.query(`SELECT * FROM t WHERE id = ${req.params.id}`);"],
            ),
            added(
                "src/q.js",
                &["const rows = await db.query('SELECT * FROM t WHERE id = ?', [req.params.id]);"],
            ),
        ),
        (
            "sql-from-string",
            added(
                "lib/q.rb",
                &["User.find_by_sql(\"SELECT * FROM users WHERE name = '#{name}'\")"],
            ),
            added("lib/q.rb", &["User.where(name: name)"]),
        ),
        (
            "command-from-string",
            added("app/run.py", &["os.system(\"rm -rf \" + path)"]),
            added(
                "app/run.py",
                &["subprocess.run([\"rm\", \"-rf\", path], check=True)"],
            ),
        ),
        (
            "command-from-string",
            added("app/run.py", &["subprocess.run(cmd, shell=True)"]),
            added("app/run.py", &["subprocess.run(cmd, shell=False)"]),
        ),
        (
            "command-from-string",
            added(
                "src/run.js",
                &[
                    "const cp = require('child_process');",
                    "cp.exec(`ls ${dir}`);",
                ],
            ),
            added(
                "src/run.js",
                &[
                    "const cp = require('child_process');",
                    "cp.execFile('ls', [dir]);",
                ],
            ),
        ),
        (
            "command-from-string",
            added(
                "pkg/run.go",
                &["\tout, err := exec.Command(\"sh\", \"-c\", cmd).Output()"],
            ),
            added(
                "pkg/run.go",
                &["\tout, err := exec.Command(\"ls\", dir).Output()"],
            ),
        ),
        (
            "command-from-string",
            added(
                "src/Run.java",
                &["Process p = Runtime.getRuntime().exec(\"ls \" + dir);"],
            ),
            added(
                "src/Run.java",
                &["Process p = new ProcessBuilder(\"ls\", dir).start();"],
            ),
        ),
        (
            "command-from-string",
            added("lib/run.rb", &["system(\"ls #{dir}\")"]),
            added("lib/run.rb", &["system(\"ls\", dir)"]),
        ),
        (
            "command-from-string",
            added("src/run.php", &["$out = shell_exec(\"ls $dir\");"]),
            added(
                "src/run.php",
                &["$out = shell_exec('ls ' . escapeshellarg($dir));"],
            ),
        ),
        (
            "command-from-string",
            added(
                "src/Run.cs",
                &["Process.Start(\"cmd.exe\", \"/c \" + arg);"],
            ),
            added("src/Run.cs", &["Process.Start(\"notepad.exe\");"]),
        ),
        (
            "eval-from-string",
            added("app/e.py", &["result = eval(expr)"]),
            added("app/e.py", &["result = ast.literal_eval(expr)"]),
        ),
        (
            "eval-from-string",
            added("src/e.js", &["const v = eval(code);"]),
            added("src/e.js", &["const v = JSON.parse(code);"]),
        ),
        (
            "eval-from-string",
            added("lib/e.rb", &["value = eval(params[:expr])"]),
            added("lib/e.rb", &["value = Integer(params[:expr])"]),
        ),
        (
            "eval-from-string",
            added("src/e.php", &["eval($code);"]),
            added("src/e.php", &["echo intval($code);"]),
        ),
        (
            "request-data-in-sink",
            added("app/f.py", &["data = open(request.args[\"name\"]).read()"]),
            added("app/f.py", &["data = open(\"static/index.html\").read()"]),
        ),
        (
            "request-data-in-sink",
            added(
                "pkg/r.go",
                &["\thttp.Redirect(w, r, r.URL.Query().Get(\"next\"), http.StatusFound)"],
            ),
            added(
                "pkg/r.go",
                &["\thttp.Redirect(w, r, \"/home\", http.StatusFound)"],
            ),
        ),
        (
            "request-data-in-sink",
            added("src/r.js", &["res.redirect(req.query.next);"]),
            added("src/r.js", &["res.redirect('/home');"]),
        ),
        (
            "request-data-in-sink",
            added("src/r.php", &["$body = file_get_contents($_GET['url']);"]),
            added("src/r.php", &["$body = file_get_contents('config.json');"]),
        ),
        (
            "request-data-in-sink",
            added(
                "src/R.java",
                &["File f = new File(request.getParameter(\"name\"));"],
            ),
            added("src/R.java", &["File f = new File(\"static.txt\");"]),
        ),
        (
            "markup-unescaped",
            added("app/v.py", &["html = mark_safe(user_input)"]),
            added("app/v.py", &["html = escape(user_input)"]),
        ),
        (
            "markup-unescaped",
            added("src/v.js", &["el.innerHTML = name;"]),
            added("src/v.js", &["el.textContent = name;"]),
        ),
        (
            "markup-unescaped",
            added("src/v.php", &["echo $name;"]),
            added("src/v.php", &["echo esc_html( $name );"]),
        ),
        (
            "markup-unescaped",
            added("app/helpers/v.rb", &["  text.html_safe"]),
            added("app/helpers/v.rb", &["  h(text)"]),
        ),
        (
            "markup-unescaped",
            added("Views/V.cshtml", &["@Html.Raw(Model.Bio)"]),
            added("Views/V.cshtml", &["@Model.Bio"]),
        ),
        (
            "markup-unescaped",
            created_file(
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
            created_file(
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
            added("app/load.py", &["obj = pickle.loads(blob)"]),
            added("app/load.py", &["obj = json.loads(blob)"]),
        ),
        (
            "unsafe-deserialize",
            added(
                "app/load.py",
                &["data = yaml.load(stream, Loader=yaml.FullLoader)"],
            ),
            added("app/load.py", &["data = yaml.safe_load(stream)"]),
        ),
        (
            "unsafe-deserialize",
            added("lib/load.rb", &["obj = Marshal.load(blob)"]),
            added("lib/load.rb", &["obj = JSON.parse(blob)"]),
        ),
        (
            "unsafe-deserialize",
            added(
                "src/Load.java",
                &["ObjectInputStream in = new ObjectInputStream(socket.getInputStream());"],
            ),
            added(
                "src/Load.java",
                &["DataInputStream in = new DataInputStream(socket.getInputStream());"],
            ),
        ),
        (
            "unsafe-deserialize",
            added(
                "src/Load.cs",
                &[
                    "var f = new BinaryFormatter();",
                    "var o = f.Deserialize(stream);",
                ],
            ),
            added(
                "src/Load.cs",
                &["var o = JsonSerializer.Deserialize<Order>(stream);"],
            ),
        ),
        (
            "unsafe-deserialize",
            added("src/load.php", &["$o = unserialize($data);"]),
            added(
                "src/load.php",
                &["$o = unserialize($data, ['allowed_classes' => false]);"],
            ),
        ),
        (
            "unsafe-deserialize",
            added("src/load.js", &["const o = serialize.unserialize(body);"]),
            added("src/load.js", &["const o = JSON.parse(body);"]),
        ),
        (
            "archive-path-unchecked",
            added(
                "app/x.py",
                &[
                    "with tarfile.open(path) as tar:",
                    "    tar.extractall(dest)",
                ],
            ),
            added(
                "app/x.py",
                &[
                    "with tarfile.open(path) as tar:",
                    "    tar.extractall(dest, filter=\"data\")",
                ],
            ),
        ),
        (
            "archive-path-unchecked",
            added(
                "pkg/unzip.go",
                &[
                    "\tfor _, f := range zipReader.File {",
                    "\t\tp := filepath.Join(dest, f.Name)",
                ],
            ),
            added(
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
            added(
                "src/Unzip.java",
                &[
                    "ZipEntry entry = zis.getNextEntry();",
                    "File out = new File(dir, entry.getName());",
                ],
            ),
            added(
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
            added("src/C.cs", &["[ValidateInput(false)]"]),
            added("src/C.cs", &["[ValidateInput(true)]"]),
        ),
        (
            "size-limit-missing",
            added(
                "pkg/h.go",
                &[
                    "func h(w http.ResponseWriter, r *http.Request) {",
                    "\tbody, err := io.ReadAll(r.Body)",
                ],
            ),
            added(
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
            added(
                "app/jobs.py",
                &["try:", "    run()", "except Exception:", "    pass"],
            ),
            added(
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
            added("src/api.ts", &["  } catch (e) {}"]),
            added(
                "src/api.ts",
                &["  } catch (e) {", "    logger.error(e);", "  }"],
            ),
        ),
        (
            "error-swallowed",
            added("src/A.java", &["} catch (IOException e) {", "}"]),
            added(
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
            added("src/A.cs", &["catch (Exception) { }"]),
            added(
                "src/A.cs",
                &["catch (Exception ex) { log.Error(ex); throw; }"],
            ),
        ),
        (
            "error-swallowed",
            added("pkg/a.go", &["\tif err != nil {", "\t}"]),
            added("pkg/a.go", &["\tif err != nil {", "\t\treturn err", "\t}"]),
        ),
        (
            "error-swallowed",
            added("lib/x.rb", &["value = Integer(s) rescue nil"]),
            added("lib/x.rb", &["value = Integer(s, exception: false)"]),
        ),
        (
            "error-swallowed",
            added("src/x.php", &["$data = @file_get_contents($path);"]),
            added("src/x.php", &["$data = file_get_contents($path);"]),
        ),
        (
            "error-check-removed",
            edit_in(
                "pkg/a.go",
                &["\terr := save(x)"],
                &["\tif err != nil {", "\t\treturn err", "\t}"],
                &[],
                &["\treturn nil"],
            ),
            edit_in(
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
            added("src/x.rs", &["let _ = fs::remove_file(&path);"]),
            added("src/x.rs", &["fs::remove_file(&path)?;"]),
        ),
        (
            "error-discarded",
            added("pkg/x.go", &["\t_ = os.Remove(p)"]),
            added("pkg/x.go", &["\tif err := os.Remove(p); err != nil {"]),
        ),
        (
            "error-discarded",
            added("src/X.cs", &["int.TryParse(s, out n);"]),
            added("src/X.cs", &["if (!int.TryParse(s, out n)) return;"]),
        ),
        (
            "error-discarded",
            added("src/X.java", &["file.delete();"]),
            added(
                "src/X.java",
                &["if (!file.delete()) throw new IOException(\"delete\");"],
            ),
        ),
        (
            "jump-in-finally",
            added(
                "src/F.java",
                &[
                    "  try {",
                    "    work();",
                    "  } finally {",
                    "    return;",
                    "  }",
                ],
            ),
            added(
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
            added("src/f.js", &["p.finally(() => { return 2 });"]),
            added("src/f.js", &["p.finally(() => { cleanup() });"]),
        ),
        (
            "jump-in-finally",
            added(
                "app/f.py",
                &["try:", "    work()", "finally:", "    return None"],
            ),
            added(
                "app/f.py",
                &["try:", "    work()", "finally:", "    close()"],
            ),
        ),
        (
            "jump-in-finally",
            added(
                "lib/f.rb",
                &["begin", "  work", "ensure", "  return x", "end"],
            ),
            added(
                "lib/f.rb",
                &["begin", "  work", "ensure", "  file.close", "end"],
            ),
        ),
        // Lifecycle.
        (
            "resource-unclosed",
            added("app/f.py", &["f = open(path)", "data = f.read()"]),
            added(
                "app/f.py",
                &["with open(path) as f:", "    data = f.read()"],
            ),
        ),
        (
            "resource-unclosed",
            added(
                "pkg/f.go",
                &["\tf, err := os.Open(p)", "\tdata, err := io.ReadAll(f)"],
            ),
            added("pkg/f.go", &["\tf, err := os.Open(p)", "\tdefer f.Close()"]),
        ),
        (
            "resource-unclosed",
            added(
                "src/F.java",
                &[
                    "FileInputStream in = new FileInputStream(file);",
                    "int b = in.read();",
                ],
            ),
            added(
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
            added(
                "src/F.cs",
                &["var r = new StreamReader(path);", "var s = r.ReadToEnd();"],
            ),
            added(
                "src/F.cs",
                &[
                    "using var r = new StreamReader(path);",
                    "var s = r.ReadToEnd();",
                ],
            ),
        ),
        (
            "resource-unclosed",
            added("app/t.py", &["    asyncio.create_task(poll())"]),
            added(
                "app/t.py",
                &["    task = asyncio.create_task(poll())", "    await task"],
            ),
        ),
        (
            "unlock-removed",
            edit(
                "internal/c.go",
                &["\tmu.Lock()", "\tdefer mu.Unlock()"],
                &["\tmu.Lock()"],
            ),
            edit(
                "internal/c.go",
                &["\tmu.Lock()", "\tdefer mu.Unlock()"],
                &["\tmu.Lock()", "\tdefer func() { mu.Unlock() }()"],
            ),
        ),
        (
            "unlock-removed",
            added("src/L.java", &["lock.lock();", "count++;"]),
            added(
                "src/L.java",
                &[
                    "lock.lock();",
                    "try { count++; } finally { lock.unlock(); }",
                ],
            ),
        ),
        (
            "unlock-removed",
            added("app/l.py", &["lock.acquire()", "counter += 1"]),
            added("app/l.py", &["with lock:", "    counter += 1"]),
        ),
        (
            "cancel-discarded",
            added(
                "cmd/x/main.go",
                &["\tctx, _ := context.WithTimeout(ctx, time.Second)"],
            ),
            added(
                "cmd/x/main.go",
                &[
                    "\tctx, cancel := context.WithTimeout(ctx, time.Second)",
                    "\tdefer cancel()",
                ],
            ),
        ),
        (
            "context-dropped",
            added(
                "pkg/w.go",
                &[
                    "func work(ctx context.Context) error {",
                    "\treturn fetch(context.Background())",
                    "}",
                ],
            ),
            added(
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
            added(
                "pkg/w.go",
                &[
                    "func poll(ctx context.Context) {",
                    "\tfor {",
                    "\t\ttick()",
                    "\t}",
                    "}",
                ],
            ),
            added(
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
            added("app/h.py", &["r = requests.get(url)"]),
            added("app/h.py", &["r = requests.get(url, timeout=10)"]),
        ),
        (
            "timeout-removed",
            added("cmd/x/main.go", &["\thttp.ListenAndServe(\":8080\", mux)"]),
            added(
                "cmd/x/main.go",
                &["\tsrv := &http.Server\
                        {Addr: \":8080\", Handler: mux, ReadHeaderTimeout: 5 * time.Second}"],
            ),
        ),
        // Test tampering.
        (
            "test-skipped",
            edit_in(
                "tests/test_x.py",
                &[],
                &[],
                &["@pytest.mark.skip(reason=\"flaky\")"],
                &["def test_parse():", "    assert parse(\"1\") == 1"],
            ),
            edit_in(
                "tests/test_x.py",
                &[],
                &["@pytest.mark.skip(reason=\"flaky\")"],
                &[],
                &["def test_parse():", "    assert parse(\"1\") == 1"],
            ),
        ),
        (
            "test-skipped",
            edit_in(
                "tests/test_x.py",
                &[],
                &[],
                &["    @unittest.skip(\"later\")"],
                &["    def test_parse(self):"],
            ),
            added(
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
            edit(
                "src/a.test.ts",
                &["it('parses', () => {"],
                &["it.skip('parses', () => {"],
            ),
            edit(
                "src/a.test.ts",
                &["it.skip('parses', () => {"],
                &["it('parses', () => {"],
            ),
        ),
        (
            "test-skipped",
            edit(
                "src/a.test.js",
                &["describe('parser', () => {"],
                &["xdescribe('parser', () => {"],
            ),
            edit(
                "src/a.test.js",
                &["xdescribe('parser', () => {"],
                &["describe('parser', () => {"],
            ),
        ),
        (
            "test-skipped",
            edit_in(
                "pkg/x_test.go",
                &["func TestParse(t *testing.T) {"],
                &[],
                &["\tt.Skip(\"broken\")"],
                &["\tgot := Parse(\"1\")"],
            ),
            edit_in(
                "pkg/x_test.go",
                &["func TestParse(t *testing.T) {"],
                &["\tt.Skip(\"broken\")"],
                &[],
                &["\tgot := Parse(\"1\")"],
            ),
        ),
        (
            "test-skipped",
            edit_in(
                "src/test/java/a/ParserTest.java",
                &["  @Test"],
                &[],
                &["  @Disabled(\"flaky\")"],
                &["  void parses() {"],
            ),
            edit_in(
                "src/test/java/a/ParserTest.java",
                &["  @Test"],
                &["  @Disabled(\"flaky\")"],
                &[],
                &["  void parses() {"],
            ),
        ),
        (
            "test-skipped",
            edit_in(
                "src/test/java/a/ParserTest.java",
                &[],
                &[],
                &["  @Ignore"],
                &["  @Test", "  public void parses() {"],
            ),
            edit_in(
                "src/test/java/a/ParserTest.java",
                &[],
                &["  @Ignore"],
                &[],
                &["  @Test", "  public void parses() {"],
            ),
        ),
        (
            "test-skipped",
            edit(
                "spec/parser_spec.rb",
                &["  it 'parses' do"],
                &["  xit 'parses' do"],
            ),
            edit(
                "spec/parser_spec.rb",
                &["  xit 'parses' do"],
                &["  it 'parses' do"],
            ),
        ),
        (
            "test-skipped",
            edit_in(
                "spec/parser_spec.rb",
                &["  it 'parses' do"],
                &[],
                &["    skip 'broken on CI'"],
                &["    expect(parse('1')).to eq(1)"],
            ),
            edit_in(
                "spec/parser_spec.rb",
                &["  it 'parses' do"],
                &["    pending 'broken on CI'"],
                &[],
                &["    expect(parse('1')).to eq(1)"],
            ),
        ),
        (
            "test-skipped",
            edit_in(
                "tests/parse.rs",
                &["#[test]"],
                &[],
                &["#[ignore]"],
                &["fn parses() {"],
            ),
            edit_in(
                "tests/parse.rs",
                &["#[test]"],
                &["#[ignore]"],
                &[],
                &["fn parses() {"],
            ),
        ),
        (
            "test-skipped",
            edit(
                "tests/Unit/ParserTests.cs",
                &["    [Fact]"],
                &["    [Fact(Skip = \"flaky\")]"],
            ),
            edit(
                "tests/Unit/ParserTests.cs",
                &["    [Fact(Skip = \"flaky\")]"],
                &["    [Fact]"],
            ),
        ),
        (
            "test-skipped",
            edit_in(
                "tests/Unit/ParserTests.cs",
                &["    [Test]"],
                &[],
                &["    [Ignore(\"flaky\")]"],
                &["    public void Parses() {"],
            ),
            edit_in(
                "tests/Unit/ParserTests.cs",
                &["    [Test]"],
                &["    [Ignore(\"flaky\")]"],
                &[],
                &["    public void Parses() {"],
            ),
        ),
        (
            "test-skipped",
            edit_in(
                "tests/Unit/ParserTest.php",
                &["    public function testParses(): void", "    {"],
                &[],
                &["        $this->markTestSkipped('flaky');"],
                &["        $this->assertSame(1, parse('1'));"],
            ),
            edit_in(
                "tests/Unit/ParserTest.php",
                &["    public function testParses(): void", "    {"],
                &["        $this->markTestSkipped('flaky');"],
                &[],
                &["        $this->assertSame(1, parse('1'));"],
            ),
        ),
        (
            "test-focused",
            edit(
                "src/a.test.ts",
                &["it('works', () => {"],
                &["it.only('works', () => {"],
            ),
            edit(
                "src/a.test.ts",
                &["it.only('works', () => {"],
                &["it('works', () => {"],
            ),
        ),
        (
            "test-focused",
            edit(
                "spec/a_spec.rb",
                &["  it 'works' do"],
                &["  fit 'works' do"],
            ),
            edit(
                "spec/a_spec.rb",
                &["  fit 'works' do"],
                &["  it 'works' do"],
            ),
        ),
        (
            "test-deleted",
            edit_in(
                "tests/test_x.py",
                &["import parse", ""],
                &["def test_rejects_empty():", "    assert not parse(\"\")"],
                &[],
                &["def test_other():"],
            ),
            format!(
                "{}{}",
                edit_in(
                    "tests/test_x.py",
                    &["import parse", ""],
                    &["def test_rejects_empty():", "    assert not parse(\"\")"],
                    &[],
                    &["def test_other():"]
                ),
                created_file(
                    "tests/test_parse_empty.py",
                    &["def test_rejects_empty():", "    assert not parse(\"\")"]
                )
            ),
        ),
        (
            "test-deleted",
            edit_in(
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
            edit_in(
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
            edit_in(
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
            format!(
                "{}{}",
                edit_in(
                    "pkg/p_test.go",
                    &["package p", ""],
                    &[
                        "func TestRejectsEmpty(t *testing.T) {",
                        "\tif Parse(\"\") != nil {",
                        "\t\tt.Fatal(\"want nil\")",
                        "\t}",
                        "}"
                    ],
                    &[],
                    &[""]
                ),
                edit_in(
                    "pkg/p.go",
                    &["package p", ""],
                    &["func Parse(s string) *Node {", "\treturn nil", "}"],
                    &[],
                    &[""]
                )
            ),
        ),
        (
            "test-file-deleted",
            deleted_file(
                "tests/test_parser.py",
                &[
                    "def test_parses():",
                    "    assert parse(\"1\") == 1",
                    "def test_rejects():",
                    "    assert parse(\"x\") is None",
                ],
            ),
            format!(
                "{}{}",
                deleted_file(
                    "tests/test_parser.py",
                    &["def test_parses():", "    assert parse(\"1\") == 1"]
                ),
                deleted_file("app/parser.py", &["def parse(s):", "    return int(s)"])
            ),
        ),
        (
            "assertion-removed",
            edit_in(
                "tests/test_x.py",
                &["def test_parse():"],
                &["    assert parse(\"1\") == 1"],
                &["    # assert parse(\"1\") == 1"],
                &["    assert parse(\"2\") == 2"],
            ),
            edit_in(
                "tests/test_x.py",
                &["def test_parse():"],
                &["    assert parse(\"1\") == 1"],
                &["    assert parse(\"1\") == 1  # the simplest case"],
                &["    assert parse(\"2\") == 2"],
            ),
        ),
        (
            "assertion-loosened",
            edit(
                "tests/test_x.py",
                &["    assert result == 42"],
                &["    assert result is not None"],
            ),
            edit(
                "tests/test_x.py",
                &["    assert result is not None"],
                &["    assert result == 42"],
            ),
        ),
        (
            "assertion-loosened",
            edit(
                "src/a.test.ts",
                &["  expect(total).toBe(3);"],
                &["  expect(total).toBeDefined();"],
            ),
            edit(
                "src/a.test.ts",
                &["  expect(total).toBeDefined();"],
                &["  expect(total).toBe(3);"],
            ),
        ),
        (
            "assertion-loosened",
            edit(
                "src/test/java/a/ATest.java",
                &["    assertEquals(\"ok\", result);"],
                &["    assertNotNull(result);"],
            ),
            edit(
                "src/test/java/a/ATest.java",
                &["    assertNotNull(result);"],
                &["    assertEquals(\"ok\", result);"],
            ),
        ),
        (
            "assertion-loosened",
            edit(
                "pkg/a_test.go",
                &["\tassert.Equal(t, 3, got)"],
                &["\tassert.NotNil(t, got)"],
            ),
            edit(
                "pkg/a_test.go",
                &["\tassert.NotNil(t, got)"],
                &["\tassert.Equal(t, 3, got)"],
            ),
        ),
        (
            "assertion-loosened",
            edit(
                "tests/a.rs",
                &["    assert_eq!(parse(\"1\"), Ok(1));"],
                &["    assert!(parse(\"1\").is_ok());"],
            ),
            edit(
                "tests/a.rs",
                &["    assert!(parse(\"1\").is_ok());"],
                &["    assert_eq!(parse(\"1\"), Ok(1));"],
            ),
        ),
        (
            "assertion-loosened",
            edit(
                "tests/test_n.py",
                &["    assert_allclose(x, y, rtol=1e-12)"],
                &["    assert_allclose(x, y, rtol=1e-3)"],
            ),
            edit(
                "tests/test_n.py",
                &["    assert_allclose(x, y, rtol=1e-3)"],
                &["    assert_allclose(x, y, rtol=1e-12)"],
            ),
        ),
        (
            "assertion-caught",
            added(
                "tests/test_x.py",
                &[
                    "    try:",
                    "        assert parse(\"1\") == 1",
                    "    except AssertionError:",
                    "        pass",
                ],
            ),
            added(
                "tests/test_x.py",
                &[
                    "    with pytest.raises(ValueError):",
                    "        parse(\"x\")",
                ],
            ),
        ),
        (
            "expectation-changed",
            edit(
                "tests/test_x.py",
                &["    assert total(cart) == 30"],
                &["    assert total(cart) == 35"],
            ),
            format!(
                "{}{}",
                edit(
                    "tests/test_x.py",
                    &["    assert total(cart) == 30"],
                    &["    assert total(cart) == 35"]
                ),
                edit(
                    "app/cart.py",
                    &["    return sum(prices)"],
                    &["    return sum(prices) + shipping"]
                )
            ),
        ),
        (
            "snapshot-rewritten",
            edit(
                "src/__snapshots__/a.test.js.snap",
                &["a1", "a2", "a3", "a4", "a5", "a6", "a7", "a8", "a9", "a10"],
                &["b1", "b2", "b3", "b4", "b5", "b6", "b7", "b8", "b9", "b10"],
            ),
            created_file(
                "src/__snapshots__/b.test.js.snap",
                &[
                    "b1", "b2", "b3", "b4", "b5", "b6", "b7", "b8", "b9", "b10", "b11",
                ],
            ),
        ),
        (
            "ci-tolerant",
            added(
                ".github/workflows/ci.yml",
                &["        continue-on-error: true"],
            ),
            added(
                ".github/workflows/ci.yml",
                &["        continue-on-error: false"],
            ),
        ),
        (
            "ci-tolerant",
            added(".github/workflows/ci.yml", &["      - run: pytest || true"]),
            added(".github/workflows/ci.yml", &["      - run: pytest -x"]),
        ),
        (
            "ci-tolerant",
            added(".gitlab-ci.yml", &["  allow_failure: true"]),
            added(".gitlab-ci.yml", &["  allow_failure: false"]),
        ),
        (
            "ci-tolerant",
            edit("setup.cfg", &["fail_under = 90"], &["fail_under = 60"]),
            edit("setup.cfg", &["fail_under = 60"], &["fail_under = 90"]),
        ),
        (
            "ci-test-step-removed",
            edit_in(
                ".github/workflows/ci.yml",
                &["    steps:"],
                &["      - run: pytest"],
                &[],
                &["      - run: build"],
            ),
            edit_in(
                ".github/workflows/ci.yml",
                &["    steps:"],
                &["      - run: pytest"],
                &["      - run: pytest -n auto"],
                &["      - run: build"],
            ),
        ),
    ]
}
