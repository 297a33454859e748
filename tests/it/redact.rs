//! Redaction: recall on the secret corpus, byte-identity on look-alike code, markers, reports.

use std::collections::{BTreeMap, BTreeSet};
use std::path::PathBuf;

use jev_preflight::pipeline::redact::{RedactionReport, Redactor};

fn corpus(name: &str) -> Vec<(String, String)> {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("testdata/redact")
        .join(name);
    std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()))
        .lines()
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .map(|l| {
            let (tag, line) = l.split_once('\t').expect("`tag<TAB>line`");
            (tag.to_owned(), line.to_owned())
        })
        .collect()
}

fn redact(line: &str) -> (String, RedactionReport) {
    let mut report = RedactionReport::default();
    let out = Redactor::new().redact(line, &mut report).into_owned();
    (out, report)
}

/// Redacts each marked line on its own; returns the recall in percent and the misses.
/// Prints a corpus's recall (overall, per tag, and each miss) and fails below `floor`.
fn assert_recall(title: &str, lines: &[(String, String)], floor: f64) {
    let (recall, missed) = recall(lines);
    println!(
        "{title} recall: {recall:.2}% ({} of {} secret lines)\n{}",
        lines.len() - missed.len(),
        lines.len(),
        per_tag(lines, &missed)
    );
    for m in &missed {
        println!("missed {m}");
    }
    assert!(recall >= floor, "{title} recall {recall:.2}% < {floor}%");
}

fn recall(lines: &[(String, String)]) -> (f64, Vec<String>) {
    let redactor = Redactor::new();
    let mut missed = Vec::new();
    for (tag, marked) in lines {
        let open = marked.find('«').expect("secret is marked");
        let close = marked.find('»').expect("secret is marked");
        let secret = &marked[open + '«'.len_utf8()..close];
        let input = marked.replace(['«', '»'], "");
        let mut report = RedactionReport::default();
        let out = redactor.redact(&input, &mut report);
        // The value must be gone; a short tail left outside a marker would still leak it.
        let leaked = out.contains(secret)
            || !out.contains("[REDACTED:")
            || (secret.len() >= 16 && out.contains(&secret[secret.len() - 12..]));
        if leaked || report.total() == 0 {
            missed.push(format!("{tag}: {input}\n    -> {out}"));
        }
    }
    let recall = 100.0 * (lines.len() - missed.len()) as f64 / lines.len() as f64;
    (recall, missed)
}

/// Recall per tag (family or format), as `tag caught/total (percent)` lines.
fn per_tag(lines: &[(String, String)], missed: &[String]) -> String {
    let mut totals: BTreeMap<&str, (usize, usize)> = BTreeMap::new();
    for (tag, _) in lines {
        totals.entry(tag).or_default().1 += 1;
    }
    for m in missed {
        let tag = m.split_once(':').map_or("", |(t, _)| t);
        if let Some(t) = totals.get_mut(tag) {
            t.0 += 1;
        }
    }
    totals
        .iter()
        .map(|(tag, (miss, total))| {
            let caught = total - miss;
            format!(
                "  {tag:<12} {caught:>4}/{total:<4} {:6.2}%",
                100.0 * caught as f64 / *total as f64
            )
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// Redacts each look-alike line on its own; returns the lines that changed.
fn altered(lines: &[(String, String)]) -> Vec<String> {
    let redactor = Redactor::new();
    let mut changed = Vec::new();
    for (tag, line) in lines {
        let mut report = RedactionReport::default();
        let out = redactor.redact(line, &mut report);
        if out != line.as_str() {
            changed.push(format!("{tag}: {line}\n    -> {out}"));
        }
    }
    changed
}

#[test]
fn secret_corpus_recall_is_at_least_99_percent() {
    let lines = corpus("secrets.txt");
    let formats: BTreeSet<&str> = lines.iter().map(|(tag, _)| tag.as_str()).collect();
    assert!(lines.len() >= 300, "only {} secret lines", lines.len());
    assert!(formats.len() >= 60, "only {} formats", formats.len());
    assert_recall("redaction", &lines, 99.0);
}

/// Lines in the shapes of public scanner fixtures, written before the rules that catch them:
/// a measure of how the rules generalise, so its floor sits below the main corpus's.
#[test]
fn held_out_fixture_recall() {
    let lines = corpus("heldout.txt");
    assert_recall("held-out", &lines, HELD_OUT_FLOOR);
}

/// Below the measured figure by a margin, so a change that loses coverage fails.
const HELD_OUT_FLOOR: f64 = 97.0;

/// A second held-out set in shapes the rules were not written against (config files,
/// command lines, client constructors); written after the first was spent.
#[test]
fn fresh_held_out_recall() {
    let lines = corpus("heldout-fresh.txt");
    assert_recall("fresh held-out", &lines, FRESH_FLOOR);
}

/// Below the measured figure by a margin, so a change that loses coverage fails.
const FRESH_FLOOR: f64 = 90.0;

#[test]
fn lookalike_code_stays_byte_identical() {
    let lines = corpus("lookalikes.txt");
    let langs: BTreeSet<&str> = lines.iter().map(|(tag, _)| tag.as_str()).collect();
    assert!(lines.len() >= 200, "only {} look-alike lines", lines.len());
    assert!(langs.len() >= 6, "only {} languages", langs.len());
    let redactor = Redactor::new();
    let mut changed = Vec::new();
    for (tag, line) in &lines {
        let mut report = RedactionReport::default();
        let out = redactor.redact(line, &mut report);
        if out != line.as_str() {
            changed.push(format!("{tag}: {line}\n    -> {out}"));
        }
    }
    let identical = 100.0 * (lines.len() - changed.len()) as f64 / lines.len() as f64;
    println!(
        "look-alike byte-identity: {identical:.2}% ({} of {} lines, {} languages)",
        lines.len() - changed.len(),
        lines.len(),
        langs.len()
    );
    for c in &changed {
        println!("altered {c}");
    }
    assert!(identical >= 99.0, "identity {identical:.2}% < 99%");
}

#[test]
fn spec_examples_are_not_secrets() {
    for line in [
        "if token == nil {",
        "password: string",
        "apiKey := cfg.APIKey",
        "token = get_token()",
        "tokenCount = 3",
        "secret_len: usize",
        "Authorization: Bearer ${TOKEN}",
        "headers[\"Authorization\"] = f\"Bearer {token}\"",
        "const secret = process.env.SECRET",
    ] {
        let (out, report) = redact(line);
        assert_eq!(out, line);
        assert_eq!(report.total(), 0, "{line}");
    }
}

#[test]
fn literal_secrets_get_typed_markers() {
    for (line, want) in [
        (
            "password = \"hunter2hunter2\"",
            "password = \"[REDACTED:generic-secret]\"",
        ),
        (
            "Authorization: Bearer eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJmYWtlIn0.c2lnbmF0dXJlLWZha2U",
            "Authorization: Bearer [REDACTED:jwt]",
        ),
        (
            "token: ghp_FAKEfake0123456789FAKEfake0123456789",
            "token: [REDACTED:github-token]",
        ),
        (
            "AWS_ACCESS_KEY_ID=AKIAFAKEFAKEFAKE2345",
            "AWS_ACCESS_KEY_ID=[REDACTED:aws-access-key]",
        ),
        (
            "url = \"postgres://app:Sup3rS3cretPw@db:5432/app\"",
            "url = \"postgres://app:[REDACTED:url-credentials]@db:5432/app\"",
        ),
    ] {
        let (out, report) = redact(line);
        assert_eq!(out, want, "{line}");
        assert_eq!(report.total(), 1);
    }
}

#[test]
fn report_counts_markers_and_never_holds_the_secret() {
    let text = "a = \"ghp_FAKEfake0123456789FAKEfake0123456789\"\n\
                b = \"ghp_FAKEfake9876543210FAKEfake9876543210\"\n\
                password = \"hunter2hunter2\"\n";
    let (out, report) = redact(text);
    assert_eq!(report.counts.get("github-token"), Some(&2));
    assert_eq!(report.counts.get("generic-secret"), Some(&1));
    assert_eq!(report.total(), 3);
    let shown = format!("{report:?} {}", serde_json::to_string(&report).unwrap());
    assert!(!shown.contains("hunter2") && !shown.contains("FAKEfake"));
    assert_eq!(out.lines().count(), 3);
}

#[test]
fn multi_line_private_key_body_is_removed_and_diff_shape_kept() {
    let body = "MIIEowIBAAKCAQEAfakefakefakefakefakefakefakefakefakefakefakefake0123\n\
                +Zm9vYmFyYmF6cXV4ZmFrZWZha2VmYWtlZmFrZWZha2VmYWtlZmFrZWZha2VmYWtl\n";
    let text = format!(
        "@@ -0,0 +1,5 @@\n+-----BEGIN RSA PRIVATE KEY-----\n+{body}+-----END RSA PRIVATE KEY-----\n+fn main() {{}}\n"
    );
    let (out, report) = redact(&text);
    assert!(
        !out.contains("MIIEow") && !out.contains("Zm9vYmFy"),
        "{out}"
    );
    assert_eq!(out.lines().count(), text.lines().count());
    assert!(out.contains("+-----BEGIN RSA PRIVATE KEY-----"));
    assert!(out.contains("+-----END RSA PRIVATE KEY-----"));
    assert!(out.contains("+fn main() {}"));
    assert!(report.counts.get("private-key").copied().unwrap_or(0) >= 2);
}

#[test]
fn text_without_secrets_is_borrowed() {
    let text = "fn main() {\n    println!(\"hello\");\n}\n";
    let mut report = RedactionReport::default();
    let out = Redactor::new().redact(text, &mut report);
    assert!(matches!(out, std::borrow::Cow::Borrowed(_)));
}

#[test]
fn code_naming_the_pem_marker_does_not_swallow_following_lines() {
    let text = "+    if line.starts_with(\"-----BEGIN PRIVATE KEY-----\") {\n\
                +        in_key = true;\n\
                +    }\n";
    let (out, report) = redact(text);
    assert_eq!(out, text);
    assert_eq!(report.total(), 0);
}

/// The third held-out set (`heldout_families.py`): the families issue 14 names (generic
/// assignments, AWS, password hashes, MongoDB, Azure, ODBC/JDBC, URLs, provider formats),
/// written before the rules for them. First look: see `testdata/redact/README.md`.
#[test]
fn held_out_families_recall() {
    let lines = corpus("heldout-families.txt");
    assert_recall("held-out families", &lines, FAMILIES_FLOOR);
}

/// Below the measured figure by a margin, so a change that loses coverage fails.
const FAMILIES_FLOOR: f64 = 97.0;

/// Look-alikes written with the third held-out set: documented example keys, placeholders,
/// template variables, high-entropy data that is not a credential, code about credentials.
#[test]
fn held_out_lookalikes_stay_byte_identical() {
    let lines = corpus("heldout-families-lookalikes.txt");
    let share = report_altered("held-out look-alikes", &lines);
    assert!(
        share <= FAMILIES_LOOKALIKE_CEILING,
        "{share:.2}% of held-out look-alikes altered > {FAMILIES_LOOKALIKE_CEILING}%"
    );
}

/// Prints the share of `lines` the redactor altered, per tag, and each altered line; returns
/// the share in percent.
fn report_altered(label: &str, lines: &[(String, String)]) -> f64 {
    let changed = altered(lines);
    let share = 100.0 * changed.len() as f64 / lines.len() as f64;
    println!(
        "{label} altered: {share:.2}% ({} of {} lines)\n{}",
        changed.len(),
        lines.len(),
        per_tag(lines, &changed)
            .lines()
            .map(|l| format!("{l} intact"))
            .collect::<Vec<_>>()
            .join("\n")
    );
    for c in &changed {
        println!("altered {c}");
    }
    share
}

/// Above the measured figure by a margin, so a change that loses precision fails.
const FAMILIES_LOOKALIKE_CEILING: f64 = 2.0;

/// The in-sample corpus for issue 14's families (`families.py`), grown with every rule.
#[test]
fn family_corpus_recall() {
    let lines = corpus("families.txt");
    assert!(lines.len() >= 300, "only {} family lines", lines.len());
    assert_recall("family corpus", &lines, 99.0);
}

/// Look-alikes of the in-sample family corpus: documented examples, filler, templates,
/// connection strings without a secret, data, code; all must stay byte-identical.
#[test]
fn family_lookalikes_stay_byte_identical() {
    let lines = corpus("families-lookalikes.txt");
    assert!(lines.len() >= 300, "only {} look-alike lines", lines.len());
    let share = report_altered("family look-alikes", &lines);
    assert!(
        share <= 1.0,
        "{share:.2}% of family look-alikes altered > 1%"
    );
}

/// The Stop's decision log counts redactions per marker, and `status` shows them per type;
/// neither holds a secret.
#[test]
fn stop_logs_redactions_per_marker_and_status_shows_them() {
    use crate::support::TestRepo;
    use crate::support::hook::{HookEnv, event};

    let env = HookEnv::new().var("JEV_PREFLIGHT_SCORER", "local");
    let repo = TestRepo::new();
    repo.write("src/config.py", "TIMEOUT = 30\n");
    repo.commit_all("init");
    env.run(&event("UserPromptSubmit", "s", "p1", repo.path()))
        .ok();
    let key = "AKIAQ2RZ7NJK4TXWB5MD";
    let password = "Vq7#rTz9!kLm2pXw";
    repo.write(
        "src/config.py",
        format!(
            "TIMEOUT = 30\nAWS_ACCESS_KEY_ID = \"{key}\"\nDB_PASSWORD = \"{password}\"\n\
             ADMIN_PASSWORD = \"Zr4!pQ8sWn2#xKe7\"\n"
        ),
    );
    env.run(&event("Stop", "s", "p1", repo.path())).ok();

    let status = |args: &[&str]| {
        let out = env
            .command(args)
            .current_dir(repo.path())
            .output()
            .expect("status runs");
        assert!(out.status.success(), "{out:?}");
        String::from_utf8(out.stdout).expect("utf-8")
    };
    let json: serde_json::Value =
        serde_json::from_str(&status(&["status", "--json"])).expect("json");
    let entry = &json
        .as_array()
        .or_else(|| json["decisions"].as_array())
        .expect("a list of decisions")[0];
    assert_eq!(
        entry["redactions"],
        serde_json::json!({"aws-access-key": 1, "generic-secret": 2}),
        "{entry}"
    );
    let text = status(&["status"]);
    assert!(
        text.contains("3 secret(s) redacted (aws-access-key 1, generic-secret 2)"),
        "{text}"
    );
    for (path, bytes) in env.data_files() {
        let stored = String::from_utf8_lossy(&bytes);
        assert!(
            !stored.contains(key) && !stored.contains(password),
            "{}",
            path.display()
        );
    }
}

/// The fourth held-out set (`heldout_configs.py`): secrets and look-alikes in the config files
/// and languages where they live, written after the issue 14 rules and scored once before
/// any change for it. First look: see `testdata/redact/README.md`.
#[test]
fn held_out_configs() {
    let lines = corpus("heldout-configs.txt");
    let (recall, missed) = recall(&lines);
    let lookalikes = corpus("heldout-configs-lookalikes.txt");
    let changed = altered(&lookalikes);
    let share = 100.0 * changed.len() as f64 / lookalikes.len() as f64;
    println!(
        "held-out configs recall: {recall:.2}% ({} of {} secret lines); look-alikes altered: \
         {share:.2}% ({} of {} lines)",
        lines.len() - missed.len(),
        lines.len(),
        changed.len(),
        lookalikes.len()
    );
    for m in &missed {
        println!("missed {m}");
    }
    for c in &changed {
        println!("altered {c}");
    }
    assert!(
        recall >= CONFIGS_FLOOR,
        "recall {recall:.2}% < {CONFIGS_FLOOR}%"
    );
    assert!(
        share <= CONFIGS_CEILING,
        "{share:.2}% look-alikes altered > {CONFIGS_CEILING}%"
    );
}

/// Below and above the measured figures by a margin, so a change that loses coverage or
/// precision fails.
const CONFIGS_FLOOR: f64 = 95.0;
const CONFIGS_CEILING: f64 = 2.0;

/// Lines drawn from every gitleaks rule's published regex (`scanner_formats.py`): in-sample
/// since issue 14, a guard that each format stays covered.
#[test]
fn scanner_format_recall() {
    let lines = corpus("scanner-formats.txt");
    assert_recall("scanner-format", &lines, SCANNER_FLOOR);
}

/// Below the measured figure by a margin; the misses are mostly client IDs (no secret) and
/// junk a loose regex admits.
const SCANNER_FLOOR: f64 = 93.0;
