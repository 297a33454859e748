"""The turns the real-client suites play and what they check afterwards.

For the chat-completions suites (scripts/e2e-qwen, scripts/e2e-opencode, scripts/e2e-copilot),
and the model-request checks of the Gemini suite: the module whose admin checks a risky turn
removes, the scripted model for a risky and a harmless turn, the four scenarios, and the checks
that do not depend on the client (what reached the model, what reached the Jev mock, where the
key may not be, whether anything tried to leave the machine). For the Claude Code and Codex
suites: the edit they script (`API_BEFORE`, `API_AFTER`). Standard library only.
"""

from jevtools.e2e.harness import check_jev, files_under, hook_files
from jevtools.e2e.mock_chat import text_of

TYPESAFE_KEY = "ts-e2e-KEY-91b4e0c7a2"
MODEL_KEY = "e2e-dummy-openai-key"
PROMPT_CANARY = "prompt-canary-8e41d7"
# The opening words of jev-preflight's continuation text (src/hook/answer.rs).
OPENING = "jev-preflight scored the code change"

ADMIN_CHECK = '''    if not request.user.is_admin:
        raise PermissionDenied("only admins may do this")
'''
HEADER = '''from app.auth import require_auth
from app.errors import PermissionDenied
from app import db
'''
GREETING = '''def greeting(name):
    """Returns a friendly greeting."""
    return "Hello, " + name + "!"
'''

# The risky edit of the Claude Code and Codex suites: the admin check of one handler removed.
API_BEFORE = '''from app.auth import require_auth
from app.errors import PermissionDenied
from app import db


@require_auth
def delete_user(request, user_id):
    if not request.user.is_admin:
        raise PermissionDenied("only admins may delete users")
    db.users.delete(user_id)
    return {"deleted": user_id}
'''
API_AFTER = '''from app.auth import require_auth
from app.errors import PermissionDenied
from app import db


def delete_user(request, user_id):
    db.users.delete(user_id)
    return {"deleted": user_id}
'''

SCENARIOS = {
    "a": dict(title="risky edit, TypeSafe key in the environment, Jev scorer (mock); the model answers the "
                    "feedback with a second risky edit", risky=True, key=True, edits_again=True),
    "b": dict(title="harmless edit, TypeSafe key in the environment", risky=False, key=True),
    "c": dict(title="risky edit, no key: built-in local scorer", risky=True, key=False),
    "d": dict(title="risky edit with .jev-preflight.json {\"mode\":\"off\"}", risky=True, key=True, off=True),
}


def api(delete_checked, ban_checked):
    """The module with its two admin checks present or removed."""
    return (HEADER + "\n\n@require_auth\ndef delete_user(request, user_id):\n"
            + (ADMIN_CHECK if delete_checked else "") + "    db.users.delete(user_id)\n"
            + "\n\n@require_auth\ndef ban_user(request, user_id):\n"
            + (ADMIN_CHECK if ban_checked else "") + "    db.users.ban(user_id)\n")


def repo_files(spec):
    files = {"src/api.py": api(True, True), "README.md": "# service\n"}
    if spec.get("off"):
        files[".jev-preflight.json"] = '{"mode": "off"}\n'
    return files


def whole_file(tool):
    """A client's write tool that takes the whole new content."""
    return lambda path, old, new: {"name": tool, "args": {"path": path, "content": new}}


def model_script(spec, repo, read_tool, write):
    """The scripted model for `spec`, calling the client's own read tool and, through
    `write(path, old, new)` (`old` is None for a new file), the tool call that changes a file.

    A risky turn removes one admin check. With `edits_again` the model answers the feedback by
    calling a tool that removes the other check too: that second risky change must not earn a
    second continuation, whatever the client's loop signal says."""
    if not spec["risky"]:
        return {"steps": [write(str(repo / "src" / "greeting.py"), None, GREETING)],
                "final": "I added a greeting helper."}
    path = str(repo / "src" / "api.py")
    script = {
        "steps": [
            {"name": read_tool, "args": {"path": path}},
            write(path, api(True, True), api(False, True)),
        ],
        "final": "I simplified delete_user.",
        "continuation": "I looked again: both checks were removed on purpose in this exercise.",
    }
    if spec.get("edits_again"):
        script["continuation_steps"] = [write(path, api(False, True), api(False, False))]
    return script


def prompt_for(script_path):
    return "Please make the change described in the task. [mock-script:%s] (%s)" % (script_path, PROMPT_CANARY)


def fires(spec):
    return spec["risky"] and not spec.get("off")


def check_turn(spec, script, repo, entries, problems):
    """The client-independent checks on one played turn; appends to `problems`. `entries` is
    the mock's request log. Returns the model requests' classifications."""
    model = [e for e in entries if e["classification"] not in ("side", "jev", "get", "unknown", "outbound")]
    kinds = [e["classification"] for e in model]
    jev_calls = [e for e in entries if e["classification"] == "jev"]
    outbound = sorted({e["path"] for e in entries if e["classification"] == "outbound"})
    feedback = sorted({text_of(m) for e in model for m in e["body"].get("messages") or []
                       if m.get("role") == "user" and OPENING in text_of(m)})
    if outbound:
        problems.append("the client tried to leave the machine: %s" % outbound)
    check_model_requests(spec, script, repo, kinds, feedback, problems)
    check_jev(spec, fires(spec), jev_calls, TYPESAFE_KEY, PROMPT_CANARY, problems)
    return kinds


def check_model_requests(spec, script, repo, kinds, feedback, problems):
    """What the model was asked, in any client: `kinds` are the model requests'
    classifications, `feedback` the distinct continuation texts that reached it. The scripted
    edits reached the working tree; a turn that fires sends exactly one continuation that names
    the axis and the file, and a turn that does not sends none. Appends to `problems`."""
    errors = [k for k in kinds if k.startswith("error")]
    if errors:
        problems.append("mock errors: %s" % errors)
    if spec["risky"]:
        want_file = api(False, False) if spec.get("edits_again") else api(False, True)
        edited = (repo / "src" / "api.py").read_text() == want_file
    else:
        edited = (repo / "src" / "greeting.py").exists()
    if not edited:
        problems.append("the scripted edits did not reach the working tree")
    steps = ["tool"] * len(script["steps"]) + ["final"]
    if fires(spec):
        want = steps + ["cont-tool"] * len(script.get("continuation_steps", [])) + ["continuation"]
        if kinds != want:
            problems.append("model requests %s, want %s (exactly one continuation)" % (kinds, want))
        if len(feedback) != 1:
            problems.append("distinct feedback texts reaching the model: %d, want 1" % len(feedback))
        elif "src/api.py" not in feedback[0] or "auth_boundary" not in feedback[0]:
            problems.append("the feedback does not name auth_boundary and src/api.py: %r" % feedback[0][:600])
    else:
        if kinds != steps:
            problems.append("model requests %s, want %s" % (kinds, steps))
        if feedback:
            problems.append("unexpected feedback: %r" % feedback[:1])


def check_data_dir(spec, home, problems):
    """Mode off creates no data dir; the API key is never stored."""
    data_dir = home / ".local" / "state" / "jev-preflight"
    if spec.get("off") and hook_files(data_dir):
        problems.append("mode off wrote to the data dir: %s" % [str(p) for p in hook_files(data_dir)][:5])
    for path in files_under(data_dir):
        if path.is_file() and TYPESAFE_KEY.encode() in path.read_bytes():
            problems.append("the API key is stored in %s" % path)
