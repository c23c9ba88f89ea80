// Careless and slow clients against both servers (issue 14, item 5), over raw sockets on
// 127.0.0.1:
//   - a huge declared Content-Length is refused at once with 413 `body_too_large`, before any
//     of the body is sent (not after the 30 s read timeout), and the connection is closed;
//   - a flood of clients that never finish their headers (400 connections held open) does not
//     starve anyone else: other requests are answered meanwhile, on both servers.
// platform-web runs with PLATFORM_WORKER_URL pointing at nothing; platform-worker on its own.
//
// Usage: node e2e-slow-clients.mjs --build DIR --project DIR
import assert from 'node:assert/strict';
import net from 'node:net';
import path from 'node:path';
import { harness } from './harness.mjs';

const args = process.argv.slice(2);
const opt = (name) => path.resolve(args[args.indexOf(name) + 1]);
const buildDir = opt('--build');
const { tmp, check, start, run } = harness('platform-slow-clients-e2e-');
const FLOOD = 400;

/** Sends `head` and nothing more; resolves with what the server answered and whether it
 *  closed the connection, or rejects when it has not answered within 10 s (its read timeout is
 *  30 s: an answer only after that is the failure this guards against). */
function headOnly(port, head) {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1');
    let text = '';
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new Error(`no answer within 10 s; got ${JSON.stringify(text.slice(0, 200))}`));
    }, 10000);
    socket.on('data', (d) => { text += d; });
    socket.on('end', () => {
      clearTimeout(timer);
      resolve({ text, closed: true });
    });
    socket.on('error', (e) => {
      clearTimeout(timer);
      reject(e);
    });
    socket.write(head);
  });
}

/** `n` connections that send the start of a request and then nothing. */
async function flood(port, n) {
  const sockets = [];
  for (let i = 0; i < n; i++) {
    const socket = net.connect(port, '127.0.0.1');
    socket.on('error', () => {});
    await new Promise((resolve) => socket.once('connect', resolve));
    socket.write('POST /api/workspaces/default/apps HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: appl');
    sockets.push(socket);
  }
  return sockets;
}

run(async () => {
  const web = await start('web', path.join(buildDir, 'servers/web/platform-web'), [], {
    PLATFORM_WEB_PORT: '0',
    PLATFORM_DATA_DIR: path.join(tmp, 'web'),
    PLATFORM_WORKER_URL: 'http://127.0.0.1:9',
  }, /listening on http:\/\/127\.0\.0\.1:(\d+)/);
  const worker = await start('worker', path.join(buildDir, 'servers/worker/platform-worker'), [], {
    PLATFORM_WORKER_PORT: '0',
    PLATFORM_DATA_DIR: path.join(tmp, 'worker'),
  }, /listening on http:\/\/127\.0\.0\.1:(\d+)/);
  const servers = [
    { name: 'platform-web', port: Number(web.match[1]), post: '/api/workspaces/default/apps', get: '/api/health' },
    { name: 'platform-worker', port: Number(worker.match[1]), post: '/sessions/app_x/messages', get: '/health' },
  ];

  for (const s of servers) {
    await check(`${s.name}: a 10 GB declared body is refused at once (413 body_too_large), the connection closed`, async () => {
      const answer = await headOnly(s.port,
        `POST ${s.post} HTTP/1.1\r\nHost: 127.0.0.1:${s.port}\r\nContent-Type: application/json\r\nContent-Length: 10000000000\r\n\r\n`);
      assert.match(answer.text, /^HTTP\/1\.1 413 /);
      assert.match(answer.text, /"code":"body_too_large"/);
      assert.ok(answer.closed);
      // A length too long to be a number at all is refused the same way.
      const absurd = await headOnly(s.port,
        `POST ${s.post} HTTP/1.1\r\nHost: 127.0.0.1:${s.port}\r\nContent-Type: application/json\r\nContent-Length: ${'9'.repeat(40)}\r\n\r\n`);
      assert.match(absurd.text, /^HTTP\/1\.1 (413|400) /);
    });

    await check(`${s.name}: ${FLOOD} clients that never finish their headers starve no one`, async () => {
      const held = await flood(s.port, FLOOD);
      try {
        for (let i = 0; i < 20; i++) {
          const res = await fetch(`http://127.0.0.1:${s.port}${s.get}`, { signal: AbortSignal.timeout(5000) });
          assert.equal(res.status, 200);
          await res.text();
        }
      } finally {
        for (const socket of held) socket.destroy();
      }
    });
  }
});
