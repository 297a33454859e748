//! An SQL statement built from what a function takes in and run: a parameter of the
//! enclosing function (or request data) spliced into the statement's text on the line that
//! runs it, or into a statement a later line of the same hunk runs.
//!
//! `sql-from-string` fires on any statement built from values; many of those values are
//! constants, configuration or numbers, which only dataflow analysis tells apart. A value
//! the function was *given* is the case a reviewer flags at a glance (`def find(name):
//! cur.execute(f"… '{name}'")`), so it is a rule of its own with its own measured strength.

use super::*;

/// Whether the changed line at `i` of a hunk's new side, which builds an SQL statement from
/// values ([`sql_string`] and [`interpolated`], checked by the caller; `spliced` is its
/// [`spliced_values`]), splices a parameter of its function, or request data, into it, and
/// the statement is run.
pub(super) fn sql_from_input(
    at: &NewLine<'_>,
    spliced: Option<&[String]>,
    tainted: &[String],
) -> bool {
    let (new, i, raw, dialect) = (at.new, at.i, at.raw, at.dialect);
    let runs_sql = |c: &str| sink_of(c, dialect).is_some_and(|(r, _)| r == Rule::SqlFromString);
    // An ORM method that takes SQL text runs it too.
    let run_here = runs_sql(at.code) || raw_sql_call(at.full, dialect);
    let run_later = || {
        let names = assigned_names(at.code);
        !names.is_empty()
            && at.lowered[i + 1..]
                .iter()
                .take(8)
                .any(|l| runs_sql(&l.code) && names.iter().any(|n| uses_word(&l.code, n)))
    };
    if !run_here && !run_later() {
        return false;
    }
    let values = match spliced {
        Some(v) => v.to_vec(),
        None => formatted_values(raw),
    };
    if values.is_empty() {
        return false;
    }
    let params = enclosing_params(new, i, at.header, dialect);
    values.iter().any(|v| {
        let v = v.trim();
        if safe_sql_piece(v) {
            return false;
        }
        let lower = v.to_ascii_lowercase();
        if has_source(&lower) || tainted.iter().any(|n| uses_word(&lower, n)) {
            return !sanitized(&lower);
        }
        let head = lower
            .trim_start_matches(['$', '@', '(', '*', '&'])
            .split(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
            .next()
            .unwrap_or("");
        // The value itself (or a field of it), not something computed from it by a call.
        let plain = !lower.contains('(');
        plain && !head.is_empty() && params.iter().any(|p| p == head)
    })
}

/// The arguments after a format string (`Sprintf("… %s", a)`, `"…".format(a)`, `"…" % a`,
/// `String.format("…", a)`): the values of a line [`spliced_values`] does not read.
fn formatted_values(raw: &str) -> Vec<String> {
    let lower = raw.to_ascii_lowercase();
    let mut out = Vec::new();
    for call in ["sprintf(", "string.format(", "format!("] {
        if let Some(at) = lower.find(call) {
            let args = call_args(raw, at + call.len());
            out.extend(top_level_split(args).into_iter().skip(1));
        }
    }
    if let Some(at) = lower.find(".format(") {
        out.extend(top_level_split(call_args(raw, at + ".format(".len())));
    }
    for op in ["\" %", "' %"] {
        if let Some(at) = raw.find(op) {
            let rest = raw[at + op.len()..].trim_start();
            let rest = rest.strip_prefix('(').unwrap_or(rest);
            let end = rest.find([')', ';']).unwrap_or(rest.len());
            out.extend(top_level_split(&rest[..end]));
        }
    }
    out.into_iter()
        .map(|v| v.split('=').next_back().unwrap_or(&v).trim().to_owned())
        .filter(|v| !v.is_empty())
        .collect()
}

/// `text` split at its top-level commas (not inside brackets or quotes).
fn top_level_split(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut rest = text;
    loop {
        let head = first_arg(rest);
        out.push(head.trim().to_owned());
        if head.len() >= rest.len() {
            break;
        }
        rest = &rest[head.len() + 1..];
    }
    out
}

/// The parameter names (lower-cased) of the function around line `i`: the nearest line
/// above it, less indented, that declares a function, or else the hunk's function context.
/// Parameters typed as numbers or booleans are left out: they cannot carry SQL.
fn enclosing_params(new: &[SideLine<'_>], i: usize, header: &str, dialect: Dialect) -> Vec<String> {
    let indent = |s: &str| s.len() - s.trim_start().len();
    let mine = indent(new[i].text);
    for l in new[..i].iter().rev() {
        if l.text.trim().is_empty() || indent(l.text) >= mine {
            continue;
        }
        if let Some(params) = declared_params(l.text.trim(), dialect) {
            return params;
        }
    }
    declared_params(header, dialect).unwrap_or_default()
}

/// Words before `(` that are statements, not function names.
const NOT_FUNCTIONS: &[&str] = &[
    "if",
    "for",
    "while",
    "switch",
    "catch",
    "using",
    "lock",
    "foreach",
    "synchronized",
    "return",
    "match",
    "elif",
    "with",
    "when",
    "unless",
    "until",
    "new",
    "await",
    "throw",
    "try",
    "do",
    "else",
    "elseif",
    "elsif",
    "case",
    "defer",
    "go",
    "assert",
    "typeof",
    "sizeof",
    "fixed",
    "checked",
    "unchecked",
];

/// If `line` declares a function (or a closure or lambda), its parameter names.
fn declared_params(line: &str, dialect: Dialect) -> Option<Vec<String>> {
    let t = line.trim();
    let lower = t.to_ascii_lowercase();
    let open = match dialect {
        Dialect::Python | Dialect::Ruby => {
            let at = lower.find("def ")?;
            let after = &t[at + 4..];
            match after.find('(') {
                Some(p) => at + 4 + p,
                // Ruby `def find name, kind`.
                None => {
                    let args = after.split_once(' ').map_or("", |(_, r)| r);
                    return Some(param_names(args, dialect));
                }
            }
        }
        Dialect::Go => {
            let at = lower.rfind("func")?;
            let after = &t[at + 4..];
            if after.starts_with('(') {
                at + 4
            } else if let Some(recv) = after.strip_prefix(" (") {
                // A method: skip the receiver.
                let close = recv.find(')')?;
                let rest = &recv[close + 1..];
                at + 4 + 2 + close + 1 + rest.find('(')?
            } else {
                at + 4 + after.find('(')?
            }
        }
        _ => {
            if let Some(at) = lower.find("function") {
                at + lower[at..].find('(')?
            } else if let Some(at) = lower.find("fn ") {
                at + lower[at..].find('(')?
            } else if let Some(arrow) = t.find("=>") {
                let before = t[..arrow].trim_end();
                match before.strip_suffix(')') {
                    Some(_) => matching_open(before)?,
                    None => {
                        let name = before.rsplit([' ', '(', ',', '=']).next().unwrap_or("");
                        return Some(param_names(name, dialect));
                    }
                }
            } else {
                // A method declaration: `Type name(params) {` or `name(params)` alone.
                let open = t.find('(')?;
                let head = t[..open].trim_end();
                let name = head.rsplit([' ', '.']).next().unwrap_or("");
                let declares = (t.ends_with('{') || t.ends_with(')') || t.contains(") throws"))
                    && !head.contains('=')
                    && !name.is_empty()
                    && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
                    && !NOT_FUNCTIONS.contains(&name.to_ascii_lowercase().as_str())
                    && !t.ends_with(");");
                if !declares {
                    return None;
                }
                open
            }
        }
    };
    let args = call_args(t, open + 1);
    Some(param_names(args, dialect))
}

/// The index of the `(` that matches the `)` ending `text`.
fn matching_open(text: &str) -> Option<usize> {
    let mut depth = 0i32;
    for (i, c) in text.char_indices().rev() {
        match c {
            ')' => depth += 1,
            '(' => {
                depth -= 1;
                if depth == 0 {
                    return Some(i);
                }
            }
            _ => {}
        }
    }
    None
}

/// Types a value cannot carry SQL in.
const SCALAR_TYPES: &[&str] = &[
    "int", "integer", "long", "short", "uint", "int32", "int64", "uint32", "uint64", "usize",
    "isize", "i32", "i64", "u32", "u64", "float", "double", "decimal", "number", "bool", "boolean",
    "float64", "float32", "f64", "f32", "uuid",
];

/// The names in a parameter list, lower-cased, without receivers (`self`, `cls`, `this`)
/// and parameters of a scalar type.
fn param_names(args: &str, dialect: Dialect) -> Vec<String> {
    let mut out = Vec::new();
    for piece in top_level_split(args) {
        let piece = piece
            .split('=')
            .next()
            .unwrap_or("")
            .trim()
            .to_ascii_lowercase();
        let words: Vec<&str> = piece
            .split(|c: char| !(c.is_ascii_alphanumeric() || c == '_' || c == '$'))
            .filter(|w| !w.is_empty())
            .collect();
        if words
            .iter()
            .any(|w| SCALAR_TYPES.contains(&w.trim_start_matches('$')))
        {
            continue;
        }
        let name = if let Some((before, _)) = piece.split_once(':') {
            before
                .split(|c: char| !(c.is_ascii_alphanumeric() || c == '_' || c == '$'))
                .rfind(|w| !w.is_empty())
                .unwrap_or("")
        } else if dialect == Dialect::Php {
            words
                .iter()
                .copied()
                .find(|w| w.starts_with('$'))
                .unwrap_or("")
        } else if dialect == Dialect::Go {
            words.first().copied().unwrap_or("")
        } else {
            words.last().copied().unwrap_or("")
        };
        let name = name.trim_start_matches('$');
        if !name.is_empty() && !matches!(name, "self" | "cls" | "this" | "mut") {
            out.push(name.to_owned());
        }
    }
    out
}

/// A call of an ORM method whose string argument is SQL text, opened with a string
/// (`where("name = '#{name}'")`, `.raw(f"…")`, `.whereRaw(`…`)`): the text is SQL though it
/// need not name a statement (`full` is the line lower-cased with strings kept, squeezed).
pub(super) fn raw_sql_call(full: &str, dialect: Dialect) -> bool {
    let calls: &[&str] = match dialect {
        Dialect::Ruby => &[
            "where(\"",
            "order(\"",
            "reorder(\"",
            "having(\"",
            "group(\"",
            "joins(\"",
            "find_by_sql(\"",
            "count_by_sql(\"",
            "exists?(\"",
        ],
        Dialect::Python => &[
            ".raw(f\"",
            ".raw(f'",
            "rawsql(f\"",
            "rawsql(f'",
            ".extra(where=[f",
        ],
        Dialect::Js => &[
            "whereraw(`",
            "orderbyraw(`",
            "havingraw(`",
            ".raw(`",
            "sequelize.literal(`",
            "sequelize.query(`",
        ],
        _ => return false,
    };
    any(full, calls)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scorer::local::detect::tests::scores_stay_in_range;

    fn params(line: &str, dialect: Dialect) -> Vec<String> {
        declared_params(line, dialect).unwrap_or_default()
    }

    #[test]
    fn parameters_are_read_in_each_language() {
        assert_eq!(
            params("def find(self, name, limit: int = 10):", Dialect::Python),
            ["name"]
        );
        assert_eq!(
            params("async def find(name: str):", Dialect::Python),
            ["name"]
        );
        assert_eq!(
            params(
                "func (s *Store) Find(ctx context.Context, name string) error {",
                Dialect::Go
            ),
            ["ctx", "name"]
        );
        assert_eq!(params("return func(db *sql.DB) {", Dialect::Go), ["db"]);
        assert_eq!(
            params(
                "public List<User> find(final String name, int id) {",
                Dialect::Java
            ),
            ["name"]
        );
        assert_eq!(
            params("function find($name, int $id) {", Dialect::Php),
            ["name"]
        );
        assert_eq!(
            params("app.get('/u', async (req, res) => {", Dialect::Js),
            ["req", "res"]
        );
        assert_eq!(params("const f = name => {", Dialect::Js), ["name"]);
        assert_eq!(
            params("def find name, kind", Dialect::Ruby),
            ["name", "kind"]
        );
        assert_eq!(
            params(
                "fn find(conn: &Connection, name: &str) -> Result<()> {",
                Dialect::Rust
            ),
            ["conn", "name"]
        );
        assert!(declared_params("if (user.isAdmin()) {", Dialect::Java).is_none());
        assert!(declared_params("query(name);", Dialect::Java).is_none());
        // A resource block is not a declaration: the method above it is.
        assert!(
            declared_params("try (Connection c = ds.getConnection()) {", Dialect::Java).is_none()
        );
        assert!(declared_params("} else if (name != null) {", Dialect::Java).is_none());
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(256))]

        // Declarations, SQL, sinks, brackets and multi-byte text in any order: the rule reads
        // byte offsets into them, so none may panic, in any language.
        #[test]
        fn any_mix_of_the_rule_s_pieces_reads_without_panicking(
            lines in proptest::collection::vec(
                proptest::collection::vec(proptest::sample::select(PIECES.to_vec()), 0..12),
                1..8,
            ),
            ext in proptest::sample::select(vec!["py", "go", "js", "java", "php", "rb", "rs", "cs"]),
        ) {
            let body: String = lines.iter().map(|l| format!("+{}\n", l.concat())).collect();
            let header = " def find(name): func (s *S) F(é string) {";
            let sides = (1, lines.len() + 1);
            proptest::prop_assert!(scores_stay_in_range(ext, header, sides, &body));
        }
    }

    const PIECES: &[&str] = &[
        "def ",
        "func ",
        "function ",
        "fn ",
        " (",
        "(",
        ")",
        "{",
        "}",
        "=>",
        ",",
        ":",
        "=",
        " ",
        "    ",
        "\t",
        "name",
        "$name",
        "int ",
        "self",
        "f\"",
        "\"",
        "'",
        "`",
        "${",
        "#{",
        "SELECT * FROM t WHERE a = '",
        "\" % ",
        ".format(",
        "Sprintf(",
        "+",
        " . ",
        ".query(",
        "->query(",
        "cur.execute(",
        "q := ",
        "é",
        "日本",
        "request.args",
        ";",
    ];

    #[test]
    fn formatted_values_are_read() {
        assert_eq!(
            formatted_values("q := fmt.Sprintf(\"SELECT * FROM t WHERE a = '%s'\", name)"),
            ["name"]
        );
        assert_eq!(
            formatted_values("cur.execute(\"SELECT * FROM t WHERE a = '%s'\" % name)"),
            ["name"]
        );
        assert_eq!(
            formatted_values("cur.execute(\"SELECT * FROM t WHERE a = '{}'\".format(name))"),
            ["name"]
        );
    }
}
