#!/usr/bin/env node
// The real hook end to end through the plugin's own hook command, spawned the way Claude Code
// spawns an exec-form hook (`child_process.spawn` on `command` with `args`, no shell), with
// `${CLAUDE_PLUGIN_ROOT}` replaced by the plugin directory given. On Windows the command's
// extensionless `bin/jev-preflight` resolves to `bin/jev-preflight.exe`; on macOS and Linux
// it is the launcher, which verifies and runs `bin/<os>-<arch>/jev-preflight`. A throwaway git
// repository gets a prompt, a risky edit, a Stop (one continuation with the built-in scorer),
// a second Stop (none) and a SessionEnd; events carry the platform's own paths (backslashes on
// Windows). Prints `N passed, N failed`.
//
//     node scripts/hook-e2e.js <plugin-root>
"use strict";
const { spawnSync } = require("child_process");
const fs = require("fs");
const os = require("os");
const path = require("path");

const root = path.resolve(process.argv[2] || "");
const manifest = JSON.parse(fs.readFileSync(path.join(__dirname, "..", ".claude-plugin", "plugin.json"), "utf8"));
const handler = (event) => manifest.hooks[event][0].hooks[0];
const work = fs.mkdtempSync(path.join(os.tmpdir(), "jev-hook-e2e-"));
const repo = path.join(work, "repo");
const env = { ...process.env, CLAUDE_PLUGIN_DATA: path.join(work, "data"), JEV_PREFLIGHT_SCORER: "local" };
delete env.TYPESAFE_API_KEY;
let passed = 0;
let failed = 0;
const check = (label, ok, detail) => {
  if (ok) passed++;
  else failed++;
  console.log((ok ? "PASS " : "FAIL ") + label + (ok ? "" : ": " + detail));
};
const git = (...args) => {
  const r = spawnSync("git", ["-c", "user.name=e2e", "-c", "user.email=e2e@example.com", ...args], { cwd: repo });
  if (r.status !== 0) throw new Error("git " + args.join(" ") + ": " + r.stderr);
};
const hook = (event, fields) => {
  const h = handler(event);
  const command = h.command.replace("${CLAUDE_PLUGIN_ROOT}", root);
  const input = JSON.stringify({ session_id: "e2e-session", cwd: repo, hook_event_name: event, ...fields });
  const r = spawnSync(command, h.args || [], { input, env, shell: false, timeout: h.timeout * 1000 });
  return { error: r.error && r.error.code, status: r.status, stdout: String(r.stdout || "").trim(), stderr: String(r.stderr || "") };
};

const check_admin = '    if not request.user.is_admin:\n        raise PermissionDenied("only admins may do this")\n';
const api = (checked) =>
  "from app.auth import require_auth\nfrom app.errors import PermissionDenied\nfrom app import db\n\n\n" +
  "@require_auth\ndef delete_user(request, user_id):\n" + (checked ? check_admin : "") + "    db.users.delete(user_id)\n";
fs.mkdirSync(path.join(repo, "src"), { recursive: true });
git("init", "-q");
fs.writeFileSync(path.join(repo, "src", "api.py"), api(true));
git("add", "-A");
git("commit", "-q", "-m", "initial");

const prompt = hook("UserPromptSubmit", { prompt: "simplify delete_user", prompt_id: "p1" });
check("UserPromptSubmit runs the binary and exits 0", !prompt.error && prompt.status === 0, JSON.stringify(prompt));
check("UserPromptSubmit takes the baseline", prompt.stderr.includes("baseline taken"), prompt.stderr);
fs.writeFileSync(path.join(repo, "src", "api.py"), api(false));
const stop = hook("Stop", { prompt_id: "p1", stop_hook_active: false });
let answer = {};
try {
  answer = JSON.parse(stop.stdout || "{}");
} catch (e) {
  answer = { unparsed: stop.stdout };
}
const text = answer.reason || (answer.hookSpecificOutput || {}).additionalContext || "";
check("Stop continues the agent once, naming the axis and the file",
  stop.status === 0 && text.includes("auth_boundary") && text.includes("src/api.py"), JSON.stringify(stop));
const again = hook("Stop", { prompt_id: "p1", stop_hook_active: true });
check("the next Stop of the prompt stays quiet", again.status === 0 && again.stdout === "", JSON.stringify(again));
const end = hook("SessionEnd", { reason: "other" });
check("SessionEnd exits 0", !end.error && end.status === 0, JSON.stringify(end));
fs.rmSync(work, { recursive: true, force: true });
console.log(passed + " passed, " + failed + " failed");
process.exit(failed ? 1 : 0);
