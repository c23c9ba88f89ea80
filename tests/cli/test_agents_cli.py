#!/usr/bin/env python3
"""platformctl agents validate / setup validate: report shape and exit codes.

Usage: test_agents_cli.py PATH_TO_PLATFORMCTL
Runs against tests/data/agents/*.json and tests/data/setup/*.json.
"""
import json
import os
import subprocess
import sys
import unittest

PLATFORMCTL = None
DATA = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "data")


def agents(name):
    return os.path.join(DATA, "agents", name)


def setup(name):
    return os.path.join(DATA, "setup", name)


def run(*args, stdin=None):
    p = subprocess.run([PLATFORMCTL, *args], input=stdin, capture_output=True, text=True, timeout=60)
    return p.returncode, p.stdout, p.stderr


def report(stdout):
    doc = json.loads(stdout)
    assert set(doc) == {"ok", "violations"}, doc
    for v in doc["violations"]:
        assert set(v) == {"path", "code", "message"}, v
        assert v["message"], v
    return doc


def pairs(doc):
    return [(v["path"], v["code"]) for v in doc["violations"]]


class AgentsValidate(unittest.TestCase):
    def test_valid_file(self):
        code, out, _ = run("agents", "validate", agents("valid-full.json"))
        self.assertEqual(code, 0)
        self.assertEqual(report(out), {"ok": True, "violations": []})

    def test_valid_file_with_its_setup(self):
        code, out, _ = run("agents", "validate", agents("valid-full.json"), "--setup", setup("valid.json"))
        self.assertEqual(code, 0, out)
        self.assertTrue(report(out)["ok"])
        code, out, _ = run("agents", "validate", "--setup=" + setup("valid.json"), agents("valid-full.json"))
        self.assertEqual(code, 0, out)

    def test_stdin(self):
        with open(agents("valid-full.json")) as f:
            text = f.read()
        code, out, _ = run("agents", "validate", "-", stdin=text)
        self.assertEqual(code, 0)
        self.assertTrue(report(out)["ok"])
        code, out, _ = run("agents", "validate", "-", stdin="   \n")
        self.assertEqual(code, 1)
        self.assertEqual(pairs(report(out)), [("", "empty_document")])

    def test_every_violation_reported_with_paths(self):
        code, out, _ = run("agents", "validate", agents("invalid-many.json"))
        self.assertEqual(code, 1)
        doc = report(out)
        self.assertFalse(doc["ok"])
        expected = [
            ("agents[0].systemPrompt", "empty_value"),
            ("agents[0].tools[0].enabled", "wrong_type"),
            ("agents[0].tools[0].mockData", "too_few_mock_data"),
            ("agents[0].tools[0].endpoint.method", "invalid_method"),
            ("agents[0].tools[0].endpoint.url", "placeholder_in_url_host"),
            ('agents[0].tools[0].endpoint.headers["X-Api-Key"]', "hardcoded_credential"),
            ("agents[0].tools[1]", "builtin_beside_custom_tools"),
            ("agents[1].id", "duplicate_agent_id"),
            ("agents[1].tools[0].integration.auth.scopes", "oauth_scopes_empty"),
            ("agents[1].tools[0].endpoint.headers.AUTHORIZATION", "oauth_authorization_header"),
            ("agents[1].tools[0].endpoint.headers.AUTHORIZATION", "oauth_forbidden_placeholder"),
            ("appTools[0].timeout", "unknown_field"),
            ("appTools[0].name", "reserved_tool_name"),
            ("appTools[0].endpoint.url", "placeholder_unclosed"),
        ]
        self.assertEqual(pairs(doc), expected)
        self.assertNotIn("sk_live_literal", out)

    def test_broken_and_empty_files(self):
        code, out, _ = run("agents", "validate", agents("broken.json"))
        self.assertEqual(code, 1)
        self.assertEqual(pairs(report(out)), [("", "invalid_json")])
        code, out, _ = run("agents", "validate", agents("empty.json"))
        self.assertEqual(code, 1)
        self.assertEqual(pairs(report(out)), [("", "empty_document")])

    def test_static_tool_needs_secret_only_with_setup(self):
        code, out, _ = run("agents", "validate", agents("static-no-secret.json"))
        self.assertEqual(code, 0, out)
        code, out, _ = run("agents", "validate", agents("static-no-secret.json"), "--setup", setup("valid.json"))
        self.assertEqual(code, 1)
        self.assertEqual(pairs(report(out)), [("agents[0].tools[0].endpoint", "static_tool_without_secret")])

    def test_invalid_setup_is_reported_with_prefix(self):
        code, out, _ = run("agents", "validate", agents("static-no-secret.json"), "--setup", setup("invalid.json"))
        self.assertEqual(code, 1)
        doc = report(out)
        self.assertTrue(doc["violations"])
        self.assertTrue(all(v["path"].startswith("setup:") for v in doc["violations"]), doc)
        self.assertIn(("setup:integrations[0].domain", "invalid_domain"), pairs(doc))
        self.assertNotIn("never here", out)

    def test_io_and_usage_errors_exit_2(self):
        for args in (
            ("agents", "validate", agents("does-not-exist.json")),
            ("agents", "validate", agents("valid-full.json"), "--setup", setup("does-not-exist.json")),
            ("agents", "validate"),
            ("agents", "validate", agents("valid-full.json"), agents("empty.json")),
            ("agents", "validate", agents("valid-full.json"), "--strict"),
            ("agents", "validate", agents("valid-full.json"), "--setup"),
            ("agents", "lint", agents("valid-full.json")),
            ("agents",),
        ):
            with self.subTest(args=args):
                code, out, err = run(*args)
                self.assertEqual(code, 2)
                self.assertEqual(out, "")
                self.assertTrue(err.startswith("platformctl: "), err)


class SetupValidate(unittest.TestCase):
    def test_valid(self):
        code, out, _ = run("setup", "validate", setup("valid.json"))
        self.assertEqual(code, 0)
        self.assertEqual(report(out), {"ok": True, "violations": []})

    def test_invalid(self):
        code, out, _ = run("setup", "validate", setup("invalid.json"))
        self.assertEqual(code, 1)
        self.assertEqual(
            pairs(report(out)),
            [
                ("integrations[0].domain", "invalid_domain"),
                ("integrations[0].secrets[0].value", "unknown_field"),
                ("integrations[0].secrets[0].name", "invalid_secret_name"),
            ],
        )

    def test_stdin_and_empty(self):
        code, out, _ = run("setup", "validate", "-", stdin="{}")
        self.assertEqual(code, 1)
        self.assertEqual(pairs(report(out)), [("", "empty_document")])

    def test_errors_exit_2(self):
        for args in (
            ("setup", "validate", setup("does-not-exist.json")),
            ("setup", "validate"),
            ("setup", "check", setup("valid.json")),
            ("setup",),
        ):
            with self.subTest(args=args):
                code, out, _ = run(*args)
                self.assertEqual(code, 2)
                self.assertEqual(out, "")


if __name__ == "__main__":
    if len(sys.argv) < 2:
        sys.exit("usage: test_agents_cli.py PATH_TO_PLATFORMCTL")
    PLATFORMCTL = os.path.abspath(sys.argv.pop(1))
    unittest.main(verbosity=1)
