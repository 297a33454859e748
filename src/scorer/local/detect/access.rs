//! Access control a change takes away: an authentication or authorization guard removed from
//! a handler (a decorator, annotation, attribute, filter or middleware), a check deleted with
//! the denial it answered with, a framework's authentication filter skipped.

use super::*;

/// Names of authentication and authorization guards as they are written on decorators,
/// annotations, attributes, filters and middleware (lower case, no spaces).
const GUARD_NAMES: &[&str] = &[
    "login_required",
    "loginrequired",
    "permission_required",
    "permissions_required",
    "user_passes_test",
    "staff_member_required",
    "superuser_required",
    "jwt_required",
    "token_required",
    "auth_required",
    "authrequired",
    "requires_auth",
    "requireauth",
    "require_auth",
    "admin_required",
    "adminrequired",
    "roles_required",
    "roles_accepted",
    "permission_classes",
    "authorize",
    "authenticate",
    "secured",
    "rolesallowed",
    "ensureloggedin",
    "requirelogin",
    "require_login",
    "require_user",
    "requireuser",
    "requireadmin",
    "require_admin",
    "isadmin",
    "checkauth",
    "check_auth",
    "verifytoken",
    "verify_token",
    "authmiddleware",
    "auth_middleware",
    "withauth",
    "requirerole",
    "require_role",
    "hasrole",
    "has_role",
    "checkpermission",
    "check_permission",
    "haspermission",
    "has_permission",
    "basicauth",
    "jwtauth",
];

/// Words that make a line about access the other way: it grants, skips or makes
/// authentication optional, so removing it does not open anything.
const GRANTS: &[&str] = &[
    "allow",
    "permit",
    "anonymous",
    "unauth",
    "noauth",
    "skip",
    "optional",
    "public",
];

/// Grants of anonymous access by name (lower case, no spaces).
const ANONYMOUS_GRANTS: &[&str] = &[
    "allowanonymous",
    "permitall",
    "anonymousallowed",
    "allowany",
    "allow_unauthenticated_access",
];

/// What a handler answers when access is refused (lower case, no spaces).
const DENIALS: &[&str] = &[
    "unauthorized",
    "unauthorised",
    "forbidden",
    "permissiondenied",
    "accessdenied",
    "notauthorized",
    "unauthenticated",
    "notauthenticated",
    "401",
    "403",
];

/// The guard name a line holds, if it holds one and grants nothing.
fn guard_name(squeezed: &str) -> Option<&'static str> {
    if any(squeezed, GRANTS) {
        return None;
    }
    GUARD_NAMES.iter().copied().find(|n| squeezed.contains(n))
}

/// Whether `text` holds `word`, a number standing alone (`401`, not `4010`), or any other
/// word anywhere.
fn holds_denial(text: &str, word: &str) -> bool {
    if !word.bytes().all(|b| b.is_ascii_digit()) {
        return text.contains(word);
    }
    let b = text.as_bytes();
    text.match_indices(word).any(|(at, _)| {
        let before = at.checked_sub(1).map(|i| b[i]);
        let after = b.get(at + word.len()).copied();
        !before.is_some_and(|c| c.is_ascii_alphanumeric() || c == b'.')
            && !after.is_some_and(|c| c.is_ascii_alphanumeric() || c == b'.')
    })
}

/// `text` up to its trailing comment (`//`, `/*`, or `#` where it starts one), string
/// literals kept: a denial named in a comment is not one.
fn uncommented(text: &str, dialect: Dialect) -> &str {
    let hash = matches!(
        dialect,
        Dialect::Python | Dialect::Ruby | Dialect::Shell | Dialect::Php | Dialect::Data
    );
    let b = text.as_bytes();
    let mut quote: Option<u8> = None;
    let mut i = 0;
    while i < b.len() {
        let c = b[i];
        match quote {
            Some(_) if c == b'\\' => i += 1,
            Some(q) if c == q => quote = None,
            Some(_) => {}
            None if c == b'"' || c == b'\'' || c == b'`' => quote = Some(c),
            None if c == b'#' && hash => return &text[..i],
            None if c == b'/' && matches!(b.get(i + 1), Some(b'/' | b'*')) => return &text[..i],
            None => {}
        }
        i += 1;
    }
    text
}

/// The first string literal of a lower-cased line, squeezed, when it reads as a route
/// (`'/users/:id'`).
fn route_literal(lower: &str) -> Option<String> {
    let start = lower.find(['"', '\'', '`'])?;
    let q = lower[start..].chars().next()?;
    let rest = &lower[start + 1..];
    let end = rest.find(q)?;
    let lit = &rest[..end];
    (lit.starts_with('/') && lit.len() > 1).then(|| without_spaces(lit))
}

/// A removed, really changed line of a hunk, read once for every rule over removed lines.
pub(super) struct RemovedLine<'a, 'b> {
    /// The hunk's lines, and the line's index among them.
    pub(super) lines: &'b [Line<'a>],
    pub(super) k: usize,
    /// The text trimmed; lower-cased; lower-cased without string contents or spaces.
    pub(super) raw: &'b str,
    pub(super) lower: &'b str,
    pub(super) squeezed: &'b str,
    /// Whether a changed added line of the hunk grants anonymous access ([`grants_added`]).
    pub(super) grants_added: bool,
}

/// Whether a changed added line of `hunk` grants anonymous access by name
/// ([`ANONYMOUS_GRANTS`]), read once per hunk.
pub(super) fn grants_added(hunk: &Hunk<'_>) -> bool {
    hunk.lines.iter().any(|a| {
        a.kind == LineKind::Added
            && a.changed
            && ANONYMOUS_GRANTS.iter().any(|g| contains_lowered(a.text, g))
    })
}

/// An access guard taken away on a removed line. `file_added` is the file's added text
/// ([`edited_text`]): a guard written again anywhere in the file was kept.
pub(super) fn access_removed(
    l: &RemovedLine<'_, '_>,
    dialect: Dialect,
    file_added: &str,
    push: &mut impl FnMut(Rule, u32, &str),
) {
    let kept = |needle: &str| file_added.contains(needle);
    let (lower, squeezed) = (l.lower, l.squeezed);
    let at = l.lines[l.k].new_line;
    // A guard replaced by a grant in the same hunk: `permission_classes = [IsAuthenticated]`
    // becomes `[AllowAny]`, `@RolesAllowed("admin")` becomes `@PermitAll`.
    if l.grants_added && guard_name(squeezed).is_some() {
        push(Rule::AuthCheckRemoved, at, l.raw);
        return;
    }
    // A decorator, annotation, attribute or filter naming a guard.
    let declarative = squeezed.starts_with('@')
        || squeezed.starts_with('[')
        || starts_any(
            squeezed,
            &["before_action", "before_filter", "before_request"],
        );
    if declarative && let Some(name) = guard_name(squeezed) {
        if !kept(name) {
            push(Rule::AuthCheckRemoved, at, l.raw);
        }
        return;
    }
    // Middleware taken off a route that stays, or off the whole app or router.
    let on_route =
        || squeezed.contains(',') && route_literal(lower).is_some_and(|route| kept(&route));
    if (squeezed.contains(".use(") || on_route())
        && let Some(name) = guard_name(squeezed)
        && !kept(name)
    {
        push(Rule::AuthCheckRemoved, at, l.raw);
        return;
    }
    // A check removed with the denial it answered with.
    if starts_any(squeezed, &["if(", "if!", "unless"]) || lower.starts_with("if ") {
        // What the check did: the rest of its line after the condition, and the removed
        // lines that follow it (a status tested in the condition is not an answer).
        let first = without_spaces(uncommented(lower, dialect));
        let answer_at = ["{", "):", "return", "raise", "throw", "abort", "then"]
            .iter()
            .filter_map(|m| first.find(m))
            .min()
            .unwrap_or(first.len());
        let block = std::iter::once(first[answer_at..].to_owned())
            .chain(
                l.lines[l.k + 1..]
                    .iter()
                    .take(4)
                    .take_while(|b| b.kind == LineKind::Removed)
                    .map(|b| without_spaces(uncommented(&b.text.to_ascii_lowercase(), dialect))),
            )
            .collect::<Vec<_>>()
            .join("\n");
        let denied = DENIALS
            .iter()
            .any(|d| holds_denial(&block, d) && !holds_denial(file_added, d));
        if denied {
            push(Rule::AuthCheckRemoved, at, l.raw);
        }
    }
}

/// A framework's authentication filter skipped for a controller (Rails
/// `skip_before_action :authenticate_user!`); CSRF's own filter is [`Rule::CsrfOff`]'s.
pub(super) fn auth_skipped(squeezed: &str) -> bool {
    starts_any(squeezed, &["skip_before_action", "skip_before_filter"])
        && !squeezed.contains("verify_authenticity_token")
        && any(
            squeezed,
            &[
                "authenticate",
                "authorize",
                "require_login",
                "require_user",
                "require_admin",
                "login_required",
                "check_permission",
            ],
        )
}

/// Anonymous access granted where a guard stands (`[AllowAnonymous]` on an action of an
/// `[Authorize]` controller, `@PermitAll`, Django REST framework's `AllowAny`, Rails'
/// `allow_unauthenticated_access`): another line of the hunk's new side names a guard, so
/// the grant opens something that was closed.
pub(super) fn anonymous_allowed(at: &NewLine<'_>) -> bool {
    let s = at.squeezed;
    let grants = s.starts_with("[allowanonymous")
        || s.starts_with("@permitall")
        || s.starts_with("@anonymousallowed")
        || s.starts_with("allow_unauthenticated_access")
        || (s.contains("permission_classes") && s.contains("allowany"));
    grants
        && at
            .lowered
            .iter()
            .enumerate()
            .any(|(k, l)| k != at.i && guard_name(&without_spaces(&l.code)).is_some())
}
