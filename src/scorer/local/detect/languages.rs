//! Risks particular to one language or framework (PHP output, Go goroutines, JavaScript
//! child processes, C# SQL sinks, Apex, ...).

use super::*;

/// Language-specific risks that need a line and its neighbours: each returns the rules the
/// changed line `i` raises.
pub(super) fn language_risks(at: &NewLine<'_>) -> Vec<Rule> {
    let mut out = Vec::new();
    let line = LangLine {
        new: at.new,
        i: at.i,
        raw: at.raw,
        code: at.code,
        s: at.squeezed,
        full: at.full,
        t: at.code.trim_start(),
        lower: at.lower,
    };
    match at.dialect {
        Dialect::Go => go_risks(&line, &mut out),
        Dialect::Php => php_risks(&line, &mut out),
        Dialect::Js => js_risks(&line, &mut out),
        Dialect::Python => python_risks(&line, &mut out),
        Dialect::Ruby => ruby_risks(&line, &mut out),
        Dialect::CSharp => csharp_risks(&line, &mut out),
        Dialect::Java => apex_risks(&line, &mut out),
        _ => {}
    }
    out
}

/// One changed line as the language rules read it, with the hunk's new side around it.
struct LangLine<'a> {
    new: &'a [SideLine<'a>],
    i: usize,
    raw: &'a str,
    code: &'a str,
    /// `raw` lower-cased.
    lower: &'a str,
    /// `code` without whitespace.
    s: &'a str,
    /// `lower` (strings kept) without whitespace.
    full: &'a str,
    /// `code` without its indentation.
    t: &'a str,
}

/// Go: a secret struct field serialized; `text/template` (no HTML escaping) in a handler.
fn go_risks(line: &LangLine<'_>, out: &mut Vec<Rule>) {
    let full = line.full;
    if secret_field_serialized(line.raw) {
        out.push(Rule::CredentialLogged);
    }
    // `text/template` does not escape HTML; a handler writing it to a response does.
    if full == "\"text/template\"" || full.ends_with("\"text/template\"") {
        let handler = line
            .new
            .iter()
            .any(|l| l.text.contains("http.ResponseWriter"));
        if handler {
            out.push(Rule::MarkupUnescaped);
        }
    }
}

/// PHP: unescaped output, silenced errors, backtick shell commands, classes named by a value.
fn php_risks(line: &LangLine<'_>, out: &mut Vec<Rule>) {
    let (lower, s, t) = (line.lower, line.s, line.t);
    let with_double: String = single_quoted_removed(lower)
        .chars()
        .filter(|c| !c.is_whitespace())
        .collect();
    if php_output_unescaped(t, &with_double) {
        out.push(Rule::MarkupUnescaped);
    }
    if php_silenced(line.code) {
        out.push(Rule::ErrorSwallowed);
    }
    // Shell execution through backticks with an interpolated value.
    let backtick = lower
        .find('`')
        .is_some_and(|a| lower[a + 1..].contains('`') && lower[a..].contains('$'));
    if backtick && !t.starts_with("//") && !t.starts_with('*') {
        out.push(Rule::CommandFromString);
    }
    if s.contains("new$") || s.starts_with("$") && s.contains("=new$") {
        out.push(Rule::EvalFromString);
    }
}

/// JavaScript: a child process run on a built command; `require` of a computed module.
fn js_risks(line: &LangLine<'_>, out: &mut Vec<Rule>) {
    let s = line.s;
    if js_exec_built(line.new, line.i, line.code) {
        out.push(Rule::CommandFromString);
    }

    if let Some(arg) = s.split_once("require(").map(|(_, r)| r) {
        let literal = (arg.starts_with('\'')
            || arg.starts_with('"')
            || arg.starts_with('`') && !arg.contains("${"))
            || arg.starts_with("__dirname")
            || arg.starts_with("path.");
        if !literal && !arg.starts_with(')') && !s.contains(".require(") {
            out.push(Rule::EvalFromString);
        }
    }
}

/// Python: `shell=` set to anything true, SSH `exec_command`, a Jinja environment that does
/// not escape.
fn python_risks(line: &LangLine<'_>, out: &mut Vec<Rule>) {
    let (new, i, s) = (line.new, line.i, line.s);
    let shell = s.split_once("shell=").is_some_and(|(before, v)| {
        !before.ends_with("_")
            && !before.ends_with("use")
            && ![
                "false",
                "none",
                "0",
                "\"\"",
                "''",
                "[]",
                "{}",
                "{**{}}",
                "{**{**{}}}",
            ]
            .iter()
            .any(|f| v.starts_with(f) && v[f.len()..].starts_with([',', ')']))
            && !v.starts_with("shell")
            && !v.starts_with(')')
    }) || s.contains("shell=true");
    if shell && !s.starts_with("def") && !s.starts_with("async def") {
        out.push(Rule::CommandFromString);
    }
    if s.contains(".exec_command(") {
        out.push(Rule::CommandFromString);
    }
    // A Jinja environment that does not escape by default.
    if s.contains("environment(") && !s.starts_with("def") && !s.contains("os.environ") {
        let call = without_spaces(&lowered(&new[i..new.len().min(i + 6)], " "));
        let safe = call.contains("autoescape=true") || call.contains("select_autoescape");
        let jinja = call.contains("loader=") || s.contains("jinja2.");
        if jinja && !safe && !call.contains("autoescape=false") {
            out.push(Rule::MarkupUnescaped);
        }
    }
}

/// Ruby: `render inline:` of a value; `IO.read`-like calls that run a command on a `|`.
fn ruby_risks(line: &LangLine<'_>, out: &mut Vec<Rule>) {
    let (s, t) = (line.s, line.t);
    if s.contains("render")
        && (s.contains("inline:") || s.contains("'inline'=>") || s.contains(":inline=>"))
    {
        out.push(Rule::EvalFromString);
    }
    if [
        "io.read(",
        "io.foreach(",
        "io.readlines(",
        "io.write(",
        "io.binread(",
        "io.binwrite(",
    ]
    .iter()
    .any(|m| s.starts_with(m) || s.contains(&format!("={m}")) || s.contains(&format!(" {m}")))
        || ["io.read(", "io.foreach(", "io.readlines(", "io.write("]
            .iter()
            .any(|m| t.starts_with(m))
    {
        out.push(Rule::CommandFromString);
    }
}

/// C#: request validation off, SQL sinks given a built string, token checks switched off.
fn csharp_risks(line: &LangLine<'_>, out: &mut Vec<Rule>) {
    let (new, i, s, full) = (line.new, line.i, line.s, line.full);
    let validate_flag_off = full
        .split_once("[validateinput(")
        .map(|(_, r)| r.split(')').next().unwrap_or(""))
        .is_some_and(|v| {
            v == "false"
                || !v.is_empty()
                    && v.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
                    && new.iter().any(|l| {
                        let lt = without_spaces(&l.text.to_ascii_lowercase());
                        lt.ends_with(&format!("{v}=false;"))
                    })
        });
    if validate_flag_off
        || full.contains("validaterequest=\"false\"")
        || full.contains("requestvalidationmode=\"2.0\"")
    {
        out.push(Rule::InputValidationOff);
    }
    if csharp_sql_sink(s) {
        out.push(Rule::SqlFromString);
    }
    if token_check_flag_off(new, i, s) {
        out.push(Rule::TokenVerifyOff);
    }
}

/// Apex (read as Java): a callout to a plain-HTTP endpoint; an error message rendered
/// unescaped.
fn apex_risks(line: &LangLine<'_>, out: &mut Vec<Rule>) {
    let (new, i, s, full) = (line.new, line.i, line.s, line.full);
    if s.contains("setendpoint(") {
        let arg = s.split_once("setendpoint(").map_or("", |(_, r)| r);
        let var = arg.split([')', ',']).next().unwrap_or("");
        if full.contains("setendpoint('http:")
            || full.contains("setendpoint(\"http:")
            || !var.starts_with('\'')
                && !var.is_empty()
                && new[..i].iter().any(|l| {
                    let lt = without_spaces(&l.text.to_ascii_lowercase());
                    lt.contains(&format!("{var}='http:")) || lt.contains(&format!("{var}=\"http:"))
                })
        {
            out.push(Rule::WeakCrypto);
        }
    }
    if s.contains(".adderror(") && s.ends_with(",false);") {
        let arg = s.split_once(".adderror(").map_or("", |(_, r)| r);
        if !arg.starts_with('\'') || arg.contains("'+") || arg.contains("+'") {
            out.push(Rule::MarkupUnescaped);
        }
    }
}

/// A Go struct field that holds a secret and is serialized under a name (`Password string
/// \`json:"password"\``), so encoding the struct writes the secret out.
pub(super) fn secret_field_serialized(raw: &str) -> bool {
    let t = raw.trim();
    let mut parts = t.split_whitespace();
    let (Some(name), Some(ty)) = (parts.next(), parts.next()) else {
        return false;
    };
    if !name.starts_with(|c: char| c.is_ascii_uppercase())
        || !name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
    {
        return false;
    }
    let ty_ok = matches!(ty, "string" | "[]byte" | "*string" | "[]string");
    let lower = t.to_ascii_lowercase();
    let tag = lower.split_once('`').map_or("", |(_, r)| r);
    let hidden = tag.contains(":\"-\"") || tag.contains(":\"-,");
    let lname = name.to_ascii_lowercase();
    let secret = |w: &str| {
        // The secret names of the credential rules, and cloud access keys.
        (any(w, SECRET_NAMES) || any(w, &["accesskey", "access_key"]))
            && !any(
                w,
                &[
                    "tokens_",
                    "maxtokens",
                    "tokenizer",
                    "tokenurl",
                    "token_url",
                    "tokentype",
                    "token_type",
                    "secretref",
                    "secretname",
                    "secret_name",
                    "file",
                    "path",
                    "env",
                ],
            )
    };
    let tag_name = tag
        .split('"')
        .nth(1)
        .unwrap_or("")
        .split(',')
        .next()
        .unwrap_or("");
    let plural = lname.ends_with("tokens") || lname.ends_with("secrets") || lname.ends_with("keys");
    ty_ok
        && !hidden
        && !plural
        && (secret(&lname) || secret(tag_name))
        && (tag.contains("json:")
            || tag.contains("yaml:")
            || tag.contains("xml:")
            || tag.contains("toml:")
            || tag.contains("msgpack:"))
}

/// PHP output of a variable with no escaping (`echo $x`, `print $x`, `_e( … )`, `printf`,
/// `wp_die( $x )`, `trigger_error( "…{$x}" )`).
pub(super) fn php_output_unescaped(t: &str, s: &str) -> bool {
    let t = t
        .trim_start_matches("?>")
        .trim_start_matches("<?php")
        .trim_start_matches("<?=")
        .trim_start();
    let outputs = t.starts_with("echo ")
        || t.starts_with("echo(")
        || t.starts_with("print ")
        || t.starts_with("print(")
        || s.starts_with("<?=")
        || t.starts_with("printf(")
        || t.starts_with("vprintf(")
        || t.starts_with("_e(")
        || t.starts_with("_ex(")
        || t.starts_with("wp_die(")
        || t.starts_with("trigger_error(")
        || t.starts_with("exit(")
        || t.starts_with("die(")
        || t.starts_with("_deprecated_function(")
        || t.starts_with("_doing_it_wrong(");
    if !outputs {
        return false;
    }
    const ESCAPES: &[&str] = &[
        "esc_html",
        "esc_attr",
        "esc_url",
        "esc_js",
        "esc_textarea",
        "esc_xml",
        "wp_kses",
        "htmlspecialchars(",
        "htmlentities(",
        "intval(",
        "absint(",
        "(int)",
        "number_format(",
        "json_encode(",
        "wp_json_encode(",
        "count(",
    ];
    if s.starts_with("_e(") || s.starts_with("_ex(") {
        return true;
    }
    // Variables or calls outside every escaping call.
    let mut rest = s.to_owned();
    for e in ESCAPES {
        while let Some(at) = rest.find(e) {
            let open = rest[at..].find('(').map_or(rest.len(), |n| at + n + 1);
            let args = call_args(&rest, open.min(rest.len()));
            let end = (open + args.len() + 1).min(rest.len());
            rest.replace_range(at..end, "");
        }
    }
    // What stays: variables, or calls whose result is printed as it is.
    let call_outside = rest
        .trim_start_matches("<?php")
        .trim_start_matches("echo")
        .trim_start_matches("print")
        .split(['(', ','])
        .any(|part| {
            let p = part.trim_matches(|c: char| !c.is_ascii_alphanumeric() && c != '_');
            !p.is_empty()
                && p.chars().next().is_some_and(|c| c.is_ascii_alphabetic())
                && ![
                    "sprintf",
                    "printf",
                    "__",
                    "_e",
                    "_x",
                    "_n",
                    "true",
                    "false",
                    "null",
                    "exit",
                    "die",
                    "wp_die",
                    "trigger_error",
                    "e_user_notice",
                    "e_user_warning",
                    "e_user_error",
                    "e_user_deprecated",
                    "array",
                    "echo",
                    "print",
                ]
                .contains(&p)
        });
    rest.contains('$')
        || rest.contains("{$")
        || call_outside
            && (s.starts_with("echo") || s.contains("?>echo") || s.contains("<?phpecho"))
}

/// `text` without the contents of its single-quoted strings (PHP: no interpolation there).
pub(super) fn single_quoted_removed(text: &str) -> String {
    super::strings_removed(text, &['\'', '"'], &['"'])
}

/// PHP's `@` error suppression in front of a call or a variable.
pub(super) fn php_silenced(code: &str) -> bool {
    let b = code.as_bytes();
    b.iter().enumerate().any(|(k, &c)| {
        c == b'@'
            && b.get(k + 1)
                .is_some_and(|n| n.is_ascii_alphabetic() || *n == b'$' || *n == b'_')
            && (k == 0 || matches!(b[k - 1], b' ' | b'(' | b'=' | b'!' | b',' | b'\t' | b'.'))
            && !code[k..].starts_with("@param")
            && !code[k..].starts_with("@return")
            // `@trigger_error(…, E_USER_DEPRECATED)` is how PHP libraries deprecate.
            && !code[k..].starts_with("@trigger_error")
            // A silenced call whose result is tested (`if (@preg_match(…) > 0)`,
            // `!@mkdir(…)`) reports its failure by that result.
            && !{
                let before = code[..k].trim_end();
                ["if (", "if(", "||", "&&", "!", "while (", "while("]
                    .iter()
                    .any(|e| before.ends_with(e))
            }
    })
}

/// Node's `child_process.exec` (a shell) called with a command that is not a literal.
pub(super) fn js_exec_built(new: &[SideLine<'_>], i: usize, code: &str) -> bool {
    let _ = code;
    // Strings kept: a template literal's `${…}` is what makes the command built.
    let s = without_spaces(&new[i].text.to_ascii_lowercase());
    let from_module =
        window_has(new, i, "child_process") || s.contains("childprocess.") || s.contains("cp.");
    for call in ["execsync(", "exec("] {
        let mut from = 0;
        while let Some(off) = s[from..].find(call) {
            let at = from + off;
            from = at + call.len();
            let before = &s[..at];
            let receiver = before
                .rsplit(|c: char| {
                    !(c.is_ascii_alphanumeric()
                        || c == '_'
                        || c == '.'
                        || c == '\''
                        || c == '('
                        || c == ')')
                })
                .next()
                .unwrap_or("");
            // A regular expression's `exec`.
            if before.ends_with("/.")
                || receiver.contains("re.")
                || receiver.contains("regex")
                || receiver.contains("pattern")
            {
                continue;
            }
            let name = receiver.trim_end_matches('.');
            let assigned_regex = !name.is_empty()
                && new.iter().any(|l| {
                    let lt = without_spaces(&l.text.to_ascii_lowercase());
                    lt.contains(&format!("{name}=/")) || lt.contains(&format!("{name}=newregexp"))
                });
            if assigned_regex || !from_module {
                continue;
            }
            let arg = &s[at + call.len()..];
            let first = first_arg(arg.trim_end_matches([')', ';']));
            // An upper-case name is a constant.
            let constant = {
                let orig: String = raw_constant_case(new[i].text, first);
                !orig.is_empty()
                    && orig
                        .chars()
                        .all(|c| c.is_ascii_uppercase() || c == '_' || c.is_ascii_digit())
            };
            let literal = constant
                || (arg.starts_with('\'') || arg.starts_with('"') || arg.starts_with('`'))
                    && !arg.contains("${")
                    && !arg.contains("'+")
                    && !arg.contains("\"+");
            if !literal && !arg.starts_with(')') {
                return true;
            }
        }
    }
    false
}

/// How `lowered` (a lower-cased piece of `text`) is spelled in `text`, or empty.
pub(super) fn raw_constant_case(text: &str, lowered: &str) -> String {
    if lowered.is_empty() {
        return String::new();
    }
    let lower = text.to_ascii_lowercase();
    lower
        .find(lowered)
        .map(|at| text[at..at + lowered.len()].to_owned())
        .unwrap_or_default()
}

/// .NET SQL built from something that is not a literal: `CommandText = input`,
/// `new SqlCommand(input)`, `FromSql(input)`, `ExecuteSqlRaw(input)`.
pub(super) fn csharp_sql_sink(s: &str) -> bool {
    for sink in [
        "commandtext=",
        "newsqlcommand(",
        "newoledbcommand(",
        "newodbccommand(",
        "newsqldataadapter(",
        ".fromsql(",
        ".fromsqlraw(",
        ".executesqlraw(",
        ".executesqlcommand(",
        ".sqlquery(",
    ] {
        if let Some((_, arg)) = s.split_once(sink) {
            let first = first_arg(arg.trim_end_matches([';', ')']));
            if first.is_empty()
                || first.starts_with('"')
                || first.starts_with("@\"")
                || first.starts_with("$\"") && !first.contains('{')
                || first.starts_with("string.empty")
                || first.starts_with("null")
            {
                continue;
            }
            if first.starts_with("$\"")
                || first.contains('+')
                || first.contains("request")
                || first.contains("string.format(")
            {
                return true;
            }
            // A bare name or member: taken as it is, from wherever it came.
            if first.chars().all(|c| {
                c.is_ascii_alphanumeric()
                    || c == '_'
                    || c == '.'
                    || c == '['
                    || c == ']'
                    || c == '"'
            }) {
                return true;
            }
        }
    }
    false
}

/// A token validation flag set from a variable that is `false` nearby
/// (`parameters.ValidateIssuer = flag;` after `var flag = false;`).
pub(super) fn token_check_flag_off(new: &[SideLine<'_>], i: usize, s: &str) -> bool {
    let Some((lhs, rhs)) = s.split_once('=') else {
        return false;
    };
    let lhs_last = lhs.rsplit('.').next().unwrap_or(lhs);
    let check = [
        "validateissuer",
        "validateaudience",
        "validatelifetime",
        "validateissuersigningkey",
        "requireexpirationtime",
        "requiresignedtokens",
        "requireaudience",
        "validateactor",
        "validatetokenreplay",
    ]
    .contains(&lhs_last);
    if !check {
        return false;
    }
    let value = rhs.trim_end_matches(';');
    value == "false"
        || value.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
            && new[..i].iter().any(|l| {
                let lt = without_spaces(&l.text.to_ascii_lowercase());
                lt.ends_with(&format!("{value}=false;"))
            })
}
