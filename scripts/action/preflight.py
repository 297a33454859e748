#!/usr/bin/env python3
"""The jev-preflight pull-request check (run by the composite action in action.yml).

1. Installs the released jev-preflight binary for the runner's platform: downloads the
   release's `jev-preflight-<version>.tar.gz` and `SHA256SUMS`, checks the archive against
   `SHA256SUMS`, extracts `bin/<os>-<arch>/jev-preflight[.exe]` and checks it against the
   archive's own `bin/SHA256SUMS`.
2. Runs `jev-preflight eval <base>...<head> --format markdown` (plus `--scorer`, `--fail-on`,
   `--sarif <path>` when asked) in the working directory.
3. Appends the Markdown report to the job summary ($GITHUB_STEP_SUMMARY) and, when asked,
   posts it as ONE pull-request comment: a later run finds its own comment by a hidden
   marker and edits it instead of adding another.
4. Sets the step outputs `report`, `sarif`, `exit-code`, and exits with eval's code (1 when an
   axis reached `fail-on`), after the summary and comment are written.

Inputs arrive as environment variables (`JP_*`), never spliced into a shell. Standard library
only; runs on the Linux, macOS and Windows runners' Python 3.

This file ships to users with the action: it stays self-contained (no import from this
repository's development tools, scripts/jevtools); see README.md beside it.
"""

import hashlib
import io
import json
import os
import platform
import stat
import subprocess
import sys
import tarfile
import tempfile
import urllib.error
import urllib.parse
import urllib.request
from pathlib import Path

MARKER = "<!-- jev-preflight pull-request check -->"
HERE = Path(__file__).resolve().parent
ACTION_ROOT = HERE.parent.parent
DEFAULT_REPOSITORY = "typesafe-ai/jev-preflight"
TIMEOUT = 60
MAX_DOWNLOAD = 256 * 1024 * 1024


class CheckError(Exception):
    """Something the user must fix; printed as an `::error::` line."""


def env(name, default=""):
    return os.environ.get(name, default).strip()


def notice(kind, text):
    # Workflow commands: `::error::` and `::warning::` lines become annotations.
    print("::%s::%s" % (kind, text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")), flush=True)


def target():
    """The release target for this runner, as the release archive names it."""
    os_name = {"Linux": "linux", "macOS": "macos", "Windows": "windows"}.get(env("RUNNER_OS"))
    if not os_name:
        system = platform.system()
        os_name = {"Linux": "linux", "Darwin": "macos", "Windows": "windows"}.get(system)
    arch = {"X64": "x86_64", "ARM64": "aarch64"}.get(env("RUNNER_ARCH"))
    if not arch:
        arch = {"x86_64": "x86_64", "amd64": "x86_64", "aarch64": "aarch64", "arm64": "aarch64"}.get(
            platform.machine().lower())
    if not os_name or not arch:
        raise CheckError("no jev-preflight release for this runner (%s %s)" % (platform.system(), platform.machine()))
    return os_name + "-" + arch, (".exe" if os_name == "windows" else "")


def action_version():
    """The version in the action's own Cargo.toml: the binary released with this action."""
    for line in (ACTION_ROOT / "Cargo.toml").read_text(encoding="utf-8").splitlines():
        if line.startswith("version"):
            return line.split("=", 1)[1].strip().strip('"')
    raise CheckError("cannot read the version from the action's Cargo.toml; set the `version` input")


def fetch(url):
    request = urllib.request.Request(url, headers={"User-Agent": "jev-preflight-action"})
    try:
        with urllib.request.urlopen(request, timeout=TIMEOUT) as reply:
            data = reply.read(MAX_DOWNLOAD + 1)
    except urllib.error.URLError as err:
        raise CheckError("could not download %s: %s" % (url, err)) from err
    if len(data) > MAX_DOWNLOAD:
        raise CheckError("%s is larger than %d bytes" % (url, MAX_DOWNLOAD))
    return data


def sums_entry(sums, name):
    for line in sums.decode("utf-8", "replace").splitlines():
        parts = line.split()
        if len(parts) == 2 and parts[1].lstrip("*") == name:
            return parts[0].lower()
    return None


def install(version, base_url, dest):
    """Downloads, verifies and unpacks the binary; returns its path."""
    tgt, exe = target()
    name = "jev-preflight-%s.tar.gz" % version
    release = "%s/v%s" % (base_url.rstrip("/"), version)
    sums = fetch(release + "/SHA256SUMS")
    want = sums_entry(sums, name)
    if not want:
        raise CheckError("the release's SHA256SUMS does not list %s" % name)
    archive = fetch(release + "/" + name)
    got = hashlib.sha256(archive).hexdigest()
    if got != want:
        raise CheckError("checksum mismatch for %s: SHA256SUMS says %s, the download is %s" % (name, want, got))
    member = "bin/%s/jev-preflight%s" % (tgt, exe)
    with tarfile.open(fileobj=io.BytesIO(archive), mode="r:gz") as tar:
        try:
            inner_sums = tar.extractfile("bin/SHA256SUMS").read()
            binary = tar.extractfile(member).read()
        except (KeyError, AttributeError) as err:
            raise CheckError("the release archive has no %s" % member) from err
    want = sums_entry(inner_sums, "%s/jev-preflight%s" % (tgt, exe))
    if want != hashlib.sha256(binary).hexdigest():
        raise CheckError("%s does not match the archive's bin/SHA256SUMS" % member)
    path = Path(dest) / ("jev-preflight" + exe)
    path.write_bytes(binary)
    path.chmod(path.stat().st_mode | stat.S_IXUSR | stat.S_IXGRP | stat.S_IXOTH)
    print("jev-preflight %s (%s), sha256 %s verified" % (version, tgt, hashlib.sha256(binary).hexdigest()), flush=True)
    return path


def event():
    path = env("GITHUB_EVENT_PATH")
    if not path or not Path(path).is_file():
        return {}
    with open(path, encoding="utf-8") as f:
        return json.load(f)


def git(cwd, *args):
    return subprocess.run(["git", *args], cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def ensure_history(cwd, base, head):
    """`base...head` needs both commits and their merge base; a shallow checkout has neither."""
    if git(cwd, "merge-base", base, head).returncode == 0:
        return
    shallow = git(cwd, "rev-parse", "--is-shallow-repository").stdout.strip() == "true"
    fetched = git(cwd, "fetch", "--no-tags", "--quiet", *(["--unshallow"] if shallow else []), "origin", base, head)
    if fetched.returncode != 0 or git(cwd, "merge-base", base, head).returncode != 0:
        raise CheckError("cannot find the merge base of %s and %s; check out with `fetch-depth: 0` (%s)"
                         % (base, head, fetched.stderr.strip()[-300:]))


class GitHub:
    """The few REST calls the comment needs."""

    def __init__(self, api, repository, token):
        self.api = api.rstrip("/")
        self.repository = repository
        self.token = token

    def call(self, method, path, body=None):
        data = json.dumps(body).encode() if body is not None else None
        request = urllib.request.Request(self.api + path, data=data, method=method, headers={
            "Accept": "application/vnd.github+json",
            "Authorization": "Bearer " + self.token,
            "User-Agent": "jev-preflight-action",
            "X-GitHub-Api-Version": "2022-11-28",
            **({"Content-Type": "application/json"} if data is not None else {}),
        })
        try:
            with urllib.request.urlopen(request, timeout=TIMEOUT) as reply:
                return json.loads(reply.read() or b"null")
        except urllib.error.HTTPError as err:
            raise CheckError("GitHub API %s %s: HTTP %d %s" % (method, path, err.code,
                                                               err.read(500).decode("utf-8", "replace"))) from err
        except urllib.error.URLError as err:
            raise CheckError("GitHub API %s %s: %s" % (method, path, err)) from err

    def upsert_comment(self, number, body):
        """Edits the comment carrying MARKER, or creates it. Returns (action, comment id)."""
        page = 1
        while True:
            comments = self.call("GET", "/repos/%s/issues/%d/comments?per_page=100&page=%d"
                                 % (self.repository, number, page))
            for c in comments:
                if MARKER in (c.get("body") or ""):
                    self.call("PATCH", "/repos/%s/issues/comments/%d" % (self.repository, c["id"]), {"body": body})
                    return "updated", c["id"]
            if len(comments) < 100:
                break
            page += 1
        created = self.call("POST", "/repos/%s/issues/%d/comments" % (self.repository, number), {"body": body})
        return "created", created["id"]


def append(path, text):
    if path:
        with open(path, "a", encoding="utf-8") as f:
            f.write(text)


def main():
    try:
        return check()
    except CheckError as err:
        notice("error", "jev-preflight: " + str(err))
        return 2


def check():
    ev = event()
    pr = ev.get("pull_request") or {}
    base = env("JP_BASE") or (pr.get("base") or {}).get("sha", "")
    head = env("JP_HEAD") or (pr.get("head") or {}).get("sha", "")
    if not base or not head:
        raise CheckError("no base and head to compare: run on `pull_request`, or set the `base` and `head` inputs")
    cwd = env("JP_WORKING_DIRECTORY") or "."
    version = env("JP_VERSION").lstrip("v") or action_version()
    server = env("GITHUB_SERVER_URL") or "https://github.com"
    base_url = env("JP_RELEASE_URL") or "%s/%s/releases/download" % (server, DEFAULT_REPOSITORY)
    tools = Path(env("RUNNER_TEMP") or tempfile.gettempdir()) / ("jev-preflight-" + version)
    tools.mkdir(parents=True, exist_ok=True)
    binary = install(version, base_url, tools)
    ensure_history(cwd, base, head)

    report_path = tools / "report.md"
    cmd = [str(binary), "eval", "%s...%s" % (base, head), "--format", "markdown"]
    if env("JP_SCORER"):
        cmd += ["--scorer", env("JP_SCORER")]
    if env("JP_FAIL_ON"):
        cmd += ["--fail-on", env("JP_FAIL_ON")]
    sarif = env("JP_SARIF")
    if sarif:
        sarif = str(Path(cwd, sarif))
        cmd += ["--sarif", sarif]
    print("$ " + " ".join(cmd), flush=True)
    res = subprocess.run(cmd, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    sys.stderr.write(res.stderr)
    if res.returncode not in (0, 1):
        raise CheckError("jev-preflight eval failed (exit %d): %s" % (res.returncode, res.stderr.strip()[-1000:]))
    report = res.stdout
    report_path.write_text(report, encoding="utf-8")
    print(report, flush=True)
    append(env("GITHUB_STEP_SUMMARY"), report + "\n")

    if env("JP_COMMENT").lower() in ("true", "yes", "1"):
        number = pr.get("number") or (ev.get("issue") or {}).get("number")
        repository = env("GITHUB_REPOSITORY") or (ev.get("repository") or {}).get("full_name", "")
        token = env("JP_GITHUB_TOKEN")
        if not number or not repository:
            notice("warning", "jev-preflight: `comment` needs a pull_request event; no comment written")
        elif not token:
            raise CheckError("`comment` needs the `github-token` input (with pull-requests: write)")
        else:
            api = GitHub(env("GITHUB_API_URL") or "https://api.github.com", repository, token)
            action, comment_id = api.upsert_comment(int(number), MARKER + "\n" + report)
            print("pull-request comment %s (id %s)" % (action, comment_id), flush=True)

    append(env("GITHUB_OUTPUT"), "report=%s\nsarif=%s\nexit-code=%d\n" % (report_path, sarif, res.returncode))
    if res.returncode == 1:
        notice("error", res.stderr.strip().splitlines()[-1] if res.stderr.strip() else "jev-preflight: fail-on reached")
    return res.returncode


if __name__ == "__main__":
    sys.exit(main())
