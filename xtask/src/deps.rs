//! `cargo xtask check-deps`: every crate in the resolved dependency graph (all targets, all
//! platforms) has a licence expression satisfiable with the licences we accept, and states no
//! `rust-version` newer than ours, so a dependency update cannot silently raise our MSRV.
//!
//! Reads `cargo metadata --locked` only: no network beyond what cargo already fetched, no tool
//! to install. Security advisories are not checked here: that needs the RustSec database, which
//! a machine without general internet cannot reach; `cargo deny check advisories` does it where
//! the network allows.

use std::collections::BTreeSet;
use std::process::Command;

use serde_json::Value;

/// Licences whose terms we accept for code linked into the binary.
const ACCEPTED: &[&str] = &[
    "MIT",
    "MIT-0",
    "Apache-2.0",
    "BSD-2-Clause",
    "BSD-3-Clause",
    "ISC",
    "Zlib",
    "0BSD",
    "Unlicense",
    "CC0-1.0",
    "Unicode-3.0",
    "Unicode-DFS-2016",
    "BSL-1.0",
    "MPL-2.0",
    "CDLA-Permissive-2.0",
];

/// `WITH` exceptions that only widen what a licence allows.
const EXCEPTIONS: &[&str] = &["LLVM-exception"];

/// Runs the check; `Ok(false)` when a crate breaks a rule (each problem printed on a line).
pub fn run(args: &[String]) -> Result<bool, String> {
    if let Some(arg) = args.first() {
        return Err(format!("`check-deps` takes no arguments, got `{arg}`"));
    }
    let out = Command::new(std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into()))
        .args(["metadata", "--locked", "--format-version", "1"])
        .output()
        .map_err(|e| format!("cannot run cargo metadata: {e}"))?;
    if !out.status.success() {
        return Err(format!(
            "cargo metadata failed: {}",
            String::from_utf8_lossy(&out.stderr).trim()
        ));
    }
    let meta: Value = serde_json::from_slice(&out.stdout)
        .map_err(|e| format!("cargo metadata printed something that is not JSON: {e}"))?;
    let report = check(&meta)?;
    for line in &report.problems {
        println!("check-deps: {line}");
    }
    println!(
        "check-deps: {} crates, MSRV {}: {} problem(s)",
        report.crates,
        report.msrv,
        report.problems.len()
    );
    Ok(report.problems.is_empty())
}

/// What [`check`] found.
struct Report {
    crates: usize,
    msrv: String,
    problems: Vec<String>,
}

/// Checks the dependencies in `cargo metadata` output against [`ACCEPTED`] and our MSRV.
fn check(meta: &Value) -> Result<Report, String> {
    let ids = |key: &str| -> BTreeSet<&str> {
        meta[key]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(Value::as_str)
            .collect()
    };
    let ours = ids("workspace_members");
    let resolved: BTreeSet<&str> = meta["resolve"]["nodes"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|n| n["id"].as_str())
        .collect();
    let packages = meta["packages"]
        .as_array()
        .ok_or("cargo metadata has no packages")?;
    let id = |p: &Value| p["id"].as_str().unwrap_or_default().to_owned();
    let msrvs: BTreeSet<Option<&str>> = packages
        .iter()
        .filter(|p| ours.contains(id(p).as_str()))
        .map(|p| p["rust_version"].as_str())
        .collect();
    let msrv = match msrvs.iter().collect::<Vec<_>>()[..] {
        [Some(v)] => (*v).to_owned(),
        _ => {
            return Err(format!(
                "the workspace crates must state one rust-version, found {msrvs:?}"
            ));
        }
    };
    let mut problems = Vec::new();
    let mut crates = 0;
    for p in packages {
        let pid = id(p);
        if !resolved.contains(pid.as_str()) || ours.contains(pid.as_str()) {
            continue;
        }
        crates += 1;
        let name = format!(
            "{} {}",
            p["name"].as_str().unwrap_or("?"),
            p["version"].as_str().unwrap_or("?")
        );
        match p["license"].as_str() {
            None | Some("") => {
                problems.push(format!(
                    "{name}: no SPDX licence expression (licence file only)"
                ));
            }
            Some(lic) => match satisfiable(lic) {
                Ok(true) => {}
                Ok(false) => {
                    problems.push(format!(
                        "{name}: licence `{lic}` is not on the accepted list"
                    ));
                }
                Err(e) => {
                    problems.push(format!(
                        "{name}: cannot read the licence expression `{lic}` ({e})"
                    ));
                }
            },
        }
        if let Some(rv) = p["rust_version"].as_str()
            && version(rv) > version(&msrv)
        {
            problems.push(format!(
                "{name}: needs Rust {rv}, newer than our MSRV {msrv}"
            ));
        }
    }
    Ok(Report {
        crates,
        msrv,
        problems,
    })
}

/// `1.80` → `(1, 80, 0)`; parts that are not numbers count as 0.
fn version(text: &str) -> (u64, u64, u64) {
    let mut parts = text.split('.').map(|p| p.parse().unwrap_or(0));
    let mut next = || parts.next().unwrap_or(0);
    (next(), next(), next())
}

/// Whether an SPDX expression can be met with [`ACCEPTED`] licences: `OR` binds looser than
/// `AND`, which binds looser than `WITH`; parentheses group; the old `/` means `OR`.
fn satisfiable(expr: &str) -> Result<bool, &'static str> {
    let tokens = tokens(expr);
    let mut parser = Parser {
        tokens: &tokens,
        at: 0,
    };
    let value = parser.disjunction()?;
    if parser.at != tokens.len() {
        return Err("trailing tokens");
    }
    Ok(value)
}

/// Splits an SPDX expression into parentheses and words.
fn tokens(expr: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut word = String::new();
    for c in expr.chars() {
        if c.is_ascii_alphanumeric() || matches!(c, '.' | '+' | '-') {
            word.push(c);
            continue;
        }
        if !word.is_empty() {
            out.push(std::mem::take(&mut word));
        }
        match c {
            '(' | ')' => out.push(c.to_string()),
            '/' => out.push("OR".to_owned()),
            _ => {}
        }
    }
    if !word.is_empty() {
        out.push(word);
    }
    out
}

/// A recursive-descent reader of SPDX tokens.
struct Parser<'a> {
    tokens: &'a [String],
    at: usize,
}

impl Parser<'_> {
    fn peek(&self) -> Option<&str> {
        self.tokens.get(self.at).map(String::as_str)
    }

    fn take(&mut self) -> Result<&str, &'static str> {
        let t = self
            .tokens
            .get(self.at)
            .ok_or("the expression ends early")?;
        self.at += 1;
        Ok(t)
    }

    fn disjunction(&mut self) -> Result<bool, &'static str> {
        let mut v = self.conjunction()?;
        while self.peek() == Some("OR") {
            self.at += 1;
            v = self.conjunction()? || v;
        }
        Ok(v)
    }

    fn conjunction(&mut self) -> Result<bool, &'static str> {
        let mut v = self.atom()?;
        while self.peek() == Some("AND") {
            self.at += 1;
            v = self.atom()? && v;
        }
        Ok(v)
    }

    fn atom(&mut self) -> Result<bool, &'static str> {
        let t = self.take()?.to_owned();
        if t == "(" {
            let v = self.disjunction()?;
            return match self.take()? {
                ")" => Ok(v),
                _ => Err("unbalanced parentheses"),
            };
        }
        let mut ok = ACCEPTED.contains(&t.as_str());
        if self.peek() == Some("WITH") {
            self.at += 1;
            let exception = self.take()?;
            ok = ok && EXCEPTIONS.contains(&exception);
        }
        Ok(ok)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spdx_expressions() {
        assert_eq!(satisfiable("MIT"), Ok(true));
        assert_eq!(satisfiable("MIT OR Apache-2.0"), Ok(true));
        assert_eq!(satisfiable("GPL-3.0 OR MIT"), Ok(true));
        assert_eq!(satisfiable("GPL-3.0 AND MIT"), Ok(false));
        assert_eq!(satisfiable("MIT/Apache-2.0"), Ok(true));
        assert_eq!(satisfiable("(MIT OR Apache-2.0) AND Unicode-3.0"), Ok(true));
        assert_eq!(satisfiable("Apache-2.0 WITH LLVM-exception"), Ok(true));
        assert_eq!(satisfiable("Apache-2.0 WITH Some-exception"), Ok(false));
        assert!(satisfiable("(MIT").is_err());
        assert!(satisfiable("MIT Apache-2.0").is_err());
    }

    #[test]
    fn versions_compare_by_number() {
        assert!(version("1.100") > version("1.85.0"));
        assert_eq!(version("1.85"), (1, 85, 0));
    }

    #[test]
    fn a_newer_msrv_and_a_foreign_licence_are_reported() {
        let meta = serde_json::json!({
            "workspace_members": ["ours"],
            "resolve": {"nodes": [{"id": "ours"}, {"id": "a"}, {"id": "b"}]},
            "packages": [
                {"id": "ours", "name": "ours", "version": "1.0.0", "rust_version": "1.85"},
                {"id": "a", "name": "a", "version": "0.1.0", "license": "GPL-3.0",
                 "rust_version": "1.90"},
                {"id": "b", "name": "b", "version": "0.2.0", "license": "MIT"},
                {"id": "c", "name": "unresolved", "version": "0.3.0"},
            ],
        });
        let report = check(&meta).unwrap();
        assert_eq!(report.crates, 2);
        assert_eq!(report.msrv, "1.85");
        assert_eq!(
            report.problems,
            [
                "a 0.1.0: licence `GPL-3.0` is not on the accepted list",
                "a 0.1.0: needs Rust 1.90, newer than our MSRV 1.85",
            ]
        );
    }
}
