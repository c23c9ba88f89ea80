// Careless and slow clients against both servers (issue 14, item 5), over raw sockets on
// 127.0.0.1:
//   - a huge declared Content-Length is refused at once with 413 `body_too_large`, before any
//     of the body is sent (not after the 30 s read timeout), and the connection is closed;
//   - a chunked body is refused at once with 411 `length_required`;
//   - a request head that never ends is cut off after 64 KiB;
//   - a flood of clients that never finish their headers (400 connections held open) does not
//     starve anyone else: other requests are answered meanwhile, on both servers.
// platform-web runs with PLATFORM_WORKER_URL pointing at nothing; platform-worker on its own.
//
// Usage: node e2e-slow-clients.mjs --build DIR --project DIR
import assert from 'node:assert/strict';
import fs from 'node:fs';
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
 *  30 s: an answer only after that is the failure this guards against). With `whole`, resolves
 *  as soon as one whole reply (head and Content-Length body) is in, closed or not. */
function headOnly(port, head, { whole = false } = {}) {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1');
    let text = '';
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new Error(`no answer within 10 s; got ${JSON.stringify(text.slice(0, 200))}`));
    }, 10000);
    socket.on('data', (d) => {
      text += d;
      if (!whole) return;
      const end = text.indexOf('\r\n\r\n');
      const length = /\r\ncontent-length: *(\d+)/i.exec(text.slice(0, end));
      if (end >= 0 && length && Buffer.byteLength(text.slice(end + 4)) >= Number(length[1])) {
        clearTimeout(timer);
        socket.destroy();
        resolve({ text, closed: false });
      }
    });
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

/** Sends a request line for `path` and then header lines, `total` bytes of them, as fast as
 *  the server takes them; resolves with how many bytes went out before the server ended the
 *  connection and what it answered, or rejects when the server has not ended it within 20 s. */
function endlessHead(port, path, total) {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1');
    const block = `X-Pad: ${'y'.repeat(100)}\r\n`.repeat(640);
    let sent = 0;
    let text = '';
    let over = false;
    const finish = () => {
      if (over) return;
      over = true;
      clearTimeout(timer);
      socket.destroy();
      resolve({ sent, text });
    };
    const timer = setTimeout(() => {
      over = true;
      socket.destroy();
      reject(new Error(`the server neither ended the connection nor took all ${total} bytes within 20 s (${sent} sent)`));
    }, 20000);
    socket.on('data', (d) => { text += d; });
    socket.on('end', finish);
    socket.on('close', finish);
    socket.on('error', finish);
    const more = () => {
      while (!over && sent < total) {
        sent += block.length;
        if (!socket.write(block)) return socket.once('drain', more);
      }
    };
    socket.once('connect', () => {
      socket.write(`GET ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\n`);
      more();
    });
  });
}

/** A process's peak resident memory (VmHWM), in KiB. */
function peakKiB(pid) {
  return Number(/VmHWM:\s+(\d+) kB/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'))[1]);
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
    { name: 'platform-web', port: Number(web.match[1]), pid: web.child.pid, post: '/api/workspaces/default/apps', get: '/api/health' },
    { name: 'platform-worker', port: Number(worker.match[1]), pid: worker.child.pid, post: '/sessions/app_x/messages', get: '/health' },
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

    await check(`${s.name}: a chunked body is refused before any of it is read (411 length_required)`, async () => {
      // cpp-httplib would buffer the whole of it, unbounded, before a handler saw it; the
      // first chunk is sent, and the refusal comes without the rest.
      const answer = await headOnly(s.port,
        `POST ${s.post} HTTP/1.1\r\nHost: 127.0.0.1:${s.port}\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n1\r\n{\r\n`,
        { whole: true });
      assert.match(answer.text, /^HTTP\/1\.1 411 /);
      assert.match(answer.text, /"code":"length_required"/);
      assert.match(answer.text, /\r\nConnection: close\r\n/i);
    });

    await check(`${s.name}: a head that never ends is cut off after 64 KiB and its connection closed; others are answered`, async () => {
      // cpp-httplib caps each header line, not how many: 21 MB of them used to be read, kept
      // and answered.
      // What it reads after the cut is discarded, not kept: its peak memory barely moves.
      const before = peakKiB(s.pid);
      const flood = await endlessHead(s.port, s.get, 64 << 20);
      const grew = peakKiB(s.pid) - before;
      assert.ok(grew < 16 * 1024, `the server's peak memory grew by ${grew} KiB over ${flood.sent} bytes of one head`);
      assert.match(flood.text, /^HTTP\/1\.1 400 /);
      const res = await fetch(`http://127.0.0.1:${s.port}${s.get}`);
      assert.equal(res.status, 200);
      await res.text();
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
