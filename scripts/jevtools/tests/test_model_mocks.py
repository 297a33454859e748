"""The model-API mocks: what each scripted model answers at each point of a conversation (the
`plan` functions, pure), and the shared model handler on the loopback server (Jev endpoint,
answer encodings, the request log)."""

import json
import os
import tempfile
import unittest

from jevtools.e2e import mock_anthropic, mock_chat, mock_gemini, mock_responses, model_mock
from jevtools.tests.live import LiveServer

FEEDBACK = "jev-preflight scored the code change: auth_boundary 0.97 in src/api.py"


class ScriptFile:
    """A model script on disk, as the suites write one; `marker` goes into the prompt."""

    def __init__(self, script):
        self.dir = tempfile.TemporaryDirectory(prefix="jevtools-test-")
        self.path = os.path.join(self.dir.name, "model-script.json")
        with open(self.path, "w", encoding="utf-8") as f:
            json.dump(script, f)
        self.marker = "Please make the change. [mock-script:%s] (canary)" % self.path

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.dir.cleanup()


class JevTest(unittest.TestCase):
    def test_a_removed_admin_check_scores_auth_boundary_high(self):
        answer = model_mock.jev_answer({"state": {"diff": "-    if not request.user.is_admin:\n+    pass\n"}})
        self.assertEqual(answer["answers"]["auth_boundary"], {"noul": 0.97})
        self.assertEqual(answer["answers"]["regression_tests"], {"noul": 0.6})
        self.assertEqual(sorted(answer["answers"]), sorted(model_mock.AXES))

    def test_an_added_check_or_no_diff_scores_low(self):
        for body in ({"state": {"diff": "+    if not request.user.is_admin:\n"}}, {}, {"state": None}):
            answers = model_mock.jev_answer(body)["answers"]
            self.assertTrue(all(v == {"noul": 0.05} for v in answers.values()), body)


class EncodeReplyTest(unittest.TestCase):
    def test_dict_list_and_raw(self):
        self.assertEqual(model_mock.encode_reply({"a": 1}), ("application/json", b'{"a": 1}'))
        self.assertEqual(model_mock.encode_reply([{"a": 1}, {"b": 2}]),
                         ("text/event-stream", b'data: {"a": 1}\n\ndata: {"b": 2}\n\ndata: [DONE]\n\n'))
        self.assertEqual(model_mock.encode_reply(model_mock.Raw("text/event-stream", "event: x\n\n")),
                         ("text/event-stream", b"event: x\n\n"))

    def test_an_unparsable_body_is_kept_as_text(self):
        self.assertEqual(model_mock.parse_body(b"not json"), {"_unparsed": "not json"})
        self.assertEqual(model_mock.parse_body(b""), {})


class ModelHandlerTest(unittest.TestCase):
    def test_jev_requests_are_answered_and_logged_whole(self):
        with LiveServer(mock_chat.ChatHandler, seq=True) as live:
            body = {"state": {"files": ["src/api.py"], "diff": "-  require_auth()\n"}}
            status, headers, data = live.request("POST", "/api/v1/systemone", body, {"Authorization": "Bearer k"})
            self.assertEqual(status, 200)
            self.assertEqual(headers["cache-control"], "no-cache")
            self.assertEqual(json.loads(data)["answers"]["auth_boundary"], {"noul": 0.97})
            (entry,) = live.entries()
            self.assertEqual((entry["classification"], entry["path"], entry["body"], entry["seq"]),
                             ("jev", "/api/v1/systemone", body, 1))
            self.assertEqual(entry["headers"]["authorization"], "Bearer k")

    def test_model_requests_log_only_the_chosen_headers(self):
        with LiveServer(mock_chat.ChatHandler, seq=True) as live:
            body = {"model": "m", "stream": True, "messages": [{"role": "user", "content": "hi"}]}
            status, headers, data = live.request("POST", "/v1/chat/completions?x=1", body,
                                                 {"Authorization": "Bearer m", "X-Other": "y"})
            self.assertEqual((status, headers["content-type"]), (200, "text/event-stream"))
            self.assertTrue(data.endswith(b"data: [DONE]\n\n"))
            (entry,) = live.entries()
            self.assertEqual(entry, {"path": "/v1/chat/completions", "headers": {"authorization": "Bearer m"},
                                     "body": body, "classification": "side", "seq": 1})

    def test_a_broken_script_is_a_logged_500(self):
        with LiveServer(mock_chat.ChatHandler) as live:
            body = {"messages": [{"role": "user", "content": "[mock-script:/nonexistent/script.json]"}],
                    "tools": [{"type": "function", "function": {"name": "read_file"}}]}
            status, _, _ = live.request("POST", "/v1/chat/completions", body)
            self.assertEqual(status, 500)
            self.assertTrue(live.entries()[0]["classification"].startswith("error:FileNotFoundError"))

    def test_get_head_and_unknown_paths(self):
        with LiveServer(mock_gemini.GeminiHandler) as live:
            self.assertEqual(live.request("GET", "/v1beta/models")[0], 404)
            self.assertEqual(live.request("HEAD", "/")[0], 200)
            self.assertEqual(live.request("POST", "/v1beta/other", {})[0], 404)
            self.assertEqual([e["classification"] for e in live.entries()], ["get", "unknown"])


class AnthropicPlanTest(unittest.TestCase):
    TOOLS = [{"name": "Read"}, {"name": "Edit"}]

    def test_tool_then_final_then_continuation(self):
        script = {"steps": [{"name": "Read", "input": {"file_path": "/r/a.py"}}], "final": "Done it.",
                  "continuation": "Looked again."}
        with ScriptFile(script) as s:
            user = {"role": "user", "content": [{"type": "text", "text": s.marker}]}
            kind, blocks, stop = mock_anthropic.plan({"messages": [user], "tools": self.TOOLS})
            self.assertEqual((kind, stop), ("tool", "tool_use"))
            self.assertEqual(blocks, [{"type": "tool_use", "id": "toolu_mock_00", "name": "Read",
                                       "input": {"file_path": "/r/a.py"}}])
            turn = [user, {"role": "assistant", "content": blocks},
                    {"role": "user", "content": [{"type": "tool_result", "content": "file text"}]}]
            self.assertEqual(mock_anthropic.plan({"messages": turn, "tools": self.TOOLS})[:2],
                             ("final", [{"type": "text", "text": "Done it."}]))
            turn += [{"role": "assistant", "content": [{"type": "text", "text": "Done it."}]},
                     {"role": "user", "content": "Stop hook feedback:\n" + FEEDBACK}]
            self.assertEqual(mock_anthropic.plan({"messages": turn, "tools": self.TOOLS})[:2],
                             ("continuation", [{"type": "text", "text": "Looked again."}]))

    def test_side_requests_and_missing_tools(self):
        self.assertEqual(mock_anthropic.plan({"messages": [{"role": "user", "content": "title?"}]})[0], "side")
        with ScriptFile({"steps": [{"name": "Write", "input": {}}]}) as s:
            kind, _, _ = mock_anthropic.plan({"messages": [{"role": "user", "content": s.marker}], "tools": self.TOOLS})
            self.assertEqual(kind, "error:tool-not-offered:Write")

    def test_stream_events_carry_the_tool_input(self):
        block = {"type": "tool_use", "id": "toolu_mock_00", "name": "Read", "input": {"file_path": "/a"}}
        events = mock_anthropic.stream("msg_1", "m", [block], "tool_use")
        self.assertIn('"partial_json": "{\\"file_path\\": \\"/a\\"}"', events)
        self.assertTrue(events.endswith('event: message_stop\ndata: {"type": "message_stop"}\n\n'))


class ChatPlanTest(unittest.TestCase):
    TOOLS = [{"type": "function", "function": {"name": "write_file", "parameters": {
        "properties": {"file_path": {}, "content": {}}}}}]

    def test_path_is_mapped_onto_the_tools_own_parameter(self):
        call = mock_chat.tool_call({"name": "write_file", "args": {"path": "/r/a.py", "content": "x"}}, 3, self.TOOLS)
        self.assertEqual(call["id"], "call_mock_03")
        self.assertEqual(json.loads(call["function"]["arguments"]), {"file_path": "/r/a.py", "content": "x"})
        with self.assertRaises(LookupError):
            mock_chat.tool_call({"name": "edit", "args": {}}, 0, self.TOOLS)

    def test_one_continuation_after_feedback_with_its_own_steps(self):
        step = {"name": "write_file", "args": {"path": "/r/a.py", "content": "x"}}
        script = {"steps": [step], "final": "Done.", "continuation_steps": [step], "continuation": "Again."}
        with ScriptFile(script) as s:
            msgs = [{"role": "user", "content": s.marker}]
            kind, msg = mock_chat.plan({"messages": msgs, "tools": self.TOOLS})
            self.assertEqual(kind, "tool")
            msgs += [msg, {"role": "tool", "content": "ok"}]
            self.assertEqual(mock_chat.plan({"messages": msgs, "tools": self.TOOLS})[0], "final")
            msgs += [{"role": "assistant", "content": "Done."}, {"role": "user", "content": FEEDBACK}]
            kind, msg = mock_chat.plan({"messages": msgs, "tools": self.TOOLS})
            self.assertEqual(kind, "cont-tool")
            msgs += [msg, {"role": "tool", "content": "ok"}]
            self.assertEqual(mock_chat.plan({"messages": msgs, "tools": self.TOOLS}),
                             ("continuation", {"role": "assistant", "content": "Again."}))

    def test_requests_without_tools_are_side_requests(self):
        with ScriptFile({"steps": []}) as s:
            self.assertEqual(mock_chat.plan({"messages": [{"role": "user", "content": s.marker}]})[0], "side")

    def test_text_of_joins_parts(self):
        self.assertEqual(mock_chat.text_of({"content": [{"type": "text", "text": "a"}, {"text": "b"}]}), "a\nb")
        self.assertEqual(mock_chat.text_of({"content": None}), "")


class GeminiPlanTest(unittest.TestCase):
    TOOLS = [{"functionDeclarations": [{"name": "read_file"}, {"name": "write_file"}]}]

    def test_fill_answers_any_schema_and_the_user_speaks_next(self):
        schema = {"type": "OBJECT", "properties": {
            "next_speaker": {"type": "STRING"}, "n": {"type": "INTEGER", "minimum": 3},
            "ok": {"type": "BOOLEAN"}, "pick": {"type": "STRING", "enum": ["x", "y"]}, "xs": {"type": "ARRAY"}}}
        self.assertEqual(mock_gemini.fill(schema), {"next_speaker": "user", "n": 3, "ok": False, "pick": "x", "xs": []})
        kind, parts = mock_gemini.plan({"generationConfig": {"responseJsonSchema": schema}})
        self.assertEqual((kind, json.loads(parts[0]["text"])["next_speaker"]), ("side", "user"))

    def test_steps_final_and_continuation(self):
        script = {"steps": [{"name": "read_file", "args": {"file_path": "/a"}}], "final": "Done.",
                  "continuation": "Again."}
        with ScriptFile(script) as s:
            contents = [{"role": "user", "parts": [{"text": s.marker}]}]
            kind, parts = mock_gemini.plan({"contents": contents, "tools": self.TOOLS})
            self.assertEqual((kind, parts), ("tool", [{"functionCall": {"name": "read_file", "args": {"file_path": "/a"}}}]))
            contents += [{"role": "model", "parts": parts}, {"role": "user", "parts": [{"functionResponse": {}}]}]
            self.assertEqual(mock_gemini.plan({"contents": contents, "tools": self.TOOLS})[0], "final")
            contents += [{"role": "model", "parts": [{"text": "Done."}]}, {"role": "user", "parts": [{"text": FEEDBACK}]}]
            self.assertEqual(mock_gemini.plan({"contents": contents, "tools": self.TOOLS}),
                             ("continuation", [{"text": "Again."}]))

    def test_a_tool_not_offered_is_an_error(self):
        with ScriptFile({"steps": [{"name": "shell", "args": {}}]}) as s:
            kind, _ = mock_gemini.plan({"contents": [{"role": "user", "parts": [{"text": s.marker}]}],
                                        "tools": self.TOOLS})
            self.assertTrue(kind.startswith("error:tool-not-offered:shell"))


class ResponsesPlanTest(unittest.TestCase):
    TOOLS = [{"type": "function", "name": "exec_command"}]

    def test_function_calls_final_and_continuation(self):
        script = {"steps": [{"name": "exec_command", "arguments": {"cmd": "cat a"}}], "final": "Done.",
                  "continuation": "Again."}
        with ScriptFile(script) as s:
            items = [{"type": "message", "role": "user", "content": [{"type": "input_text", "text": s.marker}]}]
            kind, out = mock_responses.plan({"input": items, "tools": self.TOOLS})
            self.assertEqual(kind, "tool")
            self.assertEqual((out[0]["call_id"], json.loads(out[0]["arguments"])), ("call_mock_00", {"cmd": "cat a"}))
            items += [out[0], {"type": "function_call_output", "call_id": "call_mock_00", "output": "text"}]
            self.assertEqual(mock_responses.plan({"input": items, "tools": self.TOOLS})[0], "final")
            items += [mock_responses.message("Done."),
                      {"type": "message", "role": "user", "content": [{"type": "input_text", "text": FEEDBACK}]}]
            kind, out = mock_responses.plan({"input": items, "tools": self.TOOLS})
            self.assertEqual((kind, out[0]["content"][0]["text"]), ("continuation", "Again."))

    def test_a_string_input_without_marker_is_a_side_request(self):
        self.assertEqual(mock_responses.plan({"input": "summarize"})[0], "side")

    def test_stream_ends_with_completed(self):
        events = mock_responses.stream("resp_1", "m", [mock_responses.message("hi")])
        self.assertEqual([line.split(": ", 1)[1] for line in events.split("\n") if line.startswith("event: ")],
                         ["response.created", "response.output_item.done", "response.completed"])


if __name__ == "__main__":
    unittest.main()
