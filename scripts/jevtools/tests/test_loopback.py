"""The shared loopback server: request log, port file, the refusal of anything that would leave
the machine, and the archive server's CONNECT proxy (which ends every tunnel locally)."""

import json
import os
import socket
import tempfile
import threading
import unittest

from jevtools import loopback
from jevtools.e2e import archive_server
from jevtools.tests.live import LiveServer


class Echo(loopback.Handler):
    """Records and answers every GET with its path."""

    def do_GET(self):
        self.record({"path": self.path, "method": "GET"})
        self.send_json(200, {"path": self.path})


class RequestLogTest(unittest.TestCase):
    def test_seq_numbers_entries_in_write_order_across_threads(self):
        with tempfile.TemporaryDirectory() as d:
            log = loopback.RequestLog(os.path.join(d, "log"), seq=True)
            threads = [threading.Thread(target=lambda i=i: [log.write({"t": i}) for _ in range(25)]) for i in range(4)]
            for t in threads:
                t.start()
            for t in threads:
                t.join()
            with open(log.path) as f:
                entries = [json.loads(line) for line in f]
        self.assertEqual([e["seq"] for e in entries], list(range(1, 101)))

    def test_without_seq_entries_are_written_as_given(self):
        with tempfile.TemporaryDirectory() as d:
            log = loopback.RequestLog(os.path.join(d, "log"))
            log.write({"method": "GET", "path": "/"})
            with open(log.path) as f:
                self.assertEqual(f.read(), '{"method": "GET", "path": "/"}\n')


class PortFileTest(unittest.TestCase):
    def test_a_port_is_a_bare_number_and_ports_are_json(self):
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "port")
            loopback.write_port_file(path, 40123)
            with open(path) as f:
                self.assertEqual(f.read(), "40123")
            loopback.write_port_file(path, {"https": 1, "proxy": 2})
            with open(path) as f:
                self.assertEqual(json.load(f), {"https": 1, "proxy": 2})
            self.assertEqual(os.listdir(d), ["port"])  # no temporary file left behind


class LeavesMachineTest(unittest.TestCase):
    def test_connect_and_absolute_form_leave_the_machine(self):
        self.assertTrue(loopback.leaves_machine("CONNECT", "example.com:443"))
        self.assertTrue(loopback.leaves_machine("GET", "http://example.com/x"))
        self.assertTrue(loopback.leaves_machine("POST", "https://example.com/v1/messages"))

    def test_paths_stay(self):
        self.assertFalse(loopback.leaves_machine("GET", "/v1/models"))
        self.assertFalse(loopback.leaves_machine("POST", "/http/v1/messages"))
        self.assertFalse(loopback.leaves_machine("GET", "/?next=http://example.com"))


class ServerTest(unittest.TestCase):
    def test_binds_loopback_only(self):
        with LiveServer(Echo) as live:
            self.assertEqual(live.server.server_address[0], "127.0.0.1")
            self.assertTrue(live.server.daemon_threads)

    def test_requests_reach_the_handler_and_the_log(self):
        with LiveServer(Echo, seq=True) as live:
            status, _, body = live.request("GET", "/v1/models?x=1")
            self.assertEqual((status, json.loads(body)), (200, {"path": "/v1/models?x=1"}))
            self.assertEqual(live.entries(), [{"path": "/v1/models?x=1", "method": "GET", "seq": 1}])

    def test_connect_is_refused_and_logged_as_outbound(self):
        with LiveServer(Echo, seq=True) as live:
            status, headers, body = live.request("CONNECT", "api.example.com:443")
            self.assertEqual((status, body, headers.get("connection")), (403, b"", "close"))
            self.assertEqual(live.entries(), [
                {"path": "api.example.com:443", "method": "CONNECT", "classification": "outbound", "seq": 1}])

    def test_absolute_form_is_refused_before_the_handler_runs(self):
        with LiveServer(Echo) as live:
            status, _, _ = live.request("GET", "http://api.example.com/v1/models")
            self.assertEqual(status, 403)
            self.assertEqual(live.entries(), [
                {"path": "http://api.example.com/v1/models", "method": "GET", "classification": "outbound"}])

    def test_main_writes_the_port_file_and_serves(self):
        with tempfile.TemporaryDirectory() as d:
            port_file, log = os.path.join(d, "port"), os.path.join(d, "log")
            seen = {}

            def setup(server, args):
                seen["server"] = server
                self.assertEqual(args.extra, "x")

            def arguments(parser):
                parser.add_argument("--extra")

            thread = threading.Thread(target=loopback.main, args=(Echo,), kwargs=dict(
                arguments=arguments, setup=setup,
                argv=["--log", log, "--port-file", port_file, "--extra", "x"]), daemon=True)
            thread.start()
            for _ in range(500):
                if os.path.exists(port_file):
                    break
                threading.Event().wait(0.01)
            with open(port_file) as f:
                port = json.load(f)
            self.assertEqual(port, loopback.port_of(seen["server"]))
            with socket.create_connection(("127.0.0.1", port), timeout=5) as s:
                s.sendall(b"GET /ping HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
                reply = b""
                while True:
                    chunk = s.recv(4096)
                    if not chunk:
                        break
                    reply += chunk
            self.assertTrue(reply.startswith(b"HTTP/1.1 200"), reply)
            with open(log) as f:
                self.assertEqual(json.load(f), {"path": "/ping", "method": "GET"})
            seen["server"].shutdown()
            thread.join(5)
            self.assertFalse(thread.is_alive())


class ArchiveProxyTest(unittest.TestCase):
    """The proxy tunnels a CONNECT to any host to the local file server (plain TCP here: the
    tunnel does not care what it carries)."""

    def test_connect_is_tunnelled_to_the_local_server(self):
        with LiveServer(Echo) as upstream, LiveServer(archive_server.Proxy, https_port=None) as proxy:
            proxy.server.https_port = upstream.port
            with socket.create_connection(("127.0.0.1", proxy.port), timeout=5) as s:
                s.sendall(b"CONNECT plugins.jev-preflight.test:443 HTTP/1.1\r\nHost: plugins.jev-preflight.test:443\r\n\r\n")
                head = b""
                while b"\r\n\r\n" not in head:
                    head += s.recv(1)
                self.assertEqual(head, b"HTTP/1.1 200 Connection established\r\n\r\n")
                s.sendall(b"GET /file.zip HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
                reply = b""
                while True:
                    chunk = s.recv(4096)
                    if not chunk:
                        break
                    reply += chunk
            self.assertTrue(reply.startswith(b"HTTP/1.1 200"), reply[:100])
            self.assertTrue(reply.endswith(b'{"path": "/file.zip"}'), reply[-100:])
            self.assertEqual(proxy.entries(), [
                {"server": "proxy", "method": "CONNECT", "path": "plugins.jev-preflight.test:443"}])
            self.assertEqual(upstream.entries(), [{"path": "/file.zip", "method": "GET"}])

    def test_anything_but_connect_is_405(self):
        with LiveServer(archive_server.Proxy, https_port=1) as proxy:
            status, _, _ = proxy.request("GET", "http://plugins.jev-preflight.test/file.zip")
            self.assertEqual(status, 405)


if __name__ == "__main__":
    unittest.main()
