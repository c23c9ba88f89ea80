#!/usr/bin/env python3
"""platformctl bridge translate as a user runs it: a runtime-a transcript file (the fixtures'
stream events repeated to SIZE MB, the hot path of a turn) → SSE on stdout (/dev/null), whole
process timed, best and median of RUNS, and the process's peak RSS, for each size: memory must
stay flat whatever the input size.

Usage: platformctl_bench.py PLATFORMCTL FIXTURES_DIR [SIZE_MB ...] (default 50 500)
"""
import glob
import os
import statistics
import subprocess
import sys
import tempfile
import time

RUNS = 5


def transcript(fixtures, size_mb, path):
    lines = []
    for f in sorted(glob.glob(os.path.join(fixtures, "runtime-a", "*.jsonl"))):
        with open(f, "rb") as fh:
            lines += [l if l.endswith(b"\n") else l + b"\n" for l in fh if l.startswith(b'{"type":"stream_event"')]
    blob = b"".join(lines)
    written = 0
    with open(path, "wb") as out:
        while written < size_mb * 1_000_000:
            out.write(blob)
            written += len(blob)
    return written


def seconds(cmd):
    t = time.perf_counter()
    subprocess.run(cmd, stdout=subprocess.DEVNULL, check=True)
    return time.perf_counter() - t


def peak_rss_kib(cmd):
    """The process's own VmHWM, read while it runs (the last read before it exits), in a run of
    its own (the polling would slow a timed one): rusage would also count the pre-exec copy of
    this interpreter."""
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL)
    peak = 0
    while proc.poll() is None:
        try:
            with open(f"/proc/{proc.pid}/status") as f:
                for line in f:
                    if line.startswith("VmHWM:"):
                        peak = max(peak, int(line.split()[1]))
        except (FileNotFoundError, ProcessLookupError, ValueError):
            pass
        time.sleep(0.002)
    if proc.returncode != 0:
        raise SystemExit(f"{' '.join(cmd)} failed")
    return peak


def main():
    ctl, fixtures = sys.argv[1], sys.argv[2]
    sizes = [int(s) for s in sys.argv[3:]] or [50, 500]
    with tempfile.TemporaryDirectory() as tmp:
        for size in sizes:
            path = os.path.join(tmp, f"runtime-a-{size}mb.jsonl")
            n = transcript(fixtures, size, path)
            cmd = [ctl, "bridge", "translate", "--runtime", "runtime-a", path]
            times = [seconds(cmd) for _ in range(RUNS)]
            mb = n / 1e6
            print(f"platformctl bridge translate, runtime-a, {mb:.0f} MB: best {mb / min(times):.0f} MB/s, "
                  f"median {mb / statistics.median(times):.0f} MB/s, peak RSS {peak_rss_kib(cmd) / 1024:.1f} MiB")
            os.unlink(path)


if __name__ == "__main__":
    main()
