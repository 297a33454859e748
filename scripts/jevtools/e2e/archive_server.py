"""Serves files over HTTPS on 127.0.0.1 behind an HTTP CONNECT proxy, so that Claude Code can
install an `archive` marketplace source offline. Claude Code refuses archive URLs on loopback
hosts, so the URL names a non-loopback host (e.g. `plugins.jev-preflight.test`) and the client
reaches it through `HTTPS_PROXY`; every CONNECT, whatever host it names, is tunnelled to the
local TLS server, whose certificate the client trusts through `NODE_EXTRA_CA_CERTS`: nothing
leaves the machine. Both listeners run on jevtools.loopback. Standard library only.

Usage: python3 -m jevtools.e2e.archive_server --dir <files> --cert <pem> --key <pem>
           --port-file <file> --log <file>
The port file receives `{"https": <port>, "proxy": <port>}`; the log one JSON line per request
(`"server": "https"` or `"proxy"`).
"""

import http.server
import socket
import ssl
import sys

from jevtools import loopback


class Files(loopback.Handler, http.server.SimpleHTTPRequestHandler):
    """The files of `--dir`, over TLS, as http.server serves a directory."""

    protocol_version = "HTTP/1.0"

    def __init__(self, request, client_address, server):
        super().__init__(request, client_address, server, directory=server.args.dir)

    def log_request(self, code="-", size="-"):
        self.record({"server": "https", "method": self.command, "path": self.path, "status": int(code)})

    def log_error(self, fmt, *args):
        self.record({"server": "https", "error": fmt % args})


class Proxy(loopback.Handler):
    """The HTTPS proxy the client is given: a CONNECT to any host is tunnelled to the local
    file server, so it ends on this machine; anything else is answered 405."""

    rbufsize = 0  # read the CONNECT head unbuffered: the bytes after it belong to the tunnel

    def leaves_machine(self):
        return False

    def parse_request(self):
        if not super().parse_request():
            return False
        self.record({"server": "proxy", "method": self.command, "path": self.path})
        if self.command != "CONNECT":
            self.close_connection = True
            self.send_response(405)
            self.send_header("content-length", "0")
            self.end_headers()
            return False
        return True

    def do_CONNECT(self):
        upstream = socket.create_connection((loopback.HOST, self.server.https_port))
        self.close_connection = True
        self.wfile.write(b"HTTP/1.1 200 Connection established\r\n\r\n")
        loopback.tunnel(self.connection, upstream)


def arguments(parser):
    for name in ("--dir", "--cert", "--key"):
        parser.add_argument(name, required=True)


def setup(https, args):
    """TLS on the file server, the proxy beside it; returns both ports for the port file."""
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(args.cert, args.key)
    https.socket = context.wrap_socket(https.socket, server_side=True)
    proxy = loopback.bind(Proxy, args.log)
    proxy.request_log = https.request_log  # one log, one lock
    proxy.https_port = loopback.port_of(https)
    loopback.serve_in_thread(proxy)
    return {"https": loopback.port_of(https), "proxy": loopback.port_of(proxy)}


if __name__ == "__main__":
    sys.exit(loopback.main(Files, __doc__, arguments, setup))
