"""A loopback stand-in for the OpenAI Chat Completions API (what Qwen Code, OpenCode and
Copilot CLI's BYOK providers call at `<base_url>/chat/completions`) that plays a scripted
model, plus the loopback TypeSafe Jev scorer. Standard library only.

The first user message carries `[mock-script:<path>]`; that JSON file holds
  `{"steps": [{"name": "<tool>", "args": {...}}, ...], "final": "<text>",
    "continuation_steps": [...], "continuation": "<text>"}`.
Each request is answered from `messages` so far, so no state is kept here:
  - a user message after the model last spoke carries hook feedback, or an earlier one did
    and the continuation steps are not all made: "cont-tool", then "continuation"
  - fewer tool calls made than steps -> "tool": the next tool call
  - otherwise                        -> "final": the final text
A step's `args` may name the tool's parameters by role: `{"path": …, "content": …}` is mapped
onto whichever of `file_path`, `absolute_path`, `filePath`, `path` the offered tool declares.
Requests without the script marker or without tools (titles, summaries, next-speaker checks)
get a short text ("side"). Streamed (`"stream": true`) or not, as asked.

Usage: python3 -m jevtools.e2e.mock_chat --log <file> --port-file <file>   (binds 127.0.0.1 on a free port)
"""

import json
import re
import sys

from jevtools.e2e.model_mock import Handler, serve

SCRIPT_RE = re.compile(r"\[mock-script:([^\]\s]+)\]")
# The opening words of jev-preflight's continuation text (src/hook/answer.rs).
FEEDBACK_MARKER = "jev-preflight scored the code change"
PATH_NAMES = ("file_path", "absolute_path", "filePath", "path")


def text_of(message):
    content = message.get("content")
    if isinstance(content, str):
        return content
    return "\n".join(p.get("text", "") for p in content or [] if isinstance(p, dict))


def tool_call(step, index, tools):
    offered = {}
    for t in tools or []:
        fn = t.get("function") or {}
        offered[fn.get("name")] = set((fn.get("parameters") or {}).get("properties") or {})
    if step["name"] not in offered:
        raise LookupError("tool not offered: %s (offered: %s)" % (step["name"], sorted(offered)))
    params = offered[step["name"]]
    args = {}
    for key, value in step["args"].items():
        if key == "path":
            key = next((p for p in PATH_NAMES if p in params), key)
        args[key] = value
    return {"index": 0, "id": "call_mock_%02d" % index, "type": "function",
            "function": {"name": step["name"], "arguments": json.dumps(args)}}


def plan(body):
    """(classification, assistant message) for one request."""
    messages = body.get("messages") or []
    script_path = None
    for m in messages:
        if m.get("role") == "user":
            match = SCRIPT_RE.search(text_of(m))
            if match:
                script_path = match.group(1)
                break
    # Title and summary requests repeat the user's text but offer no tools.
    if script_path is None or not body.get("tools"):
        return "side", {"role": "assistant", "content": "ok"}
    with open(script_path, encoding="utf-8") as f:
        script = json.load(f)
    fed_back = [i for i, m in enumerate(messages) if m.get("role") == "user" and FEEDBACK_MARKER in text_of(m)]
    made = [m for m in messages if m.get("role") == "assistant" and m.get("tool_calls")]
    steps = script.get("steps", [])
    if fed_back:
        after = [m for m in messages[fed_back[0]:] if m.get("role") == "assistant" and m.get("tool_calls")]
        cont = script.get("continuation_steps", [])
        if len(after) < len(cont):
            call = tool_call(cont[len(after)], len(made), body.get("tools"))
            return "cont-tool", {"role": "assistant", "content": None, "tool_calls": [call]}
        return "continuation", {"role": "assistant",
                                "content": script.get("continuation", "I looked again and found nothing to change.")}
    if len(made) < len(steps):
        call = tool_call(steps[len(made)], len(made), body.get("tools"))
        return "tool", {"role": "assistant", "content": None, "tool_calls": [call]}
    return "final", {"role": "assistant", "content": script.get("final", "Done.")}


class ChatHandler(Handler):
    def route(self, path, headers, body):
        if not path.endswith("/chat/completions"):
            return "unknown", 404, {"error": {"message": "mock", "type": "not_found"}}
        classification, message = plan(body)
        finish = "tool_calls" if message.get("tool_calls") else "stop"
        model = body.get("model") or "mock"
        usage = {"prompt_tokens": 100, "completion_tokens": 20, "total_tokens": 120}
        if not body.get("stream"):
            return classification, 200, {
                "id": "chatcmpl-mock", "object": "chat.completion", "created": 0, "model": model,
                "choices": [{"index": 0, "message": message, "finish_reason": finish}], "usage": usage}
        chunk = lambda delta, reason: {  # noqa: E731
            "id": "chatcmpl-mock", "object": "chat.completion.chunk", "created": 0, "model": model,
            "choices": [{"index": 0, "delta": delta, "finish_reason": reason}]}
        events = [chunk({"role": "assistant", "content": ""}, None)]
        if message.get("tool_calls"):
            events.append(chunk({"tool_calls": message["tool_calls"]}, None))
        else:
            events.append(chunk({"content": message["content"]}, None))
        events.append(chunk({}, finish))
        events.append({"id": "chatcmpl-mock", "object": "chat.completion.chunk", "created": 0, "model": model,
                       "choices": [], "usage": usage})
        return classification, 200, events


if __name__ == "__main__":
    sys.exit(serve(ChatHandler, __doc__))
