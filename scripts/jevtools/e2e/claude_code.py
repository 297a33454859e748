"""End-to-end proof in the real Claude Code CLI: install jev-preflight from a local marketplace
into a throwaway HOME, run `claude -p` against a loopback mock of the Anthropic Messages API
that plays a scripted model (tool use: Read, Edit, Write), and check what the model received,
what the TypeSafe Jev mock received, the plugin's data dir, and the repository's `.git`.
Scenario (f) installs the release zip through the repository's own marketplace entry (an
`archive` source pinned by sha256), served over HTTPS via a loopback CONNECT proxy.

    scripts/e2e-claude-code [--binary <jev-preflight>] [--only a,c] [--keep]

Needs Python 3, Node/npm, git, cargo (unless --binary). The pinned CLI is installed with npm
into $JEV_E2E_CACHE (default ~/.cache/jev-preflight-e2e) and reused. Nothing leaves 127.0.0.1
except that one npm install. Prints one PASS/FAIL line per check and `N passed, N failed`;
exits 1 if anything failed.
"""

import argparse
import hashlib
import json
import os
import platform
import shutil
import subprocess
import sys
import tempfile
import time
import zipfile
from pathlib import Path

from jevtools.e2e import harness
from jevtools.e2e.harness import (report, REPO, Results, Server, binary, cache_dir, files_under, inventory, inventory_diff,
                                  log, make_repo, run)
from jevtools.e2e.turns import API_AFTER, API_BEFORE, GREETING

CLAUDE_VERSION = "2.1.332"
MOCK = "jevtools.e2e.mock_anthropic"
ARCHIVE_SERVER = "jevtools.e2e.archive_server"
MARKETPLACE = "jev-preflight-e2e"
ARCHIVE_HOST = "plugins.jev-preflight.test"
TYPESAFE_KEY = "ts-e2e-KEY-0f4c9b7d2e"
PROMPT_CANARY = "prompt-canary-5d1e8a"
RUN_TIMEOUT = 180


def host_target():
    system = platform.system()
    machine = platform.machine().lower()
    os_name = {"Linux": "linux", "Darwin": "macos"}.get(system)
    if os_name is None and system.startswith(("MINGW", "MSYS", "CYGWIN", "Windows")):
        os_name = "windows"
    arch = {"x86_64": "x86_64", "amd64": "x86_64", "aarch64": "aarch64", "arm64": "aarch64"}.get(machine)
    if not os_name or not arch:
        sys.exit("e2e: unsupported host %s %s" % (system, machine))
    return os_name + "-" + arch, (".exe" if os_name == "windows" else "")


def ensure_claude(cache):
    prefix = cache / ("claude-code-" + CLAUDE_VERSION)
    claude = prefix / "node_modules" / ".bin" / "claude"
    probe = run([str(claude), "--version"]) if claude.exists() else None
    if probe is None or probe.returncode != 0 or CLAUDE_VERSION not in probe.stdout:
        log("installing @anthropic-ai/claude-code@%s into %s" % (CLAUDE_VERSION, prefix))
        prefix.mkdir(parents=True, exist_ok=True)
        npm = run(["npm", "install", "--no-audit", "--no-fund", "--prefix", str(prefix),
                   "@anthropic-ai/claude-code@" + CLAUDE_VERSION])
        if npm.returncode != 0:
            sys.exit("e2e: npm install failed:\n" + npm.stderr[-4000:])
        probe = run([str(claude), "--version"])
        if probe.returncode != 0 or CLAUDE_VERSION not in probe.stdout:
            sys.exit("e2e: installed claude does not report %s: %s %s" % (CLAUDE_VERSION, probe.stdout, probe.stderr))
    return claude


def extract_with_modes(archive, dest):
    with zipfile.ZipFile(archive) as z:
        for info in z.infolist():
            path = dest / info.filename
            mode = (info.external_attr >> 16) & 0o777
            if info.is_dir():
                path.mkdir(parents=True, exist_ok=True)
                continue
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_bytes(z.read(info))
            os.chmod(path, mode or 0o644)


def assemble_plugin(jev, work):
    """Release archive (partial: this host's target) -> a local directory marketplace."""
    target, exe = host_target()
    bins = work / "bins"
    (bins / target).mkdir(parents=True)
    shutil.copyfile(jev, bins / target / ("jev-preflight" + exe))
    out = work / "release-out"
    res = run([str(REPO / "scripts" / "release"), "--partial", "--bins", str(bins), str(out)], cwd=REPO)
    if res.returncode != 0:
        sys.exit("e2e: scripts/release failed:\n" + res.stderr[-4000:])
    archives = sorted(out.glob("jev-preflight-*-partial.zip"))
    if len(archives) != 1:
        sys.exit("e2e: expected one partial zip in %s" % out)
    mkt = work / "marketplace"
    plugin_dir = mkt / "plugins" / "jev-preflight"
    plugin_dir.mkdir(parents=True)
    extract_with_modes(archives[0], plugin_dir)
    (mkt / ".claude-plugin").mkdir()
    (mkt / ".claude-plugin" / "marketplace.json").write_text(json.dumps({
        "name": MARKETPLACE,
        "owner": {"name": "jev-preflight e2e"},
        "description": "Local marketplace for the jev-preflight end-to-end test",
        "plugins": [{"name": "jev-preflight", "description": "jev-preflight under test",
                     "source": "./plugins/jev-preflight"}],
    }, indent=2))
    return archives[0], mkt, plugin_dir


def base_env(home, tmp):
    """The harness's clean environment, without `SHELL` (Claude Code finds its own shell), and
    with Claude Code's updater and other non-essential traffic off."""
    env = harness.base_env(home, tmp)
    del env["SHELL"]
    env.update(DISABLE_AUTOUPDATER="1", CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC="1")
    return env


def validate(claude, target, tmp):
    home = Path(tempfile.mkdtemp(prefix="home-", dir=tmp))
    res = run([str(claude), "plugin", "validate", "--strict", str(target)], env=base_env(home, tmp))
    return res.returncode, (res.stdout + res.stderr)


def Mock(workdir):
    return Server(MOCK, workdir, "mock")


def message_texts(message):
    content = message.get("content")
    if isinstance(content, str):
        return [content]
    out = []
    for block in content or []:
        if block.get("type") == "text":
            out.append(block.get("text", ""))
    return out


def scenario_setup(name, claude, source, root_tmp, config):
    """A fresh HOME with the plugin installed from `source` (a marketplace), a work dir."""
    work = Path(tempfile.mkdtemp(prefix="scenario-%s-" % name, dir=root_tmp))
    home = work / "home"
    home.mkdir()
    env = base_env(home, work)
    install_env = dict(env, **source.get("install_env", {}))
    add = run([str(claude), "plugin", "marketplace", "add", str(source["dir"])], env=install_env, cwd=work)
    if add.returncode != 0:
        return None, "marketplace add failed: " + (add.stdout + add.stderr)[-2000:]
    cmd = [str(claude), "plugin", "install", "jev-preflight@" + source["name"]]
    for key, value in config.items():
        cmd += ["--config", "%s=%s" % (key, value)]
    inst = run(cmd, env=install_env, cwd=work)
    if inst.returncode != 0:
        return None, "plugin install failed: " + (inst.stdout + inst.stderr)[-2000:]
    data_dir = home / ".claude" / "plugins" / "data" / ("jev-preflight-" + source["name"])
    return {"work": work, "home": home, "env": env, "data_dir": data_dir}, None


def run_turn(claude, ctx, repo, script, mock, extra_env):
    script_path = ctx["work"] / "model-script.json"
    script_path.write_text(json.dumps(script))
    prompt = "Please make the change described in the task file. [mock-script:%s] (%s)" % (script_path, PROMPT_CANARY)
    env = dict(ctx["env"], ANTHROPIC_BASE_URL="http://127.0.0.1:%d" % mock.port,
               ANTHROPIC_API_KEY="sk-ant-e2e-dummy", **extra_env)
    debug = ctx["work"] / "claude-debug.txt"
    started = time.time()
    try:
        res = run([str(claude), "-p", prompt, "--output-format", "json", "--permission-mode", "acceptEdits",
                   "--allowedTools", "Read", "Edit", "Write", "--debug-file", str(debug)],
                  env=env, cwd=repo, timeout=RUN_TIMEOUT, stdin=subprocess.DEVNULL)
    except subprocess.TimeoutExpired:
        return None, time.time() - started
    return res, time.time() - started


def analyse(mock):
    entries = mock.entries()
    main = [e for e in entries if e["path"].endswith("/v1/messages") and e["classification"] != "side"]
    jev = [e for e in entries if e["classification"] == "jev"]
    feedback = []
    for e in main:
        msgs = e["body"].get("messages") or []
        last_assistant = max((i for i, m in enumerate(msgs) if m.get("role") == "assistant"), default=-1)
        # What the client added since the model last spoke: a user-role reminder carries the
        # hook's text ("Stop hook feedback" for a block, "additional context" otherwise).
        for m in msgs[last_assistant + 1:]:
            if m.get("role") != "user":
                continue
            text = "\n".join(message_texts(m))
            if "Stop hook feedback" in text or "Stop hook additional context" in text:
                feedback.append(text)
    errors = [e["classification"] for e in entries if e["classification"].startswith("error")]
    return {"main": [e["classification"] for e in main], "jev": jev, "feedback": feedback, "errors": errors,
            "entries": entries}


def hook_stderr(debug_file):
    """The hook's stderr lines as Claude Code's debug log recorded them (for failure reports)."""
    if not debug_file.exists():
        return "(no debug log)"
    lines = []
    for line in debug_file.read_text(errors="replace").splitlines():
        if "stderr:" in line and "jev-preflight" in line:
            lines.append(line.split("stderr:", 1)[1].strip().replace("\\n", " | ")[:300])
    return " || ".join(lines[-4:]) or "(none recorded)"


def risky_script(repo):
    api = str(repo / "src" / "api.py")
    return {
        "steps": [
            {"name": "Read", "input": {"file_path": api}},
            {"name": "Edit", "input": {"file_path": api, "old_string": API_BEFORE, "new_string": API_AFTER}},
        ],
        "final": "I simplified delete_user.",
        "continuation": "I re-read delete_user: the admin check was removed on purpose in this exercise.",
    }


def harmless_script(repo):
    return {
        "steps": [{"name": "Write", "input": {"file_path": str(repo / "src" / "greeting.py"), "content": GREETING}}],
        "final": "I added a greeting helper.",
    }


SCENARIOS = {
    "a": dict(title="risky edit, TypeSafe key in userConfig, Jev scorer (mock)", risky=True, key=True),
    "b": dict(title="harmless edit, TypeSafe key in userConfig", risky=False, key=True),
    "c": dict(title="risky edit, no key: built-in local scorer", risky=True, key=False),
    "d": dict(title="risky edit with .jev-preflight.json {\"mode\":\"off\"}", risky=True, key=True, off=True),
    "f": dict(title="installed from the pinned release zip (archive source over HTTPS), risky edit, no key",
              risky=True, key=False, archive=True),
}


def play(letter, spec, claude, sources, root_tmp, results, keep):
    label = "(%s) %s" % (letter, spec["title"])
    config = {"typesafe_api_key": TYPESAFE_KEY} if spec["key"] else {}
    t0 = time.time()
    source = sources["archive"] if spec.get("archive") else sources["directory"]
    ctx, err = scenario_setup(letter, claude, source, root_tmp, config)
    if ctx is None:
        results.check(label, False, err)
        results.check("(e) .git unchanged after (%s)" % letter, False, "scenario did not run")
        return
    files = {"src/api.py": API_BEFORE, "README.md": "# service\n"}
    if spec.get("off"):
        files[".jev-preflight.json"] = '{"mode": "off"}\n'
    repo = make_repo(ctx["work"], files)
    before = inventory(repo / ".git")
    mock = Mock(ctx["work"])
    try:
        extra = {"JEV_PREFLIGHT_JEV_URL": "http://127.0.0.1:%d/v1/systemone" % mock.port}
        script = risky_script(repo) if spec["risky"] else harmless_script(repo)
        res, took = run_turn(claude, ctx, repo, script, mock, extra)
    finally:
        mock.stop()
    after = inventory(repo / ".git")
    seen = analyse(mock)
    log("(%s) setup+turn %.1fs (claude -p %.1fs); model requests %s; jev requests %d"
        % (letter, time.time() - t0, took, seen["main"], len(seen["jev"])))
    data_dir = ctx["data_dir"]

    problems = []
    if spec.get("archive"):
        # The hooks' command, `${CLAUDE_PLUGIN_ROOT}/bin/jev-preflight`: the launcher here (the
        # archive's `bin/jev-preflight.exe` is what Windows resolves the same name to).
        installed = list((ctx["home"] / ".claude" / "plugins" / "cache").glob("*/jev-preflight/*/bin/jev-preflight"))
        if len(installed) != 1 or not os.access(installed[0], os.X_OK):
            problems.append("the archive did not install an executable bin/jev-preflight: %s" % installed)
    if res is None:
        problems.append("claude -p timed out after %ds" % RUN_TIMEOUT)
    else:
        if res.returncode != 0:
            problems.append("claude -p exited %d: %s" % (res.returncode, (res.stdout + res.stderr)[-1500:]))
        try:
            result = json.loads(res.stdout)
        except ValueError:
            result = {}
            problems.append("claude -p printed no JSON result: %r" % res.stdout[-500:])
    if seen["errors"]:
        problems.append("mock errors: %s" % seen["errors"])
    edited = (repo / "src" / "api.py").read_text() == API_AFTER if spec["risky"] else \
        (repo / "src" / "greeting.py").exists()
    if not edited:
        problems.append("the scripted edit did not reach the working tree")
    steps = len(script["steps"])
    expected_turn = ["tool"] * steps + ["final"]
    fires = spec["risky"] and not spec.get("off")
    if fires:
        if seen["main"] != expected_turn + ["continuation"]:
            problems.append("model requests %s, want %s" % (seen["main"], expected_turn + ["continuation"]))
        if len(seen["feedback"]) != 1:
            problems.append("feedback reached the model %d times, want 1" % len(seen["feedback"]))
        elif "src/api.py" not in seen["feedback"][0]:
            problems.append("the feedback does not name src/api.py: %r" % seen["feedback"][0][:600])
        if res is not None and script["continuation"] not in str(result.get("result", "")):
            problems.append("the turn did not end with the model's answer to the feedback: %r" % result.get("result"))
    else:
        if seen["main"] != expected_turn:
            problems.append("model requests %s, want %s" % (seen["main"], expected_turn))
        if seen["feedback"]:
            problems.append("unexpected feedback: %r" % seen["feedback"][0][:600])
    if spec["key"] and not spec.get("off") and spec["risky"]:
        if len(seen["jev"]) != 1:
            problems.append("%d requests reached the Jev mock, want 1" % len(seen["jev"]))
        else:
            jev = seen["jev"][0]
            state = (jev["body"] or {}).get("state") or {}
            if jev["headers"].get("authorization") != "Bearer " + TYPESAFE_KEY:
                problems.append("the Jev request does not carry the userConfig key as a bearer token")
            if state.get("files") != ["src/api.py"] or "is_admin" not in (state.get("diff") or ""):
                problems.append("the Jev request's state is not the turn's diff: %r" % json.dumps(state)[:600])
    if spec["key"] and not spec["risky"] and len(seen["jev"]) > 1:
        problems.append("%d requests reached the Jev mock, want at most 1" % len(seen["jev"]))
    if not spec["key"] or spec.get("off"):
        if seen["jev"]:
            problems.append("%d requests left for the Jev mock, want none" % len(seen["jev"]))
    for e in seen["jev"]:
        if PROMPT_CANARY in json.dumps(e["body"]):
            problems.append("the prompt text reached the scorer")
    if spec.get("off"):
        leftovers = files_under(data_dir)
        if leftovers:
            problems.append("mode off left files in the data dir: %s" % [str(p) for p in leftovers[:5]])
    for path in files_under(data_dir):
        if path.is_file() and TYPESAFE_KEY.encode() in path.read_bytes():
            problems.append("the API key is stored in %s" % path)
    if problems:
        problems.append("hook stderr: %s" % hook_stderr(ctx["work"] / "claude-debug.txt"))
    report(results, label, letter, problems, inventory_diff(before, after), ctx["work"] if keep else None)


def archive_source(archive, work):
    """The repository's own marketplace.json, its archive source pointed at `archive` served over
    HTTPS behind a CONNECT proxy. Returns (source, wrong-pin source, server)."""
    www = work / "www"
    www.mkdir()
    shutil.copyfile(archive, www / archive.name)
    cert, key = work / "tls-cert.pem", work / "tls-key.pem"
    made = run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2",
                "-keyout", str(key), "-out", str(cert), "-subj", "/CN=" + ARCHIVE_HOST,
                "-addext", "subjectAltName=DNS:" + ARCHIVE_HOST])
    if made.returncode != 0:
        raise RuntimeError("openssl could not make a test certificate: " + made.stderr[-500:])
    server = Server(ARCHIVE_SERVER, work, "archive", "--dir", str(www), "--cert", str(cert), "--key", str(key))
    install_env = {"HTTPS_PROXY": "http://127.0.0.1:%d" % server.ports["proxy"],
                   "https_proxy": "http://127.0.0.1:%d" % server.ports["proxy"],
                   "NO_PROXY": "127.0.0.1,localhost", "NODE_EXTRA_CA_CERTS": str(cert)}
    digest = hashlib.sha256(archive.read_bytes()).hexdigest()
    sources = []
    for name, pin in (("jev-preflight-e2e-archive", digest), ("jev-preflight-e2e-badpin", digest[::-1])):
        doc = json.loads((REPO / ".claude-plugin" / "marketplace.json").read_text())
        doc["name"] = name
        entry = next(p for p in doc["plugins"] if p["name"] == "jev-preflight")
        entry["source"]["url"] = "https://%s/%s" % (ARCHIVE_HOST, archive.name)
        entry["source"]["sha256"] = pin
        mkt = work / name
        (mkt / ".claude-plugin").mkdir(parents=True)
        (mkt / ".claude-plugin" / "marketplace.json").write_text(json.dumps(doc, indent=2))
        sources.append({"dir": mkt, "name": name, "install_env": install_env})
    return sources[0], sources[1], server


def wrong_pin_is_refused(claude, source, root_tmp, results):
    label = "(f) a marketplace pin that does not match the archive is refused by the client"
    ctx, err = scenario_setup("f-badpin", claude, source, root_tmp, {})
    cached = list(root_tmp.glob("scenario-f-badpin-*/home/.claude/plugins/cache/*/jev-preflight/*/scripts"))
    results.check(label, ctx is None and "integrity check failed" in (err or "") and not cached,
                  err or "the install succeeded")


def main():
    parser = argparse.ArgumentParser(prog="scripts/e2e-claude-code", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--binary", help="use this jev-preflight binary instead of a release build")
    parser.add_argument("--only", help="comma-separated scenario letters (a,b,c,d,f)")
    parser.add_argument("--keep", action="store_true", help="keep the temp dirs for inspection")
    args = parser.parse_args()
    started = time.time()
    claude = ensure_claude(cache_dir())
    log("claude %s at %s (%.1fs)" % (CLAUDE_VERSION, claude, time.time() - started))
    jev = binary(args.binary)

    root_tmp = Path(tempfile.mkdtemp(prefix="jev-e2e-"))
    results = Results()
    servers = []
    try:
        archive, mkt, plugin_dir = assemble_plugin(jev, root_tmp)
        log("archive %s (%d bytes)" % (archive.name, archive.stat().st_size))
        for label, target in (("repository root", REPO), ("unpacked archive", plugin_dir),
                              ("e2e marketplace", mkt)):
            code, output = validate(claude, target, root_tmp)
            results.check("claude plugin validate --strict on the %s" % label,
                          code == 0 and "Validation passed" in output, output[-1500:])
        sources = {"directory": {"dir": mkt, "name": MARKETPLACE}}
        letters = args.only.split(",") if args.only else list(SCENARIOS)
        if "f" in letters:
            try:
                sources["archive"], bad_pin, server = archive_source(archive, root_tmp)
                servers.append(server)
                wrong_pin_is_refused(claude, bad_pin, root_tmp, results)
            except RuntimeError as err:
                results.check("(f) archive source", False, str(err))
                letters.remove("f")
        for letter in letters:
            play(letter, SCENARIOS[letter], claude, sources, root_tmp, results, args.keep)
    finally:
        for server in servers:
            server.stop()
        if args.keep:
            log("kept %s" % root_tmp)
        else:
            shutil.rmtree(root_tmp, ignore_errors=True)
    print("%d passed, %d failed (%.0fs)" % (results.passed, results.failed, time.time() - started))
    return 1 if results.failed else 0


if __name__ == "__main__":
    sys.exit(main())
