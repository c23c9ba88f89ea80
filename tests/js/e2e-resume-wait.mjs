// Resume rule 2 (spec "Chat stream resume rules"): a run that is streaming but not attachable
// yet gets a short wait for its run events before the answer. Two web replicas on PostgreSQL +
// Redis. The window between a turn's claim (status streaming, in PostgreSQL) and its stream
// being ready is held open by pausing Redis's writes (CLIENT PAUSE WRITE): replica A has
// claimed the run and waits for Redis to publish run.starting and create the stream.
//  - A viewer on replica B that arrives in that window waits; once Redis takes writes again
//    the stream becomes ready and the viewer gets it whole (200, the persisted message).
//  - A viewer whose wait runs out while the window is still open gets 204 (rule 6: not
//    attachable yet) with the run still streaming, and attaches when it retries.
//
// Usage: node e2e-resume-wait.mjs --build DIR --project DIR --replicas
import assert from 'node:assert/strict';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { assembleMessage, endTurn, harness, SseReader, startModelAndWorker } from './harness.mjs';

const args = process.argv.slice(2);
const opt = (name) => path.resolve(args[args.indexOf(name) + 1]);
const buildDir = opt('--build');
const projectDir = opt('--project');
const { tmp, check, start, run } = harness('platform-resume-wait-e2e-');

// Each run is a conversation of its own, so each gets the first turn.
const scenario = { turns: [endTurn('The answer, whole.')],
  aux: { blocks: [{ type: 'text', text: 'Wait' }], stop_reason: 'end_turn' } };

// One Redis command over its own connection (RESP), resolving with the reply line.
function redis(url, ...argv) {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const s = net.connect(Number(port), hostname);
    let reply = '';
    s.on('error', reject);
    s.on('data', (d) => {
      reply += d;
      if (reply.endsWith('\r\n')) {
        s.end();
        if (reply.startsWith('-')) reject(new Error(`redis ${argv.join(' ')}: ${reply.trim()}`));
        else resolve(reply.trim());
      }
    });
    s.write(`*${argv.length}\r\n` + argv.map((a) => `$${Buffer.byteLength(a)}\r\n${a}\r\n`).join(''));
  });
}

// Resolves once `file` holds a line containing `text` (the server's stderr).
async function logLine(file, text) {
  for (;;) {
    if (fs.existsSync(file) && fs.readFileSync(file, 'utf8').includes(text)) return;
    await new Promise((r) => setTimeout(r, 20));
  }
}

run(async () => {
  const redisUrl = process.env.PLATFORM_TEST_REDIS_URL;
  const { workerUrl } = await startModelAndWorker({ start, tmp }, { buildDir, projectDir, scenario });
  const webEnv = {
    PLATFORM_WEB_PORT: '0',
    PLATFORM_DATA_DIR: path.join(tmp, 'data'),
    PLATFORM_WORKER_URL: workerUrl,
    PLATFORM_DATABASE_URL: process.env.PLATFORM_TEST_PG_URL,
    PLATFORM_REDIS_URL: redisUrl,
  };
  const web = (name, env) => start(name, path.join(buildDir, 'servers/web/platform-web'), [], env, /listening on (http:\S+)/);
  const a = (await web('web-a', webEnv)).match[1];
  const b = (await web('web-b', { ...webEnv, PLATFORM_CODEX_TRACE: '1' })).match[1];
  const bLog = path.join(tmp, 'web-b.log');
  const post = (base, p, body) => fetch(base + p, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  const app = await (await post(a, '/api/workspaces/default/apps', { name: 'Wait' })).json();
  const appPath = `/api/workspaces/default/apps/${app.id}`;

  // Starts a turn on A with Redis's writes paused, and resolves once B reads the run as
  // streaming (claimed in PostgreSQL) while A is still held before its stream exists.
  async function heldTurn(text) {
    const created = await (await post(a, `${appPath}/runs`, {})).json();
    const runPath = `${appPath}/runs/${created.id}`;
    // The pause's own timeout is a safety net; each check ends it itself.
    assert.equal(await redis(redisUrl, 'CLIENT', 'PAUSE', '8000', 'WRITE'), '+OK');
    const producer = post(a, `${runPath}/chat`, { messages: [{ id: `u-${created.id}`, role: 'user', parts: [{ type: 'text', text }] }] });
    for (;;) {
      const r = await (await fetch(b + `${runPath}/chat`)).json();
      assert.ok(r.status === 'pending' || r.status === 'streaming', JSON.stringify(r));
      assert.equal(r.activeStreamId ?? null, null, 'no stream while Redis takes no writes');
      if (r.status === 'streaming') break;
      await new Promise((res) => setTimeout(res, 20));
    }
    return { runId: created.id, runPath, producer };
  }

  const persisted = async (runPath) => {
    const chat = await (await fetch(b + `${runPath}/chat`)).json();
    return chat.messages.at(-1);
  };

  await check('a viewer in the window before the stream is ready waits for it, then gets the whole turn', async () => {
    const t = await heldTurn('First');
    const viewer = fetch(b + `${t.runPath}/chat/stream`);
    await logLine(bLog, `resume waits for an attachable stream run=${t.runId}`);
    assert.equal(await redis(redisUrl, 'CLIENT', 'UNPAUSE'), '+OK');
    const res = await viewer;
    assert.equal(res.status, 200);
    const body = (await new SseReader(res).toEnd()).join('');
    const producer = await t.producer;
    assert.equal(producer.status, 200);
    await new SseReader(producer).toEnd();
    const message = await assembleMessage(body);
    assert.equal(message.parts.filter((p) => p.type === 'text').map((p) => p.text).join(''), 'The answer, whole.');
    const stored = await persisted(t.runPath);
    assert.deepEqual(message.parts.filter((p) => p.type === 'text').map((p) => p.text),
      stored.parts.filter((p) => p.type === 'text').map((p) => p.text));
  });

  await check('a wait that runs out in the window answers 204 with the run still streaming; the retry attaches', async () => {
    const t = await heldTurn('Second');
    const res = await fetch(b + `${t.runPath}/chat/stream`);
    assert.equal(res.status, 204);
    const during = await (await fetch(b + `${t.runPath}/chat`)).json();
    assert.equal(during.status, 'streaming', 'rule 6: 204 while streaming means not attachable yet');
    assert.equal(await redis(redisUrl, 'CLIENT', 'UNPAUSE'), '+OK');
    // The client's retry (rule 6) until it attaches; each attempt waits for the stream itself.
    let retry;
    while ((retry = await fetch(b + `${t.runPath}/chat/stream`)).status === 204) {
      assert.equal((await (await fetch(b + `${t.runPath}/chat`)).json()).status, 'streaming');
    }
    assert.equal(retry.status, 200);
    const body = (await new SseReader(retry).toEnd()).join('');
    await new SseReader(await t.producer).toEnd();
    const message = await assembleMessage(body);
    assert.equal(message.parts.filter((p) => p.type === 'text').map((p) => p.text).join(''), 'The answer, whole.');
  });
});
