#!/usr/bin/env python3
"""A loopback stand-in for the two parts of GitHub the pull-request check talks to: release
downloads (`GET /releases/download/<tag>/<file>`, served from --www) and the issue-comment
REST calls under `/api` (list with pagination, create, edit), kept in memory. Standard
library only.

Every request is appended to the log (JSON lines: method, path, authorization, body).
Usage: fake_github.py --log <file> --port-file <file> --www <dir> --token <token>
                      [--seed-comments N]   (N unrelated comments on every pull request)
"""

import argparse
import json
import os
import re
import sys
import threading
import urllib.parse
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

LOCK = threading.Lock()
LIST_RE = re.compile(r"^/api/repos/([^/]+/[^/]+)/issues/(\d+)/comments$")
EDIT_RE = re.compile(r"^/api/repos/([^/]+/[^/]+)/issues/comments/(\d+)$")


class State:
    def __init__(self, seed):
        self.seed = seed
        self.comments = {}  # (repo, number) -> [comment]
        self.next_id = 1000

    def thread(self, repo, number):
        key = (repo, number)
        if key not in self.comments:
            self.comments[key] = []
            for _ in range(self.seed):
                self.add(repo, number, "an unrelated comment", "someone")
        return self.comments[key]

    def add(self, repo, number, body, user):
        self.next_id += 1
        comment = {"id": self.next_id, "body": body, "user": {"login": user}}
        self.comments.setdefault((repo, number), []).append(comment)
        return comment


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def record(self, body=None):
        entry = {"method": self.command, "path": self.path,
                 "authorization": self.headers.get("authorization"), "body": body}
        with LOCK:
            with open(self.server.log_path, "a", encoding="utf-8") as f:
                f.write(json.dumps(entry) + "\n")

    def reply(self, status, obj=None, raw=None, ctype="application/json"):
        data = raw if raw is not None else json.dumps(obj).encode()
        self.send_response(status)
        self.send_header("content-type", ctype)
        self.send_header("content-length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def body(self):
        length = int(self.headers.get("content-length") or 0)
        raw = self.rfile.read(length)
        try:
            return json.loads(raw or b"null")
        except ValueError:
            return {"_unparsed": raw.decode("utf-8", "replace")}

    def authorized(self):
        if self.headers.get("authorization") != "Bearer " + self.server.token:
            self.reply(401, {"message": "Bad credentials"})
            return False
        return True

    def do_GET(self):
        self.record()
        url = urllib.parse.urlsplit(self.path)
        if url.path.startswith("/releases/download/"):
            rel = urllib.parse.unquote(url.path[len("/releases/download/"):])
            path = os.path.realpath(os.path.join(self.server.www, rel))
            if not path.startswith(os.path.realpath(self.server.www) + os.sep) or not os.path.isfile(path):
                return self.reply(404, raw=b"Not Found", ctype="text/plain")
            with open(path, "rb") as f:
                return self.reply(200, raw=f.read(), ctype="application/octet-stream")
        match = LIST_RE.match(url.path)
        if match and self.authorized():
            query = urllib.parse.parse_qs(url.query)
            per_page = int(query.get("per_page", ["30"])[0])
            page = int(query.get("page", ["1"])[0])
            with LOCK:
                thread = self.server.state.thread(match.group(1), int(match.group(2)))
                return self.reply(200, thread[(page - 1) * per_page:page * per_page])
        if not match:
            self.reply(404, {"message": "Not Found"})

    def do_POST(self):
        body = self.body()
        self.record(body)
        match = LIST_RE.match(urllib.parse.urlsplit(self.path).path)
        if not match:
            return self.reply(404, {"message": "Not Found"})
        if self.authorized():
            with LOCK:
                self.server.state.thread(match.group(1), int(match.group(2)))
                comment = self.server.state.add(match.group(1), int(match.group(2)), body["body"], "github-actions[bot]")
            self.reply(201, comment)

    def do_PATCH(self):
        body = self.body()
        self.record(body)
        match = EDIT_RE.match(urllib.parse.urlsplit(self.path).path)
        if not match:
            return self.reply(404, {"message": "Not Found"})
        if self.authorized():
            with LOCK:
                for (repo, _), thread in self.server.state.comments.items():
                    for c in thread:
                        if repo == match.group(1) and c["id"] == int(match.group(2)):
                            c["body"] = body["body"]
                            return self.reply(200, c)
            self.reply(404, {"message": "Not Found"})

    def do_PUT(self):
        self.record()
        self.reply(405, {"message": "not used"})


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--log", required=True)
    parser.add_argument("--port-file", required=True)
    parser.add_argument("--www", required=True)
    parser.add_argument("--token", required=True)
    parser.add_argument("--seed-comments", type=int, default=0)
    args = parser.parse_args()
    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.log_path = args.log
    server.www = args.www
    server.token = args.token
    server.state = State(args.seed_comments)
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
