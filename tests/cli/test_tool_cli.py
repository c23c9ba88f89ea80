#!/usr/bin/env python3
"""platformctl tool request: output shapes, exit codes and redaction.

Usage: test_tool_cli.py PATH_TO_PLATFORMCTL
"""
import json
import os
import subprocess
import sys
import tempfile
import unittest

PLATFORMCTL = None
SECRET = "sk-live-CANARY-4242"

AGENTS = {
    "appTools": [
        {
            "type": "custom",
            "name": "create_item",
            "displayName": "Create item",
            "description": "Creates an item in an organization",
            "enabled": True,
            "recommended": False,
            "integration": {"name": "Example", "domain": "api.example.com"},
            "endpoint": {
                "method": "POST",
                "url": "https://api.example.com/orgs/{{org}}/items",
                "headers": {"X-Api-Key": "{{secrets.EXAMPLE_KEY}}"},
                "queryParams": {"notify": "{{notify}}"},
                "body": {"title": "{{title}}", "count": "{{count}}", "note": "by {{user.name}}"},
            },
            "responseSchema": {"type": "object"},
            "mockData": [{"id": 1}, {"id": 2}, {"id": 3}],
        }
    ],
    "agents": [
        {
            "id": "helper",
            "name": "Helper",
            "description": "Checks the service",
            "systemPrompt": "Check the service when asked.",
            "tools": [
                {
                    "type": "custom",
                    "name": "status",
                    "description": "Service status",
                    "enabled": True,
                    "recommended": False,
                    "integration": {"name": "Example", "domain": "api.example.com"},
                    "endpoint": {
                        "method": "GET",
                        "url": "https://api.example.com/status",
                        "headers": {"Authorization": "Bearer {{secrets.EXAMPLE_KEY}}"},
                    },
                    "mockData": [{"ok": True}, {"ok": True}, {"ok": False}],
                }
            ],
        }
    ],
}

GOOD_INPUT = {"org": "ac me/x", "notify": True, "title": "T", "count": 3, "user": {"name": "Ann"}}


def run(*args, stdin=None):
    p = subprocess.run([PLATFORMCTL, "tool", "request", *args], input=stdin,
                       capture_output=True, text=True, timeout=60)
    return p.returncode, p.stdout, p.stderr


class ToolRequestCli(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.dir = tempfile.TemporaryDirectory()
        cls.agents = os.path.join(cls.dir.name, "agents.json")
        with open(cls.agents, "w") as f:
            json.dump(AGENTS, f)

    @classmethod
    def tearDownClass(cls):
        cls.dir.cleanup()

    def secrets(self):
        return json.dumps({"EXAMPLE_KEY": SECRET})

    def test_request_is_printed_with_secrets_redacted(self):
        code, out, _ = run(self.agents, "create_item", "--input", json.dumps(GOOD_INPUT),
                           "--secrets", self.secrets())
        self.assertEqual(code, 0)
        self.assertNotIn(SECRET, out)
        doc = json.loads(out)
        self.assertTrue(doc["ok"])
        req = doc["request"]
        self.assertEqual(req["method"], "POST")
        self.assertEqual(req["url"], "https://api.example.com/orgs/ac%20me%2Fx/items?notify=true")
        self.assertEqual(req["headers"], {"X-Api-Key": "[REDACTED:EXAMPLE_KEY]",
                                          "Content-Type": "application/json"})
        self.assertEqual(req["body"], {"title": "T", "count": 3, "note": "by Ann"})

    def test_agent_tool_from_stdin_with_equals_options(self):
        code, out, _ = run("-", "status", "--agent=helper", "--secrets=" + self.secrets(),
                           stdin=json.dumps(AGENTS))
        self.assertEqual(code, 0, out)
        req = json.loads(out)["request"]
        self.assertEqual(req["url"], "https://api.example.com/status")
        self.assertEqual(req["headers"], {"Authorization": "Bearer [REDACTED:EXAMPLE_KEY]"})
        self.assertIsNone(req["body"])

    def assert_result(self, args, code_expected, category):
        code, out, _ = run(*args)
        self.assertEqual(code, 1, out)
        self.assertNotIn(SECRET, out)
        doc = json.loads(out)
        self.assertFalse(doc["ok"])
        result = doc["result"]
        self.assertEqual(result["errorCode"], code_expected)
        self.assertEqual(result["errorCategory"], category)
        self.assertFalse(result["success"])
        self.assertFalse(result["mock"])
        self.assertFalse(result["retryable"])
        self.assertEqual(result["canRequestBuilderRepair"], category in ("input", "spec"))
        return result

    def test_missing_input_names_every_missing_path(self):
        result = self.assert_result([self.agents, "create_item", "--input", '{"org":"a"}',
                                     "--secrets", self.secrets()], "MISSING_INPUT", "input")
        self.assertEqual(result["details"]["missingInputs"], ["count", "notify", "title", "user.name"])

    def test_no_input_option_means_no_input(self):
        self.assert_result([self.agents, "create_item", "--secrets", self.secrets()],
                           "MISSING_INPUT", "input")

    def test_unexpected_input(self):
        self.assert_result([self.agents, "status", "--agent", "helper", "--input", '{"x":1}',
                            "--secrets", self.secrets()], "UNEXPECTED_INPUT", "input")

    def test_invalid_input(self):
        self.assert_result([self.agents, "create_item", "--input", "[1,2]", "--secrets", self.secrets()],
                           "INVALID_INPUT", "input")

    def test_missing_secret(self):
        result = self.assert_result([self.agents, "create_item", "--input", json.dumps(GOOD_INPUT)],
                                    "MISSING_SECRET", "configuration")
        self.assertEqual(result["details"]["missingSecrets"], ["EXAMPLE_KEY"])

    def test_secret_with_line_break_is_not_echoed(self):
        secrets = json.dumps({"EXAMPLE_KEY": SECRET + "\r\nX-Evil: 1"})
        self.assert_result([self.agents, "status", "--agent", "helper", "--secrets", secrets],
                           "INVALID_SECRET", "configuration")

    def test_unknown_tool_and_agent(self):
        code, out, _ = run(self.agents, "status")  # an agent tool, not an app tool
        self.assertEqual(code, 1)
        self.assertEqual(json.loads(out), {"ok": False, "error": {
            "code": "unknown_tool", "message": "no tool named status in appTools"}})
        code, out, _ = run(self.agents, "status", "--agent", "nobody")
        self.assertEqual(code, 1)
        self.assertEqual(json.loads(out)["error"]["code"], "unknown_agent")

    def test_invalid_agents_json_prints_violations(self):
        bad = os.path.join(self.dir.name, "bad.json")
        with open(bad, "w") as f:
            f.write("{}")
        code, out, _ = run(bad, "status")
        self.assertEqual(code, 1)
        doc = json.loads(out)
        self.assertFalse(doc["ok"])
        self.assertTrue(doc["violations"])

    def test_usage_and_io_errors_exit_2(self):
        cases = [
            [],
            [self.agents],
            [self.agents, "a", "b"],
            [self.agents, "create_item", "--secrets", "[1]"],
            [self.agents, "create_item", "--secrets", '{"K":1}'],
            [self.agents, "create_item", "--bogus", "1"],
            [self.agents, "create_item", "--input"],
            [os.path.join(self.dir.name, "missing.json"), "create_item"],
        ]
        for args in cases:
            with self.subTest(args=args):
                code, out, err = run(*args)
                self.assertEqual(code, 2)
                self.assertEqual(out, "")
                self.assertIn("platformctl:", err)
        p = subprocess.run([PLATFORMCTL, "tool", "frob"], capture_output=True, text=True, timeout=60)
        self.assertEqual(p.returncode, 2)


if __name__ == "__main__":
    if len(sys.argv) < 2:
        sys.exit("usage: test_tool_cli.py PATH_TO_PLATFORMCTL")
    PLATFORMCTL = os.path.abspath(sys.argv.pop(1))
    unittest.main(verbosity=1)
