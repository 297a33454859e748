"""End-to-end proof in the real Qwen Code: register jev-preflight's hooks with
`jev-preflight install --qwen` in a throwaway repository (a trusted folder) and HOME, and drive
headless `qwen -p` turns against a loopback OpenAI-compatible chat API (OPENAI_BASE_URL, a
dummy OPENAI_API_KEY; jevtools.e2e.mock_chat) that plays a scripted model editing files
through Qwen's `read_file` / `write_file` tools. Checks what the model received, what the
TypeSafe Jev mock received, what Qwen reported about each hook, the data dir, and the
repository's `.git`.

    scripts/e2e-qwen [--binary <jev-preflight>] [--only a,b,c,d] [--keep]

Needs Python 3, Node/npm, git, cargo (unless --binary). The pinned CLI is installed with npm
into $JEV_E2E_CACHE (default ~/.cache/jev-preflight-e2e) and reused. Nothing leaves 127.0.0.1
except that one npm install. Prints one PASS/FAIL line per check and `N passed, N failed`;
exits 1 if anything failed.
"""

import json
import subprocess
import sys
import time

from jevtools.e2e.harness import (install_hooks, report, scenario_dirs, Server, base_env, files_under, inventory,
                                  inventory_diff, log, make_repo, npm_client, run, suite_main)
from jevtools.e2e.turns import (MODEL_KEY, SCENARIOS, TYPESAFE_KEY, check_data_dir, check_turn, fires,
                                model_script, prompt_for, repo_files, whole_file)

QWEN_VERSION = "0.24.4"
MOCK = "jevtools.e2e.mock_chat"
RUN_TIMEOUT = 240


def qwen_home(home, repo):
    """User settings as after a first interactive run: OpenAI-compatible auth chosen, the
    project folder trusted, no update checks or usage statistics (nothing may leave the
    machine)."""
    d = home / ".qwen"
    d.mkdir(parents=True)
    (d / "settings.json").write_text(json.dumps({
        "security": {"auth": {"selectedType": "openai"}},
        "model": {"name": "mock-model"},
        "general": {"enableAutoUpdate": False},
        "privacy": {"usageStatisticsEnabled": False},
    }, indent=2) + "\n")
    (d / "trustedFolders.json").write_text(json.dumps({str(repo): "TRUST_FOLDER"}, indent=2) + "\n")


def play(letter, spec, qwen, jev, root_tmp, results, keep):
    label = "(%s) %s" % (letter, spec["title"])
    t0 = time.time()
    work, home = scenario_dirs(letter, root_tmp)
    repo = make_repo(work, repo_files(spec))
    qwen_home(home, repo)
    env = base_env(home, work)
    problems = []
    install_hooks(jev, "qwen", repo, env, ".qwen/settings.json", problems, ("trusted folder", "mention folder trust"))
    before = inventory(repo / ".git")
    mock = Server(MOCK, work, "mock")
    try:
        script = model_script(spec, repo, "read_file", whole_file("write_file"))
        script_path = work / "model-script.json"
        script_path.write_text(json.dumps(script))
        turn_env = dict(env, OPENAI_API_KEY=MODEL_KEY, OPENAI_BASE_URL="http://127.0.0.1:%d/v1" % mock.port,
                        OPENAI_MODEL="mock-model", QWEN_CODE_SUPPRESS_YOLO_WARNING="1",
                        JEV_PREFLIGHT_JEV_URL="http://127.0.0.1:%d/v1/systemone" % mock.port)
        if spec["key"]:
            turn_env["TYPESAFE_API_KEY"] = TYPESAFE_KEY
        started = time.time()
        try:
            res = run([str(qwen), "--approval-mode", "yolo", "-p", prompt_for(script_path)], cwd=repo,
                      env=turn_env, timeout=RUN_TIMEOUT, stdin=subprocess.DEVNULL)
        except subprocess.TimeoutExpired:
            res = None
        took = time.time() - started
    finally:
        mock.stop()
    after = inventory(repo / ".git")
    stderr = res.stderr if res else ""
    if res is None:
        problems.append("qwen -p timed out after %ds" % RUN_TIMEOUT)
    elif res.returncode != 0:
        problems.append("qwen -p exited %d: %s" % (res.returncode, (res.stdout + res.stderr)[-1500:]))
    kinds = check_turn(spec, script, repo, mock.entries(), problems)
    log("(%s) setup+turn %.1fs (qwen -p %.1fs); model requests %s" % (letter, time.time() - t0, took, kinds))
    if fires(spec) and res is not None and script["continuation"] not in res.stdout:
        problems.append("the turn did not end with the model's answer to the feedback: %r" % res.stdout[-300:])
    # Every hook exited 0: Qwen reports a failing command hook on stderr.
    for marker in ("Hook execution failed", "hook failed", "jev-preflight: hook skipped"):
        if marker in stderr:
            problems.append("Qwen reported %r" % marker)
    check_data_dir(spec, home, problems)
    if not spec.get("off"):
        # Headless `qwen -p` 0.24.4 fires no SessionEnd (only its interactive UI, ACP sessions
        # and `/clear` call `fireSessionEndEvent`), so the prompt's end is what cleans up: no
        # snapshot content may be left, only the finished prompt's content-free state.
        data_dir = home / ".local" / "state" / "jev-preflight"
        left = [p for p in files_under(data_dir / "sessions") if "snap" in p.parts]
        if left:
            problems.append("snapshot content left after the turn: %s" % left[:5])
        if not list((data_dir / "sessions").glob("*/prompts/*/state.json")):
            problems.append("no prompt state: the hooks did not run")
    if problems and res is not None:
        problems.append("qwen stderr tail: %r" % stderr[-1200:])
    report(results, label, letter, problems, inventory_diff(before, after), work if keep else None)


def main():
    return suite_main(__doc__, "qwen", SCENARIOS,
                      lambda: npm_client("@qwen-code/qwen-code", QWEN_VERSION, "qwen", "qwen-code-" + QWEN_VERSION), play)


if __name__ == "__main__":
    sys.exit(main())
