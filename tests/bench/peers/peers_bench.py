#!/usr/bin/env python3
"""The platform side by side with what a user would pick instead, in one run on one machine
(issue 17). Started by run.sh, which provides the services; prints each measurement as it is
taken, then one table with the ratios (ours ÷ theirs).

  bridge:  one runtime-a transcript (the fixtures' stream events repeated to SIZE MB, as
           platformctl_bench.py builds it) → UI message stream SSE on stdout (/dev/null):
           `platformctl bridge translate`, the ai package's streamText → toUIMessageStreamResponse
           over ai-sdk-provider-claude-code (ai-pipeline.mjs, its CLI replaced by
           recorded-claude.mjs), and a plain hand-written Node translator (plain-translator.mjs).
           Whole process: median of RUNS wall times and the process's peak RSS (VmHWM, in a run
           of its own). In-process: bench_bridge's figure beside the Node scripts' own time after
           start-up.
  resume:  bench_resume (10,000-chunk backlog, producer dead, another replica, over HTTP)
           beside resume-peer.mjs (resumable-stream, in-process, producer alive; then killed).
  fan-out: bench_resume's 2,000 viewers on platform-web beside the same client holding 2,000
           viewers on sse-server.mjs (node:http), one event published through Redis.
  live:    a chunk's latency with 100 streams at once, a chunk every 10 ms each, on Redis:
           bench_chunk_latency (worker -> platform-web -> its client) beside live-peer.mjs
           (resumable-stream: producer -> Redis -> a viewer that resumed, in another process).

Needs PLATFORM_TEST_REDIS_URL and PLATFORM_TEST_PG_URL.
Usage: peers_bench.py --build DIR --fixtures DIR [--size MB] [--runs N] [--viewers N] [--rounds N]
"""
import argparse
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))
import platformctl_bench  # noqa: E402  (transcript(), peak_rss_kib())

TIMEOUT = 300  # seconds, for any one process


def log(text):
    print(text, flush=True)


def timed(cmd):
    """Wall seconds of one run, and the "pipeline_ms N" its stderr reports (Node scripts)."""
    t = time.perf_counter()
    done = subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, timeout=TIMEOUT, text=True,
                          env={**os.environ, "PEER_BENCH_TIMING": "1"})
    wall = time.perf_counter() - t
    if done.returncode != 0:
        raise SystemExit(f"{' '.join(cmd)} failed ({done.returncode}):\n{done.stderr}")
    m = re.search(r"pipeline_ms ([\d.]+)", done.stderr)
    return wall, float(m.group(1)) / 1000 if m else None


def whole_process(label, cmd, mb, runs):
    times = [timed(cmd) for _ in range(runs)]
    wall = statistics.median(t[0] for t in times)
    inproc = [t[1] for t in times if t[1] is not None]
    row = {"mbps": mb / wall, "rss_mib": platformctl_bench.peak_rss_kib(cmd) / 1024}
    if inproc:
        row["inproc_mbps"] = mb / statistics.median(inproc)
    extra = f", in-process {row['inproc_mbps']:.1f} MB/s" if inproc else ""
    log(f"{label}: {row['mbps']:.1f} MB/s (median of {runs}, whole process){extra}, peak RSS {row['rss_mib']:.1f} MiB")
    return row


def bridge(args):
    out = {}
    fixtures = os.path.join(args.fixtures, "runtime-a")
    fixture = os.path.join(fixtures, "text-default-model.jsonl")
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "runtime-a.jsonl")
        mb = platformctl_bench.transcript(args.fixtures, args.size, path) / 1e6
        log(f"bridge: runtime-a transcript of {mb:.1f} MB (stream events of {fixtures}, repeated)")
        out["mb"] = mb
        out["ours"] = whole_process("  platformctl bridge translate",
                                    [os.path.join(args.build, "tools/platformctl/platformctl"), "bridge", "translate",
                                     "--runtime", "runtime-a", path], mb, args.runs)
        out["plain"] = whole_process("  plain Node translator", ["node", os.path.join(HERE, "plain-translator.mjs"), path],
                                     mb, args.runs)
        out["ai"] = whole_process("  ai streamText over ai-sdk-provider-claude-code",
                                  ["node", os.path.join(HERE, "ai-pipeline.mjs"), path, fixture], mb, args.runs)
    done = subprocess.run([os.path.join(args.build, "tests/bench/bench_bridge"), str(args.size)], capture_output=True,
                          text=True, timeout=TIMEOUT, check=True)
    m = re.search(r"runtime-a \(stream events only\): .*? = ([\d.]+) MB/s.*max RSS (\d+) KiB", done.stdout)
    if not m:
        raise SystemExit(f"bench_bridge printed no runtime-a figure:\n{done.stdout}")
    out["inproc"] = {"mbps": float(m.group(1)), "rss_mib": int(m.group(2)) / 1024}
    log(f"  bench_bridge, in-process: {out['inproc']['mbps']:.0f} MB/s, max RSS {out['inproc']['rss_mib']:.1f} MiB")
    return out


def parse_viewers(text):
    m = re.search(r"= ([\d.]+) KiB per viewer; one event reached (\d+) viewers in ([\d.]+) ms; "
                  r"over (\d+) events median ([\d.]+) ms, p99 ([\d.]+) ms", text)
    if not m:
        raise SystemExit(f"no viewer figure in:\n{text}")
    return {"kib": float(m.group(1)), "reached": int(m.group(2)), "ms": float(m.group(3)), "events": int(m.group(4)),
            "median": float(m.group(5)), "p99": float(m.group(6))}


def ours_resume(args, tmp):
    done = subprocess.run([os.path.join(args.build, "tests/bench/bench_resume"),
                           os.path.join(args.build, "servers/web/platform-web"), str(args.viewers), str(args.rounds)],
                          capture_output=True, text=True, timeout=TIMEOUT, cwd=tmp)
    log("resume and fan-out, ours (bench_resume):\n  " + done.stdout.strip().replace("\n", "\n  "))
    if done.returncode != 0:
        raise SystemExit(f"bench_resume failed ({done.returncode}):\n{done.stderr}")
    m = re.search(r"median ([\d.]+) ms, p95 ([\d.]+) ms", done.stdout)
    if not m:
        raise SystemExit("bench_resume printed no resume figure")
    return {"median": float(m.group(1)), "p95": float(m.group(2))}, parse_viewers(done.stdout)


def their_resume(args):
    done = subprocess.run(["node", os.path.join(HERE, "resume-peer.mjs"), os.environ["PLATFORM_TEST_REDIS_URL"],
                           "10000", str(args.rounds)], capture_output=True, text=True, timeout=TIMEOUT)
    if done.returncode != 0:
        raise SystemExit(f"resume-peer.mjs failed ({done.returncode}):\n{done.stderr}")
    r = json.loads(done.stdout.strip().splitlines()[-1])
    dead = r["producerDead"]
    if dead["outcome"] == "resumed":
        raise SystemExit(f"resumable-stream resumed a dead producer's stream: {dead}")
    why = {"rejected": f"rejected after {dead['ms']:.0f} ms: {dead.get('error')}",
           "hangs": f"no byte within the {dead['boundMs']} ms bound"}.get(dead["outcome"], f"{dead['outcome']} after {dead['ms']:.0f} ms")
    r["cannot"] = f"cannot ({why})"
    log(f"resume, resumable-stream 2.2.13 in-process, producer alive: median {r['medianMs']:.2f} ms, "
        f"p95 {r['p95Ms']:.2f} ms, min {r['minMs']:.2f} ms ({r['rounds']} rounds); producer killed: {r['cannot']}")
    return r


def their_fanout(args):
    channel = "bench-peer-fanout"
    server = subprocess.Popen(["node", os.path.join(HERE, "sse-server.mjs"), os.environ["PLATFORM_TEST_REDIS_URL"],
                               f"platform:ch:{channel}"], stdout=subprocess.PIPE, text=True)
    try:
        line = server.stdout.readline()
        if not line.startswith("listening "):
            raise SystemExit("sse-server.mjs did not start")
        done = subprocess.run([os.path.join(args.build, "tests/bench/bench_resume"), "--sse-peer", line.split()[1],
                               str(server.pid), channel, str(args.viewers)],
                              capture_output=True, text=True, timeout=TIMEOUT)
        log("fan-out, node:http SSE server (same client):\n  " + done.stdout.strip())
        if done.returncode != 0:
            raise SystemExit(f"bench_resume --sse-peer failed ({done.returncode}):\n{done.stderr}")
        return parse_viewers(done.stdout)
    finally:
        server.terminate()
        server.wait(timeout=30)


LIVE = ["100", "200", "10"]  # streams, chunks each, ms between chunks


def ours_live(args, tmp):
    done = subprocess.run([os.path.join(args.build, "tests/bench/bench_chunk_latency"),
                           os.path.join(args.build, "servers/web/platform-web"), *LIVE],
                          capture_output=True, text=True, timeout=TIMEOUT, cwd=tmp)
    log("live chunk latency, ours (bench_chunk_latency, Redis):\n  " + done.stdout.strip().replace("\n", "\n  "))
    m = re.search(r"p50 ([\d.]+) ms, p99 ([\d.]+) ms", done.stdout)
    if done.returncode != 0 or not m:
        raise SystemExit(f"bench_chunk_latency failed ({done.returncode}):\n{done.stderr}")
    return {"p50": float(m.group(1)), "p99": float(m.group(2))}


def their_live():
    done = subprocess.run(["node", os.path.join(HERE, "live-peer.mjs"), os.environ["PLATFORM_TEST_REDIS_URL"], *LIVE],
                          capture_output=True, text=True, timeout=TIMEOUT)
    if done.returncode != 0:
        raise SystemExit(f"live-peer.mjs failed ({done.returncode}):\n{done.stderr}")
    r = json.loads(done.stdout.strip().splitlines()[-1])
    log(f"live chunk latency, resumable-stream 2.2.13: {r['received']} of {r['expected']} chunks, "
        f"p50 {r['p50Ms']:.2f} ms, p99 {r['p99Ms']:.2f} ms, max {r['maxMs']:.2f} ms")
    return r


def ratio(ours, theirs):
    return f"{ours / theirs:.3g}"


def table(b, ours, theirs, args):
    """Rows of (measurement, ours, theirs, ours ÷ theirs); "↑"/"↓": higher/lower is better."""
    mb = f"{b['mb']:.0f} MB"
    rows = []
    for key, name in (("ai", "`ai` streamText → toUIMessageStreamResponse over ai-sdk-provider-claude-code"),
                      ("plain", "hand-written Node translator")):
        t = b[key]
        rows.append((f"bridge, {mb} runtime-a transcript → SSE: `platformctl bridge translate` vs {name}; "
                     "input MB/s, whole process ↑", f"{b['ours']['mbps']:.0f}", f"{t['mbps']:.1f}",
                     ratio(b["ours"]["mbps"], t["mbps"])))
        rows.append(("  peak RSS, MiB ↓", f"{b['ours']['rss_mib']:.1f}", f"{t['rss_mib']:.1f}",
                     ratio(b["ours"]["rss_mib"], t["rss_mib"])))
        rows.append(("  in-process MB/s (`bench_bridge` vs the script after start-up) ↑", f"{b['inproc']['mbps']:.0f}",
                     f"{t['inproc_mbps']:.1f}", ratio(b["inproc"]["mbps"], t["inproc_mbps"])))
    our_r, our_v = ours
    their_r, their_v = theirs["resume"], theirs["viewers"]
    rows.append(("resume of a 10,000-chunk backlog, first to last byte: ours over HTTP on another replica with the "
                 "producer dead vs `resumable-stream` in-process with the producer alive; median ms ↓",
                 f"{our_r['median']:.2f}", f"{their_r['medianMs']:.2f}", ratio(our_r["median"], their_r["medianMs"])))
    rows.append(("  p95 ms ↓", f"{our_r['p95']:.2f}", f"{their_r['p95Ms']:.2f}", ratio(our_r["p95"], their_r["p95Ms"])))
    rows.append(("  resume once the producing process died", "resumes (above)", their_r["cannot"], "—"))
    rows.append((f"fan-out: one event reaching {args.viewers:,} viewer streams of one process (published through "
                 f"Redis), platform-web vs a node:http SSE server, {our_v['events']} events one after another; "
                 "median ms ↓", f"{our_v['median']:.1f}", f"{their_v['median']:.1f}",
                 ratio(our_v["median"], their_v["median"])))
    rows.append(("  p99 ms ↓", f"{our_v['p99']:.1f}", f"{their_v['p99']:.1f}", ratio(our_v["p99"], their_v["p99"])))
    rows.append(("  RSS per viewer, KiB ↓", f"{our_v['kib']:.1f}", f"{their_v['kib']:.1f}",
                 ratio(our_v["kib"], their_v["kib"])))
    our_l, their_l = theirs["our_live"], theirs["live"]
    rows.append((f"live chunk latency, {LIVE[0]} streams at once, a chunk every {LIVE[2]} ms each, on Redis: ours "
                 "worker → platform-web → client vs `resumable-stream` producer → a viewer that resumed in another "
                 "process; p50 ms ↓", f"{our_l['p50']:.2f}", f"{their_l['p50Ms']:.2f}",
                 ratio(our_l["p50"], their_l["p50Ms"])))
    rows.append(("  p99 ms ↓", f"{our_l['p99']:.2f}", f"{their_l['p99Ms']:.2f}", ratio(our_l["p99"], their_l["p99Ms"])))
    lines = ["| measurement | ours | theirs | ours ÷ theirs |", "|---|---:|---:|---:|"]
    lines += [f"| {m} | {o} | {t} | {r} |" for m, o, t, r in rows]
    return "\n".join(lines)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--build", required=True)
    ap.add_argument("--fixtures", required=True)
    ap.add_argument("--size", type=int, default=50)
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--viewers", type=int, default=2000)
    ap.add_argument("--rounds", type=int, default=200)
    args = ap.parse_args()
    for var in ("PLATFORM_TEST_REDIS_URL", "PLATFORM_TEST_PG_URL"):
        if not os.environ.get(var):
            raise SystemExit(f"{var} is not set (run.sh starts the services)")
    b = bridge(args)
    with tempfile.TemporaryDirectory() as tmp:  # platform-web keeps its data dir in the cwd
        ours = ours_resume(args, tmp)
        our_live = ours_live(args, tmp)
    theirs = {"resume": their_resume(args), "viewers": their_fanout(args), "live": their_live(), "our_live": our_live}
    log("\n" + table(b, ours, theirs, args))


if __name__ == "__main__":
    main()
