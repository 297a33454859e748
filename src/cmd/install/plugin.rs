//! The plugin file for OpenCode and Kilo Code, which have no command hooks: a small
//! JavaScript module the client loads from its plugins folder. It runs this binary's `hook`
//! when a prompt is sent (`chat.message`) and when a session goes idle (`session.idle`, the end
//! of a turn), and sends a continuation back as a prompt through the client's session API
//! (`session.promptAsync`); `session.deleted` ends the session. The events it writes on the
//! hook's stdin have Claude Code's shape, with `stop_hook_active` set for the idle that follows
//! its own prompt. API names checked against `@opencode-ai/plugin` and `@opencode-ai/sdk`
//! 1.18.33 (`Hooks["chat.message"]`, `EventSessionIdle`, `SessionPromptAsyncData`), and run in
//! the real OpenCode 1.18.33 by `scripts/e2e-opencode`.
//!
//! The file is ours alone: install writes it whole, uninstall deletes it (with the folders
//! install created for it, when nothing else was put in them), and a file of that name that
//! we did not write is refused rather than overwritten.

use std::fs;
use std::path::Path;

use super::{
    Action, InstallError, Outcome, Undo, missing_dirs, outcome, read_optional, write_atomic,
    write_error,
};
use crate::host::Host;

/// The first line of every plugin file we write; how uninstall knows the file is ours.
pub const MARKER: &str = "// jev-preflight plugin, written by `jev-preflight install`";

/// The plugin text for `host`, running `program`.
pub fn text(host: Host, program: &str) -> String {
    let quoted = serde_json::Value::String(program.to_owned()).to_string();
    // The template is cut into pieces only to keep source lines short; `concat!` joins them
    // back into the one text, byte for byte.
    format!(
        concat!(
            r#"{MARKER}; remove it with `jev-preflight uninstall --{id}`.
// Runs the jev-preflight hook when a prompt is sent and when a session goes idle, and sends its
// request for one more look back as a prompt (at most once per prompt; it fails open).
import {{ spawn }} from "node:child_process";

const PROGRAM = {quoted};
const HOST = "{id}";

function hook(event) {{
  return new Promise((resolve) => {{
    let out = "";
    let child;
    try {{
      child = spawn(PROGRAM, ["hook", "--host", HOST], {{ stdio: ["pipe", "pipe", "ignore"] }});
    }} catch {{
      resolve(null);
      return;
    }}
    child.on("error", () => resolve(null));
    child.stdout.on("data", (chunk) => {{
      out += chunk;
    }});
    child.on("close", () => {{
      try {{
        resolve(out.trim() ? JSON.parse(out) : null);
      }} catch {{
        resolve(null);
      }}
    }});
    child.stdin.on("error", () => {{}});
    child.stdin.end(JSON.stringify(event));
  }});
}}

export const JevPreflight = async ({{ client, directory }}) => {{
  // Sessions whose current turn is our own continuation.
  const continued = new Set();
  return {{
    "chat.message": async (input, output) => {{
      const prompt = (output.parts || [])
        .filter((part) => part.type === "text")
        .map((part) => part.text)
        .join("\n");
      await hook({{ hook_event_name: "UserPromptSubmit", session_id: input.sessionID, "#,
            r#"cwd: directory, prompt }});
    }},
    event: async ({{ event }}) => {{
      if (event.type === "session.idle") {{
        const id = event.properties.sessionID;
        const active = continued.delete(id);
        const answer = await hook({{ hook_event_name: "Stop", session_id: id, cwd: directory, "#,
            r#"stop_hook_active: active }});
        if (answer && answer.decision === "block" && typeof answer.reason === "string") {{
          continued.add(id);
          await client.session.promptAsync({{ path: {{ id }}, "#,
            r#"body: {{ parts: [{{ type: "text", text: answer.reason }}] }} }});
        }}
      }} else if (event.type === "session.deleted") {{
        await hook({{ hook_event_name: "SessionEnd", "#,
            r#"session_id: event.properties.info.id, cwd: directory }});
      }}
    }},
  }};
}};
"#
        ),
        MARKER = MARKER,
        quoted = quoted,
        id = host.id(),
    )
}

/// Writes the plugin file at `path`; the folders it creates on the way are recorded in `undo`.
pub fn install(
    host: Host,
    path: &Path,
    program: &str,
    undo: &Undo,
) -> Result<Outcome, InstallError> {
    let wanted = text(host, program);
    match read_optional(path)? {
        Some(current) if current == wanted.as_bytes() => {
            Ok(outcome(Action::AlreadyInstalled, path, None))
        }
        Some(current) if !current.starts_with(MARKER.as_bytes()) => Err(InstallError::NotOurs {
            path: path.to_owned(),
        }),
        existing => {
            if let Some(dir) = path.parent() {
                let missing = missing_dirs(dir);
                // Recorded before they exist: a crash in between leaves nothing unrecorded.
                if !missing.is_empty() {
                    undo.record_created(&missing)?;
                }
                fs::create_dir_all(dir).map_err(|source| write_error(dir, source))?;
            }
            write_atomic(path, wanted.as_bytes(), None)?;
            let action = match existing {
                None => Action::Created,
                Some(_) => Action::Added,
            };
            Ok(outcome(action, path, None))
        }
    }
}

/// Deletes the plugin file at `path`, when it is ours, and the empty folders `undo` records
/// install created for it.
pub fn uninstall(path: &Path, undo: &Undo) -> Result<Outcome, InstallError> {
    match read_optional(path)? {
        None => Ok(outcome(Action::NotInstalled, path, None)),
        Some(current) if !current.starts_with(MARKER.as_bytes()) => Err(InstallError::NotOurs {
            path: path.to_owned(),
        }),
        Some(_) => {
            fs::remove_file(path).map_err(|source| write_error(path, source))?;
            undo.remove_created(path);
            undo.forget();
            Ok(outcome(Action::Deleted, path, None))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_plugin_embeds_the_program_as_a_js_string_and_names_its_host() {
        let t = text(Host::Kilo, r#"/opt/a "b"\c/jev-preflight"#);
        assert!(t.starts_with(MARKER));
        assert!(t.contains(r#"const PROGRAM = "/opt/a \"b\"\\c/jev-preflight";"#));
        assert!(t.contains(r#"const HOST = "kilo";"#));
        assert!(t.contains("uninstall --kilo"));
        for api in [
            "\"chat.message\"",
            "session.idle",
            "promptAsync",
            "stop_hook_active",
        ] {
            assert!(t.contains(api), "{api}");
        }
    }
}
