#!/usr/bin/env python3
"""Scripted model server: the stand-in for the model providers, which tests cannot reach.

Answers on 127.0.0.1 from one scenario file, in three provider dialects, so the real runtime
CLIs run end to end offline:
  POST /v1/messages          Anthropic Messages API (runtime-a, Claude Code)
  POST /v1/responses         OpenAI Responses API (runtime-b, codex)
  POST /v1/chat/completions  OpenAI-compatible chat completions (runtime-c, opencode)
each streaming (SSE) or plain JSON as the request's "stream" asks. README.md here documents
every route and the scenario format.

Scenario (JSON): {"turns": [turn, ...], "aux": turn}. A request's reply is turns[k] where k
is the number of model replies already in the request (turn 1 = 0, after one tool round = 1).
Requests without tools (titles, summaries) get "aux". Optional: "agent" (a turn or turns) answers
requests whose tools include none named mcp__platform__* (app agents' runs); "after_user"
[{"contains", "turns"}] answers from the turns of the section whose substring the latest
user message holding one contains (in its text blocks), counting only the replies after it. A turn is
{"blocks": [{"type": "thinking"|"text"|"tool_use"|"pause", ...}], "stop_reason", "usage"}.
"{{NAME}}" in any string is replaced by --var NAME=value.

Every request is appended to --log as one JSON line with secrets (x-api-key, authorization,
cookie, ...) replaced by "[redacted]". The server stops after --max-requests requests or
--idle-exit seconds idle.
"""
import argparse
import gzip
import hashlib
import json
import os
import re
import sys
import threading
import time
import zlib
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


def substitute(value, variables):
    if isinstance(value, str):
        for k, v in variables.items():
            value = value.replace("{{" + k + "}}", v)
        return value
    if isinstance(value, list):
        return [substitute(x, variables) for x in value]
    if isinstance(value, dict):
        return {k: substitute(v, variables) for k, v in value.items()}
    return value


def assistant_replies(request):
    """Anthropic and chat completions: the model replies are the assistant messages."""
    return sum(1 for m in request.get("messages", []) or []
               if isinstance(m, dict) and m.get("role") == "assistant")


def tool_names(request):
    """The names of the request's tools in any dialect (Anthropic and Responses "name", chat
    completions "function.name")."""
    names = []
    for tool in request.get("tools") or []:
        if isinstance(tool, dict):
            name = tool.get("name") or (tool.get("function") or {}).get("name")
            if isinstance(name, str):
                names.append(name)
    return names


def human_text(message):
    """The text a person wrote in a user message: its text blocks, not its tool results (Claude
    Code sends the text typed after a tool's result in the same message as the result)."""
    if not isinstance(message, dict) or message.get("role") != "user":
        return ""
    content = message.get("content")
    if isinstance(content, str):
        return content
    if not isinstance(content, list):
        return ""
    return "\n".join(str(b.get("text", "")) for b in content
                     if isinstance(b, dict) and b.get("type") in ("text", "input_text"))


def chunks(text, size):
    return [text[i:i + size] for i in range(0, len(text), size)] or [""]


def chain(*iterables):
    for iterable in iterables:
        yield from iterable


class Script:
    def __init__(self, path, variables):
        with open(path) as f:
            self.data = substitute(json.load(f), variables)
        self.counter = 0
        self.lock = threading.Lock()
        self.pauses = {}

    def pause(self, name):
        with self.lock:
            return self.pauses.setdefault(name, threading.Event())

    def turn_for(self, request, previous=None):
        """previous: how many model replies the request already holds (default: Anthropic and
        chat completions style, the assistant messages in "messages")."""
        if not request.get("tools") and "aux" in self.data:
            return self.data["aux"]
        responses = previous is not None
        count = responses_previous_replies if responses else assistant_replies
        if previous is None:
            previous = count(request)
        turns = self.data.get("turns", [])
        if "agent" in self.data and not any(n.startswith("mcp__platform__") for n in tool_names(request)):
            # An app agent's run: its tools are the app's (mcp__app_data__, mcp__app_tools__),
            # never the builder's platform tools.
            turns = self.data["agent"] if isinstance(self.data["agent"], list) else [self.data["agent"]]
        elif self.data.get("after_user"):
            # The section of the latest person's message holding its substring; k counts the
            # model replies after that message.
            items = request.get("input") if responses else request.get("messages")
            items = items if isinstance(items, list) else []
            best = None
            for section in self.data["after_user"]:
                for i in range(len(items) - 1, -1, -1):
                    if section["contains"] in human_text(items[i]):
                        if best is None or i > best[0]:
                            best = (i, section)
                        break
            if best is not None:
                turns = best[1].get("turns", [])
                rest = items[best[0] + 1:]
                previous = count({"input": rest} if responses else {"messages": rest})
        if not turns:
            return {"blocks": [{"type": "text", "text": "(no scripted turn)"}], "stop_reason": "end_turn"}
        return turns[min(previous, len(turns) - 1)]

    def next_id(self):
        with self.lock:
            self.counter += 1
            return "msg_scripted%04d" % self.counter


def anthropic_events(turn, message_id, model, script):
    usage = dict(turn.get("usage") or {"input_tokens": 10, "output_tokens": 5})
    start_usage = dict(usage, output_tokens=1)
    yield "message_start", {"type": "message_start", "message": {
        "id": message_id, "type": "message", "role": "assistant", "model": model, "content": [],
        "stop_reason": None, "stop_sequence": None, "usage": start_usage}}
    index = -1
    for block in turn.get("blocks", []):
        kind = block["type"]
        if kind == "pause":
            # Holds the stream here until POST /control/release/<name>: tests attach viewers
            # mid-stream without guessing at timing.
            script.pause(block["name"]).wait(timeout=block.get("timeout", 120))
            continue
        index += 1
        if kind == "thinking":
            yield "content_block_start", {"type": "content_block_start", "index": index,
                                          "content_block": {"type": "thinking", "thinking": "", "signature": ""}}
            for n, piece in enumerate(chunks(block.get("thinking", ""), 12)):
                yield "content_block_delta", {"type": "content_block_delta", "index": index,
                                              "delta": {"type": "thinking_delta", "thinking": piece}}
                if n == 0 and "pause" in block:
                    # Held inside the open block: a test sees the reasoning still streaming.
                    script.pause(block["pause"]).wait(timeout=block.get("timeout", 120))
            yield "content_block_delta", {"type": "content_block_delta", "index": index,
                                          "delta": {"type": "signature_delta",
                                                    "signature": block.get("signature", "c2ln")}}
        elif kind == "text":
            yield "content_block_start", {"type": "content_block_start", "index": index,
                                          "content_block": {"type": "text", "text": ""}}
            for piece in chunks(block.get("text", ""), 12):
                yield "content_block_delta", {"type": "content_block_delta", "index": index,
                                              "delta": {"type": "text_delta", "text": piece}}
        elif kind == "tool_use":
            yield "content_block_start", {"type": "content_block_start", "index": index,
                                          "content_block": {"type": "tool_use", "id": block["id"],
                                                            "name": block["name"], "input": {}}}
            text = json.dumps(block.get("input", {}), separators=(",", ":"))
            for piece in [""] + chunks(text, 16):
                yield "content_block_delta", {"type": "content_block_delta", "index": index,
                                              "delta": {"type": "input_json_delta", "partial_json": piece}}
        yield "content_block_stop", {"type": "content_block_stop", "index": index}
    yield "message_delta", {"type": "message_delta",
                            "delta": {"stop_reason": turn.get("stop_reason", "end_turn"), "stop_sequence": None},
                            "usage": usage}
    yield "message_stop", {"type": "message_stop"}


def anthropic_message(turn, message_id, model):
    content = [dict(b) for b in turn.get("blocks", []) if b["type"] != "pause"]
    return {"id": message_id, "type": "message", "role": "assistant", "model": model, "content": content,
            "stop_reason": turn.get("stop_reason", "end_turn"), "stop_sequence": None,
            "usage": turn.get("usage") or {"input_tokens": 10, "output_tokens": 5}}


# ---- OpenAI dialects (Responses API for codex, chat completions for opencode) ----------

# Output items a model reply puts into a Responses API conversation; codex sends them back
# in "input" on the next request, next to user/developer messages and *_output items.
MODEL_ITEM_TYPES = {"reasoning", "function_call", "custom_tool_call", "tool_search_call",
                    "web_search_call", "local_shell_call", "image_generation_call",
                    "code_interpreter_call", "file_search_call", "computer_call", "mcp_call"}


SCRIPTED_ITEM_ID = re.compile(r"^[a-z]+_scripted(\d+)_\d+$")


def responses_previous_replies(request):
    """The number of model replies in a Responses API request. codex sends every earlier
    output item back in "input"; one reply is a run of model items (reasoning, assistant
    message, tool calls) up to the next user message or tool output. Items whose ids this
    server made ("fc_scripted0003_1") name their reply, so a reply's parallel calls stay one
    reply even if their outputs are interleaved with them."""
    items = request.get("input")
    if not isinstance(items, list):
        return 0
    count, inside, last = 0, False, None
    for item in items:
        model = isinstance(item, dict) and (
            item.get("type") in MODEL_ITEM_TYPES
            or ((item.get("type") or "message") == "message" and item.get("role") == "assistant"))
        if not model:
            inside = False
            continue
        match = SCRIPTED_ITEM_ID.match(str(item.get("id") or ""))
        reply = match.group(1) if match else None
        if reply is not None and reply == last:
            pass
        elif not inside or (reply is not None and last is not None):
            count += 1
        if reply is not None or not inside:
            last = reply
        inside = True
    return count


def openai_usage_numbers(turn):
    usage = turn.get("usage") or {"input_tokens": 10, "output_tokens": 5}
    cached = int(usage.get("cache_read_input_tokens") or 0)
    prompt = int(usage.get("input_tokens") or 0) + cached + int(usage.get("cache_creation_input_tokens") or 0)
    output = int(usage.get("output_tokens") or 0)
    reasoning = int(usage.get("reasoning_tokens") or 0)
    return prompt, cached, output, reasoning


def responses_usage(turn):
    prompt, cached, output, reasoning = openai_usage_numbers(turn)
    return {"input_tokens": prompt, "input_tokens_details": {"cached_tokens": cached},
            "output_tokens": output, "output_tokens_details": {"reasoning_tokens": reasoning},
            "total_tokens": prompt + output}


def chat_usage(turn):
    prompt, cached, output, reasoning = openai_usage_numbers(turn)
    return {"prompt_tokens": prompt, "completion_tokens": output, "total_tokens": prompt + output,
            "prompt_tokens_details": {"cached_tokens": cached},
            "completion_tokens_details": {"reasoning_tokens": reasoning}}


def tool_kinds(request):
    """name -> "function" | "custom" | "tool_search" from the request's tools."""
    kinds = {}
    for tool in request.get("tools") or []:
        if not isinstance(tool, dict):
            continue
        kind = tool.get("type", "function")
        if kind == "tool_search":
            kinds["tool_search"] = "tool_search"
        elif kind == "function":
            name = tool.get("name") or (tool.get("function") or {}).get("name")
            if name:
                kinds[name] = "function"
        elif kind == "custom" and tool.get("name"):
            kinds[tool["name"]] = "custom"
    return kinds


def tool_arguments(block):
    value = block.get("input", {})
    return value if isinstance(value, str) else json.dumps(value, separators=(",", ":"))


def responses_items(turn, response_id, request, script, wait):
    """Yields ("event", name, fields) for the stream and ("item", output_index, item) once an
    output item is complete. Pauses are honoured only when wait is true."""
    kinds = tool_kinds(request)
    index = -1
    for block in turn.get("blocks", []):
        kind = block["type"]
        if kind == "pause":
            if wait:
                script.pause(block["name"]).wait(timeout=block.get("timeout", 120))
            continue
        index += 1
        suffix = "%s_%d" % (response_id[len("resp_"):], index)
        if kind == "thinking":
            text = block.get("thinking", "")
            item_id = "rs_" + suffix
            yield "event", "response.output_item.added", {
                "output_index": index, "item": {"type": "reasoning", "id": item_id, "summary": []}}
            part = {"type": "summary_text", "text": ""}
            where = {"item_id": item_id, "output_index": index, "summary_index": 0}
            yield "event", "response.reasoning_summary_part.added", dict(where, part=part)
            for piece in chunks(text, 12):
                yield "event", "response.reasoning_summary_text.delta", dict(where, delta=piece)
            yield "event", "response.reasoning_summary_text.done", dict(where, text=text)
            yield "event", "response.reasoning_summary_part.done", dict(where, part=dict(part, text=text))
            item = {"type": "reasoning", "id": item_id, "summary": [{"type": "summary_text", "text": text}],
                    "encrypted_content": block.get("signature", "c2NyaXB0ZWQ=")}
        elif kind == "text":
            text = block.get("text", "")
            item_id = "msg_" + suffix
            yield "event", "response.output_item.added", {"output_index": index, "item": {
                "type": "message", "id": item_id, "role": "assistant", "status": "in_progress", "content": []}}
            where = {"item_id": item_id, "output_index": index, "content_index": 0}
            part = {"type": "output_text", "text": "", "annotations": []}
            yield "event", "response.content_part.added", dict(where, part=part)
            for piece in chunks(text, 12):
                yield "event", "response.output_text.delta", dict(where, delta=piece)
            yield "event", "response.output_text.done", dict(where, text=text)
            yield "event", "response.content_part.done", dict(where, part=dict(part, text=text))
            item = {"type": "message", "id": item_id, "role": "assistant", "status": "completed",
                    "content": [dict(part, text=text)]}
        elif kind == "tool_use":
            name = block["name"]
            call_id = block.get("id") or "call_" + suffix
            tool = kinds.get(name, "function")
            if tool == "tool_search":
                arguments = block.get("input", {})
                item = {"type": "tool_search_call", "id": "ts_" + suffix, "call_id": call_id,
                        "execution": "client", "arguments": arguments, "status": "completed"}
                yield "event", "response.output_item.added", {
                    "output_index": index, "item": dict(item, status="in_progress")}
            elif tool == "custom":
                text = tool_arguments(block)
                item_id = "ctc_" + suffix
                item = {"type": "custom_tool_call", "id": item_id, "call_id": call_id, "name": name,
                        "input": text, "status": "completed"}
                yield "event", "response.output_item.added", {
                    "output_index": index, "item": dict(item, input="", status="in_progress")}
                where = {"item_id": item_id, "output_index": index}
                for piece in chunks(text, 16):
                    yield "event", "response.custom_tool_call_input.delta", dict(where, delta=piece)
                yield "event", "response.custom_tool_call_input.done", dict(where, input=text)
            else:
                text = tool_arguments(block)
                item_id = "fc_" + suffix
                item = {"type": "function_call", "id": item_id, "call_id": call_id, "name": name,
                        "arguments": text, "status": "completed"}
                if block.get("namespace"):
                    item["namespace"] = block["namespace"]
                yield "event", "response.output_item.added", {
                    "output_index": index, "item": dict(item, arguments="", status="in_progress")}
                where = {"item_id": item_id, "output_index": index}
                for piece in chunks(text, 16):
                    yield "event", "response.function_call_arguments.delta", dict(where, delta=piece)
                yield "event", "response.function_call_arguments.done", dict(where, arguments=text)
        else:
            continue
        yield "event", "response.output_item.done", {"output_index": index, "item": item}
        yield "item", index, item


def responses_object(response_id, model, status, output, usage=None):
    return {"id": response_id, "object": "response", "created_at": int(time.time()), "status": status,
            "model": model, "output": output, "parallel_tool_calls": True, "usage": usage}


def responses_events(turn, response_id, model, request, script):
    sequence = 0
    created = responses_object(response_id, model, "in_progress", [])
    output = []
    steps = [("event", "response.created", {"response": created}),
             ("event", "response.in_progress", {"response": created})]
    for kind, name, fields in chain(steps, responses_items(turn, response_id, request, script, True)):
        if kind == "item":
            output.append(fields)
            continue
        yield name, dict({"type": name, "sequence_number": sequence}, **fields)
        sequence += 1
    done = responses_object(response_id, model, "completed", output, responses_usage(turn))
    yield "response.completed", {"type": "response.completed", "sequence_number": sequence, "response": done}


def responses_response(turn, response_id, model, request, script):
    output = [fields for kind, _, fields in responses_items(turn, response_id, request, script, False)
              if kind == "item"]
    return responses_object(response_id, model, "completed", output, responses_usage(turn))


CHAT_FINISH = {"end_turn": "stop", "stop_sequence": "stop", "tool_use": "tool_calls",
               "max_tokens": "length", "refusal": "content_filter"}


def chat_finish_reason(turn):
    if turn.get("stop_reason"):
        return CHAT_FINISH.get(turn["stop_reason"], "stop")
    if any(b.get("type") == "tool_use" for b in turn.get("blocks", [])):
        return "tool_calls"
    return "stop"


def chat_chunks(turn, completion_id, model, request, script):
    created = int(time.time())

    def chunk(delta, finish=None):
        return {"id": completion_id, "object": "chat.completion.chunk", "created": created, "model": model,
                "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]}

    yield chunk({"role": "assistant", "content": ""})
    tool_index = 0
    for number, block in enumerate(turn.get("blocks", [])):
        kind = block["type"]
        if kind == "pause":
            script.pause(block["name"]).wait(timeout=block.get("timeout", 120))
        elif kind == "thinking":
            for piece in chunks(block.get("thinking", ""), 12):
                yield chunk({"reasoning_content": piece})
        elif kind == "text":
            for piece in chunks(block.get("text", ""), 12):
                yield chunk({"content": piece})
        elif kind == "tool_use":
            call_id = block.get("id") or "call_%s_%d" % (completion_id[len("chatcmpl-"):], number)
            yield chunk({"tool_calls": [{"index": tool_index, "id": call_id, "type": "function",
                                         "function": {"name": block["name"], "arguments": ""}}]})
            for piece in chunks(tool_arguments(block), 16):
                yield chunk({"tool_calls": [{"index": tool_index, "function": {"arguments": piece}}]})
            tool_index += 1
    yield chunk({}, chat_finish_reason(turn))
    if (request.get("stream_options") or {}).get("include_usage"):
        yield {"id": completion_id, "object": "chat.completion.chunk", "created": created, "model": model,
               "choices": [], "usage": chat_usage(turn)}


def chat_completion(turn, completion_id, model):
    text = "".join(b.get("text", "") for b in turn.get("blocks", []) if b["type"] == "text")
    thinking = "".join(b.get("thinking", "") for b in turn.get("blocks", []) if b["type"] == "thinking")
    calls = [{"id": b.get("id") or "call_%s_%d" % (completion_id[len("chatcmpl-"):], n), "type": "function",
              "function": {"name": b["name"], "arguments": tool_arguments(b)}}
             for n, b in enumerate(turn.get("blocks", [])) if b["type"] == "tool_use"]
    message = {"role": "assistant", "content": text or None}
    if thinking:
        message["reasoning_content"] = thinking
    if calls:
        message["tool_calls"] = calls
    return {"id": completion_id, "object": "chat.completion", "created": int(time.time()), "model": model,
            "choices": [{"index": 0, "message": message, "finish_reason": chat_finish_reason(turn)}],
            "usage": chat_usage(turn)}


SECRET_HEADERS = ("x-api-key", "authorization", "proxy-authorization", "cookie", "api-key",
                  "openai-api-key", "chatgpt-account-id")


def openai_route(path):
    """"responses" | "chat" | None for a request path (base URLs with or without /v1)."""
    if path in ("/v1/responses", "/responses"):
        return "responses"
    if path in ("/v1/chat/completions", "/chat/completions"):
        return "chat"
    return None


def make_handler(script, log_path, state):
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, *args):
            pass

        def _log(self, body):
            # Secrets never reach the log: their headers are kept only as "[redacted]" so a
            # test can still tell that the CLI sent one.
            headers = {k.lower(): ("[redacted]" if k.lower() in SECRET_HEADERS else v)
                       for k, v in self.headers.items()}
            # Which secret it was, without the secret: the first 16 hex digits of its SHA-256
            # (a test compares them with the digest of the credential it expects).
            digests = {k.lower(): hashlib.sha256(v.encode()).hexdigest()[:16]
                       for k, v in self.headers.items() if k.lower() in SECRET_HEADERS}
            if log_path:
                with state["log_lock"], open(log_path, "a") as f:
                    f.write(json.dumps({"method": self.command, "path": self.path, "headers": headers,
                                        "secret_digests": digests, "body": body}) + "\n")

        def _json(self, status, payload):
            data = json.dumps(payload).encode()
            self.send_response(status)
            self.send_header("content-type", "application/json")
            self.send_header("content-length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def _oauth_token(self, body):
            """The provider's OAuth token endpoint (refresh of a CLI login): answers the script's
            "oauth" object ({"status", "reply"}), 404 without one. The refresh token is logged
            as its digest only."""
            logged = dict(body) if isinstance(body, dict) else {"invalid": True}
            if isinstance(logged.get("refresh_token"), str):
                logged["refresh_token"] = "sha256:" + hashlib.sha256(logged["refresh_token"].encode()).hexdigest()[:16]
            self._log(logged)
            oauth = script.data.get("oauth")
            if not isinstance(oauth, dict):
                return self._json(404, {"error": "not_found"})
            return self._json(oauth.get("status", 200), oauth.get("reply", {}))

        def _not_found(self, path):
            if openai_route(path) or path.startswith("/v1/models"):
                return self._json(404, {"error": {"message": "no such route: %s" % path,
                                                  "type": "invalid_request_error", "code": "not_found"}})
            return self._json(404, {"type": "error", "error": {"type": "not_found_error",
                                                               "message": "no such route"}})

        def _read_body(self):
            if "chunked" in (self.headers.get("transfer-encoding") or "").lower():
                raw = b""
                while True:
                    size = int(self.rfile.readline().split(b";")[0].strip() or b"0", 16)
                    if size == 0:
                        while self.rfile.readline() not in (b"\r\n", b"\n", b""):
                            pass
                        break
                    raw += self.rfile.read(size)
                    self.rfile.readline()
            else:
                length = int(self.headers.get("content-length") or 0)
                raw = self.rfile.read(length) if length else b""
            encoding = (self.headers.get("content-encoding") or "").lower()
            if encoding in ("gzip", "x-gzip"):
                raw = gzip.decompress(raw)
            elif encoding == "deflate":
                raw = zlib.decompress(raw)
            return raw

        def _sse(self, frames):
            self.send_response(200)
            self.send_header("content-type", "text/event-stream")
            self.send_header("cache-control", "no-cache")
            self.send_header("connection", "close")
            self.end_headers()
            for frame in frames:
                self.wfile.write(frame.encode())
                self.wfile.flush()
            self.close_connection = True

        def do_HEAD(self):
            self.send_response(200)
            self.send_header("content-length", "0")
            self.end_headers()

        def do_GET(self):
            state["last"] = time.time()
            if self.path == "/control/stats":
                return self._json(200, {"requests": state["requests"]})
            self._log(None)
            path = self.path.split("?")[0].rstrip("/")
            if path in ("/v1/models", "/models"):
                # Anthropic and OpenAI list shapes at once: {"data": [], "has_more": false}
                # is valid for both ("object": "list" is extra to Anthropic's clients).
                return self._json(200, {"object": "list", "data": [], "has_more": False})
            if path.startswith("/v1/models/") or path.startswith("/models/"):
                name = path.rsplit("/", 1)[1]
                return self._json(200, {"id": name, "object": "model", "type": "model", "created": 0,
                                        "owned_by": "scripted", "display_name": name,
                                        "created_at": "2025-01-01T00:00:00Z"})
            self._not_found(path)

        def do_POST(self):
            state["last"] = time.time()
            try:
                raw = self._read_body()
                body = json.loads(raw or b"{}")
            except (ValueError, OSError, zlib.error):
                return self._json(400, {"type": "error", "error": {"type": "invalid_request_error",
                                                                   "message": "invalid JSON"}})
            if self.path.startswith("/control/release/"):
                script.pause(self.path[len("/control/release/"):]).set()
                return self._json(200, {"released": True})
            if self.path.startswith("/control/arm/"):
                script.pause(self.path[len("/control/arm/"):]).clear()
                return self._json(200, {"armed": True})
            path = self.path.split("?")[0].rstrip("/")
            if path == "/v1/oauth/token":
                return self._oauth_token(body)
            self._log(body)
            with state["log_lock"]:
                state["requests"] += 1
            if path.endswith("/count_tokens"):
                return self._json(200, {"input_tokens": 100})
            if not isinstance(body, dict):
                return self._json(400, {"error": {"message": "body must be a JSON object",
                                                  "type": "invalid_request_error"}})
            model = body.get("model") or "scripted-model"
            route = openai_route(path)
            if route == "responses":
                turn = script.turn_for(body, responses_previous_replies(body))
                response_id = "resp_" + script.next_id()[len("msg_"):]
                if not body.get("stream"):
                    return self._json(200, responses_response(turn, response_id, model, body, script))
                return self._sse("event: %s\ndata: %s\n\n" % (name, json.dumps(event))
                                 for name, event in responses_events(turn, response_id, model, body, script))
            if route == "chat":
                turn = script.turn_for(body)
                completion_id = "chatcmpl-" + script.next_id()[len("msg_"):]
                if not body.get("stream"):
                    return self._json(200, chat_completion(turn, completion_id, model))
                return self._sse(chain(("data: %s\n\n" % json.dumps(chunk)
                                         for chunk in chat_chunks(turn, completion_id, model, body, script)),
                                        ["data: [DONE]\n\n"]))
            if path != "/v1/messages":
                return self._not_found(path)
            turn = script.turn_for(body)
            message_id = script.next_id()
            if not body.get("stream"):
                return self._json(200, anthropic_message(turn, message_id, model))
            self._sse("event: %s\ndata: %s\n\n" % (name, json.dumps(event))
                      for name, event in anthropic_events(turn, message_id, model, script))

    return Handler


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--script", required=True)
    ap.add_argument("--port", type=int, default=0)
    ap.add_argument("--log")
    ap.add_argument("--var", action="append", default=[])
    ap.add_argument("--max-requests", type=int, default=500)
    ap.add_argument("--idle-exit", type=float, default=300)
    ap.add_argument("--port-file", help="write the bound port here once listening")
    args = ap.parse_args()
    variables = dict(v.split("=", 1) for v in args.var)
    script = Script(args.script, variables)
    state = {"requests": 0, "last": time.time(), "log_lock": threading.Lock()}
    server = ThreadingHTTPServer(("127.0.0.1", args.port), make_handler(script, args.log, state))
    server.daemon_threads = True
    port = server.server_address[1]
    if args.port_file:
        with open(args.port_file + ".tmp", "w") as f:
            f.write(str(port))
        os.replace(args.port_file + ".tmp", args.port_file)
    print(port, flush=True)

    def watchdog():
        while True:
            time.sleep(0.5)
            if state["requests"] >= args.max_requests or time.time() - state["last"] > args.idle_exit:
                server.shutdown()
                return

    threading.Thread(target=watchdog, daemon=True).start()
    server.serve_forever()
    return 0


if __name__ == "__main__":
    sys.exit(main())
