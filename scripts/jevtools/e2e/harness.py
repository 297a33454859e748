"""Shared parts of the real-client end-to-end suites (jevtools.e2e.*, run by scripts/e2e-*) and
the action test: check bookkeeping, the pinned client (and any library it needs) installed
from npm into a cache, the binary under test, throwaway repositories with a byte-level
inventory of `.git`, and the loopback helper servers (jevtools.loopback) started as
processes of their own. Standard library only.
"""

import argparse
import hashlib
import json
import os
import platform
import shutil
import stat
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import jevtools

REPO = Path(jevtools.REPO)


class Results:
    def __init__(self):
        self.passed = 0
        self.failed = 0

    def check(self, label, ok, detail=""):
        if ok:
            self.passed += 1
            print("PASS " + label, flush=True)
        else:
            self.failed += 1
            print("FAIL " + label + (": " + detail if detail else ""), flush=True)
        return ok


def log(msg):
    print("  .. " + msg, file=sys.stderr, flush=True)


def run(cmd, **kw):
    kw.setdefault("stdout", subprocess.PIPE)
    kw.setdefault("stderr", subprocess.PIPE)
    kw.setdefault("text", True)
    return subprocess.run(cmd, **kw)


def cache_dir():
    return Path(os.environ.get("JEV_E2E_CACHE") or Path.home() / ".cache" / "jev-preflight-e2e")


def npm_client(package, version, bin_name, prefix_name):
    """The pinned client `package@version` installed with npm into the cache (reused when it
    reports its version). Returns the path of its `bin_name` launcher."""
    prefix = cache_dir() / prefix_name
    launcher = prefix / "node_modules" / ".bin" / bin_name

    def probe():
        if not launcher.exists():
            return False
        # A throwaway HOME: a client may create its config dir even for `--version`.
        with tempfile.TemporaryDirectory(prefix="jev-e2e-probe-") as home:
            out = run([str(launcher), "--version"], env=dict(os.environ, HOME=home), stdin=subprocess.DEVNULL)
        return out.returncode == 0 and version in out.stdout

    if not probe():
        log("installing %s@%s into %s" % (package, version, prefix))
        prefix.mkdir(parents=True, exist_ok=True)
        npm = run(["npm", "install", "--no-audit", "--no-fund", "--prefix", str(prefix), "%s@%s" % (package, version)])
        if npm.returncode != 0:
            sys.exit("e2e: npm install failed:\n" + npm.stderr[-4000:])
        if not probe():
            sys.exit("e2e: the installed %s does not report %s" % (bin_name, version))
    return launcher


def npm_package(package, version, prefix_name):
    """The pinned library `package@version` installed with npm into the cache (reused when its
    manifest names that version). Returns the install prefix, which holds `package.json`,
    `package-lock.json` and `node_modules` as npm wrote them."""
    prefix = cache_dir() / prefix_name
    manifest = prefix / "node_modules" / package / "package.json"

    def present():
        try:
            return json.loads(manifest.read_text()).get("version") == version
        except (OSError, ValueError):
            return False

    if not present():
        log("installing %s@%s into %s" % (package, version, prefix))
        prefix.mkdir(parents=True, exist_ok=True)
        npm = run(["npm", "install", "--no-audit", "--no-fund", "--save-exact", "--prefix", str(prefix),
                   "%s@%s" % (package, version)])
        if npm.returncode != 0 or not present():
            sys.exit("e2e: npm install %s@%s failed:\n%s" % (package, version, npm.stderr[-4000:]))
    return prefix


def host_exe_suffix():
    return ".exe" if platform.system().startswith(("MINGW", "MSYS", "CYGWIN", "Windows")) else ""


def binary(explicit):
    """The jev-preflight binary under test: `explicit`, or a release build of this checkout."""
    if explicit:
        path = Path(explicit).resolve()
    else:
        target_dir = Path(os.environ.get("CARGO_TARGET_DIR") or REPO / "target")
        log("cargo build --release --locked --bin jev-preflight")
        out = run(["cargo", "build", "--release", "--locked", "--bin", "jev-preflight"], cwd=REPO,
                  stdout=None, stderr=None)
        if out.returncode != 0:
            sys.exit("e2e: cargo build failed")
        path = (target_dir / "release" / ("jev-preflight" + host_exe_suffix())).resolve()
    if not path.is_file():
        sys.exit("e2e: no binary at %s" % path)
    return path


def base_env(home, tmp):
    """A clean environment: nothing of the caller's leaks in but PATH."""
    return {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "HOME": str(home),
        "TMPDIR": str(tmp),
        "LANG": "C.UTF-8",
        "USER": os.environ.get("USER", "e2e"),
        "SHELL": "/bin/sh",
        "GIT_CONFIG_NOSYSTEM": "1",
    }


def git(repo, *args):
    env = dict(base_env(repo, repo.parent), GIT_CONFIG_GLOBAL="/dev/null",
               GIT_AUTHOR_NAME="E2E", GIT_AUTHOR_EMAIL="e2e@example.com", GIT_AUTHOR_DATE="2026-01-01T00:00:00Z",
               GIT_COMMITTER_NAME="E2E", GIT_COMMITTER_EMAIL="e2e@example.com",
               GIT_COMMITTER_DATE="2026-01-01T00:00:00Z")
    res = run(["git", *args], cwd=repo, env=env)
    if res.returncode != 0:
        sys.exit("e2e: git %s failed: %s" % (" ".join(args), res.stderr))
    return res.stdout


def make_repo(parent, files):
    repo = parent / "repo"
    repo.mkdir()
    git(repo, "init", "-q", "-b", "main")
    for rel, content in files.items():
        path = repo / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(content)
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "initial")
    settle(repo)
    return repo


def settle(repo):
    """Old mtimes and one index refresh, so that no later `git status` (ours or the client's)
    has a racily clean entry to rewrite: any change to .git after this is someone's write."""
    past = time.time() - 86400
    for path in repo.rglob("*"):
        if ".git" not in path.relative_to(repo).parts:
            os.utime(path, (past, past), follow_symlinks=False)
    git(repo, "update-index", "--refresh")
    time.sleep(1.1)
    git(repo, "status", "--porcelain")


def inventory(gitdir):
    """Every entry under .git: type, mode, size, mtime and content hash."""
    out = {}
    for dirpath, dirnames, filenames in os.walk(gitdir):
        for name in dirnames + filenames:
            path = Path(dirpath) / name
            st = os.lstat(path)
            entry = {"mode": st.st_mode, "mtime_ns": st.st_mtime_ns}
            if stat.S_ISREG(st.st_mode):
                entry["size"] = st.st_size
                entry["sha256"] = hashlib.sha256(path.read_bytes()).hexdigest()
            elif stat.S_ISLNK(st.st_mode):
                entry["link"] = os.readlink(path)
            out[str(path.relative_to(gitdir))] = entry
    st = os.lstat(gitdir)
    out["."] = {"mode": st.st_mode, "mtime_ns": st.st_mtime_ns}
    return out


def inventory_diff(before, after):
    return ["%s: %s -> %s" % (k, before.get(k), after.get(k))
            for k in sorted(set(before) | set(after)) if before.get(k) != after.get(k)]


def files_under(path):
    if not path.exists():
        return []
    return [p for p in path.rglob("*") if p.is_file() or p.is_symlink()]


def hook_files(data_dir):
    """What the hook wrote in the data dir: everything but `install`'s record of what it
    created (`install/`, written before the turn) and the store's marker file."""
    return [
        p
        for p in files_under(data_dir)
        if p.relative_to(data_dir).parts[0] not in ("install", ".jev-preflight-store")
    ]


class Server:
    """A helper server module of this package (`python3 -m <module>`, e.g.
    "jevtools.e2e.mock_chat") started with `--log` and `--port-file`; stopped by its own pid.
    `ports` is what it wrote to its port file; `port` that number when it is one."""

    def __init__(self, module, workdir, name, *args):
        self.log_path = workdir / (name + "-requests.jsonl")
        port_file = workdir / (name + "-port")
        env = dict(os.environ, PYTHONPATH=os.pathsep.join(
            p for p in (jevtools.SCRIPTS, os.environ.get("PYTHONPATH")) if p))
        self.proc = subprocess.Popen([sys.executable, "-m", module, "--log", str(self.log_path),
                                      "--port-file", str(port_file), *args], env=env)
        deadline = time.time() + 10
        while not port_file.exists():
            if time.time() > deadline or self.proc.poll() is not None:
                self.stop()
                sys.exit("e2e: %s did not start" % module)
            time.sleep(0.02)
        self.ports = json.loads(port_file.read_text())
        self.port = self.ports if isinstance(self.ports, int) else None

    def entries(self):
        if not self.log_path.exists():
            return []
        return [json.loads(line) for line in self.log_path.read_text().splitlines() if line.strip()]

    def stop(self):
        self.proc.terminate()
        try:
            self.proc.wait(5)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()


def report(results, label, letter, problems, changes, work=None):
    """A scenario's two results: its own checks (with the kept work dir, when there is one),
    and whether anything in the repository's `.git` changed (`changes`, from inventory_diff)."""
    results.check(label, not problems, "; ".join(problems) + ("  [work dir %s]" % work if work else ""))
    results.check("(e) .git unchanged after (%s)" % letter, not changes, "; ".join(changes[:8]))


def scenario_dirs(letter, root_tmp):
    """Scenario `letter`'s own work dir under `root_tmp`, and an empty HOME inside it."""
    work = Path(tempfile.mkdtemp(prefix="scenario-%s-" % letter, dir=root_tmp)).resolve()
    home = work / "home"
    home.mkdir()
    return work, home


def install_hooks(jev, host, repo, env, written, problems, hint=None):
    """`jev-preflight install --<host>` in `repo`: it must succeed and name `written` on stdout;
    with `hint` = (words, what), its stderr must hold `words` (it tells the user `what`)."""
    inst = run([str(jev), "install", "--" + host], cwd=repo, env=env)
    if inst.returncode != 0 or written not in inst.stdout:
        problems.append("install --%s failed: %s %s" % (host, inst.stdout, inst.stderr))
    if hint and hint[0] not in inst.stderr:
        problems.append("install --%s does not %s: %r" % (host, hint[1], inst.stderr))


def check_jev(spec, fires, jev_calls, key, canary, problems):
    """What the loopback Jev scorer must have received for `spec` (a scenario whose hook
    `fires` or not): one request carrying `key` and the turn's diff of `src/api.py` when a key
    is set and the turn is risky, none without a key or in mode off, never the prompt's
    `canary`. Appends to `problems`."""
    if spec["key"] and fires:
        if len(jev_calls) != 1:
            problems.append("%d requests reached the Jev mock, want 1" % len(jev_calls))
        else:
            state = (jev_calls[0]["body"] or {}).get("state") or {}
            if jev_calls[0]["headers"].get("authorization") != "Bearer " + key:
                problems.append("the Jev request does not carry the key as a bearer token")
            if state.get("files") != ["src/api.py"] or "is_admin" not in (state.get("diff") or ""):
                problems.append("the Jev request's state is not the turn's diff: %r" % json.dumps(state)[:600])
    if (not spec["key"] or spec.get("off")) and jev_calls:
        problems.append("%d requests left for the Jev mock, want none" % len(jev_calls))
    if spec["key"] and not spec["risky"] and len(jev_calls) > 1:
        problems.append("%d requests reached the Jev mock, want at most 1" % len(jev_calls))
    for e in jev_calls:
        if canary in json.dumps(e["body"]):
            problems.append("the prompt text reached the scorer")


def suite_main(doc, name, scenarios, client, play):
    """The command line every client suite shares (`--binary`, `--only`, `--keep`): `client()`
    installs the pinned client and returns what `play` needs of it; each chosen scenario runs as
    `play(letter, spec, client, jev, root_tmp, results, keep)` in a temp dir of its own. Prints
    `N passed, N failed`; returns the exit code."""
    parser = argparse.ArgumentParser(prog="scripts/e2e-" + name, description=doc,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--binary", help="use this jev-preflight binary instead of a release build")
    parser.add_argument("--only", help="comma-separated scenario letters (%s)" % ",".join(scenarios))
    parser.add_argument("--keep", action="store_true", help="keep the temp dirs for inspection")
    args = parser.parse_args()
    started = time.time()
    installed = client()
    log("%s ready (%.1fs)" % (name, time.time() - started))
    jev = binary(args.binary)
    root_tmp = Path(tempfile.mkdtemp(prefix="jev-e2e-%s-" % name)).resolve()
    results = Results()
    try:
        letters = args.only.split(",") if args.only else list(scenarios)
        for letter in letters:
            play(letter, scenarios[letter], installed, jev, root_tmp, results, args.keep)
    finally:
        if args.keep:
            log("kept %s" % root_tmp)
        else:
            shutil.rmtree(root_tmp, ignore_errors=True)
    print("%d passed, %d failed (%.0fs)" % (results.passed, results.failed, time.time() - started))
    return 1 if results.failed else 0
