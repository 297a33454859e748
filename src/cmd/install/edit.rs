//! Span-preserving edits of a strict JSON document.
//!
//! Settings files belong to the user: their key order, indentation, line endings and unicode
//! must survive our edits. So we never re-serialize a document. We parse it into a tree of
//! byte spans, then insert or delete text at exact positions, styled like the surrounding
//! text. An insertion made here and the deletion of the same node are exact inverses, which is
//! what lets `uninstall` give back the bytes `install` started from.

use std::fmt::Write as _;

/// Why a document could not be edited.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum EditError {
    #[error("it is not UTF-8 text")]
    NotUtf8,
    #[error(
        "it contains comments (line {line}, column {column}), which strict JSON does not allow"
    )]
    Comments { line: usize, column: usize },
    #[error("it is not valid JSON: {message}")]
    Invalid { message: String },
    #[error("`{pointer}` is {found}, expected {expected}")]
    Shape {
        pointer: String,
        expected: &'static str,
        found: &'static str,
    },
}

/// One parsed value with its byte span in the document.
#[derive(Debug, Clone)]
pub struct Node {
    pub start: usize,
    pub end: usize,
    pub kind: Kind,
}

#[derive(Debug, Clone)]
pub enum Kind {
    Object(Vec<Member>),
    Array(Vec<Node>),
    String(String),
    Other(&'static str),
}

/// One `"key": value` pair; the member spans from the key's opening quote to the value's end.
#[derive(Debug, Clone)]
pub struct Member {
    pub key: String,
    pub key_start: usize,
    pub key_end: usize,
    pub value: Node,
}

impl Node {
    pub fn kind_name(&self) -> &'static str {
        match &self.kind {
            Kind::Object(_) => "an object",
            Kind::Array(_) => "an array",
            Kind::String(_) => "a string",
            Kind::Other(name) => name,
        }
    }

    pub fn members(&self) -> Option<&[Member]> {
        match &self.kind {
            Kind::Object(members) => Some(members),
            _ => None,
        }
    }

    pub fn elements(&self) -> Option<&[Node]> {
        match &self.kind {
            Kind::Array(elements) => Some(elements),
            _ => None,
        }
    }

    pub fn as_str(&self) -> Option<&str> {
        match &self.kind {
            Kind::String(s) => Some(s),
            _ => None,
        }
    }

    /// The value of the last member named `key` (JSON parsers keep the last duplicate).
    pub fn get(&self, key: &str) -> Option<&Node> {
        self.members()?
            .iter()
            .rev()
            .find(|m| m.key == key)
            .map(|m| &m.value)
    }
}

/// Parses `bytes` as strict JSON (RFC 8259, no comments, no trailing commas).
///
/// An empty or whitespace-only document is reported as `None`: callers treat it like a
/// missing file.
pub fn parse(bytes: &[u8]) -> Result<Option<Node>, EditError> {
    let text = std::str::from_utf8(bytes).map_err(|_| EditError::NotUtf8)?;
    if text.trim_matches(is_ws).is_empty() {
        return Ok(None);
    }
    // serde_json is the judge of validity and gives precise positions; our own parser below
    // then only has to walk text already known to be valid.
    if let Err(err) = serde_json::from_str::<serde::de::IgnoredAny>(text) {
        if let Some((line, column)) = find_comment(text) {
            return Err(EditError::Comments { line, column });
        }
        return Err(EditError::Invalid {
            message: err.to_string(),
        });
    }
    let mut parser = Parser { text, pos: 0 };
    parser.skip_ws();
    let node = parser.value()?;
    Ok(Some(node))
}

fn is_ws(c: char) -> bool {
    matches!(c, ' ' | '\t' | '\n' | '\r')
}

/// Line and column (1-based) of the first `//` or `/*` outside a string.
fn find_comment(text: &str) -> Option<(usize, usize)> {
    let bytes = text.as_bytes();
    let mut in_string = false;
    let mut i = 0;
    while i < bytes.len() {
        let b = bytes[i];
        if in_string {
            match b {
                b'\\' => i += 1,
                b'"' => in_string = false,
                _ => {}
            }
        } else if b == b'"' {
            in_string = true;
        } else if b == b'/' && matches!(bytes.get(i + 1), Some(b'/' | b'*')) {
            let before = &text[..i];
            let line = before.matches('\n').count() + 1;
            let column = before.rsplit('\n').next().map_or(0, |l| l.chars().count()) + 1;
            return Some((line, column));
        }
        i += 1;
    }
    None
}

struct Parser<'a> {
    text: &'a str,
    pos: usize,
}

impl Parser<'_> {
    fn bytes(&self) -> &[u8] {
        self.text.as_bytes()
    }

    fn peek(&self) -> Option<u8> {
        self.bytes().get(self.pos).copied()
    }

    fn skip_ws(&mut self) {
        while matches!(self.peek(), Some(b' ' | b'\t' | b'\n' | b'\r')) {
            self.pos += 1;
        }
    }

    fn broken(&self) -> EditError {
        EditError::Invalid {
            message: format!("unexpected input at byte {}", self.pos),
        }
    }

    fn expect(&mut self, b: u8) -> Result<(), EditError> {
        if self.peek() == Some(b) {
            self.pos += 1;
            Ok(())
        } else {
            Err(self.broken())
        }
    }

    fn value(&mut self) -> Result<Node, EditError> {
        let start = self.pos;
        let kind = match self.peek().ok_or_else(|| self.broken())? {
            b'{' => Kind::Object(self.object()?),
            b'[' => Kind::Array(self.array()?),
            b'"' => Kind::String(self.string()?),
            b't' => self.word("true", "a boolean")?,
            b'f' => self.word("false", "a boolean")?,
            b'n' => self.word("null", "null")?,
            _ => {
                while matches!(
                    self.peek(),
                    Some(b'-' | b'+' | b'.' | b'e' | b'E' | b'0'..=b'9')
                ) {
                    self.pos += 1;
                }
                if self.pos == start {
                    return Err(self.broken());
                }
                Kind::Other("a number")
            }
        };
        Ok(Node {
            start,
            end: self.pos,
            kind,
        })
    }

    fn word(&mut self, word: &str, name: &'static str) -> Result<Kind, EditError> {
        if self.text[self.pos..].starts_with(word) {
            self.pos += word.len();
            Ok(Kind::Other(name))
        } else {
            Err(self.broken())
        }
    }

    fn string(&mut self) -> Result<String, EditError> {
        let start = self.pos;
        self.expect(b'"')?;
        loop {
            match self.peek().ok_or_else(|| self.broken())? {
                b'\\' => self.pos += 2,
                b'"' => {
                    self.pos += 1;
                    break;
                }
                _ => self.pos += 1,
            }
        }
        serde_json::from_str(&self.text[start..self.pos]).map_err(|e| EditError::Invalid {
            message: e.to_string(),
        })
    }

    fn object(&mut self) -> Result<Vec<Member>, EditError> {
        self.list(b'{', b'}', |p| {
            let key_start = p.pos;
            let key = p.string()?;
            let key_end = p.pos;
            p.skip_ws();
            p.expect(b':')?;
            p.skip_ws();
            let value = p.value()?;
            Ok(Member {
                key,
                key_start,
                key_end,
                value,
            })
        })
    }

    fn array(&mut self) -> Result<Vec<Node>, EditError> {
        self.list(b'[', b']', Self::value)
    }

    /// A JSON object's or array's shape: `open`, items separated by commas, `close`, with
    /// whitespace anywhere between; `item` reads one member or element.
    fn list<T>(
        &mut self,
        open: u8,
        close: u8,
        mut item: impl FnMut(&mut Self) -> Result<T, EditError>,
    ) -> Result<Vec<T>, EditError> {
        self.expect(open)?;
        let mut items = Vec::new();
        self.skip_ws();
        if self.peek() == Some(close) {
            self.pos += 1;
            return Ok(items);
        }
        loop {
            self.skip_ws();
            items.push(item(self)?);
            self.skip_ws();
            match self.peek() {
                Some(b',') => self.pos += 1,
                Some(c) if c == close => {
                    self.pos += 1;
                    return Ok(items);
                }
                _ => return Err(self.broken()),
            }
        }
    }
}

/// A value to insert, with its key order kept (serde_json's map would sort the keys).
#[derive(Debug, Clone, PartialEq)]
pub enum Value {
    Object(Vec<(String, Value)>),
    Array(Vec<Value>),
    String(String),
    Number(u64),
}

impl Value {
    /// The same value as serde_json sees it, for structural comparison with parsed text.
    pub fn to_json(&self) -> serde_json::Value {
        match self {
            Value::Object(members) => serde_json::Value::Object(
                members
                    .iter()
                    .map(|(k, v)| (k.clone(), v.to_json()))
                    .collect(),
            ),
            Value::Array(items) => {
                serde_json::Value::Array(items.iter().map(Value::to_json).collect())
            }
            Value::String(s) => serde_json::Value::String(s.clone()),
            Value::Number(n) => serde_json::Value::from(*n),
        }
    }

    fn is_scalar(&self) -> bool {
        matches!(self, Value::String(_) | Value::Number(_))
    }
}

/// How the document writes whitespace, so that inserted text looks like the user's own.
#[derive(Debug, Clone)]
pub struct Style {
    /// One level of indentation (`"  "`, `"    "`, `"\t"`).
    pub unit: String,
    pub newline: &'static str,
    /// What sits between a key and its value (`": "`, `":"`, `" : "`).
    pub colon: String,
    /// What separates siblings written on one line (`", "`, `","`).
    pub comma: String,
}

impl Style {
    pub const DEFAULT_UNIT: &str = "  ";

    /// Learns the style from an existing document (defaults where it shows none).
    pub fn detect(text: &str, root: Option<&Node>) -> Style {
        let newline = if text.contains("\r\n") { "\r\n" } else { "\n" };
        let mut style = Style {
            unit: Style::DEFAULT_UNIT.to_owned(),
            newline,
            colon: ": ".to_owned(),
            comma: ", ".to_owned(),
        };
        let Some(root) = root else { return style };
        if let Some(unit) = find_unit(text, root) {
            style.unit = unit;
        }
        if let Some(colon) = find_colon(text, root) {
            style.colon = colon;
        }
        if let Some(comma) = find_comma(text, root) {
            style.comma = comma;
        }
        style
    }

    /// Renders `value` as it would appear on a line indented by `indent`.
    pub fn render(&self, value: &Value, indent: &str) -> String {
        let mut out = String::new();
        self.render_into(&mut out, value, indent);
        out
    }

    fn render_into(&self, out: &mut String, value: &Value, indent: &str) {
        match value {
            Value::String(s) => out.push_str(&json_string(s)),
            Value::Number(n) => {
                let _ = write!(out, "{n}");
            }
            Value::Array(items) if items.iter().all(Value::is_scalar) => {
                out.push('[');
                for (i, item) in items.iter().enumerate() {
                    if i > 0 {
                        out.push_str(&self.comma);
                    }
                    self.render_into(out, item, indent);
                }
                out.push(']');
            }
            Value::Array(items) => {
                let inner = format!("{indent}{}", self.unit);
                out.push('[');
                for (i, item) in items.iter().enumerate() {
                    out.push_str(if i > 0 { "," } else { "" });
                    out.push_str(self.newline);
                    out.push_str(&inner);
                    self.render_into(out, item, &inner);
                }
                out.push_str(self.newline);
                out.push_str(indent);
                out.push(']');
            }
            Value::Object(members) if members.is_empty() => out.push_str("{}"),
            Value::Object(members) => {
                let inner = format!("{indent}{}", self.unit);
                out.push('{');
                for (i, (key, item)) in members.iter().enumerate() {
                    out.push_str(if i > 0 { "," } else { "" });
                    out.push_str(self.newline);
                    out.push_str(&inner);
                    out.push_str(&json_string(key));
                    out.push_str(&self.colon);
                    self.render_into(out, item, &inner);
                }
                out.push_str(self.newline);
                out.push_str(indent);
                out.push('}');
            }
        }
    }

    /// Renders `value` on one line (for containers the user wrote on one line).
    pub fn render_inline(&self, value: &Value) -> String {
        match value {
            Value::String(_) | Value::Number(_) => self.render(value, ""),
            Value::Array(items) => {
                let parts: Vec<String> = items.iter().map(|v| self.render_inline(v)).collect();
                format!("[{}]", parts.join(&self.comma))
            }
            Value::Object(members) => {
                let parts: Vec<String> = members
                    .iter()
                    .map(|(k, v)| {
                        format!("{}{}{}", json_string(k), self.colon, self.render_inline(v))
                    })
                    .collect();
                format!("{{{}}}", parts.join(&self.comma))
            }
        }
    }
}

fn json_string(s: &str) -> String {
    serde_json::to_string(s).expect("a string always serializes")
}

/// The whitespace that starts the line holding byte `pos`, when only whitespace precedes
/// `pos` on that line.
fn indent_before(text: &str, pos: usize) -> Option<&str> {
    let line_start = text[..pos].rfind('\n').map_or(0, |i| i + 1);
    let prefix = &text[line_start..pos];
    prefix
        .bytes()
        .all(|b| b == b' ' || b == b'\t')
        .then_some(prefix)
}

/// The indentation of the line holding byte `pos`, whatever follows it.
fn line_indent(text: &str, pos: usize) -> &str {
    let line_start = text[..pos].rfind('\n').map_or(0, |i| i + 1);
    let line = &text[line_start..];
    let len = line.len() - line.trim_start_matches([' ', '\t']).len();
    &line[..len]
}

fn find_unit(text: &str, node: &Node) -> Option<String> {
    let children: Vec<usize> = match &node.kind {
        Kind::Object(members) => members.iter().map(|m| m.key_start).collect(),
        Kind::Array(elements) => elements.iter().map(|e| e.start).collect(),
        _ => return None,
    };
    if let Some(&first) = children.first() {
        let outer = line_indent(text, node.start);
        if let Some(inner) = indent_before(text, first)
            && inner.len() > outer.len()
            && inner.starts_with(outer)
        {
            return Some(inner[outer.len()..].to_owned());
        }
    }
    let nested: Vec<&Node> = match &node.kind {
        Kind::Object(members) => members.iter().map(|m| &m.value).collect(),
        Kind::Array(elements) => elements.iter().collect(),
        _ => Vec::new(),
    };
    nested.into_iter().find_map(|child| find_unit(text, child))
}

fn find_colon(text: &str, node: &Node) -> Option<String> {
    match &node.kind {
        Kind::Object(members) => members.iter().find_map(|m| {
            let between = &text[m.key_end..m.value.start];
            if between.contains('\n') {
                find_colon(text, &m.value)
            } else {
                Some(between.to_owned())
            }
        }),
        Kind::Array(elements) => elements.iter().find_map(|e| find_colon(text, e)),
        _ => None,
    }
}

/// The separator between the first two siblings that share a line.
fn find_comma(text: &str, node: &Node) -> Option<String> {
    let (spans, children): (Vec<(usize, usize)>, Vec<&Node>) = match &node.kind {
        Kind::Object(members) => (
            members.iter().map(|m| (m.key_start, m.value.end)).collect(),
            members.iter().map(|m| &m.value).collect(),
        ),
        Kind::Array(elements) => (
            elements.iter().map(|e| (e.start, e.end)).collect(),
            elements.iter().collect(),
        ),
        _ => return None,
    };
    let own = spans.windows(2).find_map(|pair| {
        let between = &text[pair[0].1..pair[1].0];
        (!between.contains('\n')).then(|| between.to_owned())
    });
    own.or_else(|| children.into_iter().find_map(|c| find_comma(text, c)))
}

/// One text replacement: bytes `start..end` become `with`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Splice {
    pub start: usize,
    pub end: usize,
    pub with: String,
}

impl Splice {
    pub fn apply(&self, text: &str) -> String {
        let mut out = String::with_capacity(text.len() + self.with.len());
        out.push_str(&text[..self.start]);
        out.push_str(&self.with);
        out.push_str(&text[self.end..]);
        out
    }
}

/// What to append to a container: an object member or an array element.
pub enum Addition<'a> {
    Member(&'a str, &'a Value),
    Element(&'a Value),
}

/// Appends a member or element at the end of `container`, indented like its siblings.
pub fn append(text: &str, container: &Node, addition: Addition<'_>, style: &Style) -> Splice {
    let (first_child, last_child_end) = match &container.kind {
        Kind::Object(members) => (
            members.first().map(|m| m.key_start),
            members.last().map(|m| m.value.end),
        ),
        Kind::Array(elements) => (
            elements.first().map(|e| e.start),
            elements.last().map(|e| e.end),
        ),
        _ => unreachable!("append is only called on containers"),
    };
    let render = |indent: Option<&str>| -> String {
        let (key, value) = match &addition {
            Addition::Member(key, value) => (Some(*key), *value),
            Addition::Element(value) => (None, *value),
        };
        let body = match indent {
            Some(indent) => style.render(value, indent),
            None => style.render_inline(value),
        };
        match key {
            Some(key) => format!("{}{}{body}", json_string(key), style.colon),
            None => body,
        }
    };
    match (first_child, last_child_end) {
        (Some(first), Some(last_end)) => {
            // Siblings on their own lines: a new line at their indentation. Siblings on the
            // container's line: stay on that line.
            if text[container.start + 1..first].contains('\n') {
                let indent = indent_before(text, first)
                    .map(str::to_owned)
                    .unwrap_or_else(|| {
                        format!("{}{}", line_indent(text, container.start), style.unit)
                    });
                Splice {
                    start: last_end,
                    end: last_end,
                    with: format!(",{}{indent}{}", style.newline, render(Some(&indent))),
                }
            } else {
                Splice {
                    start: last_end,
                    end: last_end,
                    with: format!("{}{}", style.comma, render(None)),
                }
            }
        }
        // An empty container in a one-line document stays on one line.
        _ if !text.contains('\n') => Splice {
            start: container.start + 1,
            end: container.end - 1,
            with: render(None),
        },
        _ => {
            let outer = line_indent(text, container.start);
            let indent = format!("{outer}{}", style.unit);
            Splice {
                start: container.start + 1,
                end: container.end - 1,
                with: format!(
                    "{nl}{indent}{body}{nl}{outer}",
                    nl = style.newline,
                    body = render(Some(&indent))
                ),
            }
        }
    }
}

/// Deletes child `index` of `container` together with the separator that joins it to a
/// sibling, so that deleting what [`append`] added gives back the text before the append.
pub fn remove(container: &Node, index: usize) -> Splice {
    let spans: Vec<(usize, usize)> = match &container.kind {
        Kind::Object(members) => members.iter().map(|m| (m.key_start, m.value.end)).collect(),
        Kind::Array(elements) => elements.iter().map(|e| (e.start, e.end)).collect(),
        _ => unreachable!("remove is only called on containers"),
    };
    let (start, end) = spans[index];
    let splice = |start, end| Splice {
        start,
        end,
        with: String::new(),
    };
    if index > 0 {
        splice(spans[index - 1].1, end)
    } else if let Some(next) = spans.get(1) {
        splice(start, next.0)
    } else {
        splice(container.start + 1, container.end - 1)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn root(text: &str) -> Node {
        parse(text.as_bytes()).unwrap().unwrap()
    }

    #[test]
    fn spans_cover_the_source_text() {
        let text = "{ \"a\" : [1, \"x\\\"y\", {\"b\": null}], \"é\": true }";
        let node = root(text);
        let members = node.members().unwrap();
        assert_eq!(members[0].key, "a");
        assert_eq!(
            &text[members[0].value.start..members[0].value.end],
            "[1, \"x\\\"y\", {\"b\": null}]"
        );
        assert_eq!(
            members[0].value.elements().unwrap()[1].as_str(),
            Some("x\"y")
        );
        assert_eq!(members[1].key, "é");
        assert_eq!(&text[members[1].value.start..members[1].value.end], "true");
    }

    #[test]
    fn rejects_comments_and_invalid_json_with_positions() {
        type Check = fn(&EditError) -> bool;
        let cases: &[(&str, Check)] = &[
            ("{\n  // note\n  \"a\": 1\n}", |e| {
                *e == EditError::Comments { line: 2, column: 3 }
            }),
            ("{\"a\": 1 /* c */}", |e| {
                matches!(e, EditError::Comments { line: 1, .. })
            }),
            ("{\"a\": 1,}", |e| matches!(e, EditError::Invalid { .. })),
            ("{\"a\": \"// not a comment\", }", |e| {
                matches!(e, EditError::Invalid { .. })
            }),
            ("[1, 2", |e| matches!(e, EditError::Invalid { .. })),
        ];
        for (text, check) in cases {
            let err = parse(text.as_bytes()).unwrap_err();
            assert!(check(&err), "{text:?} gave {err:?}");
        }
        assert_eq!(parse(b"{\"a\": \"\xff\"}").unwrap_err(), EditError::NotUtf8);
        assert!(parse(b" \n\t").unwrap().is_none());
    }

    #[test]
    fn style_is_learned_from_the_document() {
        let cases = [
            ("{\n    \"a\": 1\n}", "    ", ": ", "\n"),
            ("{\n\t\"a\":1\n}", "\t", ":", "\n"),
            ("{\r\n  \"a\" : {\r\n  }\r\n}", "  ", " : ", "\r\n"),
            ("{\"a\": {\n   \"b\": 1}}", "   ", ": ", "\n"),
            ("{}", "  ", ": ", "\n"),
        ];
        for (text, unit, colon, newline) in cases {
            let node = root(text);
            let style = Style::detect(text, Some(&node));
            assert_eq!(style.unit, unit, "{text:?}");
            assert_eq!(style.colon, colon, "{text:?}");
            assert_eq!(style.newline, newline, "{text:?}");
        }
    }

    #[test]
    fn append_then_remove_gives_back_the_original() {
        let value = Value::Object(vec![
            ("k".into(), Value::Array(vec![Value::String("v".into())])),
            ("n".into(), Value::Number(3)),
        ]);
        let texts = [
            "{\n  \"a\": 1\n}\n",
            "{\n\t\"a\": [\n\t\t1\n\t]\n}",
            "{\"a\": 1}",
            "{ \"a\": 1 , \"b\": 2 }",
            "{\r\n    \"ü\": \"ß\"\r\n}\r\n",
        ];
        for text in texts {
            let node = root(text);
            let style = Style::detect(text, Some(&node));
            let added = append(text, &node, Addition::Member("new", &value), &style).apply(text);
            let parsed: serde_json::Value = serde_json::from_str(&added).unwrap();
            assert_eq!(parsed["new"], value.to_json(), "{added}");
            let node = root(&added);
            let last = node.members().unwrap().len() - 1;
            assert_eq!(remove(&node, last).apply(&added), text);
        }
    }

    #[test]
    fn append_to_an_empty_container_and_remove_the_only_child() {
        let text = "{\n  \"list\": []\n}";
        let node = root(text);
        let list = node.get("list").unwrap();
        let style = Style::detect(text, Some(&node));
        let added = append(text, list, Addition::Element(&Value::Number(1)), &style).apply(text);
        assert_eq!(added, "{\n  \"list\": [\n    1\n  ]\n}");
        let node = root(&added);
        let removed = remove(node.get("list").unwrap(), 0).apply(&added);
        assert_eq!(removed, "{\n  \"list\": []\n}");
    }

    #[test]
    fn removing_the_first_of_several_children_keeps_the_rest_intact() {
        let text = "[1, 2, 3]";
        let node = root(text);
        assert_eq!(remove(&node, 0).apply(text), "[2, 3]");
        assert_eq!(remove(&node, 1).apply(text), "[1, 3]");
        assert_eq!(remove(&node, 2).apply(text), "[1, 2]");
    }
}
