#!/usr/bin/env python3
"""Serves files over HTTPS on 127.0.0.1 behind an HTTP CONNECT proxy, so that Claude Code can
install an `archive` marketplace source offline. Claude Code refuses archive URLs on loopback
hosts, so the URL names a non-loopback host (e.g. `plugins.jev-preflight.test`) and the client
reaches it through `HTTPS_PROXY`; every CONNECT is tunnelled to the local TLS server, whose
certificate the client trusts through `NODE_EXTRA_CA_CERTS`. Standard library only.

Usage: archive_server.py --dir <files> --cert <pem> --key <pem> --port-file <file> --log <file>
The port file receives `{"https": <port>, "proxy": <port>}`.
"""

import argparse
import functools
import http.server
import json
import os
import select
import socket
import ssl
import sys
import threading


def tunnel(client, upstream):
    try:
        while True:
            ready, _, _ = select.select([client, upstream], [], [], 60)
            if not ready:
                return
            for sock in ready:
                data = sock.recv(65536)
                if not data:
                    return
                (upstream if sock is client else client).sendall(data)
    finally:
        client.close()
        upstream.close()


def serve_proxy(listener, https_port, log):
    while True:
        client, _ = listener.accept()
        threading.Thread(target=handle_connect, args=(client, https_port, log), daemon=True).start()


def handle_connect(client, https_port, log):
    head = b""
    while b"\r\n\r\n" not in head:
        chunk = client.recv(4096)
        if not chunk:
            client.close()
            return
        head += chunk
    line = head.split(b"\r\n", 1)[0].decode("latin-1")
    log("proxy " + line)
    if not line.startswith("CONNECT "):
        client.sendall(b"HTTP/1.1 405 Method Not Allowed\r\ncontent-length: 0\r\n\r\n")
        client.close()
        return
    upstream = socket.create_connection(("127.0.0.1", https_port))
    client.sendall(b"HTTP/1.1 200 Connection established\r\n\r\n")
    tunnel(client, upstream)


def main():
    parser = argparse.ArgumentParser()
    for name in ("--dir", "--cert", "--key", "--port-file", "--log"):
        parser.add_argument(name, required=True)
    args = parser.parse_args()
    lock = threading.Lock()

    def log(line):
        with lock, open(args.log, "a", encoding="utf-8") as f:
            f.write(line + "\n")

    class Files(http.server.SimpleHTTPRequestHandler):
        def log_message(self, fmt, *values):
            log("https " + (fmt % values))

    handler = functools.partial(Files, directory=args.dir)
    https = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(args.cert, args.key)
    https.socket = context.wrap_socket(https.socket, server_side=True)
    https.daemon_threads = True

    proxy = socket.socket()
    proxy.bind(("127.0.0.1", 0))
    proxy.listen(16)
    threading.Thread(target=serve_proxy, args=(proxy, https.server_address[1], log), daemon=True).start()

    with open(args.port_file + ".tmp", "w") as f:
        json.dump({"https": https.server_address[1], "proxy": proxy.getsockname()[1]}, f)
    os.replace(args.port_file + ".tmp", args.port_file)
    try:
        https.serve_forever()
    except KeyboardInterrupt:
        pass
    return 0


if __name__ == "__main__":
    sys.exit(main())
