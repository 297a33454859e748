#!/usr/bin/env python3
"""A loopback stand-in for the Anthropic Messages API that plays a scripted model, plus a
loopback TypeSafe Jev scorer. Standard library only.

Messages API (`POST /v1/messages`, streaming SSE or plain JSON):
  The first user message carries `[mock-script:<path>]`; that JSON file holds
  `{"steps": [{"name": "<tool>", "input": {...}}, ...], "final": "<text>"}`.
  Each request is answered from the conversation so far, so no state is kept here:
    - the last user message carries Stop hook feedback  -> "continuation": plain text, end_turn
    - fewer tool calls made than steps                   -> "tool": the next tool_use
    - otherwise                                          -> "final": the final text, end_turn
  Requests without a script marker (side requests) get a short text answer ("side").
Jev (`POST /v1/systemone`): scores 8 axes; `auth_boundary` is high when the diff removes a
line that mentions an authorization check, everything else is low.

Every request is appended to the log (JSON lines: path, headers, body, classification).
Usage: mock_anthropic.py --log <file> --port-file <file>   (binds 127.0.0.1 on a free port)
"""

import argparse
import json
import re
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

AXES = [
    "behavior_regression", "auth_boundary", "input_validation", "data_integrity",
    "error_handling", "compatibility", "lifecycle", "regression_tests",
]
SCRIPT_RE = re.compile(r"\[mock-script:([^\]\s]+)\]")
AUTH_REMOVED_RE = re.compile(r"^-.*(is_admin|authoriz|permission|require_auth)", re.I | re.M)
FEEDBACK_MARKERS = ("Stop hook feedback", "Stop hook additional context", "Stop hook blocking error")

LOCK = threading.Lock()
COUNTER = [0]


def texts(message):
    content = message.get("content")
    if isinstance(content, str):
        return [content]
    out = []
    for block in content or []:
        if block.get("type") == "text":
            out.append(block.get("text", ""))
        elif block.get("type") == "tool_result":
            inner = block.get("content")
            if isinstance(inner, str):
                out.append(inner)
            elif isinstance(inner, list):
                out.extend(b.get("text", "") for b in inner if isinstance(b, dict))
    return out


def has_feedback(message):
    return any(marker in text for text in texts(message) for marker in FEEDBACK_MARKERS)


def trailing(messages):
    """The messages after the last assistant message: what is new in this request. Hook
    feedback arrives there as a user-role reminder and, for a block, a system-role note."""
    last = max((i for i, m in enumerate(messages) if m.get("role") == "assistant"), default=-1)
    return messages[last + 1:]


def plan(body):
    """(classification, content blocks, stop_reason) for one Messages request."""
    messages = body.get("messages") or []
    users = [m for m in messages if m.get("role") == "user"]
    script_path = None
    if users:
        for text in texts(users[0]):
            match = SCRIPT_RE.search(text)
            if match:
                script_path = match.group(1)
                break
    if script_path is None:
        return "side", [{"type": "text", "text": "ok"}], "end_turn"
    with open(script_path, encoding="utf-8") as f:
        script = json.load(f)
    if any(has_feedback(m) for m in trailing(messages)):
        text = script.get("continuation", "I looked at the flagged change again and found nothing to change.")
        return "continuation", [{"type": "text", "text": text}], "end_turn"
    made = sum(
        1 for m in messages if m.get("role") == "assistant"
        for b in (m.get("content") if isinstance(m.get("content"), list) else [])
        if b.get("type") == "tool_use"
    )
    steps = script.get("steps", [])
    if made < len(steps):
        step = steps[made]
        offered = {t.get("name") for t in body.get("tools") or []}
        if step["name"] not in offered:
            return "error:tool-not-offered:" + step["name"], [{"type": "text", "text": "tool missing"}], "end_turn"
        block = {"type": "tool_use", "id": "toolu_mock_%02d" % made, "name": step["name"], "input": step["input"]}
        return "tool", [block], "tool_use"
    return "final", [{"type": "text", "text": script.get("final", "Done.")}], "end_turn"


def jev_answer(body):
    diff = ((body.get("state") or {}).get("diff")) or ""
    scores = {axis: 0.05 for axis in AXES}
    if AUTH_REMOVED_RE.search(diff):
        scores["auth_boundary"] = 0.97
        scores["regression_tests"] = 0.6
    return {"answers": {a: {"noul": s} for a, s in scores.items()}, "model": "jev-mock-1", "usage": {"units": 1}}


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

    def send_json(self, status, obj):
        data = json.dumps(obj).encode()
        self.send_response(status)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def do_HEAD(self):
        self.send_response(200)
        self.send_header("content-length", "0")
        self.end_headers()

    def do_GET(self):
        self.record({"path": self.path, "method": "GET", "classification": "get"})
        self.send_json(404, {"type": "error", "error": {"type": "not_found_error", "message": "mock"}})

    def do_POST(self):
        length = int(self.headers.get("content-length") or 0)
        raw = self.rfile.read(length)
        try:
            body = json.loads(raw or b"{}")
        except ValueError:
            body = {"_unparsed": raw.decode("utf-8", "replace")}
        path = self.path.split("?")[0]
        headers = {k.lower(): v for k, v in self.headers.items()}
        if path.endswith("/v1/systemone"):
            self.record({"path": path, "headers": headers, "body": body, "classification": "jev"})
            self.send_json(200, jev_answer(body))
            return
        if path.endswith("/v1/messages/count_tokens"):
            self.record({"path": path, "classification": "count_tokens"})
            self.send_json(200, {"input_tokens": 100})
            return
        if not path.endswith("/v1/messages"):
            self.record({"path": path, "body": body, "classification": "unknown"})
            self.send_json(404, {"type": "error", "error": {"type": "not_found_error", "message": "mock"}})
            return
        try:
            classification, content, stop = plan(body)
        except Exception as err:  # a broken script must show up in the log, not hang the client
            classification, content, stop = "error:" + repr(err), [{"type": "text", "text": "mock error"}], "end_turn"
        self.record({"path": path, "body": body, "classification": classification})
        model = body.get("model") or "claude-mock"
        msg_id = "msg_mock_%d" % COUNTER[0]
        if body.get("stream"):
            self.stream(msg_id, model, content, stop)
        else:
            self.send_json(200, {
                "id": msg_id, "type": "message", "role": "assistant", "model": model,
                "content": content, "stop_reason": stop, "stop_sequence": None,
                "usage": {"input_tokens": 100, "output_tokens": 20},
            })

    def stream(self, msg_id, model, content, stop):
        events = [("message_start", {"type": "message_start", "message": {
            "id": msg_id, "type": "message", "role": "assistant", "model": model, "content": [],
            "stop_reason": None, "stop_sequence": None,
            "usage": {"input_tokens": 100, "output_tokens": 1}}})]
        for i, block in enumerate(content):
            if block["type"] == "text":
                events.append(("content_block_start", {"type": "content_block_start", "index": i,
                                                       "content_block": {"type": "text", "text": ""}}))
                events.append(("content_block_delta", {"type": "content_block_delta", "index": i,
                                                       "delta": {"type": "text_delta", "text": block["text"]}}))
            else:
                events.append(("content_block_start", {"type": "content_block_start", "index": i, "content_block": {
                    "type": "tool_use", "id": block["id"], "name": block["name"], "input": {}}}))
                events.append(("content_block_delta", {"type": "content_block_delta", "index": i, "delta": {
                    "type": "input_json_delta", "partial_json": json.dumps(block["input"])}}))
            events.append(("content_block_stop", {"type": "content_block_stop", "index": i}))
        events.append(("message_delta", {"type": "message_delta",
                                         "delta": {"stop_reason": stop, "stop_sequence": None},
                                         "usage": {"output_tokens": 20}}))
        events.append(("message_stop", {"type": "message_stop"}))
        data = "".join("event: %s\ndata: %s\n\n" % (name, json.dumps(obj)) for name, obj in events).encode()
        self.send_response(200)
        self.send_header("content-type", "text/event-stream")
        self.send_header("cache-control", "no-cache")
        self.send_header("content-length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)


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
    import os
    os.replace(args.port_file + ".tmp", args.port_file)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    return 0


if __name__ == "__main__":
    sys.exit(main())
