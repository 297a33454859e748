"""A loopback stand-in for the Gemini API (what Gemini CLI calls at GOOGLE_GEMINI_BASE_URL)
that plays a scripted model, plus the loopback TypeSafe Jev scorer of model_mock.py.
Standard library only.

Main turn requests (`POST /v1beta/models/<model>:streamGenerateContent?alt=sse`, with tools)
whose first user text carries `[mock-script:<path>]`; that JSON file holds
  `{"steps": [{"name": "<tool>", "args": {...}}, ...], "final": "<text>",
    "continuation_steps": [...], "continuation": "<text>"}`.
Each request is answered from `contents` so far, so no state is kept here:
  - hook feedback was sent as a user text: "cont-tool" for each continuation step not made
    yet, then "continuation" (the continuation text)
  - fewer function calls made than steps  -> "tool": the next functionCall
  - otherwise                             -> "final": the final text
The CLI's own side requests (model routing, next-speaker checks: JSON-schema answers, and
anything without the script marker) get a minimal valid answer ("side"); the next speaker is
always the user.
Jev (`POST /v1/systemone`): see model_mock.py.

Every request is appended to the log (JSON lines: path, headers, body, classification).
Usage: python3 -m jevtools.e2e.mock_gemini --log <file> --port-file <file>   (binds 127.0.0.1 on a free port)
"""

import json
import re
import sys

from jevtools.e2e.model_mock import Handler, Raw, serve

SCRIPT_RE = re.compile(r"\[mock-script:([^\]\s]+)\]")
# The opening words of jev-preflight's continuation text (src/hook/answer.rs).
FEEDBACK_MARKER = "jev-preflight scored the code change"
NOT_FOUND = {"error": {"code": 404, "message": "mock", "status": "NOT_FOUND"}}


def texts(content):
    return [p["text"] for p in content.get("parts") or [] if isinstance(p, dict) and "text" in p]


def calls(content):
    return [p for p in content.get("parts") or [] if isinstance(p, dict) and "functionCall" in p]


def fill(schema):
    """A minimal value valid under a (Gemini-style, upper-case types) JSON schema."""
    kind = str(schema.get("type", "object")).lower()
    if "enum" in schema:
        return schema["enum"][0]
    if kind == "object":
        out = {}
        for name, prop in (schema.get("properties") or {}).items():
            out[name] = "user" if name == "next_speaker" else fill(prop)
        return out
    if kind == "array":
        return []
    if kind in ("integer", "number"):
        return max(1, schema.get("minimum", 1))
    if kind == "boolean":
        return False
    return "mock"


def plan(body):
    """(classification, parts) for one request."""
    config = body.get("generationConfig") or {}
    schema = config.get("responseJsonSchema") or config.get("responseSchema")
    if schema:
        return "side", [{"text": json.dumps(fill(schema))}]
    contents = body.get("contents") or []
    script_path = None
    for c in contents:
        if c.get("role") == "user":
            for text in texts(c):
                match = SCRIPT_RE.search(text)
                if match:
                    script_path = match.group(1)
                    break
        if script_path:
            break
    if script_path is None or not body.get("tools"):
        return "side", [{"text": "ok"}]
    with open(script_path, encoding="utf-8") as f:
        script = json.load(f)
    offered = {d.get("name") for t in body.get("tools") or [] for d in t.get("functionDeclarations") or []}
    feedback_at = next((i for i, c in enumerate(contents) if c.get("role") == "user"
                        and any(FEEDBACK_MARKER in t for t in texts(c))), None)
    if feedback_at is not None:
        made = sum(len(calls(c)) for c in contents[feedback_at:] if c.get("role") == "model")
        steps = script.get("continuation_steps", [])
        if made < len(steps):
            return call("cont-tool", steps[made], offered)
        return "continuation", [{"text": script.get("continuation", "I looked again and found nothing to change.")}]
    made = sum(len(calls(c)) for c in contents if c.get("role") == "model")
    steps = script.get("steps", [])
    if made < len(steps):
        return call("tool", steps[made], offered)
    return "final", [{"text": script.get("final", "Done.")}]


def call(kind, step, offered):
    if step["name"] not in offered:
        return "error:tool-not-offered:%s:%s" % (step["name"], sorted(offered)), [{"text": "tool missing"}]
    return kind, [{"functionCall": {"name": step["name"], "args": step["args"]}}]


def response(parts):
    return {"candidates": [{"content": {"role": "model", "parts": parts}, "finishReason": "STOP", "index": 0}],
            "usageMetadata": {"promptTokenCount": 100, "candidatesTokenCount": 20, "totalTokenCount": 120},
            "modelVersion": "gemini-mock"}


class GeminiHandler(Handler):
    get_reply = (404, NOT_FOUND)
    logged_headers = ("x-goog-api-key",)

    def route(self, path, headers, body):
        if path.endswith(":countTokens"):
            return "count_tokens", 200, {"totalTokens": 100}
        if not (path.endswith(":generateContent") or path.endswith(":streamGenerateContent")):
            return "unknown", 404, NOT_FOUND
        try:
            classification, parts = plan(body)
        except Exception as err:  # a broken script must show up in the log, not hang the client
            classification, parts = "error:" + repr(err), [{"text": "mock error"}]
        if path.endswith(":streamGenerateContent"):
            return classification, 200, Raw("text/event-stream", "data: " + json.dumps(response(parts)) + "\r\n\r\n")
        return classification, 200, response(parts)


if __name__ == "__main__":
    sys.exit(serve(GeminiHandler, __doc__))
