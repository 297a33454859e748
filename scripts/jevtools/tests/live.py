"""A helper server of this package run in-process for a test: bound on 127.0.0.1 by
jevtools.loopback, served from a thread, its request log in a temporary directory."""

import http.client
import json
import os
import tempfile
import threading

from jevtools import loopback


class LiveServer:
    def __init__(self, handler, seq=False, **attributes):
        self.dir = tempfile.TemporaryDirectory(prefix="jevtools-test-")
        self.log_path = os.path.join(self.dir.name, "requests.jsonl")
        self.server = loopback.bind(handler, self.log_path, seq)
        for name, value in attributes.items():
            setattr(self.server, name, value)
        self.port = loopback.port_of(self.server)

    def __enter__(self):
        # A short poll interval: shutdown() waits for the serving loop to notice.
        threading.Thread(target=self.server.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True).start()
        return self

    def __exit__(self, *exc):
        self.server.shutdown()
        self.server.server_close()
        self.dir.cleanup()

    def request(self, method, target, body=None, headers=None):
        """(status, headers, body bytes) of one request on a fresh connection."""
        conn = http.client.HTTPConnection(loopback.HOST, self.port, timeout=10)
        try:
            data = json.dumps(body).encode() if isinstance(body, (dict, list)) else body
            conn.request(method, target, body=data, headers=headers or {})
            reply = conn.getresponse()
            return reply.status, {k.lower(): v for k, v in reply.getheaders()}, reply.read()
        finally:
            conn.close()

    def entries(self):
        if not os.path.exists(self.log_path):
            return []
        with open(self.log_path, encoding="utf-8") as f:
            return [json.loads(line) for line in f if line.strip()]
