"""End-to-end proof in the real GitHub Copilot CLI: register jev-preflight's hooks with
`jev-preflight install --copilot` (`.github/hooks/jev-preflight.json`) in a throwaway
repository and HOME, and drive headless `copilot -p` turns in its documented offline mode
(COPILOT_OFFLINE=true: no GitHub sign-in, telemetry or update check) against a bring-your-own
OpenAI-compatible provider on loopback (COPILOT_PROVIDER_BASE_URL; jevtools.e2e.mock_chat)
that plays a scripted model editing files through Copilot's `view` / `create` / `edit` tools.
Checks what the model received, what the TypeSafe Jev mock received, what Copilot logged about
each hook, the data dir, and the repository's `.git`.

    scripts/e2e-copilot [--binary <jev-preflight>] [--only a,b,c,d] [--keep]

Repository hooks run only in a trusted folder; COPILOT_ALLOW_ALL=true is Copilot's documented
way to trust the working directory (and allow every tool) for a headless run. HTTPS_PROXY and
HTTP_PROXY name the loopback mock, which logs and refuses any request to leave the machine.

Needs Python 3, Node/npm, git, cargo (unless --binary). The pinned CLI is installed with npm into
$JEV_E2E_CACHE (default ~/.cache/jev-preflight-e2e) and reused. Prints one PASS/FAIL line per
check and `N passed, N failed`; exits 1 if anything failed.
"""

import difflib
import json
import subprocess
import sys
import time

from jevtools.e2e.harness import (install_hooks, report, scenario_dirs, Server, base_env, files_under, inventory,
                                  inventory_diff, log, make_repo, npm_client, run, suite_main)
from jevtools.e2e.turns import (MODEL_KEY, SCENARIOS, TYPESAFE_KEY, check_data_dir, check_turn, fires,
                                model_script, prompt_for, repo_files)

COPILOT_VERSION = "1.0.102"
MOCK = "jevtools.e2e.mock_chat"
RUN_TIMEOUT = 240


def copilot_write(path, old, new):
    """Copilot's `create` for a new file; its `edit` (a unique `old_str` and its `new_str`) for
    a change: the removed lines with the line before them, which names the function."""
    if old is None:
        return {"name": "create", "args": {"path": path, "file_text": new}}
    a, b = old.splitlines(keepends=True), new.splitlines(keepends=True)
    [(tag, i1, i2, j1, j2)] = [op for op in difflib.SequenceMatcher(None, a, b).get_opcodes() if op[0] != "equal"]
    return {"name": "edit", "args": {"path": path, "old_str": "".join(a[i1 - 1:i2]),
                                     "new_str": "".join(a[i1 - 1:i1] + b[j1:j2])}}


def hook_lines(log_dir):
    """What Copilot logged of our hooks' stderr."""
    return [line.split("[hook stderr] ", 1)[1] for path in sorted(log_dir.glob("*.log"))
            for line in path.read_text(errors="replace").splitlines() if "[hook stderr] " in line]


def play(letter, spec, copilot, jev, root_tmp, results, keep):
    label = "(%s) %s" % (letter, spec["title"])
    t0 = time.time()
    work, home = scenario_dirs(letter, root_tmp)
    repo = make_repo(work, repo_files(spec))
    env = base_env(home, work)
    problems = []
    install_hooks(jev, "copilot", repo, env, ".github/hooks/jev-preflight.json", problems, ("trusted folder", "mention folder trust"))
    # The hooks file is untracked, like any install; nothing in .git may change from here on.
    before = inventory(repo / ".git")
    script = model_script(spec, repo, "view", copilot_write)
    script_path = work / "model-script.json"
    script_path.write_text(json.dumps(script))
    log_dir = work / "copilot-logs"
    mock = Server(MOCK, work, "mock")
    try:
        loopback = "http://127.0.0.1:%d" % mock.port
        turn_env = dict(env, COPILOT_OFFLINE="true", COPILOT_PROVIDER_BASE_URL=loopback + "/v1",
                        COPILOT_PROVIDER_API_KEY=MODEL_KEY, COPILOT_MODEL="mock-model", COPILOT_ALLOW_ALL="true",
                        COPILOT_AUTO_UPDATE="false", HTTPS_PROXY=loopback, HTTP_PROXY=loopback,
                        NO_PROXY="127.0.0.1,localhost", JEV_PREFLIGHT_JEV_URL=loopback + "/v1/systemone")
        if spec["key"]:
            turn_env["TYPESAFE_API_KEY"] = TYPESAFE_KEY
        started = time.time()
        try:
            res = run([str(copilot), "-p", prompt_for(script_path), "--allow-all-tools", "--no-auto-update",
                       "--log-dir", str(log_dir), "--log-level", "debug"],
                      cwd=repo, env=turn_env, timeout=RUN_TIMEOUT, stdin=subprocess.DEVNULL)
        except subprocess.TimeoutExpired:
            res = None
        took = time.time() - started
    finally:
        mock.stop()
    after = inventory(repo / ".git")
    if res is None:
        problems.append("copilot -p timed out after %ds" % RUN_TIMEOUT)
    elif res.returncode != 0:
        problems.append("copilot -p exited %d: %s" % (res.returncode, (res.stdout + res.stderr)[-1500:]))
    kinds = check_turn(spec, script, repo, mock.entries(), problems)
    log("(%s) setup+turn %.1fs (copilot -p %.1fs); model requests %s" % (letter, time.time() - t0, took, kinds))
    if fires(spec) and res is not None and script["continuation"] not in res.stdout:
        problems.append("the turn did not end with the model's answer to the feedback: %r" % res.stdout[-300:])
    hooks = hook_lines(log_dir)
    skipped = [line for line in hooks if "hook skipped" in line or "failed" in line]
    if skipped:
        problems.append("hook trouble in Copilot's log: %s" % skipped[:3])
    check_data_dir(spec, home, problems)
    if not spec.get("off"):
        for event in ("UserPromptSubmit:", "Stop:", "SessionEnd:"):
            if not any(line.startswith("jev-preflight: " + event) for line in hooks):
                problems.append("no %s hook in Copilot's log: %s" % (event[:-1], hooks[:6]))
        # Headless `copilot -p` fires sessionEnd: nothing of the session may be left.
        left = files_under(home / ".local" / "state" / "jev-preflight" / "sessions")
        if left:
            problems.append("the session's files outlived sessionEnd: %s" % left[:5])
    if problems and res is not None:
        problems.append("copilot output tail: %r" % (res.stdout + res.stderr)[-800:])
    report(results, label, letter, problems, inventory_diff(before, after), work if keep else None)


def main():
    return suite_main(__doc__, "copilot", SCENARIOS,
                      lambda: npm_client("@github/copilot", COPILOT_VERSION, "copilot", "copilot-" + COPILOT_VERSION), play)


if __name__ == "__main__":
    sys.exit(main())
