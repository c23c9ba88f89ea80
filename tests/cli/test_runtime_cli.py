#!/usr/bin/env python3
"""platformctl runtime normalize|list|usage: output shapes and exit codes.

Usage: test_runtime_cli.py PATH_TO_PLATFORMCTL
"""
import json
import os
import subprocess
import sys
import tempfile
import unittest

PLATFORMCTL = None
DATA = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "data", "runtime")


def data(name):
    return os.path.join(DATA, name)


def run(*args, stdin=None):
    p = subprocess.run([PLATFORMCTL, "runtime", *args], input=stdin, capture_output=True, text=True, timeout=60)
    return p.returncode, p.stdout, p.stderr


def run_json(*args, expect=0):
    code, out, err = run(*args)
    if code != expect:
        raise AssertionError(f"exit {code} (wanted {expect}) for {args}: {out} {err}")
    lines = out.splitlines()
    if len(lines) != 1:
        raise AssertionError(f"expected one JSON line, got {out!r}")
    return json.loads(lines[0])


class Normalize(unittest.TestCase):
    def test_defaults(self):
        j = run_json("normalize", "--runtime", "runtime-a")
        self.assertEqual(j["settings"], {"runtimeId": "runtime-a", "runtimeModel": "claude-opus-5-5",
                                         "runtimeParams": {"effort": "xhigh", "thinking": "adaptive"}})
        self.assertEqual(j["downgrades"], [])
        self.assertEqual(j["args"], ["--output-format", "stream-json", "--verbose", "--input-format", "stream-json",
                                     "--include-partial-messages", "--model=claude-opus-5-5", "--effort=xhigh",
                                     "--thinking=adaptive", "--thinking-display=summarized"])
        self.assertEqual(j["protocolParams"], {})

    def test_downgrades(self):
        j = run_json("normalize", "--runtime", "runtime-a", "--model", "sonnet", "--param", "effort=xhigh",
                     "--param=thinking=enabled")
        self.assertEqual(j["settings"]["runtimeModel"], "claude-sonnet-5-5")
        self.assertEqual(j["settings"]["runtimeParams"], {"effort": "high", "thinking": "enabled"})
        self.assertEqual([(d["param"], d["from"], d["to"]) for d in j["downgrades"]], [("effort", "xhigh", "high")])
        self.assertIn("--max-thinking-tokens=31999", j["args"])
        j = run_json("normalize", "--runtime", "runtime-a", "--param", "thinking=enabled")
        self.assertEqual(j["downgrades"][0]["to"], "adaptive")

    def test_runtime_b(self):
        j = run_json("normalize", "--runtime", "runtime-b", "--param", "sandboxMode=read-only",
                     "--param", "reasoningEffort=high")
        self.assertEqual(j["args"], ["app-server"])
        self.assertEqual(j["protocolParams"]["thread"], {"model": "gpt-5.5", "sandbox": "read-only"})
        self.assertEqual(j["protocolParams"]["turn"]["effort"], "high")

    def test_runtime_c_needs_catalog(self):
        j = run_json("normalize", "--runtime", "runtime-c", expect=1)
        self.assertEqual(j["error"]["code"], "unknown_model")
        j = run_json("normalize", "--runtime", "runtime-c", "--models-file", data("opencode-models-verbose-mock.txt"))
        self.assertEqual(j["args"], ["run", "--format", "json", "--thinking", "--model", "mock/mock-model"])
        j = run_json("normalize", "--runtime", "runtime-c", "--models-file", data("opencode-models-verbose-mock.txt"),
                     "--param", "variant=low")
        self.assertEqual(j["args"][-2:], ["--variant", "low"])

    def test_catalog_from_stdin_and_bad_catalog(self):
        with open(data("opencode-models-verbose-mock.txt")) as f:
            text = f.read()
        code, out, _ = run("normalize", "--runtime", "runtime-c", "--models-file", "-", stdin=text)
        self.assertEqual(code, 0)
        self.assertEqual(json.loads(out)["settings"]["runtimeModel"], "mock/mock-model")
        j = run_json("normalize", "--runtime", "runtime-c", "--models-file", data("opencode-models-unknown-provider.txt"),
                     expect=1)
        self.assertEqual(j["error"], {"code": "opencode_models_error", "message": "Provider not found: nosuch"})

    def test_invalid_settings_exit_1(self):
        cases = [
            (("--runtime", "runtime-z"), "unknown_runtime"),
            (("--runtime", "runtime-a", "--model", "gpt-5.5"), "unknown_model"),
            (("--runtime", "runtime-a", "--param", "sandboxMode=read-only"), "unknown_param"),
            (("--runtime", "runtime-a", "--param", "effort=ultra"), "invalid_param_value"),
            (("--runtime", "runtime-b", "--param", "sandboxMode=workspaceWrite"), "invalid_param_value"),
        ]
        for args, code in cases:
            with self.subTest(args=args):
                j = run_json("normalize", *args, expect=1)
                self.assertEqual(j["error"]["code"], code)
                self.assertTrue(j["error"]["message"])

    def test_usage_errors_exit_2(self):
        cases = [
            ("normalize",),
            ("normalize", "--runtime", "runtime-a", "--param", "effort"),
            ("normalize", "--runtime", "runtime-a", "--param", "=x"),
            ("normalize", "--runtime", "runtime-a", "--param", "effort=high", "--param", "effort=low"),
            ("normalize", "--runtime", "runtime-a", "extra"),
            ("normalize", "--runtime", "runtime-a", "--frob", "1"),
            ("normalize", "--runtime", "runtime-c", "--models-file", "/nonexistent/models.txt"),
            ("frob",),
            (),
        ]
        for args in cases:
            with self.subTest(args=args):
                code, out, err = run(*args)
                self.assertEqual(code, 2)
                self.assertEqual(out, "")
                self.assertIn("platformctl:", err)


class List(unittest.TestCase):
    def test_registry(self):
        j = run_json("list")
        self.assertEqual([r["id"] for r in j["runtimes"]], ["runtime-a", "runtime-b", "runtime-c"])
        a = j["runtimes"][0]
        self.assertEqual(a["defaultModel"], "claude-opus-5-5")
        models = {m["id"]: m for m in a["models"]}
        self.assertEqual(models["claude-opus-5-5"]["params"]["effort"]["values"],
                         ["low", "medium", "high", "xhigh", "max"])
        self.assertEqual(models["claude-haiku-5-5"]["params"]["thinking"], {"values": ["disabled"], "default": "disabled"})
        self.assertEqual(j["runtimes"][2]["models"], [])

    def test_with_catalog(self):
        j = run_json("list", "--models-file", data("opencode-models-verbose-mock.txt"))
        c = j["runtimes"][2]
        self.assertEqual(c["defaultModel"], "mock/mock-model")
        self.assertEqual(c["models"][0]["params"]["variant"]["values"], ["low", "medium", "high", "auto"])
        self.assertEqual(c["models"][0]["pricing"]["outputPerMTok"], 2)


class Usage(unittest.TestCase):
    def test_runtime_a_multi_turn(self):
        j = run_json("usage", "--runtime", "runtime-a", data("runtime-a-cli-multi-turn.jsonl"))
        self.assertEqual(len(j["turns"]), 2)
        self.assertAlmostEqual(j["total"]["totalCostUsd"], 0.00747, places=9)
        self.assertEqual(j["total"]["totalInputTokens"], 2250)

    def test_runtime_c_and_unknown_pricing(self):
        j = run_json("usage", "--runtime", "runtime-c", "--models-file", data("opencode-models-verbose-mock.txt"),
                     data("runtime-c-tool-bash-write.jsonl"))
        self.assertAlmostEqual(j["total"]["totalCostUsd"], 0.00637, places=9)
        self.assertEqual(list(j["total"]["byModel"]), ["mock/mock-model"])
        j = run_json("usage", "--runtime", "runtime-b", "--model", "gpt-9", data("runtime-b-text-reasoning.jsonl"))
        # thread/started names the model of the thread: gpt-5.5 is priced.
        self.assertNotIn("costUnknownModels", j["total"])
        with tempfile.NamedTemporaryFile("w", suffix=".jsonl", delete=False) as f:
            f.write('{"method":"turn/started","params":{"turn":{"id":"U"}}}\n'
                    '{"method":"thread/tokenUsage/updated","params":{"turnId":"U","tokenUsage":{"last":{"inputTokens":10,"outputTokens":1}}}}\n'
                    '{"method":"turn/completed","params":{"turn":{"id":"U"}}}\n')
        try:
            j = run_json("usage", "--runtime", "runtime-b", "--model", "gpt-9", f.name)
        finally:
            os.unlink(f.name)
        self.assertEqual(j["total"]["costUnknownModels"], ["gpt-9"])
        self.assertEqual(j["total"]["totalCostUsd"], 0)
        self.assertEqual(j["total"]["totalInputTokens"], 10)

    def test_unknown_runtime(self):
        j = run_json("usage", "--runtime", "runtime-z", data("runtime-c-text-reasoning.jsonl"), expect=1)
        self.assertEqual(j["error"]["code"], "unknown_runtime")


if __name__ == "__main__":
    if len(sys.argv) < 2:
        sys.exit("usage: test_runtime_cli.py PATH_TO_PLATFORMCTL")
    PLATFORMCTL = os.path.abspath(sys.argv.pop(1))
    unittest.main(verbosity=1)
