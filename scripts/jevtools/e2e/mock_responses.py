"""A loopback stand-in for the OpenAI Responses API (what Codex CLI speaks to a custom
`model_provider` with `wire_api = "responses"`) that plays a scripted model, plus the loopback
TypeSafe Jev scorer of model_mock.py. Standard library only.

Responses API (`POST <base_url>/responses`, streamed as SSE):
  The first user message carries `[mock-script:<path>]`; that JSON file holds
  `{"steps": [{"name": "<tool>", "arguments": {...}}, ...], "final": "<text>",
    "continuation": "<text>"}`.
  Each request is answered from the `input` items so far, so no state is kept here:
    - an item after the model last spoke carries hook feedback -> "continuation": text
    - fewer function calls made than steps                     -> "tool": the next function_call
    - otherwise                                                 -> "final": the final text
  Requests without a script marker (side requests) get a short text answer ("side").
Jev (`POST /v1/systemone`): see model_mock.py.

Every request is appended to the log (JSON lines: path, headers, body, classification).
Usage: python3 -m jevtools.e2e.mock_responses --log <file> --port-file <file>   (binds 127.0.0.1 on a free port)
"""

import itertools
import json
import re
import sys

from jevtools.e2e.model_mock import Handler, Raw, serve

SCRIPT_RE = re.compile(r"\[mock-script:([^\]\s]+)\]")
# The opening words of jev-preflight's continuation text (src/hook/answer.rs).
FEEDBACK_MARKER = "jev-preflight scored the code change"
IDS = itertools.count(1)


def item_texts(item):
    """The text an input item carries (messages and tool outputs)."""
    if item.get("type") == "function_call_output":
        out = item.get("output")
        return [out] if isinstance(out, str) else [json.dumps(out)]
    content = item.get("content")
    if isinstance(content, str):
        return [content]
    return [c.get("text", "") for c in content or [] if isinstance(c, dict)]


def spoke(item):
    """Whether the model produced this item."""
    return item.get("type") in ("function_call", "reasoning") or (
        item.get("type") == "message" and item.get("role") == "assistant")


def trailing(items):
    """The items after the model last spoke: what is new in this request."""
    last = max((i for i, it in enumerate(items) if spoke(it)), default=-1)
    return items[last + 1:]


def plan(body):
    """(classification, output items) for one Responses request."""
    items = body.get("input") or []
    if isinstance(items, str):
        items = [{"type": "message", "role": "user", "content": items}]
    script_path = None
    for it in items:
        if it.get("type") == "message" and it.get("role") == "user":
            for text in item_texts(it):
                match = SCRIPT_RE.search(text)
                if match:
                    script_path = match.group(1)
                    break
        if script_path:
            break
    if script_path is None:
        return "side", [message("ok")]
    with open(script_path, encoding="utf-8") as f:
        script = json.load(f)
    if any(FEEDBACK_MARKER in text for it in trailing(items) if it.get("type") == "message"
           for text in item_texts(it)):
        return "continuation", [message(script.get("continuation", "I looked again and found nothing to change."))]
    made = sum(1 for it in items if it.get("type") == "function_call")
    steps = script.get("steps", [])
    if made < len(steps):
        step = steps[made]
        offered = {t.get("name") for t in body.get("tools") or []}
        if step["name"] not in offered:
            return "error:tool-not-offered:" + step["name"], [message("tool missing")]
        return "tool", [{"type": "function_call", "id": "fc_mock_%02d" % made, "call_id": "call_mock_%02d" % made,
                         "name": step["name"], "arguments": json.dumps(step["arguments"])}]
    return "final", [message(script.get("final", "Done."))]


def message(text):
    return {"type": "message", "role": "assistant", "id": "msg_mock", "status": "completed",
            "content": [{"type": "output_text", "text": text, "annotations": []}]}


class ResponsesHandler(Handler):
    # `/models`: an empty catalog makes Codex fall back to its built-in model metadata.
    get_reply = (200, {"object": "list", "data": [], "models": []})

    def route(self, path, headers, body):
        if not path.endswith("/responses"):
            return "unknown", 404, {"error": {"message": "mock", "type": "not_found"}}
        try:
            classification, output = plan(body)
        except Exception as err:  # a broken script must show up in the log, not hang the client
            classification, output = "error:" + repr(err), [message("mock error")]
        return classification, 200, Raw("text/event-stream", stream("resp_mock_%d" % next(IDS), body.get("model") or "mock", output))


def stream(resp_id, model, output):
    """The Responses API's event stream for one answer."""
    events = [{"type": "response.created", "response": {"id": resp_id, "model": model}}]
    for item in output:
        events.append({"type": "response.output_item.done", "item": item})
    events.append({"type": "response.completed", "response": {
        "id": resp_id, "model": model,
        "usage": {"input_tokens": 100, "input_tokens_details": None, "output_tokens": 20,
                  "output_tokens_details": None, "total_tokens": 120}}})
    return "".join("event: %s\ndata: %s\n\n" % (e["type"], json.dumps(e)) for e in events)


if __name__ == "__main__":
    sys.exit(serve(ResponsesHandler, __doc__))
