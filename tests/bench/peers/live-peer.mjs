#!/usr/bin/env node
// Live-chunk latency of Vercel's resumable-stream on the platform's Redis server, next to
// bench_chunk_latency (the same load: TURNS streams at once, a chunk every INTERVAL ms each):
//   1. A producer process (this script with --producer) creates TURNS resumable streams with
//      createNewResumableStream and reads each itself, as the POST that started a turn would.
//      Once told to go, every stream gets a chunk every INTERVAL ms carrying its send time.
//   2. Here, another process (a viewer that resumed: another replica's): resumeExistingStream on
//      every stream, then the producer is told to go; each chunk's latency is its arrival here
//      minus its send time (both from performance.timeOrigin + performance.now(), one machine).
// Prints one JSON line (p50, p99, max, counts). Bounded: the producer exits after 300 s.
//
// Usage: node live-peer.mjs REDIS_URL [turns=100] [deltas=200] [interval_ms=10]
//        node live-peer.mjs --producer REDIS_URL PREFIX TURNS DELTAS INTERVAL   (started by the above)
import { fileURLToPath } from 'node:url';
import { context, startProducer } from './peer-process.mjs';

const now = () => performance.timeOrigin + performance.now();

async function producer(url, prefix, turns, deltas, interval) {
  setTimeout(() => process.exit(0), 300_000).unref();
  const { ctx } = await context(url);
  let go;
  const started = new Promise((resolve) => (go = resolve));
  const source = () =>
    new ReadableStream({
      async start(controller) {
        await started;
        for (let i = 0; i < deltas; ++i) {
          await new Promise((resolve) => setTimeout(resolve, interval));
          controller.enqueue(`data: {"type":"text-delta","id":"t","delta":"t${now().toFixed(3)};"}\n\n`);
        }
        controller.close();
      },
    });
  const drained = [];
  for (let i = 0; i < turns; ++i) {
    const stream = await ctx.createNewResumableStream(`${prefix}-${i}`, source);
    drained.push((async () => {
      const reader = stream.getReader();
      while (!(await reader.read()).done);
    })());
  }
  process.stdout.write('ready\n');
  process.stdin.once('data', () => go());
  await Promise.all(drained);
  process.exit(0);
}

async function main() {
  const [url, turnsArg, deltasArg, intervalArg] = process.argv.slice(2);
  if (!url) {
    process.stderr.write('usage: node live-peer.mjs REDIS_URL [turns] [deltas] [interval_ms]\n');
    process.exit(2);
  }
  const turns = Number(turnsArg ?? 100), deltas = Number(deltasArg ?? 200), interval = Number(intervalArg ?? 10);
  const prefix = `live-${process.pid}-${Date.now()}`;
  const { ctx, publisher, subscriber } = await context(url);
  const child = await startProducer(fileURLToPath(import.meta.url), [url, prefix, turns, deltas, interval], 'pipe');
  const latencies = [];
  const readers = [];
  for (let i = 0; i < turns; ++i) {
    const stream = await ctx.resumeExistingStream(`${prefix}-${i}`);
    if (!stream) throw new Error(`resumeExistingStream returned ${stream}`);
    readers.push((async () => {
      const reader = stream.getReader();
      let pending = '';
      // Until its last chunk: a resumed stream need not end when the producer closes it.
      for (let got = 0; got < deltas;) {
        const { done, value } = await reader.read();
        if (done) return;
        const at = now();
        pending += value;
        for (let m = pending.indexOf('"delta":"t'); m >= 0; m = pending.indexOf('"delta":"t')) {
          const end = pending.indexOf(';', m);
          if (end < 0) break;
          latencies.push(at - Number(pending.slice(m + 10, end)));
          ++got;
          pending = pending.slice(end + 1);
        }
      }
      await reader.cancel();
    })());
  }
  child.stdin.write('go\n');
  await Promise.race([Promise.all(readers), new Promise((resolve) => setTimeout(resolve, 120_000).unref())]);
  child.kill('SIGKILL');
  latencies.sort((a, b) => a - b);
  const at = (q) => latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))] ?? 0;
  process.stdout.write(`${JSON.stringify({
    turns, deltas, intervalMs: interval, received: latencies.length, expected: turns * deltas,
    p50Ms: at(0.5), p99Ms: at(0.99), maxMs: latencies[latencies.length - 1] ?? 0,
  })}\n`);
  await Promise.all([publisher.quit(), subscriber.quit()]);
  process.exit(latencies.length === turns * deltas ? 0 : 1);
}

if (process.argv[2] === '--producer') {
  producer(process.argv[3], process.argv[4], Number(process.argv[5]), Number(process.argv[6]), Number(process.argv[7]));
} else {
  main().catch((e) => {
    process.stderr.write(`${e.stack ?? e}\n`);
    process.exit(1);
  });
}
