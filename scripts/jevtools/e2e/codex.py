"""End-to-end proof in the real Codex CLI: register jev-preflight's hooks with
`jev-preflight install --codex` in a throwaway repository and CODEX_HOME, review them the way
Codex's own `/hooks` screen does (through `codex app-server`), and drive `codex exec` turns
against a loopback mock of the OpenAI Responses API (what Codex speaks to a custom
`model_provider`) that plays a scripted model editing files through Codex's `exec_command`
tool. Checks what the model received, what the TypeSafe Jev mock received, every hook's
status as Codex reports it, the data dir, and the repository's `.git`.

    scripts/e2e-codex [--binary <jev-preflight>] [--only u,a,b,c,d] [--keep]

Needs Python 3, Node/npm, git, cargo (unless --binary). The pinned CLI is installed with npm
into $JEV_E2E_CACHE (default ~/.cache/jev-preflight-e2e) and reused. Nothing leaves 127.0.0.1
except that one npm install. Prints one PASS/FAIL line per check and `N passed, N failed`;
exits 1 if anything failed.
"""

import json
import re
import subprocess
import sys
import time

from jevtools.e2e.harness import (install_hooks, report, scenario_dirs, Server, base_env, check_jev, files_under, hook_files, inventory,
                                  inventory_diff, log, make_repo, npm_client, run, suite_main)
from jevtools.e2e.turns import API_AFTER, API_BEFORE, GREETING, OPENING

CODEX_VERSION = "0.171.0"
MOCK = "jevtools.e2e.mock_responses"
TYPESAFE_KEY = "ts-e2e-KEY-7c21e9a4d0"
MODEL_KEY = "sk-e2e-dummy-model-key"
PROMPT_CANARY = "prompt-canary-3f9b2c"
RUN_TIMEOUT = 180


def write_file_cmd(rel, content):
    """A shell command, as a model would send to `exec_command`, that writes `content`."""
    assert "JEV_EOF" not in content
    return "cat > %s <<'JEV_EOF'\n%sJEV_EOF" % (rel, content)


def risky_script():
    return {
        "steps": [
            {"name": "exec_command", "arguments": {"cmd": "cat src/api.py"}},
            {"name": "exec_command", "arguments": {"cmd": write_file_cmd("src/api.py", API_AFTER)}},
        ],
        "final": "I simplified delete_user.",
        "continuation": "I re-read delete_user: the admin check was removed on purpose in this exercise.",
    }


def harmless_script():
    return {
        "steps": [{"name": "exec_command", "arguments": {"cmd": write_file_cmd("src/greeting.py", GREETING)}}],
        "final": "I added a greeting helper.",
    }


SCENARIOS = {
    "u": dict(title="hooks installed but not reviewed: Codex runs none of them", risky=True, key=False,
              review=False),
    "a": dict(title="risky edit, TypeSafe key in the environment, Jev scorer (mock)", risky=True, key=True),
    "b": dict(title="harmless edit, TypeSafe key in the environment", risky=False, key=True),
    "c": dict(title="risky edit, no key: built-in local scorer", risky=True, key=False),
    "d": dict(title="risky edit with .jev-preflight.json {\"mode\":\"off\"}", risky=True, key=True, off=True),
}


class AppServer:
    """`codex app-server` over stdio (JSON-RPC, one message a line): the interface Codex's
    own TUI uses to list hooks and to record the user's review in config.toml."""

    def __init__(self, codex, env, cwd):
        self.proc = subprocess.Popen([str(codex), "app-server"], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=subprocess.DEVNULL, text=True, env=env, cwd=cwd)
        self.next_id = 0

    def request(self, method, params):
        self.next_id += 1
        self.proc.stdin.write(json.dumps({"id": self.next_id, "method": method, "params": params}) + "\n")
        self.proc.stdin.flush()
        deadline = time.time() + 60
        while time.time() < deadline:
            line = self.proc.stdout.readline()
            if not line:
                raise RuntimeError("codex app-server closed its output during %s" % method)
            msg = json.loads(line)
            if msg.get("id") == self.next_id and "method" not in msg:
                if "error" in msg:
                    raise RuntimeError("%s failed: %s" % (method, msg["error"]))
                return msg["result"]
        raise RuntimeError("codex app-server did not answer %s" % method)

    def notify(self, method):
        self.proc.stdin.write(json.dumps({"method": method}) + "\n")
        self.proc.stdin.flush()

    def close(self):
        try:
            self.proc.stdin.close()
        except OSError:
            pass
        try:
            self.proc.wait(10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()


def our_hooks(listing):
    return [h for entry in listing["data"] for h in entry["hooks"] if "jev-preflight" in (h.get("command") or "")]


def review_hooks(codex, env, repo):
    """What a user does once in Codex's TUI: trust the project, then approve our hooks under
    `/hooks`. Returns (trust statuses before approval, after approval)."""
    server = AppServer(codex, env, repo)
    try:
        server.request("initialize", {"clientInfo": {"name": "jev-preflight-e2e", "version": "1"}})
        server.notify("initialized")
        server.request("config/batchWrite", {"edits": [
            {"keyPath": "projects", "value": {str(repo): {"trust_level": "trusted"}}, "mergeStrategy": "upsert"}]})
        hooks = our_hooks(server.request("hooks/list", {"cwds": [str(repo)]}))
        before = sorted((h["eventName"], h["trustStatus"]) for h in hooks)
        state = {h["key"]: {"trusted_hash": h["currentHash"]} for h in hooks}
        server.request("config/batchWrite", {"edits": [
            {"keyPath": "hooks.state", "value": state, "mergeStrategy": "upsert"}]})
        after = sorted((h["eventName"], h["trustStatus"])
                       for h in our_hooks(server.request("hooks/list", {"cwds": [str(repo)]})))
        return before, after
    finally:
        server.close()


def codex_config(home, port):
    codex_home = home / ".codex"
    codex_home.mkdir(parents=True)
    (codex_home / "config.toml").write_text(
        'model = "gpt-5-codex"\n'
        'model_provider = "e2e"\n'
        "check_for_update_on_startup = false\n"
        "\n"
        "[model_providers.e2e]\n"
        'name = "loopback mock"\n'
        'base_url = "http://127.0.0.1:%d/v1"\n'
        'env_key = "E2E_MODEL_API_KEY"\n'
        'wire_api = "responses"\n' % port)
    return codex_home


HOOK_LINE = re.compile(r"^hook: (\w+) (\w+)\s*$", re.M)


def play(letter, spec, codex, jev, root_tmp, results, keep):
    label = "(%s) %s" % (letter, spec["title"])
    t0 = time.time()
    work, home = scenario_dirs(letter, root_tmp)
    files = {"src/api.py": API_BEFORE, "README.md": "# service\n"}
    if spec.get("off"):
        files[".jev-preflight.json"] = '{"mode": "off"}\n'
    repo = make_repo(work, files)
    mock = Server(MOCK, work, "mock")
    problems = []
    try:
        codex_home = codex_config(home, mock.port)
        env = dict(base_env(home, work), CODEX_HOME=str(codex_home))
        install_hooks(jev, "codex", repo, env, "hooks.json", problems, ("/hooks", "say how to review the hooks"))
        # The installed .codex/ is part of the baseline; what follows must leave .git alone.
        before = inventory(repo / ".git")
        if spec.get("review", True):
            try:
                pending, approved = review_hooks(codex, env, repo)
                want = ["sessionEnd", "stop", "userPromptSubmit"]
                if [e for e, _ in pending] != want or any(s != "untrusted" for _, s in pending):
                    problems.append("before review, Codex listed our hooks as %s" % pending)
                if approved != [(e, "trusted") for e in want]:
                    problems.append("after review, Codex listed our hooks as %s" % approved)
            except (RuntimeError, ValueError, KeyError) as err:
                problems.append("reviewing the hooks through codex app-server failed: %s" % err)
        script = risky_script() if spec["risky"] else harmless_script()
        script_path = work / "model-script.json"
        script_path.write_text(json.dumps(script))
        prompt = "Please make the change described in the task. [mock-script:%s] (%s)" % (script_path, PROMPT_CANARY)
        turn_env = dict(env, E2E_MODEL_API_KEY=MODEL_KEY,
                        JEV_PREFLIGHT_JEV_URL="http://127.0.0.1:%d/v1/systemone" % mock.port)
        if spec["key"]:
            turn_env["TYPESAFE_API_KEY"] = TYPESAFE_KEY
        started = time.time()
        try:
            res = run([str(codex), "exec", "--sandbox", "workspace-write", "--color", "never", prompt],
                      cwd=repo, env=turn_env, timeout=RUN_TIMEOUT, stdin=subprocess.DEVNULL)
        except subprocess.TimeoutExpired:
            res = None
        took = time.time() - started
    finally:
        mock.stop()
    after = inventory(repo / ".git")
    entries = mock.entries()
    model = [e for e in entries if e["path"].endswith("/responses")]
    kinds = [e["classification"] for e in model]
    jev_calls = [e for e in entries if e["classification"] == "jev"]
    feedback = []
    for e in model:
        for item in e["body"].get("input") or []:
            for part in item.get("content") or [] if isinstance(item.get("content"), list) else []:
                text = part.get("text", "") if isinstance(part, dict) else ""
                if OPENING in text:
                    feedback.append(text)
    # The same feedback is repeated in every later request's history: count distinct texts.
    feedback = sorted(set(feedback))
    hooks = HOOK_LINE.findall(res.stderr if res else "")
    log("(%s) setup+turn %.1fs (codex exec %.1fs); model requests %s; jev requests %d; hooks %s"
        % (letter, time.time() - t0, took, kinds, len(jev_calls), hooks))

    data_dir = home / ".local" / "state" / "jev-preflight"
    if res is None:
        problems.append("codex exec timed out after %ds" % RUN_TIMEOUT)
    elif res.returncode != 0:
        problems.append("codex exec exited %d: %s" % (res.returncode, (res.stdout + res.stderr)[-1500:]))
    errors = [k for k in kinds if k.startswith("error")]
    if errors:
        problems.append("mock errors: %s" % errors)
    edited = (repo / "src" / "api.py").read_text() == API_AFTER if spec["risky"] else \
        (repo / "src" / "greeting.py").exists()
    if not edited:
        problems.append("the scripted edit did not reach the working tree")
    steps = ["tool"] * len(script["steps"]) + ["final"]
    fires = spec["risky"] and not spec.get("off") and spec.get("review", True)
    if fires:
        if kinds != steps + ["continuation"]:
            problems.append("model requests %s, want %s" % (kinds, steps + ["continuation"]))
        if len(feedback) != 1:
            problems.append("distinct feedback texts reaching the model: %d, want 1" % len(feedback))
        elif "src/api.py" not in feedback[0] or "auth_boundary" not in feedback[0]:
            problems.append("the feedback does not name auth_boundary and src/api.py: %r" % feedback[0][:600])
        if res is not None and script["continuation"] not in res.stdout:
            problems.append("the turn did not end with the model's answer to the feedback: %r" % res.stdout[-300:])
    else:
        if kinds != steps:
            problems.append("model requests %s, want %s" % (kinds, steps))
        if feedback:
            problems.append("unexpected feedback: %r" % feedback[0][:600])
    # Every hook of ours ran and exited cleanly, as Codex reports it ("Failed" is a non-zero
    # exit or invalid output): the prompt and each Stop. Codex prints nothing for SessionEnd,
    # which runs as the process ends; its work shows in the store: the session's dir is gone.
    if spec.get("review", True):
        want = [("UserPromptSubmit", "Completed"), ("Stop", "Blocked" if fires else "Completed")]
        if fires:
            want.append(("Stop", "Completed"))
        if hooks != want:
            problems.append("hook runs as Codex reports them: %s, want %s" % (hooks, want))
        left = list((data_dir / "sessions").glob("*"))
        if left:
            problems.append("SessionEnd did not remove the session's store: %s" % left)
    elif hooks:
        problems.append("Codex ran hooks nobody reviewed: %s" % hooks)
    check_jev(spec, fires, jev_calls, TYPESAFE_KEY, PROMPT_CANARY, problems)
    if spec.get("off") or not spec.get("review", True):
        written = hook_files(data_dir)
        if written:
            problems.append("the hook wrote to the data dir: %s" % [str(p) for p in written][:5])
    for path in files_under(data_dir):
        if path.is_file() and TYPESAFE_KEY.encode() in path.read_bytes():
            problems.append("the API key is stored in %s" % path)
    if problems and res is not None:
        problems.append("codex stderr tail: %r" % res.stderr[-800:])
    report(results, label, letter, problems, inventory_diff(before, after), work if keep else None)


def main():
    return suite_main(__doc__, "codex", SCENARIOS,
                      lambda: npm_client("@openai/codex", CODEX_VERSION, "codex", "codex-" + CODEX_VERSION), play)


if __name__ == "__main__":
    sys.exit(main())
