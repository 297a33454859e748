"""The fake GitHub of the action test: comment threads with pagination and auth, release
downloads confined to --www."""

import json
import os
import tempfile
import types
import unittest

from jevtools.action import fake_github
from jevtools.tests.live import LiveServer

TOKEN = "ghs_test"


class StateTest(unittest.TestCase):
    def test_a_thread_starts_with_the_seeded_comments(self):
        state = fake_github.State(3)
        thread = state.thread("acme/shop", 7)
        self.assertEqual([c["id"] for c in thread], [1001, 1002, 1003])
        self.assertIs(state.thread("acme/shop", 7), thread)
        self.assertEqual(state.add("acme/shop", 7, "hi", "bot")["id"], 1004)
        self.assertEqual(state.thread("acme/shop", 8)[0]["id"], 1005)


class ServerTest(unittest.TestCase):
    def live(self, www):
        args = types.SimpleNamespace(www=www, token=TOKEN)
        return LiveServer(fake_github.Handler, args=args, state=fake_github.State(101))

    def test_comments_pages_auth_and_edits(self):
        auth = {"Authorization": "Bearer " + TOKEN}
        with tempfile.TemporaryDirectory() as www, self.live(www) as live:
            path = "/api/repos/acme/shop/issues/7/comments"
            self.assertEqual(live.request("GET", path)[0], 401)
            status, _, body = live.request("GET", path + "?per_page=100&page=2", headers=auth)
            self.assertEqual((status, len(json.loads(body))), (200, 1))
            status, _, body = live.request("POST", path, {"body": "report"}, auth)
            created = json.loads(body)
            self.assertEqual((status, created["user"]["login"]), (201, "github-actions[bot]"))
            status, _, body = live.request("PATCH", "/api/repos/acme/shop/issues/comments/%d" % created["id"],
                                           {"body": "report v2"}, auth)
            self.assertEqual((status, json.loads(body)["body"]), (200, "report v2"))
            self.assertEqual([(e["method"], e["authorization"]) for e in live.entries()],
                             [("GET", None), ("GET", auth["Authorization"]), ("POST", auth["Authorization"]),
                              ("PATCH", auth["Authorization"])])

    def test_release_downloads_stay_inside_www(self):
        with tempfile.TemporaryDirectory() as root:
            www = os.path.join(root, "www")
            os.makedirs(os.path.join(www, "v1.0.0"))
            with open(os.path.join(www, "v1.0.0", "SHA256SUMS"), "w") as f:
                f.write("sums\n")
            with open(os.path.join(root, "secret"), "w") as f:
                f.write("no\n")
            with self.live(www) as live:
                self.assertEqual(live.request("GET", "/releases/download/v1.0.0/SHA256SUMS")[::2], (200, b"sums\n"))
                self.assertEqual(live.request("GET", "/releases/download/%2e%2e/secret")[0], 404)
                self.assertEqual(live.request("GET", "/releases/download/v1.0.0/missing")[0], 404)


if __name__ == "__main__":
    unittest.main()
