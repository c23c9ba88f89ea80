#!/usr/bin/env node
// Vercel's resumable-stream on the platform's Redis server, next to bench_resume:
//   1. A producer process (this script with --producer) creates a resumable stream with
//      createNewResumableStream, pushes CHUNKS SSE events into it (the same text as
//      bench_resume's backlog) and keeps it open: a run still in progress.
//   2. Here, in-process: resumeExistingStream on that stream, timed from the call to the last
//      byte of the backlog, once to warm up and then ROUNDS times (median, p95, min).
//   3. The producer is killed (SIGKILL, as a crash or a redeploy would), and one more resume is
//      tried with a bound of DEAD_BOUND_MS: resumable-stream keeps the stream in the producer's
//      memory, so this must fail (or hang, vercel/resumable-stream#50) and is reported so.
// Prints one JSON line. Bounded: the producer exits by itself after 300 s.
//
// Usage: node resume-peer.mjs REDIS_URL [chunks=10000] [rounds=200]
//        node resume-peer.mjs --producer REDIS_URL STREAM_ID CHUNKS   (started by the above)
import { fileURLToPath } from 'node:url';
import { context, keyPrefix, startProducer } from './peer-process.mjs';

const DEAD_BOUND_MS = 5000;

const backlogEvent = (i) =>
  `data: {"type":"text-delta","id":"m:1","delta":"chunk ${i} of the backlog, about a line of model output"}\n\n`;

async function producer(url, streamId, chunks) {
  setTimeout(() => process.exit(0), 300_000).unref();
  const { ctx } = await context(url);
  const source = () =>
    new ReadableStream({
      start(controller) {
        for (let i = 0; i < chunks; ++i) controller.enqueue(backlogEvent(i));
        // Never closed: the run is still streaming when the viewer comes back.
      },
    });
  const stream = await ctx.createNewResumableStream(streamId, source);
  const reader = stream.getReader();
  for (let read = 0; read < chunks; ++read) await reader.read();
  process.stdout.write('ready\n');
  await new Promise(() => {});
}

// Counts SSE event terminators across pieces until `chunks` have arrived.
async function readBacklog(stream, chunks) {
  const reader = stream.getReader();
  let events = 0;
  let last = '';
  while (events < chunks) {
    const { done, value } = await reader.read();
    if (done) break;
    if (last === '\n' && value[0] === '\n') ++events;
    for (let at = value.indexOf('\n\n'); at >= 0; at = value.indexOf('\n\n', at + 2)) ++events;
    last = value[value.length - 1];
  }
  await reader.cancel();
  return events;
}

const bounded = (promise, ms) =>
  Promise.race([promise, new Promise((resolve) => setTimeout(() => resolve('bound'), ms).unref())]);

async function main() {
  const [url, chunksArg, roundsArg] = process.argv.slice(2);
  if (!url) {
    process.stderr.write('usage: node resume-peer.mjs REDIS_URL [chunks] [rounds]\n');
    process.exit(2);
  }
  const chunks = Number(chunksArg ?? 10000);
  const rounds = Number(roundsArg ?? 200);
  const streamId = `resume-${process.pid}-${Date.now()}`;
  const { ctx, publisher, subscriber } = await context(url);
  const child = await startProducer(fileURLToPath(import.meta.url), [url, streamId, chunks], 'ignore', 30_000);

  const resumeOnce = async () => {
    const t0 = performance.now();
    const stream = await ctx.resumeExistingStream(streamId);
    if (!stream) throw new Error(`resumeExistingStream returned ${stream}`);
    const events = await readBacklog(stream, chunks);
    const ms = performance.now() - t0;
    if (events < chunks) throw new Error(`resume returned ${events} of ${chunks} chunks`);
    return ms;
  };
  await resumeOnce(); // warm: connections, the producer's subscription, JIT
  const ms = [];
  for (let i = 0; i < rounds; ++i) ms.push(await resumeOnce());
  ms.sort((a, b) => a - b);

  // The producing process dies; the sentinel still says the stream is live.
  const exited = new Promise((resolve) => child.on('exit', resolve));
  child.kill('SIGKILL');
  await exited;
  const t0 = performance.now();
  let dead;
  try {
    const outcome = await bounded(
      ctx.resumeExistingStream(streamId).then(async (stream) => {
        if (!stream) return { outcome: 'no stream', value: String(stream) };
        const events = await bounded(readBacklog(stream, chunks), DEAD_BOUND_MS);
        return events === 'bound' ? { outcome: 'hangs' } : { outcome: events >= chunks ? 'resumed' : 'cut short', events };
      }),
      DEAD_BOUND_MS,
    );
    dead = outcome === 'bound' ? { outcome: 'hangs' } : outcome;
  } catch (e) {
    dead = { outcome: 'rejected', error: e.message };
  }
  dead.ms = performance.now() - t0;
  dead.boundMs = DEAD_BOUND_MS;

  await publisher.del(`${keyPrefix}:rs:sentinel:${streamId}`);
  process.stdout.write(`${JSON.stringify({
    chunks,
    rounds,
    medianMs: ms[Math.floor(ms.length / 2)],
    p95Ms: ms[Math.min(ms.length - 1, Math.floor((ms.length * 95) / 100))],
    minMs: ms[0],
    producerDead: dead,
  })}\n`);
  await Promise.allSettled([publisher.quit(), subscriber.quit()]);
  process.exit(0);
}

if (process.argv[2] === '--producer') {
  const [, url, streamId, chunks] = process.argv.slice(2);
  await producer(url, streamId, Number(chunks));
} else {
  await main();
}
