#!/usr/bin/env python3
"""Scripted model server: the stand-in for the model providers, which tests cannot reach.

Speaks the Anthropic Messages API (POST /v1/messages, streaming SSE and plain JSON) on
127.0.0.1 and answers from a scenario file, so the real runtime CLIs run end to end offline.

Scenario (JSON): {"turns": [turn, ...], "aux": turn}. A request's reply is turns[k] where k
is the number of assistant messages already in the request (turn 1 = 0, after one tool
round = 1). Requests without tools (titles, summaries) get "aux". A turn is
{"blocks": [{"type": "thinking"|"text"|"tool_use", ...}], "stop_reason", "usage"}.
"{{NAME}}" in any string is replaced by --var NAME=value.

Every request is appended to --log as one JSON line with secrets (x-api-key, authorization)
removed. The server stops after --max-requests requests or --idle-exit seconds idle.
"""
import argparse
import json
import sys
import threading
import time
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


def chunks(text, size):
    return [text[i:i + size] for i in range(0, len(text), size)] or [""]


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

    def turn_for(self, request):
        if not request.get("tools") and "aux" in self.data:
            return self.data["aux"]
        assistants = sum(1 for m in request.get("messages", []) if m.get("role") == "assistant")
        turns = self.data.get("turns", [])
        if not turns:
            return {"blocks": [{"type": "text", "text": "(no scripted turn)"}], "stop_reason": "end_turn"}
        return turns[min(assistants, len(turns) - 1)]

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
            for piece in chunks(block.get("thinking", ""), 12):
                yield "content_block_delta", {"type": "content_block_delta", "index": index,
                                              "delta": {"type": "thinking_delta", "thinking": piece}}
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


def make_handler(script, log_path, state):
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, *args):
            pass

        def _log(self, body):
            headers = {k.lower(): v for k, v in self.headers.items()
                       if k.lower() not in ("x-api-key", "authorization", "cookie")}
            if log_path:
                with state["log_lock"], open(log_path, "a") as f:
                    f.write(json.dumps({"method": self.command, "path": self.path, "headers": headers,
                                        "body": body}) + "\n")

        def _json(self, status, payload):
            data = json.dumps(payload).encode()
            self.send_response(status)
            self.send_header("content-type", "application/json")
            self.send_header("content-length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def do_HEAD(self):
            self.send_response(200)
            self.send_header("content-length", "0")
            self.end_headers()

        def do_GET(self):
            state["last"] = time.time()
            if self.path == "/control/stats":
                return self._json(200, {"requests": state["requests"]})
            if self.path.startswith("/v1/models"):
                return self._json(200, {"data": [], "has_more": False})
            self._json(404, {"type": "error", "error": {"type": "not_found_error", "message": "no such route"}})

        def do_POST(self):
            state["last"] = time.time()
            length = int(self.headers.get("content-length") or 0)
            raw = self.rfile.read(length) if length else b""
            try:
                body = json.loads(raw or b"{}")
            except ValueError:
                return self._json(400, {"type": "error", "error": {"type": "invalid_request_error",
                                                                   "message": "invalid JSON"}})
            if self.path.startswith("/control/release/"):
                script.pause(self.path[len("/control/release/"):]).set()
                return self._json(200, {"released": True})
            if self.path.startswith("/control/arm/"):
                script.pause(self.path[len("/control/arm/"):]).clear()
                return self._json(200, {"armed": True})
            self._log(body)
            with state["log_lock"]:
                state["requests"] += 1
            path = self.path.split("?")[0]
            if path.endswith("/count_tokens"):
                return self._json(200, {"input_tokens": 100})
            if path != "/v1/messages":
                return self._json(404, {"type": "error", "error": {"type": "not_found_error",
                                                                   "message": "no such route"}})
            turn = script.turn_for(body)
            message_id = script.next_id()
            model = body.get("model", "scripted-model")
            if not body.get("stream"):
                return self._json(200, anthropic_message(turn, message_id, model))
            self.send_response(200)
            self.send_header("content-type", "text/event-stream")
            self.send_header("cache-control", "no-cache")
            self.send_header("connection", "close")
            self.end_headers()
            for name, event in anthropic_events(turn, message_id, model, script):
                self.wfile.write(("event: %s\ndata: %s\n\n" % (name, json.dumps(event))).encode())
                self.wfile.flush()
            self.close_connection = True

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
        import os
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
