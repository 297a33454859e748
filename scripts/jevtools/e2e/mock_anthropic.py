"""A loopback stand-in for the Anthropic Messages API that plays a scripted model, plus a
loopback TypeSafe Jev scorer. Standard library only.

Messages API (`POST /v1/messages`, streaming SSE or plain JSON):
  The first user message carries `[mock-script:<path>]`; that JSON file holds
  `{"steps": [{"name": "<tool>", "input": {...}}, ...], "final": "<text>"}`.
  Each request is answered from the conversation so far, so no state is kept here:
    - the last user message carries Stop hook feedback  -> "continuation": plain text, end_turn
    - fewer tool calls made than steps                   -> "tool": the next tool_use
    - otherwise                                          -> "final": the final text, end_turn
  Requests without a script marker (side requests) get a short text answer ("side").
Jev (`POST /v1/systemone`): see model_mock.py.

Every request is appended to the log (JSON lines: path, headers, body, classification).
Usage: python3 -m jevtools.e2e.mock_anthropic --log <file> --port-file <file>   (binds 127.0.0.1 on a free port)
"""

import itertools
import json
import re
import sys

from jevtools.e2e.model_mock import Handler, Raw, serve

SCRIPT_RE = re.compile(r"\[mock-script:([^\]\s]+)\]")
FEEDBACK_MARKERS = ("Stop hook feedback", "Stop hook additional context", "Stop hook blocking error")
IDS = itertools.count(1)
NOT_FOUND = {"type": "error", "error": {"type": "not_found_error", "message": "mock"}}


def texts(message):
    content = message.get("content")
    if isinstance(content, str):
        return [content]
    out = []
    for block in content or []:
        if block.get("type") == "text":
            out.append(block.get("text", ""))
        elif block.get("type") == "tool_result":
            inner = block.get("content")
            if isinstance(inner, str):
                out.append(inner)
            elif isinstance(inner, list):
                out.extend(b.get("text", "") for b in inner if isinstance(b, dict))
    return out


def has_feedback(message):
    return any(marker in text for text in texts(message) for marker in FEEDBACK_MARKERS)


def trailing(messages):
    """The messages after the last assistant message: what is new in this request. Hook
    feedback arrives there as a user-role reminder and, for a block, a system-role note."""
    last = max((i for i, m in enumerate(messages) if m.get("role") == "assistant"), default=-1)
    return messages[last + 1:]


def plan(body):
    """(classification, content blocks, stop_reason) for one Messages request."""
    messages = body.get("messages") or []
    users = [m for m in messages if m.get("role") == "user"]
    script_path = None
    if users:
        for text in texts(users[0]):
            match = SCRIPT_RE.search(text)
            if match:
                script_path = match.group(1)
                break
    if script_path is None:
        return "side", [{"type": "text", "text": "ok"}], "end_turn"
    with open(script_path, encoding="utf-8") as f:
        script = json.load(f)
    if any(has_feedback(m) for m in trailing(messages)):
        text = script.get("continuation", "I looked at the flagged change again and found nothing to change.")
        return "continuation", [{"type": "text", "text": text}], "end_turn"
    made = sum(
        1 for m in messages if m.get("role") == "assistant"
        for b in (m.get("content") if isinstance(m.get("content"), list) else [])
        if b.get("type") == "tool_use"
    )
    steps = script.get("steps", [])
    if made < len(steps):
        step = steps[made]
        offered = {t.get("name") for t in body.get("tools") or []}
        if step["name"] not in offered:
            return "error:tool-not-offered:" + step["name"], [{"type": "text", "text": "tool missing"}], "end_turn"
        block = {"type": "tool_use", "id": "toolu_mock_%02d" % made, "name": step["name"], "input": step["input"]}
        return "tool", [block], "tool_use"
    return "final", [{"type": "text", "text": script.get("final", "Done.")}], "end_turn"


class AnthropicHandler(Handler):
    get_reply = (404, NOT_FOUND)

    def route(self, path, headers, body):
        if path.endswith("/v1/messages/count_tokens"):
            return "count_tokens", 200, {"input_tokens": 100}
        if not path.endswith("/v1/messages"):
            return "unknown", 404, NOT_FOUND
        try:
            classification, content, stop = plan(body)
        except Exception as err:  # a broken script must show up in the log, not hang the client
            classification, content, stop = "error:" + repr(err), [{"type": "text", "text": "mock error"}], "end_turn"
        model = body.get("model") or "claude-mock"
        # Every answer is a message of its own: Claude Code merges content blocks by message id.
        msg_id = "msg_mock_%d" % next(IDS)
        if body.get("stream"):
            return classification, 200, Raw("text/event-stream", stream(msg_id, model, content, stop))
        return classification, 200, {
            "id": msg_id, "type": "message", "role": "assistant", "model": model,
            "content": content, "stop_reason": stop, "stop_sequence": None,
            "usage": {"input_tokens": 100, "output_tokens": 20},
        }


def stream(msg_id, model, content, stop):
    """The Messages API's event stream for one answer."""
    events = [("message_start", {"type": "message_start", "message": {
        "id": msg_id, "type": "message", "role": "assistant", "model": model, "content": [],
        "stop_reason": None, "stop_sequence": None,
        "usage": {"input_tokens": 100, "output_tokens": 1}}})]
    for i, block in enumerate(content):
        if block["type"] == "text":
            events.append(("content_block_start", {"type": "content_block_start", "index": i,
                                                   "content_block": {"type": "text", "text": ""}}))
            events.append(("content_block_delta", {"type": "content_block_delta", "index": i,
                                                   "delta": {"type": "text_delta", "text": block["text"]}}))
        else:
            events.append(("content_block_start", {"type": "content_block_start", "index": i, "content_block": {
                "type": "tool_use", "id": block["id"], "name": block["name"], "input": {}}}))
            events.append(("content_block_delta", {"type": "content_block_delta", "index": i, "delta": {
                "type": "input_json_delta", "partial_json": json.dumps(block["input"])}}))
        events.append(("content_block_stop", {"type": "content_block_stop", "index": i}))
    events.append(("message_delta", {"type": "message_delta",
                                     "delta": {"stop_reason": stop, "stop_sequence": None},
                                     "usage": {"output_tokens": 20}}))
    events.append(("message_stop", {"type": "message_stop"}))
    return "".join("event: %s\ndata: %s\n\n" % (name, json.dumps(obj)) for name, obj in events)


if __name__ == "__main__":
    sys.exit(serve(AnthropicHandler, __doc__))
