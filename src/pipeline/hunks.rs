//! The hunks of a payload's diff, each named by a fingerprint of its content: what the hook's
//! memory ([`crate::hook::remember`]) keys on, so that a finding the agent was already asked
//! about is recognized in a later diff however far its lines moved.
//!
//! A hunk's fingerprint is the SHA-256 of its path, an axis id and its changed lines — each
//! with its sign, trimmed of surrounding whitespace, blank ones left out — and nothing else:
//! not its line numbers, not its context. The same change made again anywhere in the same
//! file has the same fingerprint; a change to any of its lines (or its reversal) has another.
//! Which hunks carry an axis: those holding a line the scorer named as evidence for it, or,
//! when it named none there (remote scorers give no evidence), every hunk of the payload.

use sha2::{Digest, Sha256};

use crate::pipeline::axes::Evidence;

/// One hunk of the payload.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Hunk {
    /// The file's path as the payload names it (its new side).
    pub path: String,
    /// First line and count on the old side, then on the new side.
    pub old: (u32, u32),
    pub new: (u32, u32),
    /// The changed lines, sign first (`+x`, `-y`), trimmed; blank ones left out.
    pub changed: Vec<String>,
    /// The hunk's lines on the new side, context and added, in order, trimmed; blank ones
    /// left out: the lines as the change left them.
    pub new_side: Vec<String>,
}

impl Hunk {
    /// The hunk's fingerprint for `axis`: 32 hex digits of SHA-256.
    pub fn fingerprint(&self, axis: &str) -> String {
        let mut h = Sha256::new();
        h.update(b"jev-preflight hunk v1\0");
        h.update(self.path.as_bytes());
        h.update(b"\0");
        h.update(axis.as_bytes());
        h.update(b"\0");
        for line in &self.changed {
            h.update(line.as_bytes());
            h.update(b"\n");
        }
        h.finalize()[..16]
            .iter()
            .map(|b| format!("{b:02x}"))
            .collect()
    }

    /// Whether line `n` (old or new side) falls inside the hunk.
    fn holds(&self, n: u32) -> bool {
        let within = |(start, count): (u32, u32)| n >= start && n < start.saturating_add(count);
        within(self.old) || within(self.new)
    }
}

/// The hunks of `diff` (the payload's unified diff text), in order. Sections without hunks
/// (metadata-only, binary, the partial marker) have none; hunks with no changed line other
/// than blank ones are left out.
pub fn parse(diff: &str) -> Vec<Hunk> {
    let mut hunks = Vec::new();
    let mut path: Option<String> = None;
    let mut current: Option<Hunk> = None;
    let mut in_header = false;
    for line in diff.lines() {
        if let Some(rest) = line.strip_prefix("diff --git ") {
            hunks.extend(current.take().filter(|h| !h.changed.is_empty()));
            path = new_path(rest);
            in_header = true;
            continue;
        }
        if let Some(range) = line.strip_prefix("@@ ") {
            hunks.extend(current.take().filter(|h| !h.changed.is_empty()));
            in_header = false;
            if let (Some(p), Some((old, new))) = (&path, ranges(range)) {
                current = Some(Hunk {
                    path: p.clone(),
                    old,
                    new,
                    changed: Vec::new(),
                    new_side: Vec::new(),
                });
            }
            continue;
        }
        if in_header {
            // `--- a/x` and `+++ b/x` belong to the header, not to a hunk.
            continue;
        }
        let Some(hunk) = current.as_mut() else {
            continue;
        };
        let (sign, text) = match line.as_bytes().first() {
            Some(b'+') => ('+', &line[1..]),
            Some(b'-') => ('-', &line[1..]),
            Some(b' ') => (' ', &line[1..]),
            _ => continue,
        };
        let text = text.trim();
        if text.is_empty() {
            continue;
        }
        if sign != '-' {
            hunk.new_side.push(text.to_owned());
        }
        if sign != ' ' {
            hunk.changed.push(format!("{sign}{text}"));
        }
    }
    hunks.extend(current.filter(|h| !h.changed.is_empty()));
    hunks
}

/// The `b/` path of a `diff --git a/x b/y` header (paths with spaces: the last ` b/`).
fn new_path(rest: &str) -> Option<String> {
    let at = rest.rfind(" b/")?;
    Some(rest[at + 3..].to_owned())
}

/// `-a,b +c,d @@…` → ((a, b), (c, d)); a missing count is 1.
fn ranges(text: &str) -> Option<((u32, u32), (u32, u32))> {
    let mut parts = text.split_whitespace();
    let side = |p: Option<&str>, sign: char| -> Option<(u32, u32)> {
        let p = p?.strip_prefix(sign)?;
        let (start, count) = match p.split_once(',') {
            Some((s, c)) => (s.parse().ok()?, c.parse().ok()?),
            None => (p.parse().ok()?, 1),
        };
        Some((start, count))
    };
    Some((side(parts.next(), '-')?, side(parts.next(), '+')?))
}

/// The indexes of the hunks that carry `axis`: those holding a line named by its evidence (a
/// file named without a line: all of that file's hunks), else all of them.
pub fn carrying(hunks: &[Hunk], axis: usize, evidence: &[Evidence]) -> Vec<usize> {
    let mut picked: Vec<usize> = Vec::new();
    for e in evidence.iter().filter(|e| e.axis == axis) {
        for (i, h) in hunks.iter().enumerate() {
            if h.path == e.file && e.line.is_none_or(|n| h.holds(n)) && !picked.contains(&i) {
                picked.push(i);
            }
        }
    }
    if picked.is_empty() {
        picked = (0..hunks.len()).collect();
    }
    picked.sort_unstable();
    picked
}

#[cfg(test)]
mod tests {
    use super::*;

    const DIFF: &str = "diff --git a/src/api.rs b/src/api.rs\n--- a/src/api.rs\n+++ b/src/api.rs\n\
@@ -3,5 +3,3 @@ pub fn delete_user(db: &mut Db) {\n     let x = \
    1;\n-    require_admin(caller)?;\n \n-\n     db.delete(id)?;\n\
@@ -20,2 +18,3 @@\n fn g() {\n+    log(\"x\");\n }\n\
diff --git a/img/a.png b/img/a.png\n# path: img/a.png\n# status: added\n# binary \
    file, content not included\n\
diff --git a/my dir/b c.py b/my dir/b c.py\nnew file mode \
    100644\n--- /dev/null\n+++ b/my dir/b c.py\n@@ -0,0 +1 @@\n+print(1)\n\
# jev-preflight: partial diff: 1 of 4 files left out to stay within the size limit\n#   z.rs\n";

    #[test]
    fn hunks_are_parsed_with_their_changed_lines_only() {
        let hunks = parse(DIFF);
        type Summary<'a> = (&'a str, (u32, u32), (u32, u32), Vec<&'a str>);
        let summary: Vec<Summary<'_>> = hunks
            .iter()
            .map(|h| {
                (
                    h.path.as_str(),
                    h.old,
                    h.new,
                    h.changed.iter().map(String::as_str).collect(),
                )
            })
            .collect();
        assert_eq!(
            summary,
            vec![
                (
                    "src/api.rs",
                    (3, 5),
                    (3, 3),
                    vec!["-require_admin(caller)?;"]
                ),
                ("src/api.rs", (20, 2), (18, 3), vec!["+log(\"x\");"]),
                ("my dir/b c.py", (0, 0), (1, 1), vec!["+print(1)"]),
            ]
        );
    }

    #[test]
    fn fingerprints_ignore_line_numbers_context_and_indentation_only() {
        let moved = DIFF
            .replace("@@ -3,5 +3,3 @@", "@@ -40,5 +41,3 @@")
            .replace("     let x = 1;\n", "     let y = 2;\n")
            .replace("-    require_admin", "-\trequire_admin");
        let (a, b) = (parse(DIFF), parse(&moved));
        assert_eq!(
            a[0].fingerprint("auth_boundary"),
            b[0].fingerprint("auth_boundary")
        );
        // Another axis, another path, another changed line, or the reversal: another print.
        assert_ne!(
            a[0].fingerprint("auth_boundary"),
            a[0].fingerprint("lifecycle")
        );
        let renamed = DIFF.replace("src/api.rs", "src/other.rs");
        assert_ne!(
            a[0].fingerprint("auth_boundary"),
            parse(&renamed)[0].fingerprint("auth_boundary")
        );
        let edited = DIFF.replace("-    require_admin(caller)?;", "-    require_admin(user)?;");
        assert_ne!(
            a[0].fingerprint("auth_boundary"),
            parse(&edited)[0].fingerprint("auth_boundary")
        );
        let reverted = DIFF.replace(
            "-    require_admin(caller)?;",
            "+    require_admin(caller)?;",
        );
        assert_ne!(
            a[0].fingerprint("auth_boundary"),
            parse(&reverted)[0].fingerprint("auth_boundary")
        );
        assert_eq!(a[0].fingerprint("auth_boundary").len(), 32);
        assert_eq!(a[0].new_side, ["let x = 1;", "db.delete(id)?;"]);
        assert_eq!(a[1].new_side, ["fn g() {", "log(\"x\");", "}"]);
    }

    #[test]
    fn evidence_picks_the_hunks_that_carry_an_axis() {
        let hunks = parse(DIFF);
        let ev = |file: &str, line: Option<u32>| Evidence {
            axis: 1,
            file: file.into(),
            line,
            note: String::new(),
        };
        // A removed line's old number, an added line's new number, a whole file.
        assert_eq!(carrying(&hunks, 1, &[ev("src/api.rs", Some(4))]), [0]);
        assert_eq!(carrying(&hunks, 1, &[ev("src/api.rs", Some(19))]), [1]);
        assert_eq!(carrying(&hunks, 1, &[ev("src/api.rs", None)]), [0, 1]);
        // No evidence for the axis (or none that lands): every hunk.
        assert_eq!(carrying(&hunks, 1, &[]), [0, 1, 2]);
        assert_eq!(carrying(&hunks, 2, &[ev("src/api.rs", Some(4))]), [0, 1, 2]);
        assert_eq!(carrying(&hunks, 1, &[ev("gone.rs", Some(1))]), [0, 1, 2]);
    }
}
