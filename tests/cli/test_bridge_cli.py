#!/usr/bin/env python3
"""platformctl bridge translate: the golden SSE of every fixture, from a file and from a pipe
that delivers the transcript in small pieces (the command streams: it must not depend on
reading the whole input at once), and clear errors on bad arguments.

Usage: test_bridge_cli.py PATH_TO_PLATFORMCTL
"""
import os
import subprocess
import sys
import threading
import unittest

PLATFORMCTL = None
ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
RUNTIMES = ("runtime-a", "runtime-b", "runtime-c")


def fixtures():
    for runtime in RUNTIMES:
        folder = os.path.join(ROOT, "data", "fixtures", runtime)
        for name in sorted(os.listdir(folder)):
            if name.endswith(".jsonl"):
                stem = name[: -len(".jsonl")]
                yield runtime, stem, os.path.join(folder, name), os.path.join(ROOT, "golden", runtime, stem + ".sse")


def translate(runtime, stem, path=None, data=None, piece=None):
    args = [PLATFORMCTL, "bridge", "translate", "--runtime", runtime, "--message-id", "msg-" + stem]
    if path:
        p = subprocess.run(args + [path], capture_output=True, timeout=60)
        return p.returncode, p.stdout, p.stderr
    proc = subprocess.Popen(args, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE)

    def feed():
        for i in range(0, len(data), piece):
            proc.stdin.write(data[i:i + piece])
            proc.stdin.flush()
        proc.stdin.close()

    writer = threading.Thread(target=feed)
    writer.start()
    out = proc.stdout.read()
    err = proc.stderr.read()
    writer.join()
    return proc.wait(timeout=60), out, err


class Golden(unittest.TestCase):
    def test_every_fixture_from_a_file(self):
        seen = 0
        for runtime, stem, path, golden in fixtures():
            if not os.path.exists(golden):
                continue
            with self.subTest(runtime=runtime, fixture=stem):
                code, out, err = translate(runtime, stem, path=path)
                self.assertEqual(code, 0, err)
                with open(golden, "rb") as g:
                    self.assertEqual(out, g.read())
                seen += 1
        self.assertGreater(seen, 20)

    def test_every_fixture_through_a_pipe_in_small_pieces(self):
        for runtime, stem, path, golden in fixtures():
            if not os.path.exists(golden):
                continue
            with self.subTest(runtime=runtime, fixture=stem):
                with open(path, "rb") as f:
                    data = f.read()
                code, out, err = translate(runtime, stem, data=data, piece=997)
                self.assertEqual(code, 0, err)
                with open(golden, "rb") as g:
                    self.assertEqual(out, g.read())


class Errors(unittest.TestCase):
    def test_missing_file(self):
        p = subprocess.run([PLATFORMCTL, "bridge", "translate", "--runtime", "runtime-a", "/nonexistent/x.jsonl"],
                           capture_output=True, text=True, timeout=60)
        self.assertEqual(p.returncode, 2)
        self.assertIn("cannot read /nonexistent/x.jsonl", p.stderr)
        self.assertEqual(p.stdout, "")

    def test_unknown_runtime(self):
        p = subprocess.run([PLATFORMCTL, "bridge", "translate", "--runtime", "runtime-z", "-"],
                           capture_output=True, text=True, timeout=60, input="")
        self.assertEqual(p.returncode, 2)
        self.assertIn("unknown runtime 'runtime-z'", p.stderr)


if __name__ == "__main__":
    PLATFORMCTL = os.path.abspath(sys.argv.pop(1))
    unittest.main()
