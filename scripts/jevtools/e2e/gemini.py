"""End-to-end proof in the real Gemini CLI: register jev-preflight's hooks with
`jev-preflight install --gemini` in a throwaway repository (a trusted folder) and HOME, and
drive headless `gemini -p` turns against a loopback mock of the Gemini API
(GOOGLE_GEMINI_BASE_URL, a dummy GEMINI_API_KEY) that plays a scripted model editing files
through Gemini's `read_file` / `write_file` tools. Checks what the model received, what the
TypeSafe Jev mock received, what Gemini reported about each hook, the data dir, and the
repository's `.git`.

    scripts/e2e-gemini [--binary <jev-preflight>] [--only a,b,c,d] [--keep]

Needs Python 3, Node/npm, git, cargo (unless --binary). The pinned CLI is installed with npm
into $JEV_E2E_CACHE (default ~/.cache/jev-preflight-e2e) and reused. Nothing leaves 127.0.0.1
except that one npm install. Prints one PASS/FAIL line per check and `N passed, N failed`;
exits 1 if anything failed.
"""

import json
import subprocess
import sys
import time

from jevtools.e2e.harness import (install_hooks, report, scenario_dirs, Server, base_env, check_jev, files_under, hook_files, inventory,
                                  inventory_diff, log, make_repo, npm_client, run, suite_main)
from jevtools.e2e.turns import (GREETING, OPENING, PROMPT_CANARY, SCENARIOS, TYPESAFE_KEY, api,
                                check_model_requests)

GEMINI_VERSION = "0.61.0"
MOCK = "jevtools.e2e.mock_gemini"
MODEL_KEY = "e2e-dummy-gemini-key"
RUN_TIMEOUT = 240


def risky_script(repo, edits_again):
    """Removes one admin check. When `edits_again`, the model answers the feedback by calling
    a tool that removes the other check too: Gemini then re-fires AfterAgent without
    `stop_hook_active`, and that second risky change must not earn a second continuation."""
    path = str(repo / "src" / "api.py")
    script = {
        "steps": [
            {"name": "read_file", "args": {"file_path": path}},
            {"name": "write_file", "args": {"file_path": path, "content": api(False, True)}},
        ],
        "final": "I simplified delete_user.",
        "continuation": "I looked again: both checks were removed on purpose in this exercise.",
    }
    if edits_again:
        script["continuation_steps"] = [{"name": "write_file", "args": {"file_path": path, "content": api(False, False)}}]
    return script


def harmless_script(repo):
    return {
        "steps": [{"name": "write_file", "args": {"file_path": str(repo / "src" / "greeting.py"), "content": GREETING}}],
        "final": "I added a greeting helper.",
    }


def gemini_home(home, repo):
    """User settings as after a first interactive run: API-key auth chosen, the project folder
    trusted, no update checks or usage statistics (nothing may leave the machine)."""
    d = home / ".gemini"
    d.mkdir(parents=True)
    (d / "settings.json").write_text(json.dumps({
        "security": {"auth": {"selectedType": "gemini-api-key"}},
        "general": {"enableAutoUpdate": False, "enableAutoUpdateNotification": False},
        "privacy": {"usageStatisticsEnabled": False},
    }, indent=2) + "\n")
    (d / "trustedFolders.json").write_text(json.dumps({str(repo): "TRUST_FOLDER"}, indent=2) + "\n")


def play(letter, spec, gemini, jev, root_tmp, results, keep):
    label = "(%s) %s" % (letter, spec["title"])
    t0 = time.time()
    work, home = scenario_dirs(letter, root_tmp)
    files = {"src/api.py": api(True, True), "README.md": "# service\n"}
    if spec.get("off"):
        files[".jev-preflight.json"] = '{"mode": "off"}\n'
    repo = make_repo(work, files)
    gemini_home(home, repo)
    env = base_env(home, work)
    problems = []
    install_hooks(jev, "gemini", repo, env, ".gemini/settings.json", problems, ("trusted folder", "mention folder trust"))
    before = inventory(repo / ".git")
    mock = Server(MOCK, work, "mock")
    try:
        script = risky_script(repo, spec.get("edits_again", False)) if spec["risky"] else harmless_script(repo)
        script_path = work / "model-script.json"
        script_path.write_text(json.dumps(script))
        prompt = "Please make the change described in the task. [mock-script:%s] (%s)" % (script_path, PROMPT_CANARY)
        turn_env = dict(env, GEMINI_API_KEY=MODEL_KEY, GOOGLE_GEMINI_BASE_URL="http://127.0.0.1:%d" % mock.port,
                        JEV_PREFLIGHT_JEV_URL="http://127.0.0.1:%d/v1/systemone" % mock.port)
        if spec["key"]:
            turn_env["TYPESAFE_API_KEY"] = TYPESAFE_KEY
        started = time.time()
        try:
            res = run([str(gemini), "--approval-mode", "auto_edit", "-p", prompt], cwd=repo, env=turn_env,
                      timeout=RUN_TIMEOUT, stdin=subprocess.DEVNULL)
        except subprocess.TimeoutExpired:
            res = None
        took = time.time() - started
    finally:
        mock.stop()
    after = inventory(repo / ".git")
    entries = mock.entries()
    model = [e for e in entries if e["classification"] not in ("side", "jev", "count_tokens", "get", "unknown")]
    kinds = [e["classification"] for e in model]
    jev_calls = [e for e in entries if e["classification"] == "jev"]
    feedback = sorted({t for e in model for c in e["body"].get("contents") or [] if c.get("role") == "user"
                       for p in c.get("parts") or [] for t in [p.get("text", "")] if OPENING in t})
    stderr = res.stderr if res else ""
    log("(%s) setup+turn %.1fs (gemini -p %.1fs); model requests %s; jev requests %d"
        % (letter, time.time() - t0, took, kinds, len(jev_calls)))

    data_dir = home / ".local" / "state" / "jev-preflight"
    if res is None:
        problems.append("gemini -p timed out after %ds" % RUN_TIMEOUT)
    elif res.returncode != 0:
        problems.append("gemini -p exited %d: %s" % (res.returncode, (res.stdout + res.stderr)[-1500:]))
    check_model_requests(spec, script, repo, kinds, feedback, problems)
    fires = spec["risky"] and not spec.get("off")
    if fires:
        if res is not None and script["continuation"] not in res.stdout:
            problems.append("the turn did not end with the model's answer to the feedback: %r" % res.stdout[-300:])
        if stderr.count("Agent execution blocked") != 1:
            problems.append("Gemini reported %d blocks, want 1" % stderr.count("Agent execution blocked"))
    elif "Agent execution blocked" in stderr:
        problems.append("unexpected feedback: %r" % stderr[-300:])
    # Every hook exited 0 with JSON on stdout: Gemini reports a failed hook by name, and shows
    # a hook's stderr as a "Hook system message" when its stdout is empty.
    for marker in ("failed (jev-preflight)", "Hook(s) [jev-preflight] failed", "Hook system message: jev-preflight"):
        if marker in stderr:
            problems.append("Gemini reported %r" % marker)
    check_jev(spec, fires, jev_calls, TYPESAFE_KEY, PROMPT_CANARY, problems)
    if spec.get("off"):
        written = hook_files(home / ".local" / "state" / "jev-preflight")
        if written:
            problems.append("mode off wrote to the data dir: %s" % [str(p) for p in written][:5])
    else:
        # SessionEnd ran: the session's part of the store is gone.
        left = list((data_dir / "sessions").glob("*"))
        if left:
            problems.append("SessionEnd did not remove the session's store: %s" % left)
    for path in files_under(data_dir):
        if path.is_file() and TYPESAFE_KEY.encode() in path.read_bytes():
            problems.append("the API key is stored in %s" % path)
    if problems and res is not None:
        problems.append("gemini stderr tail: %r" % stderr[-1200:])
    report(results, label, letter, problems, inventory_diff(before, after), work if keep else None)


def main():
    return suite_main(__doc__, "gemini", SCENARIOS,
                      lambda: npm_client("@google/gemini-cli", GEMINI_VERSION, "gemini", "gemini-cli-" + GEMINI_VERSION),
                      play)


if __name__ == "__main__":
    sys.exit(main())
