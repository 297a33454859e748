"""The one loopback HTTP server every helper server of the test suites runs on: the model-API
mocks (jevtools.e2e.mock_*), the archive server behind its CONNECT proxy
(jevtools.e2e.archive_server) and the fake GitHub (jevtools.action.fake_github). Each of them
keeps only its protocol: a `Handler` subclass and, when it needs one, a `setup`.

`main(handler, …)` is a helper server's whole command line:

- `--log <file>`: every request the handler records is appended as one JSON object a line
  (`RequestLog`; the model mocks number their entries with `seq`);
- binds 127.0.0.1 on a free port (a threading server, daemon threads) and, once it listens,
  writes the port, or what `setup` returns (e.g. `{"https": …, "proxy": …}`), as JSON to
  `--port-file`, atomically: a reader sees the whole file or none;
- refuses what would leave the machine: a CONNECT, or a request in absolute form
  (`GET http://host/…`, what a client that was given this server as its proxy sends), is
  logged as `{"path", "method", "classification": "outbound"}` and answered 403;
- serves until it is terminated (the harness stops it by its pid) or interrupted.

Standard library only.
"""

import argparse
import json
import os
import select
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

HOST = "127.0.0.1"


class RequestLog:
    """Appends one JSON object a line to `path`, from any handler thread. With `seq`, each
    entry gets `"seq"`: 1, 2, … in the order the entries are written."""

    def __init__(self, path, seq=False):
        self.path = path
        self.seq = seq
        self.count = 0
        self.lock = threading.Lock()

    def write(self, entry):
        with self.lock:
            if self.seq:
                self.count += 1
                entry["seq"] = self.count
            with open(self.path, "a", encoding="utf-8") as f:
                f.write(json.dumps(entry) + "\n")


def leaves_machine(method, target):
    """Whether a request line asks this server to reach another host: a CONNECT, or a target
    in absolute form (`http://host/…`) rather than a path."""
    return method == "CONNECT" or target.startswith(("http://", "https://"))


class Handler(BaseHTTPRequestHandler):
    """The base of every helper server's handler: HTTP/1.1, nothing on stderr (the request log
    is the record), requests that would leave the machine refused before any `do_*` runs."""

    protocol_version = "HTTP/1.1"
    cache_control = None  # a `cache-control` header on every answer `send_bytes` sends

    def log_message(self, *args):
        pass

    def record(self, entry):
        self.server.request_log.write(entry)

    def parse_request(self):
        if not super().parse_request():
            return False
        if self.leaves_machine():
            self.refuse_outbound()
            return False
        return True

    def leaves_machine(self):
        return leaves_machine(self.command, self.path)

    def refuse_outbound(self):
        """Logged as "outbound" with the target it named, answered 403, connection closed."""
        self.record({"path": self.path, "method": self.command, "classification": "outbound"})
        self.close_connection = True
        self.send_response(403)
        self.send_header("connection", "close")
        self.send_header("content-length", "0")
        self.end_headers()

    def read_body(self):
        """The request body's bytes (as long as its content-length says)."""
        return self.rfile.read(int(self.headers.get("content-length") or 0))

    def send_bytes(self, status, content_type, data):
        self.send_response(status)
        self.send_header("content-type", content_type)
        if self.cache_control:
            self.send_header("cache-control", self.cache_control)
        self.send_header("content-length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def send_json(self, status, obj):
        self.send_bytes(status, "application/json", json.dumps(obj).encode())


def bind(handler, log_path, seq=False):
    """A threading HTTP server for `handler` on 127.0.0.1, a free port, logging to `log_path`."""
    server = ThreadingHTTPServer((HOST, 0), handler)
    server.daemon_threads = True
    server.request_log = RequestLog(log_path, seq)
    return server


def port_of(server):
    return server.server_address[1]


def serve_in_thread(server):
    """Serves `server` from a daemon thread (a second listener beside the main one)."""
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    return thread


def write_port_file(path, value):
    """`value` as JSON (a bare number for one port), written whole or not at all."""
    with open(path + ".tmp", "w") as f:
        f.write(json.dumps(value))
    os.replace(path + ".tmp", path)


def tunnel(client, upstream, idle=60):
    """Copies bytes both ways between two sockets until either side closes or nothing moves
    for `idle` seconds; closes `upstream` (the client's socket is its server's to close)."""
    try:
        while True:
            ready, _, _ = select.select([client, upstream], [], [], idle)
            if not ready:
                return
            for sock in ready:
                data = sock.recv(65536)
                if not data:
                    return
                (upstream if sock is client else client).sendall(data)
    except OSError:
        return
    finally:
        upstream.close()


def parser(description=None, arguments=None):
    """The helper servers' command line: `--log`, `--port-file`, and what `arguments(parser)`
    adds."""
    p = argparse.ArgumentParser(description=description, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--log", required=True, help="append the request log here (JSON lines)")
    p.add_argument("--port-file", required=True, help="write the port here (JSON) once listening")
    if arguments:
        arguments(p)
    return p


def main(handler, description=None, arguments=None, setup=None, seq=False, argv=None):
    """Runs one helper server (see the module's doc). `setup(server, args)` may prepare the
    server before it listens for requests (attributes the handler reads, TLS, a second
    listener) and return what the port file receives instead of the port. Returns the exit
    code."""
    args = parser(description, arguments).parse_args(argv)
    server = bind(handler, args.log, seq)
    server.args = args
    ports = setup(server, args) if setup else None
    write_port_file(args.port_file, port_of(server) if ports is None else ports)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        server.server_close()
    return 0
