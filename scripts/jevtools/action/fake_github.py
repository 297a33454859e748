"""A loopback stand-in for the two parts of GitHub the pull-request check talks to: release
downloads (`GET /releases/download/<tag>/<file>`, served from --www) and the issue-comment
REST calls under `/api` (list with pagination, create, edit), kept in memory. Runs on
jevtools.loopback. Standard library only.

Every request is appended to the log (JSON lines: method, path, authorization, body).
Usage: python3 -m jevtools.action.fake_github --log <file> --port-file <file> --www <dir> --token <token>
           [--seed-comments N]   (N unrelated comments on every pull request)
"""

import json
import os
import re
import sys
import threading
import urllib.parse

from jevtools import loopback

LOCK = threading.Lock()  # the comment threads
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


class Handler(loopback.Handler):
    def entry(self, body=None):
        self.record({"method": self.command, "path": self.path,
                     "authorization": self.headers.get("authorization"), "body": body})

    def reply(self, status, obj=None, raw=None, ctype="application/json"):
        self.send_bytes(status, ctype, raw if raw is not None else json.dumps(obj).encode())

    def body(self):
        raw = self.read_body()
        try:
            return json.loads(raw or b"null")
        except ValueError:
            return {"_unparsed": raw.decode("utf-8", "replace")}

    def authorized(self):
        if self.headers.get("authorization") != "Bearer " + self.server.args.token:
            self.reply(401, {"message": "Bad credentials"})
            return False
        return True

    def do_GET(self):
        self.entry()
        url = urllib.parse.urlsplit(self.path)
        if url.path.startswith("/releases/download/"):
            rel = urllib.parse.unquote(url.path[len("/releases/download/"):])
            path = os.path.realpath(os.path.join(self.server.args.www, rel))
            if not path.startswith(os.path.realpath(self.server.args.www) + os.sep) or not os.path.isfile(path):
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
        self.entry(body)
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
        self.entry(body)
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
        self.entry()
        self.reply(405, {"message": "not used"})


def arguments(parser):
    parser.add_argument("--www", required=True)
    parser.add_argument("--token", required=True)
    parser.add_argument("--seed-comments", type=int, default=0)


def setup(server, args):
    server.state = State(args.seed_comments)


if __name__ == "__main__":
    sys.exit(loopback.main(Handler, __doc__, arguments, setup))
