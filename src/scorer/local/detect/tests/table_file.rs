//! The reader of `table.txt`, the detector table: its format is described at its top. A
//! malformed table is refused with the number of the line that is wrong.

use super::{added, created_file, deleted_file, edit, edit_in};

/// Closes a body line whose text would otherwise end in a space or a tab.
const END: char = '⏎';

/// The builder that writes a file's diff, by its name in the table.
#[derive(Clone, Copy)]
enum Kind {
    /// [`added`]
    Added,
    /// [`edit`]
    Edit,
    /// [`edit_in`]
    EditIn,
    /// [`created_file`]
    Created,
    /// [`deleted_file`]
    Deleted,
}

impl Kind {
    const ALL: [Kind; 5] = [
        Kind::Added,
        Kind::Edit,
        Kind::EditIn,
        Kind::Created,
        Kind::Deleted,
    ];

    fn name(self) -> &'static str {
        match self {
            Kind::Added => "added",
            Kind::Edit => "edit",
            Kind::EditIn => "edit-in",
            Kind::Created => "created",
            Kind::Deleted => "deleted",
        }
    }

    /// Whether a file of this kind takes lines for `part`.
    fn takes(self, part: usize) -> bool {
        match self {
            Kind::Added | Kind::Created => part == NEW,
            Kind::Deleted => part == OLD,
            Kind::Edit => part == OLD || part == NEW,
            Kind::EditIn => true,
        }
    }
}

// The parts of a file's lines, in the order they are written: context before the change,
// old lines, new lines, context after the change.
const BEFORE: usize = 0;
const OLD: usize = 1;
const NEW: usize = 2;
const AFTER: usize = 3;

/// One file of a row's side: the builder that writes its diff and the lines it takes.
pub(super) struct Diff<'a> {
    kind: Kind,
    path: &'a str,
    /// The line of its header.
    line: usize,
    /// Indexed by [`BEFORE`], [`OLD`], [`NEW`] and [`AFTER`].
    parts: [Vec<&'a str>; 4],
}

impl Diff<'_> {
    fn render(&self) -> String {
        let [before, old, new, after] = &self.parts;
        match self.kind {
            Kind::Added => added(self.path, new),
            Kind::Edit => edit(self.path, old, new),
            Kind::EditIn => edit_in(self.path, before, old, new, after),
            Kind::Created => created_file(self.path, new),
            Kind::Deleted => deleted_file(self.path, old),
        }
    }
}

/// A row of the table: the rule fires on the risky diff and not on the safe one. A side of
/// more than one file is a turn that touches them all, one diff after the other.
pub(super) struct Row<'a> {
    pub(super) rule: &'a str,
    /// The line of its `rule` header.
    line: usize,
    risky: Vec<Diff<'a>>,
    safe: Vec<Diff<'a>>,
}

impl Row<'_> {
    pub(super) fn risky(&self) -> String {
        self.risky.iter().map(Diff::render).collect()
    }

    pub(super) fn safe(&self) -> String {
        self.safe.iter().map(Diff::render).collect()
    }
}

/// What is wrong and on which line.
type Malformed = (usize, String);

/// The rows of a table in the format of `table.txt`, or `line N: what is wrong`.
pub(super) fn parse(text: &str) -> Result<Vec<Row<'_>>, String> {
    let mut rows = Vec::new();
    let read = text
        .lines()
        .zip(1..)
        .try_for_each(|(line, n)| read_line(&mut rows, n, line))
        .and_then(|()| rows.last().map_or(Ok(()), complete));
    match read {
        Err((n, what)) => Err(format!("line {n}: {what}")),
        Ok(()) if rows.is_empty() => Err("no rows".to_string()),
        Ok(()) => Ok(rows),
    }
}

fn read_line<'a>(rows: &mut Vec<Row<'a>>, n: usize, line: &'a str) -> Result<(), Malformed> {
    if line.ends_with([' ', '\t']) {
        let why = format!("ends in a space or a tab, which editors strip: end it with {END}");
        return Err((n, why));
    }
    match line.chars().next() {
        None | Some('#') => Ok(()),
        Some(prefix @ ('+' | '-' | ' ')) => body(rows, n, prefix, &line[1..]),
        Some(_) => header(rows, n, line),
    }
}

fn header<'a>(rows: &mut Vec<Row<'a>>, n: usize, line: &'a str) -> Result<(), Malformed> {
    let (word, rest) = line.split_once(' ').unwrap_or((line, ""));
    match word {
        "rule" if rest.is_empty() => Err((n, "`rule` without a name".to_string())),
        "rule" => {
            rows.last().map_or(Ok(()), complete)?;
            rows.push(Row {
                rule: rest,
                line: n,
                risky: Vec::new(),
                safe: Vec::new(),
            });
            Ok(())
        }
        "risky" | "safe" => {
            let row = rows
                .last_mut()
                .ok_or_else(|| (n, format!("`{word}` before any `rule`")))?;
            let (kind, path) = rest.split_once(' ').unwrap_or((rest, ""));
            let Some(kind) = Kind::ALL.into_iter().find(|k| k.name() == kind) else {
                let known = Kind::ALL.map(Kind::name).join(", ");
                return Err((n, format!("unknown kind `{kind}`: one of {known}")));
            };
            if path.is_empty() {
                return Err((n, format!("`{word} {}` without a path", kind.name())));
            }
            if word == "risky" && !row.safe.is_empty() {
                return Err((
                    n,
                    "`risky` after `safe`: a row lists its risky files first".into(),
                ));
            }
            let side = if word == "risky" {
                &mut row.risky
            } else {
                &mut row.safe
            };
            side.push(Diff {
                kind,
                path,
                line: n,
                parts: Default::default(),
            });
            Ok(())
        }
        _ => Err((
            n,
            "not a comment, header or body line: a line starts with `#`, `rule `, `risky `, \
             `safe `, `+`, `-` or a space, or is blank"
                .to_string(),
        )),
    }
}

fn body<'a>(rows: &mut [Row<'a>], n: usize, prefix: char, text: &'a str) -> Result<(), Malformed> {
    let text = text.strip_suffix(END).unwrap_or(text);
    let file = rows
        .last_mut()
        .and_then(|row| row.safe.last_mut().or(row.risky.last_mut()))
        .ok_or_else(|| {
            (
                n,
                "a body line before any `risky` or `safe` header".to_string(),
            )
        })?;
    let (part, what) = match prefix {
        '-' => (OLD, "an old line"),
        '+' => (NEW, "a new line"),
        _ if file.parts[OLD].is_empty() && file.parts[NEW].is_empty() => (BEFORE, "context"),
        _ => (AFTER, "context"),
    };
    if !file.kind.takes(part) {
        return Err((
            n,
            format!("{what} in a file of kind `{}`", file.kind.name()),
        ));
    }
    if file.parts[part + 1..].iter().any(|later| !later.is_empty()) {
        let order = "context, old lines (-), new lines (+), context";
        return Err((n, format!("{what} out of order: a file's lines go {order}")));
    }
    file.parts[part].push(text);
    Ok(())
}

/// A finished row has a risky and a safe side, and every file in them has lines.
fn complete(row: &Row<'_>) -> Result<(), Malformed> {
    for (side, files) in [("risky", &row.risky), ("safe", &row.safe)] {
        if files.is_empty() {
            return Err((row.line, format!("rule {} has no {side} side", row.rule)));
        }
        if let Some(file) = files.iter().find(|f| f.parts.iter().all(Vec::is_empty)) {
            let header = format!("{side} {} {}", file.kind.name(), file.path);
            return Err((file.line, format!("`{header}` has no lines")));
        }
    }
    Ok(())
}

#[test]
fn a_row_reads_as_its_builders_write_it() {
    let text = "# a comment\n\nrule r\nrisky edit-in a.py\n x\n ⏎\n-old\n+new\n y\n\
                safe added a.py\n+\tz\nsafe deleted b.py\n-w ⏎\n-v⏎⏎\r\n";
    let rows = parse(text).unwrap();
    assert_eq!(rows.len(), 1);
    assert_eq!(rows[0].rule, "r");
    assert_eq!(
        rows[0].risky(),
        edit_in("a.py", &["x", ""], &["old"], &["new"], &["y"])
    );
    assert_eq!(
        rows[0].safe(),
        added("a.py", &["\tz"]) + &deleted_file("b.py", &["w ", "v⏎"])
    );
}

#[test]
fn a_malformed_table_is_refused_with_the_line_that_is_wrong() {
    let cases = include_str!("table_malformed.txt").trim_end().split("\n\n");
    for case in cases.filter(|case| !case.starts_with('#')) {
        let (want, text) = case.split_once('\n').unwrap_or((case, ""));
        let err = parse(text)
            .err()
            .unwrap_or_else(|| panic!("{text:?} was read"));
        assert!(err.starts_with(want), "{text:?}: {err}");
    }
    // Lines that end in a space or a tab, which editors strip.
    for body in ["+x ", "+x\t", " "] {
        let text = format!("rule r\nrisky added a.py\n{body}\nsafe added a.py\n+y\n");
        let err = parse(&text)
            .err()
            .unwrap_or_else(|| panic!("{text:?} was read"));
        assert!(
            err.starts_with("line 3: ends in a space or a tab"),
            "{body:?}: {err}"
        );
    }
}
