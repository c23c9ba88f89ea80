#!/usr/bin/env node
// A plain node:http SSE server, what a team writes to fan a run's events out to its viewers:
// GET /events answers with the UI message stream headers and one backlog event, and keeps the
// response in a Set; every message on the Redis channel CHANNEL (node-redis SUBSCRIBE) is
// written to every response held. bench_resume --sse-peer holds the viewers, reads this
// process's RSS and publishes the event, exactly as it does for platform-web.
// Prints "listening PORT" once ready. Bounded: exits by itself after 300 s, or on SIGTERM.
//
// Usage: node sse-server.mjs REDIS_URL CHANNEL
import http from 'node:http';
import { createClient } from 'redis';

const [url, channel] = process.argv.slice(2);
if (!url || !channel) {
  process.stderr.write('usage: node sse-server.mjs REDIS_URL CHANNEL\n');
  process.exit(2);
}
setTimeout(() => process.exit(0), 300_000).unref();
process.on('SIGTERM', () => process.exit(0));

const viewers = new Set();
const backlog = 'data: {"type":"text-delta","id":"m:1","delta":"chunk 0 of the backlog, about a line of model output"}\n\n';

const server = http.createServer((req, res) => {
  if (req.method !== 'GET' || req.url !== '/events') {
    res.writeHead(404).end();
    return;
  }
  res.writeHead(200, {
    'content-type': 'text/event-stream',
    'cache-control': 'no-cache',
    connection: 'keep-alive',
    'x-vercel-ai-ui-message-stream': 'v1',
    'x-accel-buffering': 'no',
  });
  res.write(backlog);
  viewers.add(res);
  res.on('close', () => viewers.delete(res));
});
server.maxConnections = Infinity;

const subscriber = createClient({ url });
await subscriber.connect();
await subscriber.subscribe(channel, (message) => {
  for (const res of viewers) res.write(message);
});
server.listen(0, '127.0.0.1', () => process.stdout.write(`listening ${server.address().port}\n`));
