"""The loopback server every model mock in this folder runs on: a request log (JSON lines), JSON,
server-sent-event and raw answers, the TypeSafe Jev endpoint, a refusing proxy, and `serve()`,
which binds 127.0.0.1 on a free port and writes the port to `--port-file`. Standard library
only.

Jev (`POST …/v1/systemone`): scores 8 axes; `auth_boundary` is high when the diff removes a line
that mentions an authorization check, everything else is low.
"""

import argparse
import json
import os
import re
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

AXES = [
    "behavior_regression", "auth_boundary", "input_validation", "data_integrity",
    "error_handling", "compatibility", "lifecycle", "regression_tests",
]
AUTH_REMOVED_RE = re.compile(r"^-.*(is_admin|authoriz|permission|require_auth)", re.I | re.M)

LOCK = threading.Lock()
COUNTER = [0]


def jev_answer(body):
    diff = ((body.get("state") or {}).get("diff")) or ""
    scores = {axis: 0.05 for axis in AXES}
    if AUTH_REMOVED_RE.search(diff):
        scores["auth_boundary"] = 0.97
        scores["regression_tests"] = 0.6
    return {"answers": {a: {"noul": s} for a, s in scores.items()}, "model": "jev-mock-1", "usage": {"units": 1}}


class Raw:
    """An answer sent as these bytes, with this content type (an API's own event stream)."""

    def __init__(self, content_type, data):
        self.content_type = content_type
        self.data = data.encode() if isinstance(data, str) else data


class Handler(BaseHTTPRequestHandler):
    """Subclasses answer `route(path, headers, body)` with (classification, status, reply):
    a dict is sent as JSON, a list of dicts as `data:` server-sent events ending in `[DONE]`, a
    `Raw` as its bytes. `get_reply` is the (status, JSON) every GET gets; `logged_headers` the
    request headers a model request's log entry keeps."""

    protocol_version = "HTTP/1.1"
    get_reply = (200, {"object": "list", "data": []})
    logged_headers = ("authorization",)

    def log_message(self, *args):
        pass

    def record(self, entry):
        with LOCK:
            COUNTER[0] += 1
            entry["seq"] = COUNTER[0]
            with open(self.server.log_path, "a", encoding="utf-8") as f:
                f.write(json.dumps(entry) + "\n")

    def send_bytes(self, status, content_type, data):
        self.send_response(status)
        self.send_header("content-type", content_type)
        self.send_header("cache-control", "no-cache")
        self.send_header("content-length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def do_CONNECT(self):
        """A client that was given this server as its HTTPS proxy tried to leave the machine:
        logged as "outbound" with the host it wanted, and refused."""
        self.record({"path": self.path, "method": self.command, "classification": "outbound"})
        self.close_connection = True
        self.send_response(403)
        self.send_header("connection", "close")
        self.send_header("content-length", "0")
        self.end_headers()

    def do_HEAD(self):
        self.send_response(200)
        self.send_header("content-length", "0")
        self.end_headers()

    def do_GET(self):
        if self.path.startswith("http"):
            return self.do_CONNECT()
        self.record({"path": self.path, "method": "GET", "classification": "get"})
        status, reply = self.get_reply
        self.send_bytes(status, "application/json", json.dumps(reply).encode())

    def do_POST(self):
        if self.path.startswith("http"):
            return self.do_CONNECT()
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
            self.send_bytes(200, "application/json", json.dumps(jev_answer(body)).encode())
            return
        try:
            classification, status, reply = self.route(path, headers, body)
        except Exception as err:  # a broken script must show up in the log, not hang the client
            classification, status, reply = "error:" + repr(err), 500, {"error": {"message": "mock error"}}
        self.record({"path": path, "headers": {k: headers.get(k) for k in self.logged_headers},
                     "body": body, "classification": classification})
        if isinstance(reply, Raw):
            self.send_bytes(status, reply.content_type, reply.data)
        elif isinstance(reply, list):
            data = "".join("data: %s\n\n" % json.dumps(e) for e in reply) + "data: [DONE]\n\n"
            self.send_bytes(status, "text/event-stream", data.encode())
        else:
            self.send_bytes(status, "application/json", json.dumps(reply).encode())

    def route(self, path, headers, body):
        return "unknown", 404, {"error": {"message": "mock", "type": "not_found"}}


def serve(handler):
    parser = argparse.ArgumentParser()
    parser.add_argument("--log", required=True)
    parser.add_argument("--port-file", required=True)
    args = parser.parse_args()
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
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
