// What resume-peer.mjs and live-peer.mjs share: a resumable-stream context on the platform's
// Redis server, and their producer process (the same script with --producer and ARGS) once
// it printed "ready".
import { spawn } from 'node:child_process';
import { createClient } from 'redis';
import { createResumableStreamContext } from 'resumable-stream/redis';

export const keyPrefix = 'platform-peer-bench';

export async function context(url) {
  const publisher = createClient({ url });
  const subscriber = createClient({ url });
  await Promise.all([publisher.connect(), subscriber.connect()]);
  const ctx = createResumableStreamContext({ keyPrefix, publisher, subscriber, waitUntil: null });
  return { ctx, publisher, subscriber };
}

export function startProducer(script, args, stdin = 'ignore', readyWithinMs = 60_000) {
  const child = spawn(process.execPath, [script, '--producer', ...args.map(String)], {
    stdio: [stdin, 'pipe', 'inherit'],
  });
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`the producer did not become ready in ${readyWithinMs / 1000} s`)), readyWithinMs);
    child.stdout.on('data', (text) => {
      if (String(text).includes('ready')) {
        clearTimeout(timer);
        resolve(child);
      }
    });
    child.on('exit', (code) => reject(new Error(`the producer exited (${code})`)));
  });
}
