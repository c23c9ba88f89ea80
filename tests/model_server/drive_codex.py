#!/usr/bin/env python3
"""A minimal `codex app-server` client for the smoke test (stdlib only).

Spawns `<codex> app-server` (stdio, newline-delimited JSON-RPC without "jsonrpc"), sends
initialize + initialized, thread/start {cwd, approvalPolicy, sandbox}, turn/start {threadId,
input}, answers server requests (approvals: accept), and writes every message the server sent
to --transcript as JSON lines until turn/completed. Closing stdin ends the server.

Exit 0 once turn/completed arrived (whatever its status), 1 on EOF, timeout or a JSON-RPC
error. CODEX_HOME and the provider key come from the environment.
"""
import argparse
import json
import queue
import subprocess
import sys
import threading
import time


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--codex", required=True)
    ap.add_argument("--cwd", required=True)
    ap.add_argument("--prompt", required=True)
    ap.add_argument("--transcript", required=True)
    ap.add_argument("--stderr", required=True)
    ap.add_argument("--approval-policy", default="never")
    ap.add_argument("--sandbox", default="workspace-write")
    ap.add_argument("--timeout", type=float, default=90)
    args = ap.parse_args()

    with open(args.stderr, "w") as err:
        proc = subprocess.Popen([args.codex, "app-server"], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                stderr=err, cwd=args.cwd, text=True, bufsize=1)
    lines = queue.Queue()

    def pump():
        for line in proc.stdout:
            lines.put(line)
        lines.put(None)

    threading.Thread(target=pump, daemon=True).start()
    deadline = time.monotonic() + args.timeout
    transcript = open(args.transcript, "w")

    def send(message):
        try:
            proc.stdin.write(json.dumps(message) + "\n")
            proc.stdin.flush()
        except BrokenPipeError:
            raise SystemExit("drive_codex: app-server closed its stdin (exit status %s)" % proc.poll())

    def wait_for(predicate, what):
        while True:
            try:
                line = lines.get(timeout=max(0.0, deadline - time.monotonic()))
            except queue.Empty:
                raise SystemExit("drive_codex: timed out waiting for %s" % what)
            if line is None:
                raise SystemExit("drive_codex: app-server exited while waiting for %s" % what)
            message = json.loads(line)
            transcript.write(json.dumps(message) + "\n")
            transcript.flush()
            if "method" in message and "id" in message:  # a server request: approve it
                if message["method"] == "mcpServer/elicitation/request":
                    send({"id": message["id"], "result": {"action": "accept", "content": None, "_meta": None}})
                else:
                    send({"id": message["id"], "result": {"decision": "accept"}})
                continue
            if "error" in message and "method" not in message:
                raise SystemExit("drive_codex: JSON-RPC error %s" % json.dumps(message["error"]))
            if predicate(message):
                return message

    try:
        send({"method": "initialize", "id": 0, "params": {
            "clientInfo": {"name": "platform_smoke", "title": "Platform smoke test", "version": "0.0.1"},
            "capabilities": {"experimentalApi": False}}})
        wait_for(lambda m: m.get("id") == 0, "the initialize response")
        send({"method": "initialized"})
        send({"method": "thread/start", "id": 1, "params": {
            "cwd": args.cwd, "approvalPolicy": args.approval_policy, "sandbox": args.sandbox}})
        thread = wait_for(lambda m: m.get("id") == 1, "the thread/start response")["result"]["thread"]
        send({"method": "turn/start", "id": 2, "params": {
            "threadId": thread["id"], "input": [{"type": "text", "text": args.prompt, "text_elements": []}]}})
        wait_for(lambda m: m.get("method") == "turn/completed", "turn/completed")
    finally:
        transcript.close()
        try:
            proc.stdin.close()
        except BrokenPipeError:
            pass
        try:
            proc.wait(timeout=15)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
    return 0


if __name__ == "__main__":
    sys.exit(main())
