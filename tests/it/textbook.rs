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

/// A harmless docs file and an unrelated helper of another folder.
const COMPANIONS: &str = "diff --git a/docs/usage.md b/docs/usage.md\n--- a/docs/usage.md\n+++ b/docs/usage.md\n@@ -1,1 +1,4 @@\n # Usage\n+\n+Run `make` to build.\n+See the changelog.\n\
    diff --git a/tools/fmt/width.py b/tools/fmt/width.py\n--- a/tools/fmt/width.py\n+++ b/tools/fmt/width.py\n@@ -1,1 +1,3 @@\n import os\n+def column_width():\n+    return int(os.environ.get(\"COLUMNS\", \"80\"))\n";

#[test]
fn textbook_one_liners_select_their_axis_and_companions_change_nothing() {
    let scorer = LocalScorer::new();
    let thresholds = scorer
        .default_thresholds()
        .expect("the shipped model parses");
    let selected = |diff: &str| -> Vec<&'static str> {
        let s = scorer.score_diff(diff);
        let mut axes: Vec<usize> = (0..AXIS_IDS.len())
            .filter(|&a| s.values[a] >= thresholds[a])
            .collect();
        axes.sort_by(|&a, &b| s.values[b].total_cmp(&s.values[a]));
        axes.truncate(3);
        axes.into_iter().map(|a| AXIS_IDS[a]).collect()
    };
    let mut fired = 0;
    for (name, axis, diff) in cases() {
        let alone = selected(&diff);
        let with = selected(&format!("{COMPANIONS}{diff}"));
        let hit = alone.contains(&axis);
        fired += usize::from(hit);
        println!("{name:<24} {axis:<18} alone {alone:?}  with companions {with:?}");
        // No dilution: what the change raises alone it raises beside harmless files.
        for a in &alone {
            assert!(
                with.contains(a),
                "{name}: {a} lost beside companions: {with:?}"
            );
        }
    }
    println!("{fired} of {} select the expected axis", cases().len());
    // Measured when this model shipped: see CHANGELOG (in-sample; a regression floor).
    assert!(fired >= FLOOR, "{fired} of {} fire", cases().len());
}

/// The least number of the 20 that must select their axis.
const FLOOR: usize = 20;
