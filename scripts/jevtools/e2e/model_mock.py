"""What every model-API mock in this folder shares on top of the loopback server
(jevtools.loopback): the request log entry of a model request, JSON, server-sent-event and raw
answers, and the TypeSafe Jev endpoint. Standard library only.

Jev (`POST …/v1/systemone`): scores 8 axes; `auth_boundary` is high when the diff removes a line
that mentions an authorization check, everything else is low.
"""

import json
import re

from jevtools import loopback

AXES = [
    "behavior_regression", "auth_boundary", "input_validation", "data_integrity",
    "error_handling", "compatibility", "lifecycle", "regression_tests",
]
AUTH_REMOVED_RE = re.compile(r"^-.*(is_admin|authoriz|permission|require_auth)", re.I | re.M)


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


def encode_reply(reply):
    """(content type, bytes) of a `route` reply: a dict as JSON, a list of dicts as `data:`
    server-sent events ending in `[DONE]`, a `Raw` as its bytes."""
    if isinstance(reply, Raw):
        return reply.content_type, reply.data
    if isinstance(reply, list):
        return "text/event-stream", ("".join("data: %s\n\n" % json.dumps(e) for e in reply) + "data: [DONE]\n\n").encode()
    return "application/json", json.dumps(reply).encode()


def parse_body(raw):
    try:
        return json.loads(raw or b"{}")
    except ValueError:
        return {"_unparsed": raw[:4000].decode("utf-8", "replace")}


class Handler(loopback.Handler):
    """Subclasses answer `route(path, headers, body)` with (classification, status, reply); see
    `encode_reply`. `get_reply` is the (status, JSON) every GET gets; `logged_headers` the
    request headers a model request's log entry keeps. Every request is logged (path,
    headers, body, classification; `seq` numbers them)."""

    get_reply = (200, {"object": "list", "data": []})
    logged_headers = ("authorization",)
    cache_control = "no-cache"

    def do_HEAD(self):
        self.send_response(200)
        self.send_header("content-length", "0")
        self.end_headers()

    def do_GET(self):
        self.record({"path": self.path, "method": "GET", "classification": "get"})
        status, reply = self.get_reply
        self.send_json(status, reply)

    def do_POST(self):
        body = parse_body(self.read_body())
        path = self.path.split("?")[0]
        headers = {k.lower(): v for k, v in self.headers.items()}
        if path.endswith("/v1/systemone"):
            self.record({"path": path, "headers": headers, "body": body, "classification": "jev"})
            self.send_json(200, jev_answer(body))
            return
        try:
            classification, status, reply = self.route(path, headers, body)
        except Exception as err:  # a broken script must show up in the log, not hang the client
            classification, status, reply = "error:" + repr(err), 500, {"error": {"message": "mock error"}}
        self.record({"path": path, "headers": {k: headers.get(k) for k in self.logged_headers},
                     "body": body, "classification": classification})
        self.send_bytes(status, *encode_reply(reply))

    def route(self, path, headers, body):
        return "unknown", 404, {"error": {"message": "mock", "type": "not_found"}}


def serve(handler, description=None):
    """A model mock's command line: `--log <file> --port-file <file>`, 127.0.0.1 on a free port."""
    return loopback.main(handler, description, seq=True)
