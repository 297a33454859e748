#!/usr/bin/env python3
"""A loopback stand-in for the OpenAI Responses API (what Codex CLI speaks to a custom
`model_provider` with `wire_api = "responses"`) that plays a scripted model, plus the loopback
TypeSafe Jev scorer of mock_anthropic.py. Standard library only.

Responses API (`POST <base_url>/responses`, streamed as SSE):
  The first user message carries `[mock-script:<path>]`; that JSON file holds
  `{"steps": [{"name": "<tool>", "arguments": {...}}, ...], "final": "<text>",
    "continuation": "<text>"}`.
  Each request is answered from the `input` items so far, so no state is kept here:
    - an item after the model last spoke carries hook feedback -> "continuation": text
    - fewer function calls made than steps                     -> "tool": the next function_call
    - otherwise                                                 -> "final": the final text
  Requests without a script marker (side requests) get a short text answer ("side").
Jev (`POST /v1/systemone`): as in mock_anthropic.py.

Every request is appended to the log (JSON lines: path, headers, body, classification).
Usage: mock_responses.py --log <file> --port-file <file>   (binds 127.0.0.1 on a free port)
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


def item_texts(item):
    """The text an input item carries (messages and tool outputs)."""
    if item.get("type") == "function_call_output":
        out = item.get("output")
        return [out] if isinstance(out, str) else [json.dumps(out)]
    content = item.get("content")
    if isinstance(content, str):
        return [content]
    return [c.get("text", "") for c in content or [] if isinstance(c, dict)]


def spoke(item):
    """Whether the model produced this item."""
    return item.get("type") in ("function_call", "reasoning") or (
        item.get("type") == "message" and item.get("role") == "assistant")


def trailing(items):
    """The items after the model last spoke: what is new in this request."""
    last = max((i for i, it in enumerate(items) if spoke(it)), default=-1)
    return items[last + 1:]


def plan(body):
    """(classification, output items) for one Responses request."""
    items = body.get("input") or []
    if isinstance(items, str):
        items = [{"type": "message", "role": "user", "content": items}]
    script_path = None
    for it in items:
        if it.get("type") == "message" and it.get("role") == "user":
            for text in item_texts(it):
                match = SCRIPT_RE.search(text)
                if match:
                    script_path = match.group(1)
                    break
        if script_path:
            break
    if script_path is None:
        return "side", [message("ok")]
    with open(script_path, encoding="utf-8") as f:
        script = json.load(f)
    if any(FEEDBACK_MARKER in text for it in trailing(items) if it.get("type") == "message"
           for text in item_texts(it)):
        return "continuation", [message(script.get("continuation", "I looked again and found nothing to change."))]
    made = sum(1 for it in items if it.get("type") == "function_call")
    steps = script.get("steps", [])
    if made < len(steps):
        step = steps[made]
        offered = {t.get("name") for t in body.get("tools") or []}
        if step["name"] not in offered:
            return "error:tool-not-offered:" + step["name"], [message("tool missing")]
        return "tool", [{"type": "function_call", "id": "fc_mock_%02d" % made, "call_id": "call_mock_%02d" % made,
                         "name": step["name"], "arguments": json.dumps(step["arguments"])}]
    return "final", [message(script.get("final", "Done."))]


def message(text):
    return {"type": "message", "role": "assistant", "id": "msg_mock", "status": "completed",
            "content": [{"type": "output_text", "text": text, "annotations": []}]}


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

    def do_GET(self):
        self.record({"path": self.path, "method": "GET", "classification": "get"})
        # `/models`: an empty catalog makes Codex fall back to its built-in model metadata.
        self.send_json(200, {"object": "list", "data": [], "models": []})

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
            self.send_json(200, jev_answer(body))
            return
        if not path.endswith("/responses"):
            self.record({"path": path, "body": body, "classification": "unknown"})
            self.send_json(404, {"error": {"message": "mock", "type": "not_found"}})
            return
        try:
            classification, output = plan(body)
        except Exception as err:  # a broken script must show up in the log, not hang the client
            classification, output = "error:" + repr(err), [message("mock error")]
        self.record({"path": path, "headers": {"authorization": headers.get("authorization")},
                     "body": body, "classification": classification})
        self.stream("resp_mock_%d" % COUNTER[0], body.get("model") or "mock", output)

    def stream(self, resp_id, model, output):
        events = [{"type": "response.created", "response": {"id": resp_id, "model": model}}]
        for item in output:
            events.append({"type": "response.output_item.done", "item": item})
        events.append({"type": "response.completed", "response": {
            "id": resp_id, "model": model,
            "usage": {"input_tokens": 100, "input_tokens_details": None, "output_tokens": 20,
                      "output_tokens_details": None, "total_tokens": 120}}})
        data = "".join("event: %s\ndata: %s\n\n" % (e["type"], json.dumps(e)) for e in events).encode()
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
    os.replace(args.port_file + ".tmp", args.port_file)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    return 0


if __name__ == "__main__":
    sys.exit(main())
