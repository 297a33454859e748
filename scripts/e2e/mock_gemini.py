#!/usr/bin/env python3
"""A loopback stand-in for the Gemini API (what Gemini CLI calls at GOOGLE_GEMINI_BASE_URL)
that plays a scripted model, plus the loopback TypeSafe Jev scorer of mock_anthropic.py.
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
Jev (`POST /v1/systemone`): as in mock_anthropic.py.

Every request is appended to the log (JSON lines: path, headers, body, classification).
Usage: mock_gemini.py --log <file> --port-file <file>   (binds 127.0.0.1 on a free port)
"""

import argparse
import json
import os
import re
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from mock_anthropic import jev_answer  # noqa: E402

SCRIPT_RE = re.compile(r"\[mock-script:([^\]\s]+)\]")
# The opening words of jev-preflight's continuation text (src/hook/answer.rs).
FEEDBACK_MARKER = "jev-preflight scored the code change"

LOCK = threading.Lock()
COUNTER = [0]


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


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def record(self, entry):
        with LOCK:
            COUNTER[0] += 1
            entry["seq"] = COUNTER[0]
            with open(self.server.log_path, "a", encoding="utf-8") as f:
                f.write(json.dumps(entry) + "\n")

    def send(self, status, ctype, data):
        self.send_response(status)
        self.send_header("content-type", ctype)
        self.send_header("content-length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def do_GET(self):
        self.record({"path": self.path, "method": "GET", "classification": "get"})
        self.send(404, "application/json", b'{"error":{"code":404,"message":"mock","status":"NOT_FOUND"}}')

    def do_POST(self):
        length = int(self.headers.get("content-length") or 0)
        raw = self.rfile.read(length)
        try:
            body = json.loads(raw or b"{}")
        except ValueError:
            body = {"_unparsed": raw[:4000].decode("utf-8", "replace")}
        path = self.path.split("?")[0]
        headers = {k.lower(): v for k, v in self.headers.items()}
        if path.endswith("/v1/systemone"):
            self.record({"path": path, "headers": headers, "body": body, "classification": "jev"})
            self.send(200, "application/json", json.dumps(jev_answer(body)).encode())
            return
        if path.endswith(":countTokens"):
            self.record({"path": path, "classification": "count_tokens"})
            self.send(200, "application/json", b'{"totalTokens": 100}')
            return
        if not (path.endswith(":generateContent") or path.endswith(":streamGenerateContent")):
            self.record({"path": path, "body": body, "classification": "unknown"})
            self.send(404, "application/json", b'{"error":{"code":404,"message":"mock","status":"NOT_FOUND"}}')
            return
        try:
            classification, parts = plan(body)
        except Exception as err:  # a broken script must show up in the log, not hang the client
            classification, parts = "error:" + repr(err), [{"text": "mock error"}]
        self.record({"path": path, "headers": {"x-goog-api-key": headers.get("x-goog-api-key")},
                     "body": body, "classification": classification})
        if path.endswith(":streamGenerateContent"):
            data = ("data: " + json.dumps(response(parts)) + "\r\n\r\n").encode()
            self.send(200, "text/event-stream", data)
        else:
            self.send(200, "application/json", json.dumps(response(parts)).encode())


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--log", required=True)
    parser.add_argument("--port-file", required=True)
    args = parser.parse_args()
    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.log_path = args.log
    server.daemon_threads = True
    with open(args.port_file + ".tmp", "w") as f:
        f.write(str(server.server_address[1]))
    os.replace(args.port_file + ".tmp", args.port_file)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    return 0


if __name__ == "__main__":
    sys.exit(main())
