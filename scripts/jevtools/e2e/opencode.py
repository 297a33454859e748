"""End-to-end proof in the real OpenCode: write jev-preflight's plugin with
`jev-preflight install --opencode` into a throwaway repository's `.opencode/plugins`, start
`opencode serve` there with a throwaway HOME whose config names a loopback OpenAI-compatible
provider (jevtools.e2e.mock_chat, through OpenCode's bundled `@ai-sdk/openai-compatible`),
and play one prompt per scenario through OpenCode's own HTTP API: the scripted model edits files
with OpenCode's `read` / `write` tools; the plugin runs the binary on `chat.message` and
`session.idle` and, when the hook asks, sends the continuation with the session API. Deleting
the session afterwards fires the plugin's `session.deleted` (our SessionEnd). Checks what the
model received, what the TypeSafe Jev mock received, the data dir, and the repository's `.git`.

    scripts/e2e-opencode [--binary <jev-preflight>] [--only a,b,c,d] [--keep]

`opencode run` is not used: it exits at the session's first idle, before a plugin's prompt can
run; the server (what OpenCode's TUI itself talks to) stays up as an interactive session does.

Offline: OpenCode fetches its model catalogue at start (turned off with
OPENCODE_DISABLE_MODELS_FETCH) and installs `@opencode-ai/plugin` with npm into every config
folder that lacks it; the suite puts that package, installed once from npm into the cache, where
OpenCode looks, as OpenCode's own first start leaves it. HTTPS_PROXY and HTTP_PROXY name the
loopback mock, which logs and refuses any request to leave the machine; a scenario with one
fails.

Needs Python 3, Node/npm, git, cargo (unless --binary). The pinned CLI is installed with npm into
$JEV_E2E_CACHE (default ~/.cache/jev-preflight-e2e) and reused. Prints one PASS/FAIL line per
check and `N passed, N failed`; exits 1 if anything failed.
"""

import json
import os
import re
import shutil
import subprocess
import sys
import time
import urllib.error
import urllib.request

from jevtools.e2e.harness import (install_hooks, report, scenario_dirs, Server, base_env, files_under, inventory,
                                  inventory_diff, log, make_repo, npm_client, npm_package, suite_main)
from jevtools.e2e.turns import (MODEL_KEY, SCENARIOS, TYPESAFE_KEY, check_data_dir, check_turn, fires,
                                model_script, prompt_for, repo_files, whole_file)

OPENCODE_VERSION = "1.18.33"
PLUGIN_PACKAGE = "@opencode-ai/plugin"
MOCK = "jevtools.e2e.mock_chat"
TURN_TIMEOUT = 240
# How long nothing may change (model requests, decisions, session status) before a turn counts
# as over: the plugin's hook and its prompt run after the turn's own answer has returned.
QUIET = 8
SETTLE_TIMEOUT = 120


def opencode_config(home, port):
    """User config: a provider on the loopback mock, no sharing, no update checks."""
    d = home / ".config" / "opencode"
    d.mkdir(parents=True)
    (d / "opencode.json").write_text(json.dumps({
        "provider": {"mock": {
            "npm": "@ai-sdk/openai-compatible",
            "name": "Loopback mock",
            "options": {"baseURL": "http://127.0.0.1:%d/v1" % port, "apiKey": MODEL_KEY},
            "models": {"mock-model": {"name": "Mock model", "tool_call": True}},
        }},
        "model": "mock/mock-model",
        "small_model": "mock/mock-model",
        "autoupdate": False,
        "share": "disabled",
    }, indent=2) + "\n")
    return d


def plugin_dependency(folder, installed):
    """`folder` as OpenCode leaves a config folder after installing `@opencode-ai/plugin` into
    it (its own `package.json`, the lock, `node_modules`), from the copy npm put in the cache."""
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "package.json").write_text(json.dumps(
        {"dependencies": {PLUGIN_PACKAGE: OPENCODE_VERSION}}, indent=2) + "\n")
    shutil.copyfile(installed / "package-lock.json", folder / "package-lock.json")
    os.symlink(installed / "node_modules", folder / "node_modules")


class OpenCode:
    """`opencode serve` in `repo`, driven over its HTTP API; stopped by its own pid."""

    def __init__(self, program, repo, env, work):
        self.out_path = work / "opencode.out"
        self.err_path = work / "opencode.err"
        with open(self.out_path, "w") as out, open(self.err_path, "w") as err:
            self.proc = subprocess.Popen([str(program), "serve", "--port", "0", "--print-logs"], cwd=repo,
                                         env=env, stdout=out, stderr=err, stdin=subprocess.DEVNULL)
        deadline = time.time() + 60
        self.base = None
        while self.base is None:
            match = re.search(r"listening on (http://127\.0\.0\.1:\d+)", self.out_path.read_text())
            if match:
                self.base = match.group(1)
            elif time.time() > deadline or self.proc.poll() is not None:
                self.stop()
                raise RuntimeError("opencode serve did not start: %s" % self.err_path.read_text()[-1500:])
            else:
                time.sleep(0.2)

    def call(self, method, path, body=None, timeout=30):
        data = json.dumps(body).encode() if body is not None else None
        request = urllib.request.Request(self.base + path, data=data, method=method,
                                         headers={"content-type": "application/json"})
        with urllib.request.urlopen(request, timeout=timeout) as response:
            text = response.read()
        return json.loads(text) if text.strip() else None

    def busy(self, session):
        return session in (self.call("GET", "/session/status") or {})

    def stop(self):
        self.proc.terminate()
        try:
            self.proc.wait(10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()


def decisions(home):
    path = home / ".local" / "state" / "jev-preflight" / "decisions.jsonl"
    return path.read_text().splitlines() if path.exists() else []


def settle(oc, session, mock, home, want_continuation):
    """Waits until the session is idle and nothing has changed for QUIET seconds (and, when a
    continuation is expected, until it reached the model). Returns the seconds waited."""
    started = time.time()
    last, since = None, time.time()
    while time.time() - started < SETTLE_TIMEOUT:
        entries = mock.entries()
        seen = any(e["classification"] == "continuation" for e in entries)
        now = (len(entries), len(decisions(home)), oc.busy(session))
        if now != last:
            last, since = now, time.time()
        elif not now[2] and time.time() - since >= QUIET and (seen or not want_continuation):
            break
        time.sleep(0.5)
    return time.time() - started


def assistant_texts(messages):
    return [p.get("text") or "" for m in messages if m["info"]["role"] == "assistant"
            for p in m["parts"] if p.get("type") == "text"]


def play(letter, spec, client, jev, root_tmp, results, keep):
    opencode, installed = client
    label = "(%s) %s" % (letter, spec["title"])
    t0 = time.time()
    work, home = scenario_dirs(letter, root_tmp)
    repo = make_repo(work, repo_files(spec))
    env = base_env(home, work)
    problems = []
    install_hooks(jev, "opencode", repo, env, ".opencode/plugins/jev-preflight.js", problems)
    script = model_script(spec, repo, "read", whole_file("write"))
    script_path = work / "model-script.json"
    script_path.write_text(json.dumps(script))
    before = None
    mock = Server(MOCK, work, "mock")
    oc = None
    messages = []
    try:
        user_dir = opencode_config(home, mock.port)
        plugin_dependency(user_dir, installed)
        plugin_dependency(repo / ".opencode", installed)
        loopback = "http://127.0.0.1:%d" % mock.port
        serve_env = dict(env, OPENCODE_DISABLE_MODELS_FETCH="1", OPENCODE_DISABLE_AUTOUPDATE="1",
                         HTTPS_PROXY=loopback, HTTP_PROXY=loopback, https_proxy=loopback, http_proxy=loopback,
                         NO_PROXY="127.0.0.1,localhost", no_proxy="127.0.0.1,localhost",
                         JEV_PREFLIGHT_JEV_URL=loopback + "/v1/systemone")
        if spec["key"]:
            serve_env["TYPESAFE_API_KEY"] = TYPESAFE_KEY
        oc = OpenCode(opencode, repo, serve_env, work)
        session = oc.call("POST", "/session", {})["id"]
        # OpenCode caches its project id in `.git/opencode` when it opens the project, before
        # any prompt: the inventory starts after that, before our hook first runs.
        before = inventory(repo / ".git")
        started = time.time()
        oc.call("POST", "/session/%s/message" % session,
                {"parts": [{"type": "text", "text": prompt_for(script_path)}]}, timeout=TURN_TIMEOUT)
        waited = settle(oc, session, mock, home, fires(spec))
        took = time.time() - started
        messages = oc.call("GET", "/session/%s/message" % session)
        oc.call("DELETE", "/session/%s" % session)
        # `session.deleted` reaches the plugin as an event; its SessionEnd runs after the call.
        sessions = home / ".local" / "state" / "jev-preflight" / "sessions"
        deadline = time.time() + 20
        while time.time() < deadline and any(sessions.glob("*")):
            time.sleep(0.5)
        log("(%s) turn %.1fs, of which %.1fs waiting for the plugin to settle" % (letter, took, waited))
    except (OSError, RuntimeError, urllib.error.URLError, KeyError) as err:
        problems.append("driving opencode failed: %r" % err)
    finally:
        if oc is not None:
            oc.stop()
        mock.stop()
    after = inventory(repo / ".git")
    kinds = check_turn(spec, script, repo, mock.entries(), problems)
    log("(%s) setup+turn %.1fs; model requests %s" % (letter, time.time() - t0, kinds))
    texts = assistant_texts(messages)
    if fires(spec) and (not texts or texts[-1] != script["continuation"]):
        problems.append("the session did not end with the model's answer to the feedback: %r" % texts[-1:])
    check_data_dir(spec, home, problems)
    data_dir = home / ".local" / "state" / "jev-preflight"
    if not spec.get("off"):
        stops = [json.loads(line) for line in decisions(home) if '"Stop"' in line]
        if not stops or any(d.get("host") != "opencode" for d in stops):
            problems.append("no Stop decision of host opencode: the plugin did not run the hook: %s" % stops)
        if fires(spec) and [d.get("outcome") for d in stops].count("continued") != 1:
            problems.append("Stop outcomes %s, want exactly one `continued`" % [d.get("outcome") for d in stops])
        left = files_under(data_dir / "sessions")
        if left:
            problems.append("the session's files outlived session.deleted: %s" % left[:5])
    if problems and oc is not None:
        errors = [line for line in oc.err_path.read_text().splitlines() if "level=ERROR" in line]
        problems.append("opencode errors: %r" % errors[-5:])
    changes = inventory_diff(before, after) if before is not None else ["opencode never opened the project"]
    report(results, label, letter, problems, changes, work if keep else None)


def client():
    """The pinned CLI, and the install of the package OpenCode would fetch into config folders."""
    return (npm_client("opencode-ai", OPENCODE_VERSION, "opencode", "opencode-" + OPENCODE_VERSION),
            npm_package(PLUGIN_PACKAGE, OPENCODE_VERSION, "opencode-plugin-" + OPENCODE_VERSION))


def main():
    return suite_main(__doc__, "opencode", SCENARIOS, client, play)


if __name__ == "__main__":
    sys.exit(main())
