//! Risk a change introduces on a new line of code: the dispatcher over every rule, request
//! data followed from its source to a sink, and guards a change removes.

use super::*;

/// Risk added on a new line of code or configuration.
pub(super) fn introduced(
    hunk: &Hunk<'_>,
    dialect: Dialect,
    push: &mut impl FnMut(Rule, u32, &str),
) {
    let new = side(hunk, true);
    let lowered: Vec<Lowered> = new.iter().map(|l| Lowered::of(l.text)).collect();
    let tainted = tainted_names(&lowered);
    let sql_vars = sql_variables(&lowered);
    for (i, l) in new.iter().enumerate() {
        if !l.changed {
            continue;
        }
        let raw = l.text.trim();
        let lower = &lowered[i].lower;
        // The author acknowledged the line for a linter (`# noqa`, `//nolint`, `#nosec`).
        if any(lower, LINTER_ACKNOWLEDGED) {
            continue;
        }
        let code = strip_comment(&lowered[i].code, dialect);
        let at = NewLine {
            new: &new,
            lowered: &lowered,
            header: hunk.header,
            i,
            raw,
            lower,
            code: &code,
            squeezed: &without_spaces(&code),
            full: &without_spaces(lower),
            dialect,
        };
        let mut hit = |rule: Rule| push(rule, l.line, raw);
        values_and_checks(&at, &tainted, &sql_vars, &mut hit);
        errors_and_lifecycle(&at, &tainted, &mut hit);
    }
}

/// Linter acknowledgements (lower-cased): the author already looked at the line.
const LINTER_ACKNOWLEDGED: &[&str] = &[
    "noqa",
    "nolint",
    "nosec",
    "nosonar",
    "eslint-disable",
    "rubocop:disable",
    "phpcs:ignore",
    "pylint: disable",
    "codeql[",
    "lgtm[",
];

/// One changed line of a hunk's new side, as the rules read it.
pub(super) struct NewLine<'a> {
    /// The hunk's new side, for rules that look at neighbours.
    pub(super) new: &'a [SideLine<'a>],
    /// `new`'s lines lower-cased and without string contents, read once per hunk.
    pub(super) lowered: &'a [Lowered],
    /// The hunk's function context (git's text after the second `@@`).
    pub(super) header: &'a str,
    /// The line's index in `new`.
    pub(super) i: usize,
    /// The text, trimmed.
    pub(super) raw: &'a str,
    /// `raw` lower-cased.
    pub(super) lower: &'a str,
    /// `lower` without string contents or a trailing comment.
    pub(super) code: &'a str,
    /// `code` without whitespace (read by many rules, so squeezed once).
    pub(super) squeezed: &'a str,
    /// `lower` (strings kept) without whitespace.
    pub(super) full: &'a str,
    pub(super) dialect: Dialect,
}

/// Rules over what the line does with values and checks: request data reaching a sink, SQL,
/// commands, code or markup built from strings, checks switched off, permissions widened,
/// credentials logged, weak crypto and unsafe deserialization.
fn values_and_checks(
    at: &NewLine<'_>,
    tainted: &[String],
    sql_vars: &[String],
    hit: &mut impl FnMut(Rule),
) {
    let (new, i, code, dialect) = (at.new, at.i, at.code, at.dialect);
    let (raw, lower, squeezed, full) = (at.raw, at.lower, at.squeezed, at.full);
    if let Some(rule) = request_flow(code, tainted, dialect) {
        hit(rule);
    }
    if sql_appended(squeezed, sql_vars) {
        hit(Rule::SqlFromString);
    }
    if let Some(rule) = verification_off(lower, full, dialect) {
        hit(rule);
    }
    if permissions_widened(lower, squeezed) || cors_opened(full) {
        hit(Rule::PermissionsWidened);
    }
    if credential_logged(raw, code) {
        hit(Rule::CredentialLogged);
    }
    let kdf_set_later =
        lower.contains("rfc2898derivebytes(") && window_has(new, i, "iterationcount =");
    // A predictable random value where the line or its function says it is a secret.
    if weak_random(squeezed, dialect) && secret_purpose(&secret_context(at))
        || weak_crypto(lower, full, dialect) && !kdf_set_later
        || dialect == Dialect::CSharp
            && code.contains("setswitch(")
            && code.replace(' ', "").contains(",true)")
            && window_has(new, i, "dontenableschusestrongcrypto")
    {
        hit(Rule::WeakCrypto);
    }
    if (sql_string(lower) || raw_sql_call(full, dialect)) && interpolated(raw) {
        let spliced = spliced_values(raw);
        if spliced
            .as_deref()
            .is_none_or(|v| v.is_empty() || !v.iter().all(|p| safe_sql_piece(p)))
        {
            hit(Rule::SqlFromString);
        }
        if sql_from_input(at, spliced.as_deref(), tainted) {
            hit(Rule::SqlFromInput);
        }
    }
    if command_built(raw, code, dialect) {
        hit(Rule::CommandFromString);
    }
    if eval_built(raw, code, dialect) {
        hit(Rule::EvalFromString);
    }
    if REQUEST_DATA.iter().any(|r| code.contains(r)) && SINKS.iter().any(|s| code.contains(s)) {
        hit(Rule::RequestDataInSink);
    }
    if markup_unescaped(raw, code) {
        hit(Rule::MarkupUnescaped);
    }
    if unsafe_deserialize(code, dialect, new, i) {
        hit(Rule::UnsafeDeserialize);
    }
}

/// The text a random value's purpose is read from: the line, the two new-side lines before it
/// and the hunk's function context, lower-cased and squeezed.
fn secret_context(at: &NewLine<'_>) -> String {
    let before = at.new[at.i.saturating_sub(2)..at.i]
        .iter()
        .map(|l| without_spaces(&l.text.to_ascii_lowercase()))
        .collect::<Vec<_>>()
        .join("\n");
    format!(
        "{}\n{before}\n{}",
        without_spaces(&at.header.to_ascii_lowercase()),
        at.full
    )
}

/// Rules over errors, resources, contexts, locks and timeouts, with the language-specific
/// rules and the remaining trust rules (archive paths, root certificates, CSRF bypass) run
/// in between, in their long-standing order.
fn errors_and_lifecycle(at: &NewLine<'_>, tainted: &[String], hit: &mut impl FnMut(Rule)) {
    let (new, i, code, dialect) = (at.new, at.i, at.code, at.dialect);
    let (squeezed, full) = (at.squeezed, at.full);
    if swallowed(new, i, squeezed, dialect) {
        hit(Rule::ErrorSwallowed);
    }
    if discarded(code, squeezed, dialect)
        || dialect == Dialect::Js && floating_promise(new, i, code)
    {
        hit(Rule::ErrorDiscarded);
    }
    if unclosed(new, i, squeezed, dialect) {
        hit(Rule::ResourceUnclosed);
    }
    if dialect == Dialect::Go
        && (code.contains(", _ := context.with") || code.contains(", _ = context.with"))
    {
        hit(Rule::CancelDiscarded);
    }
    for rule in language_risks(at) {
        hit(rule);
    }
    if jump_in_finally(new, i, code, squeezed, dialect) {
        hit(Rule::JumpInFinally);
    }
    if archive_path_unchecked(squeezed, dialect, new, i) {
        hit(Rule::ArchivePathUnchecked);
    }
    if dialect == Dialect::CSharp && root_cert_trusted(full, new, i)
        || dialect == Dialect::Shell && root_cert_trusted(full, new, i)
    {
        hit(Rule::RootCertTrusted);
    }
    if csrf_bypassed(full, tainted) {
        hit(Rule::CsrfOff);
    }
    if dialect == Dialect::Ruby && auth_skipped(squeezed) || anonymous_allowed(at) {
        hit(Rule::AuthCheckRemoved);
    }
    if dialect == Dialect::Go && size_limit_missing(new, i, squeezed) {
        hit(Rule::SizeLimitMissing);
    }
    if dialect == Dialect::Go
        && (context_dropped(new, i, code) || loop_ignores_context(new, i, code))
    {
        hit(Rule::ContextDropped);
    }
    if dialect == Dialect::Go && cancel_never_called(new, i, squeezed) {
        hit(Rule::CancelDiscarded);
    }
    if lock_without_unlock(new, i, squeezed) {
        hit(Rule::UnlockRemoved);
    }
    if timeout_missing(squeezed, dialect) {
        hit(Rule::TimeoutRemoved);
    }
}

/// Request data as it enters code (lower-cased): query strings, forms, bodies, headers,
/// cookies and path parameters of the common web frameworks.
pub(super) const SOURCES: &[&str] = &[
    "request.args",
    "request.form",
    "request.values",
    "request.json",
    "request.data",
    "request.files",
    "request.cookies",
    "request.headers",
    "request.get[",
    "request.post[",
    "request.get.get(",
    "request.post.get(",
    "request.query_params",
    "request.path_params",
    "request.params",
    "request.query",
    "request.body",
    "request.getparameter(",
    "request.getheader(",
    "request.getquerystring(",
    "request.getcookies(",
    "request.form[",
    "request.querystring",
    "request.cookies[",
    "request.headers[",
    "request.userlanguages",
    "request.url",
    "request.rawurl",
    "request.input(",
    "req.query",
    "req.params",
    "req.body",
    "req.headers",
    "req.cookies",
    "req.url",
    "$_get",
    "$_post",
    "$_request",
    "$_cookie",
    "$_files",
    "$_server[",
    "$request->input(",
    "$request->get(",
    "$request->query(",
    "params[:",
    "params.require(",
    "params.permit(",
    "cookies[:",
    "r.formvalue(",
    "r.postformvalue(",
    "r.form.get(",
    "r.postform.get(",
    "r.url.query()",
    "r.url.path",
    "r.header.get(",
    "r.body",
    "mux.vars(r)",
    "c.query(",
    "c.param(",
    "c.postform(",
    "c.formvalue(",
    "ctx.query(",
    "ctx.params(",
    "getparameter(",
    "getcurrentpage().getparameters()",
    "apexpages.currentpage().getparameters()",
];

pub(super) fn has_source(code: &str) -> bool {
    // One pass over the line for all of them (this runs on every changed line twice). A
    // contiguous NFA builds in a fraction of a DFA's time, which each hook process pays once.
    static AUTOMATON: std::sync::LazyLock<Option<aho_corasick::AhoCorasick>> =
        std::sync::LazyLock::new(|| {
            aho_corasick::AhoCorasick::builder()
                .kind(Some(aho_corasick::AhoCorasickKind::ContiguousNFA))
                .build(SOURCES)
                .ok()
        });
    let found = match AUTOMATON.as_ref() {
        Some(ac) => ac.is_match(code),
        None => SOURCES.iter().any(|s| code.contains(s)),
    };
    found
        // ASP.NET's `Request["name"]` (elsewhere a map is often called `request`).
        || code.contains("request[\"") && !code.contains(":=") && !code.contains("request[\"\"]=")
}

/// Calls that check, convert or escape a value, so what they return is no longer raw
/// request data.
pub(super) const SANITIZERS: &[&str] = &[
    "parseaddress",
    "strconv.",
    "parseint(",
    "parsefloat(",
    "int(",
    "float(",
    "intval(",
    "floatval(",
    "absint(",
    "(int)",
    "(float)",
    "integer.parseint(",
    "long.parselong(",
    "int.parse(",
    "int.tryparse(",
    "escape",
    "sanitize",
    "validate",
    "quote(",
    "htmlspecialchars(",
    "htmlentities(",
    "esc_",
    "ldap_escape(",
    "escapeshellarg(",
    "escapeshellcmd(",
    "filepath.base(",
    "path.basename(",
    "basename(",
    "secure_filename(",
    "uuid.parse(",
    "bleach.",
    "encodeuricomponent(",
    "url.queryescape(",
    "url.pathescape(",
    "isvalid",
    "allowlist",
    "whitelist",
];

pub(super) fn sanitized(code: &str) -> bool {
    SANITIZERS.iter().any(|s| {
        if s.ends_with('(') || s.ends_with('.') || s.ends_with(')') || s.ends_with('_') {
            return code.contains(s);
        }
        // A word (`escape`, `sanitize`, …) counts inside a call's name only.
        let mut from = 0;
        while let Some(off) = code[from..].find(s) {
            let at = from + off + s.len();
            let rest = &code[at..];
            let name_end = rest
                .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
                .unwrap_or(rest.len());
            if rest[name_end..].starts_with('(') {
                return true;
            }
            from = at;
        }
        false
    })
}

/// The names a line of code assigns (`a := …`, `var a = …`, `$a = …`, `String a = …`,
/// `a, b := …`), lower-cased; empty for anything else.
pub(super) fn assigned_names(code: &str) -> Vec<String> {
    let t = code.trim_start();
    let Some(at) = t.find('=') else {
        return Vec::new();
    };
    let b = t.as_bytes();
    // Not `==`, `!=`, `<=`, `>=`, `=>`.
    if b.get(at + 1) == Some(&b'=')
        || b.get(at + 1) == Some(&b'>')
        || at > 0 && matches!(b[at - 1], b'!' | b'<' | b'>' | b'=')
    {
        return Vec::new();
    }
    let lhs = t[..at].trim_end_matches([':', '+', '.', ' ']);
    if lhs.contains('(') || lhs.contains('"') || lhs.contains('\'') {
        return Vec::new();
    }
    lhs.split(',')
        .filter_map(|part| {
            let last = part.split_whitespace().last()?;
            let name = last.trim_start_matches(['$', '*', '&', '@']);
            let name = name.rsplit('.').next().unwrap_or(name);
            (!name.is_empty()
                && name != "_"
                && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_'))
            .then(|| name.to_owned())
        })
        .collect()
}

/// Whether `code` uses `name` as a whole word.
pub(super) fn uses_word(code: &str, name: &str) -> bool {
    let b = code.as_bytes();
    let word = |c: u8| c.is_ascii_alphanumeric() || c == b'_';
    let mut from = 0;
    while let Some(off) = code[from..].find(name) {
        let at = from + off;
        let end = at + name.len();
        let before_ok = at == 0 || !word(b[at - 1]);
        let after_ok = end >= b.len() || !word(b[end]);
        if before_ok && after_ok {
            return true;
        }
        from = end;
    }
    false
}

/// Names that hold request data in a run of lines (assigned from a source, or from another
/// such name), lower-cased.
pub(super) fn tainted_names(lines: &[Lowered]) -> Vec<String> {
    let mut names: Vec<String> = Vec::new();
    for l in lines {
        let code = &l.code;
        let assigned = assigned_names(code);
        if assigned.is_empty() {
            continue;
        }
        let rhs = code.split_once('=').map_or("", |(_, r)| r);
        if (has_source(rhs) || names.iter().any(|n| uses_word(rhs, n))) && !sanitized(rhs) {
            for n in assigned {
                if !names.contains(&n) {
                    names.push(n);
                }
            }
        }
    }
    names
}

const SINK_OF_SQL: &[&str] = &[
    ".query(",
    "->query(",
    "->exec(",
    ".queryforobject(",
    ".queryforlist(",
    ".queryformap(",
    ".execute(",
    ".executemany(",
    ".exec(",
    ".queryrow(",
    ".querycontext(",
    ".execcontext(",
    ".executequery(",
    ".executeupdate(",
    ".preparestatement(",
    ".createquery(",
    ".createnativequery(",
    ".raw(",
    ".get_results(",
    ".get_var(",
    ".get_row(",
    ".get_col(",
    "mysqli_query(",
    "mysql_query(",
    "pg_query(",
    "sqlite_query(",
    "new sqlcommand(",
    "commandtext =",
    ".fromsql(",
    ".fromsqlraw(",
    ".executesqlraw(",
    ".executesqlcommand(",
    ".sqlquery(",
    "database.query(",
    "find_by_sql(",
    ".where(\"",
    "sqlx::query",
    "sql_query(",
];

const SINK_OF_COMMAND: &[&str] = &[
    "exec.command(",
    "exec.commandcontext(",
    "os.system(",
    "os.popen(",
    "subprocess.",
    "runtime.getruntime().exec(",
    "new processbuilder(",
    "process.start(",
    "shell_exec(",
    "passthru(",
    "proc_open(",
    "popen(",
    "system(",
    "execsync(",
    "spawn(",
    "%x(",
    "open3.",
];

const SINK_OF_EVAL: &[&str] = &[
    "eval(",
    "call_user_func(",
    "call_user_func_array(",
    "create_function(",
    "instance_eval(",
    "class_eval(",
    "public_send(",
    "new function(",
    "render_template_string(",
    "new reflectionclass(",
    "new reflectionfunction(",
    "new reflectionmethod(",
    "register_shutdown_function(",
    "register_tick_function(",
    "forward_static_call(",
    "forward_static_call_array(",
    "class.forname(",
    "getmethod(",
    "_.template(",
    "handlebars.compile(",
    "ejs.render(",
    "pug.render(",
    "nunjucks.renderstring(",
    ".from_string(",
    "jinja2.template(",
    "erb.new(",
    "render inline:",
    "render(inline:",
    "template.new",
];

const SINK_OF_DESERIALIZE: &[&str] = &[
    "pickle.loads(",
    "yaml.load(",
    "unserialize(",
    "marshal.load(",
    "xml.unmarshal(",
    "xml.newdecoder(",
    "gob.newdecoder(",
    "objectinputstream(",
    ".deserialize(",
];

const SINK_OF_PLACES: &[&str] = &[
    "open(",
    "os.open(",
    "os.create(",
    "os.openfile(",
    "os.readfile(",
    "ioutil.readfile(",
    "readfile(",
    "writefile(",
    "createreadstream(",
    "sendfile(",
    "send_file(",
    "send_from_directory(",
    "file_get_contents(",
    "file_put_contents(",
    "fopen(",
    "unlink(",
    "include(",
    "require(",
    "new file(",
    "paths.get(",
    "file.readalltext(",
    "urlopen(",
    "requests.get(",
    "requests.post(",
    "requests.request(",
    "http.get(",
    "http.post(",
    "http.newrequest(",
    "http.newrequestwithcontext(",
    "fetch(",
    "axios.get(",
    "axios.post(",
    "axios(",
    "curl_init(",
    "curl_setopt(",
    "new url(",
    "uri.parse(",
    "net::http.get(",
    "redirect(",
    "redirect_to",
    "sendredirect(",
    "header(\"location",
    "header('location",
    "new pagereference(",
    "setcookie(",
    "smtp.sendmail(",
    ".mail(",
    ".rcpt(",
    "ldap_search(",
    "search_s(",
    "ldap.search(",
    "conn.search(",
    ".search_ext(",
    "directorysearcher(",
];

const SINK_OF_OUTPUT: &[&str] = &[
    "<?=",
    "echo ",
    "print ",
    "res.send(",
    "res.write(",
    "response.write(",
    "document.write(",
    ".innerhtml",
    "httpresponse(",
];

/// Where request data must not go unchecked, by the rule it raises.
pub(super) fn sink_of(code: &str, dialect: Dialect) -> Option<(Rule, &'static str)> {
    let find = |list: &'static [&'static str]| list.iter().copied().find(|s| code.contains(s));
    if let Some(s) = find(SINK_OF_SQL)
        && !(dialect == Dialect::Js && s == ".exec(" || s == ".query(" && code.contains("url"))
    {
        return Some((Rule::SqlFromString, s));
    }
    if let Some(s) = find(SINK_OF_COMMAND) {
        return Some((Rule::CommandFromString, s));
    }
    if let Some(s) = find(SINK_OF_DESERIALIZE) {
        return Some((Rule::UnsafeDeserialize, s));
    }
    if let Some(s) = find(SINK_OF_EVAL) {
        return Some((Rule::EvalFromString, s));
    }
    // Ruby's dynamic dispatch and constant lookup.
    if dialect == Dialect::Ruby
        && let Some(s) = [".send(", "constantize"]
            .into_iter()
            .find(|s| code.contains(s))
    {
        return Some((Rule::EvalFromString, s));
    }
    // PHP's `include $page;`: a statement, not a call.
    if dialect == Dialect::Php
        && let Some(s) = ["include_once ", "require_once ", "include ", "require "]
            .into_iter()
            .find(|s| code.trim_start().starts_with(s))
    {
        return Some((Rule::RequestDataInSink, s));
    }
    if let Some(s) = find(SINK_OF_PLACES) {
        return Some((Rule::RequestDataInSink, s));
    }
    if let Some(s) = find(SINK_OF_OUTPUT)
        && (dialect == Dialect::Php || !s.starts_with("echo") && !s.starts_with("print"))
    {
        return Some((Rule::MarkupUnescaped, s));
    }
    None
}

/// The arguments of the call that starts at `open` (the index just after its `(`), up to its
/// closing parenthesis or the end of the line.
pub(super) fn call_args(code: &str, open: usize) -> &str {
    let b = code.as_bytes();
    let mut depth = 0i32;
    for (i, &c) in b.iter().enumerate().skip(open) {
        match c {
            b'(' | b'[' | b'{' => depth += 1,
            b')' | b']' | b'}' if depth == 0 => return &code[open..i],
            b')' | b']' | b'}' => depth -= 1,
            _ => {}
        }
    }
    &code[open..]
}

/// Request data (a source, or a name holding it) reaching a sink on this line.
pub(super) fn request_flow(code: &str, tainted: &[String], dialect: Dialect) -> Option<Rule> {
    // Most lines hold no request data at all: that is cheaper to learn than where a sink is.
    if !has_source(code) && !tainted.iter().any(|n| uses_word(code, n)) {
        return None;
    }
    let (rule, sink) = sink_of(code, dialect)?;
    let at = code.find(sink)? + sink.len();
    // The sink's arguments, or for an assignment-style sink the rest of the line.
    let args = if sink.ends_with('(') {
        call_args(code, at)
    } else {
        &code[at..]
    };
    // For queries, only the statement's text matters: parameters passed beside it are safe.
    let checked = if rule == Rule::SqlFromString && dialect != Dialect::Php {
        first_arg(args)
    } else {
        args
    };
    let flows = has_source(checked) || tainted.iter().any(|n| uses_word(checked, n));
    let prepared = rule == Rule::SqlFromString && code.contains("->prepare(");
    (flows && !prepared && !sanitized(checked)).then_some(rule)
}

/// The first top-level argument of an argument list.
pub(super) fn first_arg(args: &str) -> &str {
    let b = args.as_bytes();
    let mut depth = 0i32;
    let mut quote: Option<u8> = None;
    for (i, &c) in b.iter().enumerate() {
        match quote {
            Some(q) if c == q => quote = None,
            Some(_) => {}
            None => match c {
                b'"' | b'\'' | b'`' => quote = Some(c),
                b'(' | b'[' | b'{' => depth += 1,
                b')' | b']' | b'}' => depth -= 1,
                b',' if depth == 0 => return &args[..i],
                _ => {}
            },
        }
    }
    args
}

/// A `return`, `break`, `continue` or `throw` on a line inside a `finally` block (or Ruby
/// `ensure`): the exception in flight is dropped.
pub(super) fn jump_in_finally(
    new: &[SideLine<'_>],
    i: usize,
    code: &str,
    squeezed: &str,
    dialect: Dialect,
) -> bool {
    let t = code.trim_start();
    let jump = ["return", "break", "continue", "throw", "raise"]
        .iter()
        .any(|j| {
            t.starts_with(j)
                && !t[j.len()..].starts_with(|c: char| c.is_ascii_alphanumeric() || c == '_')
        });
    // Promise `.finally(() => { return x })` on one line.
    if squeezed.contains(".finally(") {
        let after = squeezed.split_once(".finally(").map_or("", |(_, r)| r);
        return after.contains("{return") || after.contains("{throw");
    }
    if !jump
        || matches!(
            dialect,
            Dialect::Go | Dialect::Rust | Dialect::Shell | Dialect::Data
        )
    {
        return false;
    }
    let indent = |s: &str| s.len() - s.trim_start().len();
    let mine = indent(new[i].text);
    // `break`/`continue` without a label inside a loop or switch of the finally block stay
    // in it.
    let local_jump = (t.starts_with("break") || t.starts_with("continue"))
        && matches!(t.trim_end_matches(';').trim(), "break" | "continue");
    let mut depth_min = mine;
    // Walk up to the block that holds this line.
    for l in new[..i].iter().rev().take(60) {
        let text = l.text;
        if text.trim().is_empty() {
            continue;
        }
        let lt = text.trim().to_ascii_lowercase();
        let ind = indent(text);
        if ind < depth_min {
            depth_min = ind;
            let looping = starts_any(
                &lt,
                &[
                    "for ", "for(", "while ", "while(", "do ", "do{", "switch", "loop", "until ",
                ],
            );
            if local_jump && looping {
                return false;
            }
        }
        if ind >= mine {
            continue;
        }
        // A nested function or lambda owns its own returns.
        if any(&lt, &["=>", "->", "function", "lambda"]) || starts_any(&lt, &["def ", "fn "]) {
            return false;
        }
        if matches!(lt.as_str(), "finally:" | "ensure" | "finally")
            || starts_any(&lt, &["finally {", "} finally {", "}finally{"])
        {
            return true;
        }
        // Left the enclosing method without meeting `finally`.
        if starts_any(
            &lt,
            &[
                "def ",
                "public ",
                "private ",
                "protected ",
                "static ",
                "class ",
            ],
        ) {
            return false;
        }
    }
    false
}

/// Archive entries extracted with their own paths: `tar.extractall()` without a filter,
/// `filepath.Join(dest, f.Name)`, `new File(dir, entry.getName())`, `entry.fileName`.
pub(super) fn archive_path_unchecked(
    s: &str,
    dialect: Dialect,
    new: &[SideLine<'_>],
    i: usize,
) -> bool {
    match dialect {
        Dialect::Python => {
            (s.contains(".extractall(") || s.contains(".extract(") && window_has(new, i, "tarfile"))
                && !s.contains("filter=")
                && !s.contains("members=safe")
        }
        Dialect::Go => {
            (s.contains("filepath.join(") || s.contains("path.join("))
                && (s.contains(".name)") || s.contains("header.name") || s.contains("hdr.name"))
                && (window_has(new, i, "zip") || window_has(new, i, "tar"))
                && !window_has(new, i, "hasprefix")
                && !window_has(new, i, "filepath.islocal")
        }
        Dialect::Java => {
            s.contains("newfile(")
                && (s.contains("entry.getname()")
                    || s.contains("ze.getname()")
                    || s.contains(".getname())"))
                && (window_has(new, i, "zipentry")
                    || window_has(new, i, "zipinputstream")
                    || window_has(new, i, "tararchiveentry"))
                && !window_has(new, i, "getcanonicalpath")
                && !window_has(new, i, "normalize()")
        }
        Dialect::Js => {
            (s.contains("path.join(") || s.contains("path.resolve("))
                && (s.contains("entry.path")
                    || s.contains("entry.filename")
                    || s.contains("header.name"))
        }
        Dialect::CSharp => {
            s.contains("path.combine(")
                && s.contains("entry.fullname")
                && !window_has(new, i, "startswith(")
        }
        Dialect::Php => s.contains("->extractto(") && window_has(new, i, "$_"),
        _ => false,
    }
}

/// A certificate added to the trusted root store (.NET `X509Store` with `StoreName.Root`).
pub(super) fn root_cert_trusted(s: &str, new: &[SideLine<'_>], i: usize) -> bool {
    let names_root = s.contains("storename.root")
        || s.contains("x509store(\"root\"")
        || s.contains("=\"root\";");
    names_root && (window_has(new, i, "x509store") && window_has(new, i, ".add("))
        || s.contains("x509store") && s.contains(".add(") && window_has(new, i, "storename.root")
        || s.contains("security add-trusted-cert")
        || s.contains("update-ca-certificates") && s.contains("cp")
}

/// CSRF protection bypassed for every path (`AddInsecureBypassPattern("/")`), or for a
/// pattern taken from the request.
pub(super) fn csrf_bypassed(s: &str, tainted: &[String]) -> bool {
    let Some((_, rest)) = s.split_once("addinsecurebypasspattern(") else {
        return false;
    };
    let arg = rest.split(')').next().unwrap_or("");
    arg == "\"/\""
        || arg == "\"/*\""
        || arg == "\"/{path...}\""
        || !arg.starts_with('"')
        || tainted.iter().any(|n| uses_word(arg, n))
}

/// A Go function that receives a context but starts work on a fresh one.
pub(super) fn context_dropped(new: &[SideLine<'_>], i: usize, code: &str) -> bool {
    if !(code.contains("context.background()") || code.contains("context.todo()")) {
        return false;
    }
    for l in new[..i].iter().rev() {
        let t = l.text.trim_start();
        if t.starts_with("func ") {
            let sig = t.to_ascii_lowercase();
            return sig.contains("ctx context.context")
                || sig.contains("context.context)")
                || sig.contains("r *http.request")
                || sig.contains("req *http.request");
        }
    }
    false
}

/// A Go `for {}` loop, in a function handed a context, that never checks it: cancellation
/// cannot stop it.
pub(super) fn loop_ignores_context(new: &[SideLine<'_>], i: usize, code: &str) -> bool {
    if code.trim() != "for {" {
        return false;
    }
    let has_ctx = new[..i]
        .iter()
        .rev()
        .find(|l| l.text.trim_start().starts_with("func "))
        .is_some_and(|l| l.text.contains("context.Context"));
    if !has_ctx {
        return false;
    }
    let indent = |s: &str| s.len() - s.trim_start().len();
    let mine = indent(new[i].text);
    let mut closed = false;
    for l in &new[i + 1..] {
        if l.text.trim().is_empty() {
            continue;
        }
        if indent(l.text) <= mine {
            closed = l.text.trim_start().starts_with('}');
            break;
        }
        let t = l.text.to_ascii_lowercase();
        if t.contains(".done()")
            || t.contains(".err()")
            || t.contains("<-ctx")
            || t.contains("return")
            || t.contains("break")
        {
            return false;
        }
    }
    closed
}

/// Go code that reads a request body whole with no limit (`io.ReadAll(r.Body)`,
/// `r.ParseMultipartForm`) or decompresses without one.
pub(super) fn size_limit_missing(new: &[SideLine<'_>], i: usize, s: &str) -> bool {
    let body = s.contains("io.readall(r.body)")
        || s.contains("ioutil.readall(r.body)")
        || s.contains("io.readall(req.body)")
        || s.contains("ioutil.readall(req.body)")
        || s.contains("r.parsemultipartform(")
        || s.contains("req.parsemultipartform(");
    let limited = window_has(new, i, "maxbytesreader") || window_has(new, i, "limitreader");
    let inflate = (s.contains("io.copy(") || s.contains("io.readall("))
        && (window_has(new, i, "gzip.newreader")
            || window_has(new, i, "zlib.newreader")
            || window_has(new, i, "flate.newreader")
            || window_has(new, i, "bzip2.newreader"))
        && !s.contains("io.copyn(");
    (body || inflate) && !limited
}

/// A Go `cancel` from `context.WithCancel`/`WithTimeout`/`WithDeadline` that is never
/// called nearby.
pub(super) fn cancel_never_called(new: &[SideLine<'_>], i: usize, s: &str) -> bool {
    if !(s.contains(":=context.with") || s.contains("=context.with"))
        || s.contains(",_:=")
        || s.contains(",_=")
    {
        return false;
    }
    let Some(lhs) = s.split_once("context.with").map(|(l, _)| l) else {
        return false;
    };
    let name = lhs
        .trim_end_matches([':', '='])
        .rsplit(',')
        .next()
        .unwrap_or("")
        .to_owned();
    if name.is_empty() || name == "_" {
        return false;
    }
    !new[i + 1..]
        .iter()
        .any(|l| uses_word(&l.text.to_ascii_lowercase(), &name))
}

/// A guard removed from code: an error check, a lock's release, a timeout, a size limit,
/// CSRF middleware, verification.
/// A file's added (or removed) lines, lower-cased and squeezed of whitespace, joined.
pub(super) fn edited_text(file: &FileDiff<'_>, kind: LineKind) -> String {
    file.hunks
        .iter()
        .flat_map(|h| &h.lines)
        .filter(|l| l.kind == kind && !file.is_comment(l.text))
        // Removed lines that come back elsewhere (moved) are not removed.
        .filter(|l| kind == LineKind::Added || l.changed)
        .flat_map(|l| {
            l.text
                .chars()
                .filter(|c| !c.is_whitespace())
                .chain(std::iter::once('\n'))
        })
        .map(|c| c.to_ascii_lowercase())
        .collect()
}

/// Whether a line sets a timeout or deadline on something: an argument or field
/// (`timeout=10`, `Timeout: 10 * time.Second`), a setter (`conn.SetDeadline(…)`,
/// `.setReadTimeout(…)`), a context with one. Not a timer (`setTimeout(() => …)`), not a
/// declaration, not an exception caught, raised or tested. `code` is the line lower-cased with
/// string contents removed, `squeezed` the same without spaces.
pub(super) fn timeout_setting(code: &str, squeezed: &str) -> bool {
    // Every setting below names a timeout or a deadline: most lines stop here.
    if !squeezed.contains("timeout") && !squeezed.contains("deadline") {
        return false;
    }
    let declares = starts_any(code.trim_start(), FUNCTION_KEYWORDS)
        || starts_any(
            code.trim_start(),
            &[
                "export ",
                "public ",
                "private ",
                "protected ",
                "internal ",
                "static ",
                "import ",
                "use ",
                "#",
                "//",
            ],
        );
    let about_failure = any(
        squeezed,
        &[
            "exception",
            "exceeded",
            "error",
            "instanceof",
            "==",
            "!=",
            "case",
            "except",
            "rescue",
            "catch",
        ],
    );
    let timer = any(
        squeezed,
        &[
            "settimeout(()",
            "settimeout(function",
            "settimeout(async",
            "settimeout(0)",
            "cleartimeout(",
            "newtimer(",
            "time.after(",
        ],
    ) || squeezed.starts_with("settimeout(");
    let sets = any(
        squeezed,
        &[
            "timeout=",
            "timeout:",
            "deadline=",
            "deadline:",
            ".settimeout(",
            "setreadtimeout(",
            "setconnecttimeout(",
            "setwritetimeout(",
            "setsotimeout(",
            "setdeadline(",
            "setreaddeadline(",
            "setwritedeadline(",
            "context.withtimeout(",
            "context.withdeadline(",
            ".timeout(",
            "_timeout(",
        ],
    ) && !squeezed.contains("timeout:=")
        && !squeezed.contains("timeout==");
    sets && !declares && !about_failure && !timer
}

/// Lines that switch CSRF protection on (spaces removed, lower case): Django's middleware and
/// `csrf_protect`, Rails' `protect_from_forgery`, Flask-WTF's `CSRFProtect`, Express's
/// `csurf`, ASP.NET's `ValidateAntiForgeryToken`.
const CSRF_GUARDS: &[&str] = &[
    "csrfviewmiddleware",
    "protect_from_forgery",
    "verify_authenticity_token",
    "csrfprotect(",
    "app.use(csrf",
    "csurf(",
    "validateantiforgerytoken",
    "csrf_protect",
];

/// Calls and settings that cap the size of a request body or a read (spaces removed, lower
/// case).
const SIZE_LIMITS: &[&str] = &[
    "maxbytesreader(",
    "io.limitreader(",
    "max_content_length",
    "maxbodylength",
    "limit_request",
    "maxrequestbodysize",
    "bodylimit",
];

pub(super) fn removed_guards(
    hunk: &Hunk<'_>,
    dialect: Dialect,
    file_added: &str,
    push: &mut impl FnMut(Rule, u32, &str),
) {
    // What the file adds anywhere: a guard moved elsewhere in the file is kept.
    let added_squeezed = file_added;
    let grants = grants_added(hunk);
    for (k, l) in hunk.lines.iter().enumerate() {
        if l.kind != LineKind::Removed || !l.changed {
            continue;
        }
        let raw = l.text.trim();
        let lower = raw.to_ascii_lowercase();
        let code = code_only(&lower);
        let squeezed = without_spaces(&code);
        let kept = |needle: &str| added_squeezed.contains(needle);
        let removed = RemovedLine {
            lines: &hunk.lines,
            k,
            raw,
            lower: &lower,
            squeezed: &squeezed,
            grants_added: grants,
        };
        access_removed(&removed, dialect, file_added, push);
        if dialect == Dialect::Go && squeezed.starts_with("deferer") {
            continue;
        }
        if (squeezed.starts_with("defer") && squeezed.contains("unlock()")
            || squeezed.ends_with(".unlock()")
            || squeezed.ends_with(".release()") && squeezed.contains("lock"))
            && !kept("unlock()")
            && !kept("release()")
        {
            push(Rule::UnlockRemoved, l.new_line, raw);
        }
        if (squeezed.contains("jwt.verify(") || squeezed.contains("jwt::verify("))
            && !kept("verify(")
            && kept("decode(")
        {
            push(Rule::TokenVerifyOff, l.new_line, raw);
        }
        // A context's `defer cancel()` dropped, and the cancel called nowhere else in the file.
        if dialect == Dialect::Go
            && squeezed.starts_with("defer")
            && squeezed.ends_with("cancel()")
            && !kept("cancel()")
        {
            push(Rule::CancelDiscarded, l.new_line, raw);
        }
        // A `defer x.Close()` dropped, and nothing closed anywhere else in the file.
        if dialect == Dialect::Go
            && squeezed.starts_with("defer")
            && squeezed.ends_with(".close()")
            && !kept("close()")
        {
            push(Rule::ResourceUnclosed, l.new_line, raw);
        }
        if dialect == Dialect::Go
            && (squeezed == "iferr!=nil{" || squeezed.ends_with(";err!=nil{"))
            && !kept("err!=nil")
        {
            push(Rule::ErrorCheckRemoved, l.new_line, raw);
        }
        let full_squeezed = without_spaces(&lower);
        if any(&full_squeezed, CSRF_GUARDS) && !kept("csrf") && !kept("forgery") {
            push(Rule::CsrfOff, l.new_line, raw);
        }
        let timeout_words = ["timeout", "deadline"];
        if timeout_setting(&code, &squeezed) && !timeout_words.iter().any(|w| kept(w)) {
            push(Rule::TimeoutRemoved, l.new_line, raw);
        }
        if any(&squeezed, SIZE_LIMITS) && !kept("limit") && !kept("max") {
            push(Rule::SizeLimitMissing, l.new_line, raw);
        }
    }
}
