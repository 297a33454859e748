//! The line rules: one regular expression per signal, matched against added or removed lines
//! of the files whose language and role the rule names. Structural signals that need more than
//! one line live in [`super::signals`].

use super::hunks::{Lang, Role};

/// Axis indexes in contract order (see [`crate::pipeline::axes::AXIS_IDS`]).
pub const BEHAVIOR: usize = 0;
pub const AUTH: usize = 1;
pub const INPUT: usize = 2;
pub const DATA: usize = 3;
pub const ERRORS: usize = 4;
pub const COMPAT: usize = 5;
pub const LIFECYCLE: usize = 6;
pub const TESTS: usize = 7;

/// Which side of the diff a rule reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Side {
    /// Lines the change adds (and did not merely move or reformat).
    Added,
    /// Lines the change removes (and did not re-add elsewhere in the payload).
    Removed,
}

/// One weighted line signal.
#[derive(Debug, Clone, Copy)]
pub struct Rule {
    pub id: &'static str,
    pub axis: usize,
    /// Probability that the axis is a yes given this signal alone.
    pub weight: f64,
    pub side: Side,
    /// Bit set of [`Lang::bit`]; `ANY` for every language.
    pub langs: u16,
    /// Bit set of [`Role::bit`].
    pub roles: u8,
    pub pattern: &'static str,
    /// A line that also matches this is not a hit.
    pub unless: Option<&'static str>,
    /// Short evidence note shown to the agent.
    pub note: &'static str,
}

pub const ANY: u16 = u16::MAX;
const GO: u16 = 1 << (Lang::Go as u16);
const PY: u16 = 1 << (Lang::Python as u16);
const JS: u16 = 1 << (Lang::JavaScript as u16);
const RS: u16 = 1 << (Lang::Rust as u16);
const JAVA: u16 = 1 << (Lang::Java as u16);
const RB: u16 = 1 << (Lang::Ruby as u16);

pub const SRC: u8 = 1 << (Role::Source as u8);
pub const TEST: u8 = 1 << (Role::Test as u8);
pub const CFG: u8 = 1 << (Role::Config as u8);
const SRC_CFG: u8 = SRC | CFG;

// A positional constructor keeps the rule table one rule per few lines.
#[allow(clippy::too_many_arguments)]
const fn r(
    id: &'static str,
    axis: usize,
    weight: f64,
    side: Side,
    langs: u16,
    roles: u8,
    pattern: &'static str,
    note: &'static str,
) -> Rule {
    Rule {
        id,
        axis,
        weight,
        side,
        langs,
        roles,
        pattern,
        unless: None,
        note,
    }
}

const fn unless(rule: Rule, unless: &'static str) -> Rule {
    Rule {
        unless: Some(unless),
        ..rule
    }
}

use Side::{Added as ADD, Removed as DEL};

/// Every line rule. Weights are the judgement of how often the signal alone means "yes"; they
/// were set from the vulnerability classes named in the notes, not fitted to the eval set.
pub static RULES: &[Rule] = &[
    // ── auth_boundary: disabled verification ────────────────────────────────────────────
    r(
        "tls_skip_verify",
        AUTH,
        0.93,
        ADD,
        ANY,
        SRC_CFG,
        r"InsecureSkipVerify\s*:\s*true|rejectUnauthorized\s*:\s*false|NODE_TLS_REJECT_UNAUTHORIZED|danger_accept_invalid_(?:certs|hostnames)\s*\(\s*true|verify\s*=\s*False|ssl_verify\w*\s*[:=]\s*(?:false|False)|CERT_NONE|check_hostname\s*=\s*False|_create_unverified_context|VERIFY_NONE|tls_verify\s*[:=]\s*false|insecure\s*:\s*true|(?i:ssl_?verify)\s*[:=]\s*false",
        "TLS certificate or hostname verification turned off",
    ),
    r(
        "trust_all",
        AUTH,
        0.9,
        ADD,
        ANY,
        SRC,
        r"check(?:Server|Client)Trusted\([^)]*\)\s*\{\s*\}|HostnameVerifier\w*\(\s*\(?\w*,?\s*\w*\)?\s*->\s*true|NoopHostnameVerifier|ALLOW_ALL_HOSTNAME_VERIFIER|TrustAllStrategy|InsecureTrustManager",
        "a trust-all certificate or hostname verifier",
    ),
    r(
        "jwt_unverified",
        AUTH,
        0.92,
        ADD,
        ANY,
        SRC,
        r#"verify_signature["']?\s*:\s*False|algorithms?\s*[:=].*['"]none['"]|ParseUnverified|insecure_disable_signature_validation|validate_exp\s*=\s*false|ignoreExpiration\s*:\s*true|verify_exp["']?\s*:\s*False|parseUnsecured|alg\s*[:=]\s*['"]none['"]"#,
        "token signature or expiry verification disabled",
    ),
    r(
        "jwt_decode_js",
        AUTH,
        0.6,
        ADD,
        JS,
        SRC,
        r"\bjwt\.decode\(",
        "token decoded without verification",
    ),
    r(
        "csrf_off",
        AUTH,
        0.9,
        ADD,
        ANY,
        SRC_CFG,
        r"csrf\w*\s*(?:->|=>)\s*\w*\.disable\(\)|csrf\(\)\.disable\(\)|@csrf_exempt|skip_before_action\s+:verify_authenticity_token|protect_from_forgery\s+with:\s*:null_session|WTF_CSRF_ENABLED\s*=\s*False|csrf\s*:\s*false|CSRF_COOKIE_SECURE\s*=\s*False|csrf_protection\s*[:=]\s*false",
        "CSRF protection disabled",
    ),
    r(
        "auth_skipped",
        AUTH,
        0.9,
        ADD,
        ANY,
        SRC_CFG,
        r"skip_before_action\s+:(?:authenticate\w*|require_\w+|authorize\w*|login\w*)|@AllowAnonymous|AllowAnonymous\b|@PermitAll|allow_unauthenticated|authentication_classes\s*=\s*\[\s*\]|permission_classes\s*=\s*\[\s*(?:AllowAny)?\s*\]|skip_authorization|skipAuth\s*[:=]\s*true",
        "authentication or authorization skipped",
    ),
    r(
        "open_access",
        AUTH,
        0.6,
        ADD,
        ANY,
        SRC_CFG,
        r"\.permitAll\(\)|\bAllowAny\b|anonymous\(\)|auth\s*:\s*false|public\s*:\s*true",
        "access opened to everyone",
    ),
    r(
        "cors_reflect",
        AUTH,
        0.75,
        ADD,
        ANY,
        SRC_CFG,
        r#"Access-Control-Allow-Origin['"]?\s*[,:]\s*(?:req\.headers\.origin|request\.headers|origin\b|['"]\*['"])|origins?\s*[:=]\s*['"]\*['"].*credentials|AllowAllOrigins\s*:\s*true|allow_origins\s*=\s*\[\s*['"]\*"#,
        "any origin allowed cross-site",
    ),
    r(
        "hard_coded_secret",
        AUTH,
        0.5,
        ADD,
        ANY,
        SRC_CFG,
        r"\[REDACTED:[a-z0-9-]+\]",
        "a credential written into the change",
    ),
    // ── auth_boundary: removed checks ───────────────────────────────────────────────────
    unless(
        r(
            "removed_auth_check",
            AUTH,
            0.8,
            DEL,
            ANY,
            SRC,
            r"(?i)^\s*(?:if|unless|elif|else\s+if|guard|when|@|before_action|before_filter|router\.use|app\.use|\w+\.use\(|authorize\b|authorize!|check_\w+!?\(|require_\w+!?\(|ensure_\w+!?\(|verify_\w+!?\(|\.?requestMatchers|\.?antMatchers|\.?mvcMatchers|\.(?:hasRole|hasAuthority|hasAnyRole|authenticated)\(|(?:let|const|var)?\s*\w+\s*:?=\s*\w*(?:can|may|allowed|authori[sz]ed|permitted)\w*\().*(?:auth|permi|admin|role|owner|poster|acl|polic|forbid|csrf|xsrf|helmet|\bcsp\b|\bcan[_?A-Z]|\bmay[_A-Z]|access|login|allowed|privilege|grant|tenant|member|scope|\.id\s*!=|\bid\s*!=|user_?id\s*!=)",
            "an access check removed",
        ),
        r"(?i)^\s*(?:import|from|require|use)\b|^\s*@(?:param|return|throws)",
    ),
    r(
        "removed_auth_call",
        AUTH,
        0.85,
        DEL,
        ANY,
        SRC,
        r"(?i)^\s*(?:authorize!?(?:\s|\()|authorize_\w+|(?:require|check|ensure|verify|enforce|assert)_?\w*(?:login|auth|admin|role|permission|access|owner|member|scope|policy)\w*[!?]?(?:\s|\(|$)|@(?:PreAuthorize|PostAuthorize|Secured|RolesAllowed|login_required|permission_required|requires_auth|admin_required|staff_member_required|user_passes_test)\b|policy\.\w+\(|\$this->authorize\(|Gate::|abort_unless\()",
        "an authorization call removed",
    ),
    r(
        "removed_owner_scope",
        AUTH,
        0.8,
        DEL,
        ANY,
        SRC,
        r"(?i)current_(?:user|account|tenant|org\w*)\.\w+\.(?:find|where|find_by|get)|\b(?:owner|user|tenant|account|org|organization)_?id\s*(?:=\s*[$?:%]|:\s*(?:current|user|req|ctx)|==\s*(?:current|user|req|ctx))|\b(?:owner|user|tenant|account|author|created_by)(?:_id)?\s*=\s*(?:self\.)?request\.user\b|\.where\(\s*(?:owner|user|tenant|account)(?:_id)?\s*:",
        "a query no longer scoped to the requesting user",
    ),
    r(
        "unscoped_lookup",
        AUTH,
        0.5,
        ADD,
        RB,
        SRC,
        r"^\s*@?\w+\s*=\s*[A-Z]\w*\.find(?:_by)?\(\s*params\[",
        "a record fetched by request id without an owner scope",
    ),
    r(
        "removed_forbidden",
        AUTH,
        0.6,
        DEL,
        ANY,
        SRC,
        r"(?i)\b403\b|forbidden|PermissionDenied|AccessDenied|Unauthori[sz]ed|NotAuthori[sz]ed|head\s+:forbidden|abort\(\s*401",
        "a forbidden/unauthorized response removed",
    ),
    r(
        "removed_constant_time",
        AUTH,
        0.88,
        DEL,
        ANY,
        SRC,
        r"hmac\.Equal\(|ConstantTimeCompare|ConstantTimeEq|compare_digest|timingSafeEqual|constant_time_eq|constant_time_compare|\bct_eq\(|MessageDigest\.isEqual|secure_compare|safe_str_cmp|secrets\.compare",
        "a constant-time comparison of a secret removed (timing attack, CWE-208)",
    ),
    // ── input_validation ────────────────────────────────────────────────────────────────
    unless(
        r(
            "sql_built",
            INPUT,
            0.9,
            ADD,
            ANY,
            SRC,
            r#"(?:\b(?:SELECT|INSERT\s+INTO|UPDATE|DELETE\s+FROM|WHERE|ORDER\s+BY|VALUES|GROUP\s+BY)\b|(?i:select\s+[\w*,\s]+\s+from)|\b(?:where|order|find_by_sql|execute|exec_query|query|raw|whereRaw|orderByRaw|createQuery|createNativeQuery|executeQuery|executeUpdate|Exec|Query|QueryRow)\(\s*["'`])[^\n]*(?:\$\{|#\{|["'`]\s*\+\s*[\w(]|[\w)]\s*\+\s*["'`]|'%[sdv]'|%[sdv]["'`]?\s*%\s*[(\w]|\{\w*\}'|'\{\w*\}|%\(\w+\)s['"]\s*%|\bf["'].*\{\w+|Sprintf\(\s*["'`][^"'`]*%[sdv]|String\.format\(|format!\(\s*"[^"]*\{)"#,
            "a SQL statement built from strings",
        ),
        r"^\s*(?://|#|\*|--)",
    ),
    r(
        "shell_true",
        INPUT,
        0.85,
        ADD,
        PY,
        SRC,
        r"shell\s*=\s*True",
        "a shell command built from a string (`shell=True`)",
    ),
    r(
        "shell_call",
        INPUT,
        0.85,
        ADD,
        ANY,
        SRC,
        r#"os\.system\(|os\.popen\(|subprocess\.getoutput\(|commands\.getoutput\(|exec\.Command\(\s*"(?:sh|bash|/bin/sh|/bin/bash|cmd|cmd\.exe|powershell)"\s*,\s*"(?:-c|/c|/C|-Command)"|Command::new\(\s*"(?:sh|bash|cmd)"\s*\)|Runtime\.getRuntime\(\)\.exec\(\s*[^"]|Runtime\.getRuntime\(\)\.exec\(.*\+|\bexecSync\(\s*`|\bexec\(\s*`[^`]*\$\{|\bexec\(\s*['"][^'"]*['"]\s*\+|\bspawn\([^)]*shell\s*:\s*true|`[^`]*#\{[^`]*`|%x\(|\bsystem\(\s*["'][^"']*#\{|IO\.popen\(\s*["'][^"']*#\{|Open3\.\w+\(\s*["'][^"']*#\{|ProcessBuilder\(\s*"(?:sh|bash)"\s*,\s*"-c""#,
        "a shell command built from a string",
    ),
    r(
        "html_raw",
        INPUT,
        0.85,
        ADD,
        ANY,
        SRC,
        r"\.innerHTML\s*\+?=\s*[^\s'\x22;]|\.outerHTML\s*=|insertAdjacentHTML\(|document\.write\(|dangerouslySetInnerHTML|v-html=|\.html_safe\b|\braw\(\s*[a-z@]|<%==|mark_safe\(|\|\s*safe\b|Markup\(\s*f?['\x22]?.*[{%+]|\{\{\{|autoescape\s*(?:=\s*False|off)|template\.(?:HTML|JS|URL)\(|render\s*\(?\s*inline:|\.html\(\s*[a-zA-Z`]",
        "HTML built from unescaped data",
    ),
    unless(
        r(
            "unsafe_deserialize",
            INPUT,
            0.85,
            ADD,
            ANY,
            SRC,
            r"\byaml\.load\(|\bYAML\.load\(|unsafe_load|Marshal\.load|\bpickle\.loads?\(|cPickle\.loads?\(|jsonpickle\.decode|ObjectInputStream\(|\.readObject\(|enableDefaultTyping|activateDefaultTyping|XMLDecoder\(|\bunserialize\(|node-serialize|serialize\.unserialize|\beval\(|new Function\(|vm\.runIn\w*Context|\bexec\(\s*(?:request|req|params|input|data)|Psych\.load\(|shelve\.open\(|torch\.load\(",
            "untrusted data deserialized or evaluated",
        ),
        r"SafeLoader|\bsafe_load|CSafeLoader|weights_only\s*=\s*True|//|#\s",
    ),
    r(
        "mass_assignment",
        INPUT,
        0.85,
        ADD,
        ANY,
        SRC,
        r"\.permit!|\.to_unsafe_h\b|\bpermit_all_parameters\s*=\s*true|attr_accessible|@JsonIgnoreProperties\(\s*ignoreUnknown|\*\*request\.(?:POST|GET|data|json)\b|Object\.assign\(\s*\w+\s*,\s*req\.body",
        "request parameters assigned without an allow-list",
    ),
    r(
        "open_redirect",
        INPUT,
        0.7,
        ADD,
        ANY,
        SRC,
        r"redirect(?:_to)?\(\s*(?:req|request|params)[.\[]|res\.redirect\(\s*req\.|sendRedirect\(\s*request\.getParameter|http\.Redirect\([^,]+,\s*r,\s*r\.(?:URL\.Query|FormValue)",
        "a redirect to a URL taken from the request",
    ),
    r(
        "archive_extract",
        INPUT,
        0.5,
        ADD,
        ANY,
        SRC,
        r"\.extractall\(|\.extract\(\s*member|ZipFile\(|ZipInputStream\(|zip\.OpenReader\(|tar\.NewReader\(",
        "archive entries extracted",
    ),
    r(
        "removed_path_check",
        INPUT,
        0.75,
        DEL,
        ANY,
        SRC,
        r#"getCanonicalPath|realpath|filepath\.Clean|filepath\.Rel|HasPrefix\(|\.startsWith\(|start_with\?|\.startswith\(|canonicalize\(|\bstarts_with\(|['"]\.\.['"]|\.\./|secure_filename|path\.normalize|filepath\.IsLocal|is_relative_to|isAbsolute|is_absolute"#,
        "a path containment check removed",
    ),
    r(
        "removed_proto_guard",
        INPUT,
        0.88,
        DEL,
        JS,
        SRC,
        r"__proto__|['\x22]constructor['\x22]|['\x22]prototype['\x22]|hasOwnProperty|Object\.hasOwn|isSafeKey|isPrototypePolluted",
        "a prototype-pollution guard removed",
    ),
    unless(
        r(
            "removed_validation",
            INPUT,
            0.75,
            DEL,
            ANY,
            SRC,
            r"(?i)^\s*(?:validates?_?\w*\b|@valid|@notnull|@notblank|@size|@pattern|@min|@max|@email|ensure!|assert!|debug_assert!|bail!)|(?:^|\W)(?:if|unless|elif|guard|&&|\|\|)\W.*(?:isinstance\(|typeof |is_a\?|\.len\(\)\s*[<>]|len\([^)]*\)\s*[<>=]|\.length\s*[<>]|\.size\(\)\s*[<>]|\.size\s*[<>]|<\s*0\b|>\s*max|>\s*limit|valid|sanitiz|escape|match\w*\(|\.test\(|is_?numeric|isdigit|isdecimal|isalnum|Number\.is|\.is_empty\(\)|\bnil\?|blank\?|empty\?|strconv\.|parseInt|regexp|allowlist|whitelist|\bin\s+ALLOWED|\.contains\(|\.includes\()|\b(?:validate|sanitize|escape|clean|check_?bounds|verify_?input)\w*\s*\(|\bh\(|html_escape|CGI\.escape|htmlspecialchars|bleach\.clean|DOMPurify|escapeHtml",
            "input validation removed",
        ),
        r"(?i)^\s*(?:import|from|require|use|#|//)",
    ),
    r(
        "removed_rejection",
        INPUT,
        0.6,
        DEL,
        ANY,
        SRC,
        r#"(?i)raise\s+(?:ValueError|TypeError|ValidationError|BadRequest|\w*Invalid\w*)|throw\s+new\s+(?:IllegalArgument|IllegalState|Validation|BadRequest|Security|Invalid)\w*|throw\s+new\s+\w*Exception\(\s*"[^"]*(?:invalid|illegal|outside|unsafe|too\s+long|too\s+large|must|not allowed)|return\s+.*Err\(\s*\w*(?:::)?(?:Invalid|Truncated|TooLong|TooLarge|OutOfRange|Malformed|Bad|Overflow)|errors\.New\(\s*"(?:invalid|illegal|unsafe|bad)|fmt\.Errorf\(\s*"(?:invalid|illegal|unsafe|bad)|abort\(\s*400|status\(\s*400\)|HttpStatus\.BAD_REQUEST|:bad_request|:unprocessable_entity|status\s*=\s*400|http\.StatusBadRequest|raise\s+ArgumentError"#,
        "a rejection of bad input removed",
    ),
    r(
        "removed_redirect_check",
        INPUT,
        0.86,
        DEL,
        ANY,
        SRC,
        r#"url_has_allowed_host_and_scheme|is_safe_url|\burl_from\(|\.IsAbs\(\)|isAbsoluteUrl|is_local_url|isLocalUrl|(?:startsWith|startswith|start_with\?|HasPrefix)\(\s*(?:\w+\s*,\s*)?['"]//|(?:includes|contains|include\?|Contains)\(\s*(?:\w+\s*,\s*)?['"]://|(?i:(?:allow|valid|safe|trust)\w*redirect|redirect\w*(?:allow|valid|safe|whitelist|trusted))"#,
        "a check on a redirect target removed (open redirect, CWE-601)",
    ),
    r(
        "redirect_any_host",
        INPUT,
        0.86,
        ADD,
        ANY,
        SRC,
        r"allow_other_host:\s*true|redirect_to\s+params\[|redirect\(\s*request\.(?:GET|args|POST|params)\b",
        "a redirect to a request-supplied or foreign host",
    ),
    r(
        "removed_size_limit",
        INPUT,
        0.86,
        DEL,
        ANY,
        SRC_CFG,
        r#"MaxBytesReader|io\.LimitReader|MAX_CONTENT_LENGTH|max_content_length|DATA_UPLOAD_MAX\w*|client_max_body_size|max_?body_?size|maxBodyLength|maxContentLength|bodyLimit|setMaxFileSize|setMaxRequestSize|\blimit\s*:\s*['"]\d+\s*[kKmMgG]?[bB]['"]"#,
        "a request size limit removed (uncontrolled resource consumption, CWE-400)",
    ),
    r(
        "removed_xxe_guard",
        INPUT,
        0.9,
        DEL,
        ANY,
        SRC,
        r"disallow-doctype-decl|external-(?:general|parameter)-entities|load-external-dtd|FEATURE_SECURE_PROCESSING|ACCESS_EXTERNAL_(?:DTD|SCHEMA)|resolve_entities\s*=\s*False|no_network\s*=\s*True|defusedxml|setExpandEntityReferences\(\s*false|IS_SUPPORTING_EXTERNAL_ENTITIES|SUPPORT_DTD",
        "an XML external-entity guard removed (XXE, CWE-611)",
    ),
    r(
        "xxe_enabled",
        INPUT,
        0.9,
        ADD,
        ANY,
        SRC,
        r#"resolve_entities\s*=\s*True|no_network\s*=\s*False|\bnoent\s*:\s*true|LIBXML_NOENT|XML_PARSE_NOENT|setExpandEntityReferences\(\s*true|disallow-doctype-decl['"]?\s*,\s*false|external-general-entities['"]?\s*,\s*true|huge_tree\s*=\s*True"#,
        "XML external entities or DTDs enabled (XXE, CWE-611)",
    ),
    r(
        "removed_overflow_check",
        INPUT,
        0.86,
        DEL,
        ANY,
        SRC,
        r"\bchecked_(?:add|sub|mul|div|pow|shl|shr|neg)\(|Math\.(?:addExact|subtractExact|multiplyExact|toIntExact|incrementExact)\(|bits\.(?:Add|Mul|Sub)64\(",
        "checked arithmetic removed (integer overflow, CWE-190)",
    ),
    r(
        "unchecked_access",
        INPUT,
        0.86,
        ADD,
        RS,
        SRC,
        r"\bget_unchecked(?:_mut)?\(|\bunwrap_unchecked\(|from_utf8_unchecked|\.set_len\(|\bassume_init\(|\bfrom_raw_parts(?:_mut)?\(|\btransmute\b",
        "an unchecked access in unsafe code (out-of-bounds or invalid value, CWE-125)",
    ),
    r(
        "reflection_from_request",
        INPUT,
        0.88,
        ADD,
        ANY,
        SRC,
        r"(?:public_send|__send__|\bsend|constantize|safe_constantize|instance_variable_get|\bmethod)\(\s*params\[|\bgetattr\(\s*\w+\s*,\s*request\.|Class\.forName\(\s*request\.getParameter|\[\s*req\.(?:query|body|params)\.\w+\s*\]\s*\(",
        "a method or class chosen by request input (unsafe reflection, CWE-470)",
    ),
    // ── data_integrity ──────────────────────────────────────────────────────────────────
    r(
        "destructive_schema",
        DATA,
        0.9,
        ADD,
        ANY,
        SRC,
        r"(?i)\bdrop\s+(?:table|column|index|schema|database)\b|\btruncate\s+table\b|\bremove_column\b|\bdrop_table\b|\bremove_reference\b|\brename_column\b|migrations\.RemoveField|migrations\.DeleteModel|op\.drop_\w+\(|\.dropColumn\(|\.dropTable\(|\.dropIfExists\(",
        "a destructive schema change",
    ),
    unless(
        r(
            "unconditional_delete",
            DATA,
            0.85,
            ADD,
            ANY,
            SRC,
            r#"(?i)(?:delete\s+from\s+\w+|update\s+\w+\s+set\b[^"'`]*)\s*(?:["'`;]|$)|^\s*[A-Z]\w*(?:::\w+)*\.(?:delete_all|destroy_all|truncate)\b|\.objects\.all\(\)\.(?:delete|update)\(|\.deleteMany\(\s*\{\s*\}\s*\)|\.remove\(\s*\{\s*\}\s*\)|\.truncate\(\)"#,
            "a delete or update without a condition",
        ),
        r"(?i)\bwhere\b",
    ),
    r(
        "removed_transaction",
        DATA,
        0.88,
        DEL,
        ANY,
        SRC,
        r"transaction\.atomic|@transaction\.atomic|@Transactional|\.transaction\s*(?:do\b|\{|\()|\btransaction\s+do\b|\bBEGIN\b|\.Begin(?:Tx)?\(|\.Commit\(\)|\.Rollback\(\)|beginTransaction|\.commit\(\)|\.rollback\(\)|with_transaction|\$transaction|\.transaction\(|session\.begin\(|\bsavepoint\b",
        "a transaction boundary removed",
    ),
    r(
        "destructive_fs",
        DATA,
        0.5,
        ADD,
        ANY,
        SRC,
        r"rm\s+-rf|shutil\.rmtree|os\.RemoveAll|fs\.rm(?:Sync)?\([^)]*recursive|FileUtils\.rm_rf|remove_dir_all|O_TRUNC|\bos\.Truncate\(",
        "recursive or truncating file removal",
    ),
    r(
        "removed_constraint",
        DATA,
        0.55,
        DEL,
        ANY,
        SRC,
        r"(?i)\bunique\b|null:\s*false|not\s+null|\bforeign\s+key\b|ForeignKey\(|\breferences\b|add_index|@Column\(.*nullable\s*=\s*false|\bcheck\s*\(",
        "a data constraint removed",
    ),
    r(
        "removed_durability",
        DATA,
        0.5,
        DEL,
        ANY,
        SRC,
        r"\bsync_(?:data|all)\(|\bfsync\(|\.Sync\(\)|\.flush\(\)|os\.fsync",
        "a flush or fsync removed",
    ),
    r(
        "cascade",
        DATA,
        0.5,
        ADD,
        ANY,
        SRC,
        r"(?i)on\s+delete\s+cascade|dependent:\s*:(?:destroy|delete_all)|CascadeType\.(?:ALL|REMOVE)|on_delete\s*=\s*models\.CASCADE",
        "cascading deletes added",
    ),
    r(
        "removed_restrict",
        DATA,
        0.6,
        DEL,
        ANY,
        SRC,
        r#"on_delete\s*=\s*models\.(?:PROTECT|RESTRICT)|(?i:on\s+delete\s+(?:restrict|no\s+action))|dependent:\s*:restrict_with_\w+|ondelete\s*=\s*['"]RESTRICT"#,
        "a delete restriction on related rows removed",
    ),
    r(
        "skips_validation",
        DATA,
        0.86,
        ADD,
        RB | PY,
        SRC,
        r"\bupdate_columns?\(|\bupdate_attribute\(|\bsave!?\(\s*validate:\s*false|\bupdate_all\(|\bskip_callback\b|\bbulk_update\(",
        "a write that skips model validations and callbacks",
    ),
    r(
        "removed_optimistic_lock",
        DATA,
        0.88,
        DEL,
        ANY,
        SRC,
        r"@Version\b|\block_version\b|\bwith_lock\b|\.lock!|(?i:\bfor\s+update\b)|select_for_update\(|@Lock\(|LockModeType\.|version_id_col",
        "a row lock or optimistic-locking version removed (lost updates)",
    ),
    // ── error_handling ──────────────────────────────────────────────────────────────────
    r(
        "swallowed",
        ERRORS,
        0.88,
        ADD,
        ANY,
        SRC,
        r"except\s*(?:\w+(?:\s+as\s+\w+)?)?\s*:\s*(?:pass|\.\.\.|return\s*(?:None)?|continue)\s*$|catch\s*(?:\([^)]*\))?\s*\{\s*\}|\.catch\(\s*(?:\(\s*\w*\s*\)|\w+)\s*=>\s*(?:\{\s*\}|null|undefined|void 0)\s*\)|\.catch\(\s*function\s*\(\w*\)\s*\{\s*\}\s*\)|rescue\s+nil\b|rescue\s*(?:=>\s*\w+)?\s*;\s*end|\bon_error\s*=\s*['\x22]ignore|_\s*=\s*err\b",
        "an error swallowed",
    ),
    unless(
        r(
            "ignored_result_go",
            ERRORS,
            0.6,
            ADD,
            GO,
            SRC,
            r"^\s*(?:\w+\s*,\s*)+_\s*:?=\s*[\w.]+\(|^\s*_\s*=\s*[\w.]+\(",
            "an error result discarded with `_`",
        ),
        r"\brange\b",
    ),
    unless(
        r(
            "ignored_result_rs",
            ERRORS,
            0.55,
            ADD,
            RS,
            SRC,
            r"^\s*let\s+_\s*=\s*[^;]*\(|\.ok\(\)\s*;\s*$|\.unwrap_or_default\(\)|\.unwrap_or\(\s*(?:0|false|None|\(\)|String::new\(\))\s*\)",
            "an error result discarded",
        ),
        r"\.(?:lock|write|read|try_lock|borrow_mut)\(\)\s*(?:\.(?:unwrap|expect)\([^;]*\))?\s*;",
    ),
    unless(
        r(
            "unwrap",
            ERRORS,
            0.6,
            ADD,
            RS,
            SRC,
            r"\.unwrap\(\)|\.expect\(\s*\x22|\bpanic!\(|unreachable!\(",
            "a panic on fallible input (`unwrap`/`expect`)",
        ),
        r"Mutex|lock\(\)|\.write\(\)\.unwrap|\.read\(\)\.unwrap|static|const ",
    ),
    r(
        "bare_except",
        ERRORS,
        0.5,
        ADD,
        PY,
        SRC,
        r"^\s*except\s*:\s*$|^\s*except\s+(?:Base)?Exception\s*:\s*$",
        "a catch-all exception handler",
    ),
    r(
        "print_stack",
        ERRORS,
        0.4,
        ADD,
        JAVA,
        SRC,
        r"\.printStackTrace\(\)|catch\s*\(\s*(?:Exception|Throwable)\s+\w+\s*\)",
        "an error only printed or caught broadly",
    ),
    r(
        "catch_all_ruby",
        ERRORS,
        0.45,
        ADD,
        RB,
        SRC,
        r"rescue(?:\s+(?:Exception|StandardError)\b)?(?:\s*=>\s*\w+)?\s*$",
        "a broad rescue",
    ),
    r(
        "removed_err_check",
        ERRORS,
        0.55,
        DEL,
        ANY,
        SRC,
        r"^\s*if\s+(?:.*;\s*)?err\s*!=\s*nil|^\s*if\s*\(?\s*(?:err|error|e|ex)\s*\)?\s*(?:\{|return\b|throw\b|raise\b|next\(|cb\(|callback\()|^\s*if\s+let\s+Err\(|^\s*Err\(\w*\)\s*=>",
        "an error check removed",
    ),
    r(
        "removed_err_return",
        ERRORS,
        0.5,
        DEL,
        ANY,
        SRC,
        r"^\s*return\s+(?:[\w.&{}\[\]\x22]+,\s*)*(?:err|e|error|\w*Err\w*)\s*;?$|^\s*return\s+Err\(|^\s*return\s+(?:[\w.&{}\[\]\x22]+,\s*)*(?:fmt\.Errorf|errors\.(?:New|Wrap))|^\s*raise\b|^\s*throw\b|^\s*rescue\b|^\s*except\b|\.catch\(|^\s*(?:\}\s*)?catch\s*\(",
        "an error path removed",
    ),
    r(
        "removed_throws",
        ERRORS,
        0.45,
        DEL,
        JAVA,
        SRC,
        r"\)\s*throws\s+\w+",
        "a checked exception no longer declared",
    ),
    r(
        "removed_error_listener",
        ERRORS,
        0.86,
        DEL,
        JS,
        SRC,
        r#"\.(?:on|once)\(\s*['"]error['"]|addEventListener\(\s*['"]error['"]|process\.on\(\s*['"](?:unhandledRejection|uncaughtException)['"]"#,
        "an error listener removed (an unhandled 'error' event crashes the process)",
    ),
    r(
        "removed_status_check",
        ERRORS,
        0.6,
        DEL,
        ANY,
        SRC,
        r"raise_for_status\(\)|error_for_status\(|!\s*res(?:p|ponse)?\.ok\b|\.isSuccessful\(\)|StatusCode\s*!=\s*http\.Status\w+|status_code\s*!=\s*200|getResponseCode\(\)\s*!=",
        "an HTTP status check removed",
    ),
    // ── compatibility ───────────────────────────────────────────────────────────────────
    r(
        "removed_route",
        COMPAT,
        0.75,
        DEL,
        ANY,
        SRC,
        r#"(?i)(?:\.(?:get|post|put|patch|delete|route|handle|handlefunc|all)\(\s*['"`]/|@(?:app|bp|router|blueprint|api)\.(?:route|get|post|put|patch|delete)\(|@(?:Get|Post|Put|Patch|Delete|Request)Mapping\(|^\s*(?:get|post|put|patch|delete|match)\s+['"]/|^\s*resources?\s+:|path\(\s*['"]|re_path\(|\bHandle(?:Func)?\(\s*"/)"#,
        "a public route removed or renamed",
    ),
    r(
        "removed_wire_field",
        COMPAT,
        0.75,
        DEL,
        ANY,
        SRC_CFG,
        r#"`json:"|`xml:"|`yaml:"|`db:"|#\[serde\(|@JsonProperty|@SerializedName|@Column\(\s*name|json_name\s*=|^\s*(?:optional|required|repeated)?\s*[\w.]+\s+\w+\s*=\s*\d+\s*;"#,
        "a serialized field name changed",
    ),
    r(
        "removed_pub_field",
        COMPAT,
        0.6,
        DEL,
        RS,
        SRC,
        r"^\s*pub\s+\w+\s*:\s*\S",
        "a public field removed or renamed",
    ),
    r(
        "removed_non_exhaustive",
        COMPAT,
        0.6,
        DEL,
        RS,
        SRC,
        r"^\s*#\[non_exhaustive\]",
        "`#[non_exhaustive]` removed",
    ),
    r(
        "added_wire_rename",
        COMPAT,
        0.6,
        ADD,
        ANY,
        SRC,
        r"#\[serde\(rename_all|#\[serde\(rename\b|@JsonNaming|JsonNamingPolicy|@JsonProperty",
        "serialized names changed",
    ),
    r(
        "removed_env_var",
        COMPAT,
        0.6,
        DEL,
        ANY,
        SRC_CFG,
        r#"os\.Getenv\(|os\.LookupEnv\(|os\.environ(?:\.get\(|\[)|os\.getenv\(|process\.env\.\w|process\.env\[|ENV\[|ENV\.fetch\(|env::var(?:_os)?\(|System\.getenv\(|\$\{[A-Z_]+\}"#,
        "an environment variable renamed or removed",
    ),
    r(
        "removed_cli_flag",
        COMPAT,
        0.6,
        DEL,
        ANY,
        SRC,
        r#"flag\.(?:String|Bool|Int|Duration)\(\s*"|add_argument\(\s*['"]-|\.option\(\s*['"]-|#\[arg\(long|@Option\(|\.on\(\s*['"]--"#,
        "a command-line flag renamed or removed",
    ),
    r(
        "exported_removed",
        COMPAT,
        0.45,
        DEL,
        JS,
        SRC,
        r"^\s*export\s+(?:default\s+)?(?:async\s+)?(?:function|const|class|let|type|interface|enum)\s+\w+|module\.exports\s*=",
        "an export removed or renamed",
    ),
    // ── lifecycle ───────────────────────────────────────────────────────────────────────
    r(
        "removed_defer",
        LIFECYCLE,
        0.88,
        DEL,
        GO,
        SRC,
        r"^\s*defer\s+.*(?:Close|Unlock|RUnlock|cancel|Cancel|Done|Stop|Release|Rollback|Flush|Wait|Remove\w*|Shutdown)\(",
        "a deferred cleanup removed",
    ),
    r(
        "removed_finally",
        LIFECYCLE,
        0.85,
        DEL,
        ANY,
        SRC,
        r"^\s*(?:\}\s*)?finally\s*(?::|\{)|^\s*ensure\s*$",
        "a `finally`/`ensure` cleanup block removed",
    ),
    r(
        "removed_release",
        LIFECYCLE,
        0.7,
        DEL,
        ANY,
        SRC,
        r"\.(?:Unlock|RUnlock|unlock|release|Release|close|Close|shutdown|Shutdown|dispose|disconnect|unsubscribe|cancel|Stop|stop|join|Wait|destroy|free|off)\(\)|\.(?:close!?|unlock|release|shutdown|disconnect|join)\s*$|removeEventListener\(|clearInterval\(|clearTimeout\(|\.off\(\s*['\x22]|\bdrop\(\w+\)|wg\.Done\(\)|\bcancel\(\)",
        "a release, close, unlock or cancel removed",
    ),
    r(
        "removed_scoped_resource",
        LIFECYCLE,
        0.85,
        DEL,
        ANY,
        SRC,
        r"^\s*try\s*\(\s*\w[\w<>]*\s+\w+\s*=|^\s*with\s+.*(?:open|lock|Lock|connect|session|Session|pool|acquire)\w*\(?.*:\s*$|^\s*return\s*\(\)\s*=>\s*\{|^\s*return\s*\(\)\s*=>\s*\w+\.|impl\s+Drop\s+for|\b(?:File|IO|Dir|Tempfile|Zlib::GzipWriter|\w+)\.open\([^)]*\)\s*(?:do|\{)\s*\||\.synchronize\s*(?:do|\{)|\.tempdir\(\)\?\s*;|using\s*\(",
        "a scoped resource (try-with-resources, `with`, cleanup callback) removed",
    ),
    r(
        "removed_cancellation",
        LIFECYCLE,
        0.7,
        DEL,
        ANY,
        SRC,
        r"case\s*<-\s*(?:\w+\.)*(?:stop|done|quit|Done\(\)|ctx\.Done\(\)|closing|shutdown)|context\.With(?:Timeout|Cancel|Deadline)\(|AbortController|signal\s*:\s*\w|CancellationToken|\bselect!\s*\{",
        "a cancellation or timeout path removed",
    ),
    r(
        "leaked_resource",
        LIFECYCLE,
        0.6,
        ADD,
        ANY,
        SRC,
        r"\.into_path\(\)|mem::forget\(|Box::leak\(|\.keep\(\)|^\s*setInterval\(|^\s*std::thread::spawn\(|^\s*thread::spawn\(|^\s*go\s+func\(",
        "a resource or task with no owner to clean it up",
    ),
    r(
        "removed_timeout",
        LIFECYCLE,
        0.5,
        DEL,
        ANY,
        SRC_CFG,
        r"(?i)\btimeout\s*[:=(]|\.timeout\(|Timeout\s*:|set_?(?:read|write)?_?timeout|SetDeadline\(",
        "a timeout removed",
    ),
    r(
        "guard_dropped",
        LIFECYCLE,
        0.9,
        ADD,
        RS,
        SRC,
        r"^\s*let\s+_\s*=\s*[^;]*\.(?:lock|write|read|try_lock|try_write|try_read|borrow_mut)\(\)",
        "`let _ =` drops a lock guard at once, so nothing is held",
    ),
    // ── regression_tests ────────────────────────────────────────────────────────────────
    r(
        "test_skipped",
        TESTS,
        0.88,
        ADD,
        ANY,
        TEST,
        r#"\bt\.Skip(?:f|Now)?\(|@pytest\.mark\.(?:skip|xfail)|@unittest\.skip|pytest\.skip\(|\b(?:it|test|describe|context)\.(?:skip|only|todo)\(|^\s*x(?:it|describe|test|context|specify)\b|\bfit\(|\bfdescribe\(|#\[ignore\b|@Disabled\b|@Ignore\b|^\s*(?:skip|pending)\b|\bskip\s*\(\s*['"]|@skip\b|this\.skip\(\)|return\s*;?\s*//\s*skip"#,
        "a test skipped or focused",
    ),
    r(
        "removed_test_case",
        TESTS,
        0.75,
        DEL,
        ANY,
        TEST,
        r#"^\s*func\s+Test\w*\(|^\s*(?:async\s+)?def\s+test_?\w*\(|^\s*(?:it|test|specify|scenario)\s*\(?\s*['"`]|^\s*#\[(?:tokio::)?test\b|^\s*@Test\b|^\s*(?:describe|context)\s*\(?\s*['"`A-Z]"#,
        "a test case removed",
    ),
    r(
        "removed_assertion",
        TESTS,
        0.5,
        DEL,
        ANY,
        TEST,
        r"\bassert\w*[!(\s]|\bexpect\(|\bt\.(?:Fatal|Error|Fail)\w*\(|\bshould\b|\.to\s|\.to_not\s|\.not_to\s|assertThat\(|verify\(",
        "an assertion removed",
    ),
    r(
        "ci_tests_off",
        TESTS,
        0.8,
        ADD,
        ANY,
        SRC_CFG,
        r"continue-on-error:\s*true|--no-verify|-DskipTests|--skip-tests|SKIP_TESTS\s*[:=]\s*(?:1|true)|\bpytest\b.*\|\|\s*true|\btest\b.*\|\|\s*true",
        "tests disabled in CI",
    ),
];

#[cfg(test)]
mod tests {
    use super::*;
    use crate::pipeline::axes::AXIS_IDS;

    #[test]
    fn axis_indexes_match_the_contract() {
        assert_eq!(AXIS_IDS[BEHAVIOR], "behavior_regression");
        assert_eq!(AXIS_IDS[AUTH], "auth_boundary");
        assert_eq!(AXIS_IDS[INPUT], "input_validation");
        assert_eq!(AXIS_IDS[DATA], "data_integrity");
        assert_eq!(AXIS_IDS[ERRORS], "error_handling");
        assert_eq!(AXIS_IDS[COMPAT], "compatibility");
        assert_eq!(AXIS_IDS[LIFECYCLE], "lifecycle");
        assert_eq!(AXIS_IDS[TESTS], "regression_tests");
    }

    #[test]
    fn ids_are_unique_and_weights_are_probabilities() {
        let mut ids: Vec<_> = RULES.iter().map(|r| r.id).collect();
        ids.sort();
        ids.dedup();
        assert_eq!(ids.len(), RULES.len());
        assert!(RULES.iter().all(|r| r.weight > 0.0 && r.weight < 1.0));
    }
}
